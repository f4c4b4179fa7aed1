/* hetsched — performance models' internals; the API, and what a model
 * holds and predicts: include/hetsched/perfmodel.h. */
#ifndef HS_MAPPER_PERFMODEL_H
#define HS_MAPPER_PERFMODEL_H

#include "hetsched/perfmodel.h"

/* The same of a configured kernel (its type and resolved params). */
struct hs_kconf;
void hs_perfmodel_conf_of(const struct hs_kconf *c, hs_perf_kernel *out);

/* Kernel time (no overhead) of the part holding fraction f < 1 of task t of
 * w on device d: what `pm` predicts for a part of its typed kernel of that
 * size (hs_perfmodel_predict_part), never below f of the task's kernel
 * time (hs_task_kernel_us), which it is without a model or a typed kernel.
 * What ad-part prices a part at, and what a run's report sets a measured
 * part beside. */
double hs__perf_part_kernel_us(const hs_perfmodel *pm, const hs_workload *w, size_t t, int d,
                               double f);

#endif
