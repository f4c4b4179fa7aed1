/* hetsched — the registry of kernel types and what every type shares:
 * params, ranges, CPU threads, checks (workloads/kernels/kernel.h). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/kernels/kernel_int.h"

extern const hs_ktype hs_ktype_va, hs_ktype_increment, hs_ktype_scale, hs_ktype_matadd,
    hs_ktype_axpy, hs_ktype_gemm, hs_ktype_gemv, hs_ktype_dot, hs_ktype_potrf, hs_ktype_trsm,
    hs_ktype_syrk, hs_ktype_pi, hs_ktype_fblock;

const hs_ktype *const hs_ktypes[] = {
    &hs_ktype_va,    &hs_ktype_increment, &hs_ktype_scale, &hs_ktype_matadd, &hs_ktype_gemm,
    &hs_ktype_gemv,  &hs_ktype_dot,       &hs_ktype_axpy,  &hs_ktype_potrf,  &hs_ktype_trsm,
    &hs_ktype_syrk,  &hs_ktype_pi,        &hs_ktype_fblock, NULL,
};

const hs_ktype *hs_ktype_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; hs_ktypes[i]; i++)
        if (strcmp(hs_ktypes[i]->name, name) == 0)
            return hs_ktypes[i];
    return NULL;
}

/* Writes "NAME (default ...)" style text for one param. */
static void help_param(FILE *out, const hs_kparam_spec *s)
{
    char def[64];
    if (s->required)
        snprintf(def, sizeof def, "required");
    else if (s->def_param)
        snprintf(def, sizeof def, "default: %s", s->def_param);
    else
        snprintf(def, sizeof def, "default %.15g", s->def);
    fprintf(out, "      %-7s %s (%s; %.15g..%.15g)\n", s->name, s->help, def, s->min, s->max);
}

void hs_ktype_help(FILE *out)
{
    for (int i = 0; hs_ktypes[i]; i++) {
        const hs_ktype *t = hs_ktypes[i];
        fprintf(out, "  %-10s %s\n", t->name, t->description);
        for (const hs_kparam_spec *s = t->params; s->name; s++)
            help_param(out, s);
        fprintf(out, "      items:  %s\n      check:  %s\n      cuda:   %s\n", t->item_unit,
                t->tolerance_doc, t->run_cuda ? "yes" : "not built in");
    }
}

/* ------------------------------------------------------------------ params */

static int find_spec(const hs_ktype *t, const char *name)
{
    for (int j = 0; t->params[j].name; j++)
        if (strcmp(t->params[j].name, name) == 0)
            return j;
    return -1;
}

/* "n, m, k" for messages. */
static void spec_names(const hs_ktype *t, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int j = 0; t->params[j].name && len < size; j++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", j ? ", " : "",
                                t->params[j].name);
}

static int unknown_type(const char *type, hs_error *err)
{
    char known[256];
    size_t len = 0;
    known[0] = '\0';
    for (int i = 0; hs_ktypes[i] && len < sizeof known; i++)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "",
                                hs_ktypes[i]->name);
    return hs_error_set(err, HS_EINPUT, "unknown kernel type '%s' (known: %s)",
                        type ? type : "(none)", known);
}

/* Checks one given value against its spec. */
static int check_value(const hs_ktype *t, const hs_kparam_spec *s, double v, hs_error *err)
{
    if (!isfinite(v))
        return hs_error_set(err, HS_EINPUT, "%s: param '%s' must be a finite number", t->name,
                            s->name);
    if (s->integer && v != floor(v))
        return hs_error_set(err, HS_EINPUT, "%s: param '%s' = %g must be a whole number",
                            t->name, s->name, v);
    if (v < s->min || v > s->max)
        return hs_error_set(err, HS_EINPUT, "%s: param '%s' = %g is out of range [%g, %g]",
                            t->name, s->name, v, s->min, s->max);
    return 0;
}

int hs_kconf_init(hs_kconf *c, const char *type, const hs_param *params, int nparams,
                  hs_error *err)
{
    const hs_ktype *t = hs_ktype_find(type);
    int given[HS_KMAX_PARAMS] = {0};
    hs_kconf k;
    int rc;
    if (!t)
        return unknown_type(type, err);
    if (nparams < 0 || (nparams > 0 && !params))
        return hs_error_set(err, HS_EINPUT, "%s: bad param list", t->name);
    memset(&k, 0, sizeof k);
    k.type = t;
    k.seed = 1;
    for (int i = 0; i < nparams; i++) {
        int j = params[i].name ? find_spec(t, params[i].name) : -1;
        if (j < 0) {
            char known[128];
            spec_names(t, known, sizeof known);
            return hs_error_set(err, HS_EINPUT, "%s: unknown param '%s' (known: %s)", t->name,
                                params[i].name ? params[i].name : "(none)", known);
        }
        if (given[j])
            return hs_error_set(err, HS_EINPUT, "%s: param '%s' given twice", t->name,
                                params[i].name);
        if ((rc = check_value(t, &t->params[j], params[i].value, err)) != 0)
            return rc;
        given[j] = 1;
        k.p[j] = params[i].value;
    }
    for (int j = 0; t->params[j].name; j++) {
        const hs_kparam_spec *s = &t->params[j];
        if (given[j])
            continue;
        if (s->required)
            return hs_error_set(err, HS_EINPUT, "%s: param '%s' (%s) is required", t->name,
                                s->name, s->help);
        k.p[j] = s->def;
        if (s->def_param) {
            int from = find_spec(t, s->def_param);
            k.p[j] = k.p[from];
            /* the inherited value must fit this param's range too */
            if ((rc = check_value(t, s, k.p[j], err)) != 0)
                return rc;
        }
    }
    if ((rc = t->setup(&k, err)) != 0)
        return rc;
    *c = k;
    return 0;
}

double hs_kconf_param(const hs_kconf *c, const char *name)
{
    int j = find_spec(c->type, name);
    return j < 0 ? NAN : c->p[j];
}

size_t hs_kconf_bytes(const hs_kconf *c, int modes)
{
    size_t sum = 0;
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].mode & modes)
            sum += c->bufs[i].bytes;
    return sum;
}

void hs_kfill(const hs_kconf *c, void *const *bufs)
{
    c->type->fill(c, bufs);
}

/* ------------------------------------------------------------------ running */

int hs__krange(const hs_kconf *c, size_t begin, size_t end, hs_error *err)
{
    if (begin > end || end > c->items)
        return hs_error_set(err, HS_EINPUT, "%s: item range [%zu, %zu) is not within [0, %zu)",
                            c->type->name, begin, end, c->items);
    if (!c->splittable && (begin != 0 || end != c->items))
        return hs_error_set(err, HS_EINPUT,
                            "%s: is not splittable; run its whole range [0, %zu)",
                            c->type->name, c->items);
    return 0;
}

typedef struct part {
    const hs_kconf *c;
    void *const *bufs;
    size_t begin, end;
    pthread_t tid;
    int started;
    int rc;
    hs_error err;
} part;

static void *run_part(void *arg)
{
    part *p = arg;
    p->rc = p->c->type->run_cpu(p->c, p->bufs, p->begin, p->end, &p->err);
    return NULL;
}

#define HS_KMAX_THREADS 256

/* Splits [begin, end) into up to nthreads contiguous parts of at least
 * `grain` items, runs the first on the calling thread and the others on
 * their own threads.  A part that cannot get a thread runs on the caller,
 * so the result never depends on how many threads could be started. */
int hs_krun_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end, int nthreads,
                hs_error *err)
{
    const hs_ktype *t = c->type;
    size_t n = end - begin, grain = t->grain ? t->grain : 1;
    part *parts;
    int np, rc;
    if ((rc = hs__krange(c, begin, end, err)) != 0)
        return rc;
    if (nthreads < 0)
        return hs_error_set(err, HS_EINPUT, "%s: thread count %d is negative", t->name,
                            nthreads);
    if (t->blas || !c->splittable || nthreads <= 1 || n < 2 * grain) {
        if (t->blas)
            hs__kblas_threads(nthreads);
        return t->run_cpu(c, bufs, begin, end, err);
    }
    np = nthreads < HS_KMAX_THREADS ? nthreads : HS_KMAX_THREADS;
    if ((size_t)np > n / grain)
        np = (int)(n / grain);
    if (!(parts = calloc((size_t)np, sizeof *parts)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (int i = 0; i < np; i++) {
        parts[i].c = c;
        parts[i].bufs = bufs;
        parts[i].begin = begin + n * (size_t)i / (size_t)np;
        parts[i].end = begin + n * (size_t)(i + 1) / (size_t)np;
        if (i > 0)
            parts[i].started = pthread_create(&parts[i].tid, NULL, run_part, &parts[i]) == 0;
    }
    run_part(&parts[0]);
    rc = 0;
    for (int i = 0; i < np; i++) {
        if (parts[i].started)
            pthread_join(parts[i].tid, NULL);
        else if (i > 0)
            run_part(&parts[i]);
        if (parts[i].rc != 0 && rc == 0) {
            rc = parts[i].rc;
            if (err)
                *err = parts[i].err;
        }
    }
    free(parts);
    return rc;
}

int hs_kcheck(const hs_kconf *c, const void *const *before, const void *const *after,
              hs_kcheck_result *res, hs_error *err)
{
    hs_kcheck_result local;
    return c->type->check(c, before, after, res ? res : &local, err);
}
