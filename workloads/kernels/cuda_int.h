/* hetsched — what the CUDA halves of the kernel types share: the per-worker
 * context and the checks of CUDA, cuBLAS and cuSOLVER statuses. */
#ifndef HS_WORKLOADS_CUDA_INT_H
#define HS_WORKLOADS_CUDA_INT_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "workloads/kernels/kernel_int.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hs_kcuda {
    int device;
    cudaStream_t stream;        /* of the run in progress (hs_krun_cuda) */
    int bound;                  /* the handles are on `stream`, cuBLAS in host
                                   pointer mode (every kernel leaves it so) */
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
};

/* 0 when the status is a success, else HS_EIO naming `who` (or nothing when
 * NULL) and the call: "backend cuda: cudaMalloc failed: out of memory
 * (cudaErrorMemoryAllocation)". */
int hs__cuda_ok(cudaError_t e, const char *who, const char *call, hs_error *err);

/* The same for a kernel type (or NULL) and CUDA, cuBLAS or cuSOLVER:
 * "gemm: cublasSgemm failed: CUBLAS_STATUS_...". */
int hs__kcuda_ok(cudaError_t e, const hs_kconf *c, const char *call, hs_error *err);
int hs__kcublas_ok(cublasStatus_t s, const hs_kconf *c, const char *call, hs_error *err);
int hs__kcusolver_ok(cusolverStatus_t s, const hs_kconf *c, const char *call, hs_error *err);

/* The CUDA halves of the types (workloads/kernels/cuda_*.{c,cu}), which
 * hs_krun_cuda finds by type (cuda_ctx.c). */
#define HS__KCUDA_FN(name)                                                             \
    int name(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx, \
             hs_error *err)
HS__KCUDA_FN(hs__kcuda_va);
HS__KCUDA_FN(hs__kcuda_increment);
HS__KCUDA_FN(hs__kcuda_scale);
HS__KCUDA_FN(hs__kcuda_matadd);
HS__KCUDA_FN(hs__kcuda_axpy);
HS__KCUDA_FN(hs__kcuda_fblock);
HS__KCUDA_FN(hs__kcuda_pi);
HS__KCUDA_FN(hs__kcuda_gemm);
HS__KCUDA_FN(hs__kcuda_gemv);
HS__KCUDA_FN(hs__kcuda_dot);
HS__KCUDA_FN(hs__kcuda_potrf);
HS__KCUDA_FN(hs__kcuda_trsm);
HS__KCUDA_FN(hs__kcuda_syrk);

#ifdef __cplusplus
}
#endif
#endif
