/* The polygon BSP builder behind both kinds of tree.
 *
 * It follows the seed's build_subtree (onion-bsp-collision.txt, listings 1-2): choose a
 * splitter among the candidate polygons, send coplanar polygons to the side they face (no
 * longer candidates), split straddlers, recurse; a node with no candidates left is a leaf.
 * Split choice is the thesis's CHOOSE-DIVIDING-POLYGON (bsp-trees-in-game-engines.txt):
 * fewest polygons split, subject to a front/back balance ratio that starts at 0.3 (the
 * thesis used 0.8; see split.c) and halves until some plane qualifies; ties go to axial
 * planes, then to the better balance.
 *
 * Two modes:
 *  - map tree: the polygons of one hull, the boundary of the union of its brushes. A leaf's
 *    solidity is that of a point of the leaf clear of every brush's surface, tested against
 *    the brushes themselves (csg.h). It is not read from the polygons that reach the leaf:
 *    where nearly coincident planes meet, the boundary has slivers thinner than
 *    AL_ON_EPSILON (a face peeking a hair's breadth past a neighbour's slightly tilted
 *    face), and such a sliver, lying in the on-plane band of a split, rides into a leaf it
 *    does not bound; counted as the leaf's face, it would empty a whole solid leaf. The
 *    polygons still choose the splits. Optionally each solid leaf gets a chain of bevel
 *    planes (for dynamic plane shifting, see trace/shift.c).
 *  - onion: the polygons of every hull. A leaf's solidity per hull is that of an interior
 *    point of the leaf (the cell's vertex mean) in each hull's map tree (the seed's
 *    determine_leaf_solidity).
 */
#ifndef AL_BUILD_H
#define AL_BUILD_H

#include "brush/brush.h"
#include "cell.h"
#include "geom/plane.h"
#include "poly.h"
#include "tree.h"

#include <stdint.h>

typedef enum al_build_mode {
    AL_BUILD_MAP_TREE,
    AL_BUILD_ONION,
} al_build_mode;

typedef struct al_build_stats {
    int64_t polys_in;     /* polygons given to the build */
    int64_t splits;       /* polygons cut by a splitter */
    int64_t degenerate;   /* splits not made: a side of the cell would have had no volume */
    int64_t bevel_nodes;  /* nodes added by bevel chains */
    int64_t candidates_evaluated;
} al_build_stats;

/* Per-thread scratch reused across builds (candidate stamps). */
typedef struct al_build_scratch {
    uint32_t *stamp; /* per canonical plane */
    int stamp_size;
    uint32_t stamp_value;
    int *candidates;
    int candidate_capacity;
    struct al_split_eval *evals;
    int max_candidates; /* 0: AL_SPLIT_MAX_CANDIDATES */
    double min_relation; /* 0: the default, see split.c */
    /* Sorted polygon bounds for counting axial candidates (split.c). */
    double *sorted; /* 6 arrays of sorted_capacity: lo and hi per axis */
    struct al_split_flat *flat; /* 3 arrays of sorted_capacity */
    int sorted_capacity;
    int *hints; /* the candidate hint faces of a node (split.c) */
    int hint_capacity;
} al_build_scratch;

void al_build_scratch_free(al_build_scratch *s);

typedef struct al_build_params {
    al_build_mode mode;
    const al_plane_table *planes;
    const double *mins, *maxs; /* the block: root cell */
    /* map tree mode */
    al_brush *const *brushes; /* borrowed: the brushes the polygons bound */
    int brush_count;
    bool bevel_chains; /* add bevel chains under solid leaves */
    /* onion mode */
    const al_tree *map_trees; /* one per hull */
    int hull_count;
} al_build_params;

/* Builds a tree from POLYS (which the build may reorder and modify) into OUT (which must be
 * empty). Returns 0, or -1 if memory runs out (OUT is then freed). */
int al_build_tree(al_arena *arena, al_build_scratch *scratch, const al_build_params *params,
                  al_bsp_poly *polys, int count, al_tree *out, al_build_stats *stats);

#endif
