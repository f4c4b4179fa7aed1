/* hetsched — helpers shared by the kernel types (workloads/kernels/). */
#ifndef HS_WORKLOADS_KERNEL_INT_H
#define HS_WORKLOADS_KERNEL_INT_H

#include <stdint.h>

#include "hs_config.h"
#include "workloads/kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The types (registry.c lists them in hs_ktypes). */
extern const hs_ktype hs_ktype_va, hs_ktype_increment, hs_ktype_scale, hs_ktype_matadd,
    hs_ktype_axpy, hs_ktype_gemm, hs_ktype_gemv, hs_ktype_dot, hs_ktype_potrf, hs_ktype_trsm,
    hs_ktype_syrk, hs_ktype_pi, hs_ktype_fblock;

/* Largest sizes a param may ask for: vector lengths are BLAS ints; a
 * matrix side of 65536 makes a 16 GiB float matrix. */
#define HS_KVEC_MAX 2147483647.0
#define HS_KMAT_MAX 65536.0

/* How many entries check() recomputes for the O(n^3) types (gemm, potrf,
 * trsm, syrk) when their output has more: spread by a hash of the seed,
 * always including the first and the last entry. */
#define HS_KCHECK_SAMPLES 4096

/* Tolerances.  The componentwise error of an entry is |got - ref| divided by
 * the sum of the magnitudes of the terms that make it (|A||B| for a product:
 * Higham's componentwise bound, so cancellation cannot inflate it). */
#define HS_KTOL_BLAS 1e-4 /* float BLAS/LAPACK: gemm, gemv, dot, potrf, trsm, syrk */
#define HS_KTOL_AXPY 1e-6 /* one a*x + b*y: allows a fused multiply-add */

/* Param indices of the types whose CPU and CUDA halves live in different
 * files (the order of their spec tables). */
enum { HS_KGEMM_N, HS_KGEMM_M, HS_KGEMM_K, HS_KGEMM_ALPHA, HS_KGEMM_BETA, HS_KGEMM_TRANSB };
enum { HS_KAXPY_N, HS_KAXPY_ALPHA, HS_KAXPY_BETA, HS_KAXPY_RATIO };

/* Deterministic input values: a float in [-1, 1) for element i of stream
 * `stream` (one per buffer) of a given seed (splitmix64 of the three). */
float hs__kuniform(uint64_t seed, unsigned stream, uint64_t i);
/* splitmix64: the hash behind hs__kuniform and the check's sample. */
uint64_t hs__ksplitmix(uint64_t x);
/* Fills n floats of buffer `stream` with hs__kuniform. */
void hs__kfill_uniform(float *x, size_t n, uint64_t seed, unsigned stream);
/* x[from .. to) of what hs__kfill_uniform(x, n, seed, stream) writes. */
void hs__kfill_uniform_range(float *x, size_t from, size_t to, uint64_t seed, unsigned stream);

/* Sets buffer i of c (and c->nbufs to cover it). */
void hs__kset_buf(hs_kconf *c, int i, const char *name, hs_kmode mode, size_t bytes);
/* The common fill: hs__kfill_uniform on every read buffer i, stream i. */
void hs__kfill_inputs(const hs_kconf *c, void *const *bufs);

/* Entry index for sample s of `count` entries (all of them when count <=
 * HS_KCHECK_SAMPLES; see above otherwise) and the number of samples. */
size_t hs__ksamples(size_t count);
size_t hs__ksample(size_t count, size_t s, uint64_t seed);

/* Starts a check: zeroes *res and sets its tolerance. */
void hs__kcheck_begin(hs_kcheck_result *res, double tolerance);
/* Counts one entry with error e (in the unit of the tolerance); returns 1
 * when it is the first entry beyond the tolerance, so the caller can name
 * it.  A NaN error is beyond any tolerance. */
int hs__kcheck_err(hs_kcheck_result *res, double e);
/* Componentwise error of got against ref for terms of total magnitude
 * `scale`, counted as above. */
int hs__kcheck_cw(hs_kcheck_result *res, double got, double ref, double scale);
/* Ends a check: 0 if nothing was bad, else HS_ECHECK naming `where`
 * (the first bad entry, e.g. "c[3][7] = 1.5, reference 1.25"). */
int hs__kcheck_end(const hs_kconf *c, const hs_kcheck_result *res, const char *where,
                   hs_error *err);

/* HS_EINPUT unless begin <= end <= c->items, and unless the range is the
 * whole [0, items) for a type that is not splittable. */
int hs__krange(const hs_kconf *c, size_t begin, size_t end, hs_error *err);

/* Sets OpenBLAS's thread count when n > 0 (process-wide). */
void hs__kblas_threads(int n);


/* The pi kernel's shared definition: samples per work item, and the random
 * words of sample i: Philox4x32-10 with counter {lo(i), hi(i), 0, 0} and key
 * {lo(seed), hi(seed)} (Salmon et al., SC'11), which is exactly what
 * cuRAND's curand_init(seed, 0, 4 * i, &s) then curand4(&s) returns. */
#define HS_PI_BLOCK 256
void hs__kphilox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
void hs__kphilox(uint64_t seed, uint64_t i, uint32_t out[4]);
/* The hit test, in integers so that CPU and GPU agree exactly: with
 * u = x >> 1 and v = y >> 1, the point (u, v) / 2^31 of the unit square lies
 * inside the quarter disc of radius 1 when u^2 + v^2 < 2^62. */
#ifdef __CUDACC__
#define HS__KHOSTDEV __host__ __device__
#else
#define HS__KHOSTDEV
#endif
static inline HS__KHOSTDEV int hs__kpi_hit(uint32_t x, uint32_t y)
{
    uint64_t u = x >> 1, v = y >> 1;
    return u * u + v * v < ((uint64_t)1 << 62);
}

#ifdef __cplusplus
}
#endif
#endif
