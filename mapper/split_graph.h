/* hetsched — graph-level splitting's internals; the API and how a kernel
 * is split and its parts pinned: include/hetsched/split.h. */
#ifndef HS_MAPPER_SPLIT_GRAPH_H
#define HS_MAPPER_SPLIT_GRAPH_H

#include "hetsched/split.h"

/* The device each task of g is pinned to (-1: a whole task), when opt
 * splits by graph (opt->split) and g is the graph of its last transform;
 * NULL otherwise (opt NULL, no split, nothing split). */
const int *hs__split_graph_pins(const hs_map_options *opt, const hs_graph *g);

#endif
