/* hetsched — calibration's internals; the API, and how it measures:
 * include/hetsched/calibrate.h. */
#ifndef HS_EXEC_CALIBRATE_H
#define HS_EXEC_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/calibrate.h"
#include "mapper/perfmodel.h"
#include "workloads/kernels/kernel.h"

/* The values of t's size param that `sizes` (as hs_calib_options.sizes)
 * measures, increasing, into values[0..*n), *n <= HS_CALIB_MAX_SIZES.
 * HS_EINPUT as hs_calibrate. */
#define HS_CALIB_MAX_SIZES 64
int hs__calib_plan_sizes(const hs_ktype *t, const char *sizes, double *values, int *n,
                         hs_error *err);

#endif
