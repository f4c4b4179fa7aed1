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
 * holding a task until its kernel starts, waiting for copies, making
 * buffers, evicting, sleeping a cost-only task's cost, checking after the
 * run.  A run's measured schedule has them, and the executor's model
 * (hs_map_options.executor_depth) the "held" ones; the trace draws them,
 * the JSON leaves them out. */
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
    /* 1: transfers lists none, and the schedule's transfers are those the
     * delay model implies for its placements (what
     * hs_schedule_derive_transfers would list; hs_schedule_each_transfer
     * visits them without storing them).  hs_map's delay-model schedules
     * are so: a split task's parts make some 20 transfers a task, which
     * would take more memory than the rest of the schedule. */
    int transfers_implied;
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
    double held_idle_us;   /* time it held a task (its "held" activities: a
                              measured run's, the executor's model's) while
                              running none */
    double ready_idle_us;  /* the part of held_idle_us in which the held
                              task's inputs were all in its memory: the
                              executor's own delay, the copies it waited
                              for left out */
    double behind_idle_us; /* the part of ready_idle_us in which the task
                              it held longest (mostly the next to start)
                              still waited for its inputs: a ready task
                              held back behind one waiting for copies */
    double launch_idle_us; /* the part of ready_idle_us, outside
                              behind_idle_us, in which its worker was
                              launching a task (its "launch" activities: a
                              GPU's host time per kernel: the executor's
                              model has no launches, it counts the
                              device's overhead_us in each task's cost) */
} hs_device_stats;

/* Fills st[0 .. ndevices) for s.  HS_ENOMEM. */
int hs_schedule_device_stats(const hs_workload *w, const hs_schedule *s, hs_device_stats *st,
                             hs_error *err);

/* The makespan the model gives for these placements (see above); does not
 * look at s->makespan_us or s's transfers. */
double hs_schedule_makespan(const hs_workload *w, const hs_schedule *s);

/* Replaces s->transfers by those the model implies (every edge whose ends
 * sit on different memories, every input and output), each starting when its
 * data is ready, clears s->transfers_implied and sets s->makespan_us.  For
 * schedulers that only place. */
int hs_schedule_derive_transfers(const hs_workload *w, hs_schedule *s, hs_error *err);

/* Calls fn(ctx, t) for each transfer of s in order: those s->transfers
 * lists, or when s->transfers_implied those the model implies, in the order
 * hs_schedule_derive_transfers would list them (placement by placement: its
 * input, its data to each placement of each successor, its output).  Stops
 * at the first fn that returns non-zero and returns that value; otherwise
 * HS_OK, or HS_ENOMEM or HS_EUSAGE (placements w does not have) with err
 * filled. */
typedef int (*hs_transfer_fn)(void *ctx, const hs_transfer *t);
int hs_schedule_each_transfer(const hs_workload *w, const hs_schedule *s, hs_transfer_fn fn,
                              void *ctx, hs_error *err);

/* Two times a and b agree for the validator when |a - b| is at most
 * HS_VALIDATE_TOL_US or HS_VALIDATE_TOL_REL x max(|a|, |b|), whichever is
 * larger (plus a few units in the last place of the doubles): what a
 * schedule printed with 3 decimals, or 9 significant digits, still carries.
 * The tolerance follows the times compared (a start and an arrival, an end
 * and start + cost), never the costs.  Byte counts agree
 * within HS_VALIDATE_TOL_BYTES or HS_VALIDATE_TOL_REL of the larger, and the
 * fractions of a split task sum to 1 within HS_VALIDATE_TOL_FRACTION. */
#define HS_VALIDATE_TOL_US 1e-3
#define HS_VALIDATE_TOL_REL 1e-9
#define HS_VALIDATE_TOL_BYTES 0.5
#define HS_VALIDATE_TOL_FRACTION 1e-9

/* Checks s against w and the model; returns HS_OK or HS_EINVALID with a
 * message naming the task(s), device and the constraint that fails, e.g.
 * "va#0/scale on cpu0 starts at 500 us, before its input from va#0/add
 * arrives at 526.7 us".  Before the model: s->model, when set, must be
 * "delay", or "measured" or "executor", which are checked by the rules of
 * a real run's schedule (a run's measurements, and the executor's model
 * of a run: durations are not compared with costs, the graph's order holds,
 * each listed copy leaves after its producer ends and ends before its
 * consumer starts, the makespan is the end of the last task or copy);
 * s->workload, when set and w->path too, must name the same file
 * (the same path, or the same file on disk; when s->workload does not exist
 * from here, the same file name); every listed transfer carries the bytes
 * the model sends (a kernel's input_bytes or output_bytes x its fraction, an
 * edge's bytes x both fractions) over an edge of the workload. */
int hs_schedule_validate(const hs_workload *w, const hs_schedule *s, hs_error *err);

/* JSON of DESIGN.md §4, with jansson.  `path` "-" is stdout / stdin.
 * Reading checks the JSON's shape and that every id and device exists
 * (HS_EINPUT, one line "FILE:LINE:COL: error: PATH: WHAT" with the JSON path
 * of the bad item); it does not check the model: call hs_schedule_validate
 * for that.  A file that cannot be read is HS_EINPUT too, and so is one over
 * 256 MiB (the environment variable HETSCHED_JSON_MAX_MIB, a whole number of
 * MiB, changes the limit). */
int hs_schedule_write_json(const hs_workload *w, const hs_schedule *s, const char *path,
                           hs_error *err);
int hs_schedule_read_json(hs_workload *w, const char *path, hs_schedule **out, hs_error *err);

/* Statistics of s as CSV at `path` ("-": stdout; written whole or not at
 * all), one header line, names between double quotes, times in µs with 15
 * significant digits:
 *   tasks:   task,device,start_us,end_us,duration_us,fraction, one line per
 *            placement (a part of a split task is one line), in s's order;
 *   devices: device,kind,memory,tasks,busy_us,utilisation, one line per
 *            device of the platform, utilisation = busy / makespan (0 for a
 *            makespan of 0).
 * HS_EUSAGE when s refers to tasks or devices w does not have, HS_EIO when
 * the file cannot be written, HS_ENOMEM. */
int hs_schedule_write_tasks_csv(const hs_workload *w, const hs_schedule *s, const char *path,
                                hs_error *err);
int hs_schedule_write_devices_csv(const hs_workload *w, const hs_schedule *s, const char *path,
                                  hs_error *err);
/* The same from `len` bytes at `data`; `name` stands for the file name in
 * messages. */
int hs_schedule_read_json_buffer(hs_workload *w, const char *name, const char *data, size_t len,
                                 hs_schedule **out, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
