/* Picking (al-render.h): the first brush face or point-entity box along a ray.
 *
 * Brushes are convex, so the ray enters a brush where the last of its face planes that it
 * crosses inwards is crossed (the classic slab test generalised to any planes); that plane
 * is the face hit.
 *
 * Brushes are found through a bounding-volume tree of their boxes: each node splits its
 * brushes at the median of their centres along the longest axis of the centres' bounds,
 * down to AL_BVH_LEAF brushes. A scene built after an edit that added or removed no brush
 * takes the tree of the scene before it and refits it (each node's box grown or shrunk to
 * its brushes', bottom up: linear in the nodes, no sort); after AL_BVH_REFITS refits, or
 * when the brushes are another list, the tree is built again. A refitted tree is as
 * correct as a built one, only its boxes may overlap more. The walk visits the nearer
 * child first and skips every node whose box the ray enters beyond the best hit so far.
 * Ties (two brushes hit at the same distance) go to the lower brush index, as a scan in
 * input order would give; al_scene_pick_scan is that scan, kept as the tests' reference. */
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AL_BVH_LEAF 4   /* brushes per leaf at most */
#define AL_BVH_DEPTH 64 /* median splits: depth is about log2 of the brush count */
#define AL_BVH_REFITS 256 /* refits of one tree before it is built again */

/* Ray against the box [MN, MX]: entry distance in *T (>= 0) and the axis and side of the
 * entry face. False if missed or the box is behind. */
static bool ray_box(const double o[3], const double d[3], const double mn[3], const double mx[3],
                    double t_max, double *t, int *axis, int *side)
{
    double enter = 0, leave = t_max;
    int ax = -1, sd = 0;
    for (int k = 0; k < 3; k++) {
        if (fabs(d[k]) < 1e-12) {
            if (o[k] < mn[k] || o[k] > mx[k]) return false;
            continue;
        }
        double t0 = (mn[k] - o[k]) / d[k], t1 = (mx[k] - o[k]) / d[k];
        int s = 0;
        if (t0 > t1) {
            double tmp = t0;
            t0 = t1, t1 = tmp, s = 1;
        }
        if (t0 > enter) enter = t0, ax = k, sd = s;
        if (t1 < leave) leave = t1;
        if (enter > leave) return false;
    }
    *t = enter;
    *axis = ax;
    *side = sd;
    return true;
}

/* Ray against brush B's face planes; *T and the mesh face entered. False if the ray
 * misses, or starts inside the brush (a camera inside a brush sees through it). */
static bool ray_brush(const al_scene *s, int b, const double o[3], const double d[3],
                      double t_max, double *t, const al_mesh_face **face)
{
    const al_mesh *m = s->brushes[b];
    double enter = -INFINITY, leave = t_max;
    const al_mesh_face *entered = NULL;
    for (int f = 0; f < m->face_count; f++) {
        const al_mesh_face *sf = &m->faces[f];
        double dn = sf->normal[0] * d[0] + sf->normal[1] * d[1] + sf->normal[2] * d[2];
        double dist = sf->normal[0] * o[0] + sf->normal[1] * o[1] + sf->normal[2] * o[2] - sf->dist;
        if (fabs(dn) < 1e-12) {
            if (dist > 0) return false; /* parallel and outside */
            continue;
        }
        double tp = -dist / dn;
        if (dn < 0) {
            if (tp > enter) enter = tp, entered = sf;
        } else if (tp < leave) {
            leave = tp;
        }
        if (enter > leave) return false;
    }
    if (!entered || enter < 0) return false;
    *t = enter;
    *face = entered;
    return true;
}

/* --- the tree ------------------------------------------------------------------------ */

typedef struct bvh_build {
    const al_scene *s;
    al_scene_bvh *t;
    int32_t *items;
    double (*centre)[3];
    int axis; /* for compare_items */
} bvh_build;

static _Thread_local const bvh_build *sorting;

static int compare_items(const void *a, const void *b)
{
    double x = sorting->centre[*(const int32_t *) a][sorting->axis];
    double y = sorting->centre[*(const int32_t *) b][sorting->axis];
    if (x != y) return x < y ? -1 : 1;
    return (*(const int32_t *) a > *(const int32_t *) b) - (*(const int32_t *) a < *(const int32_t *) b);
}

/* Node NODE's box: its brushes' (a leaf) or its children's. */
static void bvh_fit(const al_scene *s, al_scene_bvh *t, int32_t node)
{
    al_scene_bvh_node *n = &t->nodes[node];
    for (int k = 0; k < 3; k++) n->mins[k] = INFINITY, n->maxs[k] = -INFINITY;
    if (n->count > 0) {
        for (int32_t i = n->first; i < n->first + n->count; i++) {
            const al_mesh *m = s->brushes[t->items[i]];
            if (!m) continue; /* a brush left with no faces: never hit */
            for (int k = 0; k < 3; k++) {
                n->mins[k] = fmin(n->mins[k], m->mins[k]);
                n->maxs[k] = fmax(n->maxs[k], m->maxs[k]);
            }
        }
        return;
    }
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++) {
            n->mins[k] = fmin(n->mins[k], t->nodes[n->first + c].mins[k]);
            n->maxs[k] = fmax(n->maxs[k], t->nodes[n->first + c].maxs[k]);
        }
}

/* Fills node NODE with ITEMS [FIRST, FIRST + COUNT) and its subtree; nodes are taken from
 * t->nodes in order, children side by side. */
static void bvh_node_build(bvh_build *b, int32_t node, int32_t parent, int32_t first,
                           int32_t count, int depth)
{
    al_scene_bvh *t = b->t;
    al_scene_bvh_node *n = &t->nodes[node];
    t->parent[node] = parent;
    double cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = first; i < first + count; i++)
        for (int k = 0; k < 3; k++) {
            cmin[k] = fmin(cmin[k], b->centre[b->items[i]][k]);
            cmax[k] = fmax(cmax[k], b->centre[b->items[i]][k]);
        }
    if (count <= AL_BVH_LEAF || depth + 1 >= AL_BVH_DEPTH) {
        n->first = first;
        n->count = count;
        bvh_fit(b->s, t, node);
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (cmax[k] - cmin[k] > cmax[axis] - cmin[axis]) axis = k;
    b->axis = axis;
    sorting = b;
    qsort(b->items + first, (size_t) count, sizeof *b->items, compare_items);
    int32_t left = t->count;
    t->count += 2;
    n->first = left;
    n->count = 0;
    int32_t half = count / 2;
    bvh_node_build(b, left, node, first, half, depth + 1);
    bvh_node_build(b, left + 1, node, first + half, count - half, depth + 1);
    bvh_fit(b->s, t, node);
}

void al_scene_bvh_release(al_scene_bvh *t)
{
    if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    free(t->nodes), free(t->items), free(t->parent);
    free(t);
}

static al_scene_bvh *bvh_new(int32_t items, int32_t nodes)
{
    al_scene_bvh *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->refs = 1;
    t->items = malloc(((size_t) items + 1) * sizeof *t->items);
    t->nodes = malloc(((size_t) nodes + 1) * sizeof *t->nodes);
    t->parent = malloc(((size_t) nodes + 1) * sizeof *t->parent);
    if (!t->items || !t->nodes || !t->parent) {
        al_scene_bvh_release(t);
        return NULL;
    }
    return t;
}

/* PREVIOUS's tree with the boxes of S's brushes: the same items and shape, every node
 * fitted again (children come after their parent, so a walk backwards fits leaves
 * first). */
static al_scene_bvh *bvh_refit(const al_scene *s, const al_scene_bvh *old)
{
    al_scene_bvh *t = bvh_new(s->brush_count, old->count);
    if (!t) return NULL;
    memcpy(t->items, old->items, (size_t) s->brush_count * sizeof *t->items);
    memcpy(t->nodes, old->nodes, (size_t) old->count * sizeof *t->nodes);
    memcpy(t->parent, old->parent, (size_t) old->count * sizeof *t->parent);
    t->count = old->count;
    t->refits = old->refits + 1;
    for (int32_t i = t->count - 1; i >= 0; i--) bvh_fit(s, t, i);
    return t;
}

bool al_scene_bvh_build(al_scene *s, const al_scene *previous)
{
    /* The same brushes in the same order (an edit that added or removed none): refit. */
    if (previous && previous->bvh && previous->bvh->refits < AL_BVH_REFITS && s->brush_ids &&
        previous->brush_ids && previous->brush_count == s->brush_count &&
        memcmp(previous->brush_ids, s->brush_ids, (size_t) s->brush_count * sizeof *s->brush_ids) == 0) {
        s->bvh = bvh_refit(s, previous->bvh);
        return s->bvh != NULL;
    }
    /* Every brush is an item, with faces or not: a refit may give a brush faces later. */
    int32_t count = s->brush_count;
    al_scene_bvh *t = bvh_new(count, 2 * count);
    double (*centre)[3] = malloc(((size_t) count + 1) * sizeof *centre);
    if (!t || !centre) {
        al_scene_bvh_release(t);
        free(centre);
        return false;
    }
    for (int32_t b = 0; b < count; b++) {
        t->items[b] = b;
        const al_mesh *m = s->brushes[b];
        for (int k = 0; k < 3; k++) centre[b][k] = m ? 0.5 * (m->mins[k] + m->maxs[k]) : 0;
    }
    t->count = 0;
    if (count > 0) {
        bvh_build b = {.s = s, .t = t, .items = t->items, .centre = centre};
        t->count = 1;
        bvh_node_build(&b, 0, -1, 0, count, 0);
    }
    free(centre);
    s->bvh = t;
    return true;
}

/* --- the pick --------------------------------------------------------------------------- */

static void pick_init(al_pick *out)
{
    memset(out, 0, sizeof *out);
    out->kind = AL_PICK_NONE;
    out->brush = out->face = out->entity = -1;
}

/* Tests brush B; keeps it in OUT if it is hit before *BEST (or at *BEST with a lower
 * index). */
/* Whether item I is hidden by the bytes HIDDEN (COUNT of them; NULL: none). */
static bool is_hidden(const uint8_t *hidden, int count, int32_t i)
{
    return hidden && i >= 0 && i < count && hidden[i];
}

static void pick_brush(const al_scene *s, int32_t b, const double origin[3], const double dir[3],
                       unsigned flags, const al_pick_mask *mask, double *best, al_pick *out)
{
    const al_mesh *m = s->brushes[b];
    if (!m || ((flags & AL_PICK_SKIP_TOOLS) && (m->flags & AL_FACE_TOOL))) return;
    if (mask && is_hidden(mask->brushes, mask->brush_count, b)) return;
    double t;
    int axis, side;
    const al_mesh_face *face;
    if (!ray_box(origin, dir, m->mins, m->maxs, *best, &t, &axis, &side)) return;
    if (!ray_brush(s, b, origin, dir, *best, &t, &face)) return;
    if (t > *best || (t == *best && out->kind == AL_PICK_FACE && b > out->brush)) return;
    *best = t;
    out->kind = AL_PICK_FACE;
    out->brush = b;
    out->face = face->face;
    out->entity = s->brush_entity[b];
    memcpy(out->normal, face->normal, sizeof out->normal);
}

/* Point entities (few: a scan), then the hit point. */
static bool pick_finish(const al_scene *s, const double origin[3], const double dir[3],
                        unsigned flags, const al_pick_mask *mask, double best, al_pick *out)
{
    if (!(flags & AL_PICK_SKIP_ENTITIES)) {
        for (int i = 0; i < s->entity_count; i++) {
            const al_mesh *e = s->entities[i];
            if (mask && is_hidden(mask->entities, mask->entity_count, s->entity_index[i])) continue;
            double t;
            int axis, side;
            if (!ray_box(origin, dir, e->mins, e->maxs, best, &t, &axis, &side) || t >= best ||
                axis < 0)
                continue;
            best = t;
            out->kind = AL_PICK_ENTITY;
            out->brush = out->face = -1;
            out->entity = s->entity_index[i];
            memset(out->normal, 0, sizeof out->normal);
            out->normal[axis] = side ? 1 : -1;
        }
    }
    if (out->kind == AL_PICK_NONE) return false;
    out->t = best;
    for (int k = 0; k < 3; k++) out->point[k] = origin[k] + dir[k] * best;
    return true;
}

bool al_scene_bvh_mark(const al_scene *s,
                       bool (*outside)(const void *context, const double mins[3],
                                       const double maxs[3]),
                       const void *context, uint32_t *stamp, uint32_t mark)
{
    const al_scene_bvh *tree = s->bvh;
    if (!tree || tree->count <= 0) return false;
    int32_t stack[2 * AL_BVH_DEPTH + 2];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const al_scene_bvh_node *n = &tree->nodes[stack[--top]];
        if (outside(context, n->mins, n->maxs)) continue;
        if (n->count > 0) {
            for (int32_t i = n->first; i < n->first + n->count; i++) stamp[tree->items[i]] = mark;
            continue;
        }
        stack[top++] = n->first;
        stack[top++] = n->first + 1;
    }
    return true;
}

bool al_scene_pick(const al_scene *s, const double origin[3], const double dir[3],
                   unsigned flags, al_pick *out)
{
    return al_scene_pick_visible(s, origin, dir, flags, NULL, out);
}

bool al_scene_pick_visible(const al_scene *s, const double origin[3], const double dir[3],
                           unsigned flags, const al_pick_mask *mask, al_pick *out)
{
    pick_init(out);
    double best = INFINITY;
    int32_t stack[2 * AL_BVH_DEPTH + 2];
    int top = 0;
    const al_scene_bvh *tree = s->bvh;
    if (tree && tree->count > 0) stack[top++] = 0;
    while (top > 0) {
        const al_scene_bvh_node *n = &tree->nodes[stack[--top]];
        double t;
        int axis, side;
        if (!ray_box(origin, dir, n->mins, n->maxs, best, &t, &axis, &side)) continue;
        if (n->count > 0) {
            for (int32_t i = n->first; i < n->first + n->count; i++)
                pick_brush(s, tree->items[i], origin, dir, flags, mask, &best, out);
            continue;
        }
        /* Both children: the nearer one on top, so it is walked first. */
        const al_scene_bvh_node *a = &tree->nodes[n->first], *b = &tree->nodes[n->first + 1];
        double ta, tb;
        bool ha = ray_box(origin, dir, a->mins, a->maxs, best, &ta, &axis, &side);
        bool hb = ray_box(origin, dir, b->mins, b->maxs, best, &tb, &axis, &side);
        if (ha && hb) {
            bool a_first = ta <= tb;
            stack[top++] = a_first ? n->first + 1 : n->first;
            stack[top++] = a_first ? n->first : n->first + 1;
        } else if (ha) {
            stack[top++] = n->first;
        } else if (hb) {
            stack[top++] = n->first + 1;
        }
    }
    return pick_finish(s, origin, dir, flags, mask, best, out);
}

bool al_scene_pick_scan(const al_scene *s, const double origin[3], const double dir[3],
                        unsigned flags, const al_pick_mask *mask, al_pick *out)
{
    pick_init(out);
    double best = INFINITY;
    for (int32_t b = 0; b < s->brush_count; b++)
        pick_brush(s, b, origin, dir, flags, mask, &best, out);
    return pick_finish(s, origin, dir, flags, mask, best, out);
}
