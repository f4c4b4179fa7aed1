/* Tests of exec/ (the engine and the sim backend) and of the simple
 * policies: exact makespans on hand-checked cases, the delay model, the
 * engine's predictions and data residency, determinism, the transform hook,
 * and the engine's refusal of policy bugs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "exec/engine.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"

#define EPS 1e-6

/* ---------------------------------------------------------------- helpers */

/* cpu0 (host, 4 cores) + gpu0, links 1 GB/s and 10 us both ways, and an
 * application "p" (its index). */
static int cpu_gpu_app(hs_workload *w)
{
    hs_error err = {0};
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 1.0, 10.0, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 1.0, 10.0, &err), 1);
    return hs_workload_add_app(w, "p", 1, &err);
}

/* The 3-kernel workload "tri": cpu0 (host) and gpu0 (memory gpu0), linked
 * both ways at 1 GB/s with 10 us latency, so moving B bytes takes
 * T(B) = 10 + B / 1000 us.  One application `p`:
 *     a: cpu 100, gpu 50, input 20000 B  (T = 30)
 *     b: cpu 200, gpu 20, output 10000 B (T = 20)
 *     c: cpu 60,  gpu 90, output 10000 B (T = 20)
 *     a -> b: 40000 B (T = 50),  a -> c: 30000 B (T = 40)
 * Tasks: 0 = p#0/a, 1 = p#0/b, 2 = p#0/c.  cpu0 and gpu0 spend `ocpu` and
 * `ogpu` us on each task besides its kernel (hs_device.overhead_us). */
static hs_workload *tri_overheads(double ocpu, double ogpu)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a;
    assert_non_null(w);
    a = cpu_gpu_app(w);
    assert_int_equal(a, 0);
    assert_int_equal(hs_app_add_kernel(w, a, "a", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "b", &err), 1);
    assert_int_equal(hs_app_add_kernel(w, a, "c", &err), 2);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 100, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 50, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 200, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "gpu", 20, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 2, "cpu", 60, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 2, "gpu", 90, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, 0, 20000, 0, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, 1, 0, 10000, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, 2, 0, 10000, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "a", "b", 40000, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "a", "c", 30000, &err), 1);
    assert_int_equal(hs_platform_set_overhead(w, 0, ocpu, &err), 0);
    assert_int_equal(hs_platform_set_overhead(w, 1, ogpu, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

static hs_workload *tri(void)
{
    return tri_overheads(0, 0);
}

static hs_workload *case_study(void)
{
    char path[4096];
    const char *root = getenv("HS_SOURCE_ROOT");
    hs_workload *w = NULL;
    hs_error err = {0};
    snprintf(path, sizeof path, "%s/workloads/case-study.yaml", root ? root : ".");
    if (hs_workload_load_file(path, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

/* Maps w with `policy` and checks the schedule against the validator. */
static hs_schedule *map(hs_workload *w, const char *policy, unsigned long seed)
{
    hs_map_options opt = {.seed = seed};
    hs_schedule *s = NULL;
    hs_error err = {0};
    if (hs_map(w, policy, &opt, &s, NULL, &err) != HS_OK)
        fail_msg("%s: %s", policy, err.msg);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s: %s", policy, err.msg);
    assert_string_equal(s->algorithm, policy);
    assert_float_equal(s->makespan_us, hs_schedule_makespan(w, s), EPS);
    return s;
}

/* The placement of whole task t (there must be exactly one). */
static const hs_placement *placed(const hs_schedule *s, size_t t)
{
    const hs_placement *found = NULL;
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task == t) {
            assert_null(found);
            found = &s->placements[i];
        }
    assert_non_null(found);
    return found;
}

static void expect_at(const hs_schedule *s, size_t t, int device, double start, double end)
{
    const hs_placement *p = placed(s, t);
    assert_int_equal(p->device, device);
    assert_float_equal(p->start_us, start, EPS);
    assert_float_equal(p->end_us, end, EPS);
}

/* ------------------------------------------------------- tri, exact cases */

static void tri_eager(void **state)
{
    hs_workload *w = tri();
    hs_schedule *s = map(w, "eager", 0);
    (void)state;
    /* t=0: FIFO [a]; cpu0 (asked first) takes a: host input is local, 0-100.
     * t=100: FIFO [b, c] (successors in edge order); cpu0 takes b: 100-300,
     * output already on host; gpu0 takes c, whose input from a leaves cpu0 at
     * 100 and lands at 100 + T(30000) = 140: 140-230, output home at 250.
     * Makespan max(300, 250) = 300. */
    expect_at(s, 0, 0, 0, 100);
    expect_at(s, 1, 0, 100, 300);
    expect_at(s, 2, 1, 140, 230);
    assert_float_equal(s->makespan_us, 300, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The same with an overhead of 5 us per task on cpu0 and 3 on gpu0: every
 * task's cost includes its device's overhead, in every view. */
static void tri_eager_overheads(void **state)
{
    hs_workload *w = tri_overheads(5, 3);
    const hs_platform *p = &w->platform;
    const hs_task *a = &w->graph.tasks[0];
    hs_schedule *s = map(w, "eager", 0);
    hs_error err = {0};
    (void)state;
    assert_float_equal(a->cost_us[0], 105, 0);
    assert_float_equal(a->cost_us[1], 53, 0);
    assert_float_equal(hs_task_kernel_us(p, a, 0), 100, 0);
    /* a quarter of a's items: a quarter of its kernel, the whole overhead */
    assert_float_equal(hs_task_part_us(p, a, 0, 0.25), 30, EPS);
    assert_float_equal(hs_task_part_us(p, a, 1, 1.0), 53, 0);
    /* a 0-105 on cpu0; b 105-310 on cpu0; c on gpu0 once a's data land at
     * 105 + T(30000) = 145: 145-238, output home at 258.  Makespan 310. */
    expect_at(s, 0, 0, 0, 105);
    expect_at(s, 1, 0, 105, 310);
    expect_at(s, 2, 1, 145, 238);
    assert_float_equal(s->makespan_us, 310, EPS);
    assert_int_equal(hs_platform_set_overhead(w, 1, -1, &err), HS_EINPUT);
    assert_string_equal(err.msg, "platform.devices[1].overhead_us: must be a number from 0 to "
                                 "1e+12 us, not -1");
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void tri_cpu_only(void **state)
{
    hs_workload *w = tri();
    hs_schedule *s = map(w, "cpu-only", 0);
    (void)state;
    /* Everything on cpu0, shortest first once ready: a 0-100, then c (60)
     * before b (200): c 100-160, b 160-360.  Makespan = sum of CPU costs. */
    expect_at(s, 0, 0, 0, 100);
    expect_at(s, 2, 0, 100, 160);
    expect_at(s, 1, 0, 160, 360);
    assert_float_equal(s->makespan_us, 360, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void tri_app_level(void **state)
{
    hs_workload *w = tri();
    hs_schedule *s = map(w, "app-level", 0);
    (void)state;
    /* The one instance, predicted whole: on cpu0 a 0-100, b 100-300, c 300-360
     * -> 360; on gpu0 a waits for its input (T(20000) = 30): 30-80, b 80-100
     * (output home at 120), c 100-190 (home at 210) -> 210.  gpu0 wins and
     * runs exactly that: makespan 210. */
    expect_at(s, 0, 1, 30, 80);
    expect_at(s, 1, 1, 80, 100);
    expect_at(s, 2, 1, 100, 190);
    assert_float_equal(s->makespan_us, 210, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void tri_dmda(void **state)
{
    const char *policies[] = {"dmda", "dmdar"};
    (void)state;
    for (int i = 0; i < 2; i++) {
        hs_workload *w = tri();
        hs_schedule *s = map(w, policies[i], 0);
        /* a: expected completion on cpu0 0 + 100 = 100, on gpu0 30 + 50 = 80:
         * gpu0, 30-80.  At 80, b then c become ready.  b: cpu0 80 + T(40000)
         * = 130, + 200 = 330; gpu0 80 + 20 = 100: gpu0 (queued, gpu0 now
         * available at 100).  c: cpu0 max(80, 80 + T(30000) = 120) + 60 =
         * 180; gpu0 100 + 90 = 190: cpu0.  So c runs 120-180 on cpu0 (it
         * waits for its input), b 80-100 on gpu0 with its output home at
         * 120.  Makespan 180.  (dmdar: one task per queue, same schedule.) */
        expect_at(s, 0, 1, 30, 80);
        expect_at(s, 1, 1, 80, 100);
        expect_at(s, 2, 0, 120, 180);
        assert_float_equal(s->makespan_us, 180, EPS);
        hs_schedule_free(s);
        hs_workload_free(w);
    }
}

/* ------------------------------------------------- case study, exact cases */

/* workloads/case-study.yaml: tasks 0 va/add (cpu 568, gpu 422, input 400000 B),
 * 1 va/scale (1520, 242, output 200000 B), 2 xgemm/ab (44100, 5600, input
 * 8192 B), 3 xgemm/cd (874, 844, input 8388608 B), 4 xgemm/add (440, 420,
 * output 4194304 B); edges add->scale 200000 B, ab->add and cd->add 4194304 B
 * each.  Link host<->gpu0 12 GB/s, 10 us: T(B) = 10 + B / 12000, so
 * T(8192) = 10.682667, T(200000) = 26.666667, T(400000) = 43.333333,
 * T(4194304) = 359.525333. */
#define T_AB_IN (10 + 8192.0 / 12000)
#define T_VA_IN (10 + 400000.0 / 12000)
#define T_MAT (10 + 4194304.0 / 12000)

static void case_study_eager(void **state)
{
    hs_workload *w = case_study();
    hs_schedule *s = map(w, "eager", 0);
    (void)state;
    /* FIFO [va/add, ab, cd].  cpu0 takes va/add 0-568; gpu0 takes ab, which
     * waits for its input: T_AB_IN - 5610.682667.  568: scale joins, FIFO
     * [cd, scale]: cpu0 runs cd 568-1442, then scale 1442-2962.  ab ends at
     * 5610.682667; xgemm/add is ready and cpu0, idle and asked first, takes
     * it: ab's product arrives at 5610.682667 + 359.525333 = 5970.208, so
     * 5970.208-6410.208, output already home.  Makespan 6410.208. */
    expect_at(s, 0, 0, 0, 568);
    expect_at(s, 2, 1, T_AB_IN, T_AB_IN + 5600);
    expect_at(s, 3, 0, 568, 1442);
    expect_at(s, 1, 0, 1442, 2962);
    expect_at(s, 4, 0, T_AB_IN + 5600 + T_MAT, T_AB_IN + 5600 + T_MAT + 440);
    assert_float_equal(s->makespan_us, 6410.208, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void case_study_cpu_only(void **state)
{
    hs_workload *w = case_study();
    hs_schedule *s = map(w, "cpu-only", 0);
    (void)state;
    /* Shortest first among the ready: va/add 0-568 (scale becomes ready),
     * cd 568-1442, scale 1442-2962, ab 2962-47062, xgemm/add 47062-47502.
     * Makespan = the sum of the CPU costs, 47502. */
    expect_at(s, 0, 0, 0, 568);
    expect_at(s, 3, 0, 568, 1442);
    expect_at(s, 1, 0, 1442, 2962);
    expect_at(s, 2, 0, 2962, 47062);
    expect_at(s, 4, 0, 47062, 47502);
    assert_float_equal(s->makespan_us, 47502, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void case_study_app_level(void **state)
{
    hs_workload *w = case_study();
    hs_schedule *s = map(w, "app-level", 0);
    (void)state;
    /* va first: cpu0 568 + 1520 = 2088; gpu0 T_VA_IN + 422 + 242 = 707.333
     * plus the output home (T(200000) = 26.667) = 734: gpu0, which is then
     * booked until 707.333.  xgemm: cpu0 44100 + 874 + 440 = 45414; gpu0
     * 707.333 + 5600 + 844 + 420 = 7571.333 plus the product home
     * (359.525) = 7930.859: gpu0.  The run: va/add 43.333-465.333, ab
     * 465.333-6065.333, cd 6065.333-6909.333, scale (queued behind them)
     * 6909.333-7151.333, xgemm/add 7151.333-7571.333; makespan 7930.859. */
    expect_at(s, 0, 1, T_VA_IN, T_VA_IN + 422);
    expect_at(s, 2, 1, T_VA_IN + 422, T_VA_IN + 6022);
    expect_at(s, 3, 1, T_VA_IN + 6022, T_VA_IN + 6866);
    expect_at(s, 1, 1, T_VA_IN + 6866, T_VA_IN + 7108);
    expect_at(s, 4, 1, T_VA_IN + 7108, T_VA_IN + 7528);
    assert_float_equal(s->makespan_us, T_VA_IN + 7528 + T_MAT, EPS);
    assert_float_equal(s->makespan_us, 7930.858667, 1e-5);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void case_study_dmda(void **state)
{
    hs_workload *w = case_study();
    hs_schedule *s = map(w, "dmda", 0);
    (void)state;
    /* t=0, in index order.  va/add: cpu0 568, gpu0 43.333 + 422 = 465.333:
     * gpu0.  ab: cpu0 44100, gpu0 465.333 + 5600 = 6065.333: gpu0.  cd: cpu0
     * 874, gpu0 6065.333 + 844: cpu0.  cpu0 runs cd 0-874, gpu0 va/add
     * 43.333-465.333.  465.333: scale: cpu0 max(874, 465.333 + 26.667) +
     * 1520 = 2394; gpu0 6065.333 + 242: cpu0; gpu0 starts ab 465.333-
     * 6065.333; cpu0 runs scale 874-2394.  6065.333: xgemm/add: cpu0
     * 6065.333 + 359.525 + 440 = 6864.859; gpu0 6065.333 + 420 = 6485.333:
     * gpu0, 6065.333-6485.333, product home at 6844.859 = the makespan. */
    expect_at(s, 0, 1, T_VA_IN, T_VA_IN + 422);
    expect_at(s, 3, 0, 0, 874);
    expect_at(s, 2, 1, T_VA_IN + 422, T_VA_IN + 6022);
    expect_at(s, 1, 0, 874, 2394);
    expect_at(s, 4, 1, T_VA_IN + 6022, T_VA_IN + 6442);
    assert_float_equal(s->makespan_us, T_VA_IN + 6442 + T_MAT, EPS);
    assert_float_equal(s->makespan_us, 6844.858667, 1e-5);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ----------------------------------------------------- a pinning policy */

/* Test policy "pinned": task t runs on device pin[t]; each device runs its
 * ready tasks lowest index first.  It records what the engine predicts and
 * where data is, at chosen moments (see `probe`). */
typedef struct pinned {
    const int *pin;
    int *ready;           /* [ntasks] */
    size_t ntasks;
    void (*probe)(struct pinned *p, hs_engine *e, const char *hook, size_t t);
    double rec[16];
    int nrec;
} pinned;

static pinned *the_pinned;

static int pinned_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)opt;
    (void)err;
    the_pinned->ntasks = hs_engine_graph(e)->ntasks;
    the_pinned->ready = calloc(the_pinned->ntasks, sizeof(int));
    assert_non_null(the_pinned->ready);
    *state = the_pinned;
    return HS_OK;
}

static void pinned_ready(void *state, hs_engine *e, size_t t)
{
    pinned *p = state;
    p->ready[t] = 1;
    if (p->probe) /* before t is queued, so that t's own booking does not count */
        p->probe(p, e, "ready", t);
    hs_engine_assign(e, t, p->pin[t]);
}

static long pinned_pick(void *state, hs_engine *e, int device)
{
    pinned *p = state;
    (void)e;
    for (size_t t = 0; t < p->ntasks; t++)
        if (p->ready[t] && p->pin[t] == device) {
            p->ready[t] = 0;
            return (long)t;
        }
    return HS_NO_TASK;
}

static void pinned_done(void *state, hs_engine *e, size_t t, int device, double us)
{
    pinned *p = state;
    assert_int_equal(hs_engine_task_device(e, t), device);
    assert_float_equal(us, hs_engine_cost(e, t, device), EPS);
    if (p->probe)
        p->probe(p, e, "done", t);
}

static void pinned_fini(void *state)
{
    pinned *p = state;
    free(p->ready);
    p->ready = NULL;
}

static const hs_policy pinned_policy = {
    .name = "pinned",
    .description = "test: fixed devices",
    .init = pinned_init,
    .ready = pinned_ready,
    .pick = pinned_pick,
    .done = pinned_done,
    .fini = pinned_fini,
};

static hs_schedule *run(hs_workload *w, const hs_policy *pol, hs_map_stats *st)
{
    hs_backend sim = {.ops = &hs_backend_sim};
    hs_schedule *s = NULL;
    hs_error err = {0};
    if (hs_engine_run(w, pol, NULL, &sim, &s, st, &err) != HS_OK)
        fail_msg("%s", err.msg);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return s;
}

/* tri with a, b on gpu0 and c on cpu0 (as dmda places them, but pinned):
 * at b's ready() (t = 80), record the predictions for c; at c's ready(),
 * the same after b was assigned to gpu0; at b's done(), where a's data is. */
static void tri_probe(pinned *p, hs_engine *e, const char *hook, size_t t)
{
    if (strcmp(hook, "ready") == 0 && t == 2) {
        p->rec[p->nrec++] = hs_engine_now(e);
        p->rec[p->nrec++] = hs_engine_device_available(e, 1);
        p->rec[p->nrec++] = hs_engine_data_ready(e, 2, 0);
        p->rec[p->nrec++] = hs_engine_finish_time(e, 2, 0);
        p->rec[p->nrec++] = hs_engine_finish_time(e, 2, 1);
        p->rec[p->nrec++] = hs_engine_inputs_on(e, 2, HS_HOST_MEMORY);
        p->rec[p->nrec++] = hs_engine_inputs_on(e, 2, 1);
    }
    if (strcmp(hook, "done") == 0 && t == 1) {
        p->rec[p->nrec++] = hs_engine_now(e);
        p->rec[p->nrec++] = hs_engine_inputs_on(e, 2, HS_HOST_MEMORY);
        p->rec[p->nrec++] = hs_engine_inputs_on(e, 0, HS_HOST_MEMORY);
        p->rec[p->nrec++] = hs_engine_inputs_on(e, 0, 1);
    }
}

/* At c's ready() in tri (t = 80, a ended on gpu0, b and c both ready): the
 * data-ready times of b and c asked in turn on cpu0 and gpu0, each twice.
 * The engine keeps each ready task's last answer, so this fails if that
 * answer were given back for the other task or the other memory. */
static void ready_probe(pinned *p, hs_engine *e, const char *hook, size_t t)
{
    static const int ask[][2] = {{2, 0}, {1, 1}, {2, 1}, {1, 0}, {2, 0}, {1, 1}, {1, 0}, {2, 1}};
    if (strcmp(hook, "ready") != 0 || t != 2)
        return;
    for (size_t i = 0; i < sizeof ask / sizeof *ask; i++)
        p->rec[p->nrec++] = hs_engine_data_ready(e, (size_t)ask[i][0], ask[i][1]);
}

static void engine_data_ready_per_task_and_memory(void **state)
{
    static const int pin[] = {1, 1, 0};
    /* a's data are on gpu0 from 80: there at once on gpu0, and on cpu0
     * after T(40000) = 50 for b, T(30000) = 40 for c */
    static const double want[] = {120, 80, 80, 130, 120, 80, 130, 80};
    pinned p = {.pin = pin, .probe = ready_probe};
    hs_workload *w = tri();
    (void)state;
    the_pinned = &p;
    hs_schedule_free(run(w, &pinned_policy, NULL));
    assert_int_equal(p.nrec, 8);
    for (int i = 0; i < 8; i++)
        assert_float_equal(p.rec[i], want[i], EPS);
    hs_workload_free(w);
}

static void engine_predictions_and_residency(void **state)
{
    static const int pin[] = {1, 1, 0};
    pinned p = {.pin = pin, .probe = tri_probe};
    hs_workload *w = tri();
    hs_map_stats st = {0};
    hs_schedule *s;
    (void)state;
    the_pinned = &p;
    s = run(w, &pinned_policy, &st);
    /* At c's ready() (t = 80): b is queued on gpu0 (20 us from 80): gpu0
     * available at 100; c's input reaches cpu0 at 80 + T(30000) = 120, so
     * it would finish there at 180, on gpu0 at 100 + 90 = 190 (eq. 11-12).
     * a's output is on gpu0 only: c has 0 inputs on host, 1 on gpu0. */
    assert_int_equal(p.nrec, 11);
    assert_float_equal(p.rec[0], 80, EPS);
    assert_float_equal(p.rec[1], 100, EPS);
    assert_float_equal(p.rec[2], 120, EPS);
    assert_float_equal(p.rec[3], 180, EPS);
    assert_float_equal(p.rec[4], 190, EPS);
    assert_float_equal(p.rec[5], 0, 0);
    assert_float_equal(p.rec[6], 1, 0);
    /* At b's done() (t = 100): c started on cpu0 at 80 (waiting for its
     * input), so a's output now has a copy on host too; a's own host input
     * counts on host only. */
    assert_float_equal(p.rec[7], 100, EPS);
    assert_float_equal(p.rec[8], 1, 0);
    assert_float_equal(p.rec[9], 1, 0);
    assert_float_equal(p.rec[10], 0, 0);
    expect_at(s, 2, 0, 120, 180);
    /* stats: busy = 50 + 20 + 60; events: 3 ready + 3 done + pick calls */
    assert_float_equal(st.busy_us_total, 130, EPS);
    assert_true(st.events >= 6);
    assert_true(st.mapping_seconds >= 0);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The delay model on its own: a on gpu0 waits for its host input (T(20000)
 * = 30) although gpu0 is idle from 0; b on cpu0 waits for a's data: a ends at
 * 80, + T(40000) = 130, although cpu0 is idle; c on gpu0 follows a at once. */
static void delay_model(void **state)
{
    static const int pin[] = {1, 0, 1};
    pinned p = {.pin = pin};
    hs_workload *w = tri();
    hs_schedule *s;
    hs_error err = {0};
    /* (from, to placement, from, to device, bytes, start, end: all exact) */
    static const hs_transfer want[] = {{HS_NONE, 0, HS_HOST_DEVICE, 1, 20000, 0, 30},
                                       {0, 2, 1, 0, 40000, 80, 130},
                                       {1, HS_NONE, 1, HS_HOST_DEVICE, 10000, 170, 190}};
    (void)state;
    the_pinned = &p;
    s = run(w, &pinned_policy, NULL);
    expect_at(s, 0, 1, 30, 80);
    expect_at(s, 1, 0, 130, 330);
    expect_at(s, 2, 1, 80, 170);
    /* c's output home at 190; b's is on host at 330. */
    assert_float_equal(s->makespan_us, 330, EPS);
    /* transfers left implied, and listed by derive placement by placement
     * (a, c, b in the order they were placed): a's input, a->b, c's output
     * (a->c and b's output stay in one memory) */
    assert_true(s->transfers_implied);
    assert_int_equal(s->ntransfers, 0);
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
    assert_int_equal(s->ntransfers, 3);
    assert_memory_equal(s->transfers, want, sizeof want);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ----------------------------------------------------- the transform hook */

/* Splits task 0 of tri (a) into halves: a[0/2] and a[1/2], each with half
 * the cost, half the input, and half of each outgoing edge's bytes. */
static int split_a(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                   hs_error *err)
{
    const hs_graph *g = &w->graph;
    int rc;
    (void)opt;
    if ((rc = hs_graph_init(out, 4, 4, g->ndevices, err)) != 0)
        return rc;
    /* tasks: 0 = a[0/2], 1 = a[1/2], 2 = b, 3 = c */
    for (size_t t = 0; t < 4; t++) {
        size_t o = t < 2 ? 0 : t - 1;
        hs_task *nt = &out->tasks[t];
        double f = t < 2 ? 0.5 : 1.0;
        double *cost = nt->cost_us;
        *nt = g->tasks[o];
        nt->cost_us = cost;
        nt->origin = o;
        nt->fraction = f;
        nt->part = t < 2 ? (int)t : 0;
        nt->nparts = t < 2 ? 2 : 1;
        nt->input_bytes = g->tasks[o].input_bytes * f;
        nt->output_bytes = g->tasks[o].output_bytes * f;
        for (int d = 0; d < g->ndevices; d++)
            cost[d] = g->tasks[o].cost_us[d] * f;
    }
    for (size_t k = 0; k < 2; k++) {
        out->edges[out->nedges++] = (hs_edge){.from = k, .to = 2, .bytes = 40000 * 0.5};
        out->edges[out->nedges++] = (hs_edge){.from = k, .to = 3, .bytes = 30000 * 0.5};
    }
    return 1;
}

static void transform_hook(void **state)
{
    /* a[0/2] on cpu0, a[1/2] on gpu0, b on gpu0, c on cpu0 */
    static const int pin[] = {0, 1, 1, 0};
    pinned p = {.pin = pin};
    hs_policy pol = pinned_policy;
    hs_workload *w = tri();
    hs_schedule *s;
    int parts = 0;
    (void)state;
    pol.transform = split_a;
    the_pinned = &p;
    s = run(w, &pol, NULL);
    /* a[0/2] on cpu0: 0-50.  a[1/2] on gpu0 waits for its half input
     * (T(10000) = 20): 20-45.  b on gpu0 waits for a[0/2]'s half (50 +
     * T(20000) = 80): 80-100, output home at 120.  c on cpu0 waits for
     * a[1/2]'s half (45 + T(15000) = 70): 70-130.  Makespan 130. */
    assert_int_equal(s->nplacements, 4);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *pl = &s->placements[i];
        if (pl->task != 0)
            continue;
        parts++;
        assert_int_equal(pl->nparts, 2);
        assert_float_equal(pl->fraction, 0.5, 0);
        assert_int_equal(pl->device, pl->part);
        assert_float_equal(pl->start_us, pl->part ? 20 : 0, EPS);
        assert_float_equal(pl->end_us, pl->part ? 45 : 50, EPS);
    }
    assert_int_equal(parts, 2);
    expect_at(s, 1, 1, 80, 100);
    expect_at(s, 2, 0, 70, 130);
    assert_float_equal(s->makespan_us, 130, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* A transform whose parts do not add up is refused, naming the policy. */
static int bad_split(const hs_workload *w, const hs_map_options *opt, hs_graph *out,
                     hs_error *err)
{
    int rc = split_a(w, opt, out, err);
    out->tasks[1].fraction = 0.25;
    return rc;
}

static void transform_refused(void **state)
{
    static const int pin[] = {0, 1, 1, 0};
    pinned p = {.pin = pin};
    hs_policy pol = pinned_policy;
    hs_backend sim = {.ops = &hs_backend_sim};
    hs_schedule *s = NULL;
    hs_error err = {0};
    hs_workload *w = tri();
    (void)state;
    pol.transform = bad_split;
    the_pinned = &p;
    assert_int_equal(hs_engine_run(w, &pol, NULL, &sim, &s, NULL, &err), HS_EINTERNAL);
    assert_null(s);
    assert_string_equal(err.msg, "policy 'pinned': the parts of task 0 have fractions summing "
                                 "to 0.75, not 1");
    hs_workload_free(w);
}

/* Two kernels a -> b (6000 B) on cpu0 + gpu0 (T(B) = 10 + B / 1000 us),
 * each costing 300 us on cpu0 and 150 on gpu0, no host input or output:
 * ad-part (threshold 1 us) splits both by speed into part 0 with 1/3 (100
 * us on cpu0, 50 on gpu0) and part 1 with 2/3 (200, 100), and leaves the
 * edges between the parts implied (hetsched/graph.h): a[i] -> b[j] carries
 * 6000 x f_i x f_j = 666.67, 1333.33, 1333.33, 2666.67 B. */
static hs_workload *split_pair(void)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a;
    assert_non_null(w);
    a = cpu_gpu_app(w);
    assert_int_equal(hs_app_add_kernel(w, a, "a", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "b", &err), 1);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 300, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 150, &err), 0);
    }
    assert_int_equal(hs_app_add_edge(w, a, "a", "b", 6000, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* At b's parts' ready() (both a's parts ended at 100): their data-ready
 * times on cpu0 and gpu0, and how many inputs each memory holds. */
static void split_probe(pinned *p, hs_engine *e, const char *hook, size_t t)
{
    if (strcmp(hook, "ready") != 0 || t != 3)
        return;
    for (size_t b = 2; b < 4; b++)
        for (int d = 0; d < 2; d++)
            p->rec[p->nrec++] = hs_engine_data_ready(e, b, d);
    p->rec[p->nrec++] = hs_engine_inputs_on(e, 2, HS_HOST_MEMORY);
    p->rec[p->nrec++] = hs_engine_inputs_on(e, 3, 1);
}

/* The sim backend but for taking implied edges: the engine lists them. */
static int listed_sim_init(hs_backend *b, const hs_workload *w, const hs_graph *g,
                           hs_error *err)
{
    assert_null(g->whole);
    assert_int_equal(g->nedges, 4);
    return hs_backend_sim.init(b, w, g, err);
}

static void implied_part_edges(void **state)
{
    /* a[0] (task 0) and b[0] (2) on cpu0, a[1] (1) and b[1] (3) on gpu0 */
    static const int pin[] = {0, 1, 0, 1};
    /* b[0] on cpu0: a[1]'s 1333.33 B from gpu0, 100 + 11.333; on gpu0:
     * a[0]'s 666.67 B from host, 100 + 10.667.  b[1] on cpu0: a[1]'s
     * 2666.67 B, 100 + 12.667; on gpu0: a[0]'s 1333.33 B, 100 + 11.333. */
    static const double want[] = {111.333333, 110.666667, 112.666667, 111.333333, 1, 1};
    hs_backend_ops listed_ops = hs_backend_sim;
    hs_map_options opt = {.split_threshold_us = 1};
    hs_workload *w = split_pair();
    (void)state;
    listed_ops.implied_edges = 0;
    listed_ops.init = listed_sim_init;
    for (int listed = 0; listed < 2; listed++) {
        hs_backend sim = {.ops = listed ? &listed_ops : &hs_backend_sim};
        hs_policy pol = pinned_policy;
        pinned p = {.pin = pin, .probe = split_probe};
        hs_schedule *s = NULL;
        hs_error err = {0};
        pol.transform = hs_policy_find("ad-part")->transform;
        the_pinned = &p;
        if (hs_engine_run(w, &pol, &opt, &sim, &s, NULL, &err) != HS_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(p.nrec, 6);
        for (int i = 0; i < 6; i++)
            assert_float_equal(p.rec[i], want[i], 1e-6);
        /* a's parts 0-100; b's start when their inputs are there, at
         * 111.333 each, which the validator checks against the transfers
         * the schedule lists */
        assert_int_equal(s->nplacements, 4);
        for (size_t i = 0; i < 4; i++) {
            const hs_placement *pl = &s->placements[i];
            assert_int_equal(pl->device, pl->part);
            assert_float_equal(pl->start_us, pl->task == 0 ? 0 : 111.333333, 1e-6);
        }
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("%s", err.msg);
        hs_schedule_free(s);
    }
    hs_workload_free(w);
}

/* ---------------------------------------------------------- determinism */

static int same_schedule(const hs_schedule *a, const hs_schedule *b)
{
    if (a->nplacements != b->nplacements || a->makespan_us != b->makespan_us)
        return 0;
    for (size_t i = 0; i < a->nplacements; i++)
        if (memcmp(&a->placements[i], &b->placements[i], sizeof a->placements[i]) != 0)
            return 0;
    return 1;
}

/* Case study x 6 instances each, so that there are choices to make. */
static hs_workload *busy_case_study(void)
{
    hs_workload *w = case_study();
    hs_workload *big = hs_workload_new();
    hs_error err = {0};
    /* rebuild with more instances through the builder: copy the platform
     * and the applications */
    for (int d = 0; d < w->platform.ndevices; d++)
        assert_true(hs_platform_add_device(big, w->platform.devices[d].name,
                                           w->platform.devices[d].kind,
                                           w->platform.memories[w->platform.devices[d].memory],
                                           w->platform.devices[d].cores, &err) >= 0);
    for (int q = 0; q < w->platform.nmemories; q++)
        for (int r = 0; r < w->platform.nmemories; r++) {
            const hs_link *l = &w->platform.links[q * w->platform.nmemories + r];
            if (l->present)
                assert_true(hs_platform_add_link(big, w->platform.memories[q],
                                                 w->platform.memories[r], l->bandwidth_gbps,
                                                 l->latency_us, &err) >= 0);
        }
    for (int a = 0; a < w->napps; a++) {
        const hs_app *app = &w->apps[a];
        int na = hs_workload_add_app(big, app->name, 6, &err);
        assert_true(na >= 0);
        for (int k = 0; k < app->nkernels; k++) {
            const hs_kernel *kn = &app->kernels[k];
            assert_int_equal(hs_app_add_kernel(big, na, kn->name, &err), k);
            for (int c = 0; c < kn->ncosts; c++)
                assert_int_equal(hs_kernel_set_cost(big, na, k, kn->costs[c].key,
                                                    kn->costs[c].us, &err), 0);
            assert_int_equal(hs_kernel_set_bytes(big, na, k, kn->input_bytes, kn->output_bytes,
                                                 &err), 0);
        }
        for (int e = 0; e < app->nedges; e++)
            assert_true(hs_app_add_edge(big, na, app->kernels[app->edges[e].from].name,
                                        app->kernels[app->edges[e].to].name,
                                        app->edges[e].bytes, &err) >= 0);
    }
    assert_int_equal(hs_workload_finalize(big, &err), 0);
    hs_workload_free(w);
    return big;
}

static void determinism(void **state)
{
    hs_workload *w = busy_case_study();
    const hs_policy *const *p = hs_policy_list();
    int differs = 0;
    (void)state;
    for (size_t i = 0; p[i]; i++) {
        hs_schedule *a = map(w, hs_policy_name(p[i]), 7);
        hs_schedule *b = map(w, hs_policy_name(p[i]), 7);
        if (!same_schedule(a, b))
            fail_msg("policy %s: two runs with seed 7 differ", hs_policy_name(p[i]));
        hs_schedule_free(a);
        hs_schedule_free(b);
    }
    /* random: another seed gives another mapping (checked on a few seeds, so
     * that the seed is known to matter) */
    {
        hs_schedule *a = map(w, "random", 1);
        for (unsigned long seed = 2; seed < 6; seed++) {
            hs_schedule *b = map(w, "random", seed);
            differs |= !same_schedule(a, b);
            hs_schedule_free(b);
        }
        hs_schedule_free(a);
    }
    assert_true(differs);
    hs_workload_free(w);
}

/* ---------------------------------------------------------- refusals */

static long never_pick(void *state, hs_engine *e, int device)
{
    (void)state;
    (void)e;
    (void)device;
    return HS_NO_TASK;
}

static long pick_task_2(void *state, hs_engine *e, int device)
{
    (void)state;
    (void)e;
    (void)device;
    return 2; /* never ready at first: its predecessor a has not run */
}

static void ignore_ready(void *state, hs_engine *e, size_t t)
{
    (void)state;
    (void)e;
    (void)t;
}

static void policy_bugs(void **state)
{
    hs_policy idle = {.name = "idle", .ready = ignore_ready, .pick = never_pick};
    hs_policy eager2 = {.name = "wrong", .ready = ignore_ready, .pick = pick_task_2};
    hs_backend sim = {.ops = &hs_backend_sim};
    hs_schedule *s = NULL;
    hs_error err = {0};
    hs_workload *w = tri();
    (void)state;
    assert_int_equal(hs_engine_run(w, &idle, NULL, &sim, &s, NULL, &err), HS_EINTERNAL);
    assert_string_equal(err.msg, "policy 'idle' left 3 of 3 tasks unscheduled: every device is "
                                 "idle and none was given a task");
    assert_null(s);
    assert_int_equal(hs_engine_run(w, &eager2, NULL, &sim, &s, NULL, &err), HS_EINTERNAL);
    assert_string_equal(err.msg, "policy 'wrong' gave task 2 to device 'cpu0', but that task is "
                                 "not ready or was given before");
    assert_null(s);
    assert_int_equal(hs_map(w, "nope", NULL, &s, NULL, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "unknown policy 'nope' (see hetsched map -a help)");
    assert_null(s);
    hs_workload_free(w);
}

/* cpu-only on a platform without a CPU is bad input, not a crash. */
static void cpu_only_needs_a_cpu(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s = NULL;
    hs_error err = {0};
    int a;
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 0);
    a = hs_workload_add_app(w, "p", 1, &err);
    assert_int_equal(hs_app_add_kernel(w, a, "k", &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 5, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    assert_int_equal(hs_map(w, "cpu-only", NULL, &s, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "policy cpu-only needs a CPU device; the platform has none");
    assert_null(s);
    hs_workload_free(w);
}

/* cpu0 + gpu0 (cpu_gpu_app); two independent tasks a, b: cpu 10000, gpu
 * gpu_us[k], in[k] B in from host and `out` B out to host each; typed
 * (va) or cost-only. */
static hs_workload *two_tasks_of(int typed, const double *gpu_us, const double *in, double out)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a = cpu_gpu_app(w);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(hs_app_add_kernel(w, a, k ? "b" : "a", &err), k);
        if (typed)
            assert_int_equal(hs_kernel_set_type(w, a, k, "va", &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 10000, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", gpu_us[k], &err), 0);
        assert_int_equal(hs_kernel_set_bytes(w, a, k, in[k], out, &err), 0);
    }
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

/* Both 100 us on gpu0 and 100000 B in. */
static hs_workload *two_tasks(int typed, double out)
{
    return two_tasks_of(typed, (const double[]){100, 100}, (const double[]){100000, 100000}, out);
}

/* The executor's model by hand.  cpu0 + gpu0, links 1 GB/s and 10 us both
 * ways (T(100000 B) = 110 us); two independent tasks a, b: cpu 10000,
 * gpu 100, 100000 B in from host and out to host each.  HEFT puts both on
 * gpu0, a first.
 *   delay model (a device takes a task when idle): a's input arrives at
 *     110, a runs 110..210; b's arrived at 110 too, b runs 210..310;
 *     outputs back at 320 and 420: makespan 420.
 *   executor's model, gpu0 holding 2: both start at 0, their inputs queue
 *     on host -> gpu0 (0..110, 110..220); a runs 110..210, b 220..320; the
 *     outputs queue on gpu0 -> host (210..320, 320..430): makespan 430,
 *     and those four copies are the schedule's transfers; gpu0 held a from
 *     0 to 110 and b from 0 to 220, idle while holding them 0..110 and
 *     210..220: 120 us (the delay model holds nothing). */
static void executor_model(void **state)
{
    hs_workload *w = two_tasks(0, 100000);
    hs_error err = {0};
    hs_schedule *s;
    const int depth[] = {2, 2};
    hs_map_options opt = {.executor_depth = depth};
    static const double copies[][2] = {{0, 110}, {110, 220}, {210, 320}, {320, 430}};
    hs_device_stats st[2];
    (void)state;
    assert_int_equal(hs_map(w, "heft", NULL, &s, NULL, &err), 0);
    expect_at(s, 0, 1, 110, 210);
    expect_at(s, 1, 1, 210, 310);
    assert_true(fabs(s->makespan_us - 420) < EPS);
    hs_schedule_free(s);
    assert_int_equal(hs_map(w, "heft", &opt, &s, NULL, &err), 0);
    expect_at(s, 0, 1, 110, 210);
    expect_at(s, 1, 1, 220, 320);
    assert_true(fabs(s->makespan_us - 430) < EPS);
    assert_string_equal(s->model, "executor");
    assert_int_equal(s->ntransfers, 4);
    for (size_t k = 0; k < 4; k++) {
        const hs_transfer *t = &s->transfers[k];
        assert_true(fabs(t->start_us - copies[k][0]) < EPS && fabs(t->end_us - copies[k][1]) < EPS);
        assert_true(t->bytes == 100000);
        assert_int_equal(k < 2 ? t->to_device : t->from_device, 1);
        assert_int_equal(k < 2 ? t->from_device : t->to_device, HS_HOST_DEVICE);
        assert_int_equal(s->placements[k < 2 ? t->to_placement : t->from_placement].task, k % 2);
    }
    assert_int_equal(s->nactivities, 2);
    for (size_t k = 0; k < 2; k++) {
        const hs_activity *h = &s->activities[k];
        assert_string_equal(h->what, "held");
        assert_int_equal(h->device, 1);
        assert_int_equal(s->placements[h->placement].task, k);
        assert_float_equal(h->start_us, 0, EPS);
        assert_float_equal(h->end_us, k ? 220 : 110, EPS);
    }
    assert_int_equal(hs_schedule_device_stats(w, s, st, &err), 0);
    assert_float_equal(st[0].held_idle_us, 0, EPS);
    assert_float_equal(st[1].held_idle_us, 120, EPS);
    assert_float_equal(st[1].busy_us, 200, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Prefetching by hand (hs_engine_prefetch, as dmda does on push).
 * cpu0 + gpu0, links 1 GB/s and 10 us (T(100000 B) = 110 us); two
 * independent typed tasks a, b: cpu 10000, gpu 100, 100000 B in from
 * host, nothing out; each device holds one started task.  dmda queues
 * both on gpu0, a first, and prefetches their inputs at once:
 *   executor's model: the copies queue on host -> gpu0 from 0 (0..110,
 *     110..220); a runs 110..210; b, started at 210, finds its input there
 *     at 220 and runs 220..320: makespan 320.  Without the prefetch, b's
 *     copy would start at 210 and b run 320..420.
 *   delay model (which ignores it): a 110..210, b 210..310.
 * The same tasks without a type are not prefetched (a real backend moves
 * a cost-only task's data when it starts): b's copy 210..320, b 320..420. */
static void executor_model_prefetch(void **state)
{
    const int depth[] = {1, 1};
    hs_map_options opt = {.executor_depth = depth};
    static const double copies[][2] = {{0, 110}, {110, 220}};
    (void)state;
    for (int typed = 1; typed >= 0; typed--) {
        hs_workload *w = two_tasks(typed, 0);
        hs_error err = {0};
        hs_schedule *s;
        assert_int_equal(hs_map(w, "dmda", &opt, &s, NULL, &err), 0);
        expect_at(s, 0, 1, 110, 210);
        expect_at(s, 1, 1, typed ? 220 : 320, typed ? 320 : 420);
        assert_float_equal(s->makespan_us, typed ? 320 : 420, EPS);
        assert_int_equal(s->ntransfers, 2);
        for (size_t k = 0; k < 2; k++) {
            const hs_transfer *t = &s->transfers[k];
            assert_float_equal(t->start_us, typed || !k ? copies[k][0] : 210, EPS);
            assert_float_equal(t->end_us, typed || !k ? copies[k][1] : 320, EPS);
            assert_int_equal(s->placements[t->to_placement].task, k);
        }
        /* gpu0 held a 0..110 and b 210..220 (or 210..320) */
        assert_int_equal(s->nactivities, 2);
        assert_float_equal(s->activities[1].start_us, 210, EPS);
        assert_float_equal(s->activities[1].end_us, typed ? 220 : 320, EPS);
        hs_schedule_free(s);
        assert_int_equal(hs_map(w, "dmda", NULL, &s, NULL, &err), 0);
        expect_at(s, 0, 1, 110, 210);
        expect_at(s, 1, 1, 210, 310);
        hs_schedule_free(s);
        hs_workload_free(w);
    }
}

/* A GPU runs a task whose inputs are there ahead of a held one that waits
 * for its copy (engine.c, order_of).  cpu0 + gpu0, links 1 GB/s and 10 us;
 * two independent tasks pinned to gpu0, a first: a reads 1000000 B from
 * host (T = 1010 us) and runs 100 us there, b reads nothing and runs
 * `b_us`; gpu0 holds `depth` started tasks.
 *   holding 2, typed, b_us 200: a waits for its copy (0..1010), b fits
 *     before it: b 0..200, a 1010..1110;
 *   b_us 2000 does not fit (it would delay a): a 1010..1110, b 1110..3110;
 *   holding 1, or cost-only tasks (a worker holds back only a typed
 *     kernel): in start order, a 1010..1110, b 1110..(1110 + b_us). */
static void run_ahead(int typed, int depth, double b_us, double b_start)
{
    hs_workload *w = two_tasks_of(typed, (const double[]){100, b_us},
                                  (const double[]){1000000, 0}, 0);
    hs_backend sim = {.ops = &hs_backend_sim};
    hs_error err = {0};
    hs_schedule *s = NULL;
    const int pin[] = {1, 1}, depths[] = {depth, depth};
    hs_map_options opt = {.executor_depth = depths};
    pinned p = {.pin = pin};
    the_pinned = &p;
    if (hs_engine_run(w, &pinned_policy, &opt, &sim, &s, NULL, &err) != HS_OK ||
        hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s", err.msg);
    expect_at(s, 0, 1, 1010, 1110);
    expect_at(s, 1, 1, b_start, b_start + b_us);
    assert_float_equal(s->makespan_us, fmax(1110, b_start + b_us), EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void executor_model_runs_ahead(void **state)
{
    (void)state;
    run_ahead(1, 2, 200, 0);
    run_ahead(1, 2, 2000, 1110);
    run_ahead(1, 1, 200, 1110);
    run_ahead(0, 2, 200, 1110);
}

/* A planned policy moves the input from host of a task its plan gives a
 * GPU ahead of time, in the link's idle time before the next completion
 * (hs_engine_prefetch_input, mapper/rank.c hs__planned_ahead).  cpu0 +
 * gpu0, links 1 GB/s and 10 us; a (cpu 510 or 2000 us) feeds b 1000 B (T =
 * 11 us, bound to none of b's buffers); b, a typed kernel of 100 us on
 * gpu0, reads 1000000 B from host
 * (T = 1010 us).  HEFT plans a on cpu0 and b on gpu0; gpu0 holds 2.
 *   a 510: at 0 the next completion is a's end, 510: 500000 B move in
 *     0..510; at 510 b starts, the other 500000 B move in 510..1020, a's
 *     data in 1020..1031, b runs 1031..1131;
 *   a 100: a piece may reach 200 us past now (HS__PREFETCH_SLACK_US), so
 *     190000 B move in 0..200; at 100 b starts, the other 810000 B move in
 *     200..1020, a's data in 1020..1031, b runs 1031..1131;
 *   a 2000: the whole input moves in 0..1010; b's start waits only for a's
 *     data, 2000..2011, and b runs 2011..2111;
 *   without the hook (heft's plan, nothing moved ahead): b's input moves at
 *     its start, then a's data: b runs (a + 1021)..(a + 1121). */
static void planned_inputs_move_ahead(void **state)
{
    static const double a_us[] = {510, 2000, 100};
    (void)state;
    for (int k = 0; k < 3; k++)
        for (int hook = 1; hook >= 0; hook--) {
            hs_workload *w = hs_workload_new();
            hs_error err = {0};
            hs_schedule *s = NULL;
            hs_backend sim = {.ops = &hs_backend_sim};
            const int depth[] = {2, 2};
            hs_map_options opt = {.executor_depth = depth};
            hs_policy heft = *hs_policy_find("heft");
            double b_start = hook ? (k == 1 ? 2011 : 1031) : a_us[k] + 1021;
            int a = cpu_gpu_app(w);
            assert_int_equal(hs_app_add_kernel(w, a, "a", &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", a_us[k], &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 100000, &err), 0);
            assert_int_equal(hs_app_add_kernel(w, a, "b", &err), 1);
            assert_int_equal(hs_kernel_set_type(w, a, 1, "va", &err), 0);
            assert_int_equal(hs_kernel_add_param(w, a, 1, "n", 125000, &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 100000, &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 1, "gpu", 100, &err), 0);
            assert_int_equal(hs_kernel_set_bytes(w, a, 1, 1000000, 0, &err), 0);
            assert_int_equal(hs_app_add_edge(w, a, "a", "b", 1000, &err), 0);
            assert_int_equal(hs_edge_set_buffer(w, a, 0, HS_BUFFER_NONE, &err), 0);
            if (hs_workload_finalize(w, &err) != HS_OK)
                fail_msg("%s", err.msg);
            if (!hook)
                heft.ahead = NULL;
            if (hs_engine_run(w, &heft, &opt, &sim, &s, NULL, &err) != HS_OK ||
                hs_schedule_validate(w, s, &err) != HS_OK)
                fail_msg("%s", err.msg);
            expect_at(s, 0, 0, 0, a_us[k]);
            expect_at(s, 1, 1, b_start, b_start + 100);
            if (hook) {
                static const double copies[3][3][3] = {
                    {{500000, 0, 510}, {500000, 510, 1020}, {1000, 1020, 1031}},
                    {{1000000, 0, 1010}, {1000, 2000, 2011}, {0, 0, 0}},
                    {{190000, 0, 200}, {810000, 200, 1020}, {1000, 1020, 1031}}};
                assert_int_equal(s->ntransfers, k == 1 ? 2 : 3);
                for (size_t c = 0; c < s->ntransfers; c++) {
                    const hs_transfer *t = &s->transfers[c];
                    assert_float_equal(t->bytes, copies[k][c][0], EPS);
                    assert_float_equal(t->start_us, copies[k][c][1], EPS);
                    assert_float_equal(t->end_us, copies[k][c][2], EPS);
                    assert_int_equal(s->placements[t->to_placement].task, 1);
                    assert_int_equal(t->from_placement == HS_NONE, t->bytes != 1000);
                }
            }
            hs_schedule_free(s);
            hs_workload_free(w);
        }
}

/* The threshold dispatcher (h-ratio, d-rank, ad-part) moves the input from
 * host of a task waiting in a GPU's own queue ahead of time, as a plan's
 * (mapper/rank.c hs__dispatch_ahead).  cpu0 + gpu0, links 1 GB/s and 10
 * us, gpu0 holding one task; two ready tasks, g1 (cpu 1000000 us, gpu 2000)
 * and g2, a typed kernel (cpu 10000, gpu 100) reading 1000000 B from host
 * (T = 1010 us).  g1 comes first in either order (ratio 500 against 100;
 * rank 501000 against 5050) and both go to gpu0 (g2 ends there by 2100);
 * gpu0 runs g1 in 0..2000 while g2 waits in its queue:
 *   with the hook: at 0 the link is free up to g1's end, so g2's whole
 *     input moves in 0..1010 and g2 runs 2000..2100;
 *   without: g2's input moves at its start, 2000..3010, and g2 runs
 *     3010..3110.
 * ad-part splits g1 so that its parts end together: f x 2000 = (1 - f) x
 * 1000000 on gpu0 and cpu0, ending at 2000 x 1000000 / 1002000 = 1996.008;
 * g2 then starts there. */
static void dispatched_inputs_move_ahead(void **state)
{
    static const char *const policies[] = {"h-ratio", "d-rank", "ad-part"};
    (void)state;
    for (size_t k = 0; k < sizeof policies / sizeof *policies; k++)
        for (int hook = 1; hook >= 0; hook--) {
            hs_workload *w = hs_workload_new();
            hs_error err = {0};
            hs_schedule *s = NULL;
            hs_backend sim = {.ops = &hs_backend_sim};
            const int depth[] = {1, 1};
            hs_map_options opt = {.executor_depth = depth};
            hs_policy p = *hs_policy_find(policies[k]);
            double g1_end = k == 2 ? 2000.0 * 1000000 / 1002000 : 2000;
            double g2 = hook ? g1_end : g1_end + 1010;
            int a = cpu_gpu_app(w);
            assert_int_equal(hs_app_add_kernel(w, a, "g1", &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 1000000, &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 2000, &err), 0);
            assert_int_equal(hs_app_add_kernel(w, a, "g2", &err), 1);
            assert_int_equal(hs_kernel_set_type(w, a, 1, "va", &err), 0);
            assert_int_equal(hs_kernel_add_param(w, a, 1, "n", 125000, &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 10000, &err), 0);
            assert_int_equal(hs_kernel_set_cost(w, a, 1, "gpu", 100, &err), 0);
            assert_int_equal(hs_kernel_set_bytes(w, a, 1, 1000000, 0, &err), 0);
            if (hs_workload_finalize(w, &err) != HS_OK)
                fail_msg("%s", err.msg);
            if (!hook)
                p.ahead = NULL;
            if (hs_engine_run(w, &p, &opt, &sim, &s, NULL, &err) != HS_OK ||
                hs_schedule_validate(w, s, &err) != HS_OK)
                fail_msg("%s: %s", policies[k], err.msg);
            if (k < 2)
                expect_at(s, 0, 1, 0, 2000);
            expect_at(s, 1, 1, g2, g2 + 100);
            assert_int_equal(s->ntransfers, 1);
            assert_float_equal(s->transfers[0].bytes, 1000000, EPS);
            assert_float_equal(s->transfers[0].start_us, hook ? 0 : g1_end, EPS);
            assert_float_equal(s->transfers[0].end_us, hook ? 1010 : g1_end + 1010, EPS);
            hs_schedule_free(s);
            hs_workload_free(w);
        }
}

/* The executor's model of parts of a split kernel (the data manager runs
 * them through host): ad-part splits a gemm (n = 128: A, B, C 64 KiB each,
 * beta 0: C written only; 1000 us on either device, beside a task of 10
 * us) between cpu0 and gpu0; the part on gpu0, of fraction f, gets one
 * copy from host of the spans it reads, f x A and the whole of B, queued
 * once its inputs are on host, and its written span, f x C, goes back to
 * host from its end; the part on cpu0 (host) copies nothing. */
static void executor_model_parts_through_host(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    hs_schedule *s;
    const int depth[] = {2, 2};
    hs_map_options opt = {.executor_depth = depth};
    const double bytes = 128.0 * 128.0 * 4.0;
    int a, gpu_parts = 0;
    (void)state;
    a = cpu_gpu_app(w);
    assert_int_equal(hs_app_add_kernel(w, a, "g", &err), 0);
    assert_int_equal(hs_kernel_set_type(w, a, 0, "gemm", &err), 0);
    assert_int_equal(hs_kernel_add_param(w, a, 0, "n", 128, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 1000, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 1000, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, 0, 2 * bytes, bytes, &err), 0);
    assert_int_equal(hs_kernel_set_split(w, a, 0, 1, 128, &err), 0);
    /* a short task, so that the gemm is longer than the mean (ad-part's
     * default threshold) */
    assert_int_equal(hs_app_add_kernel(w, a, "s", &err), 1);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 10, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "gpu", 10, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    assert_int_equal(hs_map(w, "ad-part", &opt, &s, NULL, &err), 0);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        size_t in = 0, out = 0;
        if (p->task == 1)
            continue;
        assert_int_equal(p->nparts, 2);
        for (size_t k = 0; k < s->ntransfers; k++) {
            const hs_transfer *t = &s->transfers[k];
            if (t->to_placement == (long)i) {
                in++;
                assert_int_equal(t->from_device, HS_HOST_DEVICE);
                assert_float_equal(t->bytes, p->fraction * bytes + bytes, 1e-6);
                assert_true(t->end_us <= p->start_us + EPS);
            }
            if (t->from_placement == (long)i) {
                out++;
                assert_int_equal(t->to_device, HS_HOST_DEVICE);
                assert_float_equal(t->bytes, p->fraction * bytes, 1e-6);
                assert_float_equal(t->start_us, p->end_us, EPS);
            }
        }
        assert_int_equal(in, p->device == 1);
        assert_int_equal(out, p->device == 1);
        gpu_parts += p->device == 1;
    }
    assert_int_equal(gpu_parts, 1);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Every policy under the executor's model (a cpu device holding 2 started
 * tasks, a GPU 4, as a real backend lets them) on a typed composition,
 * where dmda and dmdar prefetch and ad-part's parts go through host: each
 * schedule passes the validator (every copy after its producer and before
 * its consumer, one task at a time per device) and holds every task. */
static void executor_model_valid_for_every_policy(void **state)
{
    char path[4096];
    const char *root = getenv("HS_SOURCE_ROOT");
    const int depth[] = {2, 4};
    hs_map_options opt = {.executor_depth = depth};
    hs_workload *w = NULL;
    hs_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/paper/mixed-small.yaml", root ? root : ".");
    if (hs_workload_load_file(path, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(w->platform.ndevices, 2);
    for (const hs_policy *const *p = hs_policy_list(); *p; p++) {
        const char *name = hs_policy_name(*p);
        hs_schedule *s = NULL;
        if (hs_map(w, name, &opt, &s, NULL, &err) != HS_OK)
            fail_msg("%s: %s", name, err.msg);
        assert_string_equal(s->model, "executor");
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("%s: %s", name, err.msg);
        hs_schedule_free(s);
    }
    hs_workload_free(w);
}

/* workloads/cluster.yaml: a (input 1 MB) best on gpu0 of node n0, b
 * (output 1 MB) best on gpu1 of node n1, a -> b 1 MB.  Over a node's
 * links 1 MB takes 10 + 100 us, over the network 2 + 200 us, and a route
 * adds its hops. */
static void cluster_routes_in_schedules(void **state)
{
    char path[4096];
    const char *root = getenv("HS_SOURCE_ROOT");
    const int depth[] = {1, 1, 1, 1};
    hs_map_options opt = {.executor_depth = depth};
    hs_workload *w = NULL;
    hs_schedule *s;
    hs_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/cluster.yaml", root ? root : ".");
    if (hs_workload_load_file(path, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    /* input host -> gpu0 0-110, a 110-210; gpu0 -> host -> n1.host ->
     * n1.gpu1 takes 110 + 202 + 110 = 422: b 632-732; its output n1.gpu1
     * -> n1.host -> host takes 110 + 202: home at 1044 */
    s = map(w, "heft", 0);
    expect_at(s, 0, 1, 110, 210);
    expect_at(s, 1, 3, 632, 732);
    assert_float_equal(s->makespan_us, 1044, EPS);
    hs_schedule_free(s);
    /* the executor model: the same copies, one per route */
    assert_int_equal(hs_map(w, "heft", &opt, &s, NULL, &err), 0);
    expect_at(s, 0, 1, 110, 210);
    expect_at(s, 1, 3, 632, 732);
    assert_float_equal(s->makespan_us, 1044, EPS);
    assert_int_equal(s->ntransfers, 3);
    assert_float_equal(s->transfers[1].start_us, 210, EPS);
    assert_float_equal(s->transfers[1].end_us, 632, EPS);
    hs_schedule_free(s);
    /* gpu_direct: the network reaches the GPUs, 202 us a copy: a 110-210,
     * b 412-512, its output home at 714 */
    w->platform.network[0 * 2 + 1].gpu_direct = w->platform.network[1 * 2 + 0].gpu_direct = 1;
    hs_platform_route(&w->platform);
    s = map(w, "heft", 0);
    expect_at(s, 1, 3, 412, 512);
    assert_float_equal(s->makespan_us, 714, EPS);
    hs_schedule_free(s);
    /* keeping the GPUs only: devices renumbered, found by name, same schedule */
    assert_int_equal(hs_workload_select_devices(w, "gpu1,gpu0", &err), 0);
    assert_int_equal(w->platform.ndevices, 2);
    assert_int_equal(hs_platform_find_device(&w->platform, "gpu1"), 1);
    assert_int_equal(hs_platform_find_device(&w->platform, "cpu1"), -1);
    s = map(w, "heft", 0);
    expect_at(s, 1, 1, 412, 512);
    assert_float_equal(s->makespan_us, 714, EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tri_eager),
        cmocka_unit_test(tri_eager_overheads),
        cmocka_unit_test(executor_model),
        cmocka_unit_test(executor_model_prefetch),
        cmocka_unit_test(executor_model_runs_ahead),
        cmocka_unit_test(planned_inputs_move_ahead),
        cmocka_unit_test(dispatched_inputs_move_ahead),
        cmocka_unit_test(executor_model_parts_through_host),
        cmocka_unit_test(executor_model_valid_for_every_policy),
        cmocka_unit_test(cluster_routes_in_schedules),
        cmocka_unit_test(tri_cpu_only),
        cmocka_unit_test(tri_app_level),
        cmocka_unit_test(tri_dmda),
        cmocka_unit_test(case_study_eager),
        cmocka_unit_test(case_study_cpu_only),
        cmocka_unit_test(case_study_app_level),
        cmocka_unit_test(case_study_dmda),
        cmocka_unit_test(engine_predictions_and_residency),
        cmocka_unit_test(engine_data_ready_per_task_and_memory),
        cmocka_unit_test(delay_model),
        cmocka_unit_test(transform_hook),
        cmocka_unit_test(transform_refused),
        cmocka_unit_test(implied_part_edges),
        cmocka_unit_test(determinism),
        cmocka_unit_test(policy_bugs),
        cmocka_unit_test(cpu_only_needs_a_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
