/* Tests of real splits (hetsched/split.h) on CPU devices, so they run
 * anywhere: two "CPU devices" are two thread groups of this host; where a
 * CUDA GPU is found, the conformance tests run again on the CPU and gpu0
 * (the GPU half on the device layer: pieces, copies ahead, drains).
 *   - device lists and their refusals; kernels that cannot be split;
 *   - the byte spans a chunk touches (hs_ktype.whole_bufs);
 *   - every registered splitter on va, pi and gemm over two CPU devices:
 *     the result passes hs_kcheck, every item was accepted exactly once, and
 *     for the exact types (va, pi) the bytes equal a whole single-threaded
 *     run;
 *   - every splittable kernel case of kernels_fixture.h under hdss,
 *     in-place buffers restored between runs;
 *   - a chunk run by two devices at once (as when a splitter takes it back
 *     from a device that still runs it): the result equals a whole run;
 *   - a device that stops answering (a test hook stalls it) loses its chunk
 *     to the other, which was told to wait no longer than the bound of
 *     mapper/split_core.h, under every splitter that survives it;
 *   - alone runs, static splits, the figures and the chunk records;
 *   - the command line without --sim. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <cmocka.h>

#include "exec/split_real.h"
#include "hs_config.h"
#include "mapper/split_core.h"
#include "tests/cli_fixture.h"
#include "tests/kernels_fixture.h"

/* 1 while the conformance tests run on a CPU device and gpu0. */
static int with_gpu;

/* Two CPU devices of one thread each, or one and gpu0 (with_gpu). */
static int two_cpus(hs_split_real_device *dev)
{
    hs_error err = {0};
    int n = 0;
    assert_int_equal(hs_split_real_devices(with_gpu ? "cpu:1,gpu0" : "cpu:1,cpu:1", 4, dev, &n,
                                           &err),
                     HS_OK);
    return n;
}

static void conf(hs_kconf *c, const char *type, const char *spec)
{
    hs_error err = {0};
    assert_int_equal(conf_from(c, type, spec, &err), HS_OK);
}

/* ------------------------------------------------------------ device lists */

static void device_lists(void **state)
{
    hs_split_real_device dev[HS_SPLIT_MAX_DEVICES];
    hs_error err = {0};
    int n = -1, ngpu = hs_split_real_gpu_count();
    (void)state;
    assert_int_equal(hs_split_real_devices("cpu:3,cpu", 5, dev, &n, &err), HS_OK);
    assert_int_equal(n, 2);
    assert_string_equal(dev[0].name, "cpu0");
    assert_int_equal(dev[0].threads, 3);
    assert_string_equal(dev[1].name, "cpu1");
    assert_int_equal(dev[1].threads, 5); /* the default count */
    assert_int_equal(dev[1].kind, HS_DEVICE_CPU);
    /* the default list is the CPU and every GPU */
    assert_int_equal(hs_split_real_devices(NULL, 2, dev, &n, &err), HS_OK);
    assert_int_equal(n, 1 + ngpu);
    assert_int_equal(hs_split_real_devices("cpu:0", 2, dev, &n, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_devices("cpu:x", 2, dev, &n, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_devices("tpu", 2, dev, &n, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_devices("gpux", 2, dev, &n, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_devices(",", 2, dev, &n, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_devices("cpu", 0, dev, &n, &err), HS_EINPUT);
    /* a GPU that is not there (no CUDA, or fewer GPUs) */
    {
        char name[32];
        snprintf(name, sizeof name, "gpu%d", ngpu);
        assert_int_equal(hs_split_real_devices(name, 2, dev, &n, &err), HS_EINPUT);
        assert_non_null(strstr(err.msg, name));
    }
    if (ngpu > 0)
        assert_int_equal(hs_split_real_devices("gpu0,gpu0", 2, dev, &n, &err), HS_EINPUT);
}

static void refusals(void **state)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    hs_error err = {0};
    hs_kconf c;
    int n = two_cpus(dev);
    (void)state;
    conf(&c, "dot", "n=100");
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_EINPUT);
    assert_null(r);
    assert_non_null(strstr(err.msg, "not splittable"));
    conf(&c, "potrf", "n=8");
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_EINPUT);
    conf(&c, "va", "n=10");
    assert_int_equal(hs__split_real_open_conf(&c, dev, 0, &r, &err), HS_EINPUT);
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    assert_int_equal(hs_split_real_run(r, NULL, NULL, NULL, 1, 0, &(hs_split_result){0}, &err),
                     HS_EUSAGE);
    {
        int pct[2] = {60, 50};
        double us;
        assert_int_equal(hs_split_real_static(r, pct, &us, &err), HS_EINPUT);
    }
    hs_split_real_close(r);
}

/* ------------------------------------------------------------------- spans */

/* GPU pieces: whole widths, the first one width, at most
 * HS_SPLIT_REAL_PIECES, at least a MiB moved each. */
static void gpu_pieces(void **state)
{
    hs_kconf c;
    size_t at[HS_SPLIT_REAL_PIECES + 1];
    (void)state;
    /* gemm n = k = 8192: a row moves 32 KiB of a in and 32 KiB of c out */
    conf(&c, "gemm", "n=8192,k=8192,m=8192");
    assert_int_equal(hs__split_gpu_pieces(&c, 8192, 256, at), 16);
    assert_int_equal(at[1], 256);
    for (int p = 1; p < 16; p++) {
        assert_int_equal(at[p] % 256, 0);
        assert_true(at[p + 1] - at[p] >= 256);
    }
    assert_int_equal(at[16], 8192);
    assert_int_equal(hs__split_gpu_pieces(&c, 1024, 256, at), 4); /* 256 each */
    assert_int_equal(at[1], 256);
    assert_int_equal(at[2], 512);
    assert_int_equal(at[3], 768);
    assert_int_equal(at[4], 1024);
    assert_int_equal(hs__split_gpu_pieces(&c, 1000, 256, at), 3); /* 256, 368, 376 */
    assert_int_equal(at[1], 256);
    assert_int_equal(at[2], 512);
    assert_int_equal(at[3], 1000);
    assert_int_equal(hs__split_gpu_pieces(&c, 300, 256, at), 1);
    assert_int_equal(at[1], 300);
    assert_int_equal(hs__split_gpu_pieces(&c, 7, 0, at), 1); /* width 0 counts as 1 */
    /* va: 12 bytes an item, so a MiB is 87382 items: 4 pieces, not 16 */
    conf(&c, "va", "n=350000");
    assert_int_equal(hs__split_gpu_pieces(&c, 350000, 1000, at), 4);
    assert_int_equal(at[1], 1000);
    assert_int_equal(at[4], 350000);
}

static void spans(void **state)
{
    hs_kconf c;
    size_t off, len;
    (void)state;
    /* gemm m = 6, n = 5, k = 4: a is 6 x 4 floats (16 bytes a row), b 4 x 5
     * (read whole), c 6 x 5 (20 bytes a row) */
    conf(&c, "gemm", "n=5,m=6,k=4");
    hs_kspan(&c, 0, 1, 3, &off, &len);
    assert_int_equal(off, 16); /* row 1 starts 16 bytes in */
    assert_int_equal(len, 32); /* rows 1, 2 */
    hs_kspan(&c, 1, 1, 3, &off, &len);
    assert_int_equal(off, 0);
    assert_int_equal(len, 80); /* all of b: 4 x 5 x 4 bytes */
    hs_kspan(&c, 2, 5, 6, &off, &len);
    assert_int_equal(off, 100); /* row 5 of 20-byte rows */
    assert_int_equal(len, 20);
    /* pi: one uint32 count per block of 256 samples; 1000 samples are 4
     * blocks (the last ragged) */
    conf(&c, "pi", "hits=1000");
    assert_int_equal(c.items, 4);
    hs_kspan(&c, 0, 3, 4, &off, &len);
    assert_int_equal(off, 12);
    assert_int_equal(len, 4);
    /* axpy with ratio: num and den (4 bytes each) are read whole */
    conf(&c, "axpy", "n=10,ratio=1");
    hs_kspan(&c, 3, 2, 4, &off, &len);
    assert_int_equal(off, 0);
    assert_int_equal(len, 4);
    hs_kspan(&c, 1, 2, 4, &off, &len);
    assert_int_equal(off, 8);
    assert_int_equal(len, 8);
}

/* ------------------------------------------------------------- conformance */

/* A whole run of c on one thread: what an exact type's split must equal. */
static void whole_run(const hs_kconf *c, hbufs *h)
{
    hs_error err = {0};
    hbufs_alloc(c, h);
    hs_kfill(c, h->b);
    assert_int_equal(hs_krun_cpu(c, h->b, 0, c->items, 1, &err), HS_OK);
}

/* Whether the buffers r holds now equal ref: byte for byte, or for BLAS
 * types within rounding (kernels_fixture.h). */
static int same_as(const hs_split_real *r, const hs_kconf *c, const hbufs *ref)
{
    const void *got[HS_KMAX_BUFS];
    hbufs view, copy;
    int same;
    hs_split_real_buffers(r, got);
    for (int i = 0; i < c->nbufs; i++)
        view.b[i] = (void *)got[i];
    hbufs_alloc(c, &copy); /* a copy: the next run reuses r's buffers */
    hbufs_copy(c, &copy, &view);
    same = c->type->blas ? hbufs_close(c, &copy, ref) : hbufs_same(c, &copy, ref);
    hbufs_free(c, &copy);
    return same;
}

/* Every registered splitter on two CPU devices, twice each; exact types
 * compared byte for byte with a whole run. */
static void every_splitter_on(const char *type, const char *spec, int exact)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    hs_error err = {0};
    hs_kconf c;
    hbufs ref;
    int n = two_cpus(dev);
    double us;
    conf(&c, type, spec);
    whole_run(&c, &ref);
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    for (int d = 0; d < n; d++) {
        assert_int_equal(hs_split_real_alone(r, d, 1, &us, &err), HS_OK);
        assert_true(us > 0);
    }
    for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
        hs_split_memory mem = {0};
        hs_split_result res;
        size_t items = 0, chunks = 0;
        if (strcmp((*l)->name, "ss") == 0 && c.items > 65536)
            continue; /* one item a chunk: millions of chunks */
        /* twice: a splitter that learns (qilin, kass, coretsar) uses the
         * first run in the second */
        for (int run = 0; run < 2; run++) {
            int rc = hs_split_real_run(r, *l, NULL, &mem, run, 0, &res, &err);
            if (rc != HS_OK)
                fail_msg("%s on %s: %s", (*l)->name, type, err.msg);
            items = chunks = 0;
            for (int d = 0; d < n; d++) {
                items += res.dev[d].items;
                chunks += res.dev[d].chunks;
                assert_false(res.dev[d].dead);
            }
            assert_int_equal(items, c.items);
            assert_true(chunks >= 1);
            assert_true(res.makespan_us > 0);
            assert_true(res.efficiency > 0);
            if (exact && !same_as(r, &c, &ref))
                fail_msg("%s on %s: bytes differ from a whole run", (*l)->name, type);
            hs_split_result_free(&res);
        }
    }
    hs_split_real_close(r);
    hbufs_free(&c, &ref);
}

static void every_splitter_va(void **state)
{
    (void)state;
    every_splitter_on("va", "n=20000", 1);
}

static void every_splitter_pi(void **state)
{
    (void)state;
    every_splitter_on("pi", "hits=200000", 1); /* 782 blocks, the last ragged */
}

static void every_splitter_gemm(void **state)
{
    (void)state;
    every_splitter_on("gemm", "n=24,m=301,k=16", 0);
}

/* Every splittable case of the kernel fixture under hdss, twice each (so
 * in-place buffers must have been restored for the second check). */
static void every_kernel_case(void **state)
{
    hs_split_real_device dev[2];
    int n = two_cpus(dev);
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        hs_split_real *r = NULL;
        hs_error err = {0};
        hs_kconf c;
        conf(&c, kernel_cases[i][0], kernel_cases[i][1]);
        if (!c.splittable)
            continue;
        assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
        for (int run = 0; run < 2; run++) {
            hs_split_result res;
            if (hs_split_real_run(r, hs_splitter_find("hdss"), NULL, NULL, 0, 0, &res, &err) !=
                HS_OK)
                fail_msg("%s %s: %s", kernel_cases[i][0], kernel_cases[i][1], err.msg);
            assert_int_equal(res.dev[0].items + res.dev[1].items, c.items);
            assert_true(res.efficiency == 0); /* no alone runs measured */
            hs_split_result_free(&res);
        }
        hs_split_real_close(r);
    }
}

/* A splitter that hands the whole kernel to every device at once and
 * accepts the first report only: the worst case of a chunk taken back from
 * a device judged dead that still runs it.  The result must still equal a
 * whole run (within rounding for BLAS types): the first device handed the
 * items computes in place, the other one aside (split_real.h), and an
 * in-place buffer is never updated twice. */
typedef struct twice_state {
    int given[HS_SPLIT_MAX_DEVICES];
    int accepted;
    size_t items;
} twice_state;

static int twice_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    twice_state *t = calloc(1, sizeof *t);
    (void)dev, (void)ndev, (void)opt, (void)mem, (void)err;
    t->items = k->items;
    *state = t;
    return HS_OK;
}

static hs_split_answer twice_next(void *state, int d, double now, hs_split_grant *g)
{
    twice_state *t = state;
    (void)now;
    if (t->given[d])
        return HS_SPLIT_STOP;
    t->given[d] = 1;
    g->begin = 0;
    g->end = t->items;
    return HS_SPLIT_CHUNK;
}

static int twice_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    twice_state *t = state;
    (void)d, (void)b, (void)e, (void)us, (void)now;
    return t->accepted++ == 0;
}

static void twice_fini(void *state)
{
    free(state);
}

static const hs_splitter twice_splitter = {
    .name = "twice",
    .start = twice_start,
    .next = twice_next,
    .finished = twice_finished,
    .fini = twice_fini,
};

static void chunk_run_twice(void **state)
{
    static const char *const cases[][2] = {
        {"increment", "n=300000"},          /* in place: applied twice would be +2 */
        {"gemm", "n=96,m=600,k=96"},        /* OpenBLAS builds C up in place */
        {"gemm", "n=32,m=200,k=32,beta=1"}, /* in place and BLAS */
        {"trsm", "n=24,m=500"},
        {"axpy", "n=300000,alpha=0.5"},
    };
    hs_split_real_device dev[2];
    int n = two_cpus(dev);
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hs_split_real *r = NULL;
        hs_split_result res;
        hs_error err = {0};
        hs_kconf c;
        hbufs ref;
        conf(&c, cases[i][0], cases[i][1]);
        whole_run(&c, &ref);
        assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
        for (int run = 0; run < 3; run++) {
            if (hs_split_real_run(r, &twice_splitter, NULL, NULL, 0, 0, &res, &err) != HS_OK)
                fail_msg("%s %s: %s", cases[i][0], cases[i][1], err.msg);
            assert_int_equal(res.dev[0].refused + res.dev[1].refused, 1);
            if (!same_as(r, &c, &ref))
                fail_msg("%s %s: differs from a whole run", cases[i][0], cases[i][1]);
            hs_split_result_free(&res);
        }
        hs_split_real_close(r);
        hbufs_free(&c, &ref);
    }
}

/* A device that stops answering: device 1's first chunk stalls (the test
 * hook blocks its thread) until device 0 starts a chunk holding some of
 * its items, which must then run aside; device 1 then ends its chunk late.
 * Every splitter that survives a dead device: the run ends, its result
 * equals a whole run, device 1's chunk is refused, and every WAIT device 0
 * was told while device 1 stalled ended by the bound of
 * mapper/split_core.h, issued + max(FLOOR, 3 U / rate hint) for device
 * 1's U items (the splitters see the alone runs' rates; device 1's is set
 * 16 times device 0's, so that the bound is what ends the wait).  No verdict
 * depends on how long anything took: only on what the splitter was told
 * and answered.  A splitter wrapped around the one under test records
 * that. */
typedef struct stall {
    const hs_splitter *inner;
    double rate1;                /* device 1's rate hint, items/µs */
    pthread_mutex_t mu;          /* the hook's, and b1 and e1's (the wrapper: the driver's too) */
    pthread_cond_t cv;
    int stalled, released, aside_seen;
    int overtaken;               /* device 0 ran its items before it stalled */
    size_t b1, e1;               /* the stalled chunk */
    double issued1;              /* ... handed out then (µs) */
    int holding, refused1;       /* device 1 holds it; finished() refused it */
    double worst_wake;           /* latest WAIT device 0 got meanwhile, less issued1 */
} stall;

static stall the_stall;

static int stall_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    the_stall.rate1 = dev[1].rate_hint;
    return the_stall.inner->start(k, dev, ndev, opt, mem, state, err);
}

static hs_split_answer stall_next(void *state, int d, double now, hs_split_grant *g)
{
    stall *s = &the_stall;
    hs_split_answer a = s->inner->next(state, d, now, g);
    if (d == 1 && a == HS_SPLIT_CHUNK && s->e1 == 0) {
        pthread_mutex_lock(&s->mu); /* the hook reads the span, without the driver's lock */
        s->b1 = g->begin;
        s->e1 = g->end;
        pthread_mutex_unlock(&s->mu);
        s->issued1 = now;
        s->holding = 1;
    }
    if (d == 0 && a == HS_SPLIT_WAIT && s->holding && g->wake_us - s->issued1 > s->worst_wake)
        s->worst_wake = g->wake_us - s->issued1;
    return a;
}

static int stall_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    stall *s = &the_stall;
    int ok = s->inner->finished(state, d, b, e, us, now);
    if (d == 1 && s->holding) {
        s->holding = 0;
        s->refused1 = !ok;
    }
    return ok;
}

static void stall_learn(void *state, hs_split_memory *mem)
{
    if (the_stall.inner->learn)
        the_stall.inner->learn(state, mem);
}

static void stall_fini(void *state)
{
    the_stall.inner->fini(state);
}

static const hs_splitter stall_splitter = {.name = "stall",
                                           .start = stall_start,
                                           .next = stall_next,
                                           .finished = stall_finished,
                                           .learn = stall_learn,
                                           .fini = stall_fini};

/* Device 1 stalls at its first chunk until device 0 runs some of its
 * items.  On a loaded machine device 0 may have run them (the splitter
 * judging device 1 dead) before device 1's thread reached its chunk at
 * all: then device 1 does not stall (nobody would release it), and the
 * test runs again. */
static void stall_hook(void *ctx, int d, size_t b, size_t e, int aside)
{
    stall *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (d == 1 && !s->stalled && !s->overtaken) {
        s->stalled = 1;
        while (!s->released)
            pthread_cond_wait(&s->cv, &s->mu);
    } else if (d == 0 && !s->released && b < s->e1 && e > s->b1) {
        if (s->stalled) {
            s->aside_seen = aside;
            s->released = 1;
            pthread_cond_broadcast(&s->cv);
        } else {
            s->overtaken = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
}

static void stalled_device(void **state)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    hs_error err = {0};
    hs_kconf c;
    hbufs ref;
    int n = two_cpus(dev);
    double us;
    (void)state;
    conf(&c, "pi", "hits=512000"); /* 2000 items */
    whole_run(&c, &ref);
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    assert_int_equal(hs_split_real_alone(r, 0, 1, &us, &err), HS_OK);
    /* device 1 said to be 16 times faster: 3 times its expected time is
     * then far less than twice device 0's, the wait without the bound */
    assert_int_equal(hs_split_real_alone_set(r, 1, us / 16, &err), HS_OK);
    hs__split_real_set_hook(r, stall_hook, &the_stall);
    for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
        stall *s = &the_stall;
        hs_split_result res;
        double bound;
        if (!((*l)->flags & HS_SPLIT_SURVIVES_FAILURE))
            continue;
        /* device 1 gets a chunk unless device 0 took every item before it
         * asked at all: then run again */
        for (int tries = 0; tries < 20; tries++) {
            memset(s, 0, sizeof *s);
            s->inner = *l;
            pthread_mutex_init(&s->mu, NULL);
            pthread_cond_init(&s->cv, NULL);
            if (hs_split_real_run(r, &stall_splitter, NULL, NULL, 1, 0, &res, &err) != HS_OK)
                fail_msg("%s: %s", (*l)->name, err.msg);
            pthread_cond_destroy(&s->cv);
            pthread_mutex_destroy(&s->mu);
            if (s->stalled)
                break;
            hs_split_result_free(&res);
        }
        if (!s->stalled)
            fail_msg("%s: device 1 never got a chunk in 20 runs", (*l)->name);
        if (!s->released || !s->aside_seen || !s->refused1)
            fail_msg("%s: device 1's chunk [%zu, %zu) was %s", (*l)->name, s->b1, s->e1,
                     !s->released ? "never run by device 0"
                     : !s->aside_seen ? "run by device 0 in place" : "accepted");
        assert_false(res.dev[1].dead); /* it answered in the end */
        assert_true(res.dev[1].refused >= 1);
        if (!same_as(r, &c, &ref))
            fail_msg("%s: differs from a whole run", (*l)->name);
        bound = HS__SPLIT_DEAD_FACTOR * (double)(s->e1 - s->b1) / s->rate1;
        bound = bound > HS__SPLIT_DEAD_FLOOR_US ? bound : HS__SPLIT_DEAD_FLOOR_US;
        if (s->worst_wake > bound * (1 + 1e-12))
            fail_msg("%s: device 0 was told to wait %g us after device 1's chunk of %zu items "
                     "was handed out, beyond the bound %g us",
                     (*l)->name, s->worst_wake, s->e1 - s->b1, bound);
        hs_split_result_free(&res);
    }
    hs_split_real_close(r);
    hbufs_free(&c, &ref);
}

/* Static splits and their shares; records of a run cover the items. */
static void static_and_records(void **state)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    hs_error err = {0};
    hs_split_result res;
    hs_kconf c;
    int n = two_cpus(dev), pct[3][2] = {{0, 100}, {100, 0}, {37, 63}};
    size_t covered = 0, accepted = 0;
    double us;
    (void)state;
    conf(&c, "va", "n=5000");
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(hs_split_real_static(r, pct[i], &us, &err), HS_OK);
        assert_true(us > 0);
    }
    assert_int_equal(hs_split_real_warm(r, &err), HS_OK);
    assert_int_equal(hs_split_real_alone_set(r, 0, 0, &err), HS_EINPUT);
    assert_int_equal(hs_split_real_alone_set(r, 0, 100, &err), HS_OK);
    assert_int_equal(hs_split_real_alone_set(r, 1, 200, &err), HS_OK);
    /* fixed chunks of 700: 5000 items are 8 chunks (7 of 700, one of 100) */
    {
        hs_split_options o = {.chunk = 700};
        assert_int_equal(hs_split_real_run(r, hs_splitter_find("fixed"), &o, NULL, 1, 100,
                                           &res, &err),
                         HS_OK);
    }
    /* 8 accepted chunks; on a loaded machine a preempted device may be
     * judged dead and its chunk taken back, which adds a refused record */
    assert_int_equal(res.dev[0].chunks + res.dev[1].chunks, 8);
    for (size_t i = 0; i < res.nrecords; i++) {
        assert_true(res.records[i].end_us >= res.records[i].start_us);
        if (res.records[i].fate != HS_CHUNK_ACCEPTED)
            continue;
        covered += res.records[i].end - res.records[i].begin;
        accepted++;
    }
    assert_int_equal(accepted, 8);
    assert_int_equal(covered, 5000);
    /* efficiency against the alone times set above: 5000 items over 100 µs
     * and 200 µs give 50 + 25 = 75 items/µs together */
    assert_float_equal(res.efficiency, 5000 / res.makespan_us / 75, 1e-9);
    hs_split_result_free(&res);
    hs_split_real_close(r);
}

/* The best static split of two CPU devices: every split in 1% steps is a
 * candidate, at least the one of least bound runs, the winner's shares
 * sum to 100 and its time is a real one; stopped before it starts, none
 * runs.  (Which split wins depends on the machine's load.) */
static void best_static_split(void **state)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    hs_split_real_best b;
    volatile sig_atomic_t stop = 0;
    hs_error err = {0};
    hs_kconf c;
    int n = two_cpus(dev);
    double alone[2];
    (void)state;
    conf(&c, "va", "n=5000");
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    for (int d = 0; d < 2; d++)
        assert_int_equal(hs_split_real_alone(r, d, 1, &alone[d], &err), HS_OK);
    assert_int_equal(hs_split_real_best_static(r, alone, 1, &stop, &b, &err), HS_OK);
    assert_int_equal(b.step, 1);
    assert_int_equal(b.total, 101);
    assert_true(b.tried >= 1 && b.tried <= b.total);
    assert_int_equal(b.pct[0] + b.pct[1], 100);
    assert_true(b.us > 0 && isfinite(b.us));
    stop = 1;
    assert_int_equal(hs_split_real_best_static(r, alone, 1, &stop, &b, &err), HS_OK);
    assert_int_equal(b.tried, 0);
    assert_true(isinf(b.us));
    hs_split_real_close(r);
}

/* Delays the k-th chunk by delays_us[k] (the k-th alone run: one chunk). */
typedef struct delays {
    int k;
    unsigned delays_us[3];
} delays;

static void delay_hook(void *ctx, int device, size_t b, size_t e, int aside)
{
    delays *s = ctx;
    struct timespec ts;
    (void)device, (void)b, (void)e, (void)aside;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)s->delays_us[s->k++ % 3] * 1000;
    nanosleep(&ts, NULL);
}

/* hs_split_real_alone with repeat 3 keeps the median run: the runs are
 * delayed 0, 30 and 10 ms, so the median takes 10 ms at least (the first
 * run, or the least, would take less), and a splitter's efficiency is then
 * against it. */
static void alone_median(void **state)
{
    hs_split_real_device dev[2];
    hs_split_real *r = NULL;
    delays s = {0, {0, 30000, 10000}};
    hs_error err = {0};
    hs_kconf c;
    int n = two_cpus(dev);
    double us;
    (void)state;
    conf(&c, "va", "n=5000");
    assert_int_equal(hs__split_real_open_conf(&c, dev, n, &r, &err), HS_OK);
    hs__split_real_set_hook(r, delay_hook, &s);
    assert_int_equal(hs_split_real_alone(r, 0, 3, &us, &err), HS_OK);
    assert_int_equal(s.k, 3);
    assert_true(us >= 10000);
    assert_int_equal(hs_split_real_alone(r, 0, 0, &us, &err), HS_OK); /* 0 counts as 1 */
    assert_int_equal(s.k, 4);
    assert_int_equal(hs_split_real_alone(r, 2, 1, &us, &err), HS_EINPUT);
    hs_split_real_close(r);
}

/* ------------------------------------------------------------------- GPU */

/* The conformance tests again on a CPU device and gpu0, and va on 4M
 * items, whose GPU chunks are cut into pieces and copy the next chunk's
 * inputs ahead; skipped without a GPU.  va is exact on either device; pi
 * and gemm are checked by the run's own check (hs_kcheck). */
static void on_gpu(void **state)
{
    if (hs_split_real_gpu_count() == 0)
        skip();
    with_gpu = 1;
    every_splitter_on("va", "n=20000", 1);
    every_splitter_on("va", "n=4194304", 1);
    every_splitter_on("pi", "hits=200000", 0);
    every_splitter_on("gemm", "n=24,m=301,k=16", 0);
    every_kernel_case(state);
    chunk_run_twice(state);
    static_and_records(state);
    with_gpu = 0;
}

/* ----------------------------------------------------------- command line */

static void command_line(void **state)
{
    (void)state;
#ifdef __SANITIZE_THREAD__
    skip(); /* its real runs are the ones above; TSan multiplies its start-up time */
#endif
    if (!getenv("HETSCHED"))
        skip();
    assert_int_equal(cli("split -p hdss va --items 30000 --devices cpu:1,cpu:1"), 0);
    assert_int_equal(cli("split -p hdss,boyer,static pi --items 300 --devices cpu:1,cpu:1 "
                         "--best-static --repeat 3"),
                     0);
    assert_int_equal(cli("split -p qilin xgemm-rows -P n=32 -P k=8 --items 100 "
                         "--devices cpu:1,cpu:1"),
                     0);
    assert_int_equal(cli("split -p kass gemm --params n=16,k=4 --items 64 --cpu-threads 1 "
                         "--devices cpu,cpu --runs 2 --no-hints"),
                     0);
    assert_int_equal(cli("split -p gss trsm -P n=8 -P m=40 --devices cpu:1,cpu:2"), 0);
    assert_int_equal(cli("split -p hdss dot -P n=10 --devices cpu:1"), 2);
    assert_int_equal(cli("split -p hdss nope --devices cpu:1"), 2);
    assert_int_equal(cli("split -p hdss,nope va --items 10 --devices cpu:1"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 --devices cpu:1,tpu"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 --devices gpu99"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 -P n"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 -P q=1 --devices cpu:1"), 2);
    assert_int_equal(cli("split -p hdss pi -P hits=1000 --items 7 --devices cpu:1"), 0);
    /* --items sets fblock's n, but 3 parts of 9 planes are 3 items */
    assert_int_equal(cli("split -p hdss fblock -P parts=3 --items 9 --devices cpu:1"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 --sim -P n=3"), 2);
    assert_int_equal(cli("split -p hdss va --items 10 --repeat 0"), 2);
    assert_int_equal(cli("split -p hdss,gss va --items 10 --devices cpu:1 --plot x.png"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_lists),
        cmocka_unit_test(refusals),
        cmocka_unit_test(spans),
        cmocka_unit_test(gpu_pieces),
        cmocka_unit_test(every_splitter_va),
        cmocka_unit_test(every_splitter_pi),
        cmocka_unit_test(every_splitter_gemm),
        cmocka_unit_test(every_kernel_case),
        cmocka_unit_test(chunk_run_twice),
        cmocka_unit_test(stalled_device),
        cmocka_unit_test(static_and_records),
        cmocka_unit_test(best_static_split),
        cmocka_unit_test(alone_median),
        cmocka_unit_test(on_gpu),
        cmocka_unit_test(command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
