/* hetsched — the GPU half of real splits when CUDA is not built in
 * (exec/split_real.h): no GPU, plain host memory. */
#include <stdlib.h>

#include "exec/split_real.h"

int hs__split_gpu_count(void)
{
    return 0;
}

void *hs__split_host_alloc(size_t bytes, int pinned)
{
    (void)pinned;
    return malloc(bytes ? bytes : 1);
}

void hs__split_host_free(void *p, int pinned)
{
    (void)pinned;
    free(p);
}

int hs__split_gpu_sms(int dev)
{
    (void)dev;
    return 0;
}

int hs__split_gpu_open(const hs_kconf *c, int cuda_device, hs__split_gpu **out, hs_error *err)
{
    (void)c;
    *out = NULL;
    return hs_error_set(err, HS_ENOTBUILT, "gpu%d: CUDA not built in (build with -Dcuda=enabled)",
                        cuda_device);
}

void hs__split_gpu_close(hs__split_gpu *g)
{
    (void)g;
}

int hs__split_gpu_prep(hs__split_gpu *g, void *const *in, hs_error *err)
{
    (void)g, (void)in;
    return hs_error_set(err, HS_ENOTBUILT, "CUDA not built in");
}

int hs__split_gpu_chunk(hs__split_gpu *g, void *const *in, void *const *out, size_t b, size_t e,
                        size_t width, hs_error *err)
{
    (void)g, (void)in, (void)out, (void)b, (void)e, (void)width;
    return hs_error_set(err, HS_ENOTBUILT, "CUDA not built in");
}

int hs__split_gpu_drain(hs__split_gpu *g, hs_error *err)
{
    (void)g;
    return hs_error_set(err, HS_ENOTBUILT, "CUDA not built in");
}
