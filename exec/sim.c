/* hetsched — the `sim` backend: virtual time and a heap of completions
 * (exec/backend.h).  A task started on device d at time `now` with inputs
 * arriving at `earliest` runs from max(now, earliest) for its duration; the
 * heap orders completions by end time, then device index, then start order,
 * so equal inputs give equal runs. */
#include <stdlib.h>

#include "exec/backend.h"
#include "exec/queue.h"

typedef struct sim {
    const hs_graph *g;
    double now;     /* µs, virtual */
    double *start;  /* [ntasks]: start of each started task */
    hs__heap done;  /* key end, key2 device, item task */
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
    (void)w;
    if (!s || !(s->start = calloc(g->ntasks ? g->ntasks : 1, sizeof *s->start))) {
        free(s);
        return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator");
    }
    s->g = g;
    b->state = s;
    return HS_OK;
}

static int sim_start_task(hs_backend *b, size_t t, int d, double earliest_us, hs_error *err)
{
    sim *s = b->state;
    double start = earliest_us > s->now ? earliest_us : s->now;
    if (hs__heap_push(&s->done, start + duration(s, t, d), (double)d, t) != 0)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the simulator's event heap");
    s->start[t] = start;
    return HS_OK;
}

/* Pops the earliest completion into *c and moves virtual time to its end. */
static void pop(sim *s, hs_completion *c)
{
    hs__heap_entry e;
    hs__heap_pop(&s->done, &e);
    s->now = e.key;
    c->task = e.item;
    c->device = (int)e.key2;
    c->start_us = s->start[e.item];
    c->end_us = e.key;
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
    free(s);
    b->state = NULL;
}

const hs_backend_ops hs_backend_sim = {
    .name = "sim",
    .init = sim_init,
    .start_task = sim_start_task,
    .wait = sim_wait,
    .poll = sim_poll,
    .now = sim_now,
    .fini = sim_fini,
};
