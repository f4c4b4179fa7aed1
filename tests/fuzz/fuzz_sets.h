/* What the fuzz targets of the readers of task-graph sets (fuzz_stg.c,
 * fuzz_wfformat.c, fuzz_dot.c) and their replay in tests/test_corpus.c
 * share: the platform the sets are read on, and each input's contract
 * (messages printable as fuzz_util.h's readers' are; DOT's items and a
 * cycle have no line to give). */
#ifndef HS_TESTS_FUZZ_SETS_H
#define HS_TESTS_FUZZ_SETS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "hetsched/hetsched.h"

/* The platform the sets are read on: fuzz_util.h's workload's (three
 * devices on three memories, every pair linked), read once. */
static hs_workload *fuzz_sets_platform_workload(void)
{
    static hs_workload *p;
    if (!p)
        p = fuzz_workload();
    return p;
}

/* 1 when w and v hold the same applications, kernels (costs on every
 * device, bytes, type, params, split) and edges (bytes, buffer), in the same
 * order. */
static int fuzz_sets_same(const hs_workload *w, const hs_workload *v)
{
    if (w->napps != v->napps || w->graph.ntasks != v->graph.ntasks ||
        w->graph.nedges != v->graph.nedges)
        return 0;
    for (int a = 0; a < w->napps; a++) {
        const hs_app *x = &w->apps[a], *y = &v->apps[a];
        if (strcmp(x->name, y->name) || x->instances != y->instances ||
            x->nkernels != y->nkernels || x->nedges != y->nedges)
            return 0;
        for (int k = 0; k < x->nkernels; k++) {
            const hs_kernel *p = &x->kernels[k], *q = &y->kernels[k];
            if (strcmp(p->name, q->name) || p->input_bytes != q->input_bytes ||
                p->output_bytes != q->output_bytes || !p->type != !q->type ||
                (p->type && strcmp(p->type, q->type)) || p->nparams != q->nparams ||
                p->splittable != q->splittable || p->items != q->items)
                return 0;
            for (int d = 0; d < w->platform.ndevices; d++)
                if (p->cost_us[d] != q->cost_us[d])
                    return 0;
            for (int i = 0; i < p->nparams; i++)
                if (strcmp(p->params[i].name, q->params[i].name) ||
                    p->params[i].value != q->params[i].value)
                    return 0;
        }
        for (int e = 0; e < x->nedges; e++)
            if (x->edges[e].from != y->edges[e].from || x->edges[e].to != y->edges[e].to ||
                x->edges[e].bytes != y->edges[e].bytes ||
                !x->edges[e].buffer != !y->edges[e].buffer ||
                (x->edges[e].buffer && strcmp(x->edges[e].buffer, y->edges[e].buffer)))
                return 0;
    }
    return 1;
}

/* The contract of one input `data` read as `name` (whose extension gives
 * the format): either a finalized, non-empty workload whose DOT (small
 * graphs) reads back to the same workload, or HS_EINPUT / HS_ENOMEM,
 * nothing returned, and one line "NAME...: error: ...".  Returns 1 when
 * read, 0 when refused, -1 when the contract is broken (*why says how). */
static int fuzz_sets_check(const char *name, const char *data, size_t len, const char **why)
{
    hs_workload *platform = fuzz_sets_platform_workload();
    hs_load_options o = {.speeds = "gpu=2", .beta = 0.5, .beta_seed = 1, .suite = 1};
    hs_workload *w = (hs_workload *)&w, *back = NULL;
    hs_error err;
    char *text = NULL;
    size_t tlen = 0;
    FILE *f;
    int rc, same;
    if (!platform) {
        *why = "the platform does not read";
        return -1;
    }
    o.platform = &platform->platform;
    rc = hs_workload_load_buffer_opts(name, data, len, &o, &w, &err);
    if (rc != HS_OK) {
        if (w != NULL || rc != err.code || (rc != HS_EINPUT && rc != HS_ENOMEM))
            *why = "a refusal returned a workload or the wrong code";
        else if (strncmp(err.msg, name, strlen(name)) != 0 || !fuzz_one_line(err.msg) ||
                 (rc == HS_EINPUT && !strstr(err.msg, ": error: ")))
            *why = "a refusal's message is not one printable line NAME...: error: ...";
        else
            return 0;
        return -1;
    }
    if (!w || !w->finalized || w->graph.ntasks == 0) {
        *why = "no finalized workload";
        return -1;
    }
    if (w->graph.ntasks > 2048 || w->graph.nedges > 8192) {
        hs_workload_free(w);
        return 1;
    }
    /* written as DOT (on its platform, costs per device), it reads back */
    o = (hs_load_options){.platform = &w->platform};
    if (!(f = open_memstream(&text, &tlen)) || hs_dot_write(w, NULL, f, &err) != HS_OK) {
        if (f)
            fclose(f);
        free(text);
        hs_workload_free(w);
        *why = "hs_dot_write failed";
        return -1;
    }
    fclose(f);
    rc = hs_workload_load_buffer_opts("back.dot", text, tlen, &o, &back, &err);
    same = rc == HS_OK && fuzz_sets_same(w, back);
    free(text);
    hs_workload_free(back);
    hs_workload_free(w);
    if (!same) {
        *why = "its DOT does not read back to the same workload";
        return -1;
    }
    return 1;
}

#ifdef HS_FUZZ_TARGET
/* The readers' tables are compiled into the target (for coverage) and are
 * in libhetsched too, which the target links for the DOT writer and the
 * kernel registry: the same definitions twice, which ASan would report as
 * an ODR violation. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_odr_violation=0";
}
#endif

#endif
