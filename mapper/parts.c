/* hetsched — parts of split tasks (mapper/parts.h). */
#include "mapper/parts.h"

void hs__part_fill(hs_task *p, const hs_task *src, size_t origin, size_t k, size_t np, double f)
{
    p->origin = origin;
    p->app = src->app;
    p->instance = src->instance;
    p->kernel = src->kernel;
    p->part = (int)k;
    p->nparts = (int)np;
    p->fraction = f;
    p->input_bytes = src->input_bytes * f;
    p->output_bytes = src->output_bytes * f;
}

void hs__part_edges(const hs_graph *g, const size_t *base, hs_graph *out)
{
    for (size_t e = 0; e < g->nedges; e++) {
        const hs_edge *ed = &g->edges[e];
        for (size_t i = base[ed->from]; i < base[ed->from + 1]; i++)
            for (size_t j = base[ed->to]; j < base[ed->to + 1]; j++)
                out->edges[out->nedges++] =
                    (hs_edge){.from = i,
                              .to = j,
                              .bytes = ed->bytes * out->tasks[i].fraction *
                                       out->tasks[j].fraction};
    }
}
