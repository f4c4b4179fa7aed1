/* hetsched — the device layer under the real backends: the memory spaces,
 * copies, events and kernel launches that the data manager (exec/data.c)
 * drives, through which calibrate (exec/calibrate.c) measures a GPU's
 * kernels and links, and on which real splits (exec/split_gpu.c) run a
 * GPU's chunks.  One small interface, two implementations:
 *
 *   plain (exec/data.c): every memory is malloc'd host RAM; copies are
 *     memcpy, complete when copy() returns; kernels run on the CPU (the cpu
 *     and emu backends).
 *   cuda (exec/cuda.c): host memory is pinned (cudaHostAlloc), the memory of
 *     the k-th gpu device of the platform is CUDA device k's (cudaMalloc),
 *     any other memory is malloc'd; copies are cudaMemcpyAsync on the copy
 *     streams of the device involved, peer copies where
 *     cudaDeviceCanAccessPeer says so, staged through pinned host otherwise;
 *     kernels run on the GPU's compute stream.
 *
 * Buffers come from the caching pools of exec/pool.h, made ahead of the
 * run, so alloc and free are called outside a worker's path.
 *
 * Events are opaque and owned by the implementation until fini: a replica
 * may keep a pointer to the event of the copy that fills it, and to the one
 * of the last copy that reads it, without freeing either.  NULL is an event
 * that has already happened.
 *
 * Times: every copy and kernel can be measured on the run's clock (µs since
 * the t0 given to start_clock, the monotonic clock): a synchronous one with
 * the host clock around it, an asynchronous one with device events mapped
 * onto the host clock through anchor events, the first recorded at
 * start_clock and the next ones while the clock runs.  A
 * copy's record (hs_run_copy, exec/data.h) gets its times: at once for a
 * synchronous copy, at flush for an asynchronous one (the record must stay
 * where it is until then). */
#ifndef HS_EXEC_MEM_H
#define HS_EXEC_MEM_H

#include <stddef.h>
#include <time.h>

#include "exec/data.h"
#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "workloads/kernels/kernel.h"

typedef struct hs__mem_ops {
    /* 1 when the CPU computes on memory m's buffers (hs_krun_cpu), 0 when a
     * device does (run below). */
    int (*host_side)(void *ctx, int m);
    /* Bytes the data manager may keep on memory m (SIZE_MAX: no limit). */
    size_t (*capacity)(void *ctx, int m);
    int (*alloc)(void *ctx, int m, size_t bytes, void **p, hs_error *err);
    void (*free)(void *ctx, int m, void *p);
    /* Starts the run's clock at t0 (which must stay valid until fini). */
    int (*start_clock)(void *ctx, const struct timespec *t0, hs_error *err);
    /* Copies `bytes` from src (on memory `from`) to dst (on memory `to`)
     * once event `after` happened; *done gets the copy's event (done NULL:
     * none is wanted, and an untimed copy then makes none).  rec, when
     * not NULL, gets the copy's start_us and end_us (above). */
    int (*copy)(void *ctx, int to, void *dst, int from, const void *src, size_t bytes,
                void *after, hs_run_copy *rec, void **done, hs_error *err);
    /* Blocks the calling thread until event ev happened. */
    int (*sync)(void *ctx, void *ev, hs_error *err);
    /* 1 when event ev has happened, 0 when not yet; never blocks. */
    int (*ready)(void *ctx, void *ev);
    /* Enqueues items [begin, end) of kernel c on the device of memory m
     * (host_side(m) is 0), to run once the nev events happened, and
     * returns at once; *k gets a handle for finish.  bufs are whole
     * buffers on m.  A memory has at most HS_BACKEND_MAX_DEPTH kernels
     * enqueued and not finished. */
    int (*launch)(void *ctx, int m, const hs_kconf *c, void *const *bufs, size_t begin,
                  size_t end, void *const *ev, int nev, void **k, hs_error *err);
    /* Waits for kernel k to end: its own start and end on the run's clock,
     * and the event of its end (valid until fini) in *done.  k is then
     * free for another launch. */
    int (*finish)(void *ctx, void *k, double *start_us, double *end_us, void **done,
                  hs_error *err);
    /* Waits for every copy and fills the records of the asynchronous ones. */
    int (*flush)(void *ctx, hs_error *err);
    void (*fini)(void *ctx);
    /* 0 when a copy from memory `from` to `to` is staged through the host
     * (two GPUs without peer access), 1 when it goes straight; NULL: every
     * copy goes straight. */
    int (*direct)(void *ctx, int from, int to);
} hs__mem_ops;

/* The cuda memory spaces for workload w (exec/cuda.c): validates the
 * mapping of gpu devices to CUDA devices (HS_EINPUT when the platform has
 * more gpu devices than CUDA finds, or a gpu device shares its memory),
 * makes each GPU's streams and kernel context.  local (NULL: every device)
 * marks the devices this process runs (a run across nodes): the k-th local
 * gpu device is CUDA device k, and another node's GPU is a memory nothing
 * here computes on.  device_memory > 0 caps each GPU memory at that many
 * bytes; 0 takes the device's free memory at init minus HS__CUDA_MARGIN.
 * HS_ENOTBUILT without CUDA. */
#define HS__CUDA_MARGIN ((size_t)512 << 20)
int hs__mem_cuda_new(const hs_workload *w, const unsigned char *local, size_t device_memory,
                     const hs__mem_ops **ops, void **ctx, hs_error *err);

/* CUDA devices present: 0 with *why filled (when why is not NULL: "CUDA is
 * not built in", "no GPU found: ...") when the driver is missing, finds no
 * device or the CUDA module cannot be loaded. */
int hs__cuda_gpu_count(char *why, size_t size);

/* "NAME, X GiB, compute capability M.N" of CUDA device `dev` (its number
 * where CUDA cannot say). */
void hs__cuda_gpu_describe(int dev, char *buf, size_t size);

/* Multiprocessors of CUDA device `dev` (0: unknown). */
int hs__cuda_gpu_sms(int dev);

/* The cuda memory spaces over a platform of their own, for what runs no
 * workload's graph (calibrate, real splits): host, and gpu0 .. gpu(N - 1)
 * on memories of those names, gpuK being CUDA device K whichever of them
 * are used (exec/gpu_layer.c). */
typedef struct hs__gpu_layer {
    hs_workload *w;
    const hs__mem_ops *ops;
    void *ctx;
    struct timespec t0;       /* the clock of hs__gpu_layer_clock */
} hs__gpu_layer;

/* Opens L over gpu0 .. gpu(ngpus - 1) (CUDA devices 0 .. ngpus - 1), its
 * clock started; HS_ENOTBUILT without CUDA, HS_EINPUT when CUDA finds
 * fewer GPUs. */
int hs__gpu_layer_open(hs__gpu_layer *L, int ngpus, hs_error *err);
/* The memory of CUDA device `dev` in L. */
int hs__gpu_layer_mem(const hs__gpu_layer *L, int dev);
/* Starts L's clock again: device times are floats from their anchor, so a
 * measurement taken right after it keeps their precision. */
int hs__gpu_layer_clock(hs__gpu_layer *L, hs_error *err);
/* Frees what L holds (a zeroed L too) and zeroes it. */
void hs__gpu_layer_close(hs__gpu_layer *L);

#endif
