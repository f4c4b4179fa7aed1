/* hetsched — the real backends `cpu` and `emu` (exec/cpu.c, exec/emu.c) and
 * their small data manager (exec/data.c), DESIGN.md §6 and issue 5.
 *
 * Which edge feeds which kernel buffer (the rule every real backend and the
 * tests follow):
 *   - A typed task's *result* is its last buffer that the kernel writes
 *     (mode HS_KWRITE or HS_KRW): `c` of gemm, `a` of potrf, `b` of trsm, ...
 *   - Take task t's incoming edges that carry data (bytes > 0), in the order
 *     the workload declares them, and t's readable buffers (HS_KREAD or
 *     HS_KRW), in the type's buffer order.  The k-th such edge, from task u,
 *     feeds the k-th readable buffer when u is typed and u's result has
 *     exactly that buffer's size; the edge's own `bytes` are not looked at
 *     (they are the cost model's, not the data's).
 *   - Every readable buffer no edge feeds comes from the type's
 *     deterministic input generator (hs_kfill) with seed = whole-task index
 *     + 1.  Edges of 0 bytes, extra edges and edges from untyped tasks only
 *     order.
 *   - The *outputs* of a run are the results of the typed tasks without
 *     successors: they end on host memory, byte-exact.
 *
 * Data manager: each typed task's result has one replica slot per memory,
 * each with a valid flag (MSI-style: the producer's write makes its own
 * memory's replica the only valid one).  Memories are spaces of exec/mem.h:
 * malloc'd RAM under cpu and emu, pinned host RAM and cudaMalloc'd GPU
 * memory under cuda (the k-th gpu device of the platform is CUDA device k).
 *   - Before a task runs on memory m, each fed input gets a replica on m,
 *     copied from host when host holds a valid one, else from the
 *     lowest-numbered memory that does (counted on link source -> m).  A
 *     buffer the kernel only reads is the replica itself; one it updates
 *     (HS_KRW) is a private copy of it.  Generated inputs are made on host
 *     and copied to private buffers on m: part of the task's time, not of
 *     the link counters.
 *   - Prefetch (hs__data_prefetch): the same copies, started early; cuda
 *     enqueues them on the H2D, D2H and D2D streams and the kernel waits on
 *     their events, plain (cpu, emu) does them at once in the caller.  A
 *     fetched replica is pinned: neither freed nor evicted until its
 *     consumer has run.  A consumer that runs on another memory drops the
 *     pins and fetches anew.
 *   - Every replica a running or prefetched task reads, and the task's own
 *     result until its check ended, is pinned.  Consumers are counted per fed
 *     buffer: when the last one finished (its check included), every replica
 *     is freed; an output keeps only its host replica.
 *   - Eviction: each memory but host has a capacity (cuda: the GPU's free
 *     memory at init minus HS__CUDA_MARGIN; emu: none; both: the report's
 *     device_memory when set).  An allocation that would exceed it evicts
 *     unpinned replicas, least recently used first, writing a replica back
 *     to host first when no other memory has a valid copy (counted on the
 *     link and in `writebacks`); then drops the pins of prefetches whose
 *     task has not started.  A kernel whose buffers exceed the capacity alone
 *     fails with HS_EINPUT naming it.
 *   - Checks need host copies of the inputs and the result: they are made
 *     after the task's end time and counted in check_bytes/check_copies only.
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
 * buffers; these copies are counted on the links host -> memory and back.
 * Slices are disjoint, so in-place (HS_KRW) buffers and BLAS outputs are
 * only ever written back within their own span.  A type that is not
 * splittable runs whole in part 0, wherever that is.  The last part to end
 * stores the result on host and checks the whole kernel.  A part's
 * measured time starts once the group's inputs are generated and covers
 * its copies.
 *
 * Not done yet: a part on a GPU takes its input from host even when a
 * replica is on that GPU already, allocates whole-size buffers there (not
 * just its spans) and is not prefetched; a pool of device and pinned
 * buffers (each replica is a cudaMalloc or cudaHostAlloc of its own, made
 * under the data manager's lock); asynchronous staged copies between GPUs
 * without peer access.
 *
 * A kernel on a cpu device computes with the device's `cores` threads (the
 * online processors shared by the cpu devices when not given); an emulated
 * gpu computes on one.  Generated inputs stand for data the application
 * holds on host: hs__data_new makes them all before the run, on every
 * online processor (host memory for all of them at once; each task frees
 * its own after its check), so a task's time covers its copies and its
 * kernel, and making gigabytes of inputs never occupies a device.
 */
#ifndef HS_EXEC_DATA_H
#define HS_EXEC_DATA_H

#include <stddef.h>
#include <time.h>

#include "exec/backend.h"
#include "hetsched/error.h"
#include "hetsched/graph.h"

/* One output of a run: the result of typed task `task` (an index of the
 * workload's graph, w->graph). */
typedef struct hs_run_output {
    size_t task;
    size_t bytes;
    void *data;
} hs_run_output;

/* What a real backend measured, filled by its fini when the caller set
 * b->state to one of these before hs_engine_run (the backend's init takes
 * it from there).  Free with hs_run_report_free. */
typedef struct hs_run_report {
    /* in: capacity in bytes of each memory but host under emu and cuda (0:
     * the backend's default, see above); read by the backend's init */
    size_t device_memory;
    int nmemories;
    double *link_bytes;      /* [from * nmemories + to]: bytes copied */
    double *link_us;         /* time spent copying on that link */
    size_t *link_copies;     /* number of copies */
    size_t typed, checked;   /* typed tasks run; those whose check passed */
    size_t untyped;          /* cost-only tasks, run by sleeping cost_us */
    size_t replicas_allocated, replicas_freed; /* result replicas, all memories */
    size_t evictions, writebacks; /* replicas evicted; of those, copied to host first */
    size_t prefetched;       /* input copies started by hs__data_prefetch */
    double check_bytes;      /* copied to host for the checks only */
    size_t check_copies;
    size_t noutputs;
    hs_run_output *outputs;  /* task order; owned by the report */
} hs_run_report;

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
 * feeds which buffer, each part's items, the generated inputs.  HS__REAL_CPU
 * puts every memory on host; device_memory caps each other memory (the
 * caller's hs_run_report.device_memory; 0: a GPU's free memory, no cap on
 * an emulated one).  HS_EINPUT for a bad kernel type or params. */
int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                 size_t device_memory, hs__data **out, hs_error *err);

/* Runs task t on device d in the calling thread (thread-safe): copies its
 * inputs to d's memory, runs the kernel (or sleeps cost_us for an untyped
 * one), stores its result, copies an output to host, then checks the kernel.
 * *start_us and *end_us are read on the monotonic clock relative to t0 and
 * cover the copies and the kernel but not the check.  HS_ECHECK when the
 * check fails. */
int hs__data_run(hs__data *dm, size_t t, int d, const struct timespec *t0, double *start_us,
                 double *end_us, hs_error *err);

/* Starts moving ready task t's fed inputs to device d's memory without
 * waiting for the copies (thread-safe); t will run on d after what d runs
 * now, so its copies overlap that kernel.  cuda: asynchronous; emu: the
 * copies are done before it returns; cpu: nothing to move.  Best effort:
 * an input whose producer has not ended, or that finds no room without
 * evicting a pinned replica, is left for hs__data_run.  0, or a negative
 * HS_E* code (a failed copy). */
int hs__data_prefetch(hs__data *dm, size_t t, int d, hs_error *err);

/* Moves the counters and the outputs into *r (which must be zeroed). */
int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err);
void hs__data_free(hs__data *dm);

/* µs on the monotonic clock since t0. */
double hs__since_us(const struct timespec *t0);

#endif
