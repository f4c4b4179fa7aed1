/* hetsched — calibration (public API): what each kernel type costs on each
 * device of this machine, and what moving data between its memories costs,
 * as `hetsched calibrate` measures it.
 *
 * hs_calibrate measures every chosen kernel type (workloads/kernels/kernel.h)
 * at several sizes, or exactly the typed kernels of a workload (each
 * distinct type and params once), on the CPU (the host, with N threads) and
 * on each chosen CUDA GPU, and each ordered pair of memories (host <-> every
 * GPU from pinned host memory, GPU <-> GPU by peer copies, staged by the
 * driver where the pair has no peer access).  It gives back:
 *   - a performance model (hetsched/perfmodel.h): a history entry per (type,
 *     params, D, device) with D the kernel's flops, and an a*D^b+c fit per
 *     (type, device) measured at >= 3 sizes.  Every measurement is repeated;
 *     a batch is recorded at once, and the entry
 *     predicts its median, so one slow run (a page fault, a context switch)
 *     moves nothing;
 *   - a platform (DESIGN.md §3): device cpu0 (memory host, `cores` = the
 *     threads), gpuK (memory gpuK) for CUDA device K, and the measured links:
 *     bandwidth from large copies, latency from 1-byte copies.
 *
 * Sizes: each type's size param (the first of its spec: n, or hits for pi)
 * is chosen so that the kernel's flops reach targets spaced by decades
 * ("quick": 1e4 .. 1e8; "full": 1e4 .. 1e10 in half decades), capped so
 * that its buffers stay within 64 MiB (quick) or 1 GiB (full); or it is
 * given explicitly.  A (type, device) whose median run exceeds 0.2 s
 * (quick) or 2 s (full) is not measured at larger sizes.  A workload's
 * kernels are measured whatever they take: a model measured at the sizes
 * a workload runs predicts it without extrapolating the fit (a sweep's
 * largest gemm has 1e10 flops, a paper workload's 1.1e12).
 *
 * Timing: a warm-up run first (page faults, cuBLAS workspaces, module
 * loading), then `reps` timed runs; inputs that a kernel updates in place
 * are refilled before each run, outside the timed part.  CPU: the monotonic
 * clock around hs_krun_cpu.  A GPU: through the device layer that runs
 * graphs (the cuda backend's buffers, copies and launches), a kernel's time
 * between the events around it on the compute stream.  Copies: that
 * layer's, four back-to-back of 64 MiB per sample, from the first one's
 * start to the last one's end.
 */
#ifndef HETSCHED_CALIBRATE_H
#define HETSCHED_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/perfmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called with each batch of samples (µs) of a kernel (its type, params
 * text and D, hetsched/perfmodel.h) before it is recorded; it may change them
 * (the tests inject spikes and exact values this way). */
typedef void (*hs_calib_sample_fn)(void *ctx, const char *type, const char *params,
                                   double size, const char *device, double *us, int n);

typedef struct hs_calib_options {
    const char *types;    /* "va,gemm"; NULL: every type of the registry */
    const char *sizes;    /* "quick" (NULL too), "full", or "1000,10000,..."
                             (values of each type's size param) */
    const hs_workload *workload; /* measure its typed kernels instead (types
                             and sizes must then be NULL); NULL: none */
    const char *devices;  /* "cpu,gpu0,gpu1" ("cpu0" = "cpu"; "gpu" = every
                             GPU); NULL: the CPU and every GPU found */
    int reps;             /* timed runs per measurement, >= 3; 0: 5 for
                             quick and explicit sizes, 10 for full */
    int threads;          /* CPU threads; 0: the cores of the workload's first
                             cpu device that gives them, else the online
                             processors */
    FILE *log;            /* a progress line per type and device; NULL: none */
    hs_calib_sample_fn sample_hook;
    void *hook_ctx;
} hs_calib_options;

/* One measured link (platform memories: 0 host, K + 1 gpuK). */
typedef struct hs_calib_link {
    int from, to;
    double bandwidth_gbps;  /* 1 GB/s = 1000 bytes/µs */
    double latency_us;
    int direct;             /* GPU pair: 1 peer access, 0 staged by the driver */
    size_t bytes;           /* of each bandwidth copy */
} hs_calib_link;

/* One (type, device): what was measured and fitted. */
typedef struct hs_calib_row {
    const char *type;       /* the registry's name */
    char device[16];
    int nsizes;             /* sizes (distinct params) measured */
    int parts;              /* parts of split kernels measured (--for) */
    long samples, rejected; /* over all its sizes */
    int fitted;             /* fit holds the a*D^b+c fit */
    hs_perf_fit fit;
    double dmin, dmax;      /* flops of the smallest and largest size */
    double dmax_us;         /* the median measured at dmax */
    char note[96];          /* why it stopped early, or "" */
} hs_calib_row;

typedef struct hs_calib_result {
    hs_perfmodel *model;
    hs_workload *platform;  /* its platform only (no applications) */
    int threads;            /* of cpu0 */
    int ngpus;              /* CUDA GPUs found (0 without CUDA) */
    char gpu_note[160];     /* why none was found, or "" */
    char gpu_names[8][96];  /* the first ones' names and memory, for reports */
    int nrows;
    hs_calib_row *rows;
    int nlinks;
    hs_calib_link *links;
    int nwarnings;          /* measurements or fits that failed (on the log) */
} hs_calib_result;

/* Measures what `o` asks for into *out (zeroed first; free it with
 * hs_calib_result_free, also after a failure).  Options are checked before
 * anything is measured: HS_EINPUT with one line naming the bad type, size,
 * device, count or workload kernel.  HS_EIO when a CUDA call fails,
 * HS_ENOMEM. */
int hs_calibrate(const hs_calib_options *o, hs_calib_result *out, hs_error *err);
void hs_calib_result_free(hs_calib_result *r);

/* A cost provider (hs_cost_fn, graph.h) for the workload of
 * hs_calib_options.workload, which is read for its kernels' types and
 * params only: a typed kernel without cost_us (a workload written for a
 * performance model) costs 0, its type and params checked as
 * hs_perfmodel_cost_fn checks them; it knows no device overhead.  ctx is
 * unused. */
int hs_calib_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                     hs_error *err);

/* Writes the platform as YAML (hs_platform_write_yaml) after a comment
 * saying where it comes from; `path` "-" is stdout.  HS_EIO on failure. */
int hs_calib_write_platform(const hs_calib_result *r, const char *path, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
