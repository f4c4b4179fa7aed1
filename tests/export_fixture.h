/* A small workload and a hand-made schedule of it, shared by test_dot.c and
 * test_export.c (included by both; not a test program of its own).
 *
 * Platform: cpu0 (device 0, memory host), gpu0 (device 1, memory gpu0), links
 * host <-> gpu0 at 12 GB/s and 10 us.  Applications, flattened in this order:
 *   va x2:    add -> scale (200000 B); add reads 400000 B, scale writes 200000 B
 *             tasks 0 va#0/add, 1 va#0/scale, 2 va#1/add, 3 va#1/scale
 *   xgemm x1: ab -> c (4194304 B), c -> d (0 B: order only)
 *             tasks 4 xgemm#0/ab, 5 xgemm#0/c, 6 xgemm#0/d
 */
#ifndef HS_TESTS_EXPORT_FIXTURE_H
#define HS_TESTS_EXPORT_FIXTURE_H

#include "hetsched/hetsched.h"

#define FIX_NTASKS 7

static const char *const fix_ids[FIX_NTASKS] = {
    "va#0/add", "va#0/scale", "va#1/add", "va#1/scale", "xgemm#0/ab", "xgemm#0/c", "xgemm#0/d",
};

static hs_workload *fix_workload(void)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int va, xg;
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 12.0, 10.0, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 12.0, 10.0, &err), 1);
    va = hs_workload_add_app(w, "va", 2, &err);
    assert_int_equal(va, 0);
    assert_int_equal(hs_app_add_kernel(w, va, "add", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, va, "scale", &err), 1);
    assert_int_equal(hs_kernel_set_cost(w, va, 0, "cpu", 568, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, va, 0, "gpu", 422, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, va, 1, "cpu", 1520, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, va, 1, "gpu", 242, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, va, 0, 400000, 0, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, va, 1, 0, 200000, &err), 0);
    assert_true(hs_app_add_edge(w, va, "add", "scale", 200000, &err) >= 0);
    xg = hs_workload_add_app(w, "xgemm", 1, &err);
    assert_int_equal(xg, 1);
    assert_int_equal(hs_app_add_kernel(w, xg, "ab", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, xg, "c", &err), 1);
    assert_int_equal(hs_app_add_kernel(w, xg, "d", &err), 2);
    for (int k = 0; k < 3; k++) {
        static const double cpu[] = {2000, 800, 50}, gpu[] = {300, 100, 60};
        assert_int_equal(hs_kernel_set_cost(w, xg, k, "cpu", cpu[k], &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, xg, k, "gpu", gpu[k], &err), 0);
    }
    assert_int_equal(hs_kernel_set_split(w, xg, 0, 1, 1024, &err), 0);
    assert_true(hs_app_add_edge(w, xg, "ab", "c", 4194304, &err) >= 0);
    assert_true(hs_app_add_edge(w, xg, "c", "d", 0, &err) >= 0);
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("finalize: %s", err.msg);
    assert_int_equal(w->graph.ntasks, FIX_NTASKS);
    return w;
}

#define FIX_NPLACEMENTS 8
/* task, part, nparts, fraction, device, start, end.  Times are chosen by
 * hand (not a policy's output); ab is split in halves over both devices. */
static const hs_placement fix_placements[FIX_NPLACEMENTS] = {
    {.task = 0, .part = 0, .nparts = 1, .fraction = 1, .device = 1, .start_us = 50, .end_us = 472},
    {.task = 1, .part = 0, .nparts = 1, .fraction = 1, .device = 1, .start_us = 472,
     .end_us = 714},
    {.task = 2, .part = 0, .nparts = 1, .fraction = 1, .device = 0, .start_us = 0, .end_us = 568},
    {.task = 3, .part = 0, .nparts = 1, .fraction = 1, .device = 0, .start_us = 568,
     .end_us = 2088},
    {.task = 4, .part = 0, .nparts = 2, .fraction = 0.5, .device = 1, .start_us = 714,
     .end_us = 864},
    {.task = 4, .part = 1, .nparts = 2, .fraction = 0.5, .device = 0, .start_us = 2088,
     .end_us = 3088},
    {.task = 5, .part = 0, .nparts = 1, .fraction = 1, .device = 1, .start_us = 3300,
     .end_us = 3400},
    {.task = 6, .part = 0, .nparts = 1, .fraction = 1, .device = 1, .start_us = 3400,
     .end_us = 3460.5},
};

#define FIX_NTRANSFERS 3
/* Durations by the delay model, 10 us + bytes / 12000 B/us:
 *   va#0/add's input, 400000 B host -> gpu0: 10 + 33.333 = 43.333
 *   va#0/scale's output, 200000 B gpu0 -> host: 10 + 16.667 = 26.667
 *   ab[1/2] (cpu0) -> c (gpu0), 4194304 x 0.5 = 2097152 B: 10 + 174.763 = 184.763 */
static const hs_transfer fix_transfers[FIX_NTRANSFERS] = {
    {.from_placement = HS_NONE, .to_placement = 0, .from_device = HS_HOST_DEVICE,
     .to_device = 1, .bytes = 400000, .start_us = 0, .end_us = 10 + 400000 / 12000.0},
    {.from_placement = 1, .to_placement = HS_NONE, .from_device = 1,
     .to_device = HS_HOST_DEVICE, .bytes = 200000, .start_us = 714,
     .end_us = 714 + 10 + 200000 / 12000.0},
    {.from_placement = 5, .to_placement = 6, .from_device = 0, .to_device = 1,
     .bytes = 2097152, .start_us = 3088, .end_us = 3088 + 10 + 2097152 / 12000.0},
};

static hs_schedule *fix_schedule(void)
{
    hs_schedule *s = hs_schedule_new("fixture.yaml", "by-hand");
    hs_error err = {0};
    assert_non_null(s);
    for (int i = 0; i < FIX_NPLACEMENTS; i++)
        assert_int_equal(hs_schedule_add_placement(s, &fix_placements[i], &err), i);
    for (int i = 0; i < FIX_NTRANSFERS; i++)
        assert_int_equal(hs_schedule_add_transfer(s, &fix_transfers[i], &err), i);
    s->makespan_us = 3460.5;
    return s;
}

#endif
