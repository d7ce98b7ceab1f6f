/* The GL renderer (al-render.h): keeps the meshes of the scenes it is given in its mesh
 * store (uploading only those it has not seen: after an edit, the brushes it changed;
 * renderers made sharing one hold them once),
 * then per frame decides which faces to draw and issues a handful of draw calls.
 *
 * Culling, 3D views: the faces the vis leaves list are drawn only if one of the leaves in
 * the PVS of the eye's leaf lists them (a stamp per face marks them, so nothing is cleared
 * per frame); every face left is tested against the view frustum by its box. Faces no leaf
 * lists (brush entities, liquids, triggers) are only frustum-culled. The surviving faces
 * become ranges of the vertex buffer (merged when adjacent) for glMultiDrawArrays. 2D views
 * draw outlines only, frustum-culled the same way.
 *
 * Passes, 3D: opaque faces (back faces culled, pushed back by a polygon offset so outlines
 * win the depth test), optional outlines, entities, highlights (PVS, cluster, selection)
 * blended over the faces they cover, then the translucent layers without depth writes:
 * tool brushes, portals, the leak path (also faintly through walls).
 *
 * Lighting: one RGBA8 texture holds the scene's lightmap atlas (al_renderer_set_lightmap);
 * a 3D frame that shows it draws every pass with the lightmap variant of the program, and
 * each pass drawn "lit" takes the light of faces with lightmap coordinates from it, so
 * highlights blend over lit faces as they do over flat ones. Other frames use the plain
 * variant, unchanged from before lightmaps. Snapshots of a running solver replace the
 * texels in place.
 * All functions need the renderer's GL context current. */
#include "gl/mesh-store.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct gl_buffer {
    GLuint vao, vbo;
    int32_t count; /* vertices */
    bool lines;    /* of al_line_vertex; else al_vertex */
} gl_buffer;

typedef struct range_list {
    GLint *first;
    GLsizei *count;
    int n, cap;
} range_list;

/* A texture the renderer holds: its name (the material it is for) and size, and its layer
 * of the texture array. */
typedef struct held_texture {
    char *name;
    int width, height;
    int layer;
} held_texture;

/* One array texture and what it holds: a renderer's own, or shared by the renderers of a
 * store that were given the same key (al_renderer_set_textures), listed in the store. */
struct gl_texture_set {
    int refs;
    uint64_t key; /* 0: the renderer's own, not listed */
    GLuint texture;
    int layer_size, layer_count;
    held_texture *held; /* sorted by name, case-insensitively */
    int held_count;
    gl_texture_set *next; /* in the store's list */
};

struct al_renderer {
    al_program programs[AL_PROGRAM_VARIANTS]; /* by AL_PROGRAM_* bits */
    const al_program *prog;                   /* the one this frame uses */
    gl_mesh_store *store;                     /* brush and entity meshes, maybe shared */
    GLuint store_vao[3];    /* this context's vertex arrays over the store's buffers */
    uint32_t store_made[3]; /* the buffers they were set up over (gl_arena.made) */
    uint64_t *meshes;       /* the serials of the current scene's takes */
    int mesh_count, mesh_cap;
    gl_buffer portal_tris, portal_lines, leak, grid, splits, marker, guides;
    bool portals_made;             /* for the current scene (made when first drawn) */
    const al_scene *scene; /* borrowed, see al_renderer_set_scene */
    /* Where the current scene's meshes are, by input brush and by entity mesh: the first
     * vertex in the store's buffers (-1: not drawn). */
    int32_t *brush_tri, *brush_line;
    int32_t *entity_tri, *entity_line, *entity_radius;
    uint32_t *brush_stamp; /* per scene brush: the pass whose frustum may hold it */
    uint32_t cull_pass;
    uint32_t *stamp;      /* per scene face: the pass that found it in the PVS */
    uint32_t *leaf_stamp; /* per scene face: the pass that found it in the eye's leaf */
    uint32_t *brush_pvs;  /* per scene brush: the pass that found a face of it in the PVS */
    uint8_t *brush_listed; /* per scene brush: 1 if some vis leaf lists each of its faces */
    uint32_t pvs_pass;    /* of the stamps made last */
    int pvs_leaf;         /* the vis leaf they were made for; -1: none */
    double pvs_eye[3];    /* where the eye was when the current scene's PVS was last used */
    bool pvs_eye_set;
    /* Per scene face, for a scene without a PVS that follows one with it (an edit's
     * collision, before its portals): the faces that may be seen from CARRIED_EYE
     * (carry_pvs). NULL: none. */
    uint8_t *carried;
    double carried_eye[3];
    int32_t *leaves; /* scratch for the PVS query */
    int leaf_cap;
    range_list opaque, opaque_edges, tools, pvs, cluster, scratch;
    range_list tinted;        /* 2D: the outlines of brushes with a tint, one colour at a time */
    al_vertex *line_vertices; /* scratch for the lines made per frame (grid, guides) */
    int line_cap;
    GLuint lightmap;            /* the atlas texture, 0 until one is uploaded */
    int lightmap_w, lightmap_h; /* its size in texels */
    bool lightmap_valid;        /* uploaded for the current scene */
    bool lightmap_on;           /* this frame's lit passes use it */
    uint8_t *lightmap_bytes;    /* conversion scratch for al_renderer_set_lightmap */
    size_t lightmap_bytes_cap;
    /* Textures: one array texture, every image resampled to LAYER_SIZE squared with its
     * mipmaps; layer 0 is the checker drawn for materials without an image. A table of
     * per-material texels (1 / width, 1 / height, layer, full bright), material + 1 at
     * texel (i % AL_MATERIAL_ROW, i / AL_MATERIAL_ROW), maps the current scene's vertices
     * to them; it is made again when the scene or the textures change. */
    gl_texture_set *tex; /* NULL: none given */
    GLuint material_table;
    bool textures_valid; /* al_renderer_set_textures was given a set */
    bool textures_on;    /* this frame's lit passes show them */
    bool table_valid;    /* the table is for the current scene and textures */
};

/* Texels per row of the material table (the shader's constant too). */
enum { AL_MATERIAL_ROW = 1024 };

void al_draw_options_init(al_draw_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->overlays = AL_OVERLAY_DEFAULT;
    opt->grid = 16;
    opt->background[0] = 0.11f;
    opt->background[1] = 0.115f;
    opt->background[2] = 0.13f;
}

static void buffer_init(gl_buffer *b, bool lines)
{
    glGenVertexArrays(1, &b->vao);
    glGenBuffers(1, &b->vbo);
    if (lines)
        gl_line_layout(b->vao, b->vbo);
    else
        gl_vertex_layout(b->vao, b->vbo);
    b->count = 0;
    b->lines = lines;
}

/* COUNT vertices V: al_line_vertex for a buffer of lines, else al_vertex. */
static void buffer_upload(gl_buffer *b, const void *v, int32_t count, GLenum usage)
{
    size_t size = b->lines ? sizeof(al_line_vertex) : sizeof(al_vertex);
    glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr) count * (GLsizeiptr) size, v, usage);
    b->count = count;
}

static void buffer_destroy(gl_buffer *b)
{
    if (b->vbo) glDeleteBuffers(1, &b->vbo);
    if (b->vao) glDeleteVertexArrays(1, &b->vao);
    b->vbo = b->vao = 0;
}

static bool ranges_reserve(range_list *r, int need)
{
    if (need <= r->cap) return true;
    int cap = r->cap ? r->cap : 256;
    while (cap < need) cap *= 2;
    GLint *f = realloc(r->first, (size_t) cap * sizeof *f);
    if (!f) return false;
    r->first = f;
    GLsizei *c = realloc(r->count, (size_t) cap * sizeof *c);
    if (!c) return false;
    r->count = c;
    r->cap = cap;
    return true;
}

/* Appends [FIRST, FIRST + COUNT), merged with the last range when adjacent. */
static void ranges_add(range_list *r, int32_t first, int32_t count)
{
    if (count <= 0) return;
    if (r->n > 0 && r->first[r->n - 1] + r->count[r->n - 1] == first) {
        r->count[r->n - 1] += count;
        return;
    }
    if (!ranges_reserve(r, r->n + 1)) return; /* out of memory: that face is not drawn */
    r->first[r->n] = first;
    r->count[r->n] = count;
    r->n++;
}

static void ranges_free(range_list *r)
{
    free(r->first);
    free(r->count);
    memset(r, 0, sizeof *r);
}

al_renderer *al_renderer_create(char *error, size_t error_size)
{
    return al_renderer_create_sharing(NULL, error, error_size);
}

al_renderer *al_renderer_create_sharing(const al_renderer *share, char *error, size_t error_size)
{
    if (error && error_size) error[0] = 0;
    char scratch[8];
    if (!error) error = scratch, error_size = sizeof scratch;
    if (epoxy_gl_version() < 33) {
        snprintf(error, error_size, "OpenGL 3.3 is needed, the context has %d.%d",
                 epoxy_gl_version() / 10, epoxy_gl_version() % 10);
        return NULL;
    }
    al_renderer *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    for (unsigned v = 0; v < AL_PROGRAM_VARIANTS; v++) {
        if (!al_program_build(&r->programs[v], v, error, error_size)) {
            for (unsigned k = 0; k < v; k++) al_program_destroy(&r->programs[k]);
            free(r);
            return NULL;
        }
    }
    r->prog = &r->programs[0];
    gl_buffer *all[] = {&r->portal_tris, &r->portal_lines, &r->leak,  &r->grid,
                        &r->splits,      &r->marker,       &r->guides};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        buffer_init(all[i], all[i] == &r->portal_lines || all[i] == &r->leak);
    r->store = share ? gl_mesh_store_ref(share->store) : gl_mesh_store_new();
    if (!r->store) {
        snprintf(error, error_size, "out of memory");
        al_renderer_destroy(r);
        return NULL;
    }
    glGenVertexArrays(3, r->store_vao);
    return r;
}

static void forget_textures(al_renderer *r);

void al_renderer_destroy(al_renderer *r)
{
    if (!r) return;
    gl_buffer *all[] = {&r->portal_tris, &r->portal_lines, &r->leak,  &r->grid,
                        &r->splits,      &r->marker,       &r->guides};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) buffer_destroy(all[i]);
    for (int i = 0; r->store && i < r->mesh_count; i++)
        gl_mesh_store_release(r->store, r->meshes[i]);
    free(r->meshes);
    if (r->store) forget_textures(r);
    gl_mesh_store_unref(r->store);
    if (r->store_vao[0]) glDeleteVertexArrays(3, r->store_vao);
    free(r->brush_tri), free(r->brush_line), free(r->brush_stamp);
    free(r->entity_tri), free(r->entity_line), free(r->entity_radius);
    if (r->lightmap) glDeleteTextures(1, &r->lightmap);
    free(r->lightmap_bytes);
    if (r->material_table) glDeleteTextures(1, &r->material_table);
    for (unsigned v = 0; v < AL_PROGRAM_VARIANTS; v++) al_program_destroy(&r->programs[v]);
    range_list *lists[] = {&r->opaque,  &r->opaque_edges, &r->tools, &r->pvs,
                           &r->cluster, &r->scratch,      &r->tinted};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) ranges_free(lists[i]);
    free(r->stamp);
    free(r->leaf_stamp);
    free(r->brush_pvs);
    free(r->brush_listed);
    free(r->leaves);
    free(r->carried);
    free(r->line_vertices);
    free(r);
}

bool al_renderer_set_splits(al_renderer *r, const al_block_splits *s)
{
    int32_t count = 0;
    for (int i = 0; s && i < s->count; i++) count += 2 * (s->first[i + 1] - s->first[i]);
    al_vertex *v = count ? calloc((size_t) count, sizeof *v) : NULL;
    if (count && !v) {
        buffer_upload(&r->splits, NULL, 0, GL_DYNAMIC_DRAW);
        return false;
    }
    int32_t n = 0;
    for (int i = 0; s && i < s->count; i++) {
        /* Shallow splits bright yellow, deeper ones toward a dim cyan. */
        float f = fminf((float) s->depth[i] / 16.0f, 1.0f);
        uint8_t colour[4] = {(uint8_t) (255 * (1 - f) + 40 * f), (uint8_t) (220 * (1 - f) + 170 * f),
                             (uint8_t) (60 * (1 - f) + 200 * f), (uint8_t) (230 - 90 * f)};
        int a = s->first[i], b = s->first[i + 1];
        for (int k = a; k < b; k++) {
            const double *p0 = s->points[k], *p1 = s->points[k + 1 < b ? k + 1 : a];
            for (int e = 0; e < 2; e++, n++) {
                const double *p = e ? p1 : p0;
                for (int c = 0; c < 3; c++) v[n].pos[c] = (float) p[c];
                memcpy(v[n].colour, colour, sizeof colour);
                v[n].lightmap[0] = v[n].lightmap[1] = AL_NO_LIGHTMAP;
            }
        }
    }
    buffer_upload(&r->splits, v, n, GL_DYNAMIC_DRAW);
    free(v);
    return true;
}

/* Room for the current scene's mesh places; false if memory ran out. */
static bool place_tables(al_renderer *r, const al_scene *s)
{
    free(r->brush_tri), free(r->brush_line), free(r->brush_stamp);
    free(r->entity_tri), free(r->entity_line), free(r->entity_radius);
    size_t nb = (size_t) s->brush_count + 1, ne = (size_t) s->entity_count + 1;
    r->brush_tri = malloc(nb * sizeof *r->brush_tri);
    r->brush_line = malloc(nb * sizeof *r->brush_line);
    r->brush_stamp = calloc(nb, sizeof *r->brush_stamp);
    r->cull_pass = 0;
    r->entity_tri = malloc(ne * sizeof *r->entity_tri);
    r->entity_line = malloc(ne * sizeof *r->entity_line);
    r->entity_radius = malloc(ne * sizeof *r->entity_radius);
    return r->brush_tri && r->brush_line && r->brush_stamp && r->entity_tri && r->entity_line &&
           r->entity_radius;
}

static int compare_ids(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Leaves more than this near an edit: the PVS is not carried (see carry_pvs). */
#define CARRY_MAX_LEAVES 256

/* Adds the vis leaves of W touching M's box (with a unit of slack) to NEAR (*COUNT used);
 * false if they would pass CARRY_MAX_LEAVES. */
static bool add_near(const al_world *w, const al_mesh *m, int32_t *near, int *count)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = m->mins[k] - 1, hi[k] = m->maxs[k] + 1;
    int n = al_world_vis_leaves_in_box(w, lo, hi, near + *count, CARRY_MAX_LEAVES - *count);
    if (n < 0 || *count + n > CARRY_MAX_LEAVES) return false;
    *count += n;
    return true;
}

/* The changed brushes' boxes in carry_pvs, as bounding spheres. */
typedef struct carry_box {
    double centre[3], radius;
} carry_box;

/* Adds M's box (with a unit of slack) to *BOXES (*COUNT used of *CAP); false if memory ran
 * out. */
static bool add_box(carry_box **boxes, int *count, int *cap, const al_mesh *m)
{
    if (*count == *cap) {
        int c = *cap ? *cap * 2 : 16;
        carry_box *grown = realloc(*boxes, (size_t) c * sizeof *grown);
        if (!grown) return false;
        *boxes = grown, *cap = c;
    }
    carry_box *b = &(*boxes)[(*count)++];
    double r2 = 0;
    for (int k = 0; k < 3; k++) {
        b->centre[k] = 0.5 * (m->mins[k] + m->maxs[k]);
        double h = 0.5 * (m->maxs[k] - m->mins[k]) + 1;
        r2 += h * h;
    }
    b->radius = sqrt(r2);
    return true;
}

/* Whether a line of sight from EYE that meets box B may reach the face box FMIN..FMAX: the
 * face's bounding sphere meets the circular cone from EYE around B's bounding sphere
 * (every point such a line reaches lies in that cone). */
static bool in_cone(const double eye[3], const carry_box *b, const float fmin[3],
                    const float fmax[3])
{
    double d[3], v[3], fr2 = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = b->centre[k] - eye[k];
        double c = 0.5 * ((double) fmin[k] + fmax[k]), h = 0.5 * ((double) fmax[k] - fmin[k]);
        v[k] = c - eye[k];
        fr2 += h * h;
    }
    double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double vl = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), fr = sqrt(fr2) + 1;
    if (dl <= b->radius || vl <= fr) return true; /* the eye in either sphere: any direction */
    double cosine = (d[0] * v[0] + d[1] * v[1] + d[2] * v[2]) / (dl * vl);
    double apart = acos(cosine < -1 ? -1 : cosine > 1 ? 1 : cosine);
    return apart <= asin(b->radius / dl) + asin(fr / vl) + 1e-6;
}

/* What of NEW (a scene whose world has no PVS yet) may be seen from the eye where OLD (the
 * scene drawn until now, with a PVS) was last drawn from: per NEW face, 1 to draw; NULL if
 * it cannot be told. Only the brushes whose meshes differ changed the world, all within
 * their old and new boxes R. A line of sight in the new world that misses R was clear in
 * the old one, so it ends in the old PVS of the eye's leaf. One that meets R is clear in
 * the old world beyond the last point where it leaves R, which lies in a leaf touching R,
 * so it ends in that leaf's old PVS; and it enters R from a leaf touching R that it
 * reaches clear of R, one in the eye's old PVS: if the eye sees no leaf near R, no line
 * meets R. And what such a line reaches lies in the cone from the eye through R. The faces
 * the eye's old PVS lists, those the other leaves list that lie in such a cone, those no
 * leaf lists, and those of changed brushes are drawn; the rest cannot be seen. */
static uint8_t *carry_pvs(const al_renderer *r, const al_scene *old, const al_scene *new)
{
    if (!old || !new || new->in_leaves || !old->in_leaves || !old->world || !r->pvs_eye_set ||
        !old->brush_ids || !new->brush_ids || !r->leaves)
        return NULL;
    const al_world *w = old->world;
    al_vis_stats vs;
    al_world_vis_stats(w, &vs);
    int leaf_count = al_world_vis_leaf_count(w);
    if (vs.level == AL_PVS_NONE || leaf_count <= 0 || al_world_vis_leaf_at(w, r->pvs_eye) < 0)
        return NULL;
    uint8_t *carried = calloc((size_t) new->face_count + 1, 1);
    uint8_t *kept = calloc((size_t) new->brush_count + 1, 1);
    int32_t *map = malloc(((size_t) old->brush_count + 1) * sizeof *map); /* old -> new */
    int64_t(*ids)[2] = malloc(((size_t) new->brush_count + 1) * sizeof *ids);
    uint8_t *seen = calloc((size_t) leaf_count + 1, 1);
    int32_t *near = malloc(CARRY_MAX_LEAVES * sizeof *near);
    carry_box *boxes = NULL;
    int box_count = 0, box_cap = 0;
    bool ok = carried && kept && map && ids && seen && near;
    /* Old brushes to new ones by id; a brush is unchanged when it keeps its mesh. */
    for (int32_t b = 0; ok && b < new->brush_count; b++)
        ids[b][0] = new->brush_ids[b], ids[b][1] = b;
    if (ok) qsort(ids, (size_t) new->brush_count, sizeof *ids, compare_ids);
    /* The boxes the changed brushes left and took, and the leaves they touch. */
    int near_count = 0;
    for (int32_t o = 0; ok && o < old->brush_count; o++) {
        int64_t key[2] = {old->brush_ids[o], 0};
        const int64_t(*hit)[2] =
            bsearch(key, ids, (size_t) new->brush_count, sizeof *ids, compare_ids);
        int32_t nb = hit ? (int32_t) (*hit)[1] : -1;
        map[o] = nb >= 0 && old->brushes[o] && new->brushes[nb] == old->brushes[o] ? nb : -1;
        if (map[o] >= 0)
            kept[nb] = 1;
        else if (old->brushes[o])
            ok = add_near(w, old->brushes[o], near, &near_count) &&
                 add_box(&boxes, &box_count, &box_cap, old->brushes[o]);
    }
    for (int32_t nb = 0; ok && nb < new->brush_count; nb++) {
        if (kept[nb] || !new->brushes[nb]) continue;
        for (int32_t f = new->brush_first_face[nb]; f < new->brush_first_face[nb + 1]; f++)
            carried[f] = 1;
        ok = add_near(w, new->brushes[nb], near, &near_count) &&
             add_box(&boxes, &box_count, &box_cap, new->brushes[nb]);
    }
    /* The leaves that may be seen: from the eye's, and from each leaf near a change. */
    if (ok) {
        int n = al_world_leaves_visible_from(w, r->pvs_eye, r->leaves, r->leaf_cap);
        ok = n > 0 && n <= r->leaf_cap;
        for (int i = 0; ok && i < n; i++) seen[r->leaves[i]] = 1;
    }
    /* (A line from the eye enters R from a leaf it reaches clear of R: one in the eye's
     * PVS. When the eye sees no leaf near R, no line of sight meets R.) */
    bool reaches = false;
    for (int i = 0; ok && i < near_count && !reaches; i++) reaches = seen[near[i]];
    /* (2: seen only from a leaf near a change.) */
    for (int i = 0; ok && reaches && i < near_count; i++)
        for (int l = 0; l < leaf_count; l++)
            if (!seen[l] && al_world_leaf_sees(w, near[i], l)) seen[l] = 2;
    for (int l = 0; ok && l < leaf_count; l++) {
        if (!seen[l]) continue;
        int count;
        const al_leaf_face *lf = al_world_leaf_faces(w, l, &count);
        for (int i = 0; i < count; i++) {
            int32_t b = lf[i].brush;
            const al_mesh_face *mf = NULL;
            int f = b >= 0 && b < old->brush_count && map[b] >= 0
                        ? al_scene_face_index(old, b, lf[i].face, &mf)
                        : -1;
            if (f < 0) continue;
            bool reached = seen[l] == 1;
            for (int k = 0; !reached && k < box_count; k++)
                reached = in_cone(r->pvs_eye, &boxes[k], mf->mins, mf->maxs);
            /* A kept mesh keeps its faces' order. */
            if (reached)
                carried[new->brush_first_face[map[b]] + (f - old->brush_first_face[b])] = 1;
        }
    }
    /* Faces no leaf lists are always drawn. */
    for (int32_t b = 0; ok && b < old->brush_count; b++)
        for (int32_t f = old->brush_first_face[b]; map[b] >= 0 && f < old->brush_first_face[b + 1];
             f++)
            if (!old->in_leaves[f])
                carried[new->brush_first_face[map[b]] + (f - old->brush_first_face[b])] = 1;
    free(kept), free(ids), free(seen), free(near), free(map), free(boxes);
    if (!ok) {
        free(carried);
        return NULL;
    }
    return carried;
}

/* Takes M from the store for the current scene; NULL if it is not drawn (memory ran out). */
static const gl_mesh_slot *take_mesh(al_renderer *r, const al_mesh *m)
{
    if (r->mesh_count >= r->mesh_cap) return NULL; /* it could not be given back */
    const gl_mesh_slot *slot = gl_mesh_store_take(r->store, m);
    if (slot) r->meshes[r->mesh_count++] = m->serial;
    return slot;
}

void al_renderer_set_scene(al_renderer *r, const al_scene *s)
{
    free(r->carried);
    r->carried = carry_pvs(r, r->scene, s);
    if (r->carried) memcpy(r->carried_eye, r->pvs_eye, sizeof r->carried_eye);
    r->pvs_eye_set = false;
    r->scene = s;
    r->table_valid = false;
    r->portals_made = false;
    free(r->stamp);
    free(r->leaf_stamp);
    free(r->leaves);
    free(r->brush_pvs);
    free(r->brush_listed);
    r->stamp = r->leaf_stamp = r->brush_pvs = NULL;
    r->brush_listed = NULL;
    r->leaves = NULL;
    r->leaf_cap = 0;
    r->pvs_pass = 0;
    r->pvs_leaf = -1;
    /* The meshes the scene shares with the last one (or with another renderer's) stay
     * where they are: the new scene's are taken before the last one's are let go of. */
    int64_t uploaded = r->store->uploaded;
    uint64_t *held = r->meshes;
    int held_count = r->mesh_count;
    r->meshes = NULL;
    r->mesh_count = r->mesh_cap = 0;
    if (s && !place_tables(r, s)) s = r->scene = NULL;
    if (s) {
        gl_mesh_store_reserve(r->store, (const al_mesh *const *) s->brushes, s->brush_count);
        gl_mesh_store_reserve(r->store, (const al_mesh *const *) s->entities, s->entity_count);
        r->mesh_cap = s->brush_count + s->entity_count;
        r->meshes = malloc(((size_t) r->mesh_cap + 1) * sizeof *r->meshes);
        if (!r->meshes) r->mesh_cap = 0;
    }
    for (int32_t b = 0; s && b < s->brush_count; b++) {
        const gl_mesh_slot *slot = s->brushes[b] ? take_mesh(r, s->brushes[b]) : NULL;
        r->brush_tri[b] = slot ? slot->tri : -1;
        r->brush_line[b] = slot ? slot->line : -1;
    }
    for (int32_t e = 0; s && e < s->entity_count; e++) {
        const gl_mesh_slot *slot = take_mesh(r, s->entities[e]);
        r->entity_tri[e] = slot ? slot->tri : -1;
        r->entity_line[e] = slot ? slot->line : -1;
        r->entity_radius[e] = slot ? slot->radius : -1;
    }
    for (int i = 0; i < held_count; i++) gl_mesh_store_release(r->store, held[i]);
    free(held);
    gl_mesh_store_tidy(r->store);
    /* What another context will draw from: sent on its way (shared objects' changes are
     * seen in other contexts once flushed). */
    if (r->store->uploaded != uploaded && r->store->refs > 1) glFlush();
    buffer_upload(&r->portal_tris, NULL, 0, GL_STATIC_DRAW);
    buffer_upload(&r->portal_lines, NULL, 0, GL_STATIC_DRAW);
    if (!s) {
        buffer_upload(&r->leak, NULL, 0, GL_STATIC_DRAW);
        return;
    }
    buffer_upload(&r->leak, s->leak_lines, s->leak_line_count, GL_STATIC_DRAW);
    r->stamp = calloc((size_t) s->face_count + 1, sizeof *r->stamp);
    r->leaf_stamp = calloc((size_t) s->face_count + 1, sizeof *r->leaf_stamp);
    r->brush_pvs = calloc((size_t) s->brush_count + 1, sizeof *r->brush_pvs);
    r->brush_listed = calloc((size_t) s->brush_count + 1, 1);
    for (int32_t b = 0; s->in_leaves && r->brush_listed && b < s->brush_count; b++) {
        r->brush_listed[b] = 1;
        for (int32_t f = s->brush_first_face[b]; f < s->brush_first_face[b + 1]; f++)
            if (!s->in_leaves[f]) r->brush_listed[b] = 0;
    }
    if (s->world) {
        r->leaf_cap = al_world_vis_leaf_count(s->world);
        r->leaves = malloc(((size_t) r->leaf_cap + 1) * sizeof *r->leaves);
        if (!r->leaves) r->leaf_cap = 0;
    }
}

int64_t al_renderer_uploaded_vertices(const al_renderer *r)
{
    return r->store->uploaded;
}

/* The portals of the scene's world, made the first time a frame draws them. */
static void make_portals(al_renderer *r)
{
    if (r->portals_made || !r->scene) return;
    r->portals_made = true;
    al_vertex *tris = NULL;
    al_line_vertex *lines = NULL;
    int32_t tri_count = 0, line_count = 0;
    if (r->scene->world &&
        al_scene_portal_mesh(r->scene->world, &tris, &tri_count, &lines, &line_count)) {
        buffer_upload(&r->portal_tris, tris, tri_count, GL_STATIC_DRAW);
        buffer_upload(&r->portal_lines, lines, line_count, GL_STATIC_DRAW);
    }
    free(tris);
    free(lines);
}

/* The six planes of the view frustum from MVP (column-major), as a x + b y + c z + d >= 0
 * inside. */
static void frustum_planes(const float *m, float planes[6][4])
{
    for (int i = 0; i < 3; i++) {
        for (int s = 0; s < 2; s++) {
            float sign = s ? -1.0f : 1.0f;
            for (int k = 0; k < 4; k++) planes[2 * i + s][k] = m[4 * k + 3] + sign * m[4 * k + i];
        }
    }
}

static bool box_outside(const float planes[6][4], const float mn[3], const float mx[3])
{
    for (int p = 0; p < 6; p++) {
        const float *pl = planes[p];
        float x = pl[0] > 0 ? mx[0] : mn[0], y = pl[1] > 0 ? mx[1] : mn[1],
              z = pl[2] > 0 ? mx[2] : mn[2];
        if (pl[0] * x + pl[1] * y + pl[2] * z + pl[3] < 0) return true;
    }
    return false;
}

static bool box_outside_d(const float planes[6][4], const double mn[3], const double mx[3])
{
    const float lo[3] = {(float) mn[0], (float) mn[1], (float) mn[2]};
    const float hi[3] = {(float) mx[0], (float) mx[1], (float) mx[2]};
    return box_outside(planes, lo, hi);
}

static bool node_outside(const void *planes, const double mn[3], const double mx[3])
{
    return box_outside_d((const float (*)[4]) planes, mn, mx);
}

/* Marks the brushes whose tree boxes the frustum PLANES may hold, for in_frustum; false
 * if the scene has no tree (then every brush is tested on its own). Walking the tree
 * reads only the boxes near the view: a big map's frame does not touch every face. */
static bool mark_frustum(al_renderer *r, const float planes[6][4])
{
    if (++r->cull_pass == 0) { /* wrapped: old marks could match again */
        memset(r->brush_stamp, 0, ((size_t) r->scene->brush_count + 1) * sizeof *r->brush_stamp);
        r->cull_pass = 1;
    }
    return al_scene_bvh_mark(r->scene, node_outside, planes, r->brush_stamp, r->cull_pass);
}

static void set_pass(al_renderer *r, float lit, const float tint[4], const float over[4])
{
    static const float one[4] = {1, 1, 1, 1}, none[4] = {0, 0, 0, 0};
    glUniform1f(r->prog->u_lit, lit);
    if (r->lightmap_on) glUniform1f(r->prog->u_use_lightmap, lit > 0 ? 1.0f : 0.0f);
    if (r->textures_on) glUniform1f(r->prog->u_use_textures, lit > 0 ? 1.0f : 0.0f);
    glUniform4fv(r->prog->u_tint, 1, tint ? tint : one);
    glUniform4fv(r->prog->u_over, 1, over ? over : none);
}

/* Draws L's ranges of the store's buffer A (one of its three), through this context's
 * vertex array over it, set up again when the store replaced the buffer. */
static void draw_ranges(al_renderer *r, const gl_arena *a, GLenum mode, const range_list *l)
{
    if (l->n == 0 || a->end == 0) return;
    int k = a == &r->store->tris ? 0 : a == &r->store->lines ? 1 : 2;
    if (r->store_made[k] != a->made) {
        /* (Not by name: another context may have deleted the old one and made a buffer
         * that got its name, while this context's vertex array still holds the old.) */
        if (k == 0)
            gl_vertex_layout(r->store_vao[k], a->vbo);
        else
            gl_line_layout(r->store_vao[k], a->vbo);
        r->store_made[k] = a->made;
    }
    if (k != 0) gl_line_defaults();
    glBindVertexArray(r->store_vao[k]);
    glMultiDrawArrays(mode, l->first, l->count, l->n);
}

static void draw_all(const gl_buffer *b, GLenum mode)
{
    if (b->count == 0) return;
    if (b->lines) gl_line_defaults();
    glBindVertexArray(b->vao);
    glDrawArrays(mode, 0, b->count);
}

/* Stamps the faces of the eye's PVS (and of its own leaf) with a new pass, unless the eye
 * is in the leaf the stamps were made for (a PVS is a leaf's: its stamps hold until the
 * eye leaves it or the scene changes); returns the eye's vis leaf or -1. */
static int stamp_pvs(al_renderer *r, const double eye[3])
{
    const al_scene *s = r->scene;
    if (!s->world || !r->leaves || !r->stamp || !r->leaf_stamp || !r->brush_pvs || !r->brush_listed)
        return -1;
    int leaf = al_world_vis_leaf_at(s->world, eye);
    if (leaf < 0) return -1;
    if (leaf == r->pvs_leaf) return leaf;
    r->pvs_leaf = leaf;
    if (++r->pvs_pass == 0) { /* wrapped: old stamps could match again */
        memset(r->stamp, 0, ((size_t) s->face_count + 1) * sizeof *r->stamp);
        memset(r->leaf_stamp, 0, ((size_t) s->face_count + 1) * sizeof *r->leaf_stamp);
        memset(r->brush_pvs, 0, ((size_t) s->brush_count + 1) * sizeof *r->brush_pvs);
        r->pvs_pass = 1;
    }
    int n = al_world_leaves_visible_from(s->world, eye, r->leaves, r->leaf_cap);
    if (n > r->leaf_cap) n = r->leaf_cap;
    for (int i = 0; i < n; i++) {
        int count;
        const al_leaf_face *lf = al_world_leaf_faces(s->world, r->leaves[i], &count);
        for (int j = 0; j < count; j++) {
            int f = al_scene_face_index(s, lf[j].brush, lf[j].face, NULL);
            if (f < 0) continue;
            r->stamp[f] = r->pvs_pass;
            r->brush_pvs[lf[j].brush] = r->pvs_pass;
        }
    }
    int count;
    const al_leaf_face *lf = al_world_leaf_faces(s->world, leaf, &count);
    for (int j = 0; j < count; j++) {
        int f = al_scene_face_index(s, lf[j].brush, lf[j].face, NULL);
        if (f >= 0) r->leaf_stamp[f] = r->pvs_pass;
    }
    return leaf;
}

/* Ranges of the triangles (EDGES false) or outlines of brush B's faces. */
static void add_brush(range_list *l, const al_renderer *r, int b, bool edges)
{
    const al_scene *s = r->scene;
    if (b < 0 || b >= s->brush_count || !s->brushes[b] || r->brush_tri[b] < 0) return;
    const al_mesh *m = s->brushes[b];
    if (edges) ranges_add(l, r->brush_line[b], m->line_count);
    else ranges_add(l, r->brush_tri[b], m->tri_count);
}

/* The entity mesh of input entity E, or -1. */
static int entity_mesh(const al_scene *s, int e)
{
    return e >= 0 && e < s->input_entity_count ? s->mesh_of_entity[e] : -1;
}

static void selection_ranges(al_renderer *r, const al_draw_options *opt, bool edges,
                             range_list *brushes, range_list *entities)
{
    const al_scene *s = r->scene;
    brushes->n = 0;
    for (int i = 0; i < opt->selected_brush_count; i++)
        add_brush(brushes, r, opt->selected_brushes[i], edges);
    entities->n = 0;
    for (int i = 0; i < opt->selected_entity_count; i++) {
        int e = entity_mesh(s, opt->selected_entities[i]);
        if (e < 0 || r->entity_tri[e] < 0) continue;
        if (edges) ranges_add(entities, r->entity_line[e], s->entities[e]->line_count);
        else ranges_add(entities, r->entity_tri[e], s->entities[e]->tri_count);
    }
}

/* The reach of the selected lights. */
static void radius_ranges(al_renderer *r, const al_draw_options *opt, range_list *l)
{
    const al_scene *s = r->scene;
    l->n = 0;
    for (int i = 0; i < opt->selected_entity_count; i++) {
        int e = entity_mesh(s, opt->selected_entities[i]);
        if (e >= 0 && r->entity_radius[e] >= 0)
            ranges_add(l, r->entity_radius[e], s->entities[e]->radius_count);
    }
}

/* Every shown entity mesh's triangles (except those around the eye), lines or reach (KIND
 * 0, 1, 2) that may lie in the view of PLANES (NULL: every one). */
static void entity_ranges(al_renderer *r, const al_draw_options *opt, int kind, const double *eye,
                          const float (*planes)[4], range_list *l)
{
    const al_scene *s = r->scene;
    l->n = 0;
    for (int e = 0; e < s->entity_count; e++) {
        const al_mesh *m = s->entities[e];
        if (r->entity_tri[e] < 0) continue;
        int input = s->entity_index[e];
        if (opt->hidden_entities && input >= 0 && input < opt->hidden_entity_count &&
            opt->hidden_entities[input])
            continue;
        if (planes &&
            (kind == 2 ? m->radius_count > 0 && box_outside_d(planes, m->reach_mins, m->reach_maxs)
                       : box_outside_d(planes, m->mins, m->maxs)))
            continue;
        if (kind == 0) {
            /* A box around the eye (the camera at a player start) would veil the whole view. */
            bool around = eye != NULL;
            for (int k = 0; around && k < 3; k++)
                around = eye[k] >= m->mins[k] && eye[k] <= m->maxs[k];
            if (!around) ranges_add(l, r->entity_tri[e], m->tri_count);
        } else if (kind == 1) {
            ranges_add(l, r->entity_line[e], m->line_count);
        } else {
            ranges_add(l, r->entity_radius[e], m->radius_count);
        }
    }
}

/* Room for NEED vertices in the per-frame line scratch; NULL when memory ran out. */
static al_vertex *line_vertices(al_renderer *r, int need)
{
    if (need > r->line_cap) {
        al_vertex *v = realloc(r->line_vertices, (size_t) need * sizeof *v);
        if (!v) return NULL;
        r->line_vertices = v;
        r->line_cap = need;
    }
    return r->line_vertices;
}

/* The tool guides of OPT; in 3D, hidden parts are drawn faintly. */
static void draw_guides(al_renderer *r, const al_camera *cam, const al_draw_options *opt)
{
    int n = opt->guide_count & ~1;
    if (n <= 0 || !opt->guides) return;
    al_vertex *v = line_vertices(r, n);
    if (!v) return;
    static const uint8_t amber[4] = {255, 196, 40, 255};
    for (int i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        for (int k = 0; k < 3; k++) v[i].pos[k] = (float) opt->guides[i][k];
        memcpy(v[i].colour, opt->guide_colours ? opt->guide_colours[i] : amber, sizeof amber);
        v[i].lightmap[0] = v[i].lightmap[1] = AL_NO_LIGHTMAP;
    }
    buffer_upload(&r->guides, v, n, GL_STREAM_DRAW);
    set_pass(r, 0, NULL, NULL);
    draw_all(&r->guides, GL_LINES);
    if (cam->kind == AL_VIEW_3D) {
        static const float faint[4] = {1, 1, 1, 0.4f};
        glDisable(GL_DEPTH_TEST);
        set_pass(r, 0, faint, NULL);
        draw_all(&r->guides, GL_LINES);
        glEnable(GL_DEPTH_TEST);
    }
}

/* Grid lines of a 2D view for the visible rectangle, into the grid buffer. */
static void draw_grid(al_renderer *r, const al_camera *cam, double grid)
{
    double step = al_camera_grid_step(cam, grid, 6.0);
    if (step <= 0) return;
    int ax_r, ax_u, ax_d;
    al_view_axes(cam->kind, &ax_r, &ax_u, &ax_d);
    double hw = 0.5 * cam->width / cam->zoom, hh = 0.5 * cam->height / cam->zoom;
    double lo[2] = {cam->position[ax_r] - hw, cam->position[ax_u] - hh};
    double hi[2] = {cam->position[ax_r] + hw, cam->position[ax_u] + hh};
    int need = 2 * (int) ((hi[0] - lo[0]) / step + 3) + 2 * (int) ((hi[1] - lo[1]) / step + 3);
    if (!line_vertices(r, need)) return;
    static const uint8_t axis_colour[3][4] = {{150, 60, 60, 255}, {60, 140, 60, 255},
                                              {70, 90, 170, 255}};
    int n = 0;
    for (int dir = 0; dir < 2; dir++) {
        int axis = dir == 0 ? ax_r : ax_u, other = dir == 0 ? ax_u : ax_r;
        for (double x = ceil(lo[dir] / step) * step; x <= hi[dir] && n + 2 <= need; x += step) {
            const uint8_t *c;
            static const uint8_t minor[4] = {58, 58, 62, 255}, major[4] = {82, 82, 88, 255};
            double big = step * 8;
            if (fabs(x) < 1e-9) c = axis_colour[other];
            else if (fabs(remainder(x, big)) < 1e-6 * big) c = major;
            else c = minor;
            for (int e = 0; e < 2; e++) {
                al_vertex *v = &r->line_vertices[n++];
                memset(v, 0, sizeof *v);
                v->pos[axis] = (float) x;
                v->pos[other] = (float) (e ? hi[1 - dir] : lo[1 - dir]);
                v->pos[ax_d] = (float) cam->position[ax_d];
                memcpy(v->colour, c, 4);
                v->lightmap[0] = v->lightmap[1] = AL_NO_LIGHTMAP;
            }
        }
    }
    buffer_upload(&r->grid, r->line_vertices, n, GL_STREAM_DRAW);
    set_pass(r, 0, NULL, NULL);
    draw_all(&r->grid, GL_LINES);
}

/* The 3D camera in a 2D view: a ring 7 pixels across at the eye and, unless it looks
 * along the view's depth, an arrow 24 pixels long the way it looks. */
static void draw_eye(al_renderer *r, const al_camera *cam, const al_draw_options *opt)
{
    int ax_r, ax_u, ax_d;
    al_view_axes(cam->kind, &ax_r, &ax_u, &ax_d);
    double px = 1.0 / cam->zoom; /* map units per pixel */
    double f[2] = {opt->eye_forward[ax_r], opt->eye_forward[ax_u]};
    double len = sqrt(f[0] * f[0] + f[1] * f[1]);
    double pts[40][2];
    int n = 0;
    for (int i = 0; i < 12; i++) {
        double a0 = 2 * M_PI * i / 12, a1 = 2 * M_PI * (i + 1) / 12;
        pts[n][0] = 7 * px * cos(a0), pts[n++][1] = 7 * px * sin(a0);
        pts[n][0] = 7 * px * cos(a1), pts[n++][1] = 7 * px * sin(a1);
    }
    if (len > 0.1) {
        f[0] /= len, f[1] /= len;
        double side[2] = {-f[1], f[0]}, tip[2] = {24 * px * f[0], 24 * px * f[1]};
        double from[2] = {7 * px * f[0], 7 * px * f[1]};
        double back[2] = {tip[0] - 8 * px * f[0], tip[1] - 8 * px * f[1]};
        double segs[3][2][2] = {
            {{from[0], from[1]}, {tip[0], tip[1]}},
            {{tip[0], tip[1]}, {back[0] + 5 * px * side[0], back[1] + 5 * px * side[1]}},
            {{tip[0], tip[1]}, {back[0] - 5 * px * side[0], back[1] - 5 * px * side[1]}},
        };
        for (int s = 0; s < 3; s++)
            for (int e = 0; e < 2; e++, n++) pts[n][0] = segs[s][e][0], pts[n][1] = segs[s][e][1];
    }
    al_vertex v[40];
    static const uint8_t colour[4] = {255, 170, 40, 255};
    for (int i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].pos[ax_r] = (float) (opt->eye[ax_r] + pts[i][0]);
        v[i].pos[ax_u] = (float) (opt->eye[ax_u] + pts[i][1]);
        v[i].pos[ax_d] = (float) cam->position[ax_d];
        memcpy(v[i].colour, colour, sizeof colour);
        v[i].lightmap[0] = v[i].lightmap[1] = AL_NO_LIGHTMAP;
    }
    buffer_upload(&r->marker, v, n, GL_STREAM_DRAW);
    set_pass(r, 0, NULL, NULL);
    draw_all(&r->marker, GL_LINES);
}

/* Whether the designer hid input brush B (al_draw_options.hidden_brushes). */
static bool brush_hidden(const al_draw_options *opt, int b)
{
    return opt->hidden_brushes && b < opt->hidden_brush_count && opt->hidden_brushes[b];
}

/* Brush B's tint (al_draw_options.brush_tints), or NULL when it has none. */
static const uint8_t *brush_tint(const al_draw_options *opt, int b)
{
    if (!opt->brush_tints || b >= opt->brush_tint_count || opt->brush_tints[b][3] == 0) return NULL;
    return opt->brush_tints[b];
}

/* 2D: the outlines of the tinted brushes draw_2d kept in view (KEPT[b] not 0), in their
 * colours: one draw per colour, as a map has a few layers. */
static void draw_tinted(al_renderer *r, const al_draw_options *opt, const uint8_t *kept)
{
    const al_scene *s = r->scene;
    if (!opt->brush_tints) return;
    int n = s->brush_count < opt->brush_tint_count ? s->brush_count : opt->brush_tint_count;
    uint8_t *done = calloc((size_t) n + 1, 1);
    if (!done) return;
    for (int first = 0; first < n; first++) {
        const uint8_t *c = kept[first] && !done[first] ? brush_tint(opt, first) : NULL;
        if (!c) continue;
        r->tinted.n = 0;
        for (int b = first; b < n; b++) {
            const uint8_t *d = kept[b] && !done[b] ? brush_tint(opt, b) : NULL;
            if (!d || memcmp(c, d, 4) != 0) continue;
            done[b] = 1;
            const al_mesh *m = s->brushes[b];
            ranges_add(&r->tinted, r->brush_line[b], m->line_count);
        }
        const float colour[4] = {c[0] / 255.0f, c[1] / 255.0f, c[2] / 255.0f, c[3] / 255.0f};
        set_pass(r, 0, NULL, colour);
        draw_ranges(r, &r->store->lines, GL_LINES, &r->tinted);
    }
    free(done);
    set_pass(r, 0, NULL, NULL);
}

static void draw_2d(al_renderer *r, const al_camera *cam, const al_draw_options *opt,
                    const float planes[6][4], al_draw_stats *st)
{
    const al_scene *s = r->scene;
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    draw_grid(r, cam, opt->grid);
    if (!s) return;
    range_list *edges = &r->opaque_edges;
    edges->n = 0;
    r->opaque.n = 0;
    bool marked = mark_frustum(r, planes);
    uint8_t *kept = opt->brush_tints ? calloc((size_t) s->brush_count + 1, 1) : NULL;
    for (int b = 0; b < s->brush_count; b++) {
        const al_mesh *m = s->brushes[b];
        if (!m || r->brush_line[b] < 0 || brush_hidden(opt, b)) continue;
        bool tinted = kept && brush_tint(opt, b);
        if (marked && r->brush_stamp[b] != r->cull_pass) {
            st->faces_culled_frustum += s->brush_first_face[b + 1] - s->brush_first_face[b];
            continue;
        }
        if ((m->flags & AL_FACE_TOOL) && !(opt->overlays & AL_OVERLAY_TOOLS)) continue;
        if (box_outside_d(planes, m->mins, m->maxs)) {
            st->faces_culled_frustum += m->face_count;
            continue;
        }
        for (int i = 0; i < m->face_count; i++) {
            const al_mesh_face *sf = &m->faces[i];
            if ((sf->flags & AL_FACE_TOOL) && !(opt->overlays & AL_OVERLAY_TOOLS)) continue;
            if (box_outside(planes, sf->mins, sf->maxs)) {
                st->faces_culled_frustum++;
                continue;
            }
            st->faces_drawn++;
            if (tinted)
                kept[b] = 1; /* its whole outline in its colour, after the others */
            else
                ranges_add(edges, r->brush_line[b] + sf->first_edge, sf->edge_count);
            if (r->textures_on && !(sf->flags & AL_FACE_TOOL) && r->brush_tri[b] >= 0)
                ranges_add(&r->opaque, r->brush_tri[b] + sf->first_tri, sf->tri_count);
        }
    }
    if (r->textures_on && r->opaque.n > 0) {
        /* Faint textures: the faces facing the viewer, only the nearest where they
         * overlap (a depth pass first, so that a farther face drawn earlier does not
         * blend in too), blended over the background and the grid; the outlines go over
         * them. */
        static const float faint[4] = {1, 1, 1, AL_FAINT_TEXTURE_ALPHA};
        glEnable(GL_DEPTH_TEST);
        glDepthMask(GL_TRUE);
        glDepthFunc(GL_LESS);
        glEnable(GL_CULL_FACE);
        glFrontFace(GL_CW);
        glCullFace(GL_BACK);
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        set_pass(r, 1, faint, NULL);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->opaque);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glDepthMask(GL_FALSE);
        glDepthFunc(GL_LEQUAL);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->opaque);
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
        glDisable(GL_CULL_FACE);
        glDisable(GL_DEPTH_TEST);
    }
    set_pass(r, 0, NULL, NULL);
    draw_ranges(r, &r->store->lines, GL_LINES, edges);
    if (kept) draw_tinted(r, opt, kept);
    free(kept);
    glEnable(GL_BLEND);
    /* The colour blends; the alpha stays 1, so the picture is opaque wherever GTK puts it. */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    if (opt->overlays & AL_OVERLAY_ENTITIES) {
        static const float faint[4] = {1, 1, 1, 0.5f};
        /* Every light's reach only when asked: in a lit map the circles hide the brushes. */
        if (opt->overlays & AL_OVERLAY_LIGHT_RADII)
            entity_ranges(r, opt, 2, NULL, planes, &r->scratch);
        else
            radius_ranges(r, opt, &r->scratch);
        set_pass(r, 0, faint, NULL);
        draw_ranges(r, &r->store->radius, GL_LINES, &r->scratch);
        set_pass(r, 0, NULL, NULL);
        entity_ranges(r, opt, 1, NULL, planes, &r->scratch);
        draw_ranges(r, &r->store->lines, GL_LINES, &r->scratch);
    }
    if (opt->overlays & AL_OVERLAY_PORTALS) {
        make_portals(r);
        draw_all(&r->portal_lines, GL_LINES);
    }
    if (opt->overlays & AL_OVERLAY_LEAK) draw_all(&r->leak, GL_LINES);
    if (opt->overlays & AL_OVERLAY_SPLITS) draw_all(&r->splits, GL_LINES);
    static const float red[4] = {1.0f, 0.25f, 0.2f, 1.0f};
    selection_ranges(r, opt, true, &r->pvs, &r->scratch);
    set_pass(r, 0, NULL, red);
    draw_ranges(r, &r->store->lines, GL_LINES, &r->pvs);
    draw_ranges(r, &r->store->lines, GL_LINES, &r->scratch);
    if (opt->has_eye) draw_eye(r, cam, opt);
    draw_guides(r, cam, opt);
    glDisable(GL_BLEND);
}

/* Whether the eye lies behind a face's plane, by more than a rounding's worth: the opaque
 * pass culls back faces, so GL would draw none of its pixels. (A face within the margin is
 * left to GL.) */
#define BACK_MARGIN 0.125

static bool facing_away(const al_mesh_face *f, const double eye[3])
{
    return f->normal[0] * eye[0] + f->normal[1] * eye[1] + f->normal[2] * eye[2] - f->dist <
           -BACK_MARGIN;
}

static void draw_3d(al_renderer *r, const al_camera *cam, const al_draw_options *opt,
                    const float planes[6][4], al_draw_stats *st)
{
    const al_scene *s = r->scene;
    if (!s) return;
    const double *look_from = opt->has_pvs_point ? opt->pvs_point : cam->position;
    int leaf = stamp_pvs(r, look_from);
    st->camera_leaf = leaf;
    bool pvs_cull = leaf >= 0 && !opt->no_cull && s->in_leaves;
    if (pvs_cull) {
        memcpy(r->pvs_eye, look_from, sizeof r->pvs_eye);
        r->pvs_eye_set = true;
    }
    /* No PVS yet (an edit's collision): what the last one says may be seen from here. */
    bool carry = !pvs_cull && !opt->no_cull && r->carried &&
                 memcmp(look_from, r->carried_eye, sizeof r->carried_eye) == 0;
    r->opaque.n = r->opaque_edges.n = r->tools.n = r->pvs.n = r->cluster.n = 0;
    bool marked = !opt->no_cull && mark_frustum(r, planes);
    for (int b = 0; b < s->brush_count; b++) {
        const al_mesh *m = s->brushes[b];
        if (!m || r->brush_tri[b] < 0 || brush_hidden(opt, b)) continue;
        if (marked && r->brush_stamp[b] != r->cull_pass) {
            st->faces_culled_frustum += s->brush_first_face[b + 1] - s->brush_first_face[b];
            continue;
        }
        if ((m->flags & AL_FACE_TOOL) && !(opt->overlays & AL_OVERLAY_TOOLS)) continue;
        if (pvs_cull && r->brush_listed[b] && r->brush_pvs[b] != r->pvs_pass) {
            /* (none of its faces in the PVS: each would be left out below) */
            st->faces_culled_pvs += m->face_count;
            continue;
        }
        int32_t tri = r->brush_tri[b], line = r->brush_line[b];
        int32_t f0 = s->brush_first_face[b];
        for (int i = 0; i < m->face_count; i++) {
            const al_mesh_face *sf = &m->faces[i];
            int32_t f = f0 + i;
            bool tool = sf->flags & AL_FACE_TOOL;
            if (tool && !(opt->overlays & AL_OVERLAY_TOOLS)) continue;
            if (carry && !r->carried[f]) {
                st->faces_culled_pvs++;
                continue;
            }
            bool listed = s->in_leaves && s->in_leaves[f];
            bool in_pvs = !listed || r->stamp[f] == r->pvs_pass;
            if (pvs_cull && !in_pvs) {
                st->faces_culled_pvs++;
                continue;
            }
            if (!opt->no_cull && box_outside(planes, sf->mins, sf->maxs)) {
                st->faces_culled_frustum++;
                continue;
            }
            if (tool) {
                st->faces_drawn++;
                ranges_add(&r->tools, tri + sf->first_tri, sf->tri_count);
                continue;
            }
            /* (The wireframe shows a back face's outline, seen from inside a brush.) */
            if (opt->wireframe) ranges_add(&r->opaque_edges, line + sf->first_edge, sf->edge_count);
            if (!opt->no_cull && facing_away(sf, cam->position)) {
                st->faces_culled_back++;
                if (!(opt->overlays & (AL_OVERLAY_PVS | AL_OVERLAY_CLUSTER))) continue;
            } else {
                st->faces_drawn++;
                ranges_add(&r->opaque, tri + sf->first_tri, sf->tri_count);
            }
            if (leaf >= 0 && listed) {
                if (r->stamp[f] == r->pvs_pass)
                    ranges_add(&r->pvs, tri + sf->first_tri, sf->tri_count);
                if (r->leaf_stamp[f] == r->pvs_pass)
                    ranges_add(&r->cluster, tri + sf->first_tri, sf->tri_count);
            }
        }
    }

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    glEnable(GL_CULL_FACE);
    glFrontFace(GL_CW); /* Quake's windings are clockwise seen from the front */
    glCullFace(GL_BACK);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.0f, 1.0f);
    set_pass(r, 1, NULL, NULL);
    draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->opaque);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_CULL_FACE);

    if (opt->wireframe) {
        static const float dark[4] = {0.08f, 0.08f, 0.08f, 0.8f};
        set_pass(r, 0, NULL, dark);
        draw_ranges(r, &r->store->lines, GL_LINES, &r->opaque_edges);
    }
    glEnable(GL_BLEND);
    /* The colour blends; the alpha stays 1, so the picture is opaque wherever GTK puts it. */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    if (opt->overlays & AL_OVERLAY_ENTITIES) {
        const float(*cull)[4] = opt->no_cull ? NULL : planes;
        entity_ranges(r, opt, 0, cam->position, cull, &r->scratch);
        set_pass(r, 1, NULL, NULL);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->scratch);
        entity_ranges(r, opt, 1, NULL, cull, &r->scratch);
        set_pass(r, 0, NULL, NULL);
        draw_ranges(r, &r->store->lines, GL_LINES, &r->scratch);
        if (opt->overlays & AL_OVERLAY_LIGHT_RADII) {
            static const float faint[4] = {1, 1, 1, 0.4f};
            entity_ranges(r, opt, 2, NULL, cull, &r->scratch);
            set_pass(r, 0, faint, NULL);
            draw_ranges(r, &r->store->radius, GL_LINES, &r->scratch);
        }
    }
    if (opt->overlays & AL_OVERLAY_PVS) {
        static const float green[4] = {0.2f, 1.0f, 0.35f, 0.3f};
        static const float half[4] = {1, 1, 1, 0.6f};
        set_pass(r, 1, half, green);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->pvs);
    }
    if (opt->overlays & AL_OVERLAY_CLUSTER) {
        static const float amber[4] = {1.0f, 0.75f, 0.1f, 0.5f};
        static const float half[4] = {1, 1, 1, 0.7f};
        set_pass(r, 1, half, amber);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->cluster);
    }

    /* Selection: tinted faces, red outlines, faintly through what hides them. */
    static const float red[4] = {1.0f, 0.2f, 0.15f, 0.45f}, red_line[4] = {1.0f, 0.3f, 0.25f, 1};
    static const float faint[4] = {1, 1, 1, 0.35f}, half[4] = {1, 1, 1, 0.5f};
    selection_ranges(r, opt, false, &r->scratch, &r->cluster);
    set_pass(r, 1, half, red);
    draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->scratch);
    draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->cluster);
    selection_ranges(r, opt, true, &r->scratch, &r->cluster);
    set_pass(r, 0, NULL, red_line);
    draw_ranges(r, &r->store->lines, GL_LINES, &r->scratch);
    draw_ranges(r, &r->store->lines, GL_LINES, &r->cluster);
    radius_ranges(r, opt, &r->cluster);
    set_pass(r, 0, NULL, NULL);
    draw_ranges(r, &r->store->radius, GL_LINES, &r->cluster);
    glDisable(GL_DEPTH_TEST);
    set_pass(r, 0, faint, red_line);
    draw_ranges(r, &r->store->lines, GL_LINES, &r->scratch);
    glEnable(GL_DEPTH_TEST);
    if (opt->selected_face_count > 0) {
        static const float yellow[4] = {1.0f, 0.9f, 0.2f, 0.6f};
        r->scratch.n = 0;
        for (int i = 0; i < opt->selected_face_count; i++) {
            int b = opt->selected_faces[i][0];
            const al_mesh_face *mf;
            if (al_scene_face_index(s, b, opt->selected_faces[i][1], &mf) >= 0 &&
                r->brush_tri[b] >= 0)
                ranges_add(&r->scratch, r->brush_tri[b] + mf->first_tri, mf->tri_count);
        }
        set_pass(r, 1, half, yellow);
        draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->scratch);
    }

    /* Translucent layers: no depth writes, so they do not hide each other. */
    glDepthMask(GL_FALSE);
    set_pass(r, 1, NULL, NULL);
    draw_ranges(r, &r->store->tris, GL_TRIANGLES, &r->tools);
    if (opt->overlays & AL_OVERLAY_PORTALS) {
        make_portals(r);
        set_pass(r, 0, NULL, NULL);
        draw_all(&r->portal_tris, GL_TRIANGLES);
        draw_all(&r->portal_lines, GL_LINES);
    }
    if (opt->overlays & AL_OVERLAY_LEAK) {
        set_pass(r, 0, NULL, NULL);
        draw_all(&r->leak, GL_LINES);
        glDisable(GL_DEPTH_TEST);
        set_pass(r, 0, faint, NULL);
        draw_all(&r->leak, GL_LINES);
        glEnable(GL_DEPTH_TEST);
    }
    if (opt->overlays & AL_OVERLAY_SPLITS) {
        set_pass(r, 0, NULL, NULL);
        draw_all(&r->splits, GL_LINES);
    }
    draw_guides(r, cam, opt);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
}

/* --- textures ---------------------------------------------------------------------- */

static int compare_held(const void *a, const void *b)
{
    return strcasecmp(((const held_texture *) a)->name, ((const held_texture *) b)->name);
}

/* The texture held for material NAME, or NULL. */
static const held_texture *find_held(const al_renderer *r, const char *name)
{
    held_texture key = {.name = (char *) name};
    const gl_texture_set *t = r->tex;
    return t && t->held_count
               ? bsearch(&key, t->held, (size_t) t->held_count, sizeof *t->held, compare_held)
               : NULL;
}

/* Lets go of the renderer's texture set: the last user deletes it (and takes it off the
 * store's list). */
static void forget_textures(al_renderer *r)
{
    gl_texture_set *t = r->tex;
    r->tex = NULL;
    r->textures_valid = r->table_valid = false;
    if (!t || --t->refs > 0) return;
    for (gl_texture_set **at = &r->store->texture_sets; *at; at = &(*at)->next)
        if (*at == t) {
            *at = t->next;
            break;
        }
    if (t->texture) glDeleteTextures(1, &t->texture);
    for (int i = 0; i < t->held_count; i++) free(t->held[i].name);
    free(t->held);
    free(t);
}

/* IMAGE resampled (nearest texel) to SIZE x SIZE into OUT: the texture repeats over the
 * layer exactly once, so a face's coordinates divided by the image's own size address it. */
static void resample(const al_texture_image *image, int size, uint8_t *out)
{
    for (int y = 0; y < size; y++) {
        int sy = (int) ((int64_t) y * image->height / size);
        for (int x = 0; x < size; x++) {
            int sx = (int) ((int64_t) x * image->width / size);
            memcpy(out + ((size_t) y * size + x) * 4,
                   image->rgba + ((size_t) sy * image->width + sx) * 4, 4);
        }
    }
}

void al_texture_checker(int size, uint8_t *rgba)
{
    /* Eight squares a side, magenta and near black: the old sign of a missing texture. */
    int square = size / 8 > 0 ? size / 8 : 1;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            bool on = ((x / square) + (y / square)) % 2 == 0;
            uint8_t *p = rgba + ((size_t) y * size + x) * 4;
            p[0] = on ? 200 : 24;
            p[1] = on ? 40 : 24;
            p[2] = on ? 200 : 28;
            p[3] = 255;
        }
}

al_status al_renderer_set_textures(al_renderer *r, const al_texture_image *images, int count,
                                   uint64_t key)
{
    forget_textures(r);
    if (!images || count <= 0) return AL_OK;
    for (gl_texture_set *t = key ? r->store->texture_sets : NULL; t; t = t->next)
        if (t->key == key) {
            /* Another view's copy of the same images. */
            t->refs++;
            r->tex = t;
            r->textures_valid = true;
            return AL_OK;
        }
    GLint max_size = 0, max_layers = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &max_layers);
    int biggest = 16;
    for (int i = 0; i < count; i++) {
        const al_texture_image *im = &images[i];
        if (!im->name || !im->rgba || im->width <= 0 || im->height <= 0)
            return AL_ERR_INVALID_ARGUMENT;
        if (im->width > biggest) biggest = im->width;
        if (im->height > biggest) biggest = im->height;
    }
    if (count + 1 > max_layers) return AL_ERR_INVALID_ARGUMENT;
    /* One size for every layer: the largest image's, rounded up to a power of two, at most
     * 256 (Quake's textures are mostly 64 to 256), and smaller when the array with its
     * mipmaps would pass 96 MB. */
    int size = 16;
    while (size < biggest && size < 256 && size < max_size) size *= 2;
    while (size > 16 && (size_t) size * size * 4 * (size_t) (count + 1) * 4 / 3 > (96u << 20))
        size /= 2;
    r->tex = calloc(1, sizeof *r->tex);
    if (!r->tex) return AL_ERR_NOMEM;
    r->tex->refs = 1;
    gl_texture_set *t = r->tex;
    t->held = calloc((size_t) count, sizeof *t->held);
    uint8_t *layer = malloc((size_t) size * size * 4);
    if (!t->held || !layer) {
        free(layer);
        forget_textures(r);
        return AL_ERR_NOMEM;
    }
    for (int i = 0; i < count; i++) {
        t->held[i] = (held_texture){.name = strdup(images[i].name),
                                    .width = images[i].width,
                                    .height = images[i].height,
                                    .layer = i + 1};
        t->held_count = i + 1;
        if (!t->held[i].name) {
            free(layer);
            forget_textures(r);
            return AL_ERR_NOMEM;
        }
    }
    glGenTextures(1, &t->texture);
    glActiveTexture(GL_TEXTURE0 + AL_TEXTURES_UNIT);
    glBindTexture(GL_TEXTURE_2D_ARRAY, t->texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, size, size, count + 1, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, NULL);
    al_texture_checker(size, layer);
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, 0, size, size, 1, GL_RGBA, GL_UNSIGNED_BYTE,
                    layer);
    for (int i = 0; i < count; i++) {
        resample(&images[i], size, layer);
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, i + 1, size, size, 1, GL_RGBA,
                        GL_UNSIGNED_BYTE, layer);
    }
    free(layer);
    /* Texels stay sharp up close and the mipmaps keep them from shimmering far away, as in
     * Quake's software renderer; nearest texel of the nearest level is also the cheapest
     * filter for llvmpipe (trilinear measured no slower there, but no better looking). */
    glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glActiveTexture(GL_TEXTURE0);
    qsort(t->held, (size_t) t->held_count, sizeof *t->held, compare_held);
    t->layer_size = size;
    t->layer_count = count + 1;
    t->key = key;
    if (key) {
        t->next = r->store->texture_sets;
        r->store->texture_sets = t;
        /* What other contexts will draw from: sent on its way. */
        glFlush();
    }
    r->textures_valid = true;
    r->store->textures_uploaded++;
    return AL_OK;
}

int64_t al_renderer_texture_sets_made(const al_renderer *r)
{
    return r->store->textures_uploaded;
}

bool al_renderer_has_texture(const al_renderer *r, const char *name)
{
    return r->textures_valid && name && find_held(r, name) != NULL;
}

/* The material table of the current scene (see the struct); false if it cannot be made
 * (then textures are not shown). */
static bool update_material_table(al_renderer *r)
{
    if (r->table_valid) return true;
    const al_scene *s = r->scene;
    int n = s->material_count + 1;
    int width = n < AL_MATERIAL_ROW ? n : AL_MATERIAL_ROW,
        height = (n + AL_MATERIAL_ROW - 1) / AL_MATERIAL_ROW;
    float *texels = calloc((size_t) width * height * 4, sizeof *texels);
    if (!texels) return false;
    texels[2] = -1; /* material 0: untextured */
    for (int m = 0; m < s->material_count; m++) {
        float *t = texels + (size_t) (m + 1) * 4;
        const held_texture *h = find_held(r, s->material_names[m]);
        /* A material without an image shows the checker at 64 x 64 texels a tile. */
        t[0] = 1.0f / (float) (h ? h->width : 64);
        t[1] = 1.0f / (float) (h ? h->height : 64);
        t[2] = (float) (h ? h->layer : 0);
        t[3] = s->material_flags[m] & (AL_MATERIAL_SKY | AL_MATERIAL_LIQUID) ? 1.0f : 0.0f;
    }
    if (!r->material_table) glGenTextures(1, &r->material_table);
    glActiveTexture(GL_TEXTURE0 + AL_MATERIALS_UNIT);
    glBindTexture(GL_TEXTURE_2D, r->material_table);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, texels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    free(texels);
    r->table_valid = true;
    return true;
}

void al_renderer_draw(al_renderer *r, const al_camera *cam, const al_draw_options *opt,
                      al_draw_stats *stats)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    al_draw_options defaults;
    if (!opt) {
        al_draw_options_init(&defaults);
        opt = &defaults;
    }
    al_draw_stats st = {.camera_leaf = -1};
    glViewport(0, 0, cam->width, cam->height);
    glClearColor(opt->background[0], opt->background[1], opt->background[2], 1.0f);
    glClearDepth(1.0);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    float view[16], proj[16];
    al_camera_matrices(cam, view, proj);
    mat4 v, p, mvp; /* aligned copies: cglm's SIMD paths need them */
    memcpy(v, view, sizeof v);
    memcpy(p, proj, sizeof p);
    glm_mat4_mul(p, v, mvp);
    float planes[6][4];
    frustum_planes(&mvp[0][0], planes);
    /* Lit faces show the lightmap in 3D views, when the scene has one uploaded. */
    const al_scene *s = r->scene;
    r->lightmap_on = cam->kind == AL_VIEW_3D && s && r->lightmap_valid && !opt->no_lightmap &&
                     s->stats.lit_faces > 0 && r->lightmap_w == s->lightmap_width &&
                     r->lightmap_h == s->lightmap_height;
    st.lightmapped = r->lightmap_on;
    r->textures_on = (cam->kind == AL_VIEW_3D ? !opt->no_textures : opt->faint_textures) && s &&
                     r->textures_valid && update_material_table(r);
    st.textured = r->textures_on;
    r->prog = &r->programs[(r->lightmap_on ? AL_PROGRAM_LIGHTMAP : 0) |
                           (r->textures_on ? AL_PROGRAM_TEXTURE : 0)];
    glUseProgram(r->prog->id);
    glUniformMatrix4fv(r->prog->u_mvp, 1, GL_FALSE, &mvp[0][0]);
    if (r->textures_on) {
        glActiveTexture(GL_TEXTURE0 + AL_TEXTURES_UNIT);
        glBindTexture(GL_TEXTURE_2D_ARRAY, r->tex->texture);
        glActiveTexture(GL_TEXTURE0 + AL_MATERIALS_UNIT);
        glBindTexture(GL_TEXTURE_2D, r->material_table);
        glActiveTexture(GL_TEXTURE0);
    }
    if (r->lightmap_on) {
        glActiveTexture(GL_TEXTURE0 + AL_LIGHTMAP_UNIT);
        glBindTexture(GL_TEXTURE_2D, r->lightmap);
        glUniform2f(r->prog->u_lightmap_scale, 1.0f / (float) r->lightmap_w,
                    1.0f / (float) r->lightmap_h);
    }
    if (cam->kind == AL_VIEW_3D) draw_3d(r, cam, opt, (const float (*)[4]) planes, &st);
    else draw_2d(r, cam, opt, (const float (*)[4]) planes, &st);
    if (r->lightmap_on) {
        glActiveTexture(GL_TEXTURE0 + AL_LIGHTMAP_UNIT);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    if (r->textures_on) {
        glActiveTexture(GL_TEXTURE0 + AL_TEXTURES_UNIT);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        glActiveTexture(GL_TEXTURE0 + AL_MATERIALS_UNIT);
        glBindTexture(GL_TEXTURE_2D, 0);
        glActiveTexture(GL_TEXTURE0);
    }
    r->lightmap_on = r->textures_on = false;
    glBindVertexArray(0);
    glUseProgram(0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    st.cpu_ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    if (stats) *stats = st;
}

void al_lightmap_to_rgba8(const al_rad_lightmap *map, uint8_t *rgba)
{
    size_t n = (size_t) map->width * (size_t) map->height;
    for (size_t i = 0; i < n; i++, rgba += 4) {
        for (int k = 0; k < 3; k++) {
            float b = map->texels[i][k] * 0.5f;
            /* NaN fails both tests and ends black, like a negative level. */
            rgba[k] = b >= 255.0f ? 255 : b > 0.0f ? (uint8_t) lrintf(b) : 0;
        }
        rgba[3] = 255;
    }
}

al_status al_renderer_set_lightmap(al_renderer *r, const al_rad_lightmap *map)
{
    if (!map || !map->texels) return al_renderer_set_lightmap_rgba8(r, 0, 0, NULL);
    if (map->width <= 0 || map->height <= 0) {
        r->lightmap_valid = false;
        return AL_ERR_INVALID_ARGUMENT;
    }
    size_t need = (size_t) map->width * (size_t) map->height * 4;
    if (need > r->lightmap_bytes_cap) {
        uint8_t *b = realloc(r->lightmap_bytes, need);
        if (!b) {
            r->lightmap_valid = false;
            return AL_ERR_NOMEM;
        }
        r->lightmap_bytes = b;
        r->lightmap_bytes_cap = need;
    }
    al_lightmap_to_rgba8(map, r->lightmap_bytes);
    return al_renderer_set_lightmap_rgba8(r, map->width, map->height, r->lightmap_bytes);
}

al_status al_renderer_set_lightmap_rgba8(al_renderer *r, int width, int height, const uint8_t *rgba)
{
    r->lightmap_valid = false;
    if (!rgba) return AL_OK;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    if (width <= 0 || height <= 0 || width > max_size || height > max_size)
        return AL_ERR_INVALID_ARGUMENT;
    glActiveTexture(GL_TEXTURE0 + AL_LIGHTMAP_UNIT);
    if (!r->lightmap) {
        glGenTextures(1, &r->lightmap);
        r->lightmap_w = r->lightmap_h = 0;
    }
    glBindTexture(GL_TEXTURE_2D, r->lightmap);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    if (width == r->lightmap_w && height == r->lightmap_h) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    } else {
        /* Each face's rectangle has a border of a texel copied from its edge, so linear
         * filtering within a face never reaches its neighbour in the atlas. */
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        r->lightmap_w = width;
        r->lightmap_h = height;
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    r->lightmap_valid = true;
    return AL_OK;
}
