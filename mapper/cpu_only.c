/* hetsched — `cpu-only`: every task on a CPU device, shortest execution time
 * first.  The naive baseline of Zhou & Liu (Sec. 5, Fig. 5), against which
 * their speedups are measured; GPUs stay idle. */
#include <math.h>
#include <stdlib.h>

#include "exec/queue.h"
#include "mapper/policy.h"

typedef struct cpu_only {
    hs__heap ready; /* key: the task's shortest cost on a CPU device */
} cpu_only;

static int cpu_only_init(hs_engine *e, const hs_map_options *opt, void **state, hs_error *err)
{
    const hs_platform *pf = hs_engine_platform(e);
    int cpus = 0;
    (void)opt;
    for (int d = 0; d < pf->ndevices; d++)
        cpus += pf->devices[d].kind == HS_DEVICE_CPU;
    if (cpus == 0)
        return hs_error_set(err, HS_EINPUT, "policy cpu-only needs a CPU device; the platform "
                            "has none");
    if (!(*state = calloc(1, sizeof(cpu_only))))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    return HS_OK;
}

/* Out of memory while queueing leaves the task unqueued: the engine then
 * reports the run as stuck (HS_EINTERNAL) rather than scheduling wrongly. */
static void cpu_only_ready(void *state, hs_engine *e, size_t t)
{
    cpu_only *s = state;
    const hs_platform *pf = hs_engine_platform(e);
    double best = HUGE_VAL;
    for (int d = 0; d < pf->ndevices; d++)
        if (pf->devices[d].kind == HS_DEVICE_CPU && hs_engine_cost(e, t, d) < best)
            best = hs_engine_cost(e, t, d);
    hs__heap_push(&s->ready, best, 0.0, t);
}

static long cpu_only_pick(void *state, hs_engine *e, int device)
{
    cpu_only *s = state;
    hs__heap_entry top;
    if (hs_engine_platform(e)->devices[device].kind != HS_DEVICE_CPU ||
        hs__heap_pop(&s->ready, &top) != 0)
        return HS_NO_TASK;
    return (long)top.item;
}

static void cpu_only_fini(void *state)
{
    cpu_only *s = state;
    if (s)
        hs__heap_free(&s->ready);
    free(s);
}

const hs_policy hs__policy_cpu_only = {
    .name = "cpu-only",
    .description = "every task on the CPUs, shortest execution time first (speedup baseline)",
    .options = HS_POLICY_CPUS_ONLY,
    .init = cpu_only_init,
    .ready = cpu_only_ready,
    .pick = cpu_only_pick,
    .fini = cpu_only_fini,
};
