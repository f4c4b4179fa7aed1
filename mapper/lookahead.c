/* hetsched — `lookahead`: HEFT with lookahead (Bittencourt, Sakellariou &
 * Madeira, "DAG scheduling using a lookahead variant of the Heterogeneous
 * Earliest Finish Time algorithm", PDP 2010, Sec. III).
 *
 * Tasks are ranked and taken as in HEFT (upward rank, eq. (7) of Topcuoglu
 * et al.), but a task's device is chosen by what it does to its children:
 * for each device d, the task is placed on d tentatively, then each of its
 * children, largest rank first, is placed tentatively by HEFT's rule
 * (earliest finish with insertion, among the tentative placements too),
 * counting only the parents already placed; d is scored by the latest
 * finish among the children, and the task goes to the device of lowest
 * score (ties: its own earlier finish, then the lower index).  A task
 * without children goes where it finishes first, as in HEFT.  Planned at
 * start and followed as heft's plan is; a task of k children costs O(m^2 k
 * (k + log n)) on m devices. */
#include <math.h>
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

typedef struct interval {
    int device;
    double start, end;
} interval;

typedef struct lookahead_ctx {
    const double *rank;  /* upward rank */
    int *tdev;           /* [ntasks]: tentative device, -1 for none */
    double *tend;        /* [ntasks]: tentative end */
    size_t *kids;        /* [max out-degree]: the children being placed */
    interval *busy;      /* [max out-degree + 1]: tentative intervals */
    size_t nbusy;
} lookahead_ctx;

/* Data-ready time of c on d counting its placed parents and the tentative
 * placements (mapper/rank.h, hs__planner_data_ready, plus those). */
static double tentative_ready(const lookahead_ctx *c, const hs__planner *p, size_t t, int d)
{
    const hs_platform *pf = p->pf;
    double at = hs__planner_data_ready(p, t, d);
    const hs_edge *e;
    HS_GRAPH_PRED_FOREACH(p->g, t, e)
    {
        int du = c->tdev[e->from];
        double v;
        if (du < 0)
            continue;
        v = c->tend[e->from] +
            hs_transfer_us(pf, pf->devices[du].memory, pf->devices[d].memory, e->bytes);
        if (v > at)
            at = v;
    }
    return at;
}

/* The earliest start of a stretch of `dur` on d at or after `ready`, idle
 * in d's plan and clear of the tentative intervals on d: each clash moves
 * the search past the interval it hit, so this ends after at most one
 * search per tentative interval. */
static double tentative_start(const lookahead_ctx *c, const hs__planner *p, int d, double ready,
                              double dur)
{
    for (;;) {
        double s = hs__slots_earliest(&p->slots[d], ready, dur);
        size_t i;
        for (i = 0; i < c->nbusy; i++) {
            const interval *x = &c->busy[i];
            if (x->device == d && s < x->end && x->start < s + dur)
                break;
        }
        if (i == c->nbusy)
            return s;
        ready = c->busy[i].end;
    }
}

static void hold(lookahead_ctx *c, size_t t, int d, double start, double end)
{
    c->busy[c->nbusy++] = (interval){d, start, end};
    c->tdev[t] = d;
    c->tend[t] = end;
}

static int by_rank(const lookahead_ctx *c, size_t a, size_t b)
{
    return c->rank[a] > c->rank[b] || (c->rank[a] == c->rank[b] && a < b);
}

/* The lookahead's score: the latest finish of t's children once t runs
 * over [start, end] on d, each child placed by earliest finish in rank
 * order. */
static double children_finish(lookahead_ctx *c, const hs__planner *p, size_t t, int d,
                              double start, double end, size_t nkids)
{
    double latest = 0.0;
    c->nbusy = 0;
    hold(c, t, d, start, end);
    for (size_t k = 0; k < nkids; k++) {
        size_t kid = c->kids[k];
        const double *cost = p->g->tasks[kid].cost_us;
        int best = 0;
        double best_start = 0.0;
        for (int e = 0; e < p->g->ndevices; e++) {
            double s = tentative_start(c, p, e, tentative_ready(c, p, kid, e), cost[e]);
            if (e == 0 || s + cost[e] < best_start + cost[best]) {
                best = e;
                best_start = s;
            }
        }
        hold(c, kid, best, best_start, best_start + cost[best]);
        if (best_start + cost[best] > latest)
            latest = best_start + cost[best];
    }
    for (size_t i = 0; i < c->nbusy; i++)
        c->tdev[i == 0 ? t : c->kids[i - 1]] = -1;
    return latest;
}

static int lookahead_choose(void *ctx, const hs__planner *p, size_t t, const double *est)
{
    lookahead_ctx *c = ctx;
    const double *cost = p->g->tasks[t].cost_us;
    const hs_edge *e;
    size_t nkids = 0;
    int best = 0;
    double best_score = HUGE_VAL;
    /* the children, largest rank first (insertion sort: out-degrees are small) */
    HS_GRAPH_SUCC_FOREACH(p->g, t, e)
    {
        size_t j = nkids++;
        for (; j > 0 && by_rank(c, e->to, c->kids[j - 1]); j--)
            c->kids[j] = c->kids[j - 1];
        c->kids[j] = e->to;
    }
    for (int d = 0; d < p->g->ndevices; d++) {
        double end = est[d] + cost[d];
        double score = nkids ? children_finish(c, p, t, d, est[d], end, nkids) : end;
        if (d == 0 || score < best_score ||
            (score == best_score && end < est[best] + cost[best])) {
            best = d;
            best_score = score;
        }
    }
    return best;
}

static int lookahead_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                          hs__plan *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1, maxdeg = 0;
    double *rank = malloc(n * sizeof *rank);
    lookahead_ctx c = {.rank = rank};
    int rc;
    for (size_t t = 0; t < g->ntasks; t++)
        if (g->succ_off[t + 1] - g->succ_off[t] > maxdeg)
            maxdeg = g->succ_off[t + 1] - g->succ_off[t];
    c.tdev = malloc(n * sizeof *c.tdev);
    c.tend = malloc(n * sizeof *c.tend);
    c.kids = malloc((maxdeg + 1) * sizeof *c.kids);
    c.busy = malloc((maxdeg + 1) * sizeof *c.busy);
    if (!rank || !c.tdev || !c.tend || !c.kids || !c.busy) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t t = 0; t < g->ntasks; t++)
        c.tdev[t] = -1;
    rc = hs__upward_rank(g, pf, rank, err);
    if (rc == HS_OK)
        rc = hs__plan_list(g, pf, opt, rank, lookahead_choose, &c, out, err);
out:
    free(rank);
    free(c.tdev);
    free(c.tend);
    free(c.kids);
    free(c.busy);
    return rc;
}

static int lookahead_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, lookahead_plan, state, err);
}

const hs_policy hs__policy_lookahead = {
    .name = "lookahead",
    .description = "Bittencourt et al. 2010: HEFT choosing each task's device by the earliest "
                   "finish of its children placed after it",
    .init = lookahead_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = lookahead_plan,
};
