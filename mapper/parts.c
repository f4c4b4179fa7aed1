/* hetsched — parts of split tasks (mapper/parts.h). */
#include <stdlib.h>
#include <string.h>

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

/* off[0..n] from the counts in off[1..n]: each list's start, and fill[] a
 * copy of the starts to append at. */
static void starts(size_t *off, size_t *fill, size_t n)
{
    for (size_t t = 0; t < n; t++)
        off[t + 1] += off[t];
    memcpy(fill, off, n * sizeof *fill);
}

int hs__part_edges(const hs_graph *g, const size_t *base, hs_graph *out, hs_error *err)
{
    size_t n = out->ntasks, ne, *sfill = NULL, *pfill = NULL;
    int rc = HS_OK;
    out->succ_off = calloc(n + 1, sizeof *out->succ_off);
    out->pred_off = calloc(n + 1, sizeof *out->pred_off);
    sfill = malloc((n + 1) * sizeof *sfill);
    pfill = malloc((n + 1) * sizeof *pfill);
    if (!out->succ_off || !out->pred_off || !sfill || !pfill)
        goto nomem;
    /* each part of u has an edge to each part of v, for every edge u -> v */
    for (size_t e = 0; e < g->nedges; e++) {
        size_t u = g->edges[e].from, v = g->edges[e].to;
        for (size_t i = base[u]; i < base[u + 1]; i++)
            out->succ_off[i + 1] += base[v + 1] - base[v];
        for (size_t j = base[v]; j < base[v + 1]; j++)
            out->pred_off[j + 1] += base[u + 1] - base[u];
    }
    starts(out->succ_off, sfill, n);
    starts(out->pred_off, pfill, n);
    ne = out->succ_off[n];
    out->succ = malloc((ne ? ne : 1) * sizeof *out->succ);
    out->pred = malloc((ne ? ne : 1) * sizeof *out->pred);
    if (!out->succ || !out->pred)
        goto nomem;
    for (size_t e = 0; e < g->nedges; e++) {
        const hs_edge *ed = &g->edges[e];
        for (size_t i = base[ed->from]; i < base[ed->from + 1]; i++)
            for (size_t j = base[ed->to]; j < base[ed->to + 1]; j++) {
                size_t k = out->nedges++;
                out->edges[k] = (hs_edge){.from = i,
                                          .to = j,
                                          .bytes = ed->bytes * out->tasks[i].fraction *
                                                   out->tasks[j].fraction};
                out->succ[sfill[i]++] = k;
                out->pred[pfill[j]++] = k;
            }
    }
    goto out;
nomem:
    rc = hs_error_set(err, HS_ENOMEM, "out of memory for the adjacency of a split graph");
out:
    free(sfill);
    free(pfill);
    return rc;
}

int hs__part_edges_list(hs_graph *g, hs_error *err)
{
    const hs_graph *whole = g->whole;
    const size_t *base = g->part_base;
    size_t ne = 0;
    int rc;
    if (!whole)
        return HS_OK;
    for (size_t e = 0; e < whole->nedges; e++)
        ne += (base[whole->edges[e].from + 1] - base[whole->edges[e].from]) *
              (base[whole->edges[e].to + 1] - base[whole->edges[e].to]);
    free(g->edges);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_off);
    free(g->pred);
    g->succ_off = g->succ = g->pred_off = g->pred = NULL;
    if (!(g->edges = malloc((ne ? ne : 1) * sizeof *g->edges)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the edges of a split graph");
    g->nedges = 0;
    if ((rc = hs__part_edges(whole, base, g, err)) != HS_OK)
        return rc;
    g->whole = NULL;
    free(g->part_base);
    g->part_base = NULL;
    return HS_OK;
}
