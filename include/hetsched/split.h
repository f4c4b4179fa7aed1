/* hetsched — splitting one data-parallel kernel across devices (public
 * API), what `hetsched split` and the commands' --split do (DESIGN.md §6):
 *   - chunk splitters, the policies of splitting;
 *   - graph-level splitting: a splittable kernel of a workload divided by a
 *     splitter before a policy maps the graph (hs_map_options.split);
 *   - the chunk simulator: one kernel split in virtual time;
 *   - real runs: one real kernel split across the host CPU and CUDA GPUs.
 * Splitting at run time (`run --split`) is hs_run_options.split. */
#ifndef HETSCHED_SPLIT_H
#define HETSCHED_SPLIT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/mapper.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ splitters
 * A chunk splitter divides one data-parallel kernel of N items across
 * several devices (DESIGN.md §6: splitters sit beside policies).  Each
 * splitter is one file mapper/split_NAME.c ending in a designated-
 * initializer instance of hs_splitter, and one line in the registry
 * (mapper/split_registry.c); `hetsched split -p help` lists them.
 *
 * The model: every device runs one chunk at a time.  Whenever a device is
 * idle it asks next(); the answer is a chunk [begin, end) to run now, WAIT
 * (ask again when another device finishes a chunk, or at wake_us at the
 * latest), or STOP (nothing more for this device in this run).  When the
 * chunk is done the device reports finished() with the measured duration,
 * transfers in and out included (the weights of HDSS, Boyer's Omega and
 * CoreTSAR's time per iteration are all measured that way).
 *
 * Hook order, for one run:
 *   start      once: kernel, devices, options, and what earlier runs of the
 *              same kernel taught (hs_split_memory, may be empty);
 *   next(d) / finished(d, chunk, us), in any interleaving, one chunk in
 *              flight per device; a device that never answers again (dead)
 *              simply stops calling;
 *   learn      (optional) after a run in which every item finished: store
 *              what the next run should know into the memory;
 *   fini       once at the end, also after a failed run.
 * Times are µs since the start of the run: virtual under the simulator
 * (the chunk simulator below), from a monotonic clock on real devices.
 *
 * The contract every splitter keeps (tests/test_split.c checks it for all):
 * the chunks whose finished() returned 1 cover every item exactly once.  A
 * splitter with HS_SPLIT_SURVIVES_FAILURE keeps it even when a device stops
 * responding in the middle of a chunk: it takes that chunk back ("revokes"
 * it) and hands it to others, after at most 3 times the chunk's expected
 * time (mapper/split_core.h says when); should the device answer after
 * all, its finished() returns 0 (result discarded) and it takes part again.
 *
 * Threads: the hooks are not reentrant.  A real backend drives a splitter
 * from one thread per device, calling next() and finished() under one mutex
 * (the "global pointer" critical section of HDSS Sec. 3.1); a thread told
 * WAIT sleeps on a condition variable that finished() broadcasts, with
 * wake_us as its timeout.
 */
#define HS_SPLIT_MAX_DEVICES 64

/* A device as a splitter sees it: what a spec sheet or a performance model
 * says, never what it will measure. */
typedef struct hs_split_device {
    const char *name;
    hs_device_kind kind;
    size_t width;            /* parallel width in items (>= 1): HDSS blocks are
                                multiples of it */
    int cores;               /* CPU cores or GPU multiprocessors; 0 unknown
                                (CoreTSAR's default split uses it) */
    double rate_hint;        /* expected items/µs, transfers included; 0 unknown */
    double overhead_hint_us; /* expected fixed cost per chunk; 0 unknown */
} hs_split_device;

/* The kernel: N items, uniform unless `work` says how much work a range
 * holds (in item units: end - begin for a uniform kernel).  KASS's static
 * partition and the simulator use it; the others only count items. */
typedef struct hs_split_kernel {
    const char *name;
    size_t items;
    double (*work)(const void *ctx, size_t begin, size_t end);
    const void *work_ctx;
} hs_split_kernel;

/* Tunables; 0 (or NULL) means the splitter's default, given in brackets.
 * `hetsched split -o KEY=VALUE` sets them by name (hs_split_option_set). */
typedef struct hs_split_options {
    size_t chunk;            /* fixed: chunk size [ceil(N / 8P)]; gss, fss, tss:
                                smallest chunk [1] */
    size_t initial_block;    /* hdss, tse-*: first block, rounded up to the
                                device's width [128] */
    size_t block_factor;     /* hdss, tse-linear: growth step [128] */
    double min_change_rate;  /* hdss: a weight is stable below this [0.01] */
    double adaptive_max;     /* hdss: adaptive phase at most this share [0.2] */
    double standby_below;    /* hdss: a device whose speed hint is below this
                                share of the fastest one's stands by [0.05] */
    double beta;             /* boyer: first chunk, share of N [0.07] */
    double delta;            /* boyer: chunk growth [1.5] */
    int gamma;               /* boyer: chunks each device finishes first [2] */
    double kass_delta;       /* kass: Delta of eq. (7) [0.1] */
    size_t alpha;            /* kass: smallest chunk [2 T_cs / mu from hints, >= 1] */
    int theta;               /* kass: eq. (8) threshold [1] */
    int schedule;            /* coretsar: HS_CORETSAR_* [split] */
    int div;                 /* coretsar: sub-regions of Split and Quick [10] */
    int backoff;             /* coretsar: slow passes before a GPU is dropped [2] */
    double tse_factor;       /* tse-exp: growth factor m [2] */
    size_t wave_rows, wave_cols; /* hdss wavefront mode (-o wavefront=ROWSxCOLS):
                                the items form a grid of tiles, see
                                hs_split_wave below [0: off] */
    int hdss_plain;          /* hdss: our additions to turn off, a mask of
                                HS_HDSS_* (7: the paper's rules only) [0] */
    int no_takeback;         /* the caller never loses a device within a chunk
                                (the engine, which has its own failure path):
                                no chunk is taken back, however late [0] */
} hs_split_options;

enum { HS_CORETSAR_SPLIT = 0, HS_CORETSAR_STATIC, HS_CORETSAR_ADAPTIVE, HS_CORETSAR_QUICK };
/* hdss additions (mapper/split_hdss.c), bits of hs_split_options.hdss_plain */
enum { HS_HDSS_FIT = 1, HS_HDSS_EVEN_START = 2, HS_HDSS_STANDBY = 4 };

/* What a splitter keeps from one run of a kernel for the next run of the
 * same kernel on the same devices (CoreTSAR Adaptive, Qilin's model, KASS's
 * k_i).  Zero it before the first run; the splitter's learn hook fills it. */
typedef struct hs_split_memory {
    int runs;                                  /* runs learned from so far */
    int ndevices;
    double us_per_item[HS_SPLIT_MAX_DEVICES];  /* last measured, 0 unknown */
    double model_a[HS_SPLIT_MAX_DEVICES];      /* qilin: T(B) = a + b B µs */
    double model_b[HS_SPLIT_MAX_DEVICES];
    double k[HS_SPLIT_MAX_DEVICES];            /* kass: chunk factors (eq. 8) */
    int slow_passes[HS_SPLIT_MAX_DEVICES];     /* coretsar back-off counters */
    int dropped[HS_SPLIT_MAX_DEVICES];         /* coretsar: backed off */
} hs_split_memory;

typedef enum hs_split_answer { HS_SPLIT_CHUNK = 0, HS_SPLIT_WAIT, HS_SPLIT_STOP } hs_split_answer;

typedef struct hs_split_grant {
    size_t begin, end;       /* CHUNK: items [begin, end), begin < end */
    double wake_us;          /* WAIT: ask again by then (HUGE_VAL: only after
                                another device's finished) */
} hs_split_grant;

enum {
    HS_SPLIT_SURVIVES_FAILURE = 1 << 0, /* re-issues the chunk of a dead device */
    HS_SPLIT_LEARNS = 1 << 1,           /* uses hs_split_memory across runs */
    HS_SPLIT_TRAINS = 1 << 2,           /* meant to run after a training run */
    HS_SPLIT_WAVEFRONT = 1 << 3,        /* honours -o wavefront (hs_split_wave) */
};

typedef struct hs_splitter {
    const char *name;        /* as given to -p */
    const char *description; /* one line for `split -p help` */
    unsigned flags;          /* HS_SPLIT_* */
    /* Devices are 0..ndev-1 in dev[] order; dev[] and k stay valid until
     * fini.  mem may be NULL (nothing learned). */
    int (*start)(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                 const hs_split_options *opt, const hs_split_memory *mem, void **state,
                 hs_error *err);
    hs_split_answer (*next)(void *state, int device, double now_us, hs_split_grant *g);
    /* Returns 1 if the chunk's result counts, 0 if it was revoked meanwhile. */
    int (*finished)(void *state, int device, size_t begin, size_t end, double measured_us,
                    double now_us);
    void (*learn)(void *state, hs_split_memory *mem);
    void (*fini)(void *state);
} hs_splitter;

/* The registered splitters, NULL-terminated, in `-p help` order; one by
 * name (NULL if none); the listing `-p help` prints. */
const hs_splitter *const *hs_splitter_list(void);
const hs_splitter *hs_splitter_find(const char *name);
void hs_splitter_help(FILE *out);

/* Sets one option from "KEY=VALUE" (the keys are the field names above;
 * schedule takes static|adaptive|split|quick).  HS_EINPUT naming the key for
 * an unknown key or a value out of range. */
int hs_split_option_set(hs_split_options *opt, const char *assignment, hs_error *err);
/* HS_EINPUT naming the first option that opt sets (non-zero) and that
 * splitter sp does not read, with the splitters that do; HS_OK otherwise
 * (also for opt NULL). */
int hs_split_options_check(const hs_split_options *opt, const hs_splitter *sp, hs_error *err);
/* Writes the option keys with their meaning, one per line. */
void hs_split_option_help(FILE *out);

/* ================================================= graph-level splitting
 * A kernel marked `splittable: true` with `items: N` runs as one step of
 * the graph split across the devices by a chunk splitter, under any policy (`map|run|compare
 * --split SPLITTER`).
 *
 * How: a policy transform (mapper/policy.h) replaces each splittable task by
 * the parts the splitter gives it.  The splitter runs in the chunk
 * simulator (below) over the platform's devices, each computing
 * N / C[t][d] items per µs (C the task's cost on d), from host memory or
 * behind the host link of its memory (bandwidth and latency of the link
 * host -> memory), moving per item its share of the task's input and output
 * bytes and of its edges' bytes (as if its neighbours ran on the host),
 * with no fixed cost per chunk.  A kernel of more than 2^20 items is
 * simulated at that many items, each standing for N / 2^20 of them.
 * Each device that got items gets one part, numbered in device order, with
 * fraction = its share of the items, costing fraction x C[t][e] on every
 * device e (the linear part cost of the model, DESIGN §1); an edge u -> v
 * becomes one edge from each part of u to each part of v carrying bytes x
 * f_u x f_v, as in ad-part.  A task whose cost is 0 somewhere stays whole.
 *
 * The devices: all the platform's, but for a policy that runs every task
 * on a CPU device (HS_POLICY_CPUS_ONLY: cpu-only), only its CPU devices.
 *
 * Pinning: each part runs on the device that got its items.  The planning
 * policies (heft, peft, heft-wm, hoft, cpop, lookahead: mapper/rank.h,
 * hs__plan_list, and heteroprio) place each part on its device in their
 * plans (hs__split_graph_pins), so what they plan is what runs.  Any policy is
 * wrapped: it sees every task as usual, and whatever it hands out goes
 * through a queue per device, served first: a part to its own device's
 * queue, anything else to the queue of the device it was handed out for.
 * When a device with an empty queue is asked, the policy is asked for it
 * and for every other idle device not yet asked in this batch of events,
 * so that a part the policy queues on another device (h-ratio, dmda)
 * reaches its own device before the engine asks that one.  One exception
 * keeps the run going: a part handed out for a device that has already
 * declined in this batch, while the asking device has nothing else, runs
 * on the asking device.  A policy with its own transform (ad-part) cannot
 * be wrapped.
 */
typedef struct hs_split_graph hs_split_graph;

/* The splitter named `splitter` with options opt (NULL: defaults), for
 * hs_map_options.split.  HS_EINPUT naming the splitters for an unknown
 * name. */
int hs_split_graph_new(const char *splitter, const hs_split_options *opt, hs_split_graph **out,
                       hs_error *err);
void hs_split_graph_free(hs_split_graph *sg);

/* The policy that runs `inner` with the splittable kernels split by sg (its
 * name: INNER+SPLITTER), valid until sg is freed or wraps another policy;
 * give the engine opt with opt.split = sg.  NULL when inner has a
 * transform of its own (ad-part). */
const hs_policy *hs_split_graph_wrap(hs_split_graph *sg, const hs_policy *inner);

/* =================================================== the chunk simulator
 * One data-parallel kernel of N items split across devices by a splitter,
 * in virtual time.
 *
 * The device model (documented figures of the kernel profiles are in
 * exec/split_sim.c):
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
 * (-o wavefront, mapper/split.h: hs_split_wave) a chunk that starts before the upper or
 * left neighbour of one of its tiles finished fails it the same way.
 */
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
 * `items` items); the real runs (below) share it. */
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

/* ============================================================= real runs
 * One real kernel (a kernel type: `hetsched calibrate --types help`) split
 * across the host CPU and CUDA GPUs by a chunk splitter, each device driven
 * by its own thread (exec/split_drive.h).
 *
 * Data.  The kernel's buffers live in host memory, pinned (cudaMallocHost)
 * when a GPU takes part, and are filled once from the kernel's seed.  A CPU
 * device runs its chunks in place with hs_krun_cpu on its own thread count.
 * A GPU device holds a whole-size copy of every buffer; before its first
 * ask (the driver's prep, timed in the run but in no chunk) it copies the
 * buffers every range reads whole (hs_ktype.whole_bufs: gemm's B, ...); per
 * chunk it copies the chunk's slice of every other read buffer in, runs
 * hs_krun_cuda on [begin, end) and copies the slice of every written buffer
 * back, on the streams of the device layer that runs graphs (a copy stream
 * each way, a compute stream), in up to HS_SPLIT_REAL_PIECES pieces of
 * whole widths so that copies overlap computing.  The chunk's measured time
 * runs to the end of its last kernel: transfers included, but its last
 * output copy overlaps the next chunk, and the device's finish time waits
 * for it (exec/split_gpu.c also says how a chunk's first input copy is
 * hidden).  Slices of disjoint ranges are
 * disjoint (kernel.h), so the devices never write the same host bytes.
 *
 * A run starts from the same inputs every time: updated-in-place buffers
 * (HS_KRW) are restored from a saved copy and written-only ones are set to
 * all-ones bytes (a NaN for floats), so an item nobody ran shows in the
 * check.  After the drive the whole result is checked with hs_kcheck.
 *
 * Taken-back chunks: a splitter that judges a device dead hands its chunk
 * to another (split_core.h), and on real devices the first one usually
 * still runs it.  The driver (split_drive.h) says when a chunk holds items
 * handed out before: such a chunk runs aside, into whole-size copies of
 * the written buffers that its device makes at its first such chunk (a
 * CPU's in-place buffers start from the saved inputs there), and the
 * driver's commit copies the accepted one's slices to the host buffers
 * after the drive.  The first run of every item computes in the host
 * buffers directly, in-place ones included (their inputs are there, and
 * no other run writes there), so no two runs ever write the same bytes
 * and the result kept is the accepted one.
 *
 * Single-device figures: hs_split_real_alone runs the whole kernel as one
 * chunk on one device (its prep included), the figure Boyer's efficiency
 * divides by; hs_split_real_static runs a static split in given fractions,
 * one chunk per device at once, for the search of the best one.
 */
#define HS_SPLIT_REAL_PIECES 16         /* most pieces a GPU chunk is cut into */
#define HS_SPLIT_REAL_PIECE_BYTES (1 << 20) /* least bytes moved per piece */

typedef struct hs_split_real_device {
    char name[16];           /* cpu0, cpu1, ..., gpu0, gpu1, ... */
    hs_device_kind kind;
    int threads;             /* CPU: worker threads (>= 1) */
    int cuda_device;         /* GPU: CUDA ordinal */
} hs_split_real_device;

typedef struct hs_split_real hs_split_real;

/* CUDA devices present: 0 without CUDA built in or without a GPU. */
int hs_split_real_gpu_count(void);

/* Parses a device list into dev[0..*ndev): comma-separated `cpu` or
 * `cpu:T` (a CPU device of T threads; `cpu_threads` when T is left out),
 * `gpu` (every GPU) or `gpuK` (CUDA device K).  NULL or "" means `cpu,gpu`.
 * CPU devices are named cpu0, cpu1, ... in order.  HS_EINPUT naming the
 * entry for a bad one, a GPU that is not there (or CUDA not built in), a
 * device given twice or more than HS_SPLIT_MAX_DEVICES. */
int hs_split_real_devices(const char *list, int cpu_threads, hs_split_real_device *dev,
                          int *ndev, hs_error *err);

/* Sets the kernel up on the devices: host buffers, inputs, GPU contexts,
 * streams and device buffers.  `kernel` is a kernel type with its params
 * params[0..nparams) (the others take their defaults), or a kernel profile
 * of the chunk simulator run for real: va (n = 2^24), xgemm-rows, xgemm
 * and gemm (gemm by rows, n = 8192), pi (hits = 2^30), whose sizes are
 * defaults that params override.  items > 0 sets the kernel's items: m of
 * gemm, gemv, matadd and trsm, hits = 256 items of pi (samples per item),
 * n of the others, whatever params say.  HS_EINPUT
 * (`split`'s options named: -P, --items) for an unknown type, bad params,
 * items the params do not give, a kernel that is not splittable or whose
 * buffers break the rule of hs_ktype.whole_bufs, more params than a type
 * has, bad devices; HS_ENOMEM, HS_EIO (CUDA) otherwise. */
int hs_split_real_open(const char *kernel, const hs_param *params, int nparams,
                       unsigned long long items, const hs_split_real_device *dev, int ndev,
                       hs_split_real **out, hs_error *err);
void hs_split_real_close(hs_split_real *r);

/* The kernel r runs: its type's name, its items and what an item is
 * ("rows of C", ...); strings owned by r. */
void hs_split_real_kernel(const hs_split_real *r, const char **type, size_t *items,
                          const char **item_unit);

/* What a splitter is told of the devices: names, kinds, widths, cores and,
 * with `hints`, the rates (items/µs) of the alone runs measured so far.
 * A CPU's width is a grain (hs_ktype.grain) per thread, as hs_krun_cpu
 * splits a chunk over its threads (BLAS types, threaded inside OpenBLAS:
 * one item per thread), at most items / devices; a GPU's is 2048 threads
 * per multiprocessor over the outputs an item writes, rounded up to the
 * type's gpu_grain (gemm row chunks of 33 rows ran at half the speed of
 * chunks of 264 on an H200), at most items.  Strings stay owned by r. */
void hs_split_real_split_devices(const hs_split_real *r, int hints, hs_split_device *dev);

/* Runs chunks on every device, unchecked and untimed, so that the first
 * CUDA launches and cuBLAS calls (a GPU runs every power of two of items),
 * the first touch of pages and OpenBLAS's thread start happen here rather
 * than in a measured run. */
int hs_split_real_warm(hs_split_real *r, hs_error *err);

/* Runs the whole kernel on device d alone `repeat` times (1 to 64; more
 * counts as 64) and checks each run: *us is the median time, prep
 * included; remembered for efficiency and hints. */
int hs_split_real_alone(hs_split_real *r, int d, unsigned long long repeat, double *us,
                        hs_error *err);

/* Sets device d's single-device time to `us` (a median of several alone
 * runs, say) for efficiency and hints. */
int hs_split_real_alone_set(hs_split_real *r, int d, double us, hs_error *err);

/* Runs sp over the kernel on every device and checks the result.  Fills
 * *res as the simulator does (hs_split_result_free it), with alone_us from
 * hs_split_real_alone (HUGE_VAL where not measured: efficiency is then 0)
 * and, when max_records > 0, the chunk records.  hints as above. */
int hs_split_real_run(hs_split_real *r, const hs_splitter *sp, const hs_split_options *opt,
                      hs_split_memory *mem, int hints, size_t max_records,
                      hs_split_result *res, hs_error *err);

/* Called by hs_split_real_measure after each run before the measured one:
 * run 0 is a training run, 1 .. the learning runs. */
typedef void (*hs_split_progress_fn)(void *ctx, unsigned long long run,
                                     const hs_split_result *res);

/* What `hetsched split` measures of a splitter: `runs` runs learning in
 * one memory (before them a training run, run 0, for a splitter with
 * HS_SPLIT_TRAINS when runs is 1), the last one repeated `repeat` times
 * (1 to 64; more counts as 64) from the memory the earlier ones left; *res
 * is the repetition of median makespan (hs_split_result_free it).
 * progress (may be NULL) sees every earlier run.  Errors as
 * hs_split_real_run. */
int hs_split_real_measure(hs_split_real *r, const hs_splitter *sp, const hs_split_options *opt,
                          unsigned long long runs, unsigned long long repeat, int hints,
                          size_t max_records, hs_split_progress_fn progress, void *ctx,
                          hs_split_result *res, hs_error *err);

/* Runs the static split giving device d the share pct[d] / 100 of the
 * items (one chunk each, all at once; the last device takes what rounding
 * leaves) and checks it; *us is its makespan. */
int hs_split_real_static(hs_split_real *r, const int *pct, double *us, hs_error *err);

/* What hs_split_real_best_static found. */
typedef struct hs_split_real_best {
    int pct[4];              /* the fastest split's shares (percent) */
    double us;               /* its median makespan; HUGE_VAL: none run */
    int tried, total;        /* splits run, of those enumerated */
    int step;                /* percent steps of the enumeration */
} hs_split_real_best;

/* The best static split on real devices (`split --best-static` without
 * --sim): every split in 1% steps for two devices, 5% for three or four
 * (real runs cost real time), run (hs_split_real_static, the median of
 * `repeat` runs, at most 64) in order of their lower bounds, a device's
 * share of its time alone alone[d], until the bound reaches the best time
 * found: the search is exhaustive as far as the bounds hold (a fixed cost
 * per run only makes a smaller share relatively dearer).  Stops early once
 * *stop (may be NULL) is set, with the best so far.  HS_EINPUT beyond 4
 * devices; errors of the runs. */
int hs_split_real_best_static(hs_split_real *r, const double *alone, unsigned long long repeat,
                              const volatile sig_atomic_t *stop, hs_split_real_best *out,
                              hs_error *err);

/* The host buffers as the last run left them (read-only for the caller). */
void hs_split_real_buffers(const hs_split_real *r, const void **bufs);

/* The device list of r as a simulator description (names and kinds only),
 * for hs_split_plot. */
void hs_split_real_as_sim(const hs_split_real *r, hs_split_sim *sim);

#ifdef __cplusplus
}
#endif
#endif
