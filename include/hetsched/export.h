/* hetsched — pictures of workloads and schedules. */
#ifndef HETSCHED_EXPORT_H
#define HETSCHED_EXPORT_H

#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the kernel graphs as DOT with Graphviz cgraph: one cluster per
 * application instance, nodes named by task id, edges labelled with bytes.
 * With a schedule (may be NULL) nodes are filled with their device's colour
 * and labelled with device, start and end. */
int hs_dot_write(const hs_workload *w, const hs_schedule *s, FILE *out, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
