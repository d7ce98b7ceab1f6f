/* Where renderers keep the meshes of the scenes they are given (al_renderer_set_scene):
 * three vertex buffers (triangles as al_vertex, lines and a light's reach as the smaller
 * al_line_vertex) that grow as needed, with each
 * mesh in a range of each, found by the mesh's serial. A new scene uploads only the meshes
 * the store does not hold; a mesh's ranges are given back and reused once no renderer's
 * scene holds it. Renderers whose contexts share objects (the views of a window) share
 * one store: a mesh is uploaded once however many views draw it.
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
    size_t vertex_size; /* al_vertex's, or al_line_vertex's for lines */
    GLuint vbo;       /* 0 until the first vertices come; replaced when it grows */
    uint32_t made;    /* how many buffers it has had: the renderers' vertex arrays follow */
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
    int32_t users; /* takes not yet released; 0: unused, its ranges given back */
} gl_mesh_slot;

typedef struct gl_texture_set gl_texture_set; /* renderer.c */

typedef struct gl_mesh_store {
    int refs;
    /* The texture arrays the renderers sharing the store share (renderer.c), by key. */
    gl_texture_set *texture_sets;
    int64_t textures_uploaded; /* texture arrays made, for the tests */
    gl_arena tris, lines, radius;
    gl_mesh_slot *slots; /* open addressing by serial; serial 0: empty */
    size_t mask;         /* capacity - 1 */
    size_t count;        /* slots with a serial */
    size_t unused;       /* of those, the ones with no users */
    int64_t uploaded;    /* vertices uploaded, for the tests and benchmarks */
    bool failed;         /* memory ran out: some meshes are not drawn */
} gl_mesh_store;

/* Sets up a VAO over VBO with al_vertex's attributes. */
void gl_vertex_layout(GLuint vao, GLuint vbo);
/* The same with al_line_vertex's: the position and the colour; the other attributes are
 * not read from the buffer, and take the values gl_line_defaults gives them. */
void gl_line_layout(GLuint vao, GLuint vbo);
/* The values of a line's attributes that al_line_vertex leaves out, as al_vertex has them
 * for a line: normal 0, AL_NO_LIGHTMAP, texture 0, material 0 (current values, the
 * context's; set before drawing lines). */
void gl_line_defaults(void);

/* An empty store (one reference), or NULL if memory ran out. Its buffers are made in the
 * context current when meshes first come; the renderers that share it draw from them in
 * their own contexts, which must share objects with that one. */
gl_mesh_store *gl_mesh_store_new(void);
gl_mesh_store *gl_mesh_store_ref(gl_mesh_store *st);
/* The last reference deletes the buffers: a context that shares them must be current. */
void gl_mesh_store_unref(gl_mesh_store *st);

/* Makes room at once for those of the COUNT MESHES (NULL ones skipped) that the store does
 * not hold, before they are taken one by one. */
void gl_mesh_store_reserve(gl_mesh_store *st, const al_mesh *const *meshes, int count);
/* The slot of mesh M, uploading it if the store does not hold it, with one more user;
 * NULL if memory ran out. Each take is given back by gl_mesh_store_release. */
const gl_mesh_slot *gl_mesh_store_take(gl_mesh_store *st, const al_mesh *m);
/* One user less for the mesh of SERIAL: its ranges are given back with the last. */
void gl_mesh_store_release(gl_mesh_store *st, uint64_t serial);
/* Makes the table anew without the unused slots once they are half of it. */
void gl_mesh_store_tidy(gl_mesh_store *st);
#endif
