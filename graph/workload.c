/* hetsched — building, checking and flattening a workload
 * (include/hetsched/graph.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hetsched/graph.h"
#include "graph/binding.h"
#include "graph/numfmt.h"
#include "graph/schedule_int.h"
#include "graph/transfer.h"
#include "graph/strmap.h"
#include "graph/utf8.h"

/* Makes room for element `n` of *arr, doubling at powers of two so that n
 * appends cost O(n) in all. */
static int grow(void **arr, size_t n, size_t elem)
{
    if (n == 0 || (n & (n - 1)) == 0) {
        void *p = realloc(*arr, (n ? 2 * n : 1) * elem);
        if (!p)
            return -1;
        *arr = p;
    }
    return 0;
}
#define GROW(arr, n) grow((void **)&(arr), (size_t)(n), sizeof *(arr))

/* The same for a list that keeps its capacity (*cap entries), which
 * finalize trims (trim_list): an application's kernels and edges, a
 * million of each, and each kernel's costs, a few each (room for 4 at
 * first: one allocation, where 1, 2 and 4 took three, for each of a
 * million kernels). */
static int grow_list(void **arr, int n, int *cap, size_t elem)
{
    if (n == *cap) {
        int grown = n ? 2 * n : 4;
        void *p = realloc(*arr, (size_t)grown * elem);
        if (!p)
            return -1;
        *arr = p;
        *cap = grown;
    }
    return 0;
}

static void trim_list(void **arr, int n, int *cap, size_t elem)
{
    void *p;
    if (n > 0 && n < *cap && (p = realloc(*arr, (size_t)n * elem)) != NULL) {
        *arr = p;
        *cap = n;
    }
}
#define GROW_LIST(arr, n, cap) grow_list((void **)&(arr), n, &(cap), sizeof *(arr))
#define TRIM_LIST(arr, n, cap) trim_list((void **)&(arr), n, &(cap), sizeof *(arr))

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

static int bad_number(double x)
{
    return !isfinite(x) || x < 0;
}

/* Checks a number given at the path `fmt` formats: finite and >= 0, then
 * at most `max` (`unit` says in what, for the message, which quotes x with
 * the digits that tell it from max).  The path is formatted only for a
 * message: a million-task workload checks some ten million numbers. */
static int check_number(double x, double max, const char *unit, hs_error *err, const char *fmt,
                        ...) __attribute__((format(printf, 5, 6)));

static int check_number(double x, double max, const char *unit, hs_error *err, const char *fmt,
                        ...)
{
    char text[32], path[256];
    va_list ap;
    if (!bad_number(x) && x <= max)
        return HS_OK;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    if (bad_number(x))
        return hs_error_at(err, HS_EINPUT, path, "must be a finite number >= 0, not %g", x);
    if (x <= max)
        return HS_OK;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof text, "%.*g", prec, x);
        if (strtod(text, NULL) == x)
            break;
    }
    return hs_error_at(err, HS_EINPUT, path, "must be at most %g %s, not %s", max, unit, text);
}

const char *hs_device_kind_name(hs_device_kind kind)
{
    return kind == HS_DEVICE_GPU ? "gpu" : "cpu";
}

/* ---------------------------------------------------------------- platform */

int hs_platform_find_device(const hs_platform *p, const char *name)
{
    size_t idx;
    if (p->device_index)
        return hs__strmap_get(p->device_index, name, &idx) ? (int)idx : -1;
    for (int d = 0; d < p->ndevices; d++)
        if (strcmp(p->devices[d].name, name) == 0)
            return d;
    return -1;
}

int hs_platform_find_memory(const hs_platform *p, const char *name)
{
    for (int m = 0; m < p->nmemories; m++)
        if (strcmp(p->memories[m], name) == 0)
            return m;
    return -1;
}

int hs_platform_find_node(const hs_platform *p, const char *name)
{
    for (int n = 0; n < p->nnodes; n++)
        if (strcmp(p->nodes[n].name, name) == 0)
            return n;
    return -1;
}

double hs_transfer_us(const hs_platform *p, int from_memory, int to_memory, double bytes)
{
    return hs__transfer_us(p, from_memory, to_memory, bytes);
}

/* Adds a memory space (or finds it); returns its index or -1. */
static int add_memory(hs_platform *p, const char *name)
{
    int m = hs_platform_find_memory(p, name);
    hs_link *links;
    char *copy;
    int n;
    if (m >= 0)
        return m;
    n = p->nmemories + 1;
    links = calloc((size_t)n * (size_t)n, sizeof *links);
    copy = strdup(name);
    if (!links || !copy || GROW(p->memories, p->nmemories) != 0 ||
        GROW(p->memory_node, p->nmemories) != 0) {
        free(links);
        free(copy);
        return -1;
    }
    for (int i = 0; i < p->nmemories; i++)
        for (int j = 0; j < p->nmemories; j++)
            links[i * n + j] = p->links[i * p->nmemories + j];
    free(p->links);
    p->links = links;
    p->memories[p->nmemories] = copy;
    p->memory_node[p->nmemories] = p->nnodes > 0 ? p->nnodes - 1 : 0;
    return p->nmemories++;
}

hs_workload *hs_workload_new(void)
{
    hs_workload *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    if (add_memory(&w->platform, "host") != HS_HOST_MEMORY) {
        hs_workload_free(w);
        return NULL;
    }
    return w;
}

static void edge_set_free(struct hs__edge_set *s);

/* (the name is the kernel index's) */
static void free_kernel(hs_kernel *k)
{
    free(k->type);
    for (int i = 0; i < k->nparams; i++)
        free(k->params[i].name);
    free(k->params);
    free(k->costs);
    free(k->cost_us);
}

void hs_workload_free(hs_workload *w)
{
    if (!w)
        return;
    for (int d = 0; d < w->platform.ndevices; d++)
        free(w->platform.devices[d].name);
    free(w->platform.devices);
    hs__strmap_free(w->platform.device_index);
    for (int m = 0; m < w->platform.nmemories; m++)
        free(w->platform.memories[m]);
    free(w->platform.memories);
    free(w->platform.links);
    free(w->platform.memory_node);
    for (int n = 0; n < w->platform.nnodes; n++)
        free(w->platform.nodes[n].name);
    free(w->platform.nodes);
    free(w->platform.network);
    for (int a = 0; a < w->napps; a++) {
        hs_app *app = &w->apps[a];
        for (int k = 0; k < app->nkernels; k++)
            free_kernel(&app->kernels[k]);
        free(app->kernels);
        for (int e = 0; e < app->nedges; e++)
            free(app->edges[e].buffer);
        free(app->edges);
        free(app->name);
        hs__strmap_free(app->kernel_index);
        edge_set_free(app->edge_set);
        free(app->edge_off);
        free(app->edge_by_from);
    }
    free(w->apps);
    hs_graph_free(&w->graph);
    hs__strmap_free(w->ids);
    hs__strmap_free(w->cost_keys);
    free(w->path);
    free(w);
}

/* A name: 1 to HS_NAME_MAX bytes of valid UTF-8 without control
 * characters (C0, DEL, C1: they would reach terminals, labels and JSON) and
 * without what delimits task ids ('#', '/', '[', ']') or quotes them ('"'). */
static int name_error(const char *name, const char *path, hs_error *err);

/* Checks a name given at the path `fmt` formats (only for a message). */
static int check_name(const char *name, hs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int check_name(const char *name, hs_error *err, const char *fmt, ...)
{
    char path[256];
    va_list ap;
    if (name_error(name, NULL, NULL) == HS_OK)
        return HS_OK;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return name_error(name, path, err);
}

/* What is wrong with a name, as the message for `path` (err NULL: only
 * whether something is). */
static int name_error(const char *name, const char *path, hs_error *err)
{
    size_t n;
    if (!name || !*name)
        return hs_error_at(err, HS_EINPUT, path, "a name must not be empty");
    n = strlen(name);
    if (n > HS_NAME_MAX)
        return hs_error_at(err, HS_EINPUT, path, "a name is at most %d bytes long, not %zu",
                           HS_NAME_MAX, n);
    for (size_t i = 0, len; i < n; i += len) {
        unsigned cp;
        if ((len = hs__utf8_char(name + i, n - i, &cp)) == 0)
            return hs_error_at(err, HS_EINPUT, path, "a name must be valid UTF-8 (byte %zu, "
                               "0x%02x, starts no character)", i + 1, (unsigned char)name[i]);
        if (cp == '#' || cp == '/' || cp == '[' || cp == ']' || cp == '"' || cp < 0x20 ||
            (cp >= 0x7f && cp < 0xa0))
            return hs_error_at(err, HS_EINPUT, path,
                               "'%s' may not contain '#', '/', '[', ']', '\"' or control "
                               "characters (they delimit task ids)",
                               name);
    }
    return HS_OK;
}

/* The item path of entry `index` of `list` (devices, links) of the
 * platform being built, with `field` appended (NULL: none): on a cluster,
 * of the last node added, where the entry belongs. */
static void platform_path(const hs_platform *p, const char *list, int index, const char *field,
                          char *buf, size_t size)
{
    int n = snprintf(buf, size, "platform.");
    if (p->nnodes > 0)
        n += snprintf(buf + n, size - (size_t)n, "nodes[%d].", p->nnodes - 1);
    snprintf(buf + n, size - (size_t)n, "%s[%d]%s%s", list, index, field ? "." : "",
             field ? field : "");
}

/* On a cluster, memory m, which a device or link of the node being
 * built names, must be that node's. */
static int check_own_memory(const hs_platform *p, int m, const char *path, hs_error *err)
{
    int node = p->nnodes - 1;
    if (p->nnodes == 0 || p->memory_node[m] == node)
        return HS_OK;
    return hs_error_at(err, HS_EINPUT, path, "memory '%s' belongs to node '%s', not to '%s' (a "
                       "node's devices and links name its own memories; platform.network "
                       "joins nodes)",
                       p->memories[m], p->nodes[p->memory_node[m]].name, p->nodes[node].name);
}

/* Builds p->device_index from p's devices (a program that removed devices
 * dropped it).  0, or -1 when out of memory. */
static int index_devices(hs_platform *p)
{
    if (!(p->device_index = hs__strmap_new(16)))
        return -1;
    for (int d = 0; d < p->ndevices; d++)
        if (hs__strmap_put(p->device_index, p->devices[d].name, (size_t)d) < 0) {
            hs__strmap_free(p->device_index);
            p->device_index = NULL;
            return -1;
        }
    return 0;
}

int hs_platform_set_overhead(hs_workload *w, int d, double overhead_us, hs_error *err)
{
    const hs_platform *p = &w->platform;
    char path[96];
    int index = d;
    if (d < 0 || d >= w->platform.ndevices)
        return hs_error_set(err, HS_EINPUT, "no device %d", d);
    for (int e = 0; p->nnodes > 0 && e < d; e++) /* counted within its node */
        index -= p->devices[e].node != p->devices[d].node;
    if (p->nnodes > 0)
        snprintf(path, sizeof path, "platform.nodes[%d].devices[%d].overhead_us",
                 p->devices[d].node, index);
    else
        snprintf(path, sizeof path, "platform.devices[%d].overhead_us", d);
    if (bad_number(overhead_us) || overhead_us > HS_MAX_US)
        return hs_error_at(err, HS_EINPUT, path, "must be a number from 0 to %g us, not %g",
                           HS_MAX_US, overhead_us);
    w->platform.devices[d].overhead_us = overhead_us;
    return HS_OK;
}

int hs_platform_add_device(hs_workload *w, const char *name, hs_device_kind kind,
                           const char *memory, int cores, hs_error *err)
{
    hs_platform *p = &w->platform;
    char path[96];
    int m, rc, index = p->ndevices, node = p->nnodes > 0 ? p->nnodes - 1 : 0;
    for (int d = 0; p->nnodes > 0 && d < p->ndevices; d++)
        index -= p->devices[d].node != node;
    platform_path(p, "devices", index, "name", path, sizeof path);
    if ((rc = check_name(name, err, "%s", path)) != 0)
        return rc;
    if (hs_platform_find_device(p, name) >= 0)
        return hs_error_at(err, HS_EINPUT, path, "duplicate device name '%s'", name);
    if (strcmp(name, "cpu") == 0 || strcmp(name, "gpu") == 0 || strcmp(name, "host") == 0)
        return hs_error_at(err, HS_EINPUT, path,
                           "'%s' is reserved (a device kind or the host memory)", name);
    if (p->ndevices == HS_MAX_DEVICES)
        return hs_error_at(err, HS_EINPUT, path, "a platform has at most %d devices",
                           HS_MAX_DEVICES);
    if (cores < 0 || cores > HS_MAX_CORES) {
        platform_path(p, "devices", index, "cores", path, sizeof path);
        return hs_error_at(err, HS_EINPUT, path, "must be a whole number from 0 to %d, not %d",
                           HS_MAX_CORES, cores);
    }
    platform_path(p, "devices", index, "memory", path, sizeof path);
    if ((rc = check_name(memory, err, "%s", path)) != 0)
        return rc;
    if ((m = hs_platform_find_memory(p, memory)) >= 0 &&
        (rc = check_own_memory(p, m, path, err)) != 0)
        return rc;
    if ((!p->device_index && index_devices(p) != 0) || GROW(p->devices, p->ndevices) != 0 ||
        (m = add_memory(p, memory)) < 0)
        return nomem(err);
    p->devices[p->ndevices] = (hs_device){.name = strdup(name), .kind = kind, .memory = m,
                                          .cores = cores, .node = node};
    if (!p->devices[p->ndevices].name ||
        hs__strmap_put(p->device_index, name, (size_t)p->ndevices) < 0) {
        free(p->devices[p->ndevices].name);
        return nomem(err);
    }
    return p->ndevices++;
}

/* A link's or network link's bandwidth and latency, at `path` + field. */
static int check_link_figures(double bandwidth_gbps, double latency_us, const char *at,
                              hs_error *err)
{
    char path[128];
    int rc;
    snprintf(path, sizeof path, "%s.bandwidth_gbps", at);
    if (bad_number(bandwidth_gbps) || bandwidth_gbps == 0)
        return hs_error_at(err, HS_EINPUT, path, "must be a finite number > 0, not %g",
                           bandwidth_gbps);
    if (bandwidth_gbps < HS_MIN_BANDWIDTH_GBPS)
        return hs_error_at(err, HS_EINPUT, path, "must be at least %g GB/s, not %g",
                           HS_MIN_BANDWIDTH_GBPS, bandwidth_gbps);
    if ((rc = check_number(bandwidth_gbps, HS_MAX_BANDWIDTH_GBPS, "GB/s", err, "%s", path)) != 0)
        return rc;
    snprintf(path, sizeof path, "%s.latency_us", at);
    return check_number(latency_us, HS_MAX_US, "us", err, "%s", path);
}

int hs_platform_add_link(hs_workload *w, const char *from, const char *to,
                         double bandwidth_gbps, double latency_us, hs_error *err)
{
    hs_platform *p = &w->platform;
    int nlinks = p->nlinks - (p->nnodes > 0 ? p->nodes[p->nnodes - 1].first_link : 0), q, r, rc;
    char path[96];
    platform_path(p, "links", nlinks, "from", path, sizeof path);
    if ((q = hs_platform_find_memory(p, from)) < 0)
        return hs_error_at(err, HS_EINPUT, path,
                           "no memory '%s' (memories are 'host' and those the devices name)",
                           from);
    if ((rc = check_own_memory(p, q, path, err)) != 0)
        return rc;
    platform_path(p, "links", nlinks, "to", path, sizeof path);
    if ((r = hs_platform_find_memory(p, to)) < 0)
        return hs_error_at(err, HS_EINPUT, path,
                           "no memory '%s' (memories are 'host' and those the devices name)",
                           to);
    if ((rc = check_own_memory(p, r, path, err)) != 0)
        return rc;
    if (q == r)
        return hs_error_at(err, HS_EINPUT, path, "a link joins two different memories, not "
                           "'%s' to itself", to);
    platform_path(p, "links", nlinks, NULL, path, sizeof path);
    if (p->links[q * p->nmemories + r].present)
        return hs_error_at(err, HS_EINPUT, path, "duplicate link from '%s' to '%s'", from, to);
    if ((rc = check_link_figures(bandwidth_gbps, latency_us, path, err)) != 0)
        return rc;
    p->links[q * p->nmemories + r] =
        (hs_link){.present = 1, .bandwidth_gbps = bandwidth_gbps, .latency_us = latency_us};
    p->nlinks++;
    return nlinks;
}

int hs_platform_add_node(hs_workload *w, const char *name, const char *host, hs_error *err)
{
    hs_platform *p = &w->platform;
    int n = p->nnodes, m, rc;
    hs_net_link *network;
    char path[64];
    snprintf(path, sizeof path, "platform.nodes[%d].name", n);
    if ((rc = check_name(name, err, "%s", path)) != 0)
        return rc;
    if (n == 0 && p->ndevices > 0)
        return hs_error_at(err, HS_EINPUT, "platform.nodes", "a platform lists either devices "
                           "or nodes (with their devices), not both");
    if (hs_platform_find_node(p, name) >= 0)
        return hs_error_at(err, HS_EINPUT, path, "duplicate node name '%s'", name);
    if (n == HS_MAX_NODES)
        return hs_error_at(err, HS_EINPUT, path, "a platform has at most %d nodes",
                           HS_MAX_NODES);
    snprintf(path, sizeof path, "platform.nodes[%d].host", n);
    if (n == 0 && host && strcmp(host, "host") != 0)
        return hs_error_at(err, HS_EINPUT, path, "the first node's host memory is 'host' (the "
                           "applications' input_bytes start there and their output_bytes go "
                           "back there), not '%s'", host);
    if (n > 0 && !host) {
        snprintf(path, sizeof path, "platform.nodes[%d]", n);
        return hs_error_at(err, HS_EINPUT, path, "missing field 'host': a node after the first "
                           "names its host memory");
    }
    if (n > 0 && (rc = check_name(host, err, "%s", path)) != 0)
        return rc;
    if (n > 0 && (m = hs_platform_find_memory(p, host)) >= 0)
        return hs_error_at(err, HS_EINPUT, path, "memory '%s' belongs to node '%s' (each node "
                           "has a host memory of its own)", host,
                           p->nodes[p->memory_node[m]].name);
    network = calloc((size_t)(n + 1) * (size_t)(n + 1), sizeof *network);
    if (!network || GROW(p->nodes, p->nnodes) != 0) {
        free(network);
        return nomem(err);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            network[i * (n + 1) + j] = p->network[i * n + j];
    free(p->network);
    p->network = network;
    if (!(p->nodes[n].name = strdup(name)))
        return nomem(err);
    p->nodes[n].first_link = p->nlinks;
    p->nnodes++;
    if ((m = n == 0 ? HS_HOST_MEMORY : add_memory(p, host)) < 0) {
        free(p->nodes[--p->nnodes].name);
        return nomem(err);
    }
    p->nodes[n].host = m;
    return n;
}

int hs_platform_add_network_link(hs_workload *w, const char *from, const char *to,
                                 double bandwidth_gbps, double latency_us, int gpu_direct,
                                 hs_error *err)
{
    hs_platform *p = &w->platform;
    int nlinks = p->nnetwork, a, b, rc;
    char path[64];
    snprintf(path, sizeof path, "platform.network[%d].from", nlinks);
    if ((a = hs_platform_find_node(p, from)) < 0)
        return hs_error_at(err, HS_EINPUT, path, "no node '%s' in platform.nodes", from);
    snprintf(path, sizeof path, "platform.network[%d].to", nlinks);
    if ((b = hs_platform_find_node(p, to)) < 0)
        return hs_error_at(err, HS_EINPUT, path, "no node '%s' in platform.nodes", to);
    if (a == b)
        return hs_error_at(err, HS_EINPUT, path, "a network link joins two different nodes, "
                           "not '%s' to itself", to);
    snprintf(path, sizeof path, "platform.network[%d]", nlinks);
    if (p->network[a * p->nnodes + b].present)
        return hs_error_at(err, HS_EINPUT, path, "duplicate network link from '%s' to '%s'",
                           from, to);
    if ((rc = check_link_figures(bandwidth_gbps, latency_us, path, err)) != 0)
        return rc;
    p->network[a * p->nnodes + b] =
        (hs_net_link){.present = 1, .gpu_direct = gpu_direct != 0,
                      .bandwidth_gbps = bandwidth_gbps, .latency_us = latency_us};
    return p->nnetwork++;
}

/* Adds hop q -> r (nothing when q == r) of a route to *latency_us and
 * *inverse_bw (sum of 1 / bandwidth); 0 when the node has no such link. */
static int add_hop(const hs_platform *p, int q, int r, double *latency_us, double *inverse_bw)
{
    const hs_link *l = &p->links[q * p->nmemories + r];
    if (q == r)
        return 1;
    if (!l->present || l->route)
        return 0;
    *latency_us += l->latency_us;
    *inverse_bw += 1.0 / l->bandwidth_gbps;
    return 1;
}

void hs_platform_route(hs_platform *p)
{
    int nm = p->nmemories;
    for (int i = 0; i < nm * nm; i++)
        if (p->links[i].route)
            p->links[i] = (hs_link){0};
    for (int q = 0; q < nm && p->nnodes > 1; q++)
        for (int r = 0; r < nm; r++) {
            int a = p->memory_node[q], b = p->memory_node[r];
            const hs_net_link *n = &p->network[a * p->nnodes + b];
            double latency, inverse;
            if (a == b || !n->present)
                continue;
            latency = n->latency_us;
            inverse = 1.0 / n->bandwidth_gbps;
            if (!n->gpu_direct && (!add_hop(p, q, p->nodes[a].host, &latency, &inverse) ||
                                   !add_hop(p, p->nodes[b].host, r, &latency, &inverse)))
                continue;
            p->links[q * nm + r] = (hs_link){.present = 1, .route = 1,
                                             .bandwidth_gbps = 1.0 / inverse,
                                             .latency_us = latency};
        }
}

int hs_platform_copy(hs_workload *w, const hs_platform *p, hs_error *err)
{
    int rc;
    for (int n = 0, d = 0; n < (p->nnodes ? p->nnodes : 1); n++) {
        if (p->nnodes > 0 && (rc = hs_platform_add_node(w, p->nodes[n].name,
                                                         p->memories[p->nodes[n].host],
                                                         err)) < 0)
            return rc;
        for (; d < p->ndevices && p->devices[d].node == n; d++)
            if ((rc = hs_platform_add_device(w, p->devices[d].name, p->devices[d].kind,
                                             p->memories[p->devices[d].memory],
                                             p->devices[d].cores, err)) < 0 ||
                (rc = hs_platform_set_overhead(w, d, p->devices[d].overhead_us, err)) != 0)
                return rc;
        for (int q = 0; q < p->nmemories; q++)
            for (int r = 0; r < p->nmemories; r++) {
                const hs_link *l = &p->links[q * p->nmemories + r];
                if (l->present && !l->route && p->memory_node[q] == n &&
                    (rc = hs_platform_add_link(w, p->memories[q], p->memories[r],
                                               l->bandwidth_gbps, l->latency_us, err)) < 0)
                    return rc;
            }
    }
    for (int a = 0; a < p->nnodes; a++)
        for (int b = 0; b < p->nnodes; b++) {
            const hs_net_link *n = &p->network[a * p->nnodes + b];
            if (n->present && (rc = hs_platform_add_network_link(
                                   w, p->nodes[a].name, p->nodes[b].name, n->bandwidth_gbps,
                                   n->latency_us, n->gpu_direct, err)) < 0)
                return rc;
        }
    hs_platform_route(&w->platform);
    return HS_OK;
}

/* ------------------------------------------------------------ applications */

static hs_app *app_at(hs_workload *w, int app)
{
    return app >= 0 && app < w->napps ? &w->apps[app] : NULL;
}

static hs_kernel *kernel_at(hs_workload *w, int app, int kernel)
{
    hs_app *a = app_at(w, app);
    return a && kernel >= 0 && kernel < a->nkernels ? &a->kernels[kernel] : NULL;
}

static int find_app(const hs_workload *w, const char *name)
{
    for (int a = 0; a < w->napps; a++)
        if (strcmp(w->apps[a].name, name) == 0)
            return a;
    return -1;
}

/* Kernels are found through a->kernel_index (names as keys), edges through
 * a->edge_set (their kernels' indices) until finalize. */
static int find_kernel(const hs_app *a, const char *name)
{
    size_t idx;
    if (a->kernel_index)
        return hs__strmap_get(a->kernel_index, name, &idx) ? (int)idx : -1;
    for (int k = 0; k < a->nkernels; k++)
        if (strcmp(a->kernels[k].name, name) == 0)
            return k;
    return -1;
}

int hs_workload_add_app(hs_workload *w, const char *name, int instances, hs_error *err)
{
    char path[64];
    int rc;
    if (w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is already finalized");
    if ((rc = check_name(name, err, "applications[%d].name", w->napps)) != 0)
        return rc;
    snprintf(path, sizeof path, "applications[%d].name", w->napps);
    if (find_app(w, name) >= 0)
        return hs_error_at(err, HS_EINPUT, path, "duplicate application name '%s'", name);
    if (instances < 1) {
        snprintf(path, sizeof path, "applications[%d].instances", w->napps);
        return hs_error_at(err, HS_EINPUT, path, "must be a whole number >= 1, not %d",
                           instances);
    }
    if (GROW(w->apps, w->napps) != 0)
        return nomem(err);
    w->apps[w->napps] = (hs_app){.name = strdup(name), .instances = instances};
    if (!w->apps[w->napps].name)
        return nomem(err);
    return w->napps++;
}

int hs_app_add_kernel(hs_workload *w, int app, const char *name, hs_error *err)
{
    hs_app *a = app_at(w, app);
    char path[96];
    const char *copy;
    int rc;
    if (!a || w->finalized)
        return hs_error_set(err, HS_EUSAGE, "no application %d to add a kernel to", app);
    if ((rc = check_name(name, err, "applications[%d].kernels[%d].name", app, a->nkernels)) != 0)
        return rc;
    if ((!a->kernel_index && !(a->kernel_index = hs__strmap_new(16))) ||
        GROW_LIST(a->kernels, a->nkernels, a->kernels_cap) != 0)
        return nomem(err);
    /* one probe: the name is added, or found taken; the kernel's name is
     * the index's copy (one copy of a million names, not two) */
    if ((rc = hs__strmap_add(a->kernel_index, name, (size_t)a->nkernels, &copy)) != 0) {
        if (rc < 0)
            return nomem(err);
        snprintf(path, sizeof path, "applications[%d].kernels[%d].name", app, a->nkernels);
        return hs_error_at(err, HS_EINPUT, path, "duplicate kernel name '%s' in application '%s'",
                           name, a->name);
    }
    a->kernels[a->nkernels] = (hs_kernel){.name = (char *)copy};
    return a->nkernels++;
}

#define KERNEL_OR_FAIL(k, w, app, kernel, err)                                           \
    hs_kernel *k = kernel_at(w, app, kernel);                                            \
    if (!k || (w)->finalized)                                                            \
    return hs_error_set(err, HS_EUSAGE, "no kernel %d in application %d", kernel, app)

int hs_kernel_set_cost(hs_workload *w, int app, int kernel, const char *key, double us,
                       hs_error *err)
{
    KERNEL_OR_FAIL(k, w, app, kernel, err);
    if (bad_number(us) || us > HS_MAX_US)
        return check_number(us, HS_MAX_US, "us", err, "applications[%d].kernels[%d].cost_us.%s",
                            app, kernel, key);
    if (!w->cost_keys && !(w->cost_keys = hs__strmap_new(16)))
        return nomem(err);
    if (GROW_LIST(k->costs, k->ncosts, k->costs_cap) != 0)
        return nomem(err);
    k->costs[k->ncosts] = (hs_cost_entry){.key = hs__strmap_intern(w->cost_keys, key), .us = us};
    if (!k->costs[k->ncosts].key)
        return nomem(err);
    k->ncosts++;
    return HS_OK;
}

int hs_kernel_set_bytes(hs_workload *w, int app, int kernel, double input_bytes,
                        double output_bytes, hs_error *err)
{
    int rc;
    KERNEL_OR_FAIL(k, w, app, kernel, err);
    if ((rc = check_number(input_bytes, HS_MAX_BYTES, "bytes", err,
                           "applications[%d].kernels[%d].input_bytes", app, kernel)) != 0 ||
        (rc = check_number(output_bytes, HS_MAX_BYTES, "bytes", err,
                           "applications[%d].kernels[%d].output_bytes", app, kernel)) != 0)
        return rc;
    k->input_bytes = input_bytes;
    k->output_bytes = output_bytes;
    return HS_OK;
}

int hs_kernel_set_type(hs_workload *w, int app, int kernel, const char *type, hs_error *err)
{
    int rc;
    KERNEL_OR_FAIL(k, w, app, kernel, err);
    if ((rc = check_name(type, err, "applications[%d].kernels[%d].type", app, kernel)) != 0)
        return rc;
    free(k->type);
    if (!(k->type = strdup(type)))
        return nomem(err);
    return HS_OK;
}

int hs_kernel_add_param(hs_workload *w, int app, int kernel, const char *name, double value,
                        hs_error *err)
{
    char path[160];
    KERNEL_OR_FAIL(k, w, app, kernel, err);
    snprintf(path, sizeof path, "applications[%d].kernels[%d].params.%s", app, kernel, name);
    if (!isfinite(value))
        return hs_error_at(err, HS_EINPUT, path, "must be a finite number, not %g", value);
    for (int i = 0; i < k->nparams; i++)
        if (strcmp(k->params[i].name, name) == 0)
            return hs_error_at(err, HS_EINPUT, path, "duplicate parameter '%s'", name);
    if (GROW(k->params, k->nparams) != 0)
        return nomem(err);
    k->params[k->nparams] = (hs_param){.name = strdup(name), .value = value};
    if (!k->params[k->nparams].name)
        return nomem(err);
    k->nparams++;
    return HS_OK;
}

int hs_kernel_set_split(hs_workload *w, int app, int kernel, int splittable, double items,
                        hs_error *err)
{
    char path[128];
    int rc;
    KERNEL_OR_FAIL(k, w, app, kernel, err);
    snprintf(path, sizeof path, "applications[%d].kernels[%d].items", app, kernel);
    if (bad_number(items) || items != floor(items))
        return hs_error_at(err, HS_EINPUT, path, "must be a whole number >= 0, not %g", items);
    if ((rc = check_number(items, HS_MAX_ITEMS, "items", err, "%s", path)) != 0)
        return rc;
    if (splittable && items < 1)
        return hs_error_at(err, HS_EINPUT, path,
                           "a splittable kernel needs items >= 1 (the work it divides)");
    k->splittable = splittable;
    k->items = items;
    return HS_OK;
}

/* ----------------------------------------------- the builder's edge set */

/* The builder's duplicate check, until finalize: each kernel's out-edges
 * chained newest first (a kernel's edges usually come together, so its
 * chain is in the cache), and the edges of a kernel with more than
 * EDGE_CHAIN_MAX out-edges in a hash of pairs instead, so that a check
 * walks at most EDGE_CHAIN_MAX edges.  A million-task workload's 3 million
 * edges then take 4 bytes an edge and 8 a kernel, and a check touches the
 * cache lines of the edges just added, where a hash of every pair took 21
 * bytes an edge and missed the cache on each. */
#define EDGE_CHAIN_MAX 32

/* A kernel's out-edges in the set: its newest (-1: none) and how many. */
typedef struct out_edges {
    int last, count;
} out_edges;

typedef struct hs__edge_set {
    out_edges *kernels; /* per kernel */
    int kernels_cap;    /* kernels it holds */
    int *prev;          /* per edge: the previous out-edge of its source, or -1 */
    int edges_cap;      /* edges `prev` holds */
    hs__pairmap *heavy; /* the edges of kernels with more than EDGE_CHAIN_MAX (or NULL) */
} hs__edge_set;

static void edge_set_free(hs__edge_set *s)
{
    if (!s)
        return;
    free(s->kernels);
    free(s->prev);
    hs__pairmap_free(s->heavy);
    free(s);
}

/* The index of the edge from kernel f to kernel t in a's edge set, or -1. */
static int edge_set_find(const hs_app *a, int f, int t)
{
    const hs__edge_set *s = a->edge_set;
    size_t found;
    if (f >= s->kernels_cap)
        return -1;
    if (s->kernels[f].count > EDGE_CHAIN_MAX)
        return hs__pairmap_get(s->heavy, (unsigned)f, (unsigned)t, &found) ? (int)found : -1;
    for (int e = s->kernels[f].last; e >= 0; e = s->prev[e])
        if (a->edges[e].to == t)
            return e;
    return -1;
}

/* Makes room for `n` entries of `elem` bytes in the list *arr (holding
 * *cap), doubling; each new entry a copy of `fill`.  0 or -1. */
static int edge_set_room(void **arr, int *cap, int n, size_t elem, const void *fill)
{
    int grown = *cap ? *cap : 16;
    char *p;
    if (n <= *cap)
        return 0;
    while (grown < n)
        grown *= 2;
    if (!(p = realloc(*arr, (size_t)grown * elem)))
        return -1;
    for (int i = *cap; i < grown; i++)
        memcpy(p + (size_t)i * elem, fill, elem);
    *arr = p;
    *cap = grown;
    return 0;
}

/* Adds a's edge e (not a duplicate: edge_set_find said so) to its set,
 * which is created here at the first edge.  0 or -1 (out of memory). */
static int edge_set_add(hs_app *a, int e)
{
    static const out_edges none = {-1, 0};
    static const int no_edge = -1;
    hs__edge_set *s = a->edge_set;
    out_edges *k;
    if (!s && !(s = a->edge_set = calloc(1, sizeof *s)))
        return -1;
    if (edge_set_room((void **)&s->kernels, &s->kernels_cap, a->nkernels, sizeof *s->kernels,
                      &none) != 0 ||
        edge_set_room((void **)&s->prev, &s->edges_cap, e + 1, sizeof *s->prev, &no_edge) != 0)
        return -1;
    k = &s->kernels[a->edges[e].from];
    if (k->count >= EDGE_CHAIN_MAX && !s->heavy && !(s->heavy = hs__pairmap_new()))
        return -1;
    s->prev[e] = k->last;
    k->last = e;
    if (++k->count <= EDGE_CHAIN_MAX)
        return 0;
    /* the source is heavy: e goes into the hash, or its whole chain when it
     * has just turned heavy (a pair already there is kept) */
    for (int x = e; x >= 0 && (x == e || k->count == EDGE_CHAIN_MAX + 1); x = s->prev[x]) {
        if (hs__pairmap_put(s->heavy, (unsigned)a->edges[e].from, (unsigned)a->edges[x].to,
                            (size_t)x) < 0) {
            k->last = s->prev[e]; /* as before e */
            k->count--;
            return -1;
        }
    }
    return 0;
}

/* The edge set of a's edges, built again when finalize freed it and
 * finalize failed after.  0 or -1. */
static int edge_set_rebuild(hs_app *a)
{
    for (int e = 0; e < a->nedges; e++)
        if (edge_set_add(a, e) != 0)
            return -1;
    return 0;
}

/* Replaces a's edge set by edge_off and edge_by_from (counting sorts by
 * target, then by source, which keep the first order within the second):
 * finalize's, so that a million-task workload holds no hash of its edges
 * once built.  0 or -1. */
static int edge_lists(hs_app *a)
{
    int n = a->nkernels, m = a->nedges, *by_to = malloc(((size_t)m + 1) * sizeof *by_to),
        *count = calloc((size_t)n + 1, sizeof *count), rc = -1;
    free(a->edge_off);
    free(a->edge_by_from);
    a->edge_off = calloc((size_t)n + 1, sizeof *a->edge_off);
    a->edge_by_from = malloc(((size_t)m + 1) * sizeof *a->edge_by_from);
    if (by_to && count && a->edge_off && a->edge_by_from) {
        for (int e = 0; e < m; e++)
            count[a->edges[e].to + 1]++;
        for (int k = 0; k < n; k++)
            count[k + 1] += count[k];
        for (int e = 0; e < m; e++)
            by_to[count[a->edges[e].to]++] = e;
        for (int e = 0; e < m; e++)
            a->edge_off[a->edges[e].from + 1]++;
        for (int k = 0; k < n; k++)
            a->edge_off[k + 1] += a->edge_off[k];
        memcpy(count, a->edge_off, ((size_t)n + 1) * sizeof *count);
        for (int i = 0; i < m; i++)
            a->edge_by_from[count[a->edges[by_to[i]].from]++] = by_to[i];
        edge_set_free(a->edge_set);
        a->edge_set = NULL;
        rc = 0;
    }
    free(by_to);
    free(count);
    return rc;
}

int hs_app_add_edge(hs_workload *w, int app, const char *from, const char *to, double bytes,
                    hs_error *err)
{
    hs_app *a = app_at(w, app);
    char path[128];
    int f, t = -1, rc;
    if (!a || w->finalized)
        return hs_error_set(err, HS_EUSAGE, "no application %d to add an edge to", app);
    if (!a->edge_set && a->nedges > 0 && edge_set_rebuild(a) != 0)
        return nomem(err);
    /* paths are formatted for a message only (a million-task workload
     * adds millions of edges); a kernel's out-edges usually come together,
     * so the last edge's source is tried before the index (whose look-ups
     * miss the cache at a million kernels) */
    f = a->nedges > 0 ? a->edges[a->nedges - 1].from : -1;
    if (f >= 0 && strcmp(a->kernels[f].name, from) != 0)
        f = -1;
    if ((f < 0 && (f = find_kernel(a, from)) < 0) || (t = find_kernel(a, to)) < 0 || f == t) {
        snprintf(path, sizeof path, "applications[%d].edges[%d].%s", app, a->nedges,
                 f < 0 ? "from" : "to");
        if (f < 0 || t < 0)
            return hs_error_at(err, HS_EINPUT, path, "no kernel '%s' in application '%s'",
                               f < 0 ? from : to, a->name);
        return hs_error_at(err, HS_EINPUT, path, "kernel '%s' cannot depend on itself", to);
    }
    /* a duplicate is refused first, as when the bytes are bad */
    if (a->edge_set && edge_set_find(a, f, t) >= 0) {
        snprintf(path, sizeof path, "applications[%d].edges[%d]", app, a->nedges);
        return hs_error_at(err, HS_EINPUT, path, "duplicate edge from '%s' to '%s'", from,
                           to);
    }
    if ((rc = check_number(bytes, HS_MAX_BYTES, "bytes", err,
                           "applications[%d].edges[%d].bytes", app, a->nedges)) != 0)
        return rc;
    if (GROW_LIST(a->edges, a->nedges, a->edges_cap))
        return nomem(err);
    a->edges[a->nedges] = (hs_kernel_edge){.from = f, .to = t, .bytes = bytes, .feeds = -1};
    if (edge_set_add(a, a->nedges) != 0)
        return nomem(err);
    return a->nedges++;
}

int hs_edge_set_buffer(hs_workload *w, int app, int edge, const char *buffer, hs_error *err)
{
    hs_app *a = app_at(w, app);
    char path[128], *copy = NULL;
    if (!a || edge < 0 || edge >= a->nedges || w->finalized)
        return hs_error_set(err, HS_EUSAGE, "no edge %d in application %d", edge, app);
    snprintf(path, sizeof path, "applications[%d].edges[%d].buffer", app, edge);
    if (buffer && (!*buffer || strlen(buffer) > HS_NAME_MAX))
        return hs_error_at(err, HS_EINPUT, path, "a buffer name is 1 to %d bytes long, not %zu",
                           HS_NAME_MAX, strlen(buffer));
    if (buffer && !(copy = strdup(buffer)))
        return nomem(err);
    free(a->edges[edge].buffer);
    a->edges[edge].buffer = copy;
    return HS_OK;
}

const hs_kernel_edge *hs_edge_origin(const hs_workload *w, const hs_graph *g, const hs_edge *e)
{
    const hs_task *from = &g->tasks[e->from], *to = &g->tasks[e->to];
    const hs_app *a = &w->apps[to->app];
    int lo, hi;
    if (from->app != to->app)
        return NULL;
    if (!a->edge_off || !w->finalized) {
        int found = a->edge_set ? edge_set_find(a, from->kernel, to->kernel) : -1;
        return found >= 0 ? &a->edges[found] : NULL;
    }
    /* binary search among the source kernel's edges, sorted by target */
    lo = a->edge_off[from->kernel];
    hi = a->edge_off[from->kernel + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a->edges[a->edge_by_from[mid]].to < to->kernel)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->edge_off[from->kernel + 1] && a->edges[a->edge_by_from[lo]].to == to->kernel
               ? &a->edges[a->edge_by_from[lo]]
               : NULL;
}

/* ---------------------------------------------------------------- finalize */

void hs_workload_set_cost_fn(hs_workload *w, hs_cost_fn fn, void *ctx)
{
    w->cost_fn = fn;
    w->cost_ctx = fn ? ctx : NULL;
}

void hs_workload_set_link_fn(hs_workload *w, hs_link_fn fn, void *ctx)
{
    w->link_fn = fn;
    w->link_ctx = fn ? ctx : NULL;
}

/* What a cost entry's key names: a device (its index), the kind cpu or gpu,
 * or nothing (-1). */
enum { KEY_CPU = -2, KEY_GPU = -3 };

/* The keys met so far and what each names, by address: a workload's keys
 * are interned (hs_kernel_set_cost), so its million kernels share a few,
 * and each is looked up once, not once per kernel. */
#define KEYS_KEPT 8
typedef struct cost_keys_seen {
    const char *key[KEYS_KEPT];
    int names[KEYS_KEPT];
    int n;
} cost_keys_seen;

static int key_names(const hs_platform *p, cost_keys_seen *seen, const char *key)
{
    int names;
    for (int i = 0; i < seen->n; i++)
        if (seen->key[i] == key)
            return seen->names[i];
    names = strcmp(key, "cpu") == 0   ? KEY_CPU
            : strcmp(key, "gpu") == 0 ? KEY_GPU
                                      : hs_platform_find_device(p, key);
    if (seen->n < KEYS_KEPT) {
        seen->key[seen->n] = key;
        seen->names[seen->n++] = names;
    }
    return names;
}

/* Cost of kernel ki on each device d: an entry naming the device wins over
 * one naming its kind (DESIGN.md §3); a typed kernel that has neither asks
 * the workload's cost provider, when one is set.  Refuses an entry naming
 * neither a device nor a kind, and two entries for one key.  by_name: scratch of
 * ndevices ints.  O(entries + devices), so that a kernel of a cluster with
 * hundreds of devices, each named in its costs, resolves in linear time. */
static int resolve_costs(hs_workload *w, int a, int ki, int *by_name_of, cost_keys_seen *seen,
                         hs_error *err)
{
    const hs_platform *p = &w->platform;
    hs_kernel *k = &w->apps[a].kernels[ki];
    int by_kind_of[2] = {-1, -1};
    char path[128]; /* for a message only: a million-task workload has a million kernels */
#define COST_PATH() snprintf(path, sizeof path, "applications[%d].kernels[%d].cost_us", a, ki)
    for (int d = 0; d < p->ndevices; d++)
        by_name_of[d] = -1;
    for (int i = 0; i < k->ncosts; i++) {
        const char *key = k->costs[i].key;
        int names = key_names(p, seen, key);
        int *slot = names == KEY_CPU   ? &by_kind_of[HS_DEVICE_CPU]
                    : names == KEY_GPU ? &by_kind_of[HS_DEVICE_GPU]
                    : names >= 0       ? &by_name_of[names]
                                       : NULL;
        char kpath[192];
        if (slot && *slot < 0) {
            *slot = i;
            continue;
        }
        COST_PATH();
        snprintf(kpath, sizeof kpath, "%s.%s", path, key);
        if (!slot)
            return hs_error_at(err, HS_EINPUT, kpath,
                               "no device or device kind named '%s' (kinds are cpu, gpu)", key);
        return hs_error_at(err, HS_EINPUT, kpath, "duplicate cost for '%s'", key);
    }
    TRIM_LIST(k->costs, k->ncosts, k->costs_cap); /* a kernel of 320 devices had 512 */
    free(k->cost_us);
    if (!(k->cost_us = calloc((size_t)p->ndevices + 1, sizeof *k->cost_us)))
        return nomem(err);
    for (int d = 0; d < p->ndevices; d++) {
        const hs_device *dev = &p->devices[d];
        int by_name = by_name_of[d], by_kind = by_kind_of[dev->kind];
        if (by_name < 0 && by_kind < 0 && k->type && w->cost_fn) {
            hs_error perr = {0};
            int rc = w->cost_fn(w->cost_ctx, k, dev, &k->cost_us[d], &perr);
            COST_PATH();
            if (rc != 0)
                return hs_error_at(err, rc < 0 ? rc : HS_EINPUT, path, "kernel '%s': %s",
                                   k->name, perr.msg);
            if (bad_number(k->cost_us[d]) || k->cost_us[d] > HS_MAX_US)
                return hs_error_at(err, HS_EINPUT, path, "kernel '%s': the cost provider gave "
                                   "%g us on '%s' (must be a finite number from 0 to %g)",
                                   k->name, k->cost_us[d], dev->name, HS_MAX_US);
            continue;
        }
        if (by_name < 0 && by_kind < 0) {
            COST_PATH();
            if (k->type && k->ncosts == 0)
                return hs_error_at(err, HS_EINPUT, path,
                                   "kernel '%s' of type '%s' has no cost_us and no performance "
                                   "model is loaded (give cost_us)",
                                   k->name, k->type);
            return hs_error_at(err, HS_EINPUT, path,
                               "no cost for device '%s' of kernel '%s' (give '%s' or '%s')",
                               dev->name, k->name, dev->name, hs_device_kind_name(dev->kind));
        }
        k->cost_us[d] = k->costs[by_name >= 0 ? by_name : by_kind].us;
    }
    return HS_OK;
#undef COST_PATH
}

/* Depth-first search for a cycle in one application's kernel graph; the
 * message lists the kernels on it, in edge order.  Each kernel's out-edges
 * are listed once (counting sort, in edge order) so the search is O(n + e). */
/* resolve_costs for every kernel of application a. */
static int resolve_app_costs(hs_workload *w, int a, hs_error *err)
{
    int *scratch = malloc(((size_t)w->platform.ndevices + 1) * sizeof *scratch), rc = HS_OK;
    cost_keys_seen seen = {.n = 0};
    if (!scratch)
        return nomem(err);
    for (int k = 0; k < w->apps[a].nkernels && rc == HS_OK; k++)
        rc = resolve_costs(w, a, k, scratch, &seen, err);
    free(scratch);
    return rc;
}

static int find_cycle(const hs_app *a, int ai, hs_error *err)
{
    int n = a->nkernels, rc = HS_OK;
    int *state = calloc((size_t)n + 1, sizeof *state); /* 0 new, 1 on stack, 2 done */
    int *stack = malloc(((size_t)n + 1) * sizeof *stack);
    int *next = calloc((size_t)n + 1, sizeof *next);     /* next out-edge to try */
    int *off = calloc((size_t)n + 2, sizeof *off);       /* out-edges of u: */
    int *outs = malloc(((size_t)a->nedges + 1) * sizeof *outs); /* outs[off[u]..off[u+1]) */
    if (!state || !stack || !next || !off || !outs) {
        rc = nomem(err);
        goto out;
    }
    for (int e = 0; e < a->nedges; e++)
        off[a->edges[e].from + 1]++;
    for (int u = 0; u < n; u++)
        off[u + 1] += off[u];
    for (int u = 0; u < n; u++)
        next[u] = off[u];
    for (int e = 0; e < a->nedges; e++)
        outs[next[a->edges[e].from]++] = e;
    for (int u = 0; u < n; u++)
        next[u] = off[u];
    for (int root = 0; root < n && rc == HS_OK; root++) {
        int top = 0;
        if (state[root])
            continue;
        stack[top++] = root;
        state[root] = 1;
        while (top > 0 && rc == HS_OK) {
            int u = stack[top - 1], j = next[u]++;
            if (j >= off[u + 1]) {
                state[u] = 2;
                top--;
            } else {
                int v = a->edges[outs[j]].to;
                if (state[v] == 0) {
                    state[v] = 1;
                    stack[top++] = v;
                } else if (state[v] == 1) {
                    char text[768], path[32];
                    size_t len = 0;
                    int i = top - 1;
                    while (stack[i] != v)
                        i--;
                    for (; i < top; i++)
                        len += (size_t)snprintf(text + len, len < sizeof text ? sizeof text - len : 0,
                                                "%s -> ", a->kernels[stack[i]].name);
                    if (len < sizeof text)
                        snprintf(text + len, sizeof text - len, "%s", a->kernels[v].name);
                    snprintf(path, sizeof path, "applications[%d].edges", ai);
                    rc = hs_error_at(err, HS_EINPUT, path, "cycle in application '%s': %s",
                                     a->name, text);
                }
            }
        }
    }
out:
    free(state);
    free(stack);
    free(next);
    free(off);
    free(outs);
    return rc;
}

/* Why data cannot move from memory q to memory r, for check_links: "no
 * link from 'q' to 'r' in platform.links", or, on a cluster, which hop of
 * the route is missing. */
static void no_link(const hs_platform *p, int from, int to, char *buf, size_t size)
{
    int q = from, r = to, a = p->memory_node[q], b = p->memory_node[r];
    const hs_net_link *n;
    if (p->nnodes == 0) {
        snprintf(buf, size, "no link from '%s' to '%s' in platform.links", p->memories[q],
                 p->memories[r]);
        return;
    }
    if (a == b) {
        snprintf(buf, size, "no link from '%s' to '%s' in platform.nodes[%d].links (node '%s')",
                 p->memories[q], p->memories[r], a, p->nodes[a].name);
        return;
    }
    n = &p->network[a * p->nnodes + b];
    if (!n->present) {
        snprintf(buf, size, "no route from '%s' (node '%s') to '%s' (node '%s'): no link from "
                 "'%s' to '%s' in platform.network", p->memories[q], p->nodes[a].name,
                 p->memories[r], p->nodes[b].name, p->nodes[a].name, p->nodes[b].name);
        return;
    }
    /* without gpu_direct: q -> a's host, or else b's host -> r, is missing */
    if (q != p->nodes[a].host && !p->links[q * p->nmemories + p->nodes[a].host].present)
        r = p->nodes[a].host;
    else
        q = p->nodes[b].host, a = b;
    snprintf(buf, size, "no route from '%s' to '%s': a copy between nodes goes through their "
             "host memories, and node '%s' has no link from '%s' to '%s' in platform.nodes[%d]"
             ".links", p->memories[from], p->memories[to], p->nodes[a].name, p->memories[q],
             p->memories[r], a);
}

/* A pair of memories that exchanges data needs a link (or, on a cluster,
 * a route).  With every kernel able to run on every device, an edge with
 * data needs every ordered pair of distinct device memories, an input
 * needs host -> each, an output each -> host. */
static int check_links(const hs_workload *w, hs_error *err)
{
    const hs_platform *p = &w->platform;
    char why[3 * HS_NAME_MAX + 160];
    for (int a = 0; a < w->napps; a++) {
        const hs_app *app = &w->apps[a];
        for (int k = 0; k < app->nkernels; k++) {
            const hs_kernel *kn = &app->kernels[k];
            for (int d = 0; d < p->ndevices; d++) {
                int m = p->devices[d].memory;
                char path[128];
                if (m == HS_HOST_MEMORY)
                    continue;
                if (kn->input_bytes > 0 && !p->links[HS_HOST_MEMORY * p->nmemories + m].present) {
                    snprintf(path, sizeof path, "applications[%d].kernels[%d].input_bytes", a, k);
                    no_link(p, HS_HOST_MEMORY, m, why, sizeof why);
                    return hs_error_at(err, HS_EINPUT, path, "%s (kernel '%s' reads its input "
                                       "on device '%s')", why, kn->name, p->devices[d].name);
                }
                if (kn->output_bytes > 0 && !p->links[m * p->nmemories + HS_HOST_MEMORY].present) {
                    snprintf(path, sizeof path, "applications[%d].kernels[%d].output_bytes", a, k);
                    no_link(p, m, HS_HOST_MEMORY, why, sizeof why);
                    return hs_error_at(err, HS_EINPUT, path, "%s (kernel '%s' writes its output "
                                       "back from device '%s')", why, kn->name,
                                       p->devices[d].name);
                }
            }
        }
        /* Every edge with data needs the same pairs: check them once, for
         * the first such edge, so that the cost is O(edges + devices^2). */
        for (int e = 0; e < app->nedges; e++) {
            if (app->edges[e].bytes <= 0)
                continue;
            for (int d1 = 0; d1 < p->ndevices; d1++)
                for (int d2 = 0; d2 < p->ndevices; d2++) {
                    int q = p->devices[d1].memory, r = p->devices[d2].memory;
                    char path[64];
                    if (q == r || p->links[q * p->nmemories + r].present)
                        continue;
                    snprintf(path, sizeof path, "applications[%d].edges[%d]", a, e);
                    no_link(p, q, r, why, sizeof why);
                    return hs_error_at(err, HS_EINPUT, path,
                                       "%s (data from '%s' to '%s' may move between devices "
                                       "'%s' and '%s')", why,
                                       app->kernels[app->edges[e].from].name,
                                       app->kernels[app->edges[e].to].name, p->devices[d1].name,
                                       p->devices[d2].name);
                }
            break;
        }
    }
    return HS_OK;
}

/* Every transfer the workload may make takes at most HS_MAX_US (as a cost
 * does).  A transfer's time grows with its bytes, so only the largest
 * input, output and edge need checking, over every link each may take:
 * O(kernels + edges + devices^2).  Runs after check_links. */
static int check_transfer_times(const hs_workload *w, hs_error *err)
{
    static const char *const field[] = {"input_bytes", "output_bytes", "bytes"};
    const hs_platform *p = &w->platform;
    double most[3] = {0, 0, 0}; /* bytes of the largest input, output, edge */
    int app[3] = {-1, -1, -1}, item[3] = {-1, -1, -1};
    for (int a = 0; a < w->napps; a++) {
        const hs_app *ap = &w->apps[a];
        for (int k = 0; k < ap->nkernels; k++) {
            double b[2] = {ap->kernels[k].input_bytes, ap->kernels[k].output_bytes};
            for (int i = 0; i < 2; i++)
                if (b[i] > most[i]) {
                    most[i] = b[i];
                    app[i] = a;
                    item[i] = k;
                }
        }
        for (int e = 0; e < ap->nedges; e++)
            if (ap->edges[e].bytes > most[2]) {
                most[2] = ap->edges[e].bytes;
                app[2] = a;
                item[2] = e;
            }
    }
    for (int i = 0; i < 3; i++) {
        if (app[i] < 0)
            continue;
        for (int d1 = 0; d1 < p->ndevices; d1++)
            for (int d2 = 0; d2 < (i == 2 ? p->ndevices : 1); d2++) {
                /* an input comes from host, an output goes back to it */
                int q = i == 0 ? HS_HOST_MEMORY : p->devices[d1].memory;
                int r = i == 1 ? HS_HOST_MEMORY : i == 0 ? p->devices[d1].memory
                                                         : p->devices[d2].memory;
                const hs_link *l = &p->links[q * p->nmemories + r];
                double us = hs_transfer_us(p, q, r, most[i]);
                char path[128];
                if (us <= HS_MAX_US)
                    continue;
                snprintf(path, sizeof path, "applications[%d].%s[%d].%s", app[i],
                         i == 2 ? "edges" : "kernels", item[i], field[i]);
                return hs_error_at(err, HS_EINPUT, path,
                                   "%g bytes take %g us from '%s' to '%s' (%g GB/s, %g us "
                                   "latency), more than the %g us a transfer may take",
                                   most[i], us, p->memories[q], p->memories[r], l->bandwidth_gbps,
                                   l->latency_us, HS_MAX_US);
            }
    }
    return HS_OK;
}

/* Each device whose overhead_us the platform leaves at 0 takes the cost
 * provider's, when it knows one (hs_cost_fn with no kernel). */
static int provider_overheads(hs_workload *w, hs_error *err)
{
    for (int d = 0; d < w->platform.ndevices && w->cost_fn; d++) {
        hs_device *dev = &w->platform.devices[d];
        hs_error perr = {0};
        double us = 0;
        int rc;
        if (dev->overhead_us > 0 || (rc = w->cost_fn(w->cost_ctx, NULL, dev, &us, &perr)) == 1)
            continue;
        if (rc != 0)
            return hs_error_set(err, rc < 0 ? rc : HS_EINPUT, "overhead of device '%s': %s",
                                dev->name, perr.msg);
        if ((rc = hs_platform_set_overhead(w, d, us, err)) != 0)
            return rc;
    }
    return HS_OK;
}

/* Each declared link takes the link provider's bandwidth, when it knows
 * one (before finalize derives the routes across nodes from them). */
static int provider_links(hs_workload *w, hs_error *err)
{
    hs_platform *p = &w->platform;
    for (int a = 0; a < p->nmemories && w->link_fn; a++)
        for (int b = 0; b < p->nmemories; b++) {
            hs_link *l = &p->links[(size_t)a * (size_t)p->nmemories + (size_t)b];
            hs_error perr = {0};
            char at[160];
            double gbps;
            int rc;
            if (!l->present || l->route ||
                (rc = w->link_fn(w->link_ctx, p->memories[a], p->memories[b], &gbps, &perr)) ==
                    1)
                continue;
            if (rc != 0)
                return hs_error_set(err, rc < 0 ? rc : HS_EINPUT, "link %s -> %s: %s",
                                    p->memories[a], p->memories[b], perr.msg);
            snprintf(at, sizeof at, "platform.links (%s -> %s, from the link provider)",
                     p->memories[a], p->memories[b]);
            if ((rc = check_link_figures(gbps, l->latency_us, at, err)) != 0)
                return rc;
            l->bandwidth_gbps = gbps;
        }
    return HS_OK;
}

int hs_workload_finalize(hs_workload *w, hs_error *err)
{
    size_t ntasks = 0, nedges = 0, t = 0, e = 0;
    int rc;
    if (w->finalized)
        return HS_OK;
    if (w->platform.ndevices == 0)
        return hs_error_at(err, HS_EINPUT, "platform.devices", "at least one device is needed");
    if (w->napps == 0)
        return hs_error_at(err, HS_EINPUT, "applications", "at least one application is needed");
    if ((rc = provider_overheads(w, err)) != 0 || (rc = provider_links(w, err)) != 0)
        return rc;
    for (int a = 0; a < w->napps; a++) {
        char path[64];
        if (w->apps[a].nkernels == 0) {
            snprintf(path, sizeof path, "applications[%d].kernels", a);
            return hs_error_at(err, HS_EINPUT, path, "application '%s' has no kernel",
                               w->apps[a].name);
        }
        if ((rc = resolve_app_costs(w, a, err)) != 0 || (rc = find_cycle(&w->apps[a], a, err)) != 0 || (rc = hs__bind_edges(w, a, err)) != 0)
            return rc;
        TRIM_LIST(w->apps[a].kernels, w->apps[a].nkernels, w->apps[a].kernels_cap);
        TRIM_LIST(w->apps[a].edges, w->apps[a].nedges, w->apps[a].edges_cap);
        if (edge_lists(&w->apps[a]) != 0)
            return nomem(err);
        ntasks += (size_t)w->apps[a].instances * (size_t)w->apps[a].nkernels;
        nedges += (size_t)w->apps[a].instances * (size_t)w->apps[a].nedges;
        snprintf(path, sizeof path, "applications[%d].instances", a);
        if (ntasks > hs_max_tasks())
            return hs_error_at(err, HS_EINPUT, path, "%d instances of %d kernels bring the "
                               "workload to %zu tasks, more than the limit of %zu (%s "
                               "raises it)", w->apps[a].instances, w->apps[a].nkernels, ntasks,
                               hs_max_tasks(), HS_MAX_TASKS_ENV);
        if (nedges > hs_max_edges())
            return hs_error_at(err, HS_EINPUT, path, "%d instances of %d edges bring the "
                               "workload to %zu edges, more than the limit of %zu (%s "
                               "raises it)", w->apps[a].instances, w->apps[a].nedges, nedges,
                               hs_max_edges(), HS_MAX_TASKS_ENV);
    }
    hs_platform_route(&w->platform);
    if ((rc = check_links(w, err)) != 0 || (rc = check_transfer_times(w, err)) != 0)
        return rc;
    if ((rc = hs_graph_init(&w->graph, ntasks, nedges, w->platform.ndevices, err)) != 0)
        return rc;
    for (int a = 0; a < w->napps; a++) {
        const hs_app *app = &w->apps[a];
        for (int i = 0; i < app->instances; i++) {
            size_t first = t;
            for (int k = 0; k < app->nkernels; k++, t++) {
                hs_task *task = &w->graph.tasks[t];
                task->app = a;
                task->instance = i;
                task->kernel = k;
                task->input_bytes = app->kernels[k].input_bytes;
                task->output_bytes = app->kernels[k].output_bytes;
                /* what a device runs: the kernel, and what the executor
                 * spends on any task there */
                for (int d = 0; d < w->platform.ndevices; d++)
                    task->cost_us[d] =
                        app->kernels[k].cost_us[d] + w->platform.devices[d].overhead_us;
            }
            for (int k = 0; k < app->nedges; k++, e++)
                w->graph.edges[e] = (hs_edge){.from = first + (size_t)app->edges[k].from,
                                              .to = first + (size_t)app->edges[k].to,
                                              .bytes = app->edges[k].bytes};
        }
    }
    w->graph.nedges = nedges;
    if ((rc = hs_graph_build_adjacency(&w->graph, err)) != 0) {
        hs_graph_free(&w->graph);
        return rc;
    }
    w->finalized = 1;
    return HS_OK;
}

/* --------------------------------------------------------------- task ids */

/* Appends the text of i at out; returns its length. */
static size_t put_int(char *out, int i)
{
    if (i < 0) {
        *out = '-';
        return 1 + (size_t)hs__format_u64(-(unsigned long long)(long long)i, out + 1);
    }
    return (size_t)hs__format_u64((unsigned long long)i, out);
}

/* snprintf's "%s#%d/%s" and "%s#%d/%s[%d/%d]", assembled by hand: writing
 * or reading a million-task schedule formats every id. */
int hs_task_id(const hs_workload *w, const hs_task *t, char *buf, size_t size)
{
    const hs_app *a = &w->apps[t->app];
    const char *kernel = a->kernels[t->kernel].name;
    size_t la = strlen(a->name), lk = strlen(kernel), n = 0;
    char id[HS_TASK_ID_MAX + 64]; /* names are at most HS_NAME_MAX bytes */
    if (la > HS_NAME_MAX || lk > HS_NAME_MAX) { /* not built by the builder: as before */
        if (t->nparts > 1)
            return snprintf(buf, size, "%s#%d/%s[%d/%d]", a->name, t->instance, kernel,
                            t->part, t->nparts);
        return snprintf(buf, size, "%s#%d/%s", a->name, t->instance, kernel);
    }
    memcpy(id, a->name, la);
    n = la;
    id[n++] = '#';
    n += put_int(id + n, t->instance);
    id[n++] = '/';
    memcpy(id + n, kernel, lk);
    n += lk;
    if (t->nparts > 1) {
        id[n++] = '[';
        n += put_int(id + n, t->part);
        id[n++] = '/';
        n += put_int(id + n, t->nparts);
        id[n++] = ']';
    }
    if (size > 0) {
        size_t copy = n < size ? n : size - 1;
        memcpy(buf, id, copy);
        buf[copy] = '\0';
        if (n >= size)
            hs__utf8_cut(buf); /* names are UTF-8: so is what is left of them */
    }
    return (int)n;
}

/* The task of app `a` (whose first task is `first`) that `rest`, the id
 * after "APP#", names: "I/KERNEL", I written as %d writes it; 1 when
 * there is one. */
static int app_task(const hs_workload *w, int a, size_t first, const char *rest, size_t *task)
{
    const hs_app *app = &w->apps[a];
    long long i = 0;
    const char *c = rest;
    int k;
    if (*c == '0' && c[1] != '/')
        return 0; /* %d writes no leading zero */
    for (; *c >= '0' && *c <= '9' && c - rest < 11; c++)
        i = 10 * i + (*c - '0');
    if (c == rest || *c != '/' || i >= app->instances || (k = find_kernel(app, c + 1)) < 0)
        return 0;
    *task = first + (size_t)i * (size_t)app->nkernels + (size_t)k;
    return 1;
}

/* The task whose id is `whole` (no part): tasks are numbered application
 * by application, instance by instance, kernel by kernel, so the id's
 * pieces give it without an index of every id (a million-task schedule
 * names each task several times; names hold no '#' or '/').  1 when there
 * is one, 0 when not, -1 when out of memory. */
/* The first task of the application that id `whole` names ("APP#..."),
 * and the rest of the id after '#': 1 when there is one, 0 when not, -1
 * when out of memory. */
static int find_id_app(hs_workload *w, const char *whole, size_t *first, const char **rest)
{
    char app[HS_NAME_MAX + 1];
    const char *h = strchr(whole, '#');
    size_t len = h ? (size_t)(h - whole) : 0;
    if (!w->ids) { /* application name -> its first task */
        size_t next = 0;
        if (!(w->ids = hs__strmap_new((size_t)w->napps)))
            return -1;
        for (int a = 0; a < w->napps; a++) {
            if (hs__strmap_put(w->ids, w->apps[a].name, next) < 0)
                return -1;
            next += (size_t)w->apps[a].instances * (size_t)w->apps[a].nkernels;
        }
    }
    if (len == 0 || len > HS_NAME_MAX)
        return 0;
    memcpy(app, whole, len);
    app[len] = '\0';
    *rest = h + 1;
    return hs__strmap_get(w->ids, app, first) && *first < w->graph.ntasks;
}

static int find_task(hs_workload *w, const char *whole, size_t *task)
{
    const char *rest;
    size_t first;
    int rc = find_id_app(w, whole, &first, &rest);
    return rc <= 0 ? rc : app_task(w, w->graph.tasks[first].app, first, rest, task);
}

const struct hs__strmap *hs__task_id_kernel(hs_workload *w, const char *id, const char **kernel)
{
    const char *rest, *slash;
    const hs_app *app;
    size_t first;
    if (!w->finalized || strchr(id, '[') || find_id_app(w, id, &first, &rest) != 1 ||
        !(slash = strchr(rest, '/')))
        return NULL;
    app = &w->apps[w->graph.tasks[first].app];
    *kernel = slash + 1;
    return app->kernel_index;
}

int hs_task_parse_id(hs_workload *w, const char *id, size_t *task, int *part, int *nparts,
                     hs_error *err)
{
    char whole[HS_TASK_ID_MAX];
    const char *bracket;
    size_t len;
    int k = 0, n = 1, rc;
    if (!w->finalized)
        return hs_error_set(err, HS_EUSAGE, "the workload is not finalized");
    bracket = strchr(id, '[');
    len = bracket ? (size_t)(bracket - id) : strlen(id);
    if (len >= sizeof whole)
        return hs_error_set(err, HS_EINPUT, "no task '%.64s...' in the workload", id);
    memcpy(whole, id, len);
    whole[len] = '\0';
    if (bracket) {
        int used = 0;
        if (sscanf(bracket, "[%d/%d]%n", &k, &n, &used) != 2 || bracket[used] != '\0' || n < 1 ||
            k < 0 || k >= n)
            return hs_error_set(err, HS_EINPUT,
                                "task id '%s': a part is written [k/n] with 0 <= k < n", id);
    }
    if ((rc = find_task(w, whole, task)) < 0)
        return nomem(err);
    if (!rc)
        return hs_error_set(err, HS_EINPUT, "no task '%s' in the workload", whole);
    *part = k;
    *nparts = n;
    return HS_OK;
}
