/* hetsched — the real backends `cpu`, `emu` and `cuda` (exec/cpu.c,
 * exec/emu.c, exec/cuda.c) and their data manager (exec/data.c), DESIGN.md
 * §6.
 *
 * Which edge feeds which kernel buffer (the rule every real backend and the
 * tests follow; finalizing a workload resolves it into each edge's `feeds`
 * and refuses, at the edge, a workload it does not fit: graph/binding.c):
 *   - A typed task's *result* is its last buffer that the kernel writes
 *     (mode HS_KWRITE or HS_KRW): `c` of gemm, `a` of potrf, `b` of trsm, ...
 *   - An edge that names a buffer (`buffer: num`) feeds that buffer of its
 *     consumer: one the kernel reads (HS_KREAD or HS_KRW), no other edge
 *     feeds, of exactly the size of the producer's result (the producer is
 *     typed); the edge carries data (bytes > 0).
 *   - An edge with `buffer: none`, an edge of 0 bytes and an edge into an
 *     untyped task only order.
 *   - The other edges into typed task t (bytes > 0, no `buffer`), in the
 *     order the workload declares them, feed t's readable buffers that no
 *     edge names, in the type's buffer order: the k-th such edge the k-th
 *     such buffer.  Its producer must be typed, with a result of exactly
 *     that buffer's size, and a buffer must be left for it.
 *   - An edge's own `bytes` are the cost model's, not the data's: they are
 *     not compared with the sizes.
 *   - Every readable buffer no edge feeds comes from the type's
 *     deterministic input generator (hs_kfill) with seed = whole-task index
 *     + 1.
 *   - The *outputs* of a run are the results of the typed tasks without
 *     successors: they end on host memory, byte-exact.
 *
 * A worker's path holds kernels and copies only: buffers come from caching
 * pools made ahead of the run (exec/pool.h), generated inputs are made
 * before the clock starts, checks come after the run, and a buffer given
 * back is reused once its last copy has ended, never freed during the run.
 *
 * Data manager: each typed task's result has one replica slot per memory,
 * each with a valid flag (MSI-style: the producer's write makes its own
 * memory's replica the only valid one).  Memories are spaces of exec/mem.h:
 * malloc'd RAM under cpu and emu, pinned host RAM and cudaMalloc'd GPU
 * memory under cuda (the k-th gpu device of the platform is CUDA device k).
 *   - Before a task runs on memory m, each fed input gets a replica on m,
 *     copied from host when host holds a valid one, else from the
 *     lowest-numbered memory that does (a FETCH copy on link source -> m).
 *     A buffer the kernel only reads is the replica itself; one it updates
 *     (HS_KRW) is a private copy of it.  Generated inputs are made on host
 *     and copied to buffers on m (INPUT copies, host -> m); on host the
 *     kernel reads them where they are, and updates them in place unless
 *     its check needs them as they were.
 *   - Prefetch (hs__data_prefetch): the same copies, started early; cuda
 *     enqueues them on the H2D, D2H and D2D streams and the kernel waits on
 *     their events, plain (cpu, emu) does them at once in the caller.  A
 *     fetched replica is pinned: neither freed nor evicted until its
 *     consumer has run; a prefetched generated input's buffer is the
 *     task's.  A consumer that runs on another memory drops the prefetch
 *     and fetches anew.
 *   - Every replica a running or prefetched task reads, and the task's own
 *     result until the task ended, is pinned.  Consumers are counted per
 *     fed buffer: when the last one finished, every replica goes (one stays
 *     while a held check needs it); an output keeps only its host replica,
 *     whose copy from the device the worker does not wait for.
 *   - Eviction: each memory but host has a capacity (cuda: the GPU's free
 *     memory at init minus HS__CUDA_MARGIN; emu: none; both: the report's
 *     device_memory when set).  An allocation that would exceed it evicts
 *     unpinned replicas, least recently used first, writing a replica back
 *     to host first when no other memory has a valid copy (a WRITEBACK
 *     copy, counted in `writebacks`); then drops the prefetches whose task
 *     has not started.  A kernel whose buffers exceed the capacity alone
 *     fails with HS_EINPUT naming it.
 *   - Checks (hs_check_mode): a task chosen for a check holds, until the
 *     run has ended, its generated inputs and one valid replica of its
 *     result and of each fed input; hs__data_verify then copies what is
 *     not on host (CHECK copies, counted in check_bytes/check_copies only)
 *     and runs hs_kcheck on every processor.
 *   - Every copy is recorded (hs_run_copy) with its measured times, and so
 *     is what a worker does besides (hs_run_event: kernels, waits, buffers
 *     made during the run, evictions, sleeps; checks).
 * Under the cpu backend every device computes in host memory, so nothing is
 * copied.
 *
 * Data follow whole tasks (the workload's graph), also when a policy split
 * the graph: the parts of a split typed task share one set of buffers in
 * host memory (inputs fed and generated there as for a task on host); part
 * k of n owns a slice [b, e) of the items (part_ranges in exec/data.c).  A
 * part on a device of host memory (every device under cpu) runs its slice
 * on those buffers in place.  A part on another memory (a GPU's under
 * cuda, an emulated gpu's under emu) gets buffers there, the bytes its
 * slice reads copied in (hs_kspan: a buffer every range reads, such as
 * gemm's b, whole), runs the slice there (cuda: hs_krun_cuda on the GPU's
 * compute stream after the copies' events; emu: hs_krun_cpu on the
 * copies) and copies the bytes its slice writes back into the host
 * buffers (PART copies on the links host -> memory and back).  Slices are
 * disjoint, so in-place (HS_KRW) buffers and BLAS outputs are only ever
 * written back within their own span.  A type that is not splittable runs
 * whole in part 0, wherever that is.  The last part to end stores the
 * result on host.
 *
 * Not done yet: a part on a GPU takes its input from host even when a
 * replica is on that GPU already, allocates whole-size buffers there (not
 * just its spans) and is not prefetched; asynchronous staged copies between
 * GPUs without peer access.
 *
 * A kernel on a cpu device computes with the device's `cores` threads (the
 * online processors shared by the cpu devices when not given); an emulated
 * gpu computes on one.  A task's measured span is its kernel's (a GPU's
 * between CUDA events); its copies are the schedule's transfers
 * (hs_run_measured_schedule).
 */
#ifndef HS_EXEC_DATA_H
#define HS_EXEC_DATA_H

#include <stddef.h>
#include <time.h>

#include "exec/backend.h"
#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/run.h" /* hs_check_mode */
#include "hetsched/schedule.h"
#include "workloads/kernels/kernel.h"

/* One output of a run: the result of typed task `task` (an index of the
 * workload's graph, w->graph). */
typedef struct hs_run_output {
    size_t task;
    size_t bytes;
    unsigned long long hash; /* of its bytes: hs__fnv (exec/mpi.h) over the
                                hs__piece_hash of each HS__PIECE bytes in turn */
    void *data;              /* a copy of its bytes, or NULL under
                                output_hashes_only */
} hs_run_output;

/* The hash of n bytes at p, a piece of an output (HS__PIECE bytes at
 * most): FNV-1a over its 8-byte words (little-endian), each product folded
 * (h ^= h >> 32, so that a word's high bytes reach every bit), then over
 * its last bytes one by one, as hs__fnv.  The pieces of a run's outputs
 * are hashed on every processor. */
#define HS__PIECE ((size_t)4 << 20)
unsigned long long hs__piece_hash(const void *p, size_t n);

/* A copy the data manager made, on the run's clock (µs since its start). */
typedef struct hs_run_copy {
    int from, to;          /* memories of the platform */
    double bytes;
    double start_us, end_us;
    long datum;            /* the task of w->graph whose result it moves, or -1
                              for a kernel's generated input or a part's slice */
    long consumer;         /* the task of w->graph that needed it, or -1 */
    int part;              /* ... and which part of it (0 for a whole task) */
    int kind;              /* hs_run_copy_kind */
} hs_run_copy;

typedef enum hs_run_copy_kind {
    HS_COPY_FETCH,         /* a result to the memory of a task that reads it */
    HS_COPY_INPUT,         /* a kernel's generated input, host to its memory */
    HS_COPY_OUTPUT,        /* an output of the run back to host, or a result to
                              host for another node (a run across nodes) */
    HS_COPY_WRITEBACK,     /* a replica saved to host before its eviction */
    HS_COPY_PART,          /* a part's slice in or out of the group's host buffers */
    HS_COPY_PRIVATE,       /* a private copy of a replica, on one memory */
    HS_COPY_CHECK,         /* for a check, after the run */
} hs_run_copy_kind;

/* Something a device's worker did besides copies, on the run's clock. */
typedef struct hs_run_event {
    int device;            /* the device whose worker did it; -1: the checker */
    int kind;              /* hs_run_event_kind */
    long task;             /* the task of w->graph, or -1 */
    int part;              /* ... and which part of it (0 for a whole task) */
    double start_us, end_us;
    double bytes;          /* ALLOC: bytes allocated */
} hs_run_event;

typedef enum hs_run_event_kind {
    HS_EV_KERNEL,          /* the kernel itself (a GPU's from its events) */
    HS_EV_WAIT,            /* waiting for input copies before a CPU kernel */
    HS_EV_ALLOC,           /* a buffer the pools did not hold: made during the run */
    HS_EV_SLEEP,           /* a cost-only task sleeping its cost */
    HS_EV_EVICT,           /* an eviction (with its write-back, if any) */
    HS_EV_CHECK,           /* a check, after the run (or during it: full, over budget) */
    HS_EV_HELD,            /* from the engine handing a task to a device to its kernel's start */
    /* a worker's host time for its device's enqueued kernels (a GPU's; an
     * emulated gpu's launch holds its kernel's run) and for the engine: */
    HS_EV_LAUNCH,          /* enqueuing a task: buffers, input copies, the kernel,
                              the next task's prefetch */
    HS_EV_COMPLETE,        /* waiting for an enqueued kernel's end, storing its result */
    HS_EV_STEP,            /* running the engine's step (completions booked, the
                              policy told, tasks started); device -1: the engine's
                              own thread */
} hs_run_event_kind;

/* Name of an hs_run_copy_kind or hs_run_event_kind ("fetch", "kernel"). */
const char *hs_run_copy_kind_name(int kind);
const char *hs_run_event_kind_name(int kind);

/* What a real backend measured, filled by its fini when the caller set
 * b->state to one of these before hs_engine_run (the backend's init takes
 * it from there).  Free with hs_run_report_free. */
typedef struct hs_run_report {
    /* in, read by the backend's init: */
    size_t device_memory;    /* capacity in bytes of each memory but host under
                                emu and cuda (0: the backend's default, see above) */
    hs_check_mode check;
    size_t check_budget;     /* bytes full checks may hold (0: HS_CHECK_BUDGET) */
    int fail_device;         /* with fail_after > 0: this device fails when it is */
    size_t fail_after;       /* about to run its fail_after-th task (a test of
                                survival: it runs nothing more, what it held runs
                                elsewhere, its memory's data are saved to host) */
    int throttle_device;     /* with throttle > 1: this cpu device runs each
                                kernel `throttle` times slower (its worker
                                sleeps throttle - 1 times the kernel's time
                                after it, inside the kernel's span: a test of
                                adapting to a slow device) */
    double throttle;
    const struct hs__remote *remote; /* a distributed run's devices of other
                                nodes (exec/remote.h), or NULL: all are local */
    int output_hashes_only;  /* 1: the outputs keep their hashes, not copies
                                of their bytes (hs_run: only the digest needs
                                them) */
    /* out: */
    int threads;             /* threads that compute or drive during the run: each
                                cpu device's kernel threads (its `cores`, or the
                                processors left after a core per GPU worker and
                                one for the engine, shared by the cpu devices), a
                                worker per GPU and the engine's */
    int processors;          /* online processors: more threads than these slow
                                the kernels down (OpenBLAS waits on preempted
                                threads) */
    int nmemories;
    double *link_bytes;      /* [from * nmemories + to]: bytes copied */
    double *link_us;         /* time spent copying on that link */
    size_t *link_copies;     /* number of copies */
    size_t typed, checked;   /* typed tasks run; those whose check passed */
    size_t untyped;          /* cost-only tasks, run by sleeping cost_us */
    size_t replicas_allocated, replicas_freed; /* result replicas, all memories */
    size_t in_place;         /* replicas their last reader updated in place, no
                                private copy (counted as freed) */
    size_t evictions, writebacks; /* replicas evicted; of those, copied to host first */
    size_t prefetched;       /* input copies started by hs__data_prefetch */
    double check_bytes;      /* copied to host for the checks only */
    size_t check_copies;
    double check_us;         /* time the checks took after the run */
    double setup_us;         /* before the clock: from the data manager's start
                                (its memories, a GPU's context) to the run's */
    double inputs_us, buffers_us, warmup_us; /* of it: making the inputs, the
                                buffers made ahead, the kernels' warm-up */
    double teardown_us;      /* after the run: the backend's end (workers
                                stopped, outputs hashed, buffers freed) */
    size_t pool_hits, pool_misses, pool_reserved; /* buffers: reused, made during
                                the run, made ahead (exec/pool.h) */
    size_t noutputs;
    hs_run_output *outputs;  /* task order; owned by the report */
    size_t ncopies;
    hs_run_copy *copies;     /* every copy but the checks', in no order */
    size_t nevents;
    hs_run_event *events;
} hs_run_report;

/* Makes s, the schedule a real run on `backend` measured (placements from
 * its completions), the measured schedule: its transfers are r's copies
 * between memories (a kernel's generated input from host, a result to a
 * task that reads it, an output or a write-back to host, a part's slices),
 * each from and to the placement it served where there is one; its
 * activities r's events but kernels and sleeps (which placements span); its
 * model is "measured"; its makespan the latest end of a placement or a
 * copy. */
int hs_run_measured_schedule(const hs_workload *w, const char *backend, const hs_run_report *r,
                             hs_schedule *s, hs_error *err);

/* Bytes full checks may hold by default: an eighth of the physical
 * memory, at most this. */
#define HS_CHECK_BUDGET ((size_t)8 << 30)

void hs_run_report_free(hs_run_report *r);

/* The backends: `cpu` (worker threads on host memory; refuses gpu devices),
 * `emu` (gpu devices get their own memory spaces, see above) and `cuda`
 * (gpu devices are CUDA GPUs; exec/cuda.c, built with the cuda feature). */
extern const hs_backend_ops hs_backend_cpu;
extern const hs_backend_ops hs_backend_emu;
/* Without CUDA built in, its init answers HS_ENOTBUILT. */
extern const hs_backend_ops hs_backend_cuda;

/* Number of CUDA devices found (0 without CUDA, or when none works). */
int hs_cuda_device_count(void);

/* The backend called `name` ("sim", "cpu", "emu", "cuda"), or NULL. */
const hs_backend_ops *hs_backend_find(const char *name);

/* ---------------------------------------------------------- internal */

typedef struct hs__data hs__data;

/* How the real backends treat memories and gpu devices. */
typedef enum hs__real_mode {
    HS__REAL_CPU = 0,  /* every device computes in host memory; no gpu devices */
    HS__REAL_EMU = 1,  /* each memory is a separate malloc'd space */
    HS__REAL_CUDA = 2, /* gpu devices are CUDA GPUs with their own memories */
} hs__real_mode;

/* Prepares the data for running graph g (w->graph, or a graph a policy
 * transformed it into): each whole task's kernel configuration, which edge
 * feeds which buffer, each part's items, the generated inputs, the pools'
 * blocks made ahead.  HS__REAL_CPU puts every memory on host.  `in` (may be
 * NULL) gives device_memory (caps each other memory; 0: a GPU's free
 * memory, no cap on an emulated one), the check mode and budget.
 * HS_EINPUT for a bad kernel type or params. */
int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                 const hs_run_report *in, hs__data **out, hs_error *err);

/* When the run's clock starts: in a distributed run, returns once every
 * process is there, with *t0 the instant all their clocks start at
 * (exec/remote.h, start); else at once, leaving *t0 as it is. */
int hs__data_sync(hs__data *dm, struct timespec *t0, hs_error *err);

/* Starts the run's clock at t0 (which stays valid until hs__data_free):
 * every time measured from now on is µs since t0. */
int hs__data_start(hs__data *dm, const struct timespec *t0, hs_error *err);

/* Runs task t of the graph run on device d in the calling thread (d's
 * worker): gives it buffers on d's memory and starts the copies of its
 * inputs there (unless a prefetch did), runs the kernel once they are
 * there (or sleeps cost_us for an untyped one), stores its result, starts
 * an output's copy to host, and holds what its check needs (hs_check_mode).
 * *start_us and *end_us are the kernel's own span on the run's clock (a
 * GPU's from its events).  issued_us: when the engine handed t to d; the
 * time from then to the kernel's start is a HELD event (the device held
 * the task, waiting for its previous ones, its inputs or the worker).  A
 * failing kernel's error; checks come after the run (hs__data_verify). */
int hs__data_run(hs__data *dm, size_t t, int d, double issued_us, double *start_us,
                 double *end_us, hs_error *err);

/* A task a worker launched: hs__data_launch fills it, hs__data_complete
 * finishes it.  A task on a device's own memory (a GPU's) is enqueued
 * there, and the worker may launch the next one before this one ends, so
 * that the device runs them back to back; any other runs in the launch. */
typedef struct hs__launch {
    size_t t;
    int d;
    double issued_us, start_us, end_us;
    void *kernel;       /* the memory layer's enqueued kernel, or NULL */
    void *bufs[HS_KMAX_BUFS]; /* an enqueued piece of a split task: its buffers */
    int chunk;          /* hs__data_launch_chunk's: items [begin, end) */
    size_t begin, end;
    int held_back;      /* prepared, its kernel not enqueued: hs__data_release */
    int rc;
    hs_error err;
} hs__launch;

/* hs__data_run in two halves: launch t on d (prepare its buffers and
 * inputs, enqueue its kernel on a device's memory, or run it to the end
 * anywhere else), then complete it (wait for an enqueued kernel, store its
 * result, release).  Launches on one device complete in launch order; a
 * device's completer (hs__data_completer) may complete one while its
 * worker launches a later one.  Both return l->rc, with its message in
 * l->err. */
int hs__data_launch(hs__data *dm, size_t t, int d, double issued_us, int hold_back,
                    hs__launch *l);
/* hold_back: a device's own kernel (a GPU's, of a whole typed task:
 * hs__data_can_hold) is prepared (its buffers, its copies under way) but
 * not enqueued, HS__HOLD_WHILE_COPYING when its input copies are still
 * under way, HS__HOLD_ALWAYS in any case: l->held_back, and the worker may
 * launch other tasks before it (backend.h, HS_START_MAY_WAIT).
 * hs__data_inputs_there says whether those copies have happened;
 * hs__data_release enqueues the kernel (l->rc, as hs__data_launch's). */
enum { HS__HOLD_NO, HS__HOLD_WHILE_COPYING, HS__HOLD_ALWAYS };
int hs__data_can_hold(const hs__data *dm, size_t t, int d);
int hs__data_inputs_there(hs__data *dm, const hs__launch *l);
int hs__data_release(hs__data *dm, hs__launch *l);
/* Launches items [begin, end) of the `items` of splittable task t's kernel
 * (a chunk of a split at run time: the engine's start_chunk) on device d
 * and runs them to the end: the chunks of t share buffers on host, as the
 * parts of a split graph do (above), their items scaled to the type's; the
 * chunk that completes the items stores the result.  An untyped task
 * sleeps its share of its cost.  l->rc, with its message in l->err. */
int hs__data_launch_chunk(hs__data *dm, size_t t, int d, size_t begin, size_t end,
                          size_t items, double issued_us, hs__launch *l);
/* 1 when task t's buffers fit on device d's memory beside what it holds
 * now, without evicting anything: a worker launches a task ahead of those
 * in flight only then (their buffers stay until they complete). */
int hs__data_fits(hs__data *dm, size_t t, int d);
/* 1 when device d's kernels are enqueued (a GPU's under cuda; an emulated
 * gpu's under emu, whose kernels run in the launch, so that CI takes the
 * same path): its worker launches every task it holds. */
int hs__data_enqueues(const hs__data *dm, int d);
/* 1 when whole task or part t, launched on device d, must wait for the
 * tasks d has in flight: it runs in the launch itself (a cost-only task
 * sleeping its cost, a part computed through host) on a device whose
 * kernels run after their launch (a GPU's under cuda), so that the device
 * runs one task at a time, as the executor's model has it. */
int hs__data_waits(const hs__data *dm, size_t t, int d);
int hs__data_complete(hs__data *dm, hs__launch *l);

/* Starts moving task t's inputs to device d's memory without waiting for
 * the copies (thread-safe).  bytes SIZE_MAX: all of ready task t's, its
 * fed inputs and, on a device's own memory, its generated ones; t will run
 * on d after what d runs now, so its copies overlap that kernel.
 * Otherwise the next `bytes` of its generated inputs (its input from host)
 * on a device's own memory, of a task that may not be ready yet
 * (hs_engine_prefetch_input): the buffers are t's, made at their first
 * bytes; what no call moved is copied at t's launch, which waits for the
 * last copy's event (a device's copies from host run in order).  cuda:
 * asynchronous; emu: the copies are done before it returns; cpu: nothing
 * to move.  Best effort: an input whose producer has not ended, or that
 * finds no room without evicting a pinned replica, is left for
 * hs__data_run.  0, or a negative HS_E* code (a failed copy). */
int hs__data_prefetch(hs__data *dm, size_t t, int d, size_t bytes, hs_error *err);

/* After the last task: waits for every copy, then checks the held kernels
 * on every processor (outside the run's makespan).  HS_ECHECK naming the
 * first kernel whose check failed. */
int hs__data_verify(hs__data *dm, hs_error *err);

/* Device d failed: every result whose only valid replica is on d's memory
 * (when no other device computes there) is copied to host, so that the
 * tasks it held can run elsewhere; prefetches onto that memory are
 * dropped.  HS_EIO when a copy fails (the data are then lost). */
int hs__data_device_lost(hs__data *dm, int d, hs_error *err);

/* Moves the counters, copies, events and outputs into *r (which must be
 * zeroed). */
int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err);
void hs__data_free(hs__data *dm);

/* Tests only: when set, called after each kernel that ran on a host-side
 * memory, with its configuration and buffers (a test corrupts a result to
 * see its check fail).  Set it while no run is under way. */
extern void (*hs__data_test_hook)(const hs_kconf *c, void *const *bufs);
/* Tests only: when > 0, under emu a copy into a device's memory is done
 * this many us after it starts (its event not ready before; a kernel that
 * waits for it starts after), as a GPU's copy is under way once enqueued,
 * so that a GPU's worker holds back a kernel (HS_START_MAY_WAIT).  Set it
 * while no run is under way. */
extern double hs__data_test_copy_us;

/* µs on the monotonic clock since t0. */
double hs__since_us(const struct timespec *t0);
/* Into *ts, the monotonic clock's time us (>= 0) from now: a deadline for
 * pthread_cond_timedwait on a condition variable of that clock. */
void hs__monotonic_in(struct timespec *ts, double us);

/* µs on the run's clock (0 before hs__data_start). */
double hs__data_now(const hs__data *dm);
/* Makes the calling thread device d's completer (exec/cpu.c): the thread
 * that completes the kernels d's worker launched (hs__data_complete) while
 * the worker launches the next ones, with an event log of its own. */
void hs__data_completer(hs__data *dm, int d);
/* Records what a thread of the backend did besides its tasks' kernels:
 * HS_EV_LAUNCH, HS_EV_COMPLETE (task t) or HS_EV_STEP (t -1) by device d's
 * worker, or HS_EV_STEP by the engine's own thread (d -1).  Each thread
 * has its own log: no lock. */
void hs__data_log(hs__data *dm, int d, int kind, long t, double start_us, double end_us);

/* Runs fn(arg, k) for every k in [0, jobs), each once, on every online
 * processor (at most 64 threads, at most `jobs`; the calling thread among
 * them), in no set order. */
void hs__each_job(void (*fn)(void *arg, size_t k), void *arg, size_t jobs);

#endif
