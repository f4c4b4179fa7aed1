/* hetsched — performance models from a program (public API): load the
 * model `hetsched calibrate --out-model` or `run --update-model` wrote, and
 * use it as a workload's cost provider and as the perfmodel of
 * hs_map_options and hs_run_options, as the commands' --model does.  What
 * a model holds and how it predicts: mapper/perfmodel.h, DESIGN.md §1. */
#ifndef HETSCHED_PERFMODEL_H
#define HETSCHED_PERFMODEL_H

#include <stddef.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_perfmodel hs_perfmodel;

/* A fit of one kernel type on one device: cost_us = a * D^b + c, D the
 * kernel's flops (the paper's model, fitted by weighted least squares). */
typedef struct hs_perf_fit {
    double a, b, c;            /* cost_us = a * D^b + c */
    int npoints;               /* distinct sizes it was fitted on */
    double rms_rel;            /* root mean square of the relative residuals */
} hs_perf_fit;

/* Reads a model (JSON; `path` "-" is stdin).  Every key and value is
 * checked: HS_EINPUT with one line "FILE:LINE:COL: error: PATH: WHAT" (PATH
 * the JSON path of the bad item), also for a file that cannot be read. */
int hs_perfmodel_load(const char *path, hs_perfmodel **out, hs_error *err);
/* The same from `len` bytes at `data`; `name` stands for the file name. */
int hs_perfmodel_load_buffer(const char *name, const char *data, size_t len, hs_perfmodel **out,
                             hs_error *err);
void hs_perfmodel_free(hs_perfmodel *m);

/* A cost provider (hs_cost_fn, graph.h) backed by the model `ctx` (const
 * hs_perfmodel *): the cost of a typed kernel without cost_us on a device
 * is what the model predicts for its type, params and size there.  Set it
 * with hs_workload_set_cost_fn or hs_load_options; the model must outlive
 * the workload. */
int hs_perfmodel_cost_fn(void *ctx, const hs_kernel *k, const hs_device *d, double *us,
                         hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
