/* hetsched — dense linear algebra kernel types on OpenBLAS: gemm, gemv, dot.
 *
 * Checks recompute entries in double precision from the inputs and compare
 * componentwise: |got - ref| <= 1e-4 * sum of |terms|.  A float dot product
 * of length k in any summation order errs by at most k*u*sum|terms| (u =
 * 2^-24, the classic bound of Higham's "Accuracy and Stability of Numerical
 * Algorithms", ch. 3), so 1e-4 holds for every k up to ~1700 in the worst
 * case and, with the random signs of our inputs, for far longer ones. */
#include <math.h>
#include <stdio.h>

#include <cblas.h>

#include "workloads/kernels/kernel_int.h"

/* -------------------------------------------------------------------- gemm */

/* C = alpha * A * op(B) + beta * C, A m x k, op(B) k x n, row-major; B is
 * stored n x k when transb (tiled Cholesky's update A_ij -= A_ik A_jk^T is
 * gemm with alpha -1, beta 1, transb 1). */
static const hs_kparam_spec gemm_params[] = {
    {"n", 1, 0, NULL, 1, HS_KMAT_MAX, 1, "columns of C"},
    {"m", 0, 0, "n", 1, HS_KMAT_MAX, 1, "rows of A and C"},
    {"k", 0, 0, "n", 1, HS_KMAT_MAX, 1, "columns of A, rows of op(B)"},
    {"alpha", 0, 1, NULL, -1e30, 1e30, 0, "factor of A*op(B)"},
    {"beta", 0, 0, NULL, -1e30, 1e30, 0, "factor of C (C is read when nonzero)"},
    {"transb", 0, 0, NULL, 0, 1, 1, "1: op(B) = B^T, B stored n x k"},
    {0},
};

static int gemm_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[HS_KGEMM_N], m = (size_t)c->p[HS_KGEMM_M], k = (size_t)c->p[HS_KGEMM_K];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, m * k * 4);
    hs__kset_buf(c, 1, "b", HS_KREAD, k * n * 4);
    hs__kset_buf(c, 2, "c", c->p[HS_KGEMM_BETA] != 0 ? HS_KRW : HS_KWRITE, m * n * 4);
    c->items = m;
    c->splittable = 1;
    c->flops = 2.0 * (double)m * (double)n * (double)k;
    return 0;
}

static int gemm_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                    hs_error *err)
{
    int n = (int)c->p[HS_KGEMM_N], k = (int)c->p[HS_KGEMM_K], tb = c->p[HS_KGEMM_TRANSB] != 0;
    const float *a = bufs[0], *b = bufs[1];
    float *out = bufs[2];
    (void)err;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)(end - begin),
                n, k, (float)c->p[HS_KGEMM_ALPHA], a + begin * (size_t)k, k, b, tb ? k : n,
                (float)c->p[HS_KGEMM_BETA], out + begin * (size_t)n, n);
    return 0;
}

/* Samples are taken GEMM_BLOCK at a time, l in the outer loop: B (not
 * transposed) is then read row by row, a few times in all, instead of a
 * column per sample, 4096 cache misses deep (0.4-0.7 s of a run's checks
 * for n = 8192 on an H100 host).  Each sample still sums over l in
 * order: the same doubles. */
#define GEMM_BLOCK 1024

static int gemm_check(const hs_kconf *c, const void *const *before, const void *const *after,
                      hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[HS_KGEMM_N], m = (size_t)c->p[HS_KGEMM_M], k = (size_t)c->p[HS_KGEMM_K];
    int tb = c->p[HS_KGEMM_TRANSB] != 0;
    double alpha = (float)c->p[HS_KGEMM_ALPHA], beta = (float)c->p[HS_KGEMM_BETA];
    const float *a = before[0], *b = before[1], *c0 = before[2], *got = after[2];
    size_t count = m * n, ns = hs__ksamples(count);
    size_t e[GEMM_BLOCK], arow[GEMM_BLOCK], bat[GEMM_BLOCK];
    double sum[GEMM_BLOCK], mag[GEMM_BLOCK];
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t s0 = 0; s0 < ns; s0 += GEMM_BLOCK) {
        size_t nb = ns - s0 < GEMM_BLOCK ? ns - s0 : GEMM_BLOCK;
        for (size_t q = 0; q < nb; q++) {
            e[q] = hs__ksample(count, s0 + q, c->seed);
            arow[q] = e[q] / n * k;                        /* a[i][0] */
            bat[q] = tb ? e[q] % n * k : e[q] % n;         /* op(b)[0][j] */
            sum[q] = mag[q] = 0;
        }
        for (size_t l = 0; l < k; l++) {
            const float *bl = tb ? b + l : b + l * n; /* op(b)[l][0] */
            for (size_t q = 0; q < nb; q++) {
                double t = (double)a[arow[q] + l] * bl[bat[q]];
                sum[q] += t;
                mag[q] += fabs(t);
            }
        }
        for (size_t q = 0; q < nb; q++) {
            double ref = alpha * sum[q], scale = fabs(alpha) * mag[q];
            if (beta != 0) {
                ref += beta * c0[e[q]];
                scale += fabs(beta * c0[e[q]]);
            }
            if (hs__kcheck_cw(res, got[e[q]], ref, scale))
                snprintf(where, sizeof where, "c[%zu][%zu] = %.9g, reference %.9g", e[q] / n,
                         e[q] % n, got[e[q]], ref);
        }
    }
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_gemm = {
    .name = "gemm",
    .description = "C = alpha*A*op(B) + beta*C, A m x k, C m x n "
                   "(buffers a, b in; c out, or in place when beta != 0)",
    .params = gemm_params,
    .item_unit = "rows of C",
    .tolerance_doc = "componentwise 1e-4 of |alpha||A||op(B)| + |beta||C|, "
                     "on up to 4096 sampled entries",
    .blas = 1,
    .grain = 16,
    /* cuBLAS's sgemm on an H200 (n = k = 8192): row chunks in pieces of 256
     * rows ran 13% slower per row than in pieces of 512 */
    .gpu_grain = 512,
    .whole_bufs = 1u << 1, /* b */
    .setup = gemm_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = gemm_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = gemm_check,
};

/* -------------------------------------------------------------------- gemv */

static const hs_kparam_spec gemv_params[] = {
    {"n", 1, 0, NULL, 1, HS_KMAT_MAX, 1, "columns of A, length of x"},
    {"m", 0, 0, "n", 1, HS_KMAT_MAX, 1, "rows of A, length of y"},
    {0},
};

static int gemv_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, m * n * 4);
    hs__kset_buf(c, 1, "x", HS_KREAD, n * 4);
    hs__kset_buf(c, 2, "y", HS_KWRITE, m * 4);
    c->items = m;
    c->splittable = 1;
    c->flops = 2.0 * (double)m * (double)n;
    return 0;
}

static int gemv_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                    hs_error *err)
{
    int n = (int)c->p[0];
    const float *a = bufs[0], *x = bufs[1];
    float *y = bufs[2];
    (void)err;
    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)(end - begin), n, 1.0f,
                a + begin * (size_t)n, n, x, 1, 0.0f, y + begin, 1);
    return 0;
}

static int gemv_check(const hs_kconf *c, const void *const *before, const void *const *after,
                      hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1];
    const float *a = before[0], *x = before[1], *got = after[2];
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t i = 0; i < m; i++) {
        double sum = 0, mag = 0;
        for (size_t j = 0; j < n; j++) {
            double t = (double)a[i * n + j] * x[j];
            sum += t;
            mag += fabs(t);
        }
        if (hs__kcheck_cw(res, got[i], sum, mag))
            snprintf(where, sizeof where, "y[%zu] = %.9g, reference %.9g", i, got[i], sum);
    }
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_gemv = {
    .name = "gemv",
    .description = "matrix-vector product y = A*x, A m x n (buffers a, x in; y out)",
    .params = gemv_params,
    .item_unit = "rows of A",
    .tolerance_doc = "componentwise 1e-4 of |A||x|, every entry",
    .blas = 1,
    .grain = 64,
    .whole_bufs = 1u << 1, /* x */
    .setup = gemv_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = gemv_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = gemv_check,
};

/* --------------------------------------------------------------------- dot */

static const hs_kparam_spec dot_params[] = {
    {"n", 1, 0, NULL, 1, HS_KVEC_MAX, 1, "vector length"},
    {0},
};

static int dot_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    hs__kset_buf(c, 0, "x", HS_KREAD, n * 4);
    hs__kset_buf(c, 1, "y", HS_KREAD, n * 4);
    hs__kset_buf(c, 2, "s", HS_KWRITE, 4);
    c->items = 1;
    c->splittable = 0;
    c->flops = 2.0 * (double)n;
    return 0;
}

static int dot_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                   hs_error *err)
{
    (void)begin;
    (void)end;
    (void)err;
    *(float *)bufs[2] = cblas_sdot((int)c->p[0], bufs[0], 1, bufs[1], 1);
    return 0;
}

static int dot_check(const hs_kconf *c, const void *const *before, const void *const *after,
                     hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    const float *x = before[0], *y = before[1], *got = after[2];
    double sum = 0, mag = 0;
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t i = 0; i < n; i++) {
        double t = (double)x[i] * y[i];
        sum += t;
        mag += fabs(t);
    }
    if (hs__kcheck_cw(res, *got, sum, mag))
        snprintf(where, sizeof where, "s = %.9g, reference %.9g", *got, sum);
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_dot = {
    .name = "dot",
    .description = "dot product s = x.y (buffers x, y in; s out, one float)",
    .params = dot_params,
    .item_unit = "the whole product (not splittable)",
    .tolerance_doc = "componentwise 1e-4 of sum |x_i*y_i|",
    .blas = 1,
    .grain = 1,
    .setup = dot_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = dot_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = dot_check,
};
