/* The compiled world's layout, shared by the compile pipeline, the queries and the oracles
 * in verify/. Not part of the public API (al-world.h).
 *
 * A model (the world, or one solid brush entity) is a fixed grid of blocks under a small
 * top tree of axial grid splits. Each block owns its trees, built only from the geometry
 * overlapping it, so a later edit can rebuild single blocks. Block boxes are the grid cells,
 * except that the outermost blocks reach out to AL_MODEL_OUTER so every cell is bounded.
 */
#ifndef AL_WORLD_INTERNAL_H
#define AL_WORLD_INTERNAL_H

#include "al-world.h"
#include "al-world-trees.h"
#include "brush/brush.h"
#include "bsp/build.h"
#include "bsp/tree.h"
#include "core/arena.h"
#include "core/cell-index.h"
#include "geom/plane.h"

#include <math.h>

#define AL_MODEL_OUTER (2.0 * AL_COORD_MAX)

typedef struct al_block_stats {
    int boundary_polys[AL_MAX_HULLS];
    al_build_stats onion;
    al_build_stats map;
    double ms_csg, ms_map_trees, ms_onion, ms_vis_tree, ms_light_tree;
} al_block_stats;

/* A world block's collision trees (onion and map trees) are assembled from a fixed grid of
 * sub-cells, AL_SUBCELLS per axis: each sub-cell's trees are built only from the geometry
 * overlapping it, as a block's are, and a few axial nodes on the sub-cell boundaries join
 * them. An edit then rebuilds the sub-cells it touched and copies the others from the
 * block it replaces: a 64-unit brush touches a few of 64 sub-cells, not a whole block.
 * Brush models (doors) use one sub-cell per block: an edit of one rebuilds it all anyway.
 * The vis and light trees are whole per block (sub-cell splits would only add leaves and
 * portals to the PVS). */
#define AL_SUBCELLS 8
#define AL_MAX_SUBCELLS (AL_SUBCELLS * AL_SUBCELLS * AL_SUBCELLS)
#define AL_MIN_SUBCELL_SIZE 128.0

/* A set of a block's sub-cells. */
typedef struct al_subcell_set {
    uint64_t bits[(AL_MAX_SUBCELLS + 63) / 64];
} al_subcell_set;

static inline void al_subcell_set_add(al_subcell_set *set, int s)
{
    set->bits[s >> 6] |= UINT64_C(1) << (s & 63);
}

static inline bool al_subcell_set_has(const al_subcell_set *set, int s)
{
    return set->bits[s >> 6] >> (s & 63) & 1;
}

static inline int al_subcell_set_count(const al_subcell_set *set)
{
    int n = 0;
    for (size_t i = 0; i < sizeof set->bits / sizeof set->bits[0]; i++)
        n += __builtin_popcountll(set->bits[i]);
    return n;
}

/* One sub-cell's tree in the block's assembled tree of that kind, where the sub-cells'
 * trees follow the joining nodes in order (so where each starts is a running sum). */
typedef struct al_subtree {
    int32_t root; /* a node index, or -1 - leaf, in the assembled tree */
    int32_t node_count, leaf_count;
} al_subtree;

/* What the world's statistics sum of one sub-cell's build. */
typedef struct al_subcell_stats {
    int32_t boundary_polys[AL_MAX_HULLS];
    int32_t onion_polys, onion_splits, onion_degenerate, bevel_nodes;
    int32_t has_shift; /* 1: clip brushes reach it, so it has a shift tree of its own */
} al_subcell_stats;

/* The trees of one sub-cell, as built, before they join their block's. */
typedef struct al_subcell_trees {
    al_tree onion;
    al_tree map[AL_MAX_HULLS];
    al_tree shift; /* the shift tree (al_block.shift), built only where clip brushes reach:
                      elsewhere map[0] is that tree (leaves NULL) */
    int boundary_polys[AL_MAX_HULLS];
    al_build_stats onion_stats, map_stats;
    double ms_csg, ms_map_trees, ms_onion;
} al_subcell_trees;

/* Open cells per axis of a block's grid cell (a power of two): a row of them along x is
 * an al_open_row. */
#define AL_OPEN_SHIFT 5
#define AL_OPEN_CELLS (1 << AL_OPEN_SHIFT)
typedef uint32_t al_open_row;
#define AL_OPEN_ALL ((al_open_row) -1)
_Static_assert(AL_OPEN_CELLS == 8 * sizeof(al_open_row) && AL_OPEN_SHIFT >= 3,
               "a row of open cells is one word, and a block's eighths are whole cells");

/* Where a trace whose box lies in one eighth, quarter or half of a block (on every axis)
 * starts its descent: 8³ + 4³ + 2³ nodes per block. */
#define AL_OPEN_STARTS (512 + 64 + 8)
#define AL_NO_START    INT32_MIN /* a start that is the block's root */

/* The row bits of cells X0 to X1. */
static inline al_open_row al_open_span(unsigned x0, unsigned x1)
{
    return (al_open_row) (AL_OPEN_ALL >> (AL_OPEN_CELLS - 1 - x1)) &
           (al_open_row) (AL_OPEN_ALL << x0);
}

typedef struct al_block {
    double mins[3], maxs[3]; /* the box its trees partition */
    double cell_mins[3];     /* the corner of its grid cell (mins, unless outermost) */
    al_tree onion;
    al_tree map[AL_MAX_HULLS]; /* map[0] carries bevel chains under its solid leaves */
    /* The point hull's map tree with the clip brushes (solid to every box but a point),
     * with bevel chains, for traces of boxes of any size (trace/shift.c); built only in a
     * block that clip brushes reach (leaves NULL elsewhere: map[0] is that tree there).
     * Sub-cells without clip brushes take map[0]'s tree into it. */
    al_tree shift;
    int subcells; /* per axis: AL_SUBCELLS, or 1 */
    /* Owned with the trees; NULL in a loaded block (which then cannot lend sub-cells).
     * sub[kind * subcells³ + s]: kind 0 the onion tree, 1 + h the map tree of hull h,
     * 1 + hull count the shift tree (zero where the block has none). */
    al_subtree *sub;
    al_subcell_stats *sub_stats; /* per sub-cell */
    int onion_max_depth; /* of the onion tree, from its root: kept for the world's stats */
    double onion_mean_depth;
    al_tree vis; /* world model only: the point hull of the brushes that block sight
                    (structural, not clip), for portals and visibility (vis/) */
    al_tree light; /* world model only: the point hull of the brushes that block light
                      (detail too, not clip), for radiosity's rays; empty when it would
                      equal the vis tree (a block without detail): see al_block_light */
    bool light_is_vis;
    /* Open cells (trace/open.c), owned with the collision trees: per hull h, the rows
     * open[(h * AL_OPEN_CELLS + z) * AL_OPEN_CELLS + y], bit x set when cell (x, y, z) of
     * the grid of AL_OPEN_CELLS³ over the block's grid cell (from cell_mins) is open for
     * h. NULL: none known (a brush model's block, or a block without a tree). */
    al_open_row *open;
    int32_t *open_starts; /* AL_OPEN_STARTS, in OPEN's allocation: see al_model.open_starts */
    al_block_stats stats;
    int *refs; /* owners of the collision trees (worlds share unchanged blocks,
                  al_world_update); malloc'd by whoever builds or loads the block, NULL
                  until then */
    int *vis_refs; /* the same for the vis and light trees, which a world may get after
                      its collision trees (al_world_build_vis builds those missing) */
} al_block;

typedef struct al_model {
    int entity;             /* 0 for the world */
    double mins[3], maxs[3]; /* bounds of the expanded brushes, all hulls */
    double reach_mins[3], reach_maxs[3]; /* the bounds grown by a unit: queries outside
                                            cannot touch the model */
    int grid_origin[3];     /* block coordinates of the first block */
    int grid_dims[3];
    al_block *blocks; /* owned; grid_dims[0] * grid_dims[1] * grid_dims[2] */
    int block_count;
    al_tree top; /* owned; leaves are blocks: child -1 - b is blocks[b] */
    int first_brush, brush_count; /* into al_world.collision */
    double inv_block_size;
    /* Owned; per block, its open cells (blocks[b].open), kept together for the trace's
     * lookup; NULL where no block has any (al_world_index_models). */
    const al_open_row **open_rows;
    int32_t *open_starts; /* AL_OPEN_STARTS per block */
    double open_limit[3]; /* grid_dims * AL_OPEN_CELLS: cells of the grid per axis */
} al_model;

/* Brush models (doors, platforms) near a trace, so that a short trace tests only the few
 * it may touch. A trace inside one block of the world (most are) takes the models whose
 * reach for its hull overlaps that block. Others take them from a grid of 256-unit cells,
 * one per hull, which lists in a cell every model whose reach for that hull, grown by
 * AL_MODEL_NEAR, overlaps the cell: a move whose box spans at most AL_MODEL_NEAR on each
 * axis can only touch models listed in the cell of its start, one lookup however many
 * cells the box covers. */
#define AL_MODEL_CELL 256.0
#define AL_MODEL_NEAR 128.0

/* Four models of such a list with their reach for the hull in floats, rounded outward by
 * more than a double's rounding to float can move a query's box: a trace tests all four
 * with a few vector compares and branches only when one may touch it (most traces touch
 * none). Unused lanes hold empty boxes. */
typedef float al_float4 __attribute__((vector_size(16)));
typedef int32_t al_int4 __attribute__((vector_size(16)));
typedef struct al_reach_chunk {
    al_float4 lo[3], hi[3];
    int32_t model[4];
} al_reach_chunk;

/* A list of models as chunks [first, first + count); an empty list has count 0. */
typedef struct al_chunk_span {
    int32_t first, count;
} al_chunk_span;

typedef struct al_model_index {
    al_cell_index near[AL_MAX_HULLS]; /* per hull; items are model numbers (the world, model
                                         0, is not listed) */
    al_chunk_span *near_span[AL_MAX_HULLS]; /* owned; per hull, a cell's items as chunks */
    al_chunk_span *block_span; /* owned; at [block * hull_count + hull], for every block of
                                  the world model, the models whose reach for the hull
                                  overlaps it */
    al_reach_chunk *chunks;    /* owned */
    int chunk_count, chunk_capacity;
    /* Owned; per model and hull, at [model * hull_count + hull]: the model's reach for that
     * hull alone, its brushes grown by the hull's box and by a unit, packed for the loop.
     * Queries of the hull outside it cannot touch the model. The model's reach box (every
     * hull's) holds them all, and can be much larger: a map's largest hull may grow a door
     * by twice what a walking agent's does. */
    double (*reach)[2][3];
} al_model_index;

/* Brushes' sides and windings, and expanded brushes, live in arenas that the worlds using
 * them share. An update takes its predecessor's expanded brushes for the brushes it copied
 * (by pointer: an expanded brush depends only on its brush and the hull, and a world's
 * plane table extends its predecessor's), copies only the record of each brush it copies
 * (its id, index and line change with the input; its sides do not), and holds a reference
 * to every store of its predecessor; what it builds or expands goes to a new store. A
 * chain of edits would hold more and more stores, most of them with few brushes still in
 * use, so past AL_MAX_EXPANDED_STORES an update copies what it takes into its own store
 * instead. A world from al_world_load has its brushes in its own arena and no stores. */
typedef struct al_expanded_store {
    int refs;
    al_arena *arena;
} al_expanded_store;

#define AL_MAX_EXPANDED_STORES 32

/* Drops a reference to STORE, destroying it with the last. NULL is a no-op. */
void al_expanded_store_release(al_expanded_store *store);

struct al_world {
    al_hull_desc hulls[AL_MAX_HULLS];
    int hull_count;
    double block_size;
    al_compile_options split; /* its split settings (al_compile_options), for the vis trees
                                 al_world_build_vis builds later; zero in a loaded world */
    al_plane_table planes;
    al_arena *arena;        /* owned; brushes and their windings */
    al_brush **collision;   /* owned array; brushes solid for agents, grouped by model */
    uint64_t *collision_hash; /* owned; al_brush_desc_key of each collision brush; NULL in a
                                 world from al_world_load (al_world_update then compiles
                                 everything) */
    int collision_count;
    al_brush **liquids; /* owned array; the world's liquid brushes, in input order */
    int liquid_count;
    al_cell_index liquid_index; /* the liquids by cell (al_world_index_liquids) */
    al_brush **origins;         /* owned array; the brush entities' origin brushes, one each */
    int origin_count;
    al_brush **hints; /* owned array; the world's hint brushes, in input order: their hint
                         faces split the vis trees (al_block_build_vis) */
    int hint_count;
    /* The worldspawn key "_allium_opaque_liquids" is 1: liquid surfaces block sight (Quake's
     * qbsp -notranswater). The vis trees then split on the liquids' boundary too, and the
     * PVS does not pass a portal between a liquid leaf and a leaf without (vis/flood.c). */
    bool opaque_liquids;
    /* Owned array, at [hull * collision_count + i]: collision brush i expanded by the hull,
     * or NULL where it never was. The brushes live in STORES. NULL in a loaded world. */
    al_brush **expanded;
    al_expanded_store **stores; /* owned array of references */
    int store_count;
    al_model *models; /* owned; models[0] is the world */
    int model_count;
    al_model_index model_index;
    int entity_count;
    al_diag_list diags;
    al_world_stats stats;
    struct al_vis *vis; /* owned; portals, leak and PVS of the world model (vis/vis.h) */
    /* PVS rows read with a stored world (serialize.c): run-length coded, as saved, for
     * the first al_world_build_vis, which uses them when its vis leaves and portals are
     * the ones they were made for, and frees them. NULL: none. */
    struct al_stored_pvs *stored_pvs;
};

/* How far W's hulls grow a brush, every hull's at once: an agent at P overlaps a brush
 * when P is in the brush minus its box, so a model's bounds are its brushes' from LO to HI
 * beyond their own. */
static inline void al_world_hull_growth(const al_world *w, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = hi[k] = 0;
        for (int h = 0; h < w->hull_count; h++) {
            if (-w->hulls[h].maxs[k] < lo[k]) lo[k] = -w->hulls[h].maxs[k];
            if (-w->hulls[h].mins[k] > hi[k]) hi[k] = -w->hulls[h].mins[k];
        }
    }
}

/* Model M's reach for HULL (see al_model_index): [0] the mins, [1] the maxs. */
static inline const double (*al_model_reach(const al_world *w, int m, int hull))[3]
{
    return w->model_index.reach[(size_t) m * (size_t) w->hull_count + (size_t) hull];
}

/* Block index of grid coordinates within MODEL. */
static inline int al_model_block_index(const al_model *m, int x, int y, int z)
{
    return (z * m->grid_dims[1] + y) * m->grid_dims[0] + x;
}

/* Grid coordinate of X on AXIS, clamped to the grid (outer blocks reach to infinity). */
static inline int al_model_grid_coord(const al_model *m, int axis, double x)
{
    return al_floor_clamp(x * m->inv_block_size - m->grid_origin[axis], 0,
                          m->grid_dims[axis] - 1);
}

/* The block containing every point of the box [MINS, MAXS], or -1 if it spans several.
 * Block faces belong to both sides, so a box touching a grid plane spans two blocks. A
 * model of one block (most brush models) holds every box in it: the grid clamps. */
static inline int al_model_box_block(const al_model *m, const double mins[3],
                                     const double maxs[3])
{
    if (m->block_count == 1) return 0;
    int c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = al_model_grid_coord(m, k, mins[k]);
        if (al_model_grid_coord(m, k, maxs[k]) != c[k]) return -1;
    }
    return al_model_block_index(m, c[0], c[1], c[2]);
}

/* The tree that traces of boxes of any size read in a block: the shift tree where clip
 * brushes reach the block, else the point hull's map tree. */
static inline const al_tree *al_block_shift(const al_block *b)
{
    return b->shift.leaves ? &b->shift : &b->map[0];
}

/* The light tree of a world block. */
static inline const al_tree *al_block_light(const al_block *b)
{
    return b->light_is_vis ? &b->vis : &b->light;
}

/* Builds the trees of one block from the expanded brushes per hull that overlap it. */
typedef struct al_block_input {
    const al_world *world;
    al_brush **expanded[AL_MAX_HULLS]; /* per hull */
    int expanded_count[AL_MAX_HULLS];
    bool build_vis;   /* a block of the world model: build its vis tree */
    al_brush **vis;   /* the point hull's brushes that block sight (al_brush_blocks_sight) */
    int vis_count;
    al_brush **light; /* those that block light (al_brush_blocks_light), a superset */
    int light_count;
} al_block_input;

/* Sub-cell S (x fastest) of BLOCK: its box. */
void al_block_subcell_box(const al_block *block, double size, int s, double mins[3],
                          double maxs[3]);

/* Builds the collision trees of the sub-cell [MINS, MAXS] of a block from IN's expanded
 * brushes (those overlapping it are picked out) into OUT, which must be zeroed. Returns 0,
 * or -1 if memory runs out (OUT is then freed). */
int al_subcell_build(const al_block_input *in, const double mins[3], const double maxs[3],
                     al_subcell_trees *out, al_arena *arena, al_build_scratch *scratch);

void al_subcell_trees_free(al_subcell_trees *t);

/* Joins the sub-cells' trees (of SIZE units inside the block) into BLOCK's onion and map
 * trees: FRESH[s] where not NULL
 * (its trees are copied), else sub-cell s of PREV, which must have one. Fills BLOCK's sub
 * tables and stats (the times of the fresh sub-cells). Returns 0, or -1 if memory runs
 * out (BLOCK's collision trees are then freed). */
int al_block_assemble(al_block *block, int hull_count, double size,
                      al_subcell_trees *const *fresh, const al_block *prev);

/* Builds BLOCK's vis and light trees (a world block). Returns 0 or -1 (out of memory). */
int al_block_build_vis(const al_block_input *in, al_block *block, al_arena *arena,
                       al_build_scratch *scratch);

/* Fills OUT->contact and OUT->end from OUT->fraction, ->hit and ->normal (shared by both
 * trace kinds). */
void al_trace_finish(const double start[3], const double end[3], al_trace *out);

/* Fills the index of brush models by cell from the models' reach boxes. Models spread over
 * an absurd area get one cell: every trace then tests every model. */
bool al_world_index_models(al_world *w);

/* Frees what the index holds and leaves it empty. */
void al_model_index_free(al_model_index *ix);

/* Fills the world model's open_rows and open_starts from its blocks (called by
 * al_world_index_models). False if memory runs out. */
bool al_model_index_open(al_model *m);

/* Gives BLOCK's trees an owner count of one (after they were built or loaded): those it
 * has that have none yet. False if memory runs out. */
bool al_block_own(al_block *block);

/* The same for its collision trees alone, and for its vis and light trees alone. */
bool al_block_own_collision(al_block *block);
bool al_block_own_vis(al_block *block);

/* Whether BLOCK has its vis and light trees (a world block compiled with no_vis gets them
 * from al_world_build_vis). */
static inline bool al_block_has_vis(const al_block *block)
{
    return block->vis.leaves != NULL;
}

/* Fills BLOCK's open cells and start nodes from its onion tree (HULL_COUNT hulls), over the
 * grid cell from CELL_MINS with sides of BLOCK_SIZE; BLOCK->open is NULL before. Given
 * PREV, the block it replaces, whose sub-cells outside DIRTY it took, only the cells near
 * the DIRTY sub-cells are found again. Returns 0, or -1 if memory runs out (BLOCK->open is
 * then NULL). */
int al_block_open_cells(al_block *block, int hull_count, const double cell_mins[3],
                        double block_size, const al_block *prev, const al_subcell_set *dirty);

/* Fills the open cells of every block of M, a model loaded without them (which sets each
 * block's cell_mins from the grid), on all CPUs. False if memory runs out. */
bool al_model_open_cells(al_model *m, int hull_count, double block_size);

/* Drops BLOCK's claim on its trees, freeing them if it was their last owner. */
void al_block_free(al_block *block);

/* A content key of brush INDEX of IN: everything that decides its solid and its role (face
 * points, materials and their flags, the entity's role), but not its position in the input
 * or its entity's index. Equal keys: the same brush. */
uint64_t al_brush_desc_key(const al_input *in, int index);

/* Indexes W's liquid brushes for al_world_point_contents. False if memory runs out. */
bool al_world_index_liquids(al_world *w);

/* The liquid a liquid brush's contents (al_brush's material_flags) make. */
al_contents al_liquid_contents(uint32_t material_flags);

#endif
