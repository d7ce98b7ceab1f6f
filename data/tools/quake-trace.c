/* Quake-style hull check on a map tree (see quake-trace.h). */
#include "quake-trace.h"

#include "al-vec3.h"
#include "al-world-trees.h"

#define DIST_EPSILON (1.0 / 32.0)

typedef struct qwork {
    const al_world *world;
    al_tree_view top; /* the world model's top tree (its leaves are blocks), when the
                         segment spans blocks */
    int hull;
    double fraction;
    bool allsolid;
} qwork;

/* The tree and node to continue in: a block leaf of the top tree leads into the block's
 * map tree of the hull, whose view is put in BLOCK (the caller's, so that every frame of
 * the recursion keeps the tree it walks). */
static const al_tree_view *enter(const qwork *q, const al_tree_view *tree, int32_t *code,
                                 al_tree_view *block)
{
    if (*code < 0 && tree == &q->top) {
        al_world_block_map_tree(q->world, -1 - *code, q->hull, block);
        tree = block;
        *code = tree->root;
    }
    return tree;
}

static bool solid_at(const qwork *q, const al_tree_view *tree, int32_t code, const double p[3])
{
    al_tree_view block;
    for (;;) {
        tree = enter(q, tree, &code, &block);
        if (code < 0) return tree->leaves[-1 - code] & 1;
        const al_node *n = &tree->nodes[code];
        code = n->child[al_dot(n->normal, p) - n->dist < 0];
    }
}

static bool check(qwork *q, const al_tree_view *tree, int32_t code, double p1f, double p2f,
                  const double p1[3], const double p2[3])
{
    al_tree_view block;
    tree = enter(q, tree, &code, &block);
    if (code < 0) {
        if (!(tree->leaves[-1 - code] & 1)) q->allsolid = false;
        return true;
    }
    const al_node *n = &tree->nodes[code];
    double t1 = al_dot(n->normal, p1) - n->dist, t2 = al_dot(n->normal, p2) - n->dist;
    if (t1 >= 0 && t2 >= 0) return check(q, tree, n->child[0], p1f, p2f, p1, p2);
    if (t1 < 0 && t2 < 0) return check(q, tree, n->child[1], p1f, p2f, p1, p2);
    double frac = t1 < 0 ? (t1 + DIST_EPSILON) / (t1 - t2) : (t1 - DIST_EPSILON) / (t1 - t2);
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    double midf = p1f + (p2f - p1f) * frac, mid[3];
    al_lerp(p1, p2, frac, mid);
    int side = t1 < 0;
    if (!check(q, tree, n->child[side], p1f, midf, p1, mid)) return false;
    if (!solid_at(q, tree, n->child[side ^ 1], mid))
        return check(q, tree, n->child[side ^ 1], midf, p2f, mid, p2);
    if (q->allsolid) return false;
    q->fraction = midf;
    return false;
}

double al_quake_trace(const al_world *world, int hull, const double start[3], const double end[3])
{
    qwork q = {.world = world, .hull = hull, .fraction = 1.0, .allsolid = true};
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = start[k] < end[k] ? start[k] : end[k];
        hi[k] = start[k] < end[k] ? end[k] : start[k];
    }
    /* Like the onion trace, start in the segment's block when it lies in one. */
    int b = al_world_box_block(world, lo, hi);
    if (b >= 0) {
        al_tree_view t;
        al_world_block_map_tree(world, b, hull, &t);
        check(&q, &t, t.root, 0, 1, start, end);
    } else {
        al_world_top_tree(world, &q.top);
        check(&q, &q.top, q.top.root, 0, 1, start, end);
    }
    return q.fraction;
}
