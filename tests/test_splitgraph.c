/* Tests of graph-level splitting (hetsched/split.h: `map|run --split`):
 *   - hand-checked: one splittable kernel on 1 cpu + 1 gpu, split by
 *     `static` and by `fixed` (with and without data), exact fractions,
 *     placements and makespans;
 *   - pinning: each part runs on the device that got its items; the plans
 *     of heft and peft put it there, so their runs are their plans (a
 *     device never idles while a part planned for it waits); cpu-only
 *     --split splits over the CPU devices only;
 *   - seeded random graphs with splittable kernels: every splitter under
 *     every policy gives a schedule the validator accepts (so the parts of a
 *     task have fractions summing to 1), the parts of a task on distinct
 *     devices; ad-part and wavefront options are refused;
 *   - a typed splittable kernel (va) run for real on the cpu and emu
 *     backends, its result checked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/data.h"
#include "exec/engine.h"
#include "hetsched/schedule.h"
#include "mapper/policy.h"
#include "mapper/rank.h"
#include "mapper/split_graph.h"

#define EPS 1e-9

/* cpu0 (host) + gpu0 behind a 10 GB/s, 10 µs link; application a with one
 * kernel k: 1000 items, 1000 µs on the cpu, 250 on the gpu, `bytes` of
 * input and as many of output. */
static hs_workload *one_kernel(double bytes)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a, k;
    assert_non_null(w);
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    assert_true(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    assert_true(hs_platform_add_link(w, "host", "gpu0", 10, 10, &err) >= 0);
    assert_true(hs_platform_add_link(w, "gpu0", "host", 10, 10, &err) >= 0);
    assert_true((a = hs_workload_add_app(w, "a", 1, &err)) >= 0);
    assert_true((k = hs_app_add_kernel(w, a, "k", &err)) >= 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1000, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 250, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, a, k, bytes, bytes, &err), 0);
    assert_int_equal(hs_kernel_set_split(w, a, k, 1, 1000, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* Maps w with policy `pol` and the splitter `sp` (option `o` or NULL);
 * validates the schedule. */
static hs_schedule *map_split(hs_workload *w, const char *pol, const char *sp, const char *o)
{
    hs_split_options so = {0};
    hs_map_options opt = {0};
    hs_schedule *s = NULL;
    hs_error err = {0};
    if (o)
        assert_int_equal(hs_split_option_set(&so, o, &err), 0);
    assert_int_equal(hs_split_graph_new(sp, &so, &opt.split, &err), 0);
    if (hs_map(w, pol, &opt, &s, NULL, &err) != HS_OK)
        fail_msg("%s with %s: %s", pol, sp, err.msg);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s with %s: invalid: %s", pol, sp, err.msg);
    hs_split_graph_free(opt.split);
    return s;
}

/* The placement of part `part` of task 0. */
static const hs_placement *part_of(const hs_schedule *s, int part)
{
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task == 0 && s->placements[i].part == part)
            return &s->placements[i];
    fail_msg("no part %d", part);
    return NULL;
}

/* static: 500 items each, so part 0 (cpu0) has fraction 0.5 and takes
 * 0.5 x 1000 = 500 µs, part 1 (gpu0) 0.5 x 250 = 125 µs, both from 0 (no
 * data): makespan 500. */
static void hand_static(void **state)
{
    hs_workload *w = one_kernel(0);
    hs_schedule *s = map_split(w, "heft", "static", NULL);
    (void)state;
    assert_int_equal(s->nplacements, 2);
    assert_int_equal(part_of(s, 0)->device, 0);
    assert_int_equal(part_of(s, 1)->device, 1);
    assert_true(fabs(part_of(s, 0)->fraction - 0.5) < EPS);
    assert_true(fabs(part_of(s, 0)->end_us - 500) < EPS);
    assert_true(fabs(part_of(s, 1)->end_us - 125) < EPS);
    assert_true(fabs(s->makespan_us - 500) < EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* fixed chunks of 100 items, no data: cpu0 takes 100 µs a chunk (1
 * item/µs), gpu0 25 µs (4 items/µs).  t=0: cpu0 chunk 1, gpu0 chunk 2;
 * gpu0 takes chunks 3, 4, 5 at 25, 50, 75; at 100 both report, cpu0
 * first: cpu0 chunk 6 until 200, gpu0 chunks 7..10 at 100, 125, 150, 175.
 * cpu0 200 items (0.2), gpu0 800 (0.8): parts of 0.2 x 1000 = 200 and
 * 0.8 x 250 = 200 µs, makespan 200. */
static void hand_fixed(void **state)
{
    hs_workload *w = one_kernel(0);
    hs_schedule *s = map_split(w, "h-ratio", "fixed", "chunk=100");
    (void)state;
    assert_true(fabs(part_of(s, 0)->fraction - 0.2) < EPS);
    assert_true(fabs(part_of(s, 1)->fraction - 0.8) < EPS);
    assert_int_equal(part_of(s, 0)->device, 0);
    assert_int_equal(part_of(s, 1)->device, 1);
    assert_true(fabs(s->makespan_us - 200) < EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* fixed chunks of 100 with 1e6 bytes in and out (1000 a item): in the
 * chunk simulator a gpu0 chunk moves 100000 bytes each way, 10 + 100000 /
 * 10000 = 20 µs, and computes 25: 65 µs; a cpu0 chunk 100.  gpu0 ends
 * chunks at 65, 130, 195, 260, 325, 390; cpu0 at 100, 200, 300, 400 (it
 * takes chunks 1, 4, 7, 9 at 0, 100, 200, 300; gpu0 the others, the last
 * at 325).  cpu0 400 items (0.4), gpu0 600 (0.6).  In the graph (delay
 * model): cpu0's part 0.4 x 1000 = 400 µs on host; gpu0's part gets
 * 600000 bytes in 10 + 60 = 70 µs, computes 0.6 x 250 = 150 until 220, and
 * its output is home 70 µs later, at 290.  Makespan 400. */
static void hand_fixed_data(void **state)
{
    hs_workload *w = one_kernel(1e6);
    hs_schedule *s = map_split(w, "heft", "fixed", "chunk=100");
    (void)state;
    assert_true(fabs(part_of(s, 0)->fraction - 0.4) < EPS);
    assert_true(fabs(part_of(s, 1)->start_us - 70) < EPS);
    assert_true(fabs(part_of(s, 1)->end_us - 220) < EPS);
    assert_true(fabs(s->makespan_us - 400) < EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* cpu-only splits over the CPU devices only: on cpu0 + gpu0 the kernel is
 * one part on cpu0, all its 1000 µs.  On a platform without a CPU device
 * nothing is split and cpu-only says why it cannot run. */
static void cpu_only_stays_on_the_cpu(void **state)
{
    hs_workload *w = one_kernel(0), *g = hs_workload_new();
    hs_schedule *s = map_split(w, "cpu-only", "static", NULL), *none = NULL;
    hs_map_options opt = {0};
    hs_error err = {0};
    int a;
    (void)state;
    assert_true(hs_platform_add_device(g, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    assert_true((a = hs_workload_add_app(g, "a", 1, &err)) >= 0);
    assert_true(hs_app_add_kernel(g, a, "k", &err) >= 0);
    assert_int_equal(hs_kernel_set_cost(g, a, 0, "gpu", 250, &err), 0);
    assert_int_equal(hs_kernel_set_split(g, a, 0, 1, 1000, &err), 0);
    assert_int_equal(hs_workload_finalize(g, &err), 0);
    assert_int_equal(hs_split_graph_new("static", NULL, &opt.split, &err), 0);
    assert_int_equal(hs_map(g, "cpu-only", &opt, &none, NULL, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "policy cpu-only needs a CPU device"));
    hs_split_graph_free(opt.split);
    hs_workload_free(g);
    assert_int_equal(s->nplacements, 1);
    assert_int_equal(part_of(s, 0)->device, 0);
    assert_true(fabs(part_of(s, 0)->fraction - 1) < EPS);
    assert_true(fabs(s->makespan_us - 1000) < EPS);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void refusals(void **state)
{
    hs_workload *w = one_kernel(0);
    hs_split_options so = {0};
    hs_map_options opt = {0};
    hs_schedule *s = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_split_graph_new("nope", NULL, &opt.split, &err), HS_EINPUT);
    so.wave_rows = so.wave_cols = 2;
    assert_int_equal(hs_split_graph_new("hdss", &so, &opt.split, &err), HS_EINPUT);
    assert_int_equal(hs_split_graph_new("hdss", NULL, &opt.split, &err), 0);
    assert_int_equal(hs_map(w, "ad-part", &opt, &s, NULL, &err), HS_EINPUT);
    assert_null(hs_split_graph_wrap(opt.split, hs_policy_find("ad-part")));
    hs_split_graph_free(opt.split);
    hs_workload_free(w);
}

/* ------------------------------------------------------------ random graphs */

static unsigned next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

/* cpu0 and 1..2 gpus, every pair of memories linked; one application of
 * n kernels (2 instances), edges from lower to higher index, about a third
 * splittable. */
static hs_workload *random_workload(unsigned seed)
{
    static const char *names[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7",
                                  "k8", "k9", "k10", "k11"};
    static const char *mems[] = {"host", "gpu0", "gpu1"};
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int ngpu = 1 + (int)(next(&seed) % 2), n = 4 + (int)(next(&seed) % 9), a;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err) >= 0);
    for (int g = 0; g < ngpu; g++)
        assert_true(hs_platform_add_device(w, mems[g + 1], HS_DEVICE_GPU, mems[g + 1], 0,
                                           &err) >= 0);
    for (int i = 0; i <= ngpu; i++)
        for (int j = 0; j <= ngpu; j++)
            if (i != j)
                assert_true(hs_platform_add_link(w, mems[i], mems[j], 5 + next(&seed) % 10,
                                                 next(&seed) % 20, &err) >= 0);
    assert_true((a = hs_workload_add_app(w, "r", 2, &err)) >= 0);
    for (int k = 0; k < n; k++) {
        assert_true(hs_app_add_kernel(w, a, names[k], &err) >= 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 10 + next(&seed) % 1000, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 10 + next(&seed) % 300, &err), 0);
        assert_int_equal(hs_kernel_set_bytes(w, a, k, next(&seed) % 2 ? next(&seed) % 100000 : 0,
                                             next(&seed) % 50000, &err),
                         0);
        if (next(&seed) % 3 == 0)
            assert_int_equal(hs_kernel_set_split(w, a, k, 1, 1 + next(&seed) % 3000, &err), 0);
    }
    for (int k = 1; k < n; k++)
        for (int j = 0; j < k; j++)
            if (next(&seed) % 4 == 0)
                assert_true(hs_app_add_edge(w, a, names[j], names[k], next(&seed) % 200000,
                                            &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* The parts of each task sit on distinct devices (one part per device
 * that got items, each pinned to it); returns how many tasks were split. */
static size_t check_parts(const hs_workload *w, const hs_schedule *s)
{
    size_t split = 0;
    for (size_t t = 0; t < w->graph.ntasks; t++) {
        unsigned long seen = 0;
        int parts = 0;
        for (size_t i = 0; i < s->nplacements; i++) {
            const hs_placement *p = &s->placements[i];
            if (p->task != t)
                continue;
            parts = p->nparts;
            assert_false(seen & (1ul << p->device));
            seen |= 1ul << p->device;
        }
        split += parts > 1;
    }
    return split;
}

static void random_graphs(void **state)
{
    const hs_splitter *const *sp = hs_splitter_list();
    const hs_policy *const *pol = hs_policy_list();
    size_t split = 0, maps = 0;
    (void)state;
    for (unsigned g = 0; g < 4; g++) {
        hs_workload *w = random_workload(100 + g);
        for (size_t i = 0; sp[i]; i++)
            for (size_t j = 0; pol[j]; j++) {
                hs_schedule *s;
                if (strcmp(hs_policy_name(pol[j]), "ad-part") == 0)
                    continue;
                s = map_split(w, hs_policy_name(pol[j]), sp[i]->name, NULL);
                split += check_parts(w, s);
                maps++;
                hs_schedule_free(s);
            }
        hs_workload_free(w);
    }
    assert_true(maps > 100);
    assert_true(split > maps); /* several split tasks per map on average */
}

/* The planning policies' plans of the split graph put each part on its
 * pinned device, and the simulated run (delay model, as the plan) follows
 * them: every part and whole task runs where planned and, for the list
 * schedulers, when planned to the µs.  heteroprio's plan is its own
 * simulation, where a spoliated task kept its first device busy until it
 * was taken; the run, which never starts it there, may start later tasks
 * earlier, so only the devices are compared. */
static void plans_know_the_pins(void **state)
{
    static const char *pols[] = {"heft",    "peft",      "heft-wm",   "hoft",
                                 "cpop",    "lookahead", "heteroprio"},
                      *sps[] = {"static", "hdss"};
    const size_t npols = sizeof pols / sizeof pols[0];
    size_t pinned = 0;
    (void)state;
    for (unsigned seed = 0; seed < 6; seed++) {
        hs_workload *w = random_workload(200 + seed);
        for (size_t i = 0; i < npols; i++)
            for (size_t j = 0; j < 2; j++) {
                const hs_policy *inner = hs_policy_find(pols[i]), *wp;
                const int same_times = strcmp(pols[i], "heteroprio") != 0;
                hs_map_options opt = {0};
                hs_graph g = {0};
                hs__plan plan;
                hs_schedule *s = NULL;
                hs_error err = {0};
                const int *pin;
                assert_int_equal(hs_split_graph_new(sps[j], NULL, &opt.split, &err), 0);
                assert_non_null(wp = hs_split_graph_wrap(opt.split, inner));
                if (wp->transform(w, &opt, &g, &err) != 1) { /* nothing splittable */
                    hs_split_graph_free(opt.split);
                    continue;
                }
                assert_non_null(pin = hs__split_graph_pins(&opt, &g));
                assert_int_equal(inner->plan(&g, &w->platform, &opt, &plan, &err), HS_OK);
                for (size_t t = 0; t < g.ntasks; t++)
                    if (pin[t] >= 0) {
                        if (plan.device[t] != pin[t])
                            fail_msg("%s: part %zu pinned to %d planned on %d", pols[i], t,
                                     pin[t], plan.device[t]);
                        pinned++;
                    }
                if (hs_map(w, pols[i], &opt, &s, NULL, &err) != HS_OK)
                    fail_msg("%s: %s", pols[i], err.msg);
                for (size_t k = 0; k < s->nplacements; k++) {
                    const hs_placement *p = &s->placements[k];
                    size_t t = 0;
                    while (t < g.ntasks &&
                           (g.tasks[t].origin != p->task || g.tasks[t].part != p->part))
                        t++;
                    assert_true(t < g.ntasks);
                    if (p->device != plan.device[t] ||
                        (same_times && (fabs(p->start_us - plan.start[t]) > 1e-6 ||
                                        fabs(p->end_us - plan.end[t]) > 1e-6)))
                        fail_msg("%s, seed %u: task %zu ran on %d at %.6f-%.6f, planned on %d "
                                 "at %.6f-%.6f", pols[i], seed, t, p->device, p->start_us,
                                 p->end_us, plan.device[t], plan.start[t], plan.end[t]);
                }
                hs_schedule_free(s);
                hs__plan_free(&plan);
                hs_graph_free(&g);
                hs_split_graph_free(opt.split);
            }
        hs_workload_free(w);
    }
    assert_true(pinned > 20);
}

/* ---------------------------------------------------------- real backends */

/* A typed va of n = 100000 floats, splittable, on cpu0 + cpu1 (cpu
 * backend) or cpu0 + gpu0 (emu). */
static hs_workload *typed_va(int gpu)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a, k;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    if (gpu) {
        assert_true(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
        assert_true(hs_platform_add_link(w, "host", "gpu0", 10, 5, &err) >= 0);
        assert_true(hs_platform_add_link(w, "gpu0", "host", 10, 5, &err) >= 0);
    } else {
        assert_true(hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    }
    assert_true((a = hs_workload_add_app(w, "v", 1, &err)) >= 0);
    assert_true((k = hs_app_add_kernel(w, a, "va", &err)) >= 0);
    assert_int_equal(hs_kernel_set_type(w, a, k, "va", &err), 0);
    assert_int_equal(hs_kernel_add_param(w, a, k, "n", 100000, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 300, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 100, &err), 0);
    assert_int_equal(hs_kernel_set_split(w, a, k, 1, 100000, &err), 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

static void run_typed(void **state)
{
    (void)state;
    for (int gpu = 0; gpu < 2; gpu++) {
        hs_workload *w = typed_va(gpu);
        hs_backend b = {.ops = gpu ? &hs_backend_emu : &hs_backend_cpu};
        hs_run_report r = {0};
        hs_map_options opt = {0};
        hs_schedule *s = NULL;
        hs_error err = {0};
        const hs_policy *p;
        b.state = &r;
        assert_int_equal(hs_split_graph_new("hdss", NULL, &opt.split, &err), 0);
        assert_non_null(p = hs_split_graph_wrap(opt.split, hs_policy_find("heft")));
        if (hs_engine_run(w, p, &opt, &b, &s, NULL, &err) != HS_OK)
            fail_msg("%s: %s", gpu ? "emu" : "cpu", err.msg);
        assert_int_equal(r.typed, 1);
        assert_int_equal(r.checked, 1);
        assert_int_equal(s->nplacements, 2); /* both devices got items */
        assert_int_equal(check_parts(w, s), 1);
        hs_run_report_free(&r);
        hs_schedule_free(s);
        hs_split_graph_free(opt.split);
        hs_workload_free(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_static),
        cmocka_unit_test(hand_fixed),
        cmocka_unit_test(hand_fixed_data),
        cmocka_unit_test(cpu_only_stays_on_the_cpu),
        cmocka_unit_test(plans_know_the_pins),
        cmocka_unit_test(refusals),
        cmocka_unit_test(random_graphs),
        cmocka_unit_test(run_typed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
