/* hetsched — `given`: runs the schedule it is given (hs_map_options.schedule)
 * instead of choosing one: each task on the device the schedule placed it
 * on, each device's tasks in the order of their start times there.  A task
 * still waits for its device's previous task and for its inputs, as under
 * any policy, so that the schedule of `optimal --json` (the MILP's, Zhou &
 * Liu eq. (1)-(8)) or of `map --json` runs in the simulator with the costs
 * it was made with to its own makespan or less (a task starts as soon as it
 * can; the MILP's optimum has no time to give back), and on a real backend
 * gives the real makespan of that mapping and order.
 *
 * Not in the registry: it has nothing to run without a schedule, so hs_map
 * and hs_run take it for a NULL policy name with a schedule
 * (hs__policy_resolve), and no loop over every policy meets it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/json_read.h"
#include "graph/schedule_int.h"
#include "mapper/policy.h"
#include "mapper/rank.h"

/* A task's place in its device's order: start, then end; tasks of no
 * duration at one instant by topological position. */
typedef struct given_key {
    double start, end;
    size_t topo;
} given_key;

static int key_before(const given_key *x, const given_key *y)
{
    if (x->start != y->start)
        return x->start < y->start;
    if (x->end != y->end)
        return x->end < y->end;
    return x->topo < y->topo;
}

typedef struct sort_item {
    given_key key;
    size_t task;
} sort_item;

static int by_key(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    return key_before(&x->key, &y->key) ? -1 : key_before(&y->key, &x->key) ? 1 : 0;
}

/* HS_EINPUT for the item at `path` of the schedule: located in doc's text
 * when there is one (a file), else named by its path. */
static int fail(const hs__json_doc *doc, hs_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(const hs__json_doc *doc, hs_error *err, const char *path, const char *fmt, ...)
{
    char what[HS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (doc)
        return hs__json_error(doc, err, path, "%s", what);
    return hs_error_set(err, HS_EINPUT, "the schedule: %s%s%s", path, *path ? ": " : "", what);
}

/* Turns s into the plan that hs__planned_new executes: device[t] the
 * schedule's; start[t] = end[t] = t's position in one order that keeps both
 * the graph's edges and each device's order, so that planned order on each
 * device is the schedule's.  Refuses (HS_EINPUT, located through doc when
 * not NULL) a placement of a task or device w does not have, a part of a
 * split task, a task placed twice or not at all, and devices' orders that
 * no run can keep (a task before, on its device, one that waits for it). */
static int given_plan(const hs_workload *w, const hs_schedule *s, const hs__json_doc *doc,
                      hs__plan *plan, hs_error *err)
{
    const hs_graph *g = &w->graph;
    size_t n = g->ntasks, *where = malloc((n ? n : 1) * sizeof *where);
    size_t *order = malloc((n ? n : 1) * sizeof *order), *next = NULL, *wait = NULL;
    size_t *queue = NULL, done = 0, head = 0;
    given_key *key = malloc((n ? n : 1) * sizeof *key);
    sort_item *items = NULL;
    char id[HS_TASK_ID_MAX], other[HS_TASK_ID_MAX], path[64];
    int rc = HS_OK;
    memset(plan, 0, sizeof *plan);
    if (!where || !order || !key) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t t = 0; t < n; t++)
        where[t] = SIZE_MAX;
    for (size_t i = 0; i < s->nplacements && rc == HS_OK; i++) {
        const hs_placement *p = &s->placements[i];
        snprintf(path, sizeof path, "tasks[%zu].id", i);
        if (p->task >= n || p->device < 0 || p->device >= g->ndevices) {
            rc = fail(doc, err, path, "task %zu on device %d: the workload has %zu tasks and %d "
                      "devices", p->task, p->device, n, g->ndevices);
            break;
        }
        hs__placement_id(w, p, id, sizeof id);
        if (p->nparts != 1)
            rc = fail(doc, err, path, "'%s' is a part of a split task: a given schedule runs "
                      "whole tasks", id);
        else if (where[p->task] != SIZE_MAX)
            rc = fail(doc, err, path, "'%s' is placed twice (also tasks[%zu])", id,
                      where[p->task]);
        else
            where[p->task] = i;
    }
    for (size_t t = 0; t < n && rc == HS_OK; t++)
        if (where[t] == SIZE_MAX) {
            hs_task_id(w, &g->tasks[t], id, sizeof id);
            rc = fail(doc, err, "", "task '%s' is not placed (the schedule places %zu of the "
                      "workload's %zu tasks)", id, s->nplacements, n);
        }
    if (rc != HS_OK || (rc = hs_graph_topo_order(g, order, err)) != HS_OK)
        goto out;

    /* each device's order, as the successor of each task on its device */
    items = malloc((n ? n : 1) * sizeof *items);
    next = malloc((n ? n : 1) * sizeof *next);
    wait = calloc(n ? n : 1, sizeof *wait);
    queue = malloc((n ? n : 1) * sizeof *queue);
    if (!items || !next || !wait || !queue) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        const hs_placement *p = &s->placements[where[order[k]]];
        key[order[k]] = (given_key){.start = p->start_us, .end = p->end_us, .topo = k};
    }
    for (int d = 0, m = 0; d < g->ndevices; d++, m = 0) {
        for (size_t t = 0; t < n; t++)
            if (s->placements[where[t]].device == d)
                items[m++] = (sort_item){.key = key[t], .task = t};
        qsort(items, (size_t)m, sizeof *items, by_key);
        for (int i = 0; i < m; i++) {
            next[items[i].task] = i + 1 < m ? items[i + 1].task : SIZE_MAX;
            wait[items[i].task] += i > 0;
        }
    }

    /* Kahn over the graph's edges and the devices' orders: the order it
     * finds is the plan's; a task it cannot reach waits in a cycle */
    for (size_t t = 0; t < n; t++)
        wait[t] += g->pred_off[t + 1] - g->pred_off[t];
    for (size_t t = 0; t < n; t++)
        if (!wait[t])
            queue[done++] = t;
    while (head < done) {
        size_t t = queue[head++];
        const hs_edge *e;
        HS_GRAPH_SUCC_FOREACH(g, t, e)
            if (!--wait[e->to])
                queue[done++] = e->to;
        if (next[t] != SIZE_MAX && !--wait[next[t]])
            queue[done++] = next[t];
    }
    if (done < n) {
        /* on a cycle, the devices' orders all go forward in time and the
         * edges forward in topological order: some edge of it goes back in
         * time, from a task that starts after the one that needs it */
        for (size_t t = 0; t < n && rc == HS_OK; t++) {
            const hs_edge *e;
            if (!wait[t])
                continue;
            HS_GRAPH_PRED_FOREACH(g, t, e)
                if (wait[e->from] && key_before(&key[t], &key[e->from])) {
                    const hs_placement *p = &s->placements[where[t]];
                    const hs_placement *q = &s->placements[where[e->from]];
                    const char *dp = w->platform.devices[p->device].name;
                    const char *dq = w->platform.devices[q->device].name;
                    hs__placement_id(w, p, id, sizeof id);
                    hs__placement_id(w, q, other, sizeof other);
                    snprintf(path, sizeof path, "tasks[%zu].start_us", where[t]);
                    if (p->device == q->device)
                        rc = fail(doc, err, path, "'%s' starts at %.3f us on %s, before '%s' "
                                  "that it needs (tasks[%zu], at %.3f us)", id, p->start_us,
                                  dp, other, where[e->from], q->start_us);
                    else
                        rc = fail(doc, err, path, "'%s' starts at %.3f us on %s, before '%s' "
                                  "that it needs (tasks[%zu], at %.3f us on %s), and the two "
                                  "devices' orders wait for each other", id, p->start_us, dp,
                                  other, where[e->from], q->start_us, dq);
                    break;
                }
        }
        if (rc == HS_OK)
            rc = fail(doc, err, "", "the devices' orders and the graph's edges make a cycle");
        goto out;
    }
    if ((rc = hs__plan_alloc(plan, n, err)) != HS_OK)
        goto out;
    for (size_t k = 0; k < n; k++) {
        size_t t = queue[k];
        plan->device[t] = s->placements[where[t]].device;
        plan->start[t] = plan->end[t] = (double)k;
    }
out:
    free(where);
    free(order);
    free(key);
    free(items);
    free(next);
    free(wait);
    free(queue);
    return rc;
}

int hs_schedule_read_given(hs_workload *w, const char *path, hs_schedule **out, hs_error *err)
{
    hs__json_doc doc;
    hs__plan plan;
    int rc;
    *out = NULL;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if ((rc = hs__json_read_file(path, &doc, err)) != HS_OK)
        return rc;
    /* the text stays for located messages; the schedule reader parses it
     * again, so the tree goes first */
    json_decref(doc.root);
    doc.root = NULL;
    rc = hs_schedule_read_json_buffer(w, doc.name, doc.data, doc.len, out, err);
    if (rc == HS_OK && (rc = given_plan(w, *out, &doc, &plan, err)) == HS_OK)
        hs__plan_free(&plan);
    if (rc != HS_OK) {
        hs_schedule_free(*out);
        *out = NULL;
    }
    hs__json_doc_free(&doc);
    return rc;
}

static int given_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_workload *w = hs_engine_workload(e);
    hs__plan plan;
    int rc;
    if (!opt || !opt->schedule)
        return hs_error_set(err, HS_EUSAGE, "policy given runs hs_map_options.schedule: none "
                            "is set");
    if (hs_engine_graph(e) != &w->graph || opt->live_split)
        return hs_error_set(err, HS_EUSAGE, "--split does not apply to --schedule: the "
                            "schedule places whole tasks");
    rc = given_plan(w, opt->schedule, NULL, &plan, err);
    return rc != HS_OK ? rc : hs__planned_new(e, &plan, state, err);
}

const hs_policy hs__policy_given = {
    .name = "given",
    .description = "runs the schedule it is given (--schedule FILE): each task on its device "
                   "there, each device's tasks in their start order there",
    .init = given_init,
    .ready = hs__planned_ready,
    .pick = hs__planned_pick,
    .ahead = hs__planned_ahead,
    .fini = hs__planned_fini,
};
