/* hetsched — helpers of the kernel types: input values, check bookkeeping,
 * OpenBLAS threads (workloads/kernels/kernel_int.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include <cblas.h>

#include "workloads/kernels/kernel_int.h"

/* ------------------------------------------------------------ input values */

uint64_t hs__ksplitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

float hs__kuniform(uint64_t seed, unsigned stream, uint64_t i)
{
    uint64_t h = hs__ksplitmix(hs__ksplitmix(seed ^ ((uint64_t)stream << 56)) + i);
    /* the top 24 bits make a float in [0, 1) exactly; map to [-1, 1) */
    return (float)(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

void hs__kfill_uniform_range(float *x, size_t from, size_t to, uint64_t seed, unsigned stream)
{
    uint64_t base = hs__ksplitmix(seed ^ ((uint64_t)stream << 56));
    if (!x)
        return; /* fed by another kernel (hs_ktype.fill) */
    for (size_t i = from; i < to; i++)
        x[i] = (float)(hs__ksplitmix(base + i) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

void hs__kfill_uniform(float *x, size_t n, uint64_t seed, unsigned stream)
{
    hs__kfill_uniform_range(x, 0, n, seed, stream);
}

void hs__kset_buf(hs_kconf *c, int i, const char *name, hs_kmode mode, size_t bytes)
{
    c->bufs[i] = (hs_kbuf){name, mode, bytes};
    if (i >= c->nbufs)
        c->nbufs = i + 1;
}

void hs__kfill_inputs(const hs_kconf *c, void *const *bufs)
{
    hs_kfill_piece(c, bufs, 0, 1);
}

int hs_kfill_by_pieces(const hs_kconf *c)
{
    return c->type->fill == hs__kfill_inputs;
}

void hs_kfill_piece(const hs_kconf *c, void *const *bufs, size_t k, size_t n)
{
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].mode & HS_KREAD) {
            size_t len = c->bufs[i].bytes / 4;
            hs__kfill_uniform_range(bufs[i], len * k / n, len * (k + 1) / n, c->seed,
                                    (unsigned)i);
        }
}

/* ------------------------------------------------------------ item spans */

void hs_kspan(const hs_kconf *c, int i, size_t b, size_t e, size_t *off, size_t *len)
{
    size_t s;
    if (c->type->whole_bufs & (1u << i)) {
        *off = 0;
        *len = c->bufs[i].bytes;
        return;
    }
    s = c->bufs[i].bytes / c->items;
    *off = b * s;
    *len = (e - b) * s;
}

int hs_kconf_cuttable(const hs_kconf *c)
{
    if (!c->splittable || !c->items)
        return 0;
    for (int i = 0; i < c->nbufs; i++) {
        if (c->type->whole_bufs & (1u << i)) {
            if (c->bufs[i].mode != HS_KREAD)
                return 0;
        } else if (c->bufs[i].bytes % c->items != 0) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ checks */

size_t hs__ksamples(size_t count)
{
    return count < HS_KCHECK_SAMPLES ? count : HS_KCHECK_SAMPLES;
}

size_t hs__ksample(size_t count, size_t s, uint64_t seed)
{
    if (count <= HS_KCHECK_SAMPLES || s == 0)
        return s;
    if (s == HS_KCHECK_SAMPLES - 1)
        return count - 1;
    return (size_t)(hs__ksplitmix(seed * 31 + s) % count);
}

void hs__kcheck_begin(hs_kcheck_result *res, double tolerance)
{
    res->checked = 0;
    res->bad = 0;
    res->err = 0.0;
    res->tolerance = tolerance;
}

int hs__kcheck_err(hs_kcheck_result *res, double e)
{
    res->checked++;
    if (e <= res->tolerance) {
        if (e > res->err)
            res->err = e;
        return 0;
    }
    /* NaN lands here too: it never passes */
    res->err = isnan(e) ? INFINITY : (e > res->err ? e : res->err);
    return ++res->bad == 1;
}

int hs__kcheck_cw(hs_kcheck_result *res, double got, double ref, double scale)
{
    double d = fabs(got - ref);
    if (d == 0.0)
        return hs__kcheck_err(res, 0.0);
    return hs__kcheck_err(res, d / (scale > DBL_MIN ? scale : DBL_MIN));
}

int hs__kcheck_end(const hs_kconf *c, const hs_kcheck_result *res, const char *where,
                   hs_error *err)
{
    if (res->bad == 0)
        return 0;
    return hs_error_set(err, HS_ECHECK,
                        "%s: %s (error %.3g > tolerance %.3g; %zu of %zu checked entries bad)",
                        c->type->name, where, res->err, res->tolerance, res->bad, res->checked);
}

/* ---------------------------------------------------------------- threads */

void hs__kblas_threads(int n)
{
    if (n > 0)
        openblas_set_num_threads(n);
}
