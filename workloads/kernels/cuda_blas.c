/* hetsched — the CUDA halves of the linear algebra types, on cuBLAS and
 * cuSOLVER.  Our matrices are row-major; cuBLAS reads the same memory
 * column-major, i.e. transposed, so each call below is the transposed
 * problem: C = A B becomes C^T = B^T A^T, lower becomes upper.  Every call
 * is asynchronous on the context's stream, with host pointers for the
 * scalars (hs_krun_cuda set both), and its status is checked. */
#include "workloads/kernels/cuda_int.h"

int hs__kcuda_gemm(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                   hs_error *err)
{
    int n = (int)c->p[HS_KGEMM_N], k = (int)c->p[HS_KGEMM_K], tb = c->p[HS_KGEMM_TRANSB] != 0;
    float alpha = (float)c->p[HS_KGEMM_ALPHA], beta = (float)c->p[HS_KGEMM_BETA];
    const float *a = d[0], *b = d[1];
    float *out = d[2];
    cublasStatus_t s;
    /* rows [begin, end) of C = A op(B)  <=>  columns of C^T = op(B)^T A^T */
    s = cublasSgemm(ctx->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n,
                    (int)(end - begin), k, &alpha, b, tb ? k : n, a + begin * (size_t)k, k,
                    &beta, out + begin * (size_t)n, n);
    return hs__kcublas_ok(s, c, "cublasSgemm", err);
}

int hs__kcuda_gemv(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                   hs_error *err)
{
    int n = (int)c->p[0];
    const float one = 1.0f, zero = 0.0f, *a = d[0], *x = d[1];
    float *y = d[2];
    /* A row-major m x n is A^T column-major n x m: y = (A^T)^T x */
    return hs__kcublas_ok(cublasSgemv(ctx->blas, CUBLAS_OP_T, n, (int)(end - begin), &one,
                                      a + begin * (size_t)n, n, x, 1, &zero, y + begin, 1),
                          c, "cublasSgemv", err);
}

int hs__kcuda_dot(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                  hs_error *err)
{
    int rc;
    (void)begin;
    (void)end;
    /* the result stays on the device: no synchronisation */
    if ((rc = hs__kcublas_ok(cublasSetPointerMode(ctx->blas, CUBLAS_POINTER_MODE_DEVICE), c,
                             "cublasSetPointerMode", err)) != 0)
        return rc;
    rc = hs__kcublas_ok(cublasSdot(ctx->blas, (int)c->p[0], d[0], 1, d[1], 1, d[2]), c,
                        "cublasSdot", err);
    /* back to what hs_krun_cuda promises every other call */
    if (hs__kcublas_ok(cublasSetPointerMode(ctx->blas, CUBLAS_POINTER_MODE_HOST), c,
                       "cublasSetPointerMode", rc ? NULL : err) != 0 &&
        rc == 0)
        rc = HS_EIO;
    return rc;
}

/* The workspace and the info word come from the stream-ordered allocator,
 * so nothing synchronises.  info is not read back: a tile that is not
 * positive definite shows as NaNs that the check reports. */
int hs__kcuda_potrf(const hs_kconf *c, void *const *d, size_t begin, size_t end,
                    hs_kcuda *ctx, hs_error *err)
{
    int n = (int)c->p[0], lwork = 0, rc;
    float *work = NULL;
    (void)begin;
    (void)end;
    if ((rc = hs__kcusolver_ok(cusolverDnSpotrf_bufferSize(ctx->solver, CUBLAS_FILL_MODE_UPPER,
                                                           n, d[0], n, &lwork),
                               c, "cusolverDnSpotrf_bufferSize", err)) != 0)
        return rc;
    if ((rc = hs__kcuda_ok(cudaMallocAsync((void **)&work, ((size_t)lwork + 1) * sizeof(float),
                                           ctx->stream),
                           c, "cudaMallocAsync", err)) != 0)
        return rc;
    /* column-major upper == row-major lower; info goes after the workspace */
    rc = hs__kcusolver_ok(cusolverDnSpotrf(ctx->solver, CUBLAS_FILL_MODE_UPPER, n, d[0], n, work,
                                           lwork, (int *)(work + lwork)),
                          c, "cusolverDnSpotrf", err);
    if (hs__kcuda_ok(cudaFreeAsync(work, ctx->stream), c, "cudaFreeAsync", rc ? NULL : err) &&
        rc == 0)
        rc = HS_EIO;
    return rc;
}

int hs__kcuda_trsm(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                   hs_error *err)
{
    int n = (int)c->p[0];
    const float one = 1.0f;
    float *b = d[1];
    /* X L^T = B  <=>  L X^T = B^T, and l read column-major is L^T (upper) */
    return hs__kcublas_ok(cublasStrsm(ctx->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                      CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, (int)(end - begin),
                                      &one, d[0], n, b + begin * (size_t)n, n),
                          c, "cublasStrsm", err);
}

int hs__kcuda_syrk(const hs_kconf *c, void *const *d, size_t begin, size_t end, hs_kcuda *ctx,
                   hs_error *err)
{
    int n = (int)c->p[0], k = (int)c->p[1];
    const float minus_one = -1.0f, one = 1.0f;
    (void)begin;
    (void)end;
    /* C - A A^T on C's lower triangle == upper of C read column-major, where
     * a reads as A^T (k x n): op T gives A back */
    return hs__kcublas_ok(cublasSsyrk(ctx->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, n, k,
                                      &minus_one, d[0], k, &one, d[1], n),
                          c, "cublasSsyrk", err);
}
