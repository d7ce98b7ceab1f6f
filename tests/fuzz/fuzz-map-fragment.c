/* libFuzzer target: the fragment reader (clipboard text, al_map_read_fragment) and the
 * fragment writer on what it reads.
 *
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined
 *   ninja -C build-fuzz tests/fuzz-map-fragment
 *   build-fuzz/tests/fuzz-map-fragment -max_total_time=600 NEW-DIR tests/fuzz/map-fragment
 *
 * Crashes, leaks, undefined behaviour and these are bugs: a read that fails without a
 * diagnostic, one that succeeds with nothing in it, and written text that does not read
 * back or is not written back the same (in either dialect). */
#include "mapfile/map-write.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* MAP written in the dialect VALVE, read back and written again: the same text. */
static void check_round_trip(const al_map *map, bool valve)
{
    char *text = NULL, *again = NULL;
    size_t length = 0, again_length = 0;
    if (!al_map_write_fragment(map, valve, &text, &length)) abort();
    al_map *back = NULL;
    al_diag_list diags = {0};
    if (al_map_read_fragment(text, length, &back, &diags) != AL_OK) abort();
    if (back->entity_count != map->entity_count) abort();
    if (!al_map_write_fragment(back, valve, &again, &again_length)) abort();
    if (again_length != length || memcmp(text, again, length) != 0) abort();
    al_map_destroy(back);
    al_diag_list_clear(&diags);
    free(text);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    al_map *map = NULL;
    al_diag_list diags = {0};
    al_status st = al_map_read_fragment((const char *) data, size, &map, &diags);
    if (st != AL_OK && diags.count == 0) abort();
    if (st == AL_OK) {
        if (map->entity_count == 0 || map->brushes_skipped != 0) abort();
        check_round_trip(map, false);
        check_round_trip(map, true);
    }
    al_map_destroy(map);
    al_diag_list_clear(&diags);
    return 0;
}
