/* hetsched — graph-level splitting (hetsched/split.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/queue.h"
#include "mapper/split.h"
#include "mapper/parts.h"
#include "mapper/policy.h"
#include "mapper/split_graph.h"

#define SIM_ITEMS_MAX ((size_t)1 << 20) /* see split_graph.h */

struct hs_split_graph {
    const hs_splitter *sp;
    hs_split_options opt;
    const hs_policy *inner;
    hs_policy policy;       /* the wrapper of inner */
    char name[96];
    int *pin;               /* [ntasks of the last transform]: device or -1 */
    size_t npin;
};

int hs_split_graph_new(const char *splitter, const hs_split_options *opt, hs_split_graph **out,
                       hs_error *err)
{
    const hs_splitter *sp = hs_splitter_find(splitter);
    hs_split_graph *sg;
    if (!sp)
        return hs_error_set(err, HS_EINPUT, "unknown splitter '%s' (hetsched split -p help "
                            "lists them)", splitter ? splitter : "(null)");
    if (hs_split_options_check(opt, sp, err) != HS_OK)
        return err->code;
    if (opt && (opt->wave_rows || opt->wave_cols))
        return hs_error_set(err, HS_EINPUT, "a kernel split in a graph has independent items: "
                            "no wavefront");
    if (!(sg = calloc(1, sizeof *sg)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    sg->sp = sp;
    if (opt)
        sg->opt = *opt;
    *out = sg;
    return HS_OK;
}

void hs_split_graph_free(hs_split_graph *sg)
{
    if (!sg)
        return;
    free(sg->pin);
    free(sg);
}

/* ---------------------------------------------------------------- the split */

/* 1 when the wrapped policy may run a task on device d (split_graph.h). */
static int usable(const hs_split_graph *sg, const hs_device *d)
{
    return !(sg->inner && sg->inner->options & HS_POLICY_CPUS_ONLY) || d->kind == HS_DEVICE_CPU;
}

/* The chunk simulation of task t over the devices the wrapped policy may
 * use (see split_graph.h).  Fills share[d] with the fraction of the items
 * platform device d got (0 for the others); returns 1 if t is split, 0 if
 * it stays whole (a cost of 0), or a negative HS_E* code. */
static int split_task(const hs_split_graph *sg, const hs_workload *w, size_t t, double *share,
                      hs_error *err)
{
    int dev[HS_SPLIT_MAX_DEVICES]; /* simulated device -> platform device */
    hs_split_sim *sim = calloc(1, sizeof *sim); /* large: off the stack */
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    const hs_task *task = &g->tasks[t];
    const hs_kernel *k = &w->apps[task->app].kernels[task->kernel];
    hs_split_memory mem = {0};
    hs_split_result res;
    double in = task->input_bytes, out = task->output_bytes, n;
    const hs_edge *e;
    int rc = 1, runs, nd = 0;
    if (!sim)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    n = k->items < (double)SIM_ITEMS_MAX ? floor(k->items + 0.5) : (double)SIM_ITEMS_MAX;
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        in += e->bytes;
    }
    HS_GRAPH_SUCC_FOREACH(g, t, e)
    {
        out += e->bytes;
    }
    sim->kernel = k->name;
    sim->items = (size_t)n;
    sim->in_bytes = in / n;
    sim->out_bytes = out / n;
    for (int d = 0; d < pf->ndevices; d++) {
        const hs_device *v = &pf->devices[d];
        const hs_link *l = &pf->links[HS_HOST_MEMORY * pf->nmemories + v->memory];
        if (!usable(sg, v))
            continue;
        if (!(task->cost_us[d] > 0)) {
            free(sim);
            return 0;
        }
        dev[nd] = d;
        sim->dev[nd] = (hs_split_sim_device){
            .name = v->name, .kind = v->kind, .items_per_us = n / task->cost_us[d],
            .width = 1, .cores = v->cores};
        if (v->memory != HS_HOST_MEMORY && l->present) {
            sim->dev[nd].bandwidth_gbps = l->bandwidth_gbps;
            sim->dev[nd].latency_us = l->latency_us;
        }
        nd++;
    }
    sim->ndevices = nd;
    if (nd == 0) { /* no device the policy uses: its init says so */
        free(sim);
        return 0;
    }
    /* a splitter that trains first gets its training run */
    runs = sg->sp->flags & HS_SPLIT_TRAINS ? 2 : 1;
    for (int r = 0; r < runs && rc == 1; r++) {
        if ((rc = hs_split_sim_run(sim, sg->sp, &sg->opt, &mem, &res, err)) != HS_OK)
            break;
        rc = 1;
        if (r == runs - 1)
            for (int i = 0; i < nd; i++)
                share[dev[i]] = (double)res.dev[i].items / n;
        hs_split_result_free(&res);
    }
    free(sim);
    return rc;
}

/* The transform hook: the graph with every splittable task replaced by its
 * parts (returns 1), or 0 when no task is splittable.  The pins go to sg. */
static int split_transform(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                           hs_error *err)
{
    hs_split_graph *sg = opt ? opt->split : NULL;
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks, nt = 0, ne = 0, nsplit = 0;
    int m = g->ndevices, rc = HS_OK;
    double *share;
    size_t *base;
    int *first;
    if (!sg)
        return hs_error_set(err, HS_EUSAGE, "a split policy needs hs_map_options.split");
    share = calloc(n * (size_t)m + 1, sizeof *share);
    base = malloc((n + 1) * sizeof *base);
    first = malloc((n + 1) * sizeof *first);
    if (!share || !base || !first) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto done;
    }
    /* how each task is cut: share[t][d] > 0 for the devices with a part;
     * first[t] the device of a lone part, -1 for a task not split */
    for (size_t t = 0; t < n; t++) {
        const hs_kernel *k = &w->apps[g->tasks[t].app].kernels[g->tasks[t].kernel];
        double *f = &share[t * (size_t)m];
        size_t np = 1;
        first[t] = -1;
        if (k->splittable && k->items >= 1) {
            int s = split_task(sg, w, t, f, err);
            if (s < 0) {
                rc = s;
                goto done;
            }
            if (s == 1) {
                np = 0;
                for (int d = 0; d < m; d++)
                    if (f[d] > 0) {
                        if (np++ == 0)
                            first[t] = d;
                    }
                nsplit++;
            }
        }
        base[t] = nt;
        nt += np;
    }
    base[n] = nt;
    if (nsplit == 0)
        goto done;
    free(sg->pin);
    sg->npin = 0;
    if (!(sg->pin = malloc((nt ? nt : 1) * sizeof *sg->pin))) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto done;
    }
    sg->npin = nt;
#define NPARTS(t) (base[(t) + 1] - base[(t)])
    for (size_t e = 0; e < g->nedges; e++)
        ne += NPARTS(g->edges[e].from) * NPARTS(g->edges[e].to);
    if ((rc = hs_graph_init(out, nt, ne, m, err)) != HS_OK)
        goto done;
    /* per part: its task, device and fraction (the last part of a task
     * takes 1 minus the others, so the fractions sum to 1) */
    for (size_t t = 0; t < n; t++) {
        const hs_task *src = &g->tasks[t];
        size_t np = NPARTS(t), k = 0;
        double left = 1.0;
        for (int d = first[t] < 0 ? -1 : first[t]; k < np; d++) {
            hs_task *p = &out->tasks[base[t] + k];
            double f;
            if (d >= 0 && !(share[t * (size_t)m + (size_t)d] > 0))
                continue;
            f = np == 1 ? 1.0 : k == np - 1 ? left : share[t * (size_t)m + (size_t)d];
            left -= f;
            hs__part_fill(p, src, t, k, np, f);
            for (int e = 0; e < m; e++)
                p->cost_us[e] = hs_task_part_us(&w->platform, src, e, f);
            sg->pin[base[t] + k] = d;
            k++;
        }
    }
#undef NPARTS
    if ((rc = hs__part_edges(g, base, out, err)) != HS_OK)
        hs_graph_free(out);
done:
    free(share);
    free(base);
    free(first);
    if (rc != HS_OK)
        return rc;
    if (nsplit == 0) {
        free(sg->pin);
        sg->pin = NULL;
        sg->npin = 0;
        return 0;
    }
    return 1;
}

const int *hs__split_graph_pins(const hs_map_options *opt, const hs_graph *g)
{
    const hs_split_graph *sg = opt ? opt->split : NULL;
    return sg && sg->pin && sg->npin == g->ntasks ? sg->pin : NULL;
}

/* -------------------------------------------------------------- the wrapper */

typedef struct wrap {
    const hs_policy *inner;
    void *ist;             /* inner's state */
    const int *pin;        /* [ntasks] or NULL (nothing split) */
    size_t ntasks;
    hs__fifo *queue;       /* [ndevices]: parts the policy handed out for it */
    unsigned char *declined; /* [ndevices]: answered no task in this batch */
    size_t *busy;          /* [ndevices]: tasks it runs */
    int ndevices;
    int inner_up;          /* inner's init succeeded */
} wrap;

static void wrap_fini(void *state)
{
    wrap *s = state;
    if (!s)
        return;
    if (s->inner_up && s->inner->fini)
        s->inner->fini(s->ist);
    for (int d = 0; s->queue && d < s->ndevices; d++)
        hs__fifo_free(&s->queue[d]);
    free(s->queue);
    free(s->declined);
    free(s->busy);
    free(s);
}

/* Sets the inner policy up on the same engine, and reserves each device's
 * queue for all the parts pinned to it (ready cannot fail). */
static int wrap_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    hs_split_graph *sg = opt->split;
    const hs_graph *g = hs_engine_graph(e);
    wrap *s = calloc(1, sizeof *s);
    int rc;
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    s->inner = sg->inner;
    s->ndevices = g->ndevices;
    s->ntasks = g->ntasks;
    s->pin = hs__split_graph_pins(opt, g);
    s->queue = calloc((size_t)g->ndevices, sizeof *s->queue);
    s->declined = calloc((size_t)g->ndevices, 1);
    s->busy = calloc((size_t)g->ndevices, sizeof *s->busy);
    if (!s->queue || !s->declined || !s->busy) {
        wrap_fini(s);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    /* any task may pass through any device's queue */
    for (int d = 0; d < g->ndevices; d++)
        s->queue[d].cap = g->ntasks ? g->ntasks : 1;
    for (int d = 0; d < g->ndevices; d++)
        if (s->queue[d].cap && !(s->queue[d].buf = malloc(s->queue[d].cap * sizeof(size_t)))) {
            s->queue[d].cap = 0;
            wrap_fini(s);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
    rc = s->inner->init ? s->inner->init(e, opt, &s->ist, err) : HS_OK;
    if (rc != HS_OK) {
        wrap_fini(s);
        return rc;
    }
    s->inner_up = 1;
    *state = s;
    return HS_OK;
}

/* A batch of events begins: every device may be asked again. */
static void new_batch(wrap *s)
{
    memset(s->declined, 0, (size_t)s->ndevices);
}

static void wrap_ready(void *state, hs_engine *e, size_t t)
{
    wrap *s = state;
    new_batch(s);
    s->inner->ready(s->ist, e, t);
}

/* Asks the inner policy for device y's next task until it hands out one
 * that is not a part: parts go to their devices' queues, the other task to
 * y's. */
static void harvest(wrap *s, hs_engine *e, int y)
{
    long x;
    while ((x = s->inner->pick(s->ist, e, y)) != HS_NO_TASK) {
        int part = s->pin && s->pin[x] >= 0;
        (void)hs__fifo_push(&s->queue[part ? s->pin[x] : y], (size_t)x); /* reserved */
        if (!part)
            break;
    }
}

/* d runs the head of its queue.  When the queue is empty, first the inner
 * policy is asked for d and for every other idle device not yet asked in
 * this batch (see split_graph.h): the parts it hands out reach their
 * devices' queues before those devices are asked, whatever the order the
 * engine asks in.  Should d still have nothing while a part waits for a
 * device that has already declined in this batch (and may not be asked
 * again before the next event), d runs it. */
static long wrap_pick(void *state, hs_engine *e, int d)
{
    wrap *s = state;
    size_t t;
    if (s->queue[d].len == 0) {
        harvest(s, e, d);
        for (int y = 0; y < s->ndevices; y++)
            if (y != d && !s->declined[y] && !s->busy[y] && s->queue[y].len == 0)
                harvest(s, e, y);
    }
    for (int y = 0; s->queue[d].len == 0 && y < s->ndevices; y++)
        if (y != d && s->declined[y] && !s->busy[y] && hs__fifo_pop(&s->queue[y], &t) == 0)
            (void)hs__fifo_push(&s->queue[d], t);
    if (hs__fifo_pop(&s->queue[d], &t) != 0) {
        s->declined[d] = 1;
        return HS_NO_TASK;
    }
    s->busy[d]++;
    return (long)t;
}

static void wrap_done(void *state, hs_engine *e, size_t t, int d, double us)
{
    wrap *s = state;
    new_batch(s);
    s->busy[d]--;
    if (s->inner->done)
        s->inner->done(s->ist, e, t, d, us);
}

const hs_policy *hs_split_graph_wrap(hs_split_graph *sg, const hs_policy *inner)
{
    if (!sg || !inner || inner->transform)
        return NULL;
    sg->inner = inner;
    snprintf(sg->name, sizeof sg->name, "%s+%s", inner->name, sg->sp->name);
    sg->policy = (hs_policy){
        .name = sg->name,
        .description = "a policy with the splittable kernels split by a chunk splitter",
        .transform = split_transform,
        .init = wrap_init,
        .ready = wrap_ready,
        .pick = wrap_pick,
        .done = wrap_done,
        .fini = wrap_fini,
    };
    return &sg->policy;
}
