/* hetsched — what a real split costs per chunk when the chunks do no work.
 *
 *   build/bench/split_overhead [--items N] [--chunks C] [--devices D]
 *                              [--threads T] [--calls K] [--runs R]
 *
 * 1. The driver (exec/split_drive.h): `fixed` hands N items out in C
 *    chunks to D device threads whose run() returns at once.  Printed: the
 *    median over R runs of the mean gap between two chunks of one device
 *    (asking, reporting, the driver's bookkeeping), in µs.  It had grown
 *    with the chunk size (a bitmap of items): 5.6 to 9.6 µs for the 84k
 *    items of the defaults on a 16-core H200 host, now 0.2 µs.
 * 2. The CPU kernels (hs_krun_cpu): a vector add of T * 65536 elements
 *    (one grain a thread) on T threads, K calls, beside the same on one
 *    thread.  Printed: µs per call, medians of R runs; with T threads the
 *    parts go to T - 1 helper threads (started once, kept between calls).
 *    On that host, T = 14: 86 to 93 µs a call, against 556 to 692 µs when
 *    every call started its threads (slower than one thread, 453 to 531).
 *
 * Defaults: N = 16777216, C = 200, D = 1, T = 2, K = 200, R = 5.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_util.h"
#include "exec/split_drive.h"
#include "hetsched/hetsched.h"
#include "workloads/kernels/kernel.h"

#define MAX_RUNS 101

static int run_nothing(void *user, int d, size_t b, size_t e, int aside)
{
    (void)user, (void)d, (void)b, (void)e, (void)aside;
    return 0;
}

/* Mean gap between consecutive chunks of one device, µs; < 0 on error. */
static double driver_gap(size_t items, size_t chunks, int ndev)
{
    hs_split_device dev[HS_SPLIT_MAX_DEVICES];
    hs_split_kernel k = {.name = "nothing", .items = items};
    hs_split_options o = {.chunk = (items + chunks - 1) / chunks};
    hs_split_drive_stats st = {0};
    hs_error err = {0};
    double gap = 0, last[HS_SPLIT_MAX_DEVICES];
    size_t ngaps = 0;
    for (int d = 0; d < ndev; d++) {
        dev[d] = (hs_split_device){.name = "cpu", .kind = HS_DEVICE_CPU, .width = 1};
        last[d] = -1;
    }
    st.max_records = chunks + (size_t)ndev;
    if (!(st.records = malloc(st.max_records * sizeof *st.records)))
        return -1;
    if (hs_split_drive(hs_splitter_find("fixed"), &k, dev, ndev, &o, NULL,
                       &(hs_split_drive_ops){.run = run_nothing}, NULL, &st, &err) != HS_OK) {
        fprintf(stderr, "split_overhead: %s\n", err.msg);
        free(st.records);
        return -1;
    }
    for (size_t i = 0; i < st.nrecords; i++) { /* a device's records are in its order */
        const hs_split_drive_record *r = &st.records[i];
        if (last[r->device] >= 0) {
            gap += r->start_us - last[r->device];
            ngaps++;
        }
        last[r->device] = r->end_us;
    }
    free(st.records);
    return ngaps ? gap / (double)ngaps : 0;
}

/* µs per hs_krun_cpu call of c on `threads` threads; < 0 on error. */
static double kernel_call(const hs_kconf *c, void *const *bufs, int threads, unsigned long calls)
{
    hs_error err = {0};
    double t0 = bench_clock_s(CLOCK_MONOTONIC);
    for (unsigned long i = 0; i < calls; i++)
        if (hs_krun_cpu(c, bufs, 0, c->items, threads, &err) != HS_OK) {
            fprintf(stderr, "split_overhead: %s\n", err.msg);
            return -1;
        }
    return (bench_clock_s(CLOCK_MONOTONIC) - t0) * 1e6 / (double)calls;
}

static void usage(FILE *f)
{
    fputs("usage: split_overhead [--items N] [--chunks C] [--devices D] [--threads T]\n"
          "                      [--calls K] [--runs R]\n",
          f);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"items", required_argument, NULL, 'n'},   {"chunks", required_argument, NULL, 'c'},
        {"devices", required_argument, NULL, 'd'}, {"threads", required_argument, NULL, 't'},
        {"calls", required_argument, NULL, 'k'},   {"runs", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    unsigned long items = 16777216, chunks = 200, ndev = 1, threads = 2, calls = 200, runs = 5;
    double gaps[MAX_RUNS], one[MAX_RUNS], many[MAX_RUNS];
    hs_param n = {.name = "n"};
    hs_kconf c;
    hs_error err = {0};
    void *bufs[HS_KMAX_BUFS] = {0};
    int opt, rc = 0;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        unsigned long *v = opt == 'n' ? &items : opt == 'c' ? &chunks : opt == 'd' ? &ndev
                         : opt == 't' ? &threads : opt == 'k' ? &calls : opt == 'r' ? &runs : NULL;
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (!v || !(*v = bench_number(optarg))) {
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || chunks > items || ndev > HS_SPLIT_MAX_DEVICES || runs > MAX_RUNS ||
        threads > 256) {
        usage(stderr);
        return 2;
    }
    n.value = (double)threads * 65536;
    if (hs_kconf_init(&c, "va", &n, 1, &err) != HS_OK) {
        fprintf(stderr, "split_overhead: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < c.nbufs; i++)
        if (!(bufs[i] = calloc(1, c.bufs[i].bytes))) {
            fprintf(stderr, "split_overhead: out of memory\n");
            return 1;
        }
    hs_kfill(&c, bufs);
    kernel_call(&c, bufs, (int)threads, 1); /* helper threads start here */
    for (unsigned long r = 0; r < runs && rc == 0; r++) {
        gaps[r] = driver_gap(items, chunks, (int)ndev);
        one[r] = kernel_call(&c, bufs, 1, calls);
        many[r] = kernel_call(&c, bufs, (int)threads, calls);
        rc = gaps[r] < 0 || one[r] < 0 || many[r] < 0;
    }
    if (rc == 0) {
        printf("driver: %lu items in %lu chunks on %lu device(s): %.2f us between chunks\n",
               items, chunks, ndev, bench_median(gaps, (int)runs));
        printf("hs_krun_cpu, va of %.0f elements: %.1f us a call on 1 thread, %.1f us on %lu "
               "threads\n",
               n.value, bench_median(one, (int)runs), bench_median(many, (int)runs), threads);
    }
    for (int i = 0; i < c.nbufs; i++)
        free(bufs[i]);
    return rc;
}
