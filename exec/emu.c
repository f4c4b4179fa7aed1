/* hetsched — the `emu` backend (exec/data.h): the cpu backend's workers, but
 * each memory of the platform is a separate memory space (malloc'd buffers
 * of its own, with the capacity the report's device_memory gives), so a gpu
 * device computes on copies that the data manager moves there with memcpy,
 * timed and counted per link, and evicts under that capacity.  CI has no
 * GPU: this is what exercises transfers, prefetch, eviction and coherence
 * for real. */
#include "exec/data.h"
#include "exec/real.h"

static int emu_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err)
{
    int rc;
    hs__data_use_options(b->state);
    rc = hs__real_init(b, w, g, HS__REAL_EMU, err);
    hs__data_use_options(NULL);
    return rc;
}

const hs_backend_ops hs_backend_emu = {
    .name = "emu",
    .init = emu_init,
    .start_task = hs__real_start_task,
    .wait = hs__real_wait,
    .poll = hs__real_poll,
    .now = hs__real_now,
    .fini = hs__real_fini,
    .depth = hs__real_depth,
    .drive = hs__real_drive,
};
