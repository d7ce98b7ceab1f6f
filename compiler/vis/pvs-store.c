/* PVS rows in stored worlds (vis.h): run-length coded zero bytes, as Quake stores its
 * visibility. Rows of a sealed map are mostly zeros (e1m1: 170 of 1,344 leaves seen on
 * average), so they shrink several times over. */
#include "vis.h"

#include <stdlib.h>
#include <string.h>

static unsigned char row_byte(const uint64_t *row, int32_t i)
{
    return (unsigned char) (row[i >> 3] >> ((i & 7) * 8));
}

size_t al_vis_rle_row(const uint64_t *row, int32_t bits, unsigned char *out)
{
    int32_t row_bytes = (bits + 7) / 8;
    size_t n = 0;
    for (int32_t i = 0; i < row_bytes;) {
        unsigned char b = row_byte(row, i);
        if (b) {
            out[n++] = b;
            i++;
            continue;
        }
        int run = 0;
        while (i < row_bytes && run < 255 && row_byte(row, i) == 0) run++, i++;
        out[n++] = 0;
        out[n++] = (unsigned char) run;
    }
    return n;
}

bool al_vis_store_pvs(const al_vis *vis, al_stored_pvs *out)
{
    memset(out, 0, sizeof *out);
    if (!vis->pvs || vis->stats.level == AL_PVS_NONE) return false;
    int32_t row_bytes = (vis->cluster_count + 7) / 8;
    /* At worst (lone zero bytes between others) a byte takes two. */
    size_t cap = 2 * (size_t) vis->cluster_count * (size_t) row_bytes + 1;
    unsigned char *code = malloc(cap);
    if (!code) return false;
    size_t n = 0;
    for (int32_t c = 0; c < vis->cluster_count; c++)
        n += al_vis_rle_row(al_vis_row(vis, c), vis->cluster_count, code + n);
    out->level = vis->stats.level;
    out->clusters = vis->cluster_count;
    out->portals = vis->vis_portal_count;
    out->avg_visible_coarse = vis->stats.avg_visible_coarse;
    out->avg_visible_tight = vis->stats.avg_visible_tight;
    out->bytes = realloc(code, n ? n : 1);
    if (!out->bytes) out->bytes = code;
    out->size = n;
    return true;
}

bool al_vis_load_pvs(al_vis *vis, const al_stored_pvs *stored, al_pvs_level level)
{
    if (!stored || !stored->bytes || level == AL_PVS_NONE) return false;
    /* TIGHT (0) is tighter than COARSE (1). */
    if (stored->level != AL_PVS_TIGHT && stored->level != AL_PVS_COARSE) return false;
    if (stored->level > level || stored->clusters != vis->cluster_count ||
        stored->portals != vis->vis_portal_count)
        return false;
    int32_t words = (vis->cluster_count + 63) / 64, row_bytes = (vis->cluster_count + 7) / 8;
    uint64_t *rows = calloc((size_t) vis->cluster_count * (size_t) words + 1, sizeof *rows);
    if (!rows) return false;
    size_t at = 0;
    bool ok = true;
    for (int32_t c = 0; c < vis->cluster_count && ok; c++) {
        uint64_t *row = rows + (size_t) c * (size_t) words;
        for (int32_t i = 0; i < row_bytes && ok;) {
            if (at >= stored->size) {
                ok = false;
                break;
            }
            unsigned char b = stored->bytes[at++];
            if (b) {
                row[i >> 3] |= (uint64_t) b << ((i & 7) * 8);
                i++;
                continue;
            }
            if (at >= stored->size || stored->bytes[at] == 0 || i + stored->bytes[at] > row_bytes) {
                ok = false;
                break;
            }
            i += stored->bytes[at++];
        }
        /* Bits past the last vis leaf, and a row without its own leaf, mean damage. */
        if (ok && (vis->cluster_count & 63) &&
            (row[words - 1] >> (vis->cluster_count & 63)) != 0)
            ok = false;
        if (ok && !(row[c >> 6] >> (c & 63) & 1)) ok = false;
    }
    if (!ok || at != stored->size) {
        free(rows);
        return false;
    }
    free(vis->pvs);
    vis->pvs = rows;
    vis->row_words = words;
    vis->stats.level = stored->level;
    vis->stats.ms_coarse = vis->stats.ms_tight = 0;
    vis->stats.avg_visible_coarse = stored->avg_visible_coarse;
    vis->stats.avg_visible_tight = stored->level == AL_PVS_TIGHT ? stored->avg_visible_tight : 0;
    vis->stats.pvs_stored = true;
    return true;
}

void al_stored_pvs_free(al_stored_pvs *stored)
{
    if (!stored) return;
    free(stored->bytes);
    memset(stored, 0, sizeof *stored);
}
