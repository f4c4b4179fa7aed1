/* hetsched — reading workloads: the YAML of DESIGN.md §3 via libcyaml, and
 * the task-graph sets of the scheduling literature (graph/read_*.c).
 *
 * Formats (hs_workload_formats): `yaml` (a platform and applications, this
 * loader), `json` (the same document written as JSON, read by yajl into the
 * same loader's one pass), and three sets that describe one task graph
 * without a platform: `stg` (Kasahara's Standard Task Graph Set, with or
 * without communication costs), `wfformat` (WfCommons' WfFormat JSON, 1.5
 * and 1.6) and `dot` (a
 * task graph drawn in Graphviz DOT with cost and bytes attributes, as
 * hs_dot_write writes it).  A set's tasks run on a platform given apart
 * (hs_load_options.platform, e.g. from hs_platform_load_file), and become
 * one application named after the file (its base name without extension,
 * with what a name may not hold replaced by '_'); a DOT graph whose nodes
 * are named by task id (`APP#I/KERNEL`, as hs_dot_write names them) gives
 * back its applications and instances instead.
 *
 * A set gives each task one cost c, which becomes a cost per device d:
 *     cost(t, d) = c * h(t, d) / speed(d)
 * speed(d) is the speed hs_load_options.speeds gives d's name, else d's
 * kind, else 1; h(t, d) is 1 without heterogeneity, else drawn uniformly
 * from [1 - beta/2, 1 + beta/2] for each task and device (in file order,
 * then device order) from GSL's MT19937 seeded with beta_seed: the
 * heterogeneity factor of Topcuoglu, Hariri & Wu (HEFT, TPDS 2002, Sec.
 * 5.1), where w(i, j) is drawn from [w(i) (1 - beta/2), w(i) (1 + beta/2)].
 * A task given per-device costs (DOT's cost_us) keeps them.  Times in a
 * set are microseconds; a communication cost given as a time (STG) becomes
 * bytes at the platform's mean link bandwidth: c us * mean bandwidth_gbps *
 * 1000 bytes, rounded (so that a link of mean bandwidth takes its latency
 * plus c).
 *
 * On success *out is a finalized workload.  On any error nothing is returned
 * (*out stays NULL), the code is HS_EINPUT (also for a file that cannot be
 * read: a bad path is bad input; HS_EUSAGE for options that do not apply)
 * and the message is one line:
 *   FILE:LINE:COL: error: WHAT          (syntax, unknown or missing fields)
 *   FILE:LINE:COL: error: PATH: WHAT    (semantic errors, e.g.
 *     applications[1].edges[0].to: no kernel 'mul' in application 'xgemm')
 *   FILE:LINE:COL: error: ITEM: WHAT    (an item of a set: "task 3" of
 *     STG, a JSON path of WfFormat, workflow.specification.tasks[2].id)
 *   FILE: error: ITEM: WHAT             (where the format has no line for
 *     it: a DOT node or edge, a cycle)
 * Names and values quoted in a message have control characters escaped.
 *
 * Anchors/aliases and more than one YAML document are refused.  Bounds that
 * keep hostile input cheap (each refused with a message naming the item):
 * a YAML workload up to 1024 MiB (the environment variable
 * HETSCHED_YAML_MAX_MIB sets another cap, 1 to 1048576), a set's file up to
 * 64 MiB; 128 keys per mapping, 64 devices, 4096 applications, and
 * hs_max_tasks() tasks and hs_max_edges() edges (in the file, and once
 * instances are expanded; 1000000 and 4000000 unless HETSCHED_MAX_TASKS
 * sets another, graph.h).
 *
 * A YAML file is read in one pass over its YAML events, straight into the
 * workload, when its fields come in the order the generators write them
 * (the platform first; an application's name and instances, then its
 * kernels, then its edges).  A file of at most 64 MiB that this pass does
 * not take is read again as a YAML tree, for any order and exact messages:
 * nesting 16 deep and 4000000 YAML nodes at most (the environment variable
 * HETSCHED_YAML_NODES sets another budget, 1 to 1000000000).  A larger one
 * is refused where the one pass stopped.  A platform file is read as a tree.
 * The JSON form is read in that one pass only, so it keeps that order; the
 * YAML's size cap and bounds hold for it, and its errors are located at the
 * value they are about (an item path found by reading the text again).
 * Numbers and names are bounded as graph.h says; a typed kernel's type and
 * params are checked as the kernel registry (workloads/kernels) checks them.
 * The DOT reader is cgraph's parser, which keeps global state: read DOT from
 * one thread at a time.
 */
#ifndef HETSCHED_LOAD_H
#define HETSCHED_LOAD_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

int hs_workload_load_file(const char *path, hs_workload **out, hs_error *err);

/* What a load may add to the file's content.  Zero-initialise it: fields
 * left 0 change nothing. */
typedef struct hs_load_options {
    hs_cost_fn cost_fn;    /* cost provider for typed kernels (hs_workload_set_cost_fn) */
    void *cost_ctx;
    /* One of hs_workload_formats(); NULL: hs_workload_format_of(the name),
     * else yaml. */
    const char *format;
    /* The platform a set's tasks run on (copied).  Needed by a set, refused
     * (HS_EUSAGE) for yaml, as are speeds and beta. */
    const hs_platform *platform;
    /* Per-device costs of the tasks a set gives one cost (see above):
     * "KEY=S[,KEY=S...]", KEY a device name or kind of the platform, S from
     * 1e-6 to 1e6 (hs_load_speeds_check); NULL: every speed 1. */
    const char *speeds;
    double beta;             /* heterogeneity, 0 <= beta < 2; 0: none */
    unsigned long beta_seed; /* seed of beta's draws */
    /* 1: the file is one of a suite read with the same options, so speeds
     * and beta may find no task to apply to (they are refused otherwise,
     * HS_EUSAGE, when every task has its costs per device). */
    int suite;
    /* link provider (hs_workload_set_link_fn), called with cost_ctx; NULL:
     * none */
    hs_link_fn link_fn;
} hs_load_options;

/* hs_workload_load_file with options (`opt` NULL: none). */
int hs_workload_load_file_opts(const char *path, const hs_load_options *opt, hs_workload **out,
                               hs_error *err);
/* `name` is used in messages in place of a file name, and gives the format
 * by its extension. */
int hs_workload_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err);
int hs_workload_load_buffer_opts(const char *name, const char *data, size_t len,
                                 const hs_load_options *opt, hs_workload **out, hs_error *err);

/* Reads the `platform:` section of a YAML file (what `hetsched calibrate
 * --out-platform` writes; a workload's file serves too: its `applications`,
 * if any, are not read) into a new workload that holds only that platform
 * (not finalized: *out is for hs_load_options.platform = &(*out)->platform).
 * Errors as hs_workload_load_file's, bounds as the YAML's; at least one
 * device. */
int hs_platform_load_file(const char *path, hs_workload **out, hs_error *err);
int hs_platform_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err);

/* The formats, NULL-ended: "yaml", "json" (the same workload written as
 * JSON), "stg", "wfformat", "dot". */
const char *const *hs_workload_formats(void);
/* A one-line description of a format, with its file extensions; NULL for
 * a name that is none. */
const char *hs_workload_format_describe(const char *format);
/* The format whose extension `path` ends with (.yaml .yml, .stg, .json,
 * .dot .gv), or NULL.  A .json file is "json" when its first key is
 * "platform" (the file is opened to see), else "wfformat". */
const char *hs_workload_format_of(const char *path);
/* 1 when `format` is a task-graph set (no platform of its own), 0 for
 * yaml and json, -1 for a name that is no format. */
int hs_workload_format_is_set(const char *format);
/* Checks a speeds string (hs_load_options.speeds) on its own: HS_EUSAGE
 * with a message naming the bad entry, else HS_OK.  Whether its keys name
 * devices or kinds is checked at load, against the platform. */
int hs_load_speeds_check(const char *speeds, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
