/* hetsched — calibration's CUDA part when CUDA is not built in: no GPU is
 * ever found, and the measuring calls answer HS_ENOTBUILT. */
#include <stdio.h>

#include "exec/calibrate.h"

static int not_built(hs_error *err)
{
    return hs_error_set(err, HS_ENOTBUILT, "calibrate: CUDA is not built in (build with "
                        "-Dcuda=enabled)");
}

int hs__calib_gpu_count(char *why, size_t size)
{
    snprintf(why, size, "CUDA is not built in: build with -Dcuda=enabled");
    return 0;
}

int hs__calib_gpu_open(int dev, hs__calib_gpu **out, hs_error *err)
{
    (void)dev;
    *out = NULL;
    return not_built(err);
}

void hs__calib_gpu_close(hs__calib_gpu *g)
{
    (void)g;
}

void hs__calib_gpu_describe(const hs__calib_gpu *g, char *buf, size_t size)
{
    (void)g;
    snprintf(buf, size, "none");
}

size_t hs__calib_gpu_free_bytes(const hs__calib_gpu *g)
{
    (void)g;
    return 0;
}

int hs__calib_gpu_kernel(hs__calib_gpu *g, const hs_kconf *c, void *const *hbufs, size_t b,
                         size_t e, int reps, double *us, hs_error *err)
{
    (void)g;
    (void)c;
    (void)hbufs;
    (void)b;
    (void)e;
    (void)reps;
    (void)us;
    return not_built(err);
}

int hs__calib_copy(hs__calib_gpu *src, hs__calib_gpu *dst, size_t bytes, int loop, int reps,
                   double *us, int *direct, hs_error *err)
{
    (void)src;
    (void)dst;
    (void)bytes;
    (void)loop;
    (void)reps;
    (void)us;
    (void)direct;
    return not_built(err);
}
