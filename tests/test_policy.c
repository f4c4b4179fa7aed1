/* Conformance of every registered policy (hs_policy_list(), so that a policy
 * added to the registry is covered without touching this file): on hundreds
 * of seeded random workloads each one must produce a schedule that the
 * validator accepts, with every task placed once (or as parts summing to
 * 1), a makespan equal to the model's, and no better than two simple lower
 * bounds computed here; run as a given schedule, each whole-task schedule
 * keeps its devices and orders and ends no later. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"

#define NWORKLOADS 300
#define MAX_TASKS 40

static double uniform(unsigned short x[3], double lo, double hi)
{
    return lo + (hi - lo) * erand48(x);
}

/* A whole number in [lo, hi]. */
static int pick(unsigned short x[3], int lo, int hi)
{
    int v = lo + (int)(erand48(x) * (hi - lo + 1));
    return v > hi ? hi : v;
}

/* Bytes: none with probability `p_none`, else up to a megabyte. */
static double some_bytes(unsigned short x[3], double p_none)
{
    return erand48(x) < p_none ? 0 : (double)pick(x, 1, 1000000);
}

static void ok(int rc, const hs_error *err)
{
    if (rc < 0)
        fail_msg("builder: %s", err->msg);
}

/* A random workload: 1-4 devices (cpu0 on host first, then CPUs on host and
 * GPUs on their own memories or, now and then, sharing one), links between
 * every pair of memories with random bandwidth and latency, 1-3 applications
 * of 1-2 instances, random DAGs of at most MAX_TASKS tasks in all, random
 * costs (by kind, sometimes by device name, sometimes 0), inputs, outputs
 * and edge bytes (sometimes 0: a pure ordering edge). */
static hs_workload *random_workload(unsigned short x[3])
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int nd = pick(x, 1, 4), napps = pick(x, 1, 3), budget = MAX_TASKS, last_gpu_mem = -1;
    char name[32], mem[32];
    assert_non_null(w);
    ok(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), &err);
    for (int d = 1; d < nd; d++) {
        int gpu = erand48(x) < 0.6;
        snprintf(name, sizeof name, "%s%d", gpu ? "gpu" : "cpu", d);
        if (!gpu)
            snprintf(mem, sizeof mem, "host");
        else if (last_gpu_mem >= 0 && erand48(x) < 0.25)
            snprintf(mem, sizeof mem, "m%d", last_gpu_mem);
        else
            snprintf(mem, sizeof mem, "m%d", last_gpu_mem = d);
        ok(hs_platform_add_device(w, name, gpu ? HS_DEVICE_GPU : HS_DEVICE_CPU, mem, 0, &err),
           &err);
    }
    for (int q = 0; q < w->platform.nmemories; q++)
        for (int r = 0; r < w->platform.nmemories; r++)
            if (q != r)
                ok(hs_platform_add_link(w, w->platform.memories[q], w->platform.memories[r],
                                        uniform(x, 0.5, 20), uniform(x, 0, 20), &err),
                   &err);
    for (int a = 0; a < napps && budget > 0; a++) {
        int inst = pick(x, 1, 2), nk = pick(x, 1, budget / inst > 1 ? budget / inst : 1);
        int app;
        double p_edge = uniform(x, 0.05, 0.6);
        snprintf(name, sizeof name, "app%d", a);
        app = hs_workload_add_app(w, name, inst, &err);
        ok(app, &err);
        budget -= inst * nk;
        for (int k = 0; k < nk; k++) {
            snprintf(name, sizeof name, "k%d", k);
            ok(hs_app_add_kernel(w, app, name, &err), &err);
            ok(hs_kernel_set_cost(w, app, k, "cpu", erand48(x) < 0.05 ? 0 : uniform(x, 1, 1000),
                                  &err),
               &err);
            ok(hs_kernel_set_cost(w, app, k, "gpu", erand48(x) < 0.05 ? 0 : uniform(x, 1, 1000),
                                  &err),
               &err);
            if (erand48(x) < 0.2)
                ok(hs_kernel_set_cost(w, app, k, w->platform.devices[pick(x, 0, nd - 1)].name,
                                      uniform(x, 1, 2000), &err),
                   &err);
            ok(hs_kernel_set_bytes(w, app, k, some_bytes(x, 0.5), some_bytes(x, 0.5), &err),
               &err);
            for (int j = 0; j < k; j++)
                if (erand48(x) < p_edge) {
                    char from[32];
                    snprintf(from, sizeof from, "k%d", j);
                    ok(hs_app_add_edge(w, app, from, name, some_bytes(x, 0.2), &err), &err);
                }
        }
    }
    ok(hs_workload_finalize(w, &err), &err);
    return w;
}

/* The shortest time task t can take: its fastest cost when it ran whole;
 * when the schedule split it, the time of a perfect split over every
 * device at once, 1 / sum(1 / C[t][d]). */
static double shortest(const hs_graph *g, size_t t, int whole)
{
    double rate = 0;
    if (whole)
        return hs_task_min_cost(g, t);
    for (int d = 0; d < g->ndevices; d++) {
        if (g->tasks[t].cost_us[d] <= 0)
            return 0;
        rate += 1.0 / g->tasks[t].cost_us[d];
    }
    return 1.0 / rate;
}

/* Checks schedule s of w: valid, each task once or as parts summing to 1,
 * the model's makespan, and at least the critical path of shortest times
 * (no transfers) and the total shortest work spread over every device. */
static void check(const hs_workload *w, const hs_schedule *s, const char *policy, int seed)
{
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks;
    double *sum = calloc(n, sizeof *sum), *path = calloc(n, sizeof *path);
    size_t *count = calloc(n, sizeof *count), *order = calloc(n, sizeof *order);
    int *nparts = calloc(n, sizeof *nparts);
    double cp = 0, work = 0;
    hs_error err = {0};
    assert_true(sum && path && count && order && nparts);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s on workload %d: %s", policy, seed, err.msg);
    assert_string_equal(s->algorithm, policy);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        assert_true(p->task < n);
        sum[p->task] += p->fraction;
        count[p->task]++;
        nparts[p->task] = p->nparts;
    }
    for (size_t t = 0; t < n; t++) {
        if (count[t] != (size_t)nparts[t] || fabs(sum[t] - 1) > 1e-9)
            fail_msg("%s on workload %d: task %zu placed %zu times as parts of %d, fractions "
                     "summing to %g",
                     policy, seed, t, count[t], nparts[t], sum[t]);
    }
    assert_float_equal(s->makespan_us, hs_schedule_makespan(w, s),
                       1e-9 * fmax(1, s->makespan_us));
    assert_int_equal(hs_graph_topo_order(g, order, &err), HS_OK);
    for (size_t k = 0; k < n; k++) {
        size_t t = order[k];
        const hs_edge *e;
        double here = shortest(g, t, nparts[t] == 1);
        path[t] += here;
        work += here;
        if (path[t] > cp)
            cp = path[t];
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (path[t] > path[e->to])
                path[e->to] = path[t];
        }
    }
    if (s->makespan_us < cp - 1e-6 * fmax(1, cp))
        fail_msg("%s on workload %d: makespan %.6f beats the critical path %.6f", policy, seed,
                 s->makespan_us, cp);
    if (s->makespan_us * g->ndevices < work - 1e-6 * fmax(1, work))
        fail_msg("%s on workload %d: makespan %.6f on %d devices beats the work %.6f", policy,
                 seed, s->makespan_us, g->ndevices, work);
    free(sum);
    free(path);
    free(count);
    free(order);
    free(nparts);
}

/* Schedule s of a policy run as given (hs_map_options.schedule), when it is
 * of whole tasks: each task on the same device, each device's tasks in the
 * same order, and, the costs being the same, no later end: each task starts
 * once its device and its inputs let it, which the policy's start did too. */
static void replay(hs_workload *w, const hs_schedule *s, const char *policy, int seed)
{
    hs_map_options opt = {.schedule = s};
    hs_schedule *r = NULL;
    hs_error err = {0};
    size_t n = w->graph.ntasks, *in_s = calloc(n, sizeof *in_s), *in_r = calloc(n, sizeof *in_r);
    assert_true(in_s && in_r);
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].nparts != 1)
            goto out;
    if (hs_map(w, NULL, &opt, &r, NULL, &err) != HS_OK)
        fail_msg("%s on workload %d, run as given: %s", policy, seed, err.msg);
    check(w, r, "given", seed);
    for (size_t i = 0; i < n; i++) {
        in_s[s->placements[i].task] = i;
        in_r[r->placements[i].task] = i;
    }
    for (size_t a = 0; a < n; a++) {
        const hs_placement *sa = &s->placements[in_s[a]], *ra = &r->placements[in_r[a]];
        if (ra->device != sa->device)
            fail_msg("%s on workload %d, run as given: task %zu on device %d, not %d", policy,
                     seed, a, ra->device, sa->device);
        for (size_t b = 0; b < n; b++) {
            const hs_placement *sb = &s->placements[in_s[b]], *rb = &r->placements[in_r[b]];
            if (sb->device == sa->device && sa->start_us < sb->start_us &&
                ra->end_us > rb->start_us + 1e-9 * fmax(1, rb->start_us))
                fail_msg("%s on workload %d, run as given: task %zu ends at %.6f after task "
                         "%zu, which came after it on device %d, starts at %.6f", policy, seed,
                         a, ra->end_us, b, sa->device, rb->start_us);
        }
    }
    if (r->makespan_us > s->makespan_us + 1e-9 * fmax(1, s->makespan_us))
        fail_msg("%s on workload %d: makespan %.6f, run as given %.6f", policy, seed,
                 s->makespan_us, r->makespan_us);
out:
    hs_schedule_free(r);
    free(in_s);
    free(in_r);
}

static void conformance(void **state)
{
    unsigned short x[3] = {0x330e, 2014, 3};
    const hs_policy *const *p = hs_policy_list();
    size_t runs = 0, tasks = 0, transfers = 0, npol = 0;
    (void)state;
    while (p[npol])
        npol++;
    for (int i = 0; i < NWORKLOADS; i++) {
        hs_workload *w = random_workload(x);
        hs_map_options opt = {.seed = (unsigned long)i, .thr = pick(x, 0, 4)};
        for (size_t k = 0; p[k]; k++) {
            const char *name = hs_policy_name(p[k]);
            hs_schedule *s = NULL;
            hs_map_stats st = {0};
            hs_error err = {0};
            double busy = 0;
            if (hs_map(w, name, &opt, &s, &st, &err) != HS_OK)
                fail_msg("%s on workload %d: %s", name, i, err.msg);
            check(w, s, name, i);
            replay(w, s, name, i);
            for (size_t j = 0; j < s->nplacements; j++)
                busy += s->placements[j].end_us - s->placements[j].start_us;
            assert_float_equal(st.busy_us_total, busy, 1e-6 * fmax(1, busy));
            transfers += s->ntransfers;
            hs_schedule_free(s);
            runs++;
        }
        tasks += w->graph.ntasks;
        hs_workload_free(w);
    }
    print_message("%zu runs: %zu policies on %d workloads of %zu tasks in all; %zu transfers\n",
                  runs, npol, NWORKLOADS, tasks, transfers);
    assert_int_equal(runs, npol * NWORKLOADS);
}

/* The registry: names unique and found by name, descriptions one line. */
static void registry(void **state)
{
    const hs_policy *const *p = hs_policy_list();
    static const char *const baselines[] = {"eager", "cpu-only", "app-level", "random", "dmda",
                                            "dmdar", "heft", "peft", "heft-wm", "hoft",
                                            "hoft-wm", "cpop", "lookahead", "heteroprio",
                                            "best"};
    size_t n = 0;
    (void)state;
    for (; p[n]; n++) {
        const char *d = hs_policy_description(p[n]);
        assert_ptr_equal(hs_policy_find(hs_policy_name(p[n])), p[n]);
        assert_non_null(d);
        assert_true(strlen(d) > 0);
        assert_null(strchr(d, '\n'));
        for (size_t j = 0; j < n; j++)
            assert_string_not_equal(hs_policy_name(p[j]), hs_policy_name(p[n]));
    }
    for (size_t i = 0; i < sizeof baselines / sizeof *baselines; i++)
        assert_non_null(hs_policy_find(baselines[i]));
    assert_null(hs_policy_find("nope"));
    assert_null(hs_policy_find(NULL));
    assert_true(n >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry),
        cmocka_unit_test(conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
