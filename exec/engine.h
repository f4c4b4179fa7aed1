/* hetsched — the engine: owns time, readiness and data; drives a policy
 * (mapper/policy.h) with events and a backend (exec/backend.h) with work.
 *
 * What a policy may ask the engine (all predictions come from the cost model
 * of the graph being run, DESIGN.md §1, never from the backend):
 */
#ifndef HS_EXEC_ENGINE_H
#define HS_EXEC_ENGINE_H

#include <stddef.h>

#include "hetsched/graph.h"
#include "hetsched/mapper.h"
#include "hetsched/schedule.h"

typedef struct hs_engine hs_engine;
typedef struct hs_backend hs_backend; /* exec/backend.h */

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

/* Runs `policy` over the workload on `backend` until every task finished.
 * Returns the schedule of what happened (transfers derived, makespan set). */
int hs_engine_run(hs_workload *w, const hs_policy *policy, const hs_map_options *opt,
                  hs_backend *backend, hs_schedule **out, hs_map_stats *stats, hs_error *err);

#endif
