/* hetsched — the wavefront grid of HDSS Sec. 3.3 and the log that checks a
 * run against its dependencies (mapper/split.h, "wavefront"). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mapper/split.h"

size_t hs_split_wave_begin(const hs_split_wave *w, size_t t)
{
    size_t n = w->rows * w->cols, q = w->items / n, rem = w->items % n;
    return t * q + (t < rem ? t : rem);
}

size_t hs_split_wave_tile(const hs_split_wave *w, size_t i)
{
    size_t n = w->rows * w->cols, q = w->items / n, rem = w->items % n;
    if (i < rem * (q + 1))
        return i / (q + 1);
    return rem + (i - rem * (q + 1)) / q;
}

int hs_split_wave_log_init(hs_split_wave_log *log, const hs_splitter *sp,
                           const hs_split_options *opt, size_t items, hs_error *err)
{
    size_t r = opt ? opt->wave_rows : 0, c = opt ? opt->wave_cols : 0, n;
    log->w = (hs_split_wave){0, 0, items};
    log->done_us = NULL;
    if (r == 0 && c == 0)
        return HS_OK;
    if (sp && !(sp->flags & HS_SPLIT_WAVEFRONT))
        return hs_error_set(err, HS_EINPUT, "splitter '%s' has no wavefront mode (hdss has)",
                            sp->name);
    if (r == 0 || c == 0 || r > SIZE_MAX / c || (n = r * c) > items)
        return hs_error_set(err, HS_EINPUT,
                            "wavefront %zux%zu: needs at least one tile each way and no more "
                            "tiles than the %zu items",
                            r, c, items);
    if (!(log->done_us = malloc(n * sizeof *log->done_us)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    for (size_t t = 0; t < n; t++)
        log->done_us[t] = NAN;
    log->w = (hs_split_wave){r, c, items};
    return HS_OK;
}

/* Has tile t finished by `now`? */
static int finished_by(const hs_split_wave_log *log, size_t t, double now)
{
    return !isnan(log->done_us[t]) && log->done_us[t] <= now;
}

int hs_split_wave_log_start(const hs_split_wave_log *log, const char *splitter, size_t b,
                            size_t e, double now, hs_error *err)
{
    const hs_split_wave *w = &log->w;
    size_t t0, t1;
    if (w->rows == 0)
        return HS_OK;
    t0 = hs_split_wave_tile(w, b);
    t1 = hs_split_wave_tile(w, e - 1) + 1;
    if (hs_split_wave_begin(w, t0) != b || hs_split_wave_begin(w, t1) != e)
        return hs_error_set(err, HS_EINTERNAL,
                            "splitter '%s' handed out [%zu, %zu), which cuts a wavefront tile",
                            splitter, b, e);
    for (size_t t = t0; t < t1; t++) {
        size_t r = t % w->rows, c = t / w->rows;
        /* the upper neighbour t - 1 and the left one t - rows come before t
         * in item order: inside the chunk they run first */
        if ((r > 0 && t - 1 < t0 && !finished_by(log, t - 1, now)) ||
            (c > 0 && t - w->rows < t0 && !finished_by(log, t - w->rows, now)))
            return hs_error_set(err, HS_EINTERNAL,
                                "splitter '%s' started wavefront tile (%zu, %zu) at %.3f us "
                                "before its upper or left neighbour finished",
                                splitter, r, c, now);
    }
    return HS_OK;
}

void hs_split_wave_log_done(hs_split_wave_log *log, size_t b, size_t e, double now)
{
    const hs_split_wave *w = &log->w;
    if (w->rows == 0)
        return;
    for (size_t t = hs_split_wave_tile(w, b); t <= hs_split_wave_tile(w, e - 1); t++)
        log->done_us[t] = now;
}

void hs_split_wave_log_free(hs_split_wave_log *log)
{
    free(log->done_us);
    log->done_us = NULL;
    log->w.rows = 0;
}
