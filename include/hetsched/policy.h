/* hetsched — the scheduling-policy interface (public API; DESIGN.md §6):
 * what a policy implements, what it may ask the engine, and how a program
 * registers a policy of its own beside the library's.
 *
 * A policy decides which device runs each task and in what order.  It
 * never knows whether it runs under the simulator (hs_map) or on real
 * devices (hs_run): the engine gives it the same events either way, and
 * every prediction it asks for comes from the cost model of the graph
 * being run (DESIGN.md §1), never from a backend.
 *
 * Hook order, for one run:
 *   transform   (optional) before anything: may replace the task graph, e.g.
 *               ad-part splits long kernels into parts (hs_task.part/nparts/
 *               fraction/origin say what each part is);
 *   init        once, with the engine (platform, graph, cost model);
 *   ready(t)    when every predecessor of t has finished (push); the engine
 *               announces the graph's sources right after init;
 *   pick(d)     when device d is idle: return the next task for d, or
 *               HS_NO_TASK to leave d idle until the next event (pop).  A
 *               task returned must have been announced ready and not picked
 *               before.  On a real backend d is also asked while it runs a
 *               task if the policy committed tasks to it (hs_engine_assign):
 *               the task returned then waits on d;
 *   done(t,d,us) (optional) after t finished on d, with its measured
 *               duration, before the ready() calls of its successors;
 *   fini        (optional) once at the end (also after a failed run).
 * Every idle device is asked again after each batch of events, so a policy
 * that returns HS_NO_TASK loses nothing.  A run in which tasks remain, no
 * device runs anything and every idle device answers HS_NO_TASK is a policy
 * bug, reported as HS_EINTERNAL.  The hooks of one run are called from one
 * thread at a time (on a real backend, not always the same thread).
 *
 * A policy that keeps per-device queues calls hs_engine_assign() when it
 * commits a task to a device: the engine then counts it in that device's
 * expected availability and a real backend may start fetching its inputs.
 */
#ifndef HETSCHED_POLICY_H
#define HETSCHED_POLICY_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/mapper.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What pick() returns to leave the device idle. */
#define HS_NO_TASK (-1L)

typedef struct hs_engine hs_engine;
struct hs__plan; /* the library's static policies only */

struct hs_policy {
    const char *name;        /* as given to -a and hs_map: unique */
    const char *description; /* one line for `map -a help` */
    unsigned options;        /* HS_POLICY_*: the options it reads and its promises
                                (include/hetsched/mapper.h) */
    /* Optional: build the graph the run schedules (into *out, with
     * hs_graph_init); return 1 if it did, 0 to keep w->graph. */
    int (*transform)(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                     hs_error *err);
    /* Sets *state (passed to every other hook); HS_OK or an error that
     * fails the run. */
    int (*init)(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err);
    void (*ready)(void *state, hs_engine *e, size_t task);
    long (*pick)(void *state, hs_engine *e, int device);
    void (*done)(void *state, hs_engine *e, size_t task, int device, double measured_us);
    void (*fini)(void *state);
    /* The library's static policies (heft, peft, ...) only; NULL in a
     * policy of a program's own: the whole plan, for a portfolio that
     * compares plans without a run. */
    int (*plan)(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                struct hs__plan *out, hs_error *err);
    /* Optional: after each round of picks, for every device whose memory
     * is not host: a policy that knows which tasks d will run next (a plan,
     * or d's own queue) may move their inputs from host there ahead of time
     * (hs_engine_prefetch_input). */
    void (*ahead)(void *state, hs_engine *e, int device);
};

/* Adds p to the registered policies (hs_policy_list, hs_policy_find): from
 * then on hs_map, hs_run, `compare` and the MILP's incumbent search use it
 * by name like the library's own.  p must stay valid while the process
 * runs.  Register before anything else runs on another thread.  HS_EUSAGE
 * for a name that is empty, has a '+' (the name of a split policy) or is
 * taken, for a missing name, description, init, ready or pick, or beyond
 * HS_MAX_USER_POLICIES. */
int hs_policy_register(const hs_policy *p, hs_error *err);
#define HS_MAX_USER_POLICIES 64

/* ---------------------------------------------------------------------
 * What a policy may ask the engine, from its hooks.  Tasks are indices of
 * hs_engine_graph(e), devices of hs_engine_platform(e).
 */

/* The workload, its platform, and the graph being run (w->graph, or the
 * graph a policy's transform built). */
const hs_workload *hs_engine_workload(const hs_engine *e);
const hs_platform *hs_engine_platform(const hs_engine *e);
const hs_graph *hs_engine_graph(const hs_engine *e);

/* Current time in µs (virtual under sim, measured on real backends). */
double hs_engine_now(const hs_engine *e);

/* Predicted cost of task t on device d (µs). */
double hs_engine_cost(const hs_engine *e, size_t t, int d);

/* Device where a finished or started task ran / runs, or -1. */
int hs_engine_task_device(const hs_engine *e, size_t t);

/* Predicted time at which all inputs of t (predecessors' data and its
 * input_bytes from host) can be on device d's memory, given where its
 * predecessors ran; a predecessor not yet finished counts with its
 * predicted end.  Delay model: transfers start when the producer ends. */
double hs_engine_data_ready(const hs_engine *e, size_t t, int d);

/* Predicted time device d becomes free: the end of what it holds now (the
 * task it runs and, on a backend whose devices hold more than one started
 * task, those started after it) plus everything assigned to it and not yet
 * started (hs_engine_assign). */
double hs_engine_device_available(const hs_engine *e, int d);

/* Predicted finish of t on d if appended after d's assigned work:
 * max(available(d), data_ready(t, d)) + cost(t, d).  (eq. 11-12 of the
 * Zhou & Liu paper; dmda's expected completion.) */
double hs_engine_finish_time(const hs_engine *e, size_t t, int d);

/* How many of t's inputs (predecessor edges with bytes > 0, plus its host
 * input) already have a valid copy in memory m (dmdar's ordering). */
int hs_engine_inputs_on(const hs_engine *e, size_t t, int memory);

/* A policy commits t to device d's queue: counted in
 * hs_engine_device_available(d) until t starts.  While d has committed
 * tasks, the engine asks it to pick also when it runs one, on a backend
 * whose devices hold more than one started task (backend.h: depth): the
 * next one then waits on the device and its inputs are prefetched.  Call at
 * most once per task. */
void hs_engine_assign(hs_engine *e, size_t t, int d);

/* A policy starts moving ready task t's inputs to device d's memory now,
 * ahead of t's start there, as StarPU's dm* schedulers do when they push a
 * task to a worker's queue: a real backend copies them (a typed task's,
 * unsplit, to a memory other than host; nothing else), and the executor's
 * model queues those copies on their links now instead of at t's start;
 * there, and in a run, they then count as on that memory
 * (hs_engine_inputs_on).  The delay model ignores it. */
void hs_engine_prefetch(hs_engine *e, size_t t, int d);

/* From a policy's ahead hook: moves a piece of the input from host of task
 * t (not started, ready or not) to device d's memory, in time the host ->
 * d link would otherwise stay idle.  Under the executor's model (the
 * simulator's, and a run's estimates), the piece fills the link from the
 * end of its queue to the next completion the model predicts (or to a
 * little after now, when that is sooner), and a real backend copies the
 * same bytes; what no piece moved is copied at t's start, as before.
 * Returns 1 when t has bytes left to move and the link has no more time
 * before the next completion (ask again at the next round), 0 when t has
 * nothing (more) to move to d: its whole input is there or on its way, it
 * has none, or it is not a typed whole kernel on a memory but host; always
 * 0 under the delay model. */
int hs_engine_prefetch_input(hs_engine *e, size_t t, int d);

#ifdef __cplusplus
}
#endif
#endif
