/* hetsched — the MILP oracle: optimal makespans for whole-task schedules
 * under the delay model of DESIGN.md §1, and a cheap lower bound.
 *
 * Two formulations of the same problem, built with GLPK and solved by its
 * branch and bound (or by CBC where built in):
 *   - HS_MILP_PAPER: the MIP of Zhou & Liu (ESWEEK 2014) Sec. 2.2, eq. (1-8),
 *     with position binaries "task t is the g-th on device q", made linear
 *     and extended to inputs and outputs (milp/paper.c derives it), plus by
 *     default the strengthening below written in its variables;
 *   - HS_MILP_COMPACT (default): assignment binaries, start times, ordering
 *     binaries only for pairs the graph leaves unordered, communication
 *     without products of binaries, time windows and big-M values from
 *     critical paths and the incumbent, symmetry breaking for identical
 *     application instances and identical devices (milp/compact.c).
 * Both model exactly: duration = cost on the device; an edge's data arrives
 * its transfer time after the producer ends (0 on the same memory); inputs
 * leave host memory at time 0; the makespan counts outputs back on the host.
 * Tasks are never split here.
 *
 * The search starts from the best heuristic schedule (its own list
 * schedulers plus every registered mapping policy), which also bounds the
 * makespan from above.  At every node of the branch and bound a bound of
 * its own (heads and tails over the devices the node leaves each task, and
 * the tasks it pins to one device run one after the other: milp/bound.c)
 * raises the node's LP value; GLPK branches on the assignment of the
 * earliest task in topological order first, and rounds the nodes' LP
 * solutions into schedules.  GLPK is never entered by two threads at once:
 * every call holds one process-wide lock.
 */
#ifndef HETSCHED_MILP_H
#define HETSCHED_MILP_H

#include <signal.h>
#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tasks the MILP takes at most: the compact model has a binary per
 * unordered pair, the paper's N^2 x devices position binaries.  Beyond, and
 * where either would need too many rows, hs_milp_solve answers with a bound. */
#define HS_MILP_MAX_TASKS 1000

typedef enum hs_milp_formulation {
    HS_MILP_COMPACT = 0,
    HS_MILP_PAPER = 1,
} hs_milp_formulation;

typedef enum hs_milp_solver {
    HS_MILP_GLPK = 0,
    HS_MILP_CBC = 1, /* HS_ENOTBUILT where hetsched was built without CBC */
} hs_milp_solver;

/* Parts of the models and of the search that can be switched off, to
 * measure what each contributes.  The paper formulation with
 * HS_MILP_USE_INCUMBENT alone is the paper's model as printed (made linear)
 * searched by the solver alone; the next three add to it the compact
 * model's strengthening in its own variables (milp/paper.c). */
enum {
    HS_MILP_USE_INCUMBENT = 1 << 0, /* heuristic schedules: start + upper bound */
    HS_MILP_USE_SYMMETRY = 1 << 1,  /* order identical instances and devices */
    HS_MILP_USE_CUTS = 1 << 2,      /* head/tail and per-device load rows */
    HS_MILP_USE_WINDOWS = 1 << 3,   /* time windows, tight big-M, fixings */
    HS_MILP_USE_SEARCH = 1 << 4,    /* in the search: node bounds, a heuristic at
                                       nodes, and (GLPK, compact) branching on
                                       assignments in topological order */
    HS_MILP_USE_ALL = 0x1f,
};

typedef struct hs_milp_options {
    hs_milp_formulation formulation; /* default HS_MILP_COMPACT */
    hs_milp_solver solver;           /* default HS_MILP_GLPK */
    double time_limit_s;             /* default 60; whole call, heuristics included */
    double rel_gap;                  /* stop when (makespan - bound) / makespan <= this;
                                        default 1e-6 */
    int verbose;                     /* solver output on stdout */
    int progress;                    /* -1 (default): a line on stderr each second when
                                        stderr is a terminal; 0 never; 1 always */
    unsigned features;               /* HS_MILP_USE_*; default HS_MILP_USE_ALL */
    const char *lp_file;             /* when set, the model is written there in CPLEX
                                        LP format before solving */
    volatile sig_atomic_t *stop;     /* when set and *stop turns nonzero (a signal
                                        handler may do it), the search stops at its
                                        next check and the result holds what was found
                                        (interrupted = 1); default NULL */
} hs_milp_options;

/* Fills *o with the defaults above. */
void hs_milp_options_init(hs_milp_options *o);

typedef enum hs_milp_status {
    HS_MILP_OPTIMAL = 0,     /* makespan proven optimal (relative gap <= 1e-6) */
    HS_MILP_FEASIBLE = 1,    /* a schedule, not proven optimal: see gap */
    HS_MILP_INFEASIBLE = 2,  /* no schedule exists */
    HS_MILP_NO_SOLUTION = 3, /* no schedule found within the time limit */
} hs_milp_status;

/* "optimal", "feasible", "infeasible", "no solution within the time limit". */
const char *hs_milp_status_name(hs_milp_status s);

typedef struct hs_milp_result {
    hs_milp_status status;
    hs_schedule *schedule;   /* owned; NULL when there is none.  algorithm
                                "optimal", transfers derived, passes
                                hs_schedule_validate */
    double makespan_us;      /* the schedule's makespan, HUGE_VAL without one */
    double bound_us;         /* best proven lower bound on the optimum */
    double gap;              /* (makespan - bound) / makespan, 0 when optimal */
    double root_bound_us;    /* the LP relaxation at the root (NAN if not solved) */
    double incumbent_us;     /* best heuristic makespan (HUGE_VAL if none) */
    char incumbent_from[32]; /* the heuristic that gave it */
    int rows, cols, binaries;
    double nodes;            /* branch-and-bound nodes */
    double solve_s;          /* wall-clock seconds of the whole call */
    int interrupted;         /* the search stopped early through options.stop */
    char not_built[256];     /* "" when the MILP was built; else why not (too
                                large for the formulation): the schedule is then
                                the best heuristic's, and the bound the LP
                                relaxation of the compact model without its
                                ordering rows (root_bound_us) */
} hs_milp_result;

/* Solves the MILP for the finalized workload w.  On HS_OK *res holds the
 * outcome (status says whether a schedule was found and proven optimal);
 * free it with hs_milp_result_free.  A workload too large for the model
 * (over HS_MILP_MAX_TASKS tasks, or too many rows) still gets an answer:
 * the best heuristic schedule and a bound, with res->not_built saying why.
 * The heuristics that give the first schedule spend at most a quarter of
 * the time limit improving it.  Errors: HS_EINPUT for a workload the model
 * cannot take (not finalized, split tasks, non-finite costs: the message
 * says which), HS_EUSAGE for bad options, HS_ENOTBUILT for CBC where it is
 * not built in, HS_ESOLVER if the solver fails; *res is then left empty
 * (schedule NULL). */
int hs_milp_solve(hs_workload *w, const hs_milp_options *opt, hs_milp_result *res,
                  hs_error *err);
void hs_milp_result_free(hs_milp_result *res);
/* Checks the options as hs_milp_solve does before it touches a workload
 * (opt NULL: the defaults pass): HS_EUSAGE for a bad formulation, solver,
 * time limit or gap, HS_ENOTBUILT for CBC where it is not built in, with
 * hs_milp_solve's message. */
int hs_milp_check(const hs_milp_options *opt, hs_error *err);

/* A lower bound on the makespan of every schedule of w's whole tasks (the
 * schedules this model and the validator accept without splits), in
 * O(tasks + edges x devices^2 x k log k), k the largest number of
 * predecessors or successors of a task up to 64: the larger of
 *   - the critical path where each task takes its fastest device, counting
 *     an input, output or edge transfer only as far as every choice of
 *     devices for its ends pays it, and the predecessors (successors) that
 *     share a task's device one after the other (heads and tails of
 *     milp/bound.c), and
 *   - the total fastest work divided by the number of devices.
 * The second also holds for split tasks; the first may not (parts of one
 * task run side by side).  0 for a workload that is not finalized. */
double hs_lower_bound_us(const hs_workload *w);

#ifdef __cplusplus
}
#endif
#endif
