/* hetsched — building the graph of a split workload: what ad-part
 * (mapper/ad_part.c) and graph-level splitting (mapper/split_graph.c) share
 * once each task's parts and fractions are chosen. */
#ifndef HS_MAPPER_PARTS_H
#define HS_MAPPER_PARTS_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

/* Fills part k of np of task src (index `origin`) with fraction f: its
 * identity and f of src's host input and output bytes.  Costs are the
 * caller's. */
void hs__part_fill(hs_task *p, const hs_task *src, size_t origin, size_t k, size_t np, double f);

/* Fills out's edges, from hs_graph_init's room for them all, with the
 * edges between the parts of g's tasks, and builds their adjacency (as
 * hs_graph_build_adjacency would, without reading them back): task t's
 * parts are out->tasks[base[t] .. base[t + 1]), and the edge u -> v of b
 * bytes becomes every part i of u -> part j of v with b * f_i * f_j bytes
 * (each part sends its share of the data to each part in proportion).
 * HS_ENOMEM. */
int hs__part_edges(const hs_graph *g, const size_t *base, hs_graph *out, hs_error *err);

/* Lists the edges that g, a graph of parts, leaves implied (g->whole, see
 * hetsched/graph.h) with their adjacency, as hs__part_edges builds them;
 * nothing when g lists its edges.  HS_ENOMEM. */
int hs__part_edges_list(hs_graph *g, hs_error *err);

#endif
