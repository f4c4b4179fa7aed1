/* hetsched — PNG and SVG pictures with cairo (graph/picture.h). */
#include "hs_config.h"

#if HS_HAVE_CAIRO

#include <string.h>
#include <strings.h>

#include <cairo-svg.h>

#include "graph/picture.h"

int hs__picture_format(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && !strchr(dot, '/')) {
        if (strcasecmp(dot, ".png") == 0)
            return HS__PICTURE_PNG;
        if (strcasecmp(dot, ".svg") == 0)
            return HS__PICTURE_SVG;
    }
    return HS__PICTURE_NONE;
}

int hs__picture_write(const char *path, int fmt, int width, int height,
                      void (*draw)(cairo_t *cr, void *ctx), void *ctx, const char *what,
                      hs_error *err)
{
    cairo_surface_t *surf = fmt == HS__PICTURE_PNG
                                ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)
                                : cairo_svg_surface_create(path, width, height);
    cairo_t *cr = cairo_create(surf);
    cairo_status_t st;
    draw(cr, ctx);
    st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && fmt == HS__PICTURE_PNG)
        st = cairo_surface_write_to_png(surf, path);
    cairo_surface_finish(surf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (st == CAIRO_STATUS_NO_MEMORY)
        return hs_error_set(err, HS_ENOMEM, "out of memory for the %s", what);
    if (st != CAIRO_STATUS_SUCCESS)
        return hs_error_set(err, HS_EIO, "cannot write %s: %s", path,
                            cairo_status_to_string(st));
    return HS_OK;
}

#endif
