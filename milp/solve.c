/* hetsched — solving the MILP: incumbent, GLPK's branch and bound with a
 * callback (heuristic solution, best bound, progress, early stop), CBC, and
 * the optimal schedule (include/hetsched/milp.h).
 *
 * The process-wide GLPK lock (milp/glpk_lock.h) is held from building the
 * model to reading the solution: GLPK is documented for one thread at a
 * time, and the error hook below longjmps out of it through one static
 * jump buffer.  The heuristics before run outside it (they may map with
 * policies, which may take the lock themselves).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hs_config.h"
#include "milp/glpk_lock.h"
#include "milp/milp_int.h"

#if HS_HAVE_CBC
#include "milp/cbc.h"
#endif

static jmp_buf glpk_abort; /* only touched under hs__glpk_lock */

void hs_milp_options_init(hs_milp_options *o)
{
    memset(o, 0, sizeof *o);
    o->formulation = HS_MILP_COMPACT;
    o->solver = HS_MILP_GLPK;
    o->time_limit_s = 60;
    o->rel_gap = 1e-6;
    o->progress = -1;
    o->features = HS_MILP_USE_ALL;
}

const char *hs_milp_status_name(hs_milp_status s)
{
    switch (s) {
    case HS_MILP_OPTIMAL: return "optimal";
    case HS_MILP_FEASIBLE: return "feasible";
    case HS_MILP_INFEASIBLE: return "infeasible";
    case HS_MILP_NO_SOLUTION: return "no solution within the time limit";
    }
    return "unknown";
}

void hs_milp_result_free(hs_milp_result *res)
{
    if (!res)
        return;
    hs_schedule_free(res->schedule);
    res->schedule = NULL;
}

double hs__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void (*hs__milp_node_hook)(volatile sig_atomic_t *stop);

int hs__budget_spent(const hs__budget *b)
{
    return (b->stop && *b->stop) || hs__now_s() >= b->deadline;
}

/* The heuristics may spend this share of the time limit improving their
 * schedules; the model and the search get the rest. */
#define HEURISTIC_SHARE 0.25
/* glp_simplex runs in slices of this many iterations, the stop flag read
 * between them (a large relaxation takes minutes). */
#define SIMPLEX_SLICE 2000
/* A node's rounded schedule gets local search when it is within this
 * fraction of the best. */
#define NODE_SEARCH_WITHIN 0.02
/* Nonzeros up to which the model gets GLPK's full scaling. */
#define SCALE_GM_NONZEROS 100000

/* Relative tolerance under which a bound proves a makespan optimal. */
#define OPT_TOL 1e-6

static int proves(double bound, double makespan)
{
    return bound >= makespan - OPT_TOL * fabs(makespan) - 1e-9;
}

/* ------------------------------------------------------------- the search */

typedef struct search {
    const hs__minst *I;
    hs__model M;
    const hs_milp_options *o;
    double *start_x;      /* the incumbent as column values, or NULL */
    int injected;
    double t0, deadline, last_print;
    hs__budget budget;    /* the deadline and the caller's stop flag */
    double bound;         /* best proven lower bound so far */
    double incumbent;     /* best makespan known (heuristic or solver) */
    double root;          /* LP relaxation at the root */
    double nodes;
    int progress, printed, proven, stopped_early;
    int interrupted;      /* o->stop was seen set */
    int own_env, env_gone; /* this call made GLPK's environment; it is freed */
    char not_built[256];  /* why the MILP was not built ("" when it was) */
    hs__sched best;       /* best schedule so far */
    hs__sched cand;
    /* node bounds (bound_below), NULL when out of memory: */
    unsigned char *allowed; /* [n*m] devices a node leaves open */
    int *fixed;           /* [n] the device a node fixes, or -1 */
    double *scratch;      /* hs__restricted_bound's scratch */
    double *lb, *ub;      /* [ncols] a node's column bounds */
    int cmax_col;         /* the makespan's column */
    double node_cuts;     /* node bounds that raised a node's LP value */
} search;

/* 1 (and S->interrupted set) when the caller asked the search to stop. */
static int stop_asked(search *S)
{
    if (S->o->stop && *S->o->stop)
        S->interrupted = 1;
    return S->interrupted;
}

static void progress_line(search *S, int final)
{
    double gap = isfinite(S->incumbent) && S->incumbent > 0
                     ? (S->incumbent - S->bound) / S->incumbent : HUGE_VAL;
    if (!S->progress)
        return;
    if (final) {
        if (S->printed)
            fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[K%6.0f s  incumbent %.6g us  bound %.6g us  gap %.3g%%  nodes %.0f",
            hs__now_s() - S->t0, S->incumbent, S->bound, 100 * gap, S->nodes);
    fflush(stderr);
    S->printed = 1;
}

/* Global bound of the tree: the smallest local bound among the active
 * nodes and the current one (whose own LP may not be solved yet). */
static void record_bound(search *S, glp_tree *T)
{
    int p = glp_ios_best_node(T), c = glp_ios_curr_node(T), a, n, t;
    double b = HUGE_VAL;
    if (p)
        b = glp_ios_node_bound(T, p);
    if (c && glp_ios_node_bound(T, c) < b)
        b = glp_ios_node_bound(T, c);
    if (isfinite(b) && b > S->bound)
        S->bound = b;
    glp_ios_tree_size(T, &a, &n, &t);
    S->nodes = t;
}

/* Room for bound_below; without it (out of memory) the search goes on
 * without node bounds. */
static void node_bounds_alloc(search *S)
{
    size_t n = S->I->n, m = (size_t)S->I->m, nc = (size_t)S->M.ncols + 1;
    S->allowed = malloc(n * m);
    S->fixed = malloc(n * sizeof *S->fixed);
    S->scratch = malloc((2 * n * m + 4 * n) * sizeof *S->scratch);
    S->lb = malloc(nc * sizeof *S->lb);
    S->ub = malloc(nc * sizeof *S->ub);
    for (int j = 1; j <= S->M.ncols; j++)
        if (S->M.cols[j].kind == HS__COL_CMAX)
            S->cmax_col = j;
    if (!S->allowed || !S->fixed || !S->scratch || !S->lb || !S->ub) {
        free(S->allowed);
        S->allowed = NULL;
    }
}

static void node_bounds_free(search *S)
{
    free(S->allowed);
    free(S->fixed);
    free(S->scratch);
    free(S->lb);
    free(S->ub);
    S->allowed = NULL;
    S->fixed = NULL;
    S->scratch = NULL;
    S->lb = S->ub = NULL;
}

/* The bound of hs__restricted_bound on the schedules below a search node
 * whose columns j + 1 have bounds lb[j], ub[j]: an assignment (or position)
 * column fixed at 1 leaves its task that device, one fixed at 0 takes the
 * device away.  0 when some task has no device left (the node's LP is
 * infeasible anyway). */
static double bound_below(search *S, const double *lb, const double *ub)
{
    const hs__model *M = &S->M;
    size_t n = S->I->n, m = (size_t)S->I->m;
    memset(S->allowed, 0, n * m);
    for (size_t t = 0; t < n; t++)
        S->fixed[t] = -1;
    for (int j = 1; j <= M->ncols; j++) {
        const hs__colinfo *c = &M->cols[j];
        if (c->kind != HS__COL_X && c->kind != HS__COL_P)
            continue;
        if (lb[j - 1] > 0.5)
            S->fixed[c->a] = c->b;
        else if (ub[j - 1] > 0.5)
            S->allowed[(size_t)c->a * m + (size_t)c->b] = 1;
    }
    for (size_t t = 0; t < n; t++) {
        unsigned char *a = &S->allowed[t * m], any = 0;
        if (S->fixed[t] >= 0) {
            memset(a, 0, m);
            a[S->fixed[t]] = 1;
        }
        for (size_t d = 0; d < m; d++)
            any |= a[d];
        if (!any)
            return 0;
    }
    return hs__restricted_bound(S->I, S->allowed, S->scratch);
}

/* At a node of GLPK's search: where bound_below beats the node's LP value,
 * the row Cmax >= bound, which GLPK keeps for this node and those below it
 * only (rows added for GLP_IROWGEN are local). */
static void node_bound(search *S, glp_tree *T)
{
    glp_prob *lp = glp_ios_get_prob(T);
    double obj = glp_get_obj_val(lp), b;
    for (int j = 1; j <= S->M.ncols; j++) {
        S->lb[j - 1] = glp_get_col_lb(lp, j);
        S->ub[j - 1] = glp_get_col_ub(lp, j);
    }
    b = bound_below(S, S->lb, S->ub);
    if (b > obj + 1e-7 * (1 + fabs(obj))) {
        int i = glp_add_rows(lp, 1), ind[2] = {0, S->cmax_col};
        double val[2] = {0, 1};
        glp_set_mat_row(lp, i, 1, ind, val);
        glp_set_row_bnds(lp, i, GLP_LO, b, 0);
        S->node_cuts++;
    }
}

/* Branching of the compact model: on the assignment of the earliest task
 * in topological order whose assignment is fractional, first up on the
 * device its LP value favours.  Once a task's predecessors are placed its
 * head is exact, and bound_below prunes; GLPK's own choice (the
 * Driebeck-Tomlin rule) proved one of milp_bench's five instances of 20
 * tasks in 20 s of CPU, this all five in a median of 2 s.  Ordering
 * binaries are left to GLPK. */
static void branch(search *S, glp_tree *T)
{
    glp_prob *lp = glp_ios_get_prob(T);
    const hs__model *M = &S->M;
    size_t best_rank = (size_t)-1;
    double best_val = -1;
    int best = 0;
    for (int j = 1; j <= M->ncols; j++) {
        const hs__colinfo *c = &M->cols[j];
        size_t r;
        double v;
        if (c->kind != HS__COL_X || !glp_ios_can_branch(T, j))
            continue;
        r = S->I->rank[c->a];
        v = glp_get_col_prim(lp, j);
        if (r < best_rank || (r == best_rank && v > best_val)) {
            best = j;
            best_rank = r;
            best_val = v;
        }
    }
    if (best)
        glp_ios_branch_upon(T, best, GLP_UP_BRNCH);
}

/* A primal heuristic at a node of GLPK's search: each task on the device
 * its LP assignment favours, in the order of its LP start (append
 * scheduling), improved by local search when it comes within
 * NODE_SEARCH_WITHIN of the best; a better schedule becomes the incumbent,
 * GLPK's too.  The LP solutions of deep nodes are nearly schedules. */
static void node_heuristic(search *S, glp_tree *T)
{
    glp_prob *lp = glp_ios_get_prob(T);
    const hs__model *M = &S->M;
    hs__sched *c = &S->cand;
    size_t n = S->I->n, m = (size_t)S->I->m;
    double *weight = S->scratch, *x = S->ub;
    memset(weight, 0, n * m * sizeof *weight);
    for (int j = 1; j <= M->ncols; j++) {
        const hs__colinfo *col = &M->cols[j];
        if (col->kind == HS__COL_X || col->kind == HS__COL_P)
            weight[(size_t)col->a * m + (size_t)col->b] += glp_get_col_prim(lp, j);
        else if (col->kind == HS__COL_S)
            c->start[col->a] = glp_get_col_prim(lp, j);
    }
    for (size_t t = 0; t < n; t++) {
        c->dev[t] = 0;
        for (size_t d = 1; d < m; d++)
            if (weight[t * m + d] > weight[t * m + (size_t)c->dev[t]])
                c->dev[t] = (int)d;
    }
    hs__order_by_start(S->I, c->dev, c->start, c->order);
    c->makespan = hs__eval(S->I, c->dev, c->order, c->start);
    if (!(c->makespan < S->best.makespan * (1 + NODE_SEARCH_WITHIN)))
        return;
    hs__improve(S->I, &S->budget, c);
    if (!(c->makespan < S->best.makespan - 1e-9 * (1 + S->best.makespan)))
        return;
    snprintf(c->from, sizeof c->from, "milp");
    hs__sched_copy(&S->best, c, n);
    if (S->best.makespan < S->incumbent)
        S->incumbent = S->best.makespan;
    hs__canon(M, S->I, c); /* the labels the symmetry rows want */
    hs__model_point(M, S->I, c, x);
    glp_ios_heur_sol(T, x);
}

static void glpk_callback(glp_tree *T, void *info)
{
    search *S = info;
    glp_prob *lp = glp_ios_get_prob(T);
    double now = hs__now_s();
    if (hs__milp_node_hook && S->o->stop)
        hs__milp_node_hook(S->o->stop);
    if (glp_ios_reason(T) == GLP_IBRANCH && S->allowed)
        branch(S, T);
    if (glp_ios_reason(T) == GLP_IROWGEN && S->allowed && S->cmax_col)
        node_bound(S, T);
    record_bound(S, T);
    if (glp_ios_reason(T) == GLP_IHEUR && S->start_x && !S->injected) {
        S->injected = 1;
        glp_ios_heur_sol(T, S->start_x);
    } else if (glp_ios_reason(T) == GLP_IHEUR && S->allowed) {
        node_heuristic(S, T);
    }
    if (glp_mip_status(lp) == GLP_FEAS && glp_mip_obj_val(lp) < S->incumbent)
        S->incumbent = glp_mip_obj_val(lp);
    if (proves(S->bound, S->incumbent) && glp_mip_status(lp) == GLP_FEAS) {
        S->stopped_early = 1;
        glp_ios_terminate(T);
    } else if (now >= S->deadline || stop_asked(S)) {
        glp_ios_terminate(T);
    }
    if (S->progress && now - S->last_print >= 1.0) {
        S->last_print = now;
        progress_line(S, 0);
    }
}

/* Takes a solver's column values as a schedule when it beats the best. */
static void take_solution(search *S, const double *x)
{
    hs__model_extract(&S->M, S->I, x, &S->cand);
    snprintf(S->cand.from, sizeof S->cand.from, "milp");
    if (S->cand.makespan < S->best.makespan)
        hs__sched_copy(&S->best, &S->cand, S->I->n);
    if (S->best.makespan < S->incumbent)
        S->incumbent = S->best.makespan;
}

static double remaining_s(const search *S)
{
    double r = S->deadline - hs__now_s();
    return r > 0.001 ? r : 0.001;
}

/* GLPK's time limits are ints of milliseconds. */
static int remaining_ms(const search *S)
{
    double ms = remaining_s(S) * 1000;
    return ms < INT_MAX ? (int)ms : INT_MAX;
}

/* glp_simplex on S->M.lp in slices of SIMPLEX_SLICE iterations, so that a
 * stop asked for is seen within one slice.  glp_simplex's code of the last
 * slice, or GLP_ESTOP when stopped. */
static int simplex_sliced(search *S, glp_smcp *sp)
{
    int rc;
    sp->it_lim = SIMPLEX_SLICE;
    do {
        if (stop_asked(S))
            return GLP_ESTOP;
        sp->tm_lim = remaining_ms(S);
        rc = glp_simplex(S->M.lp, sp);
    } while (rc == GLP_EITLIM);
    return rc;
}

/* The LP relaxation of S->M.lp, scaled; its value into S->root and S->bound.
 * 0 when solved to optimality, else -1 (time out, stop, numerical trouble:
 * the verbose output says which). */
static int solve_relaxation(search *S)
{
    glp_prob *lp = S->M.lp;
    glp_smcp sp;
    int rc;
    glp_init_smcp(&sp);
    sp.msg_lev = S->o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
    sp.presolve = GLP_OFF;
    if (hs__budget_spent(&S->budget)) {
        stop_asked(S);
        return -1;
    }
    /* big-M rows mix coefficients of 1 and of the makespan: scale them.
     * Geometric-mean scaling iterates over the matrix (a second for 500k
     * nonzeros); beyond SCALE_GM_NONZEROS one pass of equilibration. */
    glp_scale_prob(lp, glp_get_num_nz(lp) <= SCALE_GM_NONZEROS ? GLP_SF_AUTO
                                                               : GLP_SF_EQ | GLP_SF_2N);
    /* from a triangular basis, dual simplex first: on the relaxation of 1100
     * random tasks the primal simplex from the slack basis was still in its
     * first phase after 15 s, these two together took 2 s */
    glp_adv_basis(lp, 0);
    sp.meth = GLP_DUALP;
    rc = simplex_sliced(S, &sp);
    if (rc == GLP_ETMLIM || rc == GLP_ESTOP)
        return -1; /* no time left even for the relaxation, or stopped */
    if (rc != 0 || glp_get_status(lp) != GLP_OPT) {
        /* the incumbent satisfies every row, so this is numerical trouble */
        if (S->o->verbose)
            printf("hetsched: the LP relaxation failed (glp_simplex %d, status %d)\n", rc,
                   glp_get_status(lp));
        return -1;
    }
    S->root = glp_get_obj_val(lp);
    if (S->root > S->bound)
        S->bound = S->root;
    return 0;
}

static int solve_glpk(search *S, hs_error *err)
{
    glp_prob *lp = S->M.lp;
    glp_iocp ip;
    int rc, st;
    double *x;
    if (solve_relaxation(S) != 0)
        return HS_OK;
    if (proves(S->bound, S->incumbent)) {
        S->proven = 1;
        return HS_OK;
    }
    glp_init_iocp(&ip);
    ip.msg_lev = S->o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
    ip.presolve = GLP_OFF; /* the injected solution is in the model's columns */
    ip.cb_func = glpk_callback;
    ip.cb_info = S;
    ip.tm_lim = remaining_ms(S);
    ip.mip_gap = S->o->rel_gap;
    ip.tol_int = 1e-9; /* big-M rows turn 1e-5 of slack into whole µs */
    ip.br_tech = GLP_BR_DTH;
    ip.bt_tech = GLP_BT_BLB;
    if (S->o->formulation == HS_MILP_PAPER) {
        /* clique cuts on the position rows and branching on the last
         * fractional variable (a late position) took the paper model from
         * 72 s to 24 s on 60 random instances of 8 tasks (tests/test_milp.c
         * generator); the compact model closes those at the root either way */
        ip.clq_cuts = GLP_ON;
        ip.br_tech = GLP_BR_LFV;
    }
    if (S->o->features & HS_MILP_USE_SEARCH)
        node_bounds_alloc(S);
    rc = glp_intopt(lp, &ip);
    node_bounds_free(S);
    if (S->o->verbose)
        printf("hetsched: %.0f node bounds above the LP\n", S->node_cuts);
    st = glp_mip_status(lp);
    if (st == GLP_OPT || st == GLP_FEAS) {
        if (!(x = malloc(((size_t)S->M.ncols + 1) * sizeof *x)))
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        for (int j = 1; j <= S->M.ncols; j++)
            x[j] = glp_mip_col_val(lp, j);
        take_solution(S, x);
        free(x);
    }
    /* a finished search proves its incumbent optimal (NOFEAS: none beats
     * the heuristic's bound, so the heuristic is) */
    if ((rc == 0 && (st == GLP_OPT || st == GLP_NOFEAS)) || S->stopped_early)
        S->proven = 1;
    else if (S->o->verbose && rc != GLP_ETMLIM && rc != GLP_ESTOP && rc != GLP_EMIPGAP)
        printf("hetsched: glp_intopt stopped with code %d\n", rc);
    return HS_OK;
}

#if HS_HAVE_CBC
static double cbc_node_bound(void *ctx, const double *lb, const double *ub)
{
    const search *S = ctx;
    if (hs__milp_node_hook && S->o->stop)
        hs__milp_node_hook(S->o->stop);
    return bound_below(ctx, lb, ub);
}

/* The GLPK model, copied column by column into CBC (no file in between),
 * searched in the order and with the node bounds of the GLPK search. */
static int solve_cbc(search *S, hs_error *err)
{
    glp_prob *lp = S->M.lp;
    int nc = S->M.ncols, nr = S->M.nrows, nnz = glp_get_num_nz(lp), k = 0;
    size_t c1 = (size_t)nc + 1, r1 = (size_t)nr + 1, z1 = (size_t)nnz + 1;
    int *start = malloc(c1 * sizeof *start), *index = malloc(z1 * sizeof *index);
    int *ind = malloc(r1 * sizeof *ind);
    double *value = malloc(z1 * sizeof *value), *val = malloc(r1 * sizeof *val);
    double *clb = malloc(c1 * sizeof *clb), *cub = malloc(c1 * sizeof *cub);
    double *obj = malloc(c1 * sizeof *obj), *x = malloc(c1 * sizeof *x);
    double *rlb = malloc(r1 * sizeof *rlb), *rub = malloc(r1 * sizeof *rub);
    unsigned char *integer = malloc(c1);
    hs__cbc_answer ans;
    int rc = HS_OK;
    if (!start || !index || !ind || !value || !val || !clb || !cub || !obj || !x || !rlb ||
        !rub || !integer) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the CBC model");
        goto out;
    }
    for (int j = 1; j <= nc; j++) {
        int len = glp_get_mat_col(lp, j, ind, val), type = glp_get_col_type(lp, j);
        start[j - 1] = k;
        for (int q = 1; q <= len; q++, k++) {
            index[k] = ind[q] - 1;
            value[k] = val[q];
        }
        clb[j - 1] = type == GLP_FR || type == GLP_UP ? -DBL_MAX : glp_get_col_lb(lp, j);
        cub[j - 1] = type == GLP_FR || type == GLP_LO ? DBL_MAX : glp_get_col_ub(lp, j);
        obj[j - 1] = glp_get_obj_coef(lp, j);
        integer[j - 1] = glp_get_col_kind(lp, j) != GLP_CV;
    }
    start[nc] = k;
    for (int i = 1; i <= nr; i++) {
        int type = glp_get_row_type(lp, i);
        rlb[i - 1] = type == GLP_FR || type == GLP_UP ? -DBL_MAX : glp_get_row_lb(lp, i);
        rub[i - 1] = type == GLP_FR || type == GLP_LO ? DBL_MAX : glp_get_row_ub(lp, i);
    }
    if (S->o->features & HS_MILP_USE_SEARCH)
        node_bounds_alloc(S);
    {
        hs__cbc_problem p = {.ncols = nc, .nrows = nr, .start = start, .index = index,
                             .value = value, .collb = clb, .colub = cub, .obj = obj,
                             .rowlb = rlb, .rowub = rub, .integer = integer,
                             .mip_start = S->start_x ? S->start_x + 1 : NULL,
                             .objective_col = S->cmax_col - 1,
                             .node_bound = S->allowed && S->cmax_col ? cbc_node_bound : NULL,
                             .node_ctx = S, .seconds = remaining_s(S),
                             .rel_gap = S->o->rel_gap, .verbose = S->o->verbose,
                             .stop = S->o->stop};
        if (stop_asked(S))
            goto out;
        S->injected = S->start_x != NULL;
        if (hs__cbc_solve(&p, &ans, x) != 0) {
            rc = hs_error_set(err, HS_ESOLVER, "CBC failed (out of memory, or an internal "
                              "error: run with verbose output to see its log)");
            goto out;
        }
    }
    S->nodes = ans.nodes;
    S->interrupted |= ans.interrupted;
    if (ans.bound > S->bound && ans.bound < 1e300)
        S->bound = ans.bound;
    if (ans.has_solution) {
        memmove(x + 1, x, (size_t)nc * sizeof *x); /* 1-based, as GLPK's columns */
        take_solution(S, x);
    }
    if (ans.proven_optimal || ans.proven_infeasible)
        S->proven = 1; /* infeasible: nothing beats the heuristic's bound */
out:
    free(start);
    free(index);
    free(ind);
    free(value);
    free(val);
    free(clb);
    free(cub);
    free(obj);
    free(x);
    free(rlb);
    free(rub);
    free(integer);
    node_bounds_free(S);
    return rc;
}
#endif

static void glpk_error_hook(void *info)
{
    (void)info;
    longjmp(glpk_abort, 1);
}

/* Where the MILP is too large to build (S->not_built says why): the LP
 * relaxation of the compact model without its ordering rows, whose value
 * bounds the makespan.  Failing to build or solve it leaves the bound as
 * it was. */
static void relaxation_bound(search *S)
{
    hs_error why = {0};
    unsigned features = HS__RELAXED | (S->o->features & (HS_MILP_USE_CUTS | HS_MILP_USE_WINDOWS));
    if (hs__build_compact(&S->M, S->I, S->best.makespan, features, &S->budget, &why) != HS_OK) {
        if (S->o->verbose)
            printf("hetsched: no LP bound: %s\n", why.msg);
        return;
    }
    solve_relaxation(S);
}

/* Builds the model and runs the chosen solver, with GLPK's aborts turned
 * into HS_ESOLVER.  After an abort GLPK's environment is freed whole, the
 * model with it.  A model too large to build leaves S->not_built set and
 * the relaxation's bound instead. */
static int build_and_solve(search *S, hs_error *err)
{
    const hs_milp_options *o = S->o;
    hs_error why = {0};
    double *x = NULL;
    int rc, term;
    if (setjmp(glpk_abort)) {
        glp_error_hook(NULL, NULL);
        S->M.lp = NULL; /* freed by glp_free_env */
        glp_free_env();
        S->env_gone = 1;
        free(S->start_x);
        S->start_x = NULL;
        return hs_error_set(err, HS_ESOLVER, "GLPK stopped on an internal error (run with "
                            "verbose output to see its message)");
    }
    glp_error_hook(glpk_error_hook, NULL);
    term = glp_term_out(o->verbose ? GLP_ON : GLP_OFF);
    rc = HS_OK;
    if (stop_asked(S))
        goto out;
    if (!S->I->reach) {
        snprintf(S->not_built, sizeof S->not_built, "the MILP takes at most %d tasks; this "
                 "workload has %zu", HS_MILP_MAX_TASKS, S->I->n);
    } else {
        if (o->formulation == HS_MILP_PAPER)
            rc = hs__build_paper(&S->M, S->I, S->best.makespan, o->features, &S->budget, &why);
        else
            rc = hs__build_compact(&S->M, S->I, S->best.makespan, o->features, &S->budget,
                                   &why);
        if (rc == HS_EINPUT && stop_asked(S)) { /* stopped while building */
            rc = HS_OK;
            goto out;
        }
        if (rc == HS_EINPUT) { /* too large, or no time left */
            snprintf(S->not_built, sizeof S->not_built, "%.*s", (int)sizeof S->not_built - 1,
                     why.msg);
            hs__model_free(&S->M);
            rc = HS_OK;
        } else if (rc != HS_OK) {
            hs_error_set(err, rc, "%s", why.msg);
            goto out;
        }
    }
    if (S->not_built[0]) {
        relaxation_bound(S);
        goto out;
    }
    if (o->lp_file && (rc = hs__milp_write_lp(S->M.lp, o->lp_file, err)) != HS_OK)
        goto out;
    if (o->features & HS_MILP_USE_INCUMBENT) {
        hs__sched canon;
        char why[160];
        const char *bad;
        if (hs__sched_alloc(&canon, S->I->n) != 0 ||
            !(x = malloc(((size_t)S->M.ncols + 1) * sizeof *x))) {
            hs__sched_free(&canon);
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
        hs__sched_copy(&canon, &S->best, S->I->n);
        hs__canon(&S->M, S->I, &canon);
        hs__model_point(&S->M, S->I, &canon, x);
        hs__sched_free(&canon);
        if ((bad = hs__model_check(&S->M, x, why, sizeof why)) != NULL) {
            /* a bug, but not a wrong answer: the bound still holds */
            if (o->verbose)
                printf("hetsched: the heuristic schedule is not a point of the model: %s\n",
                       bad);
            free(x);
            x = NULL;
        }
        S->start_x = x;
    }
    if (proves(S->bound, S->incumbent))
        S->proven = 1;
    else if (o->solver == HS_MILP_CBC) {
#if HS_HAVE_CBC
        rc = solve_cbc(S, err);
#else
        rc = hs_error_set(err, HS_ENOTBUILT, "CBC is not built in");
#endif
    } else {
        rc = solve_glpk(S, err);
    }
out:
    glp_error_hook(NULL, NULL);
    glp_term_out(term);
    free(S->start_x);
    S->start_x = NULL;
    return rc;
}

/* The best schedule as an hs_schedule: placements with the append
 * scheduler's start times, transfers derived from the model. */
static int make_schedule(hs_workload *w, const hs__minst *I, const hs__sched *s,
                         hs_schedule **out, hs_error *err)
{
    hs_schedule *sc = hs_schedule_new(w->path, "optimal");
    int rc;
    if (!sc)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t k = 0; k < I->n; k++) {
        size_t t = s->order[k];
        hs_placement p = {.task = t, .part = 0, .nparts = 1, .fraction = 1.0,
                          .device = s->dev[t], .start_us = s->start[t],
                          .end_us = s->start[t] + hs__cost(I, t, s->dev[t])};
        if (hs_schedule_add_placement(sc, &p, err) < 0) {
            hs_schedule_free(sc);
            return HS_ENOMEM;
        }
    }
    if ((rc = hs_schedule_derive_transfers(w, sc, err)) != HS_OK) {
        hs_schedule_free(sc);
        return rc;
    }
    *out = sc;
    return HS_OK;
}

int hs_milp_check(const hs_milp_options *o, hs_error *err)
{
    if (!o)
        return HS_OK;
    if (o->formulation != HS_MILP_COMPACT && o->formulation != HS_MILP_PAPER)
        return hs_error_set(err, HS_EUSAGE, "unknown MILP formulation %d", (int)o->formulation);
    if (o->solver != HS_MILP_GLPK && o->solver != HS_MILP_CBC)
        return hs_error_set(err, HS_EUSAGE, "unknown MILP solver %d", (int)o->solver);
    if (!(o->time_limit_s > 0) || !isfinite(o->time_limit_s) || o->time_limit_s > 1e7)
        return hs_error_set(err, HS_EUSAGE, "the time limit must be a number of seconds > 0, "
                            "not %g", o->time_limit_s);
    if (!(o->rel_gap >= 0) || o->rel_gap >= 1)
        return hs_error_set(err, HS_EUSAGE, "the relative gap must be in [0, 1), not %g",
                            o->rel_gap);
#if !HS_HAVE_CBC
    if (o->solver == HS_MILP_CBC)
        return hs_error_set(err, HS_ENOTBUILT, "the CBC solver is not built in (install "
                            "coinor-libcbc-dev and rebuild with -Dcbc=enabled)");
#endif
    return HS_OK;
}

int hs_milp_solve(hs_workload *w, const hs_milp_options *opt, hs_milp_result *res,
                  hs_error *err)
{
    hs_milp_options defaults;
    search S;
    int rc;
    if (!opt) {
        hs_milp_options_init(&defaults);
        opt = &defaults;
    }
    memset(res, 0, sizeof *res);
    res->makespan_us = res->incumbent_us = HUGE_VAL;
    res->root_bound_us = NAN;
    res->status = HS_MILP_NO_SOLUTION;
    if ((rc = hs_milp_check(opt, err)) != HS_OK)
        return rc;
    memset(&S, 0, sizeof S);
    S.o = opt;
    S.t0 = hs__now_s();
    S.deadline = S.t0 + opt->time_limit_s;
    S.budget = (hs__budget){.deadline = S.deadline, .stop = opt->stop};
    S.last_print = S.t0;
    S.root = NAN;
    S.progress = opt->progress < 0 ? isatty(STDERR_FILENO) && !opt->verbose : opt->progress;

    {
        hs__minst I;
        hs__budget heuristics = {.deadline = S.t0 + HEURISTIC_SHARE * opt->time_limit_s,
                                 .stop = opt->stop};
        /* the closure only where a MILP may be built */
        if ((rc = hs__minst_init(&I, w, w->graph.ntasks <= HS_MILP_MAX_TASKS, err)) != HS_OK)
            goto out;
        S.I = &I;
        if (hs__sched_alloc(&S.best, I.n) != 0 || hs__sched_alloc(&S.cand, I.n) != 0) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto done;
        }
        if (opt->features & HS_MILP_USE_INCUMBENT) {
            if ((rc = hs__heuristic(&I, &heuristics, &S.best, err)) != HS_OK)
                goto done;
            res->incumbent_us = S.best.makespan;
            snprintf(res->incumbent_from, sizeof res->incumbent_from, "%s", S.best.from);
        } else {
            /* only to size Cmax and the big-Ms: every task on its fastest
             * device, appended in topological order; never returned */
            for (size_t t = 0; t < I.n; t++) {
                S.best.dev[t] = 0;
                for (int d = 1; d < I.m; d++)
                    if (hs__cost(&I, t, d) < hs__cost(&I, t, S.best.dev[t]))
                        S.best.dev[t] = d;
                S.best.order[t] = I.topo[t];
            }
            S.best.makespan = hs__eval(&I, S.best.dev, S.best.order, S.best.start);
        }
        if (!isfinite(S.best.makespan)) {
            res->status = HS_MILP_INFEASIBLE;
            goto done;
        }
        S.bound = hs_lower_bound_us(w);
        S.incumbent = opt->features & HS_MILP_USE_INCUMBENT ? S.best.makespan : HUGE_VAL;
        hs__glpk_lock();
        /* GLPK keeps an environment per thread: free it afterwards if this
         * call made it, so that a thread that solves once and exits leaks
         * nothing (an environment someone else made stays) */
        S.own_env = glp_init_env() == 0;
        rc = build_and_solve(&S, err);
        if (!S.not_built[0]) {
            res->rows = S.M.nrows;
            res->cols = S.M.ncols;
            res->binaries = S.M.nbin;
        }
        hs__model_free(&S.M);
        if (S.own_env && !S.env_gone)
            glp_free_env();
        hs__glpk_unlock();
        if (!(opt->features & HS_MILP_USE_INCUMBENT) && !isfinite(S.incumbent))
            S.best.makespan = HUGE_VAL; /* the naive schedule only sized the model */
        if (rc != HS_OK)
            goto done;
        res->nodes = S.nodes;
        res->root_bound_us = S.root;
        res->interrupted = S.interrupted && !S.proven;
        snprintf(res->not_built, sizeof res->not_built, "%s", S.not_built);
        if (!isfinite(S.best.makespan)) {
            res->status = S.proven ? HS_MILP_INFEASIBLE : HS_MILP_NO_SOLUTION;
            res->bound_us = S.bound;
            goto done;
        }
        if ((rc = make_schedule(w, &I, &S.best, &res->schedule, err)) != HS_OK)
            goto done;
        res->makespan_us = res->schedule->makespan_us;
        res->bound_us = S.proven ? res->makespan_us : S.bound;
        if (res->bound_us > res->makespan_us)
            res->bound_us = res->makespan_us;
        res->gap = (res->makespan_us - res->bound_us) / res->makespan_us;
        if (!(res->gap > 0))
            res->gap = 0;
        res->status = S.proven || proves(res->bound_us, res->makespan_us) ? HS_MILP_OPTIMAL
                                                                          : HS_MILP_FEASIBLE;
        if (res->status == HS_MILP_OPTIMAL) {
            res->gap = 0;
            res->interrupted = 0; /* the bound proves it all the same */
        }
    done:
        progress_line(&S, 1);
        hs__sched_free(&S.best);
        hs__sched_free(&S.cand);
        hs__minst_free(&I);
    }
out:
    res->solve_s = hs__now_s() - S.t0;
    if (rc != HS_OK)
        hs_milp_result_free(res);
    return rc;
}
