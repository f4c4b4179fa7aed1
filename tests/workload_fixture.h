/* What the tests that build workloads by hand share (test_data.c,
 * test_run.c, test_run_cuda.c, test_engine_real.c): small platforms and
 * typed kernels.  Include after cmocka.h. */
#ifndef HS_TESTS_WORKLOAD_FIXTURE_H
#define HS_TESTS_WORKLOAD_FIXTURE_H

#include "hetsched/hetsched.h"

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

/* Adds typed kernel `name` (one or two params, costs on cpu and gpu);
 * returns its index in the app. */
static inline int kernel(hs_workload *w, int app, const char *name, const char *type,
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
    return k;
}

#endif
