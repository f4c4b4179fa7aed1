/* hetsched — the workload loader: YAML of DESIGN.md §3 via libcyaml.
 *
 * On success *out is a finalized workload.  On any error nothing is returned
 * (*out stays NULL), the code is HS_EINPUT (also for a file that cannot be
 * read: a bad path is bad input) and the message is one line:
 *   FILE:LINE:COL: error: WHAT          (syntax, unknown or missing fields)
 *   FILE:LINE:COL: error: PATH: WHAT    (semantic errors, e.g.
 *     applications[1].edges[0].to: no kernel 'mul' in application 'xgemm')
 * Names and values quoted in a message have control characters escaped.
 *
 * Anchors/aliases and more than one YAML document are refused.  Bounds that
 * keep hostile input cheap (each refused with a message naming the item):
 * files up to 1024 MiB (the environment variable HETSCHED_YAML_MAX_MIB sets
 * another cap, 1 to 1048576), 128 keys per mapping, 64 devices, 4096
 * applications, and HS_MAX_TASKS tasks and HS_MAX_EDGES edges (in the file,
 * and once instances are expanded).
 *
 * A file is read in one pass over its YAML events, straight into the
 * workload, when its fields come in the order the generators write them
 * (the platform first; an application's name and instances, then its
 * kernels, then its edges).  A file of at most 64 MiB that this pass does
 * not take is read again as a YAML tree, for any order and exact messages:
 * nesting 16 deep and 4000000 YAML nodes at most (the environment variable
 * HETSCHED_YAML_NODES sets another budget, 1 to 1000000000).  A larger one
 * is refused where the one pass stopped.
 * Numbers and names are bounded as graph.h says; a typed kernel's type and
 * params are checked as the kernel registry (workloads/kernels) checks them.
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
} hs_load_options;

/* hs_workload_load_file with options (`opt` NULL: none). */
int hs_workload_load_file_opts(const char *path, const hs_load_options *opt, hs_workload **out,
                               hs_error *err);
/* `name` is used in messages in place of a file name. */
int hs_workload_load_buffer(const char *name, const char *data, size_t len, hs_workload **out,
                            hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
