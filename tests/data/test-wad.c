/* WAD2 and WAD3 texture archives: known pixels read back through the palette, WAD3's own
 * palettes and transparency, and damaged files (wrong magic, truncation at every byte,
 * sizes and offsets that do not fit, huge dimensions, random damage) read without a crash,
 * with a message naming the file and the lump. */
#include "check.h"
#include "textures/wad.h"
#include "textures/wad-write.h"

#include <stdlib.h>
#include <string.h>

/* A 16 x 8 texture whose pixel (x, y) has index (x * 16 + y * 3) % 256. */
static uint8_t pattern[16 * 8];

static void make_pattern(void)
{
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) pattern[y * 16 + x] = (uint8_t) ((x * 16 + y * 3) % 256);
}

/* A palette whose colour i is (i, 255 - i, i / 2). */
static void make_palette(uint8_t palette[768])
{
    for (int i = 0; i < 256; i++) {
        palette[3 * i] = (uint8_t) i;
        palette[3 * i + 1] = (uint8_t) (255 - i);
        palette[3 * i + 2] = (uint8_t) (i / 2);
    }
}

static bool said(const al_diag_list *d, const char *words)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, words)) return true;
    return false;
}

CHECK_TEST(wad2, "/wad/wad2-pixels-read-through-the-given-palette")
{
    make_pattern();
    uint8_t palette[768];
    make_palette(palette);
    al_wad_texture_desc t[2] = {{"METAL1_1", 16, 8, pattern, NULL},
                                {"+0button", 16, 8, pattern, NULL}};
    size_t size;
    uint8_t *bytes = al_wad_write(2, t, 2, palette, &size);
    REQUIRE(bytes);
    al_wad *wad = NULL;
    al_diag_list d = {0};
    REQUIRE(al_wad_read(bytes, size, "test.wad", palette, &wad, &d) == AL_OK);
    CHECK(d.count == 0);
    CHECK(wad->version == 2 && wad->count == 2 && wad->lumps == 3); /* and the palette lump */
    const al_texture *m = al_wad_find(wad, "metal1_1");
    REQUIRE(m);
    CHECK(m->width == 16 && m->height == 8 && !m->transparent);
    int wrong = 0;
    double sum = 0;
    for (int p = 0; p < 16 * 8; p++) {
        int i = pattern[p];
        wrong += m->rgba[4 * p] != i || m->rgba[4 * p + 1] != 255 - i ||
                 m->rgba[4 * p + 2] != i / 2 || m->rgba[4 * p + 3] != 255;
        sum += i;
    }
    CHECK_MSG(wrong == 0, "%d pixels differ", wrong);
    CHECK_NEAR(m->average[0], sum / (16 * 8) / 255.0, 1e-6);
    CHECK(al_wad_find(wad, "+0BUTTON") && !al_wad_find(wad, "metal1_2"));
    /* The palette indices of all four levels are kept, as the lump holds them (wadgen
     * writes level m from every 2^m-th pixel of level 0). */
    REQUIRE(m->indices);
    CHECK(al_texture_mip_bytes(16, 8) == 16 * 8 + 8 * 4 + 4 * 2 + 2 * 1);
    CHECK(memcmp(m->indices, pattern, sizeof pattern) == 0);
    const uint8_t *level = m->indices;
    int wrong_levels = 0;
    for (int lv = 0; lv < 4; lv++) {
        int w = 16 >> lv, h = 8 >> lv;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                wrong_levels += level[y * w + x] != pattern[(y << lv) * 16 + (x << lv)];
        level += w * h;
    }
    CHECK_MSG(wrong_levels == 0, "%d mip pixels differ", wrong_levels);
    al_wad_free(wad);
    /* Without a palette, the built-in one: every index its own colour. */
    REQUIRE(al_wad_read(bytes, size, "test.wad", NULL, &wad, &d) == AL_OK);
    uint8_t fallback[768];
    al_palette_default(fallback);
    m = al_wad_find(wad, "METAL1_1");
    REQUIRE(m);
    CHECK(memcmp(m->rgba, fallback + 3 * pattern[0], 3) == 0);
    al_wad_free(wad);
    al_diag_list_clear(&d);
    free(bytes);
}

CHECK_TEST(wad3, "/wad/wad3-textures-carry-their-palette-and-holes")
{
    make_pattern();
    uint8_t own[768];
    make_palette(own);
    for (int i = 0; i < 768; i++) own[i] = (uint8_t) (255 - own[i]);
    uint8_t holes[16 * 8];
    memcpy(holes, pattern, sizeof holes);
    holes[5] = 255;
    al_wad_texture_desc t[2] = {{"brick", 16, 8, pattern, own}, {"{fence", 16, 8, holes, own}};
    size_t size;
    uint8_t *bytes = al_wad_write(3, t, 2, NULL, &size);
    REQUIRE(bytes);
    al_wad *wad = NULL;
    al_diag_list d = {0};
    REQUIRE(al_wad_read(bytes, size, "hl.wad", NULL, &wad, &d) == AL_OK);
    CHECK(d.count == 0 && wad->version == 3 && wad->count == 2);
    const al_texture *b = al_wad_find(wad, "BRICK"), *f = al_wad_find(wad, "{FENCE");
    REQUIRE(b && f);
    CHECK(b->rgba[0] == 255 - pattern[0] && b->rgba[4 * 17 + 1] == own[3 * pattern[17] + 1]);
    CHECK(!b->transparent && f->transparent);
    CHECK(!b->indices); /* its own palette: no indices into Quake's */
    CHECK(f->rgba[4 * 5 + 3] == 0 && f->rgba[4 * 6 + 3] == 255);
    al_wad_free(wad);
    al_diag_list_clear(&d);
    free(bytes);
}

CHECK_TEST(damaged, "/wad/damaged-wads-are-named-and-never-crash")
{
    make_pattern();
    al_wad_texture_desc t[2] = {{"A", 16, 8, pattern, NULL}, {"B", 16, 8, pattern, NULL}};
    size_t size;
    uint8_t *good = al_wad_write(2, t, 2, NULL, &size);
    REQUIRE(good);
    uint8_t *bytes = malloc(size);
    REQUIRE(bytes);
    al_wad *wad = NULL;
    al_diag_list d = {0};

    /* Not a WAD at all. */
    REQUIRE(al_wad_read("PACK", 4, "x.wad", NULL, &wad, &d) == AL_ERR_CORRUPT);
    CHECK(!wad && said(&d, "x.wad: is not a WAD"));
    al_diag_list_clear(&d);
    /* The directory beyond the end. */
    memcpy(bytes, good, size);
    bytes[8] = 0xff, bytes[9] = 0xff;
    CHECK(al_wad_read(bytes, size, "x.wad", NULL, &wad, &d) == AL_ERR_CORRUPT);
    CHECK(said(&d, "directory of 2 lumps"));
    al_diag_list_clear(&d);
    /* A lump outside the file, and huge dimensions: the other texture is still read. */
    memcpy(bytes, good, size);
    size_t e = al_wad_entry_offset(bytes, 0);
    bytes[e + 4] = 0xff, bytes[e + 5] = 0xff, bytes[e + 6] = 0xff;
    REQUIRE(al_wad_read(bytes, size, "x.wad", NULL, &wad, &d) == AL_OK);
    CHECK(wad->count == 1 && al_wad_find(wad, "B") && said(&d, "texture 0 (\"A\")"));
    al_wad_free(wad);
    al_diag_list_clear(&d);
    memcpy(bytes, good, size);
    uint32_t at = (uint32_t) bytes[e] | (uint32_t) bytes[e + 1] << 8;
    bytes[at + 18] = 0x7f; /* width 8 million */
    REQUIRE(al_wad_read(bytes, size, "x.wad", NULL, &wad, &d) == AL_OK);
    CHECK(wad->count == 1 && said(&d, "pixels; edges of 1 to 4096"));
    al_wad_free(wad);
    al_diag_list_clear(&d);
    /* Pixels beyond the lump, and a compressed lump. */
    memcpy(bytes, good, size);
    bytes[at + 24] = 0xf0;
    bytes[al_wad_entry_offset(bytes, 1) + 13] = 1;
    REQUIRE(al_wad_read(bytes, size, "x.wad", NULL, &wad, &d) == AL_OK);
    CHECK(wad->count == 0 && said(&d, "outside its") && said(&d, "compressed"));
    al_wad_free(wad);
    al_diag_list_clear(&d);

    /* Cut at every length, and damaged at random: never a crash, and a refusal says why. */
    int refused = 0, silent = 0;
    for (size_t n = 0; n < size; n++) {
        al_status st = al_wad_read(good, n, "cut.wad", NULL, &wad, &d);
        if (st != AL_OK) refused++, silent += d.count == 0;
        al_wad_free(wad);
        al_diag_list_clear(&d);
    }
    CHECK(refused > 0 && silent == 0);
    unsigned seed = 7;
    for (int i = 0; i < 3000; i++) {
        memcpy(bytes, good, size);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            bytes[(seed >> 8) % size] = (uint8_t) (seed >> 20);
        }
        al_status st = al_wad_read(bytes, size, "random.wad", NULL, &wad, &d);
        silent += st != AL_OK && d.count == 0;
        al_wad_free(wad);
        al_diag_list_clear(&d);
    }
    CHECK(silent == 0);
    free(bytes);
    free(good);
}

CHECK_TEST(missing_file, "/wad/a-missing-file-is-named")
{
    al_wad *wad = NULL;
    al_diag_list d = {0};
    CHECK(al_wad_load("/nonexistent/textures.wad", NULL, &wad, &d) == AL_ERR_IO && !wad);
    CHECK(said(&d, "/nonexistent/textures.wad: cannot be read"));
    al_diag_list_clear(&d);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
