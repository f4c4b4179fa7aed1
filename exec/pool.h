/* hetsched — a caching allocator over one memory space of exec/mem.h, so
 * that a worker's path holds no cudaMalloc, cudaHostAlloc or free (a
 * cudaFree waits for the whole device; pinning a 256 MiB host buffer takes
 * tens of milliseconds; a fresh malloc'd buffer faults on every page at its
 * first touch).
 *
 * A block given back goes to the bin of its exact size (the buffers of one
 * kernel type and size recur: the paper's compositions use a handful of
 * sizes), with the event of the last operation that used it; it is handed
 * out again once that event has happened, and given back to the memory only
 * by hs__pool_free.  hs__pool_reserve makes blocks ahead of a run.  When the
 * memory refuses an allocation, the pool gives its idle blocks back and
 * tries once more.  Thread-safe. */
#ifndef HS_EXEC_POOL_H
#define HS_EXEC_POOL_H

#include <stddef.h>

#include "exec/mem.h"
#include "hetsched/error.h"

typedef struct hs__pool hs__pool;

typedef struct hs__pool_stats {
    size_t hits;         /* allocations served from a bin */
    size_t misses;       /* allocations the memory made during the run */
    size_t reserved;     /* blocks made ahead (hs__pool_reserve) */
    size_t trims;        /* times the idle blocks were given back to make room */
    double held_bytes;   /* bytes the pool holds now, in use or idle */
    double peak_bytes;   /* most it held at once */
} hs__pool_stats;

/* A pool over memory m of (ops, ctx). */
int hs__pool_new(const hs__mem_ops *ops, void *ctx, int m, hs__pool **out, hs_error *err);

/* A block of `bytes` (0 counts as 1): an idle one of that size whose last
 * use has happened, else a new one.  *missed (may be NULL) is set to 1 when
 * the memory had to allocate. */
int hs__pool_get(hs__pool *p, size_t bytes, void **block, int *missed, hs_error *err);

/* Gives a block of `bytes` back; `last_use` is the event of the last
 * operation that reads or writes it (NULL: none pending). */
void hs__pool_put(hs__pool *p, void *block, size_t bytes, void *last_use);

/* Makes `count` idle blocks of `bytes` ahead of time (counted in reserved,
 * not in misses).  HS_ENOMEM when the memory refuses (the blocks made so far
 * stay). */
int hs__pool_reserve(hs__pool *p, size_t bytes, size_t count, hs_error *err);

void hs__pool_get_stats(hs__pool *p, hs__pool_stats *st);

/* Gives every block back to the memory (blocks still handed out are the
 * caller's to have given back first) and frees p. */
void hs__pool_free(hs__pool *p);

#endif
