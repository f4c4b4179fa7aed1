/* hetsched — libhetsched's CUDA entry points where CUDA is built in: the
 * driver probe, the loading of the CUDA module (exec/cuda_module.h), and
 * the functions of exec/mem.h and
 * workloads/kernels/kernel.h that forward to it.  Without a module every
 * call answers as if no GPU were present (HS_ENOTBUILT naming why). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/cuda_module.h"
#include "exec/real.h"
#include "hetsched/version.h"

/* ------------------------------------------------------------ the driver */

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static int driver_n;
static char driver_why[256];

/* The driver's device count (cuInit, cuDeviceGetCount through dlsym: the
 * driver API's ABI is stable, and no CUDA header is needed here) into
 * driver_n; 0 with driver_why filled when there is no driver or no
 * device. */
static void driver_probe(void)
{
    char *why = driver_why;
    size_t size = sizeof driver_why;
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    init_fn init;
    count_fn count;
    int n = 0, rc;
    if (!lib) {
        snprintf(why, size, "no GPU found: no CUDA driver (%s)", dlerror());
        return;
    }
    init = (init_fn)(void (*)(void))dlsym(lib, "cuInit");
    count = (count_fn)(void (*)(void))dlsym(lib, "cuDeviceGetCount");
    if (!init || !count)
        snprintf(why, size, "no GPU found: libcuda.so.1 lacks cuInit or cuDeviceGetCount");
    else if ((rc = init(0)) != 0)
        snprintf(why, size, "no GPU found: cuInit failed (CUresult %d)", rc);
    else if ((rc = count(&n)) != 0 || n <= 0) {
        snprintf(why, size, "no GPU found%s", rc ? ": cuDeviceGetCount failed" : "");
        n = 0;
    }
    /* an initialised driver stays loaded: the module's runtime uses it */
    if (n == 0)
        dlclose(lib);
    driver_n = n;
}

/* ------------------------------------------------------------ the module */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const hs__cuda_module *loaded;
static char load_why[600];

/* The module's path: HETSCHED_CUDA_MODULE, or HS__CUDA_MODULE_FILE in the
 * directory of the libhetsched this function is in. */
static void module_path(char *path, size_t size)
{
    const char *env = getenv(HS__CUDA_MODULE_ENV);
    Dl_info info;
    const char *slash;
    if (env && *env) {
        snprintf(path, size, "%s", env);
        return;
    }
    if (dladdr((void *)module_path, &info) && info.dli_fname &&
        (slash = strrchr(info.dli_fname, '/')) != NULL)
        snprintf(path, size, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                 HS__CUDA_MODULE_FILE);
    else
        snprintf(path, size, "%s", HS__CUDA_MODULE_FILE); /* the loader's search path */
}

static void load(void)
{
    char path[512];
    void *lib;
    const hs__cuda_module *m;
    module_path(path, sizeof path);
    if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(load_why, sizeof load_why, "the CUDA module cannot be loaded: %s", dlerror());
        return;
    }
    m = dlsym(lib, HS__CUDA_MODULE_SYMBOL);
    if (!m)
        snprintf(load_why, sizeof load_why, "the CUDA module %s has no %s", path,
                 HS__CUDA_MODULE_SYMBOL);
    else if (m->size != sizeof *m || strcmp(m->version, HS_VERSION) != 0)
        snprintf(load_why, sizeof load_why, "the CUDA module %s is of hetsched %s, not %s",
                 path, m->version, HS_VERSION);
    else {
        loaded = m;
        return; /* stays loaded for the life of the process */
    }
    dlclose(lib);
}

const hs__cuda_module *hs__cuda_module_get(hs_error *err)
{
    pthread_once(&load_once, load);
    if (!loaded)
        hs_error_set(err, HS_ENOTBUILT, "%s", load_why);
    return loaded;
}

int hs__cuda_gpu_count(char *why, size_t size)
{
    char scratch[256];
    const hs__cuda_module *m;
    hs_error err = {0};
    if (!why) {
        why = scratch;
        size = sizeof scratch;
    }
    pthread_once(&driver_once, driver_probe);
    if (driver_n == 0) {
        snprintf(why, size, "%s", driver_why);
        return 0;
    }
    if (!(m = hs__cuda_module_get(&err))) {
        snprintf(why, size, "no GPU usable: %s", err.msg);
        return 0;
    }
    return m->gpu_count(why, size);
}

/* ---------------------------------------------------------- forwarders */

/* What a forwarder answers when the module cannot be loaded: HS_ENOTBUILT
 * naming `who` (what needed it, as a build without CUDA names it) and why. */
static int not_loaded(const char *who, hs_error *err)
{
    return hs_error_set(err, HS_ENOTBUILT, "%s: %s", who, load_why);
}

int hs_cuda_device_count(void)
{
    return hs__cuda_gpu_count(NULL, 0);
}

int hs__mem_cuda_new(const hs_workload *w, const unsigned char *local, size_t device_memory,
                     const hs__mem_ops **ops, void **ctx, hs_error *err)
{
    const hs__cuda_module *m = hs__cuda_module_get(NULL);
    if (!m)
        return not_loaded("backend cuda", err);
    return m->mem_new(w, local, device_memory, ops, ctx, err);
}

HS__REAL_BACKEND(hs_backend_cuda, "cuda", HS__REAL_CUDA);

/* A context exists only when the module is loaded: the calls on one need
 * no check. */
#define LOADED (hs__cuda_module_get(NULL))

void hs__cuda_gpu_describe(int dev, char *buf, size_t size)
{
    const hs__cuda_module *m = hs__cuda_module_get(NULL);
    if (m)
        m->gpu_describe(dev, buf, size);
    else
        snprintf(buf, size, "CUDA device %d", dev);
}

int hs__cuda_gpu_sms(int dev)
{
    const hs__cuda_module *m = hs__cuda_module_get(NULL);
    return m ? m->gpu_sms(dev) : 0;
}

int hs_kcuda_new(int device, hs_kcuda **out, hs_error *err)
{
    const hs__cuda_module *m = hs__cuda_module_get(NULL);
    *out = NULL;
    if (!m)
        return not_loaded("CUDA kernels", err);
    return m->kcuda_new(device, out, err);
}

void hs_kcuda_free(hs_kcuda *ctx)
{
    if (ctx)
        LOADED->kcuda_free(ctx);
}

int hs_krun_cuda(const hs_kconf *c, void *const *dbufs, size_t begin, size_t end,
                 hs_kcuda *ctx, hs_kstream stream, hs_error *err)
{
    return LOADED->krun_cuda(c, dbufs, begin, end, ctx, stream, err);
}
