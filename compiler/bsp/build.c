/* The polygon BSP builder (see build.h).
 *
 * Memory follows the recursion: a node's partitioned polygon arrays, split windings and
 * child cells are allocated in the arena before its children are built and released after,
 * so a build holds only the memory of its current path. Nodes are emitted in pre-order
 * (parent before its front subtree), which keeps a trace's walk mostly forward in memory.
 */
#include "build.h"

#include "brush/expand.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "csg.h"
#include "split.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BEVELS 128

typedef struct builder {
    al_arena *arena;
    al_build_scratch *scratch;
    const al_build_params *params;
    al_tree *out;
    int node_capacity;
    int leaf_capacity;
    int32_t void_leaf; /* shared AL_LEAF_BEVEL_FRONT leaf, -1 until made */
    al_build_stats *stats;
    bool failed;
} builder;

void al_build_scratch_free(al_build_scratch *s)
{
    if (!s) return;
    free(s->stamp);
    free(s->candidates);
    free(s->evals);
    free(s->sorted);
    free(s->flat);
    free(s->hints);
    memset(s, 0, sizeof *s);
}

static int32_t push_node(builder *b)
{
    al_tree *t = b->out;
    if (t->node_count == b->node_capacity) {
        int capacity = b->node_capacity ? b->node_capacity * 2 : 16;
        al_node *nodes = realloc(t->nodes, (size_t) capacity * sizeof *nodes);
        if (!nodes) {
            b->failed = true;
            return -1;
        }
        t->nodes = nodes;
        b->node_capacity = capacity;
    }
    memset(&t->nodes[t->node_count], 0, sizeof t->nodes[0]);
    return t->node_count++;
}

/* Returns the child code (-1 - leaf index), or 0 after a failure (never a valid leaf code). */
static int32_t push_leaf(builder *b, uint32_t bits)
{
    al_tree *t = b->out;
    if (t->leaf_count == b->leaf_capacity) {
        int capacity = b->leaf_capacity ? b->leaf_capacity * 2 : 16;
        uint32_t *leaves = realloc(t->leaves, (size_t) capacity * sizeof *leaves);
        if (!leaves) {
            b->failed = true;
            return 0;
        }
        t->leaves = leaves;
        b->leaf_capacity = capacity;
    }
    t->leaves[t->leaf_count] = bits;
    return -1 - t->leaf_count++;
}

static void set_plane(al_node *n, const double normal[3], double dist)
{
    al_copy(normal, n->normal);
    n->dist = dist;
}

/* A solid leaf of the point hull, preceded by its cell's bevel planes: each bevel node has
 * the volume-less outside of the bevel in front (a shared AL_LEAF_BEVEL_FRONT leaf) and the
 * rest of the chain behind. Point queries are unchanged: the cell lies behind every bevel,
 * and a point on a bevel plane is on the cell's closure, so the front leaf is solid to them.
 * A plane-shifted trace treats the front leaf as empty and so gets the exact Minkowski sum
 * of the cell and the box (trace/shift.c). The oracles found the need for the flag: an
 * onion leaf's interior point can land exactly on a bevel plane. */
static int32_t bevel_chain(builder *b, const al_cell *cell, int32_t solid_leaf)
{
    const al_winding *windings[MAX_BEVELS];
    double normals[MAX_BEVELS][3];
    int faces = al_cell_faces(cell, windings, normals, MAX_BEVELS);
    double bevel_normals[MAX_BEVELS][3];
    double bevel_dists[MAX_BEVELS];
    int bevels = al_bevel_planes(windings, (const double (*)[3]) normals, faces, bevel_normals,
                                 bevel_dists, MAX_BEVELS);
    if (bevels == 0) return solid_leaf;
    if (b->void_leaf == -1) {
        b->void_leaf = push_leaf(b, 1u | AL_LEAF_BEVEL_FRONT);
        if (b->failed) return 0;
    }
    int32_t first = -1, previous = -1;
    for (int i = 0; i < bevels; i++) {
        int32_t n = push_node(b);
        if (n < 0) return 0;
        set_plane(&b->out->nodes[n], bevel_normals[i], bevel_dists[i]);
        b->out->nodes[n].child[0] = b->void_leaf;
        if (previous >= 0) b->out->nodes[previous].child[1] = n;
        else first = n;
        previous = n;
    }
    b->out->nodes[previous].child[1] = solid_leaf;
    b->stats->bevel_nodes += bevels;
    return first;
}

/* Whether a map tree's leaf is solid, from a point of its cell that lies clear of every
 * brush's surface: the mean of the cell's vertices, or else a point halfway from it to the
 * centre of a face (the mean lies on a surface when the cell straddles a face two brushes
 * share, which no split cuts). If every point tried lies on a surface (a cell thinner than
 * AL_ON_EPSILON along one), the mean's own side decides, to the last bit: a sliver hugging
 * a brush's face from outside is empty, one from inside solid, and a point on a face two
 * brushes share lies in both. */
static bool cell_solid(const al_build_params *p, const al_cell *cell)
{
    double mean[3], q[3];
    al_cell_point(cell, mean);
    al_csg_side side = al_csg_point_side(p->planes, p->brushes, p->brush_count, mean);
    for (int f = 0; f < cell->count && side == AL_CSG_ON; f++) {
        double centre[3];
        al_winding_center(cell->faces[f].winding, centre);
        al_lerp(mean, centre, 0.5, q);
        side = al_csg_point_side(p->planes, p->brushes, p->brush_count, q);
    }
    if (side == AL_CSG_ON)
        return al_csg_point_in_closure(p->planes, p->brushes, p->brush_count, mean);
    return side == AL_CSG_INSIDE;
}

/* Whether the box [MINS, MAXS] of a map tree without polygons is solid: as region_solid,
 * from a few points near its centre (the centre itself often lies on the face two brushes
 * share, strictly inside neither). */
static bool box_solid(const al_build_params *p)
{
    static const double at[][3] = {
        {0.5123457, 0.5234561, 0.5345679},
        {0.4728172, 0.5314159, 0.4838197},
        {0.5, 0.5, 0.5},
    };
    al_csg_side side = AL_CSG_ON;
    for (size_t c = 0; c < sizeof at / sizeof at[0] && side == AL_CSG_ON; c++) {
        double q[3];
        for (int k = 0; k < 3; k++) q[k] = p->mins[k] + at[c][k] * (p->maxs[k] - p->mins[k]);
        side = al_csg_point_side(p->planes, p->brushes, p->brush_count, q);
    }
    return side != AL_CSG_OUTSIDE;
}

static int32_t make_leaf(builder *b, const al_cell *cell)
{
    const al_build_params *p = b->params;
    if (p->mode == AL_BUILD_MAP_TREE) {
        bool solid = cell_solid(p, cell);
        int32_t leaf = push_leaf(b, solid ? 1u : 0u);
        if (b->failed) return 0;
        if (solid && p->bevel_chains) return bevel_chain(b, cell, leaf);
        return leaf;
    }
    /* Onion: classify an interior point in every hull's map tree. */
    double point[3];
    al_cell_point(cell, point);
    uint32_t bits = 0;
    for (int h = 0; h < p->hull_count; h++)
        if (al_tree_point_bits(&p->map_trees[h], point) & 1u) bits |= 1u << h;
    return push_leaf(b, bits);
}

/* Chooses the split of CELL for POLYS, or -1 for none (a leaf). A plane that would leave
 * one side of the cell without volume (missing it, or cutting off a sliver thinner than
 * AL_ON_EPSILON) is not used: its polygons, and those in its on-plane band, lie in that
 * sliver, against the cell's own face, and stop being candidates. A leaf without volume
 * would otherwise have to take its solidity from a point elsewhere, and the sliver, as
 * long as the cell, could not be told from its surroundings; without the split, its
 * points go down the side with volume, whose planes reach across it. The sides of the
 * chosen split are returned in FRONT_CELL and BACK_CELL. */
static int choose_split(builder *b, al_bsp_poly *polys, int count, const al_cell *cell,
                        al_cell **front_cell, al_cell **back_cell)
{
    const al_plane_table *planes = b->params->planes;
    for (;;) {
        int split = al_split_choose(b->scratch, planes, polys, count, b->stats);
        if (split < 0) return -1;
        const al_plane *pl = &planes->planes[split];
        if (al_cell_split(b->arena, cell, pl->normal, pl->dist, front_cell, back_cell) < 0) {
            b->failed = true;
            return -1;
        }
        if (*front_cell && *back_cell) return split;
        for (int i = 0; i < count; i++) {
            int side = al_split_classify(planes, split, &polys[i]);
            if (side == AL_POLY_COPLANAR_FRONT || side == AL_POLY_COPLANAR_BACK)
                polys[i].candidate = false;
        }
        b->stats->degenerate++;
    }
}

/* A side of a split thinner than this along the plane is a sliver (see build). */
#define THIN_SIDE AL_SURFACE_EPSILON

/* How far CELL, on the side SIGN of PLANE (1 front, -1 back), reaches from it. */
static double side_thickness(const al_cell *cell, const al_plane *plane, double sign)
{
    double most = 0;
    for (int f = 0; f < cell->count; f++) {
        const al_winding *w = cell->faces[f].winding;
        for (int i = 0; i < w->count; i++) {
            double d = sign * (al_dot(plane->normal, w->points[i]) - plane->dist);
            if (d > most) most = d;
        }
    }
    return most;
}

/* Whether P, on the side SIGN of PLANE, comes within AL_ON_EPSILON of it. */
static bool touches(const al_bsp_poly *p, const al_plane *plane, double sign)
{
    for (int i = 0; i < p->winding->count; i++)
        if (sign * (al_dot(plane->normal, p->winding->points[i]) - plane->dist) <= AL_ON_EPSILON)
            return true;
    return false;
}

static int32_t build(builder *b, al_bsp_poly *polys, int count, const al_cell *cell)
{
    const al_plane_table *planes = b->params->planes;
    al_arena_mark mark = al_arena_get_mark(b->arena);
    al_cell *front_cell, *back_cell;
    int split = choose_split(b, polys, count, cell, &front_cell, &back_cell);
    if (b->failed) return 0;
    if (split < 0) return make_leaf(b, cell);

    const al_plane *pl = &planes->planes[split];
    al_bsp_poly *front = al_arena_alloc(b->arena, (size_t) (count + 1) * sizeof *front);
    al_bsp_poly *back = al_arena_alloc(b->arena, (size_t) (count + 1) * sizeof *back);
    if (!front || !back) {
        b->failed = true;
        return 0;
    }
    /* A side thinner than THIN_SIDE along the plane is a sliver that may reach past the
     * edge where a surface turns (a slope meeting the flat top beside it): the turn lies
     * in the plane's band, the faces that meet there touch the plane from the other side,
     * and the sliver needs their planes too, or one leaf of it is solid and empty at once.
     * Those faces go to both sides. */
    bool thin_front = side_thickness(front_cell, pl, 1.0) < THIN_SIDE;
    bool thin_back = side_thickness(back_cell, pl, -1.0) < THIN_SIDE;
    int nf = 0, nb = 0;
    for (int i = 0; i < count; i++) {
        al_bsp_poly *p = &polys[i];
        switch (al_split_classify(planes, split, p)) {
        case AL_POLY_FRONT:
            front[nf++] = *p;
            if (thin_back && touches(p, pl, 1.0)) back[nb++] = *p;
            break;
        case AL_POLY_BACK:
            back[nb++] = *p;
            if (thin_front && touches(p, pl, -1.0)) front[nf++] = *p;
            break;
        case AL_POLY_COPLANAR_FRONT:
            front[nf] = *p;
            front[nf++].candidate = false;
            break;
        case AL_POLY_COPLANAR_BACK:
            back[nb] = *p;
            back[nb++].candidate = false;
            break;
        case AL_POLY_ACROSS:
            front[nf++] = *p;
            back[nb++] = *p;
            break;
        default: {
            al_winding *wf, *wb;
            int side = al_winding_split(b->arena, p->winding, pl->normal, pl->dist,
                                        AL_ON_EPSILON, &wf, &wb);
            if (side < 0) {
                b->failed = true;
                return 0;
            }
            if (wf) {
                front[nf] = *p;
                front[nf].winding = wf;
                al_winding_bounds(wf, front[nf].mins, front[nf].maxs);
                nf++;
            }
            if (wb) {
                back[nb] = *p;
                back[nb].winding = wb;
                al_winding_bounds(wb, back[nb].mins, back[nb].maxs);
                nb++;
            }
            if (wf && wb) b->stats->splits++;
            break;
        }
        }
    }

    int32_t node = push_node(b);
    if (node < 0) return 0;
    set_plane(&b->out->nodes[node], pl->normal, pl->dist);

    al_arena_mark children = al_arena_get_mark(b->arena);
    int32_t f = build(b, front, nf, front_cell);
    if (b->failed) return 0;
    al_arena_release(b->arena, children);
    int32_t k = build(b, back, nb, back_cell);
    if (b->failed) return 0;
    al_arena_release(b->arena, mark);
    b->out->nodes[node].child[0] = f;
    b->out->nodes[node].child[1] = k;
    return node;
}

int al_build_tree(al_arena *arena, al_build_scratch *scratch, const al_build_params *params,
                  al_bsp_poly *polys, int count, al_tree *out, al_build_stats *stats)
{
    int keys = params->planes->count / 2;
    if (scratch->stamp_size < keys) {
        uint32_t *stamp = realloc(scratch->stamp, (size_t) keys * sizeof *stamp);
        if (!stamp) return -1;
        memset(stamp + scratch->stamp_size, 0,
               (size_t) (keys - scratch->stamp_size) * sizeof *stamp);
        scratch->stamp = stamp;
        scratch->stamp_size = keys;
    }
    memset(out, 0, sizeof *out);
    builder b = {.arena = arena, .scratch = scratch, .params = params, .out = out,
                 .void_leaf = -1, .stats = stats};
    stats->polys_in += count;

    al_arena_mark mark = al_arena_get_mark(arena);
    double center[3];
    for (int k = 0; k < 3; k++) center[k] = 0.5 * (params->mins[k] + params->maxs[k]);
    if (count == 0) {
        /* One leaf, without the box's cell (many small boxes are wholly empty or solid):
         * a box has no bevels beyond its own faces; a map tree reads its solidity near the
         * centre (box_solid), an onion tree at the centre, the mean of its corners. */
        uint32_t bits = 0;
        if (params->mode == AL_BUILD_MAP_TREE)
            bits = box_solid(params) ? 1u : 0u;
        else
            for (int h = 0; h < params->hull_count; h++)
                if (al_tree_point_bits(&params->map_trees[h], center) & 1u) bits |= 1u << h;
        out->root = push_leaf(&b, bits);
        if (b.failed) {
            al_tree_free(out);
            return -1;
        }
        return 0;
    }
    al_cell *root_cell = al_cell_box(arena, params->mins, params->maxs);
    if (!root_cell) {
        al_tree_free(out);
        return -1;
    }
    out->root = build(&b, polys, count, root_cell);
    al_arena_release(arena, mark);
    if (b.failed) {
        al_tree_free(out);
        return -1;
    }
    return 0;
}
