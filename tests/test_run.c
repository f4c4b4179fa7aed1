/* Tests of the real backends cpu and emu (exec/data.h): every policy runs
 * small typed workloads for real; kernels' checks pass; the schedules are
 * structurally sound (one task at a time per device, dependencies respected:
 * measured durations differ from the model's costs, so hs_schedule_validate's
 * timing against the model is not asked for); outputs are byte-identical to a
 * serial reference written here from the rule of exec/data.h; copies and
 * replica counts on hand-checked cases. */
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
#include "exec/mpi.h"
#include "hetsched/hetsched.h"
#include "mapper/policy.h"
#include "mapper/split.h"
#include "tests/workload_fixture.h"
#include "workloads/kernels/kernel.h"

/* ---------------------------------------------------------------- helpers */

/* Application "chain" (`instances` times): va -> scale -> increment on n =
 * 1000 floats (4000-byte results, so each edge feeds the next kernel's
 * first buffer).  Costs cpu/gpu: va 10/1000, scale 1000/10, increment 10/1000,
 * so HEFT puts va and increment on cpu0 and scale on the gpu. */
static void chain_app(hs_workload *w, int instances)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "chain", instances, &err);
    assert_true(a >= 0);
    kernel(w, a, "va", "va", "n", 1000, NULL, 0, 10, 1000);
    kernel(w, a, "scale", "scale", "n", 1000, "s", -2.5, 1000, 10);
    kernel(w, a, "inc", "increment", "n", 1000, NULL, 0, 10, 1000);
    assert_true(hs_app_add_edge(w, a, "va", "scale", 4000, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "scale", "inc", 4000, &err) >= 0);
}

/* A 2 x 2 tiled Cholesky of 8 x 8 tiles: potrf(A00) -> trsm (L00 feeds l)
 * -> syrk (the solved tile feeds a) -> potrf(A11).  The last edge carries 0
 * bytes, an ordering only: generated tiles are not a whole SPD matrix, so
 * C - A A^T need not be positive definite. */
static void cholesky_app(hs_workload *w)
{
    hs_error err = {0};
    int a = hs_workload_add_app(w, "chol", 1, &err);
    assert_true(a >= 0);
    kernel(w, a, "potrf0", "potrf", "n", 8, NULL, 0, 30, 20);
    kernel(w, a, "trsm", "trsm", "n", 8, "m", 8, 30, 20);
    kernel(w, a, "syrk", "syrk", "n", 8, "k", 8, 30, 20);
    kernel(w, a, "potrf1", "potrf", "n", 8, NULL, 0, 30, 20);
    assert_true(hs_app_add_edge(w, a, "potrf0", "trsm", 256, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "trsm", "syrk", 256, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "syrk", "potrf1", 0, &err) >= 0);
}

static hs_workload *finalize(hs_workload *w)
{
    hs_error err = {0};
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    return w;
}

/* The mixed workload: two chains and the Cholesky. */
static hs_workload *mixed(int pf)
{
    hs_workload *w = hs_workload_new();
    platform(w, pf);
    chain_app(w, 2);
    cholesky_app(w);
    return finalize(w);
}

/* Runs policy `pol` on backend ops with checks `mode` and budget (0: the
 * default); returns the status, fills *s and *r. */
static int run_checked(hs_workload *w, const char *pol, const hs_backend_ops *ops,
                       hs_check_mode mode, size_t budget, hs_schedule **s, hs_run_report *r,
                       hs_error *err)
{
    hs_backend b = {.ops = ops, .state = r};
    hs_map_options opt = {0};
    memset(r, 0, sizeof *r);
    r->check = mode;
    r->check_budget = budget;
    *s = NULL;
    return hs_engine_run(w, hs_policy_find(pol), &opt, &b, s, NULL, err);
}

/* Runs policy `pol` on backend ops, checking every kernel. */
static int run(hs_workload *w, const char *pol, const hs_backend_ops *ops, hs_schedule **s,
               hs_run_report *r, hs_error *err)
{
    return run_checked(w, pol, ops, HS_CHECK_FULL, 0, s, r, err);
}

/* The structural half of hs_schedule_validate: every task placed (whole,
 * or parts whose fractions sum to 1), start <= end; placements on one device
 * do not overlap; every placement of a task starts after every placement of
 * each predecessor ends. */
static void check_structure(const hs_workload *w, const hs_schedule *s)
{
    const hs_graph *g = &w->graph;
    double *sum = calloc(g->ntasks, sizeof *sum);
    assert_non_null(sum);
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        assert_true(p->task < g->ntasks);
        assert_true(p->start_us <= p->end_us);
        sum[p->task] += p->fraction;
        for (size_t j = 0; j < s->nplacements; j++) {
            const hs_placement *q = &s->placements[j];
            if (j != i && q->device == p->device)
                assert_true(p->end_us <= q->start_us || q->end_us <= p->start_us);
            for (size_t e = 0; e < g->nedges; e++)
                if (g->edges[e].from == q->task && g->edges[e].to == p->task)
                    assert_true(p->start_us >= q->end_us);
        }
    }
    for (size_t t = 0; t < g->ntasks; t++)
        assert_true(fabs(sum[t] - 1.0) < 1e-9);
    free(sum);
}

/* Copies the result of typed task `from` (res, rsize) into buffer i of c:
 * the rule of exec/data.h lets an edge feed only a buffer of the result's
 * size. */
static void feed(const hs_kconf *c, void **bufs, int i, void **res, const size_t *rsize,
                 size_t from)
{
    assert_non_null(res[from]);
    assert_int_equal(rsize[from], c->bufs[i].bytes);
    memcpy(bufs[i], res[from], rsize[from]);
}

/* The serial reference: every typed task in index order (the graph's
 * instances are built in topological order within an application), buffers
 * from the generator with seed task + 1, fed by the rule of exec/data.h as
 * the workload writes it (not the bindings finalize resolved): an edge
 * naming a buffer feeds it, `none` and edges of 0 bytes only order, and the
 * other edges feed, in declaration order, the readable buffers no edge
 * names; returns the results (NULL for untyped tasks), which the caller
 * frees. */
static void **reference(const hs_workload *w)
{
    const hs_graph *g = &w->graph;
    hs_kconf *c = calloc(g->ntasks, sizeof *c);
    void **res = calloc(g->ntasks, sizeof *res);
    size_t *rsize = calloc(g->ntasks, sizeof *rsize);
    hs_error err = {0};
    assert_true(c && res && rsize);
    for (size_t t = 0; t < g->ntasks; t++) {
        const hs_kernel *k = &w->apps[g->tasks[t].app].kernels[g->tasks[t].kernel];
        void *bufs[HS_KMAX_BUFS] = {0};
        int rb = 0, result = -1, named[HS_KMAX_BUFS] = {0};
        const hs_edge *ed;
        if (!k->type)
            continue;
        assert_int_equal(hs_kconf_init(&c[t], k->type, k->params, k->nparams, &err), 0);
        c[t].seed = t + 1;
        for (int i = 0; i < c[t].nbufs; i++) {
            bufs[i] = calloc(1, c[t].bufs[i].bytes);
            if (c[t].bufs[i].mode & HS_KWRITE)
                result = i;
        }
        hs_kfill(&c[t], bufs);
        HS_GRAPH_PRED_FOREACH(g, t, ed)
        {
            const char *name = hs_edge_origin(w, g, ed)->buffer;
            for (int i = 0; name && i < c[t].nbufs; i++)
                if (strcmp(c[t].bufs[i].name, name) == 0) {
                    feed(&c[t], bufs, i, res, rsize, ed->from);
                    named[i] = 1;
                }
        }
        HS_GRAPH_PRED_FOREACH(g, t, ed)
        {
            if (ed->bytes <= 0 || hs_edge_origin(w, g, ed)->buffer)
                continue;
            while (rb < c[t].nbufs && (!(c[t].bufs[rb].mode & HS_KREAD) || named[rb]))
                rb++;
            assert_true(rb < c[t].nbufs);
            feed(&c[t], bufs, rb++, res, rsize, ed->from);
        }
        assert_int_equal(hs_krun_cpu(&c[t], bufs, 0, c[t].items, 1, &err), 0);
        for (int i = 0; i < c[t].nbufs; i++)
            if (i != result)
                free(bufs[i]);
        res[t] = bufs[result];
        rsize[t] = c[t].bufs[result].bytes;
    }
    free(c);
    free(rsize);
    return res;
}

static void free_results(const hs_workload *w, void **res)
{
    for (size_t t = 0; t < w->graph.ntasks; t++)
        free(res[t]);
    free(res);
}

/* An output's hash: FNV-1a over the hashes of its pieces. */
static uint64_t output_hash(const unsigned char *p, size_t bytes)
{
    uint64_t h = HS__FNV_BASIS;
    for (size_t at = 0; at < bytes; at += HS__PIECE) {
        uint64_t piece = hs__piece_hash(p + at, bytes - at < HS__PIECE ? bytes - at : HS__PIECE);
        h = hs__fnv(h, &piece, sizeof piece);
    }
    return h;
}

/* Every output is the reference's result of a typed sink, byte for byte,
 * with the hash of its bytes, and every typed sink has one. */
static void check_outputs(const hs_workload *w, const hs_run_report *r, void **ref)
{
    const hs_graph *g = &w->graph;
    size_t sinks = 0;
    for (size_t t = 0; t < g->ntasks; t++)
        sinks += ref[t] && g->succ_off[t + 1] == g->succ_off[t];
    assert_int_equal(r->noutputs, sinks);
    for (size_t i = 0; i < r->noutputs; i++) {
        assert_non_null(ref[r->outputs[i].task]);
        assert_memory_equal(r->outputs[i].data, ref[r->outputs[i].task], r->outputs[i].bytes);
        assert_true(r->outputs[i].hash == output_hash(r->outputs[i].data, r->outputs[i].bytes));
    }
    /* every replica but the outputs on host was freed */
    assert_int_equal(r->replicas_allocated - r->replicas_freed, r->noutputs);
}

/* ------------------------------------------------------------------ tests */

/* Every policy on cpu (two cpu devices) and on emu (cpu0 + two gpus): all 10
 * kernels (2 x 3 chain + 4 Cholesky) checked, structure sound, outputs equal
 * to the serial reference (the two platforms give the same task indices, so
 * the same reference), and the cpu run moves no bytes.  On the two cpus
 * ad-part splits the chains' scale (fastest cost 1000 us, above the mean
 * fastest cost (2 x (10 + 1000 + 10) + 4 x 30) / 10 = 216 us), so parts of a
 * split typed kernel run too. */
static void every_policy_cpu_and_emu(void **state)
{
    hs_workload *wc = mixed(PF_CPU), *we = mixed(PF_CPU_GPU2);
    void **ref = reference(wc);
    const hs_policy *const *pol = hs_policy_list();
    int nsplit = 0;
    (void)state;
    for (size_t i = 0; pol[i]; i++) {
        const char *name = hs_policy_name(pol[i]);
        for (int k = 0; k < 2; k++) {
            hs_workload *w = k ? we : wc;
            hs_schedule *s;
            hs_run_report r;
            hs_error err = {0};
            int rc = run(w, name, k ? &hs_backend_emu : &hs_backend_cpu, &s, &r, &err);
            if (rc != 0)
                fail_msg("%s on %s: %s", name, k ? "emu" : "cpu", err.msg);
            nsplit += s->nplacements > w->graph.ntasks;
            assert_int_equal(hs_run_measured_schedule(w, k ? "emu" : "cpu", &r, s, &err), 0);
            if (hs_schedule_validate(w, s, &err) != HS_OK) /* the measured rules */
                fail_msg("%s on %s: measured schedule: %s", name, k ? "emu" : "cpu", err.msg);
            assert_int_equal(r.typed, 10);
            assert_int_equal(r.checked, 10);
            check_structure(w, s);
            check_outputs(w, &r, ref);
            if (!k)
                for (int m = 0; m < r.nmemories * r.nmemories; m++)
                    assert_int_equal(r.link_copies[m], 0);
            hs_schedule_free(s);
            hs_run_report_free(&r);
        }
    }
    assert_true(nsplit > 0); /* ad-part split a kernel: parts ran too */
    free_results(wc, ref);
    hs_workload_free(wc);
    hs_workload_free(we);
}

/* One chain on a lone gpu0 under emu: va's inputs are generated on host and
 * copied to gpu0 (a and b, 4000 bytes each), and results are passed on in
 * gpu0's memory, so the only other copy is the output, increment's 4000
 * bytes, gpu0 -> host.  Replicas: va's, scale's and increment's results
 * on gpu0 plus increment's host copy = 4 allocated; 3 freed (va's after
 * scale took it, scale's after increment did, increment's after going to
 * host). */
static void emu_lone_gpu_copies_only_the_output(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    void **ref;
    (void)state;
    platform(w, PF_GPU);
    chain_app(w, 1);
    finalize(w);
    ref = reference(w);
    assert_int_equal(run(w, "eager", &hs_backend_emu, &s, &r, &err), 0);
    assert_int_equal(r.nmemories, 2);
    assert_int_equal(r.link_copies[0 * 2 + 1], 2);
    assert_true(r.link_bytes[0 * 2 + 1] == 8000.0);
    assert_int_equal(r.link_copies[1 * 2 + 0], 1);
    assert_true(r.link_bytes[1 * 2 + 0] == 4000.0);
    assert_int_equal(r.replicas_allocated, 4);
    assert_int_equal(r.replicas_freed, 3);
    check_outputs(w, &r, ref);
    check_structure(w, s);
    free_results(w, ref);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* cpu0 + gpu0, HEFT: va and increment are 100x cheaper on cpu0, scale on
 * gpu0 (costs of chain_app; a 4000-byte move costs 5 + 0.4 us), so va runs on
 * cpu0, scale on gpu0, increment on cpu0.  Copies: va's result host -> gpu0
 * and scale's gpu0 -> host, 4000 bytes each.  Replicas: va's (host, gpu0),
 * scale's (gpu0, host), increment's (host) = 5 allocated, 4 freed. */
static void emu_heft_copies_both_ways(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    void **ref;
    (void)state;
    platform(w, PF_CPU_GPU);
    chain_app(w, 1);
    finalize(w);
    ref = reference(w);
    assert_int_equal(run(w, "heft", &hs_backend_emu, &s, &r, &err), 0);
    for (size_t i = 0; i < s->nplacements; i++)
        assert_int_equal(s->placements[i].device, s->placements[i].task == 1 ? 1 : 0);
    assert_int_equal(r.link_copies[0 * 2 + 1], 1);
    assert_int_equal(r.link_copies[1 * 2 + 0], 1);
    assert_true(r.link_bytes[0 * 2 + 1] == 4000.0 && r.link_bytes[1 * 2 + 0] == 4000.0);
    assert_int_equal(r.replicas_allocated, 5);
    assert_int_equal(r.replicas_freed, 4);
    check_outputs(w, &r, ref);
    /* measured: the two copies are the schedule's transfers, each after its
     * producer's kernel and before its consumer's */
    assert_int_equal(hs_run_measured_schedule(w, "emu", &r, s, &err), 0);
    assert_string_equal(s->model, "measured");
    assert_int_equal(s->ntransfers, 2);
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        const hs_placement *from = &s->placements[t->from_placement];
        const hs_placement *to = &s->placements[t->to_placement];
        assert_true(t->from_placement != HS_NONE && t->to_placement != HS_NONE);
        assert_int_equal(to->task, from->task + 1);
        assert_int_equal(t->from_device, from->device);
        assert_int_equal(t->to_device, to->device);
        assert_true(t->bytes == 4000.0);
        assert_true(from->end_us <= t->start_us && t->start_us <= t->end_us &&
                    t->end_us <= to->start_us);
        assert_true(t->end_us <= s->makespan_us);
    }
    free_results(w, ref);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* An input's last reader updates its replica in place instead of a private
 * copy (exec/data.c takes_over), outputs byte-exact all the same:
 *   - va -> inc -> inc2 on cpu0 + gpu0 (emu, heft, no checks; costs put va
 *     and inc2 on cpu0, inc on gpu0): inc updates va's result once copied
 *     to gpu0, inc2 inc's once copied back to host: 2 in place;
 *   - the same with every kernel checked (the checks keep the inputs): 0;
 *   - a fork on one cpu device (cpu backend: one task at a time): va feeds
 *     inc_a and inc_b, each of which updates it: the first copies, the
 *     second, its last reader, updates it: 1. */
static void last_reader_updates_in_place(void **state)
{
    hs_workload *w = hs_workload_new(), *f = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    void **ref;
    int a;
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "chain", 1, &err);
    assert_true(a >= 0);
    kernel(w, a, "va", "va", "n", 1000, NULL, 0, 10, 1000);
    kernel(w, a, "inc", "increment", "n", 1000, NULL, 0, 1000, 10);
    kernel(w, a, "inc2", "increment", "n", 1000, NULL, 0, 10, 1000);
    assert_true(hs_app_add_edge(w, a, "va", "inc", 4000, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "inc", "inc2", 4000, &err) >= 0);
    finalize(w);
    ref = reference(w);
    for (int full = 0; full < 2; full++) {
        assert_int_equal(run_checked(w, "heft", &hs_backend_emu,
                                     full ? HS_CHECK_FULL : HS_CHECK_NONE, 0, &s, &r, &err),
                         0);
        for (size_t i = 0; i < s->nplacements; i++)
            assert_int_equal(s->placements[i].device, s->placements[i].task == 1 ? 1 : 0);
        assert_int_equal(r.in_place, full ? 0 : 2);
        check_outputs(w, &r, ref);
        hs_schedule_free(s);
        hs_run_report_free(&r);
    }
    free_results(w, ref);
    hs_workload_free(w);

    assert_true(hs_platform_add_device(f, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    a = hs_workload_add_app(f, "fork", 1, &err);
    assert_true(a >= 0);
    kernel(f, a, "va", "va", "n", 1000, NULL, 0, 10, 1000);
    kernel(f, a, "inc_a", "increment", "n", 1000, NULL, 0, 10, 1000);
    kernel(f, a, "inc_b", "increment", "n", 1000, NULL, 0, 10, 1000);
    assert_true(hs_app_add_edge(f, a, "va", "inc_a", 4000, &err) >= 0);
    assert_true(hs_app_add_edge(f, a, "va", "inc_b", 4000, &err) >= 0);
    finalize(f);
    ref = reference(f);
    assert_int_equal(run_checked(f, "eager", &hs_backend_cpu, HS_CHECK_NONE, 0, &s, &r, &err),
                     0);
    assert_int_equal(r.in_place, 1);
    check_outputs(f, &r, ref);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    free_results(f, ref);
    hs_workload_free(f);
}

/* Adds 1 to the first float of every increment result. */
static void corrupt_increment(const hs_kconf *c, void *const *bufs)
{
    if (strcmp(c->type->name, "increment") == 0)
        ((float *)bufs[0])[0] += 1.0f;
}

/* A checked kernel that updates its generated input on host updates that
 * very buffer (no copy of it on the worker's path: the check makes the
 * input again from its seed), and the check still catches a wrong result:
 * one increment on cpu0, every kernel checked. */
static void checked_in_place_input_is_made_again(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a;
    (void)state;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    a = hs_workload_add_app(w, "one", 1, &err);
    assert_true(a >= 0);
    kernel(w, a, "inc", "increment", "n", 1000, NULL, 0, 10, 1000);
    finalize(w);
    for (int corrupt = 0; corrupt < 2; corrupt++) {
        hs_schedule *s;
        hs_run_report r;
        int rc;
        hs__data_test_hook = corrupt ? corrupt_increment : NULL;
        rc = run_checked(w, "eager", &hs_backend_cpu, HS_CHECK_FULL, 0, &s, &r, &err);
        if (corrupt) {
            assert_int_equal(rc, HS_ECHECK);
            assert_non_null(strstr(err.msg, "one#0/inc (increment)"));
        } else {
            assert_int_equal(rc, 0);
            assert_int_equal(r.checked, 1);
            hs_schedule_free(s);
        }
        for (size_t k = 0; k < r.ncopies; k++)
            assert_true(r.copies[k].kind != HS_COPY_INPUT && r.copies[k].kind != HS_COPY_PRIVATE);
        hs_run_report_free(&r);
    }
    hs__data_test_hook = NULL;
    hs_workload_free(w);
}

/* Adds 1 to the first float of the first increment result of the run only. */
static int increments_seen;
static void corrupt_first_increment(const hs_kconf *c, void *const *bufs)
{
    if (strcmp(c->type->name, "increment") == 0 && increments_seen++ == 0)
        ((float *)bufs[0])[0] += 1.0f;
}

/* A chain of `links` increments on cpu0 (inc0 reads its generated input,
 * inc1 ... update the one before's result in place), finalized. */
static hs_workload *increment_chain(int links)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    char name[16], prev[16];
    int a;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    a = hs_workload_add_app(w, "chain", 1, &err);
    assert_true(a >= 0);
    for (int k = 0; k < links; k++) {
        snprintf(name, sizeof name, "inc%d", k);
        kernel(w, a, name, "increment", "n", 1000, NULL, 0, 10, 1000);
        if (k > 0)
            assert_true(hs_app_add_edge(w, a, prev, name, 4000, &err) >= 0);
        snprintf(prev, sizeof prev, "%s", name);
    }
    finalize(w);
    return w;
}

/* Sample mode on an in-place chain checks its last link, whose input the
 * check makes again from the chain's first input: every link updates the
 * one before's result in place, no private copy is made on the worker's
 * path, and a wrong first link is still caught (by the last link's check).
 * A chain longer than the 8 links a check makes again checks the ninth and
 * copies once, for the tenth; full mode checks every link and copies each. */
static void sampled_chain_checks_its_last_link(void **state)
{
    static const struct {
        int links;
        hs_check_mode mode;
        size_t checked, in_place, private_copies;
        const char *caught;
    } cases[] = {{4, HS_CHECK_SAMPLE, 1, 3, 0, "chain#0/inc3 (increment)"},
                 {2, HS_CHECK_SAMPLE, 1, 1, 0, "chain#0/inc1 (increment)"},
                 {10, HS_CHECK_SAMPLE, 1, 8, 1, "chain#0/inc8 (increment)"},
                 {4, HS_CHECK_FULL, 4, 0, 3, "chain#0/inc0 (increment)"}};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hs_workload *w = increment_chain(cases[i].links);
        void **ref = reference(w);
        for (int corrupt = 0; corrupt < 2; corrupt++) {
            hs_schedule *s;
            hs_run_report r;
            hs_error err = {0};
            size_t private_copies = 0;
            int rc;
            increments_seen = 0;
            hs__data_test_hook = corrupt ? corrupt_first_increment : NULL;
            rc = run_checked(w, "eager", &hs_backend_cpu, cases[i].mode, 0, &s, &r, &err);
            for (size_t k = 0; k < r.ncopies; k++)
                private_copies += r.copies[k].kind == HS_COPY_PRIVATE;
            if (corrupt) {
                assert_int_equal(rc, HS_ECHECK);
                if (!strstr(err.msg, cases[i].caught))
                    fail_msg("case %zu: %s", i, err.msg);
            } else {
                assert_int_equal(rc, 0);
                assert_int_equal(r.checked, cases[i].checked);
                check_outputs(w, &r, ref);
                hs_schedule_free(s);
            }
            assert_int_equal(r.in_place, cases[i].in_place);
            assert_int_equal(private_copies, cases[i].private_copies);
            hs_run_report_free(&r);
        }
        hs__data_test_hook = NULL;
        free_results(w, ref);
        hs_workload_free(w);
    }
}

/* gpu0 alone on emu, heft: two independent va kernels, both committed to
 * gpu0 at once, so the worker launches the first and prefetches the second.
 * Emu copies when they are issued: each input copy of the first kernel must
 * come before any of the second's (prefetching the second's first made the
 * first wait for both on a real GPU).  2 input copies per kernel. */
static void emu_next_inputs_after_the_running_ones(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    double first_end = 0, second_start = 1e300;
    size_t first = 0, n[2] = {0, 0};
    int a;
    (void)state;
    platform(w, PF_GPU);
    a = hs_workload_add_app(w, "pair", 2, &err);
    assert_true(a >= 0);
    kernel(w, a, "va", "va", "n", 100000, NULL, 0, 1000, 10);
    finalize(w);
    assert_int_equal(run(w, "heft", &hs_backend_emu, &s, &r, &err), 0);
    assert_int_equal(hs_run_measured_schedule(w, "emu", &r, s, &err), 0);
    assert_int_equal(s->nplacements, 2);
    if (s->placements[1].start_us < s->placements[0].start_us)
        first = 1;
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        int is_first = (size_t)t->to_placement == first;
        if (t->to_placement == HS_NONE)
            continue; /* a result going back to host */
        n[is_first]++;
        if (is_first && t->start_us > first_end)
            first_end = t->start_us;
        if (!is_first && t->start_us < second_start)
            second_start = t->start_us;
    }
    assert_int_equal(n[0], 2);
    assert_int_equal(n[1], 2);
    assert_true(first_end <= second_start);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* Edges that name their buffers (exec/data.h), on emu (cpu0 + gpu0) under
 * every policy: into ax (axpy, ratio 1: y = (num / den) x + y) pq's dot
 * feeds den and rr's num; u's sum feeds y, a buffer after the first, while
 * v's, declared after it without a name, feeds x (the first readable buffer
 * no edge names); t's edge only orders.  The one output, ax's y, is
 * computed here by hand from that rule: each producer on its generated
 * inputs (seed = task index + 1), then axpy on x = v, y = u, num = rr, den
 * = pq; the run gives it byte for byte (and it is not ax on generated
 * inputs alone). */
static void explicit_binding_feeds_a_later_buffer(void **state)
{
    enum { U, V, T, PQ, RR, AX, N };
    static const struct {
        int from;
        double bytes;
        const char *buffer;
    } edges[] = {{PQ, 4, "den"}, {U, 4000, "y"}, {V, 4000, NULL}, {RR, 4, "num"},
                 {T, 4000, HS_BUFFER_NONE}};
    static const char *const names[N] = {"u", "v", "t", "pq", "rr", "ax"};
    hs_workload *w = hs_workload_new();
    const hs_policy *const *pol = hs_policy_list();
    void *bufs[N][HS_KMAX_BUFS] = {{0}}, *alone[HS_KMAX_BUFS] = {0};
    hs_kconf c[N];
    hs_error err = {0};
    int a;
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "bind", 1, &err);
    kernel(w, a, "u", "va", "n", 1000, NULL, 0, 10, 1000);
    kernel(w, a, "v", "va", "n", 1000, NULL, 0, 1000, 10);
    kernel(w, a, "t", "va", "n", 1000, NULL, 0, 10, 10);
    kernel(w, a, "pq", "dot", "n", 1000, NULL, 0, 10, 1000);
    kernel(w, a, "rr", "dot", "n", 1000, NULL, 0, 1000, 10);
    kernel(w, a, "ax", "axpy", "n", 1000, "ratio", 1, 1000, 10);
    for (int e = 0; e < 5; e++) {
        assert_int_equal(hs_app_add_edge(w, a, names[edges[e].from], "ax", edges[e].bytes, &err),
                         e);
        assert_int_equal(hs_edge_set_buffer(w, a, e, edges[e].buffer, &err), 0);
    }
    finalize(w);
    /* by hand: the producers, then ax on their results */
    for (int t = 0; t < N; t++) {
        const hs_kernel *k = &w->apps[a].kernels[t];
        assert_int_equal(hs_kconf_init(&c[t], k->type, k->params, k->nparams, &err), 0);
        c[t].seed = (uint64_t)t + 1;
        for (int i = 0; i < c[t].nbufs; i++) {
            assert_non_null(bufs[t][i] = calloc(1, c[t].bufs[i].bytes));
            if (t == AX)
                assert_non_null(alone[i] = calloc(1, c[t].bufs[i].bytes));
        }
        hs_kfill(&c[t], bufs[t]);
        if (t == AX) {
            hs_kfill(&c[t], alone);
            assert_int_equal(hs_krun_cpu(&c[t], alone, 0, c[t].items, 1, &err), 0);
            memcpy(bufs[AX][0], bufs[V][2], 4000); /* x = v's c */
            memcpy(bufs[AX][1], bufs[U][2], 4000); /* y = u's c */
            memcpy(bufs[AX][2], bufs[RR][2], 4);   /* num = rr's s */
            memcpy(bufs[AX][3], bufs[PQ][2], 4);   /* den = pq's s */
        }
        assert_int_equal(hs_krun_cpu(&c[t], bufs[t], 0, c[t].items, 1, &err), 0);
    }
    assert_int_equal(c[AX].bufs[1].bytes, 4000);
    assert_true(memcmp(bufs[AX][1], alone[1], 4000) != 0);
    for (size_t p = 0; pol[p]; p++) {
        hs_schedule *s;
        hs_run_report r;
        if (run(w, hs_policy_name(pol[p]), &hs_backend_emu, &s, &r, &err) != 0)
            fail_msg("%s: %s", hs_policy_name(pol[p]), err.msg);
        assert_int_equal(r.checked, N);
        assert_int_equal(r.noutputs, 1);
        assert_int_equal(r.outputs[0].task, AX);
        assert_int_equal(r.outputs[0].bytes, 4000);
        assert_memory_equal(r.outputs[0].data, bufs[AX][1], 4000);
        hs_schedule_free(s);
        hs_run_report_free(&r);
    }
    for (int t = 0; t < N; t++)
        for (int i = 0; i < c[t].nbufs; i++)
            free(bufs[t][i]);
    for (int i = 0; i < HS_KMAX_BUFS; i++)
        free(alone[i]);
    hs_workload_free(w);
}

/* Runs w under policy `pol` on backend ops and compares its outputs with
 * the serial reference ref, byte for byte; `what` names the run. */
static void run_byte_exact(hs_workload *w, const char *pol, const hs_backend_ops *ops,
                           void **ref, const char *what)
{
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    if (run(w, pol, ops, &s, &r, &err) != 0)
        fail_msg("%s, %s: %s", what, pol, err.msg);
    check_outputs(w, &r, ref);
    hs_schedule_free(s);
    hs_run_report_free(&r);
}

/* The paper's small benchmark NAME as committed
 * (workloads/paper/NAME-small.yaml, its path into path[4096]), every device
 * computing on one thread, so that each kernel is called exactly as the
 * serial reference calls it (a BLAS gives the same bits only for the same
 * call). */
static hs_workload *paper_small(const char *name, char *path)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    hs_workload *w;
    hs_error err = {0};
    assert_non_null(root);
    snprintf(path, 4096, "%s/workloads/paper/%s-small.yaml", root, name);
    if (hs_workload_load_file(path, &w, &err) != 0)
        fail_msg("%s", err.msg);
    for (int d = 0; d < w->platform.ndevices; d++)
        w->platform.devices[d].cores = 1;
    return w;
}

/* The paper's small benchmark files as committed (cg's edges name their
 * buffers, `none` among them), on emu (cpu0 + gpu0) under eager and heft,
 * and the same benchmark generated on two CPU devices on the cpu backend:
 * the outputs are the serial reference's byte for byte, computed here from
 * the file's edges (each device on one thread: paper_small). */
static void bundled_workloads_byte_exact(void **state)
{
    static const char *const names[] = {"xgemm", "cg", "cholesky", "increment", "va",
                                        "pi", "fblock"};
    (void)state;
    for (size_t b = 0; b < sizeof names / sizeof names[0]; b++) {
        char path[4096];
        hs_workload *w = paper_small(names[b], path), *wc = hs_workload_new();
        hs_error err = {0};
        void **ref = reference(w);
        run_byte_exact(w, "eager", &hs_backend_emu, ref, path);
        run_byte_exact(w, "heft", &hs_backend_emu, ref, path);
        free_results(w, ref);
        hs_workload_free(w);
        assert_non_null(wc);
        if (hs_gen_platform(wc, "cpu:2", 1, &err) != 0 ||
            hs_gen_benchmark(wc, names[b], HS_GEN_SMALL, 1, NULL, &err) != 0 ||
            hs_workload_finalize(wc, &err) != 0)
            fail_msg("%s on cpu:2: %s", names[b], err.msg);
        ref = reference(wc);
        run_byte_exact(wc, "heft", &hs_backend_cpu, ref, names[b]);
        free_results(wc, ref);
        hs_workload_free(wc);
    }
}

/* A GPU's worker holding kernels back and running others ahead of them
 * (exec/cpu.c, launch_apart) keeps every result right: the paper's small
 * cg, cholesky and fblock on emu (cpu0 + gpu0), with its copies into gpu0
 * done 300 us after they start (hs__data_test_copy_us), under h-ratio,
 * dmdar and heft (whose plan moves inputs ahead in pieces), the engine
 * estimating with the executor's model (which starts tasks
 * HS_START_MAY_WAIT and HS_START_AHEAD): the outputs are the serial
 * reference's byte for byte, and the schedule is well formed. */
static void held_back_kernels_byte_exact(void **state)
{
    static const char *const names[] = {"cg", "cholesky", "fblock"};
    static const char *const pols[] = {"h-ratio", "dmdar", "heft"};
    (void)state;
    hs__data_test_copy_us = 300;
    for (size_t b = 0; b < sizeof names / sizeof names[0]; b++) {
        char path[4096];
        hs_workload *w = paper_small(names[b], path);
        hs_error err = {0};
        void **ref = reference(w);
        for (size_t p = 0; p < sizeof pols / sizeof pols[0]; p++) {
            hs_run_report r = {.check = HS_CHECK_NONE};
            hs_backend be = {.ops = &hs_backend_emu, .state = &r};
            hs_map_options opt = {.executor_estimates = 1};
            hs_schedule *s = NULL;
            if (hs_engine_run(w, hs_policy_find(pols[p]), &opt, &be, &s, NULL, &err) != 0)
                fail_msg("%s, %s: %s", path, pols[p], err.msg);
            check_structure(w, s);
            check_outputs(w, &r, ref);
            hs_schedule_free(s);
            hs_run_report_free(&r);
        }
        free_results(w, ref);
        hs_workload_free(w);
    }
    hs__data_test_copy_us = 0;
}

/* A planned policy's inputs moved ahead in pieces (hs_engine_prefetch_input,
 * hs__data_prefetch) on emu: cpu0 + gpu0 (10 GB/s, 5 us), HEFT, the
 * engine estimating with the executor's model; a (va, 300 us on cpu0) only
 * orders b (va of 1000000 on gpu0: x and y, 4000000 B each, are its input
 * from host, 8000000 B in the workload).  At the first step the next
 * completion is a's, 300 us away: 295 us of the link move 2950000 B of x
 * ahead; b's launch copies the other 1050000 B of x, then y.  Every byte
 * arrives: b's result is the reference's. */
static void planned_inputs_move_ahead_in_pieces(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_run_report r = {.check = HS_CHECK_NONE};
    hs_backend be = {.ops = &hs_backend_emu, .state = &r};
    hs_map_options opt = {.executor_estimates = 1};
    hs_schedule *s = NULL;
    hs_error err = {0};
    double copied[3] = {0};
    size_t n = 0;
    void **ref;
    int a;
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "ahead", 1, &err);
    kernel(w, a, "a", "va", "n", 1000, NULL, 0, 300, 100000);
    kernel(w, a, "b", "va", "n", 1000000, NULL, 0, 100000, 10);
    assert_int_equal(hs_kernel_set_bytes(w, a, 1, 8000000, 4000000, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "a", "b", 0, &err), 0);
    assert_int_equal(hs_edge_set_buffer(w, a, 0, HS_BUFFER_NONE, &err), 0);
    finalize(w);
    ref = reference(w);
    if (hs_engine_run(w, hs_policy_find("heft"), &opt, &be, &s, NULL, &err) != 0 ||
        hs_run_measured_schedule(w, "emu", &r, s, &err) != 0 || hs_schedule_validate(w, s, &err))
        fail_msg("%s", err.msg);
    check_outputs(w, &r, ref);
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        if (t->from_placement != HS_NONE || t->to_placement == HS_NONE)
            continue;
        assert_int_equal(s->placements[t->to_placement].task, 1);
        assert_true(n < 3);
        copied[n++] = t->bytes;
    }
    assert_int_equal(n, 3);
    assert_true(copied[0] >= 2949999 && copied[0] <= 2950000);
    assert_true(copied[0] + copied[1] == 4000000 && copied[2] == 4000000);
    assert_true(r.prefetched == 1);
    free_results(w, ref);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* The cpu backend refuses a gpu device with a clear message. */
static void cpu_refuses_gpus(void **state)
{
    hs_workload *w = mixed(PF_CPU_GPU2);
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    assert_int_equal(run(w, "eager", &hs_backend_cpu, &s, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "gpu0"));
    assert_null(s);
    hs_workload_free(w);
}

/* A cost-only kernel sleeps; a chain of two (200 us each, cpu0 only) counts
 * two untyped tasks, no outputs, and the second starts after the first. */
static void untyped_tasks_sleep(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    int a;
    (void)state;
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err) >= 0);
    a = hs_workload_add_app(w, "u", 1, &err);
    assert_int_equal(hs_app_add_kernel(w, a, "x", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "y", &err), 1);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 200, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 200, &err), 0);
    assert_true(hs_app_add_edge(w, a, "x", "y", 100, &err) >= 0);
    finalize(w);
    assert_int_equal(run(w, "heft", &hs_backend_cpu, &s, &r, &err), 0);
    assert_int_equal(r.untyped, 2);
    assert_int_equal(r.typed, 0);
    assert_int_equal(r.noutputs, 0);
    check_structure(w, s);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* Cost-only data move as emulated copies under emu (exec/data.c,
 * cost_only_data): cpu0 and gpu0 (PF_CPU_GPU: linked at 10 GB/s, 10000
 * bytes/us, with 5 us latency); a (cheap on cpu0) feeds b and c (cheap on
 * gpu0) 2 MB each, and c writes 1 MB of output.  HEFT places a on cpu0, b
 * and c on gpu0.  a's data cross to gpu0 once (5 + 200 us), serving both,
 * after a's end and before b's and c's starts; c's output goes back to
 * host after c's end (5 + 100 us).  The measured schedule holds those two
 * copies and passes the validator. */
static void emu_cost_only_data_copied(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    double fetched = 0, output = 0;
    int a;
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "u", 1, &err);
    assert_int_equal(hs_app_add_kernel(w, a, "a", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "b", &err), 1);
    assert_int_equal(hs_app_add_kernel(w, a, "c", &err), 2);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 100, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 1e6, &err), 0);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1e6, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 100, &err), 0);
    }
    assert_int_equal(hs_kernel_set_bytes(w, a, 2, 0, 1e6, &err), 0);
    assert_true(hs_app_add_edge(w, a, "a", "b", 2e6, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "a", "c", 2e6, &err) >= 0);
    finalize(w);
    assert_int_equal(run(w, "heft", &hs_backend_emu, &s, &r, &err), 0);
    assert_int_equal(r.untyped, 3);
    assert_int_equal(r.link_copies[0 * 2 + 1], 1);
    assert_int_equal(r.link_copies[1 * 2 + 0], 1);
    assert_true(r.link_bytes[0 * 2 + 1] == 2e6 && r.link_bytes[1 * 2 + 0] == 1e6);
    assert_int_equal(hs_run_measured_schedule(w, "emu", &r, s, &err), 0);
    assert_int_equal(s->ntransfers, 2);
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        const hs_placement *from = &s->placements[t->from_placement];
        assert_true(from->end_us <= t->start_us);
        if (t->to_placement == HS_NONE) { /* c's output */
            assert_int_equal(from->task, 2);
            assert_int_equal(t->to_device, HS_HOST_DEVICE);
            output = t->end_us - t->start_us;
            continue;
        }
        assert_int_equal(from->task, 0);
        assert_int_equal(from->device, 0);
        assert_int_equal(t->to_device, 1);
        fetched = t->end_us - t->start_us;
        for (size_t i = 0; i < s->nplacements; i++)
            if (s->placements[i].task != 0)
                assert_true(s->placements[i].start_us >= t->end_us);
    }
    assert_float_equal(fetched, 205, 1e-6);
    assert_float_equal(output, 105, 1e-6);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("measured schedule: %s", err.msg);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* A run's policy estimates with the model that predicts it, the executor's,
 * so that it decides as its prediction does.  cpu0 + gpu0 (10 GB/s, 5 us);
 * x (cpu0 100 ms) feeds y (cpu0 5 ms) and g1, y feeds g2 (no bytes); g1
 * and g2 take 5 ms on gpu0 and 25 ms on cpu0, and 5e8 B each from host
 * (50.005 ms to gpu0).  h-ratio gives g1 to gpu0 at x's end (100 ms): its
 * input copy runs to 150.005 ms, g1 to 155.005.  At y's end (105 ms) g2 on
 * gpu0 would end at 160.005, on cpu0 at 130: cpu0, as the prediction has
 * it.  Under the delay model a host input is there from time 0, g1 would
 * end at 105 and gpu0 look free: g2 went to gpu0, behind g1 and its own
 * copy (to 210 ms).  The margins (25-30 ms) stand far more delay than a
 * loaded machine adds to y's end. */
static void run_decides_as_its_prediction(void **state)
{
    static const char *const name[] = {"x", "y", "g1", "g2"};
    static const double cpu[] = {100000, 5000, 25000, 25000}, gpu[] = {1e8, 1e8, 5000, 5000};
    hs_workload *w = hs_workload_new();
    hs_run_options o = {.backend = "emu", .check = HS_CHECK_NONE};
    hs_run_result r;
    hs_error err = {0};
    int a, where[4] = {-1, -1, -1, -1};
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "u", 1, &err);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(hs_app_add_kernel(w, a, name[k], &err), k);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", cpu[k], &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", gpu[k], &err), 0);
        if (k >= 2)
            assert_int_equal(hs_kernel_set_bytes(w, a, k, 5e8, 0, &err), 0);
    }
    assert_true(hs_app_add_edge(w, a, "x", "y", 0, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "x", "g1", 0, &err) >= 0);
    assert_true(hs_app_add_edge(w, a, "y", "g2", 0, &err) >= 0);
    finalize(w);
    if (hs_run(w, "h-ratio", &o, &r, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(r.predicted->model, "executor");
    for (size_t i = 0; i < r.predicted->nplacements; i++)
        where[r.predicted->placements[i].task] = r.predicted->placements[i].device;
    assert_int_equal(where[3], 0);
    assert_int_equal(r.schedule->nplacements, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(r.schedule->placements[i].device,
                         where[r.schedule->placements[i].task]);
    hs_run_result_free(&r);
    hs_workload_free(w);
}

/* A kernel that fails makes the run fail with its message, without a hang
 * or a leak: syrk's result C - A A^T feeds potrf through an edge with bytes.
 * C is generated with diagonal n = 8, A is 8 x 64 with entries uniform in
 * [-1, 1), so (A A^T)'s diagonal is about 64/3 > 8: potrf finds no positive
 * definite tile. */
static void failing_kernel_fails_the_run(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    int a;
    (void)state;
    platform(w, PF_CPU_GPU);
    a = hs_workload_add_app(w, "bad", 1, &err);
    kernel(w, a, "syrk", "syrk", "n", 8, "k", 64, 30, 20);
    kernel(w, a, "potrf", "potrf", "n", 8, NULL, 0, 30, 20);
    assert_true(hs_app_add_edge(w, a, "syrk", "potrf", 256, &err) >= 0);
    finalize(w);
    assert_true(run(w, "eager", &hs_backend_emu, &s, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "positive definite"));
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* A device fails mid-run on emu, for every policy: gpu0 at its 2nd task
 * (its memory's results saved to host), or cpu0 at its 3rd (host memory,
 * nothing lost); the run completes on the others with every kernel checked
 * and the outputs byte-exact, no placement on the failed device after the
 * failure, and the engine counts the failure when the device got that far. */
static void device_fails_every_policy(void **state)
{
    hs_workload *w = mixed(PF_CPU_GPU2), *wc = mixed(PF_CPU);
    void **ref = reference(wc);
    const hs_policy *const *pol = hs_policy_list();
    int failures = 0;
    (void)state;
    for (size_t i = 0; pol[i]; i++)
        for (int k = 0; k < 2; k++) {
            hs_backend b;
            hs_map_options opt = {0};
            hs_map_stats st = {0};
            hs_schedule *s = NULL;
            hs_run_report r = {.check = HS_CHECK_FULL, .fail_device = k ? 0 : 1,
                               .fail_after = k ? 3 : 2};
            hs_error err = {0};
            size_t on_failed = 0;
            b = (hs_backend){.ops = &hs_backend_emu, .state = &r};
            if (hs_engine_run(w, pol[i], &opt, &b, &s, &st, &err) != 0)
                fail_msg("%s, device %d failing: %s", hs_policy_name(pol[i]), r.fail_device,
                         err.msg);
            assert_int_equal(r.typed, 10);
            assert_int_equal(r.checked, 10);
            check_structure(w, s);
            check_outputs(w, &r, ref);
            for (size_t p = 0; p < s->nplacements; p++)
                on_failed += s->placements[p].device == (k ? 0 : 1);
            assert_true(on_failed < (size_t)(k ? 3 : 2)); /* at most what it ran before */
            assert_true(st.failed_devices <= 1);
            if (st.failed_devices)
                assert_true(st.rerun >= 1);
            failures += st.failed_devices;
            hs_schedule_free(s);
            hs_run_report_free(&r);
        }
    assert_true(failures > 0);
    free_results(wc, ref);
    hs_workload_free(w);
    hs_workload_free(wc);
}

/* ------------------------------------------------- splitting at run time */

/* mixed(pf) with the chains' kernels splittable into `items` items each
 * (1000 elements: items that are not the type's own are scaled to them). */
static hs_workload *mixed_split(int pf, double items)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    platform(w, pf);
    chain_app(w, 2);
    cholesky_app(w);
    for (int k = 0; k < 3; k++)
        assert_int_equal(hs_kernel_set_split(w, 0, k, 1, items, &err), 0);
    return finalize(w);
}

/* Every splitter splits the 6 chain kernels at run time, on cpu (two cpu
 * devices) and on emu (cpu0 + two gpus), under two policies: every kernel
 * checked, the outputs byte-exact against the serial reference (every item
 * computed once, in place or copied back), each split kernel's chunks
 * tiling it (fractions summing to 1, one chunk at a time per device, after
 * the kernel's predecessors), the measured schedule valid. */
static void live_split_every_splitter(void **state)
{
    hs_workload *wc = mixed_split(PF_CPU, 40), *we = mixed_split(PF_CPU_GPU2, 40);
    void **ref = reference(wc);
    const hs_splitter *const *sp = hs_splitter_list();
    static const char *const policies[] = {"heft", "eager"};
    (void)state;
    for (size_t i = 0; sp[i]; i++)
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < 2; p++) {
                hs_workload *w = k ? we : wc;
                hs_map_options opt = {.live_split = sp[i]};
                hs_map_stats st = {0};
                hs_run_report r = {.check = HS_CHECK_FULL};
                hs_backend b = {.ops = k ? &hs_backend_emu : &hs_backend_cpu, .state = &r};
                hs_schedule *s = NULL;
                hs_error err = {0};
                if (hs_engine_run(w, hs_policy_find(policies[p]), &opt, &b, &s, &st, &err) != 0)
                    fail_msg("%s under %s on %s: %s", sp[i]->name, policies[p],
                             b.ops->name, err.msg);
                assert_int_equal(st.live_splits, 6);
                assert_true(st.chunks >= 6);
                assert_int_equal(s->nplacements, 4 + st.chunks);
                assert_int_equal(r.typed, 10);
                assert_int_equal(r.checked, 10);
                check_structure(w, s);
                check_outputs(w, &r, ref);
                assert_int_equal(hs_run_measured_schedule(w, b.ops->name, &r, s, &err), 0);
                if (hs_schedule_validate(w, s, &err) != HS_OK)
                    fail_msg("%s under %s on %s: measured schedule: %s", sp[i]->name,
                             policies[p], b.ops->name, err.msg);
                hs_schedule_free(s);
                hs_run_report_free(&r);
            }
    free_results(wc, ref);
    hs_workload_free(wc);
    hs_workload_free(we);
}

/* In the simulator, by hand: a cost-only kernel of 100 items costing 1000
 * us on each of two cpus, then one of 100 us.  heft gives the first to cpu0;
 * split at run time by `static` (shares from the costs: 50 items each),
 * both devices run 500 us from 0, and the second kernel starts at 500 on
 * cpu0: makespan 600.  Whole (no splitter): 1100. */
static void live_split_in_the_simulator(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a;
    (void)state;
    platform(w, PF_CPU);
    assert_true((a = hs_workload_add_app(w, "s", 1, &err)) >= 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(hs_app_add_kernel(w, a, k ? "after" : "big", &err), k);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", k ? 100 : 1000, &err), 0);
    }
    assert_int_equal(hs_kernel_set_split(w, a, 0, 1, 100, &err), 0);
    assert_true(hs_app_add_edge(w, a, "big", "after", 0, &err) >= 0);
    finalize(w);
    for (int live = 0; live < 2; live++) {
        hs_map_options opt = {.live_split = live ? hs_splitter_find("static") : NULL};
        hs_map_stats st = {0};
        hs_backend b = {.ops = &hs_backend_sim};
        hs_schedule *s = NULL;
        assert_int_equal(hs_engine_run(w, hs_policy_find("heft"), &opt, &b, &s, &st, &err), 0);
        assert_true(fabs(s->makespan_us - (live ? 600 : 1100)) <= 1e-9);
        assert_int_equal(s->nplacements, live ? 3 : 2);
        assert_int_equal(st.chunks, live ? 2 : 0);
        for (size_t i = 0; live && i < 2; i++) {
            assert_int_equal(s->placements[i].task, 0);
            assert_int_equal(s->placements[i].nparts, 2);
            assert_true(fabs(s->placements[i].fraction - 0.5) <= 1e-12);
            assert_true(fabs(s->placements[i].start_us) <= 1e-12);
            assert_true(fabs(s->placements[i].end_us - 500) <= 1e-9);
        }
        hs_schedule_free(s);
    }
    hs_workload_free(w);
}

/* The latest end of a kernel in r's events. */
static double last_kernel_end(const hs_run_report *r)
{
    double end = 0;
    for (size_t i = 0; i < r->nevents; i++)
        if (r->events[i].kind == HS_EV_KERNEL && r->events[i].end_us > end)
            end = r->events[i].end_us;
    return end;
}

/* Checks come after the run, in every mode: none checks nothing; sample
 * checks exactly the first kernel of each type and params on each memory:
 * on one cpu device alone, the mixed workload has va, scale, increment,
 * potrf, trsm and syrk with one set of params each, so 6 of its 10 (the
 * budget does not matter); full checks all 10.  Every check starts once
 * every kernel ended. */
static void checks_after_the_run(void **state)
{
    static const struct {
        hs_check_mode mode;
        size_t budget, checked;
    } cases[] = {{HS_CHECK_NONE, 0, 0}, {HS_CHECK_SAMPLE, 1, 6}, {HS_CHECK_SAMPLE, 0, 6},
                 {HS_CHECK_FULL, 0, 10}};
    hs_workload *w = mixed(PF_CPU);
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        hs_schedule *s;
        hs_run_report r;
        hs_error err = {0};
        size_t checks = 0;
        double end;
        assert_int_equal(run_checked(w, "cpu-only", &hs_backend_emu, cases[k].mode,
                                     cases[k].budget, &s, &r, &err), 0);
        assert_int_equal(r.typed, 10);
        assert_int_equal(r.checked, cases[k].checked);
        end = last_kernel_end(&r);
        for (size_t i = 0; i < r.nevents; i++)
            if (r.events[i].kind == HS_EV_CHECK) {
                checks++;
                assert_int_equal(r.events[i].device, -1);
                assert_true(r.events[i].start_us >= end);
            }
        assert_int_equal(checks, cases[k].checked);
        hs_schedule_free(s);
        hs_run_report_free(&r);
    }
    hs_workload_free(w);
}

/* The host time of the backend's threads is recorded: on an emulated gpu
 * (whose kernels are enqueued) one launch and one completion per kernel,
 * the launch holding the kernel's run (emu runs it there) and the
 * completion ending after it; none on a cpu device, which runs its tasks
 * in the launch; and the engine's steps, on a worker or on the engine's own
 * thread (device -1), one at a time. */
static void workers_record_host_time(void **state)
{
    hs_workload *w = mixed(PF_CPU_GPU2);
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    size_t kernels[3] = {0}, launches[3] = {0}, completes[3] = {0}, nsteps = 0;
    double *steps;
    (void)state;
    assert_int_equal(run_checked(w, "heft", &hs_backend_emu, HS_CHECK_NONE, 0, &s, &r, &err),
                     0);
    assert_int_equal(w->platform.ndevices, 3);
    steps = malloc(2 * r.nevents * sizeof *steps);
    assert_non_null(steps);
    for (size_t i = 0; i < r.nevents; i++) {
        const hs_run_event *e = &r.events[i];
        assert_true(e->start_us <= e->end_us);
        if (e->kind == HS_EV_STEP) {
            assert_int_equal(e->task, -1);
            assert_true(e->device >= -1 && e->device < 3);
            steps[2 * nsteps] = e->start_us;
            steps[2 * nsteps++ + 1] = e->end_us;
        }
        if (e->kind != HS_EV_KERNEL && e->kind != HS_EV_LAUNCH && e->kind != HS_EV_COMPLETE)
            continue;
        assert_true(e->device >= 0 && e->device < 3);
        (e->kind == HS_EV_KERNEL ? kernels : e->kind == HS_EV_LAUNCH ? launches
                                                                      : completes)[e->device]++;
        if (e->kind == HS_EV_KERNEL || w->platform.devices[e->device].kind != HS_DEVICE_GPU)
            continue;
        for (size_t j = 0; j < r.nevents; j++) { /* its task's kernel */
            const hs_run_event *k = &r.events[j];
            if (k->kind != HS_EV_KERNEL || k->task != e->task || k->device != e->device)
                continue;
            if (e->kind == HS_EV_LAUNCH)
                assert_true(e->start_us <= k->start_us && k->end_us <= e->end_us);
            else
                assert_true(k->end_us <= e->end_us);
        }
    }
    for (int d = 0; d < 3; d++) {
        int gpu = w->platform.devices[d].kind == HS_DEVICE_GPU;
        assert_int_equal(launches[d], gpu ? kernels[d] : 0);
        assert_int_equal(completes[d], gpu ? kernels[d] : 0);
    }
    assert_true(kernels[1] + kernels[2] > 0); /* heft gives the gpus work */
    assert_true(nsteps >= 2);
    /* steps never overlap: whoever runs one holds the engine */
    for (size_t i = 0; i < nsteps; i++)
        for (size_t j = 0; j < nsteps; j++)
            assert_true(i == j || steps[2 * i + 1] <= steps[2 * j] ||
                        steps[2 * j + 1] <= steps[2 * i]);
    free(steps);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* Full checks over a budget of 1 byte: a checker thread checks held kernels
 * during the run; every kernel is still checked once. */
static void full_checks_over_budget(void **state)
{
    hs_workload *w = mixed(PF_CPU_GPU2);
    hs_schedule *s;
    hs_run_report r;
    hs_error err = {0};
    (void)state;
    assert_int_equal(run_checked(w, "heft", &hs_backend_emu, HS_CHECK_FULL, 1, &s, &r, &err),
                     0);
    assert_int_equal(r.checked, 10);
    hs_schedule_free(s);
    hs_run_report_free(&r);
    hs_workload_free(w);
}

/* Adds 1 to the first float of every scale result. */
static void corrupt_scale(const hs_kconf *c, void *const *bufs)
{
    if (strcmp(c->type->name, "scale") == 0)
        ((float *)bufs[1])[0] += 1.0f;
}

/* A wrong result fails the run once it has ended, naming the kernel, in
 * every mode that checks it (sample checks the first scale); with no
 * checks the run passes. */
static void wrong_result_fails_after_the_run(void **state)
{
    hs_workload *w = mixed(PF_CPU_GPU2);
    (void)state;
    hs__data_test_hook = corrupt_scale;
    for (int mode = HS_CHECK_SAMPLE; mode <= HS_CHECK_NONE; mode++) {
        hs_schedule *s;
        hs_run_report r;
        hs_error err = {0};
        int rc = run_checked(w, "eager", &hs_backend_emu, (hs_check_mode)mode, 1, &s, &r, &err);
        if (mode == HS_CHECK_NONE) {
            assert_int_equal(rc, 0);
            hs_schedule_free(s);
        } else {
            assert_int_equal(rc, HS_ECHECK);
            assert_non_null(strstr(err.msg, "kernel chain#"));
            assert_non_null(strstr(err.msg, "/scale (scale): scale:"));
        }
        hs_run_report_free(&r);
    }
    hs__data_test_hook = NULL;
    hs_workload_free(w);
}

/* A piece of an output hashes as FNV-1a over its 8-byte words, each
 * product folded, then its last bytes (values from a reference written
 * apart, in Python); without words it is plain FNV-1a ("abc": the
 * published 0xe71fa2190541574b); every flipped bit changes it. */
static void output_piece_hash(void **state)
{
    unsigned char b[1000];
    uint64_t h;
    (void)state;
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (unsigned char)((i * 37 + 11) & 255);
    assert_true(hs__piece_hash(b, 0) == HS__FNV_BASIS);
    assert_true(hs__piece_hash("abc", 3) == 0xe71fa2190541574bULL);
    assert_true(hs__piece_hash(b, sizeof b) == 0x35c0842a4b82b97cULL);
    for (size_t i = 0; i < 17; i++)
        b[i] = (unsigned char)i;
    assert_true(hs__piece_hash(b, 17) == 0xf63ce3286133a32aULL);
    h = hs__piece_hash(b, 64);
    for (size_t i = 0; i < 64 * 8; i++) {
        b[i / 8] ^= (unsigned char)(1u << i % 8);
        if (hs__piece_hash(b, 64) == h)
            fail_msg("bit %zu flipped, same hash", i);
        b[i / 8] ^= (unsigned char)(1u << i % 8);
    }
}

/* An output of more than two pieces (va on 2.5M floats: 10 MB) gets the
 * hash of its bytes, piece by piece; with output_hashes_only the report
 * keeps the hash and no copy. */
static void output_of_pieces_hashed(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    uint64_t hash = 0;
    (void)state;
    platform(w, PF_CPU);
    assert_true(hs_workload_add_app(w, "big", 1, &err) >= 0);
    kernel(w, 0, "va", "va", "n", 2500000, NULL, 0, 10, 10);
    finalize(w);
    for (int only = 0; only < 2; only++) {
        hs_run_report r = {.output_hashes_only = only};
        hs_backend b = {.ops = &hs_backend_cpu, .state = &r};
        hs_map_options opt = {0};
        hs_schedule *s = NULL;
        assert_int_equal(hs_engine_run(w, hs_policy_find("eager"), &opt, &b, &s, NULL, &err), 0);
        assert_int_equal(r.noutputs, 1);
        assert_int_equal(r.outputs[0].bytes, 10000000);
        assert_true(r.outputs[0].bytes > 2 * HS__PIECE);
        if (!only) {
            hash = output_hash(r.outputs[0].data, r.outputs[0].bytes);
            assert_true(r.outputs[0].hash == hash);
        } else {
            assert_null(r.outputs[0].data);
            assert_true(r.outputs[0].hash == hash);
        }
        hs_schedule_free(s);
        hs_run_report_free(&r);
    }
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_of_pieces_hashed),
        cmocka_unit_test(output_piece_hash),
        cmocka_unit_test(every_policy_cpu_and_emu),
        cmocka_unit_test(explicit_binding_feeds_a_later_buffer),
        cmocka_unit_test(bundled_workloads_byte_exact),
        cmocka_unit_test(held_back_kernels_byte_exact),
        cmocka_unit_test(planned_inputs_move_ahead_in_pieces),
        cmocka_unit_test(emu_lone_gpu_copies_only_the_output),
        cmocka_unit_test(emu_next_inputs_after_the_running_ones),
        cmocka_unit_test(last_reader_updates_in_place),
        cmocka_unit_test(checked_in_place_input_is_made_again),
        cmocka_unit_test(sampled_chain_checks_its_last_link),
        cmocka_unit_test(emu_heft_copies_both_ways),
        cmocka_unit_test(cpu_refuses_gpus),
        cmocka_unit_test(untyped_tasks_sleep),
        cmocka_unit_test(emu_cost_only_data_copied),
        cmocka_unit_test(run_decides_as_its_prediction),
        cmocka_unit_test(failing_kernel_fails_the_run),
        cmocka_unit_test(device_fails_every_policy),
        cmocka_unit_test(live_split_every_splitter),
        cmocka_unit_test(live_split_in_the_simulator),
        cmocka_unit_test(checks_after_the_run),
        cmocka_unit_test(full_checks_over_budget),
        cmocka_unit_test(workers_record_host_time),
        cmocka_unit_test(wrong_result_fails_after_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
