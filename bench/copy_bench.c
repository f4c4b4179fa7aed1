/* Copy bandwidth of the cuda backend against plain cudaMemcpyAsync, in one
 * process (built only with CUDA):
 *
 *   copy_bench [--mib M] [--copies N]
 *
 * The executor: N instances of prod -> mid -> back on cpu0 + gpu0 (HEFT
 * puts prod and back, 100x cheaper there, on cpu0 and mid on gpu0), each
 * result M MiB (default 64), so each instance copies M MiB host -> gpu0
 * (prod's result, from pinned host memory) and M MiB gpu0 -> host (mid's);
 * its bandwidth is the bytes over the copies' event-timed durations, as
 * the run's report counts them.  The plain loop: N cudaMemcpyAsync of M
 * MiB between a pinned host buffer and a device buffer on one stream,
 * timed with events around the loop, after one copy of warm-up.  Prints
 * both and their ratio per direction (the goal: >= 0.9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench_util.h"
#include "exec/data.h"
#include "exec/engine.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"

#define CK(call) BENCH_CUDA_CHECK("copy_bench", call)

static void die(const hs_error *err)
{
    fprintf(stderr, "copy_bench: %s\n", err->msg);
    exit(1);
}

static void kernel(hs_workload *w, int app, const char *name, const char *type, double n,
                   double cpu_us, double gpu_us)
{
    hs_error err = {0};
    int k = hs_app_add_kernel(w, app, name, &err);
    if (k < 0 || hs_kernel_set_type(w, app, k, type, &err) != 0 ||
        hs_kernel_add_param(w, app, k, "n", n, &err) != 0 ||
        hs_kernel_set_cost(w, app, k, "cpu", cpu_us, &err) != 0 ||
        hs_kernel_set_cost(w, app, k, "gpu", gpu_us, &err) != 0)
        die(&err);
}

/* GB/s of the executor's copies, host -> gpu0 in [0], gpu0 -> host in [1]. */
static void executor(size_t mib, int copies, double gbps[2])
{
    hs_workload *w = hs_workload_new();
    hs_run_report r = {0};
    hs_backend b = {.ops = &hs_backend_cuda, .state = &r};
    hs_map_options opt = {0};
    hs_schedule *s = NULL;
    hs_error err = {0};
    double n = (double)(mib << 20) / 4, bytes = (double)(mib << 20);
    int a;
    if (hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) < 0 ||
        hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) < 0 ||
        hs_platform_add_link(w, "host", "gpu0", 25, 10, &err) < 0 ||
        hs_platform_add_link(w, "gpu0", "host", 25, 10, &err) < 0 ||
        (a = hs_workload_add_app(w, "xfer", copies, &err)) < 0)
        die(&err);
    kernel(w, a, "prod", "va", n, 100, 10000);
    kernel(w, a, "mid", "scale", n, 10000, 100);
    kernel(w, a, "back", "increment", n, 100, 10000);
    if (hs_app_add_edge(w, a, "prod", "mid", bytes, &err) < 0 ||
        hs_app_add_edge(w, a, "mid", "back", bytes, &err) < 0 ||
        hs_workload_finalize(w, &err) != 0 ||
        hs_engine_run(w, hs_policy_find("heft"), &opt, &b, &s, NULL, &err) != 0)
        die(&err);
    if (r.checked != r.typed) {
        fprintf(stderr, "copy_bench: %zu of %zu kernels checked\n", r.checked, r.typed);
        exit(1);
    }
    for (int k = 0; k < 2; k++) {
        int link = k ? 1 * 2 + 0 : 0 * 2 + 1;
        if (r.link_copies[link] != (size_t)copies) {
            fprintf(stderr, "copy_bench: %zu copies %s, expected %d\n", r.link_copies[link],
                    k ? "gpu0 -> host" : "host -> gpu0", copies);
            exit(1);
        }
        gbps[k] = r.link_bytes[link] / r.link_us[link] / 1e3;
    }
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* GB/s of `copies` back-to-back cudaMemcpyAsync on pinned memory. */
static void plain(size_t mib, int copies, double gbps[2])
{
    size_t bytes = mib << 20;
    void *h, *d;
    cudaStream_t st;
    cudaEvent_t e0, e1;
    CK(cudaSetDevice(0));
    CK(cudaHostAlloc(&h, bytes, cudaHostAllocPortable));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int k = 0; k < 2; k++) {
        float ms = 0;
        void *dst = k ? h : d, *src = k ? d : h;
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st)); /* warm-up */
        CK(cudaEventRecord(e0, st));
        for (int i = 0; i < copies; i++)
            CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        gbps[k] = (double)bytes * copies / (1e-3 * ms) / 1e9;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaStreamDestroy(st));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
}

int main(int argc, char **argv)
{
    size_t mib = 64;
    int copies = 8;
    double ex[2], pl[2];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
            mib = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc) {
            copies = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: copy_bench [--mib M] [--copies N]\n");
            return 2;
        }
    }
    if (mib == 0 || copies <= 0) {
        fprintf(stderr, "copy_bench: --mib and --copies want numbers > 0\n");
        return 2;
    }
    if (hs_cuda_device_count() == 0) {
        fprintf(stderr, "copy_bench: no CUDA device\n");
        return 77;
    }
    plain(mib, copies, pl);
    executor(mib, copies, ex);
    printf("%zu MiB copies, %d per direction\n", mib, copies);
    printf("direction      executor GB/s  plain GB/s  ratio\n");
    for (int k = 0; k < 2; k++)
        printf("%-14s %13.2f %11.2f %6.3f\n", k ? "device->host" : "host->device", ex[k], pl[k],
               ex[k] / pl[k]);
    return 0;
}
