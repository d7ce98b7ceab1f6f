/* The compiled world: onion BSP, per-hull map trees, and the queries on them.
 *
 * Entry points:
 *   al_world_compile      input -> world (brush validation, expansion, CSG, trees)
 *   al_world_point_solid  is a point solid for a hull (onion tree)
 *   al_world_trace        swept box of a compiled hull: "find first transition"
 *   al_world_trace_box    swept box of any size: dynamic plane shifting
 *
 * A world is immutable once compiled, so any number of threads may query it at once.
 * Traces go through every solid model (the world and solid brush entities); the nearest hit
 * wins.
 */
#ifndef AL_WORLD_H
#define AL_WORLD_H

#include "al-input.h"
#include "al-vis.h"
#include "al-diag.h"
#include "al-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct al_world al_world;

typedef struct al_compile_options {
    int threads;          /* worker threads for block builds; 0: one per CPU */
    int split_candidates; /* most non-axial candidate planes evaluated per BSP node (an evenly
                             spaced sample beyond that); 0: AL_SPLIT_MAX_CANDIDATES */
    double split_balance; /* the thesis's starting balance ratio (MINIMUMRELATION), in
                             (0, 1]; 0: 0.3 (see bsp/split.c) */
    al_pvs_level pvs;     /* how far to take the PVS; 0: AL_PVS_TIGHT */
    bool no_vis;          /* build no visibility at all (al_world_build_vis can add it) */
} al_compile_options;

/* Compiles INPUT. Invalid brushes are left out with a diagnostic (al_world_diagnostics);
 * that is not a failure. Returns AL_OK and a world in *OUT, or AL_ERR_NOMEM, or
 * AL_ERR_INVALID_ARGUMENT (bad hull list or block size, described in the diagnostics that
 * DIAGS receives when not NULL). OPTIONS may be NULL. */
al_status al_world_compile(const al_input *input, const al_compile_options *options,
                           al_world **out, al_diag_list *diags);

/* As al_world_compile, for an INPUT that is an edited version of the one PREV was compiled
 * from: brushes whose content is unchanged are copied from PREV rather than built, and the
 * blocks whose brush lists did not change (those no removed, added or changed brush, grown
 * by every hull, overlaps) share PREV's trees rather than being built again. Brush models
 * whose brushes are all unchanged keep all their blocks. The result answers every query as
 * a full compile of INPUT does; it is a world of its own (PREV may be destroyed first).
 * A PREV with other hulls or block size, or from al_world_load (unless given its input
 * with al_world_adopt_input), or a world model whose
 * block grid grew or shrank, gets (that part) compiled in full. PREV is only read: any
 * number of updates may start from one world at once. */
al_status al_world_update(const al_world *prev, const al_input *input,
                          const al_compile_options *options, al_world **out,
                          al_diag_list *diags);

/* Tells WORLD, which came from al_world_load, the INPUT it was compiled from (its cache
 * key says so), so that al_world_update can start from it like from a compiled world.
 * AL_ERR_INVALID_ARGUMENT (and WORLD unchanged) if the world's brushes do not fit INPUT;
 * AL_ERR_NOMEM. */
al_status al_world_adopt_input(al_world *world, const al_input *input);

/* Gives WORLD a copy of the PVS rows FROM (a world from al_world_load) came with, for a
 * WORLD updated from FROM with the very input FROM was adopted with: WORLD's next
 * visibility build then uses them as FROM's would have (if they fit its vis leaves and
 * portals). Nothing happens if FROM has none. AL_ERR_NOMEM. */
al_status al_world_share_stored_pvs(al_world *world, const al_world *from);

/* Builds the visibility of WORLD (portals, leak, PVS up to LEVEL; al-vis.h) from INPUT,
 * which must be the input WORLD was compiled from, replacing any it has. al_world_compile
 * does this itself; a world from al_world_load has none until this is called. THREADS 0:
 * one per CPU. AL_ERR_NOMEM on failure (the world then has no visibility). */
al_status al_world_build_vis(al_world *world, const al_input *input, al_pvs_level level,
                             int threads);

/* al_world_build_vis with more say. */
typedef struct al_vis_options {
    al_pvs_level level;
    int threads;            /* 0: one per CPU */
    const int *cancel;      /* when *CANCEL turns nonzero (read atomically; the portal flow
                               checks at every step) the build stops with AL_ERR_CANCELLED
                               and the world gets no visibility */
    int64_t *progress;      /* when not NULL, the tight pass's progress: PROGRESS[0] is set to
                               its units of work (directed portals) as it starts and
                               PROGRESS[1] counts those done (atomically; read them with
                               atomic loads) */
    bool no_pvs_if_leaking; /* a leaking map gets no PVS (every vis leaf sees every other,
                               which is conservative): with the void's leaves in it even
                               the coarse pass takes seconds, for an answer of no use */
    const al_world *previous; /* a world with visibility that this one shares blocks with
                                 (the one it was updated from), or NULL: the portals of
                                 every block whose vis tree, and its lower neighbours', is
                                 the previous world's are copied from it, not built again
                                 (only read; it must stay alive during the call) */
} al_vis_options;

al_status al_world_build_vis_with(al_world *w, const al_input *input, const al_vis_options *o);

/* Builds the vis and light trees of the world blocks that lack them (a world compiled with
 * no_vis, or updated from one), as al_world_build_vis does first: a caller that builds the
 * portals later may build these trees earlier. THREADS 0: one per CPU. Returns AL_OK or
 * AL_ERR_NOMEM. */
al_status al_world_build_vis_trees(al_world *w, int threads);

/* Frees the world. NULL is a no-op. */
void al_world_destroy(al_world *world);

/* The world as bytes (malloc'd into *DATA), for a cache of compiled results. The bytes are
 * this build's own: a cache key must include AL_WORLD_FORMAT. AL_ERR_NOMEM on failure. */
al_status al_world_save(const al_world *world, void **data, size_t *size);

/* A world from al_world_save's bytes. Every count and index is checked: damaged or foreign
 * bytes give AL_ERR_CORRUPT and a diagnostic, never a crash. The world's statistics and
 * diagnostics are those of the compile that made it. */
al_status al_world_load(const void *data, size_t size, al_world **out, al_diag_list *diags);

/* The layout version al_world_save writes into its header (al_world_load refuses others):
 * for tools that make such bytes, as the world-loading fuzz target does. */
#define AL_WORLD_BYTES_VERSION 8u

/* Names the compiler's output format, for cache keys: a new layout or a change to what the
 * compiler builds must change it. */
#define AL_WORLD_FORMAT "allium-world-4"

/* A content key of everything the compiler reads from IN, of SALT (the compile options that
 * change the result, say) and of AL_WORLD_FORMAT: 32 hexadecimal digits and a NUL in KEY.
 * Equal keys mean equal compiles; any change to the input changes the key. */
void al_input_key(const al_input *in, const char *salt, char key[33]);

/* Diagnostics of the compile (invalid brushes, ignored faces, ...). */
const al_diag_list *al_world_diagnostics(const al_world *world);

int al_world_hull_count(const al_world *world);
const al_hull_desc *al_world_hull(const al_world *world, int hull);

/* Index of the hull named NAME, or -1. */
int al_world_find_hull(const al_world *world, const char *name);

typedef struct al_stage_stats {
    double ms; /* wall-clock milliseconds */
} al_stage_stats;

typedef struct al_world_stats {
    int input_brushes;
    int valid_brushes;
    int invalid_brushes;
    int collision_brushes; /* solid for agents (world and solid models) */
    int entities;
    int models; /* solid models including the world */
    int planes;
    int blocks;
    int blocks_built;   /* the rest were shared with the previous world (al_world_update) */
    int subcells_built; /* collision sub-cells of the blocks built; the rest were copied */
    int brushes_copied; /* from the previous world; the rest were built */
    /* onion trees, all models */
    int64_t onion_nodes, onion_leaves;
    int onion_max_depth;
    double onion_mean_depth; /* over the world model's leaves */
    int64_t onion_polys;     /* boundary polygons fed to the onion trees */
    int64_t onion_splits;    /* of which were cut by a splitter */
    int64_t onion_degenerate; /* onion splits not made: a side would have had no volume */
    int64_t map_nodes[AL_MAX_HULLS], map_leaves[AL_MAX_HULLS];
    int64_t boundary_polys[AL_MAX_HULLS]; /* CSG output per hull */
    int64_t bevel_nodes;
    int64_t expanded_planes; /* planes of all expanded brushes, bevels included */
    double ms_brushes, ms_expand, ms_blocks, ms_total;
    double ms_csg_cpu, ms_map_trees_cpu, ms_onion_cpu; /* summed over worker threads */
} al_world_stats;

void al_world_get_stats(const al_world *world, al_world_stats *stats);

/* True if P is inside solid for HULL (an agent of that hull with its origin at P would
 * overlap a solid brush). Points within AL_SURFACE_EPSILON of a surface may go either way. */
bool al_world_point_solid(const al_world *world, int hull, const double p[3]);

/* What fills a point (Quake's point contents). */
typedef enum al_contents {
    AL_CONTENTS_EMPTY,
    AL_CONTENTS_SOLID,
    AL_CONTENTS_WATER,
    AL_CONTENTS_SLIME,
    AL_CONTENTS_LAVA,
} al_contents;

/* What fills P for HULL: solid where al_world_point_solid says so, else the liquid of the
 * world's liquid brush around P (liquids are solid to no hull: an agent whose origin is in
 * one is in the liquid), else empty. The liquid brushes are those of the world and its
 * detail whose first face is a liquid (al_brush_contents). */
al_contents al_world_point_contents(const al_world *world, int hull, const double p[3]);

/* The liquid around P (AL_CONTENTS_WATER, _SLIME or _LAVA), or AL_CONTENTS_EMPTY: the
 * liquid part of al_world_point_contents, whatever the solid there. */
al_contents al_world_point_liquid(const al_world *world, const double p[3]);

/* The centre of ENTITY's origin brush into ORIGIN (what Quake's rotating entities turn
 * about): true if the entity is a brush entity with one. */
bool al_world_entity_origin(const al_world *world, int entity, double origin[3]);

/* The number of the world's liquid brushes. */
int al_world_liquid_count(const al_world *world);

/* As al_world_point_solid, answered by the hull's own map trees instead of the onion tree
 * (for the oracle that checks one against the other). */
bool al_world_point_solid_map_tree(const al_world *world, int hull, const double p[3]);

typedef struct al_trace {
    double fraction;   /* of the move, to the first contact; 1 if none */
    double end[3];     /* where the box can rest: just before the contact, in empty space */
    double contact[3]; /* position of the box's origin at contact (on the surface) */
    double normal[3];  /* of the surface hit, facing the mover; zero if nothing was hit */
    bool hit;
    bool start_solid; /* the move starts inside solid */
    bool all_solid;   /* the move never leaves solid */
    bool end_empty;   /* al_world_trace met nothing and vouches that al_world_point_solid
                         answers false at END (END lies on no plane of the trees within the
                         trace's epsilon, where the two may disagree). False says nothing:
                         ask al_world_point_solid. Always false from al_world_trace_box. */
    int model;        /* model hit: 0 world, k > 0 the k-th brush model; -1 none */
    int entity;       /* entity of that model, -1 none */
} al_trace;

/* The skin kept between a resting box and a surface, measured along the surface normal
 * (Quake's DIST_EPSILON). al_trace.end is this far in front of the surface hit. */
#define AL_TRACE_SKIN (1.0 / 32.0)

/* Sweeps a box of compiled HULL from START to END: the seed's "find first transition"
 * through the onion tree of every solid model. */
void al_world_trace(const al_world *world, int hull, const double start[3], const double end[3],
                    al_trace *out);

/* Sweeps the box [MINS, MAXS] (any size) from START to END by dynamic plane shifting
 * (Melax 2000) through the point hull's bevelled tree. */
void al_world_trace_box(const al_world *world, const double mins[3], const double maxs[3],
                        const double start[3], const double end[3], al_trace *out);

/* Model count (world included) and the entity of each model. */
int al_world_model_count(const al_world *world);
int al_world_model_entity(const al_world *world, int model);

/* The brushes of MODEL solid to HULL (its collision brushes; clip ones only for a hull with
 * a box), as input brush indices in input order, into OUT (room for the model's brush
 * count: at most the input's); their count, 0 for a model or hull that does not exist. */
int al_world_model_brushes(const al_world *world, int model, int hull, int *out);

/* Bounds of the world model's expanded geometry (all hulls). */
void al_world_bounds(const al_world *world, double mins[3], double maxs[3]);

/* The split planes of the onion tree of the world-model block holding P, each as the
 * polygon of its node's cell: the node's plane cut to the block's box (within the model's
 * reach) and to the sides of the node's ancestors. For the editor's BSP-splits overlay. */
typedef struct al_block_splits {
    int block;               /* -1: P is outside the world model (no polygons) */
    double mins[3], maxs[3]; /* the block's box, cut to the model's reach */
    int count;               /* polygons */
    int *first;              /* count + 1 offsets into points */
    double (*points)[3];
    int *depth;              /* of each polygon's node, the root 0 */
} al_block_splits;

al_status al_world_block_splits(const al_world *world, const double p[3], al_block_splits *out);
void al_block_splits_free(al_block_splits *splits);

#endif
