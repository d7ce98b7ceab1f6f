/* Writing WAD files (see wad-write.h). */
#include "wad-write.h"

#include <stdlib.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (uint8_t) (v >> (8 * k));
}

/* The bytes of one miptex lump into OUT (NULL: only counts them). */
static size_t miptex(int version, const al_wad_texture_desc *t, uint8_t *out)
{
    size_t at = 40, offsets[4];
    for (int m = 0; m < 4; m++) {
        offsets[m] = at;
        at += (size_t) (t->width >> m) * (size_t) (t->height >> m);
    }
    size_t size = at + (version == 3 ? 2 + 768 : 0);
    if (!out) return size;
    memset(out, 0, size);
    strncpy((char *) out, t->name, 16);
    put32(out + 16, (uint32_t) t->width);
    put32(out + 20, (uint32_t) t->height);
    for (int m = 0; m < 4; m++) {
        put32(out + 24 + 4 * m, (uint32_t) offsets[m]);
        int w = t->width >> m, h = t->height >> m;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                out[offsets[m] + (size_t) y * w + x] =
                    t->indices[(size_t) (y << m) * t->width + (size_t) (x << m)];
    }
    if (version == 3) {
        out[at] = 0;
        out[at + 1] = 1; /* 256 colours */
        for (int i = 0; i < 256; i++)
            for (int k = 0; k < 3; k++)
                out[at + 2 + 3 * i + k] = t->palette ? t->palette[3 * i + k] : (uint8_t) i;
    }
    return size;
}

uint8_t *al_wad_write(int version, const al_wad_texture_desc *textures, int count,
                      const uint8_t *palette, size_t *size)
{
    int lumps = count + (version == 2 && palette ? 1 : 0);
    size_t total = 12;
    for (int i = 0; i < count; i++) total += miptex(version, &textures[i], NULL);
    if (lumps > count) total += 768;
    size_t table = total;
    total += (size_t) lumps * 32;
    uint8_t *out = calloc(1, total);
    if (!out) return NULL;
    memcpy(out, version == 3 ? "WAD3" : "WAD2", 4);
    put32(out + 4, (uint32_t) lumps);
    put32(out + 8, (uint32_t) table);
    size_t at = 12;
    for (int i = 0; i < lumps; i++) {
        uint8_t *e = out + table + (size_t) i * 32;
        size_t n;
        if (i < count) {
            n = miptex(version, &textures[i], out + at);
            e[12] = version == 3 ? 0x43 : 0x44;
            strncpy((char *) e + 16, textures[i].name, 16);
        } else {
            n = 768;
            memcpy(out + at, palette, 768);
            e[12] = 0x40;
            strncpy((char *) e + 16, "PALETTE", 16);
        }
        put32(e, (uint32_t) at);
        put32(e + 4, (uint32_t) n);
        put32(e + 8, (uint32_t) n);
        at += n;
    }
    *size = total;
    return out;
}

size_t al_wad_entry_offset(const uint8_t *wad, int i)
{
    uint32_t table = (uint32_t) wad[8] | (uint32_t) wad[9] << 8 | (uint32_t) wad[10] << 16 |
                     (uint32_t) wad[11] << 24;
    return table + (size_t) i * 32;
}
