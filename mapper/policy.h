/* hetsched — the scheduling-policy interface (DESIGN.md §6).
 *
 * Each policy is one file in mapper/ ending in a designated-initializer
 * instance of hs_policy, and one line in the registry (mapper/registry.c).
 * A policy never knows whether it runs under the simulator or on real
 * devices: the engine gives it the same events either way, and every
 * prediction it asks for comes from the cost model, never from a backend.
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
 *               the task returned then waits on d (exec/engine.h);
 *   done(t,d,us) after t finished on d, with its measured duration, before
 *               the ready() calls of its successors;
 *   fini        once at the end (also after a failed run).
 * Every idle device is asked again after each batch of events, so a policy
 * that returns HS_NO_TASK loses nothing.  A run in which tasks remain, no
 * device runs anything and every idle device answers HS_NO_TASK is a policy
 * bug, reported as HS_EINTERNAL.
 *
 * A policy that keeps per-device queues calls hs_engine_assign() when it
 * commits a task to a device: the engine then counts it in that device's
 * expected availability and a real backend may start fetching its inputs.
 *
 * A policy that fixes its whole schedule before the run (heft, peft, ...)
 * also gives that plan as a hook of its own, `plan`, a pure function of the
 * graph and the platform: its init follows the same plan
 * (hs__planned_init, mapper/rank.h), and a portfolio (`best`) asks for it
 * without a run.
 */
#ifndef HS_MAPPER_POLICY_H
#define HS_MAPPER_POLICY_H

#include <stddef.h>

#include "exec/engine.h"
#include "hetsched/mapper.h"

#define HS_NO_TASK (-1L)

struct hs__plan; /* mapper/rank.h */

struct hs_policy {
    const char *name;        /* as given to -a */
    const char *description; /* one line for `map -a help` */
    unsigned options;        /* HS_POLICY_TAKES_*: the options it reads
                                (include/hetsched/mapper.h) */
    /* Optional: build the graph the run schedules (into *out, with
     * hs_graph_init); return 1 if it did, 0 to keep w->graph. */
    int (*transform)(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                     hs_error *err);
    int (*init)(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err);
    void (*ready)(void *state, hs_engine *e, size_t task);
    long (*pick)(void *state, hs_engine *e, int device);
    void (*done)(void *state, hs_engine *e, size_t task, int device, double measured_us);
    void (*fini)(void *state);
    /* Optional: the plan a static policy follows, for graph g on platform pf
     * (into *out, hs__plan_alloc'ed); the same as its init computes. */
    int (*plan)(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                struct hs__plan *out, hs_error *err);
};

/* The policy called `name`, wrapped by opt->split's splitter when that is
 * set (mapper/split_graph.h): what hs_map runs in the simulator and `run`
 * on real devices.  HS_EUSAGE for an unknown policy, HS_EINPUT for one that
 * splits kernels itself (ad-part) under --split. */
int hs__policy_resolve(const char *name, const hs_map_options *opt, const hs_policy **out,
                       hs_error *err);

#endif
