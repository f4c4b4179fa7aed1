/* Host time per launch of a tiny kernel, the way the cuda backend launches
 * it and with less (built only with CUDA; run by hand on a GPU machine):
 *
 *   launch_bench [--blocks B] [--tasks N] [--depth D]
 *
 * The kernel is the pi composition's (one cuRAND Philox draw per thread,
 * a block count per block of 256), on B blocks (32: pi-large's 8000 hits).
 * N launches on one stream, at most D in flight (the GPU worker's depth),
 * in six ways:
 *   alone, 2 events    cudaSetDevice, a start event, the kernel,
 *                      cudaGetLastError, an end event: exec/cuda.c's launch;
 *                      the same thread waits for the task D back
 *   alone, end event   the kernel and its end event only
 *   alone, kernel      the kernel only
 *   completer          as "alone, 2 events", while a second thread completes
 *                      each task in order as exec/cpu.c's completer does
 *                      (cudaEventSynchronize on its end, two
 *                      cudaEventElapsedTime) and the launcher waits for it
 *                      for room
 *   completer, blocking  the same with cudaEventBlockingSync events
 *   completer, end event the launcher records no start event
 * Prints each way's host time per launch call sequence (the launcher's),
 * the wall time per task, and where both events exist, the mean kernel
 * between them and how busy the GPU was over the last 256 kernels. */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <ctime>
#include <thread>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "bench_util.h"

#define CK(call) BENCH_CUDA_CHECK("launch_bench", call)

enum { RING = 256 };

__global__ void pi_kernel(unsigned *counts, unsigned long long seed, unsigned long long n)
{
    unsigned long long i = (unsigned long long)blockIdx.x * 256 + threadIdx.x;
    int hit = 0;
    if (i < n) {
        curandStatePhilox4_32_10_t st;
        curand_init(seed, 0, 4 * i, &st);
        uint4 r = curand4(&st);
        hit = (double)r.x * r.x + (double)r.y * r.y < 18446744073709551616.0;
    }
    hit = __syncthreads_count(hit);
    if (threadIdx.x == 0)
        counts[blockIdx.x] = (unsigned)hit;
}

static double now_us()
{
    return 1e6 * bench_clock_s(CLOCK_MONOTONIC);
}

struct bench {
    int blocks, tasks, depth;
    cudaStream_t s;
    unsigned *counts;
    cudaEvent_t anchor, start[RING], end[RING];
    std::atomic<long> launched{0}, completed{0};
};

enum way { ALONE2, ALONE1, ALONE0, COMP2, COMP_BLOCKING, COMP1, NWAYS };
static const char *const names[NWAYS] = {"alone, 2 events", "alone, end event", "alone, kernel",
                                         "completer", "completer, blocking",
                                         "completer, end event"};

static void complete(bench *b, int two)
{
    for (long i = 0; i < b->tasks; i++) {
        int k = (int)(i % RING);
        float ms;
        while (b->launched.load() <= i)
            ;
        CK(cudaEventSynchronize(b->end[k]));
        if (two)
            CK(cudaEventElapsedTime(&ms, b->anchor, b->start[k]));
        CK(cudaEventElapsedTime(&ms, b->anchor, b->end[k]));
        b->completed.store(i + 1);
    }
}

static void run(bench *b, int w)
{
    int threaded = w >= COMP2, starts = w == ALONE2 || w == COMP2 || w == COMP_BLOCKING;
    double host = 0, t0;
    std::thread c;
    unsigned flags = w == COMP_BLOCKING ? cudaEventBlockingSync : cudaEventDefault;
    for (int k = 0; k < RING; k++) {
        CK(cudaEventDestroy(b->start[k]));
        CK(cudaEventDestroy(b->end[k]));
        CK(cudaEventCreateWithFlags(&b->start[k], flags));
        CK(cudaEventCreateWithFlags(&b->end[k], flags));
    }
    CK(cudaStreamSynchronize(b->s));
    b->launched = 0;
    b->completed = 0;
    t0 = now_us();
    if (threaded)
        c = std::thread(complete, b, starts);
    for (long i = 0; i < b->tasks; i++) {
        int k = (int)(i % RING);
        unsigned *out = b->counts + (size_t)(i % b->depth) * (size_t)b->blocks;
        double a;
        if (i >= b->depth) { /* room: the task depth back has ended */
            if (threaded)
                while (b->completed.load() < i - b->depth + 1)
                    ;
            else if (w != ALONE0)
                while (cudaEventQuery(b->end[(i - b->depth) % RING]) == cudaErrorNotReady)
                    ;
        }
        a = now_us();
        if (w == ALONE2 || threaded)
            CK(cudaSetDevice(0));
        if (starts)
            CK(cudaEventRecord(b->start[k], b->s));
        pi_kernel<<<b->blocks, 256, 0, b->s>>>(out, (unsigned long long)i,
                                               (unsigned long long)b->blocks * 256);
        if (w == ALONE2 || threaded)
            CK(cudaGetLastError());
        if (w != ALONE0)
            CK(cudaEventRecord(b->end[k], b->s));
        host += now_us() - a;
        b->launched.store(i + 1);
    }
    if (threaded)
        c.join();
    CK(cudaStreamSynchronize(b->s));
    printf("%-22s host %6.2f us a launch, wall %6.2f us a task", names[w], host / b->tasks,
           (now_us() - t0) / b->tasks);
    if (starts && b->tasks >= RING) {
        float span, ms;
        double sum = 0;
        long first = b->tasks - RING;
        CK(cudaEventElapsedTime(&span, b->start[first % RING], b->end[(b->tasks - 1) % RING]));
        for (long i = first; i < b->tasks; i++) {
            CK(cudaEventElapsedTime(&ms, b->start[i % RING], b->end[i % RING]));
            sum += 1e3 * ms;
        }
        printf(", kernel %5.2f us between its events, GPU busy %3.0f%%", sum / RING,
               100 * sum / (1e3 * span));
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    bench *b = new bench;
    b->blocks = 32;
    b->tasks = 3000;
    b->depth = 4;
    for (int i = 1; i < argc; i++) {
        int *v = !strcmp(argv[i], "--blocks")  ? &b->blocks
                 : !strcmp(argv[i], "--tasks") ? &b->tasks
                 : !strcmp(argv[i], "--depth") ? &b->depth
                                               : NULL;
        unsigned long n = v && i + 1 < argc ? bench_number(argv[++i]) : 0;
        if (n < 1 || n > (v == &b->depth ? 16ul : (unsigned long)INT_MAX)) {
            fprintf(stderr, "usage: launch_bench [--blocks B] [--tasks N] [--depth D (1-16)]\n");
            return 2;
        }
        *v = (int)n;
    }
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
    CK(cudaMalloc(&b->counts, (size_t)b->depth * (size_t)b->blocks * sizeof(unsigned)));
    CK(cudaEventCreate(&b->anchor));
    for (int k = 0; k < RING; k++) {
        CK(cudaEventCreate(&b->start[k]));
        CK(cudaEventCreate(&b->end[k]));
    }
    CK(cudaEventRecord(b->anchor, b->s));
    for (int i = 0; i < 100; i++) /* warm-up */
        pi_kernel<<<b->blocks, 256, 0, b->s>>>(b->counts, (unsigned long long)i, 256ull);
    printf("%d launches of a %d-block kernel, at most %d in flight\n", b->tasks, b->blocks,
           b->depth);
    for (int w = 0; w < NWAYS; w++)
        run(b, w);
    return 0;
}
