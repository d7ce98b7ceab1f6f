/* The BSP exporter's working form, shared by its stages (bsp-trees.c, bsp-faces.c,
 * bsp-write.c): every lump as records with 32-bit fields, which the last stage packs into
 * BSP29's or BSP2's layout after checking the format's limits. Not a public header. */
#ifndef AL_EXPORT_BSP_INTERNAL_H
#define AL_EXPORT_BSP_INTERNAL_H

#include "bsp.h"

#include "al-epsilon.h"
#include "al-faces.h"
#include "al-world-trees.h"

#include <stdbool.h>
#include <stdint.h>

/* Quake's contents values. */
enum {
    Q_CONTENTS_EMPTY = -1,
    Q_CONTENTS_SOLID = -2,
    Q_CONTENTS_WATER = -3,
    Q_CONTENTS_SLIME = -4,
    Q_CONTENTS_LAVA = -5,
    Q_CONTENTS_SKY = -6,
};

#define Q_TEX_SPECIAL   1 /* texinfo flag: no lightmap, not subdivided (sky, liquids) */
#define Q_MAX_MAP_HULLS 4

typedef struct q_plane {
    float normal[3], dist;
    int32_t type; /* 0-2 axial (normal along +axis), 3-5 otherwise (the largest axis) */
} q_plane;

typedef struct q_node {
    int32_t plane;
    int32_t child[2]; /* >= 0 a node, < 0 the leaf -1 - child */
    float mins[3], maxs[3];
    uint32_t first_face, face_count;
} q_node;

typedef struct q_leaf {
    int32_t contents;
    int32_t visofs;
    float mins[3], maxs[3];
    uint32_t first_mark, mark_count;
} q_leaf;

typedef struct q_clipnode {
    int32_t plane;
    int32_t child[2]; /* >= 0 a clipnode, < 0 contents */
} q_clipnode;

typedef struct q_texinfo {
    float vecs[2][4];
    int32_t miptex;
    int32_t flags;
} q_texinfo;

typedef struct q_face {
    int32_t plane, side, first_edge, edge_count, texinfo;
    uint8_t styles[4];
    int32_t lightofs;
} q_face;

typedef struct q_model {
    float mins[3], maxs[3], origin[3];
    int32_t headnode[Q_MAX_MAP_HULLS];
    int32_t visleafs, first_face, face_count;
} q_model;

typedef double q_point[3];
typedef float q_vertex[3];
typedef uint32_t q_edge[2];
typedef int32_t q_pair[2];

/* A growable array of records of SIZE bytes. */
typedef struct q_array {
    void *items;
    int32_t count, capacity;
    size_t size;
} q_array;

/* Room for one more record, zeroed; NULL when memory runs out (or past INT32_MAX). */
void *q_push(q_array *a);
void q_array_free(q_array *a);
#define Q_AT(array, type, i) (&((type *) (array).items)[i])

/* An open-addressing map from 64-bit keys to record indices (planes, vertexes, edges,
 * texinfo and shared clipnodes are looked up by content). */
typedef struct q_index {
    uint64_t *keys;
    int32_t *values;
    size_t capacity, count;
} q_index;

/* The value of KEY, or -1. */
int32_t q_index_get(const q_index *ix, uint64_t key);
/* Sets KEY to VALUE; false when memory runs out. */
bool q_index_put(q_index *ix, uint64_t key, int32_t value);
void q_index_free(q_index *ix);
uint64_t q_hash_bytes(const void *data, size_t size);

/* One face piece before faces are ordered by model and node. */
typedef struct q_piece {
    int32_t model;
    int32_t node; /* the node whose plane it lies on, or -1 */
    int32_t plane, side;
    int32_t texinfo;
    int32_t first_point, point_count; /* into q_bsp.piece_points */
} q_piece;

/* A box of doubles. */
typedef struct q_box {
    double mins[3], maxs[3];
} q_box;

/* Farther than any coordinate of a compiled world (AL_MODEL_OUTER is twice AL_COORD_MAX). */
#define Q_ALL_SPACE (4.0 * AL_COORD_MAX)

typedef struct q_bsp {
    const al_bsp_source *src;
    al_bsp_format format;
    al_diag_list *diags;
    al_face_polys polys; /* every brush's face polygons */
    int quake_hull[3];   /* Allium hull of Quake's hulls 0, 1 and 2 */
    q_array planes, nodes, leafs, clipnodes, texinfo, models, vertexes, edges, surfedges,
        marksurfaces, faces, pieces, piece_points;
    q_array leaf_boxes; /* per leaf, the axial box of its cell (not cut to the model) */
    double clamp_mins[3], clamp_maxs[3]; /* the model's bounds the written ones are cut to */
    q_index plane_index, vertex_index, edge_index, texinfo_index, clip_index;
    /* Per model: its brushes' entity and its faces' pieces; per input entity: its model
     * number in the .bsp, or -1. */
    int32_t *entity_model;
    int32_t *model_entity; /* per .bsp model */
    int32_t *model_allium; /* per .bsp model: its model in the world, or -1 (not solid) */
    double (*model_origin)[3]; /* per .bsp model: its entity's origin brush's centre, or 0 */
    bool *model_has_origin;    /* per .bsp model: whether it has an origin brush */
    int32_t model_count;
    /* The origin of the model being built (model_origin): a model is written relative to
     * it, so q_plane_add, the trees' bounds, the faces' vertexes and texinfo subtract it. */
    double offset[3];
    /* Miptex: the materials used, in miptex order, per material its miptex or -1. */
    int32_t *material_miptex;
    int32_t *miptex_material;
    int32_t miptex_count;
    int miptex_missing;
    uint8_t *miptex_lump;
    size_t miptex_bytes;
    char *entities;
    size_t entities_bytes;
    uint8_t *visibility; /* the compressed rows; NULL: none (every leaf sees all) */
    size_t visibility_bytes;
    uint8_t *lighting, *lit; /* a byte per luxel, and three; NULL: no lighting */
    size_t lighting_bytes, lit_bytes;
    /* Per leaf during the marking of faces: the pieces in it (a list per leaf). */
    q_array leaf_pieces; /* pairs (leaf, piece) */
} q_bsp;

/* The index of the plane through NORMAL and DIST (world coordinates; added if new) moved
 * by -Q->offset into the model's own coordinates, oriented as Quake's engines expect (the
 * largest component positive): *FLIPPED says whether it was turned around. -1 when memory
 * runs out. */
int32_t q_plane_add(q_bsp *q, const double normal[3], double dist, bool *flipped);

/* Stage: the hull trees of every model (bsp-trees.c). Reads the world; writes planes,
 * nodes, leafs, clipnodes and the models' headnodes and bounds. */
al_status q_build_trees(q_bsp *q);

/* Stage: faces, texinfo and miptex (bsp-faces.c). Reads the map, the input, the textures
 * and the hull-0 trees; writes faces, edges, vertexes, texinfo, marksurfaces, the nodes'
 * and leaves' face ranges, the models' face ranges and the miptex lump. */
al_status q_build_faces(q_bsp *q);

/* Stage: the visibility (bsp-vis.c). Reads the world's PVS, portals and leaf faces, the
 * face polygons and the world's leaves' boxes; writes the visibility lump and the world's
 * leaves' visofs. */
al_status q_build_vis(q_bsp *q);

/* Stage: the lighting (bsp-light.c), when the source has a radiosity. Reads the faces,
 * their vertexes, planes and texinfo, and the radiosity's lightmaps; writes the lighting
 * and .lit bytes and the faces' lightofs and styles. */
al_status q_build_light(q_bsp *q);

#endif
