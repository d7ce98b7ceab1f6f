/* The renderer: draws a compiled map and the editor's overlays with OpenGL 3.3 core.
 *
 * Three parts, each usable alone:
 *   al_camera   view and projection of one view (3D perspective or a 2D orthographic
 *               view), the motions an editor needs (fly, look, orbit, pan, zoom at the
 *               cursor, frame a box) and screen-to-world rays. Pure math, no GL.
 *   al_scene    CPU meshes of one map: brush faces coloured by material (with lightmap
 *               coordinates when a radiosity solution is given), their outlines, entity
 *               boxes, light radii, and the compiler's portals and leak path; plus picking
 *               of faces, brushes and entities by a ray. No GL: testable anywhere.
 *   al_renderer the GL part: uploads a scene and draws it for a camera with the options of
 *               the frame (overlays, selection, grid), culling with the PVS and the frustum.
 *               Lit faces take their light from a lightmap atlas (al-rad.h) uploaded
 *               with al_renderer_set_lightmap; without one, faces are flat material
 *               colours with a fixed shading by orientation. Given texture images
 *               (al_renderer_set_textures), 3D views draw each face's material texture
 *               through its projection instead of the flat colour.
 *               Must be created, used and destroyed with the same GL context current
 *               (a GtkGLArea's, or an offscreen EGL context in tests: al-offscreen.h).
 *
 * Coordinates are Quake's: Z up, units are map units. Screen coordinates are pixels from
 * the top-left corner of the view.
 */
#ifndef AL_RENDER_H
#define AL_RENDER_H

#include "al-faces.h"
#include "al-input.h"
#include "al-rad.h"
#include "al-world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- cameras ------------------------------------------------------------------------- */

typedef enum al_view_kind {
    AL_VIEW_3D,    /* perspective */
    AL_VIEW_TOP,   /* looking down -Z: screen right +X, screen up +Y */
    AL_VIEW_FRONT, /* looking along +Y: screen right +X, screen up +Z */
    AL_VIEW_SIDE,  /* looking along -X: screen right +Y, screen up +Z */
} al_view_kind;

typedef struct al_camera {
    al_view_kind kind;
    double position[3]; /* 3D: the eye; 2D: the point at the centre of the view */
    double yaw;         /* 3D: degrees around +Z, 0 looks along +X */
    double pitch;       /* 3D: degrees, positive looks up, kept within +-89 */
    double fov_y;       /* 3D: vertical field of view in degrees */
    double zoom;        /* 2D: pixels per map unit */
    int width, height;  /* viewport in pixels */
} al_camera;

/* A camera of KIND at the origin with the defaults (90 degrees, zoom 0.5). */
void al_camera_init(al_camera *cam, al_view_kind kind);

/* Column-major 4x4 view and projection matrices (OpenGL clip space), as floats. */
void al_camera_matrices(const al_camera *cam, float view[16], float proj[16]);

/* Unit forward, right and up vectors (2D views: into the screen, screen right, screen up). */
void al_camera_basis(const al_camera *cam, double forward[3], double right[3], double up[3]);

/* The ray through pixel (X, Y): 3D from the eye, 2D from far in front of the view plane
 * along the view direction. DIR is a unit vector. */
void al_camera_ray(const al_camera *cam, double x, double y, double origin[3], double dir[3]);

/* The map point under pixel (X, Y) on a 2D view's plane (its depth coordinate is the
 * camera's); for a 3D view, the point at DEPTH units along the ray. */
void al_camera_unproject(const al_camera *cam, double x, double y, double depth, double out[3]);

/* Screen position of map point P; false if it is behind a 3D camera. */
bool al_camera_project(const al_camera *cam, const double p[3], double *x, double *y);

/* 3D: moves the eye by FORWARD, RIGHT and UP units along the view (UP along +Z). */
void al_camera_fly(al_camera *cam, double forward, double right, double up);

/* 3D: turns by DYAW and DPITCH degrees (pitch clamped to +-89). */
void al_camera_look(al_camera *cam, double dyaw, double dpitch);

/* 3D: turns by DYAW and DPITCH degrees around PIVOT, keeping the distance to it, and looks
 * at it. */
void al_camera_orbit(al_camera *cam, const double pivot[3], double dyaw, double dpitch);

/* 2D: moves the view so that the map follows the mouse by DX, DY pixels. */
void al_camera_pan(al_camera *cam, double dx, double dy);

/* 2D: multiplies the zoom by FACTOR (clamped to 1/64 .. 64) keeping the map point under
 * pixel (X, Y) where it is. */
void al_camera_zoom_at(al_camera *cam, double factor, double x, double y);

/* Shows the box [MINS, MAXS] whole: 3D moves back along the view direction, 2D centres and
 * zooms. */
void al_camera_frame(al_camera *cam, const double mins[3], const double maxs[3]);

/* Axes of a 2D view: screen right, screen up and depth (0 = X, 1 = Y, 2 = Z); for 3D the
 * top view's. */
void al_view_axes(al_view_kind kind, int *right, int *up, int *depth);

/* The twelve edges of the box [LO, HI] as 24 points (pairs), for line overlays. */
void al_box_edge_points(const double lo[3], const double hi[3], double out[24][3]);

/* The grid spacing to draw: the smallest of GRID * 2^k (k >= 0) that leaves at least
 * MIN_PIXELS between lines at the camera's zoom. */
double al_camera_grid_step(const al_camera *cam, double grid, double min_pixels);

/* Snaps V to the nearest multiple of GRID (GRID <= 0: unchanged). */
double al_snap(double v, double grid);

/* --- scenes -------------------------------------------------------------------------- */

/* A scene is immutable once built, and made of one mesh per brush and per point entity.
 * A scene built from the scene before it (al_scene_desc.previous) takes that scene's mesh
 * of every brush and entity whose key is the same, and builds only the others: after an
 * edit, the brushes it changed. A renderer that had the previous scene uploads only the
 * meshes it has not seen (al_renderer_set_scene). */
/* How a point entity's box looks, from its class's definition (the editor's entity
 * definitions): its size about the origin and its colour. */
typedef struct al_entity_look {
    bool has_box;
    double mins[3], maxs[3];
    bool has_colour;
    float colour[3]; /* 0..1 */
} al_entity_look;

typedef struct al_scene_desc {
    const al_input *input;       /* required */
    const al_world *world;       /* may be NULL: no portals, leak or PVS */
    const float (*material_colours)[3]; /* per input material, sRGB 0..1; NULL: the input's
                                           materials' colours */
    const al_rad *rad; /* may be NULL: no lightmaps (or, with PREVIOUS, the lightmap places
                        * of PREVIOUS's meshes, kept). Else built from world and input: every
                        * face al_rad_face maps gets lightmap coordinates in its atlas (read
                        * while building only; the scene keeps no pointer to it) */
    /* Building from a previous scene. */
    const struct al_scene *previous;
    const int64_t *brush_ids;   /* per input brush: its id, how PREVIOUS's mesh is found */
    const uint64_t *brush_keys; /* per input brush: a key of what its mesh is made of but
                                   lightmaps (its faces, its entity's class, the
                                   materials): equal keys, equal meshes */
    const int64_t *entity_ids;  /* the same for the entities */
    const uint64_t *entity_keys;
    /* Per input entity: its box and colour (what the class's definition gives; the rest
     * from the built-in sizes and colours by class prefix), or NULL for the built-in ones
     * alone. Part of what entity_keys must tell apart. */
    const al_entity_look *entity_looks;
} al_scene_desc;

typedef struct al_scene al_scene;

typedef struct al_scene_stats {
    int faces;        /* drawn face polygons */
    int triangles;
    int edges;        /* outline segments */
    int entities;     /* with a box drawn */
    int portals;
    int leak_points;
    int lit_faces;    /* with lightmap coordinates (desc.rad) */
    int meshes_built; /* brushes and entities whose mesh was built for this scene */
    int meshes_kept;  /* those taken from the previous scene */
    double ms_build;
} al_scene_stats;

/* Builds the meshes of DESC into a new scene. The scene copies what it needs: DESC and
 * what it points to may be freed afterwards, except DESC->world, which must outlive the
 * scene (its PVS is asked every frame), and DESC->previous, which may go at once (the
 * meshes are shared, not borrowed). Any thread. Returns AL_ERR_NOMEM or AL_OK. */
al_status al_scene_build(const al_scene_desc *desc, al_scene **out);

/* Any thread; the meshes it shares stay with the scenes that still hold them. */
void al_scene_destroy(al_scene *scene);

void al_scene_get_stats(const al_scene *scene, al_scene_stats *out);

/* Bounds of everything drawn (brushes and entity boxes); false if the scene is empty. */
bool al_scene_bounds(const al_scene *scene, double mins[3], double maxs[3]);

/* Bounds of brush BRUSH or entity ENTITY (its brushes, or its box); false if none. */
bool al_scene_brush_bounds(const al_scene *scene, int brush, double mins[3], double maxs[3]);
bool al_scene_entity_bounds(const al_scene *scene, int entity, double mins[3],
                            double maxs[3]);

/* The polygons of brush BRUSH: how many faces it draws, and face I's points (clockwise seen
 * from the front) with their count in *COUNT and its face index within the brush in *FACE
 * (may be NULL). NULL for no such face. */
int al_scene_brush_face_count(const al_scene *scene, int brush);
const double (*al_scene_brush_face(const al_scene *scene, int brush, int i, int *count,
                                   int *face))[3];

typedef enum al_pick_kind {
    AL_PICK_NONE,
    AL_PICK_FACE,   /* a face of a brush */
    AL_PICK_ENTITY, /* a point entity's box */
} al_pick_kind;

typedef struct al_pick {
    al_pick_kind kind;
    int brush;     /* input brush index (faces), -1 otherwise */
    int face;      /* face index within the brush, -1 otherwise */
    int entity;    /* the entity owning the brush, or the point entity */
    double t;      /* distance along the ray */
    double point[3];
    double normal[3];
} al_pick;

enum {
    AL_PICK_SKIP_TOOLS = 1u << 0, /* ignore clip, trigger, hint and skip brushes */
    AL_PICK_SKIP_ENTITIES = 1u << 1,
};

/* The first face or entity box hit by the ray ORIGIN + t DIR (t >= 0). Returns false and
 * OUT->kind = AL_PICK_NONE if nothing is hit. FLAGS: AL_PICK_*. */
bool al_scene_pick(const al_scene *scene, const double origin[3], const double dir[3],
                   unsigned flags, al_pick *out);

/* What a pick passes through: the brushes and point entities whose byte is not 0 (one
 * byte per input brush, one per input entity; NULL: none). A zeroed mask hides nothing. */
typedef struct al_pick_mask {
    const uint8_t *brushes;
    int brush_count;
    const uint8_t *entities;
    int entity_count;
} al_pick_mask;

/* The same passing through what MASK hides (NULL: nothing), as the designer hid or locked
 * it. */
bool al_scene_pick_visible(const al_scene *scene, const double origin[3], const double dir[3],
                           unsigned flags, const al_pick_mask *mask, al_pick *out);

/* --- the GL renderer ----------------------------------------------------------------- */

enum {
    AL_OVERLAY_PORTALS = 1u << 0,     /* portals, translucent */
    AL_OVERLAY_LEAK = 1u << 1,        /* the leak path */
    AL_OVERLAY_PVS = 1u << 2,         /* faces in the camera leaf's PVS highlighted */
    AL_OVERLAY_CLUSTER = 1u << 3,     /* the camera leaf's faces and portals highlighted */
    AL_OVERLAY_ENTITIES = 1u << 4,    /* entity boxes (and the selected lights' reach) */
    AL_OVERLAY_TOOLS = 1u << 5,       /* clip, trigger and hint brushes, translucent */
    AL_OVERLAY_SPLITS = 1u << 6,      /* the split planes given to al_renderer_set_splits */
    AL_OVERLAY_LIGHT_RADII = 1u << 7, /* every light's reach, faint (with AL_OVERLAY_ENTITIES) */
    AL_OVERLAY_DEFAULT = AL_OVERLAY_LEAK | AL_OVERLAY_ENTITIES | AL_OVERLAY_TOOLS,
};

/* How much of a texture a 2D view's faint textures show over the background. */
#define AL_FAINT_TEXTURE_ALPHA 0.3f

typedef struct al_draw_options {
    unsigned overlays;  /* AL_OVERLAY_* */
    bool wireframe;     /* 3D: outlines over the faces */
    bool no_cull;       /* 3D: draw everything (no PVS or frustum culling) */
    double grid;        /* 2D: grid size in map units; 0: no grid */
    const int32_t *selected_brushes; /* input brush indices, drawn highlighted */
    int selected_brush_count;
    const int32_t *selected_entities; /* point entities drawn highlighted */
    int selected_entity_count;
    const int32_t (*selected_faces)[2]; /* (input brush, face within it) pairs, drawn
                                           highlighted in yellow */
    int selected_face_count;
    const uint8_t *hidden_brushes; /* one byte per input brush, not 0: not drawn (NULL:
                                      none hidden) */
    int hidden_brush_count;
    const uint8_t *hidden_entities; /* one byte per input entity, not 0: its point entity
                                       box not drawn (NULL: none hidden) */
    int hidden_entity_count;
    /* 2D: one RGBA per input brush (BRUSH_TINT_COUNT of them; NULL: none); where the alpha
     * is not 0 the brush's outline takes that colour (its layer's) unless it is selected. */
    const uint8_t (*brush_tints)[4];
    int brush_tint_count;
    double pvs_point[3]; /* where the PVS and cluster overlays look from (the 3D eye) */
    bool has_pvs_point;
    bool no_lightmap;    /* 3D: flat shading even where a lightmap is uploaded */
    bool no_textures;    /* 3D: the materials' flat colours even where textures are given */
    bool faint_textures; /* 2D: the faces nearest the viewer drawn textured, faintly
                            (AL_FAINT_TEXTURE_ALPHA over the background), under the
                            outlines; needs textures given */
    float background[3]; /* the clear colour, sRGB 0..1 */
    bool has_eye;        /* 2D: draw the 3D camera as a marker, at EYE looking along FORWARD */
    double eye[3], eye_forward[3];
    /* Tool guides: GUIDE_COUNT / 2 segments (pairs of points) in the tool colour (amber),
     * drawn over the map (in 3D also faintly through what hides them): the box being
     * drawn, the brushes being moved. */
    const double (*guides)[3];
    int guide_count;
    /* One RGBA colour per guide point, or NULL for the tool colour. The collision preview
     * draws its test boxes, paths, contact normals and agents this way. */
    const uint8_t (*guide_colours)[4];
} al_draw_options;

/* Zero options with overlays = AL_OVERLAY_DEFAULT, grid 16, and the
 * default background (a dark grey, #1c1d21). */
void al_draw_options_init(al_draw_options *opt);

typedef struct al_draw_stats {
    int faces_drawn;
    int faces_culled_pvs;     /* not in the PVS of the camera's leaf */
    int faces_culled_frustum; /* in the PVS but outside the view */
    int faces_culled_back;    /* in view, facing away from the eye (3D views) */
    int camera_leaf;          /* -1: outside the map or in solid (no PVS culling) */
    bool lightmapped;         /* lit faces took their light from the lightmap atlas */
    bool textured;            /* faces took their colour from the textures */
    double cpu_ms;            /* building the frame's draw lists and issuing them */
} al_draw_stats;

/* A framebuffer to draw in offscreen: RGBA8 colour, 24-bit depth (GL object names; 0 for
 * none). */
typedef struct al_framebuffer {
    unsigned fbo, colour, depth;
    int width, height;
} al_framebuffer;

/* Makes FB, WIDTH x HEIGHT, in the current context, binds it and sets the viewport to it.
 * False if the framebuffer is incomplete (FB then holds nothing). */
bool al_framebuffer_create(al_framebuffer *fb, int width, int height);

/* Deletes FB's objects (the context it was made in must be current) and zeroes it. */
void al_framebuffer_destroy(al_framebuffer *fb);

typedef struct al_renderer al_renderer;

/* Compiles the shaders. Needs a current OpenGL 3.3 core context. On failure returns NULL
 * and writes the reason (for example the GL version found) into ERROR. */
al_renderer *al_renderer_create(char *error, size_t error_size);

/* The same, for a context that shares objects with SHARE's (as the contexts of a GTK
 * display do): the two renderers keep the meshes of their scenes in one store, so that a
 * mesh both draw is uploaded and held once (NULL: a store of its own). Either may be
 * destroyed first. */
al_renderer *al_renderer_create_sharing(const al_renderer *share, char *error, size_t error_size);

/* Frees the GL objects; the same context must be current. NULL is a no-op. */
void al_renderer_destroy(al_renderer *r);

/* The split polygons that AL_OVERLAY_SPLITS draws, as outlines coloured by depth (they
 * are copied; NULL clears them). Needs the renderer's context current. Returns false if
 * memory runs out (then none are drawn). */
bool al_renderer_set_splits(al_renderer *renderer, const al_block_splits *splits);

/* Uploads SCENE (NULL: nothing to draw): the meshes it shares with scenes given before
 * stay where they are, only the new ones are uploaded, and those no longer drawn give up
 * their room. The renderer borrows SCENE for culling and selection until the next call:
 * keep it alive until then. The lightmap uploaded before stays in use while its size is
 * the new scene's atlas size: a scene built from the one before keeps the lightmap places
 * of the faces it kept (al-rad.h), so set a new scene and the lightmap of its solver
 * together (between two frames). */
void al_renderer_set_scene(al_renderer *r, const al_scene *scene);

/* Vertices uploaded to the renderer's mesh store so far, by it and by the renderers that
 * share the store (for tests and benchmarks: a scene built from the one before uploads
 * only its new meshes). */
int64_t al_renderer_uploaded_vertices(const al_renderer *r);

/* Converts the light levels of MAP to the texels the renderer uploads: RGBA8, WIDTH *
 * HEIGHT * 4 bytes into RGBA, byte = clamp(level / 2, 0, 255), rounded (255 is level 510;
 * level 128 shows a material's colour as is), alpha 255. Any thread: the editor converts
 * on its worker. */
void al_lightmap_to_rgba8(const al_rad_lightmap *map, uint8_t *rgba);

/* Uploads (or replaces) the lightmap atlas of the current scene, which must have been
 * built with the al_rad that made MAP: lit faces (desc.rad) are then drawn as material
 * colour x level / 128, clamped to white. An atlas of the size uploaded before replaces
 * its texels in place (glTexSubImage2D), so that a solver's snapshots can stream in.
 * NULL removes it. Returns AL_ERR_NOMEM, AL_ERR_INVALID_ARGUMENT (an empty atlas, or
 * larger than GL_MAX_TEXTURE_SIZE; the faces are then drawn unlit) or AL_OK. */
al_status al_renderer_set_lightmap(al_renderer *r, const al_rad_lightmap *map);

/* The same with texels converted by al_lightmap_to_rgba8 (WIDTH * HEIGHT * 4 bytes). */
al_status al_renderer_set_lightmap_rgba8(al_renderer *r, int width, int height,
                                         const uint8_t *rgba);

/* A texture image for a material. */
typedef struct al_texture_image {
    const char *name;    /* the material it is for (found case-insensitively, as Quake) */
    int width, height;   /* in texels */
    const uint8_t *rgba; /* WIDTH * HEIGHT * 4 bytes, sRGB, rows from the top */
} al_texture_image;

/* Replaces the textures with COUNT IMAGES (copied; NULL or 0: none, faces are flat colours
 * again). Once given, 3D views (unless al_draw_options.no_textures) draw every face but
 * tool faces with its material's texture, found by the material's name: its texture
 * coordinates (al_face_desc.texture_axes) divided by the image's size, repeating, with
 * mipmaps; multiplied by the lightmap as the flat colour is (level 128 shows the texels as
 * they are), or by the fixed shading; sky and liquid faces full bright. A material without
 * an image shows a magenta checker, eight squares to 64 texels. Returns AL_ERR_NOMEM,
 * AL_ERR_INVALID_ARGUMENT (an image without name, texels or size, or more images than
 * GL_MAX_ARRAY_TEXTURE_LAYERS - 1; then no textures are shown) or AL_OK. A nonzero KEY
 * names the set of images: a renderer sharing a store (al_renderer_create_sharing) with
 * one that holds a set of that key uses its copy instead of making another (the views of
 * a window show the same textures), so a key must not name other images while any
 * renderer holds it; 0: a copy of its own. */
al_status al_renderer_set_textures(al_renderer *r, const al_texture_image *images, int count,
                                   uint64_t key);

/* Texture sets made (not shared) by the renderer and those sharing its store so far, for
 * the tests. */
int64_t al_renderer_texture_sets_made(const al_renderer *r);

/* Whether the renderer holds a texture for material NAME. */
bool al_renderer_has_texture(const al_renderer *r, const char *name);

/* The checker drawn for a material without a texture, SIZE x SIZE RGBA8 texels into RGBA
 * (for tests and previews). */
void al_texture_checker(int size, uint8_t *rgba);

/* Draws the scene for CAM into the bound framebuffer's viewport (cam->width x
 * cam->height), clearing it first. STATS may be NULL. */
void al_renderer_draw(al_renderer *r, const al_camera *cam, const al_draw_options *opt,
                      al_draw_stats *stats);

#endif
