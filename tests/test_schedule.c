/* Tests of graph/schedule.c, schedule_json.c and validate.c: the model's
 * makespan and transfers on a hand-checked workload, the JSON round trip and
 * its refusals, the validator catching each kind of broken schedule, and
 * seeded random schedules built by list scheduling (all valid; every single
 * perturbation rejected). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hetsched/hetsched.h"

/* ------------------------------------------------------------- helpers */

/* The tiny workload every hand-checked test uses:
 *   cpu0 computes from host, gpu0 from its own memory gpu0;
 *   host -> gpu0: 10 GB/s, 10 us   => T = 10 + bytes / 10000 us
 *   gpu0 -> host:  8 GB/s,  5 us   => T =  5 + bytes / 8000 us
 *   va: add   (cpu 500, gpu 100), input_bytes 200000
 *       scale (cpu 300, gpu 60),  output_bytes 80000
 *       norm  (cpu 40,  gpu 20),  output_bytes 8000
 *       add -> scale 160000 bytes, add -> norm 40000 bytes
 * Tasks: 0 va#0/add, 1 va#0/scale, 2 va#0/norm; devices: 0 cpu0, 1 gpu0.
 * Every figure below is a sum of binary fractions, so it is exact. */
enum { ADD, SCALE, NORM };
enum { CPU0, GPU0 };

static hs_workload *tiny_instances(int instances)
{
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    assert_non_null(w);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), CPU0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), GPU0);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 10.0, 10.0, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 8.0, 5.0, &err), 1);
    assert_int_equal(hs_workload_add_app(w, "va", instances, &err), 0);
    assert_int_equal(hs_app_add_kernel(w, 0, "add", &err), ADD);
    assert_int_equal(hs_app_add_kernel(w, 0, "scale", &err), SCALE);
    assert_int_equal(hs_app_add_kernel(w, 0, "norm", &err), NORM);
    assert_int_equal(hs_kernel_set_cost(w, 0, ADD, "cpu", 500, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, ADD, "gpu", 100, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, SCALE, "cpu", 300, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, SCALE, "gpu", 60, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, NORM, "cpu", 40, &err), 0);
    assert_int_equal(hs_kernel_set_cost(w, 0, NORM, "gpu", 20, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, ADD, 200000, 0, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, SCALE, 0, 80000, &err), 0);
    assert_int_equal(hs_kernel_set_bytes(w, 0, NORM, 0, 8000, &err), 0);
    assert_int_equal(hs_app_add_edge(w, 0, "add", "scale", 160000, &err), 0);
    assert_int_equal(hs_app_add_edge(w, 0, "add", "norm", 40000, &err), 1);
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    return w;
}

static hs_workload *tiny(void)
{
    return tiny_instances(1);
}

static void place(hs_schedule *s, size_t task, int part, int nparts, double fraction, int device,
                  double start, double end)
{
    hs_placement p = {.task = task,
                      .part = part,
                      .nparts = nparts,
                      .fraction = fraction,
                      .device = device,
                      .start_us = start,
                      .end_us = end};
    hs_error err = {0};
    long i = hs_schedule_add_placement(s, &p, &err);
    assert_int_equal(i, (long)s->nplacements - 1);
}

/* S1, everything whole:
 *   add   on gpu0: its 200000 input bytes reach gpu0 at 10 + 200000/10000
 *                  = 30; runs 30 .. 130 (cost 100)
 *   scale on gpu0: add's data is already in gpu0; gpu0 free at 130;
 *                  runs 130 .. 190 (cost 60); its 80000 output bytes are back
 *                  on host at 190 + 5 + 80000/8000 = 205
 *   norm  on cpu0: add's 40000 bytes reach host at 130 + 5 + 40000/8000
 *                  = 140; runs 140 .. 180 (cost 40); its output is on host
 *   makespan = max(130, 205, 180) = 205 (scale's output transfer). */
static hs_schedule *s1(const hs_workload *w)
{
    hs_schedule *s = hs_schedule_new("tiny.yaml", "hand");
    hs_error err = {0};
    assert_non_null(s);
    place(s, ADD, 0, 1, 1.0, GPU0, 30, 130);
    place(s, SCALE, 0, 1, 1.0, GPU0, 130, 190);
    place(s, NORM, 0, 1, 1.0, CPU0, 140, 180);
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
    return s;
}

/* S2, add split in two parts on both devices:
 *   add[0/2] on gpu0, fraction 0.75: input 0.75 x 200000 = 150000 bytes
 *            arrive at 10 + 15 = 25; runs 25 .. 100 (0.75 x 100 = 75)
 *   add[1/2] on cpu0, fraction 0.25: input already on host; runs
 *            0 .. 125 (0.25 x 500 = 125)
 *   scale on gpu0: from add[0/2] same memory: 100; from add[1/2]:
 *            160000 x 0.25 = 40000 bytes, 125 + 10 + 4 = 139; runs 139 .. 199;
 *            output back at 199 + 15 = 214
 *   norm on cpu0: from add[0/2]: 40000 x 0.75 = 30000 bytes,
 *            100 + 5 + 3.75 = 108.75; from add[1/2] same memory: 125; cpu0
 *            free at 125; runs 125 .. 165
 *   makespan = 214. */
static hs_schedule *s2(const hs_workload *w)
{
    hs_schedule *s = hs_schedule_new(NULL, "hand-split");
    hs_error err = {0};
    assert_non_null(s);
    place(s, ADD, 0, 2, 0.75, GPU0, 25, 100);
    place(s, ADD, 1, 2, 0.25, CPU0, 0, 125);
    place(s, SCALE, 0, 1, 1.0, GPU0, 139, 199);
    place(s, NORM, 0, 1, 1.0, CPU0, 125, 165);
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
    return s;
}

static hs_schedule *clone(const hs_schedule *s)
{
    hs_schedule *c = hs_schedule_new(s->workload, s->algorithm);
    hs_error err = {0};
    assert_non_null(c);
    c->makespan_us = s->makespan_us;
    for (size_t i = 0; i < s->nplacements; i++)
        assert_true(hs_schedule_add_placement(c, &s->placements[i], &err) >= 0);
    for (size_t k = 0; k < s->ntransfers; k++)
        assert_true(hs_schedule_add_transfer(c, &s->transfers[k], &err) >= 0);
    return c;
}

/* s's placements and makespan, its transfers left implied (as hs_map leaves
 * a delay-model schedule's). */
static hs_schedule *implied_twin(const hs_schedule *s)
{
    hs_schedule *c = clone(s);
    c->ntransfers = 0;
    c->transfers_implied = 1;
    return c;
}

/* hs_schedule_each_transfer's fn: keeps up to 16 transfers in a `seen`,
 * and returns `stop` at the `stop_at`-th (counting from 1; 0: never). */
typedef struct seen {
    hs_transfer t[16];
    size_t n, stop_at;
    int stop;
} seen;

static int see(void *ctx, const hs_transfer *t)
{
    seen *v = ctx;
    if (v->n < 16)
        v->t[v->n] = *t;
    return ++v->n == v->stop_at ? v->stop : 0;
}

static void expect_transfer(const hs_transfer *t, long from, long to, int from_dev, int to_dev,
                            double bytes, double start, double end)
{
    assert_int_equal(t->from_placement, from);
    assert_int_equal(t->to_placement, to);
    assert_int_equal(t->from_device, from_dev);
    assert_int_equal(t->to_device, to_dev);
    assert_true(t->bytes == bytes);
    assert_true(t->start_us == start);
    assert_true(t->end_us == end);
}

/* Validates and expects HS_OK; frees s. */
static void assert_valid(const hs_workload *w, hs_schedule *s)
{
    hs_error err = {0};
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("refused: %s", err.msg);
    assert_int_equal(err.code, HS_OK);
    hs_schedule_free(s);
}

/* Validates and expects HS_EINVALID with exactly `msg`; frees s. */
static void expect_invalid(const hs_workload *w, hs_schedule *s, const char *msg)
{
    hs_error err = {0};
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    assert_int_equal(err.code, HS_EINVALID);
    assert_string_equal(err.msg, msg);
    hs_schedule_free(s);
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hs_test_schedule_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Same placements, transfers and makespan, bit for bit. */
static void assert_same(const hs_schedule *a, const hs_schedule *b)
{
    assert_true(a->makespan_us == b->makespan_us);
    assert_int_equal(a->nplacements, b->nplacements);
    assert_int_equal(a->ntransfers, b->ntransfers);
    for (size_t i = 0; i < a->nplacements; i++) {
        const hs_placement *p = &a->placements[i], *q = &b->placements[i];
        assert_int_equal(p->task, q->task);
        assert_int_equal(p->part, q->part);
        assert_int_equal(p->nparts, q->nparts);
        assert_int_equal(p->device, q->device);
        assert_true(p->fraction == q->fraction);
        assert_true(p->start_us == q->start_us);
        assert_true(p->end_us == q->end_us);
    }
    for (size_t k = 0; k < a->ntransfers; k++) {
        const hs_transfer *t = &a->transfers[k];
        expect_transfer(&b->transfers[k], t->from_placement, t->to_placement, t->from_device,
                        t->to_device, t->bytes, t->start_us, t->end_us);
    }
}

/* ------------------------------------------------------- the hand cases */

static void makespan_and_transfers(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = s1(w), *t = s2(w);
    hs_error err = {0};
    (void)state;
    /* S1: 205 = scale's end 190 + 5 + 80000/8000 (see s1) */
    assert_true(hs_schedule_makespan(w, s) == 205.0);
    assert_true(s->makespan_us == 205.0);
    /* S1's transfers, placement by placement (add, scale, norm):
     *   add's input: host -> gpu0, 200000 bytes, 0 .. 30
     *   add -> norm: gpu0 -> cpu0, 40000 bytes, 130 .. 130 + 5 + 5 = 140
     *   (add -> scale stays in gpu0: none)
     *   scale's output: gpu0 -> host, 80000 bytes, 190 .. 205
     *   (norm's output is already on host: none) */
    assert_int_equal(s->ntransfers, 3);
    expect_transfer(&s->transfers[0], HS_NONE, 0, HS_HOST_DEVICE, GPU0, 200000, 0, 30);
    expect_transfer(&s->transfers[1], 0, 2, GPU0, CPU0, 40000, 130, 140);
    expect_transfer(&s->transfers[2], 1, HS_NONE, GPU0, HS_HOST_DEVICE, 80000, 190, 205);
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);

    /* S2: 214 = scale's end 199 + 15 (see s2) */
    assert_true(t->makespan_us == 214.0);
    /* S2's transfers (add[0/2], add[1/2], scale, norm):
     *   add[0/2]'s input: 150000 bytes, 0 .. 25
     *   add[0/2] -> norm: 30000 bytes, 100 .. 108.75
     *   add[1/2] -> scale: cpu0 -> gpu0, 40000 bytes, 125 .. 139
     *   scale's output: 80000 bytes, 199 .. 214 */
    assert_int_equal(t->ntransfers, 4);
    expect_transfer(&t->transfers[0], HS_NONE, 0, HS_HOST_DEVICE, GPU0, 150000, 0, 25);
    expect_transfer(&t->transfers[1], 0, 3, GPU0, CPU0, 30000, 100, 108.75);
    expect_transfer(&t->transfers[2], 1, 2, CPU0, GPU0, 40000, 125, 139);
    expect_transfer(&t->transfers[3], 2, HS_NONE, GPU0, HS_HOST_DEVICE, 80000, 199, 214);
    /* the split schedule, parts on two devices, is valid */
    assert_int_equal(hs_schedule_validate(w, t, &err), HS_OK);
    assert_int_equal(err.code, HS_OK);

    /* derive refuses a placement outside the workload and leaves s alone */
    s->placements[2].device = 7;
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "placement 2 names task 2 on device 7; the workload has 3 tasks "
                                 "and 2 devices");
    assert_int_equal(s->ntransfers, 3);
    hs_schedule_free(s);
    hs_schedule_free(t);
    hs_workload_free(w);
}

/* S3, add and scale both split in two, their parts on both devices, the
 * transfers left implied:
 *   add[0/2]   on gpu0, 0.75: input 150000 bytes arrive at 25; 25 .. 100
 *   add[1/2]   on cpu0, 0.25: 0 .. 125
 *   scale[0/2] on gpu0, 0.5: from add[1/2] 160000 x 0.25 x 0.5 = 20000
 *              bytes, 125 + 10 + 2 = 137; runs 137 .. 167 (0.5 x 60);
 *              its 40000 output bytes are back at 167 + 5 + 5 = 177
 *   scale[1/2] on cpu0, 0.5: from add[0/2] 160000 x 0.75 x 0.5 = 60000
 *              bytes, 100 + 5 + 7.5 = 112.5; cpu0 free at 165 (after
 *              norm); runs 165 .. 315 (0.5 x 300)
 *   norm       on cpu0: from add[0/2] 30000 bytes at 108.75; runs 125 .. 165
 *   makespan = 315 (scale[1/2]'s output is on host already). */
static hs_schedule *s3(void)
{
    hs_schedule *s = hs_schedule_new(NULL, "hand-split-both");
    assert_non_null(s);
    place(s, ADD, 0, 2, 0.75, GPU0, 25, 100);
    place(s, ADD, 1, 2, 0.25, CPU0, 0, 125);
    place(s, SCALE, 0, 2, 0.5, GPU0, 137, 167);
    place(s, SCALE, 1, 2, 0.5, CPU0, 165, 315);
    place(s, NORM, 0, 1, 1.0, CPU0, 125, 165);
    s->makespan_us = 315;
    s->transfers_implied = 1;
    return s;
}

/* A schedule whose transfers are implied lists none, and gives them, part to
 * part, only where they are read: each_transfer, the validator, the JSON
 * (the same text as once derive has listed them). */
static void implied_transfers(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = s3(), *listed = s3();
    hs_error err = {0};
    seen v = {.n = 0}, some = {.stop_at = 2, .stop = 7};
    char *implied_text, *listed_text;
    (void)state;
    assert_true(hs_schedule_makespan(w, s) == 315.0);
    assert_int_equal(hs_schedule_each_transfer(w, s, see, &v, &err), HS_OK);
    assert_int_equal(s->ntransfers, 0);
    /* placement by placement (add[0/2], add[1/2], scale[0/2], scale[1/2],
     * norm): add[0/2]'s input; add[0/2] -> scale[1/2] and -> norm (to
     * scale[0/2]: the same memory); add[1/2] -> scale[0/2]; scale[0/2]'s
     * output */
    assert_int_equal(v.n, 5);
    expect_transfer(&v.t[0], HS_NONE, 0, HS_HOST_DEVICE, GPU0, 150000, 0, 25);
    expect_transfer(&v.t[1], 0, 3, GPU0, CPU0, 60000, 100, 112.5);
    expect_transfer(&v.t[2], 0, 4, GPU0, CPU0, 30000, 100, 108.75);
    expect_transfer(&v.t[3], 1, 2, CPU0, GPU0, 20000, 125, 137);
    expect_transfer(&v.t[4], 2, HS_NONE, GPU0, HS_HOST_DEVICE, 40000, 167, 177);
    /* a fn that says stop ends the walk with its value */
    assert_int_equal(hs_schedule_each_transfer(w, s, see, &some, &err), 7);
    assert_int_equal(some.n, 2);
    /* derive lists the same, and each_transfer then walks the list */
    assert_int_equal(hs_schedule_derive_transfers(w, listed, &err), HS_OK);
    assert_false(listed->transfers_implied);
    assert_int_equal(listed->ntransfers, 5);
    for (size_t k = 0; k < 5; k++)
        expect_transfer(&listed->transfers[k], v.t[k].from_placement, v.t[k].to_placement,
                        v.t[k].from_device, v.t[k].to_device, v.t[k].bytes, v.t[k].start_us,
                        v.t[k].end_us);
    v.n = 0;
    listed->transfers[1].bytes = 1; /* read from the list, not the model */
    assert_int_equal(hs_schedule_each_transfer(w, listed, see, &v, &err), HS_OK);
    assert_int_equal(v.n, 5);
    assert_true(v.t[1].bytes == 1);
    listed->transfers[1].bytes = 60000;
    /* both valid, and the same JSON */
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);
    assert_int_equal(hs_schedule_validate(w, listed, &err), HS_OK);
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("s3.json"), &err), HS_OK);
    assert_int_equal(hs_schedule_write_json(w, listed, tmp_path("s3-listed.json"), &err), HS_OK);
    implied_text = read_text(tmp_path("s3.json"));
    listed_text = read_text(tmp_path("s3-listed.json"));
    assert_string_equal(implied_text, listed_text);
    assert_non_null(strstr(implied_text, "{\"from_task\": \"va#0/add[0/2]\", \"to_task\": "
                                         "\"va#0/scale[1/2]\", \"from_device\": \"gpu0\", "
                                         "\"to_device\": \"cpu0\", \"bytes\": 60000, "
                                         "\"start_us\": 100.0, \"end_us\": 112.5},\n"));
    /* scale[0/2] starting before add[1/2]'s part arrives is refused, the
     * arrival computed from the model */
    s->placements[2].start_us = 136;
    expect_invalid(w, s,
                   "va#0/scale[0/2] on gpu0 starts at 136 us, before its input from "
                   "va#0/add[1/2] on cpu0 arrives at 137 us");
    /* a placement outside the workload: nothing to walk */
    listed->transfers_implied = 1;
    listed->placements[4].device = 7;
    assert_int_equal(hs_schedule_each_transfer(w, listed, see, &v, &err), HS_EUSAGE);
    assert_string_equal(err.msg, "placement 4 names task 2 on device 7; the workload has 3 tasks "
                                 "and 2 devices");
    free(implied_text);
    free(listed_text);
    hs_schedule_free(listed);
    hs_workload_free(w);
}

static void json_exact_text(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = s1(w);
    hs_error err = {0};
    char *text;
    (void)state;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("s1.json"), &err), HS_OK);
    text = read_text(tmp_path("s1.json"));
    /* DESIGN.md §4, keys in order, one task or transfer per line */
    assert_string_equal(
        text,
        "{\n"
        "  \"workload\": \"tiny.yaml\",\n"
        "  \"algorithm\": \"hand\",\n"
        "  \"model\": \"delay\",\n"
        "  \"makespan_us\": 205.0,\n"
        "  \"tasks\": [\n"
        "    {\"id\": \"va#0/add\", \"device\": \"gpu0\", \"start_us\": 30.0, \"end_us\": 130.0, "
        "\"fraction\": 1.0},\n"
        "    {\"id\": \"va#0/scale\", \"device\": \"gpu0\", \"start_us\": 130.0, \"end_us\": "
        "190.0, \"fraction\": 1.0},\n"
        "    {\"id\": \"va#0/norm\", \"device\": \"cpu0\", \"start_us\": 140.0, \"end_us\": "
        "180.0, \"fraction\": 1.0}\n"
        "  ],\n"
        "  \"transfers\": [\n"
        "    {\"from_task\": null, \"to_task\": \"va#0/add\", \"from_device\": \"host\", "
        "\"to_device\": \"gpu0\", \"bytes\": 200000, \"start_us\": 0.0, \"end_us\": 30.0},\n"
        "    {\"from_task\": \"va#0/add\", \"to_task\": \"va#0/norm\", \"from_device\": \"gpu0\", "
        "\"to_device\": \"cpu0\", \"bytes\": 40000, \"start_us\": 130.0, \"end_us\": 140.0},\n"
        "    {\"from_task\": \"va#0/scale\", \"to_task\": null, \"from_device\": \"gpu0\", "
        "\"to_device\": \"host\", \"bytes\": 80000, \"start_us\": 190.0, \"end_us\": 205.0}\n"
        "  ]\n"
        "}\n");
    free(text);
    hs_schedule_free(s);
    hs_workload_free(w);
}

static void json_round_trip(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = s1(w), *t = s2(w), *back = NULL;
    hs_error err = {0};
    char *text;
    (void)state;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("rt1.json"), &err), HS_OK);
    assert_int_equal(hs_schedule_read_json(w, tmp_path("rt1.json"), &back, &err), HS_OK);
    assert_same(s, back);
    assert_string_equal(back->workload, "tiny.yaml");
    assert_string_equal(back->algorithm, "hand");
    assert_string_equal(back->model, "delay");
    hs_schedule_free(back);

    /* parts [k/n], a null workload, awkward numbers (1/3, 0.1, 1e-7) */
    t->placements[0].end_us = 100.0 + 1.0 / 3.0;
    t->placements[1].start_us = 0.1;
    t->transfers[1].bytes = 30000.5;
    t->makespan_us = 214.0 + 1e-7;
    assert_int_equal(hs_schedule_write_json(w, t, tmp_path("rt2.json"), &err), HS_OK);
    text = read_text(tmp_path("rt2.json"));
    assert_non_null(strstr(text, "\"workload\": null,"));
    assert_non_null(strstr(text, "{\"id\": \"va#0/add[1/2]\", \"device\": \"cpu0\", \"start_us\": "
                                 "0.1, \"end_us\": 125.0, \"fraction\": 0.25}"));
    assert_non_null(strstr(text, "\"bytes\": 30000.5,"));
    free(text);
    assert_int_equal(hs_schedule_read_json(w, tmp_path("rt2.json"), &back, &err), HS_OK);
    assert_same(t, back);
    assert_null(back->workload);
    assert_int_equal(back->placements[1].part, 1);
    assert_int_equal(back->placements[1].nparts, 2);
    hs_schedule_free(back);
    hs_schedule_free(s);
    hs_schedule_free(t);
    hs_workload_free(w);
}

/* One refusal of the reader: `json` in a file, the exact message after
 * "FILE: " (FILE being the temporary path). */
static void expect_read_error(hs_workload *w, const char *json, int code, const char *msg)
{
    const char *path = tmp_path("bad.json");
    hs_schedule *s = NULL;
    hs_error err = {0};
    char want[HS_ERROR_MSG_MAX];
    write_text(path, json, strlen(json));
    snprintf(want, sizeof want, "%s%s", path, msg);
    assert_int_equal(hs_schedule_read_json(w, path, &s, &err), code);
    assert_null(s);
    assert_string_equal(err.msg, want);
}

#define HEAD "{\"workload\": null, \"algorithm\": null, \"model\": \"delay\", \"makespan_us\": 1, "
#define TASK(id, dev, start, end, f)                                                               \
    "{\"id\": \"" id "\", \"device\": \"" dev "\", \"start_us\": " start ", \"end_us\": " end      \
    ", \"fraction\": " f "}"

static void json_read_errors(void **state)
{
    hs_workload *w = tiny();
    const char *top = " (the top level has workload, algorithm, model, makespan_us, tasks, "
                      "transfers)";
    const char *task = " (a task has id, device, start_us, end_us, fraction)";
    char want[512];
    (void)state;
    /* syntax, with yajl's words at the last byte it read */
    expect_read_error(w, "{\n  \"workload\": nul\n}", HS_EINPUT,
                      ":2:17: error: invalid JSON: invalid string in json text");
    expect_read_error(w, "", HS_EINPUT, ":1:1: error: invalid JSON: premature EOF");
    expect_read_error(w, "{\"model\": \"a\",\n \"model\": \"b\"}", HS_EINPUT,
                      ":2:11: error: model: duplicate key (a key is given once)");
    expect_read_error(w, "{\"model\": \"a\" \"b\"}", HS_EINPUT,
                      ":1:16: error: invalid JSON: after key and value, inside map, I expect ',' "
                      "or '}'");
    expect_read_error(w, "[]", HS_EINPUT, ":1:1: error: a schedule is a JSON object, not an array");
    /* keys */
    snprintf(want, sizeof want, ":1:115: error: colour: unknown key%s", top);
    expect_read_error(w, HEAD "\"tasks\": [], \"transfers\": [], \"colour\": 1}", HS_EINPUT, want);
    snprintf(want, sizeof want, ":1:1: error: missing key 'transfers'%s", top);
    expect_read_error(w, HEAD "\"tasks\": []}", HS_EINPUT, want);
    snprintf(want, sizeof want, ":1:85: error: tasks[0]: missing key 'fraction'%s", task);
    expect_read_error(w,
                      HEAD "\"tasks\": [{\"id\": \"va#0/add\", \"device\": \"gpu0\", "
                           "\"start_us\": 0, \"end_us\": 1}], \"transfers\": []}",
                      HS_EINPUT, want);
    /* keys are tried from the one after the last found: one given again
     * after the others wrapped around is still a duplicate */
    expect_read_error(w,
                      HEAD "\"tasks\": [{\"fraction\": 1, \"id\": \"va#0/add\", \"device\": "
                           "\"gpu0\", \"start_us\": 0, \"end_us\": 1, \"fraction\": 1}], "
                           "\"transfers\": []}",
                      HS_EINPUT, ":1:177: error: tasks[0].fraction: duplicate key (a key is given "
                                 "once)");
    {
        const char *path = tmp_path("reversed.json"),
                   *json = "{\"transfers\": [], \"tasks\": [{\"fraction\": 0.5, \"end_us\": 2, "
                           "\"start_us\": 1, \"device\": \"gpu0\", \"id\": \"va#0/scale[1/2]\"}], "
                           "\"makespan_us\": 3, \"model\": \"delay\", \"algorithm\": \"x\", "
                           "\"workload\": null}";
        hs_schedule *s = NULL;
        hs_error err = {0};
        write_text(path, json, strlen(json));
        assert_int_equal(hs_schedule_read_json(w, path, &s, &err), HS_OK);
        assert_int_equal(s->nplacements, 1);
        assert_int_equal(s->placements[0].task, SCALE);
        assert_int_equal(s->placements[0].part, 1);
        assert_int_equal(s->placements[0].nparts, 2);
        assert_int_equal(s->placements[0].device, GPU0);
        assert_true(s->placements[0].start_us == 1 && s->placements[0].end_us == 2 &&
                    s->placements[0].fraction == 0.5 && s->makespan_us == 3);
        assert_string_equal(s->algorithm, "x");
        hs_schedule_free(s);
    }
    snprintf(want, sizeof want, ":1:114: error: tasks[0].colour: unknown key%s", task);
    expect_read_error(w,
                      HEAD "\"tasks\": [{\"id\": \"va#0/add\", \"colour\": \"red\"}], "
                           "\"transfers\": []}",
                      HS_EINPUT, want);
    /* types */
    expect_read_error(w, HEAD "\"tasks\": {}, \"transfers\": []}", HS_EINPUT,
                      ":1:84: error: tasks: must be an array, not an object");
    expect_read_error(w,
                      "{\"workload\": 3, \"algorithm\": null, \"model\": \"delay\", "
                      "\"makespan_us\": 1, \"tasks\": [], \"transfers\": []}",
                      HS_EINPUT, ":1:14: error: workload: must be a string or null, not a number");
    expect_read_error(
        w,
        HEAD "\"tasks\": [" TASK("va#0/add", "gpu0", "\"0\"", "1", "1") "], "
                                                                        "\"transfers\": []}",
        HS_EINPUT, ":1:134: error: tasks[0].start_us: must be a number, not a string");
    expect_read_error(w, HEAD "\"tasks\": [7], \"transfers\": []}", HS_EINPUT,
                      ":1:85: error: tasks[0]: must be an object (a task), not a number");
    /* ids, devices, ranges */
    expect_read_error(w,
                      HEAD
                      "\"tasks\": [" TASK("va#1/add", "gpu0", "0", "1", "1") "], "
                                                                             "\"transfers\": []}",
                      HS_EINPUT, ":1:92: error: tasks[0].id: no task 'va#1/add' in the workload");
    expect_read_error(w,
                      HEAD "\"tasks\": [" TASK("va#0/add", "gpu0", "0", "1", "1") ", " TASK(
                          "va#0/scale", "gpu9", "0", "1", "1") "], \"transfers\": []}",
                      HS_EINPUT, ":1:197: error: tasks[1].device: no device 'gpu9' in the workload");
    expect_read_error(
        w,
        HEAD "\"tasks\": [" TASK("va#0/add[2/2]", "gpu0", "0", "1", "1") "], "
                                                                         "\"transfers\": []}",
        HS_EINPUT,
        ":1:92: error: tasks[0].id: task id 'va#0/add[2/2]': a part is written [k/n] "
        "with 0 <= k < n");
    expect_read_error(
        w,
        HEAD "\"tasks\": [" TASK("va#0/add", "gpu0", "-1", "1", "1") "], "
                                                                     "\"transfers\": []}",
        HS_EINPUT, ":1:134: error: tasks[0].start_us: must be a finite number >= 0, not -1");
    expect_read_error(w,
                      HEAD
                      "\"tasks\": [" TASK("va#0/add", "gpu0", "0", "1", "0") "], "
                                                                             "\"transfers\": []}",
                      HS_EINPUT, ":1:162: error: tasks[0].fraction: must be a number in (0, 1], not 0");
    expect_read_error(w,
                      HEAD
                      "\"tasks\": [" TASK("va#0/add", "gpu0", "0", "1", "1.5") "], "
                                                                               "\"transfers\": []}",
                      HS_EINPUT, ":1:162: error: tasks[0].fraction: must be a number in (0, 1], not 1.5");
    expect_read_error(
        w,
        HEAD "\"tasks\": [" TASK("va#0/add", "gpu0", "0", "1e999", "1") "], "
                                                                        "\"transfers\": []}",
        HS_EINPUT, ":1:147: error: tasks[0].end_us: must be a finite number >= 0, not 1e999");
    /* transfers: ends must be placed tasks or null, devices known or host */
    expect_read_error(w,
                      HEAD "\"tasks\": [" TASK(
                          "va#0/add", "gpu0", "0", "1",
                          "1") "], "
                               "\"transfers\": [{\"from_task\": \"va#0/scale\", \"to_task\": null, "
                               "\"from_device\": \"gpu0\", \"to_device\": \"host\", \"bytes\": 8, "
                               "\"start_us\": 0, \"end_us\": 1}]}",
                      HS_EINPUT,
                      ":1:195: error: transfers[0].from_task: task 'va#0/scale' is not in this "
                      "schedule's tasks");
    expect_read_error(w,
                      HEAD "\"tasks\": [" TASK(
                          "va#0/add", "gpu0", "0", "1",
                          "1") "], "
                               "\"transfers\": [{\"from_task\": \"va#0/add\", \"to_task\": null, "
                               "\"from_device\": \"gpu0\", \"to_device\": \"gpu9\", \"bytes\": 8, "
                               "\"start_us\": 0, \"end_us\": 1}]}",
                      HS_EINPUT,
                      ":1:260: error: transfers[0].to_device: no device 'gpu9' in the workload (nor "
                      "'host')");
    expect_read_error(w,
                      HEAD "\"tasks\": [" TASK(
                          "va#0/add", "gpu0", "0", "1",
                          "1") "], "
                               "\"transfers\": [{\"from_task\": \"va#0/add\", \"to_task\": null, "
                               "\"from_device\": \"gpu0\", \"to_device\": \"host\", \"bytes\": -8, "
                               "\"start_us\": 0, \"end_us\": 1}]}",
                      HS_EINPUT,
                      ":1:277: error: transfers[0].bytes: must be a finite number >= 0, not -8");
    /* a key with a newline or a terminal escape: the message stays one
     * printable line, the bytes written as C escapes */
    snprintf(want, sizeof want, ":1:113: error: a\\nb: unknown key%s", top);
    expect_read_error(w, HEAD "\"tasks\": [], \"transfers\": [], \"a\\nb\": 1}", HS_EINPUT, want);
    snprintf(want, sizeof want, ":1:122: error: \\x1b[31mred: unknown key%s", top);
    expect_read_error(w, HEAD "\"tasks\": [], \"transfers\": [], \"\\u001b[31mred\": 1}", HS_EINPUT,
                      want);
    /* a raw newline after a backslash in a string: located at the
     * backslash, on line 2 */
    expect_read_error(w, "{\"a\":\n\"l\\\n", HS_EINPUT,
                      ":2:3: error: invalid JSON: inside a string, '\\' occurs before a "
                      "character which it may not");
    /* on the lines of a written schedule: the third line's device */
    expect_read_error(w,
                      HEAD "\"tasks\": [\n" TASK("va#0/add", "gpu0", "0", "1", "1") ",\n  " TASK(
                          "va#0/scale", "gpu9", "0", "1", "1") "], \"transfers\": []}",
                      HS_EINPUT, ":3:34: error: tasks[1].device: no device 'gpu9' in the workload");
    /* a file that is not there */
    {
        hs_schedule *s = NULL;
        hs_error err = {0};
        assert_int_equal(hs_schedule_read_json(w, tmp_path("none.json"), &s, &err), HS_EINPUT);
        snprintf(want, sizeof want, "%s: cannot read: No such file or directory",
                 tmp_path("none.json"));
        assert_string_equal(err.msg, want);
        assert_null(s);
    }
    hs_workload_free(w);
}

/* "-" reads stdin (named <stdin> in messages); the writer refuses what JSON
 * cannot hold or what does not belong to the workload. */
static void json_stdin_and_write_refusals(void **state)
{
    char want[256];
    hs_workload *w = tiny();
    hs_schedule *s = s1(w), *back = NULL;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("in.json"), &err), HS_OK);
    assert_non_null(freopen(tmp_path("in.json"), "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &back, &err), HS_OK);
    assert_same(s, back);
    hs_schedule_free(back);
    write_text(tmp_path("in.json"), "{\n\"tasks\": [}", 13);
    assert_non_null(freopen(tmp_path("in.json"), "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &back, &err), HS_EINPUT);
    assert_string_equal(err.msg,
                        "<stdin>:2:11: error: invalid JSON: unallowed token at this point in "
                        "JSON text");

    s->placements[1].end_us = NAN;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("nan.json"), &err), HS_EUSAGE);
    assert_string_equal(err.msg, "placement 1 has a time or fraction that is not finite (JSON "
                                 "cannot hold it)");
    s->placements[1].end_us = 190;
    s->placements[1].task = 3;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("other.json"), &err), HS_EUSAGE);
    assert_string_equal(err.msg, "placement 1 names task 3 on device 1; the workload has 3 tasks "
                                 "and 2 devices");
    assert_true(access(tmp_path("other.json"), F_OK) != 0); /* nothing written */
    s->placements[1].task = SCALE;
    assert_int_equal(hs_schedule_write_json(w, s, tmpdir, &err), HS_EIO);
    snprintf(want, sizeof want, "cannot write %s: Is a directory", tmpdir);
    assert_string_equal(err.msg, want);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The reader streams: keys in any order (the transfers before the tasks,
 * their ends found once the tasks are read), escapes in strings, and
 * errors located where the bad value starts however far into the text
 * (past the chunks kept in memory), from a file and from a pipe. */
#define XFER(from, to)                                                                             \
    "{\"from_task\": " from ", \"to_task\": " to ", \"from_device\": \"gpu0\", "                 \
    "\"to_device\": \"host\", \"bytes\": 8, \"start_us\": 1, \"end_us\": 2}"

static void json_streaming(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = NULL;
    hs_error err = {0};
    const char *path = tmp_path("stream.json");
    const size_t pad = 3u << 20; /* three of the reader's 1 MiB chunks */
    char *text, want[512];
    size_t n;
    (void)state;
    /* transfers first, a task id with escapes ("\/" and "\u0061" for "a") */
    text = HEAD "\"transfers\": [" XFER("\"va#0/add\"", "null") "], \"tasks\": ["
        TASK("va#0\\/\\u0061dd", "gpu0", "0", "1", "1") "]}";
    write_text(path, text, strlen(text));
    assert_int_equal(hs_schedule_read_json(w, path, &s, &err), HS_OK);
    assert_int_equal(s->nplacements, 1);
    assert_int_equal(s->placements[0].task, ADD);
    assert_int_equal(s->ntransfers, 1);
    assert_int_equal(s->transfers[0].from_placement, 0);
    assert_int_equal(s->transfers[0].to_placement, HS_NONE);
    assert_int_equal(s->transfers[0].to_device, HS_HOST_DEVICE);
    hs_schedule_free(s);
    s = NULL;
    /* ... and an end not placed, found at the end, located all the same */
    expect_read_error(w,
                      HEAD "\"transfers\": [" XFER("\"va#0/add\"", "\"va#0/norm\"") "], "
                           "\"tasks\": [" TASK("va#0/add", "gpu0", "0", "1", "1") "]}",
                      HS_EINPUT,
                      ":1:126: error: transfers[0].to_task: task 'va#0/norm' is not in this "
                      "schedule's tasks");
    /* an escaped string before the bad value: located at its opening quote */
    expect_read_error(w, HEAD "\"tasks\": [{\"id\": \"va#0\\\"/add\"}], \"transfers\": []}",
                      HS_EINPUT, ":1:92: error: tasks[0].id: no task 'va#0\"/add' in the workload");
    /* 3 MiB of blanks, then lines whose third holds the bad device: from
     * the file, and through a pipe (no file to read again) */
    n = strlen(HEAD "\"tasks\": [");
    text = malloc(pad + 1024);
    assert_non_null(text);
    memcpy(text, HEAD "\"tasks\": [", n);
    memset(text + n, ' ', pad);
    n += pad;
    n += (size_t)sprintf(text + n, "\n%s,\n  %s], \"transfers\": []}",
                         TASK("va#0/add", "gpu0", "0", "1", "1"),
                         TASK("va#0/scale", "gpu9", "0", "1", "1"));
    write_text(path, text, n);
    snprintf(want, sizeof want, "%s:3:34: error: tasks[1].device: no device 'gpu9' in the workload",
             path);
    assert_int_equal(hs_schedule_read_json(w, path, &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, want);
    assert_non_null(freopen(path, "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, "<stdin>:3:34: error: tasks[1].device: no device 'gpu9' in the "
                                 "workload");
    /* a bad string that straddles two chunks: its start is in the one before */
    n = (1u << 20) - 5 - strlen(HEAD "\"tasks\": [{\"id\": ");
    memcpy(text, HEAD "\"tasks\": [", strlen(HEAD "\"tasks\": ["));
    memset(text + strlen(HEAD "\"tasks\": ["), ' ', n);
    n += strlen(HEAD "\"tasks\": [");
    n += (size_t)sprintf(text + n, "{\"id\": \"va#0/nothing\"}], \"transfers\": []}");
    write_text(path, text, n);
    snprintf(want, sizeof want, "<stdin>:1:%zu: error: tasks[0].id: no task 'va#0/nothing' in "
             "the workload", (size_t)(1u << 20) - 4);
    assert_non_null(freopen(path, "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, want);
    /* the transfers before the tasks, 3 MiB apart: the end not placed is
     * found when the chunk that held it is long gone, and the file is read
     * again for its position; from a pipe it cannot be */
    n = (size_t)sprintf(text, HEAD "\"transfers\": [\n" XFER("\"va#0/scale\"", "null") "],");
    memset(text + n, '\n', pad);
    n += pad;
    n += (size_t)sprintf(text + n, "\"tasks\": [%s]}", TASK("va#0/add", "gpu0", "0", "1", "1"));
    write_text(path, text, n);
    snprintf(want, sizeof want, "%s:2:15: error: transfers[0].from_task: task 'va#0/scale' is not "
             "in this schedule's tasks", path);
    assert_int_equal(hs_schedule_read_json(w, path, &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, want);
    assert_non_null(freopen(path, "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, "<stdin>: error: transfers[0].from_task: task 'va#0/scale' is "
                                 "not in this schedule's tasks");
    assert_null(s);
    free(text);
    hs_workload_free(w);
}

/* The text of a schedule of `ntasks` tasks of tiny_instances, task k
 * (va#k/3/KERNEL, KERNEL add, scale, norm by k % 3) on line k + 2, on gpu0
 * from k to k + 1 us, then `ntransfers` transfers, transfer j on line
 * ntasks + 3 + j from task ntasks - 1 - j to host; `device` replaces task
 * bad_device's device, `id` task bad_id's id, `from` transfer bad_from's
 * from_task (-1: none). */
static char *batch_text(int ntasks, int ntransfers, int bad_id, const char *id, int bad_device,
                        int bad_from, const char *from)
{
    static const char *const kernel[] = {"add", "scale", "norm"};
    char *text = malloc((size_t)(ntasks + ntransfers) * 200 + 256), *at = text;
    assert_non_null(text);
    at += sprintf(at, HEAD "\"tasks\": [");
    for (int k = 0; k < ntasks; k++) {
        char name[32];
        snprintf(name, sizeof name, "va#%d/%s", k / 3, kernel[k % 3]);
        at += sprintf(at, "\n{\"id\": \"%s\", \"device\": \"%s\", \"start_us\": %d, "
                          "\"end_us\": %d, \"fraction\": 1}%s",
                      k == bad_id ? id : name, k == bad_device ? "gpu9" : "gpu0", k, k + 1,
                      k + 1 < ntasks ? "," : "");
    }
    at += sprintf(at, "\n], \"transfers\": [");
    for (int j = 0; j < ntransfers; j++) {
        int k = ntasks - 1 - j;
        char name[32];
        snprintf(name, sizeof name, "va#%d/%s", k / 3, kernel[k % 3]);
        at += sprintf(at, "\n{\"from_task\": \"%s\", \"to_task\": null, \"from_device\": "
                          "\"gpu0\", \"to_device\": \"host\", \"bytes\": 8, \"start_us\": "
                          "1, \"end_us\": 2}%s",
                      j == bad_from ? from : name, j + 1 < ntransfers ? "," : "");
    }
    sprintf(at, "\n]}");
    return text;
}

/* The reader looks task ids up in batches of 256: 1500 tasks and 1500
 * transfers span several, each id found; an error is the first in the
 * text all the same (a bad id before a bad device or broken JSON further
 * in its batch, a bad device before a bad id), located from a file and
 * from a pipe. */
static void json_batched_ids(void **state)
{
    hs_workload *w = tiny_instances(500);
    hs_schedule *s = NULL;
    hs_error err = {0};
    const char *path = tmp_path("batch.json");
    char *text, *cut;
    (void)state;
    text = batch_text(1500, 1500, -1, NULL, -1, -1, NULL);
    write_text(path, text, strlen(text));
    assert_int_equal(hs_schedule_read_json(w, path, &s, &err), HS_OK);
    assert_int_equal(s->nplacements, 1500);
    assert_int_equal(s->ntransfers, 1500);
    for (size_t k = 0; k < 1500; k++) {
        assert_int_equal(s->placements[k].task, k); /* va#k/3/KERNEL is task k */
        assert_int_equal(s->placements[k].nparts, 1);
        assert_int_equal(s->transfers[k].from_placement, 1499 - (long)k);
        assert_int_equal(s->transfers[k].to_placement, HS_NONE);
    }
    hs_schedule_free(s);
    s = NULL;
    free(text);
    /* task 700 (line 702) names no task, task 710 no device: the id */
    text = batch_text(1500, 0, 700, "va#233/nothing", 710, -1, NULL);
    expect_read_error(w, text, HS_EINPUT,
                      ":702:8: error: tasks[700].id: no task 'va#233/nothing' in the workload");
    assert_non_null(freopen(tmp_path("bad.json"), "r", stdin));
    assert_int_equal(hs_schedule_read_json(w, "-", &s, &err), HS_EINPUT);
    assert_string_equal(err.msg, "<stdin>:702:8: error: tasks[700].id: no task 'va#233/nothing' "
                                 "in the workload");
    /* ... and the text broken on line 712: the id all the same */
    cut = strstr(text, "\"id\": \"va#236/scale\"");
    assert_non_null(cut);
    cut[0] = '#';
    expect_read_error(w, text, HS_EINPUT,
                      ":702:8: error: tasks[700].id: no task 'va#233/nothing' in the workload");
    free(text);
    /* a bad device on line 692, before the bad id */
    text = batch_text(1500, 0, 700, "va#233/nothing", 690, -1, NULL);
    expect_read_error(w, text, HS_EINPUT,
                      ":692:32: error: tasks[690].device: no device 'gpu9' in the workload");
    free(text);
    /* transfer 300 (line 1803) names a task not in the workload */
    text = batch_text(1500, 1500, -1, NULL, -1, 300, "va#0/nothing");
    expect_read_error(w, text, HS_EINPUT,
                      ":1803:15: error: transfers[300].from_task: no task 'va#0/nothing' in the "
                      "workload");
    free(text);
    /* ... and one of the workload not in the schedule's 1200 tasks */
    text = batch_text(1200, 1000, -1, NULL, -1, 600, "va#450/norm");
    expect_read_error(w, text, HS_EINPUT,
                      ":1803:15: error: transfers[600].from_task: task 'va#450/norm' is not in "
                      "this schedule's tasks");
    free(text);
    hs_workload_free(w);
}

/* Junk never crashes the reader: every prefix of a valid file, and every
 * byte of it replaced by a few others, is refused or read; whatever is read
 * goes through the validator. */
static void json_junk(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = s2(w), *back;
    const char *path = tmp_path("junk.json");
    const char subst[] = {'\0', '"', '{', ']', ',', '9', '-', 'x', '\\', (char)0xff};
    hs_error err = {0};
    char *text;
    size_t len, nread = 0;
    (void)state;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("good.json"), &err), HS_OK);
    text = read_text(tmp_path("good.json"));
    len = strlen(text);
    for (size_t n = 0; n < len; n++) {
        int rc;
        write_text(path, text, n);
        back = NULL;
        rc = hs_schedule_read_json(w, path, &back, &err);
        /* the last byte is the newline after '}': only the whole object reads */
        assert_int_equal(rc, n + 1 == len ? HS_OK : HS_EINPUT);
        hs_schedule_free(back);
    }
    for (size_t i = 0; i < len; i++)
        for (size_t j = 0; j < sizeof subst; j++) {
            char keep = text[i];
            int rc;
            text[i] = subst[j];
            write_text(path, text, len);
            text[i] = keep;
            back = NULL;
            rc = hs_schedule_read_json(w, path, &back, &err);
            assert_true(rc == HS_OK || rc == HS_EINPUT);
            if (rc == HS_OK) {
                rc = hs_schedule_validate(w, back, &err);
                assert_true(rc == HS_OK || rc == HS_EINVALID);
                nread++;
            }
            hs_schedule_free(back);
        }
    assert_true(nread > 0); /* e.g. a digit changed inside a time */
    free(text);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Each kind of broken schedule, one change from S1 or S2, exact message. */
static void validate_catches(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *good1 = s1(w), *good2 = s2(w), *s;
    (void)state;

    /* task missing: norm dropped */
    s = clone(good1);
    s->nplacements = 2;
    s->ntransfers = 1;
    expect_invalid(w, s, "va#0/norm is not placed");

    /* task twice: norm again on cpu0 after its first run */
    s = clone(good1);
    place(s, NORM, 0, 1, 1.0, CPU0, 180, 220);
    expect_invalid(w, s,
                   "va#0/norm is placed 2 times (starting at 140 us and 180 us); a whole "
                   "task runs once");

    /* parts not summing to 1: 0.75 + 0.2 */
    s = clone(good2);
    s->placements[1].fraction = 0.2;
    expect_invalid(w, s, "the fractions of the 2 parts of va#0/add sum to 0.95, not 1");

    /* a whole task with a fraction other than 1 */
    s = clone(good1);
    s->placements[2].fraction = 0.5;
    expect_invalid(w, s, "va#0/norm is placed whole with fraction 0.5, not 1");

    /* bad part numbering: the same part twice, a part missing, mixed n,
     * a part out of range */
    s = clone(good2);
    s->placements[1].part = 0;
    expect_invalid(w, s, "va#0/add[0/2] is placed twice");
    s = clone(good2);
    s->placements[0].nparts = s->placements[1].nparts = 3;
    expect_invalid(w, s, "va#0/add[2/3] is missing: a task split in 3 parts needs parts 0 to 2");
    s = clone(good2);
    s->placements[1].nparts = 3;
    expect_invalid(w, s,
                   "va#0/add[0/2] and va#0/add[1/3] split one task into different numbers "
                   "of parts");
    s = clone(good2);
    s->placements[1].part = 2;
    expect_invalid(w, s,
                   "va#0/add[2/2]: part 2 of 2 does not exist (parts are numbered 0 to n-1 "
                   "of n >= 1)");
    s = clone(good2);
    s->placements[0].fraction = 1.25;
    s->placements[1].fraction = -0.25;
    expect_invalid(w, s, "va#0/add[0/2] has fraction 1.25; a fraction lies in (0, 1]");

    /* device index out of range (only the API can do that) */
    s = clone(good1);
    s->placements[1].device = 2;
    expect_invalid(w, s, "va#0/scale is placed on device 2; the platform has devices 0 to 1");

    /* times */
    s = clone(good1);
    s->placements[2].start_us = -1;
    expect_invalid(w, s, "va#0/norm on cpu0 starts at -1 us, before time 0");
    s = clone(good1);
    s->placements[2].end_us = 139.5;
    expect_invalid(w, s, "va#0/norm on cpu0 ends at 139.5 us, before it starts at 140 us");

    /* duration != cost: scale on gpu0 costs 60, runs 70 */
    s = clone(good1);
    s->placements[1].end_us = 200;
    expect_invalid(w, s,
                   "va#0/scale on gpu0 runs 70 us (130 to 200 us), but its cost on gpu0 is "
                   "60 us");
    /* within the tolerance (1e-3 us at these times) it passes: 60.0009 */
    s = clone(good1);
    s->placements[1].end_us = 190.0009;
    assert_valid(w, s);
    /* beyond it, the message shows enough decimals to tell them apart */
    s = clone(good1);
    s->placements[1].end_us = 190.0011;
    expect_invalid(w, s,
                   "va#0/scale on gpu0 runs 60.0011 us (130 to 190.0011 us), but its cost "
                   "on gpu0 is 60 us");

    /* a part shorter than its fraction: add[1/2] needs 0.25 x 500 = 125 */
    s = clone(good2);
    s->placements[1].end_us = 100;
    expect_invalid(w, s,
                   "va#0/add[1/2] on cpu0 runs 100 us (0 to 100 us), less than its "
                   "fraction 0.25 of its cost on cpu0 (0.25 x 500 = 125 us)");
    /* a part may run longer than its share (it waited on its device) */
    s = clone(good2);
    s->placements[0].end_us = 110; /* gpu0 is free until 139 */
    s->transfers[1].start_us = 110;
    s->transfers[1].end_us = 118.75;
    {
        hs_error err = {0};
        /* norm on cpu0 at 125 still gets add[0/2]'s data at 110 + 8.75 = 118.75 */
        assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);
    }
    hs_schedule_free(s);

    /* overlap on a device: norm moved to gpu0 (cost 20) at 150, inside
     * scale's 130 .. 190 */
    s = clone(good1);
    s->placements[2] = (hs_placement){
        .task = NORM, .nparts = 1, .fraction = 1, .device = GPU0, .start_us = 150, .end_us = 170};
    expect_invalid(w, s,
                   "va#0/scale and va#0/norm overlap on gpu0: va#0/scale runs 130 to 190 "
                   "us, va#0/norm 150 to 170 us");
    /* the same listed out of start order (norm before scale): the same */
    s = clone(good1);
    s->placements[2] = s->placements[1];
    s->placements[1] = (hs_placement){
        .task = NORM, .nparts = 1, .fraction = 1, .device = GPU0, .start_us = 150, .end_us = 170};
    expect_invalid(w, s,
                   "va#0/scale and va#0/norm overlap on gpu0: va#0/scale runs 130 to 190 "
                   "us, va#0/norm 150 to 170 us");
    /* touching is fine: norm on gpu0 at 190 .. 210 (its 8000 bytes back at
     * 210 + 5 + 1 = 216) */
    s = clone(good1);
    s->placements[2] = (hs_placement){
        .task = NORM, .nparts = 1, .fraction = 1, .device = GPU0, .start_us = 190, .end_us = 210};
    {
        hs_error err = {0};
        assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
        assert_true(s->makespan_us == 216.0);
        assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);
    }
    hs_schedule_free(s);

    /* start before a predecessor's data arrives across memories: norm on
     * cpu0 at 135, add's 40000 bytes arrive at 140 */
    s = clone(good1);
    s->placements[2].start_us = 135;
    s->placements[2].end_us = 175;
    expect_invalid(w, s,
                   "va#0/norm on cpu0 starts at 135 us, before its input from va#0/add on "
                   "gpu0 arrives at 140 us");
    /* ... and on the same memory: scale on gpu0 before add ends at 130 */
    s = clone(good2);
    s->placements[2].start_us = 120;
    s->placements[2].end_us = 180;
    expect_invalid(w, s,
                   "va#0/scale on gpu0 starts at 120 us, before its input from "
                   "va#0/add[1/2] on cpu0 arrives at 139 us");

    /* start before the input from host arrives: add on gpu0 at 20, input at 30 */
    s = clone(good1);
    s->placements[0].start_us = 20;
    s->placements[0].end_us = 120;
    expect_invalid(w, s,
                   "va#0/add on gpu0 starts at 20 us, before its input from host arrives "
                   "at 30 us");

    /* wrong makespan */
    s = clone(good1);
    s->makespan_us = 190;
    expect_invalid(w, s,
                   "makespan_us is 190 us, but the model gives 205 us (va#0/scale on gpu0 "
                   "ends at 190 us, its output is back on host at 205 us)");
    s = clone(good2);
    s->placements[3].start_us = 300; /* norm now ends last, output on host */
    s->placements[3].end_us = 340;
    expect_invalid(w, s,
                   "makespan_us is 214 us, but the model gives 340 us (va#0/norm on cpu0 "
                   "ends at 340 us)");

    /* listed transfers: too fast, leaving early, wrong device, bad end */
    s = clone(good1);
    s->transfers[1].end_us = 135;
    expect_invalid(w, s,
                   "transfer 1 from va#0/add on gpu0 to va#0/norm on cpu0 takes 5 us (130 "
                   "to 135 us), less than the 10 us that 40000 bytes need from gpu0 to "
                   "host");
    s = clone(good1);
    s->transfers[2].start_us = 185;
    expect_invalid(w, s,
                   "transfer 2 from va#0/scale on gpu0 to host leaves at 185 us, before its "
                   "producer ends at 190 us");
    s = clone(good1);
    s->transfers[0].to_device = CPU0;
    expect_invalid(w, s,
                   "transfer 0 from host to va#0/add on gpu0: its to_device is cpu0, but "
                   "it must be gpu0");
    s = clone(good1);
    s->transfers[0].from_device = GPU0;
    expect_invalid(w, s,
                   "transfer 0 from host to va#0/add on gpu0: its from_device is gpu0, but "
                   "it must be host");
    s = clone(good1);
    s->transfers[0].to_placement = 9;
    expect_invalid(w, s, "transfer 0 names placement 9; the schedule has 3");
    s = clone(good1);
    s->transfers[0].to_placement = HS_NONE;
    expect_invalid(w, s, "transfer 0 goes from host to host; one end must be a task");

    hs_schedule_free(good1);
    hs_schedule_free(good2);
    hs_workload_free(w);
}

/* The tolerance (HS_VALIDATE_TOL_US, HS_VALIDATE_TOL_REL): a schedule
 * printed with 3 decimals still validates, a time 0.0011 us off does not, and
 * at 1e11 us the tolerance is relative to the times (100 us), not to the
 * 0.001 us cost of the task compared. */
static void validate_tolerance(void **state)
{
    hs_workload *w = tiny(), *mix;
    hs_schedule *s;
    hs_error err = {0};
    const char *json =
        "{\"workload\": null, \"algorithm\": \"printed with 3 decimals\", \"model\": \"delay\", "
        "\"makespan_us\": 550.337, \"tasks\": [\n"
        "{\"id\": \"va#0/add\", \"device\": \"gpu0\", \"start_us\": 375.337, \"end_us\": "
        "475.337, \"fraction\": 1},\n"
        "{\"id\": \"va#0/scale\", \"device\": \"gpu0\", \"start_us\": 475.337, \"end_us\": "
        "535.337, \"fraction\": 1},\n"
        "{\"id\": \"va#0/norm\", \"device\": \"cpu0\", \"start_us\": 485.336, \"end_us\": "
        "525.336, \"fraction\": 1}],\n"
        "\"transfers\": []}\n";
    (void)state;
    /* add ends at 475.337 on gpu0; its 40000 bytes reach cpu0 at 475.337 + 5
     * + 40000 / 8000 = 485.337; norm starts at 485.336, 0.001 before (the
     * two roundings of an exact optimum meet there): accepted */
    write_text(tmp_path("decimals.json"), json, strlen(json));
    assert_int_equal(hs_schedule_read_json(w, tmp_path("decimals.json"), &s, &err), HS_OK);
    assert_valid(w, s);
    /* 0.0011 before: refused, with the decimals that show it */
    assert_int_equal(hs_schedule_read_json(w, tmp_path("decimals.json"), &s, &err), HS_OK);
    s->placements[2].start_us = 485.3359;
    s->placements[2].end_us = 525.3359;
    expect_invalid(w, s,
                   "va#0/norm on cpu0 starts at 485.3359 us, before its input from va#0/add on "
                   "gpu0 arrives at 485.337 us");
    /* the makespan likewise: 550.3379 (0.0009 off) passes, 550.3381 does not */
    assert_int_equal(hs_schedule_read_json(w, tmp_path("decimals.json"), &s, &err), HS_OK);
    s->makespan_us = 550.3379;
    assert_valid(w, s);
    assert_int_equal(hs_schedule_read_json(w, tmp_path("decimals.json"), &s, &err), HS_OK);
    s->makespan_us = 550.3381;
    expect_invalid(w, s,
                   "makespan_us is 550.3381 us, but the model gives 550.337 us (va#0/scale on "
                   "gpu0 ends at 535.337 us, its output is back on host at 550.337 us)");
    hs_workload_free(w);

    /* big (1e11 us) on cpu0, then tiny (0.001 us) on gpu0 after it (an edge
     * without data): tiny's end 1e11 + 0.001 is a double 1e11 + 0.00099182,
     * which a tolerance of the cost (0.001 us) would refuse */
    mix = hs_workload_new();
    assert_int_equal(hs_platform_add_device(mix, "cpu0", HS_DEVICE_CPU, "host", 1, &err), 0);
    assert_int_equal(hs_platform_add_device(mix, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 1);
    assert_int_equal(hs_platform_add_link(mix, "host", "gpu0", 10, 10, &err), 0);
    assert_int_equal(hs_platform_add_link(mix, "gpu0", "host", 10, 10, &err), 1);
    assert_int_equal(hs_workload_add_app(mix, "mix", 1, &err), 0);
    assert_int_equal(hs_app_add_kernel(mix, 0, "big", &err), 0);
    assert_int_equal(hs_app_add_kernel(mix, 0, "tiny", &err), 1);
    assert_int_equal(hs_kernel_set_cost(mix, 0, 0, "cpu", 1e11, &err), 0);
    assert_int_equal(hs_kernel_set_cost(mix, 0, 0, "gpu", 1e11, &err), 0);
    assert_int_equal(hs_kernel_set_cost(mix, 0, 1, "cpu", 0.001, &err), 0);
    assert_int_equal(hs_kernel_set_cost(mix, 0, 1, "gpu", 0.001, &err), 0);
    assert_int_equal(hs_app_add_edge(mix, 0, "big", "tiny", 0, &err), 0);
    assert_int_equal(hs_workload_finalize(mix, &err), HS_OK);
    for (double early = 0; early <= 101; early += 101) {
        s = hs_schedule_new(NULL, "hand");
        place(s, 0, 0, 1, 1.0, CPU0, 0, 1e11);
        place(s, 1, 0, 1, 1.0, GPU0, 1e11 - early, 1e11 - early + 0.001);
        s->makespan_us = hs_schedule_makespan(mix, s);
        if (early == 0) {
            assert_true(s->placements[1].end_us - s->placements[1].start_us != 0.001);
            assert_valid(mix, s);
        } else { /* 101 us early is beyond 1e-9 x 1e11 = 100 us */
            expect_invalid(mix, s,
                           "mix#0/tiny on gpu0 starts at 99999999899 us, before its input from "
                           "mix#0/big on cpu0 arrives at 100000000000 us");
        }
    }
    s = hs_schedule_new(NULL, "hand"); /* 99 us early is within */
    place(s, 0, 0, 1, 1.0, CPU0, 0, 1e11);
    place(s, 1, 0, 1, 1.0, GPU0, 1e11 - 99, 1e11 - 99 + 0.001);
    s->makespan_us = hs_schedule_makespan(mix, s);
    assert_valid(mix, s);
    /* and every policy's schedule of it validates */
    for (const hs_policy *const *p = hs_policy_list(); *p; p++) {
        hs_map_options opt = {0};
        if (hs_map(mix, hs_policy_name(*p), &opt, &s, NULL, &err) != HS_OK)
            fail_msg("%s: %s", hs_policy_name(*p), err.msg);
        if (hs_schedule_validate(mix, s, &err) != HS_OK)
            fail_msg("%s: %s", hs_policy_name(*p), err.msg);
        hs_schedule_free(s);
    }
    hs_workload_free(mix);
}

/* The schedule's workload, model and transfer bytes, exact messages. */
static void validate_names_and_bytes(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *good1 = s1(w), *good2 = s2(w), *s;
    char want[512];
    (void)state;
    s = clone(good1);
    free(s->model);
    s->model = strdup("simulated");
    expect_invalid(w, s,
                   "the schedule's model is 'simulated', not 'delay', 'measured' or 'executor' "
                   "(the models the validator checks)");

    /* workload: a path that does not exist from here counts by its name */
    w->path = strdup("a/tiny.yaml");
    s = clone(good1); /* made for "tiny.yaml" */
    assert_valid(w, s);
    s = clone(good1);
    free(s->workload);
    s->workload = strdup("b/other.yaml");
    expect_invalid(w, s, "the schedule is of workload b/other.yaml, not a/tiny.yaml");
    /* existing files count by identity: the same file by another path passes,
     * another file of the same name does not */
    free(w->path);
    assert_int_equal(mkdir(tmp_path("d1"), 0700), 0);
    assert_int_equal(mkdir(tmp_path("d2"), 0700), 0);
    write_text(tmp_path("d1/tiny.yaml"), "x", 1);
    write_text(tmp_path("d2/tiny.yaml"), "x", 1);
    w->path = strdup(tmp_path("d1/tiny.yaml"));
    s = clone(good1);
    free(s->workload);
    s->workload = strdup(tmp_path("d2/../d1/tiny.yaml"));
    assert_valid(w, s);
    s = clone(good1);
    free(s->workload);
    s->workload = strdup(tmp_path("d2/tiny.yaml"));
    snprintf(want, sizeof want, "the schedule is of workload %s/d2/tiny.yaml, not %s/d1/tiny.yaml",
             tmpdir, tmpdir);
    expect_invalid(w, s, want);
    free(w->path);
    w->path = NULL;

    /* bytes: within half a byte, else refused naming what the model sends */
    s = clone(good1);
    s->transfers[1].bytes = 40000.5;
    assert_valid(w, s);
    s = clone(good1);
    s->transfers[1].bytes = 40001;
    expect_invalid(w, s,
                   "transfer 1 from va#0/add on gpu0 to va#0/norm on cpu0 carries 40001 bytes, "
                   "but the model sends 40000 (the edge's 40000 bytes x fractions 1 and 1)");
    s = clone(good1);
    s->transfers[0].bytes = 199999;
    expect_invalid(w, s,
                   "transfer 0 from host to va#0/add on gpu0 carries 199999 bytes, but the "
                   "model sends 200000 (input_bytes 200000 x fraction 1)");
    s = clone(good1);
    s->transfers[2].bytes = 8000;
    expect_invalid(w, s,
                   "transfer 2 from va#0/scale on gpu0 to host carries 8000 bytes, but the "
                   "model sends 80000 (output_bytes 80000 x fraction 1)");
    s = clone(good2); /* add[0/2] (0.75) -> norm: 40000 x 0.75 x 1 = 30000 */
    s->transfers[1].bytes = 40000;
    expect_invalid(w, s,
                   "transfer 1 from va#0/add[0/2] on gpu0 to va#0/norm on cpu0 carries 40000 "
                   "bytes, but the model sends 30000 (the edge's 40000 bytes x fractions 0.75 "
                   "and 1)");
    s = clone(good1); /* scale -> norm is no edge */
    s->transfers[1].from_placement = 1;
    expect_invalid(w, s,
                   "transfer 1 from va#0/scale on gpu0 to va#0/norm on cpu0: the workload has "
                   "no edge from va#0/scale to va#0/norm");
    hs_schedule_free(good1);
    hs_schedule_free(good2);
    hs_workload_free(w);
}

/* A task with more successors than the validator reads one by one (16):
 * fan#0/src on gpu0, 0 .. 10 us, sends 1000 (i + 1) bytes to each of
 * k0 .. k19 on cpu0 (k_i 100 + 10 i .. 110 + 10 i, its data there by
 * 10 + 5 + 20000 / 8000 = 17.5 at the latest); lone has no edge.  Valid;
 * then k7's transfer carries 7000 bytes, then goes to lone. */
static void validate_many_successors(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s = hs_schedule_new(NULL, "hand"), *bad;
    hs_error err = {0};
    char name[8], want[512];
    long k7 = -1;
    (void)state;
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err), CPU0);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), GPU0);
    assert_int_equal(hs_platform_add_link(w, "host", "gpu0", 10.0, 10.0, &err), 0);
    assert_int_equal(hs_platform_add_link(w, "gpu0", "host", 8.0, 5.0, &err), 1);
    assert_int_equal(hs_workload_add_app(w, "fan", 1, &err), 0);
    for (int k = 0; k < 22; k++) { /* src, k0 .. k19, lone: tasks 0 .. 21 */
        snprintf(name, sizeof name, k == 0 ? "src" : k == 21 ? "lone" : "k%d", k - 1);
        assert_int_equal(hs_app_add_kernel(w, 0, name, &err), k);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "cpu", 10, &err), 0);
        assert_int_equal(hs_kernel_set_cost(w, 0, k, "gpu", 10, &err), 0);
        if (k >= 1 && k <= 20)
            assert_int_equal(hs_app_add_edge(w, 0, "src", name, 1000.0 * k, &err), k - 1);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    place(s, 0, 0, 1, 1.0, GPU0, 0, 10);
    for (int i = 0; i < 20; i++)
        place(s, (size_t)i + 1, 0, 1, 1.0, CPU0, 100 + 10 * i, 110 + 10 * i);
    place(s, 21, 0, 1, 1.0, CPU0, 300, 310);
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
    assert_true(s->makespan_us == 310.0);
    for (size_t j = 0; j < s->ntransfers; j++)
        if (s->transfers[j].from_placement == 0 && s->transfers[j].to_placement == 8)
            k7 = (long)j;
    assert_true(k7 >= 0);
    assert_true(s->transfers[k7].bytes == 8000.0);
    bad = clone(s);
    bad->transfers[k7].bytes = 7000;
    snprintf(want, sizeof want,
             "transfer %ld from fan#0/src on gpu0 to fan#0/k7 on cpu0 carries 7000 bytes, but "
             "the model sends 8000 (the edge's 8000 bytes x fractions 1 and 1)",
             k7);
    expect_invalid(w, bad, want);
    bad = clone(s);
    bad->transfers[k7].to_placement = 21;
    snprintf(want, sizeof want,
             "transfer %ld from fan#0/src on gpu0 to fan#0/lone on cpu0: the workload has no "
             "edge from fan#0/src to fan#0/lone",
             k7);
    expect_invalid(w, bad, want);
    assert_valid(w, s);
    hs_workload_free(w);
}

/* ---------------------------------------------------- seeded random cases */

/* xorshift64*: the same sequence on every machine. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static int rnd_int(int lo, int hi) /* inclusive */
{
    return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

static double rnd_unit(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* cpu0, cpu1 on host; gpu0, gpu1 on their own memories; links between every
 * pair of memories (latency >= 1 us); 1-2 applications of 1-12 kernels, 1-3
 * instances, random DAG edges (some without data), random inputs and
 * outputs, costs of 50-1000 us (a part, >= 4% of its task, lasts >= 2 us, so
 * moving it 1 us earlier always overlaps its device's previous task). */
static hs_workload *random_workload(int ntasks_hint)
{
    hs_workload *w = hs_workload_new();
    const char *mems[] = {"host", "gpu0", "gpu1"};
    hs_error err = {0};
    int napps = rnd_int(1, 2);
    assert_int_equal(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 2, &err), 0);
    assert_int_equal(hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 2, &err), 1);
    assert_int_equal(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err), 2);
    assert_int_equal(hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err), 3);
    for (int q = 0; q < 3; q++)
        for (int r = 0; r < 3; r++)
            if (q != r)
                assert_true(hs_platform_add_link(w, mems[q], mems[r], rnd_int(1, 16),
                                                 rnd_int(1, 20) + rnd_unit(), &err) >= 0);
    for (int a = 0; a < napps; a++) {
        char name[16];
        int nk = rnd_int(1, ntasks_hint), inst = rnd_int(1, 3);
        snprintf(name, sizeof name, "app%d", a);
        assert_int_equal(hs_workload_add_app(w, name, inst, &err), a);
        for (int k = 0; k < nk; k++) {
            const char *devs[] = {"cpu0", "cpu1", "gpu0", "gpu1"};
            snprintf(name, sizeof name, "k%d", k);
            assert_int_equal(hs_app_add_kernel(w, a, name, &err), k);
            for (int d = 0; d < 4; d++)
                assert_int_equal(hs_kernel_set_cost(w, a, k, devs[d], rnd_int(50, 1000), &err), 0);
            assert_int_equal(hs_kernel_set_bytes(w, a, k, rnd() % 2 ? rnd_int(1, 1 << 20) : 0,
                                                 rnd() % 2 ? rnd_int(1, 1 << 20) : 0, &err),
                             0);
        }
        for (int j = 1; j < nk; j++)
            for (int i = 0; i < j; i++)
                if (rnd() % 4 == 0) {
                    char from[16], to[16];
                    snprintf(from, sizeof from, "k%d", i);
                    snprintf(to, sizeof to, "k%d", j);
                    assert_true(hs_app_add_edge(w, a, from, to, rnd() % 3 ? rnd_int(1, 1 << 22) : 0,
                                                &err) >= 0);
                }
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    return w;
}

static int mem_of(const hs_workload *w, int d)
{
    return w->platform.devices[d].memory;
}

#define MAX_PARTS 12

/* List scheduling in topological order: each task whole on a random device,
 * or (with probability `split`) in 2 to maxparts parts (<= MAX_PARTS), the
 * first 4 on distinct random devices, more on any;
 * start = max(device free, every input's arrival); whole tasks run their
 * cost, parts their fraction of it.  The placements of a task are
 * contiguous: first[t] .. first[t] + count[t]. */
static hs_schedule *list_schedule_parts(const hs_workload *w, double split, int maxparts)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    hs_schedule *s = hs_schedule_new("random", "list");
    size_t *order = malloc(g->ntasks * sizeof *order), *first, *count;
    double free_at[4] = {0};
    hs_error err = {0};
    first = calloc(g->ntasks, sizeof *first);
    count = calloc(g->ntasks, sizeof *count);
    assert_non_null(order);
    assert_non_null(first);
    assert_non_null(count);
    assert_int_equal(hs_graph_topo_order(g, order, &err), HS_OK);
    for (size_t o = 0; o < g->ntasks; o++) {
        size_t t = order[o];
        int n = rnd_unit() < split ? rnd_int(2, maxparts) : 1, devs[MAX_PARTS],
            perm[4] = {0, 1, 2, 3};
        double f[MAX_PARTS], left = 1.0, sum = 0.0;
        for (int i = 3; i > 0; i--) { /* distinct devices: a shuffled prefix */
            int j = rnd_int(0, i), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        for (int k = 0; k < n; k++) { /* beyond 4 parts, devices run several */
            devs[k] = k < 4 ? perm[k] : rnd_int(0, 3);
            if (maxparts <= 3) {
                f[k] = k + 1 < n ? left * (0.2 + 0.6 * rnd_unit()) : left;
                left -= f[k];
            } else { /* weights in [1, 2]: every part >= 1 / (2n) */
                f[k] = 1 + rnd_unit();
                sum += f[k];
            }
        }
        for (int k = 0; k < n && maxparts > 3; k++)
            f[k] /= sum;
        first[t] = s->nplacements;
        count[t] = (size_t)n;
        for (int k = 0; k < n; k++) {
            int d = devs[k];
            double start = free_at[d], dur;
            const hs_edge *e;
            hs_placement p = {.task = t,
                              .part = n > 1 ? k : 0,
                              .nparts = n,
                              .fraction = n > 1 ? f[k] : 1.0,
                              .device = d};
            start = fmax(start, hs_transfer_us(pf, HS_HOST_MEMORY, mem_of(w, d),
                                               g->tasks[t].input_bytes * p.fraction));
            HS_GRAPH_PRED_FOREACH(g, t, e)
            {
                for (size_t i = first[e->from]; i < first[e->from] + count[e->from]; i++) {
                    const hs_placement *pu = &s->placements[i];
                    start = fmax(start, pu->end_us +
                                            hs_transfer_us(pf, mem_of(w, pu->device), mem_of(w, d),
                                                           e->bytes * pu->fraction * p.fraction));
                }
            }
            dur = g->tasks[t].cost_us[d] * p.fraction;
            p.start_us = start;
            p.end_us = start + dur;
            free_at[d] = p.end_us;
            assert_true(hs_schedule_add_placement(s, &p, &err) >= 0);
        }
    }
    free(order);
    free(first);
    free(count);
    assert_int_equal(hs_schedule_derive_transfers(w, s, &err), HS_OK);
    return s;
}

static hs_schedule *list_schedule(const hs_workload *w, double split)
{
    return list_schedule_parts(w, split, 3);
}

/* The transfers the model implies, counted the slow way (every pair of
 * placements per edge), against derive_transfers; the makespan likewise. */
static void check_derived(const hs_workload *w, const hs_schedule *s)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    size_t n = 0;
    double bytes = 0, got = 0, makespan = 0;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        int m = mem_of(w, p->device);
        double in = g->tasks[p->task].input_bytes * p->fraction;
        double out = g->tasks[p->task].output_bytes * p->fraction;
        if (m != HS_HOST_MEMORY && in > 0)
            n++, bytes += in;
        if (m != HS_HOST_MEMORY && out > 0)
            n++, bytes += out;
        makespan = fmax(makespan, p->end_us + hs_transfer_us(pf, m, HS_HOST_MEMORY, out));
        for (size_t e = 0; e < g->nedges; e++) {
            if (g->edges[e].from != p->task || g->edges[e].bytes <= 0)
                continue;
            for (size_t j = 0; j < s->nplacements; j++)
                if (s->placements[j].task == g->edges[e].to &&
                    mem_of(w, s->placements[j].device) != m)
                    n++, bytes += g->edges[e].bytes * p->fraction * s->placements[j].fraction;
        }
    }
    for (size_t k = 0; k < s->ntransfers; k++)
        got += s->transfers[k].bytes;
    assert_int_equal(s->ntransfers, n);
    assert_true(fabs(got - bytes) <= 1e-6 * bytes);
    assert_true(s->makespan_us == makespan);
}

static char *placement_id(const hs_workload *w, const hs_placement *p, char *buf, size_t size)
{
    hs_task t = w->graph.tasks[p->task];
    t.part = p->part;
    t.nparts = p->nparts;
    hs_task_id(w, &t, buf, size);
    return buf;
}

static int nrejected;

/* s with one change must be refused, naming `id` (when given), for one of
 * the reasons in `why` ("A|B": the message contains A or B); frees s. */
static void expect_rejected(const hs_workload *w, hs_schedule *s, const char *id, const char *why)
{
    hs_error err = {0};
    char alts[128], *alt, *save = NULL;
    int found = 0;
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    if (id && !strstr(err.msg, id))
        fail_msg("'%s' does not name %s", err.msg, id);
    snprintf(alts, sizeof alts, "%s", why);
    for (alt = strtok_r(alts, "|", &save); alt && !found; alt = strtok_r(NULL, "|", &save))
        found = strstr(err.msg, alt) != NULL;
    if (!found)
        fail_msg("'%s' does not say %s", err.msg, why);
    nrejected++;
    hs_schedule_free(s);
}

/* Every start of a list schedule is tight (at 0, at its device's previous
 * end or at an input's arrival), so each single change below must be refused
 * for the reason it breaks; frees nothing. */
static void perturb_each(const hs_workload *w, const hs_schedule *s)
{
    hs_error err = {0};
    char id[64];
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        hs_schedule *c;
        placement_id(w, p, id, sizeof id);
        /* 1 us earlier is refused */
        c = clone(s);
        c->placements[i].start_us -= 1;
        c->placements[i].end_us -= 1;
        expect_rejected(w, c, id, "overlap|before its input|before time 0");
        /* a whole task 1 us longer, a part 1 us shorter */
        c = clone(s);
        c->placements[i].end_us += p->nparts == 1 ? 1 : -1;
        expect_rejected(w, c, id, "but its cost|less than its fraction|before it starts");
        /* dropped (remaining transfers may dangle: coverage comes first) */
        c = clone(s);
        memmove(&c->placements[i], &c->placements[i + 1],
                (c->nplacements - i - 1) * sizeof *c->placements);
        c->nplacements--;
        expect_rejected(w, c, NULL, "is not placed|is missing");
        /* placed again */
        c = clone(s);
        assert_true(hs_schedule_add_placement(c, p, &err) >= 0);
        expect_rejected(w, c, id, "placed 2 times|placed twice");
        /* a whole task moved to a device where it costs something else */
        if (p->nparts == 1) {
            int d = (p->device + 1) % 4;
            if (w->graph.tasks[p->task].cost_us[d] !=
                w->graph.tasks[p->task].cost_us[p->device]) {
                c = clone(s);
                c->placements[i].device = d;
                expect_rejected(w, c, id, "but its cost on");
            }
        }
    }
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        hs_schedule *c = clone(s);
        /* twice as fast as the link allows (latency >= 1 us) */
        c->transfers[k].end_us = t->start_us + (t->end_us - t->start_us) / 2;
        expect_rejected(w, c, NULL, "less than the");
        if (t->from_placement != HS_NONE) {
            c = clone(s);
            c->transfers[k].start_us -= 1;
            expect_rejected(w, c, NULL, "before its producer ends");
        }
        /* a byte more than the model sends */
        c = clone(s);
        c->transfers[k].bytes += 1;
        expect_rejected(w, c, NULL, "but the model sends");
    }
    {
        hs_schedule *c = clone(s);
        c->makespan_us += 1e-3 * fmax(1, c->makespan_us);
        expect_rejected(w, c, NULL, "makespan_us is");
    }
}

/* s (transfers listed) and its implied twin write the same JSON, and
 * both validate. */
static void expect_same_json(const hs_workload *w, const hs_schedule *s)
{
    hs_schedule *twin = implied_twin(s);
    hs_error err = {0};
    char *a, *b;
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("listed.json"), &err), HS_OK);
    assert_int_equal(hs_schedule_write_json(w, twin, tmp_path("implied.json"), &err), HS_OK);
    a = read_text(tmp_path("listed.json"));
    b = read_text(tmp_path("implied.json"));
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_valid(w, twin);
}

static void random_schedules(void **state)
{
    int nvalid = 0;
    (void)state;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        hs_workload *w;
        hs_schedule *s, *back = NULL;
        hs_error err = {0};
        const char *path = tmp_path("random.json");
        rng_state = seed * 0x9E3779B97F4A7C15ull;
        w = random_workload(12);
        s = list_schedule(w, seed % 3 == 0 ? 0.3 : 0.0);
        check_derived(w, s);
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("seed %d: %s", (int)seed, err.msg);
        nvalid++;
        /* the JSON gives back every bit, ugly fractions included */
        assert_int_equal(hs_schedule_write_json(w, s, path, &err), HS_OK);
        assert_int_equal(hs_schedule_read_json(w, path, &back, &err), HS_OK);
        assert_same(s, back);
        assert_int_equal(hs_schedule_validate(w, back, &err), HS_OK);
        hs_schedule_free(back);
        expect_same_json(w, s);
        perturb_each(w, s);
        hs_schedule_free(s);
        hs_workload_free(w);
    }
    assert_int_equal(nvalid, 150);
    assert_true(nrejected > 10000);
}

/* Tasks split in up to 12 parts, several on one device: a predecessor of 8
 * parts or more is checked through its envelope first (validate.c); valid
 * schedules pass and every tight start moved 1 us earlier is still caught. */
static void random_many_parts(void **state)
{
    int enveloped = 0;
    (void)state;
    nrejected = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        hs_workload *w;
        hs_schedule *s;
        hs_error err = {0};
        rng_state = seed * 0x2545F4914F6CDD1Dull;
        w = random_workload(8);
        s = list_schedule_parts(w, 0.7, MAX_PARTS);
        check_derived(w, s);
        if (hs_schedule_validate(w, s, &err) != HS_OK)
            fail_msg("seed %d: %s", (int)seed, err.msg);
        for (size_t i = 0; i < s->nplacements; i++)
            enveloped += s->placements[i].nparts >= 8;
        perturb_each(w, s);
        hs_schedule_free(s);
        hs_workload_free(w);
    }
    assert_true(enveloped > 100);
    assert_true(nrejected > 5000);
}

/* A larger graph (200 instances of 500 kernels = 100000 tasks) goes through
 * derive, validate and the JSON in near-linear time; a quadratic step would
 * make this test time out. */
static void large_schedule(void **state)
{
    hs_workload *w = hs_workload_new();
    hs_schedule *s, *back = NULL;
    hs_error err = {0};
    char name[16], prev[16];
    (void)state;
    rng_state = 42;
    hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 2, &err);
    hs_platform_add_device(w, "cpu1", HS_DEVICE_CPU, "host", 2, &err);
    hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err);
    hs_platform_add_device(w, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err);
    hs_platform_add_link(w, "host", "gpu0", 12, 10, &err);
    hs_platform_add_link(w, "gpu0", "host", 12, 10, &err);
    hs_platform_add_link(w, "host", "gpu1", 12, 10, &err);
    hs_platform_add_link(w, "gpu1", "host", 12, 10, &err);
    hs_platform_add_link(w, "gpu0", "gpu1", 20, 5, &err);
    assert_true(hs_platform_add_link(w, "gpu1", "gpu0", 20, 5, &err) >= 0);
    assert_int_equal(hs_workload_add_app(w, "big", 200, &err), 0);
    for (int k = 0; k < 500; k++) {
        snprintf(name, sizeof name, "k%d", k);
        assert_int_equal(hs_app_add_kernel(w, 0, name, &err), k);
        hs_kernel_set_cost(w, 0, k, "cpu", rnd_int(10, 100), &err);
        hs_kernel_set_cost(w, 0, k, "gpu", rnd_int(1, 20), &err);
        hs_kernel_set_bytes(w, 0, k, k % 50 == 0 ? 4096 : 0, k % 50 == 49 ? 4096 : 0, &err);
        if (k > 0) { /* a chain, plus a random earlier kernel */
            hs_app_add_edge(w, 0, prev, name, 1024, &err);
            if (k > 1) {
                char from[16];
                snprintf(from, sizeof from, "k%d", rnd_int(0, k - 2));
                hs_app_add_edge(w, 0, from, name, 2048, &err);
            }
        }
        memcpy(prev, name, sizeof prev);
    }
    assert_int_equal(hs_workload_finalize(w, &err), HS_OK);
    assert_int_equal(w->graph.ntasks, 100000);
    s = list_schedule(w, 0.0);
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_OK);
    assert_int_equal(hs_schedule_write_json(w, s, tmp_path("large.json"), &err), HS_OK);
    assert_int_equal(hs_schedule_read_json(w, tmp_path("large.json"), &back, &err), HS_OK);
    assert_int_equal(back->nplacements, 100000);
    assert_true(back->makespan_us == s->makespan_us);
    assert_int_equal(hs_schedule_validate(w, back, &err), HS_OK);
    /* thousands of transfers: the JSON writes the implied ones in batches */
    assert_true(s->ntransfers > 10000);
    expect_same_json(w, s);
    hs_schedule_free(back);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* A measured schedule ("model": "measured") by hand on tiny: add on gpu0
 * 0..10, its data to cpu0 (copy 10..12) for scale 12..20 and to gpu0's own
 * norm 10..30 (no copy): valid with makespan 30, durations being the
 * devices' own; then each broken rule with its exact message. */
static void measured_schedules(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = hs_schedule_new(NULL, "hand");
    hs_transfer t = {.from_placement = 0, .to_placement = 1, .from_device = GPU0,
                     .to_device = CPU0, .bytes = 160000, .start_us = 10, .end_us = 12};
    hs_error err = {0};
    (void)state;
    free(s->model);
    s->model = strdup("measured");
    place(s, ADD, 0, 1, 1.0, GPU0, 0, 10);
    place(s, SCALE, 0, 1, 1.0, CPU0, 12, 20);
    place(s, NORM, 0, 1, 1.0, GPU0, 10, 30);
    assert_true(hs_schedule_add_transfer(s, &t, &err) == 0);
    s->makespan_us = 30;
    if (hs_schedule_validate(w, s, &err) != HS_OK)
        fail_msg("%s", err.msg);
    s->transfers[0].end_us = 12.5;
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    assert_string_equal(err.msg, "transfer 0 from va#0/add on gpu0 to va#0/scale on cpu0 ends "
                                 "at 12.5 us, after its consumer started at 12 us");
    s->transfers[0].end_us = 12;
    s->transfers[0].start_us = 9;
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    assert_string_equal(err.msg, "transfer 0 from va#0/add on gpu0 to va#0/scale on cpu0 "
                                 "leaves at 9 us, before its producer ends at 10 us");
    s->transfers[0].start_us = 10;
    s->placements[1].start_us = 9;
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    assert_non_null(strstr(err.msg, "va#0/scale on cpu0 starts at 9 us, before its predecessor "
                                    "va#0/add on gpu0 ends at 10 us"));
    s->placements[1].start_us = 12;
    s->makespan_us = 31;
    assert_int_equal(hs_schedule_validate(w, s, &err), HS_EINVALID);
    assert_string_equal(err.msg, "makespan_us is 31 us, but its last task or copy ends at 30 us");
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* Device statistics, by hand: cpu0 runs add [0, 10] and norm [20, 30] and
 * held work [5, 25] (idle while holding it: (10, 20) = 10) and [40, 45]
 * (5 more); gpu0 runs scale [0, 4] and held nothing; an activity of no
 * device (a check) counts for none. */
static void device_stats_by_hand(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = hs_schedule_new(NULL, "hand");
    hs_device_stats st[2];
    hs_error err = {0};
    const hs_activity held[] = {
        {.device = CPU0, .what = "held", .placement = 1, .start_us = 5, .end_us = 25},
        {.device = CPU0, .what = "held", .placement = HS_NONE, .start_us = 40, .end_us = 45},
        {.device = CPU0, .what = "alloc", .placement = HS_NONE, .start_us = 10, .end_us = 20},
        {.device = HS_HOST_DEVICE, .what = "held", .placement = HS_NONE, .start_us = 0,
         .end_us = 100},
    };
    (void)state;
    place(s, ADD, 0, 1, 1.0, CPU0, 0, 10);
    place(s, NORM, 0, 1, 1.0, CPU0, 20, 30);
    place(s, SCALE, 0, 1, 1.0, GPU0, 0, 4);
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        assert_true(hs_schedule_add_activity(s, &held[i], &err) == (long)i);
    assert_int_equal(hs_schedule_device_stats(w, s, st, &err), 0);
    assert_true(st[CPU0].busy_us == 20 && st[CPU0].tasks == 2 && st[CPU0].held_idle_us == 15);
    assert_true(st[GPU0].busy_us == 4 && st[GPU0].tasks == 1 && st[GPU0].held_idle_us == 0);
    /* nothing copied: norm's input is there once add ends (10) */
    assert_true(st[CPU0].ready_idle_us == 15 && st[GPU0].ready_idle_us == 0);
    hs_schedule_free(s);
    hs_workload_free(w);
}

/* The idle time with the held task's inputs there, by hand: add runs on
 * cpu0 [0, 10]; gpu0 holds scale from 10 and norm from 20 and runs them
 * [30, 34] and [40, 42].  add's result reaches gpu0 at 25 (copied for
 * scale; norm reads that copy), scale's input from host at 27.  Held idle:
 * [10, 40] less scale's run, 26.  Inputs there: scale from 27, norm from 25:
 * [25, 40] less scale's run, 11.  Once gpu0 holds norm from 36 only:
 * held [10, 30] and [36, 40], 24; inputs there [27, 30] and [36, 40], 7.
 * Behind a head waiting for inputs: scale heads the queue until 30 and
 * waits for its inputs until 27, so norm, ready from 25, waits behind it
 * [25, 27]: 2 (0 once norm is held from 36).  Launching: gpu0's worker
 * launches in [28, 29.5] and [33, 37], cpu0's in [25, 40] (not gpu0's):
 * of the inputs-there time outside [25, 27], 1.5 + 3 (1.5 + 1 later). */
static void ready_idle_by_hand(void **state)
{
    hs_workload *w = tiny();
    hs_schedule *s = hs_schedule_new(NULL, "hand");
    hs_device_stats st[2];
    hs_error err = {0};
    const hs_activity held[] = {
        {.device = GPU0, .what = "held", .placement = 1, .start_us = 10, .end_us = 30},
        {.device = GPU0, .what = "held", .placement = 2, .start_us = 20, .end_us = 40},
        {.device = GPU0, .what = "launch", .placement = 2, .start_us = 28, .end_us = 29.5},
        {.device = GPU0, .what = "launch", .placement = HS_NONE, .start_us = 33, .end_us = 37},
        {.device = CPU0, .what = "launch", .placement = HS_NONE, .start_us = 25, .end_us = 40},
    };
    const hs_transfer copies[] = {
        {.from_placement = 0, .to_placement = 1, .from_device = CPU0, .to_device = GPU0,
         .bytes = 160000, .start_us = 12, .end_us = 25},
        {.from_placement = HS_NONE, .to_placement = 1, .from_device = HS_HOST_DEVICE,
         .to_device = GPU0, .bytes = 80000, .start_us = 8, .end_us = 27},
    };
    (void)state;
    place(s, ADD, 0, 1, 1.0, CPU0, 0, 10);
    place(s, SCALE, 0, 1, 1.0, GPU0, 30, 34);
    place(s, NORM, 0, 1, 1.0, GPU0, 40, 42);
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        assert_true(hs_schedule_add_activity(s, &held[i], &err) == (long)i);
    for (size_t i = 0; i < 2; i++)
        assert_true(hs_schedule_add_transfer(s, &copies[i], &err) == (long)i);
    assert_int_equal(hs_schedule_device_stats(w, s, st, &err), 0);
    assert_true(st[GPU0].held_idle_us == 26 && st[GPU0].ready_idle_us == 11);
    assert_true(st[GPU0].behind_idle_us == 2 && st[GPU0].launch_idle_us == 4.5);
    assert_true(st[CPU0].held_idle_us == 0 && st[CPU0].ready_idle_us == 0);
    assert_true(st[CPU0].behind_idle_us == 0 && st[CPU0].launch_idle_us == 0);
    s->activities[1].start_us = 36;
    assert_int_equal(hs_schedule_device_stats(w, s, st, &err), 0);
    assert_true(st[GPU0].held_idle_us == 24 && st[GPU0].ready_idle_us == 7);
    assert_true(st[GPU0].behind_idle_us == 0 && st[GPU0].launch_idle_us == 2.5);
    hs_schedule_free(s);
    hs_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(makespan_and_transfers),
        cmocka_unit_test(implied_transfers),
        cmocka_unit_test(device_stats_by_hand),
        cmocka_unit_test(ready_idle_by_hand),
        cmocka_unit_test(measured_schedules),
        cmocka_unit_test(json_exact_text),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(json_read_errors),
        cmocka_unit_test(json_stdin_and_write_refusals),
        cmocka_unit_test(json_streaming),
        cmocka_unit_test(json_batched_ids),
        cmocka_unit_test(json_junk),
        cmocka_unit_test(validate_catches),
        cmocka_unit_test(validate_tolerance),
        cmocka_unit_test(validate_names_and_bytes),
        cmocka_unit_test(validate_many_successors),
        cmocka_unit_test(random_schedules),
        cmocka_unit_test(random_many_parts),
        cmocka_unit_test(large_schedule),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
