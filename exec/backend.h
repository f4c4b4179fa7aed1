/* hetsched — the backend interface: sim, cpu, cuda and emu are peers behind
 * this struct (DESIGN.md §6).  The engine calls start_task when a device
 * takes a task (a device may hold up to depth() started tasks, run in order)
 * and wait() for the next completion, or lets the backend's threads run its
 * steps (drive); a backend never makes decisions.
 */
#ifndef HS_EXEC_BACKEND_H
#define HS_EXEC_BACKEND_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

typedef struct hs_backend hs_backend; /* also in exec/engine.h (C11 allows both) */

typedef struct hs_completion {
    size_t task;
    int device;
    double start_us, end_us; /* when it really ran (virtual under sim) */
    int failed;              /* the device failed: the task did not run, and the
                                device runs nothing more (the engine runs the
                                task elsewhere) */
    int chunk;               /* a chunk of a split task (start_chunk): items */
    size_t begin, end;       /* [begin, end) of the kernel's items */
} hs_completion;

typedef struct hs_backend_ops {
    const char *name;
    /* Prepares to run graph g of workload w. */
    int (*init)(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err);
    /* 1: init takes a graph of parts whose edges are implied (hs_graph's
     * whole); 0: the engine lists them first (a real backend moves each
     * part's data by its edges, exec/data.c). */
    int implied_edges;
    /* Starts task t on device d no earlier than `earliest_us`, the time its
     * inputs can be there (the engine's delay-model prediction; real
     * backends move the data themselves and may ignore it), in the `order`
     * the engine's model runs it (HS_START_*: a real backend may ignore
     * it). */
    int (*start_task)(hs_backend *b, size_t t, int d, double earliest_us, int order,
                      hs_error *err);
    /* Blocks until the next task finishes; returns 0, or 1 when nothing runs. */
    int (*wait)(hs_backend *b, hs_completion *c, hs_error *err);
    double (*now)(const hs_backend *b);
    void (*fini)(hs_backend *b);
    /* Optional, never blocks: the next completion that has already happened
     * by now() (sim: one ending exactly at the current virtual time; a real
     * backend: one already in its completion queue); returns 0, or 1 when
     * there is none.  The engine calls it after wait() so that it handles
     * every completion of one instant before any device picks. */
    int (*poll)(hs_backend *b, hs_completion *c, hs_error *err);
    /* Optional, asked once after init: how many started tasks device d may
     * hold at once (1 to HS_BACKEND_MAX_DEPTH; NULL means 1).  The engine
     * may start a task on d while d holds fewer (one the policy committed to
     * d, engine.h: hs_engine_assign), so a real worker finds its next task
     * queued when it ends one and may prefetch its inputs; it runs them in
     * start order (but for HS_START_AHEAD) and reports each completion.  The simulator
     * keeps 1: a simulated device takes a task only when idle. */
    int (*depth)(const hs_backend *b, int d);
    /* Optional (needs poll): runs the engine on the backend's own threads,
     * as StarPU does, instead of the engine's thread waiting for each
     * completion (wait is then not called).  Calls step(ctx, err) once at
     * once, then again after completions are posted, on any thread, never
     * two at a time, until a step returns 1 (every task finished) or a
     * negative code (its error in *err); no step starts after that.  A step
     * takes the posted completions with poll and may call start_task.
     * Returns 0 or the failing step's code, with *err filled. */
    int (*drive)(hs_backend *b, int (*step)(void *ctx, hs_error *err), void *ctx,
                 hs_error *err);
    /* Optional: like start_task, for items [begin, end) of splittable task t
     * (of its kernel's `items`) only; its completion says chunk, begin and
     * end.  Task t's first chunk sets up what its chunks share; the chunk
     * that completes its items stores the whole result.  The engine gives
     * a device one chunk at a time and never the same items twice. */
    int (*start_chunk)(hs_backend *b, size_t t, int d, size_t begin, size_t end,
                       double earliest_us, hs_error *err);
    /* Optional: after the last completion of a run that succeeded, before
     * fini: the work that must not count in the run (the real backends'
     * checks).  0, or the error that fails the run. */
    int (*finish)(hs_backend *b, hs_error *err);
    /* Optional, never blocks: starts copying task t's inputs to device d's
     * memory: with bytes HUGE_VAL, all of ready task t's
     * (hs_engine_prefetch); otherwise the next `bytes` of its input from
     * host, of a task that may not be ready yet
     * (hs_engine_prefetch_input).  A failure fails the run (reported as a
     * task's would be). */
    void (*prefetch)(hs_backend *b, size_t t, int d, double bytes);
} hs_backend_ops;

/* start_task's order.  A device holds its started tasks in start order,
 * except that the executor's model lets a GPU run a task whose inputs are
 * there in the gap before a held task that waits for its input copies
 * (engine.c, order_of): the waiting one is started HS_START_MAY_WAIT, and
 * a task that runs before it HS_START_AHEAD.  A GPU's worker then holds the
 * waiting task's kernel back until its copies have happened, with it the
 * tasks handed over after it but those started ahead (exec/cpu.c,
 * launch_apart); a backend that runs every task in start order may report
 * the completions so. */
enum { HS_START_IN_ORDER, HS_START_MAY_WAIT, HS_START_AHEAD };

/* The most tasks a device may hold (the rings of exec/cpu.c). */
#define HS_BACKEND_MAX_DEPTH 16

struct hs_backend {
    const hs_backend_ops *ops;
    void *state;
};

/* The simulator: virtual time, an event heap, costs from the graph. */
extern const hs_backend_ops hs_backend_sim;

#endif
