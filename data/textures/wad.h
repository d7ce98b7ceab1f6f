/* Texture archives: Quake's WAD2 and Half-Life's WAD3.
 *
 * A WAD is a header ("WAD2" or "WAD3", the lump count, the directory's offset), the lumps,
 * and a directory of 32-byte entries (offset, size on disk, size, type, compression, two
 * bytes of padding, a 16-byte name). The textures are miptex lumps (type 'D' in WAD2, 'C'
 * in WAD3): a 16-byte name, width, height and the offsets of four mip levels of 8-bit
 * palette indices, each level half the size of the one before. WAD3 textures carry their
 * own 256-colour palette after the last level; WAD2 textures use Quake's palette, which
 * the caller gives (palette.lmp, or a palette lump of gfx.wad) or al_palette_default makes.
 * A WAD3 texture whose name starts with '{' draws index 255 as transparent.
 *
 * Every count, offset and size is checked against the file: a damaged WAD gives a
 * diagnostic naming the file, and the lump (its index and name) and why, and its good
 * textures are still read; nothing is read outside the bytes given.
 */
#ifndef AL_WAD_H
#define AL_WAD_H

#include "al-diag.h"
#include "al-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest texture edge read (Quake's engines take 4096 at most). */
#define AL_WAD_MAX_EDGE 4096

typedef struct al_texture {
    char name[17]; /* as stored, NUL-terminated */
    int width, height;
    uint8_t *rgba;    /* owned; width * height * 4 bytes of mip level 0, rows top down */
    bool transparent; /* some pixels have alpha 0 (WAD3 '{' textures) */
    float average[3]; /* the mean colour of the opaque pixels, sRGB 0..1 */
    /* WAD2 only (NULL for WAD3, whose colours are the texture's own): the palette indices
     * of the four mip levels one after another, width * height * 85 / 64 bytes (each level
     * has half the edges of the one before, rounded down), owned. Levels the lump does not
     * hold whole are made from level 0 by taking every 2nd, 4th, 8th pixel. A BSP's miptex
     * lump carries them as they are. */
    uint8_t *indices;
} al_texture;

/* Bytes of the four mip levels of a WIDTH x HEIGHT texture. */
size_t al_texture_mip_bytes(int width, int height);

typedef struct al_wad {
    int version; /* 2 or 3 */
    al_texture *textures;
    int count;
    int lumps; /* in the directory, textures or not */
} al_wad;

/* Quake's palette layout when none is at hand: 768 bytes (256 RGB triples) of ramps, grey
 * first, that draw a WAD2 texture recognisably though not in its true colours. */
void al_palette_default(uint8_t palette[768]);

/* The mean colour of the opaque texels (alpha above 0) of WIDTH x HEIGHT RGBA texels, sRGB
 * 0..1 (al_texture.average; black if none is opaque). */
void al_texture_average(const uint8_t *rgba, int width, int height, float average[3]);

/* Reads the WAD in BYTES (SIZE of them); PATH names it in diagnostics. PALETTE (768 bytes,
 * may be NULL for al_palette_default) colours WAD2 textures. Returns AL_OK with the WAD in
 * *OUT (even if some lumps were damaged: warnings in DIAGS), AL_ERR_CORRUPT if the header
 * or directory cannot be read (an error in DIAGS), AL_ERR_NOMEM. */
al_status al_wad_read(const void *bytes, size_t size, const char *path, const uint8_t *palette,
                      al_wad **out, al_diag_list *diags);

/* Reads the file PATH as al_wad_read does; AL_ERR_IO (named in DIAGS) if it cannot be read. */
al_status al_wad_load(const char *path, const uint8_t *palette, al_wad **out, al_diag_list *diags);

/* The texture named NAME (case-insensitively, as Quake's tools match them), or NULL. */
const al_texture *al_wad_find(const al_wad *wad, const char *name);

void al_wad_free(al_wad *wad);

#endif
