/* hetsched — a task-graph runtime for machines with CPUs and GPUs.
 * The one header to include; see the headers it includes for each part. */
#ifndef HETSCHED_H
#define HETSCHED_H

#include "hetsched/adversary.h"
#include "hetsched/calibrate.h"
#include "hetsched/error.h"
#include "hetsched/export.h"
#include "hetsched/gen.h"
#include "hetsched/graph.h"
#include "hetsched/load.h"
#include "hetsched/mapper.h"
#include "hetsched/milp.h"
#include "hetsched/output.h"
#include "hetsched/perfmodel.h"
#include "hetsched/policy.h"
#include "hetsched/run.h"
#include "hetsched/schedule.h"
#include "hetsched/split.h"
#include "hetsched/version.h"

#endif
