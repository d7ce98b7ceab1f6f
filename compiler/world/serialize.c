/* Compiled worlds as bytes, for the cache of compiled results (see al-world.h).
 *
 * Layout: a 32-byte header (magic, format version, byte-order mark, payload size, payload
 * checksum) and a payload of fixed-width fields in this machine's byte order. A cache
 * entry is written and read on one machine; an entry from a machine of the other byte
 * order is refused by the mark, one from another build by the version.
 *
 * Loading trusts nothing: the checksum catches damaged bytes, and every count and index
 * is still checked before it is used, so that a bad entry is refused with a message and
 * never followed into a crash. Tree children must point forwards (a child's index is
 * greater than its parent's, as the builders lay them out), so no query can loop.
 *
 * Workload: once per compile that misses the cache (save), once per open that hits it
 * (load); both are linear copies, milliseconds for the real maps.
 */
#include "world-internal.h"

#include "core/hash.h"
#include "al-epsilon.h"
#include "al-vec3.h"

#include "vis/vis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC      "ALWORLD"
#define VERSION    AL_WORLD_BYTES_VERSION
#define ORDER_MARK 0x01020304u
#define HEADER     32

/* Bounds that keep a damaged count from asking for absurd memory; each is far above what a
 * compile produces (and the remaining bytes bound every count anyway). */
#define MAX_SIDES 4096

/* --- writing ----------------------------------------------------------------------------- */

typedef struct writer {
    unsigned char *data;
    size_t size, capacity;
    bool failed;
} writer;

static void put(writer *o, const void *p, size_t n)
{
    if (o->failed || n == 0) return;
    if (o->size + n > o->capacity) {
        size_t capacity = o->capacity ? o->capacity : 1 << 16;
        while (capacity < o->size + n) capacity *= 2;
        unsigned char *d = realloc(o->data, capacity);
        if (!d) {
            o->failed = true;
            return;
        }
        o->data = d;
        o->capacity = capacity;
    }
    memcpy(o->data + o->size, p, n);
    o->size += n;
}

static void put_i32(writer *o, int32_t v)
{
    put(o, &v, sizeof v);
}

static void put_tree(writer *o, const al_tree *t)
{
    put_i32(o, t->node_count);
    put_i32(o, t->leaf_count);
    put_i32(o, t->root);
    put(o, t->nodes, (size_t) t->node_count * sizeof *t->nodes);
    put(o, t->leaves, (size_t) t->leaf_count * sizeof *t->leaves);
}

static uint64_t checksum(const unsigned char *p, size_t n)
{
    return al_fnv1a(AL_FNV1A_SEED, p, n);
}

static void put_brush(writer *o, const al_brush *b)
{
    const int32_t fields[] = {b->id,
                              b->entity,
                              b->index,
                              b->line,
                              b->model,
                              (int32_t) b->flags,
                              (int32_t) b->material_flags,
                              b->side_count};
    put(o, fields, sizeof fields);
    put(o, b->mins, sizeof b->mins);
    put(o, b->maxs, sizeof b->maxs);
    for (int s = 0; s < b->side_count; s++) {
        const al_side *side = &b->sides[s];
        const int32_t f[] = {side->plane, side->material, side->face,
                             side->winding ? side->winding->count : -1,
                             (int32_t) side->material_flags};
        put(o, f, sizeof f);
        if (side->winding)
            put(o, side->winding->points,
                (size_t) side->winding->count * sizeof side->winding->points[0]);
    }
}

al_status al_world_save(const al_world *w, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    writer o = {0};
    unsigned char header[HEADER] = {0};
    put(&o, header, sizeof header);
    put_i32(&o, w->hull_count);
    put(&o, w->hulls, (size_t) w->hull_count * sizeof *w->hulls);
    put(&o, &w->block_size, sizeof w->block_size);
    put_i32(&o, w->entity_count);
    put(&o, &w->stats, sizeof w->stats);
    /* Records with padding or unused tails are copied into zeroed ones first, so that the
     * bytes (and the checksum) depend on the world alone. */
    put_i32(&o, (int32_t) w->diags.count);
    for (size_t i = 0; i < w->diags.count; i++) {
        const al_diag *d = &w->diags.items[i];
        al_diag clean;
        memset(&clean, 0, sizeof clean);
        clean.severity = d->severity;
        clean.kind = d->kind;
        clean.entity = d->entity;
        clean.brush = d->brush;
        clean.face = d->face;
        clean.line = d->line;
        clean.column = d->column;
        memcpy(clean.message, d->message, strnlen(d->message, sizeof d->message - 1));
        put(&o, &clean, sizeof clean);
    }
    put_i32(&o, w->planes.count);
    for (int i = 0; i < w->planes.count; i++) {
        const al_plane *p = &w->planes.planes[i];
        put(&o, p->normal, sizeof p->normal);
        put(&o, &p->dist, sizeof p->dist);
        put_i32(&o, p->type);
    }
    put_i32(&o, w->collision_count);
    for (int i = 0; i < w->collision_count; i++) put_brush(&o, w->collision[i]);
    put_i32(&o, w->liquid_count);
    for (int i = 0; i < w->liquid_count; i++) put_brush(&o, w->liquids[i]);
    put_i32(&o, w->origin_count);
    for (int i = 0; i < w->origin_count; i++) put_brush(&o, w->origins[i]);
    put_i32(&o, w->hint_count);
    for (int i = 0; i < w->hint_count; i++) put_brush(&o, w->hints[i]);
    put_i32(&o, w->opaque_liquids);
    put_i32(&o, w->model_count);
    for (int m = 0; m < w->model_count; m++) {
        const al_model *model = &w->models[m];
        const int32_t fields[] = {model->entity,        model->grid_origin[0],
                                  model->grid_origin[1], model->grid_origin[2],
                                  model->grid_dims[0],   model->grid_dims[1],
                                  model->grid_dims[2],   model->block_count,
                                  model->first_brush,    model->brush_count};
        put(&o, fields, sizeof fields);
        const double boxes[4][3] = {
            {model->mins[0], model->mins[1], model->mins[2]},
            {model->maxs[0], model->maxs[1], model->maxs[2]},
            {model->reach_mins[0], model->reach_mins[1], model->reach_mins[2]},
            {model->reach_maxs[0], model->reach_maxs[1], model->reach_maxs[2]},
        };
        put(&o, boxes, sizeof boxes);
        put_tree(&o, &model->top);
        for (int b = 0; b < model->block_count; b++) {
            const al_block *block = &model->blocks[b];
            put(&o, block->mins, sizeof block->mins);
            put(&o, block->maxs, sizeof block->maxs);
            put(&o, &block->stats, sizeof block->stats);
            put_tree(&o, &block->onion);
            for (int h = 0; h < w->hull_count; h++) put_tree(&o, &block->map[h]);
            /* The shift tree, where clip brushes reach the block. */
            bool has_shift = block->shift.leaves != NULL;
            put_i32(&o, has_shift);
            if (has_shift) put_tree(&o, &block->shift);
            /* A world block compiled without visibility may not have its vis trees yet. */
            bool has_vis = m == 0 && al_block_has_vis(block);
            put_i32(&o, has_vis);
            if (has_vis) {
                put_tree(&o, &block->vis);
                put_i32(&o, block->light_is_vis);
                if (!block->light_is_vis) put_tree(&o, &block->light);
            }
        }
    }
    /* The PVS, if the world has one: a later load skips the passes (al_world_build_vis). */
    al_stored_pvs pvs = {0};
    bool has_pvs = w->vis && al_vis_store_pvs(w->vis, &pvs);
    /* Rows loaded with the world but not used yet are passed on as they came. */
    const al_stored_pvs *keep =
        has_pvs ? &pvs : (w->stored_pvs && w->stored_pvs->bytes ? w->stored_pvs : NULL);
    put_i32(&o, keep ? (int32_t) keep->level : -1);
    if (keep) {
        const int32_t fields[] = {keep->clusters, keep->portals};
        put(&o, fields, sizeof fields);
        put(&o, &keep->avg_visible_coarse, sizeof keep->avg_visible_coarse);
        put(&o, &keep->avg_visible_tight, sizeof keep->avg_visible_tight);
        uint64_t coded = keep->size;
        put(&o, &coded, sizeof coded);
        put(&o, keep->bytes, keep->size);
    }
    if (has_pvs) al_stored_pvs_free(&pvs);
    if (o.failed) {
        free(o.data);
        return AL_ERR_NOMEM;
    }
    uint64_t payload = o.size - HEADER, sum = checksum(o.data + HEADER, payload);
    uint32_t version = VERSION, order = ORDER_MARK;
    memcpy(o.data, MAGIC, 8);
    memcpy(o.data + 8, &version, 4);
    memcpy(o.data + 12, &order, 4);
    memcpy(o.data + 16, &payload, 8);
    memcpy(o.data + 24, &sum, 8);
    *data = o.data;
    *size = o.size;
    return AL_OK;
}

/* --- reading ----------------------------------------------------------------------------- */

typedef struct reader {
    const unsigned char *p;
    size_t left;
    const char *problem; /* the first thing found wrong, or NULL */
} reader;

static bool fail(reader *r, const char *problem)
{
    if (!r->problem) r->problem = problem;
    return false;
}

static bool get(reader *r, void *dst, size_t n)
{
    if (r->problem) return false;
    if (n > r->left) return fail(r, "it ends early");
    memcpy(dst, r->p, n);
    r->p += n;
    r->left -= n;
    return true;
}

/* A count of items of at least ITEM bytes each: non-negative, and no more than the bytes
 * left could hold. */
static bool get_count(reader *r, size_t item, int32_t *n)
{
    if (!get(r, n, sizeof *n)) return false;
    if (*n < 0 || (item > 0 && (size_t) *n > r->left / item)) return fail(r, "a count is wrong");
    return true;
}

static bool finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Whether V is a position the compiler can make: within the outer blocks' reach (with room
 * for the largest hull). Rejecting anything further keeps every later cast in range. */
static bool in_reach(const double v[3])
{
    const double limit = 4 * AL_MODEL_OUTER;
    return fabs(v[0]) <= limit && fabs(v[1]) <= limit && fabs(v[2]) <= limit;
}

/* A child code is valid if it names a later node (below NODES) or a leaf below LEAVES. */
static bool child_ok(int32_t child, int32_t parent, int32_t nodes, int32_t leaves)
{
    if (child >= 0) return child > parent && child < nodes;
    return -1 - (int64_t) child < leaves;
}

/* Reads a tree whose leaf codes must stay below LEAF_LIMIT (the tree's own leaves, or the
 * model's blocks for a top tree, which has no leaf array). */
static bool get_tree(reader *r, al_tree *t, bool top, int32_t blocks)
{
    int32_t nodes, leaves, root;
    if (!get_count(r, sizeof(al_node), &nodes) || !get_count(r, 0, &leaves) ||
        !get(r, &root, sizeof root))
        return false;
    if (top && leaves != 0) return fail(r, "a top tree has leaves");
    if (leaves > 0 && (size_t) leaves > (r->left - (size_t) nodes * sizeof(al_node)) / 4)
        return fail(r, "a count is wrong");
    t->nodes = malloc((size_t) (nodes ? nodes : 1) * sizeof *t->nodes);
    t->leaves = malloc((size_t) (leaves ? leaves : 1) * sizeof *t->leaves);
    if (!t->nodes || !t->leaves) return fail(r, "memory ran out");
    t->node_count = nodes;
    t->leaf_count = leaves;
    t->root = root;
    if (!get(r, t->nodes, (size_t) nodes * sizeof *t->nodes) ||
        !get(r, t->leaves, (size_t) leaves * sizeof *t->leaves))
        return false;
    int32_t leaf_limit = top ? blocks : leaves;
    if (!child_ok(root, -1, nodes, leaf_limit)) return fail(r, "a tree's root is wrong");
    for (int32_t i = 0; i < nodes; i++) {
        const al_node *n = &t->nodes[i];
        if (!finite3(n->normal) || !isfinite(n->dist)) return fail(r, "a plane is not finite");
        if (!child_ok(n->child[0], i, nodes, leaf_limit) ||
            !child_ok(n->child[1], i, nodes, leaf_limit))
            return fail(r, "a tree node points outside its tree");
    }
    return true;
}

static bool get_brush(reader *r, al_world *w, al_brush *b)
{
    int32_t f[8];
    if (!get(r, f, sizeof f) || !get(r, b->mins, sizeof b->mins) ||
        !get(r, b->maxs, sizeof b->maxs))
        return false;
    b->id = f[0];
    b->entity = f[1];
    b->index = f[2];
    b->line = f[3];
    b->model = f[4];
    b->flags = (uint32_t) f[5];
    b->material_flags = (uint32_t) f[6];
    b->side_count = f[7];
    if (b->side_count < 0 || b->side_count > MAX_SIDES) return fail(r, "a brush is wrong");
    if (!in_reach(b->mins) || !in_reach(b->maxs)) return fail(r, "a brush's bounds are wrong");
    b->sides = al_arena_calloc(w->arena, (size_t) (b->side_count ? b->side_count : 1),
                               sizeof *b->sides);
    if (!b->sides) return fail(r, "memory ran out");
    for (int s = 0; s < b->side_count; s++) {
        int32_t g[5];
        if (!get(r, g, sizeof g)) return false;
        al_side *side = &b->sides[s];
        side->plane = g[0];
        side->material = g[1];
        side->face = g[2];
        side->material_flags = (uint32_t) g[4];
        if (g[0] < 0 || g[0] >= w->planes.count) return fail(r, "a brush side's plane is wrong");
        if (g[3] < -1 || g[3] > MAX_SIDES) return fail(r, "a winding is wrong");
        if (g[3] < 0) continue;
        size_t bytes = (size_t) g[3] * sizeof side->winding->points[0];
        side->winding = al_arena_alloc(w->arena, sizeof *side->winding + bytes);
        if (!side->winding) return fail(r, "memory ran out");
        side->winding->count = g[3];
        if (!get(r, side->winding->points, bytes)) return false;
        for (int p = 0; p < g[3]; p++)
            if (!in_reach(side->winding->points[p])) return fail(r, "a winding is wrong");
    }
    return true;
}

static bool get_model(reader *r, al_world *w, al_model *m)
{
    int32_t f[10];
    double boxes[4][3];
    if (!get(r, f, sizeof f) || !get(r, boxes, sizeof boxes)) return false;
    m->entity = f[0];
    for (int k = 0; k < 3; k++) {
        m->grid_origin[k] = f[1 + k];
        m->grid_dims[k] = f[4 + k];
        m->mins[k] = boxes[0][k];
        m->maxs[k] = boxes[1][k];
        m->reach_mins[k] = boxes[2][k];
        m->reach_maxs[k] = boxes[3][k];
    }
    /* m->block_count is set once m->blocks exists: destroying a half-read world frees
     * block_count blocks. */
    int32_t block_count = f[7];
    m->first_brush = f[8];
    m->brush_count = f[9];
    m->inv_block_size = 1.0 / w->block_size;
    int64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        if (m->grid_dims[k] < 1 || m->grid_dims[k] > 1 << 16 ||
            abs(m->grid_origin[k]) > 1 << 20)
            return fail(r, "a model's grid is wrong");
        cells *= m->grid_dims[k];
    }
    if (cells != block_count || cells > (int64_t) (r->left / 64))
        return fail(r, "a model's block count is wrong");
    if (m->first_brush < 0 || m->brush_count < 0 ||
        m->first_brush > w->collision_count - m->brush_count)
        return fail(r, "a model's brushes are wrong");
    for (int b = 0; b < 4; b++)
        if (!in_reach(boxes[b])) return fail(r, "a model's bounds are wrong");
    m->blocks = calloc((size_t) block_count, sizeof *m->blocks);
    if (!m->blocks) return fail(r, "memory ran out");
    m->block_count = block_count;
    if (!get_tree(r, &m->top, true, m->block_count)) return false;
    for (int b = 0; b < m->block_count; b++) {
        al_block *block = &m->blocks[b];
        if (!get(r, block->mins, sizeof block->mins) || !get(r, block->maxs, sizeof block->maxs) ||
            !get(r, &block->stats, sizeof block->stats) ||
            !get_tree(r, &block->onion, false, 0))
            return false;
        if (!in_reach(block->mins) || !in_reach(block->maxs))
            return fail(r, "a block's bounds are wrong");
        for (int h = 0; h < w->hull_count; h++)
            if (!get_tree(r, &block->map[h], false, 0)) return false;
        int32_t has_shift;
        if (!get(r, &has_shift, sizeof has_shift)) return false;
        if (has_shift != 0 && has_shift != 1) return fail(r, "a block's shift tree is wrong");
        if (has_shift && !get_tree(r, &block->shift, false, 0)) return false;
        int32_t has_vis;
        if (!get(r, &has_vis, sizeof has_vis)) return false;
        if (has_vis != 0 && (has_vis != 1 || m != w->models))
            return fail(r, "a block's vis tree is wrong");
        if (has_vis) {
            int32_t light_is_vis;
            if (!get_tree(r, &block->vis, false, 0) ||
                !get(r, &light_is_vis, sizeof light_is_vis))
                return false;
            if (light_is_vis != 0 && light_is_vis != 1)
                return fail(r, "a block's light tree is wrong");
            block->light_is_vis = light_is_vis;
            if (!light_is_vis && !get_tree(r, &block->light, false, 0)) return false;
        }
        if (!al_block_own(block)) return fail(r, "memory ran out");
        /* Once, here: the world's stats sum it at every update. */
        al_tree_depth(&block->onion, &block->onion_max_depth, &block->onion_mean_depth);
    }
    /* Open cells are not stored: they come from the onion trees. */
    if (m == w->models && !al_model_open_cells(m, w->hull_count, w->block_size))
        return fail(r, "memory ran out");
    return true;
}

al_status al_world_load(const void *data, size_t size, al_world **out, al_diag_list *diags)
{
    *out = NULL;
    const unsigned char *bytes = data;
    uint32_t version = 0, order = 0;
    uint64_t payload = 0, sum = 0;
    const char *problem = NULL;
    if (size < HEADER || memcmp(bytes, MAGIC, 8) != 0) {
        problem = "it is not a compiled world";
    } else {
        memcpy(&version, bytes + 8, 4);
        memcpy(&order, bytes + 12, 4);
        memcpy(&payload, bytes + 16, 8);
        memcpy(&sum, bytes + 24, 8);
        if (order != ORDER_MARK) problem = "it was written on a machine of another byte order";
        else if (version != VERSION) problem = "it was written by another version";
        else if (payload != size - HEADER) problem = "its size is wrong";
        else if (checksum(bytes + HEADER, payload) != sum) problem = "its checksum is wrong";
    }
    if (problem) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "the stored compile is unusable: %s", problem);
        return AL_ERR_CORRUPT;
    }

    reader r = {bytes + HEADER, payload, NULL};
    al_world *w = calloc(1, sizeof *w);
    if (!w) return AL_ERR_NOMEM;
    w->arena = al_arena_create(0);
    if (!w->arena) r.problem = "memory ran out";
    int32_t n = 0;
    if (get_count(&r, sizeof(al_hull_desc), &n)) {
        if (n < 1 || n > AL_MAX_HULLS) fail(&r, "the hull count is wrong");
        w->hull_count = n;
    }
    get(&r, w->hulls, (size_t) w->hull_count * sizeof *w->hulls);
    for (int h = 0; h < w->hull_count && !r.problem; h++) {
        w->hulls[h].name[AL_HULL_NAME_MAX - 1] = '\0';
        if (!in_reach(w->hulls[h].mins) || !in_reach(w->hulls[h].maxs)) fail(&r, "a hull is wrong");
    }
    get(&r, &w->block_size, sizeof w->block_size);
    if (!r.problem && !(w->block_size >= 1 && w->block_size <= 1e6))
        fail(&r, "the block size is wrong");
    if (get(&r, &n, sizeof n)) w->entity_count = n;
    get(&r, &w->stats, sizeof w->stats);
    if (get_count(&r, sizeof(al_diag), &n) && n > 0) {
        w->diags.items = malloc((size_t) n * sizeof *w->diags.items);
        if (!w->diags.items) fail(&r, "memory ran out");
        else if (get(&r, w->diags.items, (size_t) n * sizeof *w->diags.items)) {
            w->diags.count = w->diags.capacity = (size_t) n;
            for (int i = 0; i < n; i++) {
                al_diag *d = &w->diags.items[i];
                d->message[sizeof d->message - 1] = '\0';
            }
        }
    }
    enum { PLANE_BYTES = 4 * sizeof(double) + sizeof(int32_t) };
    if (get_count(&r, PLANE_BYTES, &n)) {
        al_plane *planes = calloc((size_t) (n ? n : 1), sizeof *planes);
        if (n % 2 != 0) fail(&r, "the plane count is wrong");
        else if (!planes) fail(&r, "memory ran out");
        for (int i = 0; i < n && !r.problem; i++) {
            get(&r, planes[i].normal, sizeof planes[i].normal);
            get(&r, &planes[i].dist, sizeof planes[i].dist);
            get(&r, &planes[i].type, sizeof planes[i].type);
            /* Unit normals and distances within the world's reach: the compiler makes no
             * others, and the queries divide by distances' differences. */
            double len2 = al_dot(planes[i].normal, planes[i].normal);
            if (!r.problem && (!(fabs(len2 - 1) < 1e-6) || !(fabs(planes[i].dist) < 8 * AL_MODEL_OUTER)))
                fail(&r, "a plane is wrong");
        }
        if (!r.problem && !al_plane_table_load(&w->planes, planes, n)) fail(&r, "memory ran out");
        free(planes);
    }
    if (get_count(&r, 8 * sizeof(int32_t) + 6 * sizeof(double), &n)) {
        w->collision = malloc((size_t) (n ? n : 1) * sizeof *w->collision);
        if (!w->collision) fail(&r, "memory ran out");
        for (int i = 0; i < n && !r.problem; i++) {
            al_brush *b = al_arena_calloc(w->arena, 1, sizeof *b);
            if (!b) fail(&r, "memory ran out");
            else if (get_brush(&r, w, b)) w->collision[w->collision_count++] = b;
        }
    }
    if (get_count(&r, 8 * sizeof(int32_t) + 6 * sizeof(double), &n)) {
        w->liquids = malloc((size_t) (n ? n : 1) * sizeof *w->liquids);
        if (!w->liquids) fail(&r, "memory ran out");
        for (int i = 0; i < n && !r.problem; i++) {
            al_brush *b = al_arena_calloc(w->arena, 1, sizeof *b);
            if (!b)
                fail(&r, "memory ran out");
            else if (get_brush(&r, w, b))
                w->liquids[w->liquid_count++] = b;
        }
        if (!r.problem && !al_world_index_liquids(w)) fail(&r, "memory ran out");
    }
    if (get_count(&r, 8 * sizeof(int32_t) + 6 * sizeof(double), &n)) {
        w->origins = malloc((size_t) (n ? n : 1) * sizeof *w->origins);
        if (!w->origins) fail(&r, "memory ran out");
        for (int i = 0; i < n && !r.problem; i++) {
            al_brush *b = al_arena_calloc(w->arena, 1, sizeof *b);
            if (!b)
                fail(&r, "memory ran out");
            else if (get_brush(&r, w, b))
                w->origins[w->origin_count++] = b;
        }
    }
    if (get_count(&r, 8 * sizeof(int32_t) + 6 * sizeof(double), &n)) {
        w->hints = malloc((size_t) (n ? n : 1) * sizeof *w->hints);
        if (!w->hints) fail(&r, "memory ran out");
        for (int i = 0; i < n && !r.problem; i++) {
            al_brush *b = al_arena_calloc(w->arena, 1, sizeof *b);
            if (!b)
                fail(&r, "memory ran out");
            else if (get_brush(&r, w, b))
                w->hints[w->hint_count++] = b;
        }
    }
    int32_t opaque = 0;
    if (!r.problem && get(&r, &opaque, sizeof opaque)) {
        if (opaque != 0 && opaque != 1) fail(&r, "the liquids' opacity is wrong");
        w->opaque_liquids = opaque == 1;
    }
    if (get_count(&r, 10 * sizeof(int32_t) + 12 * sizeof(double), &n)) {
        if (n < 1) fail(&r, "there is no world model");
        w->models = calloc((size_t) (n ? n : 1), sizeof *w->models);
        if (!w->models) fail(&r, "memory ran out");
        /* Counted as they are read, so that destroying frees exactly what was made. */
        for (int m = 0; m < n && !r.problem; m++) {
            w->model_count++;
            get_model(&r, w, &w->models[m]);
        }
    }
    int32_t pvs_level = -1;
    if (!r.problem && get(&r, &pvs_level, sizeof pvs_level) && pvs_level != -1) {
        al_stored_pvs *p = calloc(1, sizeof *p);
        int32_t fields[2];
        uint64_t coded = 0;
        if (!p) {
            fail(&r, "memory ran out");
        } else {
            w->stored_pvs = p;
            if (pvs_level != AL_PVS_TIGHT && pvs_level != AL_PVS_COARSE)
                fail(&r, "the PVS level is wrong");
            else if (get(&r, fields, sizeof fields) &&
                     get(&r, &p->avg_visible_coarse, sizeof p->avg_visible_coarse) &&
                     get(&r, &p->avg_visible_tight, sizeof p->avg_visible_tight) &&
                     get(&r, &coded, sizeof coded)) {
                if (fields[0] < 0 || fields[1] < 0 || coded > r.left) {
                    fail(&r, "the PVS's size is wrong");
                } else {
                    p->level = (al_pvs_level) pvs_level;
                    p->clusters = fields[0];
                    p->portals = fields[1];
                    p->size = (size_t) coded;
                    p->bytes = malloc(p->size ? p->size : 1);
                    if (!p->bytes) fail(&r, "memory ran out");
                    else get(&r, p->bytes, p->size);
                }
            }
        }
    }
    if (!r.problem && r.left != 0) fail(&r, "bytes are left over");
    if (!r.problem && !al_world_index_models(w)) fail(&r, "memory ran out");
    if (r.problem) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "the stored compile is unusable: %s", r.problem);
        bool nomem = strcmp(r.problem, "memory ran out") == 0;
        al_world_destroy(w);
        return nomem ? AL_ERR_NOMEM : AL_ERR_CORRUPT;
    }
    *out = w;
    return AL_OK;
}

al_status al_world_share_stored_pvs(al_world *w, const al_world *from)
{
    const al_stored_pvs *s = from->stored_pvs;
    if (!s || !s->bytes) return AL_OK;
    al_stored_pvs *copy = malloc(sizeof *copy);
    unsigned char *bytes = malloc(s->size ? s->size : 1);
    if (!copy || !bytes) {
        free(copy);
        free(bytes);
        return AL_ERR_NOMEM;
    }
    *copy = *s;
    memcpy(bytes, s->bytes, s->size);
    copy->bytes = bytes;
    if (w->stored_pvs) {
        al_stored_pvs_free(w->stored_pvs);
        free(w->stored_pvs);
    }
    w->stored_pvs = copy;
    return AL_OK;
}
