/* hetsched — the hand-written CUDA kernels: the elementwise types, fblock
 * and pi.  Each launch is asynchronous on the context's stream; a launch
 * error is caught with cudaGetLastError, which does not synchronise.
 * Arithmetic matches the CPU versions operation for operation: __fmul_rn
 * and __fadd_rn forbid fusing where the CPU would round twice. */
#include <curand_kernel.h>

#include "workloads/kernels/cuda_int.h"

namespace {

const int threads = 256;

/* Blocks for n elements with a grid-stride loop: enough to fill any GPU,
 * never more than the grid allows. */
unsigned grid_for(size_t n)
{
    size_t blocks = (n + threads - 1) / threads;
    return (unsigned)(blocks < 65536 ? blocks : 65536);
}

__global__ void add_kernel(const float *a, const float *b, float *c, size_t begin, size_t end)
{
    for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < end;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = __fadd_rn(a[i], b[i]);
}

__global__ void increment_kernel(float *a, size_t begin, size_t end)
{
    for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < end;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = __fadd_rn(a[i], 1.0f);
}

__global__ void scale_kernel(const float *a, float *b, float s, size_t begin, size_t end)
{
    for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < end;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = __fmul_rn(s, a[i]);
}

/* y = a*x + b*y; with ratio 1 or 2, a or b is multiplied by num/den, read
 * from the device (written there by an earlier dot task). */
__global__ void axpy_kernel(const float *x, float *y, float alpha, float beta, int ratio,
                            const float *num, const float *den, size_t begin, size_t end)
{
    float a = alpha, b = beta;
    if (ratio) {
        float r = __fdiv_rn(*num, *den);
        if (ratio == 1)
            a = __fmul_rn(a, r);
        else
            b = __fmul_rn(b, r);
    }
    for (size_t i = begin + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < end;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = __fadd_rn(__fmul_rn(a, x[i]), __fmul_rn(b, y[i]));
}

/* fblock.c's 7-point average on a block of np planes of n x n, one thread
 * per point of planes [p0, p1). */
__global__ void fblock_kernel(const float *a, float *b, size_t np, size_t n, size_t p0,
                              size_t p1)
{
    size_t nn = n * n, total = (p1 - p0) * nn;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        size_t i = p0 + t / nn, j = t % nn / n, k = t % n;
        size_t im = i ? i - 1 : i, ip = i + 1 < np ? i + 1 : i;
        size_t jm = j ? j - 1 : j, jp = j + 1 < n ? j + 1 : j;
        size_t km = k ? k - 1 : k, kp = k + 1 < n ? k + 1 : k;
        float s = a[i * nn + j * n + k];
        s = __fadd_rn(s, a[im * nn + j * n + k]);
        s = __fadd_rn(s, a[ip * nn + j * n + k]);
        s = __fadd_rn(s, a[i * nn + jm * n + k]);
        s = __fadd_rn(s, a[i * nn + jp * n + k]);
        s = __fadd_rn(s, a[i * nn + j * n + km]);
        s = __fadd_rn(s, a[i * nn + j * n + kp]);
        b[i * nn + j * n + k] = __fdiv_rn(s, 7.0f);
    }
}

/* One block of HS_PI_BLOCK threads per work item, one sample per thread:
 * sample i is cuRAND Philox4_32_10 at offset 4 i of sequence 0 (counter
 * {lo(i), hi(i), 0, 0}), the same words pi.c computes on the CPU. */
__global__ void pi_kernel(unsigned *counts, unsigned long long seed, unsigned long long n,
                          size_t first)
{
    size_t b = first + blockIdx.x;
    unsigned long long i = (unsigned long long)b * HS_PI_BLOCK + threadIdx.x;
    int hit = 0;
    if (i < n) {
        curandStatePhilox4_32_10_t st;
        curand_init(seed, 0, 4 * i, &st);
        uint4 r = curand4(&st);
        hit = hs__kpi_hit(r.x, r.y);
    }
    hit = __syncthreads_count(hit);
    if (threadIdx.x == 0)
        counts[b] = (unsigned)hit;
}

int launched(const hs_kconf *c, hs_error *err)
{
    return hs__kcuda_ok(cudaGetLastError(), c, "kernel launch", err);
}

} // namespace

extern "C" {

int hs__kcuda_va(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                 hs_error *err)
{
    add_kernel<<<grid_for(end - begin), threads, 0, ctx->stream>>>(
        (const float *)d[0], (const float *)d[1], (float *)d[2], begin, end);
    return launched(c, err);
}

int hs__kcuda_matadd(const hs_kconf *c, void *const *d, size_t begin, size_t end,
                     hs_kcuda *ctx, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    return hs__kcuda_va(c, d, begin * n, end * n, ctx, err);
}

int hs__kcuda_increment(const hs_kconf *c, void *const *d, size_t begin, size_t end,
                        hs_kcuda *ctx, hs_error *err)
{
    increment_kernel<<<grid_for(end - begin), threads, 0, ctx->stream>>>((float *)d[0], begin,
                                                                         end);
    return launched(c, err);
}

int hs__kcuda_scale(const hs_kconf *c, void *const *d, size_t begin, size_t end,
                    hs_kcuda *ctx, hs_error *err)
{
    scale_kernel<<<grid_for(end - begin), threads, 0, ctx->stream>>>(
        (const float *)d[0], (float *)d[1], (float)c->p[1], begin, end);
    return launched(c, err);
}

int hs__kcuda_axpy(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                   hs_error *err)
{
    int ratio = (int)c->p[HS_KAXPY_RATIO];
    axpy_kernel<<<grid_for(end - begin), threads, 0, ctx->stream>>>(
        (const float *)d[0], (float *)d[1], (float)c->p[HS_KAXPY_ALPHA],
        (float)c->p[HS_KAXPY_BETA], ratio,
        ratio ? (const float *)d[2] : NULL, ratio ? (const float *)d[3] : NULL, begin, end);
    return launched(c, err);
}

int hs__kcuda_fblock(const hs_kconf *c, void *const *d, size_t begin, size_t end,
                     hs_kcuda *ctx, hs_error *err)
{
    size_t n = (size_t)c->p[0];
    fblock_kernel<<<grid_for((end - begin) * n * n), threads, 0, ctx->stream>>>(
        (const float *)d[0], (float *)d[1], c->items, n, begin, end);
    return launched(c, err);
}

int hs__kcuda_pi(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                 hs_error *err)
{
    const size_t max_grid = (size_t)1 << 30;
    int rc = 0;
    for (size_t b = begin; b < end && rc == 0; b += max_grid) {
        size_t nb = end - b < max_grid ? end - b : max_grid;
        pi_kernel<<<(unsigned)nb, HS_PI_BLOCK, 0, ctx->stream>>>(
            (unsigned *)d[0], (unsigned long long)c->seed, (unsigned long long)c->p[0], b);
        rc = launched(c, err);
    }
    return rc;
}

} // extern "C"
