/* The image drawn for a material no source holds: the renderer's checker
 * (al_texture_checker) with the material's name written across it, so that a designer
 * reads which texture is missing on the face itself and in the texture browser.
 *
 * Drawn with Cairo and Pango on the checker's pixels, off the main thread too (the
 * textures' loader). Workload: one image per missing material, when a map's textures load.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The pixels a side of a missing texture's image on faces (texels: world units at scale
 * 1). Twice the renderer's own checker tile, so that the name, written twice, is as
 * frequent as one name a 64-unit tile and has room to be read. */
#define ALLIUM_MISSING_TEXTURE_EDGE 128

/* A SIZE x SIZE RGBA image (rows from the top; g_free it): the checker with NAME written on
 * it, white on a dark band, twice (on alternate rows of squares, the second shifted by half
 * the image) so that a face larger than one tile reads it wherever it is cut. A name wider
 * than the image is written smaller, down to a size still legible, then ellipsized. Any
 * thread. */
guint8 *allium_missing_texture_draw(const char *name, int size);

G_END_DECLS
