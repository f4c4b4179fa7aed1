/* Tests of the performance models (mapper/perfmodel.c): Welford statistics,
 * outlier rejection, the a*D^b+c fit on exact and noisy data, prediction
 * sources, and the JSON save/load round trip and its refusals. */
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
#include <gsl/gsl_rng.h>

#include "mapper/perfmodel.h"

static void record_ok(hs_perfmodel *m, const char *type, double D, const char *dev, double us,
                      int expect_accepted)
{
    hs_error err = {0};
    int accepted = -1;
    if (hs_perfmodel_record(m, type, D, dev, us, &accepted, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(accepted, expect_accepted);
}

static void rel_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, tol);
}

/* A temporary file name (the file is created empty). */
static void temp_path(char *buf, size_t size)
{
    int fd;
    snprintf(buf, size, "/tmp/hs_perfmodel_XXXXXX");
    fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ----------------------------------------------------------------- history */

static void welford_stats(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_history h;
    (void)state;
    /* 1, 2, 3, 4: mean 2.5; sample variance ((1.5^2 + .5^2) x 2) / 3 = 5/3 */
    for (int i = 1; i <= 4; i++)
        record_ok(m, "gemm", 1024, "gpu0", i, 1);
    assert_int_equal(hs_perfmodel_history(m, "gemm", 1024, "gpu0", &h), 1);
    assert_float_equal(h.mean_us, 2.5, 1e-15);
    assert_float_equal(h.stddev_us, sqrt(5.0 / 3.0), 1e-15);
    assert_int_equal(h.count, 4);
    assert_int_equal(h.rejected, 0);
    /* other sizes and devices are other entries */
    assert_int_equal(hs_perfmodel_history(m, "gemm", 1025, "gpu0", &h), 0);
    assert_int_equal(hs_perfmodel_history(m, "gemm", 1024, "cpu0", &h), 0);
    hs_perfmodel_free(m);
}

static void spike_rejected(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_history before, after;
    (void)state;
    /* ten samples 100 +- 0.5 */
    for (int i = 0; i < 10; i++)
        record_ok(m, "va", 1e6, "cpu0", 100.0 + 0.1 * (i % 6) - 0.25, 1);
    hs_perfmodel_history(m, "va", 1e6, "cpu0", &before);
    /* median ~100, MAD floored at 1 (1% of the median): 10000 has modified
     * z-score 0.6745 x 9900 = 6678 > 3.5 */
    record_ok(m, "va", 1e6, "cpu0", 10000.0, 0);
    hs_perfmodel_history(m, "va", 1e6, "cpu0", &after);
    assert_float_equal(after.mean_us, before.mean_us, 0);
    assert_float_equal(after.stddev_us, before.stddev_us, 0);
    assert_int_equal(after.count, 10);
    assert_int_equal(after.rejected, 1);
    hs_perfmodel_free(m);
}

static void mad_floor(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_history h;
    (void)state;
    /* five identical samples: MAD 0, floored at 1% of 100 = 1.  102 has
     * z = 0.6745 x 2 / 1 = 1.35: kept; 110 has z = 6.7: dropped. */
    for (int i = 0; i < 5; i++)
        record_ok(m, "inc", 4, "gpu0", 100.0, 1);
    record_ok(m, "inc", 4, "gpu0", 102.0, 1);
    record_ok(m, "inc", 4, "gpu0", 110.0, 0);
    hs_perfmodel_history(m, "inc", 4, "gpu0", &h);
    assert_float_equal(h.mean_us, 602.0 / 6.0, 1e-12);
    assert_int_equal(h.count, 6);
    assert_int_equal(h.rejected, 1);
    /* before 5 samples nothing is rejected: a spike among the first is kept */
    for (int i = 0; i < 4; i++)
        record_ok(m, "inc", 8, "gpu0", i == 2 ? 1e6 : 100.0, 1);
    hs_perfmodel_free(m);
}

static void record_refusals(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_perfmodel_record(m, "gemm", 0, "gpu0", 1, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "performance model: size of gemm must be a finite number > 0, "
                                 "not 0");
    assert_int_equal(hs_perfmodel_record(m, "gemm", 8, "gpu0", -1, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "performance model: duration of gemm on gpu0 must be a finite "
                                 "number >= 0, not -1");
    assert_int_equal(hs_perfmodel_record(m, "", 8, "gpu0", 1, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "performance model: bad kernel type ''");
    assert_int_equal(hs_perfmodel_record(m, "gemm", 8, "gpu\n0", 1, NULL, &err), HS_EINPUT);
    hs_perfmodel_free(m);
}

/* ---------------------------------------------------------------- the fit */

static void fit_exact(void **state)
{
    /* (a, b, c) over sizes 1e3 .. 1e6, including b < 1 and a large c */
    const double cases[][3] = {{2.5e-3, 1.7, 40.0}, {3.0, 0.5, 100.0}, {1e-9, 3.0, 5.0},
                               {0.25, 1.0, 2000.0}};
    const double D[] = {1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6};
    double y[10];
    (void)state;
    for (int c = 0; c < 4; c++) {
        hs_perf_fit f;
        hs_error err = {0};
        for (int i = 0; i < 10; i++)
            y[i] = cases[c][0] * pow(D[i], cases[c][1]) + cases[c][2];
        if (hs_perfmodel_fit_points(D, y, NULL, 10, &f, &err) != HS_OK)
            fail_msg("%s", err.msg);
        rel_close(f.a, cases[c][0], 1e-6);
        rel_close(f.b, cases[c][1], 1e-6);
        rel_close(f.c, cases[c][2], 1e-6);
        assert_int_equal(f.npoints, 10);
        assert_true(f.rms_rel < 1e-9);
    }
    {
        /* three points determine the three parameters exactly */
        hs_perf_fit f;
        hs_error err = {0};
        const double d3[] = {10, 100, 1000}, y3[] = {2 * pow(10, 1.5) + 7,
                                                      2 * pow(100, 1.5) + 7,
                                                      2 * pow(1000, 1.5) + 7};
        assert_int_equal(hs_perfmodel_fit_points(d3, y3, NULL, 3, &f, &err), HS_OK);
        rel_close(f.a, 2, 1e-6);
        rel_close(f.b, 1.5, 1e-6);
        rel_close(f.c, 7, 1e-6);
    }
}

static void fit_refusals(void **state)
{
    const double D[] = {10, 10, 20, 30}, y[] = {1, 2, 3, 0};
    hs_perf_fit f;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_perfmodel_fit_points(D, y, NULL, 3, &f, &err), HS_EINPUT);
    assert_string_equal(err.msg, "fit: a*D^b+c needs at least 3 distinct sizes, got 2");
    assert_int_equal(hs_perfmodel_fit_points(D, y, NULL, 4, &f, &err), HS_EINPUT);
    assert_string_equal(err.msg, "fit: point 3 (D 30, 0 us) needs D > 0, a duration > 0 and a "
                                 "count > 0");
}

/* Noisy samples recorded through the history, then hs_perfmodel_fit: the
 * fit comes within a few percent of the truth, and prediction uses the
 * history where the size was measured, the fit elsewhere. */
static void fit_noisy_and_predict(void **state)
{
    const double a = 4e-4, b = 1.8, c = 60.0;
    hs_perfmodel *m = hs_perfmodel_new();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    hs_perf_fit f;
    hs_perf_history h;
    hs_perf_source src;
    hs_error err = {0};
    double us;
    (void)state;
    gsl_rng_set(r, 7);
    for (int i = 0; i < 12; i++) {
        double D = 1000.0 * pow(2.0, i); /* 1e3 .. 2e6 */
        for (int s = 0; s < 8; s++) {
            /* +-2% multiplicative noise */
            double y = (a * pow(D, b) + c) * (1.0 + 0.04 * (gsl_rng_uniform(r) - 0.5));
            record_ok(m, "gemm", D, "gpu0", y, 1);
        }
        /* and one on another device, too few sizes there to fit */
        if (i < 2)
            record_ok(m, "gemm", D, "cpu0", 10.0 * D, 1);
    }
    gsl_rng_free(r);
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    assert_int_equal(hs_perfmodel_get_fit(m, "gemm", "gpu0", &f), 1);
    assert_int_equal(hs_perfmodel_get_fit(m, "gemm", "cpu0", &f), 0);
    assert_int_equal(hs_perfmodel_get_fit(m, "gemm", "gpu0", &f), 1);
    rel_close(f.a, a, 0.05);
    rel_close(f.b, b, 0.01);
    rel_close(f.c, c, 0.05);
    assert_int_equal(f.npoints, 12);
    assert_true(f.rms_rel < 0.02);

    /* a measured size: the history's mean, exactly */
    hs_perfmodel_history(m, "gemm", 4000.0, "gpu0", &h);
    assert_int_equal(hs_perfmodel_predict(m, "gemm", 4000.0, "gpu0", &us, &src, &err), HS_OK);
    assert_int_equal(src, HS_PERF_HISTORY);
    assert_float_equal(us, h.mean_us, 0);
    /* an unmeasured size: the fit */
    assert_int_equal(hs_perfmodel_predict(m, "gemm", 3000.0, "gpu0", &us, &src, &err), HS_OK);
    assert_int_equal(src, HS_PERF_FIT);
    assert_float_equal(us, f.a * pow(3000.0, f.b) + f.c, 1e-9);
    rel_close(us, a * pow(3000.0, b) + c, 0.02);
    /* nothing known */
    assert_int_equal(hs_perfmodel_predict(m, "gemm", 3000.0, "cpu0", &us, &src, &err),
                     HS_EINPUT);
    assert_int_equal(src, HS_PERF_NONE);
    assert_string_equal(err.msg, "no performance model for gemm of size 3000 on cpu0 (not "
                                 "measured at this size, and no fit: it needs 3 measured sizes)");
    hs_perfmodel_free(m);
}

/* ------------------------------------------------------------------- JSON */

static void save_load_round_trip(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new(), *back = NULL;
    hs_error err = {0};
    hs_perf_fit f1, f2;
    char path[64];
    const double sizes[] = {100, 200, 400, 800};
    (void)state;
    for (int i = 0; i < 4; i++)
        for (int s = 0; s < 7; s++)
            record_ok(m, "axpy", sizes[i], "gpu1", 3.0 + sizes[i] / 7.0 + 0.01 * s, 1);
    record_ok(m, "axpy", 100, "gpu1", 1e5, 0); /* one rejected */
    record_ok(m, "dot", 1e6, "cpu0", 1.0 / 3.0, 1);
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    temp_path(path, sizeof path);
    assert_int_equal(hs_perfmodel_save(m, path, &err), HS_OK);
    if (hs_perfmodel_load(path, &back, &err) != HS_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 4; i++) {
        hs_perf_history h1, h2;
        assert_int_equal(hs_perfmodel_history(m, "axpy", sizes[i], "gpu1", &h1), 1);
        assert_int_equal(hs_perfmodel_history(back, "axpy", sizes[i], "gpu1", &h2), 1);
        assert_float_equal(h2.mean_us, h1.mean_us, 0);
        rel_close(h2.stddev_us, h1.stddev_us, 1e-12);
        assert_int_equal(h2.count, h1.count);
        assert_int_equal(h2.rejected, h1.rejected);
    }
    {
        hs_perf_history h;
        assert_int_equal(hs_perfmodel_history(back, "dot", 1e6, "cpu0", &h), 1);
        assert_float_equal(h.mean_us, 1.0 / 3.0, 0);
    }
    assert_int_equal(hs_perfmodel_get_fit(m, "axpy", "gpu1", &f1), 1);
    assert_int_equal(hs_perfmodel_get_fit(back, "axpy", "gpu1", &f2), 1);
    assert_memory_equal(&f1, &f2, sizeof f1);
    /* the retained window came back: the same spike is rejected again, and
     * a further sample updates both alike */
    record_ok(back, "axpy", 100, "gpu1", 1e5, 0);
    record_ok(back, "axpy", 800, "gpu1", 3.0 + 800 / 7.0, 1);
    record_ok(m, "axpy", 800, "gpu1", 3.0 + 800 / 7.0, 1);
    {
        hs_perf_history h1, h2;
        hs_perfmodel_history(m, "axpy", 800, "gpu1", &h1);
        hs_perfmodel_history(back, "axpy", 800, "gpu1", &h2);
        rel_close(h2.mean_us, h1.mean_us, 1e-15);
    }
    hs_perfmodel_free(back);
    hs_perfmodel_free(m);
    unlink(path);
}

static void load_refusals(void **state)
{
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    char path[64], want[256];
    (void)state;
    temp_path(path, sizeof path);

    write_file(path, "{\"hetsched_perfmodel\": 1, \"history\": [}\n");
    assert_int_equal(hs_perfmodel_load(path, &m, &err), HS_EINPUT);
    assert_null(m);
    /* the '}' is the 39th character of the line */
    snprintf(want, sizeof want, "%s:1:39: error: unexpected token near '}'", path);
    assert_string_equal(err.msg, want);

    write_file(path, "{\"hetsched_perfmodel\": 2, \"history\": [], \"fits\": []}");
    assert_int_equal(hs_perfmodel_load(path, &m, &err), HS_EINPUT);
    snprintf(want, sizeof want, "%s: expected hetsched_perfmodel 1 with lists history and fits",
             path);
    assert_string_equal(err.msg, want);

    write_file(path, "{\"hetsched_perfmodel\": 1, \"history\": [{\"type\": \"gemm\"}], "
                     "\"fits\": []}");
    assert_int_equal(hs_perfmodel_load(path, &m, &err), HS_EINPUT);
    snprintf(want, sizeof want, "%s: history[0]: Object item not found: size", path);
    assert_string_equal(err.msg, want);

    write_file(path, "{\"hetsched_perfmodel\": 1, \"history\": [], \"fits\": [{\"type\": "
                     "\"gemm\", \"device\": \"gpu0\", \"a\": 1, \"b\": 2, \"c\": 3, "
                     "\"points\": 2, \"rms_rel\": 0}]}");
    assert_int_equal(hs_perfmodel_load(path, &m, &err), HS_EINPUT);
    snprintf(want, sizeof want, "%s: fits[0]: needs names, finite a, b, c, rms_rel >= 0 and "
             "points >= 3", path);
    assert_string_equal(err.msg, want);
    assert_null(m);
    unlink(path);

    assert_int_equal(hs_perfmodel_load("/nonexistent/model.json", &m, &err), HS_EIO);
    assert_null(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(welford_stats),        cmocka_unit_test(spike_rejected),
        cmocka_unit_test(mad_floor),            cmocka_unit_test(record_refusals),
        cmocka_unit_test(fit_exact),            cmocka_unit_test(fit_refusals),
        cmocka_unit_test(fit_noisy_and_predict), cmocka_unit_test(save_load_round_trip),
        cmocka_unit_test(load_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
