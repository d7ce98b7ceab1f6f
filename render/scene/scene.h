/* Inside a scene (al-render.h): the CPU meshes the renderer uploads and the tables it and
 * the picking code use.
 *
 * A scene is a list of meshes, one per brush (in input order) and one per point entity,
 * each with its own vertex arrays. Meshes are immutable and reference counted, so the
 * scene built after an edit shares every mesh the edit left alone with the scene before
 * it; a renderer keys what it uploaded by the mesh's serial. Faces are numbered across the
 * scene, brush after brush (brush_first_face), for the renderer's per-face stamps. */
#ifndef AL_RENDER_SCENE_H
#define AL_RENDER_SCENE_H

#include "al-render.h"

/* One vertex format for everything (48 bytes): lines have a zero normal and are drawn
 * unlit; only faces with a lightmap have lightmap coordinates, in texels of the atlas (the
 * renderer scales them by the atlas size, so they stay put when the atlas grows). Faces
 * that show a texture name their material; their texture coordinates are in texels of the
 * face's projection (al_face_desc.texture_axes): the renderer divides them by the size of
 * the texture it holds for the material, so meshes need not be rebuilt when textures
 * arrive or change. */
typedef struct al_vertex {
    float pos[3];
    float normal[3];
    uint8_t colour[4]; /* sRGB, alpha */
    float lightmap[2]; /* atlas s, t in texels; AL_NO_LIGHTMAP: drawn with the fixed shading */
    float texture[2];  /* s, t in texels of the face's texture */
    int32_t material;  /* input material index + 1; 0: no texture (lines, tool faces) */
} al_vertex;

#define AL_NO_LIGHTMAP (-1.0f)

/* A vertex of a line (outlines, an entity box's edges, a light's reach, portals' outlines,
 * the leak path): a third of al_vertex's size, as lines have no normal, light or texture
 * (the renderer draws them as an al_vertex with normal 0, AL_NO_LIGHTMAP and material 0). */
typedef struct al_line_vertex {
    float pos[3];
    uint8_t colour[4]; /* sRGB, alpha */
} al_line_vertex;

enum {
    AL_FACE_TOOL = 1u << 0,     /* clip, trigger, hint, skip: translucent, optional */
    AL_FACE_SKY = 1u << 2,
    AL_FACE_LIT = 1u << 3,      /* has lightmap coordinates */
};

/* A face of a brush mesh. */
typedef struct al_mesh_face {
    int32_t first_tri, tri_count;   /* vertices in the mesh's tris (3 per triangle) */
    int32_t first_edge, edge_count; /* vertices in the mesh's lines (2 per segment) */
    int32_t first_point, point_count; /* its polygon in the mesh's points */
    int32_t face;                   /* index of the face within its brush */
    uint32_t flags;                 /* AL_FACE_* */
    float mins[3], maxs[3];
    double normal[3], dist;         /* the face's plane, normal out of the brush */
    double lightmap[8];             /* s axis, s offset, t axis, t offset in texels (LIT) */
} al_mesh_face;

/* The mesh of one brush or point entity. */
typedef struct al_mesh {
    int refs;        /* atomic */
    uint64_t serial; /* unique in the process: the renderer's upload key */
    int64_t id;      /* the brush's or entity's id (al_scene_desc) */
    uint64_t key;    /* its al_scene_desc key */
    al_vertex *tris;
    int32_t tri_count;
    al_line_vertex *lines; /* outlines, or an entity's box edges */
    int32_t line_count;
    al_line_vertex *radius; /* a light's reach */
    int32_t radius_count;
    al_mesh_face *faces; /* a brush's; none for an entity */
    int32_t face_count;
    int16_t *face_local; /* per face of the brush (input order): its index in FACES, -1 */
    int32_t input_face_count;
    double (*points)[3];
    double mins[3], maxs[3];
    double reach_mins[3], reach_maxs[3]; /* the box of RADIUS, when it has lines */
    bool has_bounds;
    uint32_t flags; /* AL_FACE_TOOL if every face is a tool face */
    int lit_faces;
} al_mesh;

/* A node of the brushes' bounding-volume tree (scene/pick.c): COUNT > 0 is a leaf of
 * bvh_items [FIRST, FIRST + COUNT); COUNT 0 has its children at FIRST and FIRST + 1. */
typedef struct al_scene_bvh_node {
    double mins[3], maxs[3];
    int32_t first, count;
} al_scene_bvh_node;

/* The picking tree, shared by scenes whose brushes are the same list (refitted). */
typedef struct al_scene_bvh {
    int refs;
    al_scene_bvh_node *nodes;
    int32_t count;
    int32_t *items;  /* brush indices, grouped by leaf */
    int32_t *parent; /* per node, -1 for the root (for refitting) */
    int refits;      /* since it was built: a tree refitted too often is built again */
} al_scene_bvh;

struct al_scene {
    const al_world *world; /* borrowed */
    al_mesh **brushes;     /* per input brush (NULL: no faces: invalid, or out of memory) */
    int32_t brush_count;
    int64_t *brush_ids;    /* per input brush, from the desc; NULL without */
    int32_t *brush_first_face; /* brush_count + 1 entries */
    int32_t *brush_entity;
    int32_t face_count;
    al_mesh **entities;        /* the point entities with a box */
    int32_t *entity_index;     /* their input indices */
    int32_t entity_count;
    int32_t *mesh_of_entity;   /* per input entity: its index in ENTITIES, or -1 */
    int32_t input_entity_count;
    uint8_t *in_leaves;        /* per face: some vis leaf lists it (culled by the PVS); NULL
                                  without visibility */
    al_scene_bvh *bvh;
    al_line_vertex *leak_lines;
    int32_t leak_line_count;
    double mins[3], maxs[3];
    bool has_bounds;
    int lightmap_width, lightmap_height; /* the atlas in texels; 0: none */
    /* The input's materials, copied: their names (what the renderer finds textures by) and
     * flags (sky and liquids are drawn full bright). al_vertex.material indexes them. */
    char **material_names;
    uint32_t *material_flags;
    int32_t material_count;
    al_scene_stats stats;
};

al_mesh *al_mesh_ref(al_mesh *m);
void al_mesh_release(al_mesh *m); /* NULL is a no-op; any thread */

/* The scene face number of face FACE of input brush BRUSH, or -1; *MESH_FACE (may be NULL)
 * gets the mesh face. */
int al_scene_face_index(const al_scene *scene, int brush, int face, const al_mesh_face **mesh_face);

/* The picking tree of the scene's brushes: PREVIOUS's refitted when its brushes are the
 * same list, else built; false if memory ran out. */
bool al_scene_bvh_build(al_scene *scene, const al_scene *previous);
void al_scene_bvh_release(al_scene_bvh *bvh);

/* Marks STAMP[b] = MARK for the brushes b of every leaf of the tree whose box OUTSIDE
 * (called with CONTEXT) does not rule out, walking down only from boxes it does not rule
 * out: a brush left unmarked lies in a box OUTSIDE ruled out. False (nothing marked) if
 * the scene has no tree. */
bool al_scene_bvh_mark(const al_scene *scene,
                       bool (*outside)(const void *context, const double mins[3],
                                       const double maxs[3]),
                       const void *context, uint32_t *stamp, uint32_t mark);

/* al_scene_pick_visible without the tree: every brush in input order (the tests'
 * reference). */
bool al_scene_pick_scan(const al_scene *scene, const double origin[3], const double dir[3],
                        unsigned flags, const al_pick_mask *mask, al_pick *out);

/* The portals of WORLD as translucent triangles and outlines (malloc'd; the renderer makes
 * them when the overlay is on). False if memory ran out. */
bool al_scene_portal_mesh(const al_world *world, al_vertex **tris, int32_t *tri_count,
                          al_line_vertex **lines, int32_t *line_count);

#endif
