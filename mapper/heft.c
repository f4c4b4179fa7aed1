/* hetsched — `heft`: Heterogeneous Earliest Finish Time (Topcuoglu, Hariri
 * & Wu, IEEE TPDS 2002).  At init, tasks are ranked by upward rank (mean
 * cost over devices plus the heaviest path to an exit; an edge's mean
 * transfer is the average of hs_transfer_us over the m(m-1) ordered pairs of
 * distinct devices, from the first's memory to the second's, so a pair
 * sharing a memory counts 0) and, largest rank first, each is placed on the
 * device where it finishes earliest, in the earliest idle gap there that
 * fits after its inputs arrive (insertion).  The run then follows the plan:
 * each device takes its planned tasks in planned order as they become
 * ready.
 *
 * Insertion cost: per device the busy intervals sit in a treap that knows
 * the largest idle gap of each subtree (mapper/rank.c), so finding the
 * earliest gap that fits is O(log k) expected for k intervals, not a scan of
 * every gap; placing all n tasks costs O((n + e) m + n m log n) for m
 * devices and e edges. */
#include "mapper/policy.h"
#include "mapper/rank.h"

static int heft_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     hs__plan *out, hs_error *err)
{
    return hs__plan_ranked(g, pf, opt, hs__upward_rank, out, err);
}

static int heft_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, heft_plan, state, err);
}

const hs_policy hs__policy_heft = {
    .name = "heft",
    .description = "Topcuoglu et al. 2002: upward rank, insertion-based earliest finish time, "
                   "planned at start",
    .init = heft_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = heft_plan,
};
