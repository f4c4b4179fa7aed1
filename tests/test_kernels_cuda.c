/* Tests of the CUDA kernels (workloads/kernels/) on a real GPU: every type
 * and variant of kernels_fixture.h against its CPU reference, halves
 * against the whole run, and the context's refusals.  Exits 77 (skipped)
 * when cudaGetDeviceCount finds no device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "tests/kernels_fixture.h"

#define CK(call) assert_int_equal((call), cudaSuccess)

static hs_kcuda *ctx;
static cudaStream_t stream;

static int setup(void **state)
{
    hs_error err = {0};
    (void)state;
    if (hs_kcuda_new(0, &ctx, &err) != 0) {
        fprintf(stderr, "hs_kcuda_new: %s\n", err.msg);
        return -1;
    }
    return cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cudaStreamDestroy(stream);
    hs_kcuda_free(ctx);
    return 0;
}

typedef struct dbufs {
    void *b[HS_KMAX_BUFS];
} dbufs;

/* cudaMemcpy from pageable memory may return before its DMA reaches the
 * device, and the legacy stream does not order the kernels of a
 * non-blocking stream after it: the device is synchronized before a kernel
 * may run (a pi run once found 115 of its counts overwritten by the tail of
 * its input's 0xff bytes on the H100). */
static void to_device(const hs_kconf *c, dbufs *d, const hbufs *h)
{
    for (int i = 0; i < c->nbufs; i++) {
        CK(cudaMalloc(&d->b[i], c->bufs[i].bytes));
        CK(cudaMemcpy(d->b[i], h->b[i], c->bufs[i].bytes, cudaMemcpyHostToDevice));
    }
    CK(cudaDeviceSynchronize());
}

static void to_host(const hs_kconf *c, hbufs *h, dbufs *d)
{
    for (int i = 0; i < c->nbufs; i++) {
        CK(cudaMemcpy(h->b[i], d->b[i], c->bufs[i].bytes, cudaMemcpyDeviceToHost));
        CK(cudaFree(d->b[i]));
    }
}

/* Runs [begin, end) then, when not empty, [begin2, end2) on the GPU, from
 * `in` into `out`; returns the GPU time of the two runs in ms (events). */
static float run_gpu(const hs_kconf *c, const hbufs *in, hbufs *out, size_t begin, size_t end,
                     size_t begin2, size_t end2)
{
    hs_error err = {0};
    cudaEvent_t ev[2];
    float ms = 0;
    dbufs d;
    to_device(c, &d, in);
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    CK(cudaEventRecord(ev[0], stream));
    if (hs_krun_cuda(c, d.b, begin, end, ctx, stream, &err) != 0 ||
        (begin2 < end2 && hs_krun_cuda(c, d.b, begin2, end2, ctx, stream, &err) != 0))
        fail_msg("%s", err.msg);
    CK(cudaEventRecord(ev[1], stream));
    CK(cudaStreamSynchronize(stream));
    CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    CK(cudaEventDestroy(ev[0]));
    CK(cudaEventDestroy(ev[1]));
    to_host(c, out, &d);
    return ms;
}

/* Every case on the GPU passes the CPU reference check; types whose result
 * is exact (tolerance 0: elementwise, fblock, pi) give the CPU's bytes; the
 * halves pass the check too, and give the whole run's bytes for the
 * hand-written kernels (cuBLAS may pick another algorithm for fewer rows). */
static void every_type_on_gpu(void **state)
{
    (void)state;
    for (size_t t = 0; t < NCASES; t++) {
        const char *type = kernel_cases[t][0], *spec = kernel_cases[t][1];
        hs_kconf c;
        hs_error err = {0};
        hs_kcheck_result res;
        hbufs before, cpu, gpu, half;
        assert_int_equal(conf_from(&c, type, spec, &err), 0);
        c.seed = 7 + t;
        hbufs_alloc(&c, &before);
        hbufs_alloc(&c, &cpu);
        hbufs_alloc(&c, &gpu);
        hbufs_alloc(&c, &half);
        hs_kfill(&c, before.b);
        hbufs_copy(&c, &cpu, &before);
        assert_int_equal(hs_krun_cpu(&c, cpu.b, 0, c.items, 1, &err), 0);
        run_gpu(&c, &before, &gpu, 0, c.items, 0, 0);
        if (hs_kcheck(&c, (const void *const *)before.b, (const void *const *)gpu.b, &res,
                      &err))
            fail_msg("%s %s on the GPU: %s", type, spec, err.msg);
        if (res.tolerance == 0 || strcmp(type, "pi") == 0)
            if (!hbufs_same(&c, &cpu, &gpu))
                fail_msg("%s %s: GPU bytes differ from the CPU's", type, spec);
        if (c.splittable) {
            run_gpu(&c, &before, &half, c.items / 2, c.items, 0, c.items / 2);
            if (hs_kcheck(&c, (const void *const *)before.b, (const void *const *)half.b, &res,
                          &err))
                fail_msg("%s %s in halves on the GPU: %s", type, spec, err.msg);
            if (!c.type->blas && !hbufs_same(&c, &half, &gpu))
                fail_msg("%s %s: GPU halves differ from the GPU whole", type, spec);
        }
        hbufs_free(&c, &before);
        hbufs_free(&c, &cpu);
        hbufs_free(&c, &gpu);
        hbufs_free(&c, &half);
    }
}

/* Larger sizes, where cuBLAS and the grid-stride loops take other paths. */
static void larger_sizes_on_gpu(void **state)
{
    static const char *const cases[][2] = {
        {"gemm", "n=1024"}, {"potrf", "n=1024"}, {"trsm", "n=512,m=768"},
        {"syrk", "n=512,k=256"}, {"va", "n=20000000"}, {"fblock", "n=128"},
        {"pi", "hits=10000000"}, {"dot", "n=1000000"}, {"gemv", "n=2048,m=1000"},
    };
    (void)state;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        hs_kconf c;
        hs_error err = {0};
        hs_kcheck_result res;
        hbufs before, gpu;
        float ms;
        assert_int_equal(conf_from(&c, cases[t][0], cases[t][1], &err), 0);
        hbufs_alloc(&c, &before);
        hbufs_alloc(&c, &gpu);
        hs_kfill(&c, before.b);
        run_gpu(&c, &before, &gpu, 0, c.items, 0, 0); /* warm-up: handles, modules */
        ms = run_gpu(&c, &before, &gpu, 0, c.items, 0, 0);
        if (hs_kcheck(&c, (const void *const *)before.b, (const void *const *)gpu.b, &res,
                      &err))
            fail_msg("%s %s on the GPU: %s", cases[t][0], cases[t][1], err.msg);
        /* information only, never asserted */
        printf("%-7s %-14s %9.3f ms on the GPU; checked %zu, largest error %.3g (tolerance "
               "%.3g)\n", cases[t][0], cases[t][1], ms, res.checked, res.err, res.tolerance);
        hbufs_free(&c, &before);
        hbufs_free(&c, &gpu);
    }
}

static void refusals(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    hs_kcuda *other = NULL;
    int n = 0;
    (void)state;
    CK(cudaGetDeviceCount(&n));
    /* compute-sanitizer would count this deliberate API error as a finding */
    if (!getenv("HS_COMPUTE_SANITIZER")) {
        assert_int_equal(hs_kcuda_new(n, &other, &err), HS_EIO);
        assert_non_null(strstr(err.msg, "cudaSetDevice"));
    }
    assert_int_equal(conf_from(&c, "dot", "n=10", &err), 0);
    assert_int_equal(hs_krun_cuda(&c, (void *[]){NULL, NULL, NULL}, 0, 0, ctx, stream, &err),
                     HS_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_type_on_gpu),
        cmocka_unit_test(larger_sizes_on_gpu),
        cmocka_unit_test(refusals),
    };
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("no CUDA device (%s): skipped\n", e != cudaSuccess ? cudaGetErrorName(e) : "0");
        return 77;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}
