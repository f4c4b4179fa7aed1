/* Tests of the workload generators (workloads/gen.c) and the YAML writer
 * (graph/yaml_write.c): determinism by seed, exact counts of the structured
 * graphs, the random graphs' invariants and realised CCR, hand-computed
 * costs, refusals, and write-then-load round trips. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"
#include "workloads/kernels/kernel.h"

/* ------------------------------------------------------------- helpers */

static hs_workload *platform(const char *spec)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    if (hs_gen_platform(w, spec, HS_GEN_CPU_CORES, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

static void finalize_ok(hs_workload *w)
{
    hs_error err = {0};
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("%s", err.msg);
}

static hs_workload *random_graph(const hs_gen_random_opts *o, const char *spec)
{
    hs_workload *w = platform(spec);
    hs_error err = {0};
    if (hs_gen_random(w, o, &err) < 0)
        fail_msg("%s", err.msg);
    finalize_ok(w);
    return w;
}

/* Are two workloads the same, as declared and as flattened?  Cost entries
 * and params compare in order, numbers exactly. */
static int same_workload(const hs_workload *x, const hs_workload *y)
{
    const hs_platform *p = &x->platform, *q = &y->platform;
    if (p->ndevices != q->ndevices || p->nmemories != q->nmemories || x->napps != y->napps)
        return 0;
    for (int d = 0; d < p->ndevices; d++)
        if (strcmp(p->devices[d].name, q->devices[d].name) != 0 ||
            p->devices[d].kind != q->devices[d].kind ||
            p->devices[d].memory != q->devices[d].memory ||
            p->devices[d].cores != q->devices[d].cores)
            return 0;
    for (int m = 0; m < p->nmemories; m++)
        if (strcmp(p->memories[m], q->memories[m]) != 0)
            return 0;
    for (int i = 0; i < p->nmemories * p->nmemories; i++)
        if (p->links[i].present != q->links[i].present ||
            (p->links[i].present && (p->links[i].bandwidth_gbps != q->links[i].bandwidth_gbps ||
                                     p->links[i].latency_us != q->links[i].latency_us)))
            return 0;
    if (p->nnodes != q->nnodes)
        return 0;
    for (int n = 0; n < p->nnodes; n++)
        if (strcmp(p->nodes[n].name, q->nodes[n].name) != 0 || p->nodes[n].host != q->nodes[n].host)
            return 0;
    for (int i = 0; i < p->nnodes * p->nnodes; i++)
        if (memcmp(&p->network[i], &q->network[i], sizeof p->network[i]) != 0)
            return 0;
    for (int d = 0; d < p->ndevices; d++)
        if (p->devices[d].node != q->devices[d].node)
            return 0;
    for (int m = 0; m < p->nmemories; m++)
        if (p->memory_node[m] != q->memory_node[m])
            return 0;
    for (int a = 0; a < x->napps; a++) {
        const hs_app *A = &x->apps[a], *B = &y->apps[a];
        if (strcmp(A->name, B->name) != 0 || A->instances != B->instances ||
            A->nkernels != B->nkernels || A->nedges != B->nedges)
            return 0;
        for (int k = 0; k < A->nkernels; k++) {
            const hs_kernel *K = &A->kernels[k], *L = &B->kernels[k];
            if (strcmp(K->name, L->name) != 0 || (!K->type != !L->type) ||
                (K->type && strcmp(K->type, L->type) != 0) || K->nparams != L->nparams ||
                K->ncosts != L->ncosts || K->input_bytes != L->input_bytes ||
                K->output_bytes != L->output_bytes || K->splittable != L->splittable ||
                K->items != L->items)
                return 0;
            for (int i = 0; i < K->nparams; i++)
                if (strcmp(K->params[i].name, L->params[i].name) != 0 ||
                    K->params[i].value != L->params[i].value)
                    return 0;
            for (int i = 0; i < K->ncosts; i++)
                if (strcmp(K->costs[i].key, L->costs[i].key) != 0 ||
                    K->costs[i].us != L->costs[i].us)
                    return 0;
        }
        for (int e = 0; e < A->nedges; e++) {
            const hs_kernel_edge *E = &A->edges[e], *F = &B->edges[e];
            if (E->from != F->from || E->to != F->to || E->bytes != F->bytes ||
                !E->buffer != !F->buffer || (E->buffer && strcmp(E->buffer, F->buffer) != 0) ||
                (x->finalized && y->finalized && E->feeds != F->feeds))
                return 0;
        }
    }
    if (x->finalized != y->finalized)
        return 0;
    if (x->finalized) {
        const hs_graph *g = &x->graph, *h = &y->graph;
        if (g->ntasks != h->ntasks || g->nedges != h->nedges)
            return 0;
        if (memcmp(g->cost_pool, h->cost_pool, g->ntasks * (size_t)g->ndevices * sizeof(double)))
            return 0;
    }
    return 1;
}

/* Writes w as YAML into a malloc'd string. */
static char *to_yaml(const hs_workload *w, size_t *len)
{
    char *buf = NULL;
    hs_error err = {0};
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    if (hs_workload_write_yaml(w, f, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Writes w, loads the text back and checks the result equals w.  Skips (by
 * returning 0) while the loader is not built. */
static int round_trip(const hs_workload *w)
{
    size_t len;
    char *text = to_yaml(w, &len);
    hs_workload *back = NULL;
    hs_error err = {0};
    int rc = hs_workload_load_buffer("gen.yaml", text, len, &back, &err);
    if (rc == HS_ENOTBUILT) {
        free(text);
        return 0;
    }
    if (rc != HS_OK)
        fail_msg("%s\n%.2000s", err.msg, text);
    assert_true(same_workload(w, back));
    hs_workload_free(back);
    free(text);
    return 1;
}

static void expect_error(int rc, const hs_error *err, int code, const char *msg)
{
    assert_int_equal(rc, code);
    assert_string_equal(err->msg, msg);
}

/* -------------------------------------------------------------- platform */

static void platform_builder(void **state)
{
    hs_workload *w = platform("cpu:1,gpu:2");
    const hs_platform *p = &w->platform;
    hs_error err = {0};
    (void)state;
    assert_int_equal(p->ndevices, 3);
    assert_string_equal(p->devices[0].name, "cpu0");
    assert_int_equal(p->devices[0].cores, HS_GEN_CPU_CORES);
    assert_int_equal(p->devices[0].memory, HS_HOST_MEMORY);
    assert_string_equal(p->devices[2].name, "gpu1");
    assert_string_equal(p->memories[p->devices[2].memory], "gpu1");
    /* host -> gpu0: 10 us + 12e6 B / (12 GB/s = 12000 B/us) = 1010 us */
    assert_float_equal(hs_transfer_us(p, 0, 1, 12e6), 1010.0, 1e-9);
    /* gpu0 -> gpu1 peer: 10 us + 10e6 B / 10000 B/us = 1010 us */
    assert_float_equal(hs_transfer_us(p, 1, 2, 10e6), 1010.0, 1e-9);
    assert_float_equal(hs_transfer_us(p, 2, 0, 12e6), 1010.0, 1e-9);
    hs_workload_free(w);

    w = platform("gpu:1,cpu:2"); /* either order; CPUs share host */
    assert_int_equal(w->platform.ndevices, 3);
    assert_int_equal(w->platform.nmemories, 2);
    assert_string_equal(w->platform.devices[1].name, "cpu1");
    hs_workload_free(w);

    w = hs_workload_new();
    expect_error(hs_gen_platform(w, "cpu:0,gpu:0", 4, &err), &err, HS_EINPUT,
                 "devices 'cpu:0,gpu:0': at least one device is needed");
    expect_error(hs_gen_platform(w, "tpu:1", 4, &err), &err, HS_EINPUT,
                 "devices 'tpu:1': 'tpu' is not cpu or gpu, or is given twice");
    expect_error(hs_gen_platform(w, "cpu:1,cpu:2", 4, &err), &err, HS_EINPUT,
                 "devices 'cpu:1,cpu:2': 'cpu' is not cpu or gpu, or is given twice");
    expect_error(hs_gen_platform(w, "cpu", 4, &err), &err, HS_EINPUT,
                 "devices 'cpu': item 'cpu' has no ':COUNT' (write e.g. cpu:1,gpu:2)");
    expect_error(hs_gen_platform(w, "gpu:x", 4, &err), &err, HS_EINPUT,
                 "devices 'gpu:x': count 'x' of gpu must be a whole number 0..64");
    expect_error(hs_gen_platform(w, "cpu:1", 0, &err), &err, HS_EINPUT,
                 "cores must be a whole number >= 1, not 0");
    assert_int_equal(w->platform.ndevices, 0);
    hs_workload_free(w);
}

/* ---------------------------------------------------------- random graphs */

static void random_is_seeded(void **state)
{
    hs_gen_random_opts o;
    hs_workload *a, *b, *c;
    (void)state;
    hs_gen_random_defaults(&o);
    o.tasks = 500;
    o.seed = 42;
    a = random_graph(&o, "cpu:1,gpu:2");
    b = random_graph(&o, "cpu:1,gpu:2");
    o.seed = 43;
    c = random_graph(&o, "cpu:1,gpu:2");
    assert_true(same_workload(a, b));
    assert_false(same_workload(a, c));
    assert_int_equal(a->graph.ntasks, 500);
    assert_int_equal(c->graph.ntasks, 500);
    hs_workload_free(a);
    hs_workload_free(b);
    hs_workload_free(c);
}

/* Depth of every task (longest path from a source, in tasks), via the
 * topological order. */
static size_t *depths(const hs_graph *g)
{
    size_t *order = malloc(g->ntasks * sizeof *order), *depth = calloc(g->ntasks, sizeof *depth);
    hs_error err = {0};
    const hs_edge *e;
    assert_non_null(order);
    assert_non_null(depth);
    assert_int_equal(hs_graph_topo_order(g, order, &err), HS_OK); /* acyclic */
    for (size_t i = 0; i < g->ntasks; i++) {
        size_t t = order[i];
        if (depth[t] == 0)
            depth[t] = 1;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
        {
            if (depth[e->to] < depth[t] + 1)
                depth[e->to] = depth[t] + 1;
        }
    }
    free(order);
    return depth;
}

/* Invariants over seeds and shapes: exact task count, acyclic, every task
 * named in level order so edges go forward, no edge skips more than two
 * levels, GPUs faster by the requested factor on average, costs spread by
 * at most beta. */
static void random_invariants(void **state)
{
    const size_t sizes[] = {1, 2, 7, 100, 2000};
    const double alphas[] = {0.5, 1.0, 2.0};
    (void)state;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t al = 0; al < 3; al++)
            for (unsigned long seed = 1; seed <= 3; seed++) {
                hs_gen_random_opts o;
                hs_workload *w;
                const hs_graph *g;
                size_t *depth, maxdepth = 0;
                double sum[2] = {0, 0};
                hs_gen_random_defaults(&o);
                o.tasks = sizes[s];
                o.alpha = alphas[al];
                o.seed = seed;
                o.beta = 1.0;
                w = random_graph(&o, "cpu:2,gpu:2");
                g = &w->graph;
                assert_int_equal(g->ntasks, sizes[s]);
                depth = depths(g);
                for (size_t e = 0; e < g->nedges; e++) {
                    /* depth = level + 1 (every task has a parent one level up),
                     * and successors lie one or two levels down */
                    size_t skip = depth[g->edges[e].to] - depth[g->edges[e].from];
                    assert_true(g->edges[e].from < g->edges[e].to);
                    assert_true(skip == 1 || skip == 2);
                    assert_true(g->edges[e].bytes >= 1);
                }
                for (size_t t = 0; t < g->ntasks; t++) {
                    if (depth[t] > maxdepth)
                        maxdepth = depth[t];
                    for (int d = 0; d < 4; d++) {
                        assert_true(g->tasks[t].cost_us[d] > 0);
                        sum[w->platform.devices[d].kind] += g->tasks[t].cost_us[d];
                    }
                }
                if (sizes[s] >= 2000) {
                    /* about sqrt(v)/alpha levels: within a factor 1.5 */
                    double levels = sqrt((double)sizes[s]) / alphas[al];
                    assert_true(maxdepth > levels / 1.5 && maxdepth < levels * 1.5);
                    /* equal device counts: mean cpu cost / mean gpu cost = speedup 4 */
                    assert_float_equal(sum[HS_DEVICE_CPU] / sum[HS_DEVICE_GPU], 4.0, 0.2);
                    /* mean cost w_dag = 1000 us over tasks and devices, within 5% */
                    assert_float_equal((sum[0] + sum[1]) / (4.0 * (double)g->ntasks), 1000.0,
                                       50.0);
                }
                free(depth);
                hs_workload_free(w);
            }
}

/* The realised CCR of a large graph is within 10% of the requested one. */
static void random_ccr(void **state)
{
    const double ccrs[] = {0.1, 1.0, 5.0};
    (void)state;
    for (int i = 0; i < 3; i++) {
        hs_gen_random_opts o;
        hs_workload *w;
        double got;
        hs_gen_random_defaults(&o);
        o.tasks = 20000;
        o.ccr = ccrs[i];
        o.seed = (unsigned long)i + 11;
        w = random_graph(&o, "cpu:1,gpu:2");
        got = hs_gen_measured_ccr(w);
        assert_true(fabs(got - ccrs[i]) <= 0.1 * ccrs[i]);
        hs_workload_free(w);
    }
}

static void random_refusals(void **state)
{
    hs_gen_random_opts o;
    hs_workload *w = platform("cpu:1,gpu:1");
    hs_error err = {0};
    (void)state;
    hs_gen_random_defaults(&o);
    o.beta = 2.0;
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EINPUT, "beta must be in [0, 2), not 2");
    hs_gen_random_defaults(&o);
    o.tasks = 0;
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EINPUT,
                 "tasks must be 1..1000000 (HETSCHED_MAX_TASKS raises the limit), not 0");
    hs_gen_random_defaults(&o);
    o.out_degree = 0;
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EINPUT,
                 "out-degree must be 1..1000, not 0");
    hs_gen_random_defaults(&o);
    o.alpha = NAN;
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EINPUT,
                 "alpha must be a finite number > 0, not nan");
    hs_workload_free(w);

    /* transfers of 0.001 x 1000 us = 1 us cannot beat the 10 us latency */
    w = platform("cpu:1,gpu:1");
    hs_gen_random_defaults(&o);
    o.ccr = 0.001;
    o.tasks = 50;
    assert_int_equal(hs_gen_random(w, &o, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "no more than the links' latency (10 us)"));
    hs_workload_free(w);

    w = platform("cpu:2");
    hs_gen_random_defaults(&o);
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EINPUT,
                 "ccr 1 needs devices on at least two memories (or ccr 0)");
    o.ccr = 0; /* fine on one memory: edges carry no data */
    assert_int_equal(hs_gen_random(w, &o, &err), 0);
    finalize_ok(w);
    assert_true(w->graph.nedges > 0);
    assert_float_equal(w->graph.edges[0].bytes, 0, 0);
    hs_workload_free(w);

    w = hs_workload_new();
    hs_gen_random_defaults(&o);
    expect_error(hs_gen_random(w, &o, &err), &err, HS_EUSAGE,
                 "declare the platform (hs_gen_platform) before generating kernels");
    hs_workload_free(w);
}

/* -------------------------------------------------------- structured graphs */

static void forkjoin_counts(void **state)
{
    hs_gen_forkjoin_opts o;
    hs_workload *w = platform("cpu:1,gpu:1"), *b;
    hs_error err = {0};
    const hs_task *t;
    (void)state;
    hs_gen_forkjoin_defaults(&o);
    o.width = 3;
    o.depth = 2;
    assert_int_equal(hs_gen_forkjoin(w, &o, &err), 0);
    finalize_ok(w);
    /* 1 fork + 2 stages x (3 + 1 join) = 9 tasks; 2 x 2 x 3 = 12 edges */
    assert_int_equal(w->graph.ntasks, 9);
    assert_int_equal(w->graph.nedges, 12);
    /* beta 0: 100 us on the CPU, 100 / 4 on the GPU; fork reads 1e6 bytes,
     * the last join (task 8) writes them back */
    t = &w->graph.tasks[0];
    assert_float_equal(t->cost_us[0], 100.0, 0);
    assert_float_equal(t->cost_us[1], 25.0, 0);
    assert_float_equal(t->input_bytes, 1e6, 0);
    assert_float_equal(w->graph.tasks[8].output_bytes, 1e6, 0);
    assert_string_equal(w->apps[0].kernels[8].name, "join1");
    round_trip(w);

    /* with beta, seeded */
    o.beta = 1.0;
    o.seed = 9;
    hs_workload_free(w);
    w = platform("cpu:1,gpu:1");
    b = platform("cpu:1,gpu:1");
    assert_int_equal(hs_gen_forkjoin(w, &o, &err), 0);
    assert_int_equal(hs_gen_forkjoin(b, &o, &err), 0);
    finalize_ok(w);
    finalize_ok(b);
    assert_true(same_workload(w, b));
    for (size_t i = 0; i < w->graph.ntasks; i++) {
        assert_in_range((long)w->graph.tasks[i].cost_us[0], 50, 150);
        assert_true(w->graph.tasks[i].cost_us[1] >= 12.5 && w->graph.tasks[i].cost_us[1] <= 37.5);
    }
    hs_workload_free(w);
    hs_workload_free(b);
}

/* Does application 0 have an edge between these kernels? */
static int has_edge(const hs_workload *w, const char *from, const char *to)
{
    const hs_app *a = &w->apps[0];
    for (int e = 0; e < a->nedges; e++)
        if (strcmp(a->kernels[a->edges[e].from].name, from) == 0 &&
            strcmp(a->kernels[a->edges[e].to].name, to) == 0)
            return 1;
    return 0;
}

static void cholesky_counts(void **state)
{
    (void)state;
    for (int T = 1; T <= 8; T++) {
        hs_gen_cholesky_opts o;
        hs_workload *w = platform("cpu:1,gpu:2");
        hs_error err = {0};
        size_t n = (size_t)T, count[4] = {0, 0, 0, 0};
        const char *types[] = {"potrf", "trsm", "syrk", "gemm"};
        hs_gen_cholesky_defaults(&o);
        o.tiles = T;
        assert_int_equal(hs_gen_cholesky(w, &o, &err), 0);
        finalize_ok(w);
        for (int k = 0; k < w->apps[0].nkernels; k++)
            for (int i = 0; i < 4; i++)
                count[i] += strcmp(w->apps[0].kernels[k].type, types[i]) == 0;
        /* T potrf, T(T-1)/2 trsm and syrk, T(T-1)(T-2)/6 gemm */
        assert_int_equal(count[0], n);
        assert_int_equal(count[1], n * (n - 1) / 2);
        assert_int_equal(count[2], n * (n - 1) / 2);
        assert_int_equal(count[3], n * (n - 1) * (n - 2) / 6);
        assert_int_equal(w->graph.ntasks,
                         n + n * (n - 1) + n * (n - 1) * (n - 2) / 6);
        /* Edges, counted by the task they enter: potrf_k (k >= 1) from one syrk;
         * trsm from potrf, plus the previous gemm on its tile when k >= 1;
         * syrk from its trsm, plus the previous syrk when k >= 1; gemm from
         * two trsm, plus the previous gemm when k >= 1:
         * (T-1) + [T(T-1)/2 + (T-1)(T-2)/2] x 2 + T(T-1)(T-2)/3 + (T-1)(T-2)(T-3)/6 */
        assert_int_equal(w->graph.nedges,
                         (n - 1) + (n * (n - 1) / 2 + (n - 1) * (n - 2) / 2) * 2 +
                             n * (n - 1) * (n - 2) / 3 + (n - 1) * (n - 2) * (n - 3) / 6);
        if (T == 3) {
            /* by hand: potrf_0 -> trsm_1_0, trsm_2_0; trsm_i_0 -> syrk_i_0;
             * trsm_1_0, trsm_2_0 -> gemm_2_1_0; syrk_1_0 -> potrf_1;
             * potrf_1, gemm_2_1_0 -> trsm_2_1; trsm_2_1, syrk_2_0 -> syrk_2_1;
             * syrk_2_1 -> potrf_2: 12 edges */
            assert_int_equal(w->graph.nedges, 12);
            assert_true(has_edge(w, "potrf_0", "trsm_2_0"));
            assert_true(has_edge(w, "trsm_1_0", "gemm_2_1_0"));
            assert_true(has_edge(w, "gemm_2_1_0", "trsm_2_1"));
            assert_true(has_edge(w, "syrk_2_0", "syrk_2_1"));
            assert_true(has_edge(w, "syrk_2_1", "potrf_2"));
        }
        if (T == 4) {
            /* gemm_3_2_1 (kernel by name): 2 x 512^3 = 268435456 flops; CPU
             * 1 us + max(268435456 / 200000, 4 tiles x 1048576 B / 20000)
             * = 1 + 1342.17728 -> 1343.177 us (1 ns rounding); GPU 5 +
             * 268435456 / 1e6 = 273.435456 -> 273.435 us.  It reads nothing
             * from host (its tile was written by gemm_3_2_0) and writes
             * nothing back (syrk and gemm results are intermediate). */
            const hs_app *a = &w->apps[0];
            int k = 0;
            while (strcmp(a->kernels[k].name, "gemm_3_2_1") != 0)
                k++;
            assert_float_equal(a->kernels[k].cost_us[0], 1343.177, 1e-9);
            assert_float_equal(a->kernels[k].cost_us[1], 273.435, 1e-9);
            assert_float_equal(a->kernels[k].input_bytes, 0, 0);
            assert_float_equal(a->kernels[k].output_bytes, 0, 0);
            assert_string_equal(a->kernels[k].params[0].name, "n");
            assert_float_equal(a->kernels[k].params[0].value, 512, 0);
            /* potrf_0 reads its tile (1 MiB) and writes it back */
            assert_float_equal(a->kernels[0].input_bytes, 1048576, 0);
            assert_float_equal(a->kernels[0].output_bytes, 1048576, 0);
            round_trip(w);
        }
        hs_workload_free(w);
    }
}

/* ---------------------------------------------------- benchmarks (Fig. 4) */

static void benchmarks(void **state)
{
    /* tasks per benchmark: xgemm 3, cg 3 iterations x 6, cholesky 4x4 tiles
     * 20, increment 4, va 2, pi 1000 + reduce, fblock 4 */
    const size_t tasks[] = {3, 18, 20, 4, 2, 1001, 4};
    const char *const *names = hs_gen_benchmark_names();
    hs_error err = {0};
    (void)state;
    for (int i = 0; names[i]; i++)
        for (int s = HS_GEN_SMALL; s <= HS_GEN_LARGE; s++) {
            hs_workload *w = platform("cpu:1,gpu:2");
            assert_int_equal(hs_gen_benchmark(w, names[i], (hs_gen_size)s, 1, NULL, &err), 0);
            finalize_ok(w);
            assert_int_equal(w->graph.ntasks, tasks[i]);
            for (int k = 0; k < w->apps[0].nkernels; k++) {
                const hs_kernel *kn = &w->apps[0].kernels[k];
                if (strcmp(kn->name, "reduce") == 0) /* pi's reduce: untyped */
                    continue;
                assert_non_null(kn->type);
                assert_true(kn->nparams >= 1);
                /* the real kernel type accepts these params */
                {
                    hs_kconf c;
                    if (hs_kconf_init(&c, kn->type, kn->params, kn->nparams, &err) != HS_OK)
                        fail_msg("%s/%s: %s", names[i], kn->name, err.msg);
                }
            }
            hs_workload_free(w);
        }
    {
        /* va small: n = 10000 floats; add reads 2 x 40000 bytes, sends 40000;
         * its CPU cost: 1 us + max(1e4 / 2e5, 120000 B / 20000 B/us) = 7 us */
        hs_workload *w = platform("cpu:1,gpu:1");
        assert_int_equal(hs_gen_benchmark(w, "va", HS_GEN_SMALL, 3, NULL, &err), 0);
        finalize_ok(w);
        assert_int_equal(w->graph.ntasks, 6);
        assert_float_equal(w->graph.tasks[0].input_bytes, 80000, 0);
        assert_float_equal(w->graph.edges[0].bytes, 40000, 0);
        assert_float_equal(w->graph.tasks[0].cost_us[0], 7.0, 0);
        round_trip(w);
        hs_workload_free(w);
    }
    {
        /* cg names the buffer each edge feeds, CG's data flow (gen.c), so
         * that none falls back to generated input: into axpy_x_1 (x 0, y 1,
         * num 2, den 3) p from xpay_0, the previous x, rho_1 from dot_rr_0
         * and pq_1.  No edge carries A: every gemv reads its own from host
         * (n = 1024: 4 MiB), as the executor generates it.  The names read
         * back. */
        static const struct {
            const char *from, *to, *buffer;
            int feeds;
        } want[] = {{"xpay_0", "axpy_x_1", "x", 0},        {"axpy_x_0", "axpy_x_1", "y", 1},
                    {"dot_rr_0", "axpy_x_1", "num", 2},    {"dot_pq_1", "axpy_x_1", "den", 3},
                    {"dot_rr_1", "xpay_1", "num", 2},
                    {"dot_rr_0", "xpay_1", "den", 3},      {"gemv_2", "dot_pq_2", "y", 1}};
        hs_workload *w = platform("cpu:1,gpu:1");
        const hs_app *a;
        size_t found = 0;
        assert_int_equal(hs_gen_benchmark(w, "cg", HS_GEN_SMALL, 1, NULL, &err), 0);
        finalize_ok(w);
        a = &w->apps[0];
        for (int e = 0; e < a->nedges; e++) {
            const hs_kernel_edge *ke = &a->edges[e];
            assert_non_null(ke->buffer);
            for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
                if (strcmp(a->kernels[ke->from].name, want[i].from) == 0 &&
                    strcmp(a->kernels[ke->to].name, want[i].to) == 0) {
                    assert_string_equal(ke->buffer, want[i].buffer);
                    assert_int_equal(ke->feeds, want[i].feeds);
                    found++;
                }
        }
        assert_int_equal(found, sizeof want / sizeof want[0]);
        for (int k = 0; k < a->nkernels; k++)
            if (strncmp(a->kernels[k].name, "gemv_", 5) == 0)
                assert_float_equal(a->kernels[k].input_bytes,
                                   1024.0 * 1024 * 4 + (k == 0 ? 1024 * 4 : 0), 0);
        for (int e = 0; e < a->nedges; e++)
            assert_true(strcmp(a->kernels[a->edges[e].to].type, "gemv") != 0 ||
                        strcmp(a->kernels[a->edges[e].from].type, "gemv") != 0);
        round_trip(w);
        hs_workload_free(w);
    }
    {
        /* xgemm medium: n = 4096, each product reads two 64 MiB matrices */
        hs_workload *w = platform("cpu:1,gpu:1");
        assert_int_equal(hs_gen_benchmark(w, "xgemm", HS_GEN_MEDIUM, 1, NULL, &err), 0);
        assert_float_equal(w->apps[0].kernels[0].params[0].value, 4096, 0);
        assert_float_equal(w->apps[0].kernels[0].input_bytes, 2.0 * 4096 * 4096 * 4, 0);
        expect_error(hs_gen_benchmark(w, "nbody", HS_GEN_SMALL, 1, NULL, &err), &err,
                     HS_EINPUT,
                     "no benchmark 'nbody' (xgemm, cg, cholesky, increment, va, pi, fblock)");
        hs_workload_free(w);
    }
}

static void compositions(void **state)
{
    /* compute: 1 of each (3+18+20+4+2+1001+4 = 1052 tasks) + 3 cholesky
     * (60) + 3 pi (3003) = 4115; data: 1052 + 3 va (6) + 3 increment (12)
     * = 1070; mixed: 2 x 1052 = 2104 */
    const char *kinds[] = {"compute", "data", "mixed"};
    const size_t tasks[] = {4115, 1070, 2104};
    hs_error err = {0};
    (void)state;
    for (int i = 0; i < 3; i++) {
        hs_workload *w = platform("cpu:1,gpu:2");
        assert_int_equal(hs_gen_composition(w, kinds[i], HS_GEN_SMALL, NULL, &err), 0);
        finalize_ok(w);
        assert_int_equal(w->napps, 7);
        assert_int_equal(w->graph.ntasks, tasks[i]);
        if (i == 2)
            round_trip(w);
        hs_workload_free(w);
    }
    {
        hs_workload *w = platform("cpu:1");
        expect_error(hs_gen_composition(w, "busy", HS_GEN_SMALL, NULL, &err), &err, HS_EINPUT,
                     "no composition 'busy' (compute, data, mixed)");
        hs_workload_free(w);
    }
}

/* Every generator refuses, before it builds anything, a workload beyond the
 * limits of graph.h (what the loader refuses too): its output is bounded. */
static void size_bounds(void **state)
{
    hs_workload *w = platform("cpu:1,gpu:1");
    hs_gen_random_opts r;
    hs_gen_forkjoin_opts f;
    hs_gen_cholesky_opts c;
    hs_error err = {0};
    (void)state;
    assert_float_equal(hs_gen_cholesky_tasks(4), 20, 0);
    assert_float_equal(hs_gen_cholesky_tasks(180), 988260, 0);
    assert_float_equal(hs_gen_cholesky_tasks(181), 1004731, 0);
    hs_gen_cholesky_defaults(&c);
    c.tiles = 1000; /* 166666500 gemm alone: refused at once */
    expect_error(hs_gen_cholesky(w, &c, &err), &err, HS_EINPUT,
                 "tiles and instances must be >= 1 and make at most 1000000 tasks, not 1000 "
                 "tiles (167167000 tasks) x 1 instances");
    c.tiles = 180;
    c.instances = 2;
    expect_error(hs_gen_cholesky(w, &c, &err), &err, HS_EINPUT,
                 "tiles and instances must be >= 1 and make at most 1000000 tasks, not 180 "
                 "tiles (988260 tasks) x 2 instances");
    hs_gen_cholesky_defaults(&c);
    c.tile_size = HS_GEN_MAX_TILE_SIZE + 1;
    expect_error(hs_gen_cholesky(w, &c, &err), &err, HS_EINPUT,
                 "tile size must be 1..32768, not 32769");
    assert_int_equal(w->napps, 0);

    hs_gen_random_defaults(&r);
    r.tasks = hs_max_tasks() + 1;
    expect_error(hs_gen_random(w, &r, &err), &err, HS_EINPUT,
                 "tasks must be 1..1000000 (HETSCHED_MAX_TASKS raises the limit), not "
                 "1000001");
    r.tasks = 100000;
    r.out_degree = 41;
    expect_error(hs_gen_random(w, &r, &err), &err, HS_EINPUT,
                 "100000 tasks with out-degree 41 make about 4100000 edges, more than the "
                 "4000000 a workload may have");
    hs_gen_forkjoin_defaults(&f);
    f.width = 1000000;
    expect_error(hs_gen_forkjoin(w, &f, &err), &err, HS_EINPUT,
                 "width and depth must be >= 1 and make at most 1000000 tasks and 4000000 "
                 "edges, not 1000000 and 2");
    f.width = 499998; /* 1 + 2 x 499999 tasks: they fit */
    f.bytes = 2e15;
    expect_error(hs_gen_forkjoin(w, &f, &err), &err, HS_EINPUT,
                 "bytes must be a whole number from 0 to 1e+15, not 2e+15");
    assert_int_equal(w->napps, 0);
    hs_workload_free(w);

    /* instances beyond the task limit: finalize refuses, as the loader does */
    w = platform("cpu:1,gpu:1");
    assert_int_equal(hs_gen_benchmark(w, "pi", HS_GEN_SMALL, 1000, NULL, &err), 0);
    expect_error(hs_workload_finalize(w, &err), &err, HS_EINPUT,
                 "applications[0].instances: 1000 instances of 1001 kernels bring the workload "
                 "to 1001000 tasks, more than the limit of 1000000 (HETSCHED_MAX_TASKS "
                 "raises it)");
    hs_workload_free(w);
}

/* Costs and transfers beyond graph.h's bounds are refused in the
 * generators' words, and a kernel's params as the kernel type checks them. */
static void value_bounds(void **state)
{
    hs_workload *w = platform("cpu:1,gpu:1");
    hs_gen_random_opts r;
    hs_gen_cholesky_opts c;
    hs_error err = {0};
    (void)state;
    /* potrf_0: 1 us + 512^3 / 3 flops at 1e-9 GFLOP/s (1e-6 flop/us) */
    hs_gen_cholesky_defaults(&c);
    c.rates.cpu_gflops = 1e-9;
    expect_error(hs_gen_cholesky(w, &c, &err), &err, HS_EINPUT,
                 "kernel 'potrf_0' would cost 4.47392e+13 us on cpu, more than the 1e+12 us a "
                 "cost may be");
    hs_workload_free(w);

    w = platform("cpu:1,gpu:1");
    hs_gen_random_defaults(&r);
    r.mean_cost_us = 1e6;
    r.ccr = 1e6;
    assert_int_equal(hs_gen_random(w, &r, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "ccr 1e+06 asks for transfers of up to "));
    assert_non_null(strstr(err.msg, "more than the 1e+15 bytes or 1e+12 us a transfer may be: "
                                    "lower the ccr or the mean cost"));
    hs_workload_free(w);

    /* the largest tile the kernel types take loads back (the loader checks
     * params as they do) */
    w = platform("cpu:1,gpu:1");
    hs_gen_cholesky_defaults(&c);
    c.tiles = 2;
    c.tile_size = HS_GEN_MAX_TILE_SIZE;
    assert_int_equal(hs_gen_cholesky(w, &c, &err), 0);
    finalize_ok(w);
    round_trip(w);
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- YAML */

static void yaml_text(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    size_t len;
    char *text;
    (void)state;
    hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err);
    hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err);
    hs_platform_add_link(w, "host", "gpu0", 12.5, 10, &err);
    hs_platform_add_link(w, "gpu0", "host", 12.5, 0.1, &err);
    hs_workload_add_app(w, "va", 2, &err);
    hs_app_add_kernel(w, 0, "add", &err);
    hs_kernel_set_type(w, 0, 0, "va", &err);
    hs_kernel_add_param(w, 0, 0, "n", 50000, &err);
    hs_kernel_set_cost(w, 0, 0, "cpu", 568, &err);
    hs_kernel_set_cost(w, 0, 0, "gpu0", 422.25, &err);
    hs_kernel_set_bytes(w, 0, 0, 400000, 0, &err);
    hs_app_add_kernel(w, 0, "1", &err); /* a name that looks like a number */
    hs_kernel_set_cost(w, 0, 1, "cpu", 1.0 / 3.0, &err);
    hs_kernel_set_cost(w, 0, 1, "gpu", 242, &err);
    hs_kernel_set_bytes(w, 0, 1, 0, 200000, &err);
    assert_int_equal(hs_app_add_edge(w, 0, "add", "1", 200000, &err), 0);
    finalize_ok(w);
    text = to_yaml(w, &len);
    /* 1/3 reads back exactly from 16 digits (the 17th, ...31, is not
     * needed); 12.5, 0.1 and 422.25 from few */
    assert_string_equal(text,
                        "platform:\n"
                        "  devices:\n"
                        "  - {name: cpu0, kind: cpu, memory: host, cores: 4}\n"
                        "  - {name: gpu0, kind: gpu, memory: gpu0}\n"
                        "  links:\n"
                        "  - {from: host, to: gpu0, bandwidth_gbps: 12.5, latency_us: 10}\n"
                        "  - {from: gpu0, to: host, bandwidth_gbps: 12.5, latency_us: 0.1}\n"
                        "applications:\n"
                        "- name: va\n"
                        "  instances: 2\n"
                        "  kernels:\n"
                        "  - {name: add, type: va, params: {n: 50000}, cost_us: {cpu: 568, "
                        "gpu0: 422.25}, input_bytes: 400000}\n"
                        "  - {name: \"1\", cost_us: {cpu: 0.3333333333333333, gpu: 242}, "
                        "output_bytes: 200000}\n"
                        "  edges:\n"
                        "  - {from: add, to: \"1\", bytes: 200000}\n");
    free(text);
    round_trip(w);
    hs_workload_free(w);
}

/* Names a YAML 1.1 reader would take for null, a boolean or a number, in
 * any case, are quoted; names that only start like them are not. */
static void yaml_quotes_words(void **state)
{
    static const char *const quoted[] = {"No", "TRUE", "~", "Off", ".Inf", "-.inf", "NULL", "1e3"};
    static const char *const plain[] = {"Nope", "on1", "nul", "offs", "t12", "falsey", "y1"};
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    char line[64];
    size_t len;
    char *text;
    int k = 0;
    (void)state;
    hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err);
    hs_workload_add_app(w, "words", 1, &err);
    for (size_t i = 0; i < sizeof quoted / sizeof *quoted; i++, k++) {
        assert_int_equal(hs_app_add_kernel(w, 0, quoted[i], &err), k);
        hs_kernel_set_cost(w, 0, k, "cpu0", 1, &err);
    }
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++, k++) {
        assert_int_equal(hs_app_add_kernel(w, 0, plain[i], &err), k);
        hs_kernel_set_cost(w, 0, k, "cpu0", 1, &err);
    }
    finalize_ok(w);
    text = to_yaml(w, &len);
    for (size_t i = 0; i < sizeof quoted / sizeof *quoted; i++) {
        snprintf(line, sizeof line, "  - {name: \"%s\", cost_us: {cpu0: 1}}\n", quoted[i]);
        assert_non_null(strstr(text, line));
    }
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        snprintf(line, sizeof line, "  - {name: %s, cost_us: {cpu0: 1}}\n", plain[i]);
        assert_non_null(strstr(text, line));
    }
    free(text);
    round_trip(w);
    hs_workload_free(w);
}

/* Random graphs of many shapes survive the trip through YAML unchanged. */
static void yaml_round_trip_random(void **state)
{
    int done = 0;
    (void)state;
    for (unsigned long seed = 1; seed <= 5; seed++) {
        hs_gen_random_opts o;
        hs_workload *w;
        hs_gen_random_defaults(&o);
        o.tasks = 50 * seed;
        o.seed = seed;
        o.beta = 0.35 * (double)seed;
        o.ccr = 0.2 * (double)seed;
        w = random_graph(&o, seed % 2 ? "cpu:1,gpu:2" : "cpu:2,gpu:1");
        done += round_trip(w);
        hs_workload_free(w);
    }
    if (!done)
        skip(); /* the loader is not built yet */
}

/* hs_gen_cluster: names, memories, links, the network and its routes; a
 * random graph on it reads back the same from YAML (gpu_direct too). */
static void cluster(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_gen_random_opts o;
    hs_error err = {0};
    const hs_platform *p = &w->platform;
    int g0, g21;
    (void)state;
    assert_int_equal(hs_gen_cluster(w, "cpu:1,gpu:2", 8, 3, &err), 0);
    assert_int_equal(p->ndevices, 9);
    assert_int_equal(p->nmemories, 9);
    assert_int_equal(p->nnodes, 3);
    assert_string_equal(p->devices[3].name, "n1.cpu0");
    assert_string_equal(p->memories[p->devices[3].memory], "n1.host");
    assert_int_equal(p->devices[3].cores, 8);
    assert_string_equal(p->memories[p->nodes[0].host], "host");
    assert_int_equal(p->nnetwork, 6);
    g0 = hs_platform_find_memory(p, "n0.gpu0");
    g21 = hs_platform_find_memory(p, "n2.gpu1");
    /* n0.gpu0 -> host -> n2.host -> n2.gpu1: 12 GB/s + 10 us twice, 12.5 GB/s + 2 us */
    assert_float_equal(hs_transfer_us(p, g0, g21, 1.2e6),
                       (10 + 100) + (2 + 1.2e6 / 12500) + (10 + 100), 1e-9);
    /* within a node, peer to peer */
    assert_float_equal(hs_transfer_us(p, hs_platform_find_memory(p, "n2.gpu0"), g21, 1e6),
                       10 + 100, 1e-9);
    w->platform.network[0 * 3 + 2].gpu_direct = 1;
    hs_gen_random_defaults(&o);
    o.tasks = 60;
    if (hs_gen_random(w, &o, &err) < 0)
        fail_msg("%s", err.msg);
    finalize_ok(w);
    assert_float_equal(hs_transfer_us(p, g0, g21, 1.25e6), 2 + 100, 1e-9);
    round_trip(w);
    expect_error(hs_gen_cluster(w, "cpu:1", 4, 2, &err), &err, HS_EUSAGE,
                 "the workload already has devices");
    hs_workload_free(w);
    w = hs_workload_new();
    expect_error(hs_gen_cluster(w, "cpu:1,gpu:8", 4, 57, &err), &err, HS_EINPUT,
                 "nodes must be 1..256 with at most 512 devices in all, not 57 of 9 devices");
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(platform_builder),  cmocka_unit_test(random_is_seeded),
        cmocka_unit_test(random_invariants), cmocka_unit_test(random_ccr),
        cmocka_unit_test(random_refusals),   cmocka_unit_test(forkjoin_counts),
        cmocka_unit_test(cholesky_counts),   cmocka_unit_test(benchmarks),
        cmocka_unit_test(compositions),      cmocka_unit_test(yaml_text), cmocka_unit_test(yaml_quotes_words),
        cmocka_unit_test(yaml_round_trip_random), cmocka_unit_test(size_bounds),
        cmocka_unit_test(value_bounds),      cmocka_unit_test(cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
