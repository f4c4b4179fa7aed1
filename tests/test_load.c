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
     "1000000"},
    {"bad-splittable",
     "tests/cases/bad-splittable.yaml:12:61: error: applications[0].kernels[0].splittable: "
     "expected true or false, not 'maybe'"},
    {"bad-binary", "tests/cases/bad-binary.yaml:2:11: error: YAML syntax error: control "
                   "characters are not allowed (byte 0x01)"},
    {"bad-empty", "tests/cases/bad-empty.yaml: error: the file is empty (a workload is a "
                  "mapping with 'platform' and 'applications')"},
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

/* Files and buffers over 64 MiB are refused before they are parsed. */
static void too_large(void **state)
{
    char path[] = "/tmp/hs-test-load-XXXXXX";
    size_t big = (64u << 20) + 1;
    char *data = malloc(big);
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)big), 0); /* sparse: costs no disk */
    close(fd);
    {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: error: the file is larger than 64 MiB", path);
        expect_file_error(path, HS_EINPUT, msg);
    }
    unlink(path);
    assert_non_null(data);
    memset(data, ' ', big);
    expect_text_error(data, big, "text.yaml: error: the file is larger than 64 MiB");
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
    EXPECT_TEXT_ERROR(PLATFORM "applications: [{name: a, kernels: [{name: k, type: gemm}]}]\n",
                      "text.yaml:8:36: error: applications[0].kernels[0].cost_us: kernel 'k' of "
                      "type 'gemm' has no cost_us and no performance model is loaded (give "
                      "cost_us)");
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
    for (int k = 0; k < 129; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "k%d: 1, ", k);
    snprintf(text + n, sizeof text - n, "}\n");
    expect_text_error(text, strlen(text), "text.yaml:1:4: error: a mapping with more than 128 "
                                          "keys");
}

/* Bad arguments are refused without touching anything. */
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
        cmocka_unit_test(malformed_files),
        cmocka_unit_test(error_path_kept),
        cmocka_unit_test(unreadable),
        cmocka_unit_test(too_large),
        cmocka_unit_test(buffer_errors),
        cmocka_unit_test(limits),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
