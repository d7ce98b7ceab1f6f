/* Where a renderer keeps the meshes of the scenes it is given (al_renderer_set_scene): three
 * vertex buffers (triangles, lines, a light's reach) that grow as needed, with each mesh in
 * a range of each, found by the mesh's serial. A new scene uploads only the meshes the
 * store does not hold; the ranges of meshes it no longer draws are given back and reused.
 *
 * Workload: a scene per compiled snapshot; after an edit a few meshes are new, so a scene
 * costs a look-up per mesh (lq-e3m4: 4,700 meshes) and the upload of the new ones.
 * Needs the renderer's GL context current. */
#ifndef AL_RENDER_MESH_STORE_H
#define AL_RENDER_MESH_STORE_H

#include "gl/shaders.h"
#include "scene/scene.h"

/* A vertex buffer whose ranges are handed out and given back. */
typedef struct gl_range {
    int32_t first, count;
} gl_range;

typedef struct gl_arena {
    GLuint vao, vbo;
    int32_t capacity; /* vertices */
    int32_t end;      /* everything at or beyond is free */
    gl_range *free;   /* free ranges below END, by first, none adjacent */
    int free_count, free_cap;
} gl_arena;

/* Where one mesh is. */
typedef struct gl_mesh_slot {
    uint64_t serial;
    int32_t tri, line, radius; /* first vertices; the counts are the mesh's */
    int32_t tri_count, line_count, radius_count;
    uint32_t mark;
} gl_mesh_slot;

typedef struct gl_mesh_store {
    gl_arena tris, lines, radius;
    gl_mesh_slot *slots; /* open addressing by serial; serial 0: empty */
    size_t mask;         /* capacity - 1 */
    size_t count;
    uint32_t mark;       /* of the scene being set */
    int64_t uploaded;    /* vertices uploaded, for the tests and benchmarks */
    bool failed;         /* memory ran out: some meshes are not drawn */
} gl_mesh_store;

/* Sets up a VAO over VBO with al_vertex's attributes. */
void gl_vertex_layout(GLuint vao, GLuint vbo);

void gl_mesh_store_init(gl_mesh_store *st);
void gl_mesh_store_free(gl_mesh_store *st);

/* Starts a new scene: meshes not found again (gl_mesh_store_take) before
 * gl_mesh_store_finish give their ranges back. */
void gl_mesh_store_begin(gl_mesh_store *st);

/* Makes room at once for those of the COUNT MESHES (NULL ones skipped) that the store does
 * not hold, before they are taken one by one. */
void gl_mesh_store_reserve(gl_mesh_store *st, const al_mesh *const *meshes, int count);
/* The slot of mesh M, uploading it if the store does not hold it; NULL if memory ran out. */
const gl_mesh_slot *gl_mesh_store_take(gl_mesh_store *st, const al_mesh *m);

void gl_mesh_store_finish(gl_mesh_store *st);

#endif
