/* hetsched — the cuda memory spaces of exec/mem.h, under which the `cuda`
 * backend (exec/data.h: the cpu backend's workers, defined in
 * exec/cuda_load.c) runs gpu devices on CUDA GPUs; part of the CUDA module
 * (exec/cuda_module.h).
 *
 * Device mapping: the k-th gpu device of the platform (in the order the
 * platform lists its devices; in a run across nodes, of this node's) is
 * CUDA device k; its memory is that GPU's.
 * A platform with more gpu devices than CUDA finds, or whose gpu device
 * shares its memory with another device, is bad input.
 *
 * Per GPU: a kernel context (hs_kcuda: cuBLAS and cuSOLVER handles) and five
 * non-blocking streams, one each for kernels, host-to-device, device-to-host
 * and device-to-device copies, and one for the clock's anchors (see
 * event_us).  A copy into a GPU goes on that GPU's H2D (or
 * D2D) stream, a copy out of one on its D2H stream; each waits on the event
 * of the copy that filled its source and records its own, which the kernel
 * waits on (cudaStreamWaitEvent) before it runs on the compute stream.
 * Between two GPUs: cudaMemcpyPeerAsync where cudaDeviceCanAccessPeer (peer
 * access enabled at init), else staged through pinned host memory,
 * synchronously.  Host memory is pinned (cudaHostAlloc, portable); other
 * memories that no gpu device uses are malloc'd.  Timed copies record a
 * start and an end event; their times are read at flush.  Events live
 * until fini.  Every CUDA call is checked and a failure names the call. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "exec/data.h"
#include "exec/mem.h"
#include "exec/real.h"
#include "workloads/kernels/cuda_int.h"

enum { MK_HOST, MK_PLAIN, MK_GPU };
enum { S_COMPUTE, S_H2D, S_D2H, S_D2D, S_CLOCK, S_N };

/* One kernel enqueued on a GPU's compute stream, between two events. */
typedef struct ckernel {
    struct cctx *cx;
    int mem;
    cudaEvent_t start, end;
    size_t anchor;              /* an anchor before them (see event_us) */
} ckernel;

/* An event of a GPU whose time on the run's clock is known. */
typedef struct anchor {
    cudaEvent_t ev;
    double us;
} anchor;

typedef struct cmem {
    int kind, dev;              /* MK_*, the CUDA device of an MK_GPU memory */
    cudaStream_t s[S_N];        /* S_CLOCK: only anchors are recorded there */
    hs_kcuda *k;
    size_t capacity;
    /* the run's clock on this GPU, by time (under cctx.clock_mu) */
    anchor *anchors;
    size_t nanchors, capanchors;
    /* kernels in flight, taken in turn (at most HS_BACKEND_MAX_DEPTH) */
    ckernel kern[HS_BACKEND_MAX_DEPTH];
    unsigned next_kern;
} cmem;

typedef struct crec {           /* one copy's events */
    cudaEvent_t a, b;           /* a: start (timed copies only), b: end */
    int mem;                    /* the GPU memory whose clock times them */
    size_t anchor;              /* an anchor before them (see event_us) */
    hs_run_copy *rec;          /* where its times go, or NULL */
} crec;

typedef struct mapping {        /* a pinned host buffer made by pin_mapped */
    void *p;
    size_t bytes;
} mapping;

typedef struct cctx {
    int nmem;
    cmem *m;
    unsigned char *peer;        /* [from * nmem + to]: peer copies work */
    const struct timespec *t0;  /* the run's clock (start_clock) */
    pthread_mutex_t mu;         /* recs, maps, clock_started */
    crec *recs;
    size_t nrecs, caprecs;
    mapping *maps;
    size_t nmaps, capmaps;
    int clock_started;
    /* the thread placing anchors while the clock runs (clock_main) */
    pthread_mutex_t clock_mu;   /* every GPU's anchors, clock_stop */
    pthread_cond_t clock_cv;
    pthread_t clock;
    int clock_running, clock_stop;
} cctx;

/* The last anchor of memory m's GPU so far: an event recorded from now on
 * happens after it (0 before the clock starts, when there is none). */
static size_t last_anchor(cctx *cx, int m)
{
    size_t n;
    pthread_mutex_lock(&cx->clock_mu);
    n = cx->m[m].nanchors;
    pthread_mutex_unlock(&cx->clock_mu);
    return n ? n - 1 : 0;
}

/* 0, or HS_EIO naming the call and CUDA's error. */
#define CK(call) hs__cuda_ok((call), "backend cuda", #call, err)

static int c_host_side(void *ctx, int m)
{
    return ((cctx *)ctx)->m[m].kind != MK_GPU;
}

static size_t c_capacity(void *ctx, int m)
{
    return ((cctx *)ctx)->m[m].capacity;
}

/* Before the run's clock starts, a pinned host buffer of PIN_MAPPED bytes
 * or more is mapped anonymously in small pages, touched on every processor
 * and registered with CUDA, instead of made by cudaHostAlloc, which faults
 * it page by page on one thread: on an H100 host, 16 x 256 MiB took 0.35 s
 * to make and 0.20-0.28 s to give back so, 1.47-1.62 s and 0.38-0.40 s
 * with cudaHostAlloc and cudaFreeHost, and copy as fast.  The inputs and
 * pools of a large composition's run are most of its set-up.
 *   Small pages on purpose: in huge pages (MADV_HUGEPAGE, 0.16 s to make)
 * fblock's CPU kernel, whose seven streams lie 1 MiB planes apart, ran 4x
 * slower (31-34 ms against 7-8 ms for 128 planes of 512^2 on 14 threads),
 * and whole runs 1.5-2.7x slower: physically contiguous, the streams fall
 * into the same cache sets.
 *   Once the clock runs, cudaHostAlloc again: a buffer made during the run
 * must not touch pages on the processors the CPU devices compute on. */
#define PIN_MAPPED ((size_t)2 << 20)
#define TOUCH_PIECE ((size_t)8 << 20)

typedef struct touching {
    char *p;
    size_t bytes;
} touching;

/* Touches each page of piece k (TOUCH_PIECE bytes) of t. */
static void touch_piece(void *arg, size_t k)
{
    const touching *t = arg;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t end = (k + 1) * TOUCH_PIECE < t->bytes ? (k + 1) * TOUCH_PIECE : t->bytes;
    for (size_t i = k * TOUCH_PIECE; i < end; i += page)
        t->p[i] = 0;
}

/* Makes *p a pinned buffer of `bytes` the way above (cx->mu held): 1, or 0
 * where it could not (no memory to map, a system that cannot register
 * memory: cudaHostAlloc then makes it). */
static int pin_mapped(cctx *cx, size_t bytes, void **p)
{
    touching t = {.bytes = bytes};
    if (cx->nmaps == cx->capmaps) {
        size_t cap = cx->capmaps ? 2 * cx->capmaps : 64;
        mapping *nm = realloc(cx->maps, cap * sizeof *nm);
        if (!nm)
            return 0;
        cx->maps = nm;
        cx->capmaps = cap;
    }
    t.p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t.p == MAP_FAILED)
        return 0;
    madvise(t.p, bytes, MADV_NOHUGEPAGE); /* where THP is "always" (see above) */
    hs__each_job(touch_piece, &t, (bytes + TOUCH_PIECE - 1) / TOUCH_PIECE);
    if (cudaHostRegister(t.p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it */
        munmap(t.p, bytes);
        return 0;
    }
    cx->maps[cx->nmaps++] = (mapping){t.p, bytes};
    *p = t.p;
    return 1;
}

static void unpin_mapped(const mapping *mp)
{
    cudaHostUnregister(mp->p);
    munmap(mp->p, mp->bytes);
}

static int c_alloc(void *ctx, int m, size_t bytes, void **p, hs_error *err)
{
    cctx *cx = ctx;
    cmem *cm = &cx->m[m];
    int rc;
    *p = NULL;
    if (cm->kind == MK_PLAIN) {
        if (!(*p = malloc(bytes ? bytes : 1)))
            return hs_error_set(err, HS_ENOMEM, "out of memory for a buffer of %zu bytes",
                                bytes);
        return HS_OK;
    }
    if (cm->kind == MK_HOST && bytes >= PIN_MAPPED) {
        pthread_mutex_lock(&cx->mu);
        rc = !cx->clock_started && pin_mapped(cx, bytes, p);
        pthread_mutex_unlock(&cx->mu);
        if (rc)
            return HS_OK;
    }
    if (cm->kind == MK_HOST)
        return CK(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable));
    if ((rc = CK(cudaSetDevice(cm->dev))) != 0)
        return rc;
    if ((rc = CK(cudaMalloc(p, bytes ? bytes : 1))) != 0)
        *p = NULL;
    return rc;
}

static void c_free(void *ctx, int m, void *p)
{
    cctx *cx = ctx;
    cmem *cm = &cx->m[m];
    if (!p)
        return;
    if (cm->kind == MK_PLAIN) {
        free(p);
    } else if (cm->kind == MK_HOST) {
        mapping found = {0};
        pthread_mutex_lock(&cx->mu);
        for (size_t i = 0; i < cx->nmaps && !found.p; i++)
            if (cx->maps[i].p == p) {
                found = cx->maps[i];
                cx->maps[i] = cx->maps[--cx->nmaps];
            }
        pthread_mutex_unlock(&cx->mu);
        if (found.p)
            unpin_mapped(&found);
        else
            cudaFreeHost(p);
    } else {
        cudaSetDevice(cm->dev);
        cudaFree(p);
    }
}

/* A new record of a copy on the device current (that of memory mem):
 * events b (and a, before the copy, when it is timed). */
static int new_rec(cctx *cx, int mem, hs_run_copy *rec, crec **out, hs_error *err)
{
    crec r = {.mem = mem, .anchor = last_anchor(cx, mem), .rec = rec};
    int rc;
    if ((rc = CK(cudaEventCreateWithFlags(&r.b, rec ? cudaEventDefault
                                                    : cudaEventDisableTiming))) != 0)
        return rc;
    if (rec && (rc = CK(cudaEventCreate(&r.a))) != 0) {
        cudaEventDestroy(r.b);
        return rc;
    }
    pthread_mutex_lock(&cx->mu);
    if (cx->nrecs == cx->caprecs) {
        size_t cap = cx->caprecs ? 2 * cx->caprecs : 256;
        crec *n = realloc(cx->recs, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&cx->mu);
            cudaEventDestroy(r.b);
            if (r.a)
                cudaEventDestroy(r.a);
            return hs_error_set(err, HS_ENOMEM, "out of memory for copy events");
        }
        cx->recs = n;
        cx->caprecs = cap;
    }
    cx->recs[cx->nrecs] = r;
    *out = &cx->recs[cx->nrecs++]; /* valid while cx->mu is held */
    return HS_OK;
}

/* Enqueues one copy on stream s of the GPU of memory `mem` after event
 * `after`, recording its events; *done gets the end event (done NULL and
 * rec NULL: no event is recorded). */
static int async_copy(cctx *cx, int mem, cudaStream_t s, void *dst, int dst_dev,
                      const void *src, int src_dev, size_t bytes, void *after,
                      hs_run_copy *rec, void **done, hs_error *err)
{
    cudaEvent_t a = NULL, b = NULL;
    crec *r = NULL;
    int rc;
    if ((rc = CK(cudaSetDevice(cx->m[mem].dev))) != 0)
        return rc;
    if (done || rec) {
        if ((rc = new_rec(cx, mem, rec, &r, err)) != 0)
            return rc;
        a = r->a;
        b = r->b;
        pthread_mutex_unlock(&cx->mu);
    }
    if (after && (rc = CK(cudaStreamWaitEvent(s, (cudaEvent_t)after, 0))) != 0)
        return rc;
    if (a && (rc = CK(cudaEventRecord(a, s))) != 0)
        return rc;
    if (dst_dev >= 0 && src_dev >= 0 && dst_dev != src_dev)
        rc = CK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, s));
    else
        rc = CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
    if (rc == HS_OK && b && (rc = CK(cudaEventRecord(b, s))) == 0 && done)
        *done = b;
    return rc;
}

/* Times a synchronous copy on the host clock. */
static void host_times(const cctx *cx, hs_run_copy *rec, double start)
{
    if (rec && cx->t0) {
        rec->start_us = start;
        rec->end_us = hs__since_us(cx->t0);
    }
}

static double host_now(const cctx *cx)
{
    return cx->t0 ? hs__since_us(cx->t0) : 0.0;
}

/* GPU to GPU without peer access: through a pinned host buffer, waiting
 * for both halves; timed on the host clock. */
static int staged_copy(cctx *cx, int to, void *dst, int from, const void *src, size_t bytes,
                       void *after, hs_run_copy *rec, void **done, hs_error *err)
{
    double start = host_now(cx);
    void *tmp = NULL, *ev = NULL, *end = NULL;
    int rc;
    if ((rc = CK(cudaHostAlloc(&tmp, bytes ? bytes : 1, cudaHostAllocPortable))) != 0)
        return rc;
    if ((rc = async_copy(cx, from, cx->m[from].s[S_D2H], tmp, -1, src, -1, bytes, after, NULL,
                         &ev, err)) == 0 &&
        (rc = async_copy(cx, to, cx->m[to].s[S_H2D], dst, -1, tmp, -1, bytes, ev, NULL, &end,
                         err)) == 0)
        rc = CK(cudaEventSynchronize((cudaEvent_t)end));
    if (done)
        *done = end;
    cudaFreeHost(tmp);
    host_times(cx, rec, start);
    return rc;
}

static int c_copy(void *ctx, int to, void *dst, int from, const void *src, size_t bytes,
                  void *after, hs_run_copy *rec, void **done, hs_error *err)
{
    cctx *cx = ctx;
    cmem *t = &cx->m[to], *f = &cx->m[from];
    int rc;
    if (done)
        *done = NULL;
    if (t->kind != MK_GPU && f->kind != MK_GPU) {
        double start;
        if (after && (rc = CK(cudaEventSynchronize((cudaEvent_t)after))) != 0)
            return rc;
        start = host_now(cx);
        memcpy(dst, src, bytes);
        host_times(cx, rec, start);
        return HS_OK;
    }
    if (f->kind != MK_GPU)
        return async_copy(cx, to, t->s[S_H2D], dst, -1, src, -1, bytes, after, rec, done, err);
    if (t->kind != MK_GPU)
        return async_copy(cx, from, f->s[S_D2H], dst, -1, src, -1, bytes, after, rec, done,
                          err);
    if (t->dev == f->dev || cx->peer[from * cx->nmem + to])
        return async_copy(cx, to, t->s[S_D2D], dst, t->dev, src, f->dev, bytes, after, rec,
                          done, err);
    return staged_copy(cx, to, dst, from, src, bytes, after, rec, done, err);
}

static int c_sync(void *ctx, void *ev, hs_error *err)
{
    (void)ctx;
    return ev ? CK(cudaEventSynchronize((cudaEvent_t)ev)) : HS_OK;
}

static int c_ready(void *ctx, void *ev)
{
    cudaError_t e;
    (void)ctx;
    if (!ev)
        return 1;
    e = cudaEventQuery((cudaEvent_t)ev);
    if (e == cudaErrorNotReady) {
        cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    return 1; /* done, or failed: sync reports the failure */
}

/* GPU times go onto the run's clock (the host's monotonic clock) through
 * anchors: events that the host saw happen, each at the middle of the
 * shortest of ANCHOR_TRIES windows between asking for it on the GPU's idle
 * clock stream and seeing it done.  One anchor at start_clock was not
 * enough: an event's time is a float of ms from its anchor (0.12 us steps
 * at 1 s, 1 us at 10 s), and a GPU's clock runs apart from the host's (an
 * H200 gained 3.1-3.2 us a second on both CLOCK_MONOTONIC and its raw
 * kind, steadily over 4 s), so in runs of a second the copy that a CPU
 * kernel waited for came out ending up to 0.6 us after that kernel
 * started, and validate refused those schedules.  So a thread places an
 * anchor every ANCHOR_EVERY_MS while the clock runs (of ANCHOR_TRIES_RUNNING
 * windows, to keep its CUDA calls few beside the workers'), and an event is
 * timed from the last anchor before it (0.16 us of drift at most). */
#define ANCHOR_TRIES 16
#define ANCHOR_TRIES_RUNNING 4
#define ANCHOR_EVERY_MS 50
/* An event is timed from an anchor this much before its rough time, so
 * that the anchor surely came first. */
#define ANCHOR_MARGIN_US 1000.0

/* Where event ev of memory m's GPU happened on the run's clock, given
 * anchor k0 recorded before it (last_anchor when ev was recorded): timed
 * from k0, and again from the last anchor before that time when a later one
 * is nearer (0 before the clock starts: no anchor). */
static int event_us(cctx *cx, int m, size_t k0, cudaEvent_t ev, double *us, hs_error *err)
{
    cmem *cm = &cx->m[m];
    float ms = 0;
    int rc = HS_OK;
    *us = 0.0;
    pthread_mutex_lock(&cx->clock_mu);
    if (k0 >= cm->nanchors) /* the clock started again since */
        k0 = 0;
    if (cm->nanchors > 0 && (rc = CK(cudaEventElapsedTime(&ms, cm->anchors[k0].ev, ev))) == 0) {
        double rough = cm->anchors[k0].us + 1e3 * (double)ms;
        size_t lo = k0, hi = cm->nanchors;
        while (hi - lo > 1) { /* the last anchor at or before rough - margin */
            size_t mid = lo + (hi - lo) / 2;
            if (cm->anchors[mid].us <= rough - ANCHOR_MARGIN_US)
                lo = mid;
            else
                hi = mid;
        }
        if (lo > k0)
            rc = CK(cudaEventElapsedTime(&ms, cm->anchors[lo].ev, ev));
        *us = cm->anchors[lo].us + 1e3 * (double)ms;
    }
    pthread_mutex_unlock(&cx->clock_mu);
    return rc;
}

/* Records an anchor of cm's GPU (the current device) into *a: a new event,
 * and where it happened on the clock of t0. */
static int place_anchor(cmem *cm, const struct timespec *t0, int tries, anchor *a,
                        hs_error *err)
{
    cudaEvent_t spare = NULL;
    double best = HUGE_VAL;
    int rc = CK(cudaEventCreate(&a->ev));
    if (rc == HS_OK)
        rc = CK(cudaEventCreate(&spare));
    for (int i = 0; i < tries && rc == HS_OK; i++) {
        double before = hs__since_us(t0), after;
        cudaError_t q;
        if ((rc = CK(cudaEventRecord(spare, cm->s[S_CLOCK]))) != 0)
            break;
        while ((q = cudaEventQuery(spare)) == cudaErrorNotReady)
            ;
        after = hs__since_us(t0);
        if (q != cudaSuccess) {
            rc = CK(q);
            break;
        }
        if (after - before < best) {
            cudaEvent_t was = a->ev;
            a->ev = spare;
            spare = was;
            best = after - before;
            a->us = (before + after) / 2;
        }
    }
    if (spare)
        cudaEventDestroy(spare);
    if (rc != HS_OK && a->ev) {
        cudaEventDestroy(a->ev);
        a->ev = NULL;
    }
    return rc;
}

/* Places an anchor of memory m's GPU and adds it to its anchors. */
static int add_anchor(cctx *cx, int m, int tries, hs_error *err)
{
    cmem *cm = &cx->m[m];
    anchor a = {0};
    int rc = CK(cudaSetDevice(cm->dev));
    if (rc != HS_OK || (rc = place_anchor(cm, cx->t0, tries, &a, err)) != HS_OK)
        return rc;
    pthread_mutex_lock(&cx->clock_mu);
    if (cm->nanchors == cm->capanchors) {
        size_t cap = cm->capanchors ? 2 * cm->capanchors : 64;
        anchor *more = realloc(cm->anchors, cap * sizeof *more);
        if (!more) {
            pthread_mutex_unlock(&cx->clock_mu);
            cudaEventDestroy(a.ev);
            return hs_error_set(err, HS_ENOMEM, "out of memory for the cuda backend's clock");
        }
        cm->anchors = more;
        cm->capanchors = cap;
    }
    cm->anchors[cm->nanchors++] = a;
    pthread_mutex_unlock(&cx->clock_mu);
    return HS_OK;
}

/* Every ANCHOR_EVERY_MS until clock_stop: an anchor on every GPU.  A
 * failure leaves the times to the anchors placed before it. */
static void *clock_main(void *arg)
{
    cctx *cx = arg;
    pthread_mutex_lock(&cx->clock_mu);
    while (!cx->clock_stop) {
        struct timespec until;
        hs__monotonic_in(&until, ANCHOR_EVERY_MS * 1e3);
        while (!cx->clock_stop &&
               pthread_cond_timedwait(&cx->clock_cv, &cx->clock_mu, &until) != ETIMEDOUT)
            ;
        if (cx->clock_stop)
            break;
        pthread_mutex_unlock(&cx->clock_mu);
        for (int m = 0; m < cx->nmem; m++)
            if (cx->m[m].kind == MK_GPU)
                add_anchor(cx, m, ANCHOR_TRIES_RUNNING, NULL);
        pthread_mutex_lock(&cx->clock_mu);
    }
    pthread_mutex_unlock(&cx->clock_mu);
    return NULL;
}

/* Stops the anchoring thread, if it runs. */
static void stop_clock(cctx *cx)
{
    if (!cx->clock_running)
        return;
    pthread_mutex_lock(&cx->clock_mu);
    cx->clock_stop = 1;
    pthread_cond_signal(&cx->clock_cv);
    pthread_mutex_unlock(&cx->clock_mu);
    pthread_join(cx->clock, NULL);
    cx->clock_running = cx->clock_stop = 0;
}

/* Forgets every anchor (the anchoring thread stopped). */
static void drop_anchors(cctx *cx)
{
    for (int m = 0; cx->m && m < cx->nmem; m++) {
        cmem *cm = &cx->m[m];
        if (cm->nanchors)
            cudaSetDevice(cm->dev);
        for (size_t i = 0; i < cm->nanchors; i++)
            cudaEventDestroy(cm->anchors[i].ev);
        cm->nanchors = 0;
    }
}

/* The clock starts (again: calibrate restarts it before each measurement)
 * with an anchor on every GPU and the thread that places the next ones;
 * without that thread (it could not start) times are taken from the first
 * anchor. */
static int c_start_clock(void *ctx, const struct timespec *t0, hs_error *err)
{
    cctx *cx = ctx;
    int rc;
    stop_clock(cx);
    drop_anchors(cx);
    pthread_mutex_lock(&cx->mu);
    cx->t0 = t0;
    cx->clock_started = 1;
    pthread_mutex_unlock(&cx->mu);
    for (int m = 0; m < cx->nmem; m++)
        if (cx->m[m].kind == MK_GPU && (rc = add_anchor(cx, m, ANCHOR_TRIES, err)) != 0)
            return rc;
    cx->clock_running = pthread_create(&cx->clock, NULL, clock_main, cx) == 0;
    return HS_OK;
}

/* Only the memory's own worker launches on it: no lock. */
static int c_launch(void *ctx, int m, const hs_kconf *c, void *const *bufs, size_t begin,
                    size_t end, void *const *ev, int nev, void **k, hs_error *err)
{
    cctx *cx = ctx;
    cmem *cm = &cx->m[m];
    cudaStream_t s = cm->s[S_COMPUTE];
    ckernel *kn = &cm->kern[cm->next_kern++ % HS_BACKEND_MAX_DEPTH];
    int rc;
    kn->anchor = last_anchor(cx, m);
    if ((rc = CK(cudaSetDevice(cm->dev))) != 0)
        return rc;
    for (int i = 0; i < nev; i++)
        if ((rc = CK(cudaStreamWaitEvent(s, (cudaEvent_t)ev[i], 0))) != 0)
            return rc;
    if ((rc = CK(cudaEventRecord(kn->start, s))) != 0 ||
        (rc = hs_krun_cuda(c, bufs, begin, end, cm->k, (hs_kstream)s, err)) != 0 ||
        (rc = CK(cudaEventRecord(kn->end, s))) != 0)
        return rc;
    *k = kn;
    return HS_OK;
}

static int c_finish(void *ctx, void *k, double *start_us, double *end_us, void **done,
                    hs_error *err)
{
    cctx *cx = ctx;
    ckernel *kn = k;
    int rc;
    if ((rc = CK(cudaEventSynchronize(kn->end))) != 0 || (rc = CK(cudaGetLastError())) != 0 ||
        (rc = event_us(cx, kn->mem, kn->anchor, kn->start, start_us, err)) != 0)
        return rc;
    *done = NULL; /* it has happened */
    return event_us(cx, kn->mem, kn->anchor, kn->end, end_us, err);
}

/* Waits for every recorded copy, fills the records of the timed ones once,
 * and frees their events. */
static int c_flush(void *ctx, hs_error *err)
{
    cctx *cx = ctx;
    int rc = HS_OK;
    pthread_mutex_lock(&cx->mu);
    for (size_t i = 0; i < cx->nrecs; i++) {
        crec *r = &cx->recs[i];
        int e = CK(cudaEventSynchronize(r->b));
        if (e == HS_OK && r->rec && r->a &&
            (e = event_us(cx, r->mem, r->anchor, r->a, &r->rec->start_us, err)) == 0)
            e = event_us(cx, r->mem, r->anchor, r->b, &r->rec->end_us, err);
        r->rec = NULL; /* filled once */
        if (rc == HS_OK)
            rc = e;
        err = rc == HS_OK ? err : NULL; /* keep the first message */
    }
    pthread_mutex_unlock(&cx->mu);
    return rc;
}

/* Destroys every event and stream, the kernel contexts, cx. */
static void c_fini(void *ctx)
{
    cctx *cx = ctx;
    if (!cx)
        return;
    stop_clock(cx);
    drop_anchors(cx);
    for (size_t i = 0; i < cx->nrecs; i++) {
        cudaEventDestroy(cx->recs[i].b);
        if (cx->recs[i].a)
            cudaEventDestroy(cx->recs[i].a);
    }
    for (int m = 0; cx->m && m < cx->nmem; m++) {
        cmem *cm = &cx->m[m];
        if (cm->kind != MK_GPU)
            continue;
        cudaSetDevice(cm->dev);
        for (int s = 0; s < S_N; s++)
            if (cm->s[s])
                cudaStreamDestroy(cm->s[s]);
        free(cm->anchors);
        for (int i = 0; i < HS_BACKEND_MAX_DEPTH; i++) {
            if (cm->kern[i].start)
                cudaEventDestroy(cm->kern[i].start);
            if (cm->kern[i].end)
                cudaEventDestroy(cm->kern[i].end);
        }
        hs_kcuda_free(cm->k);
    }
    for (size_t i = 0; i < cx->nmaps; i++)
        unpin_mapped(&cx->maps[i]);
    free(cx->maps);
    pthread_mutex_destroy(&cx->mu);
    pthread_mutex_destroy(&cx->clock_mu);
    pthread_cond_destroy(&cx->clock_cv);
    free(cx->recs);
    free(cx->peer);
    free(cx->m);
    free(cx);
}

static int c_direct(void *ctx, int from, int to)
{
    const cctx *cx = ctx;
    const cmem *f = &cx->m[from], *t = &cx->m[to];
    return f->kind != MK_GPU || t->kind != MK_GPU || f->dev == t->dev ||
           cx->peer[from * cx->nmem + to];
}

static const hs__mem_ops cuda_ops = {
    .host_side = c_host_side,
    .capacity = c_capacity,
    .alloc = c_alloc,
    .free = c_free,
    .start_clock = c_start_clock,
    .copy = c_copy,
    .sync = c_sync,
    .ready = c_ready,
    .launch = c_launch,
    .finish = c_finish,
    .flush = c_flush,
    .fini = c_fini,
    .direct = c_direct,
};

/* Maps memories to CUDA devices (see the head of this file): the gpu
 * devices that `local` marks (NULL: all). */
static int map_devices(const hs_workload *w, const unsigned char *local, cctx *cx,
                       hs_error *err)
{
    const hs_platform *pf = &w->platform;
    int ngpu = 0, ncuda = 0;
    cudaError_t e = cudaGetDeviceCount(&ncuda);
    if (e != cudaSuccess) {
        cudaGetLastError();
        ncuda = 0;
    }
    for (int d = 0; d < pf->ndevices; d++)
        ngpu += pf->devices[d].kind == HS_DEVICE_GPU && (!local || local[d]);
    if (ngpu > ncuda)
        return hs_error_set(err, HS_EINPUT, "backend cuda: the platform has %d gpu devices but "
                            "CUDA finds %d (%s); the k-th gpu device is CUDA device k", ngpu,
                            ncuda, e == cudaSuccess ? "no error" : cudaGetErrorString(e));
    for (int m = 0; m < cx->nmem; m++)
        cx->m[m].kind = m == HS_HOST_MEMORY ? MK_HOST : MK_PLAIN;
    for (int d = 0, k = 0; d < pf->ndevices; d++) {
        const hs_device *dev = &pf->devices[d];
        if (dev->kind != HS_DEVICE_GPU || (local && !local[d]))
            continue;
        for (int o = 0; o < pf->ndevices; o++)
            if (o != d && pf->devices[o].memory == dev->memory)
                return hs_error_set(err, HS_EINPUT, "backend cuda: gpu device '%s' shares "
                                    "memory '%s' with device '%s'; each GPU needs its own",
                                    dev->name, pf->memories[dev->memory], pf->devices[o].name);
        if (dev->memory == HS_HOST_MEMORY)
            return hs_error_set(err, HS_EINPUT, "backend cuda: gpu device '%s' is on memory "
                                "host; a GPU needs its own memory", dev->name);
        cx->m[dev->memory].kind = MK_GPU;
        cx->m[dev->memory].dev = k++;
    }
    return HS_OK;
}

/* Lets device `dev` read peer's memory, once per process: peer access
 * outlives a run, and enabling it twice is an error of CUDA's. */
static int enable_peer(int dev, int peer, hs_error *err)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static unsigned char on[64][64];
    cudaError_t e = cudaSuccess;
    int rc;
    if ((rc = CK(cudaSetDevice(dev))) != 0)
        return rc;
    pthread_mutex_lock(&mu);
    if (dev >= 64 || peer >= 64 || !on[dev][peer]) {
        e = cudaDeviceEnablePeerAccess(peer, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) {
            cudaGetLastError();
            e = cudaSuccess;
        }
        if (e == cudaSuccess && dev < 64 && peer < 64)
            on[dev][peer] = 1;
    }
    pthread_mutex_unlock(&mu);
    return hs__cuda_ok(e, "backend cuda", "cudaDeviceEnablePeerAccess", err);
}

/* Streams, kernel context, capacity of each GPU; peer access between them. */
static int open_gpus(cctx *cx, size_t device_memory, hs_error *err)
{
    int rc;
    for (int m = 0; m < cx->nmem; m++) {
        cmem *cm = &cx->m[m];
        size_t free_b = 0, total = 0;
        cm->capacity = SIZE_MAX;
        if (cm->kind == MK_PLAIN && device_memory)
            cm->capacity = device_memory;
        if (cm->kind != MK_GPU)
            continue;
        if ((rc = CK(cudaSetDevice(cm->dev))) != 0)
            return rc;
        for (int s = 0; s < S_N; s++)
            if ((rc = CK(cudaStreamCreateWithFlags(&cm->s[s], cudaStreamNonBlocking))) != 0)
                return rc;
        if ((rc = hs_kcuda_new(cm->dev, &cm->k, err)) != 0)
            return rc;
        for (int i = 0; i < HS_BACKEND_MAX_DEPTH; i++) {
            cm->kern[i].cx = cx;
            cm->kern[i].mem = m;
            if ((rc = CK(cudaEventCreate(&cm->kern[i].start))) != 0 ||
                (rc = CK(cudaEventCreate(&cm->kern[i].end))) != 0)
                return rc;
        }
        if ((rc = CK(cudaMemGetInfo(&free_b, &total))) != 0)
            return rc;
        cm->capacity = device_memory           ? device_memory
                       : free_b > HS__CUDA_MARGIN ? free_b - HS__CUDA_MARGIN
                                                  : 0;
    }
    for (int a = 0; a < cx->nmem; a++)
        for (int b = 0; b < cx->nmem; b++) {
            cmem *ma = &cx->m[a], *mb = &cx->m[b];
            int can = 0;
            if (a == b || ma->kind != MK_GPU || mb->kind != MK_GPU || ma->dev == mb->dev)
                continue;
            if ((rc = CK(cudaDeviceCanAccessPeer(&can, mb->dev, ma->dev))) != 0)
                return rc;
            if (!can)
                continue;
            if ((rc = enable_peer(mb->dev, ma->dev, err)) != 0)
                return rc;
            cx->peer[a * cx->nmem + b] = 1;
        }
    return HS_OK;
}

int hs__mem_cuda_new(const hs_workload *w, const unsigned char *local, size_t device_memory,
                     const hs__mem_ops **ops, void **ctx, hs_error *err)
{
    cctx *cx = calloc(1, sizeof *cx);
    int nm = w->platform.nmemories, rc;
    if (!cx)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the cuda backend");
    pthread_mutex_init(&cx->mu, NULL);
    pthread_mutex_init(&cx->clock_mu, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&cx->clock_cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    cx->nmem = nm;
    cx->m = calloc((size_t)nm, sizeof *cx->m);
    cx->peer = calloc((size_t)nm * (size_t)nm, 1);
    if (!cx->m || !cx->peer)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the cuda backend");
    else if ((rc = map_devices(w, local, cx, err)) == 0)
        rc = open_gpus(cx, device_memory, err);
    if (rc != HS_OK) {
        c_fini(cx);
        return rc;
    }
    *ops = &cuda_ops;
    *ctx = cx;
    return HS_OK;
}

int hs__mem_cuda_count(char *why, size_t size)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, size, "no GPU found: cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    if (n == 0)
        snprintf(why, size, "no GPU found");
    else
        why[0] = '\0';
    return n;
}

void hs__mem_cuda_describe(int dev, char *buf, size_t size)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        snprintf(buf, size, "CUDA device %d", dev);
        return;
    }
    snprintf(buf, size, "%s, %.1f GiB, compute capability %d.%d", p.name,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.major, p.minor);
}

int hs__mem_cuda_sms(int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}
