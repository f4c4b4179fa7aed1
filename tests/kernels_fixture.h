/* What test_kernels.c and test_kernels_cuda.c share: a small case of every
 * kernel type (and of the variants its params select), and host buffers. */
#ifndef HS_TESTS_KERNELS_FIXTURE_H
#define HS_TESTS_KERNELS_FIXTURE_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/kernels/kernel.h"

/* Small sizes, odd where it matters (ragged last block, rows not a multiple
 * of any vector width), so that every type and param variant runs in well
 * under a second even under sanitizers. */
static const char *const kernel_cases[][2] = {
    {"va", "n=1000"},
    {"increment", "n=1001"},
    {"scale", "n=999,s=-2.5"},
    {"matadd", "n=7,m=9"},
    {"gemm", "n=13,m=11,k=9"},
    {"gemm", "n=13,m=11,k=9,alpha=-1,beta=1,transb=1"},
    {"gemm", "n=1024,m=1,k=1"},
    {"gemv", "n=17,m=19"},
    {"dot", "n=1000"},
    {"axpy", "n=1000,alpha=0.5"},
    {"axpy", "n=1000,alpha=-1,ratio=1"},
    {"axpy", "n=1000,beta=0.5,ratio=2"},
    {"potrf", "n=24"},
    {"trsm", "n=12,m=10"},
    {"syrk", "n=12,k=8"},
    {"pi", "hits=5000"},
    {"fblock", "n=9"},
    {"fblock", "n=8,parts=2"},
};
#define NCASES (sizeof kernel_cases / sizeof kernel_cases[0])

/* Parses "n=13,m=11" into params (names point into `names`); returns the
 * count. */
static int parse_params(const char *spec, hs_param *params, char names[][16])
{
    int np = 0;
    const char *s = spec;
    while (*s) {
        size_t len = strcspn(s, "=");
        memcpy(names[np], s, len);
        names[np][len] = '\0';
        params[np].name = names[np];
        params[np].value = strtod(s + len + 1, (char **)&s);
        np++;
        if (*s == ',')
            s++;
    }
    return np;
}

/* hs_kconf_init from a spec string; returns its status. */
static int conf_from(hs_kconf *c, const char *type, const char *spec, hs_error *err)
{
    hs_param params[HS_KMAX_PARAMS];
    char names[HS_KMAX_PARAMS][16];
    int np = parse_params(spec, params, names);
    return hs_kconf_init(c, type, params, np, err);
}

typedef struct hbufs {
    void *b[HS_KMAX_BUFS];
} hbufs;

/* Allocates every buffer of c; written-only ones start as all-ones bytes
 * (NaN floats), so an entry the kernel forgot fails its check. */
static void hbufs_alloc(const hs_kconf *c, hbufs *h)
{
    for (int i = 0; i < c->nbufs; i++) {
        h->b[i] = malloc(c->bufs[i].bytes);
        memset(h->b[i], 0xff, c->bufs[i].bytes);
    }
}

static void hbufs_copy(const hs_kconf *c, hbufs *dst, const hbufs *src)
{
    for (int i = 0; i < c->nbufs; i++)
        memcpy(dst->b[i], src->b[i], c->bufs[i].bytes);
}

static int hbufs_same(const hs_kconf *c, const hbufs *x, const hbufs *y)
{
    for (int i = 0; i < c->nbufs; i++)
        if (memcmp(x->b[i], y->b[i], c->bufs[i].bytes) != 0)
            return 0;
    return 1;
}

/* Whether x and y agree within what two orders of the same float sums may
 * differ by: a BLAS promises no identical bits across call shapes or CPU
 * kernels (OpenBLAS picks its kernel by CPU), only results within rounding.
 * Each float of a written buffer may differ by 8 eps per term of its inner
 * sum (flops / 2 per written entry), relative to the buffer's largest
 * magnitude; read-only buffers and non-float data must be identical. */
static inline int hbufs_close(const hs_kconf *c, const hbufs *x, const hbufs *y)
{
    size_t written = hs_kconf_bytes(c, HS_KWRITE) / sizeof(float);
    double inner = written ? c->flops / (2.0 * (double)written) : 1.0;
    double tol = 8.0 * FLT_EPSILON * (inner > 1.0 ? inner : 1.0);
    for (int i = 0; i < c->nbufs; i++) {
        const float *a = x->b[i], *b = y->b[i];
        size_t n = c->bufs[i].bytes / sizeof(float);
        double big = 0, diff = 0;
        if (!(c->bufs[i].mode & HS_KWRITE) || !c->type->blas) {
            if (memcmp(x->b[i], y->b[i], c->bufs[i].bytes) != 0)
                return 0;
            continue;
        }
        for (size_t k = 0; k < n; k++) {
            double d = fabs((double)a[k] - (double)b[k]);
            if (!(d == d))
                return 0; /* NaN */
            big = fmax(big, fmax(fabs((double)a[k]), fabs((double)b[k])));
            diff = fmax(diff, d);
        }
        if (diff > tol * big)
            return 0;
    }
    return 1;
}

static void hbufs_free(const hs_kconf *c, hbufs *h)
{
    for (int i = 0; i < c->nbufs; i++)
        free(h->b[i]);
}

#endif
