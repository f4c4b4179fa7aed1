/* hetsched — block size against time per device, the picture of HDSS
 * Fig. 6, with cairo (hetsched/split.h).  Compiled out where cairo is not
 * found; the function then still exists and answers HS_ENOTBUILT. */
#include "hs_config.h"
#include "mapper/split.h"

#if !HS_HAVE_CAIRO

int hs_split_plot(const hs_split_sim *sim, const hs_split_result *res, const char *splitter,
                  const char *path, hs_error *err)
{
    (void)sim;
    (void)res;
    (void)splitter;
    (void)path;
    return hs_error_set(err, HS_ENOTBUILT, "split plots need cairo: not built in");
}

#else

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cairo.h>

#include "graph/export_util.h"
#include "graph/picture.h"

enum { WIDTH = 960, HEIGHT = 540, LEFT = 90, RIGHT = 170, TOP = 60, BOTTOM = 60 };

typedef struct plot {
    cairo_t *cr;
    double tmax;            /* µs at the right edge */
    double ymin, ymax;      /* log10 of the block sizes at the bottom and top */
    double unit;            /* 1000 for ms, 1 for µs */
    const char *title;
    const hs_split_sim *sim;
    const hs_split_result *res;
} plot;

static double xof(const plot *p, double us)
{
    return LEFT + us / p->tmax * (WIDTH - LEFT - RIGHT);
}

static double yof(const plot *p, double items)
{
    double l = log10(items < 1 ? 1 : items);
    return HEIGHT - BOTTOM - (l - p->ymin) / (p->ymax - p->ymin) * (HEIGHT - TOP - BOTTOM);
}

static void text(cairo_t *cr, const char *s, double x, double y, double size, int right)
{
    cairo_text_extents_t ext;
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &ext);
    cairo_move_to(cr, right ? x - ext.width - ext.x_bearing : x, y);
    cairo_show_text(cr, s);
}

/* A round step giving about `n` ticks over [0, span]. */
static double tick_step(double span, int n)
{
    double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void draw_axes(plot *p, const char *title)
{
    cairo_t *cr = p->cr;
    double step = tick_step(p->tmax / p->unit, 8);
    char buf[64];
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, title, 12, 28, 15, 0);
    cairo_set_line_width(cr, 1);
    for (double t = 0; t <= p->tmax / p->unit * (1 + 1e-9); t += step) {
        double x = xof(p, t * p->unit);
        cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.3);
        cairo_move_to(cr, x + 0.5, TOP);
        cairo_line_to(cr, x + 0.5, HEIGHT - BOTTOM);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%g", t);
        text(cr, buf, x - 8, HEIGHT - BOTTOM + 18, 11, 0);
    }
    for (double l = p->ymin; l <= p->ymax + 1e-9; l += 1) {
        double y = yof(p, pow(10, l));
        cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.3);
        cairo_move_to(cr, LEFT, y + 0.5);
        cairo_line_to(cr, WIDTH - RIGHT, y + 0.5);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%.0f", pow(10, l));
        text(cr, buf, LEFT - 8, y + 4, 11, 1);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, LEFT + 0.5, TOP + 0.5, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    cairo_stroke(cr);
    text(cr, p->unit > 1 ? "time (ms)" : "time (\xc2\xb5s)", (LEFT + WIDTH - RIGHT) / 2.0 - 30,
         HEIGHT - 18, 12, 0);
    cairo_save(cr);
    cairo_translate(cr, 22, (TOP + HEIGHT - BOTTOM) / 2.0 + 60);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, "block size (items)", 0, 0, 12, 0);
    cairo_restore(cr);
}

static void draw_device(plot *p, const hs_split_result *res, int d, const char *name)
{
    cairo_t *cr = p->cr;
    double rgb[3], px = NAN, py = NAN;
    hs__palette_rgb(d, rgb);
    for (size_t i = 0; i < res->nrecords; i++) {
        const hs_split_record *r = &res->records[i];
        double x0, x1, y = yof(p, (double)(r->end - r->begin));
        if (r->device != d)
            continue;
        x0 = xof(p, r->start_us);
        x1 = xof(p, r->end_us > p->tmax ? p->tmax : r->end_us);
        if (!isnan(px)) { /* join to the previous chunk of this device */
            cairo_set_source_rgba(cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6, 0.6);
            cairo_set_line_width(cr, 1);
            cairo_move_to(cr, px, py);
            cairo_line_to(cr, x0, y);
            cairo_stroke(cr);
        }
        if (r->fate == HS_CHUNK_LOST)
            cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
        else
            cairo_set_source_rgb(cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6);
        cairo_rectangle(cr, x0, y - 3, x1 - x0 > 1 ? x1 - x0 : 1, 6);
        if (r->fate == HS_CHUNK_ACCEPTED)
            cairo_fill(cr);
        else {
            cairo_set_line_width(cr, 1.5);
            cairo_stroke(cr);
        }
        px = x1;
        py = y;
    }
    cairo_set_source_rgb(cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6);
    cairo_rectangle(cr, WIDTH - RIGHT + 16, TOP + 10 + 22 * d, 18, 8);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, name, WIDTH - RIGHT + 40, TOP + 19 + 22 * d, 12, 0);
}

/* Paints the axes and every device's chunks (hs__picture_write's hook). */
static void draw(cairo_t *cr, void *ctx)
{
    plot *p = ctx;
    p->cr = cr;
    draw_axes(p, p->title);
    for (int d = 0; d < p->sim->ndevices; d++)
        draw_device(p, p->res, d, p->sim->dev[d].name);
}

int hs_split_plot(const hs_split_sim *sim, const hs_split_result *res, const char *splitter,
                  const char *path, hs_error *err)
{
    int fmt = hs__picture_format(path);
    plot p = {.tmax = res->makespan_us, .ymin = 0};
    double big = 1, small = HUGE_VAL;
    char title[256];
    if (!fmt)
        return hs_error_set(err, HS_EUSAGE,
                            "%s: a split plot is written as .png or .svg (by the extension)",
                            path);
    if (res->nrecords == 0)
        return hs_error_set(err, HS_EUSAGE, "nothing to plot: the run kept no chunk records");
    for (size_t i = 0; i < res->nrecords; i++) {
        double n = (double)(res->records[i].end - res->records[i].begin);
        big = fmax(big, n);
        small = fmin(small, n);
        if (res->records[i].fate != HS_CHUNK_LOST)
            p.tmax = fmax(p.tmax, res->records[i].end_us);
    }
    if (!(p.tmax > 0))
        p.tmax = 1;
    p.unit = p.tmax >= 2000 ? 1000 : 1;
    p.ymin = floor(log10(small));
    p.ymax = ceil(log10(big));
    if (p.ymax <= p.ymin)
        p.ymax = p.ymin + 1;
    snprintf(title, sizeof title, "%s on %s: block size over time (%zu items%s)", splitter,
             sim->kernel ? sim->kernel : "kernel", sim->items,
             res->records_truncated ? ", first chunks only" : "");
    p.title = title;
    p.sim = sim;
    p.res = res;
    return hs__picture_write(path, fmt, WIDTH, HEIGHT, draw, &p, "split plot", err);
}

#endif
