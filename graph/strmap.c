/* hetsched — internal string -> index hash map (see strmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/strmap.h"

/* One slot: its key (NULL: empty), the key's hash, the value.  The hash is
 * kept so that a probe compares strings only when the hashes agree, and so
 * that growing never reads a key again: at a million keys, each string
 * read is a cache miss. */
typedef struct slot {
    const char *key;
    uint64_t hash;
    size_t value;
} slot;

/* The copies of the keys, packed in blocks (one malloc per block, not per
 * key: a workload of a million tasks has some five million names and edge
 * keys). */
typedef struct block {
    struct block *next;
    size_t used, cap;
    char data[];
} block;

#define BLOCK_BYTES ((size_t)64 << 10)

struct hs__strmap {
    size_t cap, len; /* cap is a power of two */
    slot *slots;
    block *blocks;   /* the newest first */
};

/* FNV-1a, then splitmix64's finaliser: FNV's multiplications carry only
 * upwards, so its low bits (the slot) of keys that differ in their last
 * characters ("t123456", "#12>345") cluster, and linear probing then walks
 * long runs on maps of a million keys. */
static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

hs__strmap *hs__strmap_new(size_t expected)
{
    hs__strmap *m = calloc(1, sizeof *m);
    size_t cap = 16;
    if (!m)
        return NULL;
    while (cap < expected * 2)
        cap *= 2;
    m->cap = cap;
    if (!(m->slots = calloc(cap, sizeof *m->slots))) {
        free(m);
        return NULL;
    }
    return m;
}

void hs__strmap_free(hs__strmap *m)
{
    if (!m)
        return;
    while (m->blocks) {
        block *next = m->blocks->next;
        free(m->blocks);
        m->blocks = next;
    }
    free(m->slots);
    free(m);
}

/* The slot holding `key` (hash h), or the empty one where it would go. */
static size_t find(const hs__strmap *m, const char *key, uint64_t h)
{
    size_t i = (size_t)h & (m->cap - 1);
    while (m->slots[i].key && (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(hs__strmap *m)
{
    size_t cap = m->cap * 2;
    slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            size_t j = (size_t)m->slots[i].hash & (cap - 1);
            while (slots[j].key)
                j = (j + 1) & (cap - 1);
            slots[j] = m->slots[i];
        }
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

/* A copy of key (n bytes and its NUL) in the newest block, or a new one. */
static const char *copy_key(hs__strmap *m, const char *key, size_t n)
{
    block *b = m->blocks;
    char *at;
    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > BLOCK_BYTES ? n + 1 : BLOCK_BYTES;
        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        *b = (block){.next = m->blocks, .cap = cap};
        m->blocks = b;
    }
    at = b->data + b->used;
    memcpy(at, key, n + 1);
    b->used += n + 1;
    return at;
}

int hs__strmap_put(hs__strmap *m, const char *key, size_t value)
{
    uint64_t h = hash(key);
    const char *copy;
    size_t i;
    if ((m->len + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    i = find(m, key, h);
    if (m->slots[i].key)
        return 1;
    if (!(copy = copy_key(m, key, strlen(key))))
        return -1;
    m->slots[i] = (slot){.key = copy, .hash = h, .value = value};
    m->len++;
    return 0;
}

const char *hs__strmap_intern(hs__strmap *m, const char *key)
{
    uint64_t h = hash(key);
    size_t i = find(m, key, h);
    if (m->slots[i].key)
        return m->slots[i].key;
    if (hs__strmap_put(m, key, 0) < 0)
        return NULL;
    return m->slots[find(m, key, h)].key;
}

int hs__strmap_get(const hs__strmap *m, const char *key, size_t *value)
{
    size_t i = find(m, key, hash(key));
    if (!m->slots[i].key)
        return 0;
    *value = m->slots[i].value;
    return 1;
}

/* ------------------------------------------------------------- pairs */

typedef struct pair_slot {
    uint64_t key; /* (a << 32 | b) + 1; 0: empty */
    size_t value;
} pair_slot;

struct hs__pairmap {
    size_t cap, len; /* cap is a power of two */
    pair_slot *slots;
};

/* splitmix64's finaliser: the slot from every bit of both ends */
static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

hs__pairmap *hs__pairmap_new(void)
{
    hs__pairmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 16;
    if (!(m->slots = calloc(m->cap, sizeof *m->slots))) {
        free(m);
        return NULL;
    }
    return m;
}

void hs__pairmap_free(hs__pairmap *m)
{
    if (m)
        free(m->slots);
    free(m);
}

static size_t pair_find(const pair_slot *slots, size_t cap, uint64_t key)
{
    size_t i = (size_t)mix(key) & (cap - 1);
    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & (cap - 1);
    return i;
}

int hs__pairmap_put(hs__pairmap *m, unsigned a, unsigned b, size_t value)
{
    uint64_t key = ((uint64_t)a << 32 | b) + 1;
    size_t i;
    /* filled up to 3/4: a million-task workload has some 3 million edges,
     * whose 16-byte slots take 64 MB so (128 MB at 1/2); a probe reads one
     * or two cache lines either way */
    if ((m->len + 1) * 4 > m->cap * 3) {
        size_t cap = m->cap * 2;
        pair_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t j = 0; j < m->cap; j++)
            if (m->slots[j].key)
                slots[pair_find(slots, cap, m->slots[j].key)] = m->slots[j];
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    i = pair_find(m->slots, m->cap, key);
    if (m->slots[i].key)
        return 1;
    m->slots[i] = (pair_slot){.key = key, .value = value};
    m->len++;
    return 0;
}

int hs__pairmap_get(const hs__pairmap *m, unsigned a, unsigned b, size_t *value)
{
    size_t i = pair_find(m->slots, m->cap, ((uint64_t)a << 32 | b) + 1);
    if (!m->slots[i].key)
        return 0;
    *value = m->slots[i].value;
    return 1;
}
