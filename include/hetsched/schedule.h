/* hetsched — schedules: where and when each task ran, and the transfers
 * between them (DESIGN.md §4), their JSON form and the validator.
 *
 * A schedule refers to the tasks of a finalized workload's graph.  A task is
 * placed once with fraction 1, or as parts k = 0..n-1 of n whose fractions sum
 * to 1 (ids `APP#I/KERNEL[k/n]`).  The model the validator checks (DESIGN.md
 * §1, the delay model):
 *   - duration of a whole task = its cost on the device; of a part: at least
 *     fraction x cost;
 *   - a device runs one placement at a time;
 *   - a placement starts no earlier than each input's arrival: for an edge
 *     u -> v with `bytes`, every placement of u sends bytes x f_u x f_v to each
 *     placement of v (f = fraction), arriving transfer_us after u's end; a
 *     kernel's input_bytes x f leave host memory at time 0;
 *   - makespan = max over placements of end + transfer of output_bytes x f
 *     back to host.
 */
#ifndef HETSCHED_SCHEDULE_H
#define HETSCHED_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_NONE (-1L)   /* a transfer endpoint that is host memory, not a task */
#define HS_HOST_DEVICE (-1) /* "device" of host memory in a transfer */

typedef struct hs_placement {
    size_t task;         /* index into the workload's graph */
    int part, nparts;    /* 0/1 for a whole task */
    double fraction;     /* 1 for a whole task */
    int device;
    double start_us, end_us;
} hs_placement;

typedef struct hs_transfer {
    long from_placement; /* HS_NONE: a kernel's input, read from host memory */
    long to_placement;   /* HS_NONE: a kernel's output, written back to host */
    int from_device;     /* HS_HOST_DEVICE for host memory */
    int to_device;
    double bytes;
    double start_us, end_us;
} hs_transfer;

/* What a real run's workers did besides the kernels its placements span:
 * waiting for copies, making buffers, evicting, sleeping a cost-only
 * task's cost, checking after the run.  Only a run's measured schedule has
 * them; the trace draws them, the JSON leaves them out. */
typedef struct hs_activity {
    int device;          /* whose worker; HS_HOST_DEVICE: no device's (checks) */
    const char *what;    /* "wait", "alloc", ... (a static string) */
    long placement;      /* the placement it served, or HS_NONE */
    double start_us, end_us;
    double bytes;        /* bytes it allocated or moved, or 0 */
} hs_activity;

typedef struct hs_schedule {
    char *workload;      /* path written into the JSON, may be NULL */
    char *algorithm;     /* may be NULL */
    char *model;         /* "delay" unless a backend says otherwise ("measured") */
    char *backend;       /* the backend that measured it, or NULL */
    double makespan_us;
    size_t nplacements, placements_cap;
    hs_placement *placements;
    size_t ntransfers, transfers_cap;
    hs_transfer *transfers;
    size_t nactivities, activities_cap;
    hs_activity *activities;
} hs_schedule;

hs_schedule *hs_schedule_new(const char *workload, const char *algorithm);
void hs_schedule_free(hs_schedule *s);

/* Append; return the new index or a negative error. */
long hs_schedule_add_placement(hs_schedule *s, const hs_placement *p, hs_error *err);
long hs_schedule_add_transfer(hs_schedule *s, const hs_transfer *t, hs_error *err);
long hs_schedule_add_activity(hs_schedule *s, const hs_activity *a, hs_error *err);

/* What each device of a schedule did. */
typedef struct hs_device_stats {
    double busy_us;        /* the sum of its placements' spans */
    size_t tasks;          /* its placements */
    double held_idle_us;   /* a measured run's: time it held a task (its "held"
                              activities) while running none */
} hs_device_stats;

/* Fills st[0 .. ndevices) for s.  HS_ENOMEM. */
int hs_schedule_device_stats(const hs_workload *w, const hs_schedule *s, hs_device_stats *st,
                             hs_error *err);

/* The makespan the model gives for these placements (see above); does not
 * look at s->makespan_us or s->transfers. */
double hs_schedule_makespan(const hs_workload *w, const hs_schedule *s);

/* Replaces s->transfers by those the model implies (every edge whose ends
 * sit on different memories, every input and output), each starting when its
 * data is ready, and sets s->makespan_us.  For schedulers that only place. */
int hs_schedule_derive_transfers(const hs_workload *w, hs_schedule *s, hs_error *err);

/* Checks s against the model; returns HS_OK or HS_EINVALID with a message
 * naming the task(s), device and the constraint that fails, e.g.
 * "va#0/scale on cpu0 starts at 500 us, before its input from va#0/add
 * arrives at 526.7 us". */
int hs_schedule_validate(const hs_workload *w, const hs_schedule *s, hs_error *err);

/* JSON of DESIGN.md §4, with jansson.  `path` "-" is stdout / stdin.
 * Reading checks the JSON's shape and that every id and device exists
 * (HS_EINPUT, with the file name and the JSON path of the bad item); it does
 * not check the model: call hs_schedule_validate for that. */
int hs_schedule_write_json(const hs_workload *w, const hs_schedule *s, const char *path,
                           hs_error *err);
int hs_schedule_read_json(hs_workload *w, const char *path, hs_schedule **out, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
