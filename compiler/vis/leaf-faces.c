/* Faces and entities in vis leaves.
 *
 * Every face of the world's brushes (structural and detail; clip brushes are never drawn)
 * is pushed down the world model's top tree and vis trees, as the thesis pushes its
 * "static objects" into the leaves after the tree is built. A structural face lies on a
 * leaf boundary and lands in the empty leaf it faces; a detail face lands in every leaf it
 * crosses. Faces inside solid land nowhere. Entities are pushed as their boxes (brush
 * entities) or their origins (point entities).
 *
 * Workload: once per compile, O(faces * tree depth); tens of milliseconds on the real maps.
 */
#include "vis.h"

#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

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
 * (a, b) pairs or, when ITEMS_B is NULL, the a values alone. */
static bool to_lists(triple_vec *v, int32_t keys, int32_t **first, al_leaf_face **pairs,
                     int32_t **items)
{
    if (v->count) qsort(v->items, (size_t) v->count, sizeof *v->items, compare_triples);
    int64_t n = 0;
    for (int64_t i = 0; i < v->count; i++)
        if (n == 0 || compare_triples(&v->items[i], &v->items[n - 1]) != 0)
            v->items[n++] = v->items[i];
    v->count = n;
    *first = calloc((size_t) keys + 1, sizeof **first);
    if (!*first) return false;
    if (pairs) {
        *pairs = malloc((size_t) (n + 1) * sizeof **pairs);
        if (!*pairs) return false;
    } else {
        *items = malloc((size_t) (n + 1) * sizeof **items);
        if (!*items) return false;
    }
    for (int64_t i = 0; i < n; i++) {
        (*first)[v->items[i].key + 1]++;
        if (pairs)
            (*pairs)[i] = (al_leaf_face){v->items[i].a, v->items[i].b};
        else
            (*items)[i] = v->items[i].a;
    }
    for (int32_t k = 0; k < keys; k++) (*first)[k + 1] += (*first)[k];
    return true;
}

/* Pushes W down the top tree, then down the vis tree of each block it reaches. */
static bool push_world(al_arena *arena, const al_world *w, int32_t code, al_winding *win,
                       const double toward[3], al_vis_fragments *out)
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
            if (!push_world(arena, w, n->child[1], back, toward, out)) return false;
            code = n->child[0];
            win = front;
            continue;
        }
        code = n->child[front ? 0 : 1];
    }
    int b = -1 - code;
    int first = out->count;
    if (!al_vis_push(arena, &m->blocks[b].vis, m->blocks[b].vis.root, win, toward, out))
        return false;
    for (int i = first; i < out->count; i++) out->items[i].leaf += w->vis->leaf_base[b];
    return true;
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
                      int entity_count)
{
    const al_model *m = &w->models[0];
    al_arena *arena = al_arena_create(0);
    triple_vec faces = {0}, ents = {0};
    al_vis_fragments pieces = {0};
    int status = -1;
    if (!arena) goto done;
    for (int i = m->first_brush; i < m->first_brush + m->brush_count; i++) {
        const al_brush *b = w->collision[i];
        if (b->material_flags & AL_MATERIAL_CLIP) continue;
        for (int s = 0; s < b->side_count; s++) {
            const al_side *side = &b->sides[s];
            if (side->face < 0 || !side->winding) continue;
            al_arena_mark mark = al_arena_get_mark(arena);
            pieces.count = 0;
            const double *normal = w->planes.planes[side->plane].normal;
            bool ok = push_world(arena, w, m->top.root, side->winding, normal, &pieces);
            for (int k = 0; ok && k < pieces.count; k++) {
                int32_t cluster = vis->leaf_cluster[pieces.items[k].leaf];
                if (cluster >= 0) ok = add_triple(&faces, cluster, b->id, side->face);
            }
            al_arena_release(arena, mark);
            if (!ok) goto done;
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
    free(pieces.items);
    al_arena_destroy(arena);
    return status;
}
