/* Tests of the performance models (mapper/perfmodel.c): the median of the
 * window and the Welford statistics, outlier flagging, entries by params,
 * the a*D^b+c fit on exact and noisy data and on medians, prediction
 * sources (an exact entry before the fit), the JSON save/load round trip
 * (format 1 still read) and its refusals, the model as the cost provider
 * of a workload's typed kernels, a measured run added to the history, and
 * the plot. */
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

#include "hetsched/hetsched.h"
#include "exec/data.h"
#include "exec/engine.h"
#include "hs_config.h"
#include "mapper/perfmodel.h"

#if HS_HAVE_CAIRO
#include <cairo.h>
#endif

static void record_ok(hs_perfmodel *m, const char *type, double D, const char *dev, double us,
                      int expect_accepted)
{
    hs_error err = {0};
    int accepted = -1;
    if (hs_perfmodel_record(m, type, NULL, D, dev, us, &accepted, &err) != HS_OK)
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
    assert_int_equal(hs_perfmodel_history(m, "gemm", NULL, 1024, "gpu0", &h), 1);
    assert_float_equal(h.mean_us, 2.5, 1e-15);
    assert_float_equal(h.stddev_us, sqrt(5.0 / 3.0), 1e-15);
    assert_int_equal(h.count, 4);
    assert_int_equal(h.rejected, 0);
    /* median (2 + 3) / 2; deviations 1.5, .5, .5, 1.5: MAD 1 */
    assert_float_equal(h.median_us, 2.5, 0);
    assert_float_equal(h.mad_us, 1.0, 0);
    assert_int_equal(h.nsamples, 4);
    /* other sizes and devices are other entries */
    assert_int_equal(hs_perfmodel_history(m, "gemm", NULL, 1025, "gpu0", &h), 0);
    assert_int_equal(hs_perfmodel_history(m, "gemm", NULL, 1024, "cpu0", &h), 0);
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
    hs_perfmodel_history(m, "va", NULL, 1e6, "cpu0", &before);
    /* median ~100, MAD floored at 1 (1% of the median): 10000 has modified
     * z-score 0.6745 x 9900 = 6678 > 3.5 */
    record_ok(m, "va", 1e6, "cpu0", 10000.0, 0);
    hs_perfmodel_history(m, "va", NULL, 1e6, "cpu0", &after);
    assert_float_equal(after.mean_us, before.mean_us, 0);
    assert_float_equal(after.stddev_us, before.stddev_us, 0);
    assert_int_equal(after.count, 10);
    assert_int_equal(after.rejected, 1);
    /* the spike is in the window (11 samples), its median one of the ten:
     * 99.75 + 0.1 x (0..5): 99.75 99.85 99.95 100.05 100.15 100.25 99.75
     * 99.85 99.95 100.05 and the spike; the sixth of 11 sorted is 99.95 */
    assert_int_equal(after.nsamples, 11);
    assert_float_equal(before.median_us, 99.95, 1e-12);
    assert_float_equal(after.median_us, 99.95, 1e-12);
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
    hs_perfmodel_history(m, "inc", NULL, 4, "gpu0", &h);
    assert_float_equal(h.mean_us, 602.0 / 6.0, 1e-12);
    assert_int_equal(h.count, 6);
    assert_int_equal(h.rejected, 1);
    /* before 5 samples nothing is rejected: a spike among the first is kept */
    for (int i = 0; i < 4; i++)
        record_ok(m, "inc", 8, "gpu0", i == 2 ? 1e6 : 100.0, 1);
    hs_perfmodel_free(m);
}

/* The median is the robust statistic: a spike among an entry's first
 * samples (before the outlier rule starts) does not move it, though it
 * moves the mean; a lasting change takes the median over once it holds
 * half the window, while the rule flags it until then. */
static void median_spikes_and_steps(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_history h;
    (void)state;
    record_ok(m, "va", 1e3, "cpu0", 100, 1);
    record_ok(m, "va", 1e3, "cpu0", 1e6, 1); /* 2 samples: the rule is not active */
    record_ok(m, "va", 1e3, "cpu0", 100, 1);
    hs_perfmodel_history(m, "va", NULL, 1e3, "cpu0", &h);
    assert_float_equal(h.median_us, 100, 0);
    assert_float_equal(h.mean_us, (1e6 + 200) / 3, 1e-9);

    /* ten samples at 100, then 200 for good: the window's median is 100
     * and its MAD 0 (floored at 1), so 200 scores 67 and is flagged, until
     * the window holds ten of each (median 150, MAD 50, 200 scores 0.67):
     * the 11th is kept, and with it the median is 200 */
    for (int i = 0; i < 10; i++)
        record_ok(m, "va", 2e3, "cpu0", 100, 1);
    for (int k = 1; k <= 11; k++) {
        record_ok(m, "va", 2e3, "cpu0", 200, k == 11);
        hs_perfmodel_history(m, "va", NULL, 2e3, "cpu0", &h);
        assert_float_equal(h.median_us, k < 10 ? 100 : k == 10 ? 150 : 200, 0);
    }
    assert_int_equal(h.count, 11);
    assert_int_equal(h.rejected, 10);
    assert_int_equal(h.nsamples, 21);
    assert_float_equal(h.mean_us, 1200.0 / 11, 1e-12);
    hs_perfmodel_free(m);
}

/* The window keeps the last HS_PERF_WINDOW samples, given oldest first. */
static void window_keeps_latest(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_entry e;
    (void)state;
    for (int i = 1; i <= 40; i++)
        record_ok(m, "dot", 64, "gpu0", 1000 + i, 1);
    assert_int_equal(hs_perfmodel_entries(m), 1);
    hs_perfmodel_entry(m, 0, &e);
    assert_string_equal(e.type, "dot");
    assert_string_equal(e.params, "");
    assert_string_equal(e.device, "gpu0");
    assert_float_equal(e.size, 64, 0);
    assert_int_equal(e.h.nsamples, HS_PERF_WINDOW);
    assert_int_equal(e.h.count, 40);
    for (int k = 0; k < HS_PERF_WINDOW; k++)
        assert_float_equal(e.samples[k], 1000 + 40 - HS_PERF_WINDOW + 1 + k, 0);
    /* 1009 .. 1040: median (1024 + 1025) / 2 */
    assert_float_equal(e.h.median_us, 1024.5, 0);
    hs_perfmodel_free(m);
}

/* The params text of typed kernels: every param of the spec, in its
 * order, defaults filled in, numbers in their shortest exact form. */
static void kernel_params_text(void **state)
{
    hs_param gp[] = {{"n", 4}, {"m", 2}, {"k", 3}}, ap[] = {{"n", 4}, {"alpha", 0.1}},
             vp[] = {{"n", 1000}};
    hs_kernel g = {.name = "g", .type = "gemm", .nparams = 3, .params = gp};
    hs_kernel a = {.name = "a", .type = "gemm", .nparams = 2, .params = ap};
    hs_kernel v = {.name = "v", .type = "va", .nparams = 1, .params = vp};
    hs_kernel bad = {.name = "b", .type = "gemm", .nparams = 1, .params = (hs_param[]){{"x", 1}}};
    hs_perf_kernel pk;
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_perfmodel_kernel_of(&g, &pk, &err), HS_OK);
    assert_string_equal(pk.type, "gemm");
    assert_string_equal(pk.params, "n=4,m=2,k=3,alpha=1,beta=0,transb=0");
    assert_float_equal(pk.size, 48, 0);
    assert_int_equal(hs_perfmodel_kernel_of(&a, &pk, &err), HS_OK);
    assert_string_equal(pk.params, "n=4,m=4,k=4,alpha=0.1,beta=0,transb=0");
    assert_int_equal(hs_perfmodel_kernel_of(&v, &pk, &err), HS_OK);
    assert_string_equal(pk.params, "n=1000");
    assert_int_equal(hs_perfmodel_kernel_of(&bad, &pk, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "unknown param 'x'"));
}

/* Two gemm shapes of one D are two entries; a kernel's own entry wins over
 * the fit and over an entry without params; a kernel of the same D and
 * other params gets the entry without params, else the fit. */
static void exact_entry_wins(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    /* n 64 (square) and m 128, k 32: both D = 2 * 64^3 = 524288 */
    hs_param sq[] = {{"n", 64}}, tall[] = {{"n", 64}, {"m", 128}, {"k", 32}},
             wide[] = {{"n", 64}, {"m", 32}, {"k", 128}};
    hs_kernel ksq = {.name = "s", .type = "gemm", .nparams = 1, .params = sq};
    hs_kernel ktall = {.name = "t", .type = "gemm", .nparams = 3, .params = tall};
    hs_kernel kwide = {.name = "w", .type = "gemm", .nparams = 3, .params = wide};
    hs_device cpu0 = {.name = "cpu0", .kind = HS_DEVICE_CPU};
    hs_perf_kernel psq, ptall;
    hs_perf_history h;
    hs_perf_source src;
    hs_error err = {0};
    double us, D = 524288;
    (void)state;
    assert_int_equal(hs_perfmodel_kernel_of(&ksq, &psq, &err), HS_OK);
    assert_int_equal(hs_perfmodel_kernel_of(&ktall, &ptall, &err), HS_OK);
    assert_float_equal(psq.size, D, 0);
    assert_float_equal(ptall.size, D, 0);
    /* a fit 1e-3 D + 10 from three other sizes: 534.288 us at D */
    for (int i = 1; i <= 3; i++)
        record_ok(m, "gemm", 1e5 * i, "cpu0", 1e-3 * 1e5 * i + 10, 1);
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    assert_int_equal(hs_perfmodel_record(m, "gemm", psq.params, D, "cpu0", 700, NULL, &err),
                     HS_OK);
    assert_int_equal(hs_perfmodel_record(m, "gemm", ptall.params, D, "cpu0", 900, NULL, &err),
                     HS_OK);
    assert_int_equal(hs_perfmodel_history(m, "gemm", psq.params, D, "cpu0", &h), 1);
    assert_float_equal(h.median_us, 700, 0);
    assert_int_equal(hs_perfmodel_history(m, "gemm", ptall.params, D, "cpu0", &h), 1);
    assert_float_equal(h.median_us, 900, 0);
    assert_int_equal(hs_perfmodel_history(m, "gemm", NULL, D, "cpu0", &h), 0);

    assert_int_equal(hs_perfmodel_predict_kernel(m, &ksq, &cpu0, &us, &src, &err), HS_OK);
    assert_int_equal(src, HS_PERF_HISTORY);
    assert_float_equal(us, 700, 0);
    assert_int_equal(hs_perfmodel_predict_kernel(m, &ktall, &cpu0, &us, &src, &err), HS_OK);
    assert_float_equal(us, 900, 0);
    assert_int_equal(hs_perfmodel_predict_kernel(m, &kwide, &cpu0, &us, &src, &err), HS_OK);
    assert_int_equal(src, HS_PERF_FIT);
    rel_close(us, 534.288, 1e-6);
    /* by D alone (a part of a kernel): the fit too */
    assert_int_equal(hs_perfmodel_predict_device(m, "gemm", D, &cpu0, &us, &err), HS_OK);
    rel_close(us, 534.288, 1e-6);
    /* an entry without params at D serves every kernel of that D without
     * its own entry, and the predictions by D */
    record_ok(m, "gemm", D, "cpu0", 800, 1);
    assert_int_equal(hs_perfmodel_predict_kernel(m, &kwide, &cpu0, &us, &src, &err), HS_OK);
    assert_int_equal(src, HS_PERF_HISTORY);
    assert_float_equal(us, 800, 0);
    assert_int_equal(hs_perfmodel_predict_kernel(m, &ksq, &cpu0, &us, &src, &err), HS_OK);
    assert_float_equal(us, 700, 0);
    assert_int_equal(hs_perfmodel_predict_device(m, "gemm", D, &cpu0, &us, &err), HS_OK);
    assert_float_equal(us, 800, 0);
    /* the entries at D are points of the fit, each on its own */
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    {
        hs_perf_fit f;
        assert_int_equal(hs_perfmodel_get_fit(m, "gemm", "cpu0", &f), 1);
        assert_int_equal(f.npoints, 4);
    }
    hs_perfmodel_free(m);
}

/* The fit is made on the medians: a 50x spike among each entry's first
 * three samples (recorded before the outlier rule starts) leaves the exact
 * a, b, c.  It needs 3 distinct sizes, not 3 entries. */
static void fit_on_medians(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_fit f;
    hs_error err = {0};
    (void)state;
    for (int i = 0; i < 6; i++) {
        double D = 1e3 * pow(4, i), y = 3e-3 * pow(D, 1.2) + 25;
        record_ok(m, "axpy", D, "gpu0", y, 1);
        record_ok(m, "axpy", D, "gpu0", 50 * y, 1);
        record_ok(m, "axpy", D, "gpu0", y, 1);
    }
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    assert_int_equal(hs_perfmodel_get_fit(m, "axpy", "gpu0", &f), 1);
    rel_close(f.a, 3e-3, 1e-6);
    rel_close(f.b, 1.2, 1e-6);
    rel_close(f.c, 25, 1e-6);
    /* three entries of one D (other params) are one size: no fit, no error */
    for (int i = 0; i < 3; i++) {
        char params[16];
        snprintf(params, sizeof params, "n=8,r=%d", i);
        assert_int_equal(hs_perfmodel_record(m, "dot", params, 16, "gpu0", 5 + i, NULL, &err),
                         HS_OK);
    }
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    assert_int_equal(hs_perfmodel_get_fit(m, "dot", "gpu0", &f), 0);
    hs_perfmodel_free(m);
}

static void record_refusals(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new();
    hs_error err = {0};
    (void)state;
    assert_int_equal(hs_perfmodel_record(m, "gemm", NULL, 0, "gpu0", 1, NULL, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "performance model: size of gemm must be a finite number > 0, "
                                 "not 0");
    assert_int_equal(hs_perfmodel_record(m, "gemm", NULL, 8, "gpu0", -1, NULL, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "performance model: duration of gemm on gpu0 must be a finite "
                                 "number >= 0, not -1");
    assert_int_equal(hs_perfmodel_record(m, "", NULL, 8, "gpu0", 1, NULL, &err), HS_EINPUT);
    assert_string_equal(err.msg, "performance model: bad kernel type ''");
    assert_int_equal(hs_perfmodel_record(m, "gemm", NULL, 8, "gpu\n0", 1, NULL, &err),
                     HS_EINPUT);
    assert_int_equal(hs_perfmodel_record(m, "gemm", "n=8\n", 8, "gpu0", 1, NULL, &err),
                     HS_EINPUT);
    assert_string_equal(err.msg, "performance model: bad params of gemm");
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

    /* a measured size: the history's median, exactly */
    hs_perfmodel_history(m, "gemm", NULL, 4000.0, "gpu0", &h);
    assert_int_equal(hs_perfmodel_predict(m, "gemm", NULL, 4000.0, "gpu0", &us, &src, &err),
                     HS_OK);
    assert_int_equal(src, HS_PERF_HISTORY);
    assert_float_equal(us, h.median_us, 0);
    /* an unmeasured size: the fit */
    assert_int_equal(hs_perfmodel_predict(m, "gemm", NULL, 3000.0, "gpu0", &us, &src, &err),
                     HS_OK);
    assert_int_equal(src, HS_PERF_FIT);
    assert_float_equal(us, f.a * pow(3000.0, f.b) + f.c, 1e-9);
    rel_close(us, a * pow(3000.0, b) + c, 0.02);
    /* nothing known */
    assert_int_equal(hs_perfmodel_predict(m, "gemm", NULL, 3000.0, "cpu0", &us, &src, &err),
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
    record_ok(m, "axpy", 100, "gpu1", 1e5, 0); /* one rejected, still in the window */
    record_ok(m, "dot", 1e6, "cpu0", 1.0 / 3.0, 1);
    assert_int_equal(hs_perfmodel_record(m, "gemm", "n=8,m=8,k=8,alpha=1,beta=0,transb=0", 1024,
                                         "gpu1", 12.5, NULL, &err), HS_OK);
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    temp_path(path, sizeof path);
    assert_int_equal(hs_perfmodel_save(m, path, &err), HS_OK);
    if (hs_perfmodel_load(path, &back, &err) != HS_OK)
        fail_msg("%s", err.msg);
    /* every entry back, in order, with its params, counts, statistics and
     * window */
    assert_int_equal(hs_perfmodel_entries(back), 6);
    for (size_t i = 0; i < 6; i++) {
        hs_perf_entry e1, e2;
        hs_perfmodel_entry(m, i, &e1);
        hs_perfmodel_entry(back, i, &e2);
        assert_string_equal(e2.type, e1.type);
        assert_string_equal(e2.params, e1.params);
        assert_string_equal(e2.device, e1.device);
        assert_float_equal(e2.size, e1.size, 0);
        assert_float_equal(e2.h.median_us, e1.h.median_us, 0);
        assert_float_equal(e2.h.mad_us, e1.h.mad_us, 0);
        assert_float_equal(e2.h.mean_us, e1.h.mean_us, 0);
        rel_close(e2.h.stddev_us + 1, e1.h.stddev_us + 1, 1e-12);
        assert_int_equal(e2.h.count, e1.h.count);
        assert_int_equal(e2.h.rejected, e1.h.rejected);
        assert_int_equal(e2.h.nsamples, e1.h.nsamples);
        assert_memory_equal(e2.samples, e1.samples, (size_t)e1.h.nsamples * sizeof(double));
    }
    {
        hs_perf_history h;
        assert_int_equal(hs_perfmodel_history(back, "axpy", NULL, 100, "gpu1", &h), 1);
        assert_int_equal(h.count, 7);
        assert_int_equal(h.rejected, 1);
        assert_int_equal(h.nsamples, 8);
        assert_int_equal(hs_perfmodel_history(back, "gemm", "n=8,m=8,k=8,alpha=1,beta=0,"
                                              "transb=0", 1024, "gpu1", &h), 1);
        assert_float_equal(h.median_us, 12.5, 0);
        assert_int_equal(hs_perfmodel_history(back, "gemm", NULL, 1024, "gpu1", &h), 0);
    }
    assert_int_equal(hs_perfmodel_get_fit(m, "axpy", "gpu1", &f1), 1);
    assert_int_equal(hs_perfmodel_get_fit(back, "axpy", "gpu1", &f2), 1);
    assert_float_equal(f2.a, f1.a, 0);
    assert_float_equal(f2.b, f1.b, 0);
    assert_float_equal(f2.c, f1.c, 0);
    assert_float_equal(f2.rms_rel, f1.rms_rel, 0);
    assert_int_equal(f2.npoints, f1.npoints);
    /* the window came back: the same spike is flagged again, and a further
     * sample updates both alike */
    record_ok(back, "axpy", 100, "gpu1", 1e5, 0);
    record_ok(back, "axpy", 800, "gpu1", 3.0 + 800 / 7.0, 1);
    record_ok(m, "axpy", 800, "gpu1", 3.0 + 800 / 7.0, 1);
    {
        hs_perf_history h1, h2;
        hs_perfmodel_history(m, "axpy", NULL, 800, "gpu1", &h1);
        hs_perfmodel_history(back, "axpy", NULL, 800, "gpu1", &h2);
        rel_close(h2.mean_us, h1.mean_us, 1e-15);
    }
    hs_perfmodel_free(back);
    hs_perfmodel_free(m);
    unlink(path);
}

/* Loads `json` as a file and expects HS_EINPUT with "FILE" + `msg`. */
static void expect_load_error(const char *json, const char *msg)
{
    hs_perfmodel *m = (hs_perfmodel *)&m;
    hs_error err = {0};
    char path[64], want[512];
    temp_path(path, sizeof path);
    write_file(path, json);
    assert_int_equal(hs_perfmodel_load(path, &m, &err), HS_EINPUT);
    assert_null(m);
    snprintf(want, sizeof want, "%s%s", path, msg);
    assert_string_equal(err.msg, want);
    unlink(path);
}

#define ENTRY(type, size, samples)                                                                 \
    "{\"type\": \"" type "\", \"size\": " size ", \"device\": \"cpu0\", \"mean_us\": 5, "          \
    "\"stddev_us\": 0, \"count\": 2, \"rejected\": 0, \"samples\": " samples "}"

#define ENTRY2(params)                                                                             \
    "{\"type\": \"va\", \"params\": \"" params "\", \"size\": 4, \"device\": \"cpu0\", "         \
    "\"mean_us\": 1, \"stddev_us\": 0, \"count\": 1, \"rejected\": 0, \"samples\": [1]}"

static void load_refusals(void **state)
{
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    (void)state;
    /* syntax: the '}' is the 39th character of the line */
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [}\n",
                      ":1:39: error: unexpected token near '}'");
    expect_load_error("[]", ":1:1: error: a performance model is a JSON object, not an array");
    expect_load_error("{\"hetsched_perfmodel\": 3, \"history\": [], \"fits\": []}",
                      ":1:24: error: hetsched_perfmodel: must be a whole number from 1 to 2, "
                      "not 3");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": []}",
                      ":1:1: error: missing key 'fits' (a performance model has "
                      "hetsched_perfmodel, history, fits)");
    /* entries, each item located by line and column */
    expect_load_error("{\"hetsched_perfmodel\": 1,\n \"history\": [{\"type\": \"gemm\"}], "
                      "\"fits\": []}",
                      ":2:14: error: history[0]: missing key 'size' (a history entry has type, "
                      "params, size, device, mean_us, stddev_us, count, rejected, samples)");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "-1", "[5]")
                      "], \"fits\": []}",
                      ":2:24: error: history[0].size: must be a finite number > 0, not -1");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "1", "[5, 5, 5]")
                      "], \"fits\": []}",
                      ":2:113: error: history[0].samples: holds 3 samples, more than count + "
                      "rejected (2) or than the 32 a window keeps");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "1", "[5, -5]")
                      "], \"fits\": []}",
                      ":2:117: error: history[0].samples[1]: must be a finite number >= 0");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "1", "[5]") ",\n"
                      ENTRY("va", "1.0", "[5]") "], \"fits\": []}",
                      ":3:1: error: history[1]: a second entry for va of size 1 on cpu0");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [], \"fits\": [{\"type\": "
                      "\"gemm\", \"device\": \"gpu0\", \"a\": 1, \"b\": 2, \"c\": 3, "
                      "\"points\": 2, \"rms_rel\": 0}]}",
                      ":1:120: error: fits[0].points: must be a whole number from 3 to "
                      "2147483647, not 2");
    /* names and keys reach the terminal escaped: a newline, an escape sequence */
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("v\\na", "1", "[5]")
                      "], \"fits\": []}",
                      ":2:10: error: history[0].type: must be non-empty printable UTF-8 text, "
                      "not 'v\\na'");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("\\u009b2J", "1",
                      "[5]") "], \"fits\": []}",
                      ":2:10: error: history[0].type: must be non-empty printable UTF-8 text, "
                      "not '\\u009b2J'");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [], \"fits\": [], "
                      "\"\\u001b[2J\": 0}",
                      ":1:67: error: \\x1b[2J: unknown key (a performance model has "
                      "hetsched_perfmodel, history, fits)");
    /* format 2: entries with params, bad params, a duplicate with params */
    expect_load_error("{\"hetsched_perfmodel\": 2, \"history\": [\n" ENTRY2("n=4") ",\n"
                      ENTRY2("n=4") "], \"fits\": []}",
                      ":3:1: error: history[1]: a second entry for va n=4 of size 4 on cpu0");
    expect_load_error("{\"hetsched_perfmodel\": 2, \"history\": [\n" ENTRY2("n=4\\t") "], "
                      "\"fits\": []}",
                      ":2:26: error: history[0].params: must be printable UTF-8 text, not "
                      "'n=4\\t'");
    /* counts up to 2^53 (exact doubles; their sum cannot overflow), no more */
    {
        const char *big = "{\"hetsched_perfmodel\": 2, \"history\": [{\"type\": \"va\", "
                          "\"size\": 4, \"device\": \"cpu0\", \"mean_us\": 1, "
                          "\"stddev_us\": 0, \"count\": 9007199254740992, \"rejected\": "
                          "9007199254740992, \"samples\": [1]}], \"fits\": []}";
        assert_int_equal(hs_perfmodel_load_buffer("big.json", big, strlen(big), &m, &err), HS_OK);
        hs_perfmodel_free(m);
        m = NULL;
    }
    expect_load_error("{\"hetsched_perfmodel\": 2, \"history\": [{\"type\": \"va\", "
                      "\"size\": 4, \"device\": \"cpu0\", \"mean_us\": 1, \"stddev_us\": 0, "
                      "\"count\": 9007199254740993, \"rejected\": 0, \"samples\": []}], "
                      "\"fits\": []}",
                      ":1:122: error: history[0].count: must be a whole number from 0 to "
                      "9007199254740992, not 9007199254740993");
    /* a file that is not there is bad input too */
    assert_int_equal(hs_perfmodel_load("/nonexistent/model.json", &m, &err), HS_EINPUT);
    assert_string_equal(err.msg, "/nonexistent/model.json: cannot read: No such file or "
                                 "directory");
    assert_null(m);
}

/* ------------------------------------------------ the model as cost provider */

/* A hand-written model.  D of a typed kernel is its hs_kconf flops: n for
 * va, 2 m n k = 2 n^3 for gemm (m, k default to n).
 *   va  at D 1000 on cpu0: history, mean 50
 *   va  on cpu0: fit 0.1 D          (2000 -> 200; at 1000 history wins: 50)
 *   va  on the kind gpu: 0.01 D + 10 (1000 -> 20, 2000 -> 30)
 *   gemm on gpu0 only: 1e-6 D + 5   (n 100: D 2e6 -> 7) */
static const char *model_json =
    "{\"hetsched_perfmodel\": 1,\n"
    " \"history\": [{\"type\": \"va\", \"size\": 1000, \"device\": \"cpu0\", \"mean_us\": 50,"
    " \"stddev_us\": 0, \"count\": 1, \"rejected\": 0, \"samples\": [50]}],\n"
    " \"fits\": [\n"
    "  {\"type\": \"va\", \"device\": \"cpu0\", \"a\": 0.1, \"b\": 1, \"c\": 0, \"points\": 3,"
    " \"rms_rel\": 0},\n"
    "  {\"type\": \"va\", \"device\": \"gpu\", \"a\": 0.01, \"b\": 1, \"c\": 10, \"points\": 3,"
    " \"rms_rel\": 0},\n"
    "  {\"type\": \"gemm\", \"device\": \"gpu0\", \"a\": 1e-6, \"b\": 1, \"c\": 5, \"points\": 3,"
    " \"rms_rel\": 0}]}\n";

static hs_perfmodel *load_model(void)
{
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    if (hs_perfmodel_load_buffer("model.json", model_json, strlen(model_json), &m, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return m;
}

/* cpu0 (host), gpu0, gpu1, linked both ways to the host. */
static const char *platform_yaml =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host}\n"
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
    "    - {name: gpu1, kind: gpu, memory: gpu1}\n"
    "  links:\n"
    "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"
    "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"
    "    - {from: host, to: gpu1, bandwidth_gbps: 10, latency_us: 5}\n"
    "    - {from: gpu1, to: host, bandwidth_gbps: 10, latency_us: 5}\n";

/* Typed kernels without (or with partial) cost_us get the model's costs,
 * exactly as derived beside model_json; given costs win. */
static void typed_costs_from_model(void **state)
{
    hs_perfmodel *m = load_model();
    hs_load_options opt = {.cost_fn = hs_perfmodel_cost_fn, .cost_ctx = m};
    hs_workload *w = NULL;
    hs_error err = {0};
    char path[64], text[2048];
    const hs_kernel *k;
    (void)state;
    snprintf(text, sizeof text, "%s"
             "applications:\n"
             "  - name: app\n"
             "    kernels:\n"
             "      - {name: v1, type: va, params: {n: 1000}}\n"
             "      - {name: v2, type: va, params: {n: 2000}}\n"
             "      - {name: g, type: gemm, params: {n: 100}, cost_us: {cpu: 400, gpu1: 9}}\n"
             "      - {name: u, cost_us: {cpu: 1, gpu: 2}}\n"
             "    edges:\n"
             "      - {from: v1, to: g, bytes: 0}\n",
             platform_yaml);
    temp_path(path, sizeof path);
    write_file(path, text);
    if (hs_workload_load_file_opts(path, &opt, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    k = w->apps[0].kernels;
    /* v1: history 50 on cpu0 (by name), fit of kind gpu 0.01 x 1000 + 10 */
    assert_float_equal(k[0].cost_us[0], 50, 0);
    assert_float_equal(k[0].cost_us[1], 20, 1e-12);
    assert_float_equal(k[0].cost_us[2], 20, 1e-12);
    /* v2: no history at 2000: cpu0's fit 0.1 x 2000, gpu 0.01 x 2000 + 10 */
    assert_float_equal(k[1].cost_us[0], 200, 1e-12);
    assert_float_equal(k[1].cost_us[1], 30, 1e-12);
    assert_float_equal(k[1].cost_us[2], 30, 1e-12);
    /* g: cpu and gpu1 given (win); gpu0 from the model 1e-6 x 2e6 + 5 */
    assert_float_equal(k[2].cost_us[0], 400, 0);
    assert_float_equal(k[2].cost_us[1], 7, 1e-12);
    assert_float_equal(k[2].cost_us[2], 9, 0);
    /* u is untyped and fully given */
    assert_float_equal(k[3].cost_us[1], 2, 0);
    /* the graph's tasks carry the same costs */
    assert_float_equal(w->graph.tasks[2].cost_us[1], 7, 1e-12);
    hs_workload_free(w);

    /* without the model the same file is refused as before */
    assert_int_equal(hs_workload_load_file(path, &w, &err), HS_EINPUT);
    assert_null(w);
    assert_non_null(strstr(err.msg, "kernel 'v1' of type 'va' has no cost_us and no "
                                    "performance model is loaded (give cost_us)"));
    unlink(path);
    hs_perfmodel_free(m);
}

/* A pair the model does not cover: the exact error, with the kernel's path;
 * and the provider is never asked about untyped kernels. */
static void typed_cost_missing(void **state)
{
    hs_perfmodel *m = load_model();
    hs_workload *w = hs_workload_new();
    hs_error err = {0};
    int a, k;
    (void)state;
    assert_non_null(w);
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err) >= 0);
    assert_true(hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    a = hs_workload_add_app(w, "app", 1, &err);
    assert_true(hs_app_add_kernel(w, a, "v", &err) >= 0);
    assert_int_equal(hs_kernel_set_type(w, a, 0, "va", &err), HS_OK);
    assert_int_equal(hs_kernel_add_param(w, a, 0, "n", 1000, &err), HS_OK);
    k = hs_app_add_kernel(w, a, "mm", &err);
    assert_int_equal(hs_kernel_set_type(w, a, k, "gemm", &err), HS_OK);
    assert_int_equal(hs_kernel_add_param(w, a, k, "n", 100, &err), HS_OK);
    hs_workload_set_cost_fn(w, hs_perfmodel_cost_fn, m);
    /* gemm has a fit on gpu0 only: cpu0 is missing, by name and by kind */
    assert_int_equal(hs_workload_finalize(w, &err), HS_EINPUT);
    assert_string_equal(err.msg, "applications[0].kernels[1].cost_us: kernel 'mm': no "
                                 "performance model for gemm on cpu0 in model.json (run "
                                 "hetsched calibrate)");
    assert_string_equal(err.path, "applications[0].kernels[1].cost_us");
    /* giving the cpu cost fills the gap; gpu0 still comes from the model */
    assert_int_equal(hs_kernel_set_cost(w, a, k, "cpu0", 123, &err), HS_OK);
    if (hs_workload_finalize(w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(w->apps[0].kernels[1].cost_us[0], 123, 0);
    assert_float_equal(w->apps[0].kernels[1].cost_us[1], 7, 1e-12);
    hs_workload_free(w);

    /* an untyped kernel without costs keeps its own message */
    w = hs_workload_new();
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err) >= 0);
    a = hs_workload_add_app(w, "app", 1, &err);
    assert_true(hs_app_add_kernel(w, a, "x", &err) >= 0);
    hs_workload_set_cost_fn(w, hs_perfmodel_cost_fn, m);
    assert_int_equal(hs_workload_finalize(w, &err), HS_EINPUT);
    assert_string_equal(err.msg, "applications[0].kernels[0].cost_us: no cost for device "
                                 "'cpu0' of kernel 'x' (give 'cpu0' or 'cpu')");
    hs_workload_free(w);

    /* a type the registry refuses: its message, behind the kernel's path */
    w = hs_workload_new();
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err) >= 0);
    a = hs_workload_add_app(w, "app", 1, &err);
    assert_true(hs_app_add_kernel(w, a, "x", &err) >= 0);
    assert_int_equal(hs_kernel_set_type(w, a, 0, "nosuch", &err), HS_OK);
    hs_workload_set_cost_fn(w, hs_perfmodel_cost_fn, m);
    assert_int_equal(hs_workload_finalize(w, &err), HS_EINPUT);
    assert_non_null(strstr(err.msg, "applications[0].kernels[0].cost_us: kernel 'x': "));
    assert_non_null(strstr(err.msg, "nosuch"));
    hs_workload_free(w);
    hs_perfmodel_free(m);
}

/* The D of typed kernels, and prediction by device name then kind. */
static void kernel_size_and_kind(void **state)
{
    hs_perfmodel *m = load_model();
    hs_param gp[] = {{"n", 4}, {"m", 2}, {"k", 3}}, vp[] = {{"n", 1000}};
    hs_kernel g = {.name = "g", .type = "gemm", .nparams = 3, .params = gp};
    hs_kernel v = {.name = "v", .type = "va", .nparams = 1, .params = vp};
    hs_kernel u = {.name = "u"};
    hs_device gpu7 = {.name = "gpu7", .kind = HS_DEVICE_GPU};
    hs_device cpu1 = {.name = "cpu1", .kind = HS_DEVICE_CPU};
    hs_error err = {0};
    double D, us;
    (void)state;
    assert_int_equal(hs_perfmodel_kernel_size(&g, &D, &err), HS_OK);
    assert_float_equal(D, 2.0 * 2 * 4 * 3, 0); /* 2 m n k */
    assert_int_equal(hs_perfmodel_kernel_size(&v, &D, &err), HS_OK);
    assert_float_equal(D, 1000, 0);
    assert_int_equal(hs_perfmodel_kernel_size(&u, &D, &err), HS_EINPUT);
    /* gpu7 is not in the model by name: the kind's fit 0.01 x 500 + 10 */
    assert_int_equal(hs_perfmodel_predict_device(m, "va", 500, &gpu7, &us, &err), HS_OK);
    assert_float_equal(us, 15, 1e-12);
    assert_int_equal(hs_perfmodel_predict_device(m, "va", 500, &cpu1, &us, &err), HS_EINPUT);
    assert_string_equal(err.msg, "no performance model for va on cpu1 in model.json (run "
                                 "hetsched calibrate)");
    hs_perfmodel_free(m);
}

/* ------------------------------------------------------- a measured run */

/* The index of task `id` of w. */
static size_t task_of(hs_workload *w, const char *id)
{
    size_t t;
    int part, nparts;
    hs_error err = {0};
    if (hs_task_parse_id(w, id, &t, &part, &nparts, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return t;
}

static void entry_is(const hs_perfmodel *m, const char *type, const char *params, double D,
                     const char *device, double median, int n)
{
    hs_perf_history h;
    if (!hs_perfmodel_history(m, type, params, D, device, &h))
        fail_msg("no entry %s [%s] %g %s", type, params ? params : "", D, device);
    assert_float_equal(h.median_us, median, 0);
    assert_int_equal(h.nsamples, n);
}

/* A run's schedule, made by hand: a whole gemm, a va split 1/4 : 3/4, a
 * potrf (not splittable) split in two, and a cost-only task.  Each typed
 * time goes to its entry: the whole gemm at its params and D; the va
 * parts at f x D as parts (HS_PERF_PART); the potrf's part 0, which ran the whole
 * tile, at its params and D, its empty part 1 nowhere; the cost-only
 * task nowhere.  Twice the same run: two samples each. */
static void run_added_to_history(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host}\n"
        "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
        "  links:\n"
        "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"
        "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"
        "applications:\n"
        "  - name: a\n"
        "    kernels:\n"
        "      - {name: g, type: gemm, params: {n: 16}, cost_us: {cpu: 10, gpu: 5}}\n"
        "      - {name: v, type: va, params: {n: 1000}, cost_us: {cpu: 10, gpu: 5}}\n"
        "      - {name: p, type: potrf, params: {n: 8}, cost_us: {cpu: 10, gpu: 5}}\n"
        "      - {name: u, cost_us: {cpu: 1, gpu: 2}}\n";
    hs_perfmodel *m = hs_perfmodel_new();
    hs_workload *w = NULL;
    hs_schedule *s = hs_schedule_new(NULL, NULL);
    hs_perf_added added;
    hs_error err = {0};
    size_t g, v, p, u;
    (void)state;
    if (hs_workload_load_buffer("run.yaml", yaml, sizeof yaml - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    g = task_of(w, "a#0/g");
    v = task_of(w, "a#0/v");
    p = task_of(w, "a#0/p");
    u = task_of(w, "a#0/u");
    {
        const hs_placement pl[] = {
            {.task = g, .part = 0, .nparts = 1, .fraction = 1, .device = 1, .start_us = 0,
             .end_us = 40},
            {.task = v, .part = 0, .nparts = 2, .fraction = 0.25, .device = 0, .start_us = 10,
             .end_us = 20},
            {.task = v, .part = 1, .nparts = 2, .fraction = 0.75, .device = 1, .start_us = 40,
             .end_us = 70},
            {.task = p, .part = 0, .nparts = 2, .fraction = 0.5, .device = 0, .start_us = 20,
             .end_us = 35},
            {.task = p, .part = 1, .nparts = 2, .fraction = 0.5, .device = 1, .start_us = 70,
             .end_us = 71},
            {.task = u, .part = 0, .nparts = 1, .fraction = 1, .device = 0, .start_us = 0,
             .end_us = 5},
        };
        for (size_t i = 0; i < sizeof pl / sizeof pl[0]; i++)
            assert_true(hs_schedule_add_placement(s, &pl[i], &err) >= 0);
    }
    for (int run = 1; run <= 2; run++) {
        assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
        assert_int_equal(added.whole, 2);
        assert_int_equal(added.parts, 2);
        assert_int_equal(added.untyped, 1);
        assert_int_equal(hs_perfmodel_entries(m), 4);
        entry_is(m, "gemm", "n=16,m=16,k=16,alpha=1,beta=0,transb=0", 2.0 * 16 * 16 * 16,
                 "gpu0", 40, run);
        entry_is(m, "va", HS_PERF_PART, 250, "cpu0", 10, run);
        entry_is(m, "va", HS_PERF_PART, 750, "gpu0", 30, run);
        entry_is(m, "potrf", "n=8", 8.0 * 8 * 8 / 3, "cpu0", 15, run);
    }
    /* parts are predicted from the part nearest in size within a factor 2,
     * in proportion: 10 x 300 / 250 on cpu0, 30 x 1000 / 750 on gpu0 (and
     * on a gpu by kind); 600 is 2.4 times 250: nothing near, no fit */
    {
        hs_device cpu0 = {.name = "cpu0", .kind = HS_DEVICE_CPU};
        hs_device gpu0 = {.name = "gpu0", .kind = HS_DEVICE_GPU};
        hs_device gpu3 = {.name = "gpu3", .kind = HS_DEVICE_GPU};
        double us;
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 300, &cpu0, &us, &err), HS_OK);
        assert_float_equal(us, 12, 1e-12);
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 250, &cpu0, &us, &err), HS_OK);
        assert_float_equal(us, 10, 0);
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 1000, &gpu0, &us, &err), HS_OK);
        assert_float_equal(us, 40, 1e-12);
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 600, &cpu0, &us, &err), HS_EINPUT);
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 600, &gpu3, &us, &err), HS_EINPUT);
        assert_int_equal(hs_perfmodel_record(m, "va", HS_PERF_PART, 750, "gpu", 30, NULL, &err),
                         HS_OK);
        assert_int_equal(hs_perfmodel_predict_part(m, "va", 600, &gpu3, &us, &err), HS_OK);
        assert_float_equal(us, 24, 1e-12);
        /* a part's kernel time, never below its share of the whole (va
         * costs 10 us on cpu0): f = 0.25 the part entry's 10 us, f = 0.5
         * (size 500, twice 250: still near) 20 us; without a model, or
         * for a cost-only task, the share alone */
        assert_float_equal(hs__perf_part_kernel_us(m, w, v, 0, 0.25), 10, 1e-12);
        assert_float_equal(hs__perf_part_kernel_us(m, w, v, 0, 0.5), 20, 1e-12);
        assert_float_equal(hs__perf_part_kernel_us(NULL, w, v, 0, 0.25), 2.5, 1e-12);
        assert_float_equal(hs__perf_part_kernel_us(m, w, u, 0, 0.5), 0.5, 1e-12);
        /* parts are not points of a fit: three sizes of parts make none */
        assert_int_equal(hs_perfmodel_record(m, "va", HS_PERF_PART, 100, "cpu0", 5, NULL, &err),
                         HS_OK);
        assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
        assert_int_equal(hs_perfmodel_fits(m), 0);
    }
    /* a placement of another workload */
    s->placements[0].task = 99;
    assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_EINPUT);
    assert_string_equal(err.msg, "placement 0: no task 99 on device 1 in the workload");
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(m);
}

/* Two devices, host -> gpu0 and back at 10 GB/s and 5 us, six cost-only
 * kernels, x -> y carrying 1000 bytes: the overheads' and links' tests
 * place some of them by hand.  (cpu0's "cores: 1      }" has the room to
 * become "overhead_us: 3}" in place.) */
static const char two_devices_yaml[] =
    "platform:\n"
    "  devices:\n"
    "    - {name: cpu0, kind: cpu, memory: host, cores: 1      }\n"
    "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
    "  links:\n"
    "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"
    "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"
    "applications:\n"
    "  - name: a\n"
    "    kernels:\n"
    "      - {name: x, cost_us: {cpu: 10, gpu: 5}}\n"
    "      - {name: y, cost_us: {cpu: 10, gpu: 5}}\n"
    "      - {name: z, cost_us: {cpu: 10, gpu: 5}}\n"
    "      - {name: u, cost_us: {cpu: 10, gpu: 5}}\n"
    "      - {name: v, cost_us: {cpu: 10, gpu: 5}}\n"
    "      - {name: t, cost_us: {cpu: 10, gpu: 5}}\n"
    "    edges:\n"
    "      - {from: x, to: y, bytes: 1000}\n";

/* Each device's per-task overhead from a measured schedule made by hand,
 * edge x -> y (1000 bytes), copied cpu0 -> gpu0 over [10, 25]:
 *   cpu0: x [0,10], z [12,20], u [40,45], v [45,46], t [115,122]: each
 *         could start when the previous ended (no predecessors): waits 0,
 *         2, 20, 0, 69; the largest, the stall of 69, is dropped and the
 *         long wait of 20 is kept (a makespan sums it; a robust mean would
 *         drop it too: median 2, MAD 2, its modified z-score 6.1): mean
 *         (0 + 2 + 20 + 0) / 4 = 5.5 us;
 *   gpu0: y [30,40]: inputs there at 25 (the copy; x ended at 10): 5 us.
 * add_run records cpu0's (5 placements) as type "overhead" and not gpu0's
 * (1); the model then gives cpu0's to a workload whose platform has none
 * (a 10 us kernel costs 15.5 us there) and leaves a given overhead_us and
 * a device it never measured alone. */
static void overheads_measured_and_applied(void **state)
{
    const char *yaml = two_devices_yaml;
    size_t len = sizeof two_devices_yaml - 1;
    hs_perfmodel *m = hs_perfmodel_new();
    hs_load_options lo = {.cost_fn = hs_perfmodel_cost_fn};
    hs_workload *w = NULL, *with = NULL, *kept = NULL;
    hs_schedule *s = hs_schedule_new(NULL, NULL);
    hs_perf_added added;
    hs_error err = {0};
    double over[2], us;
    size_t ran[2];
    hs_device probe = {.name = "gpu0", .kind = HS_DEVICE_GPU};
    char *text;
    (void)state;
    if (hs_workload_load_buffer("o.yaml", yaml, len, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    {
        const struct { const char *id; int device; double start, end; } pl[] = {
            {"a#0/x", 0, 0, 10},  {"a#0/z", 0, 12, 20}, {"a#0/u", 0, 40, 45},
            {"a#0/v", 0, 45, 46}, {"a#0/t", 0, 115, 122}, {"a#0/y", 1, 30, 40}};
        for (size_t i = 0; i < sizeof pl / sizeof pl[0]; i++) {
            hs_placement p = {.task = task_of(w, pl[i].id), .nparts = 1, .fraction = 1,
                              .device = pl[i].device, .start_us = pl[i].start,
                              .end_us = pl[i].end};
            assert_true(hs_schedule_add_placement(s, &p, &err) >= 0);
        }
        hs_transfer c = {.from_placement = 0, .to_placement = 5, .from_device = 0,
                         .to_device = 1, .bytes = 1000, .start_us = 10, .end_us = 25};
        assert_true(hs_schedule_add_transfer(s, &c, &err) >= 0);
    }
    assert_int_equal(hs_perfmodel_overheads(w, s, over, ran, &err), HS_OK);
    assert_float_equal(over[0], 5.5, 1e-12);
    assert_float_equal(over[1], 5, 0);
    assert_int_equal(ran[0], 5);
    assert_int_equal(ran[1], 1);
    assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
    assert_int_equal(added.overheads, 1);
    assert_int_equal(added.untyped, 6);
    entry_is(m, HS_PERF_OVERHEAD, NULL, 1, "cpu0", 5.5, 1);
    assert_int_equal(hs_perfmodel_cost_fn(m, NULL, &probe, &us, &err), 1); /* none */
    lo.cost_ctx = m;
    if (hs_workload_load_buffer_opts("o.yaml", yaml, len, &lo, &with, &err) !=
        HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(with->platform.devices[0].overhead_us, 5.5, 0);
    assert_float_equal(with->platform.devices[1].overhead_us, 0, 0);
    assert_float_equal(with->graph.tasks[0].cost_us[0], 15.5, 1e-12);
    assert_float_equal(with->graph.tasks[0].cost_us[1], 5, 0);
    /* cpu0 with overhead_us: 3 of its own keeps it */
    text = strdup(yaml);
    assert_non_null(text);
    memcpy(strstr(text, "cores: 1      }"), "overhead_us: 3}", strlen("overhead_us: 3}"));
    if (hs_workload_load_buffer_opts("o.yaml", text, strlen(text), &lo, &kept, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(kept->platform.devices[0].overhead_us, 3, 0);
    assert_float_equal(kept->graph.tasks[0].cost_us[0], 13, 0);
    free(text);
    hs_workload_free(kept);
    hs_workload_free(with);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(m);
}

/* Each link's bandwidth from a measured schedule made by hand on
 * two_devices_yaml, host -> gpu0 declared at 10 GB/s and 5 us: copies of
 * 50 MB in 6255 us and 30 MB in 3755 us (8 GB/s beyond the latency) and
 * one of 1000 bytes (under 1 MiB: left out); gpu0 -> host moved 2 MB
 * (under 64 MiB: not recorded).
 * The model's entry is (6250 + 3750) us / 80 MB = 125 us per MB; a
 * workload loaded with it has host -> gpu0 at 1000 / 125 = 8 GB/s and
 * gpu0 -> host as declared.  A link entry of 0 us is refused. */
static void links_measured_and_applied(void **state)
{
    const char *yaml = two_devices_yaml;
    size_t len = sizeof two_devices_yaml - 1;
    const struct { int from, to; double bytes, start, end; } copies[] = {
        {0, 1, 50e6, 10, 6265}, {0, 1, 30e6, 6265, 10020}, {0, 1, 1000, 10020, 10030},
        {1, 0, 2e6, 20010, 20215}};
    hs_perfmodel *m = hs_perfmodel_new(), *zero = hs_perfmodel_new();
    hs_load_options lo = {.cost_fn = hs_perfmodel_cost_fn, .link_fn = hs_perfmodel_link_fn};
    hs_workload *w = NULL, *with = NULL;
    hs_schedule *s = hs_schedule_new(NULL, NULL);
    hs_perf_added added;
    hs_error err = {0};
    double gbps;
    (void)state;
    if (hs_workload_load_buffer("l.yaml", yaml, len, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    {
        hs_placement x = {.task = task_of(w, "a#0/x"), .nparts = 1, .fraction = 1,
                          .device = 0, .start_us = 0, .end_us = 10};
        hs_placement y = {.task = task_of(w, "a#0/y"), .nparts = 1, .fraction = 1,
                          .device = 1, .start_us = 20000, .end_us = 20010};
        assert_true(hs_schedule_add_placement(s, &x, &err) >= 0);
        assert_true(hs_schedule_add_placement(s, &y, &err) >= 0);
    }
    for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
        hs_transfer c = {.from_placement = HS_NONE, .to_placement = HS_NONE,
                         .from_device = copies[i].from, .to_device = copies[i].to,
                         .bytes = copies[i].bytes, .start_us = copies[i].start,
                         .end_us = copies[i].end};
        assert_true(hs_schedule_add_transfer(s, &c, &err) >= 0);
    }
    assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
    assert_int_equal(added.links, 1);
    entry_is(m, HS_PERF_LINK, NULL, HS_PERF_LINK_BYTES, "host->gpu0", 125, 1);
    assert_int_equal(hs_perfmodel_link_fn(m, "host", "gpu0", &gbps, &err), 0);
    assert_float_equal(gbps, 8, 1e-12);
    assert_int_equal(hs_perfmodel_link_fn(m, "gpu0", "host", &gbps, &err), 1); /* none */
    lo.cost_ctx = m;
    if (hs_workload_load_buffer_opts("l.yaml", yaml, len, &lo, &with, &err) !=
        HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(with->platform.links[0 * 2 + 1].bandwidth_gbps, 8, 1e-12);
    assert_float_equal(with->platform.links[1 * 2 + 0].bandwidth_gbps, 10, 0);
    assert_float_equal(with->platform.links[0 * 2 + 1].latency_us, 5, 0);
    hs_workload_free(with);
    with = NULL;
    /* a link entry of 0 us would be an infinite bandwidth */
    assert_int_equal(hs_perfmodel_record(zero, HS_PERF_LINK, NULL, HS_PERF_LINK_BYTES,
                                         "host->gpu0", 0, NULL, &err), HS_OK);
    lo.cost_ctx = zero;
    assert_int_equal(hs_workload_load_buffer_opts("l.yaml", yaml, len, &lo, &with, &err),
                     HS_EINPUT);
    assert_non_null(strstr(err.msg, "link host -> gpu0: the model's link entry host->gpu0 "
                                    "takes 0 us for 1e+06 bytes"));
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(m);
    hs_perfmodel_free(zero);
}

/* 64 va tasks on cpu0 as one run: the first 32 at `first` us, the last 32
 * at `last`. */
static hs_schedule *va_run(hs_workload *w, double first, double last)
{
    hs_schedule *s = hs_schedule_new(NULL, NULL);
    hs_error err = {0};
    char id[32];
    for (int i = 0; i < 64; i++) {
        hs_placement p = {.nparts = 1, .fraction = 1, .device = 0, .start_us = 30.0 * i,
                          .end_us = 30.0 * i + (i < 32 ? first : last)};
        snprintf(id, sizeof id, "a#%d/v", i);
        p.task = task_of(w, id);
        assert_true(hs_schedule_add_placement(s, &p, &err) >= 0);
    }
    return s;
}

/* A run gives an entry more samples than it may add to the window: 64 va
 * tasks on cpu0, the first 32 at 10 us, the last 32 at 20 us.  Each is
 * counted (64 in all, kept or flagged), and the window gets every eighth,
 * 4 of each (HS_PERF_RUN_SHARE), so its median is 15 us; keeping the last
 * would make it 20.  Then, in a new model, runs at 10, 10 and 30 us (a
 * stray one, as a busy spell of the machine makes): 8 samples each, the
 * median stays 10 (one run filling the window made it 30); a second run at
 * 30 leaves 16 of each (median 20), a third makes 30 the median: a lasting
 * change takes the entry over. */
static void run_spread_over_window(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host, cores: 1}\n"
        "applications:\n"
        "  - name: a\n"
        "    instances: 64\n"
        "    kernels:\n"
        "      - {name: v, type: va, params: {n: 1000}, cost_us: {cpu: 10}}\n";
    static const double runs[] = {10, 10, 30, 30, 30}, median[] = {10, 10, 10, 20, 30};
    hs_perfmodel *m = hs_perfmodel_new();
    hs_workload *w = NULL;
    hs_schedule *s;
    hs_perf_added added;
    hs_perf_history h;
    hs_perf_kernel pk;
    hs_error err = {0};
    (void)state;
    if (hs_workload_load_buffer("s.yaml", yaml, sizeof yaml - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(hs_perfmodel_kernel_of(&w->apps[0].kernels[0], &pk, &err), HS_OK);
    s = va_run(w, 10, 20);
    assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
    hs_schedule_free(s);
    assert_int_equal(added.whole, 64);
    assert_true(hs_perfmodel_history(m, "va", pk.params, pk.size, "cpu0", &h));
    assert_int_equal(h.nsamples, HS_PERF_RUN_SHARE);
    assert_float_equal(h.median_us, 15, 0);
    assert_int_equal(h.count + h.rejected, 64);
    hs_perfmodel_free(m);
    m = hs_perfmodel_new();
    for (int r = 0; r < 5; r++) {
        s = va_run(w, runs[r], runs[r]);
        assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
        hs_schedule_free(s);
        assert_true(hs_perfmodel_history(m, "va", pk.params, pk.size, "cpu0", &h));
        assert_int_equal(h.nsamples, r < 4 ? (r + 1) * HS_PERF_RUN_SHARE : HS_PERF_WINDOW);
        if (fabs(h.median_us - median[r]) > 1e-9)
            fail_msg("after run %d: median %g, expected %g", r + 1, h.median_us, median[r]);
    }
    assert_int_equal(h.count + h.rejected, 5 * 64);
    hs_workload_free(w);
    hs_perfmodel_free(m);
}

/* StarPU's loop: a workload of typed kernels without cost_us, on one CPU,
 * predicted first from a model of fits only; it runs for real (cpu
 * backend), the run is added to that model, and the same workload loaded
 * with it is predicted from the run: each kernel's cost is its measured
 * time, exactly, and the predicted makespan of the chain their sum. */
static void second_run_predicted_from_first(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host, cores: 1}\n"
        "applications:\n"
        "  - name: c\n"
        "    kernels:\n"
        "      - {name: v, type: va, params: {n: 20000}}\n"
        "      - {name: s, type: scale, params: {n: 20000}}\n"
        "    edges:\n"
        "      - {from: v, to: s, bytes: 80000}\n";
    static const char fits[] =
        "{\"hetsched_perfmodel\": 2, \"history\": [], \"fits\": [\n"
        " {\"type\": \"va\", \"device\": \"cpu\", \"a\": 1e-3, \"b\": 1, \"c\": 1, \"points\": 3,"
        " \"rms_rel\": 0},\n"
        " {\"type\": \"scale\", \"device\": \"cpu\", \"a\": 1e-3, \"b\": 1, \"c\": 1, \"points\": 3,"
        " \"rms_rel\": 0}]}\n";
    hs_perfmodel *m = NULL;
    hs_load_options lo = {.cost_fn = hs_perfmodel_cost_fn};
    hs_workload *w = NULL, *again = NULL;
    hs_schedule *s = NULL, *pred = NULL;
    hs_run_report report = {0};
    hs_backend b = {.ops = &hs_backend_cpu, .state = &report};
    hs_map_options opt = {0};
    hs_perf_added added;
    hs_error err = {0};
    double span[2] = {0};
    char path[64], wpath[64];
    (void)state;
    temp_path(path, sizeof path);
    write_file(path, fits);
    if (hs_perfmodel_load(path, &m, &err) != HS_OK)
        fail_msg("%s", err.msg);
    temp_path(wpath, sizeof wpath);
    write_file(wpath, yaml);
    lo.cost_ctx = m;
    if (hs_workload_load_file_opts(wpath, &lo, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(w->graph.tasks[0].cost_us[0], 21, 1e-12); /* the fit: 1e-3 x 2e4 + 1 */
    if (hs_engine_run(w, hs_policy_find("heft"), &opt, &b, &s, NULL, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(report.checked, 2);
    for (size_t i = 0; i < s->nplacements; i++)
        span[s->placements[i].task] = s->placements[i].end_us - s->placements[i].start_us;
    assert_int_equal(hs_perfmodel_add_run(m, w, s, &added, &err), HS_OK);
    assert_int_equal(added.whole, 2);

    if (hs_workload_load_file_opts(wpath, &lo, &again, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(again->graph.tasks[0].cost_us[0], span[0], 0);
    assert_float_equal(again->graph.tasks[1].cost_us[0], span[1], 0);
    if (hs_map(again, "heft", &opt, &pred, NULL, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_float_equal(pred->makespan_us, span[0] + span[1], 1e-9);
    hs_schedule_free(pred);
    hs_workload_free(again);
    hs_run_report_free(&report);
    hs_schedule_free(s);
    hs_workload_free(w);
    hs_perfmodel_free(m);
    unlink(path);
    unlink(wpath);
}

/* --------------------------------------------------------------- the plot */

/* Two types: a picture of two panels side by side, written as PNG (read
 * back at its size, with marks of the devices' colours on it), and as
 * SVG; refusals for another extension and for a model without history.
 * Without cairo: not built in. */
static void plot_picture(void **state)
{
    hs_perfmodel *m = hs_perfmodel_new(), *empty = hs_perfmodel_new();
    hs_error err = {0};
    char png[64], svg[64];
    (void)state;
    for (int i = 0; i < 4; i++) {
        double D = 1e4 * pow(10, i);
        for (int k = 0; k < 3; k++) {
            record_ok(m, "gemm", D, "cpu0", 1e-3 * D + 5 + k, 1);
            record_ok(m, "gemm", D, "gpu0", 1e-5 * D + 20 + k, 1);
            record_ok(m, "va", D, "cpu0", 1e-4 * D + 1 + k, 1);
        }
    }
    assert_int_equal(hs_perfmodel_fit(m, &err), HS_OK);
    snprintf(png, sizeof png, "/tmp/hs_perfmodel_plot_%d.png", (int)getpid());
    snprintf(svg, sizeof svg, "/tmp/hs_perfmodel_plot_%d.svg", (int)getpid());
#if HS_HAVE_CAIRO
    {
        cairo_surface_t *img;
        const unsigned char *px;
        int stride, coloured = 0;
        assert_int_equal(hs_perfmodel_plot(m, png, &err), HS_OK);
        img = cairo_image_surface_create_from_png(png);
        assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
        assert_int_equal(cairo_image_surface_get_width(img), 1120);
        assert_int_equal(cairo_image_surface_get_height(img), 450);
        px = cairo_image_surface_get_data(img);
        stride = cairo_image_surface_get_stride(img);
        /* pixels that are neither grey nor white: samples, rings, curves */
        for (int y = 0; y < 450; y++)
            for (int x = 0; x < 1120; x++) {
                const unsigned char *c = px + (size_t)y * (size_t)stride + 4 * (size_t)x;
                coloured += abs(c[0] - c[1]) > 20 || abs(c[1] - c[2]) > 20;
            }
        assert_true(coloured > 500);
        cairo_surface_destroy(img);
        assert_int_equal(hs_perfmodel_plot(m, svg, &err), HS_OK);
        assert_true(access(svg, R_OK) == 0);
        unlink(png);
        unlink(svg);
    }
    assert_int_equal(hs_perfmodel_plot(m, "/tmp/model.txt", &err), HS_EINPUT);
    assert_string_equal(err.msg, "/tmp/model.txt: a model plot is written as .png or .svg (by "
                                 "the extension)");
    assert_int_equal(hs_perfmodel_plot(empty, png, &err), HS_EINPUT);
    assert_string_equal(err.msg, "nothing to plot: the model has no history");
#else
    assert_int_equal(hs_perfmodel_plot(m, png, &err), HS_ENOTBUILT);
    assert_string_equal(err.msg, "model plots need cairo: not built in");
#endif
    hs_perfmodel_free(m);
    hs_perfmodel_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(welford_stats),         cmocka_unit_test(spike_rejected),
        cmocka_unit_test(mad_floor),             cmocka_unit_test(median_spikes_and_steps),
        cmocka_unit_test(window_keeps_latest),   cmocka_unit_test(kernel_params_text),
        cmocka_unit_test(exact_entry_wins),      cmocka_unit_test(fit_on_medians),
        cmocka_unit_test(record_refusals),       cmocka_unit_test(fit_exact),
        cmocka_unit_test(fit_refusals),          cmocka_unit_test(fit_noisy_and_predict),
        cmocka_unit_test(save_load_round_trip),  cmocka_unit_test(load_refusals),
        cmocka_unit_test(typed_costs_from_model), cmocka_unit_test(typed_cost_missing),
        cmocka_unit_test(kernel_size_and_kind),  cmocka_unit_test(run_added_to_history),
        cmocka_unit_test(second_run_predicted_from_first), cmocka_unit_test(plot_picture),
        cmocka_unit_test(overheads_measured_and_applied),
        cmocka_unit_test(run_spread_over_window),
        cmocka_unit_test(links_measured_and_applied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
