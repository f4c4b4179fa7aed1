/* hetsched — kernel graphs and schedules as DOT, built and written with
 * Graphviz cgraph (include/hetsched/export.h).
 *
 * Layout of the output: one cluster `cluster_APP#I` per application
 * instance, one box per task named by its task id, one edge per task-graph
 * edge labelled with its bytes in human units (exact bytes in the `bytes`
 * attribute and the tooltip; the buffer an edge is bound to, as the workload
 * writes it, in the `buffer` attribute), a kernel's inputs and outputs as
 * the last line of its label.  What the DOT reader (graph/read_dot.c) needs
 * to give back the same workload goes in attributes, numbers exact: a
 * node's cost per device (`cost_us="cpu0=568,gpu0=422"`), input_bytes,
 * output_bytes, type, params, splittable and items; an edge's place in its
 * application's list of edges (`order`: cgraph writes edges grouped by their
 * tail, and the order of edges decides ties in some policies).  With a
 * schedule, nodes are filled with their device's colour (hs__palette_hex by
 * device index) and labelled `kernel\ndevice start-end us`, and a `legend`
 * node lists the devices.  A task placed as several parts (a split task)
 * stays one node: its label lists the parts one per line and its fill is
 * striped by device in proportion to the parts' fractions. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/cgraph.h>

#include "hetsched/export.h"
#include "graph/export_util.h"
#include "graph/schedule_int.h"
#include "graph/strmap.h"
#include "graph/utf8.h"

/* ----------------------------------------------------------- text helpers */

/* A growable string; `failed` sticks once an allocation fails. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (!b->p || b->len + (size_t)n + 1 > b->cap) {
        size_t cap = 2 * (b->len + (size_t)n + 1) + 64;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

/* Appends a name to a DOT escString or ID: a backslash in a name must not
 * start an escape such as \n or \N, nor escape the closing quote that
 * cgraph's quoting of an ID adds (a name ending in one), so it is doubled.
 * Names are UTF-8 (the builder checks); a byte of a path or algorithm that
 * is not becomes '?'. */
static void sb_name(sbuf *b, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0, len; i < n; i += len ? len : 1) {
        unsigned cp;
        if ((len = hs__utf8_char(name + i, n - i, &cp)) == 0)
            sb_printf(b, "?");
        else
            sb_printf(b, "%s%.*s", cp == '\\' ? "\\" : "", (int)len, name + i);
    }
}

/* The text built so far ("" when empty). */
static char *sb_text(sbuf *b)
{
    return b->p ? b->p : "";
}

/* Empties b for reuse, keeping its memory. */
static void sb_reset(sbuf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

/* Microseconds with at most one decimal, without a trailing ".0". */
static void fmt_us(double us, char *buf, size_t size)
{
    size_t n;
    snprintf(buf, size, "%.1f", us);
    n = strlen(buf);
    if (n > 2 && strcmp(buf + n - 2, ".0") == 0)
        buf[n - 2] = '\0';
}

/* ---------------------------------------------- ids in creation order */

/* cgraph writes subgraphs in the order of their object ids, and its default
 * id discipline uses the addresses of interned names as the ids of named
 * objects: the clusters would come out in an order that changes from run to
 * run.  This discipline numbers objects in creation order instead, so that
 * the same workload always gives the same DOT text: a named object gets the
 * even id 2 (i + 1) where i counts names (kept here, found through an
 * hs__strmap), an anonymous one (an edge) the next odd id, as cgraph expects
 * of anonymous ids. */
typedef struct seq_disc {
    Agdisc_t disc;     /* first: cgraph hands &disc back to seq_open */
    Agiddisc_t id;
    IDTYPE next_anon;  /* odd */
    size_t nnames, cap;
    char **names;      /* names[i] has id 2 (i + 1) */
    hs__strmap *ids;   /* name -> i */
} seq_disc;

static void *seq_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)g;
    return disc;
}

/* Finds (or with createflag, makes) the id of a name; returns 1 when *id is
 * set.  A failed allocation returns 0, and cgraph then falls back on its
 * internal name map. */
static long seq_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    seq_disc *sd = state;
    size_t i;
    (void)objtype;
    if (!str) {
        *id = sd->next_anon;
        sd->next_anon += 2;
        return 1;
    }
    if (!hs__strmap_get(sd->ids, str, &i)) {
        if (!createflag)
            return 0;
        if (sd->nnames == sd->cap) {
            size_t cap = sd->cap ? 2 * sd->cap : 64;
            char **names = realloc(sd->names, cap * sizeof *names);
            if (!names)
                return 0;
            sd->names = names;
            sd->cap = cap;
        }
        i = sd->nnames;
        /* An interned string: cgraph reads a flag in front of every name it
         * prints (is it an HTML label?), which a plain strdup lacks. */
        if (!(sd->names[i] = agstrdup(NULL, str)))
            return 0;
        if (hs__strmap_put(sd->ids, str, i) != 0) {
            agstrfree(NULL, sd->names[i]);
            return 0;
        }
        sd->nnames++;
    }
    *id = 2 * ((IDTYPE)i + 1);
    return 1;
}

static long seq_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state;
    (void)objtype;
    (void)request;
    return 0; /* ids are never chosen by the caller */
}

static void seq_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id; /* names live until seq_disc_fini */
}

static char *seq_print(void *state, int objtype, IDTYPE id)
{
    seq_disc *sd = state;
    (void)objtype;
    return id % 2 == 0 && id / 2 - 1 < sd->nnames ? sd->names[id / 2 - 1] : NULL;
}

static void seq_close(void *state)
{
    (void)state; /* seq_disc_fini frees, after agclose */
}

static void seq_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

/* Returns 0, or -1 when out of memory. */
static int seq_disc_init(seq_disc *sd)
{
    *sd = (seq_disc){.next_anon = 1};
    sd->id = (Agiddisc_t){seq_open, seq_map, seq_alloc, seq_free, seq_print, seq_close,
                          seq_register};
    sd->disc = (Agdisc_t){&AgMemDisc, &sd->id, &AgIoDisc};
    return (sd->ids = hs__strmap_new(64)) ? 0 : -1;
}

static void seq_disc_fini(seq_disc *sd)
{
    for (size_t i = 0; i < sd->nnames; i++)
        agstrfree(NULL, sd->names[i]);
    free(sd->names);
    hs__strmap_free(sd->ids);
}

/* ------------------------------------------------------------ the graph */

/* The node attributes of a kernel (graph/read_dot.c reads the same). */
static const char *const kernel_attrs[] = {
    "cost_us", "input_bytes", "output_bytes", "type", "params", "splittable", "items",
};

/* Declares every attribute the writer sets, with the default it leaves. */
static void declare_attributes(Agraph_t *g, int scheduled)
{
    agattr(g, AGRAPH, "fontname", "Helvetica");
    agattr(g, AGRAPH, "label", "");
    agattr(g, AGRAPH, "labelloc", "t");
    agattr(g, AGRAPH, "style", "");
    agattr(g, AGRAPH, "color", "");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "fontname", "Helvetica");
    agattr(g, AGNODE, "style", scheduled ? "filled" : "rounded");
    agattr(g, AGNODE, "fillcolor", "white");
    agattr(g, AGNODE, "label", "\\N");
    agattr(g, AGNODE, "tooltip", "");
    agattr(g, AGEDGE, "fontname", "Helvetica");
    agattr(g, AGEDGE, "fontsize", "10");
    agattr(g, AGEDGE, "label", "");
    agattr(g, AGEDGE, "tooltip", "");
    agattr(g, AGEDGE, "style", "");
    agattr(g, AGEDGE, "bytes", "0");
    agattr(g, AGEDGE, "order", "");
    agattr(g, AGEDGE, "buffer", "");
    for (size_t i = 0; i < sizeof kernel_attrs / sizeof *kernel_attrs; i++)
        agattr(g, AGNODE, (char *)kernel_attrs[i], "");
}

/* Appends a name to a list value (cost_us, params): a backslash or a comma
 * in it is escaped with a backslash, as the reader expects. */
static void sb_list_name(sbuf *b, const char *name)
{
    for (const char *c = name; *c; c++)
        sb_printf(b, "%s%c", *c == '\\' || *c == ',' ? "\\" : "", *c);
}

/* Sets node attribute `name` to the exact form of x. */
static void set_number(Agnode_t *n, const char *name, double x)
{
    char buf[40];
    hs__exact_number(x, buf, sizeof buf);
    agset(n, (char *)name, buf);
}

/* The attributes the reader builds task t's kernel from: its cost on each
 * device (resolved, by device name), bytes, type, params, split. */
static void kernel_attributes(const hs_workload *w, size_t t, Agnode_t *n, sbuf *b)
{
    const hs_task *task = &w->graph.tasks[t];
    const hs_kernel *k = &w->apps[task->app].kernels[task->kernel];
    char num[40];
    sb_reset(b);
    for (int d = 0; d < w->platform.ndevices; d++) {
        hs__exact_number(k->cost_us[d], num, sizeof num); /* the platform adds overheads */
        sb_printf(b, "%s", d ? "," : "");
        sb_list_name(b, w->platform.devices[d].name);
        sb_printf(b, "=%s", num);
    }
    agset(n, "cost_us", sb_text(b));
    if (task->input_bytes > 0)
        set_number(n, "input_bytes", task->input_bytes);
    if (task->output_bytes > 0)
        set_number(n, "output_bytes", task->output_bytes);
    if (k->type) {
        agset(n, "type", k->type);
        sb_reset(b);
        for (int i = 0; i < k->nparams; i++) {
            hs__exact_number(k->params[i].value, num, sizeof num);
            sb_printf(b, "%s", i ? "," : "");
            sb_list_name(b, k->params[i].name);
            sb_printf(b, "=%s", num);
        }
        agset(n, "params", sb_text(b));
    }
    if (k->splittable)
        agset(n, "splittable", "true");
    if (k->items > 0)
        set_number(n, "items", k->items);
}

/* Appends to a node's label one line per placement of task t ("[k/n] "
 * for a part, device, start-end), or "(not placed)"; sums into share[d] the
 * fractions of t that device d runs. */
static void placement_lines(const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                            size_t t, sbuf *b, double *share)
{
    char t0[32], t1[32];
    size_t i;
    for (int d = 0; d < w->platform.ndevices; d++)
        share[d] = 0;
    if (ix->off[t] == ix->off[t + 1])
        sb_printf(b, "\\n(not placed)");
    HS__PLINDEX_FOREACH(ix, t, i) {
        const hs_placement *p = &s->placements[i];
        fmt_us(p->start_us, t0, sizeof t0);
        fmt_us(p->end_us, t1, sizeof t1);
        sb_printf(b, "\\n");
        if (p->nparts > 1)
            sb_printf(b, "[%d/%d] ", p->part, p->nparts);
        sb_name(b, w->platform.devices[p->device].name);
        sb_printf(b, " %s-%s us", t0, t1);
        share[p->device] += p->fraction;
    }
}

/* Fills node n of task t with its device's colour; a task split over
 * several devices gets stripes, a task not placed a dashed white box.
 * share[] comes from placement_lines and is used up. */
static void fill_node(const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                      size_t t, Agnode_t *n, sbuf *b, double *share)
{
    double total = 0;
    int ndev = 0, last = -1;
    size_t i;
    for (int d = 0; d < w->platform.ndevices; d++)
        if (share[d] > 0) {
            total += share[d];
            ndev++;
            last = d;
        }
    if (ndev == 0) {
        agset(n, "style", "filled,dashed");
        return;
    }
    if (ndev == 1) {
        agset(n, "fillcolor", (char *)hs__palette_hex(last));
        return;
    }
    /* Stripes in the order the label lists the devices, normalised by the
     * total in case the fractions do not sum to 1; the last stripe takes
     * what rounding leaves.  A device's share is zeroed once drawn. */
    sb_reset(b);
    HS__PLINDEX_FOREACH(ix, t, i) {
        int d = s->placements[i].device;
        if (share[d] <= 0)
            continue;
        if (--ndev > 0)
            sb_printf(b, "%s;%.3f:", hs__palette_hex(d), floor(share[d] / total * 1000) / 1000);
        else
            sb_printf(b, "%s", hs__palette_hex(d));
        share[d] = 0;
    }
    agset(n, "style", "striped");
    agset(n, "fillcolor", sb_text(b));
}

/* Appends a line "in 400 kB, out 200 kB" for the data a task reads from and
 * writes back to host memory, if any.  (As a line of the label rather than
 * an xlabel, which dot may draw across cluster borders.) */
static void io_line(const hs_task *task, sbuf *b)
{
    char h[32];
    if (task->input_bytes > 0) {
        hs__human_bytes(task->input_bytes, h, sizeof h);
        sb_printf(b, "\\nin %s", h);
    }
    if (task->output_bytes > 0) {
        hs__human_bytes(task->output_bytes, h, sizeof h);
        sb_printf(b, "%sout %s", task->input_bytes > 0 ? ", " : "\\n", h);
    }
}

/* Appends a name to HTML-like label text, escaping what HTML reserves. */
static void sb_html(sbuf *b, const char *name)
{
    for (const char *c = name; *c; c++) {
        if (*c == '&')
            sb_printf(b, "&amp;");
        else if (*c == '<')
            sb_printf(b, "&lt;");
        else if (*c == '>')
            sb_printf(b, "&gt;");
        else
            sb_printf(b, "%c", *c);
    }
}

/* The legend: one node `legend` whose HTML-like label is a table with a row
 * per device, its colour beside its name, in platform order. */
static int add_legend(Agraph_t *g, const hs_platform *pl, sbuf *b)
{
    Agnode_t *n = agnode(g, "legend", 1);
    char *html;
    if (!n)
        return -1;
    sb_reset(b);
    sb_printf(b, "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">"
              "<tr><td colspan=\"2\"><b>devices</b></td></tr>");
    for (int d = 0; d < pl->ndevices; d++) {
        sb_printf(b, "<tr><td bgcolor=\"%s\" width=\"24\"></td><td align=\"left\">",
                  hs__palette_hex(d));
        sb_html(b, pl->devices[d].name);
        sb_printf(b, " (%s)</td></tr>", hs_device_kind_name(pl->devices[d].kind));
    }
    sb_printf(b, "</table>");
    if (b->failed || !(html = agstrdup_html(g, sb_text(b))))
        return -1;
    agset(n, "shape", "plaintext");
    agset(n, "style", "");
    agset(n, "label", html);
    agstrfree(g, html);
    return 0;
}

/* Fills g from w (and s, whose placements ix indexes by task); returns 0 or
 * -1 when out of memory. */
static int build(Agraph_t *g, const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                 double *share, Agnode_t **nodes, sbuf *b)
{
    const hs_graph *gr = &w->graph;
    char id[HS_TASK_ID_MAX], h[32];
    if (s) {
        char ms[32];
        fmt_us(s->makespan_us, ms, sizeof ms);
        if (w->path) {
            sb_name(b, w->path);
            sb_printf(b, "\\n");
        }
        sb_name(b, s->algorithm ? s->algorithm : "schedule");
        sb_printf(b, ", makespan %s us", ms);
        agset(g, "label", sb_text(b));
        if (add_legend(g, &w->platform, b) != 0)
            return -1;
        sb_reset(b);
    } else if (w->path) {
        sb_name(b, w->path);
        agset(g, "label", sb_text(b));
    }
    for (size_t t = 0; t < gr->ntasks; t++) {
        const hs_task *task = &gr->tasks[t];
        const hs_app *app = &w->apps[task->app];
        const hs_kernel *k = &app->kernels[task->kernel];
        Agraph_t *sub;
        /* IDs are written as escStrings too, so that they read back */
        sb_reset(b);
        sb_printf(b, "cluster_");
        sb_name(b, app->name);
        sb_printf(b, "#%d", task->instance);
        if (b->failed || !(sub = agsubg(g, sb_text(b), 1)))
            return -1;
        agset(sub, "label", sb_text(b) + strlen("cluster_"));
        hs_task_id(w, task, id, sizeof id);
        sb_reset(b);
        sb_name(b, id);
        if (b->failed || !(nodes[t] = agnode(sub, sb_text(b), 1)))
            return -1;
        agset(nodes[t], "tooltip", sb_text(b));
        /* Label: kernel, one line per placement, inputs and outputs. */
        sb_reset(b);
        sb_name(b, k->name);
        if (s)
            placement_lines(w, s, ix, t, b, share);
        io_line(task, b);
        agset(nodes[t], "label", sb_text(b));
        kernel_attributes(w, t, nodes[t], b);
        if (s)
            fill_node(w, s, ix, t, nodes[t], b, share);
    }
    for (size_t e = 0, order = 0; e < gr->nedges; e++, order++) {
        const hs_edge *edge = &gr->edges[e];
        const hs_kernel_edge *origin = hs_edge_origin(w, gr, edge);
        Agedge_t *a = agedge(g, nodes[edge->from], nodes[edge->to], NULL, 1);
        const hs_task *tail = &gr->tasks[edge->from];
        if (!a)
            return -1;
        /* the graph holds each instance's edges in its application's order */
        if (e > 0 && (tail->app != gr->tasks[gr->edges[e - 1].from].app ||
                      tail->instance != gr->tasks[gr->edges[e - 1].from].instance))
            order = 0;
        hs__exact_number((double)order, h, sizeof h);
        agset(a, "order", h);
        hs__exact_number(edge->bytes, h, sizeof h);
        agset(a, "bytes", h);
        sb_reset(b);
        hs_task_id(w, &gr->tasks[edge->from], id, sizeof id);
        sb_name(b, id);
        sb_printf(b, " -> ");
        hs_task_id(w, &gr->tasks[edge->to], id, sizeof id);
        sb_name(b, id);
        if (origin && origin->buffer)
            agset(a, "buffer", origin->buffer);
        if (edge->bytes > 0) {
            sb_printf(b, ": %.0f bytes", edge->bytes);
            if (origin && origin->buffer && strcmp(origin->buffer, HS_BUFFER_NONE) == 0)
                sb_printf(b, ", order only");
            else if (origin && origin->buffer)
                sb_printf(b, " into buffer %s", origin->buffer);
            agset(a, "tooltip", sb_text(b));
            hs__human_bytes(edge->bytes, h, sizeof h);
            agset(a, "label", h);
        } else {
            sb_printf(b, ": no data, order only");
            agset(a, "tooltip", sb_text(b));
            agset(a, "style", "dashed");
        }
    }
    return b->failed ? -1 : 0;
}

int hs_dot_write(const hs_workload *w, const hs_schedule *s, FILE *out, hs_error *err)
{
    hs__plindex ix = {0};
    double *share = NULL;
    Agnode_t **nodes = NULL;
    Agraph_t *g = NULL;
    seq_disc disc;
    sbuf b = {0};
    int rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    if (s && (rc = hs__schedule_check_refs(w, s, err)) != 0)
        return rc;
    if (s && (rc = hs__plindex_build(s, w->graph.ntasks, &ix, err)) != 0)
        return rc;
    share = malloc(((size_t)w->platform.ndevices + 1) * sizeof *share);
    nodes = calloc(w->graph.ntasks + 1, sizeof *nodes);
    if (seq_disc_init(&disc) == 0)
        g = agopen("workload", Agdirected, &disc.disc);
    if (!share || !nodes || !g) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the DOT graph");
        goto out;
    }
    declare_attributes(g, s != NULL);
    if (build(g, w, s, &ix, share, nodes, &b) != 0) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the DOT graph");
        goto out;
    }
    errno = 0;
    if (agwrite(g, out) != 0 || fflush(out) != 0 || ferror(out)) {
        rc = hs_error_set(err, HS_EIO, "cannot write DOT: %s",
                          errno ? strerror(errno) : "write error");
        goto out;
    }
    rc = HS_OK;
out:
    if (g)
        agclose(g);
    seq_disc_fini(&disc);
    hs__plindex_free(&ix);
    free(share);
    free(nodes);
    free(b.p);
    return rc;
}
