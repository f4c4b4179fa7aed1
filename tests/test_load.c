/* Tests of the workload loader (graph/load.c): the bundled workloads load
 * with the figures their comments give, and every class of malformed input
 * gives its exact one-line message, returns nothing and leaks nothing (the
 * sanitizer build checks the last part).
 *
 * The malformed inputs are files under tests/cases/ so that the command-line
 * tests can reuse them; the test runs from HS_SOURCE_ROOT so that messages
 * name them as tests/cases/bad-*.yaml. */
#include <fcntl.h>
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
#include "graph/load_int.h"

/* ------------------------------------------------------------- helpers */

static hs_workload *load_ok(const char *path)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    int rc = hs_workload_load_file(path, &w, &err);
    if (rc != HS_OK)
        fail_msg("%s: %s", path, err.msg);
    assert_non_null(w);
    assert_true(w->finalized);
    assert_string_equal(w->path, path);
    return w;
}

static hs_workload *load_text_ok(const char *text)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    if (hs_workload_load_buffer("text.yaml", text, strlen(text), &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_non_null(w);
    return w;
}

/* The task with id `id`, which must exist. */
static const hs_task *task(hs_workload *w, const char *id)
{
    size_t t;
    int part, nparts;
    hs_error err = {0};
    if (hs_task_parse_id(w, id, &t, &part, &nparts, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return &w->graph.tasks[t];
}

/* Loading `path` fails with exactly `code` and `msg`, and returns nothing. */
static void expect_file_error(const char *path, int code, const char *msg)
{
    hs_workload *w = (hs_workload *)&w; /* must be reset to NULL */
    hs_error err = {0};
    int rc = hs_workload_load_file(path, &w, &err);
    assert_null(w);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.msg, msg);
}

static void expect_text_error(const char *text, size_t len, const char *msg)
{
    hs_workload *w = (hs_workload *)&w;
    hs_error err = {0};
    int rc = hs_workload_load_buffer("text.yaml", text, len, &w, &err);
    assert_null(w);
    assert_int_equal(rc, HS_EINPUT);
    assert_int_equal(err.code, HS_EINPUT);
    assert_string_equal(err.msg, msg);
}

#define EXPECT_TEXT_ERROR(text, msg) expect_text_error(text, sizeof(text) - 1, msg)

/* Two devices and links both ways, ready for an `applications:` part. */
#define PLATFORM                                                             \
    "platform:\n"                                                            \
    "  devices:\n"                                                           \
    "    - {name: cpu0, kind: cpu, memory: host}\n"                          \
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"                          \
    "  links:\n"                                                             \
    "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"      \
    "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"

static int setup(void **state)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    (void)state;
    if (!root || chdir(root) != 0) {
        fprintf(stderr, "HS_SOURCE_ROOT must name the source tree\n");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------- bundled workloads */

static void case_study(void **state)
{
    hs_workload *w = load_ok("workloads/case-study.yaml");
    const hs_platform *p = &w->platform;
    const hs_task *ab;
    (void)state;
    /* va: add, scale; xgemm: ab, cd, add -> 5 tasks; 1 + 2 edges */
    assert_int_equal(w->graph.ntasks, 5);
    assert_int_equal(w->graph.nedges, 3);
    assert_int_equal(p->ndevices, 2);
    assert_string_equal(p->devices[0].name, "cpu0");
    assert_int_equal(p->devices[0].cores, 4);
    assert_int_equal(p->devices[1].kind, HS_DEVICE_GPU);
    /* Table 2 of the paper: a*b takes 44100 us on the CPU, 5600 on the GPU */
    ab = task(w, "xgemm#0/ab");
    assert_float_equal(ab->cost_us[0], 44100, 0);
    assert_float_equal(ab->cost_us[1], 5600, 0);
    assert_float_equal(ab->input_bytes, 8192, 0);
    assert_float_equal(task(w, "va#0/scale")->output_bytes, 200000, 0);
    /* the link: 10 us + 200000 B / 12000 B/us */
    assert_float_equal(hs_transfer_us(p, 0, 1, 200000), 10 + 200000 / 12000.0, 1e-9);
    hs_workload_free(w);
}

static void tiny(void **state)
{
    hs_workload *w = load_ok("workloads/tiny.yaml");
    const hs_platform *p = &w->platform;
    (void)state;
    assert_int_equal(w->graph.ntasks, 3);
    assert_int_equal(w->graph.nedges, 3);
    assert_int_equal(p->devices[0].cores, 2);
    assert_float_equal(task(w, "tiny#0/b")->cost_us[1], 20, 0);
    assert_float_equal(task(w, "tiny#0/c")->output_bytes, 20000, 0);
    /* the figures of the file's comment: 5 us + bytes / 10000 B/us */
    assert_float_equal(hs_transfer_us(p, 0, 1, 10000), 6, 1e-12);
    assert_float_equal(hs_transfer_us(p, 1, 0, 40000), 9, 1e-12);
    hs_workload_free(w);
}

static void two_gpus(void **state)
{
    hs_workload *w = load_ok("workloads/two-gpus.yaml");
    const hs_platform *p = &w->platform;
    const hs_task *filter;
    size_t t;
    int part, nparts;
    hs_error err = {0};
    (void)state;
    /* pipe: 3 kernels x 2 instances, fork: 3 kernels -> 9 tasks;
     * 2 x 2 + 2 = 6 edges */
    assert_int_equal(w->graph.ntasks, 9);
    assert_int_equal(w->graph.nedges, 6);
    assert_int_equal(p->ndevices, 3);
    assert_int_equal(p->nmemories, 3);
    /* gpu1's own cost wins over the kind's */
    filter = task(w, "pipe#1/filter");
    assert_float_equal(filter->cost_us[0], 4000, 0);
    assert_float_equal(filter->cost_us[1], 500, 0);
    assert_float_equal(filter->cost_us[2], 800, 0);
    assert_int_equal(hs_task_parse_id(w, "pipe#2/filter", &t, &part, &nparts, &err), HS_EINPUT);
    /* peer link: 5 us + 1048576 B / 20000 B/us = 57.4288 us */
    assert_float_equal(hs_transfer_us(p, 1, 2, 1048576), 57.4288, 1e-9);
    assert_float_equal(hs_transfer_us(p, 2, 0, 1048576), 10 + 1048576 / 12000.0, 1e-9);
    hs_workload_free(w);
}

/* Optional fields: type, params, splittable, items, cores, instances. */
static void optional_fields(void **state)
{
    hs_workload *w = load_text_ok(
        PLATFORM "applications:\n"
                 "  - name: g\n"
                 "    instances: 3\n"
                 "    kernels:\n"
                 "      - name: mm\n"
                 "        type: gemm\n"
                 "        params: {n: 1024, alpha: -0.5}\n"
                 "        cost_us: {cpu: 9000, gpu: 700, gpu0: 650}\n"
                 "        splittable: true\n"
                 "        items: 1024\n"
                 "        input_bytes: 8388608\n");
    const hs_kernel *k = &w->apps[0].kernels[0];
    (void)state;
    assert_int_equal(w->graph.ntasks, 3);
    assert_string_equal(k->type, "gemm");
    assert_int_equal(k->nparams, 2);
    assert_string_equal(k->params[0].name, "n");
    assert_float_equal(k->params[0].value, 1024, 0);
    assert_float_equal(k->params[1].value, -0.5, 0);
    assert_int_equal(k->splittable, 1);
    assert_float_equal(k->items, 1024, 0);
    assert_float_equal(k->cost_us[1], 650, 0); /* by name over kind */
    assert_null(w->path);
    hs_workload_free(w);
}

/* ------------------------------------------------- malformed files */

static const struct bad_case {
    const char *file;
    const char *msg;
} bad_cases[] = {
    {"bad-syntax", "tests/cases/bad-syntax.yaml:10:62: error: YAML syntax error: did not find "
                   "expected ',' or '}' (while parsing a flow mapping at 10:27)"},
    {"bad-unknown-field",
     "tests/cases/bad-unknown-field.yaml:12:19: error: unknown field 'costs' in a kernel "
     "(expected name, cost_us, input_bytes, output_bytes, type, params, splittable or items)"},
    {"bad-missing-field",
     "tests/cases/bad-missing-field.yaml:4:7: error: missing field 'memory' in a device"},
    {"bad-wrong-type", "tests/cases/bad-wrong-type.yaml:3:12: error: platform.devices: expected "
                       "a list, not a mapping"},
    {"bad-not-a-number",
     "tests/cases/bad-not-a-number.yaml:12:62: error: applications[0].kernels[0].input_bytes: "
     "expected a number, not 'lots'"},
    {"bad-kind", "tests/cases/bad-kind.yaml:5:26: error: platform.devices[1].kind: expected cpu "
                 "or gpu, not 'tpu'"},
    {"bad-duplicate-device", "tests/cases/bad-duplicate-device.yaml:6:14: error: "
                             "platform.devices[2].name: duplicate device name 'gpu0'"},
    {"bad-duplicate-app", "tests/cases/bad-duplicate-app.yaml:14:11: error: "
                          "applications[1].name: duplicate application name 'app'"},
    {"bad-duplicate-kernel",
     "tests/cases/bad-duplicate-kernel.yaml:14:16: error: applications[0].kernels[2].name: "
     "duplicate kernel name 'a' in application 'app'"},
    {"bad-edge-unknown-kernel",
     "tests/cases/bad-edge-unknown-kernel.yaml:16:23: error: applications[0].edges[1].to: no "
     "kernel 'mul' in application 'app'"},
    {"bad-cost-missing",
     "tests/cases/bad-cost-missing.yaml:13:28: error: applications[0].kernels[1].cost_us: no "
     "cost for device 'gpu0' of kernel 'b' (give 'gpu0' or 'gpu')"},
    {"bad-cost-key",
     "tests/cases/bad-cost-key.yaml:12:54: error: applications[0].kernels[0].cost_us.gpu7: no "
     "device or device kind named 'gpu7' (kinds are cpu, gpu)"},
    {"bad-negative", "tests/cases/bad-negative.yaml:15:33: error: applications[0].edges[0].bytes: "
                     "must be a finite number >= 0, not -1"},
    {"bad-nonfinite",
     "tests/cases/bad-nonfinite.yaml:12:34: error: applications[0].kernels[0].cost_us.cpu: must "
     "be a finite number >= 0, not inf"},
    {"bad-nan", "tests/cases/bad-nan.yaml:7:62: error: platform.links[0].latency_us: must be a "
                "finite number >= 0, not nan"},
    {"bad-huge-number",
     "tests/cases/bad-huge-number.yaml:12:34: error: applications[0].kernels[0].cost_us.cpu: "
     "1e400 is out of range"},
    {"bad-fractional-bytes",
     "tests/cases/bad-fractional-bytes.yaml:15:33: error: applications[0].edges[0].bytes: must "
     "be a whole number, not 1.5"},
    {"bad-fractional-instances",
     "tests/cases/bad-fractional-instances.yaml:11:16: error: applications[0].instances: must be "
     "a whole number, not 2.5"},
    {"bad-missing-link",
     "tests/cases/bad-missing-link.yaml:14:9: error: applications[0].edges[0]: no link from "
     "'gpu0' to 'host' in platform.links (data from 'a' to 'b' may move between devices 'gpu0' "
     "and 'cpu0')"},
    {"bad-cycle", "tests/cases/bad-cycle.yaml:16:7: error: applications[0].edges: cycle in "
                  "application 'app': a -> b -> c -> a"},
    {"bad-duplicate-key", "tests/cases/bad-duplicate-key.yaml:12:48: error: duplicate key 'cpu' "
                          "(first given at 12:29)"},
    {"bad-alias", "tests/cases/bad-alias.yaml:12:28: error: anchors and aliases are not "
                  "supported (anchor '&c'); write the value out"},
    {"bad-scalar", "tests/cases/bad-scalar.yaml:2:1: error: a workload is a mapping with "
                   "'platform' and 'applications', not a single value"},
    {"bad-list", "tests/cases/bad-list.yaml:2:1: error: a workload is a mapping with 'platform' "
                 "and 'applications', not a list"},
    {"bad-two-documents", "tests/cases/bad-two-documents.yaml:14:1: error: a second YAML "
                          "document; a workload is one document"},
    {"bad-deep", "tests/cases/bad-deep.yaml:2:26: error: nesting deeper than 16 levels"},
    {"bad-too-many-tasks",
     "tests/cases/bad-too-many-tasks.yaml:11:16: error: applications[0].instances: 500001 "
     "instances of 2 kernels bring the workload to 1000002 tasks, more than the limit of "
     "1000000 (HETSCHED_MAX_TASKS raises it)"},
    {"bad-splittable",
     "tests/cases/bad-splittable.yaml:12:61: error: applications[0].kernels[0].splittable: "
     "expected true or false, not 'maybe'"},
    {"bad-binary", "tests/cases/bad-binary.yaml:2:11: error: YAML syntax error: control "
                   "characters are not allowed (byte 0x01)"},
    {"bad-empty", "tests/cases/bad-empty.yaml: error: the file is empty (a workload is a "
                  "mapping with 'platform' and 'applications')"},
    /* numbers beyond what a consumer can use */
    {"bad-cost-too-large",
     "tests/cases/bad-cost-too-large.yaml:12:34: error: applications[0].kernels[0].cost_us.cpu: "
     "must be at most 1e+12 us, not 1e+308"},
    {"bad-bytes-too-large",
     "tests/cases/bad-bytes-too-large.yaml:12:62: error: applications[0].kernels[0].input_bytes: "
     "must be at most 1e+15 bytes, not 2e+15"},
    {"bad-bandwidth-too-small",
     "tests/cases/bad-bandwidth-too-small.yaml:8:46: error: platform.links[1].bandwidth_gbps: "
     "must be at least 1e-06 GB/s, not 1e-09"},
    {"bad-transfer-too-long",
     "tests/cases/bad-transfer-too-long.yaml:17:33: error: applications[0].edges[1].bytes: 1e+15 "
     "bytes take 2e+12 us from 'gpu0' to 'host' (0.5 GB/s, 5 us latency), more than the 1e+12 "
     "us a transfer may take"},
    /* cluster platforms: nodes, their memories and links, the network */
    {"bad-node-memory",
     "tests/cases/bad-node-memory.yaml:15:43: error: platform.nodes[1].devices[1].memory: "
     "memory 'gpu0' belongs to node 'n0', not to 'n1' (a node's devices and links name its"
     " own memories; platform.network joins nodes)"},
    {"bad-network-node",
     "tests/cases/bad-network-node.yaml:17:22: error: platform.network[1].to: no node 'n9'"
     " in platform.nodes"},
    {"bad-node-host",
     "tests/cases/bad-node-host.yaml:11:7: error: platform.nodes[1]: missing field 'host':"
     " a node after the first names its host memory"},
    {"bad-network-route",
     "tests/cases/bad-network-route.yaml:23:9: error: applications[0].edges[0]: no route f"
     "rom 'n1.host' (node 'n1') to 'host' (node 'n0'): no link from 'n1' to 'n0' in platfo"
     "rm.network (data from 'a' to 'b' may move between devices 'cpu1' and 'cpu0')"},
    {"bad-gpu-direct",
     "tests/cases/bad-gpu-direct.yaml:16:72: error: platform.network[0].gpu_direct: expect"
     "ed true or false, not 'maybe'"},
    {"bad-devices-and-nodes",
     "tests/cases/bad-devices-and-nodes.yaml:6:5: error: platform.nodes: a platform lists "
     "either devices or nodes (with their devices), not both"},
    {"bad-node-field",
     "tests/cases/bad-node-field.yaml:13:7: error: unknown field 'memory' in a node (expec"
     "ted name, host, devices or links)"},
    {"bad-node-missing-link",
     "tests/cases/bad-node-missing-link.yaml:27:9: error: applications[0].edges[0]: no rou"
     "te from 'n1.gpu1' to 'host': a copy between nodes goes through their host memories, "
     "and node 'n1' has no link from 'n1.gpu1' to 'n1.host' in platform.nodes[1].links (da"
     "ta from 'a' to 'b' may move between devices 'gpu1' and 'cpu0')"},
    /* kernel types and params, as the kernel registry checks them */
    {"bad-type", "tests/cases/bad-type.yaml:12:25: error: applications[0].kernels[0].type: unknown "
                 "kernel type 'nope' (known: va, increment, scale, matadd, gemm, gemv, dot, axpy, "
                 "potrf, trsm, syrk, pi, fblock)"},
    {"bad-param-negative",
     "tests/cases/bad-param-negative.yaml:12:41: error: applications[0].kernels[0].params.n: va: "
     "param 'n' = -5 is out of range [1, 2.14748e+09]"},
    {"bad-param-fraction",
     "tests/cases/bad-param-fraction.yaml:12:41: error: applications[0].kernels[0].params.n: va: "
     "param 'n' = 10.5 must be a whole number"},
    {"bad-param-missing",
     "tests/cases/bad-param-missing.yaml:12:39: error: applications[0].kernels[0].params: gemm: "
     "param 'n' (columns of C) is required"},
    {"bad-params-without-type",
     "tests/cases/bad-params-without-type.yaml:12:27: error: applications[0].kernels[0].params: "
     "params without a type (give the kernel type they configure, e.g. type: gemm)"},
    /* which buffer an edge feeds (exec/data.h) */
    {"bad-buffer-implicit-size",
     "tests/cases/bad-buffer-implicit-size.yaml:19:9: error: applications[0].edges[0]: 'pq' "
     "(dot) gives 4 bytes, but the implicit rule binds this edge to buffer 'x' of 'ax' "
     "(axpy), which holds 4000 bytes: name the buffer it feeds, buffer: num or den, or "
     "write buffer: none if it only orders"},
    {"bad-buffer-implicit-untyped",
     "tests/cases/bad-buffer-implicit-untyped.yaml:19:9: error: applications[0].edges[0]: "
     "kernel 'nap' has no type, so no result, but the implicit rule binds this edge to "
     "buffer 'x' of 'ax' (axpy): write buffer: none if it only orders"},
    {"bad-buffer-none-left",
     "tests/cases/bad-buffer-none-left.yaml:21:9: error: applications[0].edges[2]: this "
     "edge carries data, but every buffer 'pq' (dot) reads (x and y) is fed by another "
     "edge: write buffer: none if it only orders"},
    {"bad-buffer-unknown",
     "tests/cases/bad-buffer-unknown.yaml:19:46: error: applications[0].edges[0].buffer: "
     "kernel 'ax' (axpy) has no buffer 'z': name one it reads (x, y, num or den), or write "
     "buffer: none if the edge only orders"},
    {"bad-buffer-written",
     "tests/cases/bad-buffer-written.yaml:19:47: error: applications[0].edges[0].buffer: "
     "buffer 'c' of kernel 'v' (va) is written, not read, so no edge feeds it: name one it "
     "reads (a or b)"},
    {"bad-buffer-size",
     "tests/cases/bad-buffer-size.yaml:19:46: error: applications[0].edges[0].buffer: 'pq' "
     "(dot) gives 4 bytes, but buffer 'y' of 'ax' (axpy) holds 4000 bytes: name the buffer "
     "it feeds, buffer: num or den, or write buffer: none if it only orders"},
    {"bad-buffer-twice",
     "tests/cases/bad-buffer-twice.yaml:21:46: error: applications[0].edges[2].buffer: "
     "buffer 'den' of kernel 'ax' is fed twice: by edges[0] (from 'pq') and by this edge "
     "(from 'rr')"},
    {"bad-buffer-untyped-consumer",
     "tests/cases/bad-buffer-untyped-consumer.yaml:19:49: error: "
     "applications[0].edges[0].buffer: kernel 'nap' has no type, so no buffer 'a' to feed: "
     "an edge into it only orders (drop buffer)"},
    {"bad-buffer-untyped-producer",
     "tests/cases/bad-buffer-untyped-producer.yaml:19:50: error: "
     "applications[0].edges[0].buffer: kernel 'nap' has no type, so no result to feed "
     "buffer 'x' of 'ax': write buffer: none if the edge only orders"},
    {"bad-buffer-zero-bytes",
     "tests/cases/bad-buffer-zero-bytes.yaml:19:46: error: applications[0].edges[0].buffer: "
     "an edge of 0 bytes only orders: give the bytes it moves (4, the result of 'pq') to "
     "feed buffer 'num', or write buffer: none"},
    {"bad-buffer-empty",
     "tests/cases/bad-buffer-empty.yaml:19:46: error: applications[0].edges[0].buffer: a "
     "buffer name is 1 to 512 bytes long, not 0"},
    /* names */
    {"bad-name-too-long",
     "tests/cases/bad-name-too-long.yaml:12:16: error: applications[0].kernels[0].name: a name is "
     "at most 512 bytes long, not 513"},
    {"bad-utf8", "tests/cases/bad-utf8.yaml:12:19: error: YAML syntax error: invalid leading "
                 "UTF-8 octet (byte 0xFF)"},
};

static void malformed_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/cases/%s.yaml", bad_cases[i].file);
        expect_file_error(path, HS_EINPUT, bad_cases[i].msg);
    }
}

/* A semantic error also keeps its item path in hs_error.path. */
static void error_path_kept(void **state)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_workload_load_file("tests/cases/bad-edge-unknown-kernel.yaml", &w, &err),
                     HS_EINPUT);
    assert_string_equal(err.path, "applications[0].edges[1].to");
}

static void unreadable(void **state)
{
    (void)state;
    expect_file_error("tests/cases/no-such-file.yaml", HS_EINPUT,
                      "tests/cases/no-such-file.yaml: cannot read: No such file or directory");
    expect_file_error("tests/cases", HS_EINPUT, "tests/cases: cannot read: Is a directory");
}

/* Files and buffers over HETSCHED_YAML_MAX_MIB are refused before they are
 * parsed; over 64 MiB, they are read in one pass, which gives its own
 * located message; a bad HETSCHED_YAML_MAX_MIB is refused. */
static void too_large(void **state)
{
    char path[] = "/tmp/hs-test-load-XXXXXX";
    size_t big = (64u << 20) + 1;
    char *data = malloc(big);
    int fd = mkstemp(path);
    char msg[256];
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)big), 0); /* sparse: costs no disk */
    close(fd);
    assert_int_equal(setenv("HETSCHED_YAML_MAX_MIB", "64", 1), 0);
    snprintf(msg, sizeof msg, "%s: error: the file is larger than 64 MiB (the environment "
             "variable HETSCHED_YAML_MAX_MIB raises the limit)", path);
    expect_file_error(path, HS_EINPUT, msg);
    assert_non_null(data);
    memset(data, ' ', big);
    expect_text_error(data, big, "text.yaml: error: the file is larger than 64 MiB (the "
                      "environment variable HETSCHED_YAML_MAX_MIB raises the limit)");
    assert_int_equal(setenv("HETSCHED_YAML_MAX_MIB", "0", 1), 0);
    snprintf(msg, sizeof msg, "%s: error: HETSCHED_YAML_MAX_MIB must be a whole number of MiB "
             "from 1 to 1048576, not '0'", path);
    expect_file_error(path, HS_EINPUT, msg);
    assert_int_equal(unsetenv("HETSCHED_YAML_MAX_MIB"), 0);
    /* within the default cap: the zeros are read, in one pass */
    snprintf(msg, sizeof msg, "%s: error: YAML syntax error: control characters are not "
             "allowed (at byte 1)", path);
    expect_file_error(path, HS_EINPUT, msg);
    unlink(path);
    expect_text_error(data, big, "text.yaml:2:1: error: the file is empty (a workload is a "
                      "mapping with 'platform' and 'applications')");
    free(data);
}

/* ------------------------------------------------- malformed buffers */

static void buffer_errors(void **state)
{
    (void)state;
    /* a NUL byte in the stream, and one written as an escape */
    expect_text_error("a: b\0c", 6, "text.yaml:1:5: error: YAML syntax error: control "
                                    "characters are not allowed (byte 0x00)");
    EXPECT_TEXT_ERROR("platform: \"a\\0b\"\n",
                      "text.yaml:1:11: error: a value may not contain a NUL character");
    /* top-level unknown field, with the known ones listed */
    EXPECT_TEXT_ERROR("platfrom: {}\n", "text.yaml:1:1: error: unknown field 'platfrom' in the "
                                        "top-level mapping (expected platform or applications)");
    EXPECT_TEXT_ERROR("{}\n", "text.yaml:1:1: error: missing field 'platform' in the top-level "
                              "mapping");
    /* an empty list: the builder's check, placed at the list */
    EXPECT_TEXT_ERROR(PLATFORM "applications: []\n",
                      "text.yaml:8:15: error: applications: at least one application is needed");
    EXPECT_TEXT_ERROR(PLATFORM "applications:\n",
                      "text.yaml:8:14: error: applications: expected a list, not an empty value");
    /* a cost key holding a '.' is found as one key */
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: "
                               "{cpu: 1, gpu: 2, gpu.x: 3}}]}]\n",
                      "text.yaml:8:79: error: applications[0].kernels[0].cost_us.gpu.x: no "
                      "device or device kind named 'gpu.x' (kinds are cpu, gpu)");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: 5}]}]\n",
                      "text.yaml:8:55: error: applications[0].kernels[0].cost_us: expected a "
                      "mapping from device names or kinds to microseconds (e.g. {cpu: 568, gpu: "
                      "422}), not a single value");
    /* control characters quoted from the input stay on one line */
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: \"a\\tb\\nc\", kind: cpu, memory: host}]\n"
                      "applications: []\n",
                      "text.yaml:2:20: error: platform.devices[0].name: 'a\\tb\\nc' may not "
                      "contain '#', '/', '[', ']', '\"' or control characters (they delimit "
                      "task ids)");
    EXPECT_TEXT_ERROR("a: [1, *x]\n", "text.yaml:1:8: error: anchors and aliases are not "
                                      "supported (alias '*x'); write the value out");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, instances: 1e300, kernels: []}]\n",
                      "text.yaml:8:37: error: applications[0].instances: 1e300 is out of range");
    /* a param the type does not have, a type without its params */
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, type: va, "
                               "params: {n: 10, nn: 3}, cost_us: {cpu: 1, gpu: 1}}]}]\n",
                      "text.yaml:8:76: error: applications[0].kernels[0].params.nn: va: unknown "
                      "param 'nn' (known: n)");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, type: va, "
                               "cost_us: {cpu: 1, gpu: 1}}]}]\n",
                      "text.yaml:8:52: error: applications[0].kernels[0].type: va: param 'n' "
                      "(vector length) is required");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, type: gemm, "
                               "params: {n: 64}}]}]\n",
                      "text.yaml:8:36: error: applications[0].kernels[0].cost_us: kernel 'k' of "
                      "type 'gemm' has no cost_us and no performance model is loaded (give "
                      "cost_us)");
    /* an edge's buffer: a field of its own, one name */
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: {cpu: 1, "
                               "gpu: 1}}, {name: l, cost_us: {cpu: 1, gpu: 1}}], edges: [{from: "
                               "k, to: l, bufer: x}]}]\n",
                      "text.yaml:8:138: error: unknown field 'bufer' in an edge (expected from, "
                      "to, bytes or buffer)");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: {cpu: 1, "
                               "gpu: 1}}, {name: l, cost_us: {cpu: 1, gpu: 1}}], edges: [{from: "
                               "k, to: l, buffer: [x]}]}]\n",
                      "text.yaml:8:146: error: applications[0].edges[0].buffer: expected a "
                      "single value, not a list");
}

/* Two devices and links both ways at BW GB/s and LAT us, as a string. */
#define PLATFORM_AT(bw, lat)                                                 \
    "platform:\n"                                                            \
    "  devices:\n"                                                           \
    "    - {name: cpu0, kind: cpu, memory: host, cores: 1048576}\n"          \
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"                          \
    "  links:\n"                                                             \
    "    - {from: host, to: gpu0, bandwidth_gbps: " bw ", latency_us: " lat "}\n" \
    "    - {from: gpu0, to: host, bandwidth_gbps: " bw ", latency_us: " lat "}\n"

/* Each bound of graph.h: the largest value loads, the next one is refused
 * where it is given. */
static void number_bounds(void **state)
{
    hs_workload *w;
    (void)state;
    /* at the bounds: a cost of 1e12 us, 1e15 bytes in 1e12 us exactly
     * (9e11 us latency + 1e15 B at 10 GB/s), 1e15 items, 1048576 cores */
    w = load_text_ok(PLATFORM_AT("10", "9e11") "applications:\n"
                     "  - {name: a, kernels: [{name: k, cost_us: {cpu: 1e12, gpu: 1}, "
                     "output_bytes: 1e15, splittable: true, items: 1e15}]}\n");
    assert_float_equal(w->graph.tasks[0].cost_us[0], 1e12, 0);
    assert_float_equal(hs_transfer_us(&w->platform, 1, 0, 1e15), 1e12, 0);
    assert_int_equal(w->platform.devices[0].cores, 1048576);
    hs_workload_free(w);
    hs_workload_free(load_text_ok(PLATFORM_AT("1e-6", "1e12") "applications: [{name: a, "
                                  "kernels: [{name: k, cost_us: {cpu: 1, gpu: 1}}]}]\n"));
    hs_workload_free(load_text_ok(PLATFORM_AT("1e6", "0") "applications: [{name: a, "
                                  "kernels: [{name: k, cost_us: {cpu: 1, gpu: 1}}]}]\n"));
    /* beyond them */
    EXPECT_TEXT_ERROR(PLATFORM_AT("10", "9.5e11") "applications:\n"
                      "  - {name: a, kernels: [{name: k, cost_us: {cpu: 1, gpu: 1}, "
                      "output_bytes: 1e15}]}\n",
                      "text.yaml:9:76: error: applications[0].kernels[0].output_bytes: 1e+15 "
                      "bytes take 1.05e+12 us from 'gpu0' to 'host' (10 GB/s, 9.5e+11 us "
                      "latency), more than the 1e+12 us a transfer may take");
    EXPECT_TEXT_ERROR(PLATFORM_AT("10", "1.5e12") "applications: []\n",
                      "text.yaml:6:62: error: platform.links[0].latency_us: must be at most "
                      "1e+12 us, not 1.5e+12");
    EXPECT_TEXT_ERROR(PLATFORM_AT("2e6", "5") "applications: []\n",
                      "text.yaml:6:46: error: platform.links[0].bandwidth_gbps: must be at most "
                      "1e+06 GB/s, not 2e+06");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: {cpu: 1, "
                               "gpu: 1}, splittable: true, items: 2e15}]}]\n",
                      "text.yaml:8:98: error: applications[0].kernels[0].items: must be at most "
                      "1e+15 items, not 2e+15");
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, cost_us: {cpu: 1, "
                               "gpu: 1.000001e12}}]}]\n",
                      "text.yaml:8:69: error: applications[0].kernels[0].cost_us.gpu: must be "
                      "at most 1e+12 us, not 1.000001e+12");
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: c, kind: cpu, memory: host, cores: "
                      "1048577}]\napplications: []\n",
                      "text.yaml:2:55: error: platform.devices[0].cores: must be a whole number "
                      "from 0 to 1048576, not 1048577");
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: c, kind: cpu, memory: host, overhead_us: "
                      "-2}]\napplications: []\n",
                      "text.yaml:2:61: error: platform.devices[0].overhead_us: must be a number "
                      "from 0 to 1e+12 us, not -2");
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: c, kind: cpu, memory: host, overhead_us: "
                      ".nan}]\napplications: []\n",
                      "text.yaml:2:61: error: platform.devices[0].overhead_us: must be a number "
                      "from 0 to 1e+12 us, not nan");
}

/* A device's overhead_us is part of every task's cost on it, and survives
 * writing the workload back. */
static void device_overhead(void **state)
{
    hs_workload *w = load_text_ok("platform:\n  devices:\n"
                                  "    - {name: cpu0, kind: cpu, memory: host, overhead_us: 2.5}\n"
                                  "applications:\n"
                                  "  - {name: a, kernels: [{name: k, cost_us: {cpu: 10}}]}\n");
    hs_workload *back;
    hs_error err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    (void)state;
    assert_float_equal(w->platform.devices[0].overhead_us, 2.5, 0);
    assert_float_equal(w->apps[0].kernels[0].cost_us[0], 10, 0);
    assert_float_equal(w->graph.tasks[0].cost_us[0], 12.5, 0);
    assert_non_null(f);
    assert_int_equal(hs_workload_write_yaml(w, f, &err), HS_OK);
    fclose(f);
    assert_non_null(strstr(text, "overhead_us: 2.5"));
    assert_int_equal(hs_workload_load_buffer("back.yaml", text, len, &back, &err), HS_OK);
    assert_float_equal(back->graph.tasks[0].cost_us[0], 12.5, 0);
    free(text);
    hs_workload_free(back);
    hs_workload_free(w);
}

/* Names a YAML 1.1 reader would take for a number, a boolean or null are
 * written quoted, others plain, and all of them read back as names. */
static void typed_names_quoted(void **state)
{
    static const char *const quoted[] = {"true", "Null", "~", "OFF", "-.INF", "1e3", "inf",
                                         "NaN", "0x1F", " 5", "+7", ".5"};
    static const char *const plain[] = {"t123", "name", "infinite", "nope", "x1e3"};
    hs_workload *w = hs_workload_new(), *back;
    hs_error err = {0};
    char *text = NULL, want[32];
    size_t len = 0, n = 0;
    FILE *f = open_memstream(&text, &len);
    int a;
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    a = hs_workload_add_app(w, "a", 1, &err);
    for (size_t i = 0; i < 17; i++) {
        const char *name = i < 12 ? quoted[i] : plain[i - 12];
        assert_int_equal(hs_app_add_kernel(w, a, name, &err), (int)i);
        assert_int_equal(hs_kernel_set_cost(w, a, (int)i, "cpu", 1, &err), 0);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_non_null(f);
    assert_int_equal(hs_workload_write_yaml(w, f, &err), HS_OK);
    fclose(f);
    for (size_t i = 0; i < 12; i++) {
        snprintf(want, sizeof want, "{name: \"%s\",", quoted[i]);
        assert_non_null(strstr(text, want));
    }
    for (size_t i = 0; i < 5; i++) {
        snprintf(want, sizeof want, "{name: %s,", plain[i]);
        assert_non_null(strstr(text, want));
    }
    assert_int_equal(hs_workload_load_buffer("back.yaml", text, len, &back, &err), HS_OK);
    for (int k = 0; k < back->apps[0].nkernels; k++, n++)
        assert_string_equal(back->apps[0].kernels[k].name, w->apps[0].kernels[k].name);
    assert_int_equal(n, 17);
    free(text);
    hs_workload_free(back);
    hs_workload_free(w);
}

/* A cost provider that answers what its context holds for every kernel,
 * and knows no device overhead. */
static int fixed_cost(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                      hs_error *err)
{
    (void)d;
    (void)err;
    *us = *(const double *)ctx;
    return k ? 0 : 1;
}

/* Costs from a performance model obey the same bound. */
static void provider_bound(void **state)
{
    static const char text[] = PLATFORM "applications: [{name: a, kernels: [{name: k, type: "
                                        "va, params: {n: 1000}}]}]\n";
    char path[] = "/tmp/hs-test-load-XXXXXX";
    double us = 2e12;
    hs_load_options opt = {.cost_fn = fixed_cost, .cost_ctx = &us};
    hs_workload *w = NULL;
    hs_error err = {0};
    FILE *f;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(hs_workload_load_file_opts(path, &opt, &w, &err), HS_EINPUT);
    assert_null(w);
    assert_non_null(strstr(err.msg, ":8:36: error: applications[0].kernels[0].cost_us: kernel "
                                    "'k': the cost provider gave 2e+12 us on 'cpu0' (must be a "
                                    "finite number from 0 to 1e+12)"));
    us = 1e12;
    assert_int_equal(hs_workload_load_file_opts(path, &opt, &w, &err), HS_OK);
    assert_float_equal(w->graph.tasks[0].cost_us[1], 1e12, 0);
    hs_workload_free(w);
    unlink(path);
}

/* At every bound at once, 3000 tasks in chains: every policy's schedule
 * validates with a finite makespan, the lower bound is finite, and the
 * MILP takes what the loader took. */
static void extremes_stay_finite(void **state)
{
    hs_workload *w = load_text_ok(
        PLATFORM_AT("1", "0") "applications:\n"
        "  - name: a\n"
        "    instances: 1000\n"
        "    kernels:\n"
        "      - {name: x, cost_us: {cpu: 1e12, gpu: 1e12}, input_bytes: 1e15}\n"
        "      - {name: y, cost_us: {cpu: 1e12, gpu: 1e12}}\n"
        "      - {name: z, cost_us: {cpu: 1e12, gpu: 1e12}, output_bytes: 1e15}\n"
        "    edges: [{from: x, to: y, bytes: 1e15}, {from: y, to: z, bytes: 1e15}]\n");
    hs_workload *one = load_text_ok(
        PLATFORM_AT("1", "0") "applications:\n"
        "  - {name: a, kernels: [{name: x, cost_us: {cpu: 1e12, gpu: 1}, input_bytes: 1e15}]}\n");
    const hs_policy *const *pol = hs_policy_list();
    hs_milp_options mo;
    hs_milp_result res;
    hs_error err = {0};
    (void)state;
    assert_true(isfinite(hs_lower_bound_us(w)));
    assert_true(hs_lower_bound_us(w) >= 3e12);
    for (int i = 0; pol[i]; i++) {
        hs_schedule *s = NULL;
        if (hs_map(w, hs_policy_name(pol[i]), NULL, &s, NULL, &err) != HS_OK)
            fail_msg("%s: %s", hs_policy_name(pol[i]), err.msg);
        if (!isfinite(s->makespan_us) || s->makespan_us < 3e12 || s->makespan_us > 7e18)
            fail_msg("%s: makespan %g us", hs_policy_name(pol[i]), s->makespan_us);
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("%s: %s", hs_policy_name(pol[i]), err.msg);
        hs_schedule_free(s);
    }
    /* the MILP refuses nothing the loader took: x on the GPU pays 1e12 us
     * for its input, on the CPU 1e12 us of work */
    hs_milp_options_init(&mo);
    mo.progress = 0;
    if (hs_milp_solve(one, &mo, &res, &err) != HS_OK)
        fail_msg("milp: %s", err.msg);
    assert_int_equal(res.status, HS_MILP_OPTIMAL);
    assert_float_equal(res.makespan_us, 1e12, 1);
    hs_milp_result_free(&res);
    hs_workload_free(one);
    hs_workload_free(w);
}

/* "漢" (3 bytes) n times, then `tail`, into buf. */
static char *cjk(char *buf, size_t size, int n, const char *tail)
{
    size_t len = 0;
    for (int i = 0; i < n && len + 4 < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "\xe6\xbc\xa2");
    snprintf(buf + len, size - len, "%s", tail);
    return buf;
}

/* Names: up to 512 bytes of UTF-8 load, and their task ids read back whole
 * (the longest id too); longer ones, invalid UTF-8 and control characters
 * (C1 ones too) are refused where they are given. */
static void names(void **state)
{
    char name[600], app[600], hundred[310], text[4096], id[HS_TASK_ID_MAX];
    hs_workload *w;
    hs_error err = {0};
    size_t t;
    int part, nparts;
    (void)state;
    /* 170 CJK characters and 2 bytes (512 bytes), and 100 of them (300) */
    cjk(app, sizeof app, 170, "ab");
    cjk(name, sizeof name, 170, "cd");
    assert_int_equal(strlen(name), HS_NAME_MAX);
    snprintf(text, sizeof text, PLATFORM "applications:\n  - name: %s\n    instances: 10\n"
             "    kernels: [{name: %s, cost_us: {cpu: 1, gpu: 1}}, {name: %s, cost_us: {cpu: 1, "
             "gpu: 1}}]\n", app, name, cjk(hundred, sizeof hundred, 100, ""));
    w = load_text_ok(text);
    t = w->graph.ntasks - 2;
    assert_int_equal(hs_task_id(w, &w->graph.tasks[t], id, sizeof id), 512 + 3 + 512);
    assert_int_equal(hs_task_parse_id(w, id, &t, &part, &nparts, &err), HS_OK);
    assert_int_equal(t, w->graph.ntasks - 2);
    /* a part of it, with the widest part numbers: it fits HS_TASK_ID_MAX */
    snprintf(id + strlen(id), sizeof id - strlen(id), "[2147483646/2147483647]");
    assert_int_equal(hs_task_parse_id(w, id, &t, &part, &nparts, &err), HS_OK);
    assert_int_equal(part, 2147483646);
    assert_int_equal(hs_task_id(w, &w->graph.tasks[1], id, sizeof id), 512 + 3 + 300);
    assert_int_equal(hs_task_parse_id(w, id, &t, &part, &nparts, &err), HS_OK);
    assert_int_equal(t, 1);
    /* an id cut to fit a small buffer ends on a character boundary */
    assert_int_equal(hs_task_id(w, &w->graph.tasks[0], id, 11), 512 + 3 + 512);
    assert_string_equal(id, "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2");
    hs_workload_free(w);

    cjk(name, sizeof name, 171, "");
    snprintf(text, sizeof text, PLATFORM "applications:\n  - name: a\n    kernels: [{name: %s, "
             "cost_us: {cpu: 1, gpu: 1}}]\n", name);
    expect_text_error(text, strlen(text), "text.yaml:10:22: error: applications[0].kernels[0]."
                                          "name: a name is at most 512 bytes long, not 513");
    /* a C1 control character (U+009B, CSI), echoed escaped */
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: \"a\\u009bb\", kind: cpu, memory: "
                      "host}]\napplications: []\n",
                      "text.yaml:2:20: error: platform.devices[0].name: 'a\\u009bb' may not "
                      "contain '#', '/', '[', ']', '\"' or control characters (they delimit "
                      "task ids)");
    /* a surrogate: libyaml's reader refuses it, naming the code point */
    EXPECT_TEXT_ERROR("platform:\n  devices: [{name: a\xed\xa0\x80, kind: cpu, memory: "
                      "host}]\napplications: []\n",
                      "text.yaml:2:21: error: YAML syntax error: invalid Unicode character "
                      "(U+D800)");
    /* the builder refuses what no YAML file can hold: bytes that are not UTF-8 */
    w = hs_workload_new();
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "caf\xe9", HS_DEVICE_CPU, "host", 0, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "platform.devices[0].name: a name must be valid UTF-8 (byte 4, "
                                 "0xe9, starts no character)");
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "\xc0\xae", 0, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "platform.devices[0].memory: a name must be valid UTF-8 "
                                 "(byte 1, 0xc0, starts no character)");
    hs_workload_free(w);
}

/* The YAML node budget: HETSCHED_YAML_NODES lowers or raises it; a bad value
 * is refused; the default takes every bundled workload. */
static void node_budget(void **state)
{
    (void)state;
    assert_int_equal(setenv("HETSCHED_YAML_NODES", "10", 1), 0);
    EXPECT_TEXT_ERROR("a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
                      "text.yaml:1:26: error: more than 10 values, lists and mappings "
                      "(HETSCHED_YAML_NODES sets the budget)");
    /* the mapping, a, the list and its 10 values */
    assert_int_equal(setenv("HETSCHED_YAML_NODES", "13", 1), 0);
    EXPECT_TEXT_ERROR("a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
                      "text.yaml:1:1: error: unknown field 'a' in the top-level mapping "
                      "(expected platform or applications)");
    assert_int_equal(setenv("HETSCHED_YAML_NODES", "0", 1), 0);
    EXPECT_TEXT_ERROR("a: 1\n", "text.yaml: error: HETSCHED_YAML_NODES must be a whole number "
                                "from 1 to 1000000000, not '0'");
    assert_int_equal(setenv("HETSCHED_YAML_NODES", "-1", 1), 0);
    EXPECT_TEXT_ERROR("a: 1\n", "text.yaml: error: HETSCHED_YAML_NODES must be a whole number "
                                "from 1 to 1000000000, not '-1'");
    assert_int_equal(unsetenv("HETSCHED_YAML_NODES"), 0);
    /* the default: every paper workload loads, a 4000001-node list does not */
    for (int i = 0; i < 3; i++) {
        static const char *const size[] = {"small", "medium", "large"};
        static const char *const mix[] = {"compute", "data", "mixed"};
        for (int m = 0; m < 3; m++) {
            char path[128];
            snprintf(path, sizeof path, "workloads/paper/%s-%s.yaml", mix[m], size[i]);
            hs_workload_free(load_ok(path));
        }
    }
    {
        size_t n = 4000000, len = 0;
        char *text = malloc(4 + 2 * n + 4);
        assert_non_null(text);
        len += (size_t)snprintf(text, 8, "- [");
        for (size_t i = 0; i < n; i++) {
            text[len++] = '1';
            text[len++] = ',';
        }
        memcpy(text + len, "1]\n", 3);
        /* two lists and 3999998 values fit; the next value does not */
        expect_text_error(text, len + 3, "text.yaml:1:8000000: error: more than 4000000 values, "
                                         "lists and mappings (HETSCHED_YAML_NODES sets the "
                                         "budget)");
        free(text);
    }
}

/* More than the loader's bounds of devices or keys. */
static void limits(void **state)
{
    char text[8192];
    size_t n = 0;
    (void)state;
    n += (size_t)snprintf(text + n, sizeof text - n, "platform:\n  devices:\n");
    for (int d = 0; d < 65; d++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "    - {name: c%d, kind: cpu, memory: host}\n", d);
    snprintf(text + n, sizeof text - n, "applications: []\n");
    expect_text_error(text, strlen(text), "text.yaml:3:5: error: platform.devices: more than "
                                          "64 entries (the loader's limit)");
    n = (size_t)snprintf(text, sizeof text, "x: {");
    for (int k = 0; k < HS_MAX_DEVICES + 3; k++) /* a key per device and kind, and one */
        n += (size_t)snprintf(text + n, sizeof text - n, "k%d: 1, ", k);
    snprintf(text + n, sizeof text - n, "}\n");
    expect_text_error(text, strlen(text), "text.yaml:1:4: error: a mapping with more than 514 "
                                          "keys");
}

/* Bad arguments are refused without touching anything. */
/* The one pass takes a mapping's fields in any order (it tries the field
 * after the last key first, then the others in turn): the same workload in
 * the schema's order and shuffled; a key given twice is refused at its
 * line and column also when it comes after the fields wrapped around. */
static void stream_key_order(void **state)
{
    static const char head[] = "platform:\n"
                               "  devices:\n"
                               "  - {kind: cpu, memory: host, name: cpu0}\n"
                               "  - {memory: gpu0, name: gpu0, kind: gpu, cores: 2}\n"
                               "  links:\n"
                               "  - {latency_us: 1, to: gpu0, from: host, bandwidth_gbps: 10}\n"
                               "  - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 1}\n"
                               "applications:\n"
                               "- name: a\n"
                               "  kernels:\n";
    static const char ordered[] =
        "  - {name: x, cost_us: {cpu0: 1, gpu0: 2}, output_bytes: 8}\n"
        "  - {name: y, cost_us: {cpu0: 3, gpu0: 4}}\n"
        "  edges:\n"
        "  - {from: x, to: y, bytes: 8}\n";
    static const char shuffled[] =
        "  - {output_bytes: 8, cost_us: {gpu0: 2, cpu0: 1}, name: x}\n"
        "  - {cost_us: {cpu0: 3, gpu0: 4}, name: y}\n"
        "  edges:\n"
        "  - {bytes: 8, to: y, from: x}\n";
    static const char twice[] = "  - {name: x, cost_us: {cpu0: 1, gpu0: 2}}\n"
                                "  - {name: y, cost_us: {cpu0: 3, gpu0: 4}}\n"
                                "  edges:\n"
                                "  - {to: y, bytes: 8, from: x, to: x}\n";
    char text[2048];
    hs_workload *w[2] = {NULL, NULL};
    hs_error err = {0};
    (void)state;
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, "%s%s", head, i ? shuffled : ordered);
        if (hs__workload_load_buffer_way("order.yaml", text, strlen(text), HS__LOAD_STREAM, &w[i],
                                         &err) != HS_OK)
            fail_msg("%s", err.msg);
    }
    assert_int_equal(w[1]->graph.ntasks, 2);
    assert_int_equal(w[1]->graph.nedges, 1);
    assert_int_equal(w[1]->platform.devices[1].cores, 2);
    for (size_t t = 0; t < 2; t++)
        for (int d = 0; d < 2; d++)
            assert_true(w[0]->graph.tasks[t].cost_us[d] == w[1]->graph.tasks[t].cost_us[d]);
    assert_true(w[1]->graph.tasks[0].output_bytes == 8 && w[1]->graph.edges[0].bytes == 8);
    hs_workload_free(w[0]);
    hs_workload_free(w[1]);
    snprintf(text, sizeof text, "%s%s", head, twice);
    assert_int_equal(hs__workload_load_buffer_way("twice.yaml", text, strlen(text),
                                                  HS__LOAD_STREAM, &w[0], &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "twice.yaml:14:32: error: duplicate key 'to'");
}

/* ------------------------------------------------------ the JSON form */

/* A small workload in the JSON form: text.json, the platform first. */
#define JSON_PLATFORM                                                                     \
    "{\"platform\": {\"devices\": [\n"                                                    \
    "  {\"name\": \"cpu0\", \"kind\": \"cpu\", \"memory\": \"host\"},\n"                  \
    "  {\"name\": \"gpu0\", \"kind\": \"gpu\", \"memory\": \"gpu0\"}],\n"                 \
    " \"links\": [{\"from\": \"host\", \"to\": \"gpu0\", \"bandwidth_gbps\": 10, "        \
    "\"latency_us\": 5},\n"                                                               \
    "  {\"from\": \"gpu0\", \"to\": \"host\", \"bandwidth_gbps\": 10, \"latency_us\": 5}]},\n"

static void expect_json_error(const char *text, const char *msg)
{
    hs_workload *w = (hs_workload *)&w;
    hs_error err = {0};
    int rc = hs__workload_load_buffer_way("text.json", text, strlen(text), HS__LOAD_JSON, &w,
                                          &err);
    assert_null(w);
    assert_int_equal(rc, HS_EINPUT);
    assert_string_equal(err.msg, msg);
}

/* The JSON form loads what the YAML gives, its errors located at the value
 * (syntax errors at the last byte yajl read); a `.json` file is a workload
 * when its first key is "platform", else a WfFormat instance. */
static void json_form(void **state)
{
    static const char good[] = JSON_PLATFORM
        "\"applications\": [{\"name\": \"va\", \"instances\": 2, \"kernels\": [\n"
        "  {\"name\": \"add\", \"cost_us\": {\"cpu\": 568, \"gpu\": 422.5}, "
        "\"input_bytes\": 400000},\n"
        "  {\"name\": \"scale\", \"cost_us\": {\"cpu\": 1520, \"gpu0\": 242}}],\n"
        " \"edges\": [{\"from\": \"add\", \"to\": \"scale\", \"bytes\": 200000}]}]}\n";
    static const char yaml[] = PLATFORM
        "applications:\n"
        "  - name: va\n"
        "    instances: 2\n"
        "    kernels:\n"
        "      - {name: add, cost_us: {cpu: 568, gpu: 422.5}, input_bytes: 400000}\n"
        "      - {name: scale, cost_us: {cpu: 1520, gpu0: 242}}\n"
        "    edges:\n"
        "      - {from: add, to: scale, bytes: 200000}\n";
    hs_workload *wj = NULL, *wy = NULL;
    hs_error err = {0};
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *f;
    (void)state;
    if (hs_workload_load_buffer("text.json", good, sizeof good - 1, &wj, &err) != HS_OK)
        fail_msg("%s", err.msg);
    if (hs_workload_load_buffer("text.yaml", yaml, sizeof yaml - 1, &wy, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(wj->graph.ntasks, 4);
    assert_non_null(f = open_memstream(&a, &na));
    assert_int_equal(hs_workload_write_yaml(wj, f, &err), HS_OK);
    fclose(f);
    assert_non_null(f = open_memstream(&b, &nb));
    assert_int_equal(hs_workload_write_yaml(wy, f, &err), HS_OK);
    fclose(f);
    assert_string_equal(a, b);
    free(a);
    free(b);
    hs_workload_free(wj);
    hs_workload_free(wy);
    assert_string_equal(hs_workload_format_of("x.json"), "wfformat"); /* no such file */

    expect_json_error("", "text.json:1:1: error: invalid JSON: premature EOF");
    expect_json_error("{\"platform\": {\"devices\": [}}",
                      "text.json:1:27: error: invalid JSON: unallowed token at this point in "
                      "JSON text");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"name\": \"a\", \"kernels\": [\n"
                      "  {\"name\": \"k\", \"cost_us\": {\"cpu\": 1, \"cpu\": 2}}]}]}",
                      "text.json:7:39: error: duplicate key 'cpu'");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"name\": \"a\", \"kernels\": [\n"
                      "  {\"name\": \"k\", \"cost_us\": {\"tpu\": 1}}]}]}",
                      "text.json:7:36: error: applications[0].kernels[0].cost_us.tpu: no "
                      "device or device kind named 'tpu' (kinds are cpu, gpu)");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"name\": \"a\", \"kernels\": [\n"
                      "  {\"name\": null}]}]}",
                      "text.json:7:12: error: expected a value, not 'null'");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"name\": \"a\", \"kernels\": [\n"
                      "  {\"name\": \"k\", \"cost_us\": {\"cpu\": true}}]}]}",
                      "text.json:7:36: error: applications[0].kernels[0].cost_us.cpu: expected "
                      "a number, not 'true'");
    /* a `.json` file whose first key is not "platform" is WfFormat's */
    assert_int_equal(hs_workload_load_buffer("text.json", "{\"applications\": []}", 20, &wj,
                                             &err),
                     HS_EUSAGE);
    assert_int_equal(hs__workload_load_buffer_way("text.json", "{\"applications\": []}", 20,
                                                  HS__LOAD_JSON, &wj, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "text.json:1:2: error: 'applications' before 'platform': a "
                        "file read in one pass gives the platform first");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"kernels\": [], \"name\": \"a\"}]}",
                      "text.json:6:19: error: 'kernels' before 'name': a file read in one pass "
                      "gives an application's name first");
    expect_json_error(JSON_PLATFORM "\"applications\": [{\"name\": \"a\\u0000\"}]}",
                      "text.json:6:27: error: a value may not contain a NUL character");
    expect_json_error(JSON_PLATFORM "\"applications\": []} {}",
                      "text.json:6:21: error: invalid JSON: trailing garbage");
}

static void bad_arguments(void **state)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_workload_load_buffer("x", "a: 1", 4, NULL, &err), HS_EUSAGE);
    assert_int_equal(hs_workload_load_buffer("x", NULL, 4, &w, &err), HS_EUSAGE);
    assert_null(w);
    assert_int_equal(hs_workload_load_file(NULL, &w, &err), HS_EUSAGE);
    /* no hs_error at all is allowed */
    assert_int_equal(hs_workload_load_buffer("x", "", 0, &w, NULL), HS_EINPUT);
    assert_null(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(case_study),
        cmocka_unit_test(tiny),
        cmocka_unit_test(two_gpus),
        cmocka_unit_test(optional_fields),
        cmocka_unit_test(device_overhead),
        cmocka_unit_test(typed_names_quoted),
        cmocka_unit_test(malformed_files),
        cmocka_unit_test(error_path_kept),
        cmocka_unit_test(unreadable),
        cmocka_unit_test(too_large),
        cmocka_unit_test(buffer_errors),
        cmocka_unit_test(limits),
        cmocka_unit_test(number_bounds),
        cmocka_unit_test(provider_bound),
        cmocka_unit_test(extremes_stay_finite),
        cmocka_unit_test(names),
        cmocka_unit_test(node_budget),
        cmocka_unit_test(stream_key_order),
        cmocka_unit_test(json_form),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
