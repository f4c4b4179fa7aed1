/* hetsched — `ad-part`: Zhou & Liu's data-partitioning heuristic (Sec. 4.3):
 * h-ratio (Alg. 1) on a graph in which selected long kernels are split into
 * parts that run in parallel on several devices, each with a slice of the
 * data (Observation 3, Fig. 2(d)).
 *
 * The split is a graph transformation that keeps the model exact
 * (include/hetsched/schedule.h): a kernel t split into parts k = 0..m-1, one
 * per device, with fractions f_k summing to 1 (sized by device speed,
 * numbered from the smallest); part k costs part_cost(t, d,
 * f_k) on every device d, reads input_bytes x f_k, writes output_bytes x f_k;
 * an edge u -> v becomes one edge from each part of u to each part of v with
 * bytes x f_u x f_v (f = 1 for a kernel that is not split).  The parts are
 * ordinary tasks for h-ratio, which places each where it finishes first.
 *
 * Which kernels: the paper splits a kernel whose predicted time exceeds a
 * threshold, and warns (Fig. 2(e), Sec. 5.3) that the extra transfers can
 * make it a loss, so the split is selective on three counts:
 *   - its kernel can run as parts (may_split: a typed kernel only when its
 *     type cuts by items; potrf, say, cannot, and would run whole anyway);
 *   - its fastest cost exceeds split_threshold_us, by default the mean over
 *     the graph's tasks of their fastest cost: kernels longer than the
 *     typical one, whose late end holds back their successors (Fig. 2(c)).
 *     On random Topcuoglu graphs (100 tasks, 2-5 devices) this default cut
 *     h-ratio's makespan by 6.4% at CCR 0.1 and 0.8% at CCR 1, and cost
 *     0.7% at CCR 5; twice the mean split less and gained less (1.6%, 0.5%,
 *     -0.7%); half of it did as the mean;
 *   - and the split pays off on its own: the predicted end of the slowest
 *     part, transfers included, beats the kernel run whole on its best
 *     device (see pays_off).
 */
#include <math.h>
#include <stdlib.h>

#include "graph/transfer.h"
#include "mapper/parts.h"
#include "mapper/perfmodel.h"
#include "mapper/policy.h"
#include "mapper/rank.h"
#include "workloads/kernels/kernel.h"

/* Default threshold, as a multiple of the mean fastest task cost. */
#define HS__ADPART_MEAN_FACTOR 1.0

/* Cost of the part of task t holding fraction f of its data on device d
 * (f = 1: the whole task's cost): its kernel time as the performance model
 * `pm` (hs_map_options.perfmodel) predicts a part of size f x D
 * (hs__perf_part_kernel_us: a part measured near that size, else Sec.
 * 4.3's a*D^b+c regression applied to the part's data size; D as in
 * hetsched/perfmodel.h), never below f of the kernel (the least the
 * validator lets a part of a task take), plus the device's whole overhead. */
static double part_cost(const hs_workload *w, const hs_perfmodel *pm, size_t t, int d, double f)
{
    if (f >= 1)
        return w->graph.tasks[t].cost_us[d];
    return hs__perf_part_kernel_us(pm, w, t, d, f) + w->platform.devices[d].overhead_us;
}

/* Fractions sized by device speed, f_d proportional to 1 / C_d, into
 * f[0..m).  Returns 0, or -1 when a cost is 0 (the kernel is free somewhere:
 * nothing to gain). */
static int speed_fractions(const hs_graph *g, size_t t, double *f)
{
    double sum = 0.0, rest = 1.0;
    int m = g->ndevices;
    for (int d = 0; d < m; d++) {
        if (!(g->tasks[t].cost_us[d] > 0))
            return -1;
        sum += 1.0 / g->tasks[t].cost_us[d];
    }
    for (int d = 0; d < m - 1; d++) {
        f[d] = (1.0 / g->tasks[t].cost_us[d]) / sum;
        rest -= f[d];
    }
    f[m - 1] = rest; /* the fractions sum to 1 up to one rounding */
    return 0;
}

/* The largest bytes of an edge into task t (*in) and out of it (*out); 0
 * without such edges. */
static void largest_edges(const hs_graph *g, size_t t, double *in, double *out)
{
    const hs_edge *e;
    *in = *out = 0.0;
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        *in = e->bytes > *in ? e->bytes : *in;
    }
    HS_GRAPH_SUCC_FOREACH(g, t, e)
    {
        *out = e->bytes > *out ? e->bytes : *out;
    }
}

/* Predicted time for device d to run the share f of task t, alone: its
 * slice of the host input and of each predecessor's data arrives (the
 * predecessors assumed to have run on memory `home`), it computes, and its
 * slice of the output goes back to host and of each edge's data to `home`.
 * Transfers of one side overlap (the delay model), so each side costs its
 * longest transfer: that of its largest edge, pred_max or succ_max bytes
 * (largest_edges), as a transfer's time never falls when its bytes grow. */
static double share_time(const hs_workload *w, const hs_perfmodel *pm, size_t t, int d,
                         double f, int home, double pred_max, double succ_max)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    int mem = pf->devices[d].memory;
    double in = hs__transfer_us(pf, HS_HOST_MEMORY, mem, f * g->tasks[t].input_bytes);
    double out = hs__transfer_us(pf, mem, HS_HOST_MEMORY, f * g->tasks[t].output_bytes);
    double v = hs__transfer_us(pf, home, mem, f * pred_max);
    in = v > in ? v : in;
    v = hs__transfer_us(pf, mem, home, f * succ_max);
    out = v > out ? v : out;
    return in + part_cost(w, pm, t, d, f) + out;
}

/* Does splitting t by fractions f beat running it whole?  Whole: on the
 * device b where share_time(f = 1) is least, its neighbours' data assumed
 * local to b (the case most favourable to not splitting).  Split: the
 * slowest part, each part's edge data coming from / going to b's memory. */
static int pays_off(const hs_workload *w, const hs_perfmodel *pm, size_t t, const double *f)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    int m = g->ndevices, best = 0;
    double whole = HUGE_VAL, split = 0.0, pred_max, succ_max;
    largest_edges(g, t, &pred_max, &succ_max);
    for (int d = 0; d < m; d++) {
        double v = share_time(w, pm, t, d, 1.0, pf->devices[d].memory, pred_max, succ_max);
        if (v < whole) {
            whole = v;
            best = d;
        }
    }
    for (int d = 0; d < m; d++) {
        double v = share_time(w, pm, t, d, f[d], pf->devices[best].memory, pred_max, succ_max);
        split = v > split ? v : split;
    }
    return split < whole;
}

/* Insertion sort of m fractions, smallest first: parts are numbered by
 * growing size (see ad_part_init). */
static void sort_ascending(double *f, int m)
{
    for (int i = 1; i < m; i++) {
        double v = f[i];
        int j = i;
        for (; j > 0 && f[j - 1] > v; j--)
            f[j] = f[j - 1];
        f[j] = v;
    }
}

/* Whether task t's kernel can run as parts: an untyped kernel can (its
 * parts are costs only); a typed one only when its type can cut it by
 * items (a type that cannot runs whole in part 0, exec/data.c: splitting it
 * would predict parallel parts that never run). */
static int may_split(const hs_workload *w, size_t t)
{
    const hs_task *task = &w->graph.tasks[t];
    const hs_kernel *k = &w->apps[task->app].kernels[task->kernel];
    hs_kconf c;
    return !k->type ||
           (hs_kconf_init(&c, k->type, k->params, k->nparams, NULL) == HS_OK && c.splittable);
}

/* HS__ADPART_MEAN_FACTOR x the mean over tasks of their fastest cost. */
static double default_threshold(const hs_graph *g)
{
    double sum = 0.0;
    for (size_t t = 0; t < g->ntasks; t++)
        sum += hs_task_min_cost(g, t);
    return g->ntasks ? HS__ADPART_MEAN_FACTOR * sum / (double)g->ntasks : 0.0;
}

/* The transform hook: builds into *out the graph with the selected kernels
 * split (returns 1), or returns 0 when none is (w->graph is then run as
 * is).  HS_EINPUT for a bad split_threshold_us, HS_ENOMEM. */
static int ad_part_transform(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                             hs_error *err)
{
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks, nt = 0, nsplit = 0;
    int m = g->ndevices, rc;
    double thr = opt ? opt->split_threshold_us : 0.0;
    const hs_perfmodel *pm = opt ? opt->perfmodel : NULL;
    double *frac;
    size_t *base;
    if (!(thr >= 0) || !isfinite(thr))
        return hs_error_set(err, HS_EINPUT,
                            "split_threshold_us must be a finite number >= 0 (0: the "
                            "default), not %g",
                            thr);
    if (m < 2 || n == 0)
        return 0;
    if (thr == 0)
        thr = default_threshold(g);
    frac = malloc(n * (size_t)m * sizeof *frac);
    base = malloc((n + 1) * sizeof *base);
    if (!frac || !base) {
        free(frac);
        free(base);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    /* which kernels split, and where their parts start in the new graph */
    for (size_t t = 0; t < n; t++) {
        double *f = &frac[t * (size_t)m];
        int split = hs_task_min_cost(g, t) > thr && may_split(w, t) &&
                    speed_fractions(g, t, f) == 0 && pays_off(w, pm, t, f);
        if (split)
            sort_ascending(f, m);
        base[t] = nt;
        nt += split ? (size_t)m : 1;
        nsplit += split;
        if (!split)
            f[0] = -1.0; /* marks a whole task */
    }
    base[n] = nt;
    if (nsplit == 0) {
        free(frac);
        free(base);
        return 0;
    }
#define NPARTS(t) (base[(t) + 1] - base[(t)])
#define FRAC(t, k) (NPARTS(t) == 1 ? 1.0 : frac[(t) * (size_t)m + (k)])
    /* The edges between parts stay implied (hetsched/graph.h): some 25 a
     * task, the most of the split graph's memory, and the engine reads
     * them from g's edges and the parts' fractions.  The cost pool holds
     * the parts' costs only, a whole task keeping the workload's (64 bytes
     * a task on 8 devices, 7 tasks of 10): the graph is made without
     * devices, its pool empty, and given them after (a full pool made and
     * freed raised malloc's mmap threshold, and the peak at 100k tasks by
     * 18 bytes a task). */
    if ((rc = hs_graph_init(out, nt, 0, 0, err)) != 0)
        goto done;
    out->ndevices = m;
    free(out->cost_pool);
    if (!(out->cost_pool = malloc((nsplit * (size_t)m * (size_t)m + 1) *
                                  sizeof *out->cost_pool))) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        hs_graph_free(out);
        goto done;
    }
    for (size_t t = 0, parts = 0; t < n; t++) {
        const hs_task *src = &g->tasks[t];
        size_t np = NPARTS(t);
        for (size_t k = 0; k < np; k++) {
            hs_task *p = &out->tasks[base[t] + k];
            double f = FRAC(t, k);
            hs__part_fill(p, src, t, k, np, f);
            if (np == 1) {
                p->cost_us = src->cost_us;
                continue;
            }
            p->cost_us = out->cost_pool + parts++ * (size_t)m;
            for (int d = 0; d < m; d++)
                p->cost_us[d] = part_cost(w, pm, t, d, f);
        }
    }
#undef NPARTS
#undef FRAC
    out->whole = g;
    out->part_base = base;
    base = NULL;
done:
    free(frac);
    free(base);
    return rc == HS_OK ? 1 : rc;
}

/* h-ratio's priority, taken from the whole kernel for each of its parts:
 * the ratio does not change when every cost is scaled by f, and reading it
 * from the original makes the parts tie exactly.  Alg. 1's queue hands out
 * the newest of equal priorities first, and the engine announces the parts
 * of a kernel together in part order, so the largest part is dispatched
 * first and takes the fastest device; the smaller ones then find it busy
 * and go to the others, in parallel, as Fig. 2(d) intends. */
static int ad_part_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e), *wg = &hs_engine_workload(e)->graph;
    double *h = malloc((wg->ntasks ? wg->ntasks : 1) * sizeof *h);
    double *prio = malloc((g->ntasks ? g->ntasks : 1) * sizeof *prio);
    if (!h || !prio) {
        free(h);
        free(prio);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    hs__h_ratio(wg, h);
    for (size_t t = 0; t < g->ntasks; t++)
        prio[t] = h[g->tasks[t].origin];
    free(h);
    return hs__dispatch_new(e, opt, prio, state, err);
}

const hs_policy hs__policy_ad_part = {
    .name = "ad-part",
    .description = "Zhou & Liu Sec. 4.3: h-ratio after splitting long kernels across devices "
                   "where the split pays off",
    .options = HS_POLICY_TAKES_THR,
    .transform = ad_part_transform,
    .init = ad_part_init,
    .ready = hs__dispatch_ready,
    .pick = hs__dispatch_pick,
    .done = hs__dispatch_done,
    .ahead = hs__dispatch_ahead,
    .fini = hs__dispatch_fini,
};
