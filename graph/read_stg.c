/* hetsched — Kasahara's Standard Task Graph Set (STG) files
 * (graph/read.h).
 *
 * The task graph part of an STG file is whitespace-separated numbers, one
 * task to a line:
 *     N                                    tasks besides the entry and exit
 *     0  0  0                              task 0, the entry dummy: no time,
 *     1  20 1  0                             no predecessor
 *     ...                                  task, processing time, number of
 *     N+1 0 K  P1 ... PK                     predecessors, the predecessors
 * and lines that start with '#' are the information part (comments here,
 * anywhere).  Graphs with communication costs give each predecessor with its
 * cost: either `P1 C1 ... PK CK` on the task's line, or the task's line
 * ends after K and K lines `P C` follow; the first task with predecessors
 * shows which layout the file uses, and every task must then follow it.
 *
 * Tasks are kernels t0 .. tN+1 of one application named after the file;
 * times are microseconds (each device's cost derived as load.h says); a
 * communication cost c becomes an edge of c us at the platform's mean link
 * bandwidth (hs__set_bytes_per_us), 0 bytes without costs (an ordering
 * constraint only).  Errors name the line and column of the number at
 * fault. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/read.h"

enum layout { UNKNOWN, PLAIN, PAIRS_INLINE, PAIRS_BELOW };

/* A token: bytes [p, p + n) of the text, at line:col. */
typedef struct token {
    const char *p;
    size_t n, line, col;
} token;

/* One line of the task graph part: its text and how many tokens it has. */
typedef struct line {
    const char *start, *end;
    size_t number, ntok;
} line;

typedef struct stg_edge {
    size_t from, to;
    double comm;
    size_t line, col; /* of the predecessor's number */
} stg_edge;

typedef struct stg {
    hs__set *s;
    size_t pos, line;        /* the next line starts at data[pos], is line `line` */
    size_t ntasks;           /* N + 2 */
    size_t *task_line, *task_col;
    double *time;
    stg_edge *edges;
    size_t nedges, cap;
    enum layout layout;
    size_t last_line;        /* the last line read, for "the file ends" */
} stg;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Reads the next line that is neither blank nor a comment into *l; 0 at
 * the end of the text. */
static int next_line(stg *g, line *l)
{
    const char *d = g->s->data;
    size_t len = g->s->len;
    while (g->pos < len) {
        size_t start = g->pos, end = start, i;
        while (end < len && d[end] != '\n')
            end++;
        g->pos = end + 1;
        *l = (line){.start = d + start, .end = d + end, .number = g->line++};
        for (i = start; i < end && is_space(d[i]); i++)
            ;
        if (i == end || d[i] == '#')
            continue;
        while (i < end) {
            while (i < end && !is_space(d[i]))
                i++;
            l->ntok++;
            while (i < end && is_space(d[i]))
                i++;
        }
        g->last_line = l->number;
        return 1;
    }
    return 0;
}

/* The token at or after *p on line l (which has one there); *p moves past
 * it. */
static token next_token(const line *l, const char **p)
{
    const char *q = *p;
    token t;
    while (q < l->end && is_space(*q))
        q++;
    t = (token){q, 0, l->number, (size_t)(q - l->start) + 1};
    while (q < l->end && !is_space(*q))
        q++;
    t.n = (size_t)(q - t.p);
    *p = q;
    return t;
}

static hs__where at_token(const token *t, const char *item)
{
    hs__where w = {.line = t->line, .col = t->col};
    snprintf(w.item, sizeof w.item, "%s", item);
    return w;
}

/* The number at t: finite, >= 0 (and whole with `whole`), at most max. */
static int number(stg *g, const token *t, const char *item, const char *what, int whole,
                  double max, double *out)
{
    char text[64], shown[96];
    hs__where at = at_token(t, item);
    double x = 0;
    if (t->n < sizeof text) {
        memcpy(text, t->p, t->n);
        text[t->n] = '\0';
    }
    if (t->n >= sizeof text || !hs__decimal(text, &x) || x < 0 || (whole && x != floor(x)))
        return hs__set_fail(g->s, &at, "expected %s, not '%s'", what,
                            hs__quote(shown, sizeof shown, t->p, t->n, 32));
    if (x > max)
        return hs__set_fail(g->s, &at, "%s must be at most %g, not %s", what, max, text);
    *out = x;
    return HS_OK;
}

static int add_edge(stg *g, size_t from, size_t to, double comm, const token *t)
{
    if (g->nedges == hs_max_edges()) {
        hs__where at = at_token(t, "");
        return hs__set_fail(g->s, &at, "more than %zu edges (the loader's limit, which %s "
                            "raises)", hs_max_edges(), HS_MAX_TASKS_ENV);
    }
    if (g->nedges == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        stg_edge *e = realloc(g->edges, cap * sizeof *e);
        if (!e)
            return hs_error_set(g->s->err, HS_ENOMEM, "%s: out of memory", g->s->name);
        g->edges = e;
        g->cap = cap;
    }
    g->edges[g->nedges++] = (stg_edge){from, to, comm, t->line, t->col};
    return HS_OK;
}

/* A predecessor (and its cost with `pairs`) of task i at tokens p, c. */
static int predecessor(stg *g, size_t i, const token *p, const token *c)
{
    char item[64];
    double pred, comm = 0;
    int rc;
    snprintf(item, sizeof item, "task %zu", i);
    if ((rc = number(g, p, item, "a predecessor's task number", 1, HUGE_VAL, &pred)) != 0)
        return rc;
    if (pred >= (double)g->ntasks) {
        hs__where at = at_token(p, item);
        return hs__set_fail(g->s, &at, "no task %.0f (the tasks are 0 to %zu)", pred,
                            g->ntasks - 1);
    }
    if (c && (rc = number(g, c, item, "a communication cost", 0, HS_MAX_US, &comm)) != 0)
        return rc;
    return add_edge(g, (size_t)pred, i, comm, p);
}

/* Picks the layout from the first task with predecessors, or checks it;
 * `count` is the token that gives their number. */
static int check_layout(stg *g, const line *l, const token *count, size_t i, size_t npred)
{
    size_t rest = l->ntok - 3;
    hs__where at = at_token(count, "");
    snprintf(at.item, sizeof at.item, "task %zu", i);
    if (npred == 0) {
        if (rest != 0)
            return hs__set_fail(g->s, &at, "no predecessor, then %zu more numbers", rest);
        return HS_OK;
    }
    if (g->layout == UNKNOWN) {
        if (rest == npred)
            g->layout = PLAIN;
        else if (rest == 2 * npred)
            g->layout = PAIRS_INLINE;
        else if (rest == 0)
            g->layout = PAIRS_BELOW;
        else
            return hs__set_fail(g->s, &at, "expected %zu predecessors, or %zu (predecessor, "
                                "communication cost) pairs, after their count, not %zu numbers",
                                npred, npred, rest);
        return HS_OK;
    }
    if (g->layout == PLAIN && rest != npred)
        return hs__set_fail(g->s, &at, "expected %zu predecessors after their count, not %zu "
                            "numbers", npred, rest);
    if (g->layout == PAIRS_INLINE && rest != 2 * npred)
        return hs__set_fail(g->s, &at, "expected %zu (predecessor, communication cost) pairs "
                            "after their count, as the file's first task with predecessors "
                            "gives them, not %zu numbers", npred, rest);
    if (g->layout == PAIRS_BELOW && rest != 0)
        return hs__set_fail(g->s, &at, "expected the line to end after the count of "
                            "predecessors, each (predecessor, communication cost) pair on a "
                            "line below as the file's first task with predecessors has them, "
                            "not %zu more numbers", rest);
    return HS_OK;
}

static int grow_tasks(stg *g, size_t n)
{
    size_t *tl = realloc(g->task_line, n * sizeof *tl), *tc;
    double *t;
    if (tl)
        g->task_line = tl;
    tc = realloc(g->task_col, n * sizeof *tc);
    if (tc)
        g->task_col = tc;
    t = realloc(g->time, n * sizeof *t);
    if (t)
        g->time = t;
    return tl && tc && t ? HS_OK : hs_error_set(g->s->err, HS_ENOMEM, "%s: out of memory",
                                                 g->s->name);
}

/* The file ends before task i. */
static int ends_early(stg *g, size_t i)
{
    hs__where at = {.line = g->last_line, .col = 1};
    return hs__set_fail(g->s, &at, "the file ends before task %zu: the first line says %zu "
                        "tasks besides the entry and exit, so tasks 0 to %zu", i,
                        g->ntasks - 2, g->ntasks - 1);
}

/* Task i's line (and with PAIRS_BELOW the lines of its predecessors). */
static int read_task(stg *g, size_t i)
{
    char item[64];
    double num, npred;
    const char *cur;
    token t[3];
    line l;
    int rc;
    snprintf(item, sizeof item, "task %zu", i);
    if (!next_line(g, &l))
        return ends_early(g, i);
    cur = l.start;
    for (int k = 0; k < 3; k++)
        t[k] = next_token(&l, &cur);
    if (l.ntok < 3) {
        hs__where at = at_token(&t[0], "");
        return hs__set_fail(g->s, &at, "expected task %zu: its number, processing time and "
                            "number of predecessors", i);
    }
    if ((rc = number(g, &t[0], "", "a task number", 1, (double)hs_max_tasks(), &num)) != 0)
        return rc;
    if (num != (double)i) {
        hs__where at = at_token(&t[0], "");
        return hs__set_fail(g->s, &at, "expected task %zu (tasks come in order, from 0), not "
                            "%.0f", i, num);
    }
    g->task_line[i] = t[0].line;
    g->task_col[i] = t[0].col;
    if ((rc = number(g, &t[1], item, "a processing time", 0, HS_MAX_US, &g->time[i])) != 0 ||
        (rc = number(g, &t[2], item, "a number of predecessors", 1, (double)g->ntasks - 1,
                     &npred)) != 0 ||
        (rc = check_layout(g, &l, &t[2], i, (size_t)npred)) != 0)
        return rc;
    for (size_t k = 0; k < (size_t)npred; k++) {
        token p, c;
        if (g->layout == PLAIN) {
            p = next_token(&l, &cur);
            rc = predecessor(g, i, &p, NULL);
        } else if (g->layout == PAIRS_INLINE) {
            p = next_token(&l, &cur);
            c = next_token(&l, &cur);
            rc = predecessor(g, i, &p, &c);
        } else {
            const char *pcur;
            line pl;
            if (!next_line(g, &pl)) {
                hs__where at = {.line = g->last_line, .col = 1};
                return hs__set_fail(g->s, &at, "the file ends in the predecessors of task %zu "
                                    "(%zu of %.0f given)", i, k, npred);
            }
            pcur = pl.start;
            p = next_token(&pl, &pcur);
            c = next_token(&pl, &pcur);
            if (pl.ntok != 2) {
                hs__where at = at_token(&p, item);
                return hs__set_fail(g->s, &at, "expected predecessor %zu of %.0f: a task "
                                    "number and a communication cost, not %zu numbers", k + 1,
                                    npred, pl.ntok);
            }
            rc = predecessor(g, i, &p, &c);
        }
        if (rc)
            return rc;
    }
    return HS_OK;
}

static void stg_where(const hs__set *s, int app, int is_edge, int index, hs__where *out)
{
    const stg *g = s->ctx;
    (void)app;
    *out = (hs__where){0};
    if (index < 0)
        return;
    if (!is_edge && (size_t)index < g->ntasks) {
        out->line = g->task_line[index];
        out->col = g->task_col[index];
        snprintf(out->item, sizeof out->item, "task %d", index);
    } else if (is_edge && (size_t)index < g->nedges) {
        const stg_edge *e = &g->edges[index];
        out->line = e->line;
        out->col = e->col;
        snprintf(out->item, sizeof out->item, "task %zu, predecessor %zu", e->to, e->from);
    }
}

/* The kernels, their costs and the edges, once the whole file is read. */
static int build(stg *g)
{
    double bytes_per_us = hs__set_bytes_per_us(g->s);
    char name[32], from[32];
    int a, rc;
    if ((a = hs__set_app(g->s, "", 1)) < 0)
        return a;
    for (size_t i = 0; i < g->ntasks; i++) {
        hs__where at;
        stg_where(g->s, a, 0, (int)i, &at);
        snprintf(name, sizeof name, "t%zu", i);
        if ((rc = hs_app_add_kernel(g->s->w, a, name, g->s->err)) < 0)
            return hs__set_failed(g->s, rc, &at);
        if ((rc = hs__set_cost(g->s, a, (int)i, g->time[i], &at)) != 0)
            return rc;
    }
    for (size_t e = 0; e < g->nedges; e++) {
        const stg_edge *ed = &g->edges[e];
        hs__where at;
        stg_where(g->s, a, 1, (int)e, &at);
        snprintf(from, sizeof from, "t%zu", ed->from);
        snprintf(name, sizeof name, "t%zu", ed->to);
        if ((rc = hs_app_add_edge(g->s->w, a, from, name, round(ed->comm * bytes_per_us),
                                  g->s->err)) < 0)
            return hs__set_failed(g->s, rc, &at);
    }
    return HS_OK;
}

static int read_stg(hs__set *s)
{
    stg g = {.s = s, .line = 1};
    const char *cur;
    double n;
    token t;
    line l;
    int rc;
    if (!next_line(&g, &l)) {
        hs__where at = {.line = 1, .col = 1};
        return hs__set_fail(s, &at, "the file is empty (an STG file starts with its number of "
                            "tasks)");
    }
    cur = l.start;
    t = next_token(&l, &cur);
    if (l.ntok != 1) {
        hs__where at = at_token(&t, "");
        return hs__set_fail(s, &at, "expected the number of tasks alone on the first line, "
                            "not %zu numbers", l.ntok);
    }
    if ((rc = number(&g, &t, "", "the number of tasks", 1, (double)hs_max_tasks() - 2, &n)) != 0)
        return rc;
    g.ntasks = (size_t)n + 2;
    s->ctx = &g;
    s->where = stg_where;
    for (size_t i = 0; rc == HS_OK && i < g.ntasks; i++) {
        if ((i & (i - 1)) == 0 && (rc = grow_tasks(&g, i ? 2 * i : 1)) != 0)
            break;
        rc = read_task(&g, i);
    }
    if (rc == HS_OK && next_line(&g, &l)) {
        hs__where at;
        cur = l.start;
        t = next_token(&l, &cur);
        at = at_token(&t, "");
        rc = hs__set_fail(s, &at, "more lines after the exit task %zu (the information part "
                          "starts each line with '#')", g.ntasks - 1);
    }
    if (rc == HS_OK)
        rc = build(&g);
    if (rc == HS_OK)
        rc = hs__set_finalize(s); /* while stg_where can name tasks */
    s->where = NULL;
    free(g.task_line);
    free(g.task_col);
    free(g.time);
    free(g.edges);
    return rc;
}

const hs__reader hs__reader_stg = {
    .name = "stg",
    .extensions = ".stg",
    .description = "Kasahara's Standard Task Graph Set, with or without communication costs",
    .read = read_stg,
};
