/* hetsched — performance models: the history table and the a*D^b+c
 * regression (hetsched/perfmodel.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "graph/json_read.h"
#include "graph/strmap.h"
#include "graph/utf8.h"
#include "hetsched/output.h"
#include "mapper/perfmodel.h"
#include "workloads/kernels/kernel.h"

typedef struct entry {
    char *type, *params, *device;    /* params "" when not known */
    double size;
    long count, rejected;            /* samples kept, samples flagged as outliers */
    double mean, m2;                 /* Welford's running mean and sum of squares (kept) */
    double window[HS_PERF_WINDOW];   /* the last samples, outliers included, a ring */
    int nwin, next;
} entry;

typedef struct fit_entry {
    char *type, *device;
    hs_perf_fit fit;
} fit_entry;

struct hs_perfmodel {
    char *path;                      /* the file it was loaded from, for messages */
    entry *entries;
    size_t nentries, cap;
    hs__strmap *index;               /* history key -> entry */
    fit_entry *fits;
    size_t nfits, fits_cap;
    hs__strmap *fit_index;           /* fit key -> fit */
};

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

/* Makes room for one more element (doubling). */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    size_t want;
    void *p;
    if (n < *cap)
        return 0;
    want = *cap ? 2 * *cap : 16;
    if (!(p = realloc(*arr, want * elem)))
        return -1;
    *arr = p;
    *cap = want;
    return 0;
}

hs_perfmodel *hs_perfmodel_new(void)
{
    hs_perfmodel *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->index = hs__strmap_new(64);
    m->fit_index = hs__strmap_new(16);
    if (!m->index || !m->fit_index) {
        hs_perfmodel_free(m);
        return NULL;
    }
    return m;
}

static void free_entry(entry *e)
{
    free(e->type);
    free(e->params);
    free(e->device);
}

void hs_perfmodel_free(hs_perfmodel *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nentries; i++)
        free_entry(&m->entries[i]);
    for (size_t i = 0; i < m->nfits; i++) {
        free(m->fits[i].type);
        free(m->fits[i].device);
    }
    free(m->entries);
    free(m->fits);
    hs__strmap_free(m->index);
    hs__strmap_free(m->fit_index);
    free(m->path);
    free(m);
}

/* Names are map-key parts joined by '\n', so they may not hold control
 * characters (the workload's names may not either); params may be empty. */
static int bad_text(const char *s, int may_be_empty)
{
    if (!s || (!*s && !may_be_empty))
        return 1;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20)
            return 1;
    return 0;
}

static int bad_name(const char *s)
{
    return bad_text(s, 0);
}

/* "TYPE\nPARAMS\nSIZE\nDEVICE" (history) or "TYPE\nDEVICE" (fit: D NULL),
 * NULL when too long for buf. */
static const char *key(char *buf, size_t size, const char *type, const char *params,
                       const double *D, const char *device)
{
    int n = D ? snprintf(buf, size, "%s\n%s\n%.17g\n%s", type, params ? params : "", *D,
                         device)
              : snprintf(buf, size, "%s\n%s", type, device);
    return n >= 0 && (size_t)n < size ? buf : NULL;
}

#define KEY_MAX 1024

static entry *find_entry(const hs_perfmodel *m, const char *type, const char *params,
                         double size, const char *device)
{
    char buf[KEY_MAX];
    size_t i;
    const char *k = key(buf, sizeof buf, type, params, &size, device);
    return k && hs__strmap_get(m->index, k, &i) ? &m->entries[i] : NULL;
}

/* Finds or creates the entry into *out. */
static int get_entry(hs_perfmodel *m, const char *type, const char *params, double size,
                     const char *device, entry **out, hs_error *err)
{
    char buf[KEY_MAX];
    const char *k = key(buf, sizeof buf, type, params, &size, device);
    entry *e;
    size_t i;
    if (!k)
        return hs_error_set(err, HS_EINPUT, "performance model: type, params and device "
                            "names are too long");
    if (hs__strmap_get(m->index, k, &i)) {
        *out = &m->entries[i];
        return HS_OK;
    }
    if (reserve((void **)&m->entries, &m->cap, m->nentries, sizeof *m->entries) != 0)
        return nomem(err);
    e = &m->entries[m->nentries];
    *e = (entry){.type = strdup(type), .params = strdup(params ? params : ""),
                 .device = strdup(device), .size = size};
    if (!e->type || !e->params || !e->device ||
        hs__strmap_put(m->index, k, m->nentries) < 0) {
        free_entry(e);
        return nomem(err);
    }
    m->nentries++;
    *out = e;
    return HS_OK;
}

/* Median and MAD of xs[0..n), n >= 1; `work` holds n doubles. */
static void med_mad_raw(const double *xs, size_t n, double *work, double *med, double *mad)
{
    memcpy(work, xs, n * sizeof *work);
    *med = gsl_stats_median(work, 1, n);
    *mad = gsl_stats_mad0(xs, 1, n, work);
}

/* The same with the MAD floored at 1% of the median, for the outlier rule
 * (see perfmodel.h). */
static void med_mad(const double *xs, size_t n, double *work, double *med, double *mad)
{
    med_mad_raw(xs, n, work, med, mad);
    *mad = fmax(*mad, 0.01 * fabs(*med));
}

/* Iglewicz & Hoaglin's rule: the modified z-score of x is too large. */
static int beyond_z(double x, double med, double mad)
{
    return mad > 0 && 0.6745 * fabs(x - med) / mad > HS_PERF_OUTLIER_Z;
}

/* The rule against the window. */
static int is_outlier(const entry *e, double x)
{
    double work[HS_PERF_WINDOW], med, mad;
    if (e->count + e->rejected < HS_PERF_MIN_SAMPLES || e->nwin == 0)
        return 0;
    med_mad(e->window, (size_t)e->nwin, work, &med, &mad);
    return beyond_z(x, med, mad);
}

/* Counts x in e, and in its mean unless it is an outlier. */
static void count_sample(entry *e, double x, int outlier)
{
    if (outlier) {
        e->rejected++;
    } else {
        double delta = x - e->mean;
        e->count++;
        e->mean += delta / (double)e->count;
        e->m2 += delta * (x - e->mean);
    }
}

/* Adds x to e's window, and counts it. */
static void add_sample(entry *e, double x, int outlier)
{
    e->window[e->next] = x;
    e->next = (e->next + 1) % HS_PERF_WINDOW;
    if (e->nwin < HS_PERF_WINDOW)
        e->nwin++;
    count_sample(e, x, outlier);
}

static int check_args(const char *type, const char *params, double size, const char *device,
                      hs_error *err)
{
    if (bad_name(type))
        return hs_error_set(err, HS_EINPUT, "performance model: bad kernel type '%s'",
                            type ? type : "(null)");
    if (params && bad_text(params, 1))
        return hs_error_set(err, HS_EINPUT, "performance model: bad params of %s", type);
    if (bad_name(device))
        return hs_error_set(err, HS_EINPUT, "performance model: bad device name '%s'",
                            device ? device : "(null)");
    if (!(size > 0) || !isfinite(size))
        return hs_error_set(err, HS_EINPUT, "performance model: size of %s must be a finite "
                            "number > 0, not %g", type, size);
    return HS_OK;
}

static int check_duration(const char *type, const char *device, double us, hs_error *err)
{
    if (!(us >= 0) || !isfinite(us))
        return hs_error_set(err, HS_EINPUT, "performance model: duration of %s on %s must be "
                            "a finite number >= 0, not %g", type, device, us);
    return HS_OK;
}

int hs_perfmodel_record(hs_perfmodel *m, const char *type, const char *params, double size,
                        const char *device, double us, int *accepted, hs_error *err)
{
    entry *e;
    int rc, out;
    if ((rc = check_args(type, params, size, device, err)) != 0 ||
        (rc = check_duration(type, device, us, err)) != 0 ||
        (rc = get_entry(m, type, params, size, device, &e, err)) != 0)
        return rc;
    out = is_outlier(e, us);
    add_sample(e, us, out);
    if (accepted)
        *accepted = !out;
    return HS_OK;
}

int hs_perfmodel_record_batch(hs_perfmodel *m, const char *type, const char *params,
                              double size, const char *device, const double *us, size_t n,
                              size_t *kept, hs_error *err)
{
    double *work, med, mad;
    size_t nkept = 0;
    entry *e;
    int rc;
    if ((rc = check_args(type, params, size, device, err)) != 0)
        return rc;
    if (n == 0 || !us)
        return hs_error_set(err, HS_EINPUT, "performance model: no samples of %s on %s", type,
                            device);
    for (size_t i = 0; i < n; i++)
        if ((rc = check_duration(type, device, us[i], err)) != 0)
            return rc;
    if (!(work = malloc(n * sizeof *work)))
        return nomem(err);
    med_mad(us, n, work, &med, &mad);
    free(work);
    if ((rc = get_entry(m, type, params, size, device, &e, err)) != 0)
        return rc;
    /* the batch's own rule first (it also catches a spike among the first
     * samples of an entry), then the window's, as hs_perfmodel_record */
    for (size_t i = 0; i < n; i++) {
        int out = beyond_z(us[i], med, mad) || is_outlier(e, us[i]);
        add_sample(e, us[i], out);
        nkept += !out;
    }
    if (kept)
        *kept = nkept;
    return HS_OK;
}

double hs_perfmodel_robust_mean(const double *x, size_t n, size_t *kept)
{
    double *work = n ? malloc(n * sizeof *work) : NULL, med, mad, sum = 0;
    size_t k = 0;
    if (!work) {
        if (kept)
            *kept = 0;
        return NAN;
    }
    med_mad(x, n, work, &med, &mad);
    free(work);
    for (size_t i = 0; i < n; i++)
        if (!beyond_z(x[i], med, mad)) {
            sum += x[i];
            k++;
        }
    if (kept)
        *kept = k;
    return k ? sum / (double)k : NAN;
}

/* An entry has history once it holds a sample (a model written by hand may
 * give a mean and count without samples: the mean stands for the median). */
static int has_history(const entry *e)
{
    return e->nwin > 0 || e->count > 0;
}

static void history_of(const entry *e, hs_perf_history *out)
{
    double work[HS_PERF_WINDOW];
    *out = (hs_perf_history){.median_us = e->mean, .nsamples = e->nwin, .mean_us = e->mean,
                             .count = e->count, .rejected = e->rejected};
    out->stddev_us = e->count > 1 ? sqrt(e->m2 / (double)(e->count - 1)) : 0.0;
    if (e->nwin > 0)
        med_mad_raw(e->window, (size_t)e->nwin, work, &out->median_us, &out->mad_us);
}

int hs_perfmodel_history(const hs_perfmodel *m, const char *type, const char *params,
                         double size, const char *device, hs_perf_history *out)
{
    const entry *e = find_entry(m, type, params, size, device);
    if (!e || !has_history(e))
        return 0;
    history_of(e, out);
    return 1;
}

size_t hs_perfmodel_entries(const hs_perfmodel *m)
{
    return m->nentries;
}

void hs_perfmodel_entry(const hs_perfmodel *m, size_t i, hs_perf_entry *out)
{
    const entry *e = &m->entries[i];
    out->type = e->type;
    out->params = e->params;
    out->device = e->device;
    out->size = e->size;
    history_of(e, &out->h);
    /* oldest first: the ring starts at `next` once full */
    for (int k = 0; k < e->nwin; k++)
        out->samples[k] = e->window[(e->next - e->nwin + k + HS_PERF_WINDOW) % HS_PERF_WINDOW];
}

/* ------------------------------------------------------------- regression */

/* The problem as GSL sees it: parameters p = (ln a', b, c'), with D scaled by
 * Dref (the sizes' geometric mean) and c by ymin, so that all three are of
 * order 1 whatever the units:  f(D) = exp(p0) (D/Dref)^p1 + p2 * ymin.
 * Then a = exp(p0) / Dref^b and c = p2 * ymin. */
typedef struct fit_data {
    size_t n;
    const double *lx; /* ln(D_i / Dref) */
    const double *y;
    double ymin;
} fit_data;

static int fit_f(const gsl_vector *p, void *params, gsl_vector *f)
{
    const fit_data *d = params;
    double p0 = gsl_vector_get(p, 0), p1 = gsl_vector_get(p, 1), p2 = gsl_vector_get(p, 2);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, exp(p0 + p1 * d->lx[i]) + p2 * d->ymin - d->y[i]);
    return GSL_SUCCESS;
}

static int fit_df(const gsl_vector *p, void *params, gsl_matrix *J)
{
    const fit_data *d = params;
    double p0 = gsl_vector_get(p, 0), p1 = gsl_vector_get(p, 1);
    for (size_t i = 0; i < d->n; i++) {
        double t = exp(p0 + p1 * d->lx[i]);
        gsl_matrix_set(J, i, 0, t);
        gsl_matrix_set(J, i, 1, t * d->lx[i]);
        gsl_matrix_set(J, i, 2, d->ymin);
    }
    return GSL_SUCCESS;
}

/* Sum of count_i * relative residual_i^2 of parameters p. */
static double rel_sse(const fit_data *d, const double *wt, const double p[3])
{
    double s = 0;
    for (size_t i = 0; i < d->n; i++) {
        double r = (exp(p[0] + p[1] * d->lx[i]) + p[2] * d->ymin - d->y[i]) / d->y[i];
        s += wt[i] * d->y[i] * d->y[i] * r * r;
    }
    return s;
}

/* Starting values: for c0 = c' * ymin with c' in {0, .5, .9, .99}, a
 * weighted linear fit of ln(y - c0) against ln(D/Dref) gives ln a' and b;
 * keep the triple with the smallest relative error. */
static void start_values(const fit_data *d, const double *wt, double best[3])
{
    static const double cs[] = {0.0, 0.5, 0.9, 0.99};
    double *z = malloc(d->n * sizeof *z), best_sse = HUGE_VAL;
    best[0] = log(d->ymin);
    best[1] = 1.0;
    best[2] = 0.0;
    if (!z)
        return;
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        double p[3], cov00, cov01, cov11, chisq, sse;
        for (size_t i = 0; i < d->n; i++)
            z[i] = log(d->y[i] - cs[k] * d->ymin);
        if (gsl_fit_wlinear(d->lx, 1, wt, 1, z, 1, d->n, &p[0], &p[1], &cov00, &cov01, &cov11,
                            &chisq) != GSL_SUCCESS)
            continue;
        p[2] = cs[k];
        sse = rel_sse(d, wt, p);
        if (isfinite(sse) && sse < best_sse) {
            best_sse = sse;
            memcpy(best, p, sizeof p);
        }
    }
    free(z);
}

/* How many distinct values x[0..n) holds. */
static size_t distinct_sizes(const double *x, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && x[j] != x[i])
            j++;
        d += j == i;
    }
    return d;
}

int hs_perfmodel_fit_points(const double *size, const double *us, const double *count,
                            size_t n, hs_perf_fit *out, hs_error *err)
{
    double *lx = NULL, *wt = NULL, *lwt = NULL, lref = 0, ymin = HUGE_VAL, p[3], sse = 0,
           wsum = 0;
    size_t distinct = 0;
    gsl_multifit_nlinear_workspace *work = NULL;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_fdf fdf;
    fit_data d;
    int rc = HS_OK, info, status;

    for (size_t i = 0; i < n; i++) {
        if (!(size[i] > 0) || !isfinite(size[i]) || !(us[i] > 0) || !isfinite(us[i]) ||
            (count && (!(count[i] > 0) || !isfinite(count[i]))))
            return hs_error_set(err, HS_EINPUT, "fit: point %zu (D %g, %g us) needs D > 0, a "
                                "duration > 0 and a count > 0", i, size[i], us[i]);
        lref += log(size[i]) / (double)n;
        ymin = fmin(ymin, us[i]);
    }
    if ((distinct = distinct_sizes(size, n)) < 3)
        return hs_error_set(err, HS_EINPUT, "fit: a*D^b+c needs at least 3 distinct sizes, "
                            "got %zu", distinct);
    lx = malloc(n * sizeof *lx);
    wt = malloc(n * sizeof *wt);
    lwt = malloc(n * sizeof *lwt);
    if (!lx || !wt || !lwt) {
        rc = nomem(err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        lx[i] = log(size[i]) - lref;
        wt[i] = (count ? count[i] : 1.0) / (us[i] * us[i]); /* relative residuals */
        lwt[i] = count ? count[i] : 1.0;                    /* log residuals are relative */
    }
    d = (fit_data){.n = n, .lx = lx, .y = us, .ymin = ymin};
    start_values(&d, lwt, p);

    /* Library code must not abort the process: GSL reports through codes. */
    gsl_set_error_handler_off();
    fdf = (gsl_multifit_nlinear_fdf){.f = fit_f, .df = fit_df, .fvv = NULL, .n = n, .p = 3,
                                     .params = &d};
    params.trs = gsl_multifit_nlinear_trs_lm;
    if (!(work = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, 3))) {
        rc = nomem(err);
        goto out;
    }
    {
        gsl_vector_view x0 = gsl_vector_view_array(p, 3);
        gsl_vector_view w0 = gsl_vector_view_array(wt, n);
        gsl_multifit_nlinear_winit(&x0.vector, &w0.vector, &fdf, work);
    }
    status = gsl_multifit_nlinear_driver(500, 1e-14, 1e-14, 0.0, NULL, NULL, &info, work);
    /* Running out of iterations or of progress at machine precision still
     * leaves the best point found; anything else is a failure. */
    if (status != GSL_SUCCESS && status != GSL_EMAXITER && status != GSL_ENOPROG) {
        rc = hs_error_set(err, HS_ESOLVER, "fit: GSL's solver failed: %s",
                          gsl_strerror(status));
        goto out;
    }
    for (int i = 0; i < 3; i++)
        p[i] = gsl_vector_get(gsl_multifit_nlinear_position(work), i);
    out->b = p[1];
    out->a = exp(p[0] - p[1] * lref);
    out->c = p[2] * ymin;
    out->npoints = (int)distinct;
    for (size_t i = 0; i < n; i++) {
        double r = (exp(p[0] + p[1] * lx[i]) + p[2] * ymin - us[i]) / us[i];
        sse += lwt[i] * r * r;
        wsum += lwt[i];
    }
    out->rms_rel = sqrt(sse / wsum);
    if (!isfinite(out->a) || !isfinite(out->b) || !isfinite(out->c) || !isfinite(out->rms_rel))
        rc = hs_error_set(err, HS_ESOLVER, "fit: the solver diverged (a %g, b %g, c %g)",
                          out->a, out->b, out->c);
out:
    gsl_multifit_nlinear_free(work);
    free(lx);
    free(wt);
    free(lwt);
    return rc;
}

/* Stores (or replaces) the fit of (type, device). */
static int put_fit(hs_perfmodel *m, const char *type, const char *device, const hs_perf_fit *f,
                   hs_error *err)
{
    char buf[KEY_MAX];
    const char *k = key(buf, sizeof buf, type, NULL, NULL, device);
    fit_entry *fe;
    size_t i;
    if (!k)
        return hs_error_set(err, HS_EINPUT, "performance model: type and device names are too "
                            "long");
    if (hs__strmap_get(m->fit_index, k, &i)) {
        m->fits[i].fit = *f;
        return HS_OK;
    }
    if (reserve((void **)&m->fits, &m->fits_cap, m->nfits, sizeof *m->fits) != 0)
        return nomem(err);
    fe = &m->fits[m->nfits];
    *fe = (fit_entry){.type = strdup(type), .device = strdup(device), .fit = *f};
    if (!fe->type || !fe->device || hs__strmap_put(m->fit_index, k, m->nfits) < 0) {
        free(fe->type);
        free(fe->device);
        return nomem(err);
    }
    m->nfits++;
    return HS_OK;
}

int hs_perfmodel_fit(hs_perfmodel *m, hs_error *err)
{
    size_t n = m->nentries;
    double *D = NULL, *y = NULL, *cnt = NULL;
    char *done = NULL;
    int first_rc = HS_OK;
    hs_error first = {0};
    if (n == 0)
        return HS_OK;
    D = malloc(n * sizeof *D);
    y = malloc(n * sizeof *y);
    cnt = malloc(n * sizeof *cnt);
    done = calloc(n, 1);
    if (!D || !y || !cnt || !done) {
        first_rc = nomem(err);
        goto out;
    }
    /* Group entries by (type, device): quadratic in the number of entries,
     * which stays in the hundreds (types x sizes x devices). */
    for (size_t i = 0; i < n; i++) {
        const entry *ei = &m->entries[i];
        size_t k = 0;
        if (done[i])
            continue;
        for (size_t j = i; j < n; j++) {
            const entry *ej = &m->entries[j];
            hs_perf_history h;
            if (done[j] || strcmp(ej->type, ei->type) != 0 ||
                strcmp(ej->device, ei->device) != 0)
                continue;
            done[j] = 1;
            if (!has_history(ej) || strcmp(ej->params, HS_PERF_PART) == 0)
                continue; /* a part is not a whole kernel of its size */
            history_of(ej, &h);
            if (!(h.median_us > 0)) /* nothing measured: no relative residual */
                continue;
            D[k] = ej->size;
            y[k] = h.median_us;
            cnt[k] = h.nsamples > 0 ? (double)h.nsamples : 1.0;
            k++;
        }
        if (distinct_sizes(D, k) >= 3) {
            hs_perf_fit f;
            hs_error e = {0};
            int rc = hs_perfmodel_fit_points(D, y, cnt, k, &f, &e);
            if (rc == HS_OK)
                rc = put_fit(m, ei->type, ei->device, &f, &e);
            if (rc != HS_OK && first_rc == HS_OK) {
                first_rc = rc;
                first = e;
                snprintf(first.msg, sizeof first.msg, "%.200s on %.200s: %.500s", ei->type,
                         ei->device, e.msg);
            }
        }
    }
    if (first_rc != HS_OK && err)
        *err = first;
out:
    free(D);
    free(y);
    free(cnt);
    free(done);
    return first_rc;
}

int hs_perfmodel_get_fit(const hs_perfmodel *m, const char *type, const char *device,
                         hs_perf_fit *out)
{
    char buf[KEY_MAX];
    const char *k = key(buf, sizeof buf, type, NULL, NULL, device);
    size_t i;
    if (!k || !hs__strmap_get(m->fit_index, k, &i))
        return 0;
    *out = m->fits[i].fit;
    return 1;
}

size_t hs_perfmodel_fits(const hs_perfmodel *m)
{
    return m->nfits;
}

void hs_perfmodel_fit_at(const hs_perfmodel *m, size_t i, const char **type,
                         const char **device, hs_perf_fit *out)
{
    *type = m->fits[i].type;
    *device = m->fits[i].device;
    *out = m->fits[i].fit;
}

double hs_perfmodel_fit_eval(const hs_perf_fit *f, double size)
{
    return fmax(0.0, f->a * pow(size, f->b) + f->c);
}

int hs_perfmodel_predict(const hs_perfmodel *m, const char *type, const char *params,
                         double size, const char *device, double *us, hs_perf_source *src,
                         hs_error *err)
{
    hs_perf_history h;
    hs_perf_fit f;
    int rc;
    if (src)
        *src = HS_PERF_NONE;
    if ((rc = check_args(type, params, size, device, err)) != 0)
        return rc;
    if ((params && *params && hs_perfmodel_history(m, type, params, size, device, &h)) ||
        hs_perfmodel_history(m, type, NULL, size, device, &h)) {
        *us = h.median_us;
        if (src)
            *src = HS_PERF_HISTORY;
        return HS_OK;
    }
    if (hs_perfmodel_get_fit(m, type, device, &f)) {
        *us = hs_perfmodel_fit_eval(&f, size);
        if (src)
            *src = HS_PERF_FIT;
        return HS_OK;
    }
    return hs_error_set(err, HS_EINPUT, "no performance model for %s of size %g on %s (not "
                        "measured at this size, and no fit: it needs 3 measured sizes)",
                        type, size, device);
}

/* ------------------------------------------------------------------- JSON */

#define FORMAT_KEY "hetsched_perfmodel"
#define FORMAT_VERSION 2    /* 2 added each entry's params; 1 is still read */

int hs_perfmodel_save(const hs_perfmodel *m, const char *path, hs_error *err)
{
    json_t *root = json_object(), *hist = json_array(), *fits = json_array();
    hs_output o;
    int rc = HS_OK, ok = root && hist && fits;
    ok = ok && json_object_set_new(root, FORMAT_KEY, json_integer(FORMAT_VERSION)) == 0;
    for (size_t i = 0; ok && i < m->nentries; i++) {
        hs_perf_entry e;
        json_t *win = json_array(), *o;
        hs_perfmodel_entry(m, i, &e);
        /* the window oldest first, so a reload resumes the ring in order */
        for (int k = 0; win && k < e.h.nsamples; k++)
            ok = ok && json_array_append_new(win, json_real(e.samples[k])) == 0;
        o = json_pack("{s:s, s:s, s:f, s:s, s:f, s:f, s:I, s:I, s:o}", "type", e.type,
                      "params", e.params, "size", e.size, "device", e.device, "mean_us",
                      e.h.mean_us, "stddev_us", e.h.stddev_us, "count", (json_int_t)e.h.count,
                      "rejected", (json_int_t)e.h.rejected, "samples", win);
        ok = ok && o && json_array_append_new(hist, o) == 0;
    }
    for (size_t i = 0; ok && i < m->nfits; i++) {
        const fit_entry *f = &m->fits[i];
        json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:i, s:f}", "type", f->type, "device",
                              f->device, "a", f->fit.a, "b", f->fit.b, "c", f->fit.c,
                              "points", f->fit.npoints, "rms_rel", f->fit.rms_rel);
        ok = ok && o && json_array_append_new(fits, o) == 0;
    }
    if (ok) {
        ok = json_object_set(root, "history", hist) == 0 &&
             json_object_set(root, "fits", fits) == 0;
    }
    if (!ok) {
        rc = nomem(err);
    } else if ((rc = hs_output_open(&o, path, err)) == HS_OK) {
        rc = json_dumpf(root, o.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0 &&
                     fputc('\n', o.f) != EOF
                 ? HS_OK
                 : hs_output_error(&o, err);
        rc = hs_output_close(&o, rc, err);
    }
    json_decref(hist);
    json_decref(fits);
    json_decref(root);
    return rc;
}

/* Reading: every key known and present, every value of its type and range,
 * each message "FILE:LINE:COL: error: PATH: WHAT" (graph/json_read.h). */

/* Counts of samples up to 2^53: exact as doubles (the running mean divides
 * by them), and count + rejected cannot overflow. */
#define MAX_COUNT 9007199254740992LL

static const char *const top_keys[] = {FORMAT_KEY, "history", "fits", NULL};
static const char *const entry_keys[] = {"type",    "?params",   "size",  "device",
                                         "mean_us", "stddev_us", "count", "rejected",
                                         "samples", NULL};
static const char *const fit_keys[] = {"type", "device", "a", "b", "c", "points", "rms_rel",
                                       NULL};

/* Is s printable UTF-8 (what model show prints to a terminal)? */
static int printable(const char *s)
{
    size_t n = strlen(s), len;
    unsigned cp;
    for (size_t i = 0; i < n; i += len)
        if (!(len = hs__utf8_char(s + i, n - i, &cp)) || !hs__utf8_printable(cp))
            return 0;
    return 1;
}

/* Text at obj.key: printable UTF-8, not empty unless `may_be_empty`. */
static int get_text(const hs__json_doc *doc, hs_error *err, const json_t *obj, const char *key,
                    const char *at, int may_be_empty, const char **out)
{
    char sub[96];
    int rc = hs__json_string(doc, err, obj, key, at, 0, out);
    if (rc != HS_OK || ((**out || may_be_empty) && printable(*out)))
        return rc;
    snprintf(sub, sizeof sub, "%s.%s", at, key);
    return hs__json_error(doc, err, sub, "must be %sprintable UTF-8 text, not '%.200s'",
                          may_be_empty ? "" : "non-empty ", *out);
}

/* An error of the model's own checks (err_in) located at `at`. */
static int located(const hs__json_doc *doc, hs_error *err, const char *at, const hs_error *in)
{
    if (in->code != HS_EINPUT)
        return hs_error_set(err, in->code, "%s", in->msg);
    return hs__json_error(doc, err, at, "%s", in->msg);
}

/* Reads one history entry, history[i] at `at`. */
static int load_entry(hs_perfmodel *m, const hs__json_doc *doc, const char *at, const json_t *o,
                      hs_error *err)
{
    const char *type, *params = "", *device;
    double size, mean, sd;
    long long count, rejected;
    const json_t *samples, *s;
    hs_error in = {0};
    char sub[96];
    entry *e;
    size_t k;
    int rc;
    if ((rc = hs__json_keys(doc, err, o, at, entry_keys, "a history entry")) != HS_OK ||
        (rc = get_text(doc, err, o, "type", at, 0, &type)) != HS_OK ||
        (json_object_get(o, "params") &&
         (rc = get_text(doc, err, o, "params", at, 1, &params)) != HS_OK) ||
        (rc = hs__json_number(doc, err, o, "size", at, HS__JSON_POSITIVE, &size)) != HS_OK ||
        (rc = get_text(doc, err, o, "device", at, 0, &device)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "mean_us", at, HS__JSON_NONNEG, &mean)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "stddev_us", at, HS__JSON_NONNEG, &sd)) != HS_OK ||
        (rc = hs__json_whole(doc, err, o, "count", at, 0, MAX_COUNT, &count)) != HS_OK ||
        (rc = hs__json_whole(doc, err, o, "rejected", at, 0, MAX_COUNT, &rejected)) != HS_OK ||
        (rc = hs__json_array(doc, err, o, "samples", at, &samples)) != HS_OK)
        return rc;
    /* the window holds retained and rejected samples */
    snprintf(sub, sizeof sub, "%s.samples", at);
    if (json_array_size(samples) > HS_PERF_WINDOW ||
        (long long)json_array_size(samples) > count + rejected)
        return hs__json_error(doc, err, sub, "holds %zu samples, more than count + rejected "
                              "(%lld) or than the %d a window keeps",
                              json_array_size(samples), count + rejected, HS_PERF_WINDOW);
    json_array_foreach(samples, k, s) {
        if (!json_is_number(s) || !isfinite(json_number_value(s)) || json_number_value(s) < 0) {
            snprintf(sub, sizeof sub, "%s.samples[%zu]", at, k);
            return hs__json_error(doc, err, sub, "must be a finite number >= 0");
        }
    }
    if (find_entry(m, type, params, size, device))
        return hs__json_error(doc, err, at, "a second entry for %s%s%s of size %g on %s", type,
                              *params ? " " : "", params, size, device);
    if ((rc = get_entry(m, type, params, size, device, &e, &in)) != 0)
        return located(doc, err, at, &in);
    e->count = (long)count;
    e->rejected = (long)rejected;
    e->mean = mean;
    e->m2 = count > 1 ? sd * sd * (double)(count - 1) : 0.0;
    json_array_foreach(samples, k, s)
        e->window[e->nwin++] = json_number_value(s);
    e->next = e->nwin % HS_PERF_WINDOW;
    return HS_OK;
}

/* Reads one fit, fits[i] at `at`. */
static int load_fit(hs_perfmodel *m, const hs__json_doc *doc, const char *at, const json_t *o,
                    hs_error *err)
{
    const char *type, *device;
    hs_perf_fit f;
    long long points;
    hs_error in = {0};
    int rc;
    if ((rc = hs__json_keys(doc, err, o, at, fit_keys, "a fit")) != HS_OK ||
        (rc = get_text(doc, err, o, "type", at, 0, &type)) != HS_OK ||
        (rc = get_text(doc, err, o, "device", at, 0, &device)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "a", at, HS__JSON_FINITE, &f.a)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "b", at, HS__JSON_FINITE, &f.b)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "c", at, HS__JSON_FINITE, &f.c)) != HS_OK ||
        (rc = hs__json_whole(doc, err, o, "points", at, 3, INT_MAX, &points)) != HS_OK ||
        (rc = hs__json_number(doc, err, o, "rms_rel", at, HS__JSON_NONNEG, &f.rms_rel)) != HS_OK)
        return rc;
    f.npoints = (int)points;
    if (hs_perfmodel_get_fit(m, type, device, &(hs_perf_fit){0}))
        return hs__json_error(doc, err, at, "a second fit for %s on %s", type, device);
    if ((rc = put_fit(m, type, device, &f, &in)) != HS_OK)
        return located(doc, err, at, &in);
    return HS_OK;
}

/* Reads a parsed document into a new model. */
static int load_doc(const hs__json_doc *doc, hs_perfmodel **out, hs_error *err)
{
    const json_t *root = doc->root, *hist, *fits, *o;
    long long version;
    hs_perfmodel *m;
    size_t i;
    int rc;
    char at[48];
    if (!json_is_object(root))
        return hs__json_error(doc, err, "", "a performance model is a JSON object, not %s",
                              hs__json_type_name(root));
    if ((rc = hs__json_keys(doc, err, root, "", top_keys, "a performance model")) != HS_OK ||
        (rc = hs__json_whole(doc, err, root, FORMAT_KEY, "", 1, FORMAT_VERSION, &version)) !=
            HS_OK ||
        (rc = hs__json_array(doc, err, root, "history", "", &hist)) != HS_OK ||
        (rc = hs__json_array(doc, err, root, "fits", "", &fits)) != HS_OK)
        return rc;
    if (!(m = hs_perfmodel_new()) || !(m->path = strdup(doc->name))) {
        hs_perfmodel_free(m);
        return nomem(err);
    }
    json_array_foreach(hist, i, o) {
        snprintf(at, sizeof at, "history[%zu]", i);
        if ((rc = load_entry(m, doc, at, o, err)) != HS_OK)
            break;
    }
    if (rc == HS_OK)
        json_array_foreach(fits, i, o) {
            snprintf(at, sizeof at, "fits[%zu]", i);
            if ((rc = load_fit(m, doc, at, o, err)) != HS_OK)
                break;
        }
    if (rc != HS_OK) {
        hs_perfmodel_free(m);
        return rc;
    }
    *out = m;
    return HS_OK;
}

int hs_perfmodel_load(const char *path, hs_perfmodel **out, hs_error *err)
{
    hs__json_doc doc;
    int rc;
    *out = NULL;
    if ((rc = hs__json_read_file(path, &doc, err)) != HS_OK)
        return rc;
    rc = load_doc(&doc, out, err);
    hs__json_doc_free(&doc);
    return rc;
}

int hs_perfmodel_load_buffer(const char *name, const char *data, size_t len, hs_perfmodel **out,
                             hs_error *err)
{
    hs__json_doc doc;
    int rc;
    *out = NULL;
    if ((rc = hs__json_read_buffer(name, data, len, &doc, err)) != HS_OK)
        return rc;
    rc = load_doc(&doc, out, err);
    hs__json_doc_free(&doc);
    return rc;
}

/* ------------------------------------------------------- typed kernels */

/* v as the shortest text that reads back to it. */
static int shortest(char *buf, size_t size, double v)
{
    int n = snprintf(buf, size, "%.15g", v);
    if (n >= 0 && (size_t)n < size && strtod(buf, NULL) == v)
        return n;
    return snprintf(buf, size, "%.17g", v);
}

void hs_perfmodel_conf_of(const hs_kconf *c, hs_perf_kernel *out)
{
    size_t len = 0;
    out->type = c->type->name;
    out->size = c->flops;
    out->params[0] = '\0';
    /* 8 params of names under 16 bytes and 17 digits fit the buffer */
    for (int j = 0; c->type->params[j].name && len < sizeof out->params; j++) {
        char v[32];
        shortest(v, sizeof v, c->p[j]);
        len += (size_t)snprintf(out->params + len, sizeof out->params - len, "%s%s=%s",
                                j ? "," : "", c->type->params[j].name, v);
    }
}

int hs_perfmodel_kernel_of(const hs_kernel *k, hs_perf_kernel *out, hs_error *err)
{
    hs_kconf c;
    int rc;
    if (!k->type)
        return hs_error_set(err, HS_EINPUT, "kernel '%s' has no type: its size is not defined",
                            k->name);
    if ((rc = hs_kconf_init(&c, k->type, k->params, k->nparams, err)) != 0)
        return rc;
    hs_perfmodel_conf_of(&c, out);
    return HS_OK;
}

void hs_perfmodel_params_short(const char *type, const char *params, char *buf, size_t size)
{
    const hs_ktype *t = hs_ktype_find(type);
    double v[HS_KMAX_PARAMS];
    const char *p = params;
    int n = 0;
    size_t len = 0;
    snprintf(buf, size, "%s", *params ? params : "-");
    if (!t || !*params)
        return;
    for (; t->params[n].name; n++) { /* NAME=VALUE per spec param, in order */
        size_t nl = strlen(t->params[n].name);
        char *end;
        if (n == HS_KMAX_PARAMS || strncmp(p, t->params[n].name, nl) != 0 || p[nl] != '=')
            return;
        v[n] = strtod(p + nl + 1, &end);
        if (*end != (t->params[n + 1].name ? ',' : '\0') || end == p + nl + 1)
            return;
        p = end + 1;
    }
    buf[0] = '\0';
    for (int j = 0; j < n && len < size; j++) {
        const hs_kparam_spec *s = &t->params[j];
        double def = s->def;
        const char *at = params;
        if (s->def_param)
            for (int i = 0; i < n; i++)
                if (strcmp(t->params[i].name, s->def_param) == 0)
                    def = v[i];
        for (int i = 0; i < j; i++) /* the text of param j */
            at = strchr(at, ',') + 1;
        if (!s->required && v[j] == def)
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s", len ? "," : "",
                                (int)strcspn(at, ","), at);
    }
}

int hs_perfmodel_kernel_size(const hs_kernel *k, double *size, hs_error *err)
{
    hs_perf_kernel pk;
    int rc = hs_perfmodel_kernel_of(k, &pk, err);
    if (rc == HS_OK)
        *size = pk.size;
    return rc;
}

/* hs_perfmodel_predict by d's name, else by its kind. */
static int predict_on(const hs_perfmodel *m, const char *type, const char *params,
                      double size, const hs_device *d, double *us, hs_perf_source *src,
                      hs_error *err)
{
    if (hs_perfmodel_predict(m, type, params, size, d->name, us, src, NULL) == HS_OK ||
        hs_perfmodel_predict(m, type, params, size, hs_device_kind_name(d->kind), us, src,
                             NULL) == HS_OK)
        return HS_OK;
    if (m->path)
        return hs_error_set(err, HS_EINPUT, "no performance model for %s on %s in %s (run "
                            "hetsched calibrate)", type, d->name, m->path);
    return hs_error_set(err, HS_EINPUT, "no performance model for %s on %s (run hetsched "
                        "calibrate)", type, d->name);
}

int hs_perfmodel_predict_device(const hs_perfmodel *m, const char *type, double size,
                                const hs_device *d, double *us, hs_error *err)
{
    return predict_on(m, type, NULL, size, d, us, NULL, err);
}

/* The part entry of (type, device) nearest to `size` in ratio, within
 * HS_PERF_PART_RANGE of it either way, or NULL.  A linear scan: parts are a
 * few entries per split kernel. */
static const entry *nearest_part(const hs_perfmodel *m, const char *type, double size,
                                 const char *device)
{
    const entry *best = NULL;
    double best_r = HS_PERF_PART_RANGE;
    for (size_t i = 0; i < m->nentries; i++) {
        const entry *e = &m->entries[i];
        double r = e->size > size ? e->size / size : size / e->size;
        if (r <= best_r && strcmp(e->params, HS_PERF_PART) == 0 && has_history(e) &&
            strcmp(e->type, type) == 0 && strcmp(e->device, device) == 0) {
            best = e;
            best_r = r;
        }
    }
    return best;
}

int hs_perfmodel_predict_part(const hs_perfmodel *m, const char *type, double size,
                              const hs_device *d, double *us, hs_error *err)
{
    const char *names[2] = {d->name, hs_device_kind_name(d->kind)};
    if (!(size > 0) || !type)
        return hs_error_set(err, HS_EINPUT, "a part's size must be > 0");
    for (int i = 0; i < 2; i++) {
        const entry *e = nearest_part(m, type, size, names[i]);
        if (e) {
            hs_perf_history h;
            history_of(e, &h);
            *us = h.median_us * size / e->size;
            return HS_OK;
        }
    }
    return predict_on(m, type, NULL, size, d, us, NULL, err);
}

double hs__perf_part_kernel_us(const hs_perfmodel *pm, const hs_workload *w, size_t t, int d,
                               double f)
{
    const hs_task *task = &w->graph.tasks[t];
    const hs_kernel *k = &w->apps[task->app].kernels[task->kernel];
    double lin = f * hs_task_kernel_us(&w->platform, task, d), size, us;
    if (pm && k->type && hs_perfmodel_kernel_size(k, &size, NULL) == HS_OK &&
        hs_perfmodel_predict_part(pm, k->type, f * size, &w->platform.devices[d], &us,
                                  NULL) == HS_OK)
        return us > lin ? us : lin;
    return lin;
}

int hs_perfmodel_predict_kernel(const hs_perfmodel *m, const hs_kernel *k, const hs_device *d,
                                double *us, hs_perf_source *src, hs_error *err)
{
    hs_perf_kernel pk;
    int rc;
    if (src)
        *src = HS_PERF_NONE;
    if ((rc = hs_perfmodel_kernel_of(k, &pk, err)) != 0)
        return rc;
    return predict_on(m, pk.type, pk.params, pk.size, d, us, src, err);
}

int hs_perfmodel_link_fn(void *ctx, const char *from, const char *to, double *gbps,
                         hs_error *err)
{
    char name[128];
    hs_perf_history h;
    if (snprintf(name, sizeof name, "%s->%s", from, to) >= (int)sizeof name ||
        !hs_perfmodel_history(ctx, HS_PERF_LINK, NULL, HS_PERF_LINK_BYTES, name, &h))
        return 1;
    if (!(h.median_us > 0))
        return hs_error_set(err, HS_EINPUT, "the model's %s entry %s takes %g us for %g bytes",
                            HS_PERF_LINK, name, h.median_us, HS_PERF_LINK_BYTES);
    *gbps = HS_PERF_LINK_BYTES / h.median_us / 1e3;
    return 0;
}

int hs_perfmodel_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                         hs_error *err)
{
    hs_perf_history h;
    if (k)
        return hs_perfmodel_predict_kernel(ctx, k, d, us, NULL, err);
    if (!hs_perfmodel_history(ctx, HS_PERF_OVERHEAD, NULL, 1, d->name, &h))
        return 1;
    *us = h.median_us;
    return HS_OK;
}

/* ------------------------------------------------------ measured runs */

/* Where each placement of s could have started at the earliest: its
 * predecessors ended and every copy into it ended (ready[i], for placement
 * i); the caller frees it.  NULL when out of memory. */
static double *ready_times(const hs_workload *w, const hs_schedule *s)
{
    const hs_graph *g = &w->graph;
    double *ready = calloc(s->nplacements + 1, sizeof *ready);
    double *ended = calloc(g->ntasks + 1, sizeof *ended);
    if (!ready || !ended) {
        free(ready);
        free(ended);
        return NULL;
    }
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        if (p->task < g->ntasks)
            ended[p->task] = fmax(ended[p->task], p->end_us);
    }
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_edge *ed;
        if (s->placements[i].task >= g->ntasks)
            continue;
        HS_GRAPH_PRED_FOREACH(g, s->placements[i].task, ed)
        ready[i] = fmax(ready[i], ended[ed->from]);
    }
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        if (t->to_placement != HS_NONE && (size_t)t->to_placement < s->nplacements)
            ready[t->to_placement] = fmax(ready[t->to_placement], t->end_us);
    }
    free(ended);
    return ready;
}

typedef struct started {
    int device;
    double start_us;
    size_t placement;
} started;

/* By device, then by start: each device's placements in the order it ran
 * them. */
static int by_device_start(const void *a, const void *b)
{
    const started *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->start_us > y->start_us) - (x->start_us < y->start_us);
}

/* The mean of x[0..n) without its largest value (n >= 2), else x[0].  A
 * makespan sums the waits of every task, the many small and the few long
 * ones alike, so a robust statistic falls short of it: on the H200 the
 * median gap between two queued pi kernels was 3.9 us and their mean 4.8 us,
 * 3300 tasks making the difference 3 ms of a 129 ms run.  The one largest
 * is left out so that one stall of a run does not move the entry. */
static double mean_but_largest(const double *x, size_t n)
{
    double sum = 0, top = -INFINITY;
    if (n < 2)
        return n ? x[0] : NAN;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        top = fmax(top, x[i]);
    }
    return (sum - top) / (double)(n - 1);
}

int hs_perfmodel_overheads(const hs_workload *w, const hs_schedule *s, double *over,
                           size_t *ntasks, hs_error *err)
{
    int nd = w->platform.ndevices;
    double *ready = ready_times(w, s), *wait = malloc((s->nplacements + 1) * sizeof *wait);
    started *order = malloc((s->nplacements + 1) * sizeof *order);
    size_t n = 0;
    if (!ready || !wait || !order) {
        free(ready);
        free(wait);
        free(order);
        return nomem(err);
    }
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].device >= 0 && s->placements[i].device < nd)
            order[n++] = (started){s->placements[i].device, s->placements[i].start_us, i};
    qsort(order, n, sizeof *order, by_device_start);
    for (int d = 0; d < nd; d++) {
        over[d] = 0.0;
        if (ntasks)
            ntasks[d] = 0;
    }
    for (size_t j = 0; j < n;) {
        int d = order[j].device;
        double free_at = 0;
        size_t m = 0;
        for (; j < n && order[j].device == d; j++) {
            const hs_placement *p = &s->placements[order[j].placement];
            wait[m++] = fmax(0.0, p->start_us - fmax(free_at, ready[order[j].placement]));
            free_at = p->end_us;
        }
        over[d] = mean_but_largest(wait, m);
        if (ntasks)
            ntasks[d] = m;
    }
    free(ready);
    free(order);
    free(wait);
    return HS_OK;
}

/* The memory of device d of p (host for HS_HOST_DEVICE), -1 for none. */
static int memory_of(const hs_platform *p, int d)
{
    return d == HS_HOST_DEVICE ? HS_HOST_MEMORY
           : d >= 0 && d < p->ndevices ? p->devices[d].memory
                                       : -1;
}

/* Each declared link's time per HS_PERF_LINK_BYTES in run s of w (a route
 * across nodes is derived from them), from its copies of 1 MiB or more,
 * recorded where they moved 64 MiB or more (less is too little to tell a
 * bandwidth); *n counts them. */
static int record_links(hs_perfmodel *m, const hs_workload *w, const hs_schedule *s,
                        hs_perf_added *n, hs_error *err)
{
    const hs_platform *p = &w->platform;
    size_t nm = (size_t)p->nmemories;
    double *bytes = calloc(2 * nm * nm + 1, sizeof *bytes), *us = bytes + nm * nm;
    int rc = HS_OK;
    if (!bytes)
        return nomem(err);
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        int a = memory_of(p, t->from_device), b = memory_of(p, t->to_device);
        size_t i = (size_t)a * nm + (size_t)b;
        if (a < 0 || b < 0 || a == b || p->links[i].route || !(t->bytes >= 1 << 20))
            continue;
        bytes[i] += t->bytes;
        us[i] += fmax(0.0, t->end_us - t->start_us - p->links[i].latency_us);
    }
    for (size_t i = 0; i < nm * nm && rc == HS_OK; i++) {
        char name[128];
        if (bytes[i] < 64 << 20 || !(us[i] > 0))
            continue;
        snprintf(name, sizeof name, "%s->%s", p->memories[i / nm], p->memories[i % nm]);
        if ((rc = hs_perfmodel_record(m, HS_PERF_LINK, NULL, HS_PERF_LINK_BYTES, name,
                                      us[i] * HS_PERF_LINK_BYTES / bytes[i], NULL, err)) ==
            HS_OK)
            n->links++;
    }
    free(bytes);
    return rc;
}

/* The entry that placement p of a run records into, into *at (its index;
 * SIZE_MAX: none, for a cost-only task or a part that ran nothing), made
 * if new, and p counted in *n. */
static int entry_of_placement(hs_perfmodel *m, const hs_workload *w, const hs_placement *p,
                              size_t *at, hs_perf_added *n, hs_error *err)
{
    const hs_task *t = &w->graph.tasks[p->task];
    const hs_kernel *k = &w->apps[t->app].kernels[t->kernel];
    const char *device = w->platform.devices[p->device].name;
    const char *params;
    hs_kconf c;
    hs_perf_kernel pk;
    entry *e;
    double size;
    int whole, rc;
    *at = SIZE_MAX;
    if (!k->type) {
        n->untyped++;
        return HS_OK;
    }
    if ((rc = hs_kconf_init(&c, k->type, k->params, k->nparams, err)) != 0)
        return rc;
    hs_perfmodel_conf_of(&c, &pk);
    /* a kernel that cannot be split runs whole in part 0 (exec/data.c) and
     * not at all in the others */
    whole = p->nparts <= 1 || (!c.splittable && p->part == 0);
    if (!whole && (!c.splittable || !(p->fraction > 0)))
        return HS_OK;
    params = whole ? pk.params : HS_PERF_PART;
    size = whole ? pk.size : p->fraction * pk.size;
    if ((rc = check_args(pk.type, params, size, device, err)) != 0 ||
        (rc = check_duration(pk.type, device, fmax(0.0, p->end_us - p->start_us), err)) != 0 ||
        (rc = get_entry(m, pk.type, params, size, device, &e, err)) != 0)
        return rc;
    *at = (size_t)(e - m->entries);
    if (whole)
        n->whole++;
    else
        n->parts++;
    return HS_OK;
}

/* Records the samples of run s into the entries at[] names.  A run gives
 * an entry many samples (4000 pi tasks) and its window takes
 * HS_PERF_RUN_SHARE of them: spread evenly over the run, so that they
 * stand for the whole run and not for its last tasks (on the H200, pi on
 * cpu0 had 58.8 us from the last 32 of a training run, and 64-70 us in the
 * runs it then predicted), and a share of the window, so that one run
 * does not replace the others (on an H100, a training run with pi 2.6x
 * slower than in the runs after it, on the GPU and on the CPU, made the
 * model predict those runs 1.35x too slow).  Every sample is counted. */
static int record_spread(hs_perfmodel *m, const hs_schedule *s, const size_t *at,
                         hs_error *err)
{
    size_t *total = calloc(2 * m->nentries + 1, sizeof *total), *seen = total + m->nentries;
    if (!total)
        return nomem(err);
    for (size_t i = 0; i < s->nplacements; i++)
        if (at[i] != SIZE_MAX)
            total[at[i]]++;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        double x = fmax(0.0, p->end_us - p->start_us);
        size_t j, n;
        entry *e;
        if (at[i] == SIZE_MAX)
            continue;
        e = &m->entries[at[i]];
        j = seen[at[i]]++;
        n = total[at[i]];
        if (n <= HS_PERF_RUN_SHARE ||
            (j + 1) * HS_PERF_RUN_SHARE / n != j * HS_PERF_RUN_SHARE / n)
            add_sample(e, x, is_outlier(e, x));
        else
            count_sample(e, x, is_outlier(e, x));
    }
    free(total);
    return HS_OK;
}

int hs_perfmodel_add_run(hs_perfmodel *m, const hs_workload *w, const hs_schedule *s,
                         hs_perf_added *added, hs_error *err)
{
    hs_perf_added n = {0};
    int rc = HS_OK;
    double *over;
    size_t *ran, *at;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        if (p->task >= w->graph.ntasks || p->device < 0 || p->device >= w->platform.ndevices)
            return hs_error_set(err, HS_EINPUT, "placement %zu: no task %zu on device %d in "
                                "the workload", i, p->task, p->device);
    }
    over = calloc((size_t)w->platform.ndevices + 1, sizeof *over);
    ran = calloc((size_t)w->platform.ndevices + 1, sizeof *ran);
    if (!over || !ran)
        rc = nomem(err);
    else
        rc = hs_perfmodel_overheads(w, s, over, ran, err);
    /* a device's overhead from a run where it ran a few tasks is noise */
    for (int d = 0; d < w->platform.ndevices && rc == HS_OK; d++)
        if (ran[d] >= HS_PERF_MIN_SAMPLES &&
            (rc = hs_perfmodel_record(m, HS_PERF_OVERHEAD, NULL, 1,
                                      w->platform.devices[d].name, over[d], NULL, err)) ==
                HS_OK)
            n.overheads++;
    free(over);
    free(ran);
    if (rc == HS_OK)
        rc = record_links(m, w, s, &n, err);
    at = rc == HS_OK ? malloc((s->nplacements + 1) * sizeof *at) : NULL;
    if (rc == HS_OK && !at)
        rc = nomem(err);
    for (size_t i = 0; i < s->nplacements && rc == HS_OK; i++)
        rc = entry_of_placement(m, w, &s->placements[i], &at[i], &n, err);
    if (rc == HS_OK)
        rc = record_spread(m, s, at, err);
    free(at);
    if (added)
        *added = n;
    return rc;
}
