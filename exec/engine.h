/* hetsched — the engine: owns time, readiness and data; drives a policy
 * (mapper/policy.h) with events and a backend (exec/backend.h) with work.
 * What a policy may ask it is public: include/hetsched/policy.h.
 */
#ifndef HS_EXEC_ENGINE_H
#define HS_EXEC_ENGINE_H

#include <stddef.h>

#include "hetsched/graph.h"
#include "hetsched/mapper.h"
#include "hetsched/policy.h"
#include "hetsched/schedule.h"

typedef struct hs_backend hs_backend; /* exec/backend.h */

/* Runs `policy` over the workload on `backend` until every task finished.
 * Returns the schedule of what happened (transfers derived, makespan set). */
int hs_engine_run(hs_workload *w, const hs_policy *policy, const hs_map_options *opt,
                  hs_backend *backend, hs_schedule **out, hs_map_stats *stats, hs_error *err);

#endif
