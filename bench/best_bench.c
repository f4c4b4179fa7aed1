/* best_bench — every policy, `best` in particular, against the MILP
 * optimum on small random task graphs: per policy the mean and worst ratio
 * of its makespan to the optimum, how many instances it ends within 2% of
 * it and at it (or below: a policy marked * split tasks, which the whole-task
 * optimum does not), and its mean mapping time; then whether `best` was
 * ever worse than app-level or than the best single device.
 *
 *   best_bench [--instances N] [--seed S] [--budget-ms B] [--time-limit S] [-v]
 *
 * Instance i (seed S + i) is a Topcuoglu-style random graph (hs_gen_random)
 * of 6 + i mod 7 tasks (6..12), on cpu:1,gpu:1 for even i and cpu:1,gpu:2
 * for odd i, with CCR, heterogeneity, out-degree and shape cycling through
 * {0.1, 0.5, 1, 2, 5}, {0.25, 0.5, 1, 1.5}, {1, 2, 3} and {0.5, 1, 2}.
 * Defaults: 100 instances, seed 1, best's default budget, MILP limit 60 s.
 * An instance whose optimum is not proven within the limit is left out
 * (and counted).  -v prints one line per instance.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hetsched/hetsched.h"

typedef struct tally {
    double sum, worst, map_s;
    int within, exact, runs, split;
} tally;

static hs_workload *instance(int i, unsigned long seed, char *desc, size_t size)
{
    static const double ccr[] = {0.1, 0.5, 1, 2, 5}, beta[] = {0.25, 0.5, 1, 1.5};
    static const double alpha[] = {0.5, 1, 2};
    const char *platform = i % 2 ? "cpu:1,gpu:2" : "cpu:1,gpu:1";
    hs_workload *w = hs_workload_new();
    hs_gen_random_opts o;
    hs_error err = {0};
    hs_gen_random_defaults(&o);
    o.tasks = (size_t)(6 + i % 7);
    o.seed = seed + (unsigned long)i;
    o.ccr = ccr[i % 5];
    o.beta = beta[i % 4];
    o.out_degree = 1 + i % 3;
    o.alpha = alpha[i % 3];
    snprintf(desc, size,
             "hetsched gen random --tasks %zu --seed %lu --ccr %g --beta %g --out-degree %d "
             "--alpha %g --devices %s",
             o.tasks, o.seed, o.ccr, o.beta, o.out_degree, o.alpha, platform);
    if (!w || hs_gen_platform(w, platform, HS_GEN_CPU_CORES, &err) < 0 ||
        hs_gen_random(w, &o, &err) < 0 || hs_workload_finalize(w, &err) != HS_OK) {
        fprintf(stderr, "best_bench: instance %d: %s\n", i, err.msg);
        hs_workload_free(w);
        return NULL;
    }
    return w;
}

/* The makespan of every task on device d, one after the other in
 * topological order (delay model: inputs from host, outputs back). */
static double one_device(const hs_workload *w, int d)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    int mem = pf->devices[d].memory;
    size_t *order = malloc(g->ntasks * sizeof *order);
    double now = 0, makespan = 0;
    hs_error err = {0};
    if (!order || hs_graph_topo_order(g, order, &err) != HS_OK) {
        free(order);
        return HUGE_VAL;
    }
    for (size_t k = 0; k < g->ntasks; k++) {
        const hs_task *t = &g->tasks[order[k]];
        double in = hs_transfer_us(pf, HS_HOST_MEMORY, mem, t->input_bytes);
        now = (in > now ? in : now) + t->cost_us[d];
        makespan = fmax(makespan, now + hs_transfer_us(pf, mem, HS_HOST_MEMORY, t->output_bytes));
    }
    free(order);
    return makespan;
}

int main(int argc, char **argv)
{
    enum { OPT_INSTANCES = 256, OPT_SEED, OPT_BUDGET, OPT_LIMIT };
    static const struct option longopts[] = {
        {"instances", required_argument, NULL, OPT_INSTANCES},
        {"seed", required_argument, NULL, OPT_SEED},
        {"budget-ms", required_argument, NULL, OPT_BUDGET},
        {"time-limit", required_argument, NULL, OPT_LIMIT},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    const hs_policy *const *pol = hs_policy_list();
    int instances = 100, verbose = 0, c, unproven = 0, done = 0, worse_app = 0, worse_one = 0;
    unsigned long seed = 1;
    double limit = 60;
    hs_map_options mopt = {0};
    size_t npol = 0;
    tally *t;
    while (pol[npol])
        npol++;
    while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_INSTANCES: instances = (int)bench_number(optarg); break;
        case OPT_SEED: seed = bench_number(optarg); break;
        case OPT_BUDGET: mopt.budget_ms = atof(optarg); break;
        case OPT_LIMIT: limit = atof(optarg); break;
        case 'v': verbose = 1; break;
        default:
            fputs("usage: best_bench [--instances N] [--seed S] [--budget-ms B] "
                  "[--time-limit S] [-v]\n",
                  stderr);
            return 2;
        }
    }
    if (instances < 1 || !seed || !(limit > 0) || !(mopt.budget_ms >= 0)) {
        fputs("best_bench: --instances, --seed want numbers >= 1, --time-limit > 0, "
              "--budget-ms >= 0\n",
              stderr);
        return 2;
    }
    if (!(t = calloc(npol, sizeof *t)))
        return 1;
    for (int i = 0; i < instances; i++) {
        char desc[256];
        hs_workload *w = instance(i, seed, desc, sizeof desc);
        hs_milp_options mo;
        hs_milp_result res;
        hs_error err = {0};
        double opt, app = HUGE_VAL, mine = HUGE_VAL, single = HUGE_VAL;
        if (!w)
            return 1;
        hs_milp_options_init(&mo);
        mo.time_limit_s = limit;
        mo.progress = 0;
        if (hs_milp_solve(w, &mo, &res, &err) != HS_OK) {
            fprintf(stderr, "best_bench: instance %d: %s\n", i, err.msg);
            return 1;
        }
        opt = res.makespan_us;
        if (res.status != HS_MILP_OPTIMAL) {
            unproven++;
            hs_milp_result_free(&res);
            hs_workload_free(w);
            continue;
        }
        hs_milp_result_free(&res);
        for (int d = 0; d < w->platform.ndevices; d++)
            single = fmin(single, one_device(w, d));
        for (size_t k = 0; k < npol; k++) {
            const char *name = hs_policy_name(pol[k]);
            hs_schedule *s = NULL;
            hs_map_stats st = {0};
            double r;
            if (hs_map(w, name, &mopt, &s, &st, &err) != HS_OK) {
                fprintf(stderr, "best_bench: %s on instance %d: %s\n", name, i, err.msg);
                return 1;
            }
            r = s->makespan_us / opt;
            t[k].sum += r;
            t[k].worst = fmax(t[k].worst, r);
            t[k].within += r <= 1.02;
            t[k].exact += r <= 1 + 1e-6;
            t[k].map_s += st.mapping_seconds;
            t[k].runs++;
            for (size_t j = 0; j < s->nplacements; j++)
                t[k].split |= s->placements[j].nparts > 1;
            if (strcmp(name, "app-level") == 0)
                app = s->makespan_us;
            if (strcmp(name, "best") == 0)
                mine = s->makespan_us;
            hs_schedule_free(s);
        }
        worse_app += mine > app * (1 + 1e-12);
        worse_one += mine > single * (1 + 1e-12);
        done++;
        if (verbose)
            printf("# %3d  optimum %10.3f  best/opt %.4f  (%s)\n", i, opt, mine / opt, desc);
        hs_workload_free(w);
    }
    printf("# %d instances of 6..12 tasks (seed %lu), %d proven optimal within %g s%s\n",
           instances, seed, done, limit, unproven ? "; the others left out" : "");
    printf("%-11s %9s %9s %10s %8s %10s\n", "policy", "mean/opt", "worst/opt", "within 2%",
           "optimal", "map ms");
    for (size_t k = 0; k < npol && done; k++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s", hs_policy_name(pol[k]), t[k].split ? "*" : "");
        printf("%-11s %9.4f %9.4f %6d/%-3d %5d/%-3d %10.3f\n", label, t[k].sum / t[k].runs,
               t[k].worst, t[k].within, t[k].runs, t[k].exact, t[k].runs,
               1e3 * t[k].map_s / t[k].runs);
    }
    printf("* split tasks across devices on some instances: the optimum is over whole\n"
           "  tasks, so its ratios may fall below 1 there\n");
    printf("best worse than app-level on %d instances, than the best single device on %d\n",
           worse_app, worse_one);
    free(t);
    return 0;
}
