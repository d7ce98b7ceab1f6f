/* An offscreen OpenGL 3.3 core context for tests and tools: EGL on Mesa without a display
 * (EGL_MESA_platform_surfaceless), rendering into a framebuffer object of a fixed size.
 *
 * al_offscreen_create makes the context current on the calling thread and binds the
 * framebuffer; al_renderer_* can then draw into it and al_offscreen_read fetches the
 * pixels. */
#ifndef AL_OFFSCREEN_H
#define AL_OFFSCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct al_offscreen al_offscreen;

/* WIDTH x HEIGHT pixels with a depth buffer. Returns NULL and a reason in ERROR when no
 * suitable EGL display or GL 3.3 core context exists. */
al_offscreen *al_offscreen_create(int width, int height, char *error, size_t error_size);

/* Destroys the context (made current first). NULL is a no-op. */
void al_offscreen_destroy(al_offscreen *o);

/* Reads the framebuffer into RGBA (width * height * 4 bytes), top row first. */
bool al_offscreen_read(al_offscreen *o, uint8_t *rgba);

/* Reads the framebuffer and writes it as a PNG (RGB) at PATH. */
bool al_offscreen_save_png(al_offscreen *o, const char *path);

#endif
