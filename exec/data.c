/* hetsched — the data manager of the real backends (exec/data.h): kernel
 * configurations, the edge-to-buffer rule, result replicas per memory with
 * valid copies, pins, copies on demand and ahead of time (prefetch), every
 * copy recorded with its measured times, LRU eviction under a memory
 * capacity, buffers from caching pools made ahead (exec/pool.h), and the
 * checks, held until the run has ended.  The memory spaces themselves are
 * behind exec/mem.h. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "exec/data.h"
#include "exec/mpi.h" /* hs__fnv */
#include "exec/mem.h"
#include "exec/pool.h"
#include "exec/remote.h"
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
     * running; borrowed[i]: bufs[i] belongs to someone else (a replica, or
     * its generated input before[i]) */
    unsigned char pinned[HS_KMAX_BUFS], borrowed[HS_KMAX_BUFS];
    /* pf_buf[i]: a prefetch placed bufs[i] on pf_mem and started copying
     * its first pf_done[i] bytes from before[i], the last of those copies'
     * event being pf_ev[i] */
    unsigned char pf_buf[HS_KMAX_BUFS];
    size_t pf_done[HS_KMAX_BUFS];
    void *pf_ev[HS_KMAX_BUFS];
    /* while it runs: its buffers on mem, its generated inputs on host (kept
     * for its check), the events the kernel waits on */
    void *bufs[HS_KMAX_BUFS], *before[HS_KMAX_BUFS];
    void *wait[2 * HS_KMAX_BUFS];
    int nwait;
    int generated;                  /* before[] holds its generated inputs */
    /* checks: `check` when this task's check is held for after the run;
     * holds counts the held checks that read its result (its own included):
     * one valid replica stays while holds > 0 */
    int check, holds;
    /* an in-place chain (chain_inputs): `chain`, the fed buffer a check may
     * make again from the chain's first input instead of holding it, or -1;
     * `next`, the task updating this one's result in place, or -1;
     * `handed`: a sampled check handed on to it along the chain;
     * `remade`: its held check makes input `chain` again */
    int chain;
    long next;
    int handed, remade;
    /* a split task: parts, its host buffers (GROUP_*), parts finished,
     * first failure, the copies of pieces' results to host still on their
     * way (group_mu); the error lives apart, as most tasks are whole and an
     * hs_error is 1.3 KB */
    int nparts, prepared, grc;
    size_t parts_done;              /* parts, or a run-time split's items */
    hs_error *gerr;
    void **outs;
    int nouts, capouts;
} dtask;

/* Records appended by one thread (a device's worker) without a lock. */
typedef struct evlog {
    hs_run_event *ev;
    size_t n, cap;
} evlog;

/* Copy records in fixed blocks, so that a record stays where it is while
 * an asynchronous copy's times are on their way (exec/mem.h). */
#define COPY_BLOCK 1024
typedef struct copies {
    hs_run_copy **blocks;
    size_t n, nblocks;
} copies;

/* A kind of kernel the sample mode has checked already: type, params and
 * the memory it ran on. */
typedef struct ckind {
    const hs_ktype *type;
    double p[HS_KMAX_PARAMS];
    int mem;
} ckind;

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
    hs__pool **pool;                /* [nmem] */
    size_t *cap, *used;             /* [nmem]: capacity, bytes allocated */
    unsigned char *host_side;       /* [nmem]: the CPU computes there */
    int *threads;                   /* [ndevices]: cpu_threads */
    const struct timespec *t0;      /* the run's clock (hs__data_start) */
    struct timespec born;           /* when hs__data_new started: set-up's clock */
    hs__pool_stats *pool_at_start;  /* [nmem] */
    unsigned long long tick;        /* LRU clock */
    pthread_mutex_t mu;             /* replicas, pins, usage, counters, copies */
    pthread_mutex_t group_mu;       /* the parts' fields of dtask */
    pthread_cond_t group_cv;        /* a group's host buffers are ready */
    evlog *logs;                    /* [2 ndevices + 2]: each worker's, the checker's
                                       (mu), the engine thread's steps, each
                                       completer's (hs__data_completer) */
    copies cp;
    /* checks */
    hs_check_mode check;
    size_t budget, retained;        /* bytes: what held checks may, and do, hold */
    size_t *held;                   /* tasks whose check is held, in order (mu) */
    size_t nheld, held_head;
    ckind *kinds;
    size_t nkinds, capkinds;
    pthread_t checker;              /* full mode: checks during the run over budget */
    int checker_up, checker_stop;
    pthread_cond_t checker_cv;
    int check_rc;                   /* first failed check, its message in check_err */
    hs_error check_err;
    hs_run_report r;                /* counters (links, tasks, replicas) */
    const hs__remote *remote;       /* devices of other nodes, or NULL */
    /* cost-only data (NULL when the workload has none; mu): when each
     * task's is on each memory ([g->ntasks][nmem], -1: not there), and
     * when each link's emulated copies end ([nmem][nmem]); vsource[t]: an
     * emulated copy moves t's data (its edge into an untyped task, or its
     * own output as an untyped task), so its end is recorded */
    double *varrive, *vfree;
    unsigned char *vsource;
};

void (*hs__data_test_hook)(const hs_kconf *c, void *const *bufs);
double hs__data_test_copy_us;

double hs__since_us(const struct timespec *t0)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)(ts.tv_sec - t0->tv_sec) + 1e-3 * (double)(ts.tv_nsec - t0->tv_nsec);
}

void hs__monotonic_in(struct timespec *ts, double us)
{
    long long ns;
    clock_gettime(CLOCK_MONOTONIC, ts);
    ns = (long long)ts->tv_nsec + (long long)(us * 1e3);
    ts->tv_sec += (time_t)(ns / 1000000000LL);
    ts->tv_nsec = (long)(ns % 1000000000LL);
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
    free(r->copies);
    free(r->events);
    memset(r, 0, sizeof *r);
}

const char *hs_run_copy_kind_name(int kind)
{
    static const char *const names[] = {"fetch", "input", "output", "writeback",
                                        "part", "private", "check"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "copy";
}

const char *hs_run_event_kind_name(int kind)
{
    static const char *const names[] = {"kernel", "wait",   "alloc",    "sleep", "evict",
                                        "check",  "held",   "launch", "complete", "step"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "event";
}

/* ------------------------------------------------ plain memory spaces */

/* Every memory is malloc'd RAM; copies are memcpy, done on return.  Under
 * emu, a memory but host stands for a device's own: its kernels are
 * "launched" (run at once on the calling thread, as an emulated gpu
 * computes on one) and "finished" later, the path a GPU's kernels take. */
typedef struct pkernel {
    double start_us, end_us;
} pkernel;

typedef struct plain {
    size_t device_memory;
    int devices;                /* emu: memories but host are devices' own */
    const struct timespec *t0;
    /* per memory, its kernels in flight, taken in turn by its one worker */
    pkernel (*kern)[HS_BACKEND_MAX_DEPTH];
    unsigned *next_kern;
    /* hs__data_test_copy_us: the events of copies into devices' memories,
     * newest first (under mu: any worker copies) */
    struct pevent *events;
    pthread_mutex_t mu;
} plain;

/* A copy's event under hs__data_test_copy_us: when the copy is done. */
typedef struct pevent {
    double done_us;
    struct pevent *next;
} pevent;

static void sleep_us(double us);

static double plain_now(const plain *pl)
{
    return pl->t0 ? hs__since_us(pl->t0) : 0;
}

/* Waits for the copy of event ev (see hs__data_test_copy_us). */
static void plain_wait(const plain *pl, void *ev)
{
    if (ev)
        sleep_us(((const pevent *)ev)->done_us - plain_now(pl));
}

static int plain_host_side(void *ctx, int m)
{
    return m == HS_HOST_MEMORY || !((plain *)ctx)->devices;
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

static int plain_start_clock(void *ctx, const struct timespec *t0, hs_error *err)
{
    (void)err;
    ((plain *)ctx)->t0 = t0;
    return HS_OK;
}

/* A copy is a memcpy, done on return; under emu with
 * hs__data_test_copy_us, one into a device's memory is done that long
 * after it started, as a GPU's copy is under way once enqueued: its event
 * says when, and what waits for it waits. */
static int plain_copy(void *ctx, int to, void *dst, int from, const void *src, size_t bytes,
                      void *after, hs_run_copy *rec, void **done, hs_error *err)
{
    plain *pl = ctx;
    double start = plain_now(pl);
    pevent *ev = NULL;
    (void)from, (void)err;
    plain_wait(pl, after);
    memcpy(dst, src, bytes);
    if (hs__data_test_copy_us > 0 && pl->devices && to != HS_HOST_MEMORY && done && pl->t0 &&
        (ev = malloc(sizeof *ev)) != NULL) { /* without it, done on return */
        ev->done_us = start + hs__data_test_copy_us;
        pthread_mutex_lock(&pl->mu);
        ev->next = pl->events;
        pl->events = ev;
        pthread_mutex_unlock(&pl->mu);
    }
    if (rec && pl->t0) {
        rec->start_us = start;
        rec->end_us = ev ? ev->done_us : plain_now(pl);
    }
    if (done)
        *done = ev;
    return HS_OK;
}

static int plain_sync(void *ctx, void *ev, hs_error *err)
{
    (void)err;
    plain_wait(ctx, ev);
    return HS_OK;
}

static int plain_ready(void *ctx, void *ev)
{
    return !ev || plain_now(ctx) >= ((const pevent *)ev)->done_us;
}

/* Only the memory's own worker launches on it: no lock.  Copies are done
 * when they return, so there is no event to wait for. */
static int plain_launch(void *ctx, int m, const hs_kconf *c, void *const *bufs, size_t begin,
                        size_t end, void *const *ev, int nev, void **k, hs_error *err)
{
    plain *pl = ctx;
    pkernel *kn = &pl->kern[m][pl->next_kern[m]++ % HS_BACKEND_MAX_DEPTH];
    int rc;
    for (int i = 0; i < nev; i++)
        plain_wait(pl, ev[i]);
    kn->start_us = plain_now(pl);
    rc = hs_krun_cpu(c, bufs, begin, end, 1, err);
    kn->end_us = plain_now(pl);
    *k = kn;
    return rc;
}

static int plain_finish(void *ctx, void *k, double *start_us, double *end_us, void **done,
                        hs_error *err)
{
    const pkernel *kn = k;
    (void)ctx, (void)err;
    *start_us = kn->start_us;
    *end_us = kn->end_us;
    *done = NULL;
    return HS_OK;
}

static int plain_flush(void *ctx, hs_error *err)
{
    (void)ctx, (void)err;
    return HS_OK;
}

static void plain_fini(void *ctx)
{
    plain *pl = ctx;
    while (pl->events) {
        pevent *ev = pl->events;
        pl->events = ev->next;
        free(ev);
    }
    pthread_mutex_destroy(&pl->mu);
    free(pl->kern);
    free(pl->next_kern);
    free(pl);
}

static const hs__mem_ops plain_ops = {
    .host_side = plain_host_side,
    .capacity = plain_capacity,
    .alloc = plain_alloc,
    .free = plain_free,
    .start_clock = plain_start_clock,
    .copy = plain_copy,
    .sync = plain_sync,
    .ready = plain_ready,
    .launch = plain_launch,
    .finish = plain_finish,
    .flush = plain_flush,
    .fini = plain_fini,
};

/* --------------------------------------------------- configuration */

/* Where a task is: "APP#I/KERNEL (type)" for messages. */
static const char *task_name(const hs__data *dm, size_t t, char *buf, size_t size)
{
    int n = hs_task_id(dm->w, &dm->g->tasks[t], buf, size);
    if (n >= 0 && (size_t)n + 3 < size && dm->t[t].typed)
        snprintf(buf + n, size - (size_t)n, " (%s)", dm->t[t].c.type->name);
    return buf;
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
    d->cut = hs_kconf_cuttable(&d->c);
    for (int i = 0; i < d->c.nbufs; i++)
        if (d->c.bufs[i].mode & HS_KWRITE)
            d->result = i;
    return HS_OK;
}

/* The rule of exec/data.h, which finalize resolved into each edge's feeds
 * (and checked: a fed buffer has its producer's result size): an edge
 * feeds the buffer its feeds names, when both ends are typed. */
static void wire(hs__data *dm, size_t t)
{
    const hs_graph *g = dm->g;
    const hs_edge *ed;
    dtask *d = &dm->t[t];
    if (!d->typed)
        return;
    HS_GRAPH_PRED_FOREACH(g, t, ed)
    {
        const hs_kernel_edge *ke = hs_edge_origin(dm->w, g, ed);
        dtask *u = &dm->t[ed->from];
        int i = ke ? ke->feeds : -1;
        if (i < 0 || i >= d->c.nbufs || !u->typed || u->result < 0 ||
            u->c.bufs[u->result].bytes != d->c.bufs[i].bytes)
            continue;
        d->feed[i] = ed->from;
        d->fed[i] = 1;
        u->consumers_left++;
    }
}

/* The longest in-place chain whose inputs a check makes again (after the
 * run, on the CPU): each link costs its kernel once more. */
#define CHAIN_MAX 8

/* Whether task t of dm (typed, wired) updates in place the result of a
 * task of the same type and params that feeds nothing else, up a chain of
 * at most CHAIN_MAX such links to a task whose every input is generated:
 * then *i is that buffer.  Such a chain (an increment chain) computes
 * each value from the chain's first input alone, so the input of a link
 * is made again from the seed by running the links before it, and a
 * check needs no copy of it. */
static int in_chain(const hs__data *dm, size_t t, int *i)
{
    const dtask *d = &dm->t[t];
    int links = 0;
    *i = -1;
    for (;;) {
        int fed = -1, nfed = 0;
        const dtask *u;
        for (int k = 0; k < d->c.nbufs; k++)
            if (d->fed[k]) {
                fed = k;
                nfed++;
            }
        if (nfed == 0)
            return links > 0;
        u = &dm->t[d->feed[fed]];
        if (nfed > 1 || d->c.bufs[fed].mode != HS_KRW || u->consumers_left != 1 ||
            u->c.type != d->c.type || memcmp(u->c.p, d->c.p, sizeof d->c.p) != 0 ||
            ++links > CHAIN_MAX)
            return 0;
        if (*i < 0)
            *i = fed;
        d = u;
    }
}

/* Marks each task's link in an in-place chain (dtask.chain and .next). */
static void chain_inputs(hs__data *dm)
{
    for (size_t t = 0; t < dm->g->ntasks; t++)
        dm->t[t].next = -1;
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        if (!d->typed || !in_chain(dm, t, &d->chain))
            d->chain = -1;
        else
            dm->t[d->feed[d->chain]].next = (long)t;
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

/* Whether device d is run here (not by another node's process). */
static int runs_here(const hs__data *dm, int d)
{
    return !dm->remote || dm->remote->ops->local(dm->remote->ctx, d);
}

/* Whether task t of the workload's graph runs here: only then are its
 * inputs made, its buffers reserved and its kernel warmed up before the
 * run. */
static int owned(const hs__data *dm, size_t t)
{
    return !dm->remote || dm->remote->ops->owns(dm->remote->ctx, t);
}

/* Sets up the memory spaces (cuda's under HS__REAL_CUDA, plain ones else;
 * devmem caps each non-host memory: 0 is cuda's free memory, emu unbounded)
 * and a pool over each. */
static int open_memories(hs__data *dm, size_t devmem, hs_error *err)
{
    int rc;
    if (dm->mode == HS__REAL_CUDA) {
        int nd = dm->w->platform.ndevices;
        unsigned char *local = dm->remote ? malloc((size_t)nd + 1) : NULL;
        if (dm->remote && !local)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        for (int d = 0; local && d < nd; d++)
            local[d] = (unsigned char)runs_here(dm, d);
        rc = hs__mem_cuda_new(dm->w, local, devmem, &dm->ops, &dm->mctx, err);
        free(local);
        if (rc != 0)
            return rc;
    } else {
        plain *p = calloc(1, sizeof *p);
        if (p)
            pthread_mutex_init(&p->mu, NULL);
        if (!p || !(p->kern = calloc((size_t)dm->nmem, sizeof *p->kern)) ||
            !(p->next_kern = calloc((size_t)dm->nmem, sizeof *p->next_kern))) {
            if (p)
                plain_fini(p);
            return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
        }
        p->device_memory = devmem;
        p->devices = dm->mode == HS__REAL_EMU;
        dm->ops = &plain_ops;
        dm->mctx = p;
    }
    for (int m = 0; m < dm->nmem; m++) {
        dm->cap[m] = dm->ops->capacity(dm->mctx, m);
        dm->host_side[m] = (unsigned char)dm->ops->host_side(dm->mctx, m);
        if ((rc = hs__pool_new(dm->ops, dm->mctx, m, &dm->pool[m], err)) != 0)
            return rc;
    }
    return HS_OK;
}

/* Threads a kernel on device d computes with: a cpu device's `cores`, else
 * the online processors shared evenly by the cpu devices (a CPU device
 * stands for a socket or a group of cores, DESIGN.md §1); an emulated gpu
 * computes on one.  Read once per run (sysconf reads /sys). */
static int cpu_threads(const hs__data *dm, int d)
{
    const hs_platform *pf = &dm->w->platform;
    long online = sysconf(_SC_NPROCESSORS_ONLN), spare;
    int ncpu = 0, ngpu = 0;
    if (pf->devices[d].kind != HS_DEVICE_CPU)
        return 1;
    if (pf->devices[d].cores > 0)
        return pf->devices[d].cores;
    for (int i = 0; i < pf->ndevices; i++) {
        ncpu += pf->devices[i].kind == HS_DEVICE_CPU;
        ngpu += pf->devices[i].kind != HS_DEVICE_CPU && dm->mode != HS__REAL_CPU;
    }
    spare = online - ngpu - (ngpu > 0); /* a core per GPU worker, one for the engine */
    return spare > ncpu ? (int)(spare / ncpu) : 1;
}

/* Runs fn(arg) on every online processor (at most 64 threads, at most
 * `jobs`), the calling thread among them: fn takes jobs until none is
 * left. */
static void on_every_processor(void *(*fn)(void *), void *arg, size_t jobs)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t tid[64];
    int nthreads = online < 1 ? 1 : online > 64 ? 64 : (int)online, started = 0;
    if ((size_t)nthreads > jobs)
        nthreads = jobs ? (int)jobs : 1;
    while (started < nthreads - 1 && pthread_create(&tid[started], NULL, fn, arg) == 0)
        started++;
    fn(arg); /* the calling thread helps, and finishes alone if none started */
    for (int k = 0; k < started; k++)
        pthread_join(tid[k], NULL);
}

typedef struct jobs {
    void (*fn)(void *arg, size_t k);
    void *arg;
    size_t n;
    _Atomic size_t next;
} jobs;

static void *take_jobs(void *arg)
{
    jobs *j = arg;
    size_t k;
    while ((k = atomic_fetch_add(&j->next, 1)) < j->n)
        j->fn(j->arg, k);
    return NULL;
}

void hs__each_job(void (*fn)(void *arg, size_t k), void *arg, size_t n)
{
    jobs j = {.fn = fn, .arg = arg, .n = n};
    atomic_init(&j.next, 0);
    if (n)
        on_every_processor(take_jobs, &j, n);
}

/* Filling typed kernels' inputs on every processor: a job fills one
 * configuration's inputs whole, or, where its type fills them by pieces
 * (hs_kfill_piece), one piece of FILL_PIECE bytes or so, so that the
 * gigabytes of one large kernel are shared by the threads (one thread
 * filled the two 256 MiB inputs of an 8192 x 8192 matadd in 0.8-0.95 s on
 * an H100 host). */
#define FILL_PIECE ((size_t)16 << 20)

typedef struct fill_job {
    const hs_kconf *c;
    void *const *bufs;
    size_t piece, pieces; /* pieces 0: the whole fill, by hs_kfill */
} fill_job;

typedef struct fill_jobs {
    fill_job *job;
    size_t n, cap;
} fill_jobs;

/* Adds the jobs that fill c's inputs into bufs (NULL ones are left).
 * HS_ENOMEM. */
static int add_fill(fill_jobs *f, const hs_kconf *c, void *const *bufs, hs_error *err)
{
    size_t pieces = hs_kfill_by_pieces(c) ? hs_kconf_bytes(c, HS_KREAD) / FILL_PIECE + 1 : 0;
    for (size_t k = 0; k < (pieces ? pieces : 1); k++) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 256;
            fill_job *nj = realloc(f->job, cap * sizeof *nj);
            if (!nj)
                return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
            f->job = nj;
            f->cap = cap;
        }
        f->job[f->n++] = (fill_job){c, bufs, k, pieces};
    }
    return HS_OK;
}

static void fill_one(void *arg, size_t k)
{
    const fill_job *x = &((fill_jobs *)arg)->job[k];
    if (x->pieces)
        hs_kfill_piece(x->c, x->bufs, x->piece, x->pieces);
    else
        hs_kfill(x->c, x->bufs);
}

/* Makes every typed task's generated inputs in host memory before the run
 * starts (on all online processors): they stand for the data an application
 * holds on host, so making them must not occupy the devices during the run
 * (a large composition generates gigabytes).  The cost is host memory for
 * all of them at once; each task gives its own back once it ran (or was
 * checked). */
static int pregenerate(hs__data *dm, hs_error *err)
{
    fill_jobs f = {0};
    int rc = HS_OK;
    for (size_t t = 0; t < dm->g->ntasks && rc == HS_OK; t++) {
        dtask *d = &dm->t[t];
        if (!d->typed || !owned(dm, t))
            continue;
        for (int i = 0; i < d->c.nbufs && rc == HS_OK; i++)
            if ((d->c.bufs[i].mode & HS_KREAD) && !d->fed[i])
                rc = hs__pool_get(dm->pool[HS_HOST_MEMORY], d->c.bufs[i].bytes, &d->before[i],
                                  NULL, err);
        if ((d->generated = rc == HS_OK))
            rc = add_fill(&f, &d->c, d->before, err);
    }
    if (rc == HS_OK)
        hs__each_job(fill_one, &f, f.n);
    free(f.job);
    return rc;
}

/* Bytes made ahead per memory at most: what a run commonly needs, without
 * pinning or committing much of the machine for nothing. */
#define RESERVE_MAX ((size_t)16 << 30)
/* Blocks of one size made ahead per device computing on a memory, or, on
 * a device's own memory, as many as RESERVE_SIZE_BYTES hold
 * (RESERVE_SIZE_BLOCKS at most) where that is more: a GPU's cholesky tiles
 * (4 MiB) outnumbered 8 blocks, and each one made during the run held its
 * worker 0.1 ms, 1 ms while a large copy to host went on beside the
 * cudaMalloc (on an H100, 12.7 ms of a 135-ms run of compute-large under
 * dmdar).  Host keeps 8 a device: its blocks are pinned, slower to make. */
#define RESERVE_PER_DEVICE 8
#define RESERVE_SIZE_BYTES ((size_t)256 << 20)
#define RESERVE_SIZE_BLOCKS 64

/* One size of buffer and how many blocks of it a memory may want. */
typedef struct want {
    size_t bytes, count;
} want;

static int by_bytes(const void *a, const void *b)
{
    const want *x = a, *y = b;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Makes blocks ahead on memory m: for each buffer size of the typed tasks
 * that may run there (every task, on a memory some device computes on;
 * host also keeps every output), as many blocks as tasks use that size,
 * up to RESERVE_PER_DEVICE per device computing there or, but on host,
 * RESERVE_SIZE_BYTES of them, RESERVE_SIZE_BLOCKS at most (all of the
 * outputs' on host), one of each size in turn until RESERVE_MAX or the
 * capacity's half.  What a run needs beyond comes from the memory during
 * the run (an ALLOC event of the trace). */
static int reserve(hs__data *dm, int m, hs_error *err)
{
    const hs_platform *pf = &dm->w->platform;
    want *ws = NULL;
    size_t nw = 0, budget = dm->cap[m] / 2, per = 0, total = 0;
    int rc = HS_OK, ndev = 0;
    for (int d = 0; d < pf->ndevices; d++)
        ndev += mem_of(dm, d) == m && runs_here(dm, d);
    if (ndev == 0 && m != HS_HOST_MEMORY)
        return HS_OK;
    per = (size_t)(ndev ? ndev : 1) * RESERVE_PER_DEVICE;
    if (budget > RESERVE_MAX)
        budget = RESERVE_MAX;
    if (!(ws = calloc(dm->g->ntasks * HS_KMAX_BUFS + 1, sizeof *ws)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        const dtask *d = &dm->t[t];
        for (int i = 0; d->typed && owned(dm, t) && i < d->c.nbufs; i++) {
            if (m == HS_HOST_MEMORY && d->c.bufs[i].mode == HS_KREAD && !d->fed[i])
                continue; /* its generated input, read where it is on host */
            ws[nw++] = (want){d->c.bufs[i].bytes ? d->c.bufs[i].bytes : 1,
                              d->output && i == d->result ? 0 : 1};
        }
    }
    qsort(ws, nw, sizeof *ws, by_bytes);
    {
        size_t k = 0;
        for (size_t i = 0; i < nw;) { /* merge equal sizes: counts capped, host's outputs not */
            size_t j = i, capped = 0, outputs = 0;
            size_t most = m == HS_HOST_MEMORY ? per : RESERVE_SIZE_BYTES / ws[i].bytes;
            if (most > RESERVE_SIZE_BLOCKS)
                most = RESERVE_SIZE_BLOCKS;
            if (most < per)
                most = per;
            for (; j < nw && ws[j].bytes == ws[i].bytes; j++) {
                capped += ws[j].count;
                outputs += !ws[j].count;
            }
            if (m != HS_HOST_MEMORY) { /* an output is made where its task runs too */
                capped += outputs;
                outputs = 0;
            }
            ws[k].bytes = ws[i].bytes;
            ws[k++].count = (capped < most ? capped : most) + outputs;
            i = j;
        }
        nw = k;
    }
    for (int more = 1; more && rc == HS_OK;) {
        more = 0;
        for (size_t i = 0; i < nw && rc == HS_OK; i++) {
            if (!ws[i].count || ws[i].bytes > budget - total)
                continue;
            rc = hs__pool_reserve(dm->pool[m], ws[i].bytes, 1, err);
            total += ws[i].bytes;
            ws[i].count--;
            more = 1;
        }
    }
    free(ws);
    return rc == HS_ENOMEM || rc == HS_EIO ? HS_OK : rc; /* made what it could */
}

/* A CPU warm-up runs a configuration only up to this many flops (a tenth
 * of a second or so): beyond, its first run's start-up costs are lost in
 * its own time. */
#define WARM_CPU_FLOPS 1e9

/* Runs configuration c once on memory m for device dev, on buffers from
 * m's pool: its inputs are `in` (host buffers, every readable one), copied
 * there when m is a device's.  A kernel that a split may cut (`cut`) runs
 * on a device's memory also on a few ranges of its items: a library picks
 * another kernel for fewer rows (cuBLAS), which CUDA loads at its first
 * launch (10.8 ms for the first 8-row sgemm chunk on an H100).  Errors are
 * left to the measured run. */
static void warm_one(hs__data *dm, const hs_kconf *c, void *const *in, int m, int dev, int cut)
{
    void *bufs[HS_KMAX_BUFS] = {0}, *ev[HS_KMAX_BUFS];
    double s, e;
    int nev = 0, ok = 1;
    for (int i = 0; i < c->nbufs && ok; i++) {
        ok = hs__pool_get(dm->pool[m], c->bufs[i].bytes, &bufs[i], NULL, NULL) == HS_OK;
        if (ok && (c->bufs[i].mode & HS_KREAD)) {
            void *done = NULL;
            ok = dm->ops->copy(dm->mctx, m, bufs[i], HS_HOST_MEMORY, in[i], c->bufs[i].bytes,
                               NULL, NULL, &done, NULL) == HS_OK;
            if (done)
                ev[nev++] = done;
        }
    }
    if (ok && dm->host_side[m]) {
        for (int i = 0; i < nev; i++)
            dm->ops->sync(dm->mctx, ev[i], NULL);
        hs_krun_cpu(c, bufs, 0, c->items, dm->threads[dev], NULL);
    } else if (ok) {
        static const size_t part[] = {256, 64, 16, 4}; /* items / part[i] */
        void *k, *done;
        if (dm->ops->launch(dm->mctx, m, c, bufs, 0, c->items, ev, nev, &k, NULL) == HS_OK)
            dm->ops->finish(dm->mctx, k, &s, &e, &done, NULL);
        for (size_t i = 0; cut && c->splittable && i < sizeof part / sizeof *part; i++) {
            size_t n = c->items / part[i] ? c->items / part[i] : 1;
            if (dm->ops->launch(dm->mctx, m, c, bufs, 0, n, NULL, 0, &k, NULL) == HS_OK)
                dm->ops->finish(dm->mctx, k, &s, &e, &done, NULL);
        }
    }
    for (int i = 0; i < c->nbufs; i++)
        if (bufs[i])
            hs__pool_put(dm->pool[m], bufs[i], c->bufs[i].bytes, NULL);
}

/* Before the clock: runs each kernel configuration of the run once on every
 * device (CPU devices only those of at most WARM_CPU_FLOPS), so that what
 * a first call costs (CUDA loads a library's kernels lazily at their first
 * launch: a first 8192 x 8192 sgemm took 140 ms on an H100 against 21 ms;
 * OpenBLAS and the kernels' helper threads start) does not land on a
 * measured task. */
static void warm_up(hs__data *dm)
{
    const hs_platform *pf = &dm->w->platform;
    hs__pool *host = dm->pool[HS_HOST_MEMORY];
    size_t *first = malloc((dm->g->ntasks + 1) * sizeof *first), nfirst = 0;
    for (size_t t = 0; t < dm->g->ntasks && first; t++) {
        dtask *d = &dm->t[t];
        void *in[HS_KMAX_BUFS] = {0}, *tmp[HS_KMAX_BUFS] = {0};
        fill_jobs f = {0};
        int seen = 0, ok = 1;
        if (!d->typed || !owned(dm, t))
            continue;
        for (size_t u = 0; u < nfirst && !seen; u++) /* the configurations met so far */
            seen = dm->t[first[u]].c.type == d->c.type &&
                   memcmp(dm->t[first[u]].c.p, d->c.p, sizeof d->c.p) == 0;
        if (seen)
            continue;
        first[nfirst++] = t;
        /* its generated inputs, and fed ones made by the generator too, in
         * pinned buffers that the run may use again */
        for (int i = 0; i < d->c.nbufs && ok; i++) {
            if (!(d->c.bufs[i].mode & HS_KREAD))
                continue;
            if (d->before[i])
                in[i] = d->before[i];
            else if ((ok = hs__pool_get(host, d->c.bufs[i].bytes, &tmp[i], NULL, NULL) == HS_OK))
                in[i] = tmp[i];
        }
        if (ok && (ok = add_fill(&f, &d->c, tmp, NULL) == HS_OK)) /* the fed ones only */
            hs__each_job(fill_one, &f, f.n);
        free(f.job);
        for (int dev = 0; dev < pf->ndevices && ok; dev++) {
            const hs_task *wt = &dm->g->tasks[t];
            int m = mem_of(dm, dev);
            if (runs_here(dm, dev) && (!dm->host_side[m] || d->c.flops <= WARM_CPU_FLOPS))
                warm_one(dm, &d->c, in, m, dev,
                         dm->w->apps[wt->app].kernels[wt->kernel].splittable);
        }
        for (int i = 0; i < d->c.nbufs; i++)
            if (tmp[i])
                hs__pool_put(host, tmp[i], d->c.bufs[i].bytes, NULL);
    }
    free(first);
}

static int configure_all(hs__data *dm, hs_error *err)
{
    const hs_graph *g = dm->g;
    struct timespec t0;
    int rc;
    for (size_t t = 0; t < g->ntasks; t++)
        if ((rc = configure(dm, t, err)) != 0)
            return rc;
    for (size_t t = 0; t < g->ntasks; t++) {
        wire(dm, t);
        dm->t[t].output = dm->t[t].typed && g->succ_off[t + 1] == g->succ_off[t];
    }
    chain_inputs(dm);
    if ((rc = part_ranges(dm, err)) != 0)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = pregenerate(dm, err)) != 0)
        return rc;
    dm->r.inputs_us = hs__since_us(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int m = 0; m < dm->nmem; m++)
        if ((rc = reserve(dm, m, err)) != 0)
            return rc;
    dm->r.buffers_us = hs__since_us(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    warm_up(dm);
    dm->r.warmup_us = hs__since_us(&t0);
    return HS_OK;
}

static void *checker_main(void *arg);

/* Cost-only data: an untyped task computes nothing, so the bytes of its
 * edges in, its input_bytes and its output_bytes name data that no buffer
 * holds.  A run moves them as the executor's model does (DESIGN.md §1):
 * each is an emulated copy that occupies its link for hs_transfer_us,
 * queued behind the link's other emulated copies, from the producer's
 * memory (or host, once they are there) when the task is started on its
 * device, and the task's kernel (its sleep) waits for the last; a result
 * copied once serves every later reader on that memory; outputs go back to
 * host after the task's end.  Each is recorded as a measured copy.  Only
 * whole tasks of a run whose memories are separate (emu, cuda), on this
 * node; typed data move for real (the rest of this file). */
static int cost_only_data(hs__data *dm, hs_error *err)
{
    const hs_graph *g = dm->g;
    size_t nm = (size_t)dm->nmem;
    int any = 0;
    if (dm->mode == HS__REAL_CPU || dm->remote)
        return HS_OK;
    if (!(dm->vsource = calloc(g->ntasks ? g->ntasks : 1, 1)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
    for (size_t t = 0; t < g->ntasks; t++) {
        const hs_edge *ed;
        if (dm->t[t].typed)
            continue;
        any |= g->tasks[t].input_bytes > 0;
        if (g->tasks[t].output_bytes > 0)
            any = dm->vsource[t] = 1;
        HS_GRAPH_PRED_FOREACH(g, t, ed)
        if (ed->bytes > 0)
            any = dm->vsource[ed->from] = 1;
    }
    if (!any) {
        free(dm->vsource);
        dm->vsource = NULL;
        return HS_OK;
    }
    if (!(dm->varrive = malloc(g->ntasks * nm * sizeof *dm->varrive)) ||
        !(dm->vfree = calloc(nm * nm, sizeof *dm->vfree)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
    for (size_t i = 0; i < g->ntasks * nm; i++)
        dm->varrive[i] = -1;
    return HS_OK;
}

int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                 const hs_run_report *in, hs__data **out, hs_error *err)
{
    hs__data *dm = calloc(1, sizeof *dm);
    const hs_graph *rg = g;
    size_t n, nm, nd;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    int rc = HS_OK;
    if (!dm)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
    clock_gettime(CLOCK_MONOTONIC, &dm->born);
    g = &w->graph;
    n = g->ntasks ? g->ntasks : 1;
    dm->w = w;
    dm->g = g;
    dm->rg = rg;
    dm->mode = mode;
    dm->nmem = w->platform.nmemories;
    nm = (size_t)dm->nmem;
    nd = (size_t)w->platform.ndevices;
    pthread_mutex_init(&dm->mu, NULL);
    pthread_mutex_init(&dm->group_mu, NULL);
    pthread_cond_init(&dm->group_cv, NULL);
    pthread_cond_init(&dm->checker_cv, NULL);
    dm->check = in ? in->check : HS_CHECK_SAMPLE;
    dm->budget = in && in->check_budget ? in->check_budget : HS_CHECK_BUDGET;
    if (!(in && in->check_budget) && pages > 0 && psize > 0 &&
        (size_t)pages / 8 * (size_t)psize < dm->budget)
        dm->budget = (size_t)pages / 8 * (size_t)psize;
    dm->t = calloc(n, sizeof *dm->t);
    dm->rep_pool = calloc(n * nm, sizeof *dm->rep_pool);
    dm->pool = calloc(nm, sizeof *dm->pool);
    dm->pool_at_start = calloc(nm, sizeof *dm->pool_at_start);
    dm->cap = calloc(nm, sizeof *dm->cap);
    dm->used = calloc(nm, sizeof *dm->used);
    dm->host_side = calloc(nm, 1);
    dm->threads = calloc(nd ? nd : 1, sizeof *dm->threads);
    dm->logs = calloc(2 * nd + 2, sizeof *dm->logs);
    dm->held = calloc(n, sizeof *dm->held);
    dm->range = calloc(2 * (rg->ntasks ? rg->ntasks : 1), sizeof *dm->range);
    dm->r.nmemories = dm->nmem;
    dm->r.device_memory = in ? in->device_memory : 0; /* the report keeps what it was asked */
    dm->r.check = dm->check;
    dm->r.check_budget = dm->budget;
    dm->r.fail_device = in ? in->fail_device : 0;
    dm->r.fail_after = in ? in->fail_after : 0;
    dm->r.throttle_device = in ? in->throttle_device : 0;
    dm->r.throttle = in && in->throttle > 1 ? in->throttle : 0;
    dm->r.output_hashes_only = in ? in->output_hashes_only : 0;
    dm->remote = in ? in->remote : NULL;
    dm->r.link_bytes = calloc(nm * nm, sizeof *dm->r.link_bytes);
    dm->r.link_us = calloc(nm * nm, sizeof *dm->r.link_us);
    dm->r.link_copies = calloc(nm * nm, sizeof *dm->r.link_copies);
    if (!dm->t || !dm->rep_pool || !dm->pool || !dm->pool_at_start || !dm->cap || !dm->used ||
        !dm->host_side || !dm->threads || !dm->logs || !dm->held || !dm->range ||
        !dm->r.link_bytes || !dm->r.link_us || !dm->r.link_copies) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the data manager");
        goto fail;
    }
    for (size_t d = 0; d < nd; d++)
        dm->threads[d] = cpu_threads(dm, (int)d);
    /* a cpu device's kernel threads, a GPU's worker, and the thread that
     * runs the engine's steps while a GPU's kernels are in flight; a GPU's
     * launcher and completer (exec/cpu.c) count as one: while long kernels
     * run the launcher sleeps and the completer waits on the GPU; both
     * work only while tiny kernels come one after another */
    dm->r.processors = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (size_t d = 0; d < nd; d++)
        dm->r.threads += runs_here(dm, (int)d) ? dm->threads[d] : 0;
    for (size_t d = 0; d < nd && mode != HS__REAL_CPU; d++)
        if (w->platform.devices[d].kind != HS_DEVICE_CPU && runs_here(dm, (int)d)) {
            dm->r.threads++;
            break;
        }
    for (size_t t = 0; t < g->ntasks; t++) {
        dm->t[t].rep = dm->rep_pool + t * nm;
        dm->t[t].pf_mem = -1;
    }
    if ((rc = open_memories(dm, in ? in->device_memory : 0, err)) != 0 ||
        (rc = configure_all(dm, err)) != 0 || (rc = cost_only_data(dm, err)) != 0)
        goto fail;
    if (dm->check == HS_CHECK_FULL) {
        if (pthread_create(&dm->checker, NULL, checker_main, dm) != 0) {
            rc = hs_error_set(err, HS_EIO, "cannot start the checker thread");
            goto fail;
        }
        dm->checker_up = 1;
    }
    *out = dm;
    return HS_OK;
fail:
    hs__data_free(dm);
    return rc;
}

int hs__data_sync(hs__data *dm, struct timespec *t0, hs_error *err)
{
    return dm->remote ? dm->remote->ops->start(dm->remote->ctx, t0, err) : HS_OK;
}

int hs__data_start(hs__data *dm, const struct timespec *t0, hs_error *err)
{
    dm->t0 = t0;
    dm->r.setup_us = hs__since_us(&dm->born);
    for (int m = 0; m < dm->nmem; m++)
        hs__pool_get_stats(dm->pool[m], &dm->pool_at_start[m]);
    return dm->ops->start_clock(dm->mctx, t0, err);
}

/* ------------------------------------------------------- records */

static double now_us(const hs__data *dm)
{
    return dm->t0 ? hs__since_us(dm->t0) : 0.0;
}

/* The calling thread's log when it is a device's completer
 * (hs__data_completer): an index of dm->logs, or -1. */
static _Thread_local int completer_log = -1;

void hs__data_completer(hs__data *dm, int d)
{
    completer_log = dm->w->platform.ndevices + 2 + d;
}

/* Appends an event to the calling thread's log: device d's (written by its
 * worker alone), its completer's, the engine thread's steps (d -1), or the
 * checker's (d -1, under dm->mu); `task` is a task of the graph run, or of
 * w->graph for evictions and checks.  Best effort: an event that finds no
 * memory is dropped. */
static void log_event(hs__data *dm, int d, int kind, long task, double start, double end,
                      double bytes)
{
    int nd = dm->w->platform.ndevices;
    evlog *l = &dm->logs[completer_log >= 0 ? completer_log
                         : d >= 0           ? d
                                            : nd + (kind == HS_EV_STEP)];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        hs_run_event *ne = realloc(l->ev, cap * sizeof *ne);
        if (!ne)
            return;
        l->ev = ne;
        l->cap = cap;
    }
    l->ev[l->n] = (hs_run_event){.device = d, .kind = kind, .task = -1,
                                 .start_us = start, .end_us = end, .bytes = bytes};
    if (task >= 0 && kind != HS_EV_EVICT && kind != HS_EV_CHECK) { /* a task of the run */
        l->ev[l->n].task = (long)dm->rg->tasks[task].origin;
        l->ev[l->n].part = dm->rg->tasks[task].part;
    } else {
        l->ev[l->n].task = task; /* evictions and checks name whole tasks */
    }
    l->n++;
}

double hs__data_now(const hs__data *dm)
{
    return now_us(dm);
}

void hs__data_log(hs__data *dm, int d, int kind, long t, double start_us, double end_us)
{
    log_event(dm, d, kind, t, start_us, end_us, 0);
}

/* A new copy record (dm->mu held), counted on its link unless it is a
 * check's; NULL when out of memory (the copy then goes unrecorded).  datum
 * is a task of the workload's graph (whose data move), consumer one of the
 * graph run (a part, in a split graph) or -1. */
static hs_run_copy *new_copy(hs__data *dm, int from, int to, size_t bytes, long datum,
                             long consumer, int kind)
{
    copies *cp = &dm->cp;
    hs_run_copy *rec;
    if (cp->n == cp->nblocks * COPY_BLOCK) {
        hs_run_copy **nb = realloc(cp->blocks, (cp->nblocks + 1) * sizeof *nb);
        if (!nb)
            return NULL;
        cp->blocks = nb;
        if (!(cp->blocks[cp->nblocks] = calloc(COPY_BLOCK, sizeof **cp->blocks)))
            return NULL;
        cp->nblocks++;
    }
    rec = &cp->blocks[cp->n / COPY_BLOCK][cp->n % COPY_BLOCK];
    cp->n++;
    *rec = (hs_run_copy){.from = from, .to = to, .bytes = (double)bytes, .datum = datum,
                         .consumer = -1, .kind = kind};
    if (consumer >= 0) {
        rec->consumer = (long)dm->rg->tasks[consumer].origin;
        rec->part = dm->rg->tasks[consumer].part;
    }
    if (kind == HS_COPY_CHECK) {
        dm->r.check_bytes += (double)bytes;
        dm->r.check_copies++;
    } else if (from != to) { /* a link moves it */
        size_t link = (size_t)from * (size_t)dm->nmem + (size_t)to;
        dm->r.link_bytes[link] += (double)bytes;
        dm->r.link_copies[link]++;
    }
    return rec;
}

/* A recorded copy (dm->mu held) */
static int copy(hs__data *dm, int to, void *dst, int from, const void *src, size_t bytes,
                void *after, long datum, long consumer, int kind, void **done, hs_error *err)
{
    hs_run_copy *rec = new_copy(dm, from, to, bytes, datum, consumer, kind);
    return dm->ops->copy(dm->mctx, to, dst, from, src, bytes, after, rec, done, err);
}

/* ------------------------------------------- replicas (dm->mu held) */

static size_t result_bytes(const dtask *u)
{
    return u->c.bufs[u->result].bytes;
}

/* Gives u's replica on m back to its pool; the pool hands it out again
 * once the last copy into or out of it has ended. */
static void free_replica(hs__data *dm, dtask *u, int m)
{
    rep *r = &u->rep[m];
    size_t bytes = result_bytes(u);
    if (!r->p)
        return;
    hs__pool_put(dm->pool[m], r->p, bytes, r->rd_ev ? r->rd_ev : r->ev);
    dm->used[m] -= bytes ? bytes : 1;
    memset(r, 0, sizeof *r);
    dm->r.replicas_freed++;
}

/* u's result is no longer read by its consumers: every replica goes, but an
 * output's host one, and one (host's if it has one) while checks hold it. */
static void drop_result(hs__data *dm, dtask *u)
{
    int keep = -1;
    if (u->output)
        keep = HS_HOST_MEMORY;
    else if (u->holds > 0)
        for (int s = 0; s < dm->nmem && keep < 0; s++)
            if (u->rep[s].p)
                keep = s;
    for (int s = 0; s < dm->nmem; s++)
        if (s != keep)
            free_replica(dm, u, s);
}

static int fetch(hs__data *dm, dtask *u, int m, int soft, long consumer, int kind, int dev,
                 hs_error *err);

/* Evicts u's replica on m (unpinned): writes it back to host first when no
 * other memory holds a valid copy, so nothing is lost. */
static int evict(hs__data *dm, dtask *u, int m, int dev, hs_error *err)
{
    double start = now_us(dm);
    int rc, other = 0;
    for (int s = 0; s < dm->nmem; s++)
        other |= s != m && u->rep[s].p != NULL;
    if (!other) {
        if ((rc = fetch(dm, u, HS_HOST_MEMORY, 0, -1, HS_COPY_WRITEBACK, dev, err)) != 0 ||
            (rc = dm->ops->sync(dm->mctx, u->rep[HS_HOST_MEMORY].ev, err)) != 0)
            return rc;
        dm->r.writebacks++;
    }
    free_replica(dm, u, m);
    dm->r.evictions++;
    log_event(dm, dev, HS_EV_EVICT, (long)(u - dm->t), start, now_us(dm),
              (double)result_bytes(u));
    return HS_OK;
}

static void mem_free(hs__data *dm, int m, void *p, size_t bytes, void *last_use);

/* Drops what a prefetch of d (not running) holds: its pins on replicas and
 * the buffers of its generated inputs; returns how many. */
static int drop_prefetch(hs__data *dm, dtask *d)
{
    int n = 0;
    for (int i = 0; d->pf_mem >= 0 && i < d->c.nbufs; i++) {
        if (d->pinned[i]) {
            dm->t[d->feed[i]].rep[d->pf_mem].pins--;
            d->pinned[i] = 0;
            n++;
        }
        if (d->pf_buf[i]) {
            mem_free(dm, d->pf_mem, d->bufs[i], d->c.bufs[i].bytes, d->pf_ev[i]);
            d->bufs[i] = NULL;
            d->pf_buf[i] = 0;
            d->pf_done[i] = 0;
            n++;
        }
    }
    d->pf_mem = -1;
    return n;
}

/* Drops every prefetch onto memory m whose task has not started, so that
 * their replicas can be evicted and their buffers reused; returns how many
 * pins and buffers it let go. */
static int cancel_prefetches(hs__data *dm, int m)
{
    int n = 0;
    for (size_t t = 0; t < dm->g->ntasks; t++)
        if (dm->t[t].pf_mem == m && !dm->t[t].running)
            n += drop_prefetch(dm, &dm->t[t]);
    return n;
}

/* Evicts least recently used unpinned replicas from m until `bytes` more
 * fit; unless soft, then cancels prefetches and tries again.  0, 1 when
 * it cannot make room, or an error. */
static int make_room(hs__data *dm, int m, size_t bytes, int soft, int dev, hs_error *err)
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
            if ((rc = evict(dm, victim, m, dev, err)) != 0)
                return rc;
        } else if (cancelled || !cancel_prefetches(dm, m)) {
            return 1;
        } else {
            cancelled = 1;
        }
    }
    return 0;
}

/* A buffer of `bytes` on m from its pool, evicting as needed (make_room);
 * soft: 1 instead of an error when there is no room.  A buffer the pool did
 * not hold is an ALLOC event of device dev. */
static int mem_alloc(hs__data *dm, int m, size_t bytes, int soft, int dev, void **p,
                     hs_error *err)
{
    size_t b = bytes ? bytes : 1;
    double start = now_us(dm);
    int rc = make_room(dm, m, b, soft, dev, err), missed = 0;
    if (rc < 0 || (rc == 1 && soft))
        return rc;
    if (rc == 1)
        return hs_error_set(err, HS_ENOMEM, "memory '%s' is full: %zu bytes wanted, %zu of "
                            "its %zu bytes held by running tasks",
                            dm->w->platform.memories[m], b, dm->used[m], dm->cap[m]);
    if ((rc = hs__pool_get(dm->pool[m], b, p, &missed, err)) != 0)
        return rc;
    if (missed && dm->t0)
        log_event(dm, dev, HS_EV_ALLOC, -1, start, now_us(dm), (double)b);
    dm->used[m] += b;
    return HS_OK;
}

/* Gives a buffer back to m's pool once `last_use` has happened. */
static void mem_free(hs__data *dm, int m, void *p, size_t bytes, void *last_use)
{
    hs__pool_put(dm->pool[m], p, bytes, last_use);
    dm->used[m] -= bytes ? bytes : 1;
}

/* Makes a valid replica of u's result on memory m: starts a copy from host
 * when host has one, else from the first memory that does, recorded as a
 * copy of `kind` for task `consumer` of the graph run (or -1).  soft: 1
 * when m has no room without cancelling prefetches. */
static int fetch(hs__data *dm, dtask *u, int m, int soft, long consumer, int kind, int dev,
                 hs_error *err)
{
    size_t bytes = result_bytes(u);
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
    if ((rc = mem_alloc(dm, m, bytes, soft, dev, &p, err)) != 0)
        return rc;
    src = &u->rep[from]; /* make_room evicts on m only: src stays */
    if ((rc = copy(dm, m, p, from, src->p, bytes, src->ev, (long)(u - dm->t), consumer, kind,
                   &ev, err)) != 0) {
        mem_free(dm, m, p, bytes, NULL);
        return rc;
    }
    if (ev)
        src->rd_ev = ev;
    *r = (rep){.p = p, .ev = ev, .used = ++dm->tick};
    dm->r.replicas_allocated++;
    return HS_OK;
}

/* ------------------------------------------------------- checks */

/* Whether d is the first kernel of its type and params on memory m; it is
 * recorded as checked (dm->mu held). */
static int sampled(hs__data *dm, const dtask *d, int m)
{
    int seen = 0;
    for (size_t k = 0; k < dm->nkinds && !seen; k++)
        seen = dm->kinds[k].type == d->c.type && dm->kinds[k].mem == m &&
               memcmp(dm->kinds[k].p, d->c.p, sizeof d->c.p) == 0;
    if (!seen) {
        if (dm->nkinds == dm->capkinds) {
            size_t cap = dm->capkinds ? 2 * dm->capkinds : 16;
            ckind *nk = realloc(dm->kinds, cap * sizeof *nk);
            if (nk) {
                dm->kinds = nk;
                dm->capkinds = cap;
            }
        }
        if (dm->nkinds < dm->capkinds) {
            ckind *k = &dm->kinds[dm->nkinds++];
            k->type = d->c.type;
            memcpy(k->p, d->c.p, sizeof k->p);
            k->mem = m;
        }
    }
    return !seen;
}

/* Whether d, about to run on memory m, keeps what its check needs until
 * the run has ended (dm->mu held): sample mode checks the first kernel of
 * each type and params on each memory, full mode every one.  In sample
 * mode, a checked task whose result the next link of an in-place chain
 * updates hands its check on to that link (dtask.handed), and so on to the
 * chain's last link, whose check makes its input again (dtask.remade):
 * holding the result would make the next link copy it first, on the
 * worker's path (a 4 MB increment chain: 0.4-0.9 ms of a 1.6 ms run on a
 * 2-core VM); the last link's check covers every link, as each computes
 * from the one before. */
static int want_check(hs__data *dm, dtask *d, int m)
{
    if (dm->check == HS_CHECK_NONE)
        return 0;
    if (dm->check == HS_CHECK_FULL)
        return 1;
    if (!d->handed && !sampled(dm, d, m))
        return 0;
    if (d->next >= 0) {
        dm->t[d->next].handed = 1;
        return 0;
    }
    d->remade = d->chain >= 0;
    return 1;
}

/* Whether d's held check makes its input i again instead of holding it. */
static int remade_input(const dtask *d, int i)
{
    return d->remade && i == d->chain;
}

static size_t task_bytes(const dtask *d)
{
    size_t bytes = 0;
    for (int i = 0; i < d->c.nbufs; i++)
        bytes += d->c.bufs[i].bytes;
    return bytes;
}

/* Holds d's check (dm->mu held): its result and each fed input keep a
 * valid replica until the check, its generated inputs stay on host. */
static void hold_check(hs__data *dm, dtask *d)
{
    d->holds++;
    for (int i = 0; i < d->c.nbufs; i++)
        if (d->fed[i] && !remade_input(d, i))
            dm->t[d->feed[i]].holds++;
    dm->retained += task_bytes(d);
    dm->held[dm->nheld++] = (size_t)(d - dm->t);
    if (dm->check == HS_CHECK_FULL && dm->retained > dm->budget)
        pthread_cond_signal(&dm->checker_cv);
}

/* A host view of u's result for a check: its host
 * replica, or a copy of another replica into *block, a block of the host
 * pool (the caller's to give back: result_bytes(u) bytes).  The replica is
 * pinned while it is copied.  The block is pinned memory under cuda: into
 * a malloc'd one, CUDA copied synchronously while dm->mu was held, and the
 * checks of a large composition waited on each other's copies (about 1 s
 * after the run on an H100, each check 0.5 s). */
static int check_view(hs__data *dm, dtask *u, const void **view, void **block, hs_error *err)
{
    size_t bytes = result_bytes(u);
    rep *r;
    void *ev = NULL;
    int from = -1, rc;
    pthread_mutex_lock(&dm->mu);
    if (u->rep[HS_HOST_MEMORY].p)
        from = HS_HOST_MEMORY;
    for (int s = 0; s < dm->nmem && from < 0; s++)
        if (u->rep[s].p)
            from = s;
    if (from < 0) {
        pthread_mutex_unlock(&dm->mu);
        return hs_error_set(err, HS_EINTERNAL, "data manager: a checked result has no replica");
    }
    r = &u->rep[from];
    r->pins++;
    pthread_mutex_unlock(&dm->mu);
    if (from == HS_HOST_MEMORY) {
        rc = dm->ops->sync(dm->mctx, r->ev, err);
        *view = r->p;
    } else if ((rc = hs__pool_get(dm->pool[HS_HOST_MEMORY], bytes, block, NULL, err)) == HS_OK) {
        pthread_mutex_lock(&dm->mu);
        rc = copy(dm, HS_HOST_MEMORY, *block, from, r->p, bytes, r->ev, (long)(u - dm->t), -1,
                  HS_COPY_CHECK, &ev, err);
        pthread_mutex_unlock(&dm->mu);
        if (rc == HS_OK)
            rc = dm->ops->sync(dm->mctx, ev, err);
        *view = *block;
    }
    pthread_mutex_lock(&dm->mu);
    r->pins--;
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* Drops one check's hold on u (dm->mu held). */
static void unhold(hs__data *dm, dtask *u)
{
    if (--u->holds == 0 && u->consumers_left == 0)
        drop_result(dm, u);
}

/* Generated input i of c made again from its seed into a new block *tmp
 * (hs_kfill fills each buffer from a stream of its own, and leaves the
 * NULL ones alone). */
static int regenerate(const hs_kconf *c, int i, const void **view, void **tmp, hs_error *err)
{
    void *only[HS_KMAX_BUFS] = {0};
    if (!(*tmp = malloc(c->bufs[i].bytes ? c->bufs[i].bytes : 1)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for a check");
    only[i] = *tmp;
    hs_kfill(c, only);
    *view = *tmp;
    return HS_OK;
}

/* The result of in-place chain link u made again into a new block *out:
 * its inputs made again (the one before it, recursively: at most
 * CHAIN_MAX links, from the chain's first input's seed), then its kernel
 * run on the CPU (after the run: OpenBLAS's threads are left as they
 * are). */
static int remake(hs__data *dm, const dtask *u, void **out, hs_error *err)
{
    const hs_kconf *c = &u->c;
    void *bufs[HS_KMAX_BUFS] = {0}, *gen[HS_KMAX_BUFS] = {0};
    int rc = HS_OK;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        if (i == u->chain)
            rc = remake(dm, &dm->t[u->feed[i]], &bufs[i], err);
        else if (!(bufs[i] = malloc(c->bufs[i].bytes ? c->bufs[i].bytes : 1)))
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for a check");
        else if (c->bufs[i].mode & HS_KREAD)
            gen[i] = bufs[i];
    }
    if (rc == HS_OK) {
        hs_kfill(c, gen);
        rc = hs_krun_cpu(c, bufs, 0, c->items, 0, err);
    }
    for (int i = 0; i < c->nbufs; i++)
        if (i != u->result || rc != HS_OK)
            free(bufs[i]);
    *out = rc == HS_OK ? bufs[u->result] : NULL;
    return rc;
}

/* Checks held task t: host views of its fed inputs (or made again:
 * remake) and result, its generated inputs, hs_kcheck; then lets go of
 * everything it held.  On a failure the first message names the task. */
static int check_one(hs__data *dm, size_t t, hs_error *err)
{
    dtask *d = &dm->t[t];
    const hs_kconf *c = &d->c;
    const void *before[HS_KMAX_BUFS] = {0}, *after[HS_KMAX_BUFS] = {0};
    void *tmp[HS_KMAX_BUFS] = {0};               /* inputs made again */
    void *block[HS_KMAX_BUFS + 1] = {0};         /* copies of results: their views */
    double start = now_us(dm);
    int rc = HS_OK;
    char name[256];
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        if (remade_input(d, i)) {
            rc = remake(dm, &dm->t[d->feed[i]], &tmp[i], err);
            before[i] = tmp[i];
        } else if (d->fed[i])
            rc = check_view(dm, &dm->t[d->feed[i]], &before[i], &block[i], err);
        else if ((c->bufs[i].mode & HS_KREAD) && d->before[i])
            before[i] = d->before[i];
        else if (c->bufs[i].mode & HS_KREAD) /* updated in place on host: made again */
            rc = regenerate(c, i, &before[i], &tmp[i], err);
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        after[i] = before[i];
    if (rc == HS_OK)
        rc = check_view(dm, d, &after[d->result], &block[HS_KMAX_BUFS], err);
    if (rc == HS_OK)
        rc = hs_kcheck(c, before, after, NULL, err);
    if (rc != HS_OK && err) {
        hs_error inner = *err;
        hs_error_set(err, inner.code, "kernel %s: %s", task_name(dm, t, name, sizeof name),
                     inner.msg);
    }
    for (int i = 0; i < HS_KMAX_BUFS; i++) {
        free(tmp[i]);
        if (block[i])
            hs__pool_put(dm->pool[HS_HOST_MEMORY], block[i], result_bytes(&dm->t[d->feed[i]]),
                         NULL);
    }
    if (block[HS_KMAX_BUFS])
        hs__pool_put(dm->pool[HS_HOST_MEMORY], block[HS_KMAX_BUFS], result_bytes(d), NULL);
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++) {
        if (d->fed[i] && !remade_input(d, i))
            unhold(dm, &dm->t[d->feed[i]]);
        else if (d->before[i])
            hs__pool_put(dm->pool[HS_HOST_MEMORY], d->before[i], c->bufs[i].bytes, NULL);
        d->before[i] = NULL;
    }
    unhold(dm, d);
    d->check = 0;
    dm->retained -= task_bytes(d);
    dm->r.checked += rc == HS_OK;
    log_event(dm, -1, HS_EV_CHECK, (long)t, start, now_us(dm), 0);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* Keeps the first failed check's status and message. */
static void check_failed(hs__data *dm, int rc, const hs_error *err)
{
    pthread_mutex_lock(&dm->mu);
    if (!dm->check_rc) {
        dm->check_rc = rc;
        dm->check_err = *err;
    }
    pthread_mutex_unlock(&dm->mu);
}

/* Takes the oldest held check that nobody checks yet (dm->mu held), or
 * returns 0. */
static int next_held(hs__data *dm, size_t *t)
{
    if (dm->held_head == dm->nheld)
        return 0;
    *t = dm->held[dm->held_head++];
    return 1;
}

/* Full mode: while what the held checks hold is over the budget, checks
 * the oldest ones during the run. */
static void *checker_main(void *arg)
{
    hs__data *dm = arg;
    pthread_mutex_lock(&dm->mu);
    for (;;) {
        size_t t;
        while (!dm->checker_stop && dm->retained <= dm->budget)
            pthread_cond_wait(&dm->checker_cv, &dm->mu);
        if (dm->checker_stop)
            break;
        if (!next_held(dm, &t)) {
            pthread_cond_wait(&dm->checker_cv, &dm->mu);
            continue;
        }
        pthread_mutex_unlock(&dm->mu);
        {
            hs_error err = {0};
            int rc = check_one(dm, t, &err);
            if (rc != HS_OK)
                check_failed(dm, rc, &err);
        }
        pthread_mutex_lock(&dm->mu);
    }
    pthread_mutex_unlock(&dm->mu);
    return NULL;
}

static void stop_checker(hs__data *dm)
{
    if (!dm->checker_up)
        return;
    pthread_mutex_lock(&dm->mu);
    dm->checker_stop = 1;
    pthread_cond_signal(&dm->checker_cv);
    pthread_mutex_unlock(&dm->mu);
    pthread_join(dm->checker, NULL);
    dm->checker_up = 0;
}

/* Checks held tasks until none is left (one of the threads after the run). */
static void *check_some(void *arg)
{
    hs__data *dm = arg;
    for (;;) {
        size_t t;
        int got;
        hs_error err = {0};
        int rc;
        pthread_mutex_lock(&dm->mu);
        got = next_held(dm, &t);
        pthread_mutex_unlock(&dm->mu);
        if (!got)
            break;
        if ((rc = check_one(dm, t, &err)) != HS_OK)
            check_failed(dm, rc, &err);
    }
    return NULL;
}

int hs__data_verify(hs__data *dm, hs_error *err)
{
    struct timespec t0;
    int rc;
    stop_checker(dm);
    if ((rc = dm->ops->flush(dm->mctx, err)) != HS_OK)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    on_every_processor(check_some, dm, dm->nheld - dm->held_head);
    dm->r.check_us += hs__since_us(&t0);
    if (dm->check_rc && err)
        *err = dm->check_err;
    return dm->check_rc;
}

/* ------------------------------------------------------- running */

/* Takes us µs, as a cost-only task's kernel: sleeps all but the last
 * SPIN_US of it, then spins to the end.  A plain nanosleep overslept by
 * the thread's timer slack, ~50 µs (a 1.4 µs task took 74 µs on the H100
 * host), so the slack is set to 1 ns first; no system call at all for a
 * cost of 0 (empty tasks). */
#define SPIN_US 50.0
static void sleep_us(double us)
{
    struct timespec t0;
    if (!(us > 0))
        return;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (us > SPIN_US) {
        double rest = us - SPIN_US;
        struct timespec ts = {.tv_sec = (time_t)(rest / 1e6)};
        ts.tv_nsec = (long)((rest - 1e6 * (double)ts.tv_sec) * 1e3);
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    while (hs__since_us(&t0) < us)
        ;
}

/* us on device d, throttled (hs_run_report.throttle) or not. */
static double slowed(const hs__data *dm, int d, double us)
{
    return dm->r.throttle && d == dm->r.throttle_device ? us * dm->r.throttle : us;
}

/* Copies bytes [from, from + len) of d's generated input i from host to
 * its buffer on m, for task `consumer`; *ev gets the copy's event. */
static int copy_input(hs__data *dm, dtask *d, int i, int m, size_t from, size_t len,
                      long consumer, void **ev, hs_error *err)
{
    return copy(dm, m, (char *)d->bufs[i] + from, HS_HOST_MEMORY,
                (const char *)d->before[i] + from, len, NULL, -1, consumer, HS_COPY_INPUT, ev,
                err);
}

/* Gives generated input i of d a buffer on m and starts its copy from host
 * (dm->mu held).  On host, a buffer the kernel only reads is the generated
 * input itself (borrowed), and an updated one becomes d's own buffer
 * (nothing reads the input afterwards: the kernel updates it in place, and
 * it may become d's result): a held check makes the input again from its
 * seed (check_one), so that no copy of it sits on the worker's path;
 * otherwise a copy from host. */
static int place_generated(hs__data *dm, dtask *d, int i, int m, long consumer, int dev,
                           void **ev, hs_error *err)
{
    const hs_kbuf *b = &d->c.bufs[i];
    int rc;
    *ev = NULL;
    if (m == HS_HOST_MEMORY && b->mode == HS_KREAD) {
        d->bufs[i] = d->before[i];
        d->borrowed[i] = 1;
        return HS_OK;
    }
    if (m == HS_HOST_MEMORY) {
        d->bufs[i] = d->before[i];
        d->before[i] = NULL;
        dm->used[m] += b->bytes ? b->bytes : 1;
        return HS_OK;
    }
    if ((rc = mem_alloc(dm, m, b->bytes, 0, dev, &d->bufs[i], err)) != HS_OK)
        return rc;
    return copy_input(dm, d, i, m, 0, b->bytes, consumer, ev, err);
}

/* Whether d, about to run on m, may update in place the replica on m that
 * feeds its buffer i instead of a private copy of it (dm->mu held): d is
 * the producer's last reader (no other consumer left, no check holding
 * the result, not an output, d's own check does not keep that input: it
 * keeps none, or makes it again), d runs whole, and d's pin is the
 * replica's only one.  A private copy of a
 * 4 MB tile took about as long as a short kernel on the host; StarPU's
 * read-write access copies nothing either. */
static int takes_over(const hs__data *dm, const dtask *d, int i, int m)
{
    const dtask *u = &dm->t[d->feed[i]];
    return u->consumers_left == 1 && u->holds == 0 && !u->output &&
           (!d->check || remade_input(d, i)) &&
           d->nparts <= 1 && u->rep[m].pins == 1 && result_bytes(u) == d->c.bufs[i].bytes;
}

/* Gives d buffers on m (dm->mu held): the capacity check, then each fed
 * input's replica on m (fetched and pinned unless a prefetch did), read in
 * place, updated in place by its last reader (takes_over), or copied to a
 * private buffer, its generated inputs (placed by a prefetch, or now), then
 * the other buffers.  The copies' events go to d->wait. */
static int place_buffers(hs__data *dm, dtask *d, int m, long rt, int dev, hs_error *err)
{
    const hs_kconf *c = &d->c;
    size_t need = 0;
    char name[256];
    int rc = HS_OK;
    d->running = 1;
    d->mem = m;
    if (d->pf_mem != m)
        drop_prefetch(dm, d);
    d->pf_mem = -1;
    for (int i = 0; i < c->nbufs; i++)
        need += c->bufs[i].bytes ? c->bufs[i].bytes : 1;
    if (need > dm->cap[m])
        return hs_error_set(err, HS_EINPUT, "kernel %s needs %zu bytes on memory '%s', whose "
                            "capacity is %zu bytes",
                            task_name(dm, (size_t)(d - dm->t), name, sizeof name), need,
                            dm->w->platform.memories[m], dm->cap[m]);
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        rep *ur;
        void *ev = NULL;
        if (!d->fed[i])
            continue;
        if (!d->pinned[i]) {
            if ((rc = fetch(dm, &dm->t[d->feed[i]], m, 0, rt, HS_COPY_FETCH, dev, err)) != 0)
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
        } else if (takes_over(dm, d, i, m)) {
            /* the kernel updates the replica in place once the copies
             * writing and reading it are done; it is d's buffer now */
            d->bufs[i] = ur->p;
            if (ur->rd_ev)
                d->wait[d->nwait++] = ur->rd_ev;
            ev = ur->ev;
            ur->p = ur->ev = ur->rd_ev = NULL;
            dm->r.replicas_freed++;
            dm->r.in_place++;
        } else if ((rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, dev, &d->bufs[i], err)) == 0 &&
                   (rc = copy(dm, m, d->bufs[i], m, ur->p, c->bufs[i].bytes, ur->ev,
                              (long)d->feed[i], rt, HS_COPY_PRIVATE, &ev, err)) == 0 &&
                   ev) {
            ur->rd_ev = ev;
        }
        if (rc == HS_OK && ev)
            d->wait[d->nwait++] = ev;
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++) {
        void *ev = NULL;
        if (d->fed[i] || !(c->bufs[i].mode & HS_KREAD))
            continue;
        if (d->pf_buf[i]) { /* what no prefetch moved, after what they did */
            size_t done = d->pf_done[i];
            ev = d->pf_ev[i];
            if (done < c->bufs[i].bytes)
                rc = copy_input(dm, d, i, m, done, c->bufs[i].bytes - done, rt, &ev, err);
            d->pf_buf[i] = 0;
            d->pf_done[i] = 0;
        } else {
            rc = place_generated(dm, d, i, m, rt, dev, &ev, err);
        }
        if (rc == HS_OK && ev)
            d->wait[d->nwait++] = ev;
    }
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if (!(c->bufs[i].mode & HS_KREAD))
            rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, dev, &d->bufs[i], err);
    return rc;
}

/* Prepares d to run on memory m: decides whether its check is held, gives
 * it its buffers there (place_buffers), makes its inputs when they were not
 * made before the run; on a memory the CPU computes on, waits for every
 * copy (a WAIT event of device dev). */
static int prepare(hs__data *dm, dtask *d, int m, long rt, int dev, hs_error *err)
{
    const hs_kconf *c = &d->c;
    int rc = HS_OK;
    pthread_mutex_lock(&dm->mu);
    d->check = want_check(dm, d, m);
    pthread_mutex_unlock(&dm->mu);
    if (!d->generated) {
        for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
            if ((c->bufs[i].mode & HS_KREAD) && !d->fed[i] && !d->before[i])
                rc = hs__pool_get(dm->pool[HS_HOST_MEMORY], c->bufs[i].bytes, &d->before[i],
                                  NULL, err);
        if (rc == HS_OK)
            hs_kfill(c, d->before);
        d->generated = rc == HS_OK;
    }
    pthread_mutex_lock(&dm->mu);
    if (rc == HS_OK)
        rc = place_buffers(dm, d, m, rt, dev, err);
    pthread_mutex_unlock(&dm->mu);
    if (rc == HS_OK && dm->host_side[m] && d->nwait) {
        double start = now_us(dm);
        for (int i = 0; i < d->nwait && rc == HS_OK; i++)
            rc = dm->ops->sync(dm->mctx, d->wait[i], err);
        d->nwait = 0;
        log_event(dm, dev, HS_EV_WAIT, rt, start, now_us(dm), 0);
    }
    return rc;
}

/* Stores d's result buffer as the only valid replica, on memory m, pinned
 * until d is released, and starts bringing an output to host (a copy the
 * worker does not wait for: the run's makespan does). */
static int store_result(hs__data *dm, dtask *d, int m, long rt, int dev, hs_error *err)
{
    int rc = HS_OK;
    pthread_mutex_lock(&dm->mu);
    for (int s = 0; s < dm->nmem; s++)
        free_replica(dm, d, s);
    d->rep[m] = (rep){.p = d->bufs[d->result], .pins = 1, .used = ++dm->tick};
    d->bufs[d->result] = NULL;
    d->result_pinned = 1;
    dm->r.replicas_allocated++;
    if (d->output && m != HS_HOST_MEMORY)
        rc = fetch(dm, d, HS_HOST_MEMORY, 0, rt, HS_COPY_OUTPUT, dev, err);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* After d ran on m (or failed at any step): holds its check when `ok` and
 * chosen, drops its pins, counts its consumption of each fed input (a
 * producer's replicas go after its last consumer), gives back what nobody
 * will read: its buffers, its generated inputs unless its check holds them. */
static void release(hs__data *dm, dtask *d, int m, int ok)
{
    const hs_kconf *c = &d->c;
    void *last = d->nwait ? d->wait[d->nwait - 1] : NULL;
    pthread_mutex_lock(&dm->mu);
    if (ok && d->check)
        hold_check(dm, d);
    else
        d->check = 0;
    for (int i = 0; i < c->nbufs; i++) {
        dtask *u = &dm->t[d->feed[i]];
        if (!d->fed[i])
            continue;
        if (d->pinned[i])
            u->rep[m].pins--;
        d->pinned[i] = 0;
        if (--u->consumers_left == 0)
            drop_result(dm, u);
    }
    if (d->result_pinned) {
        d->rep[m].pins--;
        d->result_pinned = 0;
        if (d->output && m != HS_HOST_MEMORY)
            free_replica(dm, d, m);
        else if (!d->output && d->consumers_left == 0)
            drop_result(dm, d);
    }
    for (int i = 0; i < c->nbufs; i++) {
        if (d->bufs[i] && !d->borrowed[i])
            mem_free(dm, m, d->bufs[i], c->bufs[i].bytes, last);
        d->bufs[i] = NULL;
        d->borrowed[i] = 0;
        if (d->before[i] && !d->check) {
            hs__pool_put(dm->pool[HS_HOST_MEMORY], d->before[i], c->bufs[i].bytes, NULL);
            d->before[i] = NULL;
        }
    }
    d->nwait = 0;
    d->running = 0;
    d->ran = 1;
    dm->r.typed++;
    pthread_mutex_unlock(&dm->mu);
}

/* Sends d's result, stored on m, to the nodes that read it: from m itself,
 * or, from a GPU's memory, from a copy on this node's host memory (MPI
 * reads host memory), pinned while it is sent. */
static int send_result(hs__data *dm, dtask *d, int m, int dev, hs_error *err)
{
    const hs__remote *rm = dm->remote;
    int home = rm->ops->home(rm->ctx), rc = HS_OK;
    size_t t = (size_t)(d - dm->t);
    if (d->result < 0)
        return rm->ops->send(rm->ctx, t, NULL, 0, now_us(dm), err);
    if (dm->mode != HS__REAL_CUDA || dm->host_side[m])
        return rm->ops->send(rm->ctx, t, d->rep[m].p, result_bytes(d), now_us(dm), err);
    pthread_mutex_lock(&dm->mu);
    if ((rc = fetch(dm, d, home, 0, -1, HS_COPY_OUTPUT, dev, err)) == HS_OK)
        d->rep[home].pins++;
    pthread_mutex_unlock(&dm->mu);
    if (rc != HS_OK)
        return rc;
    if ((rc = dm->ops->sync(dm->mctx, d->rep[home].ev, err)) == HS_OK)
        rc = rm->ops->send(rm->ctx, t, d->rep[home].p, result_bytes(d), now_us(dm), err);
    pthread_mutex_lock(&dm->mu);
    d->rep[home].pins--;
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* After the kernel ran (rc its status): stores the result on m, sends it
 * where other nodes read it, and releases everything. */
static int finish(hs__data *dm, dtask *d, int m, int rc, long rt, int dev, hs_error *err)
{
    if (rc == HS_OK && d->result >= 0)
        rc = store_result(dm, d, m, rt, dev, err);
    if (rc == HS_OK && dm->remote) /* its result, pinned on m until released */
        rc = send_result(dm, d, m, dev, err);
    release(dm, d, m, rc == HS_OK);
    return rc;
}

/* Task t (whole) runs on device d of another node: waits for its message
 * when a task here follows it, and keeps its result as the only replica
 * here, on this node's host memory (every memory under cpu computes on
 * host), recorded as a copy from its owner's memory that started when the
 * owner sent it. */
static int receive(hs__data *dm, size_t t, hs__launch *l)
{
    const hs__remote *rm = dm->remote;
    dtask *u = &dm->t[t];
    const void *data;
    size_t bytes;
    double sent;
    int rc, home = rm->ops->home(rm->ctx), m = dm->mode == HS__REAL_CPU ? HS_HOST_MEMORY : home;
    void *p;
    hs_run_copy *rec;
    if ((rc = rm->ops->await(rm->ctx, t, &data, &bytes, &sent, &l->err)) != HS_OK)
        return l->rc = rc;
    l->start_us = l->end_us = now_us(dm);
    if (!data || !u->typed || u->result < 0)
        return HS_OK;
    if (bytes != result_bytes(u))
        return l->rc = hs_error_set(&l->err, HS_EIO, "a message of %zu bytes came for a result "
                                    "of %zu", bytes, result_bytes(u));
    pthread_mutex_lock(&dm->mu);
    if ((rc = mem_alloc(dm, m, bytes, 0, -1, &p, &l->err)) == HS_OK) {
        memcpy(p, data, bytes);
        u->rep[m] = (rep){.p = p, .used = ++dm->tick};
        u->ran = 1;
        dm->r.replicas_allocated++;
        if ((rec = new_copy(dm, rm->ops->origin(rm->ctx, t), home, bytes, (long)t, -1,
                            HS_COPY_FETCH)) != NULL) {
            rec->start_us = sent < l->end_us ? sent : l->end_us;
            rec->end_us = l->end_us;
        }
    }
    pthread_mutex_unlock(&dm->mu);
    return l->rc = rc;
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
 * `in`), recorded for part rt; each copy's event goes to ev[*nev].  dm->mu
 * held. */
static int part_copies(hs__data *dm, dtask *d, int m, void *const *dev, size_t b, size_t e,
                       int modes, int in, long rt, void **ev, int *nev, hs_error *err)
{
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
        rc = in ? copy(dm, m, x + off, HS_HOST_MEMORY, h + off, len, NULL, -1, rt,
                       HS_COPY_PART, &done, err)
                : copy(dm, HS_HOST_MEMORY, h + off, m, x + off, len, NULL, -1, rt,
                       HS_COPY_PART, &done, err);
        if (rc == HS_OK && done)
            ev[(*nev)++] = done;
    }
    return rc;
}

/* Runs items [b, e) of kernel c on buffers bufs of memory m for device dev
 * once the nev events happened: on the CPU (dev's threads) when m is
 * host-side, after waiting for the events (a WAIT event), else on m's
 * device.  *start_us, *end_us: the kernel's own span (a KERNEL event). */
static int run_kernel(hs__data *dm, const hs_kconf *c, void *const *bufs, size_t b, size_t e,
                      int m, int dev, long rt, void *const *ev, int nev, double *start_us,
                      double *end_us, hs_error *err)
{
    int rc = HS_OK;
    if (dm->host_side[m]) {
        if (nev) {
            double start = now_us(dm);
            for (int i = 0; i < nev && rc == HS_OK; i++)
                rc = dm->ops->sync(dm->mctx, ev[i], err);
            log_event(dm, dev, HS_EV_WAIT, rt, start, now_us(dm), 0);
        }
        *start_us = now_us(dm);
        if (rc == HS_OK)
            rc = hs_krun_cpu(c, bufs, b, e, dm->threads[dev], err);
        *end_us = now_us(dm);
        if (dm->r.throttle && dev == dm->r.throttle_device) { /* a slow device */
            sleep_us(slowed(dm, dev, *end_us - *start_us) - (*end_us - *start_us));
            *end_us = now_us(dm);
        }
        if (rc == HS_OK && hs__data_test_hook)
            hs__data_test_hook(c, bufs);
    } else {
        void *k, *done;
        *start_us = *end_us = now_us(dm);
        if ((rc = dm->ops->launch(dm->mctx, m, c, bufs, b, e, ev, nev, &k, err)) == HS_OK)
            rc = dm->ops->finish(dm->mctx, k, start_us, end_us, &done, err);
    }
    if (rc == HS_OK)
        log_event(dm, dev, HS_EV_KERNEL, rt, *start_us, *end_us, 0);
    return rc;
}

/* The first half of items [b, e) of split task d on memory m (not host),
 * computed by the device of m (the CPU on an emulated one, device `dev`'s
 * threads): a whole-size buffer on m for each of d's buffers (bufs), so
 * the kernel indexes them as on host; the bytes [b, e) reads (part_span:
 * buffers every range reads, whole) copied in from the group's host
 * buffers; the kernel enqueued after those copies (*k).  The parts' ranges
 * are disjoint, and so are the spans written back: an in-place (HS_KRW)
 * span is still the input when copied in, and a BLAS output that cuBLAS or
 * OpenBLAS builds up in place on m reaches host within [b, e) only. */
static int piece_launch(hs__data *dm, dtask *d, int m, int dev, long rt, size_t b, size_t e,
                        void **bufs, void **k, hs_error *err)
{
    const hs_kconf *c = &d->c;
    void *in[HS_KMAX_BUFS];
    size_t need = 0;
    int nin = 0, rc = HS_OK;
    char name[256];
    for (int i = 0; i < c->nbufs; i++)
        need += c->bufs[i].bytes ? c->bufs[i].bytes : 1;
    memset(bufs, 0, HS_KMAX_BUFS * sizeof *bufs);
    pthread_mutex_lock(&dm->mu);
    if (need > dm->cap[m])
        rc = hs_error_set(err, HS_EINPUT, "part of kernel %s needs %zu bytes on memory '%s', "
                          "whose capacity is %zu bytes",
                          task_name(dm, (size_t)(d - dm->t), name, sizeof name), need,
                          dm->w->platform.memories[m], dm->cap[m]);
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        rc = mem_alloc(dm, m, c->bufs[i].bytes, 0, dev, &bufs[i], err);
    if (rc == HS_OK)
        rc = part_copies(dm, d, m, bufs, b, e, HS_KREAD, 1, rt, in, &nin, err);
    pthread_mutex_unlock(&dm->mu);
    if (rc == HS_OK && (rc = dm->ops->launch(dm->mctx, m, c, bufs, b, e, in, nin, k, err)) ==
                           HS_OK)
        return HS_OK;
    for (int i = 0; i < nin; i++) /* the copies in may still be on their way */
        dm->ops->sync(dm->mctx, in[i], NULL);
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < c->nbufs; i++)
        if (bufs[i])
            mem_free(dm, m, bufs[i], c->bufs[i].bytes, NULL);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* The second half: waits for kernel k (its span into *start_us, *end_us, a
 * KERNEL event) and copies the bytes it wrote back into the group's host
 * buffers, which the device does not wait for: their events go to
 * out[*nout], and the buffers go back to the pool once the last has
 * happened. */
static int piece_complete(hs__data *dm, dtask *d, int m, int dev, long rt, size_t b, size_t e,
                          void **bufs, void *k, double *start_us, double *end_us, void **out,
                          int *nout, hs_error *err)
{
    const hs_kconf *c = &d->c;
    void *done;
    int rc = dm->ops->finish(dm->mctx, k, start_us, end_us, &done, err);
    if (rc == HS_OK)
        log_event(dm, dev, HS_EV_KERNEL, rt, *start_us, *end_us, 0);
    pthread_mutex_lock(&dm->mu);
    if (rc == HS_OK)
        rc = part_copies(dm, d, m, bufs, b, e, HS_KWRITE, 0, rt, out, nout, err);
    for (int i = 0; i < c->nbufs; i++)
        if (bufs[i])
            mem_free(dm, m, bufs[i], c->bufs[i].bytes, *nout ? out[*nout - 1] : NULL);
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* The group of split task d (task t of the run) gets its host buffers:
 * the first piece to start prepares them, outside group_mu, and a later
 * one waits until they are ready.  The group's status: HS_OK, its first
 * failure, or HS_ENOMEM with d->gerr NULL. */
enum { GROUP_NEW, GROUP_PREPARING, GROUP_READY };
static int prepare_group(hs__data *dm, dtask *d, size_t t, int dev, hs_error *err)
{
    int rc;
    pthread_mutex_lock(&dm->group_mu);
    if (d->prepared == GROUP_NEW) {
        hs_error *gerr;
        d->prepared = GROUP_PREPARING;
        pthread_mutex_unlock(&dm->group_mu);
        gerr = d->gerr ? d->gerr : calloc(1, sizeof *gerr);
        rc = gerr ? prepare(dm, d, HS_HOST_MEMORY, (long)t, dev, gerr)
                  : hs_error_set(err, HS_ENOMEM, "out of memory");
        pthread_mutex_lock(&dm->group_mu);
        d->gerr = gerr;
        d->grc = rc;
        d->prepared = GROUP_READY;
        pthread_cond_broadcast(&dm->group_cv);
    }
    while (d->prepared != GROUP_READY)
        pthread_cond_wait(&dm->group_cv, &dm->group_mu);
    rc = d->grc;
    if (rc != HS_OK && d->gerr)
        *err = *d->gerr;
    pthread_mutex_unlock(&dm->group_mu);
    return rc;
}

/* Piece of split task d (task t of the run, on device dev) ended with
 * status rc and left the copies out[0 .. nout) on their way to host: counts
 * its share of `whole`; the piece that completes the shares waits for
 * every piece's copies, then stores the result on host and releases the
 * group.  The group's status (its first failure). */
static int piece_done(hs__data *dm, dtask *d, size_t t, int dev, size_t share, size_t whole,
                      int rc, void *const *out, int nout, hs_error *err)
{
    void **outs = NULL;
    int last, nouts = 0;
    pthread_mutex_lock(&dm->group_mu);
    if (rc != HS_OK && d->grc == HS_OK) {
        d->grc = rc;
        *d->gerr = *err;
    }
    if (nout && d->nouts + nout > d->capouts) {
        int cap = 2 * (d->nouts + nout);
        void **n = realloc(d->outs, (size_t)cap * sizeof *n);
        if (n) {
            d->outs = n;
            d->capouts = cap;
        }
    }
    for (int i = 0; i < nout; i++) /* out of memory: waited for here */
        if (d->nouts < d->capouts)
            d->outs[d->nouts++] = out[i];
        else
            dm->ops->sync(dm->mctx, out[i], NULL);
    last = (d->parts_done += share) == whole;
    if (last) {
        outs = d->outs;
        nouts = d->nouts;
        d->outs = NULL;
        d->nouts = d->capouts = 0;
    }
    rc = d->grc;
    pthread_mutex_unlock(&dm->group_mu);
    if (rc != HS_OK)
        *err = *d->gerr;
    if (!last)
        return rc;
    /* every piece's written bytes are on host before the result is stored
     * there (and before a failure releases the group) */
    for (int i = 0; i < nouts; i++) {
        int r = dm->ops->sync(dm->mctx, outs[i], rc == HS_OK ? err : NULL);
        rc = rc == HS_OK ? r : rc;
    }
    free(outs);
    return finish(dm, d, HS_HOST_MEMORY, rc, (long)t, dev, err);
}

/* Whether items [begin, end) of split task d run on memory m as a device's
 * own kernel (piece_launch) rather than on the group's host buffers (a
 * memory the CPU computes on, or a type that cannot be cut into spans). */
static int piece_on_memory(const hs__data *dm, const dtask *d, int m, size_t begin,
                           size_t end)
{
    return begin < end && !dm->host_side[m] && (d->cut || !d->c.splittable);
}

/* Items [begin, end) of a split typed task: one of its parts (share 1 of
 * whole = nparts) or a chunk of a split at run time (share = its items of
 * whole = the kernel's), run to the end.  The pieces share one set of
 * buffers in host memory: the first to start prepares them there; a later
 * one starts once they are ready.  A piece on a memory the CPU computes on
 * runs its items on those buffers in place; one on a device's own memory
 * runs them there (piece_launch, piece_complete), unless the type is
 * splittable but cannot be cut into byte spans (then on host, as the cpu
 * backend does).
 * A piece ends with its kernel: the copies of its result to host go on
 * while its device takes other work (piece_done). */
static int run_piece(hs__data *dm, dtask *d, size_t t, int dev, size_t begin, size_t end,
                     size_t share, size_t whole, double *start_us, double *end_us,
                     hs_error *err)
{
    void *out[HS_KMAX_BUFS], *bufs[HS_KMAX_BUFS], *k;
    int m = mem_of(dm, dev), rc, nout = 0;
    if ((rc = prepare_group(dm, d, t, dev, err)) == HS_ENOMEM && !d->gerr)
        return rc;
    *start_us = *end_us = now_us(dm);
    if (rc == HS_OK && piece_on_memory(dm, d, m, begin, end)) {
        if ((rc = piece_launch(dm, d, m, dev, (long)t, begin, end, bufs, &k, err)) == HS_OK)
            rc = piece_complete(dm, d, m, dev, (long)t, begin, end, bufs, k, start_us, end_us,
                                out, &nout, err);
    } else if (rc == HS_OK && begin < end) {
        rc = run_kernel(dm, &d->c, d->bufs, begin, end, HS_HOST_MEMORY, dev, (long)t, NULL, 0,
                        start_us, end_us, err);
    }
    return piece_done(dm, d, t, dev, share, whole, rc, out, nout, err);
}

/* An emulated copy of cost-only data (dm->mu held): `bytes` from memory
 * `from` to `to` once `after`, queued on its link; records it and returns
 * its end. */
static double emulated_copy(hs__data *dm, int from, int to, double bytes, double after,
                            long datum, long consumer, int kind)
{
    double *link_free = &dm->vfree[(size_t)from * (size_t)dm->nmem + (size_t)to];
    double start = after > *link_free ? after : *link_free;
    hs_run_copy *rec = new_copy(dm, from, to, (size_t)bytes, datum, consumer, kind);
    *link_free = start + hs_transfer_us(&dm->w->platform, from, to, bytes);
    if (rec) {
        rec->start_us = start;
        rec->end_us = *link_free;
    }
    return *link_free;
}

/* When whole untyped task rt of the graph run, started on memory m at
 * issued_us, has its cost-only data there (cost_only_data): its input from
 * host, and each predecessor's data that no earlier copy brought to m, from
 * host when they are there, else from where the predecessor ran.  The
 * copies' consumer is rt (a part's index in a split graph), their data
 * tasks of the workload's. */
static double cost_only_ready(hs__data *dm, size_t rt, int m, double issued_us)
{
    const hs_graph *g = dm->g;
    size_t nm = (size_t)dm->nmem, t = dm->rg->tasks[rt].origin;
    const hs_edge *ed;
    double ready = issued_us;
    pthread_mutex_lock(&dm->mu);
    if (g->tasks[t].input_bytes > 0 && m != HS_HOST_MEMORY)
        ready = emulated_copy(dm, HS_HOST_MEMORY, m, g->tasks[t].input_bytes, issued_us, -1,
                              (long)rt, HS_COPY_INPUT);
    HS_GRAPH_PRED_FOREACH(g, t, ed)
    {
        const double *at = &dm->varrive[ed->from * nm];
        int src = HS_HOST_MEMORY;
        double there;
        if (ed->bytes <= 0)
            continue;
        if (at[m] < 0) {
            /* host, else where the predecessor ran: the first there */
            for (int s = 0; s < dm->nmem && at[HS_HOST_MEMORY] < 0; s++)
                if (at[s] >= 0 && (at[src] < 0 || at[s] < at[src]))
                    src = s;
            if (at[src] < 0) /* a split predecessor: its data went through host */
                continue;
            there = at[src] > issued_us ? at[src] : issued_us;
            dm->varrive[ed->from * nm + (size_t)m] =
                emulated_copy(dm, src, m, ed->bytes, there, (long)ed->from, (long)rt,
                              HS_COPY_FETCH);
        }
        if (at[m] > ready)
            ready = at[m];
    }
    pthread_mutex_unlock(&dm->mu);
    return ready;
}

/* Task t (whole) ended on memory m at end_us: its cost-only data are there
 * and, for an untyped task's output, on their way back to host. */
static void cost_only_done(hs__data *dm, size_t t, int m, double end_us)
{
    size_t nm = (size_t)dm->nmem;
    double out = dm->t[t].typed ? 0 : dm->g->tasks[t].output_bytes;
    pthread_mutex_lock(&dm->mu);
    dm->varrive[t * nm + (size_t)m] = end_us;
    if (out > 0 && m != HS_HOST_MEMORY)
        dm->varrive[t * nm + HS_HOST_MEMORY] =
            emulated_copy(dm, m, HS_HOST_MEMORY, out, end_us, (long)t, -1, HS_COPY_OUTPUT);
    pthread_mutex_unlock(&dm->mu);
}

/* Enqueues the kernel of l's task (a device's own, prepared) after the
 * copies it waits for; on failure, finishes the task. */
static int enqueue_kernel(hs__data *dm, hs__launch *l)
{
    dtask *task = &dm->t[dm->rg->tasks[l->t].origin];
    int m = mem_of(dm, l->d);
    l->held_back = 0;
    if ((l->rc = dm->ops->launch(dm->mctx, m, &task->c, task->bufs, 0, task->c.items, task->wait,
                                 task->nwait, &l->kernel, &l->err)) == HS_OK)
        return HS_OK;
    return l->rc = finish(dm, task, m, l->rc, (long)l->t, l->d, &l->err);
}

int hs__data_launch(hs__data *dm, size_t t, int d, double issued_us, int hold_back,
                    hs__launch *l)
{
    dtask *task = &dm->t[dm->rg->tasks[t].origin];
    int m = mem_of(dm, d);
    *l = (hs__launch){.t = t, .d = d, .issued_us = issued_us};
    l->start_us = l->end_us = now_us(dm);
    if (!runs_here(dm, d))
        return receive(dm, dm->rg->tasks[t].origin, l);
    if (hs__data_can_hold(dm, t, d)) {
        /* a device's own kernel: enqueued, finished by hs__data_complete */
        if ((l->rc = prepare(dm, task, m, (long)t, d, &l->err)) != HS_OK)
            return l->rc = finish(dm, task, m, l->rc, (long)t, d, &l->err);
        if (hold_back == HS__HOLD_ALWAYS ||
            (hold_back == HS__HOLD_WHILE_COPYING && !hs__data_inputs_there(dm, l))) {
            l->held_back = 1;
            return HS_OK;
        }
        return enqueue_kernel(dm, l);
    }
    if (task->typed && dm->rg->tasks[t].nparts > 1 &&
        piece_on_memory(dm, task, m, dm->range[2 * t], dm->range[2 * t + 1])) {
        /* a part on a device's memory: its copies in and kernel enqueued as
         * a whole task's are, finished by hs__data_complete */
        if ((l->rc = prepare_group(dm, task, t, d, &l->err)) == HS_ENOMEM && !task->gerr)
            return l->rc;
        if (l->rc == HS_OK &&
            (l->rc = piece_launch(dm, task, m, d, (long)t, dm->range[2 * t],
                                  dm->range[2 * t + 1], l->bufs, &l->kernel, &l->err)) == HS_OK)
            return HS_OK;
        l->kernel = NULL;
        return l->rc = piece_done(dm, task, t, d, 1, (size_t)task->nparts, l->rc, NULL, 0,
                                  &l->err);
    }
    if (task->typed && dm->rg->tasks[t].nparts > 1) {
        l->rc = run_piece(dm, task, t, d, dm->range[2 * t], dm->range[2 * t + 1], 1,
                          (size_t)task->nparts, &l->start_us, &l->end_us, &l->err);
    } else if (task->typed) {
        l->rc = prepare(dm, task, m, (long)t, d, &l->err);
        if (l->rc == HS_OK)
            l->rc = run_kernel(dm, &task->c, task->bufs, 0, task->c.items, m, d, (long)t,
                               task->wait, task->nwait, &l->start_us, &l->end_us, &l->err);
        l->rc = finish(dm, task, m, l->rc, (long)t, d, &l->err);
    } else {
        /* cost only: its data arrive as emulated copies, then it sleeps
         * (not spins) its predicted cost, so any workload runs */
        if (dm->varrive && dm->rg->tasks[t].nparts == 1) {
            double ready = cost_only_ready(dm, t, m, issued_us);
            sleep_us(ready - now_us(dm));
            l->start_us = now_us(dm);
        }
        sleep_us(slowed(dm, d, hs_task_kernel_us(&dm->w->platform, &dm->rg->tasks[t], d)));
        l->end_us = now_us(dm);
        log_event(dm, d, HS_EV_SLEEP, (long)t, l->start_us, l->end_us, 0);
        pthread_mutex_lock(&dm->mu);
        dm->r.untyped++;
        pthread_mutex_unlock(&dm->mu);
        if (dm->remote)
            l->rc = dm->remote->ops->send(dm->remote->ctx, dm->rg->tasks[t].origin, NULL, 0,
                                          l->end_us, &l->err);
    }
    return l->rc;
}

int hs__data_can_hold(const hs__data *dm, size_t t, int d)
{
    return dm->t[dm->rg->tasks[t].origin].typed && dm->rg->tasks[t].nparts == 1 &&
           hs__data_enqueues(dm, d);
}

int hs__data_inputs_there(hs__data *dm, const hs__launch *l)
{
    const dtask *task = &dm->t[dm->rg->tasks[l->t].origin];
    for (int i = 0; i < task->nwait; i++)
        if (!dm->ops->ready(dm->mctx, task->wait[i]))
            return 0;
    return 1;
}

int hs__data_release(hs__data *dm, hs__launch *l)
{
    return l->held_back ? enqueue_kernel(dm, l) : l->rc;
}

int hs__data_launch_chunk(hs__data *dm, size_t t, int d, size_t begin, size_t end,
                          size_t items, double issued_us, hs__launch *l)
{
    dtask *task = &dm->t[dm->rg->tasks[t].origin];
    *l = (hs__launch){.t = t, .d = d, .issued_us = issued_us, .chunk = 1, .begin = begin,
                      .end = end};
    l->start_us = l->end_us = now_us(dm);
    if (task->typed) {
        /* the kernel's items [begin, end) of `items`, as the type's items */
        double scale = (double)task->c.items / (double)items;
        size_t b = (size_t)floor((double)begin * scale + 0.5);
        size_t e = end == items ? task->c.items : (size_t)floor((double)end * scale + 0.5);
        if (!task->c.splittable) /* runs whole in the chunk of item 0 */
            b = 0, e = begin == 0 ? task->c.items : 0;
        l->rc = run_piece(dm, task, t, d, b, e, end - begin, items, &l->start_us, &l->end_us,
                          &l->err);
    } else {
        sleep_us(slowed(dm, d, hs_task_kernel_us(&dm->w->platform, &dm->rg->tasks[t], d) *
                                   (double)(end - begin) / (double)items));
        l->end_us = now_us(dm);
        log_event(dm, d, HS_EV_SLEEP, (long)t, l->start_us, l->end_us, 0);
        if (end == items) {
            pthread_mutex_lock(&dm->mu);
            dm->r.untyped++;
            pthread_mutex_unlock(&dm->mu);
        }
    }
    return l->rc;
}

int hs__data_fits(hs__data *dm, size_t t, int d)
{
    const dtask *task = &dm->t[dm->rg->tasks[t].origin];
    int m = mem_of(dm, d), fits;
    size_t need = 0;
    if (!task->typed || dm->cap[m] == SIZE_MAX || !runs_here(dm, d))
        return 1;
    pthread_mutex_lock(&dm->mu);
    for (int i = 0; i < task->c.nbufs; i++) {
        const hs_kbuf *b = &task->c.bufs[i];
        size_t bytes = b->bytes ? b->bytes : 1;
        if (task->fed[i]) /* the replica when it is not there, a private copy to update */
            need += (dm->t[task->feed[i]].rep[m].p ? 0 : bytes) + (b->mode == HS_KREAD ? 0 : bytes);
        else if (!task->pf_buf[i])
            need += bytes;
    }
    fits = need <= dm->cap[m] && dm->used[m] <= dm->cap[m] - need;
    pthread_mutex_unlock(&dm->mu);
    return fits;
}

int hs__data_enqueues(const hs__data *dm, int d)
{
    /* a proxy (receive) completes each task before it takes the next */
    return runs_here(dm, d) && !dm->host_side[mem_of(dm, d)];
}

int hs__data_waits(const hs__data *dm, size_t t, int d)
{
    const hs_task *rt = &dm->rg->tasks[t];
    const dtask *task = &dm->t[rt->origin];
    int m = mem_of(dm, d);
    if (dm->mode != HS__REAL_CUDA || !runs_here(dm, d) || dm->host_side[m])
        return 0;
    if (!task->typed)
        return 1;
    return rt->nparts > 1 && !piece_on_memory(dm, task, m, dm->range[2 * t], dm->range[2 * t + 1]);
}

int hs__data_complete(hs__data *dm, hs__launch *l)
{
    if (l->kernel && dm->rg->tasks[l->t].nparts > 1) {
        dtask *task = &dm->t[dm->rg->tasks[l->t].origin];
        void *out[HS_KMAX_BUFS];
        int nout = 0;
        l->rc = piece_complete(dm, task, mem_of(dm, l->d), l->d, (long)l->t, dm->range[2 * l->t],
                               dm->range[2 * l->t + 1], l->bufs, l->kernel, &l->start_us,
                               &l->end_us, out, &nout, &l->err);
        l->kernel = NULL;
        l->rc = piece_done(dm, task, l->t, l->d, 1, (size_t)task->nparts, l->rc, out, nout,
                           &l->err);
    } else if (l->kernel) {
        dtask *task = &dm->t[dm->rg->tasks[l->t].origin];
        int m = mem_of(dm, l->d);
        void *done;
        l->rc = dm->ops->finish(dm->mctx, l->kernel, &l->start_us, &l->end_us, &done, &l->err);
        l->kernel = NULL;
        if (l->rc == HS_OK)
            log_event(dm, l->d, HS_EV_KERNEL, (long)l->t, l->start_us, l->end_us, 0);
        l->rc = finish(dm, task, m, l->rc, (long)l->t, l->d, &l->err);
    }
    if (dm->varrive && dm->vsource[dm->rg->tasks[l->t].origin] && l->rc == HS_OK && !l->chunk &&
        dm->rg->tasks[l->t].nparts == 1 && runs_here(dm, l->d))
        cost_only_done(dm, dm->rg->tasks[l->t].origin, mem_of(dm, l->d), l->end_us);
    if (l->issued_us < l->start_us)
        log_event(dm, l->d, HS_EV_HELD, (long)l->t, l->issued_us, l->start_us, 0);
    return l->rc;
}

int hs__data_run(hs__data *dm, size_t t, int d, double issued_us, double *start_us,
                 double *end_us, hs_error *err)
{
    hs__launch l;
    hs__data_launch(dm, t, d, issued_us, 0, &l);
    hs__data_complete(dm, &l);
    *start_us = l.start_us;
    *end_us = l.end_us;
    if (l.rc != HS_OK && err)
        *err = l.err;
    return l.rc;
}

/* Copies the next `budget` bytes of task's generated inputs from host to
 * their buffers on d's own memory (task->pf_mem), making each buffer at its
 * first bytes; the buffers are the task's alone (a task the engine started
 * or plans on d runs on d).  Nothing on host's memory, or for a task whose
 * inputs are made at its launch.  dm->mu held. */
static int prefetch_generated(hs__data *dm, dtask *task, size_t t, int d, size_t budget,
                              hs_error *err)
{
    int m = task->pf_mem, rc = HS_OK;
    for (int i = 0; i < task->c.nbufs && budget > 0 && m != HS_HOST_MEMORY && task->generated;
         i++) {
        size_t size = task->c.bufs[i].bytes, len;
        if (task->fed[i] || !(task->c.bufs[i].mode & HS_KREAD) || task->pf_done[i] == size)
            continue;
        if (!task->pf_buf[i]) {
            if ((rc = mem_alloc(dm, m, size, 1, d, &task->bufs[i], err)) == 1)
                return HS_OK; /* no room now: left for the launch */
            if (rc != HS_OK)
                return rc;
            task->pf_buf[i] = 1;
        }
        len = size - task->pf_done[i] < budget ? size - task->pf_done[i] : budget;
        if ((rc = copy_input(dm, task, i, m, task->pf_done[i], len, (long)t, &task->pf_ev[i],
                             err)) != HS_OK)
            return rc;
        task->pf_done[i] += len;
        budget -= len;
        dm->r.prefetched++;
    }
    return rc;
}

int hs__data_prefetch(hs__data *dm, size_t t, int d, size_t bytes, hs_error *err)
{
    const hs_task *rt = &dm->rg->tasks[t];
    dtask *task = &dm->t[rt->origin];
    int m = mem_of(dm, d), rc = HS_OK;
    if (!task->typed || rt->nparts > 1 || dm->mode == HS__REAL_CPU || !runs_here(dm, d))
        return HS_OK; /* parts compute on host; cpu moves nothing; a proxy receives */
    pthread_mutex_lock(&dm->mu);
    if (!task->running && !task->ran) {
        if (task->pf_mem != m)
            drop_prefetch(dm, task); /* moved to another device */
        task->pf_mem = m;
        for (int i = 0; i < task->c.nbufs && rc == HS_OK && bytes == SIZE_MAX; i++) {
            dtask *u = &dm->t[task->feed[i]];
            int has = 0;
            if (!task->fed[i] || task->pinned[i])
                continue;
            for (int s = 0; s < dm->nmem; s++)
                has |= u->rep[s].p != NULL;
            if (!has)
                continue; /* its producer has not ended: hs__data_run fetches */
            if (!u->rep[m].p) {
                if ((rc = fetch(dm, u, m, 1, (long)t, HS_COPY_FETCH, d, err)) == 1) {
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
        if (rc == HS_OK)
            rc = prefetch_generated(dm, task, t, d, bytes, err);
    }
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

int hs__data_device_lost(hs__data *dm, int d, hs_error *err)
{
    const hs_platform *pf = &dm->w->platform;
    int m = mem_of(dm, d), rc = HS_OK;
    for (int o = 0; o < pf->ndevices; o++)
        if (o != d && mem_of(dm, o) == m)
            return HS_OK; /* another device computes there: nothing is lost */
    pthread_mutex_lock(&dm->mu);
    cancel_prefetches(dm, m);
    for (size_t t = 0; t < dm->g->ntasks && rc == HS_OK && m != HS_HOST_MEMORY; t++) {
        dtask *u = &dm->t[t];
        int other = 0;
        if (!u->typed || !u->rep[m].p)
            continue;
        for (int s = 0; s < dm->nmem; s++)
            other |= s != m && u->rep[s].p != NULL;
        if (!other && (rc = fetch(dm, u, HS_HOST_MEMORY, 0, -1, HS_COPY_WRITEBACK, d, err)) ==
                          HS_OK)
            rc = dm->ops->sync(dm->mctx, u->rep[HS_HOST_MEMORY].ev, err);
    }
    pthread_mutex_unlock(&dm->mu);
    return rc;
}

/* Copies log l into out; returns how many events it holds. */
static size_t take_log(const evlog *l, hs_run_event *out)
{
    if (l->n)
        memcpy(out, l->ev, l->n * sizeof *out);
    return l->n;
}

unsigned long long hs__piece_hash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = HS__FNV_BASIS;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, b + i, sizeof word);
        h = (h ^ word) * 0x100000001b3ULL;
        h ^= h >> 32;
    }
    return hs__fnv(h, b + i, n - i);
}

/* The pieces of a run's outputs, hashed on every processor where they are
 * (on host): byte by byte on one thread, after copying them, the outputs
 * of the mixed composition at large size took 2.6 s after its run of 0.17
 * s on an H100 host. */
typedef struct piece {
    const unsigned char *p;
    size_t bytes;
    uint64_t hash;
} piece;

static void hash_piece(void *arg, size_t k)
{
    piece *p = &((piece *)arg)[k];
    p->hash = hs__piece_hash(p->p, p->bytes);
}

/* Each output's hash (r->outputs[k].hash), from its bytes at src[k]. */
static int hash_outputs(hs_run_report *r, const void *const *src, hs_error *err)
{
    piece *pc;
    size_t n = 0, k = 0;
    for (size_t i = 0; i < r->noutputs; i++)
        n += (r->outputs[i].bytes + HS__PIECE - 1) / HS__PIECE;
    if (!(pc = malloc((n + 1) * sizeof *pc)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->noutputs; i++)
        for (size_t at = 0; at < r->outputs[i].bytes; at += HS__PIECE)
            pc[k++] = (piece){.p = (const unsigned char *)src[i] + at,
                              .bytes = r->outputs[i].bytes - at < HS__PIECE
                                           ? r->outputs[i].bytes - at
                                           : HS__PIECE};
    hs__each_job(hash_piece, pc, n);
    k = 0;
    for (size_t i = 0; i < r->noutputs; i++) {
        uint64_t h = HS__FNV_BASIS;
        for (size_t at = 0; at < r->outputs[i].bytes; at += HS__PIECE, k++)
            h = hs__fnv(h, &pc[k].hash, sizeof pc[k].hash);
        r->outputs[i].hash = h;
    }
    free(pc);
    return HS_OK;
}

int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err)
{
    size_t n = 0, k = 0, nev = 0, nlogs = 2 * (size_t)dm->w->platform.ndevices + 2;
    int rc = dm->ops->flush(dm->mctx, err), hashes_only = dm->r.output_hashes_only;
    const void **src = NULL;
    if (rc != HS_OK)
        return rc;
    for (int m = 0; m < dm->nmem; m++) {
        hs__pool_stats st;
        hs__pool_get_stats(dm->pool[m], &st);
        dm->r.pool_hits += st.hits - dm->pool_at_start[m].hits;
        dm->r.pool_misses += st.misses - dm->pool_at_start[m].misses;
        dm->r.pool_reserved += st.reserved;
    }
    for (size_t t = 0; t < dm->g->ntasks; t++)
        n += dm->t[t].output && dm->t[t].rep[HS_HOST_MEMORY].p;
    for (size_t l = 0; l < nlogs; l++)
        nev += dm->logs[l].n;
    *r = dm->r;
    memset(&dm->r, 0, sizeof dm->r);
    r->ncopies = dm->cp.n;
    if ((dm->cp.n && !(r->copies = malloc(dm->cp.n * sizeof *r->copies))) ||
        (nev && !(r->events = malloc(nev * sizeof *r->events))) ||
        (n && !(r->outputs = calloc(n, sizeof *r->outputs)))) {
        r->ncopies = 0;
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < dm->cp.n; i++) {
        const hs_run_copy *c = &dm->cp.blocks[i / COPY_BLOCK][i % COPY_BLOCK];
        r->copies[i] = *c;
        if (c->kind != HS_COPY_CHECK && c->from != c->to)
            r->link_us[(size_t)c->from * (size_t)dm->nmem + (size_t)c->to] +=
                c->end_us - c->start_us;
    }
    for (size_t l = 0; l < nlogs; l++)
        r->nevents += take_log(&dm->logs[l], r->events + r->nevents);
    if (n && !(src = malloc(n * sizeof *src)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        if (d->output && d->rep[HS_HOST_MEMORY].p) {
            src[k] = d->rep[HS_HOST_MEMORY].p;
            r->outputs[k++] = (hs_run_output){.task = t, .bytes = result_bytes(d)};
        }
    }
    r->noutputs = k;
    rc = hash_outputs(r, src, err);
    /* pool blocks may be pinned host memory: the report's copies are malloc'd */
    for (k = 0; rc == HS_OK && !hashes_only && k < r->noutputs; k++)
        if (!(r->outputs[k].data = malloc(r->outputs[k].bytes ? r->outputs[k].bytes : 1)))
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for an output");
        else
            memcpy(r->outputs[k].data, src[k], r->outputs[k].bytes);
    free(src);
    return rc;
}

void hs__data_free(hs__data *dm)
{
    if (!dm)
        return;
    stop_checker(dm);
    if (dm->ops)
        dm->ops->flush(dm->mctx, NULL);
    for (size_t t = 0; dm->t && t < dm->g->ntasks; t++) {
        dtask *d = &dm->t[t];
        free(d->gerr);
        free(d->outs);
        for (int s = 0; dm->pool && s < dm->nmem; s++)
            if (d->rep[s].p)
                hs__pool_put(dm->pool[s], d->rep[s].p, result_bytes(d), NULL);
        for (int i = 0; dm->pool && i < HS_KMAX_BUFS; i++) {
            if (d->bufs[i] && !d->borrowed[i])
                hs__pool_put(dm->pool[d->pf_buf[i] ? d->pf_mem : d->mem], d->bufs[i],
                             d->c.bufs[i].bytes, NULL);
            if (d->before[i])
                hs__pool_put(dm->pool[HS_HOST_MEMORY], d->before[i], d->c.bufs[i].bytes, NULL);
        }
    }
    for (int m = 0; dm->pool && m < dm->nmem; m++)
        hs__pool_free(dm->pool[m]);
    if (dm->ops)
        dm->ops->fini(dm->mctx);
    for (size_t l = 0; dm->logs && l < 2 * (size_t)dm->w->platform.ndevices + 2; l++)
        free(dm->logs[l].ev);
    free(dm->varrive);
    free(dm->vfree);
    free(dm->vsource);
    for (size_t b = 0; b < dm->cp.nblocks; b++)
        free(dm->cp.blocks[b]);
    pthread_mutex_destroy(&dm->mu);
    pthread_mutex_destroy(&dm->group_mu);
    pthread_cond_destroy(&dm->group_cv);
    pthread_cond_destroy(&dm->checker_cv);
    free(dm->cp.blocks);
    free(dm->logs);
    free(dm->held);
    free(dm->kinds);
    free(dm->range);
    free(dm->t);
    free(dm->rep_pool);
    free(dm->pool);
    free(dm->pool_at_start);
    free(dm->cap);
    free(dm->used);
    free(dm->host_side);
    free(dm->threads);
    hs_run_report_free(&dm->r);
    free(dm);
}
