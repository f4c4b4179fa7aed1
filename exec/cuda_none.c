/* hetsched — the `cuda` backend when CUDA is not built in: it answers
 * HS_ENOTBUILT, so hs_backend_find and the command line need no #if. */
#include <stdio.h>

#include "exec/data.h"
#include "exec/mem.h"

int hs_cuda_device_count(void)
{
    return 0;
}

int hs__cuda_gpu_count(char *why, size_t size)
{
    if (why)
        snprintf(why, size, "CUDA is not built in: build with -Dcuda=enabled");
    return 0;
}

void hs__cuda_gpu_describe(int dev, char *buf, size_t size)
{
    snprintf(buf, size, "CUDA device %d", dev);
}

int hs__cuda_gpu_sms(int dev)
{
    (void)dev;
    return 0;
}

int hs__mem_cuda_new(const hs_workload *w, const unsigned char *local, size_t device_memory,
                     const hs__mem_ops **ops, void **ctx, hs_error *err)
{
    (void)w, (void)local, (void)device_memory, (void)ops, (void)ctx;
    return hs_error_set(err, HS_ENOTBUILT,
                        "backend cuda: not built in (build with -Dcuda=enabled)");
}

static int none_init(hs_backend *b, const hs_workload *w, const hs_graph *g, hs_error *err)
{
    (void)b, (void)w, (void)g;
    return hs__mem_cuda_new(w, NULL, 0, NULL, NULL, err);
}

const hs_backend_ops hs_backend_cuda = {
    .name = "cuda",
    .init = none_init,
};
