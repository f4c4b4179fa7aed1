/* starpu_overhead — the shapes of bench/overhead_bench.c under StarPU, to
 * set the engine's per-task overhead beside StarPU's.
 *
 * Built only when Meson finds starpu-1.3 (Debian's libstarpu-dev) through
 * pkg-config.  One process per configuration: starpu_init with
 *   conf.ncpus = --ncpu, conf.ncuda = conf.nopencl = 0 (CPU workers only),
 *   conf.sched_policy_name = --sched (eager or dmda),
 *   conf.calibrate = 0 (no calibration runs),
 * and codelets with an empty CPU function and no performance model (dmda then
 * predicts 0 µs for every task and places by queue state alone).
 * Shapes, submitted with starpu_task_insert:
 *   indep  N tasks with no data and no dependencies;
 *   chain  N tasks each taking one registered variable in STARPU_RW, so
 *          StarPU's sequential consistency makes each depend on the last.
 * Timed: from the first submission to the end of starpu_task_wait_for_all
 * (starpu_init and shutdown are not); median of --runs runs; tasks/s,
 * µs per task and the median process CPU time per task.
 *
 *   starpu_overhead [--tasks N] [--runs R] [--ncpu 1] [--sched eager]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <starpu.h>

#include "bench_util.h"

#define MAX_RUNS 101

static const char usage[] =
    "usage: starpu_overhead [--tasks N] [--runs R] [--ncpu K] [--sched NAME]\n"
    "Empty StarPU tasks per second, independent and chained "
    "(see bench/starpu_overhead.c).\n";

static void empty(void *buffers[], void *arg)
{
    (void)buffers;
    (void)arg;
}

static struct starpu_codelet cl_none = {
    .cpu_funcs = {empty}, .nbuffers = 0, .name = "empty"};
static struct starpu_codelet cl_rw = {
    .cpu_funcs = {empty}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "empty_rw"};

/* Submits n tasks of one shape and waits for all; 0 or a StarPU error. */
static int run_once(unsigned long n, int chain, starpu_data_handle_t h, double *wall,
                    double *cpu)
{
    double w0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = 0;
    for (unsigned long i = 0; i < n && rc == 0; i++)
        rc = chain ? starpu_task_insert(&cl_rw, STARPU_RW, h, 0)
                   : starpu_task_insert(&cl_none, 0);
    starpu_task_wait_for_all();
    *cpu = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = bench_clock_s(CLOCK_MONOTONIC) - w0;
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"tasks", required_argument, NULL, 't'}, {"runs", required_argument, NULL, 'r'},
        {"ncpu", required_argument, NULL, 'n'},  {"sched", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    unsigned long ntasks = 100000, runs = 5, ncpu = 1;
    const char *sched = "eager";
    struct starpu_conf conf;
    starpu_data_handle_t h;
    long value = 0;
    int opt, status = 0;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 't':
            ntasks = bench_number(optarg);
            break;
        case 'r':
            runs = bench_number(optarg);
            break;
        case 'n':
            ncpu = bench_number(optarg);
            break;
        case 's':
            sched = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind < argc || ntasks == 0 || ntasks > 100000000 || runs == 0 || runs > MAX_RUNS ||
        ncpu == 0 || ncpu > 64) {
        fprintf(stderr, "starpu_overhead: --tasks 1..1e8, --runs 1..%d, --ncpu 1..64\n",
                MAX_RUNS);
        return 2;
    }
    starpu_conf_init(&conf);
    conf.ncpus = (int)ncpu;
    conf.ncuda = 0;
    conf.nopencl = 0;
    conf.sched_policy_name = sched;
    conf.calibrate = 0;
    if (starpu_init(&conf) != 0) {
        fprintf(stderr, "starpu_overhead: starpu_init failed\n");
        return 77;
    }
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)&value, sizeof value);
    for (int chain = 0; chain < 2; chain++) {
        double wall[MAX_RUNS], cpu[MAX_RUNS], mw, mc;
        int rc = 0;
        for (unsigned long r = 0; r < runs && rc == 0; r++)
            rc = run_once(ntasks, chain, h, &wall[r], &cpu[r]);
        if (rc != 0) {
            fprintf(stderr, "starpu_overhead: starpu_task_insert: %s\n", strerror(-rc));
            status = 1;
            continue;
        }
        mw = bench_median(wall, (int)runs);
        mc = bench_median(cpu, (int)runs);
        printf("%-6s %-8s %-6s %4lu %9lu %12.0f %9.3f %9.3f\n", "starpu", sched,
               chain ? "chain" : "indep", ncpu, ntasks, (double)ntasks / mw,
               1e6 * mw / (double)ntasks, 1e6 * mc / (double)ntasks);
        fflush(stdout);
    }
    starpu_data_unregister(h);
    starpu_shutdown();
    return status;
}
