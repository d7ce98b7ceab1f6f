/* WAD2 and WAD3 texture archives (see wad.h). */
#include "wad.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    HEADER = 12,
    ENTRY = 32,
    MIPTEX_HEADER = 40, /* name, width, height, four offsets */
    TYPE_PALETTE = 0x40,
    TYPE_MIPTEX_WAD3 = 0x43,
    TYPE_MIPTEX_WAD2 = 0x44,
};

/* Files larger than this are refused before they are read whole. */
#define MAX_FILE (1024L * 1024L * 1024L)

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static void report(al_diag_list *diags, al_severity severity, const char *path, const char *format,
                   ...) __attribute__((format(printf, 4, 5)));

static void report(al_diag_list *diags, al_severity severity, const char *path, const char *format,
                   ...)
{
    char message[180];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    al_diag_add(diags, severity, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, "%s: %s", path, message);
}

void al_palette_default(uint8_t palette[768])
{
    /* Sixteen ramps of sixteen: grey, then hues around the colour wheel, dark to light. */
    for (int i = 0; i < 256; i++) {
        int ramp = i / 16, level = i % 16;
        double v = (level + 1) / 16.0, r = v, g = v, b = v;
        if (ramp > 0) {
            double h = (ramp - 1) * 6.0 / 15.0, x = 1 - fabs(fmod(h, 2.0) - 1);
            double c[6][3] = {{1, x, 0}, {x, 1, 0}, {0, 1, x}, {0, x, 1}, {x, 0, 1}, {1, 0, x}};
            int sector = (int) h % 6;
            r = v * (0.35 + 0.65 * c[sector][0]);
            g = v * (0.35 + 0.65 * c[sector][1]);
            b = v * (0.35 + 0.65 * c[sector][2]);
        }
        palette[3 * i] = (uint8_t) lround(255 * r);
        palette[3 * i + 1] = (uint8_t) lround(255 * g);
        palette[3 * i + 2] = (uint8_t) lround(255 * b);
    }
}

/* A lump's name for messages: at most 16 bytes, printable. */
static void lump_name(const unsigned char *raw, char out[17])
{
    int n = 0;
    for (; n < 16 && raw[n]; n++) out[n] = isprint(raw[n]) ? (char) raw[n] : '?';
    out[n] = '\0';
}

size_t al_texture_mip_bytes(int width, int height)
{
    size_t n = 0;
    for (int m = 0; m < 4; m++) n += (size_t) (width >> m) * (size_t) (height >> m);
    return n;
}

/* Keeps the palette indices of T's four mip levels from the lump DATA (SIZE bytes, level
 * offsets OFFSETS, level 0 known to fit): a level that does not fit is sampled from level
 * 0. False if memory runs out. */
static bool keep_indices(const unsigned char *data, size_t size, const uint32_t offsets[4],
                         al_texture *t)
{
    t->indices = malloc(al_texture_mip_bytes(t->width, t->height));
    if (!t->indices) return false;
    uint8_t *out = t->indices;
    for (int m = 0; m < 4; m++) {
        int w = t->width >> m, h = t->height >> m;
        size_t bytes = (size_t) w * h;
        if (offsets[m] >= MIPTEX_HEADER && offsets[m] <= size && size - offsets[m] >= bytes) {
            memcpy(out, data + offsets[m], bytes);
        } else {
            const unsigned char *level0 = data + offsets[0];
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    out[(size_t) y * w + x] =
                        level0[((size_t) y << m) * t->width + ((size_t) x << m)];
        }
        out += bytes;
    }
    return true;
}

/* Decodes the miptex lump DATA (SIZE bytes) into T; false (with a warning) if it does not
 * hold a texture. */
static bool read_miptex(const unsigned char *data, size_t size, int version,
                        const uint8_t *quake_palette, const char *path, int index, const char *name,
                        al_texture *t, al_diag_list *diags)
{
#define BAD(...)                                                                                   \
    do {                                                                                           \
        char why[120];                                                                             \
        snprintf(why, sizeof why, __VA_ARGS__);                                                    \
        report(diags, AL_SEVERITY_WARNING, path, "texture %d (\"%s\") %s; skipped", index, name,   \
               why);                                                                               \
        return false;                                                                              \
    } while (0)
    if (size < MIPTEX_HEADER) BAD("is %zu bytes, too short for a texture header", size);
    uint32_t w = le32(data + 16), h = le32(data + 20);
    if (w == 0 || h == 0 || w > AL_WAD_MAX_EDGE || h > AL_WAD_MAX_EDGE)
        BAD("is %u x %u pixels; edges of 1 to %d are read", w, h, AL_WAD_MAX_EDGE);
    uint32_t offsets[4];
    for (int m = 0; m < 4; m++) offsets[m] = le32(data + 24 + 4 * m);
    size_t pixels = (size_t) w * h;
    if (offsets[0] == 0) BAD("has no pixels of its own (a texture kept in a .bsp)");
    if (offsets[0] < MIPTEX_HEADER || offsets[0] > size || size - offsets[0] < pixels)
        BAD("has its pixels (%zu bytes at %u) outside its %zu bytes", pixels, offsets[0], size);
    const uint8_t *palette = quake_palette;
    uint8_t padded[768];
    if (version == 3) {
        /* The palette follows the last level: a 16-bit count, then the colours. */
        size_t last = (size_t) (w / 8) * (h / 8);
        size_t at = (size_t) offsets[3] + last;
        if (offsets[3] < MIPTEX_HEADER || offsets[3] > size || at > size || size - at < 2)
            BAD("has no palette after its last mip level");
        unsigned count = (unsigned) data[at] | (unsigned) data[at + 1] << 8;
        if (count == 0 || count > 256 || size - at - 2 < (size_t) count * 3)
            BAD("has a palette of %u colours that does not fit its lump", count);
        palette = data + at + 2;
        if (count < 256) {
            /* Fewer colours than indices: the rest read as black. */
            memset(padded, 0, sizeof padded);
            memcpy(padded, palette, (size_t) count * 3);
            palette = padded;
        }
    }
#undef BAD
    t->rgba = malloc(pixels * 4);
    if (!t->rgba) return false;
    memcpy(t->name, name, sizeof t->name);
    t->width = (int) w;
    t->height = (int) h;
    bool holes = version == 3 && name[0] == '{';
    const unsigned char *index_of = data + offsets[0];
    for (size_t p = 0; p < pixels; p++) {
        unsigned i = index_of[p];
        uint8_t *out = t->rgba + 4 * p;
        if (holes && i == 255) {
            memset(out, 0, 4);
            t->transparent = true;
            continue;
        }
        for (int k = 0; k < 3; k++) out[k] = palette[3 * i + k];
        out[3] = 255;
    }
    al_texture_average(t->rgba, t->width, t->height, t->average);
    if (version == 2 && !keep_indices(data, size, offsets, t)) {
        free(t->rgba);
        t->rgba = NULL;
        return false;
    }
    return true;
}

void al_texture_average(const uint8_t *rgba, int width, int height, float average[3])
{
    double sum[3] = {0, 0, 0};
    size_t opaque = 0, pixels = (size_t) width * (size_t) height;
    for (size_t p = 0; p < pixels; p++, rgba += 4) {
        if (rgba[3] == 0) continue;
        for (int k = 0; k < 3; k++) sum[k] += rgba[k];
        opaque++;
    }
    for (int k = 0; k < 3; k++) average[k] = opaque ? (float) (sum[k] / opaque / 255.0) : 0;
}

al_status al_wad_read(const void *bytes, size_t size, const char *path, const uint8_t *palette,
                      al_wad **out, al_diag_list *diags)
{
    *out = NULL;
    const unsigned char *data = bytes;
    if (size < HEADER || (memcmp(data, "WAD2", 4) != 0 && memcmp(data, "WAD3", 4) != 0)) {
        report(diags, AL_SEVERITY_ERROR, path,
               size < 4 ? "is not a WAD: it is %zu bytes long"
                        : "is not a WAD: it does not begin with \"WAD2\" or \"WAD3\" (%zu bytes)",
               size);
        return AL_ERR_CORRUPT;
    }
    int version = data[3] == '3' ? 3 : 2;
    uint32_t lumps = le32(data + 4), table = le32(data + 8);
    if (table < HEADER || table > size || (size - table) / ENTRY < lumps) {
        report(diags, AL_SEVERITY_ERROR, path,
               "is damaged: its directory of %u lumps at byte %u does not fit its %zu bytes", lumps,
               table, size);
        return AL_ERR_CORRUPT;
    }
    uint8_t fallback[768];
    if (!palette && version == 2) {
        al_palette_default(fallback);
        palette = fallback;
    }
    al_wad *wad = calloc(1, sizeof *wad);
    if (!wad) return AL_ERR_NOMEM;
    wad->version = version;
    wad->lumps = (int) lumps;
    wad->textures = calloc(lumps ? lumps : 1, sizeof *wad->textures);
    if (!wad->textures) {
        free(wad);
        return AL_ERR_NOMEM;
    }
    for (uint32_t l = 0; l < lumps; l++) {
        const unsigned char *e = data + table + (size_t) l * ENTRY;
        uint32_t at = le32(e), disk = le32(e + 4);
        unsigned type = e[12], compression = e[13];
        char name[17];
        lump_name(e + 16, name);
        if (type != TYPE_MIPTEX_WAD2 && type != TYPE_MIPTEX_WAD3) continue; /* palettes, pictures */
        if (compression != 0) {
            report(diags, AL_SEVERITY_WARNING, path,
                   "texture %u (\"%s\") is compressed, which no Quake tool writes; skipped", l,
                   name);
            continue;
        }
        if (at > size || size - at < disk) {
            report(diags, AL_SEVERITY_WARNING, path,
                   "texture %u (\"%s\"): its %u bytes at byte %u lie outside the file's %zu; "
                   "skipped",
                   l, name, disk, at, size);
            continue;
        }
        if (al_wad_find(wad, name)) continue; /* a second of one name: the first counts */
        al_texture *t = &wad->textures[wad->count];
        if (read_miptex(data + at, disk, version, palette, path, (int) l, name, t, diags))
            wad->count++;
    }
    *out = wad;
    return AL_OK;
}

al_status al_wad_load(const char *path, const uint8_t *palette, al_wad **out, al_diag_list *diags)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        report(diags, AL_SEVERITY_ERROR, path, "cannot be read: %s", strerror(errno));
        return AL_ERR_IO;
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || size > MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
        report(diags, AL_SEVERITY_ERROR, path,
               size > MAX_FILE ? "is larger than a WAD can be (over 1 GiB)" : "cannot be read");
        fclose(f);
        return AL_ERR_IO;
    }
    unsigned char *bytes = malloc((size_t) size + 1);
    if (!bytes) {
        fclose(f);
        return AL_ERR_NOMEM;
    }
    bool ok = fread(bytes, 1, (size_t) size, f) == (size_t) size;
    fclose(f);
    al_status st = AL_ERR_IO;
    if (ok)
        st = al_wad_read(bytes, (size_t) size, path, palette, out, diags);
    else
        report(diags, AL_SEVERITY_ERROR, path, "cannot be read");
    free(bytes);
    return st;
}

const al_texture *al_wad_find(const al_wad *wad, const char *name)
{
    for (int i = 0; wad && i < wad->count; i++)
        if (strcasecmp(wad->textures[i].name, name) == 0) return &wad->textures[i];
    return NULL;
}

void al_wad_free(al_wad *wad)
{
    if (!wad) return;
    for (int i = 0; i < wad->count; i++) {
        free(wad->textures[i].rgba);
        free(wad->textures[i].indices);
    }
    free(wad->textures);
    free(wad);
}
