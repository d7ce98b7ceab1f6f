/* The runtime world's reader: checks a file written by compiler/runtime/write.c (layout in
 * FORMAT.md) and turns its sections into the flat arrays of runtime-internal.h.
 *
 * Entry points: alrt_load, alrt_load_file, alrt_destroy. Workload: one file per level
 * load, a few megabytes. Everything is checked before any query can run: the whole-file
 * and per-section CRC-32s, every offset and count against the bytes there are, every node
 * child and leaf index against its tree, every block index against its model, so that the
 * queries need no checks of their own. Integers and doubles are read byte by byte as
 * little-endian, whatever the host.
 */
#include "runtime-internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest tree accepted: the queries recurse once per level at most, so this bounds their
 * stack. The compiler's block trees are a few dozen levels deep. */
#define MAX_TREE_DEPTH 4096

typedef struct reader {
    const uint8_t *p;
    size_t size, at;
    const char *section; /* for messages */
    bool failed;
    char *message;
    size_t message_size;
} reader;

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed) return;
    r->failed = true;
    if (!r->message || r->message_size == 0) return;
    int n = snprintf(r->message, r->message_size, "section %s: ", r->section);
    if (n < 0 || (size_t) n >= r->message_size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + n, r->message_size - (size_t) n, fmt, ap);
    va_end(ap);
}

static bool have(reader *r, size_t n, const char *what)
{
    if (r->failed) return false;
    if (n > r->size - r->at) {
        fail(r, "%s at byte %zu runs past the section's end (%zu bytes)", what, r->at, r->size);
        return false;
    }
    return true;
}

static uint32_t get_u32(reader *r, const char *what)
{
    if (!have(r, 4, what)) return 0;
    const uint8_t *b = r->p + r->at;
    r->at += 4;
    return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static uint64_t get_u64(reader *r, const char *what)
{
    uint64_t lo = get_u32(r, what);
    return lo | (uint64_t) get_u32(r, what) << 32;
}

static double get_f64(reader *r, const char *what)
{
    uint64_t bits = get_u64(r, what);
    double d;
    memcpy(&d, &bits, sizeof d);
    if (!isfinite(d)) {
        fail(r, "%s at byte %zu is not a finite number", what, r->at - 8);
        return 0;
    }
    return d;
}

static void get_vec(reader *r, double v[3], const char *what)
{
    for (int k = 0; k < 3; k++) v[k] = get_f64(r, what);
}

/* A count of records of at least MIN_SIZE bytes each: refused when the section cannot
 * hold that many, before anything is allocated for them. */
static uint32_t get_count(reader *r, size_t min_size, const char *what)
{
    uint32_t n = get_u32(r, what);
    if (!r->failed && min_size > 0 && n > (r->size - r->at) / min_size)
        fail(r, "%s %u needs more bytes than the section's %zu", what, n, r->size - r->at);
    return r->failed ? 0 : n;
}

static void *alloc_array(reader *r, size_t n, size_t size, alrt_status *st)
{
    void *p = calloc(n ? n : 1, size);
    if (!p && !r->failed) {
        *st = ALRT_ERR_NOMEM;
        fail(r, "out of memory");
    }
    return p;
}

static void end_section(reader *r)
{
    if (!r->failed && r->at != r->size)
        fail(r, "%zu bytes left over after its last record", r->size - r->at);
}

/* --- sections ------------------------------------------------------------------------ */

static void read_hulls(reader *r, alrt_world *w)
{
    uint32_t n = get_u32(r, "hull count");
    if (!r->failed && (n < 1 || n > ALRT_MAX_HULLS)) fail(r, "hull count %u is not 1 to 32", n);
    for (uint32_t h = 0; h < n && have(r, ALRT_HULL_NAME_SIZE, "hull name"); h++) {
        memcpy(w->hull_names[h], r->p + r->at, ALRT_HULL_NAME_SIZE);
        r->at += ALRT_HULL_NAME_SIZE;
        if (memchr(w->hull_names[h], 0, ALRT_HULL_NAME_SIZE) == NULL)
            fail(r, "hull %u: its name is not NUL-terminated", h);
        get_vec(r, w->hull_mins[h], "hull mins");
        get_vec(r, w->hull_maxs[h], "hull maxs");
    }
    w->hull_count = (int) n;
    end_section(r);
}

static void read_nodes(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_count(r, ALRT_NODE_SIZE, "node count");
    w->nodes = alloc_array(r, n, sizeof *w->nodes, st);
    if (r->failed) return;
    w->node_count = n;
    for (uint32_t i = 0; i < n; i++) {
        rt_node *node = &w->nodes[i];
        get_vec(r, node->normal, "node normal");
        node->dist = get_f64(r, "node distance");
        node->child[0] = (int32_t) get_u32(r, "node child");
        node->child[1] = (int32_t) get_u32(r, "node child");
        node->solid_mask = get_u32(r, "node solid mask");
        node->empty_mask = get_u32(r, "node empty mask");
        if (r->failed) return;
    }
    end_section(r);
}

static void read_leaves(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_count(r, 4, "leaf count");
    w->leaves = alloc_array(r, n, sizeof *w->leaves, st);
    if (r->failed) return;
    w->leaf_count = n;
    for (uint32_t i = 0; i < n; i++) w->leaves[i] = get_u32(r, "leaf");
    end_section(r);
}

/* A tree reference: its root and its ranges of the node and leaf arrays, every child of
 * every node checked to be a later node or a leaf of the same tree (so every descent
 * ends), its depth bounded, and (when LEAF_LIMIT is not 0) every leaf value below it. */
static void read_tree(reader *r, const alrt_world *w, rt_tree *t, uint32_t leaf_limit,
                      const char *what, alrt_status *st)
{
    t->root = (int32_t) get_u32(r, what);
    uint32_t nf = get_u32(r, what), nc = get_u32(r, what);
    uint32_t lf = get_u32(r, what), lc = get_u32(r, what);
    if (r->failed) return;
    if (nf > w->node_count || nc > w->node_count - nf) {
        fail(r, "%s: nodes %u+%u outside the %u nodes", what, nf, nc, w->node_count);
        return;
    }
    if (lf > w->leaf_count || lc > w->leaf_count - lf) {
        fail(r, "%s: leaves %u+%u outside the %u leaves", what, lf, lc, w->leaf_count);
        return;
    }
    t->nodes = w->nodes + nf;
    t->leaves = w->leaves + lf;
    t->node_count = nc;
    t->leaf_count = lc;
    if (lc == 0) {
        if (nc != 0) fail(r, "%s: %u nodes but no leaves", what, nc);
        return;
    }
    if (t->root >= 0 ? (uint32_t) t->root >= nc : (uint32_t) (-1 - (int64_t) t->root) >= lc) {
        fail(r, "%s: root %d is outside the tree", what, t->root);
        return;
    }
    if (t->root >= 0 && t->root != 0) {
        fail(r, "%s: root %d is not its first node", what, t->root);
        return;
    }
    for (uint32_t i = 0; i < lc && leaf_limit; i++)
        if (t->leaves[i] >= leaf_limit) {
            fail(r, "%s: leaf %u holds %u, past %u", what, i, t->leaves[i], leaf_limit);
            return;
        }
    if (nc == 0) return;
    uint16_t *depth = alloc_array(r, nc, sizeof *depth, st);
    if (!depth) return;
    for (uint32_t i = 0; i < nc && !r->failed; i++)
        for (int s = 0; s < 2; s++) {
            int32_t c = t->nodes[i].child[s];
            if (c >= 0) {
                if ((uint32_t) c <= i || (uint32_t) c >= nc)
                    fail(r, "%s: node %u's child %d is not a later node of the tree", what, i, c);
                else if (depth[i] + 1 >= MAX_TREE_DEPTH)
                    fail(r, "%s: deeper than %d levels", what, MAX_TREE_DEPTH);
                else
                    depth[c] = (uint16_t) (depth[i] + 1);
            } else if ((uint32_t) (-1 - (int64_t) c) >= lc) {
                fail(r, "%s: node %u's leaf %d is outside the tree's %u leaves", what, i, -1 - c,
                     lc);
            }
        }
    free(depth);
}

static void read_models(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_count(r, 16, "model count");
    if (!r->failed && n == 0) fail(r, "no models (the world is model 0)");
    w->models = alloc_array(r, n, sizeof *w->models, st);
    if (r->failed) return;
    w->model_count = n;
    for (uint32_t m = 0; m < n && !r->failed; m++) {
        rt_model *model = &w->models[m];
        model->entity = (int32_t) get_u32(r, "model entity");
        model->has_brushes = get_u32(r, "model flags") & 1u;
        get_vec(r, model->mins, "model mins");
        get_vec(r, model->maxs, "model maxs");
        get_vec(r, model->reach_mins, "model reach");
        get_vec(r, model->reach_maxs, "model reach");
        model->reach = alloc_array(r, (size_t) w->hull_count, sizeof *model->reach, st);
        for (int h = 0; h < w->hull_count && !r->failed; h++) {
            get_vec(r, model->reach[h][0], "model hull reach");
            get_vec(r, model->reach[h][1], "model hull reach");
        }
        uint32_t blocks = get_count(r, 4 * ALRT_TREE_REF_SIZE, "block count");
        if (!r->failed && blocks == 0) fail(r, "model %u has no blocks", m);
        read_tree(r, w, &model->top, blocks, "model top tree", st);
        if (!r->failed && model->top.leaf_count == 0)
            fail(r, "model %u: top tree has no leaves", m);
        model->blocks = alloc_array(r, blocks, sizeof *model->blocks, st);
        if (r->failed) return;
        model->block_count = blocks;
        for (uint32_t b = 0; b < blocks && !r->failed; b++) {
            rt_block *block = &model->blocks[b];
            read_tree(r, w, &block->onion, 0, "block onion tree", st);
            read_tree(r, w, &block->point, 0, "block point tree", st);
            read_tree(r, w, &block->shift, 0, "block shift tree", st);
            read_tree(r, w, &block->vis, 0, "block vis tree", st);
        }
    }
    end_section(r);
}

static void read_liquids(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_count(r, 56, "liquid count");
    w->liquids = alloc_array(r, n, sizeof *w->liquids, st);
    if (r->failed) return;
    w->liquid_count = n;
    size_t start = r->at, planes = 0;
    /* Two passes: count the planes, then read them into one array. */
    for (int pass = 0; pass < 2 && !r->failed; pass++) {
        r->at = start;
        size_t at = 0;
        for (uint32_t i = 0; i < n && !r->failed; i++) {
            rt_liquid *l = &w->liquids[i];
            l->contents = get_u32(r, "liquid contents");
            if (!r->failed &&
                (l->contents < ALRT_CONTENTS_WATER || l->contents > ALRT_CONTENTS_LAVA))
                fail(r, "liquid %u: contents %u is not water, slime or lava", i, l->contents);
            get_vec(r, l->mins, "liquid mins");
            get_vec(r, l->maxs, "liquid maxs");
            l->plane_count = get_count(r, 32, "liquid plane count");
            for (uint32_t j = 0; j < l->plane_count && !r->failed; j++, at++)
                for (int k = 0; k < 4; k++) {
                    double v = get_f64(r, "liquid plane");
                    if (pass == 1) w->liquid_planes[at][k] = v;
                }
        }
        if (pass == 0) {
            planes = at;
            w->liquid_planes = alloc_array(r, planes, sizeof *w->liquid_planes, st);
        }
    }
    for (uint32_t i = 0, at = 0; i < n && !r->failed; at += w->liquids[i].plane_count, i++)
        w->liquids[i].planes = (const double(*)[4]) w->liquid_planes + at;
    end_section(r);
}

static void read_vis(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_u32(r, "vis leaf count");
    uint32_t row_bytes = (uint32_t) (((uint64_t) n + 7) / 8);
    if (!r->failed && row_bytes > 0 && (uint64_t) n > (r->size - r->at) / row_bytes)
        fail(r, "%u vis leaves need %llu bytes of rows, the section has %zu", n,
             (unsigned long long) n * row_bytes, r->size - r->at);
    if (r->failed) return;
    w->pvs = alloc_array(r, (size_t) n * row_bytes, 1, st);
    if (r->failed) return;
    memcpy(w->pvs, r->p + r->at, (size_t) n * row_bytes);
    r->at += (size_t) n * row_bytes;
    w->vis_leaf_count = n;
    w->row_bytes = row_bytes;
    end_section(r);
    /* Vis trees may name only these leaves. */
    const rt_model *world = &w->models[0];
    for (uint32_t b = 0; b < world->block_count && !r->failed; b++) {
        const rt_tree *t = &world->blocks[b].vis;
        for (uint32_t i = 0; i < t->leaf_count; i++)
            if ((int32_t) t->leaves[i] < -1 || (int32_t) t->leaves[i] >= (int64_t) n) {
                fail(r, "block %u's vis tree names vis leaf %d of %u", b, (int32_t) t->leaves[i],
                     n);
                break;
            }
    }
}

static void read_light(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t width = get_u32(r, "lightmap width"), height = get_u32(r, "lightmap height");
    uint32_t faces = get_count(r, 88, "face count");
    if (r->failed) return;
    w->faces = alloc_array(r, faces, sizeof *w->faces, st);
    if (r->failed) return;
    w->face_count = faces;
    for (uint32_t i = 0; i < faces && !r->failed; i++) {
        rt_face *f = &w->faces[i];
        get_vec(r, f->normal, "face normal");
        f->dist = get_f64(r, "face distance");
        f->luxel = get_f64(r, "face luxel");
        f->u0 = get_f64(r, "face origin");
        f->v0 = get_f64(r, "face origin");
        f->axis_u = get_u32(r, "face axis");
        f->axis_v = get_u32(r, "face axis");
        f->w = get_u32(r, "face width");
        f->h = get_u32(r, "face height");
        f->atlas_x = get_u32(r, "face atlas x");
        f->atlas_y = get_u32(r, "face atlas y");
        f->first_point = get_u32(r, "face first point");
        f->point_count = get_u32(r, "face point count");
        if (r->failed) return;
        if (f->axis_u > 2 || f->axis_v > 2 || !(f->luxel > 0) || f->w == 0 || f->h == 0)
            fail(r, "face %u: bad luxel grid", i);
        else if ((uint64_t) f->atlas_x + f->w + 2 > width ||
                 (uint64_t) f->atlas_y + f->h + 2 > height)
            fail(r, "face %u: its luxels run outside the %ux%u atlas", i, width, height);
        else if (f->point_count < 3)
            fail(r, "face %u: a polygon of %u points", i, f->point_count);
    }
    uint32_t points = get_count(r, 24, "point count");
    for (uint32_t i = 0; i < faces && !r->failed; i++)
        if (w->faces[i].first_point > points ||
            w->faces[i].point_count > points - w->faces[i].first_point)
            fail(r, "face %u: points %u+%u outside the %u points", i, w->faces[i].first_point,
                 w->faces[i].point_count, points);
    w->points = alloc_array(r, points, sizeof *w->points, st);
    for (uint32_t i = 0; i < points && !r->failed; i++) get_vec(r, w->points[i], "point");
    if (r->failed) return;
    if (width > 0 && (uint64_t) height > (r->size - r->at) / 12 / width) {
        fail(r, "a %ux%u atlas needs more bytes than the section has", width, height);
        return;
    }
    w->texels = alloc_array(r, (size_t) width * height, sizeof *w->texels, st);
    for (size_t i = 0; i < (size_t) width * height && !r->failed; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t bits = get_u32(r, "texel");
            float v;
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v)) fail(r, "texel %zu is not a finite number", i);
            w->texels[i][k] = v;
        }
    if (r->failed) return;
    w->light_width = width;
    w->light_height = height;
    end_section(r);
}

static void read_entities(reader *r, alrt_world *w, alrt_status *st)
{
    uint32_t n = get_count(r, 4, "entity count");
    w->entities = alloc_array(r, n, sizeof *w->entities, st);
    if (r->failed) return;
    w->entity_count = n;
    /* First pass: sizes; the strings then go to one block, each NUL-terminated. */
    size_t start = r->at, pairs = 0, bytes = 0;
    for (uint32_t e = 0; e < n && !r->failed; e++) {
        uint32_t pc = get_count(r, 8, "pair count");
        for (uint32_t i = 0; i < 2 * pc && !r->failed; i++) {
            uint32_t len = get_u32(r, "string length");
            if (have(r, len, "string")) {
                if (memchr(r->p + r->at, 0, len)) fail(r, "entity %u: a string holds a NUL", e);
                r->at += len;
                bytes += (size_t) len + 1;
            }
        }
        w->entities[e].pair_count = pc;
        pairs += pc;
    }
    end_section(r);
    w->strings = alloc_array(r, 2 * pairs, sizeof *w->strings, st);
    w->string_bytes = alloc_array(r, bytes, 1, st);
    if (r->failed) return;
    r->at = start;
    size_t s = 0, at = 0;
    for (uint32_t e = 0; e < n; e++) {
        get_u32(r, "pair count");
        w->entities[e].keys = w->strings + s;
        for (uint32_t i = 0; i < 2 * w->entities[e].pair_count; i++) {
            uint32_t len = get_u32(r, "string length");
            memcpy(w->string_bytes + at, r->p + r->at, len);
            r->at += len;
            w->string_bytes[at + len] = 0;
            w->strings[s++] = w->string_bytes + at;
            at += (size_t) len + 1;
        }
    }
    /* keys and values interleave: key i at 2i, value at 2i + 1; see alrt_entity_pair */
}

/* --- the file ------------------------------------------------------------------------ */

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static uint64_t le64(const uint8_t *b)
{
    return le32(b) | (uint64_t) le32(b + 4) << 32;
}

alrt_status alrt_load(const void *data, size_t size, alrt_world **out, char *message,
                      size_t message_size)
{
    *out = NULL;
    if (message && message_size) message[0] = 0;
    const uint8_t *bytes = data;
    reader hr = {bytes, size, 0, "header", false, message, message_size};
    if (size < ALRT_HEADER_SIZE || memcmp(bytes, ALRT_MAGIC, ALRT_MAGIC_SIZE) != 0) {
        fail(&hr, "not an Allium runtime world (no \"%s\" magic)", ALRT_MAGIC);
        return ALRT_ERR_FORMAT;
    }
    uint32_t version = le32(bytes + 8), sections = le32(bytes + 12), crc = le32(bytes + 16);
    uint64_t file_size = le64(bytes + 24);
    if (version != ALRT_FORMAT_VERSION) {
        fail(&hr, "format version %u, this library reads version %u", version, ALRT_FORMAT_VERSION);
        return ALRT_ERR_FORMAT;
    }
    if (file_size != size) {
        fail(&hr, "the header says %llu bytes, the file has %zu", (unsigned long long) file_size,
             size);
        return ALRT_ERR_CORRUPT;
    }
    static const uint8_t zero[4];
    uint32_t c = alrt_crc32(0, bytes, 16);
    c = alrt_crc32(c, zero, 4);
    c = alrt_crc32(c, bytes + 20, size - 20);
    if (c != crc) {
        fail(&hr, "the file's CRC-32 is %08x, its header says %08x", c, crc);
        return ALRT_ERR_CORRUPT;
    }
    if (le32(bytes + 20) != 0) {
        fail(&hr, "reserved field is not zero");
        return ALRT_ERR_CORRUPT;
    }
    if (sections != ALRT_SEC_COUNT || (size - ALRT_HEADER_SIZE) / ALRT_DIR_ENTRY_SIZE < sections) {
        fail(&hr, "%u sections, expected %d", sections, ALRT_SEC_COUNT);
        return ALRT_ERR_CORRUPT;
    }
    alrt_world *w = calloc(1, sizeof *w);
    if (!w) {
        fail(&hr, "out of memory");
        return ALRT_ERR_NOMEM;
    }
    alrt_status st = ALRT_ERR_CORRUPT;
    reader r = hr;
    for (int s = 0; s < ALRT_SEC_COUNT && !r.failed; s++) {
        const uint8_t *e = bytes + ALRT_HEADER_SIZE + (size_t) s * ALRT_DIR_ENTRY_SIZE;
        r.section = alrt_section_tags[s];
        if (memcmp(e, alrt_section_tags[s], 4) != 0) {
            fail(&r, "directory entry %d has tag \"%.4s\"", s, (const char *) e);
            break;
        }
        uint64_t off = le64(e + 8), len = le64(e + 16);
        if (off > size || len > size - off) {
            fail(&r, "offset %llu and size %llu run past the file's %zu bytes",
                 (unsigned long long) off, (unsigned long long) len, size);
            break;
        }
        if (alrt_crc32(0, bytes + off, len) != le32(e + 4)) {
            fail(&r, "its CRC-32 does not match (the section is damaged)");
            break;
        }
        r.p = bytes + off;
        r.size = (size_t) len;
        r.at = 0;
        switch (s) {
        case ALRT_SEC_HULL:
            read_hulls(&r, w);
            break;
        case ALRT_SEC_NODE:
            read_nodes(&r, w, &st);
            break;
        case ALRT_SEC_LEAF:
            read_leaves(&r, w, &st);
            break;
        case ALRT_SEC_MODL:
            read_models(&r, w, &st);
            break;
        case ALRT_SEC_LIQD:
            read_liquids(&r, w, &st);
            break;
        case ALRT_SEC_VISL:
            read_vis(&r, w, &st);
            break;
        case ALRT_SEC_LMAP:
            read_light(&r, w, &st);
            break;
        case ALRT_SEC_ENTS:
            read_entities(&r, w, &st);
            break;
        }
    }
    if (r.failed) {
        alrt_destroy(w);
        return st;
    }
    *out = w;
    return ALRT_OK;
}

alrt_status alrt_load_file(const char *path, alrt_world **out, char *message, size_t message_size)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    bool ok = f != NULL;
    int err = f ? 0 : errno;
    while (ok) {
        if (size == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                if (message && message_size)
                    snprintf(message, message_size, "%s: out of memory", path);
                return ALRT_ERR_NOMEM;
            }
            data = grown;
        }
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0) {
            if (ferror(f)) ok = false, err = errno;
            break;
        }
    }
    if (f) fclose(f);
    if (!ok) {
        free(data);
        if (message && message_size) snprintf(message, message_size, "%s: %s", path, strerror(err));
        return ALRT_ERR_IO;
    }
    char inner[256];
    alrt_status st = alrt_load(data, size, out, inner, sizeof inner);
    free(data);
    if (st != ALRT_OK && message && message_size)
        snprintf(message, message_size, "%s: %s", path, inner);
    return st;
}

void alrt_destroy(alrt_world *w)
{
    if (!w) return;
    for (uint32_t m = 0; m < w->model_count; m++) {
        free(w->models[m].reach);
        free(w->models[m].blocks);
    }
    free(w->models);
    free(w->nodes);
    free(w->leaves);
    free(w->liquids);
    free(w->liquid_planes);
    free(w->pvs);
    free(w->faces);
    free(w->points);
    free(w->texels);
    free(w->entities);
    free(w->strings);
    free(w->string_bytes);
    free(w);
}

const char *alrt_status_message(alrt_status status)
{
    switch (status) {
    case ALRT_OK:
        return "no error";
    case ALRT_ERR_IO:
        return "the file could not be read";
    case ALRT_ERR_NOMEM:
        return "out of memory";
    case ALRT_ERR_FORMAT:
        return "not an Allium runtime world of this version";
    case ALRT_ERR_CORRUPT:
        return "the file is damaged";
    }
    return "unknown status";
}

uint32_t alrt_crc32(uint32_t crc, const void *data, size_t size)
{
    /* Byte by byte through the table of the reflected polynomial 0xedb88320 (entry i is
     * the CRC register after eight shifts of i), written out so that nothing is built at
     * run time. */
    static const uint32_t table[256] = {
        0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu, 0xe963a535u,
        0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u, 0x09b64c2bu, 0x7eb17cbdu,
        0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u, 0xf3b97148u, 0x84be41deu, 0x1adad47du,
        0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u, 0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu,
        0x14015c4fu, 0x63066cd9u, 0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u,
        0xa2677172u, 0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
        0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u, 0x26d930acu,
        0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u, 0xcfba9599u, 0xb8bda50fu,
        0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u, 0x2f6f7c87u, 0x58684c11u, 0xc1611dabu,
        0xb6662d3du, 0x76dc4190u, 0x01db7106u, 0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu,
        0x9fbfe4a5u, 0xe8b8d433u, 0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu,
        0x086d3d2du, 0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
        0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u, 0x8bbeb8eau,
        0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u, 0x4db26158u, 0x3ab551ceu,
        0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u, 0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au,
        0x346ed9fcu, 0xad678846u, 0xda60b8d0u, 0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u,
        0x5005713cu, 0x270241aau, 0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u,
        0xce61e49fu, 0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
        0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au, 0xead54739u,
        0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u, 0x0d6d6a3eu, 0x7a6a5aa8u,
        0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u, 0xf00f9344u, 0x8708a3d2u, 0x1e01f268u,
        0x6906c2feu, 0xf762575du, 0x806567cbu, 0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u,
        0x10da7a5au, 0x67dd4accu, 0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u,
        0xa1d1937eu, 0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
        0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u, 0x316e8eefu,
        0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u, 0xcc0c7795u, 0xbb0b4703u,
        0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u, 0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u,
        0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du, 0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au,
        0x9c0906a9u, 0xeb0e363fu, 0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu,
        0x0cb61b38u, 0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
        0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u, 0x88085ae6u,
        0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u, 0x616bffd3u, 0x166ccf45u,
        0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u, 0xa7672661u, 0xd06016f7u, 0x4969474du,
        0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu, 0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u,
        0x47b2cf7fu, 0x30b5ffe9u, 0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u,
        0xcdd70693u, 0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
        0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
    };
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; i++) crc = table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}
