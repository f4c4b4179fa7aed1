/* hetsched — which buffer each edge feeds, resolved when a workload is
 * finalized (graph/binding.c; the rule is exec/data.h's). */
#ifndef HS_GRAPH_BINDING_H
#define HS_GRAPH_BINDING_H

#include "hetsched/graph.h"

/* Sets feeds on every edge of application `app` of w by the rule of
 * exec/data.h, checking each explicit binding (the buffer exists, is read,
 * has the producer's result size, is fed once) and each implicit one (the
 * buffer the rule picks has the producer's result size).  HS_EINPUT with
 * the edge's path (`applications[A].edges[E]`, `.buffer` for an explicit
 * one) and what to write instead; a kernel type or params the registry
 * refuses are reported at the kernel. */
int hs__bind_edges(hs_workload *w, int app, hs_error *err);

#endif
