/* hetsched — internal string -> index hash map (open addressing, FNV-1a).
 * Keys are copied, packed in blocks the map owns.  Used for task ids and
 * names; never shrinks. */
#ifndef HS_GRAPH_STRMAP_H
#define HS_GRAPH_STRMAP_H

#include <stddef.h>

typedef struct hs__strmap hs__strmap;

hs__strmap *hs__strmap_new(size_t expected);
void hs__strmap_free(hs__strmap *m);
/* Returns 0, 1 if the key was already there (value unchanged), or -1 when
 * out of memory. */
int hs__strmap_put(hs__strmap *m, const char *key, size_t value);
/* Returns 1 and sets *value when found, else 0. */
int hs__strmap_get(const hs__strmap *m, const char *key, size_t *value);

#endif
