/* hetsched — the time of a transfer (hs_transfer_us, DESIGN.md §1) for the
 * library's own loops: the engine's data-ready times and the schedule's
 * transfers ask it some 20 times per task of a split graph, and a call into
 * the shared library's exported function (through its PLT) cost a third of
 * the formula's instructions there. */
#ifndef HS_GRAPH_TRANSFER_H
#define HS_GRAPH_TRANSFER_H

#include <math.h>

#include "hetsched/graph.h"

static inline double hs__transfer_us(const hs_platform *p, int from_memory, int to_memory,
                                     double bytes)
{
    const hs_link *l;
    if (from_memory == to_memory || bytes <= 0)
        return 0.0;
    l = &p->links[from_memory * p->nmemories + to_memory];
    if (!l->present)
        return HUGE_VAL;
    return l->latency_us + bytes / (l->bandwidth_gbps * 1000.0);
}

#endif
