/* hetsched — `h-ratio`: Zhou & Liu's baseline heuristic (Sec. 4.1, Alg. 1).
 * Ready tasks wait in one central queue ordered by heterogeneity ratio
 * (eq. (9)-(10)), largest first, so the tasks that gain most from their
 * favourite device get the first choice of devices; the head goes to the
 * device of earliest finish time (eq. (11)-(12)) only while fewer than `thr`
 * tasks wait in the devices' own queues.  The machinery is shared with d-rank
 * and ad-part (mapper/rank.c); this file gives it its priority. */
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

static int h_ratio_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e);
    double *h = malloc((g->ntasks ? g->ntasks : 1) * sizeof *h);
    if (!h)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    hs__h_ratio(g, h);
    return hs__dispatch_new(e, opt, h, state, err);
}

const hs_policy hs__policy_h_ratio = {
    .name = "h-ratio",
    .description = "Zhou & Liu Alg. 1: central queue by heterogeneity ratio, earliest finish "
                   "time, at most thr tasks queued on devices",
    .options = HS_POLICY_TAKES_THR,
    .init = h_ratio_init,
    .ready = hs__dispatch_ready,
    .pick = hs__dispatch_pick,
    .done = hs__dispatch_done,
    .ahead = hs__dispatch_ahead,
    .fini = hs__dispatch_fini,
};
