/* hetsched — the data manager of the real backends (exec/data.h): kernel
 * configurations, the edge-to-buffer rule, result replicas per memory with
 * valid flags, copies on demand counted per link, and freeing. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "workloads/kernels/kernel.h"

typedef struct dtask {
    int typed;
    hs_kconf c;
    int result;                     /* index of the result buffer, or -1 */
    size_t feed[HS_KMAX_BUFS];      /* producer task feeding buffer i ... */
    unsigned char fed[HS_KMAX_BUFS]; /* ... when fed[i] */
    size_t consumers_left;          /* fed buffers of successors not yet filled */
    int output;                     /* typed and no successors */
    void **replica;                 /* [nmemories] */
    unsigned char *valid;           /* [nmemories] */
    /* while it runs: its buffers and the check's copies of its inputs */
    void *bufs[HS_KMAX_BUFS], *before[HS_KMAX_BUFS];
    /* a split task: parts, parts finished, first failure (group_mu) */
    int nparts, parts_done, prepared, grc;
    hs_error gerr;
} dtask;

struct hs__data {
    const hs_workload *w;
    const hs_graph *g;              /* the workload's: data follow whole tasks */
    const hs_graph *rg;             /* the graph run (parts of a split) */
    size_t *range;                  /* [2 * rg->ntasks]: a part's items */
    int emulate, nmem;
    dtask *t;
    void **replica_pool;
    unsigned char *valid_pool;
    pthread_mutex_t mu;             /* replicas, valid flags, counters */
    pthread_mutex_t group_mu;       /* the parts' fields of dtask */
    hs_run_report r;                /* counters (links, tasks, replicas) */
};

double hs__since_us(const struct timespec *t0)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)(ts.tv_sec - t0->tv_sec) + 1e-3 * (double)(ts.tv_nsec - t0->tv_nsec);
}

void hs_run_report_free(hs_run_report *r)
{
    if (!r)
        return;
    free(r->link_bytes);
    free(r->link_us);
    free(r->link_copies);
    for (size_t i = 0; i < r->noutputs; i++)
        free(r->outputs[i].data);
    free(r->outputs);
    memset(r, 0, sizeof *r);
}

/* Configures typed task t and finds its result buffer. */
static int configure(hs__data *dm, size_t t, hs_error *err)
{
    const hs_task *task = &dm->g->tasks[t];
    const hs_kernel *k = &dm->w->apps[task->app].kernels[task->kernel];
    dtask *d = &dm->t[t];
    int rc;
    d->result = -1;
    if (!k->type)
        return HS_OK;
    if ((rc = hs_kconf_init(&d->c, k->type, k->params, k->nparams, err)) != 0)
        return rc;
    d->c.seed = (uint64_t)task->origin + 1;
    d->typed = 1;
    for (int i = 0; i < d->c.nbufs; i++)
        if (d->c.bufs[i].mode & HS_KWRITE)
            d->result = i;
    return HS_OK;
}

/* The rule of exec/data.h: the k-th data edge into t feeds t's k-th readable
 * buffer when the producer's result has that buffer's size. */
static void wire(hs__data *dm, size_t t)
{
    const hs_graph *g = dm->g;
    const hs_edge *ed;
    dtask *d = &dm->t[t];
    int i = 0;
    if (!d->typed)
        return;
    HS_GRAPH_PRED_FOREACH(g, t, ed)
    {
        dtask *u = &dm->t[ed->from];
        if (ed->bytes <= 0)
            continue;
        while (i < d->c.nbufs && !(d->c.bufs[i].mode & HS_KREAD))
            i++;
        if (i >= d->c.nbufs)
            break;
        if (u->typed && u->result >= 0 &&
            u->c.bufs[u->result].bytes == d->c.bufs[i].bytes) {
            d->feed[i] = ed->from;
            d->fed[i] = 1;
            u->consumers_left++;
        }
        i++;
    }
}

/* The items each part of a split typed task runs: part k of n gets
 * [round(items x F_k), round(items x F_k+1)), F_k the sum of the fractions of
 * parts 0..k-1, so the parts tile [0, items).  A type that is not splittable
 * runs whole in part 0 and not at all in the others. */
static int part_ranges(hs__data *dm, hs_error *err)
{
    const hs_graph *rg = dm->rg;
    size_t *off = calloc(dm->g->ntasks + 1, sizeof *off);
    double *f = calloc(rg->ntasks ? rg->ntasks : 1, sizeof *f);
    int rc = HS_OK;
    if (!off || !f) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t t = 0; t < rg->ntasks; t++)
        off[rg->tasks[t].origin + 1]++;
    for (size_t o = 0; o < dm->g->ntasks; o++)
        off[o + 1] += off[o];
    for (size_t t = 0; t < rg->ntasks && rc == HS_OK; t++) {
        const hs_task *p = &rg->tasks[t];
        if (p->part < 0 || (size_t)p->part >= off[p->origin + 1] - off[p->origin])
            rc = hs_error_set(err, HS_EINTERNAL, "part %d of task %zu is out of range",
                              p->part, p->origin);
        else
            f[off[p->origin] + (size_t)p->part] = p->fraction;
    }
    for (size_t t = 0; t < rg->ntasks && rc == HS_OK; t++) {
        const hs_task *p = &rg->tasks[t];
        dtask *d = &dm->t[p->origin];
        double cum = 0;
        size_t items = d->c.items;
        d->nparts = p->nparts;
        for (int k = 0; k < p->part; k++)
            cum += f[off[p->origin] + (size_t)k];
        dm->range[2 * t] = (size_t)floor((double)items * cum + 0.5);
        dm->range[2 * t + 1] = p->part == p->nparts - 1
                                   ? items
                                   : (size_t)floor((double)items * (cum + p->fraction) + 0.5);
        if (!d->c.splittable) {
            dm->range[2 * t] = 0;
            dm->range[2 * t + 1] = p->part == 0 ? items : 0;
        }
    }
out:
    free(off);
    free(f);
    return rc;
}

int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode, hs__data **out,
                 hs_error *err)
{
    hs__data *dm = calloc(1, sizeof *dm);
    const hs_graph *rg = g;
    size_t n, nm;
    int rc = HS_OK;
    if (!dm)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
    g = &w->graph;
    n = g->ntasks ? g->ntasks : 1;
    dm->w = w;
    dm->g = g;
    dm->rg = rg;
    dm->emulate = mode != HS__REAL_CPU;
    dm->nmem = w->platform.nmemories;
    nm = (size_t)dm->nmem;
    dm->t = calloc(n, sizeof *dm->t);
    dm->replica_pool = calloc(n * nm, sizeof *dm->replica_pool);
    dm->valid_pool = calloc(n * nm, 1);
    dm->range = calloc(2 * (rg->ntasks ? rg->ntasks : 1), sizeof *dm->range);
    dm->r.nmemories = dm->nmem;
    dm->r.link_bytes = calloc(nm * nm, sizeof *dm->r.link_bytes);
    dm->r.link_us = calloc(nm * nm, sizeof *dm->r.link_us);
    dm->r.link_copies = calloc(nm * nm, sizeof *dm->r.link_copies);
    if (!dm->t || !dm->replica_pool || !dm->valid_pool || !dm->range || !dm->r.link_bytes ||
        !dm->r.link_us || !dm->r.link_copies) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
        goto fail;
    }
    pthread_mutex_init(&dm->mu, NULL);
    pthread_mutex_init(&dm->group_mu, NULL);
    for (size_t t = 0; t < g->ntasks; t++) {
        dm->t[t].replica = dm->replica_pool + t * nm;
        dm->t[t].valid = dm->valid_pool + t * nm;
    }
    for (size_t t = 0; t < g->ntasks; t++) {
        if ((rc = configure(dm, t, err)) != 0) {
            hs__data_free(dm);
            return rc;
        }
    }
    for (size_t t = 0; t < g->ntasks; t++) {
        wire(dm, t);
        dm->t[t].output = dm->t[t].typed && g->succ_off[t + 1] == g->succ_off[t];
    }
    if ((rc = part_ranges(dm, err)) != 0) {
        hs__data_free(dm);
        return rc;
    }
    *out = dm;
    return HS_OK;
fail:
    free(dm->range);
    free(dm->t);
    free(dm->replica_pool);
    free(dm->valid_pool);
    hs_run_report_free(&dm->r);
    free(dm);
    return rc;
}

static void free_replica(hs__data *dm, dtask *u, int m)
{
    if (!u->replica[m])
        return;
    free(u->replica[m]);
    u->replica[m] = NULL;
    u->valid[m] = 0;
    dm->r.replicas_freed++;
}

/* Makes a valid replica of u's result on memory m (dm->mu held): copies it
 * from host when host has one, else from the first memory that does. */
static int fetch(hs__data *dm, dtask *u, int m, hs_error *err)
{
    size_t bytes = u->c.bufs[u->result].bytes;
    struct timespec t0;
    int from = -1;
    if (u->valid[m])
        return HS_OK;
    if (u->valid[HS_HOST_MEMORY])
        from = HS_HOST_MEMORY;
    for (int s = 0; s < dm->nmem && from < 0; s++)
        if (u->valid[s])
            from = s;
    if (from < 0)
        return hs_error_set(err, HS_EINTERNAL, "data manager: a result has no valid replica");
    if (!u->replica[m]) {
        if (!(u->replica[m] = malloc(bytes ? bytes : 1)))
            return hs_error_set(err, HS_ENOMEM, "out of memory for a replica of %zu bytes",
                                bytes);
        dm->r.replicas_allocated++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memcpy(u->replica[m], u->replica[from], bytes);
    dm->r.link_us[from * dm->nmem + m] += hs__since_us(&t0);
    dm->r.link_bytes[from * dm->nmem + m] += (double)bytes;
    dm->r.link_copies[from * dm->nmem + m]++;
    u->valid[m] = 1;
    return HS_OK;
}

/* Fills t's fed buffers on memory m from its producers' replicas, and frees
 * a producer's replicas once its last consumer has taken them. */
static int take_inputs(hs__data *dm, dtask *d, int m, void *const *bufs, hs_error *err)
{
    int rc = HS_OK;
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < d->c.nbufs && rc == HS_OK; i++) {
        dtask *u;
        if (!d->fed[i])
            continue;
        u = &dm->t[d->feed[i]];
        if ((rc = fetch(dm, u, m, err)) != 0)
            break;
        memcpy(bufs[i], u->replica[m], d->c.bufs[i].bytes);
        if (--u->consumers_left == 0 && !u->output)
            for (int s = 0; s < dm->nmem; s++)
                free_replica(dm, u, s);
    }
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* Stores the result buffer as the only valid replica, on memory m (the
 * write invalidates every other copy), and brings an output to host. */
static int store_result(hs__data *dm, dtask *d, int m, void **bufs, hs_error *err)
{
    int rc = HS_OK;
    pthread_mutex_lock(&dm->mu);
    for (int s = 0; s < dm->nmem; s++)
        free_replica(dm, d, s);
    d->replica[m] = bufs[d->result];
    bufs[d->result] = NULL;
    d->valid[m] = 1;
    dm->r.replicas_allocated++;
    if (d->output && m != HS_HOST_MEMORY)
        rc = fetch(dm, d, HS_HOST_MEMORY, err);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* After the check: frees the replica on m that nobody will read (an output
 * copied to host, or a result that feeds no buffer). */
static void drop_unread(hs__data *dm, dtask *d, int m)
{
    pthread_mutex_lock(&dm->mu);
    if ((d->output && m != HS_HOST_MEMORY) || (!d->output && d->consumers_left == 0))
        free_replica(dm, d, m);
    pthread_mutex_unlock(&dm->mu);
}

/* Sleeps us µs; no system call at all for a cost of 0 (empty tasks), since
 * nanosleep(0) still costs a timer-slack wait of ~50 µs on Linux. */
static void sleep_us(double us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1e6)};
    if (!(us > 0))
        return;
    ts.tv_nsec = (long)((us - 1e6 * (double)ts.tv_sec) * 1e3);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Allocates d's buffers in memory m's space, fills them (generator, then
 * the fed inputs) and keeps copies of the inputs for the check. */
static int prepare(hs__data *dm, dtask *d, int m, hs_error *err)
{
    const hs_kconf *c = &d->c;
    int rc = HS_OK;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if (!(d->bufs[i] = malloc(c->bufs[i].bytes ? c->bufs[i].bytes : 1)))
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for a buffer of %zu bytes",
                              c->bufs[i].bytes);
    if (rc == HS_OK) {
        hs_kfill(c, d->bufs);
        rc = take_inputs(dm, d, m, d->bufs, err);
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        if (!(c->bufs[i].mode & HS_KREAD))
            continue;
        if (!(d->before[i] = malloc(c->bufs[i].bytes ? c->bufs[i].bytes : 1)))
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for a check copy");
        else
            memcpy(d->before[i], d->bufs[i], c->bufs[i].bytes);
    }
    return rc;
}

/* After the kernel ran (rc its status): stores the result on m, reads the
 * end time, checks the kernel against its inputs, frees the buffers. */
static int finish(hs__data *dm, dtask *d, int m, int rc, const struct timespec *t0,
                  double *end_us, hs_error *err)
{
    const hs_kconf *c = &d->c;
    void *after[HS_KMAX_BUFS];
    memcpy(after, d->bufs, sizeof after);
    if (rc == HS_OK && d->result >= 0)
        rc = store_result(dm, d, m, d->bufs, err);
    *end_us = hs__since_us(t0);
    /* the result's bytes are still there: consumers start after we post */
    if (rc == HS_OK)
        rc = hs_kcheck(c, (const void *const *)d->before, (const void *const *)after, NULL,
                       err);
    if (d->result >= 0 && !d->bufs[d->result])
        drop_unread(dm, d, m);
    pthread_mutex_lock(&dm->mu);
    dm->r.typed++;
    dm->r.checked += rc == HS_OK;
    pthread_mutex_unlock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++) {
        free(d->bufs[i]);
        free(d->before[i]);
        d->bufs[i] = d->before[i] = NULL;
    }
    return rc;
}

/* One part of a split typed task.  Its parts share one set of buffers in
 * host memory, whatever their devices (emu does not give parts their own
 * spaces): the first part to start prepares them, each runs its items, the
 * last to end finishes the whole task. */
static int run_part(hs__data *dm, dtask *d, size_t t, const struct timespec *t0,
                    double *end_us, hs_error *err)
{
    size_t begin = dm->range[2 * t], end = dm->range[2 * t + 1];
    int rc, last;
    pthread_mutex_lock(&dm->group_mu);
    if (!d->prepared) {
        d->prepared = 1;
        d->grc = prepare(dm, d, HS_HOST_MEMORY, &d->gerr);
    }
    rc = d->grc;
    pthread_mutex_unlock(&dm->group_mu);
    if (rc == HS_OK && begin < end)
        rc = hs_krun_cpu(&d->c, d->bufs, d->c.splittable ? begin : 0,
                         d->c.splittable ? end : d->c.items, 1, err);
    pthread_mutex_lock(&dm->group_mu);
    if (rc != HS_OK && d->grc == HS_OK) {
        d->grc = rc;
        d->gerr = *err;
    }
    rc = d->grc;
    last = ++d->parts_done == d->nparts;
    pthread_mutex_unlock(&dm->group_mu);
    if (rc != HS_OK)
        *err = d->gerr;
    if (!last) {
        *end_us = hs__since_us(t0);
        return rc;
    }
    return finish(dm, d, HS_HOST_MEMORY, rc, t0, end_us, err);
}

int hs__data_run(hs__data *dm, size_t t, int d, const struct timespec *t0, double *start_us,
                 double *end_us, hs_error *err)
{
    dtask *task = &dm->t[dm->rg->tasks[t].origin];
    int m = dm->emulate ? dm->w->platform.devices[d].memory : HS_HOST_MEMORY;
    int rc;
    *start_us = hs__since_us(t0);
    if (task->typed && dm->rg->tasks[t].nparts > 1)
        return run_part(dm, task, t, t0, end_us, err);
    if (task->typed) {
        rc = prepare(dm, task, m, err);
        if (rc == HS_OK)
            rc = hs_krun_cpu(&task->c, task->bufs, 0, task->c.items, 1, err);
        return finish(dm, task, m, rc, t0, end_us, err);
    }
    /* cost only: sleep (not spin) its predicted cost, so any workload runs */
    sleep_us(dm->rg->tasks[t].cost_us[d]);
    *end_us = hs__since_us(t0);
    pthread_mutex_lock(&dm->mu);
    dm->r.untyped++;
    pthread_mutex_unlock(&dm->mu);
    return HS_OK;
}

int hs__data_prefetch(hs__data *dm, size_t t, int d, hs_error *err)
{
    (void)dm, (void)t, (void)d, (void)err; /* copies happen when t runs */
    return HS_OK;
}

int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err)
{
    size_t n = 0, k = 0;
    for (size_t t = 0; t < dm->g->ntasks; t++)
        n += dm->t[t].output && dm->t[t].replica[HS_HOST_MEMORY];
    *r = dm->r;
    memset(&dm->r, 0, sizeof dm->r);
    if (n && !(r->outputs = calloc(n, sizeof *r->outputs)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        if (!d->output || !d->replica[HS_HOST_MEMORY])
            continue;
        r->outputs[k].task = t;
        r->outputs[k].bytes = d->c.bufs[d->result].bytes;
        r->outputs[k++].data = d->replica[HS_HOST_MEMORY];
        d->replica[HS_HOST_MEMORY] = NULL; /* the report owns it now */
    }
    r->noutputs = k;
    return HS_OK;
}

void hs__data_free(hs__data *dm)
{
    if (!dm)
        return;
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        for (int s = 0; s < dm->nmem; s++)
            free(dm->t[t].replica[s]);
        for (int i = 0; i < HS_KMAX_BUFS; i++) {
            free(dm->t[t].bufs[i]);
            free(dm->t[t].before[i]);
        }
    }
    pthread_mutex_destroy(&dm->mu);
    pthread_mutex_destroy(&dm->group_mu);
    free(dm->range);
    free(dm->t);
    free(dm->replica_pool);
    free(dm->valid_pool);
    hs_run_report_free(&dm->r);
    free(dm);
}
