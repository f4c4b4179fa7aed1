/* hetsched — calibration: kernel costs per device and link costs per pair
 * of memories, into a performance model and a platform (exec/calibrate.h).
 * A GPU is measured through the device layer that runs graphs
 * (exec/mem.h): its buffers, copies and kernels are the cuda backend's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/calibrate.h"
#include "exec/data.h"
#include "exec/mem.h"
#include "hetsched/output.h"

#define MIB (1024.0 * 1024.0)
#define MAX_SIZES HS_CALIB_MAX_SIZES /* explicit sizes accepted */
#define MAX_THREADS 1024
#define MAX_REPS 100000
#define COPY_BYTES (64u << 20) /* bandwidth copies: long enough for a link's full rate */
#define MAX_TYPES 64
#define MAX_DEVICES 65 /* cpu0 and 64 GPUs */

/* What one size list asks for (see exec/calibrate.h); all 0 for a
 * workload's kernels. */
typedef struct plan {
    int sweep;                /* sizes of each type (not a workload's kernels) */
    int full, explicit_;
    double values[MAX_SIZES]; /* explicit values of the size param */
    int nvalues;
    double byte_cap;          /* largest buffers of a measured kernel; 0: none */
    double time_cap_us;       /* larger sizes are skipped past this; 0: none */
} plan;

/* A device being measured: cpu0 (mem -1) or gpuK on the layer's memory mem. */
typedef struct cdev {
    char name[16];
    int mem;
    int stopped;              /* for the current type: larger sizes skipped */
} cdev;

/* The kernels of one type to measure, by increasing flops. */
typedef struct kset {
    const hs_ktype *t;
    hs_kconf *confs;
    int n, cap;
} kset;

/* ------------------------------------------------------------ options */

/* Splits a comma list into at most `max` tokens, each a copy in its own
 * buffer of `width` bytes; HS_EINPUT for an empty or too long token. */
static int split_list(const char *what, const char *s, char (*tok)[32], int max, int *n,
                      hs_error *err)
{
    *n = 0;
    for (const char *p = s;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return hs_error_set(err, HS_EINPUT, "%s: empty item in '%s'", what, s);
        if (len >= 32)
            return hs_error_set(err, HS_EINPUT, "%s: item '%.*s' is too long", what, (int)len,
                                p);
        if (*n == max)
            return hs_error_set(err, HS_EINPUT, "%s: more than %d items in '%s'", what, max,
                                s);
        memcpy(tok[*n], p, len);
        tok[*n][len] = '\0';
        (*n)++;
        p += len;
        if (!*p)
            return HS_OK;
    }
}

/* The registry's type names, for messages. */
static void known_types(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; hs_ktypes[i] && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
                                hs_ktypes[i]->name);
}

/* Resolves o->types into types[] (every type when NULL). */
static int parse_types(const char *s, const hs_ktype **types, int *ntypes, hs_error *err)
{
    char tok[64][32], known[256];
    int n, rc;
    *ntypes = 0;
    if (!s) {
        for (int i = 0; hs_ktypes[i] && i < 64; i++)
            types[(*ntypes)++] = hs_ktypes[i];
        return HS_OK;
    }
    if ((rc = split_list("types", s, tok, 64, &n, err)) != 0)
        return rc;
    for (int i = 0; i < n; i++) {
        const hs_ktype *t = hs_ktype_find(tok[i]);
        if (!t) {
            known_types(known, sizeof known);
            return hs_error_set(err, HS_EINPUT, "types: unknown kernel type '%s' (known: %s)",
                                tok[i], known);
        }
        for (int j = 0; j < *ntypes; j++)
            if (types[j] == t)
                return hs_error_set(err, HS_EINPUT, "types: '%s' given twice", tok[i]);
        types[(*ntypes)++] = t;
    }
    return HS_OK;
}

static int parse_sizes(const char *s, plan *pl, hs_error *err)
{
    char tok[MAX_SIZES][32];
    int rc;
    memset(pl, 0, sizeof *pl);
    pl->sweep = 1;
    if (!s || strcmp(s, "quick") == 0) {
        pl->byte_cap = 64 * MIB;
        pl->time_cap_us = 0.2e6;
        return HS_OK;
    }
    if (strcmp(s, "full") == 0) {
        pl->full = 1;
        pl->byte_cap = 1024 * MIB;
        pl->time_cap_us = 2e6;
        return HS_OK;
    }
    if ((rc = split_list("sizes", s, tok, MAX_SIZES, &pl->nvalues, err)) != 0)
        return rc;
    pl->explicit_ = 1;
    for (int i = 0; i < pl->nvalues; i++) {
        char *end;
        double v = strtod(tok[i], &end);
        if (*end || !(v >= 1) || v > 9007199254740992.0 || v != floor(v) ||
            tok[i][0] == '+')
            return hs_error_set(err, HS_EINPUT, "sizes: expected quick, full or a list of "
                                "whole numbers > 0, not '%s'", tok[i]);
        for (int j = 0; j < i; j++)
            if (pl->values[j] == v)
                return hs_error_set(err, HS_EINPUT, "sizes: %s given twice", tok[i]);
        pl->values[i] = v;
    }
    return HS_OK;
}

/* Resolves o->devices: want_cpu and want_gpu[0..ngpus). */
static int parse_devices(const char *s, int ngpus, const char *gpu_note, int *want_cpu,
                         char *want_gpu, hs_error *err)
{
    char tok[64][32];
    int n, rc;
    *want_cpu = !s;
    for (int g = 0; g < ngpus; g++)
        want_gpu[g] = !s;
    if (!s)
        return HS_OK;
    if ((rc = split_list("devices", s, tok, 64, &n, err)) != 0)
        return rc;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i];
        unsigned long long k;
        char *end;
        int twice = 0;
        if (strcmp(t, "cpu") == 0 || strcmp(t, "cpu0") == 0) {
            twice = *want_cpu;
            *want_cpu = 1;
        } else if (strcmp(t, "gpu") == 0) {
            if (ngpus == 0)
                return hs_error_set(err, HS_EINPUT, "devices: no GPU to measure (%s)",
                                    gpu_note);
            for (int g = 0; g < ngpus; g++) {
                twice |= want_gpu[g];
                want_gpu[g] = 1;
            }
        } else if (strncmp(t, "gpu", 3) == 0 && t[3] >= '0' && t[3] <= '9' &&
                   (k = strtoull(t + 3, &end, 10), !*end) && (t[3] != '0' || !t[4])) {
            if (k >= (unsigned long long)ngpus) {
                if (ngpus == 0)
                    return hs_error_set(err, HS_EINPUT, "devices: no device %s (%s)", t,
                                        gpu_note);
                return hs_error_set(err, HS_EINPUT, "devices: no device %s (found %d GPU%s: "
                                    "gpu0..gpu%d)", t, ngpus, ngpus > 1 ? "s" : "",
                                    ngpus - 1);
            }
            twice = want_gpu[k];
            want_gpu[k] = 1;
        } else {
            return hs_error_set(err, HS_EINPUT, "devices: unknown device '%s' (expected cpu, "
                                "gpu or gpuN)", t);
        }
        if (twice)
            return hs_error_set(err, HS_EINPUT, "devices: '%s' given twice", t);
    }
    return HS_OK;
}

/* ---------------------------------------------------------------- sizes */

/* c configured for t with its size param (the first of its spec) = v. */
static int conf_at(const hs_ktype *t, double v, hs_kconf *c, hs_error *err)
{
    hs_param p = {.name = (char *)t->params[0].name, .value = v};
    return hs_kconf_init(c, t->name, &p, 1, err);
}

static double all_bytes(const hs_kconf *c)
{
    return (double)hs_kconf_bytes(c, HS_KREAD | HS_KWRITE);
}

/* Whether t at size v has at least `flops` (want_flops) or at most `bytes`
 * of buffers (!want_flops); a size the registry refuses has neither. */
static int size_ok(const hs_ktype *t, double v, int want_flops, double limit)
{
    hs_kconf c;
    if (conf_at(t, v, &c, NULL) != 0)
        return !want_flops ? 0 : 1; /* too large to configure: past any target */
    return want_flops ? c.flops >= limit : all_bytes(&c) <= limit;
}

/* The size param's value for one flops target under the byte cap: the
 * smallest whole v whose flops reach `target` (the param's max when none
 * does), lowered to the largest v whose buffers fit in `cap`.  Flops and
 * bytes grow with v for every type, so both are bisections. */
static double size_for(const hs_ktype *t, double target, double cap)
{
    const hs_kparam_spec *s = &t->params[0];
    double lo = s->min, hi = s->max, v;
    if (size_ok(t, lo, 1, target)) {
        v = lo;
    } else {
        while (hi - lo > 1) { /* flops(lo) < target <= flops(hi), or hi is the max */
            double mid = floor(lo + (hi - lo) / 2);
            if (size_ok(t, mid, 1, target))
                hi = mid;
            else
                lo = mid;
        }
        v = hi;
    }
    if (size_ok(t, v, 0, cap))
        return v;
    lo = s->min;
    hi = v;
    if (!size_ok(t, lo, 0, cap))
        return lo;
    while (hi - lo > 1) { /* bytes(lo) <= cap < bytes(hi) */
        double mid = floor(lo + (hi - lo) / 2);
        if (size_ok(t, mid, 0, cap))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The size-param values to measure t at, increasing and distinct. */
static int sizes_of(const hs_ktype *t, const plan *pl, double *vals, int *n, hs_error *err)
{
    hs_kconf c;
    hs_error e = {0};
    *n = 0;
    if (pl->explicit_) {
        for (int i = 0; i < pl->nvalues; i++) {
            if (conf_at(t, pl->values[i], &c, &e) != 0)
                return hs_error_set(err, HS_EINPUT, "sizes: %s", e.msg);
            vals[(*n)++] = pl->values[i];
        }
        /* increasing, so that the time cap and the log read in order */
        for (int i = 1; i < *n; i++)
            for (int j = i; j > 0 && vals[j - 1] > vals[j]; j--) {
                double x = vals[j];
                vals[j] = vals[j - 1];
                vals[j - 1] = x;
            }
        return HS_OK;
    }
    for (int k = 0; k <= (pl->full ? 12 : 4); k++) {
        /* decades 1e4 .. 1e8 (quick), half decades 1e4 .. 1e10 (full) */
        double target = pow(10.0, 4.0 + (pl->full ? 0.5 * k : k));
        double v = size_for(t, target, pl->byte_cap);
        if (*n == 0 || v > vals[*n - 1])
            vals[(*n)++] = v;
    }
    return HS_OK;
}

int hs__calib_plan_sizes(const hs_ktype *t, const char *sizes, double *values, int *n,
                         hs_error *err)
{
    plan pl;
    int rc;
    *n = 0;
    if ((rc = parse_sizes(sizes, &pl, err)) != 0)
        return rc;
    return sizes_of(t, &pl, values, n, err);
}

/* ------------------------------------------------------ what to measure */

static void free_sets(kset *sets, int n)
{
    for (int i = 0; i < n; i++)
        free(sets[i].confs);
}

static int same_params(const hs_kconf *a, const hs_kconf *b)
{
    for (int j = 0; j < HS_KMAX_PARAMS; j++)
        if (a->p[j] != b->p[j])
            return 0;
    return 1;
}

/* Adds c to the set of its type in sets[0..*nsets), unless the set holds
 * the same params already. */
static int add_conf(kset *sets, int *nsets, const hs_kconf *c, hs_error *err)
{
    kset *ks = NULL;
    for (int i = 0; i < *nsets && !ks; i++)
        if (sets[i].t == c->type)
            ks = &sets[i];
    if (!ks) {
        if (*nsets == MAX_TYPES)
            return hs_error_set(err, HS_EINPUT, "more than %d kernel types", MAX_TYPES);
        ks = &sets[(*nsets)++];
        *ks = (kset){.t = c->type};
    }
    for (int i = 0; i < ks->n; i++)
        if (same_params(&ks->confs[i], c))
            return HS_OK;
    if (ks->n == ks->cap) {
        int cap = ks->cap ? 2 * ks->cap : 8;
        hs_kconf *p = realloc(ks->confs, (size_t)cap * sizeof *p);
        if (!p)
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        ks->confs = p;
        ks->cap = cap;
    }
    ks->confs[ks->n++] = *c;
    return HS_OK;
}

static int by_flops(const void *a, const void *b)
{
    double x = ((const hs_kconf *)a)->flops, y = ((const hs_kconf *)b)->flops;
    return (x > y) - (x < y);
}

/* The sweep: each of types[0..ntypes) at the plan's sizes. */
static int sweep_sets(const hs_ktype *const *types, int ntypes, const plan *pl, kset *sets,
                      int *nsets, hs_error *err)
{
    for (int t = 0; t < ntypes; t++) {
        double vals[MAX_SIZES];
        int n, rc;
        if ((rc = sizes_of(types[t], pl, vals, &n, err)) != 0)
            return rc;
        for (int i = 0; i < n; i++) {
            hs_kconf c;
            if ((rc = conf_at(types[t], vals[i], &c, err)) != 0 ||
                (rc = add_conf(sets, nsets, &c, err)) != 0)
                return rc;
        }
    }
    return HS_OK;
}

/* The typed kernels of w, each distinct type and params once, types in
 * the order they first appear, each type's kernels by increasing flops. */
static int workload_sets(const hs_workload *w, kset *sets, int *nsets, hs_error *err)
{
    for (int a = 0; a < w->napps; a++)
        for (int k = 0; k < w->apps[a].nkernels; k++) {
            const hs_kernel *kn = &w->apps[a].kernels[k];
            hs_error e = {0};
            hs_kconf c;
            int rc;
            if (!kn->type)
                continue;
            if (hs_kconf_init(&c, kn->type, kn->params, kn->nparams, &e) != 0)
                return hs_error_set(err, HS_EINPUT, "kernel '%s' of application '%s': %s",
                                    kn->name, w->apps[a].name, e.msg);
            if ((rc = add_conf(sets, nsets, &c, err)) != 0)
                return rc;
        }
    if (*nsets == 0)
        return hs_error_set(err, HS_EINPUT, "%s has no typed kernel to measure",
                            w->path ? w->path : "the workload");
    for (int i = 0; i < *nsets; i++)
        qsort(sets[i].confs, (size_t)sets[i].n, sizeof *sets[i].confs, by_flops);
    return HS_OK;
}

/* ------------------------------------------------------------ measuring */

static int has_rw(const hs_kconf *c)
{
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].mode == HS_KRW)
            return 1;
    return 0;
}

/* Times reps CPU runs of items [b, e) of c with `threads` threads after a
 * warm-up; inputs updated in place are refilled before each, untimed. */
static int time_cpu(const hs_kconf *c, void *const *bufs, size_t b, size_t e, int threads,
                    int reps, double *us, hs_error *err)
{
    int rw = has_rw(c), rc;
    if ((rc = hs_krun_cpu(c, bufs, b, e, threads, err)) != 0)
        return rc;
    for (int r = 0; r < reps; r++) {
        struct timespec t0;
        if (rw)
            hs_kfill(c, bufs);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if ((rc = hs_krun_cpu(c, bufs, b, e, threads, err)) != 0)
            return rc;
        us[r] = hs__since_us(&t0);
    }
    return HS_OK;
}

/* Times reps runs of items [b, e) of c on the GPU of the layer's memory m
 * after a warm-up (module loading, cuBLAS workspaces, the first touch), as
 * a run launches a kernel there: hbufs, its host buffers, are copied to the
 * device first; inputs updated in place again before each run, untimed.
 * A run's time is its kernel's, between the events around it. */
static int time_gpu(hs__gpu_layer *L, int m, const hs_kconf *c, void *const *hbufs, size_t b,
                    size_t e, int reps, double *us, hs_error *err)
{
    const hs__mem_ops *ops = L->ops;
    void *d[HS_KMAX_BUFS] = {0}, *ev[HS_KMAX_BUFS], *k, *done;
    double start, end;
    int rc = hs__gpu_layer_clock(L, err), nev = 0;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if ((rc = ops->alloc(L->ctx, m, c->bufs[i].bytes, &d[i], err)) == HS_OK &&
            (rc = ops->copy(L->ctx, m, d[i], HS_HOST_MEMORY, hbufs[i], c->bufs[i].bytes, NULL,
                            NULL, &done, err)) == HS_OK && done)
            ev[nev++] = done;
    for (int r = -1; r < reps && rc == HS_OK; r++) { /* r == -1: the warm-up */
        for (int i = 0; i < c->nbufs && rc == HS_OK && r >= 0; i++)
            if (c->bufs[i].mode == HS_KRW &&
                (rc = ops->copy(L->ctx, m, d[i], HS_HOST_MEMORY, hbufs[i], c->bufs[i].bytes,
                                NULL, NULL, &done, err)) == HS_OK && done)
                ev[nev++] = done;
        if (rc == HS_OK && (rc = ops->launch(L->ctx, m, c, d, b, e, ev, nev, &k, err)) == HS_OK &&
            (rc = ops->finish(L->ctx, k, &start, &end, &done, err)) == HS_OK && r >= 0)
            us[r] = end - start;
        nev = 0; /* the kernel waited for them */
    }
    if (rc != HS_OK)
        ops->flush(L->ctx, NULL);
    for (int i = 0; i < c->nbufs; i++)
        ops->free(L->ctx, m, d[i]);
    return rc;
}

/* Times reps samples of `loop` back-to-back copies of `bytes` from the
 * layer's memory `from` to `to` into us[0..reps), per copy (from the first
 * one's start to the last one's end, over loop), after a warm-up; they are
 * the copies a run makes between those memories.  *direct as ops->direct. */
static int time_copies(hs__gpu_layer *L, int from, int to, size_t bytes, int loop, int reps,
                       double *us, int *direct, hs_error *err)
{
    const hs__mem_ops *ops = L->ops;
    void *src = NULL, *dst = NULL, *ones = NULL, *done;
    hs_run_copy rec[4];
    int rc = HS_OK;
    if (loop < 1 || loop > 4)
        return hs_error_set(err, HS_EINTERNAL, "calibrate: %d copies a sample", loop);
    *direct = ops->direct ? ops->direct(L->ctx, from, to) : 1;
    if ((rc = ops->alloc(L->ctx, from, bytes, &src, err)) != HS_OK ||
        (rc = ops->alloc(L->ctx, to, bytes, &dst, err)) != HS_OK ||
        (rc = ops->alloc(L->ctx, HS_HOST_MEMORY, bytes, &ones, err)) != HS_OK)
        goto out;
    memset(ones, 1, bytes);
    if ((rc = ops->copy(L->ctx, from, src, HS_HOST_MEMORY, ones, bytes, NULL, NULL, &done,
                        err)) != HS_OK ||
        (rc = ops->sync(L->ctx, done, err)) != HS_OK ||
        (rc = hs__gpu_layer_clock(L, err)) != HS_OK)
        goto out;
    for (int r = -1; r < reps && rc == HS_OK; r++) { /* r == -1: the warm-up */
        for (int k = 0; k < loop && rc == HS_OK; k++)
            rc = ops->copy(L->ctx, to, dst, from, src, bytes, NULL, &rec[k], &done, err);
        if (rc == HS_OK && (rc = ops->flush(L->ctx, err)) == HS_OK && r >= 0)
            us[r] = (rec[loop - 1].end_us - rec[0].start_us) / loop;
    }
out:
    ops->flush(L->ctx, NULL);
    ops->free(L->ctx, from, src);
    ops->free(L->ctx, to, dst);
    ops->free(L->ctx, HS_HOST_MEMORY, ones);
    return rc;
}

static void free_bufs(void **bufs, int n)
{
    for (int i = 0; i < n; i++) {
        free(bufs[i]);
        bufs[i] = NULL;
    }
}

/* Host buffers of c, 64-byte aligned and zeroed, inputs filled. */
static int alloc_bufs(const hs_kconf *c, void **bufs, hs_error *err)
{
    for (int i = 0; i < c->nbufs; i++) {
        size_t bytes = (c->bufs[i].bytes + 63) / 64 * 64;
        if (!(bufs[i] = aligned_alloc(64, bytes ? bytes : 64))) {
            free_bufs(bufs, i);
            return hs_error_set(err, HS_ENOMEM, "%s: cannot allocate %zu bytes of buffer '%s'",
                                c->type->name, c->bufs[i].bytes, c->bufs[i].name);
        }
        memset(bufs[i], 0, bytes ? bytes : 64);
    }
    hs_kfill(c, bufs);
    return HS_OK;
}

/* Records one batch (after the hook) into the row and checks it against
 * the time cap: past it, dev stops for this type and the row says why. */
static int record(const hs_calib_options *o, const plan *pl, hs_calib_result *r,
                  hs_calib_row *row, cdev *dev, const hs_kconf *c, double *us, int reps,
                  hs_error *err)
{
    hs_perf_kernel pk;
    hs_perf_history h;
    size_t kept;
    int rc;
    hs_perfmodel_conf_of(c, &pk);
    if (o->sample_hook)
        o->sample_hook(o->hook_ctx, pk.type, pk.params, pk.size, dev->name, us, reps);
    if ((rc = hs_perfmodel_record_batch(r->model, pk.type, pk.params, pk.size, dev->name, us,
                                        (size_t)reps, &kept, err)) != 0)
        return rc;
    if (row->nsizes == 0 || pk.size < row->dmin)
        row->dmin = pk.size;
    hs_perfmodel_history(r->model, pk.type, pk.params, pk.size, dev->name, &h);
    if (row->nsizes == 0 || pk.size >= row->dmax) {
        row->dmax = pk.size;
        row->dmax_us = h.median_us;
    }
    row->nsizes++;
    row->samples += (long)kept;
    row->rejected += reps - (long)kept;
    if (pl->time_cap_us > 0 && h.median_us > pl->time_cap_us) {
        dev->stopped = 1;
        snprintf(row->note, sizeof row->note, "larger sizes skipped: a run took %.3g s",
                 h.median_us / 1e6);
    }
    return HS_OK;
}

/* A workload's splittable kernel c, measured whole on the devices, is
 * measured again in the part that ad-part gives each device (Zhou & Liu
 * Sec. 4.3: fraction f_d of the items in proportion to its speed, 1 / C_d,
 * C_d the median just measured; at least one item, never all): items
 * [0, k_d) on device d, recorded as a part (HS_PERF_PART) of size
 * k_d / items x D, as a part records in a run (`run --update-model`).  A part
 * does not cost its share of the whole: a slab of a gemm, a few planes of
 * fblock, take more, and the model then knows by how much. */
static int measure_parts(const hs_calib_options *o, hs_calib_result *r, hs__gpu_layer *L,
                         const hs_kconf *c, void *const *bufs, const cdev *devs, int ndev,
                         hs_calib_row *rows, int reps, double *us, hs_error *err)
{
    double speed[MAX_DEVICES], sum = 0.0;
    hs_perf_kernel pk;
    int measured = 0, rc = HS_OK;
    if (!c->splittable || c->items < 2)
        return HS_OK;
    hs_perfmodel_conf_of(c, &pk);
    for (int d = 0; d < ndev; d++) {
        hs_perf_history h;
        speed[d] = hs_perfmodel_history(r->model, pk.type, pk.params, pk.size, devs[d].name,
                                        &h) && h.median_us > 0 ? 1.0 / h.median_us : 0.0;
        sum += speed[d];
        measured += speed[d] > 0;
    }
    for (int d = 0; d < ndev && rc == HS_OK && measured >= 2; d++) {
        size_t k = (size_t)llround(speed[d] / sum * (double)c->items);
        double size;
        hs_error de = {0};
        if (!(speed[d] > 0))
            continue;
        k = k < 1 ? 1 : k > c->items - 1 ? c->items - 1 : k;
        size = (double)k / (double)c->items * pk.size;
        if (has_rw(c))
            hs_kfill(c, bufs);
        rc = devs[d].mem >= 0 ? time_gpu(L, devs[d].mem, c, bufs, 0, k, reps, us, &de)
                              : time_cpu(c, bufs, 0, k, r->threads, reps, us, &de);
        if (rc == HS_EIO || rc == HS_ECHECK || rc == HS_ESOLVER) {
            r->nwarnings++;
            snprintf(rows[d].note, sizeof rows[d].note, "part failed: %.80s", de.msg);
            rc = HS_OK;
            continue;
        }
        if (rc != HS_OK) {
            if (err)
                *err = de;
            break;
        }
        if (o->sample_hook)
            o->sample_hook(o->hook_ctx, pk.type, HS_PERF_PART, size, devs[d].name, us, reps);
        rc = hs_perfmodel_record_batch(r->model, pk.type, HS_PERF_PART, size, devs[d].name, us,
                                       (size_t)reps, NULL, err);
        rows[d].parts++;
    }
    return rc;
}

/* Measures the kernels of ks on every device; a sweep skips the larger
 * sizes of a device once one is too slow (past the time cap) or too big
 * for it. */
static int measure_set(const hs_calib_options *o, const plan *pl, hs_calib_result *r,
                       hs__gpu_layer *L, const kset *ks, cdev *devs, int ndev,
                       hs_calib_row *rows, int reps, hs_error *err)
{
    double *us = malloc((size_t)reps * sizeof *us);
    int rc = HS_OK, sweep = pl->sweep;
    if (!us)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (int d = 0; d < ndev; d++)
        devs[d].stopped = 0;
    for (int i = 0; i < ks->n && rc == HS_OK; i++) {
        const hs_kconf *c = &ks->confs[i];
        void *bufs[HS_KMAX_BUFS] = {0};
        int any = 0;
        for (int d = 0; d < ndev; d++)
            any |= !devs[d].stopped;
        if (!any)
            break;
        if ((rc = alloc_bufs(c, bufs, err)) != 0)
            break;
        for (int d = 0; d < ndev && rc == HS_OK; d++) {
            hs_calib_row *row = &rows[d];
            hs_error de = {0};
            if (devs[d].stopped)
                continue;
            if (d > 0 && has_rw(c))
                hs_kfill(c, bufs); /* the previous device updated them */
            if (devs[d].mem < 0) {
                rc = time_cpu(c, bufs, 0, c->items, r->threads, reps, us, &de);
            } else {
                size_t free_b = L->ops->capacity(L->ctx, devs[d].mem);
                if (free_b > 0 && all_bytes(c) > 0.9 * (double)free_b) {
                    devs[d].stopped = sweep;
                    snprintf(row->note, sizeof row->note, "%s: %.0f MiB of buffers, %.0f "
                             "MiB free", sweep ? "larger sizes skipped" : "a kernel skipped",
                             all_bytes(c) / MIB, (double)free_b / MIB);
                    continue;
                }
                rc = time_gpu(L, devs[d].mem, c, bufs, 0, c->items, reps, us, &de);
            }
            if (rc == HS_EIO || rc == HS_ECHECK || rc == HS_ESOLVER) {
                /* a failing kernel or CUDA call costs this (type, device)
                 * its other sizes, not the whole calibration */
                devs[d].stopped = 1;
                r->nwarnings++;
                snprintf(row->note, sizeof row->note, "failed: %.80s", de.msg);
                if (o->log)
                    fprintf(o->log, "calibrate: warning: %s on %s: %s\n", ks->t->name,
                            devs[d].name, de.msg);
                rc = HS_OK;
                continue;
            }
            if (rc != HS_OK && err)
                *err = de;
            if (rc == HS_OK)
                rc = record(o, pl, r, row, &devs[d], c, us, reps, err);
        }
        if (rc == HS_OK && !sweep)
            rc = measure_parts(o, r, L, c, bufs, devs, ndev, rows, reps, us, err);
        free_bufs(bufs, c->nbufs);
    }
    free(us);
    return rc;
}

/* Measures the link from memory `from` to `to` (the platform's) through
 * the layer's memories lfrom and lto, into r->links and the platform. */
static int measure_link(hs_calib_result *r, hs__gpu_layer *L, int lfrom, int lto, int from, int to,
                        int reps, hs_error *err)
{
    const hs_platform *p = &r->platform->platform;
    int nlat = 4 * reps, direct = 1, rc;
    double *us = malloc((size_t)nlat * sizeof *us), t_big, lat;
    hs_calib_link *l = &r->links[r->nlinks];
    if (!us)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    /* latency: one 1-byte copy per sample; bandwidth: a loop of 4 large
     * copies per sample, less the latency of each */
    rc = time_copies(L, lfrom, lto, 1, 1, nlat, us, &direct, err);
    lat = hs_perfmodel_robust_mean(us, (size_t)nlat, NULL);
    if (rc == HS_OK)
        rc = time_copies(L, lfrom, lto, COPY_BYTES, 4, reps, us, &direct, err);
    t_big = hs_perfmodel_robust_mean(us, (size_t)reps, NULL);
    free(us);
    if (rc != HS_OK)
        return rc;
    *l = (hs_calib_link){.from = from, .to = to, .latency_us = lat, .direct = direct,
                         .bytes = COPY_BYTES};
    /* MB/s and ns: finer digits are noise, and the platform file reads better */
    l->bandwidth_gbps = COPY_BYTES / (fmax(t_big - lat, 0.5 * t_big) * 1000.0);
    l->bandwidth_gbps = round(l->bandwidth_gbps * 1e3) / 1e3;
    l->latency_us = round(lat * 1e3) / 1e3;
    if (!(l->bandwidth_gbps > 0) || !isfinite(l->latency_us))
        return hs_error_set(err, HS_EIO, "calibrate: %s -> %s: copies measured no time",
                            p->memories[from], p->memories[to]);
    r->nlinks++;
    rc = hs_platform_add_link(r->platform, p->memories[from], p->memories[to],
                              l->bandwidth_gbps, l->latency_us, err);
    return rc < 0 ? rc : HS_OK;
}

/* ------------------------------------------------------------------ API */

void hs_calib_result_free(hs_calib_result *r)
{
    if (!r)
        return;
    hs_perfmodel_free(r->model);
    hs_workload_free(r->platform);
    free(r->rows);
    free(r->links);
    memset(r, 0, sizeof *r);
}

/* Threads of the workload's first cpu device that gives its cores, or 0. */
static int workload_threads(const hs_workload *w)
{
    for (int d = 0; w && d < w->platform.ndevices; d++)
        if (w->platform.devices[d].kind == HS_DEVICE_CPU && w->platform.devices[d].cores > 0)
            return w->platform.devices[d].cores;
    return 0;
}

int hs_calibrate(const hs_calib_options *o, hs_calib_result *r, hs_error *err)
{
    const hs_ktype *types[MAX_TYPES];
    char want_gpu[64] = {0}, name[16];
    cdev devs[MAX_DEVICES];
    kset sets[MAX_TYPES];
    plan pl = {0};
    hs__gpu_layer L = {0};
    int ntypes = 0, nsets = 0, want_cpu, ndev = 0, reps, rc, ngpus, top = -1;
    hs_error fe = {0};

    memset(r, 0, sizeof *r);
    if (o->reps != 0 && (o->reps < 3 || o->reps > MAX_REPS))
        return hs_error_set(err, HS_EINPUT, "reps: needs 3 .. %d runs per measurement (the "
                            "outlier rule needs a median), not %d", MAX_REPS, o->reps);
    if (o->threads < 0 || o->threads > MAX_THREADS)
        return hs_error_set(err, HS_EINPUT, "threads: needs 1 .. %d, not %d", MAX_THREADS,
                            o->threads);
    if (o->workload && (o->types || o->sizes))
        return hs_error_set(err, HS_EINPUT, "%s: a workload's kernels are measured at their "
                            "own types and sizes", o->types ? "types" : "sizes");
    if (!o->workload && ((rc = parse_types(o->types, types, &ntypes, err)) != 0 ||
                         (rc = parse_sizes(o->sizes, &pl, err)) != 0))
        return rc;
    /* every kernel configures (explicit sizes suit every type) before
     * anything is measured */
    rc = o->workload ? workload_sets(o->workload, sets, &nsets, err)
                     : sweep_sets(types, ntypes, &pl, sets, &nsets, err);
    if (rc != HS_OK)
        goto fail;
    reps = o->reps ? o->reps : pl.full ? 10 : 5;
    ngpus = hs__cuda_gpu_count(r->gpu_note, sizeof r->gpu_note);
    if (ngpus > 64)
        ngpus = 64;
    r->ngpus = ngpus;
    if ((rc = parse_devices(o->devices, ngpus, r->gpu_note, &want_cpu, want_gpu, err)) != 0)
        goto fail;
    r->threads = o->threads ? o->threads : workload_threads(o->workload);
    if (r->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        r->threads = n > 0 ? (n > MAX_THREADS ? MAX_THREADS : (int)n) : 1;
    }

    /* the platform: cpu0 on host, gpuK on its own memory */
    if (!(r->model = hs_perfmodel_new()) || !(r->platform = hs_workload_new())) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    if (want_cpu) {
        if ((rc = hs_platform_add_device(r->platform, "cpu0", HS_DEVICE_CPU, "host",
                                         r->threads, err)) < 0)
            goto fail;
        devs[ndev++] = (cdev){.name = "cpu0", .mem = -1};
    }
    for (int g = 0; g < ngpus; g++)
        if (want_gpu[g])
            top = g;
    if (top >= 0 && (rc = hs__gpu_layer_open(&L, top + 1, err)) != 0)
        goto fail;
    for (int g = 0; g <= top; g++) {
        if (!want_gpu[g])
            continue;
        snprintf(name, sizeof name, "gpu%d", g);
        if ((rc = hs_platform_add_device(r->platform, name, HS_DEVICE_GPU, name, 0, err)) < 0)
            goto fail;
        devs[ndev] = (cdev){.mem = hs__gpu_layer_mem(&L, g)};
        memcpy(devs[ndev].name, name, sizeof name);
        if (g < 8)
            hs__cuda_gpu_describe(g, r->gpu_names[g], sizeof r->gpu_names[g]);
        ndev++;
    }
    if (ndev == 0) {
        rc = hs_error_set(err, HS_EINPUT, "devices: nothing to measure");
        goto fail;
    }

    /* links: host <-> each GPU, then every ordered GPU pair */
    r->links = calloc((size_t)(ndev * ndev + 1), sizeof *r->links);
    r->rows = calloc((size_t)(nsets * ndev), sizeof *r->rows);
    if (!r->links || !r->rows) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto fail;
    }
    for (int d = 0; d < ndev; d++) {
        int m;
        if (devs[d].mem < 0)
            continue;
        m = hs_platform_find_memory(&r->platform->platform, devs[d].name);
        if ((rc = measure_link(r, &L, HS_HOST_MEMORY, devs[d].mem, HS_HOST_MEMORY, m, reps,
                               err)) != 0 ||
            (rc = measure_link(r, &L, devs[d].mem, HS_HOST_MEMORY, m, HS_HOST_MEMORY, reps,
                               err)) != 0)
            goto fail;
    }
    for (int a = 0; a < ndev; a++)
        for (int b = 0; b < ndev; b++) {
            int ma, mb;
            if (a == b || devs[a].mem < 0 || devs[b].mem < 0)
                continue;
            ma = hs_platform_find_memory(&r->platform->platform, devs[a].name);
            mb = hs_platform_find_memory(&r->platform->platform, devs[b].name);
            if ((rc = measure_link(r, &L, devs[a].mem, devs[b].mem, ma, mb, reps, err)) != 0)
                goto fail;
        }
    for (int i = 0; i < r->nlinks && o->log; i++) {
        const hs_calib_link *l = &r->links[i];
        const hs_platform *p = &r->platform->platform;
        fprintf(o->log, "calibrate: %s -> %s: %.2f GB/s, latency %.2f us%s\n",
                p->memories[l->from], p->memories[l->to], l->bandwidth_gbps, l->latency_us,
                l->from != HS_HOST_MEMORY && l->to != HS_HOST_MEMORY && !l->direct
                    ? " (no peer access: staged through the host)" : "");
    }

    /* kernels */
    for (int t = 0; t < nsets; t++) {
        hs_calib_row *rows = &r->rows[t * ndev];
        for (int d = 0; d < ndev; d++) {
            rows[d].type = sets[t].t->name;
            memcpy(rows[d].device, devs[d].name, sizeof rows[d].device);
        }
        r->nrows += ndev;
        if ((rc = measure_set(o, &pl, r, &L, &sets[t], devs, ndev, rows, reps, err)) != 0)
            goto fail;
        for (int d = 0; d < ndev; d++) {
            char parts[32] = "";
            if (rows[d].parts)
                snprintf(parts, sizeof parts, " and %d part%s", rows[d].parts,
                         rows[d].parts == 1 ? "" : "s");
            if (o->log)
                fprintf(o->log, "calibrate: %s on %s: %d %s (D %.3g .. %.3g flops)%s, %ld "
                        "samples, %ld rejected%s%s\n", rows[d].type, rows[d].device,
                        rows[d].nsizes,
                        !o->workload ? "sizes" : rows[d].nsizes == 1 ? "kernel" : "kernels",
                        rows[d].dmin, rows[d].dmax, parts, rows[d].samples, rows[d].rejected,
                        rows[d].note[0] ? "; " : "", rows[d].note);
        }
    }
    /* a fit that fails leaves its history, still a model at measured sizes */
    if (hs_perfmodel_fit(r->model, &fe) != HS_OK) {
        r->nwarnings++;
        if (o->log)
            fprintf(o->log, "calibrate: warning: %s\n", fe.msg);
    }
    for (int i = 0; i < r->nrows; i++)
        r->rows[i].fitted = hs_perfmodel_get_fit(r->model, r->rows[i].type, r->rows[i].device,
                                                 &r->rows[i].fit);
    rc = HS_OK;
fail:
    hs__gpu_layer_close(&L);
    free_sets(sets, nsets);
    return rc;
}

int hs_calib_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                     hs_error *err)
{
    double size;
    (void)ctx;
    (void)d;
    *us = 0;
    return k ? hs_perfmodel_kernel_size(k, &size, err) : 1; /* no device overhead */
}

int hs_calib_write_platform(const hs_calib_result *r, const char *path, hs_error *err)
{
    const hs_platform *p = &r->platform->platform;
    char when[64] = "";
    time_t now = time(NULL);
    struct tm tm;
    hs_output o;
    FILE *f;
    int rc;
    if ((rc = hs_output_open(&o, path, err)) != HS_OK)
        return rc;
    f = o.f;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(f, "# The platform of this machine, measured by `hetsched calibrate` (%s).\n"
               "# cpu0: the host with %d thread%s", when, r->threads, r->threads > 1 ? "s" : "");
    for (int d = 0; d < p->ndevices; d++)
        if (p->devices[d].kind == HS_DEVICE_GPU) {
            int k = atoi(p->devices[d].name + 3);
            fprintf(f, "; %s: %s", p->devices[d].name,
                    k < 8 && r->gpu_names[k][0] ? r->gpu_names[k] : "CUDA GPU");
        }
    fprintf(f, ".\n");
    if (r->nlinks)
        fprintf(f, "# Links: bandwidth of %u MiB copies (pinned host memory), latency of "
                   "1-byte copies.\n", (unsigned)(COPY_BYTES >> 20));
    fprintf(f, "# Complete it with `applications:` (DESIGN.md section 3).\n");
    rc = hs_platform_write_yaml(p, f, err) == HS_OK ? HS_OK : hs_output_error(&o, err);
    return hs_output_close(&o, rc, err);
}
