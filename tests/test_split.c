/* Tests of the chunk splitters (hetsched/split.h), the chunk simulator
 * (hetsched/split.h) and the thread driver (exec/split_drive.h):
 *   - the registry, the option table and refusals of bad input;
 *   - the simulator's chunk-time model and its figures on hand-checked runs;
 *   - exact chunk sequences of static, gss, fss, tss, boyer, kass, coretsar
 *     and qilin on small N, driven by hand, and the exact moment an idle
 *     device takes a chunk back from one judged dead;
 *   - conformance of every registered splitter on seeded random runs: random
 *     chunk timings, variability, and (for those that claim it) a device that
 *     stops answering: every item finished exactly once, the run ends;
 *   - a dead device on the kernel profiles: the exact makespan of `split -p
 *     hdss pi --sim --fail gpu0:5`, and for every splitter that survives it
 *     a makespan within the survivor's time alone plus the wait bound;
 *   - the same contract under real threads; chunks holding items handed
 *     out before run aside and only the accepted result is kept;
 *   - the headline experiment: with one device slowed 3x during the run,
 *     hdss and boyer beat the best static split found by exhaustive search
 *     (1% steps) on the nominal devices (Boyer et al. Fig. 6);
 *   - the command line. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/split_drive.h"
#include "hetsched/hetsched.h"
#include "hs_config.h"
#include "mapper/split.h"
#include "tests/cli_fixture.h"

#define EPS 1e-6

/* Under ThreadSanitizer (the third half of `./build.sh test`) the long
 * single-threaded tests (the simulator, the command line's simulated runs)
 * are skipped: there is nothing for it to check, and it slows them down
 * many times. */
#ifdef __SANITIZE_THREAD__
#define SINGLE_THREADED() skip()
#else
#define SINGLE_THREADED() ((void)0)
#endif

/* ---------------------------------------------------------------- helpers */

static hs_split_device mkdev(const char *name, hs_device_kind kind, double hint)
{
    return (hs_split_device){.name = name, .kind = kind, .width = 1, .rate_hint = hint};
}

/* A splitter driven by hand: the test plays the devices. */
typedef struct script {
    const hs_splitter *sp;
    void *st;
    hs_split_kernel k;
} script;

static void s_start(script *s, const char *name, size_t n, const hs_split_device *dev, int ndev,
                    const hs_split_options *opt, const hs_split_memory *mem)
{
    hs_error err = {0};
    s->sp = hs_splitter_find(name);
    assert_non_null(s->sp);
    s->k = (hs_split_kernel){.name = "k", .items = n};
    if (s->sp->start(&s->k, dev, ndev, opt, mem, &s->st, &err) != HS_OK)
        fail_msg("start %s: %s", name, err.msg);
}

/* next(d) at `now` must hand out exactly [b, e). */
static void want_chunk(script *s, int d, double now, size_t b, size_t e)
{
    hs_split_grant g = {0, 0, 0};
    hs_split_answer a = s->sp->next(s->st, d, now, &g);
    if (a != HS_SPLIT_CHUNK || g.begin != b || g.end != e)
        fail_msg("%s: device %d at %g: expected [%zu, %zu), got answer %d [%zu, %zu)",
                 s->sp->name, d, now, b, e, (int)a, g.begin, g.end);
}

static void want_answer(script *s, int d, double now, hs_split_answer want)
{
    hs_split_grant g = {0, 0, 0};
    hs_split_answer a = s->sp->next(s->st, d, now, &g);
    if (a != want)
        fail_msg("%s: device %d at %g: expected answer %d, got %d [%zu, %zu)", s->sp->name, d,
                 now, (int)want, (int)a, g.begin, g.end);
}

static void report(script *s, int d, size_t b, size_t e, double us, double now)
{
    assert_int_equal(s->sp->finished(s->st, d, b, e, us, now), 1);
}

static void s_end(script *s, hs_split_memory *mem)
{
    if (mem && s->sp->learn)
        s->sp->learn(s->st, mem);
    s->sp->fini(s->st);
}

/* Two simulated devices: a (cpu, host memory) and b (gpu behind a link). */
static void two_devices(hs_split_sim *s, size_t n, double ra, double rb)
{
    memset(s, 0, sizeof *s);
    s->kernel = "test";
    s->items = n;
    s->ndevices = 2;
    s->dev[0] = (hs_split_sim_device){.name = "a", .kind = HS_DEVICE_CPU, .items_per_us = ra};
    s->dev[1] = (hs_split_sim_device){.name = "b", .kind = HS_DEVICE_GPU, .items_per_us = rb};
}

/* ------------------------------------------------------ registry, options */

static void registry_and_options(void **state)
{
    static const char *const names[] = {"hdss", "boyer", "kass", "coretsar", "static",
                                        "ss", "fixed", "gss", "fss", "tss", "qilin",
                                        "tse-linear", "tse-exp"};
    const hs_splitter *const *l = hs_splitter_list();
    hs_split_options o = {0};
    hs_error err = {0};
    size_t n = 0;
    (void)state;
    while (l[n])
        n++;
    assert_int_equal(n, sizeof names / sizeof names[0]);
    for (size_t i = 0; i < n; i++) {
        const hs_splitter *sp = hs_splitter_find(names[i]);
        assert_non_null(sp);
        assert_non_null(sp->description);
        assert_non_null(sp->start);
        assert_non_null(sp->next);
        assert_non_null(sp->finished);
        assert_non_null(sp->fini);
    }
    assert_null(hs_splitter_find("nope"));
    assert_null(hs_splitter_find(NULL));
    /* which ones claim to survive a dead device */
    assert_true(hs_splitter_find("hdss")->flags & HS_SPLIT_SURVIVES_FAILURE);
    assert_true(hs_splitter_find("boyer")->flags & HS_SPLIT_SURVIVES_FAILURE);
    assert_false(hs_splitter_find("static")->flags & HS_SPLIT_SURVIVES_FAILURE);
    assert_false(hs_splitter_find("qilin")->flags & HS_SPLIT_SURVIVES_FAILURE);

    assert_int_equal(hs_split_option_set(&o, "chunk=17", &err), HS_OK);
    assert_int_equal(o.chunk, 17);
    assert_int_equal(hs_split_option_set(&o, "beta=0.1", &err), HS_OK);
    assert_true(fabs(o.beta - 0.1) < EPS);
    assert_int_equal(hs_split_option_set(&o, "schedule=quick", &err), HS_OK);
    assert_int_equal(o.schedule, HS_CORETSAR_QUICK);
    assert_int_equal(hs_split_option_set(&o, "gamma=3", &err), HS_OK);
    assert_int_equal(o.gamma, 3);
    assert_int_equal(hs_split_option_set(&o, "bogus=1", &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "bogus"));
    assert_int_equal(hs_split_option_set(&o, "chunk=0", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "chunk=1.5", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "beta=2", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "beta=", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "schedule=often", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "chunk", &err), HS_EINPUT);
    assert_int_equal(hs_split_option_set(&o, "=3", &err), HS_EINPUT);
}

static void bad_input_refused(void **state)
{
    static hs_split_sim s;
    hs_split_result r;
    hs_error err = {0};
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0)};
    hs_split_kernel k = {.name = "k", .items = 0};
    void *st = NULL;
    (void)state;
    /* the splitter refuses an empty kernel, no devices, a zero width */
    assert_int_equal(hs_splitter_find("hdss")->start(&k, dev, 2, NULL, NULL, &st, &err),
                     HS_EINPUT);
    k.items = 10;
    assert_int_equal(hs_splitter_find("gss")->start(&k, dev, 0, NULL, NULL, &st, &err),
                     HS_EINPUT);
    dev[1].width = 0;
    assert_int_equal(hs_splitter_find("boyer")->start(&k, dev, 2, NULL, NULL, &st, &err),
                     HS_EINPUT);
    /* the simulator refuses what its model cannot run */
    two_devices(&s, 0, 1, 1);
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("gss"), NULL, NULL, &r, &err),
                     HS_EINPUT);
    two_devices(&s, 10, 1, 0);
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("gss"), NULL, NULL, &r, &err),
                     HS_EINPUT);
    assert_non_null(strstr(err.msg, "'b'"));
    two_devices(&s, 10, 1, 1);
    s.dev[1].name = "a";
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("gss"), NULL, NULL, &r, &err),
                     HS_EINPUT);
    two_devices(&s, 10, 1, 1);
    s.noise = 1.5;
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("gss"), NULL, NULL, &r, &err),
                     HS_EINPUT);
    two_devices(&s, 10, 1, 1);
    s.dev[0].throttle = -2;
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("gss"), NULL, NULL, &r, &err),
                     HS_EINPUT);
    two_devices(&s, 10, 1, 1);
    assert_int_equal(hs_split_sim_run(&s, NULL, NULL, NULL, &r, &err), HS_EUSAGE);
    assert_int_equal(hs_split_sim_profile(&s, "nope", &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "xgemm-rows"));
}

/* ------------------------------------------------------------ the model */

/* Device: overhead 5 us, 2 items/us, link 1 GB/s (1000 B/us) + 10 us; 100
 * bytes in and 50 out per item.  A chunk of 10 items from t = 0:
 *   5 + (10 + 1000/1000) + 10/2 + (10 + 500/1000) = 5 + 11 + 5 + 10.5 = 31.5.
 * Throttled 3x from t = 10: computing starts at 16, after the throttle, so
 * it takes 15: 41.5.  Throttled 3x from t = 18: 2 us at full speed (16..18)
 * do 4 items, the other 6 take 3 * 3 = 9 us: computing ends at 27, and
 * 27 + 10.5 = 37.5. */
static void chunk_time_model(void **state)
{
    static hs_split_sim s;
    (void)state;
    two_devices(&s, 10, 1, 2);
    s.in_bytes = 100;
    s.out_bytes = 50;
    s.dev[1].overhead_us = 5;
    s.dev[1].bandwidth_gbps = 1;
    s.dev[1].latency_us = 10;
    assert_true(fabs(hs_split_sim_chunk_us(&s, 1, 0, 10, 0) - 31.5) < EPS);
    s.dev[1].throttle_at_us = 10;
    s.dev[1].throttle = 3;
    assert_true(fabs(hs_split_sim_chunk_us(&s, 1, 0, 10, 0) - 41.5) < EPS);
    s.dev[1].throttle_at_us = 18;
    assert_true(fabs(hs_split_sim_chunk_us(&s, 1, 0, 10, 0) - 37.5) < EPS);
    /* device a computes from host memory: no transfers, 10 items at 1/us */
    assert_true(fabs(hs_split_sim_chunk_us(&s, 0, 0, 10, 0) - 10) < EPS);
}

/* The best static split of N = 100 between a (1 item/us) and b (3), no
 * transfers: max(p, (100 - p) / 3) is least at p = 25, 25 us, found among
 * all 101 splits.  When b fails at 10 us it may hold 30 items at most, so
 * a takes 70 (70 us).  Stopped before it starts, nothing is tried; five
 * devices are refused. */
static void best_static_split(void **state)
{
    static hs_split_sim s;
    volatile sig_atomic_t stop = 0;
    hs_error err = {0};
    int best[HS_SPLIT_MAX_DEVICES] = {0};
    double us;
    long tried;
    (void)state;
    two_devices(&s, 100, 1, 3);
    assert_int_equal(hs_split_sim_static_count(2), 101);
    assert_int_equal(hs_split_sim_static_count(3), 5151);
    assert_true(fabs(hs_split_sim_static_us(&s, (int[]){40, 60}) - 40) < EPS);
    assert_int_equal(hs_split_sim_best_static(&s, &stop, best, &us, &tried, &err), HS_OK);
    assert_int_equal(tried, 101);
    assert_int_equal(best[0], 25);
    assert_int_equal(best[1], 75);
    assert_true(fabs(us - 25) < EPS);
    s.dev[1].fails = 1;
    s.dev[1].fail_at_us = 10;
    assert_true(isinf(hs_split_sim_static_us(&s, (int[]){25, 75})));
    assert_int_equal(hs_split_sim_best_static(&s, NULL, best, &us, &tried, &err), HS_OK);
    assert_int_equal(best[0], 70);
    assert_true(fabs(us - 70) < EPS);
    stop = 1;
    assert_int_equal(hs_split_sim_best_static(&s, &stop, best, &us, &tried, &err), HS_OK);
    assert_int_equal(tried, 0);
    assert_true(isinf(us));
    s.ndevices = 5;
    assert_int_equal(hs_split_sim_best_static(&s, NULL, best, &us, &tried, &err), HS_EINPUT);
}

/* static on a (1 item/us) and b (0.5 item/us), N = 100, no overheads:
 * a does [0, 50) in 50 us, b [50, 100) in 100 us.  Makespan 100; alone a
 * takes 100 and b 200, so efficiency = (100/100) / (1 + 0.5) = 2/3;
 * finish times 50 and 100: spread 50, imbalance (100 - 75) / 100 * 2 / 1 *
 * 100 = 50%; a is idle 50 us. */
static void sim_figures(void **state)
{
    static hs_split_sim s;
    hs_split_result r;
    hs_error err = {0};
    (void)state;
    two_devices(&s, 100, 1, 0.5);
    s.max_records = 10;
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("static"), NULL, NULL, &r, &err),
                     HS_OK);
    assert_true(fabs(r.makespan_us - 100) < EPS);
    assert_true(fabs(r.efficiency - 2.0 / 3) < EPS);
    assert_true(fabs(r.spread_us - 50) < EPS);
    assert_true(fabs(r.imbalance_pct - 50) < EPS);
    assert_int_equal(r.dev[0].items, 50);
    assert_int_equal(r.dev[1].chunks, 1);
    assert_true(fabs(r.dev[0].idle_us - 50) < EPS);
    assert_true(fabs(r.dev[1].alone_us - 200) < EPS);
    assert_int_equal(r.nrecords, 2);
    assert_int_equal(r.asks, 4); /* each device: its chunk, then STOP */
    hs_split_result_free(&r);
    /* equal devices: both finish at 50, efficiency 1, no imbalance */
    two_devices(&s, 100, 1, 1);
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("static"), NULL, NULL, &r, &err),
                     HS_OK);
    assert_true(fabs(r.makespan_us - 50) < EPS);
    assert_true(fabs(r.efficiency - 1) < EPS);
    assert_true(fabs(r.imbalance_pct) < EPS);
    hs_split_result_free(&r);
}

/* -------------------------------------------------- hand-checked sequences */

/* N = 10, P = 3: shares 4, 3, 3 (the first N mod P devices one more). */
static void seq_static(void **state)
{
    hs_split_device dev[3] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0),
                              mkdev("c", HS_DEVICE_GPU, 0)};
    script s;
    (void)state;
    s_start(&s, "static", 10, dev, 3, NULL, NULL);
    want_chunk(&s, 2, 0, 7, 10);
    want_chunk(&s, 0, 0, 0, 4);
    want_chunk(&s, 1, 0, 4, 7);
    report(&s, 0, 0, 4, 4, 4);
    want_answer(&s, 0, 4, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* N = 100, P = 2, devices asking in turn: ceil(R / 2) of R left:
 * 50 (R 100), 25 (50), 13 (25), 6 (12), 3 (6), 2 (3), 1 (1). */
static void seq_gss(void **state)
{
    static const size_t want[] = {0, 50, 75, 88, 94, 97, 99, 100};
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0)};
    script s;
    (void)state;
    s_start(&s, "gss", 100, dev, 2, NULL, NULL);
    for (int i = 0; i < 7; i++) {
        want_chunk(&s, i % 2, i, want[i], want[i + 1]);
        report(&s, i % 2, want[i], want[i + 1], 1, i + 1);
    }
    want_answer(&s, 0, 8, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* Factoring, N = 100, P = 2: batches of 2 chunks of ceil(R / 4):
 * R 100 -> 25, 25; R 50 -> 13, 13; R 24 -> 6, 6; R 12 -> 3, 3;
 * R 6 -> 2, 2; R 2 -> 1, 1.  12 chunks, 100 items. */
static void seq_fss(void **state)
{
    static const size_t size[] = {25, 25, 13, 13, 6, 6, 3, 3, 2, 2, 1, 1};
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0)};
    size_t b = 0;
    script s;
    (void)state;
    s_start(&s, "fss", 100, dev, 2, NULL, NULL);
    for (int i = 0; i < 12; i++) {
        want_chunk(&s, i % 2, i, b, b + size[i]);
        report(&s, i % 2, b, b + size[i], 1, i + 1);
        b += size[i];
    }
    assert_int_equal(b, 100);
    want_answer(&s, 1, 20, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* Trapezoid, N = 100, P = 2: f = ceil(100 / 4) = 25, l = 1,
 * C = ceil(200 / 26) = 8, chunk k = floor(25 - k * 24 / 7):
 * 25, 21.57 -> 21, 18.14 -> 18, 14.71 -> 14, 11.29 -> 11, 7.86 -> 7,
 * 4.43 -> 4: 100 items in 7 chunks. */
static void seq_tss(void **state)
{
    static const size_t size[] = {25, 21, 18, 14, 11, 7, 4};
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0)};
    size_t b = 0;
    script s;
    (void)state;
    s_start(&s, "tss", 100, dev, 2, NULL, NULL);
    for (int i = 0; i < 7; i++) {
        want_chunk(&s, i % 2, i, b, b + size[i]);
        report(&s, i % 2, b, b + size[i], 1, i + 1);
        b += size[i];
    }
    assert_int_equal(b, 100);
    want_answer(&s, 1, 20, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* Boyer et al., N = 100, two devices; dev0 takes 10 us per item; dev1 20
 * us per item on its first chunk and 240 us for its second (11 items,
 * Omega = 21.818).  Growth chunks ceil(7 * 1.5^k): 7, 11, 16, 24.
 *   t=0    dev0 [0,7)  dev1 [7,14)
 *   t=70   dev0 done (Omega0 = 10)          -> [14,25)
 *   t=140  dev1 done (Omega1 = 20)          -> [25,36)
 *   t=180  dev0 done (2 chunks; dev1 has 1) -> [36,52)
 *   t=340  dev0 done                        -> [52,76) (until 580)
 *   t=380  dev1 done: both have 2, eq. (3) with W = 24, lambda0 = 10 * 24 -
 *          (380 - 340) = 200: T = (24 + 200/10) / (1/10 + 1/21.818) =
 *          301.7, W1 = 13.83.  floor 13: dev1 ends at 283.6, dev0 takes 11
 *          and ends at 310; ceil 14: 305.5 and 300 -> 14 wins: [76,90).
 *   t=580  dev0 done: W = 10, lambda1 = 21.818 * 14 - 200 = 105.5; dev0's
 *          share 10.17 -> floor 10 (ceil would exceed W): [90,100).
 *   t=680  dev0 done: nothing left, dev1 still busy -> WAIT.
 *   t=685.5 dev1 done -> STOP; dev0 asks again -> STOP. */
static void seq_boyer(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    double om1 = 240.0 / 11;
    script s;
    (void)state;
    s_start(&s, "boyer", 100, dev, 2, NULL, NULL);
    want_chunk(&s, 0, 0, 0, 7);
    want_chunk(&s, 1, 0, 7, 14);
    report(&s, 0, 0, 7, 70, 70);
    want_chunk(&s, 0, 70, 14, 25);
    report(&s, 1, 7, 14, 140, 140);
    want_chunk(&s, 1, 140, 25, 36);
    report(&s, 0, 14, 25, 110, 180);
    want_chunk(&s, 0, 180, 36, 52);
    report(&s, 0, 36, 52, 160, 340);
    want_chunk(&s, 0, 340, 52, 76);
    report(&s, 1, 25, 36, 240, 380);
    want_chunk(&s, 1, 380, 76, 90);
    report(&s, 0, 52, 76, 240, 580);
    want_chunk(&s, 0, 580, 90, 100);
    report(&s, 0, 90, 100, 100, 680);
    want_answer(&s, 0, 680, HS_SPLIT_WAIT);
    report(&s, 1, 76, 90, 14 * om1, 380 + 14 * om1);
    want_answer(&s, 1, 380 + 14 * om1, HS_SPLIT_STOP);
    want_answer(&s, 0, 380 + 14 * om1, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* Boyer Sec. 4.2: dev1 never finishes its first chunk; when dev0's next
 * growing chunk would take all the rest, dev1's chunk goes to dev0 too.
 * N = 20: chunks ceil(1.4 * 1.5^k) = 2, 3, 4, 5 (4.725), 8 (7.09).
 *   dev0 [0,2), dev1 [2,4); dev0 then [4,7), [7,11), [11,16); its next
 *   (8) would take all 4 left: dev1's [2,4) is taken back, dev0 gets the
 *   4 + 2 left, the taken-back range first: [2,4), then [16,20).  Then
 *   dev0 stops (dev1's chunk no longer matters); dev1's late report is
 *   refused and, nothing being left, it stops too. */
static void seq_boyer_dead(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    script s;
    (void)state;
    s_start(&s, "boyer", 20, dev, 2, NULL, NULL);
    want_chunk(&s, 0, 0, 0, 2);
    want_chunk(&s, 1, 0, 2, 4);
    report(&s, 0, 0, 2, 2, 2);
    want_chunk(&s, 0, 2, 4, 7);
    report(&s, 0, 4, 7, 3, 5);
    want_chunk(&s, 0, 5, 7, 11);
    report(&s, 0, 7, 11, 4, 9);
    want_chunk(&s, 0, 9, 11, 16);
    report(&s, 0, 11, 16, 5, 14);
    want_chunk(&s, 0, 14, 2, 4);
    report(&s, 0, 2, 4, 2, 16);
    want_chunk(&s, 0, 16, 16, 20);
    report(&s, 0, 16, 20, 4, 20);
    want_answer(&s, 0, 20, HS_SPLIT_STOP); /* dev1's chunk no longer matters */
    assert_int_equal(s.sp->finished(s.st, 1, 2, 4, 100, 100), 0);
    want_answer(&s, 1, 100, HS_SPLIT_STOP);
    s_end(&s, NULL);
}

/* KASS, N = 100, capacities 1 and 3 (hints), uniform loop: rule 1, eq. (3):
 * u0 = ceil(1/4 * 100) = 25.  c.o.v. of (1, 3) is 0.5, capped at 0.1, so
 * k = 1 - 0.1 - 0.1 = 0.8 (eq. 7); alpha = 1 (-o alpha=1).
 *   dev0: ceil(25 * 0.8) = 20 -> [0,20); 5 left -> 4 -> [20,24); 1 < 2 alpha
 *         -> [24,25); then it steals from dev1's queue.
 *   dev1: ceil(75 * 0.8) = 60 -> [25,85); dev0 steals ceil(15 * 0.8) = 12 ->
 *         [85,97), then the last 3 -> ceil(2.4) = 3 -> [97,100).
 * dev0 stole twice: C0 = 2 > theta = 1, C1 = -2: eq. (8) gives k0 = 0.9 and
 * k1 = 0.7 for the next run. */
static void seq_kass(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 1), mkdev("b", HS_DEVICE_GPU, 3)};
    hs_split_options o = {.alpha = 1};
    hs_split_memory mem = {0};
    script s;
    (void)state;
    s_start(&s, "kass", 100, dev, 2, &o, &mem);
    want_chunk(&s, 1, 0, 25, 85);
    want_chunk(&s, 0, 0, 0, 20);
    report(&s, 0, 0, 20, 20, 20);
    want_chunk(&s, 0, 20, 20, 24);
    report(&s, 0, 20, 24, 4, 24);
    want_chunk(&s, 0, 24, 24, 25);
    report(&s, 0, 24, 25, 1, 25);
    want_chunk(&s, 0, 25, 85, 97);
    report(&s, 0, 85, 97, 12, 37);
    want_chunk(&s, 0, 37, 97, 100);
    report(&s, 0, 97, 100, 3, 40);
    want_answer(&s, 0, 40, HS_SPLIT_WAIT); /* dev1 still runs */
    report(&s, 1, 25, 85, 20, 41);
    want_answer(&s, 1, 41, HS_SPLIT_STOP);
    s_end(&s, &mem);
    assert_int_equal(mem.runs, 1);
    assert_true(fabs(mem.k[0] - 0.9) < EPS);
    assert_true(fabs(mem.k[1] - 0.7) < EPS);
}

/* Triangular work t_i = i + 1 over N = 1000 on capacities 1 and 2: the loop
 * is not uniform (c.o.v. of t > 0.1) nor are the devices, so rule 3 (the
 * heuristic) cuts the queues.  Equal times need S(u) = (500500 - S(u)) / 2
 * with S(u) = u (u + 1) / 2, i.e. u = 577.6: dev1's queue must start near
 * there, far from eq. (3)'s 334 and eq. (1)'s 707, and the two T_j of
 * eq. (6) within 10% of each other. */
static double tri_work(const void *ctx, size_t b, size_t e)
{
    (void)ctx;
    return ((double)e * (double)(e + 1) - (double)b * (double)(b + 1)) / 2;
}

static void kass_rule3(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 1), mkdev("b", HS_DEVICE_GPU, 2)};
    hs_split_grant g = {0, 0, 0};
    hs_error err = {0};
    hs_split_kernel k = {.name = "tri", .items = 1000, .work = tri_work};
    const hs_splitter *sp = hs_splitter_find("kass");
    double t0, t1;
    void *st;
    (void)state;
    assert_int_equal(sp->start(&k, dev, 2, NULL, NULL, &st, &err), HS_OK);
    assert_int_equal(sp->next(st, 1, 0, &g), HS_SPLIT_CHUNK);
    sp->fini(st);
    assert_true(g.begin >= 560 && g.begin <= 600);
    t0 = tri_work(NULL, 0, g.begin) / 1;
    t1 = tri_work(NULL, g.begin, 1000) / 2;
    assert_true(fabs(t0 - t1) / ((t0 + t1) / 2) < 0.1);
}

/* CoreTSAR's LP (Fig. 4) on times per item 1 and 3 (hints 1 and 1/3) gives
 * fractions 3/4 and 1/4.  Static: dev0 [0,75), dev1 [75,100).
 * Split, div = 4: sub-regions of 25: floor(18.75) = 18 and floor(6.25) = 6,
 * the item left goes round-robin to dev0: [0,19) and [19,25).  Both then
 * report 2 us per item: the next sub-region is split evenly, 12 + 13 -> the
 * round-robin item again to dev0: [25,38) and [38,50). */
static void seq_coretsar(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 1), mkdev("b", HS_DEVICE_GPU, 1.0 / 3)};
    hs_split_options o = {.schedule = HS_CORETSAR_STATIC};
    script s;
    (void)state;
    s_start(&s, "coretsar", 100, dev, 2, &o, NULL);
    want_chunk(&s, 0, 0, 0, 75);
    want_chunk(&s, 1, 0, 75, 100);
    report(&s, 1, 75, 100, 75, 75);
    want_answer(&s, 1, 75, HS_SPLIT_WAIT);
    report(&s, 0, 0, 75, 75, 75);
    want_answer(&s, 0, 75, HS_SPLIT_STOP);
    want_answer(&s, 1, 75, HS_SPLIT_STOP);
    s_end(&s, NULL);

    o = (hs_split_options){.schedule = HS_CORETSAR_SPLIT, .div = 4};
    s_start(&s, "coretsar", 100, dev, 2, &o, NULL);
    want_chunk(&s, 0, 0, 0, 19);
    want_chunk(&s, 1, 0, 19, 25);
    report(&s, 0, 0, 19, 38, 38);
    want_answer(&s, 0, 38, HS_SPLIT_WAIT); /* the barrier */
    report(&s, 1, 19, 25, 12, 40);
    want_chunk(&s, 1, 40, 38, 50);
    want_chunk(&s, 0, 40, 25, 38);
    s_end(&s, NULL);
}

/* Qilin, N = 140, two devices.  Training run: the even split, each share of
 * 70 in parts of 1/7, 2/7, 4/7: dev0 [0,10) [10,30) [30,70), dev1 [70,80)
 * [80,100) [100,140).  Reported times follow T0 = 5 + B and T1 = 20 + 0.5 B
 * exactly, so learn() fits a0 = 5, b0 = 1, a1 = 20, b1 = 0.5.  Next run:
 * (T - 5) + (T - 20) / 0.5 = 140 gives T = 61.67, shares 56.67 and 83.33 ->
 * 56 and 83, the item lost to rounding to dev0: [0,57) and [57,140). */
static void seq_qilin(void **state)
{
    static const size_t cut0[] = {0, 10, 30, 70}, cut1[] = {70, 80, 100, 140};
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    hs_split_memory mem = {0};
    script s;
    (void)state;
    s_start(&s, "qilin", 140, dev, 2, NULL, &mem);
    for (int i = 0; i < 3; i++) {
        size_t b0 = cut0[i], e0 = cut0[i + 1], b1 = cut1[i], e1 = cut1[i + 1];
        want_chunk(&s, 0, i, b0, e0);
        want_chunk(&s, 1, i, b1, e1);
        report(&s, 0, b0, e0, 5 + (double)(e0 - b0), i + 1);
        report(&s, 1, b1, e1, 20 + 0.5 * (double)(e1 - b1), i + 1);
    }
    want_answer(&s, 0, 10, HS_SPLIT_STOP);
    s_end(&s, &mem);
    assert_int_equal(mem.runs, 1);
    assert_true(fabs(mem.model_a[0] - 5) < 1e-6 && fabs(mem.model_b[0] - 1) < 1e-9);
    assert_true(fabs(mem.model_a[1] - 20) < 1e-6 && fabs(mem.model_b[1] - 0.5) < 1e-9);
    s_start(&s, "qilin", 140, dev, 2, NULL, &mem);
    want_chunk(&s, 1, 0, 57, 140);
    want_chunk(&s, 0, 0, 0, 57);
    s_end(&s, NULL);
}

/* HDSS on two devices whose chunk time is 30 + B / 100 and 5 + B / 10 us:
 * the first blocks are the initial block rounded up to the width (width 64
 * -> 128 stays 128; width 100 -> 200), then grow by the factor likewise
 * rounded (128 and 200). */
static void seq_hdss_start(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    script s;
    (void)state;
    dev[0].width = 64;
    dev[1].width = 100;
    s_start(&s, "hdss", 100000, dev, 2, NULL, NULL);
    want_chunk(&s, 0, 0, 0, 128);
    want_chunk(&s, 1, 0, 128, 328);
    report(&s, 0, 0, 128, 5 + 12.8, 17.8);
    want_chunk(&s, 0, 17.8, 328, 584); /* 128 + 128 */
    report(&s, 1, 128, 328, 30 + 2, 32);
    want_chunk(&s, 1, 32, 584, 984); /* 200 + 200 */
    s_end(&s, NULL);
}

/* hdss's even first blocks (our addition): a (width 15, 0.01 items/us) and
 * b (width 33, 0.3 items/us), no overheads.  The paper's first blocks are
 * 128 rounded up to the widths, 135 and 132; b's takes 132 / 0.3 = 440 us,
 * in which a does 4.4 items, rounded up to one width: 15.  hdss_plain=2
 * gives the paper's 135.  (a, 30x slower than b, would stand by: that is
 * off here, hdss_plain=4.) */
static void seq_hdss_even_start(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0.01), mkdev("b", HS_DEVICE_GPU, 0.3)};
    hs_split_options o = {.hdss_plain = HS_HDSS_EVEN_START | HS_HDSS_STANDBY};
    hs_split_options on = {.hdss_plain = HS_HDSS_STANDBY}; /* a is 30x slower */
    script s;
    (void)state;
    dev[0].width = 15;
    dev[1].width = 33;
    s_start(&s, "hdss", 100000, dev, 2, &on, NULL);
    want_chunk(&s, 0, 0, 0, 15);
    want_chunk(&s, 1, 0, 15, 147);
    s_end(&s, NULL);
    s_start(&s, "hdss", 100000, dev, 2, &o, NULL);
    want_chunk(&s, 0, 0, 0, 135);
    s_end(&s, NULL);
}

/* hdss's standby (our addition): a (0.01 items/us) is 30x slower than b
 * (0.3), below the 5% of b that takes part.  1000 items, widths 1.  a asks
 * first, before b has a chunk: it waits until b would have done all by its
 * hint, 1000 / 0.3 = 3333.3 us; b, alone in the run, takes every item at
 * once (no adaptive phase); a waits again (on b's chunk); should b stop
 * answering, a takes b's chunk over.  If b never asks, a takes the pool at
 * 3333.3.  With standby_below 0.03, or hdss_plain=4, a takes part at once
 * and b's first block is the paper's 128. */
static void seq_hdss_standby(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0.01), mkdev("b", HS_DEVICE_GPU, 0.3)};
    hs_split_options low = {.standby_below = 0.03}, off = {.hdss_plain = HS_HDSS_STANDBY};
    hs_split_grant g = {0, 0, 0};
    script s;
    (void)state;
    s_start(&s, "hdss", 1000, dev, 2, NULL, NULL);
    assert_int_equal(s.sp->next(s.st, 0, 0, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 1000 / 0.3) < EPS);
    want_chunk(&s, 1, 1, 0, 1000);
    assert_int_equal(s.sp->next(s.st, 0, 2, &g), HS_SPLIT_WAIT);
    assert_true(g.wake_us > 2 && isfinite(g.wake_us)); /* when b would be judged dead */
    want_chunk(&s, 0, 1e9, 0, 1000);                   /* b's chunk, taken back */
    report(&s, 0, 0, 1000, 1e6, 1e9 + 1e6);
    assert_int_equal(s.sp->next(s.st, 0, 1e9 + 1e6, &g), HS_SPLIT_STOP);
    s_end(&s, NULL);
    s_start(&s, "hdss", 1000, dev, 2, NULL, NULL); /* b never asks */
    assert_int_equal(s.sp->next(s.st, 0, 0, &g), HS_SPLIT_WAIT);
    assert_int_equal(s.sp->next(s.st, 0, 3334, &g), HS_SPLIT_CHUNK);
    assert_int_equal(g.begin, 0);
    s_end(&s, NULL);
    for (int i = 0; i < 2; i++) {
        s_start(&s, "hdss", 1000, dev, 2, i ? &off : &low, NULL);
        assert_int_equal(s.sp->next(s.st, 0, 0, &g), HS_SPLIT_CHUNK);
        want_chunk(&s, 1, 0, g.end, g.end + 128);
        s_end(&s, NULL);
    }
}

/* When an idle device takes a chunk back (mapper/split_core.h): device b
 * holds U items handed out at `issued`, a has nothing left; b is judged
 * dead at issued + max(1000, min(P_b + 2 P_a, 3 P_b)) µs.  `fixed` with
 * chunks of U = 3000 (or 100) items of 6000 (200), widths 1, b handed the
 * first chunk at 0 and a the second at 0:
 *   - b's hint 1 item/µs (P_b = 3000), a ends its chunk at 1500 (P_a =
 *     1500): 3000 + 2 1500 = 6000 < 9000: b is dead at 6000;
 *   - a ends at 6000 instead (P_a = 6000): 3000 + 12000 = 15000, bounded
 *     by 3 P_b = 9000; a takes b's chunk at 9000; b reports at 9500,
 *     refused, and asks: a holds the chunk taken back once (2^1), P_a =
 *     6000 (a's last chunk, 3000 items in 6000 µs), P_b = 9500 (b's
 *     refused chunk measured it): 2 min(6000 + 19000, 18000) = 36000 after
 *     9000: 45000;
 *   - U = 100: P_b = 100, a ends at 50 (P_a = 50): 100 + 100 = 200, below
 *     the floor: 1000;
 *   - no hints: nothing known of b (P_b = 0), a ends at 1000 (P_a = 1000,
 *     the mean 1/3 µs per item): min(0 + 2000, 3 1000) = 2000. */
static void seq_judged_dead(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 1), mkdev("b", HS_DEVICE_GPU, 1)};
    hs_split_options o = {.chunk = 3000}, small = {.chunk = 100};
    hs_split_grant g = {0, 0, 0};
    script s;
    (void)state;
    s_start(&s, "fixed", 6000, dev, 2, &o, NULL);
    want_chunk(&s, 1, 0, 0, 3000);
    want_chunk(&s, 0, 0, 3000, 6000);
    report(&s, 0, 3000, 6000, 1500, 1500);
    assert_int_equal(s.sp->next(s.st, 0, 1500, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 6000) < EPS);
    want_chunk(&s, 0, 6000, 0, 3000);
    s_end(&s, NULL);

    s_start(&s, "fixed", 6000, dev, 2, &o, NULL);
    want_chunk(&s, 1, 0, 0, 3000);
    want_chunk(&s, 0, 0, 3000, 6000);
    report(&s, 0, 3000, 6000, 6000, 6000);
    assert_int_equal(s.sp->next(s.st, 0, 6000, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 9000) < EPS);
    want_chunk(&s, 0, 9000, 0, 3000);
    assert_int_equal(s.sp->finished(s.st, 1, 0, 3000, 9500, 9500), 0);
    assert_int_equal(s.sp->next(s.st, 1, 9500, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 45000) < EPS);
    s_end(&s, NULL);

    s_start(&s, "fixed", 200, dev, 2, &small, NULL);
    want_chunk(&s, 1, 0, 0, 100);
    want_chunk(&s, 0, 0, 100, 200);
    report(&s, 0, 100, 200, 50, 50);
    assert_int_equal(s.sp->next(s.st, 0, 50, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 1000) < EPS);
    s_end(&s, NULL);

    dev[0].rate_hint = dev[1].rate_hint = 0;
    s_start(&s, "fixed", 6000, dev, 2, &o, NULL);
    want_chunk(&s, 1, 0, 0, 3000);
    want_chunk(&s, 0, 0, 3000, 6000);
    report(&s, 0, 3000, 6000, 1000, 1000);
    assert_int_equal(s.sp->next(s.st, 0, 1000, &g), HS_SPLIT_WAIT);
    assert_true(fabs(g.wake_us - 2000) < EPS);
    s_end(&s, NULL);
}

/* hdss's fit in time (our addition), widths 1, no hints, adaptive_max 1
 * (the adaptive phase may cover everything): 60000 items.  b ends its first
 * block [128, 256) at t = 1 (128 items/us), then blocks of 256 in 2 us each
 * (the same weight: stable, so the block stays 256); its block j covers
 * [256 j, 256 j + 256) from t = 2 j - 1.  a ends [0, 128) at t = 400:
 * 0.32 items/us.  Then b holds [51200, 51456) until 401, and 8544 items are
 * left, which b ends at 400 + (8544 + 128 * 1) / 128 = 467.75.  a's next
 * block, 256 (128 + the factor), would take it 256 / 0.32 = 800 us, and in
 * 67.75 us it does 21 items, less than the 128 it was measured on: it
 * waits until 467.75.  With hdss_plain=1 it gets the 256. */
static void seq_hdss_fit(void **state)
{
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    script s;
    (void)state;
    for (int plain = 0; plain < 2; plain++) {
        hs_split_options o = {.adaptive_max = 1, .hdss_plain = plain};
        hs_split_grant g = {0, 0, 0};
        s_start(&s, "hdss", 60000, dev, 2, &o, NULL);
        want_chunk(&s, 0, 0, 0, 128);
        want_chunk(&s, 1, 0, 128, 256);
        report(&s, 1, 128, 256, 1, 1);
        for (size_t j = 1; j <= 200; j++) {
            want_chunk(&s, 1, 2.0 * (double)j - 1, 256 * j, 256 * j + 256);
            if (j < 200)
                report(&s, 1, 256 * j, 256 * j + 256, 2, 2.0 * (double)j + 1);
        }
        report(&s, 0, 0, 128, 400, 400);
        if (plain) {
            want_chunk(&s, 0, 400, 51456, 51712);
        } else {
            assert_int_equal(s.sp->next(s.st, 0, 400, &g), HS_SPLIT_WAIT);
            assert_true(fabs(g.wake_us - 467.75) < EPS);
        }
        s_end(&s, NULL);
    }
}

/* The H100 profile of xgemm by rows: a CPU of 15 threads 40x
 * slower than the GPU, whose 135 first rows (16 ms of streaming B each
 * chunk + 0.139 ms a row) take 34.7 ms, longer than the GPU alone
 * (28.8 ms).  The paper's hdss (hdss_plain=7) loses that block to the GPU,
 * which redoes it.  Ours lets the CPU, 1/63 of the GPU by the hints, stand
 * by, and the GPU gets every row in one chunk; without standby
 * (hdss_plain=4) it gives the CPU one width (15 rows, 18.1 ms), which it
 * ends, then waits.  Either way the run is never slower than the GPU alone
 * by more than the GPU's extra chunk overheads (1%). */
static void hdss_h100_xgemm(void **state)
{
    static hs_split_sim s;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_split_sim_profile(&s, "xgemm-rows", &err), HS_OK);
    s.dev[0].overhead_us = 16000;
    s.dev[0].items_per_us = 0.00721;
    s.dev[0].width = 15;
    s.dev[1].overhead_us = 20;
    s.dev[1].items_per_us = 0.4535;
    s.dev[1].width = 33;
    s.dev[1].bandwidth_gbps = 50;
    for (int plain = 0; plain <= 7; plain += plain ? 3 : 4) { /* 0, 4, 7 */
        hs_split_options o = {.hdss_plain = plain};
        hs_split_result r;
        assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("hdss"), &o, NULL, &r, &err),
                         HS_OK);
        print_message("hdss_plain=%d: %.3f ms, gpu alone %.3f ms, cpu %zu rows, %zu refused\n",
                      plain, r.makespan_us / 1000, r.dev[1].alone_us / 1000, r.dev[0].items,
                      r.dev[0].refused);
        assert_int_equal(r.dev[0].refused, plain == 7 ? 1 : 0);
        assert_int_equal(r.dev[0].items, plain == 4 ? 15 : 0);
        if (plain != 7)
            assert_true(r.makespan_us < 1.01 * r.dev[1].alone_us);
        if (plain == 0) /* the GPU alone takes part: one chunk, no adaptive phase */
            assert_int_equal(r.dev[1].chunks, 1);
        hs_split_result_free(&r);
    }
}

/* ------------------------------------------------------------ conformance */

static double uniform(unsigned short x[3], double lo, double hi)
{
    return lo + (hi - lo) * erand48(x);
}

static int pick(unsigned short x[3], int lo, int hi)
{
    int v = lo + (int)(erand48(x) * (hi - lo + 1));
    return v > hi ? hi : v;
}

enum { PLAIN, VARY, FAIL };

static const char *const dev_names[] = {"d0", "d1", "d2", "d3"};

/* A random simulated kernel: 1-4 devices (2-4 for FAIL) with speeds spread
 * over three orders of magnitude, random overheads, links (or host memory),
 * widths, bytes per item and noise; hints hidden a third of the time.  VARY
 * throttles (or speeds up) devices at random times; FAIL makes one device
 * stop answering at a random time within the nominal run. */
static void random_sim(hs_split_sim *s, unsigned short x[3], int variant)
{
    double rate_sum = 0, t_nominal;
    memset(s, 0, sizeof *s);
    s->kernel = "random";
    s->items = erand48(x) < 0.2 ? (size_t)pick(x, 1, 40) : (size_t)pick(x, 41, 20000);
    s->ndevices = pick(x, variant == FAIL ? 2 : 1, 4);
    s->in_bytes = erand48(x) < 0.3 ? 0 : uniform(x, 0, 200);
    s->out_bytes = uniform(x, 0, 100);
    s->noise = erand48(x) < 0.3 ? 0 : uniform(x, 0, 0.5);
    s->seed = (unsigned long)pick(x, 0, 1000000);
    s->no_hints = erand48(x) < 0.33;
    for (int d = 0; d < s->ndevices; d++) {
        hs_split_sim_device *v = &s->dev[d];
        v->name = dev_names[d];
        v->kind = erand48(x) < 0.5 ? HS_DEVICE_CPU : HS_DEVICE_GPU;
        v->overhead_us = uniform(x, 0, 50);
        v->items_per_us = exp(uniform(x, log(0.05), log(50)));
        v->width = (size_t)pick(x, 1, 64);
        v->cores = pick(x, 0, 32);
        if (erand48(x) < 0.5) {
            v->bandwidth_gbps = uniform(x, 0.5, 20);
            v->latency_us = uniform(x, 0, 20);
        }
        rate_sum += v->items_per_us;
    }
    t_nominal = (double)s->items / rate_sum;
    if (variant == VARY)
        for (int d = 0; d < s->ndevices; d++)
            if (erand48(x) < 0.6) {
                s->dev[d].throttle_at_us = uniform(x, 0, t_nominal);
                s->dev[d].throttle = exp(uniform(x, log(0.3), log(5)));
            }
    if (variant == FAIL) {
        int d = pick(x, 0, s->ndevices - 1);
        s->dev[d].fails = 1;
        s->dev[d].fail_at_us = erand48(x) < 0.2 ? 0 : uniform(x, 0, t_nominal);
    }
    s->max_records = 2 * s->items + 1000;
}

/* Every item in exactly one accepted chunk (a bitmap of our own, from the
 * records), and the per-device counts add up. */
static void check_cover(const hs_split_sim *s, const hs_split_result *r, const char *name)
{
    unsigned char *seen = calloc(s->items, 1);
    size_t total = 0;
    assert_non_null(seen);
    assert_false(r->records_truncated);
    for (size_t i = 0; i < r->nrecords; i++) {
        const hs_split_record *c = &r->records[i];
        assert_true(c->begin < c->end && c->end <= s->items);
        if (c->fate != HS_CHUNK_ACCEPTED)
            continue;
        for (size_t k = c->begin; k < c->end; k++) {
            if (seen[k])
                fail_msg("%s: item %zu finished twice", name, k);
            seen[k] = 1;
        }
    }
    for (size_t k = 0; k < s->items; k++)
        if (!seen[k])
            fail_msg("%s: item %zu never finished", name, k);
    for (int d = 0; d < s->ndevices; d++)
        total += r->dev[d].items;
    assert_int_equal(total, s->items);
    assert_true(r->makespan_us > 0 && isfinite(r->makespan_us));
    free(seen);
}

/* Runs every registered splitter on `cases` random sims of one variant;
 * learning splitters run twice, carrying their memory.  Under FAIL, a
 * splitter that does not claim to survive may lose the dead device's items
 * (HS_EINTERNAL, saying so) but must not crash or hang. */
static void conformance(int variant, int cases, unsigned short seed)
{
    unsigned short x[3] = {0x1234, seed, 0x5678};
    static hs_split_sim s;
    for (int c = 0; c < cases; c++) {
        random_sim(&s, x, variant);
        for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
            const hs_splitter *sp = *l;
            hs_split_options o = {0};
            hs_split_memory mem = {0};
            hs_split_result r;
            hs_error err = {0};
            int runs = sp->flags & (HS_SPLIT_LEARNS | HS_SPLIT_TRAINS) ? 2 : 1, rc;
            if (strcmp(sp->name, "coretsar") == 0)
                o.schedule = c % 4; /* every schedule in turn */
            for (int run = 0; run < runs; run++) {
                rc = hs_split_sim_run(&s, sp, &o, &mem, &r, &err);
                if (variant == FAIL && !(sp->flags & HS_SPLIT_SURVIVES_FAILURE) && rc != HS_OK) {
                    assert_int_equal(rc, HS_EINTERNAL);
                    assert_non_null(strstr(err.msg, "stopped answering"));
                    continue;
                }
                if (rc != HS_OK)
                    fail_msg("case %d, %s, run %d: %s", c, sp->name, run, err.msg);
                check_cover(&s, &r, sp->name);
                hs_split_result_free(&r);
            }
        }
    }
}

static void conformance_random_timings(void **state)
{
    (void)state;
    SINGLE_THREADED();
    conformance(PLAIN, 60, 1);
}

static void conformance_variability(void **state)
{
    (void)state;
    SINGLE_THREADED();
    conformance(VARY, 60, 2);
}

static void conformance_dead_device(void **state)
{
    (void)state;
    SINGLE_THREADED();
    conformance(FAIL, 80, 3);
}

/* A dead device in the simulator, the kernel profiles of `split --sim`.
 * `split -p hdss pi --sim --fail gpu0:5`: cpu0 (9.4 blocks/µs) is below 5%
 * of gpu0's speed and stands by; gpu0 takes all N items at 0 and dies at 5
 * ms holding them.  cpu0 takes them over once gpu0 is 3 times late by its
 * hint, P = N / rate hint (12152.7 µs): the makespan is exactly 3 P plus
 * cpu0's time for N items (446.2 ms; it was 1350.8 ms, waiting twice its
 * own time before). */
static void sim_dead_gpu_exact(void **state)
{
    static hs_split_sim s;
    hs_split_device dev[2];
    hs_split_result r;
    hs_error err = {0};
    double p, want;
    (void)state;
    memset(&s, 0, sizeof s);
    assert_int_equal(hs_split_sim_profile(&s, "pi", &err), HS_OK);
    s.dev[1].fails = 1;
    s.dev[1].fail_at_us = 5000;
    hs_split_sim_devices(&s, dev);
    p = (double)s.items / dev[1].rate_hint;
    want = 3 * p + hs_split_sim_chunk_us(&s, 0, 0, s.items, 3 * p);
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("hdss"), NULL, NULL, &r, &err),
                     HS_OK);
    assert_true(fabs(p - 12152.727) < 1e-3);
    assert_true(fabs(r.makespan_us - want) < 1e-9 * want);
    assert_int_equal(r.dev[0].items, s.items);
    assert_int_equal(r.dev[1].lost, 1);
    hs_split_result_free(&r);
}

/* Every splitter that survives a dead device, on each profile (ss only on
 * xgemm-rows: elsewhere millions of one-item chunks), with either device
 * dying at 0, 0.5, 2, 5, 10 or 50 ms: the makespan is at most the
 * survivor's time alone, plus the wait bound for all N items on the dead
 * device, max(1 ms, 3 N / rate hint), plus the survivor's overhead for
 * each of its chunks (alone is one chunk). */
static void sim_dead_device_bound(void **state)
{
    static const char *const kernels[] = {"pi", "va", "xgemm-rows"};
    static const double fail_ms[] = {0, 0.5, 2, 5, 10, 50};
    static hs_split_sim s;
    (void)state;
    SINGLE_THREADED();
    for (size_t k = 0; k < 3; k++)
        for (int dead = 0; dead < 2; dead++)
            for (size_t t = 0; t < sizeof fail_ms / sizeof fail_ms[0]; t++)
                for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
                    hs_split_device dev[2];
                    hs_split_result r;
                    hs_error err = {0};
                    int live = 1 - dead;
                    double bound, limit;
                    if (!((*l)->flags & HS_SPLIT_SURVIVES_FAILURE) ||
                        (strcmp((*l)->name, "ss") == 0 && k < 2))
                        continue;
                    memset(&s, 0, sizeof s);
                    assert_int_equal(hs_split_sim_profile(&s, kernels[k], &err), HS_OK);
                    s.dev[dead].fails = 1;
                    s.dev[dead].fail_at_us = fail_ms[t] * 1000;
                    hs_split_sim_devices(&s, dev);
                    if (hs_split_sim_run(&s, *l, NULL, NULL, &r, &err) != HS_OK)
                        fail_msg("%s on %s, %s dead at %g ms: %s", (*l)->name, kernels[k],
                                 s.dev[dead].name, fail_ms[t], err.msg);
                    bound = 3 * (double)s.items / dev[dead].rate_hint;
                    bound = bound > 1000 ? bound : 1000;
                    limit = hs_split_sim_chunk_us(&s, live, 0, s.items, 0) + bound +
                            (double)r.dev[live].chunks * dev[live].overhead_hint_us;
                    if (r.makespan_us > limit)
                        fail_msg("%s on %s, %s dead at %g ms: makespan %.3f ms over %.3f ms",
                                 (*l)->name, kernels[k], s.dev[dead].name, fail_ms[t],
                                 r.makespan_us / 1000, limit / 1000);
                    hs_split_result_free(&r);
                }
}

/* ------------------------------------------------------------ the driver */

typedef struct drive_user {
    _Atomic unsigned *count;        /* times each item ran */
    _Atomic int calls[4];
    int fail_device;                /* its first run() fails; -1: none */
} drive_user;

static int run_items(void *user, int d, size_t b, size_t e, int aside)
{
    drive_user *u = user;
    volatile double sink = 0;
    (void)aside;
    if (atomic_fetch_add(&u->calls[d], 1) == 0 && d == u->fail_device)
        return HS_EIO;
    for (size_t i = b; i < e; i++) {
        for (int k = 0; k < 50 * (d + 1); k++) /* device d is d+1 times slower */
            sink += (double)k;
        atomic_fetch_add(&u->count[i], 1);
    }
    return 0;
}

/* Every splitter under three real threads: each item runs exactly once in
 * an accepted chunk; with a device whose first chunk never comes back, the
 * splitters that claim to survive still finish everything. */
static void drive_threads(void **state)
{
    enum { N = 6000 };
    hs_split_device dev[3] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0),
                              mkdev("c", HS_DEVICE_GPU, 0)};
    hs_split_kernel k = {.name = "k", .items = N};
    (void)state;
    for (int fail = 0; fail < 2; fail++)
        for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
            const hs_splitter *sp = *l;
            drive_user u = {.fail_device = fail ? 1 : -1};
            hs_split_drive_stats st = {0};
            hs_error err = {0};
            size_t refused = 0;
            int rc;
            if (fail && !(sp->flags & HS_SPLIT_SURVIVES_FAILURE))
                continue;
            u.count = calloc(N, sizeof *u.count);
            assert_non_null(u.count);
            rc = hs_split_drive(sp, &k, dev, 3, NULL, NULL, &(hs_split_drive_ops){.run = run_items},
                                &u, &st, &err);
            if (rc != HS_OK)
                fail_msg("%s (fail %d): %s", sp->name, fail, err.msg);
            for (int d = 0; d < 3; d++)
                refused += st.refused[d];
            /* an item runs once, plus once per refused or lost run: on a
             * loaded machine a preempted thread may be judged dead more than
             * once, so a chunk can be taken back twice */
            for (size_t i = 0; i < N; i++)
                if (u.count[i] < 1 || u.count[i] > 1 + refused + (size_t)fail)
                    fail_msg("%s: item %zu ran %u times", sp->name, i, (unsigned)u.count[i]);
            assert_int_equal(st.items[0] + st.items[1] + st.items[2], N);
            /* device 1 fails if it got a chunk at all (threads start late) */
            assert_int_equal(st.failed[1], fail && u.calls[1] > 0);
            free(u.count);
        }
}

static int drain_sleep(void *user, int d)
{
    drive_user *u = user;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return d == u->fail_device ? HS_EIO : 0;
}

/* The drain runs after a device's last chunk: its time counts in the
 * device's finish and busy times, and a failed one fails the drive. */
static void drive_drain(void **state)
{
    enum { N = 600 };
    hs_split_device dev[2] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_GPU, 0)};
    hs_split_kernel k = {.name = "k", .items = N};
    hs_split_drive_record rec[64];
    (void)state;
    for (int fail = 0; fail < 2; fail++) {
        drive_user u = {.fail_device = fail ? 1 : -1};
        hs_split_drive_stats st = {.records = rec, .max_records = 64};
        hs_error err = {0};
        double chunks_us = 0, last_end = 0;
        int rc;
        u.count = calloc(N, sizeof *u.count);
        assert_non_null(u.count);
        u.calls[1] = 1; /* run() never fails: only the drain may */
        rc = hs_split_drive(hs_splitter_find("static"), &k, dev, 2, NULL, NULL,
                            &(hs_split_drive_ops){.run = run_items, .drain = drain_sleep}, &u,
                            &st, &err);
        free(u.count);
        if (fail) {
            assert_int_equal(rc, HS_EIO);
            assert_non_null(strstr(err.msg, "device b failed"));
            continue;
        }
        assert_int_equal(rc, HS_OK);
        for (size_t i = 0; i < st.nrecords; i++)
            if (rec[i].device == 1) {
                chunks_us += rec[i].end_us - rec[i].start_us;
                last_end = rec[i].end_us > last_end ? rec[i].end_us : last_end;
            }
        assert_true(st.finish_us[1] >= last_end + 20000);
        assert_true(st.busy_us[1] >= chunks_us + 20000);
    }
}

/* A broken splitter for the driver's own checks: one-item chunks in order,
 * item `dup` handed out a second time right after it, and stop after
 * `stop` chunks. */
typedef struct bad_split {
    size_t next, dup, stop, given;
    int again;
} bad_split;

static bad_split bad;

static int bad_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    (void)k, (void)dev, (void)ndev, (void)opt, (void)mem, (void)err;
    bad.next = bad.given = 0;
    bad.again = 0;
    *state = &bad;
    return HS_OK;
}

static hs_split_answer bad_next(void *state, int d, double now, hs_split_grant *g)
{
    bad_split *b = state;
    (void)d, (void)now;
    if (b->given == b->stop)
        return HS_SPLIT_STOP;
    b->given++;
    if (b->next == b->dup + 1 && !b->again) {
        b->again = 1;
        g->begin = b->dup;
    } else {
        g->begin = b->next++;
    }
    g->end = g->begin + 1;
    return HS_SPLIT_CHUNK;
}

static int bad_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    (void)state, (void)d, (void)b, (void)e, (void)us, (void)now;
    return 1;
}

static void bad_fini(void *state)
{
    (void)state;
}

static int run_nothing(void *user, int d, size_t b, size_t e, int aside)
{
    (void)user, (void)d, (void)b, (void)e, (void)aside;
    return 0;
}

static const hs_split_drive_ops nothing = {.run = run_nothing};

/* The driver finds an item accepted twice, among more chunks than it keeps
 * unmerged, and items nobody finished. */
static void drive_checks_splitter(void **state)
{
    static const hs_splitter sp = {.name = "bad", .start = bad_start, .next = bad_next,
                                   .finished = bad_finished, .fini = bad_fini};
    hs_split_device dev[1] = {mkdev("a", HS_DEVICE_CPU, 0)};
    hs_split_kernel k = {.name = "k", .items = 10000};
    hs_error err = {0};
    (void)state;
    bad.dup = 7777;
    bad.stop = 10001; /* every item, one twice */
    assert_int_equal(hs_split_drive(&sp, &k, dev, 1, NULL, NULL, &nothing, NULL, NULL, &err),
                     HS_EINTERNAL);
    assert_non_null(strstr(err.msg, "item 7777 finished twice"));
    bad.dup = 20000; /* never */
    bad.stop = 9000;
    assert_int_equal(hs_split_drive(&sp, &k, dev, 1, NULL, NULL, &nothing, NULL, NULL, &err),
                     HS_EINTERNAL);
    assert_non_null(strstr(err.msg, "1000 of 10000 items unfinished"));
    bad.stop = 10000;
    assert_int_equal(hs_split_drive(&sp, &k, dev, 1, NULL, NULL, &nothing, NULL, NULL, &err),
                     HS_OK);
}

/* Runs that share items.  A scripted splitter: each device is handed the
 * chunks of its list in order and only the chunks marked `keep` are
 * accepted.  The run function writes a tag, 1 + the run's index, into the
 * shared buffer (in place) or into its device's own one (aside); commit
 * copies the own one over the shared one. */
enum { TAG_N = 40, TAG_RUNS = 8 };

typedef struct tag_chunk {
    size_t b, e;
    int keep;
} tag_chunk;

typedef struct tag_split {
    const tag_chunk *list[3];
    size_t n[3], next[3];
} tag_split;

typedef struct tag_user {
    pthread_mutex_t mu;
    int shared[TAG_N], own[3][TAG_N];
    int runs, aside[TAG_RUNS], device[TAG_RUNS];
    size_t commits, commit_b[TAG_RUNS], commit_e[TAG_RUNS];
    int commit_device[TAG_RUNS];
} tag_user;

static tag_split tag_plan;

static int tag_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                     const hs_split_options *opt, const hs_split_memory *mem, void **state,
                     hs_error *err)
{
    (void)k, (void)dev, (void)ndev, (void)opt, (void)mem, (void)err;
    memset(tag_plan.next, 0, sizeof tag_plan.next);
    *state = &tag_plan;
    return HS_OK;
}

static hs_split_answer tag_next(void *state, int d, double now, hs_split_grant *g)
{
    tag_split *t = state;
    (void)now;
    if (t->next[d] == t->n[d])
        return HS_SPLIT_STOP;
    g->begin = t->list[d][t->next[d]].b;
    g->end = t->list[d][t->next[d]++].e;
    return HS_SPLIT_CHUNK;
}

static int tag_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    tag_split *t = state;
    (void)b, (void)e, (void)us, (void)now;
    return t->list[d][t->next[d] - 1].keep;
}

static void tag_fini(void *state)
{
    (void)state;
}

static const hs_splitter tag_splitter = {.name = "tags", .start = tag_start, .next = tag_next,
                                         .finished = tag_finished, .fini = tag_fini};

static int run_tag(void *user, int d, size_t b, size_t e, int aside)
{
    tag_user *u = user;
    int tag, *out = aside ? u->own[d] : u->shared;
    pthread_mutex_lock(&u->mu);
    tag = 1 + u->runs;
    u->aside[u->runs] = aside;
    u->device[u->runs++] = d;
    pthread_mutex_unlock(&u->mu);
    for (size_t i = b; i < e; i++)
        out[i] = tag;
    return 0;
}

static void commit_tag(void *user, int d, size_t b, size_t e)
{
    tag_user *u = user;
    u->commit_device[u->commits] = d;
    u->commit_b[u->commits] = b;
    u->commit_e[u->commits++] = e;
    memcpy(u->shared + b, u->own[d] + b, (e - b) * sizeof *u->shared);
}

static int drive_tags(int ndev, tag_user *u, hs_error *err)
{
    hs_split_device dev[3] = {mkdev("a", HS_DEVICE_CPU, 0), mkdev("b", HS_DEVICE_CPU, 0),
                              mkdev("c", HS_DEVICE_CPU, 0)};
    hs_split_kernel k = {.name = "k", .items = TAG_N};
    hs_split_drive_ops ops = {.run = run_tag, .commit = commit_tag};
    memset(u, 0, sizeof *u);
    pthread_mutex_init(&u->mu, NULL);
    return hs_split_drive(&tag_splitter, &k, dev, ndev, NULL, NULL, &ops, u, NULL, err);
}

/* One device, so the order is known: [0, 10) refused, [10, 20), then
 * [0, 5) and [5, 10) again (aside: handed out before), then [20, 40),
 * which only touches what was handed out (in place).  The shared buffer
 * ends with the accepted runs' tags: 3 and 4 committed, 2 and 5 in place;
 * the refused run's tag 1 is gone. */
static void drive_aside_order(void **state)
{
    static const tag_chunk plan[] = {{0, 10, 0}, {10, 20, 1}, {0, 5, 1}, {5, 10, 1}, {20, 40, 1}};
    static tag_user u;
    hs_error err = {0};
    (void)state;
    tag_plan = (tag_split){.list = {plan}, .n = {5}};
    assert_int_equal(drive_tags(1, &u, &err), HS_OK);
    assert_int_equal(u.runs, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(u.aside[i], i == 2 || i == 3);
    assert_int_equal(u.commits, 2);
    assert_int_equal(u.commit_device[0], 0);
    assert_int_equal(u.commit_b[0], 0);
    assert_int_equal(u.commit_e[0], 5);
    assert_int_equal(u.commit_b[1], 5);
    assert_int_equal(u.commit_e[1], 10);
    for (size_t i = 0; i < TAG_N; i++)
        assert_int_equal(u.shared[i], i < 5 ? 3 : i < 10 ? 4 : i < 20 ? 2 : 5);
    pthread_mutex_destroy(&u.mu);
}

/* Three devices handed every item at once, only device `keep` accepted:
 * whichever is handed the items first runs in place, the others aside,
 * and the shared buffer ends with the kept device's tag, committed only
 * if that device ran aside. */
static void drive_aside_race(void **state)
{
    static const tag_chunk yes[] = {{0, TAG_N, 1}}, no[] = {{0, TAG_N, 0}};
    static tag_user u;
    (void)state;
    for (int keep = 0; keep < 3; keep++)
        for (int round = 0; round < 20; round++) {
            hs_error err = {0};
            int in_place = 0, kept_run = -1;
            for (int d = 0; d < 3; d++) {
                tag_plan.list[d] = d == keep ? yes : no;
                tag_plan.n[d] = 1;
            }
            assert_int_equal(drive_tags(3, &u, &err), HS_OK);
            assert_int_equal(u.runs, 3);
            for (int i = 0; i < 3; i++) {
                in_place += !u.aside[i];
                if (u.device[i] == keep)
                    kept_run = i;
            }
            assert_int_equal(in_place, 1);
            assert_int_equal(u.commits, (size_t)u.aside[kept_run]);
            if (u.commits)
                assert_int_equal(u.commit_device[0], keep);
            for (size_t i = 0; i < TAG_N; i++)
                assert_int_equal(u.shared[i], 1 + kept_run);
            pthread_mutex_destroy(&u.mu);
        }
}

/* -------------------------------------------------- the headline experiment */

/* Best static split of two devices by exhaustive search over the share f of
 * device 1 in 1% steps, one chunk each from time 0; returns its time. */
static double best_static(const hs_split_sim *s, double *f_best)
{
    double best = HUGE_VAL;
    for (int i = 0; i <= 100; i++) {
        size_t n = s->items, cut = (size_t)llround((1 - i / 100.0) * (double)n);
        double t0 = cut ? hs_split_sim_chunk_us(s, 0, 0, cut, 0) : 0;
        double t1 = cut < n ? hs_split_sim_chunk_us(s, 1, cut, n, 0) : 0;
        double t = t0 > t1 ? t0 : t1;
        if (t < best) {
            best = t;
            *f_best = i / 100.0;
        }
    }
    return best;
}

static double static_time(const hs_split_sim *s, double f)
{
    size_t n = s->items, cut = (size_t)llround((1 - f) * (double)n);
    double t0 = cut ? hs_split_sim_chunk_us(s, 0, 0, cut, 0) : 0;
    double t1 = cut < n ? hs_split_sim_chunk_us(s, 1, cut, n, 0) : 0;
    return t0 > t1 ? t0 : t1;
}

/* A CPU (5 us per chunk, 1 item/us, host memory) and a GPU (20 us per chunk,
 * 2 items/us, 4 kB in and out per item over 12 GB/s + 10 us, so about 0.86
 * items/us with transfers): 460000 items, about 250 ms at the best static
 * split.  One device computes 3x slower from t = 40 ms on.  The static split
 * is the best one for the devices as they were trained (nominal speeds): it
 * cannot know the slowdown is coming.  hdss and boyer must beat it in both
 * cases; every splitter's time is printed, with the static split that an
 * oracle knowing the slowdown would have picked. */
static void headline_throttle(void **state)
{
    static hs_split_sim nominal, s;
    (void)state;
    memset(&nominal, 0, sizeof nominal);
    nominal.kernel = "headline";
    nominal.items = 460000;
    nominal.in_bytes = nominal.out_bytes = 4000;
    nominal.ndevices = 2;
    nominal.dev[0] = (hs_split_sim_device){.name = "cpu0", .kind = HS_DEVICE_CPU,
                                           .overhead_us = 5, .items_per_us = 1, .width = 16,
                                           .cores = 16};
    nominal.dev[1] = (hs_split_sim_device){.name = "gpu0", .kind = HS_DEVICE_GPU,
                                           .overhead_us = 20, .items_per_us = 2, .width = 32,
                                           .cores = 80, .bandwidth_gbps = 12,
                                           .latency_us = 10};
    for (int slow = 0; slow < 2; slow++) {
        double f, fo, t_nominal = best_static(&nominal, &f), t_static, t_oracle;
        s = nominal;
        s.dev[slow].throttle_at_us = 40000;
        s.dev[slow].throttle = 3;
        t_static = static_time(&s, f);
        t_oracle = best_static(&s, &fo);
        print_message("%s 3x slower from 40 ms: best static split (gpu share %.2f, %.1f ms "
                      "nominal) takes %.1f ms; oracle split %.2f: %.1f ms\n",
                      s.dev[slow].name, f, t_nominal / 1000, t_static / 1000, fo,
                      t_oracle / 1000);
        for (const hs_splitter *const *l = hs_splitter_list(); *l; l++) {
            hs_split_memory mem = {0};
            hs_split_result r;
            hs_error err = {0};
            if (strcmp((*l)->name, "ss") == 0)
                continue; /* 460000 one-item chunks: slow and pointless here */
            if ((*l)->flags & HS_SPLIT_TRAINS) { /* trained on the nominal devices */
                assert_int_equal(hs_split_sim_run(&nominal, *l, NULL, &mem, &r, &err), HS_OK);
                hs_split_result_free(&r);
            }
            assert_int_equal(hs_split_sim_run(&s, *l, NULL, &mem, &r, &err), HS_OK);
            print_message("  %-10s %7.1f ms  %+6.1f%% vs static  %+6.1f%% vs oracle\n",
                          (*l)->name, r.makespan_us / 1000,
                          100 * (r.makespan_us / t_static - 1),
                          100 * (r.makespan_us / t_oracle - 1));
            if (strcmp((*l)->name, "hdss") == 0 || strcmp((*l)->name, "boyer") == 0)
                assert_true(r.makespan_us < t_static);
            hs_split_result_free(&r);
        }
    }
}

/* ------------------------------------------------------------- plot, CLI */

static void plot_or_not_built(void **state)
{
    static hs_split_sim s;
    hs_split_result r;
    hs_error err = {0};
    char path[] = "/tmp/hs_split_plotXXXXXX.png";
    int fd = mkstemps(path, 4);
    FILE *f;
    long size;
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(hs_split_sim_profile(&s, "va", &err), HS_OK);
    s.items = 100000;
    s.max_records = 1000;
    assert_int_equal(hs_split_sim_run(&s, hs_splitter_find("hdss"), NULL, NULL, &r, &err),
                     HS_OK);
    assert_int_equal(hs_split_plot(&s, &r, "hdss", "/tmp/x.pdf", &err),
                     HS_HAVE_CAIRO ? HS_EUSAGE : HS_ENOTBUILT);
#if HS_HAVE_CAIRO
    assert_int_equal(hs_split_plot(&s, &r, "hdss", path, &err), HS_OK);
    f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
    assert_true(size > 1000);
#else
    (void)f;
    (void)size;
    assert_int_equal(hs_split_plot(&s, &r, "hdss", path, &err), HS_ENOTBUILT);
#endif
    unlink(path);
    hs_split_result_free(&r);
}

static void command_line(void **state)
{
    (void)state;
    SINGLE_THREADED();
    if (!getenv("HETSCHED"))
        skip();
    assert_int_equal(cli("split -p help"), 0);
    assert_int_equal(cli("split -o help"), 0);
    assert_int_equal(cli("split --kernels"), 0);
    assert_int_equal(cli("split --help"), 0);
    assert_int_equal(cli("split -p hdss va --sim --items 50000"), 0);
    assert_int_equal(cli("split -p boyer xgemm-rows --sim --throttle gpu0:40:3 --runs 2"), 0);
    assert_int_equal(cli("split -p hdss pi --sim --items 100000 --fail gpu0:1"), 0);
    assert_int_equal(cli("split -p qilin va --sim --items 10000 --noise 0.2 --seed 7"), 0);
    assert_int_equal(cli("split -p gss va --sim --items 1000 "
                         "--devices cpu0:1:10,cpu1:2:20:4,gpu0:5:100:32:10:5"),
                     0);
    assert_int_equal(cli("split -p static va --sim --fail gpu0:1"), 2);
    assert_int_equal(cli("split -p nope va --sim"), 2);
    assert_int_equal(cli("split -p hdss nope --sim"), 2);
    /* without --sim a split runs for real (tests/test_split_real.c): the
     * simulator's own options are refused there */
    assert_int_equal(cli("split -p hdss va --noise 0.1"), 2);
    assert_int_equal(cli("split va --sim"), 2);
    assert_int_equal(cli("split -p hdss va --sim --items 0"), 2);
    assert_int_equal(cli("split -p hdss va --sim --throttle gpu9:1:3"), 2);
    assert_int_equal(cli("split -p hdss va --sim --throttle gpu0:1:0"), 2);
    assert_int_equal(cli("split -p hdss va --sim --devices cpu0:1"), 2);
    assert_int_equal(cli("split -p hdss va --sim -o beta=7"), 2);
    assert_int_equal(cli("split -p hdss va --sim --noise 2"), 2);
}

/* Under -fsanitize=address, LeakSanitizer reads this: fontconfig (which
 * cairo loads fonts through for the plot) keeps its parsed configuration for
 * the life of the process (as in test_export.c). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_and_options),
        cmocka_unit_test(bad_input_refused),
        cmocka_unit_test(chunk_time_model),
        cmocka_unit_test(best_static_split),
        cmocka_unit_test(sim_figures),
        cmocka_unit_test(seq_static),
        cmocka_unit_test(seq_gss),
        cmocka_unit_test(seq_fss),
        cmocka_unit_test(seq_tss),
        cmocka_unit_test(seq_boyer),
        cmocka_unit_test(seq_boyer_dead),
        cmocka_unit_test(seq_kass),
        cmocka_unit_test(kass_rule3),
        cmocka_unit_test(seq_coretsar),
        cmocka_unit_test(seq_qilin),
        cmocka_unit_test(seq_hdss_start),
        cmocka_unit_test(seq_hdss_even_start),
        cmocka_unit_test(seq_hdss_fit),
        cmocka_unit_test(seq_hdss_standby),
        cmocka_unit_test(seq_judged_dead),
        cmocka_unit_test(hdss_h100_xgemm),
        cmocka_unit_test(conformance_random_timings),
        cmocka_unit_test(conformance_variability),
        cmocka_unit_test(conformance_dead_device),
        cmocka_unit_test(sim_dead_gpu_exact),
        cmocka_unit_test(sim_dead_device_bound),
        cmocka_unit_test(drive_threads),
        cmocka_unit_test(drive_drain),
        cmocka_unit_test(drive_checks_splitter),
        cmocka_unit_test(drive_aside_order),
        cmocka_unit_test(drive_aside_race),
        cmocka_unit_test(headline_throttle),
        cmocka_unit_test(plot_or_not_built),
        cmocka_unit_test(command_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
