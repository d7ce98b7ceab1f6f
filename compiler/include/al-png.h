/* Minimal PNG writer (8-bit RGB, stored deflate blocks): no zlib needed for a picture. */
#ifndef AL_PNG_H
#define AL_PNG_H

#include <stdbool.h>
#include <stdint.h>

/* Writes WIDTH x HEIGHT RGB pixels (rows top to bottom) to PATH. */
bool al_png_write(const char *path, int width, int height, const uint8_t *rgb);

#endif
