/* hetsched — `d-rank`: Zhou & Liu's structure-aware heuristic (Sec. 4.2,
 * Alg. 2): Alg. 1's dispatch with the central queue ordered by the rank of
 * eq. (13)-(14) instead of the heterogeneity ratio, so a kernel whose
 * heaviest consumer (transfer plus cost) is large is mapped early.
 *
 * How eq. (13)-(14) are read: eq. (13) sums over every ordered pair of
 * devices and divides by m^2, the pairs of a device with itself counting 0 as
 * the note under it says (and so does a pair sharing a memory); eq. (14)'s
 * max looks one level down, at the immediate successors and their own mean
 * cost, not recursively as HEFT's upward rank does: the paper describes it
 * as the time to send the data to a successor plus that successor's
 * execution.  A sink's rank is its mean cost. */
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

static int d_rank_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e);
    double *rank = malloc((g->ntasks ? g->ntasks : 1) * sizeof *rank);
    if (!rank)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    hs__d_rank(g, hs_engine_platform(e), rank);
    return hs__dispatch_new(e, opt, rank, state, err);
}

const hs_policy hs__policy_d_rank = {
    .name = "d-rank",
    .description = "Zhou & Liu Alg. 2: h-ratio's dispatch, tasks ordered by mean cost plus "
                   "heaviest successor (eq. 13-14)",
    .options = HS_POLICY_TAKES_THR,
    .init = d_rank_init,
    .ready = hs__dispatch_ready,
    .pick = hs__dispatch_pick,
    .done = hs__dispatch_done,
    .ahead = hs__dispatch_ahead,
    .fini = hs__dispatch_fini,
};
