/* hetsched — the GPU half of real splits (exec/split_real.h): pinned host
 * memory, a whole-size copy of every buffer on the device, and per chunk
 * pieces whose input copies, kernels and output copies run on three streams
 * so that they overlap (copy in on one copy engine, out on the other).
 *
 * Between chunks the engines would idle: the device waits for its next
 * chunk's first input copy (the fill) and the last output copy of its
 * chunk (the drain), about 0.3 ms a chunk of gemm rows on an H200, which
 * HDSS's half a dozen chunks made a few percent of the kernel.  So (1) a
 * chunk ends, for the splitter, when
 * its last kernel ends: its last output copy overlaps the next chunk and
 * hs__split_gpu_drain waits for it after the device's last chunk (the
 * driver counts that wait in the device's finish time); (2) after its last
 * input copy a chunk copies in the inputs of the next width of items
 * (speculatively: a self-scheduled device usually gets the items that
 * follow its own, from the pool's global pointer), and a chunk whose first
 * piece lies in them skips that copy.  A wrong guess (another device took
 * those items) costs a piece's copy, which the next chunk's first copy
 * waits behind: so a device guesses only while its chunks follow each
 * other (its first chunk, and any that began where the one before ended).
 * Only read-only inputs are copied ahead (an in-place buffer's slice may
 * still hold a result on its way out). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "exec/split_real.h"
#include "workloads/kernels/cuda_int.h"

struct hs__split_gpu {
    const hs_kconf *c;
    int device;
    hs_kcuda *ctx;
    cudaStream_t in, run, out;
    cudaEvent_t in_done[HS_SPLIT_REAL_PIECES], run_done[HS_SPLIT_REAL_PIECES];
    int nevents;
    void *d[HS_KMAX_BUFS];
    size_t ahead_b, ahead_e;  /* inputs of [ahead_b, ahead_e) copied ahead */
    size_t last_e;            /* end of the last chunk; SIZE_MAX: none since the drain */
};

/* 0, or HS_EIO naming the device and the call (hs__cuda_ok). */
static int ok(cudaError_t e, int device, const char *call, hs_error *err)
{
    char who[24];
    if (e == cudaSuccess)
        return HS_OK;
    snprintf(who, sizeof who, "gpu%d", device);
    return hs__cuda_ok(e, who, call, err);
}

void *hs__split_host_alloc(size_t bytes, int pinned)
{
    void *p = NULL;
    if (!pinned)
        return malloc(bytes ? bytes : 1);
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

void hs__split_host_free(void *p, int pinned)
{
    if (pinned && p)
        cudaFreeHost(p);
    else
        free(p);
}

int hs__split_gpu_sms(int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

int hs__split_gpu_open(const hs_kconf *c, int cuda_device, hs__split_gpu **out, hs_error *err)
{
    hs__split_gpu *g = calloc(1, sizeof *g);
    int rc;
    *out = NULL;
    if (!g)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    g->c = c;
    g->device = cuda_device;
    g->last_e = SIZE_MAX;
    if ((rc = hs_kcuda_new(cuda_device, &g->ctx, err)) != HS_OK) {
        free(g);
        return rc;
    }
    if ((rc = ok(cudaStreamCreateWithFlags(&g->in, cudaStreamNonBlocking), cuda_device,
                 "cudaStreamCreate", err)) != HS_OK ||
        (rc = ok(cudaStreamCreateWithFlags(&g->run, cudaStreamNonBlocking), cuda_device,
                 "cudaStreamCreate", err)) != HS_OK ||
        (rc = ok(cudaStreamCreateWithFlags(&g->out, cudaStreamNonBlocking), cuda_device,
                 "cudaStreamCreate", err)) != HS_OK)
        goto fail;
    for (; g->nevents < HS_SPLIT_REAL_PIECES; g->nevents++) {
        int i = g->nevents;
        if ((rc = ok(cudaEventCreateWithFlags(&g->in_done[i], cudaEventDisableTiming),
                     cuda_device, "cudaEventCreate", err)) != HS_OK)
            goto fail;
        if ((rc = ok(cudaEventCreateWithFlags(&g->run_done[i], cudaEventDisableTiming),
                     cuda_device, "cudaEventCreate", err)) != HS_OK) {
            cudaEventDestroy(g->in_done[i]);
            goto fail;
        }
    }
    for (int i = 0; i < c->nbufs; i++)
        if ((rc = ok(cudaMalloc(&g->d[i], c->bufs[i].bytes ? c->bufs[i].bytes : 1),
                     cuda_device, "cudaMalloc", err)) != HS_OK)
            goto fail;
    *out = g;
    return HS_OK;
fail:
    hs__split_gpu_close(g);
    return rc;
}

void hs__split_gpu_close(hs__split_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    for (int i = 0; i < g->c->nbufs; i++)
        if (g->d[i])
            cudaFree(g->d[i]);
    for (int i = 0; i < g->nevents; i++) {
        cudaEventDestroy(g->in_done[i]);
        cudaEventDestroy(g->run_done[i]);
    }
    if (g->in)
        cudaStreamDestroy(g->in);
    if (g->run)
        cudaStreamDestroy(g->run);
    if (g->out)
        cudaStreamDestroy(g->out);
    hs_kcuda_free(g->ctx);
    free(g);
}

/* Waits for the compute and output streams and, with all = 1, for the
 * input stream (inputs copied ahead may still be on their way); the first
 * error, or rc when set already. */
static int settle(hs__split_gpu *g, int all, int rc, hs_error *err)
{
    cudaStream_t s[3] = {g->run, g->out, g->in};
    for (int i = 0; i < 2 + all; i++) {
        int r = ok(cudaStreamSynchronize(s[i]), g->device, "cudaStreamSynchronize",
                   rc ? NULL : err);
        if (rc == HS_OK)
            rc = r;
    }
    return rc;
}

int hs__split_gpu_prep(hs__split_gpu *g, void *const *in, hs_error *err)
{
    const hs_kconf *c = g->c;
    int rc;
    if ((rc = ok(cudaSetDevice(g->device), g->device, "cudaSetDevice", err)) != HS_OK)
        return rc;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if (c->type->whole_bufs & (1u << i))
            rc = ok(cudaMemcpyAsync(g->d[i], in[i], c->bufs[i].bytes, cudaMemcpyHostToDevice,
                                    g->in),
                    g->device, "cudaMemcpyAsync", err);
    return settle(g, 1, rc, err);
}

/* Copies the slices of [b, e) of the buffers with any of `modes` (whole
 * buffers left out) between host and device on stream s. */
static int copy_slices(hs__split_gpu *g, void *const *host, size_t b, size_t e, int modes,
                       int to_device, cudaStream_t s, hs_error *err)
{
    const hs_kconf *c = g->c;
    int rc;
    for (int i = 0; i < c->nbufs; i++) {
        size_t off, len;
        if (!(c->bufs[i].mode & modes) || (c->type->whole_bufs & (1u << i)))
            continue;
        hs_kspan(c, i, b, e, &off, &len);
        if (len == 0)
            continue;
        rc = to_device ? ok(cudaMemcpyAsync((char *)g->d[i] + off, (char *)host[i] + off, len,
                                            cudaMemcpyHostToDevice, s),
                            g->device, "cudaMemcpyAsync", err)
                       : ok(cudaMemcpyAsync((char *)host[i] + off, (char *)g->d[i] + off, len,
                                            cudaMemcpyDeviceToHost, s),
                            g->device, "cudaMemcpyAsync", err);
        if (rc != HS_OK)
            return rc;
    }
    return HS_OK;
}

/* 1 when no buffer cut by items is updated in place: only then may the
 * inputs of items be copied ahead (see the header comment). */
static int may_copy_ahead(const hs_kconf *c)
{
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].mode == HS_KRW && !(c->type->whole_bufs & (1u << i)))
            return 0;
    return 1;
}

int hs__split_gpu_chunk(hs__split_gpu *g, void *const *in, void *const *out, size_t b, size_t e,
                        size_t width, hs_error *err)
{
    const hs_kconf *c = g->c;
    size_t at[HS_SPLIT_REAL_PIECES + 1], np = hs__split_gpu_pieces(c, e - b, width, at);
    int rc, follows;
    if ((rc = ok(cudaSetDevice(g->device), g->device, "cudaSetDevice", err)) != HS_OK)
        return rc;
    for (size_t p = 0; p < np && rc == HS_OK; p++) {
        size_t pb = b + at[p], pe = b + at[p + 1];
        /* the in stream is in order: a piece copied ahead is there by the
         * time in_done is reached */
        int ahead = p == 0 && pb == g->ahead_b && pe <= g->ahead_e;
        if ((!ahead && (rc = copy_slices(g, in, pb, pe, HS_KREAD, 1, g->in, err)) != HS_OK) ||
            (rc = ok(cudaEventRecord(g->in_done[p], g->in), g->device, "cudaEventRecord",
                     err)) != HS_OK ||
            (rc = ok(cudaStreamWaitEvent(g->run, g->in_done[p], 0), g->device,
                     "cudaStreamWaitEvent", err)) != HS_OK ||
            (rc = hs_krun_cuda(c, g->d, pb, pe, g->ctx, g->run, err)) != HS_OK ||
            (rc = ok(cudaEventRecord(g->run_done[p], g->run), g->device, "cudaEventRecord",
                     err)) != HS_OK ||
            (rc = ok(cudaStreamWaitEvent(g->out, g->run_done[p], 0), g->device,
                     "cudaStreamWaitEvent", err)) != HS_OK)
            break;
        rc = copy_slices(g, out, pb, pe, HS_KWRITE, 0, g->out, err);
    }
    g->ahead_b = g->ahead_e = 0;
    follows = g->last_e == SIZE_MAX || g->last_e == b;
    g->last_e = e;
    if (rc == HS_OK && follows && e < c->items && may_copy_ahead(c)) {
        size_t ae = e + width < c->items ? e + width : c->items;
        if ((rc = copy_slices(g, in, e, ae, HS_KREAD, 1, g->in, err)) == HS_OK) {
            g->ahead_b = e;
            g->ahead_e = ae;
        }
    }
    if (rc != HS_OK)
        return settle(g, 1, rc, err);
    /* the last kernel: its output copy goes on behind the next chunk */
    return ok(cudaStreamSynchronize(g->run), g->device, "cudaStreamSynchronize", err);
}

int hs__split_gpu_drain(hs__split_gpu *g, hs_error *err)
{
    int rc = ok(cudaSetDevice(g->device), g->device, "cudaSetDevice", err);
    g->ahead_b = g->ahead_e = 0; /* a copy ahead may go on: the next prep waits */
    g->last_e = SIZE_MAX;
    return settle(g, 0, rc, err);
}
