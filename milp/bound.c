/* hetsched — heads, tails and the cheap lower bound on the makespan
 * (include/hetsched/milp.h).
 *
 * head(t,d) is a lower bound on the start of task t if it runs on device d.
 * Its input must arrive from host memory.  Each predecessor u either runs
 * on another device q and sends its data, arriving no earlier than
 *     off(u,d) = min_{q != d} head(u,q) + C(u,q) + T(q,d),
 * or runs on d itself, where all such predecessors run one after the other
 * before t: released at head(u,d), for C(u,d) each, they end no earlier
 * than seq(A), the schedule of the set A in order of release (optimal for
 * one machine with release dates).  So
 *     head(t,d) = max( in(t,d), min_A max( seq(A), max_{u not in A} off(u,d) ) )
 * and the best A keeps on d the predecessors whose data would arrive last
 * from elsewhere: with them sorted by off descending, only the k + 1
 * prefixes need a look.  (Each predecessor choosing alone, as if those on d
 * ran side by side, gives max_u min(head(u,d) + C(u,d), off(u,d)): lower,
 * it ignores that data from many predecessors arrives either late or from a
 * queue.)
 * tail(t,d) mirrors it after t ends on d: its output goes back to the host,
 * and each successor v runs elsewhere after a transfer (T(d,w) + C(v,w) +
 * tail(v,w)) or on d after t, one after the other, each ending at least
 * tail(v,d) before the makespan (the same schedule in reverse time).
 * Any schedule with t on d has makespan >= head(t,d) + C(t,d) + tail(t,d).
 * These are the time windows of the compact model and the critical-path
 * part of hs_lower_bound_us.
 */
#include <math.h>
#include <stdlib.h>

#include "hetsched/milp.h"
#include "graph/transfer.h"
#include "milp/milp_int.h"

/* Neighbours (predecessors or successors) of a task, as seen from device d:
 * `on` is the time the neighbour holds on d itself (its release in
 * schedule time, or its tail in reverse time), `cost` its duration there,
 * `off` its bound from any other device. */
typedef struct neighbour {
    double on, cost, off;
} neighbour;

/* fmin and fmax (NaN aside, the other operand) without a call or a branch:
 * maxsd or minsd and a conditional move.  gather() runs them on every
 * prefix, where the calls and their mispredicted branches took a good part
 * of the bound's time at a million tasks. */
static double least(double a, double b)
{
    double m = a < b ? a : b;
    return isnan(b) ? a : m;
}

static double most(double a, double b)
{
    double m = a > b ? a : b;
    return isnan(b) ? a : m;
}

/* Neighbours up to which gather() looks at every prefix, O(k^2 log k); a
 * task with more takes each neighbour alone (lower, still valid). */
#define GATHER_MAX 64

/* min over prefixes A of nb (sorted by off descending here) of
 * max(seq(A), off of the first outside A), where seq runs A on one device
 * in order of `on`: f = max(f, on) + cost.  A neighbour that cannot run on
 * the device has on = HUGE_VAL and must stay outside.  `tmp` has room for
 * k entries. */
static double gather(neighbour *nb, size_t k, neighbour *tmp)
{
    double best = HUGE_VAL, f[GATHER_MAX + 1];
    /* insertion sorts, stable as qsort's merge sort is: a task has a few
     * neighbours, and qsort's set-up cost more than the sorting */
    for (size_t i = 1; i < k; i++) {
        neighbour x = nb[i];
        size_t j = i;
        for (; j > 0 && nb[j - 1].off < x.off; j--)
            nb[j] = nb[j - 1];
        nb[j] = x;
    }
    /* tmp holds the prefix nb[0 .. i) in order of `on` (ties in nb's
     * order), each step inserting one more; f[j] is seq of tmp[0 .. j),
     * which an insertion at j leaves as it was below j */
    f[0] = 0;
    for (size_t i = 0; i <= k; i++) {
        double rest = i < k ? nb[i].off : 0;
        if (i > 0) {
            neighbour x = nb[i - 1];
            size_t j = i - 1;
            if (!isfinite(x.on))
                break; /* it cannot join the device: no longer prefix either */
            for (; j > 0 && tmp[j - 1].on > x.on; j--)
                tmp[j] = tmp[j - 1];
            tmp[j] = x;
            for (; j < i; j++)
                f[j + 1] = most(f[j], tmp[j].on) + tmp[j].cost;
        }
        best = least(best, most(f[i], rest));
    }
    return best;
}

/* The preemptive single-device bound of Carlier (1982): jobs with release
 * r, processing p and delivery q on one machine need at least
 * max over job sets S of (min_S r + sum_S p + min_S q), which the
 * preemptive schedule that always runs the released job of largest q
 * attains (its largest completion + q).  O(k^2) for k jobs; `left` is
 * scratch for k values. */
static double preemptive_bound(size_t k, const double *r, const double *p, const double *q,
                               double *left)
{
    double now = 0, bound = 0;
    size_t done = 0;
    for (size_t j = 0; j < k; j++) {
        left[j] = p[j];
        if (p[j] <= 0) { /* nothing to run: only its release and delivery count */
            bound = fmax(bound, r[j] + q[j]);
            left[j] = -1;
            done++;
        }
    }
    while (done < k) {
        size_t run = k;
        double next = HUGE_VAL, until;
        for (size_t j = 0; j < k; j++) {
            if (left[j] < 0)
                continue;
            if (r[j] <= now) {
                if (run == k || q[j] > q[run])
                    run = j;
            } else if (r[j] < next) {
                next = r[j];
            }
        }
        if (run == k) { /* idle until the next release */
            now = next;
            continue;
        }
        until = now + left[run];
        if (until <= next) {
            now = until;
            left[run] = -1;
            done++;
            bound = fmax(bound, now + q[run]);
        } else {
            left[run] -= next - now;
            now = next;
        }
    }
    return bound;
}

/* The device x may run on when `allowed` leaves it only one, else -1. */
static int only_device(const unsigned char *allowed, size_t x, size_t m)
{
    int only = -1;
    if (!allowed)
        return -1;
    for (size_t q = 0; q < m; q++)
        if (allowed[x * m + q]) {
            if (only >= 0)
                return -1;
            only = (int)q;
        }
    return only;
}

/* Devices whose neighbour bounds one pass over a task's edges computes
 * (DEVICE_BLOCK x GATHER_MAX neighbours on the stack). */
#define DEVICE_BLOCK 8

/* The bound that t's neighbours that `allowed` pins to one other device q
 * put on t on device d: they run one after the other there, predecessors
 * (succ = 0) released at their heads, each followed by its transfer to d,
 * or successors (succ = 1) released a transfer after t and followed by
 * their tails; their preemptive bound holds.  `scratch` has room for
 * 4 x GATHER_MAX values; t has at most GATHER_MAX such neighbours. */
static double pinned_bound(const hs_platform *p, const hs_graph *g, const unsigned char *allowed,
                           const double *val, size_t t, int d, int succ, double *scratch)
{
    size_t m = (size_t)g->ndevices;
    size_t lo = succ ? g->succ_off[t] : g->pred_off[t];
    size_t hi = succ ? g->succ_off[t + 1] : g->pred_off[t + 1];
    double pinned = 0;
    int md = p->devices[d].memory;
    for (size_t q = 0; q < m; q++) {
        double *r = scratch, *dur = r + GATHER_MAX, *del = dur + GATHER_MAX, *left = del + GATHER_MAX;
        size_t k = 0;
        int mq = p->devices[q].memory;
        if ((int)q == d)
            continue;
        for (size_t i = lo; i < hi; i++) {
            const hs_edge *e = &g->edges[succ ? g->succ[i] : g->pred[i]];
            size_t x = succ ? e->to : e->from;
            double tr;
            if (only_device(allowed, x, m) != (int)q)
                continue;
            tr = succ ? hs__transfer_us(p, md, mq, e->bytes) : hs__transfer_us(p, mq, md, e->bytes);
            r[k] = succ ? tr : val[x * m + q];
            dur[k] = g->tasks[x].cost_us[q];
            del[k] = succ ? val[x * m + q] : tr;
            k++;
        }
        if (k > 1)
            pinned = fmax(pinned, preemptive_bound(k, r, dur, del, left));
    }
    return pinned;
}

/* The bound that t's predecessors (succ = 0: on its head, from their heads)
 * or successors (succ = 1: on its tail, from their tails) put on t when it
 * runs on device d, for each d of [d0, d1) (at most DEVICE_BLOCK) into
 * out[d - d0]: each neighbour x on another device q is val(x,q) + C(x,q)
 * + the transfer between q and d away, those on d run one after the other
 * (gather), and those that `allowed` pins to one device add pinned_bound.
 * One pass over t's edges serves every device: at a million tasks the
 * bound took a tenth of `map`'s time with a pass per device.  `scratch`
 * has room for 4 x GATHER_MAX values. */
static void neighbours(const hs_platform *p, const hs_graph *g, const unsigned char *allowed,
                       const double *val, size_t t, int d0, int d1, int succ, double *scratch,
                       double *out)
{
    neighbour nb[DEVICE_BLOCK][GATHER_MAX], tmp[GATHER_MAX];
    double alone[DEVICE_BLOCK];
    size_t m = (size_t)g->ndevices, cnt = 0;
    size_t lo = succ ? g->succ_off[t] : g->pred_off[t];
    size_t hi = succ ? g->succ_off[t + 1] : g->pred_off[t + 1];
    int any_pinned = 0;
    for (int d = d0; d < d1; d++)
        alone[d - d0] = 0;
    for (size_t i = lo; i < hi; i++) {
        const hs_edge *e = &g->edges[succ ? g->succ[i] : g->pred[i]];
        size_t x = succ ? e->to : e->from;
        const double *cost = g->tasks[x].cost_us;
        for (int d = d0; d < d1; d++) {
            int md = p->devices[d].memory;
            neighbour v = {HUGE_VAL, cost[d], HUGE_VAL};
            if (!allowed || allowed[x * m + (size_t)d])
                v.on = val[x * m + (size_t)d];
            for (size_t q = 0; q < m; q++) {
                int mq = p->devices[q].memory;
                if ((int)q == d || (allowed && !allowed[x * m + q]))
                    continue;
                v.off = least(v.off, val[x * m + q] + cost[q] +
                                         (succ ? hs__transfer_us(p, md, mq, e->bytes)
                                               : hs__transfer_us(p, mq, md, e->bytes)));
            }
            if (cnt < GATHER_MAX)
                nb[d - d0][cnt] = v;
            alone[d - d0] = most(alone[d - d0], least(v.on + v.cost, v.off));
        }
        cnt++;
        any_pinned |= only_device(allowed, x, m) >= 0;
    }
    for (int d = d0; d < d1; d++) {
        double bound = cnt && cnt <= GATHER_MAX ? gather(nb[d - d0], cnt, tmp) : alone[d - d0];
        if (any_pinned && cnt <= GATHER_MAX)
            bound = fmax(bound, pinned_bound(p, g, allowed, val, t, d, succ, scratch));
        out[d - d0] = bound;
    }
}

/* head (succ = 0) or tail (succ = 1) of every task into val, in topological
 * order for heads and in reverse for tails. */
static void bound_pass(const hs_platform *p, const hs_graph *g, const size_t *topo,
                       const unsigned char *allowed, double *val, int succ)
{
    size_t m = (size_t)g->ndevices, n = g->ntasks;
    double scratch[4 * GATHER_MAX], out[DEVICE_BLOCK];
    for (size_t k = 0; k < n; k++) {
        size_t t = topo[succ ? n - 1 - k : k];
        for (size_t d0 = 0; d0 < m; d0 += DEVICE_BLOCK) {
            size_t d1 = d0 + DEVICE_BLOCK < m ? d0 + DEVICE_BLOCK : m;
            neighbours(p, g, allowed, val, t, (int)d0, (int)d1, succ, scratch, out);
            for (size_t d = d0; d < d1; d++) {
                int md = p->devices[d].memory;
                val[t * m + d] = fmax(out[d - d0],
                                      succ ? hs__transfer_us(p, md, HS_HOST_MEMORY,
                                                             g->tasks[t].output_bytes)
                                           : hs__transfer_us(p, HS_HOST_MEMORY, md,
                                                             g->tasks[t].input_bytes));
            }
        }
    }
}

void hs__head_tail(const hs_platform *p, const hs_graph *g, const size_t *topo,
                   const unsigned char *allowed, double *head, double *tail)
{
    bound_pass(p, g, topo, allowed, head, 0);
    bound_pass(p, g, topo, allowed, tail, 1);
}

double hs__restricted_bound(const hs__minst *I, const unsigned char *allowed, double *scratch)
{
    size_t n = I->n, m = (size_t)I->m;
    double *head = scratch, *tail = head + n * m, *r = tail + n * m, *p = r + n, *q = p + n,
           *left = q + n, bound = 0;
    hs__head_tail(&I->w->platform, I->g, I->topo, allowed, head, tail);
    for (size_t t = 0; t < n; t++) {
        double best = HUGE_VAL;
        for (size_t d = 0; d < m; d++)
            if (allowed[t * m + d])
                best = fmin(best, head[t * m + d] + hs__cost(I, t, (int)d) + tail[t * m + d]);
        bound = fmax(bound, best);
    }
    for (size_t d = 0; d < m; d++) {
        size_t k = 0;
        for (size_t t = 0; t < n; t++) {
            size_t on = 0;
            for (size_t e = 0; e < m; e++)
                on += allowed[t * m + e];
            if (on != 1 || !allowed[t * m + d])
                continue;
            r[k] = head[t * m + d];
            p[k] = hs__cost(I, t, (int)d);
            q[k] = tail[t * m + d];
            k++;
        }
        if (k > 1)
            bound = fmax(bound, preemptive_bound(k, r, p, q, left));
    }
    return bound;
}

double hs_lower_bound_us(const hs_workload *w)
{
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks, m;
    size_t *topo;
    double *head, *tail, cp = 0, work = 0;
    if (!w->finalized || n == 0 || g->ndevices <= 0)
        return 0;
    m = (size_t)g->ndevices;
    topo = malloc(n * sizeof *topo);
    head = malloc(n * m * sizeof *head);
    tail = malloc(n * m * sizeof *tail);
    if (!topo || !head || !tail || hs_graph_topo_order(g, topo, NULL) != HS_OK) {
        /* out of memory (or a cycle, which finalize refuses): fall back to
         * the bound that needs no order */
        for (size_t t = 0; t < n; t++) {
            double c = hs_task_min_cost(g, t);
            work += c;
            if (c > cp)
                cp = c;
        }
    } else {
        hs__head_tail(&w->platform, g, topo, NULL, head, tail);
        for (size_t t = 0; t < n; t++) {
            double best = HUGE_VAL;
            for (size_t d = 0; d < m; d++) {
                double a = head[t * m + d] + g->tasks[t].cost_us[d] + tail[t * m + d];
                if (a < best)
                    best = a;
            }
            if (best > cp)
                cp = best;
            work += hs_task_min_cost(g, t);
        }
    }
    free(topo);
    free(head);
    free(tail);
    work /= (double)m;
    return cp > work ? cp : work;
}
