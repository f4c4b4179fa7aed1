/* The public API as a program outside the library uses it: only
 * hetsched/hetsched.h (tests/meson.build gives it no other include
 * directory).  Every command's logic through it: hs_run with its options (a
 * schedule given among them) and refusals, a policy of the program's own
 * registered beside the library's, per-device statistics, the checks made
 * before a workload is read, performance models, calibration, splitting
 * (the simulator, a workload, a real kernel), adversarial search and
 * output files. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"

/* Two cpus on host memory (no transfers); a -> b, a -> c; every kernel
 * 100 us on cpu0 and 150 us on cpu1. */
static const char two_cpus[] =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host}\n"
    "    - {name: cpu1, kind: cpu, memory: host}\n"
    "applications:\n"
    "  - name: app\n"
    "    kernels:\n"
    "      - {name: a, cost_us: {cpu0: 100, cpu1: 150}}\n"
    "      - {name: b, cost_us: {cpu0: 100, cpu1: 150}}\n"
    "      - {name: c, cost_us: {cpu0: 100, cpu1: 150}}\n"
    "    edges:\n"
    "      - {from: a, to: b, bytes: 1000}\n"
    "      - {from: a, to: c, bytes: 1000}\n";

/* A cpu and a gpu with a memory of its own; typed kernels va -> scale. */
static const char cpu_gpu[] =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host}\n"
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
    "  links:\n"
    "    - {from: host, to: gpu0, bandwidth_gbps: 10.0, latency_us: 5}\n"
    "    - {from: gpu0, to: host, bandwidth_gbps: 10.0, latency_us: 5}\n"
    "applications:\n"
    "  - name: chain\n"
    "    instances: 2\n"
    "    kernels:\n"
    "      - {name: va, type: va, params: {n: 1000}, cost_us: {cpu: 10, gpu: 300}}\n"
    "      - {name: scale, type: scale, params: {n: 1000, s: 2}, cost_us: {cpu: 300, gpu: 10}}\n"
    "    edges:\n"
    "      - {from: va, to: scale, bytes: 4000}\n";

static hs_workload *load(const char *yaml)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    if (hs_workload_load_buffer("test.yaml", yaml, strlen(yaml), &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

/* Every task of w's graph placed exactly once. */
static void each_task_once(const hs_workload *w, const hs_schedule *s)
{
    int *seen = calloc(w->graph.ntasks, sizeof *seen);
    assert_non_null(seen);
    assert_int_equal(s->nplacements, w->graph.ntasks);
    for (size_t i = 0; i < s->nplacements; i++)
        seen[s->placements[i].task]++;
    for (size_t t = 0; t < w->graph.ntasks; t++)
        assert_int_equal(seen[t], 1);
    free(seen);
}

/* ----------------------------------------------------------------- hs_run */

static void run_defaults_on_cpus(void **state)
{
    (void)state;
    hs_workload *w = load(two_cpus);
    hs_run_result r;
    hs_error err = {0};
    assert_string_equal(hs_run_default_backend(w), "cpu");
    if (hs_run(w, "heft", NULL, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(r.backend, "cpu");
    assert_string_equal(r.schedule->model, "measured");
    assert_string_equal(r.predicted->model, "executor");
    each_task_once(w, r.schedule);
    assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
    assert_int_equal(r.untyped, 3);
    assert_int_equal(r.typed, 0);
    /* heft's plan, predicted: a on cpu0 [0, 100], then b and c side by side
     * on cpu0 [100, 200] and cpu1 [100, 250] */
    assert_true(r.predicted->makespan_us > 249.999 && r.predicted->makespan_us < 250.001);
    /* a cost-only task sleeps at least its cost */
    assert_true(r.schedule->makespan_us >= 250);
    assert_int_equal(r.nmemories, 1);
    assert_int_equal(r.link_copies[0], 0);
    assert_true(r.processors >= 1);
    assert_true(r.threads >= 2); /* a kernel thread at least on each cpu */
    /* per device: the predicted busy time of heft's plan (a and b on cpu0,
     * c on cpu1), each device's tasks as measured, nothing predicted idle
     * (no copies on one memory) */
    assert_int_equal(r.devices[0].tasks + r.devices[1].tasks, 3);
    assert_true(r.predicted_devices[0].busy_us > 199.999 &&
                r.predicted_devices[0].busy_us < 200.001);
    assert_true(r.predicted_devices[1].busy_us > 149.999 &&
                r.predicted_devices[1].busy_us < 150.001);
    assert_true(r.predicted_devices[0].held_idle_us == 0 &&
                r.predicted_devices[1].held_idle_us == 0);
    hs_run_result_free(&r);
    hs_workload_free(w);
}

static void run_typed_on_emu_checks_every_kernel(void **state)
{
    (void)state;
    hs_workload *w = load(cpu_gpu);
    hs_run_options o = {.backend = "emu", .check = HS_CHECK_FULL,
                        .predict = HS_PREDICT_DELAY};
    hs_run_result r;
    hs_error err = {0};
    assert_string_not_equal(hs_run_default_backend(w), "cpu");
    if (hs_run(w, "heft", &o, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(r.backend, "emu");
    assert_string_equal(r.predicted->model, "delay");
    each_task_once(w, r.schedule);
    assert_int_equal(r.typed, 4);
    assert_int_equal(r.checked, 4);
    assert_int_equal(r.nmemories, 2);
    assert_int_equal(hs_schedule_validate(w, r.schedule, &err), HS_OK);
    /* before the clock, the typed inputs were made and each kernel
     * configuration run once: phases within the set-up; the end after */
    assert_true(r.inputs_us > 0 && r.warmup_us > 0 && r.buffers_us >= 0);
    assert_true(r.inputs_us + r.buffers_us + r.warmup_us <= r.setup_us);
    assert_true(r.teardown_us > 0);
    /* the kernel table: every placement in the row of its type and device,
     * the measured spans and the model's costs summed, rows in order */
    {
        size_t tasks = 0;
        for (size_t k = 0; k < r.nkernels; k++) {
            const hs_run_kernel_row *row = &r.kernels[k];
            double measured = 0, model = 0;
            size_t n = 0;
            for (size_t i = 0; i < r.schedule->nplacements; i++) {
                const hs_placement *p = &r.schedule->placements[i];
                const hs_task *t = &w->graph.tasks[p->task];
                if (p->device == row->device &&
                    strcmp(w->apps[t->app].kernels[t->kernel].type, row->kernel) == 0) {
                    n++;
                    measured += p->end_us - p->start_us;
                    model += t->cost_us[p->device];
                }
            }
            assert_int_equal(row->tasks, n);
            assert_float_equal(row->measured_us, measured, 1e-9 * measured);
            assert_float_equal(row->model_us, model, 0);
            tasks += n;
            if (k > 0)
                assert_true(r.kernels[k - 1].device < row->device ||
                            (r.kernels[k - 1].device == row->device &&
                             strcmp(r.kernels[k - 1].kernel, row->kernel) < 0));
        }
        assert_int_equal(tasks, 4);
        assert_int_equal(r.ndevices, 2);
        assert_true(r.overhead_us[0] >= 0 && r.overhead_us[1] >= 0);
    }
    /* the prediction is hs_map's schedule under the delay model */
    {
        hs_schedule *m = NULL;
        assert_int_equal(hs_map(w, "heft", NULL, &m, NULL, &err), HS_OK);
        assert_true(m->makespan_us == r.predicted->makespan_us);
        hs_schedule_free(m);
    }
    hs_run_result_free(&r);
    hs_workload_free(w);
}

static void run_on_a_subset_of_devices(void **state)
{
    (void)state;
    hs_workload *w = load(cpu_gpu);
    hs_run_options o = {.devices = "cpu0"};
    hs_run_result r;
    hs_error err = {0};
    if (hs_run(w, "eager", &o, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    /* gpu0 is gone: the default backend is cpu, everything on cpu0 */
    assert_int_equal(w->platform.ndevices, 1);
    assert_string_equal(w->platform.devices[0].name, "cpu0");
    assert_string_equal(r.backend, "cpu");
    each_task_once(w, r.schedule);
    for (size_t i = 0; i < r.schedule->nplacements; i++)
        assert_int_equal(r.schedule->placements[i].device, 0);
    /* va 10 + scale 300, twice, one after the other */
    assert_true(r.predicted->makespan_us > 619.999 && r.predicted->makespan_us < 620.001);
    hs_run_result_free(&r);
    hs_workload_free(w);
}

static void run_survives_a_failed_device(void **state)
{
    (void)state;
    hs_workload *w = load(two_cpus);
    hs_run_options o = {.fail_device = "cpu1", .fail_after = 1};
    hs_run_result r;
    hs_error err = {0};
    if (hs_run(w, "heft", &o, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    /* heft gives c to cpu1, which fails at it: c runs on cpu0 */
    assert_int_equal(r.stats.failed_devices, 1);
    assert_int_equal(r.stats.rerun, 1);
    each_task_once(w, r.schedule);
    for (size_t i = 0; i < r.schedule->nplacements; i++)
        assert_int_equal(r.schedule->placements[i].device, 0);
    hs_run_result_free(&r);
    hs_workload_free(w);
}

/* The critical path with fastest costs and free transfers: a -> b at 100 µs
 * each on two_cpus; va (10 on the cpu) -> scale (10 on the gpu) on
 * cpu_gpu, its two instances side by side. */
static void critical_path(void **state)
{
    hs_workload *w = load(two_cpus), *v = load(cpu_gpu);
    hs_error err = {0};
    double cp = -1;
    (void)state;
    assert_int_equal(hs_graph_critical_path_us(&w->graph, &cp, &err), HS_OK);
    assert_true(fabs(cp - 200) < 1e-9);
    assert_int_equal(hs_graph_critical_path_us(&v->graph, &cp, &err), HS_OK);
    assert_true(fabs(cp - 20) < 1e-9);
    hs_workload_free(w);
    hs_workload_free(v);
}

/* A performance model gives typed-example's gemm its cost, as --model
 * does: without it the workload does not load; with it heft maps it, and
 * map's makespan is the one the command prints (README). */
static void a_performance_model(void **state)
{
    char path[4096], mpath[4096];
    const char *root = getenv("HS_SOURCE_ROOT");
    hs_perfmodel *m = NULL;
    hs_workload *w = NULL;
    hs_schedule *s = NULL;
    hs_map_options mo = {0};
    hs_error err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/workloads/typed-example.yaml", root);
    snprintf(mpath, sizeof mpath, "%s/workloads/models/example.json", root);
    assert_int_equal(hs_workload_load_file(path, &w, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "no performance model is loaded"));
    assert_int_equal(hs_perfmodel_load(mpath, &m, &err), HS_OK);
    assert_int_equal(hs_workload_load_file_opts(
                         path, &(hs_load_options){.cost_fn = hs_perfmodel_cost_fn, .cost_ctx = m},
                         &w, &err),
                     HS_OK);
    mo.perfmodel = m;
    assert_int_equal(hs_map(w, "heft", &mo, &s, NULL, &err), HS_OK);
    assert_true(fabs(s->makespan_us - 1417.548) < 5e-4);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(m);
}

/* Calibration from a program, as `hetsched calibrate --types va --sizes
 * ... --devices cpu` does it: one row (va on cpu0) fitted on its three
 * sizes, a platform of one cpu device that loads back; a type that does not
 * exist is refused before anything runs. */
static void calibration(void **state)
{
    char path[] = "/tmp/hs-test-api-XXXXXX";
    hs_calib_options o = {.types = "va", .sizes = "1000,10000,100000", .devices = "cpu",
                          .reps = 3, .threads = 1};
    hs_calib_result r = {0};
    hs_workload *p = NULL;
    hs_error err = {0};
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(hs_calibrate(&o, &r, &err), HS_OK);
    assert_int_equal(r.nrows, 1);
    assert_string_equal(r.rows[0].type, "va");
    assert_string_equal(r.rows[0].device, "cpu0");
    assert_int_equal(r.rows[0].nsizes, 3);
    assert_true(r.rows[0].samples + r.rows[0].rejected == 9);
    assert_true(r.rows[0].fitted);
    assert_non_null(r.model);
    assert_int_equal(hs_calib_write_platform(&r, path, &err), HS_OK);
    assert_int_equal(hs_platform_load_file(path, &p, &err), HS_OK);
    assert_int_equal(p->platform.ndevices, 1);
    assert_string_equal(p->platform.devices[0].name, "cpu0");
    hs_workload_free(p);
    hs_calib_result_free(&r);
    unlink(path);
    /* a workload's typed kernels without costs, for calibrate --for */
    {
        static const char typed[] =
            "platform:\n"
            "  devices: [{name: cpu0, kind: cpu, memory: host}]\n"
            "applications:\n"
            "  - name: a\n"
            "    kernels: [{name: v, type: va, params: {n: 1000}}]\n";
        hs_load_options lo = {.cost_fn = hs_calib_cost_fn};
        hs_workload *w = NULL;
        assert_int_equal(hs_workload_load_buffer_opts("t.yaml", typed, strlen(typed), &lo, &w,
                                                      &err),
                         HS_OK);
        assert_true(w->graph.tasks[0].cost_us[0] == 0);
        hs_workload_free(w);
    }
    o.types = "nope";
    assert_int_equal(hs_calibrate(&o, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "nope"));
    hs_calib_result_free(&r);
}

/* A schedule given in a file (hs_run_options.schedule), policy NULL: a on
 * cpu1, then c there; b on cpu0, which heft would not choose for both.  In
 * the delay model a ends at 150 on cpu1, b at 250 on cpu0, c at 300. */
static void run_a_given_schedule(void **state)
{
    static const char text[] =
        "{\"workload\": null, \"algorithm\": null, \"model\": \"delay\", \"makespan_us\": 0,\n"
        " \"tasks\": [\n"
        "  {\"id\": \"app#0/c\", \"device\": \"cpu1\", \"start_us\": 2, \"end_us\": 3, \"fraction\": 1},\n"
        "  {\"id\": \"app#0/b\", \"device\": \"cpu0\", \"start_us\": 2, \"end_us\": 3, \"fraction\": 1},\n"
        "  {\"id\": \"app#0/a\", \"device\": \"cpu1\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}\n"
        " ],\n"
        " \"transfers\": []}\n";
    static const int device[] = {1, 0, 1}; /* a, b, c */
    hs_workload *w = load(two_cpus);
    char path[] = "/tmp/hs_api_given_XXXXXX";
    hs_run_options o = {.schedule = path, .predict = HS_PREDICT_DELAY};
    hs_run_result r;
    hs_error err = {0};
    const hs_placement *a = NULL, *c = NULL;
    FILE *f;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0 && (f = fdopen(fd, "w")) != NULL);
    fputs(text, f);
    fclose(f);
    if (hs_run(w, NULL, &o, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(r.schedule->algorithm, "given");
    each_task_once(w, r.schedule);
    for (size_t i = 0; i < r.schedule->nplacements; i++) {
        const hs_placement *p = &r.schedule->placements[i];
        assert_int_equal(p->device, device[p->task]);
        if (p->task == 0)
            a = p;
        if (p->task == 2)
            c = p;
    }
    assert_true(a && c && c->start_us >= a->end_us);
    assert_true(r.predicted->makespan_us > 299.999 && r.predicted->makespan_us < 300.001);
    hs_run_result_free(&r);
    /* a policy beside it, a split with it, neither */
    assert_int_equal(hs_run_check("heft", &o, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "--schedule runs the schedule it is given: no policy (-a heft) "
                                 "with it");
    o.split = "hdss";
    assert_int_equal(hs_run_check(NULL, &o, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "--split does not apply to --schedule: the schedule places "
                                 "whole tasks");
    assert_int_equal(hs_run(w, NULL, NULL, &r, &err), HS_EUSAGE);
    unlink(path);
    hs_workload_free(w);
}

static void run_refuses(void **state)
{
    (void)state;
    static const char *const bad_option[] = {"nonsense=1", NULL};
    static const struct {
        const char *policy;
        hs_run_options o;
        int code;
        const char *msg;
    } cases[] = {
        {"nope", {0}, HS_EUSAGE, "unknown policy 'nope' (see hetsched map -a help)"},
        {"heft", {.backend = "sim"}, HS_EUSAGE, "--backend wants cpu, emu or cuda, not 'sim'"},
        {"heft", {.split_planned = 1}, HS_EUSAGE, "--split-mode applies to --split only"},
        {"heft", {.split = "hdss", .fail_device = "cpu0", .fail_after = 1}, HS_EUSAGE,
         "--fail does not apply to a split at run time (use --split-mode planned)"},
        {"heft", {.split = "nope"}, HS_EUSAGE,
         "--split: unknown splitter 'nope' (hetsched split -p help lists them)"},
        {"ad-part", {.split = "hdss", .split_planned = 1}, HS_EINPUT,
         "--split: policy 'ad-part' splits kernels itself"},
        {"heft", {.fail_device = "cpu0"}, HS_EUSAGE, "--fail wants DEVICE:after=N (N >= 1)"},
        {"heft", {.throttle_device = "cpu0", .throttle = 1}, HS_EUSAGE,
         "--throttle wants a FACTOR above 1"},
        {"heft", {.split = "nope", .split_planned = 1}, HS_EUSAGE,
         "--split: unknown splitter 'nope' (hetsched split -p help lists them)"},
        {"heft", {.split = "hdss", .split_options = bad_option}, HS_EUSAGE,
         "--split-option: unknown splitter option 'nonsense' (hetsched split -o help lists them)"},
        {"heft", {.devices = "cpu0,gpu7"}, HS_EINPUT,
         "--devices: the platform has no device 'gpu7'"},
        {"heft", {.devices = "cpu0,cpu0"}, HS_EINPUT, "--devices: 'cpu0' is named twice"},
        {"heft", {.throttle_device = "cpu7", .throttle = 2}, HS_EINPUT,
         "--throttle: the platform has no cpu device 'cpu7'"},
        {"heft", {.fail_device = "cpu7", .fail_after = 2}, HS_EINPUT,
         "--fail: the platform has no device 'cpu7'"},
        {"heft", {.seed = 3}, HS_EUSAGE,
         "--seed does not apply to policy heft: it has no random choice"},
        {"cpu-only", {.thr = 3}, HS_EUSAGE,
         "--thr does not apply to policy cpu-only: it has no dispatch threshold"},
        {"d-rank", {.thr = -1}, HS_EUSAGE, "--thr wants a whole number >= 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_workload *w = load(two_cpus);
        hs_run_result r;
        hs_error err = {0};
        int before = hs_run_check(cases[i].policy, &cases[i].o, &err);
        assert_int_equal(hs_run(w, cases[i].policy, &cases[i].o, &r, &err), cases[i].code);
        assert_string_equal(err.msg, cases[i].msg);
        /* without an hs_error, the same code */
        assert_int_equal(hs_run(w, cases[i].policy, &cases[i].o, &r, NULL), cases[i].code);
        /* hs_run_check refuses what needs no workload, as hs_run does */
        assert_int_equal(before, cases[i].code == HS_EINPUT && !cases[i].o.split ? HS_OK
                                                                                   : cases[i].code);
        assert_null(r.schedule);
        assert_null(r.predicted);
        /* a refused device list leaves the workload as it was */
        assert_int_equal(w->platform.ndevices, 2);
        hs_workload_free(w);
    }
}

/* ------------------------------------------------ a policy of our own */

/* `last-device`: a FIFO of ready tasks that only the platform's last
 * device takes; counts the hooks it was given. */
typedef struct last_state {
    size_t queue[16], head, tail;
    size_t done;
    double done_us;
} last_state;

static int last_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)opt;
    if (hs_engine_graph(e)->ntasks > 16)
        return hs_error_set(err, HS_EINPUT, "last-device: at most 16 tasks");
    if (!(*state = calloc(1, sizeof(last_state))))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    return HS_OK;
}

static void last_ready(void *state, hs_engine *e, size_t t)
{
    last_state *st = state;
    (void)e;
    st->queue[st->tail++] = t;
}

static long last_pick(void *state, hs_engine *e, int device)
{
    last_state *st = state;
    if (device != hs_engine_platform(e)->ndevices - 1 || st->head == st->tail)
        return HS_NO_TASK;
    return (long)st->queue[st->head++];
}

static void last_done(void *state, hs_engine *e, size_t t, int device, double us)
{
    last_state *st = state;
    assert_int_equal(hs_engine_task_device(e, t), device);
    st->done++;
    st->done_us += us;
}

static size_t last_runs, last_done_total;
static double last_done_us;

static void last_fini(void *state)
{
    last_state *st = state;
    last_runs++;
    last_done_total = st->done;
    last_done_us = st->done_us;
    free(st);
}

static const hs_policy last_device = {
    .name = "last-device",
    .description = "a FIFO that only the last device takes from (a test's)",
    .init = last_init,
    .ready = last_ready,
    .pick = last_pick,
    .done = last_done,
    .fini = last_fini,
};

static void register_once(void)
{
    hs_error err = {0};
    if (!hs_policy_find("last-device") &&
        hs_policy_register(&last_device, &err) != HS_OK)
        fail_msg("%s", err.msg);
}

static void own_policy_maps_and_runs(void **state)
{
    (void)state;
    hs_workload *w = load(two_cpus);
    const hs_policy *const *list;
    hs_schedule *s = NULL;
    hs_run_result r;
    hs_error err = {0};
    size_t n = 0;
    register_once();
    assert_ptr_equal(hs_policy_find("last-device"), &last_device);
    for (list = hs_policy_list(); list[n]; n++)
        ;
    assert_ptr_equal(list[n - 1], &last_device); /* listed after the library's */
    /* in the simulator: a, b, c one after the other on cpu1, 150 us each */
    last_runs = 0;
    assert_int_equal(hs_map(w, "last-device", NULL, &s, NULL, &err), HS_OK);
    assert_true(s->makespan_us == 450);
    assert_string_equal(s->algorithm, "last-device");
    for (size_t i = 0; i < s->nplacements; i++)
        assert_int_equal(s->placements[i].device, 1);
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);
    assert_int_equal(last_runs, 1);
    assert_int_equal(last_done_total, 3);
    assert_true(last_done_us == 450);
    hs_schedule_free(s);
    /* for real, on the cpu backend */
    if (hs_run(w, "last-device", NULL, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    each_task_once(w, r.schedule);
    for (size_t i = 0; i < r.schedule->nplacements; i++)
        assert_int_equal(r.schedule->placements[i].device, 1);
    assert_true(r.predicted->makespan_us == 450);
    assert_int_equal(last_done_total, 3);
    hs_run_result_free(&r);
    hs_workload_free(w);
}

static void register_refuses(void **state)
{
    (void)state;
    hs_policy no_pick = last_device, plus = last_device, heft = last_device;
    hs_error err = {0};
    register_once();
    no_pick.name = "no-pick";
    no_pick.pick = NULL;
    plus.name = "a+b";
    heft.name = "heft";
    assert_int_equal(hs_policy_register(&no_pick, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "a policy needs a name, a description, init, ready and pick");
    assert_int_equal(hs_policy_register(&plus, &err), HS_EUSAGE);
    assert_int_equal(hs_policy_register(&heft, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "policy 'heft' is registered already");
    assert_int_equal(hs_policy_register(&last_device, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "policy 'last-device' is registered already");
    assert_null(hs_policy_find("no-pick"));
    assert_null(hs_policy_find("a+b"));
}

/* Per-device statistics of heft's schedule of two_cpus: a and b on cpu0
 * (100 us each), c on cpu1 (150 us, ends at 250 before cpu0 could end it
 * at 300). */
static void device_statistics(void **state)
{
    hs_workload *w = load(two_cpus);
    hs_schedule *s = NULL;
    hs_device_stats st[2];
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_map(w, "heft", NULL, &s, NULL, &err), HS_OK);
    assert_int_equal(hs_schedule_device_stats(w, s, st, &err), HS_OK);
    assert_int_equal(st[0].tasks, 2);
    assert_true(fabs(st[0].busy_us - 200) < 1e-9);
    assert_int_equal(st[1].tasks, 1);
    assert_true(fabs(st[1].busy_us - 150) < 1e-9);
    assert_true(st[0].held_idle_us == 0 && st[1].held_idle_us == 0);
    assert_true(fabs(s->makespan_us - 250) < 1e-9);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* What hs_map and hs_milp_solve refuse before a workload is read, with
 * their messages. */
static void checks_before_a_workload(void **state)
{
    hs_map_options mo = {0};
    hs_milp_options lo;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_map_check("heft", 0, NULL, &err), HS_OK);
    assert_int_equal(hs_map_check(NULL, 1, NULL, &err), HS_OK);
    assert_int_equal(hs_map_check("nope", 0, NULL, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "unknown policy 'nope' (see hetsched map -a help)");
    assert_int_equal(hs_map_check("heft", 1, NULL, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "--schedule runs the schedule it is given: no policy (-a heft) "
                                 "with it");
    assert_int_equal(hs_split_graph_new("static", NULL, &mo.split, &err), HS_OK);
    assert_int_equal(hs_map_check("heft", 0, &mo, &err), HS_OK);
    assert_int_equal(hs_map_check("ad-part", 0, &mo, &err), HS_EINPUT);
    assert_string_equal(err.msg, "--split: policy 'ad-part' splits kernels itself");
    assert_int_equal(hs_map_check(NULL, 1, &mo, &err), HS_EUSAGE);
    hs_split_graph_free(mo.split);
    hs_milp_options_init(&lo);
    assert_int_equal(hs_milp_check(&lo, &err), HS_OK);
    assert_int_equal(hs_milp_check(NULL, &err), HS_OK);
    lo.time_limit_s = -1;
    assert_int_equal(hs_milp_check(&lo, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "the time limit must be a number of seconds > 0, not -1");
}

/* A performance model built from a program: three sizes of va on cpu0,
 * 10 + D / 100 us at D = 1000, 10000, 100000, fit a * D^b + c through
 * them; saved and loaded back it predicts the same; the params a report
 * shows leave out those at their default. */
static void a_performance_model_built(void **state)
{
    static const double sizes[] = {1000, 10000, 100000};
    char path[] = "/tmp/hs-test-api-model-XXXXXX", buf[64];
    hs_perfmodel *m = hs_perfmodel_new(), *back = NULL;
    hs_perf_fit f;
    hs_perf_history h;
    hs_error err = {0};
    double us;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0 && m);
    close(fd);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 5; k++)
            assert_int_equal(hs_perfmodel_record(m, "va", NULL, sizes[i], "cpu0",
                                                 10 + sizes[i] / 100, NULL, &err),
                             HS_OK);
    assert_int_equal(hs_perfmodel_entries(m), 3);
    assert_int_equal(hs_perfmodel_history(m, "va", NULL, 10000, "cpu0", &h), 1);
    assert_true(fabs(h.median_us - 110) < 1e-9 && h.nsamples == 5);
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    assert_int_equal(hs_perfmodel_get_fit(m, "va", "cpu0", &f), 1);
    assert_true(fabs(hs_perfmodel_fit_eval(&f, 50000) - 510) < 0.5);
    assert_int_equal(hs_perfmodel_save(m, path, &err), HS_OK);
    assert_int_equal(hs_perfmodel_load(path, &back, &err), HS_OK);
    assert_int_equal(hs_perfmodel_predict(back, "va", NULL, 10000, "cpu0", &us, NULL, &err),
                     HS_OK);
    assert_true(fabs(us - 110) < 1e-9);
    assert_int_equal(hs_perfmodel_predict(back, "va", NULL, 20000, "gpu0", &us, NULL, &err),
                     HS_EINPUT);
    hs_perfmodel_params_short("va", "n=1000", buf, sizeof buf);
    assert_string_equal(buf, "n=1000");
    hs_perfmodel_params_short("gemm", "n=64,m=64,k=64,alpha=1,beta=0,transb=0", buf, sizeof buf);
    assert_string_equal(buf, "n=64");
    hs_perfmodel_params_short("gemm", "n=64,m=8,k=64,alpha=1,beta=0,transb=0", buf, sizeof buf);
    assert_string_equal(buf, "n=64,m=8");
    hs_perfmodel_params_short("nope", "x=1", buf, sizeof buf);
    assert_string_equal(buf, "x=1");
    hs_perfmodel_params_short("va", "", buf, sizeof buf);
    assert_string_equal(buf, "-");
    hs_perfmodel_free(back);
    hs_perfmodel_free(m);
    unlink(path);
}

/* A splittable kernel of 400 items on a device computing 1 item/us and one
 * computing 3, from host memory: the static splitter gives each 200 items,
 * so the slow one ends at 200 us; the best static split, 25% / 75%, ends
 * both at 100 us. */
static void splitting_in_the_simulator(void **state)
{
    static hs_split_sim sim; /* large */
    hs_split_result res;
    hs_error err = {0};
    int best[2];
    double best_us;
    long tried = 0;
    (void)state;
    memset(&sim, 0, sizeof sim);
    sim.kernel = "k";
    sim.items = 400;
    sim.ndevices = 2;
    sim.dev[0] = (hs_split_sim_device){.name = "cpu0", .kind = HS_DEVICE_CPU,
                                       .items_per_us = 1, .width = 1};
    sim.dev[1] = (hs_split_sim_device){.name = "cpu1", .kind = HS_DEVICE_CPU,
                                       .items_per_us = 3, .width = 1};
    assert_non_null(hs_splitter_find("static"));
    assert_null(hs_splitter_find("nope"));
    assert_int_equal(hs_split_sim_run(&sim, hs_splitter_find("static"), NULL, NULL, &res, &err),
                     HS_OK);
    assert_int_equal(res.dev[0].items, 200);
    assert_int_equal(res.dev[1].items, 200);
    assert_true(fabs(res.makespan_us - 200) < 1e-9);
    assert_true(fabs(res.dev[1].finish_us - 200.0 / 3) < 1e-9);
    hs_split_result_free(&res);
    assert_int_equal(hs_split_sim_best_static(&sim, NULL, best, &best_us, &tried, &err), HS_OK);
    assert_int_equal(best[0], 25);
    assert_int_equal(best[1], 75);
    assert_true(fabs(best_us - 100) < 1e-9);
    assert_int_equal(tried, hs_split_sim_static_count(2));
}

/* The graph-level split of a workload: a splittable kernel of 100 items
 * costing 100 us on either cpu, split by `static` into two parts of 50
 * items that heft places on their devices: 50 us. */
static void splitting_a_workload(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host}\n"
        "    - {name: cpu1, kind: cpu, memory: host}\n"
        "applications:\n"
        "  - name: app\n"
        "    kernels:\n"
        "      - {name: k, cost_us: {cpu: 100}, splittable: true, items: 100}\n";
    hs_workload *w = load(yaml);
    hs_map_options mo = {0};
    hs_split_options so = {0};
    hs_schedule *s = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_split_option_set(&so, "beta=0.5", &err), HS_OK);
    assert_int_equal(hs_split_options_check(&so, hs_splitter_find("static"), &err), HS_EINPUT);
    assert_int_equal(hs_split_graph_new("static", NULL, &mo.split, &err), HS_OK);
    assert_int_equal(hs_map(w, "heft", &mo, &s, NULL, &err), HS_OK);
    assert_int_equal(s->nplacements, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(s->placements[i].nparts, 2);
        assert_true(fabs(s->placements[i].fraction - 0.5) < 1e-9);
        assert_int_equal(s->placements[i].device, s->placements[i].part);
    }
    assert_true(fabs(s->makespan_us - 50) < 1e-9);
    hs_schedule_free(s);
    hs_split_graph_free(mo.split);
    hs_workload_free(w);
}

static void count_runs(void *ctx, unsigned long long run, const hs_split_result *res)
{
    unsigned long long *seen = ctx;
    assert_true(res->makespan_us > 0);
    *seen |= 1ull << run;
}

/* A real kernel split on one CPU thread, as `hetsched split` runs it: va of
 * 3000 items (--items), measured alone, then static over 3 repetitions
 * (the median kept) and qilin with its training run (run 0); a type that
 * is not splittable is refused. */
static void splitting_a_real_kernel(void **state)
{
    hs_split_real_device dev[HS_SPLIT_MAX_DEVICES];
    hs_split_real *r = NULL;
    hs_split_result res;
    hs_param n = {"n", 500};
    hs_error err = {0};
    const char *type, *unit;
    size_t items;
    unsigned long long seen = 0;
    int ndev = 0;
    double alone;
    (void)state;
    assert_int_equal(hs_split_real_devices("cpu:1", 1, dev, &ndev, &err), HS_OK);
    assert_int_equal(hs_split_real_open("va", NULL, 0, 3000, dev, ndev, &r, &err), HS_OK);
    hs_split_real_kernel(r, &type, &items, &unit);
    assert_string_equal(type, "va");
    assert_int_equal(items, 3000);
    assert_int_equal(hs_split_real_alone(r, 0, 3, &alone, &err), HS_OK);
    assert_true(alone > 0);
    assert_int_equal(hs_split_real_measure(r, hs_splitter_find("static"), NULL, 1, 3, 1, 0,
                                           count_runs, &seen, &res, &err),
                     HS_OK);
    assert_int_equal(seen, 0);
    assert_int_equal(res.dev[0].items, 3000);
    hs_split_result_free(&res);
    assert_int_equal(hs_split_real_measure(r, hs_splitter_find("qilin"), NULL, 1, 1, 1, 0,
                                           count_runs, &seen, &res, &err),
                     HS_OK);
    assert_int_equal(seen, 1); /* run 0, the training run */
    hs_split_result_free(&res);
    seen = 0;
    assert_int_equal(hs_split_real_measure(r, hs_splitter_find("hdss"), NULL, 3, 1, 1, 0,
                                           count_runs, &seen, &res, &err),
                     HS_OK);
    assert_int_equal(seen, 6); /* runs 1 and 2 before the measured one */
    hs_split_result_free(&res);
    hs_split_real_close(r);
    assert_int_equal(hs_split_real_open("va", &n, 1, 0, dev, ndev, &r, &err), HS_OK);
    hs_split_real_kernel(r, &type, &items, &unit);
    assert_int_equal(items, 500);
    hs_split_real_close(r);
    assert_int_equal(hs_split_real_open("potrf", NULL, 0, 0, dev, ndev, &r, &err), HS_EINPUT);
    assert_null(r);
    assert_int_equal(hs_split_real_open("dot", &n, 1, 0, dev, ndev, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "not splittable"));
    assert_int_equal(hs_split_real_open("gemv", &n, 1, 7, dev, ndev, &r, &err), HS_OK);
    hs_split_real_kernel(r, &type, &items, &unit);
    assert_int_equal(items, 7); /* --items sets gemv's m */
    hs_split_real_close(r);
}

/* An adversarial search from a program: the same seed gives the same
 * worst instance, which hs_map reproduces; options out of range are
 * refused. */
static void adversary_search(void **state)
{
    hs_adversary_options o;
    hs_adversary_result a, b;
    hs_schedule *s = NULL;
    hs_error err = {0};
    (void)state;
    hs_adversary_options_init(&o);
    o.policy = "eager";
    o.against = "heft";
    o.iterations = 40;
    o.seed = 3;
    assert_int_equal(hs_adversary_search(&o, &a, NULL, NULL, &err), HS_OK);
    assert_int_equal(hs_adversary_search(&o, &b, NULL, NULL, &err), HS_OK);
    assert_int_equal(a.iterations, 40);
    assert_true(a.ratio == b.ratio && a.policy_us == b.policy_us);
    assert_true(fabs(a.ratio - a.policy_us / a.against_us) < 1e-12);
    assert_int_equal(hs_map(a.worst, "eager", NULL, &s, NULL, &err), HS_OK);
    assert_true(fabs(s->makespan_us - a.policy_us) < 1e-9);
    hs_schedule_free(s);
    hs_adversary_result_free(&a);
    hs_adversary_result_free(&b);
    o.max_tasks = HS_ADVERSARY_MAX_TASKS + 1;
    assert_int_equal(hs_adversary_search(&o, &a, NULL, NULL, &err), HS_EUSAGE);
}

/* An output file is put in place whole when the writer succeeds, and
 * nothing is left when it fails. */
static void output_files(void **state)
{
    char dir[] = "/tmp/hs-test-api-out-XXXXXX", path[4200], text[16] = "";
    hs_output o;
    hs_error err = {0};
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/report.txt", dir);
    assert_int_equal(hs_output_open(&o, path, &err), HS_OK);
    fputs("half", o.f);
    assert_int_equal(hs_output_close(&o, HS_EINPUT, &err), HS_EINPUT);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(hs_output_open(&o, path, &err), HS_OK);
    fputs("whole", o.f);
    assert_int_equal(hs_output_close(&o, HS_OK, &err), HS_OK);
    assert_non_null(f = fopen(path, "r"));
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "whole");
    unlink(path);
    rmdir(dir);
    assert_int_equal(hs_output_open(&o, "/nonexistent-dir/x", &err), HS_EIO);
}

/* compare --random's sweep: the same seed draws the same workloads, in
 * the documented ranges, on two and then three devices. */
static void random_sweep(void **state)
{
    hs_gen_sweep *a = hs_gen_sweep_new(7), *b = hs_gen_sweep_new(7);
    hs_error err = {0};
    (void)state;
    assert_true(a && b);
    for (int i = 0; i < 4; i++) {
        hs_gen_random_opts oa, ob;
        const char *da, *db;
        hs_workload *wa, *wb;
        assert_int_equal(hs_gen_sweep_next(a, &oa, &da, &wa, &err), HS_OK);
        assert_int_equal(hs_gen_sweep_next(b, &ob, &db, &wb, &err), HS_OK);
        assert_true(oa.tasks == ob.tasks && oa.seed == ob.seed && oa.beta == ob.beta);
        assert_true(oa.tasks % 20 == 0 && oa.tasks >= 20 && oa.tasks <= 200);
        assert_true(oa.out_degree >= 1 && oa.out_degree <= 5);
        assert_string_equal(da, i % 2 ? "cpu:1,gpu:2" : "cpu:1,gpu:1");
        assert_int_equal(wa->platform.ndevices, i % 2 ? 3 : 2);
        assert_int_equal(wa->graph.ntasks, oa.tasks);
        assert_int_equal(wa->graph.ntasks, wb->graph.ntasks);
        hs_workload_free(wa);
        hs_workload_free(wb);
    }
    hs_gen_sweep_free(a);
    hs_gen_sweep_free(b);
}

/* The kernel types a workload's `type` may name. */
static void kernel_types(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    (void)state;
    assert_non_null(f);
    hs_ktype_help(f);
    fclose(f);
    assert_non_null(strstr(text, "gemm"));
    assert_non_null(strstr(text, "va"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_defaults_on_cpus),
        cmocka_unit_test(run_typed_on_emu_checks_every_kernel),
        cmocka_unit_test(run_on_a_subset_of_devices),
        cmocka_unit_test(run_survives_a_failed_device),
        cmocka_unit_test(critical_path),
        cmocka_unit_test(a_performance_model),
        cmocka_unit_test(calibration),
        cmocka_unit_test(run_a_given_schedule),
        cmocka_unit_test(run_refuses),
        cmocka_unit_test(own_policy_maps_and_runs),
        cmocka_unit_test(register_refuses),
        cmocka_unit_test(device_statistics),
        cmocka_unit_test(checks_before_a_workload),
        cmocka_unit_test(a_performance_model_built),
        cmocka_unit_test(splitting_in_the_simulator),
        cmocka_unit_test(splitting_a_workload),
        cmocka_unit_test(splitting_a_real_kernel),
        cmocka_unit_test(adversary_search),
        cmocka_unit_test(output_files),
        cmocka_unit_test(kernel_types),
        cmocka_unit_test(random_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
