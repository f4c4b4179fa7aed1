/* hetsched — the memory spaces behind the data manager (exec/data.c): one
 * small interface, two implementations.
 *
 *   plain (exec/data.c): every memory is malloc'd host RAM; copies are
 *     memcpy, complete when copy() returns (the cpu and emu backends).
 *   cuda (exec/cuda.c): host memory is pinned (cudaHostAlloc), the memory of
 *     the k-th gpu device of the platform is CUDA device k's (cudaMalloc),
 *     any other memory is malloc'd; copies are cudaMemcpyAsync on the copy
 *     streams of the device involved, peer copies where
 *     cudaDeviceCanAccessPeer says so, staged through pinned host otherwise.
 *
 * Events are opaque and owned by the implementation until fini: a replica
 * may keep a pointer to the event of the copy that fills it, and to the one
 * of the last copy that reads it, without freeing either.  NULL is an event
 * that has already happened. */
#ifndef HS_EXEC_MEM_H
#define HS_EXEC_MEM_H

#include <stddef.h>

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
    /* Copies `bytes` from src (on memory `from`) to dst (on memory `to`)
     * once event `after` happened; *done gets the copy's event.  When `us`
     * is not NULL the copy's duration is added to *us (at once for a
     * synchronous copy, at flush for an asynchronous one: *us must stay
     * valid until then). */
    int (*copy)(void *ctx, int to, void *dst, int from, const void *src, size_t bytes,
                void *after, double *us, void **done, hs_error *err);
    /* Blocks the calling thread until event ev happened. */
    int (*sync)(void *ctx, void *ev, hs_error *err);
    /* Runs items [begin, end) of kernel c on the device of memory m
     * (host_side(m) is 0) once the nev events happened; returns when it
     * finished.  bufs are whole buffers on m. */
    int (*run)(void *ctx, int m, const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
               void *const *ev, int nev, hs_error *err);
    /* Waits for every copy and adds the asynchronous ones' durations. */
    int (*flush)(void *ctx, hs_error *err);
    void (*fini)(void *ctx);
} hs__mem_ops;

/* The cuda memory spaces for workload w (exec/cuda.c): validates the
 * mapping of gpu devices to CUDA devices (HS_EINPUT when the platform has
 * more gpu devices than CUDA finds, or a gpu device shares its memory),
 * makes each GPU's streams and kernel context.  device_memory > 0 caps
 * each GPU memory at that many bytes; 0 takes the device's free memory at
 * init minus HS__CUDA_MARGIN.  HS_ENOTBUILT without CUDA. */
#define HS__CUDA_MARGIN ((size_t)512 << 20)
int hs__mem_cuda_new(const hs_workload *w, size_t device_memory, const hs__mem_ops **ops,
                     void **ctx, hs_error *err);

#endif
