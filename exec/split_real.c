/* hetsched — a real kernel split across the CPU and CUDA GPUs
 * (hetsched/split.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>

#include "exec/split_drive.h"
#include "exec/split_real.h"
#include "workloads/kernels/kernel_int.h" /* hs__kblas_threads */

struct hs_split_real {
    hs_kconf c;
    int ndev;
    hs_split_real_device dev[HS_SPLIT_MAX_DEVICES];
    hs__gpu_layer layer;                /* the GPUs' device layer; host buffers are its
                                           (pinned) when a GPU takes part, else malloc'd */
    void *host[HS_KMAX_BUFS];
    void *saved[HS_KMAX_BUFS];          /* inputs of HS_KRW buffers */
    void *in[HS_KMAX_BUFS];             /* where chunks read: saved or host */
    void *own[HS_SPLIT_MAX_DEVICES][HS_KMAX_BUFS]; /* written buffers of chunks run
                                                      aside; made at the first */
    hs__split_gpu *gpu[HS_SPLIT_MAX_DEVICES];
    size_t width[HS_SPLIT_MAX_DEVICES];
    int cores[HS_SPLIT_MAX_DEVICES];
    double alone_us[HS_SPLIT_MAX_DEVICES]; /* 0: not measured */
    /* per drive */
    int map[HS_SPLIT_MAX_DEVICES];      /* drive device -> r->dev index */
    int rc[HS_SPLIT_MAX_DEVICES];       /* first error of each device */
    hs_error err[HS_SPLIT_MAX_DEVICES];
    hs__split_real_hook hook;           /* tests: before each chunk */
    void *hook_ctx;
};

/* ------------------------------------------------------------------ devices */

int hs_split_real_gpu_count(void)
{
    return hs__cuda_gpu_count(NULL, 0);
}

static int add_device(hs_split_real_device *dev, int *n, hs_device_kind kind, int threads,
                      int cuda, const char *entry, hs_error *err)
{
    int ncpu = 0;
    if (*n == HS_SPLIT_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "--devices: more than %d devices",
                            HS_SPLIT_MAX_DEVICES);
    for (int d = 0; d < *n; d++) {
        if (kind == HS_DEVICE_GPU && dev[d].kind == HS_DEVICE_GPU && dev[d].cuda_device == cuda)
            return hs_error_set(err, HS_EINPUT, "--devices: gpu%d given twice ('%s')", cuda,
                                entry);
        ncpu += dev[d].kind == HS_DEVICE_CPU;
    }
    memset(&dev[*n], 0, sizeof dev[*n]);
    dev[*n].kind = kind;
    dev[*n].threads = threads;
    dev[*n].cuda_device = cuda;
    if (kind == HS_DEVICE_CPU)
        snprintf(dev[*n].name, sizeof dev[*n].name, "cpu%d", ncpu);
    else
        snprintf(dev[*n].name, sizeof dev[*n].name, "gpu%d", cuda);
    (*n)++;
    return HS_OK;
}

/* One entry of a device list. */
static int parse_entry(const char *s, int cpu_threads, int ngpu, hs_split_real_device *dev,
                       int *n, hs_error *err)
{
    char *end;
    long v;
    int rc;
    if (strcmp(s, "cpu") == 0)
        return add_device(dev, n, HS_DEVICE_CPU, cpu_threads, -1, s, err);
    if (strncmp(s, "cpu:", 4) == 0) {
        errno = 0;
        v = strtol(s + 4, &end, 10);
        if (errno || end == s + 4 || *end || v < 1 || v > 1024)
            return hs_error_set(err, HS_EINPUT,
                                "--devices: '%s': want cpu:THREADS with 1..1024 threads", s);
        return add_device(dev, n, HS_DEVICE_CPU, (int)v, -1, s, err);
    }
    if (strcmp(s, "gpu") == 0) {
        for (int g = 0; g < ngpu; g++)
            if ((rc = add_device(dev, n, HS_DEVICE_GPU, 0, g, s, err)) != HS_OK)
                return rc;
        return HS_OK;
    }
    if (strncmp(s, "gpu", 3) == 0) {
        errno = 0;
        v = strtol(s + 3, &end, 10);
        if (errno || end == s + 3 || *end || v < 0 || v > INT_MAX)
            return hs_error_set(err, HS_EINPUT, "--devices: '%s' is not gpuK", s);
        if (v >= ngpu)
            return hs_error_set(err, HS_EINPUT, "--devices: no %s (%d CUDA device%s%s)", s,
                                ngpu, ngpu == 1 ? "" : "s",
                                ngpu ? "" : "; CUDA not built in or no GPU found");
        return add_device(dev, n, HS_DEVICE_GPU, 0, (int)v, s, err);
    }
    return hs_error_set(err, HS_EINPUT, "--devices: unknown device '%s' (cpu, cpu:THREADS, "
                        "gpu, gpuK)", s);
}

int hs_split_real_devices(const char *list, int cpu_threads, hs_split_real_device *dev,
                          int *ndev, hs_error *err)
{
    char buf[1024], *save = NULL;
    int ngpu = hs_split_real_gpu_count(), rc;
    *ndev = 0;
    if (cpu_threads < 1)
        return hs_error_set(err, HS_EINPUT, "CPU threads must be >= 1, not %d", cpu_threads);
    if (!list || !*list)
        list = "cpu,gpu";
    if (strlen(list) >= sizeof buf)
        return hs_error_set(err, HS_EINPUT, "--devices: list too long");
    strcpy(buf, list);
    for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
        if ((rc = parse_entry(s, cpu_threads, ngpu, dev, ndev, err)) != HS_OK)
            return rc;
    if (*ndev == 0)
        return hs_error_set(err, HS_EINPUT, "--devices: no device in '%s'", list);
    return HS_OK;
}

size_t hs__split_gpu_pieces(const hs_kconf *c, size_t n, size_t width, size_t *at)
{
    size_t moved = 0, np, by_bytes;
    width = width ? width : 1;
    np = n / width;
    for (int i = 0; i < c->nbufs; i++)
        if (!(c->type->whole_bufs & (1u << i)))
            moved += c->bufs[i].bytes / c->items * (c->bufs[i].mode == HS_KRW ? 2 : 1);
    by_bytes = moved * n / HS_SPLIT_REAL_PIECE_BYTES;
    np = np < by_bytes ? np : by_bytes;
    np = np < 1 ? 1 : np > HS_SPLIT_REAL_PIECES ? HS_SPLIT_REAL_PIECES : np;
    at[0] = 0;
    for (size_t p = 1; p < np; p++) /* (n - width) / (np - 1) >= width apart */
        at[p] = width + (n - width) * (p - 1) / (np - 1) / width * width;
    at[np] = n;
    return np;
}

/* ------------------------------------------------------------- open, close */

/* HS_EINPUT unless the kernel can be cut by items as kernel.h says. */
static int check_kernel(const hs_kconf *c, hs_error *err)
{
    if (!c->splittable)
        return hs_error_set(err, HS_EINPUT, "%s: not splittable (its items: %s)",
                            c->type->name, c->type->item_unit);
    for (int i = 0; i < c->nbufs; i++) {
        const hs_kbuf *b = &c->bufs[i];
        if (c->type->whole_bufs & (1u << i)) {
            if (b->mode != HS_KREAD)
                return hs_error_set(err, HS_EINPUT,
                                    "%s: buffer %s is read whole by every range but written",
                                    c->type->name, b->name);
        } else if (b->bytes % c->items != 0) {
            return hs_error_set(err, HS_EINPUT,
                                "%s: buffer %s (%zu bytes) cannot be cut into %zu items",
                                c->type->name, b->name, b->bytes, c->items);
        }
    }
    return HS_OK;
}

/* Outputs a GPU thread writes per item, for the GPU's width. */
static size_t outputs_per_item(const hs_kconf *c)
{
    size_t bytes = 0;
    for (int i = 0; i < c->nbufs; i++)
        if ((c->bufs[i].mode & HS_KWRITE) && !(c->type->whole_bufs & (1u << i)))
            bytes += c->bufs[i].bytes / c->items;
    return bytes / 4 ? bytes / 4 : 1;
}

int hs__split_real_open_conf(const hs_kconf *c, const hs_split_real_device *dev, int ndev,
                             hs_split_real **out, hs_error *err)
{
    hs_split_real *r;
    int rc, top = -1;
    *out = NULL;
    if ((rc = check_kernel(c, err)) != HS_OK)
        return rc;
    if (ndev < 1 || ndev > HS_SPLIT_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "a split needs 1 to %d devices, not %d",
                            HS_SPLIT_MAX_DEVICES, ndev);
    if (!(r = calloc(1, sizeof *r)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    r->c = *c;
    r->ndev = ndev;
    memcpy(r->dev, dev, (size_t)ndev * sizeof *dev);
    for (int d = 0; d < ndev; d++) {
        if (dev[d].kind == HS_DEVICE_GPU)
            top = dev[d].cuda_device > top ? dev[d].cuda_device : top;
        else if (dev[d].threads < 1) {
            rc = hs_error_set(err, HS_EINPUT, "device %s: CPU threads must be >= 1",
                              dev[d].name);
            goto fail;
        }
    }
    if (top >= 0 && (rc = hs__gpu_layer_open(&r->layer, top + 1, err)) != HS_OK)
        goto fail;
    for (int i = 0; i < c->nbufs; i++) {
        rc = HS_OK;
        if (r->layer.ops)
            rc = r->layer.ops->alloc(r->layer.ctx, HS_HOST_MEMORY, c->bufs[i].bytes,
                                     &r->host[i], NULL);
        else
            r->host[i] = malloc(c->bufs[i].bytes ? c->bufs[i].bytes : 1);
        if (rc != HS_OK || !r->host[i] ||
            (c->bufs[i].mode == HS_KRW && !(r->saved[i] = malloc(c->bufs[i].bytes)))) {
            rc = hs_error_set(err, HS_ENOMEM, "out of memory for %s's buffer %s (%zu bytes)",
                              c->type->name, c->bufs[i].name, c->bufs[i].bytes);
            goto fail;
        }
    }
    hs_kfill(&r->c, r->host);
    for (int i = 0; i < c->nbufs; i++) {
        if (r->saved[i])
            memcpy(r->saved[i], r->host[i], c->bufs[i].bytes);
        r->in[i] = r->saved[i] ? r->saved[i] : r->host[i];
    }
    for (int d = 0; d < ndev; d++) {
        if (dev[d].kind == HS_DEVICE_CPU) {
            /* a grain per thread, as hs_krun_cpu splits a chunk; BLAS types
             * thread inside OpenBLAS, which takes any row count */
            size_t grain = c->type->blas || !c->type->grain ? 1 : c->type->grain;
            size_t cap = c->items / (size_t)ndev;
            r->width[d] = (size_t)dev[d].threads * grain;
            if (r->width[d] > cap)
                r->width[d] = cap ? cap : 1;
            r->cores[d] = dev[d].threads;
            continue;
        }
        if ((rc = hs__split_gpu_open(&r->c, &r->layer, dev[d].cuda_device, &r->gpu[d],
                                     err)) != HS_OK)
            goto fail;
        r->cores[d] = hs__cuda_gpu_sms(dev[d].cuda_device);
        r->width[d] = (size_t)(r->cores[d] > 0 ? r->cores[d] : 1) * 2048 / outputs_per_item(c);
        if (c->type->gpu_grain)
            r->width[d] = (r->width[d] + c->type->gpu_grain - 1) / c->type->gpu_grain *
                          c->type->gpu_grain;
        r->width[d] = r->width[d] < 1 ? 1 : r->width[d] > c->items ? c->items : r->width[d];
    }
    *out = r;
    return HS_OK;
fail:
    hs_split_real_close(r);
    return rc;
}

/* KERNEL names beside the types: the chunk simulator's profiles, with their
 * sizes as default params (DESIGN.md §6; split_sim.c documents the
 * figures). */
static const struct {
    const char *name, *type, *param;
    double value;
} profiles[] = {
    {"va", "va", "n", 16777216},
    {"xgemm-rows", "gemm", "n", 8192},
    {"xgemm", "gemm", "n", 8192},
    {"gemm", "gemm", "n", 8192},
    {"pi", "pi", "hits", 4194304.0 * 256},
};

/* The param that items set, and its value per item (n of any other type). */
static const struct {
    const char *type, *param;
    double per_item;
} items_param[] = {
    {"gemm", "m", 1}, {"gemv", "m", 1}, {"matadd", "m", 1}, {"trsm", "m", 1},
    {"pi", "hits", HS_PI_BLOCK}, /* samples per item */
};

/* Sets param `name` to value in p[0..*n): replaces it when `replace` or
 * when it is not there yet. */
static int set_param(hs_param *p, int *n, const char *name, double value, int replace,
                     hs_error *err)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(p[i].name, name) == 0) {
            if (replace)
                p[i].value = value;
            return HS_OK;
        }
    if (*n == HS_KMAX_PARAMS)
        return hs_error_set(err, HS_EINPUT, "at most %d params", HS_KMAX_PARAMS);
    p[(*n)++] = (hs_param){(char *)name, value};
    return HS_OK;
}

int hs_split_real_open(const char *kernel, const hs_param *params, int nparams,
                       unsigned long long items, const hs_split_real_device *dev, int ndev,
                       hs_split_real **out, hs_error *err)
{
    hs_param p[HS_KMAX_PARAMS];
    const char *type = kernel, *ip = "n";
    double per = 1;
    hs_kconf c;
    int n = 0, rc = HS_OK;
    *out = NULL;
    for (int i = 0; i < nparams && rc == HS_OK; i++)
        rc = set_param(p, &n, params[i].name, params[i].value, 1, err);
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0] && rc == HS_OK; i++)
        if (strcmp(kernel, profiles[i].name) == 0) {
            type = profiles[i].type;
            rc = set_param(p, &n, profiles[i].param, profiles[i].value, 0, err);
        }
    for (size_t i = 0; i < sizeof items_param / sizeof items_param[0]; i++)
        if (strcmp(type, items_param[i].type) == 0) {
            ip = items_param[i].param;
            per = items_param[i].per_item;
        }
    if (rc == HS_OK && items)
        rc = set_param(p, &n, ip, (double)items * per, 1, err);
    if (rc == HS_OK)
        rc = hs_kconf_init(&c, type, p, n, err);
    if (rc != HS_OK)
        return rc;
    if (items && c.items != items)
        return hs_error_set(err, HS_EINPUT, "--items %llu: %s has %zu items with these params; "
                            "set them with -P", items, type, c.items);
    return hs__split_real_open_conf(&c, dev, ndev, out, err);
}

void hs_split_real_kernel(const hs_split_real *r, const char **type, size_t *items,
                          const char **item_unit)
{
    *type = r->c.type->name;
    *items = r->c.items;
    *item_unit = r->c.type->item_unit;
}

void hs_split_real_close(hs_split_real *r)
{
    if (!r)
        return;
    for (int d = 0; d < r->ndev; d++) {
        hs__split_gpu_close(r->gpu[d]);
        for (int i = 0; i < r->c.nbufs; i++)
            free(r->own[d][i]);
    }
    for (int i = 0; i < r->c.nbufs; i++) {
        if (r->layer.ops)
            r->layer.ops->free(r->layer.ctx, HS_HOST_MEMORY, r->host[i]);
        else
            free(r->host[i]);
        free(r->saved[i]);
    }
    hs__gpu_layer_close(&r->layer);
    free(r);
}

void hs_split_real_split_devices(const hs_split_real *r, int hints, hs_split_device *dev)
{
    for (int d = 0; d < r->ndev; d++) {
        dev[d] = (hs_split_device){.name = r->dev[d].name,
                                   .kind = r->dev[d].kind,
                                   .width = r->width[d],
                                   .cores = r->cores[d]};
        if (hints && r->alone_us[d] > 0)
            dev[d].rate_hint = (double)r->c.items / r->alone_us[d];
    }
}

void hs__split_real_set_hook(hs_split_real *r, hs__split_real_hook hook, void *ctx)
{
    r->hook = hook;
    r->hook_ctx = ctx;
}

void hs_split_real_buffers(const hs_split_real *r, const void **bufs)
{
    for (int i = 0; i < r->c.nbufs; i++)
        bufs[i] = r->host[i];
}

void hs_split_real_as_sim(const hs_split_real *r, hs_split_sim *sim)
{
    memset(sim, 0, sizeof *sim);
    sim->kernel = r->c.type->name;
    sim->items = r->c.items;
    sim->ndevices = r->ndev;
    for (int d = 0; d < r->ndev; d++) {
        sim->dev[d].name = r->dev[d].name;
        sim->dev[d].kind = r->dev[d].kind;
        sim->dev[d].items_per_us = r->alone_us[d] > 0 ? (double)r->c.items / r->alone_us[d] : 1;
    }
}

/* -------------------------------------------------------------- one drive */

/* The same inputs for every run; outputs poisoned (see the header). */
static void reset(hs_split_real *r)
{
    for (int i = 0; i < r->c.nbufs; i++) {
        if (r->c.bufs[i].mode == HS_KRW)
            memcpy(r->host[i], r->saved[i], r->c.bufs[i].bytes);
        else if (r->c.bufs[i].mode == HS_KWRITE)
            memset(r->host[i], 0xff, r->c.bufs[i].bytes);
    }
}

static int check(hs_split_real *r, hs_error *err)
{
    const void *before[HS_KMAX_BUFS] = {0};
    for (int i = 0; i < r->c.nbufs; i++)
        before[i] = r->c.bufs[i].mode == HS_KREAD ? r->host[i] : r->saved[i];
    return hs_kcheck(&r->c, before, (const void *const *)r->host, NULL, err);
}

/* For a BLAS type, OpenBLAS's (process-wide) thread count: the largest of
 * the CPU devices map[0..n); OpenBLAS serialises calls from several CPU
 * devices on its one pool. */
static void blas_threads(const hs_split_real *r, const int *map, int n)
{
    int t = 0;
    for (int i = 0; i < n; i++)
        if (r->dev[map[i]].kind == HS_DEVICE_CPU && r->dev[map[i]].threads > t)
            t = r->dev[map[i]].threads;
    if (r->c.type->blas)
        hs__kblas_threads(t);
}

static int prep_fn(void *user, int i)
{
    hs_split_real *r = user;
    int d = r->map[i];
    if (r->dev[d].kind != HS_DEVICE_GPU)
        return 0;
    return r->rc[d] = hs__split_gpu_prep(r->gpu[d], r->in, &r->err[d]);
}

/* Where device d writes the results of [b, e): the host buffers, or aside
 * its own copies of the written buffers (made at its first chunk run
 * aside; for a CPU an in-place one then holds the saved input of [b, e),
 * a GPU reads those from r->in).  HS_ENOMEM when a copy cannot be made. */
static int outputs(hs_split_real *r, int d, size_t b, size_t e, int aside, void **out,
                   hs_error *err)
{
    for (int i = 0; i < r->c.nbufs; i++) {
        size_t off, len;
        out[i] = r->host[i];
        if (!aside || !(r->c.bufs[i].mode & HS_KWRITE))
            continue;
        if (!r->own[d][i] && !(r->own[d][i] = malloc(r->c.bufs[i].bytes)))
            return hs_error_set(err, HS_ENOMEM, "%s: out of memory for a copy of buffer %s",
                                r->dev[d].name, r->c.bufs[i].name);
        out[i] = r->own[d][i];
        if (r->c.bufs[i].mode == HS_KRW && r->dev[d].kind == HS_DEVICE_CPU) {
            hs_kspan(&r->c, i, b, e, &off, &len);
            memcpy((char *)out[i] + off, (char *)r->saved[i] + off, len);
        }
    }
    return HS_OK;
}

/* Items [b, e) on CPU device d, into `bufs` (outputs()). */
static int cpu_chunk(hs_split_real *r, int d, void *const *bufs, size_t b, size_t e,
                     hs_error *err)
{
    /* BLAS types: OpenBLAS's thread count was set before the drive (setting
     * it while another thread is inside a BLAS call corrupts that call) */
    return hs_krun_cpu(&r->c, bufs, b, e, r->c.type->blas ? 0 : r->dev[d].threads, err);
}

static int run_fn(void *user, int i, size_t b, size_t e, int aside)
{
    hs_split_real *r = user;
    int d = r->map[i];
    void *out[HS_KMAX_BUFS];
    if (r->hook)
        r->hook(r->hook_ctx, d, b, e, aside);
    if ((r->rc[d] = outputs(r, d, b, e, aside, out, &r->err[d])) != HS_OK)
        return r->rc[d];
    if (r->dev[d].kind == HS_DEVICE_GPU)
        r->rc[d] = hs__split_gpu_chunk(r->gpu[d], r->in, out, b, e, r->width[d], &r->err[d]);
    else
        r->rc[d] = cpu_chunk(r, d, out, b, e, &r->err[d]);
    return r->rc[d];
}

/* The accepted chunk [b, e) that device i ran aside: its slices of the
 * written buffers to the host. */
static void commit_fn(void *user, int i, size_t b, size_t e)
{
    hs_split_real *r = user;
    int d = r->map[i];
    for (int j = 0; j < r->c.nbufs; j++) {
        size_t off, len;
        if (!(r->c.bufs[j].mode & HS_KWRITE))
            continue;
        hs_kspan(&r->c, j, b, e, &off, &len);
        memcpy((char *)r->host[j] + off, (char *)r->own[d][j] + off, len);
    }
}

static int drain_fn(void *user, int i)
{
    hs_split_real *r = user;
    int d = r->map[i];
    if (r->dev[d].kind != HS_DEVICE_GPU || r->rc[d] != 0)
        return r->rc[d];
    return r->rc[d] = hs__split_gpu_drain(r->gpu[d], &r->err[d]);
}

/* Drives sp on the devices map[0..n) with a fresh start, then checks: a
 * device's own error comes first, then the driver's, then the check's. */
static int drive(hs_split_real *r, const hs_splitter *sp, const hs_split_options *opt,
                 hs_split_memory *mem, int hints, const int *map, int n,
                 const void *ranges, int verify, hs_split_drive_stats *st, hs_error *err)
{
    hs_split_device all[HS_SPLIT_MAX_DEVICES], dev[HS_SPLIT_MAX_DEVICES];
    hs_split_kernel k = {.name = r->c.type->name, .items = r->c.items, .work_ctx = ranges};
    int rc;
    hs_split_real_split_devices(r, hints, all);
    for (int i = 0; i < n; i++) {
        r->map[i] = map[i];
        dev[i] = all[map[i]];
        r->rc[map[i]] = 0;
    }
    reset(r);
    blas_threads(r, map, n);
    rc = hs_split_drive(sp, &k, dev, n, opt, mem,
                        &(hs_split_drive_ops){prep_fn, run_fn, drain_fn, commit_fn}, r, st, err);
    for (int i = 0; i < n; i++)
        if (r->rc[map[i]] != 0) {
            if (err)
                *err = r->err[map[i]];
            return r->rc[map[i]];
        }
    if (rc != HS_OK)
        return rc;
    return verify ? check(r, err) : HS_OK;
}

/* A splitter of fixed ranges: drive device i gets [lo[i], hi[i]) once.
 * The ranges come in the kernel's work_ctx (it has no work function, so
 * nothing else reads it). */
typedef struct fixed_split {
    size_t lo[HS_SPLIT_MAX_DEVICES], hi[HS_SPLIT_MAX_DEVICES];
    int given[HS_SPLIT_MAX_DEVICES];
} fixed_split;

static int fixed_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                       const hs_split_options *opt, const hs_split_memory *mem, void **state,
                       hs_error *err)
{
    (void)dev, (void)ndev, (void)opt, (void)mem, (void)err;
    *state = (void *)k->work_ctx;
    return HS_OK;
}

static hs_split_answer fixed_next(void *state, int d, double now, hs_split_grant *g)
{
    fixed_split *s = state;
    (void)now;
    if (s->given[d] || s->lo[d] >= s->hi[d])
        return HS_SPLIT_STOP;
    s->given[d] = 1;
    g->begin = s->lo[d];
    g->end = s->hi[d];
    return HS_SPLIT_CHUNK;
}

static int fixed_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    (void)state, (void)d, (void)b, (void)e, (void)us, (void)now;
    return 1;
}

static void fixed_fini(void *state)
{
    (void)state;
}

static const hs_splitter fixed_splitter = {
    .name = "(fixed ranges)",
    .start = fixed_start,
    .next = fixed_next,
    .finished = fixed_finished,
    .fini = fixed_fini,
};

static double makespan(const hs_split_drive_stats *st, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = st->finish_us[i] > m ? st->finish_us[i] : m;
    return m;
}

int hs_split_real_alone(hs_split_real *r, int d, unsigned long long repeat, double *us,
                        hs_error *err)
{
    double t[64];
    size_t n = repeat < 1 ? 1 : repeat < 64 ? (size_t)repeat : 64;
    if (d < 0 || d >= r->ndev)
        return hs_error_set(err, HS_EINPUT, "no device %d", d);
    for (size_t i = 0; i < n; i++) {
        hs_split_drive_stats st = {0};
        fixed_split f = {{0}, {0}, {0}};
        int rc;
        f.hi[0] = r->c.items;
        if ((rc = drive(r, &fixed_splitter, NULL, NULL, 0, &d, 1, &f, 1, &st, err)) != HS_OK)
            return rc;
        t[i] = makespan(&st, 1);
    }
    gsl_sort(t, 1, n);
    *us = r->alone_us[d] = t[n / 2];
    return HS_OK;
}

int hs_split_real_alone_set(hs_split_real *r, int d, double us, hs_error *err)
{
    if (d < 0 || d >= r->ndev || !(us > 0) || !isfinite(us))
        return hs_error_set(err, HS_EINPUT, "alone time of device %d: want a time > 0", d);
    r->alone_us[d] = us;
    return HS_OK;
}

int hs_split_real_warm(hs_split_real *r, hs_error *err)
{
    size_t q = r->c.items / ((size_t)r->ndev * 16);
    int rc = HS_OK;
    q = q ? q : 1;
    reset(r);
    for (int d = 0; d < r->ndev && rc == HS_OK; d++) {
        blas_threads(r, &d, 1);
        if (r->dev[d].kind != HS_DEVICE_GPU) {
            rc = cpu_chunk(r, d, r->host, 0, q, err);
            continue;
        }
        /* every power of two of items: cuBLAS picks its kernels by shape
         * and loads each on first use (CUDA's lazy module loading), which
         * would otherwise cost a measured chunk milliseconds */
        rc = hs__split_gpu_prep(r->gpu[d], r->in, err);
        for (size_t n = 1; rc == HS_OK; n *= 2) {
            if ((rc = hs__split_gpu_chunk(r->gpu[d], r->in, r->host, 0,
                                          n < r->c.items ? n : r->c.items, r->width[d], err)) ==
                HS_OK)
                rc = hs__split_gpu_drain(r->gpu[d], err);
            if (n >= r->c.items)
                break;
        }
    }
    return rc;
}

int hs_split_real_static(hs_split_real *r, const int *pct, double *us, hs_error *err)
{
    hs_split_drive_stats st = {0};
    fixed_split f = {{0}, {0}, {0}};
    int map[HS_SPLIT_MAX_DEVICES] = {0}, n = 0, cum = 0, rc;
    size_t b = 0;
    for (int d = 0; d < r->ndev; d++) {
        size_t e;
        if (pct[d] < 0 || cum + pct[d] > 100)
            return hs_error_set(err, HS_EINPUT, "static split: shares must be 0..100%%");
        cum += pct[d];
        e = d == r->ndev - 1 ? r->c.items : (size_t)llround(cum / 100.0 * (double)r->c.items);
        if (e > b) {
            f.lo[n] = b;
            f.hi[n] = e;
            map[n++] = d;
        }
        b = e;
    }
    if ((rc = drive(r, &fixed_splitter, NULL, NULL, 0, map, n, &f, 1, &st, err)) != HS_OK)
        return rc;
    *us = makespan(&st, n);
    return HS_OK;
}

int hs_split_real_measure(hs_split_real *r, const hs_splitter *sp, const hs_split_options *opt,
                          unsigned long long runs, unsigned long long repeat, int hints,
                          size_t max_records, hs_split_progress_fn progress, void *ctx,
                          hs_split_result *res, hs_error *err)
{
    hs_split_memory mem = {0};
    hs_split_result tmp[64];
    double t[64];
    int n = repeat < 1 ? 1 : repeat < 64 ? (int)repeat : 64, rc = HS_OK, mid = 0;
    memset(res, 0, sizeof *res);
    if (!sp)
        return hs_error_set(err, HS_EUSAGE, "no splitter");
    for (unsigned long long run = 0; run < runs; run++) {
        if (run == 0 && !((sp->flags & HS_SPLIT_TRAINS) && runs == 1))
            continue; /* no training run */
        if ((rc = hs_split_real_run(r, sp, opt, &mem, hints, 0, &tmp[0], err)) != HS_OK)
            return rc;
        if (progress)
            progress(ctx, run, &tmp[0]);
        hs_split_result_free(&tmp[0]);
    }
    for (int i = 0; i < n; i++) {
        hs_split_memory m = mem; /* each repetition from the same memory */
        if ((rc = hs_split_real_run(r, sp, opt, &m, hints, max_records, &tmp[i], err)) !=
            HS_OK) {
            for (int j = 0; j < i; j++)
                hs_split_result_free(&tmp[j]);
            return rc;
        }
        t[i] = tmp[i].makespan_us;
    }
    for (int i = 0; i < n; i++) { /* the repetition of median makespan */
        int below = 0;
        for (int j = 0; j < n; j++)
            below += t[j] < t[i] || (t[j] == t[i] && j < i);
        if (below == n / 2)
            mid = i;
    }
    *res = tmp[mid];
    for (int i = 0; i < n; i++)
        if (i != mid)
            hs_split_result_free(&tmp[i]);
    return HS_OK;
}

/* A static split in whole percent and its lower bound (split_real.h). */
typedef struct real_split {
    int pct[4];
    double bound;
} real_split;

static int by_bound(const void *x, const void *y)
{
    double a = ((const real_split *)x)->bound, b = ((const real_split *)y)->bound;
    return (a > b) - (a < b);
}

/* Appends to out every split of `left` percent among devices d.. of ndev
 * in `step` steps, with its bound. */
static void enumerate(int ndev, int d, int left, int step, int *pct, const double *alone,
                      real_split *out, int *n)
{
    if (d == ndev - 1) {
        real_split *s = &out[(*n)++];
        pct[d] = left;
        s->bound = 0;
        for (int i = 0; i < ndev; i++) {
            double b = pct[i] / 100.0 * alone[i];
            s->pct[i] = pct[i];
            s->bound = b > s->bound ? b : s->bound;
        }
        return;
    }
    for (int p = 0; p <= left; p += step) {
        pct[d] = p;
        enumerate(ndev, d + 1, left - p, step, pct, alone, out, n);
    }
}

int hs_split_real_best_static(hs_split_real *r, const double *alone, unsigned long long repeat,
                              const volatile sig_atomic_t *stop, hs_split_real_best *out,
                              hs_error *err)
{
    enum { MOST = 1771 }; /* C(100 / 5 + 3, 3) splits of 4 devices */
    real_split *all;
    int pct[4], n = 0, rc = HS_OK, m = repeat < 1 ? 1 : repeat < 64 ? (int)repeat : 64;
    memset(out, 0, sizeof *out);
    out->us = HUGE_VAL;
    if (r->ndev < 1 || r->ndev > 4)
        return hs_error_set(err, HS_EINPUT, "best static split: not searched beyond 4 devices");
    if (!(all = malloc(MOST * sizeof *all)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    out->step = r->ndev <= 2 ? 1 : 5;
    enumerate(r->ndev, 0, 100, out->step, pct, alone, all, &n);
    qsort(all, (size_t)n, sizeof *all, by_bound);
    out->total = n;
    for (int i = 0; i < n && all[i].bound < out->us && !(stop && *stop); i++) {
        double t[64];
        for (int j = 0; j < m && rc == HS_OK; j++)
            rc = hs_split_real_static(r, all[i].pct, &t[j], err);
        if (rc != HS_OK)
            break;
        gsl_sort(t, 1, (size_t)m);
        out->tried++;
        if (t[m / 2] < out->us) {
            out->us = t[m / 2];
            memcpy(out->pct, all[i].pct, sizeof out->pct);
        }
    }
    free(all);
    return rc;
}

int hs_split_real_run(hs_split_real *r, const hs_splitter *sp, const hs_split_options *opt,
                      hs_split_memory *mem, int hints, size_t max_records,
                      hs_split_result *res, hs_error *err)
{
    hs_split_drive_stats st = {0};
    int map[HS_SPLIT_MAX_DEVICES], rc;
    memset(res, 0, sizeof *res);
    if (!sp)
        return hs_error_set(err, HS_EUSAGE, "no splitter");
    for (int d = 0; d < r->ndev; d++)
        map[d] = d;
    if (max_records) {
        if (!(st.records = malloc(max_records * sizeof *st.records)) ||
            !(res->records = malloc(max_records * sizeof *res->records))) {
            free(st.records);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
        st.max_records = max_records;
    }
    if ((rc = drive(r, sp, opt, mem, hints, map, r->ndev, NULL, 1, &st, err)) != HS_OK) {
        free(st.records);
        hs_split_result_free(res);
        return rc;
    }
    res->ndevices = r->ndev;
    res->makespan_us = makespan(&st, r->ndev);
    for (int d = 0; d < r->ndev; d++) {
        hs_split_dev_result *o = &res->dev[d];
        o->items = st.items[d];
        o->chunks = st.chunks[d];
        o->refused = st.refused[d];
        o->busy_us = st.busy_us[d];
        o->idle_us = res->makespan_us > o->busy_us ? res->makespan_us - o->busy_us : 0;
        o->finish_us = st.finish_us[d];
        o->alone_us = r->alone_us[d] > 0 ? r->alone_us[d] : HUGE_VAL;
        o->dead = st.failed[d];
    }
    for (size_t i = 0; i < st.nrecords; i++) {
        const hs_split_drive_record *x = &st.records[i];
        res->records[i] = (hs_split_record){x->device, x->begin, x->end, x->start_us,
                                            x->end_us,
                                            x->accepted ? HS_CHUNK_ACCEPTED : HS_CHUNK_REFUSED};
    }
    res->nrecords = st.nrecords;
    res->records_truncated = max_records && st.nrecords == max_records;
    free(st.records);
    hs_split_result_figures(res, r->c.items);
    for (int d = 0; d < r->ndev; d++)
        if (!(r->alone_us[d] > 0))
            res->efficiency = 0; /* not every single-device throughput is known */
    return HS_OK;
}
