/* Tests of the performance models (mapper/perfmodel.c): Welford statistics,
 * outlier rejection, the a*D^b+c fit on exact and noisy data, prediction
 * sources, the JSON save/load round trip and its refusals, and the model as
 * the cost provider of a workload's typed kernels. */
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

static void load_refusals(void **state)
{
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    (void)state;
    /* syntax: the '}' is the 39th character of the line */
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [}\n",
                      ":1:39: error: unexpected token near '}'");
    expect_load_error("[]", ":1:1: error: a performance model is a JSON object, not an array");
    expect_load_error("{\"hetsched_perfmodel\": 2, \"history\": [], \"fits\": []}",
                      ":1:24: error: hetsched_perfmodel: must be 1, not 2");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": []}",
                      ":1:1: error: missing key 'fits' (a performance model has "
                      "hetsched_perfmodel, history, fits)");
    /* entries, each item located by line and column */
    expect_load_error("{\"hetsched_perfmodel\": 1,\n \"history\": [{\"type\": \"gemm\"}], "
                      "\"fits\": []}",
                      ":2:14: error: history[0]: missing key 'size' (a history entry has type, "
                      "size, device, mean_us, stddev_us, count, rejected, samples)");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "-1", "[5]")
                      "], \"fits\": []}",
                      ":2:24: error: history[0].size: must be a finite number > 0, not -1");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [\n" ENTRY("va", "1", "[5, 5, 5]")
                      "], \"fits\": []}",
                      ":2:113: error: history[0].samples: holds 3 samples, more than count (2) or "
                      "than the 32 a window keeps");
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
                      ":2:10: error: history[0].type: must be a name without control "
                      "characters, not 'v\\na'");
    expect_load_error("{\"hetsched_perfmodel\": 1, \"history\": [], \"fits\": [], "
                      "\"\\u001b[2J\": 0}",
                      ":1:67: error: \\x1b[2J: unknown key (a performance model has "
                      "hetsched_perfmodel, history, fits)");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(welford_stats),        cmocka_unit_test(spike_rejected),
        cmocka_unit_test(mad_floor),            cmocka_unit_test(record_refusals),
        cmocka_unit_test(fit_exact),            cmocka_unit_test(fit_refusals),
        cmocka_unit_test(fit_noisy_and_predict), cmocka_unit_test(save_load_round_trip),
        cmocka_unit_test(load_refusals),
        cmocka_unit_test(typed_costs_from_model), cmocka_unit_test(typed_cost_missing),
        cmocka_unit_test(kernel_size_and_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
