/* overhead_bench — per-task overhead of the engine.
 *
 * Runs N empty tasks (cost 0 on every device, no data) through
 * hs_engine_run in two shapes:
 *   indep  N independent tasks (one application with N instances of one
 *          kernel);
 *   chain  one dependent chain of N tasks (one application, N kernels, an
 *          edge of 0 bytes from each to the next);
 * on 1 and 2 CPU devices (all in host memory), with each policy given,
 * on the real `cpu` backend (one worker thread per device; `emu` is the
 * same workers with emulated memories) and on the simulator (the engine and
 * the policy alone).  Building the workload is not timed; the timed part is
 * the whole hs_engine_run call (backend init, worker start and stop, the
 * schedule it returns).  Each configuration runs --runs times and the median
 * wall time counts; the report gives tasks/s and µs per task, and the median
 * process CPU time per task (all threads).  The last two columns separate
 * the fixed cost: init_us/t is the median time of the backend's init and
 * fini alone (data manager set-up, threads) per task, and run_tasks/s the
 * rate of the rest, N / (wall - init).  HETSCHED_DEPTH sets the real
 * backends' depth (exec/real.h).
 *
 *   overhead_bench [--tasks N] [--runs R] [--policies a,b]
 *                  [--backends cpu,emu,sim] [--devices 1,2]
 *
 * Compare with bench/starpu_overhead.c (the same shapes under StarPU).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "exec/data.h"
#include "exec/engine.h"
#include "hetsched/hetsched.h"

#define MAX_RUNS 101

static const char usage[] =
    "usage: overhead_bench [options]\n"
    "\n"
    "Empty tasks per second through hs_engine_run (see bench/overhead_bench.c).\n"
    "\n"
    "options:\n"
    "  --tasks N         tasks per run (default 100000)\n"
    "  --runs R          runs per configuration, median counts (default 5)\n"
    "  --policies a,b    policies (default eager,dmda,h-ratio)\n"
    "  --backends a,b    cpu, emu, cuda and/or sim (default cpu,sim); cuda runs\n"
    "                    the tasks on GPU workers (devices: GPUs)\n"
    "  --devices a,b     numbers of CPU devices (default 1,2)\n"
    "  -h, --help        this text\n";

/* A finalized workload of n empty tasks on `ndev` CPU devices in host
 * memory, or on `ndev` GPUs with memories of their own (gpu 1, for the cuda
 * backend): independent (chain 0) or one chain (chain 1); NULL on error. */
static hs_workload *build(size_t n, int ndev, int chain, int gpu, hs_error *err)
{
    hs_workload *w = hs_workload_new();
    char name[32], prev[32];
    int app, k = 0, rc = 0;
    if (!w) {
        hs_error_set(err, HS_ENOMEM, "out of memory");
        return NULL;
    }
    for (int d = 0; d < ndev && rc >= 0; d++) {
        snprintf(name, sizeof name, gpu ? "gpu%d" : "cpu%d", d);
        rc = hs_platform_add_device(w, name, gpu ? HS_DEVICE_GPU : HS_DEVICE_CPU,
                                    gpu ? name : "host", gpu ? 0 : 1, err);
        if (gpu && rc >= 0)
            rc = hs_platform_add_link(w, "host", name, 12.0, 10.0, err);
    }
    if (rc >= 0)
        rc = app = hs_workload_add_app(w, chain ? "chain" : "indep", chain ? 1 : (int)n, err);
    for (size_t i = 0; rc >= 0 && i < (chain ? n : 1); i++) {
        snprintf(name, sizeof name, "k%zu", i);
        if ((rc = k = hs_app_add_kernel(w, app, name, err)) >= 0)
            rc = hs_kernel_set_cost(w, app, k, gpu ? "gpu" : "cpu", 0.0, err);
        if (rc >= 0 && i > 0)
            rc = hs_app_add_edge(w, app, prev, name, 0.0, err);
        memcpy(prev, name, sizeof prev);
    }
    if (rc >= 0)
        rc = hs_workload_finalize(w, err);
    if (rc < 0) {
        hs_workload_free(w);
        return NULL;
    }
    return w;
}

/* The backend's init and fini alone on w's graph: wall seconds. */
static int init_once(hs_workload *w, const hs_backend_ops *ops, double *wall, hs_error *err)
{
    hs_run_report report;
    hs_backend b = {.ops = ops, .state = ops == &hs_backend_sim ? NULL : &report};
    double w0;
    int rc;
    memset(&report, 0, sizeof report);
    w0 = bench_clock_s(CLOCK_MONOTONIC);
    rc = ops->init(&b, w, &w->graph, err);
    if (rc == 0)
        ops->fini(&b);
    *wall = bench_clock_s(CLOCK_MONOTONIC) - w0;
    if (ops != &hs_backend_sim)
        hs_run_report_free(&report);
    return rc;
}

/* One timed run: wall and CPU seconds of hs_engine_run. */
static int run_once(hs_workload *w, const hs_policy *pol, const hs_backend_ops *ops,
                    double *wall, double *cpu, hs_error *err)
{
    hs_run_report report;
    hs_backend b = {.ops = ops, .state = ops == &hs_backend_sim ? NULL : &report};
    hs_map_options opt = {0};
    hs_schedule *s = NULL;
    double w0, c0;
    int rc;
    memset(&report, 0, sizeof report);
    w0 = bench_clock_s(CLOCK_MONOTONIC);
    c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
    rc = hs_engine_run(w, pol, &opt, &b, &s, NULL, err);
    *cpu = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = bench_clock_s(CLOCK_MONOTONIC) - w0;
    hs_schedule_free(s);
    if (ops != &hs_backend_sim)
        hs_run_report_free(&report);
    return rc;
}

/* Splits a comma list in place into at most max items; returns the count. */
static int split(char *list, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ","))
        items[n++] = tok;
    return n;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"tasks", required_argument, NULL, 't'},  {"runs", required_argument, NULL, 'r'},
        {"policies", required_argument, NULL, 'p'}, {"backends", required_argument, NULL, 'b'},
        {"devices", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    char pol_list[256] = "eager,dmda,h-ratio", be_list[64] = "cpu,sim", dev_list[64] = "1,2";
    char *pols[16], *bes[4], *devs[8];
    unsigned long ntasks = 100000, runs = 5;
    int npol, nbe, ndev, opt, status = 0;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
        case 't':
            ntasks = bench_number(optarg);
            break;
        case 'r':
            runs = bench_number(optarg);
            break;
        case 'p':
            snprintf(pol_list, sizeof pol_list, "%s", optarg);
            break;
        case 'b':
            snprintf(be_list, sizeof be_list, "%s", optarg);
            break;
        case 'd':
            snprintf(dev_list, sizeof dev_list, "%s", optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind < argc || ntasks == 0 || ntasks > 100000000 || runs == 0 || runs > MAX_RUNS) {
        fprintf(stderr, "overhead_bench: --tasks must be 1..1e8 and --runs 1..%d\n", MAX_RUNS);
        return 2;
    }
    npol = split(pol_list, pols, 16);
    nbe = split(be_list, bes, 4);
    ndev = split(dev_list, devs, 8);
    for (int i = 0; i < npol; i++)
        if (!hs_policy_find(pols[i])) {
            fprintf(stderr, "overhead_bench: no policy '%s'\n", pols[i]);
            return 2;
        }
    for (int i = 0; i < nbe; i++)
        if (strcmp(bes[i], "cpu") != 0 && strcmp(bes[i], "emu") != 0 &&
            strcmp(bes[i], "cuda") != 0 && strcmp(bes[i], "sim") != 0) {
            fprintf(stderr, "overhead_bench: backend must be cpu, emu, cuda or sim, not '%s'\n",
                    bes[i]);
            return 2;
        }
    for (int i = 0; i < ndev; i++)
        if (bench_number(devs[i]) == 0 || bench_number(devs[i]) > 64) {
            fprintf(stderr, "overhead_bench: bad device count '%s'\n", devs[i]);
            return 2;
        }
    printf("%-4s %-8s %-6s %4s %9s %12s %9s %9s %9s %12s\n", "back", "policy", "shape", "devs",
           "tasks", "tasks/s", "us/task", "cpu_us/t", "init_us/t", "run_tasks/s");
    for (int nd = 0; nd < ndev; nd++)
        for (int chain = 0; chain < 2; chain++) {
            hs_error err = {0};
            int devices = (int)bench_number(devs[nd]);
            hs_workload *w = build(ntasks, devices, chain, 0, &err), *wg = NULL;
            for (int b = 0; b < nbe && w; b++)
                if (strcmp(bes[b], "cuda") == 0 && !wg &&
                    !(wg = build(ntasks, devices, chain, 1, &err))) {
                    hs_workload_free(w);
                    w = NULL;
                }
            if (!w) {
                fprintf(stderr, "overhead_bench: %s\n", err.msg);
                return 1;
            }
            for (int b = 0; b < nbe; b++)
                for (int p = 0; p < npol; p++) {
                    const hs_backend_ops *ops = hs_backend_find(bes[b]);
                    double wall[MAX_RUNS], cpu[MAX_RUNS], init[MAX_RUNS], mw, mc, mi;
                    int rc = 0;
                    hs_workload *wb = strcmp(bes[b], "cuda") == 0 ? wg : w;
                    for (unsigned long r = 0; r < runs && rc == 0; r++)
                        if ((rc = run_once(wb, hs_policy_find(pols[p]), ops, &wall[r], &cpu[r],
                                           &err)) == 0)
                            rc = init_once(wb, ops, &init[r], &err);
                    if (rc != 0) {
                        fprintf(stderr, "overhead_bench: %s %s: %s\n", bes[b], pols[p],
                                err.msg);
                        status = 1;
                        continue;
                    }
                    mw = bench_median(wall, (int)runs);
                    mc = bench_median(cpu, (int)runs);
                    mi = bench_median(init, (int)runs);
                    printf("%-4s %-8s %-6s %4d %9lu %12.0f %9.3f %9.3f %9.3f %12.0f\n", bes[b],
                           pols[p], chain ? "chain" : "indep", devices, ntasks,
                           (double)ntasks / mw, 1e6 * mw / (double)ntasks,
                           1e6 * mc / (double)ntasks, 1e6 * mi / (double)ntasks,
                           mw > mi ? (double)ntasks / (mw - mi) : 0.0);
                    fflush(stdout);
                }
            hs_workload_free(w);
            hs_workload_free(wg);
        }
    return status;
}
