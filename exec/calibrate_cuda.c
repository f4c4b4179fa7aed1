/* hetsched — calibration's CUDA part (exec/calibrate.h): kernels timed with
 * events on one stream, copies timed as a plain cudaMemcpyAsync loop on
 * pinned host memory, GPU pairs with peer copies.  Part of the CUDA module
 * (exec/cuda_module.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/calibrate.h"
#include "workloads/kernels/cuda_int.h"

struct hs__calib_gpu {
    int dev;
    hs_kcuda *k;              /* cuBLAS and cuSOLVER handles */
    cudaStream_t stream;
    cudaEvent_t ev[2];
};

#define CK(call, what)                                             \
    do {                                                           \
        if ((rc = hs__kcuda_ok((call), NULL, (what), err)) != 0)   \
            goto out;                                              \
    } while (0)

int hs__calib_gpu_count(char *why, size_t size)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, size, "no GPU found: cudaGetDeviceCount: %s", cudaGetErrorString(e));
        return 0;
    }
    if (n == 0)
        snprintf(why, size, "no GPU found");
    else
        why[0] = '\0';
    return n;
}

int hs__calib_gpu_open(int dev, hs__calib_gpu **out, hs_error *err)
{
    hs__calib_gpu *g = calloc(1, sizeof *g);
    int rc = 0;
    *out = NULL;
    if (!g)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    g->dev = dev;
    if ((rc = hs_kcuda_new(dev, &g->k, err)) != 0) {
        free(g);
        return rc;
    }
    CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    CK(cudaEventCreate(&g->ev[0]), "cudaEventCreate");
    CK(cudaEventCreate(&g->ev[1]), "cudaEventCreate");
    *out = g;
    return 0;
out:
    hs__calib_gpu_close(g);
    return rc;
}

void hs__calib_gpu_close(hs__calib_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->dev);
    if (g->ev[1])
        cudaEventDestroy(g->ev[1]);
    if (g->ev[0])
        cudaEventDestroy(g->ev[0]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    hs_kcuda_free(g->k);
    free(g);
}

void hs__calib_gpu_describe(const hs__calib_gpu *g, char *buf, size_t size)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, g->dev) != cudaSuccess) {
        snprintf(buf, size, "CUDA device %d", g->dev);
        return;
    }
    snprintf(buf, size, "%s, %.1f GiB, compute capability %d.%d", p.name,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.major, p.minor);
}

size_t hs__calib_gpu_free_bytes(const hs__calib_gpu *g)
{
    size_t free_b = 0, total = 0;
    if (cudaSetDevice(g->dev) != cudaSuccess || cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        return 0;
    return free_b;
}

/* Elapsed µs between g's two events, once the second has happened. */
static int elapsed_us(hs__calib_gpu *g, double *us, hs_error *err)
{
    float ms = 0;
    int rc;
    CK(cudaEventSynchronize(g->ev[1]), "cudaEventSynchronize");
    CK(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]), "cudaEventElapsedTime");
    *us = 1000.0 * ms;
out:
    return rc;
}

int hs__calib_gpu_kernel(hs__calib_gpu *g, const hs_kconf *c, void *const *hbufs, size_t b,
                         size_t e, int reps, double *us, hs_error *err)
{
    void *d[HS_KMAX_BUFS] = {0};
    int rc = 0;
    CK(cudaSetDevice(g->dev), "cudaSetDevice");
    for (int i = 0; i < c->nbufs; i++) {
        size_t bytes = c->bufs[i].bytes ? c->bufs[i].bytes : 1;
        CK(cudaMalloc(&d[i], bytes), "cudaMalloc");
        CK(cudaMemcpy(d[i], hbufs[i], c->bufs[i].bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    /* a pageable cudaMemcpy may return before its DMA lands, and the legacy
     * stream does not order g->stream's kernels after it */
    CK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    /* warm-up: module loading, cuBLAS workspaces, the first touch */
    if ((rc = hs_krun_cuda(c, d, b, e, g->k, g->stream, err)) != 0)
        goto out;
    CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
    for (int r = 0; r < reps; r++) {
        /* inputs updated in place start again from the host's values,
         * before the first event: untimed */
        for (int i = 0; i < c->nbufs; i++)
            if (c->bufs[i].mode == HS_KRW)
                CK(cudaMemcpyAsync(d[i], hbufs[i], c->bufs[i].bytes, cudaMemcpyHostToDevice,
                                   g->stream), "cudaMemcpyAsync");
        CK(cudaEventRecord(g->ev[0], g->stream), "cudaEventRecord");
        if ((rc = hs_krun_cuda(c, d, b, e, g->k, g->stream, err)) != 0)
            goto out;
        CK(cudaEventRecord(g->ev[1], g->stream), "cudaEventRecord");
        if ((rc = elapsed_us(g, &us[r], err)) != 0)
            goto out;
    }
out:
    if (rc != 0)
        cudaStreamSynchronize(g->stream);
    for (int i = 0; i < c->nbufs; i++)
        cudaFree(d[i]);
    return rc;
}

/* Lets a and b reach each other's memory when the hardware allows it; 1
 * if it does. */
static int enable_peer(int a, int b)
{
    int ab = 0, ba = 0;
    if (cudaDeviceCanAccessPeer(&ab, a, b) != cudaSuccess ||
        cudaDeviceCanAccessPeer(&ba, b, a) != cudaSuccess || !ab || !ba)
        return 0;
    for (int k = 0; k < 2; k++) {
        cudaError_t e;
        cudaSetDevice(k ? b : a);
        e = cudaDeviceEnablePeerAccess(k ? a : b, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            cudaGetLastError(); /* clear it: already enabled is what we want */
        else if (e != cudaSuccess)
            return 0;
    }
    return 1;
}

int hs__calib_copy(hs__calib_gpu *src, hs__calib_gpu *dst, size_t bytes, int loop, int reps,
                   double *us, int *direct, hs_error *err)
{
    hs__calib_gpu *g = src ? src : dst; /* whose stream and events time it */
    void *from = NULL, *to = NULL;
    int rc = 0;
    if (!g)
        return hs_error_set(err, HS_EINTERNAL, "calibrate: a copy needs a GPU side");
    *direct = src && dst ? enable_peer(src->dev, dst->dev) : 1;
    if (src) {
        CK(cudaSetDevice(src->dev), "cudaSetDevice");
        CK(cudaMalloc(&from, bytes), "cudaMalloc");
        CK(cudaMemset(from, 1, bytes), "cudaMemset");
    } else {
        CK(cudaMallocHost(&from, bytes), "cudaMallocHost");
        memset(from, 1, bytes);
    }
    if (dst) {
        CK(cudaSetDevice(dst->dev), "cudaSetDevice");
        CK(cudaMalloc(&to, bytes), "cudaMalloc");
    } else {
        CK(cudaMallocHost(&to, bytes), "cudaMallocHost");
    }
    CK(cudaSetDevice(g->dev), "cudaSetDevice");
    for (int r = -1; r < reps; r++) { /* r == -1: warm-up, untimed */
        CK(cudaEventRecord(g->ev[0], g->stream), "cudaEventRecord");
        for (int k = 0; k < loop; k++) {
            if (src && dst)
                CK(cudaMemcpyPeerAsync(to, dst->dev, from, src->dev, bytes, g->stream),
                   "cudaMemcpyPeerAsync");
            else
                CK(cudaMemcpyAsync(to, from, bytes,
                                   src ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
                                   g->stream), "cudaMemcpyAsync");
        }
        CK(cudaEventRecord(g->ev[1], g->stream), "cudaEventRecord");
        if (r >= 0) {
            if ((rc = elapsed_us(g, &us[r], err)) != 0)
                goto out;
            us[r] /= loop;
        } else {
            CK(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
        }
    }
out:
    cudaSetDevice(g->dev);
    cudaStreamSynchronize(g->stream);
    if (src) {
        cudaSetDevice(src->dev);
        cudaFree(from);
    } else {
        cudaFreeHost(from);
    }
    if (dst) {
        cudaSetDevice(dst->dev);
        cudaFree(to);
    } else {
        cudaFreeHost(to);
    }
    return rc;
}
