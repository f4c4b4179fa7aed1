/* hetsched — the workload loader's ways of reading, apart (graph/load.c):
 * for the tests that hold the one-pass reader to the full one, and the JSON
 * form to the YAML. */
#ifndef HS_GRAPH_LOAD_INT_H
#define HS_GRAPH_LOAD_INT_H

#include "hetsched/load.h"

typedef enum hs__load_way {
    HS__LOAD_BOTH,   /* what hs_workload_load_buffer does */
    HS__LOAD_STREAM, /* the one streaming pass alone: refuses what it cannot take */
    HS__LOAD_TREE,   /* the document tree and libcyaml alone */
    HS__LOAD_JSON,   /* the JSON form: the streaming pass over yajl's events */
} hs__load_way;

/* hs_workload_load_buffer by one way. */
int hs__workload_load_buffer_way(const char *name, const char *data, size_t len,
                                 hs__load_way way, hs_workload **out, hs_error *err);

#endif
