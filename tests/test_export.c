/* Tests of graph/trace.c and graph/gantt.c: the Chrome trace parses back
 * with one X event per placement and per transfer at the right times, on
 * named threads; the Gantt chart is a PNG of the documented size with boxes
 * in their application's colour, or an SVG; bad paths and references are
 * refused; random schedules keep these invariants.  Where cairo is not
 * built, the Gantt tests check the HS_ENOTBUILT answer instead.  The fixture
 * is tests/export_fixture.h. */
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
#include <jansson.h>

#include "hs_config.h"
#include "hetsched/hetsched.h"
#include "graph/export_util.h"
#include "graph/utf8.h"
#include "export_fixture.h"
#if HS_HAVE_CAIRO
#include <cairo.h>
#endif

/* A fresh empty file /tmp/hs_test_export_XXXXXX<suffix>; its name in buf. */
static void tmp_path(char *buf, size_t size, const char *suffix)
{
    int fd;
    snprintf(buf, size, "/tmp/hs_test_export_XXXXXX%s", suffix);
    fd = mkstemps(buf, (int)strlen(suffix));
    assert_true(fd >= 0);
    close(fd);
}

/* ---------------------------------------------------------------- trace */

static json_t *write_and_load_trace(const hs_workload *w, const hs_schedule *s)
{
    char path[64];
    hs_error err = {0};
    json_error_t jerr;
    json_t *root;
    tmp_path(path, sizeof path, ".json");
    if (hs_trace_write(w, s, path, &err) != HS_OK)
        fail_msg("hs_trace_write: %s", err.msg);
    if (!(root = json_load_file(path, 0, &jerr)))
        fail_msg("%s does not parse: %s", path, jerr.text);
    unlink(path);
    assert_string_equal(json_string_value(json_object_get(root, "displayTimeUnit")), "ms");
    assert_true(json_is_array(json_object_get(root, "traceEvents")));
    return root;
}

static const char *str_of(const json_t *ev, const char *key)
{
    const char *v = json_string_value(json_object_get(ev, key));
    return v ? v : "";
}

static double num_of(const json_t *ev, const char *key)
{
    const json_t *v = json_object_get(ev, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The name a thread_name event gives thread tid, or NULL. */
static const char *thread_name(const json_t *events, int tid)
{
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev)
        if (strcmp(str_of(ev, "ph"), "M") == 0 && strcmp(str_of(ev, "name"), "thread_name") == 0 &&
            json_integer_value(json_object_get(ev, "tid")) == tid)
            return str_of(json_object_get(ev, "args"), "name");
    return NULL;
}

/* Number of X events named `name` on thread tid; the last one in *found. */
static int count_x(const json_t *events, const char *name, int tid, json_t **found)
{
    size_t i;
    json_t *ev;
    int n = 0;
    json_array_foreach(events, i, ev)
        if (strcmp(str_of(ev, "ph"), "X") == 0 && strcmp(str_of(ev, "name"), name) == 0 &&
            json_integer_value(json_object_get(ev, "tid")) == tid) {
            n++;
            *found = ev;
        }
    return n;
}

static int count_ph(const json_t *events, const char *ph)
{
    size_t i;
    json_t *ev;
    int n = 0;
    json_array_foreach(events, i, ev)
        n += strcmp(str_of(ev, "ph"), ph) == 0;
    return n;
}

static void trace_events(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    json_t *root = write_and_load_trace(w, s), *events, *ev;
    /* ids of the placements in fix_placements order: ab is split in halves */
    static const char *const pids[FIX_NPLACEMENTS] = {
        "va#0/add", "va#0/scale", "va#1/add", "va#1/scale", "xgemm#0/ab[0/2]",
        "xgemm#0/ab[1/2]", "xgemm#0/c", "xgemm#0/d",
    };
    static const char *const cats[FIX_NPLACEMENTS] = {"va", "va", "va", "va",
                                                      "xgemm", "xgemm", "xgemm", "xgemm"};
    (void)state;
    events = json_object_get(root, "traceEvents");
    /* threads: device d is d + 1; then links in memory-pair order:
     * host -> gpu0 (pair 0*2+1) is 3, gpu0 -> host (pair 1*2+0) is 4 */
    assert_string_equal(thread_name(events, 1), "cpu0");
    assert_string_equal(thread_name(events, 2), "gpu0");
    assert_string_equal(thread_name(events, 3), "host -> gpu0");
    assert_string_equal(thread_name(events, 4), "gpu0 -> host");
    assert_null(thread_name(events, 5));
    /* exactly one X event per placement, at its start, lasting end - start */
    for (int i = 0; i < FIX_NPLACEMENTS; i++) {
        const hs_placement *p = &fix_placements[i];
        assert_int_equal(count_x(events, pids[i], p->device + 1, &ev), 1);
        assert_float_equal(num_of(ev, "ts"), p->start_us, 1e-9);
        assert_float_equal(num_of(ev, "dur"), p->end_us - p->start_us, 1e-9);
        assert_string_equal(str_of(ev, "cat"), cats[i]);
        assert_string_equal(str_of(json_object_get(ev, "args"), "device"),
                            p->device ? "gpu0" : "cpu0");
        assert_float_equal(num_of(json_object_get(ev, "args"), "fraction"), p->fraction, 0);
    }
    /* d ends at 3460.5: dur 60.5 exactly (15 digits survive the dump) */
    assert_int_equal(count_x(events, "xgemm#0/d", 2, &ev), 1);
    assert_float_equal(num_of(ev, "dur"), 60.5, 0);
    /* one X event per transfer, on its link's thread (durations in the
     * fixture's comment: 43.333, 26.667, 184.763) */
    assert_int_equal(count_x(events, "input of va#0/add", 3, &ev), 1);
    assert_float_equal(num_of(ev, "ts"), 0, 0);
    assert_float_equal(num_of(ev, "dur"), 10 + 400000 / 12000.0, 1e-9);
    assert_int_equal(count_x(events, "output of va#0/scale", 4, &ev), 1);
    assert_float_equal(num_of(ev, "ts"), 714, 0);
    assert_float_equal(num_of(ev, "dur"), 10 + 200000 / 12000.0, 1e-9);
    assert_int_equal(count_x(events, "xgemm#0/ab[1/2] -> xgemm#0/c", 3, &ev), 1);
    assert_float_equal(num_of(ev, "ts"), 3088, 0);
    assert_float_equal(num_of(ev, "dur"), 10 + 2097152 / 12000.0, 1e-9);
    assert_float_equal(num_of(json_object_get(ev, "args"), "bytes"), 2097152, 0);
    assert_string_equal(str_of(json_object_get(ev, "args"), "from"), "cpu0");
    assert_string_equal(str_of(ev, "cat"), "xgemm");
    /* nothing else: 8 + 3 X events; 1 process name + 2 events per thread */
    assert_int_equal(count_ph(events, "X"), FIX_NPLACEMENTS + FIX_NTRANSFERS);
    assert_int_equal(count_ph(events, "M"), 1 + 2 * 4);
    json_decref(root);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* One flow (an "s" event in the producer's slice, an "f" event at the
 * consumer's start, one id) per edge and pair of placements: va#0 and va#1
 * add -> scale, ab's two halves -> c, and c -> d (0 bytes, still an arrow):
 * 5 flows. */
static void trace_flows(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    json_t *root = write_and_load_trace(w, s), *events, *ev;
    /* placement index of each flow's producer and consumer, in edge order */
    static const int from[5] = {0, 2, 4, 5, 6}, to[5] = {1, 3, 6, 6, 7};
    int seen[5] = {0};
    size_t i;
    (void)state;
    events = json_object_get(root, "traceEvents");
    assert_int_equal(count_ph(events, "s"), 5);
    assert_int_equal(count_ph(events, "f"), 5);
    json_array_foreach(events, i, ev) {
        const char *ph = str_of(ev, "ph");
        int id;
        if (strcmp(ph, "s") != 0 && strcmp(ph, "f") != 0)
            continue;
        id = (int)json_integer_value(json_object_get(ev, "id"));
        assert_in_range(id, 1, 5);
        assert_string_equal(str_of(ev, "name"), "dependency");
        if (ph[0] == 's') {
            const hs_placement *p = &fix_placements[from[id - 1]];
            assert_int_equal(json_integer_value(json_object_get(ev, "tid")), p->device + 1);
            assert_float_equal(num_of(ev, "ts"), (p->start_us + p->end_us) / 2, 1e-9);
            seen[id - 1] |= 1;
        } else {
            const hs_placement *p = &fix_placements[to[id - 1]];
            assert_int_equal(json_integer_value(json_object_get(ev, "tid")), p->device + 1);
            assert_float_equal(num_of(ev, "ts"), p->start_us, 1e-9);
            assert_string_equal(str_of(ev, "bp"), "e");
            seen[id - 1] |= 2;
        }
    }
    for (int k = 0; k < 5; k++)
        assert_int_equal(seen[k], 3);
    json_decref(root);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Transfers that overlap on one link go to separate threads of that link. */
static void trace_overlap_tracks(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    /* host -> gpu0 during 20-60 us, while va#0/add's input (0-43.3) is on
     * the same link; and 50-70, after that input is over: back on track 1 */
    hs_transfer a = {.from_placement = HS_NONE, .to_placement = 4,
                     .from_device = HS_HOST_DEVICE, .to_device = 1, .bytes = 1000,
                     .start_us = 20, .end_us = 60};
    hs_transfer b = a;
    json_t *root, *events, *ev;
    (void)state;
    b.start_us = 50;
    b.end_us = 70;
    b.to_placement = 6;
    assert_int_equal(hs_schedule_add_transfer(s, &a, &err), 3);
    assert_int_equal(hs_schedule_add_transfer(s, &b, &err), 4);
    root = write_and_load_trace(w, s);
    events = json_object_get(root, "traceEvents");
    /* link host -> gpu0 has tracks 3 and 4; gpu0 -> host moves to 5 */
    assert_string_equal(thread_name(events, 3), "host -> gpu0");
    assert_string_equal(thread_name(events, 4), "host -> gpu0 (2)");
    assert_string_equal(thread_name(events, 5), "gpu0 -> host");
    assert_null(thread_name(events, 6));
    /* in start order: input of add (0) on 3, a (20) on 4 since 3 is busy
     * until 43.3, b (50) on 3 again, ab[1/2] -> c (3088) on 3 */
    assert_int_equal(count_x(events, "input of va#0/add", 3, &ev), 1);
    assert_int_equal(count_x(events, "input of xgemm#0/ab[0/2]", 4, &ev), 1);
    assert_int_equal(count_x(events, "input of xgemm#0/c", 3, &ev), 1);
    assert_int_equal(count_x(events, "xgemm#0/ab[1/2] -> xgemm#0/c", 3, &ev), 1);
    assert_int_equal(count_x(events, "output of va#0/scale", 5, &ev), 1);
    json_decref(root);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void trace_refusals(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_trace_write(w, s, "/nonexistent-dir/t.json", &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /nonexistent-dir/t.json: No such file or directory");
    s->transfers[0].to_device = 2;
    assert_int_equal(hs_trace_write(w, s, "/nonexistent-dir/t.json", &err), HS_EINPUT);
    assert_string_equal(err.msg, "transfer 0: devices -1 -> 2, but there are 2 devices");
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ---------------------------------------------------------------- Gantt */

#if HS_HAVE_CAIRO
/* Colour of pixel (x, y) of an ARGB32 image as 0xRRGGBB. */
static unsigned pixel(cairo_surface_t *img, int x, int y)
{
    const unsigned char *row = cairo_image_surface_get_data(img) +
                               (size_t)y * (size_t)cairo_image_surface_get_stride(img);
    return ((const uint32_t *)(const void *)row)[x] & 0xffffff;
}

/* x of time `us` with the layout of graph/gantt.c (lane labels 140 px on the
 * left, 30 px margin on the right) and the fixture's makespan 3460.5. */
static int x_of(double us)
{
    return (int)(140 + us / 3460.5 * (HS_GANTT_WIDTH - 140 - 30));
}
#endif

static void gantt_png(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    char path[64];
    (void)state;
    tmp_path(path, sizeof path, ".png");
#if HS_HAVE_CAIRO
    {
        static const unsigned char magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        unsigned char head[8] = {0};
        cairo_surface_t *img;
        FILE *f;
        if (hs_gantt_write(w, s, path, &err) != HS_OK)
            fail_msg("hs_gantt_write: %s", err.msg);
        assert_non_null(f = fopen(path, "rb"));
        assert_int_equal(fread(head, 1, 8, f), 8);
        fclose(f);
        assert_memory_equal(head, magic, 8);
        img = cairo_image_surface_create_from_png(path);
        assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
        /* 2 devices, 2 links carrying data (host -> gpu0, gpu0 -> host), 2
         * applications: 60 + 2*40 + 2*20 + 50 + 24 = 254 */
        assert_int_equal(cairo_image_surface_get_width(img), 1200);
        assert_int_equal(cairo_image_surface_get_height(img), 254);
        assert_int_equal(HS_GANTT_HEIGHT(2, 2, 2), 254);
        /* va#1/scale runs 568-2088 on cpu0, whose lane is y 60-100 with the
         * box at 65-95: at 948 us, above the centred text, it is va's colour
         * (palette 0, #80b1d3).  gpu0's lane (y 100-140) is idle at 2200 us:
         * white background. */
        assert_int_equal(pixel(img, x_of(948), 68), 0x80b1d3);
        assert_int_equal(pixel(img, x_of(2200), 108), 0xffffff);
        /* xgemm#0/ab[0/2] runs 714-864 on gpu0: xgemm's colour (#fdb462) */
        assert_int_equal(pixel(img, x_of(720), 108), 0xfdb462);
        cairo_surface_destroy(img);
    }
#else
    assert_int_equal(hs_gantt_write(w, s, path, &err), HS_ENOTBUILT);
    assert_string_equal(err.msg, "Gantt pictures need cairo: not built in");
#endif
    unlink(path);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void gantt_svg(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    char path[64];
    (void)state;
    tmp_path(path, sizeof path, ".SVG"); /* the extension's case does not matter */
    if (!HS_HAVE_CAIRO) {
        assert_int_equal(hs_gantt_write(w, s, path, &err), HS_ENOTBUILT);
    } else {
        char head[6] = {0};
        FILE *f;
        if (hs_gantt_write(w, s, path, &err) != HS_OK)
            fail_msg("hs_gantt_write: %s", err.msg);
        assert_non_null(f = fopen(path, "rb"));
        assert_int_equal(fread(head, 1, 5, f), 5);
        fclose(f);
        assert_string_equal(head, "<?xml");
    }
    unlink(path);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void gantt_refusals(void **state)
{
    hs_workload *w = fix_workload();
    hs_schedule *s = fix_schedule();
    hs_error err = {0};
    (void)state;
    if (!HS_HAVE_CAIRO)
        skip();
    assert_int_equal(hs_gantt_write(w, s, "/tmp/chart.pdf", &err), HS_EUSAGE);
    assert_string_equal(err.msg, "/tmp/chart.pdf: a Gantt picture is written as .png or .svg "
                                 "(by the file's extension)");
    assert_int_equal(hs_gantt_write(w, s, "/tmp/hs.d/chart", &err), HS_EUSAGE);
    assert_int_equal(hs_gantt_write(w, s, "/nonexistent-dir/g.png", &err), HS_EIO);
    assert_string_equal(err.msg, "cannot write /nonexistent-dir/g.png: No such file or "
                                 "directory");
    s->placements[0].fraction = 0;
    assert_int_equal(hs_gantt_write(w, s, "/nonexistent-dir/g.png", &err), HS_EINPUT);
    assert_string_equal(err.msg, "placement 0 (va#0/add): part 0/1 with fraction 0 is not a part "
                                 "k/n (0 <= k < n) with a fraction in (0, 1]");
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------------ UTF-8 */

/* Labels cut to fit end on a character boundary; text that is not UTF-8
 * is made so. */
static void label_cutting(void **state)
{
    char b[16];
    (void)state;
    hs__label(b, 6, "%s", "ab\xe2\x82\xac\xe2\x82\xac"); /* ab, two euro signs */
    assert_string_equal(b, "ab\xe2\x82\xac");
    hs__label(b, 5, "%s", "ab\xe2\x82\xac");
    assert_string_equal(b, "ab");
    hs__label(b, 4, "x%s", "\xf0\x9f\x98\x80"); /* U+1F600 needs 4 bytes */
    assert_string_equal(b, "x");
    hs__label(b, sizeof b, "%s #%d", "\xe6\xbc\xa2", 7);
    assert_string_equal(b, "\xe6\xbc\xa2 #7");
    /* a byte that starts no character, a surrogate, an overlong '/', a
     * cut character */
    assert_string_equal(hs__utf8_copy(b, sizeof b, "a\xff\xed\xa0\x80\xc0\xaf\xe2\x82"),
                        "a????????");
    assert_string_equal(hs__utf8_copy(b, 5, "ab\xe2\x82\xac"), "ab");
}

/* "漢" (3 bytes) n times, then `tail`. */
static char *cjk(char *buf, size_t size, int n, const char *tail)
{
    size_t len = 0;
    for (int i = 0; i < n && len + 4 < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "\xe6\xbc\xa2");
    snprintf(buf + len, size - len, "%s", tail);
    return buf;
}

/* Names as long as a workload may hold (512 bytes of CJK), an algorithm
 * longer than any label and a file name that is not UTF-8: the trace keeps
 * every task id whole and parses back, and the Gantt chart is drawn (cairo
 * refuses the whole picture for one label that is not UTF-8, as a label cut
 * in the middle of a character was). */
static void long_utf8_labels(void **state)
{
    char app[600], kern[600], dev[600], mem[600], alg[2000], id[2 * HS_TASK_ID_MAX];
    hs_workload *w = hs_workload_new();
    hs_schedule *s;
    hs_error err = {0};
    json_t *root, *events, *ev;
    const char *proc = NULL;
    size_t i;
    (void)state;
    cjk(app, sizeof app, 170, "a");
    cjk(kern, sizeof kern, 170, "kk");
    cjk(dev, sizeof dev, 170, "d");
    cjk(mem, sizeof mem, 170, "m");
    cjk(alg, sizeof alg, 600, "");
    assert_int_equal(strlen(kern), HS_NAME_MAX);
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, dev, HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, mem, 0, &err), 1);
    assert_int_equal(hs_platform_add_link(w, "host", mem, 10, 5, &err), 0);
    assert_int_equal(hs_platform_add_link(w, mem, "host", 10, 5, &err), 1);
    assert_int_equal(hs_workload_add_app(w, app, 2, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, kern, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "b", &err), 1);
    for (int k = 0; k < 2; k++)
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", 10, &err), 0);
    for (int k = 0; k < 2; k++)
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 10, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, 0, 50, 0, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, 1, 0, 50, &err), 0);
    assert_true(hs_app_add_edge(w, 0, kern, "b", 1000, &err) >= 0);
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    /* kern #0 in halves on both devices, b #0 on gpu0, instance 1 on the CPU */
    assert_non_null(s = hs_schedule_new("bad\xffname.yaml", alg));
    {
        const hs_placement p[] = {
            {.task = 0, .part = 0, .nparts = 2, .fraction = 0.5, .device = 0, .end_us = 10},
            {.task = 0, .part = 1, .nparts = 2, .fraction = 0.5, .device = 1, .start_us = 10,
             .end_us = 20},
            {.task = 1, .nparts = 1, .fraction = 1, .device = 1, .start_us = 40, .end_us = 50},
            {.task = 2, .nparts = 1, .fraction = 1, .device = 0, .start_us = 10, .end_us = 20},
            {.task = 3, .nparts = 1, .fraction = 1, .device = 0, .start_us = 20, .end_us = 30},
        };
        const hs_transfer t[] = {
            {.from_placement = HS_NONE, .to_placement = 1, .from_device = HS_HOST_DEVICE,
             .to_device = 1, .bytes = 25, .start_us = 0, .end_us = 10},
            {.from_placement = 0, .to_placement = 2, .from_device = 0, .to_device = 1,
             .bytes = 500, .start_us = 10, .end_us = 40},
            {.from_placement = 2, .to_placement = HS_NONE, .from_device = 1,
             .to_device = HS_HOST_DEVICE, .bytes = 50, .start_us = 50, .end_us = 60},
        };
        for (i = 0; i < sizeof p / sizeof *p; i++)
            assert_int_equal(hs_schedule_add_placement(s, &p[i], &err), (int)i);
        for (i = 0; i < sizeof t / sizeof *t; i++)
            assert_int_equal(hs_schedule_add_transfer(s, &t[i], &err), (int)i);
        s->makespan_us = 60;
    }
    root = write_and_load_trace(w, s);
    events = json_object_get(root, "traceEvents");
    assert_string_equal(thread_name(events, 1), dev);
    snprintf(id, sizeof id, "host -> %s", mem);
    assert_string_equal(thread_name(events, 3), id);
    snprintf(id, sizeof id, "%s#0/%s[1/2]", app, kern);
    assert_int_equal(count_x(events, id, 2, &ev), 1);
    snprintf(id, sizeof id, "input of %s#0/%s[1/2]", app, kern);
    assert_int_equal(count_x(events, id, 3, &ev), 1);
    snprintf(id, sizeof id, "%s#0/%s[0/2] -> %s#0/b", app, kern, app);
    assert_int_equal(count_x(events, id, 3, &ev), 1);
    assert_string_equal(str_of(json_object_get(root, "otherData"), "workload"), "bad?name.yaml");
    /* the process name: "hetsched " and the algorithm, cut after a whole character */
    json_array_foreach(events, i, ev)
        if (strcmp(str_of(ev, "name"), "process_name") == 0)
            proc = str_of(json_object_get(ev, "args"), "name");
    assert_non_null(proc);
    assert_int_equal(strncmp(proc, "hetsched \xe6\xbc\xa2", 12), 0);
    assert_int_equal((strlen(proc) - 9) % 3, 0);
    assert_true(strlen(proc) > 9 + 900);
    json_decref(root);
    if (HS_HAVE_CAIRO) {
        char path[64];
        tmp_path(path, sizeof path, ".png");
        if (hs_gantt_write(w, s, path, &err) != HS_OK)
            fail_msg("hs_gantt_write: %s", err.msg);
        unlink(path);
        tmp_path(path, sizeof path, ".svg");
        if (hs_gantt_write(w, s, path, &err) != HS_OK)
            fail_msg("hs_gantt_write: %s", err.msg);
        unlink(path);
    }
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* ------------------------------------------------------ random schedules */

/* A deterministic generator (xorshift64*) so that failures reproduce. */
static double rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return (double)((*x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

typedef struct busy {
    json_int_t tid;
    double ts, end;
} busy;

static int by_tid_ts(const void *a, const void *b)
{
    const busy *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Random placements (some tasks split in 2 or 3 parts) and transfers, often
 * overlapping, on the fixture: the trace has one X event per placement on
 * its device's thread and one per transfer between two memories on a named
 * link thread, where no two events overlap; the Gantt chart draws, and its
 * height follows the links used. */
static void random_invariants(void **state)
{
    hs_workload *w = fix_workload();
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    (void)state;
    for (int round = 0; round < 40; round++) {
        hs_schedule *s = hs_schedule_new(NULL, "random");
        hs_error err = {0};
        json_t *root, *events;
        int crossing = 0, used[4] = {0}, nlinks = 0;
        size_t i;
        json_t *ev;
        int x_dev = 0, x_link = 0, nbusy = 0;
        busy link_busy[12];
        assert_non_null(s);
        for (size_t t = 0; t < FIX_NTASKS; t++) {
            int n = rnd(&seed) < 0.3 ? 2 + (int)(rnd(&seed) * 2) : 1;
            for (int k = 0; k < n; k++) {
                double start = rnd(&seed) * 5000;
                hs_placement p = {.task = t, .part = k, .nparts = n, .fraction = 1.0 / n,
                                  .device = (int)(rnd(&seed) * 2), .start_us = start,
                                  .end_us = start + rnd(&seed) * 800};
                assert_true(hs_schedule_add_placement(s, &p, &err) >= 0);
            }
        }
        for (int k = 0; k < 12; k++) {
            double start = rnd(&seed) * 5000;
            long np = (long)s->nplacements;
            hs_transfer tr = {.from_placement = (long)(rnd(&seed) * np),
                              .to_placement = rnd(&seed) < 0.3 ? HS_NONE
                                                               : (long)(rnd(&seed) * np),
                              .from_device = (int)(rnd(&seed) * 3) - 1,
                              .to_device = (int)(rnd(&seed) * 3) - 1,
                              .bytes = 1000, .start_us = start,
                              .end_us = start + rnd(&seed) * 1500};
            /* memories: device -1 (host) and 0 (cpu0) are host (0), 1 is gpu0 */
            int q = tr.from_device == 1, r = tr.to_device == 1;
            assert_true(hs_schedule_add_transfer(s, &tr, &err) >= 0);
            if (q != r) {
                crossing++;
                nlinks += !used[q * 2 + r];
                used[q * 2 + r] = 1;
            }
        }
        s->makespan_us = 5800;
        root = write_and_load_trace(w, s);
        events = json_object_get(root, "traceEvents");
        json_array_foreach(events, i, ev) {
            json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
            if (strcmp(str_of(ev, "ph"), "X") != 0)
                continue;
            if (tid == 1 || tid == 2) {
                x_dev++;
            } else {
                const char *tn = thread_name(events, (int)tid);
                assert_true(tid > 2 && nbusy < 12);
                assert_non_null(tn);
                assert_true(strncmp(tn, "host -> gpu0", 12) == 0 ||
                            strncmp(tn, "gpu0 -> host", 12) == 0);
                link_busy[nbusy++] = (busy){tid, num_of(ev, "ts"),
                                            num_of(ev, "ts") + num_of(ev, "dur")};
                x_link++;
            }
        }
        assert_int_equal(x_dev, (int)s->nplacements);
        assert_int_equal(x_link, crossing);
        qsort(link_busy, (size_t)nbusy, sizeof *link_busy, by_tid_ts);
        for (int k = 1; k < nbusy; k++)
            if (link_busy[k].tid == link_busy[k - 1].tid)
                assert_true(link_busy[k].ts >= link_busy[k - 1].end - 1e-6);
        json_decref(root);
#if HS_HAVE_CAIRO
        {
            char path[64];
            cairo_surface_t *img;
            tmp_path(path, sizeof path, ".png");
            if (hs_gantt_write(w, s, path, &err) != HS_OK)
                fail_msg("round %d: %s", round, err.msg);
            img = cairo_image_surface_create_from_png(path);
            assert_int_equal(cairo_image_surface_get_height(img), HS_GANTT_HEIGHT(2, nlinks, 2));
            cairo_surface_destroy(img);
            unlink(path);
        }
#endif
        hs_schedule_free(s);
    }
    hs_workload_free(w);
}

/* Under -fsanitize=address, LeakSanitizer reads this: fontconfig (which
 * cairo loads fonts through) keeps its parsed configuration for the life of
 * the process, and only FcFini, which hetsched does not link, frees it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_events),   cmocka_unit_test(trace_flows),
        cmocka_unit_test(trace_overlap_tracks),
        cmocka_unit_test(trace_refusals),
        cmocka_unit_test(gantt_png),      cmocka_unit_test(gantt_svg),
        cmocka_unit_test(gantt_refusals), cmocka_unit_test(random_invariants),
        cmocka_unit_test(label_cutting),  cmocka_unit_test(long_utf8_labels),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
#if HS_HAVE_CAIRO
    /* Let go of cairo's font caches, which leak checkers would report. */
    cairo_debug_reset_static_data();
#endif
    return failed;
}
