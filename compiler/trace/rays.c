/* Occlusion rays: a flat copy of the world's light trees and its walk (rays.h says why).
 *
 * The walk keeps the piece [t0, t1] of the segment still to test in the current subtree.
 * At a node the piece's ends are classified by their signed distances; if they differ in
 * sign the piece is split at the plane, the near part goes on down and the far part waits
 * on a stack. Near parts go first, so the first solid piece found is the first along the
 * segment. A part that would be a single point is left out: the segment only touches the
 * other side there, and touching is not blocking.
 *
 * The answer must depend on the brushes alone, not on the tree: a block rebuilt after an
 * edit elsewhere (or a full build) holds the same brushes in another tree, and radiosity
 * carried across the edit trusts the rays that pass far from it to be unchanged. Two
 * things would make it depend on the tree. A piece lying in a node's plane (a ray along a
 * surface) sent to the front child is blocked or not according to which side of the plane
 * the tree calls its front (x = c may be an axial node in one tree and a node with normal
 * -x in another) and which of a brush's coplanar faces it split on; such a piece touches both
 * sides, so it is blocked only where both are solid (first_solid_both). And a ray through
 * an edge where two planes meet crosses them at two distances along it that round apart:
 * the sliver between, some 1e-14 units long, falls into a cell that the segment only
 * touches, and is solid in one tree and absent in another (e2m2: a ray along x = 544
 * through the edge where y = 1280 meets a slanted wall). So an end of a piece within
 * AL_RAY_EPSILON of a plane counts as on it, and a piece with one end on a plane goes
 * wholly to the side of its other end; one with both on it lies in the plane. The rule is
 * the same with the plane turned round, so the side a tree calls front does not matter.
 *
 * The choice of child is a branch, not an index computed from the signs. Radiosity casts
 * its rays in runs that follow nearly the same path (the luxels of a group towards the
 * same shooter), so the branches are predicted and the processor runs ahead to the next
 * node before the dot products are done; with an index it must wait for them. On 3
 * million rays the solver cast on e1m1, replayed, the branch-free walk took 287 ns a ray
 * and this one 189 ns (both before the nodes were made compact). Walking four rays at
 * once, branch-free, halves the time of random, unrelated rays, but gained nothing on the
 * solver's, so it is not here.
 *
 * Workload: e1m1 flattens to 5,469 nodes (829 of them with general planes) in 0.2 ms,
 * lq-e3m4 to 21,422 in 0.6 ms; the solver then casts about 16 million rays through e1m1's.
 */
#include "trace/rays.h"

#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RAY_STACK 64 /* pieces waiting; a deeper tree finishes the near part by a call */

/* --- building ---------------------------------------------------------------------- */

typedef struct builder {
    const al_model *model;
    al_ray_tree *out;
    int32_t node_capacity, normal_capacity;
    bool failed;
} builder;

/* Room for one more element in *ITEMS (COUNT used of *CAPACITY, each SIZE bytes). */
static bool reserve(void **items, int32_t count, int32_t *capacity, size_t size)
{
    if (count < *capacity) return true;
    if (*capacity > INT32_MAX / 2) return false;
    int32_t grown = *capacity ? *capacity * 2 : 1024;
    void *more = realloc(*items, (size_t) grown * size);
    if (!more) return false;
    *items = more;
    *capacity = grown;
    return true;
}

/* The axis field of a node with plane normal N: 0-2 for +x, +y, +z (as the plane table
 * snaps them), else 3 + a new entry of the normals. -1 if memory runs out. */
static int32_t axis_of(builder *b, const double n[3])
{
    for (int k = 0; k < 3; k++)
        if (n[k] == 1.0 && n[(k + 1) % 3] == 0.0 && n[(k + 2) % 3] == 0.0) return k;
    al_ray_tree *out = b->out;
    if (!reserve((void **) &out->normals, out->normal_count, &b->normal_capacity,
                 sizeof *out->normals))
        return -1;
    memcpy(out->normals[out->normal_count], n, sizeof out->normals[0]);
    return 3 + out->normal_count++;
}

/* Copies the subtree CODE of TREE (the top tree's leaves are blocks, whose light trees are
 * copied in their place); returns its code in the flat tree. */
static int32_t copy_subtree(builder *b, const al_tree *tree, int32_t code)
{
    const al_model *m = b->model;
    if (code < 0) {
        if (tree == &m->top) {
            const al_tree *light = al_block_light(&m->blocks[-1 - code]);
            return copy_subtree(b, light, light->root);
        }
        return tree->leaves[-1 - code] & 1u ? AL_RAY_SOLID : AL_RAY_EMPTY;
    }
    const al_node *n = &tree->nodes[code];
    /* Uniform for the point hull: a leaf. (The top tree's masks come from the onion trees,
     * clip included, so they do not count there.) */
    if (tree != &m->top && ((n->empty_mask | n->solid_mask) & 1u))
        return n->solid_mask & 1u ? AL_RAY_SOLID : AL_RAY_EMPTY;
    al_ray_tree *out = b->out;
    int32_t axis = b->failed ? -1 : axis_of(b, n->normal);
    if (axis < 0 ||
        !reserve((void **) &out->nodes, out->node_count, &b->node_capacity, sizeof *out->nodes)) {
        b->failed = true;
        return AL_RAY_EMPTY;
    }
    int32_t i = out->node_count++;
    out->nodes[i] = (al_ray_node){.dist = n->dist, .axis = axis};
    int32_t front = copy_subtree(b, tree, n->child[0]);
    int32_t back = copy_subtree(b, tree, n->child[1]);
    out->nodes[i].child[0] = front; /* (the array may have moved) */
    out->nodes[i].child[1] = back;
    return i;
}

bool al_ray_tree_build(const al_world *world, al_ray_tree *out)
{
    memset(out, 0, sizeof *out);
    out->root = AL_RAY_EMPTY;
    const al_model *m = &world->models[0];
    if (m->brush_count == 0 || m->block_count == 0) return true;
    builder b = {.model = m, .out = out};
    out->root = copy_subtree(&b, &m->top, m->top.root);
    if (b.failed) {
        al_ray_tree_free(out);
        return false;
    }
    return true;
}

void al_ray_tree_free(al_ray_tree *tree)
{
    if (!tree) return;
    free(tree->nodes);
    free(tree->normals);
    memset(tree, 0, sizeof *tree);
    tree->root = AL_RAY_EMPTY;
}

/* --- the walk ------------------------------------------------------------------------ */

typedef struct piece {
    int32_t code;
    double t0, t1;
} piece;

static double first_solid(const al_ray_tree *tree, const double a[3], const double d[3],
                          int32_t code, double t0, double t1);

/* The first piece of A + t D, t in [T0, T1] (T0 < T1), that is solid both below FRONT and
 * below BACK: its start, or INFINITY. This is the walk of a piece lying in a node's plane,
 * whose children are FRONT and BACK: such a piece touches both sides, and touching is not
 * blocking, so it is blocked only where both sides are solid. Which side a plane calls its
 * front depends on the tree (x = c may be an axial node in one and a node with normal -x
 * in another), so sending the piece to either child alone would make the answer depend
 * on the tree rather than on the geometry.
 *
 * first_solid returns the start of a solid piece of positive length, so T is the start of
 * a piece solid on both sides once neither walk moves it; each walk that moves it moves it
 * forward to a piece boundary, of which there are finitely many. */
static double first_solid_both(const al_ray_tree *tree, const double a[3], const double d[3],
                               int32_t front, int32_t back, double t0, double t1)
{
    if (front == AL_RAY_EMPTY || back == AL_RAY_EMPTY) return INFINITY;
    if (front == AL_RAY_SOLID) return first_solid(tree, a, d, back, t0, t1);
    if (back == AL_RAY_SOLID) return first_solid(tree, a, d, front, t0, t1);
    double t = t0;
    for (;;) {
        double tf = first_solid(tree, a, d, front, t, t1);
        if (tf == INFINITY) return INFINITY;
        double tb = first_solid(tree, a, d, back, tf, t1);
        if (tb == tf || tb == INFINITY) return tb;
        t = tb;
    }
}

/* The first solid piece of A + t D, t in [T0, T1], below CODE: its start, or INFINITY. */
static double first_solid(const al_ray_tree *tree, const double a[3], const double d[3],
                          int32_t code, double t0, double t1)
{
    piece stack[RAY_STACK];
    int top = 0;
    for (;;) {
        while (code >= 0) {
            const al_ray_node *n = &tree->nodes[code];
            double base, rate;
            if (n->axis < 3) {
                base = a[n->axis] - n->dist;
                rate = d[n->axis];
            } else {
                const double *normal = tree->normals[n->axis - 3];
                base = al_dot(normal, a) - n->dist;
                rate = al_dot(normal, d);
            }
            double d0 = base + rate * t0, d1 = base + rate * t1;
            /* An end within AL_RAY_EPSILON of the plane is on it and goes with the other
             * end (see the file's comment). */
            if (d0 > -AL_RAY_EPSILON && d1 > -AL_RAY_EPSILON) {
                if (d0 >= AL_RAY_EPSILON || d1 >= AL_RAY_EPSILON) {
                    code = n->child[0];
                    continue;
                }
                /* The piece lies in the plane: see first_solid_both. */
                double t = first_solid_both(tree, a, d, n->child[0], n->child[1], t0, t1);
                if (t < INFINITY) return t;
                code = AL_RAY_EMPTY;
                break;
            }
            if (d0 < AL_RAY_EPSILON && d1 < AL_RAY_EPSILON) {
                code = n->child[1];
                continue;
            }
            int near = d0 > 0 ? 0 : 1;
            double tm = -base / rate; /* rate is not 0: the ends are on opposite sides */
            if (tm <= t0) {
                code = n->child[near ^ 1];
                continue;
            }
            if (tm >= t1) {
                code = n->child[near];
                continue;
            }
            if (top == RAY_STACK) {
                double t = first_solid(tree, a, d, n->child[near], t0, tm);
                if (t < INFINITY) return t;
                code = n->child[near ^ 1];
                t0 = tm;
                continue;
            }
            stack[top++] = (piece){n->child[near ^ 1], tm, t1};
            code = n->child[near];
            t1 = tm;
        }
        if (code == AL_RAY_SOLID) return t0;
        if (top == 0) return INFINITY;
        piece p = stack[--top];
        code = p.code;
        t0 = p.t0;
        t1 = p.t1;
    }
}

double al_ray_hit(const al_ray_tree *tree, const double from[3], const double to[3])
{
    double d[3];
    al_sub(to, from, d);
    return first_solid(tree, from, d, tree->root, 0.0, 1.0);
}
