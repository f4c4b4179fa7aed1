/* hetsched — performance models (public API): what a kernel costs on a
 * device.  `hetsched calibrate --out-model` and `run --update-model` write
 * them; the commands' --model uses one as a workload's cost provider and
 * as the perfmodel of hs_map_options and hs_run_options.
 *
 * Two models, as StarPU keeps them and as Zhou & Liu's ad-part uses them
 * (Sec. 4.3):
 *   - a history table: for each (kernel type, params, size D, device) a
 *     window of HS_PERF_WINDOW measured durations, the last ones (a run
 *     gives it HS_PERF_RUN_SHARE of its own at most, spread over the run:
 *     hs_perfmodel_add_run).  What the entry predicts is their median, a
 *     robust statistic: one spike (a page fault, a context switch) does
 *     not move it, nor one run slower than those before it (a busy spell of
 *     the machine), and a lasting change (a faster executor, a loaded
 *     machine) takes it over once it holds half the window.  The
 *     entry also counts its samples and keeps the mean and standard
 *     deviation (Welford's method) of those that are not outliers: a sample
 *     x is flagged, once the entry holds HS_PERF_MIN_SAMPLES samples, when
 *     its modified z-score 0.6745 |x - median| / MAD exceeds
 *     HS_PERF_OUTLIER_Z (Iglewicz & Hoaglin's rule), the median and MAD
 *     (median absolute deviation) being the window's.  The MAD counts as at
 *     least 1% of the median there, so identical samples do not make every
 *     later change an outlier;
 *   - a non-linear regression per (type, device): cost = a * D^b + c (the
 *     paper's model, its ref. [19]), fitted by weighted least squares with
 *     GSL's trust-region solver (gsl_multifit_nlinear) on the history's
 *     medians.
 * A kernel's cost is the history's median where it was measured at exactly
 * its size, else the fit.
 *
 * Size.  The model itself does not interpret D beyond D > 0.  For a typed
 * kernel of a workload, D is its work as the kernel registry measures it:
 * the flops of its type and params (`hetsched calibrate --types help` lists
 * the types), e.g. 2 m n k for gemm, n for va.  One measure across types,
 * and it is proportional to the items a part of the kernel owns, so a part
 * holding fraction f of the data has size f x D (what ad-part predicts).
 * Two kernels of one type may have the same D and still differ (a gemm of
 * 64 x 4096 x 4096 and one of 4096 x 64 x 4096), so an entry measured on a
 * typed kernel also names its params, as text: every param of the type's
 * spec in spec order, defaults filled in ("n=8192,m=8192,k=8192,alpha=1,
 * beta=0,transb=0"; hs_perf_kernel).  An entry without params ("") stands
 * for any kernel of its size (a model written by hand); one with params
 * "part" (HS_PERF_PART) for a part of a split kernel of that size.
 * Whatever records samples for a workload's kernels must use the same D
 * and params (hs_perfmodel_kernel_of).
 */
#ifndef HETSCHED_PERFMODEL_H
#define HETSCHED_PERFMODEL_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"
#include "hetsched/schedule.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_perfmodel hs_perfmodel;

/* A fit of one kernel type on one device: cost_us = a * D^b + c, D the
 * kernel's flops (the paper's model, fitted by weighted least squares). */
typedef struct hs_perf_fit {
    double a, b, c;            /* cost_us = a * D^b + c */
    int npoints;               /* distinct sizes it was fitted on */
    double rms_rel;            /* root mean square of the relative residuals */
} hs_perf_fit;

#define HS_PERF_MIN_SAMPLES 5  /* outlier flagging starts with this many samples */
#define HS_PERF_OUTLIER_Z 3.5  /* modified z-score beyond which a sample is an outlier */
#define HS_PERF_WINDOW 32      /* samples an entry keeps for its median and MAD */
#define HS_PERF_RUN_SHARE 8    /* of them, the most one run adds (hs_perfmodel_add_run) */
#define HS_PERF_PARAMS_MAX 320 /* bytes of an entry's params text, with its NUL */

typedef struct hs_perf_history {
    double median_us;          /* of the window: what the entry predicts */
    double mad_us;             /* the window's median absolute deviation (spread) */
    int nsamples;              /* samples in the window (<= HS_PERF_WINDOW) */
    double mean_us, stddev_us; /* of the samples kept; stddev 0 with fewer than 2 */
    long count;                /* samples kept (not outliers), ever */
    long rejected;             /* samples flagged as outliers, ever */
} hs_perf_history;

typedef enum hs_perf_source {
    HS_PERF_NONE = 0,          /* no model for this (type, size, device) */
    HS_PERF_HISTORY = 1,       /* the median measured at exactly this size */
    HS_PERF_FIT = 2,           /* the regression */
} hs_perf_source;

/* What names a typed kernel's entries (see the top of this file). */
typedef struct hs_perf_kernel {
    const char *type;                /* the registry's name (static storage) */
    char params[HS_PERF_PARAMS_MAX]; /* "n=8192,m=8192,k=8192,alpha=1,beta=0,transb=0" */
    double size;                     /* D: the kernel's flops */
} hs_perf_kernel;

/* One history entry as hs_perfmodel_entry gives it. */
typedef struct hs_perf_entry {
    const char *type, *params, *device; /* the model's strings; params "" when not known */
    double size;
    hs_perf_history h;
    double samples[HS_PERF_WINDOW];     /* the window, oldest first: h.nsamples of them */
} hs_perf_entry;

hs_perfmodel *hs_perfmodel_new(void);

/* Records one measured duration of `type` with `params` (NULL or "": not
 * known) at size D on `device`.  *accepted (may be NULL) is set to 1, or 0
 * when the sample is an outlier (it still enters the window, not the
 * mean).  HS_EINPUT for an empty name or one with control characters
 * (params may be empty), D <= 0, or a duration that is negative or not
 * finite. */
int hs_perfmodel_record(hs_perfmodel *m, const char *type, const char *params, double size,
                        const char *device, double us, int *accepted, hs_error *err);

/* Records n >= 1 repeated measurements of one entry at once, as
 * calibration takes them: a sample is an outlier when its modified z-score
 * against the median and MAD of the whole batch exceeds HS_PERF_OUTLIER_Z
 * (so a spike is caught even among an entry's first samples, where the
 * window's rule is not yet active), or when the window's rule flags it.
 * Every sample enters the window; *kept (may be NULL) gets how many were
 * not outliers.  HS_EINPUT as hs_perfmodel_record, and for n == 0. */
int hs_perfmodel_record_batch(hs_perfmodel *m, const char *type, const char *params,
                              double size, const char *device, const double *us, size_t n,
                              size_t *kept, hs_error *err);

/* The mean of x[0..n) without the samples that the batch rule above drops;
 * *kept (may be NULL) gets how many it averaged.  NaN when n == 0 or out of
 * memory.  For measurements that are not kernel costs (link bandwidth and
 * latency). */
double hs_perfmodel_robust_mean(const double *x, size_t n, size_t *kept);

/* The history entry of (type, params, size, device), params NULL or "" for
 * the entry without params: 1 and *out filled when it exists and holds a
 * sample, else 0. */
int hs_perfmodel_history(const hs_perfmodel *m, const char *type, const char *params,
                         double size, const char *device, hs_perf_history *out);

/* The entries in the order they were first recorded: how many, and entry i
 * (i < hs_perfmodel_entries(m)) into *out. */
size_t hs_perfmodel_entries(const hs_perfmodel *m);
void hs_perfmodel_entry(const hs_perfmodel *m, size_t i, hs_perf_entry *out);

/* Fits cost = a * D^b + c to n points by minimising
 * sum_i count_i * ((a * D_i^b + c - us_i) / us_i)^2 (relative residuals, so
 * every size weighs alike however long it runs; count may be NULL for all 1).
 * Starting values: a log-log linear fit of us - c0 against D for a few c0
 * below min(us), keeping the best.  Needs n >= 3 distinct sizes, D > 0 and
 * us > 0 (HS_EINPUT); HS_ESOLVER when the solver fails. */
int hs_perfmodel_fit_points(const double *size, const double *us, const double *count,
                            size_t n, hs_perf_fit *out, hs_error *err);

/* Refits every (type, device) whose entries with a median > 0 cover >= 3
 * distinct sizes, on those medians weighted by their window's sample
 * counts (entries of other params at the same D are points of their own);
 * pairs with fewer sizes keep the fit they had, if any.  If a fit fails the
 * others are still made and the first failure is returned (HS_ESOLVER
 * naming the type and device). */
int hs_perfmodel_fit(hs_perfmodel *m, hs_error *err);

/* The fit of (type, device): 1 and *out filled when there is one, else 0. */
int hs_perfmodel_get_fit(const hs_perfmodel *m, const char *type, const char *device,
                         hs_perf_fit *out);

/* The fits in the order they were made: how many, and fit i into *out with
 * its type and device (the model's strings). */
size_t hs_perfmodel_fits(const hs_perfmodel *m);
void hs_perfmodel_fit_at(const hs_perfmodel *m, size_t i, const char **type,
                         const char **device, hs_perf_fit *out);

/* a * D^b + c, clamped at 0 (extrapolating far below the measured sizes
 * can go negative). */
double hs_perfmodel_fit_eval(const hs_perf_fit *f, double size);

/* Predicted cost of `type` at size D on `device`: the median of the entry
 * measured at exactly (type, params, D), else of the entry without params
 * at D, else the fit, else HS_EINPUT "no performance model for ...".  With
 * params NULL or "" only the entry without params is looked up.  *src (may
 * be NULL) says which. */
int hs_perfmodel_predict(const hs_perfmodel *m, const char *type, const char *params,
                         double size, const char *device, double *us, hs_perf_source *src,
                         hs_error *err);

/* The type, params and D of a typed kernel k (see the top of this file),
 * into *out.  HS_EINPUT when k has no type, or the registry refuses its
 * type or params (the registry's message). */
int hs_perfmodel_kernel_of(const hs_kernel *k, hs_perf_kernel *out, hs_error *err);

/* The params text of an entry of `type` (the canonical text above) less
 * the params at their default, into buf: "n=8192" for a square gemm; the
 * text as it is when the type is not known or the text is not canonical;
 * "-" when it is empty.  For reports (`hetsched model show`). */
void hs_perfmodel_params_short(const char *type, const char *params, char *buf, size_t size);

/* D of a typed kernel: hs_perfmodel_kernel_of's size. */
int hs_perfmodel_kernel_size(const hs_kernel *k, double *size, hs_error *err);

/* Predicted cost of `type` at size D (params not known: a part of a
 * kernel) on device d: hs_perfmodel_predict by the device's name, else by
 * its kind ("cpu", "gpu": a model file may record kinds to cover every
 * device of that kind), else HS_EINPUT "no performance model for TYPE on
 * DEVICE in FILE (run hetsched calibrate)" (without "in FILE" for a model
 * that was not loaded from a file). */
int hs_perfmodel_predict_device(const hs_perfmodel *m, const char *type, double size,
                                const hs_device *d, double *us, hs_error *err);

/* Predicted cost of a part of size D of a split kernel of `type` on device
 * d.  A part does not cost its share of the whole kernel (a slab of 200 rows
 * of an 8192^3 sgemm takes twice its share on 14 threads; a few planes of
 * fblock more), so parts have entries of their own: params HS_PERF_PART,
 * which `calibrate --for` measures at the fractions ad-part gives and
 * `run --update-model` records.  The part entry nearest to D within a
 * factor HS_PERF_PART_RANGE, its median times D / its size; else
 * hs_perfmodel_predict_device (an entry without params at D, or the fit). */
int hs_perfmodel_predict_part(const hs_perfmodel *m, const char *type, double size,
                              const hs_device *d, double *us, hs_error *err);
#define HS_PERF_PART "part"       /* the params of a part's entry; not in a fit */
#define HS_PERF_PART_RANGE 2.0    /* a part is predicted from one this near in size */

/* Predicted cost of the typed kernel k on device d: hs_perfmodel_predict
 * with its params and D, by the device's name, else by its kind; errors as
 * hs_perfmodel_predict_device, or hs_perfmodel_kernel_of's. */
int hs_perfmodel_predict_kernel(const hs_perfmodel *m, const hs_kernel *k, const hs_device *d,
                                double *us, hs_perf_source *src, hs_error *err);

/* The type under which a model keeps each device's measured per-task
 * overhead (params none, size 1), beside its kernels: the cost provider
 * answers it for a device whose platform gives no overhead_us. */
#define HS_PERF_OVERHEAD "overhead"

/* The type under which a model keeps each link's bandwidth as runs
 * measured it (params none, device "FROM->TO", memory names): the entry's
 * size is HS_PERF_LINK_BYTES and its time what that many bytes take on the
 * link beyond its latency.  The link provider answers it, and it replaces
 * the platform's bandwidth: a link shared with the run's other copies and
 * kernels (on the H200, 49-54 GB/s against 55 GB/s measured alone by
 * calibrate). */
#define HS_PERF_LINK "link"
#define HS_PERF_LINK_BYTES 1e6

/* The executor's per-task overhead on each device in run s of w (measured):
 * over[d] is the mean, over d's placements, of the time from when each
 * could have started to its start, "could have" being d free (the previous
 * placement on d ended, or the run began) and its inputs there (each
 * predecessor ended, each copy into it ended), without the largest wait
 * (one stall of a run does not move it; the long tail of small waits,
 * which a makespan sums, stays).  It is what the model's overhead_us
 * stands for: in the executor's model each task costs its kernel plus
 * that.  ntasks[d] (may be NULL) gets d's placements.  over and ntasks have w's ndevices entries.
 * HS_ENOMEM. */
int hs_perfmodel_overheads(const hs_workload *w, const hs_schedule *s, double *over,
                           size_t *ntasks, hs_error *err);

/* What hs_perfmodel_add_run recorded. */
typedef struct hs_perf_added {
    size_t whole;     /* typed tasks, at their kernel's type, params and D */
    size_t parts;     /* parts of split typed tasks, at f x D without params */
    size_t untyped;   /* cost-only tasks: nothing to record */
    size_t overheads; /* devices whose per-task overhead was recorded */
    size_t links;     /* links whose bandwidth was recorded */
} hs_perf_added;

/* Adds what a real run measured to the history, as StarPU's history-based
 * models do: for each placement of s (a schedule of w's graph that
 * hs_engine_run returned), its duration end - start on its device (by
 * name).  A whole typed task is recorded at its kernel's type, params and
 * D; a part holding fraction f of a split typed task at f x D without
 * params, the size ad-part asks the model about; a cost-only task only
 * slept its cost and is not recorded.  Every sample is counted (the
 * entry's mean and count); where a run gives an entry more than
 * HS_PERF_RUN_SHARE samples, its window gets HS_PERF_RUN_SHARE of them,
 * spread evenly over the run's placements, so that they stand for the
 * whole run and not for its last tasks, and so that one run cannot fill
 * the window: the median is taken over several runs (and calibrate's
 * samples), and one stray run does not move it.  Each device that ran at least
 * HS_PERF_MIN_SAMPLES placements also gets its per-task overhead
 * (hs_perfmodel_overheads) recorded as type HS_PERF_OVERHEAD, and each
 * declared link that moved at least 64 MiB in copies of 1 MiB or more its time per
 * HS_PERF_LINK_BYTES over them (their durations less the platform's
 * latency, over their bytes) as type HS_PERF_LINK.  The fits
 * are left as they were (hs_perfmodel_fit refits).  *added (may be NULL) gets the counts.
 * HS_EINPUT for a placement that does not belong to w (its message names
 * it; nothing is recorded then), HS_ENOMEM. */
int hs_perfmodel_add_run(hs_perfmodel *m, const hs_workload *w, const hs_schedule *s,
                         hs_perf_added *added, hs_error *err);

/* JSON with jansson; `path` "-" is stdout / stdin.  The file holds the
 * history (each entry with its params and window, so a reload predicts and
 * flags outliers as before) and the fits.  Loading checks every key and
 * value and also reads files of format 1 (entries without params): HS_EINPUT
 * with one line "FILE:LINE:COL: error: PATH: WHAT" (PATH the JSON path of
 * the bad item, e.g. history[2].size), also for a file that cannot be read
 * or is over the size cap of JSON files (256 MiB; the environment
 * variable HETSCHED_JSON_MAX_MIB changes it).  A loaded model names its file
 * in hs_perfmodel_predict_device's messages.  Saving goes through
 * hetsched/output.h and fails with HS_EIO. */
int hs_perfmodel_save(const hs_perfmodel *m, const char *path, hs_error *err);

/* Draws each kernel type's history as a log-log picture of time against D,
 * one panel per type: every sample of the windows as a dot, each entry's
 * median as a ring, and each fit of the type as a curve over the panel's
 * sizes, one colour per device (as starpu_perfmodel_plot does).  `path`
 * ends in .png or .svg.  HS_EINPUT for another extension or a model without
 * history, HS_EIO when the file cannot be written, HS_ENOTBUILT without
 * cairo. */
int hs_perfmodel_plot(const hs_perfmodel *m, const char *path, hs_error *err);

/* Reads a model (JSON; `path` "-" is stdin).  Every key and value is
 * checked: HS_EINPUT with one line "FILE:LINE:COL: error: PATH: WHAT" (PATH
 * the JSON path of the bad item), also for a file that cannot be read. */
int hs_perfmodel_load(const char *path, hs_perfmodel **out, hs_error *err);
/* The same from `len` bytes at `data`; `name` stands for the file name. */
int hs_perfmodel_load_buffer(const char *name, const char *data, size_t len, hs_perfmodel **out,
                             hs_error *err);
void hs_perfmodel_free(hs_perfmodel *m);

/* A cost provider (hs_cost_fn, graph.h) backed by the model `ctx` (const
 * hs_perfmodel *): the cost of a typed kernel without cost_us on a device
 * is what the model predicts for its type, params and size there; asked
 * with no kernel, a device's overhead per task is the model's
 * HS_PERF_OVERHEAD entry for it (1 without one).  Set it with
 * hs_workload_set_cost_fn or hs_load_options; the model must outlive the
 * workload. */
int hs_perfmodel_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                         hs_error *err);

/* A link provider (hs_link_fn, graph.h) backed by the model `ctx` (const
 * hs_perfmodel *): a link's bandwidth is the model's HS_PERF_LINK entry for
 * it (1 without one).  Set it with hs_load_options.link_fn. */
int hs_perfmodel_link_fn(void *ctx, const char *from, const char *to, double *gbps,
                         hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
