/* AlliumGLArea: see allium-gl-area.h. */
#include "allium-config.h"

#include "allium-gl-area.h"

#include "al-render.h"

#include <epoxy/gl.h>
#include <string.h>

struct _AlliumGLArea {
    GtkGLArea parent_instance;
    al_framebuffer target;             /* the software way's, zero until needed */
    cairo_surface_t *frame;            /* the last frame read back */
    gboolean stale;                    /* a frame was asked for since */
    gboolean read_back;                /* the last frame went the software way */
    int pack_invert;                   /* GL_MESA_pack_invert: 1 yes, 0 no, -1 not asked */
};

G_DEFINE_FINAL_TYPE(AlliumGLArea, allium_gl_area, GTK_TYPE_GL_AREA)

/* Whether GTK draws the window in software (its cairo renderer). */
static gboolean drawn_by_cairo(GtkWidget *widget)
{
    GtkNative *native = gtk_widget_get_native(widget);
    GskRenderer *renderer = native ? gtk_native_get_renderer(native) : NULL;
    return renderer && GSK_IS_CAIRO_RENDERER(renderer);
}

/* The framebuffer to draw a WIDTH x HEIGHT frame in, bound; FALSE if it cannot be made. */
static gboolean bind_buffers(AlliumGLArea *self, int width, int height)
{
    if (self->target.fbo && (self->target.width != width || self->target.height != height))
        al_framebuffer_destroy(&self->target);
    if (!self->target.fbo) return al_framebuffer_create(&self->target, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, self->target.fbo);
    glViewport(0, 0, width, height);
    return TRUE;
}

/* The bound framebuffer's WIDTH x HEIGHT pixels as a cairo image (RGB24: BGRX bytes, which
 * GL's BGRA read gives; cairo ignores the fourth), rows top down. Cairo's own format: GTK
 * 4.8 would convert a memory texture pixel by pixel through floats even into the format it
 * has. */
static cairo_surface_t *read_frame(AlliumGLArea *self, int width, int height)
{
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) return surface;
    cairo_surface_flush(surface);
    guint8 *pixels = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, stride / 4);
    if (self->pack_invert < 0) self->pack_invert = epoxy_has_gl_extension("GL_MESA_pack_invert");
    if (self->pack_invert) {
        glPixelStorei(GL_PACK_INVERT_MESA, GL_TRUE);
        glReadPixels(0, 0, width, height, GL_BGRA, GL_UNSIGNED_BYTE, pixels);
        glPixelStorei(GL_PACK_INVERT_MESA, GL_FALSE);
    } else {
        /* GL's rows run bottom up: read each where it goes. */
        for (int y = 0; y < height; y++)
            glReadPixels(0, height - 1 - y, width, 1, GL_BGRA, GL_UNSIGNED_BYTE,
                         pixels + (gsize) y * (gsize) stride);
    }
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    cairo_surface_mark_dirty(surface);
    return surface;
}

static void allium_gl_area_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
    AlliumGLArea *self = ALLIUM_GL_AREA(widget);
    GtkGLArea *area = GTK_GL_AREA(widget);
    int scale = gtk_widget_get_scale_factor(widget);
    int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
    gboolean software = drawn_by_cairo(widget) && w > 0 && h > 0;
    if (software) {
        gtk_gl_area_make_current(area);
        software = !gtk_gl_area_get_error(area);
    }
    if (!software) {
        self->read_back = FALSE;
        g_clear_pointer(&self->frame, cairo_surface_destroy);
        GTK_WIDGET_CLASS(allium_gl_area_parent_class)->snapshot(widget, snapshot);
        return;
    }
    int pw = w * scale, ph = h * scale;
    gboolean resized = !self->frame || cairo_image_surface_get_width(self->frame) != pw ||
                       cairo_image_surface_get_height(self->frame) != ph;
    if (self->stale || resized) {
        if (!bind_buffers(self, pw, ph)) {
            /* No framebuffer of our own: GTK's way. */
            self->read_back = FALSE;
            g_clear_pointer(&self->frame, cairo_surface_destroy);
            GTK_WIDGET_CLASS(allium_gl_area_parent_class)->snapshot(widget, snapshot);
            return;
        }
        gboolean handled = FALSE;
        g_signal_emit_by_name(area, "render", gtk_gl_area_get_context(area), &handled);
        glBindFramebuffer(GL_FRAMEBUFFER, self->target.fbo);
        g_clear_pointer(&self->frame, cairo_surface_destroy);
        self->frame = read_frame(self, pw, ph);
        self->stale = FALSE;
        self->read_back = TRUE;
    }
    /* Drawn by cairo as it is: an unscaled paint of an image in the window's own format. */
    cairo_t *cr = gtk_snapshot_append_cairo(snapshot, &GRAPHENE_RECT_INIT(0, 0, w, h));
    if (scale != 1) cairo_scale(cr, 1.0 / scale, 1.0 / scale);
    cairo_set_source_surface(cr, self->frame, 0, 0);
    cairo_paint(cr);
    cairo_destroy(cr);
}

static void allium_gl_area_unrealize(GtkWidget *widget)
{
    AlliumGLArea *self = ALLIUM_GL_AREA(widget);
    if (self->target.fbo) {
        gtk_gl_area_make_current(GTK_GL_AREA(widget));
        if (!gtk_gl_area_get_error(GTK_GL_AREA(widget))) al_framebuffer_destroy(&self->target);
        memset(&self->target, 0, sizeof self->target);
    }
    g_clear_pointer(&self->frame, cairo_surface_destroy);
    self->pack_invert = -1; /* the next context's to say */
    GTK_WIDGET_CLASS(allium_gl_area_parent_class)->unrealize(widget);
}

static void allium_gl_area_finalize(GObject *object)
{
    g_clear_pointer(&ALLIUM_GL_AREA(object)->frame, cairo_surface_destroy);
    G_OBJECT_CLASS(allium_gl_area_parent_class)->finalize(object);
}

static void allium_gl_area_class_init(AlliumGLAreaClass *klass)
{
    GTK_WIDGET_CLASS(klass)->snapshot = allium_gl_area_snapshot;
    GTK_WIDGET_CLASS(klass)->unrealize = allium_gl_area_unrealize;
    G_OBJECT_CLASS(klass)->finalize = allium_gl_area_finalize;
}

static void allium_gl_area_init(AlliumGLArea *self)
{
    self->stale = TRUE;
    self->pack_invert = -1;
}

void allium_gl_area_queue_render(AlliumGLArea *self)
{
    g_return_if_fail(ALLIUM_IS_GL_AREA(self));
    self->stale = TRUE;
    gtk_gl_area_queue_render(GTK_GL_AREA(self));
}

gboolean allium_gl_area_reads_back(AlliumGLArea *self)
{
    g_return_val_if_fail(ALLIUM_IS_GL_AREA(self), FALSE);
    return self->read_back;
}
