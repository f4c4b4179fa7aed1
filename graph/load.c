/* hetsched — the workload loader (include/hetsched/load.h, DESIGN.md §3).
 *
 * A file is first read in one pass (pass 0, below: libyaml's events straight
 * into the builder, for files in the generators' order).  Where that pass
 * stops, a file of at most MAX_FILE_BYTES goes through four passes, each
 * refusing what the next one could not handle or would report badly:
 *   1. a libyaml event scan: syntax errors, anchors and aliases, more than
 *      one document, nesting and node count beyond sane bounds (so hostile
 *      input cannot make pass 2 build a huge tree);
 *   2. libyaml's document tree: every mapping has scalar, unique keys; the
 *      tree is kept to read the free-key mappings (cost_us, params) and to
 *      turn item paths into LINE:COL;
 *   3. libcyaml with the fixed schema: unknown and missing fields, wrong
 *      shapes, the device kind; its log backtrace is turned into one line;
 *   4. the builder of graph.h, which owns every semantic check (bounds on
 *      numbers and names included), and the kernel registry, which checks
 *      typed kernels' params as the executor will; their messages carry an
 *      item path that pass 2's tree locates.
 * The JSON form of a workload is read by pass 0 alone, over yajl's events
 * made into libyaml's (see there).
 * Numbers are read by libcyaml as strings and converted here, so that YAML's
 * `.inf`/`.nan`, overflow and fractions get exact messages (libcyaml would
 * call all of them "invalid value") and finite-but-negative values reach the
 * builder's own checks.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cyaml/cyaml.h>
#include <yaml.h>

#include "hetsched/load.h"
#include "graph/json_stream.h"
#include "graph/numfmt.h"
#include "graph/read.h"
#include "graph/load_int.h"
#include "graph/strmap.h"
#include "graph/utf8.h"
#include "workloads/kernels/kernel.h"

/* Bounds on hostile input.  The builder's checks cost O(1) per item (hashed
 * names) plus O(devices^2) per application, so counts bound its work. */
/* Files up to DEFAULT_MAX_MIB (HETSCHED_YAML_MAX_MIB sets another cap) are
 * read; those over MAX_FILE_BYTES only in one pass (pass 0 below), which
 * holds no document tree, only the workload: some 3.5 times the file (a
 * million-task random workload, 235 MB of YAML, takes about 650 MB). */
#define MAX_FILE_BYTES HS__MAX_FILE_BYTES /* larger YAML files get pass 0 only */
#define DEFAULT_MAX_MIB 1024
#define MAX_MIB_ENV "HETSCHED_YAML_MAX_MIB"
#define MAX_MIB_LIMIT 1048576   /* 1 TiB */
#define MAX_DEPTH 16               /* the schema nests 6 deep */
/* Scalars, lists and mappings.  libyaml's document tree takes about 200
 * bytes a node, so the default keeps a hostile file near 800 MB (a 32 MB
 * list of 16M numbers took 2.8 GB); a workload has a node every 5 bytes or
 * so, 20 MB of YAML.  HETSCHED_YAML_NODES sets another budget. */
#define DEFAULT_MAX_NODES 4000000
#define MAX_NODES_ENV "HETSCHED_YAML_NODES"
#define MAX_NODES_LIMIT 1000000000
#define MAX_KEYS (HS_MAX_DEVICES + 2) /* keys of one mapping: a cost per device and kind */
#define MAX_DEVICES 64             /* of the platform, or of one node */
#define MAX_LINKS (65 * 64)        /* every ordered pair of 65 memories */
#define MAX_NODES HS_MAX_NODES
#define MAX_NETWORK (MAX_NODES * (MAX_NODES - 1)) /* every ordered pair of nodes */
#define MAX_APPS 4096
/* libcyaml's bounds of a sequence, which must be constants: the most that
 * HETSCHED_MAX_TASKS may allow; the limits in force are checked as the
 * kernels and edges are counted (over all applications, before instances,
 * and after) */
#define MAX_APP_KERNELS HS_MAX_TASKS
#define MAX_APP_EDGES HS_MAX_EDGES
#define MAX_PARAMS 64

/* ------------------------------------------------------------ the schema */

/* What libcyaml fills.  Numbers and booleans stay strings (see above). */
typedef struct y_device {
    char *name;
    hs_device_kind kind;
    char *memory;
    char *cores;
    char *overhead_us;
} y_device;

typedef struct y_link {
    char *from, *to, *bandwidth_gbps, *latency_us;
} y_link;

typedef struct y_node {
    char *name, *host;
    y_device *devices;
    unsigned devices_count;
    y_link *links;
    unsigned links_count;
} y_node;

typedef struct y_net_link {
    char *from, *to, *bandwidth_gbps, *latency_us, *gpu_direct;
} y_net_link;

typedef struct y_platform {
    y_device *devices;
    unsigned devices_count;
    y_link *links;
    unsigned links_count;
    y_node *nodes;
    unsigned nodes_count;
    y_net_link *network;
    unsigned network_count;
} y_platform;

typedef struct y_kernel {
    char *name, *input_bytes, *output_bytes, *type, *splittable, *items;
} y_kernel;

typedef struct y_edge {
    char *from, *to, *bytes, *buffer;
} y_edge;

typedef struct y_app {
    char *name, *instances;
    y_kernel *kernels;
    unsigned kernels_count;
    y_edge *edges;
    unsigned edges_count;
} y_app;

typedef struct y_top {
    y_platform platform;
    y_app *applications;
    unsigned applications_count;
} y_top;

#define STR(key, flags, type, member)                                                   \
    CYAML_FIELD_STRING_PTR(key, CYAML_FLAG_POINTER | (flags), type, member, 0,          \
                           CYAML_UNLIMITED)
#define OPT CYAML_FLAG_OPTIONAL

static const cyaml_strval_t kind_names[] = {
    {"cpu", HS_DEVICE_CPU},
    {"gpu", HS_DEVICE_GPU},
};

static const cyaml_schema_field_t device_fields[] = {
    STR("name", 0, y_device, name),
    CYAML_FIELD_ENUM("kind", CYAML_FLAG_STRICT, y_device, kind, kind_names,
                     CYAML_ARRAY_LEN(kind_names)),
    STR("memory", 0, y_device, memory),
    STR("cores", OPT, y_device, cores),
    STR("overhead_us", OPT, y_device, overhead_us),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t device_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_device, device_fields),
};

static const cyaml_schema_field_t link_fields[] = {
    STR("from", 0, y_link, from),
    STR("to", 0, y_link, to),
    STR("bandwidth_gbps", 0, y_link, bandwidth_gbps),
    STR("latency_us", 0, y_link, latency_us),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t link_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_link, link_fields),
};

static const cyaml_schema_field_t node_fields[] = {
    STR("name", 0, y_node, name),
    STR("host", OPT, y_node, host),
    CYAML_FIELD_SEQUENCE("devices", CYAML_FLAG_POINTER, y_node, devices, &device_schema, 0,
                         MAX_DEVICES),
    CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | OPT, y_node, links, &link_schema, 0,
                         MAX_LINKS),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t node_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_node, node_fields),
};

static const cyaml_schema_field_t net_link_fields[] = {
    STR("from", 0, y_net_link, from),
    STR("to", 0, y_net_link, to),
    STR("bandwidth_gbps", 0, y_net_link, bandwidth_gbps),
    STR("latency_us", 0, y_net_link, latency_us),
    STR("gpu_direct", OPT, y_net_link, gpu_direct),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t net_link_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_net_link, net_link_fields),
};

/* Either devices (and links), or nodes (and the network between them). */
static const cyaml_schema_field_t platform_fields[] = {
    CYAML_FIELD_SEQUENCE("devices", CYAML_FLAG_POINTER | OPT, y_platform, devices,
                         &device_schema, 0, MAX_DEVICES),
    CYAML_FIELD_SEQUENCE("links", CYAML_FLAG_POINTER | OPT, y_platform, links, &link_schema,
                         0, MAX_LINKS),
    CYAML_FIELD_SEQUENCE("nodes", CYAML_FLAG_POINTER | OPT, y_platform, nodes, &node_schema,
                         0, MAX_NODES),
    CYAML_FIELD_SEQUENCE("network", CYAML_FLAG_POINTER | OPT, y_platform, network,
                         &net_link_schema, 0, MAX_NETWORK),
    CYAML_FIELD_END,
};

/* cost_us and params have free keys: read from the document tree. */
static const cyaml_schema_field_t kernel_fields[] = {
    STR("name", 0, y_kernel, name),
    CYAML_FIELD_IGNORE("cost_us", OPT),
    STR("input_bytes", OPT, y_kernel, input_bytes),
    STR("output_bytes", OPT, y_kernel, output_bytes),
    STR("type", OPT, y_kernel, type),
    CYAML_FIELD_IGNORE("params", OPT),
    STR("splittable", OPT, y_kernel, splittable),
    STR("items", OPT, y_kernel, items),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t kernel_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_kernel, kernel_fields),
};

static const cyaml_schema_field_t edge_fields[] = {
    STR("from", 0, y_edge, from),
    STR("to", 0, y_edge, to),
    STR("bytes", OPT, y_edge, bytes),
    STR("buffer", OPT, y_edge, buffer),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t edge_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_edge, edge_fields),
};

static const cyaml_schema_field_t app_fields[] = {
    STR("name", 0, y_app, name),
    STR("instances", OPT, y_app, instances),
    CYAML_FIELD_SEQUENCE("kernels", CYAML_FLAG_POINTER, y_app, kernels, &kernel_schema, 0,
                         MAX_APP_KERNELS),
    CYAML_FIELD_SEQUENCE("edges", CYAML_FLAG_POINTER | OPT, y_app, edges, &edge_schema, 0,
                         MAX_APP_EDGES),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t app_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, y_app, app_fields),
};

static const cyaml_schema_field_t top_fields[] = {
    CYAML_FIELD_MAPPING("platform", CYAML_FLAG_DEFAULT, y_top, platform, platform_fields),
    CYAML_FIELD_SEQUENCE("applications", CYAML_FLAG_POINTER, y_top, applications, &app_schema,
                         0, MAX_APPS),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t top_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, y_top, top_fields),
};

/* A platform file: a workload's file serves too, its applications unread. */
static const cyaml_schema_field_t platform_top_fields[] = {
    CYAML_FIELD_MAPPING("platform", CYAML_FLAG_DEFAULT, y_top, platform, platform_fields),
    CYAML_FIELD_IGNORE("applications", OPT),
    CYAML_FIELD_END,
};
static const cyaml_schema_value_t platform_top_schema = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, y_top, platform_top_fields),
};

/* The mapping a field name leads into, for messages about its fields. */
static const struct context {
    const char *field; /* the key whose value holds the mapping ("" for the top) */
    const char *what;
    const cyaml_schema_field_t *fields;
} contexts[] = {
    {"", "the top-level mapping", top_fields},
    {"platform", "the platform", platform_fields},
    {"devices", "a device", device_fields},
    {"links", "a link", link_fields},
    {"nodes", "a node", node_fields},
    {"network", "a network link", net_link_fields},
    {"applications", "an application", app_fields},
    {"kernels", "a kernel", kernel_fields},
    {"edges", "an edge", edge_fields},
};

static const char *const number_fields[] = {
    "cores", "overhead_us", "bandwidth_gbps", "latency_us", "input_bytes", "output_bytes", "items",
    "instances", "bytes",
};

/* ------------------------------------------------------- loader context */

/* One frame of libcyaml's backtrace, innermost first. */
typedef struct frame {
    enum { FRAME_FIELD, FRAME_MAPPING, FRAME_ENTRY } type;
    char field[32];
    unsigned entry; /* libcyaml counts entries from 1 */
    size_t line, col;
} frame;

#define MAX_FRAMES 32

typedef struct loader {
    const char *name;     /* file name for messages */
    const char *data;
    size_t len;
    yaml_document_t doc;
    int have_doc;
    hs_error *err;
    const hs_load_options *opt; /* or NULL */
    int platform_only;    /* a platform file (hs_platform_load_file) */
    int json;             /* the workload's JSON form: pass 0 alone, over yajl's events */
    hs__load_way way;
    /* libcyaml's log of the failure */
    char cyaml_msg[256];
    frame frames[MAX_FRAMES];
    int nframes;
} loader;

/* Writes "NAME:LINE:COL: error: TEXT" (or "NAME: error: TEXT" when line is
 * 0) into the error and returns `code`. */
static int fail_v(loader *L, int code, size_t line, size_t col, const char *fmt, va_list ap)
{
    char *msg = L->err->msg;
    size_t size = sizeof L->err->msg;
    int n;
    L->err->code = code;
    if (line > 0)
        n = snprintf(msg, size, "%s:%zu:%zu: error: ", L->name, line, col);
    else
        n = snprintf(msg, size, "%s: error: ", L->name);
    if (n >= 0 && (size_t)n < size)
        vsnprintf(msg + n, size - (size_t)n, fmt, ap);
    return code;
}

static int fail(loader *L, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(loader *L, size_t line, size_t col, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = fail_v(L, HS_EINPUT, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

/* The same at a libyaml position (0-based in libyaml, 1-based in messages). */
static int fail_mark(loader *L, yaml_mark_t mark, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_mark(loader *L, yaml_mark_t mark, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = fail_v(L, HS_EINPUT, mark.line + 1, mark.column + 1, fmt, ap);
    va_end(ap);
    return rc;
}

static int fail_nomem(loader *L)
{
    L->err->code = HS_ENOMEM;
    snprintf(L->err->msg, sizeof L->err->msg, "%s: out of memory", L->name);
    L->err->path[0] = '\0';
    return HS_ENOMEM;
}

/* ------------------------------------------------------ document tree */

static yaml_node_t *node_get(loader *L, int id)
{
    return yaml_document_get_node(&L->doc, id);
}

/* The value of `key` in a mapping node (and its key node), or NULL. */
static yaml_node_t *map_get(loader *L, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_get(L, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0) {
            if (key_node)
                *key_node = k;
            return node_get(L, p->value);
        }
    }
    return NULL;
}

/* The node at an item path such as `applications[1].edges[0].to` or
 * `applications[0].kernels[2].cost_us.gpu0`, or the deepest node on the way
 * (the root if nothing matches).  A key may itself contain '.' or '[' (a
 * cost key is free text), so at a mapping the longest key that the rest of
 * the path starts with wins.  *complete says whether the whole path
 * resolved. */
static yaml_node_t *resolve(loader *L, const char *path, int *complete)
{
    yaml_node_t *node = yaml_document_get_root_node(&L->doc);
    const char *p = path;
    *complete = 0;
    while (node && *p) {
        if (*p == '[') {
            char *end;
            unsigned long i = strtoul(p + 1, &end, 10);
            yaml_node_item_t *items;
            if (node->type != YAML_SEQUENCE_NODE || end == p + 1 || *end != ']')
                return node;
            items = node->data.sequence.items.start;
            if (i >= (unsigned long)(node->data.sequence.items.top - items))
                return node;
            node = node_get(L, items[i]);
            p = end + 1;
        } else {
            yaml_node_t *best = NULL;
            size_t best_len = 0;
            if (*p == '.')
                p++;
            if (node->type != YAML_MAPPING_NODE)
                return node;
            for (yaml_node_pair_t *q = node->data.mapping.pairs.start;
                 q < node->data.mapping.pairs.top; q++) {
                yaml_node_t *k = node_get(L, q->key);
                size_t n;
                if (!k || k->type != YAML_SCALAR_NODE)
                    continue;
                n = k->data.scalar.length;
                if (n >= best_len && n > 0 && strncmp(p, (char *)k->data.scalar.value, n) == 0 &&
                    (p[n] == '\0' || p[n] == '.' || p[n] == '[')) {
                    best = node_get(L, q->value);
                    best_len = n;
                }
            }
            if (!best)
                return node;
            node = best;
            p += best_len;
        }
    }
    *complete = node && *p == '\0';
    return node;
}

/* Adds the position of err->path to a builder (or conversion) error:
 * "NAME:LINE:COL: error: PATH: TEXT". */
static int locate(loader *L, int rc)
{
    char text[HS_ERROR_MSG_MAX];
    int complete;
    yaml_node_t *node;
    if (rc == HS_ENOMEM)
        return fail_nomem(L);
    snprintf(text, sizeof text, "%s", L->err->msg);
    node = L->err->path[0] ? resolve(L, L->err->path, &complete) : NULL;
    if (node)
        fail_mark(L, node->start_mark, "%s", text);
    else
        fail(L, 0, 0, "%s", text);
    L->err->code = rc;
    return rc;
}

/* A readable name of what a node is, for "expected X, not Y". */
static const char *node_shape(const yaml_node_t *n)
{
    if (!n)
        return "nothing";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    return n->data.scalar.length == 0 ? "an empty value" : "a single value";
}

/* Pass 2: every mapping has at most MAX_KEYS keys, each a scalar, each
 * given once; no scalar holds a NUL (C strings would silently cut it).
 * Depth is already bounded by pass 1. */
static int check_tree(loader *L, yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE) {
        if (memchr(n->data.scalar.value, '\0', n->data.scalar.length))
            return fail_mark(L, n->start_mark, "a value may not contain a NUL character");
    } else if (n->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = n->data.sequence.items.start;
             i < n->data.sequence.items.top; i++) {
            int rc = check_tree(L, node_get(L, *i));
            if (rc)
                return rc;
        }
    } else if (n->type == YAML_MAPPING_NODE) {
        yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
        long npairs = n->data.mapping.pairs.top - pairs;
        if (npairs > MAX_KEYS)
            return fail_mark(L, n->start_mark, "a mapping with more than %d keys", MAX_KEYS);
        for (long i = 0; i < npairs; i++) {
            yaml_node_t *k = node_get(L, pairs[i].key);
            int rc;
            if (k->type != YAML_SCALAR_NODE)
                return fail_mark(L, k->start_mark, "a key must be a single value, not %s",
                                 node_shape(k));
            for (long j = 0; j < i; j++) {
                yaml_node_t *o = node_get(L, pairs[j].key);
                if (o->data.scalar.length == k->data.scalar.length &&
                    memcmp(o->data.scalar.value, k->data.scalar.value, k->data.scalar.length) ==
                        0)
                    return fail_mark(L, k->start_mark, "duplicate key '%.64s' (first given at "
                                     "%zu:%zu)", (char *)k->data.scalar.value,
                                     o->start_mark.line + 1, o->start_mark.column + 1);
            }
            if ((rc = check_tree(L, k)) != 0 || (rc = check_tree(L, node_get(L, pairs[i].value))))
                return rc;
        }
    }
    return HS_OK;
}

/* ------------------------------------------------------ pass 1: events */

/* Turns a libyaml parser error into "NAME:LINE:COL: error: YAML syntax
 * error: PROBLEM (CONTEXT at LINE:COL)". */
static int syntax_error(loader *L, const yaml_parser_t *p)
{
    size_t line = p->problem_mark.line + 1, col = p->problem_mark.column + 1;
    const char *problem = p->problem ? p->problem : "unreadable input";
    if (p->error == YAML_MEMORY_ERROR)
        return fail_nomem(L);
    if (p->error == YAML_READER_ERROR && !L->data)
        return fail(L, 0, 0, "YAML syntax error: %s (at byte %zu)", problem,
                    p->problem_offset + 1);
    if (p->error == YAML_READER_ERROR) {
        /* reader errors carry a byte offset, not a mark */
        line = 1;
        col = 1;
        for (size_t i = 0; i < p->problem_offset && i < L->len; i++) {
            if (L->data[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        /* the value is the octet for a bad UTF-8 sequence, else the
         * character's code point */
        if (p->problem_value != -1 && (p->problem_value < 0x80 || strstr(problem, "octet")))
            return fail(L, line, col, "YAML syntax error: %s (byte 0x%02X)", problem,
                        (unsigned)p->problem_value & 0xFFu);
        if (p->problem_value != -1)
            return fail(L, line, col, "YAML syntax error: %s (U+%04X)", problem,
                        (unsigned)p->problem_value);
        return fail(L, line, col, "YAML syntax error: %s", problem);
    }
    if (p->context)
        return fail(L, line, col, "YAML syntax error: %s (%s at %zu:%zu)", problem, p->context,
                    p->context_mark.line + 1, p->context_mark.column + 1);
    return fail(L, line, col, "YAML syntax error: %s", problem);
}

static int refuse_anchor(loader *L, const yaml_event_t *ev, const yaml_char_t *anchor)
{
    if (!anchor)
        return HS_OK;
    return fail_mark(L, ev->start_mark,
                     "anchors and aliases are not supported (anchor '&%.64s'); write the "
                     "value out", (const char *)anchor);
}

/* The node budget: HETSCHED_YAML_NODES, else DEFAULT_MAX_NODES. */
static int max_nodes(loader *L, size_t *out)
{
    const char *s = getenv(MAX_NODES_ENV);
    char *end;
    unsigned long long v;
    *out = DEFAULT_MAX_NODES;
    if (!s)
        return HS_OK;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (end == s || *end || errno || *s == '-' || v < 1 || v > MAX_NODES_LIMIT)
        return fail(L, 0, 0, "%s must be a whole number from 1 to %d, not '%.64s'",
                    MAX_NODES_ENV, MAX_NODES_LIMIT, s);
    *out = (size_t)v;
    return HS_OK;
}

/* Pass 1: reads the events once and refuses what the tree must not hold. */
static int scan_events(loader *L)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int rc = HS_OK, depth = 0, docs = 0, done = 0;
    size_t nodes = 0, budget;
    if ((rc = max_nodes(L, &budget)) != 0)
        return rc;
    if (!yaml_parser_initialize(&p))
        return fail_nomem(L);
    yaml_parser_set_input_string(&p, (const unsigned char *)L->data, L->len);
    while (rc == HS_OK && !done) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(L, &p);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = fail_mark(L, ev.start_mark, "a second YAML document; a workload is one "
                               "document");
            break;
        case YAML_ALIAS_EVENT:
            rc = fail_mark(L, ev.start_mark,
                           "anchors and aliases are not supported (alias '*%.64s'); write the "
                           "value out", (const char *)ev.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT:
            nodes++;
            rc = refuse_anchor(L, &ev, ev.data.scalar.anchor);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            nodes++;
            rc = refuse_anchor(L, &ev, ev.type == YAML_SEQUENCE_START_EVENT
                                           ? ev.data.sequence_start.anchor
                                           : ev.data.mapping_start.anchor);
            if (rc == HS_OK && ++depth > MAX_DEPTH)
                rc = fail_mark(L, ev.start_mark, "nesting deeper than %d levels", MAX_DEPTH);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (rc == HS_OK && nodes > budget)
            rc = fail_mark(L, ev.start_mark, "more than %zu values, lists and mappings (%s "
                           "sets the budget)", budget, MAX_NODES_ENV);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return rc;
}

/* Pass 2: builds the document tree and checks its shape at the top. */
static int load_tree(loader *L)
{
    yaml_parser_t p;
    yaml_node_t *root;
    int rc;
    if (!yaml_parser_initialize(&p))
        return fail_nomem(L);
    yaml_parser_set_input_string(&p, (const unsigned char *)L->data, L->len);
    if (!yaml_parser_load(&p, &L->doc)) {
        rc = syntax_error(L, &p);
        yaml_parser_delete(&p);
        return rc;
    }
    yaml_parser_delete(&p);
    L->have_doc = 1;
    root = yaml_document_get_root_node(&L->doc);
    const char *what = L->platform_only ? "a platform file is a mapping with 'platform'"
                                        : "a workload is a mapping with 'platform' and "
                                          "'applications'";
    if (!root)
        return fail(L, 0, 0, "the file is empty (%s)", what);
    if (root->type != YAML_MAPPING_NODE)
        return fail_mark(L, root->start_mark, "%s, not %s", what, node_shape(root));
    return check_tree(L, root);
}

/* --------------------------------------------------- pass 3: libcyaml */

/* Collects libcyaml's error log: the first line is the problem, the lines
 * "  in ..." the backtrace, innermost first. */
static void cyaml_log_to_loader(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    loader *L = ctx;
    char line[320], name[32];
    size_t l, c;
    unsigned entry;
    frame *f;
    if (level < CYAML_LOG_ERROR)
        return;
    vsnprintf(line, sizeof line, fmt, args);
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "  in ", 5) != 0) {
        const char *text = strncmp(line, "Load: ", 6) == 0 ? line + 6 : line;
        size_t n = strlen(text);
        if (!L->cyaml_msg[0] && strcmp(text, "Backtrace:") != 0) {
            n = n < sizeof L->cyaml_msg ? n : sizeof L->cyaml_msg - 1;
            memcpy(L->cyaml_msg, text, n);
            L->cyaml_msg[n] = '\0';
        }
        return;
    }
    if (L->nframes >= MAX_FRAMES)
        return;
    f = &L->frames[L->nframes];
    if (sscanf(line, "  in mapping field '%31[^']' (line: %zu, column: %zu)", name, &l, &c) ==
        3) {
        *f = (frame){.type = FRAME_FIELD, .line = l, .col = c};
        snprintf(f->field, sizeof f->field, "%s", name);
    } else if (sscanf(line, "  in mapping (line: %zu, column: %zu)", &l, &c) == 2) {
        *f = (frame){.type = FRAME_MAPPING, .line = l, .col = c};
    } else if (sscanf(line, "  in sequence entry '%u' (line: %zu, column: %zu)", &entry, &l,
                      &c) == 3) {
        *f = (frame){.type = FRAME_ENTRY, .entry = entry, .line = l, .col = c};
    } else {
        return;
    }
    L->nframes++;
}

/* The item path of frames[skip..nframes), outermost first: a field frame
 * whose value is being read adds ".field", an entry frame "[entry - 1]".
 * `context` gets the innermost field name on the path ("" for none). */
static void frames_path(const loader *L, int skip, char *path, size_t size,
                        const char **context)
{
    size_t n = 0;
    path[0] = '\0';
    *context = "";
    for (int i = L->nframes - 1; i >= skip && n < size; i--) {
        const frame *f = &L->frames[i];
        if (f->type == FRAME_FIELD) {
            n += (size_t)snprintf(path + n, size - n, "%s%s", n ? "." : "", f->field);
            *context = f->field;
        } else if (f->type == FRAME_ENTRY && f->entry > 0) {
            n += (size_t)snprintf(path + n, size - n, "[%u]", f->entry - 1);
        }
    }
}

static const struct context *find_context(const char *field)
{
    for (size_t i = 0; i < sizeof contexts / sizeof *contexts; i++)
        if (strcmp(contexts[i].field, field) == 0)
            return &contexts[i];
    return &contexts[0];
}

static int is_number_field(const char *field)
{
    for (size_t i = 0; i < sizeof number_fields / sizeof *number_fields; i++)
        if (strcmp(number_fields[i], field) == 0)
            return 1;
    return 0;
}

/* Writes "a, b, c or d" for the keys of a schema mapping. */
static void list_fields(const cyaml_schema_field_t *fields, char *out, size_t size)
{
    size_t n = 0, count = 0;
    while (fields[count].key)
        count++;
    out[0] = '\0';
    for (size_t i = 0; i < count && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", i == 0 ? "" : i + 1 == count ? " or "
                                                                                     : ", ",
                              fields[i].key);
}

/* Position of the item at `path`; falls back on libcyaml's innermost frame
 * when the tree does not hold the whole path. */
static int fail_at_path(loader *L, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at_path(loader *L, const char *path, const char *fmt, ...)
{
    int complete, rc;
    yaml_node_t *node = resolve(L, path, &complete);
    size_t line = 0, col = 0;
    va_list ap;
    if (node && (complete || L->nframes == 0)) {
        line = node->start_mark.line + 1;
        col = node->start_mark.column + 1;
    } else if (L->nframes > 0) {
        line = L->frames[0].line;
        col = L->frames[0].col;
    }
    va_start(ap, fmt);
    rc = fail_v(L, HS_EINPUT, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

/* Turns libcyaml's failure (message and backtrace) into one line. */
static int schema_error(loader *L, cyaml_err_t cerr)
{
    char path[256], fields[256], expected[64], got[64];
    const char *ctx, *msg = L->cyaml_msg;
    int complete;
    yaml_node_t *node;
    if (cerr == CYAML_ERR_OOM)
        return fail_nomem(L);
    if (strncmp(msg, "Unexpected key: ", 16) == 0) {
        /* innermost frame: the mapping reading its keys */
        const struct context *c;
        yaml_node_t *key = NULL;
        frames_path(L, 1, path, sizeof path, &ctx);
        c = find_context(ctx);
        list_fields(c->fields, fields, sizeof fields);
        node = resolve(L, path, &complete);
        if (complete && map_get(L, node, msg + 16, &key) && key)
            return fail_mark(L, key->start_mark, "unknown field '%s' in %s (expected %s)",
                             msg + 16, c->what, fields);
        return fail_at_path(L, path, "unknown field '%s' in %s (expected %s)", msg + 16, c->what,
                            fields);
    }
    if (strncmp(msg, "Missing required mapping field: ", 32) == 0) {
        frames_path(L, 1, path, sizeof path, &ctx);
        return fail_at_path(L, path, "missing field '%s' in %s", msg + 32,
                            find_context(ctx)->what);
    }
    frames_path(L, 0, path, sizeof path, &ctx);
    if (sscanf(msg, "Expecting %63s got event: %63s", expected, got) == 2) {
        const char *want = "a single value";
        expected[strcspn(expected, ",")] = '\0';
        if (strcmp(expected, "SEQUENCE") == 0)
            want = "a list";
        else if (strcmp(expected, "MAPPING") == 0)
            want = "a mapping";
        else if (strcmp(expected, "ENUM") == 0)
            want = "cpu or gpu";
        else if (is_number_field(ctx))
            want = "a number";
        else if (strcmp(ctx, "splittable") == 0 || strcmp(ctx, "gpu_direct") == 0)
            want = "true or false";
        node = resolve(L, path, &complete);
        return fail_at_path(L, path, "%s: expected %s, not %s", path, want,
                            complete ? node_shape(node) : "that");
    }
    if (strncmp(msg, "Invalid ENUM value: ", 20) == 0)
        return fail_at_path(L, path, "%s: expected cpu or gpu, not '%.64s'", path, msg + 20);
    if (strncmp(msg, "Excessive entries (", 19) == 0) {
        frames_path(L, 1, path, sizeof path, &ctx);
        return fail_at_path(L, path, "%s: more than %lu entries (the loader's limit)", path,
                            strtoul(msg + 19, NULL, 10));
    }
    return fail_at_path(L, path, "%s%s%s", path, path[0] ? ": " : "",
                        msg[0] ? msg : cyaml_strerror(cerr));
}

/* ------------------------------------------------ pass 4: the builder */

/* Converts the text of a number at `path` (NULL: absent, gives `dflt`).
 * YAML's `.inf`, `-.inf` and `.nan` are read like strtod's `inf` and `nan`,
 * and finite negative values pass, so the builder refuses them in its own
 * words.  `whole` asks for an integer (checked on finite values >= 0; the
 * builder refuses the others). */
static int to_number(loader *L, const char *text, double dflt, int whole, double *out,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The item path `fmt` formats, into path[256]: only for a message, since a
 * million-task file has millions of values. */
#define FORMAT_PATH(path, fmt)                                                                     \
    do {                                                                                           \
        va_list ap_;                                                                               \
        va_start(ap_, fmt);                                                                        \
        vsnprintf(path, sizeof path, fmt, ap_);                                                    \
        va_end(ap_);                                                                               \
    } while (0)

static int to_number(loader *L, const char *text, double dflt, int whole, double *out,
                     const char *fmt, ...)
{
    const char *s = text;
    char *end, path[256];
    double x;
    if (!text) {
        *out = dflt;
        return HS_OK;
    }
    if (hs__parse_decimal(text, &x)) /* strtod's value, without its cost */
        goto got;
    if (*s == '+' || *s == '-')
        s++;
    if (strcmp(s, ".inf") == 0 || strcmp(s, ".Inf") == 0 || strcmp(s, ".INF") == 0) {
        x = *text == '-' ? -HUGE_VAL : HUGE_VAL;
    } else if (s == text && (strcmp(s, ".nan") == 0 || strcmp(s, ".NaN") == 0 ||
                             strcmp(s, ".NAN") == 0)) {
        x = NAN;
    } else {
        errno = 0;
        x = strtod(text, &end);
        if (end == text || *end != '\0' || *text == ' ' || *text == '\t') {
            FORMAT_PATH(path, fmt);
            return hs_error_at(L->err, HS_EINPUT, path, "expected a number, not '%.64s'", text);
        }
        if (errno == ERANGE && isinf(x)) {
            FORMAT_PATH(path, fmt);
            return hs_error_at(L->err, HS_EINPUT, path, "%.64s is out of range", text);
        }
    }
got:
    if (whole && isfinite(x) && x >= 0 && x != floor(x)) {
        FORMAT_PATH(path, fmt);
        return hs_error_at(L->err, HS_EINPUT, path, "must be a whole number, not %.64s", text);
    }
    *out = x;
    return HS_OK;
}

/* The same for an int field (cores, instances). */
static int to_int(loader *L, const char *path, const char *text, int dflt, int *out)
{
    double x;
    int rc = to_number(L, text, dflt, 1, &x, "%s", path);
    if (rc)
        return rc;
    if (!isfinite(x) || x != floor(x))
        return hs_error_at(L->err, HS_EINPUT, path, "must be a whole number, not %.64s", text);
    if (x > INT_MAX || x < INT_MIN)
        return hs_error_at(L->err, HS_EINPUT, path, "%.64s is out of range", text);
    *out = (int)x;
    return HS_OK;
}

static int to_bool(loader *L, const char *text, int *out, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int to_bool(loader *L, const char *text, int *out, const char *fmt, ...)
{
    static const char *const yes[] = {"true", "True", "TRUE"};
    static const char *const no[] = {"false", "False", "FALSE"};
    char path[256];
    *out = 0;
    if (!text)
        return HS_OK;
    for (int i = 0; i < 3; i++) {
        if (strcmp(text, yes[i]) == 0) {
            *out = 1;
            return HS_OK;
        }
        if (strcmp(text, no[i]) == 0)
            return HS_OK;
    }
    FORMAT_PATH(path, fmt);
    return hs_error_at(L->err, HS_EINPUT, path, "expected true or false, not '%.64s'", text);
}

/* Devices, then links, of the one machine or of the node just added;
 * `at` is "platform" or "platform.nodes[N]". */
static int build_machine(loader *L, const char *at, const y_device *devices, unsigned ndevices,
                         const y_link *links, unsigned nlinks, hs_workload *w)
{
    char path[128];
    int rc;
    for (unsigned d = 0; d < ndevices; d++) {
        const y_device *yd = &devices[d];
        int cores, i;
        double overhead;
        snprintf(path, sizeof path, "%s.devices[%u].cores", at, d);
        if ((rc = to_int(L, path, yd->cores, 0, &cores)) != 0)
            return rc;
        if ((rc = to_number(L, yd->overhead_us, 0, 0, &overhead, "%s.devices[%u].overhead_us",
                            at, d)) != 0)
            return rc;
        if ((i = hs_platform_add_device(w, yd->name, yd->kind, yd->memory, cores, L->err)) < 0)
            return i;
        if ((rc = hs_platform_set_overhead(w, i, overhead, L->err)) != 0)
            return rc;
    }
    for (unsigned i = 0; i < nlinks; i++) {
        const y_link *yl = &links[i];
        double bw, lat;
        if ((rc = to_number(L, yl->bandwidth_gbps, 0, 0, &bw, "%s.links[%u].bandwidth_gbps", at,
                            i)) != 0 ||
            (rc = to_number(L, yl->latency_us, 0, 0, &lat, "%s.links[%u].latency_us", at, i)) != 0)
            return rc;
        if ((rc = hs_platform_add_link(w, yl->from, yl->to, bw, lat, L->err)) < 0)
            return rc;
    }
    return HS_OK;
}

static int build_platform(loader *L, const y_platform *yp, hs_workload *w)
{
    char path[96];
    int rc;
    if (yp->nodes_count > 0 && yp->links_count > 0)
        return hs_error_at(L->err, HS_EINPUT, "platform.links", "with nodes, links go in each "
                           "node (platform.nodes[N].links) and platform.network joins nodes");
    if (yp->nodes_count == 0 && yp->network_count > 0)
        return hs_error_at(L->err, HS_EINPUT, "platform.network", "a network joins nodes: "
                           "list them in platform.nodes");
    if ((rc = build_machine(L, "platform", yp->devices, yp->devices_count, yp->links,
                            yp->links_count, w)) != 0)
        return rc;
    for (unsigned n = 0; n < yp->nodes_count; n++) {
        const y_node *yn = &yp->nodes[n];
        snprintf(path, sizeof path, "platform.nodes[%u]", n);
        if ((rc = hs_platform_add_node(w, yn->name, yn->host, L->err)) < 0 ||
            (rc = build_machine(L, path, yn->devices, yn->devices_count, yn->links,
                                yn->links_count, w)) != 0)
            return rc;
    }
    for (unsigned i = 0; i < yp->network_count; i++) {
        const y_net_link *yl = &yp->network[i];
        double bw, lat;
        int direct;
        if ((rc = to_number(L, yl->bandwidth_gbps, 0, 0, &bw, "platform.network[%u].bandwidth_gbps",
                            i)) != 0 ||
            (rc = to_number(L, yl->latency_us, 0, 0, &lat, "platform.network[%u].latency_us",
                            i)) != 0 ||
            (rc = to_bool(L, yl->gpu_direct, &direct, "platform.network[%u].gpu_direct", i)) != 0)
            return rc;
        if ((rc = hs_platform_add_network_link(w, yl->from, yl->to, bw, lat, direct,
                                               L->err)) < 0)
            return rc;
    }
    hs_platform_route(&w->platform);
    return HS_OK;
}

/* A free-key mapping (cost_us or params) of one kernel as text: its keys
 * and values, in the file's order.  At most MAX_KEYS entries (pass 2 and
 * the streaming pass both refuse more). */
typedef struct free_map {
    int given; /* the field is in the file */
    int n;
    const char *keys[MAX_KEYS], *values[MAX_KEYS];
} free_map;

/* Fills `m` from the tree with the mapping `field` of kernel k of app a,
 * refusing a value that is not a mapping of single values. */
static int tree_free_map(loader *L, int a, int k, const char *field, free_map *m)
{
    char path[256];
    int complete;
    yaml_node_t *map;
    snprintf(path, sizeof path, "applications[%d].kernels[%d].%s", a, k, field);
    map = resolve(L, path, &complete);
    m->given = complete;
    m->n = 0;
    if (!complete)
        return HS_OK; /* not given */
    if (map->type != YAML_MAPPING_NODE)
        return hs_error_at(L->err, HS_EINPUT, path, "expected a mapping %s, not %s",
                           strcmp(field, "cost_us") == 0
                               ? "from device names or kinds to microseconds (e.g. {cpu: 568, "
                                 "gpu: 422})"
                               : "from parameter names to numbers (e.g. {n: 1024})",
                           node_shape(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *key = (const char *)node_get(L, p->key)->data.scalar.value;
        yaml_node_t *value = node_get(L, p->value);
        if (value->type != YAML_SCALAR_NODE) {
            snprintf(path, sizeof path, "applications[%d].kernels[%d].%s.%s", a, k, field, key);
            return hs_error_at(L->err, HS_EINPUT, path, "expected a number, not %s",
                               node_shape(value));
        }
        m->keys[m->n] = key;
        m->values[m->n++] = (const char *)value->data.scalar.value;
    }
    return HS_OK;
}

/* Hands each entry of a free-key mapping of kernel k of app a to `add`, at
 * most `max` entries.  `m` NULL: read it from the tree. */
static int build_free_map(loader *L, hs_workload *w, int a, int k, const char *field, int max,
                          const free_map *m,
                          int (*add)(hs_workload *, int, int, const char *, double, hs_error *))
{
    char path[256];
    int rc;
    free_map tree;
    if (!m) {
        if ((rc = tree_free_map(L, a, k, field, &tree)) != 0)
            return rc;
        m = &tree;
    }
    if (!m->given)
        return HS_OK;
    if (m->n > max) {
        snprintf(path, sizeof path, "applications[%d].kernels[%d].%s", a, k, field);
        return hs_error_at(L->err, HS_EINPUT, path, "more than %d entries (%s)", max,
                           strcmp(field, "cost_us") == 0 ? "one per device or kind at most"
                                                         : "the loader's limit");
    }
    for (int i = 0; i < m->n; i++) {
        double x;
        if ((rc = to_number(L, m->values[i], 0, 0, &x, "applications[%d].kernels[%d].%s.%s", a,
                            k, field, m->keys[i])) != 0 ||
            (rc = add(w, a, k, m->keys[i], x, L->err)) != 0)
            return rc;
    }
    return HS_OK;
}

/* Checks kernel k of app a as the executor will (hs_kconf_init): the type
 * must be one of workloads/kernels/ with valid params, and params need a
 * type.  The registry's message is placed at the param it names, else at
 * the params (or the type, when they are not given). */
static int check_kernel_type(loader *L, const hs_workload *w, int a, int k, int has_params)
{
    const hs_kernel *kn = &w->apps[a].kernels[k];
    hs_error kerr = {0};
    char path[64 + sizeof kerr.path];
    hs_kconf c;
    if (!kn->type && has_params) {
        snprintf(path, sizeof path, "applications[%d].kernels[%d].params", a, k);
        return hs_error_at(L->err, HS_EINPUT, path, "params without a type (give the kernel "
                           "type they configure, e.g. type: gemm)");
    }
    if (!kn->type || hs_kconf_init(&c, kn->type, kn->params, kn->nparams, &kerr) == 0)
        return HS_OK;
    snprintf(path, sizeof path, "applications[%d].kernels[%d].%s", a, k,
             kerr.path[0] ? kerr.path : hs_ktype_find(kn->type) && has_params ? "params" : "type");
    return hs_error_at(L->err, HS_EINPUT, path, "%s", kerr.msg);
}

/* Adds kernel `yk` to app a.  `cost` and `params` are its free-key
 * mappings, or NULL to read them from the tree. */
static int build_kernel(loader *L, const y_kernel *yk, const free_map *cost,
                        const free_map *params, hs_workload *w, int a)
{
    char path[128];
    double in, out, items;
    int k, rc, split, has_params;
    if ((k = hs_app_add_kernel(w, a, yk->name, L->err)) < 0)
        return k;
    if ((rc = build_free_map(L, w, a, k, "cost_us", w->platform.ndevices + 2, cost,
                             hs_kernel_set_cost)) != 0)
        return rc;
    if ((rc = to_number(L, yk->input_bytes, 0, 1, &in, "applications[%d].kernels[%d].input_bytes",
                        a, k)) != 0 ||
        (rc = to_number(L, yk->output_bytes, 0, 1, &out,
                        "applications[%d].kernels[%d].output_bytes", a, k)) != 0)
        return rc;
    if ((rc = hs_kernel_set_bytes(w, a, k, in, out, L->err)) != 0)
        return rc;
    if (yk->type && (rc = hs_kernel_set_type(w, a, k, yk->type, L->err)) != 0)
        return rc;
    if (params) {
        has_params = params->given;
    } else {
        snprintf(path, sizeof path, "applications[%d].kernels[%d].params", a, k);
        resolve(L, path, &has_params);
    }
    if ((rc = build_free_map(L, w, a, k, "params", MAX_PARAMS, params, hs_kernel_add_param)) !=
            0 ||
        (rc = check_kernel_type(L, w, a, k, has_params)) != 0)
        return rc;
    if ((rc = to_bool(L, yk->splittable, &split, "applications[%d].kernels[%d].splittable", a,
                      k)) != 0 ||
        (rc = to_number(L, yk->items, 0, 0, &items, "applications[%d].kernels[%d].items", a, k)) !=
            0)
        return rc;
    if ((yk->splittable || yk->items) &&
        (rc = hs_kernel_set_split(w, a, k, split, items, L->err)) != 0)
        return rc;
    return HS_OK;
}

/* Adds edge `ye` to app a. */
static int build_edge(loader *L, const y_edge *ye, hs_workload *w, int a)
{
    double bytes;
    int rc;
    if ((rc = to_number(L, ye->bytes, 0, 1, &bytes, "applications[%d].edges[%d].bytes", a,
                        w->apps[a].nedges)) != 0)
        return rc;
    if ((rc = hs_app_add_edge(w, a, ye->from, ye->to, bytes, L->err)) < 0 ||
        (ye->buffer && (rc = hs_edge_set_buffer(w, a, rc, ye->buffer, L->err)) != 0))
        return rc;
    return HS_OK;
}

/* Adds the applications, refusing before the builder allocates anything
 * when instances would expand the graph beyond hs_max_tasks() / hs_max_edges()
 * (as finalize would, in the same words). */
static int build_apps(loader *L, const y_top *yt, hs_workload *w)
{
    size_t tasks = 0, edges = 0, file_kernels = 0, file_edges = 0;
    char path[96];
    int rc;
    for (unsigned i = 0; i < yt->applications_count; i++) {
        const y_app *ya = &yt->applications[i];
        int instances, a;
        snprintf(path, sizeof path, "applications[%u].instances", i);
        if ((rc = to_int(L, path, ya->instances, 1, &instances)) != 0)
            return rc;
        if ((a = hs_workload_add_app(w, ya->name, instances, L->err)) < 0)
            return a;
        file_kernels += ya->kernels_count;
        file_edges += ya->edges_count;
        tasks += (size_t)instances * ya->kernels_count;
        edges += (size_t)instances * ya->edges_count;
        if (file_kernels > hs_max_tasks()) {
            snprintf(path, sizeof path, "applications[%u].kernels", i);
            return hs_error_at(L->err, HS_EINPUT, path, "more than %zu kernels in the file (the "
                               "loader's limit, which %s raises; use instances to repeat a "
                               "graph)", hs_max_tasks(), HS_MAX_TASKS_ENV);
        }
        if (file_edges > hs_max_edges()) {
            snprintf(path, sizeof path, "applications[%u].edges", i);
            return hs_error_at(L->err, HS_EINPUT, path, "more than %zu edges in the file (the "
                               "loader's limit, which %s raises; use instances to repeat a "
                               "graph)", hs_max_edges(), HS_MAX_TASKS_ENV);
        }
        if (tasks > hs_max_tasks())
            return hs_error_at(L->err, HS_EINPUT, path, "%d instances of %u kernels bring the "
                               "workload to %zu tasks, more than the limit of %zu (%s raises "
                               "it)", instances, ya->kernels_count, tasks, hs_max_tasks(),
                               HS_MAX_TASKS_ENV);
        if (edges > hs_max_edges())
            return hs_error_at(L->err, HS_EINPUT, path, "%d instances of %u edges bring the "
                               "workload to %zu edges, more than the limit of %zu (%s raises "
                               "it)", instances, ya->edges_count, edges, hs_max_edges(),
                               HS_MAX_TASKS_ENV);
        for (unsigned k = 0; k < ya->kernels_count; k++)
            if ((rc = build_kernel(L, &ya->kernels[k], NULL, NULL, w, a)) != 0)
                return rc;
        for (unsigned e = 0; e < ya->edges_count; e++)
            if ((rc = build_edge(L, &ya->edges[e], w, a)) != 0)
                return rc;
    }
    return HS_OK;
}

/* --------------------------------------------- pass 0: one streaming pass */

/* The streaming pass reads libyaml's events once, straight into the
 * builder, holding one device list, kernel or edge at a time: its memory is
 * the workload's, not the file's.  It takes a file that follows the schema
 * in the order `hetsched gen` and hs_workload_write_yaml write (the platform
 * before the applications; an application's name and instances before its
 * kernels, its kernels before its edges), with untagged values.  Anything
 * else stops it with a message at the event where it stopped; a file of at
 * most MAX_FILE_BYTES then goes through passes 1-4, which take any order and
 * word every error exactly (what they accept, this pass accepts only in the
 * same way: the same schema, the same conversions, the same builder). */

/* The JSON form (L->json) goes through the same pass: yajl's events, pulled
 * one at a time (graph/json_stream.h), become the events libyaml gives for
 * the same text (JSON is YAML's flow style): an object a mapping, an array a
 * sequence, a string a double-quoted scalar, a number, true, false and null
 * plain scalars; the stream and the document open before the first and close
 * after the last.  A JSON file is read in this pass only, so it must keep
 * the order above; its errors are located at the first byte of the value. */

/* The texts of the values being read (a kernel's, an edge's, the
 * platform's), copied out of the parser's events into blocks that are kept
 * and used again: a million-task file has some 16 million values, which
 * each a malloc and a free took more time to hold than to read.  Taken
 * like a stack: a kernel or an edge gives back, when built, all that its
 * values took (scratch_mark, scratch_release). */
typedef struct scratch_block {
    struct scratch_block *next;
    size_t cap;
    char data[];
} scratch_block;

typedef struct scratch_mark {
    scratch_block *block; /* the block in use (NULL: none yet) */
    size_t used;          /* bytes of it taken */
} scratch_mark;

#define SCRATCH_BYTES ((size_t)64 << 10)

typedef struct stream {
    loader *L;
    yaml_parser_t p;
    yaml_event_t ev; /* the current event, when have_ev */
    int have_ev;
    int again; /* the next s_next keeps the current event */
    hs_workload *w;
    size_t file_kernels, file_edges, tasks, edges;
    hs__jpull *jp;   /* the JSON form: its events, from `file` or L->data */
    FILE *file;
    int jstate;      /* events given: 0, the stream start, the document start, its end */
    scratch_block *blocks; /* the values' texts: every block, the first first */
    scratch_mark top;      /* where the next text goes */
} stream;

/* n bytes of scratch space, in the block in use or the next one that holds
 * them (a new one when none does, linked after the block in use); NULL
 * when out of memory. */
static char *scratch_take(stream *S, size_t n)
{
    scratch_block *b = S->top.block;
    char *at;
    if (!b || b->cap - S->top.used < n) {
        scratch_block **link = b ? &b->next : &S->blocks;
        while (*link && (*link)->cap < n)
            link = &(*link)->next;
        if (!*link) {
            size_t cap = n > SCRATCH_BYTES ? n : SCRATCH_BYTES;
            scratch_block *nb = malloc(sizeof *nb + cap);
            if (!nb)
                return NULL;
            *nb = (scratch_block){.cap = cap};
            *link = nb;
        }
        /* a block too small for n, passed over, stays for later texts */
        S->top = (scratch_mark){.block = *link, .used = 0};
        b = S->top.block;
    }
    at = b->data + S->top.used;
    S->top.used += n;
    return at;
}

/* A copy of the n bytes at `text` in the scratch space; NULL when out of
 * memory. */
static char *scratch_copy(stream *S, const char *text, size_t n)
{
    char *at = scratch_take(S, n);
    return at ? memcpy(at, text, n) : NULL;
}

/* Gives back every text taken since `m` (an earlier S->top). */
static void scratch_release(stream *S, scratch_mark m)
{
    S->top = m;
}

static void scratch_free(stream *S)
{
    while (S->blocks) {
        scratch_block *next = S->blocks->next;
        free(S->blocks);
        S->blocks = next;
    }
    S->top = (scratch_mark){NULL, 0};
}

static int s_fail(stream *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int s_fail(stream *S, const char *fmt, ...)
{
    va_list ap;
    long line = 0, col = 0;
    int rc;
    va_start(ap, fmt);
    if (S->have_ev && S->jp && hs__jpull_where(S->jp, &line, &col))
        rc = fail_v(S->L, HS_EINPUT, (size_t)line, (size_t)col, fmt, ap);
    else if (S->have_ev && !S->jp)
        rc = fail_v(S->L, HS_EINPUT, S->ev.start_mark.line + 1, S->ev.start_mark.column + 1,
                    fmt, ap);
    else
        rc = fail_v(S->L, HS_EINPUT, 0, 0, fmt, ap);
    va_end(ap);
    return rc;
}

/* Where the value at item path `path` (the builder's, "applications[0].
 * kernels[3].cost_us.gpu0") starts in the JSON form, found by reading the
 * text again (from the start of `file`, or L->data): 1 with *line and *col
 * set, 0 when it is not found. */
static int json_locate(loader *L, FILE *file, const char *path, long *line, long *col)
{
    enum { DEPTH = MAX_DEPTH + 2 };
    char at[sizeof ((hs_error *)0)->path + 64];
    size_t len[DEPTH + 1] = {0}, n = 0, want = strlen(path);
    long index[DEPTH];
    int is_map[DEPTH], depth = 0, found = 0, keyed = 0;
    hs__jpull *p;
    hs__jevent e;
    hs_error err = {0};
    if ((file && fseeko(file, 0, SEEK_SET) != 0) ||
        hs__jpull_open(&p, L->name, L->data, L->len, file, &err) != HS_OK)
        return 0;
    while (!found && hs__jpull_next(p, &e, &err) == HS_OK && e.type != HS__J_END) {
        if (e.type == HS__J_MAP_END || e.type == HS__J_ARRAY_END) {
            depth--;
            continue;
        }
        if (keyed) {
            keyed = 0; /* the value of the key just read, whose path `at` holds */
        } else if (depth > 0 && depth <= DEPTH) { /* its parent's path and its key or index */
            size_t base = len[depth - 1];
            int w = is_map[depth - 1] ? snprintf(at + base, sizeof at - base, "%s%s",
                                                 base ? "." : "", e.text)
                                      : snprintf(at + base, sizeof at - base, "[%ld]",
                                                 index[depth - 1]++);
            n = w >= 0 && base + (size_t)w < sizeof at ? base + (size_t)w : sizeof at;
            if ((keyed = e.type == HS__J_KEY))
                continue; /* its value is next */
        }
        found = n == want && depth <= DEPTH && memcmp(at, path, want) == 0;
        if (!found && (e.type == HS__J_MAP || e.type == HS__J_ARRAY)) {
            if (depth < DEPTH) {
                len[depth] = n;
                is_map[depth] = e.type == HS__J_MAP;
                index[depth] = 0;
            }
            depth++;
        }
    }
    found = found && hs__jpull_where(p, line, col);
    hs__jpull_close(p);
    return found;
}

/* A builder error ("PATH: WHAT") placed at the current event, or in the
 * JSON form where the value at PATH starts; `where` 0: at no event (the
 * workload's finalize). */
static int s_locate(stream *S, int rc, int where)
{
    char text[HS_ERROR_MSG_MAX];
    long line, col;
    if (rc == HS_ENOMEM)
        return fail_nomem(S->L);
    snprintf(text, sizeof text, "%s", S->L->err->msg);
    if (S->jp && S->L->err->path[0] &&
        json_locate(S->L, S->file, S->L->err->path, &line, &col))
        fail(S->L, (size_t)line, (size_t)col, "%s", text);
    else if (where)
        s_fail(S, "%s", text);
    else
        fail(S->L, 0, 0, "%s", text);
    S->L->err->code = rc;
    return rc;
}

/* The next event of the JSON form into S->ev, as libyaml gives it for the
 * same text (see above); its value lives until the next one. */
static int s_next_json(stream *S)
{
    static const yaml_event_type_t types[] = {
        [HS__J_MAP] = YAML_MAPPING_START_EVENT, [HS__J_MAP_END] = YAML_MAPPING_END_EVENT,
        [HS__J_ARRAY] = YAML_SEQUENCE_START_EVENT, [HS__J_ARRAY_END] = YAML_SEQUENCE_END_EVENT,
    };
    hs__jevent e;
    int rc;
    /* only the fields read below are set: S->ev was zeroed at the start,
     * and no anchor or tag is ever set */
    if (S->jstate < 2) { /* the stream's and the document's start, at the first byte */
        S->ev.type = S->jstate++ ? YAML_DOCUMENT_START_EVENT : YAML_STREAM_START_EVENT;
        return HS_OK;
    }
    if (S->jstate == 3) {
        S->ev.type = YAML_STREAM_END_EVENT;
        return HS_OK;
    }
    if ((rc = hs__jpull_next(S->jp, &e, S->L->err)) != HS_OK)
        return rc == HS_ENOMEM ? fail_nomem(S->L) : rc;
    if (e.type == HS__J_END) {
        S->ev.type = YAML_DOCUMENT_END_EVENT;
        S->jstate = 3;
    } else if (e.type == HS__J_MAP || e.type == HS__J_MAP_END || e.type == HS__J_ARRAY ||
               e.type == HS__J_ARRAY_END) {
        S->ev.type = types[e.type];
    } else {
        S->ev.type = YAML_SCALAR_EVENT;
        S->ev.data.scalar.value = (yaml_char_t *)(e.type == HS__J_NULL   ? "null"
                                                  : e.type != HS__J_BOOL ? e.text
                                                  : e.boolean            ? "true"
                                                                         : "false");
        S->ev.data.scalar.length = e.type == HS__J_NULL ? 4
                                   : e.type != HS__J_BOOL ? e.len
                                                          : strlen((const char *)
                                                                   S->ev.data.scalar.value);
        S->ev.data.scalar.style = e.type == HS__J_STRING || e.type == HS__J_KEY
                                      ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                      : YAML_PLAIN_SCALAR_STYLE;
    }
    return HS_OK;
}

/* Moves to the next event, refusing what the schema never holds: aliases,
 * anchors, tags and NUL characters. */
static int s_next(stream *S)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;
    int rc;
    if (S->again) {
        S->again = 0;
        return HS_OK;
    }
    if (S->have_ev && !S->jp)
        yaml_event_delete(&S->ev);
    S->have_ev = 0;
    if (S->jp && (rc = s_next_json(S)) != HS_OK)
        return rc;
    if (!S->jp && !yaml_parser_parse(&S->p, &S->ev))
        return syntax_error(S->L, &S->p);
    S->have_ev = 1;
    switch (S->ev.type) {
    case YAML_ALIAS_EVENT:
        return s_fail(S, "anchors and aliases are not supported (alias '*%.64s'); write the "
                      "value out", (const char *)S->ev.data.alias.anchor);
    case YAML_SCALAR_EVENT:
        anchor = S->ev.data.scalar.anchor;
        tag = S->ev.data.scalar.tag;
        if (memchr(S->ev.data.scalar.value, '\0', S->ev.data.scalar.length))
            return s_fail(S, "a value may not contain a NUL character");
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = S->ev.data.sequence_start.anchor;
        tag = S->ev.data.sequence_start.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = S->ev.data.mapping_start.anchor;
        tag = S->ev.data.mapping_start.tag;
        break;
    default:
        break;
    }
    if (anchor)
        return s_fail(S, "anchors and aliases are not supported (anchor '&%.64s'); write the "
                      "value out", (const char *)anchor);
    if (tag)
        return s_fail(S, "a tag ('%.64s') in a file read in one pass", (const char *)tag);
    return HS_OK;
}

static const char *event_shape(const yaml_event_t *ev)
{
    if (ev->type == YAML_MAPPING_START_EVENT)
        return "a mapping";
    if (ev->type == YAML_SEQUENCE_START_EVENT)
        return "a list";
    if (ev->type == YAML_SCALAR_EVENT)
        return ev->data.scalar.length == 0 ? "an empty value" : "a single value";
    return "nothing";
}

/* Moves to the next event, which must be of `type` (`what` names it). */
static int s_expect(stream *S, yaml_event_type_t type, const char *what)
{
    int rc = s_next(S);
    if (rc == HS_OK && S->ev.type != type)
        return s_fail(S, "expected %s, not %s", what, event_shape(&S->ev));
    return rc;
}

/* Reads a single value into *out (a copy in the scratch space).  Empty and
 * null-like plain values are left to passes 1-4. */
static int s_text(stream *S, char **out)
{
    const char *v;
    int rc = s_expect(S, YAML_SCALAR_EVENT, "a single value");
    if (rc)
        return rc;
    v = (const char *)S->ev.data.scalar.value;
    if (S->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!v[0] || strcmp(v, "~") == 0 ||
         ((v[0] == 'n' || v[0] == 'N') &&
          (strcmp(v, "null") == 0 || strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0))))
        return s_fail(S, "expected a value, not '%s'", v);
    if (!(*out = scratch_copy(S, v, S->ev.data.scalar.length + 1)))
        return fail_nomem(S->L);
    return HS_OK;
}

/* Reads the next key of a mapping whose fields `ctx` lists: *which is its
 * index there, or -1 at the end of the mapping.  `seen` has a bit per
 * field given so far.  The field after the last key (*which on entry, -1
 * at the first) is tried first: in a file that gives them in the schema's
 * order, it matches (the fields are distinct, so the order they are tried
 * in changes nothing else). */
static int s_key(stream *S, const struct context *ctx, unsigned *seen, int *which)
{
    char fields[256];
    const char *key;
    int rc = s_next(S), i = *which + 1;
    if (rc)
        return rc;
    *which = -1;
    if (S->ev.type == YAML_MAPPING_END_EVENT)
        return HS_OK;
    if (S->ev.type != YAML_SCALAR_EVENT)
        return s_fail(S, "a key must be a single value, not %s", event_shape(&S->ev));
    key = (const char *)S->ev.data.scalar.value;
    if (!ctx->fields[i].key || strcmp(ctx->fields[i].key, key) != 0)
        for (i = 0; ctx->fields[i].key && strcmp(ctx->fields[i].key, key) != 0; i++)
            ;
    if (ctx->fields[i].key) {
        if (*seen & (1u << i))
            return s_fail(S, "duplicate key '%.64s'", ctx->fields[i].key);
        *seen |= 1u << i;
        *which = i;
        return HS_OK;
    }
    list_fields(ctx->fields, fields, sizeof fields);
    return s_fail(S, "unknown field '%.64s' in %s (expected %s)",
                  (const char *)S->ev.data.scalar.value, ctx->what, fields);
}

/* Refuses a mapping that lacks a required field of `ctx`. */
static int s_required(stream *S, const struct context *ctx, unsigned seen)
{
    for (int i = 0; ctx->fields[i].key; i++)
        if (!(seen & (1u << i)) && !(ctx->fields[i].value.flags & CYAML_FLAG_OPTIONAL))
            return s_fail(S, "missing field '%s' in %s", ctx->fields[i].key, ctx->what);
    return HS_OK;
}

/* Reads a free-key mapping of numbers (cost_us, params) into m, its texts
 * copies in the scratch space. */
static int s_free_map(stream *S, free_map *m)
{
    int rc = s_expect(S, YAML_MAPPING_START_EVENT, "a mapping");
    m->given = 1;
    while (rc == HS_OK && (rc = s_next(S)) == HS_OK && S->ev.type != YAML_MAPPING_END_EVENT) {
        const char *key = (const char *)S->ev.data.scalar.value;
        if (S->ev.type != YAML_SCALAR_EVENT)
            return s_fail(S, "a key must be a single value, not %s", event_shape(&S->ev));
        if (m->n == MAX_KEYS)
            return s_fail(S, "a mapping with more than %d keys", MAX_KEYS);
        for (int i = 0; i < m->n; i++)
            if (strcmp(m->keys[i], key) == 0)
                return s_fail(S, "duplicate key '%.64s'", key);
        if (!(m->keys[m->n] = scratch_copy(S, key, S->ev.data.scalar.length + 1)))
            return fail_nomem(S->L);
        m->values[m->n] = NULL;
        m->n++;
        rc = s_text(S, (char **)&m->values[m->n - 1]);
    }
    return rc;
}

/* A kernel's name, or an edge's target, is looked up in its application's
 * index once the item's other fields are read: the index's slot is loaded
 * while they are (see hs__strmap_prefetch). */
static void s_prefetch_kernel(stream *S, const char *name)
{
    const hs_app *a = S->w->napps > 0 ? &S->w->apps[S->w->napps - 1] : NULL;
    if (a && a->kernel_index)
        hs__strmap_prefetch(a->kernel_index, name);
}

/* Reads a mapping of `ctx` into the struct at `base`: each string field a
 * copy at the offset libcyaml's schema gives, the device kind into *kind,
 * cost_us and params into maps[0] and maps[1]. */
static int s_fields(stream *S, const struct context *ctx, void *base, hs_device_kind *kind,
                    free_map *maps)
{
    unsigned seen = 0;
    int rc = s_expect(S, YAML_MAPPING_START_EVENT, "a mapping");
    int which = -1;
    while (rc == HS_OK && (rc = s_key(S, ctx, &seen, &which)) == HS_OK && which >= 0) {
        const cyaml_schema_field_t *f = &ctx->fields[which];
        if (f->value.type == CYAML_IGNORE) {
            rc = s_free_map(S, &maps[strcmp(f->key, "cost_us") == 0 ? 0 : 1]);
        } else if (f->value.type == CYAML_ENUM) {
            char *text = NULL;
            if ((rc = s_text(S, &text)) == HS_OK) {
                if (strcmp(text, "cpu") == 0 || strcmp(text, "gpu") == 0)
                    *kind = text[0] == 'c' ? HS_DEVICE_CPU : HS_DEVICE_GPU;
                else
                    rc = s_fail(S, "expected cpu or gpu, not '%.64s'", text);
            }
        } else {
            rc = s_text(S, (char **)((char *)base + f->data_offset));
            if (rc == HS_OK && ((ctx->fields == kernel_fields && which == 0) ||
                                (ctx->fields == edge_fields && which == 1)))
                s_prefetch_kernel(S, *(char **)((char *)base + f->data_offset));
        }
    }
    return rc ? rc : s_required(S, ctx, seen);
}

/* Reads a list, calling `item` for each entry (at most `max`). */
static int s_list(stream *S, size_t max, const char *what, int (*item)(stream *, void *),
                  void *ctx)
{
    size_t n = 0;
    int rc = s_expect(S, YAML_SEQUENCE_START_EVENT, "a list");
    while (rc == HS_OK) {
        /* peek: an entry starts with the next event, which item reads */
        if ((rc = s_next(S)) != HS_OK || S->ev.type == YAML_SEQUENCE_END_EVENT)
            break;
        if (++n > max)
            return s_fail(S, "more than %zu %s (the loader's limit)", max, what);
        S->again = 1;
        rc = item(S, ctx);
    }
    return rc;
}

static const struct context *context_of(const cyaml_schema_field_t *fields)
{
    for (size_t i = 0; i < sizeof contexts / sizeof *contexts; i++)
        if (contexts[i].fields == fields)
            return &contexts[i];
    return &contexts[0];
}

/* Makes room for entry n of a list read in one pass (*arr, entries of
 * `elem` bytes, zeroed), doubling at powers of two. */
static int s_grow(stream *S, void *arr, unsigned n, size_t elem)
{
    void **p = arr;
    if (n == 0 || (n & (n - 1)) == 0) {
        size_t cap = n ? 2 * (size_t)n : 1;
        char *q = realloc(*p, cap * elem);
        if (!q)
            return fail_nomem(S->L);
        memset(q + (size_t)n * elem, 0, (cap - n) * elem);
        *p = q;
    }
    return HS_OK;
}

/* The lists a device or link read in one pass goes to: the platform's, or
 * a node's (s_device's and s_link's ctx). */
typedef struct s_lists {
    y_device **devices;
    unsigned *devices_count;
    y_link **links;
    unsigned *links_count;
} s_lists;

static int s_device(stream *S, void *ctx)
{
    s_lists *l = ctx;
    y_device *yd;
    int rc = s_grow(S, l->devices, *l->devices_count, sizeof **l->devices);
    if (rc)
        return rc;
    yd = &(*l->devices)[(*l->devices_count)++];
    return s_fields(S, context_of(device_fields), yd, &yd->kind, NULL);
}

static int s_link(stream *S, void *ctx)
{
    s_lists *l = ctx;
    int rc = s_grow(S, l->links, *l->links_count, sizeof **l->links);
    if (rc)
        return rc;
    return s_fields(S, context_of(link_fields), &(*l->links)[(*l->links_count)++], NULL, NULL);
}

static int s_net_link(stream *S, void *ctx)
{
    y_platform *yp = ctx;
    int rc = s_grow(S, &yp->network, yp->network_count, sizeof *yp->network);
    if (rc)
        return rc;
    return s_fields(S, context_of(net_link_fields), &yp->network[yp->network_count++], NULL,
                    NULL);
}

static int s_node(stream *S, void *ctx)
{
    y_platform *yp = ctx;
    const struct context *c = context_of(node_fields);
    y_node *yn;
    s_lists l;
    unsigned seen = 0;
    int which = -1, rc = s_grow(S, &yp->nodes, yp->nodes_count, sizeof *yp->nodes);
    if (rc)
        return rc;
    yn = &yp->nodes[yp->nodes_count++];
    l = (s_lists){&yn->devices, &yn->devices_count, &yn->links, &yn->links_count};
    rc = s_expect(S, YAML_MAPPING_START_EVENT, "a mapping");
    while (rc == HS_OK && (rc = s_key(S, c, &seen, &which)) == HS_OK && which >= 0) {
        const char *key = c->fields[which].key;
        if (strcmp(key, "name") == 0 || strcmp(key, "host") == 0)
            rc = s_text(S, key[0] == 'n' ? &yn->name : &yn->host);
        else if (strcmp(key, "devices") == 0)
            rc = s_list(S, MAX_DEVICES, "devices", s_device, &l);
        else
            rc = s_list(S, MAX_LINKS, "links", s_link, &l);
    }
    return rc ? rc : s_required(S, c, seen);
}

/* (the texts are the stream's scratch space) */
static void free_platform(y_platform *yp)
{
    for (unsigned n = 0; n < yp->nodes_count; n++) {
        free(yp->nodes[n].devices);
        free(yp->nodes[n].links);
    }
    free(yp->devices);
    free(yp->links);
    free(yp->nodes);
    free(yp->network);
}

/* The platform, built as soon as it is read. */
static int s_platform(stream *S)
{
    const struct context *c = context_of(platform_fields);
    y_platform yp = {0};
    s_lists l = {&yp.devices, &yp.devices_count, &yp.links, &yp.links_count};
    scratch_mark m = S->top;
    unsigned seen = 0;
    int which = -1, rc = s_expect(S, YAML_MAPPING_START_EVENT, "a mapping");
    while (rc == HS_OK && (rc = s_key(S, c, &seen, &which)) == HS_OK && which >= 0) {
        const char *key = c->fields[which].key;
        if (strcmp(key, "devices") == 0)
            rc = s_list(S, MAX_DEVICES, "devices", s_device, &l);
        else if (strcmp(key, "links") == 0)
            rc = s_list(S, MAX_LINKS, "links", s_link, &l);
        else if (strcmp(key, "nodes") == 0)
            rc = s_list(S, MAX_NODES, "nodes", s_node, &yp);
        else
            rc = s_list(S, MAX_NETWORK, "network links", s_net_link, &yp);
    }
    if (rc == HS_OK && (rc = s_required(S, c, seen)) == HS_OK &&
        (rc = build_platform(S->L, &yp, S->w)) < 0)
        rc = s_locate(S, rc, 1);
    free_platform(&yp);
    scratch_release(S, m);
    return rc;
}

/* Counts a kernel or edge of app a against the loader's bounds. */
static int s_count(stream *S, int a, int is_edge)
{
    size_t instances = (size_t)S->w->apps[a].instances;
    size_t most = is_edge ? hs_max_edges() : hs_max_tasks();
    if (is_edge ? ++S->file_edges > most : ++S->file_kernels > most)
        return s_fail(S, "more than %zu %s in the file (the loader's limit, which %s raises; "
                      "use instances to repeat a graph)", most, is_edge ? "edges" : "kernels",
                      HS_MAX_TASKS_ENV);
    if (is_edge ? (S->edges += instances) > most : (S->tasks += instances) > most)
        return s_fail(S, "the workload has more than %zu %s, the limit (%s raises it)", most,
                      is_edge ? "edges" : "tasks", HS_MAX_TASKS_ENV);
    return HS_OK;
}

static int s_kernel(stream *S, void *ctx)
{
    int a = *(int *)ctx, rc;
    y_kernel yk = {0};
    free_map maps[2];
    scratch_mark m = S->top;
    maps[0].given = maps[0].n = maps[1].given = maps[1].n = 0;
    if ((rc = s_fields(S, context_of(kernel_fields), &yk, NULL, maps)) == HS_OK &&
        (rc = s_count(S, a, 0)) == HS_OK &&
        (rc = build_kernel(S->L, &yk, &maps[0], &maps[1], S->w, a)) != 0)
        rc = s_locate(S, rc, 1);
    scratch_release(S, m);
    return rc;
}

static int s_edge(stream *S, void *ctx)
{
    int a = *(int *)ctx, rc;
    y_edge ye = {0};
    scratch_mark m = S->top;
    if ((rc = s_fields(S, context_of(edge_fields), &ye, NULL, NULL)) == HS_OK &&
        (rc = s_count(S, a, 1)) == HS_OK && (rc = build_edge(S->L, &ye, S->w, a)) != 0)
        rc = s_locate(S, rc, 1);
    scratch_release(S, m);
    return rc;
}

/* An application: added at its first kernel, so its name and instances
 * must come before its kernels, and its kernels before its edges. */
static int s_app(stream *S, void *ctx)
{
    const struct context *c = context_of(app_fields);
    char path[64], *name = NULL, *instances_text = NULL;
    unsigned seen = 0;
    int which = -1, a = -1, instances;
    scratch_mark m = S->top;
    int rc = s_expect(S, YAML_MAPPING_START_EVENT, "a mapping");
    (void)ctx;
    while (rc == HS_OK && (rc = s_key(S, c, &seen, &which)) == HS_OK && which >= 0) {
        const char *key = c->fields[which].key;
        if (strcmp(key, "name") == 0 || strcmp(key, "instances") == 0) {
            if (a >= 0)
                rc = s_fail(S, "'%s' after the kernels: a file read in one pass gives an "
                            "application's name and instances first", key);
            else
                rc = s_text(S, key[0] == 'n' ? &name : &instances_text);
        } else if (strcmp(key, "edges") == 0 && a < 0) {
            rc = s_fail(S, "'edges' before 'kernels': a file read in one pass gives an "
                        "application's kernels first");
        } else if (strcmp(key, "kernels") == 0) {
            if (!name) {
                rc = s_fail(S, "'kernels' before 'name': a file read in one pass gives an "
                            "application's name first");
                break;
            }
            snprintf(path, sizeof path, "applications[%d].instances", S->w->napps);
            if ((rc = to_int(S->L, path, instances_text, 1, &instances)) != 0 ||
                (a = hs_workload_add_app(S->w, name, instances, S->L->err)) < 0) {
                rc = s_locate(S, rc ? rc : a, 1);
                break;
            }
            rc = s_list(S, MAX_APP_KERNELS, "kernels", s_kernel, &a);
        } else {
            rc = s_list(S, MAX_APP_EDGES, "edges", s_edge, &a);
        }
    }
    scratch_release(S, m);
    return rc ? rc : s_required(S, c, seen);
}

/* Pass 0: the whole load in one pass over the events (see above). */
static int stream_load(loader *L, FILE *file, hs_workload **out)
{
    stream S = {.L = L, .file = file};
    const struct context *top = context_of(top_fields);
    unsigned seen = 0;
    int rc, which = -1;
    if (!yaml_parser_initialize(&S.p))
        return fail_nomem(L);
    if (L->json && (rc = hs__jpull_open(&S.jp, L->name, L->data, L->len, file, L->err)) != 0) {
        yaml_parser_delete(&S.p);
        return rc == HS_ENOMEM ? fail_nomem(L) : rc;
    }
    if (file)
        yaml_parser_set_input_file(&S.p, file);
    else
        yaml_parser_set_input_string(&S.p, (const unsigned char *)L->data, L->len);
    if (!(S.w = hs_workload_new()))
        rc = fail_nomem(L);
    else if (L->opt)
        hs__set_providers(S.w, L->opt);
    if (S.w && (rc = s_expect(&S, YAML_STREAM_START_EVENT, "a YAML stream")) == HS_OK &&
        (rc = s_next(&S)) == HS_OK) {
        if (S.ev.type != YAML_DOCUMENT_START_EVENT)
            rc = s_fail(&S, "the file is empty (a workload is a mapping with 'platform' and "
                        "'applications')");
        else
            rc = s_expect(&S, YAML_MAPPING_START_EVENT, "a mapping with 'platform' and "
                          "'applications'");
    }
    while (S.w && rc == HS_OK && (rc = s_key(&S, top, &seen, &which)) == HS_OK && which >= 0) {
        if (which == 0)
            rc = s_platform(&S);
        else if (!(seen & 1u))
            rc = s_fail(&S, "'applications' before 'platform': a file read in one pass gives "
                        "the platform first");
        else
            rc = s_list(&S, MAX_APPS, "applications", s_app, NULL);
    }
    if (S.w && rc == HS_OK && (rc = s_required(&S, top, seen)) == HS_OK &&
        (rc = s_expect(&S, YAML_DOCUMENT_END_EVENT, "the end of the document")) == HS_OK &&
        (rc = s_next(&S)) == HS_OK && S.ev.type != YAML_STREAM_END_EVENT)
        rc = s_fail(&S, "a second YAML document; a workload is one document");
    if (rc == HS_OK && (rc = hs_workload_finalize(S.w, L->err)) != 0)
        rc = s_locate(&S, rc, 0); /* finalize's errors name an item, not a place */
    if (S.have_ev && !S.jp)
        yaml_event_delete(&S.ev);
    yaml_parser_delete(&S.p);
    hs__jpull_close(S.jp);
    scratch_free(&S);
    if (rc != HS_OK) {
        hs_workload_free(S.w);
        return rc;
    }
    *out = S.w;
    return HS_OK;
}

/* ------------------------------------------------------------- entry */

/* Passes 1-4. */
static int tree_load(loader *L, hs_workload **out)
{
    cyaml_config_t config = {
        .log_fn = cyaml_log_to_loader,
        .log_ctx = L,
        .mem_fn = cyaml_mem,
        .log_level = CYAML_LOG_ERROR,
        .flags = CYAML_CFG_NO_ALIAS,
    };
    const cyaml_schema_value_t *schema = L->platform_only ? &platform_top_schema : &top_schema;
    y_top *yt = NULL;
    hs_workload *w = NULL;
    cyaml_err_t cerr;
    int rc;
    if ((rc = scan_events(L)) != 0 || (rc = load_tree(L)) != 0)
        return rc;
    cerr = cyaml_load_data((const uint8_t *)L->data, L->len, &config, schema,
                           (cyaml_data_t **)&yt, NULL);
    if (cerr != CYAML_OK)
        return schema_error(L, cerr);
    if (!yt) /* cannot happen after load_tree; refuse rather than crash */
        return fail(L, 0, 0, "the file is empty");
    if ((w = hs_workload_new()) && L->opt)
        hs__set_providers(w, L->opt);
    if (!w) {
        rc = fail_nomem(L);
    } else if (L->platform_only) {
        if ((rc = build_platform(L, &yt->platform, w)) >= 0 && w->platform.ndevices == 0)
            rc = hs_error_at(L->err, HS_EINPUT, "platform.devices",
                             "at least one device is needed");
        if (rc < 0)
            rc = locate(L, rc);
    } else if ((rc = build_platform(L, &yt->platform, w)) < 0 ||
               (rc = build_apps(L, yt, w)) < 0 || (rc = hs_workload_finalize(w, L->err)) < 0) {
        rc = locate(L, rc);
    }
    cyaml_free(&config, schema, yt, 0);
    if (rc < 0) {
        hs_workload_free(w);
        return rc;
    }
    *out = w;
    return HS_OK;
}

/* The size cap in bytes: HETSCHED_YAML_MAX_MIB, else DEFAULT_MAX_MIB. */
static int max_bytes(hs_error *err, const char *name, size_t *out)
{
    unsigned long long mib = DEFAULT_MAX_MIB;
    if (hs__env_whole(MAX_MIB_ENV, MAX_MIB_LIMIT, &mib) < 0)
        return hs_error_set(err, HS_EINPUT, "%s: error: %s must be a whole number of MiB from 1 "
                            "to %d, not '%.64s'", name, MAX_MIB_ENV, MAX_MIB_LIMIT,
                            getenv(MAX_MIB_ENV));
    *out = (size_t)(mib << 20);
    return HS_OK;
}

static int too_large(hs_error *err, const char *name, size_t cap)
{
    return hs_error_set(err, HS_EINPUT, "%s: error: the file is larger than %zu MiB (the "
                        "environment variable %s raises the limit)", name, cap >> 20,
                        MAX_MIB_ENV);
}

/* Pass 0, then passes 1-4 where pass 0 fails on a file they can take.
 * `file`, when not NULL, is read in one pass and L->data is NULL. */
static int load(loader *L, FILE *file, hs_workload **out)
{
    size_t cap;
    int rc;
    if ((rc = max_bytes(L->err, L->name, &cap)) != 0)
        return rc;
    if (L->len > cap)
        return too_large(L->err, L->name, cap);
    if (L->way != HS__LOAD_TREE && !L->platform_only) { /* a platform file: as a tree */
        rc = stream_load(L, file, out);
        if (rc == HS_OK || rc == HS_ENOMEM || file || L->len > MAX_FILE_BYTES ||
            L->way == HS__LOAD_STREAM || L->json)
            return rc;
    }
    *L->err = (hs_error){0};
    return tree_load(L, out);
}

/* Messages are one line: names and values quoted from the input may hold
 * newlines or other control characters (C1 ones too, U+0080 to U+009F,
 * which some terminals obey); write those as C escapes.  A message cut to
 * fit ends on a character boundary. */
static void one_line(hs_error *err)
{
    char out[sizeof err->msg];
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)err->msg; *c && n + 7 < sizeof out;
         c++) {
        if (*c == '\n' || *c == '\t' || *c == '\r') {
            out[n++] = '\\';
            out[n++] = *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r';
        } else if (*c < 0x20 || *c == 0x7f) {
            n += (size_t)snprintf(out + n, sizeof out - n, "\\x%02x", *c);
        } else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
            n += (size_t)snprintf(out + n, sizeof out - n, "\\u%04x", c[1]);
            c++;
        } else {
            out[n++] = (char)*c;
        }
    }
    out[n] = '\0';
    hs__utf8_cut(out);
    memcpy(err->msg, out, strlen(out) + 1);
}

/* Loads `len` bytes at `data`, or a file of `len` bytes from `file`. */
static int load_named(const char *name, const char *data, FILE *file, size_t len,
                      const hs_load_options *opt, hs__load_way way, int platform_only,
                      hs_workload **out, hs_error *err)
{
    hs_error local = {0};
    loader L = {.name = name ? name : "<buffer>", .data = data, .len = len, .err = &local,
                .opt = opt, .way = way, .platform_only = platform_only,
                .json = way == HS__LOAD_JSON};
    int rc;
    if (out)
        *out = NULL;
    if (!out || (!data && !file && len > 0)) {
        rc = hs_error_set(&local, HS_EUSAGE, "hs_workload_load_buffer: no data or no output");
    } else {
        if (!data && !file)
            L.data = "";
        rc = load(&L, file, out);
    }
    if (L.have_doc)
        yaml_document_delete(&L.doc);
    one_line(&local);
    if (err) {
        *err = local;
        if (rc == HS_OK)
            *err = (hs_error){0};
    }
    return rc;
}

int hs__yaml_load(const char *name, const char *data, size_t len, const hs_load_options *opt,
                  int json, int platform_only, hs_workload **out, hs_error *err)
{
    return load_named(name, data, NULL, len, opt, json ? HS__LOAD_JSON : HS__LOAD_BOTH,
                      platform_only, out, err);
}

int hs_workload_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err)
{
    return hs_workload_load_buffer_opts(name, data, len, NULL, out, err);
}

int hs__workload_load_buffer_way(const char *name, const char *data, size_t len,
                                 hs__load_way way, hs_workload **out, hs_error *err)
{
    return load_named(name, data, NULL, len, NULL, way, 0, out, err);
}

int hs_platform_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err)
{
    return hs__yaml_load(name, data, len, NULL, 0, 1, out, err);
}

/* Reads all of the open file `f` into *out (*out_len bytes): at most
 * max + 1 bytes, so that a larger input, or an endless pipe, is found
 * without reading it all (the caller refuses *out_len > max). */
static int read_all(FILE *f, const char *path, size_t max, char **out, size_t *out_len,
                    hs_error *err)
{
    char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        size_t n;
        if (len == cap) {
            char *p;
            cap = cap ? 2 * cap : 65536;
            if (cap > max + 1)
                cap = max + 1;
            if (len == cap || !(p = realloc(data, cap)))
                break;
            data = p;
        }
        n = fread(data + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(data);
        return hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(e));
    }
    if (!feof(f) && len <= max) { /* realloc failed */
        free(data);
        return hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    *out = data;
    *out_len = len;
    return HS_OK;
}

int hs__read_file(const char *path, char **out, size_t *out_len, hs_error *err)
{
    FILE *f;
    int rc;
    *out = NULL;
    *out_len = 0;
    if (!(f = fopen(path, "rb")))
        return hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    rc = read_all(f, path, MAX_FILE_BYTES, out, out_len, err);
    fclose(f);
    if (rc == HS_OK && *out_len > MAX_FILE_BYTES) {
        free(*out);
        *out = NULL;
        return hs_error_set(err, HS_EINPUT, "%s: error: the file is larger than %u MiB", path,
                            MAX_FILE_BYTES >> 20);
    }
    return rc;
}

int hs_workload_load_file(const char *path, hs_workload **out, hs_error *err)
{
    return hs_workload_load_file_opts(path, NULL, out, err);
}

/* Reads a workload from `path` (in YAML, or in the JSON form with way
 * HS__LOAD_JSON): a file over MAX_FILE_BYTES in one pass, never held whole;
 * a smaller one, or a pipe, whole (up to the cap of max_bytes, which holds
 * for both forms). */
static int load_workload_path(const char *path, const hs_load_options *opt, hs__load_way way,
                              hs_workload **out, hs_error *err)
{
    FILE *f;
    char *data = NULL;
    size_t len = 0, max;
    struct stat st;
    int rc;
    if ((rc = hs__yaml_options_check(path, opt, err)) != HS_OK ||
        (rc = max_bytes(err, path, &max)) != HS_OK)
        return rc;
    if (!(f = fopen(path, "rb")))
        return hs_error_set(err, HS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        st.st_size = 0; /* a pipe or device: read below, up to the cap */
    if ((size_t)st.st_size > max) {
        fclose(f);
        return too_large(err, path, max);
    }
    if (st.st_size > MAX_FILE_BYTES) {
        rc = load_named(path, NULL, f, (size_t)st.st_size, opt, way, 0, out, err);
        fclose(f);
        return rc;
    }
    rc = read_all(f, path, max, &data, &len, err);
    fclose(f);
    if (rc == HS_OK)
        rc = load_named(path, data ? data : "", NULL, len, opt, way, 0, out, err);
    free(data);
    return rc;
}

/* Reads `path` with the YAML loader (platform_only, or a YAML workload) or
 * the reader of its format; the workload remembers its path. */
static int load_path(const char *path, const hs_load_options *opt, int platform_only,
                     hs_workload **out, hs_error *err)
{
    const char *format;
    char *data;
    size_t len;
    int rc;
    if (out)
        *out = NULL;
    if (!path || !out)
        return hs_error_set(err, HS_EUSAGE, "hs_workload_load_file: no path or no output");
    format = opt && opt->format ? opt->format : hs_workload_format_of(path);
    if (!platform_only && (!format || strcmp(format, "yaml") == 0 ||
                           strcmp(format, "json") == 0)) {
        rc = load_workload_path(path, opt,
                                format && format[0] == 'j' ? HS__LOAD_JSON : HS__LOAD_BOTH, out,
                                err);
    } else {
        if ((rc = hs__read_file(path, &data, &len, err)) != HS_OK)
            return rc;
        if (platform_only)
            rc = hs__yaml_load(path, data ? data : "", len, NULL, 0, 1, out, err);
        else
            rc = hs_workload_load_buffer_opts(path, data ? data : "", len, opt, out, err);
        free(data);
    }
    if (rc == HS_OK && !((*out)->path = strdup(path))) {
        hs_workload_free(*out);
        *out = NULL;
        rc = hs_error_set(err, HS_ENOMEM, "%s: out of memory", path);
    }
    return rc;
}

int hs_workload_load_file_opts(const char *path, const hs_load_options *opt, hs_workload **out,
                               hs_error *err)
{
    return load_path(path, opt, 0, out, err);
}

int hs_platform_load_file(const char *path, hs_workload **out, hs_error *err)
{
    return load_path(path, NULL, 1, out, err);
}
