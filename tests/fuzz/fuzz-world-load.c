/* libFuzzer target: loading compiled worlds (the cache's bytes) that are damaged.
 *
 * The input is a saved world; its header is rewritten to be valid (magic, version, size,
 * and the checksum of whatever payload came in), so that the fuzzer reaches the structure
 * checks behind the checksum. Whatever loads is queried: points, traces of both kinds,
 * re-saving. Crashes, sanitizer reports and hangs are bugs; refusals are expected. */
#include "al-world.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 32) return 0;
    uint8_t *copy = malloc(size);
    if (!copy) return 0;
    memcpy(copy, data, size);
    /* The header as al_world_save writes it. */
    uint32_t version = AL_WORLD_BYTES_VERSION, order = 0x01020304u;
    uint64_t payload = size - 32, sum = 14695981039346656037u;
    for (size_t i = 32; i < size; i++) sum = (sum ^ copy[i]) * 1099511628211u;
    memcpy(copy, "ALWORLD", 8);
    memcpy(copy + 8, &version, 4);
    memcpy(copy + 12, &order, 4);
    memcpy(copy + 16, &payload, 8);
    memcpy(copy + 24, &sum, 8);
    al_world *w = NULL;
    al_diag_list diags = {0};
    if (al_world_load(copy, size, &w, &diags) == AL_OK) {
        const double a[3] = {8, 16, 24}, b[3] = {300, -200, 90};
        const double mins[3] = {-16, -16, -24}, maxs[3] = {16, 16, 32};
        al_trace t;
        for (int h = 0; h < al_world_hull_count(w); h++) {
            al_world_point_solid(w, h, a);
            al_world_point_solid_map_tree(w, h, b);
            al_world_trace(w, h, a, b, &t);
        }
        al_world_trace_box(w, mins, maxs, a, b, &t);
        void *again = NULL;
        size_t again_size = 0;
        if (al_world_save(w, &again, &again_size) == AL_OK) free(again);
        al_world_destroy(w);
    } else if (diags.count == 0) {
        abort(); /* a refusal must say why */
    }
    al_diag_list_clear(&diags);
    free(copy);
    return 0;
}
