/* hetsched — `gss`: guided self-scheduling (Polychronopoulos & Kuck; HDSS
 * eq. (1)): an idle device takes ceil(R / P) of the R items left, never less
 * than -o chunk=K (default 1).  Large chunks first, small ones at the end. */
#include "mapper/split_core.h"

static size_t gss_rule(hs__selfsched *s, int d, size_t left)
{
    size_t b = (left + s->p - 1) / s->p; /* eq. (1) */
    (void)d;
    return b < s->first ? s->first : b;
}

static int gss_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    hs__selfsched *s;
    int rc;
    (void)mem;
    if ((rc = hs__selfsched_start(k, dev, ndev, opt, gss_rule, &s, err)) != HS_OK)
        return rc;
    s->first = s->opt.chunk ? s->opt.chunk : 1;
    *state = s;
    return HS_OK;
}

const hs_splitter hs__split_gss = {
    .name = "gss",
    .description = "guided self-scheduling: ceil(R/P) of the R items left (at least -o chunk)",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = gss_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
