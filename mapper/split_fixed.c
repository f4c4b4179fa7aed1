/* hetsched — `fixed`: chunk self-scheduling (Kruskal & Weiss): every idle
 * device takes the next `chunk` items (-o chunk=N; default ceil(N / 8P),
 * eight chunks per device). */
#include "mapper/split_core.h"

static size_t fixed_rule(hs__selfsched *s, int d, size_t left)
{
    (void)d;
    (void)left;
    return s->first;
}

static int fixed_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    hs__selfsched *s;
    int rc;
    (void)mem;
    if ((rc = hs__selfsched_start(k, dev, ndev, opt, fixed_rule, &s, err)) != HS_OK)
        return rc;
    s->first = s->opt.chunk ? s->opt.chunk : (s->n + 8 * s->p - 1) / (8 * s->p);
    *state = s;
    return HS_OK;
}

const hs_splitter hs__split_fixed = {
    .name = "fixed",
    .description = "chunk self-scheduling: fixed chunks of -o chunk=N items (ceil(N/8P))",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = fixed_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
