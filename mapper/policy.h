/* hetsched — the policies of the library (DESIGN.md §6).  The interface
 * every policy implements, and what it may ask the engine, is public:
 * include/hetsched/policy.h.
 *
 * Each policy of the library is one file in mapper/ ending in a
 * designated-initializer instance of hs_policy, and one line in the
 * registry (mapper/registry.c).  A policy that fixes its whole schedule
 * before the run also fills `plan`; its init follows the same plan
 * (hs__planned_init, mapper/rank.h), and a portfolio (`best`) asks for it
 * without a run.
 */
#ifndef HS_MAPPER_POLICY_H
#define HS_MAPPER_POLICY_H

#include <stddef.h>

#include "exec/engine.h"
#include "hetsched/mapper.h"

/* The policy called `name`, wrapped by opt->split's splitter when that is
 * set (hetsched/split.h): what hs_map runs in the simulator and `run`
 * on real devices; with opt->schedule and name NULL, `given`
 * (mapper/given.c).  HS_EUSAGE for an unknown policy, a policy with a
 * schedule, a schedule under a split; HS_EINPUT for a policy that splits
 * kernels itself (ad-part) under --split. */
int hs__policy_resolve(const char *name, const hs_map_options *opt, const hs_policy **out,
                       hs_error *err);

/* What a schedule to run refuses beside it: a policy name, a split
 * (opt->split or opt->live_split).  HS_EUSAGE naming the options. */
int hs__given_check(const char *name, const hs_map_options *opt, hs_error *err);

/* Runs hs_map_options.schedule; not in the registry (mapper/given.c). */
extern const hs_policy hs__policy_given;

#endif
