/* hetsched — `app-level`: every task of one application instance on the same
 * device, the coarse mapping of Zhou & Liu's Observation 1 (Sec. 3, Fig.
 * 2(a)) that kernel-level mapping beats.
 *
 * When the first task of an instance becomes ready, the instance goes to the
 * device where the whole of it is predicted to finish first: starting when
 * the device is available, its kernels run one after the other in
 * topological order, each no earlier than its host input arrives, and the
 * finish counts each output's trip back to host.  Every task of the instance
 * is then assigned (hs_engine_assign) to that device, so later instances see
 * it busy; each device runs its ready tasks in arrival order. */
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"

typedef struct app_level {
    int ndevices;
    size_t *inst_of;  /* [ntasks]: instance number of each task */
    size_t *off;      /* [ninst + 1] into order */
    size_t *order;    /* [ntasks]: tasks by instance, topological within one */
    int *device;      /* [ninst]: chosen device, or -1 */
    hs__fifo *queue;  /* [ndevices] */
} app_level;

static void app_level_fini(void *state)
{
    app_level *s = state;
    if (!s)
        return;
    for (int d = 0; s->queue && d < s->ndevices; d++)
        hs__fifo_free(&s->queue[d]);
    free(s->queue);
    free(s->inst_of);
    free(s->off);
    free(s->order);
    free(s->device);
    free(s);
}

/* Numbers the instances (application by application) and lists each one's
 * tasks in a topological order of the whole graph: O(n + e). */
static int app_level_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_workload *w = hs_engine_workload(e);
    const hs_graph *g = hs_engine_graph(e);
    size_t n = g->ntasks, ninst = 0, *base = NULL, *topo = NULL;
    app_level *s = calloc(1, sizeof *s);
    int rc = HS_OK;
    (void)opt;
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    base = calloc((size_t)w->napps + 1, sizeof *base);
    for (int a = 0; base && a < w->napps; a++)
        base[a + 1] = base[a] + (size_t)w->apps[a].instances;
    ninst = base ? base[w->napps] : 0;
    s->ndevices = hs_engine_platform(e)->ndevices;
    s->inst_of = malloc((n + 1) * sizeof *s->inst_of);
    s->off = calloc(ninst + 2, sizeof *s->off);
    s->order = malloc((n + 1) * sizeof *s->order);
    s->device = malloc((ninst + 1) * sizeof *s->device);
    s->queue = calloc((size_t)s->ndevices, sizeof *s->queue);
    topo = malloc((n + 1) * sizeof *topo);
    if (!base || !s->inst_of || !s->off || !s->order || !s->device || !s->queue || !topo) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = hs_graph_topo_order(g, topo, err)) != HS_OK)
        goto out;
    for (size_t t = 0; t < n; t++) {
        s->inst_of[t] = base[g->tasks[t].app] + (size_t)g->tasks[t].instance;
        s->off[s->inst_of[t] + 2]++;
    }
    for (size_t i = 0; i < ninst; i++) {
        s->off[i + 2] += s->off[i + 1];
        s->device[i] = -1;
    }
    /* counting sort by instance, stable: off[i + 1] is the fill pointer */
    for (size_t k = 0; k < n; k++)
        s->order[s->off[s->inst_of[topo[k]] + 1]++] = topo[k];
out:
    free(base);
    free(topo);
    if (rc != HS_OK) {
        app_level_fini(s);
        return rc;
    }
    *state = s;
    return HS_OK;
}

/* Predicted finish of the whole instance `i` run alone, in order, on d. */
static double instance_finish(const app_level *s, hs_engine *e, size_t i, int d)
{
    const hs_platform *pf = hs_engine_platform(e);
    const hs_graph *g = hs_engine_graph(e);
    int m = pf->devices[d].memory;
    double now = hs_engine_device_available(e, d), finish = now;
    for (size_t k = s->off[i]; k < s->off[i + 1]; k++) {
        const hs_task *t = &g->tasks[s->order[k]];
        double in = hs_transfer_us(pf, HS_HOST_MEMORY, m, t->input_bytes); /* from time 0 */
        double out;
        now = (in > now ? in : now) + t->cost_us[d];
        out = now + hs_transfer_us(pf, m, HS_HOST_MEMORY, t->output_bytes);
        if (out > finish)
            finish = out;
    }
    return finish;
}

/* Out of memory while queueing leaves the task unqueued: the engine then
 * reports the run as stuck (HS_EINTERNAL) rather than scheduling wrongly. */
static void app_level_ready(void *state, hs_engine *e, size_t t)
{
    app_level *s = state;
    size_t i = s->inst_of[t];
    if (s->device[i] < 0) {
        int best = 0;
        double best_finish = instance_finish(s, e, i, 0);
        for (int d = 1; d < s->ndevices; d++) {
            double f = instance_finish(s, e, i, d);
            if (f < best_finish) {
                best_finish = f;
                best = d;
            }
        }
        s->device[i] = best;
        for (size_t k = s->off[i]; k < s->off[i + 1]; k++)
            hs_engine_assign(e, s->order[k], best);
    }
    hs__fifo_push(&s->queue[s->device[i]], t);
}

static long app_level_pick(void *state, hs_engine *e, int device)
{
    app_level *s = state;
    size_t t;
    (void)e;
    return hs__fifo_pop(&s->queue[device], &t) == 0 ? (long)t : HS_NO_TASK;
}

const hs_policy hs__policy_app_level = {
    .name = "app-level",
    .description = "each application instance whole on the device where it ends first (Obs. 1)",
    .init = app_level_init,
    .ready = app_level_ready,
    .pick = app_level_pick,
    .fini = app_level_fini,
};
