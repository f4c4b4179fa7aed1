/* hetsched — the MILP handed to COIN-OR CBC (milp/cbc.cpp), in plain C so
 * that milp/solve.c can call the C++ solver.  Only where CBC is built in. */
#ifndef HS_MILP_CBC_H
#define HS_MILP_CBC_H

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A minimisation problem, columns and rows 0-based, the matrix by columns
 * (start[ncols + 1], index and value of each column's nonzeros); bounds of
 * +-DBL_MAX mean none. */
typedef struct hs__cbc_problem {
    int ncols, nrows;
    const int *start, *index;
    const double *value, *collb, *colub, *obj, *rowlb, *rowub;
    const unsigned char *integer;    /* [ncols]: 1 for an integer column */
    const double *mip_start;         /* [ncols] a feasible point, or NULL */
    int objective_col;               /* the column node_bound bounds */
    /* a lower bound on the objective below a search node whose columns
     * have these bounds (0: nothing known); NULL: none */
    double (*node_bound)(void *ctx, const double *collb, const double *colub);
    void *node_ctx;
    double seconds;                  /* wall-clock limit */
    double rel_gap;                  /* stop at this relative gap */
    int verbose;                     /* CBC's log on stdout */
    volatile sig_atomic_t *stop;     /* stop the search when *stop turns nonzero */
} hs__cbc_problem;

typedef struct hs__cbc_answer {
    int has_solution;                /* x holds the best point found */
    int proven_optimal, proven_infeasible;
    int interrupted;                 /* stopped through *stop */
    double bound;                    /* best possible objective (valid lower bound) */
    double nodes;
} hs__cbc_answer;

/* Solves p with CBC's branch and cut (the standard CbcMain driver, without
 * its preprocessing and its SIGINT handler) and fills *a, and x[0..ncols)
 * when a point was found.  0, or -1 when CBC failed or ran out of memory. */
int hs__cbc_solve(const hs__cbc_problem *p, hs__cbc_answer *a, double *x);

#ifdef __cplusplus
}
#endif
#endif
