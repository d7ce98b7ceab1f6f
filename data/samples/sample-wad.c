/* sample-wad: writes the bundled sample map's textures, a WAD3 of drawn patterns, one per
 * material the sample map uses (bricks, planks, tiles, stone, marble, metal plates,
 * concrete, plaster), each in its own 256-colour ramp from a dark to a light shade.
 *
 *   sample-wad OUT.wad              the sample map's textures
 *   sample-wad OUT.wad NAME...      a texture for each NAME instead, its pattern chosen by
 *                                   a word in the name (brick, wood, tile, stone, marble,
 *                                   metal, concrete, plaster) or else by the name's hash,
 *                                   its colours by the hash: stand-ins for a map whose WADs
 *                                   are not at hand (benchmarks, screenshots)
 *
 * Run by the build (data/samples/meson.build); the editor looks for the WAD the sample
 * map's "wad" key names in the folder it is built into or installed in. */
#define _GNU_SOURCE /* strcasestr */
#include "textures/wad-write.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 64 };

typedef enum { BRICK, PLANK, TILE, STONE, MARBLE, PLATE, CONCRETE, PLASTER } pattern;

typedef struct sample_texture {
    const char *name;
    pattern kind;
    uint8_t dark[3], light[3];
} sample_texture;

static const sample_texture textures[] = {
    {"wall_brick", BRICK, {70, 28, 20}, {196, 104, 72}},
    {"balcony_wood", PLANK, {60, 36, 18}, {176, 124, 70}},
    {"crate_wood", PLANK, {74, 50, 22}, {206, 160, 90}},
    {"stairs_wood", PLANK, {52, 32, 20}, {160, 110, 66}},
    {"floor_tiles", TILE, {40, 50, 64}, {196, 204, 212}},
    {"floor_stone", STONE, {48, 46, 42}, {168, 160, 146}},
    {"pillar_marble", MARBLE, {120, 116, 112}, {236, 232, 224}},
    {"door_metal", PLATE, {34, 42, 52}, {150, 166, 180}},
    {"ramp_metal", PLATE, {44, 44, 40}, {170, 168, 150}},
    {"block_concrete", CONCRETE, {70, 72, 74}, {170, 172, 170}},
    {"ceiling_plaster", PLASTER, {120, 116, 104}, {226, 220, 204}},
};

/* A repeatable noise in [0, 1) of integer lattice point (X, Y) and SEED. */
static double lattice(int x, int y, unsigned seed)
{
    unsigned h = (unsigned) x * 374761393u + (unsigned) y * 668265263u + seed * 2246822519u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return (double) ((h ^ (h >> 16)) & 0xffff) / 65536.0;
}

/* Smooth noise over the texture, repeating every SIZE texels, with CELL texels a cell. */
static double noise(double x, double y, int cell, unsigned seed)
{
    int n = SIZE / cell;
    double fx = x / cell, fy = y / cell;
    int x0 = (int) floor(fx), y0 = (int) floor(fy);
    double tx = fx - x0, ty = fy - y0;
    tx = tx * tx * (3 - 2 * tx), ty = ty * ty * (3 - 2 * ty);
    double a = lattice(x0 % n, y0 % n, seed), b = lattice((x0 + 1) % n, y0 % n, seed);
    double c = lattice(x0 % n, (y0 + 1) % n, seed), d = lattice((x0 + 1) % n, (y0 + 1) % n, seed);
    return (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty;
}

/* The shade (0 dark .. 1 light) of texel (X, Y) of a texture of KIND. */
static double shade(pattern kind, int x, int y, unsigned seed)
{
    double grain = noise(x, y, 4, seed) * 0.5 + noise(x, y, 16, seed + 1) * 0.5;
    switch (kind) {
    case BRICK: {
        /* Courses 16 high, bricks 32 long, every other course shifted; mortar 2 wide. */
        int row = y / 16, bx = (x + (row % 2) * 16) % 32;
        if (y % 16 < 2 || bx < 2) return 0.85;
        return 0.25 + 0.35 * lattice((x + (row % 2) * 16) / 32, row, seed) + 0.2 * grain;
    }
    case PLANK: {
        /* Boards 16 wide along x, seams dark, a wavy grain along the board. */
        if (y % 16 == 0) return 0.05;
        double wave = sin((x + 8 * noise(x, y, 16, seed)) * 0.6 + y * 0.3) * 0.5 + 0.5;
        return 0.35 + 0.2 * wave + 0.25 * lattice(0, y / 16, seed) + 0.1 * grain;
    }
    case TILE:
        /* Tiles 16 wide with grout, alternating shades. */
        if (x % 16 == 0 || y % 16 == 0) return 0.1;
        return ((x / 16 + y / 16) % 2 ? 0.85 : 0.6) + 0.1 * grain;
    case STONE: {
        /* Flagstones of 32 with a crack between, mottled. */
        if (x % 32 < 1 || y % 32 < 1) return 0.05;
        return 0.3 + 0.5 * noise(x, y, 8, seed + (unsigned) (x / 32 + 2 * (y / 32)));
    }
    case MARBLE: {
        double v = sin((x + y) * 0.2 + 6 * noise(x, y, 16, seed)) * 0.5 + 0.5;
        return 0.55 + 0.45 * pow(v, 3.0);
    }
    case PLATE: {
        /* Plates of 32, a rivet in each corner, diagonal tread. */
        int px = x % 32, py = y % 32;
        if (px == 0 || py == 0) return 0.05;
        int rx = px < 16 ? px - 4 : px - 28, ry = py < 16 ? py - 4 : py - 28;
        if (rx * rx + ry * ry <= 3) return 0.95;
        return ((x + y) % 8 < 2 ? 0.7 : 0.45) + 0.1 * grain;
    }
    case CONCRETE:
        return 0.3 + 0.5 * grain + (lattice(x, y, seed) > 0.97 ? -0.25 : 0);
    case PLASTER:
        return 0.6 + 0.3 * noise(x, y, 8, seed);
    }
    return 0.5;
}

/* A stand-in for material NAME (see the usage above). */
static sample_texture stand_in(const char *name)
{
    static const struct {
        const char *word;
        pattern kind;
    } words[] = {{"brick", BRICK}, {"wood", PLANK},  {"plank", PLANK},    {"tile", TILE},
                 {"floor", STONE}, {"stone", STONE}, {"rock", STONE},     {"marb", MARBLE},
                 {"met", PLATE},   {"tech", PLATE},  {"crete", CONCRETE}, {"plast", PLASTER}};
    unsigned h = 2166136261u;
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char) (*c | 0x20)) * 16777619u;
    sample_texture t = {.name = name, .kind = (pattern) (h % 8)};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (strcasestr(name, words[w].word)) {
            t.kind = words[w].kind;
            break;
        }
    for (int k = 0; k < 3; k++) {
        int base = 60 + (int) ((h >> (8 * k)) % 150);
        t.dark[k] = (uint8_t) (base / 3);
        t.light[k] = (uint8_t) (base + 40 > 255 ? 255 : base + 40);
    }
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sample-wad OUT.wad [NAME...]\n");
        return 2;
    }
    int count = argc > 2 ? argc - 2 : (int) (sizeof textures / sizeof textures[0]);
    uint8_t (*indices)[SIZE * SIZE] = calloc((size_t) count, sizeof *indices);
    uint8_t (*palettes)[768] = calloc((size_t) count, sizeof *palettes);
    al_wad_texture_desc *desc = calloc((size_t) count, sizeof *desc);
    sample_texture *chosen = calloc((size_t) count, sizeof *chosen);
    if (!indices || !palettes || !desc || !chosen) {
        fprintf(stderr, "sample-wad: out of memory\n");
        return 1;
    }
    for (int i = 0; i < count; i++) chosen[i] = argc > 2 ? stand_in(argv[2 + i]) : textures[i];
    for (int i = 0; i < count; i++) {
        const sample_texture *t = &chosen[i];
        for (int c = 0; c < 256; c++)
            for (int k = 0; k < 3; k++)
                palettes[i][3 * c + k] =
                    (uint8_t) lround(t->dark[k] + (t->light[k] - t->dark[k]) * c / 255.0);
        for (int y = 0; y < SIZE; y++)
            for (int x = 0; x < SIZE; x++) {
                double s = shade(t->kind, x, y, (unsigned) i * 7u + 1u);
                s = s < 0 ? 0 : s > 1 ? 1 : s;
                indices[i][y * SIZE + x] = (uint8_t) lround(s * 255);
            }
        desc[i] = (al_wad_texture_desc){t->name, SIZE, SIZE, indices[i], palettes[i]};
    }
    size_t size = 0;
    uint8_t *bytes = al_wad_write(3, desc, count, NULL, &size);
    free(indices), free(palettes), free(desc), free(chosen);
    if (!bytes) {
        fprintf(stderr, "sample-wad: out of memory\n");
        return 1;
    }
    /* A temporary file renamed over the old one: a failed run leaves no damaged WAD. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(bytes, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    free(bytes);
    if (!ok || rename(tmp, argv[1]) != 0) {
        fprintf(stderr, "sample-wad: cannot write %s\n", argv[1]);
        remove(tmp);
        return 1;
    }
    return 0;
}
