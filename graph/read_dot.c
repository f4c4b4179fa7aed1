/* hetsched — a task graph drawn in Graphviz DOT, read with cgraph
 * (graph/read.h).
 *
 *     digraph fork { a [cost=100]; b [cost=40, input_bytes=4096];
 *                    a -> b [bytes=1000000]; }
 *
 * A node is a task, an edge a dependency.  Node attributes: `cost` (the
 * set's one cost, microseconds, each device's derived as load.h says) or
 * `cost_us` (costs per device name or kind, "cpu0=568,gpu=422", as YAML's
 * cost_us), `input_bytes`, `output_bytes`, `type` and `params` ("n=1024")
 * of a real kernel, `splittable` and `items`; edge attributes `bytes`,
 * `order` (its place among its application's edges) and `buffer` (the
 * consumer's buffer it feeds, hs_edge_set_buffer).
 * Attributes the reader does not know (labels, colours) are left alone.
 *
 * A node named as a task id, `APP#I/KERNEL`, is kernel KERNEL of
 * application APP, instance I: every instance of an application must hold
 * the same kernels with the same attributes and edges (the graph of
 * hs_dot_write reads back to the same workload).  The other nodes are the
 * kernels of one application named after the file.  In a list value (cost_us,
 * params) and a node name, `\\` stands for a backslash and `\,` for a comma,
 * as hs_dot_write writes them.  Errors give syntax at FILE:LINE:COL (the
 * column of the token cgraph names) and an item by its node or edge. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/cgraph.h>

#include "graph/read.h"
#include "graph/strmap.h"
#include "workloads/kernels/kernel.h"

#define MAX_PARAMS 64

/* The node attributes that make a kernel, compared between instances. */
static const char *const kernel_attrs[] = {
    "cost", "cost_us", "input_bytes", "output_bytes", "type", "params", "splittable", "items",
};
#define NKERNEL_ATTRS (sizeof kernel_attrs / sizeof *kernel_attrs)

typedef struct dnode {
    Agnode_t *n;
    char *name;         /* unescaped */
    char *app_name;     /* APP of a task id APP#I/KERNEL, else NULL */
    int app;            /* index into dot.apps */
    int instance;
    const char *kernel; /* in name */
    int k;              /* the kernel's index in its application */
} dnode;

typedef struct dapp {
    int index;          /* in the workload */
    int instances;
    size_t *k0;         /* instance 0's nodes, in kernel order */
    size_t nk, nedges;  /* kernels and edges of one instance */
    size_t *count;      /* nodes of each instance */
    size_t *ecount;     /* edges of each instance */
} dapp;

typedef struct dot {
    hs__set *s;
    Agraph_t *g;
    dnode *node;
    size_t nnodes;
    dapp *app;
    int napps;
    hs__strmap *node_ix, *app_ix, *kernel_ix, *edge_ix;
    double *edge_bytes;   /* of instance 0's edges, by index in edge_ix */
} dot;

/* -------------------------------------------------------- cgraph's parse */

/* cgraph reports through one global function: what it said during a read. */
static char said[512];
static int nsaid;

static int collect(char *text)
{
    size_t n = strlen(said);
    if (n + 1 < sizeof said)
        snprintf(said + n, sizeof said - n, "%s", text);
    nsaid++;
    return 0;
}

typedef struct chan {
    const char *data;
    size_t len, pos;
} chan;

static int chan_read(void *c, char *buf, int size)
{
    chan *ch = c;
    size_t n = ch->len - ch->pos;
    if (size <= 0)
        return 0;
    if (n > (size_t)size)
        n = (size_t)size;
    memcpy(buf, ch->data + ch->pos, n);
    ch->pos += n;
    return (int)n;
}

static hs__where node_item(const dot *d, size_t i)
{
    hs__where w = {0};
    char shown[200];
    snprintf(w.item, sizeof w.item, "node '%s'",
             hs__quote(shown, sizeof shown, d->node[i].name, strlen(d->node[i].name), 160));
    return w;
}

/* "DOT syntax error in line N near 'TOKEN'" at LINE:COL, the column where
 * TOKEN first shows in that line (cgraph gives none). */
static int syntax_error(dot *d)
{
    hs__where at = {0};
    char first[400], near[200] = "";
    const char *p;
    const char *text = said;
    size_t len;
    /* cgraph says "Error: " or "Warning: " first */
    if (strncmp(text, "Error: ", 7) == 0)
        text += 7;
    else if (strncmp(text, "Warning: ", 9) == 0)
        text += 9;
    len = strcspn(text, "\n");
    snprintf(first, sizeof first, "%.*s", (int)(len < 399 ? len : 399), text);
    if ((p = strstr(first, "in line ")) && sscanf(p, "in line %zu", &at.line) == 1 &&
        at.line > 0) {
        const char *q = strchr(first, '\'');
        size_t line = 1, i = 0;
        at.col = 1;
        while (i < d->s->len && line < at.line)
            line += d->s->data[i++] == '\n';
        if (q && sscanf(q, "'%199[^\n]", near) == 1 && strchr(near, '\'')) {
            size_t end = i, n;
            *strrchr(near, '\'') = '\0'; /* the closing quote */
            n = strlen(near);
            while (end < d->s->len && d->s->data[end] != '\n')
                end++;
            for (size_t j = i; n > 0 && j + n <= end; j++)
                if (memcmp(d->s->data + j, near, n) == 0) {
                    at.col = j - i + 1;
                    break;
                }
        }
    }
    if (!first[0])
        snprintf(first, sizeof first, "unreadable input");
    return hs__set_fail(d->s, &at, "DOT: %s", first);
}

/* Parses the text into d->g: one directed graph, cgraph silent. */
static int parse(dot *d)
{
    Agiodisc_t io = {chan_read, NULL, NULL};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &io};
    chan c = {d->s->data, d->s->len, 0};
    agusererrf old_f = agseterrf(collect);
    agerrlevel_t old_level = agseterr(AGWARN);
    Agraph_t *more;
    int graphs = 0;
    said[0] = '\0';
    nsaid = 0;
    agreseterrors();
    agreadline(1);
    d->g = agread(&c, &disc);
    /* cgraph's lexer would keep what follows the graph for the next read
     * (of another file): read it to the end now (a syntax error does) */
    while (d->g && (more = agread(&c, &disc))) {
        agclose(more);
        graphs++;
    }
    agseterr(old_level);
    agseterrf(old_f);
    if (nsaid > 0)
        return syntax_error(d);
    if (graphs > 0)
        return hs__set_fail(d->s, NULL, "a second graph after the first (a file holds one "
                            "task graph)");
    if (!d->g) {
        hs__where at = {.line = 1, .col = 1};
        return hs__set_fail(d->s, &at, "no graph (a DOT file holds one digraph)");
    }
    if (!agisdirected(d->g)) {
        char shown[96];
        return hs__set_fail(d->s, NULL, "graph '%s' is undirected: a task graph is a digraph",
                            hs__quote(shown, sizeof shown, agnameof(d->g),
                                      strlen(agnameof(d->g)), 64));
    }
    return HS_OK;
}

/* ------------------------------------------------------------ the nodes */

/* Copies text with `\\` as a backslash and `\,` as a comma. */
static char *unescape(const char *text)
{
    size_t n = strlen(text), o = 0;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && (text[i + 1] == '\\' || text[i + 1] == ','))
            i++;
        out[o++] = text[i];
    }
    out[o] = '\0';
    return out;
}

/* Splits a task id APP#I/KERNEL (I in decimal, without leading zeros):
 * the length of APP, with *kernel and *instance set; 0 for another name. */
static size_t split_id(const char *name, const char **kernel, int *instance)
{
    const char *hash = strchr(name, '#'), *slash;
    char *end;
    long i;
    if (!hash || hash == name || !(slash = strchr(hash, '/')) || !slash[1] ||
        strpbrk(slash + 1, "#/") || hash[1] < '0' || hash[1] > '9' ||
        (hash[1] == '0' && hash + 2 != slash))
        return 0;
    i = strtol(hash + 1, &end, 10);
    if (end != slash || i < 0 || i >= INT_MAX)
        return 0;
    *kernel = slash + 1;
    *instance = (int)i;
    return (size_t)(hash - name);
}

static int nomem(dot *d)
{
    return hs_error_set(d->s->err, HS_ENOMEM, "%s: out of memory", d->s->name);
}

/* Reads the nodes: names, applications, instances. */
static int read_nodes(dot *d)
{
    size_t i = 0;
    if ((size_t)agnnodes(d->g) > hs_max_tasks())
        return hs__set_fail(d->s, NULL, "more than %zu nodes (the loader's limit, which %s "
                            "raises)", hs_max_tasks(), HS_MAX_TASKS_ENV);
    if (agnnodes(d->g) == 0)
        return hs__set_fail(d->s, NULL, "the graph has no node");
    d->nnodes = (size_t)agnnodes(d->g);
    if (!(d->node = calloc(d->nnodes, sizeof *d->node)) ||
        !(d->node_ix = hs__strmap_new(d->nnodes)) || !(d->app_ix = hs__strmap_new(16)))
        return nomem(d);
    for (Agnode_t *n = agfstnode(d->g); n; n = agnxtnode(d->g, n), i++) {
        dnode *dn = &d->node[i];
        const char *app = "";
        size_t a, len;
        dn->n = n;
        if (!(dn->name = unescape(agnameof(n))) || hs__strmap_put(d->node_ix, agnameof(n), i) < 0)
            return nomem(d);
        dn->kernel = dn->name;
        if ((len = split_id(dn->name, &dn->kernel, &dn->instance)) > 0) {
            if (!(dn->app_name = strndup(dn->name, len)))
                return nomem(d);
            app = dn->app_name;
        }
        if (!hs__strmap_get(d->app_ix, app, &a)) {
            dapp *grown = realloc(d->app, ((size_t)d->napps + 1) * sizeof *grown);
            if (!grown)
                return nomem(d);
            d->app = grown;
            d->app[d->napps] = (dapp){0};
            a = (size_t)d->napps++;
            if (hs__strmap_put(d->app_ix, app, a) < 0)
                return nomem(d);
        }
        dn->app = (int)a;
        if (dn->instance >= d->app[a].instances)
            d->app[a].instances = dn->instance + 1;
        if (dn->instance == 0)
            d->app[a].nk++;
    }
    /* instance 0's nodes per application, and each instance's count */
    for (int a = 0; a < d->napps; a++) {
        dapp *ap = &d->app[a];
        if (!(ap->k0 = malloc((ap->nk + 1) * sizeof *ap->k0)) ||
            !(ap->count = calloc((size_t)ap->instances, sizeof *ap->count)) ||
            !(ap->ecount = calloc((size_t)ap->instances, sizeof *ap->ecount)))
            return nomem(d);
    }
    for (i = 0; i < d->nnodes; i++) {
        dnode *dn = &d->node[i];
        dapp *ap = &d->app[dn->app];
        if (dn->instance == 0)
            ap->k0[ap->count[0]] = i;
        ap->count[dn->instance]++;
    }
    return HS_OK;
}

/* The value of node attribute `attr` ("" when not given). */
static const char *attr(Agnode_t *n, const char *name)
{
    const char *v = agget(n, (char *)name);
    return v ? v : "";
}

/* A number >= 0 (whole with `whole`) from an attribute's text. */
static int attr_number(dot *d, size_t i, const char *name, const char *text, int whole,
                       double *out)
{
    hs__where at = node_item(d, i);
    char shown[96];
    double x;
    if (!hs__decimal(text, &x) || x < 0 || (whole && x != floor(x)))
        return hs__set_fail(d->s, &at, "%s: expected %s, not '%s'", name,
                            whole ? "a whole number >= 0" : "a number >= 0",
                            hs__quote(shown, sizeof shown, text, strlen(text), 64));
    *out = x;
    return HS_OK;
}

/* Calls add(KEY, VALUE) for each KEY=VALUE of a list ("n=1024,m=512"). */
static int each_entry(dot *d, size_t i, const char *name, const char *text, int max,
                      int (*add)(hs_workload *, int, int, const char *, double, hs_error *),
                      int a, int k)
{
    char *copy = malloc(strlen(text) + 1), *p = copy;
    hs__where at = node_item(d, i);
    int count = 0, rc = HS_OK;
    if (!copy)
        return nomem(d);
    strcpy(copy, text);
    while (rc == HS_OK && *p) {
        char *end = p, *eq = NULL, *key, *num, shown[96];
        double x;
        /* an entry ends at a comma that no backslash escapes */
        while (*end && *end != ',') {
            if (*end == '\\' && end[1])
                end++;
            else if (*end == '=')
                eq = end;
            end++;
        }
        if (*end)
            *end++ = '\0';
        if (!eq || eq == p || ++count > max) {
            rc = hs__set_fail(d->s, &at, "%s: expected KEY=NUMBER entries separated by commas "
                              "(at most %d), not '%s'", name, max,
                              hs__quote(shown, sizeof shown, p, strlen(p), 64));
            break;
        }
        *eq = '\0';
        num = eq + 1;
        if (!hs__decimal(num, &x)) {
            rc = hs__set_fail(d->s, &at, "%s.%s: expected a number, not '%s'", name,
                              hs__quote(shown, sizeof shown, p, strlen(p), 64),
                              hs__quote(shown + 48, sizeof shown - 48, num, strlen(num), 32));
            break;
        }
        if (!(key = unescape(p))) {
            rc = nomem(d);
            break;
        }
        if ((rc = add(d->s->w, a, k, key, x, d->s->err)) < 0)
            rc = hs__set_failed(d->s, rc, &at);
        else
            rc = HS_OK;
        free(key);
        p = end;
    }
    free(copy);
    return rc;
}

/* Kernel k of application a from node i's attributes. */
static int read_kernel(dot *d, size_t i, int a, int k)
{
    Agnode_t *n = d->node[i].n;
    hs_workload *w = d->s->w;
    const char *cost = attr(n, "cost"), *cost_us = attr(n, "cost_us"), *type = attr(n, "type");
    const char *params = attr(n, "params"), *split = attr(n, "splittable");
    hs__where at = node_item(d, i);
    double x, in = 0, out = 0, items = 0;
    int rc;
    if (*cost && *cost_us)
        return hs__set_fail(d->s, &at, "both cost and cost_us: give one");
    if (!*cost && !*cost_us)
        return hs__set_fail(d->s, &at, "no cost (give cost=US, or cost_us=\"DEVICE=US,...\")");
    if (*cost && ((rc = attr_number(d, i, "cost", cost, 0, &x)) != 0 ||
                  (rc = hs__set_cost(d->s, a, k, x, &at)) != 0))
        return rc;
    if (*cost_us && (rc = each_entry(d, i, "cost_us", cost_us, w->platform.ndevices + 2,
                                     hs_kernel_set_cost, a, k)) != 0)
        return rc;
    if ((*attr(n, "input_bytes") &&
         (rc = attr_number(d, i, "input_bytes", attr(n, "input_bytes"), 1, &in)) != 0) ||
        (*attr(n, "output_bytes") &&
         (rc = attr_number(d, i, "output_bytes", attr(n, "output_bytes"), 1, &out)) != 0))
        return rc;
    if ((rc = hs_kernel_set_bytes(w, a, k, in, out, d->s->err)) < 0)
        return hs__set_failed(d->s, rc, &at);
    if (*type && (rc = hs_kernel_set_type(w, a, k, type, d->s->err)) < 0)
        return hs__set_failed(d->s, rc, &at);
    if (*params && !*type)
        return hs__set_fail(d->s, &at, "params without a type (give the kernel type they "
                            "configure, e.g. type=gemm)");
    if (*params && (rc = each_entry(d, i, "params", params, MAX_PARAMS, hs_kernel_add_param, a,
                                    k)) != 0)
        return rc;
    if (*type) {
        const hs_kernel *kn = &w->apps[a].kernels[k];
        hs_error kerr = {0};
        hs_kconf c;
        if (hs_kconf_init(&c, kn->type, kn->params, kn->nparams, &kerr) != 0)
            return hs__set_fail(d->s, &at, "%s: %s", kerr.path[0] ? kerr.path : "type",
                                kerr.msg);
    }
    if (*split && strcmp(split, "true") != 0 && strcmp(split, "false") != 0)
        return hs__set_fail(d->s, &at, "splittable: expected true or false");
    if (*attr(n, "items") && (rc = attr_number(d, i, "items", attr(n, "items"), 1, &items)) != 0)
        return rc;
    if ((*split || items > 0) &&
        (rc = hs_kernel_set_split(w, a, k, strcmp(split, "true") == 0, items, d->s->err)) < 0)
        return hs__set_failed(d->s, rc, &at);
    return HS_OK;
}

/* Node i of an instance past 0 must repeat instance 0's node of its kernel. */
static int check_repeat(dot *d, size_t i)
{
    const dnode *dn = &d->node[i];
    const dapp *ap = &d->app[dn->app];
    hs__where at = node_item(d, i);
    char key[2 * HS_NAME_MAX + 32], shown[96];
    size_t k, first;
    snprintf(key, sizeof key, "%d\x1f%s", dn->app, dn->kernel);
    if (!hs__strmap_get(d->kernel_ix, key, &k))
        return hs__set_fail(d->s, &at, "instance 0 of '%s' has no kernel '%s' (every instance "
                            "of an application holds the same kernels)", dn->app_name,
                            hs__quote(shown, sizeof shown, dn->kernel, strlen(dn->kernel), 64));
    first = ap->k0[k];
    for (size_t j = 0; j < NKERNEL_ATTRS; j++)
        if (strcmp(attr(dn->n, kernel_attrs[j]), attr(d->node[first].n, kernel_attrs[j])) != 0)
            return hs__set_fail(d->s, &at, "%s differs from instance 0's (every instance of an "
                                "application holds the same kernels)", kernel_attrs[j]);
    d->node[i].k = (int)k;
    return HS_OK;
}

static int read_kernels(dot *d)
{
    int rc;
    if (!(d->kernel_ix = hs__strmap_new(d->nnodes)))
        return nomem(d);
    for (int a = 0; a < d->napps; a++) {
        dapp *ap = &d->app[a];
        const dnode *first;
        if (ap->nk == 0) { /* instances past 0 only: name the first node */
            size_t i = 0;
            while (d->node[i].app != a)
                i++;
            hs__where at = node_item(d, i);
            return hs__set_fail(d->s, &at, "no instance 0 of '%s' (instances count from 0)",
                                d->node[i].app_name);
        }
        first = &d->node[ap->k0[0]];
        if ((ap->index = hs__set_app(d->s, first->app_name ? first->app_name : "",
                                     ap->instances)) < 0)
            return ap->index;
        for (size_t k = 0; k < ap->nk; k++) {
            size_t i = ap->k0[k];
            char key[2 * HS_NAME_MAX + 32];
            hs__where at = node_item(d, i);
            if ((rc = hs_app_add_kernel(d->s->w, ap->index, d->node[i].kernel, d->s->err)) < 0)
                return hs__set_failed(d->s, rc, &at);
            d->node[i].k = (int)k;
            snprintf(key, sizeof key, "%d\x1f%s", a, d->node[i].kernel);
            if (hs__strmap_put(d->kernel_ix, key, k) < 0)
                return nomem(d);
            if ((rc = read_kernel(d, i, ap->index, (int)k)) != HS_OK)
                return rc;
        }
        for (int inst = 1; inst < ap->instances; inst++)
            if (ap->count[inst] != ap->nk)
                return hs__set_fail(d->s, NULL, "instance %d of '%s' has %zu nodes, instance 0 "
                                    "has %zu (every instance of an application holds the same "
                                    "kernels)", inst, first->app_name, ap->count[inst], ap->nk);
    }
    for (size_t i = 0; i < d->nnodes; i++)
        if (d->node[i].instance > 0 && (rc = check_repeat(d, i)) != HS_OK)
            return rc;
    return HS_OK;
}

/* ------------------------------------------------------------ the edges */

static hs__where edge_item(const dot *d, size_t t, size_t h)
{
    hs__where w = {0};
    char a[200], b[200];
    snprintf(w.item, sizeof w.item, "edge '%s' -> '%s'",
             hs__quote(a, sizeof a, d->node[t].name, strlen(d->node[t].name), 140),
             hs__quote(b, sizeof b, d->node[h].name, strlen(d->node[h].name), 140));
    return w;
}

/* The index of a node of the graph. */
static size_t node_index(const dot *d, Agnode_t *n)
{
    size_t i = 0;
    hs__strmap_get(d->node_ix, agnameof(n), &i);
    return i;
}

/* An edge of instance 0, with what orders it. */
typedef struct dedge {
    size_t tail, head, seq;
    double bytes, order; /* order: HUGE_VAL when not given */
    const char *buffer;  /* the `buffer` attribute (cgraph's string), or "" */
} dedge;

static int by_order(const void *a, const void *b)
{
    const dedge *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Edge ed's bytes and order ("order" HUGE_VAL when not given). */
static int edge_numbers(dot *d, Agedge_t *ed, const hs__where *at, double *bytes, double *order)
{
    static const char *const names[] = {"bytes", "order"};
    double *out[] = {bytes, order};
    *bytes = 0;
    *order = HUGE_VAL;
    for (int k = 0; k < 2; k++) {
        const char *text = agget(ed, (char *)names[k]);
        char shown[96];
        double x;
        if (!text || !*text)
            continue;
        if (!hs__decimal(text, &x) || x < 0 || x != floor(x))
            return hs__set_fail(d->s, at, "%s: expected a whole number >= 0, not '%s'",
                                names[k], hs__quote(shown, sizeof shown, text, strlen(text),
                                                    64));
        *out[k] = x;
    }
    return HS_OK;
}

/* Instance 0's edges go to the builder in their `order`, then file order;
 * each edge of a later instance must repeat one of them. */
static int read_edges(dot *d)
{
    size_t ne = (size_t)agnedges(d->g), n0 = 0, seq = 0;
    dedge *e0;
    int rc = HS_OK;
    if (ne > hs_max_edges())
        return hs__set_fail(d->s, NULL, "more than %zu edges (the loader's limit, which %s "
                            "raises)", hs_max_edges(), HS_MAX_TASKS_ENV);
    if (!(d->edge_ix = hs__strmap_new(ne + 1)) ||
        !(d->edge_bytes = malloc((ne + 1) * sizeof *d->edge_bytes)))
        return nomem(d);
    if (!(e0 = malloc((ne + 1) * sizeof *e0)))
        return nomem(d);
    for (int pass = 0; pass < 2 && rc == HS_OK; pass++) {
        for (Agnode_t *n = agfstnode(d->g); n && rc == HS_OK; n = agnxtnode(d->g, n))
            for (Agedge_t *ed = agfstout(d->g, n); ed && rc == HS_OK; ed = agnxtout(d->g, ed)) {
                size_t t = node_index(d, agtail(ed)), h = node_index(d, aghead(ed)), old;
                const dnode *tn = &d->node[t], *hn = &d->node[h];
                hs__where at = edge_item(d, t, h);
                char key[64];
                double bytes, order;
                if ((tn->instance == 0) != (pass == 0))
                    continue;
                if (tn->app != hn->app || tn->instance != hn->instance) {
                    rc = hs__set_fail(d->s, &at, "joins two applications or instances (an edge "
                                      "stays within one instance of one application)");
                    break;
                }
                if ((rc = edge_numbers(d, ed, &at, &bytes, &order)) != HS_OK)
                    break;
                d->app[tn->app].ecount[tn->instance]++;
                if (pass == 0) {
                    const char *buffer = agget(ed, "buffer");
                    e0[n0++] = (dedge){t, h, seq++, bytes, order, buffer ? buffer : ""};
                    continue;
                }
                snprintf(key, sizeof key, "%d>%d>%d>%d", tn->app, tn->k, hn->k, tn->instance);
                if (hs__strmap_get(d->edge_ix, key, &old)) {
                    rc = hs__set_fail(d->s, &at, "a second edge between these nodes");
                    break;
                }
                if (hs__strmap_put(d->edge_ix, key, 0) < 0) {
                    rc = nomem(d);
                    break;
                }
                snprintf(key, sizeof key, "%d>%d>%d>0", tn->app, tn->k, hn->k);
                if (!hs__strmap_get(d->edge_ix, key, &old) || d->edge_bytes[old] != bytes)
                    rc = hs__set_fail(d->s, &at, "instance 0 has %s (every instance of an "
                                      "application holds the same edges)",
                                      hs__strmap_get(d->edge_ix, key, &old)
                                          ? "this edge with other bytes" : "no such edge");
            }
        if (pass == 0 && rc == HS_OK) {
            qsort(e0, n0, sizeof *e0, by_order);
            for (size_t i = 0; i < n0 && rc == HS_OK; i++) {
                const dnode *tn = &d->node[e0[i].tail], *hn = &d->node[e0[i].head];
                hs__where at = edge_item(d, e0[i].tail, e0[i].head);
                char key[64];
                size_t old;
                snprintf(key, sizeof key, "%d>%d>%d>0", tn->app, tn->k, hn->k);
                if (hs__strmap_get(d->edge_ix, key, &old)) {
                    rc = hs__set_fail(d->s, &at, "a second edge between these nodes");
                } else if ((rc = hs_app_add_edge(d->s->w, d->app[tn->app].index, tn->kernel,
                                                 hn->kernel, e0[i].bytes, d->s->err)) < 0 ||
                           (e0[i].buffer[0] &&
                            (rc = hs_edge_set_buffer(d->s->w, d->app[tn->app].index, rc,
                                                     e0[i].buffer, d->s->err)) != HS_OK)) {
                    rc = hs__set_failed(d->s, rc, &at);
                } else {
                    rc = HS_OK;
                    d->edge_bytes[i] = e0[i].bytes;
                    if (hs__strmap_put(d->edge_ix, key, i) < 0)
                        rc = nomem(d);
                }
            }
        }
    }
    free(e0);
    for (int a = 0; rc == HS_OK && a < d->napps; a++)
        for (int inst = 1; rc == HS_OK && inst < d->app[a].instances; inst++)
            if (d->app[a].ecount[inst] != d->app[a].ecount[0])
                rc = hs__set_fail(d->s, NULL, "instance %d of '%s' has %zu edges, instance 0 "
                                  "has %zu (every instance of an application holds the same "
                                  "edges)", inst, d->node[d->app[a].k0[0]].app_name,
                                  d->app[a].ecount[inst], d->app[a].ecount[0]);
    return rc;
}

static void dot_where(const hs__set *s, int app, int is_edge, int index, hs__where *out)
{
    const dot *d = s->ctx;
    const dapp *ap = NULL;
    *out = (hs__where){0};
    for (int a = 0; a < d->napps; a++)
        if (d->app[a].index == app)
            ap = &d->app[a];
    if (!ap || index < 0)
        return;
    if (!is_edge && (size_t)index < ap->nk) {
        *out = node_item(d, ap->k0[index]);
    } else if (is_edge && index < s->w->apps[app].nedges) {
        const hs_kernel_edge *e = &s->w->apps[app].edges[index];
        *out = edge_item(d, ap->k0[e->from], ap->k0[e->to]);
    }
}

static int read_dot(hs__set *s)
{
    dot d = {.s = s};
    int rc;
    if ((rc = parse(&d)) == HS_OK) {
        s->ctx = &d;
        s->where = dot_where;
        if ((rc = read_nodes(&d)) == HS_OK && (rc = read_kernels(&d)) == HS_OK &&
            (rc = read_edges(&d)) == HS_OK)
            rc = hs__set_finalize(s); /* while dot_where can name nodes */
        s->where = NULL;
    }
    for (size_t i = 0; i < d.nnodes; i++) {
        free(d.node[i].name);
        free(d.node[i].app_name);
    }
    free(d.node);
    for (int a = 0; a < d.napps; a++) {
        free(d.app[a].k0);
        free(d.app[a].count);
        free(d.app[a].ecount);
    }
    free(d.app);
    hs__strmap_free(d.node_ix);
    hs__strmap_free(d.app_ix);
    hs__strmap_free(d.kernel_ix);
    hs__strmap_free(d.edge_ix);
    free(d.edge_bytes);
    if (d.g)
        agclose(d.g);
    return rc;
}

const hs__reader hs__reader_dot = {
    .name = "dot",
    .extensions = ".dot .gv",
    .description = "a task graph in Graphviz DOT with cost and bytes attributes",
    .read = read_dot,
};
