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
#include <Cbc_C_Interface.h>
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
    double bound;         /* best proven lower bound so far */
    double incumbent;     /* best makespan known (heuristic or solver) */
    double root;          /* LP relaxation at the root */
    double nodes;
    int progress, printed, proven, stopped_early;
    int own_env, env_gone; /* this call made GLPK's environment; it is freed */
    hs__sched best;       /* best schedule so far */
    hs__sched cand;
} search;

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
            now_s() - S->t0, S->incumbent, S->bound, 100 * gap, S->nodes);
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

static void glpk_callback(glp_tree *T, void *info)
{
    search *S = info;
    glp_prob *lp = glp_ios_get_prob(T);
    double now = now_s();
    record_bound(S, T);
    if (glp_ios_reason(T) == GLP_IHEUR && S->start_x && !S->injected) {
        S->injected = 1;
        glp_ios_heur_sol(T, S->start_x);
    }
    if (glp_mip_status(lp) == GLP_FEAS && glp_mip_obj_val(lp) < S->incumbent)
        S->incumbent = glp_mip_obj_val(lp);
    if (proves(S->bound, S->incumbent) && glp_mip_status(lp) == GLP_FEAS) {
        S->stopped_early = 1;
        glp_ios_terminate(T);
    } else if (now >= S->deadline) {
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
    double r = S->deadline - now_s();
    return r > 0.001 ? r : 0.001;
}

/* GLPK's time limits are ints of milliseconds. */
static int remaining_ms(const search *S)
{
    double ms = remaining_s(S) * 1000;
    return ms < INT_MAX ? (int)ms : INT_MAX;
}

static int solve_glpk(search *S, hs_error *err)
{
    glp_prob *lp = S->M.lp;
    glp_smcp sp;
    glp_iocp ip;
    int rc, st;
    double *x;
    glp_init_smcp(&sp);
    sp.msg_lev = S->o->verbose ? GLP_MSG_ON : GLP_MSG_OFF;
    sp.presolve = GLP_OFF;
    sp.tm_lim = remaining_ms(S);
    /* big-M rows mix coefficients of 1 and of the makespan: scale them */
    glp_scale_prob(lp, GLP_SF_AUTO);
    rc = glp_simplex(lp, &sp);
    if (rc == GLP_ETMLIM)
        return HS_OK; /* no time left even for the relaxation */
    if (rc != 0 || glp_get_status(lp) != GLP_OPT) {
        /* the incumbent satisfies every row, so this is numerical trouble */
        if (S->o->verbose)
            printf("hetsched: the LP relaxation failed (glp_simplex %d, status %d)\n", rc,
                   glp_get_status(lp));
        return HS_OK;
    }
    S->root = glp_get_obj_val(lp);
    if (S->root > S->bound)
        S->bound = S->root;
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
    rc = glp_intopt(lp, &ip);
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
/* The GLPK model, copied column by column into CBC (no file in between). */
static int solve_cbc(search *S, hs_error *err)
{
    glp_prob *lp = S->M.lp;
    int nc = S->M.ncols, nr = S->M.nrows, nnz = glp_get_num_nz(lp), k = 0;
    size_t c1 = (size_t)nc + 1, r1 = (size_t)nr + 1, z1 = (size_t)nnz + 1;
    int *start = malloc(c1 * sizeof *start), *cols = malloc(c1 * sizeof *cols);
    int *index = malloc(z1 * sizeof *index), *ind = malloc(r1 * sizeof *ind);
    double *value = malloc(z1 * sizeof *value), *val = malloc(r1 * sizeof *val);
    double *clb = malloc(c1 * sizeof *clb), *cub = malloc(c1 * sizeof *cub);
    double *obj = malloc(c1 * sizeof *obj);
    double *rlb = malloc(r1 * sizeof *rlb), *rub = malloc(r1 * sizeof *rub);
    Cbc_Model *cm = NULL;
    int rc = HS_OK;
    if (!start || !index || !ind || !cols || !value || !val || !clb || !cub || !obj || !rlb ||
        !rub || !(cm = Cbc_newModel())) {
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
    }
    start[nc] = k;
    for (int i = 1; i <= nr; i++) {
        int type = glp_get_row_type(lp, i);
        rlb[i - 1] = type == GLP_FR || type == GLP_UP ? -DBL_MAX : glp_get_row_lb(lp, i);
        rub[i - 1] = type == GLP_FR || type == GLP_LO ? DBL_MAX : glp_get_row_ub(lp, i);
    }
    Cbc_loadProblem(cm, nc, nr, start, index, value, clb, cub, obj, rlb, rub);
    for (int j = 1; j <= nc; j++)
        if (glp_get_col_kind(lp, j) != GLP_CV)
            Cbc_setInteger(cm, j - 1);
    Cbc_setObjSense(cm, 1);
    Cbc_setParameter(cm, "timeMode", "elapsed"); /* the limit is wall-clock time */
    Cbc_setMaximumSeconds(cm, remaining_s(S));
    Cbc_setAllowableFractionGap(cm, S->o->rel_gap);
    Cbc_setLogLevel(cm, S->o->verbose ? 1 : 0);
    if (S->start_x) {
        for (int j = 1; j <= nc; j++)
            cols[j - 1] = j - 1;
        Cbc_setMIPStartI(cm, nc, cols, S->start_x + 1);
        S->injected = 1;
    }
    Cbc_solve(cm);
    S->nodes = Cbc_getNodeCount(cm);
    if (Cbc_getBestPossibleObjValue(cm) > S->bound && Cbc_getBestPossibleObjValue(cm) < 1e300)
        S->bound = Cbc_getBestPossibleObjValue(cm);
    if (Cbc_bestSolution(cm)) {
        double *x = malloc(((size_t)nc + 1) * sizeof *x);
        if (!x) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto out;
        }
        memcpy(x + 1, Cbc_bestSolution(cm), (size_t)nc * sizeof *x);
        take_solution(S, x);
        free(x);
    }
    if (Cbc_isProvenOptimal(cm) || Cbc_isProvenInfeasible(cm))
        S->proven = 1; /* infeasible: nothing beats the heuristic's bound */
out:
    if (cm)
        Cbc_deleteModel(cm);
    free(start);
    free(index);
    free(ind);
    free(cols);
    free(value);
    free(val);
    free(clb);
    free(cub);
    free(obj);
    free(rlb);
    free(rub);
    return rc;
}
#endif

static void glpk_error_hook(void *info)
{
    (void)info;
    longjmp(glpk_abort, 1);
}

/* Builds the model and runs the chosen solver, with GLPK's aborts turned
 * into HS_ESOLVER.  After an abort GLPK's environment is freed whole, the
 * model with it. */
static int build_and_solve(search *S, hs_error *err)
{
    const hs_milp_options *o = S->o;
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
    if (o->formulation == HS_MILP_PAPER)
        rc = hs__build_paper(&S->M, S->I, S->best.makespan, o->features, err);
    else
        rc = hs__build_compact(&S->M, S->I, S->best.makespan, o->features, err);
    if (rc != HS_OK)
        goto out;
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

static int check_options(const hs_milp_options *o, hs_error *err)
{
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
    if ((rc = check_options(opt, err)) != HS_OK)
        return rc;
    memset(&S, 0, sizeof S);
    S.o = opt;
    S.t0 = now_s();
    S.deadline = S.t0 + opt->time_limit_s;
    S.last_print = S.t0;
    S.root = NAN;
    S.progress = opt->progress < 0 ? isatty(STDERR_FILENO) && !opt->verbose : opt->progress;

    {
        hs__minst I;
        if ((rc = hs__minst_init(&I, w, 1, err)) != HS_OK)
            goto out;
        S.I = &I;
        if (hs__sched_alloc(&S.best, I.n) != 0 || hs__sched_alloc(&S.cand, I.n) != 0) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory");
            goto done;
        }
        if (opt->features & HS_MILP_USE_INCUMBENT) {
            if ((rc = hs__heuristic(&I, &S.best, err)) != HS_OK)
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
        res->rows = S.M.nrows;
        res->cols = S.M.ncols;
        res->binaries = S.M.nbin;
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
        if (res->status == HS_MILP_OPTIMAL)
            res->gap = 0;
    done:
        progress_line(&S, 1);
        hs__sched_free(&S.best);
        hs__sched_free(&S.cand);
        hs__minst_free(&I);
    }
out:
    res->solve_s = now_s() - S.t0;
    if (rc != HS_OK)
        hs_milp_result_free(res);
    return rc;
}
