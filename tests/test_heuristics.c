/* Tests of the list-scheduling policies of mapper/: h-ratio, d-rank and
 * ad-part (Zhou & Liu, Sec. 4), heft and cpop (Topcuoglu et al. 2002), peft
 * (Arabnejad & Barbosa 2014), heft-wm, hoft and hoft-wm (McSweeney et al.
 * 2020), lookahead (Bittencourt et al. 2010), heteroprio (Agullo et al.
 * 2016), and best with the retiming and local search under it
 * (mapper/local_search.h).  Priorities and the insertion slots are checked
 * as pure functions; exact makespans on hand-checked cases pin each policy,
 * with the derivation beside the expected value; the paper's case study
 * (Table 2) is mapped by each; ad-part's transformed graph is checked against
 * the model of include/hetsched/schedule.h; every schedule passes
 * hs_schedule_validate. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "exec/engine.h"
#include "exec/queue.h"
#include "hetsched/hetsched.h"
#include "mapper/local_search.h"
#include "mapper/parts.h"
#include "mapper/perfmodel.h"
#include "mapper/policy.h"
#include "mapper/rank.h"

#define EPS 1e-6

/* ---------------------------------------------------------------- helpers */

typedef struct dev_spec {
    const char *name;
    hs_device_kind kind;
    const char *memory;
} dev_spec;

typedef struct kern_spec {
    const char *name;
    double cost[4];        /* by device, in the order of the dev_specs */
    double in, out;        /* input_bytes, output_bytes */
} kern_spec;

typedef struct edge_spec {
    const char *from, *to;
    double bytes;
} edge_spec;

static void ok(int rc, const hs_error *err)
{
    if (rc < 0)
        fail_msg("unexpected error %d: %s", rc, err->msg);
}

/* One application `g` on the given devices; every ordered pair of distinct
 * memories linked at `gbps` GB/s and `lat` us, so that moving B bytes
 * between memories takes lat + B / (1000 gbps) us. */
static hs_workload *build(const dev_spec *dv, int nd, double gbps, double lat,
                          const kern_spec *ks, int nk, const edge_spec *es, int ne)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a;
    assert_non_null(w);
    for (int d = 0; d < nd; d++)
        ok(hs_platform_add_device(w, dv[d].name, dv[d].kind, dv[d].memory, 0, &err), &err);
    for (int q = 0; q < w->platform.nmemories; q++)
        for (int r = 0; r < w->platform.nmemories; r++)
            if (q != r)
                ok(hs_platform_add_link(w, w->platform.memories[q], w->platform.memories[r],
                                        gbps, lat, &err),
                   &err);
    a = hs_workload_add_app(w, "g", 1, &err);
    ok(a, &err);
    for (int k = 0; k < nk; k++) {
        ok(hs_app_add_kernel(w, a, ks[k].name, &err), &err);
        for (int d = 0; d < nd; d++)
            ok(hs_kernel_set_cost(w, a, k, dv[d].name, ks[k].cost[d], &err), &err);
        ok(hs_kernel_set_bytes(w, a, k, ks[k].in, ks[k].out, &err), &err);
    }
    for (int e = 0; e < ne; e++)
        ok(hs_app_add_edge(w, a, es[e].from, es[e].to, es[e].bytes, &err), &err);
    ok(hs_workload_finalize(w, &err), &err);
    return w;
}

/* The case study of Zhou & Liu (Sec. 3, Table 2), as workloads/case-study.yaml
 * has it: cpu0 (host) and gpu0, linked at 12 GB/s with 10 us latency.  Tasks:
 * 0 va#0/add, 1 va#0/scale, 2 xgemm#0/ab, 3 xgemm#0/cd, 4 xgemm#0/add. */
static hs_workload *case_study(void)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int va, xg;
    ok(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), &err);
    ok(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), &err);
    ok(hs_platform_add_link(w, "host", "gpu0", 12.0, 10.0, &err), &err);
    ok(hs_platform_add_link(w, "gpu0", "host", 12.0, 10.0, &err), &err);
    va = hs_workload_add_app(w, "va", 1, &err);
    ok(hs_app_add_kernel(w, va, "add", &err), &err);
    ok(hs_app_add_kernel(w, va, "scale", &err), &err);
    ok(hs_kernel_set_cost(w, va, 0, "cpu", 568, &err), &err);
    ok(hs_kernel_set_cost(w, va, 0, "gpu", 422, &err), &err);
    ok(hs_kernel_set_cost(w, va, 1, "cpu", 1520, &err), &err);
    ok(hs_kernel_set_cost(w, va, 1, "gpu", 242, &err), &err);
    ok(hs_kernel_set_bytes(w, va, 0, 400000, 0, &err), &err);
    ok(hs_kernel_set_bytes(w, va, 1, 0, 200000, &err), &err);
    ok(hs_app_add_edge(w, va, "add", "scale", 200000, &err), &err);
    xg = hs_workload_add_app(w, "xgemm", 1, &err);
    ok(hs_app_add_kernel(w, xg, "ab", &err), &err);
    ok(hs_app_add_kernel(w, xg, "cd", &err), &err);
    ok(hs_app_add_kernel(w, xg, "add", &err), &err);
    ok(hs_kernel_set_cost(w, xg, 0, "cpu", 44100, &err), &err);
    ok(hs_kernel_set_cost(w, xg, 0, "gpu", 5600, &err), &err);
    ok(hs_kernel_set_cost(w, xg, 1, "cpu", 874, &err), &err);
    ok(hs_kernel_set_cost(w, xg, 1, "gpu", 844, &err), &err);
    ok(hs_kernel_set_cost(w, xg, 2, "cpu", 440, &err), &err);
    ok(hs_kernel_set_cost(w, xg, 2, "gpu", 420, &err), &err);
    ok(hs_kernel_set_bytes(w, xg, 0, 8192, 0, &err), &err);
    ok(hs_kernel_set_bytes(w, xg, 1, 8388608, 0, &err), &err);
    ok(hs_kernel_set_bytes(w, xg, 2, 0, 4194304, &err), &err);
    ok(hs_app_add_edge(w, xg, "ab", "add", 4194304, &err), &err);
    ok(hs_app_add_edge(w, xg, "cd", "add", 4194304, &err), &err);
    ok(hs_workload_finalize(w, &err), &err);
    return w;
}

/* Maps w with `algo` and options `opt` and checks what every schedule must
 * satisfy: the validator accepts it and its makespan is the model's. */
static hs_schedule *run_opts(hs_workload *w, const char *algo, const hs_map_options *opt)
{
    hs_schedule *s = NULL;
    hs_error err = {0};
    if (hs_map(w, algo, opt, &s, NULL, &err) != HS_OK)
        fail_msg("%s: %s", algo, err.msg);
    assert_non_null(s);
    ok(hs_schedule_validate(w, s, &err), &err);
    assert_float_equal(s->makespan_us, hs_schedule_makespan(w, s), EPS);
    return s;
}

static hs_schedule *run(hs_workload *w, const char *algo, int thr, double split)
{
    hs_map_options opt = {.thr = thr, .split_threshold_us = split};
    return run_opts(w, algo, &opt);
}

static double makespan(hs_workload *w, const char *algo, int thr)
{
    hs_schedule *s = run(w, algo, thr, 0);
    double m = s->makespan_us;
    hs_schedule_free(s);
    return m;
}

/* Asserts that the whole task `id` ran on `device` over [start, end]. */
static void placed(const hs_workload *w, const hs_schedule *s, const char *id,
                   const char *device, double start, double end)
{
    char buf[128];
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        hs_task_id(w, &w->graph.tasks[p->task], buf, sizeof buf);
        if (strcmp(buf, id) != 0 || p->nparts != 1)
            continue;
        if (strcmp(w->platform.devices[p->device].name, device) != 0)
            fail_msg("%s ran on %s, expected %s", id, w->platform.devices[p->device].name,
                     device);
        assert_float_equal(p->start_us, start, EPS);
        assert_float_equal(p->end_us, end, EPS);
        return;
    }
    fail_msg("%s is not in the schedule", id);
}

/* The DAG of Topcuoglu et al. 2002 (Fig. 2; costs of its Table 1) on three
 * devices, each with its own memory, linked at 1 GB/s with no latency: an
 * edge of c x 1000 bytes costs exactly c between devices, as in the paper. */
static hs_workload *topcuoglu(void)
{
    static const dev_spec dv[] = {{"p1", HS_DEVICE_CPU, "host"},
                                  {"p2", HS_DEVICE_GPU, "m2"},
                                  {"p3", HS_DEVICE_GPU, "m3"}};
    static const kern_spec ks[] = {
        {"n1", {14, 16, 9}, 0, 0},  {"n2", {13, 19, 18}, 0, 0}, {"n3", {11, 13, 19}, 0, 0},
        {"n4", {13, 8, 17}, 0, 0},  {"n5", {12, 13, 10}, 0, 0}, {"n6", {13, 16, 9}, 0, 0},
        {"n7", {7, 15, 11}, 0, 0},  {"n8", {5, 11, 14}, 0, 0},  {"n9", {18, 12, 20}, 0, 0},
        {"n10", {21, 7, 16}, 0, 0},
    };
    static const edge_spec es[] = {
        {"n1", "n2", 18000}, {"n1", "n3", 12000}, {"n1", "n4", 9000},  {"n1", "n5", 11000},
        {"n1", "n6", 14000}, {"n2", "n8", 19000}, {"n2", "n9", 16000}, {"n3", "n7", 23000},
        {"n4", "n8", 27000}, {"n4", "n9", 23000}, {"n5", "n9", 13000}, {"n6", "n8", 15000},
        {"n7", "n10", 17000}, {"n8", "n10", 11000}, {"n9", "n10", 13000},
    };
    return build(dv, 3, 1.0, 0.0, ks, 10, es, 15);
}

static const dev_spec cpu_gpu[] = {{"cpu0", HS_DEVICE_CPU, "host"},
                                   {"gpu0", HS_DEVICE_GPU, "gpu0"}};

/* ------------------------------------------------------------- priorities */

/* hs__mean_transfer's sums against the mean of hs_transfer_us over the
 * device pairs, on a cluster (routes through the hosts and the network,
 * CPUs sharing a memory) and on a platform missing a link. */
static void mean_transfer_sums(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    const hs_platform *pf = &w->platform;
    static const double sizes[] = {1, 4096, 200000, 3.7e9};
    (void)state;
    assert_int_equal(hs_gen_cluster(w, "cpu:2,gpu:2", 4, 3, &err), HS_OK);
    for (int distinct = 0; distinct <= 1; distinct++) {
        hs__link_sums sums;
        int m = pf->ndevices;
        hs__link_sums_init(&sums, pf, distinct);
        assert_int_equal(sums.missing, 0);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            double sum = 0, mean;
            for (int q = 0; q < m; q++)
                for (int r = 0; r < m; r++)
                    sum += hs_transfer_us(pf, pf->devices[q].memory, pf->devices[r].memory,
                                          sizes[i]);
            mean = sum / (distinct ? m * (m - 1) : m * m);
            assert_true(mean > 0);
            assert_float_equal(hs__mean_transfer(&sums, sizes[i]), mean, 1e-13 * mean);
        }
    }
    hs_workload_free(w);

    /* two memories without a link: a transfer between them never ends */
    w = hs_workload_new();
    pf = &w->platform;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    {
        hs__link_sums sums;
        hs__link_sums_init(&sums, pf, 1);
        assert_int_equal(sums.missing, 2);
        assert_true(hs__mean_transfer(&sums, 1) == HUGE_VAL);
        assert_float_equal(hs__mean_transfer(&sums, 0), 0, 0);
    }
    hs_workload_free(w);
}

static void priorities(void **state)
{
    hs_workload *w = case_study();
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    hs__link_sums all, distinct;
    double v[5];
    (void)state;

    /* eq. (9)-(10): H = max cost / min cost.  The paper's own example:
     * H(va/add) = 568 / 422 = 1.346. */
    hs__h_ratio(g, v);
    assert_float_equal(v[0], 568.0 / 422.0, 1e-12);
    assert_float_equal(v[1], 1520.0 / 242.0, 1e-12);
    assert_float_equal(v[2], 44100.0 / 5600.0, 1e-12);
    assert_float_equal(v[3], 874.0 / 844.0, 1e-12);
    assert_float_equal(v[4], 440.0 / 420.0, 1e-12);

    /* eq. (13): the 200000-byte edge costs 10 + 200000 / 12000 = 26.667 us
     * each way; over the m^2 = 4 ordered pairs (two of them a device with
     * itself, 0): 53.333 / 4 = 13.333.  HEFT's mean over the 2 pairs of
     * distinct devices: 26.667. */
    hs__link_sums_init(&all, pf, 0);
    hs__link_sums_init(&distinct, pf, 1);
    assert_float_equal(hs__mean_transfer(&all, 200000), (10 + 200000 / 12000.0) / 2, 1e-9);
    assert_float_equal(hs__mean_transfer(&distinct, 200000), 10 + 200000 / 12000.0, 1e-9);
    assert_float_equal(hs__mean_transfer(&distinct, 0), 0, 0);

    /* eq. (14), one level: mean cost + max over successors of (eq. (13) +
     * successor's mean cost).
     *   va/add: 495 + 13.333 + 881 = 1389.333      scale: 881 (a sink)
     *   ab: 24850 + (10 + 349.525) / 2 + 430 = 25459.763
     *   cd: 859 + 179.763 + 430 = 1468.763          add: 430 */
    hs__d_rank(g, pf, v);
    assert_float_equal(v[0], 495 + (10 + 200000 / 12000.0) / 2 + 881, 1e-9);
    assert_float_equal(v[1], 881, 1e-9);
    assert_float_equal(v[2], 24850 + (10 + 4194304 / 12000.0) / 2 + 430, 1e-9);
    assert_float_equal(v[3], 859 + (10 + 4194304 / 12000.0) / 2 + 430, 1e-9);
    assert_float_equal(v[4], 430, 1e-9);
    hs_workload_free(w);

    /* HEFT's upward ranks of Topcuoglu et al.'s example (their Table 1):
     * 108, 77, 80, 80, 69, 63.333, 42.667, 35.667, 44.333, 14.667. */
    w = topcuoglu();
    {
        static const double want[10] = {108, 77, 80, 80, 69, 190 / 3.0, 128 / 3.0,
                                        107 / 3.0, 133 / 3.0, 44 / 3.0};
        double r[10];
        hs_error err = {0};
        ok(hs__upward_rank(&w->graph, &w->platform, r, &err), &err);
        for (int t = 0; t < 10; t++)
            assert_float_equal(r[t], want[t], 1e-9);
    }
    hs_workload_free(w);
}

/* PEFT's table on a chain s -> t (20000 bytes: 20 us between devices) on
 * A = cpu0, B = gpu0 (1 GB/s, no latency).  Costs s: A 10, B 12; t: A 50,
 * B 10.  OCT(t, .) = 0 (a sink).  OCT(s, A) = min(0 + 50, 0 + 10 + 20) = 30;
 * OCT(s, B) = min(0 + 50 + 20, 0 + 10) = 10; rank_oct(s) = 20. */
static hs_workload *peft_chain(void)
{
    static const kern_spec ks[] = {{"s", {10, 12}, 0, 0}, {"t", {50, 10}, 0, 0}};
    static const edge_spec es[] = {{"s", "t", 20000}};
    return build(cpu_gpu, 2, 1.0, 0.0, ks, 2, es, 1);
}

static void optimistic_cost_table(void **state)
{
    hs_workload *w = peft_chain();
    double oct[4], rank[2];
    hs_error err = {0};
    (void)state;
    ok(hs__oct(&w->graph, &w->platform, oct, rank, &err), &err);
    assert_float_equal(oct[0], 30, 1e-12);
    assert_float_equal(oct[1], 10, 1e-12);
    assert_float_equal(oct[2], 0, 0);
    assert_float_equal(oct[3], 0, 0);
    assert_float_equal(rank[0], 20, 1e-12);
    assert_float_equal(rank[1], 0, 0);
    hs_workload_free(w);
}

/* -------------------------------------------------------- insertion slots */

/* The earliest start of a stretch of `dur` at or after `ready` by a plain
 * scan of the sorted busy intervals: the reference for the treap. */
static double scan_earliest(const double *lo, const double *hi, int n, double ready, double dur)
{
    double t = ready;
    for (int i = 0; i < n; i++) {
        if (hi[i] <= t)
            continue;
        if (t + dur <= lo[i])
            return t;
        if (hi[i] > t)
            t = hi[i];
    }
    return t;
}

/* Busy [0,10], [14,20], [30,40]: idle 4 at 10 and 10 at 20.  A task as
 * long as the longest gap goes there, a longer one after the last interval;
 * one ready at the last start fits there only if it takes no time; one
 * ready after it waits for its end or starts when ready. */
static void slots_by_hand(void **state)
{
    hs__slots s;
    (void)state;
    hs__slots_init(&s);
    assert_int_equal(hs__slots_insert(&s, 14, 20), 0);
    assert_int_equal(hs__slots_insert(&s, 30, 40), 0);
    assert_int_equal(hs__slots_insert(&s, 0, 10), 0);
    assert_float_equal(hs__slots_earliest(&s, 0, 4), 10, 0);
    assert_float_equal(hs__slots_earliest(&s, 0, 10), 20, 0);
    assert_float_equal(hs__slots_earliest(&s, 0, 11), 40, 0);
    assert_float_equal(hs__slots_earliest(&s, 12, 2), 12, 0);
    assert_float_equal(hs__slots_earliest(&s, 30, 0), 30, 0);
    assert_float_equal(hs__slots_earliest(&s, 35, 1), 40, 0);
    assert_float_equal(hs__slots_earliest(&s, 45, 1), 45, 0);
    hs__slots_free(&s);
}

static void slots_match_a_scan(void **state)
{
    enum { N = 3000 };
    double *lo = malloc(N * sizeof *lo), *hi = malloc(N * sizeof *hi);
    unsigned short x[3] = {7, 11, 13};
    hs__slots s;
    int n = 0;
    (void)state;
    assert_non_null(lo);
    assert_non_null(hi);
    hs__slots_init(&s);
    /* an empty device: anything starts when ready */
    assert_float_equal(hs__slots_earliest(&s, 5, 3), 5, 0);
    for (int i = 0; i < N; i++) {
        /* integer times so that gaps fit exactly; some zero durations; the
         * busy time outgrows the range of ready times, so the device fills
         * up and later tasks must find gaps or go to the end */
        double ready = (double)(int)(erand48(x) * 30000);
        double dur = (double)(int)(erand48(x) * (i % 7 == 0 ? 200 : 12));
        double want = scan_earliest(lo, hi, n, ready, dur);
        double got = hs__slots_earliest(&s, ready, dur);
        int j;
        if (got != want)
            fail_msg("step %d: ready %g dur %g: treap %g, scan %g", i, ready, dur, got, want);
        assert_int_equal(hs__slots_insert(&s, got, got + dur), 0);
        for (j = n; j > 0 && (lo[j - 1] > got || (lo[j - 1] == got && hi[j - 1] > got + dur));
             j--) {
            lo[j] = lo[j - 1];
            hi[j] = hi[j - 1];
        }
        lo[j] = got;
        hi[j] = got + dur;
        n++;
    }
    /* the busy intervals never overlap */
    for (int i = 1; i < n; i++)
        assert_true(hi[i - 1] <= lo[i]);
    hs__slots_free(&s);
    free(lo);
    free(hi);
}

/* ---------------------------------------------------------------- h-ratio */

/* Three independent kernels on cpu0 + gpu0, no data:
 *     a: cpu 10, gpu 8  -> H = 1.25
 *     b: cpu 40, gpu 4  -> H = 10
 *     c: cpu 12, gpu 6  -> H = 2
 * The central queue holds b, c, a.
 * thr = 2.  At t = 0 the first pick refills: b -> EFT cpu 40, gpu 4: gpu
 *   (gpu free at 4); c -> cpu 12, gpu 4 + 6 = 10: gpu; 2 tasks queued, stop.
 *   cpu gets nothing; gpu runs b [0, 4].  At t = 4 one place is free: a ->
 *   cpu 4 + 10 = 14, gpu (c queued until 10) 10 + 8 = 18: cpu.  cpu runs a
 *   [4, 14], gpu c [4, 10].  Makespan 14: the threshold kept a from the idle
 *   cpu at t = 0.
 * thr = 3 (and the default, 16): a is dispatched at t = 0 as well: cpu 10,
 *   gpu 18: cpu.  a [0, 10] on cpu, b [0, 4] then c [4, 10] on gpu: 10. */
static void h_ratio_threshold(void **state)
{
    static const kern_spec ks[] = {
        {"a", {10, 8}, 0, 0}, {"b", {40, 4}, 0, 0}, {"c", {12, 6}, 0, 0}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 3, NULL, 0);
    hs_schedule *s;
    (void)state;
    s = run(w, "h-ratio", 2, 0);
    assert_float_equal(s->makespan_us, 14, EPS);
    placed(w, s, "g#0/b", "gpu0", 0, 4);
    placed(w, s, "g#0/c", "gpu0", 4, 10);
    placed(w, s, "g#0/a", "cpu0", 4, 14);
    hs_schedule_free(s);
    s = run(w, "h-ratio", 3, 0);
    assert_float_equal(s->makespan_us, 10, EPS);
    placed(w, s, "g#0/a", "cpu0", 0, 10);
    hs_schedule_free(s);
    assert_float_equal(makespan(w, "h-ratio", 0), 10, EPS);
    assert_int_equal(hs__dispatch_default_thr(2), 16);
    hs_workload_free(w);
}

/* Equal finish times go to the lower device index, even where the other
 * device would be tried first: k costs 150 on cpu0 and 100 on gpu0, and
 * its 1000-byte input reaches gpu0 at 49 + 1000 / 1000 = 50 us.  gpu0's
 * bound, available + cost = 100, is the least, its finish is 50 + 100 =
 * 150; cpu0's bound and finish are 0 + 150 = 150, a tie: cpu0. */
static void h_ratio_tie_to_lower_index(void **state)
{
    static const kern_spec ks[] = {{"k", {150, 100}, 1000, 0}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 49.0, ks, 1, NULL, 0);
    hs_schedule *s;
    (void)state;
    s = run(w, "h-ratio", 0, 0);
    placed(w, s, "g#0/k", "cpu0", 0, 150);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- d-rank */

/* p -> q (5000 bytes) and an independent z, on cpu0 + gpu0 at 1 GB/s with
 * no latency (B bytes take B / 1000 us between the memories):
 *     p: cpu 20, gpu 10, input 3000 B (3 us to the gpu)
 *     q: cpu 30, gpu 10, output 2000 B (2 us back from the gpu)
 *     z: cpu 12, gpu 4
 * h-ratio: H(z) = 3 > H(p) = 2, so z is dispatched first.  z: cpu 12, gpu 4:
 *   gpu.  p: cpu 20, gpu max(4, 3) + 10 = 14: gpu.  gpu runs z [0, 4], p
 *   [4, 14]; the cpu idles.  At 14, q: cpu 14 + 5 + 30 = 49, gpu 24: gpu
 *   [14, 24]; its output is home at 26.  Makespan 26.
 * d-rank: eq. (13) for p -> q: (5 + 5 + 0 + 0) / 4 = 2.5; eq. (14):
 *   rank(p) = 15 + 2.5 + 20 = 37.5, rank(z) = 8, rank(q) = 20.  p first: cpu
 *   20, gpu 3 + 10 = 13: gpu [3, 13].  z: cpu 12, gpu 13 + 4 = 17: cpu
 *   [0, 12].  At 13, q: cpu 13 + 5 + 30 = 48, gpu 23: gpu [13, 23], output
 *   home at 25.  Makespan 25: ranking p's successor first keeps z off the
 *   gpu. */
static void d_rank_vs_h_ratio(void **state)
{
    static const kern_spec ks[] = {
        {"p", {20, 10}, 3000, 0}, {"q", {30, 10}, 0, 2000}, {"z", {12, 4}, 0, 0}};
    static const edge_spec es[] = {{"p", "q", 5000}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 3, es, 1);
    hs_schedule *s;
    (void)state;
    s = run(w, "h-ratio", 0, 0);
    assert_float_equal(s->makespan_us, 26, EPS);
    placed(w, s, "g#0/z", "gpu0", 0, 4);
    placed(w, s, "g#0/p", "gpu0", 4, 14);
    placed(w, s, "g#0/q", "gpu0", 14, 24);
    hs_schedule_free(s);
    s = run(w, "d-rank", 0, 0);
    assert_float_equal(s->makespan_us, 25, EPS);
    placed(w, s, "g#0/p", "gpu0", 3, 13);
    placed(w, s, "g#0/z", "cpu0", 0, 12);
    placed(w, s, "g#0/q", "gpu0", 13, 23);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------------------ heft */

/* Topcuoglu et al.'s example: ranks as in `priorities`, order n1, n3, n4 (n3
 * and n4 tie at 80: the lower index first), n2, n5, n6, n9, n7, n8, n10; the
 * schedule of their Fig. 3(a):
 *   n1 p3 [0, 9]     n3 p3 [9, 28]    n4 p2 [18, 26]   n2 p1 [27, 40]
 *   n5 p3 [28, 38]   n6 p2 [26, 42]   n9 p2 [56, 68]   n7 p3 [38, 49]
 *   n8 p1 [57, 62]   n10 p2 [73, 80]
 * e.g. n4: p1 9 + 9 + 13 = 31, p2 9 + 9 + 8 = 26, p3 28 + 17 = 45: p2;
 * n10: p1 68 + 13 + 21 = 102, p2 max(49 + 17, 62 + 11, 68) + 7 = 80, p3
 * max(49, 62 + 11, 68 + 13) + 16 = 97.  Makespan 80, the paper's. */
static void heft_topcuoglu(void **state)
{
    hs_workload *w = topcuoglu();
    hs_schedule *s = run(w, "heft", 0, 0);
    (void)state;
    assert_float_equal(s->makespan_us, 80, EPS);
    placed(w, s, "g#0/n1", "p3", 0, 9);
    placed(w, s, "g#0/n3", "p3", 9, 28);
    placed(w, s, "g#0/n4", "p2", 18, 26);
    placed(w, s, "g#0/n2", "p1", 27, 40);
    placed(w, s, "g#0/n5", "p3", 28, 38);
    placed(w, s, "g#0/n6", "p2", 26, 42);
    placed(w, s, "g#0/n9", "p2", 56, 68);
    placed(w, s, "g#0/n7", "p3", 38, 49);
    placed(w, s, "g#0/n8", "p1", 57, 62);
    placed(w, s, "g#0/n10", "p2", 73, 80);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Insertion: on cpu0 (A) + gpu0 (B), 1 GB/s, no latency.
 *     a: A 10, B 1000        b: A 1000, B 10
 *     c: A 10, B 1000, after b (30000 bytes: 30 us between devices)
 *     d: A 20, B 40
 * Upward ranks: b = 505 + 30 + 505 = 1040, a = c = 505, d = 30.  b: A 1000,
 * B 10: B [0, 10].  a: A [0, 10].  c: inputs on A at 10 + 30 = 40: A
 * [40, 50] (B: 10 + 1000), leaving A idle over [10, 40].  d: A's gap
 * [10, 40] fits 20: A [10, 30], finish 30 < B's 10 + 40 = 50.  (Appended
 * after c, d would end at 70 on A and go to B, [10, 50].)  Makespan 50.  The
 * run keeps A's planned order a, d, c although c is ready at 10 as well. */
static void heft_inserts(void **state)
{
    static const kern_spec ks[] = {{"a", {10, 1000}, 0, 0},
                                   {"b", {1000, 10}, 0, 0},
                                   {"c", {10, 1000}, 0, 0},
                                   {"d", {20, 40}, 0, 0}};
    static const edge_spec es[] = {{"b", "c", 30000}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 4, es, 1);
    hs_schedule *s = run(w, "heft", 0, 0);
    (void)state;
    assert_float_equal(s->makespan_us, 50, EPS);
    placed(w, s, "g#0/b", "gpu0", 0, 10);
    placed(w, s, "g#0/a", "cpu0", 0, 10);
    placed(w, s, "g#0/d", "cpu0", 10, 30);
    placed(w, s, "g#0/c", "cpu0", 40, 50);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------------------ peft */

/* peft_chain (see optimistic_cost_table).  HEFT: rank(s) = 11 + 20 + 30;
 * s: A 10, B 12: A [0, 10]; t: A 10 + 50 = 60, B 10 + 20 + 10 = 40: B
 * [30, 40].  Makespan 40.  PEFT: s: A 10 + OCT 30 = 40, B 12 + 10 = 22: B
 * [0, 12]; t: A 12 + 20 + 50 + 0, B 12 + 10: B [12, 22].  Makespan 22: the
 * table saw that t wants B. */
static void peft_looks_ahead(void **state)
{
    hs_workload *w = peft_chain();
    hs_schedule *s;
    (void)state;
    s = run(w, "heft", 0, 0);
    assert_float_equal(s->makespan_us, 40, EPS);
    placed(w, s, "g#0/s", "cpu0", 0, 10);
    placed(w, s, "g#0/t", "gpu0", 30, 40);
    hs_schedule_free(s);
    s = run(w, "peft", 0, 0);
    assert_float_equal(s->makespan_us, 22, EPS);
    placed(w, s, "g#0/s", "gpu0", 0, 12);
    placed(w, s, "g#0/t", "gpu0", 12, 22);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------- heft-wm, hoft, lookahead, cpop */

/* The ranks of heft-wm and cpop and hoft's table, on peft_chain (s -> t,
 * 20 us between the devices; s: A 10, B 12; t: A 50, B 10):
 *   weighted means: s runs on A with probability (1/10) / (1/10 + 1/12) =
 *     6/11, on B 5/11: mean 6/11 x 10 + 5/11 x 12 = 120/11; t on A 1/6, on B
 *     5/6: 100/6; the edge costs 20 when they differ: (6/11 x 5/6 + 5/11 x
 *     1/6) x 20 = 700/66.  rank(t) = 100/6, rank(s) = 120/11 + 700/66 +
 *     100/6 = 2520/66;
 *   downward rank: s 0; t 0 + mean 11 + c-bar 20 = 31;
 *   OFT: s: A 10, B 12; t on A: 50 + min(10, 12 + 20) = 60, on B: 10 +
 *     min(10 + 20, 12) = 22. */
static void weighted_ranks_and_oft(void **state)
{
    hs_workload *w = peft_chain();
    double r[2], oft[4];
    hs_error err = {0};
    (void)state;
    ok(hs__weighted_upward_rank(&w->graph, &w->platform, r, &err), &err);
    assert_float_equal(r[1], 100.0 / 6, 1e-12);
    assert_float_equal(r[0], 2520.0 / 66, 1e-12);
    ok(hs__downward_rank(&w->graph, &w->platform, r, &err), &err);
    assert_float_equal(r[0], 0, 0);
    assert_float_equal(r[1], 31, 1e-12);
    ok(hs__oft(&w->graph, &w->platform, oft, &err), &err);
    assert_float_equal(oft[0], 10, 0);
    assert_float_equal(oft[1], 12, 0);
    assert_float_equal(oft[2], 60, 0);
    assert_float_equal(oft[3], 22, 0);
    hs_workload_free(w);
}

/* Where HEFT's greedy choice crosses to the slow device for a task whose
 * child then pays for it.  cpu0 (A) and gpu0 (B), 1 GB/s, no latency:
 *     x: A 1000, B 20        t: A 10, B 5        c: A 100, B 10, after t
 * with 40000 bytes on t -> c (40 us between the devices).
 * heft: ranks x 510, t 7.5 + 40 + 55 = 102.5, c 55.  x: B [0, 20].  t: A
 *   ends 10, B 25: A [0, 10].  c: A 10 + 100 = 110, B max(20, 10 + 40) + 10
 *   = 60: B [50, 60].  Makespan 60.
 * heft-wm: x's mean 2 x 1000 x 20 / 1020 = 39.216; t's 20/3, c's 200/11,
 *   the edge (1/3 x 10/11 + 2/3 x 1/11) x 40 = 160/11: rank(t) = 1300/33 =
 *   39.394 goes first.  t: B [0, 5].  x: A 1000, B 25: B [5, 25].  c: A 5 +
 *   40 + 100, B 25 + 10: B [25, 35].  Makespan 35.
 * hoft: OFT x (1000, 20), ratio 50; t (10, 5), ratio 2; c: A 100 + min(10,
 *   5 + 40) = 110, B 10 + min(10 + 40, 5) = 15, ratio 22/3; ranks x 50, t 2
 *   + 22/3, c 22/3.  x: B [0, 20].  t: A ends 10 (p_m), B 25 (p_f, its
 *   fastest): s_m = 15; c's fastest OFT is on B, so E(A) = 10 + 40 + 10 = 60
 *   and E(B) = 25 + 0 + 10 = 35: 15 > 25 fails, t goes to B [20, 25]; c: B
 *   [25, 35].  Makespan 35.  hoft-wm ranks as heft-wm: t first, on B (its
 *   fastest device), then as heft-wm: 35.
 * lookahead: heft's order; x (no child): B [0, 20].  t on A [0, 10]: c then
 *   ends on B at 60 (A: 110); t on B [20, 25]: c ends on B at 35.  B;
 *   makespan 35.
 * cpop: priorities x 510 + 0, t 102.5 + 0, c 55 + 47.5; the critical path
 *   is x alone, on B; t and c by EFT as in heft: 60.
 * best: every task on B, 35, is the optimum: the chain t -> c on B takes
 *   15 and x 20 on the same device (x on A takes 1000, c on A 100, and t on
 *   A with c on B pays 40 of transfer after 10 of work, 60). */
static hs_workload *crossing(void)
{
    static const kern_spec ks[] = {
        {"x", {1000, 20}, 0, 0}, {"t", {10, 5}, 0, 0}, {"c", {100, 10}, 0, 0}};
    static const edge_spec es[] = {{"t", "c", 40000}};
    return build(cpu_gpu, 2, 1.0, 0.0, ks, 3, es, 1);
}

static void crossing_policies(void **state)
{
    static const char *const on_b[] = {"heft-wm", "hoft-wm"};
    hs_workload *w = crossing();
    double r[3];
    hs_error err = {0};
    hs_schedule *s;
    (void)state;
    ok(hs__weighted_upward_rank(&w->graph, &w->platform, r, &err), &err);
    assert_float_equal(r[0], 40000.0 / 1020, 1e-9);
    assert_float_equal(r[1], 1300.0 / 33, 1e-9);
    assert_float_equal(r[2], 200.0 / 11, 1e-9);
    for (const char *const *p = (const char *const[]){"heft", "cpop", NULL}; *p; p++) {
        s = run(w, *p, 0, 0);
        assert_float_equal(s->makespan_us, 60, EPS);
        placed(w, s, "g#0/x", "gpu0", 0, 20);
        placed(w, s, "g#0/t", "cpu0", 0, 10);
        placed(w, s, "g#0/c", "gpu0", 50, 60);
        hs_schedule_free(s);
    }
    for (int i = 0; i < 2; i++) {
        s = run(w, on_b[i], 0, 0);
        assert_float_equal(s->makespan_us, 35, EPS);
        placed(w, s, "g#0/t", "gpu0", 0, 5);
        placed(w, s, "g#0/x", "gpu0", 5, 25);
        placed(w, s, "g#0/c", "gpu0", 25, 35);
        hs_schedule_free(s);
    }
    for (const char *const *p = (const char *const[]){"hoft", "lookahead", NULL}; *p; p++) {
        s = run(w, *p, 0, 0);
        assert_float_equal(s->makespan_us, 35, EPS);
        placed(w, s, "g#0/x", "gpu0", 0, 20);
        placed(w, s, "g#0/t", "gpu0", 20, 25);
        placed(w, s, "g#0/c", "gpu0", 25, 35);
        hs_schedule_free(s);
    }
    s = run(w, "best", 0, 0);
    assert_float_equal(s->makespan_us, 35, EPS);
    for (size_t i = 0; i < s->nplacements; i++)
        assert_int_equal(s->placements[i].device, 1);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* CPoP on Topcuoglu et al.'s example, their Fig. 3(b): makespan 86.
 * Downward ranks n1 0, n2 31, n3 25, n4 22, n5 24, n6 27, n7 62.333, n8
 * 66.667, n9 63.667, n10 93.333; with the upward ranks the priorities are
 * n1 n2 n9 n10 108 (the critical path), n3 n7 105, n8 102.333, n4 102, n5
 * 93, n6 90.333.  The path costs p1 66, p2 54, p3 63: p_CP = p2.
 *   n1 p2 [0, 16]; n2 p2 [16, 35] (its data local);
 *   n3: p1 16 + 12 + 11 = 39, p2 35 + 13, p3 28 + 19: p1 [28, 39];
 *   n7: p1 39 + 7 = 46, p2 62 + 15, p3 62 + 11: p1 [39, 46];
 *   n4: p1 46 + 13 (the gap [25, 28] is too short), p2 35 + 8, p3 25 + 17 =
 *     42: p3 [25, 42];
 *   n5: p1 46 + 12, p2 35 + 13 = 48, p3 42 + 10: p2 [35, 48];
 *   n6: p1 59, p2 64, p3 42 + 9 = 51: p3 [42, 51];
 *   n9 (path): p2, inputs at max(35, 42 + 23, 48) = 65: [65, 77];
 *   n8: p1 max(54, 69, 66) + 5, p2 69 + 11, p3 max(35 + 19, 42, 51) + 14 =
 *     68: p3 [54, 68];
 *   n10 (path): p2, inputs at max(46 + 17, 68 + 11, 77) = 79: [79, 86]. */
static void cpop_topcuoglu(void **state)
{
    hs_workload *w = topcuoglu();
    double down[10];
    hs_error err = {0};
    hs_schedule *s = run(w, "cpop", 0, 0);
    static const double want[10] = {0, 31, 25, 22, 24, 27, 187 / 3.0, 200 / 3.0, 191 / 3.0,
                                    280 / 3.0};
    (void)state;
    ok(hs__downward_rank(&w->graph, &w->platform, down, &err), &err);
    for (int t = 0; t < 10; t++)
        assert_float_equal(down[t], want[t], 1e-9);
    assert_float_equal(s->makespan_us, 86, EPS);
    placed(w, s, "g#0/n1", "p2", 0, 16);
    placed(w, s, "g#0/n2", "p2", 16, 35);
    placed(w, s, "g#0/n3", "p1", 28, 39);
    placed(w, s, "g#0/n7", "p1", 39, 46);
    placed(w, s, "g#0/n4", "p3", 25, 42);
    placed(w, s, "g#0/n5", "p2", 35, 48);
    placed(w, s, "g#0/n6", "p3", 42, 51);
    placed(w, s, "g#0/n9", "p2", 65, 77);
    placed(w, s, "g#0/n8", "p3", 54, 68);
    placed(w, s, "g#0/n10", "p2", 79, 86);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* -------------------------------------------------------------- heteroprio */

/* Spoliation: a and b, independent, each cpu0 100 and gpu0 g (a) or 10
 * (b).  At 0 the cpu takes the task it runs best relative to the mean,
 * (100 + g) / 2 / 100: a with g = 10 ties with b and is the earlier ready;
 * the gpu takes b, [0, 10].  At 10 the gpu is idle and nothing is ready:
 *   g = 10: a would end on it at 20 < 100: it spoliates a, [10, 20], and the
 *     cpu drops it.  Makespan 20.
 *   g = 95: a would end at 105 > 100: a stays on the cpu [0, 100]. */
static void heteroprio_spoliates(void **state)
{
    kern_spec ks[] = {{"a", {100, 10}, 0, 0}, {"b", {100, 10}, 0, 0}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 2, NULL, 0);
    hs_schedule *s = run(w, "heteroprio", 0, 0);
    (void)state;
    assert_float_equal(s->makespan_us, 20, EPS);
    placed(w, s, "g#0/b", "gpu0", 0, 10);
    placed(w, s, "g#0/a", "gpu0", 10, 20);
    hs_schedule_free(s);
    hs_workload_free(w);
    ks[0].cost[1] = 95;
    w = build(cpu_gpu, 2, 1.0, 0.0, ks, 2, NULL, 0);
    s = run(w, "heteroprio", 0, 0);
    assert_float_equal(s->makespan_us, 100, EPS);
    placed(w, s, "g#0/a", "cpu0", 0, 100);
    placed(w, s, "g#0/b", "gpu0", 0, 10);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The affinity queues and a spoliation after a dependency, on crossing():
 * affinities (mean / cost) x cpu 0.51, gpu 25.5; t 0.75, 1.5; c 0.55, 5.5.
 * At 0 the cpu takes t (0.75 > 0.51), [0, 10]; the gpu x, [0, 20].  At 10
 * c is ready and the cpu, idle, takes it: [10, 110].  At 20 the gpu is idle
 * with nothing ready: c would start there when t's data arrive, 10 + 40,
 * and end at 60 < 110, and it is faster there: spoliated, [50, 60]. */
static void heteroprio_queues(void **state)
{
    hs_workload *w = crossing();
    hs_schedule *s = run(w, "heteroprio", 0, 0);
    (void)state;
    assert_float_equal(s->makespan_us, 60, EPS);
    placed(w, s, "g#0/t", "cpu0", 0, 10);
    placed(w, s, "g#0/x", "gpu0", 0, 20);
    placed(w, s, "g#0/c", "gpu0", 50, 60);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------------ case study */

/* Zhou & Liu's case study.  T(B) = 10 + B / 12000 us; 8192 B take
 * 10.683, 400000 B 43.333, 200000 B 26.667, 4194304 B 359.525.
 *
 * h-ratio: H = ab 7.875, va/add 1.346, cd 1.036 (the sources, in that
 *   order).  ab: cpu 44100, gpu 10.683 + 5600 = 5610.683: gpu.  va/add: cpu
 *   568, gpu 5610.683 + 422: cpu.  cd: cpu 568 + 874 = 1442, gpu 5610.683 +
 *   844: cpu.  cpu runs va/add [0, 568], cd [568, 1442]; at 568 scale: cpu
 *   1442 + 1520 = 2962, gpu 5610.683 + 242 = 5852.683: cpu [1442, 2962].
 *   At 5610.683 xgemm/add: cpu 5610.683 + 359.525 + 440 = 6410.208, gpu
 *   5610.683 + 420 = 6030.683: gpu; its 4194304-byte output is home at
 *   6030.683 + 359.525 = 6390.208, the makespan.  It is the length of the
 *   path ab -> add -> output: no mapping of whole kernels does better.
 * d-rank: ranks ab 25459.8, cd 1468.8, va/add 1389.3: ab to gpu, cd then
 *   va/add to cpu ([0, 874], [874, 1442]), scale cpu [1442, 2962], add gpu
 *   as above: 6390.208.
 * heft: ranks ab 25639.5, cd 1648.5, va/add 1402.7, scale 881, add 430; the
 *   same devices (no gap on the gpu fits cd or va/add before ab): cd
 *   [0, 874], va/add [874, 1442], scale [1442, 2962] on cpu, ab and add on
 *   gpu: 6390.208.  peft: the same mapping, 6390.208.
 * ad-part: see ad_part_case_study. */
static void case_study_makespans(void **state)
{
    hs_workload *w = case_study();
    hs_schedule *s;
    const double path = 10 + 8192 / 12000.0 + 5600 + 420 + 10 + 4194304 / 12000.0;
    (void)state;
    assert_float_equal(path, 6390.208, 1e-9);
    s = run(w, "h-ratio", 0, 0);
    assert_float_equal(s->makespan_us, path, EPS);
    placed(w, s, "va#0/add", "cpu0", 0, 568);
    placed(w, s, "xgemm#0/cd", "cpu0", 568, 1442);
    placed(w, s, "va#0/scale", "cpu0", 1442, 2962);
    placed(w, s, "xgemm#0/ab", "gpu0", 10 + 8192 / 12000.0, 5600 + 10 + 8192 / 12000.0);
    placed(w, s, "xgemm#0/add", "gpu0", 5610 + 8192 / 12000.0, 6030 + 8192 / 12000.0);
    hs_schedule_free(s);
    s = run(w, "d-rank", 0, 0);
    assert_float_equal(s->makespan_us, path, EPS);
    placed(w, s, "xgemm#0/cd", "cpu0", 0, 874);
    placed(w, s, "va#0/add", "cpu0", 874, 1442);
    placed(w, s, "va#0/scale", "cpu0", 1442, 2962);
    hs_schedule_free(s);
    s = run(w, "heft", 0, 0);
    assert_float_equal(s->makespan_us, path, EPS);
    placed(w, s, "xgemm#0/cd", "cpu0", 0, 874);
    placed(w, s, "va#0/add", "cpu0", 874, 1442);
    hs_schedule_free(s);
    assert_float_equal(makespan(w, "peft", 0), path, EPS);
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- ad-part */

/* Runs ad-part's transform on w; returns 1 and fills *out if it split, its
 * edges between parts, which the transform leaves implied by w's
 * (hetsched/graph.h), listed by hs__part_edges_list. */
static int transform(const hs_workload *w, double split, hs_graph *out)
{
    const hs_policy *p = hs_policy_find("ad-part");
    hs_map_options opt = {.split_threshold_us = split};
    hs_error err = {0};
    int rc;
    assert_non_null(p);
    assert_non_null(p->transform);
    rc = p->transform(w, &opt, out, &err);
    ok(rc, &err);
    if (rc == 1) {
        assert_ptr_equal(out->whole, &w->graph);
        assert_int_equal(out->nedges, 0);
        ok(hs__part_edges_list(out, &err), &err);
        assert_null(out->whole);
    }
    return rc;
}

/* Checks a transformed graph against the model of schedule.h: the parts of
 * each task have part = 0..n-1, the task's app/instance/kernel, fractions
 * summing to 1, costs f x C, bytes f x the whole's; and for each edge u -> v
 * of the original, the edges between their parts carry bytes x f_u x f_v,
 * so they add up to the edge's bytes. */
static void check_transformed(const hs_workload *w, const hs_graph *t)
{
    const hs_graph *g = &w->graph;
    double *sum = calloc(g->ntasks, sizeof *sum);
    double *moved = calloc(g->nedges, sizeof *moved);
    assert_non_null(sum);
    assert_non_null(moved);
    assert_int_equal(t->ndevices, g->ndevices);
    for (size_t i = 0; i < t->ntasks; i++) {
        const hs_task *p = &t->tasks[i], *o;
        assert_true(p->origin < g->ntasks);
        o = &g->tasks[p->origin];
        assert_int_equal(p->app, o->app);
        assert_int_equal(p->instance, o->instance);
        assert_int_equal(p->kernel, o->kernel);
        assert_true(p->part >= 0 && p->part < p->nparts);
        assert_true(p->fraction > 0 && p->fraction <= 1);
        /* parts of one task are consecutive, numbered in order */
        if (p->part > 0) {
            assert_int_equal(t->tasks[i - 1].origin, p->origin);
            assert_int_equal(t->tasks[i - 1].part, p->part - 1);
        }
        for (int d = 0; d < g->ndevices; d++)
            assert_float_equal(p->cost_us[d], p->fraction * o->cost_us[d], 1e-9);
        assert_float_equal(p->input_bytes, p->fraction * o->input_bytes, 1e-6);
        assert_float_equal(p->output_bytes, p->fraction * o->output_bytes, 1e-6);
        sum[p->origin] += p->fraction;
    }
    for (size_t i = 0; i < g->ntasks; i++)
        assert_float_equal(sum[i], 1.0, 1e-12);
    for (size_t e = 0; e < t->nedges; e++) {
        const hs_edge *pe = &t->edges[e];
        size_t u = t->tasks[pe->from].origin, v = t->tasks[pe->to].origin, k;
        for (k = 0; k < g->nedges; k++)
            if (g->edges[k].from == u && g->edges[k].to == v)
                break;
        assert_true(k < g->nedges);
        assert_float_equal(pe->bytes,
                           g->edges[k].bytes * t->tasks[pe->from].fraction *
                               t->tasks[pe->to].fraction,
                           1e-6);
        moved[k] += pe->bytes;
    }
    for (size_t k = 0; k < g->nedges; k++)
        assert_float_equal(moved[k], g->edges[k].bytes, 1e-6 * (1 + g->edges[k].bytes));
    free(sum);
    free(moved);
}

/* The case study under ad-part.  The default threshold is the mean fastest
 * cost, (422 + 242 + 5600 + 844 + 420) / 5 = 1505.6: only ab (5600) is
 * long.  Fractions by speed: cpu 5600 / 49700 = 0.112676, gpu 44100 /
 * 49700 = 0.887324.  Does it pay?  Whole, ab's best is the gpu: 10.683 +
 * 5600 = 5610.683 (its output kept there).  Split: the cpu part computes
 * 0.112676 x 44100 = 4969.014 and ships 0.112676 x 4194304 = 472597 B to
 * the gpu in 49.383: 5018.4; the gpu part takes 10.606 + 4969.014.  5018.4
 * < 5610.7: split, parts numbered smallest first: ab[0/2] (0.112676) and
 * ab[1/2] (0.887324), each costing f x (44100, 5600).
 *
 * h-ratio on the new graph: priorities ab parts 7.875 (ab[1/2] newest, so
 * first), va/add 1.346, cd 1.036.  ab[1/2]: cpu 39131, gpu 10.606 +
 * 4969.014 = 4979.620: gpu.  ab[0/2]: cpu 4969.014, gpu 4979.620 + 630.986:
 * cpu.  va/add: cpu 4969.014 + 568, gpu 4979.620 + 422 = 5401.620: gpu.
 * cd: cpu 4969.014 + 874 = 5843.014, gpu 5401.620 + 844: cpu.  At 5401.620
 * scale: cpu (cd runs until 5843.014) 7363.014, gpu 5643.620: gpu, output
 * home at 5670.287.  At 5843.014 xgemm/add: cpu: inputs there at
 * max(4969.014, 4979.620 + 10 + 3721707 / 12000 = 5299.762, 5843.014):
 * 5843.014 + 440 = 6283.014; gpu: cd's matrix arrives at 6202.539, + 420:
 * cpu.  Makespan 44100 x 5600 / 49700 + 874 + 440 = 6283.014, below the
 * 6390.208 of every whole-kernel mapping. */
static void ad_part_case_study(void **state)
{
    hs_workload *w = case_study();
    const double f0 = 5600.0 / 49700.0;
    hs_graph t;
    hs_schedule *s;
    int parts = 0;
    (void)state;
    assert_int_equal(transform(w, 0, &t), 1);
    check_transformed(w, &t);
    assert_int_equal((int)t.ntasks, 6);
    assert_int_equal((int)t.nedges, 4);
    for (size_t i = 0; i < t.ntasks; i++) {
        if (t.tasks[i].origin != 2) {
            assert_int_equal(t.tasks[i].nparts, 1);
            /* a whole task keeps the workload's costs: the split graph
             * holds its parts' only */
            assert_ptr_equal(t.tasks[i].cost_us, w->graph.tasks[t.tasks[i].origin].cost_us);
            continue;
        }
        assert_int_equal(t.tasks[i].nparts, 2);
        assert_float_equal(t.tasks[i].fraction, t.tasks[i].part == 0 ? f0 : 1 - f0, 1e-12);
        parts++;
    }
    assert_int_equal(parts, 2);
    hs_graph_free(&t);

    s = run(w, "ad-part", 0, 0);
    assert_float_equal(s->makespan_us, 44100 * f0 + 874 + 440, EPS);
    assert_float_equal(s->makespan_us, 6283.014084507, 1e-6);
    placed(w, s, "xgemm#0/cd", "cpu0", 44100 * f0, 44100 * f0 + 874);
    placed(w, s, "xgemm#0/add", "cpu0", 44100 * f0 + 874, 44100 * f0 + 1314);
    placed(w, s, "va#0/add", "gpu0", 10 + 8192 * (1 - f0) / 12000 + 5600 * (1 - f0),
           10 + 8192 * (1 - f0) / 12000 + 5600 * (1 - f0) + 422);
    {
        int on_cpu = 0, on_gpu = 0;
        for (size_t i = 0; i < s->nplacements; i++) {
            const hs_placement *p = &s->placements[i];
            if (p->task != 2)
                continue;
            assert_int_equal(p->nparts, 2);
            if (p->part == 0) {
                on_cpu = p->device == 0;
                assert_float_equal(p->start_us, 0, EPS);
            } else {
                on_gpu = p->device == 1;
            }
        }
        assert_true(on_cpu && on_gpu);
    }
    hs_schedule_free(s);

    /* a threshold above every kernel: nothing splits, ad-part is h-ratio */
    assert_int_equal(transform(w, 1e9, &t), 0);
    s = run(w, "ad-part", 0, 1e9);
    assert_float_equal(s->makespan_us, 6390.208, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* When moving the data costs more than the parallel work saves, nothing is
 * split (Fig. 2(e)).  k: cpu 1000, gpu 800, 8 MB in and out at 1 GB/s
 * (8000 us each way between memories).  Whole on cpu: 1000 (data at home).
 * Split f = (0.444, 0.556): the gpu part alone moves 4.4 MB each way:
 * 2 x 4444 + 444 > 1000.  No split, although k is above any threshold. */
static void ad_part_refuses_costly_split(void **state)
{
    static const kern_spec ks[] = {{"k", {1000, 800}, 8e6, 8e6}, {"z", {1, 1}, 0, 0}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 2, NULL, 0);
    hs_graph t;
    (void)state;
    assert_int_equal(transform(w, 10, &t), 0);
    assert_float_equal(makespan(w, "ad-part", 0), 1000, EPS);
    hs_workload_free(w);
}


/* A split pays off or not by the largest edge on each side, wherever it
 * comes in the task's list.  k costs 1000 on cpu0 and on gpu0, so its
 * parts get f = (0.5, 0.5); a, b and z cost 1, below the threshold of 10.
 * Memories are joined at 1 GB/s without latency (B bytes: B / 1000 us).
 * Whole, k costs 1000 on cpu0 (its data taken as local).  Split, from
 * cpu0's memory: the cpu0 part 500; the gpu0 part 500 plus the transfer of
 * half its largest input and half its largest output.  Inputs of 1.2 MB
 * (first) and 0.2 MB: 500 + 600 = 1100 > 1000, no split; of 0.6 MB and
 * 0.2 MB: 500 + 300 = 800 < 1000, split.  Likewise an output of 1.2 MB
 * beside one of 0.2 MB (second) keeps k whole. */
static void ad_part_split_by_largest_edge(void **state)
{
    static const kern_spec ks[] = {{"a", {1, 1}, 0, 0}, {"b", {1, 1}, 0, 0},
                                   {"k", {1000, 1000}, 0, 0}, {"z", {1, 1}, 0, 0}};
    static const edge_spec big_in[] = {{"a", "k", 1.2e6}, {"b", "k", 0.2e6}};
    static const edge_spec small_in[] = {{"a", "k", 0.6e6}, {"b", "k", 0.2e6}};
    static const edge_spec big_out[] = {{"k", "a", 0.2e6}, {"k", "z", 1.2e6}};
    hs_workload *w;
    hs_graph t;
    (void)state;
    w = build(cpu_gpu, 2, 1.0, 0.0, ks, 4, big_in, 2);
    assert_int_equal(transform(w, 10, &t), 0);
    hs_workload_free(w);
    w = build(cpu_gpu, 2, 1.0, 0.0, ks, 4, small_in, 2);
    assert_int_equal(transform(w, 10, &t), 1);
    assert_int_equal(t.ntasks, 5); /* k in two parts */
    hs_graph_free(&t);
    hs_workload_free(w);
    w = build(cpu_gpu, 2, 1.0, 0.0, ks, 4, big_out, 2);
    assert_int_equal(transform(w, 10, &t), 0);
    hs_workload_free(w);
}

/* A typed kernel whose type cannot be cut by items (potrf) is never split:
 * it would run whole in its first part (exec/data.c), so parts would
 * predict a parallelism that never happens.  va beside it, as long, is. */
static void ad_part_splits_only_cuttable_types(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    hs_graph t;
    int a;
    (void)state;
    ok(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err), &err);
    ok(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), &err);
    ok(a = hs_workload_add_app(w, "g", 1, &err), &err);
    ok(hs_app_add_kernel(w, a, "chol", &err), &err);
    ok(hs_kernel_set_type(w, a, 0, "potrf", &err), &err);
    ok(hs_kernel_add_param(w, a, 0, "n", 64, &err), &err);
    ok(hs_app_add_kernel(w, a, "add", &err), &err);
    ok(hs_kernel_set_type(w, a, 1, "va", &err), &err);
    ok(hs_kernel_add_param(w, a, 1, "n", 1000, &err), &err);
    for (int k = 0; k < 2; k++) {
        ok(hs_kernel_set_cost(w, a, k, "cpu", 1000, &err), &err);
        ok(hs_kernel_set_cost(w, a, k, "gpu", 1000, &err), &err);
    }
    ok(hs_workload_finalize(w, &err), &err);
    assert_int_equal(transform(w, 10, &t), 1);
    assert_int_equal(t.ntasks, 3); /* chol whole, add in two parts */
    assert_int_equal(t.tasks[0].nparts, 1);
    assert_int_equal(t.tasks[0].origin, 0);
    assert_int_equal(t.tasks[1].nparts, 2);
    assert_int_equal(t.tasks[2].origin, 1);
    hs_graph_free(&t);
    hs_workload_free(w);
}

/* ad-part with a performance model: one typed kernel va n = 1000 (D = its
 * flops = 1000) on cpu0 and gpu0, costs from the model `fits` (JSON), split
 * threshold 1 us.  Loads the model, builds and finalizes the workload with
 * the model as its cost provider, and runs the transform with the model in
 * the options into *t (asserting that it split); *pm and the workload are
 * the caller's to free.  Both devices spend `overhead` us per task. */
static hs_workload *typed_split_overhead(const char *fits, double overhead, hs_perfmodel **pm,
                                         hs_graph *t)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    char path[64] = "/tmp/hs_heur_model_XXXXXX", json[1024];
    const hs_policy *p = hs_policy_find("ad-part");
    hs_map_options opt = {.split_threshold_us = 1};
    FILE *f;
    int fd = mkstemp(path), a;
    assert_true(fd >= 0);
    close(fd);
    snprintf(json, sizeof json, "{\"hetsched_perfmodel\": 1, \"history\": [], \"fits\": [%s]}",
             fits);
    assert_non_null(f = fopen(path, "w"));
    fputs(json, f);
    fclose(f);
    ok(hs_perfmodel_load(path, pm, &err), &err);
    unlink(path);
    ok(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err), &err);
    ok(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), &err);
    ok(a = hs_workload_add_app(w, "g", 1, &err), &err);
    ok(hs_app_add_kernel(w, a, "k", &err), &err);
    ok(hs_kernel_set_type(w, a, 0, "va", &err), &err);
    ok(hs_kernel_add_param(w, a, 0, "n", 1000, &err), &err);
    ok(hs_platform_set_overhead(w, 0, overhead, &err), &err);
    ok(hs_platform_set_overhead(w, 1, overhead, &err), &err);
    hs_workload_set_cost_fn(w, hs_perfmodel_cost_fn, *pm);
    ok(hs_workload_finalize(w, &err), &err);
    opt.perfmodel = *pm;
    assert_int_equal(p->transform(w, &opt, t, &err), 1);
    return w;
}

#define FIT(dev, a, b, c)                                                                    \
    "{\"type\": \"va\", \"device\": \"" dev "\", \"a\": " #a ", \"b\": " #b ", \"c\": " #c   \
    ", \"points\": 3, \"rms_rel\": 0}"

static hs_workload *typed_split(const char *fits, hs_perfmodel **pm, hs_graph *t)
{
    return typed_split_overhead(fits, 0, pm, t);
}

/* The same with 10 us of overhead per task on each device: costs 130 and
 * 80, fractions 8/21 (cpu0) and 13/21; a part costs the model's kernel at
 * its size plus the whole overhead (cpu0, part 0: 100 f + 20 + 10 =
 * 1430/21), not less than f of the kernel plus the overhead (1170/21). */
static void ad_part_model_parts_overhead(void **state)
{
    hs_perfmodel *pm = NULL;
    hs_graph t;
    hs_workload *w = typed_split_overhead(FIT("cpu0", 0.1, 1, 20) "," FIT("gpu0", 0.05, 1, 20),
                                          10, &pm, &t);
    (void)state;
    assert_float_equal(w->graph.tasks[0].cost_us[0], 130, 1e-12);
    assert_float_equal(w->graph.tasks[0].cost_us[1], 80, 1e-12);
    assert_int_equal(t.ntasks, 2);
    assert_float_equal(t.tasks[0].fraction, 8.0 / 21, 1e-12);
    assert_float_equal(t.tasks[0].cost_us[0], 1430.0 / 21, 1e-9);
    assert_float_equal(t.tasks[0].cost_us[1], 1030.0 / 21, 1e-9);
    assert_float_equal(t.tasks[1].cost_us[0], 1930.0 / 21, 1e-9);
    assert_float_equal(t.tasks[1].cost_us[1], 1280.0 / 21, 1e-9);
    hs_graph_free(&t);
    hs_perfmodel_free(pm);
    hs_workload_free(w);
}

/* Sec. 4.3 with the regression: fits cpu0 0.1 D + 20 and gpu0 0.05 D + 20,
 * so the whole kernel costs 120 and 70 us.  Fractions by speed: 1/120 : 1/70,
 * i.e. 7/19 (cpu0) and 12/19 (gpu0); part 0 is the smaller.  Part costs are
 * the model at f x 1000:
 *   part 0 (7/19):  cpu0 700/19 + 20 = 1080/19, gpu0 350/19 + 20 = 730/19
 *   part 1 (12/19): cpu0 1200/19 + 20 = 1580/19, gpu0 600/19 + 20 = 980/19
 * (each above the linear f x C, e.g. 7/19 x 120 = 840/19 < 1080/19).  Split
 * pays: the slowest part alone, cpu0's 1080/19 = 56.8 us, beats 70 whole.
 * Mapping: part 1 goes first to gpu0 (ends 980/19); part 0 then ends at
 * 1080/19 on cpu0 against 1710/19 on gpu0: makespan 1080/19.  Without the
 * model both parts cost 840/19 (linear), the makespan 840/19. */
static void ad_part_model_parts(void **state)
{
    hs_perfmodel *pm = NULL;
    hs_graph t;
    hs_workload *w = typed_split(FIT("cpu0", 0.1, 1, 20) "," FIT("gpu0", 0.05, 1, 20), &pm, &t);
    hs_map_options opt = {.split_threshold_us = 1, .perfmodel = pm};
    hs_schedule *s = NULL;
    hs_error err = {0};
    (void)state;
    assert_float_equal(w->graph.tasks[0].cost_us[0], 120, 1e-12);
    assert_float_equal(w->graph.tasks[0].cost_us[1], 70, 1e-12);
    assert_int_equal(t.ntasks, 2);
    assert_float_equal(t.tasks[0].fraction, 7.0 / 19, 1e-12);
    assert_float_equal(t.tasks[1].fraction, 12.0 / 19, 1e-12);
    assert_float_equal(t.tasks[0].cost_us[0], 1080.0 / 19, 1e-9);
    assert_float_equal(t.tasks[0].cost_us[1], 730.0 / 19, 1e-9);
    assert_float_equal(t.tasks[1].cost_us[0], 1580.0 / 19, 1e-9);
    assert_float_equal(t.tasks[1].cost_us[1], 980.0 / 19, 1e-9);
    hs_graph_free(&t);
    ok(hs_map(w, "ad-part", &opt, &s, NULL, &err), &err);
    ok(hs_schedule_validate(w, s, &err), &err);
    assert_float_equal(s->makespan_us, 1080.0 / 19, 1e-9);
    hs_schedule_free(s);
    opt.perfmodel = NULL;
    ok(hs_map(w, "ad-part", &opt, &s, NULL, &err), &err);
    ok(hs_schedule_validate(w, s, &err), &err);
    assert_float_equal(s->makespan_us, 840.0 / 19, 1e-9);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(pm);
}

/* A model that predicts a part cheaper than its linear share (b = 2:
 * 1.2e-4 D^2 and 7e-5 D^2, whole 120 and 70 us, a part 120 f^2 < 120 f)
 * gives way to f x C, the least the validator lets a part take: the
 * transformed graph is then exactly the linear one. */
static void ad_part_model_floor(void **state)
{
    hs_perfmodel *pm = NULL;
    hs_graph t;
    hs_workload *w = typed_split(FIT("cpu0", 1.2e-4, 2, 0) "," FIT("gpu0", 7e-5, 2, 0), &pm, &t);
    (void)state;
    assert_float_equal(w->graph.tasks[0].cost_us[0], 120, 1e-9);
    check_transformed(w, &t);
    hs_graph_free(&t);
    hs_workload_free(w);
    hs_perfmodel_free(pm);
}
#undef FIT

/* ------------------------------------------------ seeded random workloads */

/* A random DAG on `nd` devices (two CPUs sharing host memory when nd > 2):
 * n kernels, edges i -> j (i < j) with probability 3/n, costs 1..100 with
 * GPUs 1-10 x faster, bytes up to 200 kB, links 4 GB/s and 5 us. */
static hs_workload *random_workload(unsigned short x[3], int n, int nd)
{
    static const dev_spec all[] = {{"cpu0", HS_DEVICE_CPU, "host"},
                                   {"gpu0", HS_DEVICE_GPU, "gpu0"},
                                   {"cpu1", HS_DEVICE_CPU, "host"},
                                   {"gpu1", HS_DEVICE_GPU, "gpu1"}};
    kern_spec *ks = calloc((size_t)n, sizeof *ks);
    edge_spec *es = calloc((size_t)n * (size_t)n, sizeof *es);
    char (*names)[16] = calloc((size_t)n, sizeof *names);
    int ne = 0;
    hs_workload *w;
    assert_true(ks && es && names);
    for (int i = 0; i < n; i++) {
        double c = 1 + 99 * erand48(x), sp = 1 + 9 * erand48(x);
        snprintf(names[i], sizeof names[i], "k%d", i);
        ks[i].name = names[i];
        for (int d = 0; d < nd; d++)
            ks[i].cost[d] = all[d].kind == HS_DEVICE_GPU ? c / sp : c * (0.8 + 0.4 * erand48(x));
        ks[i].in = erand48(x) < 0.3 ? (double)(int)(200000 * erand48(x)) : 0;
        ks[i].out = erand48(x) < 0.3 ? (double)(int)(200000 * erand48(x)) : 0;
        for (int j = 0; j < i; j++)
            if (erand48(x) < 3.0 / n)
                es[ne++] = (edge_spec){names[j], names[i], (double)(int)(200000 * erand48(x))};
    }
    w = build(all, nd, 4.0, 5.0, ks, n, es, ne);
    free(ks);
    free(es);
    free(names);
    return w;
}

/* The adjacency a transform built with its edges is the one
 * hs_graph_build_adjacency builds from them, list for list. */
static void same_adjacency_as_built(hs_graph *t)
{
    size_t n = t->ntasks, ne = t->nedges;
    size_t *so = malloc((n + 1) * sizeof *so), *po = malloc((n + 1) * sizeof *po);
    size_t *su = malloc((ne + 1) * sizeof *su), *pr = malloc((ne + 1) * sizeof *pr);
    hs_error err = {0};
    assert_true(so && po && su && pr);
    memcpy(so, t->succ_off, (n + 1) * sizeof *so);
    memcpy(po, t->pred_off, (n + 1) * sizeof *po);
    memcpy(su, t->succ, ne * sizeof *su);
    memcpy(pr, t->pred, ne * sizeof *pr);
    ok(hs_graph_build_adjacency(t, &err), &err);
    assert_memory_equal(so, t->succ_off, (n + 1) * sizeof *so);
    assert_memory_equal(po, t->pred_off, (n + 1) * sizeof *po);
    assert_memory_equal(su, t->succ, ne * sizeof *su);
    assert_memory_equal(pr, t->pred, ne * sizeof *pr);
    free(so);
    free(po);
    free(su);
    free(pr);
}

/* On seeded random workloads: every policy's schedule is valid (run());
 * heft's and peft's runs never end a task later than their plan (the plan
 * is a valid schedule and the run keeps its order per device); h-ratio and
 * d-rank are valid at any threshold; ad-part's transform follows the model
 * whatever it splits. */
static void random_invariants(void **state)
{
    unsigned short x[3] = {1, 2, 3};
    (void)state;
    for (int seed = 0; seed < 60; seed++) {
        int n = 2 + (int)(erand48(x) * 40), nd = 2 + seed % 3;
        hs_workload *w = random_workload(x, n, nd);
        const hs_graph *g = &w->graph;
        hs_error err = {0};
        hs_graph t;
        for (int pol = 0; pol < 2; pol++) {
            double *rank = malloc(g->ntasks * sizeof *rank);
            double *oct = malloc(g->ntasks * (size_t)nd * sizeof *oct);
            hs__plan plan;
            hs_schedule *s;
            assert_true(rank && oct);
            if (pol == 0)
                ok(hs__upward_rank(g, &w->platform, rank, &err), &err);
            else
                ok(hs__oct(g, &w->platform, oct, rank, &err), &err);
            ok(hs__plan_compute(g, &w->platform, NULL, rank, pol ? oct : NULL, &plan, &err),
               &err);
            {
                /* each task starts no earlier than its data arrive (the
                 * one-device walk over its predecessors, once all placed) */
                hs__planner p = {.g = g, .pf = &w->platform, .plan = plan};
                for (size_t k = 0; k < g->ntasks; k++)
                    assert_true(plan.start[k] >= hs__planner_data_ready(&p, k, plan.device[k]));
            }
            s = run(w, pol ? "peft" : "heft", 0, 0);
            for (size_t i = 0; i < s->nplacements; i++) {
                const hs_placement *p = &s->placements[i];
                assert_int_equal(p->device, plan.device[p->task]);
                assert_true(p->end_us <= plan.end[p->task] + 1e-9);
            }
            hs_schedule_free(s);
            hs__plan_free(&plan);
            free(rank);
            free(oct);
        }
        hs_schedule_free(run(w, "h-ratio", 1 + seed % 5, 0));
        hs_schedule_free(run(w, "d-rank", 1 + seed % 5, 0));
        hs_schedule_free(run(w, "h-ratio", 0, 0));
        hs_schedule_free(run(w, "d-rank", 0, 0));
        /* a tiny threshold makes every kernel a candidate */
        if (transform(w, 1e-3, &t) == 1) {
            check_transformed(w, &t);
            same_adjacency_as_built(&t);
            hs_graph_free(&t);
        }
        hs_schedule_free(run(w, "ad-part", 0, 1e-3));
        hs_schedule_free(run(w, "ad-part", 0, 0));
        hs_workload_free(w);
    }
}

/* Alg. 1 with the plain scan of eq. (11)-(12): the reference for rank.c's
 * dispatcher, which passes over devices by a bound.  The same central queue
 * (largest priority first, the newest among equals), device queues of at
 * most thr tasks topped up at the first pick after events; the head goes
 * to the device of least hs_engine_finish_time, every device asked, the
 * lowest index among equals.  Priorities are h-ratio's of each task's
 * whole kernel (ad-part's parts take their kernel's). */
typedef struct full_scan {
    double *prio;
    hs__heap central;
    hs__fifo *queue;
    size_t queued, thr;
    double arrivals;
    int ndevices, fresh;
} full_scan;

static int full_scan_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_graph *g = hs_engine_graph(e), *wg = &hs_engine_workload(e)->graph;
    full_scan *s = calloc(1, sizeof *s);
    double *h = malloc(wg->ntasks * sizeof *h);
    (void)err;
    assert_true(s && h);
    s->ndevices = g->ndevices;
    s->thr = (size_t)(opt->thr ? opt->thr : hs__dispatch_default_thr(g->ndevices));
    s->prio = malloc(g->ntasks * sizeof *s->prio);
    s->queue = calloc((size_t)g->ndevices, sizeof *s->queue);
    assert_true(s->prio && s->queue);
    hs__h_ratio(wg, h);
    for (size_t t = 0; t < g->ntasks; t++)
        s->prio[t] = h[g->tasks[t].origin];
    free(h);
    *state = s;
    return HS_OK;
}

static void full_scan_ready(void *state, hs_engine *e, size_t t)
{
    full_scan *s = state;
    (void)e;
    s->arrivals += 1.0;
    s->fresh = 1;
    assert_int_equal(hs__heap_push(&s->central, -s->prio[t], -s->arrivals, t), 0);
}

static void full_scan_done(void *state, hs_engine *e, size_t t, int d, double us)
{
    (void)e;
    (void)t;
    (void)d;
    (void)us;
    ((full_scan *)state)->fresh = 1;
}

static long full_scan_pick(void *state, hs_engine *e, int device)
{
    full_scan *s = state;
    hs__heap_entry top;
    size_t t;
    while (s->fresh && s->queued < s->thr && hs__heap_pop(&s->central, &top) == 0) {
        int best = 0;
        for (int d = 1; d < s->ndevices; d++)
            if (hs_engine_finish_time(e, top.item, d) < hs_engine_finish_time(e, top.item, best))
                best = d;
        hs_engine_assign(e, top.item, best);
        assert_int_equal(hs__fifo_push(&s->queue[best], top.item), 0);
        s->queued++;
    }
    s->fresh = 0;
    if (hs__fifo_pop(&s->queue[device], &t) != 0)
        return HS_NO_TASK;
    s->queued--;
    return (long)t;
}

static void full_scan_fini(void *state)
{
    full_scan *s = state;
    for (int d = 0; d < s->ndevices; d++)
        hs__fifo_free(&s->queue[d]);
    free(s->queue);
    hs__heap_free(&s->central);
    free(s->prio);
    free(s);
}

/* h-ratio and ad-part (its transform, then the same dispatcher) place every
 * task or part where the plain scan does, at the same times, on seeded
 * random graphs of 2 CPUs sharing host memory and 2 or 6 GPUs: with beta 0
 * (a kernel costs the same on every device of a kind, so finish times tie
 * between devices), at CCR 0.1 to 5, at thresholds 1, 3 and the default. */
static void dispatcher_matches_full_scan(void **state)
{
    static const char *const devices[] = {"cpu:2,gpu:2", "cpu:2,gpu:6"};
    static const double ccr[] = {0.1, 1, 5}, beta[] = {0, 0.5};
    hs_policy ref = {.name = "full-scan", .init = full_scan_init, .ready = full_scan_ready,
                     .pick = full_scan_pick, .done = full_scan_done, .fini = full_scan_fini};
    int case_no = 0, splits = 0;
    (void)state;
    for (int pf = 0; pf < 2; pf++)
        for (int c = 0; c < 3; c++)
            for (int b = 0; b < 2; b++, case_no++) {
                hs_workload *w = hs_workload_new();
                hs_gen_random_opts o;
                hs_error err = {0};
                assert_non_null(w);
                hs_gen_random_defaults(&o);
                o.tasks = 80;
                o.ccr = ccr[c];
                o.beta = beta[b];
                o.seed = (unsigned long)case_no + 1;
                ok(hs_gen_platform(w, devices[pf], HS_GEN_CPU_CORES, &err), &err);
                ok(hs_gen_random(w, &o, &err), &err);
                ok(hs_workload_finalize(w, &err), &err);
                for (int split = 0; split < 2; split++)
                    for (int thr = 0; thr < 4; thr += 1 + (thr == 1)) {
                        hs_map_options opt = {.thr = thr};
                        hs_backend sim = {.ops = &hs_backend_sim};
                        hs_schedule *s = run_opts(w, split ? "ad-part" : "h-ratio", &opt), *r;
                        ref.transform = split ? hs_policy_find("ad-part")->transform : NULL;
                        ok(hs_engine_run(w, &ref, &opt, &sim, &r, NULL, &err), &err);
                        assert_int_equal(s->nplacements, r->nplacements);
                        for (size_t i = 0; i < s->nplacements; i++) {
                            const hs_placement *p = &s->placements[i], *q = &r->placements[i];
                            assert_int_equal(p->task, q->task);
                            assert_int_equal(p->part, q->part);
                            assert_int_equal(p->device, q->device);
                            assert_true(p->start_us == q->start_us && p->end_us == q->end_us);
                        }
                        splits += s->nplacements > w->graph.ntasks;
                        hs_schedule_free(s);
                        hs_schedule_free(r);
                    }
                hs_workload_free(w);
            }
    assert_true(splits > 0); /* ad-part split kernels in some cases */
}

/* Tasks of no duration at one instant keep their precedence in a plan: b is
 * declared before a (so it has the lower index) but depends on it, and
 * both cost 0 everywhere, so heft plans both at [0, 0] on cpu0.  The device
 * must run a before b (ordered by start, end, then topological position, not
 * by index), or it would wait for b forever. */
static void plan_keeps_zero_cost_chain(void **state)
{
    static const kern_spec ks[] = {{"b", {0, 0}, 0, 0}, {"a", {0, 0}, 0, 0}};
    static const edge_spec es[] = {{"a", "b", 0}};
    hs_workload *w = build(cpu_gpu, 2, 1.0, 0.0, ks, 2, es, 1);
    (void)state;
    assert_float_equal(makespan(w, "heft", 0), 0, 0);
    assert_float_equal(makespan(w, "peft", 0), 0, 0);
    hs_workload_free(w);
}

/* --------------------------------------------------------------- best */

/* A random topological order of g into seq (Kahn's, ready tasks drawn at
 * random). */
static void random_topo(const hs_graph *g, unsigned short x[3], size_t *seq)
{
    size_t n = g->ntasks, nready = 0, *ready = malloc(n * sizeof *ready);
    size_t *left = malloc(n * sizeof *left);
    assert_true(ready && left);
    for (size_t t = 0; t < n; t++)
        if ((left[t] = g->pred_off[t + 1] - g->pred_off[t]) == 0)
            ready[nready++] = t;
    for (size_t k = 0; k < n; k++) {
        size_t i = (size_t)(erand48(x) * (double)nready), t;
        const hs_edge *e;
        assert_true(nready > 0);
        i = i < nready ? i : nready - 1;
        t = ready[i];
        ready[i] = ready[--nready];
        seq[k] = t;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (--left[e->to] == 0)
                ready[nready++] = e->to;
        }
    }
    free(ready);
    free(left);
}

/* The retimer gives what the engine gives: every static policy's plan, read
 * as devices and orders, retimes to the makespan of that policy's run (the
 * run executes the same orders as early as the model lets it).  And a
 * partial timing from position k agrees with a full one of the same
 * schedule, whatever changed from k on. */
static void retime_matches_engine(void **state)
{
    unsigned short x[3] = {4, 5, 6};
    (void)state;
    for (int seed = 0; seed < 40; seed++) {
        int n = 2 + (int)(erand48(x) * 30), nd = 2 + seed % 3;
        hs_workload *w = random_workload(x, n, nd);
        const hs_graph *g = &w->graph;
        hs__retimer r;
        hs__seq_sched a, b;
        hs_error err = {0};
        ok(hs__retimer_init(&r, g, &w->platform, &err), &err);
        ok(hs__seq_sched_alloc(&a, g->ntasks, &err), &err);
        ok(hs__seq_sched_alloc(&b, g->ntasks, &err), &err);
        for (const hs_policy *const *p = hs_policy_list(); *p; p++) {
            hs__plan plan;
            hs_schedule *s;
            if (!(*p)->plan)
                continue;
            ok((*p)->plan(g, &w->platform, NULL, &plan, &err), &err);
            hs__seq_from_plan(&r, &plan, &a);
            s = run(w, hs_policy_name(*p), 0, 0);
            if (fabs(a.makespan - s->makespan_us) > 1e-9 * s->makespan_us)
                fail_msg("%s on workload %d: retimed %.9f, run %.9f", hs_policy_name(*p), seed,
                         a.makespan, s->makespan_us);
            hs_schedule_free(s);
            hs__plan_free(&plan);
        }
        for (int trial = 0; trial < 20; trial++) {
            size_t from = (size_t)(erand48(x) * (double)g->ntasks);
            double full, part;
            for (size_t t = 0; t < g->ntasks; t++)
                a.dev[t] = (int)(erand48(x) * nd) % nd;
            random_topo(g, x, a.seq);
            hs__retime_commit(&r, a.dev, a.seq);
            /* b: a with the tasks from `from` on moved to random devices and
             * reordered among themselves in a topological way */
            hs__seq_sched_copy(&b, &a, g->ntasks);
            for (size_t k = from; k < g->ntasks; k++)
                b.dev[b.seq[k]] = (int)(erand48(x) * nd) % nd;
            for (size_t k = from; k + 1 < g->ntasks; k++) {
                size_t t = b.seq[k], u = b.seq[k + 1];
                const hs_edge *e;
                int linked = 0;
                HS_GRAPH_SUCC_FOREACH(g, t, e)
                {
                    linked |= e->to == u;
                }
                if (!linked && erand48(x) < 0.5) {
                    b.seq[k] = u;
                    b.seq[k + 1] = t;
                }
            }
            part = hs__retime_from(&r, b.dev, b.seq, from, HUGE_VAL);
            full = hs__retime(&r, b.dev, b.seq, HUGE_VAL);
            assert_float_equal(part, full, 0);
            /* a cutoff at or below the makespan stops the timing */
            assert_true(isinf(hs__retime(&r, b.dev, b.seq, full)));
        }
        hs__seq_sched_free(&a);
        hs__seq_sched_free(&b);
        hs__retimer_free(&r);
        hs_workload_free(w);
    }
}

/* The local search from a given schedule, on cpu0 + gpu0 at 1 GB/s without
 * latency, where no single task can move alone: an edge of 1 MB costs
 * 1000 us between the devices.
 * Pair: a -> b (1 MB), each cpu 100, gpu 10; z: cpu 1000, gpu 100.  From a
 *   and b on cpu0 and z on gpu0 (seq a, b, z; makespan 200), a or b alone
 *   to gpu0 waits 1000 for the edge, z to cpu0 takes 1000, exchanging a or
 *   b with z does both, moving all of cpu0 onto gpu0 and back puts z on
 *   cpu0: only a and b together to gpu0 helps, [0, 10], [10, 20], z [20,
 *   120]: 120, the optimum (z on gpu0 takes a and b with it, else 200).
 * Exchange: a -> b -> c (1 MB each), each cpu 100, gpu 10, all on cpu0
 *   (300): any one or two of them on gpu0 pay an edge; all three: 30. */
static void local_search_moves(void **state)
{
    static const kern_spec pair[] = {
        {"a", {100, 10}, 0, 0}, {"b", {100, 10}, 0, 0}, {"z", {1000, 100}, 0, 0}};
    static const edge_spec pair_e[] = {{"a", "b", 1e6}};
    static const kern_spec chain[] = {
        {"a", {100, 10}, 0, 0}, {"b", {100, 10}, 0, 0}, {"c", {100, 10}, 0, 0}};
    static const edge_spec chain_e[] = {{"a", "b", 1e6}, {"b", "c", 1e6}};
    (void)state;
    for (int k = 0; k < 2; k++) {
        hs_workload *w = k ? build(cpu_gpu, 2, 1.0, 0.0, chain, 3, chain_e, 2)
                           : build(cpu_gpu, 2, 1.0, 0.0, pair, 3, pair_e, 1);
        hs__retimer r;
        hs__seq_sched s;
        hs_error err = {0};
        ok(hs__retimer_init(&r, &w->graph, &w->platform, &err), &err);
        ok(hs__seq_sched_alloc(&s, 3, &err), &err);
        for (size_t t = 0; t < 3; t++) {
            s.seq[t] = t;
            s.dev[t] = k == 0 && t == 2;
        }
        s.makespan = hs__retime(&r, s.dev, s.seq, HUGE_VAL);
        assert_float_equal(s.makespan, k ? 300 : 200, 0);
        hs__local_search(&r, &s, HUGE_VAL);
        assert_float_equal(s.makespan, k ? 30 : 120, EPS);
        for (size_t t = 0; t < 3; t++)
            assert_int_equal(s.dev[t], 1);
        hs__seq_sched_free(&s);
        hs__retimer_free(&r);
        hs_workload_free(w);
    }
}

/* Every task on device d one after the other in topological order, inputs
 * from host and outputs back (the delay model). */
static double on_one_device(const hs_workload *w, int d)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    int mem = pf->devices[d].memory;
    size_t *order = malloc(g->ntasks * sizeof *order);
    double now = 0, makespan = 0;
    hs_error err = {0};
    assert_non_null(order);
    ok(hs_graph_topo_order(g, order, &err), &err);
    for (size_t k = 0; k < g->ntasks; k++) {
        const hs_task *t = &g->tasks[order[k]];
        double in = hs_transfer_us(pf, HS_HOST_MEMORY, mem, t->input_bytes);
        now = fmax(in, now) + t->cost_us[d];
        makespan = fmax(makespan, now + hs_transfer_us(pf, mem, HS_HOST_MEMORY, t->output_bytes));
    }
    free(order);
    return makespan;
}

/* On seeded random workloads, with a budget it never reaches: best is no
 * longer than any other policy that keeps tasks whole (it starts from the
 * shortest of them and only shortens it), nor than any single device; and
 * two runs give the same schedule. */
static void best_never_worse(void **state)
{
    unsigned short x[3] = {7, 8, 9};
    hs_map_options opt = {.budget_ms = HS_MAX_BUDGET_MS};
    (void)state;
    for (int seed = 0; seed < 40; seed++) {
        int n = 2 + (int)(erand48(x) * 30), nd = 2 + seed % 3;
        hs_workload *w = random_workload(x, n, nd);
        hs_schedule *b = run_opts(w, "best", &opt), *again = run_opts(w, "best", &opt);
        for (const hs_policy *const *p = hs_policy_list(); *p; p++) {
            hs_schedule *s;
            if ((*p)->transform)
                continue;
            s = run(w, hs_policy_name(*p), 0, 0);
            if (b->makespan_us > s->makespan_us * (1 + 1e-12))
                fail_msg("workload %d: best %.6f, %s %.6f", seed, b->makespan_us,
                         hs_policy_name(*p), s->makespan_us);
            hs_schedule_free(s);
        }
        for (int d = 0; d < nd; d++)
            assert_true(b->makespan_us <= on_one_device(w, d) * (1 + 1e-12));
        assert_int_equal(b->nplacements, again->nplacements);
        for (size_t i = 0; i < b->nplacements; i++) {
            assert_int_equal(b->placements[i].task, again->placements[i].task);
            assert_int_equal(b->placements[i].device, again->placements[i].device);
            assert_float_equal(b->placements[i].start_us, again->placements[i].start_us, 0);
        }
        hs_schedule_free(b);
        hs_schedule_free(again);
        hs_workload_free(w);
    }
}

/* Topcuoglu et al.'s example: heft 80, the best of the portfolio 76 (hoft
 * and lookahead), and the search reaches 73, which the MILP proves
 * optimal. */
static void best_topcuoglu(void **state)
{
    hs_workload *w = topcuoglu();
    hs_milp_options mo;
    hs_milp_result res;
    hs_error err = {0};
    (void)state;
    assert_float_equal(makespan(w, "hoft", 0), 76, EPS);
    assert_float_equal(makespan(w, "lookahead", 0), 76, EPS);
    assert_float_equal(makespan(w, "best", 0), 73, EPS);
    hs_milp_options_init(&mo);
    mo.progress = 0;
    ok(hs_milp_solve(w, &mo, &res, &err), &err);
    assert_int_equal(res.status, HS_MILP_OPTIMAL);
    assert_float_equal(res.makespan_us, 73, EPS);
    hs_milp_result_free(&res);
    hs_workload_free(w);
}

/* ------------------------------------------------------- given schedules */

/* Writes `text` into a new temporary file, whose name goes into path (at
 * least 32 bytes); the caller unlinks it. */
static void write_temp(char *path, const char *text)
{
    FILE *f;
    int fd;
    strcpy(path, "/tmp/hs_heur_given_XXXXXX");
    assert_true((fd = mkstemp(path)) >= 0);
    close(fd);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

/* The case study's MILP optimum, 6390.208 us: gpu0 runs xgemm#0/ab from
 * 10.683 us (its 8192-byte input over the 12 GB/s, 10 us link) to 5610.683,
 * then xgemm#0/add, whose 4 MiB result reaches host at 5610.683 + 420 +
 * 359.525 = 6390.208; cpu0 runs cd, va's add and scale.  Run as a given
 * schedule in the simulator, from its JSON: the same makespan, each task
 * where and when the MILP put it. */
static void given_case_study_optimum(void **state)
{
    hs_workload *w = case_study();
    hs_milp_options mo;
    hs_milp_result res;
    hs_map_options opt = {0};
    hs_schedule *given = NULL, *s = NULL;
    hs_error err = {0};
    char path[32];
    (void)state;
    hs_milp_options_init(&mo);
    mo.progress = 0;
    ok(hs_milp_solve(w, &mo, &res, &err), &err);
    assert_int_equal(res.status, HS_MILP_OPTIMAL);
    assert_float_equal(res.makespan_us, 6390.208, 1e-3);
    write_temp(path, "");
    ok(hs_schedule_write_json(w, res.schedule, path, &err), &err);
    ok(hs_schedule_read_given(w, path, &given, &err), &err);
    unlink(path);
    opt.schedule = given;
    ok(hs_map(w, NULL, &opt, &s, NULL, &err), &err);
    ok(hs_schedule_validate(w, s, &err), &err);
    assert_string_equal(s->algorithm, "given");
    assert_float_equal(s->makespan_us, res.makespan_us, EPS);
    assert_float_equal(s->makespan_us, 6390.208, 1e-3);
    placed(w, s, "xgemm#0/ab", "gpu0", 10 + 8192 / 12e3, 5600 + 10 + 8192 / 12e3);
    placed(w, s, "xgemm#0/add", "gpu0", 5610 + 8192 / 12e3, 6030 + 8192 / 12e3);
    placed(w, s, "xgemm#0/cd", "cpu0", 0, 874);
    placed(w, s, "va#0/add", "cpu0", 874, 1442);
    placed(w, s, "va#0/scale", "cpu0", 1442, 2962);
    hs_schedule_free(s);
    hs_schedule_free(given);
    hs_milp_result_free(&res);
    hs_workload_free(w);
}

/* A given schedule's order beats the policy's choice it would make: va's
 * tasks both on gpu0 after xgemm#0/ab there wait for it, 5610.683 us, so
 * that scale ends at 5610.683 + 422 + 242 and its 200000 bytes reach host
 * 26.667 us later: 6301.349 us; xgemm#0/add on cpu0 after cd waits for ab's
 * 4 MiB: 5610.683 + 359.525 + 440 = 6410.208 us, the makespan. */
static void given_keeps_order(void **state)
{
    static const char text[] =
        "{\"workload\": null, \"algorithm\": null, \"model\": \"delay\", \"makespan_us\": 0,\n"
        " \"tasks\": [\n"
        "  {\"id\": \"va#0/add\", \"device\": \"gpu0\", \"start_us\": 7000, \"end_us\": 7001, \"fraction\": 1},\n"
        "  {\"id\": \"va#0/scale\", \"device\": \"gpu0\", \"start_us\": 7002, \"end_us\": 7003, \"fraction\": 1},\n"
        "  {\"id\": \"xgemm#0/ab\", \"device\": \"gpu0\", \"start_us\": 0, \"end_us\": 0, \"fraction\": 1},\n"
        "  {\"id\": \"xgemm#0/cd\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 0, \"fraction\": 1},\n"
        "  {\"id\": \"xgemm#0/add\", \"device\": \"cpu0\", \"start_us\": 1, \"end_us\": 2, \"fraction\": 1}\n"
        " ],\n"
        " \"transfers\": []}\n";
    hs_workload *w = case_study();
    hs_schedule *given = NULL, *s = NULL;
    hs_map_options opt = {0};
    hs_error err = {0};
    double ab = 5600 + 10 + 8192 / 12e3;
    char path[32];
    (void)state;
    write_temp(path, text);
    ok(hs_schedule_read_given(w, path, &given, &err), &err);
    unlink(path);
    opt.schedule = given;
    ok(hs_map(w, NULL, &opt, &s, NULL, &err), &err);
    ok(hs_schedule_validate(w, s, &err), &err);
    placed(w, s, "va#0/add", "gpu0", ab, ab + 422);
    placed(w, s, "va#0/scale", "gpu0", ab + 422, ab + 664);
    placed(w, s, "xgemm#0/cd", "cpu0", 0, 874);
    placed(w, s, "xgemm#0/add", "cpu0", ab + 10 + 4194304 / 12e3, ab + 450 + 4194304 / 12e3);
    assert_float_equal(s->makespan_us, 6410.208, 1e-3);
    hs_schedule_free(s);
    hs_schedule_free(given);
    hs_workload_free(w);
}

/* A schedule that is not one of the workload, or beside a policy: refused
 * with the item that is wrong, where it is. */
static void given_refusals(void **state)
{
    static const char head[] =
        "{\"workload\": null, \"algorithm\": null, \"model\": \"delay\", \"makespan_us\": 0,\n"
        " \"tasks\": [\n";
    static const struct {
        const char *tasks, *msg;
    } bad[] = {
        {"  {\"id\": \"va#0/add\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}\n",
         ":1:1: error: task 'va#0/scale' is not placed (the schedule places 1 of the "
         "workload's 5 tasks)"},
        {"  {\"id\": \"va#0/add\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1},\n"
         "  {\"id\": \"va#0/add\", \"device\": \"gpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}\n",
         ":4:10: error: tasks[1].id: 'va#0/add' is placed twice (also tasks[0])"},
        {"  {\"id\": \"va#0/add[0/2]\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 0.5}\n",
         ":3:10: error: tasks[0].id: 'va#0/add[0/2]' is a part of a split task: a given "
         "schedule runs whole tasks"},
        {"  {\"id\": \"va#0/add\", \"device\": \"gpu1\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}\n",
         ":3:32: error: tasks[0].device: no device 'gpu1' in the workload"},
        {"  {\"id\": \"va#0/sub\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}\n",
         ":3:10: error: tasks[0].id: no task 'va#0/sub' in the workload"},
        /* scale before add on one device */
        {"  {\"id\": \"va#0/add\", \"device\": \"cpu0\", \"start_us\": 5, \"end_us\": 6, \"fraction\": 1},\n"
         "  {\"id\": \"va#0/scale\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1},\n"
         "  {\"id\": \"xgemm#0/ab\", \"device\": \"gpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1},\n"
         "  {\"id\": \"xgemm#0/cd\", \"device\": \"gpu0\", \"start_us\": 1, \"end_us\": 2, \"fraction\": 1},\n"
         "  {\"id\": \"xgemm#0/add\", \"device\": \"gpu0\", \"start_us\": 2, \"end_us\": 3, \"fraction\": 1}\n",
         ":4:54: error: tasks[1].start_us: 'va#0/scale' starts at 0.000 us on cpu0, before "
         "'va#0/add' that it needs (tasks[0], at 5.000 us)"},
        /* cpu0 runs xgemm's add before va's, gpu0 va's scale before xgemm's
         * ab: each device waits for the other */
        {"  {\"id\": \"xgemm#0/add\", \"device\": \"cpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1},\n"
         "  {\"id\": \"va#0/add\", \"device\": \"cpu0\", \"start_us\": 1, \"end_us\": 2, \"fraction\": 1},\n"
         "  {\"id\": \"va#0/scale\", \"device\": \"gpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1},\n"
         "  {\"id\": \"xgemm#0/ab\", \"device\": \"gpu0\", \"start_us\": 1, \"end_us\": 2, \"fraction\": 1},\n"
         "  {\"id\": \"xgemm#0/cd\", \"device\": \"gpu0\", \"start_us\": 2, \"end_us\": 3, \"fraction\": 1}\n",
         ":5:54: error: tasks[2].start_us: 'va#0/scale' starts at 0.000 us on gpu0, before "
         "'va#0/add' that it needs (tasks[1], at 1.000 us on cpu0), and the two devices' "
         "orders wait for each other"},
    };
    hs_workload *w = case_study();
    hs_schedule *given = NULL, *s = NULL, *made = hs_schedule_new(NULL, NULL);
    hs_map_options opt = {0};
    hs_error err = {0};
    char path[32], text[2048], want[512];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s ],\n \"transfers\": []}\n", head, bad[i].tasks);
        write_temp(path, text);
        assert_int_equal(hs_schedule_read_given(w, path, &given, &err), HS_EINPUT);
        assert_null(given);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        assert_string_equal(err.msg, want);
        unlink(path);
    }
    /* a schedule made by a program, not read: named by its items */
    assert_non_null(made);
    assert_true(hs_schedule_add_placement(made, &(hs_placement){.task = 9, .nparts = 1,
                                                                .fraction = 1}, &err) == 0);
    opt.schedule = made;
    assert_int_equal(hs_map(w, NULL, &opt, &s, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "the schedule: tasks[0].id: task 9 on device 0: the workload "
                                 "has 5 tasks and 2 devices");
    assert_int_equal(hs_map(w, "heft", &opt, &s, NULL, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "--schedule runs the schedule it is given: no policy (-a heft) "
                                 "with it");
    opt.schedule = NULL;
    assert_int_equal(hs_map(w, NULL, &opt, &s, NULL, &err), HS_EUSAGE);
    assert_null(s);
    hs_schedule_free(made);
    hs_workload_free(w);
}

/* ------------------------------------------------------------- refusals */

static void bad_options(void **state)
{
    static const double budgets[] = {-1, NAN, 2 * HS_MAX_BUDGET_MS};
    hs_workload *w = case_study();
    hs_map_options opt = {.thr = -1};
    hs_schedule *s = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_map(w, "h-ratio", &opt, &s, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "thr must be >= 0 (0: the default), not -1");
    assert_null(s);
    assert_int_equal(hs_map(w, "d-rank", &opt, &s, NULL, &err), HS_EINPUT);
    opt = (hs_map_options){.split_threshold_us = -5};
    assert_int_equal(hs_map(w, "ad-part", &opt, &s, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "split_threshold_us must be a finite number >= 0 (0: the "
                                 "default), not -5");
    opt.split_threshold_us = NAN;
    assert_int_equal(hs_map(w, "ad-part", &opt, &s, NULL, &err), HS_EINPUT);
    assert_null(s);
    for (int i = 0; i < 3; i++) {
        opt = (hs_map_options){.budget_ms = budgets[i]};
        assert_int_equal(hs_map(w, "best", &opt, &s, NULL, &err), HS_EINPUT);
        assert_null(s);
    }
    assert_string_equal(err.msg, "budget_ms must be a number of ms from 0 (the default, 100) "
                                 "to 3.6e+06, not 7.2e+06");
    hs_workload_free(w);
}

/* One device: nothing to choose, nothing to split; every policy runs the
 * tasks back to back. */
static void one_device(void **state)
{
    static const dev_spec one[] = {{"cpu0", HS_DEVICE_CPU, "host"}};
    static const kern_spec ks[] = {{"a", {5}, 0, 0}, {"b", {7}, 0, 0}, {"c", {11}, 0, 0}};
    static const edge_spec es[] = {{"a", "c", 100}};
    static const char *const algos[] = {"h-ratio", "d-rank", "ad-part", "heft", "peft"};
    hs_workload *w = build(one, 1, 1.0, 0.0, ks, 3, es, 1);
    (void)state;
    for (int i = 0; i < 5; i++)
        assert_float_equal(makespan(w, algos[i], 0), 23, EPS);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(priorities),
        cmocka_unit_test(mean_transfer_sums),
        cmocka_unit_test(optimistic_cost_table),
        cmocka_unit_test(slots_by_hand),
        cmocka_unit_test(slots_match_a_scan),
        cmocka_unit_test(h_ratio_threshold),
        cmocka_unit_test(h_ratio_tie_to_lower_index),
        cmocka_unit_test(d_rank_vs_h_ratio),
        cmocka_unit_test(heft_topcuoglu),
        cmocka_unit_test(heft_inserts),
        cmocka_unit_test(peft_looks_ahead),
        cmocka_unit_test(weighted_ranks_and_oft),
        cmocka_unit_test(crossing_policies),
        cmocka_unit_test(cpop_topcuoglu),
        cmocka_unit_test(heteroprio_spoliates),
        cmocka_unit_test(heteroprio_queues),
        cmocka_unit_test(case_study_makespans),
        cmocka_unit_test(ad_part_case_study),
        cmocka_unit_test(ad_part_refuses_costly_split),
        cmocka_unit_test(ad_part_split_by_largest_edge),
        cmocka_unit_test(ad_part_splits_only_cuttable_types),
        cmocka_unit_test(ad_part_model_parts),
        cmocka_unit_test(ad_part_model_parts_overhead),
        cmocka_unit_test(ad_part_model_floor),
        cmocka_unit_test(random_invariants),
        cmocka_unit_test(dispatcher_matches_full_scan),
        cmocka_unit_test(plan_keeps_zero_cost_chain),
        cmocka_unit_test(retime_matches_engine),
        cmocka_unit_test(local_search_moves),
        cmocka_unit_test(best_never_worse),
        cmocka_unit_test(best_topcuoglu),
        cmocka_unit_test(given_case_study_optimum),
        cmocka_unit_test(given_keeps_order),
        cmocka_unit_test(given_refusals),
        cmocka_unit_test(bad_options),
        cmocka_unit_test(one_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
