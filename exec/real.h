/* hetsched — what the cpu and emu backends share (exec/cpu.c): everything
 * but init, which says how memories and gpu devices are treated. */
#ifndef HS_EXEC_REAL_H
#define HS_EXEC_REAL_H

#include "exec/backend.h"
#include "exec/data.h"

/* Starts one worker per device; HS__REAL_CPU runs every device in host
 * memory and refuses gpu devices.  b->state on entry: the caller's
 * hs_run_report or NULL (exec/data.h). */
int hs__real_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                  hs_error *err);
int hs__real_start_task(hs_backend *b, size_t t, int d, double earliest_us, hs_error *err);
int hs__real_wait(hs_backend *b, hs_completion *c, hs_error *err);
int hs__real_poll(hs_backend *b, hs_completion *c, hs_error *err);
double hs__real_now(const hs_backend *b);
void hs__real_fini(hs_backend *b);

#endif
