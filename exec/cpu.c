/* hetsched — the `cpu` backend (exec/data.h) and the worker machinery that
 * the emu and cuda backends share (exec/real.h).
 *
 * One worker thread per device, and for each two single-producer
 * single-consumer rings of C11 atomics, with no lock: start_task appends a
 * task to its device's task ring; the worker runs its tasks in that order
 * through the data manager (exec/data.c) and appends each completion to its
 * completion ring, which poll() (and wait()) drain.  A device whose kernels
 * are enqueued (a GPU's) has a second thread, its completer: the worker
 * only launches, the completer completes and posts (launch_apart below).
 * A device holds at most `depth` started tasks (hs__real_depth), so neither
 * ring overflows: a slot is written again only after the completion of the
 * task that last used it was taken.  When a worker takes a task and the
 * next one is queued, it asks the data manager to prefetch the next one's
 * inputs, so that copies can overlap the kernel (cuda).
 *
 * Who runs the engine (drive, as StarPU's workers run its scheduler): after
 * posting a completion a worker (a completer, with nothing in flight on its
 * device) runs the engine's step itself (take the
 * posted completions, tell the policy, start what it picks), unless another
 * thread is running one: flat combining on the `stepping` flag, which is
 * only ever tried, never waited for.  Its holder looks for posted
 * completions again after it lets go, and both sides are sequentially
 * consistent, so none is left behind.  A chain of short tasks then runs on
 * one thread with no hand-over at all, and the caller's thread sleeps.
 * Steps never overlap, so each ring still has one producer and one consumer
 * at a time.  Without drive (hs__real_wait) the engine's thread takes the
 * completions.
 *
 * Waiting: a thread with nothing to do spins with the cpu's pause hint
 * (PAUSE_NS), then yields (up to SPIN_NS: on a loaded machine the thread it
 * waits for may need its core), then sleeps on a futex, so an idle thread
 * burns no core.  No wake-up is lost: a sleeper announces itself (sleeping =
 * 1) and then looks at what it waits for once more; a producer publishes and
 * then looks at the flag; all four accesses are sequentially consistent, so
 * one of the two sees the other's store (Dekker; not with fences, which
 * ThreadSanitizer does not model).
 *
 * Errors: a worker keeps the first error (of a task or a prefetch) and still
 * posts the completion; from then on each completion taken returns that
 * error, so the step (or wait) that takes it fails the run, and no step
 * starts after.  fini stops the workers: each ends after the task it runs,
 * leaving the rest of its queue.
 *
 * Times are µs on the monotonic clock since init.  The `emu` backend
 * (exec/emu.c) is this one with a memory space per memory.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "exec/data.h"
#include "exec/real.h"

#define RING HS_BACKEND_MAX_DEPTH /* slots per ring: the most a device holds */
#define LINE 64                   /* cache line: fields of different writers apart */
#define PAUSE_NS 5000             /* how long an idle thread spins with pauses, */
#define SPIN_NS 50000             /* ... and with yields, before it sleeps */
#define NAP_NS 10000              /* a worker holding kernels back polls so often */

/* Where one thread sleeps: seq is the futex word, bumped by every wake. */
typedef struct parker {
    atomic_uint seq;
    atomic_int sleeping;
#ifndef __linux__
    pthread_mutex_t mu;
    pthread_cond_t cv;
#endif
} parker;

typedef struct worker {
    /* written by the engine's side (the thread running it), read by the worker */
    _Alignas(LINE) atomic_size_t tasks_tail; /* tasks appended so far */
    size_t task[RING];
    double issued[RING];                     /* when start_task handed it over */
    size_t span[RING][3];                    /* a chunk's begin, end and the
                                                kernel's items; items 0: whole */
    unsigned char order[RING];               /* start_task's (HS_START_*) */
    /* written by the worker, read by the engine's side */
    _Alignas(LINE) atomic_size_t done_tail;  /* completions appended so far */
    hs_completion done[RING];
    _Alignas(LINE) parker park;              /* the worker sleeps here */
    /* the engine's side's */
    _Alignas(LINE) size_t sent;              /* tasks appended */
    atomic_size_t taken;                     /* completions taken (read by combine) */
    size_t held;                             /* sent and not taken */
    /* a device whose kernels are enqueued has a second thread, its
     * completer (complete_apart): the worker launches (fl, launched), the
     * completer completes in launch order (completed) */
    hs__launch fl[RING];
    unsigned char back[RING];                /* handed back unrun: the device failed */
    _Alignas(LINE) atomic_size_t launched;   /* written by the worker */
    _Alignas(LINE) atomic_size_t completed;  /* written by the completer */
    _Alignas(LINE) parker cpark;             /* the completer sleeps here */
    atomic_int launcher_done;                /* the worker has ended */
    /* prefetches asked by the engine's side (hs__real_prefetch) for a
     * worker that launches apart to make on its own thread, so that a step
     * never waits for their allocations and copies: pf[first..n) under
     * pf_mu, oldest first, each with the tasks handed over when it was
     * asked (sent) */
    _Alignas(LINE) atomic_int pf_pending;    /* pf holds some */
    pthread_mutex_t pf_mu;
    struct asked {
        size_t task, sent;
        double bytes;                        /* hs__real_prefetch's */
    } *pf;
    size_t pf_first, npf, cappf;
    /* set at init */
    struct real *rb;
    int device;
    int depth;                               /* most started tasks it holds */
    int apart;                               /* launches and completes on two threads */
    int started, cstarted;
    pthread_t tid, ctid;
} worker;

typedef struct real {
    /* set at init, read by every thread */
    const hs_workload *w;
    const hs_graph *g;      /* the graph run */
    hs__data *dm;
    hs_run_report *report;  /* the caller's, or NULL */
    struct timespec t0;
    int nworkers;
    worker *workers;
    /* shared, written rarely */
    _Alignas(LINE) atomic_int stop;
    atomic_int claimed;     /* a worker is writing ferr */
    atomic_int failed;      /* ferr is written */
    hs_error ferr;          /* the first worker error */
    _Alignas(LINE) parker park; /* the caller's thread sleeps here (wait, drive) */
    atomic_int primed;      /* workers and completers that have primed their thread */
    /* drive: the engine's step, run by whoever holds `stepping` */
    int (*step)(void *ctx, hs_error *err);
    void *ctx;
    _Alignas(LINE) atomic_int stepping;
    atomic_int finished;    /* a step returned 1 or an error: no more steps */
    int result;             /* 0, or that error; and its message: */
    hs_error serr;
    /* the engine's side's */
    _Alignas(LINE) size_t outstanding; /* started, not yet returned by wait/poll */
} real;

/* --------------------------------------------------------- spin, then sleep */

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleeps on p while its word is `seen`, at most ns nanoseconds (0: no
 * limit). */
#ifdef __linux__
static void os_sleep(parker *p, unsigned seen, long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    syscall(SYS_futex, &p->seq, FUTEX_WAIT_PRIVATE, seen, ns ? &ts : NULL, NULL, 0);
}

static void os_wake(parker *p)
{
    syscall(SYS_futex, &p->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#else
static void os_sleep(parker *p, unsigned seen, long ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (until.tv_nsec + ns) / 1000000000L;
    until.tv_nsec = (until.tv_nsec + ns) % 1000000000L;
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->seq) == seen)
        if ((ns ? pthread_cond_timedwait(&p->cv, &p->mu, &until)
                : pthread_cond_wait(&p->cv, &p->mu)) != 0)
            break;
    pthread_mutex_unlock(&p->mu);
}

static void os_wake(parker *p)
{
    pthread_mutex_lock(&p->mu);
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}
#endif

static void parker_init(parker *p)
{
    atomic_init(&p->seq, 0);
    atomic_init(&p->sleeping, 0);
#ifndef __linux__
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
#endif
}

static void parker_destroy(parker *p)
{
#ifndef __linux__
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
#endif
    (void)p;
}

/* Sleeps on p until a wake, or for at most ns nanoseconds (0: no limit),
 * unless ready(arg) holds: it says it sleeps before it looks (sequentially
 * consistent), so a producer that publishes then wakes is never missed.  A
 * worker that holds kernels back polls their copies between naps.  Only
 * p's owner calls it. */
static void nap(parker *p, int (*ready)(const void *), const void *arg, long ns)
{
    unsigned seen = atomic_load(&p->seq);
    atomic_store(&p->sleeping, 1);
    if (!ready(arg))
        os_sleep(p, seen, ns);
    atomic_store_explicit(&p->sleeping, 0, memory_order_relaxed);
}

/* Returns once ready(arg) holds: spins with pauses for up to PAUSE_NS, then
 * with sched_yield up to SPIN_NS (the thread it waits for may need this
 * core: the machine may have fewer free cores than threads), reading the
 * clock every 64 turns only; then sleeps on p until a producer wakes it.
 * Only p's owner calls it. */
static void await(parker *p, int (*ready)(const void *), const void *arg)
{
    long long start = 0, t;
    int yield = 0;
    for (unsigned i = 1;; i++) {
        if (ready(arg))
            return;
        if (yield || i % 64 == 0) {
            t = now_ns();
            if (!start)
                start = t;
            else if (t - start > SPIN_NS)
                break;
            yield = t - start > PAUSE_NS;
        }
        if (yield)
            sched_yield();
        else
            cpu_relax();
    }
    while (!ready(arg))
        nap(p, ready, arg, 0);
}

/* Wakes p's owner if it sleeps or is about to; the caller has just
 * published, with a sequentially consistent store, what the owner waits
 * for. */
static void wake(parker *p)
{
    if (atomic_load(&p->sleeping)) {
        atomic_fetch_add(&p->seq, 1);
        os_wake(p);
    }
}

/* ------------------------------------------------------------- the worker */

/* Readies the calling thread (a worker or a completer) for its first task
 * and tells init: glibc gives a thread its own malloc arena at its first
 * allocation, which took 60-80 us on a 2-core VM (the first sampled check's
 * bookkeeping, or the first CPU kernel's split, paid it inside a run of 1.6
 * ms).  init waits for every thread to get here, so that this, and the
 * thread's own start, happen before the run's clock. */
static void prime(real *rb)
{
    void *volatile p = malloc(LINE); /* volatile: the pair is not optimised away */
    free(p);
    atomic_fetch_add(&rb->primed, 1);
    wake(&rb->park);
}

typedef struct count {
    const atomic_int *n;
    int want;
} count;

static int counted(const void *arg)
{
    const count *c = arg;
    return atomic_load(c->n) >= c->want;
}

typedef struct want {
    const worker *wk;
    size_t head;            /* tasks the worker took so far */
} want;

static int task_or_stop(const void *arg)
{
    const want *q = arg;
    return atomic_load(&q->wk->tasks_tail) != q->head ||
           atomic_load(&q->wk->rb->stop);
}

/* The same, or a prefetch to make (a worker that launches apart). */
static int task_prefetch_or_stop(const void *arg)
{
    const want *q = arg;
    return task_or_stop(arg) || atomic_load(&q->wk->pf_pending);
}

/* Keeps the first worker error, for the step (or wait) that takes a
 * completion. */
static void fail(real *rb, const hs_error *err)
{
    int no = 0;
    if (atomic_compare_exchange_strong(&rb->claimed, &no, 1)) {
        rb->ferr = *err;
        if (!rb->ferr.code)
            rb->ferr.code = HS_EINTERNAL;
        atomic_store_explicit(&rb->failed, 1, memory_order_release);
    }
}

/* Whether a completion is posted that no step has taken. */
static int pending(const real *rb)
{
    for (int i = 0; i < rb->nworkers; i++)
        if (atomic_load(&rb->workers[i].done_tail) !=
            atomic_load_explicit(&rb->workers[i].taken, memory_order_relaxed))
            return 1;
    return 0;
}

/* Runs one engine step (the caller holds `stepping`) on device d's worker,
 * or on the engine's own thread (d -1), and records it (HS_EV_STEP); the
 * step that ends the run keeps its result and wakes the thread waiting in
 * drive. */
static void run_step(real *rb, int d)
{
    hs_error err;
    double start = hs__data_now(rb->dm);
    int rc;
    err.code = 0;
    err.msg[0] = err.path[0] = '\0';
    rc = rb->step(rb->ctx, &err);
    hs__data_log(rb->dm, d, HS_EV_STEP, -1, start, hs__data_now(rb->dm));
    if (rc == 0)
        return;
    rb->result = rc < 0 ? rc : 0;
    if (rc < 0)
        rb->serr = err;
    atomic_store(&rb->finished, 1);
    wake(&rb->park);
}

/* Flat combining: while completions are posted and the run goes on, takes
 * `stepping` and runs a step, unless another thread holds it: that one
 * looks for posted completions again after it lets go (both sides are
 * sequentially consistent), so none is left behind. */
static void combine(real *rb, int d)
{
    while (!atomic_load(&rb->finished) && pending(rb)) {
        if (atomic_exchange(&rb->stepping, 1))
            return;
        if (!atomic_load(&rb->finished))
            run_step(rb, d);
        atomic_store(&rb->stepping, 0);
    }
}

/* Prefetches the inputs of the task queued after `head`, if any (each task
 * is next once: prefetched once). */
static void prefetch_next(worker *wk, size_t head, size_t tail)
{
    hs_error err;
    err.code = 0;
    err.msg[0] = err.path[0] = '\0';
    if (tail > head + 1 && !wk->span[(head + 1) % RING][2] &&
        hs__data_prefetch(wk->rb->dm, wk->task[(head + 1) % RING], wk->device, SIZE_MAX, &err))
        fail(wk->rb, &err);
}

/* Launches the task at `head` (the worker's next) and prefetches the inputs
 * of the one queued after it.  A device whose work is enqueued (a GPU's)
 * launches first: its copies go on its links in launch order, so the next
 * task's inputs must not go ahead of this one's (two 268 MB gemm inputs
 * queued before the running gemm's own doubled its wait on the H100).  A
 * device that runs its task in this call prefetches first, so that the
 * copies overlap the kernel. */
static void launch(worker *wk, size_t head, size_t tail, int hold, hs__launch *l)
{
    real *rb = wk->rb;
    const size_t *span = wk->span[head % RING];
    int enqueues = hs__data_enqueues(rb->dm, wk->device), rc;
    double start = enqueues ? hs__data_now(rb->dm) : 0.0; /* a launch is logged on those only */
    if (!enqueues)
        prefetch_next(wk, head, tail);
    rc = span[2] ? hs__data_launch_chunk(rb->dm, wk->task[head % RING], wk->device, span[0],
                                         span[1], span[2], wk->issued[head % RING], l)
                 : hs__data_launch(rb->dm, wk->task[head % RING], wk->device,
                                   wk->issued[head % RING], hold, l);
    if (rc != 0)
        fail(rb, &l->err);
    if (enqueues) {
        prefetch_next(wk, head, tail);
        hs__data_log(rb->dm, wk->device, HS_EV_LAUNCH, (long)l->t, start, hs__data_now(rb->dm));
    }
}

/* Whether the device fails at the task it is about to take, its
 * `taken`-th (hs_run_report's fail_device and fail_after). */
static int fails_now(const worker *wk, size_t taken)
{
    const hs_run_report *r = wk->rb->report;
    return r && r->fail_after && r->fail_device == wk->device && taken >= r->fail_after;
}

/* ------------------------------------ launching and completing apart
 * A device whose kernels are enqueued (a GPU's) spends host time on each
 * task twice: launching it (buffers, copies, the kernel and its events:
 * some 6 us on an H200 host) and completing it (its end, its result,
 * posting, the engine's step).  On one thread that is more than a tiny
 * kernel lasts (pi: 5 us), and the device waits for its host.  So its
 * worker launches only, up to its depth ahead, and a second thread, the
 * completer, completes in launch order, posts, and runs the engine's step
 * when the device has nothing in flight.  A task the device takes once it
 * failed goes through the completer too, handed back unrun, so that
 * completions stay in start order and the done ring keeps one producer. */

typedef struct seen {
    const worker *wk;
    size_t n;               /* the count last seen */
} seen;

/* Fewer than depth tasks in flight. */
static int has_room(const worker *wk)
{
    return atomic_load(&wk->launched) - atomic_load(&wk->completed) < (size_t)wk->depth;
}

/* Fewer than depth tasks in flight, a prefetch to make, or the run stops. */
static int room_or_stop(const void *arg)
{
    const worker *wk = arg;
    return has_room(wk) || atomic_load(&wk->pf_pending) || atomic_load(&wk->rb->stop);
}

/* A completion since q->n, a prefetch to make, or the run stops. */
static int completed_or_stop(const void *arg)
{
    const seen *q = arg;
    return atomic_load(&q->wk->completed) != q->n || atomic_load(&q->wk->pf_pending) ||
           atomic_load(&q->wk->rb->stop);
}

/* Makes one prefetch the engine asked (hs__real_prefetch's bytes). */
static void prefetch(real *rb, size_t t, int d, double bytes)
{
    hs_error err = {0};
    if (hs__data_prefetch(rb->dm, t, d, bytes == HUGE_VAL ? SIZE_MAX : (size_t)bytes, &err) != 0)
        fail(rb, &err);
}

/* Makes the prefetches asked of wk before the engine handed it task
 * `before` (its count of tasks handed over; SIZE_MAX: all), in the order
 * asked; none once the run stops or the device failed (`dying`). */
static void make_prefetches(worker *wk, int dying, size_t before)
{
    real *rb = wk->rb;
    if (!atomic_load(&wk->pf_pending))
        return; /* the common case, without the lock: called before every launch */
    for (;;) {
        struct asked a;
        pthread_mutex_lock(&wk->pf_mu);
        if (wk->pf_first == wk->npf || wk->pf[wk->pf_first].sent > before) {
            pthread_mutex_unlock(&wk->pf_mu);
            return;
        }
        a = wk->pf[wk->pf_first++];
        if (wk->pf_first == wk->npf) {
            wk->pf_first = wk->npf = 0;
            atomic_store(&wk->pf_pending, 0);
        }
        pthread_mutex_unlock(&wk->pf_mu);
        if (!dying && !atomic_load(&rb->stop))
            prefetch(rb, a.task, wk->device, a.bytes);
    }
}

/* Hands launched task l to the completer, as its n-th. */
static void to_completer(worker *wk, size_t n, const hs__launch *l, int back)
{
    wk->back[n % RING] = (unsigned char)back;
    wk->fl[n % RING] = *l;
    atomic_store(&wk->launched, n + 1);
    wake(&wk->cpark);
}

/* A launch since q->n, or the worker ended. */
static int launched_or_end(const void *arg)
{
    const seen *q = arg;
    return atomic_load(&q->wk->launched) != q->n || atomic_load(&q->wk->launcher_done);
}

/* Releases the kernels held back in held[0..*nheld) (hs__data_launch's
 * hold_back), in order, up to the first that was started
 * HS_START_MAY_WAIT and whose copies are under way (all of them: `all`);
 * the n-th launch is the next.  Returns how many it released. */
static size_t release_held(worker *wk, size_t *n, hs__launch *held, unsigned char *waits,
                           size_t *nheld, int all)
{
    size_t k = 0;
    while (k < *nheld &&
           (all || !waits[k] || hs__data_inputs_there(wk->rb->dm, &held[k]))) {
        double start = hs__data_now(wk->rb->dm);
        if (hs__data_release(wk->rb->dm, &held[k]) != 0)
            fail(wk->rb, &held[k].err);
        hs__data_log(wk->rb->dm, wk->device, HS_EV_LAUNCH, (long)held[k].t, start,
                     hs__data_now(wk->rb->dm));
        to_completer(wk, (*n)++, &held[k], 0);
        k++;
    }
    memmove(held, held + k, (*nheld - k) * sizeof *held);
    memmove(waits, waits + k, *nheld - k);
    *nheld -= k;
    return k;
}

/* How a worker that launches apart holds back task `head`'s kernel
 * (HS__HOLD_*), with nheld held back already: one started ahead goes
 * before them; any other after them, and it is held too while one is. */
static int hold_of(const worker *wk, size_t head, size_t nheld)
{
    int order = wk->order[head % RING];
    if (order == HS_START_AHEAD)
        return HS__HOLD_NO;
    if (nheld > 0)
        return HS__HOLD_ALWAYS;
    return order == HS_START_MAY_WAIT ? HS__HOLD_WHILE_COPYING : HS__HOLD_NO;
}

/* The worker of a device that completes apart: takes each task handed to
 * it, waits for room (fewer than depth in flight; its buffers fit beside
 * those in flight, or nothing is in flight; nothing, for a task that runs
 * in its launch: hs__data_waits), launches it (or, once the
 * device failed, hands it on unrun) and hands it to the completer.  The
 * prefetches asked of it are made in turn with its launches, those asked
 * before a task was handed over first, and all of them while it waits:
 * their copies go on the links in the order the executor's model queues
 * them.  A task started HS_START_MAY_WAIT whose copies are under way is
 * held back (prepared, its kernel not enqueued), and so are those handed
 * over after it, but for those started HS_START_AHEAD, which are launched
 * before it; it is released once its copies have happened, those after it
 * with it (up to the next such task), and all of them before a task that
 * cannot be held back (hs__data_can_hold).  While it holds some and has
 * nothing else to do, the worker polls their copies, spinning for
 * PAUSE_NS, then every NAP_NS: spinning throughout would take a core from
 * the CPU device's threads for as long as a 268-MB copy goes on. */
static void launch_apart(worker *wk)
{
    real *rb = wk->rb;
    size_t head = 0, n = 0, taken = 0, nheld = 0;
    int dying = 0;
    hs__launch held[RING];
    unsigned char waits[RING];
    long long idle = 0; /* since when it holds kernels back with nothing else to do */
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* naps of NAP_NS, not of the 50-us slack */
#endif
    for (;;) {
        want q = {wk, head};
        seen c = {wk, 0};
        size_t tail;
        if (nheld > 0) {
            if (release_held(wk, &n, held, waits, &nheld, 0) > 0) {
                idle = 0;
                continue;
            }
            if (!task_or_stop(&q)) { /* spins for PAUSE_NS, then naps */
                make_prefetches(wk, dying, SIZE_MAX);
                if (!idle)
                    idle = now_ns();
                if (now_ns() - idle < PAUSE_NS)
                    cpu_relax();
                else
                    nap(&wk->park, task_prefetch_or_stop, &q, NAP_NS);
                continue;
            }
            idle = 0;
        } else {
            await(&wk->park, task_prefetch_or_stop, &q);
        }
        if (atomic_load(&rb->stop))
            break;
        if (!task_or_stop(&q) || !has_room(wk)) {
            make_prefetches(wk, dying, SIZE_MAX);
            if (task_or_stop(&q))
                await(&wk->park, room_or_stop, wk);
            continue;
        }
        make_prefetches(wk, dying, head);
        tail = atomic_load_explicit(&wk->tasks_tail, memory_order_acquire);
        if (!dying && nheld > 0 && wk->order[head % RING] != HS_START_AHEAD &&
            (wk->span[head % RING][2] ||
             !hs__data_can_hold(rb->dm, wk->task[head % RING], wk->device))) {
            /* they go first, and are in flight for the checks below (a
             * task that runs in its launch waits for them to end) */
            release_held(wk, &n, held, waits, &nheld, 1);
            continue;
        }
        /* one reading of `completed`: the check and the wait use the same */
        c.n = atomic_load(&wk->completed);
        if (!dying && n != c.n &&
            (!hs__data_fits(rb->dm, wk->task[head % RING], wk->device) ||
             (!wk->span[head % RING][2] &&
              hs__data_waits(rb->dm, wk->task[head % RING], wk->device)))) {
            make_prefetches(wk, dying, SIZE_MAX);
            await(&wk->park, completed_or_stop, &c);
            continue;
        }
        if (!dying)
            dying = fails_now(wk, ++taken);
        if (dying) {
            hs__launch l = {.t = wk->task[head % RING], .chunk = wk->span[head % RING][2] != 0};
            to_completer(wk, n++, &l, 1);
        } else {
            hs__launch l;
            launch(wk, head, tail, hold_of(wk, head, nheld), &l);
            if (l.held_back) {
                waits[nheld] = wk->order[head % RING] == HS_START_MAY_WAIT;
                held[nheld++] = l;
            } else {
                to_completer(wk, n++, &l, 0);
            }
        }
        head++;
    }
    release_held(wk, &n, held, waits, &nheld, 1); /* the run stops: the completer finishes them */
    atomic_store(&wk->launcher_done, 1);
    wake(&wk->cpark);
}

/* The completer: completes what the worker launched, in order, and posts
 * each completion; the first task handed back unrun saves the device's
 * data first (hs__data_device_lost).  Once the run stops, it completes
 * what is in flight and posts nothing more. */
static void *complete_apart(void *arg)
{
    worker *wk = arg;
    real *rb = wk->rb;
    size_t done = 0, posted = 0;
    int dead = 0;
    hs__data_completer(rb->dm, wk->device);
    prime(rb);
    for (;;) {
        seen q = {wk, done};
        hs__launch *l = &wk->fl[done % RING];
        hs_completion c = {.device = wk->device};
        int back;
        await(&wk->cpark, launched_or_end, &q);
        if (atomic_load(&wk->launched) == done)
            break; /* the worker ended, nothing in flight */
        back = wk->back[done % RING];
        if (atomic_load(&rb->stop)) {
            if (!back)
                hs__data_complete(rb->dm, l);
        } else if (back) {
            hs_error err = {0};
            if (!dead && hs__data_device_lost(rb->dm, wk->device, &err) != 0)
                fail(rb, &err);
            dead = 1;
            c.task = l->t;
            c.chunk = l->chunk;
            c.failed = 1;
        } else {
            double start = hs__data_now(rb->dm);
            if (hs__data_complete(rb->dm, l) != 0)
                fail(rb, &l->err);
            hs__data_log(rb->dm, wk->device, HS_EV_COMPLETE, (long)l->t, start,
                         hs__data_now(rb->dm));
            c.task = l->t;
            c.chunk = l->chunk;
            c.begin = l->begin;
            c.end = l->end;
            c.start_us = l->start_us;
            c.end_us = l->end_us;
        }
        atomic_store(&wk->completed, ++done);
        wake(&wk->park); /* the worker may wait for room */
        if (atomic_load(&rb->stop))
            continue;
        wk->done[posted % RING] = c;
        atomic_store(&wk->done_tail, ++posted);
        if (rb->step && atomic_load(&wk->launched) == done)
            combine(rb, wk->device);
        else
            wake(&rb->park);
    }
    return NULL;
}

/* Runs the tasks handed to this device in order, one at a time, and posts
 * each completion (a failure's too); a device that completes apart runs
 * launch_apart instead.  A device that fails saves its memory's data to
 * host and then hands back, unrun, every task it gets
 * (hs_completion.failed). */
static void *work(void *arg)
{
    worker *wk = arg;
    real *rb = wk->rb;
    size_t head = 0, posted = 0, taken = 0;
    int dying = 0, dead = 0, enqueues = hs__data_enqueues(rb->dm, wk->device);
    prime(rb);
    if (wk->apart) {
        launch_apart(wk);
        return NULL;
    }
    for (;;) {
        want q = {wk, head};
        hs_completion c = {.device = wk->device};
        size_t tail;
        await(&wk->park, task_or_stop, &q);
        if (atomic_load_explicit(&rb->stop, memory_order_relaxed))
            break;
        tail = atomic_load_explicit(&wk->tasks_tail, memory_order_acquire);
        c.task = wk->task[head % RING];
        if (!dying && !(dying = fails_now(wk, ++taken))) {
            hs__launch l;
            double start;
            launch(wk, head, tail, HS__HOLD_NO, &l);
            start = hs__data_now(rb->dm);
            if (hs__data_complete(rb->dm, &l) != 0)
                fail(rb, &l.err);
            if (enqueues)
                hs__data_log(rb->dm, wk->device, HS_EV_COMPLETE, (long)l.t, start,
                             hs__data_now(rb->dm));
            c.chunk = l.chunk;
            c.begin = l.begin;
            c.end = l.end;
            c.start_us = l.start_us;
            c.end_us = l.end_us;
        } else {
            hs_error err = {0};
            if (!dead && hs__data_device_lost(rb->dm, wk->device, &err) != 0)
                fail(rb, &err);
            dead = 1;
            c.chunk = wk->span[head % RING][2] != 0;
            c.failed = 1;
        }
        head++;
        wk->done[posted % RING] = c;
        atomic_store(&wk->done_tail, ++posted);
        if (rb->step)
            combine(rb, wk->device);
        else
            wake(&rb->park);
    }
    return NULL;
}

/* ---------------------------------------------------------------- backend */

/* Stops the workers, then the completers, which complete what their
 * workers launched. */
static void stop_workers(real *rb)
{
    atomic_store(&rb->stop, 1);
    for (int i = 0; i < rb->nworkers; i++)
        wake(&rb->workers[i].park);
    for (int i = 0; i < rb->nworkers; i++)
        if (rb->workers[i].started) {
            pthread_join(rb->workers[i].tid, NULL);
            rb->workers[i].started = 0;
        }
    for (int i = 0; i < rb->nworkers; i++) {
        atomic_store(&rb->workers[i].launcher_done, 1);
        wake(&rb->workers[i].cpark);
    }
    for (int i = 0; i < rb->nworkers; i++)
        if (rb->workers[i].cstarted) {
            pthread_join(rb->workers[i].ctid, NULL);
            rb->workers[i].cstarted = 0;
        }
}

static void real_free(real *rb)
{
    stop_workers(rb);
    for (int i = 0; i < rb->nworkers; i++) {
        parker_destroy(&rb->workers[i].park);
        parker_destroy(&rb->workers[i].cpark);
        pthread_mutex_destroy(&rb->workers[i].pf_mu);
        free(rb->workers[i].pf);
    }
    parker_destroy(&rb->park);
    hs__data_free(rb->dm);
    free(rb->workers);
    free(rb);
}

/* A zeroed block of n bytes aligned to a cache line, or NULL. */
static void *alloc_lines(size_t n)
{
    size_t size = (n + LINE - 1) / LINE * LINE;
    void *p = aligned_alloc(LINE, size ? size : LINE);
    if (p)
        memset(p, 0, size ? size : LINE);
    return p;
}

/* The depth from HETSCHED_DEPTH, or 0 when it is not set (each device
 * its default, real.h). */
static int read_depth(int *depth, hs_error *err)
{
    const char *s = getenv("HETSCHED_DEPTH");
    char *end;
    long v;
    *depth = 0;
    if (!s)
        return HS_OK;
    v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > HS_BACKEND_MAX_DEPTH)
        return hs_error_set(err, HS_EINPUT, "HETSCHED_DEPTH must be a whole number from 1 to "
                            "%d, not '%s'", HS_BACKEND_MAX_DEPTH, s);
    *depth = (int)v;
    return HS_OK;
}

/* Each device's depth under `mode`: HETSCHED_DEPTH, else a gpu device's
 * under cuda or emu (its kernels are enqueued) HS__REAL_DEPTH_ENQUEUED, any
 * other's HS__REAL_DEPTH. */
static int depths_for(const hs_platform *pf, hs__real_mode mode, int *depth, hs_error *err)
{
    int env, rc;
    if ((rc = read_depth(&env, err)) != 0)
        return rc;
    for (int d = 0; d < pf->ndevices; d++)
        depth[d] = env                                                          ? env
                   : mode != HS__REAL_CPU && pf->devices[d].kind == HS_DEVICE_GPU ? HS__REAL_DEPTH_ENQUEUED
                                                                                : HS__REAL_DEPTH;
    return HS_OK;
}

int hs_run_executor_depths(const hs_workload *w, int *depth, hs_error *err)
{
    /* cpu runs cpu devices only, which every mode gives the same depth */
    return depths_for(&w->platform, HS__REAL_EMU, depth, err);
}

int hs__real_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                  hs_error *err)
{
    const hs_platform *pf = &w->platform;
    real *rb;
    int rc;
    if (mode == HS__REAL_CPU)
        for (int d = 0; d < pf->ndevices; d++)
            if (pf->devices[d].kind != HS_DEVICE_CPU)
                return hs_error_set(err, HS_EINPUT, "backend cpu runs cpu devices only, and "
                                    "'%s' is a gpu (use --backend emu)",
                                    pf->devices[d].name);
    if (!(rb = alloc_lines(sizeof *rb)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the backend");
    rb->report = b->state; /* the caller's report, see exec/data.h */
    rb->w = w;
    rb->g = g;
    parker_init(&rb->park);
    if (!(rb->workers = alloc_lines((size_t)pf->ndevices * sizeof *rb->workers))) {
        real_free(rb);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the backend");
    }
    rb->nworkers = pf->ndevices;
    for (int d = 0; d < pf->ndevices; d++) {
        rb->workers[d].rb = rb;
        rb->workers[d].device = d;
        parker_init(&rb->workers[d].park);
        parker_init(&rb->workers[d].cpark);
        pthread_mutex_init(&rb->workers[d].pf_mu, NULL);
    }
    if ((rc = hs__data_new(w, g, mode, rb->report, &rb->dm, err)) != 0) {
        real_free(rb);
        return rc;
    }
    {
        int *depth = calloc((size_t)pf->ndevices + 1, sizeof *depth);
        if (!depth || (rc = depths_for(pf, mode, depth, err)) != 0) {
            free(depth);
            real_free(rb);
            return depth ? rc : hs_error_set(err, HS_ENOMEM, "out of memory for the backend");
        }
        for (int d = 0; d < pf->ndevices; d++) {
            rb->workers[d].depth = depth[d];
            rb->workers[d].apart = depth[d] > 1 && hs__data_enqueues(rb->dm, d);
        }
        free(depth);
    }
    clock_gettime(CLOCK_MONOTONIC, &rb->t0);
    if ((rc = hs__data_start(rb->dm, &rb->t0, err)) != 0) {
        real_free(rb);
        return rc;
    }
    for (int d = 0; d < pf->ndevices; d++) {
        if (pthread_create(&rb->workers[d].tid, NULL, work, &rb->workers[d]) != 0) {
            real_free(rb);
            return hs_error_set(err, HS_EIO, "cannot start a worker thread");
        }
        rb->workers[d].started = 1;
        if (!rb->workers[d].apart)
            continue;
        if (pthread_create(&rb->workers[d].ctid, NULL, complete_apart, &rb->workers[d]) != 0) {
            real_free(rb);
            return hs_error_set(err, HS_EIO, "cannot start a completer thread");
        }
        rb->workers[d].cstarted = 1;
    }
    {
        count c = {&rb->primed, 0};
        for (int d = 0; d < pf->ndevices; d++)
            c.want += rb->workers[d].started + rb->workers[d].cstarted;
        await(&rb->park, counted, &c);
    }
    b->state = rb;
    return HS_OK;
}

int hs__real_primed(const hs_backend *b)
{
    return atomic_load(&((real *)b->state)->primed);
}

int hs__real_depth(const hs_backend *b, int d)
{
    return ((const real *)b->state)->workers[d].depth;
}

/* Appends task t, or items [begin, end) of its kernel's `items` (items >
 * 0), to device d's ring. */
static int hand_over(real *rb, size_t t, int d, size_t begin, size_t end, size_t items,
                     int order, hs_error *err)
{
    worker *wk;
    if (d < 0 || d >= rb->nworkers || rb->workers[d].held >= (size_t)rb->workers[d].depth)
        return hs_error_set(err, HS_EINTERNAL, "device %d got a task while it holds %d", d,
                            d >= 0 && d < rb->nworkers ? rb->workers[d].depth : 0);
    wk = &rb->workers[d];
    wk->task[wk->sent % RING] = t;
    wk->issued[wk->sent % RING] = hs__since_us(&rb->t0);
    wk->span[wk->sent % RING][0] = begin;
    wk->span[wk->sent % RING][1] = end;
    wk->span[wk->sent % RING][2] = items;
    wk->order[wk->sent % RING] = (unsigned char)order;
    atomic_store(&wk->tasks_tail, ++wk->sent);
    wk->held++;
    rb->outstanding++;
    wake(&wk->park);
    return HS_OK;
}

int hs__real_start_task(hs_backend *b, size_t t, int d, double earliest_us, int order,
                        hs_error *err)
{
    (void)earliest_us; /* the worker moves the data itself */
    return hand_over(b->state, t, d, 0, 0, 0, order, err);
}

int hs__real_start_chunk(hs_backend *b, size_t t, int d, size_t begin, size_t end,
                         double earliest_us, hs_error *err)
{
    real *rb = b->state;
    const hs_task *task = &rb->g->tasks[t];
    (void)earliest_us;
    return hand_over(rb, t, d, begin, end,
                     (size_t)rb->w->apps[task->app].kernels[task->kernel].items,
                     HS_START_IN_ORDER, err);
}

/* A worker that launches apart (a GPU's) makes the prefetch on its own
 * thread (make_prefetches): on an H100, prefetches made in the step took it
 * to 2 ms (allocations and copies of 4-134 MB), and no other completion was
 * taken meanwhile.  Others make it here. */
void hs__real_prefetch(hs_backend *b, size_t t, int d, double bytes)
{
    real *rb = b->state;
    worker *wk = &rb->workers[d];
    if (wk->apart) {
        pthread_mutex_lock(&wk->pf_mu);
        if (wk->npf == wk->cappf) {
            size_t cap = wk->cappf ? 2 * wk->cappf : 64;
            struct asked *n = realloc(wk->pf, cap * sizeof *n);
            if (n) {
                wk->pf = n;
                wk->cappf = cap;
            }
        }
        if (wk->npf < wk->cappf) {
            wk->pf[wk->npf++] = (struct asked){t, wk->sent, bytes};
            atomic_store(&wk->pf_pending, 1);
            pthread_mutex_unlock(&wk->pf_mu);
            wake(&wk->park);
            return;
        }
        pthread_mutex_unlock(&wk->pf_mu); /* no memory to queue it: made here */
    }
    prefetch(rb, t, d, bytes);
}

static int any_done(const void *arg)
{
    return pending(arg);
}

/* Takes one posted completion, scanning the devices in index order: 0, 1
 * when none is posted, or the first worker error. */
static int pop(real *rb, hs_completion *c, hs_error *err)
{
    for (int i = 0; i < rb->nworkers; i++) {
        worker *wk = &rb->workers[i];
        if (atomic_load_explicit(&wk->done_tail, memory_order_acquire) ==
            atomic_load_explicit(&wk->taken, memory_order_relaxed))
            continue;
        size_t k = atomic_load_explicit(&wk->taken, memory_order_relaxed);
        *c = wk->done[k % RING];
        atomic_store_explicit(&wk->taken, k + 1, memory_order_relaxed);
        wk->held--;
        rb->outstanding--;
        if (atomic_load_explicit(&rb->failed, memory_order_acquire)) {
            if (err)
                *err = rb->ferr;
            return rb->ferr.code;
        }
        return 0;
    }
    return 1;
}

int hs__real_wait(hs_backend *b, hs_completion *c, hs_error *err)
{
    real *rb = b->state;
    int rc;
    if (rb->outstanding == 0)
        return 1;
    if ((rc = pop(rb, c, err)) != 1)
        return rc;
    await(&rb->park, any_done, rb);
    return pop(rb, c, err);
}

int hs__real_poll(hs_backend *b, hs_completion *c, hs_error *err)
{
    return pop(b->state, c, err);
}

/* The run ended, or completions wait for a step that nobody runs (whoever
 * holds `stepping` looks for them again when it lets go). */
static int finished_or_pending(const void *arg)
{
    const real *rb = arg;
    return atomic_load(&rb->finished) || (pending(rb) && !atomic_load(&rb->stepping));
}

/* The calling thread runs the first step (no task runs yet, so nobody else
 * holds `stepping`), then the steps for completions posted meanwhile, and
 * then the steps that a GPU's worker leaves to it, until a step ends the
 * run. */
int hs__real_drive(hs_backend *b, int (*step)(void *ctx, hs_error *err), void *ctx,
                   hs_error *err)
{
    real *rb = b->state;
    int rc;
    rb->step = step;
    rb->ctx = ctx;
    /* the run's clock starts now: what init did (inputs, pools, warm-up)
     * and the policy's init are before it, as in the simulator; in a
     * distributed run, on every process at once */
    clock_gettime(CLOCK_MONOTONIC, &rb->t0);
    if ((rc = hs__data_sync(rb->dm, &rb->t0, err)) != 0 ||
        (rc = hs__data_start(rb->dm, &rb->t0, err)) != 0)
        return rc;
    atomic_store(&rb->stepping, 1);
    run_step(rb, -1);
    atomic_store(&rb->stepping, 0);
    combine(rb, -1);
    for (;;) {
        await(&rb->park, finished_or_pending, rb);
        if (atomic_load(&rb->finished))
            break;
        combine(rb, -1);
    }
    if (rb->result < 0 && err)
        *err = rb->serr;
    return rb->result;
}

double hs__real_now(const hs_backend *b)
{
    return hs__since_us(&((const real *)b->state)->t0);
}

int hs__real_finish(hs_backend *b, hs_error *err)
{
    return hs__data_verify(((real *)b->state)->dm, err);
}

/* Stops the workers (waiting for the tasks they run), hands the counters
 * and outputs to the caller's report, frees everything. */
void hs__real_fini(hs_backend *b)
{
    real *rb = b->state;
    hs_run_report *report;
    struct timespec t0;
    if (!rb)
        return;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    stop_workers(rb);
    if (rb->report) {
        hs_run_report_free(rb->report);
        if (hs__data_report(rb->dm, rb->report, NULL) != 0)
            hs_run_report_free(rb->report);
    }
    b->state = report = rb->report;
    real_free(rb);
    if (report)
        report->teardown_us = hs__since_us(&t0);
}

HS__REAL_BACKEND(hs_backend_cpu, "cpu", HS__REAL_CPU);

const hs_backend_ops *hs_backend_find(const char *name)
{
    static const hs_backend_ops *const all[] = {&hs_backend_sim, &hs_backend_cpu,
                                                &hs_backend_emu, &hs_backend_cuda};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
