/* hetsched benchmarks — the few helpers every benchmark program uses: a
 * clock, a command-line number, a median, a CUDA call's check.
 * Header-only: each benchmark is one executable, and starpu_overhead links
 * nothing of hetsched. */
#ifndef HS_BENCH_UTIL_H
#define HS_BENCH_UTIL_H

#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on `clock` (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...). */
static inline double bench_clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A whole number >= 1 from s, or 0 if it is not one. */
static inline unsigned long bench_number(const char *s)
{
    char *end;
    unsigned long v;
    if (!s[0] || s[0] == '-' || s[0] == '+')
        return 0;
    errno = 0;
    v = strtoul(s, &end, 10);
    return errno || *end ? 0 : v;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Exits with status 1, naming program `prog` and the call, when CUDA call
 * `call` fails (the CUDA benchmarks, which include cuda_runtime.h). */
#define BENCH_CUDA_CHECK(prog, call)                                                     \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s: %s failed: %s\n", prog, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#endif
