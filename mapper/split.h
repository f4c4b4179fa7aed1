/* hetsched — chunk splitters: one data-parallel kernel of N items divided
 * across several devices (DESIGN.md §6: splitters sit beside policies).
 *
 * Each splitter is one file mapper/split_NAME.c ending in a designated-
 * initializer instance of hs_splitter, and one line in the registry
 * (mapper/split_registry.c); `hetsched split -p help` lists them.
 *
 * The model: every device runs one chunk at a time.  Whenever a device is
 * idle it asks next(); the answer is a chunk [begin, end) to run now, WAIT
 * (ask again when another device finishes a chunk, or at wake_us at the
 * latest), or STOP (nothing more for this device in this run).  When the
 * chunk is done the device reports finished() with the measured duration,
 * transfers in and out included (the weights of HDSS, Boyer's Omega and
 * CoreTSAR's time per iteration are all measured that way).
 *
 * Hook order, for one run:
 *   start      once: kernel, devices, options, and what earlier runs of the
 *              same kernel taught (hs_split_memory, may be empty);
 *   next(d) / finished(d, chunk, us), in any interleaving, one chunk in
 *              flight per device; a device that never answers again (dead)
 *              simply stops calling;
 *   learn      (optional) after a run in which every item finished: store
 *              what the next run should know into the memory;
 *   fini       once at the end, also after a failed run.
 * Times are µs since the start of the run: virtual under the simulator
 * (exec/split_sim.h), from a monotonic clock on real devices.
 *
 * The contract every splitter keeps (tests/test_split.c checks it for all):
 * the chunks whose finished() returned 1 cover every item exactly once.  A
 * splitter with HS_SPLIT_SURVIVES_FAILURE keeps it even when a device stops
 * responding in the middle of a chunk: it takes that chunk back ("revokes"
 * it) and hands it to others, after at most 3 times the chunk's expected
 * time (mapper/split_core.h says when); should the device answer after
 * all, its finished() returns 0 (result discarded) and it takes part again.
 *
 * Threads: the hooks are not reentrant.  A real backend drives a splitter
 * from one thread per device, calling next() and finished() under one mutex
 * (the "global pointer" critical section of HDSS Sec. 3.1); a thread told
 * WAIT sleeps on a condition variable that finished() broadcasts, with
 * wake_us as its timeout.
 */
#ifndef HS_MAPPER_SPLIT_H
#define HS_MAPPER_SPLIT_H

#include <stddef.h>
#include <stdio.h>

#include "hetsched/error.h"
#include "hetsched/graph.h"

#define HS_SPLIT_MAX_DEVICES 64

/* A device as a splitter sees it: what a spec sheet or a performance model
 * says, never what it will measure. */
typedef struct hs_split_device {
    const char *name;
    hs_device_kind kind;
    size_t width;            /* parallel width in items (>= 1): HDSS blocks are
                                multiples of it */
    int cores;               /* CPU cores or GPU multiprocessors; 0 unknown
                                (CoreTSAR's default split uses it) */
    double rate_hint;        /* expected items/µs, transfers included; 0 unknown */
    double overhead_hint_us; /* expected fixed cost per chunk; 0 unknown */
} hs_split_device;

/* The kernel: N items, uniform unless `work` says how much work a range
 * holds (in item units: end - begin for a uniform kernel).  KASS's static
 * partition and the simulator use it; the others only count items. */
typedef struct hs_split_kernel {
    const char *name;
    size_t items;
    double (*work)(const void *ctx, size_t begin, size_t end);
    const void *work_ctx;
} hs_split_kernel;

/* Tunables; 0 (or NULL) means the splitter's default, given in brackets.
 * `hetsched split -o KEY=VALUE` sets them by name (hs_split_option_set). */
typedef struct hs_split_options {
    size_t chunk;            /* fixed: chunk size [ceil(N / 8P)]; gss, fss, tss:
                                smallest chunk [1] */
    size_t initial_block;    /* hdss, tse-*: first block, rounded up to the
                                device's width [128] */
    size_t block_factor;     /* hdss, tse-linear: growth step [128] */
    double min_change_rate;  /* hdss: a weight is stable below this [0.01] */
    double adaptive_max;     /* hdss: adaptive phase at most this share [0.2] */
    double standby_below;    /* hdss: a device whose speed hint is below this
                                share of the fastest one's stands by [0.05] */
    double beta;             /* boyer: first chunk, share of N [0.07] */
    double delta;            /* boyer: chunk growth [1.5] */
    int gamma;               /* boyer: chunks each device finishes first [2] */
    double kass_delta;       /* kass: Delta of eq. (7) [0.1] */
    size_t alpha;            /* kass: smallest chunk [2 T_cs / mu from hints, >= 1] */
    int theta;               /* kass: eq. (8) threshold [1] */
    int schedule;            /* coretsar: HS_CORETSAR_* [split] */
    int div;                 /* coretsar: sub-regions of Split and Quick [10] */
    int backoff;             /* coretsar: slow passes before a GPU is dropped [2] */
    double tse_factor;       /* tse-exp: growth factor m [2] */
    size_t wave_rows, wave_cols; /* hdss wavefront mode (-o wavefront=ROWSxCOLS):
                                the items form a grid of tiles, see
                                hs_split_wave below [0: off] */
    int hdss_plain;          /* hdss: our additions to turn off, a mask of
                                HS_HDSS_* (7: the paper's rules only) [0] */
    int no_takeback;         /* the caller never loses a device within a chunk
                                (the engine, which has its own failure path):
                                no chunk is taken back, however late [0] */
} hs_split_options;

enum { HS_CORETSAR_SPLIT = 0, HS_CORETSAR_STATIC, HS_CORETSAR_ADAPTIVE, HS_CORETSAR_QUICK };
/* hdss additions (mapper/split_hdss.c), bits of hs_split_options.hdss_plain */
enum { HS_HDSS_FIT = 1, HS_HDSS_EVEN_START = 2, HS_HDSS_STANDBY = 4 };

/* What a splitter keeps from one run of a kernel for the next run of the
 * same kernel on the same devices (CoreTSAR Adaptive, Qilin's model, KASS's
 * k_i).  Zero it before the first run; the splitter's learn hook fills it. */
typedef struct hs_split_memory {
    int runs;                                  /* runs learned from so far */
    int ndevices;
    double us_per_item[HS_SPLIT_MAX_DEVICES];  /* last measured, 0 unknown */
    double model_a[HS_SPLIT_MAX_DEVICES];      /* qilin: T(B) = a + b B µs */
    double model_b[HS_SPLIT_MAX_DEVICES];
    double k[HS_SPLIT_MAX_DEVICES];            /* kass: chunk factors (eq. 8) */
    int slow_passes[HS_SPLIT_MAX_DEVICES];     /* coretsar back-off counters */
    int dropped[HS_SPLIT_MAX_DEVICES];         /* coretsar: backed off */
} hs_split_memory;

typedef enum hs_split_answer { HS_SPLIT_CHUNK = 0, HS_SPLIT_WAIT, HS_SPLIT_STOP } hs_split_answer;

typedef struct hs_split_grant {
    size_t begin, end;       /* CHUNK: items [begin, end), begin < end */
    double wake_us;          /* WAIT: ask again by then (HUGE_VAL: only after
                                another device's finished) */
} hs_split_grant;

enum {
    HS_SPLIT_SURVIVES_FAILURE = 1 << 0, /* re-issues the chunk of a dead device */
    HS_SPLIT_LEARNS = 1 << 1,           /* uses hs_split_memory across runs */
    HS_SPLIT_TRAINS = 1 << 2,           /* meant to run after a training run */
    HS_SPLIT_WAVEFRONT = 1 << 3,        /* honours -o wavefront (hs_split_wave) */
};

typedef struct hs_splitter {
    const char *name;        /* as given to -p */
    const char *description; /* one line for `split -p help` */
    unsigned flags;          /* HS_SPLIT_* */
    /* Devices are 0..ndev-1 in dev[] order; dev[] and k stay valid until
     * fini.  mem may be NULL (nothing learned). */
    int (*start)(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                 const hs_split_options *opt, const hs_split_memory *mem, void **state,
                 hs_error *err);
    hs_split_answer (*next)(void *state, int device, double now_us, hs_split_grant *g);
    /* Returns 1 if the chunk's result counts, 0 if it was revoked meanwhile. */
    int (*finished)(void *state, int device, size_t begin, size_t end, double measured_us,
                    double now_us);
    void (*learn)(void *state, hs_split_memory *mem);
    void (*fini)(void *state);
} hs_splitter;

/* The registered splitters, NULL-terminated, in `-p help` order; one by
 * name (NULL if none); the listing `-p help` prints. */
const hs_splitter *const *hs_splitter_list(void);
const hs_splitter *hs_splitter_find(const char *name);
void hs_splitter_help(FILE *out);

/* Sets one option from "KEY=VALUE" (the keys are the field names above;
 * schedule takes static|adaptive|split|quick).  HS_EINPUT naming the key for
 * an unknown key or a value out of range. */
int hs_split_option_set(hs_split_options *opt, const char *assignment, hs_error *err);
/* HS_EINPUT naming the first option that opt sets (non-zero) and that
 * splitter sp does not read, with the splitters that do; HS_OK otherwise
 * (also for opt NULL). */
int hs_split_options_check(const hs_split_options *opt, const hs_splitter *sp, hs_error *err);
/* Writes the option keys with their meaning, one per line. */
void hs_split_option_help(FILE *out);

/* ------------------------------------------------------------ wavefront
 * HDSS Sec. 3.3: a 2-D loop whose iterations depend on their upper and left
 * neighbours.  With -o wavefront=ROWSxCOLS the N items form ROWS x COLS
 * tiles laid out column by column (a column of tiles is one of HDSS's
 * "strides"): tile (r, c) has index t = c ROWS + r and holds items
 * [begin(t), begin(t + 1)), the first N mod (ROWS COLS) tiles one item more
 * than the others.  Tile (r, c) may start once (r - 1, c) and (r, c - 1)
 * have finished.  A chunk covers whole tiles; a device runs its chunk's
 * items in order, so a tile may depend on an earlier tile of its own chunk.
 * A splitter with HS_SPLIT_WAVEFRONT hands out only tiles whose other
 * dependencies have finished; the chunk simulator and the thread driver
 * check that with hs_split_wave_log and fail the run otherwise. */
typedef struct hs_split_wave {
    size_t rows, cols, items;
} hs_split_wave;

/* First item of tile t (0 <= t <= rows cols; t = rows cols gives items). */
size_t hs_split_wave_begin(const hs_split_wave *w, size_t t);
/* The tile holding item i (< items). */
size_t hs_split_wave_tile(const hs_split_wave *w, size_t i);

/* When each tile finished, to check a run against the dependencies. */
typedef struct hs_split_wave_log {
    hs_split_wave w;      /* rows 0: no wavefront, every call below a no-op */
    double *done_us;      /* [rows cols]: end of its accepted chunk, NAN none */
} hs_split_wave_log;

/* Sets the log up for splitter sp on N items with options opt (NULL or
 * without wavefront: off).  HS_EINPUT when sp has no wavefront mode or the
 * grid does not fit N (ROWS COLS tiles need N >= ROWS COLS). */
int hs_split_wave_log_init(hs_split_wave_log *log, const hs_splitter *sp,
                           const hs_split_options *opt, size_t items, hs_error *err);
/* Chunk [b, e) starts at `now`: HS_EINTERNAL, naming the tile, when it does
 * not cover whole tiles or when a tile's upper or left neighbour outside
 * the chunk has not finished by now. */
int hs_split_wave_log_start(const hs_split_wave_log *log, const char *splitter, size_t b,
                            size_t e, double now, hs_error *err);
/* Chunk [b, e) was accepted at `now`. */
void hs_split_wave_log_done(hs_split_wave_log *log, size_t b, size_t e, double now);
void hs_split_wave_log_free(hs_split_wave_log *log);

#endif
