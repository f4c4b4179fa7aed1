/* hetsched — schedules as Chrome trace-event JSON with jansson, for Perfetto
 * and chrome://tracing (include/hetsched/export.h).  The format: an object
 * with "traceEvents", an array of events; "M" events name the process and
 * threads, "X" (complete) events carry ts and dur in µs.
 *
 * Viewers expect the X events of one thread to nest, never to overlap in
 * part.  A device runs one task at a time, so its placements never overlap
 * (in a valid schedule); transfers on one link may (the delay model has no
 * contention), so each link gets as many threads ("tracks") as it has
 * transfers in flight at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hetsched/export.h"
#include "graph/export_util.h"
#include "graph/output.h"
#include "graph/schedule_int.h"

#define PID 1

/* Where the transfers go: transfer i on thread tid[i] (0 when it stays in
 * one memory); the threads of link lane l are first_tid[l] ..
 * first_tid[l] + ntracks[l] - 1. */
typedef struct tracks {
    int *tid;         /* [ntransfers] */
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

/* Greedy interval partitioning: in order of start, a transfer takes the
 * first track of its link that is free by then, or opens a new one.  That
 * uses as many tracks as the most transfers in flight at once on the link.
 * Cost O(T log T + T x that number).  Returns 0 or -1 when out of memory. */
static int assign_tracks(const hs_workload *w, const hs_schedule *s, const int *lane_of_pair,
                         int nlanes, tracks *k)
{
    size_t nt = s->ntransfers, ntr = 0;
    span *order = malloc((nt + 1) * sizeof *order);
    double *end = malloc((nt + 1) * sizeof *end);   /* per track: when it is free */
    int *lane = malloc((nt + 1) * sizeof *lane);    /* per track */
    int *local = malloc((nt + 1) * sizeof *local);  /* per transfer: track within lane */
    int rc = -1;
    k->tid = calloc(nt + 1, sizeof *k->tid);
    k->first_tid = calloc((size_t)nlanes + 1, sizeof *k->first_tid);
    k->ntracks = calloc((size_t)nlanes + 1, sizeof *k->ntracks);
    if (!order || !end || !lane || !local || !k->tid || !k->first_tid || !k->ntracks)
        goto out;
    for (size_t i = 0; i < nt; i++)
        order[i] = (span){s->transfers[i].start_us, i};
    qsort(order, nt, sizeof *order, by_start);
    for (size_t j = 0; j < nt; j++) {
        size_t i = order[j].i, tr;
        int l = hs__transfer_lane(w, &s->transfers[i], lane_of_pair), n = 0;
        if (l < 0) {
            local[i] = -1;
            continue;
        }
        for (tr = 0; tr < ntr; tr++) {
            if (lane[tr] != l)
                continue;
            if (end[tr] <= s->transfers[i].start_us)
                break;
            n++;
        }
        if (tr == ntr) {
            lane[ntr++] = l;
            k->ntracks[l]++;
        }
        end[tr] = s->transfers[i].end_us;
        local[i] = n;
    }
    for (int l = 0; l < nlanes; l++)
        k->first_tid[l] = (l ? k->first_tid[l - 1] + k->ntracks[l - 1]
                             : w->platform.ndevices + 1);
    for (size_t i = 0; i < nt; i++)
        if (local[i] >= 0)
            k->tid[i] = k->first_tid[hs__transfer_lane(w, &s->transfers[i], lane_of_pair)] +
                        local[i];
    rc = 0;
out:
    free(order);
    free(end);
    free(lane);
    free(local);
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

/* The process and its threads: devices, then each link's tracks, named
 * "host -> gpu0", "host -> gpu0 (2)", ...  Returns 0 or -1 (see append). */
static int metadata(json_t *arr, const hs_workload *w, const hs_schedule *s,
                    const int *lane_of_pair, const tracks *k)
{
    const hs_platform *pl = &w->platform;
    int nm = pl->nmemories;
    char name[1100];
    snprintf(name, sizeof name, "hetsched %s", s->algorithm ? s->algorithm : "schedule");
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
        for (int j = 0; j < k->ntracks[l]; j++) {
            int n = snprintf(name, sizeof name, "%s -> %s", pl->memories[i / nm],
                             pl->memories[i % nm]);
            if (j > 0 && n > 0 && (size_t)n < sizeof name)
                snprintf(name + n, sizeof name - (size_t)n, " (%d)", j + 1);
            if (name_thread(arr, k->first_tid[l] + j, name) != 0)
                return -1;
        }
    }
    return 0;
}

/* An X event per placement on its device's thread and per transfer between
 * two memories on its track.  Returns 0 or -1 (see append). */
static int spans(json_t *arr, const hs_workload *w, const hs_schedule *s, const tracks *k)
{
    const hs_platform *pl = &w->platform;
    char name[1100];
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
        char from[520] = "host", to[520] = "host";
        if (k->tid[i] == 0)
            continue; /* stays in one memory: takes no time on a link */
        if (tr->from_placement != HS_NONE)
            hs__placement_id(w, &s->placements[tr->from_placement], from, sizeof from);
        if (tr->to_placement != HS_NONE)
            hs__placement_id(w, &s->placements[tr->to_placement], to, sizeof to);
        if (tr->from_placement == HS_NONE && tr->to_placement != HS_NONE)
            snprintf(name, sizeof name, "input of %s", to);
        else if (tr->to_placement == HS_NONE && tr->from_placement != HS_NONE)
            snprintf(name, sizeof name, "output of %s", from);
        else
            snprintf(name, sizeof name, "%s -> %s", from, to);
        if (append(arr, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:f, s:s, s:s}}",
                                  "name", name, "cat", t ? w->apps[t->app].name : "transfer",
                                  "ph", "X", "ts", tr->start_us, "dur",
                                  tr->end_us - tr->start_us, "pid", PID, "tid", k->tid[i],
                                  "args", "bytes", tr->bytes, "from",
                                  device_name(w, tr->from_device), "to",
                                  device_name(w, tr->to_device))) != 0)
            return -1;
    }
    return 0;
}

int hs_trace_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    int nm = w->platform.nmemories, nlanes, rc;
    hs__output o;
    int *lane_of_pair = NULL;
    tracks k = {0};
    json_t *root = NULL, *arr = NULL;
    const size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(15);
    if ((rc = hs__schedule_check_refs(w, s, err)) != 0)
        return rc;
    lane_of_pair = malloc((size_t)(nm * nm) * sizeof *lane_of_pair);
    arr = json_array();
    if (!lane_of_pair || !arr) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the trace");
        goto out;
    }
    nlanes = hs__link_lanes(w, s, lane_of_pair);
    if (assign_tracks(w, s, lane_of_pair, nlanes, &k) != 0) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the trace");
        goto out;
    }
    if (metadata(arr, w, s, lane_of_pair, &k) != 0 || spans(arr, w, s, &k) != 0 ||
        !(root = json_pack("{s:O, s:s, s:{s:s?, s:s?, s:f}}", "traceEvents", arr,
                           "displayTimeUnit", "ms", "otherData", "workload",
                           w->path ? w->path : s->workload, "algorithm", s->algorithm,
                           "makespan_us", s->makespan_us))) {
        rc = hs_error_set(err, HS_ENOMEM, "cannot build the trace: out of memory, or a name "
                          "that is not UTF-8");
        goto out;
    }
    if ((rc = hs__output_open(&o, path, err)) == HS_OK)
        rc = hs__output_close(&o,
                              json_dumpf(root, o.f, flags) == 0 && fputc('\n', o.f) != EOF
                                  ? HS_OK
                                  : hs__output_error(&o, err),
                              err);
out:
    tracks_free(&k);
    json_decref(arr);
    json_decref(root);
    free(lane_of_pair);
    return rc;
}
