/* hetsched — the CUDA module: where CUDA is built in, everything that calls
 * CUDA, cuBLAS or cuSOLVER (exec/cuda.c, workloads/kernels/cuda_*) is a
 * shared module of
 * its own, libhetsched-cuda.so, beside libhetsched.  libhetsched loads it
 * (dlopen) the first time a GPU is needed, so a process that never touches
 * one does not map the CUDA libraries (a few hundred MB of RSS and tenths
 * of a second at start).
 *
 * The module exports one symbol, HS__CUDA_MODULE_SYMBOL, a table of the
 * functions that libhetsched's CUDA entry points (exec/cuda_load.c) forward
 * to; everything else in it is hidden, so its functions and libhetsched's
 * forwarders of the same names never meet.  The module links libhetsched
 * and calls back into it (errors, the data manager, kernel checks).
 *
 * Finding GPUs costs no module: hs__cuda_gpu_count asks the driver
 * (libcuda.so.1, dlopen'd) first, and loads the module only when the driver
 * reports a device.  The module is found beside the libhetsched that was
 * loaded (dladdr), or at the path in HETSCHED_CUDA_MODULE. */
#ifndef HS_EXEC_CUDA_MODULE_H
#define HS_EXEC_CUDA_MODULE_H

#include <stddef.h>

#include "exec/mem.h"
#include "workloads/kernels/kernel.h"

#define HS__CUDA_MODULE_FILE "libhetsched-cuda.so"
#define HS__CUDA_MODULE_SYMBOL "hs__cuda_module_table"
#define HS__CUDA_MODULE_ENV "HETSCHED_CUDA_MODULE"

typedef struct hs__cuda_module {
    const char *version;        /* HS_VERSION it was built with */
    size_t size;                /* sizeof(hs__cuda_module) it was built with */
    /* exec/mem.h: CUDA devices (cudaGetDeviceCount; 0 with *why filled
     * when none), one described, its multiprocessors, the memory layer */
    int (*gpu_count)(char *why, size_t size);
    void (*gpu_describe)(int dev, char *buf, size_t size);
    int (*gpu_sms)(int dev);
    int (*mem_new)(const hs_workload *w, const unsigned char *local, size_t device_memory,
                   const hs__mem_ops **ops, void **ctx, hs_error *err);
    /* workloads/kernels/kernel.h */
    int (*kcuda_new)(int device, hs_kcuda **out, hs_error *err);
    void (*kcuda_free)(hs_kcuda *ctx);
    int (*krun_cuda)(const hs_kconf *c, void *const *dbufs, size_t begin, size_t end,
                     hs_kcuda *ctx, hs_kstream stream, hs_error *err);
} hs__cuda_module;

/* The module's table, loaded on the first call (thread-safe; later calls
 * return the same).  NULL with HS_ENOTBUILT when the module cannot be
 * loaded (missing, built for another version, or the CUDA libraries it
 * needs are missing), the message naming the file and dlopen's reason. */
const hs__cuda_module *hs__cuda_module_get(hs_error *err);

/* The module's own halves of exec/mem.h's hs__cuda_gpu_count,
 * hs__cuda_gpu_describe and hs__cuda_gpu_sms (exec/cuda.c); those of
 * libhetsched forward to them.  hs__cuda_gpu_count loads the module only
 * when the driver reports a device. */
int hs__mem_cuda_count(char *why, size_t size);
void hs__mem_cuda_describe(int dev, char *buf, size_t size);
int hs__mem_cuda_sms(int dev);

#endif
