/* libFuzzer target: the runtime library's loader (compiler/runtime/load.c) on damaged
 * runtime worlds.
 *
 * The input is a runtime world file; the checksums are rewritten to fit whatever came in
 * (every directory entry whose range lies in the file gets its section's CRC-32, then the
 * header its size and the file's CRC-32), so that the fuzzer reaches the structure checks
 * behind them. Whatever loads is queried with every kind of query. Crashes, sanitizer
 * reports and hangs are bugs; refusals are expected. */
#include "allium-runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | b[k];
    return v;
}

static void put32(uint8_t *b, uint32_t v)
{
    for (int k = 0; k < 4; k++) b[k] = (uint8_t) (v >> (8 * k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 32) return 0;
    uint8_t *copy = malloc(size);
    if (!copy) return 0;
    memcpy(copy, data, size);
    for (size_t e = 32; e + 24 <= size && e < 32 + 16 * 24; e += 24) {
        uint64_t off = le64(copy + e + 8), len = le64(copy + e + 16);
        if (off <= size && len <= size - off && !(e + 4 >= off && e < off + len))
            put32(copy + e + 4, alrt_crc32(0, copy + off, (size_t) len));
    }
    for (int k = 0; k < 8; k++) copy[24 + k] = (uint8_t) ((uint64_t) size >> (8 * k));
    put32(copy + 16, 0);
    put32(copy + 16, alrt_crc32(0, copy, size));
    alrt_world *w = NULL;
    char why[256];
    if (alrt_load(copy, size, &w, why, sizeof why) == ALRT_OK) {
        const double a[3] = {8, 16, 24}, b[3] = {300, -200, 90}, n[3] = {0, 0, 1};
        const double mins[3] = {-16, -16, -24}, maxs[3] = {16, 16, 32};
        alrt_hit h;
        for (int hull = 0; hull < alrt_hull_count(w); hull++) {
            alrt_trace(w, hull, a, b, &h);
            alrt_trace(w, hull, b, b, &h);
            alrt_point_contents(w, hull, a);
        }
        alrt_trace_box(w, mins, maxs, a, b, &h);
        alrt_trace_box(w, mins, mins, b, a, &h);
        int la = alrt_leaf_at(w, a), lb = alrt_leaf_at(w, b);
        alrt_leaf_sees(w, la, lb);
        float rgb[3];
        alrt_light_at(w, a, n, rgb);
        for (int e = 0; e < alrt_entity_count(w); e++) {
            alrt_entity_value(w, e, "classname");
            const char *value;
            for (int i = 0; i < alrt_entity_pair_count(w, e); i++)
                alrt_entity_pair(w, e, i, &value);
        }
        alrt_destroy(w);
    }
    free(copy);
    return 0;
}
