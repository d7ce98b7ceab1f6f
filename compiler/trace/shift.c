/* Swept boxes of any size: dynamic plane shifting (Melax, "Dynamic Plane Shifting BSP
 * Traversal", Graphics Interface 2000), the alternative the onion seed's discussion
 * describes.
 *
 * A box B moving with its origin collides with solid S exactly when the origin enters
 * S (+) (-B). For a node with plane (n, d), every solid leaf behind it lies in
 * n.x <= d, whose sum with -B is n.x <= d + support(n); every solid leaf in front lies in
 * n.x >= d, whose sum is n.x >= d - support(-n). So the back child sees the part of the
 * segment with n.x <= d + support(n), the front child the part with
 * n.x >= d - support(-n); the two overlap, and both are searched, nearer entry first. A
 * solid leaf reached with the piece [t0, t1] is hit at t0, on the plane that clipped t0.
 *
 * This is exact when every solid leaf's ancestors include all facet directions of
 * leaf (+) (-B): the leaf's faces, the axes and its edges crossed with the axes. The point
 * hull's map tree carries those bevels as a chain of nodes above each solid leaf (see
 * bsp/build.c), so the result equals the onion trace of a compiled hull of the same size.
 *
 * Clip brushes are solid to every box but a point (Quake's hull 0 leaves them out): a box
 * reads each block's shift tree, the point hull's map tree with the clip brushes, which a
 * block has only where clip brushes reach it (al_block_shift); a point reads the point
 * hull's own map tree.
 */
#include "brush/expand.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <string.h>

typedef struct shiftwork {
    const al_model *model;
    double start[3], delta[3];
    double mins[3], maxs[3];
    /* best hit so far */
    double t;
    const double *normal;
    double sign;
    bool hit, start_solid;
    bool point; /* the box is a point: clip brushes are not solid to it */
    /* The top tree's nodes whose empty_mask holds all these bits hold nothing solid to the
     * box (0: take none as empty). The masks are the onion's: for a box that clip brushes
     * stop, a region is empty when it is so for every hull, as the agents' hulls hold the
     * clip brushes (a world with the point hull alone gives no such proof). */
    uint32_t top_empty;
} shiftwork;

/* Searches the piece [t0, t1] of the segment in the subtree CODE. T0 was set by crossing the
 * plane NORMAL * SIGN, or by nothing (NORMAL NULL: t0 is the start of the move). */
static void shift(shiftwork *sw, const al_tree *tree, int32_t code, double t0, double t1,
                  const double *normal, double sign)
{
    for (;;) {
        if (t0 > t1 || (sw->hit && t0 >= sw->t)) return;
        if (code < 0) {
            if (tree == &sw->model->top) {
                const al_block *block = &sw->model->blocks[-1 - code];
                tree = sw->point ? &block->map[0] : al_block_shift(block);
                code = tree->root;
                continue;
            }
            uint32_t leaf = tree->leaves[-1 - code];
            if (!(leaf & 1u) || (leaf & AL_LEAF_BEVEL_FRONT)) return;
            sw->hit = true;
            sw->t = t0;
            sw->normal = normal;
            sw->sign = sign;
            if (!normal) sw->start_solid = true;
            return;
        }
        const al_node *n = &tree->nodes[code];
        if (tree != &sw->model->top
                ? n->empty_mask & 1u
                : sw->top_empty && (n->empty_mask & sw->top_empty) == sw->top_empty)
            return;
        double neg[3] = {-n->normal[0], -n->normal[1], -n->normal[2]};
        double grow_back = al_box_support(n->normal, sw->mins, sw->maxs);
        double grow_front = al_box_support(neg, sw->mins, sw->maxs);
        double ds = al_dot(n->normal, sw->start) - n->dist;
        double dd = al_dot(n->normal, sw->delta);

        /* Back child: ds + t dd <= grow_back. Front child: ds + t dd >= -grow_front. */
        double b0 = t0, b1 = t1, f0 = t0, f1 = t1;
        const double *bn = normal, *fn = normal;
        double bs = sign, fs = sign;
        if (dd == 0) {
            if (ds > grow_back) b0 = 2, b1 = 1;    /* empty piece */
            if (ds < -grow_front) f0 = 2, f1 = 1;
        } else {
            double tb = (grow_back - ds) / dd;
            double tf = (-grow_front - ds) / dd;
            if (dd > 0) {
                /* Moving to the front: leaves the back region at tb, enters the front at tf. */
                if (tb < b1) b1 = tb;
                if (tf > f0) {
                    f0 = tf;
                    fn = n->normal;
                    fs = -1.0;
                }
            } else {
                if (tb > b0) {
                    b0 = tb;
                    bn = n->normal;
                    bs = 1.0;
                }
                if (tf < f1) f1 = tf;
            }
        }
        bool back_ok = b0 <= b1, front_ok = f0 <= f1;
        if (!back_ok && !front_ok) return;
        if (!back_ok) {
            code = n->child[0];
            t0 = f0, t1 = f1, normal = fn, sign = fs;
            continue;
        }
        if (!front_ok) {
            code = n->child[1];
            t0 = b0, t1 = b1, normal = bn, sign = bs;
            continue;
        }
        /* Both: the piece entered first goes first; the second is pruned by its result. */
        if (f0 <= b0) {
            shift(sw, tree, n->child[0], f0, f1, fn, fs);
            code = n->child[1];
            t0 = b0, t1 = b1, normal = bn, sign = bs;
        } else {
            shift(sw, tree, n->child[1], b0, b1, bn, bs);
            code = n->child[0];
            t0 = f0, t1 = f1, normal = fn, sign = fs;
        }
    }
}

void al_world_trace_box(const al_world *world, const double mins[3], const double maxs[3],
                        const double start[3], const double end[3], al_trace *out)
{
    memset(out, 0, sizeof *out);
    out->fraction = 1.0;
    out->model = -1;
    out->entity = -1;
    if (!al_is_finite3(start) || !al_is_finite3(end) || !al_is_finite3(mins) ||
        !al_is_finite3(maxs)) {
        al_copy(start, out->end);
        al_copy(start, out->contact);
        return;
    }
    bool point = true;
    for (int k = 0; k < 3; k++) point = point && mins[k] == 0 && maxs[k] == 0;
    uint32_t top_empty = 1u;
    if (!point)
        top_empty = world->hull_count < 2     ? 0u
                    : world->hull_count >= 32 ? 0xffffffffu
                                              : (1u << world->hull_count) - 1u;
    for (int m = 0; m < world->model_count; m++) {
        const al_model *model = &world->models[m];
        if (model->brush_count == 0) continue;
        /* Quick rejection against the model's bounds grown by the box. */
        bool miss = false;
        for (int k = 0; k < 3 && !miss; k++) {
            double lo = fmin(start[k], end[k]) + mins[k];
            double hi = fmax(start[k], end[k]) + maxs[k];
            if (hi < model->mins[k] - 1.0 || lo > model->maxs[k] + 1.0) miss = true;
        }
        if (miss) continue;
        shiftwork sw = {.model = model, .point = point, .top_empty = top_empty};
        al_copy(start, sw.start);
        al_sub(end, start, sw.delta);
        al_copy(mins, sw.mins);
        al_copy(maxs, sw.maxs);
        shift(&sw, &model->top, model->top.root, 0.0, 1.0, NULL, 0.0);
        if (!sw.hit) continue;
        if (sw.start_solid) {
            out->start_solid = true;
            sw.t = 0;
        }
        if (!out->hit || sw.t < out->fraction) {
            out->hit = true;
            out->fraction = sw.t;
            if (sw.normal) al_scale(sw.normal, sw.sign, out->normal);
            else al_set(0, 0, 0, out->normal);
            out->model = m;
            out->entity = model->entity;
        }
    }
    if (out->start_solid) {
        /* The move starts inside: it stays there if the end is inside too. */
        for (int m = 0; m < world->model_count && !out->all_solid; m++) {
            const al_model *model = &world->models[m];
            if (model->brush_count == 0) continue;
            shiftwork sw = {.model = model, .point = point, .top_empty = top_empty};
            al_copy(end, sw.start);
            al_copy(mins, sw.mins);
            al_copy(maxs, sw.maxs);
            shift(&sw, &model->top, model->top.root, 0.0, 0.0, NULL, 0.0);
            if (sw.hit && sw.start_solid) out->all_solid = true;
        }
        out->fraction = 0;
    }
    al_trace_finish(start, end, out);
}
