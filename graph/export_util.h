/* hetsched — internal helpers shared by the exporters (DOT, Gantt, trace):
 * one colour palette, byte sizes in human units, the check of a schedule's
 * references, and the lanes of links that transfers travel on. */
#ifndef HS_GRAPH_EXPORT_UTIL_H
#define HS_GRAPH_EXPORT_UTIL_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

/* Light colours that keep black text readable; index i wraps around.  DOT
 * colours devices with it, the Gantt chart applications. */
const char *hs__palette_hex(int i);          /* "#rrggbb" */
void hs__palette_rgb(int i, double rgb[3]);  /* the same, components in [0, 1] */

/* "999 B", "200 kB", "4.19 MB": three significant digits, decimal units
 * (1 kB = 1000 bytes, as the model's GB/s are). */
void hs__human_bytes(double bytes, char *buf, size_t size);

/* snprintf into buf (size > 0), cut back to a whole UTF-8 character when
 * the text does not fit: a label never ends in part of a character, which
 * cairo and jansson refuse. */
void hs__label(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Checks what an exporter uses: w is finalized, the makespan is finite and
 * >= 0, every placement names
 * a task and device of w with finite times (start <= end) and a fraction in
 * (0, 1], every transfer names existing placements (or HS_NONE) and devices
 * (or HS_HOST_DEVICE) with finite times.  It does not check the model
 * (hs_schedule_validate does): an invalid schedule can still be drawn.
 * Returns HS_EUSAGE for an unfinalized workload, HS_EINPUT naming the bad
 * placement or transfer otherwise. */
int hs__schedule_check_refs(const hs_workload *w, const hs_schedule *s, hs_error *err);

/* Memory a transfer endpoint lives in (HS_HOST_DEVICE is host memory). */
int hs__device_memory(const hs_workload *w, int device);

/* Numbers the links that carry data in s: lane_of_pair[q * nmemories + r]
 * gets 0, 1, ... for each ordered pair of distinct memories (q, r) that some
 * transfer uses, in pair order, and -1 for the others.  lane_of_pair has
 * nmemories^2 entries.  Returns the number of lanes. */
int hs__link_lanes(const hs_workload *w, const hs_schedule *s, int *lane_of_pair);

/* Lane of transfer tr (see hs__link_lanes), or -1 when it stays in one memory. */
int hs__transfer_lane(const hs_workload *w, const hs_transfer *tr, const int *lane_of_pair);

/* The task a transfer serves: its receiver, or for an output its sender; or
 * NULL when it names neither. */
const hs_task *hs__transfer_task(const hs_workload *w, const hs_schedule *s,
                                 const hs_transfer *tr);

#endif
