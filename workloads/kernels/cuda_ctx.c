/* hetsched — the CUDA context of a worker and the entry point that runs a
 * kernel type on a stream (workloads/kernels/kernel.h). */
#include "workloads/kernels/cuda_int.h"

#include <stdlib.h>

/* Each type's CUDA kernel. */
static const struct {
    const hs_ktype *type;
    int (*run)(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
               hs_error *err);
} kernels[] = {
    {&hs_ktype_va, hs__kcuda_va},         {&hs_ktype_increment, hs__kcuda_increment},
    {&hs_ktype_scale, hs__kcuda_scale},   {&hs_ktype_matadd, hs__kcuda_matadd},
    {&hs_ktype_axpy, hs__kcuda_axpy},     {&hs_ktype_fblock, hs__kcuda_fblock},
    {&hs_ktype_pi, hs__kcuda_pi},         {&hs_ktype_gemm, hs__kcuda_gemm},
    {&hs_ktype_gemv, hs__kcuda_gemv},     {&hs_ktype_dot, hs__kcuda_dot},
    {&hs_ktype_potrf, hs__kcuda_potrf},   {&hs_ktype_trsm, hs__kcuda_trsm},
    {&hs_ktype_syrk, hs__kcuda_syrk},
};

int hs__cuda_ok(cudaError_t e, const char *who, const char *call, hs_error *err)
{
    if (e == cudaSuccess)
        return 0;
    return hs_error_set(err, HS_EIO, "%s%s%s failed: %s (%s)", who ? who : "", who ? ": " : "",
                        call, cudaGetErrorString(e), cudaGetErrorName(e));
}

int hs__kcuda_ok(cudaError_t e, const hs_kconf *c, const char *call, hs_error *err)
{
    return hs__cuda_ok(e, c ? c->type->name : NULL, call, err);
}

int hs__kcublas_ok(cublasStatus_t s, const hs_kconf *c, const char *call, hs_error *err)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return 0;
    return hs_error_set(err, HS_EIO, "%s%s%s failed: %s", c ? c->type->name : "",
                        c ? ": " : "", call, cublasGetStatusName(s));
}

int hs__kcusolver_ok(cusolverStatus_t s, const hs_kconf *c, const char *call, hs_error *err)
{
    if (s == CUSOLVER_STATUS_SUCCESS)
        return 0;
    return hs_error_set(err, HS_EIO, "%s%s%s failed: cusolverStatus_t %d",
                        c ? c->type->name : "", c ? ": " : "", call, (int)s);
}

/* Creates the handles on `device`; unwinds what it made on failure. */
int hs_kcuda_new(int device, hs_kcuda **out, hs_error *err)
{
    hs_kcuda *ctx = calloc(1, sizeof *ctx);
    int rc;
    if (!ctx)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    ctx->device = device;
    if ((rc = hs__kcuda_ok(cudaSetDevice(device), NULL, "cudaSetDevice", err)) != 0)
        goto fail_ctx;
    if ((rc = hs__kcublas_ok(cublasCreate(&ctx->blas), NULL, "cublasCreate", err)) != 0)
        goto fail_ctx;
    /* plain float arithmetic: never TF32 tensor cores, whose 10-bit
     * mantissas would miss the 1e-4 tolerance */
    if ((rc = hs__kcublas_ok(cublasSetMathMode(ctx->blas, CUBLAS_DEFAULT_MATH), NULL,
                             "cublasSetMathMode", err)) != 0)
        goto fail_blas;
    if ((rc = hs__kcusolver_ok(cusolverDnCreate(&ctx->solver), NULL, "cusolverDnCreate",
                               err)) != 0)
        goto fail_blas;
    *out = ctx;
    return 0;
fail_blas:
    cublasDestroy(ctx->blas);
fail_ctx:
    free(ctx);
    return rc;
}

void hs_kcuda_free(hs_kcuda *ctx)
{
    if (!ctx)
        return;
    cudaSetDevice(ctx->device);
    cusolverDnDestroy(ctx->solver);
    cublasDestroy(ctx->blas);
    free(ctx);
}

int hs_krun_cuda(const hs_kconf *c, void *const *dbufs, size_t begin, size_t end,
                 hs_kcuda *ctx, hs_kstream stream, hs_error *err)
{
    size_t i;
    int rc;
    if ((rc = hs__krange(c, begin, end, err)) != 0)
        return rc;
    if (begin == end)
        return 0; /* nothing to launch (an empty grid is an error) */
    if ((rc = hs__kcuda_ok(cudaSetDevice(ctx->device), c, "cudaSetDevice", err)) != 0)
        return rc;
    /* a worker runs its kernels on one stream: set the handles up once
     * (three library calls a launch, a few µs of a tiny kernel's dispatch) */
    if (!ctx->bound || ctx->stream != stream) {
        ctx->stream = stream;
        ctx->bound = 0;
        if ((rc = hs__kcublas_ok(cublasSetStream(ctx->blas, stream), c, "cublasSetStream",
                                 err)) != 0 ||
            (rc = hs__kcublas_ok(cublasSetPointerMode(ctx->blas, CUBLAS_POINTER_MODE_HOST), c,
                                 "cublasSetPointerMode", err)) != 0 ||
            (rc = hs__kcusolver_ok(cusolverDnSetStream(ctx->solver, stream), c,
                                   "cusolverDnSetStream", err)) != 0)
            return rc;
        ctx->bound = 1;
    }
    for (i = 0; i < sizeof kernels / sizeof kernels[0] && kernels[i].type != c->type; i++)
        ;
    if (i == sizeof kernels / sizeof kernels[0])
        return hs_error_set(err, HS_EINPUT, "%s: no CUDA kernel", c->type->name);
    if ((rc = kernels[i].run(c, dbufs, begin, end, ctx, err)) != 0)
        ctx->bound = 0; /* it may have left cuBLAS in another mode */
    return rc;
}
