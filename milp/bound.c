/* hetsched — heads, tails and the cheap lower bound on the makespan
 * (include/hetsched/milp.h).
 *
 * head(t,d) is a lower bound on the start of task t if it runs on device d:
 * its input must arrive from host memory, and each predecessor u must have
 * run somewhere (the cheapest choice of u's device q) and sent its data:
 *     head(t,d) = max( in(t,d), max_{u->t} min_q head(u,q) + C(u,q) + T(q,d) )
 * tail(t,d) mirrors it after t ends on d: its output goes back to the host,
 * and each successor v still has to receive its data, run and finish:
 *     tail(t,d) = max( out(t,d), max_{t->v} min_w T(d,w) + C(v,w) + tail(v,w) )
 * Any schedule with t on d has makespan >= head(t,d) + C(t,d) + tail(t,d).
 * These are the time windows of the compact model and the critical-path
 * part of hs_lower_bound_us.
 */
#include <math.h>
#include <stdlib.h>

#include "hetsched/milp.h"
#include "milp/milp_int.h"

void hs__head_tail(const hs_platform *p, const hs_graph *g, const size_t *topo, double *head,
                   double *tail)
{
    int m = g->ndevices;
    for (size_t k = 0; k < g->ntasks; k++) {
        size_t t = topo[k];
        const hs_task *tk = &g->tasks[t];
        const hs_edge *e;
        for (int d = 0; d < m; d++)
            head[t * (size_t)m + d] = hs_transfer_us(p, HS_HOST_MEMORY,
                                                     p->devices[d].memory, tk->input_bytes);
        HS_GRAPH_PRED_FOREACH(g, t, e)
        {
            size_t u = e->from;
            for (int d = 0; d < m; d++) {
                double best = HUGE_VAL;
                for (int q = 0; q < m; q++) {
                    double a = head[u * (size_t)m + q] + g->tasks[u].cost_us[q] +
                               hs_transfer_us(p, p->devices[q].memory, p->devices[d].memory,
                                              e->bytes);
                    if (a < best)
                        best = a;
                }
                if (best > head[t * (size_t)m + d])
                    head[t * (size_t)m + d] = best;
            }
        }
    }
    for (size_t k = g->ntasks; k-- > 0;) {
        size_t t = topo[k];
        const hs_task *tk = &g->tasks[t];
        const hs_edge *e;
        for (int d = 0; d < m; d++)
            tail[t * (size_t)m + d] = hs_transfer_us(p, p->devices[d].memory, HS_HOST_MEMORY,
                                                     tk->output_bytes);
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            size_t v = e->to;
            for (int d = 0; d < m; d++) {
                double best = HUGE_VAL;
                for (int q = 0; q < m; q++) {
                    double a = hs_transfer_us(p, p->devices[d].memory, p->devices[q].memory,
                                              e->bytes) +
                               g->tasks[v].cost_us[q] + tail[v * (size_t)m + q];
                    if (a < best)
                        best = a;
                }
                if (best > tail[t * (size_t)m + d])
                    tail[t * (size_t)m + d] = best;
            }
        }
    }
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
        hs__head_tail(&w->platform, g, topo, head, tail);
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
