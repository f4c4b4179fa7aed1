/* hetsched benchmarks — the bar charts of bench/paper.sh, in the layout of
 * Zhou & Liu's Fig. 5: one panel per workload composition (mixed, compute,
 * data), the problem sizes along x, a bar per policy, the speedup over
 * cpu-only up; measured on the first row of panels and simulated with the
 * calibrated model on the second (the paper's rows are its two platforms).
 * The benchmarks of Fig. 4 run alone get a chart of their own: one panel
 * per size, the benchmarks along x.
 *
 * usage: paper_plot CSV STEM
 * Reads the rows bench/paper.sh writes (figure fig5 and fig4) and writes
 * STEM-fig5.png and STEM-fig4.png (each only when the CSV has its rows).
 * Exit status 0, 1 when a picture cannot be written, 2 on bad input. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/picture.h"

#define MAXROWS 4096
#define MAXKEYS 64
#define NAMELEN 64

typedef struct {
    char fig[NAMELEN], size[NAMELEN], workload[NAMELEN], policy[NAMELEN];
    double speedup[2]; /* measured, simulated; NAN where the run failed */
} row;

typedef struct {
    char name[MAXKEYS][NAMELEN];
    int n;
} keys;

/* One chart: panels (columns) by `panel`, groups along x by `group`. */
typedef struct {
    const row *rows;
    int nrows;
    const char *fig, *title;
    int panel_is_size; /* fig4: panels are sizes and groups benchmarks */
    keys panels, groups, policies;
    double ymax[2];
} chart;

enum { PANEL_W = 440, PANEL_H = 280, MARGIN_L = 50, MARGIN_T = 46, LEGEND_H = 60, TITLE_H = 30 };

static int key_index(keys *k, const char *s, int add)
{
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->name[i], s) == 0)
            return i;
    if (!add || k->n == MAXKEYS)
        return -1;
    snprintf(k->name[k->n], NAMELEN, "%s", s);
    return k->n++;
}

/* Sorts sizes small < medium < large and workloads mixed, compute, data as
 * the paper's columns; other names keep their first-seen order after them. */
static int rank_of(const char *s)
{
    static const char *order[] = {"small", "medium", "large", "mixed", "compute", "data"};
    for (int i = 0; i < 6; i++)
        if (strcmp(s, order[i]) == 0)
            return i;
    return 6;
}

static void order_keys(keys *k)
{
    for (int i = 1; i < k->n; i++)
        for (int j = i; j > 0 && rank_of(k->name[j]) < rank_of(k->name[j - 1]); j--) {
            char t[NAMELEN];
            memcpy(t, k->name[j], NAMELEN);
            memcpy(k->name[j], k->name[j - 1], NAMELEN);
            memcpy(k->name[j - 1], t, NAMELEN);
        }
}

/* Splits line at commas into at most max fields; returns how many. */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = 0;
    while (n < max) {
        f[n++] = p;
        p = strchr(p, ',');
        if (!p)
            break;
        *p++ = 0;
    }
    return n;
}

static int parse_number(const char *s, double *v)
{
    char *end;
    if (!*s) {
        *v = NAN;
        return 0;
    }
    errno = 0;
    *v = strtod(s, &end);
    return errno || *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* Reads the fig5 and fig4 rows of the CSV; returns their count, or -1
 * after a message. */
static int read_rows(const char *path, row *rows)
{
    FILE *f = fopen(path, "r");
    char line[4096], *fld[16];
    int n = 0, lineno = 0;
    if (!f) {
        fprintf(stderr, "paper_plot: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        int nf;
        if (++lineno == 1)
            continue; /* header */
        nf = split_csv(line, fld, 16);
        if (nf != 14) {
            fprintf(stderr, "paper_plot: %s:%d: expected 14 fields, not %d\n", path, lineno, nf);
            fclose(f);
            return -1;
        }
        if (strcmp(fld[4], "fig5") != 0 && strcmp(fld[4], "fig4") != 0)
            continue;
        if (n == MAXROWS) {
            fprintf(stderr, "paper_plot: %s:%d: more than %d rows\n", path, lineno, MAXROWS);
            fclose(f);
            return -1;
        }
        snprintf(rows[n].fig, NAMELEN, "%s", fld[4]);
        snprintf(rows[n].size, NAMELEN, "%s", fld[2]);
        snprintf(rows[n].workload, NAMELEN, "%s", fld[5]);
        snprintf(rows[n].policy, NAMELEN, "%s", fld[6]);
        if (parse_number(fld[10], &rows[n].speedup[0]) || parse_number(fld[11], &rows[n].speedup[1])) {
            fprintf(stderr, "paper_plot: %s:%d: speedups must be numbers >= 0, not '%s' and '%s'\n",
                    path, lineno, fld[10], fld[11]);
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

static void panel_and_group(const chart *c, const row *r, const char **panel, const char **group)
{
    *panel = c->panel_is_size ? r->size : r->workload;
    *group = c->panel_is_size ? r->workload : r->size;
}

/* Colour of policy i: a fixed qualitative palette, repeated darker. */
static void policy_colour(cairo_t *cr, int i)
{
    static const double pal[12][3] = {
        {0.12, 0.47, 0.71}, {1.00, 0.50, 0.05}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
        {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
        {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81}, {0.68, 0.78, 0.91}, {1.00, 0.73, 0.47}};
    double k = i >= 12 ? 0.6 : 1.0;
    cairo_set_source_rgb(cr, k * pal[i % 12][0], k * pal[i % 12][1], k * pal[i % 12][2]);
}

/* A step of 1, 2 or 5 times a power of ten giving about 5 ticks up to max. */
static double tick_step(double max)
{
    double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void draw_panel(cairo_t *cr, const chart *c, int prow, int pcol)
{
    double x0 = MARGIN_L + pcol * (PANEL_W + MARGIN_L), y0 = TITLE_H + MARGIN_T + prow * (PANEL_H + MARGIN_T);
    double w = PANEL_W, h = PANEL_H, ymax = c->ymax[prow], step = tick_step(ymax);
    double gw = w / c->groups.n, bw = gw * 0.8 / c->policies.n;
    char buf[128];
    cairo_set_font_size(cr, 12);
    snprintf(buf, sizeof buf, "%s, %s", c->panels.name[pcol], prow ? "simulated" : "measured");
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, x0, y0 - 8);
    cairo_show_text(cr, buf);
    cairo_set_line_width(cr, 1);
    for (double t = 0; t <= ymax * 1.0001; t += step) { /* grid and labels */
        double y = y0 + h - h * t / ymax;
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, x0, y);
        cairo_line_to(cr, x0 + w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%g", t);
        cairo_move_to(cr, x0 - 6 - 6.5 * (double)strlen(buf), y + 4);
        cairo_show_text(cr, buf);
    }
    for (int i = 0; i < c->nrows; i++) {
        const row *r = &c->rows[i];
        const char *panel, *group;
        double v = r->speedup[prow];
        int g, p;
        panel_and_group(c, r, &panel, &group);
        if (strcmp(r->fig, c->fig) != 0 || strcmp(panel, c->panels.name[pcol]) != 0 || isnan(v))
            continue;
        g = key_index((keys *)&c->groups, group, 0);
        p = key_index((keys *)&c->policies, r->policy, 0);
        policy_colour(cr, p);
        cairo_rectangle(cr, x0 + g * gw + gw * 0.1 + p * bw, y0 + h - h * fmin(v, ymax) / ymax,
                        bw * 0.9, h * fmin(v, ymax) / ymax);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, x0, y0, w, h);
    cairo_stroke(cr);
    for (int g = 0; g < c->groups.n; g++) {
        cairo_text_extents_t te;
        cairo_text_extents(cr, c->groups.name[g], &te);
        cairo_move_to(cr, x0 + (g + 0.5) * gw - te.width / 2, y0 + h + 16);
        cairo_show_text(cr, c->groups.name[g]);
    }
}

static void draw_chart(cairo_t *cr, void *ctx)
{
    const chart *c = ctx;
    double x = MARGIN_L, y = TITLE_H + 2 * (PANEL_H + MARGIN_T) + 30;
    double right = c->panels.n * (PANEL_W + MARGIN_L);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, 15);
    cairo_move_to(cr, MARGIN_L, 22);
    cairo_show_text(cr, c->title);
    for (int prow = 0; prow < 2; prow++)
        for (int pcol = 0; pcol < c->panels.n; pcol++)
            draw_panel(cr, c, prow, pcol);
    cairo_set_font_size(cr, 12);
    for (int p = 0; p < c->policies.n; p++) { /* legend, wrapped */
        cairo_text_extents_t te;
        cairo_text_extents(cr, c->policies.name[p], &te);
        if (x + 18 + te.x_advance > right) {
            x = MARGIN_L;
            y += 18;
        }
        policy_colour(cr, p);
        cairo_rectangle(cr, x, y - 10, 12, 12);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x + 16, y);
        cairo_show_text(cr, c->policies.name[p]);
        x += 16 + te.x_advance + 14;
    }
}

/* Writes STEM-FIG.png for the rows of fig; 0 when written or when there
 * are no rows, 1 when it cannot be written. */
static int plot(const row *rows, int n, const char *fig, const char *title, const char *stem)
{
    chart c = {.rows = rows, .nrows = n, .fig = fig, .title = title,
               .panel_is_size = strcmp(fig, "fig4") == 0};
    char path[4096];
    hs_error err = {0};
    int any = 0;
    for (int i = 0; i < n; i++) {
        const char *panel, *group;
        if (strcmp(rows[i].fig, fig) != 0)
            continue;
        panel_and_group(&c, &rows[i], &panel, &group);
        if (key_index(&c.panels, panel, 1) < 0 || key_index(&c.groups, group, 1) < 0 ||
            key_index(&c.policies, rows[i].policy, 1) < 0) {
            fprintf(stderr, "paper_plot: more than %d panels, groups or policies in %s\n", MAXKEYS,
                    fig);
            return 2;
        }
        for (int k = 0; k < 2; k++)
            if (!isnan(rows[i].speedup[k]) && rows[i].speedup[k] > c.ymax[k])
                c.ymax[k] = rows[i].speedup[k];
        any = 1;
    }
    if (!any)
        return 0;
    order_keys(&c.panels);
    order_keys(&c.groups);
    for (int k = 0; k < 2; k++) /* headroom, and a scale where every bar failed */
        c.ymax[k] = c.ymax[k] > 0 ? c.ymax[k] * 1.08 : 1;
    snprintf(path, sizeof path, "%s-%s.png", stem, fig);
    if (hs__picture_write(path, HS__PICTURE_PNG, (int)c.panels.n * (PANEL_W + MARGIN_L) + 20,
                          TITLE_H + 2 * (PANEL_H + MARGIN_T) + LEGEND_H + 20, draw_chart, &c,
                          "chart", &err) != HS_OK) {
        fprintf(stderr, "paper_plot: %s\n", err.msg);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static row rows[MAXROWS];
    int n, rc;
    if (argc != 3) {
        fprintf(stderr, "usage: paper_plot CSV STEM (writes STEM-fig5.png and STEM-fig4.png)\n");
        return 2;
    }
    if ((n = read_rows(argv[1], rows)) < 0)
        return 2;
    rc = plot(rows, n, "fig5", "Fig. 5: speedup over cpu-only (Zhou & Liu, ESWEEK 2014)", argv[2]);
    if (rc == 0)
        rc = plot(rows, n, "fig4", "Fig. 4 benchmarks alone: speedup over cpu-only", argv[2]);
    return rc;
}
