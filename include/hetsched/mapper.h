/* hetsched — mapping a workload with a scheduling policy (public API).
 *
 * A policy (mapper/policy.h) decides which device runs each task and in what
 * order; the engine (exec/engine.h) drives it with events; a backend executes.
 * hs_map runs a policy on the `sim` backend: virtual time, costs and
 * transfers from the model of DESIGN.md §1, no threads.
 */
#ifndef HETSCHED_MAPPER_H
#define HETSCHED_MAPPER_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_map_options {
    unsigned long seed;     /* for `random` and tie-breaking that wants it */
    int thr;                /* h-ratio / d-rank dispatch threshold; 0 = default */
    double split_threshold_us; /* ad-part: split a kernel predicted longer than
                                  this; 0 = the policy's default */
    const struct hs_perfmodel *perfmodel; /* ad-part: predicts the parts of typed
                                  kernels (hetsched/perfmodel.h); NULL = f x cost */
    struct hs_split_graph *split; /* --split: every splittable kernel is split
                                  across the devices by a chunk splitter
                                  (hetsched/split.h); NULL = none */
    /* The executor's model instead of the delay model (DESIGN.md §1), as
     * `run` predicts itself: device d holds up to executor_depth[d] started
     * tasks and runs them in order (but that a GPU runs a task whose inputs
     * are there ahead of a held one that waits for its copies, when it ends
     * before they do: DESIGN.md, "Run-ahead on a GPU"); a task's input
     * copies start when it is started on its device (or prefetched:
     * hs_engine_prefetch; or, for its input from host, moved ahead in
     * pieces by a policy that plans its tasks: hs_engine_prefetch_input)
     * and queue on their link (one copy at a time per ordered pair of
     * memories), and an output's copy back to host queues on its link
     * after the task's end; a result copied to a memory once
     * serves every later reader there.  A part of a split typed kernel on a
     * memory but host works through host, as the data manager runs it: its
     * inputs go to host first, then one copy brings the spans it reads (a
     * buffer its type reads whole, such as gemm's B, whole; its fraction of
     * the others), and its written span goes back to host after its end.
     * The schedule's transfers are those copies and its model "executor".
     * NULL: the delay model. */
    const int *executor_depth;
    /* Splits at run time: every kernel marked splittable that the policy
     * gives a device runs as chunks that this splitter (hetsched/split.h)
     * decides from the chunks' measured times, on every device that is
     * idle (the policy is told it ran whole on the device it chose);
     * options may be NULL.  Needs a backend that runs chunks (start_chunk:
     * sim, cpu, emu, cuda).  NULL: none. */
    const struct hs_splitter *live_split;
    const struct hs_split_options *live_split_options;
    double budget_ms;       /* best: time for its portfolio and local search, in
                               ms, at most HS_MAX_BUDGET_MS; 0 = 100 */
    /* A schedule to run instead of a policy's choices (hs_map with policy
     * NULL; `map --schedule`): each task on the device the schedule places
     * it on, each device's tasks in the order of their start times there
     * (then end times, then precedence); a task still waits for its
     * device's previous task and its inputs.  It must place every task of
     * the workload's graph once, whole, in devices' orders that a run can
     * keep (hs_schedule_read_given reads one and checks that); not with
     * split or live_split.  NULL: none. */
    const hs_schedule *schedule;
    /* A real run (hs_run) whose engine estimates with the executor's model
     * instead of the delay model: when a held task will end (its input
     * copies queued on their links) and so when a device is free, what a
     * policy's finish times build on.  A run predicted with the executor's
     * model sets it, so that its policy decides on what the prediction's
     * decided on; the simulator's (executor_depth) always does. */
    int executor_estimates;
} hs_map_options;

#define HS_MAX_BUDGET_MS 3.6e6 /* one hour */

typedef struct hs_map_stats {
    double mapping_seconds; /* CPU time spent inside the policy's hooks */
    double busy_us_total;
    size_t events;          /* engine events processed */
    int failed_devices;     /* devices that failed during a real run */
    size_t rerun;           /* tasks a failed device held, run elsewhere */
    size_t live_splits;     /* tasks split at run time (live_split) */
    size_t chunks;          /* ... in this many chunks in all */
} hs_map_stats;

typedef struct hs_policy hs_policy; /* mapper/policy.h */

/* The registered policies, NULL-terminated, in the order `map -a help`
 * lists them; and one by name (NULL if none). */
const hs_policy *const *hs_policy_list(void);
const hs_policy *hs_policy_find(const char *name);
const char *hs_policy_name(const hs_policy *p);
const char *hs_policy_description(const hs_policy *p);

/* The hs_map_options a policy reads besides the cost model, as a mask (a
 * command refuses an option the chosen policy would ignore), and what it
 * promises about its placements (HS_POLICY_CPUS_ONLY). */
enum {
    HS_POLICY_TAKES_THR = 1 << 0,    /* thr: h-ratio, d-rank, ad-part, best */
    HS_POLICY_TAKES_SEED = 1 << 1,   /* seed: random, best's local search */
    HS_POLICY_TAKES_BUDGET = 1 << 2, /* budget_ms: best */
    HS_POLICY_CPUS_ONLY = 1 << 3,    /* not an option: runs every task on a CPU device
                                        (cpu-only), so --split splits over those only */
};
unsigned hs_policy_options(const hs_policy *p);

/* Maps the finalized workload w with the named policy in simulation, or
 * with policy NULL runs opt->schedule there (algorithm "given").  On
 * success *out is a schedule that passes hs_schedule_validate (makespan
 * set, algorithm = policy name; under the delay model its transfers left
 * implied: hs_schedule_each_transfer visits them, and
 * hs_schedule_derive_transfers lists them).  `opt` and `stats` may be
 * NULL.  An unknown policy, or a policy and a schedule both or neither, is
 * HS_EUSAGE; a schedule that is not of w's graph (see
 * hs_schedule_read_given) is HS_EINPUT. */
int hs_map(hs_workload *w, const char *policy, const hs_map_options *opt, hs_schedule **out,
           hs_map_stats *stats, hs_error *err);

/* Checks what hs_map would refuse before it touches a workload, with
 * hs_map's message: with `given` nonzero (opt->schedule will hold a
 * schedule read later, or does already) a policy name or a split beside it
 * (HS_EUSAGE); otherwise an unknown policy (HS_EUSAGE) and a policy that
 * splits kernels itself under opt->split (HS_EINPUT).  opt may be NULL. */
int hs_map_check(const char *policy, int given, const hs_map_options *opt, hs_error *err);

/* Reads the schedule at `path` (the JSON of `map --json`, `optimal --json`
 * or `run --json`; "-" is stdin) for hs_map_options.schedule and checks
 * that it is one of w: every id and device it names is w's
 * (hs_schedule_read_json), it places every task of w's graph once and
 * whole, and no task comes on its device before one that waits for it
 * (through the graph's edges and the other devices' orders).  Its times
 * only order each device's tasks; the model is not checked.  HS_EINPUT
 * with one line "FILE:LINE:COL: error: PATH: WHAT" (FILE:1:1 for a task
 * that is missing), HS_ENOMEM; *out is NULL on error. */
int hs_schedule_read_given(hs_workload *w, const char *path, hs_schedule **out, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
