/* hetsched — the instance the MILP oracle works on, and append scheduling
 * (milp/milp_int.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "milp/milp_int.h"

/* Costs and transfers above this (about 11.6 days in µs) would make the
 * big-M rows numerically meaningless next to µs-sized durations.  The
 * builder refuses larger ones where they are given (graph.h), so this
 * check holds only for workloads changed after they were finalized. */
#define HS__MILP_MAX_US HS_MAX_US

double hs__edge_us(const hs__minst *I, const hs_edge *e, int q, int d)
{
    const hs_platform *p = &I->w->platform;
    return hs_transfer_us(p, p->devices[q].memory, p->devices[d].memory, e->bytes);
}

static int bad_time(double x)
{
    return !isfinite(x) || x < 0 || x > HS__MILP_MAX_US;
}

/* Refuses what the model cannot take, naming the first offending task. */
static int check(hs__minst *I, hs_error *err)
{
    const hs_graph *g = I->g;
    char id[256];
    for (size_t t = 0; t < I->n; t++) {
        const hs_task *tk = &g->tasks[t];
        hs_task_id(I->w, tk, id, sizeof id);
        if (tk->nparts != 1)
            return hs_error_set(err, HS_EINPUT, "task %s is a part of a split task: the MILP "
                                "schedules whole tasks only", id);
        for (int d = 0; d < I->m; d++) {
            if (bad_time(tk->cost_us[d]))
                return hs_error_set(err, HS_EINPUT, "task %s: cost %g us on device %s is not "
                                    "a number between 0 and %g", id, tk->cost_us[d],
                                    I->w->platform.devices[d].name, HS__MILP_MAX_US);
            if (bad_time(I->in[t * (size_t)I->m + d]) || bad_time(I->out[t * (size_t)I->m + d]))
                return hs_error_set(err, HS_EINPUT, "task %s: its input or output cannot move "
                                    "between host memory and device %s (no link?)", id,
                                    I->w->platform.devices[d].name);
        }
    }
    for (size_t e = 0; e < g->nedges; e++)
        for (int q = 0; q < I->m; q++)
            for (int d = 0; d < I->m; d++)
                if (bad_time(hs__edge_us(I, &g->edges[e], q, d))) {
                    char id2[256];
                    hs_task_id(I->w, &g->tasks[g->edges[e].from], id, sizeof id);
                    hs_task_id(I->w, &g->tasks[g->edges[e].to], id2, sizeof id2);
                    return hs_error_set(err, HS_EINPUT, "the data from %s to %s cannot move "
                                        "from device %s to device %s (no link?)", id, id2,
                                        I->w->platform.devices[q].name,
                                        I->w->platform.devices[d].name);
                }
    return HS_OK;
}

/* reach[i][j] from the successor lists, in reverse topological order. */
static void closure(hs__minst *I)
{
    size_t n = I->n;
    for (size_t k = n; k-- > 0;) {
        size_t i = I->topo[k];
        unsigned char *ri = I->reach + i * n;
        const hs_edge *e;
        HS_GRAPH_SUCC_FOREACH(I->g, i, e)
        {
            const unsigned char *rj = I->reach + e->to * n;
            ri[e->to] = 1;
            for (size_t j = 0; j < n; j++)
                ri[j] |= rj[j];
        }
    }
}

int hs__minst_init(hs__minst *I, hs_workload *w, int with_closure, hs_error *err)
{
    const hs_platform *p = &w->platform;
    size_t n, m;
    int rc;
    memset(I, 0, sizeof *I);
    if (!w->finalized)
        return hs_error_set(err, HS_EINPUT, "the workload is not finalized");
    if (w->graph.ntasks == 0 || w->graph.ndevices <= 0)
        return hs_error_set(err, HS_EINPUT, "the workload has no task or no device");
    I->w = w;
    I->g = &w->graph;
    I->n = n = w->graph.ntasks;
    I->m = w->graph.ndevices;
    m = (size_t)I->m;
    I->in = malloc(n * m * sizeof *I->in);
    I->out = malloc(n * m * sizeof *I->out);
    I->head = malloc(n * m * sizeof *I->head);
    I->tail = malloc(n * m * sizeof *I->tail);
    I->topo = malloc(n * sizeof *I->topo);
    I->rank = malloc(n * sizeof *I->rank);
    if (with_closure)
        I->reach = calloc(n * n, 1);
    if (!I->in || !I->out || !I->head || !I->tail || !I->topo || !I->rank ||
        (with_closure && !I->reach)) {
        hs__minst_free(I);
        return hs_error_set(err, HS_ENOMEM, "out of memory for a MILP of %zu tasks", n);
    }
    for (size_t t = 0; t < n; t++)
        for (size_t d = 0; d < m; d++) {
            int mem = p->devices[d].memory;
            I->in[t * m + d] = hs_transfer_us(p, HS_HOST_MEMORY, mem,
                                              w->graph.tasks[t].input_bytes);
            I->out[t * m + d] = hs_transfer_us(p, mem, HS_HOST_MEMORY,
                                               w->graph.tasks[t].output_bytes);
        }
    if ((rc = check(I, err)) != HS_OK || (rc = hs_graph_topo_order(I->g, I->topo, err)) != 0) {
        hs__minst_free(I);
        return rc;
    }
    for (size_t k = 0; k < n; k++)
        I->rank[I->topo[k]] = k;
    hs__head_tail(p, I->g, I->topo, NULL, I->head, I->tail);
    if (with_closure)
        closure(I);
    return HS_OK;
}

void hs__minst_free(hs__minst *I)
{
    free(I->in);
    free(I->out);
    free(I->head);
    free(I->tail);
    free(I->topo);
    free(I->rank);
    free(I->reach);
    memset(I, 0, sizeof *I);
}

/* --------------------------------------------------------- append scheduling */

double hs__eval(const hs__minst *I, const int *dev, const size_t *order, double *start)
{
    size_t m = (size_t)I->m;
    double *avail = calloc(m, sizeof *avail), makespan = 0;
    if (!avail)
        return HUGE_VAL;
    for (size_t k = 0; k < I->n; k++) {
        size_t t = order[k];
        int d = dev[t];
        double st = avail[d], in = I->in[t * m + (size_t)d], end;
        const hs_edge *e;
        if (in > st)
            st = in;
        HS_GRAPH_PRED_FOREACH(I->g, t, e)
        {
            size_t u = e->from;
            double arr = start[u] + hs__cost(I, u, dev[u]) + hs__edge_us(I, e, dev[u], d);
            if (arr > st)
                st = arr;
        }
        start[t] = st;
        end = st + hs__cost(I, t, d);
        avail[d] = end;
        if (end + I->out[t * m + (size_t)d] > makespan)
            makespan = end + I->out[t * m + (size_t)d];
    }
    free(avail);
    return makespan;
}

typedef struct keyed {
    double start;
    size_t rank, task;
} keyed;

static int by_start(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Kahn's algorithm that always takes the ready task with the earliest
 * middle: the schedule's own order when it respects the precedences, and
 * still a topological order when rounding in a solver's times does not. */
void hs__order_by_start(const hs__minst *I, const int *dev, const double *start,
                        size_t *order)
{
    size_t n = I->n;
    keyed *k = malloc(n * sizeof *k);
    size_t *missing = malloc(n * sizeof *missing);
    unsigned char *done = calloc(n, 1);
    size_t first = 0;
    if (!k || !missing || !done) { /* the topological order is valid whatever the starts */
        memcpy(order, I->topo, n * sizeof *order);
        goto out;
    }
    for (size_t t = 0; t < n; t++) {
        k[t] = (keyed){.start = start[t] + hs__cost(I, t, dev[t]) / 2, .rank = I->rank[t],
                       .task = t};
        missing[t] = I->g->pred_off[t + 1] - I->g->pred_off[t];
    }
    qsort(k, n, sizeof *k, by_start);
    for (size_t out = 0; out < n; out++) {
        size_t i = first, t;
        const hs_edge *e;
        while (done[i] || missing[k[i].task] > 0)
            i++;
        t = k[i].task;
        done[i] = 1;
        order[out] = t;
        HS_GRAPH_SUCC_FOREACH(I->g, t, e)
        {
            missing[e->to]--;
        }
        while (first < n && done[first])
            first++;
    }
out:
    free(k);
    free(missing);
    free(done);
}

/* ------------------------------------------------------------------ hs__sched */

int hs__sched_alloc(hs__sched *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->dev = calloc(n, sizeof *s->dev);
    s->order = calloc(n, sizeof *s->order);
    s->start = calloc(n, sizeof *s->start);
    s->makespan = HUGE_VAL;
    if (!s->dev || !s->order || !s->start) {
        hs__sched_free(s);
        return -1;
    }
    return 0;
}

void hs__sched_free(hs__sched *s)
{
    free(s->dev);
    free(s->order);
    free(s->start);
    memset(s, 0, sizeof *s);
}

void hs__sched_copy(hs__sched *dst, const hs__sched *src, size_t n)
{
    memcpy(dst->dev, src->dev, n * sizeof *dst->dev);
    memcpy(dst->order, src->order, n * sizeof *dst->order);
    memcpy(dst->start, src->start, n * sizeof *dst->start);
    dst->makespan = src->makespan;
    memcpy(dst->from, src->from, sizeof dst->from);
}
