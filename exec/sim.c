/* hetsched — the `sim` backend: virtual time and a heap of completions
 * (exec/backend.h).  A task started on device d at time `now` with inputs
 * arriving at `earliest` runs from max(now, earliest) for its duration; the
 * heap orders completions by end time, then device index, then start order,
 * so equal inputs give equal runs.  A chunk of a split task (start_chunk)
 * runs its share of the task's cost: items [begin, end) of N take
 * cost x (end - begin) / N. */
#include <stdlib.h>

#include "exec/backend.h"
#include "exec/queue.h"

typedef struct chunk {
    size_t task, begin, end;
    double start;
} chunk;

typedef struct sim {
    const hs_workload *w;
    const hs_graph *g;
    double now;     /* µs, virtual */
    double *start;  /* [ntasks]: start of each started task */
    chunk *chunks;  /* every chunk started */
    size_t nchunks, capchunks;
    hs__heap done;  /* key end, key2 device, item task (ntasks + k: chunks[k]) */
} sim;

/* How long task t runs on device d.  The one place that decides it, so that
 * variability models (noise, throttling) can be added here later.  Today:
 * the graph's cost, as the delay model of DESIGN.md §1 says. */
static double duration(const sim *s, size_t t, int d)
{
    return s->g->tasks[t].cost_us[d];
}

static int sim_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err)
{
    sim *s = calloc(1, sizeof *s);
    if (!s || !(s->start = calloc(g->ntasks ? g->ntasks : 1, sizeof *s->start))) {
        free(s);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator");
    }
    s->w = w;
    s->g = g;
    b->state = s;
    return HS_OK;
}

static int sim_start_task(hs_backend *b, size_t t, int d, double earliest_us, int order,
                          hs_error *err)
{
    sim *s = b->state;
    (void)order; /* earliest_us says where the engine's model runs it */
    double start = earliest_us > s->now ? earliest_us : s->now;
    if (hs__heap_push(&s->done, start + duration(s, t, d), (double)d, t) != 0)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator's event heap");
    s->start[t] = start;
    return HS_OK;
}

static int sim_start_chunk(hs_backend *b, size_t t, int d, size_t begin, size_t end,
                           double earliest_us, hs_error *err)
{
    sim *s = b->state;
    const hs_task *task = &s->g->tasks[t];
    double items = s->w->apps[task->app].kernels[task->kernel].items;
    double start = earliest_us > s->now ? earliest_us : s->now;
    if (s->nchunks == s->capchunks) {
        size_t cap = s->capchunks ? 2 * s->capchunks : 64;
        chunk *n = realloc(s->chunks, cap * sizeof *n);
        if (!n)
            return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator");
        s->chunks = n;
        s->capchunks = cap;
    }
    s->chunks[s->nchunks] = (chunk){.task = t, .begin = begin, .end = end, .start = start};
    if (hs__heap_push(&s->done, start + duration(s, t, d) * (double)(end - begin) / items,
                      (double)d, s->g->ntasks + s->nchunks) != 0)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator's event heap");
    s->nchunks++;
    return HS_OK;
}

/* Pops the earliest completion into *c and moves virtual time to its end. */
static void pop(sim *s, hs_completion *c)
{
    hs__heap_entry e;
    hs__heap_pop(&s->done, &e);
    s->now = e.key;
    *c = (hs_completion){.task = e.item, .device = (int)e.key2, .end_us = e.key};
    if (e.item >= s->g->ntasks) {
        const chunk *k = &s->chunks[e.item - s->g->ntasks];
        c->task = k->task;
        c->chunk = 1;
        c->begin = k->begin;
        c->end = k->end;
        c->start_us = k->start;
    } else {
        c->start_us = s->start[e.item];
    }
}

static int sim_wait(hs_backend *b, hs_completion *c, hs_error *err)
{
    sim *s = b->state;
    (void)err;
    if (!hs__heap_top(&s->done))
        return 1;
    pop(s, c);
    return 0;
}

static int sim_poll(hs_backend *b, hs_completion *c, hs_error *err)
{
    sim *s = b->state;
    const hs__heap_entry *top = hs__heap_top(&s->done);
    (void)err;
    if (!top || top->key > s->now)
        return 1;
    pop(s, c);
    return 0;
}

static double sim_now(const hs_backend *b)
{
    return ((const sim *)b->state)->now;
}

static void sim_fini(hs_backend *b)
{
    sim *s = b->state;
    if (!s)
        return;
    hs__heap_free(&s->done);
    free(s->start);
    free(s->chunks);
    free(s);
    b->state = NULL;
}

const hs_backend_ops hs_backend_sim = {
    .name = "sim",
    .init = sim_init,
    .implied_edges = 1,
    .start_task = sim_start_task,
    .start_chunk = sim_start_chunk,
    .wait = sim_wait,
    .poll = sim_poll,
    .now = sim_now,
    .fini = sim_fini,
};
