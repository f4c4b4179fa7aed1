/* hetsched — the CUDA entry points when CUDA is not built in: they answer
 * HS_ENOTBUILT, so callers need no #if of their own. */
#include "workloads/kernels/kernel_int.h"

int hs_kcuda_new(int device, hs_kcuda **out, hs_error *err)
{
    (void)device;
    *out = NULL;
    return hs_error_set(err, HS_ENOTBUILT,
                        "CUDA kernels: not built in (build with -Dcuda=enabled)");
}

void hs_kcuda_free(hs_kcuda *ctx)
{
    (void)ctx;
}

int hs_krun_cuda(const hs_kconf *c, void *const *dbufs, size_t begin, size_t end,
                 hs_kcuda *ctx, hs_kstream stream, hs_error *err)
{
    (void)dbufs;
    (void)begin;
    (void)end;
    (void)ctx;
    (void)stream;
    return hs_error_set(err, HS_ENOTBUILT, "%s: CUDA kernels not built in", c->type->name);
}
