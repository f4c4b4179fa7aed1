/* hetsched — building GLPK models column by column and row by row, and
 * moving between schedules and column values (milp/milp_int.h).
 *
 * Every call here runs under the MILP lock (milp/solve.c).  GLPK aborts the
 * process on a bad argument (a repeated column in a row, a name over 255
 * characters, a NaN), so the row builder merges repeated columns and drops
 * zeros, and names are short and made of indices.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "milp/milp_int.h"

/* Rows or columns between two looks at the budget: each costs microseconds. */
#define BUDGET_STEP 1024

/* Sets m->failed and m->out_of_time when the budget is spent, looked at
 * when `count` (of rows or columns so far) is a multiple of BUDGET_STEP. */
static int out_of_budget(hs__model *m, int count)
{
    if (m->budget && count % BUDGET_STEP == 0 && hs__budget_spent(m->budget))
        m->failed = m->out_of_time = 1;
    return m->out_of_time;
}

int hs__model_init(hs__model *m, int ncols_hint, const hs__budget *budget)
{
    memset(m, 0, sizeof *m);
    m->budget = budget;
    if (!(m->lp = glp_create_prob()))
        return -1;
    glp_set_obj_dir(m->lp, GLP_MIN);
    m->colcap = ncols_hint > 16 ? ncols_hint : 16;
    m->cols = malloc(((size_t)m->colcap + 1) * sizeof *m->cols);
    return m->cols ? 0 : -1;
}

int hs__model_failure(const hs__model *m, const char *what, hs_error *err)
{
    if (m->out_of_time)
        return hs_error_set(err, HS_EINPUT, "building the %s model took all the time left",
                            what);
    return hs_error_set(err, HS_ENOMEM, "out of memory building the %s model", what);
}

void hs__model_free(hs__model *m)
{
    if (m->lp)
        glp_delete_prob(m->lp);
    free(m->cols);
    free(m->app_kernel);
    free(m->dev_class);
    free(m->ind);
    free(m->val);
    free(m->pos);
    memset(m, 0, sizeof *m);
}

int hs__col_add(hs__model *m, int kind, int a, int b, int c, int type, double lb, double ub,
                const char *name_fmt, ...)
{
    char name[64];
    va_list ap;
    int j;
    if (m->failed)
        return 0;
    if (m->pos || !isfinite(lb) || isnan(ub)) {
        m->failed = 1; /* rows have started (every column comes first), or a bug */
        return 0;
    }
    if (out_of_budget(m, m->ncols))
        return 0;
    if (m->ncols + 1 > m->colcap) {
        hs__colinfo *p = realloc(m->cols, ((size_t)m->colcap * 2 + 1) * sizeof *p);
        if (!p) {
            m->failed = 1;
            return 0;
        }
        m->cols = p;
        m->colcap *= 2;
    }
    va_start(ap, name_fmt);
    vsnprintf(name, sizeof name, name_fmt, ap);
    va_end(ap);
    j = glp_add_cols(m->lp, 1);
    glp_set_col_name(m->lp, j, name);
    if (type == GLP_BV) {
        glp_set_col_kind(m->lp, j, GLP_BV);
        m->nbin++;
    } else {
        glp_set_col_kind(m->lp, j, GLP_CV);
        if (ub <= lb)
            glp_set_col_bnds(m->lp, j, GLP_FX, lb, lb);
        else if (isinf(ub))
            glp_set_col_bnds(m->lp, j, GLP_LO, lb, 0);
        else
            glp_set_col_bnds(m->lp, j, GLP_DB, lb, ub);
    }
    m->cols[j] = (hs__colinfo){.kind = (unsigned char)kind, .a = a, .b = b, .c = c};
    m->ncols = j;
    return j;
}

/* Makes room for a row of every column, once: rows come after all columns,
 * and a row holds each column at most once. */
static int row_room(hs__model *m)
{
    if (m->pos)
        return 0;
    m->pos = malloc(((size_t)m->ncols + 1) * sizeof *m->pos);
    m->ind = malloc(((size_t)m->ncols + 1) * sizeof *m->ind);
    m->val = malloc(((size_t)m->ncols + 1) * sizeof *m->val);
    if (!m->pos || !m->ind || !m->val) {
        free(m->pos);
        m->pos = NULL;
        m->failed = 1;
        return -1;
    }
    for (int j = 0; j <= m->ncols; j++)
        m->pos[j] = -1;
    m->len = 0;
    return 0;
}

void hs__row_term(hs__model *m, int col, double coef)
{
    if (col <= 0 || col > m->ncols || coef == 0 || !isfinite(coef) || row_room(m) != 0) {
        if (col > m->ncols || !isfinite(coef))
            m->failed = 1; /* a builder bug: refuse the model rather than abort */
        return;
    }
    if (m->pos[col] >= 0) {
        m->val[m->pos[col]] += coef;
        return;
    }
    m->len++;
    m->ind[m->len] = col;
    m->val[m->len] = coef;
    m->pos[col] = m->len;
}

int hs__row_add(hs__model *m, int type, double lb, double ub, const char *name_fmt, ...)
{
    char name[64];
    va_list ap;
    int i, len = 0;
    if (m->failed || out_of_budget(m, m->nrows))
        return -1;
    if (row_room(m) != 0 || (type != GLP_UP && !isfinite(lb)) ||
        ((type == GLP_UP || type == GLP_DB) && !isfinite(ub))) {
        m->failed = 1;
        return -1;
    }
    /* drop terms that cancelled out; reset the positions for the next row */
    for (int k = 1; k <= m->len; k++) {
        m->pos[m->ind[k]] = -1;
        if (m->val[k] != 0) {
            len++;
            m->ind[len] = m->ind[k];
            m->val[len] = m->val[k];
        }
    }
    m->len = 0;
    if (len == 0)
        return 0;
    va_start(ap, name_fmt);
    vsnprintf(name, sizeof name, name_fmt, ap);
    va_end(ap);
    i = glp_add_rows(m->lp, 1);
    glp_set_row_name(m->lp, i, name);
    glp_set_row_bnds(m->lp, i, type, lb, ub);
    glp_set_mat_row(m->lp, i, len, m->ind, m->val);
    m->nrows = i;
    return i;
}

/* ------------------------------------------------- schedules and columns */

/* Rank of every task among those on its device, in the schedule's order. */
static void positions(const hs__minst *I, const hs__sched *s, int *pos_on_dev, size_t *pos)
{
    int *count = calloc((size_t)I->m, sizeof *count);
    for (size_t k = 0; k < I->n; k++) {
        size_t t = s->order[k];
        pos[t] = k;
        pos_on_dev[t] = count ? count[s->dev[t]]++ : 0;
    }
    free(count);
}

void hs__model_point(const hs__model *m, const hs__minst *I, const hs__sched *s, double *x)
{
    const hs_platform *p = &I->w->platform;
    int *pd = malloc(I->n * sizeof *pd);
    size_t *pos = malloc(I->n * sizeof *pos);
    if (!pd || !pos) {
        free(pd);
        free(pos);
        memset(x, 0, ((size_t)m->ncols + 1) * sizeof *x);
        return;
    }
    positions(I, s, pd, pos);
    for (int j = 1; j <= m->ncols; j++) {
        const hs__colinfo *c = &m->cols[j];
        const hs_edge *e = (c->kind == HS__COL_Z || c->kind == HS__COL_PY)
                               ? &I->g->edges[c->a] : NULL;
        switch (c->kind) {
        case HS__COL_CMAX: x[j] = s->makespan; break;
        case HS__COL_X: x[j] = s->dev[c->a] == c->b; break;
        case HS__COL_S: x[j] = s->start[c->a]; break;
        case HS__COL_Y: x[j] = pos[c->a] < pos[c->b]; break;
        case HS__COL_Z:
            x[j] = p->devices[s->dev[e->from]].memory == c->b &&
                   p->devices[s->dev[e->to]].memory == c->c;
            break;
        case HS__COL_P: x[j] = s->dev[c->a] == c->b && pd[c->a] == c->c; break;
        case HS__COL_PY: x[j] = s->dev[e->from] == c->b && s->dev[e->to] == c->c; break;
        default: x[j] = 0;
        }
    }
    free(pd);
    free(pos);
}

static int violates(double v, int type, double lb, double ub)
{
    double tl = 1e-6 + 1e-9 * fabs(lb), tu = 1e-6 + 1e-9 * fabs(ub);
    switch (type) {
    case GLP_LO: return v < lb - tl;
    case GLP_UP: return v > ub + tu;
    case GLP_DB:
    case GLP_FX: return v < lb - tl || v > ub + tu;
    default: return 0;
    }
}

const char *hs__model_check(const hs__model *m, const double *x, char *buf, size_t size)
{
    int *ind = malloc(((size_t)m->ncols + 1) * sizeof *ind);
    double *val = malloc(((size_t)m->ncols + 1) * sizeof *val);
    const char *bad = NULL;
    if (!ind || !val) {
        snprintf(buf, size, "(out of memory)");
        bad = buf;
        goto out;
    }
    for (int j = 1; j <= m->ncols && !bad; j++) {
        int type = glp_get_col_kind(m->lp, j) == GLP_BV ? GLP_DB : glp_get_col_type(m->lp, j);
        double lb = glp_get_col_lb(m->lp, j), ub = glp_get_col_ub(m->lp, j);
        if (glp_get_col_kind(m->lp, j) == GLP_BV) {
            lb = 0;
            ub = 1;
        }
        if (violates(x[j], type, lb, ub)) {
            snprintf(buf, size, "column %s = %g", glp_get_col_name(m->lp, j), x[j]);
            bad = buf;
        }
    }
    for (int i = 1; i <= m->nrows && !bad; i++) {
        int len = glp_get_mat_row(m->lp, i, ind, val);
        double act = 0;
        for (int k = 1; k <= len; k++)
            act += val[k] * x[ind[k]];
        if (violates(act, glp_get_row_type(m->lp, i), glp_get_row_lb(m->lp, i),
                     glp_get_row_ub(m->lp, i))) {
            snprintf(buf, size, "row %s = %g (bounds %g, %g)", glp_get_row_name(m->lp, i), act,
                     glp_get_row_lb(m->lp, i), glp_get_row_ub(m->lp, i));
            bad = buf;
        }
    }
out:
    free(ind);
    free(val);
    return bad;
}

void hs__model_extract(const hs__model *m, const hs__minst *I, const double *x, hs__sched *s)
{
    double *best = malloc(I->n * sizeof *best);
    for (size_t t = 0; t < I->n; t++) {
        s->dev[t] = 0;
        s->start[t] = 0;
        if (best)
            best[t] = -1;
    }
    for (int j = 1; j <= m->ncols; j++) {
        const hs__colinfo *c = &m->cols[j];
        if (c->kind == HS__COL_S)
            s->start[c->a] = x[j];
        else if ((c->kind == HS__COL_X || c->kind == HS__COL_P) && best &&
                 x[j] > best[c->a]) {
            best[c->a] = x[j];
            s->dev[c->a] = c->b;
        }
    }
    free(best);
    hs__order_by_start(I, s->dev, s->start, s->order);
    s->makespan = hs__eval(I, s->dev, s->order, s->start);
}

void hs__instance_symmetry_rows(hs__model *M, const hs_workload *w, const int *cs)
{
    size_t first = 0;
    for (int a = 0; M->app_kernel && a < w->napps; a++) {
        size_t K = (size_t)w->apps[a].nkernels, NI = (size_t)w->apps[a].instances;
        int k = M->app_kernel[a];
        for (size_t i = 0; k >= 0 && i + 1 < NI; i++) {
            hs__row_term(M, cs[first + (i + 1) * K + (size_t)k], 1);
            hs__row_term(M, cs[first + i * K + (size_t)k], -1);
            hs__row_add(M, GLP_LO, 0, 0, "symi[%d,%zu]", a, i);
        }
        first += NI * K;
    }
}
