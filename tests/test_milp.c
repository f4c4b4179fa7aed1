/* Tests of milp/: both formulations against an exhaustive search on seeded
 * random instances (transfers, inputs, outputs, repeated instances,
 * identical devices), hand-checked classics (P||Cmax, P|prec|Cmax, a chain
 * across a link), the cheap lower bound, refusals, the time limit, CBC where
 * built in, and two threads solving at once.
 *
 * HS_MILP_TEST_INSTANCES sets the number of random instances (default 300;
 * 40 when HS_SANITIZED is set, as build.sh does for the sanitizer run). */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"
#include "hs_config.h"
#include "milp/milp_int.h"

/* ---------------------------------------------------------------- helpers */

static hs_milp_options quiet(hs_milp_formulation f)
{
    hs_milp_options o;
    hs_milp_options_init(&o);
    o.formulation = f;
    o.progress = 0;
    /* no time limit in practice: the answers these tests expect must not
     * depend on how loaded the machine is (the plain compact model takes
     * 70k nodes, 30 s of CPU, on a few instances; a loaded machine gives it a
     * fraction of a core).  meson's timeout is the safety net. */
    o.time_limit_s = 1e7;
    return o;
}

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9)
        fail_msg("got %.12g, want %.12g", got, want);
}

/* Solves w, checks the result is optimal, valid and equal to `want`. */
static const char *case_name = "";

static void expect_optimum(hs_workload *w, hs_milp_formulation f, unsigned features,
                           double want)
{
    hs_milp_options o = quiet(f);
    hs_milp_result r;
    hs_error err = {0};
    o.features = features;
    if (hs_milp_solve(w, &o, &r, &err) != HS_OK)
        fail_msg("hs_milp_solve: %s", err.msg);
    if (r.status != HS_MILP_OPTIMAL || fabs(r.makespan_us - want) > 1e-6 * want + 1e-9)
        fail_msg("%s, %s formulation, features %#x: %s, makespan %.12g, want %.12g",
                 case_name, f == HS_MILP_PAPER ? "paper" : "compact", features,
                 hs_milp_status_name(r.status), r.makespan_us, want);
    assert_non_null(r.schedule);
    assert_close(r.bound_us, want);
    assert_string_equal(r.schedule->algorithm, "optimal");
    if (hs_schedule_validate(w, r.schedule, &err) != HS_OK)
        fail_msg("invalid optimal schedule: %s", err.msg);
    assert_close(hs_schedule_makespan(w, r.schedule), want);
    hs_milp_result_free(&r);
}

/* ------------------------------------------------------ exhaustive search */

/* The reference: every topological order x every assignment, each task
 * appended on its device (starts at max(device free, input arrival, every
 * predecessor's end + transfer)).  Two prunings keep it fast and exact:
 *  - a partial makespan never shrinks as tasks are appended, so a branch at
 *    or above the best complete one cannot improve it;
 *  - two consecutive tasks on different devices with no edge between them
 *    give the same schedule in either order, so only the one with the
 *    smaller index first is followed. */
typedef struct ref {
    const hs_workload *w;
    size_t n;
    int m;
    int dev[16];
    double end[16], avail[8];
    int placed[16], missing[16];
    double best;
} ref;

static int edge_between(const hs_graph *g, size_t u, size_t v)
{
    const hs_edge *e;
    HS_GRAPH_SUCC_FOREACH(g, u, e)
    {
        if (e->to == v)
            return 1;
    }
    return 0;
}

static void ref_dfs(ref *R, size_t depth, long last, int lastdev, double cur)
{
    const hs_graph *g = &R->w->graph;
    const hs_platform *p = &R->w->platform;
    if (depth == R->n) {
        if (cur < R->best)
            R->best = cur;
        return;
    }
    for (size_t t = 0; t < R->n; t++) {
        if (R->placed[t] || R->missing[t])
            continue;
        for (int d = 0; d < R->m; d++) {
            int mem = p->devices[d].memory;
            double st = R->avail[d], en, ms, saved;
            const hs_edge *e;
            if (last >= 0 && (long)t < last && d != lastdev &&
                !edge_between(g, (size_t)last, t))
                continue;
            st = fmax(st, hs_transfer_us(p, HS_HOST_MEMORY, mem, g->tasks[t].input_bytes));
            HS_GRAPH_PRED_FOREACH(g, t, e)
            {
                st = fmax(st, R->end[e->from] +
                                  hs_transfer_us(p, p->devices[R->dev[e->from]].memory, mem,
                                                 e->bytes));
            }
            en = st + g->tasks[t].cost_us[d];
            ms = fmax(cur, en + hs_transfer_us(p, mem, HS_HOST_MEMORY,
                                               g->tasks[t].output_bytes));
            if (ms >= R->best)
                continue;
            saved = R->avail[d];
            R->placed[t] = 1;
            R->dev[t] = d;
            R->end[t] = en;
            R->avail[d] = en;
            HS_GRAPH_SUCC_FOREACH(g, t, e)
            {
                R->missing[e->to]--;
            }
            ref_dfs(R, depth + 1, (long)t, d, ms);
            HS_GRAPH_SUCC_FOREACH(g, t, e)
            {
                R->missing[e->to]++;
            }
            R->avail[d] = saved;
            R->placed[t] = 0;
        }
    }
}

static double exhaustive(const hs_workload *w)
{
    ref R;
    memset(&R, 0, sizeof R);
    R.w = w;
    R.n = w->graph.ntasks;
    R.m = w->platform.ndevices;
    R.best = HUGE_VAL;
    assert_true(R.n <= 16 && R.m <= 8);
    for (size_t t = 0; t < R.n; t++)
        R.missing[t] = (int)(w->graph.pred_off[t + 1] - w->graph.pred_off[t]);
    ref_dfs(&R, 0, -1, -1, 0);
    return R.best;
}

/* ------------------------------------------------------- random instances */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n) /* uniform in [0, n) */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

/* A random workload of 2..8 tasks (at most) on 2 or 3 devices: one of three
 * platforms (cpu+gpu; cpu+2 gpus; 2 cpus on host + gpu, the cpus sometimes
 * identical), links between every pair of memories, 1-3 applications of
 * 1-4 kernels with random edges, sometimes 2 or 3 instances, costs 0..20 us
 * (0 rarely), edge, input and output bytes 0..8000 (1 GB/s = 1000 B/us). */
static hs_workload *random_workload(uint64_t seed)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    const char *mems[3] = {"host", "gpu0", "gpu1"};
    int plat, nmem, left, napps, same_cpus;
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 12345;
    left = 2 + (int)rnd(7);
    assert_non_null(w);
    plat = (int)rnd(3);
    same_cpus = rnd(2) == 0;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    if (plat == 2)
        assert_true(hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    assert_true(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    if (plat == 1)
        assert_true(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err) >= 0);
    nmem = plat == 1 ? 3 : 2;
    for (int a = 0; a < nmem; a++)
        for (int b = 0; b < nmem; b++)
            if (a != b)
                assert_true(hs_platform_add_link(w, mems[a], mems[b], 1.0 + rnd(4),
                                                 (double)rnd(4), &err) >= 0);
    napps = 1 + (int)rnd(3);
    for (int a = 0; a < napps && left > 0; a++) {
        char name[8];
        int nk = 1 + (int)rnd(4), inst, ai;
        if (nk > left)
            nk = left;
        inst = 1;
        if (rnd(2) == 0 && 2 * nk <= left)
            inst = 2 + (3 * nk <= left && rnd(2) == 0);
        left -= nk * inst;
        snprintf(name, sizeof name, "a%d", a);
        ai = hs_workload_add_app(w, name, inst, &err);
        assert_true(ai >= 0);
        for (int k = 0; k < nk; k++) {
            char kn[8];
            snprintf(kn, sizeof kn, "k%d", k);
            assert_int_equal(hs_app_add_kernel(w, ai, kn, &err), k);
            if (same_cpus) {
                assert_int_equal(hs_kernel_set_cost(w, ai, k, "cpu", rnd(12) ? 1 + rnd(20) : 0,
                                                    &err), 0);
            } else {
                assert_int_equal(hs_kernel_set_cost(w, ai, k, "cpu0", 1 + rnd(20), &err), 0);
                if (plat == 2)
                    assert_int_equal(hs_kernel_set_cost(w, ai, k, "cpu1", 1 + rnd(20), &err), 0);
            }
            assert_int_equal(hs_kernel_set_cost(w, ai, k, "gpu", rnd(12) ? 1 + rnd(20) : 0, &err),
                             0);
            assert_int_equal(hs_kernel_set_bytes(w, ai, k, rnd(2) ? rnd(8001) : 0,
                                                 rnd(2) ? rnd(8001) : 0, &err), 0);
        }
        for (int k = 0; k < nk; k++)
            for (int l = k + 1; l < nk; l++)
                if (rnd(5) < 2) {
                    char from[8], to[8];
                    snprintf(from, sizeof from, "k%d", k);
                    snprintf(to, sizeof to, "k%d", l);
                    assert_true(hs_app_add_edge(w, ai, from, to, rnd(4) ? rnd(8001) : 0, &err) >=
                                0);
                }
    }
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("finalize: %s", err.msg);
    return w;
}

static int instances_to_run(void)
{
    const char *s = getenv("HS_MILP_TEST_INSTANCES");
    int n = s ? atoi(s) : getenv("HS_SANITIZED") ? 40 : 300;
    return n > 0 ? n : 1;
}

/* Every whole-task schedule is at least the optimum: so are the policies'. */
static void policies_not_below(hs_workload *w, double opt)
{
    for (const hs_policy *const *p = hs_policy_list(); *p; p++) {
        hs_schedule *s = NULL;
        hs_error err = {0};
        int whole = 1;
        if (hs_map(w, hs_policy_name(*p), NULL, &s, NULL, &err) != HS_OK)
            fail_msg("policy %s: %s", hs_policy_name(*p), err.msg);
        for (size_t i = 0; i < s->nplacements; i++)
            whole &= s->placements[i].nparts == 1;
        if (whole && s->makespan_us < opt * (1 - 1e-6) - 1e-9)
            fail_msg("policy %s: makespan %.9g below the optimum %.9g", hs_policy_name(*p),
                     s->makespan_us, opt);
        hs_schedule_free(s);
    }
}

static void random_vs_exhaustive(void **state)
{
    int n = instances_to_run();
    (void)state;
    for (int i = 0; i < n; i++) {
        hs_workload *w = random_workload((uint64_t)i + 1);
        double opt = exhaustive(w);
        char name[32];
        snprintf(name, sizeof name, "random instance %d", i + 1);
        case_name = name;
        /* the plain compact model too, on some: every strengthening is
         * optional and must not change the optimum */
        unsigned plain = i % 4 == 0 ? 0 : i % 4 == 1 ? HS_MILP_USE_INCUMBENT : HS_MILP_USE_ALL;
        assert_true(isfinite(opt));
        assert_true(hs_lower_bound_us(w) <= opt * (1 + 1e-9) + 1e-9);
        expect_optimum(w, HS_MILP_COMPACT, HS_MILP_USE_ALL, opt);
        expect_optimum(w, HS_MILP_PAPER, HS_MILP_USE_ALL, opt);
        if (plain != HS_MILP_USE_ALL)
            expect_optimum(w, HS_MILP_COMPACT, plain, opt);
        if (i % 4 == 2 && w->graph.ntasks <= 6) /* the paper's model as printed */
            expect_optimum(w, HS_MILP_PAPER, HS_MILP_USE_INCUMBENT, opt);
        policies_not_below(w, opt);
        hs_workload_free(w);
    }
}

/* ---------------------------------------------------------- hand-checked */

/* `ndev` identical CPU devices on host memory (no transfers at all) and one
 * application of independent kernels, or with the given edges. */
static hs_workload *identical(int ndev, const double *cost, int n, const int (*edges)[2],
                              int nedges)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    for (int d = 0; d < ndev; d++) {
        char name[8];
        snprintf(name, sizeof name, "cpu%d", d);
        assert_int_equal(hs_platform_add_device(w, name, HS_DEVICE_CPU, "host", 1, &err), d);
    }
    assert_int_equal(hs_workload_add_app(w, "p", 1, &err), 0);
    for (int k = 0; k < n; k++) {
        char kn[8];
        snprintf(kn, sizeof kn, "j%d", k);
        assert_int_equal(hs_app_add_kernel(w, 0, kn, &err), k);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", cost[k], &err), 0);
    }
    for (int e = 0; e < nedges; e++) {
        char from[8], to[8];
        snprintf(from, sizeof from, "j%d", edges[e][0]);
        snprintf(to, sizeof to, "j%d", edges[e][1]);
        assert_true(hs_app_add_edge(w, 0, from, to, 1000, &err) >= 0);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    return w;
}

static void both(hs_workload *w, double want)
{
    case_name = "hand-checked";
    expect_optimum(w, HS_MILP_COMPACT, HS_MILP_USE_ALL, want);
    expect_optimum(w, HS_MILP_COMPACT, 0, want);
    expect_optimum(w, HS_MILP_PAPER, HS_MILP_USE_ALL, want);
    expect_optimum(w, HS_MILP_PAPER, HS_MILP_USE_INCUMBENT, want); /* as printed */
    assert_close(exhaustive(w), want);
}

/* P2||Cmax, jobs 3 3 2 2 2: {3,3} and {2,2,2} give 6 = total 12 / 2, the
 * load bound, so 6 is optimal (LPT gives 7: 3|3, 2|2, then 2 -> 7). */
static void p2_cmax(void **state)
{
    static const double c[] = {3, 3, 2, 2, 2};
    hs_workload *w = identical(2, c, 5, NULL, 0);
    (void)state;
    assert_close(hs_lower_bound_us(w), 6);
    both(w, 6);
    hs_workload_free(w);
}

/* P3||Cmax, jobs 7 6 5 4 3 3: total 28, so some machine gets >= 28/3, and
 * with whole numbers >= 10; {7,3} {6,4} {5,3} reach 10.  The cheap bound
 * (9.33) does not prove it: the search must. */
static void p3_cmax(void **state)
{
    static const double c[] = {7, 6, 5, 4, 3, 3};
    hs_workload *w = identical(3, c, 6, NULL, 0);
    (void)state;
    assert_close(hs_lower_bound_us(w), 28.0 / 3);
    both(w, 10);
    hs_workload_free(w);
}

/* P2|prec|Cmax: three chains a(2) -> b(1) on two machines.  Work 9 on 2
 * machines needs >= 4.5, and with whole durations and no transfers the
 * earliest starts are whole numbers, so >= 5; e.g. m0: a0 [0,2] a2 [2,4]
 * b2 [4,5], m1: a1 [0,2] b0 [2,3] b1 [3,4] reaches 5.  The edges carry
 * bytes, but every device computes from host memory: transfers are 0. */
static void p2_prec_cmax(void **state)
{
    static const double c[] = {2, 1, 2, 1, 2, 1};
    static const int e[][2] = {{0, 1}, {2, 3}, {4, 5}};
    hs_workload *w = identical(2, c, 6, e, 3);
    (void)state;
    assert_close(hs_lower_bound_us(w), 4.5);
    both(w, 5);
    hs_workload_free(w);
}

/* A chain u -> v over a link: cpu0 (host) and gpu0; host <-> gpu0 at
 * 12 GB/s, 1 us: 12000 bytes take 1 + 12000 / 12000 = 2 us.  u reads 12000
 * bytes from host, v writes 12000 back, the edge carries 12000.
 * Costs u, v: cpu 10, gpu 2.  Both on gpu0: 2 (input) + 2 + 2 + 2 (output)
 * = 8; both on cpu0: 20; split: 2+2+2+10 = 16 or 10+2+2+2 = 16.  So 8, and
 * the bound sees it: head(u,gpu) 2 + 2 + tail(u,gpu) = min(0+2+2, 2+10+0). */
static void chain_over_link(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_true(hs_platform_add_link(w, "host", "gpu0", 12, 1, &err) >= 0);
    assert_true(hs_platform_add_link(w, "gpu0", "host", 12, 1, &err) >= 0);
    assert_int_equal(hs_workload_add_app(w, "c", 1, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "u", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "v", &err), 1);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", 10, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 2, &err), 0);
    }
    assert_int_equal(hs_kernel_set_bytes(w, 0, 0, 12000, 0, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, 1, 0, 12000, &err), 0);
    assert_true(hs_app_add_edge(w, 0, "u", "v", 12000, &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_close(hs_lower_bound_us(w), 8);
    both(w, 8);
    hs_workload_free(w);
}

/* Two GPUs on their own memories, no CPU and so no link to host (nothing
 * needs one).  x (100) feeds y (200) and z (50) with 1000 bytes each over a
 * 10 GB/s, 10 us peer link (10.1 us).  x and y on one GPU make the chain
 * x + y = 300, a lower bound; z on the other GPU ends at 100 + 10.1 + 50 =
 * 160.1, so 300 is optimal. */
static void gpus_without_host(void **state)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    char path[512];
    (void)state;
    snprintf(path, sizeof path, "%s/tests/cases/gpu-only.yaml", getenv("HS_SOURCE_ROOT"));
    if (hs_workload_load_file(path, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    both(w, 300);
    hs_workload_free(w);
}

/* Two GPUs on their own memories, 10 us over the link between them (5 us
 * latency + 5000 bytes at 1 GB/s), every task 10 us on either.  A join:
 * a, b, c -> t.  Taken one at a time each predecessor could end at 10 on
 * t's GPU, so the plain critical path is 20; but those on t's GPU run one
 * after the other and the others' data arrives at 20: t starts at 20
 * earliest, and 30 is a bound.  It is the optimum: a, b on gpu0, c on
 * gpu1, t on gpu0 at 20.  The fork t -> a, b, c mirrors it (tails). */
/* gpu0 and gpu1 on their own memories, joined both ways at 1 GB/s after
 * 5 us, and an application `name` without kernels yet. */
static hs_workload *two_gpus(const char *name)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err), 1);
    assert_true(hs_platform_add_link(w, "gpu0", "gpu1", 1, 5, &err) >= 0);
    assert_true(hs_platform_add_link(w, "gpu1", "gpu0", 1, 5, &err) >= 0);
    assert_int_equal(hs_workload_add_app(w, name, 1, &err), 0);
    return w;
}

static hs_workload *fan(int join)
{
    hs_workload *w = two_gpus("f");
    hs_error err = {0};
    static const char *const names[] = {"a", "b", "c"};
    assert_int_equal(hs_app_add_kernel(w, 0, "t", &err), 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(hs_app_add_kernel(w, 0, names[k], &err), k + 1);
    for (int k = 0; k < 4; k++)
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 10, &err), 0);
    for (int k = 0; k < 3; k++)
        assert_true(hs_app_add_edge(w, 0, join ? names[k] : "t", join ? "t" : names[k], 5000,
                                    &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    return w;
}

static void join_and_fork(void **state)
{
    (void)state;
    for (int join = 0; join < 2; join++) {
        hs_workload *w = fan(join);
        assert_close(hs_lower_bound_us(w), 30);
        both(w, 30);
        hs_workload_free(w);
    }
}

/* A join whose predecessors are kept on t's device in an order other than
 * the one they are taken in: a (head 10 behind pa, cost 10, its data 100 us
 * away) is taken first, b (head 0, cost 10, 50 us away) second but runs
 * first.  Every task takes 10 us on either GPU (two_gpus).  With both on t's
 * device they end at 20 (b [0,10], a [10,20]), not 30 (a first): head(t)
 * = min(120, max(20, 60), 20) = 20, and the bound is head + cost = 30 (as
 * for pa: 0 + 10 + tail 20, and a: 10 + 10 + 10). */
static void join_run_in_other_order(void **state)
{
    hs_workload *w = two_gpus("j");
    hs_error err = {0};
    static const char *const names[] = {"pa", "a", "b", "t"};
    (void)state;
    for (int k = 0; k < 4; k++) {
        assert_int_equal(hs_app_add_kernel(w, 0, names[k], &err), k);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 10, &err), 0);
    }
    /* 5 us + bytes at 1 GB/s: 10, 100 and 50 us */
    assert_true(hs_app_add_edge(w, 0, "pa", "a", 5000, &err) >= 0);
    assert_true(hs_app_add_edge(w, 0, "a", "t", 95000, &err) >= 0);
    assert_true(hs_app_add_edge(w, 0, "b", "t", 45000, &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_close(hs_lower_bound_us(w), 30);
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- refusals */

static void refusals(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_milp_options o = quiet(HS_MILP_COMPACT);
    hs_milp_result r;
    hs_error err = {0};
    double c[1] = {1};
    (void)state;
    /* not finalized */
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_EINPUT);
    assert_string_equal(err.msg, "the workload is not finalized");
    assert_null(r.schedule);
    assert_true(hs_lower_bound_us(w) == 0);
    hs_workload_free(w);
    /* bad options */
    w = identical(1, c, 1, NULL, 0);
    o.time_limit_s = 0;
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_EUSAGE);
    o = quiet(HS_MILP_COMPACT);
    o.rel_gap = -1;
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_EUSAGE);
    o = quiet(HS_MILP_COMPACT);
    o.formulation = (hs_milp_formulation)7;
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_EUSAGE);
    /* one task on one device: no binary to branch on, still optimal */
    expect_optimum(w, HS_MILP_COMPACT, HS_MILP_USE_ALL, 1);
    expect_optimum(w, HS_MILP_PAPER, HS_MILP_USE_ALL, 1);
    hs_workload_free(w);
}

/* ------------------------------------------------ too large for the MILP */

/* `n` independent tasks without data, each 4 us on cpu0 and 1 us on gpu0.
 * With k of them on the CPU the makespan is max(4k, n - k): least at
 * k = n / 5, so 4n / 5 when 5 divides n.  The relaxation without ordering
 * rows finds the same: X tasks' worth on the CPU, 4X = n - X. */
static hs_workload *cpu_gpu_independent(int n)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_workload_add_app(w, "p", 1, &err), 0);
    for (int k = 0; k < n; k++) {
        char kn[16];
        snprintf(kn, sizeof kn, "j%d", k);
        assert_int_equal(hs_app_add_kernel(w, 0, kn, &err), k);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", 4, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 1, &err), 0);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    return w;
}

/* A workload the model cannot take gets the best heuristic schedule and
 * the relaxation's bound, not a refusal. */
static void expect_bound_only(hs_workload *w, hs_milp_formulation f, double want_bound,
                              const char *why)
{
    hs_milp_options o = quiet(f);
    hs_milp_result r;
    hs_error err = {0};
    if (hs_milp_solve(w, &o, &r, &err) != HS_OK)
        fail_msg("hs_milp_solve: %s", err.msg);
    if (!strstr(r.not_built, why))
        fail_msg("not_built '%s' does not say '%s'", r.not_built, why);
    assert_non_null(r.schedule);
    assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
    assert_close(r.root_bound_us, want_bound);
    assert_close(r.bound_us, want_bound);
    assert_true(r.makespan_us >= want_bound * (1 - 1e-9));
    assert_true(r.status == HS_MILP_OPTIMAL || r.status == HS_MILP_FEASIBLE);
    assert_true(r.status != HS_MILP_OPTIMAL || r.gap == 0);
    assert_int_equal(r.rows, 0);
    assert_false(r.interrupted);
    hs_milp_result_free(&r);
}

static void too_large(void **state)
{
    hs_workload *w;
    (void)state;
    /* 200 tasks are N (N-1)^2 m = 15.8M rows for the paper formulation */
    w = cpu_gpu_independent(200);
    expect_bound_only(w, HS_MILP_PAPER, 160, "the paper formulation of 200 tasks on 2 devices");
    hs_workload_free(w);
    /* past the task limit: no closure, no model of either kind */
    w = cpu_gpu_independent(HS_MILP_MAX_TASKS + 5);
    expect_bound_only(w, HS_MILP_COMPACT, 4.0 * (HS_MILP_MAX_TASKS + 5) / 5,
                      "the MILP takes at most 1000 tasks; this workload has 1005");
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- stopping */

/* Random Topcuoglu graphs as milp_bench draws them: `tasks` on cpu:1,gpu:2. */
static hs_workload *generated(size_t tasks, unsigned long seed)
{
    hs_workload *w = hs_workload_new();
    hs_gen_random_opts o;
    hs_error err = {0};
    hs_gen_random_defaults(&o);
    o.tasks = tasks;
    o.seed = seed;
    assert_non_null(w);
    if (hs_gen_platform(w, "cpu:1,gpu:2", HS_GEN_CPU_CORES, &err) < 0 ||
        hs_gen_random(w, &o, &err) < 0 || hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

/* What every stopped search returns: the best schedule so far, valid, and a
 * bound below it. */
static void check_stopped(hs_workload *w, const hs_milp_result *r)
{
    hs_error err = {0};
    assert_non_null(r->schedule);
    if (hs_schedule_validate(w, r->schedule, &err) != HS_OK)
        fail_msg("invalid schedule after a stop: %s", err.msg);
    assert_true(r->bound_us <= r->makespan_us);
    assert_true(r->bound_us >= hs_lower_bound_us(w) * (1 - 1e-12));
    if (r->interrupted) {
        assert_int_equal(r->status, HS_MILP_FEASIBLE);
        assert_close(r->gap, (r->makespan_us - r->bound_us) / r->makespan_us);
    } else {
        assert_int_equal(r->status, HS_MILP_OPTIMAL);
    }
}

/* A stop asked before the call: the heuristics' first schedules, the cheap
 * bound, no search. */
static void stop_before(void **state)
{
    hs_workload *w = generated(30, 7);
    volatile sig_atomic_t stop = 1;
    hs_milp_options o = quiet(HS_MILP_COMPACT);
    hs_milp_result r;
    hs_error err = {0};
    (void)state;
    o.stop = &stop;
    for (int solver = 0; solver < 1 + HS_HAVE_CBC; solver++) {
        o.solver = solver ? HS_MILP_CBC : HS_MILP_GLPK;
        assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_OK);
        check_stopped(w, &r);
        assert_true(r.interrupted);
        assert_close(r.bound_us, hs_lower_bound_us(w));
        assert_true(r.nodes == 0);
        assert_true(isnan(r.root_bound_us));
        hs_milp_result_free(&r);
    }
    hs_workload_free(w);
}

/* The node hook of the search (milp_int.h): sets the stop flag at its
 * stop_at-th call, as an interrupt landing there would, and counts calls. */
static long hook_calls, hook_stop_at;

static void stop_at_call(volatile sig_atomic_t *stop)
{
    if (++hook_calls == hook_stop_at)
        __atomic_store_n(stop, 1, __ATOMIC_RELAXED); /* CBC's watcher thread reads it */
}

/* A stop asked in the middle of the branch and bound, at a chosen node (the
 * same on every machine): the search ends there, marked interrupted, with
 * the best schedule so far and the bound it had proven, above the cheap
 * bound's at the root. */
static void stop_during(void **state)
{
    hs_workload *w = generated(40, 11);
    (void)state;
    hs__milp_node_hook = stop_at_call;
    for (int solver = 0; solver < 1 + HS_HAVE_CBC; solver++) {
        for (long at = 1; at <= 100; at *= 10) {
            volatile sig_atomic_t stop = 0;
            hs_milp_options o = quiet(HS_MILP_COMPACT);
            hs_milp_result r;
            hs_error err = {0};
            o.stop = &stop;
            o.solver = solver ? HS_MILP_CBC : HS_MILP_GLPK;
            hook_calls = 0;
            hook_stop_at = at;
            assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_OK);
            if (hook_calls < at)
                fail_msg("%s closed the instance in %ld node calls: it needs a harder one",
                         solver ? "CBC" : "GLPK", hook_calls);
            assert_true(r.interrupted);
            check_stopped(w, &r);
            if (!solver) /* GLPK's search starts from the relaxation it reports */
                assert_false(isnan(r.root_bound_us));
            assert_true(r.bound_us >= hs_lower_bound_us(w) * (1 - 1e-12));
            assert_true(r.makespan_us <= r.incumbent_us);
            hs_milp_result_free(&r);
        }
    }
    hs__milp_node_hook = NULL;
    hs_workload_free(w);
}

/* A search cut short still returns a valid schedule and a bound below it. */
static void time_limit(void **state)
{
    /* 14 independent tasks on 3 identical devices: slow for the paper model */
    static const double c[] = {7, 6, 5, 4, 3, 3, 9, 8, 2, 2, 5, 6, 7, 1};
    hs_workload *w = identical(3, c, 14, NULL, 0);
    hs_milp_options o = quiet(HS_MILP_PAPER);
    hs_milp_result r;
    hs_error err = {0};
    (void)state;
    o.time_limit_s = 0.3;
    o.features = 0; /* no incumbent: the solver may find nothing in time */
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_OK);
    if (r.schedule) {
        assert_true(r.status == HS_MILP_OPTIMAL || r.status == HS_MILP_FEASIBLE);
        assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
        assert_true(r.bound_us <= r.makespan_us);
    } else {
        assert_int_equal(r.status, HS_MILP_NO_SOLUTION);
    }
    hs_milp_result_free(&r);
    o.features = HS_MILP_USE_ALL; /* with the heuristic there is always one */
    assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_OK);
    assert_non_null(r.schedule);
    assert_true(r.makespan_us >= 68.0 / 3); /* total work 68 on 3 devices */
    assert_true(r.bound_us <= r.makespan_us);
    assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
    hs_milp_result_free(&r);
    hs_workload_free(w);
}

/* ----------------------------------------------------------- CBC, threads */

static void cbc_solver(void **state)
{
    hs_milp_options o = quiet(HS_MILP_COMPACT);
    hs_milp_result r;
    hs_error err = {0};
    hs_workload *w = random_workload(7);
    double opt = exhaustive(w);
    (void)state;
    o.solver = HS_MILP_CBC;
    if (!HS_HAVE_CBC) {
        assert_int_equal(hs_milp_solve(w, &o, &r, &err), HS_ENOTBUILT);
        hs_workload_free(w);
        return;
    }
    for (int i = 0; i < 10; i++) {
        for (int f = 0; f < 2; f++) {
            o.formulation = f ? HS_MILP_PAPER : HS_MILP_COMPACT;
            /* the plain compact model on every other one; the paper model
             * without its incumbent takes CBC minutes on 8 tasks */
            o.features = i % 2 || f ? HS_MILP_USE_ALL : 0;
            if (hs_milp_solve(w, &o, &r, &err) != HS_OK)
                fail_msg("cbc: %s", err.msg);
            assert_int_equal(r.status, HS_MILP_OPTIMAL);
            assert_close(r.makespan_us, opt);
            assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
            hs_milp_result_free(&r);
        }
        hs_workload_free(w);
        w = random_workload(1000 + (uint64_t)i);
        opt = exhaustive(w);
    }
    hs_workload_free(w);
}

typedef struct job {
    hs_workload *w;
    double opt, got;
    int rc, status;
} job;

static void *solve_job(void *arg)
{
    job *j = arg;
    hs_milp_options o = quiet(HS_MILP_COMPACT);
    hs_milp_result r;
    hs_error err = {0};
    j->rc = hs_milp_solve(j->w, &o, &r, &err);
    j->status = r.status;
    j->got = r.makespan_us;
    hs_milp_result_free(&r);
    return NULL;
}

/* The lock serialises GLPK: two threads get both answers right. */
static void two_threads(void **state)
{
    job jobs[4];
    pthread_t th[4];
    (void)state;
    for (int i = 0; i < 4; i++) {
        jobs[i].w = random_workload(500 + (uint64_t)i);
        jobs[i].opt = exhaustive(jobs[i].w);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, solve_job, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].rc, HS_OK);
        assert_int_equal(jobs[i].status, HS_MILP_OPTIMAL);
        assert_close(jobs[i].got, jobs[i].opt);
        hs_workload_free(jobs[i].w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(p2_cmax),
        cmocka_unit_test(p3_cmax),
        cmocka_unit_test(p2_prec_cmax),
        cmocka_unit_test(chain_over_link),
        cmocka_unit_test(gpus_without_host),
        cmocka_unit_test(join_and_fork),
        cmocka_unit_test(join_run_in_other_order),
        cmocka_unit_test(refusals),
        cmocka_unit_test(time_limit),
        cmocka_unit_test(too_large),
        cmocka_unit_test(stop_before),
        cmocka_unit_test(stop_during),
        cmocka_unit_test(cbc_solver),
        cmocka_unit_test(two_threads),
        cmocka_unit_test(random_vs_exhaustive),
    };
    if (getenv("HS_MILP_TEST_FILTER")) /* e.g. "p3_*", to run a few by hand */
        cmocka_set_test_filter(getenv("HS_MILP_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
