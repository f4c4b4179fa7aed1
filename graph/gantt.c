/* hetsched — Gantt charts of schedules with cairo, PNG or SVG
 * (include/hetsched/export.h).  Compiled out where cairo is not found; the
 * function then still exists and answers HS_ENOTBUILT. */
#include "hs_config.h"
#include "hetsched/export.h"

#if !HS_HAVE_CAIRO

int hs_gantt_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    (void)w;
    (void)s;
    (void)path;
    return hs_error_set(err, HS_ENOTBUILT, "Gantt pictures need cairo: not built in");
}

#else

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo.h>

#include "graph/export_util.h"
#include "graph/picture.h"
#include "graph/schedule_int.h"
#include "graph/utf8.h"

/* Layout in pixels (points for SVG); HS_GANTT_HEIGHT in export.h sums them. */
enum {
    TITLE_H = 60,
    LANE_H = 40,      /* device lane; boxes leave 5 above and below */
    LINK_H = 20,      /* link lane; transfer bars leave 5 above and below */
    AXIS_H = 50,
    LEGEND_ROW_H = 24,
    LEGEND_PER_ROW = 6,
    LEFT = 140,       /* lane labels */
    RIGHT = 30,
};

typedef struct chart {
    cairo_t *cr;
    const hs_workload *w;
    const hs_schedule *s;
    double tmax;      /* µs at the right edge */
    int nlanes;       /* link lanes */
    const int *lane_of_pair;
} chart;

static double xof(const chart *c, double us)
{
    return LEFT + us / c->tmax * (HS_GANTT_WIDTH - LEFT - RIGHT);
}

static void set_rgb(cairo_t *cr, const double rgb[3], double scale)
{
    cairo_set_source_rgb(cr, rgb[0] * scale, rgb[1] * scale, rgb[2] * scale);
}

static void font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* Draws text with its left end at x and its middle at y, clipped to width
 * `room` (the whole text when room <= 0).  cairo takes UTF-8 only and stops
 * drawing at the first string that is not: a byte of a path that starts no
 * character is drawn as '?'. */
static void text_at(cairo_t *cr, const char *raw, double x, double y, double room)
{
    char text[4096];
    cairo_text_extents_t ext;
    hs__utf8_copy(text, sizeof text, raw);
    cairo_text_extents(cr, text, &ext);
    cairo_save(cr);
    if (room > 0) {
        cairo_rectangle(cr, x, y - 20, room, 40);
        cairo_clip(cr);
    }
    cairo_move_to(cr, x - ext.x_bearing, y - ext.y_bearing - ext.height / 2);
    cairo_show_text(cr, text);
    cairo_restore(cr);
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 8 ticks. */
static double tick_step(double tmax)
{
    double raw = tmax / 8, mag = pow(10, floor(log10(raw))), n = raw / mag;
    return (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * mag;
}

static void draw_title(const chart *c)
{
    cairo_t *cr = c->cr;
    char line[600];
    /* one decimal, none for a whole number of µs */
    hs__label(line, sizeof line, "%s, makespan %.*f \xc2\xb5s",
              c->s->algorithm ? c->s->algorithm : "schedule",
              c->s->makespan_us == floor(c->s->makespan_us) ? 0 : 1, c->s->makespan_us);
    cairo_set_source_rgb(cr, 0, 0, 0);
    font(cr, 16, 1);
    text_at(cr, line, 12, 22, HS_GANTT_WIDTH - 24);
    if (c->w->path || c->s->workload) {
        font(cr, 11, 0);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        text_at(cr, c->w->path ? c->w->path : c->s->workload, 12, 44, HS_GANTT_WIDTH - 24);
    }
}

/* Lane backgrounds and labels, and the vertical grid at each tick. */
static void draw_lanes(const chart *c, double step)
{
    cairo_t *cr = c->cr;
    const hs_platform *pl = &c->w->platform;
    int nm = pl->nmemories, y = TITLE_H;
    double bottom = TITLE_H + LANE_H * pl->ndevices + LINK_H * c->nlanes;
    for (int d = 0; d < pl->ndevices; d++, y += LANE_H) {
        char label[HS_NAME_MAX + 16];
        cairo_set_source_rgb(cr, d % 2 ? 1.0 : 0.95, d % 2 ? 1.0 : 0.95, d % 2 ? 1.0 : 0.95);
        cairo_rectangle(cr, 0, y, HS_GANTT_WIDTH, LANE_H);
        cairo_fill(cr);
        hs__label(label, sizeof label, "%s (%s)", pl->devices[d].name,
                  hs_device_kind_name(pl->devices[d].kind));
        cairo_set_source_rgb(cr, 0, 0, 0);
        font(cr, 12, 1);
        text_at(cr, label, 10, y + LANE_H / 2.0, LEFT - 16);
    }
    for (int i = 0; i < nm * nm; i++) {
        char label[2 * HS_NAME_MAX + 8];
        int ly;
        if (c->lane_of_pair[i] < 0)
            continue;
        ly = y + LINK_H * c->lane_of_pair[i];
        cairo_set_source_rgb(cr, 0.90, 0.93, 0.97);
        cairo_rectangle(cr, 0, ly, HS_GANTT_WIDTH, LINK_H);
        cairo_fill(cr);
        hs__label(label, sizeof label, "%s \xe2\x86\x92 %s", pl->memories[i / nm],
                  pl->memories[i % nm]);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.35);
        font(cr, 10, 0);
        text_at(cr, label, 18, ly + LINK_H / 2.0, LEFT - 24);
    }
    cairo_set_line_width(cr, 1);
    cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.35);
    for (double t = 0; t <= c->tmax * (1 + 1e-9); t += step) {
        double x = floor(xof(c, t)) + 0.5;
        cairo_move_to(cr, x, TITLE_H);
        cairo_line_to(cr, x, bottom);
    }
    cairo_stroke(cr);
}

/* A box per placement, filled with its application's colour. */
static void draw_placements(const chart *c)
{
    cairo_t *cr = c->cr;
    font(cr, 11, 0);
    cairo_set_line_width(cr, 1);
    for (size_t i = 0; i < c->s->nplacements; i++) {
        const hs_placement *p = &c->s->placements[i];
        const hs_task *t = &c->w->graph.tasks[p->task];
        const hs_app *app = &c->w->apps[t->app];
        double x0 = xof(c, p->start_us), x1 = xof(c, p->end_us), rgb[3];
        double y = TITLE_H + LANE_H * p->device + 5, h = LANE_H - 10;
        const char *kn = app->kernels[t->kernel].name;
        char form[3][HS_TASK_ID_MAX], part[48];
        int nf;
        cairo_text_extents_t ext;
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        hs__palette_rgb(t->app, rgb);
        set_rgb(cr, rgb, 1);
        cairo_rectangle(cr, x0, y, x1 - x0, h);
        cairo_fill_preserve(cr);
        set_rgb(cr, rgb, 0.55);
        cairo_stroke(cr);
        /* The first of "kernel[k/n] #i", "kernel[k/n]", "kernel" that fits
         * (the part only for a split task, the instance only when the
         * application has several). */
        nf = 0;
        part[0] = '\0';
        if (p->nparts > 1)
            snprintf(part, sizeof part, "[%d/%d]", p->part, p->nparts);
        if (app->instances > 1)
            hs__label(form[nf++], sizeof form[0], "%s%s #%d", kn, part, t->instance);
        if (part[0])
            hs__label(form[nf++], sizeof form[0], "%s%s", kn, part);
        hs__label(form[nf++], sizeof form[0], "%s", kn);
        for (int f = 0; f < nf; f++) {
            cairo_text_extents(cr, form[f], &ext);
            if (ext.x_advance + 6 <= x1 - x0) {
                cairo_set_source_rgb(cr, 0, 0, 0);
                text_at(cr, form[f], (x0 + x1 - ext.x_advance) / 2, y + h / 2, 0);
                break;
            }
        }
    }
}

/* Thin bars on the link lanes, coloured (darker) by the application the
 * data belongs to; overlapping transfers show as darker stretches. */
static void draw_transfers(const chart *c)
{
    cairo_t *cr = c->cr;
    double top = TITLE_H + LANE_H * c->w->platform.ndevices;
    for (size_t i = 0; i < c->s->ntransfers; i++) {
        const hs_transfer *tr = &c->s->transfers[i];
        const hs_task *t = hs__transfer_task(c->w, c->s, tr);
        int lane = hs__transfer_lane(c->w, tr, c->lane_of_pair);
        double x0 = xof(c, tr->start_us), x1 = xof(c, tr->end_us), rgb[3] = {0.5, 0.5, 0.5};
        if (lane < 0)
            continue;
        if (t)
            hs__palette_rgb(t->app, rgb);
        if (x1 - x0 < 1)
            x1 = x0 + 1;
        cairo_set_source_rgba(cr, rgb[0] * 0.7, rgb[1] * 0.7, rgb[2] * 0.7, 0.75);
        cairo_rectangle(cr, x0, top + LINK_H * lane + 5, x1 - x0, LINK_H - 10);
        cairo_fill(cr);
    }
}

/* The time axis under the lanes: ticks and labels in µs, or in ms once the
 * chart spans 10 ms or more. */
static void draw_axis(const chart *c, double step)
{
    cairo_t *cr = c->cr;
    double y = TITLE_H + LANE_H * c->w->platform.ndevices + LINK_H * c->nlanes;
    int ms = c->tmax >= 10000;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, LEFT, y + 0.5);
    cairo_line_to(cr, HS_GANTT_WIDTH - RIGHT, y + 0.5);
    font(cr, 11, 0);
    for (double t = 0; t <= c->tmax * (1 + 1e-9); t += step) {
        double x = floor(xof(c, t)) + 0.5;
        char label[32];
        cairo_text_extents_t ext;
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + 6);
        snprintf(label, sizeof label, "%g", ms ? t / 1000 : t);
        cairo_text_extents(cr, label, &ext);
        text_at(cr, label, x - ext.x_advance / 2, y + 16, 0);
    }
    cairo_stroke(cr);
    text_at(cr, ms ? "time (ms)" : "time (\xc2\xb5s)", HS_GANTT_WIDTH / 2.0 - 30, y + 36, 0);
}

/* One entry per application: a square of its colour and its name. */
static void draw_legend(const chart *c)
{
    cairo_t *cr = c->cr;
    double y0 = TITLE_H + LANE_H * c->w->platform.ndevices + LINK_H * c->nlanes + AXIS_H;
    double width = (HS_GANTT_WIDTH - 24.0) / LEGEND_PER_ROW;
    font(cr, 11, 0);
    for (int a = 0; a < c->w->napps; a++) {
        double x = 12 + width * (a % LEGEND_PER_ROW);
        double y = y0 + LEGEND_ROW_H * (a / LEGEND_PER_ROW) + LEGEND_ROW_H / 2.0, rgb[3];
        hs__palette_rgb(a, rgb);
        set_rgb(cr, rgb, 1);
        cairo_rectangle(cr, x, y - 6, 12, 12);
        cairo_fill_preserve(cr);
        set_rgb(cr, rgb, 0.55);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, c->w->apps[a].name, x + 18, y, width - 24);
    }
}

/* Draws the whole chart on cr. */
static void draw(cairo_t *cr, void *ctx)
{
    chart *c = ctx;
    c->cr = cr;
    double step = tick_step(c->tmax);
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    draw_title(c);
    draw_lanes(c, step);
    draw_placements(c);
    draw_transfers(c);
    draw_axis(c, step);
    draw_legend(c);
}

static int gantt_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    int fmt = hs__picture_format(path), nm = w->platform.nmemories, height, rc;
    int *lane_of_pair;
    chart c = {.w = w, .s = s, .tmax = s->makespan_us};
    if (!fmt)
        return hs_error_set(err, HS_EUSAGE,
                            "%s: a Gantt picture is written as .png or .svg (by the file's "
                            "extension)", path);
    if ((rc = hs__schedule_check_refs(w, s, err)) != 0)
        return rc;
    if (!(lane_of_pair = malloc((size_t)(nm * nm) * sizeof *lane_of_pair)))
        return hs_error_set(err, HS_ENOMEM, "out of memory for the Gantt chart");
    c.nlanes = hs__link_lanes(w, s, lane_of_pair);
    c.lane_of_pair = lane_of_pair;
    /* The chart spans the makespan, or further if something ends later. */
    for (size_t i = 0; i < s->nplacements; i++)
        c.tmax = fmax(c.tmax, s->placements[i].end_us);
    for (size_t i = 0; i < s->ntransfers; i++)
        c.tmax = fmax(c.tmax, s->transfers[i].end_us);
    if (!(c.tmax > 0))
        c.tmax = 1;
    height = HS_GANTT_HEIGHT(w->platform.ndevices, c.nlanes, w->napps);
    rc = hs__picture_write(path, fmt, HS_GANTT_WIDTH, height, draw, &c, "Gantt chart", err);
    free(lane_of_pair);
    return rc;
}

/* (the chart draws each transfer: an implied schedule's are listed first) */
int hs_gantt_write(const hs_workload *w, const hs_schedule *s, const char *path, hs_error *err)
{
    return hs__write_listed(w, s, gantt_write, path, err);
}

#endif
