/* hetsched — `hoft` and `hoft-wm`: Heterogeneous Optimistic Finish Time
 * (McSweeney, Walton & Zounon, ICCS 2020, Sec. 5, Alg. 2).
 *
 * Both phases of HEFT are driven by the optimistic finish time table
 * OFT(t, d), the earliest t could end on d if no device were ever busy
 * (eq. (8), hs__oft; by device, of which the paper's two processor types
 * are the case of one cost per type):
 *   - priorities (hoft): each task weighs max_d OFT(t, d) / min_d OFT(t, d)
 *     (eq. (9)), edges weigh nothing, and the upward rank of these weights
 *     orders the list: tasks with a strong preference go first.  hoft-wm
 *     keeps HEFT-WM's weighted upward rank instead (the paper's HOFT-WM,
 *     its best variant on random graphs: Table 1);
 *   - device selection: p_m, the device of earliest finish time, wins when
 *     t costs there its smallest cost.  Otherwise p_f is the device of
 *     earliest finish among those where t costs its smallest, s_m =
 *     EFT(p_f) - EFT(p_m) what p_m saves (eq. (10)), and E(p) = max over
 *     children j of EFT(t, p) + transfer to the device T_j minimising
 *     OFT(j, .) + C[j][T_j] (eq. (11); EFT(t, p) itself without children).
 *     p_m is kept only if s_m > E(p_m) - E(p_f) (eq. (12)): the crossing to
 *     a slower device must not delay the children by more than it saves.
 * Insertion-based, planned at start and followed as heft's plan is. */
#include <math.h>
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

typedef struct hoft_ctx {
    const double *oft;  /* [ntasks][ndevices] */
    int *fastest;       /* [ntasks]: the device minimising OFT(t, .) */
} hoft_ctx;

/* eq. (11): the children's optimistic finish if t ends at `eft` on d. */
static double children_finish(const hoft_ctx *c, const hs__planner *p, size_t t, int d,
                              double eft)
{
    const hs_platform *pf = p->pf;
    const hs_edge *e;
    double latest = eft;
    HS_GRAPH_SUCC_FOREACH(p->g, t, e)
    {
        int tj = c->fastest[e->to];
        double v = eft +
                   hs_transfer_us(pf, pf->devices[d].memory, pf->devices[tj].memory, e->bytes) +
                   p->g->tasks[e->to].cost_us[tj];
        if (v > latest)
            latest = v;
    }
    return latest;
}

/* Alg. 2, lines 7-14. */
static int hoft_choose(void *ctx, const hs__planner *p, size_t t, const double *est)
{
    const hoft_ctx *c = ctx;
    const double *cost = p->g->tasks[t].cost_us;
    int m = p->g->ndevices, pm = 0, pf = -1;
    double cmin = HUGE_VAL, sm;
    for (int d = 0; d < m; d++) {
        if (est[d] + cost[d] < est[pm] + cost[pm])
            pm = d;
        if (cost[d] < cmin)
            cmin = cost[d];
    }
    if (cost[pm] == cmin)
        return pm;
    for (int d = 0; d < m; d++)
        if (cost[d] == cmin && (pf < 0 || est[d] + cost[d] < est[pf] + cost[pf]))
            pf = d;
    sm = est[pf] + cost[pf] - (est[pm] + cost[pm]);
    return sm > children_finish(c, p, t, pm, est[pm] + cost[pm]) -
                    children_finish(c, p, t, pf, est[pf] + cost[pf])
               ? pm
               : pf;
}

/* eq. (9), then HEFT's upward rank over those weights with edges of weight
 * 0: rank(t) = w(t) + max over successors of rank(s).  A ratio with a zero
 * OFT is 1 when every OFT is 0 and HUGE_VAL otherwise, as h-ratio's. */
static int oft_ratio_rank(const hs_graph *g, const double *oft, double *rank, hs_error *err)
{
    int m = g->ndevices;
    size_t *order = malloc((g->ntasks ? g->ntasks : 1) * sizeof *order);
    if (!order)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if (hs_graph_topo_order(g, order, err) != HS_OK) {
        free(order);
        return HS_EINPUT;
    }
    for (size_t i = g->ntasks; i-- > 0;) {
        size_t t = order[i];
        const double *row = &oft[t * (size_t)m];
        double lo = HUGE_VAL, hi = 0.0, below = 0.0, w;
        const hs_edge *e;
        for (int d = 0; d < m; d++) {
            lo = row[d] < lo ? row[d] : lo;
            hi = row[d] > hi ? row[d] : hi;
        }
        w = hi <= 0.0 ? 1.0 : lo <= 0.0 ? HUGE_VAL : hi / lo;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (rank[e->to] > below)
                below = rank[e->to];
        }
        rank[t] = w + below;
    }
    free(order);
    return HS_OK;
}

static int plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                int weighted_mean, hs__plan *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1;
    int m = g->ndevices > 0 ? g->ndevices : 1;
    double *oft = malloc(n * (size_t)m * sizeof *oft), *rank = malloc(n * sizeof *rank);
    hoft_ctx c = {.oft = oft, .fastest = malloc(n * sizeof *c.fastest)};
    int rc;
    if (!oft || !rank || !c.fastest) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = hs__oft(g, pf, oft, err)) != HS_OK)
        goto out;
    for (size_t t = 0; t < g->ntasks; t++) {
        c.fastest[t] = 0;
        for (int d = 1; d < g->ndevices; d++)
            if (oft[t * (size_t)m + d] < oft[t * (size_t)m + c.fastest[t]])
                c.fastest[t] = d;
    }
    rc = weighted_mean ? hs__weighted_upward_rank(g, pf, rank, err)
                       : oft_ratio_rank(g, oft, rank, err);
    if (rc == HS_OK)
        rc = hs__plan_list(g, pf, opt, rank, hoft_choose, &c, out, err);
out:
    free(oft);
    free(rank);
    free(c.fastest);
    return rc;
}

static int hoft_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     hs__plan *out, hs_error *err)
{
    return plan(g, pf, opt, 0, out, err);
}

static int hoft_wm_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                        hs__plan *out, hs_error *err)
{
    return plan(g, pf, opt, 1, out, err);
}

static int hoft_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, hoft_plan, state, err);
}

static int hoft_wm_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, hoft_wm_plan, state, err);
}

const hs_policy hs__policy_hoft = {
    .name = "hoft",
    .description = "McSweeney et al. 2020: ranks by optimistic finish time ratio; a slower "
                   "device only where it does not delay the children",
    .init = hoft_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = hoft_plan,
};

const hs_policy hs__policy_hoft_wm = {
    .name = "hoft-wm",
    .description = "hoft's device selection with heft-wm's speed-weighted ranks (HOFT-WM)",
    .init = hoft_wm_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = hoft_wm_plan,
};
