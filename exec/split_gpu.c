/* hetsched — the GPU half of real splits (exec/split_real.h), on the
 * device layer that runs graphs (exec/mem.h): a whole-size copy of every
 * buffer on the device, and per chunk pieces whose input copies, kernels
 * and output copies overlap on the layer's streams (copies in on the GPU's
 * host-to-device stream, kernels on its compute stream, copies out on its
 * device-to-host stream, each on a copy engine of its own).
 *
 * Between chunks the engines would idle: the device waits for its next
 * chunk's first input copy (the fill) and the last output copy of its
 * chunk (the drain), about 0.3 ms a chunk of gemm rows on an H200, which
 * HDSS's half a dozen chunks made a few percent of the kernel.  So (1) a
 * chunk ends, for the splitter, when its last kernel ends: its last output
 * copy overlaps the next chunk and hs__split_gpu_drain waits for it after
 * the device's last chunk (the driver counts that wait in the device's
 * finish time); (2) after its last input copy a chunk copies in the inputs
 * of the next width of items (speculatively: a self-scheduled device
 * usually gets the items that follow its own, from the pool's global
 * pointer), and a chunk whose first piece lies in them waits for those
 * copies instead of making its own.  A wrong guess (another device took
 * those items) costs a piece's copy, which the next chunk's first copy
 * waits behind (the stream is in order): so a device guesses only while
 * its chunks follow each other (its first chunk, and any that began where
 * the one before ended).  Only read-only inputs are copied ahead (an
 * in-place buffer's slice may still hold a result on its way out).
 *
 * A piece's output copies are enqueued once its kernel has finished (the
 * layer's finish), while the pieces after it run: all of a chunk's kernels
 * are enqueued first, at most HS_SPLIT_REAL_PIECES, within the layer's
 * HS_BACKEND_MAX_DEPTH kernels in flight. */
#include <stdint.h>
#include <stdlib.h>

#include "exec/backend.h"
#include "exec/mem.h"
#include "exec/split_real.h"

_Static_assert(HS_SPLIT_REAL_PIECES <= HS_BACKEND_MAX_DEPTH,
               "a chunk's pieces are in flight at once");

struct hs__split_gpu {
    const hs_kconf *c;
    const hs__gpu_layer *L;
    int mem;                  /* the GPU's memory in L */
    void *d[HS_KMAX_BUFS];
    void *ahead_done;         /* event of the last copy ahead */
    size_t ahead_b, ahead_e;  /* inputs of [ahead_b, ahead_e) copied ahead */
    size_t last_e;            /* end of the last chunk; SIZE_MAX: none since the drain */
    void *out_done;           /* event of the last output copy (the stream is in order) */
};

int hs__split_gpu_open(const hs_kconf *c, const hs__gpu_layer *L, int cuda_device,
                       hs__split_gpu **out, hs_error *err)
{
    hs__split_gpu *g = calloc(1, sizeof *g);
    int rc = HS_OK;
    *out = NULL;
    if (!g)
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    g->c = c;
    g->L = L;
    g->mem = hs__gpu_layer_mem(L, cuda_device);
    g->last_e = SIZE_MAX;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        rc = L->ops->alloc(L->ctx, g->mem, c->bufs[i].bytes, &g->d[i], err);
    if (rc != HS_OK) {
        hs__split_gpu_close(g);
        return rc;
    }
    *out = g;
    return HS_OK;
}

void hs__split_gpu_close(hs__split_gpu *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->c->nbufs; i++)
        g->L->ops->free(g->L->ctx, g->mem, g->d[i]);
    free(g);
}

/* Copies the slices of [b, e) of the buffers with any of `modes` (whole
 * buffers left out) between host and device, all on one stream (the
 * layer's copies into the GPU, or out of it); with want, the event of the
 * last one (which ends after the others) goes to ev[*nev]. */
static int copy_slices(hs__split_gpu *g, void *const *host, size_t b, size_t e, int modes,
                       int to_device, int want, void **ev, int *nev, hs_error *err)
{
    const hs_kconf *c = g->c;
    const hs__mem_ops *ops = g->L->ops;
    size_t off[HS_KMAX_BUFS], len[HS_KMAX_BUFS];
    int last = -1;
    for (int i = 0; i < c->nbufs; i++) {
        len[i] = 0;
        if (!(c->bufs[i].mode & modes) || (c->type->whole_bufs & (1u << i)))
            continue;
        hs_kspan(c, i, b, e, &off[i], &len[i]);
        last = len[i] ? i : last;
    }
    for (int i = 0; i <= last; i++) {
        char *d = (char *)g->d[i] + off[i], *h = (char *)host[i] + off[i];
        void **done = want && i == last ? &ev[*nev] : NULL;
        int rc;
        if (len[i] == 0)
            continue;
        rc = to_device ? ops->copy(g->L->ctx, g->mem, d, HS_HOST_MEMORY, h, len[i], NULL, NULL,
                                   done, err)
                       : ops->copy(g->L->ctx, HS_HOST_MEMORY, h, g->mem, d, len[i], NULL, NULL,
                                   done, err);
        if (rc != HS_OK)
            return rc;
        *nev += done && *done;
    }
    return HS_OK;
}

/* Waits for events ev[0..n): the first error, or rc when set already. */
static int wait_all(hs__split_gpu *g, void *const *ev, int n, int rc, hs_error *err)
{
    for (int i = 0; i < n; i++) {
        int r = g->L->ops->sync(g->L->ctx, ev[i], rc ? NULL : err);
        rc = rc ? rc : r;
    }
    return rc;
}

int hs__split_gpu_prep(hs__split_gpu *g, void *const *in, hs_error *err)
{
    const hs_kconf *c = g->c;
    void *ev[HS_KMAX_BUFS];
    int rc = HS_OK, nev = 0;
    /* copies ahead of the last drive may still be on their way */
    rc = wait_all(g, &g->ahead_done, 1, rc, err);
    g->ahead_done = NULL;
    for (int i = 0; i < c->nbufs && rc == HS_OK; i++)
        if (c->type->whole_bufs & (1u << i)) {
            rc = g->L->ops->copy(g->L->ctx, g->mem, g->d[i], HS_HOST_MEMORY, in[i],
                                 c->bufs[i].bytes, NULL, NULL, &ev[nev], err);
            nev += rc == HS_OK && ev[nev];
        }
    return wait_all(g, ev, nev, rc, err);
}

/* 1 when no buffer cut by items is updated in place: only then may the
 * inputs of items be copied ahead (see the header comment). */
static int may_copy_ahead(const hs_kconf *c)
{
    for (int i = 0; i < c->nbufs; i++)
        if (c->bufs[i].mode == HS_KRW && !(c->type->whole_bufs & (1u << i)))
            return 0;
    return 1;
}

/* Waits for the kernels k[0..n) and every copy: after an error, so that
 * nothing is in flight on the buffers.  Returns rc. */
static int settle(hs__split_gpu *g, void *const *k, size_t n, int rc)
{
    const hs__mem_ops *ops = g->L->ops;
    double s, e;
    void *done;
    for (size_t p = 0; p < n; p++)
        ops->finish(g->L->ctx, k[p], &s, &e, &done, NULL);
    ops->flush(g->L->ctx, NULL);
    g->ahead_done = g->out_done = NULL;
    return rc;
}

int hs__split_gpu_chunk(hs__split_gpu *g, void *const *in, void *const *out, size_t b, size_t e,
                        size_t width, hs_error *err)
{
    const hs_kconf *c = g->c;
    const hs__mem_ops *ops = g->L->ops;
    void *ctx = g->L->ctx, *k[HS_SPLIT_REAL_PIECES], *ev[HS_KMAX_BUFS], *done;
    size_t at[HS_SPLIT_REAL_PIECES + 1], np = hs__split_gpu_pieces(c, e - b, width, at), nk = 0;
    double ks, ke;
    int rc = HS_OK, follows;
    for (size_t p = 0; p < np && rc == HS_OK; p++, nk++) {
        size_t pb = b + at[p], pe = b + at[p + 1];
        int nev = 0;
        if (p == 0 && pb == g->ahead_b && pe <= g->ahead_e) { /* copied ahead */
            ev[0] = g->ahead_done;
            nev = ev[0] != NULL;
        } else if ((rc = copy_slices(g, in, pb, pe, HS_KREAD, 1, 1, ev, &nev, err)) != HS_OK) {
            break;
        }
        if ((rc = ops->launch(ctx, g->mem, c, g->d, pb, pe, ev, nev, &k[nk], err)) != HS_OK)
            break;
    }
    g->ahead_b = g->ahead_e = 0;
    g->ahead_done = NULL;
    follows = g->last_e == SIZE_MAX || g->last_e == b;
    g->last_e = e;
    if (rc == HS_OK && follows && e < c->items && may_copy_ahead(c)) {
        size_t ae = e + width < c->items ? e + width : c->items;
        int n = 0;
        if ((rc = copy_slices(g, in, e, ae, HS_KREAD, 1, 1, &g->ahead_done, &n, err)) ==
            HS_OK) {
            g->ahead_b = e;
            g->ahead_e = ae;
        }
    }
    /* each piece's results go out as soon as its kernel ends; the last
     * one's overlap the next chunk */
    for (size_t p = 0; p < nk && rc == HS_OK; p++) {
        size_t pb = b + at[p], pe = b + at[p + 1];
        int nev = 0;
        if ((rc = ops->finish(ctx, k[p], &ks, &ke, &done, err)) != HS_OK) {
            p++; /* k[p] is finished */
            return settle(g, k + p, nk - p, rc);
        }
        if ((rc = copy_slices(g, out, pb, pe, HS_KWRITE, 0, p == nk - 1, ev, &nev, err)) !=
            HS_OK)
            return settle(g, k + p + 1, nk - p - 1, rc);
        if (nev)
            g->out_done = ev[0];
    }
    return rc == HS_OK ? HS_OK : settle(g, k, nk, rc);
}

int hs__split_gpu_drain(hs__split_gpu *g, hs_error *err)
{
    int rc = g->L->ops->sync(g->L->ctx, g->out_done, err);
    g->out_done = NULL;
    g->ahead_b = g->ahead_e = 0; /* a copy ahead may go on: the next prep waits */
    g->last_e = SIZE_MAX;
    return rc;
}
