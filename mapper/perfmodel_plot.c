/* hetsched — a performance model as a picture: per kernel type, time
 * against D on log-log axes, the history's samples and medians and the
 * fits, a colour per device (hetsched/perfmodel.h, hs_perfmodel_plot), as
 * StarPU's starpu_perfmodel_plot draws a history-based model.  Compiled out
 * where cairo is not found; the function then still exists and answers
 * HS_ENOTBUILT. */
#include "hs_config.h"
#include "mapper/perfmodel.h"

#if !HS_HAVE_CAIRO

int hs_perfmodel_plot(const hs_perfmodel *m, const char *path, hs_error *err)
{
    (void)m;
    (void)path;
    return hs_error_set(err, HS_ENOTBUILT, "model plots need cairo: not built in");
}

#else

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "graph/picture.h"

enum { PANEL_W = 560, PANEL_H = 420, LEFT = 70, RIGHT = 20, TOP = 40, BOTTOM = 50,
       MAX_NAMES = 64, CURVE_STEPS = 120 };

typedef struct plot {
    const hs_perfmodel *m;
    hs_perf_entry *e;              /* every entry */
    size_t ne;
    const char *types[MAX_NAMES];  /* with history, in order of appearance */
    int ntypes;
    const char *devices[MAX_NAMES]; /* every device of the model: its colour */
    int ndevices;
    cairo_t *cr;
    double x0, y0;                 /* the current panel's top left corner */
    double lx[2], ly[2];           /* its axes: log10 of D and of µs */
} plot;

/* Index of s in names[0..n), or -1. */
static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* Adds s to names[0..*n) when new and there is room. */
static void add_name(const char **names, int *n, const char *s)
{
    if (find_name(names, *n, s) < 0 && *n < MAX_NAMES)
        names[(*n)++] = s;
}

static double px(const plot *p, double D)
{
    return p->x0 + LEFT + (log10(D) - p->lx[0]) / (p->lx[1] - p->lx[0]) *
                              (PANEL_W - LEFT - RIGHT);
}

static double py(const plot *p, double us)
{
    return p->y0 + PANEL_H - BOTTOM - (log10(us) - p->ly[0]) / (p->ly[1] - p->ly[0]) *
                                          (PANEL_H - TOP - BOTTOM);
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

/* A device's colour: strong ones that small marks on white show (the
 * exporters' palette is light, for text on it), wrapping around. */
static void device_colour(const plot *p, const char *device, double alpha)
{
    static const double rgb[][3] = {{0.12, 0.47, 0.71}, {1.00, 0.50, 0.05},
                                    {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
                                    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29},
                                    {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50}};
    int i = find_name(p->devices, p->ndevices, device), n = sizeof rgb / sizeof rgb[0];
    i = ((i % n) + n) % n;
    cairo_set_source_rgba(p->cr, rgb[i][0], rgb[i][1], rgb[i][2], alpha);
}

/* Widens [*lo, *hi] (log10) to hold log10(v), for v > 0. */
static void extend(double *lo, double *hi, double v)
{
    if (v > 0 && isfinite(v)) {
        *lo = fmin(*lo, log10(v));
        *hi = fmax(*hi, log10(v));
    }
}

/* Whole decades holding [lo, hi] (log10) with a fifth of a decade to
 * spare, so that no mark sits on the frame; at least one decade. */
static void decades(double lo, double hi, double out[2])
{
    out[0] = floor(lo - 0.2);
    out[1] = fmax(ceil(hi + 0.2), out[0] + 1);
}

/* The axes of type t's panel: decades around its sizes, then its times
 * (samples, and the fits over those sizes). */
static void panel_range(plot *p, const char *t)
{
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    p->lx[0] = HUGE_VAL;
    p->lx[1] = -HUGE_VAL;
    for (size_t i = 0; i < p->ne; i++)
        if (strcmp(p->e[i].type, t) == 0)
            extend(&p->lx[0], &p->lx[1], p->e[i].size);
    decades(p->lx[0], p->lx[1], p->lx);
    for (size_t i = 0; i < p->ne; i++) {
        if (strcmp(p->e[i].type, t) != 0)
            continue;
        extend(&lo, &hi, p->e[i].h.median_us);
        for (int k = 0; k < p->e[i].h.nsamples; k++)
            extend(&lo, &hi, p->e[i].samples[k]);
    }
    for (size_t i = 0; i < hs_perfmodel_fits(p->m); i++) {
        const char *type, *device;
        hs_perf_fit f;
        hs_perfmodel_fit_at(p->m, i, &type, &device, &f);
        if (strcmp(type, t) != 0)
            continue;
        extend(&lo, &hi, hs_perfmodel_fit_eval(&f, pow(10, p->lx[0])));
        extend(&lo, &hi, hs_perfmodel_fit_eval(&f, pow(10, p->lx[1])));
    }
    if (!(lo <= hi)) /* every time 0: an axis still */
        lo = hi = 0;
    decades(lo, hi, p->ly);
}

static void draw_axes(plot *p, const char *t)
{
    cairo_t *cr = p->cr;
    double l = p->x0 + LEFT, r = p->x0 + PANEL_W - RIGHT, top = p->y0 + TOP,
           bottom = p->y0 + PANEL_H - BOTTOM;
    char buf[32];
    cairo_set_line_width(cr, 1);
    for (double k = p->lx[0]; k <= p->lx[1] + 1e-9; k += 1) {
        double x = px(p, pow(10, k));
        cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.3);
        cairo_move_to(cr, x + 0.5, top);
        cairo_line_to(cr, x + 0.5, bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "1e%.0f", k);
        text(cr, buf, x - 10, bottom + 16, 11, 0);
    }
    for (double k = p->ly[0]; k <= p->ly[1] + 1e-9; k += 1) {
        double y = py(p, pow(10, k));
        cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.3);
        cairo_move_to(cr, l, y + 0.5);
        cairo_line_to(cr, r, y + 0.5);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "1e%.0f", k);
        text(cr, buf, l - 6, y + 4, 11, 1);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, l + 0.5, top + 0.5, r - l, bottom - top);
    cairo_stroke(cr);
    text(cr, t, l, p->y0 + 26, 15, 0);
    text(cr, "D (flops)", (l + r) / 2 - 25, bottom + 36, 12, 0);
    cairo_save(cr);
    cairo_translate(cr, p->x0 + 18, (top + bottom) / 2 + 30);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, "time (\xc2\xb5s)", 0, 0, 12, 0);
    cairo_restore(cr);
}

/* A fit of the panel's type on `device` as a curve over the panel's sizes;
 * dashed for a device without entries of that type (a kind, "gpu", stands
 * for every GPU). */
static void draw_fit(plot *p, const char *device, const hs_perf_fit *f, int dashed)
{
    cairo_t *cr = p->cr;
    int started = 0;
    static const double dash[] = {6, 4};
    device_colour(p, device, 0.9);
    cairo_set_line_width(cr, 1.5);
    cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
    for (int k = 0; k <= CURVE_STEPS; k++) {
        double D = pow(10, p->lx[0] + (p->lx[1] - p->lx[0]) * k / CURVE_STEPS);
        double us = hs_perfmodel_fit_eval(f, D);
        double y = us > 0 ? py(p, us) : NAN;
        if (!(y >= p->y0 + TOP && y <= p->y0 + PANEL_H - BOTTOM)) {
            started = 0; /* off the panel: the curve resumes where it comes back */
            continue;
        }
        if (started)
            cairo_line_to(cr, px(p, D), y);
        else
            cairo_move_to(cr, px(p, D), y);
        started = 1;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* Type t's panel: axes, samples as dots, medians as rings, fits, legend. */
static void draw_panel(plot *p, const char *t)
{
    cairo_t *cr = p->cr;
    const char *shown[MAX_NAMES];
    int nshown = 0;
    panel_range(p, t);
    draw_axes(p, t);
    for (size_t i = 0; i < p->ne; i++) {
        const hs_perf_entry *e = &p->e[i];
        if (strcmp(e->type, t) != 0)
            continue;
        add_name(shown, &nshown, e->device);
        device_colour(p, e->device, 0.5);
        for (int k = 0; k < e->h.nsamples; k++)
            if (e->samples[k] > 0) {
                cairo_arc(cr, px(p, e->size), py(p, e->samples[k]), 2.5, 0, 2 * M_PI);
                cairo_fill(cr);
            }
        if (e->h.median_us > 0) {
            device_colour(p, e->device, 1);
            cairo_set_line_width(cr, 1.8);
            cairo_arc(cr, px(p, e->size), py(p, e->h.median_us), 5, 0, 2 * M_PI);
            cairo_stroke(cr);
        }
    }
    for (size_t i = 0; i < hs_perfmodel_fits(p->m); i++) {
        const char *type, *device;
        hs_perf_fit f;
        hs_perfmodel_fit_at(p->m, i, &type, &device, &f);
        if (strcmp(type, t) != 0)
            continue;
        draw_fit(p, device, &f, find_name(shown, nshown, device) < 0);
        add_name(shown, &nshown, device);
    }
    for (int d = 0; d < nshown; d++) {
        double y = p->y0 + TOP + 16 + 16 * d;
        device_colour(p, shown[d], 1);
        cairo_rectangle(cr, p->x0 + LEFT + 10, y - 8, 14, 8);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text(cr, shown[d], p->x0 + LEFT + 30, y, 11, 0);
    }
}

/* Paints every panel, two per row (hs__picture_write's hook). */
static void draw(cairo_t *cr, void *ctx)
{
    plot *p = ctx;
    p->cr = cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    for (int t = 0; t < p->ntypes; t++) {
        p->x0 = (t % 2) * PANEL_W;
        p->y0 = (t / 2) * PANEL_H + 30;
        draw_panel(p, p->types[t]);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, "dots: samples; rings: each entry's median; lines: the a*D^b+c fits (dashed: "
             "a device kind)", 12, 20, 12, 0);
}

int hs_perfmodel_plot(const hs_perfmodel *m, const char *path, hs_error *err)
{
    int fmt = hs__picture_format(path), rc;
    plot p = {.m = m, .ne = hs_perfmodel_entries(m)};
    if (!fmt)
        return hs_error_set(err, HS_EINPUT, "%s: a model plot is written as .png or .svg (by "
                            "the extension)", path);
    if (p.ne == 0)
        return hs_error_set(err, HS_EINPUT, "nothing to plot: the model has no history");
    if (!(p.e = malloc(p.ne * sizeof *p.e)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the model plot");
    for (size_t i = 0; i < p.ne; i++) {
        hs_perfmodel_entry(m, i, &p.e[i]);
        add_name(p.types, &p.ntypes, p.e[i].type);
        add_name(p.devices, &p.ndevices, p.e[i].device);
    }
    for (size_t i = 0; i < hs_perfmodel_fits(m); i++) {
        const char *type, *device;
        hs_perf_fit f;
        hs_perfmodel_fit_at(m, i, &type, &device, &f);
        add_name(p.devices, &p.ndevices, device);
    }
    rc = hs__picture_write(path, fmt, p.ntypes > 1 ? 2 * PANEL_W : PANEL_W,
                           (p.ntypes + 1) / 2 * PANEL_H + 30, draw, &p, "model plot", err);
    free(p.e);
    return rc;
}

#endif
