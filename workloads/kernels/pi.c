/* hetsched — the Monte-Carlo pi kernel type: `hits` random points of the
 * unit square (Fig. 4 calls them hits per task), counting those inside the
 * quarter disc x^2 + y^2 < 1.
 *
 * Sample i takes its two coordinates from Philox4x32-10 (a counter-based
 * generator: Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy
 * as 1, 2, 3", SC 2011) at counter i, so any range of samples can run
 * anywhere, in any order, and give the same hits: the CPU runs the rounds
 * below and the GPU cuRAND's Philox4_32_10, bit for bit the same generator.
 * The hit test is in integers (kernel_int.h), so CPU and GPU counts agree
 * exactly, not just statistically. */
#include <math.h>
#include <stdio.h>

#include "workloads/kernels/kernel_int.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void hs__kphilox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0; /* the key schedule (Weyl sequence) */
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void hs__kphilox(uint64_t seed, uint64_t i, uint32_t out[4])
{
    const uint32_t ctr[4] = {(uint32_t)i, (uint32_t)(i >> 32), 0, 0};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    hs__kphilox4x32(ctr, key, out);
}

static const hs_kparam_spec pi_params[] = {
    {"hits", 1, 0, NULL, 1, 1099511627776.0, 1, "samples: random points thrown"},
    {0},
};

static int pi_setup(hs_kconf *c, hs_error *err)
{
    size_t n = (size_t)c->p[0], blocks = (n + HS_PI_BLOCK - 1) / HS_PI_BLOCK;
    (void)err;
    hs__kset_buf(c, 0, "counts", HS_KWRITE, blocks * 4);
    c->items = blocks;
    c->splittable = 1;
    c->flops = 4.0 * (double)n;
    return 0;
}

static void pi_fill(const hs_kconf *c, void *const *bufs)
{
    (void)c; /* no inputs */
    (void)bufs;
}

/* Hits among the samples of block b. */
static uint32_t block_hits(const hs_kconf *c, size_t b)
{
    uint64_t n = (uint64_t)c->p[0], i0 = (uint64_t)b * HS_PI_BLOCK;
    uint64_t i1 = i0 + HS_PI_BLOCK < n ? i0 + HS_PI_BLOCK : n;
    uint32_t hits = 0, r[4];
    for (uint64_t i = i0; i < i1; i++) {
        hs__kphilox(c->seed, i, r);
        hits += (uint32_t)hs__kpi_hit(r[0], r[1]);
    }
    return hits;
}

static int pi_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                  hs_error *err)
{
    uint32_t *counts = bufs[0];
    (void)err;
    for (size_t b = begin; b < end; b++)
        counts[b] = block_hits(c, b);
    return 0;
}

/* Exact counts on a sample of blocks, then the estimate against pi: the
 * total of n Bernoulli(pi/4) trials has standard deviation
 * sqrt(n p (1 - p)); a correct generator misses 6 of them with probability
 * 2e-9.  res->err is that deviation in standard deviations. */
static int pi_check(const hs_kconf *c, const void *const *before, const void *const *after,
                    hs_kcheck_result *res, hs_error *err)
{
    const uint32_t *counts = after[0];
    size_t nb = c->items, ns = hs__ksamples(nb);
    double n = c->p[0], p = M_PI / 4, inside = 0, z;
    char where[160] = "";
    (void)before;
    hs__kcheck_begin(res, 6.0);
    for (size_t s = 0; s < ns; s++) {
        size_t b = hs__ksample(nb, s, c->seed);
        uint32_t ref = block_hits(c, b);
        if (hs__kcheck_err(res, counts[b] == ref ? 0.0 : INFINITY))
            snprintf(where, sizeof where, "counts[%zu] = %u, reference %u", b, counts[b], ref);
    }
    for (size_t b = 0; b < nb; b++)
        inside += counts[b];
    z = fabs(inside - n * p) / sqrt(n * p * (1 - p));
    if (hs__kcheck_err(res, z))
        snprintf(where, sizeof where, "estimate %.9g is %.3g standard deviations from pi",
                 4 * inside / n, z);
    return hs__kcheck_end(c, res, where, err);
}

const hs_ktype hs_ktype_pi = {
    .name = "pi",
    .description = "Monte-Carlo pi: how many of `hits` random points fall in the quarter disc "
                   "(buffer counts out: one uint32 per 256 samples)",
    .params = pi_params,
    .item_unit = "blocks of 256 samples",
    .tolerance_doc = "counts exact vs a CPU recomputation (up to 4096 sampled blocks); "
                     "|4 inside/hits - pi| within 6 standard deviations (err in those)",
    /* a block (256 samples) is 4-6 us of work: 4 blocks are worth a
     * thread's wake-up.  At 64, the paper's tasks (8000 hits, 32 blocks)
     * ran on one thread of the 14 of an H200 host's cpu device in
     * 190-227 us, at 4 on 8 threads in 45-48 us */
    .grain = 4,
    .setup = pi_setup,
    .fill = pi_fill,
    .run_cpu = pi_cpu,
    .cuda = HS_HAVE_CUDA,
    .check = pi_check,
};
