/* hetsched — internal: the two queues the engine, the sim backend and the
 * policies share, so that none of them sorts by insertion.
 *
 * hs__fifo: a growable ring of task indices, O(1) push and pop.
 * hs__heap: a binary min-heap of (key, key2, seq) -> item, O(log n) push and
 *   pop.  seq is an insertion counter kept by the heap, so entries with equal
 *   keys come out in the order they went in (ties by arrival).  A policy
 *   wanting "largest first" pushes -key.
 * Both start zeroed ({0}) and grow on demand; push returns 0 or -1 when
 * memory runs out (the queue is then unchanged).
 */
#ifndef HS_EXEC_QUEUE_H
#define HS_EXEC_QUEUE_H

#include <stddef.h>

typedef struct hs__fifo {
    size_t *buf;
    size_t cap, head, len;
} hs__fifo;

int hs__fifo_push(hs__fifo *q, size_t item);
/* Removes the oldest item into *item; returns 0, or -1 when empty. */
int hs__fifo_pop(hs__fifo *q, size_t *item);
void hs__fifo_free(hs__fifo *q);

typedef struct hs__heap_entry {
    double key, key2;
    size_t seq;
    size_t item;
} hs__heap_entry;

typedef struct hs__heap {
    hs__heap_entry *a;
    size_t len, cap;
    size_t next_seq;
} hs__heap;

int hs__heap_push(hs__heap *h, double key, double key2, size_t item);
/* Removes the smallest entry into *out (may be NULL); 0, or -1 when empty. */
int hs__heap_pop(hs__heap *h, hs__heap_entry *out);
/* The smallest entry, or NULL when empty. */
const hs__heap_entry *hs__heap_top(const hs__heap *h);
void hs__heap_free(hs__heap *h);

#endif
