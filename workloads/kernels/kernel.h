/* hetsched — the real kernels behind `type:` in a workload (DESIGN.md §3).
 *
 * A kernel type is one struct of function pointers, as a StarPU codelet is:
 * it turns a task's params (`params: {n: 1024}`) into buffers and work items,
 * fills its inputs from a seed, runs on the CPU and on a CUDA stream, and
 * checks outputs against a CPU reference.  Every type lives in one file and
 * is listed in the NULL-terminated registry hs_ktypes[].
 *
 * Using a type (what the executor, calibration and the tests do):
 *
 *     hs_kconf c;
 *     hs_kconf_init(&c, "gemm", params, nparams, &err);  // validates params
 *     // allocate c.bufs[i].bytes for each buffer i < c.nbufs
 *     hs_kfill(&c, bufs);                                  // inputs from c.seed
 *     hs_krun_cpu(&c, bufs, 0, c.items, nthreads, &err);   // or a range
 *     hs_kcheck(&c, before, bufs, &res, &err);             // vs the reference
 *
 * Buffers are listed in a fixed order per type (see each type's description);
 * a buffer is read (HS_KREAD), written without being read (HS_KWRITE) or
 * updated in place (HS_KRW).  Run functions receive every buffer whole and
 * touch only the part that items [begin, end) own: for a splittable type the
 * written bytes of disjoint ranges are disjoint, and running the halves gives
 * the same bytes as running the whole.  All data are 4-byte floats except
 * the pi counts (uint32).  Matrices are row-major.
 *
 * Threads: hs_krun_cpu runs BLAS types on OpenBLAS's threads (nthreads > 0
 * sets OpenBLAS's thread count, which is process-wide; 0 leaves it as it
 * is) and splits the other types' item range over nthreads POSIX threads.
 *
 * CUDA: one hs_kcuda per worker thread (it holds the cuBLAS and cuSOLVER
 * handles of one device).  hs_krun_cuda takes device pointers and a stream,
 * enqueues the work and returns without synchronising: the caller records
 * events and waits.  Without CUDA built in, hs_kcuda_new answers HS_ENOTBUILT.
 */
#ifndef HS_WORKLOADS_KERNEL_H
#define HS_WORKLOADS_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HS_KMAX_PARAMS 8
#define HS_KMAX_BUFS 6

typedef enum hs_kmode { HS_KREAD = 1, HS_KWRITE = 2, HS_KRW = 3 } hs_kmode;

typedef struct hs_kbuf {
    const char *name;  /* "a", "c", ... as in the type's description */
    hs_kmode mode;
    size_t bytes;
} hs_kbuf;

/* One parameter a type accepts.  Values are checked against [min, max]
 * (and to be whole numbers when `integer`).  A `required` one must be
 * given; otherwise it defaults to the value of param `def_param` when that
 * is set (`m` defaults to `n`), else to `def`. */
typedef struct hs_kparam_spec {
    const char *name;
    int required;
    double def;
    const char *def_param;
    double min, max;
    int integer;
    const char *help;
} hs_kparam_spec;

struct hs_ktype;

/* A configured kernel: a type, its resolved params and what follows. */
typedef struct hs_kconf {
    const struct hs_ktype *type;
    double p[HS_KMAX_PARAMS];  /* the type's params in its spec order */
    int nbufs;
    hs_kbuf bufs[HS_KMAX_BUFS];
    size_t items;              /* work items: ranges are within [0, items) */
    int splittable;            /* 1 if a range other than the whole is allowed */
    double flops;              /* floating-point operations of the whole run */
    uint64_t seed;             /* inputs and random numbers; 1 unless set */
} hs_kconf;

/* Result of a check.  `err` is the largest error found in the unit of the
 * type's tolerance (0 for exact types), `bad` how many entries exceeded it. */
typedef struct hs_kcheck_result {
    size_t checked, bad;
    double err, tolerance;
} hs_kcheck_result;

typedef struct hs_kcuda hs_kcuda;         /* per-worker CUDA context */
typedef struct CUstream_st *hs_kstream;   /* == cudaStream_t */

typedef struct hs_ktype {
    const char *name;
    const char *description;     /* one line: what it computes, its buffers */
    const hs_kparam_spec *params;  /* terminated by an entry with name NULL */
    const char *item_unit;       /* what one work item is ("rows", ...) */
    const char *tolerance_doc;   /* how check() compares, one line */
    int blas;                    /* CPU version threads through OpenBLAS */
    size_t grain;                /* smallest item count worth a CPU thread */
    /* Items a GPU chunk of a split is best a multiple of (its width,
     * exec/split_real.c), for types whose CUDA kernel computes tiles of
     * many items (cuBLAS level 3) and runs slowly on a few rows of them.
     * 0: the thread model, 2048 threads per multiprocessor. */
    size_t gpu_grain;
    /* Splitting across memories (exec/split_real.h): bit i set when every
     * item range reads buffer i whole (gemm's b, gemv's x, trsm's l, axpy's
     * num and den, fblock's a for its neighbour planes); such a buffer must
     * be read-only and is copied to a device once.  Every other buffer is
     * cut by items: items [b, e) touch exactly its bytes [b s, e s), s =
     * bytes / items.  0 (the default) cuts every buffer. */
    unsigned whole_bufs;

    /* Fills c->bufs, c->items, c->splittable and c->flops from c->p, which
     * hs_kconf_init has checked against the spec. */
    int (*setup)(hs_kconf *c, hs_error *err);
    /* Fills every read buffer (HS_KREAD, HS_KRW) deterministically from
     * c->seed with values the kernel is well defined on (a symmetric
     * positive definite tile for potrf, ...).  Written-only buffers are
     * left alone, and so is a NULL one (an input another kernel's result
     * feeds, exec/data.h). */
    void (*fill)(const hs_kconf *c, void *const *bufs);
    /* Runs items [begin, end) on the calling thread (BLAS may add its own). */
    int (*run_cpu)(const hs_kconf *c, void *const *bufs, size_t begin, size_t end,
                   hs_error *err);
    /* 1 when CUDA is built in and the type has a CUDA kernel: hs_krun_cuda
     * runs it (the kernels live in the CUDA module, exec/cuda_module.h). */
    int cuda;
    /* Compares `after` (every buffer after a whole run) with a reference
     * computed from `before` (every buffer before it; written-only ones may
     * be NULL).  Fills *res; returns 0, or HS_ECHECK with the first bad
     * entry named. */
    int (*check)(const hs_kconf *c, const void *const *before, const void *const *after,
                 hs_kcheck_result *res, hs_error *err);
} hs_ktype;

/* Every type, NULL-terminated. */
extern const hs_ktype *const hs_ktypes[];

/* The type called `name`, or NULL. */
const hs_ktype *hs_ktype_find(const char *name);

/* hs_ktype_help (include/hetsched/graph.h) lists them. */

/* Resolves `type` with params[0..nparams) into *c.  HS_EINPUT (one line
 * naming the type and the param) for an unknown type, an unknown, repeated,
 * missing, fractional or out-of-range param, or sizes that overflow; when a
 * given param is at fault, err->path names it ("params.n"), else it is "". */
int hs_kconf_init(hs_kconf *c, const char *type, const hs_param *params, int nparams,
                  hs_error *err);

/* Value of the param called `name` (which the type must have). */
double hs_kconf_param(const hs_kconf *c, const char *name);

/* Total bytes of the buffers with any of the mode bits in `modes`
 * (HS_KREAD: everything read, HS_KWRITE: everything written). */
size_t hs_kconf_bytes(const hs_kconf *c, int modes);

/* Fills the inputs (see hs_ktype.fill). */
void hs_kfill(const hs_kconf *c, void *const *bufs);

/* 1 when c's inputs can be filled in pieces by hs_kfill_piece (its type's
 * inputs are uniform values, each from its index alone), 0 when only
 * hs_kfill fills them (a matrix made positive definite, say). */
int hs_kfill_by_pieces(const hs_kconf *c);

/* Writes piece k of n of what hs_kfill writes (c fills by pieces): the
 * same values, into the k-th of n near-equal index ranges of every input
 * buffer (a NULL one skipped), so that n threads can fill them. */
void hs_kfill_piece(const hs_kconf *c, void *const *bufs, size_t k, size_t n);

/* Byte span [*off, *off + *len) of buffer i that items [b, e) touch, by
 * the rule of hs_ktype.whole_bufs: the whole buffer for one in whole_bufs,
 * else bytes [b s, e s), s = bytes / items.  Used wherever a range of items
 * runs in a memory of its own (exec/split_real.c, exec/data.c). */
void hs_kspan(const hs_kconf *c, int i, size_t b, size_t e, size_t *off, size_t *len);

/* 1 when c can be cut by items as hs_kspan says: splittable, every buffer
 * in whole_bufs read-only, every other buffer a whole number of bytes per
 * item. */
int hs_kconf_cuttable(const hs_kconf *c);

/* Runs items [begin, end) on the CPU with `nthreads` threads (0: OpenBLAS's
 * current setting for BLAS types, one thread for the others).  An empty
 * range does nothing.  HS_EINPUT for a bad range, a partial range of a type
 * that is not splittable, or nthreads < 0. */
int hs_krun_cpu(const hs_kconf *c, void *const *bufs, size_t begin, size_t end, int nthreads,
                hs_error *err);

/* Checks a whole run (see hs_ktype.check). */
int hs_kcheck(const hs_kconf *c, const void *const *before, const void *const *after,
              hs_kcheck_result *res, hs_error *err);

/* CUDA context for `device` (cuBLAS and cuSOLVER handles).  HS_ENOTBUILT
 * without CUDA; HS_EIO when the device or a handle cannot be set up. */
int hs_kcuda_new(int device, hs_kcuda **out, hs_error *err);
void hs_kcuda_free(hs_kcuda *ctx);

/* Enqueues items [begin, end) on `stream` of ctx's device; dbufs are device
 * pointers to whole buffers.  Never synchronises.  HS_EIO when a launch or
 * library call fails, HS_ENOTBUILT without CUDA. */
int hs_krun_cuda(const hs_kconf *c, void *const *dbufs, size_t begin, size_t end,
                 hs_kcuda *ctx, hs_kstream stream, hs_error *err);

#ifdef __cplusplus
}
#endif
#endif
