/* libFuzzer target: radiosity states (the cache's bytes) that are damaged.
 *
 * A small lit room is compiled once and its solver's state saved after a few shots. Each
 * input edits a copy of those bytes: five bytes at a time, a 32-bit offset and the byte to
 * put there; a length that is not a multiple of five also cuts the copy short by the first
 * byte's value. The checksum at the end is then rewritten (FNV-1a, as al_rad_save writes
 * it), so that the fuzzer reaches the checks behind it. What restores is shot from and
 * copied out. Crashes, sanitizer reports and hangs are bugs; refusals are expected. */
#include "al-rad.h"
#include "al-world.h"
#include "mapfile/map-input.h"
#include "mapfile/map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char room[] =
    "{\n\"classname\" \"worldspawn\"\n"
    "{\n( -80 -80 -16 ) ( -80 -79 -16 ) ( -80 -80 -15 ) w 0 0 0 1 1\n"
    "( 80 80 0 ) ( 80 80 1 ) ( 80 81 0 ) w 0 0 0 1 1\n"
    "( -80 -80 -16 ) ( -80 -80 -15 ) ( -79 -80 -16 ) w 0 0 0 1 1\n"
    "( 80 80 0 ) ( 81 80 0 ) ( 80 80 1 ) w 0 0 0 1 1\n"
    "( -80 -80 -16 ) ( -79 -80 -16 ) ( -80 -79 -16 ) w 0 0 0 1 1\n"
    "( 80 80 0 ) ( 80 81 0 ) ( 81 80 0 ) w 0 0 0 1 1\n}\n"
    "{\n( -80 -80 128 ) ( -80 -79 128 ) ( -80 -80 129 ) w 0 0 0 1 1\n"
    "( 80 80 144 ) ( 80 80 145 ) ( 80 81 144 ) w 0 0 0 1 1\n"
    "( -80 -80 128 ) ( -80 -80 129 ) ( -79 -80 128 ) w 0 0 0 1 1\n"
    "( 80 80 144 ) ( 81 80 144 ) ( 80 80 145 ) w 0 0 0 1 1\n"
    "( -80 -80 128 ) ( -79 -80 128 ) ( -80 -79 128 ) w 0 0 0 1 1\n"
    "( 80 80 144 ) ( 80 81 144 ) ( 81 80 144 ) w 0 0 0 1 1\n}\n"
    "{\n( -80 -80 0 ) ( -80 -79 0 ) ( -80 -80 1 ) w 0 0 0 1 1\n"
    "( -64 80 128 ) ( -64 80 129 ) ( -64 81 128 ) w 0 0 0 1 1\n"
    "( -80 -80 0 ) ( -80 -80 1 ) ( -79 -80 0 ) w 0 0 0 1 1\n"
    "( -64 80 128 ) ( -63 80 128 ) ( -64 80 129 ) w 0 0 0 1 1\n"
    "( -80 -80 0 ) ( -79 -80 0 ) ( -80 -79 0 ) w 0 0 0 1 1\n"
    "( -64 80 128 ) ( -64 81 128 ) ( -63 80 128 ) w 0 0 0 1 1\n}\n"
    "{\n( 64 -80 0 ) ( 64 -79 0 ) ( 64 -80 1 ) w 0 0 0 1 1\n"
    "( 80 80 128 ) ( 80 80 129 ) ( 80 81 128 ) w 0 0 0 1 1\n"
    "( 64 -80 0 ) ( 64 -80 1 ) ( 65 -80 0 ) w 0 0 0 1 1\n"
    "( 80 80 128 ) ( 81 80 128 ) ( 80 80 129 ) w 0 0 0 1 1\n"
    "( 64 -80 0 ) ( 65 -80 0 ) ( 64 -79 0 ) w 0 0 0 1 1\n"
    "( 80 80 128 ) ( 80 81 128 ) ( 81 80 128 ) w 0 0 0 1 1\n}\n"
    "{\n( -64 -80 0 ) ( -64 -79 0 ) ( -64 -80 1 ) w 0 0 0 1 1\n"
    "( 64 -64 128 ) ( 64 -64 129 ) ( 64 -63 128 ) w 0 0 0 1 1\n"
    "( -64 -80 0 ) ( -64 -80 1 ) ( -63 -80 0 ) w 0 0 0 1 1\n"
    "( 64 -64 128 ) ( 65 -64 128 ) ( 64 -64 129 ) w 0 0 0 1 1\n"
    "( -64 -80 0 ) ( -63 -80 0 ) ( -64 -79 0 ) w 0 0 0 1 1\n"
    "( 64 -64 128 ) ( 64 -63 128 ) ( 65 -64 128 ) w 0 0 0 1 1\n}\n"
    "{\n( -64 64 0 ) ( -64 65 0 ) ( -64 64 1 ) w 0 0 0 1 1\n"
    "( 64 80 128 ) ( 64 80 129 ) ( 64 81 128 ) w 0 0 0 1 1\n"
    "( -64 64 0 ) ( -64 64 1 ) ( -63 64 0 ) w 0 0 0 1 1\n"
    "( 64 80 128 ) ( 65 80 128 ) ( 64 80 129 ) w 0 0 0 1 1\n"
    "( -64 64 0 ) ( -63 64 0 ) ( -64 65 0 ) w 0 0 0 1 1\n"
    "( 64 80 128 ) ( 64 81 128 ) ( 65 80 128 ) w 0 0 0 1 1\n}\n"
    "}\n"
    "{\n\"classname\" \"light\"\n\"origin\" \"0 0 64\"\n}\n";

typedef struct fixture {
    al_map *map;
    al_map_input input;
    al_world *world;
    al_rad *rad;
    uint8_t *saved;
    size_t saved_size;
} fixture;

/* The room, compiled and lit once for the whole run. Left for the process's end. */
static fixture *get_fixture(void)
{
    static fixture f;
    static int state; /* 0: not made, 1: ready, -1: failed */
    if (state) return state > 0 ? &f : NULL;
    state = -1;
    al_diag_list diags = {0};
    al_compile_options co = {.threads = 1};
    al_rad_options ro = {.threads = 1, .luxel_size = 32};
    void *bytes = NULL;
    bool ok = al_map_read_buffer(room, sizeof room - 1, &f.map, &diags) == AL_OK &&
              al_map_input_build(f.map, &f.input, &diags) == AL_OK &&
              al_world_compile(&f.input.input, &co, &f.world, &diags) == AL_OK &&
              al_rad_create(f.world, &f.input.input, &ro, &f.rad, &diags) == AL_OK;
    if (ok) {
        al_rad_step(f.rad, 12);
        ok = al_rad_save(f.rad, &bytes, &f.saved_size) == AL_OK;
    }
    al_diag_list_clear(&diags);
    if (!ok) abort(); /* the fixture itself must work */
    f.saved = bytes;
    state = 1;
    return &f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fixture *f = get_fixture();
    size_t n = f->saved_size;
    if (size % 5 != 0 && size > 0) n = n > data[0] ? n - data[0] : 0;
    uint8_t *copy = malloc(f->saved_size);
    if (!copy) return 0;
    memcpy(copy, f->saved, f->saved_size);
    for (size_t i = 0; i + 5 <= size; i += 5) {
        uint32_t at;
        memcpy(&at, data + i, 4);
        copy[at % f->saved_size] = data[i + 4];
    }
    if (n >= 8) {
        uint64_t sum = 14695981039346656037u;
        for (size_t i = 0; i < n - 8; i++) sum = (sum ^ copy[i]) * 1099511628211u;
        memcpy(copy + n - 8, &sum, 8);
    }
    if (al_rad_restore(f->rad, copy, n) == AL_OK) {
        al_rad_step(f->rad, 3);
        al_rad_lightmap map;
        if (al_rad_snapshot(f->rad, &map) == AL_OK) al_rad_lightmap_free(&map);
        al_rad_stats st;
        al_rad_get_stats(f->rad, &st);
    }
    free(copy);
    return 0;
}
