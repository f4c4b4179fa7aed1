/* hetsched — WfCommons' WfFormat JSON, schema 1.5 and 1.6, read with
 * jansson (graph/read.h).
 *
 *   {"schemaVersion": "1.5", "name": ...,
 *    "workflow": {
 *      "specification": {
 *        "tasks": [{"id": "a", "parents": [], "children": ["b"],
 *                   "inputFiles": ["in.txt"], "outputFiles": ["a.out"]}, ...],
 *        "files": [{"id": "a.out", "sizeInBytes": 1000}, ...]},
 *      "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1.5}, ...]}}}
 *
 * Each specification task is a kernel named by its id, costing its
 * execution's runtime (in microseconds; each device's cost derived as
 * load.h says).  A parent/child pair, listed on either side, is an edge; it
 * carries the bytes of the files the parent writes and the child reads.  A
 * file a task reads that no parent of it writes is read from host memory
 * (the kernel's input_bytes), a file it writes that no child of it reads is
 * written back (output_bytes).  Keys the reader does not use are left
 * alone.  Errors give JSON syntax at FILE:LINE:COL and an item by its JSON
 * path (workflow.specification.tasks[3].parents[0]). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "graph/json_read.h"
#include "graph/read.h"
#include "graph/strmap.h"

/* Work on the files: every (writer, reader) pair of one file is looked at;
 * beyond this many pairs a file is refused rather than read for minutes.
 * A real workflow's file has one writer. */
#define MAX_FILE_PAIRS 100000000.0

#define SPEC "workflow.specification"

/* A task's references, as indices into the flat ref array. */
typedef struct wtask {
    size_t parents, nparents, children, nchildren, inputs, ninputs, outputs, noutputs;
} wtask;

/* Where edge e came from: task `task`'s parents[pos] (or children[pos]). */
typedef struct wedge {
    size_t from, to, task, pos;
    int child;
    double bytes;
} wedge;

typedef struct wf {
    hs__set *s;
    hs__json_doc doc;
    const json_t *tasks, *files;
    size_t ntasks, nfiles;
    wtask *task;
    size_t *ref, nref, refcap;   /* task or file indices */
    double *runtime_us, *size, *in_bytes, *out_bytes;
    wedge *edge;
    size_t nedges, edgecap;
    hs__strmap *task_ix, *file_ix, *edge_ix;
    size_t *writer_off, *writer, *nwriter, *reader_off, *reader, *nreader; /* per file */
} wf;

/* The item at `fmt`'s JSON path, with the position in the text of the
 * deepest item on the way that the text holds (the object a missing key
 * would be in). */
static hs__where item(const wf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static hs__where item(const wf *g, const char *fmt, ...)
{
    hs__where w = {0};
    char path[sizeof w.item];
    int line, col, found;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w.item, sizeof w.item, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s", w.item);
    while (!(found = hs__json_position(&g->doc, path, &line, &col)) && path[0]) {
        char *dot = strrchr(path, '.'), *bracket = strrchr(path, '[');
        *(dot > bracket ? dot : bracket ? bracket : path) = '\0';
    }
    if (found || hs__json_position(&g->doc, "", &line, &col)) {
        w.line = (size_t)line;
        w.col = (size_t)col;
    }
    return w;
}

static int nomem(wf *g)
{
    return hs_error_set(g->s->err, HS_ENOMEM, "%s: out of memory", g->s->name);
}

/* obj.key when it has type `type` (JSON_REAL: any number); NULL and an
 * error when it is missing (unless optional) or of another type. */
static const json_t *member(wf *g, const json_t *obj, const char *path, const char *key,
                            json_type type, int optional, int *rc)
{
    const json_t *v = json_object_get(obj, key);
    static const char *const want[] = {"an object", "an array", "a string", "a number",
                                       "a number"};
    hs__where at = item(g, "%s%s%s", path, *path ? "." : "", key);
    *rc = HS_OK;
    if (!v) {
        if (!optional)
            *rc = hs__set_fail(g->s, &at, "missing (expected %s)", want[type]);
        return NULL;
    }
    if (type == JSON_REAL ? !json_is_number(v) : json_typeof(v) != type) {
        *rc = hs__set_fail(g->s, &at, "expected %s, not %s", want[type], hs__json_type_name(v));
        return NULL;
    }
    return v;
}

/* --------------------------------------------------------- the structure */

/* Appends index v to the refs. */
static int push_ref(wf *g, size_t v)
{
    if (g->nref == g->refcap) {
        size_t cap = g->refcap ? 2 * g->refcap : 256;
        size_t *r = realloc(g->ref, cap * sizeof *r);
        if (!r)
            return nomem(g);
        g->ref = r;
        g->refcap = cap;
    }
    g->ref[g->nref++] = v;
    return HS_OK;
}

/* Reads the list of ids task[ti].key into the refs, each looked up in ix
 * (named `what` in messages); *first and *count get where they went. */
static int id_list(wf *g, size_t ti, const char *key, int optional, const hs__strmap *ix,
                   const char *what, size_t *first, size_t *count)
{
    char path[96];
    const json_t *list, *v;
    size_t i, idx;
    int rc;
    snprintf(path, sizeof path, SPEC ".tasks[%zu]", ti);
    list = member(g, json_array_get(g->tasks, ti), path, key, JSON_ARRAY, optional, &rc);
    *first = g->nref;
    *count = 0;
    if (!list)
        return rc;
    json_array_foreach(list, i, v) {
        char shown[96];
        hs__where at = item(g, "%s.%s[%zu]", path, key, i);
        if (!json_is_string(v))
            return hs__set_fail(g->s, &at, "expected the id of %s (a string), not %s",
                                what, hs__json_type_name(v));
        if (!hs__strmap_get(ix, json_string_value(v), &idx))
            return hs__set_fail(g->s, &at, "no %s '%s' in " SPEC ".%ss", what,
                                hs__quote(shown, sizeof shown, json_string_value(v),
                                          json_string_length(v), 64), what);
        if ((rc = push_ref(g, idx)) != HS_OK)
            return rc;
        ++*count;
    }
    return HS_OK;
}

/* Indexes a list of objects by their "id" (strings, unique). */
static int index_ids(wf *g, const json_t *list, const char *path, hs__strmap **ix)
{
    const json_t *v;
    size_t i;
    if (!(*ix = hs__strmap_new(json_array_size(list) + 1)))
        return nomem(g);
    json_array_foreach(list, i, v) {
        char p[96], shown[96];
        const json_t *id;
        size_t old;
        int rc;
        snprintf(p, sizeof p, "%s[%zu]", path, i);
        if (!json_is_object(v)) {
            hs__where at = item(g, "%s", p);
            return hs__set_fail(g->s, &at, "expected an object, not %s", hs__json_type_name(v));
        }
        if (!(id = member(g, v, p, "id", JSON_STRING, 0, &rc)))
            return rc;
        if (hs__strmap_get(*ix, json_string_value(id), &old)) {
            hs__where at = item(g, "%s.id", p);
            return hs__set_fail(g->s, &at, "a second '%s' (the first is %s[%zu])",
                                hs__quote(shown, sizeof shown, json_string_value(id),
                                          json_string_length(id), 64), path, old);
        }
        if (hs__strmap_put(*ix, json_string_value(id), i) < 0)
            return nomem(g);
    }
    return HS_OK;
}

static int read_files(wf *g)
{
    const json_t *v;
    size_t i;
    int rc;
    if (!g->files)
        return (g->file_ix = hs__strmap_new(1)) ? HS_OK : nomem(g);
    g->nfiles = json_array_size(g->files);
    if ((rc = index_ids(g, g->files, SPEC ".files", &g->file_ix)) != HS_OK)
        return rc;
    if (!(g->size = calloc(g->nfiles + 1, sizeof *g->size)))
        return nomem(g);
    json_array_foreach(g->files, i, v) {
        char path[64];
        const json_t *n;
        snprintf(path, sizeof path, SPEC ".files[%zu]", i);
        if (!(n = member(g, v, path, "sizeInBytes", JSON_REAL, 0, &rc)))
            return rc;
        g->size[i] = json_number_value(n);
        if (!(g->size[i] >= 0 && g->size[i] <= HS_MAX_BYTES) || g->size[i] != floor(g->size[i])) {
            hs__where at = item(g, "%s.sizeInBytes", path);
            return hs__set_fail(g->s, &at, "expected a whole number of bytes from 0 to %g, "
                                "not %g", HS_MAX_BYTES, g->size[i]);
        }
    }
    return HS_OK;
}

/* The runtime of every specification task, from workflow.execution.tasks. */
static int read_runtimes(wf *g, const json_t *workflow)
{
    const json_t *exec, *list, *v;
    size_t i;
    int rc;
    if (!(g->runtime_us = malloc((g->ntasks + 1) * sizeof *g->runtime_us)))
        return nomem(g);
    for (i = 0; i < g->ntasks; i++)
        g->runtime_us[i] = NAN;
    if (!(exec = member(g, workflow, "workflow", "execution", JSON_OBJECT, 0, &rc)) ||
        !(list = member(g, exec, "workflow.execution", "tasks", JSON_ARRAY, 0, &rc)))
        return rc == HS_OK ? HS_OK : rc;
    json_array_foreach(list, i, v) {
        char path[64], shown[96];
        const json_t *id, *rt;
        size_t t;
        hs__where at;
        snprintf(path, sizeof path, "workflow.execution.tasks[%zu]", i);
        if (!json_is_object(v)) {
            at = item(g, "%s", path);
            return hs__set_fail(g->s, &at, "expected an object, not %s", hs__json_type_name(v));
        }
        if (!(id = member(g, v, path, "id", JSON_STRING, 0, &rc)) ||
            !(rt = member(g, v, path, "runtimeInSeconds", JSON_REAL, 0, &rc)))
            return rc;
        at = item(g, "%s.id", path);
        if (!hs__strmap_get(g->task_ix, json_string_value(id), &t))
            return hs__set_fail(g->s, &at, "no task '%s' in " SPEC ".tasks",
                                hs__quote(shown, sizeof shown, json_string_value(id),
                                          json_string_length(id), 64));
        if (!isnan(g->runtime_us[t]))
            return hs__set_fail(g->s, &at, "a second runtime for task '%s'",
                                hs__quote(shown, sizeof shown, json_string_value(id),
                                          json_string_length(id), 64));
        if (!(json_number_value(rt) >= 0)) {
            at = item(g, "%s.runtimeInSeconds", path);
            return hs__set_fail(g->s, &at, "expected a number of seconds >= 0, not %g",
                                json_number_value(rt));
        }
        g->runtime_us[t] = 1e6 * json_number_value(rt);
    }
    return HS_OK;
}

/* Adds edge from -> to (once), listed at task's parents/children[pos]. */
static int add_edge(wf *g, size_t from, size_t to, size_t task, size_t pos, int child)
{
    char key[48];
    size_t old;
    int put;
    snprintf(key, sizeof key, "%zu>%zu", from, to);
    if (hs__strmap_get(g->edge_ix, key, &old))
        return HS_OK;
    if (g->nedges == hs_max_edges()) {
        hs__where at = item(g, SPEC ".tasks[%zu].%s[%zu]", task, child ? "children" : "parents",
                            pos);
        return hs__set_fail(g->s, &at, "more than %zu edges (the loader's limit, which %s "
                            "raises)", hs_max_edges(), HS_MAX_TASKS_ENV);
    }
    if (g->nedges == g->edgecap) {
        size_t cap = g->edgecap ? 2 * g->edgecap : 64;
        wedge *e = realloc(g->edge, cap * sizeof *e);
        if (!e)
            return nomem(g);
        g->edge = e;
        g->edgecap = cap;
    }
    if ((put = hs__strmap_put(g->edge_ix, key, g->nedges)) < 0)
        return nomem(g);
    g->edge[g->nedges++] = (wedge){from, to, task, pos, child, 0};
    return HS_OK;
}

static int read_tasks(wf *g)
{
    int rc;
    if (!(g->task = calloc(g->ntasks + 1, sizeof *g->task)) ||
        !(g->edge_ix = hs__strmap_new(2 * g->ntasks + 16)))
        return nomem(g);
    for (size_t t = 0; t < g->ntasks; t++) {
        wtask *k = &g->task[t];
        if ((rc = id_list(g, t, "parents", 0, g->task_ix, "task", &k->parents,
                          &k->nparents)) != 0 ||
            (rc = id_list(g, t, "children", 0, g->task_ix, "task", &k->children,
                          &k->nchildren)) != 0 ||
            (rc = id_list(g, t, "inputFiles", 1, g->file_ix, "file", &k->inputs,
                          &k->ninputs)) != 0 ||
            (rc = id_list(g, t, "outputFiles", 1, g->file_ix, "file", &k->outputs,
                          &k->noutputs)) != 0)
            return rc;
    }
    /* edges from the parents first, in task order, then those only a
     * child list gives */
    for (size_t t = 0; t < g->ntasks; t++)
        for (size_t j = 0; j < g->task[t].nparents; j++)
            if ((rc = add_edge(g, g->ref[g->task[t].parents + j], t, t, j, 0)) != 0)
                return rc;
    for (size_t t = 0; t < g->ntasks; t++)
        for (size_t j = 0; j < g->task[t].nchildren; j++)
            if ((rc = add_edge(g, t, g->ref[g->task[t].children + j], t, j, 1)) != 0)
                return rc;
    return HS_OK;
}

/* ------------------------------------------------------------- the bytes */

/* Who writes and who reads each file, CSR by file: writer[writer_off[f] ..
 * + nwriter[f]) (a task listing a file twice counts once; it lists its
 * files in one place, so a repeat follows itself). */
static int index_file_users(wf *g)
{
    size_t n = g->nfiles;
    if (!(g->writer_off = calloc(n + 1, sizeof *g->writer_off)) ||
        !(g->reader_off = calloc(n + 1, sizeof *g->reader_off)) ||
        !(g->nwriter = calloc(n + 1, sizeof *g->nwriter)) ||
        !(g->nreader = calloc(n + 1, sizeof *g->nreader)))
        return nomem(g);
    for (size_t t = 0; t < g->ntasks; t++) {
        for (size_t j = 0; j < g->task[t].noutputs; j++)
            g->writer_off[g->ref[g->task[t].outputs + j] + 1]++;
        for (size_t j = 0; j < g->task[t].ninputs; j++)
            g->reader_off[g->ref[g->task[t].inputs + j] + 1]++;
    }
    for (size_t f = 0; f < n; f++) {
        g->writer_off[f + 1] += g->writer_off[f];
        g->reader_off[f + 1] += g->reader_off[f];
    }
    if (!(g->writer = malloc((g->writer_off[n] + 1) * sizeof *g->writer)) ||
        !(g->reader = malloc((g->reader_off[n] + 1) * sizeof *g->reader)))
        return nomem(g);
    for (size_t t = 0; t < g->ntasks; t++) {
        for (size_t j = 0; j < g->task[t].noutputs; j++) {
            size_t f = g->ref[g->task[t].outputs + j], *list = g->writer + g->writer_off[f];
            if (g->nwriter[f] == 0 || list[g->nwriter[f] - 1] != t)
                list[g->nwriter[f]++] = t;
        }
        for (size_t j = 0; j < g->task[t].ninputs; j++) {
            size_t f = g->ref[g->task[t].inputs + j], *list = g->reader + g->reader_off[f];
            if (g->nreader[f] == 0 || list[g->nreader[f] - 1] != t)
                list[g->nreader[f]++] = t;
        }
    }
    return HS_OK;
}

/* Each file's bytes: on every edge from a task that writes it to one that
 * reads it; read from host memory by a reader that no writer feeds, written
 * back by a writer that no reader takes it from. */
static int file_bytes(wf *g)
{
    double pairs = 0;
    int rc;
    if ((rc = index_file_users(g)) != HS_OK)
        return rc;
    if (!(g->in_bytes = calloc(g->ntasks + 1, sizeof *g->in_bytes)) ||
        !(g->out_bytes = calloc(g->ntasks + 1, sizeof *g->out_bytes)))
        return nomem(g);
    for (size_t f = 0; f < g->nfiles; f++) {
        pairs += (double)g->nwriter[f] * (double)g->nreader[f];
        if (pairs > MAX_FILE_PAIRS) {
            hs__where at = item(g, SPEC ".files[%zu]", f);
            return hs__set_fail(g->s, &at, "its writers and readers, with the other files', "
                                "make more than %g (writer, reader) pairs to match (the "
                                "reader's limit)", MAX_FILE_PAIRS);
        }
    }
    for (size_t f = 0; f < g->nfiles; f++) {
        const size_t *w = g->writer + g->writer_off[f], *r = g->reader + g->reader_off[f];
        for (size_t i = 0; i < g->nwriter[f]; i++) {
            int taken = 0;
            for (size_t j = 0; j < g->nreader[f]; j++) {
                char key[48];
                size_t e;
                snprintf(key, sizeof key, "%zu>%zu", w[i], r[j]);
                if (hs__strmap_get(g->edge_ix, key, &e)) {
                    g->edge[e].bytes += g->size[f];
                    taken = 1;
                }
            }
            if (!taken)
                g->out_bytes[w[i]] += g->size[f];
        }
        for (size_t j = 0; j < g->nreader[f]; j++) {
            int fed = 0;
            for (size_t i = 0; i < g->nwriter[f] && !fed; i++) {
                char key[48];
                size_t e;
                snprintf(key, sizeof key, "%zu>%zu", w[i], r[j]);
                fed = hs__strmap_get(g->edge_ix, key, &e);
            }
            if (!fed)
                g->in_bytes[r[j]] += g->size[f];
        }
    }
    return HS_OK;
}

/* ------------------------------------------------------------- the build */

static void wf_where(const hs__set *s, int app, int is_edge, int index, hs__where *out)
{
    const wf *g = s->ctx;
    (void)app;
    *out = (hs__where){0};
    if (index >= 0 && !is_edge)
        *out = item(g, SPEC ".tasks[%d]", index);
    else if (index >= 0 && (size_t)index < g->nedges)
        *out = item(g, SPEC ".tasks[%zu].%s[%zu]", g->edge[index].task,
                    g->edge[index].child ? "children" : "parents", g->edge[index].pos);
}

static int build(wf *g)
{
    hs_workload *w = g->s->w;
    int a, rc;
    if ((a = hs__set_app(g->s, "", 1)) < 0)
        return a;
    for (size_t t = 0; t < g->ntasks; t++) {
        const char *id = json_string_value(json_object_get(json_array_get(g->tasks, t), "id"));
        hs__where at;
        wf_where(g->s, a, 0, (int)t, &at);
        if ((rc = hs_app_add_kernel(w, a, id, g->s->err)) < 0)
            return hs__set_failed(g->s, rc, &at);
        if (isnan(g->runtime_us[t]))
            return hs__set_fail(g->s, &at, "no runtime (workflow.execution.tasks has no task "
                                "with its id)");
        if ((rc = hs__set_cost(g->s, a, (int)t, g->runtime_us[t], &at)) != 0)
            return rc;
        if ((rc = hs_kernel_set_bytes(w, a, (int)t, g->in_bytes[t], g->out_bytes[t],
                                      g->s->err)) < 0)
            return hs__set_failed(g->s, rc, &at);
    }
    for (size_t e = 0; e < g->nedges; e++) {
        const wedge *ed = &g->edge[e];
        hs__where at;
        wf_where(g->s, a, 1, (int)e, &at);
        if ((rc = hs_app_add_edge(w, a, w->apps[a].kernels[ed->from].name,
                                  w->apps[a].kernels[ed->to].name, ed->bytes, g->s->err)) < 0)
            return hs__set_failed(g->s, rc, &at);
    }
    return HS_OK;
}

static void wf_free(wf *g)
{
    hs__json_doc_free(&g->doc);
    free(g->task);
    free(g->ref);
    free(g->runtime_us);
    free(g->size);
    free(g->in_bytes);
    free(g->out_bytes);
    free(g->edge);
    hs__strmap_free(g->task_ix);
    hs__strmap_free(g->file_ix);
    hs__strmap_free(g->edge_ix);
    free(g->writer_off);
    free(g->writer);
    free(g->nwriter);
    free(g->reader_off);
    free(g->reader);
    free(g->nreader);
}

static int read_wfformat(hs__set *s)
{
    wf g = {.s = s};
    const json_t *v, *workflow, *spec;
    int rc;
    if ((rc = hs__json_read_buffer(s->name, s->data, s->len, &g.doc, s->err)) != HS_OK)
        return rc; /* nothing read, nothing to free */
    if (!json_is_object(g.doc.root)) {
        hs__where at = {.line = 1, .col = 1};
        rc = hs__set_fail(s, &at, "a WfFormat instance is an object, not %s",
                          hs__json_type_name(g.doc.root));
        goto out;
    }
    if (!(v = member(&g, g.doc.root, "", "schemaVersion", JSON_STRING, 0, &rc)))
        goto out;
    if (strcmp(json_string_value(v), "1.5") != 0 && strcmp(json_string_value(v), "1.6") != 0) {
        char shown[64];
        hs__where at = item(&g, "schemaVersion");
        rc = hs__set_fail(s, &at, "this reader takes WfFormat 1.5 and 1.6, not '%s' (WfFormat's "
                          "migration tool brings older instances to 1.5)",
                          hs__quote(shown, sizeof shown, json_string_value(v),
                                    json_string_length(v), 16));
        goto out;
    }
    if (!(workflow = member(&g, g.doc.root, "", "workflow", JSON_OBJECT, 0, &rc)) ||
        !(spec = member(&g, workflow, "workflow", "specification", JSON_OBJECT, 0, &rc)) ||
        !(g.tasks = member(&g, spec, SPEC, "tasks", JSON_ARRAY, 0, &rc)))
        goto out;
    g.files = member(&g, spec, SPEC, "files", JSON_ARRAY, 1, &rc);
    if (rc != HS_OK)
        goto out;
    g.ntasks = json_array_size(g.tasks);
    if (g.ntasks == 0 || g.ntasks > hs_max_tasks()) {
        hs__where at = item(&g, SPEC ".tasks");
        rc = g.ntasks ? hs__set_fail(s, &at, "more than %zu tasks (the loader's limit, which "
                                     "%s raises)", hs_max_tasks(), HS_MAX_TASKS_ENV)
                      : hs__set_fail(s, &at, "no task");
        goto out;
    }
    s->ctx = &g;
    s->where = wf_where;
    if ((rc = index_ids(&g, g.tasks, SPEC ".tasks", &g.task_ix)) != HS_OK ||
        (rc = read_files(&g)) != HS_OK || (rc = read_tasks(&g)) != HS_OK ||
        (rc = read_runtimes(&g, workflow)) != HS_OK || (rc = file_bytes(&g)) != HS_OK ||
        (rc = build(&g)) != HS_OK)
        goto out;
    rc = hs__set_finalize(s); /* while wf_where can name tasks */
out:
    s->where = NULL;
    wf_free(&g);
    return rc;
}

const hs__reader hs__reader_wfformat = {
    .name = "wfformat",
    .extensions = ".json",
    .description = "WfCommons' WfFormat JSON (1.5, 1.6): task runtimes, files as bytes",
    .read = read_wfformat,
};
