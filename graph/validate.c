/* hetsched — the schedule validator: checks a schedule against the delay
 * model of DESIGN.md §1, the constraints of Zhou & Liu's MIP (eq. (1), (4),
 * (5), (6), (7)) extended with split tasks and host input/output
 * (include/hetsched/schedule.h); and a real run's measured schedule against
 * the rules it must keep (below, "a real run's schedule").
 *
 * The checks run in a fixed order and stop at the first failure, so that a
 * broken schedule always gets the same, most basic complaint: the workload
 * and model it names, placement of every task, devices, times, durations,
 * device overlaps, data arrival, makespan, then the listed transfers.  The
 * cost is O((n + e) log n) for n placements and e edges: one counting sort by
 * task, one sort by device and time, and for split tasks an upper envelope of
 * each predecessor's parts (see "data arrival" below), so that a task split
 * in 100000 parts feeding another costs no more than whole tasks. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/schedule.h"
#include "graph/export_util.h"
#include "graph/schedule_int.h"

#define ID_MAX 256
/* Every failed check reports through this; c is the validation context. */
#define INVALID(...) hs_error_set(c->err, HS_EINVALID, __VA_ARGS__)
#define NUM_MAX 48

/* Two times a and b (us) agree when they differ by at most
 * HS_VALIDATE_TOL_US or HS_VALIDATE_TOL_REL of the larger: what a schedule
 * printed with 3 decimals, or with 9 significant digits, still carries.  It
 * follows the times compared, never the costs: a 0.001 us task that starts
 * at 1e11 us is as exact as times of that size can be.  A few units in the
 * last place more absorb the rounding of the doubles themselves, so that
 * 485.337 - 485.336 (0.0010000000000332 in binary) counts as 0.001. */
static double tol(double a, double b)
{
    double big = fmax(fabs(a), fabs(b));
    return fmax(HS_VALIDATE_TOL_US, HS_VALIDATE_TOL_REL * big) + 16 * DBL_EPSILON * big;
}

/* Does `t` come earlier than `ref` by more than the tolerance? */
static int before(double t, double ref)
{
    return t < ref - tol(t, ref);
}

/* Writes x with `dec` decimals, trailing zeros dropped (526.667, 500). */
static const char *num(char *buf, double x, int dec)
{
    size_t n;
    if (!isfinite(x) || fabs(x) >= 1e15) {
        snprintf(buf, NUM_MAX, "%g", x);
        return buf;
    }
    snprintf(buf, NUM_MAX, "%.*f", dec, x);
    if (strchr(buf, '.')) {
        n = strlen(buf);
        while (buf[n - 1] == '0')
            buf[--n] = '\0';
        if (buf[n - 1] == '.')
            buf[--n] = '\0';
    }
    if (strcmp(buf, "-0") == 0)
        strcpy(buf, "0");
    return buf;
}

/* Decimals (3 to 12) that show a and b further apart than the tolerance
 * when they are, so a message never reads "starts at 10 us, before ...
 * 10 us", nor "runs 60.001 us, but its cost is 60 us". */
static int decimals(double a, double b)
{
    char sa[NUM_MAX], sb[NUM_MAX];
    int dec = 3;
    while (dec < 12 && !(fabs(strtod(num(sa, a, dec), NULL) - strtod(num(sb, b, dec), NULL)) >
                         tol(a, b)))
        dec++;
    return dec;
}

struct envelope;

typedef struct ctx {
    const hs_workload *w;
    const hs_schedule *s;
    hs__plindex ix;
    struct envelope *env; /* per task, built when a successor needs it */
    struct edge_key *edges; /* the edges of tasks with many successors by (from, to),
                               for their transfers; built when one needs it */
    size_t nedges;
    int measured;           /* a real run's schedule ("model": "measured") or its
                               prediction by the executor's model ("executor") */
    hs_error *err;
} ctx;

static const char *pl_id(const ctx *c, size_t i, char *buf)
{
    hs__placement_id(c->w, &c->s->placements[i], buf, ID_MAX);
    return buf;
}

static const char *dev_name(const ctx *c, int d)
{
    return d == HS_HOST_DEVICE ? "host" : c->w->platform.devices[d].name;
}

static int mem_of(const ctx *c, int d)
{
    return hs__device_memory(c->w, d);
}

/* ------------------------------------------------- the workload and model */

/* The schedule is of this workload (when both name a file) and of a model
 * the validator checks: the delay model, or a real run's measurements or
 * the executor's model of one. */
static int check_names(ctx *c)
{
    const char *sw = c->s->workload, *ww = c->w->path;
    c->measured = c->s->model && (strcmp(c->s->model, "measured") == 0 ||
                                  strcmp(c->s->model, "executor") == 0);
    if (c->s->model && strcmp(c->s->model, "delay") != 0 && !c->measured)
        return INVALID("the schedule's model is '%.200s', not 'delay', 'measured' or "
                       "'executor' (the models the validator checks)",
                       c->s->model);
    if (sw && ww && !hs__same_file(sw, ww))
        return INVALID("the schedule is of workload %.300s, not %.300s", sw, ww);
    return HS_OK;
}

/* ------------------------------------------------- every task placed, eq. (1) */

typedef struct part_ref {
    int part;
    size_t i;
} part_ref;

static int by_part(const void *a, const void *b)
{
    const part_ref *x = a, *y = b;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Task t (with placements) is placed once whole, or as parts 0..n-1 of one n,
 * each once; `refs` is scratch room for its placements. */
static int check_parts(const ctx *c, size_t t, part_ref *refs)
{
    const hs_placement *pl = c->s->placements;
    char a[ID_MAX], b[ID_MAX];
    size_t cnt = c->ix.off[t + 1] - c->ix.off[t], first = c->ix.idx[c->ix.off[t]], i, k = 0;
    int n = pl[first].nparts;
    HS__PLINDEX_FOREACH(&c->ix, t, i)
    {
        if (pl[i].nparts != n)
            return INVALID("%s and %s split one task into different numbers of parts",
                           pl_id(c, first, a), pl_id(c, i, b));
        if (n < 1 || pl[i].part < 0 || pl[i].part >= n)
            return INVALID("%s: part %d of %d does not exist (parts are numbered 0 to "
                           "n-1 of n >= 1)",
                           pl_id(c, i, a), pl[i].part, n);
        refs[k++] = (part_ref){.part = pl[i].part, .i = i};
    }
    if (n == 1) {
        if (cnt > 1)
            return INVALID("%s is placed %zu times (starting at %g us and %g us); a whole "
                           "task runs once",
                           pl_id(c, first, a), cnt, pl[first].start_us,
                           pl[c->ix.idx[c->ix.off[t] + 1]].start_us);
        return HS_OK;
    }
    qsort(refs, cnt, sizeof *refs, by_part);
    for (k = 1; k < cnt; k++)
        if (refs[k].part == refs[k - 1].part)
            return INVALID("%s is placed twice", pl_id(c, refs[k].i, a));
    for (k = 0; k < (size_t)n; k++)
        if (k >= cnt || refs[k].part != (int)k) {
            hs_placement missing = pl[first];
            missing.part = (int)k;
            hs__placement_id(c->w, &missing, a, sizeof a);
            return INVALID("%s is missing: a task split in %d parts needs parts 0 to %d", a, n,
                           n - 1);
        }
    return HS_OK;
}

/* eq. (1), extended to split tasks: every task placed, fractions in (0, 1]
 * summing to 1 within 1e-9. */
static int check_tasks(const ctx *c)
{
    const hs_schedule *s = c->s;
    const hs_graph *g = &c->w->graph;
    part_ref *refs;
    char a[ID_MAX];
    int rc = HS_OK;
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task >= g->ntasks)
            return INVALID("placement %zu names task %zu; the graph has %zu tasks", i,
                           s->placements[i].task, g->ntasks);
    if (!(refs = malloc((s->nplacements ? s->nplacements : 1) * sizeof *refs)))
        return hs_error_set(c->err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < g->ntasks && rc == HS_OK; t++) {
        double sum = 0.0;
        size_t i;
        if (c->ix.off[t + 1] == c->ix.off[t]) {
            hs_task_id(c->w, &g->tasks[t], a, sizeof a);
            rc = INVALID("%s is not placed", a);
            break;
        }
        if ((rc = check_parts(c, t, refs)) != HS_OK)
            break;
        HS__PLINDEX_FOREACH(&c->ix, t, i)
        {
            double f = s->placements[i].fraction;
            if (!(f > 0.0 && f <= 1.0)) {
                rc = INVALID("%s has fraction %g; a fraction lies in (0, 1]", pl_id(c, i, a), f);
                break;
            }
            sum += f;
        }
        if (rc == HS_OK && !(fabs(sum - 1.0) <= HS_VALIDATE_TOL_FRACTION)) {
            hs_task_id(c->w, &g->tasks[t], a, sizeof a);
            rc = s->placements[c->ix.idx[c->ix.off[t]]].nparts == 1
                     ? INVALID("%s is placed whole with fraction %.12g, not 1", a, sum)
                     : INVALID("the fractions of the %d parts of %s sum to %.12g, not 1",
                               s->placements[c->ix.idx[c->ix.off[t]]].nparts, a, sum);
        }
    }
    free(refs);
    return rc;
}

/* -------------------------------------------- devices, times and durations */

static int check_devices(const ctx *c)
{
    char a[ID_MAX];
    for (size_t i = 0; i < c->s->nplacements; i++) {
        int d = c->s->placements[i].device;
        if (d < 0 || d >= c->w->platform.ndevices)
            return INVALID("%s is placed on device %d; the platform has devices 0 to %d",
                           pl_id(c, i, a), d, c->w->platform.ndevices - 1);
    }
    return HS_OK;
}

/* eq. (7): 0 <= start <= end, all finite. */
static int check_times(const ctx *c)
{
    char a[ID_MAX], x[NUM_MAX], y[NUM_MAX];
    for (size_t i = 0; i < c->s->nplacements; i++) {
        const hs_placement *p = &c->s->placements[i];
        const char *dev = dev_name(c, p->device);
        if (!isfinite(p->start_us) || !isfinite(p->end_us))
            return INVALID("%s on %s starts at %g us and ends at %g us; times must be "
                           "finite",
                           pl_id(c, i, a), dev, p->start_us, p->end_us);
        if (p->start_us < 0)
            return INVALID("%s on %s starts at %s us, before time 0", pl_id(c, i, a), dev,
                           num(x, p->start_us, decimals(p->start_us, 0)));
        if (p->end_us < p->start_us) {
            int dec = decimals(p->end_us, p->start_us);
            return INVALID("%s on %s ends at %s us, before it starts at %s us", pl_id(c, i, a), dev,
                           num(x, p->end_us, dec), num(y, p->start_us, dec));
        }
    }
    return HS_OK;
}

/* A whole task runs exactly its cost on its device; a part at least its
 * fraction of it (a part may wait on its device's other work). */
static int check_durations(const ctx *c)
{
    char a[ID_MAX], x[NUM_MAX], y[NUM_MAX], z[NUM_MAX], q[NUM_MAX];
    for (size_t i = 0; i < c->s->nplacements; i++) {
        const hs_placement *p = &c->s->placements[i];
        const char *dev = dev_name(c, p->device);
        double cost = c->w->graph.tasks[p->task].cost_us[p->device];
        double dur = p->end_us - p->start_us, need = p->fraction * cost;
        double due = p->start_us + cost; /* a whole task's end */
        int dec;
        if (p->nparts == 1 && (before(p->end_us, due) || before(due, p->end_us))) {
            dec = decimals(dur, cost);
            return INVALID("%s on %s runs %s us (%s to %s us), but its cost on %s is "
                           "%s us",
                           pl_id(c, i, a), dev, num(x, dur, dec), num(y, p->start_us, dec),
                           num(z, p->end_us, dec), dev, num(q, cost, dec));
        }
        if (p->nparts > 1 && before(p->end_us, p->start_us + need)) {
            dec = decimals(dur, need);
            return INVALID("%s on %s runs %s us (%s to %s us), less than its fraction "
                           "%g of its cost on %s (%g x %g = %s us)",
                           pl_id(c, i, a), dev, num(x, dur, dec), num(y, p->start_us, dec),
                           num(z, p->end_us, dec), p->fraction, dev, p->fraction, cost,
                           num(q, need, dec));
        }
    }
    return HS_OK;
}

/* ------------------------------------------- one task at a time, eq. (5) */

typedef struct slot {
    int device;
    double start, end;
    size_t i;
} slot;

static int by_device_time(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The placements into v (n of them) sorted by device, start, end and
 * index: by device first (counting, in their order), then each device's
 * sorted only where they are not in that order already (map writes a
 * schedule's tasks by start time: a million-task one sorted whole took
 * 0.2-0.3 s).  Devices are checked (check_devices).  Returns 0, or -1 when
 * out of memory. */
static int sort_by_device_time(const ctx *c, slot *v, size_t n)
{
    int nd = c->w->platform.ndevices;
    size_t *off = calloc((size_t)nd + 1, sizeof *off);
    if (!off)
        return -1;
    for (size_t i = 0; i < n; i++)
        off[c->s->placements[i].device + 1]++;
    for (int d = 0; d < nd; d++)
        off[d + 1] += off[d];
    for (size_t i = 0; i < n; i++) {
        const hs_placement *p = &c->s->placements[i];
        v[off[p->device]++] = (slot){.device = p->device, .start = p->start_us,
                                     .end = p->end_us, .i = i};
    }
    for (int d = 0; d < nd; d++) { /* device d's are v[off[d - 1] .. off[d]) now */
        size_t from = d ? off[d - 1] : 0, k = from + 1;
        while (k < off[d] && by_device_time(&v[k - 1], &v[k]) < 0)
            k++;
        if (k < off[d])
            qsort(v + from, off[d] - from, sizeof *v, by_device_time);
    }
    free(off);
    return 0;
}

/* Sorted by device and start, a placement overlaps an earlier one exactly
 * when it starts before the latest end seen so far on its device; touching
 * (start == previous end) is fine. */
static int check_overlaps(const ctx *c)
{
    size_t n = c->s->nplacements, last = 0;
    slot *v = malloc((n ? n : 1) * sizeof *v);
    char a[ID_MAX], b[ID_MAX], x[NUM_MAX], y[NUM_MAX], z[NUM_MAX], q[NUM_MAX];
    int rc = HS_OK;
    if (!v || sort_by_device_time(c, v, n) != 0) {
        free(v);
        return hs_error_set(c->err, HS_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || v[k].device != v[last].device) {
            last = k;
            continue;
        }
        if (before(v[k].start, v[last].end)) {
            int dec = decimals(v[k].start, v[last].end);
            rc = INVALID("%s and %s overlap on %s: %s runs %s to %s us, %s %s to %s us",
                         pl_id(c, v[last].i, a), pl_id(c, v[k].i, b), dev_name(c, v[k].device), a,
                         num(x, v[last].start, dec), num(y, v[last].end, dec), b,
                         num(z, v[k].start, dec), num(q, v[k].end, dec));
            break;
        }
        if (v[k].end > v[last].end)
            last = k;
    }
    free(v);
    return rc;
}

/* ------------------------------------------------- data arrival, eq. (4) */

/* A predecessor split in many parts is first checked through the upper
 * envelope of its parts, so that a task of P parts feeding one of Q parts
 * costs O((P + Q) log P) instead of P x Q.  Part i on memory q sends
 * bytes x f_i x f_j to placement j on memory r != q, which arrives at
 * end_i + latency + f_i z with z = bytes x f_j / (bandwidth x 1000): a line
 * in z for each part.  The parts on one memory make one envelope (the upper
 * hull of their lines, slopes increasing), and the latest of their arrivals
 * at any z is a binary search on it; on r itself, or for an edge without
 * data, it is their latest end.  That bound is never below the latest
 * arrival, so a placement that starts after it is done with that edge; one
 * that does not is checked part by part, which finds the first part whose
 * data come too late, as for a predecessor of few parts. */
#define ENVELOPE_MIN_PARTS 8

typedef struct line {
    double f, end; /* arrival - latency = end + f z */
} line;

typedef struct hull {
    int memory;
    double latest_end;
    size_t n; /* lines on the envelope, slopes increasing */
    line *l;
} hull;

typedef struct envelope {
    int nhulls; /* 0: not built */
    hull *h;
    line *lines; /* storage of every hull's lines */
} envelope;

typedef struct part_line {
    int memory;
    line l;
} part_line;

static int by_memory_slope(const void *a, const void *b)
{
    const part_line *x = a, *y = b;
    if (x->memory != y->memory)
        return x->memory < y->memory ? -1 : 1;
    if (x->l.f != y->l.f)
        return x->l.f < y->l.f ? -1 : 1;
    return (x->l.end > y->l.end) - (x->l.end < y->l.end);
}

/* Is m (between l and r, slopes increasing) below max(l, r) everywhere? */
static int useless(const line *l, const line *m, const line *r)
{
    return (l->end - r->end) * (m->f - l->f) <= (l->end - m->end) * (r->f - l->f);
}

/* Builds the envelopes of task t's placements (at least one), one hull per
 * memory; HS_ENOMEM on failure. */
static int build_envelope(const ctx *c, size_t t, envelope *e)
{
    size_t n = c->ix.off[t + 1] - c->ix.off[t], k = 0, i;
    part_line *pl = malloc(n * sizeof *pl);
    e->lines = malloc(n * sizeof *e->lines);
    e->h = malloc(n * sizeof *e->h);
    if (!pl || !e->lines || !e->h) {
        free(pl);
        return hs_error_set(c->err, HS_ENOMEM, "out of memory");
    }
    HS__PLINDEX_FOREACH(&c->ix, t, i)
    {
        const hs_placement *p = &c->s->placements[i];
        pl[k++] = (part_line){.memory = c->w->platform.devices[p->device].memory,
                              .l = {.f = p->fraction, .end = p->end_us}};
    }
    qsort(pl, n, sizeof *pl, by_memory_slope);
    for (k = 0; k < n; k++) {
        hull *h;
        if (k == 0 || pl[k].memory != pl[k - 1].memory)
            e->h[e->nhulls++] =
                (hull){.memory = pl[k].memory, .latest_end = -HUGE_VAL, .l = e->lines + k};
        h = &e->h[e->nhulls - 1];
        h->latest_end = fmax(h->latest_end, pl[k].l.end);
        /* equal slopes: the later end (sorted last) wins */
        while (h->n >= 1 && h->l[h->n - 1].f == pl[k].l.f)
            h->n--;
        while (h->n >= 2 && useless(&h->l[h->n - 2], &h->l[h->n - 1], &pl[k].l))
            h->n--;
        h->l[h->n++] = pl[k].l;
    }
    free(pl);
    return HS_OK;
}

static void free_envelopes(ctx *c)
{
    for (size_t t = 0; c->env && t < c->w->graph.ntasks; t++) {
        free(c->env[t].h);
        free(c->env[t].lines);
    }
    free(c->env);
}

/* max over the hull's lines of end + f z, z >= 0. */
static double hull_max(const hull *h, double z)
{
    size_t lo = 0, hi = h->n - 1;
    while (lo < hi) { /* along the hull, end + f z rises, then falls */
        size_t mid = lo + (hi - lo) / 2;
        if (h->l[mid].end + h->l[mid].f * z < h->l[mid + 1].end + h->l[mid + 1].f * z)
            lo = mid + 1;
        else
            hi = mid;
    }
    return h->l[lo].end + h->l[lo].f * z;
}

/* An upper bound (up to rounding) of the latest arrival of edge e's data at
 * placement pv from every placement of e->from, whose envelope is `env`. */
static double latest_arrival(const ctx *c, const envelope *env, const hs_edge *e,
                             const hs_placement *pv)
{
    const hs_platform *pf = &c->w->platform;
    int r = pf->devices[pv->device].memory;
    double latest = -HUGE_VAL;
    for (int k = 0; k < env->nhulls; k++) {
        const hull *h = &env->h[k];
        const hs_link *l = &pf->links[h->memory * pf->nmemories + r];
        if (h->memory == r || e->bytes <= 0)
            latest = fmax(latest, h->latest_end);
        else if (!l->present)
            return HUGE_VAL;
        else
            latest = fmax(latest, l->latency_us + hull_max(h, e->bytes * pv->fraction /
                                                                 (l->bandwidth_gbps * 1000.0)));
    }
    return latest;
}

/* Placement j starts no earlier than its input from host (leaving at time 0)
 * and than the data of every placement i of every predecessor: i's end plus
 * the transfer of bytes x f_i x f_j between their memories. */
static int check_arrivals(ctx *c)
{
    const hs_graph *g = &c->w->graph;
    const hs_platform *pf = &c->w->platform;
    const hs_placement *pl = c->s->placements;
    char a[ID_MAX], b[ID_MAX], x[NUM_MAX], y[NUM_MAX];
    for (size_t j = 0; j < c->s->nplacements; j++) {
        const hs_placement *pv = &pl[j];
        int r = mem_of(c, pv->device), dec;
        double in =
            hs_transfer_us(pf, HS_HOST_MEMORY, r, g->tasks[pv->task].input_bytes * pv->fraction);
        const hs_edge *e;
        if (before(pv->start_us, in)) {
            dec = decimals(pv->start_us, in);
            return INVALID("%s on %s starts at %s us, before its input from host "
                           "arrives at %s us",
                           pl_id(c, j, a), dev_name(c, pv->device), num(x, pv->start_us, dec),
                           num(y, in, dec));
        }
        HS_GRAPH_PRED_FOREACH(g, pv->task, e)
        {
            size_t i;
            if (c->ix.off[e->from + 1] - c->ix.off[e->from] >= ENVELOPE_MIN_PARTS) {
                envelope *env;
                if (!c->env && !(c->env = calloc(g->ntasks, sizeof *c->env)))
                    return hs_error_set(c->err, HS_ENOMEM, "out of memory");
                env = &c->env[e->from];
                if (env->nhulls == 0 && build_envelope(c, e->from, env) != HS_OK)
                    return HS_ENOMEM;
                if (!before(pv->start_us, latest_arrival(c, env, e, pv)))
                    continue;
            }
            HS__PLINDEX_FOREACH(&c->ix, e->from, i)
            {
                const hs_placement *pu = &pl[i];
                double arrive = pu->end_us + hs_transfer_us(pf, mem_of(c, pu->device), r,
                                                            e->bytes * pu->fraction * pv->fraction);
                if (before(pv->start_us, arrive)) {
                    dec = decimals(pv->start_us, arrive);
                    return INVALID("%s on %s starts at %s us, before its input from "
                                   "%s on %s arrives at %s us",
                                   pl_id(c, j, a), dev_name(c, pv->device),
                                   num(x, pv->start_us, dec), pl_id(c, i, b),
                                   dev_name(c, pu->device), num(y, arrive, dec));
                }
            }
        }
    }
    return HS_OK;
}

/* ------------------------------------------------------- makespan, eq. (6) */

static int check_makespan(const ctx *c)
{
    const hs_platform *pf = &c->w->platform;
    double m = hs_schedule_makespan(c->w, c->s), got = c->s->makespan_us;
    char a[ID_MAX], x[NUM_MAX], y[NUM_MAX], z[NUM_MAX];
    size_t arg = 0;
    int dec;
    if (!before(got, m) && !before(m, got))
        return HS_OK;
    dec = decimals(got, m);
    for (size_t i = 0; i < c->s->nplacements; i++) {
        const hs_placement *p = &c->s->placements[i];
        double done =
            p->end_us + hs_transfer_us(pf, mem_of(c, p->device), HS_HOST_MEMORY,
                                       c->w->graph.tasks[p->task].output_bytes * p->fraction);
        if (done == m) {
            arg = i;
            break;
        }
    }
    if (c->s->placements[arg].end_us == m)
        return INVALID("makespan_us is %s us, but the model gives %s us (%s on %s "
                       "ends at %s us)",
                       num(x, got, dec), num(y, m, dec), pl_id(c, arg, a),
                       dev_name(c, c->s->placements[arg].device), num(z, m, dec));
    return INVALID("makespan_us is %s us, but the model gives %s us (%s on %s ends at "
                   "%s us, its output is back on host at %s us)",
                   num(x, got, dec), num(y, m, dec), pl_id(c, arg, a),
                   dev_name(c, c->s->placements[arg].device),
                   num(z, c->s->placements[arg].end_us, dec), num(y, m, dec));
}

/* ----------------------------------------------------------- the transfers */

/* "host" or "ID on DEVICE" for one end of transfer t. */
static const char *end_name(const ctx *c, long placement, char *buf)
{
    char id[ID_MAX];
    if (placement == HS_NONE)
        return strcpy(buf, "host");
    snprintf(buf, 2 * ID_MAX, "%s on %s", pl_id(c, (size_t)placement, id),
             dev_name(c, c->s->placements[placement].device));
    return buf;
}

typedef struct edge_key {
    size_t from, to;
    const hs_edge *e;
} edge_key;

static int by_ends(const void *a, const void *b)
{
    const edge_key *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

/* A task with at most this many successors has its edges found by reading
 * them all: at a million tasks every edge sorted by its ends took longer to
 * sort (3 million) than the look-ups it saved, each of which missed the
 * cache at most of its 20 steps. */
#define SCAN_SUCCESSORS 16

/* The edge from task u to task v (the workload has one at most), or NULL:
 * among u's successors, or by binary search in c->edges; -1 when out of
 * memory for those. */
static int find_edge(ctx *c, size_t u, size_t v, const hs_edge **out)
{
    const hs_graph *g = &c->w->graph;
    const edge_key *k;
    edge_key key = {.from = u, .to = v};
    const hs_edge *e;
    *out = NULL;
    if (g->succ_off[u + 1] - g->succ_off[u] <= SCAN_SUCCESSORS) {
        HS_GRAPH_SUCC_FOREACH(g, u, e)
        {
            if (e->to == v) {
                *out = e;
                break;
            }
        }
        return 0;
    }
    if (!c->edges) {
        size_t n = 0;
        for (size_t t = 0; t < g->ntasks; t++)
            if (g->succ_off[t + 1] - g->succ_off[t] > SCAN_SUCCESSORS)
                n += g->succ_off[t + 1] - g->succ_off[t];
        if (!(c->edges = malloc(n * sizeof *c->edges)))
            return -1;
        for (size_t t = 0; t < g->ntasks; t++)
            if (g->succ_off[t + 1] - g->succ_off[t] > SCAN_SUCCESSORS) {
                HS_GRAPH_SUCC_FOREACH(g, t, e)
                {
                    c->edges[c->nedges++] = (edge_key){.from = e->from, .to = e->to, .e = e};
                }
            }
        qsort(c->edges, c->nedges, sizeof *c->edges, by_ends);
    }
    k = bsearch(&key, c->edges, c->nedges, sizeof key, by_ends);
    *out = k ? k->e : NULL;
    return 0;
}

/* Transfer t carries the bytes the model sends between its ends (written
 * into `why` like transfer_problem's when it does not): a kernel's input or
 * output times its fraction, an edge's bytes times both fractions.  The
 * empty string when out of memory. */
static const char *bytes_problem(ctx *c, const hs_transfer *t, char *why, size_t size)
{
    const hs_graph *g = &c->w->graph;
    const hs_placement *pu = t->from_placement == HS_NONE ? NULL
                                                           : &c->s->placements[t->from_placement];
    const hs_placement *pv = t->to_placement == HS_NONE ? NULL
                                                         : &c->s->placements[t->to_placement];
    const hs_edge *e = NULL;
    char how[160], a[ID_MAX], b[ID_MAX];
    double want;
    if (!pu) {
        want = g->tasks[pv->task].input_bytes * pv->fraction;
    } else if (!pv) {
        want = g->tasks[pu->task].output_bytes * pu->fraction;
    } else {
        if (find_edge(c, pu->task, pv->task, &e) != 0) {
            why[0] = '\0';
            return why;
        }
        if (!e) {
            hs_task_id(c->w, &g->tasks[pu->task], a, sizeof a);
            hs_task_id(c->w, &g->tasks[pv->task], b, sizeof b);
            snprintf(why, size, ": the workload has no edge from %s to %s", a, b);
            return why;
        }
        want = e->bytes * pu->fraction * pv->fraction;
    }
    if (fabs(t->bytes - want) <=
        fmax(HS_VALIDATE_TOL_BYTES, HS_VALIDATE_TOL_REL * fmax(t->bytes, want)))
        return NULL;
    /* how the model got its bytes, written only for a message (a million
     * transfers are checked) */
    if (!pu)
        snprintf(how, sizeof how, "input_bytes %.15g x fraction %.15g",
                 g->tasks[pv->task].input_bytes, pv->fraction);
    else if (!pv)
        snprintf(how, sizeof how, "output_bytes %.15g x fraction %.15g",
                 g->tasks[pu->task].output_bytes, pu->fraction);
    else
        snprintf(how, sizeof how, "the edge's %.15g bytes x fractions %.15g and %.15g", e->bytes,
                 pu->fraction, pv->fraction);
    snprintf(why, size, " carries %.15g bytes, but the model sends %.15g (%s)", t->bytes, want,
             how);
    return why;
}

/* What is wrong with transfer t (whose ends exist), written into `why` as the
 * rest of a sentence that starts "transfer K from A to B"; NULL if nothing. */
static const char *transfer_problem(ctx *c, const hs_transfer *t, char *why, size_t size)
{
    const hs_platform *pf = &c->w->platform;
    char x[NUM_MAX], y[NUM_MAX], z[NUM_MAX], q[NUM_MAX];
    double need, took = t->end_us - t->start_us;
    int dec;
    for (int side = 0; side < 2; side++) {
        long pl = side ? t->to_placement : t->from_placement;
        int d = side ? t->to_device : t->from_device;
        int want = pl == HS_NONE ? HS_HOST_DEVICE : c->s->placements[pl].device;
        if (d != want) {
            if (d >= 0 && d < pf->ndevices)
                snprintf(x, sizeof x, "%s", pf->devices[d].name);
            else
                snprintf(x, sizeof x, d == HS_HOST_DEVICE ? "host" : "device %d", d);
            snprintf(why, size, ": its %s is %s, but it must be %s",
                     side ? "to_device" : "from_device", x, dev_name(c, want));
            return why;
        }
    }
    if (!isfinite(t->bytes) || t->bytes < 0 || !isfinite(t->start_us) || !isfinite(t->end_us) ||
        t->start_us < 0 || took < 0) {
        snprintf(why, size,
                 " has bytes %g, start %g us and end %g us; they must be finite, "
                 ">= 0, and end >= start",
                 t->bytes, t->start_us, t->end_us);
        return why;
    }
    if (bytes_problem(c, t, why, size))
        return why;
    if (t->from_placement != HS_NONE) {
        double ready = c->s->placements[t->from_placement].end_us;
        if (before(t->start_us, ready)) {
            dec = decimals(t->start_us, ready);
            snprintf(why, size, " leaves at %s us, before its producer ends at %s us",
                     num(x, t->start_us, dec), num(y, ready, dec));
            return why;
        }
    }
    need = hs_transfer_us(pf, mem_of(c, t->from_device), mem_of(c, t->to_device), t->bytes);
    if (before(t->end_us, t->start_us + need)) {
        dec = decimals(took, need);
        snprintf(why, size,
                 " takes %s us (%s to %s us), less than the %s us that %.17g bytes "
                 "need from %s to %s",
                 num(x, took, dec), num(y, t->start_us, dec), num(z, t->end_us, dec),
                 num(q, need, dec), t->bytes, pf->memories[mem_of(c, t->from_device)],
                 pf->memories[mem_of(c, t->to_device)]);
        return why;
    }
    return NULL;
}

/* The transfers are informative (arrival uses the model), but they must be
 * possible: ends that exist and match their placements' devices, the
 * model's bytes over an edge of the workload, leaving after the producer
 * ends, taking at least the model's time.  One transfer, the k-th, of a
 * schedule's (hs_schedule_each_transfer's fn; ctx a transfer_check). */
typedef struct transfer_check {
    ctx *c;
    size_t k;
} transfer_check;

static int check_transfer(void *arg, const hs_transfer *t)
{
    transfer_check *tc = arg;
    ctx *c = tc->c;
    size_t k = tc->k++;
    long np = (long)c->s->nplacements;
    char a[2 * ID_MAX], b[2 * ID_MAX], why[HS_ERROR_MSG_MAX];
    int from_ok = t->from_placement >= HS_NONE && t->from_placement < np;
    const char *problem;
    if (!from_ok || t->to_placement < HS_NONE || t->to_placement >= np)
        return INVALID("transfer %zu names placement %ld; the schedule has %ld", k,
                       from_ok ? t->to_placement : t->from_placement, np);
    if (t->from_placement == HS_NONE && t->to_placement == HS_NONE)
        return INVALID("transfer %zu goes from host to host; one end must be a task", k);
    if ((problem = transfer_problem(c, t, why, sizeof why)) && !*problem)
        return hs_error_set(c->err, HS_ENOMEM, "out of memory");
    if (problem)
        return INVALID("transfer %zu from %s to %s%s", k, end_name(c, t->from_placement, a),
                       end_name(c, t->to_placement, b), why);
    return HS_OK;
}

static int check_transfers(ctx *c)
{
    transfer_check tc = {.c = c};
    /* the placements are checked by now, and c->ix is their index */
    return hs__each_transfer(c->w, c->s, &c->ix, check_transfer, &tc);
}

/* ------------------------------------------------ a real run's schedule
 * A measured schedule ("model": "measured", what `hetsched run --json`
 * writes) took the times the devices took, so durations are not compared
 * with costs (nor in the executor's model of a run, "executor", whose
 * held tasks start later than the delay model would start them); what must hold is the order of the graph (a task starts once
 * every part of each predecessor has ended), data present before use (each
 * copy the run made leaves after the task whose result it moves and ends
 * before the task it served starts), and the makespan: the end of the last
 * task or copy. */

static int check_order(const ctx *c)
{
    const hs_graph *g = &c->w->graph;
    const hs_placement *pl = c->s->placements;
    char a[ID_MAX], b[ID_MAX], x[NUM_MAX], y[NUM_MAX];
    for (size_t j = 0; j < c->s->nplacements; j++) {
        const hs_edge *e;
        HS_GRAPH_PRED_FOREACH(g, pl[j].task, e)
        {
            size_t i;
            HS__PLINDEX_FOREACH(&c->ix, e->from, i)
            {
                int dec;
                if (!before(pl[j].start_us, pl[i].end_us))
                    continue;
                dec = decimals(pl[j].start_us, pl[i].end_us);
                return INVALID("%s on %s starts at %s us, before its predecessor %s on %s "
                               "ends at %s us",
                               pl_id(c, j, a), dev_name(c, pl[j].device),
                               num(x, pl[j].start_us, dec), pl_id(c, i, b),
                               dev_name(c, pl[i].device), num(y, pl[i].end_us, dec));
            }
        }
    }
    return HS_OK;
}

static int check_copies(const ctx *c)
{
    long np = (long)c->s->nplacements;
    char a[2 * ID_MAX], b[2 * ID_MAX], x[NUM_MAX], y[NUM_MAX];
    for (size_t k = 0; k < c->s->ntransfers; k++) {
        const hs_transfer *t = &c->s->transfers[k];
        int from_ok = t->from_placement >= HS_NONE && t->from_placement < np, dec;
        if (!from_ok || t->to_placement < HS_NONE || t->to_placement >= np)
            return INVALID("transfer %zu names placement %ld; the schedule has %ld", k,
                           from_ok ? t->to_placement : t->from_placement, np);
        if (!isfinite(t->bytes) || t->bytes < 0 || !isfinite(t->start_us) ||
            !isfinite(t->end_us) || t->start_us < 0 || before(t->end_us, t->start_us))
            return INVALID("transfer %zu has bytes %g, start %g us and end %g us; they must "
                           "be finite, >= 0, and end >= start",
                           k, t->bytes, t->start_us, t->end_us);
        if (t->from_placement != HS_NONE &&
            before(t->start_us, c->s->placements[t->from_placement].end_us)) {
            double ready = c->s->placements[t->from_placement].end_us;
            dec = decimals(t->start_us, ready);
            return INVALID("transfer %zu from %s to %s leaves at %s us, before its producer "
                           "ends at %s us",
                           k, end_name(c, t->from_placement, a), end_name(c, t->to_placement, b),
                           num(x, t->start_us, dec), num(y, ready, dec));
        }
        if (t->to_placement != HS_NONE &&
            before(c->s->placements[t->to_placement].start_us, t->end_us)) {
            double start = c->s->placements[t->to_placement].start_us;
            dec = decimals(start, t->end_us);
            return INVALID("transfer %zu from %s to %s ends at %s us, after its consumer "
                           "started at %s us",
                           k, end_name(c, t->from_placement, a), end_name(c, t->to_placement, b),
                           num(x, t->end_us, dec), num(y, start, dec));
        }
    }
    return HS_OK;
}

static int check_measured_makespan(const ctx *c)
{
    double m = 0, got = c->s->makespan_us;
    char x[NUM_MAX], y[NUM_MAX];
    int dec;
    for (size_t i = 0; i < c->s->nplacements; i++)
        m = fmax(m, c->s->placements[i].end_us);
    for (size_t k = 0; k < c->s->ntransfers; k++)
        m = fmax(m, c->s->transfers[k].end_us);
    if (!before(got, m) && !before(m, got))
        return HS_OK;
    dec = decimals(got, m);
    return INVALID("makespan_us is %s us, but its last task or copy ends at %s us",
                   num(x, got, dec), num(y, m, dec));
}

int hs_schedule_validate(const hs_workload *w, const hs_schedule *s, hs_error *err)
{
    ctx c = {.w = w, .s = s, .err = err};
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if ((rc = hs__plindex_build(s, w->graph.ntasks, &c.ix, err)) != 0)
        return rc;
    if ((rc = check_names(&c)) == HS_OK && (rc = check_tasks(&c)) == HS_OK &&
        (rc = check_devices(&c)) == HS_OK && (rc = check_times(&c)) == HS_OK) {
        if (c.measured) {
            if ((rc = check_overlaps(&c)) == HS_OK && (rc = check_order(&c)) == HS_OK &&
                (rc = check_copies(&c)) == HS_OK)
                rc = check_measured_makespan(&c);
        } else if ((rc = check_durations(&c)) == HS_OK && (rc = check_overlaps(&c)) == HS_OK &&
                   (rc = check_arrivals(&c)) == HS_OK && (rc = check_makespan(&c)) == HS_OK) {
            rc = check_transfers(&c);
        }
    }
    hs__plindex_free(&c.ix);
    free_envelopes(&c);
    free(c.edges);
    if (rc == HS_OK && err) {
        err->code = HS_OK;
        err->msg[0] = err->path[0] = '\0';
    }
    return rc;
}
