/* hetsched — internals of the MILP oracle (include/hetsched/milp.h).
 *
 * hs__minst is the instance every part works on: the workload's graph with
 * its costs, input/output transfer times, heads and tails (lower bounds on
 * the time before a task can start and after it ends, per device), a
 * topological order and the transitive closure.  Heuristics, the two model
 * builders and the solver drivers share it.
 */
#ifndef HS_MILP_INT_H
#define HS_MILP_INT_H

#include <glpk.h>
#include <stddef.h>

#include "hetsched/milp.h"

typedef struct hs__minst {
    hs_workload *w;
    const hs_graph *g;
    size_t n;             /* tasks */
    int m;                /* devices */
    double *in, *out;     /* [n*m] input / output transfer time of t on d */
    double *head, *tail;  /* [n*m] see milp/bound.c */
    size_t *topo;         /* a topological order */
    size_t *rank;         /* rank[t]: position of t in topo */
    unsigned char *reach; /* [n*n] reach[i*n+j]: a path i -> j exists; NULL when
                             not built */
} hs__minst;

/* Writes lp as a CPLEX LP file at `path` (hetsched/output.h: "-" is stdout);
 * HS_EIO "cannot write PATH: WHY" (milp/write_lp.c). */
int hs__milp_write_lp(glp_prob *lp, const char *path, hs_error *err);

/* Transfer time of edge e's data from device q to device d. */
double hs__edge_us(const hs__minst *I, const hs_edge *e, int q, int d);
/* Cost of task t on device d. */
static inline double hs__cost(const hs__minst *I, size_t t, int d)
{
    return I->g->tasks[t].cost_us[d];
}

/* Checks that w can be modelled (finalized, whole tasks, finite costs and
 * transfers) and fills *I; with `closure`, also the transitive closure
 * (n^2 bytes).  HS_EINPUT says what is wrong. */
int hs__minst_init(hs__minst *I, hs_workload *w, int closure, hs_error *err);
void hs__minst_free(hs__minst *I);

/* Heads and tails (milp/bound.c) of graph g on platform p, in topological
 * order `topo`: head[t*m+d] <= start of t on d, tail[t*m+d] <= makespan -
 * end of t on d, in every schedule of whole tasks that runs each task u on
 * a device q with allowed[u*m+q] (NULL: any device). */
void hs__head_tail(const hs_platform *p, const hs_graph *g, const size_t *topo,
                   const unsigned char *allowed, double *head, double *tail);

/* A lower bound on the makespan of every schedule that runs each task t on
 * a device d with allowed[t*m+d] (at least one per task): the larger of the
 * critical path of the heads and tails over the allowed devices, and per
 * device the preemptive bound of the tasks that can only run there.
 * `scratch` holds 2 n m + 4 n values. */
double hs__restricted_bound(const hs__minst *I, const unsigned char *allowed, double *scratch);

/* Append scheduling: tasks in `order` (topological) each start on dev[t] as
 * early as the device, its inputs and its predecessors' data allow.  Fills
 * start[t] (may be NULL) and returns the makespan (HUGE_VAL if a transfer is
 * impossible). */
double hs__eval(const hs__minst *I, const int *dev, const size_t *order, double *start);

/* A topological order of the tasks that follows the middle of each task's
 * run (start + cost on dev[t] / 2), ties by topological rank.  Middles keep
 * each device's sequence even where a zero-length task starts with the next
 * one, or a solver's rounding moves a start by less than half a duration. */
void hs__order_by_start(const hs__minst *I, const int *dev, const double *start,
                        size_t *order);

/* An incumbent: device per task, start times (append scheduling of `order`)
 * and makespan. */
typedef struct hs__sched {
    int *dev;
    size_t *order;
    double *start;
    double makespan;
    char from[32];
} hs__sched;

int hs__sched_alloc(hs__sched *s, size_t n);
void hs__sched_free(hs__sched *s);
void hs__sched_copy(hs__sched *dst, const hs__sched *src, size_t n);

/* When a part of the search must stop: a deadline on CLOCK_MONOTONIC
 * (hs__now_s) and the caller's stop flag (NULL: none). */
typedef struct hs__budget {
    double deadline;
    volatile sig_atomic_t *stop;
} hs__budget;

double hs__now_s(void);
/* 1 when the deadline has passed or *stop is set. */
int hs__budget_spent(const hs__budget *b);

/* For tests: when set, called with the caller's stop flag (when there is
 * one) each time the branch and bound consults it at a node (GLPK's
 * callback, CBC's node bounds), before it is read.  A hook that sets the
 * flag at its k-th call stops the search where an interrupt could land,
 * the same way on any machine, where a timer would not.  NULL otherwise. */
extern void (*hs__milp_node_hook)(volatile sig_atomic_t *stop);

/* The best schedule the heuristics find: list scheduling with earliest
 * finish time under several priority rules, every task on one device,
 * every registered mapping policy; then local search on each, best first,
 * until the budget is spent (the candidates themselves are always made).
 * best->makespan is HUGE_VAL if none is finite. */
int hs__heuristic(const hs__minst *I, const hs__budget *budget, hs__sched *best, hs_error *err);
/* Local search: moves one task to another device or swaps two neighbours in
 * the order while the makespan drops and the budget lasts.  Keeps s valid. */
void hs__improve(const hs__minst *I, const hs__budget *budget, hs__sched *s);

/* ------------------------------------------------------------ the models */

enum hs__colkind {
    HS__COL_CMAX,
    HS__COL_X,  /* compact: a = task, b = device */
    HS__COL_S,  /* a = task */
    HS__COL_Y,  /* compact: a before b when they share a device */
    HS__COL_Z,  /* compact: a = edge, b = from memory, c = to memory */
    HS__COL_P,  /* paper: a = task, b = device, c = position (0-based) */
    HS__COL_PY, /* paper: a = edge, b = from device, c = to device */
};

typedef struct hs__colinfo {
    unsigned char kind;
    int a, b, c;
} hs__colinfo;

typedef struct hs__model {
    glp_prob *lp;
    int ncols, nrows, nbin;
    hs__colinfo *cols;    /* [ncols + 1], 1-based as in GLPK */
    int colcap;
    int failed;           /* a row or column could not be built (memory, or a
                             builder bug caught before GLPK would abort), or
                             the budget ran out: no more rows are added */
    int out_of_time;      /* the budget ran out while building */
    const hs__budget *budget; /* looked at every 1024 rows or columns; NULL: none */
    double upper;         /* the makespan bound the model was built with */
    /* symmetry breaking of the compact model (NULL when off): the kernel
     * whose instances are ordered by start, per application (-1: none), and
     * the first device identical to each device */
    int *app_kernel;
    int *dev_class;
    double lower;         /* Cmax's lower bound */
    /* row under construction */
    int len;
    int *ind;
    double *val;
    int *pos;             /* [ncols + 1]: where a column sits in the row, or -1 */
} hs__model;

/* A feature bit of hs__build_compact only: the LP relaxation without the
 * ordering binaries and their rows (x continuous, no symmetry rows), for a
 * bound where the MILP is too large.  I->reach may then be NULL. */
#define HS__RELAXED (1u << 16)

/* Builders: fill m->lp (GLPK, under the caller's lock) for instance I with
 * makespan bound `upper` and the option features, within the budget (may be
 * NULL).  HS_ENOMEM, HS_EINPUT (too large, or the budget ran out: the
 * message says which). */
int hs__build_compact(hs__model *m, const hs__minst *I, double upper, unsigned features,
                      const hs__budget *budget, hs_error *err);
int hs__build_paper(hs__model *m, const hs__minst *I, double upper, unsigned features,
                    const hs__budget *budget, hs_error *err);
void hs__model_free(hs__model *m);

/* Model helpers shared by the builders (milp/model.c). */
int hs__model_init(hs__model *m, int ncols_hint, const hs__budget *budget);
/* The error of a builder whose m->failed is set: out of time (HS_EINPUT) or
 * of memory. */
int hs__model_failure(const hs__model *m, const char *what, hs_error *err);
/* Adds a column (GLP_BV, or GLP_CV with bounds lb..ub, ub = HUGE_VAL for none)
 * and returns its index, or 0 with m->failed set. */
int hs__col_add(hs__model *m, int kind, int a, int b, int c, int type, double lb, double ub,
                const char *name_fmt, ...) __attribute__((format(printf, 9, 10)));
void hs__row_term(hs__model *m, int col, double coef);
/* Adds the row built with hs__row_term as `lb <= row` (type GLP_LO),
 * `row <= ub` (GLP_UP) or `row = lb` (GLP_FX); drops an empty row. */
int hs__row_add(hs__model *m, int type, double lb, double ub, const char *name_fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Symmetry of the instance (milp/compact.c): per application, the kernel
 * whose instances get ordered by start (-1: none; NULL if out of memory),
 * and per device the first device identical to it (NULL if all differ). */
int *hs__symmetric_apps(const hs__minst *I);
int *hs__device_classes(const hs__minst *I);
/* Rows that order the instances of a symmetric application (M->app_kernel[a]
 * >= 0) by the start of that kernel: instance i + 1 starts it no earlier than
 * instance i.  cs[t] is the start column of task t.  Both formulations. */
void hs__instance_symmetry_rows(hs__model *M, const hs_workload *w, const int *cs);
/* Relabels identical application instances and identical devices of s so
 * that it satisfies m's symmetry-breaking rows (same makespan). */
void hs__canon(const hs__model *m, const hs__minst *I, hs__sched *s);
/* The column values of schedule s in model m (x[1..ncols]). */
void hs__model_point(const hs__model *m, const hs__minst *I, const hs__sched *s, double *x);
/* Checks x against every column and row bound of m (relative tolerance
 * 1e-7); returns the first violated row or column name, or NULL. */
const char *hs__model_check(const hs__model *m, const double *x, char *buf, size_t size);
/* Device and order from a solution x: fills s->dev, s->order, s->start and
 * s->makespan (append scheduling of the solution's order). */
void hs__model_extract(const hs__model *m, const hs__minst *I, const double *x, hs__sched *s);

#endif
