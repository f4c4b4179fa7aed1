/* hetsched — elementwise kernel types: va, increment, scale, matadd, axpy.
 *
 * va, increment, scale and matadd do one IEEE operation per element, so the
 * CPU, the GPU and the reference agree exactly.  axpy does a*x + b*y, which
 * OpenBLAS may fuse into one multiply-add: it is checked componentwise. */
#include <math.h>
#include <stdio.h>

#include <cblas.h>

#include "workloads/kernels/kernel_int.h"

static const hs_kparam_spec vec_params[] = {
    {"n", 1, 0, NULL, 1, HS_KVEC_MAX, 1, "vector length"},
    {0},
};

/* Common check tail for the exact types: compares entry i. */
static void exact(hs_kcheck_result *res, float got, float ref, char *where, size_t size,
                 const char *buf, size_t i)
{
    if (hs__kcheck_cw(res, got, ref, fabs(ref)))
        snprintf(where, size, "%s[%zu] = %.9g, reference %.9g", buf, i, got, ref);
}

/* ---------------------------------------------------------------------- va */

static int va_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, n * 4);
    hs__kset_buf(c, 1, "b", HS_KREAD, n * 4);
    hs__kset_buf(c, 2, "c", HS_KWRITE, n * 4);
    c->items = n;
    c->splittable = 1;
    c->flops = (double)n;
    return 0;
}

/* c[i] = a[i] + b[i] for i in [begin, end): also matadd's body. */
static void add_range(void *const *bufs, size_t begin, size_t end)
{
    const float *a = bufs[0], *b = bufs[1];
    float *out = bufs[2];
    for (size_t i = begin; i < end; i++)
        out[i] = a[i] + b[i];
}

static int va_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                  hs_error *err)
{
    (void)c;
    (void)err;
    add_range(bufs, begin, end);
    return 0;
}

static int add_check(const hs_kconf *c, const void *const *before, const void *const *after,
                     hs_kcheck_result *res, hs_error *err)
{
    const float *a = before[0], *b = before[1], *got = after[2];
    size_t n = c->bufs[2].bytes / 4;
    char where[160] = "";
    hs__kcheck_begin(res, 0.0);
    for (size_t i = 0; i < n; i++)
        exact(res, got[i], a[i] + b[i], where, sizeof where, "c", i);
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_va = {
    .name = "va",
    .description = "vector add c = a + b (buffers a, b in; c out)",
    .params = vec_params,
    .item_unit = "elements",
    .tolerance_doc = "exact (one IEEE addition per element)",
    .grain = 65536,
    .setup = va_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = va_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = add_check,
};

/* --------------------------------------------------------------- increment */

static int increment_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KRW, n * 4);
    c->items = n;
    c->splittable = 1;
    c->flops = (double)n;
    return 0;
}

static int increment_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                         hs_error *err)
{
    float *a = bufs[0];
    (void)c;
    (void)err;
    for (size_t i = begin; i < end; i++)
        a[i] += 1.0f;
    return 0;
}

static int increment_check(const hs_kconf *c, const void *const *before,
                           const void *const *after, hs_kcheck_result *res, hs_error *err)
{
    const float *a = before[0], *got = after[0];
    size_t n = c->bufs[0].bytes / 4;
    char where[160] = "";
    hs__kcheck_begin(res, 0.0);
    for (size_t i = 0; i < n; i++)
        exact(res, got[i], a[i] + 1.0f, where, sizeof where, "a", i);
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_increment = {
    .name = "increment",
    .description = "vector increment a += 1 (buffer a in place)",
    .params = vec_params,
    .item_unit = "elements",
    .tolerance_doc = "exact (one IEEE addition per element)",
    .grain = 65536,
    .setup = increment_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = increment_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = increment_check,
};

/* ------------------------------------------------------------------- scale */

static const hs_kparam_spec scale_params[] = {
    {"n", 1, 0, NULL, 1, HS_KVEC_MAX, 1, "vector length"},
    {"s", 0, 3.14159265358979, NULL, -1e30, 1e30, 0, "factor, rounded to float"},
    {0},
};

static int scale_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, n * 4);
    hs__kset_buf(c, 1, "b", HS_KWRITE, n * 4);
    c->items = n;
    c->splittable = 1;
    c->flops = (double)n;
    return 0;
}

static int scale_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                     hs_error *err)
{
    const float *a = bufs[0];
    float *b = bufs[1], s = (float)c->p[1];
    (void)err;
    for (size_t i = begin; i < end; i++)
        b[i] = s * a[i];
    return 0;
}

static int scale_check(const hs_kconf *c, const void *const *before, const void *const *after,
                       hs_kcheck_result *res, hs_error *err)
{
    const float *a = before[0], *got = after[1];
    float s = (float)c->p[1];
    size_t n = c->bufs[1].bytes / 4;
    char where[160] = "";
    hs__kcheck_begin(res, 0.0);
    for (size_t i = 0; i < n; i++)
        exact(res, got[i], s * a[i], where, sizeof where, "b", i);
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_scale = {
    .name = "scale",
    .description = "vector scale b = s * a (buffers a in; b out)",
    .params = scale_params,
    .item_unit = "elements",
    .tolerance_doc = "exact (one IEEE multiplication per element)",
    .grain = 65536,
    .setup = scale_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = scale_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = scale_check,
};

/* ------------------------------------------------------------------ matadd */

static const hs_kparam_spec matadd_params[] = {
    {"n", 1, 0, NULL, 1, HS_KMAT_MAX, 1, "columns"},
    {"m", 0, 0, "n", 1, HS_KMAT_MAX, 1, "rows"},
    {0},
};

static int matadd_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], m = (size_t)c->p[1];
    (void)err;
    hs__kset_buf(c, 0, "a", HS_KREAD, m * n * 4);
    hs__kset_buf(c, 1, "b", HS_KREAD, m * n * 4);
    hs__kset_buf(c, 2, "c", HS_KWRITE, m * n * 4);
    c->items = m;
    c->splittable = 1;
    c->flops = (double)m * (double)n;
    return 0;
}

static int matadd_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                      hs_error *err)
{
    size_t n = (size_t)c->p[0];
    (void)err;
    add_range(bufs, begin * n, end * n);
    return 0;
}

const hs_ktype hs_ktype_matadd = {
    .name = "matadd",
    .description = "matrix add C = A + B, m x n (buffers a, b in; c out)",
    .params = matadd_params,
    .item_unit = "rows",
    .tolerance_doc = "exact (one IEEE addition per element)",
    .grain = 64,
    .setup = matadd_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = matadd_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = add_check,
};

/* -------------------------------------------------------------------- axpy */

/* y = a*x + b*y with a = alpha and b = beta; ratio 1 multiplies a by
 * num/den, ratio 2 multiplies b by it, where num and den are two one-float
 * input buffers written by earlier tasks (a conjugate-gradient step takes
 * its alpha = rho / (p.q) and beta = rho' / rho from dot tasks this way). */
static const hs_kparam_spec axpy_params[] = {
    {"n", 1, 0, NULL, 1, HS_KVEC_MAX, 1, "vector length"},
    {"alpha", 0, 1, NULL, -1e30, 1e30, 0, "factor a of x"},
    {"beta", 0, 1, NULL, -1e30, 1e30, 0, "factor b of y"},
    {"ratio", 0, 0, NULL, 0, 2, 1, "0: none; 1: a *= num/den; 2: b *= num/den"},
    {0},
};

static int axpy_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[HS_KAXPY_N];
    (void)err;
    hs__kset_buf(c, 0, "x", HS_KREAD, n * 4);
    hs__kset_buf(c, 1, "y", HS_KRW, n * 4);
    if (c->p[HS_KAXPY_RATIO] != 0) {
        hs__kset_buf(c, 2, "num", HS_KREAD, 4);
        hs__kset_buf(c, 3, "den", HS_KREAD, 4);
    }
    c->items = n;
    c->splittable = 1;
    c->flops = 3.0 * (double)n;
    return 0;
}

static void axpy_fill(const hs_kconf *c, void *const *bufs)
{
    hs__kfill_uniform(bufs[0], c->bufs[0].bytes / 4, c->seed, 0);
    hs__kfill_uniform(bufs[1], c->bufs[1].bytes / 4, c->seed, 1);
    /* num, den in [0.5, 1.5): a ratio far from 0/0 */
    for (int i = 2; i < c->nbufs && i < 4; i++)
        if (bufs[i])
            *(float *)bufs[i] = 1.0f + 0.5f * hs__kuniform(c->seed, (unsigned)i, 0);
}

/* The factors a and b as the GPU computes them too. */
static void axpy_factors(const hs_kconf *c, void *const *bufs, float *a, float *b)
{
    float r = 1.0f;
    *a = (float)c->p[HS_KAXPY_ALPHA];
    *b = (float)c->p[HS_KAXPY_BETA];
    if (c->p[HS_KAXPY_RATIO] != 0)
        r = *(const float *)bufs[2] / *(const float *)bufs[3];
    if (c->p[HS_KAXPY_RATIO] == 1)
        *a *= r;
    else if (c->p[HS_KAXPY_RATIO] == 2)
        *b *= r;
}

static int axpy_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                    hs_error *err)
{
    const float *x = bufs[0];
    float *y = bufs[1], a, b;
    int n = (int)(end - begin);
    (void)err;
    axpy_factors(c, bufs, &a, &b);
    if (b == 1.0f)
        cblas_saxpy(n, a, x + begin, 1, y + begin, 1);
    else
        cblas_saxpby(n, a, x + begin, 1, b, y + begin, 1);
    return 0;
}

static int axpy_check(const hs_kconf *c, const void *const *before, const void *const *after,
                      hs_kcheck_result *res, hs_error *err)
{
    const float *x = before[0], *y = before[1], *got = after[1];
    size_t n = c->bufs[1].bytes / 4;
    char where[160] = "";
    float a, b;
    axpy_factors(c, (void *const *)before, &a, &b);
    hs__kcheck_begin(res, HS_KTOL_AXPY);
    for (size_t i = 0; i < n; i++) {
        double ax = (double)a * x[i], by = (double)b * y[i], ref = ax + by;
        if (hs__kcheck_cw(res, got[i], ref, fabs(ax) + fabs(by)))
            snprintf(where, sizeof where, "y[%zu] = %.9g, reference %.9g", i, got[i], ref);
    }
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_axpy = {
    .name = "axpy",
    .description = "y = a*x + b*y, a and b optionally scaled by num/den "
                   "(buffers x in; y in place; num, den in when ratio != 0)",
    .params = axpy_params,
    .item_unit = "elements",
    .tolerance_doc = "componentwise 1e-6 of |a*x| + |b*y| (a fused multiply-add may differ)",
    .blas = 1,
    .grain = 65536,
    .whole_bufs = 1u << 2 | 1u << 3, /* num, den */
    .setup = axpy_setup,
    .fill = axpy_fill,
    .run_cpu = axpy_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = axpy_check,
};
