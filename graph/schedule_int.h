/* hetsched — internal helpers shared by schedule.c, validate.c and
 * schedule_json.c: the placements of each task in CSR form (so that
 * derive_transfers and the validator visit a task's placements without
 * scanning the whole schedule), placement ids, and whether two paths name
 * the same workload. */
#ifndef HS_GRAPH_SCHEDULE_INT_H
#define HS_GRAPH_SCHEDULE_INT_H

#include <stddef.h>

#include "hetsched/schedule.h"

typedef struct hs__plindex {
    size_t *off; /* ntasks + 1 entries */
    size_t *idx; /* placements of task t: idx[off[t]] .. idx[off[t + 1] - 1] */
} hs__plindex;

/* Counting sort of the placements by task, stable (placement order within a
 * task).  Placements naming a task >= ntasks are left out.  O(ntasks + P).
 * Returns 0 or HS_ENOMEM (with err filled). */
int hs__plindex_build(const hs_schedule *s, size_t ntasks, hs__plindex *ix, hs_error *err);
void hs__plindex_free(hs__plindex *ix);

/* The id of placement p (`APP#I/KERNEL`, or `APP#I/KERNEL[k/n]` for a part);
 * snprintf-like: returns the length it needed.  p->task must be < ntasks. */
int hs__placement_id(const hs_workload *w, const hs_placement *p, char *buf, size_t size);

/* The index of kernel names (NULL: none) that hs_task_parse_id looks up
 * for task id `id`, and in *kernel the kernel's name within id, for a
 * reader that loads the index's slots for many ids before it parses them
 * (hs__strmap_prefetch_stage).  NULL too for an id of a part, or one that
 * names no application; hs_task_parse_id decides what the id names. */
struct hs__strmap;
const struct hs__strmap *hs__task_id_kernel(hs_workload *w, const char *id, const char **kernel);

/* hs_schedule_each_transfer for a caller that holds s's placement index
 * ix (hs__plindex_build over w's tasks) and has checked that every
 * placement names a task and a device of w: the index is not built
 * again. */
int hs__each_transfer(const hs_workload *w, const hs_schedule *s, const hs__plindex *ix,
                      hs_transfer_fn fn, void *ctx);

/* write(w, s, path, err), for a writer that wants s's transfers in
 * s->transfers: when they are implied, a shallow copy of s that lists them
 * goes in s's place.  HS_ENOMEM, HS_EUSAGE as hs_schedule_derive_transfers,
 * or what write returns. */
typedef int (*hs__schedule_writer)(const hs_workload *w, const hs_schedule *s, const char *path,
                                   hs_error *err);
int hs__write_listed(const hs_workload *w, const hs_schedule *s, hs__schedule_writer write,
                     const char *path, hs_error *err);

/* Do two paths name the same workload file?  The same path, or the same
 * file on disk; when one of them cannot be found from here (a schedule made
 * in another directory), the same file name. */
int hs__same_file(const char *a, const char *b);

#define HS__PLINDEX_FOREACH(ix, t, p)                                                              \
    for (size_t hs__j = (ix)->off[t], hs__jend = (ix)->off[(t) + 1];                               \
         hs__j < hs__jend && ((p) = (ix)->idx[hs__j], 1); hs__j++)

#endif
