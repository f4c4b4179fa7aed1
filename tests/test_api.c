/* The public API as a program outside the library uses it: only
 * hetsched/hetsched.h.  hs_run with its options (a schedule given among
 * them) and refusals, and a policy of the program's own registered beside
 * the library's. */
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
