/* hetsched — `heteroprio`: affinity queues and spoliation (Agullo,
 * Beaumont, Eyraud-Dubois & Kumar, "Are static schedules so bad? A case
 * study on Cholesky factorization", IPDPS 2016, Sec. IV; the rule whose
 * makespan Beaumont, Eyraud-Dubois & Kumar bound in "Approximation proofs
 * of a fast and efficient list scheduling algorithm for task-based runtime
 * systems on multicores and GPUs", IPDPS 2017).
 *
 * Ready tasks are ordered by acceleration factor: an idle GPU takes the
 * ready task it accelerates most, an idle CPU the one a GPU accelerates
 * least.  With any devices, device d takes the ready task of largest
 * affinity mean_k C[t][k] / C[t][d] (on one CPU and one GPU, the largest
 * C_cpu / C_gpu for the GPU and the smallest for the CPU; ties: larger
 * upward rank, then the earlier ready).  A device is never left idle while
 * a task is ready.  When a device is idle and nothing is ready, it
 * spoliates: of the tasks running on other devices that it runs faster
 * and would finish strictly earlier (from now, once their inputs are
 * there), it takes the one expected to end last, and the device that ran
 * it drops it and is idle again.
 *
 * A part that a graph-level split (--split) pinned to a device is ready on
 * that device's queue only and is never spoliated, so the plan keeps the
 * pins the run will hold it to.
 *
 * The engine cannot take back a task once started, so the rule runs in a
 * simulation of its own at init, under the delay model, spoliations
 * included; the run then follows the schedule it ended with, as heft
 * follows its plan (a spoliated task simply runs where it was moved).
 * O((n + e) m + n m log n) for n tasks, e edges and m devices. */
#include <math.h>
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"
#include "mapper/rank.h"
#include "mapper/split_graph.h"

typedef struct hp {
    const hs_graph *g;
    const hs_platform *pf;
    const double *rank;
    const int *pin;       /* [ntasks]: the device a split part is pinned to
                             (-1: any), or NULL */
    hs__heap *queue;      /* [ndevices]: ready tasks by -affinity, -rank */
    unsigned char *taken; /* [ntasks]: started (lazy deletion from the queues) */
    size_t *left;         /* [ntasks]: predecessors not finished */
    long *running;        /* [ndevices]: task, or -1 */
    hs__plan *plan;
} hp;

/* Affinity of task t for device d (see the head of the file); a device
 * where t costs nothing comes first. */
static double affinity(const hs_graph *g, size_t t, int d)
{
    double c = g->tasks[t].cost_us[d], mean = hs__mean_cost(g, t);
    if (c <= 0.0)
        return mean <= 0.0 ? 1.0 : HUGE_VAL;
    return mean / c;
}

static int make_ready(hp *s, size_t t)
{
    if (s->pin && s->pin[t] >= 0)
        return hs__heap_push(&s->queue[s->pin[t]], -affinity(s->g, t, s->pin[t]),
                             -s->rank[t], t);
    for (int d = 0; d < s->g->ndevices; d++)
        if (hs__heap_push(&s->queue[d], -affinity(s->g, t, d), -s->rank[t], t) != 0)
            return -1;
    return 0;
}

/* When t would start on d from `now`: once the inputs from its finished
 * predecessors are there (delay model). */
static double start_on(const hp *s, size_t t, int d, double now)
{
    const hs_platform *pf = s->pf;
    int mem = pf->devices[d].memory;
    double at = hs_transfer_us(pf, HS_HOST_MEMORY, mem, s->g->tasks[t].input_bytes);
    const hs_edge *e;
    HS_GRAPH_PRED_FOREACH(s->g, t, e)
    {
        int du = s->plan->device[e->from];
        double v = s->plan->end[e->from] +
                   hs_transfer_us(pf, pf->devices[du].memory, mem, e->bytes);
        if (v > at)
            at = v;
    }
    return at > now ? at : now;
}

static void run_on(hp *s, size_t t, int d, double now)
{
    s->plan->device[t] = d;
    s->plan->start[t] = start_on(s, t, d, now);
    s->plan->end[t] = s->plan->start[t] + s->g->tasks[t].cost_us[d];
    s->running[d] = (long)t;
    s->taken[t] = 1;
}

/* The spoliation rule: the task d takes from another device at `now`, or
 * -1 (never a pinned part).  Its old device is left idle. */
static long spoliate(hp *s, int d, double now)
{
    long victim = -1;
    int from = -1;
    for (int q = 0; q < s->g->ndevices; q++) {
        long u = s->running[q];
        if (q == d || u < 0 || (s->pin && s->pin[u] >= 0))
            continue;
        if (s->g->tasks[u].cost_us[d] < s->g->tasks[u].cost_us[q] &&
            start_on(s, (size_t)u, d, now) + s->g->tasks[u].cost_us[d] < s->plan->end[u] &&
            (victim < 0 || s->plan->end[u] > s->plan->end[victim])) {
            victim = u;
            from = q;
        }
    }
    if (victim >= 0)
        s->running[from] = -1;
    return victim;
}

/* Gives every idle device a task at `now`: a ready one by affinity, else
 * one spoliated; repeats while a spoliation left a device idle.  Each
 * spoliation makes a task end strictly earlier, so this ends. */
static void dispatch(hp *s, double now)
{
    int again = 1;
    while (again) {
        again = 0;
        for (int d = 0; d < s->g->ndevices; d++) {
            hs__heap_entry top;
            long t = -1;
            if (s->running[d] >= 0)
                continue;
            while (t < 0 && hs__heap_pop(&s->queue[d], &top) == 0)
                if (!s->taken[top.item])
                    t = (long)top.item;
            if (t < 0 && (t = spoliate(s, d, now)) >= 0)
                again = 1;
            if (t >= 0)
                run_on(s, (size_t)t, d, now);
        }
    }
}

/* The simulation: dispatch, advance to the next completion, finish every
 * task ending then (device order), make their successors ready. */
static int simulate(hp *s)
{
    const hs_graph *g = s->g;
    for (size_t t = 0; t < g->ntasks; t++)
        if ((s->left[t] = g->pred_off[t + 1] - g->pred_off[t]) == 0 && make_ready(s, t) != 0)
            return -1;
    for (double now = 0.0;;) {
        double next = HUGE_VAL;
        dispatch(s, now);
        for (int d = 0; d < g->ndevices; d++)
            if (s->running[d] >= 0 && s->plan->end[s->running[d]] < next)
                next = s->plan->end[s->running[d]];
        if (next == HUGE_VAL)
            return 0;
        now = next;
        for (int d = 0; d < g->ndevices; d++) {
            long t = s->running[d];
            const hs_edge *e;
            if (t < 0 || s->plan->end[t] != now)
                continue;
            s->running[d] = -1;
            HS_GRAPH_SUCC_FOREACH(g, (size_t)t, e)
            {
                if (--s->left[e->to] == 0 && make_ready(s, e->to) != 0)
                    return -1;
            }
        }
    }
}

static int heteroprio_plan(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                           hs__plan *out, hs_error *err)
{
    size_t n = g->ntasks ? g->ntasks : 1;
    int m = g->ndevices > 0 ? g->ndevices : 1;
    double *rank = malloc(n * sizeof *rank);
    hp s = {.g = g, .pf = pf, .rank = rank, .pin = hs__split_graph_pins(opt, g), .plan = out};
    int rc;
    s.queue = calloc((size_t)m, sizeof *s.queue);
    s.taken = calloc(n, 1);
    s.left = malloc(n * sizeof *s.left);
    s.running = malloc((size_t)m * sizeof *s.running);
    if (!rank || !s.queue || !s.taken || !s.left || !s.running) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (int d = 0; d < m; d++)
        s.running[d] = -1;
    if ((rc = hs__upward_rank(g, pf, rank, err)) != HS_OK ||
        (rc = hs__plan_alloc(out, g->ntasks, err)) != HS_OK)
        goto out;
    if (simulate(&s) != 0) {
        hs__plan_free(out);
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
    }
out:
    for (int d = 0; s.queue && d < m; d++)
        hs__heap_free(&s.queue[d]);
    free(s.queue);
    free(s.taken);
    free(s.left);
    free(s.running);
    free(rank);
    return rc;
}

static int heteroprio_init(hs_engine *e, const hs_map_options *opt, void **state,
                           hs_error *err)
{
    return hs__planned_init(e, opt, heteroprio_plan, state, err);
}

const hs_policy hs__policy_heteroprio = {
    .name = "heteroprio",
    .description = "Agullo et al. 2016: each device takes the ready task it accelerates most; "
                   "an idle device spoliates a task it would end earlier",
    .init = heteroprio_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
    .plan = heteroprio_plan,
};
