/* hetsched — sequenced schedules, their timing and a local search over
 * them (mapper/local_search.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mapper/local_search.h"

static size_t at_least_1(size_t n)
{
    return n ? n : 1;
}

double hs__seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hs__seq_sched_alloc(hs__seq_sched *s, size_t n, hs_error *err)
{
    s->dev = malloc(at_least_1(n) * sizeof *s->dev);
    s->seq = malloc(at_least_1(n) * sizeof *s->seq);
    s->makespan = HUGE_VAL;
    if (s->dev && s->seq)
        return HS_OK;
    hs__seq_sched_free(s);
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

void hs__seq_sched_free(hs__seq_sched *s)
{
    free(s->dev);
    free(s->seq);
    s->dev = NULL;
    s->seq = NULL;
}

void hs__seq_sched_copy(hs__seq_sched *to, const hs__seq_sched *from, size_t n)
{
    memcpy(to->dev, from->dev, n * sizeof *to->dev);
    memcpy(to->seq, from->seq, n * sizeof *to->seq);
    to->makespan = from->makespan;
}

int hs__retimer_init(hs__retimer *r, const hs_graph *g, const hs_platform *pf, hs_error *err)
{
    size_t n = at_least_1(g->ntasks), m = (size_t)(g->ndevices > 0 ? g->ndevices : 1);
    size_t *order = malloc(n * sizeof *order);
    memset(r, 0, sizeof *r);
    r->g = g;
    r->pf = pf;
    r->start = malloc(n * sizeof *r->start);
    r->end = malloc(n * sizeof *r->end);
    r->topo_pos = malloc(n * sizeof *r->topo_pos);
    r->avail_at = malloc((n + 1) * m * sizeof *r->avail_at);
    r->home_at = malloc((n + 1) * sizeof *r->home_at);
    r->cend = malloc(n * sizeof *r->cend);
    r->tend = malloc(n * sizeof *r->tend);
    r->stamp = calloc(n, sizeof *r->stamp);
    r->avail = malloc(m * sizeof *r->avail);
    if (!order || !r->start || !r->end || !r->topo_pos || !r->avail_at || !r->home_at ||
        !r->cend || !r->tend || !r->stamp || !r->avail) {
        free(order);
        hs__retimer_free(r);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    if (hs_graph_topo_order(g, order, err) != HS_OK) {
        free(order);
        hs__retimer_free(r);
        return HS_EINPUT;
    }
    for (size_t k = 0; k < g->ntasks; k++)
        r->topo_pos[order[k]] = k;
    free(order);
    return HS_OK;
}

void hs__retimer_free(hs__retimer *r)
{
    free(r->start);
    free(r->end);
    free(r->topo_pos);
    free(r->avail_at);
    free(r->home_at);
    free(r->cend);
    free(r->tend);
    free(r->stamp);
    free(r->avail);
    memset(r, 0, sizeof *r);
}

enum { FULL, COMMIT, PARTIAL };

/* The delay model, task by task in seq from position `from`, with r->avail
 * holding each device's end of work before it and `home` the makespan so
 * far: the same expressions, in the same order, as the engine's start of a
 * planned task (exec/engine.c), so that the times agree to the last bit.
 * FULL and COMMIT write r->start and r->end (COMMIT also the committed
 * timing); PARTIAL writes trial ends and reads a predecessor's trial end
 * when this timing has computed it, else its committed end. */
static double run(hs__retimer *r, const int *dev, const size_t *seq, size_t from, double home,
                  double cutoff, int mode)
{
    const hs_graph *g = r->g;
    const hs_platform *pf = r->pf;
    size_t m = (size_t)g->ndevices;
    r->evaluations++;
    for (size_t k = from; k < g->ntasks; k++) {
        size_t t = seq[k];
        int d = dev[t], mem = pf->devices[d].memory;
        const hs_task *task = &g->tasks[t];
        double ready = hs_transfer_us(pf, HS_HOST_MEMORY, mem, task->input_bytes), begin, end;
        const hs_edge *e;
        if (mode == COMMIT) {
            memcpy(&r->avail_at[k * m], r->avail, m * sizeof *r->avail);
            r->home_at[k] = home;
        }
        HS_GRAPH_PRED_FOREACH(g, t, e)
        {
            size_t u = e->from;
            double eu = mode != PARTIAL          ? r->end[u]
                        : r->stamp[u] == r->trial ? r->tend[u]
                                                  : r->cend[u];
            double at = eu + hs_transfer_us(pf, pf->devices[dev[u]].memory, mem, e->bytes);
            if (at > ready)
                ready = at;
        }
        begin = ready > r->avail[d] ? ready : r->avail[d];
        end = r->avail[d] = begin + task->cost_us[d];
        if (mode == PARTIAL) {
            r->tend[t] = end;
            r->stamp[t] = r->trial;
        } else {
            r->start[t] = begin;
            r->end[t] = end;
        }
        end += hs_transfer_us(pf, mem, HS_HOST_MEMORY, task->output_bytes);
        if (end >= cutoff)
            return HUGE_VAL;
        if (end > home)
            home = end;
    }
    if (mode == COMMIT) {
        memcpy(&r->avail_at[g->ntasks * m], r->avail, m * sizeof *r->avail);
        r->home_at[g->ntasks] = home;
        memcpy(r->cend, r->end, g->ntasks * sizeof *r->cend);
    }
    return home;
}

static void idle_devices(hs__retimer *r)
{
    for (int d = 0; d < r->g->ndevices; d++)
        r->avail[d] = 0.0;
}

double hs__retime(hs__retimer *r, const int *dev, const size_t *seq, double cutoff)
{
    idle_devices(r);
    return run(r, dev, seq, 0, 0.0, cutoff, FULL);
}

double hs__retime_commit(hs__retimer *r, const int *dev, const size_t *seq)
{
    idle_devices(r);
    return run(r, dev, seq, 0, 0.0, HUGE_VAL, COMMIT);
}

double hs__retime_from(hs__retimer *r, const int *dev, const size_t *seq, size_t from,
                       double cutoff)
{
    size_t m = (size_t)r->g->ndevices;
    memcpy(r->avail, &r->avail_at[from * m], m * sizeof *r->avail);
    r->trial++;
    return run(r, dev, seq, from, r->home_at[from], cutoff, PARTIAL);
}

typedef struct seq_key {
    double start, end;
    size_t topo, task;
} seq_key;

static int by_start(const void *a, const void *b)
{
    const seq_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->topo > y->topo) - (x->topo < y->topo);
}

/* Sorting all tasks by (start, end, topological position) lists each
 * device's tasks in their planned order and every predecessor before its
 * successor: a successor starts no earlier than its predecessor ends, and
 * where both take no time at one instant the topological position decides. */
void hs__seq_from_plan(hs__retimer *r, const hs__plan *plan, hs__seq_sched *out)
{
    size_t n = r->g->ntasks;
    seq_key *keys = malloc(at_least_1(n) * sizeof *keys);
    if (keys) {
        for (size_t t = 0; t < n; t++)
            keys[t] = (seq_key){plan->start[t], plan->end[t], r->topo_pos[t], t};
        qsort(keys, n, sizeof *keys, by_start);
        for (size_t k = 0; k < n; k++)
            out->seq[k] = keys[k].task;
        free(keys);
    } else {
        /* out of memory: topological order, each task where the plan put it
         * (a valid schedule, maybe a slower one) */
        for (size_t t = 0; t < n; t++)
            out->seq[r->topo_pos[t]] = t;
    }
    memcpy(out->dev, plan->device, n * sizeof *out->dev);
    out->makespan = hs__retime(r, out->dev, out->seq, HUGE_VAL);
}

void hs__seq_to_plan(hs__retimer *r, const hs__seq_sched *s, hs__plan *plan)
{
    size_t n = r->g->ntasks;
    hs__retime(r, s->dev, s->seq, HUGE_VAL);
    memcpy(plan->device, s->dev, n * sizeof *plan->device);
    memcpy(plan->start, r->start, n * sizeof *plan->start);
    memcpy(plan->end, r->end, n * sizeof *plan->end);
}

/* ============================================================ local search */

typedef struct search {
    hs__retimer *r;
    hs__seq_sched *s;
    size_t *pos;            /* [ntasks]: position of each task in s->seq */
    long *before;           /* [ntasks]: the task before it on its device, or -1 */
    long *last;             /* [ndevices]: scratch */
    unsigned char *critical; /* [ntasks] */
    double deadline;
    size_t work;            /* tasks timed since the clock was last read */
    int out_of_time;
} search;

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(a));
}

/* Marks the committed schedule's critical tasks: those whose output reaches
 * host at the makespan, and, back from each critical task, whatever holds
 * its start: a predecessor whose data arrive just then, or the task before
 * it on its device ending just then.  A move that changes no critical task
 * cannot shorten the schedule (every other task has slack), so the search
 * moves critical tasks only. */
static void mark_critical(search *x)
{
    const hs_graph *g = x->r->g;
    const hs_platform *pf = x->r->pf;
    const double *start = x->r->start, *end = x->r->end;
    const int *dev = x->s->dev;
    for (int d = 0; d < g->ndevices; d++)
        x->last[d] = -1;
    for (size_t k = 0; k < g->ntasks; k++) {
        size_t t = x->s->seq[k];
        x->before[t] = x->last[dev[t]];
        x->last[dev[t]] = (long)t;
    }
    for (size_t k = g->ntasks; k-- > 0;) {
        size_t t = x->s->seq[k];
        int mem = pf->devices[dev[t]].memory;
        const hs_edge *e;
        if (same(end[t] + hs_transfer_us(pf, mem, HS_HOST_MEMORY, g->tasks[t].output_bytes),
                 x->s->makespan))
            x->critical[t] = 1;
        if (!x->critical[t])
            continue;
        HS_GRAPH_PRED_FOREACH(g, t, e)
        {
            int mu = pf->devices[dev[e->from]].memory;
            if (same(end[e->from] + hs_transfer_us(pf, mu, mem, e->bytes), start[t]))
                x->critical[e->from] = 1;
        }
        if (x->before[t] >= 0 && same(end[x->before[t]], start[t]))
            x->critical[x->before[t]] = 1;
    }
}

static void commit(search *x)
{
    x->s->makespan = hs__retime_commit(x->r, x->s->dev, x->s->seq);
    memset(x->critical, 0, x->r->g->ntasks);
    for (size_t k = 0; k < x->r->g->ntasks; k++)
        x->pos[x->s->seq[k]] = k;
    mark_critical(x);
}

/* Times s, which differs from the committed schedule from position `from`
 * on, and commits it when it beats the committed makespan by more than
 * rounding; 1 if it did. */
static int better(search *x, size_t from)
{
    double cur = x->s->makespan, tol = 1e-9 * cur;
    double v = hs__retime_from(x->r, x->s->dev, x->s->seq, from, cur - tol);
    /* the clock costs a system call on some machines: read it after about
     * 2^16 tasks timed (some 100 us), a few tries on a large graph and
     * thousands on a small one */
    x->work += x->r->g->ntasks - from + 1;
    if (x->work > 65536) {
        x->work = 0;
        x->out_of_time = hs__seconds() > x->deadline;
    }
    if (v < cur - tol) {
        commit(x);
        return 1;
    }
    return 0;
}

/* Moves the entry at seq[from] to seq[to], shifting those between. */
static void shift(size_t *seq, size_t from, size_t to)
{
    size_t t = seq[from];
    if (from < to)
        memmove(&seq[from], &seq[from + 1], (to - from) * sizeof *seq);
    else
        memmove(&seq[to + 1], &seq[to], (from - to) * sizeof *seq);
    seq[to] = t;
}

/* t to device d, in place. */
static int try_device(search *x, size_t t, int d)
{
    int old = x->s->dev[t];
    x->s->dev[t] = d;
    if (better(x, x->pos[t]))
        return 1;
    x->s->dev[t] = old;
    return 0;
}

/* t to every place in seq its predecessors and successors allow, on every
 * device. */
static int try_places(search *x, size_t t)
{
    const hs_graph *g = x->r->g;
    const hs_edge *e;
    size_t i = x->pos[t], lo = 0, hi = g->ntasks - 1;
    int old = x->s->dev[t];
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        if (x->pos[e->from] + 1 > lo)
            lo = x->pos[e->from] + 1;
    }
    HS_GRAPH_SUCC_FOREACH(g, t, e)
    {
        if (x->pos[e->to] - 1 < hi)
            hi = x->pos[e->to] - 1;
    }
    for (size_t p = lo; p <= hi && !x->out_of_time; p++) {
        if (p == i)
            continue;
        shift(x->s->seq, i, p);
        for (int d = 0; d < g->ndevices && !x->out_of_time; d++) {
            x->s->dev[t] = d;
            if (better(x, p < i ? p : i))
                return 1;
        }
        x->s->dev[t] = old;
        shift(x->s->seq, p, i);
    }
    return 0;
}

/* t and u, the two ends of an edge, both to device d: a heavy edge makes
 * each alone lose on any device the other is not on. */
static int try_pair(search *x, size_t t, size_t u, int d)
{
    int dt = x->s->dev[t], du = x->s->dev[u];
    if (dt == d && du == d)
        return 0;
    x->s->dev[t] = d;
    x->s->dev[u] = d;
    if (better(x, x->pos[t] < x->pos[u] ? x->pos[t] : x->pos[u]))
        return 1;
    x->s->dev[t] = dt;
    x->s->dev[u] = du;
    return 0;
}

/* t with each of its neighbours, to every device. */
static int try_pairs(search *x, size_t t)
{
    const hs_graph *g = x->r->g;
    const hs_edge *e;
    HS_GRAPH_PRED_FOREACH(g, t, e)
    {
        for (int d = 0; d < g->ndevices && !x->out_of_time; d++)
            if (try_pair(x, t, e->from, d))
                return 1;
    }
    HS_GRAPH_SUCC_FOREACH(g, t, e)
    {
        for (int d = 0; d < g->ndevices && !x->out_of_time; d++)
            if (try_pair(x, t, e->to, d))
                return 1;
    }
    return 0;
}

/* t and u exchange devices. */
static int try_swap(search *x, size_t t, size_t u)
{
    int dt = x->s->dev[t], du = x->s->dev[u];
    if (dt == du)
        return 0;
    x->s->dev[t] = du;
    x->s->dev[u] = dt;
    if (better(x, x->pos[t] < x->pos[u] ? x->pos[t] : x->pos[u]))
        return 1;
    x->s->dev[t] = dt;
    x->s->dev[u] = du;
    return 0;
}

/* Every task of device a to device b and back: on devices of one kind
 * whose costs differ, a whole chain may belong on the other one, which no
 * move of a single task finds (each pays a transfer). */
static int try_exchange(search *x, int a, int b)
{
    int *dev = x->s->dev;
    size_t n = x->r->g->ntasks, from = n;
    for (size_t k = 0; k < n; k++) {
        size_t t = x->s->seq[k];
        if (dev[t] == a || dev[t] == b) {
            dev[t] = dev[t] == a ? b : a;
            if (from == n)
                from = k;
        }
    }
    if (from == n || better(x, from))
        return from < n;
    for (size_t t = 0; t < n; t++)
        if (dev[t] == a || dev[t] == b)
            dev[t] = dev[t] == a ? b : a;
    return 0;
}

void hs__local_search(hs__retimer *r, hs__seq_sched *s, double deadline)
{
    const hs_graph *g = r->g;
    size_t n = g->ntasks;
    search x = {.r = r, .s = s, .deadline = deadline};
    int improved = 1;
    x.pos = malloc(at_least_1(n) * sizeof *x.pos);
    x.before = malloc(at_least_1(n) * sizeof *x.before);
    x.last = malloc((size_t)(g->ndevices > 0 ? g->ndevices : 1) * sizeof *x.last);
    x.critical = malloc(at_least_1(n));
    if (n == 0 || !x.pos || !x.before || !x.last || !x.critical)
        improved = 0; /* out of memory: s stays as it is */
    else
        commit(&x);
    while (improved && !x.out_of_time) {
        improved = 0;
        for (int a = 0; a < g->ndevices; a++)
            for (int b = a + 1; b < g->ndevices && !x.out_of_time; b++)
                improved |= try_exchange(&x, a, b);
        for (size_t k = 0; k < n && !x.out_of_time; k++) {
            size_t t = s->seq[k];
            if (!x.critical[t])
                continue;
            for (int d = 0; d < g->ndevices && !x.out_of_time && x.critical[t]; d++)
                if (d != s->dev[t])
                    improved |= try_device(&x, t, d);
            if (x.critical[t])
                improved |= try_places(&x, t);
            if (x.critical[t])
                improved |= try_pairs(&x, t);
            for (size_t j = 0; j < n && !x.out_of_time && x.critical[t]; j++)
                if (s->seq[j] != t)
                    improved |= try_swap(&x, t, s->seq[j]);
        }
    }
    free(x.pos);
    free(x.before);
    free(x.last);
    free(x.critical);
}

/* xorshift64*: the kicks' random choices. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 2685821657736338717ULL;
}

int hs__iterated_search(hs__retimer *r, hs__seq_sched *s, unsigned long seed, int stall,
                        double deadline, hs_error *err)
{
    size_t n = r->g->ntasks;
    int m = r->g->ndevices, quiet = 0;
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)seed;
    hs__seq_sched cur;
    int rc;
    hs__local_search(r, s, deadline);
    if (n == 0 || m < 2)
        return HS_OK;
    if ((rc = hs__seq_sched_alloc(&cur, n, err)) != HS_OK)
        return rc;
    for (long kick = 0; quiet < stall && hs__seconds() < deadline; kick++) {
        size_t t = (size_t)(next_random(&x) % n);
        int d = (int)(next_random(&x) % (uint64_t)m);
        hs__seq_sched_copy(&cur, s, n);
        if (kick % 2 == 0) {
            /* two tasks, each to another device */
            size_t u = (size_t)(next_random(&x) % n);
            int du = (int)(next_random(&x) % (uint64_t)(m - 1));
            cur.dev[t] = d != cur.dev[t] ? d : (d + 1) % m;
            cur.dev[u] = du >= cur.dev[u] ? du + 1 : du;
        } else {
            /* a task and all its neighbours to one device: a cluster joined
             * by heavy edges moves only as a whole */
            const hs_edge *e;
            cur.dev[t] = d;
            HS_GRAPH_PRED_FOREACH(r->g, t, e)
            {
                cur.dev[e->from] = d;
            }
            HS_GRAPH_SUCC_FOREACH(r->g, t, e)
            {
                cur.dev[e->to] = d;
            }
        }
        hs__local_search(r, &cur, deadline);
        if (cur.makespan < s->makespan) {
            hs__seq_sched_copy(s, &cur, n);
            quiet = 0;
        } else {
            quiet++;
        }
    }
    hs__seq_sched_free(&cur);
    return HS_OK;
}
