/* WAD2 and WAD3 files for the tests, written in memory: textures of known pixels. */
#ifndef ALLIUM_WADGEN_H
#define ALLIUM_WADGEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct wadgen_texture {
    const char *name;
    int width, height;
    const uint8_t *indices; /* width * height palette indices of mip level 0 (the smaller
                               levels are written from it, every other pixel) */
    const uint8_t *palette; /* WAD3: its 256 colours (768 bytes); NULL: a grey ramp */
} wadgen_texture;

/* A WAD (VERSION 2 or 3) holding COUNT textures, plus, for WAD2, a palette lump named
 * "PALETTE" when PALETTE is given: malloc'd, its size in *SIZE. */
uint8_t *wadgen_write(int version, const wadgen_texture *textures, int count,
                      const uint8_t *palette, size_t *size);

/* Offset of lump I's directory entry in a WAD from wadgen_write. */
size_t wadgen_entry(const uint8_t *wad, int i);

#endif
