/* Robustness of the reader and the compiler on damaged input: truncations at many offsets,
 * random byte changes and spliced garbage, on a generated map and (when present) the real
 * maps. Nothing may crash (this suite runs under AddressSanitizer in CI's sanitizer build
 * and locally), every failure must come with a diagnostic, and whatever reads must
 * compile. Deterministic: the same mutations every run. The coverage-guided fuzzer for
 * deeper runs is tests/fuzz/fuzz-map-read.c. */
#include "check.h"
#include "mapgen.h"
#include "scene.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 42;

static uint32_t next_u32(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (rng_state >> 33);
}

/* Reads TEXT; if it reads, converts and compiles it. Returns false on a failure without a
 * diagnostic (the only failure we consider a bug). */
static bool try_input(const char *text, size_t len, bool compile)
{
    al_map *m = NULL;
    al_diag_list d = {0};
    al_status st = al_map_read_buffer(text, len, &m, &d);
    bool ok = true;
    if (st != AL_OK) {
        ok = d.count > 0 && m == NULL;
    } else if (compile) {
        al_map_input in;
        if (al_map_input_build(m, &in, &d) == AL_OK) {
            al_compile_options o = {.threads = 1};
            al_world *w = NULL;
            if (al_world_compile(&in.input, &o, &w, &d) != AL_OK) ok = d.count > 0;
            if (w) {
                al_trace t;
                al_world_trace(w, 1, (double[3]){0, 0, 0}, (double[3]){100, 50, 25}, &t);
            }
            al_world_destroy(w);
            al_map_input_free(&in);
        }
    }
    al_map_destroy(m);
    al_diag_list_clear(&d);
    return ok;
}

static void mutate_and_try(const char *name, const char *text, size_t len, int rounds,
                           bool compile)
{
    char *buf = malloc(len + 64);
    int bad = 0;
    /* Truncations. */
    for (int i = 0; i < rounds; i++) {
        size_t cut = (size_t) next_u32() % (len + 1);
        memcpy(buf, text, cut);
        if (!try_input(buf, cut, compile && i % 8 == 0)) bad++;
    }
    /* Byte changes: random bytes, NULs, braces, quotes, digits. */
    const char specials[] = "{}()[]\"\n\0-9e.nan/";
    for (int i = 0; i < rounds; i++) {
        memcpy(buf, text, len);
        int changes = 1 + (int) (next_u32() % 8);
        for (int c = 0; c < changes; c++) {
            size_t at = (size_t) next_u32() % len;
            buf[at] = next_u32() % 2 ? (char) next_u32()
                                     : specials[next_u32() % (sizeof specials - 1)];
        }
        if (!try_input(buf, len, compile && i % 8 == 0)) bad++;
    }
    /* Spliced copies of its own pieces (duplicated and moved braces and numbers). */
    for (int i = 0; i < rounds / 4; i++) {
        size_t a = (size_t) next_u32() % len, b = (size_t) next_u32() % len;
        size_t n = (size_t) next_u32() % 48;
        if (a + n > len) n = len - a;
        memcpy(buf, text, len);
        if (b + n <= len) memcpy(buf + b, text + a, n);
        if (!try_input(buf, len, compile && i % 4 == 0)) bad++;
    }
    CHECK_MSG(bad == 0, "%s: %d damaged inputs failed without a diagnostic", name, bad);
    free(buf);
}

CHECK_TEST(generated, "/mapfile/fuzz/damaged-generated-map-never-crashes")
{
    mapgen *g = mapgen_create(true);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, 0, 0, 0, 128, 128, 16, "floor");
    mapgen_ramp(g, 0, 0, 64, 64, 16, 48, 0, 1, "ramp");
    double oct[8][2] = {{10, 0}, {7, 7}, {0, 10}, {-7, 7}, {-10, 0}, {-7, -7}, {0, -10}, {7, -7}};
    mapgen_prism(g, 8, (const double (*)[2]) oct, 0, 64, "pillar");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "light", 1, 2, 3);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, 200, 0, 0, 208, 64, 64, "door");
    mapgen_end_entity(g);
    size_t len;
    const char *text = mapgen_text(g, &len);
    mutate_and_try("generated", text, len, 1500, true);
    mapgen_destroy(g);
}

/* Wedges a 1/512 unit off the grid, side by side, rising to a landing with a box on it
 * (issue 30's kind): damaged, their digits make nearly coplanar planes of every sort. */
CHECK_TEST(off_grid, "/mapfile/fuzz/damaged-off-grid-wedges-never-crash")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, 128, -64, -64, 384, 128, 64, "landing");
    mapgen_box(g, 128, -32, 64, 192, 32, 96, "box");
    mapgen_end_entity(g);
    double nudge[5][3][3] = {{{0}}};
    for (int w = 0; w < 2; w++) {
        nudge[2][2][2] = w ? 1.0 / 512 : -1.0 / 512;
        nudge[3][1][1] = w ? -1.0 / 512 : 0;
        mapgen_begin_entity(g, "func_detail");
        mapgen_ramp_nudged(g, 0, 32 * w, 128, 32 * (w + 1), 0, 64, 0, 1,
                           (const double (*)[3][3]) nudge, "wedge");
        mapgen_end_entity(g);
    }
    size_t len;
    const char *text = mapgen_text(g, &len);
    mutate_and_try("off-grid", text, len, 1500, true);
    mapgen_destroy(g);
}

CHECK_TEST(garbage, "/mapfile/fuzz/random-bytes-never-crash")
{
    char buf[4096];
    int bad = 0;
    for (int i = 0; i < 2000; i++) {
        size_t len = next_u32() % sizeof buf;
        for (size_t k = 0; k < len; k++) buf[k] = (char) next_u32();
        if (i % 2) buf[0] = '{';
        if (!try_input(buf, len, false)) bad++;
    }
    CHECK(bad == 0);
}

CHECK_TEST(real, "/mapfile/fuzz/damaged-real-maps-never-crash")
{
    const char *names[] = {"q1_hulls.map", "q1_hull_expansion_lip.map", "e1m1.map"};
    int tried = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *path = scene_shared_map(names[i]);
        if (!path) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = malloc((size_t) len + 1);
        if (text && fread(text, 1, (size_t) len, f) == (size_t) len)
            mutate_and_try(names[i], text, (size_t) len, len > 100000 ? 60 : 400, len < 100000);
        free(text);
        fclose(f);
        tried++;
    }
    if (!tried) check_skip("real maps not found (meson option shared_maps)");
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
