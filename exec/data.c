/* hetsched — the data manager of the real backends (exec/data.h): kernel
 * configurations, the edge-to-buffer rule, result replicas per memory with
 * valid copies, pins, copies on demand and ahead of time (prefetch) counted
 * per link, LRU eviction under a memory capacity, and freeing.  The memory
 * spaces themselves are behind exec/mem.h. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/data.h"
#include "exec/mem.h"
#include "workloads/kernels/kernel.h"

/* One replica of a result on one memory: valid exactly when p is set (a
 * write frees every other replica, so there is no invalid-but-allocated
 * state). */
typedef struct rep {
    void *p;
    void *ev;                       /* the copy filling p, or NULL */
    void *rd_ev;                    /* the last copy reading p, or NULL */
    int pins;                       /* tasks that will read it or check it */
    unsigned long long used;        /* LRU stamp */
} rep;

typedef struct dtask {
    int typed;
    hs_kconf c;
    int result;                     /* index of the result buffer, or -1 */
    size_t feed[HS_KMAX_BUFS];      /* producer task feeding buffer i ... */
    unsigned char fed[HS_KMAX_BUFS]; /* ... when fed[i] */
    size_t consumers_left;          /* fed buffers of consumers not yet finished */
    int output;                     /* typed and no successors */
    rep *rep;                       /* [nmemories] */
    int pf_mem;                     /* memory a prefetch pinned inputs on, or -1 */
    int running, mem;               /* prepared, on memory mem */
    int cut;                        /* parts run on byte spans (hs_kconf_cuttable) */
    int ran;                        /* finished (prefetch has nothing to do) */
    int result_pinned;              /* its own result's replica on mem */
    /* pinned[i]: holds a pin on feed[i]'s replica on pf_mem, or on mem once
     * running; borrowed[i]: bufs[i] is that replica (read-only buffer) */
    unsigned char pinned[HS_KMAX_BUFS], borrowed[HS_KMAX_BUFS];
    /* while it runs: its buffers on mem, the host copies of its inputs
     * (generated there, then the check's), the events the kernel waits on */
    void *bufs[HS_KMAX_BUFS], *before[HS_KMAX_BUFS];
    void *wait[2 * HS_KMAX_BUFS];
    int nwait;
    int generated;                  /* before[] holds its generated inputs */
    /* a split task: parts, parts finished, first failure (group_mu); the
     * error lives apart, as most tasks are whole and an hs_error is 1.3 KB */
    int nparts, parts_done, prepared, grc;
    hs_error *gerr;
} dtask;

struct hs__data {
    const hs_workload *w;
    const hs_graph *g;              /* the workload's: data follow whole tasks */
    const hs_graph *rg;             /* the graph run (parts of a split) */
    size_t *range;                  /* [2 * rg->ntasks]: a part's items */
    hs__real_mode mode;
    int nmem;
    dtask *t;
    rep *rep_pool;
    const hs__mem_ops *ops;
    void *mctx;
    size_t *cap, *used;             /* [nmem]: capacity, bytes allocated */
    unsigned char *host_side;       /* [nmem]: the CPU computes there */
    int *threads;                   /* [ndevices]: cpu_threads */
    unsigned long long tick;        /* LRU clock */
    pthread_mutex_t mu;             /* replicas, pins, usage, counters */
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

/* ------------------------------------------------ plain memory spaces */

/* Every memory is malloc'd RAM; copies are memcpy, done on return. */
typedef struct plain {
    size_t device_memory;
} plain;

static int plain_host_side(void *ctx, int m)
{
    (void)ctx, (void)m;
    return 1;
}

static size_t plain_capacity(void *ctx, int m)
{
    const plain *p = ctx;
    return m == HS_HOST_MEMORY || !p->device_memory ? SIZE_MAX : p->device_memory;
}

static int plain_alloc(void *ctx, int m, size_t bytes, void **p, hs_error *err)
{
    (void)ctx, (void)m;
    if (!(*p = malloc(bytes ? bytes : 1)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for a buffer of %zu bytes", bytes);
    return HS_OK;
}

static void plain_free(void *ctx, int m, void *p)
{
    (void)ctx, (void)m;
    free(p);
}

static int plain_copy(void *ctx, int to, void *dst, int from, const void *src, size_t bytes,
                      void *after, double *us, void **done, hs_error *err)
{
    struct timespec t0;
    (void)ctx, (void)to, (void)from, (void)after, (void)err;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memcpy(dst, src, bytes);
    if (us)
        *us += hs__since_us(&t0);
    *done = NULL;
    return HS_OK;
}

static int plain_sync(void *ctx, void *ev, hs_error *err)
{
    (void)ctx, (void)ev, (void)err;
    return HS_OK;
}

static int plain_run(void *ctx, int m, const hs_kconf *c, void *const *bufs, size_t begin,
                     size_t end, void *const *ev, int nev, hs_error *err)
{
    (void)ctx, (void)m, (void)c, (void)bufs, (void)begin, (void)end, (void)ev, (void)nev;
    return hs_error_set(err, HS_EINTERNAL, "plain memories have no device to run on");
}

static int plain_flush(void *ctx, hs_error *err)
{
    (void)ctx, (void)err;
    return HS_OK;
}

static const hs__mem_ops plain_ops = {
    .host_side = plain_host_side,
    .capacity = plain_capacity,
    .alloc = plain_alloc,
    .free = plain_free,
    .copy = plain_copy,
    .sync = plain_sync,
    .run = plain_run,
    .flush = plain_flush,
    .fini = free,
};

/* --------------------------------------------------- configuration */

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
    d->cut = hs_kconf_cuttable(&d->c);
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
        if (p->nparts > 1 && !d->gerr && !(d->gerr = calloc(1, sizeof *d->gerr))) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            break;
        }
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

/* The memory device d computes on: host for every device under cpu. */
static int mem_of(const hs__data *dm, int d)
{
    return dm->mode == HS__REAL_CPU ? HS_HOST_MEMORY : dm->w->platform.devices[d].memory;
}

/* Sets up the memory spaces: cuda's under HS__REAL_CUDA, plain ones else;
 * devmem caps each non-host memory (0: cuda's free memory, emu unbounded). */
static int open_memories(hs__data *dm, size_t devmem, hs_error *err)
{
    int rc;
    if (dm->mode == HS__REAL_CUDA) {
        if ((rc = hs__mem_cuda_new(dm->w, devmem, &dm->ops, &dm->mctx, err)) != 0)
            return rc;
    } else {
        plain *p = calloc(1, sizeof *p);
        if (!p)
            return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
        p->device_memory = devmem;
        dm->ops = &plain_ops;
        dm->mctx = p;
    }
    for (int m = 0; m < dm->nmem; m++) {
        dm->cap[m] = dm->ops->capacity(dm->mctx, m);
        dm->host_side[m] = (unsigned char)dm->ops->host_side(dm->mctx, m);
    }
    return HS_OK;
}

/* Threads a kernel on device d computes with: a cpu device's `cores`, else
 * the online processors shared evenly by the cpu devices (a CPU device
 * stands for a socket or a group of cores, DESIGN.md §1); an emulated gpu
 * computes on one thread.  Read once per run (sysconf reads /sys). */
static int cpu_threads(const hs__data *dm, int d)
{
    const hs_platform *pf = &dm->w->platform;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ncpu = 0;
    if (pf->devices[d].kind != HS_DEVICE_CPU)
        return 1;
    if (pf->devices[d].cores > 0)
        return pf->devices[d].cores;
    for (int i = 0; i < pf->ndevices; i++)
        ncpu += pf->devices[i].kind == HS_DEVICE_CPU;
    return online > ncpu ? (int)(online / ncpu) : 1;
}

/* Generating the inputs of typed tasks, spread over threads. */
typedef struct genpool {
    hs__data *dm;
    _Atomic size_t next;
} genpool;

static void *generate_some(void *arg)
{
    genpool *gp = arg;
    size_t t;
    while ((t = atomic_fetch_add(&gp->next, 1)) < gp->dm->g->ntasks) {
        dtask *d = &gp->dm->t[t];
        if (d->generated)
            hs_kfill(&d->c, d->before);
    }
    return NULL;
}

/* Makes every typed task's generated inputs in host memory before the run
 * starts (on all online processors): they stand for the data an application
 * holds on host, so making them must not occupy the devices during the run
 * (a large composition generates gigabytes).  The cost is host memory for
 * all of them at once; each task frees its own after its check. */
static int pregenerate(hs__data *dm, hs_error *err)
{
    genpool gp = {.dm = dm};
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t tid[64];
    int nthreads = online < 1 ? 1 : online > 64 ? 64 : (int)online, started = 0, rc = HS_OK;
    size_t typed = 0;
    atomic_init(&gp.next, 0);
    for (size_t t = 0; t < dm->g->ntasks && rc == HS_OK; t++) {
        dtask *d = &dm->t[t];
        if (!d->typed)
            continue;
        for (int i = 0; i < d->c.nbufs && rc == HS_OK; i++)
            if (d->c.bufs[i].mode & HS_KREAD)
                rc = dm->ops->alloc(dm->mctx, HS_HOST_MEMORY, d->c.bufs[i].bytes, &d->before[i],
                                    err);
        d->generated = rc == HS_OK;
        typed++;
    }
    if (rc != HS_OK || typed == 0)
        return rc;
    if ((size_t)nthreads > typed)
        nthreads = (int)typed;
    while (started < nthreads - 1 && pthread_create(&tid[started], NULL, generate_some, &gp) == 0)
        started++;
    generate_some(&gp); /* the calling thread helps, and finishes alone if none started */
    for (int k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
    return HS_OK;
}

int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                 size_t device_memory, hs__data **out, hs_error *err)
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
    dm->mode = mode;
    dm->nmem = w->platform.nmemories;
    nm = (size_t)dm->nmem;
    pthread_mutex_init(&dm->mu, NULL);
    pthread_mutex_init(&dm->group_mu, NULL);
    dm->t = calloc(n, sizeof *dm->t);
    dm->rep_pool = calloc(n * nm, sizeof *dm->rep_pool);
    dm->cap = calloc(nm, sizeof *dm->cap);
    dm->used = calloc(nm, sizeof *dm->used);
    dm->host_side = calloc(nm, 1);
    dm->threads = calloc((size_t)w->platform.ndevices, sizeof *dm->threads);
    dm->range = calloc(2 * (rg->ntasks ? rg->ntasks : 1), sizeof *dm->range);
    dm->r.nmemories = dm->nmem;
    dm->r.link_bytes = calloc(nm * nm, sizeof *dm->r.link_bytes);
    dm->r.link_us = calloc(nm * nm, sizeof *dm->r.link_us);
    dm->r.link_copies = calloc(nm * nm, sizeof *dm->r.link_copies);
    if (!dm->t || !dm->rep_pool || !dm->cap || !dm->used || !dm->host_side || !dm->threads ||
        !dm->range || !dm->r.link_bytes || !dm->r.link_us || !dm->r.link_copies) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
        goto fail;
    }
    for (int d = 0; d < w->platform.ndevices; d++)
        dm->threads[d] = cpu_threads(dm, d);
    for (size_t t = 0; t < g->ntasks; t++) {
        dm->t[t].rep = dm->rep_pool + t * nm;
        dm->t[t].pf_mem = -1;
    }
    if ((rc = open_memories(dm, device_memory, err)) != 0)
        goto fail;
    for (size_t t = 0; t < g->ntasks; t++)
        if ((rc = configure(dm, t, err)) != 0)
            goto fail;
    for (size_t t = 0; t < g->ntasks; t++) {
        wire(dm, t);
        dm->t[t].output = dm->t[t].typed && g->succ_off[t + 1] == g->succ_off[t];
    }
    if ((rc = part_ranges(dm, err)) != 0 || (rc = pregenerate(dm, err)) != 0)
        goto fail;
    *out = dm;
    return HS_OK;
fail:
    hs__data_free(dm);
    return rc;
}

/* ------------------------------------------- replicas (dm->mu held) */

static size_t result_bytes(const dtask *u)
{
    return u->c.bufs[u->result].bytes;
}

/* Where a task is: "APP#I/KERNEL (type)" for messages. */
static const char *task_name(const hs__data *dm, const dtask *d, char *buf, size_t size)
{
    int n = hs_task_id(dm->w, &dm->g->tasks[d - dm->t], buf, size);
    if (n >= 0 && (size_t)n + 3 < size)
        snprintf(buf + n, size - (size_t)n, " (%s)", d->c.type->name);
    return buf;
}

/* Frees u's replica on m once every copy into or out of it has ended. */
static void free_replica(hs__data *dm, dtask *u, int m)
{
    rep *r = &u->rep[m];
    size_t bytes = result_bytes(u);
    if (!r->p)
        return;
    dm->ops->sync(dm->mctx, r->ev, NULL);
    dm->ops->sync(dm->mctx, r->rd_ev, NULL);
    dm->ops->free(dm->mctx, m, r->p);
    dm->used[m] -= bytes ? bytes : 1;
    memset(r, 0, sizeof *r);
    dm->r.replicas_freed++;
}

static int fetch(hs__data *dm, dtask *u, int m, int soft, hs_error *err);

/* Evicts u's replica on m (unpinned): writes it back to host first when no
 * other memory holds a valid copy, so nothing is lost. */
static int evict(hs__data *dm, dtask *u, int m, hs_error *err)
{
    int rc, other = 0;
    for (int s = 0; s < dm->nmem; s++)
        other |= s != m && u->rep[s].p != NULL;
    if (!other) {
        if ((rc = fetch(dm, u, HS_HOST_MEMORY, 0, err)) != 0 ||
            (rc = dm->ops->sync(dm->mctx, u->rep[HS_HOST_MEMORY].ev, err)) != 0)
            return rc;
        dm->r.writebacks++;
    }
    free_replica(dm, u, m);
    dm->r.evictions++;
    return HS_OK;
}

/* Drops the pins a prefetch of d (not running) holds; returns how many. */
static int unpin_prefetch(hs__data *dm, dtask *d)
{
    int n = 0;
    for (int i = 0; d->pf_mem >= 0 && i < d->c.nbufs; i++)
        if (d->pinned[i]) {
            dm->t[d->feed[i]].rep[d->pf_mem].pins--;
            d->pinned[i] = 0;
            n++;
        }
    d->pf_mem = -1;
    return n;
}

/* Drops the pins of every prefetch onto memory m whose task has not
 * started, so that their replicas can be evicted; returns how many. */
static int cancel_prefetches(hs__data *dm, int m)
{
    int n = 0;
    for (size_t t = 0; t < dm->g->ntasks; t++)
        if (dm->t[t].pf_mem == m && !dm->t[t].running)
            n += unpin_prefetch(dm, &dm->t[t]);
    return n;
}

/* Evicts least recently used unpinned replicas from m until `bytes` more
 * fit; unless soft, then cancels prefetches and tries again.  0, 1 when
 * it cannot make room, or an error. */
static int make_room(hs__data *dm, int m, size_t bytes, int soft, hs_error *err)
{
    int rc, cancelled = soft;
    while (bytes > dm->cap[m] || dm->used[m] > dm->cap[m] - bytes) {
        dtask *victim = NULL;
        for (size_t t = 0; t < dm->g->ntasks; t++) {
            rep *r = &dm->t[t].rep[m];
            if (r->p && !r->pins && (!victim || r->used < victim->rep[m].used))
                victim = &dm->t[t];
        }
        if (victim) {
            if ((rc = evict(dm, victim, m, err)) != 0)
                return rc;
        } else if (cancelled || !cancel_prefetches(dm, m)) {
            return 1;
        } else {
            cancelled = 1;
        }
    }
    return 0;
}

/* Allocates `bytes` on m, evicting as needed (make_room); soft: 1 instead
 * of an error when there is no room. */
static int mem_alloc(hs__data *dm, int m, size_t bytes, int soft, void **p, hs_error *err)
{
    size_t b = bytes ? bytes : 1;
    int rc = make_room(dm, m, b, soft, err);
    if (rc < 0 || (rc == 1 && soft))
        return rc;
    if (rc == 1)
        return hs_error_set(err, HS_ENOMEM, "memory '%s' is full: %zu bytes wanted, %zu of "
                            "its %zu bytes held by running tasks",
                            dm->w->platform.memories[m], b, dm->used[m], dm->cap[m]);
    if ((rc = dm->ops->alloc(dm->mctx, m, b, p, err)) != 0)
        return rc;
    dm->used[m] += b;
    return HS_OK;
}

static void mem_free(hs__data *dm, int m, void *p, size_t bytes)
{
    dm->ops->free(dm->mctx, m, p);
    dm->used[m] -= bytes ? bytes : 1;
}

/* Makes a valid replica of u's result on memory m: starts a copy from host
 * when host has one, else from the first memory that does, counted on that
 * link.  soft: 1 when m has no room without cancelling prefetches. */
static int fetch(hs__data *dm, dtask *u, int m, int soft, hs_error *err)
{
    size_t bytes = result_bytes(u), link;
    rep *r = &u->rep[m], *src;
    void *p, *ev = NULL;
    int from = -1, rc;
    if (r->p) {
        r->used = ++dm->tick;
        return HS_OK;
    }
    if (u->rep[HS_HOST_MEMORY].p)
        from = HS_HOST_MEMORY;
    for (int s = 0; s < dm->nmem && from < 0; s++)
        if (u->rep[s].p)
            from = s;
    if (from < 0)
        return hs_error_set(err, HS_EINTERNAL, "data manager: a result has no valid replica");
    if ((rc = mem_alloc(dm, m, bytes, soft, &p, err)) != 0)
        return rc;
    src = &u->rep[from]; /* make_room evicts on m only: src stays */
    link = (size_t)from * (size_t)dm->nmem + (size_t)m;
    if ((rc = dm->ops->copy(dm->mctx, m, p, from, src->p, bytes, src->ev, &dm->r.link_us[link],
                            &ev, err)) != 0) {
        mem_free(dm, m, p, bytes);
        return rc;
    }
    if (ev)
        src->rd_ev = ev;
    *r = (rep){.p = p, .ev = ev, .used = ++dm->tick};
    dm->r.link_bytes[link] += (double)bytes;
    dm->r.link_copies[link]++;
    dm->r.replicas_allocated++;
    return HS_OK;
}

/* ------------------------------------------------------- running */

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

/* Gives d buffers on m (dm->mu held): the capacity check, then each fed
 * input's replica on m (fetched and pinned unless a prefetch did), read in
 * place or copied to a private buffer, then the other buffers. */
static int place_buffers(hs__data *dm, dtask *d, int m, hs_error *err)
{
    const hs_kconf *c = &d->c;
    size_t need = 0;
    char name[256];
    int rc = HS_OK;
    d->running = 1;
    d->mem = m;
    if (d->pf_mem != m)
        unpin_prefetch(dm, d);
    d->pf_mem = -1;
    for (int i = 0; i < c->nbufs; i++)
        need += c->bufs[i].bytes ? c->bufs[i].bytes : 1;
    if (need > dm->cap[m])
        return hs_error_set(err, HS_EINPUT, "kernel %s needs %zu bytes on memory '%s', whose "
                            "capacity is %zu bytes", task_name(dm, d, name, sizeof name), need,
                            dm->w->platform.memories[m], dm->cap[m]);
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        rep *ur;
        void *ev = NULL;
        if (!d->fed[i])
            continue;
        if (!d->pinned[i]) {
            if ((rc = fetch(dm, &dm->t[d->feed[i]], m, 0, err)) != 0)
                break;
            dm->t[d->feed[i]].rep[m].pins++;
            d->pinned[i] = 1;
        }
        ur = &dm->t[d->feed[i]].rep[m];
        ur->used = ++dm->tick;
        if (c->bufs[i].mode == HS_KREAD) {
            d->bufs[i] = ur->p;
            d->borrowed[i] = 1;
            ev = ur->ev;
        } else if ((rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, &d->bufs[i], err)) == 0 &&
                   (rc = dm->ops->copy(dm->mctx, m, d->bufs[i], m, ur->p, c->bufs[i].bytes,
                                       ur->ev, NULL, &ev, err)) == 0 &&
                   ev) {
            ur->rd_ev = ev;
        }
        if (rc == HS_OK && ev)
            d->wait[d->nwait++] = ev;
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if (!d->fed[i])
            rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, &d->bufs[i], err);
    return rc;
}

/* Prepares d to run on memory m: its buffers there (place_buffers), its
 * inputs generated on host and copied in; on a memory the CPU computes on,
 * waits for every copy.  Generating stands for inputs a real application
 * already holds in host memory, so when start_us is given the task's
 * measured start is read after it, before the copies. */
static int prepare(hs__data *dm, dtask *d, int m, const struct timespec *t0, double *start_us,
                   hs_error *err)
{
    const hs_kconf *c = &d->c;
    int rc;
    pthread_mutex_lock(&dm->mu);
    rc = place_buffers(dm, d, m, err);
    pthread_mutex_unlock(&dm->mu);
    if (rc == HS_OK && !d->generated) {
        for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
            if (c->bufs[i].mode & HS_KREAD)
                rc = dm->ops->alloc(dm->mctx, HS_HOST_MEMORY, c->bufs[i].bytes, &d->before[i],
                                    err);
        if (rc == HS_OK)
            hs_kfill(c, d->before);
    }
    d->generated = 0;
    if (rc != HS_OK)
        return rc;
    if (start_us)
        *start_us = hs__since_us(t0);
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        void *ev = NULL;
        if (d->fed[i] || !(c->bufs[i].mode & HS_KREAD))
            continue;
        rc = dm->ops->copy(dm->mctx, m, d->bufs[i], HS_HOST_MEMORY, d->before[i],
                           c->bufs[i].bytes, NULL, NULL, &ev, err);
        if (rc == HS_OK && ev)
            d->wait[d->nwait++] = ev;
    }
    if (dm->host_side[m]) {
        for (int i = 0; i < d->nwait && rc == HS_OK; i++)
            rc = dm->ops->sync(dm->mctx, d->wait[i], err);
        d->nwait = 0;
    }
    return rc;
}

/* Stores d's result buffer as the only valid replica, on memory m, pinned
 * until the check ended, and brings an output to host. */
static int store_result(hs__data *dm, dtask *d, int m, hs_error *err)
{
    int rc = HS_OK;
    pthread_mutex_lock(&dm->mu);
    for (int s = 0; s < dm->nmem; s++)
        free_replica(dm, d, s);
    d->rep[m] = (rep){.p = d->bufs[d->result], .pins = 1, .used = ++dm->tick};
    d->bufs[d->result] = NULL;
    d->result_pinned = 1;
    dm->r.replicas_allocated++;
    if (d->output && m != HS_HOST_MEMORY &&
        (rc = fetch(dm, d, HS_HOST_MEMORY, 0, err)) == 0)
        rc = dm->ops->sync(dm->mctx, d->rep[HS_HOST_MEMORY].ev, err);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* A host copy of `bytes` at p on memory m into dst (allocated when *dst is
 * NULL), for a check: counted in check_bytes only. */
static int check_copy(hs__data *dm, void **dst, int m, const void *p, void *after, size_t bytes,
                      hs_error *err)
{
    void *ev = NULL;
    int rc;
    if (!*dst && !(*dst = malloc(bytes ? bytes : 1)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for a check copy");
    if ((rc = dm->ops->copy(dm->mctx, HS_HOST_MEMORY, *dst, m, p, bytes, after, NULL, &ev,
                            err)) != 0 ||
        (rc = dm->ops->sync(dm->mctx, ev, err)) != 0)
        return rc;
    pthread_mutex_lock(&dm->mu);
    dm->r.check_bytes += (double)bytes;
    dm->r.check_copies++;
    pthread_mutex_unlock(&dm->mu);
    return HS_OK;
}

/* Checks d's run on m (after its end time): host copies of its fed inputs
 * (from a host replica when there is one) and of its written buffers. */
static int check(hs__data *dm, dtask *d, int m, hs_error *err)
{
    const hs_kconf *c = &d->c;
    void *after[HS_KMAX_BUFS] = {0}, *tmp[HS_KMAX_BUFS] = {0};
    int rc = HS_OK;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        rep *hr, *mr;
        const void *src;
        int from;
        void *ev;
        if (!d->fed[i])
            continue;
        pthread_mutex_lock(&dm->mu); /* both stay: consumers_left > 0, m's pinned */
        hr = &dm->t[d->feed[i]].rep[HS_HOST_MEMORY];
        mr = &dm->t[d->feed[i]].rep[m];
        from = hr->p ? HS_HOST_MEMORY : m;
        src = hr->p ? hr->p : mr->p;
        ev = hr->p ? hr->ev : mr->ev;
        pthread_mutex_unlock(&dm->mu);
        rc = check_copy(dm, &d->before[i], from, src, ev, c->bufs[i].bytes, err);
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        const void *p = i == d->result ? d->rep[m].p : d->bufs[i];
        if (i == d->result && d->output)
            after[i] = d->rep[HS_HOST_MEMORY].p;
        else if (dm->host_side[m])
            after[i] = (void *)p;
        else if (!(c->bufs[i].mode & HS_KWRITE))
            after[i] = d->before[i];
        else if ((rc = check_copy(dm, &tmp[i], m, p, NULL, c->bufs[i].bytes, err)) == 0)
            after[i] = tmp[i];
    }
    if (rc == HS_OK)
        rc = hs_kcheck(c, (const void *const *)d->before, (const void *const *)after, NULL,
                       err);
    for (int i = 0; i < c->nbufs; i++)
        free(tmp[i]);
    return rc;
}

/* After d ran on m (or failed at any step): drops its pins, counts its
 * consumption of each fed input (freeing a producer's replicas after its
 * last consumer), frees what nobody will read and its buffers. */
static void release(hs__data *dm, dtask *d, int m, int ok)
{
    const hs_kconf *c = &d->c;
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++) {
        dtask *u = &dm->t[d->feed[i]];
        if (!d->fed[i])
            continue;
        if (d->pinned[i])
            u->rep[m].pins--;
        d->pinned[i] = 0;
        if (--u->consumers_left == 0 && !u->output)
            for (int s = 0; s < dm->nmem; s++)
                free_replica(dm, u, s);
    }
    if (d->result_pinned) {
        d->rep[m].pins--;
        d->result_pinned = 0;
        if ((d->output && m != HS_HOST_MEMORY) || (!d->output && d->consumers_left == 0))
            free_replica(dm, d, m);
    }
    for (int i = 0; i < c->nbufs; i++) {
        if (d->bufs[i] && !d->borrowed[i])
            mem_free(dm, m, d->bufs[i], c->bufs[i].bytes);
        d->bufs[i] = NULL;
        d->borrowed[i] = 0;
    }
    d->nwait = 0;
    d->running = 0;
    d->ran = 1;
    dm->r.typed++;
    dm->r.checked += ok;
    pthread_mutex_unlock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++) {
        if (d->before[i])
            dm->ops->free(dm->mctx, HS_HOST_MEMORY, d->before[i]);
        d->before[i] = NULL;
    }
}

/* After the kernel ran (rc its status): stores the result on m, reads the
 * end time, checks the kernel, releases everything. */
static int finish(hs__data *dm, dtask *d, int m, int rc, const struct timespec *t0,
                  double *end_us, hs_error *err)
{
    if (rc == HS_OK && d->result >= 0)
        rc = store_result(dm, d, m, err);
    *end_us = hs__since_us(t0);
    if (rc == HS_OK)
        rc = check(dm, d, m, err);
    release(dm, d, m, rc == HS_OK);
    return rc;
}

/* Byte span [*off, *off + *len) of buffer i that items [b, e) of d touch:
 * hs_kspan's for a type cut by items, the whole buffer for one that is not
 * splittable (its part 0 runs every item). */
static void part_span(const dtask *d, int i, size_t b, size_t e, size_t *off, size_t *len)
{
    if (d->cut) {
        hs_kspan(&d->c, i, b, e, off, len);
    } else {
        *off = 0;
        *len = d->c.bufs[i].bytes;
    }
}

/* Copies span [b, e) of every buffer of d with a mode bit in `modes`
 * between the group's host buffers and dev[] on memory m (to m when
 * `in`), counted on the link host -> m or m -> host; each copy's event goes
 * to ev[*nev].  dm->mu held. */
static int part_copies(hs__data *dm, dtask *d, int m, void *const *dev, size_t b, size_t e,
                       int modes, int in, void **ev, int *nev, hs_error *err)
{
    size_t from = in ? HS_HOST_MEMORY : (size_t)m, to = in ? (size_t)m : HS_HOST_MEMORY;
    size_t link = from * (size_t)dm->nmem + to;
    int rc = HS_OK;
    for (int i = 0; i < d->c.nbufs && rc == HS_OK; i++) {
        char *h = d->bufs[i], *x = dev[i];
        size_t off, len;
        void *done = NULL;
        if (!(d->c.bufs[i].mode & modes))
            continue;
        part_span(d, i, b, e, &off, &len);
        if (!len)
            continue;
        rc = in ? dm->ops->copy(dm->mctx, m, x + off, HS_HOST_MEMORY, h + off, len, NULL,
                                &dm->r.link_us[link], &done, err)
                : dm->ops->copy(dm->mctx, HS_HOST_MEMORY, h + off, m, x + off, len, NULL,
                                &dm->r.link_us[link], &done, err);
        if (rc != HS_OK)
            break;
        if (done)
            ev[(*nev)++] = done;
        dm->r.link_bytes[link] += (double)len;
        dm->r.link_copies[link]++;
    }
    return rc;
}

/* Items [b, e) of split task d on memory m (not host), computed by the
 * device of m (the CPU on an emulated one, device `dev`'s threads): a
 * whole-size buffer on m for each of d's buffers, so the kernel indexes
 * them as on host; the bytes [b, e) reads (part_span: buffers every range
 * reads, whole) copied in from the group's host buffers; the kernel; the
 * bytes it writes copied back into them.  The parts' ranges are disjoint,
 * and so are the spans written back: an in-place (HS_KRW) span is still
 * the input when copied in, and a BLAS output that cuBLAS or OpenBLAS
 * builds up in place on m reaches host within [b, e) only. */
static int run_on_memory(hs__data *dm, dtask *d, int m, int dev, size_t b, size_t e,
                         hs_error *err)
{
    const hs_kconf *c = &d->c;
    void *bufs[HS_KMAX_BUFS] = {0}, *in[HS_KMAX_BUFS], *out[HS_KMAX_BUFS];
    size_t need = 0;
    int nin = 0, nout = 0, rc = HS_OK;
    char name[256];
    for (int i = 0; i < c->nbufs; i++)
        need += c->bufs[i].bytes ? c->bufs[i].bytes : 1;
    pthread_mutex_lock(&dm->mu);
    if (need > dm->cap[m])
        rc = hs_error_set(err, HS_EINPUT, "part of kernel %s needs %zu bytes on memory '%s', "
                          "whose capacity is %zu bytes", task_name(dm, d, name, sizeof name),
                          need, dm->w->platform.memories[m], dm->cap[m]);
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, &bufs[i], err);
    if (rc == HS_OK)
        rc = part_copies(dm, d, m, bufs, b, e, HS_KREAD, 1, in, &nin, err);
    pthread_mutex_unlock(&dm->mu);
    if (rc == HS_OK && dm->host_side[m]) {
        for (int i = 0; i < nin && rc == HS_OK; i++)
            rc = dm->ops->sync(dm->mctx, in[i], err);
        if (rc == HS_OK)
            rc = hs_krun_cpu(c, bufs, b, e, dm->threads[dev], err);
    } else if (rc == HS_OK) {
        rc = dm->ops->run(dm->mctx, m, c, bufs, b, e, in, nin, err);
    }
    if (rc == HS_OK) {
        pthread_mutex_lock(&dm->mu);
        rc = part_copies(dm, d, m, bufs, b, e, HS_KWRITE, 0, out, &nout, err);
        pthread_mutex_unlock(&dm->mu);
    }
    /* every copy has ended before its buffers go, also after a failure */
    for (int i = 0; i < nin; i++)
        dm->ops->sync(dm->mctx, in[i], NULL);
    for (int i = 0; i < nout; i++) {
        int r = dm->ops->sync(dm->mctx, out[i], rc == HS_OK ? err : NULL);
        rc = rc == HS_OK ? r : rc;
    }
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++)
        if (bufs[i])
            mem_free(dm, m, bufs[i], c->bufs[i].bytes);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* One part of a split typed task.  Its parts share one set of buffers in
 * host memory: the first part to start prepares them there, its measured
 * start read after the inputs were generated, as a whole task's; a later
 * part starts once they are ready.  A part on a device of host memory runs
 * its items on those buffers in place; a part on any other memory runs them
 * there (run_on_memory), unless the type is splittable but cannot be cut
 * into byte spans (then on host, as the cpu backend does).  The last part
 * to end stores the result on host and checks the whole kernel. */
static int run_part(hs__data *dm, dtask *d, size_t t, int dev, const struct timespec *t0,
                    double *start_us, double *end_us, hs_error *err)
{
    size_t begin = dm->range[2 * t], end = dm->range[2 * t + 1];
    int m = mem_of(dm, dev), rc, last;
    pthread_mutex_lock(&dm->group_mu);
    if (!d->prepared) {
        d->prepared = 1;
        d->grc = prepare(dm, d, HS_HOST_MEMORY, t0, start_us, d->gerr);
    } else {
        *start_us = hs__since_us(t0);
    }
    rc = d->grc;
    pthread_mutex_unlock(&dm->group_mu);
    if (rc == HS_OK && begin < end) {
        if (m != HS_HOST_MEMORY && (d->cut || !d->c.splittable))
            rc = run_on_memory(dm, d, m, dev, begin, end, err);
        else
            rc = hs_krun_cpu(&d->c, d->bufs, begin, end, dm->threads[dev], err);
    }
    pthread_mutex_lock(&dm->group_mu);
    if (rc != HS_OK && d->grc == HS_OK) {
        d->grc = rc;
        *d->gerr = *err;
    }
    rc = d->grc;
    last = ++d->parts_done == d->nparts;
    pthread_mutex_unlock(&dm->group_mu);
    if (rc != HS_OK)
        *err = *d->gerr;
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
    int m = mem_of(dm, d);
    int rc;
    *start_us = hs__since_us(t0);
    if (task->typed && dm->rg->tasks[t].nparts > 1)
        return run_part(dm, task, t, d, t0, start_us, end_us, err);
    if (task->typed) {
        rc = prepare(dm, task, m, t0, start_us, err);
        if (rc == HS_OK && dm->host_side[m])
            rc = hs_krun_cpu(&task->c, task->bufs, 0, task->c.items, dm->threads[d], err);
        else if (rc == HS_OK)
            rc = dm->ops->run(dm->mctx, m, &task->c, task->bufs, 0, task->c.items, task->wait,
                              task->nwait, err);
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
    const hs_task *rt = &dm->rg->tasks[t];
    dtask *task = &dm->t[rt->origin];
    int m = mem_of(dm, d), rc = HS_OK;
    if (!task->typed || rt->nparts > 1 || dm->mode == HS__REAL_CPU)
        return HS_OK; /* parts compute on host; cpu moves nothing */
    pthread_mutex_lock(&dm->mu);
    if (!task->running && !task->ran) {
        if (task->pf_mem != m)
            unpin_prefetch(dm, task); /* moved to another device */
        task->pf_mem = m;
        for (int i = 0; i < task->c.nbufs && rc == HS_OK; i++) {
            dtask *u = &dm->t[task->feed[i]];
            int has = 0;
            if (!task->fed[i] || task->pinned[i])
                continue;
            for (int s = 0; s < dm->nmem; s++)
                has |= u->rep[s].p != NULL;
            if (!has)
                continue; /* its producer has not ended: hs__data_run fetches */
            if (!u->rep[m].p) {
                if ((rc = fetch(dm, u, m, 1, err)) == 1) {
                    rc = HS_OK; /* no room now: left for hs__data_run */
                    continue;
                }
                if (rc != HS_OK)
                    break;
                dm->r.prefetched++;
            }
            u->rep[m].pins++;
            task->pinned[i] = 1;
        }
    }
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err)
{
    size_t n = 0, k = 0;
    int rc = dm->ops->flush(dm->mctx, err);
    if (rc != HS_OK)
        return rc;
    for (size_t t = 0; t < dm->g->ntasks; t++)
        n += dm->t[t].output && dm->t[t].rep[HS_HOST_MEMORY].p;
    *r = dm->r;
    memset(&dm->r, 0, sizeof dm->r);
    if (n && !(r->outputs = calloc(n, sizeof *r->outputs)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        rep *h = &d->rep[HS_HOST_MEMORY];
        size_t bytes;
        if (!d->output || !h->p)
            continue;
        bytes = result_bytes(d);
        r->outputs[k].task = t;
        r->outputs[k].bytes = bytes;
        if (dm->ops == &plain_ops) {
            r->outputs[k++].data = h->p; /* the report owns it now */
        } else {
            /* pinned host memory: the report's outputs are malloc'd */
            if (!(r->outputs[k].data = malloc(bytes ? bytes : 1))) {
                r->noutputs = k;
                return hs_error_set(err, HS_ENOMEM, "out of memory for an output");
            }
            memcpy(r->outputs[k++].data, h->p, bytes);
            dm->ops->free(dm->mctx, HS_HOST_MEMORY, h->p);
        }
        memset(h, 0, sizeof *h);
    }
    r->noutputs = k;
    return HS_OK;
}

void hs__data_free(hs__data *dm)
{
    if (!dm)
        return;
    if (dm->ops)
        dm->ops->flush(dm->mctx, NULL);
    for (size_t t = 0; dm->t && t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        free(d->gerr);
        for (int s = 0; dm->ops && s < dm->nmem; s++)
            if (d->rep[s].p)
                dm->ops->free(dm->mctx, s, d->rep[s].p);
        for (int i = 0; dm->ops && i < HS_KMAX_BUFS; i++) {
            if (d->bufs[i] && !d->borrowed[i])
                dm->ops->free(dm->mctx, d->mem, d->bufs[i]);
            if (d->before[i])
                dm->ops->free(dm->mctx, HS_HOST_MEMORY, d->before[i]);
        }
    }
    if (dm->ops)
        dm->ops->fini(dm->mctx);
    pthread_mutex_destroy(&dm->mu);
    pthread_mutex_destroy(&dm->group_mu);
    free(dm->range);
    free(dm->t);
    free(dm->rep_pool);
    free(dm->cap);
    free(dm->used);
    free(dm->host_side);
    free(dm->threads);
    hs_run_report_free(&dm->r);
    free(dm);
}
