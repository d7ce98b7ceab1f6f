/* One block's trees. Its collision trees come from sub-cells (see al_subtree): per
 * sub-cell CSG per hull, a map tree per hull, then the onion tree, joined under axial nodes
 * on the sub-cell boundaries. Its vis and light trees are built whole.
 *
 * Sub-cells and vis trees are the units of work of a compile (they build in parallel) and
 * of an incremental rebuild. Their only inputs are the expanded brushes overlapping them,
 * so rebuilding after an edit gives the same trees as a full compile.
 */
#include "bsp/csg.h"
#include "al-epsilon.h"
#include "al-clock.h"
#include "world/world-internal.h"

#include <stdlib.h>
#include <string.h>

bool al_block_own(al_block *block)
{
    return al_block_own_collision(block) && al_block_own_vis(block);
}

bool al_block_own_collision(al_block *block)
{
    if (block->refs) return true;
    if (!(block->refs = malloc(sizeof *block->refs))) return false;
    *block->refs = 1;
    return true;
}

bool al_block_own_vis(al_block *block)
{
    if (block->vis_refs || !al_block_has_vis(block)) return true;
    if (!(block->vis_refs = malloc(sizeof *block->vis_refs))) return false;
    *block->vis_refs = 1;
    return true;
}

/* Drops a claim on a share of the block's trees: true if it was the last (or the share
 * was never owned), so the trees are to be freed. */
static bool release(int **refs)
{
    if (!*refs) return true;
    if (__atomic_sub_fetch(*refs, 1, __ATOMIC_ACQ_REL) > 0) return false;
    free(*refs);
    *refs = NULL;
    return true;
}

void al_block_free(al_block *block)
{
    if (!block) return;
    if (release(&block->refs)) {
        al_tree_free(&block->onion);
        for (int h = 0; h < AL_MAX_HULLS; h++) al_tree_free(&block->map[h]);
        al_tree_free(&block->shift);
        free(block->sub);
        free(block->sub_stats);
        free(block->open);
    }
    if (release(&block->vis_refs)) {
        al_tree_free(&block->vis);
        al_tree_free(&block->light);
    }
    memset(block, 0, sizeof *block);
}

/* A map tree of the box [MINS, MAXS] from POLYS, the boundary of BRUSHES (whose inside
 * decides the solidity of its leaves). */
static int build_map_tree(const al_world *w, const double mins[3], const double maxs[3],
                          al_brush *const *brushes, int count, al_poly_vec *polys,
                          bool bevel_chains, al_arena *arena, al_build_scratch *scratch,
                          al_tree *out, al_build_stats *stats)
{
    al_build_params params = {
        .mode = AL_BUILD_MAP_TREE,
        .planes = &w->planes,
        .mins = mins,
        .maxs = maxs,
        .brushes = brushes,
        .brush_count = count,
        .bevel_chains = bevel_chains,
    };
    if (al_build_tree(arena, scratch, &params, polys->items, polys->count, out, stats) < 0)
        return -1;
    al_tree_compute_masks(out, 1);
    return 0;
}

/* A map tree of the point hull from some of the brushes. The vis tree is made of the
 * brushes that block sight: detail and clip brushes are left out, so they do not split the
 * leaves that portals and the PVS are made of (their faces are pushed into those leaves
 * afterwards, vis/leaf-faces.c). With HINTS, the world's hint faces are split on too: they
 * cut its empty leaves where the designer asked, for more portals there; and with opaque
 * liquids the liquids' boundary, so that a portal lies on every liquid surface for the
 * PVS to stop at. The leaves' solidity still comes from the brushes alone (a leaf's
 * point, bsp/build.c). */
static int build_point_tree(const al_block_input *in, al_block *block, al_brush *const *brushes,
                            int count, bool hints, al_tree *out, al_arena *arena,
                            al_build_scratch *scratch)
{
    const al_world *w = in->world;
    al_poly_vec polys = {0};
    al_build_stats stats = {0};
    int status = -1;
    bool liquids = hints && w->opaque_liquids;
    if (al_csg_boundary(arena, &w->planes, brushes, count, block->mins, block->maxs, 0, &polys) ==
            0 &&
        (!hints || al_csg_hint_faces(arena, w->hints, w->hint_count, block->mins, block->maxs,
                                     &polys) == 0) &&
        (!liquids || al_csg_boundary(arena, &w->planes, w->liquids, w->liquid_count, block->mins,
                                     block->maxs, 0, &polys) == 0))
        status = build_map_tree(w, block->mins, block->maxs, brushes, count, &polys, false,
                                arena, scratch, out, &stats);
    al_poly_vec_free(&polys);
    return status;
}

/* The light tree: the same from the brushes that block light. Those that block sight are
 * among them, so when the counts agree (no detail in the block) the vis tree serves. */
static int build_light_tree(const al_block_input *in, al_block *block, al_arena *arena,
                            al_build_scratch *scratch)
{
    block->light_is_vis = in->light_count == in->vis_count;
    if (block->light_is_vis) return 0;
    return build_point_tree(in, block, in->light, in->light_count, false, &block->light, arena,
                            scratch);
}

void al_block_subcell_box(const al_block *block, double size, int s, double mins[3],
                          double maxs[3])
{
    int n = block->subcells;
    int c[3] = {s % n, s / n % n, s / (n * n)};
    for (int k = 0; k < 3; k++) {
        mins[k] = c[k] == 0 ? block->mins[k] : block->cell_mins[k] + c[k] * size;
        maxs[k] = c[k] == n - 1 ? block->maxs[k] : block->cell_mins[k] + (c[k] + 1) * size;
    }
}

void al_subcell_trees_free(al_subcell_trees *t)
{
    if (!t) return;
    al_tree_free(&t->onion);
    for (int h = 0; h < AL_MAX_HULLS; h++) al_tree_free(&t->map[h]);
    al_tree_free(&t->shift);
}

/* The brushes of LIST whose bounds reach [MINS, MAXS] (with a margin: one that reaches
 * no further than the margin adds nothing to the CSG inside the box). */
static al_brush **pick_brushes(al_arena *arena, al_brush *const *list, int count,
                               const double mins[3], const double maxs[3], int *picked)
{
    al_brush **out = al_arena_alloc(arena, ((size_t) count + 1) * sizeof *out);
    *picked = 0;
    if (!out) return NULL;
    const double margin = 4 * AL_ON_EPSILON;
    for (int i = 0; i < count; i++) {
        const al_brush *b = list[i];
        bool in = true;
        for (int k = 0; k < 3 && in; k++)
            in = b->mins[k] <= maxs[k] + margin && b->maxs[k] >= mins[k] - margin;
        if (in) out[(*picked)++] = list[i];
    }
    return out;
}

int al_subcell_build(const al_block_input *in, const double mins[3], const double maxs[3],
                     al_subcell_trees *out, al_arena *arena, al_build_scratch *scratch)
{
    const al_world *w = in->world;
    int hulls = w->hull_count;
    al_arena_mark mark = al_arena_get_mark(arena);
    al_poly_vec polys[AL_MAX_HULLS];
    memset(polys, 0, sizeof polys);
    al_poly_vec all = {0}, shift = {0};
    al_build_stats shift_stats = {0};
    al_brush **brushes[AL_MAX_HULLS];
    int counts[AL_MAX_HULLS] = {0};
    int status = -1;

    uint64_t t0 = al_clock_ns();
    for (int h = 0; h < hulls; h++) {
        brushes[h] = pick_brushes(arena, in->expanded[h], in->expanded_count[h], mins, maxs,
                                  &counts[h]);
        if (!brushes[h]) goto done;
    }
    /* The point hull's list holds the clip brushes too: those solid to a point stay in it
     * (clip ones moved to the end), and all of them make the shift tree. */
    int with_clip = counts[0], keep = 0;
    for (int i = 0; i < with_clip; i++)
        if (al_brush_in_hull(brushes[0][i], &w->hulls[0])) {
            al_brush *b = brushes[0][i];
            brushes[0][i] = brushes[0][keep];
            brushes[0][keep++] = b;
        }
    counts[0] = keep;
    for (int h = 0; h < hulls; h++) {
        if (al_csg_boundary(arena, &w->planes, brushes[h], counts[h], mins, maxs, h, &polys[h]) < 0)
            goto done;
        out->boundary_polys[h] = polys[h].count;
    }
    if (with_clip > counts[0] &&
        al_csg_boundary(arena, &w->planes, brushes[0], with_clip, mins, maxs, 0, &shift) < 0)
        goto done;
    uint64_t t1 = al_clock_ns();

    for (int h = 0; h < hulls; h++)
        if (build_map_tree(w, mins, maxs, brushes[h], counts[h], &polys[h], h == 0, arena,
                           scratch, &out->map[h], &out->map_stats) < 0)
            goto done;
    if (with_clip > counts[0] && build_map_tree(w, mins, maxs, brushes[0], with_clip, &shift, true,
                                                arena, scratch, &out->shift, &shift_stats) < 0)
        goto done;
    uint64_t t2 = al_clock_ns();

    for (int h = 0; h < hulls; h++)
        for (int i = 0; i < polys[h].count; i++) {
            polys[h].items[i].candidate = true;
            if (!al_poly_vec_push(&all, &polys[h].items[i])) goto done;
        }
    al_build_params onion = {
        .mode = AL_BUILD_ONION,
        .planes = &w->planes,
        .mins = mins,
        .maxs = maxs,
        .map_trees = out->map,
        .hull_count = hulls,
    };
    if (al_build_tree(arena, scratch, &onion, all.items, all.count, &out->onion,
                      &out->onion_stats) < 0)
        goto done;
    al_tree_compute_masks(&out->onion, hulls);
    uint64_t t3 = al_clock_ns();
    out->ms_csg = (double) (t1 - t0) / 1e6;
    out->ms_map_trees = (double) (t2 - t1) / 1e6;
    out->ms_onion = (double) (t3 - t2) / 1e6;
    status = 0;

done:
    for (int h = 0; h < hulls; h++) al_poly_vec_free(&polys[h]);
    al_poly_vec_free(&all);
    al_poly_vec_free(&shift);
    al_arena_release(arena, mark);
    if (status < 0) al_subcell_trees_free(out);
    return status;
}

/* Assembly of one kind of tree. */
typedef struct assembly {
    al_tree *tree;
    const al_block *block;
    double size; /* of a sub-cell */
    int n;       /* sub-cells per axis */
    /* Per sub-cell: the root's code in the assembled tree, and its bits if it is a leaf. */
    int32_t roots[AL_MAX_SUBCELLS];
    bool leaf[AL_MAX_SUBCELLS];
    uint32_t bits[AL_MAX_SUBCELLS];
    int32_t used; /* joining nodes taken */
    bool write;   /* false: only count them */
} assembly;

typedef struct joined {
    int32_t code;
    bool leaf;
    uint32_t bits;
} joined;

/* The axial nodes over the sub-cell range [LO, HI), split like the model's top tree
 * (longest range in half), numbered in pre-order from 0 (a child after its parent, as
 * every tree is). Two leaf children with the same bits make one leaf: open space and
 * solid rock get no useless splits. */
static joined join(assembly *a, const int lo[3], const int hi[3])
{
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    if (hi[axis] - lo[axis] <= 1) {
        int s = (lo[2] * a->n + lo[1]) * a->n + lo[0];
        return (joined){a->roots[s], a->leaf[s], a->bits[s]};
    }
    int mid = (lo[axis] + hi[axis]) / 2;
    int32_t index = a->used++;
    int front_lo[3] = {lo[0], lo[1], lo[2]}, back_hi[3] = {hi[0], hi[1], hi[2]};
    front_lo[axis] = mid;
    back_hi[axis] = mid;
    joined front = join(a, front_lo, hi);
    joined back = join(a, lo, back_hi);
    if (front.leaf && back.leaf && front.bits == back.bits) {
        a->used--; /* the last node taken: nothing below it kept one */
        return front;
    }
    if (a->write) {
        al_node *node = &a->tree->nodes[index];
        memset(node, 0, sizeof *node);
        node->normal[axis] = 1.0;
        node->dist = a->block->cell_mins[axis] + mid * a->size;
        node->child[0] = front.code;
        node->child[1] = back.code;
    }
    return (joined){index, false, 0};
}

/* Where a sub-cell's tree lies in a tree: its root and its ranges of nodes and leaves. */
typedef struct span {
    int32_t root, node_first, node_count, leaf_first, leaf_count;
} span;

/* Copies a sub-cell's tree, at RANGE in T (as built, or within a previous block's
 * assembled tree), to the ends of TREE's arrays; fills OUT. */
static void append_subtree(al_tree *tree, const al_tree *t, const span *range, al_subtree *out)
{
    int32_t node_shift = tree->node_count - range->node_first;
    int32_t leaf_shift = tree->leaf_count - range->leaf_first;
    out->node_count = range->node_count;
    out->leaf_count = range->leaf_count;
    for (int32_t i = 0; i < range->node_count; i++) {
        al_node node = t->nodes[range->node_first + i];
        for (int c = 0; c < 2; c++)
            node.child[c] = node.child[c] >= 0 ? node.child[c] + node_shift
                                               : node.child[c] - leaf_shift;
        tree->nodes[tree->node_count++] = node;
    }
    memcpy(tree->leaves + tree->leaf_count, t->leaves + range->leaf_first,
           (size_t) range->leaf_count * sizeof *t->leaves);
    tree->leaf_count += range->leaf_count;
    out->root = range->root >= 0 ? range->root + node_shift : range->root - leaf_shift;
}

static al_subcell_stats subcell_stats(const al_subcell_trees *t)
{
    al_subcell_stats st = {
        .onion_polys = (int32_t) t->onion_stats.polys_in,
        .onion_splits = (int32_t) t->onion_stats.splits,
        .onion_degenerate = (int32_t) t->onion_stats.degenerate,
        .bevel_nodes = (int32_t) t->map_stats.bevel_nodes,
        .has_shift = t->shift.leaves != NULL,
    };
    for (int h = 0; h < AL_MAX_HULLS; h++) st.boundary_polys[h] = t->boundary_polys[h];
    return st;
}

/* A block's tree of KIND (as in al_block.sub). */
static al_tree *block_tree(al_block *block, int kind, int hull_count)
{
    if (kind == 0) return &block->onion;
    return kind == 1 + hull_count ? &block->shift : &block->map[kind - 1];
}

/* A built sub-cell's tree of KIND; its shift tree is its point hull's map tree when no
 * clip brush reaches it. */
static const al_tree *subcell_tree(const al_subcell_trees *t, int kind, int hull_count)
{
    if (kind == 0) return &t->onion;
    if (kind == 1 + hull_count) return t->shift.leaves ? &t->shift : &t->map[0];
    return &t->map[kind - 1];
}

int al_block_assemble(al_block *block, int hull_count, double size,
                      al_subcell_trees *const *fresh, const al_block *prev)
{
    int n = block->subcells, count = n * n * n;
    int kinds = 2 + hull_count, shift_kind = 1 + hull_count;
    block->sub = calloc((size_t) (kinds * count), sizeof *block->sub);
    block->sub_stats = calloc((size_t) count, sizeof *block->sub_stats);
    if (!block->sub || !block->sub_stats) goto nomem;
    /* Stats: sums over the sub-cells (the vis job's times are kept). */
    double ms_vis = block->stats.ms_vis_tree, ms_light = block->stats.ms_light_tree;
    bool any_shift = false;
    memset(&block->stats, 0, sizeof block->stats);
    block->stats.ms_vis_tree = ms_vis;
    block->stats.ms_light_tree = ms_light;
    for (int s = 0; s < count; s++) {
        if (fresh[s]) {
            block->sub_stats[s] = subcell_stats(fresh[s]);
            block->stats.ms_csg += fresh[s]->ms_csg;
            block->stats.ms_map_trees += fresh[s]->ms_map_trees;
            block->stats.ms_onion += fresh[s]->ms_onion;
        } else {
            block->sub_stats[s] = prev->sub_stats[s];
        }
        const al_subcell_stats *st = &block->sub_stats[s];
        for (int h = 0; h < hull_count; h++)
            block->stats.boundary_polys[h] += st->boundary_polys[h];
        block->stats.onion.polys_in += st->onion_polys;
        block->stats.onion.splits += st->onion_splits;
        block->stats.onion.degenerate += st->onion_degenerate;
        block->stats.map.bevel_nodes += st->bevel_nodes;
        any_shift = any_shift || st->has_shift;
    }
    for (int kind = 0; kind < kinds; kind++) {
        if (kind == shift_kind && !any_shift) break; /* map[0] serves */
        al_tree *tree = block_tree(block, kind, hull_count);
        /* The source of each sub-cell's tree and where it lies there. */
        const al_tree *src[AL_MAX_SUBCELLS];
        span range[AL_MAX_SUBCELLS];
        int64_t nodes = count - 1, leaves = 0;
        /* A sub-cell without clip brushes gives its point hull's map tree to the shift
         * tree, as does PREV when it has no shift tree at all. */
        int prev_kind = kind == shift_kind && prev && !prev->shift.leaves ? 1 : kind;
        /* In PREV's tree the sub-cells follow its joining nodes. */
        int32_t prev_node = 0, prev_leaf = 0;
        if (prev) {
            prev_node = block_tree((al_block *) prev, prev_kind, hull_count)->node_count;
            for (int s = 0; s < count; s++)
                prev_node -= prev->sub[prev_kind * count + s].node_count;
        }
        for (int s = 0; s < count; s++) {
            if (prev) {
                const al_subtree *p = &prev->sub[prev_kind * count + s];
                range[s] = (span){p->root, prev_node, p->node_count, prev_leaf, p->leaf_count};
                prev_node += p->node_count;
                prev_leaf += p->leaf_count;
            }
            if (fresh[s]) {
                src[s] = subcell_tree(fresh[s], kind, hull_count);
                range[s] = (span){src[s]->root, 0, src[s]->node_count, 0, src[s]->leaf_count};
            } else {
                src[s] = block_tree((al_block *) prev, prev_kind, hull_count);
            }
            nodes += range[s].node_count;
            leaves += range[s].leaf_count;
        }
        if (nodes >= INT32_MAX || leaves >= INT32_MAX) goto nomem;
        tree->nodes = malloc(((size_t) nodes + 1) * sizeof *tree->nodes);
        tree->leaves = malloc(((size_t) leaves + 1) * sizeof *tree->leaves);
        if (!tree->nodes || !tree->leaves) goto nomem;
        /* The joining nodes (counted first), then the sub-cells in order. */
        assembly a = {.tree = tree, .block = block, .size = size, .n = n};
        for (int s = 0; s < count; s++) {
            a.leaf[s] = range[s].root < 0;
            a.bits[s] = a.leaf[s] ? src[s]->leaves[al_tree_leaf_index(range[s].root)] : 0;
        }
        int lo[3] = {0, 0, 0}, hi[3] = {n, n, n};
        join(&a, lo, hi);
        tree->node_count = a.used;
        tree->leaf_count = 0;
        al_subtree *mine = &block->sub[kind * count];
        for (int s = 0; s < count; s++) {
            append_subtree(tree, src[s], &range[s], &mine[s]);
            a.roots[s] = mine[s].root;
        }
        a.used = 0;
        a.write = true;
        tree->root = join(&a, lo, hi).code;
        if (n > 1) al_tree_compute_masks(tree, kind == 0 ? hull_count : 1);
    }
    al_tree_depth(&block->onion, &block->onion_max_depth, &block->onion_mean_depth);
    return 0;

nomem:
    al_tree_free(&block->onion);
    for (int h = 0; h < AL_MAX_HULLS; h++) al_tree_free(&block->map[h]);
    al_tree_free(&block->shift);
    free(block->sub);
    free(block->sub_stats);
    block->sub = NULL;
    block->sub_stats = NULL;
    return -1;
}

int al_block_build_vis(const al_block_input *in, al_block *block, al_arena *arena,
                       al_build_scratch *scratch)
{
    al_arena_mark mark = al_arena_get_mark(arena);
    uint64_t t0 = al_clock_ns();
    int status =
        build_point_tree(in, block, in->vis, in->vis_count, true, &block->vis, arena, scratch);
    block->stats.ms_vis_tree = al_clock_ms_since(t0);
    uint64_t t1 = al_clock_ns();
    if (status == 0) status = build_light_tree(in, block, arena, scratch);
    block->stats.ms_light_tree = al_clock_ms_since(t1);
    al_arena_release(arena, mark);
    if (status < 0) {
        al_tree_free(&block->vis);
        al_tree_free(&block->light);
    }
    return status;
}
