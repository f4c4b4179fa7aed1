/* Tests of the readers of task-graph sets (graph/read_*.c) and of platform
 * files: the bundled fork graph in each format, whose schedules are worked
 * out by hand below; what each format's parts become (layouts of STG,
 * WfFormat's files, DOT's attributes and instances); the costs derived per
 * device (speeds, beta); every class of bad input with its exact message;
 * and the DOT that hs_dot_write writes of every bundled workload, which
 * reads back to the same workload, with the same makespan under every
 * policy.  Runs from HS_SOURCE_ROOT, so that messages name files as
 * workloads/sets/... */
#include <dirent.h>
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
#include "mapper/perfmodel.h"

/* cpu0 on host, gpu0 on its own memory; 1 GB/s (1000 bytes/us) and 5 us
 * each way. */
static const char platform_yaml[] =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host}\n"
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
    "  links:\n"
    "    - {from: host, to: gpu0, bandwidth_gbps: 1, latency_us: 5}\n"
    "    - {from: gpu0, to: host, bandwidth_gbps: 1, latency_us: 5}\n";

static hs_workload *platform; /* of platform_yaml */

static int setup(void **state)
{
    const char *root = getenv("HS_SOURCE_ROOT");
    hs_error err = {0};
    (void)state;
    if (!root || chdir(root) != 0) {
        fprintf(stderr, "HS_SOURCE_ROOT must name the source tree\n");
        return -1;
    }
    if (hs_platform_load_buffer("platform.yaml", platform_yaml, sizeof platform_yaml - 1,
                                &platform, &err) != HS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hs_workload_free(platform);
    return 0;
}

/* ------------------------------------------------------------- helpers */

static hs_load_options opts(const char *speeds)
{
    hs_load_options o = {.platform = &platform->platform, .speeds = speeds};
    return o;
}

static hs_workload *read_file(const char *path, const hs_load_options *o)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    if (hs_workload_load_file_opts(path, o, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_non_null(w);
    assert_true(w->finalized);
    return w;
}

/* Reads `text` as the file `name` (its extension gives the format). */
static hs_workload *read_text(const char *name, const char *text, const hs_load_options *o)
{
    hs_workload *w = NULL;
    hs_error err = {0};
    if (hs_workload_load_buffer_opts(name, text, strlen(text), o, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_non_null(w);
    return w;
}

/* Reading `text` as `name` fails with exactly `code` and `msg`. */
static void expect_error(const char *name, const char *text, const hs_load_options *o, int code,
                         const char *msg)
{
    hs_workload *w = (hs_workload *)&w; /* must come back NULL */
    hs_error err = {0};
    int rc = hs_workload_load_buffer_opts(name, text, strlen(text), o, &w, &err);
    assert_null(w);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.msg, msg);
}

static void expect_input_error(const char *name, const char *text, const char *msg)
{
    hs_load_options o = opts("gpu=2");
    expect_error(name, text, &o, HS_EINPUT, msg);
}

static const hs_task *task(hs_workload *w, const char *id)
{
    size_t t;
    int part, nparts;
    hs_error err = {0};
    if (hs_task_parse_id(w, id, &t, &part, &nparts, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return &w->graph.tasks[t];
}

/* The bytes on the edge from task id `from` to `to`, which must exist. */
static double edge_bytes(hs_workload *w, const char *from, const char *to)
{
    size_t f = (size_t)(task(w, from) - w->graph.tasks), t = (size_t)(task(w, to) - w->graph.tasks);
    for (size_t e = 0; e < w->graph.nedges; e++)
        if (w->graph.edges[e].from == f && w->graph.edges[e].to == t)
            return w->graph.edges[e].bytes;
    fail_msg("no edge %s -> %s", from, to);
    return -1;
}

static double makespan(hs_workload *w, const char *policy)
{
    /* best's search ends when it converges, not when its time is up: the
     * same workload gives the same schedule on any machine */
    hs_map_options o = {.budget_ms = HS_MAX_BUDGET_MS};
    hs_schedule *s = NULL;
    hs_error err = {0};
    double m;
    if (hs_map(w, policy, &o, &s, NULL, &err) != HS_OK)
        fail_msg("%s: %s", policy, err.msg);
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s: %s", policy, err.msg);
    m = s->makespan_us;
    hs_schedule_free(s);
    return m;
}

/* ------------------------------------------------ the fork, by hand */

/* workloads/sets/fork.{stg,json,dot}: t0 -> t1, t2 -> t3, costs 0, 10, 20,
 * 0 us, edges 5000, 7000, 3000, 4000 bytes (STG: 5, 7, 3, 4 us at the mean
 * 1 GB/s), on platform_yaml with --speed gpu=2: t1 and t2 cost 5 and 10 us
 * on gpu0.  A transfer takes 5 us + bytes / 1000.
 *   cpu-only: 0 + 10 + 20 + 0 on cpu0, no transfer: 30.
 *   app-level: the whole graph on gpu0 (no input or output): 5 + 10 = 15
 *     (on cpu0 30).
 *   heft: upward ranks t0 > t2 > t1 > t3; ties to the first device.  t0 on
 *     cpu0 at 0.  t2: cpu0 ends 20, gpu0 12 (5 + 7 to move b) + 10 = 22:
 *     cpu0 [0, 20].  t1: cpu0 30, gpu0 10 (5 + 5) + 5 = 15: gpu0 [10, 15].
 *     t3: cpu0 max(20, 15 + 8) = 23, gpu0 max(15, 20 + 9) = 29: 23.
 *   dmda (each ready task where it completes first): t0 cpu0; t1 cpu0 10
 *     vs gpu0 15: cpu0 [0, 10]; t2 cpu0 30 vs gpu0 22: gpu0 [12, 22]; t3
 *     cpu0 22 + 9 = 31 vs gpu0 max(22, 10 + 8) = 22: 22.
 *   eager (an idle device takes the oldest ready task; cpu0 asks first): t0
 *     cpu0; t1 cpu0 [0, 10]; t2 gpu0 [12, 22]; at 22 both are idle and
 *     cpu0 takes t3, whose d arrives at 22 + 9: 31. */
static void fork_by_hand(hs_workload *w)
{
    assert_int_equal(w->graph.ntasks, 4);
    assert_int_equal(w->graph.nedges, 4);
    assert_float_equal(task(w, "fork#0/t1")->cost_us[0], 10, 0);
    assert_float_equal(task(w, "fork#0/t1")->cost_us[1], 5, 0);
    assert_float_equal(task(w, "fork#0/t2")->cost_us[0], 20, 0);
    assert_float_equal(task(w, "fork#0/t2")->cost_us[1], 10, 0);
    assert_float_equal(edge_bytes(w, "fork#0/t0", "fork#0/t2"), 7000, 0);
    assert_float_equal(edge_bytes(w, "fork#0/t2", "fork#0/t3"), 4000, 0);
    assert_float_equal(makespan(w, "cpu-only"), 30, 0);
    assert_float_equal(makespan(w, "app-level"), 15, 0);
    assert_float_equal(makespan(w, "heft"), 23, 0);
    assert_float_equal(makespan(w, "dmda"), 22, 0);
    assert_float_equal(makespan(w, "eager"), 31, 0);
}

static void fork_stg(void **state)
{
    hs_load_options o = opts("gpu=2");
    hs_workload *w = read_file("workloads/sets/fork.stg", &o);
    (void)state;
    assert_string_equal(w->path, "workloads/sets/fork.stg");
    assert_int_equal(w->napps, 1);
    assert_string_equal(w->apps[0].name, "fork");
    fork_by_hand(w);
    hs_workload_free(w);
}

static void fork_wfformat(void **state)
{
    hs_load_options o = opts("gpu=2");
    hs_workload *w = read_file("workloads/sets/fork.json", &o);
    (void)state;
    fork_by_hand(w);
    /* every file a task reads comes from a parent: nothing from host */
    for (size_t t = 0; t < w->graph.ntasks; t++) {
        assert_float_equal(w->graph.tasks[t].input_bytes, 0, 0);
        assert_float_equal(w->graph.tasks[t].output_bytes, 0, 0);
    }
    hs_workload_free(w);
}

static void fork_dot(void **state)
{
    hs_load_options o = opts("gpu=2");
    hs_workload *w = read_file("workloads/sets/fork.dot", &o);
    (void)state;
    fork_by_hand(w);
    hs_workload_free(w);
}

/* ------------------------------------------------------------ STG */

static void stg_layouts(void **state)
{
    /* one graph: without costs, pairs on the line, pairs below */
    static const char plain[] = "3\n0 0 0\n1 4 1 0\n2 6 1 0\n3 5 2 1 2\n4 0 1 3\n# info\n";
    static const char inline_pairs[] =
        "3\n0 0 0\n1 4 1 0 2\n2 6 1 0 3\n3 5 2 1 4 2 5\n4 0 1 3 0\n";
    static const char below[] = "  3\n\n0 0 0\n1 4 1\n 0 2\n2 6 1\n 0 3\n3 5 2\n 1 4\n 2 5\n"
                                "4 0 1\n 3 0\n# the information part\n#   Tasks : 3\n";
    hs_load_options o = opts(NULL);
    hs_workload *w[3] = {read_text("plain.stg", plain, &o),
                         read_text("inline.stg", inline_pairs, &o),
                         read_text("below.stg", below, &o)};
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(w[i]->graph.ntasks, 5);
        assert_int_equal(w[i]->graph.nedges, 5);
        assert_string_equal(w[i]->apps[0].kernels[3].name, "t3");
        assert_float_equal(w[i]->apps[0].kernels[3].cost_us[1], 5, 0);
        /* speed 1: the set's cost on every device */
        assert_float_equal(w[i]->apps[0].kernels[2].cost_us[0], 6, 0);
    }
    assert_float_equal(edge_bytes(w[0], "plain#0/t2", "plain#0/t3"), 0, 0);
    /* 5 us at the platform's mean link, 1 GB/s */
    assert_float_equal(edge_bytes(w[1], "inline#0/t2", "inline#0/t3"), 5000, 0);
    assert_float_equal(edge_bytes(w[2], "below#0/t2", "below#0/t3"), 5000, 0);
    assert_float_equal(edge_bytes(w[2], "below#0/t3", "below#0/t4"), 0, 0);
    /* the critical path t0 t2 t3 t4: 11 us on one device */
    assert_float_equal(makespan(w[0], "cpu-only"), 15, 0);
    for (int i = 0; i < 3; i++)
        hs_workload_free(w[i]);
}

static void stg_errors(void **state)
{
    (void)state;
    expect_input_error("e.stg", "", "e.stg:1:1: error: the file is empty (an STG file starts "
                       "with its number of tasks)");
    expect_input_error("e.stg", "# only\n\n", "e.stg:1:1: error: the file is empty (an STG "
                       "file starts with its number of tasks)");
    expect_input_error("e.stg", "2 3\n", "e.stg:1:1: error: expected the number of tasks alone "
                       "on the first line, not 2 numbers");
    expect_input_error("e.stg", "two\n", "e.stg:1:1: error: expected the number of tasks, not "
                       "'two'");
    expect_input_error("e.stg", "1000000\n", "e.stg:1:1: error: the number of tasks must be at "
                       "most 999998, not 1000000");
    expect_input_error("e.stg", "1\n0 0 0\n2 3 1 0\n", "e.stg:3:1: error: expected task 1 "
                       "(tasks come in order, from 0), not 2");
    expect_input_error("e.stg", "1\n0 0 0\n1 x 1 0\n", "e.stg:3:3: error: task 1: expected a "
                       "processing time, not 'x'");
    expect_input_error("e.stg", "1\n0 0 0\n1 -3 1 0\n", "e.stg:3:3: error: task 1: expected a "
                       "processing time, not '-3'");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1.5 0\n", "e.stg:3:5: error: task 1: expected a "
                       "number of predecessors, not '1.5'");
    /* decimal only: strtod's hexadecimal, inf and nan are no number a set means */
    expect_input_error("e.stg", "1\n0 0 0\n1 0x10 1 0\n", "e.stg:3:3: error: task 1: expected a "
                       "processing time, not '0x10'");
    expect_input_error("e.stg", "1\n0 0 0\n1 inf 1 0\n", "e.stg:3:3: error: task 1: expected a "
                       "processing time, not 'inf'");
    expect_input_error("e.stg", "1\n0 0 0\n1 3\n", "e.stg:3:1: error: expected task 1: its "
                       "number, processing time and number of predecessors");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1 7\n2 0 1 1\n", "e.stg:3:7: error: task 1: no "
                       "task 7 (the tasks are 0 to 2)");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1 0\n", "e.stg:3:1: error: the file ends before "
                       "task 2: the first line says 1 tasks besides the entry and exit, so "
                       "tasks 0 to 2");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 2 0\n2 0 1 1\n", "e.stg:3:5: error: task 1: "
                       "expected 2 predecessors, or 2 (predecessor, communication cost) pairs, "
                       "after their count, not 1 numbers");
    expect_input_error("e.stg", "2\n0 0 0\n1 3 1 0\n2 3 1 0 4\n3 0 2 1 2\n", "e.stg:4:5: "
                       "error: task 2: expected 1 predecessors after their count, not 2 "
                       "numbers");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1\n0 x\n2 0 1\n1 1\n", "e.stg:4:3: error: task "
                       "1: expected a communication cost, not 'x'");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1\n0\n", "e.stg:4:1: error: task 1: expected "
                       "predecessor 1 of 1: a task number and a communication cost, not 1 "
                       "numbers");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1 0\n2 0 1 1\n2 0 0\n", "e.stg:5:1: error: more "
                       "lines after the exit task 2 (the information part starts each line "
                       "with '#')");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 2 0 0\n2 0 1 1\n", "e.stg:3:9: error: task 1, "
                       "predecessor 0: duplicate edge from 't0' to 't1'");
    expect_input_error("e.stg", "1\n0 0 0\n1 3 1 1\n2 0 1 1\n", "e.stg:3:7: error: task 1, "
                       "predecessor 1: to: kernel 't1' cannot depend on itself");
    /* forward references are read; a cycle is refused with its tasks */
    expect_input_error("e.stg", "2\n0 0 0\n1 3 1 2\n2 3 1 1\n3 0 1 2\n", "e.stg: error: cycle "
                       "in application 'e': t1 -> t2 -> t1");
    expect_input_error("e.stg", "1\n0 0 0\n1 2e12 1 0\n2 0 1 1\n", "e.stg:3:3: error: task 1: "
                       "a processing time must be at most 1e+12, not 2e12");
}

/* ------------------------------------------------------- WfFormat */

/* A task reads from host what no parent writes and writes back what no
 * child reads; a pair listed on one side only is an edge too. */
static void wfformat_files(void **state)
{
    static const char text[] =
        "{\"schemaVersion\": \"1.6\", \"name\": \"w\", \"workflow\": {\"specification\": {"
        "\"tasks\": ["
        "{\"id\": \"a\", \"parents\": [], \"children\": [\"b\"], \"inputFiles\": [\"in\"],"
        " \"outputFiles\": [\"ab\", \"log\"]},"
        "{\"id\": \"b\", \"parents\": [], \"children\": [], \"inputFiles\": [\"ab\", \"in\","
        " \"ab\"], \"outputFiles\": [\"out\"]},"
        "{\"id\": \"c\", \"parents\": [], \"children\": [], \"inputFiles\": [\"log\"]}],"
        "\"files\": [{\"id\": \"in\", \"sizeInBytes\": 100}, {\"id\": \"ab\", \"sizeInBytes\": 20},"
        " {\"id\": \"log\", \"sizeInBytes\": 3}, {\"id\": \"out\", \"sizeInBytes\": 4000}]},"
        "\"execution\": {\"tasks\": [{\"id\": \"c\", \"runtimeInSeconds\": 1},"
        " {\"id\": \"a\", \"runtimeInSeconds\": 0.5}, {\"id\": \"b\", \"runtimeInSeconds\": 2,"
        " \"machines\": [\"m1\"]}]}}, \"author\": {\"name\": \"x\"}}";
    hs_load_options o = opts(NULL);
    hs_workload *w = read_text("w.json", text, &o);
    (void)state;
    assert_int_equal(w->graph.ntasks, 3);
    assert_int_equal(w->graph.nedges, 1); /* a -> b, from a's children */
    assert_float_equal(edge_bytes(w, "w#0/a", "w#0/b"), 20, 0);
    assert_float_equal(task(w, "w#0/a")->cost_us[0], 500000, 0);
    assert_float_equal(task(w, "w#0/b")->cost_us[1], 2000000, 0);
    assert_float_equal(task(w, "w#0/a")->input_bytes, 100, 0);
    /* log: c reads it but is no child of a */
    assert_float_equal(task(w, "w#0/a")->output_bytes, 3, 0);
    assert_float_equal(task(w, "w#0/c")->input_bytes, 3, 0);
    /* ab comes from the parent (listed twice: once); in from host */
    assert_float_equal(task(w, "w#0/b")->input_bytes, 100, 0);
    assert_float_equal(task(w, "w#0/b")->output_bytes, 4000, 0);
    hs_workload_free(w);
}

static void wfformat_errors(void **state)
{
    static const char head[] = "{\"schemaVersion\": \"1.5\", \"workflow\": {\"specification\": ";
    char text[1024];
    (void)state;
#define WF(spec, exec) (snprintf(text, sizeof text, "%s%s, \"execution\": %s}}", head, spec, exec), text)
    expect_input_error("e.json", "{\"a\": 1,\n \"a\": 2}", "e.json:2:4: error: duplicate object key "
                       "near '\"a\"'");
    expect_input_error("e.json", "{\"schemaVersion\": \"1.5\",\n  \"workflow\": [}",
                       "e.json:2:16: error: unexpected token near '}'");
    expect_input_error("e.json", "[1, 2]", "e.json:1:1: error: a WfFormat instance is an "
                       "object, not an array");
    expect_input_error("e.json", "{\"schemaVersion\": 1.5}", "e.json:1:19: error: schemaVersion: "
                       "expected a string, not a number");
    expect_input_error("e.json", "{\"schemaVersion\": \"1.4\"}", "e.json:1:19: error: "
                       "schemaVersion: this reader takes WfFormat 1.5 and 1.6, not '1.4' "
                       "(WfFormat's migration tool brings older instances to 1.5)");
    expect_input_error("e.json", "{\"schemaVersion\": \"1.5\"}", "e.json:1:1: error: workflow: "
                       "missing (expected an object)");
    expect_input_error("e.json", WF("{\"tasks\": []}", "{}"), "e.json:1:66: error: "
                       "workflow.specification.tasks: no task");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[]}, {\"id\": \"a\"}]}", "{}"), "e.json:1:118: error: "
                       "workflow.specification.tasks[1].id: a second 'a' (the first is "
                       "workflow.specification.tasks[0])");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"children\": []}]}", "{}"),
                       "e.json:1:67: error: workflow.specification.tasks[0].parents: missing "
                       "(expected an array)");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [\"z\"], "
                       "\"children\": []}]}", "{}"), "e.json:1:91: error: "
                       "workflow.specification.tasks[0].parents[0]: no task 'z' in "
                       "workflow.specification.tasks");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[], \"inputFiles\": [\"f\"]}]}", "{}"), "e.json:1:125: error: "
                       "workflow.specification.tasks[0].inputFiles[0]: no file 'f' in "
                       "workflow.specification.files");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[]}], \"files\": [{\"id\": \"f\", \"sizeInBytes\": 1.5}]}", "{}"),
                       "e.json:1:149: error: workflow.specification.files[0].sizeInBytes: expected a "
                       "whole number of bytes from 0 to 1e+15, not 1.5");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[]}]}", "{}"), "e.json:1:126: error: workflow.execution.tasks: missing "
                       "(expected an array)");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[]}]}", "{\"tasks\": []}"), "e.json:1:67: error: "
                       "workflow.specification.tasks[0]: no runtime (workflow.execution.tasks "
                       "has no task with its id)");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [], \"children\": "
                       "[]}]}", "{\"tasks\": [{\"id\": \"a\", \"runtimeInSeconds\": -1}]}"),
                       "e.json:1:169: error: workflow.execution.tasks[0].runtimeInSeconds: "
                       "expected a number of seconds >= 0, not -1");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a/b\", \"parents\": [], \"children\": "
                       "[]}]}", "{\"tasks\": [{\"id\": \"a/b\", \"runtimeInSeconds\": 1}]}"),
                       "e.json:1:67: error: workflow.specification.tasks[0]: name: 'a/b' may not "
                       "contain '#', '/', '[', ']', '\"' or control characters (they delimit "
                       "task ids)");
    expect_input_error("e.json", WF("{\"tasks\": [{\"id\": \"a\", \"parents\": [\"b\"], "
                       "\"children\": []}, {\"id\": \"b\", \"parents\": [\"a\"], \"children\": "
                       "[]}]}", "{\"tasks\": [{\"id\": \"a\", \"runtimeInSeconds\": 1}, {\"id\": "
                       "\"b\", \"runtimeInSeconds\": 1}]}"),
                       "e.json: error: cycle in application 'e': a -> b -> a");
    expect_input_error("e.json", "{\"schemaVersion\": \"1.5\"", "e.json:1:23: error: '}' expected "
                       "near end of file");
#undef WF
}

/* A NUL byte is refused where it is: jansson would skip it after a
 * number. */
static void wfformat_nul(void **state)
{
    static const char text[] = "{\"schemaVersion\": 1\0}";
    hs_load_options o = opts(NULL);
    hs_workload *w = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_workload_load_buffer_opts("n.json", text, sizeof text - 1, &o, &w, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "n.json:1:20: error: a NUL byte (no JSON text holds one)");
}

/* ------------------------------------------------------------ DOT */

static void dot_attributes(void **state)
{
    static const char text[] =
        "digraph \"drawn\" {\n"
        "  node [shape=box, cost_us=\"cpu=30,gpu0=10\"];\n"
        "  a [label=\"first\", input_bytes=4096, type=va, params=\"n=1024\"];\n"
        "  b [cost=40, cost_us=\"\", output_bytes=8, splittable=true, items=100];\n"
        "  c [cost_us=\"cpu0=7,gpu=2\"];\n"
        "  subgraph cluster_x { a -> b [bytes=1000000, color=red]; }\n"
        "  a -> c;\n"
        "}\n";
    hs_load_options o = opts(NULL);
    hs_workload *w = read_text("drawn.dot", text, &o);
    const hs_kernel *a = &w->apps[0].kernels[0];
    (void)state;
    assert_int_equal(w->graph.ntasks, 3);
    assert_string_equal(w->apps[0].name, "drawn");
    assert_string_equal(a->type, "va");
    assert_int_equal(a->nparams, 1);
    assert_float_equal(a->params[0].value, 1024, 0);
    assert_float_equal(task(w, "drawn#0/a")->cost_us[0], 30, 0);
    assert_float_equal(task(w, "drawn#0/a")->cost_us[1], 10, 0);
    assert_float_equal(task(w, "drawn#0/a")->input_bytes, 4096, 0);
    assert_float_equal(task(w, "drawn#0/b")->cost_us[1], 40, 0);
    assert_float_equal(task(w, "drawn#0/b")->output_bytes, 8, 0);
    assert_true(w->apps[0].kernels[1].splittable);
    assert_float_equal(w->apps[0].kernels[1].items, 100, 0);
    /* a name wins over a kind */
    assert_float_equal(task(w, "drawn#0/c")->cost_us[0], 7, 0);
    assert_float_equal(task(w, "drawn#0/c")->cost_us[1], 2, 0);
    assert_float_equal(edge_bytes(w, "drawn#0/a", "drawn#0/b"), 1000000, 0);
    assert_float_equal(edge_bytes(w, "drawn#0/a", "drawn#0/c"), 0, 0);
    hs_workload_free(w);
}

/* Task ids give applications and instances back; `order` orders the
 * edges. */
static void dot_instances(void **state)
{
    static const char text[] =
        "digraph w {\n"
        "  \"va#0/add\" [cost=5]; \"va#0/scale\" [cost=6]; \"va#0/sum\" [cost=1];\n"
        "  \"va#1/sum\" [cost=1]; \"va#1/add\" [cost=5]; \"va#1/scale\" [cost=6];\n"
        "  \"x#0/k\" [cost=2];\n"
        "  \"va#0/scale\" -> \"va#0/sum\" [order=1];\n"
        "  \"va#0/add\" -> \"va#0/scale\" [bytes=64, order=0];\n"
        "  \"va#1/add\" -> \"va#1/scale\" [bytes=64]; \"va#1/scale\" -> \"va#1/sum\";\n"
        "}\n";
    hs_load_options o = opts(NULL);
    hs_workload *w = read_text("i.dot", text, &o);
    (void)state;
    assert_int_equal(w->napps, 2);
    assert_string_equal(w->apps[0].name, "va");
    assert_int_equal(w->apps[0].instances, 2);
    assert_int_equal(w->apps[0].nkernels, 3);
    assert_string_equal(w->apps[0].kernels[2].name, "sum");
    assert_string_equal(w->apps[1].name, "x");
    /* edges in `order`, not in the file's */
    assert_string_equal(w->apps[0].kernels[w->apps[0].edges[0].from].name, "add");
    assert_float_equal(w->apps[0].edges[0].bytes, 64, 0);
    assert_float_equal(edge_bytes(w, "va#1/add", "va#1/scale"), 64, 0);
    assert_int_equal(w->graph.ntasks, 7);
    hs_workload_free(w);
}

static void dot_errors(void **state)
{
    (void)state;
    expect_input_error("e.dot", "", "e.dot:1:1: error: no graph (a DOT file holds one digraph)");
    expect_input_error("e.dot", "digraph g {\n  a [cost=1;\n  a -> b\n}\n", "e.dot:3:5: "
                       "error: DOT: syntax error in line 3 near '->'");
    expect_input_error("e.dot", "digraph g {\n  a [cost=1a]\n}\n", "e.dot:2:11: error: DOT: "
                       "syntax ambiguity - badly delimited number '1a' in line 2 of input "
                       "splits into two tokens");
    expect_input_error("e.dot", "graph g { a [cost=1] }", "e.dot: error: graph 'g' is "
                       "undirected: a task graph is a digraph");
    expect_input_error("e.dot", "digraph g { a [cost=1] }\ndigraph h { b }", "e.dot: error: a "
                       "second graph after the first (a file holds one task graph)");
    expect_input_error("e.dot", "digraph g { }", "e.dot: error: the graph has no node");
    expect_input_error("e.dot", "digraph g { a }", "e.dot: error: node 'a': no cost (give "
                       "cost=US, or cost_us=\"DEVICE=US,...\")");
    expect_input_error("e.dot", "digraph g { a [cost=1, cost_us=\"cpu=1\"] }", "e.dot: error: "
                       "node 'a': both cost and cost_us: give one");
    expect_input_error("e.dot", "digraph g { a [cost=\"-1\"] }", "e.dot: error: node 'a': cost: "
                       "expected a number >= 0, not '-1'");
    expect_input_error("e.dot", "digraph g { a [cost=\"0x10\"] }", "e.dot: error: node 'a': "
                       "cost: expected a number >= 0, not '0x10'");
    expect_input_error("e.dot", "digraph g { a [cost=\" 1\"] }", "e.dot: error: node 'a': "
                       "cost: expected a number >= 0, not ' 1'");
    expect_input_error("e.dot", "digraph g { a [cost_us=\"cpu=nan,gpu=1\"] }", "e.dot: error: "
                       "node 'a': cost_us.cpu: expected a number, not 'nan'");
    expect_input_error("e.dot", "digraph g { a [cost=1]; b [cost=1]; a -> b [bytes=inf] }",
                       "e.dot: error: edge 'a' -> 'b': bytes: expected a whole number >= 0, "
                       "not 'inf'");
    expect_input_error("e.dot", "digraph g { a [cost_us=\"cpu=1,gpu\"] }", "e.dot: error: node "
                       "'a': cost_us: expected KEY=NUMBER entries separated by commas (at most "
                       "4), not 'gpu'");
    expect_input_error("e.dot", "digraph g { a [cost_us=\"cpu=1,tpu=2\"] }", "e.dot: error: "
                       "node 'a': cost_us.tpu: no device or device kind named 'tpu' (kinds are "
                       "cpu, gpu)");
    expect_input_error("e.dot", "digraph g { a [cost_us=\"cpu=1\"] }", "e.dot: error: node 'a': "
                       "cost_us: no cost for device 'gpu0' of kernel 'a' (give 'gpu0' or "
                       "'gpu')");
    expect_input_error("e.dot", "digraph g { a [cost=1, input_bytes=0.5] }", "e.dot: error: "
                       "node 'a': input_bytes: expected a whole number >= 0, not '0.5'");
    expect_input_error("e.dot", "digraph g { a [cost=1, params=\"n=4\"] }", "e.dot: error: node "
                       "'a': params without a type (give the kernel type they configure, e.g. "
                       "type=gemm)");
    expect_input_error("e.dot", "digraph g { a [cost=1, type=gemm, params=\"n=0\"] }", "e.dot: "
                       "error: node 'a': params.n: gemm: param 'n' = 0 is out of range [1, "
                       "65536]");
    expect_input_error("e.dot", "digraph g { a [cost=1, splittable=yes] }", "e.dot: error: node "
                       "'a': splittable: expected true or false");
    expect_input_error("e.dot", "digraph g { \"a/b\" [cost=1] }", "e.dot: error: node 'a/b': "
                       "name: 'a/b' may not contain '#', '/', '[', ']', '\"' or control "
                       "characters (they delimit task ids)");
    expect_input_error("e.dot", "digraph g { a [cost=1]; b [cost=1]; a -> b [bytes=x] }",
                       "e.dot: error: edge 'a' -> 'b': bytes: expected a whole number >= 0, "
                       "not 'x'");
    expect_input_error("e.dot", "digraph g { a [cost=1, type=axpy, params=\"n=4\"]; b [cost=1, "
                       "type=axpy, params=\"n=4\"]; a -> b [bytes=16, buffer=zz] }", "e.dot: "
                       "error: edge 'a' -> 'b': buffer: kernel 'b' (axpy) has no buffer 'zz': "
                       "name one it reads (x or y), or write buffer: none if the edge only "
                       "orders");
    expect_input_error("e.dot", "digraph g { a [cost=1]; b [cost=1]; a -> b [buffer=zz] }",
                       "e.dot: error: edge 'a' -> 'b': buffer: kernel 'b' has no type, so no "
                       "buffer 'zz' to feed: an edge into it only orders (drop buffer)");
    expect_input_error("e.dot", "digraph g { a [cost=1]; b [cost=1]; a -> b; b -> a }",
                       "e.dot: error: cycle in application 'e': a -> b -> a");
    expect_input_error("e.dot", "digraph g { a [cost=1]; a -> a }", "e.dot: error: edge 'a' -> "
                       "'a': to: kernel 'a' cannot depend on itself");
    expect_input_error("e.dot", "digraph g { a [cost=1]; b [cost=1]; a -> b; a -> b }",
                       "e.dot: error: edge 'a' -> 'b': a second edge between these nodes");
    expect_input_error("e.dot", "digraph g { \"x#1/a\" [cost=1] }", "e.dot: error: node "
                       "'x#1/a': no instance 0 of 'x' (instances count from 0)");
    expect_input_error("e.dot", "digraph g { \"x#0/a\" [cost=1]; \"x#1/a\" [cost=2] }",
                       "e.dot: error: node 'x#1/a': cost differs from instance 0's (every "
                       "instance of an application holds the same kernels)");
    expect_input_error("e.dot", "digraph g { \"x#0/a\" [cost=1]; \"x#1/b\" [cost=1] }",
                       "e.dot: error: node 'x#1/b': instance 0 of 'x' has no kernel 'b' (every "
                       "instance of an application holds the same kernels)");
    expect_input_error("e.dot", "digraph g { \"x#0/a\" [cost=1]; \"x#2/a\" [cost=1] }",
                       "e.dot: error: instance 1 of 'x' has 0 nodes, instance 0 has 1 (every "
                       "instance of an application holds the same kernels)");
    expect_input_error("e.dot", "digraph g { \"x#0/a\" [cost=1]; \"x#0/b\" [cost=1]; "
                       "\"x#1/a\" [cost=1]; \"x#1/b\" [cost=1]; \"x#0/a\" -> \"x#0/b\"; "
                       "\"x#1/b\" -> \"x#1/a\" }", "e.dot: error: edge 'x#1/b' -> 'x#1/a': "
                       "instance 0 has no such edge (every instance of an application holds the "
                       "same edges)");
    expect_input_error("e.dot", "digraph g { \"x#0/a\" [cost=1]; \"y#0/b\" [cost=1]; \"x#0/a\" "
                       "-> \"y#0/b\" }", "e.dot: error: edge 'x#0/a' -> 'y#0/b': joins two "
                       "applications or instances (an edge stays within one instance of one "
                       "application)");
}

/* ---------------------------------------------------- derived costs */

static void speeds_and_beta(void **state)
{
    static const char stg[] = "2\n0 10 0\n1 10 1 0\n2 10 1 0\n3 10 2 1 2\n";
    hs_load_options o = opts("gpu0=4,gpu=2,cpu=0.5");
    hs_workload *w = read_text("s.stg", stg, &o), *again, *other;
    double lo = 1e9, hi = 0;
    int differ = 0;
    (void)state;
    /* a name wins over a kind */
    assert_float_equal(w->graph.tasks[0].cost_us[0], 20, 0);
    assert_float_equal(w->graph.tasks[0].cost_us[1], 2.5, 0);
    hs_workload_free(w);
    /* beta: each cost drawn from [c (1 - b/2), c (1 + b/2)], the same for
     * the same seed */
    o = opts(NULL);
    o.beta = 1;
    o.beta_seed = 7;
    w = read_text("s.stg", stg, &o);
    again = read_text("s.stg", stg, &o);
    o.beta_seed = 8;
    other = read_text("s.stg", stg, &o);
    for (size_t t = 0; t < w->graph.ntasks; t++)
        for (int d = 0; d < 2; d++) {
            double c = w->graph.tasks[t].cost_us[d];
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
            assert_float_equal(c, again->graph.tasks[t].cost_us[d], 0);
            differ |= c != other->graph.tasks[t].cost_us[d];
        }
    assert_true(lo >= 5 && hi <= 15 && hi > lo);
    assert_true(differ);
    hs_workload_free(w);
    hs_workload_free(again);
    hs_workload_free(other);
}

static void option_refusals(void **state)
{
    static const char stg[] = "0\n0 1 0\n1 1 1 0\n";
    hs_load_options o = opts("tpu=2");
    hs_error err = {0};
    (void)state;
    expect_error("s.stg", stg, &o, HS_EUSAGE, "speed for 'tpu': the platform has no device or "
                 "kind 'tpu' (devices cpu0, gpu0; kinds cpu, gpu)");
    o = (hs_load_options){0};
    expect_error("s.stg", stg, &o, HS_EUSAGE, "s.stg: error: a stg file carries no platform: "
                 "give one (hs_load_options.platform)");
    o = opts("gpu=2");
    expect_error("x.dot", "digraph { a [cost_us=\"cpu=1,gpu=2\"] }", &o, HS_EUSAGE, "x.dot: "
                 "error: speeds and beta derive the costs of tasks given one cost, and every "
                 "task here has its costs per device");
    o.suite = 1; /* one of a suite: the options need not apply to every file */
    hs_workload_free(read_text("x.dot", "digraph { a [cost_us=\"cpu=1,gpu=2\"] }", &o));
    o.suite = 0;
    expect_error("w.yaml", "platform: {}", &o, HS_EUSAGE, "w.yaml: a YAML workload has its own "
                 "platform and costs (a platform, speeds and beta are for task-graph sets)");
    o = opts(NULL);
    o.format = "csv";
    expect_error("s.stg", stg, &o, HS_EUSAGE, "no workload format 'csv' (formats: yaml, json, "
                 "stg, wfformat, dot)");
    o = opts(NULL);
    o.beta = 2;
    expect_error("s.stg", stg, &o, HS_EUSAGE, "beta must be from 0 to less than 2, not 2");
    /* --format wins over the extension */
    o = opts(NULL);
    o.format = "stg";
    hs_workload_free(read_text("s.txt", stg, &o));
    assert_int_equal(hs_load_speeds_check("gpu=2,cpu0=1e-6", &err), HS_OK);
    assert_int_equal(hs_load_speeds_check("gpu=2,gpu=3", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "speed 'gpu=3': a second speed for 'gpu'");
    assert_int_equal(hs_load_speeds_check("gpu=0", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "speed 'gpu=0': the speed must be a number from 1e-06 to "
                        "1e+06");
    assert_int_equal(hs_load_speeds_check("gpu=0x10", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "speed 'gpu=0x10': the speed must be a number from 1e-06 to "
                        "1e+06");
    assert_int_equal(hs_load_speeds_check("=2", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "speed '=2': expected DEVICE=SPEED or KIND=SPEED (e.g. "
                        "gpu=4)");
}

static void formats(void **state)
{
    const char *const *f = hs_workload_formats();
    (void)state;
    assert_string_equal(f[0], "yaml");
    assert_string_equal(f[1], "json");
    assert_string_equal(f[2], "stg");
    assert_string_equal(f[3], "wfformat");
    assert_string_equal(f[4], "dot");
    assert_null(f[5]);
    /* a .json file that cannot be read is WfFormat's; one whose first key
     * is "platform" is a workload */
    assert_string_equal(hs_workload_format_of("no-such.json"), "wfformat");
    assert_string_equal(hs_workload_format_of("workloads/sets/pipeline.json"), "wfformat");
    assert_int_equal(hs_workload_format_is_set("json"), 0);
    assert_string_equal(hs_workload_format_of("a/b.gv"), "dot");
    assert_string_equal(hs_workload_format_of("x.yml"), "yaml");
    assert_string_equal(hs_workload_format_of("rand0001.stg"), "stg");
    assert_null(hs_workload_format_of("stg"));
    assert_null(hs_workload_format_of("x.txt"));
    assert_int_equal(hs_workload_format_is_set("yaml"), 0);
    assert_int_equal(hs_workload_format_is_set("wfformat"), 1);
    assert_int_equal(hs_workload_format_is_set("xml"), -1);
    assert_non_null(strstr(hs_workload_format_describe("dot"), "(.dot .gv)"));
    assert_null(hs_workload_format_describe("xml"));
}

/* ------------------------------------------------------- platform files */

static void platform_files(void **state)
{
    hs_workload *p = NULL;
    hs_error err = {0};
    (void)state;
    /* a workload's file serves: its applications are not read */
    assert_int_equal(hs_platform_load_file("workloads/case-study.yaml", &p, &err), HS_OK);
    assert_int_equal(p->platform.ndevices, 2);
    assert_int_equal(p->napps, 0);
    assert_false(p->finalized);
    assert_string_equal(p->path, "workloads/case-study.yaml");
    hs_workload_free(p);
    p = (hs_workload *)&p;
    assert_int_equal(hs_platform_load_buffer("p.yaml", "platform: {devices: []}\n", 24, &p,
                                             &err), HS_EINPUT);
    assert_null(p);
    assert_string_equal(err.msg, "p.yaml:1:21: error: platform.devices: at least one device is "
                        "needed");
    assert_int_equal(hs_platform_load_buffer("p.yaml", "platfrm: {}\n", 12, &p, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "p.yaml:1:1: error: unknown field 'platfrm' in the top-level "
                        "mapping (expected platform or applications)");
    assert_int_equal(hs_platform_load_buffer("p.yaml", "", 0, &p, &err), HS_EINPUT);
    assert_string_equal(err.msg, "p.yaml: error: the file is empty (a platform file is a "
                        "mapping with 'platform')");
}

/* ------------------------------------------------ DOT round trips */

/* w and v hold the same workload: applications, kernels (names, costs on
 * every device, bytes, type, params, split) and edges, in the same order. */
static void same_workload(const hs_workload *w, const hs_workload *v)
{
    assert_int_equal(w->napps, v->napps);
    for (int a = 0; a < w->napps; a++) {
        const hs_app *x = &w->apps[a], *y = &v->apps[a];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->instances, y->instances);
        assert_int_equal(x->nkernels, y->nkernels);
        assert_int_equal(x->nedges, y->nedges);
        for (int k = 0; k < x->nkernels; k++) {
            const hs_kernel *p = &x->kernels[k], *q = &y->kernels[k];
            assert_string_equal(p->name, q->name);
            for (int d = 0; d < w->platform.ndevices; d++)
                assert_true(p->cost_us[d] == q->cost_us[d]);
            assert_true(p->input_bytes == q->input_bytes);
            assert_true(p->output_bytes == q->output_bytes);
            assert_int_equal(!p->type, !q->type);
            if (p->type)
                assert_string_equal(p->type, q->type);
            assert_int_equal(p->nparams, q->nparams);
            for (int i = 0; i < p->nparams; i++) {
                assert_string_equal(p->params[i].name, q->params[i].name);
                assert_true(p->params[i].value == q->params[i].value);
            }
            assert_int_equal(p->splittable, q->splittable);
            assert_true(p->items == q->items);
        }
        for (int e = 0; e < x->nedges; e++) {
            assert_int_equal(x->edges[e].from, y->edges[e].from);
            assert_int_equal(x->edges[e].to, y->edges[e].to);
            assert_true(x->edges[e].bytes == y->edges[e].bytes);
            assert_true(!x->edges[e].buffer == !y->edges[e].buffer);
            if (x->edges[e].buffer)
                assert_string_equal(x->edges[e].buffer, y->edges[e].buffer);
        }
    }
}

/* Writes w as DOT, reads it back on w's platform, and checks that both
 * give the same makespan under every policy. */
static void round_trip(hs_workload *w, const char *name)
{
    hs_load_options o = {.platform = &w->platform};
    const hs_policy *const *p = hs_policy_list();
    hs_workload *back = NULL;
    hs_error err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(hs_dot_write(w, NULL, f, &err), HS_OK);
    assert_int_equal(fclose(f), 0);
    if (hs_workload_load_buffer_opts("back.dot", text, len, &o, &back, &err) != HS_OK)
        fail_msg("%s: %s", name, err.msg);
    same_workload(w, back);
    for (size_t i = 0; p[i]; i++) {
        double a, b;
        /* best converges within seconds on small graphs only; on larger ones
         * its budget, a time, would decide */
        if (strcmp(hs_policy_name(p[i]), "best") == 0 && w->graph.ntasks > 64)
            continue;
        a = makespan(w, hs_policy_name(p[i]));
        b = makespan(back, hs_policy_name(p[i]));
        if (a != b)
            fail_msg("%s, %s: makespan %.17g, read back %.17g", name, hs_policy_name(p[i]), a, b);
    }
    hs_workload_free(back);
    free(text);
}

/* Every bundled YAML workload (typed-example.yaml with the example model
 * giving its costs). */
static void dot_round_trip_yaml(void **state)
{
    static const char *const dirs[] = {"workloads", "workloads/paper"};
    hs_perfmodel *model = NULL;
    hs_error err = {0};
    int count = 0;
    (void)state;
    if (hs_perfmodel_load("workloads/models/example.json", &model, &err) != HS_OK)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < 2; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        assert_non_null(d);
        while ((e = readdir(d))) {
            hs_load_options o = {.cost_fn = hs_perfmodel_cost_fn, .cost_ctx = model};
            char path[512];
            hs_workload *w = NULL;
            if (!strstr(e->d_name, ".yaml"))
                continue;
            snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
            if (hs_workload_load_file_opts(path, &o, &w, &err) != HS_OK)
                fail_msg("%s", err.msg);
            round_trip(w, path);
            hs_workload_free(w);
            count++;
        }
        closedir(d);
    }
    hs_perfmodel_free(model);
    assert_true(count >= 36);
}

/* The bundled sets, and a generated graph with ties for the policies that
 * follow the order of edges. */
static void dot_round_trip_sets(void **state)
{
    static const char *const files[] = {
        "workloads/sets/fork.stg", "workloads/sets/layers.stg", "workloads/sets/layers-comm.stg",
        "workloads/sets/pipeline.json", "workloads/sets/stencil.dot",
    };
    hs_load_options o = opts("gpu=3");
    hs_gen_random_opts r;
    hs_workload *w;
    hs_error err = {0};
    (void)state;
    o.beta = 0.5;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        hs_load_options plain = opts(NULL);
        /* stencil.dot gives each task its costs per device */
        w = read_file(files[i], strstr(files[i], "stencil") ? &plain : &o);
        round_trip(w, files[i]);
        hs_workload_free(w);
    }
    for (unsigned long seed = 1; seed <= 3; seed++) {
        w = hs_workload_new();
        hs_gen_random_defaults(&r);
        r.tasks = 60;
        r.seed = seed;
        assert_true(hs_gen_platform(w, "cpu:1,gpu:2", 4, &err) >= 0);
        assert_true(hs_gen_random(w, &r, &err) >= 0);
        assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
        round_trip(w, "random");
        hs_workload_free(w);
    }
}

/* Names with what a DOT ID or a list escapes come back unchanged. */
static void dot_round_trip_names(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: 'c,p=u\\', kind: cpu, memory: host}\n"
        "    - {name: \"g p u\", kind: gpu, memory: 'm\\n'}\n"
        "  links:\n"
        "    - {from: host, to: 'm\\n', bandwidth_gbps: 3, latency_us: 1}\n"
        "    - {from: 'm\\n', to: host, bandwidth_gbps: 3, latency_us: 1}\n"
        "applications:\n"
        "  - name: 'a\\b'\n"
        "    instances: 2\n"
        "    kernels:\n"
        "      - {name: 'k,1', cost_us: {cpu: 1.1, gpu: 0.30000000000000004}}\n"
        "      - {name: 'k 2', cost_us: {cpu: 3, gpu: 1}, output_bytes: 12}\n"
        "    edges:\n"
        "      - {from: 'k,1', to: 'k 2', bytes: 7}\n";
    hs_workload *w = NULL;
    hs_error err = {0};
    (void)state;
    if (hs_workload_load_buffer("n.yaml", yaml, sizeof yaml - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    round_trip(w, "names");
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_stg),
        cmocka_unit_test(fork_wfformat),
        cmocka_unit_test(fork_dot),
        cmocka_unit_test(stg_layouts),
        cmocka_unit_test(stg_errors),
        cmocka_unit_test(wfformat_files),
        cmocka_unit_test(wfformat_errors),
        cmocka_unit_test(wfformat_nul),
        cmocka_unit_test(dot_attributes),
        cmocka_unit_test(dot_instances),
        cmocka_unit_test(dot_errors),
        cmocka_unit_test(speeds_and_beta),
        cmocka_unit_test(option_refusals),
        cmocka_unit_test(formats),
        cmocka_unit_test(platform_files),
        cmocka_unit_test(dot_round_trip_yaml),
        cmocka_unit_test(dot_round_trip_sets),
        cmocka_unit_test(dot_round_trip_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
