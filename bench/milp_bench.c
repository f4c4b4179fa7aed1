/* milp_bench — how far each MILP formulation gets: seeded random task
 * graphs (hs_gen_random, Topcuoglu-style: CCR 1, heterogeneity 0.5, GPUs 4x
 * faster on average) of 6, 8, 10, 12, 15, 20 and 25 tasks on one CPU and
 * two GPUs, solved by both formulations with GLPK (or CBC); per size and
 * formulation: instances proven optimal within the limit, median solve time
 * (wall clock, and the process's CPU time: on a shared machine the limit,
 * wall clock, may cut a search short that had little CPU), median and
 * largest final gap.  Not part of the test suite.
 *
 *   milp_bench [--time-limit S] [--instances K] [--sizes 6,8,10]
 *              [--formulation compact|paper|both] [--solver glpk|cbc]
 *
 * Defaults: 60 s, 5 instances per size, every size, both formulations.  The
 * worst case is sizes x instances x formulations x the limit (70 minutes with
 * the defaults); each line is printed as soon as its size is done.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hetsched/hetsched.h"

/* One random instance: `tasks` tasks on cpu:1,gpu:2 with seed `seed`. */
static hs_workload *instance(int tasks, unsigned long seed)
{
    hs_workload *w = hs_workload_new();
    hs_gen_random_opts o;
    hs_error err = {0};
    hs_gen_random_defaults(&o);
    o.tasks = (size_t)tasks;
    o.seed = seed;
    if (!w || hs_gen_platform(w, "cpu:1,gpu:2", HS_GEN_CPU_CORES, &err) < 0 ||
        hs_gen_random(w, &o, &err) < 0 || hs_workload_finalize(w, &err) != HS_OK) {
        fprintf(stderr, "milp_bench: cannot generate %d tasks: %s\n", tasks, err.msg);
        hs_workload_free(w);
        return NULL;
    }
    return w;
}

static void usage(void)
{
    fputs("usage: milp_bench [--time-limit S] [--instances K] [--sizes 6,8,10]\n"
          "                  [--formulation compact|paper|both] [--solver glpk|cbc]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    int sizes[32] = {6, 8, 10, 12, 15, 20, 25}, nsizes = 7, instances = 5, forms = 3;
    double limit = 60;
    hs_milp_solver solver = HS_MILP_GLPK;
    int largest[2] = {0, 0};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--time-limit") == 0) {
            limit = atof(argv[++i]);
        } else if (strcmp(argv[i], "--instances") == 0) {
            instances = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--sizes") == 0) {
            char *s = argv[++i], *end;
            nsizes = 0;
            while (*s && nsizes < 32) {
                sizes[nsizes++] = (int)strtol(s, &end, 10);
                if (end == s)
                    usage();
                s = *end == ',' ? end + 1 : end;
            }
        } else if (strcmp(argv[i], "--formulation") == 0) {
            i++;
            forms = strcmp(argv[i], "compact") == 0 ? 1 : strcmp(argv[i], "paper") == 0 ? 2
                    : strcmp(argv[i], "both") == 0  ? 3 : 0;
        } else if (strcmp(argv[i], "--solver") == 0) {
            i++;
            solver = strcmp(argv[i], "cbc") == 0 ? HS_MILP_CBC : HS_MILP_GLPK;
        } else {
            usage();
        }
    }
    if (!(limit > 0) || instances < 1 || instances > 1000 || !forms)
        usage();
    printf("# %d instances per size, cpu:1,gpu:2, time limit %g s, %s\n", instances, limit,
           solver == HS_MILP_CBC ? "cbc" : "glpk");
    printf("%5s  %-8s  %7s  %10s  %10s  %10s  %9s  %9s\n", "tasks", "model", "solved",
           "median s", "median cpu", "median gap", "max gap", "binaries");
    for (int si = 0; si < nsizes; si++) {
        for (int f = 0; f < 2; f++) {
            double *time = malloc((size_t)instances * sizeof *time);
            double *cpu = malloc((size_t)instances * sizeof *cpu);
            double *gap = malloc((size_t)instances * sizeof *gap);
            double maxgap = 0, bins = 0;
            int solved = 0, done = 0;
            if (!(forms & (1 << f)) || !time || !cpu || !gap) {
                free(time);
                free(cpu);
                free(gap);
                continue;
            }
            for (int k = 0; k < instances; k++) {
                hs_workload *w = instance(sizes[si], 1000UL * (unsigned long)sizes[si] +
                                                         (unsigned long)k);
                hs_milp_options o;
                hs_milp_result r;
                hs_error err = {0};
                double cpu0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
                if (!w)
                    continue;
                hs_milp_options_init(&o);
                o.formulation = f ? HS_MILP_PAPER : HS_MILP_COMPACT;
                o.solver = solver;
                o.time_limit_s = limit;
                o.progress = 0;
                if (hs_milp_solve(w, &o, &r, &err) != HS_OK) {
                    fprintf(stderr, "milp_bench: %d tasks, seed %d: %s\n", sizes[si], k,
                            err.msg);
                    hs_workload_free(w);
                    continue;
                }
                time[done] = r.solve_s;
                cpu[done] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
                gap[done] = r.schedule ? r.gap : 1;
                maxgap = fmax(maxgap, gap[done]);
                bins += r.binaries;
                solved += r.status == HS_MILP_OPTIMAL;
                done++;
                hs_milp_result_free(&r);
                hs_workload_free(w);
            }
            if (done > 0) {
                printf("%5d  %-8s  %3d/%-3d  %10.2f  %10.2f  %9.2f%%  %8.2f%%  %9.0f\n",
                       sizes[si], f ? "paper" : "compact", solved, instances,
                       bench_median(time, done), bench_median(cpu, done),
                       100 * bench_median(gap, done), 100 * maxgap, bins / done);
                fflush(stdout);
                if (solved == instances && largest[f] == si)
                    largest[f] = si + 1;
            }
            free(time);
            free(cpu);
            free(gap);
        }
    }
    for (int f = 0; f < 2; f++) {
        if (!(forms & (1 << f)))
            continue;
        if (largest[f])
            printf("# %s: every instance proven optimal up to %d tasks\n", f ? "paper" : "compact",
                   sizes[largest[f] - 1]);
        else
            printf("# %s: not every instance of %d tasks proven optimal\n", f ? "paper" : "compact",
                   sizes[0]);
    }
    return 0;
}
