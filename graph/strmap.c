/* hetsched — internal string -> index hash map (see strmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "graph/strmap.h"

/* The keys in the order they were added, each with its hash and value.
 * A look-up reads one slot and then, when the slot's tag agrees, this
 * entry and the key: keys added one after another (a workload's kernels)
 * lie one after another here and in the key blocks, so that looking up
 * names added close together (an edge's two ends, in a generated graph)
 * reads memory that is already cached. */
typedef struct entry {
    const char *key;
    uint64_t hash;
    size_t value;
} entry;

/* One slot: the entry's index + 1 (0: empty) in the low 32 bits, the top
 * 32 bits of its hash above them, so that a probe reads an entry only when
 * those agree.  8 bytes a slot, half full at most: a million keys take a
 * 16 MB table (which a 32 MB last-level cache holds) where slots that held
 * the key pointer, hash and value took 48 MB, and each look-up missed the
 * cache. */
typedef uint64_t slot;

#define SLOT_ENTRY(s) ((uint32_t)(s))
#define SLOT_TAG(h) ((h) >> 32)
#define MAX_ENTRIES UINT32_MAX

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
    size_t cap, len; /* slots (a power of two), entries */
    size_t entries_cap;
    slot *slots;
    entry *entries;
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

#define HUGE_PAGE ((size_t)2 << 20)

/* `cap` empty slots.  A table of 2 MB or more is aligned to 2 MB and asked
 * to be backed by huge pages (where the kernel makes them on request): a
 * look-up at a million keys lands on a random one of 4096 small pages,
 * which the TLB does not hold, and costs a page walk on top of the miss. */
static slot *new_slots(size_t cap)
{
    size_t bytes = cap * sizeof(slot);
    void *p;
    if (bytes < HUGE_PAGE)
        return calloc(cap, sizeof(slot));
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* advice: the table works without it */
#endif
    return memset(p, 0, bytes);
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
    if (!(m->slots = new_slots(cap))) {
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
    free(m->entries);
    free(m);
}

/* The slot holding `key` (hash h), or the empty one where it would go. */
static size_t find(const hs__strmap *m, const char *key, uint64_t h)
{
    size_t i = (size_t)h & (m->cap - 1);
    for (;; i = (i + 1) & (m->cap - 1)) {
        slot s = m->slots[i];
        if (!s)
            return i;
        if (SLOT_TAG(s) == SLOT_TAG(h)) {
            const entry *e = &m->entries[SLOT_ENTRY(s) - 1];
            if (e->hash == h && strcmp(e->key, key) == 0)
                return i;
        }
    }
}

/* Doubles the slots, placing the entries again in their order (reading
 * them, not the keys, one after another). */
static int grow(hs__strmap *m)
{
    size_t cap = m->cap * 2;
    slot *slots = new_slots(cap);
    if (!slots)
        return -1;
    for (size_t k = 0; k < m->len; k++) {
        uint64_t h = m->entries[k].hash;
        size_t j = (size_t)h & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = SLOT_TAG(h) << 32 | (uint64_t)(k + 1);
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

int hs__strmap_add(hs__strmap *m, const char *key, size_t value, const char **copy)
{
    uint64_t h = hash(key);
    const char *c;
    size_t i;
    if ((m->len + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    i = find(m, key, h);
    if (m->slots[i]) {
        if (copy)
            *copy = m->entries[SLOT_ENTRY(m->slots[i]) - 1].key;
        return 1;
    }
    if (m->len == MAX_ENTRIES)
        return -1;
    if (m->len == m->entries_cap) {
        size_t ecap = m->entries_cap ? 2 * m->entries_cap : 16;
        entry *e = realloc(m->entries, ecap * sizeof *e);
        if (!e)
            return -1;
        m->entries = e;
        m->entries_cap = ecap;
    }
    if (!(c = copy_key(m, key, strlen(key))))
        return -1;
    m->entries[m->len] = (entry){.key = c, .hash = h, .value = value};
    m->slots[i] = SLOT_TAG(h) << 32 | (uint64_t)(m->len + 1);
    m->len++;
    if (copy)
        *copy = c;
    return 0;
}

int hs__strmap_put(hs__strmap *m, const char *key, size_t value)
{
    return hs__strmap_add(m, key, value, NULL);
}

const char *hs__strmap_intern(hs__strmap *m, const char *key)
{
    const char *copy = NULL;
    return hs__strmap_add(m, key, 0, &copy) < 0 ? NULL : copy;
}

void hs__strmap_prefetch(const hs__strmap *m, const char *key)
{
    hs__strmap_prefetch_stage(m, hash(key), 1);
}

int hs__strmap_get(const hs__strmap *m, const char *key, size_t *value)
{
    return hs__strmap_get_hashed(m, key, hash(key), value);
}

uint64_t hs__strmap_hash(const char *key)
{
    return hash(key);
}

/* Stages 2 and 3 follow the first slot only: half full at most, the
 * table holds most keys there. */
void hs__strmap_prefetch_stage(const hs__strmap *m, uint64_t h, int stage)
{
    const slot *at = &m->slots[(size_t)h & (m->cap - 1)];
    const entry *e;
    if (stage <= 1) {
        __builtin_prefetch(at);
        return;
    }
    if (!*at || SLOT_TAG(*at) != SLOT_TAG(h))
        return;
    e = &m->entries[SLOT_ENTRY(*at) - 1];
    __builtin_prefetch(stage == 2 ? (const void *)e : (const void *)e->key);
}

int hs__strmap_get_hashed(const hs__strmap *m, const char *key, uint64_t h, size_t *value)
{
    slot s = m->slots[find(m, key, h)];
    if (!s)
        return 0;
    *value = m->entries[SLOT_ENTRY(s) - 1].value;
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
