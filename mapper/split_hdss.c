/* hetsched — `hdss`: the Heterogeneous Dynamic Self-Scheduler of Belviranli,
 * Bhuyan & Gupta (ACM TACO 2013), Sec. 3.2.
 *
 * Adaptive phase: each device starts with a block of -o initial_block items
 * (128, rounded up to a multiple of its parallel width) and, while its
 * weight (items/µs of its last block, transfers included) is not stable,
 * grows it by -o block_factor (128, rounded likewise).  A weight is stable
 * once it moves by less than MIN_CHANGE_RATE (-o min_change_rate, 0.01)
 * relative to the previous one.  From 4 measured points on, a least-squares
 * fit w(x) = a ln x + b (gsl_fit_linear on ln x) says where the weight
 * stops growing, and the device jumps there.  The paper's "point where the
 * slope of the fitted curve is equal to a / MIN_CHANGE_RATE" is ambiguous;
 * we read it as the point where the fitted weight reaches a / mcr, i.e.
 * where a 1% larger block buys less than mcr of a percent of weight:
 * ln x* = 1 / mcr - b / a.  On a log curve that point lies far out (the
 * jump of HDSS Sec. 4, from 8192 to 8M items), so it is capped by the
 * device's weighted share w_d / sum w of what the adaptive phase may still
 * hand out: a slow device never jumps to a block it would take long over.
 * A stable device keeps its block size.  The phase ends when every device
 * is stable or when -o adaptive_max (20%) of the items have been handed out
 * in it.
 *
 * Completion phase (MGSS, eq. (2)): a device asking gets
 * B = R w_i / sum_j w_j of the R items left, with the weights measured on
 * the adaptive blocks (a device never measured counts with the rate it has
 * at least achieved so far on its block in flight, else its hint), rounded
 * up to its width.  The weights are not updated any more: a device slowed
 * down after the adaptive phase keeps its large share, a limit of the
 * algorithm (the paper's remedy: min_change_rate near 0, adaptive_max 1).
 *
 * Wavefront mode (Sec. 3.3, -o wavefront=ROWSxCOLS; the grid of tiles and
 * its item layout are in mapper/split.h): the strides are the columns of
 * tiles, each worked top to bottom, one chunk of it at a time.  Column c
 * is ready from its next tile down to the last tile whose left neighbour
 * has finished (column 0: to the bottom).  The device with the largest
 * weight takes the ready column whose next tile lies on the earliest
 * anti-diagonal (r + c least, then the leftmost): the wave that holds the
 * others back goes first; a slower device takes the one on the latest
 * anti-diagonal, whose successors are needed last.  The block size comes
 * from the same two phases, with the remaining iteration space limited to
 * the ready tiles of that column, as the paper says: B = R_ready w_i / sum
 * w (eq. (2)), in the adaptive phase also no larger than the adaptive
 * block; a block becomes whole tiles (rounded to the nearest, at least
 * one, at most the ready ones).  Our addition, as the paper leaves it open:
 * on a wavefront a slow device holding a tile stalls everything behind it,
 * so a device leaves its block to a faster device that would end it
 * sooner, i.e. whose chunk in flight ends, plus the block at its weight,
 * before this device would end the block (it then waits for the next
 * report), or that is waiting for work (it waits as long as the block
 * would take it, by which time the faster one has asked; a device that
 * never asks again is not waited for twice).  A CPU 20-40x slower than
 * the GPU (the pi and xgemm-rows profiles) thus leaves the wave to the GPU
 * instead of delaying it.  A device that finds nothing ready waits for the
 * next finished chunk.  Since a column holds at most one chunk in flight,
 * no tile is handed out before its upper and left neighbours have
 * finished, except the upper one inside its own chunk.
 *
 * A device that stops answering loses its block to the others
 * (mapper/split_core.h), and drops out of sum_j w_j.
 *
 * Our additions (-o hdss_plain=SUM of the numbers below turns
 * them off): a device much slower than the others (a CPU 40x slower than
 * an H100 on an xgemm by rows) made the paper's rules slower than the GPU
 * alone: its first block alone outlasted the GPU's whole run, and eq. (2)
 * near the end handed it slivers far below the blocks its weight was
 * measured on.  So (1, fit_in_time) a measured device gets a block only if
 * it ends it before the others would end all that is left, else a smaller
 * one, else it waits (a back-off from measured weights, as in CoreTSAR);
 * (2, even_start) with speed hints no first block is expected to outlast
 * the quickest one; (4, standby) with speed hints a device slower than
 * -o standby_below (5%) of the fastest one takes no items while a faster
 * one runs: it can shorten the run by less than that share, and even one
 * block of it cost more on an H200 (14 rows of a CPU gemm, 0.17% of the
 * items, packed all of B for 12 ms and slowed the GPU's copy of B by 0.6
 * ms, 2% of the run).  It still takes over the chunk of a device that
 * stops answering, and the pool once no faster device is left.  When one
 * device is left taking part, the adaptive phase has no weights to tell
 * apart and is skipped: eq. (2) hands that device every item at once (its
 * three adaptive blocks had cost an H200 1% of a pi or an xgemm, against
 * the GPU alone).  None applies in wavefront mode, which has its own rule
 * (above).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_fit.h>

#include "mapper/split_core.h"

#define HDSS_FIT_POINTS 4   /* points before the log fit (Sec. 3.2) */
#define HDSS_MAX_POINTS 64  /* adaptive points kept per device */

typedef struct hdss_dev {
    size_t init, factor;    /* first block and growth step, multiples of width */
    size_t block;           /* last adaptive block handed out (0: none yet) */
    int in_adaptive;        /* the block in flight belongs to the adaptive phase */
    int npoints;
    double x[HDSS_MAX_POINTS], w[HDSS_MAX_POINTS]; /* block size, weight */
    double weight;          /* last adaptive weight, items/µs; 0 unknown */
    int stable;
    int standby;            /* too slow to take part while faster ones run */
} hdss_dev;

typedef struct hdss {
    hs__split_core core;
    double mcr;             /* MIN_CHANGE_RATE */
    size_t cap;             /* items the adaptive phase may hand out */
    size_t adaptive_given;
    int completion;
    int plain;              /* HS_HDSS_* additions turned off */
    hdss_dev v[HS_SPLIT_MAX_DEVICES];
    hs_split_wave wave;     /* rows 0: not in wavefront mode */
    size_t *next_row;       /* [cols]: first tile of the column not handed out */
    size_t *done_row;       /* [cols]: tiles of the column finished (a prefix) */
    size_t asks;            /* next() calls so far */
    double standby_until;   /* standing-by devices wait for the others until
                               then (0: not waiting) */
    size_t wait_seq[HS_SPLIT_MAX_DEVICES];  /* ask that told it to wait; 0: not waiting */
    size_t defer_seq[HS_SPLIT_MAX_DEVICES]; /* ask at which it last left work to a
                                               waiting device; 0: never */
} hdss;

/* Our addition (HS_HDSS_EVEN_START; the paper gives every device the same
 * initial block, 128 items): with speed hints, no first block is expected
 * to take longer than the quickest one, overhead_hint + init / rate_hint,
 * and none is cut below one width.  A CPU 40x slower than the GPU would
 * otherwise spend on its 135 first rows of an xgemm (9 widths of 15
 * threads) longer than the GPU on the whole kernel; with one width it ends
 * them in time and measures its weight.  Devices without a hint keep the
 * paper's block. */
static void even_start(hdss *s, const hs_split_device *dev, int ndev)
{
    double t0 = HUGE_VAL;
    for (int d = 0; d < ndev; d++)
        if (dev[d].rate_hint > 0) {
            double t = dev[d].overhead_hint_us + (double)s->v[d].init / dev[d].rate_hint;
            t0 = t < t0 ? t : t0;
        }
    for (int d = 0; d < ndev; d++) {
        double b = (t0 - dev[d].overhead_hint_us) * dev[d].rate_hint;
        if (dev[d].rate_hint > 0 && b < (double)s->v[d].init)
            s->v[d].init = hs__split_round_up(b > 1 ? (size_t)ceil(b) : 1, dev[d].width);
    }
}

/* Our addition (HS_HDSS_STANDBY, see the header comment): with every
 * device's speed hint known, a device slower than `below` of the fastest
 * stands by. */
static void standby(hdss *s, const hs_split_device *dev, int ndev, double below)
{
    double fastest = 0;
    int active = 0;
    for (int d = 0; d < ndev; d++) {
        if (!(dev[d].rate_hint > 0))
            return;
        fastest = dev[d].rate_hint > fastest ? dev[d].rate_hint : fastest;
    }
    for (int d = 0; d < ndev; d++) {
        s->v[d].standby = dev[d].rate_hint < below * fastest;
        active += !s->v[d].standby;
    }
    if (active == 1 && ndev > 1) /* nothing to weigh: eq. (2) hands it all */
        s->completion = 1;
}

/* A standing-by device d asks: taken-back work or WAIT (hs__split_idle)
 * while a faster device holds a chunk; when none does and items are left,
 * the faster ones have not asked yet (their threads start later) or
 * stopped answering before their first chunk: WAIT until the fastest would
 * have done every item by its hint, then d takes part (returns 0; also
 * when no faster device is left). */
static int standby_next(hdss *s, int d, double now, hs_split_grant *g, hs_split_answer *a)
{
    double fastest = 0;
    int active = 0;
    for (int e = 0; e < s->core.ndev; e++) {
        const hs__split_dev *x = &s->core.d[e];
        if (e == d || s->v[e].standby || x->retired)
            continue;
        active = 1;
        fastest = s->core.dev[e].rate_hint > fastest ? s->core.dev[e].rate_hint : fastest;
        if (x->busy && !x->revoked) {
            *a = hs__split_idle(&s->core, d, now, g);
            return 1;
        }
    }
    if (active && hs__split_left(&s->core) > 0) {
        if (s->standby_until == 0)
            s->standby_until = now + (double)s->core.items / fastest;
        if (now < s->standby_until) {
            g->wake_us = s->standby_until;
            *a = HS_SPLIT_WAIT;
            return 1;
        }
    }
    if (active && hs__split_left(&s->core) == 0) {
        *a = hs__split_idle(&s->core, d, now, g);
        return 1;
    }
    s->v[d].standby = 0;
    return 0;
}

static int hdss_start(const hs_split_kernel *k, const hs_split_device *dev, int ndev,
                      const hs_split_options *opt, const hs_split_memory *mem, void **state,
                      hs_error *err)
{
    hs_split_options o = {0};
    double amax;
    hdss *s;
    int rc;
    (void)mem;
    if (opt)
        o = *opt;
    amax = o.adaptive_max > 0 ? o.adaptive_max : 0.2;
    if (amax > 1 || (o.min_change_rate != 0 && !(o.min_change_rate > 0)))
        return hs_error_set(err, HS_EINPUT,
                            "hdss: adaptive_max must be in (0, 1], min_change_rate > 0");
    if (!(s = calloc(1, sizeof *s)))
        return hs_error_set(err, HS_ENOMEM, "out of memory");
    if ((rc = hs__split_core_init(&s->core, k, dev, ndev, !(opt && opt->no_takeback), err)) != HS_OK) {
        free(s);
        return rc;
    }
    s->mcr = o.min_change_rate > 0 ? o.min_change_rate : 0.01;
    s->cap = (size_t)ceil(amax * (double)k->items);
    s->plain = o.hdss_plain;
    for (int d = 0; d < ndev; d++) {
        s->v[d].init = hs__split_round_up(o.initial_block ? o.initial_block : 128, dev[d].width);
        s->v[d].factor = hs__split_round_up(o.block_factor ? o.block_factor : 128, dev[d].width);
    }
    if (!(s->plain & HS_HDSS_EVEN_START))
        even_start(s, dev, ndev);
    if (!(s->plain & HS_HDSS_STANDBY) && !o.wave_rows && !o.wave_cols)
        standby(s, dev, ndev, o.standby_below > 0 ? o.standby_below : 0.05);
    if (o.wave_rows || o.wave_cols) {
        if (!o.wave_rows || !o.wave_cols || o.wave_rows > k->items / o.wave_cols) {
            hs__split_core_free(&s->core);
            free(s);
            return hs_error_set(err, HS_EINPUT, "hdss: wavefront %zux%zu needs at least one "
                                "tile each way and no more tiles than the %zu items",
                                o.wave_rows, o.wave_cols, k->items);
        }
        s->wave = (hs_split_wave){o.wave_rows, o.wave_cols, k->items};
        s->next_row = calloc(o.wave_cols, sizeof *s->next_row);
        s->done_row = calloc(o.wave_cols, sizeof *s->done_row);
        s->core.next = k->items; /* the pool is unused: tiles are cut here */
        s->asks = 1;             /* every device asks at the start: until then */
        for (int d = 0; d < ndev; d++) /* it counts as waiting */
            s->wait_seq[d] = 1;
        if (!s->next_row || !s->done_row) {
            free(s->next_row);
            free(s->done_row);
            hs__split_core_free(&s->core);
            free(s);
            return hs_error_set(err, HS_ENOMEM, "out of memory");
        }
    }
    *state = s;
    return HS_OK;
}

/* Where the fitted curve w(x) = a ln x + b flattens out (see the header
 * comment): ln x* = 1 / mcr - b / a, the block from which one more percent
 * of block size buys less than mcr of a percent of weight.  Returns ln x*,
 * or -HUGE_VAL when the fit shows no growth to chase. */
static double fitted_log_block(const hdss_dev *v, double mcr)
{
    double xs[HDSS_MAX_POINTS], a, b, c00, c01, c11, ss;
    for (int i = 0; i < v->npoints; i++)
        xs[i] = log(v->x[i]);
    if (gsl_fit_linear(xs, 1, v->w, 1, (size_t)v->npoints, &b, &a, &c00, &c01, &c11, &ss) !=
            0 ||
        !(a > 0) || !isfinite(b))
        return -HUGE_VAL;
    return 1 / mcr - b / a;
}

/* Weight of device d for MGSS: measured, else what its block in flight has
 * at least achieved so far, else its hint. */
static double mgss_weight(const hdss *s, int d, double now)
{
    const hs__split_dev *x = &s->core.d[d];
    if (s->v[d].weight > 0)
        return s->v[d].weight;
    if (x->busy && now > x->issued_us)
        return (double)(x->e - x->b) / (now - x->issued_us);
    return s->core.dev[d].rate_hint;
}

/* The next adaptive block of device d: the first block, the last one when
 * stable, the last plus a growth step for the first HDSS_FIT_POINTS blocks,
 * then the flattening point of the log fit, capped by d's weighted share
 * (as MGSS would cut it) of what the adaptive phase may still hand out. */
static size_t adaptive_block(hdss *s, int d, double now)
{
    hdss_dev *v = &s->v[d];
    double want = (double)(v->block + v->factor);
    if (v->block == 0)
        return v->init;
    if (v->stable)
        return v->block;
    if (v->npoints >= HDSS_FIT_POINTS) {
        double lx = fitted_log_block(v, s->mcr), sum = 0, budget;
        for (int j = 0; j < s->core.ndev; j++)
            if (!s->core.d[j].retired && !s->v[j].standby)
                sum += mgss_weight(s, j, now);
        budget = (double)(s->cap - s->adaptive_given);
        if (sum > 0)
            budget *= mgss_weight(s, d, now) / sum;
        if (lx > -HUGE_VAL)
            want = budget > 1 && lx < log(budget) ? exp(lx) : budget;
        if (want < (double)(v->block + v->factor))
            want = (double)(v->block + v->factor);
    }
    if (want >= (double)s->core.items)
        return s->core.items;
    return hs__split_round_up((size_t)want, s->core.dev[d].width);
}

/* eq. (2): B = R w_d / sum_j w_j over the devices still in the run (not
 * standing by). */
static size_t mgss_block(hdss *s, int d, size_t left, double now)
{
    double sum = 0, wd = mgss_weight(s, d, now), b;
    for (int j = 0; j < s->core.ndev; j++)
        if (!s->core.d[j].retired && !s->v[j].standby)
            sum += mgss_weight(s, j, now);
    if (!(wd > 0) || !(sum > 0))
        return hs__split_round_up((left + (size_t)s->core.ndev - 1) / (size_t)s->core.ndev,
                                  s->core.dev[d].width);
    b = ceil((double)left * wd / sum);
    if (b >= (double)left)
        return left;
    return hs__split_round_up(b < 1 ? 1 : (size_t)b, s->core.dev[d].width);
}

/* Our addition (HS_HDSS_FIT; the paper hands every asking device a block):
 * a device gets a block only if it would end it, at its measured weight,
 * no later than the other devices would end all that is left, so that
 * giving it never delays the run (the others then end earlier, it ends in
 * time).  The others' end is the water level of eq. (1)-(3) of Boyer et
 * al. from the expected ends of their chunks in flight, at their measured
 * weights; a device whose chunk is overdue by the chunk's own expected
 * length (it may have stopped answering) or that has not measured anything
 * yet does not count, so nobody waits on it.  A weight holds for blocks no
 * smaller than those it was measured on (the premise of the a ln x + b
 * fit: weights grow with the block), so a block is never cut below the
 * smallest measured one, and d's time is taken at its smallest measured
 * weight (the pessimistic one).  A block that does not end in time is cut
 * to whole widths that do; if even the smallest measured block does not,
 * d waits until the others report (or until they would be done; only
 * while one of them is busy, so that devices never wait on each other), which
 * keeps a CPU 40x slower than the GPU from ending an xgemm long after the
 * GPU could have (the back-off of CoreTSAR, from measured weights).  In the
 * completion phase eq. (2)'s block is first raised to that smallest block.
 * A device not measured yet gets b: HDSS must measure it.
 * Returns the block, or 0 to wait with *wake set. */
static size_t fit_in_time(hdss *s, int d, size_t b, size_t left, double now, double *wake)
{
    const hdss_dev *v = &s->v[d];
    double lambda[HS_SPLIT_MAX_DEVICES], omega[HS_SPLIT_MAX_DEVICES], level, end;
    double wmin = 0, least = 0, fit;
    size_t width = s->core.dev[d].width;
    int others = 0, busy = 0;
    if ((s->plain & HS_HDSS_FIT) || v->npoints == 0 || b == 0)
        return b;
    for (int i = 0; i < v->npoints; i++) {
        if (least == 0 || v->x[i] < least)
            least = v->x[i];
        if (wmin == 0 || v->w[i] < wmin)
            wmin = v->w[i];
    }
    if (s->completion && (double)b < least)
        b = least < (double)left ? (size_t)least : left;
    if (b > left)
        b = left;
    for (int i = 0, xi = 0; i < v->npoints; i++) /* the weight of the largest */
        if (v->x[i] <= (double)b && v->x[i] >= xi) { /* block measured up to b */
            xi = (int)v->x[i];
            wmin = v->w[i];
        }
    for (int j = 0; j < s->core.ndev; j++) {
        const hs__split_dev *x = &s->core.d[j];
        double wj = s->v[j].weight, free_at = now;
        lambda[j] = 0;
        omega[j] = HUGE_VAL; /* takes no part */
        if (j == d || x->retired || !(wj > 0))
            continue;
        if (x->busy && !x->revoked) {
            free_at = x->issued_us + (double)(x->e - x->b) / wj;
            if (now > 2 * free_at - x->issued_us)
                continue; /* overdue by its own length */
        }
        lambda[j] = free_at > now ? free_at - now : 0;
        omega[j] = 1 / wj;
        others++;
        busy += x->busy && !x->revoked;
    }
    if (!others || !(wmin > 0))
        return b;
    end = hs__split_level(s->core.ndev, lambda, omega, d, (double)left, &level);
    if ((double)b / wmin <= end)
        return b;
    fit = floor((end * wmin) / (double)width) * (double)width;
    if (fit >= least && fit >= 1)
        return (size_t)fit;
    if (!busy)
        return b; /* only a report would wake it: with nobody busy, nobody
                     may be left waiting on the others */
    *wake = now + end;
    return 0;
}

static int all_stable(const hdss *s)
{
    for (int d = 0; d < s->core.ndev; d++)
        if (!s->core.d[d].retired && !s->v[d].stable)
            return 0;
    return 1;
}

/* Wavefront: is there a device faster than d that would finish `items`
 * items sooner than d from now?  A busy one counts after its chunk in
 * flight (1); a waiting one counts as free now (2), unless d already left
 * work to it and it has not asked since (a device that stopped answering
 * while waiting is not waited for twice).  0: none. */
static int faster_device(const hdss *s, int d, double items, double now)
{
    double wd = mgss_weight(s, d, now);
    int found = 0;
    for (int f = 0; f < s->core.ndev; f++) {
        const hs__split_dev *x = &s->core.d[f];
        double wf = mgss_weight(s, f, now), free_at;
        if (f == d || x->retired || !(wf > wd))
            continue;
        if (x->busy && !x->revoked) {
            free_at = x->issued_us + (double)(x->e - x->b) / wf;
            if (free_at < now)
                free_at = now;
            if (!(wd > 0) || free_at + items / wf < now + items / wd)
                return 1;
        } else if (s->wait_seq[f] > s->defer_seq[d]) {
            found = 2;
        }
    }
    return found;
}

/* Wavefront mode (see the header comment): the ready column on the
 * earliest anti-diagonal and its ready tiles, or nothing ready (taken-back
 * chunks are handed out whole by hs__split_idle). */
static hs_split_answer wave_next(hdss *s, int d, double now, hs_split_grant *g)
{
    const hs_split_wave *w = &s->wave;
    size_t best = SIZE_MAX, c = 0, ready = 0, t0, nt, b, e;
    double want, tile = (double)w->items / (double)(w->rows * w->cols);
    hs_split_answer a;
    int fastest = 1;
    for (int f = 0; f < s->core.ndev; f++)
        if (f != d && !s->core.d[f].retired && mgss_weight(s, f, now) > mgss_weight(s, d, now))
            fastest = 0;
    for (size_t j = 0; j < w->cols; j++) {
        size_t limit = j == 0 ? w->rows : s->done_row[j - 1];
        /* key: the anti-diagonal, the fastest device's least first, the
         * others' greatest first (as SIZE_MAX - ...), then the leftmost */
        size_t key = fastest ? s->next_row[j] + j : SIZE_MAX - 1 - (s->next_row[j] + j);
        if (s->done_row[j] == s->next_row[j] && s->next_row[j] < limit && key < best) {
            best = key;
            c = j;
            ready = limit - s->next_row[j];
        }
    }
    if (s->core.nagain > 0 || best == SIZE_MAX)
        return hs__split_idle(&s->core, d, now, g); /* hdss_next tracks the WAIT */
    t0 = c * w->rows + s->next_row[c];
    b = hs_split_wave_begin(w, t0);
    if (!s->completion && (all_stable(s) || s->adaptive_given >= s->cap))
        s->completion = 1;
    /* eq. (2) on the ready items; an adaptive block is no larger */
    want = (double)mgss_block(s, d, hs_split_wave_begin(w, t0 + ready) - b, now);
    if (!s->completion) {
        double ad = (double)adaptive_block(s, d, now), room = (double)(s->cap - s->adaptive_given);
        want = ad < want ? ad : want;
        want = room < want ? room : want;
    }
    /* whole tiles, rounded to the nearest (at least one); a device that
     * would end them later than a faster device could leaves them to it:
     * to a busy one until it reports (or is judged dead), to a waiting one
     * for as long as that one would take, by which time it has asked */
    nt = (size_t)floor(want / tile + 0.5);
    nt = nt < 1 ? 1 : nt < ready ? nt : ready;
    switch (faster_device(s, d, (double)nt * tile, now)) {
    case 1:
        return hs__split_idle(&s->core, d, now, g);
    case 2:
        s->defer_seq[d] = s->asks;
        g->wake_us = now + (mgss_weight(s, d, now) > 0
                                ? (double)nt * tile / mgss_weight(s, d, now)
                                : 1.0);
        return HS_SPLIT_WAIT;
    }
    e = hs_split_wave_begin(w, t0 + nt);
    s->next_row[c] += nt;
    a = hs__split_give_range(&s->core, d, b, e, now, g);
    s->v[d].in_adaptive = !s->completion;
    if (!s->completion) {
        s->adaptive_given += e - b;
        s->v[d].block = e - b;
    }
    return a;
}

static hs_split_answer hdss_next(void *state, int d, double now, hs_split_grant *g)
{
    hdss *s = state;
    size_t left = hs__split_left(&s->core), want;
    hs_split_answer a;
    if (s->core.d[d].retired)
        return HS_SPLIT_STOP;
    if (s->wave.rows) {
        s->asks++;
        a = wave_next(s, d, now, g);
        s->wait_seq[d] = a == HS_SPLIT_WAIT ? s->asks : 0;
        return a;
    }
    if (s->v[d].standby && standby_next(s, d, now, g, &a))
        return a;
    if (left == 0)
        return hs__split_idle(&s->core, d, now, g);
    if (!s->completion && (all_stable(s) || s->adaptive_given >= s->cap))
        s->completion = 1;
    if (!s->completion) {
        /* the phase's last block still whole widths: a GPU's gemm rows run
         * at a fraction of their speed in a sliver of 102 */
        size_t room = hs__split_round_up(s->cap - s->adaptive_given, s->core.dev[d].width);
        want = adaptive_block(s, d, now);
        if (want > room)
            want = room;
        if (!(want = fit_in_time(s, d, want, left, now, &g->wake_us)))
            return HS_SPLIT_WAIT;
        a = hs__split_give(&s->core, d, want, now, g);
        if (a == HS_SPLIT_CHUNK) {
            s->adaptive_given += g->end - g->begin;
            s->v[d].block = g->end - g->begin;
            s->v[d].in_adaptive = 1;
        }
        return a;
    }
    s->v[d].in_adaptive = 0;
    if (!(want = fit_in_time(s, d, mgss_block(s, d, left, now), left, now, &g->wake_us)))
        return HS_SPLIT_WAIT;
    return hs__split_give(&s->core, d, want, now, g);
}

static int hdss_finished(void *state, int d, size_t b, size_t e, double us, double now)
{
    hdss *s = state;
    hdss_dev *v = &s->v[d];
    double w;
    (void)now;
    if (!hs__split_done(&s->core, d, b, e, us))
        return 0;
    if (s->wave.rows) { /* one column's chunk: its tiles are done */
        size_t t = hs_split_wave_tile(&s->wave, e - 1);
        s->done_row[t / s->wave.rows] = t % s->wave.rows + 1;
    }
    if (!v->in_adaptive || !(us > 0))
        return 1;
    w = (double)(e - b) / us;
    if (v->weight > 0 && fabs(w - v->weight) < s->mcr * v->weight)
        v->stable = 1;
    v->weight = w;
    if (v->npoints < HDSS_MAX_POINTS) {
        v->x[v->npoints] = (double)(e - b);
        v->w[v->npoints] = w;
        v->npoints++;
    }
    return 1;
}

static void hdss_fini(void *state)
{
    hdss *s = state;
    if (!s)
        return;
    hs__split_core_free(&s->core);
    free(s->next_row);
    free(s->done_row);
    free(s);
}

const hs_splitter hs__split_hdss = {
    .name = "hdss",
    .description = "HDSS: adaptive phase with log-fitted block growth, then weighted GSS",
    .flags = HS_SPLIT_SURVIVES_FAILURE | HS_SPLIT_WAVEFRONT,
    .start = hdss_start,
    .next = hdss_next,
    .finished = hdss_finished,
    .fini = hdss_fini,
};
