/* hetsched — `tss`: trapezoid self-scheduling (Tzen & Ni 1993): chunk sizes
 * fall linearly from f = ceil(N / 2P) to l = -o chunk=K (default 1) over
 * C = ceil(2N / (f + l)) chunks; the k-th chunk (from 0) has
 * floor(f - k (f - l) / (C - 1)) items, never less than l. */
#include "mapper/split_core.h"

static size_t tss_rule(hs__selfsched *s, int d, size_t left)
{
    size_t k = s->issued, drop;
    (void)d;
    (void)left;
    if (s->count < 2 || k >= s->count)
        return s->last;
    /* ceil(k (f - l) / (C - 1)), so that f minus it is the floor above */
    drop = (k * (s->first - s->last) + s->count - 2) / (s->count - 1);
    return s->first - drop < s->last ? s->last : s->first - drop;
}

static int tss_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    hs__selfsched *s;
    int rc;
    (void)mem;
    if ((rc = hs__selfsched_start(k, dev, ndev, opt, tss_rule, &s, err)) != HS_OK)
        return rc;
    s->first = (s->n + 2 * s->p - 1) / (2 * s->p);
    s->last = s->opt.chunk ? s->opt.chunk : 1;
    if (s->last > s->first)
        s->first = s->last;
    s->count = (2 * s->n + s->first + s->last - 1) / (s->first + s->last);
    *state = s;
    return HS_OK;
}

const hs_splitter hs__split_tss = {
    .name = "tss",
    .description = "trapezoid self-scheduling: chunks fall linearly from N/2P to -o chunk",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = tss_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
