/* Faces and entities in vis leaves.
 *
 * Every face of the world's brushes (structural and detail; clip brushes are never drawn)
 * is pushed down the world model's top tree and vis trees, as the thesis pushes its
 * "static objects" into the leaves after the tree is built. A structural face lies on a
 * leaf boundary and lands in the empty leaf it faces; a detail face lands in every leaf it
 * crosses. Faces inside solid land nowhere. Entities are pushed as their boxes (brush
 * entities) or their origins (point entities).
 *
 * After an edit. Where a face lands in a block depends only on its polygon, the top tree
 * (the block grid) and that block's vis tree. So each face's places are kept as (block,
 * leaf of the block's tree), and the next world, on the same grid, takes those in the
 * blocks whose vis trees it shares from the previous world, for each brush with the same
 * content key (al_brush_desc_key) there. Its faces go down the trees only into the other
 * blocks, and not at all when its box, grown by PLACE_MARGIN, reaches none of them; a
 * brush not found there is pushed whole. The clusters are looked up anew (leaves are
 * numbered per world), and the lists are made as before. The edit test (tests/support/scene.c)
 * compares them with the lists made without the previous world after random edits on the real maps.
 *
 * Workload: O(faces * tree depth) for a compile; tens of milliseconds on the real maps,
 * 40 ms on a 20,000-brush map, where an edit pushes the faces of a few brushes.
 */
#include "vis.h"
#include "core/key-pool.h"

#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int32_t al_vis_find_leaf(const al_world *w, const double p[3])
{
    const al_model *m = &w->models[0];
    int32_t code = m->top.root;
    while (code >= 0) {
        const al_node *n = &m->top.nodes[code];
        code = n->child[al_node_distance(n, p) >= 0 ? 0 : 1];
    }
    int b = -1 - code;
    return w->vis->leaf_base[b] + al_tree_find_leaf(&m->blocks[b].vis, p);
}

typedef struct triple {
    int32_t key, a, b; /* key: cluster or entity */
} triple;

typedef struct triple_vec {
    triple *items;
    int64_t count, capacity;
} triple_vec;

static bool add_triple(triple_vec *v, int32_t key, int32_t a, int32_t b)
{
    if (v->count == v->capacity) {
        int64_t capacity = v->capacity ? v->capacity * 2 : 1024;
        triple *items = realloc(v->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->count++] = (triple){key, a, b};
    return true;
}

static int compare_triples(const void *x, const void *y)
{
    const triple *p = x, *q = y;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Sorts V, drops repeats, and lays it out as KEYS lists: FIRST (KEYS + 1 entries) and the
 * (a, b) pairs or, when ITEMS_B is NULL, the a values alone. A counting sort by key, then
 * each key's few items sorted by (a, b): a whole sort of a large map's items took 8 ms. */
static bool to_lists(triple_vec *v, int32_t keys, int32_t **first, al_leaf_face **pairs,
                     int32_t **items)
{
    int64_t *start = calloc((size_t) keys + 2, sizeof *start);
    triple *sorted = malloc(((size_t) v->count + 1) * sizeof *sorted);
    *first = calloc((size_t) keys + 1, sizeof **first);
    if (pairs)
        *pairs = malloc(((size_t) v->count + 1) * sizeof **pairs);
    else
        *items = malloc(((size_t) v->count + 1) * sizeof **items);
    if (!start || !sorted || !*first || (pairs ? !*pairs : !*items)) {
        free(start);
        free(sorted);
        return false;
    }
    for (int64_t i = 0; i < v->count; i++) start[v->items[i].key + 2]++;
    for (int32_t k = 0; k < keys; k++) start[k + 2] += start[k + 1];
    /* start[k + 1]: where key k's items go next */
    for (int64_t i = 0; i < v->count; i++) sorted[start[v->items[i].key + 1]++] = v->items[i];
    /* start[k]: where key k's items begin */
    int64_t n = 0;
    for (int32_t k = 0; k < keys; k++) {
        int64_t a = start[k], b = start[k + 1];
        if (b - a > 1) qsort(sorted + a, (size_t) (b - a), sizeof *sorted, compare_triples);
        for (int64_t i = a; i < b; i++) {
            if (i > a && compare_triples(&sorted[i], &sorted[i - 1]) == 0) continue;
            if (pairs)
                (*pairs)[n] = (al_leaf_face){sorted[i].a, sorted[i].b};
            else
                (*items)[n] = sorted[i].a;
            n++;
        }
        (*first)[k + 1] = (int32_t) n;
    }
    free(start);
    free(sorted);
    return true;
}

/* How far beyond a brush's box its faces are looked for in the blocks (units): far more
 * than the epsilons with which a polygon on a block's side goes to one block or the other. */
#define PLACE_MARGIN 1.0

typedef struct al_face_place {
    int32_t face;  /* of the brush (al_side.face) */
    int32_t block; /* of the world model */
    int32_t leaf;  /* of the block's vis tree (empty) */
} al_face_place;

typedef struct place_vec {
    al_face_place *items;
    int64_t count, capacity;
} place_vec;

static bool add_place(place_vec *v, al_face_place p)
{
    if (v->count == v->capacity) {
        int64_t capacity = v->capacity ? v->capacity * 2 : 1024;
        al_face_place *items = realloc(v->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->count++] = p;
    return true;
}

/* Pushes W (face FACE of its brush) down the top tree, then down the vis tree of each block
 * it reaches but those SKIP marks (NULL: none), and adds where its pieces land to OUT
 * (PIECES: scratch). */
static bool push_world(al_arena *arena, const al_world *w, int32_t code, al_winding *win,
                       const double toward[3], int32_t face, const uint8_t *skip,
                       al_vis_fragments *pieces, place_vec *out)
{
    const al_model *m = &w->models[0];
    while (code >= 0) {
        const al_node *n = &m->top.nodes[code];
        al_winding *front, *back;
        int side = al_winding_split(arena, win, n->normal, n->dist, AL_ON_EPSILON, &front,
                                    &back);
        if (side < 0) return false;
        if (side == AL_SIDE_ON) {
            code = n->child[al_dot(n->normal, toward) > 0 ? 0 : 1];
            continue;
        }
        if (front && back) {
            if (!push_world(arena, w, n->child[1], back, toward, face, skip, pieces, out))
                return false;
            code = n->child[0];
            win = front;
            continue;
        }
        code = n->child[front ? 0 : 1];
    }
    int b = -1 - code;
    if (skip && skip[b]) return true;
    pieces->count = 0;
    if (!al_vis_push(arena, &m->blocks[b].vis, m->blocks[b].vis.root, win, toward, pieces))
        return false;
    for (int i = 0; i < pieces->count; i++)
        if (!add_place(out, (al_face_place){face, b, pieces->items[i].leaf})) return false;
    return true;
}

/* The places of the faces of PREVIOUS's world model, by brush content, to be taken at
 * most once each; and per block of W, whether its vis tree is PREVIOUS's. */
typedef struct reuse {
    const al_vis *vis;   /* NULL: nothing to take */
    uint8_t *kept;       /* per block */
    al_key_pool brushes; /* of the previous world model */
} reuse;

static void reuse_free(reuse *r)
{
    free(r->kept);
    r->kept = NULL;
    al_key_pool_free(&r->brushes);
}

/* Sets R up for W from PREVIOUS, if its places can serve: the same grid (so the same top
 * tree), its places kept, its brushes' keys known. False only if memory runs out (R then
 * serves nothing). */
static bool reuse_init(reuse *r, const al_world *w, const al_world *previous)
{
    memset(r, 0, sizeof *r);
    const al_model *m = &w->models[0];
    if (!previous || !previous->vis || !previous->vis->brush_place_first ||
        !previous->collision_hash || previous->block_size != w->block_size)
        return true;
    const al_model *pm = &previous->models[0];
    if (pm->block_count != m->block_count || pm->brush_count != previous->vis->placed_brush_count ||
        memcmp(pm->grid_dims, m->grid_dims, sizeof m->grid_dims) != 0 ||
        memcmp(pm->grid_origin, m->grid_origin, sizeof m->grid_origin) != 0)
        return true;
    r->kept = malloc((size_t) m->block_count + 1);
    if (!r->kept || !al_key_pool_init(&r->brushes, previous->collision_hash + pm->first_brush,
                                      pm->brush_count)) {
        reuse_free(r);
        return false;
    }
    for (int b = 0; b < m->block_count; b++)
        r->kept[b] = al_vis_same_tree(&m->blocks[b].vis, &pm->blocks[b].vis);
    r->vis = previous->vis;
    return true;
}

/* Whether brush B's box, grown by PLACE_MARGIN, reaches a block of W that R does not keep. */
static bool reaches_new_block(const reuse *r, const al_world *w, const al_brush *b)
{
    const al_model *m = &w->models[0];
    int lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = (int) floor((b->mins[k] - PLACE_MARGIN) / w->block_size) - m->grid_origin[k];
        hi[k] = (int) floor((b->maxs[k] + PLACE_MARGIN) / w->block_size) - m->grid_origin[k];
        if (lo[k] < 0) lo[k] = 0;
        if (hi[k] > m->grid_dims[k] - 1) hi[k] = m->grid_dims[k] - 1;
    }
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int x = lo[0]; x <= hi[0]; x++)
                if (!r->kept[al_model_block_index(m, x, y, z)]) return true;
    return false;
}

/* Where the faces of the world model's brushes land, into VIS's brush_place_first and
 * face_places: taken from R where it can, else pushed down the trees. */
static bool place_faces(const al_world *w, al_vis *vis, reuse *r, al_arena *arena)
{
    const al_model *m = &w->models[0];
    place_vec places = {0};
    al_vis_fragments pieces = {0};
    vis->placed_brush_count = m->brush_count;
    vis->stats.face_brushes = m->brush_count;
    vis->brush_place_first = malloc(((size_t) m->brush_count + 1) * sizeof *vis->brush_place_first);
    bool ok = vis->brush_place_first != NULL;
    for (int i = 0; ok && i < m->brush_count; i++) {
        const al_brush *b = w->collision[m->first_brush + i];
        vis->brush_place_first[i] = (int32_t) places.count;
        if (places.count > INT32_MAX / 2) ok = false;
        if (!ok || (b->material_flags & AL_MATERIAL_CLIP)) continue;
        int32_t from = w->collision_hash
                           ? al_key_pool_take(&r->brushes, w->collision_hash[m->first_brush + i])
                           : -1;
        /* The places in the blocks kept are the previous world's; the faces go down the
         * trees only to the others (all of them for a brush not found there). */
        const uint8_t *skip = NULL;
        if (from >= 0) {
            const al_vis *pv = r->vis;
            for (int32_t k = pv->brush_place_first[from]; ok && k < pv->brush_place_first[from + 1];
                 k++)
                if (r->kept[pv->face_places[k].block]) ok = add_place(&places, pv->face_places[k]);
            if (!reaches_new_block(r, w, b)) continue;
            skip = r->kept;
        }
        vis->stats.face_brushes_placed++;
        for (int s = 0; ok && s < b->side_count; s++) {
            const al_side *side = &b->sides[s];
            if (side->face < 0 || !side->winding) continue;
            al_arena_mark mark = al_arena_get_mark(arena);
            const double *normal = w->planes.planes[side->plane].normal;
            ok = push_world(arena, w, m->top.root, side->winding, normal, side->face, skip, &pieces,
                            &places);
            al_arena_release(arena, mark);
        }
    }
    if (ok) vis->brush_place_first[m->brush_count] = (int32_t) places.count;
    vis->face_places = places.items;
    free(pieces.items);
    return ok;
}

/* Appends the clusters touched by the box [MINS, MAXS] below CODE of block B's vis tree. */
static bool box_clusters(const al_vis *vis, const al_tree *t, int32_t base, int32_t code,
                         const double mins[3], const double maxs[3], int32_t entity,
                         triple_vec *out)
{
    while (code >= 0) {
        const al_node *n = &t->nodes[code];
        double lo = -n->dist, hi = -n->dist;
        for (int k = 0; k < 3; k++) {
            double a = n->normal[k] * mins[k], c = n->normal[k] * maxs[k];
            lo += a < c ? a : c;
            hi += a < c ? c : a;
        }
        if (lo >= 0) {
            code = n->child[0];
        } else if (hi < 0) {
            code = n->child[1];
        } else {
            if (!box_clusters(vis, t, base, n->child[1], mins, maxs, entity, out)) return false;
            code = n->child[0];
        }
    }
    int32_t cluster = vis->leaf_cluster[base + (-1 - code)];
    return cluster < 0 || add_triple(out, entity, cluster, 0);
}

static bool top_box(const al_world *w, int32_t code, const double mins[3], const double maxs[3],
                    int32_t entity, triple_vec *out)
{
    const al_model *m = &w->models[0];
    while (code >= 0) {
        const al_node *n = &m->top.nodes[code];
        int axis = n->normal[0] != 0 ? 0 : n->normal[1] != 0 ? 1 : 2; /* top planes are axial */
        if (mins[axis] >= n->dist) {
            code = n->child[0];
        } else if (maxs[axis] < n->dist) {
            code = n->child[1];
        } else {
            if (!top_box(w, n->child[1], mins, maxs, entity, out)) return false;
            code = n->child[0];
        }
    }
    int b = -1 - code;
    const al_tree *t = &m->blocks[b].vis;
    return box_clusters(w->vis, t, w->vis->leaf_base[b], t->root, mins, maxs, entity, out);
}

static int compare_clusters(const void *a, const void *b)
{
    int32_t x = ((const triple *) a)->a, y = ((const triple *) b)->a;
    return x < y ? -1 : x > y;
}

int al_world_vis_leaves_in_box(const al_world *w, const double mins[3], const double maxs[3],
                               int32_t *out, int max)
{
    if (!w->vis || w->models[0].block_count == 0) return 0;
    triple_vec found = {0};
    if (!top_box(w, w->models[0].top.root, mins, maxs, 0, &found)) {
        free(found.items);
        return -1;
    }
    if (found.count > 1)
        qsort(found.items, (size_t) found.count, sizeof *found.items, compare_clusters);
    int n = 0;
    for (int64_t i = 0; i < found.count; i++) {
        if (i > 0 && found.items[i].a == found.items[i - 1].a) continue;
        if (n < max) out[n] = found.items[i].a;
        n++;
    }
    free(found.items);
    return n;
}

int al_vis_leaf_faces(const al_world *w, al_vis *vis, const al_vis_entity *entities,
                      int entity_count, const al_world *previous)
{
    const al_model *m = &w->models[0];
    al_arena *arena = al_arena_create(0);
    triple_vec faces = {0}, ents = {0};
    reuse r;
    int status = -1;
    if (!reuse_init(&r, w, previous) || !arena || !place_faces(w, vis, &r, arena)) goto done;
    faces.capacity = vis->brush_place_first[m->brush_count];
    faces.items = malloc(((size_t) faces.capacity + 1) * sizeof *faces.items);
    if (!faces.items) goto done;
    for (int i = 0; i < m->brush_count; i++) {
        int32_t id = w->collision[m->first_brush + i]->id;
        for (int32_t k = vis->brush_place_first[i]; k < vis->brush_place_first[i + 1]; k++) {
            const al_face_place *p = &vis->face_places[k];
            int32_t cluster = vis->leaf_cluster[vis->leaf_base[p->block] + p->leaf];
            if (cluster >= 0) faces.items[faces.count++] = (triple){cluster, id, p->face};
        }
    }
    if (!to_lists(&faces, vis->cluster_count, &vis->cluster_face_first, &vis->cluster_faces,
                  NULL))
        goto done;

    for (int e = 0; e < entity_count; e++) {
        const al_vis_entity *ent = &entities[e];
        if (e == 0) continue; /* worldspawn is the world itself */
        if (ent->has_brushes) {
            if (!top_box(w, m->top.root, ent->mins, ent->maxs, e, &ents)) goto done;
        } else if (ent->has_origin) {
            int32_t cluster = vis->leaf_cluster[al_vis_find_leaf(w, ent->origin)];
            if (cluster >= 0 && !add_triple(&ents, e, cluster, 0)) goto done;
        }
    }
    vis->entity_count = entity_count;
    if (!to_lists(&ents, entity_count, &vis->entity_cluster_first, NULL, &vis->entity_clusters))
        goto done;
    status = 0;

done:
    free(faces.items);
    free(ents.items);
    reuse_free(&r);
    al_arena_destroy(arena);
    return status;
}
