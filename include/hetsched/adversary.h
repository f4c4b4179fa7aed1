/* hetsched — adversarial instances (public API): a search for a small workload on which
 * one policy's makespan is as large as possible relative to the optimum
 * (the MILP, include/hetsched/milp.h) or to another policy's.
 *
 * It follows PISA (Coleman & Krishnamachari, "PISA: An adversarial
 * approach to comparing task graph scheduling algorithms", 2024, the
 * search of the SAGA library): simulated annealing over problem instances.
 * An instance is one application of tasks k0 .. k(n-1), edges only from a
 * lower to a higher index (so it is acyclic), on cpu0 (host memory) and
 * GPUs gpu0 .. each with a memory of its own, a link between every two
 * memories.  Each step changes the current instance at random in one of
 * these ways (those that apply):
 *   - a task's cost on one device;
 *   - every cost of one device (its speed);
 *   - an edge's bytes; an edge added; an edge removed;
 *   - a task's input or output bytes;
 *   - a link's bandwidth and latency (both directions);
 *   - a task added (with edges from earlier tasks) or removed, within the
 *     task range; a GPU added or removed, within the device range;
 * and the step is kept when the ratio grows, or otherwise with probability
 * exp((r' / r - 1) / T), the temperature T falling geometrically from 0.1
 * to 0.001 over the iterations (PISA's acceptance, with the ratio's
 * relative change as the energy).  Numbers are whole: costs 1 .. 1000 us,
 * bytes 0 .. 10 MB in kB, bandwidths 1 .. 32 GB/s, latencies 0 .. 20 us, so
 * that the instance written as YAML reads back to the same doubles and
 * `hetsched compare` finds the same ratio.  The same options and seed give
 * the same search (without a time limit).
 */
#ifndef HETSCHED_ADVERSARY_H
#define HETSCHED_ADVERSARY_H

#include "hetsched/graph.h"
#include "hetsched/mapper.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_ADVERSARY_MAX_TASKS 12
#define HS_ADVERSARY_MAX_DEVICES 4 /* cpu0 and up to 3 GPUs */

typedef struct hs_adversary_options {
    const char *policy;         /* the policy searched against (required) */
    const char *against;        /* another policy, or NULL for the optimum */
    unsigned long seed;         /* default 0 */
    long iterations;            /* annealing steps, >= 1; default 1000 */
    double time_limit_s;        /* stop after this many seconds; 0 = none */
    int min_tasks, max_tasks;   /* 1 <= min <= max <= HS_ADVERSARY_MAX_TASKS;
                                   default 3 and 5 */
    int min_devices, max_devices; /* 1 <= min <= max <= HS_ADVERSARY_MAX_DEVICES;
                                   default 2 and 3 */
    double milp_time_limit_s;   /* per optimum; default 10 */
    hs_map_options map;         /* given to both policies (budget_ms of best) */
} hs_adversary_options;

typedef struct hs_adversary_result {
    hs_workload *worst;         /* the instance of the largest ratio, finalized;
                                   owned */
    double ratio;               /* policy_us / against_us */
    double policy_us, against_us;
    int proven;                 /* against the optimum: 1 when the MILP proved
                                   against_us optimal (else it is the best
                                   schedule found, and the ratio a lower bound) */
    long iterations;            /* steps done */
    long accepted;              /* steps kept */
    double seconds;
} hs_adversary_result;

/* Fills *o with the defaults above (policy NULL). */
void hs_adversary_options_init(hs_adversary_options *o);

/* Runs the search.  HS_EUSAGE for options out of range or an unknown
 * policy; a policy or MILP failure on an instance is returned as it is.
 * On HS_OK *res holds the worst instance; free it with
 * hs_adversary_result_free.  `progress`, when not NULL, is called each
 * time the worst ratio grows. */
int hs_adversary_search(const hs_adversary_options *o, hs_adversary_result *res,
                        void (*progress)(void *ctx, const hs_adversary_result *sofar),
                        void *ctx, hs_error *err);
void hs_adversary_result_free(hs_adversary_result *res);

#ifdef __cplusplus
}
#endif
#endif
