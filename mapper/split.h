/* hetsched — chunk splitters' internals; the API (the splitter struct, its
 * hook order and contract, the options): include/hetsched/split.h. */
#ifndef HS_MAPPER_SPLIT_H
#define HS_MAPPER_SPLIT_H

#include <stddef.h>

#include "hetsched/split.h"

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
