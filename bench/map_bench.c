/* map_bench — how the cost of mapping grows with the graph.
 *
 * Builds random Topcuoglu-style graphs (hs_gen_random, in process: no YAML)
 * of 1k, 10k, 100k and 1M tasks on 3 devices (cpu:1,gpu:2) and 8 devices
 * (cpu:2,gpu:6), maps each with every registered policy in the simulator,
 * validates the schedule, and prints per task:
 *   hook us/task  hs_map_stats.mapping_seconds / tasks: time inside the
 *                 policy's hooks (its decisions only);
 *   map us/task   wall time of the whole hs_map call / tasks: the policy plus
 *                 the engine, the simulated backend and the schedule;
 *   cpu us/task   the CPU time of that call / tasks: the same work without the
 *                 time other processes took from it on a loaded machine;
 *   map B/t       the memory the first hs_map call took / tasks: the peak of
 *                 the process's resident memory during the call (the kernel's
 *                 VmHWM, reset before it) less what it held before, the
 *                 schedule included; "-" where /proc cannot tell;
 *   places/t      the schedule's placements per task: more than 1 where a
 *                 policy splits kernels into parts (ad-part), each part a
 *                 task of the engine and a placement of the schedule;
 *   growth        how much cpu us/task grew since the previous size of the
 *                 same policy and platform in this run; with sizes 10x apart
 *                 an n log n policy shows about 1.1-1.3, an n^2 one about 10.
 * Graphs that map in under MIN_SECONDS are mapped several times and the
 * fastest run counts.  Generation and validation are not counted.
 *
 * With --nodes N, each platform is a cluster of N nodes of those devices
 * (hs_gen_cluster: every pair of nodes joined by the network).
 *
 *   map_bench [--tasks N,N..] [--max-tasks N] [--devices SPEC]... [--nodes N]
 *             [--policies a,b] [--seed N]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "hetsched/hetsched.h"

#define MAX_SIZES 16
#define MAX_PLATFORMS 8

static const char usage[] =
    "usage: map_bench [options]\n"
    "\n"
    "Maps random graphs (Topcuoglu et al.: alpha 1, out-degree 3, CCR 1, beta 0.5)\n"
    "with every policy and prints the time per task (see bench/map_bench.c).\n"
    "\n"
    "options:\n"
    "  --tasks N,N..     graph sizes (default 1000,10000,100000,1000000)\n"
    "  --max-tasks N     skip sizes above N\n"
    "  --devices SPEC    a platform, cpu:N,gpu:M; repeat for several (default\n"
    "                    cpu:1,gpu:2 and cpu:2,gpu:6)\n"
    "  --nodes N         each platform a cluster of N nodes of those devices\n"
    "  --policies a,b    only these policies (default all registered)\n"
    "  --seed N          seed of the graphs (default 1)\n"
    "  -h, --help        this text\n";

/* Wall-clock seconds; CPU time (CLOCK_PROCESS_CPUTIME_ID) is read beside it:
 * hs_map runs on one thread, so on a shared, loaded machine that is what it
 * cost without the time others took. */
static double now_s(void)
{
    return bench_clock_s(CLOCK_MONOTONIC);
}

/* "1000,10000" into sizes[]; returns how many, or -1 on a bad item. */
static int parse_sizes(char *list, size_t *sizes)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        unsigned long v = bench_number(tok);
        if (!v || n == MAX_SIZES)
            return -1;
        sizes[n++] = v;
    }
    return n;
}

/* Whether `name` is in the comma-separated `list` (NULL: every name is). */
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    if (!list)
        return 1;
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* Builds the random graph of n tasks on `devices`. */
static hs_workload *build(const char *devices, int nodes, size_t n, unsigned long seed,
                          hs_error *err)
{
    hs_workload *w = hs_workload_new();
    hs_gen_random_opts o;
    hs_gen_random_defaults(&o);
    o.tasks = n;
    o.seed = seed;
    if (!w) {
        hs_error_set(err, HS_ENOMEM, "out of memory");
        return NULL;
    }
    if ((nodes ? hs_gen_cluster(w, devices, HS_GEN_CPU_CORES, nodes, err)
               : hs_gen_platform(w, devices, HS_GEN_CPU_CORES, err)) < 0 ||
        hs_gen_random(w, &o, err) < 0 ||
        hs_workload_finalize(w, err) != HS_OK) {
        hs_workload_free(w);
        return NULL;
    }
    return w;
}

/* `key` ("VmRSS:", "VmHWM:") of /proc/self/status in bytes, or -1. */
static double status_bytes(const char *key)
{
    char line[256];
    double kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) {
            kb = strtod(line + strlen(key), NULL);
            break;
        }
    fclose(f);
    return kb < 0 ? -1 : 1024 * kb;
}

/* Sets the peak resident memory (VmHWM) to the current one; 0, or -1 where
 * the kernel does not let this process. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* Maps w with `policy` once, and again while the runs so far took less than
 * MIN_SECONDS in all (at most MAX_RUNS): small graphs map in microseconds,
 * and the fastest of several runs is the least disturbed by the other
 * processes of a shared machine.  *wall, *cpu and *hook get the smallest
 * hs_map wall time, CPU time and hook time over the runs (seconds); *out the
 * first run's schedule, *mem the bytes it took (see the top; -1: unknown). */
#define MIN_SECONDS 0.25
#define MAX_RUNS 100
static int best_of(hs_workload *w, const char *policy, hs_schedule **out, double *wall,
                   double *cpu, double *hook, double *mem, hs_error *err)
{
    double spent = 0, before = reset_peak() == 0 ? status_bytes("VmRSS:") : -1;
    *out = NULL;
    for (int run = 0; run < MAX_RUNS && (run == 0 || spent < MIN_SECONDS); run++) {
        hs_map_stats st = {0};
        hs_schedule *s = NULL;
        double t0 = now_s(), c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), t, c;
        int rc = hs_map(w, policy, NULL, &s, &st, err);
        t = now_s() - t0;
        c = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (run == 0) {
            double peak = status_bytes("VmHWM:");
            *mem = before >= 0 && peak >= 0 ? peak - before : -1;
        }
        if (rc != HS_OK) {
            hs_schedule_free(*out);
            *out = NULL;
            return rc;
        }
        if (run == 0 || t < *wall)
            *wall = t;
        if (run == 0 || c < *cpu)
            *cpu = c;
        if (run == 0 || st.mapping_seconds < *hook)
            *hook = st.mapping_seconds;
        spent += t;
        if (run == 0)
            *out = s;
        else
            hs_schedule_free(s);
    }
    return HS_OK;
}

/* Peak resident memory of the process so far, in MB. */
static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
    enum { OPT_TASKS = 256, OPT_MAX, OPT_DEVICES, OPT_NODES, OPT_POLICIES, OPT_SEED };
    static const struct option longopts[] = {
        {"tasks", required_argument, NULL, OPT_TASKS},
        {"max-tasks", required_argument, NULL, OPT_MAX},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"policies", required_argument, NULL, OPT_POLICIES},
        {"seed", required_argument, NULL, OPT_SEED},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    size_t sizes[MAX_SIZES] = {1000, 10000, 100000, 1000000}, max_tasks = (size_t)-1;
    const char *platforms[MAX_PLATFORMS] = {"cpu:1,gpu:2", "cpu:2,gpu:6"};
    const char *policies = NULL;
    const hs_policy *const *list = hs_policy_list();
    int nsizes = 4, nplatforms = 2, user_platforms = 0, nodes = 0, c, failed = 0;
    unsigned long seed = 1;
    double *prev;
    size_t npolicies = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TASKS:
            if ((nsizes = parse_sizes(optarg, sizes)) <= 0) {
                fprintf(stderr, "map_bench: --tasks wants up to %d sizes >= 1\n", MAX_SIZES);
                return 2;
            }
            break;
        case OPT_MAX:
            if (!(max_tasks = bench_number(optarg))) {
                fprintf(stderr, "map_bench: --max-tasks wants a number >= 1\n");
                return 2;
            }
            break;
        case OPT_DEVICES:
            if (user_platforms == MAX_PLATFORMS) {
                fprintf(stderr, "map_bench: at most %d --devices\n", MAX_PLATFORMS);
                return 2;
            }
            platforms[user_platforms++] = optarg;
            nplatforms = user_platforms;
            break;
        case OPT_NODES:
            if (!(nodes = (int)bench_number(optarg)) || nodes > HS_MAX_NODES) {
                fprintf(stderr, "map_bench: --nodes wants a number from 1 to %d\n",
                        HS_MAX_NODES);
                return 2;
            }
            break;
        case OPT_POLICIES: policies = optarg; break;
        case OPT_SEED:
            if (!(seed = bench_number(optarg))) {
                fprintf(stderr, "map_bench: --seed wants a number >= 1\n");
                return 2;
            }
            break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind != argc) {
        fputs(usage, stderr);
        return 2;
    }
    for (size_t i = 0; list[i]; i++)
        npolicies++;
    for (const char *p = policies; p && *p;) {
        size_t l = strcspn(p, ","), i;
        for (i = 0; list[i]; i++)
            if (strlen(hs_policy_name(list[i])) == l && strncmp(p, hs_policy_name(list[i]), l) == 0)
                break;
        if (!list[i]) {
            fprintf(stderr, "map_bench: unknown policy '%.*s'\n", (int)l, p);
            return 2;
        }
        p += l + (p[l] == ',');
    }
    if (!(prev = calloc(npolicies, sizeof *prev)))
        return 1;

    printf("%-12s %8s %8s %-10s %14s %9s %9s %9s %8s %8s %8s %6s\n", "devices", "tasks",
           "edges", "policy", "makespan us", "hook us/t", "map us/t", "cpu us/t", "map s",
           "map B/t", "places/t", "growth");
    for (int pf = 0; pf < nplatforms; pf++) {
        for (size_t i = 0; i < npolicies; i++)
            prev[i] = 0;
        for (int k = 0; k < nsizes; k++) {
            hs_error err = {0};
            double t0 = now_s(), gen_s;
            hs_workload *w;
            if (sizes[k] > max_tasks)
                continue;
            if (!(w = build(platforms[pf], nodes, sizes[k], seed, &err))) {
                fprintf(stderr, "map_bench: %s, %zu tasks: %s\n", platforms[pf], sizes[k],
                        err.msg);
                free(prev);
                return 2;
            }
            gen_s = now_s() - t0;
            for (size_t i = 0; list[i]; i++) {
                const char *name = hs_policy_name(list[i]);
                hs_schedule *s = NULL;
                double t, cpu, hook, mem, n = (double)w->graph.ntasks;
                if (!listed(policies, name))
                    continue;
                if (best_of(w, name, &s, &t, &cpu, &hook, &mem, &err) != HS_OK) {
                    fprintf(stderr, "map_bench: %s on %s, %zu tasks: %s\n", name,
                            platforms[pf], sizes[k], err.msg);
                    failed = 1;
                    continue;
                }
                if (hs_schedule_validate(w, s, &err) != HS_OK) {
                    fprintf(stderr, "map_bench: %s on %s, %zu tasks: invalid schedule: %s\n",
                            name, platforms[pf], sizes[k], err.msg);
                    failed = 1;
                }
                printf("%-12s %8zu %8zu %-10s %14.1f %9.3f %9.3f %9.3f %8.3f", platforms[pf],
                       w->graph.ntasks, w->graph.nedges, name, s->makespan_us,
                       1e6 * hook / n, 1e6 * t / n, 1e6 * cpu / n, t);
                if (mem >= 0)
                    printf(" %8.0f", mem / n);
                else
                    printf(" %8s", "-");
                printf(" %8.3f", (double)s->nplacements / n);
                if (prev[i] > 0)
                    printf(" %6.2f", (1e6 * cpu / n) / prev[i]);
                printf("\n");
                fflush(stdout);
                prev[i] = 1e6 * cpu / n;
                hs_schedule_free(s);
            }
            printf("# %s, %zu tasks: generated in %.2f s; peak memory so far %.0f MB\n",
                   platforms[pf], sizes[k], gen_s, peak_mb());
            fflush(stdout);
            hs_workload_free(w);
        }
    }
    free(prev);
    return failed;
}
