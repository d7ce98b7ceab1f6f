/* Visibility of a compiled world: portals, leaks and potentially visible sets (PVS).
 *
 * al_world_compile builds them for the world model (brush entities such as doors take no
 * part): portals between the empty leaves of the point hull's vis trees, which are made of
 * the structural brushes only (detail and clip brushes do not split them), a flood from the
 * void outside the map to find leaks, and the PVS of every leaf. See vis/vis.h for the
 * algorithms.
 *
 * A "vis leaf" is an empty leaf that takes part in visibility: leaves inside solid are not
 * vis leaves, nor, in a sealed map, are the leaves of the void outside it. Vis leaves are
 * numbered 0..al_world_vis_leaf_count-1.
 */
#ifndef AL_VIS_H
#define AL_VIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct al_world al_world;

/* How far al_world_compile takes the PVS (al_compile_options.pvs). */
typedef enum al_pvs_level {
    AL_PVS_TIGHT = 0,  /* portal flow with separating planes (the default) */
    AL_PVS_COARSE = 1, /* only the fast flood pass */
    AL_PVS_NONE = 2,   /* no PVS: every vis leaf sees every other */
} al_pvs_level;

typedef struct al_vis_stats {
    int portals;    /* between two vis leaves */
    int vis_leaves;
    int all_leaves; /* of the vis trees, solid and outside ones included */
    int outside_leaves; /* dropped because the void reaches them (sealed maps) */
    int seams;          /* knife-edge seams the outside flood may cross (vis/seams.c) */
    al_pvs_level level;
    double ms_portals;  /* portals and the outside flood */
    double ms_coarse;   /* the flood pass */
    double ms_tight;    /* portal flow; 0 if not run */
    double avg_visible_coarse; /* vis leaves per row, over all rows */
    double avg_visible_tight;
    int threads;
    bool pvs_stored; /* the rows came with a stored world: no pass ran */
    int portal_blocks_copied; /* blocks whose portals came from the previous world
                                 (al_vis_options.previous) */
    int dportals;             /* directed portals the PVS is made from */
    int dportals_reused_coarse; /* of those, whose might-see set (coarse pass) and */
    int dportals_reused_tight;  /* visible set (tight pass) came from the previous world */
    int face_brushes;           /* brushes of the world model, whose faces are placed in
                                   vis leaves */
    int face_brushes_placed;    /* those whose faces were pushed down
                                   the trees to find their vis leaves (with the previous
                                   world: into the blocks it does not share); the others'
                                   places all came from it */
} al_vis_stats;

void al_world_vis_stats(const al_world *world, al_vis_stats *out);

int al_world_vis_leaf_count(const al_world *world);

/* The vis leaf containing P, or -1 if P is in solid or outside a sealed map. */
int al_world_vis_leaf_at(const al_world *world, const double p[3]);

/* The vis leaves whose cells meet the box [MINS, MAXS] (touching counts), each once, in
 * increasing order, into OUT (room for MAX). Returns how many there are (may exceed MAX);
 * 0 without visibility, -1 if memory runs out. */
int al_world_vis_leaves_in_box(const al_world *world, const double mins[3], const double maxs[3],
                               int32_t *out, int max);

/* True if vis leaf B is in the PVS of vis leaf A (symmetric; a leaf sees itself). False for
 * indices out of range. */
bool al_world_leaf_sees(const al_world *world, int a, int b);

/* The vis leaves potentially visible from P, into OUT (room for MAX). Returns how many
 * there are (may exceed MAX); 0 if P is not in a vis leaf. */
int al_world_leaves_visible_from(const al_world *world, const double p[3], int32_t *out, int max);

/* The entities (by input index) potentially visible from P: those whose origin or brushes
 * touch a vis leaf in the PVS of P's leaf (the thesis's use of the PVS to decide what a
 * networked client must be told about). Returns how many (may exceed MAX). Entities with
 * neither an origin nor brushes are never listed. */
int al_world_entities_visible_from(const al_world *world, const double p[3], int32_t *out,
                                   int max);

typedef struct al_portal_info {
    int32_t leaf[2];      /* vis leaves: [0] in front of the portal's plane, [1] behind; -1
                             for a side in the void outside a sealed map (such portals are
                             listed but not counted in al_vis_stats.portals) */
    double normal[3];     /* of the plane, pointing into leaf[0] */
    double dist;
    int point_count;
    const double (*points)[3]; /* the polygon, owned by the world */
} al_portal_info;

int al_world_portal_count(const al_world *world);

/* Portal I (0 <= I < al_world_portal_count); false if out of range. */
bool al_world_portal(const al_world *world, int i, al_portal_info *out);

typedef struct al_leak_info {
    int32_t entity;        /* the entity from which the void is reachable */
    const char *classname; /* its class, owned by the world */
    int point_count;
    const double (*points)[3]; /* a path through empty space from the entity's origin to
                                  outside the map's bounds, like a Quake pointfile */
} al_leak_info;

/* True if the map leaks; then *OUT describes the leak (OUT may be NULL). */
bool al_world_leak(const al_world *world, al_leak_info *out);

/* Quake's run-length coding of a visibility row of BITS bits (bit i is bit i % 64 of
 * ROW[i / 64]), as its .bsp files and the stored compiles hold rows: the row's bytes in
 * order, each zero byte followed by how many zero bytes it stands for (1-255). Writes OUT
 * (room for 2 * ((BITS + 7) / 8) bytes) and returns the length. */
size_t al_vis_rle_row(const uint64_t *row, int32_t bits, unsigned char *out);

/* A face pushed into a vis leaf: face FACE (input order within its brush) of input brush
 * BRUSH touches the leaf's boundary or, for detail brushes, its inside. */
typedef struct al_leaf_face {
    int32_t brush;
    int32_t face;
} al_leaf_face;

/* The faces of vis leaf LEAF; *COUNT receives their number. */
const al_leaf_face *al_world_leaf_faces(const al_world *world, int leaf, int *count);

#endif
