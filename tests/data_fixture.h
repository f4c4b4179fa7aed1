/* What tests/test_data.c and tests/test_run_cuda.c share: small platforms,
 * the "join" and "mixed" applications, a run with a device memory cap, and
 * the comparison of a run's outputs with a reference run's.  Include after
 * cmocka.h. */
#ifndef HS_TESTS_DATA_FIXTURE_H
#define HS_TESTS_DATA_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "exec/engine.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"

/* ---------------------------------------------------------------- helpers */

enum { PF_CPU, PF_GPU, PF_CPU_GPU, PF_CPU_GPU2, PF_GPU2 };

/* PF_CPU: cpu0, cpu1 on host; PF_GPU: gpu0 alone; PF_CPU_GPU: cpu0 + gpu0;
 * PF_CPU_GPU2: cpu0 + gpu0 + gpu1; PF_GPU2: gpu0 + gpu1.  Every pair of
 * memories is linked. */
static inline void platform(hs_workload *w, int pf)
{
    static const char *const mems[] = {"host", "gpu0", "gpu1"};
    hs_error err = {0};
    int nm = pf == PF_CPU ? 1 : pf == PF_CPU_GPU2 || pf == PF_GPU2 ? 3 : 2;
    if (pf != PF_GPU && pf != PF_GPU2)
        assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    if (pf == PF_CPU)
        assert_true(hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    if (pf != PF_CPU)
        assert_true(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    if (pf == PF_CPU_GPU2 || pf == PF_GPU2)
        assert_true(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err) >= 0);
    for (int a = 0; a < nm; a++)
        for (int b = 0; b < nm; b++)
            if (a != b)
                assert_true(hs_platform_add_link(w, mems[a], mems[b], 10.0, 5.0, &err) >= 0);
}

/* Adds typed kernel `name` (one or two params, costs on cpu and gpu). */
static inline void kernel(hs_workload *w, int app, const char *name, const char *type,
                          const char *p1, double v1, const char *p2, double v2, double cpu_us,
                          double gpu_us)
{
    hs_error err = {0};
    int k = hs_app_add_kernel(w, app, name, &err);
    assert_true(k >= 0);
    assert_int_equal(hs_kernel_set_type(w, app, k, type, &err), 0);
    assert_int_equal(hs_kernel_add_param(w, app, k, p1, v1, &err), 0);
    if (p2)
        assert_int_equal(hs_kernel_add_param(w, app, k, p2, v2, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, app, k, "cpu", cpu_us, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, app, k, "gpu", gpu_us, &err), 0);
}

/* "join": x and y (va, n = 1000: a, b and c of 4000 bytes, 12000 in all)
 * feed j's a and b; then z, a lone va.  Tasks 0..3 = x, y, j, z. */
static inline void join_app(hs_workload *w)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "join", 1, &err);
    assert_true(a >= 0);
    kernel(w, a, "x", "va", "n", 1000, NULL, 0, 10, 10);
    kernel(w, a, "y", "va", "n", 1000, NULL, 0, 10, 10);
    kernel(w, a, "j", "va", "n", 1000, NULL, 0, 10, 10);
    kernel(w, a, "z", "va", "n", 1000, NULL, 0, 10, 10);
    assert_true(hs_app_add_edge(w, a, "x", "j", 4000, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "y", "j", 4000, &err) >= 0);
}

/* "chain" (`instances` times): va -> scale -> increment on 1000 floats, and
 * a 2 x 2 tiled Cholesky of 8 x 8 tiles (potrf -> trsm -> syrk, syrk ->
 * potrf ordering only), as in tests/test_run.c. */
static inline void mixed_apps(hs_workload *w)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "chain", 3, &err);
    kernel(w, a, "va", "va", "n", 1000, NULL, 0, 10, 1000);
    kernel(w, a, "scale", "scale", "n", 1000, "s", -2.5, 1000, 10);
    kernel(w, a, "inc", "increment", "n", 1000, NULL, 0, 10, 1000);
    assert_true(hs_app_add_edge(w, a, "va", "scale", 4000, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "scale", "inc", 4000, &err) >= 0);
    a = hs_workload_add_app(w, "chol", 1, &err);
    kernel(w, a, "potrf0", "potrf", "n", 8, NULL, 0, 30, 20);
    kernel(w, a, "trsm", "trsm", "n", 8, "m", 8, 30, 20);
    kernel(w, a, "syrk", "syrk", "n", 8, "k", 8, 30, 20);
    kernel(w, a, "potrf1", "potrf", "n", 8, NULL, 0, 30, 20);
    assert_true(hs_app_add_edge(w, a, "potrf0", "trsm", 256, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "trsm", "syrk", 256, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "syrk", "potrf1", 0, &err) >= 0);
}

static inline hs_workload *workload(int pf, void (*apps)(hs_workload *))
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    platform(w, pf);
    apps(w);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* Runs policy `pol` on `ops` with device memory `devmem` (0: default). */
static inline int run(hs_workload *w, const char *pol, const hs_backend_ops *ops,
                      size_t devmem, hs_run_report *r, hs_error *err)
{
    hs_backend b = {.ops = ops, .state = r};
    hs_map_options opt = {0};
    hs_schedule *s = NULL;
    int rc;
    memset(r, 0, sizeof *r);
    r->device_memory = devmem;
    rc = hs_engine_run(w, hs_policy_find(pol), &opt, &b, &s, NULL, err);
    hs_schedule_free(s);
    return rc;
}

/* The cpu backend's outputs for `apps` on two cpus: the reference. */
static inline void reference(void (*apps)(hs_workload *), hs_run_report *ref)
{
    hs_workload *w = workload(PF_CPU, apps);
    hs_error err = {0};
    if (run(w, "eager", &hs_backend_cpu, 0, ref, &err) != 0)
        fail_msg("reference: %s", err.msg);
    hs_workload_free(w);
}

/* r's outputs are ref's, byte for byte; every replica but the outputs'
 * host copies was freed; every typed task was checked. */
static inline void same_outputs(const hs_run_report *r, const hs_run_report *ref)
{
    assert_int_equal(r->noutputs, ref->noutputs);
    for (size_t i = 0; i < r->noutputs; i++) {
        assert_int_equal(r->outputs[i].task, ref->outputs[i].task);
        assert_int_equal(r->outputs[i].bytes, ref->outputs[i].bytes);
        assert_memory_equal(r->outputs[i].data, ref->outputs[i].data, r->outputs[i].bytes);
    }
    assert_int_equal(r->replicas_allocated - r->replicas_freed, r->noutputs);
    assert_int_equal(r->checked, r->typed);
}

#endif
