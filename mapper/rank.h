/* hetsched — internal: what the list-scheduling policies share.
 *
 * h-ratio, d-rank and ad-part (Zhou & Liu, Sec. 4) differ only in the
 * priority they give a task; heft and peft (Topcuoglu et al. 2002; Arabnejad
 * & Barbosa 2014) differ only in their rank and in the term added to the
 * finish time when they choose a device.  This header holds the priorities
 * (pure functions of a graph and a platform, testable without the engine),
 * the threshold dispatcher of Alg. 1 parameterised by a priority, the
 * insertion slots of HEFT, and the planner + plan executor of heft and peft.
 */
#ifndef HS_MAPPER_RANK_H
#define HS_MAPPER_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "exec/engine.h"
#include "hetsched/graph.h"
#include "hetsched/mapper.h"

/* ------------------------------------------------------------ priorities */

/* Mean cost of task t over the devices (eq. (14)'s sum C / m, HEFT's w-bar). */
double hs__mean_cost(const hs_graph *g, size_t t);

/* Mean time to move `bytes` between two devices of the platform.  With
 * `distinct` set: over the m(m-1) ordered pairs of distinct devices (HEFT's
 * and PEFT's c-bar); otherwise over all m^2 ordered pairs, the pairs of a
 * device with itself counting 0 (eq. (13)).  A pair of devices sharing a
 * memory always counts 0 (no transfer in the model).  0 with one device.
 * The sums over the pairs are taken once (hs__link_sums_init, O(m^2)), so
 * that each edge costs O(1) however many devices there are (a 64-node
 * cluster has 320, 102080 pairs): the mean is
 *   (sum of latencies + bytes x sum of 1 / (bandwidth x 1000)) / pairs,
 * equal to the mean of hs_transfer_us over the pairs up to rounding (a few
 * units in the last place: the sum is grouped differently). */
typedef struct hs__link_sums {
    double pairs;       /* m(m-1) or m^2 */
    double latency_us;  /* sum over the pairs on two memories */
    double us_per_byte; /* sum of 1 / (bandwidth_gbps x 1000) over them */
    int missing;        /* pairs on two memories without a link */
} hs__link_sums;

void hs__link_sums_init(hs__link_sums *s, const hs_platform *pf, int distinct);
double hs__mean_transfer(const hs__link_sums *s, double bytes);

/* Heterogeneity ratio of every task, eq. (9)-(10): H = max_k C_k / min_k C_k
 * (the largest favorite ratio).  1 when every cost is 0; HUGE_VAL when only
 * some are.  h has g->ntasks entries. */
void hs__h_ratio(const hs_graph *g, double *h);

/* d-rank's priority, eq. (13)-(14): the task's mean cost plus, over its
 * successors, the largest mean transfer (eq. (13)) + successor mean cost.
 * One level deep, as eq. (14) is written (not HEFT's recursion). */
void hs__d_rank(const hs_graph *g, const hs_platform *pf, double *rank);

/* HEFT's upward rank: rank(t) = mean cost + max over successors of
 * (c-bar(e) + rank(s)), c-bar over distinct device pairs.  HS_EINPUT on a
 * cycle, HS_ENOMEM. */
int hs__upward_rank(const hs_graph *g, const hs_platform *pf, double *rank, hs_error *err);

/* PEFT's optimistic cost table: oct[t * m + p] = max over successors s of
 * min over devices w of (oct(s, w) + C(s, w) + (c-bar(e) if w's memory
 * differs from p's, else 0)); 0 for a sink.  rank[t] = mean of oct[t][.]
 * (rank_oct), or NULL when not wanted.  HS_EINPUT on a cycle, HS_ENOMEM. */
int hs__oct(const hs_graph *g, const hs_platform *pf, double *oct, double *rank,
            hs_error *err);

/* HEFT-WM's weighted means (McSweeney, Walton & Zounon, ICCS 2020, eq.
 * (6)-(7)): a task is taken to run on device d with a probability
 * proportional to d's speed for it, 1 / C[t][d] (uniform over the devices
 * where it costs 0, if any), which for P_C CPUs and P_G GPUs is the paper's
 * weighting by the acceleration ratio r = w_C / w_G.  rank(t) = sum_d p_d C
 * + max over successors s of (sum_{a,b} p_a(t) p_b(s) transfer(a -> b) +
 * rank(s)), a transfer between devices sharing a memory counting 0.
 * HS_EINPUT on a cycle, HS_ENOMEM. */
int hs__weighted_upward_rank(const hs_graph *g, const hs_platform *pf, double *rank,
                             hs_error *err);

/* CPoP's downward rank (Topcuoglu et al. 2002, eq. (9)): 0 for a source,
 * else the largest over predecessors u of rank_d(u) + mean cost of u + c-bar
 * of the edge (the means of hs__upward_rank).  HS_EINPUT on a cycle,
 * HS_ENOMEM. */
int hs__downward_rank(const hs_graph *g, const hs_platform *pf, double *rank, hs_error *err);

/* HOFT's optimistic finish time table (McSweeney et al. 2020, eq. (8)), by
 * device rather than by device type: oft[t * m + d] = C[t][d] + the latest,
 * over t's host input (its transfer to d's memory) and its predecessors u, of
 * min over devices e of (oft(u, e) + transfer of the edge from e's memory to
 * d's): the earliest t could end on d if nothing ever waited for a device.
 * HS_EINPUT on a cycle, HS_ENOMEM. */
int hs__oft(const hs_graph *g, const hs_platform *pf, double *oft, hs_error *err);

/* ------------------------------------------------ threshold dispatcher */

/* Default of hs_map_options.thr for m devices (see rank.c for why). */
int hs__dispatch_default_thr(int ndevices);

/* Creates the state of Alg. 1's machinery for engine e: a central ready
 * queue ordered by prio (largest first; takes ownership of prio, an array of
 * g->ntasks entries allocated with malloc), per-device FIFO queues, and the
 * threshold opt->thr (0: default).  The hooks below are the policy's ready,
 * done, pick, ahead and fini.  On error prio is freed. */
int hs__dispatch_new(hs_engine *e, const hs_map_options *opt, double *prio, void **state,
                     hs_error *err);
void hs__dispatch_ready(void *state, hs_engine *e, size_t task);
void hs__dispatch_done(void *state, hs_engine *e, size_t task, int device, double measured_us);
long hs__dispatch_pick(void *state, hs_engine *e, int device);
void hs__dispatch_ahead(void *state, hs_engine *e, int device);
void hs__dispatch_fini(void *state);

/* ------------------------------------------------------ insertion slots */

/* The busy intervals of one device, sorted, in a treap keyed by start whose
 * nodes also know the idle gap before them and the largest gap in their
 * subtree: the earliest gap that fits a task is found in O(log k) expected
 * for k intervals, instead of a scan of every gap. */
typedef struct hs__slot {
    double start, end;
    double lo;        /* end of the previous interval (0 for the first) */
    double maxgap;    /* largest start - lo in the subtree */
    uint32_t prio;
    long l, r, p;     /* children and parent, -1 for none */
} hs__slot;

typedef struct hs__slots {
    hs__slot *node;
    size_t n, cap;
    long root;
    long last;        /* the latest interval, -1 for none */
    uint32_t rng;
} hs__slots;

void hs__slots_init(hs__slots *s);
void hs__slots_free(hs__slots *s);
/* Earliest start >= ready of an idle stretch of length dur (>= 0). */
double hs__slots_earliest(const hs__slots *s, double ready, double dur);
/* Marks [start, end) busy; it must lie in an idle stretch.  0 or -1 (memory). */
int hs__slots_insert(hs__slots *s, double start, double end);

/* ------------------------------------------------------ planned schedule */

/* A full static plan: device, start and end of every task. */
typedef struct hs__plan {
    int *device;
    double *start, *end;
} hs__plan;

/* Allocates a plan of n tasks (contents undefined); HS_ENOMEM. */
int hs__plan_alloc(hs__plan *plan, size_t n, hs_error *err);
void hs__plan_free(hs__plan *plan);

/* What a static policy computes before the run (hs_policy.plan). */
typedef int (*hs__plan_fn)(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                           hs__plan *out, hs_error *err);

/* A list scheduler's state while it places tasks one by one: the plan so
 * far (device -1 for a task not placed yet) and each device's busy
 * intervals. */
typedef struct hs__planner {
    const hs_graph *g;
    const hs_platform *pf;
    hs__plan plan;
    hs__slots *slots;  /* [ndevices] */
} hs__planner;

/* Time at which the inputs of t can be in device d's memory (delay model):
 * its host input from time 0 and the data of every placed predecessor from
 * that predecessor's end; predecessors not placed yet are left out (what
 * lookahead wants for a child whose other parents wait). */
double hs__planner_data_ready(const hs__planner *p, size_t t, int d);
/* Earliest start of t on d with insertion: the first idle stretch of d, at
 * or after the data are ready, long enough for t's cost there. */
double hs__planner_start(const hs__planner *p, size_t t, int d);

/* Chooses the device of task t, whose predecessors are all placed; est[d]
 * is hs__planner_start(p, t, d) for each device d.  Returns the device. */
typedef int (*hs__choose_fn)(void *ctx, const hs__planner *p, size_t t, const double *est);

/* List scheduling with insertion (HEFT's second phase and its relatives):
 * repeatedly takes the ready task of largest prio (ties: lower index), asks
 * `choose` for its device and places it there at est[device].  A part that
 * opt's graph-level split pinned to a device (hs__split_graph_pins) goes
 * there without asking: the plan then holds what the run will do.  Costs
 * are the graph's.  HS_EINPUT on a cycle, HS_ENOMEM. */
int hs__plan_list(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                  const double *prio, hs__choose_fn choose, void *ctx, hs__plan *plan,
                  hs_error *err);

/* hs__plan_list choosing the device that minimises finish + bonus[t * m + d]
 * (bonus NULL: plain EFT, HEFT's rule; PEFT passes its OCT), ties to the
 * lower index. */
int hs__plan_compute(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                     const double *prio, const double *bonus, hs__plan *plan, hs_error *err);

/* A rank function (hs__upward_rank, hs__weighted_upward_rank, ...). */
typedef int (*hs__rank_fn)(const hs_graph *g, const hs_platform *pf, double *rank,
                           hs_error *err);

/* HEFT's two phases with the priority `rank_fn` gives: hs__plan_compute
 * without bonus. */
int hs__plan_ranked(const hs_graph *g, const hs_platform *pf, const hs_map_options *opt,
                    hs__rank_fn rank_fn, hs__plan *plan, hs_error *err);

/* Policy state that executes a plan: pick(d) returns d's next task in
 * planned order (start, then end, then topological order, so that tasks of
 * no duration at one instant keep their precedence) once it is ready, else
 * HS_NO_TASK.  Takes ownership of the plan (freed on error too). */
int hs__planned_new(hs_engine *e, hs__plan *plan, void **state, hs_error *err);
/* The init of a static policy: computes plan_fn's plan for the engine's
 * graph and platform, then executes it as hs__planned_new does. */
int hs__planned_init(hs_engine *e, const hs_map_options *opt, hs__plan_fn plan_fn,
                     void **state, hs_error *err);
void hs__planned_ready(void *state, hs_engine *e, size_t task);
long hs__planned_pick(void *state, hs_engine *e, int device);
void hs__planned_ahead(void *state, hs_engine *e, int device);
void hs__planned_fini(void *state);

#endif
