/* The image of a missing texture (see allium-missing-texture.h). */
#include "allium-missing-texture.h"

#include "al-render.h"

#include <pango/pangocairo.h>
#include <string.h>

/* RGBA (straight alpha, rows from the top) from and to Cairo's ARGB32 (premultiplied, one
 * native-endian word a pixel). The checker is opaque, so premultiplying changes nothing but
 * the byte order. */
static void rgba_to_cairo(const guint8 *rgba, unsigned char *data, int stride, int size)
{
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            const guint8 *p = rgba + ((gsize) y * size + x) * 4;
            guint32 word = (guint32) p[3] << 24 | (guint32) p[0] << 16 | (guint32) p[1] << 8 | p[2];
            memcpy(data + (gsize) y * stride + (gsize) x * 4, &word, 4);
        }
}

static void cairo_to_rgba(const unsigned char *data, int stride, int size, guint8 *rgba)
{
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            guint32 word;
            memcpy(&word, data + (gsize) y * stride + (gsize) x * 4, 4);
            guint8 *p = rgba + ((gsize) y * size + x) * 4;
            p[0] = (guint8) (word >> 16);
            p[1] = (guint8) (word >> 8);
            p[2] = (guint8) word;
            p[3] = 255;
        }
}

/* Writes LAYOUT centred on (CX, CY) over a dark band as wide as the image, and again one
 * image width to the left and right so that text cut at an edge goes on at the other (the
 * image repeats across a face). */
static void write_centred(cairo_t *cr, PangoLayout *layout, double cx, double cy, int size)
{
    int w, h;
    pango_layout_get_pixel_size(layout, &w, &h);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
    cairo_rectangle(cr, 0, cy - h / 2.0 - 1, size, h + 2);
    cairo_fill(cr);
    for (int k = -1; k <= 1; k++) {
        cairo_move_to(cr, cx - w / 2.0 + k * size, cy - h / 2.0);
        cairo_set_source_rgb(cr, 1, 1, 1);
        pango_cairo_show_layout(cr, layout);
    }
}

guint8 *allium_missing_texture_draw(const char *name, int size)
{
    g_return_val_if_fail(size > 0, NULL);
    guint8 *rgba = g_malloc((gsize) size * size * 4);
    al_texture_checker(size, rgba);
    if (!name || !*name) return rgba;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return rgba; /* the plain checker: still the sign of a missing texture */
    }
    cairo_surface_flush(surface);
    int stride = cairo_image_surface_get_stride(surface);
    rgba_to_cairo(rgba, cairo_image_surface_get_data(surface), stride, size);
    cairo_surface_mark_dirty(surface);
    cairo_t *cr = cairo_create(surface);
    /* Whole pixels, no subpixel colours: the image is magnified on faces. */
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_FULL);
    PangoLayout *layout = pango_cairo_create_layout(cr);
    pango_cairo_context_set_font_options(pango_layout_get_context(layout), options);
    pango_layout_set_text(layout, name, -1);
    /* The largest of a few sizes (in pixels, a quarter of the image at most) at which the
     * name fits in the image; the smallest, ellipsized, when none does. */
    PangoFontDescription *font = pango_font_description_from_string("Sans Bold");
    int pixels = MAX(size / 4, 6), w;
    for (;; pixels--) {
        pango_font_description_set_absolute_size(font, pixels * PANGO_SCALE);
        pango_layout_set_font_description(layout, font);
        pango_layout_get_pixel_size(layout, &w, NULL);
        if (w <= size - 2 || pixels <= MAX(size / 10, 6)) break;
    }
    if (w > size - 2) {
        pango_layout_set_width(layout, (size - 2) * PANGO_SCALE);
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    }
    /* Two rows of squares apart (a quarter and three quarters down), the second shifted by
     * half the image. */
    write_centred(cr, layout, size / 2.0, size / 4.0, size);
    write_centred(cr, layout, size, size * 3 / 4.0, size);
    pango_font_description_free(font);
    g_object_unref(layout);
    cairo_font_options_destroy(options);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_to_rgba(cairo_image_surface_get_data(surface), stride, size, rgba);
    cairo_surface_destroy(surface);
    return rgba;
}
