/* hetsched — `random`: each ready task goes to a device drawn uniformly at
 * random, seeded by hs_map_options.seed, and each device runs its tasks in
 * the order they were drawn.  A floor for the other policies. */
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"

typedef struct random_state {
    unsigned short xsubi[3]; /* erand48's state: the same draws for one seed */
    int ndevices;
    hs__fifo queue[];        /* [ndevices] */
} random_state;

static int random_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    int nd = hs_engine_platform(e)->ndevices;
    /* fold the high half in (written as two shifts: unsigned long may be 32 bits) */
    unsigned long seed = opt->seed ^ (opt->seed >> 16 >> 16);
    random_state *s = calloc(1, sizeof *s + (size_t)nd * sizeof s->queue[0]);
    if (!s)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    s->ndevices = nd;
    s->xsubi[0] = 0x330e; /* as srand48 seeds it */
    s->xsubi[1] = (unsigned short)(seed & 0xffff);
    s->xsubi[2] = (unsigned short)((seed >> 16) & 0xffff);
    *state = s;
    return HS_OK;
}

/* Out of memory while queueing leaves the task unqueued: the engine then
 * reports the run as stuck (HS_EINTERNAL) rather than scheduling wrongly. */
static void random_ready(void *state, hs_engine *e, size_t t)
{
    random_state *s = state;
    int d = (int)(erand48(s->xsubi) * s->ndevices);
    if (d >= s->ndevices) /* erand48 < 1, but stay safe against rounding */
        d = s->ndevices - 1;
    hs_engine_assign(e, t, d);
    hs__fifo_push(&s->queue[d], t);
}

static long random_pick(void *state, hs_engine *e, int device)
{
    random_state *s = state;
    size_t t;
    (void)e;
    return hs__fifo_pop(&s->queue[device], &t) == 0 ? (long)t : HS_NO_TASK;
}

static void random_fini(void *state)
{
    random_state *s = state;
    if (!s)
        return;
    for (int d = 0; d < s->ndevices; d++)
        hs__fifo_free(&s->queue[d]);
    free(s);
}

const hs_policy hs__policy_random = {
    .name = "random",
    .description = "each ready task on a uniformly random device (--seed), FIFO per device",
    .options = HS_POLICY_TAKES_SEED,
    .init = random_init,
    .ready = random_ready,
    .pick = random_pick,
    .fini = random_fini,
};
