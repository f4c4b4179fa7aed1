/* hetsched — a FIFO ring and a binary heap (exec/queue.h). */
#include <stdlib.h>
#include <string.h>

#include "exec/queue.h"

/* ------------------------------------------------------------------ fifo */

/* Doubles the ring, unrolling it so that the items sit at buf[0..len). */
static int fifo_grow(hs__fifo *q)
{
    size_t cap = q->cap ? 2 * q->cap : 16;
    size_t *buf = malloc(cap * sizeof *buf);
    if (!buf)
        return -1;
    for (size_t i = 0; i < q->len; i++)
        buf[i] = q->buf[(q->head + i) % q->cap];
    free(q->buf);
    q->buf = buf;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int hs__fifo_push(hs__fifo *q, size_t item)
{
    if (q->len == q->cap && fifo_grow(q) != 0)
        return -1;
    q->buf[(q->head + q->len) % q->cap] = item;
    q->len++;
    return 0;
}

int hs__fifo_pop(hs__fifo *q, size_t *item)
{
    if (q->len == 0)
        return -1;
    *item = q->buf[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return 0;
}

void hs__fifo_free(hs__fifo *q)
{
    free(q->buf);
    memset(q, 0, sizeof *q);
}

/* ------------------------------------------------------------------ heap */

/* Strict order on (key, key2, seq): seq is unique, so no two entries tie. */
static int less(const hs__heap_entry *x, const hs__heap_entry *y)
{
    if (x->key != y->key)
        return x->key < y->key;
    if (x->key2 != y->key2)
        return x->key2 < y->key2;
    return x->seq < y->seq;
}

int hs__heap_push(hs__heap *h, double key, double key2, size_t item)
{
    size_t i;
    hs__heap_entry e = {.key = key, .key2 = key2, .seq = h->next_seq, .item = item};
    if (h->len == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        hs__heap_entry *a = realloc(h->a, cap * sizeof *a);
        if (!a)
            return -1;
        h->a = a;
        h->cap = cap;
    }
    h->next_seq++;
    /* sift up */
    for (i = h->len++; i > 0; i = (i - 1) / 2) {
        size_t parent = (i - 1) / 2;
        if (!less(&e, &h->a[parent]))
            break;
        h->a[i] = h->a[parent];
    }
    h->a[i] = e;
    return 0;
}

int hs__heap_pop(hs__heap *h, hs__heap_entry *out)
{
    hs__heap_entry last;
    size_t i = 0;
    if (h->len == 0)
        return -1;
    if (out)
        *out = h->a[0];
    last = h->a[--h->len];
    /* sift the last entry down from the root */
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && less(&h->a[c + 1], &h->a[c]))
            c++;
        if (!less(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->len > 0)
        h->a[i] = last;
    return 0;
}

const hs__heap_entry *hs__heap_top(const hs__heap *h)
{
    return h->len ? &h->a[0] : NULL;
}

void hs__heap_free(hs__heap *h)
{
    free(h->a);
    memset(h, 0, sizeof *h);
}
