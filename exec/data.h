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
 * memory's replica the only valid one).  Before a task runs on memory m, each
 * fed input gets a replica on m, copied on demand (memcpy, timed and counted
 * on link source -> m) from host when host holds a valid one, else from the
 * lowest-numbered memory that does; the task then computes on private copies
 * in m's space.  When the last consumer of a result has taken its input, every
 * replica of it is freed; an output keeps only its host replica.  Under the
 * cpu backend every device computes in host memory, so nothing is copied.
 *
 * Data follow whole tasks (the workload's graph), also when a policy split
 * the graph: the parts of a split typed task share one set of buffers in
 * host memory, whatever their devices; part k of n runs its slice of the
 * items (see part_ranges in exec/data.c) and the last part to end stores the
 * result and checks the whole kernel.
 *
 * Not done yet: prefetch at hs_engine_assign, copies overlapping kernels
 * (a copy holds the data manager's lock), eviction under memory pressure,
 * own memory spaces for parts of a split kernel.  Each kernel runs on one
 * thread; the time of a task includes generating its inputs (hs_kfill).
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
    int nmemories;
    double *link_bytes;      /* [from * nmemories + to]: bytes copied */
    double *link_us;         /* time spent copying on that link */
    size_t *link_copies;     /* number of copies */
    size_t typed, checked;   /* typed tasks run; those whose check passed */
    size_t untyped;          /* cost-only tasks, run by sleeping cost_us */
    size_t replicas_allocated, replicas_freed; /* result replicas, all memories */
    size_t noutputs;
    hs_run_output *outputs;  /* task order; owned by the report */
} hs_run_report;

void hs_run_report_free(hs_run_report *r);

/* The backends: `cpu` (worker threads on host memory; refuses gpu devices),
 * `emu` (gpu devices get their own memory spaces, see above) and `cuda`
 * (gpu devices are CUDA GPUs; exec/cuda.c, built with the cuda feature). */
extern const hs_backend_ops hs_backend_cpu;
extern const hs_backend_ops hs_backend_emu;

/* The backend called `name` ("sim", "cpu", "emu"), or NULL. */
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
 * feeds which buffer, each part's items.  HS__REAL_CPU puts every memory
 * on host.  HS_EINPUT for a bad kernel type or params. */
int hs__data_new(const hs_workload *w, const hs_graph *g, hs__real_mode mode, hs__data **out,
                 hs_error *err);

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
 * now, so its copies overlap that kernel.  May do nothing (cpu, emu).
 * 0, or a negative HS_E* code. */
int hs__data_prefetch(hs__data *dm, size_t t, int d, hs_error *err);

/* Moves the counters and the outputs into *r (which must be zeroed). */
int hs__data_report(hs__data *dm, hs_run_report *r, hs_error *err);
void hs__data_free(hs__data *dm);

/* µs on the monotonic clock since t0. */
double hs__since_us(const struct timespec *t0);

#endif
