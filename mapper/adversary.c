/* hetsched — adversarial instances by simulated annealing (hetsched/adversary.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "hetsched/adversary.h"
#include "hetsched/milp.h"
#include "mapper/local_search.h"

#define MAXT HS_ADVERSARY_MAX_TASKS
#define MAXD HS_ADVERSARY_MAX_DEVICES
#define T_START 0.1   /* temperature of the first step */
#define T_END 0.001   /* and of the last */

/* An instance; device d computes from memory d (0: host, d: gpu{d-1}). */
typedef struct inst {
    int n, nd;
    double cost[MAXT][MAXD];      /* us */
    double in[MAXT], out[MAXT];   /* bytes */
    unsigned char edge[MAXT][MAXT]; /* i -> j, i < j */
    double bytes[MAXT][MAXT];
    double gbps[MAXD][MAXD], lat[MAXD][MAXD]; /* memories q < r, both ways */
} inst;

void hs_adversary_options_init(hs_adversary_options *o)
{
    memset(o, 0, sizeof *o);
    o->iterations = 1000;
    o->min_tasks = 3;
    o->max_tasks = 5;
    o->min_devices = 2;
    o->max_devices = 3;
    o->milp_time_limit_s = 10;
}

void hs_adversary_result_free(hs_adversary_result *res)
{
    hs_workload_free(res->worst);
    res->worst = NULL;
}

/* ------------------------------------------------------------ random draws */

static int draw_int(gsl_rng *rng, int lo, int hi)
{
    return lo + (int)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1));
}

/* A whole number log-uniform in [lo, hi]. */
static double draw_log(gsl_rng *rng, double lo, double hi)
{
    return round(exp(log(lo) + gsl_rng_uniform(rng) * (log(hi) - log(lo))));
}

static double draw_cost(gsl_rng *rng)
{
    return draw_log(rng, 1, 1000);
}

/* Bytes in whole kB, none with probability p_none, else 1 kB .. 10 MB. */
static double draw_bytes(gsl_rng *rng, double p_none)
{
    return gsl_rng_uniform(rng) < p_none ? 0 : 1000 * draw_log(rng, 1, 10000);
}

static void draw_link(gsl_rng *rng, inst *x, int q, int r)
{
    x->gbps[q][r] = draw_int(rng, 1, 32);
    x->lat[q][r] = draw_int(rng, 0, 20);
}

static void draw_task(gsl_rng *rng, inst *x, int t)
{
    for (int d = 0; d < MAXD; d++)
        x->cost[t][d] = draw_cost(rng);
    x->in[t] = draw_bytes(rng, 0.5);
    x->out[t] = draw_bytes(rng, 0.5);
    for (int i = 0; i < t; i++)
        if ((x->edge[i][t] = gsl_rng_uniform(rng) < 0.4))
            x->bytes[i][t] = draw_bytes(rng, 0.2);
}

static void draw_instance(gsl_rng *rng, const hs_adversary_options *o, inst *x)
{
    memset(x, 0, sizeof *x);
    x->n = draw_int(rng, o->min_tasks, o->max_tasks);
    x->nd = draw_int(rng, o->min_devices, o->max_devices);
    for (int t = 0; t < x->n; t++)
        draw_task(rng, x, t);
    for (int q = 0; q < MAXD; q++)
        for (int r = q + 1; r < MAXD; r++)
            draw_link(rng, x, q, r);
}

/* ----------------------------------------------------------------- changes */

enum { CH_COST, CH_SPEED, CH_BYTES, CH_ADD_EDGE, CH_DROP_EDGE, CH_IO, CH_LINK, CH_ADD_TASK,
       CH_DROP_TASK, CH_ADD_GPU, CH_DROP_GPU, NCHANGES };

static int nedges(const inst *x)
{
    int k = 0;
    for (int i = 0; i < x->n; i++)
        for (int j = i + 1; j < x->n; j++)
            k += x->edge[i][j];
    return k;
}

/* The k-th edge present (0: none), or the k-th absent pair when `present`
 * is 0, into *i, *j. */
static void nth_pair(const inst *x, int present, int k, int *i, int *j)
{
    for (*i = 0; *i < x->n; (*i)++)
        for (*j = *i + 1; *j < x->n; (*j)++)
            if (!x->edge[*i][*j] == !present && k-- == 0)
                return;
}

static int applies(const inst *x, const hs_adversary_options *o, int ch)
{
    int e = nedges(x), pairs = x->n * (x->n - 1) / 2;
    switch (ch) {
    case CH_BYTES:
    case CH_DROP_EDGE: return e > 0;
    case CH_ADD_EDGE: return e < pairs;
    case CH_LINK: return x->nd > 1;
    case CH_ADD_TASK: return x->n < o->max_tasks;
    case CH_DROP_TASK: return x->n > o->min_tasks;
    case CH_ADD_GPU: return x->nd < o->max_devices;
    case CH_DROP_GPU: return x->nd > o->min_devices;
    default: return 1;
    }
}

static void drop_task(inst *x, int t)
{
    for (int a = t; a + 1 < x->n; a++) {
        memcpy(x->cost[a], x->cost[a + 1], sizeof x->cost[a]);
        x->in[a] = x->in[a + 1];
        x->out[a] = x->out[a + 1];
    }
    for (int i = 0, ni = 0; i < x->n; i++) {
        if (i == t)
            continue;
        for (int j = 0, nj = 0; j < x->n; j++) {
            if (j == t)
                continue;
            x->edge[ni][nj] = x->edge[i][j];
            x->bytes[ni][nj] = x->bytes[i][j];
            nj++;
        }
        ni++;
    }
    x->n--;
    for (int i = 0; i < MAXT; i++) {
        x->edge[i][x->n] = x->edge[x->n][i] = 0;
    }
}

/* One random change of those that apply. */
static void change(gsl_rng *rng, const hs_adversary_options *o, inst *x)
{
    int ch, i, j;
    do
        ch = draw_int(rng, 0, NCHANGES - 1);
    while (!applies(x, o, ch));
    switch (ch) {
    case CH_COST:
        x->cost[draw_int(rng, 0, x->n - 1)][draw_int(rng, 0, x->nd - 1)] = draw_cost(rng);
        break;
    case CH_SPEED: {
        int d = draw_int(rng, 0, x->nd - 1);
        double f = exp((gsl_rng_uniform(rng) - 0.5) * 2 * log(4.0));
        for (int t = 0; t < x->n; t++)
            x->cost[t][d] = fmin(1000, fmax(1, round(x->cost[t][d] * f)));
        break;
    }
    case CH_BYTES:
        nth_pair(x, 1, draw_int(rng, 0, nedges(x) - 1), &i, &j);
        x->bytes[i][j] = draw_bytes(rng, 0.2);
        break;
    case CH_ADD_EDGE:
        nth_pair(x, 0, draw_int(rng, 0, x->n * (x->n - 1) / 2 - nedges(x) - 1), &i, &j);
        x->edge[i][j] = 1;
        x->bytes[i][j] = draw_bytes(rng, 0.2);
        break;
    case CH_DROP_EDGE:
        nth_pair(x, 1, draw_int(rng, 0, nedges(x) - 1), &i, &j);
        x->edge[i][j] = 0;
        break;
    case CH_IO:
        i = draw_int(rng, 0, x->n - 1);
        if (gsl_rng_uniform(rng) < 0.5)
            x->in[i] = draw_bytes(rng, 0.5);
        else
            x->out[i] = draw_bytes(rng, 0.5);
        break;
    case CH_LINK:
        i = draw_int(rng, 0, x->nd - 2);
        draw_link(rng, x, i, draw_int(rng, i + 1, x->nd - 1));
        break;
    case CH_ADD_TASK:
        draw_task(rng, x, x->n++);
        break;
    case CH_DROP_TASK:
        drop_task(x, draw_int(rng, 0, x->n - 1));
        break;
    case CH_ADD_GPU:
        x->nd++; /* its costs and links were drawn with the instance */
        break;
    default:
        x->nd--;
        break;
    }
}

/* ----------------------------------------------------------------- ratio */

static int build(const inst *x, hs_workload **out, hs_error *err)
{
    hs_workload *w = hs_workload_new();
    char name[2][16];
    int rc = HS_OK, a;
    if (!w)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (int d = 0; d < x->nd && rc >= 0; d++) {
        snprintf(name[0], sizeof name[0], d ? "gpu%d" : "cpu0", d - 1);
        rc = hs_platform_add_device(w, name[0], d ? HS_DEVICE_GPU : HS_DEVICE_CPU,
                                    d ? name[0] : "host", 0, err);
    }
    for (int q = 0; q < x->nd && rc >= 0; q++)
        for (int r = 0; r < x->nd && rc >= 0; r++) {
            int lo = q < r ? q : r, hi = q < r ? r : q;
            if (q == r)
                continue;
            rc = hs_platform_add_link(w, w->platform.memories[w->platform.devices[q].memory],
                                      w->platform.memories[w->platform.devices[r].memory],
                                      x->gbps[lo][hi], x->lat[lo][hi], err);
        }
    a = rc >= 0 ? hs_workload_add_app(w, "adversary", 1, err) : rc;
    for (int t = 0; t < x->n && a >= 0 && rc >= 0; t++) {
        snprintf(name[0], sizeof name[0], "k%d", t);
        rc = hs_app_add_kernel(w, a, name[0], err);
        for (int d = 0; d < x->nd && rc >= 0; d++)
            rc = hs_kernel_set_cost(w, a, t, w->platform.devices[d].name, x->cost[t][d], err);
        if (rc >= 0)
            rc = hs_kernel_set_bytes(w, a, t, x->in[t], x->out[t], err);
    }
    for (int i = 0; i < x->n && a >= 0 && rc >= 0; i++)
        for (int j = i + 1; j < x->n && rc >= 0; j++) {
            if (!x->edge[i][j])
                continue;
            snprintf(name[0], sizeof name[0], "k%d", i);
            snprintf(name[1], sizeof name[1], "k%d", j);
            rc = hs_app_add_edge(w, a, name[0], name[1], x->bytes[i][j], err);
        }
    if (a < 0)
        rc = a;
    if (rc >= 0)
        rc = hs_workload_finalize(w, err);
    if (rc < 0) {
        hs_workload_free(w);
        return rc;
    }
    *out = w;
    return HS_OK;
}

typedef struct score {
    double ratio, policy_us, against_us;
    int proven;
} score;

/* The ratio of the policy's makespan on w to the optimum's or the other
 * policy's. */
static int evaluate(const hs_adversary_options *o, hs_workload *w, score *s, hs_error *err)
{
    hs_schedule *sched = NULL;
    int rc = hs_map(w, o->policy, &o->map, &sched, NULL, err);
    if (rc != HS_OK)
        return rc;
    s->policy_us = sched->makespan_us;
    hs_schedule_free(sched);
    s->proven = 0;
    if (o->against) {
        if ((rc = hs_map(w, o->against, &o->map, &sched, NULL, err)) != HS_OK)
            return rc;
        s->against_us = sched->makespan_us;
        hs_schedule_free(sched);
    } else {
        hs_milp_options mo;
        hs_milp_result res;
        hs_milp_options_init(&mo);
        mo.time_limit_s = o->milp_time_limit_s;
        mo.progress = 0;
        if ((rc = hs_milp_solve(w, &mo, &res, err)) != HS_OK)
            return rc;
        s->against_us = res.makespan_us;
        s->proven = res.status == HS_MILP_OPTIMAL;
        hs_milp_result_free(&res);
        if (!isfinite(s->against_us))
            return hs_error_set(err, HS_ESOLVER, "the MILP found no schedule within %g s",
                                o->milp_time_limit_s);
    }
    s->ratio = s->policy_us / s->against_us;
    return HS_OK;
}

static int score_instance(const hs_adversary_options *o, const inst *x, score *s,
                          hs_workload **keep, hs_error *err)
{
    hs_workload *w = NULL;
    int rc = build(x, &w, err);
    if (rc == HS_OK)
        rc = evaluate(o, w, s, err);
    if (rc == HS_OK && keep)
        *keep = w;
    else
        hs_workload_free(w);
    return rc;
}

static int check_options(const hs_adversary_options *o, hs_error *err)
{
    if (!o->policy || !hs_policy_find(o->policy))
        return hs_error_set(err, HS_EUSAGE, "unknown policy '%s' (see hetsched map -a help)",
                            o->policy ? o->policy : "(none)");
    if (o->against && !hs_policy_find(o->against))
        return hs_error_set(err, HS_EUSAGE, "unknown policy '%s' to compare with (see "
                            "hetsched map -a help)", o->against);
    if (o->iterations < 1)
        return hs_error_set(err, HS_EUSAGE, "iterations must be at least 1, not %ld",
                            o->iterations);
    if (!(o->time_limit_s >= 0) || !(o->milp_time_limit_s > 0))
        return hs_error_set(err, HS_EUSAGE, "time limits must be numbers of seconds >= 0");
    if (o->min_tasks < 1 || o->min_tasks > o->max_tasks || o->max_tasks > MAXT)
        return hs_error_set(err, HS_EUSAGE, "tasks must be a range within 1..%d, not %d-%d",
                            MAXT, o->min_tasks, o->max_tasks);
    if (o->min_devices < 1 || o->min_devices > o->max_devices || o->max_devices > MAXD)
        return hs_error_set(err, HS_EUSAGE, "devices must be a range within 1..%d, not %d-%d",
                            MAXD, o->min_devices, o->max_devices);
    return HS_OK;
}

int hs_adversary_search(const hs_adversary_options *o, hs_adversary_result *res,
                        void (*progress)(void *ctx, const hs_adversary_result *sofar),
                        void *ctx, hs_error *err)
{
    double t0 = hs__seconds(), temp = T_START, cooling;
    gsl_rng *rng;
    inst cur, next, best;
    score sc, sn;
    int rc;
    memset(res, 0, sizeof *res);
    if ((rc = check_options(o, err)) != HS_OK)
        return rc;
    if (!(rng = gsl_rng_alloc(gsl_rng_mt19937)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    gsl_rng_set(rng, o->seed);
    cooling = pow(T_END / T_START, 1.0 / (double)o->iterations);
    draw_instance(rng, o, &cur);
    if ((rc = score_instance(o, &cur, &sc, NULL, err)) != HS_OK)
        goto out;
    best = cur;
    res->ratio = sc.ratio;
    res->policy_us = sc.policy_us;
    res->against_us = sc.against_us;
    res->proven = sc.proven;
    for (long it = 0; it < o->iterations; it++) {
        if (o->time_limit_s > 0 && hs__seconds() - t0 > o->time_limit_s)
            break;
        next = cur;
        change(rng, o, &next);
        if ((rc = score_instance(o, &next, &sn, NULL, err)) != HS_OK)
            goto out;
        res->iterations++;
        if (sn.ratio >= sc.ratio || gsl_rng_uniform(rng) < exp((sn.ratio / sc.ratio - 1) / temp)) {
            cur = next;
            sc = sn;
            res->accepted++;
        }
        if (sn.ratio > res->ratio) {
            best = next;
            res->ratio = sn.ratio;
            res->policy_us = sn.policy_us;
            res->against_us = sn.against_us;
            res->proven = sn.proven;
            res->seconds = hs__seconds() - t0;
            if (progress)
                progress(ctx, res);
        }
        temp *= cooling;
    }
    /* the worst again, kept as a workload (the same numbers give the same
     * schedules) */
    rc = score_instance(o, &best, &sc, &res->worst, err);
out:
    res->seconds = hs__seconds() - t0;
    gsl_rng_free(rng);
    return rc;
}
