/* hetsched — incumbents for the MILP oracle: list scheduling, the mapping
 * policies, local search (milp/milp_int.h).
 *
 * The branch and bound closes far faster from a good first schedule: its
 * makespan bounds Cmax, tightens every time window and big-M of the compact
 * model, and rules out (task, device) pairs that cannot beat it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/mapper.h"
#include "milp/milp_int.h"

/* Relocation moves (task to any position and device) cost O(n^2 m) evaluations
 * a pass: only for graphs up to this many tasks; larger ones get device
 * changes and neighbour swaps. */
#define RELOCATE_MAX_TASKS 64
#define MAX_PASSES 50

static int better(double a, double b)
{
    return isfinite(b) ? a < b - 1e-9 * (1.0 + fabs(b)) : a < b;
}

/* ------------------------------------------------------------ list scheduling */

enum { PRIO_MEAN_RANK, PRIO_MIN_TAIL, PRIO_TOPO, NPRIO };
static const char *const prio_name[NPRIO] = {"list-mean-rank", "list-min-tail", "list-topo"};

/* Priority of every task under `rule` (higher goes first):
 *  - mean rank: HEFT's upward rank with costs and transfers averaged over
 *    devices (device pairs for transfers);
 *  - min tail: min over devices of cost + tail, the bottom level the bound
 *    uses;
 *  - topo: earlier in the topological order first. */
static void priorities(const hs__minst *I, int rule, double *prio)
{
    size_t m = (size_t)I->m;
    for (size_t k = I->n; k-- > 0;) {
        size_t t = I->topo[k];
        const hs_edge *e;
        double c = 0, best = HUGE_VAL, below = 0;
        switch (rule) {
        case PRIO_MEAN_RANK:
            for (size_t d = 0; d < m; d++)
                c += hs__cost(I, t, (int)d) + I->out[t * m + d];
            c /= (double)m;
            HS_GRAPH_SUCC_FOREACH(I->g, t, e)
            {
                double tr = 0;
                for (int q = 0; q < I->m; q++)
                    for (int d = 0; d < I->m; d++)
                        tr += hs__edge_us(I, e, q, d);
                tr = tr / (double)(m * m) + prio[e->to];
                if (tr > below)
                    below = tr;
            }
            prio[t] = c + below;
            break;
        case PRIO_MIN_TAIL:
            for (size_t d = 0; d < m; d++) {
                double a = hs__cost(I, t, (int)d) + I->tail[t * m + d];
                if (a < best)
                    best = a;
            }
            prio[t] = best;
            break;
        default:
            prio[t] = (double)(I->n - k);
        }
    }
}

/* Ready-list scheduling: the ready task of highest priority goes to the
 * device where it would finish first (appended after the device's last
 * task).  Fills s->dev and s->order; start times and makespan come from
 * hs__eval. */
static int list_schedule(const hs__minst *I, const double *prio, hs__sched *s)
{
    size_t n = I->n, m = (size_t)I->m;
    size_t *missing = malloc(n * sizeof *missing), *ready = malloc(n * sizeof *ready);
    double *avail = calloc(m, sizeof *avail), *fin = malloc(n * sizeof *fin);
    size_t nready = 0;
    int rc = -1;
    if (!missing || !ready || !avail || !fin)
        goto out;
    for (size_t t = 0; t < n; t++)
        if ((missing[t] = I->g->pred_off[t + 1] - I->g->pred_off[t]) == 0)
            ready[nready++] = t;
    for (size_t k = 0; k < n; k++) {
        size_t pick = 0, t;
        const hs_edge *e;
        int bestd = 0;
        double bestf = HUGE_VAL;
        for (size_t i = 1; i < nready; i++)
            if (prio[ready[i]] > prio[ready[pick]] ||
                (prio[ready[i]] == prio[ready[pick]] && I->rank[ready[i]] < I->rank[ready[pick]]))
                pick = i;
        t = ready[pick];
        ready[pick] = ready[--nready];
        for (size_t d = 0; d < m; d++) {
            double st = avail[d] > I->in[t * m + d] ? avail[d] : I->in[t * m + d], f;
            HS_GRAPH_PRED_FOREACH(I->g, t, e)
            {
                double arr = fin[e->from] + hs__edge_us(I, e, s->dev[e->from], (int)d);
                if (arr > st)
                    st = arr;
            }
            f = st + hs__cost(I, t, (int)d);
            if (f < bestf) {
                bestf = f;
                bestd = (int)d;
            }
        }
        s->dev[t] = bestd;
        s->order[k] = t;
        fin[t] = bestf;
        avail[bestd] = bestf;
        HS_GRAPH_SUCC_FOREACH(I->g, t, e)
        {
            if (--missing[e->to] == 0)
                ready[nready++] = e->to;
        }
    }
    s->makespan = hs__eval(I, s->dev, s->order, s->start);
    rc = 0;
out:
    free(missing);
    free(ready);
    free(avail);
    free(fin);
    return rc;
}

/* -------------------------------------------------------------- local search */

static int has_edge(const hs__minst *I, size_t u, size_t v)
{
    const hs_edge *e;
    HS_GRAPH_SUCC_FOREACH(I->g, u, e)
    {
        if (e->to == v)
            return 1;
    }
    return 0;
}

/* Tries every device and every position between t's last predecessor and
 * its first successor; keeps the best strict improvement.  `tmp` has room
 * for n tasks, `st` for n start times. */
static int relocate(const hs__minst *I, hs__sched *s, size_t t, size_t *tmp, double *st)
{
    size_t n = I->n, at = 0, lo = 0, hi, bestp = 0;
    int bestd = -1, olddev = s->dev[t];
    double best = s->makespan;
    const hs_edge *e;
    while (s->order[at] != t)
        at++;
    /* the order without t, then the range where t may go back */
    memcpy(tmp, s->order, at * sizeof *tmp);
    memcpy(tmp + at, s->order + at + 1, (n - 1 - at) * sizeof *tmp);
    hi = n - 1;
    for (size_t i = 0; i < n - 1; i++) {
        HS_GRAPH_PRED_FOREACH(I->g, t, e)
        {
            if (e->from == tmp[i] && i + 1 > lo)
                lo = i + 1;
        }
        HS_GRAPH_SUCC_FOREACH(I->g, t, e)
        {
            if (e->to == tmp[i] && i < hi)
                hi = i;
        }
    }
    for (size_t p = lo; p <= hi; p++) {
        size_t *cand = tmp + n; /* second half of the scratch */
        memcpy(cand, tmp, p * sizeof *cand);
        cand[p] = t;
        memcpy(cand + p + 1, tmp + p, (n - 1 - p) * sizeof *cand);
        for (int d = 0; d < I->m; d++) {
            double ms;
            if (p == at && d == olddev)
                continue;
            s->dev[t] = d;
            ms = hs__eval(I, s->dev, cand, st);
            if (better(ms, best)) {
                best = ms;
                bestd = d;
                bestp = p;
            }
        }
    }
    s->dev[t] = olddev;
    if (bestd < 0)
        return 0;
    s->dev[t] = bestd;
    memcpy(s->order, tmp, bestp * sizeof *tmp);
    s->order[bestp] = t;
    memcpy(s->order + bestp + 1, tmp + bestp, (n - 1 - bestp) * sizeof *tmp);
    s->makespan = hs__eval(I, s->dev, s->order, s->start);
    return 1;
}

void hs__improve(const hs__minst *I, const hs__budget *budget, hs__sched *s)
{
    size_t n = I->n;
    size_t *tmp = malloc(2 * n * sizeof *tmp);
    double *st = malloc(n * sizeof *st);
    if (!tmp || !st || !isfinite(s->makespan))
        goto out;
    /* the budget is checked once per task: one task's moves cost at most
     * n x devices evaluations */
    for (int pass = 0; pass < MAX_PASSES && !hs__budget_spent(budget); pass++) {
        int improved = 0;
        if (n <= RELOCATE_MAX_TASKS) {
            for (size_t t = 0; t < n && !hs__budget_spent(budget); t++)
                improved |= relocate(I, s, t, tmp, st);
        } else {
            for (size_t t = 0; t < n && !hs__budget_spent(budget); t++) {
                int old = s->dev[t];
                for (int d = 0; d < I->m; d++) {
                    double ms;
                    if (d == old)
                        continue;
                    s->dev[t] = d;
                    ms = hs__eval(I, s->dev, s->order, st);
                    if (better(ms, s->makespan)) {
                        s->makespan = ms;
                        memcpy(s->start, st, n * sizeof *st);
                        old = d;
                        improved = 1;
                    }
                }
                s->dev[t] = old;
            }
            for (size_t k = 0; k + 1 < n; k++) {
                size_t a = s->order[k], b = s->order[k + 1];
                double ms;
                if (has_edge(I, a, b))
                    continue;
                s->order[k] = b;
                s->order[k + 1] = a;
                ms = hs__eval(I, s->dev, s->order, st);
                if (better(ms, s->makespan)) {
                    s->makespan = ms;
                    memcpy(s->start, st, n * sizeof *st);
                    improved = 1;
                } else {
                    s->order[k] = a;
                    s->order[k + 1] = b;
                }
            }
        }
        if (!improved)
            break;
    }
    s->makespan = hs__eval(I, s->dev, s->order, s->start);
out:
    free(tmp);
    free(st);
}

/* -------------------------------------------------------------- candidates */

/* The schedules local search starts from. */
typedef struct candidates {
    hs__sched *s;
    size_t n, cap;
} candidates;

/* A new candidate slot (NULL when out of memory). */
static hs__sched *slot(const hs__minst *I, candidates *c)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        hs__sched *p = realloc(c->s, cap * sizeof *p);
        if (!p)
            return NULL;
        c->s = p;
        c->cap = cap;
    }
    if (hs__sched_alloc(&c->s[c->n], I->n) != 0)
        return NULL;
    return &c->s[c->n];
}

/* Keeps the slot just filled when its schedule is finite. */
static void keep(candidates *c, const char *from)
{
    hs__sched *s = &c->s[c->n];
    snprintf(s->from, sizeof s->from, "%s", from);
    if (isfinite(s->makespan))
        c->n++;
    else
        hs__sched_free(s);
}

/* A mapping policy's schedule as a candidate, when it places whole tasks. */
static void from_policy(const hs__minst *I, const char *name, hs__sched *cand)
{
    hs_schedule *s = NULL;
    hs_error err = {0};
    size_t seen = 0;
    cand->makespan = HUGE_VAL;
    if (hs_map(I->w, name, NULL, &s, NULL, &err) != HS_OK || !s)
        return;
    for (size_t t = 0; t < I->n; t++)
        cand->start[t] = -1;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        if (p->nparts != 1 || p->task >= I->n || p->device < 0 || p->device >= I->m ||
            cand->start[p->task] >= 0)
            goto out;
        cand->dev[p->task] = p->device;
        cand->start[p->task] = p->start_us;
        seen++;
    }
    if (seen != I->n)
        goto out;
    hs__order_by_start(I, cand->dev, cand->start, cand->order);
    cand->makespan = hs__eval(I, cand->dev, cand->order, cand->start);
out:
    hs_schedule_free(s);
}

static int by_makespan(const void *a, const void *b)
{
    const hs__sched *x = a, *y = b;
    return x->makespan < y->makespan ? -1 : x->makespan > y->makespan;
}

int hs__heuristic(const hs__minst *I, const hs__budget *budget, hs__sched *best, hs_error *err)
{
    candidates c = {0};
    double *prio = malloc(I->n * sizeof *prio);
    const hs_policy *const *pol;
    hs__sched *s;
    int rc = HS_OK;
    best->makespan = HUGE_VAL;
    if (!prio) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (int rule = 0; rule < NPRIO; rule++) {
        priorities(I, rule, prio);
        if (!(s = slot(I, &c)))
            goto nomem;
        if (list_schedule(I, prio, s) != 0) {
            hs__sched_free(s);
            goto nomem;
        }
        keep(&c, prio_name[rule]);
    }
    /* every task on one device, in topological order */
    for (int d = 0; d < I->m; d++) {
        char name[32];
        if (!(s = slot(I, &c)))
            goto nomem;
        for (size_t t = 0; t < I->n; t++)
            s->dev[t] = d;
        memcpy(s->order, I->topo, I->n * sizeof *s->order);
        s->makespan = hs__eval(I, s->dev, s->order, s->start);
        snprintf(name, sizeof name, "all-on-%.20s", I->w->platform.devices[d].name);
        keep(&c, name);
    }
    for (pol = hs_policy_list(); pol && *pol && !hs__budget_spent(budget); pol++) {
        if (!(s = slot(I, &c)))
            goto nomem;
        from_policy(I, hs_policy_name(*pol), s);
        keep(&c, hs_policy_name(*pol));
    }
    /* local search from the best start first: where the budget runs out,
     * the likeliest winners have had their turn */
    qsort(c.s, c.n, sizeof *c.s, by_makespan);
    for (size_t i = 0; i < c.n; i++) {
        if (i == 0 || !hs__budget_spent(budget))
            hs__improve(I, budget, &c.s[i]);
        if (better(c.s[i].makespan, best->makespan))
            hs__sched_copy(best, &c.s[i], I->n);
    }
    goto out;
nomem:
    rc = hs_error_set(err, HS_ENOMEM, "out of memory");
out:
    for (size_t i = 0; i < c.n; i++)
        hs__sched_free(&c.s[i]);
    free(c.s);
    free(prio);
    return rc;
}
