/* hetsched — platforms, applications and the task graph (DESIGN.md §1).
 *
 * A workload is a platform (devices, memories, links) plus applications.  An
 * application is a DAG of kernels submitted `instances` times; finalizing a
 * workload flattens every instance of every application into one task graph
 * whose tasks are named `APP#I/KERNEL`.
 *
 * Building a workload (the YAML loader and the generators both do this):
 *
 *     hs_workload *w = hs_workload_new();
 *     hs_platform_add_device(w, "cpu0", HS_DEVICE_CPU, "host", 4, &err);
 *     hs_platform_add_device(w, "gpu0", HS_DEVICE_GPU, "gpu0", 0, &err);
 *     hs_platform_add_link(w, "host", "gpu0", 12.0, 10.0, &err);
 *     int a = hs_workload_add_app(w, "va", 1, &err);
 *     int k = hs_app_add_kernel(w, a, "add", &err);
 *     hs_kernel_set_cost(w, a, k, "cpu", 568.0, &err);   // by kind
 *     hs_kernel_set_cost(w, a, k, "gpu0", 422.0, &err);  // by name: wins
 *     hs_app_add_edge(w, a, "add", "scale", 200000, &err);
 *     hs_workload_finalize(w, &err);   // resolves costs, checks, flattens
 *
 * Every builder call checks its own arguments; finalize checks what needs
 * the whole picture (costs for every device, one per key, edges to known
 * kernels, links or routes between memories that exchange data, cycles,
 * which buffer each edge feeds).  Errors name the offending item by its path in the YAML
 * contract, e.g.
 * `applications[1].edges[0].to: no kernel 'mul' in application 'xgemm'`,
 * and set hs_error.path to that path so the loader can add FILE:LINE:COL.
 * Units: microseconds, bytes, GB/s (1 GB/s = 1000 bytes/µs).
 */
#ifndef HETSCHED_GRAPH_H
#define HETSCHED_GRAPH_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ bounds */

/* What a workload may hold, checked by the builder where each number or name
 * is given (so the loader reports it at its FILE:LINE:COL).  Every consumer
 * handles these: a cost or transfer of at most HS_MAX_US keeps the MILP's
 * big-M rows meaningful, and a makespan, which sums at most every task's
 * cost, input and output and every edge's transfer, stays below
 * (3 x HS_MAX_TASKS + HS_MAX_EDGES) x HS_MAX_US = 7e20 us, far from
 * overflowing a double. */
#define HS_MAX_US 1e12             /* a cost, a latency, a whole transfer (11.6 days) */
#define HS_MAX_BYTES 1e15          /* an edge's, input's or output's bytes */
#define HS_MAX_ITEMS 1e15          /* a splittable kernel's items */
#define HS_MIN_BANDWIDTH_GBPS 1e-6 /* 1 kB/s */
#define HS_MAX_BANDWIDTH_GBPS 1e6  /* 1 PB/s */
#define HS_MAX_CORES 1048576
/* Devices of a platform, every node's together (each new memory copies
 * the links matrix, O(memories^2)), and nodes of a cluster. */
#define HS_MAX_DEVICES 512
#define HS_MAX_NODES 256
/* Tasks and edges of a flattened graph: hs_max_tasks() tasks and 4 edges a
 * task at most.  By default 1000000 tasks, so that a small hostile file
 * (instances) cannot take the machine's memory (about 1 KB a task); the
 * environment variable HETSCHED_MAX_TASKS sets another limit, from 1 to
 * HS_MAX_TASKS.  The limits are read once, at the first call; a value that
 * is not a whole number in range counts as unset there, and
 * hs_limits_check() refuses it (the command line does, before any
 * command). */
#define HS_MAX_TASKS 100000000     /* the most HETSCHED_MAX_TASKS may allow */
#define HS_MAX_EDGES (4 * (size_t)HS_MAX_TASKS)
#define HS_DEFAULT_MAX_TASKS 1000000
#define HS_MAX_TASKS_ENV "HETSCHED_MAX_TASKS"
size_t hs_max_tasks(void);
size_t hs_max_edges(void); /* 4 x hs_max_tasks() */
/* HS_OK, or HS_EINPUT when HETSCHED_MAX_TASKS is set and not a whole number
 * from 1 to HS_MAX_TASKS (the message says so). */
int hs_limits_check(hs_error *err);
/* Bytes of a name (application, kernel, device, memory), valid UTF-8 without
 * control characters; 512 bytes hold 170 CJK characters. */
#define HS_NAME_MAX 512
/* Bytes of the longest task id, "APP#I/KERNEL[k/n]", with its NUL. */
#define HS_TASK_ID_MAX (2 * HS_NAME_MAX + 48)

/* ---------------------------------------------------------------- platform */

typedef enum hs_device_kind { HS_DEVICE_CPU = 0, HS_DEVICE_GPU = 1 } hs_device_kind;

#define HS_HOST_MEMORY 0 /* memories[0] is always "host" */

typedef struct hs_device {
    char *name;          /* unique */
    hs_device_kind kind;
    int memory;          /* index into hs_platform.memories */
    int cores;           /* 0 when not given */
    int node;            /* index into hs_platform.nodes; 0 without nodes */
    double overhead_us;  /* what the executor spends on each task it runs
                            there besides the kernel (hand-over, launch,
                            completion, the engine's step), µs; every task's
                            cost on it includes it; 0 when not given
                            (`hetsched run` prints the gap it saw) */
} hs_device;

/* Data moves from one memory to another over a link.  A declared link
 * joins two memories of one node (or of the one machine).  A route joins
 * memories of two nodes over the network; finalize derives it (see
 * hs_platform_route) and it is never written back to YAML.  A route is
 * store-and-forward over its hops, so its time is the sum of theirs:
 * latency_us sums their latencies and 1 / bandwidth_gbps sums their
 * 1 / bandwidth, which keeps hs_transfer_us's formula exact for it. */
typedef struct hs_link {
    int present;         /* data can move: declared, or a route */
    int route;           /* 1: derived across the network, 0: declared */
    double bandwidth_gbps;
    double latency_us;
} hs_link;

/* A node of a cluster: a machine with its own devices and memories, the
 * first of them its host memory.  The first node's host memory is `host`
 * (HS_HOST_MEMORY), where the applications' input_bytes start and where
 * their output_bytes go back. */
typedef struct hs_node {
    char *name;          /* unique among nodes */
    int host;            /* index of its host memory */
    int first_link;      /* declared links before its own (hs_platform.nlinks) */
} hs_node;

/* A link of the network, from one node to another.  gpu_direct: the
 * network reads and writes every memory of both nodes directly (GPUDirect
 * RDMA); otherwise a copy from or to a device memory goes through the
 * node's host memory over the node's own links. */
typedef struct hs_net_link {
    int present;
    int gpu_direct;
    double bandwidth_gbps;
    double latency_us;
} hs_net_link;

typedef struct hs_platform {
    int ndevices;
    hs_device *devices;
    int nmemories;
    char **memories;     /* memories[HS_HOST_MEMORY] == "host" */
    hs_link *links;      /* nmemories x nmemories, links[from * nmemories + to] */
    int *memory_node;    /* [nmemories]: the node each memory belongs to (0 without nodes) */
    int nnodes;          /* 0: one machine, no nodes declared */
    hs_node *nodes;
    hs_net_link *network; /* nnodes x nnodes, network[from * nnodes + to] */
    int nlinks;          /* declared links */
    int nnetwork;        /* network links present */
    struct hs__strmap *device_index; /* device name -> index; a program that removes
                                        devices frees it and sets it NULL (then
                                        lookups search the list) */
} hs_platform;

const char *hs_device_kind_name(hs_device_kind kind); /* "cpu", "gpu" */

/* The delay model (DESIGN.md §1): 0 on the same memory or for 0 bytes (an
 * edge without data is a pure ordering constraint), else
 * latency_us + bytes / (bandwidth_gbps * 1000).  Returns HUGE_VAL where the
 * two memories have no link (finalize makes sure that never happens for a
 * pair that exchanges data). */
double hs_transfer_us(const hs_platform *p, int from_memory, int to_memory, double bytes);

/* Index of a device, memory or node by name, or -1. */
int hs_platform_find_device(const hs_platform *p, const char *name);
int hs_platform_find_memory(const hs_platform *p, const char *name);
int hs_platform_find_node(const hs_platform *p, const char *name);

/* Derives the routes between memories of different nodes from the network
 * (finalize calls it; a program that builds a platform without finalizing
 * may too).  For memories q of node A and r of node B != A, with a network
 * link A -> B: over gpu_direct, the route is that network link; otherwise
 * it is q -> A's host (a link of A, none when q is A's host), the network
 * link, B's host -> r (likewise).  A pair whose hops are not all declared
 * gets no route, nor does a pair of nodes without a network link (copies
 * are not relayed through a third node).  Routes derived before are
 * replaced; declared links are left alone.  O(nmemories^2). */
void hs_platform_route(hs_platform *p);

/* ------------------------------------------------------------ applications */

typedef struct hs_param {
    char *name;
    double value;
} hs_param;

typedef struct hs_cost_entry { /* as written: key is a device name or a kind */
    const char *key;       /* the workload's one copy of it (hs_workload.cost_keys),
                              which many kernels share: never freed alone */
    double us;
} hs_cost_entry;

typedef struct hs_kernel {
    char *name;            /* unique within its application; the copy its
                              application's kernel_index holds: never freed alone */
    char *type;            /* a real kernel type (`gemm`, ...) or NULL */
    int nparams;
    hs_param *params;
    int ncosts;
    hs_cost_entry *costs;  /* as given; resolved per device into cost_us */
    int costs_cap;         /* entries allocated in costs (finalize trims it to ncosts) */
    double *cost_us;       /* [ndevices] after finalize */
    double input_bytes;    /* read from host memory before it starts */
    double output_bytes;   /* written back to host memory after it ends */
    int splittable;        /* may be split across devices (items > 0) */
    double items;
} hs_kernel;

/* Which buffer of the consumer's kernel type an edge feeds (its binding):
 * `buffer` as written, then `feeds` as finalize resolves it by the rule of
 * exec/data.h (a name wins; `none` only orders; without either, the k-th
 * edge with data feeds the k-th readable buffer no edge names). */
#define HS_BUFFER_NONE "none" /* the edge only orders; its bytes stay the cost model's */

typedef struct hs_kernel_edge {
    int from, to;          /* kernel indices within the application */
    double bytes;
    char *buffer;          /* as written: a buffer name of `to`'s kernel type,
                              HS_BUFFER_NONE, or NULL (the implicit rule) */
    int feeds;             /* after finalize: the index, in the type's buffer
                              order, of the buffer of `to` that `from`'s result
                              feeds; -1 when the edge only orders */
} hs_kernel_edge;

typedef struct hs_app {
    char *name;            /* unique */
    int instances;         /* >= 1 */
    int nkernels;
    hs_kernel *kernels;
    int nedges;
    hs_kernel_edge *edges;
    int kernels_cap, edges_cap; /* entries allocated (finalize trims them to the counts) */
    struct hs__strmap *kernel_index; /* kernel name -> index, and */
    struct hs__edge_set *edge_set;   /* the builder's (from, to) pairs: keep its
                                        duplicate check O(1) so generators can
                                        build 1M kernels; finalize frees it
                                        (an edge added later builds it again) */
    int *edge_off, *edge_by_from;    /* after finalize, for hs_edge_origin: the
                                        edges by source kernel (edge_off[k] ..
                                        edge_off[k + 1] - 1), each kernel's by
                                        target */
} hs_app;

/* ------------------------------------------------------------- task graph */

typedef struct hs_task {
    size_t origin;         /* index of the whole task in the workload's graph;
                              == own index unless a policy split the graph */
    int app, instance, kernel;
    int part, nparts;      /* 0/1 for a whole task; k/n for a part of a split */
    double fraction;       /* 1 for a whole task */
    double *cost_us;       /* [ndevices], owned by the graph */
    double input_bytes, output_bytes;
} hs_task;

typedef struct hs_edge {
    size_t from, to;       /* task indices */
    double bytes;
} hs_edge;

/* Adjacency in CSR form: the edges leaving task t are
 * edges[succ[succ_off[t]]] .. edges[succ[succ_off[t + 1] - 1]]; likewise
 * pred/pred_off for the edges entering t.
 *
 * A graph of parts (ad-part's) may leave the edges between its parts
 * implied, when `whole` is set: task t of `whole` has the parts
 * part_base[t] .. part_base[t + 1] - 1 here, and each edge u -> v of
 * `whole` of b bytes stands for an edge of b x f_i x f_j bytes from each
 * part i of u to each part j of v (f: the parts' fractions), listed
 * nowhere: nedges is 0 and there is no adjacency (an edge between two
 * kernels split on 8 devices stands for 64). */
typedef struct hs_graph {
    int ndevices;
    size_t ntasks;
    hs_task *tasks;
    size_t nedges;
    hs_edge *edges;
    size_t *succ_off, *succ;
    size_t *pred_off, *pred;
    double *cost_pool;     /* ntasks x ndevices; tasks[t].cost_us points here
                              (a graph of parts with `whole` set may point a
                              whole task's into whole's, and hold its parts'
                              costs only) */
    const struct hs_graph *whole; /* NULL: the edges are listed */
    size_t *part_base;     /* [whole->ntasks + 1], owned */
} hs_graph;

/* Allocates `ntasks` tasks (zeroed, fraction 1, nparts 1, cost_us pointing
 * into the pool) and room for `nedges` edges (nedges set to 0). */
int hs_graph_init(hs_graph *g, size_t ntasks, size_t nedges, int ndevices, hs_error *err);
/* Builds succ/pred from edges[0..nedges). */
int hs_graph_build_adjacency(hs_graph *g, hs_error *err);
/* Writes a topological order of all tasks into `order` (ntasks entries).
 * Returns HS_EINPUT if the graph has a cycle. */
int hs_graph_topo_order(const hs_graph *g, size_t *order, hs_error *err);
void hs_graph_free(hs_graph *g);

#define HS_GRAPH_SUCC_FOREACH(g, t, e)                                      \
    for (size_t hs__i = (g)->succ_off[t], hs__end = (g)->succ_off[(t) + 1];  \
         hs__i < hs__end && ((e) = &(g)->edges[(g)->succ[hs__i]], 1); hs__i++)
#define HS_GRAPH_PRED_FOREACH(g, t, e)                                      \
    for (size_t hs__i = (g)->pred_off[t], hs__end = (g)->pred_off[(t) + 1];  \
         hs__i < hs__end && ((e) = &(g)->edges[(g)->pred[hs__i]], 1); hs__i++)

/* ---------------------------------------------------------------- workload */

/* A cost provider: the cost in µs of typed kernel k on device d, into *us
 * (finite, >= 0).  On failure it returns a negative HS_E* code with a
 * one-line message in err (e.g. "no performance model for gemm on gpu0 ..."),
 * which finalize prefixes with the kernel's path.  Finalize also calls it
 * with k NULL for each device whose overhead_us the platform leaves at 0:
 * it returns 0 with the device's per-task overhead in *us (a model's
 * measured one), or 1 when it knows none. */
typedef int (*hs_cost_fn)(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                          hs_error *err);

/* A link provider: the bandwidth in GB/s of the declared link from memory
 * `from` to memory `to`, into *gbps.  It returns 0 with one, 1 when it
 * knows none (the platform's stays), or a negative HS_E* code with a
 * one-line message in err.  Finalize asks it for every declared link, and
 * what it answers replaces the platform's bandwidth (a model's, measured
 * in runs: hetsched/perfmodel.h). */
typedef int (*hs_link_fn)(void *ctx, const char *from, const char *to, double *gbps,
                          hs_error *err);

typedef struct hs_workload {
    char *path;            /* file it came from, or NULL */
    hs_platform platform;
    int napps;
    hs_app *apps;
    int finalized;
    hs_graph graph;        /* every instance of every application */
    struct hs__strmap *ids; /* application name -> its first task, built on demand
                               (hs_task_parse_id) */
    struct hs__strmap *cost_keys; /* the keys of every kernel's costs, one copy each
                                     (a kernel of a 320-device cluster names them all) */
    hs_cost_fn cost_fn;    /* see hs_workload_set_cost_fn; NULL: none */
    void *cost_ctx;
    hs_link_fn link_fn;    /* see hs_workload_set_link_fn; NULL: none */
    void *link_ctx;
} hs_workload;

hs_workload *hs_workload_new(void);
void hs_workload_free(hs_workload *w);

/* Platform.  Return the new index, or a negative error. */
int hs_platform_add_device(hs_workload *w, const char *name, hs_device_kind kind,
                           const char *memory, int cores, hs_error *err);
int hs_platform_add_link(hs_workload *w, const char *from, const char *to,
                         double bandwidth_gbps, double latency_us, hs_error *err);
/* A cluster: hs_platform_add_node starts a node whose host memory is
 * `host` (NULL for the first node: `host`, the only name it may have; a
 * later node must name a new memory).  The devices and links added after
 * it belong to it (a node's memories are its own: a device or link naming
 * another node's memory is refused), so every node is added before its
 * devices, and the first before any device.  hs_platform_add_network_link
 * joins two nodes (an ordered pair, as a link).  Errors name the item as
 * `platform.nodes[N].devices[I]`, `platform.network[I]`. */
int hs_platform_add_node(hs_workload *w, const char *name, const char *host, hs_error *err);
int hs_platform_add_network_link(hs_workload *w, const char *from, const char *to,
                                 double bandwidth_gbps, double latency_us, int gpu_direct,
                                 hs_error *err);
/* Declares p's devices, links, nodes and network in w, whose platform is
 * empty (memories come from the devices in the same order, so indices
 * agree). */
int hs_platform_copy(hs_workload *w, const hs_platform *p, hs_error *err);
/* Sets device d's overhead_us (0 .. HS_MAX_US); HS_OK or HS_EINPUT. */
int hs_platform_set_overhead(hs_workload *w, int d, double overhead_us, hs_error *err);

/* Applications.  Return the new index, or a negative error. */
int hs_workload_add_app(hs_workload *w, const char *name, int instances, hs_error *err);
int hs_app_add_kernel(hs_workload *w, int app, const char *name, hs_error *err);
int hs_kernel_set_cost(hs_workload *w, int app, int kernel, const char *key, double us,
                       hs_error *err);
int hs_kernel_set_bytes(hs_workload *w, int app, int kernel, double input_bytes,
                        double output_bytes, hs_error *err);
int hs_kernel_set_type(hs_workload *w, int app, int kernel, const char *type, hs_error *err);
int hs_kernel_add_param(hs_workload *w, int app, int kernel, const char *name, double value,
                        hs_error *err);
int hs_kernel_set_split(hs_workload *w, int app, int kernel, int splittable, double items,
                        hs_error *err);
/* Writes the kernel types a kernel's `type` may name (the real kernels
 * `run` executes): each type, its description, its params with their
 * ranges and defaults, and how its result is checked (`hetsched calibrate
 * --types help`). */
void hs_ktype_help(FILE *out);
int hs_app_add_edge(hs_workload *w, int app, const char *from, const char *to, double bytes,
                    hs_error *err);
/* Binds edge `edge` of `app` (an index hs_app_add_edge returned) to buffer
 * `buffer` of its consumer's kernel type, or makes it only order
 * (HS_BUFFER_NONE); NULL goes back to the implicit rule.  Finalize checks
 * the binding against the kernel types (exec/data.h). */
int hs_edge_set_buffer(hs_workload *w, int app, int edge, const char *buffer, hs_error *err);

/* Sets the cost provider finalize asks for every (kernel, device) pair of a
 * kernel with a type that its cost_us does not cover (given costs always
 * win).  `fn` NULL removes it.  graph/ knows nothing of where the costs come
 * from: hetsched/perfmodel.h has one backed by a performance model. */
void hs_workload_set_cost_fn(hs_workload *w, hs_cost_fn fn, void *ctx);

/* Sets the link provider finalize asks for every declared link's bandwidth
 * (hs_link_fn).  `fn` NULL removes it. */
void hs_workload_set_link_fn(hs_workload *w, hs_link_fn fn, void *ctx);

/* Checks the whole workload and builds w->graph.  On error the workload is
 * left unfinalized (and may be freed). */
int hs_workload_finalize(hs_workload *w, hs_error *err);

/* Task identifiers: `APP#I/KERNEL`, and `APP#I/KERNEL[k/n]` for part k of n.
 * hs_task_id returns the length it needed (snprintf-like); a buffer of
 * HS_TASK_ID_MAX bytes holds any id, and an id cut to fit a smaller one ends
 * on a UTF-8 character boundary. */
int hs_task_id(const hs_workload *w, const hs_task *t, char *buf, size_t size);
/* Parses an identifier of a task of w->graph.  *task gets the index of the
 * whole task; part and nparts get 0 and 1 for a whole task.  Returns HS_EINPUT
 * (message naming the id) if no such task exists. */
int hs_task_parse_id(hs_workload *w, const char *id, size_t *task, int *part, int *nparts,
                     hs_error *err);

/* The edge of w's applications that task-graph edge e of g instantiates
 * (g: w->graph, or a graph a policy derived from it, whose tasks keep their
 * app and kernel), or NULL when there is none. */
const hs_kernel_edge *hs_edge_origin(const hs_workload *w, const hs_graph *g, const hs_edge *e);

/* The smallest cost of task t over all devices. */
double hs_task_min_cost(const hs_graph *g, size_t t);
/* Task t's cost on device d less d's overhead_us: what its kernel takes. */
double hs_task_kernel_us(const hs_platform *p, const hs_task *t, int d);
/* The cost on d of a part of t that holds fraction f of its items: f of
 * the kernel, and the whole overhead (each part is a task of its own). */
double hs_task_part_us(const hs_platform *p, const hs_task *t, int d, double f);

/* The critical path of g where each task costs its fastest device's time
 * and no transfer costs anything, in µs: the denominator of the schedule
 * length ratio (SLR; Topcuoglu et al. 2002, eq. (9)) that `compare`
 * prints.  HS_EINPUT on a cycle, HS_ENOMEM. */
int hs_graph_critical_path_us(const hs_graph *g, double *out, hs_error *err);

/* Writes w's platform and applications, as declared, in the YAML of
 * DESIGN.md §3 (libyaml's emitter): devices, links, then each application
 * with its kernels (type, params, cost_us as given, input/output bytes) and
 * edges (bytes, and buffer where one is written); optional fields only
 * where they differ from their defaults.  Numbers are written so that they read back to the same doubles, so the
 * loader gives back an equal workload.  HS_EIO if writing fails. */
int hs_workload_write_yaml(const hs_workload *w, FILE *out, hs_error *err);
/* The same document in JSON (the README's JSON form of a workload), one
 * device, link, kernel or edge a line, the platform first: what the loader
 * reads in one pass.  HS_EIO if writing fails. */
int hs_workload_write_json(const hs_workload *w, FILE *out, hs_error *err);

/* Writes only the `platform:` section of p (devices and links), in the same
 * form: a file to complete with `applications:` (what `hetsched calibrate`
 * writes).  HS_EIO if writing fails. */
int hs_platform_write_yaml(const hs_platform *p, FILE *out, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
