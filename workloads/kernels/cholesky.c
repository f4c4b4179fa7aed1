/* hetsched — the tile kernels of a right-looking tiled Cholesky
 * factorisation A = L L^T (lower, row-major tiles): for each k,
 *     potrf:  A_kk = L_kk L_kk^T                   (factor the diagonal tile)
 *     trsm:   A_ik = A_ik L_kk^-T          (i > k) (the panel below it)
 *     syrk:   A_ii -= A_ik A_ik^T          (i > k) (trailing diagonal tiles)
 *     gemm:   A_ij -= A_ik A_jk^T      (i > j > k) (the others; blas.c's gemm
 *                                                   with alpha -1, beta 1,
 *                                                   transb 1)
 * Only the lower triangle of a diagonal tile is read or written; the strict
 * upper one is left as it was (checked, byte for byte).
 *
 * A row-major tile is the transpose of the same memory read column-major, so
 * lower row-major is upper column-major: that lets LAPACKE, cuBLAS and
 * cuSOLVER work in place without copies.  Checks are backward: they sample
 * entries of L L^T, X L^T and C + A A^T and compare them with the input
 * componentwise (1e-4 of the sum of |terms|), in double precision. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "workloads/kernels/kernel_int.h"

#define TILE_MAX 32768.0

/* Counts an exact comparison, row by row, of the strict upper triangle of
 * an n x n tile between before and after. */
static void upper_unchanged(const float *before, const float *after, size_t n,
                            hs_kcheck_result *res, char *where, size_t size, const char *buf)
{
    for (size_t i = 0; i < n; i++) {
        size_t off = i * n + i + 1, len = n - i - 1;
        int same = memcmp(before + off, after + off, len * sizeof(float)) == 0;
        if (hs__kcheck_err(res, same ? 0.0 : INFINITY))
            snprintf(where, size, "%s: row %zu of the strict upper triangle was written", buf,
                     i);
    }
}

/* Uniform values in [-1, 1) off the diagonal, mirrored when `symmetric`,
 * and `diag` on it: strictly diagonally dominant (n - 1 off-diagonal entries
 * of magnitude < 1 per row), so symmetric ones are positive definite and
 * triangular ones well conditioned. */
static void fill_tile(float *a, size_t n, uint64_t seed, unsigned stream, int symmetric,
                      float diag)
{
    if (!a)
        return; /* fed by another kernel (hs_ktype.fill) */
    hs__kfill_uniform(a, n * n, seed, stream);
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] = diag;
        if (symmetric)
            for (size_t j = 0; j < i; j++)
                a[j * n + i] = a[i * n + j];
    }
}

/* ------------------------------------------------------------------- potrf */

static const hs_kparam_spec tile_params[] = {
    {"n", 1, 0, NULL, 1, TILE_MAX, 1, "tile order"},
    {0},
};

static int potrf_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KRW, n * n * 4);
    c->items = 1;
    c->splittable = 0;
    c->flops = (double)n * n * n / 3.0;
    return 0;
}

static void potrf_fill(const hs_kconf *c, void *const *bufs)
{
    size_t n = (size_t)c->p[0];
    fill_tile(bufs[0], n, c->seed, 0, 1, (float)n);
}

static int potrf_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                     hs_error *err)
{
    int n = (int)c->p[0];
    lapack_int info;
    (void)begin;
    (void)end;
    /* column-major upper == row-major lower, see above */
    info = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'U', n, bufs[0], n);
    if (info > 0)
        return hs_error_set(err, HS_EINPUT,
                            "potrf: tile is not positive definite (leading minor %d)",
                            (int)info);
    if (info < 0)
        return hs_error_set(err, HS_EINTERNAL, "potrf: LAPACKE_spotrf argument %d is bad",
                            (int)-info);
    return 0;
}

/* Entry index s of the sample, moved into the lower triangle. */
static void lower_sample(size_t n, size_t s, uint64_t seed, size_t *i, size_t *j)
{
    size_t e = hs__ksample(n * n, s, seed);
    *i = e / n;
    *j = e % n;
    if (*i < *j) {
        size_t t = *i;
        *i = *j;
        *j = t;
    }
}

static int potrf_check(const hs_kconf *c, const void *const *before, const void *const *after,
                       hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[0], ns = hs__ksamples(n * n);
    const float *a = before[0], *l = after[0];
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t s = 0; s < ns; s++) {
        size_t i, j;
        double sum = 0, mag = 0;
        lower_sample(n, s, c->seed, &i, &j);
        for (size_t k = 0; k <= j; k++) {
            double t = (double)l[i * n + k] * l[j * n + k];
            sum += t;
            mag += fabs(t);
        }
        if (hs__kcheck_cw(res, sum, a[i * n + j], mag))
            snprintf(where, sizeof where, "(L L^T)[%zu][%zu] = %.9g, input %.9g", i, j, sum,
                     a[i * n + j]);
    }
    upper_unchanged(a, l, n, res, where, sizeof where, "a");
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_potrf = {
    .name = "potrf",
    .description = "Cholesky factor of a tile A = L L^T, lower (buffer a in place)",
    .params = tile_params,
    .item_unit = "the whole tile (not splittable)",
    .tolerance_doc = "L L^T vs A componentwise 1e-4 of |L||L^T|, up to 4096 sampled "
                     "entries; strict upper triangle unchanged",
    .blas = 1,
    .grain = 1,
    .setup = potrf_setup,
    .fill = potrf_fill,
    .run_cpu = potrf_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = potrf_check,
};

/* -------------------------------------------------------------------- trsm */

static const hs_kparam_spec trsm_params[] = {
    {"n", 1, 0, NULL, 1, TILE_MAX, 1, "order of L, columns of B"},
    {"m", 0, 0, "n", 1, TILE_MAX, 1, "rows of B"},
    {0},
};

static int trsm_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1];
    (void)err;
    hs__kset_buf(c, 0, "l", HS_KREAD, n * n * 4);
    hs__kset_buf(c, 1, "b", HS_KRW, m * n * 4);
    c->items = m;
    c->splittable = 1;
    c->flops = (double)m * n * n;
    return 0;
}

static void trsm_fill(const hs_kconf *c, void *const *bufs)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1];
    /* the upper triangle of l is noise the kernel must not read */
    fill_tile(bufs[0], n, c->seed, 0, 0, (float)n);
    hs__kfill_uniform(bufs[1], m * n, c->seed, 1);
}

static int trsm_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                    hs_error *err)
{
    int n = (int)c->p[0];
    float *b = bufs[1];
    (void)err;
    /* X L^T = B, row by row independent */
    cblas_strsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
                (int)(end - begin), n, 1.0f, bufs[0], n, b + begin * (size_t)n, n);
    return 0;
}

static int trsm_check(const hs_kconf *c, const void *const *before, const void *const *after,
                      hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1], ns = hs__ksamples(m * n);
    const float *l = before[0], *b = before[1], *x = after[1];
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t s = 0; s < ns; s++) {
        size_t e = hs__ksample(m * n, s, c->seed), i = e / n, j = e % n;
        double sum = 0, mag = 0;
        for (size_t k = 0; k <= j; k++) {
            double t = (double)x[i * n + k] * l[j * n + k];
            sum += t;
            mag += fabs(t);
        }
        if (hs__kcheck_cw(res, sum, b[e], mag))
            snprintf(where, sizeof where, "(X L^T)[%zu][%zu] = %.9g, input %.9g", i, j, sum,
                     b[e]);
    }
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_trsm = {
    .name = "trsm",
    .description = "triangular solve X L^T = B, L n x n lower, B m x n "
                   "(buffers l in; b in place, becomes X)",
    .params = trsm_params,
    .item_unit = "rows of B",
    .tolerance_doc = "X L^T vs B componentwise 1e-4 of |X||L^T|, up to 4096 sampled entries",
    .blas = 1,
    .grain = 16,
    .gpu_grain = 256, /* 2 rows of 128x128 tiles: 128 tiles for n = 8192 (untimed) */
    .whole_bufs = 1u << 0, /* l */
    .setup = trsm_setup,
    .fill = trsm_fill,
    .run_cpu = trsm_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = trsm_check,
};

/* -------------------------------------------------------------------- syrk */

static const hs_kparam_spec syrk_params[] = {
    {"n", 1, 0, NULL, 1, TILE_MAX, 1, "order of C, rows of A"},
    {"k", 0, 0, "n", 1, TILE_MAX, 1, "columns of A"},
    {0},
};

static int syrk_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], k = (size_t)c->p[1];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, n * k * 4);
    hs__kset_buf(c, 1, "c", HS_KRW, n * n * 4);
    c->items = 1;
    c->splittable = 0;
    c->flops = (double)n * n * k;
    return 0;
}

/* In a tiled Cholesky a syrk's c is a diagonal tile of the matrix, and in a
 * workload the tile it reads first comes from this fill (no edge feeds it).
 * Fill it like potrf's input (symmetric, diagonal n, off-diagonal within
 * [-1, 1)), so the matrix the graph factors, made of such tiles and of
 * gemm's and trsm's uniform ones, stays positive definite and the later
 * potrf tasks succeed. */
static void syrk_fill(const hs_kconf *c, void *const *bufs)
{
    size_t n = (size_t)c->p[0], k = (size_t)c->p[1];
    hs__kfill_uniform(bufs[0], n * k, c->seed, 0);
    fill_tile(bufs[1], n, c->seed, 1, 1, (float)n);
}

static int syrk_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                    hs_error *err)
{
    int n = (int)c->p[0], k = (int)c->p[1];
    (void)begin;
    (void)end;
    (void)err;
    cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, n, k, -1.0f, bufs[0], k, 1.0f,
                bufs[1], n);
    return 0;
}

static int syrk_check(const hs_kconf *c, const void *const *before, const void *const *after,
                      hs_kcheck_result *res, hs_error *err)
{
    size_t n = (size_t)c->p[0], k = (size_t)c->p[1], ns = hs__ksamples(n * n);
    const float *a = before[0], *c0 = before[1], *got = after[1];
    char where[160] = "";
    hs__kcheck_begin(res, HS_KTOL_BLAS);
    for (size_t s = 0; s < ns; s++) {
        size_t i, j;
        double ref, mag;
        lower_sample(n, s, c->seed, &i, &j);
        ref = c0[i * n + j];
        mag = fabs(ref);
        for (size_t l = 0; l < k; l++) {
            double t = (double)a[i * k + l] * a[j * k + l];
            ref -= t;
            mag += fabs(t);
        }
        if (hs__kcheck_cw(res, got[i * n + j], ref, mag))
            snprintf(where, sizeof where, "c[%zu][%zu] = %.9g, reference %.9g", i, j,
                     got[i * n + j], ref);
    }
    upper_unchanged(c0, got, n, res, where, sizeof where, "c");
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_syrk = {
    .name = "syrk",
    .description = "symmetric update C -= A A^T, lower triangle, C n x n, A n x k "
                   "(buffers a in; c in place)",
    .params = syrk_params,
    .item_unit = "the whole tile (not splittable)",
    .tolerance_doc = "componentwise 1e-4 of |C| + |A||A^T|, up to 4096 sampled entries; "
                     "strict upper triangle unchanged",
    .blas = 1,
    .grain = 1,
    .setup = syrk_setup,
    .fill = syrk_fill,
    .run_cpu = syrk_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = syrk_check,
};
