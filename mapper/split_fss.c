/* hetsched — `fss`: factoring (Flynn Hummel, Schonberg & Flynn 1992): the
 * items are handed out in batches of P equal chunks; a batch starting with
 * R items left has chunks of ceil(R / 2P), so that each batch hands out
 * about half of what is left (factor x = 2).  Never less than -o chunk=K
 * (default 1). */
#include "mapper/split_core.h"

static size_t fss_rule(hs__selfsched *s, int d, size_t left)
{
    (void)d;
    if (s->batch_left == 0) {
        s->count = (left + 2 * s->p - 1) / (2 * s->p);
        if (s->count < s->first)
            s->count = s->first;
        s->batch_left = s->p;
    }
    s->batch_left--;
    return s->count;
}

static int fss_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    hs__selfsched *s;
    int rc;
    (void)mem;
    if ((rc = hs__selfsched_start(k, dev, ndev, opt, fss_rule, &s, err)) != HS_OK)
        return rc;
    s->first = s->opt.chunk ? s->opt.chunk : 1;
    *state = s;
    return HS_OK;
}

const hs_splitter hs__split_fss = {
    .name = "fss",
    .description = "factoring: batches of P chunks of ceil(R/2P), half of what is left",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = fss_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
