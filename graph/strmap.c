/* hetsched — internal string -> index hash map (see strmap.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/strmap.h"

struct hs__strmap {
    size_t cap, len; /* cap is a power of two */
    char **keys;
    size_t *values;
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
    m->keys = calloc(cap, sizeof *m->keys);
    m->values = calloc(cap, sizeof *m->values);
    if (!m->keys || !m->values) {
        hs__strmap_free(m);
        return NULL;
    }
    return m;
}

void hs__strmap_free(hs__strmap *m)
{
    if (!m)
        return;
    if (m->keys)
        for (size_t i = 0; i < m->cap; i++)
            free(m->keys[i]);
    free(m->keys);
    free(m->values);
    free(m);
}

static size_t slot(const hs__strmap *m, const char *key)
{
    size_t i = (size_t)hash(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(hs__strmap *m)
{
    hs__strmap big = {.cap = m->cap * 2};
    big.keys = calloc(big.cap, sizeof *big.keys);
    big.values = calloc(big.cap, sizeof *big.values);
    if (!big.keys || !big.values) {
        free(big.keys);
        free(big.values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i]) {
            size_t j = slot(&big, m->keys[i]);
            big.keys[j] = m->keys[i];
            big.values[j] = m->values[i];
        }
    }
    free(m->keys);
    free(m->values);
    m->keys = big.keys;
    m->values = big.values;
    m->cap = big.cap;
    return 0;
}

int hs__strmap_put(hs__strmap *m, const char *key, size_t value)
{
    size_t i;
    if ((m->len + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    i = slot(m, key);
    if (m->keys[i])
        return 1;
    m->keys[i] = strdup(key);
    if (!m->keys[i])
        return -1;
    m->values[i] = value;
    m->len++;
    return 0;
}

int hs__strmap_get(const hs__strmap *m, const char *key, size_t *value)
{
    size_t i = slot(m, key);
    if (!m->keys[i])
        return 0;
    *value = m->values[i];
    return 1;
}
