/* hetsched — the compact formulation (include/hetsched/milp.h).
 *
 * Variables (after Venugopalan & Sinnen, TPDS 2015, and Mallach, JOCO 2018):
 *   x[t][d] in {0,1}   t runs on device d (only for pairs that can beat the
 *                      incumbent, see "windows" below)
 *   s[t] >= 0          start of t
 *   y[i][j] in {0,1}   i runs before j if they share a device; only for pairs
 *                      the graph leaves unordered and that are not ordered
 *                      by symmetry breaking or time windows
 *   z[e][M][M']        edge e's producer on memory M, consumer on M'
 *                      (continuous: its marginals are the assignments, so it
 *                      is 0/1 whenever x is; replaces products x*x)
 *   Cmax               the makespan, minimised
 *
 * Rows (p(t) = sum_d C[t][d] x[t][d] is t's duration):
 *   (a) sum_d x[t][d] = 1
 *   (b) s[v] >= s[u] + p(u) + comm(e)           for each edge e = u -> v, with
 *       comm(e) = sum T(M,M') z[e][M][M'], and sum_M' z[e][M][M'] = X(u,M),
 *       sum_M z[e][M][M'] = X(v,M') where X(t,M) = sum_{d on M} x[t][d].  When
 *       one end can only sit on one memory the other's x carries it directly.
 *   (c) s[t] >= sum_d head[t][d] x[t][d]        (input arrival; with windows
 *       the whole head, milp/bound.c)
 *   (d) Cmax >= s[t] + sum_d (C[t][d] + tail[t][d]) x[t][d]   (output back on
 *       the host; with windows the whole tail)
 *   (e) for an unordered pair i, j and each device d both may use:
 *         s[j] >= s[i] + C[i][d] - M1 (3 - y - x[i][d] - x[j][d])
 *         s[i] >= s[j] + C[j][d] - M2 (2 + y - x[i][d] - x[j][d])
 *       and with the order fixed (i first), only the first, with (2 - x - x).
 * Strengthening (each can be switched off, HS_MILP_USE_*):
 *   windows: a (task, device) pair with head + C + tail above the incumbent
 *     U cannot be in a better schedule: no x column; s[t] gets the bounds
 *     [min head, max U - C - tail]; each big-M is the largest value its row
 *     can need given those windows (M1 below); a pair that cannot run in
 *     either order on d within U gets x[i][d] + x[j][d] <= 1, and one that
 *     can only run in one order gets that order fixed;
 *   cuts: Cmax >= the cheap lower bound, and per device d
 *     Cmax >= sum_t C[t][d] x[t][d] + min(min head + min tail on d, bound);
 *   symmetry: the instances of one application are interchangeable, so they
 *     may be numbered by the start of one kernel k*: s[k* of i] <=
 *     s[k* of i+1], and i's k* precedes i+1's on a shared device (y fixed);
 *     devices with the same memory and costs are interchangeable, numbered
 *     by the first task they run: x[t][c_k] <= sum_{t' < t} x[t'][c_{k-1}].
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "milp/milp_int.h"

/* Symmetry rows for identical devices cover the first tasks only (each row
 * is as long as the task's index); a subset of valid rows stays valid. */
#define DEVSYM_MAX_TASKS 200
/* Rows (e) of every pair the graph leaves unordered, at most. */
#define COMPACT_MAX_ROWS 2000000.0
/* Columns plus rows of the relaxation (HS__RELAXED), at most. */
#define RELAXED_MAX_SIZE 4000000.0

typedef struct cbuild {
    hs__model *M;
    const hs__minst *I;
    size_t n;
    int m, nmem;
    double U;              /* incumbent bound, slightly loosened */
    int win, cuts, sym;
    unsigned char *allowed; /* [n*m] */
    unsigned char *onmem;   /* [n*nmem]: t may sit on memory M */
    double *lo, *hi;        /* [n] start windows */
    int *cx, *cs, cmax;     /* columns */
    int *zcol;              /* [nedges*nmem*nmem] or 0 */
    int *pair;              /* [n*n], i < j: 0 none, > 0 y column, -1 i first,
                               -2 j first */
} cbuild;

#define ALLOWED(b, t, d) ((b)->allowed[(t) * (size_t)(b)->m + (size_t)(d)])
#define HEAD(b, t, d) ((b)->I->head[(t) * (size_t)(b)->m + (size_t)(d)])
#define TAIL(b, t, d) ((b)->I->tail[(t) * (size_t)(b)->m + (size_t)(d)])
#define INPUT(b, t, d) ((b)->I->in[(t) * (size_t)(b)->m + (size_t)(d)])
#define OUTPUT(b, t, d) ((b)->I->out[(t) * (size_t)(b)->m + (size_t)(d)])
#define COST(b, t, d) hs__cost((b)->I, (t), (d))

static int memory_of(const cbuild *b, int d)
{
    return b->I->w->platform.devices[d].memory;
}

/* --------------------------------------------------------------- symmetry */

/* The kernel whose instances get ordered, per application: the one with
 * the largest fastest cost (the likeliest to queue on one device), or -1
 * where the application has one instance or its tasks are not laid out as
 * finalize lays them (instance-major, identical costs and data). */
int *hs__symmetric_apps(const hs__minst *I)
{
    const hs_workload *w = I->w;
    const hs_graph *g = I->g;
    int *kstar = malloc(((size_t)w->napps + 1) * sizeof *kstar);
    size_t first = 0;
    if (!kstar)
        return NULL;
    for (int a = 0; a < w->napps; a++) {
        const hs_app *app = &w->apps[a];
        size_t K = (size_t)app->nkernels, cnt = (size_t)app->instances * K;
        int ok = app->instances >= 2 && first + cnt <= I->n, best = 0;
        for (size_t i = 0; ok && i < (size_t)app->instances; i++)
            for (size_t k = 0; ok && k < K; k++) {
                const hs_task *t = &g->tasks[first + i * K + k], *t0 = &g->tasks[first + k];
                ok = t->app == a && (size_t)t->instance == i && (size_t)t->kernel == k &&
                     t->input_bytes == t0->input_bytes && t->output_bytes == t0->output_bytes &&
                     memcmp(t->cost_us, t0->cost_us, (size_t)I->m * sizeof *t->cost_us) == 0;
            }
        for (size_t k = 1; ok && k < K; k++)
            if (hs_task_min_cost(g, first + k) > hs_task_min_cost(g, first + (size_t)best))
                best = (int)k;
        kstar[a] = ok ? best : -1;
        first += cnt;
    }
    return kstar;
}

/* dev_class[d]: the first device with d's memory and costs; NULL if every
 * device is unique. */
int *hs__device_classes(const hs__minst *I)
{
    int *cls = malloc((size_t)I->m * sizeof *cls), any = 0;
    const hs_platform *p = &I->w->platform;
    if (!cls)
        return NULL;
    for (int d = 0; d < I->m; d++) {
        cls[d] = d;
        for (int c = 0; c < d && cls[d] == d; c++) {
            int same = cls[c] == c && p->devices[c].memory == p->devices[d].memory;
            for (size_t t = 0; same && t < I->n; t++)
                same = hs__cost(I, t, c) == hs__cost(I, t, d);
            if (same) {
                cls[d] = c;
                any = 1;
            }
        }
    }
    if (!any) {
        free(cls);
        return NULL;
    }
    return cls;
}

typedef struct inst_key {
    double start;
    size_t rank;
    int inst;
} inst_key;

static int by_key(const void *a, const void *b)
{
    const inst_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Renumbers instances by the start of their k* (ties: the earlier in the
 * schedule's order) and identical devices by their lowest task: the
 * schedule is the same, its labels now satisfy the symmetry rows. */
void hs__canon(const hs__model *m, const hs__minst *I, hs__sched *s)
{
    const hs_workload *w = I->w;
    size_t n = I->n, first = 0;
    int *dev = malloc(n * sizeof *dev);
    double *start = malloc(n * sizeof *start);
    size_t *pos = malloc(n * sizeof *pos);
    if (!dev || !start || !pos)
        goto out;
    for (size_t k = 0; k < n; k++)
        pos[s->order[k]] = k;
    for (int a = 0; m->app_kernel && a < w->napps; a++) {
        const hs_app *app = &w->apps[a];
        size_t K = (size_t)app->nkernels, NI = (size_t)app->instances;
        inst_key *key;
        if (m->app_kernel[a] < 0 || !(key = malloc(NI * sizeof *key))) {
            first += NI * K;
            continue;
        }
        for (size_t i = 0; i < NI; i++) {
            size_t t = first + i * K + (size_t)m->app_kernel[a];
            key[i] = (inst_key){.start = s->start[t], .rank = pos[t], .inst = (int)i};
        }
        qsort(key, NI, sizeof *key, by_key);
        memcpy(dev + first, s->dev + first, NI * K * sizeof *dev);
        memcpy(start + first, s->start + first, NI * K * sizeof *start);
        for (size_t i = 0; i < NI; i++)
            for (size_t k = 0; k < K; k++) {
                s->dev[first + i * K + k] = dev[first + (size_t)key[i].inst * K + k];
                s->start[first + i * K + k] = start[first + (size_t)key[i].inst * K + k];
            }
        free(key);
        first += NI * K;
    }
    if (m->dev_class) {
        /* within each class, the device whose first task comes k-th gets the
         * class's k-th label */
        int *relabel = malloc((size_t)I->m * sizeof *relabel);
        size_t *low = malloc((size_t)I->m * sizeof *low);
        int *mem = malloc(2 * (size_t)I->m * sizeof *mem);
        if (relabel && low && mem) {
            int *sorted = mem + I->m;
            for (int d = 0; d < I->m; d++) {
                low[d] = n;
                relabel[d] = d;
            }
            for (size_t t = n; t-- > 0;)
                low[s->dev[t]] = t;
            for (int c = 0; c < I->m; c++) {
                int cnt = 0;
                if (m->dev_class[c] != c)
                    continue;
                for (int d = c; d < I->m; d++)
                    if (m->dev_class[d] == c) {
                        mem[cnt] = sorted[cnt] = d;
                        cnt++;
                    }
                for (int k = 1; k < cnt; k++) /* insertion sort by first task */
                    for (int q = k; q > 0 && low[sorted[q]] < low[sorted[q - 1]]; q--) {
                        int tmp = sorted[q];
                        sorted[q] = sorted[q - 1];
                        sorted[q - 1] = tmp;
                    }
                for (int k = 0; k < cnt; k++)
                    relabel[sorted[k]] = mem[k];
            }
            for (size_t t = 0; t < n; t++)
                s->dev[t] = relabel[s->dev[t]];
        }
        free(relabel);
        free(low);
        free(mem);
    }
    hs__order_by_start(I, s->dev, s->start, s->order);
out:
    free(dev);
    free(start);
    free(pos);
}

/* ------------------------------------------------------------ time windows */

/* Can i run on d, immediately followed somewhere later by j on d, in a
 * schedule of makespan <= U? */
static int can_precede(const cbuild *b, size_t i, size_t j, int d)
{
    double ei = HEAD(b, i, d) + COST(b, i, d), sj = HEAD(b, j, d);
    if (!b->win)
        return 1;
    return (ei > sj ? ei : sj) + COST(b, j, d) + TAIL(b, j, d) <= b->U;
}

/* The big-M of "i before j on d": the largest s[i] + C[i][d] - s[j] the row
 * must tolerate when switched off.  Once off (y or one x disagrees) only
 * the windows bound it: i on d gives s[i] <= U - C - tail, j on d gives
 * s[j] >= head; twice off, half the span of the general windows suffices.
 * 0 when the row can never bind. */
static double big_m(const cbuild *b, size_t i, size_t j, int d)
{
    double span = b->hi[i] + COST(b, i, d) - b->lo[j], m1, m2;
    if (span <= 0)
        return 0;
    if (!b->win)
        return span;
    m1 = b->U - TAIL(b, i, d) - b->lo[j];
    m2 = b->hi[i] + COST(b, i, d) - HEAD(b, j, d);
    if (m2 > m1)
        m1 = m2;
    if (span / 2 > m1)
        m1 = span / 2;
    return m1 > 0 ? m1 : 0;
}

/* ------------------------------------------------------------------ columns */

static int windows(cbuild *b)
{
    const hs__minst *I = b->I;
    for (size_t t = 0; t < b->n; t++) {
        int any = 0;
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (int d = 0; d < b->m; d++) {
            double w = HEAD(b, t, d) + COST(b, t, d) + TAIL(b, t, d);
            ALLOWED(b, t, d) = !b->win || w <= b->U;
            any |= ALLOWED(b, t, d);
        }
        if (!any) /* only if U is below a valid bound: keep the model whole */
            for (int d = 0; d < b->m; d++)
                ALLOWED(b, t, d) = 1;
        for (int d = 0; d < b->m; d++) {
            if (!ALLOWED(b, t, d))
                continue;
            b->onmem[t * (size_t)b->nmem + (size_t)memory_of(b, d)] = 1;
            if (HEAD(b, t, d) < lo)
                lo = HEAD(b, t, d);
            if (b->U - COST(b, t, d) - TAIL(b, t, d) > hi)
                hi = b->U - COST(b, t, d) - TAIL(b, t, d);
        }
        b->lo[t] = b->win ? lo : 0;
        b->hi[t] = b->win ? hi : b->U;
        if (b->hi[t] < b->lo[t])
            b->hi[t] = b->lo[t];
    }
    (void)I;
    return 0;
}

static int nmems_of(const cbuild *b, size_t t, int *only)
{
    int cnt = 0;
    for (int M = 0; M < b->nmem; M++)
        if (b->onmem[t * (size_t)b->nmem + (size_t)M]) {
            cnt++;
            *only = M;
        }
    return cnt;
}

/* Orders pair (i, j) where the instance symmetry or the windows allow
 * only one order on every device they share; else a y column. */
static void pair_columns(cbuild *b)
{
    const hs__minst *I = b->I;
    size_t n = b->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int shared = 0, ij = 0, ji = 0;
            int *st = &b->pair[i * n + j];
            if (I->reach[i * n + j] || I->reach[j * n + i])
                continue;
            for (int d = 0; d < b->m; d++) {
                if (!ALLOWED(b, i, d) || !ALLOWED(b, j, d))
                    continue;
                shared = 1;
                ij |= can_precede(b, i, j, d);
                ji |= can_precede(b, j, i, d);
            }
            if (!shared || *st != 0) /* no device in common, or symmetry fixed it */
                continue;
            if (ij && !ji)
                *st = -1;
            else if (ji && !ij)
                *st = -2;
            else if (ij && ji)
                *st = hs__col_add(b->M, HS__COL_Y, (int)i, (int)j, 0, GLP_BV, 0, 1, "y[%zu,%zu]",
                                  i, j);
            /* neither: the pair cannot share a device; rows say so */
        }
}

static void symmetry_pairs(cbuild *b)
{
    const hs_workload *w = b->I->w;
    size_t first = 0, n = b->n;
    for (int a = 0; a < w->napps; a++) {
        size_t K = (size_t)w->apps[a].nkernels, NI = (size_t)w->apps[a].instances;
        if (b->M->app_kernel[a] >= 0)
            for (size_t i = 0; i < NI; i++)
                for (size_t j = i + 1; j < NI; j++) {
                    size_t ti = first + i * K + (size_t)b->M->app_kernel[a];
                    size_t tj = first + j * K + (size_t)b->M->app_kernel[a];
                    b->pair[ti * n + tj] = -1;
                }
        first += NI * K;
    }
}

static void edge_columns(cbuild *b)
{
    const hs_graph *g = b->I->g;
    for (size_t e = 0; e < g->nedges; e++) {
        size_t u = g->edges[e].from, v = g->edges[e].to;
        int ou, ov;
        if (g->edges[e].bytes <= 0 || nmems_of(b, u, &ou) < 2 || nmems_of(b, v, &ov) < 2)
            continue;
        for (int Mu = 0; Mu < b->nmem; Mu++)
            for (int Mv = 0; Mv < b->nmem; Mv++)
                if (b->onmem[u * (size_t)b->nmem + (size_t)Mu] &&
                    b->onmem[v * (size_t)b->nmem + (size_t)Mv])
                    b->zcol[(e * (size_t)b->nmem + (size_t)Mu) * (size_t)b->nmem + (size_t)Mv] =
                        hs__col_add(b->M, HS__COL_Z, (int)e, Mu, Mv, GLP_CV, 0, 1,
                                    "z[%zu,%d,%d]", e, Mu, Mv);
    }
}

/* --------------------------------------------------------------------- rows */

/* Adds -comm(e) to the row under construction, and (once, with
 * `marginals`) the rows tying z to x. */
static void comm_terms(cbuild *b, size_t e)
{
    const hs_graph *g = b->I->g;
    const hs_platform *p = &b->I->w->platform;
    const hs_edge *ed = &g->edges[e];
    size_t u = ed->from, v = ed->to;
    int ou = 0, ov = 0, nu, nv;
    if (ed->bytes <= 0)
        return;
    nu = nmems_of(b, u, &ou);
    nv = nmems_of(b, v, &ov);
    if (nu == 1) {
        for (int d = 0; d < b->m; d++)
            if (ALLOWED(b, v, d))
                hs__row_term(b->M, b->cx[v * (size_t)b->m + (size_t)d],
                             -hs_transfer_us(p, ou, memory_of(b, d), ed->bytes));
    } else if (nv == 1) {
        for (int q = 0; q < b->m; q++)
            if (ALLOWED(b, u, q))
                hs__row_term(b->M, b->cx[u * (size_t)b->m + (size_t)q],
                             -hs_transfer_us(p, memory_of(b, q), ov, ed->bytes));
    } else {
        /* only pairs with a z column: a memory no device of u (or v) uses
         * may have no link at all (a platform without CPUs has no use for
         * links to host) */
        for (int Mu = 0; Mu < b->nmem; Mu++)
            for (int Mv = 0; Mv < b->nmem; Mv++) {
                int z = b->zcol[(e * (size_t)b->nmem + (size_t)Mu) * (size_t)b->nmem +
                                (size_t)Mv];
                if (z)
                    hs__row_term(b->M, z, -hs_transfer_us(p, Mu, Mv, ed->bytes));
            }
    }
}

static void z_marginals(cbuild *b, size_t e)
{
    const hs_graph *g = b->I->g;
    size_t u = g->edges[e].from, v = g->edges[e].to, nm = (size_t)b->nmem;
    int *z = b->zcol + e * nm * nm;
    int any = 0;
    for (size_t k = 0; k < nm * nm; k++)
        any |= z[k] != 0;
    if (!any)
        return;
    for (int Mu = 0; Mu < b->nmem; Mu++) {
        if (!b->onmem[u * nm + (size_t)Mu])
            continue;
        for (int Mv = 0; Mv < b->nmem; Mv++)
            hs__row_term(b->M, z[(size_t)Mu * nm + (size_t)Mv], 1);
        for (int d = 0; d < b->m; d++)
            if (memory_of(b, d) == Mu)
                hs__row_term(b->M, b->cx[u * (size_t)b->m + (size_t)d], -1);
        hs__row_add(b->M, GLP_FX, 0, 0, "zout[%zu,%d]", e, Mu);
    }
    for (int Mv = 0; Mv < b->nmem; Mv++) {
        if (!b->onmem[v * nm + (size_t)Mv])
            continue;
        for (int Mu = 0; Mu < b->nmem; Mu++)
            hs__row_term(b->M, z[(size_t)Mu * nm + (size_t)Mv], 1);
        for (int d = 0; d < b->m; d++)
            if (memory_of(b, d) == Mv)
                hs__row_term(b->M, b->cx[v * (size_t)b->m + (size_t)d], -1);
        hs__row_add(b->M, GLP_FX, 0, 0, "zin[%zu,%d]", e, Mv);
    }
}

/* Row (e) for "a before b on d", switched off by each of the `off` terms
 * (y given as a column, or 0 when the order is fixed). */
static void sequence_row(cbuild *b, size_t a, size_t bb, int d, int ycol, int y_means_a_first)
{
    double M = big_m(b, a, bb, d);
    int k = 2; /* switched off by 1 - x[a][d] and 1 - x[b][d] */
    if (M <= 0)
        return;
    hs__row_term(b->M, b->cs[bb], 1);
    hs__row_term(b->M, b->cs[a], -1);
    hs__row_term(b->M, b->cx[a * (size_t)b->m + (size_t)d], -M);
    hs__row_term(b->M, b->cx[bb * (size_t)b->m + (size_t)d], -M);
    if (ycol > 0) {
        /* y = 1 means "a first" (off by 1 - y) or "b first" (off by y) */
        if (y_means_a_first) {
            hs__row_term(b->M, ycol, -M);
            k = 3;
        } else {
            hs__row_term(b->M, ycol, M);
        }
    }
    hs__row_add(b->M, GLP_LO, COST(b, a, d) - k * M, 0, "seq[%zu,%zu,%d]", a, bb, d);
}

static void pair_rows(cbuild *b)
{
    size_t n = b->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int st = b->pair[i * n + j];
            if (b->I->reach[i * n + j] || b->I->reach[j * n + i])
                continue;
            for (int d = 0; d < b->m; d++) {
                int ij, ji;
                if (!ALLOWED(b, i, d) || !ALLOWED(b, j, d))
                    continue;
                ij = can_precede(b, i, j, d) && st != -2;
                ji = can_precede(b, j, i, d) && st != -1;
                if (!ij && !ji) {
                    hs__row_term(b->M, b->cx[i * (size_t)b->m + (size_t)d], 1);
                    hs__row_term(b->M, b->cx[j * (size_t)b->m + (size_t)d], 1);
                    hs__row_add(b->M, GLP_UP, 0, 1, "apart[%zu,%zu,%d]", i, j, d);
                } else if (st == -1) {
                    sequence_row(b, i, j, d, 0, 0);
                } else if (st == -2) {
                    sequence_row(b, j, i, d, 0, 0);
                } else if (st > 0) {
                    sequence_row(b, i, j, d, st, 1);
                    sequence_row(b, j, i, d, st, 0);
                }
            }
        }
}

static void task_rows(cbuild *b)
{
    for (size_t t = 0; t < b->n; t++) {
        int *x = b->cx + t * (size_t)b->m;
        for (int d = 0; d < b->m; d++)
            hs__row_term(b->M, x[d], 1);
        hs__row_add(b->M, GLP_FX, 1, 1, "assign[%zu]", t);
        /* (c): starts after the input (the head, with windows); nothing to
         * say when the task can start at 0 wherever it runs */
        int any = 0;
        for (int d = 0; d < b->m; d++)
            any |= x[d] && (b->win ? HEAD(b, t, d) : INPUT(b, t, d)) > 0;
        if (any) {
            hs__row_term(b->M, b->cs[t], 1);
            for (int d = 0; d < b->m; d++)
                hs__row_term(b->M, x[d], -(b->win ? HEAD(b, t, d) : INPUT(b, t, d)));
            hs__row_add(b->M, GLP_LO, 0, 0, "start[%zu]", t);
        }
        /* (d): the makespan covers the end and the output (the tail) */
        hs__row_term(b->M, b->cmax, 1);
        hs__row_term(b->M, b->cs[t], -1);
        for (int d = 0; d < b->m; d++)
            hs__row_term(b->M, x[d],
                         -(COST(b, t, d) + (b->win ? TAIL(b, t, d) : OUTPUT(b, t, d))));
        hs__row_add(b->M, GLP_LO, 0, 0, "end[%zu]", t);
    }
}

static void edge_rows(cbuild *b)
{
    const hs_graph *g = b->I->g;
    for (size_t e = 0; e < g->nedges; e++) {
        size_t u = g->edges[e].from, v = g->edges[e].to;
        hs__row_term(b->M, b->cs[v], 1);
        hs__row_term(b->M, b->cs[u], -1);
        for (int d = 0; d < b->m; d++)
            hs__row_term(b->M, b->cx[u * (size_t)b->m + (size_t)d], -COST(b, u, d));
        comm_terms(b, e);
        hs__row_add(b->M, GLP_LO, 0, 0, "prec[%zu]", e);
        z_marginals(b, e);
    }
}

static void load_rows(cbuild *b, double lower)
{
    for (int d = 0; d < b->m; d++) {
        double mh = HUGE_VAL, mt = HUGE_VAL, c;
        hs__row_term(b->M, b->cmax, 1);
        for (size_t t = 0; t < b->n; t++) {
            if (!ALLOWED(b, t, d))
                continue;
            hs__row_term(b->M, b->cx[t * (size_t)b->m + (size_t)d], -COST(b, t, d));
            if (HEAD(b, t, d) < mh)
                mh = HEAD(b, t, d);
            if (TAIL(b, t, d) < mt)
                mt = TAIL(b, t, d);
        }
        /* an idle device has no head or tail: then only the bound holds */
        c = isfinite(mh + mt) && mh + mt < lower ? mh + mt : lower;
        if (!isfinite(c))
            c = 0;
        hs__row_add(b->M, GLP_LO, c, 0, "load[%d]", d);
    }
}

static void symmetry_rows(cbuild *b)
{
    hs__instance_symmetry_rows(b->M, b->I->w, b->cs);
    if (!b->M->dev_class)
        return;
    for (int d = 0; d < b->m; d++) {
        int prev = -1;
        if (b->M->dev_class[d] == d)
            continue;
        for (int c = d - 1; c >= 0 && prev < 0; c--)
            if (b->M->dev_class[c] == b->M->dev_class[d])
                prev = c;
        for (size_t t = 0; t < b->n && t < DEVSYM_MAX_TASKS; t++) {
            if (!ALLOWED(b, t, d))
                continue;
            hs__row_term(b->M, b->cx[t * (size_t)b->m + (size_t)d], 1);
            for (size_t u = 0; u < t; u++)
                hs__row_term(b->M, b->cx[u * (size_t)b->m + (size_t)prev], -1);
            hs__row_add(b->M, GLP_UP, 0, 0, "symd[%zu,%d]", t, d);
        }
    }
}

int hs__build_compact(hs__model *M, const hs__minst *I, double upper, unsigned features,
                      const hs__budget *budget, hs_error *err)
{
    cbuild b = {0};
    size_t n = I->n, m = (size_t)I->m, nm;
    double lower = hs_lower_bound_us(I->w);
    int rc = HS_OK, relaxed = (features & HS__RELAXED) != 0;
    double pairs = 0, nmem2 = (double)I->w->platform.nmemories * I->w->platform.nmemories;
    double size = (double)n * (double)m + 4.0 * (double)n +
                  (double)I->g->nedges * (1 + 3 * nmem2) + (double)m;
    if (relaxed) {
        if (size > RELAXED_MAX_SIZE)
            return hs_error_set(err, HS_EINPUT, "the relaxation of %zu tasks on %zu devices "
                                "needs up to %.3g rows and columns: too many", n, m, size);
    } else {
        if (!I->reach)
            return hs_error_set(err, HS_EINTERNAL, "compact model without transitive closure");
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                pairs += !I->reach[i * n + j] && !I->reach[j * n + i];
        if (pairs * 2 * (double)m > COMPACT_MAX_ROWS)
            return hs_error_set(err, HS_EINPUT, "the compact formulation of %zu tasks on %zu "
                                "devices needs up to %.3g ordering rows: too many", n, m,
                                pairs * 2 * (double)m);
    }
    b.M = M;
    b.I = I;
    b.n = n;
    b.m = I->m;
    b.nmem = I->w->platform.nmemories;
    nm = (size_t)b.nmem;
    b.U = upper + 1e-9 * (1 + fabs(upper));
    b.win = (features & HS_MILP_USE_WINDOWS) != 0;
    b.cuts = (features & HS_MILP_USE_CUTS) != 0;
    b.sym = !relaxed && (features & HS_MILP_USE_SYMMETRY) != 0;
    b.allowed = calloc(n * m, 1);
    b.onmem = calloc(n * nm, 1);
    b.lo = malloc(n * sizeof *b.lo);
    b.hi = malloc(n * sizeof *b.hi);
    b.cx = calloc(n * m, sizeof *b.cx);
    b.cs = calloc(n, sizeof *b.cs);
    b.zcol = calloc(I->g->nedges * nm * nm + 1, sizeof *b.zcol);
    b.pair = calloc(relaxed ? 1 : n * n, sizeof *b.pair);
    if (hs__model_init(M, (int)(n * m + n), budget) != 0 || !b.allowed || !b.onmem || !b.lo || !b.hi ||
        !b.cx || !b.cs || !b.zcol || !b.pair) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the compact model");
        goto out;
    }
    M->upper = b.U;
    M->lower = b.cuts ? (lower < b.U ? lower : b.U) : 0;
    glp_set_prob_name(M->lp, "hetsched-compact");
    if (b.sym) {
        M->app_kernel = hs__symmetric_apps(I);
        M->dev_class = hs__device_classes(I);
        if (M->app_kernel)
            symmetry_pairs(&b);
    }
    windows(&b);
    /* columns */
    b.cmax = hs__col_add(M, HS__COL_CMAX, 0, 0, 0, GLP_CV, M->lower, b.U, "Cmax");
    glp_set_obj_coef(M->lp, b.cmax, 1);
    for (size_t t = 0; t < n; t++)
        for (int d = 0; d < b.m; d++)
            if (ALLOWED(&b, t, d))
                b.cx[t * m + (size_t)d] = hs__col_add(M, HS__COL_X, (int)t, d, 0,
                                                      relaxed ? GLP_CV : GLP_BV, 0, 1,
                                                      "x[%zu,%d]", t, d);
    for (size_t t = 0; t < n; t++)
        b.cs[t] = hs__col_add(M, HS__COL_S, (int)t, 0, 0, GLP_CV, b.lo[t], b.hi[t], "s[%zu]", t);
    edge_columns(&b);
    if (!relaxed)
        pair_columns(&b);
    /* rows */
    task_rows(&b);
    edge_rows(&b);
    if (!relaxed)
        pair_rows(&b);
    if (b.cuts)
        load_rows(&b, lower);
    if (b.sym)
        symmetry_rows(&b);
    if (M->failed)
        rc = hs__model_failure(M, "compact", err);
out:
    free(b.allowed);
    free(b.onmem);
    free(b.lo);
    free(b.hi);
    free(b.cx);
    free(b.cs);
    free(b.zcol);
    free(b.pair);
    return rc;
}
