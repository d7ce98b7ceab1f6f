/* Writing WAD2 and WAD3 files (the layout wad.h reads), in memory: the tests' textures of
 * known pixels and the sample map's textures (data/samples/sample-wad.c). */
#ifndef AL_WAD_WRITE_H
#define AL_WAD_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct al_wad_texture_desc {
    const char *name;
    int width, height;
    const uint8_t *indices; /* width * height palette indices of mip level 0 (the smaller
                               levels are written from it, every other pixel) */
    const uint8_t *palette; /* WAD3: its 256 colours (768 bytes); NULL: a grey ramp */
} al_wad_texture_desc;

/* A WAD (VERSION 2 or 3) holding COUNT textures, plus, for WAD2, a palette lump named
 * "PALETTE" when PALETTE is given: malloc'd, its size in *SIZE. */
uint8_t *al_wad_write(int version, const al_wad_texture_desc *textures, int count,
                      const uint8_t *palette, size_t *size);

/* Offset of lump I's directory entry in a WAD from al_wad_write. */
size_t al_wad_entry_offset(const uint8_t *wad, int i);

#endif
