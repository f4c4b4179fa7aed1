/* What tests/test_data.c and tests/test_run_cuda.c share: the "join" and
 * "mixed" applications (on tests/workload_fixture.h's platforms), a run with a device memory cap, and
 * the comparison of a run's outputs with a reference run's.  Include after
 * cmocka.h. */
#ifndef HS_TESTS_DATA_FIXTURE_H
#define HS_TESTS_DATA_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "exec/engine.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"
#include "mapper/split_graph.h"
#include "tests/workload_fixture.h"

/* ---------------------------------------------------------------- helpers */

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

/* mixed_apps with the chain's kernels as fast on either device (cpu0 30
 * us, gpu0 20 us, by name over the kinds' costs), so that ad-part finds
 * splitting them worth it. */
static inline void mixed_apps_even(hs_workload *w)
{
    hs_error err = {0};
    mixed_apps(w);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu0", 30, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu0", 20, &err), 0);
    }
}

/* No placement in s of a potrf kernel of w is a part: potrf cannot be cut
 * by items, so ad-part leaves it whole. */
static inline void potrf_whole(const hs_workload *w, const hs_schedule *s)
{
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_task *t = &w->graph.tasks[s->placements[i].task];
        const char *type = w->apps[t->app].kernels[t->kernel].type;
        if (type && strcmp(type, "potrf") == 0)
            assert_int_equal(s->placements[i].nparts, 1);
    }
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
    r->check = HS_CHECK_FULL;
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

/* ------------------------------------------- one splittable kernel */

/* One application "s" with one splittable typed kernel k (one or two
 * params; items = the type's items, given by the caller), 300 µs on a cpu,
 * 100 on a gpu, so splitters give the gpu the larger share. */
static inline void split_kernel(hs_workload *w, const char *type, const char *p1, double v1,
                                const char *p2, double v2, double items)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "s", 1, &err);
    assert_true(a >= 0);
    kernel(w, a, "k", type, p1, v1, p2, v2, 300, 100);
    assert_int_equal(hs_kernel_set_split(w, a, 0, 1, items, &err), 0);
}

/* va on n = 100000 floats: a, b read, c written, 4 bytes each per item. */
static inline void split_va(hs_workload *w)
{
    split_kernel(w, "va", "n", 100000, NULL, 0, 100000);
}

/* increment on n = 100000 floats: a updated in place (HS_KRW), 4 bytes per
 * item. */
static inline void split_inc(hs_workload *w)
{
    split_kernel(w, "increment", "n", 100000, NULL, 0, 100000);
}

/* gemm 64 x 64 x 64 with beta 1: items are the 64 rows; a (256 bytes per
 * row) read, b (16384 bytes) read whole by every range, c (256 bytes per
 * row) updated in place. */
static inline void split_gemm(hs_workload *w)
{
    split_kernel(w, "gemm", "n", 64, "beta", 1, 64);
}

/* Runs w on `ops` split by `how`: "ad-part" (threshold 1 µs, so its one
 * kernel is split), else the splitter of that name under heft, with
 * device memory `devmem` (0: default).  Returns
 * the status; *s gets the schedule. */
static inline int run_split(hs_workload *w, const char *how, const hs_backend_ops *ops,
                            size_t devmem, hs_run_report *r, hs_schedule **s, hs_error *err)
{
    hs_backend b = {.ops = ops, .state = r};
    hs_map_options opt = {0};
    const hs_policy *p;
    int rc;
    memset(r, 0, sizeof *r);
    r->device_memory = devmem;
    r->check = HS_CHECK_FULL;
    *s = NULL;
    if (strcmp(how, "ad-part") == 0) {
        opt.split_threshold_us = 1;
        return hs_engine_run(w, hs_policy_find("ad-part"), &opt, &b, s, NULL, err);
    }
    assert_int_equal(hs_split_graph_new(how, NULL, &opt.split, err), 0);
    assert_int_equal(hs__policy_resolve("heft", &opt, &p, err), 0);
    rc = hs_engine_run(w, p, &opt, &b, s, NULL, err);
    hs_split_graph_free(opt.split);
    return rc;
}

/* Items [*b, *e) of task 0's part on device `dev` in schedule s, by the
 * rule of exec/data.c's part_ranges: part k of `items` starts at
 * round(items x the fractions of parts 0..k-1).  0 when dev got no part. */
static inline int part_on(const hs_schedule *s, int dev, size_t items, size_t *b, size_t *e)
{
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        double lo = 0;
        if (p->task != 0 || p->device != dev || p->nparts < 2)
            continue;
        for (size_t j = 0; j < s->nplacements; j++)
            if (s->placements[j].task == 0 && s->placements[j].part < p->part)
                lo += s->placements[j].fraction;
        *b = (size_t)floor((double)items * lo + 0.5);
        *e = p->part == p->nparts - 1 ? items
                                      : (size_t)floor((double)items * (lo + p->fraction) + 0.5);
        return 1;
    }
    return 0;
}

/* The copies of a split run on cpu0 + gpu0 (memories host = 0, gpu0 = 1)
 * whose one kernel got gpu0 part [b, e): host -> gpu0 carries in_item
 * bytes per item plus in_whole, in `nin` copies; gpu0 -> host out_item
 * bytes per item in `nout` copies; nothing else moves (the inputs are
 * generated on host and the result is assembled there). */
static inline void part_copies_are(const hs_run_report *r, size_t b, size_t e, double in_item,
                                   double in_whole, size_t nin, double out_item, size_t nout)
{
    assert_int_equal(r->nmemories, 2);
    assert_true(r->link_bytes[0 * 2 + 1] == in_item * (double)(e - b) + in_whole);
    assert_int_equal(r->link_copies[0 * 2 + 1], nin);
    assert_true(r->link_bytes[1 * 2 + 0] == out_item * (double)(e - b));
    assert_int_equal(r->link_copies[1 * 2 + 0], nout);
}

/* The bytes a part of each splittable kernel of tests/data_fixture.h
 * moves per item and whole (hs_ktype.whole_bufs), in how many copies. */
typedef struct split_case {
    const char *name;
    void (*app)(hs_workload *);
    size_t items;
    double in_item, in_whole;
    size_t nin;
    double out_item;
    size_t nout;
    int exact; /* elementwise: byte-identical to the cpu backend's whole run */
} split_case;

static const split_case split_cases[] = {
    /* va: a and b read (2 copies, 4 + 4 bytes an item), c written (1 copy) */
    {"va", split_va, 100000, 8, 0, 2, 4, 1, 1},
    /* increment: a read and written back in place, 4 bytes an item each way */
    {"increment", split_inc, 100000, 4, 0, 1, 4, 1, 1},
    /* gemm, beta 1: a and c read (256 + 256 bytes a row), b whole (64 x 64 x
     * 4 = 16384 bytes), 3 copies in; c's rows written back, 1 copy */
    {"gemm", split_gemm, 64, 512, 16384, 3, 256, 1, 0},
};

/* Runs sc's kernel (w: cpu0 + gpu0) split by `how` on `ops` and checks
 * what every backend must give: its one typed kernel checked, gpu0's part
 * [*b, *e) non-empty with exactly its spans on the links, and for an
 * elementwise kernel the bytes of ref.  The caller frees *r and *s. */
static inline void split_part_run(hs_workload *w, const split_case *sc, const char *how,
                                  const hs_backend_ops *ops, const hs_run_report *ref,
                                  hs_run_report *r, hs_schedule **s, size_t *b, size_t *e)
{
    hs_error err = {0};
    if (run_split(w, how, ops, 0, r, s, &err) != 0)
        fail_msg("%s, %s: %s", sc->name, how, err.msg);
    assert_int_equal(r->typed, 1);
    assert_int_equal(r->checked, 1);
    assert_true(part_on(*s, 1, sc->items, b, e) && *e > *b);
    part_copies_are(r, *b, *e, sc->in_item, sc->in_whole, sc->nin, sc->out_item, sc->nout);
    if (sc->exact)
        same_outputs(r, ref);
}

#endif
