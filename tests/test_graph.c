/* Tests of graph/: the transfer formula, the builder's checks, cost
 * resolution, flattening, topological order and task ids. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"
#include "graph/strmap.h"

/* The name index: every key found with its value after the table has
 * doubled past 2 MB (the huge-page table), by a look-up whole or in
 * stages, a key given twice keeps its first value and copy, keys that
 * differ in a last character or only in length stay apart, and a missing
 * key is not found. */
static void strmap_keys(void **state)
{
    enum { N = 200000 };
    hs__strmap *m = hs__strmap_new(0);
    const char *copy, *again, *first = NULL;
    char key[32];
    size_t v;
    (void)state;
    assert_non_null(m);
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "t%d", i);
        assert_int_equal(hs__strmap_add(m, key, (size_t)i * 3, &copy), 0);
        assert_string_equal(copy, key);
        assert_ptr_not_equal(copy, key);
        if (i == 0)
            first = copy;
    }
    assert_int_equal(hs__strmap_add(m, "t0", 7, &again), 1);
    assert_ptr_equal(again, first); /* the copy outlives the table's growth */
    assert_ptr_equal(hs__strmap_intern(m, "t0"), first);
    assert_int_equal(hs__strmap_put(m, "t12345", 1), 1);
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "t%d", i);
        assert_int_equal(hs__strmap_get(m, key, &v), 1);
        assert_int_equal(v, (size_t)i * 3);
    }
    assert_int_equal(hs__strmap_get(m, "t200000", &v), 0);
    /* the look-up in stages finds what hs__strmap_get finds; a stage on a
     * missing key, or an empty slot, only loads */
    for (int i = N - 256; i < N + 256; i++) {
        uint64_t h;
        snprintf(key, sizeof key, "t%d", i);
        h = hs__strmap_hash(key);
        for (int stage = 1; stage <= 3; stage++)
            hs__strmap_prefetch_stage(m, h, stage);
        v = 1;
        assert_int_equal(hs__strmap_get_hashed(m, key, h, &v), i < N);
        assert_int_equal(v, i < N ? (size_t)i * 3 : 1);
    }
    assert_int_equal(hs__strmap_get(m, "t", &v), 0);
    assert_int_equal(hs__strmap_get(m, "", &v), 0);
    assert_int_equal(hs__strmap_put(m, "", 9), 0);
    assert_int_equal(hs__strmap_get(m, "", &v), 1);
    assert_int_equal(v, 9);
    /* intern adds a key that is not there, with value 0 */
    copy = hs__strmap_intern(m, "new");
    assert_string_equal(copy, "new");
    assert_int_equal(hs__strmap_get(m, "new", &v), 1);
    assert_int_equal(v, 0);
    hs__strmap_free(m);
}

/* cpu0 (host), gpu0 (gpu0), gpu1 (gpu1); links host<->gpu0 only. */
static hs_workload *two_gpus(void)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err), 2);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 12.0, 10.0, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 8.0, 5.0, &err), 1);
    return w;
}

static void transfer_formula(void **state)
{
    hs_workload *w = two_gpus();
    const hs_platform *p = &w->platform;
    (void)state;
    /* 10 us + 200000 B / (12 GB/s * 1000 B/us/GB/s) = 10 + 16.6667 */
    assert_float_equal(hs_transfer_us(p, 0, 1, 200000), 10.0 + 200000.0 / 12000.0, 1e-9);
    /* the other direction has its own figures: 5 + 4194304 / 8000 = 529.288 */
    assert_float_equal(hs_transfer_us(p, 1, 0, 4194304), 529.288, 1e-9);
    /* same memory, or no data: free */
    assert_float_equal(hs_transfer_us(p, 1, 1, 1e9), 0.0, 0);
    assert_float_equal(hs_transfer_us(p, 0, 1, 0), 0.0, 0);
    /* no link: infinite */
    assert_true(isinf(hs_transfer_us(p, 1, 2, 1)));
    hs_workload_free(w);
}

static void expect_error(int rc, const hs_error *err, const char *msg)
{
    assert_int_equal(rc, HS_EINPUT);
    assert_int_equal(err->code, HS_EINPUT);
    assert_string_equal(err->msg, msg);
}

/* Two nodes: n0 with cpu0 (host) and gpu0 (gpu0), n1 with cpu1 (n1.host)
 * and gpu1 (n1.gpu1); host <-> GPU links of 10 GB/s and 10 us in each
 * node (n1.gpu1 -> n1.host only when `back`); the network n0 <-> n1 at
 * 5 GB/s and 2 us, reaching device memory when `direct`. */
static hs_workload *two_nodes(int direct, int back)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    assert_int_equal(hs_platform_add_node(w, "n0", NULL, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 10, 10, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 10, 10, &err), 1);
    assert_int_equal(hs_platform_add_node(w, "n1", "n1.host", &err), 1);
    assert_int_equal(hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "n1.host", 4, &err), 2);
    assert_int_equal(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "n1.gpu1", 0, &err), 3);
    assert_int_equal(hs_platform_add_link(w, "n1.host", "n1.gpu1", 10, 10, &err), 0);
    if (back)
        assert_int_equal(hs_platform_add_link(w, "n1.gpu1", "n1.host", 10, 10, &err), 1);
    assert_int_equal(hs_platform_add_network_link(w, "n0", "n1", 5, 2, direct, &err), 0);
    assert_int_equal(hs_platform_add_network_link(w, "n1", "n0", 5, 2, direct, &err), 1);
    hs_platform_route(&w->platform);
    return w;
}

/* Memories: host 0, gpu0 1, n1.host 2, n1.gpu1 3.  1 MB takes 100 us over
 * a node's links and 200 us over the network; a route adds its hops. */
static void cluster_routes(void **state)
{
    hs_workload *w = two_nodes(0, 1);
    const hs_platform *p = &w->platform;
    (void)state;
    assert_int_equal(p->nmemories, 4);
    assert_int_equal(p->memory_node[2], 1);
    assert_int_equal(p->nodes[1].host, 2);
    /* gpu0 -> host -> network -> n1.host -> n1.gpu1: (10 + 100) + (2 + 200) + (10 + 100) */
    assert_float_equal(hs_transfer_us(p, 1, 3, 1e6), 422.0, 1e-9);
    assert_true(p->links[1 * 4 + 3].route);
    assert_float_equal(p->links[1 * 4 + 3].bandwidth_gbps, 2.5, 1e-12);
    assert_float_equal(p->links[1 * 4 + 3].latency_us, 22.0, 0);
    /* host -> network -> n1.host -> n1.gpu1: 202 + 110; and back */
    assert_float_equal(hs_transfer_us(p, 0, 3, 1e6), 312.0, 1e-9);
    assert_float_equal(hs_transfer_us(p, 3, 0, 1e6), 312.0, 1e-9);
    /* host -> n1.host: the network alone */
    assert_float_equal(hs_transfer_us(p, 0, 2, 1e6), 202.0, 1e-9);
    /* within a node, the declared link */
    assert_float_equal(hs_transfer_us(p, 2, 3, 1e6), 110.0, 1e-9);
    assert_false(p->links[2 * 4 + 3].route);
    hs_workload_free(w);

    /* gpu_direct: the network reaches the GPUs' memories */
    w = two_nodes(1, 1);
    assert_float_equal(hs_transfer_us(&w->platform, 1, 3, 1e6), 202.0, 1e-9);
    assert_float_equal(hs_transfer_us(&w->platform, 3, 0, 1e6), 202.0, 1e-9);
    hs_workload_free(w);

    /* without n1.gpu1 -> n1.host, nothing leaves gpu1 for n0 */
    w = two_nodes(0, 0);
    assert_true(isinf(hs_transfer_us(&w->platform, 3, 1, 1)));
    assert_true(isinf(hs_transfer_us(&w->platform, 3, 0, 1)));
    assert_float_equal(hs_transfer_us(&w->platform, 1, 3, 1e6), 422.0, 1e-9);
    /* routing again replaces the routes, and leaves declared links alone */
    hs_platform_route(&w->platform);
    assert_float_equal(hs_transfer_us(&w->platform, 1, 3, 1e6), 422.0, 1e-9);
    assert_float_equal(hs_transfer_us(&w->platform, 0, 1, 1e6), 110.0, 1e-9);
    hs_workload_free(w);
}

static void cluster_refusals(void **state)
{
    hs_workload *w = two_nodes(0, 1);
    hs_error err = {0};
    int a;
    (void)state;
    expect_error(hs_platform_add_device(w, "gpu2", HS_DEVICE_GPU, "gpu0", 0, &err), &err,
                 "platform.nodes[1].devices[2].memory: memory 'gpu0' belongs to node 'n0', not "
                 "to 'n1' (a node's devices and links name its own memories; platform.network "
                 "joins nodes)");
    expect_error(hs_platform_add_link(w, "n1.host", "gpu0", 1, 1, &err), &err,
                 "platform.nodes[1].links[2].to: memory 'gpu0' belongs to node 'n0', not to "
                 "'n1' (a node's devices and links name its own memories; platform.network "
                 "joins nodes)");
    expect_error(hs_platform_add_node(w, "n1", "x", &err), &err,
                 "platform.nodes[2].name: duplicate node name 'n1'");
    expect_error(hs_platform_add_node(w, "n2", NULL, &err), &err,
                 "platform.nodes[2]: missing field 'host': a node after the first names its "
                 "host memory");
    expect_error(hs_platform_add_node(w, "n2", "gpu0", &err), &err,
                 "platform.nodes[2].host: memory 'gpu0' belongs to node 'n0' (each node has a "
                 "host memory of its own)");
    expect_error(hs_platform_add_network_link(w, "n0", "n9", 1, 1, 0, &err), &err,
                 "platform.network[2].to: no node 'n9' in platform.nodes");
    expect_error(hs_platform_add_network_link(w, "n0", "n0", 1, 1, 0, &err), &err,
                 "platform.network[2].to: a network link joins two different nodes, not 'n0' "
                 "to itself");
    expect_error(hs_platform_add_network_link(w, "n0", "n1", 1, 1, 0, &err), &err,
                 "platform.network[2]: duplicate network link from 'n0' to 'n1'");
    assert_int_equal(hs_platform_add_node(w, "n2", "n2.host", &err), 2);
    expect_error(hs_platform_add_network_link(w, "n0", "n2", 0, 1, 0, &err), &err,
                 "platform.network[2].bandwidth_gbps: must be a finite number > 0, not 0");
    hs_workload_free(w);

    w = hs_workload_new();
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), 0);
    expect_error(hs_platform_add_node(w, "n0", NULL, &err), &err,
                 "platform.nodes: a platform lists either devices or nodes (with their "
                 "devices), not both");
    hs_workload_free(w);
    w = hs_workload_new();
    expect_error(hs_platform_add_node(w, "n0", "n0.host", &err), &err,
                 "platform.nodes[0].host: the first node's host memory is 'host' (the "
                 "applications' input_bytes start there and their output_bytes go back "
                 "there), not 'n0.host'");
    hs_workload_free(w);

    /* finalize names the missing hop of a route */
    w = two_nodes(0, 0);
    a = hs_workload_add_app(w, "app", 1, &err);
    assert_int_equal(hs_app_add_kernel(w, a, "k", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "m", &err), 1);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "cpu", 1, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 0, "gpu", 1, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "cpu", 1, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, 1, "gpu", 1, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "k", "m", 8, &err), 0);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[0].edges[0]: no route from 'n1.gpu1' to 'host': a copy "
                 "between nodes goes through their host memories, and node 'n1' has no link "
                 "from 'n1.gpu1' to 'n1.host' in platform.nodes[1].links (data from 'k' to 'm' "
                 "may move between devices 'gpu1' and 'cpu0')");
    hs_workload_free(w);
}


static void builder_refusals(void **state)
{
    hs_workload *w = two_gpus();
    hs_error err = {0};
    int a;
    (void)state;
    expect_error(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu9", 0, &err), &err,
                 "platform.devices[3].name: duplicate device name 'gpu0'");
    assert_string_equal(err.path, "platform.devices[3].name");
    expect_error(hs_platform_add_link(w, "host", "gpu7", 1, 1, &err), &err,
                 "platform.links[2].to: no memory 'gpu7' (memories are 'host' and those the "
                 "devices name)");
    expect_error(hs_platform_add_link(w, "host", "gpu0", 1, 1, &err), &err,
                 "platform.links[2]: duplicate link from 'host' to 'gpu0'");
    expect_error(hs_platform_add_link(w, "gpu0", "gpu1", -3, 1, &err), &err,
                 "platform.links[2].bandwidth_gbps: must be a finite number > 0, not -3");
    expect_error(hs_platform_add_link(w, "gpu0", "gpu1", 3, NAN, &err), &err,
                 "platform.links[2].latency_us: must be a finite number >= 0, not nan");
    a = hs_workload_add_app(w, "xgemm", 1, &err);
    assert_int_equal(a, 0);
    expect_error(hs_workload_add_app(w, "xgemm", 1, &err), &err,
                 "applications[1].name: duplicate application name 'xgemm'");
    expect_error(hs_workload_add_app(w, "b", 0, &err), &err,
                 "applications[1].instances: must be a whole number >= 1, not 0");
    assert_int_equal(hs_app_add_kernel(w, a, "ab", &err), 0);
    expect_error(hs_app_add_kernel(w, a, "ab", &err), &err,
                 "applications[0].kernels[1].name: duplicate kernel name 'ab' in application "
                 "'xgemm'");
    expect_error(hs_app_add_kernel(w, a, "a/b", &err), &err,
                 "applications[0].kernels[1].name: 'a/b' may not contain '#', '/', '[', ']', "
                 "'\"' or control characters (they delimit task ids)");
    expect_error(hs_app_add_edge(w, a, "ab", "mul", 8, &err), &err,
                 "applications[0].edges[0].to: no kernel 'mul' in application 'xgemm'");
    assert_string_equal(err.path, "applications[0].edges[0].to");
    expect_error(hs_kernel_set_cost(w, a, 0, "cpu", -1, &err), &err,
                 "applications[0].kernels[0].cost_us.cpu: must be a finite number >= 0, not -1");
    expect_error(hs_kernel_set_cost(w, a, 0, "gpu", INFINITY, &err), &err,
                 "applications[0].kernels[0].cost_us.gpu: must be a finite number >= 0, not inf");
    expect_error(hs_kernel_set_bytes(w, a, 0, 1, -5, &err), &err,
                 "applications[0].kernels[0].output_bytes: must be a finite number >= 0, not -5");
    hs_workload_free(w);
}

/* The builder's indexes at a size that grows them many times: every
 * kernel found by name, every duplicate edge refused, and after finalize
 * every task-graph edge traced back to its kernel edge. */
static void builder_indexes(void **state)
{
    enum { N = 20000 };
    hs_workload *w = two_gpus();
    hs_error err = {0};
    char from[16], to[16];
    int a = hs_workload_add_app(w, "big", 1, &err);
    (void)state;
    for (int k = 0; k < N; k++) {
        snprintf(from, sizeof from, "k%d", k);
        assert_int_equal(hs_app_add_kernel(w, a, from, &err), k);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1 + k % 7, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 1 + k % 5, &err), 0);
    }
    for (int k = 0; k + 7 < N; k++) {
        snprintf(from, sizeof from, "k%d", k);
        snprintf(to, sizeof to, "k%d", k + 1);
        assert_int_equal(hs_app_add_edge(w, a, from, to, 0, &err), 2 * k); /* gpu1 has no link */
        snprintf(to, sizeof to, "k%d", k + 7);
        assert_int_equal(hs_app_add_edge(w, a, from, to, 0, &err), 2 * k + 1);
    }
    expect_error(hs_app_add_edge(w, a, "k123", "k130", 1, &err), &err,
                 "applications[0].edges[39986]: duplicate edge from 'k123' to 'k130'");
    expect_error(hs_app_add_edge(w, a, "k5", "k5", 1, &err), &err,
                 "applications[0].edges[39986].to: kernel 'k5' cannot depend on itself");
    expect_error(hs_app_add_edge(w, a, "nope", "k5", 1, &err), &err,
                 "applications[0].edges[39986].from: no kernel 'nope' in application 'big'");
    expect_error(hs_app_add_edge(w, a, "k123", "k130", -1, &err), &err, /* duplicate first */
                 "applications[0].edges[39986]: duplicate edge from 'k123' to 'k130'");
    expect_error(hs_app_add_edge(w, a, "k123", "k129", -1, &err), &err,
                 "applications[0].edges[39986].bytes: must be a finite number >= 0, not -1");
    assert_int_equal(hs_app_add_edge(w, a, "k123", "k129", 0, &err), 39986); /* a new pair */
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_string_equal(w->apps[0].kernels[123].name, "k123");
    assert_string_equal(w->apps[0].kernels[N - 1].name, "k19999");
    assert_int_equal(w->graph.nedges, 39987);
    for (size_t e = 0; e < w->graph.nedges; e++) {
        const hs_edge *ge = &w->graph.edges[e];
        const hs_kernel_edge *ke = hs_edge_origin(w, &w->graph, ge);
        assert_non_null(ke);
        assert_int_equal(ke->from, w->graph.tasks[ge->from].kernel);
        assert_int_equal(ke->to, w->graph.tasks[ge->to].kernel);
    }
    /* finalize keeps the edges sorted by source instead of their hash */
    assert_null(w->apps[0].edge_set);
    {
        hs_edge none = {.from = 0, .to = 5}, seventh = {.from = 123, .to = 130},
                last = {.from = N - 2, .to = N - 1};
        assert_null(hs_edge_origin(w, &w->graph, &none));
        assert_ptr_equal(hs_edge_origin(w, &w->graph, &seventh), &w->apps[0].edges[247]);
        assert_null(hs_edge_origin(w, &w->graph, &last)); /* k19998 -> k19999 was not added */
        none.from = N - 9;
        none.to = N - 8;
        assert_ptr_equal(hs_edge_origin(w, &w->graph, &none), &w->apps[0].edges[2 * (N - 9)]);
    }
    hs_workload_free(w);
}

/* The duplicate check on kernels of every out-degree, their edges given
 * in no order: a hub with 100 successors (past the chains' 32, where its
 * edges move to a hash), kernels of 31 to 34; every pair refused once
 * added, before and after its source turns heavy, and each traced back
 * by hs_edge_origin after finalize. */
static void builder_edge_set(void **state)
{
    enum { N = 120 };
    static const int degrees[] = {100, 31, 32, 33, 34, 1};
    hs_workload *w = two_gpus();
    hs_error err = {0};
    char from[16], to[16];
    int a = hs_workload_add_app(w, "fan", 1, &err), added = 0, next[6] = {0};
    int want[6 * N];
    (void)state;
    for (int k = 0; k < N; k++) {
        snprintf(from, sizeof from, "k%d", k);
        assert_int_equal(hs_app_add_kernel(w, a, from, &err), k);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, a, k, "gpu", 1, &err), 0);
    }
    /* sources 0..5 take turns, each to kernels 10, 11, ... up to its
     * degree (0 bytes: gpu1 has no link) */
    for (int round = 0; round < N; round++)
        for (int f = 0; f < 6; f++) {
            if (next[f] == degrees[f])
                continue;
            snprintf(from, sizeof from, "k%d", f);
            snprintf(to, sizeof to, "k%d", 10 + next[f]);
            assert_int_equal(hs_app_add_edge(w, a, from, to, 0, &err), added);
            want[f * N + next[f]++] = added++;
            /* every pair of f so far, first and newest, is now refused */
            snprintf(to, sizeof to, "k%d", 10);
            assert_int_equal(hs_app_add_edge(w, a, from, to, 0, &err), HS_EINPUT);
            snprintf(to, sizeof to, "k%d", 10 + next[f] - 1);
            assert_int_equal(hs_app_add_edge(w, a, from, to, 0, &err), HS_EINPUT);
        }
    assert_int_equal(added, 100 + 31 + 32 + 33 + 34 + 1);
    assert_int_equal(w->apps[a].nedges, added);
    expect_error(hs_app_add_edge(w, a, "k0", "k60", -1, &err), &err, /* duplicate first */
                 "applications[0].edges[231]: duplicate edge from 'k0' to 'k60'");
    /* a kernel added after the edges, and edges into and out of it */
    assert_int_equal(hs_app_add_kernel(w, a, "late", &err), N);
    assert_int_equal(hs_kernel_set_cost(w, a, N, "cpu", 1, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, a, N, "gpu", 1, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "late", "k119", 0, &err), added);
    assert_int_equal(hs_app_add_edge(w, a, "k0", "late", 0, &err), added + 1);
    expect_error(hs_app_add_edge(w, a, "late", "k119", 0, &err), &err,
                 "applications[0].edges[233]: duplicate edge from 'late' to 'k119'");
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_null(w->apps[a].edge_set);
    for (int f = 0; f < 6; f++)
        for (int i = 0; i < degrees[f]; i++) {
            hs_edge e = {.from = (size_t)f, .to = (size_t)(10 + i)};
            assert_ptr_equal(hs_edge_origin(w, &w->graph, &e),
                             &w->apps[a].edges[want[f * N + i]]);
        }
    {
        hs_edge none = {.from = 1, .to = 10 + 31};
        assert_null(hs_edge_origin(w, &w->graph, &none));
    }
    hs_workload_free(w);

    /* finalize failing after it freed the set (bytes to gpu1, which has no
     * link): the set is built again for the next edge's check */
    w = two_gpus();
    a = hs_workload_add_app(w, "again", 1, &err);
    assert_int_equal(hs_app_add_kernel(w, a, "x", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, a, "y", &err), 1);
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++)
            assert_int_equal(hs_kernel_set_cost(w, a, k, d ? "gpu" : "cpu", 1, &err), 0);
    assert_int_equal(hs_app_add_edge(w, a, "x", "y", 1, &err), 0);
    assert_int_not_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_null(w->apps[a].edge_set);
    expect_error(hs_app_add_edge(w, a, "x", "y", 0, &err), &err,
                 "applications[0].edges[1]: duplicate edge from 'x' to 'y'");
    assert_int_equal(hs_app_add_edge(w, a, "y", "x", 0, &err), 1);
    hs_workload_free(w);
}

static void finalize_refusals(void **state)
{
    hs_error err = {0};
    hs_workload *w;
    (void)state;

    /* a cost missing for one device */
    w = two_gpus();
    assert_int_equal(hs_workload_add_app(w, "va", 1, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "add", &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, 0, "cpu", 5, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, 0, "gpu0", 5, &err), 0);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[0].kernels[0].cost_us: no cost for device 'gpu1' of kernel 'add' "
                 "(give 'gpu1' or 'gpu')");
    hs_workload_free(w);

    /* a cost key that names nothing */
    w = two_gpus();
    hs_workload_add_app(w, "va", 1, &err);
    hs_app_add_kernel(w, 0, "add", &err);
    hs_kernel_set_cost(w, 0, 0, "tpu", 5, &err);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[0].kernels[0].cost_us.tpu: no device or device kind named 'tpu' "
                 "(kinds are cpu, gpu)");
    hs_workload_free(w);

    /* data between gpu0 and gpu1, which have no link */
    w = two_gpus();
    hs_workload_add_app(w, "va", 1, &err);
    hs_app_add_kernel(w, 0, "add", &err);
    hs_app_add_kernel(w, 0, "scale", &err);
    hs_kernel_set_cost(w, 0, 0, "cpu", 1, &err);
    hs_kernel_set_cost(w, 0, 0, "gpu", 1, &err);
    hs_kernel_set_cost(w, 0, 1, "cpu", 1, &err);
    hs_kernel_set_cost(w, 0, 1, "gpu", 1, &err);
    assert_int_equal(hs_app_add_edge(w, 0, "add", "scale", 100, &err), 0);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[0].edges[0]: no link from 'host' to 'gpu1' in platform.links "
                 "(data from 'add' to 'scale' may move between devices 'cpu0' and 'gpu1')");
    hs_workload_free(w);
}

/* Typed kernel `name` of `type` with param n and a cost on the one cpu. */
static int typed(hs_workload *w, int a, const char *name, const char *type, double n)
{
    hs_error err = {0};
    int k = hs_app_add_kernel(w, a, name, &err);
    assert_true(k >= 0);
    assert_int_equal(hs_kernel_set_type(w, a, k, type, &err), HS_OK);
    assert_int_equal(hs_kernel_add_param(w, a, k, "n", n, &err), HS_OK);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1, &err), HS_OK);
    return k;
}

/* Which buffer each edge feeds (the rule of exec/data.h), by hand: into ax
 * (axpy: x 0, y 1, num 2, den 3, 4000 bytes each but the 4-byte num and
 * den) an explicit den and num, two implicit vectors that take x and y (the
 * readable buffers no edge names, in order), an edge of 0 bytes and one with
 * buffer none that only order; into an untyped kernel, an edge that only
 * orders.  Each task-graph edge of both instances comes from its edge. */
static void edge_bindings(void **state)
{
    static const struct {
        const char *from, *to;
        double bytes;
        const char *buffer;
        int feeds;
    } edges[] = {
        {"pq", "ax", 4, "den", 3},   {"u", "ax", 4000, NULL, 0},  {"rr", "ax", 4, "num", 2},
        {"v", "ax", 4000, NULL, 1},  {"nap", "ax", 0, NULL, -1},  {"t", "ax", 4000, "none", -1},
        {"u", "nap", 4000, NULL, -1},
    };
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a, k;
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    a = hs_workload_add_app(w, "cg", 2, &err);
    typed(w, a, "pq", "dot", 1000);
    typed(w, a, "rr", "dot", 1000);
    typed(w, a, "u", "va", 1000);
    typed(w, a, "v", "va", 1000);
    typed(w, a, "t", "va", 1000);
    k = hs_app_add_kernel(w, a, "nap", &err);
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu", 1, &err), HS_OK);
    k = typed(w, a, "ax", "axpy", 1000);
    assert_int_equal(hs_kernel_add_param(w, a, k, "ratio", 1, &err), HS_OK);
    for (int e = 0; e < 7; e++) {
        assert_int_equal(hs_app_add_edge(w, a, edges[e].from, edges[e].to, edges[e].bytes,
                                         &err), e);
        assert_int_equal(hs_edge_set_buffer(w, a, e, edges[e].buffer, &err), HS_OK);
    }
    /* a binding set twice keeps the last; NULL is the implicit rule again */
    assert_int_equal(hs_edge_set_buffer(w, a, 1, "y", &err), HS_OK);
    assert_int_equal(hs_edge_set_buffer(w, a, 1, NULL, &err), HS_OK);
    assert_null(w->apps[a].edges[1].buffer);
    /* refusals: no such edge, an empty or overlong name */
    assert_int_equal(hs_edge_set_buffer(w, a, 7, "x", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "no edge 7 in application 0");
    expect_error(hs_edge_set_buffer(w, a, 0, "", &err), &err,
                 "applications[0].edges[0].buffer: a buffer name is 1 to 512 bytes long, not 0");
    {
        char longname[HS_NAME_MAX + 2];
        memset(longname, 'b', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        expect_error(hs_edge_set_buffer(w, a, 0, longname, &err), &err,
                     "applications[0].edges[0].buffer: a buffer name is 1 to 512 bytes long, "
                     "not 513");
    }
    assert_string_equal(w->apps[a].edges[0].buffer, "den"); /* refusals change nothing */
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    for (int e = 0; e < 7; e++)
        assert_int_equal(w->apps[a].edges[e].feeds, edges[e].feeds);
    assert_int_equal(w->graph.nedges, 14);
    for (size_t e = 0; e < w->graph.nedges; e++)
        assert_ptr_equal(hs_edge_origin(w, &w->graph, &w->graph.edges[e]),
                         &w->apps[a].edges[e % 7]);
    assert_int_equal(hs_edge_set_buffer(w, a, 0, "x", &err), HS_EUSAGE); /* finalized */
    hs_workload_free(w);

    /* a type the registry refuses, on an edge's consumer: reported at it */
    w = hs_workload_new();
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    a = hs_workload_add_app(w, "bad", 1, &err);
    typed(w, a, "u", "va", 1000);
    typed(w, a, "g", "gemm", 0);
    assert_int_equal(hs_app_add_edge(w, a, "u", "g", 4000, &err), 0);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[0].kernels[1].params.n: gemm: param 'n' = 0 is out of range [1, "
                 "65536]");
    assert_int_equal(w->finalized, 0);
    hs_workload_free(w);
}

static void cycle_is_named(void **state)
{
    hs_error err = {0};
    hs_workload *w = two_gpus();
    const char *names[] = {"a", "b", "c", "d"};
    (void)state;
    hs_workload_add_app(w, "va", 1, &err);
    hs_workload_add_app(w, "loop", 1, &err);
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++) {
            hs_app_add_kernel(w, a, names[k], &err);
            hs_kernel_set_cost(w, a, k, "cpu", 1, &err);
            hs_kernel_set_cost(w, a, k, "gpu", 1, &err);
        }
    /* loop: a -> b -> c -> d -> b */
    hs_app_add_edge(w, 1, "a", "b", 0, &err);
    hs_app_add_edge(w, 1, "b", "c", 0, &err);
    hs_app_add_edge(w, 1, "c", "d", 0, &err);
    hs_app_add_edge(w, 1, "d", "b", 0, &err);
    expect_error(hs_workload_finalize(w, &err), &err,
                 "applications[1].edges: cycle in application 'loop': b -> c -> d -> b");
    hs_workload_free(w);
}

/* Task ids read back from their pieces: each application's tasks after
 * the last one's, instances written as %d writes them, parts after. */
static void ids_read_back(void **state)
{
    static const struct {
        const char *app, *kernel;
        int instances;
    } k[] = {{"a", "k", 1}, {"a", "m", 1}, {"ab", "k", 2}, {"x y", "z.w", 12}};
    static const struct {
        const char *id;
        long task; /* -1: none */
    } ids[] = {
        {"a#0/k", 0},     {"a#0/m", 1},    {"ab#1/k", 3},   {"x y#0/z.w", 4},
        {"x y#11/z.w", 15}, {"x y#7/z.w[1/2]", 11},
        {"a#00/k", -1},   {"a#1/k", -1},   {"a#-0/k", -1},  {"x y#12/z.w", -1},
        {"a#0/", -1},     {"#0/k", -1},    {"a", -1},       {"a#0k", -1},
        {"ab#0/m", -1},   {"b#0/k", -1},   {"x y#99999999999/z.w", -1}, {"a#/k", -1},
    };
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        int a = i == 1 ? 0 : hs_workload_add_app(w, k[i].app, k[i].instances, &err);
        int n = hs_app_add_kernel(w, a, k[i].kernel, &err);
        assert_true(a >= 0 && n >= 0);
        assert_int_equal(hs_kernel_set_cost(w, a, n, "cpu", 1, &err), 0);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_int_equal(w->graph.ntasks, 16);
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        size_t task = 99;
        int part, nparts, rc = hs_task_parse_id(w, ids[i].id, &task, &part, &nparts, &err);
        if (ids[i].task < 0 ? rc != HS_EINPUT : rc != HS_OK || task != (size_t)ids[i].task)
            fail_msg("%s: rc %d, task %zu, not %ld", ids[i].id, rc, task, ids[i].task);
    }
    /* every task's own id names it */
    for (size_t t = 0; t < w->graph.ntasks; t++) {
        char id[64];
        size_t back;
        int part, nparts;
        hs_task_id(w, &w->graph.tasks[t], id, sizeof id);
        assert_int_equal(hs_task_parse_id(w, id, &back, &part, &nparts, &err), HS_OK);
        assert_int_equal(back, t);
    }
    hs_workload_free(w);
}

static void flatten_resolve_and_ids(void **state)
{
    hs_error err = {0};
    hs_workload *w = two_gpus();
    size_t order[6], task;
    char id[64];
    int part, nparts;
    (void)state;
    hs_platform_add_link(w, "gpu0", "gpu1", 20, 2, &err);
    hs_platform_add_link(w, "gpu1", "gpu0", 20, 2, &err);
    hs_platform_add_link(w, "host", "gpu1", 12, 10, &err);
    assert_int_equal(hs_platform_add_link(w, "gpu1", "host", 12, 10, &err), 5);
    hs_workload_add_app(w, "va", 3, &err);
    hs_app_add_kernel(w, 0, "add", &err);
    hs_app_add_kernel(w, 0, "scale", &err);
    hs_kernel_set_cost(w, 0, 0, "cpu", 568, &err);
    hs_kernel_set_cost(w, 0, 0, "gpu", 422, &err);
    hs_kernel_set_cost(w, 0, 0, "gpu1", 400, &err); /* a name beats a kind */
    hs_kernel_set_cost(w, 0, 1, "cpu", 1520, &err);
    hs_kernel_set_cost(w, 0, 1, "gpu", 242, &err);
    hs_app_add_edge(w, 0, "add", "scale", 200000, &err);
    /* the kernels share one copy of each cost key */
    assert_ptr_equal(w->apps[0].kernels[0].costs[0].key, w->apps[0].kernels[1].costs[0].key);
    assert_ptr_equal(w->apps[0].kernels[0].costs[1].key, w->apps[0].kernels[1].costs[1].key);
    assert_string_equal(w->apps[0].kernels[0].costs[2].key, "gpu1");
    assert_int_equal(w->apps[0].kernels[0].costs_cap, 4);
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_int_equal(w->apps[0].kernels[0].costs_cap, 3); /* trimmed */
    assert_int_equal(w->apps[0].kernels_cap, 2);
    assert_int_equal(w->apps[0].edges_cap, 1);
    assert_float_equal(w->apps[0].kernels[0].costs[2].us, 400, 0);
    assert_int_equal(w->graph.ntasks, 6);
    assert_int_equal(w->graph.nedges, 3);
    assert_float_equal(w->graph.tasks[4].cost_us[0], 568, 0);
    assert_float_equal(w->graph.tasks[4].cost_us[1], 422, 0);
    assert_float_equal(w->graph.tasks[4].cost_us[2], 400, 0);
    assert_float_equal(hs_task_min_cost(&w->graph, 4), 400, 0);
    assert_int_equal(hs_task_id(w, &w->graph.tasks[5], id, sizeof id), 10);
    assert_string_equal(id, "va#2/scale");
    {
        hs_task part = w->graph.tasks[5];
        part.part = 12;
        part.nparts = 345;
        assert_int_equal(hs_task_id(w, &part, id, sizeof id), 18);
        assert_string_equal(id, "va#2/scale[12/345]");
        assert_int_equal(hs_task_id(w, &part, id, 8), 18); /* cut, as snprintf */
        assert_string_equal(id, "va#2/sc");
        id[0] = 'x';
        assert_int_equal(hs_task_id(w, &part, id, 0), 18);
        assert_int_equal(id[0], 'x');
    }
    assert_int_equal(hs_task_parse_id(w, "va#1/add", &task, &part, &nparts, &err), HS_OK);
    assert_int_equal(task, 2);
    assert_int_equal(nparts, 1);
    assert_int_equal(hs_task_parse_id(w, "va#1/scale[2/3]", &task, &part, &nparts, &err), HS_OK);
    assert_int_equal(task, 3);
    assert_int_equal(part, 2);
    assert_int_equal(nparts, 3);
    expect_error(hs_task_parse_id(w, "va#3/add", &task, &part, &nparts, &err), &err,
                 "no task 'va#3/add' in the workload");
    expect_error(hs_task_parse_id(w, "va#0/add[3/3]", &task, &part, &nparts, &err), &err,
                 "task id 'va#0/add[3/3]': a part is written [k/n] with 0 <= k < n");
    /* every edge goes forward in the topological order */
    assert_int_equal(hs_graph_topo_order(&w->graph, order, &err), HS_OK);
    for (size_t e = 0; e < w->graph.nedges; e++) {
        size_t pf = 0, pt = 0;
        for (size_t i = 0; i < 6; i++) {
            if (order[i] == w->graph.edges[e].from)
                pf = i;
            if (order[i] == w->graph.edges[e].to)
                pt = i;
        }
        assert_true(pf < pt);
    }
    hs_workload_free(w);
}

static void error_table(void **state)
{
    (void)state;
    assert_string_equal(hs_strerror_name(HS_EINPUT), "EINPUT");
    assert_string_equal(hs_strerror(HS_ENOMEM), "out of memory");
    assert_int_equal(hs_error_exit_status(HS_OK), 0);
    assert_int_equal(hs_error_exit_status(HS_EINPUT), 2);
    assert_int_equal(hs_error_exit_status(HS_EUSAGE), 2);
    assert_int_equal(hs_error_exit_status(HS_EIO), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transfer_formula),   cmocka_unit_test(builder_refusals),
        cmocka_unit_test(builder_indexes),    cmocka_unit_test(builder_edge_set),
        cmocka_unit_test(finalize_refusals),  cmocka_unit_test(edge_bindings),
        cmocka_unit_test(cycle_is_named),     cmocka_unit_test(cluster_routes),
        cmocka_unit_test(cluster_refusals),
        cmocka_unit_test(flatten_resolve_and_ids), cmocka_unit_test(ids_read_back), cmocka_unit_test(error_table),
        cmocka_unit_test(strmap_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
