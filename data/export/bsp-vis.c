/* The visibility lump of a .bsp (see bsp.h): a row of bits per world leaf, Quake's
 * run-length coding of zero bytes, from the world's PVS.
 *
 * The .bsp's leaves are the point hull's map tree's, the PVS is over the vis trees' leaves,
 * and the two partitions differ (detail brushes split one and not the other). So the rows
 * are made conservative through boxes: a .bsp leaf touches every vis leaf whose cell meets
 * its box (its cell cut only by the axial planes above it, which holds the cell:
 * al_world_vis_leaves_in_box), and it sees every .bsp leaf that touches a vis leaf in the
 * PVS of a vis leaf it touches. Two points that see each other lie in vis leaves one of
 * which has the other in its PVS, and each in a leaf that touches its vis leaf: the row of
 * the first's leaf has the second's. Leaves that touch no vis leaf (solid to sight, or the
 * void outside a sealed map) see nothing.
 *
 * Rows are coded as the stored compiles code theirs (al_vis_rle_row). Workload: e1m1
 * (13,000 leaves, 1,300 vis leaves) in a few tenths of a second: the rows are made once per
 * distinct set of vis leaves touched, and identical rows share bytes.
 */
#include "bsp-internal.h"

#include "al-vis.h"

#include <stdlib.h>
#include <string.h>

typedef struct vis_work {
    int vis_count;      /* vis leaves */
    int leaf_count;     /* world leaves of the .bsp, 1..leaf_count */
    size_t vis_words;   /* words of a row over vis leaves */
    size_t leaf_words;  /* words of a row over .bsp leaves (bit j: leaf j + 1) */
    uint64_t *pvs;      /* per vis leaf, its PVS over vis leaves */
    uint64_t *touching; /* per vis leaf, the .bsp leaves that touch it */
    uint64_t *touched;  /* per .bsp leaf (from 1), the vis leaves it touches */
} vis_work;

static void vis_work_free(vis_work *v)
{
    free(v->pvs);
    free(v->touching);
    free(v->touched);
}

/* Rows are cached per set of vis leaves touched: many .bsp leaves lie in one vis leaf. */
typedef struct row_cache {
    q_index index;   /* hash of a set -> entry */
    q_array entries; /* (first .bsp leaf with that set, visofs) */
} row_cache;

al_status q_build_vis(q_bsp *q)
{
    const al_world *w = q->src->world;
    vis_work v = {0};
    v.vis_count = al_world_vis_leaf_count(w);
    v.leaf_count = Q_AT(q->models, q_model, 0)->visleafs;
    if (v.vis_count <= 0 || v.leaf_count <= 0) return AL_OK; /* no rows: every leaf sees all */
    v.vis_words = ((size_t) v.vis_count + 63) / 64;
    v.leaf_words = ((size_t) v.leaf_count + 63) / 64;
    int32_t *found = malloc((size_t) v.vis_count * sizeof *found);
    v.pvs = calloc((size_t) v.vis_count * v.vis_words, sizeof *v.pvs);
    v.touching = calloc((size_t) v.vis_count * v.leaf_words, sizeof *v.touching);
    v.touched = calloc((size_t) (v.leaf_count + 1) * v.vis_words, sizeof *v.touched);
    size_t row_bytes = ((size_t) v.leaf_count + 7) / 8;
    uint64_t *row = malloc(v.leaf_words * sizeof *row);
    uint64_t *seen = malloc(v.vis_words * sizeof *seen);
    uint8_t *packed = malloc(2 * row_bytes + 2);
    row_cache cache = {{0}, {NULL, 0, 0, sizeof(int32_t[2])}};
    q_array lump = {NULL, 0, 0, 1};
    q_index rows = {0}; /* hash of compressed bytes -> visofs */
    al_status st = AL_ERR_NOMEM;
    if (!found || !v.pvs || !v.touching || !v.touched || !row || !seen || !packed) goto done;
    for (int a = 0; a < v.vis_count; a++)
        for (int b = 0; b < v.vis_count; b++)
            if (al_world_leaf_sees(w, a, b)) v.pvs[a * v.vis_words + b / 64] |= 1ull << (b % 64);
    const q_box *leaf_boxes = q->leaf_boxes.items;
    for (int l = 1; l <= v.leaf_count; l++) {
        int n = al_world_vis_leaves_in_box(w, leaf_boxes[l].mins, leaf_boxes[l].maxs, found,
                                           v.vis_count);
        if (n < 0) goto done;
        for (int i = 0; i < n && i < v.vis_count; i++) {
            int a = found[i];
            v.touching[a * v.leaf_words + (l - 1) / 64] |= 1ull << ((l - 1) % 64);
            v.touched[l * v.vis_words + a / 64] |= 1ull << (a % 64);
        }
    }
    for (int l = 1; l <= v.leaf_count; l++) {
        const uint64_t *set = &v.touched[l * v.vis_words];
        uint64_t h = q_hash_bytes(set, v.vis_words * sizeof *set);
        int32_t hit = q_index_get(&cache.index, h);
        if (hit >= 0) {
            const int32_t *e = *Q_AT(cache.entries, q_pair, hit);
            if (memcmp(set, &v.touched[e[0] * v.vis_words], v.vis_words * sizeof *set) == 0) {
                Q_AT(q->leafs, q_leaf, l)->visofs = e[1];
                continue;
            }
        }
        /* The vis leaves seen from any it touches, then the .bsp leaves touching those. */
        memset(seen, 0, v.vis_words * sizeof *seen);
        for (int a = 0; a < v.vis_count; a++)
            if (set[a / 64] >> (a % 64) & 1)
                for (size_t k = 0; k < v.vis_words; k++) seen[k] |= v.pvs[a * v.vis_words + k];
        memset(row, 0, v.leaf_words * sizeof *row);
        for (int b = 0; b < v.vis_count; b++)
            if (seen[b / 64] >> (b % 64) & 1)
                for (size_t k = 0; k < v.leaf_words; k++)
                    row[k] |= v.touching[b * v.leaf_words + k];
        size_t n = al_vis_rle_row(row, v.leaf_count, packed);
        uint64_t rh = q_hash_bytes(packed, n);
        int32_t visofs = q_index_get(&rows, rh);
        if (visofs < 0 || (size_t) visofs + n > (size_t) lump.count ||
            memcmp((uint8_t *) lump.items + visofs, packed, n) != 0) {
            visofs = lump.count;
            for (size_t i = 0; i < n; i++) {
                uint8_t *b = q_push(&lump);
                if (!b) goto done;
                *b = packed[i];
            }
            if (!q_index_put(&rows, rh, visofs)) goto done;
        }
        Q_AT(q->leafs, q_leaf, l)->visofs = visofs;
        int32_t *e = q_push(&cache.entries);
        if (!e || !q_index_put(&cache.index, h, cache.entries.count - 1)) goto done;
        e[0] = l;
        e[1] = visofs;
    }
    q->visibility = lump.items;
    q->visibility_bytes = (size_t) lump.count;
    lump.items = NULL;
    st = AL_OK;
done:
    free(found);
    free(row);
    free(seen);
    free(packed);
    q_array_free(&lump);
    q_array_free(&cache.entries);
    q_index_free(&cache.index);
    q_index_free(&rows);
    vis_work_free(&v);
    return st;
}
