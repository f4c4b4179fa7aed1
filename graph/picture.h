/* hetsched — internal: PNG and SVG pictures drawn with cairo, shared by the
 * Gantt chart (graph/gantt.c) and the split plot (exec/split_plot.c).
 * Only where cairo is built (HS_HAVE_CAIRO). */
#ifndef HS_GRAPH_PICTURE_H
#define HS_GRAPH_PICTURE_H

#include <cairo.h>

#include "hetsched/error.h"

enum { HS__PICTURE_NONE = 0, HS__PICTURE_PNG = 1, HS__PICTURE_SVG = 2 };

/* The format the file name asks for by its extension (any case). */
int hs__picture_format(const char *path);

/* Makes a width x height picture in format `fmt` at `path`, lets draw(cr,
 * ctx) paint it, and writes it.  Returns HS_OK, HS_ENOMEM ("out of memory
 * for the WHAT") or HS_EIO ("cannot write PATH: ..."). */
int hs__picture_write(const char *path, int fmt, int width, int height,
                      void (*draw)(cairo_t *cr, void *ctx), void *ctx, const char *what,
                      hs_error *err);

#endif
