/* hetsched — writing a workload as YAML (DESIGN.md §3) with libyaml's
 * emitter, or as the same document in JSON (hs_workload_write_yaml and
 * hs_workload_write_json in include/hetsched/graph.h).
 *
 * Block style for the outline, flow style for each device, link, kernel and
 * edge, so a generated file reads like a hand-written one:
 *   - {name: add, type: vadd, params: {n: 10000}, cost_us: {cpu: 568, gpu: 422}}
 * and in JSON, one device, link, kernel or edge a line in the same way:
 *   {"name": "add", "type": "vadd", "params": {"n": 10000}, "cost_us": {"cpu": 568}}
 * One walk over the workload writes both: its helpers (str, num, map_start,
 * ...) go to libyaml's emitter, or print JSON themselves.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "hetsched/graph.h"
#include "graph/export_util.h"

#define MAX_NEST 8 /* the schema nests 6 deep */

typedef struct writer {
    yaml_emitter_t em;
    yaml_event_t ev;
    int failed;
    FILE *json;   /* JSON to this file instead of YAML to the emitter */
    int depth;    /* open JSON mappings and lists */
    struct {
        int flow;     /* on one line */
        unsigned n;   /* values written (a mapping's keys count) */
        char close;   /* '}' or ']' */
    } open[MAX_NEST];
} writer;

/* ------------------------------------------------------------------ JSON */

/* Before a value in JSON: the separator and the line break its place
 * needs, or ": " after a mapping's key. */
static void json_before(writer *W)
{
    if (W->depth == 0)
        return;
    if (W->open[W->depth - 1].close == '}' && W->open[W->depth - 1].n % 2 == 1) {
        fputs(": ", W->json);
    } else {
        if (W->open[W->depth - 1].n > 0)
            putc(',', W->json);
        if (W->open[W->depth - 1].flow) {
            if (W->open[W->depth - 1].n > 0)
                putc(' ', W->json);
        } else {
            fprintf(W->json, "\n%*s", 2 * W->depth, "");
        }
    }
    W->open[W->depth - 1].n++;
}

static void json_open(writer *W, char open, int flow)
{
    json_before(W);
    if (W->depth == MAX_NEST) { /* cannot happen: the walk below nests 6 deep */
        W->failed = 1;
        return;
    }
    putc(open, W->json);
    W->open[W->depth].flow = flow || (W->depth > 0 && W->open[W->depth - 1].flow);
    W->open[W->depth].n = 0;
    W->open[W->depth].close = open == '{' ? '}' : ']';
    W->depth++;
}

static void json_close(writer *W)
{
    W->depth--;
    if (!W->open[W->depth].flow && W->open[W->depth].n > 0)
        fprintf(W->json, "\n%*s", 2 * W->depth, "");
    putc(W->open[W->depth].close, W->json);
}

/* A string, escaped as JSON wants: quotes, backslashes, control characters. */
static void json_str(writer *W, const char *s)
{
    const char *run = s;
    json_before(W);
    putc('"', W->json);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        fwrite(run, 1, (size_t)(s - run), W->json);
        if (c == '"' || c == '\\')
            fprintf(W->json, "\\%c", c);
        else
            fprintf(W->json, "\\u%04x", c);
        run = s + 1;
    }
    fwrite(run, 1, (size_t)(s - run), W->json);
    putc('"', W->json);
}

/* ------------------------------------------------------------------ YAML */

/* Each emit helper is a no-op once something failed, so callers can chain
 * them and check once at the end. */
static void emit(writer *W, int made)
{
    if (W->failed)
        return;
    if (!made || !yaml_emitter_emit(&W->em, &W->ev))
        W->failed = 1;
}

/* A scalar that a YAML 1.1 reader could take for a number, a boolean or
 * null; names like that are quoted so they stay strings. */
static int looks_typed(const char *s)
{
    static const char *const words[] = {"null", "~", "true", "false", "yes", "no", "on", "off",
                                        ".inf", "-.inf", "+.inf", ".nan"};
    char *end;
    if (!*s)
        return 1;
    if (strnlen(s, 6) <= 5) /* the longest word */
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            /* the first letter first: every key and name is a scalar */
            if (tolower((unsigned char)*s) == words[i][0] && strcasecmp(s, words[i]) == 0)
                return 1;
    /* strtod reads nothing from a string that does not start with one of
     * these (space, a sign, a digit, a point, inf or nan): a name like
     * t12345 costs no strtod */
    if (!strchr("0123456789+-.iInN \t\n\v\f\r", *s))
        return 0;
    strtod(s, &end);
    return *end == '\0';
}

static void str(writer *W, const char *s)
{
    if (W->failed)
        return;
    if (W->json) {
        json_str(W, s);
        return;
    }
    emit(W, yaml_scalar_event_initialize(&W->ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s),
                                         1, 1,
                                         looks_typed(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                                        : YAML_ANY_SCALAR_STYLE));
}

/* A number in the shortest form that reads back to exactly x. */
static void num(writer *W, double x)
{
    char buf[40];
    hs__exact_number(x, buf, sizeof buf);
    if (W->failed)
        return;
    if (W->json) {
        json_before(W);
        fputs(buf, W->json);
        return;
    }
    emit(W, yaml_scalar_event_initialize(&W->ev, NULL, NULL, (yaml_char_t *)buf,
                                         (int)strlen(buf), 1, 1, YAML_PLAIN_SCALAR_STYLE));
}

static void map_start(writer *W, int flow)
{
    if (!W->failed && W->json)
        json_open(W, '{', flow);
    else if (!W->failed)
        emit(W, yaml_mapping_start_event_initialize(&W->ev, NULL, NULL, 1,
                                                    flow ? YAML_FLOW_MAPPING_STYLE
                                                         : YAML_BLOCK_MAPPING_STYLE));
}

static void map_end(writer *W)
{
    if (!W->failed && W->json)
        json_close(W);
    else if (!W->failed)
        emit(W, yaml_mapping_end_event_initialize(&W->ev));
}

static void seq_start(writer *W)
{
    if (!W->failed && W->json)
        json_open(W, '[', 0);
    else if (!W->failed)
        emit(W, yaml_sequence_start_event_initialize(&W->ev, NULL, NULL, 1,
                                                     YAML_BLOCK_SEQUENCE_STYLE));
}

static void seq_end(writer *W)
{
    if (!W->failed && W->json)
        json_close(W);
    else if (!W->failed)
        emit(W, yaml_sequence_end_event_initialize(&W->ev));
}

static void key_str(writer *W, const char *key, const char *value)
{
    str(W, key);
    str(W, value);
}

static void key_num(writer *W, const char *key, double value)
{
    str(W, key);
    num(W, value);
}

/* The devices and declared links of node `node` (every one without
 * nodes), as the lists `devices` and `links`. */
static void write_machine(writer *W, const hs_platform *p, int node)
{
    int any = 0;
    str(W, "devices");
    seq_start(W);
    for (int d = 0; d < p->ndevices; d++) {
        const hs_device *dev = &p->devices[d];
        if (dev->node != node)
            continue;
        map_start(W, 1);
        key_str(W, "name", dev->name);
        key_str(W, "kind", hs_device_kind_name(dev->kind));
        key_str(W, "memory", p->memories[dev->memory]);
        if (dev->cores > 0)
            key_num(W, "cores", dev->cores);
        if (dev->overhead_us > 0)
            key_num(W, "overhead_us", dev->overhead_us);
        map_end(W);
    }
    seq_end(W);
    for (int q = 0; q < p->nmemories; q++)
        for (int r = 0; r < p->nmemories; r++) {
            const hs_link *l = &p->links[q * p->nmemories + r];
            if (!l->present || l->route || p->memory_node[q] != node)
                continue;
            if (!any++) {
                str(W, "links");
                seq_start(W);
            }
            map_start(W, 1);
            key_str(W, "from", p->memories[q]);
            key_str(W, "to", p->memories[r]);
            key_num(W, "bandwidth_gbps", l->bandwidth_gbps);
            key_num(W, "latency_us", l->latency_us);
            map_end(W);
        }
    if (any)
        seq_end(W);
}

static void write_platform(writer *W, const hs_platform *p)
{
    int any = 0;
    str(W, "platform");
    map_start(W, 0);
    if (p->nnodes == 0) {
        write_machine(W, p, 0);
        map_end(W);
        return;
    }
    str(W, "nodes");
    seq_start(W);
    for (int n = 0; n < p->nnodes; n++) {
        map_start(W, 0);
        key_str(W, "name", p->nodes[n].name);
        key_str(W, "host", p->memories[p->nodes[n].host]);
        write_machine(W, p, n);
        map_end(W);
    }
    seq_end(W);
    for (int a = 0; a < p->nnodes; a++)
        for (int b = 0; b < p->nnodes; b++) {
            const hs_net_link *l = &p->network[a * p->nnodes + b];
            if (!l->present)
                continue;
            if (!any++) {
                str(W, "network");
                seq_start(W);
            }
            map_start(W, 1);
            key_str(W, "from", p->nodes[a].name);
            key_str(W, "to", p->nodes[b].name);
            key_num(W, "bandwidth_gbps", l->bandwidth_gbps);
            key_num(W, "latency_us", l->latency_us);
            if (l->gpu_direct)
                key_str(W, "gpu_direct", "true");
            map_end(W);
        }
    if (any)
        seq_end(W);
    map_end(W);
}

static void write_kernel(writer *W, const hs_kernel *k)
{
    map_start(W, 1);
    key_str(W, "name", k->name);
    if (k->type)
        key_str(W, "type", k->type);
    if (k->nparams > 0) {
        str(W, "params");
        map_start(W, 1);
        for (int i = 0; i < k->nparams; i++)
            key_num(W, k->params[i].name, k->params[i].value);
        map_end(W);
    }
    if (k->ncosts > 0) {
        str(W, "cost_us");
        map_start(W, 1);
        for (int i = 0; i < k->ncosts; i++)
            key_num(W, k->costs[i].key, k->costs[i].us);
        map_end(W);
    }
    if (k->input_bytes > 0)
        key_num(W, "input_bytes", k->input_bytes);
    if (k->output_bytes > 0)
        key_num(W, "output_bytes", k->output_bytes);
    if (k->splittable)
        key_str(W, "splittable", "true");
    if (k->items > 0)
        key_num(W, "items", k->items);
    map_end(W);
}

static void write_app(writer *W, const hs_app *a)
{
    map_start(W, 0);
    key_str(W, "name", a->name);
    if (a->instances != 1)
        key_num(W, "instances", a->instances);
    str(W, "kernels");
    seq_start(W);
    for (int k = 0; k < a->nkernels && !W->failed; k++)
        write_kernel(W, &a->kernels[k]);
    seq_end(W);
    if (a->nedges > 0) {
        str(W, "edges");
        seq_start(W);
        for (int e = 0; e < a->nedges && !W->failed; e++) {
            map_start(W, 1);
            key_str(W, "from", a->kernels[a->edges[e].from].name);
            key_str(W, "to", a->kernels[a->edges[e].to].name);
            key_num(W, "bytes", a->edges[e].bytes);
            if (a->edges[e].buffer)
                key_str(W, "buffer", a->edges[e].buffer);
            map_end(W);
        }
        seq_end(W);
    }
    map_end(W);
}

/* The platform, then (when w is not NULL) the applications, as the
 * mapping at the top of a document. */
static void write_top(writer *W, const hs_platform *p, const hs_workload *w)
{
    map_start(W, 0);
    write_platform(W, p);
    if (w) {
        str(W, "applications");
        seq_start(W);
        for (int a = 0; a < w->napps && !W->failed; a++)
            write_app(W, &w->apps[a]);
        seq_end(W);
    }
    map_end(W);
}

/* One document: the platform, then (when w is not NULL) the applications. */
static int write_yaml(const hs_platform *p, const hs_workload *w, FILE *out, hs_error *err)
{
    writer W = {.failed = 0};
    int rc = HS_OK;
    if (!yaml_emitter_initialize(&W.em))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the YAML emitter");
    yaml_emitter_set_output_file(&W.em, out);
    yaml_emitter_set_unicode(&W.em, 1);
    yaml_emitter_set_width(&W.em, -1); /* one flow item per line, however long */
    emit(&W, yaml_stream_start_event_initialize(&W.ev, YAML_UTF8_ENCODING));
    if (!W.failed)
        emit(&W, yaml_document_start_event_initialize(&W.ev, NULL, NULL, NULL, 1));
    write_top(&W, p, w);
    if (!W.failed)
        emit(&W, yaml_document_end_event_initialize(&W.ev, 1));
    if (!W.failed)
        emit(&W, yaml_stream_end_event_initialize(&W.ev));
    if (!W.failed && !yaml_emitter_flush(&W.em))
        W.failed = 1;
    if (W.failed)
        rc = hs_error_set(err, W.em.error == YAML_MEMORY_ERROR ? HS_ENOMEM : HS_EIO,
                          "cannot write YAML: %s",
                          W.em.problem ? W.em.problem : "write error");
    else if (fflush(out) != 0 || ferror(out))
        rc = hs_error_set(err, HS_EIO, "cannot write YAML: write error");
    yaml_emitter_delete(&W.em);
    return rc;
}

int hs_workload_write_yaml(const hs_workload *w, FILE *out, hs_error *err)
{
    return write_yaml(&w->platform, w, out, err);
}

int hs_platform_write_yaml(const hs_platform *p, FILE *out, hs_error *err)
{
    return write_yaml(p, NULL, out, err);
}

int hs_workload_write_json(const hs_workload *w, FILE *out, hs_error *err)
{
    writer W = {.json = out};
    write_top(&W, &w->platform, w);
    putc('\n', out);
    if (W.failed || fflush(out) != 0 || ferror(out))
        return hs_error_set(err, HS_EIO, "cannot write JSON: write error");
    return HS_OK;
}
