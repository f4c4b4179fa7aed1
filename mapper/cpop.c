/* hetsched — `cpop`: Critical Path On a Processor (Topcuoglu, Hariri & Wu,
 * IEEE TPDS 2002, Sec. 4.2, Fig. 5).
 *
 * Each task's priority is its upward plus its downward rank (eq. (7) and
 * (9), HEFT's means), the length of the longest path through it.  |CP|, the
 * critical path's length, is the largest priority; the critical path is
 * walked from a source of priority |CP| (the lowest index of those), each
 * step to the successor of largest priority (equal to |CP| up to rounding),
 * until a sink.  Its tasks all go to the critical-path processor, the device
 * that minimises their summed cost; every other task goes to the device of
 * earliest finish time.  Tasks are taken from the ready list by priority,
 * placed with insertion, planned at start and followed as heft's plan is. */
#include <math.h>
#include <stdlib.h>

#include "mapper/policy.h"
#include "mapper/rank.h"

typedef struct cpop_ctx {
    unsigned char *on_cp;  /* [ntasks] */
    int p_cp;
} cpop_ctx;

/* Fig. 5, the placement: critical-path tasks on p_CP, the others by EFT. */
static int cpop_choose(void *ctx, const hs__planner *p, size_t t, const double *est)
{
    const cpop_ctx *c = ctx;
    const double *cost = p->g->tasks[t].cost_us;
    int best = 0;
    if (c->on_cp[t])
        return c->p_cp;
    for (int d = 1; d < p->g->ndevices; d++)
        if (est[d] + cost[d] < est[best] + cost[best])
            best = d;
    return best;
}

/* Fig. 5, before the placement: marks the critical path and picks p_CP. */
static void critical_path(const hs_graph *g, const double *prio, cpop_ctx *c)
{
    double cp = 0.0, tol, best_sum = HUGE_VAL;
    long t = -1;
    for (size_t i = 0; i < g->ntasks; i++)
        if (prio[i] > cp)
            cp = prio[i];
    tol = 1e-9 * cp;
    for (size_t i = 0; i < g->ntasks && t < 0; i++)
        if (g->pred_off[i + 1] == g->pred_off[i] && prio[i] >= cp - tol)
            t = (long)i;
    while (t >= 0) {
        const hs_edge *e;
        long next = -1;
        c->on_cp[t] = 1;
        HS_GRAPH_SUCC_FOREACH(g, (size_t)t, e)
        {
            if (prio[e->to] >= cp - tol && (next < 0 || prio[e->to] > prio[next]))
                next = (long)e->to;
        }
        t = next;
    }
    c->p_cp = 0;
    for (int d = 0; d < g->ndevices; d++) {
        double sum = 0.0;
        for (size_t i = 0; i < g->ntasks; i++)
            if (c->on_cp[i])
                sum += g->tasks[i].cost_us[d];
        if (sum < best_sum) {
            best_sum = sum;
            c->p_cp = d;
        }
    }
}

static int cpop_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     hs__plan *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1;
    double *up = malloc(n * sizeof *up), *down = malloc(n * sizeof *down);
    cpop_ctx c = {.on_cp = calloc(n, 1)};
    int rc;
    if (!up || !down || !c.on_cp) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = hs__upward_rank(g, pf, up, err)) != HS_OK ||
        (rc = hs__downward_rank(g, pf, down, err)) != HS_OK)
        goto out;
    for (size_t t = 0; t < g->ntasks; t++)
        up[t] += down[t];
    critical_path(g, up, &c);
    rc = hs__plan_list(g, pf, opt, up, cpop_choose, &c, out, err);
out:
    free(up);
    free(down);
    free(c.on_cp);
    return rc;
}

static int cpop_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    return hs__planned_init(e, opt, cpop_plan, state, err);
}

const hs_policy hs__policy_cpop = {
    .name = "cpop",
    .description = "Topcuoglu et al. 2002: the critical path (upward + downward rank) on the "
                   "device fastest for it, other tasks by earliest finish time",
    .init = cpop_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = cpop_plan,
};
