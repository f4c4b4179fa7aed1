/* hetsched — the flattened task graph: storage, CSR adjacency, topological
 * order (include/hetsched/graph.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/graph.h"
#include "graph/read.h"

int hs__env_whole(const char *name, unsigned long long limit, unsigned long long *out)
{
    const char *s = getenv(name);
    char *end;
    unsigned long long v;
    if (!s)
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (!s[0] || s[0] == '-' || s[0] == '+' || *end || errno || v < 1 || v > limit)
        return -1;
    *out = v;
    return 1;
}

/* HETSCHED_MAX_TASKS into *tasks (HS_DEFAULT_MAX_TASKS when unset); 0 when
 * it is not a whole number from 1 to HS_MAX_TASKS. */
static int read_max_tasks(size_t *tasks)
{
    unsigned long long v = HS_DEFAULT_MAX_TASKS;
    int set = hs__env_whole(HS_MAX_TASKS_ENV, HS_MAX_TASKS, &v);
    *tasks = (size_t)v;
    return set >= 0;
}

static pthread_once_t limits_once = PTHREAD_ONCE_INIT;
static size_t max_tasks = HS_DEFAULT_MAX_TASKS;

static void limits_init(void)
{
    read_max_tasks(&max_tasks);
}

size_t hs_max_tasks(void)
{
    pthread_once(&limits_once, limits_init);
    return max_tasks;
}

size_t hs_max_edges(void)
{
    return 4 * hs_max_tasks();
}

int hs_limits_check(hs_error *err)
{
    size_t tasks;
    if (read_max_tasks(&tasks))
        return HS_OK;
    return hs_error_set(err, HS_EINPUT, "%s must be a whole number of tasks from 1 to %d, not "
                        "'%.64s'", HS_MAX_TASKS_ENV, HS_MAX_TASKS, getenv(HS_MAX_TASKS_ENV));
}

int hs_graph_init(hs_graph *g, size_t ntasks, size_t nedges, int ndevices, hs_error *err)
{
    memset(g, 0, sizeof *g);
    g->ndevices = ndevices;
    g->tasks = calloc(ntasks ? ntasks : 1, sizeof *g->tasks);
    g->edges = calloc(nedges ? nedges : 1, sizeof *g->edges);
    g->cost_pool = calloc(ntasks * (size_t)ndevices + 1, sizeof *g->cost_pool);
    if (!g->tasks || !g->edges || !g->cost_pool) {
        hs_graph_free(g);
        return hs_error_set(err, HS_ENOMEM, "out of memory for a graph of %zu tasks", ntasks);
    }
    g->ntasks = ntasks;
    for (size_t t = 0; t < ntasks; t++) {
        g->tasks[t].origin = t;
        g->tasks[t].nparts = 1;
        g->tasks[t].fraction = 1.0;
        g->tasks[t].cost_us = g->cost_pool + t * (size_t)ndevices;
    }
    return HS_OK;
}

/* Counting sort of edge indices by one endpoint into off/idx. */
static int csr(size_t ntasks, const hs_edge *edges, size_t nedges, int by_to, size_t **off_out,
               size_t **idx_out)
{
    size_t *off = calloc(ntasks + 1, sizeof *off);
    size_t *idx = malloc((nedges ? nedges : 1) * sizeof *idx);
    if (!off || !idx) {
        free(off);
        free(idx);
        return -1;
    }
    for (size_t e = 0; e < nedges; e++)
        off[(by_to ? edges[e].to : edges[e].from) + 1]++;
    for (size_t t = 0; t < ntasks; t++)
        off[t + 1] += off[t];
    {
        size_t *fill = malloc((ntasks + 1) * sizeof *fill);
        if (!fill) {
            free(off);
            free(idx);
            return -1;
        }
        memcpy(fill, off, (ntasks + 1) * sizeof *fill);
        for (size_t e = 0; e < nedges; e++)
            idx[fill[by_to ? edges[e].to : edges[e].from]++] = e;
        free(fill);
    }
    *off_out = off;
    *idx_out = idx;
    return 0;
}

int hs_graph_build_adjacency(hs_graph *g, hs_error *err)
{
    for (size_t e = 0; e < g->nedges; e++)
        if (g->edges[e].from >= g->ntasks || g->edges[e].to >= g->ntasks)
            return hs_error_set(err, HS_EINTERNAL, "edge %zu names a task out of range", e);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_off);
    free(g->pred);
    g->succ_off = g->succ = g->pred_off = g->pred = NULL;
    if (csr(g->ntasks, g->edges, g->nedges, 0, &g->succ_off, &g->succ) != 0 ||
        csr(g->ntasks, g->edges, g->nedges, 1, &g->pred_off, &g->pred) != 0)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the adjacency of %zu edges",
                            g->nedges);
    return HS_OK;
}

/* Kahn's algorithm, FIFO so that the order is stable for equal graphs. */
int hs_graph_topo_order(const hs_graph *g, size_t *order, hs_error *err)
{
    size_t *indeg = malloc((g->ntasks ? g->ntasks : 1) * sizeof *indeg);
    size_t head = 0, tail = 0;
    if (!indeg)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < g->ntasks; t++) {
        indeg[t] = g->pred_off[t + 1] - g->pred_off[t];
        if (indeg[t] == 0)
            order[tail++] = t;
    }
    while (head < tail) {
        size_t t = order[head++];
        const hs_edge *e;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (--indeg[e->to] == 0)
                order[tail++] = e->to;
        }
    }
    free(indeg);
    if (tail != g->ntasks)
        return hs_error_set(err, HS_EINPUT, "the task graph has a cycle");
    return HS_OK;
}

void hs_graph_free(hs_graph *g)
{
    free(g->tasks);
    free(g->edges);
    free(g->cost_pool);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_off);
    free(g->pred);
    free(g->part_base);
    memset(g, 0, sizeof *g);
}

double hs_task_kernel_us(const hs_platform *p, const hs_task *t, int d)
{
    double k = t->cost_us[d] - p->devices[d].overhead_us;
    return k > 0 ? k : 0.0;
}

double hs_task_part_us(const hs_platform *p, const hs_task *t, int d, double f)
{
    return f >= 1 ? t->cost_us[d] : f * hs_task_kernel_us(p, t, d) + p->devices[d].overhead_us;
}

double hs_task_min_cost(const hs_graph *g, size_t t)
{
    double best = g->tasks[t].cost_us[0];
    for (int d = 1; d < g->ndevices; d++)
        if (g->tasks[t].cost_us[d] < best)
            best = g->tasks[t].cost_us[d];
    return best;
}

/* Longest path in topological order: finish[t] = max over predecessors of
 * their finish, plus t's fastest cost. */
int hs_graph_critical_path_us(const hs_graph *g, double *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1;
    size_t *order = malloc(n * sizeof *order);
    double *finish = malloc(n * sizeof *finish), best = 0;
    const hs_edge *e;
    int rc;
    *out = 0;
    if (!order || !finish) {
        free(order);
        free(finish);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    rc = hs_graph_topo_order(g, order, err);
    for (size_t k = 0; rc == HS_OK && k < g->ntasks; k++) {
        size_t t = order[k];
        double start = 0;
        HS_GRAPH_PRED_FOREACH(g, t, e)
            if (finish[e->from] > start)
                start = finish[e->from];
        finish[t] = start + hs_task_min_cost(g, t);
        if (finish[t] > best)
            best = finish[t];
    }
    free(order);
    free(finish);
    if (rc == HS_OK)
        *out = best;
    return rc;
}
