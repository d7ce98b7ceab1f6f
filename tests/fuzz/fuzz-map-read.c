/* libFuzzer target: the .map reader, conversion and compiler on arbitrary bytes.
 *
 *   meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined
 *   (CC=clang) ninja -C build-fuzz && build-fuzz/tests/fuzz-map-read -max_total_time=600
 *       tests/fuzz/corpus
 *
 * Inputs that read are converted and compiled (one thread, small block size so that the
 * block machinery is exercised), and traced once. Crashes, leaks, undefined behaviour and
 * reads that fail without a diagnostic are bugs. Before the conversion, the layers omitted
 * from export are taken out (layer-tree.h), as every export does. */
#include "al-world.h"
#include "layers/layer-tree.h"
#include "mapfile/map-input.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    al_map *map = NULL;
    al_diag_list diags = {0};
    al_status st = al_map_read_buffer((const char *) data, size, &map, &diags);
    if (st != AL_OK && diags.count == 0) abort();
    if (st == AL_OK) {
        /* The layers and groups (TrenchBroom's keys): a broken hierarchy is a warning, and
         * what is omitted from export leaves a map that still converts and compiles. */
        int before = map->entity_count, omitted = 0;
        if (al_map_omit_layers(map, &omitted, &diags) != AL_OK) abort();
        if (map->entity_count != before - omitted || (before > 0 && map->entity_count < 1)) abort();
        al_map_input in;
        if (al_map_input_build(map, &in, &diags) == AL_OK) {
            in.input.block_size = 256;
            al_compile_options o = {.threads = 1};
            al_world *w = NULL;
            if (al_world_compile(&in.input, &o, &w, &diags) == AL_OK) {
                al_trace t;
                double a[3] = {0, 0, 0}, b[3] = {64, 32, 16};
                al_world_trace(w, 1, a, b, &t);
                al_world_trace_box(w, (double[3]){-8, -8, -8}, (double[3]){8, 8, 8}, a, b, &t);
            }
            al_world_destroy(w);
            al_map_input_free(&in);
        }
    }
    al_map_destroy(map);
    al_diag_list_clear(&diags);
    return 0;
}
