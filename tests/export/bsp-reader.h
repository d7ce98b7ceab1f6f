/* A Quake BSP reader for the tests: BSP29 and BSP2, written from the format's description
 * apart from the exporter (data/export), so that the tests read what was written the way an
 * engine does, not the way the writer meant it.
 *
 * rb_read checks every lump against the file and every index against its lump; a file that
 * fails gets a reason. rb_point_contents is Quake's SV_HullPointContents: a walk from a
 * model's headnode of hull 0 (nodes, then the leaf's contents) or of a clip hull
 * (clipnodes, whose negative children are contents).
 */
#ifndef ALLIUM_TEST_BSP_READER_H
#define ALLIUM_TEST_BSP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rb_plane {
    float normal[3], dist;
    int32_t type;
} rb_plane;

typedef struct rb_node {
    int32_t plane, child[2];
    float mins[3], maxs[3];
    uint32_t first_face, face_count;
} rb_node;

typedef struct rb_leaf {
    int32_t contents, visofs;
    float mins[3], maxs[3];
    uint32_t first_mark, mark_count;
} rb_leaf;

typedef struct rb_clipnode {
    int32_t plane, child[2];
} rb_clipnode;

typedef struct rb_face {
    int32_t plane, side, first_edge, edge_count, texinfo, lightofs;
} rb_face;

typedef struct rb_texinfo {
    float vecs[2][4];
    int32_t miptex, flags;
} rb_texinfo;

typedef struct rb_model {
    float mins[3], maxs[3], origin[3];
    int32_t headnode[4], visleafs, first_face, face_count;
} rb_model;

/* A brush of the BSPX BRUSHLIST lump: its model, bounds and contents, and its non-axial
 * planes (normal . x <= dist inside) brush_planes[first_plane .. + plane_count). */
typedef struct rb_brush {
    int model;
    float mins[3], maxs[3];
    int contents;
    int first_plane, plane_count;
} rb_brush;

typedef struct rb_bsp {
    bool bsp2;
    rb_brush *brushes; /* NULL: no BRUSHLIST */
    int brush_count;
    float (*brush_planes)[4];
    int brush_plane_count;
    rb_plane *planes;
    int plane_count;
    rb_node *nodes;
    int node_count;
    rb_leaf *leafs;
    int leaf_count;
    rb_clipnode *clipnodes;
    int clipnode_count;
    rb_face *faces;
    int face_count;
    rb_texinfo *texinfo;
    int texinfo_count;
    float (*vertexes)[3];
    int vertex_count;
    uint32_t (*edges)[2];
    int edge_count;
    int32_t *surfedges;
    int surfedge_count;
    uint32_t *marksurfaces;
    int marksurface_count;
    rb_model *models;
    int model_count;
    int miptex_count;
    char *entities;      /* NUL-terminated copy of the lump */
    uint8_t *visibility; /* copy of the lump */
    uint8_t *lighting;   /* copy of the lump */
    size_t visibility_bytes, lighting_bytes;
} rb_bsp;

/* Reads SIZE bytes of DATA into OUT (zeroed first). False, with the reason in WHY, when the
 * header, a lump or an index is bad. */
bool rb_read(const void *data, size_t size, rb_bsp *out, char *why, size_t why_size);

void rb_free(rb_bsp *bsp);

/* The leaf of MODEL's hull 0 holding P (Quake's Mod_PointInLeaf). */
int rb_point_leaf(const rb_bsp *bsp, int model, const double p[3]);

/* Face FACE's lightmap as an engine lays it out (Quake's CalcSurfaceExtents): the texture
 * coordinates of its vertexes (doubles of the floats) from floor(min / 16) to ceil(max /
 * 16), a luxel every 16 texels, rows along t. Its first luxel's texture coordinates into
 * FIRST (in texels), its size in luxels into SIZE. */
void rb_face_extents(const rb_bsp *bsp, int face, double first[2], int size[2]);

/* Whether leaf TO is in the visibility row of leaf FROM (both world leaves, 1 to
 * visleafs): Quake's run-length rows, where a zero byte is followed by the count of zero
 * bytes it stands for. A leaf without a row (visofs -1) sees every leaf. */
bool rb_leaf_sees(const rb_bsp *bsp, int from, int to);

/* Quake's contents (-1 empty, -2 solid, -3 water, -4 slime, -5 lava, -6 sky) at P in
 * MODEL's hull HULL (0-2). *NEAREST (may be NULL) receives the smallest distance of P from
 * a plane on the way, to tell points on a plane (where floats decide) apart. */
int rb_point_contents(const rb_bsp *bsp, int model, int hull, const double p[3], double *nearest);

/* The "origin" of the entity whose "model" is "*MODEL" in the entities lump into ORIGIN
 * (where an engine places the model); false, and 0 0 0, when it has none. */
bool rb_model_origin(const rb_bsp *bsp, int model, double origin[3]);

#endif
