/* hetsched — the fblock kernel type: one sweep of a 3-D block operation on
 * an n x n x n cube of floats (the paper's "3-D assignment" benchmark, after
 * StarPU's fblock example, which cuts the cube into `parts` blocks along its
 * first axis and hands each block to a task of its own).  A kernel works on
 * one block of n/parts planes.  We chose a 7-point average, the step of a
 * Jacobi smoother:
 *
 *     b[i][j][k] = (a[i][j][k] + a[i-1][j][k] + a[i+1][j][k] + a[i][j-1][k]
 *                   + a[i][j+1][k] + a[i][j][k-1] + a[i][j][k+1]) / 7
 *
 * summed left to right in exactly that order, with a neighbour outside the
 * block replaced by the centre value (blocks are independent, as StarPU's
 * are).  Six additions and one division, all IEEE and in a fixed order
 * (nothing to fuse), so CPU, GPU and reference agree bit for bit.  A work
 * item is one plane i: planes are independent (they read their neighbours'
 * input planes, never their outputs). */
#include <math.h>
#include <stdio.h>

#include "workloads/kernels/kernel_int.h"

static const hs_kparam_spec fblock_params[] = {
    {"n", 1, 0, NULL, 1, 1024, 1, "cube side"},
    {"parts", 0, 1, NULL, 1, 1024, 1, "blocks the cube is cut into; must divide n"},
    {0},
};

static int fblock_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], parts = (size_t)c->p[1], planes = n / parts;
    if (n % parts != 0)
        return hs_error_set(err, HS_EINPUT, "fblock: parts = %zu does not divide n = %zu",
                            parts, n);
    hs__kset_buf(c, 0, "a", HS_KREAD, planes * n * n * 4);
    hs__kset_buf(c, 1, "b", HS_KWRITE, planes * n * n * 4);
    c->items = planes;
    c->splittable = 1;
    c->flops = 7.0 * (double)planes * n * n;
    return 0;
}

/* The kernel: neighbour offsets hoisted out of the inner loop. */
static int fblock_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                      hs_error *err)
{
    size_t n = (size_t)c->p[0], nn = n * n, planes = c->items;
    const float *a = bufs[0];
    float *b = bufs[1];
    (void)err;
    for (size_t i = begin; i < end; i++) {
        size_t im = i ? i - 1 : i, ip = i + 1 < planes ? i + 1 : i;
        for (size_t j = 0; j < n; j++) {
            size_t jm = j ? j - 1 : j, jp = j + 1 < n ? j + 1 : j;
            const float *row = a + i * nn + j * n;
            const float *rim = a + im * nn + j * n, *rip = a + ip * nn + j * n;
            const float *rjm = a + i * nn + jm * n, *rjp = a + i * nn + jp * n;
            float *out = b + i * nn + j * n;
            for (size_t k = 0; k < n; k++) {
                size_t km = k ? k - 1 : k, kp = k + 1 < n ? k + 1 : k;
                float s = row[k];
                s += rim[k];
                s += rip[k];
                s += rjm[k];
                s += rjp[k];
                s += row[km];
                s += row[kp];
                out[k] = s / 7.0f;
            }
        }
    }
    return 0;
}

/* The value at (i, j, k) of a block of np planes of n x n, or the centre
 * (ci, cj, ck) outside it. */
static float at(const float *a, long np, long n, long i, long j, long k, long ci, long cj,
                long ck)
{
    if (i < 0 || i >= np || j < 0 || j >= n || k < 0 || k >= n) {
        i = ci;
        j = cj;
        k = ck;
    }
    return a[(i * n + j) * n + k];
}

static int fblock_check(const hs_kconf *c, const void *const *before,
                        const void *const *after, hs_kcheck_result *res, hs_error *err)
{
    long n = (long)c->p[0], np = (long)c->items;
    const float *a = before[0], *got = after[1];
    char where[160] = "";
    hs__kcheck_begin(res, 0.0);
    for (long i = 0; i < np; i++)
        for (long j = 0; j < n; j++)
            for (long k = 0; k < n; k++) {
                float s = at(a, np, n, i, j, k, i, j, k);
                float ref, g = got[(i * n + j) * n + k];
                s += at(a, np, n, i - 1, j, k, i, j, k);
                s += at(a, np, n, i + 1, j, k, i, j, k);
                s += at(a, np, n, i, j - 1, k, i, j, k);
                s += at(a, np, n, i, j + 1, k, i, j, k);
                s += at(a, np, n, i, j, k - 1, i, j, k);
                s += at(a, np, n, i, j, k + 1, i, j, k);
                ref = s / 7.0f;
                if (hs__kcheck_cw(res, g, ref, fabs(ref)))
                    snprintf(where, sizeof where, "b[%ld][%ld][%ld] = %.9g, reference %.9g",
                             i, j, k, g, ref);
            }
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_fblock = {
    .name = "fblock",
    .description = "3-D block operation on one of `parts` blocks of an n^3 cube: b = average "
                   "of a's 7-point neighbourhood, borders clamped (buffers a in; b out)",
    .params = fblock_params,
    .item_unit = "planes (first index) of the block",
    .tolerance_doc = "exact (fixed-order IEEE additions and one division)",
    .grain = 4,
    .whole_bufs = 1u << 0, /* a: its neighbour planes too */
    .setup = fblock_setup,
    .fill = hs__kfill_inputs,
    .run_cpu = fblock_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = fblock_check,
};
