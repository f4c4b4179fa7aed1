/* hetsched — workload generators (include/hetsched/gen.h): the platform
 * builder, Topcuoglu-style random graphs, fork-join, tiled Cholesky, and the
 * benchmarks and compositions of Zhou & Liu (ESWEEK 2014, Fig. 4, Sec. 5.2).
 * Everything goes through the builder API of graph.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "hetsched/gen.h"
#include "graph/numfmt.h"

#define FLOAT_BYTES 4.0 /* the benchmarks work on single-precision floats */

static int nomem(hs_error *err)
{
    return hs_error_set(err, HS_ENOMEM, "out of memory");
}

/* Costs are written to YAML, so keep them short: whole nanoseconds, and
 * never 0 (a zero cost would make ratios such as eq. (9)'s undefined). */
static double round_ns(double us)
{
    double r = round(us * 1000.0) / 1000.0;
    return r < 0.001 ? 0.001 : r;
}

static gsl_rng *new_rng(unsigned long seed, hs_error *err)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        nomem(err);
        return NULL;
    }
    gsl_rng_set(r, seed);
    return r;
}

/* Uniform integer in [lo, hi]. */
static unsigned long uniform_int(gsl_rng *r, unsigned long lo, unsigned long hi)
{
    return lo + gsl_rng_uniform_int(r, hi - lo + 1);
}

/* Does the platform have a device of this kind? */
static int has_kind(const hs_workload *w, hs_device_kind kind)
{
    for (int d = 0; d < w->platform.ndevices; d++)
        if (w->platform.devices[d].kind == kind)
            return 1;
    return 0;
}

static int need_devices(const hs_workload *w, hs_error *err)
{
    if (w->platform.ndevices == 0)
        return hs_error_set(err, HS_EUSAGE,
                            "declare the platform (hs_gen_platform) before generating kernels");
    return HS_OK;
}

/* hs_kernel_set_cost of round_ns(us), refusing a cost over HS_MAX_US in
 * the generator's words: options made it, not an item of a file. */
static int set_cost(hs_workload *w, int a, int k, const char *key, double us, hs_error *err)
{
    if (us > HS_MAX_US)
        return hs_error_set(err, HS_EINPUT, "kernel '%s' would cost %g us on %s, more than the "
                            "%g us a cost may be", w->apps[a].kernels[k].name, us, key,
                            HS_MAX_US);
    return hs_kernel_set_cost(w, a, k, key, round_ns(us), err);
}

/* Sets a kernel's cost by device kind, for the kinds the platform has. */
static int set_kind_costs(hs_workload *w, int a, int k, double cpu_us, double gpu_us,
                          hs_error *err)
{
    int rc = HS_OK;
    if (has_kind(w, HS_DEVICE_CPU))
        rc = set_cost(w, a, k, "cpu", cpu_us, err);
    if (rc == HS_OK && has_kind(w, HS_DEVICE_GPU))
        rc = set_cost(w, a, k, "gpu", gpu_us, err);
    return rc;
}

/* ---------------------------------------------------------------- platform */

/* Parses "cpu:N,gpu:M" (either order, each kind at most once). */
static int parse_spec(const char *spec, int *ncpu, int *ngpu, hs_error *err)
{
    const char *s = spec;
    int seen_cpu = 0, seen_gpu = 0;
    *ncpu = *ngpu = 0;
    if (!spec || !*spec)
        return hs_error_set(err, HS_EINPUT, "devices: empty spec (write e.g. cpu:1,gpu:2)");
    while (*s) {
        size_t len = strcspn(s, ",");
        char item[64], *colon, *end;
        long count;
        if (len == 0 || len >= sizeof item)
            return hs_error_set(err, HS_EINPUT, "devices '%s': bad item (write KIND:COUNT, "
                                "e.g. cpu:1,gpu:2)", spec);
        memcpy(item, s, len);
        item[len] = '\0';
        colon = strchr(item, ':');
        if (!colon)
            return hs_error_set(err, HS_EINPUT, "devices '%s': item '%s' has no ':COUNT' "
                                "(write e.g. cpu:1,gpu:2)", spec, item);
        *colon = '\0';
        count = strtol(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || count < 0 || count > 64)
            return hs_error_set(err, HS_EINPUT, "devices '%s': count '%s' of %s must be a whole "
                                "number 0..64", spec, colon + 1, item);
        if (strcmp(item, "cpu") == 0 && !seen_cpu) {
            seen_cpu = 1;
            *ncpu = (int)count;
        } else if (strcmp(item, "gpu") == 0 && !seen_gpu) {
            seen_gpu = 1;
            *ngpu = (int)count;
        } else {
            return hs_error_set(err, HS_EINPUT, "devices '%s': '%s' is not cpu or gpu, or is "
                                "given twice", spec, item);
        }
        s += len;
        if (*s == ',')
            s++;
    }
    if (*ncpu + *ngpu == 0)
        return hs_error_set(err, HS_EINPUT, "devices '%s': at least one device is needed", spec);
    return HS_OK;
}

/* One machine's devices (`prefix` before each name) and every link between
 * its memories: the host memory `host`, each GPU's own. */
static int gen_machine(hs_workload *w, const char *prefix, const char *host, int ncpu, int ngpu,
                       int cores, hs_error *err)
{
    hs_platform *p = &w->platform;
    int first = p->nmemories, rc;
    char name[64];
    int hostm;
    for (int i = 0; i < ncpu; i++) {
        snprintf(name, sizeof name, "%scpu%d", prefix, i);
        if ((rc = hs_platform_add_device(w, name, HS_DEVICE_CPU, host, cores, err)) < 0)
            return rc;
    }
    for (int i = 0; i < ngpu; i++) {
        snprintf(name, sizeof name, "%sgpu%d", prefix, i);
        if ((rc = hs_platform_add_device(w, name, HS_DEVICE_GPU, name, 0, err)) < 0)
            return rc;
    }
    hostm = hs_platform_find_memory(p, host);
    /* Every ordered pair of distinct memories: host <-> gpuK over PCIe, gpuJ <-> gpuK peer. */
    for (int q = 0; q < p->nmemories; q++)
        for (int r = 0; r < p->nmemories; r++) {
            int pcie = q == hostm || r == hostm;
            if (q == r || (q != hostm && q < first) || (r != hostm && r < first))
                continue;
            rc = hs_platform_add_link(w, p->memories[q], p->memories[r],
                                      pcie ? HS_GEN_PCIE_GBPS : HS_GEN_PEER_GBPS,
                                      pcie ? HS_GEN_PCIE_LATENCY_US : HS_GEN_PEER_LATENCY_US,
                                      err);
            if (rc < 0)
                return rc;
        }
    return HS_OK;
}

int hs_gen_platform(hs_workload *w, const char *spec, int cores, hs_error *err)
{
    int ncpu, ngpu, rc;
    if ((rc = parse_spec(spec, &ncpu, &ngpu, err)) != 0)
        return rc;
    if (cores < 1)
        return hs_error_set(err, HS_EINPUT, "cores must be a whole number >= 1, not %d", cores);
    if (w->platform.ndevices > 0)
        return hs_error_set(err, HS_EUSAGE, "the workload already has devices");
    return gen_machine(w, "", "host", ncpu, ngpu, cores, err);
}

int hs_gen_cluster(hs_workload *w, const char *spec, int cores, int nodes, hs_error *err)
{
    int ncpu, ngpu, rc;
    char name[32], host[48];
    if ((rc = parse_spec(spec, &ncpu, &ngpu, err)) != 0)
        return rc;
    if (cores < 1)
        return hs_error_set(err, HS_EINPUT, "cores must be a whole number >= 1, not %d", cores);
    if (nodes < 1 || nodes > HS_MAX_NODES || (long)nodes * (ncpu + ngpu) > HS_MAX_DEVICES)
        return hs_error_set(err, HS_EINPUT, "nodes must be 1..%d with at most %d devices in "
                            "all, not %d of %d devices", HS_MAX_NODES, HS_MAX_DEVICES, nodes,
                            ncpu + ngpu);
    if (w->platform.ndevices > 0)
        return hs_error_set(err, HS_EUSAGE, "the workload already has devices");
    for (int k = 0; k < nodes; k++) {
        char prefix[40];
        snprintf(name, sizeof name, "n%d", k);
        snprintf(host, sizeof host, k ? "n%d.host" : "host", k);
        snprintf(prefix, sizeof prefix, "n%d.", k);
        if ((rc = hs_platform_add_node(w, name, host, err)) < 0 ||
            (rc = gen_machine(w, prefix, host, ncpu, ngpu, cores, err)) < 0)
            return rc;
    }
    for (int a = 0; a < nodes; a++)
        for (int b = 0; b < nodes; b++) {
            char from[32];
            if (a == b)
                continue;
            snprintf(from, sizeof from, "n%d", a);
            snprintf(name, sizeof name, "n%d", b);
            if ((rc = hs_platform_add_network_link(w, from, name, HS_GEN_NET_GBPS,
                                                   HS_GEN_NET_LATENCY_US, 0, err)) < 0)
                return rc;
        }
    hs_platform_route(&w->platform);
    return HS_OK;
}

/* ----------------------------------------------------- analytic kernel cost */

void hs_gen_rates_defaults(hs_gen_rates *r)
{
    /* The paper's machine (Fig. 6); the derivation is in gen.h. */
    *r = (hs_gen_rates){.cpu_gflops = 200.0, .gpu_gflops = 1000.0, .cpu_gbps = 20.0,
                        .gpu_gbps = 120.0, .cpu_overhead_us = 1.0, .gpu_overhead_us = 5.0};
}

double hs_gen_kernel_cost_us(const hs_gen_rates *r, hs_device_kind kind, double flops,
                             double bytes)
{
    int gpu = kind == HS_DEVICE_GPU;
    double compute = flops / ((gpu ? r->gpu_gflops : r->cpu_gflops) * 1000.0);
    double memory = bytes / ((gpu ? r->gpu_gbps : r->cpu_gbps) * 1000.0);
    return (gpu ? r->gpu_overhead_us : r->cpu_overhead_us) + fmax(compute, memory);
}

static int check_rates(const hs_gen_rates *r, hs_error *err)
{
    const double rate[] = {r->cpu_gflops, r->gpu_gflops, r->cpu_gbps, r->gpu_gbps};
    const char *name[] = {"cpu GFLOP/s", "gpu GFLOP/s", "cpu GB/s", "gpu GB/s"};
    for (int i = 0; i < 4; i++)
        if (!isfinite(rate[i]) || rate[i] <= 0)
            return hs_error_set(err, HS_EINPUT, "rate %s must be a finite number > 0, not %g",
                                name[i], rate[i]);
    if (!isfinite(r->cpu_overhead_us) || r->cpu_overhead_us < 0 ||
        !isfinite(r->gpu_overhead_us) || r->gpu_overhead_us < 0)
        return hs_error_set(err, HS_EINPUT, "kernel overheads must be finite numbers >= 0");
    return HS_OK;
}

/* A kernel parameter; lists of them end with a NULL name (P() builds one). */
typedef struct kparam {
    const char *name;
    double value;
} kparam;
#define P(...) ((const kparam[]){__VA_ARGS__, {NULL, 0}})

/* Adds a kernel with a type (of workloads/kernels/, or NULL for none) and
 * its parameters, roofline costs for both kinds and host input/output bytes.
 * `flops` and `moved` (bytes through device memory) feed
 * hs_gen_kernel_cost_us.  Returns the kernel index. */
static int add_typed(hs_workload *w, int a, const char *name, const char *type,
                     const kparam *params, double flops, double moved, double in_bytes,
                     double out_bytes, const hs_gen_rates *rates, hs_error *err)
{
    int k = hs_app_add_kernel(w, a, name, err), rc;
    if (k < 0)
        return k;
    if (type && (rc = hs_kernel_set_type(w, a, k, type, err)) != 0)
        return rc;
    for (; type && params->name; params++)
        if ((rc = hs_kernel_add_param(w, a, k, params->name, params->value, err)) != 0)
            return rc;
    if ((rc = set_kind_costs(w, a, k, hs_gen_kernel_cost_us(rates, HS_DEVICE_CPU, flops, moved),
                             hs_gen_kernel_cost_us(rates, HS_DEVICE_GPU, flops, moved),
                             err)) != 0 ||
        (rc = hs_kernel_set_bytes(w, a, k, in_bytes, out_bytes, err)) != 0)
        return rc;
    return k;
}

/* ----------------------------------------------- random graphs (Topcuoglu) */

void hs_gen_random_defaults(hs_gen_random_opts *o)
{
    *o = (hs_gen_random_opts){.name = "random", .tasks = 100, .alpha = 1.0, .out_degree = 3,
                              .ccr = 1.0, .beta = 0.5, .mean_cost_us = 1000.0,
                              .gpu_speedup = 4.0, .seed = 1};
}

/* Means over the platform's ordered pairs of devices on different memories
 * of a link's latency (*lat, us) and of its time per byte (*per_byte, us/B),
 * so that the mean transfer time of b bytes is *lat + b * *per_byte.
 * Returns the number of pairs (0: nothing ever moves). */
static int link_means(const hs_platform *p, double *lat, double *per_byte)
{
    int pairs = 0;
    *lat = *per_byte = 0;
    for (int d1 = 0; d1 < p->ndevices; d1++)
        for (int d2 = 0; d2 < p->ndevices; d2++) {
            int q = p->devices[d1].memory, r = p->devices[d2].memory;
            const hs_link *l = &p->links[q * p->nmemories + r];
            if (q == r || !l->present)
                continue;
            *lat += l->latency_us;
            *per_byte += 1.0 / (l->bandwidth_gbps * 1000.0);
            pairs++;
        }
    if (pairs) {
        *lat /= pairs;
        *per_byte /= pairs;
    }
    return pairs;
}

static int check_random(const hs_workload *w, const hs_gen_random_opts *o, hs_error *err)
{
    if (o->tasks < 1 || o->tasks > hs_max_tasks())
        return hs_error_set(err, HS_EINPUT, "tasks must be 1..%zu (%s raises the limit), not "
                            "%zu", hs_max_tasks(), HS_MAX_TASKS_ENV, o->tasks);
    if (!(o->alpha > 0) || !isfinite(o->alpha))
        return hs_error_set(err, HS_EINPUT, "alpha must be a finite number > 0, not %g",
                            o->alpha);
    if (o->out_degree < 1 || o->out_degree > 1000)
        return hs_error_set(err, HS_EINPUT, "out-degree must be 1..1000, not %d",
                            o->out_degree);
    /* refused before building: hs_gen_random refuses the edge beyond
     * hs_max_edges() too, but only after drawing the others */
    if ((double)o->tasks * o->out_degree > (double)hs_max_edges())
        return hs_error_set(err, HS_EINPUT, "%zu tasks with out-degree %d make about %.0f edges, "
                            "more than the %zu a workload may have", o->tasks, o->out_degree,
                            (double)o->tasks * o->out_degree, hs_max_edges());
    if (!(o->ccr >= 0) || !isfinite(o->ccr))
        return hs_error_set(err, HS_EINPUT, "ccr must be a finite number >= 0, not %g", o->ccr);
    if (!(o->beta >= 0 && o->beta < 2))
        return hs_error_set(err, HS_EINPUT, "beta must be in [0, 2), not %g", o->beta);
    if (!(o->mean_cost_us > 0) || !isfinite(o->mean_cost_us))
        return hs_error_set(err, HS_EINPUT, "mean cost must be a finite number > 0, not %g",
                            o->mean_cost_us);
    if (!(o->gpu_speedup > 0) || !isfinite(o->gpu_speedup))
        return hs_error_set(err, HS_EINPUT, "gpu speedup must be a finite number > 0, not %g",
                            o->gpu_speedup);
    return need_devices(w, err);
}

/* Per-kind factors that make GPUs `speedup` times faster than CPUs while the
 * mean factor over the devices stays 1 (so w stays the task's mean cost). */
static void kind_factors(const hs_platform *p, double speedup, double f[2])
{
    int n[2] = {0, 0};
    for (int d = 0; d < p->ndevices; d++)
        n[p->devices[d].kind]++;
    f[HS_DEVICE_GPU] = (double)p->ndevices / (n[HS_DEVICE_CPU] * speedup + n[HS_DEVICE_GPU]);
    f[HS_DEVICE_CPU] = speedup * f[HS_DEVICE_GPU];
}

/* Sets kernel k's cost on every device by name: uniform in
 * w*(1-beta/2) .. w*(1+beta/2), times its kind's factor (HEFT's beta).
 * Adds the costs to *sum. */
static int spread_costs(hs_workload *w, int a, int k, gsl_rng *r, double mean, double beta,
                        const double f[2], double *sum, hs_error *err)
{
    const hs_platform *p = &w->platform;
    for (int d = 0; d < p->ndevices; d++) {
        double c = mean * (1.0 - beta / 2 + beta * gsl_rng_uniform(r));
        int rc;
        c *= f[p->devices[d].kind];
        if ((rc = set_cost(w, a, k, p->devices[d].name, c, err)) != 0)
            return rc;
        *sum += round_ns(c);
    }
    return HS_OK;
}

/* The name of random task t, "t" and its number, without printf's
 * parsing (a million tasks are named, their edges' ends too). */
static void task_name(char buf[32], size_t t)
{
    buf[0] = 't';
    hs__format_u64(t, buf + 1);
}

/* The random graph of gen.h.  Levels first (their widths drawn until they
 * hold exactly v tasks), then every task's costs, then the edges level by
 * level: each task of level l+1 picks a parent in level l (so levels are
 * depths), and each task of level l tops its successors up to its drawn
 * out-degree with distinct tasks of levels l+1 and l+2.  Edge bytes come
 * last, once the realised mean cost fixes the mean bytes the CCR asks for. */
/* ------------------------------------------------------------ the sweep */

struct hs_gen_sweep {
    gsl_rng *rng;
    size_t next;            /* index of the next workload */
};

hs_gen_sweep *hs_gen_sweep_new(unsigned long seed)
{
    hs_gen_sweep *sw = calloc(1, sizeof *sw);
    if (sw && !(sw->rng = gsl_rng_alloc(gsl_rng_mt19937))) {
        free(sw);
        return NULL;
    }
    if (sw)
        gsl_rng_set(sw->rng, seed);
    return sw;
}

void hs_gen_sweep_free(hs_gen_sweep *sw)
{
    if (sw)
        gsl_rng_free(sw->rng);
    free(sw);
}

int hs_gen_sweep_next(hs_gen_sweep *sw, hs_gen_random_opts *o, const char **devices,
                      hs_workload **out, hs_error *err)
{
    static const double alphas[] = {0.5, 1, 2};
    static const double ccrs[] = {0.1, 1, 5};
    static const double betas[] = {0.1, 0.25, 0.5, 0.75, 1};
    gsl_rng *r = sw->rng;
    hs_workload *w;
    int rc;
    *out = NULL;
    hs_gen_random_defaults(o);
    o->tasks = 20 * (1 + gsl_rng_uniform_int(r, 10));
    o->alpha = alphas[gsl_rng_uniform_int(r, 3)];
    o->out_degree = 1 + (int)gsl_rng_uniform_int(r, 5);
    o->ccr = ccrs[gsl_rng_uniform_int(r, 3)];
    o->beta = betas[gsl_rng_uniform_int(r, 5)];
    o->seed = gsl_rng_get(r);
    *devices = sw->next++ % 2 ? "cpu:1,gpu:2" : "cpu:1,gpu:1";
    if (!(w = hs_workload_new()))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    rc = hs_gen_platform(w, *devices, HS_GEN_CPU_CORES, err);
    if (rc >= 0)
        rc = hs_gen_random(w, o, err);
    if (rc >= 0)
        rc = hs_workload_finalize(w, err);
    if (rc < 0) {
        hs_workload_free(w);
        return rc;
    }
    *out = w;
    return HS_OK;
}

int hs_gen_random(hs_workload *w, const hs_gen_random_opts *o, hs_error *err)
{
    size_t v = o->tasks, nlevels = 0, *start = NULL, *parent = NULL, *child_off = NULL,
           *children = NULL, *succ = NULL;
    double f[2], sum = 0, lat = 0, per_byte = 0, mean_bytes = 0, mean_width;
    gsl_rng *r = NULL;
    int a, rc;
    char from[32], to[32];

    if ((rc = check_random(w, o, err)) != 0)
        return rc;
    if (link_means(&w->platform, &lat, &per_byte) == 0 && o->ccr > 0)
        return hs_error_set(err, HS_EINPUT, "ccr %g needs devices on at least two memories "
                            "(or ccr 0)", o->ccr);
    if ((a = hs_workload_add_app(w, o->name ? o->name : "random", 1, err)) < 0)
        return a;
    r = new_rng(o->seed, err);
    start = malloc((v + 2) * sizeof *start);
    parent = malloc(v * sizeof *parent);
    child_off = malloc((v + 2) * sizeof *child_off);
    children = malloc(v * sizeof *children);
    succ = malloc(((size_t)2 * (size_t)o->out_degree + v) * sizeof *succ);
    if (!r || !start || !parent || !child_off || !children || !succ) {
        rc = nomem(err);
        goto out;
    }

    /* Levels: widths uniform in [1, 2m - 1], mean m = alpha * sqrt(v). */
    mean_width = fmax(1.0, round(o->alpha * sqrt((double)v)));
    start[0] = 0;
    while (start[nlevels] < v) {
        size_t wd = uniform_int(r, 1, (unsigned long)(2 * mean_width - 1));
        if (wd > v - start[nlevels])
            wd = v - start[nlevels];
        start[nlevels + 1] = start[nlevels] + wd;
        nlevels++;
    }

    /* Kernels and their costs. */
    kind_factors(&w->platform, o->gpu_speedup, f);
    for (size_t t = 0; t < v; t++) {
        double mean = 2.0 * o->mean_cost_us * gsl_rng_uniform_pos(r); /* (0, 2 w_dag) */
        int k;
        task_name(from, t);
        if ((k = hs_app_add_kernel(w, a, from, err)) < 0) {
            rc = k;
            goto out;
        }
        if ((rc = spread_costs(w, a, k, r, mean, o->beta, f, &sum, err)) != 0)
            goto out;
    }
    if (o->ccr > 0) {
        /* mean transfer = lat + mean_bytes * per_byte = ccr * mean cost */
        double target = o->ccr * sum / ((double)v * w->platform.ndevices);
        if (target <= lat) {
            rc = hs_error_set(err, HS_EINPUT,
                              "ccr %g asks for transfers of %g us on average, no more than the "
                              "links' latency (%g us): raise the mean cost or the ccr",
                              o->ccr, target, lat);
            goto out;
        }
        mean_bytes = (target - lat) / per_byte;
        /* edges carry up to twice the mean */
        if (2 * mean_bytes > HS_MAX_BYTES || 2 * target > HS_MAX_US) {
            rc = hs_error_set(err, HS_EINPUT,
                              "ccr %g asks for transfers of up to %g bytes, %g us, more than "
                              "the %g bytes or %g us a transfer may be: lower the ccr or the "
                              "mean cost", o->ccr, 2 * mean_bytes, 2 * target, HS_MAX_BYTES,
                              HS_MAX_US);
            goto out;
        }
    }

    /* One parent in the level above for every task below the first level. */
    for (size_t l = 1; l < nlevels; l++)
        for (size_t c = start[l]; c < start[l + 1]; c++)
            parent[c] = uniform_int(r, start[l - 1], start[l] - 1);

    for (size_t l = 0; l + 1 < nlevels; l++) {
        size_t lo = start[l], n = start[l + 1] - lo;
        size_t cand_lo = start[l + 1], cand_n = start[l + 3 <= nlevels ? l + 3 : nlevels] - cand_lo;
        /* children of level l's tasks, grouped by parent (counting sort) */
        memset(child_off, 0, (n + 1) * sizeof *child_off);
        for (size_t c = start[l + 1]; c < start[l + 2]; c++)
            child_off[parent[c] - lo + 1]++;
        for (size_t i = 0; i < n; i++)
            child_off[i + 1] += child_off[i];
        for (size_t c = start[l + 1]; c < start[l + 2]; c++)
            children[child_off[parent[c] - lo]++] = c;
        for (size_t i = n; i > 0; i--)
            child_off[i] = child_off[i - 1];
        child_off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            size_t u = lo + i, nsucc = 0;
            size_t want = uniform_int(r, 1, 2 * (unsigned long)o->out_degree - 1);
            if (want > cand_n)
                want = cand_n;
            for (size_t j = child_off[i]; j < child_off[i + 1]; j++)
                succ[nsucc++] = children[j];
            while (nsucc < want) {
                size_t c = cand_lo + gsl_rng_uniform_int(r, cand_n), j = 0;
                while (j < nsucc && succ[j] != c)
                    j++;
                if (j == nsucc)
                    succ[nsucc++] = c;
            }
            task_name(from, u);
            for (size_t j = 0; j < nsucc; j++) {
                double bytes = 0;
                if (o->ccr > 0)
                    bytes = fmax(1.0, floor(2.0 * mean_bytes * gsl_rng_uniform(r) + 0.5));
                task_name(to, succ[j]);
                if ((size_t)w->apps[a].nedges == hs_max_edges()) {
                    rc = hs_error_set(err, HS_EINPUT, "%zu tasks with out-degree %d make more "
                                      "than the %zu edges a workload may have", v,
                                      o->out_degree, hs_max_edges());
                    goto out;
                }
                if ((rc = hs_app_add_edge(w, a, from, to, bytes, err)) < 0)
                    goto out;
            }
        }
    }
    rc = a;
out:
    gsl_rng_free(r);
    free(start);
    free(parent);
    free(child_off);
    free(children);
    free(succ);
    return rc;
}

double hs_gen_measured_ccr(const hs_workload *w)
{
    const hs_platform *p = &w->platform;
    const hs_graph *g = &w->graph;
    double comm = 0, cost = 0;
    int pairs = 0;
    if (!w->finalized || g->nedges == 0 || g->ntasks == 0)
        return 0;
    for (int d1 = 0; d1 < p->ndevices; d1++)
        for (int d2 = 0; d2 < p->ndevices; d2++)
            pairs += p->devices[d1].memory != p->devices[d2].memory;
    if (pairs == 0)
        return 0;
    for (size_t e = 0; e < g->nedges; e++)
        for (int d1 = 0; d1 < p->ndevices; d1++)
            for (int d2 = 0; d2 < p->ndevices; d2++) {
                int q = p->devices[d1].memory, r = p->devices[d2].memory;
                if (q != r)
                    comm += hs_transfer_us(p, q, r, g->edges[e].bytes);
            }
    for (size_t t = 0; t < g->ntasks; t++)
        for (int d = 0; d < g->ndevices; d++)
            cost += g->tasks[t].cost_us[d];
    return (comm / ((double)g->nedges * pairs)) / (cost / ((double)g->ntasks * g->ndevices));
}

/* -------------------------------------------------------------- fork-join */

void hs_gen_forkjoin_defaults(hs_gen_forkjoin_opts *o)
{
    *o = (hs_gen_forkjoin_opts){.name = "fork-join", .width = 8, .depth = 2, .cost_us = 100.0,
                                .bytes = 1e6, .beta = 0.0, .gpu_speedup = 4.0, .seed = 1};
}

/* One fork-join kernel: cost by kind when beta is 0, else by device with
 * each device's cost spread by beta around its kind's cost. */
static int fj_kernel(hs_workload *w, int a, const char *name, const hs_gen_forkjoin_opts *o,
                     gsl_rng *r, hs_error *err)
{
    const hs_platform *p = &w->platform;
    int k = hs_app_add_kernel(w, a, name, err), rc = HS_OK;
    if (k < 0)
        return k;
    if (o->beta == 0)
        return set_kind_costs(w, a, k, o->cost_us, o->cost_us / o->gpu_speedup, err);
    for (int d = 0; d < p->ndevices && rc == HS_OK; d++) {
        double c = p->devices[d].kind == HS_DEVICE_GPU ? o->cost_us / o->gpu_speedup
                                                       : o->cost_us;
        c *= 1.0 - o->beta / 2 + o->beta * gsl_rng_uniform(r);
        rc = set_cost(w, a, k, p->devices[d].name, c, err);
    }
    return rc;
}

int hs_gen_forkjoin(hs_workload *w, const hs_gen_forkjoin_opts *o, hs_error *err)
{
    char name[48], prev[48], join[48];
    gsl_rng *r;
    int a, rc;
    /* 1 + depth (width + 1) tasks, 2 depth width edges */
    if (o->width < 1 || o->depth < 1 ||
        1 + (double)o->depth * (o->width + 1) > (double)hs_max_tasks() ||
        2 * (double)o->depth * o->width > (double)hs_max_edges())
        return hs_error_set(err, HS_EINPUT, "width and depth must be >= 1 and make at most %zu "
                            "tasks and %zu edges, not %d and %d", hs_max_tasks(),
                            hs_max_edges(), o->width, o->depth);
    if (!(o->cost_us > 0) || !isfinite(o->cost_us))
        return hs_error_set(err, HS_EINPUT, "cost must be a finite number > 0, not %g",
                            o->cost_us);
    if (!(o->bytes >= 0) || o->bytes > HS_MAX_BYTES || o->bytes != floor(o->bytes))
        return hs_error_set(err, HS_EINPUT, "bytes must be a whole number from 0 to %g, not %g",
                            HS_MAX_BYTES, o->bytes);
    if (!(o->beta >= 0 && o->beta < 2))
        return hs_error_set(err, HS_EINPUT, "beta must be in [0, 2), not %g", o->beta);
    if (!(o->gpu_speedup > 0) || !isfinite(o->gpu_speedup))
        return hs_error_set(err, HS_EINPUT, "gpu speedup must be a finite number > 0, not %g",
                            o->gpu_speedup);
    if ((rc = need_devices(w, err)) != 0)
        return rc;
    if ((a = hs_workload_add_app(w, o->name ? o->name : "fork-join", 1, err)) < 0)
        return a;
    if (!(r = new_rng(o->seed, err)))
        return HS_ENOMEM;
    snprintf(prev, sizeof prev, "fork");
    if ((rc = fj_kernel(w, a, prev, o, r, err)) < 0 ||
        (rc = hs_kernel_set_bytes(w, a, 0, o->bytes, 0, err)) != 0)
        goto out;
    for (int s = 0; s < o->depth; s++) {
        snprintf(join, sizeof join, "join%d", s);
        for (int i = 0; i < o->width; i++) {
            snprintf(name, sizeof name, "s%d_%d", s, i);
            if ((rc = fj_kernel(w, a, name, o, r, err)) < 0 ||
                (rc = hs_app_add_edge(w, a, prev, name, o->bytes, err)) < 0)
                goto out;
        }
        if ((rc = fj_kernel(w, a, join, o, r, err)) < 0)
            goto out;
        for (int i = 0; i < o->width; i++) {
            snprintf(name, sizeof name, "s%d_%d", s, i);
            if ((rc = hs_app_add_edge(w, a, name, join, o->bytes, err)) < 0)
                goto out;
        }
        memcpy(prev, join, sizeof prev);
    }
    rc = hs_kernel_set_bytes(w, a, w->apps[a].nkernels - 1, 0, o->bytes, err);
    if (rc == HS_OK)
        rc = a;
out:
    gsl_rng_free(r);
    return rc;
}

/* ---------------------------------------------------------- tiled Cholesky */

void hs_gen_cholesky_defaults(hs_gen_cholesky_opts *o)
{
    *o = (hs_gen_cholesky_opts){.name = "cholesky", .tiles = 4, .tile_size = 512,
                                .instances = 1};
    hs_gen_rates_defaults(&o->rates);
}

/* Adds the dependence on the last writer of a tile (if any); else the task
 * is the tile's first toucher and reads it from host: *in_bytes += tile. */
static int tile_dep(hs_workload *w, int a, int last_writer, int k, double tile,
                    double *in_bytes, hs_error *err)
{
    int rc;
    if (last_writer < 0) {
        *in_bytes += tile;
        return HS_OK;
    }
    rc = hs_app_add_edge(w, a, w->apps[a].kernels[last_writer].name, w->apps[a].kernels[k].name,
                         tile, err);
    return rc < 0 ? rc : HS_OK;
}

/* Adds the kernels of a T x T tiled Cholesky with nb x nb tiles to
 * application a.  Steps are issued in the order a sequential code issues
 * them; lw[i*T+j] is the kernel that last wrote tile (i,j) (-1: still the
 * input), trsm[i] the current step's trsm on row i. */
static int cholesky_kernels(hs_workload *w, int a, int T, double nb, const hs_gen_rates *rates,
                            hs_error *err)
{
    int rc = HS_OK, *lw = NULL, *trsm = NULL;
    double tile = nb * nb * FLOAT_BYTES, n3 = nb * nb * nb;
    char name[64];
    lw = malloc((size_t)T * (size_t)T * sizeof *lw);
    trsm = malloc((size_t)T * sizeof *trsm);
    if (!lw || !trsm) {
        rc = nomem(err);
        goto out;
    }
    for (int i = 0; i < T * T; i++)
        lw[i] = -1;
#define ADD(type, params, flops, moved)                                                     \
    do {                                                                                    \
        if ((k = add_typed(w, a, name, type, params, flops, moved * tile, 0, 0, rates,      \
                           err)) < 0) {                                                     \
            rc = k;                                                                         \
            goto out;                                                                       \
        }                                                                                   \
    } while (0)
    for (int s = 0; s < T; s++) {
        int k;
        double in = 0;
        /* potrf: factor (s,s); nb^3/3 flops, reads and writes one tile */
        snprintf(name, sizeof name, "potrf_%d", s);
        ADD("potrf", P({"n", nb}), n3 / 3, 2);
        if ((rc = tile_dep(w, a, lw[s * T + s], k, tile, &in, err)) != 0 ||
            (rc = hs_kernel_set_bytes(w, a, k, in, tile, err)) != 0)
            goto out;
        lw[s * T + s] = k;
        /* trsm: (i,s) := (i,s) L(s,s)^-T; nb^3 flops, 2 tiles in, 1 out */
        for (int i = s + 1; i < T; i++) {
            in = 0;
            snprintf(name, sizeof name, "trsm_%d_%d", i, s);
            ADD("trsm", P({"n", nb}), n3, 3);
            if ((rc = tile_dep(w, a, lw[s * T + s], k, tile, &in, err)) != 0 ||
                (rc = tile_dep(w, a, lw[i * T + s], k, tile, &in, err)) != 0 ||
                (rc = hs_kernel_set_bytes(w, a, k, in, tile, err)) != 0)
                goto out;
            lw[i * T + s] = trsm[i] = k;
        }
        /* syrk: (i,i) -= (i,s)(i,s)^T; gemm: (i,j) -= (i,s)(j,s)^T */
        for (int i = s + 1; i < T; i++) {
            in = 0;
            snprintf(name, sizeof name, "syrk_%d_%d", i, s);
            ADD("syrk", P({"n", nb}), n3, 3);
            if ((rc = tile_dep(w, a, trsm[i], k, tile, &in, err)) != 0 ||
                (rc = tile_dep(w, a, lw[i * T + i], k, tile, &in, err)) != 0 ||
                (rc = hs_kernel_set_bytes(w, a, k, in, 0, err)) != 0)
                goto out;
            lw[i * T + i] = k;
            for (int j = s + 1; j < i; j++) {
                in = 0;
                snprintf(name, sizeof name, "gemm_%d_%d_%d", i, j, s);
                ADD("gemm", P({"n", nb}, {"alpha", -1}, {"beta", 1}, {"transb", 1}), 2 * n3, 4);
                if ((rc = tile_dep(w, a, trsm[i], k, tile, &in, err)) != 0 ||
                    (rc = tile_dep(w, a, trsm[j], k, tile, &in, err)) != 0 ||
                    (rc = tile_dep(w, a, lw[i * T + j], k, tile, &in, err)) != 0 ||
                    (rc = hs_kernel_set_bytes(w, a, k, in, 0, err)) != 0)
                    goto out;
                lw[i * T + j] = k;
            }
        }
    }
#undef ADD
out:
    free(lw);
    free(trsm);
    return rc;
}

double hs_gen_cholesky_tasks(int tiles)
{
    double t = tiles;
    return t + t * (t - 1) + t * (t - 1) * (t - 2) / 6;
}

int hs_gen_cholesky(hs_workload *w, const hs_gen_cholesky_opts *o, hs_error *err)
{
    int a, rc;
    /* refused before building: the kernels grow as tiles^3 */
    if (o->tiles < 1 || o->instances < 1 ||
        hs_gen_cholesky_tasks(o->tiles) * o->instances > (double)hs_max_tasks())
        return hs_error_set(err, HS_EINPUT, "tiles and instances must be >= 1 and make at most "
                            "%zu tasks, not %d tiles (%.0f tasks) x %d instances", hs_max_tasks(),
                            o->tiles, hs_gen_cholesky_tasks(o->tiles), o->instances);
    if (o->tile_size < 1 || o->tile_size > HS_GEN_MAX_TILE_SIZE)
        return hs_error_set(err, HS_EINPUT, "tile size must be 1..%d, not %d",
                            HS_GEN_MAX_TILE_SIZE, o->tile_size);
    if ((rc = check_rates(&o->rates, err)) != 0 || (rc = need_devices(w, err)) != 0)
        return rc;
    if ((a = hs_workload_add_app(w, o->name ? o->name : "cholesky", o->instances, err)) < 0)
        return a;
    if ((rc = cholesky_kernels(w, a, o->tiles, o->tile_size, &o->rates, err)) != 0)
        return rc;
    return a;
}

/* ------------------------------------------- Zhou & Liu benchmarks (Fig. 4) */

int hs_gen_size_parse(const char *s, hs_gen_size *out, hs_error *err)
{
    for (int i = 0; i <= HS_GEN_LARGE; i++)
        if (strcmp(s, hs_gen_size_name((hs_gen_size)i)) == 0) {
            *out = (hs_gen_size)i;
            return HS_OK;
        }
    return hs_error_set(err, HS_EINPUT, "size '%s': expected small, medium or large", s);
}

const char *hs_gen_size_name(hs_gen_size size)
{
    static const char *const names[] = {"small", "medium", "large"};
    return size >= HS_GEN_SMALL && size <= HS_GEN_LARGE ? names[size] : "?";
}

/* Each benchmark adds its kernels to application a; `n` is its problem size
 * at the chosen size (Fig. 4).  V is a vector's bytes, M a matrix's. */
typedef int (*bench_fn)(hs_workload *w, int a, double n, const hs_gen_rates *r,
                        hs_error *err);

/* xgemm, (a*b) + (c*d) on n x n matrices (the case study's xgemm):
 * ab, cd (gemm, 2n^3 flops, 2 matrices in from host) -> add (n^2 flops,
 * result back to host).  Fig. 4: n = 1k, 4k, 8k. */
static int bench_xgemm(hs_workload *w, int a, double n, const hs_gen_rates *r, hs_error *err)
{
    double M = n * n * FLOAT_BYTES;
    int rc;
    if ((rc = add_typed(w, a, "ab", "gemm", P({"n", n}), 2 * n * n * n, 3 * M, 2 * M, 0, r,
                        err)) < 0 ||
        (rc = add_typed(w, a, "cd", "gemm", P({"n", n}), 2 * n * n * n, 3 * M, 2 * M, 0, r,
                        err)) < 0 ||
        (rc = add_typed(w, a, "add", "matadd", P({"n", n}), n * n, 3 * M, 0, M, r, err)) < 0 ||
        (rc = hs_app_add_edge(w, a, "ab", "add", M, err)) < 0 ||
        (rc = hs_app_add_edge(w, a, "cd", "add", M, err)) < 0)
        return rc;
    return HS_OK;
}

/* cg: three unrolled iterations of conjugate gradient on an n x n dense
 * matrix A, with the kernel types of workloads/kernels/ (their axpy scales
 * its factors by num/den, two scalars written by dot tasks).  Iteration k,
 * rho_k = r_k.r_k coming from the previous dot_rr (or from host):
 *   gemv_k    q = A p                                  2n^2 flops
 *   dot_pq_k  pq = p.q                                 2n
 *   axpy_x_k  x += (rho_k / pq) p          (ratio 1)   2n
 *   axpy_r_k  r -= (rho_k / pq) q          (ratio 1)   2n
 *   dot_rr_k  rho_k+1 = r.r                            2n
 *   xpay_k    p = r + (rho_k+1 / rho_k) p  (ratio 2)   2n
 * Edges carry vectors (V) and scalars (4 bytes).  A is no kernel's result:
 * every gemv reads its own A from host (the executor generates it there and
 * copies it to a GPU that runs the gemv), so the model moves it as the run
 * does, once per gemv on a GPU.  The first iteration also reads p, x, r and
 * rho from host; the last x goes back.  Every edge names the buffer it
 * feeds (exec/data.h), the data flow above: the implicit rule would give
 * scalars to vector buffers.  dot_rr reads r once (one edge, one buffer:
 * its y is generated).
 * Fig. 4: n = 1k, 4k, 8k. */
#define CG_ITERATIONS 3
static int bench_cg(hs_workload *w, int a, double n, const hs_gen_rates *r, hs_error *err)
{
    double V = n * FLOAT_BYTES, M = n * n * FLOAT_BYTES, S = FLOAT_BYTES;
    enum { GEMV, DOT_PQ, AXPY_X, AXPY_R, DOT_RR, XPAY };
    static const char *const names[] = {"gemv", "dot_pq", "axpy_x", "axpy_r", "dot_rr",
                                        "xpay"};
    /* within an iteration, and from the previous one: {from, to, bytes,
     * the buffer of `to` it feeds} */
    static const struct cg_edge {
        int from, to;
        char what; /* V vector, S scalar */
        const char *buffer;
    } inner[] = {{GEMV, DOT_PQ, 'V', "y"},   {GEMV, AXPY_R, 'V', "x"},
                 {DOT_PQ, AXPY_X, 'S', "den"}, {DOT_PQ, AXPY_R, 'S', "den"},
                 {AXPY_R, DOT_RR, 'V', "x"}, {AXPY_R, XPAY, 'V', "x"},
                 {DOT_RR, XPAY, 'S', "num"}},
      cross[] = {{XPAY, GEMV, 'V', "x"},
                 {XPAY, DOT_PQ, 'V', "x"},          {XPAY, AXPY_X, 'V', "x"},
                 {XPAY, XPAY, 'V', "y"},            {AXPY_X, AXPY_X, 'V', "y"},
                 {AXPY_R, AXPY_R, 'V', "y"},        {DOT_RR, AXPY_X, 'S', "num"},
                 {DOT_RR, AXPY_R, 'S', "num"},      {DOT_RR, XPAY, 'S', "den"}};
    const size_t ninner = sizeof inner / sizeof inner[0], ncross = sizeof cross / sizeof cross[0];
    char nm[6][32] = {{0}}, pv[6][32];
    for (int it = 0; it < CG_ITERATIONS; it++) {
        int first = it == 0, last = it == CG_ITERATIONS - 1, rc = 0;
        for (int i = 0; i < 6; i++) {
            memcpy(pv[i], nm[i], sizeof nm[i]);
            snprintf(nm[i], sizeof nm[i], "%s_%d", names[i], it);
        }
        /* kernel: type and params, flops, bytes moved, from host, to host */
        if ((rc = add_typed(w, a, nm[GEMV], "gemv", P({"n", n}), 2 * n * n, M + 2 * V,
                            first ? M + V : M, 0, r, err)) < 0 ||
            (rc = add_typed(w, a, nm[DOT_PQ], "dot", P({"n", n}), 2 * n, 2 * V,
                            first ? V : 0, 0, r, err)) < 0 ||
            (rc = add_typed(w, a, nm[AXPY_X], "axpy", P({"n", n}, {"ratio", 1}), 2 * n, 3 * V,
                            first ? 2 * V + S : 0, last ? V : 0, r, err)) < 0 ||
            (rc = add_typed(w, a, nm[AXPY_R], "axpy", P({"n", n}, {"alpha", -1}, {"ratio", 1}),
                            2 * n, 3 * V, first ? V + S : 0, 0, r, err)) < 0 ||
            (rc = add_typed(w, a, nm[DOT_RR], "dot", P({"n", n}), 2 * n, 2 * V, 0, 0, r,
                            err)) < 0 ||
            (rc = add_typed(w, a, nm[XPAY], "axpy", P({"n", n}, {"ratio", 2}), 2 * n, 3 * V,
                            first ? V + S : 0, 0, r, err)) < 0)
            return rc;
        for (size_t e = 0; e < ninner + (first ? 0 : ncross); e++) {
            const struct cg_edge *ce = e < ninner ? &inner[e] : &cross[e - ninner];
            const char *from = e < ninner ? nm[ce->from] : pv[ce->from];
            if ((rc = hs_app_add_edge(w, a, from, nm[ce->to],
                                      ce->what == 'V' ? V : S, err)) < 0 ||
                (rc = hs_edge_set_buffer(w, a, rc, ce->buffer, err)) != 0)
                return rc;
        }
    }
    return HS_OK;
}

/* cholesky: the tiled factorisation above with a fixed 4 x 4 tiling (20
 * tasks), tiles of n/4.  Fig. 4: n = 1k, 1k, 4k (the paper lists 1k twice). */
static int bench_cholesky(hs_workload *w, int a, double n, const hs_gen_rates *r,
                          hs_error *err)
{
    return cholesky_kernels(w, a, 4, n / 4, r, err);
}

/* increment: a chain of 4 increments of one n-vector (StarPU's incrementer
 * applies its kernel to the same data again and again): n flops, reads and
 * writes V; the vector comes from host and goes back.  Fig. 4: n = 10k,
 * 100k, 1M. */
#define INCREMENT_STEPS 4
static int bench_increment(hs_workload *w, int a, double n, const hs_gen_rates *r,
                           hs_error *err)
{
    double V = n * FLOAT_BYTES;
    char name[16], prev[16];
    for (int i = 0; i < INCREMENT_STEPS; i++) {
        int rc;
        snprintf(name, sizeof name, "inc%d", i);
        if ((rc = add_typed(w, a, name, "increment", P({"n", n}), n, 2 * V, i ? 0 : V,
                            i == INCREMENT_STEPS - 1 ? V : 0, r, err)) < 0 ||
            (i && (rc = hs_app_add_edge(w, a, prev, name, V, err)) < 0))
            return rc;
        memcpy(prev, name, sizeof prev);
    }
    return HS_OK;
}

/* va: (v1 + v2) * pi as in the case study: add (reads 2 vectors from host)
 * -> scale (writes the result back).  Fig. 4: n = 10k, 100k, 1M. */
static int bench_va(hs_workload *w, int a, double n, const hs_gen_rates *r, hs_error *err)
{
    double V = n * FLOAT_BYTES;
    int rc;
    if ((rc = add_typed(w, a, "add", "va", P({"n", n}), n, 3 * V, 2 * V, 0, r, err)) < 0 ||
        (rc = add_typed(w, a, "scale", "scale", P({"n", n}), n, 2 * V, 0, V, r, err)) < 0 ||
        (rc = hs_app_add_edge(w, a, "add", "scale", V, err)) < 0)
        return rc;
    return HS_OK;
}

/* pi: Monte Carlo with 1000 independent tasks of `n` hits each (Fig. 4: 1k,
 * 4k, 8k hits per task), counted at about 20 flops per hit (two random
 * numbers, x^2 + y^2, a compare), each sending its count (8 bytes) to one
 * reduce kernel that writes the estimate back to host.  The reduce has no
 * kernel type in workloads/kernels/, so it has none here: only costs. */
#define PI_TASKS 1000
#define PI_FLOPS_PER_HIT 20.0
static int bench_pi(hs_workload *w, int a, double n, const hs_gen_rates *r, hs_error *err)
{
    char name[16];
    int rc;
    if ((rc = add_typed(w, a, "reduce", NULL, NULL, PI_TASKS, PI_TASKS * 8.0,
                        0, 8, r, err)) < 0)
        return rc;
    for (int i = 0; i < PI_TASKS; i++) {
        snprintf(name, sizeof name, "hits%d", i);
        if ((rc = add_typed(w, a, name, "pi", P({"hits", n}), PI_FLOPS_PER_HIT * n, 8, 0, 0,
                            r, err)) < 0 ||
            (rc = hs_app_add_edge(w, a, name, "reduce", 8, err)) < 0)
            return rc;
    }
    return HS_OK;
}

/* fblock: assigns a value to every element of an n x n x n cube split into 4
 * blocks along z (StarPU's fblock filter example): 4 independent kernels,
 * each reading its block from host and writing it back, one flop and 8
 * bytes moved per element.  Fig. 4: n = 128, 256, 512. */
#define FBLOCK_PARTS 4
static int bench_fblock(hs_workload *w, int a, double n, const hs_gen_rates *r, hs_error *err)
{
    double elems = n * n * n / FBLOCK_PARTS, B = elems * FLOAT_BYTES;
    char name[16];
    for (int i = 0; i < FBLOCK_PARTS; i++) {
        int rc;
        snprintf(name, sizeof name, "block%d", i);
        if ((rc = add_typed(w, a, name, "fblock", P({"n", n}, {"parts", FBLOCK_PARTS}), elems,
                            2 * B, B, B, r, err)) < 0)
            return rc;
    }
    return HS_OK;
}

static const struct {
    const char *name;
    bench_fn fn;
    double n[3]; /* problem size at small, medium, large (Fig. 4) */
} benchmarks[] = {
    {"xgemm", bench_xgemm, {1024, 4096, 8192}},
    {"cg", bench_cg, {1024, 4096, 8192}},
    {"cholesky", bench_cholesky, {1024, 1024, 4096}},
    {"increment", bench_increment, {10000, 100000, 1000000}},
    {"va", bench_va, {10000, 100000, 1000000}},
    {"pi", bench_pi, {1000, 4000, 8000}},
    {"fblock", bench_fblock, {128, 256, 512}},
};
#define NBENCH (sizeof benchmarks / sizeof benchmarks[0])

const char *const *hs_gen_benchmark_names(void)
{
    static const char *names[NBENCH + 1];
    for (size_t i = 0; i < NBENCH; i++)
        names[i] = benchmarks[i].name;
    names[NBENCH] = NULL;
    return names;
}

int hs_gen_benchmark(hs_workload *w, const char *name, hs_gen_size size, int instances,
                     const hs_gen_rates *rates, hs_error *err)
{
    hs_gen_rates def;
    int a, rc;
    size_t b = 0;
    if (!rates) {
        hs_gen_rates_defaults(&def);
        rates = &def;
    }
    while (b < NBENCH && strcmp(benchmarks[b].name, name) != 0)
        b++;
    if (b == NBENCH)
        return hs_error_set(err, HS_EINPUT, "no benchmark '%s' (xgemm, cg, cholesky, increment, "
                            "va, pi, fblock)", name);
    if (size < HS_GEN_SMALL || size > HS_GEN_LARGE)
        return hs_error_set(err, HS_EINPUT, "bad benchmark size %d", (int)size);
    if ((rc = check_rates(rates, err)) != 0 || (rc = need_devices(w, err)) != 0)
        return rc;
    if ((a = hs_workload_add_app(w, name, instances, err)) < 0)
        return a;
    if ((rc = benchmarks[b].fn(w, a, benchmarks[b].n[size], rates, err)) < 0)
        return rc;
    return a;
}

/* Sec. 5.2: the base case is one instance of each of the seven benchmarks.
 *   compute: the base plus three more instances of each compute-intensive
 *            benchmark, cholesky and pi (Monte Carlo): 4 of those, 1 of the
 *            others;
 *   data:    the base plus three more of each data-intensive one, va and
 *            increment: 4 of those, 1 of the others;
 *   mixed:   two instances of each of the seven. */
int hs_gen_composition(hs_workload *w, const char *name, hs_gen_size size,
                       const hs_gen_rates *rates, hs_error *err)
{
    int compute = strcmp(name, "compute") == 0, data = strcmp(name, "data") == 0;
    int mixed = strcmp(name, "mixed") == 0, first = -1;
    if (!compute && !data && !mixed)
        return hs_error_set(err, HS_EINPUT, "no composition '%s' (compute, data, mixed)", name);
    for (size_t b = 0; b < NBENCH; b++) {
        const char *bn = benchmarks[b].name;
        int n = 1, a;
        if (mixed)
            n = 2;
        else if (compute && (strcmp(bn, "cholesky") == 0 || strcmp(bn, "pi") == 0))
            n = 4;
        else if (data && (strcmp(bn, "va") == 0 || strcmp(bn, "increment") == 0))
            n = 4;
        if ((a = hs_gen_benchmark(w, bn, size, n, rates, err)) < 0)
            return a;
        if (first < 0)
            first = a;
    }
    return first;
}
