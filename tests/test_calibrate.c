/* Tests of calibration (exec/calibrate.c) on the CPU: a quick calibration
 * of two small types gives a model that loads back with positive,
 * monotone predictions; the platform YAML loads as a workload's platform;
 * a spike among repeated samples leaves the fit where it was; the size
 * plans; and the refusals of bad options.  No GPU is needed (CI has
 * none): GPUs are left out with --devices cpu. */
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

#include "exec/calibrate.h"
#include "exec/mem.h"
#include "hetsched/hetsched.h"
#include "mapper/perfmodel.h"

/* A temporary file name (the file is created empty). */
static void temp_path(char *buf, size_t size)
{
    int fd;
    snprintf(buf, size, "/tmp/hs_calibrate_XXXXXX");
    fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

static void calibrate_ok(const hs_calib_options *o, hs_calib_result *r)
{
    hs_error err = {0};
    if (hs_calibrate(o, r, &err) != HS_OK)
        fail_msg("%s", err.msg);
}

static void rel_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, tol);
}

/* A quick calibration of va and scale on one CPU thread: each type at the
 * quick plan's 4 sizes (see size_plans), fitted, saved, loaded back; every
 * prediction from the measured sizes up to the largest, and between them
 * from the fit, is positive and grows with D. */
static void quick_cpu_model(void **state)
{
    hs_calib_options o = {.types = "va,scale", .sizes = "quick", .devices = "cpu", .reps = 3,
                          .threads = 1};
    hs_calib_result r;
    hs_perfmodel *m = NULL;
    hs_error err = {0};
    char path[64];
    (void)state;
    calibrate_ok(&o, &r);
    assert_int_equal(r.nrows, 2);
    assert_int_equal(r.threads, 1);
    assert_int_equal(r.nlinks, 0);
    temp_path(path, sizeof path);
    if (hs_perfmodel_save(r.model, path, &err) != HS_OK ||
        hs_perfmodel_load(path, &m, &err) != HS_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 2; i++) {
        const hs_calib_row *row = &r.rows[i];
        hs_perf_fit f;
        double prev = 0;
        assert_string_equal(row->device, "cpu0");
        assert_string_equal(row->type, i == 0 ? "va" : "scale");
        assert_int_equal(row->nsizes, 4);
        assert_true(row->samples >= 4 && row->samples + row->rejected == 4 * 3);
        assert_true(hs_perfmodel_get_fit(m, row->type, "cpu0", &f));
        /* va and scale: D = n, from 1e4 up to the 64 MiB cap: va 5592405
         * (size_plans), scale floor(2^26 / 8) = 8388608 (buffers a and b) */
        rel_close(row->dmin, 1e4, 0);
        rel_close(row->dmax, i == 0 ? 5592405 : 8388608, 0);
        for (int k = 0; k <= 24; k++) {
            double D = row->dmin * pow(row->dmax / row->dmin, k / 24.0), us;
            hs_perf_source src;
            if (hs_perfmodel_predict(m, row->type, NULL, D, "cpu0", &us, &src, &err) != HS_OK)
                fail_msg("%s", err.msg);
            if (!(us > prev))
                fail_msg("%s: prediction %g us at D %g after %g us", row->type, us, D, prev);
            prev = us;
        }
    }
    hs_perfmodel_free(m);
    unlink(path);
    hs_calib_result_free(&r);
}

/* Loads `platform` (a file hs_calib_write_platform wrote) completed with
 * a tiny application of two kernels on either side of an edge. */
static hs_workload *load_with_app(const char *platform)
{
    static const char app[] = "applications:\n"
                              "  - name: tiny\n"
                              "    kernels:\n"
                              "      - {name: a, cost_us: {cpu: 10, gpu: 5}}\n"
                              "      - {name: b, cost_us: {cpu: 10, gpu: 5}}\n"
                              "    edges:\n"
                              "      - {from: a, to: b, bytes: 1000}\n";
    FILE *f = fopen(platform, "a");
    hs_workload *w = NULL;
    hs_error err = {0};
    assert_non_null(f);
    fputs(app, f);
    fclose(f);
    if (hs_workload_load_file(platform, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    return w;
}

/* The CPU-only platform: cpu0 on host with the threads as cores. */
static void platform_cpu_loads(void **state)
{
    hs_calib_options o = {.types = "va", .sizes = "1000,2000,4000", .devices = "cpu",
                          .reps = 3, .threads = 3};
    hs_calib_result r;
    hs_error err = {0};
    hs_workload *w;
    char path[64];
    (void)state;
    calibrate_ok(&o, &r);
    temp_path(path, sizeof path);
    if (hs_calib_write_platform(&r, path, &err) != HS_OK)
        fail_msg("%s", err.msg);
    w = load_with_app(path);
    assert_int_equal(w->platform.ndevices, 1);
    assert_string_equal(w->platform.devices[0].name, "cpu0");
    assert_int_equal(w->platform.devices[0].kind, HS_DEVICE_CPU);
    assert_int_equal(w->platform.devices[0].cores, 3);
    assert_int_equal(w->platform.nmemories, 1);
    hs_workload_free(w);
    unlink(path);
    hs_calib_result_free(&r);
}

/* A platform with GPUs and measured links, as a GPU machine gives it (the
 * result is built by hand: CI has no GPU): devices, memories and every
 * link read back with the same numbers. */
static void platform_links_load(void **state)
{
    hs_calib_result r = {.threads = 4, .ngpus = 2};
    hs_error err = {0};
    hs_workload *w;
    char path[64];
    const char *mem[] = {"host", "gpu0", "gpu1"};
    (void)state;
    snprintf(r.gpu_names[0], sizeof r.gpu_names[0], "Test GPU, 80.0 GiB");
    snprintf(r.gpu_names[1], sizeof r.gpu_names[1], "Test GPU, 80.0 GiB");
    r.platform = hs_workload_new();
    assert_non_null(r.platform);
    assert_true(hs_platform_add_device(r.platform, "cpu0", HS_DEVICE_CPU, "host", 4, &err) >= 0);
    assert_true(hs_platform_add_device(r.platform, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err) >= 0);
    assert_true(hs_platform_add_device(r.platform, "gpu1", HS_DEVICE_GPU, "gpu1", 0, &err) >= 0);
    /* bandwidth 10 * (q + 1) + r GB/s, latency q + r / 4 us: all distinct */
    for (int q = 0; q < 3; q++)
        for (int s = 0; s < 3; s++)
            if (q != s)
                assert_true(hs_platform_add_link(r.platform, mem[q], mem[s], 10.0 * (q + 1) + s,
                                                 q + s / 4.0, &err) >= 0);
    temp_path(path, sizeof path);
    if (hs_calib_write_platform(&r, path, &err) != HS_OK)
        fail_msg("%s", err.msg);
    w = load_with_app(path);
    assert_int_equal(w->platform.ndevices, 3);
    assert_int_equal(w->platform.nmemories, 3);
    assert_int_equal(w->platform.devices[0].cores, 4);
    for (int q = 0; q < 3; q++)
        for (int s = 0; s < 3; s++) {
            int a = hs_platform_find_memory(&w->platform, mem[q]);
            int b = hs_platform_find_memory(&w->platform, mem[s]);
            const hs_link *l = &w->platform.links[a * w->platform.nmemories + b];
            if (q == s)
                continue;
            assert_true(l->present);
            assert_true(l->bandwidth_gbps == 10.0 * (q + 1) + s);
            assert_true(l->latency_us == q + s / 4.0);
        }
    hs_workload_free(w);
    unlink(path);
    hs_calib_result_free(&r);
}

/* On a GPU machine (skipped elsewhere): va on gpu0 at 3 sizes gives a fit,
 * and both links of gpu0 a positive bandwidth and latency, and the
 * platform with them loads. */
static void gpu_quick(void **state)
{
    hs_calib_options o = {.types = "va", .sizes = "1000,10000,100000", .devices = "gpu0",
                          .reps = 3};
    hs_calib_result r;
    hs_perf_fit f;
    hs_error err = {0};
    hs_workload *w;
    char why[160], path[64];
    (void)state;
    if (hs__cuda_gpu_count(why, sizeof why) == 0) {
        fprintf(stderr, "gpu_quick skipped: %s\n", why);
        skip();
    }
    calibrate_ok(&o, &r);
    assert_int_equal(r.nlinks, 2);
    for (int i = 0; i < 2; i++) {
        assert_true(r.links[i].bandwidth_gbps > 0 && isfinite(r.links[i].bandwidth_gbps));
        assert_true(r.links[i].latency_us > 0 && isfinite(r.links[i].latency_us));
    }
    assert_true(hs_perfmodel_get_fit(r.model, "va", "gpu0", &f));
    temp_path(path, sizeof path);
    if (hs_calib_write_platform(&r, path, &err) != HS_OK)
        fail_msg("%s", err.msg);
    w = load_with_app(path);
    assert_int_equal(w->platform.nmemories, 2);
    hs_workload_free(w);
    unlink(path);
    hs_calib_result_free(&r);
}

/* The hook of gpu_for_parts: va n=1000 whole takes 30 us on cpu0 and 10 on
 * gpu0; a part takes 1 us an item.  Counts the parts it saw by device. */
typedef struct parts_ctx {
    int parts[2];
    double size[2];
} parts_ctx;

static void part_samples(void *ctx, const char *type, const char *params, double D,
                         const char *device, double *us, int n)
{
    parts_ctx *p = ctx;
    int gpu = strcmp(device, "gpu0") == 0, part = strcmp(params, HS_PERF_PART) == 0;
    assert_string_equal(type, "va");
    if (part) {
        p->parts[gpu]++;
        p->size[gpu] = D;
    }
    for (int i = 0; i < n; i++)
        us[i] = part ? D : gpu ? 10 : 30;
}

/* On a GPU machine (skipped elsewhere): calibrate --for a workload of one
 * splittable va (1000 items) on cpu0 and gpu0 measures it whole on each,
 * then in the part ad-part gives each, by speed: 1/30 : 1/10, so cpu0
 * items [0, 250) and gpu0 [0, 750), recorded as parts at D 250 and 750
 * (1 us an item), from which the model predicts parts near them. */
static void gpu_for_parts(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host, cores: 2}\n"
        "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
        "  links:\n"
        "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"
        "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"
        "applications:\n"
        "  - name: a\n"
        "    kernels:\n"
        "      - {name: v, type: va, params: {n: 1000}, cost_us: {cpu: 1, gpu: 1}}\n";
    parts_ctx p = {0};
    hs_calib_options o = {.devices = "cpu,gpu0", .reps = 3, .sample_hook = part_samples,
                          .hook_ctx = &p};
    hs_calib_result r;
    hs_workload *w = NULL;
    hs_perf_history h;
    hs_error err = {0};
    char why[160];
    double us;
    (void)state;
    if (hs__cuda_gpu_count(why, sizeof why) == 0) {
        fprintf(stderr, "gpu_for_parts skipped: %s\n", why);
        skip();
    }
    if (hs_workload_load_buffer("parts.yaml", yaml, sizeof yaml - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    o.workload = w;
    calibrate_ok(&o, &r);
    assert_int_equal(p.parts[0], 1);
    assert_int_equal(p.parts[1], 1);
    assert_float_equal(p.size[0], 250, 0);
    assert_float_equal(p.size[1], 750, 0);
    assert_int_equal(r.rows[0].parts, 1);
    assert_int_equal(r.rows[1].parts, 1);
    assert_int_equal(hs_perfmodel_history(r.model, "va", HS_PERF_PART, 250, "cpu0", &h), 1);
    assert_float_equal(h.median_us, 250, 0);
    assert_int_equal(hs_perfmodel_predict_part(r.model, "va", 300, &w->platform.devices[0], &us,
                                               &err), HS_OK);
    assert_float_equal(us, 300, 1e-9);
    hs_calib_result_free(&r);
    hs_workload_free(w);
}

/* ------------------------------------------------------------- spikes */

/* The hook of spike_leaves_fit: replaces the measured samples with exact
 * ones, cost = 0.002 D^0.9 + 5 us, times 1 + e_i with e = (0, +.4%, -.4%,
 * +.2%, -.2%) (median 0); with `spike` set, sample 1 at D = 1e5 becomes
 * 20x. */
typedef struct spike_ctx {
    int spike;
    int batches;
} spike_ctx;

static const double noise[5] = {0, 0.004, -0.004, 0.002, -0.002};

static double exact_cost(double D)
{
    return 0.002 * pow(D, 0.9) + 5.0;
}

static void fake_samples(void *ctx, const char *type, const char *params, double D,
                         const char *device, double *us, int n)
{
    spike_ctx *s = ctx;
    (void)type;
    (void)params;
    (void)device;
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++)
        us[i] = exact_cost(D) * (1 + noise[i]);
    if (s->spike && D == 1e5)
        us[1] *= 20;
    s->batches++;
}

/* The same calibration (va on the CPU at n = D = 1e3 .. 1e6, samples from
 * fake_samples) with and without a 20x spike in one sample of one size:
 * the entry's median is the exact cost either way (the spike replaced a
 * sample above the median), so the fit stays within 1e-9 of the
 * spike-free one, which itself recovers the exact a, b, c; the batch rule
 * flags the spike (1 rejected, 4 kept in the mean).  Recording the same
 * spiked samples one by one, before the window's rule is active, leaves
 * the median exact too, while the mean moves to (3.996 + 20 x 1.004) / 5
 * = 4.8152 times the cost: the median is what keeps the spike out. */
static void spike_leaves_fit(void **state)
{
    hs_calib_options o = {.types = "va", .sizes = "1000,10000,100000,1000000",
                          .devices = "cpu", .reps = 5, .threads = 1,
                          .sample_hook = fake_samples};
    spike_ctx clean = {0}, spiked = {.spike = 1};
    hs_calib_result a, b;
    hs_perf_fit fa, fb;
    hs_perf_history h;
    hs_perfmodel *naive = hs_perfmodel_new();
    hs_error err = {0};
    (void)state;
    o.hook_ctx = &clean;
    calibrate_ok(&o, &a);
    o.hook_ctx = &spiked;
    calibrate_ok(&o, &b);
    assert_int_equal(clean.batches, 4);
    assert_int_equal(spiked.batches, 4);
    assert_true(hs_perfmodel_get_fit(a.model, "va", "cpu0", &fa));
    assert_true(hs_perfmodel_get_fit(b.model, "va", "cpu0", &fb));
    rel_close(fa.a, 0.002, 1e-6);
    rel_close(fa.b, 0.9, 1e-6);
    rel_close(fa.c, 5.0, 1e-6);
    rel_close(fb.a, fa.a, 1e-9);
    rel_close(fb.b, fa.b, 1e-9);
    rel_close(fb.c, fa.c, 1e-9);
    assert_true(hs_perfmodel_history(b.model, "va", "n=100000", 1e5, "cpu0", &h));
    assert_int_equal(h.count, 4);
    assert_int_equal(h.rejected, 1);
    assert_int_equal(h.nsamples, 5);
    assert_int_equal(b.rows[0].rejected, 1);
    assert_int_equal(b.rows[0].samples, 19);
    rel_close(h.median_us, exact_cost(1e5), 1e-12);
    rel_close(h.mean_us, exact_cost(1e5) * (1 - 0.004 / 4), 1e-12); /* the 4 kept */
    /* the control: one at a time, the spike goes into the mean only */
    for (int i = 0; i < 5; i++) {
        double us = exact_cost(1e5) * (1 + noise[i]) * (i == 1 ? 20 : 1);
        if (hs_perfmodel_record(naive, "va", NULL, 1e5, "cpu0", us, NULL, &err) != HS_OK)
            fail_msg("%s", err.msg);
    }
    assert_true(hs_perfmodel_history(naive, "va", NULL, 1e5, "cpu0", &h));
    rel_close(h.median_us, exact_cost(1e5), 1e-12);
    rel_close(h.mean_us, exact_cost(1e5) * 4.8152, 1e-12);
    hs_perfmodel_free(naive);
    hs_calib_result_free(&a);
    hs_calib_result_free(&b);
}

/* hs_perfmodel_record_batch and hs_perfmodel_robust_mean on a hand-made
 * batch: 100, 101, 99, 100, 5000, 100, 102.  Median 100; absolute
 * deviations 0, 1, 1, 0, 4900, 0, 2 have median 1, so the MAD is 1 (= the
 * 1% floor); 5000 scores 0.6745 * 4900 = 3305 > 3.5, 102 scores 1.35 and
 * stays.  Kept mean: (100 + 101 + 99 + 100 + 100 + 102) / 6 = 100.333. */
static void batch_rule(void **state)
{
    const double x[7] = {100, 101, 99, 100, 5000, 100, 102};
    hs_perfmodel *m = hs_perfmodel_new();
    hs_perf_history h;
    hs_error err = {0};
    size_t kept = 0;
    (void)state;
    rel_close(hs_perfmodel_robust_mean(x, 7, &kept), 602.0 / 6, 1e-12);
    assert_int_equal(kept, 6);
    assert_int_equal(hs_perfmodel_record_batch(m, "va", NULL, 10, "cpu0", x, 7, &kept, &err),
                     HS_OK);
    assert_int_equal(kept, 6);
    assert_true(hs_perfmodel_history(m, "va", NULL, 10, "cpu0", &h));
    assert_int_equal(h.count, 6);
    assert_int_equal(h.rejected, 1);
    rel_close(h.mean_us, 602.0 / 6, 1e-12);
    assert_int_equal(hs_perfmodel_record_batch(m, "va", NULL, 10, "cpu0", x, 0, NULL, &err),
                     HS_EINPUT);
    assert_int_equal(hs_perfmodel_record_batch(m, "va", NULL, 10, "cpu0", (double[]){-1}, 1,
                                               NULL, &err), HS_EINPUT);
    assert_true(isnan(hs_perfmodel_robust_mean(x, 0, NULL)));
    hs_perfmodel_free(m);
}

static void refused(hs_calib_options o, const char *msg);

/* ----------------------------------------------------- a workload's kernels */

/* The hook of for_workload: samples base, base + 1, base + 2 per kernel,
 * base by its params (each kernel once: a second batch fails the test). */
typedef struct for_ctx {
    int seen[4];
} for_ctx;

static void kernel_samples(void *ctx, const char *type, const char *params, double D,
                           const char *device, double *us, int n)
{
    static const char *const known[4] = {"n=1000", "n=3000",
                                         "n=8,m=8,k=8,alpha=1,beta=0,transb=0",
                                         "n=8,m=16,k=4,alpha=1,beta=0,transb=0"};
    for_ctx *f = ctx;
    int k = 0;
    (void)type;
    (void)D;
    assert_string_equal(device, "cpu0");
    while (k < 4 && strcmp(params, known[k]) != 0)
        k++;
    if (k == 4)
        fail_msg("a kernel not in the workload: %s %s", type, params);
    assert_int_equal(f->seen[k]++, 0);
    for (int i = 0; i < n; i++)
        us[i] = 10.0 * (2 * k + 1) + i;
}

/* A workload of 2 instances of va n=1000 (twice), va n=3000, a square
 * gemm n=8 and a gemm 16 x 8 x 4 of the same D (1024 flops), and a
 * cost-only kernel: calibrate measures the 4 distinct kernels once each,
 * va then gemm, on the CPU with the workload's 3 cores; each kernel's
 * entry holds its batch (median base + 1), and the model predicts each
 * kernel of the workload from it, exactly, though 2 sizes per type give
 * no fit. */
static void for_workload(void **state)
{
    static const char yaml[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host, cores: 3}\n"
        "    - {name: gpu0, kind: gpu, memory: gpu0}\n"
        "  links:\n"
        "    - {from: host, to: gpu0, bandwidth_gbps: 10, latency_us: 5}\n"
        "    - {from: gpu0, to: host, bandwidth_gbps: 10, latency_us: 5}\n"
        "applications:\n"
        "  - name: a\n"
        "    instances: 2\n"
        "    kernels:\n"
        "      - {name: v1, type: va, params: {n: 1000}, cost_us: {cpu: 1, gpu: 1}}\n"
        "      - {name: v2, type: va, params: {n: 1000}, cost_us: {cpu: 1, gpu: 1}}\n"
        "      - {name: v3, type: va, params: {n: 3000}, cost_us: {cpu: 1, gpu: 1}}\n"
        "      - {name: sq, type: gemm, params: {n: 8}, cost_us: {cpu: 1, gpu: 1}}\n"
        "      - {name: tall, type: gemm, params: {n: 8, m: 16, k: 4}, cost_us: {cpu: 1, "
        "gpu: 1}}\n"
        "      - {name: u, cost_us: {cpu: 1, gpu: 1}}\n";
    static const double want[5] = {11, 11, 31, 51, 71}; /* v1 v2 v3 sq tall */
    for_ctx f = {0};
    hs_workload *w = NULL;
    hs_calib_options o = {.devices = "cpu", .reps = 3, .sample_hook = kernel_samples,
                          .hook_ctx = &f};
    hs_calib_result r;
    hs_perf_fit fit;
    hs_error err = {0};
    (void)state;
    if (hs_workload_load_buffer("for.yaml", yaml, sizeof yaml - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    o.workload = w;
    calibrate_ok(&o, &r);
    for (int k = 0; k < 4; k++)
        assert_int_equal(f.seen[k], 1);
    assert_int_equal(r.threads, 3);
    assert_int_equal(r.nrows, 2);
    assert_string_equal(r.rows[0].type, "va");
    assert_int_equal(r.rows[0].nsizes, 2);
    rel_close(r.rows[0].dmax, 3000, 0);
    rel_close(r.rows[0].dmax_us, 31, 0);
    assert_string_equal(r.rows[1].type, "gemm");
    assert_int_equal(r.rows[1].nsizes, 2);
    assert_int_equal(r.rows[1].samples, 6);
    assert_int_equal(hs_perfmodel_entries(r.model), 4);
    assert_false(hs_perfmodel_get_fit(r.model, "va", "cpu0", &fit));
    for (int k = 0; k < 5; k++) {
        hs_perf_source src;
        double us;
        if (hs_perfmodel_predict_kernel(r.model, &w->apps[0].kernels[k],
                                        &w->platform.devices[0], &us, &src, &err) != HS_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(src, HS_PERF_HISTORY);
        assert_float_equal(us, want[k], 0);
    }
    hs_calib_result_free(&r);

    /* --threads wins over the workload's cores */
    memset(&f, 0, sizeof f);
    o.threads = 2;
    calibrate_ok(&o, &r);
    assert_int_equal(r.threads, 2);
    hs_calib_result_free(&r);
    hs_workload_free(w);
}

/* With a workload, types and sizes are refused; so is a workload without a
 * typed kernel, and a kernel the registry refuses (named). */
static void for_refusals(void **state)
{
    static const char untyped[] =
        "platform:\n"
        "  devices:\n"
        "    - {name: cpu0, kind: cpu, memory: host}\n"
        "applications:\n"
        "  - name: a\n"
        "    kernels:\n"
        "      - {name: u, cost_us: {cpu: 1}}\n";
    hs_workload *w = NULL;
    hs_error err = {0};
    hs_calib_options o = {.devices = "cpu"};
    (void)state;
    if (hs_workload_load_buffer("untyped.yaml", untyped, sizeof untyped - 1, &w, &err) != HS_OK)
        fail_msg("%s", err.msg);
    o.workload = w;
    refused(o, "the workload has no typed kernel to measure"); /* a buffer: no path */
    o.types = "va";
    refused(o, "types: a workload's kernels are measured at their own types and sizes");
    o.types = NULL;
    o.sizes = "quick";
    refused(o, "sizes: a workload's kernels are measured at their own types and sizes");
    hs_workload_free(w);
    /* a workload built by hand (not finalized: nothing checked its types),
     * with a param its type does not have */
    w = hs_workload_new();
    assert_true(hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 0, &err) >= 0);
    assert_true(hs_workload_add_app(w, "a", 1, &err) >= 0);
    assert_true(hs_app_add_kernel(w, 0, "v", &err) >= 0);
    assert_int_equal(hs_kernel_set_type(w, 0, 0, "va", &err), HS_OK);
    assert_int_equal(hs_kernel_add_param(w, 0, 0, "q", 3, &err), HS_OK);
    o.sizes = NULL;
    o.workload = w;
    refused(o, "kernel 'v' of application 'a': va: unknown param 'q'");
    hs_workload_free(w);
}

/* ------------------------------------------------------------ size plans */

static void plan_is(const char *type, const char *sizes, const double *want, int nwant)
{
    double v[HS_CALIB_MAX_SIZES];
    int n;
    hs_error err = {0};
    if (hs__calib_plan_sizes(hs_ktype_find(type), sizes, v, &n, &err) != HS_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(n, nwant);
    for (int i = 0; i < n; i++)
        if (v[i] != want[i])
            fail_msg("%s %s: size %d is %g, want %g", type, sizes, i, v[i], want[i]);
}

/* Quick targets flops 1e4 .. 1e8, buffers <= 64 MiB.
 * va (flops n, buffers 3 x 4n bytes): n = 1e4, 1e5, 1e6, then 1e7 and 1e8
 *   are both capped at floor(2^26 / 12) = 5592405.
 * gemm (flops 2n^3, buffers 3 x 4n^2): the smallest n with 2n^3 >= target:
 *   2*17^3 = 9826 < 1e4 <= 2*18^3 = 11664; 2*36^3 = 93312 < 1e5 <= 2*37^3;
 *   2*79^3 = 986078 < 1e6 <= 2*80^3; 2*170^3 = 9826000 < 1e7 <= 2*171^3;
 *   2*368^3 = 99672064 < 1e8 <= 2*369^3; 12*369^2 bytes is far below 2^26.
 * Full targets go on to 1e10 by half decades; va's cap is 1 GiB:
 *   floor(2^30 / 12) = 89478485 from target 10^8 on.
 * Explicit values come back sorted. */
static void size_plans(void **state)
{
    (void)state;
    plan_is("va", "quick", (const double[]){1e4, 1e5, 1e6, 5592405}, 4);
    plan_is("gemm", "quick", (const double[]){18, 37, 80, 171, 369}, 5);
    plan_is("va", "full", (const double[]){1e4, 31623, 1e5, 316228, 1e6, 3162278, 1e7,
                                           31622777, 89478485}, 9);
    plan_is("gemm", "300,100,200", (const double[]){100, 200, 300}, 3);
}

/* ------------------------------------------------------------- refusals */

static void refused(hs_calib_options o, const char *msg)
{
    hs_calib_result r;
    hs_error err = {0};
    assert_int_equal(hs_calibrate(&o, &r, &err), HS_EINPUT);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    hs_calib_result_free(&r);
}

/* Every bad option is refused before anything is measured, with a line
 * that names it. */
static void bad_options(void **state)
{
    hs_calib_options o = {.devices = "cpu", .sizes = "10,20,30"};
    (void)state;
    refused((hs_calib_options){.types = "nope"}, "unknown kernel type 'nope' (known: va,");
    refused((hs_calib_options){.types = "va,va"}, "'va' given twice");
    refused((hs_calib_options){.types = "va,,gemm"}, "types: empty item");
    refused((hs_calib_options){.sizes = "huge"}, "not 'huge'");
    refused((hs_calib_options){.sizes = "0"}, "not '0'");
    refused((hs_calib_options){.sizes = "1.5"}, "not '1.5'");
    refused((hs_calib_options){.sizes = "10,10"}, "10 given twice");
    refused((hs_calib_options){.types = "gemm", .sizes = "70000"},
            "sizes: gemm: param 'n' = 70000 is out of range");
    refused((hs_calib_options){.types = "fblock", .sizes = "2000"}, "fblock: param 'n'");
    refused((hs_calib_options){.reps = 2}, "reps: needs 3");
    refused((hs_calib_options){.threads = -1}, "threads: needs 1");
    refused((hs_calib_options){.devices = "tpu"}, "unknown device 'tpu'");
    refused((hs_calib_options){.devices = "gpu99"}, "no device gpu99");
    refused((hs_calib_options){.devices = "cpu,cpu0"}, "'cpu0' given twice");
    o.types = "va";
    o.devices = "";
    refused(o, "devices: empty item");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quick_cpu_model),    cmocka_unit_test(platform_cpu_loads),
        cmocka_unit_test(platform_links_load), cmocka_unit_test(spike_leaves_fit),
        cmocka_unit_test(batch_rule),          cmocka_unit_test(size_plans),
        cmocka_unit_test(bad_options),        cmocka_unit_test(for_workload),
        cmocka_unit_test(for_refusals),       cmocka_unit_test(gpu_quick),
        cmocka_unit_test(gpu_for_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
