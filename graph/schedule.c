/* hetsched — the in-memory schedule, the makespan the delay model gives for
 * its placements, and the transfers the model implies
 * (include/hetsched/schedule.h, DESIGN.md §1 and §4). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hetsched/schedule.h"
#include "graph/export_util.h"
#include "graph/schedule_int.h"
#include "graph/transfer.h"

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

/* strdup that keeps NULL as NULL; *ok is cleared when memory runs out. */
static char *dup_or_null(const char *s, int *ok)
{
    char *copy;
    if (!s)
        return NULL;
    if (!(copy = strdup(s)))
        *ok = 0;
    return copy;
}

hs_schedule *hs_schedule_new(const char *workload, const char *algorithm)
{
    hs_schedule *s = calloc(1, sizeof *s);
    int ok = 1;
    if (!s)
        return NULL;
    s->workload = dup_or_null(workload, &ok);
    s->algorithm = dup_or_null(algorithm, &ok);
    s->model = dup_or_null("delay", &ok);
    if (!ok) {
        hs_schedule_free(s);
        return NULL;
    }
    return s;
}

void hs_schedule_free(hs_schedule *s)
{
    if (!s)
        return;
    free(s->workload);
    free(s->algorithm);
    free(s->model);
    free(s->backend);
    free(s->placements);
    free(s->transfers);
    free(s->activities);
    free(s);
}

/* Makes room for one more element of an array of capacity *cap holding n,
 * doubling so that appends cost amortised O(1). */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    size_t want;
    void *p;
    if (n < *cap)
        return 0;
    want = *cap ? 2 * *cap : 16;
    if (want > SIZE_MAX / elem || !(p = realloc(*arr, want * elem)))
        return -1;
    *arr = p;
    *cap = want;
    return 0;
}

long hs_schedule_add_placement(hs_schedule *s, const hs_placement *p, hs_error *err)
{
    if (reserve((void **)&s->placements, &s->placements_cap, s->nplacements,
                sizeof *s->placements) != 0)
        return nomem(err);
    s->placements[s->nplacements] = *p;
    return (long)s->nplacements++;
}

long hs_schedule_add_transfer(hs_schedule *s, const hs_transfer *t, hs_error *err)
{
    if (reserve((void **)&s->transfers, &s->transfers_cap, s->ntransfers, sizeof *s->transfers) !=
        0)
        return nomem(err);
    s->transfers[s->ntransfers] = *t;
    return (long)s->ntransfers++;
}

long hs_schedule_add_activity(hs_schedule *s, const hs_activity *a, hs_error *err)
{
    if (reserve((void **)&s->activities, &s->activities_cap, s->nactivities,
                sizeof *s->activities) != 0)
        return nomem(err);
    s->activities[s->nactivities] = *a;
    return (long)s->nactivities++;
}

/* ------------------------------------------------------ device statistics */

typedef struct interval {
    double a, b;
} interval;

static int by_left(const void *x, const void *y)
{
    const interval *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* Sorts and merges v[0 .. n) in place; returns how many are left. */
static size_t merge(interval *v, size_t n)
{
    size_t k = 0;
    qsort(v, n, sizeof *v, by_left);
    for (size_t i = 0; i < n; i++) {
        if (k && v[i].a <= v[k - 1].b) {
            if (v[i].b > v[k - 1].b)
                v[k - 1].b = v[i].b;
        } else {
            v[k++] = v[i];
        }
    }
    return k;
}

/* Length of the union of h[0 .. nh) outside the union of p[0 .. np) (both
 * merged). */
static double outside(const interval *h, size_t nh, const interval *p, size_t np)
{
    double total = 0;
    size_t j = 0;
    for (size_t i = 0; i < nh; i++) {
        double a = h[i].a, b = h[i].b;
        while (j < np && p[j].b <= a)
            j++;
        for (size_t k = j; k < np && p[k].a < b && a < b; k++) {
            if (p[k].a > a)
                total += p[k].a - a;
            a = p[k].b > a ? p[k].b : a;
        }
        if (b > a)
            total += b - a;
    }
    return total;
}

/* The transfers of s, grouped by the placement they leave (CSR, as
 * hs__plindex groups placements by task): from->idx[from->off[i] ..
 * from->off[i + 1]) leave placement i. */
static int transfers_by_source(const hs_schedule *s, hs__plindex *from, hs_error *err)
{
    from->off = calloc(s->nplacements + 2, sizeof *from->off);
    from->idx = malloc((s->ntransfers ? s->ntransfers : 1) * sizeof *from->idx);
    if (!from->off || !from->idx) {
        hs__plindex_free(from);
        return nomem(err);
    }
    for (size_t k = 0; k < s->ntransfers; k++)
        if (s->transfers[k].from_placement >= 0)
            from->off[s->transfers[k].from_placement + 2]++;
    for (size_t i = 0; i < s->nplacements; i++)
        from->off[i + 2] += from->off[i + 1];
    for (size_t k = 0; k < s->ntransfers; k++)
        if (s->transfers[k].from_placement >= 0)
            from->idx[from->off[s->transfers[k].from_placement + 1]++] = k;
    return HS_OK;
}

/* The intersection of a[0 .. na) and b[0 .. nb) (both merged) into out,
 * which has room for na + nb; returns how many. */
static size_t intersect(const interval *a, size_t na, const interval *b, size_t nb,
                        interval *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        double lo = a[i].a > b[j].a ? a[i].a : b[j].a, hi = a[i].b < b[j].b ? a[i].b : b[j].b;
        if (lo < hi)
            out[k++] = (interval){lo, hi};
        if (a[i].b < b[j].b)
            i++;
        else
            j++;
    }
    return k;
}

/* When every input of placement p was in its device's memory: each copy
 * made for it has ended (to_end[p]), and each predecessor's result is
 * there, made there or copied there (its earliest copy into that memory;
 * a result moved by no recorded copy counts from its producer's end). */
static double inputs_there(const hs_workload *w, const hs_schedule *s, const hs__plindex *tasks,
                           const hs__plindex *from, const double *to_end, size_t p)
{
    const hs_placement *pl = s->placements;
    const hs_edge *e;
    int m = hs__device_memory(w, pl[p].device);
    double at = to_end[p];
    HS_GRAPH_PRED_FOREACH(&w->graph, pl[p].task, e)
    {
        size_t i, k;
        HS__PLINDEX_FOREACH(tasks, e->from, i)
        {
            double arrive = pl[i].end_us, copied = -1;
            if (hs__device_memory(w, pl[i].device) != m)
                HS__PLINDEX_FOREACH(from, i, k)
                {
                    const hs_transfer *t = &s->transfers[k];
                    if (hs__device_memory(w, t->to_device) == m &&
                        (copied < 0 || t->end_us < copied))
                        copied = t->end_us;
                }
            if (copied > arrive)
                arrive = copied;
            if (arrive > at)
                at = arrive;
        }
    }
    return at;
}

/* A held task: held from a to b, its inputs there from `ready`. */
typedef struct held_task {
    double a, b, ready;
} held_task;

static int by_held_start(const void *x, const void *y)
{
    const held_task *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* Device d's idle time while it held work (st->held_idle_us), of it with
 * the inputs of a held task there (ready_idle_us), and of that the parts
 * behind a head waiting for inputs and spent launching (behind_idle_us,
 * launch_idle_us).  p[0 .. np) holds d's runs, merged; `tmp` has room for
 * 5 x (nactivities + nplacements + 1) intervals (an intersection of two
 * lists may take both's room) and `held` for nactivities + 1. */
static void idle_of(const hs_workload *w, const hs_schedule *s, const hs__plindex *tasks,
                    const hs__plindex *from, const double *to_end, int d, const interval *p,
                    size_t np, interval *tmp, held_task *held, hs_device_stats *st)
{
    size_t room = s->nactivities + s->nplacements + 1, nh = 0, nr, nq = 0, nl = 0, n;
    interval *r = tmp, *q = r + room, *l = q + room, *x = l + room;
    double head_from = -HUGE_VAL;
    for (size_t i = 0; i < s->nactivities; i++) {
        const hs_activity *a = &s->activities[i];
        double ready = a->start_us;
        if (a->device != d)
            continue;
        if (strcmp(a->what, "launch") == 0)
            l[nl++] = (interval){a->start_us, a->end_us};
        if (strcmp(a->what, "held") != 0)
            continue;
        if (a->placement >= 0 && (size_t)a->placement < s->nplacements &&
            s->placements[a->placement].task < w->graph.ntasks) {
            double there = inputs_there(w, s, tasks, from, to_end, (size_t)a->placement);
            if (there > ready)
                ready = there;
        }
        held[nh++] = (held_task){a->start_us, a->end_us, ready};
    }
    for (size_t i = 0; i < nh; i++)
        r[i] = (interval){held[i].a, held[i].b};
    st->held_idle_us = outside(r, merge(r, nh), p, np);
    /* in start order, each held task heads the queue from when every one
     * held before it has gone, and holds back those behind it until its
     * own inputs are there */
    qsort(held, nh, sizeof *held, by_held_start);
    nr = 0;
    for (size_t i = 0; i < nh; i++) {
        double a = held[i].a > head_from ? held[i].a : head_from;
        double b = held[i].ready < held[i].b ? held[i].ready : held[i].b;
        if (a < b)
            q[nq++] = (interval){a, b};
        if (held[i].b > head_from)
            head_from = held[i].b;
        if (held[i].ready < held[i].b)
            r[nr++] = (interval){held[i].ready, held[i].b};
    }
    nr = merge(r, nr);
    st->ready_idle_us = outside(r, nr, p, np);
    nq = merge(q, nq);
    n = intersect(r, nr, q, nq, x);
    st->behind_idle_us = outside(x, n, p, np);
    /* launching, outside the runs and the time behind a waiting head */
    memcpy(q + nq, p, np * sizeof *p);
    nq = merge(q, nq + np);
    n = intersect(r, nr, l, merge(l, nl), x);
    st->launch_idle_us = outside(x, n, q, nq);
}

int hs_schedule_device_stats(const hs_workload *w, const hs_schedule *s, hs_device_stats *st,
                             hs_error *err)
{
    int nd = w->platform.ndevices, rc;
    interval *p, *tmp;
    held_task *held;
    hs__plindex tasks = {0}, from = {0};
    double *to_end;
    for (int d = 0; d < nd; d++)
        st[d] = (hs_device_stats){0};
    for (size_t i = 0; i < s->nplacements; i++) {
        st[s->placements[i].device].busy_us += s->placements[i].end_us - s->placements[i].start_us;
        st[s->placements[i].device].tasks++;
    }
    if (!s->nactivities) /* nothing held (the delay model's schedules) */
        return HS_OK;
    if ((rc = hs__plindex_build(s, w->graph.ntasks, &tasks, err)) != HS_OK)
        return rc;
    if ((rc = transfers_by_source(s, &from, err)) != HS_OK) {
        hs__plindex_free(&tasks);
        return rc;
    }
    p = malloc((s->nplacements + 1) * sizeof *p);
    tmp = malloc(5 * (s->nactivities + s->nplacements + 1) * sizeof *tmp);
    held = malloc((s->nactivities + 1) * sizeof *held);
    to_end = calloc(s->nplacements + 1, sizeof *to_end);
    if (!p || !tmp || !held || !to_end) {
        rc = nomem(err);
        goto out;
    }
    for (size_t k = 0; k < s->ntransfers; k++) {
        const hs_transfer *t = &s->transfers[k];
        if (t->to_placement >= 0 && t->end_us > to_end[t->to_placement])
            to_end[t->to_placement] = t->end_us;
    }
    for (int d = 0; d < nd; d++) {
        size_t np = 0;
        for (size_t i = 0; i < s->nplacements; i++)
            if (s->placements[i].device == d)
                p[np++] = (interval){s->placements[i].start_us, s->placements[i].end_us};
        idle_of(w, s, &tasks, &from, to_end, d, p, merge(p, np), tmp, held, &st[d]);
    }
    rc = HS_OK;
out:
    free(p);
    free(tmp);
    free(held);
    free(to_end);
    hs__plindex_free(&tasks);
    hs__plindex_free(&from);
    return rc;
}

/* ---------------------------------------------------------- placement index */

int hs__plindex_build(const hs_schedule *s, size_t ntasks, hs__plindex *ix, hs_error *err)
{
    size_t *fill;
    ix->off = calloc(ntasks + 2, sizeof *ix->off);
    ix->idx = malloc((s->nplacements ? s->nplacements : 1) * sizeof *ix->idx);
    fill = malloc((ntasks + 1) * sizeof *fill);
    if (!ix->off || !ix->idx || !fill) {
        free(fill);
        hs__plindex_free(ix);
        return nomem(err);
    }
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task < ntasks)
            ix->off[s->placements[i].task + 1]++;
    for (size_t t = 0; t < ntasks; t++)
        ix->off[t + 1] += ix->off[t];
    memcpy(fill, ix->off, (ntasks + 1) * sizeof *fill);
    for (size_t i = 0; i < s->nplacements; i++)
        if (s->placements[i].task < ntasks)
            ix->idx[fill[s->placements[i].task]++] = i;
    free(fill);
    return HS_OK;
}

void hs__plindex_free(hs__plindex *ix)
{
    free(ix->off);
    free(ix->idx);
    ix->off = ix->idx = NULL;
}

int hs__placement_id(const hs_workload *w, const hs_placement *p, char *buf, size_t size)
{
    hs_task t = w->graph.tasks[p->task];
    t.part = p->part;
    t.nparts = p->nparts;
    return hs_task_id(w, &t, buf, size);
}

static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int hs__same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(file_name(a), file_name(b)) == 0;
}

/* ------------------------------------------------------------------- model */

/* Does placement p name a task of the graph and a device of the platform? */
static int placement_ok(const hs_workload *w, const hs_placement *p)
{
    return p->task < w->graph.ntasks && p->device >= 0 && p->device < w->platform.ndevices;
}

/* The model's makespan (eq. (6) of Zhou & Liu, with the output's trip back to
 * host added as DESIGN.md §1 asks): max over placements of end + the time to
 * copy output_bytes x fraction from the device's memory to host.  Placements
 * naming no task or device of w are skipped (the validator reports them). */
double hs_schedule_makespan(const hs_workload *w, const hs_schedule *s)
{
    const hs_platform *pf = &w->platform;
    double makespan = 0.0;
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        double done;
        if (!placement_ok(w, p))
            continue;
        done = p->end_us + hs__transfer_us(pf, pf->devices[p->device].memory, HS_HOST_MEMORY,
                                           w->graph.tasks[p->task].output_bytes * p->fraction);
        if (done > makespan)
            makespan = done;
    }
    return makespan;
}

/* Calls fn for one transfer of `bytes` from device `from_dev` on memory q to
 * `to_dev` on memory r, starting at `start`; nothing when both ends share a
 * memory or there is no data. */
static inline int implied(hs_transfer_fn fn, void *ctx, const hs_platform *pf, long from,
                          long to, int from_dev, int to_dev, int q, int r, double bytes,
                          double start)
{
    hs_transfer t;
    if (q == r || bytes <= 0)
        return 0;
    t = (hs_transfer){.from_placement = from,
                      .to_placement = to,
                      .from_device = from_dev,
                      .to_device = to_dev,
                      .bytes = bytes,
                      .start_us = start,
                      .end_us = start + hs__transfer_us(pf, q, r, bytes)};
    return fn(ctx, &t);
}

/* The model's transfers placement by placement: its input from host
 * (leaving at time 0), the data of each outgoing edge to every placement of
 * the successor (bytes x f_u x f_v, leaving at the producer's end: eq. (4)'s
 * T term), then its output back to host.  The per-task placement index ix
 * keeps this O(n + e) for whole-task schedules. */
static int each_implied(const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                        hs_transfer_fn fn, void *ctx)
{
    const hs_graph *g = &w->graph;
    const hs_platform *pf = &w->platform;
    int rc = 0;
    for (size_t i = 0; i < s->nplacements && rc == 0; i++) {
        const hs_placement *pu = &s->placements[i];
        const hs_task *task = &g->tasks[pu->task];
        const hs_edge *e;
        int q = pf->devices[pu->device].memory;
        rc = implied(fn, ctx, pf, HS_NONE, (long)i, HS_HOST_DEVICE, pu->device, HS_HOST_MEMORY,
                     q, task->input_bytes * pu->fraction, 0.0);
        HS_GRAPH_SUCC_FOREACH(g, pu->task, e)
        {
            size_t j;
            HS__PLINDEX_FOREACH(ix, e->to, j)
            {
                const hs_placement *pv = &s->placements[j];
                if (rc == 0)
                    rc = implied(fn, ctx, pf, (long)i, (long)j, pu->device, pv->device, q,
                                 pf->devices[pv->device].memory,
                                 e->bytes * pu->fraction * pv->fraction, pu->end_us);
            }
        }
        if (rc == 0)
            rc = implied(fn, ctx, pf, (long)i, HS_NONE, pu->device, HS_HOST_DEVICE, q,
                         HS_HOST_MEMORY, task->output_bytes * pu->fraction, pu->end_us);
    }
    return rc;
}

/* Checks what derive and each_transfer ask of w and s's placements, and
 * builds the index each_implied walks. */
static int implied_index(const hs_workload *w, const hs_schedule *s, hs__plindex *ix,
                         hs_error *err)
{
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    for (size_t i = 0; i < s->nplacements; i++)
        if (!placement_ok(w, &s->placements[i]))
            return hs_error_set(err, HS_EUSAGE,
                                "placement %zu names task %zu on device %d; the workload has "
                                "%zu tasks and %d devices",
                                i, s->placements[i].task, s->placements[i].device,
                                w->graph.ntasks, w->platform.ndevices);
    return hs__plindex_build(s, w->graph.ntasks, ix, err);
}

/* each_implied's fn for derive: appends to the schedule ctx, whose room
 * for every transfer the caller made. */
static int append(void *ctx, const hs_transfer *t)
{
    hs_schedule *out = ctx;
    out->transfers[out->ntransfers++] = *t;
    return 0;
}

/* On error s is left as it was. */
int hs_schedule_derive_transfers(const hs_workload *w, hs_schedule *s, hs_error *err)
{
    hs_schedule out = {0};
    hs__plindex ix;
    int rc;
    if ((rc = implied_index(w, s, &ix, err)) != 0)
        return rc;
    /* room for the most there can be, at once: each placement's input and
     * output, and its data to each placement of each successor (an array
     * grown by doubling held the old one beside the new one while it
     * moved) */
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_edge *e;
        out.transfers_cap += 2;
        HS_GRAPH_SUCC_FOREACH(&w->graph, s->placements[i].task, e)
        {
            out.transfers_cap += ix.off[e->to + 1] - ix.off[e->to];
        }
    }
    if (!(out.transfers = malloc((out.transfers_cap ? out.transfers_cap : 1) *
                                 sizeof *out.transfers))) {
        hs__plindex_free(&ix);
        return nomem(err);
    }
    each_implied(w, s, &ix, append, &out);
    hs__plindex_free(&ix);
    free(s->transfers);
    s->transfers = out.transfers;
    s->ntransfers = out.ntransfers;
    s->transfers_cap = out.transfers_cap;
    s->transfers_implied = 0;
    s->makespan_us = hs_schedule_makespan(w, s);
    return HS_OK;
}

int hs__each_transfer(const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                      hs_transfer_fn fn, void *ctx)
{
    int rc = 0;
    if (s->transfers_implied)
        return each_implied(w, s, ix, fn, ctx);
    for (size_t k = 0; k < s->ntransfers && rc == 0; k++)
        rc = fn(ctx, &s->transfers[k]);
    return rc;
}

int hs_schedule_each_transfer(const hs_workload *w, const hs_schedule *s, hs_transfer_fn fn,
                              void *ctx, hs_error *err)
{
    hs__plindex ix = {0};
    int rc;
    if (s->transfers_implied && (rc = implied_index(w, s, &ix, err)) != 0)
        return rc;
    rc = hs__each_transfer(w, s, &ix, fn, ctx);
    hs__plindex_free(&ix);
    return rc;
}

int hs__write_listed(const hs_workload *w, const hs_schedule *s, hs__schedule_writer write,
                     const char *path, hs_error *err)
{
    hs_schedule copy;
    int rc;
    if (!s->transfers_implied)
        return write(w, s, path, err);
    copy = *s;
    copy.transfers = NULL;
    copy.ntransfers = copy.transfers_cap = 0;
    if ((rc = hs_schedule_derive_transfers(w, &copy, err)) != HS_OK)
        return rc;
    copy.makespan_us = s->makespan_us; /* (derive set the model's: s's is drawn) */
    rc = write(w, &copy, path, err);
    free(copy.transfers);
    return rc;
}
