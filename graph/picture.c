/* hetsched — PNG and SVG pictures with cairo (graph/picture.h). */
#include "hs_config.h"

#if HS_HAVE_CAIRO

#include <string.h>
#include <strings.h>

#include <cairo-svg.h>

#include "graph/picture.h"
#include "hetsched/output.h"

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

/* cairo's stream writer: everything goes through one FILE. */
static cairo_status_t write_to(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

int hs__picture_write(const char *path, int fmt, int width, int height,
                      void (*draw)(cairo_t *cr, void *ctx), void *ctx, const char *what,
                      hs_error *err)
{
    cairo_surface_t *surf;
    cairo_status_t st;
    cairo_t *cr;
    hs_output o;
    int rc;
    if ((rc = hs_output_open(&o, path, err)) != HS_OK)
        return rc;
    surf = fmt == HS__PICTURE_PNG
               ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)
               : cairo_svg_surface_create_for_stream(write_to, o.f, width, height);
    cr = cairo_create(surf);
    draw(cr, ctx);
    st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS && fmt == HS__PICTURE_PNG)
        st = cairo_surface_write_to_png_stream(surf, write_to, o.f);
    cairo_surface_finish(surf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (st == CAIRO_STATUS_NO_MEMORY)
        rc = hs_error_set(err, HS_ENOMEM, "out of memory for the %s", what);
    else if (st == CAIRO_STATUS_WRITE_ERROR)
        rc = hs_output_error(&o, err);
    else if (st != CAIRO_STATUS_SUCCESS)
        rc = hs_error_set(err, HS_EIO, "cannot write %s: %s", path, cairo_status_to_string(st));
    return hs_output_close(&o, rc, err);
}

#endif
