/* AlliumGLArea: the GtkGLArea a view draws in, with a shorter way to the window when GTK
 * draws it in software.
 *
 * With software OpenGL (llvmpipe) GTK 4.8 draws the window with its cairo renderer, and a
 * GtkGLArea's frame then goes from its GL texture to the window by a read back as RGBA, a
 * pixel-by-pixel conversion (through floats) to cairo's BGRA, and a copy flipped upside
 * down by a transform: on lq-e3m4 a third of the interface thread's time while the camera
 * turned. Under that renderer this area draws into its own framebuffer, reads it back in
 * cairo's own format with its rows top down, and hands GTK that memory texture, which GTK
 * copies as it is. Under GTK's OpenGL renderers it is a plain GtkGLArea.
 *
 * The "render" signal is emitted as a GtkGLArea's, with the area's context current and the
 * framebuffer to draw bound; only a frame asked for with allium_gl_area_queue_render (or a
 * new size) is drawn again.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_GL_AREA (allium_gl_area_get_type())
G_DECLARE_FINAL_TYPE(AlliumGLArea, allium_gl_area, ALLIUM, GL_AREA, GtkGLArea)

/* Asks for a frame drawn anew (gtk_gl_area_queue_render, which this one needs instead). */
void allium_gl_area_queue_render(AlliumGLArea *self);

/* Whether the last frame went the software way (for tests and benchmarks). */
gboolean allium_gl_area_reads_back(AlliumGLArea *self);

G_END_DECLS
