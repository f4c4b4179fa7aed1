/* hetsched — performance models' internals; the API, and what a model
 * holds and predicts: include/hetsched/perfmodel.h. */
#ifndef HS_MAPPER_PERFMODEL_H
#define HS_MAPPER_PERFMODEL_H

#include "hetsched/perfmodel.h"

/* The same of a configured kernel (its type and resolved params). */
struct hs_kconf;
void hs_perfmodel_conf_of(const struct hs_kconf *c, hs_perf_kernel *out);

#endif
