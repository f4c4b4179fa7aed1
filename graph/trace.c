/* hetsched — schedules as Chrome trace-event JSON with jansson, for Perfetto
 * and chrome://tracing (include/hetsched/export.h).  The format: an object
 * with "traceEvents", an array of events; "M" events name the process and
 * threads, "X" (complete) events carry ts and dur in µs.
 *
 * Viewers expect the X events of one thread to nest, never to overlap in
 * part.  A device runs one task at a time, so its placements never overlap
 * (in a valid schedule); transfers on one link may (the delay model has no
 * contention), so each link gets as many threads ("tracks") as it has
 * transfers in flight at once.  A real run's activities (tasks held,
 * waits, buffers made, evictions, a GPU worker's launches and completions,
 * the engine's steps) get a worker thread per device; the steps of the
 * engine's own thread and the checks, which run in parallel, one more, as
 * many tracks as each lane needs.
 *
 * Dependencies are flow events: for each edge u -> v of the graph and each
 * placement of u and of v (parts of a split task each), an "s" event in the
 * middle of the producer's slice and an "f" event (binding point "e": the
 * enclosing slice) at the consumer's start, with one id per pair; viewers
 * draw an arrow between the two slices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetsched/export.h"
#include "graph/export_util.h"
#include "graph/schedule_int.h"
#include "graph/utf8.h"
#include "hetsched/output.h"

#define PID 1

/* Where the spans of one kind go (transfers on link lanes, activities on
 * worker lanes): span i on thread tid[i] (0 when it has no lane); the
 * threads of lane l are first_tid[l] .. first_tid[l] + ntracks[l] - 1. */
typedef struct tracks {
    int *tid;         /* [nspans] */
    int *first_tid;   /* [nlanes] */
    int *ntracks;     /* [nlanes] */
} tracks;

static void tracks_free(tracks *k)
{
    free(k->tid);
    free(k->first_tid);
    free(k->ntracks);
}

typedef struct span {
    double start;
    size_t i;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Greedy interval partitioning of n spans (lane[i] < 0: none): in order of
 * start, a span takes the first track of its lane that is free by then, or
 * opens a new one.  That uses as many tracks as the most spans in flight at
 * once on the lane.  Tracks are numbered from first_tid on, lane by lane.
 * Cost O(n log n + n x that number).  Returns 0 or -1 when out of memory. */
static int greedy_tracks(size_t n, const int *lane_of, const double *start, const double *end,
                         int nlanes, int first_tid, tracks *k)
{
    size_t ntr = 0;
    span *order = malloc((n + 1) * sizeof *order);
    double *free_at = malloc((n + 1) * sizeof *free_at); /* per track */
    int *lane = malloc((n + 1) * sizeof *lane);          /* per track */
    int *local = malloc((n + 1) * sizeof *local);        /* per span: track within lane */
    int rc = -1;
    k->tid = calloc(n + 1, sizeof *k->tid);
    k->first_tid = calloc((size_t)nlanes + 1, sizeof *k->first_tid);
    k->ntracks = calloc((size_t)nlanes + 1, sizeof *k->ntracks);
    if (!order || !free_at || !lane || !local || !k->tid || !k->first_tid || !k->ntracks)
        goto out;
    for (size_t i = 0; i < n; i++)
        order[i] = (span){start[i], i};
    qsort(order, n, sizeof *order, by_start);
    for (size_t j = 0; j < n; j++) {
        size_t i = order[j].i, tr;
        int l = lane_of[i], m = 0;
        if (l < 0) {
            local[i] = -1;
            continue;
        }
        for (tr = 0; tr < ntr; tr++) {
            if (lane[tr] != l)
                continue;
            if (free_at[tr] <= start[i])
                break;
            m++;
        }
        if (tr == ntr) {
            lane[ntr++] = l;
            k->ntracks[l]++;
        }
        free_at[tr] = end[i];
        local[i] = m;
    }
    for (int l = 0; l < nlanes; l++)
        k->first_tid[l] = l ? k->first_tid[l - 1] + k->ntracks[l - 1] : first_tid;
    for (size_t i = 0; i < n; i++)
        if (local[i] >= 0)
            k->tid[i] = k->first_tid[lane_of[i]] + local[i];
    rc = 0;
out:
    free(order);
    free(free_at);
    free(lane);
    free(local);
    return rc;
}

/* The transfers' tracks, on the link lanes (lane_of_pair) after the
 * devices' threads. */
static int transfer_tracks(const hs_workload *w, const hs_schedule *s, const int *lane_of_pair,
                           int nlanes, tracks *k)
{
    size_t n = s->ntransfers;
    int *lane = malloc((n + 1) * sizeof *lane), rc = -1;
    double *start = malloc((n + 1) * sizeof *start), *end = malloc((n + 1) * sizeof *end);
    if (lane && start && end) {
        for (size_t i = 0; i < n; i++) {
            lane[i] = hs__transfer_lane(w, &s->transfers[i], lane_of_pair);
            start[i] = s->transfers[i].start_us;
            end[i] = s->transfers[i].end_us;
        }
        rc = greedy_tracks(n, lane, start, end, nlanes, w->platform.ndevices + 1, k);
    }
    free(lane);
    free(start);
    free(end);
    return rc;
}

/* The activities' tracks: lane d for device d's worker, lane ndevices for
 * the engine's own thread and the checks, after every other thread
 * (first_tid). */
static int activity_tracks(const hs_workload *w, const hs_schedule *s, int first_tid, tracks *k)
{
    size_t n = s->nactivities;
    int nd = w->platform.ndevices, rc = -1;
    int *lane = malloc((n + 1) * sizeof *lane);
    double *start = malloc((n + 1) * sizeof *start), *end = malloc((n + 1) * sizeof *end);
    if (lane && start && end) {
        for (size_t i = 0; i < n; i++) {
            const hs_activity *a = &s->activities[i];
            lane[i] = a->device >= 0 && a->device < nd ? a->device : nd;
            start[i] = a->start_us;
            end[i] = a->end_us;
        }
        rc = greedy_tracks(n, lane, start, end, nd + 1, first_tid, k);
    }
    free(lane);
    free(start);
    free(end);
    return rc;
}

/* Appends ev (stolen) to arr; returns 0, or -1 when ev is NULL or the append
 * fails (out of memory, or a name that is not UTF-8 made json_pack fail). */
static int append(json_t *arr, json_t *ev)
{
    return ev && json_array_append_new(arr, ev) == 0 ? 0 : -1;
}

/* A thread_name and a thread_sort_index event, so that viewers list devices
 * first, in platform order, then links. */
static int name_thread(json_t *arr, int tid, const char *name)
{
    if (append(arr, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
                              "pid", PID, "tid", tid, "args", "name", name)) != 0)
        return -1;
    return append(arr, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}", "name", "thread_sort_index",
                                 "ph", "M", "pid", PID, "tid", tid, "args", "sort_index", tid));
}

static const char *device_name(const hs_workload *w, int device)
{
    return device == HS_HOST_DEVICE ? "host" : w->platform.devices[device].name;
}

/* Names the tracks of lane l: `base`, then "base (2)", ... */
static int name_tracks(json_t *arr, const tracks *k, int l, const char *base)
{
    char name[2 * HS_NAME_MAX + 64];
    for (int j = 0; j < k->ntracks[l]; j++) {
        if (j == 0)
            hs__label(name, sizeof name, "%s", base);
        else
            hs__label(name, sizeof name, "%s (%d)", base, j + 1);
        if (name_thread(arr, k->first_tid[l] + j, name) != 0)
            return -1;
    }
    return 0;
}

/* The process and its threads: devices, then each link's tracks, named
 * "host -> gpu0", "host -> gpu0 (2)", ..., then the workers' activities
 * ("gpu0 worker") and the checks.  A measured schedule says so, and on
 * which backend, in the process's name.  Returns 0 or -1 (see append). */
static int metadata(json_t *arr, const hs_workload *w, const hs_schedule *s,
                    const int *lane_of_pair, const tracks *k, const tracks *ka)
{
    const hs_platform *pl = &w->platform;
    int nm = pl->nmemories;
    char name[2 * HS_NAME_MAX + 64];
    hs__label(name, sizeof name, "hetsched %s%s%s%s%s", s->algorithm ? s->algorithm : "schedule",
              s->model && strcmp(s->model, "delay") != 0 ? ", " : "",
              s->model && strcmp(s->model, "delay") != 0 ? s->model : "",
              s->backend ? " on backend " : "", s->backend ? s->backend : "");
    if (append(arr, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "process_name", "ph", "M",
                              "pid", PID, "tid", 0, "args", "name", name)) != 0)
        return -1;
    for (int d = 0; d < pl->ndevices; d++)
        if (name_thread(arr, d + 1, pl->devices[d].name) != 0)
            return -1;
    for (int i = 0; i < nm * nm; i++) {
        int l = lane_of_pair[i];
        if (l < 0)
            continue;
        hs__label(name, sizeof name, "%s -> %s", pl->memories[i / nm], pl->memories[i % nm]);
        if (name_tracks(arr, k, l, name) != 0)
            return -1;
    }
    for (int d = 0; d <= pl->ndevices; d++) {
        if (d < pl->ndevices)
            hs__label(name, sizeof name, "%s worker", pl->devices[d].name);
        else
            hs__label(name, sizeof name, "engine and checks");
        if (name_tracks(arr, ka, d, name) != 0)
            return -1;
    }
    return 0;
}

/* An X event per placement on its device's thread, per transfer between
 * two memories on its track and per activity on its worker's (or the
 * checks') track.  Returns 0 or -1 (see append). */
static int spans(json_t *arr, const hs_workload *w, const hs_schedule *s, const tracks *k,
                 const tracks *ka)
{
    const hs_platform *pl = &w->platform;
    char name[2 * HS_TASK_ID_MAX + 16];
    for (size_t i = 0; i < s->nplacements; i++) {
        const hs_placement *p = &s->placements[i];
        hs__placement_id(w, p, name, sizeof name);
        if (append(arr, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:s, s:f}}",
                                  "name", name, "cat", w->apps[w->graph.tasks[p->task].app].name,
                                  "ph", "X", "ts", p->start_us, "dur", p->end_us - p->start_us,
                                  "pid", PID, "tid", p->device + 1, "args", "device",
                                  pl->devices[p->device].name, "fraction", p->fraction)) != 0)
            return -1;
    }
    for (size_t i = 0; i < s->ntransfers; i++) {
        const hs_transfer *tr = &s->transfers[i];
        const hs_task *t = hs__transfer_task(w, s, tr);
        char from[HS_TASK_ID_MAX] = "host", to[HS_TASK_ID_MAX] = "host";
        if (k->tid[i] == 0)
            continue; /* stays in one memory: takes no time on a link */
        if (tr->from_placement != HS_NONE)
            hs__placement_id(w, &s->placements[tr->from_placement], from, sizeof from);
        if (tr->to_placement != HS_NONE)
            hs__placement_id(w, &s->placements[tr->to_placement], to, sizeof to);
        if (tr->from_placement == HS_NONE && tr->to_placement != HS_NONE)
            hs__label(name, sizeof name, "input of %s", to);
        else if (tr->to_placement == HS_NONE && tr->from_placement != HS_NONE)
            hs__label(name, sizeof name, "output of %s", from);
        else
            hs__label(name, sizeof name, "%s -> %s", from, to);
        if (append(arr, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:f, s:s, s:s}}",
                                  "name", name, "cat", t ? w->apps[t->app].name : "transfer",
                                  "ph", "X", "ts", tr->start_us, "dur",
                                  tr->end_us - tr->start_us, "pid", PID, "tid", k->tid[i],
                                  "args", "bytes", tr->bytes, "from",
                                  device_name(w, tr->from_device), "to",
                                  device_name(w, tr->to_device))) != 0)
            return -1;
    }
    for (size_t i = 0; i < s->nactivities; i++) {
        const hs_activity *a = &s->activities[i];
        char of[HS_TASK_ID_MAX] = "";
        if (a->placement != HS_NONE)
            hs__placement_id(w, &s->placements[a->placement], of, sizeof of);
        hs__label(name, sizeof name, "%s%s%s", a->what, of[0] ? " " : "", of);
        if (append(arr, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:f}}", "name", name,
                                  "cat", a->what, "ph", "X", "ts", a->start_us, "dur",
                                  a->end_us - a->start_us, "pid", PID, "tid", ka->tid[i],
                                  "args", "bytes", a->bytes)) != 0)
            return -1;
    }
    return 0;
}

/* The flow events of every dependency between placements (see the top),
 * in O(placements + edges x parts^2).  Returns 0 or -1 when out of memory. */
static int flows(json_t *arr, const hs_workload *w, const hs_schedule *s)
{
    const hs_graph *g = &w->graph;
    hs__plindex ix;
    hs_error oom;
    long long id = 0;
    int rc = 0;
    size_t a, b;
    if (hs__plindex_build(s, g->ntasks, &ix, &oom) != 0)
        return -1;
    for (size_t e = 0; e < g->nedges && rc == 0; e++) {
        size_t u = g->edges[e].from, v = g->edges[e].to;
        const char *cat = w->apps[g->tasks[v].app].name;
        HS__PLINDEX_FOREACH(&ix, u, a)
        {
            const hs_placement *pu = &s->placements[a];
            HS__PLINDEX_FOREACH(&ix, v, b)
            {
                const hs_placement *pv = &s->placements[b];
                id++;
                if (append(arr, json_pack("{s:s, s:s, s:s, s:I, s:f, s:i, s:i}", "name",
                                          "dependency", "cat", cat, "ph", "s", "id", id, "ts",
                                          (pu->start_us + pu->end_us) / 2, "pid", PID, "tid",
                                          pu->device + 1)) != 0 ||
                    append(arr, json_pack("{s:s, s:s, s:s, s:s, s:I, s:f, s:i, s:i}", "name",
                                          "dependency", "cat", cat, "ph", "f", "bp", "e", "id",
                                          id, "ts", pv->start_us, "pid", PID, "tid",
                                          pv->device + 1)) != 0)
                    rc = -1;
            }
        }
    }
    hs__plindex_free(&ix);
    return rc;
}

static int trace_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    int nm = w->platform.nmemories, nlanes, rc;
    hs_output o;
    int *lane_of_pair = NULL;
    tracks k = {0}, ka = {0};
    json_t *root = NULL, *arr = NULL;
    const size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(15);
    char path_text[4096];
    const char *workload = NULL;
    if ((rc = hs__schedule_check_refs(w, s, err)) != 0)
        return rc;
    lane_of_pair = malloc((size_t)(nm * nm) * sizeof *lane_of_pair);
    arr = json_array();
    if (!lane_of_pair || !arr) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the trace");
        goto out;
    }
    nlanes = hs__link_lanes(w, s, lane_of_pair);
    if (transfer_tracks(w, s, lane_of_pair, nlanes, &k) != 0 ||
        activity_tracks(w, s, nlanes ? k.first_tid[nlanes - 1] + k.ntracks[nlanes - 1]
                                     : w->platform.ndevices + 1, &ka) != 0) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the trace");
        goto out;
    }
    /* names are UTF-8 (the builder checks), a file name need not be */
    if (w->path || s->workload)
        workload = hs__utf8_copy(path_text, sizeof path_text, w->path ? w->path : s->workload);
    if (metadata(arr, w, s, lane_of_pair, &k, &ka) != 0 || spans(arr, w, s, &k, &ka) != 0 ||
        flows(arr, w, s) != 0 ||
        !(root = json_pack("{s:O, s:s, s:{s:s?, s:s?, s:f}}", "traceEvents", arr,
                           "displayTimeUnit", "ms", "otherData", "workload",
                           workload, "algorithm", s->algorithm,
                           "makespan_us", s->makespan_us))) {
        rc = hs_error_set(err, HS_ENOMEM, "cannot build the trace: out of memory, or a name "
                          "that is not UTF-8");
        goto out;
    }
    if ((rc = hs_output_open(&o, path, err)) == HS_OK)
        rc = hs_output_close(&o,
                              json_dumpf(root, o.f, flags) == 0 && fputc('\n', o.f) != EOF
                                  ? HS_OK
                                  : hs_output_error(&o, err),
                              err);
out:
    tracks_free(&k);
    tracks_free(&ka);
    json_decref(arr);
    json_decref(root);
    free(lane_of_pair);
    return rc;
}

/* (the trace has an event for each transfer: an implied schedule's are listed
 * first) */
int hs_trace_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    return hs__write_listed(w, s, trace_write, path, err);
}
