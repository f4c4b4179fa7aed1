/* hetsched — the schedule validator: checks a schedule against the delay
 * model of DESIGN.md §1, the constraints of Zhou & Liu's MIP (eq. (1), (4),
 * (5), (6), (7)) extended with split tasks and host input/output
 * (include/hetsched/schedule.h).
 *
 * The checks run in a fixed order and stop at the first failure, so that a
 * broken schedule always gets the same, most basic complaint: placement of
 * every task, devices, times, durations, device overlaps, data arrival,
 * makespan, then the listed transfers.  Whole-task schedules cost
 * O((n + e) log n): one counting sort by task, one sort by device and time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/schedule.h"
#include "graph/schedule_int.h"

#define ID_MAX 256
/* Every failed check reports through this; c is the validation context. */
#define INVALID(...) hs_error_set(c->err, HS_EINVALID, __VA_ARGS__)
#define NUM_MAX 48

/* Times agree within 1e-6 relative to the larger of 1 and the reference. */
static double tol(double x)
{
    return 1e-6 * fmax(1.0, fabs(x));
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

/* Decimals (3 to 12) that show a and b as different numbers when they
 * differ, so a message never reads "starts at 10 us, before ... 10 us". */
static int decimals(double a, double b)
{
    char sa[NUM_MAX], sb[NUM_MAX];
    int dec = 3;
    while (dec < 12 && strcmp(num(sa, a, dec), num(sb, b, dec)) == 0)
        dec++;
    return dec;
}

typedef struct ctx {
    const hs_workload *w;
    const hs_schedule *s;
    hs__plindex ix;
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
    return d == HS_HOST_DEVICE ? HS_HOST_MEMORY : c->w->platform.devices[d].memory;
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
        if (rc == HS_OK && !(fabs(sum - 1.0) <= 1e-9)) {
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
        int dec;
        if (p->nparts == 1 && !(fabs(dur - cost) <= tol(cost))) {
            dec = decimals(dur, cost);
            return INVALID("%s on %s runs %s us (%s to %s us), but its cost on %s is "
                           "%s us",
                           pl_id(c, i, a), dev, num(x, dur, dec), num(y, p->start_us, dec),
                           num(z, p->end_us, dec), dev, num(q, cost, dec));
        }
        if (p->nparts > 1 && dur < need - tol(need)) {
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

/* Sorted by device and start, a placement overlaps an earlier one exactly
 * when it starts before the latest end seen so far on its device; touching
 * (start == previous end) is fine. */
static int check_overlaps(const ctx *c)
{
    size_t n = c->s->nplacements, last = 0;
    slot *v = malloc((n ? n : 1) * sizeof *v);
    char a[ID_MAX], b[ID_MAX], x[NUM_MAX], y[NUM_MAX], z[NUM_MAX], q[NUM_MAX];
    int rc = HS_OK;
    if (!v)
        return hs_error_set(c->err, HS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const hs_placement *p = &c->s->placements[i];
        v[i] = (slot){.device = p->device, .start = p->start_us, .end = p->end_us, .i = i};
    }
    qsort(v, n, sizeof *v, by_device_time);
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || v[k].device != v[last].device) {
            last = k;
            continue;
        }
        if (v[k].start < v[last].end - tol(v[last].end)) {
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

/* Placement j starts no earlier than its input from host (leaving at time 0)
 * and than the data of every placement i of every predecessor: i's end plus
 * the transfer of bytes x f_i x f_j between their memories. */
static int check_arrivals(const ctx *c)
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
        if (pv->start_us < in - tol(in)) {
            dec = decimals(pv->start_us, in);
            return INVALID("%s on %s starts at %s us, before its input from host "
                           "arrives at %s us",
                           pl_id(c, j, a), dev_name(c, pv->device), num(x, pv->start_us, dec),
                           num(y, in, dec));
        }
        HS_GRAPH_PRED_FOREACH(g, pv->task, e)
        {
            size_t i;
            HS__PLINDEX_FOREACH(&c->ix, e->from, i)
            {
                const hs_placement *pu = &pl[i];
                double arrive = pu->end_us + hs_transfer_us(pf, mem_of(c, pu->device), r,
                                                            e->bytes * pu->fraction * pv->fraction);
                if (pv->start_us < arrive - tol(arrive)) {
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
    if (fabs(got - m) <= tol(m))
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

/* What is wrong with transfer t (whose ends exist), written into `why` as the
 * rest of a sentence that starts "transfer K from A to B"; NULL if nothing. */
static const char *transfer_problem(const ctx *c, const hs_transfer *t, char *why, size_t size)
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
    if (t->from_placement != HS_NONE) {
        double ready = c->s->placements[t->from_placement].end_us;
        if (t->start_us < ready - tol(ready)) {
            dec = decimals(t->start_us, ready);
            snprintf(why, size, " leaves at %s us, before its producer ends at %s us",
                     num(x, t->start_us, dec), num(y, ready, dec));
            return why;
        }
    }
    need = hs_transfer_us(pf, mem_of(c, t->from_device), mem_of(c, t->to_device), t->bytes);
    if (took < need - tol(need)) {
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

/* The listed transfers are informative (arrival uses the model), but they
 * must be possible: ends that exist and match their placements' devices,
 * leaving after the producer ends, taking at least the model's time. */
static int check_transfers(const ctx *c)
{
    long np = (long)c->s->nplacements;
    char a[2 * ID_MAX], b[2 * ID_MAX], why[HS_ERROR_MSG_MAX];
    for (size_t k = 0; k < c->s->ntransfers; k++) {
        const hs_transfer *t = &c->s->transfers[k];
        int from_ok = t->from_placement >= HS_NONE && t->from_placement < np;
        if (!from_ok || t->to_placement < HS_NONE || t->to_placement >= np)
            return INVALID("transfer %zu names placement %ld; the schedule has %ld", k,
                           from_ok ? t->to_placement : t->from_placement, np);
        if (t->from_placement == HS_NONE && t->to_placement == HS_NONE)
            return INVALID("transfer %zu goes from host to host; one end must be a task", k);
        if (transfer_problem(c, t, why, sizeof why))
            return INVALID("transfer %zu from %s to %s%s", k, end_name(c, t->from_placement, a),
                           end_name(c, t->to_placement, b), why);
    }
    return HS_OK;
}

int hs_schedule_validate(const hs_workload *w, const hs_schedule *s, hs_error *err)
{
    ctx c = {.w = w, .s = s, .err = err};
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if ((rc = hs__plindex_build(s, w->graph.ntasks, &c.ix, err)) != 0)
        return rc;
    if ((rc = check_tasks(&c)) == HS_OK && (rc = check_devices(&c)) == HS_OK &&
        (rc = check_times(&c)) == HS_OK && (rc = check_durations(&c)) == HS_OK &&
        (rc = check_overlaps(&c)) == HS_OK && (rc = check_arrivals(&c)) == HS_OK &&
        (rc = check_makespan(&c)) == HS_OK)
        rc = check_transfers(&c);
    hs__plindex_free(&c.ix);
    if (rc == HS_OK && err) {
        err->code = HS_OK;
        err->msg[0] = err->path[0] = '\0';
    }
    return rc;
}
