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

/* ------------------------------------------------------------ CUDA part
 * exec/calibrate_cuda.c in the CUDA module (exec/cuda_module.h) with the
 * cuda feature, exec/calibrate_nocuda.c without (every call but count and
 * close answers HS_ENOTBUILT). */

typedef struct hs__calib_gpu hs__calib_gpu;

/* CUDA devices found; 0 with *why filled ("CUDA is not built in", "no GPU
 * found: ...") when there are none. */
int hs__calib_gpu_count(char *why, size_t size);
/* A measuring context on CUDA device `dev`: kernel handles, a stream, two
 * events.  HS_EIO when CUDA refuses. */
int hs__calib_gpu_open(int dev, hs__calib_gpu **out, hs_error *err);
void hs__calib_gpu_close(hs__calib_gpu *g);
/* "NAME, X GiB" of the device. */
void hs__calib_gpu_describe(const hs__calib_gpu *g, char *buf, size_t size);
/* Free device memory in bytes (0 when unknown). */
size_t hs__calib_gpu_free_bytes(const hs__calib_gpu *g);
/* Times reps runs of items [b, e) of kernel c (after one warm-up) on g's
 * stream into us[0..reps); hbufs are its host buffers, filled. */
int hs__calib_gpu_kernel(hs__calib_gpu *g, const hs_kconf *c, void *const *hbufs, size_t b,
                         size_t e, int reps, double *us, hs_error *err);
/* Times reps samples of `loop` back-to-back copies of `bytes` from `src`
 * to `dst` (NULL: pinned host memory; not both NULL) into us[0..reps), per
 * copy.  *direct: 1 unless a GPU pair lacks peer access (then the driver
 * stages the copy through the host). */
int hs__calib_copy(hs__calib_gpu *src, hs__calib_gpu *dst, size_t bytes, int loop, int reps,
                   double *us, int *direct, hs_error *err);

#endif
