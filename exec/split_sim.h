/* hetsched — the chunk simulator: one data-parallel kernel of N items split
 * across devices by a splitter (mapper/split.h), in virtual time.
 *
 * The device model (documented figures of the kernel profiles are in
 * cli/cmd_split.c):
 *   a chunk of items [b, e) started at time s on device d takes
 *     overhead_d                                  (launch, synchronisation)
 *   + T(host -> mem_d, (e - b) in_bytes)          (hs_transfer_us of DESIGN §1)
 *   + work(b, e) / items_per_us_d                 (compute, item units)
 *   + T(mem_d -> host, (e - b) out_bytes)
 *   with the compute part stretched `throttle` times from throttle_at_us on
 *   (a clock that drops mid-run: only computing slows, transfers do not),
 *   and, with `noise` > 0, multiplied by 1 + noise u, u uniform in [-1, 1]
 *   from a GSL Mersenne Twister seeded with `seed` (so a run is repeatable);
 *   a device with `fails` stops answering at fail_at_us: the chunk it holds
 *   then never finishes and it never asks again.
 * A device with bandwidth_gbps 0 computes from host memory (no transfers).
 *
 * The loop: at time 0 every device asks the splitter in device order; a
 * chunk's end is an event; after each end the device that finished asks
 * again, then every waiting device (device order); a WAIT with a finite
 * wake_us schedules a wake-up.  The run ends when no event is left.  Each
 * finished() that the splitter accepts marks its items in a bitmap: an item
 * marked twice, or one never marked at the end, fails the run
 * (HS_EINTERNAL, naming the item and the splitter).  In wavefront mode
 * (-o wavefront, mapper/split.h) a chunk that starts before the upper or
 * left neighbour of one of its tiles finished fails it the same way.
 */
#ifndef HS_EXEC_SPLIT_SIM_H
#define HS_EXEC_SPLIT_SIM_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "mapper/split.h"

#define HS_SPLIT_SIM_MAX_ITEMS ((size_t)1 << 31)

typedef struct hs_split_sim_device {
    const char *name;        /* unique; not "cpu", "gpu" or "host" */
    hs_device_kind kind;
    double overhead_us;      /* >= 0 */
    double items_per_us;     /* > 0: compute speed at full clock */
    size_t width;            /* parallel width told to the splitter (0: 1) */
    int cores;               /* told to the splitter (CoreTSAR's default) */
    double bandwidth_gbps;   /* host <-> device link; 0: host memory */
    double latency_us;
    double throttle_at_us;   /* from then on computing takes `throttle` times */
    double throttle;         /* > 0; 0 or 1: never throttled */
    int fails;               /* stops answering at fail_at_us */
    double fail_at_us;
} hs_split_sim_device;

typedef struct hs_split_sim {
    const char *kernel;      /* name, for messages */
    size_t items;            /* 1 .. HS_SPLIT_SIM_MAX_ITEMS */
    double in_bytes, out_bytes; /* per item, moved host -> device and back */
    /* relative work of [b, e) in item units; NULL: uniform (e - b) */
    double (*work)(const void *ctx, size_t b, size_t e);
    const void *work_ctx;
    int ndevices;
    hs_split_sim_device dev[HS_SPLIT_MAX_DEVICES];
    double noise;            /* 0 .. 0.9 */
    unsigned long seed;
    int no_hints;            /* hide the nominal rates from the splitter */
    size_t max_records;      /* chunk records to keep (0: none) */
} hs_split_sim;

typedef enum { HS_CHUNK_LOST = -1, HS_CHUNK_REFUSED = 0, HS_CHUNK_ACCEPTED = 1 } hs_chunk_fate;

typedef struct hs_split_record {
    int device;
    size_t begin, end;
    double start_us, end_us; /* end_us: when it finished or, lost, would have */
    hs_chunk_fate fate;
} hs_split_record;

typedef struct hs_split_dev_result {
    size_t items, chunks;    /* accepted */
    size_t refused;          /* chunks whose result was refused (taken back) */
    size_t lost;             /* chunks it held when it stopped answering */
    double busy_us;          /* time spent on chunks (a dead device: until it died) */
    double idle_us;          /* makespan - busy_us (>= 0) */
    double finish_us;        /* end of its last accepted chunk, 0 if none */
    double alone_us;         /* the whole kernel as one chunk on it alone from 0,
                                no noise; HUGE_VAL if it dies first */
    int dead;
} hs_split_dev_result;

typedef struct hs_split_result {
    int ndevices;
    double makespan_us;      /* end of the last accepted chunk */
    double spread_us;        /* max - min finish_us over the devices still alive */
    double imbalance_pct;    /* (max - mean) / max * P / (P - 1) * 100, same set */
    double efficiency;       /* (N / makespan) / sum over live devices of N / alone_us */
    size_t asks;             /* next() calls */
    hs_split_dev_result dev[HS_SPLIT_MAX_DEVICES];
    hs_split_record *records;
    size_t nrecords;
    int records_truncated;   /* more chunks ran than max_records */
} hs_split_result;

/* Fills dev[0..sim->ndevices) with what a splitter is told: names, kinds,
 * widths, cores and, unless no_hints, the nominal rate (items/µs with
 * transfers, latencies left out) and per-chunk overhead (overhead plus link
 * latencies).  The strings stay owned by sim. */
void hs_split_sim_devices(const hs_split_sim *sim, hs_split_device *dev);

/* Duration of chunk [b, e) on device d started at start_us, without noise
 * and ignoring failure (µs).  Checks nothing: sim must be valid. */
double hs_split_sim_chunk_us(const hs_split_sim *sim, int d, size_t b, size_t e,
                             double start_us);

/* Time of the static split giving device d pct[d] percent of the items
 * (the last device what rounding leaves), one chunk each from time 0;
 * HUGE_VAL if a device fails holding its share. */
double hs_split_sim_static_us(const hs_split_sim *sim, const int *pct);

/* The splits of 100% among k devices in 1% steps: C(100 + k - 1, k - 1). */
long hs_split_sim_static_count(int k);

/* The best static split (`split --best-static`): times every split of
 * 100% among sim's devices in 1% steps (hs_split_sim_static_us) and puts
 * the fastest in best[0..ndevices) and its time in *best_us (HUGE_VAL and
 * best untouched when none finishes or none was tried).  Stops early once
 * *stop (may be NULL) is set, with the best found so far; *tried counts the
 * splits timed.  HS_EINPUT beyond 4 devices (C(103, 3) splits). */
int hs_split_sim_best_static(const hs_split_sim *sim, const volatile sig_atomic_t *stop,
                             int *best, double *best_us, long *tried, hs_error *err);

/* Runs splitter sp over the kernel of sim.  opt and mem may be NULL; with
 * mem, a run whose items all finished is learned from (sp->learn).  On
 * success *res is filled (free with hs_split_result_free).  HS_EINPUT for
 * a bad sim or options, HS_EINTERNAL when the splitter lost an item,
 * issued one twice or kept a device spinning. */
int hs_split_sim_run(const hs_split_sim *sim, const hs_splitter *sp, const hs_split_options *opt,
                     hs_split_memory *mem, hs_split_result *res, hs_error *err);
void hs_split_result_free(hs_split_result *res);
/* Fills spread_us, imbalance_pct and efficiency of res from its ndevices,
 * makespan_us and each device's dead, finish_us and alone_us (a run of
 * `items` items); the real runs (exec/split_real.h) share it. */
void hs_split_result_figures(hs_split_result *res, size_t items);

/* Kernel profiles for `hetsched split KERNEL --sim`: va, xgemm-rows, pi,
 * each with its item count, bytes per item and two devices (cpu0, gpu0)
 * with documented speeds (split_sim.c says where the figures come from).
 * Fills the kernel and device fields of *sim and leaves the rest alone.
 * HS_EINPUT naming the profiles for an unknown name. */
int hs_split_sim_profile(hs_split_sim *sim, const char *kernel, hs_error *err);
/* Lists the profiles and their figures. */
void hs_split_sim_profile_help(FILE *out);

/* Draws block size (log scale) against time, one colour per device, from
 * res's records (HDSS Fig. 6): each chunk is a bar from its start to its
 * end at the height of its size, consecutive chunks of a device joined by a
 * thin line; refused chunks are hollow, lost ones red.  PNG or SVG by the
 * extension of path, with cairo.  HS_ENOTBUILT where cairo is not built in,
 * HS_EUSAGE for another extension or a result without records, HS_EIO when
 * the file cannot be written. */
int hs_split_plot(const hs_split_sim *sim, const hs_split_result *res, const char *splitter,
                  const char *path, hs_error *err);

#endif
