/* hetsched — `heft-wm`: HEFT with acceleration-weighted means (McSweeney,
 * Walton & Zounon, "An efficient new static scheduling heuristic for
 * accelerated architectures", ICCS 2020, Sec. 4.2).  HEFT's mean cost and
 * mean transfer assume a task is as likely to run on any device; on a CPU +
 * GPU platform a task 10 times faster on the GPU is far more likely to run
 * there.  The upward rank is therefore computed with each device weighted by
 * its speed for the task (eq. (6)-(7), hs__weighted_upward_rank); the
 * processor selection is HEFT's, insertion-based earliest finish time. */
#include "mapper/policy.h"
#include "mapper/rank.h"

static int heft_wm_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                        hs__plan *out, hs_error *err)
{
    return hs__plan_ranked(g, pf, opt, hs__weighted_upward_rank, out, err);
}

static int heft_wm_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, heft_wm_plan, state, err);
}

const hs_policy hs__policy_heft_wm = {
    .name = "heft-wm",
    .description = "McSweeney et al. 2020: HEFT with ranks weighted by each device's speed for "
                   "the task (acceleration ratio)",
    .init = heft_wm_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = heft_wm_plan,
};
