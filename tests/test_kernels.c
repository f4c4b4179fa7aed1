/* Tests of the real kernels on the CPU (workloads/kernels/): the registry
 * and param checks, hand-computed results of every type, every type against
 * its reference, item ranges and threads against the whole run byte for
 * byte, checks that catch a wrong entry, and two graphs made of the types
 * (a tiled Cholesky, conjugate-gradient iterations). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <lapacke.h>

#include "hs_config.h"
#include "tests/kernels_fixture.h"
#include "workloads/kernels/kernel_int.h"

/* ---------------------------------------------------------------- registry */

static void registry_lists_every_type(void **state)
{
    static const char *const names[] = {"va",   "increment", "scale", "matadd", "gemm",
                                        "gemv", "dot",       "axpy",  "potrf",  "trsm",
                                        "syrk", "pi",        "fblock"};
    char *text = NULL;
    size_t len = 0, count = 0;
    FILE *f = open_memstream(&text, &len);
    (void)state;
    hs_ktype_help(f);
    fclose(f);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const hs_ktype *t = hs_ktype_find(names[i]);
        assert_non_null(t);
        assert_string_equal(t->name, names[i]);
        assert_non_null(strstr(text, names[i]));
        assert_non_null(t->description);
        assert_non_null(t->tolerance_doc);
        assert_int_equal(t->cuda, HS_HAVE_CUDA);
    }
    while (hs_ktypes[count])
        count++;
    assert_int_equal(count, sizeof names / sizeof names[0]);
    assert_null(hs_ktype_find("nope"));
    assert_null(hs_ktype_find(NULL));
    free(text);
}

static void expect_input(const char *type, const char *spec, const char *msg)
{
    hs_kconf c;
    hs_error err = {0};
    assert_int_equal(conf_from(&c, type, spec, &err), HS_EINPUT);
    assert_string_equal(err.msg, msg);
}

static void params_refused(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    hs_param nan_param = {(char *)"n", NAN};
    (void)state;
    assert_int_equal(conf_from(&c, "blas", "n=4", &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "unknown kernel type 'blas' (known: va, increment,"));
    expect_input("gemm", "n=4,q=1",
                 "gemm: unknown param 'q' (known: n, m, k, alpha, beta, transb)");
    expect_input("gemm", "m=4", "gemm: param 'n' (columns of C) is required");
    expect_input("gemm", "n=4,n=5", "gemm: param 'n' given twice");
    expect_input("gemm", "n=4.5", "gemm: param 'n' = 4.5 must be a whole number");
    expect_input("gemm", "n=0", "gemm: param 'n' = 0 is out of range [1, 65536]");
    expect_input("axpy", "n=3,ratio=3", "axpy: param 'ratio' = 3 is out of range [0, 2]");
    expect_input("fblock", "n=2000", "fblock: param 'n' = 2000 is out of range [1, 1024]");
    expect_input("fblock", "n=9,parts=2", "fblock: parts = 2 does not divide n = 9");
    assert_int_equal(hs_kconf_init(&c, "va", &nan_param, 1, &err), HS_EINPUT);
    assert_string_equal(err.msg, "va: param 'n' must be a finite number");
}

/* Sizes, modes and defaults follow from the params. */
static void params_give_buffers(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    (void)state;
    /* gemm n=3 m=2 k=5: a 2x5, b 5x3, c 2x3 floats; 2 rows to split */
    assert_int_equal(conf_from(&c, "gemm", "n=3,m=2,k=5", &err), 0);
    assert_int_equal(c.nbufs, 3);
    assert_int_equal(c.bufs[0].bytes, 40);
    assert_int_equal(c.bufs[1].bytes, 60);
    assert_int_equal(c.bufs[2].bytes, 24);
    assert_int_equal(c.bufs[2].mode, HS_KWRITE);
    assert_int_equal(c.items, 2);
    assert_true(c.splittable);
    assert_float_equal(c.flops, 2.0 * 2 * 3 * 5, 0);
    assert_int_equal(hs_kconf_bytes(&c, HS_KREAD), 100);
    assert_int_equal(hs_kconf_bytes(&c, HS_KWRITE), 24);
    /* m and k default to n; beta != 0 makes c read as well */
    assert_int_equal(conf_from(&c, "gemm", "n=4,beta=1", &err), 0);
    assert_float_equal(hs_kconf_param(&c, "m"), 4, 0);
    assert_float_equal(hs_kconf_param(&c, "k"), 4, 0);
    assert_float_equal(hs_kconf_param(&c, "alpha"), 1, 0);
    assert_int_equal(c.bufs[2].mode, HS_KRW);
    assert_int_equal(hs_kconf_bytes(&c, HS_KREAD), 3 * 64);
    /* pi hits=600: ceil(600 / 256) = 3 blocks of one uint32 each */
    assert_int_equal(conf_from(&c, "pi", "hits=600", &err), 0);
    assert_int_equal(c.items, 3);
    assert_int_equal(c.bufs[0].bytes, 12);
    /* axpy with a ratio reads two more one-float buffers */
    assert_int_equal(conf_from(&c, "axpy", "n=8,ratio=1", &err), 0);
    assert_int_equal(c.nbufs, 4);
    assert_int_equal(hs_kconf_bytes(&c, HS_KREAD), 8 * 4 * 2 + 8);
    /* potrf, dot, syrk are one indivisible item */
    assert_int_equal(conf_from(&c, "potrf", "n=8", &err), 0);
    assert_int_equal(c.items, 1);
    assert_false(c.splittable);
}

/* ------------------------------------------------------ hand-checked values */

/* Runs the whole of `type` on the given buffers, then checks it. */
static void run_whole(const char *type, const char *spec, void **bufs)
{
    hs_kconf c;
    hs_error err = {0};
    hbufs before;
    assert_int_equal(conf_from(&c, type, spec, &err), 0);
    hbufs_alloc(&c, &before);
    for (int i = 0; i < c.nbufs; i++)
        memcpy(before.b[i], bufs[i], c.bufs[i].bytes);
    assert_int_equal(hs_krun_cpu(&c, bufs, 0, c.items, 1, &err), 0);
    if (hs_kcheck(&c, (const void *const *)before.b, (const void *const *)bufs, NULL, &err))
        fail_msg("%s", err.msg);
    hbufs_free(&c, &before);
}

static void elementwise_values(void **state)
{
    float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, c[3];
    float inc[2] = {0, 1.5f}, s_out[2], s_in[2] = {1, -3};
    float x[2] = {1, 2}, y[2] = {10, 20}, num = 1, den = 4;
    float ma[6] = {1, 2, 3, 4, 5, 6}, mb[6] = {6, 5, 4, 3, 2, 1}, mc[6];
    (void)state;
    run_whole("va", "n=3", (void *[]){a, b, c});
    assert_true(c[0] == 11 && c[1] == 22 && c[2] == 33);
    run_whole("increment", "n=2", (void *[]){inc});
    assert_true(inc[0] == 1 && inc[1] == 2.5f);
    run_whole("scale", "n=2,s=2", (void *[]){s_in, s_out});
    assert_true(s_out[0] == 2 && s_out[1] == -6);
    /* every entry of a + b is 7 */
    run_whole("matadd", "n=3,m=2", (void *[]){ma, mb, mc});
    for (int i = 0; i < 6; i++)
        assert_true(mc[i] == 7);
    /* y = 2x + y = {12, 24} */
    run_whole("axpy", "n=2,alpha=2", (void *[]){x, y});
    assert_true(y[0] == 12 && y[1] == 24);
    /* b = beta * num/den = 0.25: y = 2x + y/4 = {2 + 3, 4 + 6} */
    run_whole("axpy", "n=2,alpha=2,ratio=2", (void *[]){x, y, &num, &den});
    assert_true(y[0] == 5 && y[1] == 10);
}

static void blas_values(void **state)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4], c1[4] = {1, 1, 1, 1};
    float x[2] = {1, 1}, y[2], u[3] = {1, 2, 3}, v[3] = {4, 5, 6}, s;
    (void)state;
    /* [1 2; 3 4][5 6; 7 8] = [19 22; 43 50] */
    run_whole("gemm", "n=2", (void *[]){a, b, c});
    assert_true(c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50);
    /* + C with C all ones */
    run_whole("gemm", "n=2,beta=1", (void *[]){a, b, c1});
    assert_true(c1[0] == 20 && c1[1] == 23 && c1[2] == 44 && c1[3] == 51);
    /* A B^T = [1*5+2*6 1*7+2*8; 3*5+4*6 3*7+4*8] = [17 23; 39 53] */
    run_whole("gemm", "n=2,transb=1", (void *[]){a, b, c});
    assert_true(c[0] == 17 && c[1] == 23 && c[2] == 39 && c[3] == 53);
    /* [1 2; 3 4] [1 1]^T = [3 7] */
    run_whole("gemv", "n=2", (void *[]){a, x, y});
    assert_true(y[0] == 3 && y[1] == 7);
    /* 4 + 10 + 18 */
    run_whole("dot", "n=3", (void *[]){u, v, &s});
    assert_true(s == 32);
}

static void cholesky_values(void **state)
{
    /* [4 2; 2 5] = L L^T with L = [2 0; 1 2] (2*2 = 4, 2*1 = 2, 1 + 2*2 = 5);
     * the upper entry 99 is never read nor written */
    float a[4] = {4, 99, 2, 5};
    /* X L^T = B with L = [2 0; 1 2] (upper noise 7), B = [4 6]:
     * 2 x0 = 4, x0 + 2 x1 = 6  =>  X = [2 2] */
    float l[4] = {2, 7, 1, 2}, xb[2] = {4, 6};
    /* C -= A A^T with A = [1; 2]: [10 .; 10 10] - [1 .; 2 4] = [9 .; 8 6] */
    float sa[2] = {1, 2}, sc[4] = {10, 99, 10, 10};
    (void)state;
    run_whole("potrf", "n=2", (void *[]){a});
    assert_true(a[0] == 2 && a[1] == 99 && a[2] == 1 && a[3] == 2);
    run_whole("trsm", "n=2,m=1", (void *[]){l, xb});
    assert_true(xb[0] == 2 && xb[1] == 2);
    run_whole("syrk", "n=2,k=1", (void *[]){sa, sc});
    assert_true(sc[0] == 9 && sc[1] == 99 && sc[2] == 8 && sc[3] == 6);
}

static void fblock_values(void **state)
{
    float a[8], b[8];
    (void)state;
    /* n = 2, a[i][j][k] = 4i + 2j + k.  On a 2-cube each axis has one real
     * neighbour (the coordinate flipped) and one clamped to the centre, so
     * b = (4 centre + the three flipped) / 7:
     * b[0][0][0] = (0 + 4 + 2 + 1) / 7 = 1, b[1][1][1] = (28 + 3 + 5 + 6) / 7 = 6,
     * b[1][0][0] = (16 + 0 + 6 + 5) / 7 = 27 / 7 */
    for (int i = 0; i < 8; i++)
        a[i] = (float)i;
    run_whole("fblock", "n=2", (void *[]){a, b});
    assert_true(b[0] == 1 && b[7] == 6);
    assert_true(b[4] == 27.0f / 7.0f);
    /* parts = 2: a block is the single plane a = {0 1; 2 3}, so both i
     * neighbours are the centre: b[0][0] = (0 + 0 + 0 + 0 + 2 + 0 + 1) / 7,
     * b[1][1] = (3 + 3 + 3 + 1 + 3 + 2 + 3) / 7 = 18 / 7 */
    run_whole("fblock", "n=2,parts=2", (void *[]){a, b});
    assert_true(b[0] == 3.0f / 7.0f && b[3] == 18.0f / 7.0f);
}

/* Known answers of Philox4x32-10 (Random123's kat_vectors) and the hit test
 * at the disc's edge. */
static void pi_generator(void **state)
{
    static const uint32_t ones[4] = {~0u, ~0u, ~0u, ~0u}, kones[2] = {~0u, ~0u};
    static const uint32_t pctr[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    static const uint32_t pkey[2] = {0xa4093822, 0x299f31d0};
    uint32_t r[4];
    (void)state;
    hs__kphilox(0, 0, r);
    assert_true(r[0] == 0x6627e8d5 && r[1] == 0xe169c58d && r[2] == 0xbc57ac4c &&
                r[3] == 0x9b00dbd8);
    hs__kphilox4x32(ones, kones, r);
    assert_true(r[0] == 0x408f276d && r[1] == 0x41c83b0e && r[2] == 0xa20bc7c6 &&
                r[3] == 0x6d5451fd);
    hs__kphilox4x32(pctr, pkey, r);
    assert_true(r[0] == 0xd16cfe09 && r[1] == 0x94fdcceb && r[2] == 0x5001e420 &&
                r[3] == 0x24126ea1);
    /* u = x >> 1: 2 * 1518500249^2 < 2^62 <= 2 * 1518500250^2 */
    assert_true(hs__kpi_hit(0, 0));
    assert_true(hs__kpi_hit(0xffffffffu, 0));
    assert_true(hs__kpi_hit(2u * 1518500249u, 2u * 1518500249u + 1));
    assert_false(hs__kpi_hit(2u * 1518500250u, 2u * 1518500250u));
    assert_false(hs__kpi_hit(0xffffffffu, 0xffffffffu));
}

static void pi_statistics(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    hs_kcheck_result res;
    hbufs x, y;
    uint64_t hits = 0;
    (void)state;
    assert_int_equal(conf_from(&c, "pi", "hits=100000", &err), 0);
    c.seed = 42;
    hbufs_alloc(&c, &x);
    hbufs_alloc(&c, &y);
    assert_int_equal(hs_krun_cpu(&c, x.b, 0, c.items, 1, &err), 0);
    assert_int_equal(hs_krun_cpu(&c, y.b, 0, c.items, 2, &err), 0);
    assert_true(hbufs_same(&c, &x, &y)); /* reproducible for a seed */
    for (size_t b = 0; b < c.items; b++) {
        uint32_t cnt = ((uint32_t *)x.b[0])[b];
        /* 100000 = 390 * 256 + 160: the last block has 160 samples */
        assert_true(cnt <= (b + 1 < c.items ? 256u : 160u));
        hits += cnt;
    }
    assert_int_equal(hs_kcheck(&c, NULL, (const void *const *)x.b, &res, &err), 0);
    /* sigma of 4 hits / n is 4 sqrt(p (1 - p) / n) = 0.0052 for n = 1e5 */
    assert_true(fabs(4.0 * (double)hits / 1e5 - M_PI) <= 6 * 0.0052);
    assert_true(res.err <= 6);
    /* another seed, other counts */
    c.seed = 43;
    assert_int_equal(hs_krun_cpu(&c, y.b, 0, c.items, 1, &err), 0);
    assert_false(hbufs_same(&c, &x, &y));
    hbufs_free(&c, &x);
    hbufs_free(&c, &y);
}

/* ------------------------------------------------- every type, every case */

/* Every case: the whole run passes its check; two halves, a 1 / rest split
 * and a threaded run give the same bytes as the whole run; one wrong output
 * entry fails the check. */
static void every_type_whole_and_split(void **state)
{
    (void)state;
    for (size_t t = 0; t < NCASES; t++) {
        const char *type = kernel_cases[t][0], *spec = kernel_cases[t][1];
        hs_kconf c;
        hs_error err = {0};
        hs_kcheck_result res;
        hbufs before, whole, part;
        int out = -1;
        assert_int_equal(conf_from(&c, type, spec, &err), 0);
        c.seed = 7 + t;
        hbufs_alloc(&c, &before);
        hbufs_alloc(&c, &whole);
        hbufs_alloc(&c, &part);
        hs_kfill(&c, before.b);
        hbufs_copy(&c, &whole, &before);
        assert_int_equal(hs_krun_cpu(&c, whole.b, 0, c.items, 1, &err), 0);
        if (hs_kcheck(&c, (const void *const *)before.b, (const void *const *)whole.b, &res,
                      &err))
            fail_msg("%s %s: %s", type, spec, err.msg);
        assert_true(res.checked > 0);
        assert_int_equal(res.bad, 0);
        if (c.splittable) {
            size_t cuts[2] = {c.items / 2, 1};
            for (int k = 0; k < 2; k++) {
                hbufs_copy(&c, &part, &before);
                assert_int_equal(hs_krun_cpu(&c, part.b, cuts[k], c.items, 1, &err), 0);
                assert_int_equal(hs_krun_cpu(&c, part.b, 0, cuts[k], 1, &err), 0);
                if (!(c.type->blas ? hbufs_close(&c, &part, &whole)
                                   : hbufs_same(&c, &part, &whole)))
                    fail_msg("%s %s: split at %zu differs from the whole run", type, spec,
                             cuts[k]);
            }
        }
        hbufs_copy(&c, &part, &before);
        assert_int_equal(hs_krun_cpu(&c, part.b, 0, c.items, 2, &err), 0);
        if (!(c.type->blas ? hbufs_close(&c, &part, &whole) : hbufs_same(&c, &part, &whole)))
            fail_msg("%s %s: two threads differ from one", type, spec);
        /* one wrong entry in the middle of the (last) written buffer */
        for (int i = 0; i < c.nbufs; i++)
            if (c.bufs[i].mode & HS_KWRITE)
                out = i;
        if (c.bufs[out].bytes >= 4) {
            size_t mid = c.bufs[out].bytes / 8;
            if (strcmp(type, "pi") == 0)
                ((uint32_t *)whole.b[out])[mid] += 1;
            else
                ((float *)whole.b[out])[mid] += 1.0f;
            assert_int_equal(hs_kcheck(&c, (const void *const *)before.b,
                                       (const void *const *)whole.b, &res, &err),
                             HS_ECHECK);
            assert_non_null(strstr(err.msg, type));
            assert_true(res.bad >= 1);
            assert_false(hbufs_close(&c, &part, &whole)); /* 1 is beyond rounding */
        }
        hbufs_free(&c, &before);
        hbufs_free(&c, &whole);
        hbufs_free(&c, &part);
    }
}

/* A vector long enough to be split over threads: the same bytes. */
static void threads_split_elementwise(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    hbufs one, four;
    (void)state;
    assert_int_equal(conf_from(&c, "va", "n=300001", &err), 0);
    hbufs_alloc(&c, &one);
    hbufs_alloc(&c, &four);
    hs_kfill(&c, one.b);
    hbufs_copy(&c, &four, &one);
    assert_int_equal(hs_krun_cpu(&c, one.b, 0, c.items, 1, &err), 0);
    assert_int_equal(hs_krun_cpu(&c, four.b, 0, c.items, 4, &err), 0);
    assert_true(hbufs_same(&c, &one, &four));
    hbufs_free(&c, &one);
    hbufs_free(&c, &four);
}

/* Teams of helper threads under callers at once: four callers, each
 * running pi on 8 threads 200 times (8 parts of 4 blocks), every time from
 * a buffer of sentinels, give every block's count of a one-thread run: no
 * part is lost or run on another caller's buffers, no caller waits
 * forever. */
typedef struct pi_caller {
    const hs_kconf *c;
    const uint32_t *want;
    int bad;
} pi_caller;

static void *pi_rounds(void *arg)
{
    pi_caller *pc = arg;
    uint32_t counts[32];
    void *bufs[1] = {counts};
    hs_error err = {0};
    for (int r = 0; r < 200; r++) {
        memset(counts, 0xff, sizeof counts);
        if (hs_krun_cpu(pc->c, bufs, 0, pc->c->items, 8, &err) != 0 ||
            memcmp(counts, pc->want, sizeof counts) != 0)
            pc->bad++;
    }
    return NULL;
}

static void threads_take_parts(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    uint32_t want[32];
    void *bufs[1] = {want};
    pthread_t tid[4];
    pi_caller pc[4];
    (void)state;
    assert_int_equal(conf_from(&c, "pi", "hits=8192", &err), 0);
    assert_int_equal(c.items, 32);
    assert_int_equal(hs_krun_cpu(&c, bufs, 0, c.items, 1, &err), 0);
    for (int i = 0; i < 4; i++) {
        pc[i] = (pi_caller){.c = &c, .want = want};
        assert_int_equal(pthread_create(&tid[i], NULL, pi_rounds, &pc[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(tid[i], NULL), 0);
        assert_int_equal(pc[i].bad, 0);
    }
}

/* A thread held up does not hold up its kernel's other items: on two
 * threads, the first chunk to start waits (up to 10 s) until the other
 * thread has run 3/4 of the 64 items, which it can do only by taking
 * further chunks (with one equal part a thread it would run half).  Every
 * item runs once, in 8 chunks (4 a thread). */
static atomic_int held_calls, held_timed_out;
static atomic_size_t held_others;

static int held_up_run(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                       hs_error *err)
{
    unsigned char *ran = bufs[0];
    (void)err;
    if (atomic_fetch_add(&held_calls, 1) == 0) {
        const struct timespec ms = {0, 1000000};
        int waited = 0;
        while (atomic_load(&held_others) < c->items * 3 / 4 && waited++ < 10000)
            nanosleep(&ms, NULL);
        atomic_store(&held_timed_out, waited > 10000);
    } else {
        atomic_fetch_add(&held_others, end - begin);
    }
    for (size_t i = begin; i < end; i++)
        ran[i]++;
    return 0;
}

static void threads_take_chunks(void **state)
{
    static const hs_ktype held_up = {.name = "held-up", .grain = 1, .run_cpu = held_up_run};
    hs_kconf c = {.type = &held_up, .items = 64, .splittable = 1};
    unsigned char ran[64] = {0};
    void *bufs[1] = {ran};
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_krun_cpu(&c, bufs, 0, c.items, 2, &err), 0);
    assert_int_equal(atomic_load(&held_timed_out), 0);
    assert_int_equal(atomic_load(&held_calls), 8);
    for (size_t i = 0; i < c.items; i++)
        assert_int_equal(ran[i], 1);
}

static void ranges_refused(void **state)
{
    hs_kconf c;
    hs_error err = {0};
    hbufs h;
    (void)state;
    assert_int_equal(conf_from(&c, "va", "n=10", &err), 0);
    hbufs_alloc(&c, &h);
    assert_int_equal(hs_krun_cpu(&c, h.b, 5, 4, 1, &err), HS_EINPUT);
    assert_string_equal(err.msg, "va: item range [5, 4) is not within [0, 10)");
    assert_int_equal(hs_krun_cpu(&c, h.b, 0, 11, 1, &err), HS_EINPUT);
    assert_int_equal(hs_krun_cpu(&c, h.b, 0, 10, -1, &err), HS_EINPUT);
    assert_int_equal(hs_krun_cpu(&c, h.b, 3, 3, 1, &err), 0); /* empty: nothing */
    hbufs_free(&c, &h);
    assert_int_equal(conf_from(&c, "dot", "n=10", &err), 0);
    hbufs_alloc(&c, &h);
    assert_int_equal(hs_krun_cpu(&c, h.b, 0, 0, 1, &err), HS_EINPUT);
    assert_string_equal(err.msg, "dot: is not splittable; run its whole range [0, 1)");
    hbufs_free(&c, &h);
}

static void potrf_refuses_indefinite(void **state)
{
    /* [1 2; 2 1] has eigenvalues 3 and -1 */
    float a[4] = {1, 2, 2, 1};
    hs_kconf c;
    hs_error err = {0};
    (void)state;
    assert_int_equal(conf_from(&c, "potrf", "n=2", &err), 0);
    assert_int_equal(hs_krun_cpu(&c, (void *[]){a}, 0, 1, 1, &err), HS_EINPUT);
    assert_string_equal(err.msg, "potrf: tile is not positive definite (leading minor 2)");
}

static void cuda_not_built(void **state)
{
    hs_kcuda *ctx = (hs_kcuda *)1;
    hs_error err = {0};
    (void)state;
    if (HS_HAVE_CUDA)
        skip();
    assert_int_equal(hs_kcuda_new(0, &ctx, &err), HS_ENOTBUILT);
    assert_null(ctx);
}

/* --------------------------------------------------------------- as graphs */

/* Sets tile (ti, tj) of an N x N row-major matrix from / into a t x t tile. */
static void tile_io(float *m, size_t nt, size_t t, size_t ti, size_t tj, float *tile, int load)
{
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            float *e = &m[(ti * t + i) * nt * t + tj * t + j];
            if (load)
                tile[i * t + j] = *e;
            else
                *e = tile[i * t + j];
        }
}

/* Filling by pieces writes what the whole fill writes, whatever the number
 * of pieces (more than the values, too), and leaves a NULL (fed) buffer;
 * a type whose inputs are made otherwise (potrf's positive definite
 * matrix) does not fill by pieces. */
static void fill_by_pieces(void **state)
{
    enum { N = 7 }; /* gemm n=7, k=3: a 7 x 3, b 3 x 7, c 7 x 7 */
    float whole[2][21], piece[2][21];
    hs_kconf c, spd;
    hs_error err = {0};
    (void)state;
    assert_int_equal(conf_from(&c, "gemm", "n=7,k=3,beta=1", &err), 0);
    assert_int_equal(conf_from(&spd, "potrf", "n=4", &err), 0);
    assert_true(hs_kfill_by_pieces(&c));
    assert_false(hs_kfill_by_pieces(&spd));
    hs_kfill(&c, (void *[]){whole[0], whole[1], NULL});
    for (size_t n = 1; n <= 30; n += n < 4 ? 1 : 13) { /* 1, 2, 3, 4, 17, 30 pieces */
        memset(piece, 0, sizeof piece);
        for (size_t k = 0; k < n; k++)
            hs_kfill_piece(&c, (void *[]){piece[0], NULL, NULL}, k, n);
        assert_memory_equal(piece[0], whole[0], sizeof whole[0]);
        for (int i = 0; i < 21; i++)
            assert_true(piece[1][i] == 0.0f); /* NULL: left to its feeder */
    }
}

/* A 3 x 3 tiled Cholesky made of potrf, trsm, syrk and gemm tasks (the
 * right-looking order of cholesky.c's comment) equals LAPACKE's factor of
 * the whole matrix. */
static void tiled_cholesky_graph(void **state)
{
    enum { T = 5, NT = 3, N = T * NT };
    float full[N * N], ref[N * N], tiles[NT][NT][T * T];
    hs_kconf cp, ct, cs, cg, cfull;
    hs_error err = {0};
    (void)state;
    assert_int_equal(conf_from(&cfull, "potrf", "n=15", &err), 0);
    hs_kfill(&cfull, (void *[]){full});
    memcpy(ref, full, sizeof full);
    assert_int_equal(LAPACKE_spotrf(LAPACK_ROW_MAJOR, 'L', N, ref, N), 0);
    assert_int_equal(conf_from(&cp, "potrf", "n=5", &err), 0);
    assert_int_equal(conf_from(&ct, "trsm", "n=5", &err), 0);
    assert_int_equal(conf_from(&cs, "syrk", "n=5", &err), 0);
    assert_int_equal(conf_from(&cg, "gemm", "n=5,alpha=-1,beta=1,transb=1", &err), 0);
    for (int i = 0; i < NT; i++)
        for (int j = 0; j < NT; j++)
            tile_io(full, NT, T, i, j, tiles[i][j], 1);
    for (int k = 0; k < NT; k++) {
        assert_int_equal(hs_krun_cpu(&cp, (void *[]){tiles[k][k]}, 0, 1, 1, &err), 0);
        for (int i = k + 1; i < NT; i++)
            assert_int_equal(
                hs_krun_cpu(&ct, (void *[]){tiles[k][k], tiles[i][k]}, 0, T, 1, &err), 0);
        for (int i = k + 1; i < NT; i++) {
            assert_int_equal(
                hs_krun_cpu(&cs, (void *[]){tiles[i][k], tiles[i][i]}, 0, 1, 1, &err), 0);
            for (int j = k + 1; j < i; j++)
                assert_int_equal(hs_krun_cpu(&cg,
                                             (void *[]){tiles[i][k], tiles[j][k], tiles[i][j]},
                                             0, T, 1, &err),
                                 0);
        }
    }
    for (int i = 0; i < NT; i++)
        for (int j = 0; j <= i; j++)
            tile_io(full, NT, T, i, j, tiles[i][j], 0);
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            assert_float_equal(full[i * N + j], ref[i * N + j],
                               1e-4 * fabsf(ref[i * N + j]) + 1e-6);
}

/* Conjugate gradient as a graph of gemv, dot and axpy tasks, the step sizes
 * travelling as one-float buffers (axpy's ratio):
 *   q = A p; pq = p.q; x += (rho/pq) p; r -= (rho/pq) q; rho' = r.r;
 *   p = r + (rho'/rho) p
 * On a 16 x 16 SPD matrix it converges in at most 16 steps (exactly; a few
 * more in floats) and r stays b - A x. */
static void cg_graph(void **state)
{
    enum { N = 16 };
    float a[N * N], b[N], x[N] = {0}, r[N], p[N], q[N], rho, rho2, pq, ax[N];
    hs_kconf cspd, cv, cd, cx, cr, cp;
    hs_error err = {0};
    double rn = 0, bn = 0;
    (void)state;
    assert_int_equal(conf_from(&cspd, "potrf", "n=16", &err), 0);
    hs_kfill(&cspd, (void *[]){a});
    for (int i = 0; i < N; i++)
        b[i] = r[i] = p[i] = (float)(i % 3) - 1.0f + 0.25f * (float)i;
    assert_int_equal(conf_from(&cv, "gemv", "n=16", &err), 0);
    assert_int_equal(conf_from(&cd, "dot", "n=16", &err), 0);
    assert_int_equal(conf_from(&cx, "axpy", "n=16,ratio=1", &err), 0);
    assert_int_equal(conf_from(&cr, "axpy", "n=16,alpha=-1,ratio=1", &err), 0);
    assert_int_equal(conf_from(&cp, "axpy", "n=16,alpha=1,ratio=2", &err), 0);
    assert_int_equal(hs_krun_cpu(&cd, (void *[]){r, r, &rho}, 0, 1, 1, &err), 0);
    for (int it = 0; it < 20 && rho > 0; it++) {
        assert_int_equal(hs_krun_cpu(&cv, (void *[]){a, p, q}, 0, N, 1, &err), 0);
        assert_int_equal(hs_krun_cpu(&cd, (void *[]){p, q, &pq}, 0, 1, 1, &err), 0);
        assert_int_equal(hs_krun_cpu(&cx, (void *[]){p, x, &rho, &pq}, 0, N, 1, &err), 0);
        assert_int_equal(hs_krun_cpu(&cr, (void *[]){q, r, &rho, &pq}, 0, N, 1, &err), 0);
        assert_int_equal(hs_krun_cpu(&cd, (void *[]){r, r, &rho2}, 0, 1, 1, &err), 0);
        /* p = r + (rho'/rho) p: axpy with x = r, y = p, b scaled */
        assert_int_equal(hs_krun_cpu(&cp, (void *[]){r, p, &rho2, &rho}, 0, N, 1, &err), 0);
        rho = rho2;
    }
    assert_int_equal(hs_krun_cpu(&cv, (void *[]){a, x, ax}, 0, N, 1, &err), 0);
    for (int i = 0; i < N; i++) {
        rn += ((double)b[i] - ax[i]) * ((double)b[i] - ax[i]);
        bn += (double)b[i] * b[i];
    }
    assert_true(sqrt(rn / bn) < 1e-5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_lists_every_type),
        cmocka_unit_test(params_refused),
        cmocka_unit_test(params_give_buffers),
        cmocka_unit_test(elementwise_values),
        cmocka_unit_test(blas_values),
        cmocka_unit_test(fill_by_pieces),
        cmocka_unit_test(cholesky_values),
        cmocka_unit_test(fblock_values),
        cmocka_unit_test(pi_generator),
        cmocka_unit_test(pi_statistics),
        cmocka_unit_test(every_type_whole_and_split),
        cmocka_unit_test(threads_split_elementwise),
        cmocka_unit_test(threads_take_parts),
        cmocka_unit_test(threads_take_chunks),
        cmocka_unit_test(ranges_refused),
        cmocka_unit_test(potrf_refuses_indefinite),
        cmocka_unit_test(cuda_not_built),
        cmocka_unit_test(tiled_cholesky_graph),
        cmocka_unit_test(cg_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
