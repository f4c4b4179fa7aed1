/* hetsched — the `emu` backend (exec/data.h): the cpu backend's workers, but
 * each memory of the platform is a separate memory space (malloc'd buffers
 * of its own, with the capacity the report's device_memory gives), so a gpu
 * device computes on copies that the data manager moves there with memcpy,
 * timed and counted per link, and evicts under that capacity.  CI has no
 * GPU: this is what exercises transfers, prefetch, eviction and coherence
 * for real. */
#include "exec/data.h"
#include "exec/real.h"

HS__REAL_BACKEND(hs_backend_emu, "emu", HS__REAL_EMU);
