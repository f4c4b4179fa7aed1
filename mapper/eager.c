/* hetsched — `eager`: one central FIFO of ready tasks; whichever device is
 * idle takes the oldest, whatever it costs there.  The simplest greedy list
 * scheduler, and StarPU's default policy. */
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"

static int eager_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    (void)e;
    (void)opt;
    if (!(*state = calloc(1, sizeof(hs__fifo))))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    return HS_OK;
}

/* Out of memory while queueing leaves the task unqueued: the engine then
 * reports the run as stuck (HS_EINTERNAL) rather than scheduling wrongly. */
static void eager_ready(void *state, hs_engine *e, size_t t)
{
    (void)e;
    hs__fifo_push(state, t);
}

static long eager_pick(void *state, hs_engine *e, int device)
{
    size_t t;
    (void)e;
    (void)device;
    return hs__fifo_pop(state, &t) == 0 ? (long)t : HS_NO_TASK;
}

static void eager_fini(void *state)
{
    if (state)
        hs__fifo_free(state);
    free(state);
}

const hs_policy hs__policy_eager = {
    .name = "eager",
    .description = "one central FIFO of ready tasks; an idle device takes the oldest",
    .init = eager_init,
    .ready = eager_ready,
    .pick = eager_pick,
    .fini = eager_fini,
};
