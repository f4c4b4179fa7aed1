/* hetsched — `ss`: pure self-scheduling (Smith's HEP scheme, as KASS Sec. 2
 * recalls it): every idle device takes one item.  Perfect balance, the most
 * chunks, so the most per-chunk overhead. */
#include "mapper/split_core.h"

static size_t ss_rule(hs__selfsched *s, int d, size_t left)
{
    (void)s;
    (void)d;
    (void)left;
    return 1;
}

static int ss_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                    const hs_split_options *opt, const hs_split_memory *mem, void **state,
                    hs_error *err)
{
    (void)mem;
    return hs__selfsched_start(k, dev, ndev, opt, ss_rule, (hs__selfsched **)state, err);
}

const hs_splitter hs__split_ss = {
    .name = "ss",
    .description = "self-scheduling: an idle device takes one item",
    .flags = HS_SPLIT_SURVIVES_FAILURE,
    .start = ss_start,
    .next = hs__selfsched_next,
    .finished = hs__selfsched_finished,
    .fini = hs__selfsched_fini,
};
