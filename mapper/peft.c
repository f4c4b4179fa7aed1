/* hetsched — `peft`: Predict Earliest Finish Time (Arabnejad & Barbosa,
 * IEEE TPDS 2014; Zhou & Liu's reference [1]).  The optimistic cost table
 * OCT(t, p) bounds from below the time from t's end on p to an exit;
 * tasks are taken from the ready list by rank_oct (the mean of their OCT
 * row, largest first) and each goes to the device minimising its
 * insertion-based finish time plus OCT there (the optimistic EFT), so a
 * device that is fast now but leads to slow successors is avoided.  The
 * plan is made at init and followed as heft's is (mapper/rank.c); the OCT
 * costs O(e m^2), the placement as in heft. */
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

static int peft_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     hs__plan *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1;
    double *oct = malloc(n * (size_t)(g->ndevices > 0 ? g->ndevices : 1) * sizeof *oct);
    double *rank = malloc(n * sizeof *rank);
    int rc;
    if (!oct || !rank) {
        free(oct);
        free(rank);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    rc = hs__oct(g, pf, oct, rank, err);
    if (rc == HS_OK)
        rc = hs__plan_compute(g, pf, opt, rank, oct, out, err);
    free(oct);
    free(rank);
    return rc;
}

static int peft_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, peft_plan, state, err);
}

const hs_policy hs__policy_peft = {
    .name = "peft",
    .description = "Arabnejad & Barbosa 2014: optimistic cost table, insertion-based earliest "
                   "finish time plus OCT",
    .init = peft_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = peft_plan,
};
