/* hetsched — what the cpu, emu and cuda backends share (exec/cpu.c):
 * everything but the mode, which says how memories and gpu devices are
 * treated.  HS__REAL_BACKEND defines one of them. */
#ifndef HS_EXEC_REAL_H
#define HS_EXEC_REAL_H

#include "exec/backend.h"
#include "exec/data.h"

/* How many started tasks a device holds by default (hs__real_depth): the
 * one it runs and the next, so that the next one's inputs are prefetched
 * during the kernel and a worker finds work while another thread runs the
 * engine's step; no more, so that a policy's late decisions (eager's central
 * queue) still place most tasks.  Deeper queues did not measure faster on
 * empty tasks (bench/overhead_bench.c).  A device whose kernels are
 * enqueued (a GPU's) holds HS__REAL_DEPTH_ENQUEUED, all of them launched:
 * its worker launches (about 6 µs of host time a task on an H200 host)
 * while its completer completes and runs the engine's step, and those
 * ahead keep the device busy, which tiny kernels (pi: 5 µs) need.  The
 * environment variable HETSCHED_DEPTH (1..HS_BACKEND_MAX_DEPTH) sets every
 * device's. */
#define HS__REAL_DEPTH 2
#define HS__REAL_DEPTH_ENQUEUED 4

/* Starts one worker per device; HS__REAL_CPU runs every device in host
 * memory and refuses gpu devices.  b->state on entry: the caller's
 * hs_run_report or NULL (exec/data.h).  HS_EINPUT for a bad HETSCHED_DEPTH. */
int hs__real_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs__real_mode mode,
                  hs_error *err);
int hs__real_start_chunk(hs_backend *b, size_t t, int d, size_t begin, size_t end,
                         double earliest_us, hs_error *err);
int hs__real_start_task(hs_backend *b, size_t t, int d, double earliest_us, int order,
                        hs_error *err);
int hs__real_wait(hs_backend *b, hs_completion *c, hs_error *err);
int hs__real_poll(hs_backend *b, hs_completion *c, hs_error *err);
int hs__real_depth(const hs_backend *b, int d);
/* How many of the backend's threads (a worker per device, a completer per
 * device whose kernels are enqueued, with a depth above 1) have readied
 * themselves for their first task: every one once init has returned, so
 * that a thread's start-up costs land before the run's clock. */
int hs__real_primed(const hs_backend *b);
int hs__real_drive(hs_backend *b, int (*step)(void *ctx, hs_error *err), void *ctx,
                   hs_error *err);
double hs__real_now(const hs_backend *b);
int hs__real_finish(hs_backend *b, hs_error *err);
void hs__real_prefetch(hs_backend *b, size_t t, int d, double bytes);
void hs__real_fini(hs_backend *b);

/* Defines backend `var` called `name`: the worker machinery above run in
 * `mode`. */
#define HS__REAL_BACKEND(var, name_, mode)                                                     \
    static int var##_init(hs_backend *b, const hs_workload *w, const hs_graph *g,              \
                          hs_error *err)                                                       \
    {                                                                                          \
        return hs__real_init(b, w, g, mode, err);                                              \
    }                                                                                          \
    const hs_backend_ops var = {.name = name_,                                                 \
                                .init = var##_init,                                            \
                                .start_task = hs__real_start_task,                             \
                                .start_chunk = hs__real_start_chunk,                           \
                                .wait = hs__real_wait,                                         \
                                .poll = hs__real_poll,                                         \
                                .now = hs__real_now,                                           \
                                .fini = hs__real_fini,                                         \
                                .depth = hs__real_depth,                                       \
                                .finish = hs__real_finish,                                     \
                                .prefetch = hs__real_prefetch,                                 \
                                .drive = hs__real_drive}

#endif
