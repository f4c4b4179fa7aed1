/* hetsched — the cuda memory spaces over a platform of their own
 * (exec/mem.h, hs__gpu_layer): what calibrate and real splits run GPUs
 * through. */
#include <stdio.h>

#include "exec/mem.h"

int hs__gpu_layer_open(hs__gpu_layer *L, int ngpus, hs_error *err)
{
    char name[16];
    int rc;
    *L = (hs__gpu_layer){0};
    if (!(L->w = hs_workload_new()))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (int g = 0; g < ngpus; g++) {
        snprintf(name, sizeof name, "gpu%d", g);
        if ((rc = hs_platform_add_device(L->w, name, HS_DEVICE_GPU, name, 0, err)) < 0)
            goto fail;
    }
    if ((rc = hs__mem_cuda_new(L->w, NULL, 0, &L->ops, &L->ctx, err)) != HS_OK ||
        (rc = hs__gpu_layer_clock(L, err)) != HS_OK)
        goto fail;
    return HS_OK;
fail:
    hs__gpu_layer_close(L);
    return rc;
}

int hs__gpu_layer_mem(const hs__gpu_layer *L, int dev)
{
    char name[16];
    snprintf(name, sizeof name, "gpu%d", dev);
    return hs_platform_find_memory(&L->w->platform, name);
}

int hs__gpu_layer_clock(hs__gpu_layer *L, hs_error *err)
{
    clock_gettime(CLOCK_MONOTONIC, &L->t0);
    return L->ops->start_clock(L->ctx, &L->t0, err);
}

void hs__gpu_layer_close(hs__gpu_layer *L)
{
    if (L->ops)
        L->ops->fini(L->ctx);
    hs_workload_free(L->w);
    *L = (hs__gpu_layer){0};
}
