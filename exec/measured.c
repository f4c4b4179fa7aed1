/* hetsched — the schedule a real run measured (exec/data.h:
 * hs_run_measured_schedule): its copies as the schedule's transfers. */
#include <stdlib.h>
#include <string.h>

#include "exec/data.h"
#include "hetsched/schedule.h"

/* Placements sorted by (task, part), to find a task's placement. */
typedef struct key {
    size_t task;
    int part;
    size_t i;
} key;

typedef struct place_index {
    const hs_schedule *s;
    key *by;
} place_index;

static int by_task_part(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

/* Where task t's placements begin in ix->by. */
static size_t first_of(const place_index *ix, long t)
{
    size_t lo = 0, hi = ix->s->nplacements;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ix->by[mid].task < (size_t)t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The placement of part `part` of task t, or HS_NONE; part < 0: the part
 * of t that ended last (the one whose end made its result whole). */
static long find(const place_index *ix, long t, int part)
{
    const hs_schedule *s = ix->s;
    size_t lo;
    long best = HS_NONE;
    if (t < 0)
        return HS_NONE;
    lo = first_of(ix, t);
    for (; lo < s->nplacements && ix->by[lo].task == (size_t)t; lo++) {
        size_t i = ix->by[lo].i;
        if (part >= 0 && ix->by[lo].part == part)
            return (long)i;
        if (part < 0 && (best == HS_NONE || s->placements[i].end_us > s->placements[best].end_us))
            best = (long)i;
    }
    return best;
}

/* The placement of task t on a device of memory m that a part's slice
 * copied at [start, end] served: into m (in), the first to start once the
 * copy ended; out of m, the last to end before it started.  A device runs
 * one piece of a split task at a time, its copies around it, so this finds
 * the piece also when the chunks of a split at run time carry no part
 * number of their own. */
static long served_piece(const place_index *ix, const hs_workload *w, long t, int m, int in,
                         double start, double end)
{
    const hs_schedule *s = ix->s;
    const double tol = 1e-3; /* µs: what the JSON carries */
    long best = HS_NONE;
    size_t lo = first_of(ix, t);
    for (; lo < s->nplacements && ix->by[lo].task == (size_t)t; lo++) {
        const hs_placement *p = &s->placements[ix->by[lo].i];
        if (w->platform.devices[p->device].memory != m)
            continue;
        if (in ? p->start_us >= end - tol &&
                     (best == HS_NONE || p->start_us < s->placements[best].start_us)
               : p->end_us <= start + tol &&
                     (best == HS_NONE || p->end_us > s->placements[best].end_us))
            best = (long)ix->by[lo].i;
    }
    return best;
}

/* The device of placement p when it computes on memory m; else the first
 * device of memory m; HS_HOST_DEVICE for host memory. */
static int device_on(const hs_workload *w, const hs_schedule *s, long p, int m)
{
    const hs_platform *pf = &w->platform;
    if (p != HS_NONE && pf->devices[s->placements[p].device].memory == m)
        return s->placements[p].device;
    if (m == HS_HOST_MEMORY)
        return HS_HOST_DEVICE;
    for (int d = 0; d < pf->ndevices; d++)
        if (pf->devices[d].memory == m)
            return d;
    return HS_HOST_DEVICE;
}

int hs_run_measured_schedule(const hs_workload *w, const char *backend, const hs_run_report *r,
                             hs_schedule *s, hs_error *err)
{
    place_index ix = {.s = s};
    char *model = strdup("measured"), *bname = backend ? strdup(backend) : NULL;
    double makespan = 0;
    if (!model || (backend && !bname) ||
        !(ix.by = malloc((s->nplacements + 1) * sizeof *ix.by))) {
        free(model);
        free(bname);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->nplacements; i++) {
        ix.by[i] = (key){s->placements[i].task, s->placements[i].part, i};
        if (s->placements[i].end_us > makespan)
            makespan = s->placements[i].end_us;
    }
    qsort(ix.by, s->nplacements, sizeof *ix.by, by_task_part);
    /* the run's copies, not the model's transfers (which the planned
     * schedule left implied) */
    s->ntransfers = 0;
    s->transfers_implied = 0;
    for (size_t k = 0; k < r->ncopies; k++) {
        const hs_run_copy *c = &r->copies[k];
        hs_transfer t;
        int served = c->kind != HS_COPY_OUTPUT && c->kind != HS_COPY_WRITEBACK;
        if (c->kind == HS_COPY_CHECK || c->from == c->to)
            continue; /* not a move between memories of the run */
        t.from_placement = find(&ix, c->datum, -1);
        t.to_placement = served ? find(&ix, c->consumer, c->part) : HS_NONE;
        if (c->kind == HS_COPY_PART && c->from != HS_HOST_MEMORY) { /* a slice out */
            t.from_placement = served_piece(&ix, w, c->consumer, c->from, 0, c->start_us,
                                            c->end_us);
            t.to_placement = HS_NONE;
        } else if (c->kind == HS_COPY_PART) { /* a slice in */
            t.to_placement = served_piece(&ix, w, c->consumer, c->to, 1, c->start_us,
                                          c->end_us);
        }
        t.from_device = device_on(w, s, t.from_placement, c->from);
        t.to_device = device_on(w, s, t.to_placement, c->to);
        t.bytes = c->bytes;
        t.start_us = c->start_us;
        t.end_us = c->end_us;
        if (hs_schedule_add_transfer(s, &t, err) < 0)
            goto nomem;
        if (t.end_us > makespan)
            makespan = t.end_us;
    }
    s->nactivities = 0;
    for (size_t k = 0; k < r->nevents; k++) {
        const hs_run_event *e = &r->events[k];
        hs_activity a = {.device = e->device >= 0 ? e->device : HS_HOST_DEVICE,
                         .what = hs_run_event_kind_name(e->kind),
                         .start_us = e->start_us, .end_us = e->end_us, .bytes = e->bytes};
        if (e->kind == HS_EV_KERNEL || e->kind == HS_EV_SLEEP)
            continue; /* its placement spans it */
        a.placement = e->kind == HS_EV_CHECK || e->kind == HS_EV_EVICT
                          ? find(&ix, e->task, -1)
                          : find(&ix, e->task, e->part);
        if (hs_schedule_add_activity(s, &a, err) < 0)
            goto nomem;
    }
    free(ix.by);
    free(s->model);
    free(s->backend);
    s->model = model;
    s->backend = bname;
    s->makespan_us = makespan;
    return HS_OK;
nomem:
    free(ix.by);
    free(model);
    free(bname);
    return HS_ENOMEM;
}
