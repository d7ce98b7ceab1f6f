/* The runtime format's writer: a compiled world, its entities and its light, as the
 * little-endian, checksummed sections FORMAT.md describes.
 *
 * Entry points: al_runtime_write, al_runtime_write_file (al-runtime.h). Workload: once per
 * export; it walks every tree of every block once. Trees are written with their nodes in
 * pre-order (a node's children always come after it), which lets the reader prove that
 * every descent ends with one comparison per child. The leaves of the world's vis trees
 * are written as the vis leaf numbers they stand for.
 */
#include "al-runtime.h"
#include "rad/rad-internal.h"
#include "runtime/format.h"
#include "runtime/allium-runtime.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buffer {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} buffer;

static void put_bytes(buffer *b, const void *p, size_t n)
{
    if (b->failed) return;
    if (n > b->capacity - b->size) {
        size_t cap = b->capacity ? b->capacity : 1 << 16;
        while (n > cap - b->size) cap *= 2;
        uint8_t *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void put_u32(buffer *b, uint32_t v)
{
    uint8_t e[4] = {(uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24)};
    put_bytes(b, e, 4);
}

static void put_u64(buffer *b, uint64_t v)
{
    put_u32(b, (uint32_t) v);
    put_u32(b, (uint32_t) (v >> 32));
}

static void put_f64(buffer *b, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put_u64(b, bits);
}

static void put_f32(buffer *b, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    put_u32(b, bits);
}

static void put_vec(buffer *b, const double v[3])
{
    for (int k = 0; k < 3; k++) put_f64(b, v[k]);
}

static void put_string(buffer *b, const char *s)
{
    size_t n = strlen(s);
    put_u32(b, (uint32_t) n);
    put_bytes(b, s, n);
}

/* The node and leaf sections as they fill, and the tree references the models section
 * gets. */
typedef struct trees {
    buffer nodes, leaves;
    uint32_t node_count, leaf_count;
    int32_t *map; /* scratch: old node index -> new */
    int32_t *stack;
    size_t scratch;
} trees;

typedef struct tree_ref {
    int32_t root;
    uint32_t node_first, node_count, leaf_first, leaf_count;
} tree_ref;

/* Appends TREE's nodes (in pre-order) and leaves to T. LEAF_VALUE, when not NULL, gives
 * the value written for each leaf (else its bits). TOP_BLOCKS > 0: TREE is a top tree,
 * whose leaf codes name blocks and which has no leaf array: leaves 0..TOP_BLOCKS-1 are
 * written as the block numbers. */
static tree_ref add_tree(trees *t, const al_tree *tree, const int32_t *leaf_value, int top_blocks)
{
    tree_ref r = {-1, t->node_count, 0, t->leaf_count, 0};
    int32_t leaves = top_blocks > 0 ? top_blocks : tree->leaves ? tree->leaf_count : 0;
    if (leaves == 0) return r;
    size_t n = (size_t) tree->node_count;
    if (n + 1 > t->scratch) {
        int32_t *map = realloc(t->map, (n + 1) * sizeof *map);
        if (map) t->map = map;
        int32_t *stack = realloc(t->stack, (n + 1) * sizeof *stack);
        if (stack) t->stack = stack;
        if (!map || !stack) {
            t->nodes.failed = true;
            return r;
        }
        t->scratch = n + 1;
    }
    /* Pre-order numbering by an explicit stack (front child first). */
    uint32_t next = 0;
    size_t top = 0;
    if (tree->root >= 0) t->stack[top++] = tree->root;
    int32_t *visit = malloc((n + 1) * sizeof *visit);
    if (!visit) {
        t->nodes.failed = true;
        return r;
    }
    while (top > 0) {
        int32_t i = t->stack[--top];
        t->map[i] = (int32_t) next;
        visit[next++] = i;
        const al_node *nd = &tree->nodes[i];
        if (nd->child[1] >= 0) t->stack[top++] = nd->child[1];
        if (nd->child[0] >= 0) t->stack[top++] = nd->child[0];
    }
    for (uint32_t k = 0; k < next; k++) {
        const al_node *nd = &tree->nodes[visit[k]];
        put_vec(&t->nodes, nd->normal);
        put_f64(&t->nodes, nd->dist);
        for (int s = 0; s < 2; s++)
            put_u32(&t->nodes,
                    (uint32_t) (nd->child[s] >= 0 ? t->map[nd->child[s]] : nd->child[s]));
        put_u32(&t->nodes, nd->solid_mask);
        put_u32(&t->nodes, nd->empty_mask);
    }
    free(visit);
    for (int32_t i = 0; i < leaves; i++)
        put_u32(&t->leaves, top_blocks > 0 ? (uint32_t) i
                            : leaf_value   ? (uint32_t) leaf_value[i]
                                           : tree->leaves[i]);
    r.root = tree->root >= 0 ? 0 : tree->root;
    r.node_count = next;
    r.leaf_count = (uint32_t) leaves;
    t->node_count += next;
    t->leaf_count += (uint32_t) leaves;
    return r;
}

static void put_ref(buffer *b, tree_ref r)
{
    put_u32(b, (uint32_t) r.root);
    put_u32(b, r.node_first);
    put_u32(b, r.node_count);
    put_u32(b, r.leaf_first);
    put_u32(b, r.leaf_count);
}

static void write_hulls(buffer *b, const al_world *w)
{
    put_u32(b, (uint32_t) w->hull_count);
    for (int h = 0; h < w->hull_count; h++) {
        char name[ALRT_HULL_NAME_SIZE] = {0};
        snprintf(name, sizeof name, "%s", w->hulls[h].name);
        put_bytes(b, name, sizeof name);
        put_vec(b, w->hulls[h].mins);
        put_vec(b, w->hulls[h].maxs);
    }
}

/* The models section, filling T with every tree it refers to. */
static void write_models(buffer *b, trees *t, const al_world *w)
{
    const al_vis *vis = w->vis;
    put_u32(b, (uint32_t) w->model_count);
    for (int m = 0; m < w->model_count; m++) {
        const al_model *model = &w->models[m];
        put_u32(b, (uint32_t) model->entity);
        put_u32(b, model->brush_count > 0 ? 1u : 0u);
        put_vec(b, model->mins);
        put_vec(b, model->maxs);
        put_vec(b, model->reach_mins);
        put_vec(b, model->reach_maxs);
        for (int h = 0; h < w->hull_count; h++) {
            const double(*r)[3] = al_model_reach(w, m, h);
            put_vec(b, r[0]);
            put_vec(b, r[1]);
        }
        put_u32(b, (uint32_t) model->block_count);
        put_ref(b, add_tree(t, &model->top, NULL, model->block_count));
        for (int k = 0; k < model->block_count; k++) {
            const al_block *blk = &model->blocks[k];
            put_ref(b, add_tree(t, &blk->onion, NULL, 0));
            tree_ref point = add_tree(t, &blk->map[0], NULL, 0);
            put_ref(b, point);
            put_ref(b, blk->shift.leaves ? add_tree(t, &blk->shift, NULL, 0) : point);
            tree_ref none = {-1, t->node_count, 0, t->leaf_count, 0};
            if (m == 0 && vis && blk->vis.leaves)
                put_ref(b, add_tree(t, &blk->vis, vis->leaf_cluster + vis->leaf_base[k], 0));
            else
                put_ref(b, none);
        }
    }
}

static void write_liquids(buffer *b, const al_world *w)
{
    put_u32(b, (uint32_t) w->liquid_count);
    for (int i = 0; i < w->liquid_count; i++) {
        const al_brush *br = w->liquids[i];
        put_u32(b, (uint32_t) al_liquid_contents(br->material_flags));
        put_vec(b, br->mins);
        put_vec(b, br->maxs);
        put_u32(b, (uint32_t) br->side_count);
        for (int s = 0; s < br->side_count; s++) {
            const al_plane *pl = &w->planes.planes[br->sides[s].plane];
            put_vec(b, pl->normal);
            put_f64(b, pl->dist);
        }
    }
}

static void write_vis(buffer *b, const al_world *w)
{
    int n = al_world_vis_leaf_count(w);
    put_u32(b, (uint32_t) n);
    uint8_t *row = calloc((size_t) n / 8 + 1, 1);
    if (!row) {
        b->failed = true;
        return;
    }
    for (int a = 0; a < n; a++) {
        memset(row, 0, (size_t) n / 8 + 1);
        for (int c = 0; c < n; c++)
            if (al_world_leaf_sees(w, a, c)) row[c >> 3] |= (uint8_t) (1u << (c & 7));
        put_bytes(b, row, ((size_t) n + 7) / 8);
    }
    free(row);
}

static al_status write_light(buffer *b, const al_rad *rad, const al_rad_lightmap *map)
{
    if (!rad || !map || !map->texels) {
        for (int k = 0; k < 4; k++) put_u32(b, 0); /* no atlas, faces or points */
        return AL_OK;
    }
    if (map->width != rad->atlas_w || map->height != rad->atlas_h) return AL_ERR_INVALID_ARGUMENT;
    const al_face_polys *fp = &rad->polys;
    put_u32(b, (uint32_t) map->width);
    put_u32(b, (uint32_t) map->height);
    /* Faces in the solver's polygon order, as its lookup goes through them. */
    uint32_t faces = 0, points = 0;
    for (int k = 0; k < fp->face_count; k++) {
        int32_t fi = rad->face_of_poly[k];
        if (fi >= 0 && rad->faces[fi].live > 0) faces++;
    }
    put_u32(b, faces);
    for (int k = 0; k < fp->face_count; k++) {
        int32_t fi = rad->face_of_poly[k];
        if (fi < 0 || rad->faces[fi].live == 0) continue;
        const rad_face *f = &rad->faces[fi];
        put_vec(b, f->normal);
        put_f64(b, f->dist);
        put_f64(b, f->luxel);
        put_f64(b, f->u0);
        put_f64(b, f->v0);
        put_u32(b, (uint32_t) f->axis_u);
        put_u32(b, (uint32_t) f->axis_v);
        put_u32(b, (uint32_t) f->w);
        put_u32(b, (uint32_t) f->h);
        put_u32(b, (uint32_t) f->atlas_x);
        put_u32(b, (uint32_t) f->atlas_y);
        put_u32(b, points);
        put_u32(b, (uint32_t) fp->faces[k].point_count);
        points += (uint32_t) fp->faces[k].point_count;
    }
    put_u32(b, points);
    for (int k = 0; k < fp->face_count; k++) {
        int32_t fi = rad->face_of_poly[k];
        if (fi < 0 || rad->faces[fi].live == 0) continue;
        for (int i = 0; i < fp->faces[k].point_count; i++)
            put_vec(b, fp->points[fp->faces[k].first_point + i]);
    }
    for (size_t i = 0; i < (size_t) map->width * (size_t) map->height; i++)
        for (int k = 0; k < 3; k++) put_f32(b, map->texels[i][k]);
    return AL_OK;
}

static void write_entities(buffer *b, const al_input *in)
{
    put_u32(b, (uint32_t) in->entity_count);
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *ed = &in->entities[e];
        const char *classname = ed->classname ? ed->classname : "";
        bool named = false;
        for (int i = 0; i < ed->property_count; i++)
            named |= strcmp(ed->properties[i].key, "classname") == 0;
        bool add = !named && classname[0];
        put_u32(b, (uint32_t) ed->property_count + (add ? 1u : 0u));
        if (add) {
            put_string(b, "classname");
            put_string(b, classname);
        }
        for (int i = 0; i < ed->property_count; i++) {
            put_string(b, ed->properties[i].key);
            put_string(b, ed->properties[i].value ? ed->properties[i].value : "");
        }
    }
}

al_status al_runtime_write(const al_runtime_source *src, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (!src || !src->world || !src->input || (!src->rad) != (!src->lightmap))
        return AL_ERR_INVALID_ARGUMENT;
    buffer sec[ALRT_SEC_COUNT] = {{0}};
    trees t = {0};
    al_status st = AL_OK;
    write_hulls(&sec[ALRT_SEC_HULL], src->world);
    write_models(&sec[ALRT_SEC_MODL], &t, src->world);
    put_u32(&sec[ALRT_SEC_NODE], t.node_count);
    put_bytes(&sec[ALRT_SEC_NODE], t.nodes.data, t.nodes.size);
    put_u32(&sec[ALRT_SEC_LEAF], t.leaf_count);
    put_bytes(&sec[ALRT_SEC_LEAF], t.leaves.data, t.leaves.size);
    bool failed = t.nodes.failed || t.leaves.failed;
    free(t.nodes.data);
    free(t.leaves.data);
    free(t.map);
    free(t.stack);
    write_liquids(&sec[ALRT_SEC_LIQD], src->world);
    write_vis(&sec[ALRT_SEC_VISL], src->world);
    st = write_light(&sec[ALRT_SEC_LMAP], src->rad, src->lightmap);
    write_entities(&sec[ALRT_SEC_ENTS], src->input);
    buffer out = {0};
    for (int s = 0; s < ALRT_SEC_COUNT; s++) failed |= sec[s].failed;
    if (st == AL_OK && !failed) {
        /* Header and directory, then each section at an 8-byte boundary. */
        uint64_t offset = ALRT_HEADER_SIZE + (uint64_t) ALRT_SEC_COUNT * ALRT_DIR_ENTRY_SIZE;
        put_bytes(&out, ALRT_MAGIC, ALRT_MAGIC_SIZE);
        put_u32(&out, ALRT_FORMAT_VERSION);
        put_u32(&out, ALRT_SEC_COUNT);
        put_u32(&out, 0); /* the file's CRC, below */
        put_u32(&out, 0);
        put_u64(&out, 0); /* the file's size, below */
        for (int s = 0; s < ALRT_SEC_COUNT; s++) {
            put_bytes(&out, alrt_section_tags[s], 4);
            put_u32(&out, alrt_crc32(0, sec[s].data, sec[s].size));
            put_u64(&out, offset);
            put_u64(&out, sec[s].size);
            offset = (offset + sec[s].size + 7) & ~(uint64_t) 7;
        }
        static const uint8_t pad[8];
        for (int s = 0; s < ALRT_SEC_COUNT; s++) {
            put_bytes(&out, sec[s].data, sec[s].size);
            put_bytes(&out, pad, (8 - out.size % 8) % 8);
        }
        failed = out.failed;
    }
    for (int s = 0; s < ALRT_SEC_COUNT; s++) free(sec[s].data);
    if (st == AL_OK && failed) st = AL_ERR_NOMEM;
    if (st != AL_OK) {
        free(out.data);
        return st;
    }
    uint64_t n = out.size;
    for (int k = 0; k < 8; k++) out.data[24 + k] = (uint8_t) (n >> (8 * k));
    uint32_t crc = alrt_crc32(0, out.data, out.size); /* with its own field still zero */
    for (int k = 0; k < 4; k++) out.data[16 + k] = (uint8_t) (crc >> (8 * k));
    *data = out.data;
    *size = out.size;
    return AL_OK;
}

al_status al_runtime_write_file(const al_runtime_source *src, const char *path)
{
    void *data;
    size_t size;
    al_status st = al_runtime_write(src, &data, &size);
    if (st != AL_OK) return st;
    size_t n = strlen(path) + 16;
    char *temp = malloc(n);
    if (!temp) {
        free(data);
        return AL_ERR_NOMEM;
    }
    snprintf(temp, n, "%s.tmp", path);
    FILE *f = fopen(temp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(temp, path) != 0) ok = false;
    if (!ok) remove(temp);
    free(temp);
    free(data);
    return ok ? AL_OK : AL_ERR_IO;
}
