/* hetsched — real split runs' internals; the API, and how a kernel is
 * split across the CPU and the GPUs: include/hetsched/split.h. */
#ifndef HS_EXEC_SPLIT_REAL_H
#define HS_EXEC_SPLIT_REAL_H

#include <stddef.h>

#include "exec/mem.h"
#include "hetsched/split.h"
#include "mapper/split.h"
#include "workloads/kernels/kernel.h"

/* ------------------------------------------------------------- internal */

/* hs_split_real_open of the configured kernel c (the tests'). */
int hs__split_real_open_conf(const hs_kconf *c, const hs_split_real_device *dev, int ndev,
                             hs_split_real **out, hs_error *err);

/* For tests: hook(ctx, d, b, e, aside) is called on device d's thread
 * before each chunk [b, e) of a drive runs (d indexes the devices given to
 * hs_split_real_open; aside as in split_drive.h).  A hook that blocks
 * stands for a device that stopped answering.  NULL: none. */
typedef void (*hs__split_real_hook)(void *ctx, int device, size_t b, size_t e, int aside);
void hs__split_real_set_hook(hs_split_real *r, hs__split_real_hook hook, void *ctx);

/* The GPU half (exec/split_gpu.c), on the device layer's cuda memory
 * spaces (exec/mem.h): a device's buffers, its chunks' copies and kernels. */

typedef struct hs__split_gpu hs__split_gpu;

/* The GPU half of kernel c on CUDA device cuda_device of layer L (both
 * outlive it): allocates the device's whole-size buffers. */
int hs__split_gpu_open(const hs_kconf *c, const hs__gpu_layer *L, int cuda_device,
                       hs__split_gpu **out, hs_error *err);
void hs__split_gpu_close(hs__split_gpu *g);
/* Copies the buffers every range reads whole from `in` to the GPU and
 * waits. */
int hs__split_gpu_prep(hs__split_gpu *g, void *const *in, hs_error *err);
/* Runs items [b, e) as described above in pieces of whole widths, reading
 * inputs from `in` (the saved inputs of in-place buffers) and writing
 * results to `out`, and waits for its last kernel; its last output copy may
 * still be under way. */
int hs__split_gpu_chunk(hs__split_gpu *g, void *const *in, void *const *out, size_t b, size_t e,
                        size_t width, hs_error *err);
/* Waits for the kernels and output copies still under way: the results
 * are then in `out` (inputs copied ahead may still be on their way: the
 * next prep waits for them). */
int hs__split_gpu_drain(hs__split_gpu *g, hs_error *err);

/* The pieces of a GPU chunk of n items: as many as whole widths fit, at
 * most HS_SPLIT_REAL_PIECES, each moving HS_SPLIT_REAL_PIECE_BYTES or
 * more.  The first is one width, so that the first kernel waits only for a
 * small copy; the others share the rest in whole widths.  Fills at[0..np]
 * (offsets from the chunk's first item; room for HS_SPLIT_REAL_PIECES + 1)
 * and returns np >= 1. */
size_t hs__split_gpu_pieces(const hs_kconf *c, size_t n, size_t width, size_t *at);

/* Byte spans of item ranges: hs_kspan (workloads/kernels/kernel.h). */

#endif
