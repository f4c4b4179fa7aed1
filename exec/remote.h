/* hetsched — the data manager's hook for devices driven by another process
 * (a distributed run, exec/mpi.h; DESIGN.md, "Running across nodes").
 *
 * The engine and the backend's workers run the whole graph as on one
 * machine; a device that is not local has a worker too, a proxy that runs
 * nothing: the data manager's launch of a task there waits (await) until
 * the task's owner has sent its result, stores it as a replica on this
 * node's host memory and completes.  After a local task ran, the data
 * manager hands its result to `send`, which delivers it to the nodes whose
 * tasks read it.  The data manager never calls MPI itself.
 */
#ifndef HS_EXEC_REMOTE_H
#define HS_EXEC_REMOTE_H

#include <stddef.h>
#include <time.h>

#include "hetsched/error.h"

typedef struct hs__remote_ops {
    /* 1 when device d is run by this process; 1 when task t (of the
     * workload's graph) runs on one of them. */
    int (*local)(void *ctx, int d);
    int (*owns)(void *ctx, size_t t);
    /* The memory that holds what arrives from other nodes (this node's
     * host), and the one that task t's result leaves from (its owner's). */
    int (*home)(void *ctx);
    int (*origin)(void *ctx, size_t t);
    /* Called once, by the thread that starts the run's clock: returns once
     * every process is there and message passing has started, with *t0
     * (CLOCK_MONOTONIC) the instant every process's clock starts at. */
    int (*start)(void *ctx, struct timespec *t0, hs_error *err);
    /* Task t of the workload's graph runs on another node: blocks until its
     * message is here when a task of this node follows it (*data: its
     * `bytes` of result, or NULL for a task without one; *sent_us: when the
     * owner sent it, on the run's clock), else returns at once with *data
     * NULL and *sent_us negative.  *data stays valid until the hook's end.
     * HS_EIO when message passing failed. */
    int (*await)(void *ctx, size_t t, const void **data, size_t *bytes, double *sent_us,
                 hs_error *err);
    /* Local task t ended at now_us: its result (`bytes` at data, NULL for
     * none; read before it returns) goes to every other node where a task
     * follows it.  Thread-safe. */
    int (*send)(void *ctx, size_t t, const void *data, size_t bytes, double now_us,
                hs_error *err);
} hs__remote_ops;

typedef struct hs__remote {
    const hs__remote_ops *ops;
    void *ctx;
} hs__remote;

#endif
