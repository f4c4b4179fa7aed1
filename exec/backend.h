/* hetsched — the backend interface: sim, cpu, cuda and emu are peers behind
 * this struct (DESIGN.md §6).  The engine calls start_task when a device
 * takes a task and wait() for the next completion; a backend never makes
 * decisions.
 */
#ifndef HS_EXEC_BACKEND_H
#define HS_EXEC_BACKEND_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

typedef struct hs_backend hs_backend; /* also in exec/engine.h (C11 allows both) */

typedef struct hs_completion {
    size_t task;
    int device;
    double start_us, end_us; /* when it really ran (virtual under sim) */
} hs_completion;

typedef struct hs_backend_ops {
    const char *name;
    /* Prepares to run graph g of workload w. */
    int (*init)(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err);
    /* Starts task t on device d no earlier than `earliest_us`, the time its
     * inputs can be there (the engine's delay-model prediction; real
     * backends move the data themselves and may ignore it). */
    int (*start_task)(hs_backend *b, size_t t, int d, double earliest_us, hs_error *err);
    /* Blocks until the next task finishes; returns 0, or 1 when nothing runs. */
    int (*wait)(hs_backend *b, hs_completion *c, hs_error *err);
    double (*now)(const hs_backend *b);
    void (*fini)(hs_backend *b);
    /* Optional, never blocks: the next completion that has already happened
     * by now() (sim: one ending exactly at the current virtual time; a real
     * backend: one already in its completion queue); returns 0, or 1 when
     * there is none.  The engine calls it after wait() so that it handles
     * every completion of one instant before any device picks. */
    int (*poll)(hs_backend *b, hs_completion *c, hs_error *err);
} hs_backend_ops;

struct hs_backend {
    const hs_backend_ops *ops;
    void *state;
};

/* The simulator: virtual time, an event heap, costs from the graph. */
extern const hs_backend_ops hs_backend_sim;

#endif
