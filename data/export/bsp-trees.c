/* The hull trees of a .bsp (see bsp.h): Quake's hull 0 as nodes and leaves, its hulls 1 and
 * 2 as clipnodes, for every model, from the compiled world's map trees.
 *
 * A model's map tree for a hull is its top tree over the blocks with each block's tree hung
 * under the block's leaf; the walk below reads it as one tree. Hull 0 keeps the tree's
 * shape (a leaf is a place with its own faces and, later, its own visibility) but folds
 * every all-solid subtree into Quake's shared solid leaf 0 and every all-empty one into a
 * single leaf. The clip hulls need no leaves, so their equal subtrees are shared: a
 * clipnode is looked up by (plane, children) before it is added.
 *
 * Workload: one walk of every block tree per hull; e1m1's trees take a few milliseconds.
 */
#include "bsp-internal.h"

#include "al-brush.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Points this close to a plane count as on it, when a liquid brush is sorted down the tree. */
#define ON_PLANE 0.01

/* The walk of one model's tree for one hull: the top tree and the block trees under it. */
typedef struct walk {
    const al_world *world;
    int model, hull;
    al_tree_view top;
    al_tree_view *blocks; /* per block, its map tree of the hull */
    int block_count;
} walk;

/* Where a walk stands: BLOCK -1 in the top tree, else in that block's tree; CODE a node
 * index or -1 - leaf in that tree. */
typedef struct spot {
    int block;
    int32_t code;
} spot;

/* What stands at *SPOT once block leaves of the top tree are entered (*SPOT moves into the
 * block): a node (*NODE set) or a leaf, solid or not. A block tree without leaves is empty. */
static bool resolve(const walk *k, spot *spot_, const al_node **node, bool *solid)
{
    for (spot s = *spot_;; *spot_ = s) {
        if (s.block < 0) {
            if (s.code >= 0) {
                *node = &k->top.nodes[s.code];
                *spot_ = s;
                return true;
            }
            s.block = -1 - s.code;
            const al_tree_view *b = &k->blocks[s.block];
            if (b->leaf_count == 0) break;
            s.code = b->root;
            continue;
        }
        const al_tree_view *b = &k->blocks[s.block];
        if (s.code >= 0) {
            *node = &b->nodes[s.code];
            *spot_ = s;
            return true;
        }
        *node = NULL;
        *solid = (b->leaves[-1 - s.code] & 1u) != 0;
        *spot_ = s;
        return false;
    }
    *node = NULL;
    *solid = false;
    return false;
}

static spot child_spot(spot s, const al_node *n, int side)
{
    return (spot){s.block, n->child[side]};
}

/* Whether the node N of spot S is uniform for its hull: 1 all solid, 0 all empty, -1 not
 * (or not known: the top tree's masks are the onion trees', so they are not used). */
static int uniform(spot s, const al_node *n)
{
    if (s.block < 0) return -1;
    if (n->solid_mask & 1u) return 1;
    if (n->empty_mask & 1u) return 0;
    return -1;
}

static bool walk_open(walk *k, const al_world *w, int model, int hull)
{
    memset(k, 0, sizeof *k);
    k->world = w;
    k->model = model;
    k->hull = hull;
    al_world_model_top_tree(w, model, &k->top);
    k->block_count = al_world_model_block_count(w, model);
    k->blocks = calloc((size_t) (k->block_count > 0 ? k->block_count : 1), sizeof *k->blocks);
    if (!k->blocks) return false;
    for (int b = 0; b < k->block_count; b++)
        al_world_model_block_map_tree(w, model, b, hull, &k->blocks[b]);
    return true;
}

/* The box of the part of BOX on SIDE (0 front, 1 back) of the plane NORMAL . x = DIST:
 * cut along the axis when the plane is axial, else BOX itself. */
static void cut_box(const double normal[3], double dist, int side, const double mins[3],
                    const double maxs[3], double out_mins[3], double out_maxs[3])
{
    memcpy(out_mins, mins, 3 * sizeof *mins);
    memcpy(out_maxs, maxs, 3 * sizeof *maxs);
    for (int a = 0; a < 3; a++) {
        if (fabs(normal[a]) != 1.0) continue;
        /* front: normal[a] x_a >= dist */
        bool above = (normal[a] > 0) == (side == 0); /* the kept part is x_a >= cut */
        double cut = dist * normal[a];
        if (above) {
            if (out_mins[a] < cut) out_mins[a] = cut;
            if (out_maxs[a] < out_mins[a]) out_maxs[a] = out_mins[a];
        } else {
            if (out_maxs[a] > cut) out_maxs[a] = cut;
            if (out_mins[a] > out_maxs[a]) out_mins[a] = out_maxs[a];
        }
    }
}

/* The bounds written for a cell of the box [LO, HI]: the box cut to the model's bounds
 * (grown by a unit), in the model's coordinates (less Q->offset), whole units. Cells
 * outside the model's geometry are flat boxes on its edge. */
static void set_bounds(const q_bsp *q, float mins[3], float maxs[3], const double lo[3],
                       const double hi[3])
{
    for (int a = 0; a < 3; a++) {
        double l = fmax(lo[a], q->clamp_mins[a]), h = fmin(hi[a], q->clamp_maxs[a]);
        l = fmin(l, q->clamp_maxs[a]);
        h = fmax(h, l);
        mins[a] = (float) floor(l - q->offset[a]);
        maxs[a] = (float) ceil(h - q->offset[a]);
    }
}

/* A new leaf of CONTENTS over the box; its index, or -1 (memory). */
static int32_t add_leaf(q_bsp *q, int32_t contents, const double mins[3], const double maxs[3])
{
    q_leaf *l = q_push(&q->leafs);
    q_box *box = q_push(&q->leaf_boxes);
    if (!l || !box) return -1;
    l->contents = contents;
    l->visofs = -1;
    set_bounds(q, l->mins, l->maxs, mins, maxs);
    memcpy(box->mins, mins, sizeof box->mins);
    memcpy(box->maxs, maxs, sizeof box->maxs);
    return q->leafs.count - 1;
}

/* A node on the plane NORMAL . x = DIST with FRONT and BACK (children as Allium's trees
 * name them: FRONT is where the distance is >= 0). Its index, or -1 (memory). */
static int32_t add_node(q_bsp *q, const double normal[3], double dist, int32_t front, int32_t back,
                        const double mins[3], const double maxs[3])
{
    bool flipped;
    int32_t plane = q_plane_add(q, normal, dist, &flipped);
    if (plane < 0) return -1;
    q_node *n = q_push(&q->nodes);
    if (!n) return -1;
    n->plane = plane;
    n->child[0] = flipped ? back : front;
    n->child[1] = flipped ? front : back;
    set_bounds(q, n->mins, n->maxs, mins, maxs);
    return q->nodes.count - 1;
}

/* --- liquids in the world's hull 0 ------------------------------------------------------- */

/* The liquid brushes that may reach a part of the tree, by input brush index. */
typedef struct liquid_list {
    int32_t *brushes;
    int count;
} liquid_list;

/* The brushes of L that reach the SIDE (0 front, 1 back) of the plane into OUT (malloc'd;
 * false when memory runs out). */
static bool liquids_on_side(const q_bsp *q, const liquid_list *l, const double normal[3],
                            double dist, int side, liquid_list *out)
{
    out->count = 0;
    out->brushes = malloc((size_t) (l->count > 0 ? l->count : 1) * sizeof *out->brushes);
    if (!out->brushes) return false;
    const al_face_polys *p = &q->polys;
    for (int i = 0; i < l->count; i++) {
        int b = l->brushes[i];
        double lo = INFINITY, hi = -INFINITY;
        for (int f = p->brush_first[b]; f < p->brush_first[b + 1]; f++)
            for (int v = 0; v < p->faces[f].point_count; v++) {
                const double *x = p->points[p->faces[f].first_point + v];
                double d = normal[0] * x[0] + normal[1] * x[1] + normal[2] * x[2] - dist;
                if (d < lo) lo = d;
                if (d > hi) hi = d;
            }
        if (side == 0 ? hi > -ON_PLANE : lo < ON_PLANE) out->brushes[out->count++] = b;
    }
    return true;
}

static int32_t liquid_contents(const q_bsp *q, int brush)
{
    uint32_t c = al_brush_contents(q->src->input, brush, NULL);
    if (c & AL_MATERIAL_LAVA) return Q_CONTENTS_LAVA;
    if (c & AL_MATERIAL_SLIME) return Q_CONTENTS_SLIME;
    return Q_CONTENTS_WATER;
}

static int32_t liquid_leaf(q_bsp *q, const liquid_list *l, const double mins[3],
                           const double maxs[3]);

/* The inside of the first brush of L behind its faces from FACE on (the parts in front of
 * one go on to the other brushes of L). Returns a child code, or INT32_MIN (memory). */
static int32_t liquid_faces(q_bsp *q, const liquid_list *l, int face, const double mins[3],
                            const double maxs[3])
{
    const al_face_polys *p = &q->polys;
    int b = l->brushes[0];
    const al_face_poly *f = &p->faces[p->brush_first[b] + face];
    double fm[3], fx[3], bm[3], bx[3];
    cut_box(f->normal, f->dist, 0, mins, maxs, fm, fx);
    cut_box(f->normal, f->dist, 1, mins, maxs, bm, bx);
    liquid_list rest = {l->brushes + 1, l->count - 1}, front;
    if (!liquids_on_side(q, &rest, f->normal, f->dist, 0, &front)) return INT32_MIN;
    int32_t c0 = liquid_leaf(q, &front, fm, fx);
    free(front.brushes);
    if (c0 == INT32_MIN) return INT32_MIN;
    int32_t c1;
    if (p->brush_first[b] + face + 1 < p->brush_first[b + 1]) {
        c1 = liquid_faces(q, l, face + 1, bm, bx);
    } else {
        int32_t leaf = add_leaf(q, liquid_contents(q, b), bm, bx);
        c1 = leaf < 0 ? INT32_MIN : -1 - leaf;
    }
    if (c1 == INT32_MIN) return INT32_MIN;
    int32_t n = add_node(q, f->normal, f->dist, c0, c1, mins, maxs);
    return n < 0 ? INT32_MIN : n;
}

/* An empty leaf of the world cut by the liquid brushes of L: each point gets the contents
 * of the first brush of L (input order) that holds it, as al_world_point_liquid answers.
 * Returns a child code, or INT32_MIN (memory). */
static int32_t liquid_leaf(q_bsp *q, const liquid_list *l, const double mins[3],
                           const double maxs[3])
{
    if (l->count == 0) {
        int32_t leaf = add_leaf(q, Q_CONTENTS_EMPTY, mins, maxs);
        return leaf < 0 ? INT32_MIN : -1 - leaf;
    }
    /* A box (which holds the cell) wholly inside the first brush needs no cut: a big pool
     * would otherwise add its faces over every cell it covers. */
    const al_face_polys *p = &q->polys;
    int b = l->brushes[0];
    bool inside = true;
    for (int f = p->brush_first[b]; inside && f < p->brush_first[b + 1]; f++) {
        const al_face_poly *fp = &p->faces[f];
        double far = -fp->dist;
        for (int k = 0; k < 3; k++) far += fp->normal[k] * (fp->normal[k] > 0 ? maxs[k] : mins[k]);
        inside = far <= 0;
    }
    if (inside) {
        int32_t leaf = add_leaf(q, liquid_contents(q, b), mins, maxs);
        return leaf < 0 ? INT32_MIN : -1 - leaf;
    }
    return liquid_faces(q, l, 0, mins, maxs);
}

/* --- hull 0 -------------------------------------------------------------------------------- */

/* The hull-0 tree under S over the box [MINS, MAXS], with the liquids L that may reach it:
 * a child code (a node, or -1 - leaf, leaf 0 being solid), or INT32_MIN (memory). */
static int32_t emit_point(q_bsp *q, const walk *k, spot s, const liquid_list *l,
                          const double mins[3], const double maxs[3])
{
    const al_node *n;
    bool solid;
    if (!resolve(k, &s, &n, &solid)) return solid ? -1 : liquid_leaf(q, l, mins, maxs);
    int u = uniform(s, n);
    if (u == 1) return -1;
    if (u == 0) return liquid_leaf(q, l, mins, maxs);
    int32_t c[2];
    for (int side = 0; side < 2; side++) {
        double cm[3], cx[3];
        cut_box(n->normal, n->dist, side, mins, maxs, cm, cx);
        liquid_list sub = {NULL, 0};
        if (l->count > 0 && !liquids_on_side(q, l, n->normal, n->dist, side, &sub))
            return INT32_MIN;
        c[side] = emit_point(q, k, child_spot(s, n, side), &sub, cm, cx);
        free(sub.brushes);
        if (c[side] == INT32_MIN) return INT32_MIN;
    }
    if (c[0] == -1 && c[1] == -1) return -1;
    int32_t node = add_node(q, n->normal, n->dist, c[0], c[1], mins, maxs);
    return node < 0 ? INT32_MIN : node;
}

/* --- clip hulls ---------------------------------------------------------------------------- */

/* The clipnode tree under S: a clipnode index or contents (-1 empty, -2 solid), or
 * INT32_MIN (memory). Equal subtrees come back as one clipnode. */
static int32_t emit_clip(q_bsp *q, const walk *k, spot s)
{
    const al_node *n;
    bool solid;
    if (!resolve(k, &s, &n, &solid)) return solid ? Q_CONTENTS_SOLID : Q_CONTENTS_EMPTY;
    int u = uniform(s, n);
    if (u >= 0) return u ? Q_CONTENTS_SOLID : Q_CONTENTS_EMPTY;
    int32_t c0 = emit_clip(q, k, child_spot(s, n, 0));
    if (c0 == INT32_MIN) return INT32_MIN;
    int32_t c1 = emit_clip(q, k, child_spot(s, n, 1));
    if (c1 == INT32_MIN) return INT32_MIN;
    if (c0 == c1) return c0;
    bool flipped;
    int32_t plane = q_plane_add(q, n->normal, n->dist, &flipped);
    if (plane < 0) return INT32_MIN;
    int32_t key[3] = {plane, flipped ? c1 : c0, flipped ? c0 : c1};
    uint64_t h = q_hash_bytes(key, sizeof key);
    /* The index holds the first clipnode of a hash; a collision of different content is
     * told apart by comparing, and then simply not shared. */
    int32_t found = q_index_get(&q->clip_index, h);
    if (found >= 0) {
        const q_clipnode *f = Q_AT(q->clipnodes, q_clipnode, found);
        if (f->plane == key[0] && f->child[0] == key[1] && f->child[1] == key[2]) return found;
    }
    q_clipnode *cn = q_push(&q->clipnodes);
    if (!cn) return INT32_MIN;
    cn->plane = key[0];
    cn->child[0] = key[1];
    cn->child[1] = key[2];
    int32_t index = q->clipnodes.count - 1;
    if (found < 0 && !q_index_put(&q->clip_index, h, index)) return INT32_MIN;
    return index;
}

/* A clipnode holding CONTENTS on both sides, for a hull whose tree is one leaf (a headnode
 * must be a clipnode). */
static int32_t uniform_clipnode(q_bsp *q, int32_t contents)
{
    bool flipped;
    int32_t plane = q_plane_add(q, (const double[3]){0, 0, 1}, 0, &flipped);
    q_clipnode *cn = plane < 0 ? NULL : q_push(&q->clipnodes);
    if (!cn) return INT32_MIN;
    cn->plane = plane;
    cn->child[0] = cn->child[1] = contents;
    return q->clipnodes.count - 1;
}

/* A node with an empty leaf on each side over the box, for a model without solid (a
 * trigger's) or a hull-0 tree that is one leaf. */
static int32_t empty_node(q_bsp *q, const double mins[3], const double maxs[3], int32_t contents)
{
    int32_t a = add_leaf(q, contents, mins, maxs), b = add_leaf(q, contents, mins, maxs);
    if (a < 0 || b < 0) return INT32_MIN;
    int32_t n = add_node(q, (const double[3]){0, 0, 1}, 0, -1 - a, -1 - b, mins, maxs);
    return n < 0 ? INT32_MIN : n;
}

/* A hull-0 headnode for a tree that is the one leaf CODE: a node with that leaf in front
 * and a leaf of its contents behind (solid: leaf 0 on both sides). */
static int32_t one_leaf_tree(q_bsp *q, int32_t code, const double mins[3], const double maxs[3])
{
    int32_t back = -1;
    if (code != -1) {
        int32_t leaf = add_leaf(q, Q_AT(q->leafs, q_leaf, -1 - code)->contents, mins, maxs);
        if (leaf < 0) return INT32_MIN;
        back = -1 - leaf;
    }
    int32_t n = add_node(q, (const double[3]){0, 0, 1}, 0, code, back, mins, maxs);
    return n < 0 ? INT32_MIN : n;
}

/* The world's liquid brushes (world and detail brushes whose first face is a liquid), by
 * input index, into L. */
static bool world_liquids(const q_bsp *q, liquid_list *l)
{
    const al_input *in = q->src->input;
    l->count = 0;
    l->brushes = malloc((size_t) (in->brush_count > 0 ? in->brush_count : 1) * sizeof *l->brushes);
    if (!l->brushes) return false;
    for (int b = 0; b < in->brush_count; b++) {
        const al_entity_desc *e = &in->entities[in->brushes[b].entity];
        al_entity_role role =
            in->brushes[b].entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(e->classname);
        if (role != AL_ROLE_WORLD && role != AL_ROLE_DETAIL) continue;
        if (q->polys.brush_first[b] == q->polys.brush_first[b + 1]) continue; /* invalid */
        if (al_brush_contents(in, b, NULL) & AL_MATERIAL_LIQUID) l->brushes[l->count++] = b;
    }
    return true;
}

al_status q_build_trees(q_bsp *q)
{
    const al_world *w = q->src->world;
    /* Leaf 0: Quake's shared solid leaf. */
    q_leaf *solid = q_push(&q->leafs);
    if (!solid || !q_push(&q->leaf_boxes)) return AL_ERR_NOMEM;
    solid->contents = Q_CONTENTS_SOLID;
    solid->visofs = -1;
    liquid_list liquids = {NULL, 0};
    if (!world_liquids(q, &liquids)) return AL_ERR_NOMEM;
    al_status st = AL_OK;
    for (int m = 0; m < q->model_count && st == AL_OK; m++) {
        q_model *qm = Q_AT(q->models, q_model, m);
        /* The trees' cells are boxes of all space (what the leaves' boxes are for the
         * visibility); the bounds written are cut to the model's. */
        double mins[3], maxs[3];
        for (int a = 0; a < 3; a++) {
            mins[a] = -Q_ALL_SPACE;
            maxs[a] = Q_ALL_SPACE;
            q->clamp_mins[a] = qm->mins[a] - 1;
            q->clamp_maxs[a] = qm->maxs[a] + 1;
        }
        memcpy(q->offset, q->model_origin[m], sizeof q->offset);
        int am = q->model_allium[m];
        int32_t first_leaf = q->leafs.count;
        if (am < 0) {
            /* Not solid: empty trees, the model is its faces and bounds. */
            int32_t root = empty_node(q, mins, maxs, Q_CONTENTS_EMPTY);
            int32_t c = uniform_clipnode(q, Q_CONTENTS_EMPTY);
            if (root == INT32_MIN || c == INT32_MIN) st = AL_ERR_NOMEM;
            qm->headnode[0] = root;
            qm->headnode[1] = qm->headnode[2] = c;
            continue;
        }
        for (int hull = 0; hull < 3 && st == AL_OK; hull++) {
            walk k;
            if (!walk_open(&k, w, am, q->quake_hull[hull])) {
                st = AL_ERR_NOMEM;
                break;
            }
            spot root = {-1, k.top.root};
            int32_t c;
            if (hull == 0) {
                liquid_list none = {NULL, 0};
                c = emit_point(q, &k, root, m == 0 ? &liquids : &none, mins, maxs);
                if (c != INT32_MIN && c < 0) c = one_leaf_tree(q, c, mins, maxs);
            } else {
                c = emit_clip(q, &k, root);
                if (c != INT32_MIN && c < 0) c = uniform_clipnode(q, c);
            }
            free(k.blocks);
            if (c == INT32_MIN) st = AL_ERR_NOMEM;
            qm->headnode[hull] = c;
        }
        if (m == 0) qm->visleafs = q->leafs.count - first_leaf;
    }
    free(liquids.brushes);
    memset(q->offset, 0, sizeof q->offset);
    return st;
}
