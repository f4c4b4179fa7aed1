/* Tests of graph/dot.c: the DOT text of a workload and of a schedule (clusters,
 * labels, bytes, device colours, the legend), that `dot -Tsvg` accepts it
 * without a warning, escaping of odd names (backslashes, a file name that is
 * not UTF-8), and the refusals.  The fixture is tests/export_fixture.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <graphviz/cgraph.h>

#include "hetsched/hetsched.h"
#include "graph/export_util.h"
#include "export_fixture.h"

/* ------------------------------------------------------------- helpers */

/* A fresh empty file /tmp/hs_test_dot_XXXXXX<suffix>; its name in buf. */
static void tmp_path(char *buf, size_t size, const char *suffix)
{
    int fd;
    snprintf(buf, size, "/tmp/hs_test_dot_XXXXXX%s", suffix);
    fd = mkstemps(buf, (int)strlen(suffix));
    assert_true(fd >= 0);
    close(fd);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* hs_dot_write into a file; returns the DOT text and leaves the file's
 * name in path. */
static char *write_dot(const hs_workload *w, const hs_schedule *s, char *path, size_t size)
{
    hs_error err = {0};
    FILE *f;
    tmp_path(path, size, ".dot");
    assert_non_null(f = fopen(path, "w"));
    if (hs_dot_write(w, s, f, &err) != HS_OK)
        fail_msg("hs_dot_write: %s", err.msg);
    assert_int_equal(fclose(f), 0);
    return slurp(path);
}

/* The statement of the node or edge that starts with `head` (a quoted node
 * name, or `"a" -> "b"`), up to its closing "];", as a new string. */
static char *statement(const char *dot, const char *head)
{
    char key[600];
    const char *at, *end;
    char *out;
    /* agwrite puts a tab between a node's name (or an edge) and its [. */
    snprintf(key, sizeof key, "\t%s\t[", head);
    if (!(at = strstr(dot, key)))
        fail_msg("no statement for %s in:\n%s", head, dot);
    assert_non_null(end = strstr(at, "];"));
    out = strndup(at, (size_t)(end - at));
    assert_non_null(out);
    return out;
}

static void expect_in(const char *text, const char *piece)
{
    assert_non_null(text);
    if (!text || !strstr(text, piece))
        fail_msg("'%s' not found in:\n%s", piece, text ? text : "(nothing)");
}

static void expect_stmt(const char *dot, const char *head, const char *piece)
{
    char *st = statement(dot, head);
    expect_in(st, piece);
    free(st);
}

/* Runs `dot -Tsvg` on the file; asserts exit 0 and silence on stderr, and
 * returns the SVG text. */
static char *run_dot(const char *dot_path)
{
    char svg[64], errs[64], cmd[300];
    char *text, *msgs;
    int st;
    tmp_path(svg, sizeof svg, ".svg");
    tmp_path(errs, sizeof errs, ".err");
    snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' -o '%s' 2>'%s'", dot_path, svg, errs);
    st = system(cmd);
    msgs = slurp(errs);
    /* dot itself must be silent; fontconfig may talk about its caches on a
     * fresh machine, which says nothing about our DOT. */
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || strstr(msgs, "Error") ||
        strstr(msgs, "Warning"))
        fail_msg("'%s' failed (status %d): %s", cmd, st, msgs);
    text = slurp(svg);
    unlink(svg);
    unlink(errs);
    free(msgs);
    return text;
}

/* The SVG that dot draws names every node in a <title>. */
static void svg_names_every_task(const char *svg)
{
    for (int t = 0; t < FIX_NTASKS; t++) {
        char title[80];
        snprintf(title, sizeof title, "<title>%s</title>", fix_ids[t]);
        expect_in(svg, title);
    }
}

/* --------------------------------------------------------------- tests */

static void human_bytes(void **state)
{
    char b[32];
    (void)state;
    /* three significant digits, decimal units; 999999 B rounds up to 1 MB
     * rather than printing "1e+03 kB" */
    static const struct {
        double bytes;
        const char *text;
    } cases[] = {
        {0, "0 B"},           {999, "999 B"},      {1000, "1 kB"},
        {200000, "200 kB"},   {4194304, "4.19 MB"}, {999499, "999 kB"},
        {999999, "1 MB"},     {1.5e12, "1.5 TB"},   {12345678, "12.3 MB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs__human_bytes(cases[i].bytes, b, sizeof b);
        assert_string_equal(b, cases[i].text);
    }
}

static void workload_only(void **state)
{
    hs_workload *w = fix_workload();
    char path[64], *dot, *svg;
    (void)state;
    dot = write_dot(w, NULL, path, sizeof path);
    /* one cluster per application instance, labelled APP#I */
    expect_in(dot, "subgraph \"cluster_va#0\" {\n\t\tgraph [label=\"va#0\"];");
    expect_in(dot, "subgraph \"cluster_va#1\" {\n\t\tgraph [label=\"va#1\"];");
    expect_in(dot, "subgraph \"cluster_xgemm#0\" {\n\t\tgraph [label=\"xgemm#0\"];");
    /* kernel names as labels; add reads 400000 B, scale writes 200000 B */
    expect_stmt(dot, "\"va#1/add\"", "label=\"add\\nin 400 kB\"");
    expect_stmt(dot, "\"va#1/scale\"", "label=\"scale\\nout 200 kB\"");
    expect_stmt(dot, "\"xgemm#0/ab\"", "label=ab,");
    /* 200000 B = "200 kB"; 4194304 B = 4.194 MB = "4.19 MB"; exact bytes kept */
    expect_stmt(dot, "\"va#0/add\" -> \"va#0/scale\"", "bytes=200000,");
    expect_stmt(dot, "\"va#0/add\" -> \"va#0/scale\"", "label=\"200 kB\"");
    expect_stmt(dot, "\"xgemm#0/ab\" -> \"xgemm#0/c\"", "bytes=4194304,");
    expect_stmt(dot, "\"xgemm#0/ab\" -> \"xgemm#0/c\"", "label=\"4.19 MB\"");
    expect_stmt(dot, "\"xgemm#0/ab\" -> \"xgemm#0/c\"",
                "tooltip=\"xgemm#0/ab -> xgemm#0/c: 4194304 bytes\"");
    /* an edge without data is an ordering only: dashed, unlabelled */
    expect_stmt(dot, "\"xgemm#0/c\" -> \"xgemm#0/d\"", "style=dashed");
    {
        char *st = statement(dot, "\"xgemm#0/c\" -> \"xgemm#0/d\"");
        assert_null(strstr(st, "label="));
        free(st);
    }
    /* no schedule: no colours, no legend */
    assert_null(strstr(dot, "fillcolor=\"#"));
    assert_null(strstr(dot, "legend"));
    svg = run_dot(path);
    svg_names_every_task(svg);
    expect_in(svg, "<title>cluster_xgemm#0</title>");
    unlink(path);
    free(svg);
    free(dot);
    hs_workload_free(w);
}

static void with_schedule(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    char path[64], path2[64], *dot, *dot2, *svg;
    (void)state;
    dot = write_dot(w, s, path, sizeof path);
    /* palette: device 0 (cpu0) "#80b1d3", device 1 (gpu0) "#fdb462" */
    assert_string_equal(hs__palette_hex(0), "#80b1d3");
    assert_string_equal(hs__palette_hex(1), "#fdb462");
    expect_in(dot, "label=\"by-hand, makespan 3460.5 us\"");
    expect_stmt(dot, "\"va#0/add\"", "fillcolor=\"#fdb462\"");
    expect_stmt(dot, "\"va#0/add\"", "label=\"add\\ngpu0 50-472 us\\nin 400 kB\"");
    expect_stmt(dot, "\"va#1/add\"", "fillcolor=\"#80b1d3\"");
    expect_stmt(dot, "\"va#1/scale\"", "label=\"scale\\ncpu0 568-2088 us\\nout 200 kB\"");
    expect_stmt(dot, "\"xgemm#0/d\"", "label=\"d\\ngpu0 3400-3460.5 us\"");
    /* ab is split in halves: parts listed in placement order, stripes in
     * the same order, gpu0 first with 0.5, cpu0 the rest */
    expect_stmt(dot, "\"xgemm#0/ab\"",
                "label=\"ab\\n[0/2] gpu0 714-864 us\\n[1/2] cpu0 2088-3088 us\"");
    expect_stmt(dot, "\"xgemm#0/ab\"", "fillcolor=\"#fdb462;0.500:#80b1d3\"");
    expect_stmt(dot, "\"xgemm#0/ab\"", "style=striped");
    /* the legend lists the devices in platform order */
    expect_in(dot, "<td bgcolor=\"#80b1d3\" width=\"24\"></td><td align=\"left\">cpu0 (cpu)"
                   "</td></tr><tr><td bgcolor=\"#fdb462\" width=\"24\"></td><td "
                   "align=\"left\">gpu0 (gpu)</td>");
    /* the same input gives the same text (clusters in creation order) */
    dot2 = write_dot(w, s, path2, sizeof path2);
    assert_string_equal(dot, dot2);
    svg = run_dot(path);
    svg_names_every_task(svg);
    expect_in(svg, "gpu0 (gpu)");
    unlink(path);
    unlink(path2);
    free(svg);
    free(dot);
    free(dot2);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* A backslash in a kernel name stays a backslash (not an escape such as \n);
 * HTML's reserved characters in a device name are escaped in the legend; a
 * task missing from the schedule is drawn dashed and says so. */
static void odd_names_and_unplaced(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s = hs_schedule_new(NULL, NULL);
    hs_placement p = {.task = 0, .nparts = 1, .fraction = 1, .device = 0, .end_us = 5};
    hs_error err = {0};
    char path[64], *dot, *svg;
    (void)state;
    assert_non_null(w);
    assert_non_null(s);
    assert_int_equal(hs_platform_add_device(w, "c<&>", HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_workload_add_app(w, "app", 1, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "first", &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "a\\b", &err), 1);
    /* a name ending in a backslash must not escape the quote that ends its ID */
    assert_int_equal(hs_app_add_kernel(w, 0, "end\\", &err), 2);
    for (int k = 0; k < 3; k++)
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", 5, &err), 0);
    assert_true(hs_app_add_edge(w, 0, "first", "a\\b", 8, &err) >= 0);
    assert_true(hs_app_add_edge(w, 0, "a\\b", "end\\", 8, &err) >= 0);
    assert_int_equal(hs_workload_finalize(w, &err), 0);
    assert_int_equal(hs_schedule_add_placement(s, &p, &err), 0);
    /* a file name that is not UTF-8 (names always are) */
    assert_non_null(w->path = strdup("odd\xff.yaml"));
    dot = write_dot(w, s, path, sizeof path);
    /* IDs are escStrings as labels are: each backslash doubled */
    expect_stmt(dot, "\"app#0/a\\\\b\"", "label=\"a\\\\b\\n(not placed)\"");
    expect_stmt(dot, "\"app#0/a\\\\b\"", "style=\"filled,dashed\"");
    expect_stmt(dot, "\"app#0/end\\\\\"", "label=\"end\\\\\\n(not placed)\"");
    expect_stmt(dot, "\"app#0/a\\\\b\" -> \"app#0/end\\\\\"", "bytes=8");
    expect_stmt(dot, "\"app#0/first\"", "label=\"first\\nc<&> 0-5 us\"");
    expect_in(dot, "c&lt;&amp;&gt; (cpu)");
    expect_in(dot, "label=\"odd?.yaml\\nschedule, makespan 0 us\"");
    svg = run_dot(path);
    expect_in(svg, "<title>app#0/first</title>");
    /* dot read the escaped IDs and drew the labels "a\b" and "end\" as such */
    expect_in(svg, "<title>app#0/end\\\\</title>");
    expect_in(svg, ">a\\b</text>");
    expect_in(svg, ">end\\</text>");
    unlink(path);
    free(svg);
    free(dot);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The buffer a workload binds an edge to (exec/data.h) is the edge's
 * `buffer` attribute, as written (none included), and only where it is
 * written; cgraph reads every one back as it was. */
static void buffer_bindings(void **state)
{
    static const char text[] =
        "platform:\n"
        "  devices: [{name: cpu0, kind: cpu, memory: host}]\n"
        "applications:\n"
        "  - name: app\n"
        "    instances: 2\n"
        "    kernels:\n"
        "      - {name: pq, type: dot, params: {n: 100}, cost_us: {cpu: 1}}\n"
        "      - {name: u, type: va, params: {n: 100}, cost_us: {cpu: 1}}\n"
        "      - {name: v, type: va, params: {n: 100}, cost_us: {cpu: 1}}\n"
        "      - {name: t, type: va, params: {n: 100}, cost_us: {cpu: 1}}\n"
        "      - {name: ax, type: axpy, params: {n: 100, ratio: 1}, cost_us: {cpu: 1}}\n"
        "    edges:\n"
        "      - {from: pq, to: ax, bytes: 4, buffer: den}\n"
        "      - {from: u, to: ax, bytes: 400}\n"
        "      - {from: v, to: ax, bytes: 400, buffer: y}\n"
        "      - {from: t, to: ax, bytes: 400, buffer: none}\n";
    hs_workload *w = NULL;
    hs_error err = {0};
    char path[64], *dot, *st;
    Agraph_t *g;
    (void)state;
    if (hs_workload_load_buffer("bind.yaml", text, sizeof text - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    dot = write_dot(w, NULL, path, sizeof path);
    expect_stmt(dot, "\"app#0/pq\" -> \"app#0/ax\"", "buffer=den,");
    expect_stmt(dot, "\"app#1/v\" -> \"app#1/ax\"", "buffer=y,");
    expect_stmt(dot, "\"app#0/pq\" -> \"app#0/ax\"",
                "tooltip=\"app#0/pq -> app#0/ax: 4 bytes into buffer den\"");
    expect_stmt(dot, "\"app#0/t\" -> \"app#0/ax\"", "buffer=none,");
    expect_stmt(dot, "\"app#0/t\" -> \"app#0/ax\"",
                "tooltip=\"app#0/t -> app#0/ax: 400 bytes, order only\"");
    st = statement(dot, "\"app#0/u\" -> \"app#0/ax\"");
    assert_null(strstr(st, "buffer"));
    free(st);
    /* read back: each task-graph edge's attribute is its edge's buffer */
    assert_non_null(g = agmemread(dot));
    for (size_t e = 0; e < w->graph.nedges; e++) {
        const hs_edge *ed = &w->graph.edges[e];
        const hs_kernel_edge *ke = hs_edge_origin(w, &w->graph, ed);
        char from[HS_TASK_ID_MAX], to[HS_TASK_ID_MAX];
        Agnode_t *t, *h;
        Agedge_t *ae;
        hs_task_id(w, &w->graph.tasks[ed->from], from, sizeof from);
        hs_task_id(w, &w->graph.tasks[ed->to], to, sizeof to);
        assert_non_null(t = agnode(g, from, 0));
        assert_non_null(h = agnode(g, to, 0));
        assert_non_null(ae = agedge(g, t, h, NULL, 0));
        assert_non_null(ke);
        assert_string_equal(agget(ae, "buffer"), ke->buffer ? ke->buffer : "");
    }
    agclose(g);
    unlink(path);
    free(dot);
    hs_workload_free(w);
}

static void refusals(void **state)
{
    hs_workload *w = fix_workload(), *raw = hs_workload_new();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    FILE *devnull = fopen("/dev/null", "w"), *full;
    (void)state;
    assert_non_null(devnull);
    assert_int_equal(hs_dot_write(raw, NULL, devnull, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "the workload is not finalized");

    s->placements[2].task = 99;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_EINPUT);
    assert_string_equal(err.msg, "placement 2: no task 99 in the workload (it has 7)");
    s->placements[2].task = 2;
    s->placements[3].device = 5;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_EINPUT);
    assert_string_equal(err.msg, "placement 3 (va#1/scale): no device 5 (there are 2)");
    s->placements[3].device = 0;
    s->placements[1].end_us = 100;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_EINPUT);
    assert_string_equal(err.msg, "placement 1 (va#0/scale): times must be finite with start <= "
                                 "end, not 472-100 us");
    s->placements[1].end_us = 714;
    s->transfers[1].to_placement = 42;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_EINPUT);
    assert_string_equal(err.msg, "transfer 1: placements 1 -> 42, but there are 8 placements");
    s->transfers[1].to_placement = HS_NONE;
    s->makespan_us = NAN;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_EINPUT);
    assert_string_equal(err.msg, "makespan must be a finite number >= 0, not nan us");
    s->makespan_us = 3460.5;
    assert_int_equal(hs_dot_write(w, s, devnull, &err), HS_OK);

    /* a full disk is an I/O error, not a silent truncation */
    if ((full = fopen("/dev/full", "w")) != NULL) {
        assert_int_equal(hs_dot_write(w, s, full, &err), HS_EIO);
        assert_string_equal(err.msg, "cannot write DOT: No space left on device");
        fclose(full);
    }
    fclose(devnull);
    hs_schedule_free(s);
    hs_workload_free(raw);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(human_bytes),   cmocka_unit_test(workload_only),
        cmocka_unit_test(with_schedule), cmocka_unit_test(odd_names_and_unplaced),
        cmocka_unit_test(buffer_bindings), cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
