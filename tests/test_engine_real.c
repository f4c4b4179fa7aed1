/* Tests of the engine on the real backends' worker machinery (exec/cpu.c):
 * many empty tasks, independent, chained and in layers, on cpu and emu with
 * 1-3 devices and several depths (HETSCHED_DEPTH), under the cheap policies
 * and every policy; each run must give a complete schedule of the structure
 * hs_schedule_validate asks for (each task placed once, no two tasks on a
 * device at once, every task after its predecessors by the real start and
 * end times).  A failing task's error reaches the caller while other tasks
 * are queued, without a hang; a bad depth is bad input.  That a depth above
 * 1 leaves sim results unchanged is what the sim, policy and heuristics
 * tests check: the simulator keeps depth 1. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/data.h"
#include "exec/engine.h"
#include "exec/real.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"
#include "tests/workload_fixture.h"

enum { INDEP, CHAIN, LAYERS };

/* The backends under test: cpu and emu as they are (their workers run the
 * engine's steps: drive), and cpu with the engine's own loop waiting for
 * completions (no drive), the path of a backend without drive. */
enum { B_CPU, B_EMU, B_CENTRAL, NBACKENDS };
static const char *const bname[] = {"cpu", "emu", "cpu (engine loop)"};
static hs_backend_ops central;

static const hs_backend_ops *backend(int k)
{
    central = hs_backend_cpu;
    central.drive = NULL;
    return k == B_CPU ? &hs_backend_cpu : k == B_EMU ? &hs_backend_emu : &central;
}

/* Adds cpu0 and, for ndev > 1, more devices: cpu1, cpu2 (host memory) when
 * gpus is 0, else gpu0, gpu1 with their own memories linked to host and to
 * each other. */
static void devices(hs_workload *w, int ndev, int gpus)
{
    hs_error err = {0};
    char name[16];
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    for (int d = 1; d < ndev; d++) {
        snprintf(name, sizeof name, gpus ? "gpu%d" : "cpu%d", gpus ? d - 1 : d);
        assert_true(hs_platform_add_device(w, name, gpus ? HS_DEVICE_GPU : HS_DEVICE_CPU,
                                           gpus ? name : "host", gpus ? 0 : 1, &err) >= 0);
    }
    for (int a = 0; gpus && a < ndev; a++)
        for (int b = 0; b < ndev; b++) {
            char ma[16] = "host", mb[16] = "host";
            if (a > 0)
                snprintf(ma, sizeof ma, "gpu%d", a - 1);
            if (b > 0)
                snprintf(mb, sizeof mb, "gpu%d", b - 1);
            if (a != b)
                assert_true(hs_platform_add_link(w, ma, mb, 10.0, 5.0, &err) >= 0);
        }
}

/* A finalized workload of empty (cost 0, untyped) tasks:
 *   INDEP   n independent tasks (one kernel, n instances);
 *   CHAIN   one chain of n tasks (edges of 0 bytes);
 *   LAYERS  n / 10 layers of 10 tasks, task i of a layer after tasks i and
 *           i + 1 (mod 10) of the layer before (edges of 0 bytes). */
static hs_workload *empty(int ndev, int gpus, size_t n, int shape)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    char name[32], from[32];
    size_t nk = shape == INDEP ? 1 : n;
    int app;
    assert_non_null(w);
    devices(w, ndev, gpus);
    app = hs_workload_add_app(w, "e", shape == INDEP ? (int)n : 1, &err);
    assert_true(app >= 0);
    for (size_t i = 0; i < nk; i++) {
        int k;
        snprintf(name, sizeof name, "k%zu", i);
        k = hs_app_add_kernel(w, app, name, &err);
        assert_true(k >= 0);
        assert_int_equal(hs_kernel_set_cost(w, app, k, "cpu", 0.0, &err), 0);
        if (gpus)
            assert_int_equal(hs_kernel_set_cost(w, app, k, "gpu", 0.0, &err), 0);
        if (shape == CHAIN && i > 0) {
            snprintf(from, sizeof from, "k%zu", i - 1);
            assert_true(hs_app_add_edge(w, app, from, name, 0.0, &err) >= 0);
        }
        if (shape == LAYERS && i >= 10) {
            snprintf(from, sizeof from, "k%zu", i - 10);
            assert_true(hs_app_add_edge(w, app, from, name, 0.0, &err) >= 0);
            snprintf(from, sizeof from, "k%zu", i - 10 - i % 10 + (i + 1) % 10);
            assert_true(hs_app_add_edge(w, app, from, name, 0.0, &err) >= 0);
        }
    }
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* Runs `pol` on `ops`; returns the status, fills *s (NULL on failure). */
static int run(hs_workload *w, const char *pol, const hs_backend_ops *ops, hs_schedule **s,
               hs_error *err)
{
    hs_run_report r;
    hs_backend b = {.ops = ops, .state = &r};
    hs_map_options opt = {0};
    int rc;
    memset(&r, 0, sizeof r);
    *s = NULL;
    rc = hs_engine_run(w, hs_policy_find(pol), &opt, &b, s, NULL, err);
    hs_run_report_free(&r);
    return rc;
}

static const hs_placement *sorted_base;

static int by_device_start(const void *a, const void *b)
{
    const hs_placement *p = &sorted_base[*(const size_t *)a];
    const hs_placement *q = &sorted_base[*(const size_t *)b];
    if (p->device != q->device)
        return p->device < q->device ? -1 : 1;
    return p->start_us < q->start_us ? -1 : p->start_us > q->start_us;
}

/* The structure hs_schedule_validate checks, on measured times, in
 * O(n log n): every task placed (whole, or parts whose fractions sum to 1)
 * on a device of the platform with 0 <= start <= end; on each device, by
 * start, each placement ends before the next starts; every placement of a
 * task starts after every placement of each predecessor ended. */
static void check_structure(const hs_workload *w, const hs_schedule *s)
{
    const hs_graph *g = &w->graph;
    double *sum = calloc(g->ntasks, sizeof *sum), *first = malloc(g->ntasks * sizeof *first);
    double *last = calloc(g->ntasks, sizeof *last);
    size_t *idx = malloc((s->nplacements + 1) * sizeof *idx);
    assert_true(sum && first && last && idx);
    for (size_t t = 0; t < g->ntasks; t++)
        first[t] = INFINITY;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        assert_true(p->task < g->ntasks);
        assert_true(p->device >= 0 && p->device < w->platform.ndevices);
        assert_true(0 <= p->start_us && p->start_us <= p->end_us);
        sum[p->task] += p->fraction;
        first[p->task] = fmin(first[p->task], p->start_us);
        last[p->task] = fmax(last[p->task], p->end_us);
        idx[i] = i;
    }
    for (size_t t = 0; t < g->ntasks; t++)
        assert_true(fabs(sum[t] - 1.0) < 1e-9);
    sorted_base = s->placements;
    qsort(idx, s->nplacements, sizeof *idx, by_device_start);
    for (size_t i = 1; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[idx[i - 1]], *q = &s->placements[idx[i]];
        if (p->device == q->device)
            assert_true(p->end_us <= q->start_us);
    }
    for (size_t e = 0; e < g->nedges; e++)
        assert_true(first[g->edges[e].to] >= last[g->edges[e].from]);
    free(sum);
    free(first);
    free(last);
    free(idx);
}

/* Sets HETSCHED_DEPTH, or unsets it for NULL. */
static void set_depth(const char *v)
{
    if (v)
        assert_int_equal(setenv("HETSCHED_DEPTH", v, 1), 0);
    else
        assert_int_equal(unsetenv("HETSCHED_DEPTH"), 0);
}

/* ------------------------------------------------------------------ tests */

/* 2000 independent, a chain of 500 and 50 layers of 10 empty tasks on cpu
 * (cpu devices), emu (cpu0 + gpus) and cpu without drive, 1 to 3 devices,
 * eager and dmda, at the default depth and at depths 1, 2 and 16: each run
 * completes with a sound schedule. */
static void empty_tasks_every_shape(void **state)
{
    static const char *const depths[] = {NULL, "1", "2", "16"};
    static const size_t count[] = {2000, 500, 500};
    static const char *const pols[] = {"eager", "dmda"};
    (void)state;
    for (int shape = INDEP; shape <= LAYERS; shape++)
        for (int be = 0; be < NBACKENDS; be++)
            for (int ndev = 1; ndev <= 3; ndev++) {
                hs_workload *w = empty(ndev, be == B_EMU, count[shape], shape);
                for (size_t k = 0; k < sizeof depths / sizeof *depths; k++)
                    for (int p = 0; p < 2; p++) {
                        hs_schedule *s;
                        hs_error err = {0};
                        set_depth(depths[k]);
                        if (run(w, pols[p], backend(be), &s, &err) != 0)
                            fail_msg("shape %d, %s, %d devices, depth %s, %s: %s", shape,
                                     bname[be], ndev, depths[k] ? depths[k] : "-", pols[p],
                                     err.msg);
                        assert_int_equal(s->nplacements, w->graph.ntasks);
                        check_structure(w, s);
                        hs_schedule_free(s);
                    }
                hs_workload_free(w);
            }
    set_depth(NULL);
}

/* Every policy (splitting ones too: their parts are placements) on 30
 * layers of 10 empty tasks, cpu with 2 devices, emu with cpu0 + 2 gpus and
 * cpu without drive: sound schedules. */
static void every_policy_on_layers(void **state)
{
    const hs_policy *const *pol = hs_policy_list();
    hs_workload *wc = empty(2, 0, 300, LAYERS), *we = empty(3, 1, 300, LAYERS);
    (void)state;
    for (size_t i = 0; pol[i]; i++)
        for (int be = 0; be < NBACKENDS; be++) {
            hs_workload *w = be == B_EMU ? we : wc;
            hs_schedule *s;
            hs_error err = {0};
            if (run(w, hs_policy_name(pol[i]), backend(be), &s, &err) != 0)
                fail_msg("%s on %s: %s", hs_policy_name(pol[i]), bname[be], err.msg);
            check_structure(w, s);
            hs_schedule_free(s);
        }
    hs_workload_free(wc);
    hs_workload_free(we);
}

/* A failing kernel among 400 empty tasks: scale with s = 0 writes 64 zeros,
 * which feed potrf's 8 x 8 tile (256 bytes, the size of scale's result), and
 * a zero matrix is not positive definite.  The run fails with potrf's
 * message on each backend (1 and 2 devices), at depths 1 and 4, while other
 * tasks are queued on the workers; it returns (no hang) and leaks nothing. */
static void failing_task_reaches_the_caller(void **state)
{
    static const char *const depths[] = {"1", "4"};
    (void)state;
    for (int be = 0; be < NBACKENDS; be++)
        for (int ndev = 1; ndev <= 2; ndev++)
            for (int k = 0; k < 2; k++) {
                hs_workload *w = hs_workload_new();
                hs_schedule *s;
                hs_error err = {0};
                int a, b, ks, kp, emu = be == B_EMU;
                devices(w, ndev, emu);
                a = hs_workload_add_app(w, "bad", 1, &err);
                ks = hs_app_add_kernel(w, a, "scale", &err);
                kp = hs_app_add_kernel(w, a, "potrf", &err);
                assert_true(ks >= 0 && kp >= 0);
                assert_int_equal(hs_kernel_set_type(w, a, ks, "scale", &err), 0);
                assert_int_equal(hs_kernel_add_param(w, a, ks, "n", 64, &err), 0);
                assert_int_equal(hs_kernel_add_param(w, a, ks, "s", 0, &err), 0);
                assert_int_equal(hs_kernel_set_type(w, a, kp, "potrf", &err), 0);
                assert_int_equal(hs_kernel_add_param(w, a, kp, "n", 8, &err), 0);
                for (int kk = ks; kk <= kp; kk++) {
                    assert_int_equal(hs_kernel_set_cost(w, a, kk, "cpu", 0, &err), 0);
                    if (emu)
                        assert_int_equal(hs_kernel_set_cost(w, a, kk, "gpu", 0, &err), 0);
                }
                assert_true(hs_app_add_edge(w, a, "scale", "potrf", 256, &err) >= 0);
                b = hs_workload_add_app(w, "filler", 400, &err);
                assert_true(b >= 0);
                assert_true(hs_app_add_kernel(w, b, "e", &err) >= 0);
                assert_int_equal(hs_kernel_set_cost(w, b, 0, "cpu", 0, &err), 0);
                if (emu)
                    assert_int_equal(hs_kernel_set_cost(w, b, 0, "gpu", 0, &err), 0);
                assert_int_equal(hs_workload_finalize(w, &err), 0);
                set_depth(depths[k]);
                assert_true(run(w, "eager", backend(be), &s, &err) < 0);
                assert_null(s);
                if (!strstr(err.msg, "positive definite"))
                    fail_msg("%s, %d devices, depth %s: unexpected error: %s", bname[be], ndev,
                             depths[k], err.msg);
                hs_workload_free(w);
            }
    set_depth(NULL);
}

/* Prefetching on emu, cpu0 + gpu0, depth 2: va0..va3 (n = 1000, cost 10
 * us on cpu, 1000 on gpu) run on cpu0, then an untyped barrier (cost 0,
 * ties go to cpu0); scale_i (cost 1000 on cpu, 10 on gpu) reads va_i's
 * 4000-byte result and waits for the barrier, so the four become ready in
 * one step and are committed to gpu0.  Every kernel is checked.
 *   heft (no prefetch of its own): a worker that takes a task while its
 *     next one is queued prefetches the next one's inputs.  gpu0 takes
 *     scale0 and then scale1; when scale0 ends, gpu0's worker runs the step
 *     itself (no other task runs) and starts scale2, and then takes scale1
 *     with scale2 queued: va2's result is copied host -> gpu0 by the
 *     prefetch.  Whether a given run does depends on whether the engine
 *     had queued the next scale when gpu0's worker woke up (a
 *     ThreadSanitizer run once woke it in between): some run of a few must.
 *   dmda prefetches each task it queues (hs_engine_prefetch): the four
 *     copies into gpu0 are prefetches in every run. */
static void queued_task_is_prefetched(void **state)
{
    static const char *const policies[] = {"heft", "dmda"};
    (void)state;
    for (int k = 0; k < 2; k++) {
        hs_workload *w = hs_workload_new();
        hs_schedule *s;
        hs_run_report r;
        hs_backend b = {.ops = &hs_backend_emu, .state = &r};
        hs_map_options opt = {0};
        hs_error err = {0};
        char name[16], from[16];
        size_t prefetched = 0;
        int a;
        devices(w, 2, 1);
        a = hs_workload_add_app(w, "pf", 1, &err);
        assert_true(a >= 0);
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "va%d", i);
            kernel(w, a, name, "va", "n", 1000, NULL, 0, 10, 1000);
        }
        assert_true(hs_app_add_kernel(w, a, "barrier", &err) >= 0);
        assert_int_equal(hs_kernel_set_cost(w, a, 4, "cpu", 0, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, 4, "gpu", 0, &err), 0);
        for (int i = 0; i < 4; i++) {
            snprintf(from, sizeof from, "va%d", i);
            snprintf(name, sizeof name, "scale%d", i);
            kernel(w, a, name, "scale", "n", 1000, "s", 2, 1000, 10);
            assert_true(hs_app_add_edge(w, a, from, "barrier", 0, &err) >= 0);
            assert_true(hs_app_add_edge(w, a, from, name, 4000, &err) >= 0);
            assert_true(hs_app_add_edge(w, a, "barrier", name, 0, &err) >= 0);
        }
        assert_int_equal(hs_workload_finalize(w, &err), 0);
        set_depth("2");
        for (int run = 0; run < 8 && (prefetched == 0 || k == 1); run++) {
            memset(&r, 0, sizeof r);
            r.check = HS_CHECK_FULL;
            if (hs_engine_run(w, hs_policy_find(policies[k]), &opt, &b, &s, NULL, &err) != 0)
                fail_msg("%s: %s", policies[k], err.msg);
            for (size_t i = 0; i < s->nplacements; i++) /* va, barrier on cpu0, scale on gpu0 */
                assert_int_equal(s->placements[i].device, s->placements[i].task > 4);
            check_structure(w, s);
            assert_int_equal(r.typed, 8);
            assert_int_equal(r.checked, 8);
            if (k == 1)
                assert_int_equal(r.prefetched, 4);
            prefetched += r.prefetched;
            hs_schedule_free(s);
            hs_run_report_free(&r);
            b.state = &r;
        }
        set_depth(NULL);
        assert_true(prefetched >= 1);
        hs_workload_free(w);
    }
}

/* Running a task ahead of a waiting one (engine.c, order_of; cpu.c,
 * launch_apart).  cpu0 + gpu0 (links 10 GB/s, 5 us); typed tasks a -> c
 * and b, 10 us on gpu0 and 200000 us (a) or 100000 us on cpu0, and a
 * cost-only task e, 10 us on gpu0 and 50000 on cpu0; a's input is 1000000
 * B from host (105 us on the link), the others' nothing.  h-ratio sends
 * them all to gpu0 in the order of their heterogeneity ratios: a, b, e, c.
 *   The executor's model (gpu0 holding 4): a waits for its copy, 0..105;
 *     b fits before it and runs 0..10; a 105..115; e, which a worker
 *     cannot hold back, after a, 115..125; c 125..135.
 *   On emu, whose copies are made when the worker launches a task, gpu0
 *     runs a first, then b: the engine takes their completions in the
 *     other order than it started them in.
 *   On emu with its copies into gpu0 done 2 ms after they start
 *     (hs__data_test_copy_us), gpu0's worker holds a back and runs b first,
 *     and e only once a is done.
 * Each run's schedule is well formed (one task at a time on a device). */
static void run_ahead(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_backend b = {.ops = &hs_backend_emu, .state = &r};
    const int depth[] = {2, 4};
    hs_map_options opt = {.executor_depth = depth};
    hs_error err = {0};
    int a, k;
    (void)state;
    devices(w, 2, 1);
    a = hs_workload_add_app(w, "ahead", 1, &err);
    kernel(w, a, "a", "va", "n", 1000, NULL, 0, 200000, 10);
    kernel(w, a, "b", "va", "n", 1000, NULL, 0, 100000, 10);
    kernel(w, a, "c", "va", "n", 1000, NULL, 0, 100000, 10);
    assert_true((k = hs_app_add_kernel(w, a, "e", &err)) >= 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 50000, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 10, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, 0, 1000000, 0, &err), 0);
    assert_true(hs_app_add_edge(w, a, "a", "c", 0, &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    if (hs_map(w, "h-ratio", &opt, &s, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        static const double at[] = {105, 0, 125, 115};
        assert_int_equal(p->device, 1);
        assert_float_equal(p->start_us, at[p->task], 1e-6);
    }
    hs_schedule_free(s);
    opt = (hs_map_options){.executor_estimates = 1};
    for (int delayed = 0; delayed < 2; delayed++) {
        hs__data_test_copy_us = delayed ? 2000 : 0;
        memset(&r, 0, sizeof r);
        if (hs_engine_run(w, hs_policy_find("h-ratio"), &opt, &b, &s, NULL, &err) != 0)
            fail_msg("%s", err.msg);
        check_structure(w, s);
        assert_int_equal(s->nplacements, 4);
        /* placements in completion order: a, b (b, a) */
        assert_int_equal(s->placements[0].task, delayed);
        assert_int_equal(s->placements[1].task, !delayed);
        for (size_t i = 0; i < 4; i++)
            if (s->placements[i].task == 3) /* e after a */
                assert_true(s->placements[i].start_us >= s->placements[delayed].end_us);
        hs_schedule_free(s);
        hs_run_report_free(&r);
    }
    hs__data_test_copy_us = 0;
    hs_workload_free(w);
}

/* A policy that gives out at most `budget` tasks, in announcement order:
 * budget 0 stalls the first step (the caller's thread), budget 1 a step on a
 * worker, after the first task ended. */
typedef struct stingy {
    size_t next, count, budget;
    size_t ready[64];
    double first_now; /* the engine's clock when the first task was announced */
} stingy;

static stingy stingy_state;

static int stingy_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)e, (void)opt, (void)err;
    stingy_state.next = stingy_state.count = 0;
    *state = &stingy_state;
    return HS_OK;
}

static void stingy_ready(void *state, hs_engine *e, size_t t)
{
    stingy *s = state;
    if (s->count == 0)
        s->first_now = hs_engine_now(e);
    if (s->count < 64)
        s->ready[s->count++] = t;
}

static long stingy_pick(void *state, hs_engine *e, int d)
{
    stingy *s = state;
    (void)e, (void)d;
    if (s->next >= s->budget || s->next >= s->count)
        return HS_NO_TASK;
    return (long)s->ready[s->next++];
}

/* A policy that leaves tasks unscheduled is reported (HS_EINTERNAL, "left
 * ... unscheduled") on every backend, whether the first step or a later one
 * finds every device idle, and the run returns. */
static void stalled_policy_is_reported(void **state)
{
    const hs_policy stingy_policy = {.name = "stingy", .init = stingy_init,
                                     .ready = stingy_ready, .pick = stingy_pick};
    hs_workload *w = empty(2, 0, 20, INDEP), *we = empty(2, 1, 20, INDEP);
    (void)state;
    for (int be = 0; be < NBACKENDS; be++)
        for (size_t budget = 0; budget < 2; budget++) {
            hs_backend b = {.ops = backend(be), .state = NULL};
            hs_map_options opt = {0};
            hs_schedule *s = NULL;
            hs_error err = {0};
            stingy_state.budget = budget;
            assert_int_equal(hs_engine_run(be == B_EMU ? we : w, &stingy_policy, &opt, &b, &s,
                                           NULL, &err),
                             HS_EINTERNAL);
            assert_null(s);
            if (!strstr(err.msg, budget ? "left 19 of 20" : "left 20 of 20"))
                fail_msg("%s, budget %zu: %s", bname[be], budget, err.msg);
        }
    hs_workload_free(w);
    hs_workload_free(we);
}

/* A backend whose clock reads 1000 s until its run starts (drive), as a
 * real backend's may read anything before: the engine reads it at set-up. */
static int started;

static double late_now(const hs_backend *b)
{
    return hs__real_now(b) + (started ? 0.0 : 1e9);
}

static int late_drive(hs_backend *b, int (*step)(void *ctx, hs_error *err), void *ctx,
                      hs_error *err)
{
    started = 1;
    return hs__real_drive(b, step, ctx, err);
}

/* The sources are announced at the run's time, not at a time the backend's
 * clock read before the run started: the policy's first decisions see idle
 * devices available at the start, as in the simulator (before, on the cuda
 * backend they saw them 3 ms late, and app-level chose otherwise than its
 * prediction). */
static void sources_are_announced_on_the_runs_clock(void **state)
{
    const hs_policy stingy_policy = {.name = "stingy", .init = stingy_init,
                                     .ready = stingy_ready, .pick = stingy_pick};
    (void)state;
    for (int be = B_CPU; be <= B_EMU; be++) {
        hs_backend_ops late = *backend(be);
        hs_workload *w = empty(2, be == B_EMU, 20, INDEP);
        hs_run_report r;
        hs_backend b = {.ops = &late, .state = &r};
        hs_map_options opt = {0};
        hs_schedule *s = NULL;
        hs_error err = {0};
        memset(&r, 0, sizeof r);
        late.now = late_now;
        late.drive = late_drive;
        started = 0;
        stingy_state.budget = 64;
        assert_int_equal(hs_engine_run(w, &stingy_policy, &opt, &b, &s, NULL, &err), HS_OK);
        assert_int_equal(stingy_state.count, 20);
        if (!(stingy_state.first_now >= 0 && stingy_state.first_now < 1e9))
            fail_msg("%s: the sources were announced at %.3f us", bname[be],
                     stingy_state.first_now);
        check_structure(w, s);
        hs_schedule_free(s);
        hs_run_report_free(&r);
        hs_workload_free(w);
    }
}

/* HETSCHED_DEPTH out of 1..16 or not a number is bad input, named in the
 * message; the run starts nothing. */
static void bad_depth_is_bad_input(void **state)
{
    static const char *const bad[] = {"0", "17", "x", "4x", ""};
    hs_workload *w = empty(2, 0, 10, INDEP);
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        hs_schedule *s;
        hs_error err = {0};
        set_depth(bad[i]);
        assert_int_equal(run(w, "eager", &hs_backend_cpu, &s, &err), HS_EINPUT);
        assert_non_null(strstr(err.msg, "HETSCHED_DEPTH"));
        assert_null(s);
    }
    set_depth(NULL);
    hs_workload_free(w);
}

/* init returns once every thread it started is ready for its first task:
 * on cpu one worker per device; on emu a gpu device's worker and, at a
 * depth above 1, its completer (the cpu device's worker alone at depth 1). */
static void init_readies_every_thread(void **state)
{
    static const struct {
        int ndev, gpus, be;
        const char *depth;
        int threads;
    } cases[] = {{1, 0, B_CPU, NULL, 1}, {3, 0, B_CPU, NULL, 3},  {3, 0, B_CPU, "4", 3},
                 {3, 1, B_EMU, NULL, 5}, {3, 1, B_EMU, "1", 3},   {2, 1, B_EMU, "2", 3}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hs_workload *w = empty(cases[i].ndev, cases[i].gpus, 4, INDEP);
        hs_backend b = {.ops = backend(cases[i].be), .state = NULL};
        hs_error err = {0};
        set_depth(cases[i].depth);
        assert_int_equal(b.ops->init(&b, w, &w->graph, &err), 0);
        if (hs__real_primed(&b) != cases[i].threads)
            fail_msg("case %zu: %d threads ready, want %d", i, hs__real_primed(&b),
                     cases[i].threads);
        b.ops->fini(&b);
        hs_workload_free(w);
    }
    set_depth(NULL);
}

/* The simulator keeps one task per device and its own loop (no depth, no
 * drive); cpu and emu have both. */
static void ops_of_the_backends(void **state)
{
    (void)state;
    assert_null(hs_backend_sim.depth);
    assert_null(hs_backend_sim.drive);
    assert_true(hs_backend_cpu.depth == hs__real_depth && hs_backend_cpu.drive == hs__real_drive);
    assert_true(hs_backend_emu.depth == hs__real_depth && hs_backend_emu.drive == hs__real_drive);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_tasks_every_shape),
        cmocka_unit_test(every_policy_on_layers),
        cmocka_unit_test(failing_task_reaches_the_caller),
        cmocka_unit_test(queued_task_is_prefetched),
        cmocka_unit_test(run_ahead),
        cmocka_unit_test(stalled_policy_is_reported),
        cmocka_unit_test(sources_are_announced_on_the_runs_clock),
        cmocka_unit_test(bad_depth_is_bad_input),
        cmocka_unit_test(init_readies_every_thread),
        cmocka_unit_test(ops_of_the_backends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
