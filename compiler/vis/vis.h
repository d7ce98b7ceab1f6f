/* Visibility: portals, the outside flood, faces in leaves, and the PVS (internal layout).
 *
 * Leaves. Every block of the world model has a vis tree (bsp/block.c): the point hull of
 * the brushes that block sight. Its leaves, numbered globally block by block
 * (leaf_base[block] + local leaf), are the cells of visibility.
 *
 * Portals (portals.c), as the thesis places them: for every node, a large polygon on its
 * plane clipped to the node's cell, pushed down the front subtree and then the back
 * subtree; each fragment that ends in an empty leaf on both sides is a portal. Between
 * two blocks, the shared face of their boxes is pushed down both blocks' trees the same
 * way. Each block owns its interior portals and those on its lower faces, so a later
 * rebuild of one block redoes its own portals and those of its upper neighbours.
 *
 * Outside (flood.c). The faces of the world model's outer box are pushed into the trees:
 * the empty leaves they reach are the void. A breadth-first flood from them through the
 * portals finds every leaf the void reaches; an entity whose origin lies in one is a leak,
 * and the flood's parent links give the shortest path (in portals) from it to the void.
 * The flood also crosses knife-edge seams (seams.c): empty leaves that meet only along an
 * edge two brushes share, which Quake's tools count as a crack in the map.
 * A sealed map drops the void's leaves from visibility; the rest are the vis leaves.
 *
 * PVS (pvs.c): a coarse flood pass, then portal flow with separating planes.
 */
#ifndef AL_VIS_INTERNAL_H
#define AL_VIS_INTERNAL_H

#include "al-vis.h"
#include "core/arena.h"
#include "geom/winding.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_world al_world;

enum {
    AL_VLEAF_SOLID = 1u << 0,   /* solid in the vis tree */
    AL_VLEAF_BORDER = 1u << 1,  /* touches the world model's outer box */
    AL_VLEAF_OUTSIDE = 1u << 2, /* reached by the void (only recorded for sealed maps) */
};

typedef struct al_portal {
    int32_t leaf[2]; /* global leaves: [0] in front of the plane, [1] behind */
    int32_t block;   /* owner (see above) */
    double normal[3];
    double dist;
    al_winding *winding; /* faces along normal; in al_vis.arena */
} al_portal;

/* Two empty leaves that meet only along an edge two brushes share (seams.c). */
typedef struct al_vis_seam {
    int32_t leaf[2];
    double point[3]; /* on the edge */
} al_vis_seam;

typedef struct al_vis {
    al_arena *arena;         /* leak path */
    al_arena **block_arenas; /* per block: its portals' windings */

    int32_t block_count;
    int32_t *leaf_base; /* block_count + 1 entries */
    int32_t leaf_count;
    uint8_t *leaf_flags;
    int32_t *leaf_cluster; /* vis leaf number, or -1 */
    double (*border_point)[3]; /* per leaf: a point on the outer box, for BORDER leaves */

    int32_t portal_count;
    al_portal *portals;          /* block by block, in the order of their owners */
    int32_t *block_portal_first; /* block_count + 1: the portals each block owns */
    int32_t blocks_copied;       /* blocks whose portals came from the previous world */
    uint8_t *block_copied;       /* per block: its portals are the previous world's */
    int32_t *leaf_portal_first; /* leaf_count + 1: portals touching each leaf (CSR) */
    int32_t *leaf_portals;
    int32_t seam_count;
    al_vis_seam *seams; /* knife-edge seams, which the outside flood crosses */

    int32_t cluster_count;
    int32_t *cluster_leaf;
    int32_t vis_portal_count; /* portals between two vis leaves that sight passes */
    /* Per portal: 1 where sight does not pass it (with opaque liquids, a liquid surface:
     * liquid on one side only); the outside flood still does. NULL: every portal passes. */
    uint8_t *portal_opaque;

    /* Leak: entity -1 if none. */
    int32_t leak_entity;
    char leak_classname[64];
    int32_t leak_point_count;
    double (*leak_points)[3];

    /* PVS rows, cluster_count rows of row_words 64-bit words; NULL at AL_PVS_NONE. */
    int32_t row_words;
    uint64_t *pvs;

    /* What the PVS was made of, kept for the next world's (pvs.c): per directed portal
     * (two per portal between vis leaves, in portal order: 2 k + 0 into leaf[0]) its
     * might-see set and, after the tight pass, its visible set (row_words each); and per
     * portal its first directed portal, -1 if it is not between two vis leaves. */
    int32_t dportal_count;
    uint64_t *dportal_might, *dportal_vis; /* NULL: not kept (no PVS, or a stored one) */
    int32_t *portal_dportal;
    const struct al_vis *previous; /* while the PVS is built: the previous world's, whose
                                      unchanged sets are taken (al_vis_options.previous) */
    int32_t dportals_reused[2];    /* might-see and visible sets taken from it */

    /* Faces in leaves (CSR over vis leaves). */
    int32_t *cluster_face_first;
    al_leaf_face *cluster_faces;
    /* Where they came from, kept for the next world's (leaf-faces.c): per brush of the world
     * model, in its order, a range of face_places (placed_brush_count + 1 entries). */
    int32_t placed_brush_count;
    int32_t *brush_place_first;
    struct al_face_place *face_places;

    /* Entities in leaves (CSR over entities). */
    int32_t entity_count;
    int32_t *entity_cluster_first;
    int32_t *entity_clusters;

    al_vis_stats stats;

    const int *cancel; /* while the PVS is built: nonzero asks it to stop (al_vis_pvs) */
    int64_t *progress; /* while the PVS is built, if not NULL: the tight pass's units of
                          work and those done (al_vis_options.progress) */
    bool flow_unpruned; /* the flow follows every arrival at a portal, dominated or not,
                         * and leaves no frame for want of leaves in reach (pvs.c; for the
                         * test that compares the rows with and without the pruning) */
} al_vis;

/* A PVS as a stored world keeps it: every row's bytes (bit L of byte L / 8: vis leaf L),
 * a zero byte followed by how many zero bytes it stands for (1..255), other bytes as they
 * are (Quake's compression of visibility rows). */
typedef struct al_stored_pvs {
    al_pvs_level level;        /* AL_PVS_TIGHT or AL_PVS_COARSE */
    int32_t clusters, portals; /* the vis leaves and portals the rows are for */
    double avg_visible_coarse, avg_visible_tight;
    unsigned char *bytes;      /* owned */
    size_t size;
} al_stored_pvs;

/* VIS's rows coded into OUT (bytes owned by the caller); false if memory ran out or VIS
 * has no PVS. */
bool al_vis_store_pvs(const al_vis *vis, al_stored_pvs *out);

/* Decodes STORED into VIS's rows if it is for VIS's vis leaves and portals and at least as
 * tight as LEVEL; returns false (VIS unchanged) otherwise or if the bytes are damaged. */
bool al_vis_load_pvs(al_vis *vis, const al_stored_pvs *stored, al_pvs_level level);

void al_stored_pvs_free(al_stored_pvs *stored);

/* What the compile knows about entities, for the flood and the entity lists. */
typedef struct al_vis_entity {
    bool has_origin;
    double origin[3];
    bool has_brushes;
    double mins[3], maxs[3]; /* of its valid brushes */
    const char *classname;
    int line; /* source line, -1 if unknown */
} al_vis_entity;

/* Builds W's visibility into a new al_vis (W->vis): portals, outside flood and leak,
 * faces in leaves, entity lists, and the PVS up to LEVEL on THREADS threads. Returns 0, or
 * -1 if memory runs out. */
int al_vis_build(al_world *w, const al_vis_entity *entities, int entity_count,
                 al_pvs_level level, int threads, const int *cancel, int64_t *progress,
                 bool no_pvs_if_leaking, const al_world *previous);

void al_vis_destroy(al_vis *vis);

/* Steps of al_vis_build, in order. PREVIOUS (may be NULL): a world whose portals of the
 * blocks W shares with it (vis trees, and those of the lower neighbours) are copied. */
int al_vis_portals(al_world *w, al_vis *vis, const al_world *previous);
int al_vis_seams(const al_world *w, al_vis *vis);
int al_vis_flood(al_world *w, al_vis *vis, const al_vis_entity *entities, int entity_count);
/* PREVIOUS (may be NULL): a world whose faces' places in the blocks W shares with it are
 * taken for the brushes it has too, unless they reach a block it does not share. */
int al_vis_leaf_faces(const al_world *w, al_vis *vis, const al_vis_entity *entities,
                      int entity_count, const al_world *previous);
/* Returns 0, -1 if memory runs out, -2 if VIS->cancel was set while it ran (the rows are
 * then conservative but not tight). */
int al_vis_pvs(al_vis *vis, al_pvs_level level, int threads);

/* The global leaf of the world model's vis trees containing P. */
int32_t al_vis_find_leaf(const al_world *w, const double p[3]);

/* Pieces of a polygon pushed down a tree, with the (empty) leaves they end in. */
typedef struct al_vis_fragment {
    int32_t leaf;
    al_winding *winding;
} al_vis_fragment;

typedef struct al_vis_fragments {
    al_vis_fragment *items; /* malloc'd */
    int count, capacity;
} al_vis_fragments;

bool al_vis_fragment_add(al_vis_fragments *v, int32_t leaf, al_winding *w);

/* Pushes W down TREE from CODE and appends the pieces that end in empty leaves (leaf
 * numbers local to the tree). TOWARD is the side of W where the region searched lies: a
 * piece lying on a node's plane goes to the child on that side. False if memory runs
 * out. */
typedef struct al_tree al_tree;
bool al_vis_push(al_arena *arena, const al_tree *tree, int32_t code, al_winding *w,
                 const double toward[3], al_vis_fragments *out);

/* Whether two blocks' vis trees are one (shared between worlds: al_world_update). */
bool al_vis_same_tree(const al_tree *a, const al_tree *b);

/* The block of leaf L (global numbering: leaf_base is ascending). */
static inline int al_vis_block_of_leaf(const al_vis *vis, int32_t l)
{
    int lo = 0, hi = vis->block_count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (vis->leaf_base[mid] <= l) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Row of cluster C. */
static inline const uint64_t *al_vis_row(const al_vis *vis, int c)
{
    return vis->pvs + (size_t) c * (size_t) vis->row_words;
}

static inline bool al_bit_test(const uint64_t *row, int i)
{
    return (row[i >> 6] >> (i & 63)) & 1u;
}

static inline void al_bit_set(uint64_t *row, int i)
{
    row[i >> 6] |= (uint64_t) 1 << (i & 63);
}

/* Whether portal I joins two vis leaves for sight (vis_portal_count counts those). */
static inline bool al_vis_portal_sees(const al_vis *vis, int32_t i)
{
    const al_portal *p = &vis->portals[i];
    return vis->leaf_cluster[p->leaf[0]] >= 0 && vis->leaf_cluster[p->leaf[1]] >= 0 &&
           !(vis->portal_opaque && vis->portal_opaque[i]);
}

#endif
