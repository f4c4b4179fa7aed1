/* hetsched — the MIP of Zhou & Liu (ESWEEK 2014), Sec. 2.2, eq. (1-8),
 * made linear and extended to the inputs and outputs of DESIGN.md §1.
 *
 * Variables, as in the paper's Definition 2: p[t][q][g] = 1 when task t is
 * the g-th task run by device q (g = 1..N, N tasks in all), s[t] >= 0 its
 * start, Cmax the makespan.  Write X(t,q) = sum_g p[t][q][g]: 1 exactly when
 * t runs on q (a linear expression, no new variable).
 *
 * How the printed equations become the rows below:
 *   (1) sum_q sum_g p[t][q][g] = 1 for each t.  The paper sums over "q" twice;
 *       the inner sum is over positions g.
 *   (2) sum_t p[t][q][1] <= 1 for each q: at most one first task.
 *   (3) sum_t p[t][q][g] <= sum_t p[t][q][g-1] for g = 2..N: positions fill
 *       from the front.  Definition 2 bounds positions by n (applications);
 *       a device may run all N tasks, so g goes to N.  With (2), each
 *       position holds at most one task.
 *   (4) s[v] >= s[u] + sum_q C[u][q] X(u,q) + comm for each edge u -> v.
 *       Printed, comm = sum_{q,g,w,h} p[v][q][g] p[u][w][h] T_{q->w}: a
 *       product of binaries, and the transfer taken from the consumer's
 *       device to the producer's.  Summing the positions out, the products
 *       collapse to X(u,q) X(v,w) (each task has one position), and the data
 *       flows from u's device q to v's device w: comm = sum_{q,w} T(q,w)
 *       X(u,q) X(v,w).  Every T >= 0 and comm only pushes s[v] up, so each
 *       product may be replaced by a continuous w[e][q][w] >= 0 with
 *           w[e][q][w] >= X(u,q) + X(v,w) - 1,
 *       the lower half of the usual linearisation: at an optimum w takes
 *       max(0, X + X - 1), which is the product for 0/1 values.  Only pairs
 *       with T(q,w) > 0 need a w.
 *   (5) s[j] >= s[k] + C[k][q] - alpha (2 - p[k][q][g] - sum_{r>g} p[j][q][r])
 *       for every ordered pair k != j, device q and g = 1..N-1: when k is the
 *       g-th on q and j comes later on q, j starts after k ends.  (The text
 *       beneath names p[l][q][r] of the wrong task; the equation is right.)
 *       alpha must exceed every s[k] + C[k][q] - s[j] the row meets when
 *       switched off: with s >= 0, s[k] <= Cmax <= U (the incumbent) it is
 *       U + max C.
 *   (6) Cmax >= s[t] + sum_q (C[t][q] + out(t,q)) X(t,q): the printed row
 *       plus the output's way back to the host (DESIGN.md §1).
 *   (7) s[t] >= sum_q in(t,q) X(t,q): inputs leave host memory at time 0
 *       (the paper has only s >= 0).
 *   (8) p binary.
 * That much is the paper's model (with HS_MILP_USE_INCUMBENT alone: only
 * Cmax <= U is added), the baseline the compact model is measured against.
 * Even 8 tasks on 3 devices can keep it open for minutes, so by default it
 * gets the compact model's strengthening, written in its own variables:
 *   windows: no p for a (task, device) pair that cannot beat U; s[t] within
 *     [min head, max U - C - tail]; (6) and (7) with tails and heads; each
 *     alpha of (5) the largest s[k] + C[k][q] - s[j] the windows allow; (5)
 *     only for pairs the graph leaves unordered, the others kept in the
 *     graph's order on a shared device by position rows; and no position
 *     past the number of tasks device q can fit within U (its cheapest
 *     tasks, its least head and tail);
 *   cuts: Cmax >= the cheap bound; per device Cmax >= its load + the least
 *     head and tail (as in milp/compact.c);
 *   symmetry: s[k* of instance i] <= s[k* of instance i+1] (with (5), the
 *     positions on a shared device follow), and X(t, c_k) <= sum_{t'<t}
 *     X(t', c_{k-1}) over identical devices c_0, c_1, ...
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort_double.h>

#include "milp/milp_int.h"

/* Eq. (5) alone has N (N-1)^2 m rows. */
#define PAPER_MAX_ROWS 2000000.0

/* Symmetry rows over identical devices cover the first tasks only. */
#define DEVSYM_MAX_TASKS 200

typedef struct pbuild {
    hs__model *M;
    const hs__minst *I;
    size_t n, m;
    int win, cuts, sym;
    double U;
    unsigned char *allowed; /* [n*m] */
    double *lo, *hi;        /* [n] */
    size_t *npos;           /* [m] positions device q can fill within U */
    int *cp, *cs, cmax;
} pbuild;

#define P(b, t, q, gg) (b)->cp[((t) * (b)->m + (q)) * (b)->n + (gg)]
#define HEAD(b, t, q) ((b)->I->head[(t) * (b)->m + (q)])
#define TAIL(b, t, q) ((b)->I->tail[(t) * (b)->m + (q)])

/* Adds coef * X(t,q) = coef * sum_g p[t][q][g] to the row being built. */
static void term_x(pbuild *b, size_t t, size_t q, double coef)
{
    for (size_t gg = 0; gg < b->n; gg++)
        hs__row_term(b->M, P(b, t, q, gg), coef);
}

/* With windows, a device runs at most as many tasks as fit between its
 * least head and least tail within U, the cheapest first: positions past
 * that get no column. */
static void positions(pbuild *b)
{
    double *c = malloc(b->n * sizeof *c);
    for (size_t q = 0; q < b->m; q++) {
        size_t cnt = 0;
        double mh = HUGE_VAL, mt = HUGE_VAL, sum;
        b->npos[q] = b->n;
        if (!b->win || !c)
            continue;
        for (size_t t = 0; t < b->n; t++)
            if (b->allowed[t * b->m + q]) {
                c[cnt++] = hs__cost(b->I, t, (int)q);
                mh = fmin(mh, HEAD(b, t, q));
                mt = fmin(mt, TAIL(b, t, q));
            }
        gsl_sort(c, 1, cnt);
        sum = mh + mt;
        b->npos[q] = 0;
        for (size_t k = 0; k < cnt && (sum += c[k]) <= b->U; k++)
            b->npos[q] = k + 1;
    }
    free(c);
}

static void windows(pbuild *b)
{
    for (size_t t = 0; t < b->n; t++) {
        int any = 0;
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (size_t q = 0; q < b->m; q++) {
            double c = hs__cost(b->I, t, (int)q);
            b->allowed[t * b->m + q] = !b->win || HEAD(b, t, q) + c + TAIL(b, t, q) <= b->U;
            any |= b->allowed[t * b->m + q];
        }
        for (size_t q = 0; q < b->m; q++) {
            double c = hs__cost(b->I, t, (int)q);
            if (!any)
                b->allowed[t * b->m + q] = 1;
            if (!b->allowed[t * b->m + q])
                continue;
            if (HEAD(b, t, q) < lo)
                lo = HEAD(b, t, q);
            if (b->U - c - TAIL(b, t, q) > hi)
                hi = b->U - c - TAIL(b, t, q);
        }
        b->lo[t] = b->win ? lo : 0;
        b->hi[t] = b->win && hi > lo ? hi : b->win ? lo : b->U;
    }
    positions(b);
}

/* (5) for one ordered pair, device and position. */
static void eq5(pbuild *b, size_t k, size_t j, size_t q, size_t gg, double alpha)
{
    hs__row_term(b->M, b->cs[j], 1);
    hs__row_term(b->M, b->cs[k], -1);
    hs__row_term(b->M, P(b, k, q, gg), -alpha);
    for (size_t r = gg + 1; r < b->n; r++)
        hs__row_term(b->M, P(b, j, q, r), -alpha);
    hs__row_add(b->M, GLP_LO, hs__cost(b->I, k, (int)q) - 2 * alpha, 0, "eq5[%zu,%zu,%zu,%zu]",
                k, j, q, gg + 1);
}

static void symmetry_rows(pbuild *b)
{
    hs__instance_symmetry_rows(b->M, b->I->w, b->cs);
    for (size_t d = 0; b->M->dev_class && d < b->m; d++) {
        long prev = -1;
        if ((size_t)b->M->dev_class[d] == d)
            continue;
        for (long c = (long)d - 1; c >= 0 && prev < 0; c--)
            if (b->M->dev_class[c] == b->M->dev_class[d])
                prev = c;
        for (size_t t = 0; t < b->n && t < DEVSYM_MAX_TASKS; t++) {
            term_x(b, t, d, 1);
            for (size_t u = 0; u < t; u++)
                term_x(b, u, (size_t)prev, -1);
            hs__row_add(b->M, GLP_UP, 0, 0, "symd[%zu,%zu]", t, d);
        }
    }
}

int hs__build_paper(hs__model *M, const hs__minst *I, double upper, unsigned features,
                    const hs__budget *budget, hs_error *err)
{
    const hs_graph *g = I->g;
    size_t n = I->n, m = (size_t)I->m;
    double maxc = 0, alpha, lower = hs_lower_bound_us(I->w);
    double rows = (double)n * (double)(n - 1) * (double)(n - 1) * (double)m;
    int *cw = NULL;
    int rc = HS_OK;
    pbuild b = {0};
    if (rows > PAPER_MAX_ROWS)
        return hs_error_set(err, HS_EINPUT, "the paper formulation of %zu tasks on %zu devices "
                            "needs %.3g rows: too many (use the compact formulation)", n, m,
                            rows);
    b.M = M;
    b.I = I;
    b.n = n;
    b.m = m;
    b.U = upper + 1e-9 * (1 + fabs(upper));
    b.win = (features & HS_MILP_USE_WINDOWS) != 0;
    b.cuts = (features & HS_MILP_USE_CUTS) != 0;
    b.sym = (features & HS_MILP_USE_SYMMETRY) != 0;
    b.cp = calloc(n * m * n, sizeof *b.cp);
    b.cs = calloc(n, sizeof *b.cs);
    b.allowed = calloc(n * m, 1);
    b.lo = malloc(n * sizeof *b.lo);
    b.hi = malloc(n * sizeof *b.hi);
    b.npos = malloc(m * sizeof *b.npos);
    cw = calloc(g->nedges * m * m + 1, sizeof *cw);
    if (!b.cp || !b.cs || !b.allowed || !b.lo || !b.hi || !b.npos || !cw ||
        hs__model_init(M, (int)(n * m * n + n + 1), budget) != 0) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the paper model");
        goto out;
    }
    for (size_t t = 0; t < n; t++)
        for (size_t q = 0; q < m; q++)
            if (hs__cost(I, t, (int)q) > maxc)
                maxc = hs__cost(I, t, (int)q);
    alpha = b.U + maxc;
    M->upper = b.U;
    M->lower = b.cuts ? (lower < b.U ? lower : b.U) : 0;
    glp_set_prob_name(M->lp, "hetsched-paper");
    if (b.sym) {
        M->app_kernel = hs__symmetric_apps(I);
        M->dev_class = hs__device_classes(I);
    }
    windows(&b);
    /* columns */
    b.cmax = hs__col_add(M, HS__COL_CMAX, 0, 0, 0, GLP_CV, M->lower, b.U, "Cmax");
    glp_set_obj_coef(M->lp, b.cmax, 1);
    for (size_t t = 0; t < n; t++)
        for (size_t q = 0; q < m; q++)
            for (size_t gg = 0; b.allowed[t * m + q] && gg < b.npos[q]; gg++)
                P(&b, t, q, gg) = hs__col_add(M, HS__COL_P, (int)t, (int)q, (int)gg, GLP_BV, 0,
                                              1, "p[%zu,%zu,%zu]", t, q, gg + 1);
    for (size_t t = 0; t < n; t++)
        b.cs[t] = hs__col_add(M, HS__COL_S, (int)t, 0, 0, GLP_CV, b.lo[t], b.hi[t], "s[%zu]", t);
    for (size_t e = 0; e < g->nedges; e++)
        for (size_t q = 0; q < m; q++)
            for (size_t w = 0; w < m; w++)
                if (hs__edge_us(I, &g->edges[e], (int)q, (int)w) > 0 &&
                    b.allowed[g->edges[e].from * m + q] && b.allowed[g->edges[e].to * m + w])
                    cw[(e * m + q) * m + w] = hs__col_add(M, HS__COL_PY, (int)e, (int)q,
                                                          (int)w, GLP_CV, 0, HUGE_VAL,
                                                          "w[%zu,%zu,%zu]", e, q, w);
    /* (1) */
    for (size_t t = 0; t < n; t++) {
        for (size_t q = 0; q < m; q++)
            term_x(&b, t, q, 1);
        hs__row_add(M, GLP_FX, 1, 1, "eq1[%zu]", t);
    }
    /* (2), (3) */
    for (size_t q = 0; q < m; q++) {
        for (size_t t = 0; t < n; t++)
            hs__row_term(M, P(&b, t, q, 0), 1);
        hs__row_add(M, GLP_UP, 0, 1, "eq2[%zu]", q);
        for (size_t gg = 1; gg < b.npos[q]; gg++) {
            for (size_t t = 0; t < n; t++) {
                hs__row_term(M, P(&b, t, q, gg), 1);
                hs__row_term(M, P(&b, t, q, gg - 1), -1);
            }
            hs__row_add(M, GLP_UP, 0, 0, "eq3[%zu,%zu]", q, gg + 1);
        }
    }
    /* (4) and its linearisation */
    for (size_t e = 0; e < g->nedges; e++) {
        size_t u = g->edges[e].from, v = g->edges[e].to;
        hs__row_term(M, b.cs[v], 1);
        hs__row_term(M, b.cs[u], -1);
        for (size_t q = 0; q < m; q++)
            term_x(&b, u, q, -hs__cost(I, u, (int)q));
        for (size_t q = 0; q < m; q++)
            for (size_t w = 0; w < m; w++)
                hs__row_term(M, cw[(e * m + q) * m + w],
                             -hs__edge_us(I, &g->edges[e], (int)q, (int)w));
        hs__row_add(M, GLP_LO, 0, 0, "eq4[%zu]", e);
        for (size_t q = 0; q < m; q++)
            for (size_t w = 0; w < m; w++) {
                if (!cw[(e * m + q) * m + w])
                    continue;
                hs__row_term(M, cw[(e * m + q) * m + w], 1);
                term_x(&b, u, q, -1);
                term_x(&b, v, w, -1);
                hs__row_add(M, GLP_LO, -1, 0, "eq4w[%zu,%zu,%zu]", e, q, w);
            }
    }
    /* (5); with windows, only for pairs the graph leaves unordered (for a
     * path k -> j, (4) already starts j after k ends), and rows that keep
     * such a pair's positions in the graph's order instead:
     * p[j][q][g] + sum_{r>g} p[k][q][r] <= 1 */
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < n; j++)
            for (size_t q = 0; j != k && q < m; q++) {
                double a = alpha;
                if (!b.allowed[k * m + q] || !b.allowed[j * m + q])
                    continue;
                if (b.win && I->reach[k * n + j]) {
                    for (size_t gg = 0; gg + 1 < b.npos[q]; gg++) {
                        hs__row_term(M, P(&b, j, q, gg), 1);
                        for (size_t r = gg + 1; r < n; r++)
                            hs__row_term(M, P(&b, k, q, r), 1);
                        hs__row_add(M, GLP_UP, 0, 1, "order[%zu,%zu,%zu,%zu]", k, j, q, gg + 1);
                    }
                    continue;
                }
                if (b.win && I->reach[j * n + k])
                    continue;
                if (b.win && (a = b.hi[k] + hs__cost(I, k, (int)q) - b.lo[j]) <= 0)
                    continue; /* k always ends before j starts */
                for (size_t gg = 0; gg + 1 < b.npos[q]; gg++)
                    eq5(&b, k, j, q, gg, a);
            }
    /* (6), (7) */
    for (size_t t = 0; t < n; t++) {
        int any = 0;
        hs__row_term(M, b.cmax, 1);
        hs__row_term(M, b.cs[t], -1);
        for (size_t q = 0; q < m; q++)
            term_x(&b, t, q,
                   -(hs__cost(I, t, (int)q) + (b.win ? TAIL(&b, t, q) : I->out[t * m + q])));
        hs__row_add(M, GLP_LO, 0, 0, "eq6[%zu]", t);
        for (size_t q = 0; q < m; q++)
            any |= b.allowed[t * m + q] && (b.win ? HEAD(&b, t, q) : I->in[t * m + q]) > 0;
        if (!any)
            continue;
        hs__row_term(M, b.cs[t], 1);
        for (size_t q = 0; q < m; q++)
            term_x(&b, t, q, -(b.win ? HEAD(&b, t, q) : I->in[t * m + q]));
        hs__row_add(M, GLP_LO, 0, 0, "eq7[%zu]", t);
    }
    /* cuts: per-device load (see milp/compact.c for the constant) */
    for (size_t q = 0; b.cuts && q < m; q++) {
        double mh = HUGE_VAL, mt = HUGE_VAL, c;
        hs__row_term(M, b.cmax, 1);
        for (size_t t = 0; t < n; t++) {
            if (!b.allowed[t * m + q])
                continue;
            term_x(&b, t, q, -hs__cost(I, t, (int)q));
            mh = fmin(mh, HEAD(&b, t, q));
            mt = fmin(mt, TAIL(&b, t, q));
        }
        c = isfinite(mh + mt) && mh + mt < lower ? mh + mt : lower;
        hs__row_add(M, GLP_LO, isfinite(c) ? c : 0, 0, "load[%zu]", q);
    }
    if (b.sym)
        symmetry_rows(&b);
    if (M->failed)
        rc = hs__model_failure(M, "paper", err);
out:
    free(b.cp);
    free(b.cs);
    free(b.allowed);
    free(b.lo);
    free(b.hi);
    free(b.npos);
    free(cw);
    return rc;
}
