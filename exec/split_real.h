/* hetsched — one real kernel (workloads/kernels/kernel.h) split across the
 * host CPU and CUDA GPUs by a chunk splitter (mapper/split.h), each device
 * driven by its own thread (exec/split_drive.h).
 *
 * Data.  The kernel's buffers live in host memory, pinned (cudaMallocHost)
 * when a GPU takes part, and are filled once from the kernel's seed.  A CPU
 * device runs its chunks in place with hs_krun_cpu on its own thread count.
 * A GPU device holds a whole-size copy of every buffer; before its first
 * ask (the driver's prep, timed in the run but in no chunk) it copies the
 * buffers every range reads whole (hs_ktype.whole_bufs: gemm's B, ...); per
 * chunk it copies the chunk's slice of every other read buffer in on a copy
 * stream, runs hs_krun_cuda on [begin, end) on a compute stream and copies
 * the slice of every written buffer back on a second copy stream, in up to
 * HS_SPLIT_REAL_PIECES pieces of whole widths so that copies overlap
 * computing.  The chunk's measured time runs to the end of its last kernel:
 * transfers included, but its last output copy overlaps the next chunk, and
 * the device's finish time waits for it (exec/split_real_cuda.c also says
 * how a chunk's first input copy is hidden).  Slices of disjoint ranges are
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
#ifndef HS_EXEC_SPLIT_REAL_H
#define HS_EXEC_SPLIT_REAL_H

#include <stddef.h>

#include "exec/split_sim.h"
#include "hetsched/error.h"
#include "mapper/split.h"
#include "workloads/kernels/kernel.h"

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
 * streams and device buffers.  HS_EINPUT for a kernel that is not
 * splittable or whose buffers break the rule of hs_ktype.whole_bufs, or
 * for bad devices; HS_ENOMEM, HS_EIO (CUDA) otherwise. */
int hs_split_real_open(const hs_kconf *c, const hs_split_real_device *dev, int ndev,
                       hs_split_real **out, hs_error *err);
void hs_split_real_close(hs_split_real *r);

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

/* ------------------------------------------------------------- internal */

/* For tests: hook(ctx, d, b, e, aside) is called on device d's thread
 * before each chunk [b, e) of a drive runs (d indexes the devices given to
 * hs_split_real_open; aside as in split_drive.h).  A hook that blocks
 * stands for a device that stopped answering.  NULL: none. */
typedef void (*hs__split_real_hook)(void *ctx, int device, size_t b, size_t e, int aside);
void hs__split_real_set_hook(hs_split_real *r, hs__split_real_hook hook, void *ctx);

/* The GPU half (exec/split_real_cuda.c in the CUDA module,
 * exec/cuda_module.h, or exec/split_real_nocuda.c when CUDA is not built
 * in, where every call answers HS_ENOTBUILT). */

typedef struct hs__split_gpu hs__split_gpu;

int hs__split_gpu_count(void);
/* Host memory, pinned when `pinned` and CUDA is built in. */
void *hs__split_host_alloc(size_t bytes, int pinned);
void hs__split_host_free(void *p, int pinned);
/* Multiprocessors of CUDA device `dev` (0 unknown). */
int hs__split_gpu_sms(int dev);
int hs__split_gpu_open(const hs_kconf *c, int cuda_device, hs__split_gpu **out, hs_error *err);
void hs__split_gpu_close(hs__split_gpu *g);
/* Copies the buffers every range reads whole from `in` to the GPU and
 * waits. */
int hs__split_gpu_prep(hs__split_gpu *g, void *const *in, hs_error *err);
/* Runs items [b, e) as described above in pieces of whole widths, reading
 * inputs from `in` (the saved inputs of in-place buffers) and writing
 * results to `out`, and waits for its last kernel; its last output copy may
 * still be under way. */
int hs__split_gpu_chunk(hs__split_gpu *g, void *const *in, void *const *out, size_t b, size_t e,
                        size_t width, hs_error *err);
/* Waits for the kernels and output copies still under way: the results
 * are then in `out` (inputs copied ahead may still be on their way: the
 * next prep waits for them). */
int hs__split_gpu_drain(hs__split_gpu *g, hs_error *err);

/* The pieces of a GPU chunk of n items: as many as whole widths fit, at
 * most HS_SPLIT_REAL_PIECES, each moving HS_SPLIT_REAL_PIECE_BYTES or
 * more.  The first is one width, so that the first kernel waits only for a
 * small copy; the others share the rest in whole widths.  Fills at[0..np]
 * (offsets from the chunk's first item; room for HS_SPLIT_REAL_PIECES + 1)
 * and returns np >= 1. */
size_t hs__split_gpu_pieces(const hs_kconf *c, size_t n, size_t width, size_t *at);

/* Byte spans of item ranges: hs_kspan (workloads/kernels/kernel.h). */

#endif
