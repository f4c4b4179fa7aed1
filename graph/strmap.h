/* hetsched — internal string -> index hash map (open addressing, FNV-1a, at most
 * 2^32 - 1 keys).
 * Keys are copied, packed in blocks the map owns.  Used for task ids and
 * names; never shrinks. */
#ifndef HS_GRAPH_STRMAP_H
#define HS_GRAPH_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hs__strmap hs__strmap;

hs__strmap *hs__strmap_new(size_t expected);
void hs__strmap_free(hs__strmap *m);
/* Returns 0, 1 if the key was already there (value unchanged), or -1 when
 * out of memory. */
int hs__strmap_put(hs__strmap *m, const char *key, size_t value);
/* The same, and *copy (when not NULL) is the map's copy of the key (the
 * one already there when it returns 1), which lives as long as the map. */
int hs__strmap_add(hs__strmap *m, const char *key, size_t value, const char **copy);
/* Returns 1 and sets *value when found, else 0. */
int hs__strmap_get(const hs__strmap *m, const char *key, size_t *value);
/* Starts loading the slot where `key` is looked up or added, which at a
 * million keys is a miss of the cache: a caller that knows the key some
 * work before it looks it up hides (part of) the miss behind that work. */
void hs__strmap_prefetch(const hs__strmap *m, const char *key);
/* A look-up in stages, for a caller with many keys to look up at once: at
 * a million keys the key's slot, its entry and the copy of the key each
 * miss the cache, one after the other, and a caller that runs one stage
 * over all its keys before the next has those misses overlap.  h is
 * hs__strmap_hash(key); stage 1 loads the slot where h is looked up, stage
 * 2 (the slot read) the entry it names, stage 3 (the entry read) the key's
 * copy; hs__strmap_get_hashed then finds key as hs__strmap_get does.  A
 * stage only loads: skipping one, or running it on another map's h, costs
 * time, never a wrong answer. */
uint64_t hs__strmap_hash(const char *key);
void hs__strmap_prefetch_stage(const hs__strmap *m, uint64_t h, int stage);
int hs__strmap_get_hashed(const hs__strmap *m, const char *key, uint64_t h, size_t *value);
/* The map's copy of key, added (value 0) when it is not there: one copy of
 * a string that many items share.  NULL when out of memory. */
const char *hs__strmap_intern(hs__strmap *m, const char *key);

/* A map from pairs of indices below 2^31 (an edge's two ends) to an index,
 * with the same contract: a million-task workload has millions of edges,
 * which as string keys would take a copy and a string compare each. */
typedef struct hs__pairmap hs__pairmap;

hs__pairmap *hs__pairmap_new(void);
void hs__pairmap_free(hs__pairmap *m);
int hs__pairmap_put(hs__pairmap *m, unsigned a, unsigned b, size_t value);
int hs__pairmap_get(const hs__pairmap *m, unsigned a, unsigned b, size_t *value);

#endif
