/* Picking (al-render.h): the first brush face or point-entity box along a ray.
 *
 * Brushes are convex, so the ray enters a brush where the last of its face planes that it
 * crosses inwards is crossed (the classic slab test generalised to any planes); that plane
 * is the face hit.
 *
 * Brushes are found through a bounding-volume tree of their boxes, built with the scene
 * (which is rebuilt for every compiled snapshot, so the tree never has to follow an edit):
 * each node splits its brushes at the median of their centres along the longest axis of
 * the centres' bounds, down to AL_BVH_LEAF brushes. The walk visits the nearer child
 * first and skips every node whose box the ray enters beyond the best hit so far. Ties
 * (two brushes hit at the same distance) go to the lower brush index, as a scan in input
 * order would give; al_scene_pick_scan is that scan, kept as the tests' reference. */
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AL_BVH_LEAF 4   /* brushes per leaf at most */
#define AL_BVH_DEPTH 64 /* median splits: depth is about log2 of the brush count */

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

/* Ray against brush B's face planes; *T and the scene face entered. False if the ray
 * misses, or starts inside the brush (a camera inside a brush sees through it). */
static bool ray_brush(const al_scene *s, int b, const double o[3], const double d[3],
                      double t_max, double *t, int *face)
{
    double enter = -INFINITY, leave = t_max;
    int entered = -1;
    for (int f = s->brush_first_face[b]; f < s->brush_first_face[b + 1]; f++) {
        const al_scene_face *sf = &s->faces[f];
        double dn = sf->normal[0] * d[0] + sf->normal[1] * d[1] + sf->normal[2] * d[2];
        double dist = sf->normal[0] * o[0] + sf->normal[1] * o[1] + sf->normal[2] * o[2] - sf->dist;
        if (fabs(dn) < 1e-12) {
            if (dist > 0) return false; /* parallel and outside */
            continue;
        }
        double tp = -dist / dn;
        if (dn < 0) {
            if (tp > enter) enter = tp, entered = f;
        } else if (tp < leave) {
            leave = tp;
        }
        if (enter > leave) return false;
    }
    if (entered < 0 || enter < 0) return false;
    *t = enter;
    *face = entered;
    return true;
}

/* --- the tree ------------------------------------------------------------------------ */

typedef struct bvh_build {
    al_scene *s;
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

/* Fills node NODE with ITEMS [FIRST, FIRST + COUNT) and its subtree; nodes are taken from
 * s->bvh in order, children side by side. */
static void bvh_node_build(bvh_build *b, int32_t node, int32_t first, int32_t count, int depth)
{
    al_scene *s = b->s;
    al_scene_bvh_node *n = &s->bvh[node];
    double cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) n->mins[k] = INFINITY, n->maxs[k] = -INFINITY;
    for (int32_t i = first; i < first + count; i++) {
        int32_t br = b->items[i];
        for (int k = 0; k < 3; k++) {
            n->mins[k] = fmin(n->mins[k], s->brush_mins[br][k]);
            n->maxs[k] = fmax(n->maxs[k], s->brush_maxs[br][k]);
            cmin[k] = fmin(cmin[k], b->centre[br][k]);
            cmax[k] = fmax(cmax[k], b->centre[br][k]);
        }
    }
    if (count <= AL_BVH_LEAF || depth + 1 >= AL_BVH_DEPTH) {
        n->first = first;
        n->count = count;
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (cmax[k] - cmin[k] > cmax[axis] - cmin[axis]) axis = k;
    b->axis = axis;
    sorting = b;
    qsort(b->items + first, (size_t) count, sizeof *b->items, compare_items);
    int32_t left = s->bvh_count;
    s->bvh_count += 2;
    n->first = left;
    n->count = 0;
    int32_t half = count / 2;
    bvh_node_build(b, left, first, half, depth + 1);
    bvh_node_build(b, left + 1, first + half, count - half, depth + 1);
}

bool al_scene_bvh_build(al_scene *s)
{
    int32_t count = 0;
    for (int32_t b = 0; b < s->brush_count; b++) count += s->brush_first_face[b] < s->brush_first_face[b + 1];
    s->bvh_items = malloc(((size_t) count + 1) * sizeof *s->bvh_items);
    s->bvh = malloc(((size_t) 2 * count + 1) * sizeof *s->bvh);
    double (*centre)[3] = malloc(((size_t) s->brush_count + 1) * sizeof *centre);
    if (!s->bvh_items || !s->bvh || !centre) {
        free(centre);
        return false;
    }
    count = 0;
    for (int32_t b = 0; b < s->brush_count; b++) {
        if (s->brush_first_face[b] == s->brush_first_face[b + 1]) continue;
        s->bvh_items[count++] = b;
        for (int k = 0; k < 3; k++) centre[b][k] = 0.5 * (s->brush_mins[b][k] + s->brush_maxs[b][k]);
    }
    s->bvh_count = 0;
    if (count > 0) {
        bvh_build b = {.s = s, .items = s->bvh_items, .centre = centre};
        s->bvh_count = 1;
        bvh_node_build(&b, 0, 0, count, 0);
    }
    free(centre);
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
static void pick_brush(const al_scene *s, int32_t b, const double origin[3], const double dir[3],
                       unsigned flags, double *best, al_pick *out)
{
    if ((flags & AL_PICK_SKIP_TOOLS) && (s->brush_flags[b] & AL_FACE_TOOL)) return;
    double t;
    int axis, side, face;
    if (!ray_box(origin, dir, s->brush_mins[b], s->brush_maxs[b], *best, &t, &axis, &side)) return;
    if (!ray_brush(s, b, origin, dir, *best, &t, &face)) return;
    if (t > *best || (t == *best && out->kind == AL_PICK_FACE && b > out->brush)) return;
    *best = t;
    const al_scene_face *sf = &s->faces[face];
    out->kind = AL_PICK_FACE;
    out->brush = b;
    out->face = sf->face;
    out->entity = s->brush_entity[b];
    memcpy(out->normal, sf->normal, sizeof out->normal);
}

/* Point entities (few: a scan), then the hit point. */
static bool pick_finish(const al_scene *s, const double origin[3], const double dir[3],
                        unsigned flags, double best, al_pick *out)
{
    if (!(flags & AL_PICK_SKIP_ENTITIES)) {
        for (int i = 0; i < s->entity_count; i++) {
            const al_scene_entity *e = &s->entities[i];
            double t;
            int axis, side;
            if (!ray_box(origin, dir, e->mins, e->maxs, best, &t, &axis, &side) || t >= best ||
                axis < 0)
                continue;
            best = t;
            out->kind = AL_PICK_ENTITY;
            out->brush = out->face = -1;
            out->entity = e->entity;
            memset(out->normal, 0, sizeof out->normal);
            out->normal[axis] = side ? 1 : -1;
        }
    }
    if (out->kind == AL_PICK_NONE) return false;
    out->t = best;
    for (int k = 0; k < 3; k++) out->point[k] = origin[k] + dir[k] * best;
    return true;
}

bool al_scene_pick(const al_scene *s, const double origin[3], const double dir[3],
                   unsigned flags, al_pick *out)
{
    pick_init(out);
    double best = INFINITY;
    int32_t stack[2 * AL_BVH_DEPTH + 2];
    int top = 0;
    if (s->bvh_count > 0) stack[top++] = 0;
    while (top > 0) {
        const al_scene_bvh_node *n = &s->bvh[stack[--top]];
        double t;
        int axis, side;
        if (!ray_box(origin, dir, n->mins, n->maxs, best, &t, &axis, &side)) continue;
        if (n->count > 0) {
            for (int32_t i = n->first; i < n->first + n->count; i++)
                pick_brush(s, s->bvh_items[i], origin, dir, flags, &best, out);
            continue;
        }
        /* Both children: the nearer one on top, so it is walked first. */
        const al_scene_bvh_node *a = &s->bvh[n->first], *b = &s->bvh[n->first + 1];
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
    return pick_finish(s, origin, dir, flags, best, out);
}

bool al_scene_pick_scan(const al_scene *s, const double origin[3], const double dir[3],
                        unsigned flags, al_pick *out)
{
    pick_init(out);
    double best = INFINITY;
    for (int32_t b = 0; b < s->brush_count; b++)
        if (s->brush_first_face[b] < s->brush_first_face[b + 1])
            pick_brush(s, b, origin, dir, flags, &best, out);
    return pick_finish(s, origin, dir, flags, best, out);
}
