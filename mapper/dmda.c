/* hetsched — `dmda` and `dmdar`: StarPU's deque-model data-aware policies.
 *
 * When a task becomes ready it goes, at once, to the queue of the device
 * where it is expected to complete first: the device's availability (what
 * it runs plus what is queued on it), the time to bring its inputs there, and
 * its cost on it (eq. 11-12 of Zhou & Liu: hs_engine_finish_time).  Ties go
 * to the lower device index.  Its inputs start moving there at once
 * (hs_engine_prefetch), as StarPU's dm* policies prefetch on push.
 *   dmda:  each device runs its queue in arrival order.
 *   dmdar: each device runs first the queued task with the most inputs
 *          already in the device's memory (hs_engine_inputs_on, counted when
 *          the task is queued), ties in arrival order: tasks whose data is
 *          there start without waiting for transfers.  (StarPU recounts at
 *          each pop by scanning the queue; counting once keeps a heap exact,
 *          and under the delay model a count only changes when another
 *          consumer of the same data starts there first.)
 */
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"

typedef struct dmda {
    int sorted;            /* dmdar */
    int ndevices;
    hs__fifo *fifo;        /* dmda:  [ndevices] */
    hs__heap *heap;        /* dmdar: [ndevices], key -(inputs on the device) */
} dmda;

static void dmda_fini(void *state)
{
    dmda *s = state;
    if (!s)
        return;
    for (int d = 0; d < s->ndevices; d++) {
        if (s->fifo)
            hs__fifo_free(&s->fifo[d]);
        if (s->heap)
            hs__heap_free(&s->heap[d]);
    }
    free(s->fifo);
    free(s->heap);
    free(s);
}

static int init(hs_engine *e, int sorted, void **state, hs_error *err)
{
    size_t nd = (size_t)hs_engine_platform(e)->ndevices;
    dmda *s = calloc(1, sizeof *s);
    if (s) {
        s->sorted = sorted;
        s->ndevices = (int)nd;
        if (sorted)
            s->heap = calloc(nd, sizeof *s->heap);
        else
            s->fifo = calloc(nd, sizeof *s->fifo);
    }
    if (!s || (!s->heap && !s->fifo)) {
        dmda_fini(s);
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    }
    *state = s;
    return HS_OK;
}

static int dmda_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)opt;
    return init(e, 0, state, err);
}

static int dmdar_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)opt;
    return init(e, 1, state, err);
}

/* Minimum expected completion time over the devices, then queue it there.
 * Out of memory while queueing leaves the task unqueued: the engine then
 * reports the run as stuck (HS_EINTERNAL) rather than scheduling wrongly. */
static void dmda_ready(void *state, hs_engine *e, size_t t)
{
    dmda *s = state;
    const hs_platform *pf = hs_engine_platform(e);
    int best = 0;
    double best_finish = hs_engine_finish_time(e, t, 0);
    for (int d = 1; d < s->ndevices; d++) {
        double f = hs_engine_finish_time(e, t, d);
        if (f < best_finish) {
            best_finish = f;
            best = d;
        }
    }
    hs_engine_assign(e, t, best);
    if (s->sorted)
        hs__heap_push(&s->heap[best],
                      -(double)hs_engine_inputs_on(e, t, pf->devices[best].memory), 0.0, t);
    else
        hs__fifo_push(&s->fifo[best], t);
    hs_engine_prefetch(e, t, best); /* after the count: its own copies are on their way */
}

static long dmda_pick(void *state, hs_engine *e, int device)
{
    dmda *s = state;
    hs__heap_entry top;
    size_t t;
    (void)e;
    if (s->sorted)
        return hs__heap_pop(&s->heap[device], &top) == 0 ? (long)top.item : HS_NO_TASK;
    return hs__fifo_pop(&s->fifo[device], &t) == 0 ? (long)t : HS_NO_TASK;
}

const hs_policy hs__policy_dmda = {
    .name = "dmda",
    .description = "StarPU deque model data-aware: queue each ready task where it is expected "
                   "to complete first, prefetching its inputs there",
    .init = dmda_init,
    .ready = dmda_ready,
    .pick = dmda_pick,
    .fini = dmda_fini,
};

const hs_policy hs__policy_dmdar = {
    .name = "dmdar",
    .description = "dmda, each device running first the task with most inputs in its memory",
    .init = dmdar_init,
    .ready = dmda_ready,
    .pick = dmda_pick,
    .fini = dmda_fini,
};
