/* hetsched — the table the CUDA module exports (exec/cuda_module.h): the
 * only symbol of libhetsched-cuda.so that is not hidden. */
#include "exec/cuda_module.h"
#include "hetsched/version.h"

__attribute__((visibility("default"))) const hs__cuda_module hs__cuda_module_table = {
    .version = HS_VERSION,
    .size = sizeof(hs__cuda_module),
    .gpu_count = hs__mem_cuda_count,
    .gpu_describe = hs__mem_cuda_describe,
    .gpu_sms = hs__mem_cuda_sms,
    .mem_new = hs__mem_cuda_new,
    .kcuda_new = hs_kcuda_new,
    .kcuda_free = hs_kcuda_free,
    .krun_cuda = hs_krun_cuda,
};
