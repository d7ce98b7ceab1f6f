/* Quake-style hull check on a map tree (see quake-trace.h). */
#include "quake-trace.h"

#include "geom/vec3.h"
#include "world/world-internal.h"

#define DIST_EPSILON (1.0 / 32.0)

typedef struct qwork {
    const al_model *model;
    int hull;
    double fraction;
    bool allsolid;
} qwork;

/* The tree and node to continue in: block leaves of the top tree lead into the block's map
 * tree of the hull. */
static const al_tree *enter(const qwork *q, const al_tree *tree, int32_t *code)
{
    if (*code < 0 && tree == &q->model->top) {
        tree = &q->model->blocks[-1 - *code].map[q->hull];
        *code = tree->root;
    }
    return tree;
}

static bool solid_at(const qwork *q, const al_tree *tree, int32_t code, const double p[3])
{
    for (;;) {
        tree = enter(q, tree, &code);
        if (code < 0) return tree->leaves[-1 - code] & 1;
        const al_node *n = &tree->nodes[code];
        code = n->child[al_dot(n->normal, p) - n->dist < 0];
    }
}

static bool check(qwork *q, const al_tree *tree, int32_t code, double p1f, double p2f,
                  const double p1[3], const double p2[3])
{
    tree = enter(q, tree, &code);
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
    const al_model *m = &world->models[0];
    qwork q = {.model = m, .hull = hull, .fraction = 1.0, .allsolid = true};
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = start[k] < end[k] ? start[k] : end[k];
        hi[k] = start[k] < end[k] ? end[k] : start[k];
    }
    /* Like the onion trace, start in the segment's block when it lies in one. */
    int b = al_model_box_block(m, lo, hi);
    if (b >= 0) {
        const al_tree *t = &m->blocks[b].map[hull];
        check(&q, t, t->root, 0, 1, start, end);
    } else {
        check(&q, &m->top, m->top.root, 0, 1, start, end);
    }
    return q.fraction;
}
