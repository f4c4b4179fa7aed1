/* hetsched — internal: whole-task schedules as a device per task plus one
 * running order, their timing under the delay model, and a local search
 * over them (the second half of `best`, mapper/best.c).
 *
 * A sequenced schedule gives each task a device and puts all tasks in one
 * topological order, seq; each device runs its tasks in the order seq
 * lists them, each as early as it can: at the later of its device's end
 * of the previous task and the arrival of its inputs (host input from time
 * 0, a predecessor's data its transfer time after that predecessor ends).
 * That is exactly the run the engine makes of a plan (mapper/rank.h,
 * hs__planned_*) with these devices and orders, so the makespan computed
 * here is the one the simulator gives, outputs back on host included.
 */
#ifndef HS_MAPPER_LOCAL_SEARCH_H
#define HS_MAPPER_LOCAL_SEARCH_H

#include <stddef.h>

#include "hetsched/graph.h"
#include "mapper/rank.h"

typedef struct hs__seq_sched {
    int *dev;        /* [ntasks] */
    size_t *seq;     /* [ntasks]: a topological order */
    double makespan; /* of this schedule, once timed */
} hs__seq_sched;

int hs__seq_sched_alloc(hs__seq_sched *s, size_t n, hs_error *err);
void hs__seq_sched_free(hs__seq_sched *s);
void hs__seq_sched_copy(hs__seq_sched *to, const hs__seq_sched *from, size_t n);

/* Times sequenced schedules of one graph on one platform.  It remembers
 * the timing of one schedule, the committed one, position by position, so
 * that a neighbour that differs from it only from some position on is
 * timed from there. */
typedef struct hs__retimer {
    const hs_graph *g;
    const hs_platform *pf;
    double *start, *end; /* [ntasks], of the last schedule timed in full */
    size_t *topo_pos;    /* [ntasks]: position in a fixed topological order */
    size_t evaluations;  /* schedules timed so far, in full or in part */
    /* the committed schedule's timing */
    double *avail_at;    /* [ntasks + 1][ndevices]: each device's end of work
                            before position k of seq */
    double *home_at;     /* [ntasks + 1]: makespan of positions < k */
    double *cend;        /* [ntasks]: each task's end */
    /* a partial timing: tend[t] holds t's trial end where stamp[t] == trial */
    double *tend;
    size_t *stamp, trial;
    double *avail;       /* [ndevices]: scratch */
} hs__retimer;

/* HS_EINPUT on a cycle, HS_ENOMEM. */
int hs__retimer_init(hs__retimer *r, const hs_graph *g, const hs_platform *pf, hs_error *err);
void hs__retimer_free(hs__retimer *r);

/* The makespan of (dev, seq), start and end of each task in r->start and
 * r->end.  Stops at the first task whose end (plus its output's way home)
 * reaches `cutoff` and returns HUGE_VAL: the schedule cannot beat it. */
double hs__retime(hs__retimer *r, const int *dev, const size_t *seq, double cutoff);

/* hs__retime to the end, and (dev, seq) becomes the committed schedule. */
double hs__retime_commit(hs__retimer *r, const int *dev, const size_t *seq);

/* The makespan of (dev, seq), which agrees with the committed schedule on
 * seq[0 .. from) and on those tasks' devices, timed from position `from`
 * on; HUGE_VAL once it reaches `cutoff`.  Leaves r->start and r->end
 * alone. */
double hs__retime_from(hs__retimer *r, const int *dev, const size_t *seq, size_t from,
                       double cutoff);

/* The sequenced schedule that runs plan's devices in plan's order on each
 * device (by start, then end, then topological position), timed; its
 * makespan is at most the plan's (the plan is one feasible timing of these
 * orders and this is the earliest). */
void hs__seq_from_plan(hs__retimer *r, const hs__plan *plan, hs__seq_sched *out);

/* Writes the timing of s into plan (hs__plan_alloc'ed by the caller). */
void hs__seq_to_plan(hs__retimer *r, const hs__seq_sched *s, hs__plan *plan);

/* First-improvement local search from s, in place, until no move improves
 * it or the monotonic clock passes `deadline` (seconds, hs__seconds()).
 * Each neighbour is timed from the first position where it differs.
 * Moves: every task of one device onto another and back (for each pair
 * of devices); then, for each critical task in seq order (one whose delay
 * would delay the end: no other move can shorten the schedule), to another
 * device, to another place in seq (between its last predecessor and its
 * first successor) on any device, together with a neighbour (the other end
 * of one of its edges) to any device, and exchanging devices with another
 * task.  Deterministic while the
 * deadline is not reached.  s->makespan is set (s is timed first). */
void hs__local_search(hs__retimer *r, hs__seq_sched *s, double deadline);

/* Iterated local search (Lourenco, Martin & Stutzle, "Iterated local
 * search", 2003): hs__local_search from s, then, from the best schedule
 * found, kicks (in turn: two random tasks, each to another device; a
 * random task and all its neighbours to one device), each followed by
 * hs__local_search, keeping the result when it is shorter; stops after
 * `stall` kicks in a row that found nothing shorter, or at the deadline.
 * Random choices come from `seed`.  Memory: one more schedule. */
int hs__iterated_search(hs__retimer *r, hs__seq_sched *s, unsigned long seed, int stall,
                        double deadline, hs_error *err);

/* Seconds on the monotonic clock. */
double hs__seconds(void);

#endif
