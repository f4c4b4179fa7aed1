/* Tests of the wavefront mode of hdss (HDSS Sec. 3.3; mapper/split.h
 * "wavefront", mapper/split_hdss.c):
 *   - the tile grid (item ranges of tiles) and the -o wavefront option;
 *   - two hand-checked 3x3 runs in the chunk simulator with exact makespans;
 *   - seeded random runs (grid, speeds, overheads, noise, throttling, a dead
 *     device): every tile accepted exactly once and never started before its
 *     upper and left neighbours finished, checked from the chunk records;
 *   - the same under real threads (exec/split_drive.h), checked from times
 *     the run function itself records;
 *   - a splitter that breaks the order is caught by the simulator and the
 *     driver; splitters without the mode refuse the option. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "exec/split_drive.h"
#include "mapper/split.h"

static hs_split_options wave_opt(size_t rows, size_t cols)
{
    hs_split_options o = {0};
    o.wave_rows = rows;
    o.wave_cols = cols;
    return o;
}

/* Two devices of `speed0` and `speed1` items/µs computing from host memory
 * without overhead, N items. */
static void two_devices(hs_split_sim *sim, size_t n, double speed0, double speed1)
{
    memset(sim, 0, sizeof *sim);
    sim->kernel = "wave";
    sim->items = n;
    sim->ndevices = 2;
    sim->dev[0] = (hs_split_sim_device){.name = "cpu0", .kind = HS_DEVICE_CPU,
                                        .items_per_us = speed0, .width = 1};
    sim->dev[1] = (hs_split_sim_device){.name = "gpu0", .kind = HS_DEVICE_GPU,
                                        .items_per_us = speed1, .width = 1};
    sim->max_records = 100000;
}

/* ------------------------------------------------------------------ grid */

static void test_grid(void **state)
{
    /* 10 items in 2 x 2 tiles: 10 / 4 = 2 rest 2, so tiles 0 and 1 hold 3
     * items and tiles 2 and 3 hold 2: [0,3) [3,6) [6,8) [8,10) */
    hs_split_wave w = {2, 2, 10};
    static const size_t begin[] = {0, 3, 6, 8, 10};
    static const size_t tile_of[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
    (void)state;
    for (size_t t = 0; t <= 4; t++)
        assert_int_equal(hs_split_wave_begin(&w, t), begin[t]);
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(hs_split_wave_tile(&w, i), tile_of[i]);
}

static void test_option(void **state)
{
    hs_split_options o = {0};
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_split_option_set(&o, "wavefront=3x4", &err), HS_OK);
    assert_int_equal(o.wave_rows, 3);
    assert_int_equal(o.wave_cols, 4);
    assert_int_equal(hs_split_option_set(&o, "wavefront=3", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "wavefront=0x4", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "wavefront=3x4x5", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "wavefront=x4", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "wavefront=-3x4", &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "ROWSxCOLS"));
}

static void test_refusals(void **state)
{
    hs_split_sim sim;
    hs_split_options o = wave_opt(3, 3);
    hs_split_result res;
    hs_error err = {0};
    (void)state;
    two_devices(&sim, 9, 1, 1);
    assert_true(hs_splitter_find("hdss")->flags & HS_SPLIT_WAVEFRONT);
    assert_int_equal(hs_split_sim_run(&sim, hs_splitter_find("gss"), &o, NULL, &res, &err),
                     HS_EINPUT);
    assert_non_null(strstr(err.msg, "no wavefront mode"));
    sim.items = 8; /* 9 tiles, 8 items */
    assert_int_equal(hs_split_sim_run(&sim, hs_splitter_find("hdss"), &o, NULL, &res, &err),
                     HS_EINPUT);
}

/* ------------------------------------------------------------ hand-checked */

/* Both devices 1 item/µs, 3x3 tiles of one item, defaults (adaptive phase
 * capped at ceil(0.2 x 9) = 2 items).  Tile (r, c) is item 3c + r.
 *   t=0  cpu0: column 0 all ready (3 items); its MGSS share of them is
 *        ceil(3 x 1/2) = 2, the adaptive room 2: (0,0),(1,0) until 2.
 *        gpu0: nothing ready, waits.
 *   t=2  cpu0 reports; 2 items handed out, so the completion phase starts.
 *        cpu0: columns 0 (next tile on anti-diagonal 2) and 1 (on 1, 2
 *        ready): column 1, ceil(2/2) = 1 tile: (0,1) until 3.  gpu0: (2,0)
 *        until 3.
 *   t=3  cpu0 first (device order): (1,1) (column 1 on diagonal 2 beats
 *        column 2 on 2 by being further left) until 4; gpu0: (0,2) until 4.
 *   t=4  cpu0: (2,1) until 5; gpu0: (1,2) until 5.
 *   t=5  cpu0: column 2 busy, waits; gpu0: (2,2) until 6.
 * Makespan 6 µs: the optimum, since the anti-diagonals hold 1, 2, 3, 2, 1
 * tiles and two devices need 1 + 1 + 2 + 1 + 1 steps.  cpu0 ran 5 tiles in
 * 4 chunks, gpu0 4 in 4. */
static void test_hand_equal(void **state)
{
    hs_split_sim sim;
    hs_split_options o = wave_opt(3, 3);
    hs_split_result res;
    hs_error err = {0};
    (void)state;
    two_devices(&sim, 9, 1, 1);
    assert_int_equal(hs_split_sim_run(&sim, hs_splitter_find("hdss"), &o, NULL, &res, &err),
                     HS_OK);
    assert_true(fabs(res.makespan_us - 6.0) < 1e-9);
    assert_int_equal(res.dev[0].items, 5);
    assert_int_equal(res.dev[0].chunks, 4);
    assert_int_equal(res.dev[1].items, 4);
    assert_int_equal(res.dev[1].chunks, 4);
    hs_split_result_free(&res);
}

/* cpu0 1 item/µs, gpu0 2 items/µs (0.5 µs a tile), otherwise as above.
 *   t=0  cpu0: MGSS share of column 0 ceil(3 x 1/3) = 1 tile, but gpu0 (faster,
 *        not yet asked) would end it sooner: cpu0 leaves it and waits until
 *        t=1 (its own time for the tile).  gpu0: ceil(3 x 2/3) = 2 tiles,
 *        (0,0),(1,0) until 1.
 *   t=1  cpu0 wakes first (device order): nothing ready, waits.  gpu0
 *        reports (weight 2); completion phase.  gpu0, the fastest, takes the
 *        earliest diagonal: column 1 (diagonal 1, 2 ready), ceil(2 x 2/3) =
 *        2 tiles (0,1),(1,1) until 2.  cpu0 takes the latest diagonal:
 *        (2,0); gpu0 would be free at 2 and end it at 2.5, cpu0 at 2: cpu0
 *        runs it until 2.
 *   t=2  cpu0 reports (2,0) first; column 2 needs (0,1): waits.  gpu0
 *        reports; it takes column 2 (diagonal 2, 2 ready): (0,2),(1,2)
 *        until 3.  cpu0: (2,1) (diagonal 3), gpu0 would end it at 3.5,
 *        cpu0 at 3: until 3.
 *   t=3  cpu0 waits; gpu0: (2,2) until 3.5.
 * Makespan 3.5 µs (gpu0 alone: 4.5).  cpu0 ran 2 tiles in 2 chunks, gpu0 7
 * in 4. */
static void test_hand_unequal(void **state)
{
    hs_split_sim sim;
    hs_split_options o = wave_opt(3, 3);
    hs_split_result res;
    hs_error err = {0};
    (void)state;
    two_devices(&sim, 9, 1, 2);
    assert_int_equal(hs_split_sim_run(&sim, hs_splitter_find("hdss"), &o, NULL, &res, &err),
                     HS_OK);
    assert_true(fabs(res.makespan_us - 3.5) < 1e-9);
    assert_int_equal(res.dev[0].items, 2);
    assert_int_equal(res.dev[0].chunks, 2);
    assert_int_equal(res.dev[1].items, 7);
    assert_int_equal(res.dev[1].chunks, 4);
    hs_split_result_free(&res);
}

/* ----------------------------------------------------- random, simulated */

/* From the records alone: accepted chunks are whole tiles of one column,
 * every tile accepted once, and each chunk started no earlier than the
 * accepted end of the upper and left neighbours of its tiles (those
 * outside the chunk). */
static void check_records(const hs_split_wave *w, const hs_split_record *rec, size_t n)
{
    size_t tiles = w->rows * w->cols;
    double *end = malloc(tiles * sizeof *end);
    assert_non_null(end);
    for (size_t t = 0; t < tiles; t++)
        end[t] = NAN;
    for (size_t i = 0; i < n; i++) {
        size_t t0, t1;
        if (rec[i].fate != HS_CHUNK_ACCEPTED)
            continue;
        t0 = hs_split_wave_tile(w, rec[i].begin);
        t1 = hs_split_wave_tile(w, rec[i].end - 1) + 1;
        assert_int_equal(hs_split_wave_begin(w, t0), rec[i].begin);
        assert_int_equal(hs_split_wave_begin(w, t1), rec[i].end);
        assert_int_equal(t0 / w->rows, (t1 - 1) / w->rows); /* one column */
        for (size_t t = t0; t < t1; t++) {
            assert_true(isnan(end[t]));
            end[t] = rec[i].end_us;
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t t0, t1;
        if (rec[i].fate != HS_CHUNK_ACCEPTED)
            continue;
        t0 = hs_split_wave_tile(w, rec[i].begin);
        t1 = hs_split_wave_tile(w, rec[i].end - 1) + 1;
        for (size_t t = t0; t < t1; t++) {
            if (t % w->rows > 0 && t - 1 < t0)
                assert_true(end[t - 1] <= rec[i].start_us);
            if (t / w->rows > 0)
                assert_true(end[t - w->rows] <= rec[i].start_us);
        }
    }
    for (size_t t = 0; t < tiles; t++)
        assert_false(isnan(end[t]));
    free(end);
}

static double uniform(unsigned *seed, double lo, double hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (double)((*seed >> 8) & 0xffffff) / (double)0xffffff;
}

static void test_random_sim(void **state)
{
    unsigned seed = 7;
    int runs = 0;
    (void)state;
    for (int round = 0; round < 120; round++) {
        static hs_split_sim sim;
        hs_split_result res;
        hs_error err = {0};
        size_t rows = 1 + (size_t)uniform(&seed, 0, 12), cols = 1 + (size_t)uniform(&seed, 0, 12);
        hs_split_options o = wave_opt(rows, cols);
        hs_split_wave w;
        int variant = round % 4, rc;
        memset(&sim, 0, sizeof sim);
        sim.kernel = "wave";
        sim.items = rows * cols * (1 + (size_t)uniform(&seed, 0, 40)) +
                    (size_t)uniform(&seed, 0, 7);
        sim.ndevices = 2 + (int)uniform(&seed, 0, 1.99);
        sim.max_records = 1000000;
        sim.seed = (unsigned long)round;
        sim.noise = variant == 1 ? 0.5 : 0;
        sim.no_hints = round % 3 == 0;
        for (int d = 0; d < sim.ndevices; d++) {
            static const char *names[] = {"cpu0", "gpu0", "gpu1"};
            sim.dev[d] = (hs_split_sim_device){
                .name = names[d], .kind = d ? HS_DEVICE_GPU : HS_DEVICE_CPU,
                .overhead_us = uniform(&seed, 0, 20),
                .items_per_us = uniform(&seed, 0.1, 10),
                .width = 1 + (size_t)uniform(&seed, 0, 4),
                .bandwidth_gbps = d ? uniform(&seed, 1, 20) : 0, .latency_us = d ? 5 : 0};
        }
        sim.in_bytes = 8;
        sim.out_bytes = 4;
        if (variant == 2) { /* throttled 3x part way */
            sim.dev[1].throttle = 3;
            sim.dev[1].throttle_at_us = uniform(&seed, 0, 50);
        }
        if (variant == 3) { /* gpu0 stops answering */
            sim.dev[1].fails = 1;
            sim.dev[1].fail_at_us = uniform(&seed, 0, 100);
        }
        rc = hs_split_sim_run(&sim, hs_splitter_find("hdss"), &o, NULL, &res, &err);
        if (rc != HS_OK)
            fail_msg("round %d (%zux%zu, %zu items): %s", round, rows, cols, sim.items,
                     err.msg);
        assert_false(res.records_truncated);
        w = (hs_split_wave){rows, cols, sim.items};
        check_records(&w, res.records, res.nrecords);
        hs_split_result_free(&res);
        runs++;
    }
    assert_int_equal(runs, 120);
}

/* -------------------------------------------------------- real threads */

typedef struct tile_clock {
    hs_split_wave w;
    pthread_mutex_t mu;
    struct timespec t0;
    double *start, *end; /* per tile, measured by the run function */
    int *runs;
    unsigned seed;
} tile_clock;

static double now_us(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e6 + (double)(t.tv_nsec - t0->tv_nsec) / 1e3;
}

/* Runs the tiles of [b, e) in order, each for a few random µs, recording
 * when each started and ended. */
static int run_tiles(void *user, int device, size_t b, size_t e, int aside)
{
    tile_clock *c = user;
    (void)device;
    (void)aside;
    for (size_t t = hs_split_wave_tile(&c->w, b); t <= hs_split_wave_tile(&c->w, e - 1); t++) {
        struct timespec ns = {0, 0};
        pthread_mutex_lock(&c->mu);
        c->start[t] = now_us(&c->t0);
        c->seed = c->seed * 1103515245u + 12345u;
        ns.tv_nsec = (long)((c->seed >> 8) % 50) * 1000;
        pthread_mutex_unlock(&c->mu);
        nanosleep(&ns, NULL);
        pthread_mutex_lock(&c->mu);
        c->end[t] = now_us(&c->t0);
        c->runs[t]++;
        pthread_mutex_unlock(&c->mu);
    }
    return 0;
}

static void test_threads(void **state)
{
    (void)state;
    for (int round = 0; round < 6; round++) {
        size_t rows = 3 + (size_t)round, cols = 8 - (size_t)round, n = rows * cols * 3 + 1;
        hs_split_options o = wave_opt(rows, cols);
        hs_split_device dev[3] = {
            {.name = "cpu0", .kind = HS_DEVICE_CPU, .width = 1, .rate_hint = 0.2},
            {.name = "cpu1", .kind = HS_DEVICE_CPU, .width = 1, .rate_hint = 0.1},
            {.name = "gpu0", .kind = HS_DEVICE_GPU, .width = 2},
        };
        hs_split_kernel k = {.name = "wave", .items = n};
        tile_clock c = {.w = {rows, cols, n}, .seed = (unsigned)round};
        hs_split_drive_stats st;
        hs_error err = {0};
        size_t tiles = rows * cols;
        c.start = calloc(tiles, sizeof *c.start);
        c.end = calloc(tiles, sizeof *c.end);
        c.runs = calloc(tiles, sizeof *c.runs);
        assert_non_null(c.start);
        assert_non_null(c.end);
        assert_non_null(c.runs);
        pthread_mutex_init(&c.mu, NULL);
        clock_gettime(CLOCK_MONOTONIC, &c.t0);
        hs_split_record *rec;
        st.max_records = 10000;
        st.records = malloc(st.max_records * sizeof *st.records);
        assert_non_null(st.records);
        if (hs_split_drive(hs_splitter_find("hdss"), &k, dev, 2 + round % 2, &o, NULL,
                           &(hs_split_drive_ops){.run = run_tiles}, &c, &st, &err) != HS_OK)
            fail_msg("round %d: %s", round, err.msg);
        /* the accepted chunks, by the driver's clock: as in the simulator */
        rec = malloc(st.nrecords * sizeof *rec + 1);
        assert_non_null(rec);
        for (size_t i = 0; i < st.nrecords; i++)
            rec[i] = (hs_split_record){st.records[i].device, st.records[i].begin,
                                       st.records[i].end, st.records[i].start_us,
                                       st.records[i].end_us,
                                       st.records[i].accepted ? HS_CHUNK_ACCEPTED
                                                              : HS_CHUNK_REFUSED};
        check_records(&c.w, rec, st.nrecords);
        /* each tile by the run function's own clock, where no chunk was
         * taken back and run twice (a taken-back run's result is refused) */
        for (size_t t = 0; t < tiles; t++) {
            assert_true(c.runs[t] >= 1);
            if (c.runs[t] > 1)
                continue;
            if (t % rows > 0 && c.runs[t - 1] == 1)
                assert_true(c.end[t - 1] <= c.start[t]);
            if (t / rows > 0 && c.runs[t - rows] == 1)
                assert_true(c.end[t - rows] <= c.start[t]);
        }
        free(rec);
        free(st.records);
        pthread_mutex_destroy(&c.mu);
        free(c.start);
        free(c.end);
        free(c.runs);
    }
}

/* ------------------------------------------ a splitter that breaks order */

/* Hands out the tiles of a 2x2 grid (one item each) one at a time in the
 * order 1, 0, 2, 3: tile 1 = (1, 0) before its upper neighbour (0, 0). */
typedef struct eager_wave {
    size_t next;
} eager_wave;

static int eager_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    (void)k;
    (void)dev;
    (void)ndev;
    (void)opt;
    (void)mem;
    (void)err;
    *state = calloc(1, sizeof(eager_wave));
    return *state ? HS_OK : HS_ENOMEM;
}

static hs_split_answer eager_next(void *state, int d, double now, hs_split_grant *g)
{
    static const size_t order[] = {1, 0, 2, 3};
    eager_wave *s = state;
    (void)d;
    (void)now;
    if (s->next == 4)
        return HS_SPLIT_STOP;
    g->begin = order[s->next++];
    g->end = g->begin + 1;
    return HS_SPLIT_CHUNK;
}

static int eager_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    (void)state;
    (void)d;
    (void)b;
    (void)e;
    (void)us;
    (void)now;
    return 1;
}

static const hs_splitter eager = {
    .name = "eager-wave",
    .description = "breaks the wavefront order",
    .flags = HS_SPLIT_WAVEFRONT,
    .start = eager_start,
    .next = eager_next,
    .finished = eager_finished,
    .fini = free,
};

static int run_nothing(void *user, int device, size_t b, size_t e, int aside)
{
    (void)user;
    (void)device;
    (void)b;
    (void)e;
    (void)aside;
    return 0;
}

static void test_caught(void **state)
{
    hs_split_sim sim;
    hs_split_options o = wave_opt(2, 2);
    hs_split_result res;
    hs_error err = {0};
    hs_split_device dev[2] = {{.name = "a", .width = 1}, {.name = "b", .width = 1}};
    hs_split_kernel k = {.name = "wave", .items = 4};
    (void)state;
    two_devices(&sim, 4, 1, 1);
    assert_int_equal(hs_split_sim_run(&sim, &eager, &o, NULL, &res, &err), HS_EINTERNAL);
    assert_non_null(strstr(err.msg, "tile (1, 0)"));
    assert_int_equal(hs_split_drive(&eager, &k, dev, 2, &o, NULL, &(hs_split_drive_ops){.run = run_nothing},
                                    NULL, NULL, &err),
                     HS_EINTERNAL);
    assert_non_null(strstr(err.msg, "tile (1, 0)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_option),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_hand_equal),
        cmocka_unit_test(test_hand_unequal),
        cmocka_unit_test(test_random_sim),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
