/* hetsched — the registry of kernel types and what every type shares:
 * params, ranges, CPU threads, checks (workloads/kernels/kernel.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/kernels/kernel_int.h"

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
                t->tolerance_doc, t->cuda ? "yes" : "not built in");
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

/* Names the param at fault in err->path ("params.n"), beside the message
 * hs_error_set wrote, so that the loader can point at it; returns rc. */
static int param_at_fault(hs_error *err, const char *name, int rc)
{
    if (err && name)
        snprintf(err->path, sizeof err->path, "params.%s", name);
    return rc;
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
            hs_error_set(err, HS_EINPUT, "%s: unknown param '%s' (known: %s)", t->name,
                         params[i].name ? params[i].name : "(none)", known);
            return param_at_fault(err, params[i].name, HS_EINPUT);
        }
        if (given[j]) {
            hs_error_set(err, HS_EINPUT, "%s: param '%s' given twice", t->name, params[i].name);
            return param_at_fault(err, params[i].name, HS_EINPUT);
        }
        if ((rc = check_value(t, &t->params[j], params[i].value, err)) != 0)
            return param_at_fault(err, params[i].name, rc);
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
    int rc;
    hs_error err;
} part;

static void run_part(part *p)
{
    p->rc = p->c->type->run_cpu(p->c, p->bufs, p->begin, p->end, &p->err);
}

#define HS_KMAX_THREADS 256

/* A kernel on n threads is cut into up to CHUNKS_PER_THREAD x n contiguous
 * chunks, which the threads take in turn from a shared counter: a thread
 * that runs slower (its core shared with another thread, or taken a while)
 * then does fewer chunks instead of holding up the kernel, as its one
 * equal part did (on an H100 host, the slowest of 64 Fig. 5 runs went from
 * 1.64 to 1.47 of its prediction: docs/results/2026-11-27-h100-cpu-chunks.txt). */
#define CHUNKS_PER_THREAD 4

/* One call's chunks and the counter its threads take them by. */
typedef struct chunks {
    part *p;
    size_t n;
    atomic_size_t next;
} chunks;

static void take_chunks(chunks *w)
{
    size_t i;
    while ((i = atomic_fetch_add(&w->next, 1)) < w->n)
        run_part(&w->p[i]);
}

/* Teams of helper threads, kept from call to call: starting 13 threads
 * for every call made a vector add of 917504 elements take 0.6 ms on a
 * 16-core H200 host, slower than one thread, and about 2 ms a chunk of a
 * split beside a busy GPU (each new stack is mapped while the other
 * threads run, and the kernel then stops them all); with a team it takes
 * 0.09 ms (bench/split_overhead).
 * A call takes a team from the free list (or makes one), its helpers and
 * the caller take the round's chunks, the caller waits for the helpers
 * and gives the team back: calls at once from several threads
 * (CPU devices, engine workers) use several teams.  Teams and their
 * sleeping helpers last as long as the process. */
typedef struct team team;

typedef struct helper {
    team *t;
    int i;
    pthread_t tid;
} helper;

struct team {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    chunks *work;           /* this round's */
    int np;                 /* threads in this round, the caller's included */
    int left;               /* helpers of this round not done */
    unsigned long round;
    int n;                  /* helpers started */
    team *next_free;
    helper h[HS_KMAX_THREADS - 1];
};

static pthread_mutex_t teams_mu = PTHREAD_MUTEX_INITIALIZER;
static team *free_teams;

static void *helper_main(void *arg)
{
    helper *h = arg;
    team *t = h->t;
    unsigned long seen = 0;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->round == seen)
            pthread_cond_wait(&t->go, &t->mu);
        seen = t->round;
        if (h->i + 1 < t->np) {
            pthread_mutex_unlock(&t->mu);
            take_chunks(t->work);
            pthread_mutex_lock(&t->mu);
            if (--t->left == 0)
                pthread_cond_signal(&t->done);
        }
    }
    return NULL;
}

/* A free team with up to `want` helpers (fewer when no more threads can be
 * started); NULL when none can be made. */
static team *team_take(int want)
{
    team *t;
    pthread_mutex_lock(&teams_mu);
    if ((t = free_teams))
        free_teams = t->next_free;
    pthread_mutex_unlock(&teams_mu);
    if (!t) {
        if (!(t = calloc(1, sizeof *t)))
            return NULL;
        pthread_mutex_init(&t->mu, NULL);
        pthread_cond_init(&t->go, NULL);
        pthread_cond_init(&t->done, NULL);
    }
    while (t->n < want) { /* its helpers are idle: nobody else holds t */
        helper *h = &t->h[t->n];
        h->t = t;
        h->i = t->n;
        if (pthread_create(&h->tid, NULL, helper_main, h) != 0)
            break;
        pthread_detach(h->tid);
        t->n++;
    }
    return t;
}

static void team_give(team *t)
{
    pthread_mutex_lock(&teams_mu);
    t->next_free = free_teams;
    free_teams = t;
    pthread_mutex_unlock(&teams_mu);
}

/* Splits [begin, end) into chunks of at least `grain` items and runs them
 * on the calling thread and up to nthreads - 1 helpers.  Chunks that no
 * helper takes run on the caller, and each item's result never depends on
 * which chunk holds it, so neither does the output on how many threads
 * could be started. */
int hs_krun_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end, int nthreads,
                hs_error *err)
{
    const hs_ktype *t = c->type;
    size_t n = end - begin, grain = t->grain ? t->grain : 1;
    part *parts;
    chunks w;
    size_t nparts;
    team *tm;
    int np, helped, rc;
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
    nparts = (size_t)np * CHUNKS_PER_THREAD < n / grain ? (size_t)np * CHUNKS_PER_THREAD
                                                        : n / grain;
    if (!(parts = calloc(nparts, sizeof *parts)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < nparts; i++)
        parts[i] = (part){.c = c, .bufs = bufs, .begin = begin + n * i / nparts,
                          .end = begin + n * (i + 1) / nparts};
    w.p = parts;
    w.n = nparts;
    atomic_init(&w.next, 0);
    tm = team_take(np - 1);
    helped = tm ? (tm->n + 1 < np ? tm->n + 1 : np) : 1;
    if (helped > 1) {
        pthread_mutex_lock(&tm->mu);
        tm->work = &w;
        tm->np = helped;
        tm->left = helped - 1;
        tm->round++;
        pthread_cond_broadcast(&tm->go);
        pthread_mutex_unlock(&tm->mu);
    }
    take_chunks(&w);
    if (helped > 1) {
        pthread_mutex_lock(&tm->mu);
        while (tm->left > 0)
            pthread_cond_wait(&tm->done, &tm->mu);
        pthread_mutex_unlock(&tm->mu);
    }
    if (tm)
        team_give(tm);
    rc = 0;
    for (size_t i = 0; i < nparts && rc == 0; i++)
        if (parts[i].rc != 0) {
            rc = parts[i].rc;
            if (err)
                *err = parts[i].err;
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
