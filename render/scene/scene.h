/* Inside a scene (al-render.h): the CPU meshes the renderer uploads and the tables it and
 * the picking code use. Vertex arrays are grouped so that what is culled or highlighted
 * together is one contiguous range: the triangles and outline segments of a face are
 * contiguous, and the faces of a brush are contiguous (brushes in input order). */
#ifndef AL_RENDER_SCENE_H
#define AL_RENDER_SCENE_H

#include "al-render.h"

/* One vertex format for everything (36 bytes): lines have a zero normal and are drawn
 * unlit; only faces with a lightmap have lightmap coordinates. */
typedef struct al_vertex {
    float pos[3];
    float normal[3];
    uint8_t colour[4]; /* sRGB, alpha */
    float lightmap[2]; /* atlas s, t in [0, 1]; AL_NO_LIGHTMAP: drawn with the fixed shading */
} al_vertex;

#define AL_NO_LIGHTMAP (-1.0f)

enum {
    AL_FACE_TOOL = 1u << 0,     /* clip, trigger, hint, skip: translucent, optional */
    AL_FACE_IN_LEAVES = 1u << 1, /* listed by some vis leaf: culled by the PVS */
    AL_FACE_SKY = 1u << 2,
};

typedef struct al_scene_face {
    int32_t first_tri, tri_count;   /* vertices in scene.tris (3 per triangle) */
    int32_t first_edge, edge_count; /* vertices in scene.edges (2 per segment) */
    int32_t brush, face;            /* input brush and face index within it */
    uint32_t flags;                 /* AL_FACE_* */
    float mins[3], maxs[3];
    double normal[3], dist;         /* the face's plane, normal out of the brush */
} al_scene_face;

typedef struct al_scene_entity {
    int32_t entity;
    double mins[3], maxs[3]; /* the box drawn and picked, in map units */
    int32_t first_tri, tri_count;
    int32_t first_line, line_count; /* in scene.entity_lines */
    int32_t first_radius, radius_count; /* lights: their reach, in scene.radius_lines */
} al_scene_entity;

/* A node of the brushes' bounding-volume tree (scene/pick.c): COUNT > 0 is a leaf of
 * bvh_items [FIRST, FIRST + COUNT); COUNT 0 has its children at FIRST and FIRST + 1. */
typedef struct al_scene_bvh_node {
    double mins[3], maxs[3];
    int32_t first, count;
} al_scene_bvh_node;

struct al_scene {
    const al_world *world; /* borrowed */
    al_vertex *tris;       /* face triangles (opaque and tool faces) */
    int32_t tri_count;     /* vertices */
    al_vertex *edges;      /* face outlines */
    int32_t edge_count;
    al_scene_face *faces;
    int32_t face_count;
    int32_t *brush_first_face; /* brush_count + 1 entries */
    int32_t *brush_entity;
    uint32_t *brush_flags;     /* AL_FACE_TOOL if every face is a tool face */
    double (*brush_mins)[3], (*brush_maxs)[3];
    int32_t brush_count;
    al_scene_bvh_node *bvh; /* the brushes with faces, for picking; node 0 is the root */
    int32_t bvh_count;
    int32_t *bvh_items; /* brush indices, grouped by leaf */
    int32_t *face_of_input;    /* input face index -> scene face, -1 if not drawn */
    int32_t input_face_count;
    int32_t *brush_first_input_face; /* input brush -> its first input face */
    al_scene_entity *entities;       /* point entities with a box */
    int32_t entity_count;
    al_vertex *entity_tris, *entity_lines;
    int32_t entity_tri_count, entity_line_count;
    al_vertex *portal_tris, *portal_lines;
    int32_t portal_tri_count, portal_line_count;
    al_vertex *leak_lines;
    int32_t leak_line_count;
    al_vertex *radius_lines; /* lights' reach: drawn in 2D views and for selected lights */
    int32_t radius_line_count;
    double mins[3], maxs[3];
    bool has_bounds;
    int lightmap_width, lightmap_height; /* the atlas of desc.rad in texels; 0: none */
    al_scene_stats stats;
};

/* The scene face of face FACE of input brush BRUSH, or -1. */
int al_scene_face_index(const al_scene *scene, int brush, int face);

/* Builds the picking tree of the brushes (after their faces and bounds); false if memory
 * ran out. */
bool al_scene_bvh_build(al_scene *scene);

/* al_scene_pick without the tree: every brush in input order (the tests' reference). */
bool al_scene_pick_scan(const al_scene *scene, const double origin[3], const double dir[3],
                        unsigned flags, al_pick *out);

#endif
