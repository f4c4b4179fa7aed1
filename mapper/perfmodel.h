/* hetsched — performance models: what a kernel costs on a device.
 *
 * Two models, as StarPU keeps them and as Zhou & Liu's ad-part uses them
 * (Sec. 4.3):
 *   - a history table: for each (kernel type, size D, device) the mean,
 *     standard deviation and count of the measured durations, updated with
 *     Welford's method.  Outliers are rejected so that one spike (a page
 *     fault, a context switch) does not move the mean: once an entry holds
 *     HS_PERF_MIN_SAMPLES samples, a new sample x is dropped when its
 *     modified z-score 0.6745 |x - median| / MAD exceeds HS_PERF_OUTLIER_Z
 *     (Iglewicz & Hoaglin's rule), the median and MAD (median absolute
 *     deviation) being those of the last HS_PERF_WINDOW retained samples.
 *     The MAD counts as at least 1% of the median, so identical samples do
 *     not make every later change an outlier;
 *   - a non-linear regression per (type, device): cost = a * D^b + c (the
 *     paper's model, its ref. [19]), fitted by weighted least squares with
 *     GSL's trust-region solver (gsl_multifit_nlinear) on the history's
 *     per-size means.
 * The model itself does not interpret D beyond D > 0.  For a typed kernel of
 * a workload, D is its work as the kernel registry measures it: the flops of
 * hs_kconf (workloads/kernels/kernel.h) for its type and params, e.g.
 * 2 m n k for gemm, n for va.  One measure across types, and it is
 * proportional to the items a part of the kernel owns, so a part holding
 * fraction f of the data has size f x D (what ad-part predicts).  Whatever
 * records samples for a workload's kernels must use the same D
 * (hs_perfmodel_kernel_size).
 */
#ifndef HS_MAPPER_PERFMODEL_H
#define HS_MAPPER_PERFMODEL_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#define HS_PERF_MIN_SAMPLES 5  /* outlier rejection starts with this many samples */
#define HS_PERF_OUTLIER_Z 3.5  /* modified z-score beyond which a sample is dropped */
#define HS_PERF_WINDOW 32      /* retained samples kept for the median and MAD */

typedef struct hs_perfmodel hs_perfmodel;

typedef struct hs_perf_history {
    double mean_us, stddev_us; /* stddev 0 with fewer than 2 samples */
    long count;                /* samples retained */
    long rejected;             /* samples dropped as outliers */
} hs_perf_history;

typedef struct hs_perf_fit {
    double a, b, c;            /* cost_us = a * D^b + c */
    int npoints;               /* distinct sizes it was fitted on */
    double rms_rel;            /* root mean square of the relative residuals */
} hs_perf_fit;

typedef enum hs_perf_source {
    HS_PERF_NONE = 0,          /* no model for this (type, size, device) */
    HS_PERF_HISTORY = 1,       /* the mean measured at exactly this size */
    HS_PERF_FIT = 2,           /* the regression */
} hs_perf_source;

hs_perfmodel *hs_perfmodel_new(void);
void hs_perfmodel_free(hs_perfmodel *m);

/* Records one measured duration of `type` at size D on `device`.  *accepted
 * (may be NULL) is set to 1, or 0 when the sample was rejected as an outlier.
 * HS_EINPUT for an empty name or one with control characters, D <= 0, or a
 * duration that is negative or not finite. */
int hs_perfmodel_record(hs_perfmodel *m, const char *type, double size, const char *device,
                        double us, int *accepted, hs_error *err);

/* Records n >= 1 repeated measurements of (type, size, device) at once, as
 * calibration takes them: a sample is dropped when its modified z-score
 * against the median and MAD of the whole batch exceeds HS_PERF_OUTLIER_Z
 * (so a spike is caught even among an entry's first samples, where the
 * window's rule is not yet active), or when the window's rule rejects it;
 * the others are recorded.  *kept (may be NULL) gets how many were.
 * HS_EINPUT as hs_perfmodel_record, and for n == 0. */
int hs_perfmodel_record_batch(hs_perfmodel *m, const char *type, double size,
                              const char *device, const double *us, size_t n, size_t *kept,
                              hs_error *err);

/* The mean of x[0..n) without the samples that the batch rule above drops;
 * *kept (may be NULL) gets how many it averaged.  NaN when n == 0 or out of
 * memory.  For measurements that are not kernel costs (link bandwidth and
 * latency). */
double hs_perfmodel_robust_mean(const double *x, size_t n, size_t *kept);

/* The history entry of (type, size, device): 1 and *out filled when it exists,
 * else 0. */
int hs_perfmodel_history(const hs_perfmodel *m, const char *type, double size,
                         const char *device, hs_perf_history *out);

/* Fits cost = a * D^b + c to n points by minimising
 * sum_i count_i * ((a * D_i^b + c - us_i) / us_i)^2 (relative residuals, so
 * every size weighs alike however long it runs; count may be NULL for all 1).
 * Starting values: a log-log linear fit of us - c0 against D for a few c0
 * below min(us), keeping the best.  Needs n >= 3 distinct sizes, D > 0 and
 * us > 0 (HS_EINPUT); HS_ESOLVER when the solver fails. */
int hs_perfmodel_fit_points(const double *size, const double *us, const double *count,
                            size_t n, hs_perf_fit *out, hs_error *err);

/* Refits every (type, device) that has history at >= 3 distinct sizes, on
 * the per-size means weighted by their counts; pairs with fewer sizes keep
 * no fit.  If a fit fails the others are still made and the first failure is
 * returned (HS_ESOLVER naming the type and device). */
int hs_perfmodel_fit(hs_perfmodel *m, hs_error *err);

/* The fit of (type, device): 1 and *out filled when there is one, else 0. */
int hs_perfmodel_get_fit(const hs_perfmodel *m, const char *type, const char *device,
                         hs_perf_fit *out);

/* Predicted cost of `type` at size D on `device`: the history's mean when
 * that size was measured, else the fit (clamped at 0: extrapolating far
 * below the measured sizes can go negative), else HS_EINPUT "no performance
 * model for ...".  *src (may be NULL) says which. */
int hs_perfmodel_predict(const hs_perfmodel *m, const char *type, double size,
                         const char *device, double *us, hs_perf_source *src, hs_error *err);

/* D of a typed kernel (see the top of this file): its hs_kconf flops.
 * HS_EINPUT when k has no type, or the registry refuses its type or params
 * (the registry's message). */
int hs_perfmodel_kernel_size(const hs_kernel *k, double *size, hs_error *err);

/* Predicted cost of `type` at size D on device d: hs_perfmodel_predict by
 * the device's name, else by its kind ("cpu", "gpu": a model file may
 * record kinds to cover every device of that kind), else HS_EINPUT
 * "no performance model for TYPE on DEVICE in FILE (run hetsched
 * calibrate)" (without "in FILE" for a model that was not loaded). */
int hs_perfmodel_predict_device(const hs_perfmodel *m, const char *type, double size,
                                const hs_device *d, double *us, hs_error *err);

/* A cost provider (hs_cost_fn of include/hetsched/graph.h) backed by the
 * model `ctx` (const hs_perfmodel *): predict_device at the kernel's size.
 * Set it with hs_workload_set_cost_fn or hs_load_options. */
int hs_perfmodel_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                         hs_error *err);

/* JSON with jansson; `path` "-" is stdout / stdin.  The file holds the
 * history (with each entry's retained-sample window, so rejection resumes
 * where it stopped) and the fits.  Loading checks every key and value:
 * HS_EINPUT with one line "FILE:LINE:COL: error: PATH: WHAT" (PATH the JSON
 * path of the bad item, e.g. history[2].size), also for a file that cannot
 * be read or is over the size cap of graph/json_read.h (256 MiB, the
 * environment variable HETSCHED_JSON_MAX_MIB changes it).  A loaded model
 * names its file in hs_perfmodel_predict_device's messages.  Saving fails
 * with HS_EIO. */
int hs_perfmodel_save(const hs_perfmodel *m, const char *path, hs_error *err);
int hs_perfmodel_load(const char *path, hs_perfmodel **out, hs_error *err);
/* The same from `len` bytes at `data`; `name` stands for the file name. */
int hs_perfmodel_load_buffer(const char *name, const char *data, size_t len, hs_perfmodel **out,
                             hs_error *err);

#endif
