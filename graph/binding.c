/* hetsched — which buffer each edge feeds (graph/binding.h): the rule of
 * exec/data.h, applied once per application when the workload is finalized,
 * so that a file whose data would not reach the buffers it names is refused
 * where the edge is written, and the executor only follows what is set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/binding.h"
#include "workloads/kernels/kernel.h"

/* What binding knows of an application's kernels. */
typedef struct binder {
    hs_workload *w;
    int app;
    hs_error *err;
    /* per kernel: 0 not looked at yet, 1 has a result of result[k] bytes,
     * 2 has none (no type) */
    unsigned char *state;
    size_t *result;
} binder;

/* Configures kernel k (which has a type) into *c; a type or params that
 * the registry refuses are reported at the kernel, as the loader does. */
static int configure(binder *B, int k, hs_kconf *c)
{
    const hs_kernel *kn = &B->w->apps[B->app].kernels[k];
    hs_error kerr = {0};
    char path[64 + sizeof kerr.path];
    if (hs_kconf_init(c, kn->type, kn->params, kn->nparams, &kerr) == 0)
        return HS_OK;
    snprintf(path, sizeof path, "applications[%d].kernels[%d].%s", B->app, k,
             kerr.path[0] ? kerr.path : "type");
    return hs_error_at(B->err, HS_EINPUT, path, "%s", kerr.msg);
}

/* Looks kernel k's result up: *has is 1 and *bytes its size when k has a
 * type (whose result is its last written buffer), else 0. */
static int result_of(binder *B, int k, int *has, size_t *bytes)
{
    const hs_kernel *kn = &B->w->apps[B->app].kernels[k];
    if (B->state[k] == 0) {
        hs_kconf c;
        int rc;
        B->state[k] = 2;
        if (kn->type) {
            if ((rc = configure(B, k, &c)) != 0)
                return rc;
            for (int i = 0; i < c.nbufs; i++)
                if (c.bufs[i].mode & HS_KWRITE) {
                    B->state[k] = 1;
                    B->result[k] = c.bufs[i].bytes;
                }
        }
    }
    *has = B->state[k] == 1;
    *bytes = B->result[k];
    return HS_OK;
}

/* Writes "x, y, num" (the readable buffers of c; those of `bytes` bytes
 * only when `bytes` is not 0; `sep` before the last) into buf. */
static void readable_list(const hs_kconf *c, size_t bytes, const char *sep, char *buf,
                          size_t size)
{
    int n = 0, total = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nbufs; i++)
        total += (c->bufs[i].mode & HS_KREAD) && (!bytes || c->bufs[i].bytes == bytes);
    for (int i = 0; i < c->nbufs && len < size; i++) {
        if (!(c->bufs[i].mode & HS_KREAD) || (bytes && c->bufs[i].bytes != bytes))
            continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s", n == 0 ? ""
                                : n == total - 1 ? sep : ", ", c->bufs[i].name);
        n++;
    }
}

/* What to write instead of a binding that does not fit a result of
 * `bytes` bytes into consumer `to` (configured as c). */
static void advice(const hs_kconf *c, const char *to, size_t bytes, char *buf, size_t size)
{
    char names[256];
    readable_list(c, bytes, " or ", names, sizeof names);
    if (names[0])
        snprintf(buf, size, ": name the buffer it feeds, buffer: %s, or write buffer: none if "
                 "it only orders", names);
    else
        snprintf(buf, size, "; '%s' reads no buffer of %zu bytes: write buffer: none if the "
                 "edge only orders", to, bytes);
}

/* Binds edge e (explicit: e->buffer names a buffer) into kernel k,
 * configured as c; named[i] is the edge that feeds buffer i, or -1. */
static int bind_explicit(binder *B, int ei, int k, const hs_kconf *c, int *named)
{
    hs_app *a = &B->w->apps[B->app];
    hs_kernel_edge *e = &a->edges[ei];
    const char *from = a->kernels[e->from].name, *to = a->kernels[k].name;
    char path[96], list[256], more[512];
    size_t bytes;
    int i = 0, has, rc;
    snprintf(path, sizeof path, "applications[%d].edges[%d].buffer", B->app, ei);
    while (i < c->nbufs && strcmp(c->bufs[i].name, e->buffer) != 0)
        i++;
    readable_list(c, 0, " or ", list, sizeof list);
    if (i == c->nbufs)
        return hs_error_at(B->err, HS_EINPUT, path, "kernel '%s' (%s) has no buffer '%.64s': "
                           "name one it reads (%s), or write buffer: none if the edge only "
                           "orders", to, c->type->name, e->buffer, list);
    if (!(c->bufs[i].mode & HS_KREAD))
        return hs_error_at(B->err, HS_EINPUT, path, "buffer '%s' of kernel '%s' (%s) is written, "
                           "not read, so no edge feeds it: name one it reads (%s)", e->buffer,
                           to, c->type->name, list);
    if (named[i] >= 0)
        return hs_error_at(B->err, HS_EINPUT, path, "buffer '%s' of kernel '%s' is fed twice: "
                           "by edges[%d] (from '%s') and by this edge (from '%s')",
                           e->buffer, to, named[i], a->kernels[a->edges[named[i]].from].name,
                           from);
    if ((rc = result_of(B, e->from, &has, &bytes)) != 0)
        return rc;
    if (!has)
        return hs_error_at(B->err, HS_EINPUT, path, "kernel '%s' has no type, so no result to "
                           "feed buffer '%s' of '%s': write buffer: none if the edge only orders",
                           from, e->buffer, to);
    if (bytes != c->bufs[i].bytes) {
        advice(c, to, bytes, more, sizeof more);
        return hs_error_at(B->err, HS_EINPUT, path, "'%s' (%s) gives %zu bytes, but buffer '%s' "
                           "of '%s' (%s) holds %zu bytes%s", from, a->kernels[e->from].type, bytes,
                           e->buffer, to, c->type->name, c->bufs[i].bytes, more);
    }
    if (e->bytes <= 0)
        return hs_error_at(B->err, HS_EINPUT, path, "an edge of 0 bytes only orders: give the "
                           "bytes it moves (%zu, the result of '%s') to feed buffer '%s', or "
                           "write buffer: none", bytes, from, e->buffer);
    named[i] = ei;
    e->feeds = i;
    return HS_OK;
}

/* Binds edge e (implicit, with data) into kernel k, configured as c: the
 * next readable buffer after *next that no explicit edge names. */
static int bind_implicit(binder *B, int ei, int k, const hs_kconf *c, const int *named,
                         int *next)
{
    hs_app *a = &B->w->apps[B->app];
    hs_kernel_edge *e = &a->edges[ei];
    const char *from = a->kernels[e->from].name, *to = a->kernels[k].name;
    char path[64], more[512];
    size_t bytes;
    int i = *next, has, rc;
    snprintf(path, sizeof path, "applications[%d].edges[%d]", B->app, ei);
    while (i < c->nbufs && (!(c->bufs[i].mode & HS_KREAD) || named[i] >= 0))
        i++;
    if (i == c->nbufs) {
        char list[256];
        readable_list(c, 0, " and ", list, sizeof list);
        return hs_error_at(B->err, HS_EINPUT, path, "this edge carries data, but every buffer "
                           "'%s' (%s) reads (%s) is fed by another edge: write buffer: none if "
                           "it only orders", to, c->type->name, list);
    }
    if ((rc = result_of(B, e->from, &has, &bytes)) != 0)
        return rc;
    if (!has)
        return hs_error_at(B->err, HS_EINPUT, path, "kernel '%s' has no type, so no result, but "
                           "the implicit rule binds this edge to buffer '%s' of '%s' (%s): write "
                           "buffer: none if it only orders", from, c->bufs[i].name, to,
                           c->type->name);
    if (bytes != c->bufs[i].bytes) {
        advice(c, to, bytes, more, sizeof more);
        return hs_error_at(B->err, HS_EINPUT, path, "'%s' (%s) gives %zu bytes, but the implicit "
                           "rule binds this edge to buffer '%s' of '%s' (%s), which holds %zu "
                           "bytes%s", from, a->kernels[e->from].type, bytes, c->bufs[i].name, to,
                           c->type->name, c->bufs[i].bytes, more);
    }
    e->feeds = i;
    *next = i + 1;
    return HS_OK;
}

/* Binds the edges into kernel k: in[0..n), in declaration order. */
static int bind_kernel(binder *B, int k, const int *in, int n)
{
    hs_app *a = &B->w->apps[B->app];
    int named[HS_KMAX_BUFS], next = 0, rc;
    hs_kconf c;
    for (int j = 0; j < n; j++)
        a->edges[in[j]].feeds = -1;
    if (!a->kernels[k].type) {
        for (int j = 0; j < n; j++) {
            const hs_kernel_edge *e = &a->edges[in[j]];
            char path[96];
            if (!e->buffer || strcmp(e->buffer, HS_BUFFER_NONE) == 0)
                continue;
            snprintf(path, sizeof path, "applications[%d].edges[%d].buffer", B->app, in[j]);
            return hs_error_at(B->err, HS_EINPUT, path, "kernel '%s' has no type, so no buffer "
                               "'%.64s' to feed: an edge into it only orders (drop buffer)",
                               a->kernels[k].name, e->buffer);
        }
        return HS_OK;
    }
    if ((rc = configure(B, k, &c)) != 0)
        return rc;
    for (int i = 0; i < HS_KMAX_BUFS; i++)
        named[i] = -1;
    for (int j = 0; j < n; j++) {
        const hs_kernel_edge *e = &a->edges[in[j]];
        if (e->buffer && strcmp(e->buffer, HS_BUFFER_NONE) != 0 &&
            (rc = bind_explicit(B, in[j], k, &c, named)) != 0)
            return rc;
    }
    for (int j = 0; j < n; j++) {
        const hs_kernel_edge *e = &a->edges[in[j]];
        if (!e->buffer && e->bytes > 0 && (rc = bind_implicit(B, in[j], k, &c, named, &next)) != 0)
            return rc;
    }
    return HS_OK;
}

int hs__bind_edges(hs_workload *w, int app, hs_error *err)
{
    hs_app *a = &w->apps[app];
    size_t n = (size_t)a->nkernels;
    binder B = {.w = w, .app = app, .err = err};
    int *off = calloc(n + 2, sizeof *off), *in = malloc(((size_t)a->nedges + 1) * sizeof *in);
    int rc = HS_OK;
    B.state = calloc(n + 1, 1);
    B.result = calloc(n + 1, sizeof *B.result);
    if (!off || !in || !B.state || !B.result) {
        rc = hs_error_set(err, HS_ENOMEM, "out of memory");
        goto out;
    }
    /* each kernel's incoming edges, in declaration order (counting sort) */
    for (int e = 0; e < a->nedges; e++)
        off[a->edges[e].to + 2]++;
    for (size_t k = 0; k < n; k++)
        off[k + 2] += off[k + 1];
    for (int e = 0; e < a->nedges; e++)
        in[off[a->edges[e].to + 1]++] = e;
    for (size_t k = 0; k < n && rc == HS_OK; k++)
        if (off[k + 1] > off[k])
            rc = bind_kernel(&B, (int)k, in + off[k], off[k + 1] - off[k]);
out:
    free(off);
    free(in);
    free(B.state);
    free(B.result);
    return rc;
}
