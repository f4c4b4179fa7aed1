/* hetsched — the caching allocator of exec/pool.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/pool.h"

typedef struct slot {
    void *p;
    void *last_use;           /* event of its last use, or NULL */
} slot;

typedef struct bin {
    size_t bytes;
    slot *idle;
    size_t n, cap;
} bin;

struct hs__pool {
    const hs__mem_ops *ops;
    void *ctx;
    int m;
    pthread_mutex_t mu;
    bin *bins;                /* sorted by bytes */
    size_t nbins, capbins;
    hs__pool_stats st;
};

int hs__pool_new(const hs__mem_ops *ops, void *ctx, int m, hs__pool **out, hs_error *err)
{
    hs__pool *p = calloc(1, sizeof *p);
    if (!p)
        return hs_error_set(err, HS_ENOMEM, "out of memory for a memory pool");
    p->ops = ops;
    p->ctx = ctx;
    p->m = m;
    pthread_mutex_init(&p->mu, NULL);
    *out = p;
    return HS_OK;
}

/* The bin of `bytes`, made when `make` (p->mu held); NULL when there is
 * none or no memory for it. */
static bin *find_bin(hs__pool *p, size_t bytes, int make)
{
    size_t lo = 0, hi = p->nbins;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->bins[mid].bytes < bytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->nbins && p->bins[lo].bytes == bytes)
        return &p->bins[lo];
    if (!make)
        return NULL;
    if (p->nbins == p->capbins) {
        size_t cap = p->capbins ? 2 * p->capbins : 16;
        bin *nb = realloc(p->bins, cap * sizeof *nb);
        if (!nb)
            return NULL;
        p->bins = nb;
        p->capbins = cap;
    }
    memmove(&p->bins[lo + 1], &p->bins[lo], (p->nbins - lo) * sizeof *p->bins);
    p->bins[lo] = (bin){.bytes = bytes};
    p->nbins++;
    return &p->bins[lo];
}

static int push(bin *b, void *block, void *last_use)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 8;
        slot *ns = realloc(b->idle, cap * sizeof *ns);
        if (!ns)
            return -1;
        b->idle = ns;
        b->cap = cap;
    }
    b->idle[b->n++] = (slot){block, last_use};
    return 0;
}

/* Gives every idle block back to the memory, waiting for its last use
 * (p->mu held). */
static void trim(hs__pool *p)
{
    for (size_t i = 0; i < p->nbins; i++) {
        bin *b = &p->bins[i];
        for (size_t k = 0; k < b->n; k++) {
            p->ops->sync(p->ctx, b->idle[k].last_use, NULL);
            p->ops->free(p->ctx, p->m, b->idle[k].p);
            p->st.held_bytes -= (double)b->bytes;
        }
        b->n = 0;
    }
}

/* A new block from the memory; on refusal, trims and tries once more
 * (p->mu held). */
static int make(hs__pool *p, size_t bytes, void **block, hs_error *err)
{
    int rc = p->ops->alloc(p->ctx, p->m, bytes, block, err);
    if (rc != HS_OK) {
        trim(p);
        p->st.trims++;
        if ((rc = p->ops->alloc(p->ctx, p->m, bytes, block, err)) != HS_OK)
            return rc;
    }
    p->st.held_bytes += (double)bytes;
    if (p->st.held_bytes > p->st.peak_bytes)
        p->st.peak_bytes = p->st.held_bytes;
    return HS_OK;
}

int hs__pool_get(hs__pool *p, size_t bytes, void **block, int *missed, hs_error *err)
{
    bin *b;
    int rc;
    if (!bytes)
        bytes = 1;
    if (missed)
        *missed = 0;
    pthread_mutex_lock(&p->mu);
    b = find_bin(p, bytes, 0);
    if (b && b->n) {
        /* the most recently given back whose last use has happened; else
         * the oldest, waited for (a fresh allocation would cost more) */
        size_t k = b->n;
        while (k > 0 && !p->ops->ready(p->ctx, b->idle[k - 1].last_use))
            k--;
        if (k > 0)
            k--;
        else if ((rc = p->ops->sync(p->ctx, b->idle[0].last_use, err)) != HS_OK) {
            pthread_mutex_unlock(&p->mu);
            return rc;
        }
        *block = b->idle[k].p;
        b->idle[k] = b->idle[--b->n];
        p->st.hits++;
        pthread_mutex_unlock(&p->mu);
        return HS_OK;
    }
    rc = make(p, bytes, block, err);
    if (rc == HS_OK) {
        p->st.misses++;
        if (missed)
            *missed = 1;
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void hs__pool_put(hs__pool *p, void *block, size_t bytes, void *last_use)
{
    bin *b;
    if (!block)
        return;
    if (!bytes)
        bytes = 1;
    pthread_mutex_lock(&p->mu);
    if (!(b = find_bin(p, bytes, 1)) || push(b, block, last_use) != 0) {
        /* no memory to remember it: give it back at once */
        p->ops->sync(p->ctx, last_use, NULL);
        p->ops->free(p->ctx, p->m, block);
        p->st.held_bytes -= (double)bytes;
    }
    pthread_mutex_unlock(&p->mu);
}

int hs__pool_reserve(hs__pool *p, size_t bytes, size_t count, hs_error *err)
{
    int rc = HS_OK;
    if (!bytes)
        bytes = 1;
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < count && rc == HS_OK; i++) {
        void *block;
        bin *b;
        if ((rc = p->ops->alloc(p->ctx, p->m, bytes, &block, err)) != HS_OK)
            break;
        if (!(b = find_bin(p, bytes, 1)) || push(b, block, NULL) != 0) {
            p->ops->free(p->ctx, p->m, block);
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for a memory pool");
            break;
        }
        p->st.held_bytes += (double)bytes;
        p->st.reserved++;
    }
    if (p->st.held_bytes > p->st.peak_bytes)
        p->st.peak_bytes = p->st.held_bytes;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void hs__pool_get_stats(hs__pool *p, hs__pool_stats *st)
{
    pthread_mutex_lock(&p->mu);
    *st = p->st;
    pthread_mutex_unlock(&p->mu);
}

void hs__pool_free(hs__pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    trim(p);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->nbins; i++)
        free(p->bins[i].idle);
    free(p->bins);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
