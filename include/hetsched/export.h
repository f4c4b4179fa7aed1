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
 * application instance, nodes named by task id, edges labelled with bytes
 * (exact in their `bytes` attribute; a binding the workload writes, such as
 * `buffer: num` or `buffer: none`, in their `buffer` attribute).
 * With a schedule (may be NULL) nodes are filled with their device's colour
 * and labelled with device, start and end.
 * A split task stays one node that lists its parts, striped by device.  The
 * text is the same on every run.  HS_EUSAGE for an unfinalized workload,
 * HS_EINPUT when s names tasks or devices that w lacks, HS_EIO when writing
 * to `out` fails. */
int hs_dot_write(const hs_workload *w, const hs_schedule *s, FILE *out, hs_error *err);

/* Draws schedule s of workload w as a Gantt chart with cairo: one lane per
 * device, a box per placement coloured by application and labelled with its
 * kernel where the name fits, a thin lane per link (memory pair) carrying the
 * schedule's transfers, a time axis (µs, or ms from 10 ms on), a title with
 * the algorithm and makespan, a legend of applications.  The format follows
 * the extension of `path`: .png (HS_GANTT_WIDTH x HS_GANTT_HEIGHT(...)
 * pixels) or .svg (the same size in points); any other gives HS_EUSAGE.
 * HS_EINPUT when s names tasks or devices that w lacks, HS_EIO when the file
 * cannot be written, HS_ENOTBUILT where hetsched was built without cairo. */
#define HS_GANTT_WIDTH 1200
/* ndevices lanes of 40, nlinks link lanes of 20 (links that carry at least
 * one transfer between two memories), napps legend entries 6 to a row of
 * 24, plus 60 for the title and 50 for the axis. */
#define HS_GANTT_HEIGHT(ndevices, nlinks, napps)                                     \
    (60 + 40 * (ndevices) + 20 * (nlinks) + 50 + 24 * (((napps) + 5) / 6))
int hs_gantt_write(const hs_workload *w, const hs_schedule *s, const char *path,
                   hs_error *err);

/* Writes schedule s as Chrome trace-event JSON (jansson), which Perfetto and
 * chrome://tracing load: {"traceEvents": [...], "displayTimeUnit": "ms"}.
 * One process; thread d + 1 is device d; the threads after the devices are
 * the links that carry transfers, in memory-pair order, named "host -> gpu0"
 * (a link whose transfers overlap in time gets more threads, "host -> gpu0
 * (2)", ..., so that no two events of a thread overlap); each thread is named
 * by a thread_name metadata event.  Every placement is one "X" event on its
 * device's thread (name = task id, cat = application, ts/dur in µs, args
 * {device, fraction}); every transfer between two memories one "X" event on
 * a thread of its link (args {bytes, from, to}).  `path` "-" is stdout.
 * HS_EINPUT when s names tasks or devices that w lacks, HS_EIO when the file
 * cannot be written. */
int hs_trace_write(const hs_workload *w, const hs_schedule *s, const char *path,
                   hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
