/* hetsched — `best`: a portfolio of every cheap policy, improved by local
 * search, within a time budget (hs_map_options.budget_ms, 100 ms unless
 * set).
 *
 * At init, every other registered policy maps the graph: a static one
 * through its plan hook, a dynamic one (h-ratio, dmda, app-level, ...) in a
 * run of its own in the simulator (only on the workload's own graph, not
 * on one that --split built; policies that split tasks, such as ad-part,
 * are left out: the search moves whole tasks); so does every task on one
 * device in topological order, for each device.  Each schedule is read as
 * a device per task and a running order per device, and retimed as the
 * engine would run it (mapper/local_search.h), which never makes it
 * longer.  The shortest is then improved by iterated local search (moves
 * of a task, alone or with a neighbour, to another device and place in the
 * order, exchanges of devices between tasks and of all tasks between two
 * devices, random kicks), each neighbour retimed, until it stops improving
 * or the budget is spent; the run follows the result as heft follows its
 * plan.  Its makespan is thus never above any member's, in particular
 * above the best single device's or app-level's.
 *
 * The budget bounds the portfolio too: the static members map first, and
 * once the budget is spent no further member maps, except that the first
 * static one (heft) always does, so that on a graph too large for the
 * budget the result is still heft's or better.  On small graphs the whole
 * search ends long before the budget (a local optimum, then BEST_STALL
 * kicks in a row that find nothing shorter), and the result does not
 * depend on the machine's speed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mapper/local_search.h"
#include "mapper/policy.h"
#include "mapper/rank.h"

#define BEST_BUDGET_MS 100.0 /* default budget */
#define BEST_STALL 10        /* kicks in a row without a shorter schedule */

extern const hs_policy hs__policy_best;

typedef struct portfolio {
    hs__retimer r;
    hs__seq_sched best, cand;
} portfolio;

/* Retimes a member's plan and keeps it when it beats the best so far. */
static void consider(portfolio *p, const hs__plan *plan)
{
    hs__seq_from_plan(&p->r, plan, &p->cand);
    if (p->cand.makespan < p->best.makespan)
        hs__seq_sched_copy(&p->best, &p->cand, p->r.g->ntasks);
}

/* A dynamic policy's schedule of the workload's graph as a plan: 0, or -1
 * when it split a task or left one out. */
static int plan_of(const hs_schedule *s, size_t n, hs__plan *plan)
{
    size_t seen = 0;
    for (size_t t = 0; t < n; t++)
        plan->device[t] = -1;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *pl = &s->placements[i];
        if (pl->nparts != 1 || pl->task >= n || plan->device[pl->task] >= 0)
            return -1;
        plan->device[pl->task] = pl->device;
        plan->start[pl->task] = pl->start_us;
        plan->end[pl->task] = pl->end_us;
        seen++;
    }
    return seen == n ? 0 : -1;
}

/* One member of the portfolio.  A member that cannot take this workload
 * (HS_EINPUT, HS_EUSAGE: cpu-only without a CPU, say) is left out; running
 * out of memory or a member's bug is an error. */
static int member(portfolio *p, hs_engine *e, const hs_policy *pol, const hs_map_options *opt,
                  hs__plan *plan, hs_error *err)
{
    const hs_workload *w = hs_engine_workload(e);
    const hs_graph *g = hs_engine_graph(e);
    hs_map_options inner = *opt;
    hs_schedule *s = NULL;
    hs_error why = {0};
    int rc;
    if (pol->plan) {
        hs__plan own;
        if ((rc = pol->plan(g, hs_engine_platform(e), opt, &own, &why)) == HS_OK) {
            consider(p, &own);
            hs__plan_free(&own);
        }
    } else if (!pol->transform && g == &w->graph) {
        /* the workload's own graph: hs_map runs the member on it, and hs_map
         * changes nothing in the workload; under the delay model, which the
         * retimer follows */
        inner.split = NULL;
        inner.executor_depth = NULL;
        rc = hs_map((hs_workload *)w, pol->name, &inner, &s, NULL, &why);
        if (rc == HS_OK && plan_of(s, g->ntasks, plan) == 0)
            consider(p, plan);
        hs_schedule_free(s);
    } else {
        return HS_OK;
    }
    if (rc == HS_ENOMEM || rc == HS_EINTERNAL) {
        *err = why;
        return rc;
    }
    return HS_OK;
}

static int best_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e);
    const hs_policy *const *pol;
    double budget = opt->budget_ms > 0 ? opt->budget_ms : BEST_BUDGET_MS;
    double deadline = hs__seconds() + budget / 1000.0;
    size_t n = g->ntasks;
    portfolio p = {0};
    hs__plan plan = {0};
    int rc, ran = 0;
    if (!(opt->budget_ms >= 0 && opt->budget_ms <= HS_MAX_BUDGET_MS))
        return hs_error_set(err, HS_EINPUT, "budget_ms must be a number of ms from 0 (the "
                            "default, %g) to %g, not %g", BEST_BUDGET_MS, HS_MAX_BUDGET_MS,
                            opt->budget_ms);
    if ((rc = hs__retimer_init(&p.r, g, hs_engine_platform(e), err)) != HS_OK)
        return rc;
    if ((rc = hs__seq_sched_alloc(&p.best, n, err)) != HS_OK ||
        (rc = hs__seq_sched_alloc(&p.cand, n, err)) != HS_OK ||
        (rc = hs__plan_alloc(&plan, n, err)) != HS_OK)
        goto out;
    /* every task on one device, in topological order */
    for (int d = 0; d < g->ndevices; d++) {
        for (size_t t = 0; t < n; t++) {
            p.cand.dev[t] = d;
            p.cand.seq[p.r.topo_pos[t]] = t;
        }
        p.cand.makespan = hs__retime(&p.r, p.cand.dev, p.cand.seq, HUGE_VAL);
        if (p.cand.makespan < p.best.makespan)
            hs__seq_sched_copy(&p.best, &p.cand, n);
    }
    /* static members first, the first of them whatever the budget */
    for (int pass = 0; pass < 2; pass++)
        for (pol = hs_policy_list(); *pol && rc == HS_OK; pol++)
            if (*pol != &hs__policy_best && (pass == 0) == ((*pol)->plan != NULL) &&
                (!ran || hs__seconds() < deadline)) {
                rc = member(&p, e, *pol, opt, &plan, err);
                ran = 1;
            }
    if (rc != HS_OK)
        goto out;
    if ((rc = hs__iterated_search(&p.r, &p.best, opt->seed, BEST_STALL, deadline, err)) !=
        HS_OK)
        goto out;
    hs__seq_to_plan(&p.r, &p.best, &plan);
    rc = hs__planned_new(e, &plan, state, err); /* takes the plan */
out:
    hs__plan_free(&plan);
    hs__seq_sched_free(&p.best);
    hs__seq_sched_free(&p.cand);
    hs__retimer_free(&p.r);
    return rc;
}

const hs_policy hs__policy_best = {
    .name = "best",
    .description = "every policy above, the shortest schedule improved by moving and exchanging "
                   "tasks between devices, within --budget-ms (100)",
    .options = HS_POLICY_TAKES_THR | HS_POLICY_TAKES_SEED | HS_POLICY_TAKES_BUDGET,
    .init = best_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
};
