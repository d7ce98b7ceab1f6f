/* Scene meshes (al-render.h): everything the renderer draws for one map, built on the CPU.
 *
 * From each brush's polygons: one fan of triangles per face, coloured by its material
 * (tool faces such as clip and trigger translucent in a colour of their kind), with the
 * face's place in the lightmap atlas when a radiosity solution lights it, and the face's
 * outline, coloured by what the brush is (world, detail, an entity's model, a tool). From
 * the entities: a box per point entity in its class's colour, with the radius of lights.
 * From the compiled world, when there is one: the leak path, and which faces the vis
 * leaves list (those are culled by the PVS, the others only by the frustum); the portals
 * are made when the renderer draws them (al_scene_portal_mesh).
 *
 * Each brush and point entity has a mesh of its own, which a scene built from the one
 * before it takes over when its key is the same (and, with a solver, its faces keep their
 * lightmap places): after an edit only the meshes of what it changed are built.
 *
 * Expected workload: the whole map once (lq-e3m4, 3,441 brushes and 1,301 entities, in
 * tens of milliseconds); after an edit, the meshes of the brushes it changed (a few) and
 * a pass over the map's tables (per brush, per face: under a millisecond on lq-e3m4). */
#include "scene/scene.h"

#include "al-parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Room for N more elements of SIZE bytes in *V (COUNT used of CAP); false if memory ran
 * out. */
static bool grow(void **v, int32_t count, int32_t *cap, int32_t n, size_t size)
{
    if (count + n <= *cap) return true;
    int32_t c = *cap ? *cap : 64;
    while (c < count + n) c *= 2;
    void *grown = realloc(*v, (size_t) c * size);
    if (!grown) return false;
    *v = grown;
    *cap = c;
    return true;
}

/* Growable vertex arrays: of faces, and of lines. */
typedef struct vbuf {
    al_vertex *v;
    int32_t count, cap;
    bool failed;
} vbuf;

typedef struct lbuf {
    al_line_vertex *v;
    int32_t count, cap;
    bool failed;
} lbuf;

static al_vertex *vbuf_add(vbuf *b, int32_t n)
{
    if (b->failed || !grow((void **) &b->v, b->count, &b->cap, n, sizeof *b->v)) {
        b->failed = true;
        return NULL;
    }
    al_vertex *out = b->v + b->count;
    b->count += n;
    return out;
}

static al_line_vertex *lbuf_add(lbuf *b, int32_t n)
{
    if (b->failed || !grow((void **) &b->v, b->count, &b->cap, n, sizeof *b->v)) {
        b->failed = true;
        return NULL;
    }
    al_line_vertex *out = b->v + b->count;
    b->count += n;
    return out;
}

/* RGBA (0..1, clamped) as bytes. */
static void put_colour(uint8_t out[4], const float rgba[4])
{
    for (int k = 0; k < 4; k++) {
        float c = rgba[k] < 0 ? 0 : rgba[k] > 1 ? 1 : rgba[k];
        out[k] = (uint8_t) lrintf(c * 255.0f);
    }
}

/* How a face's vertices show its texture: material index + 1 (0: none) and the projection
 * in texels (al_face_desc.texture_axes). */
typedef struct face_texture {
    int32_t material;
    const double (*axes)[4];
} face_texture;

/* A vertex at P; with LM (a face's lightmap axes and offsets in texels) its atlas
 * coordinates, else the marker; with TEX its texture coordinates. */
static void put_mapped(al_vertex *v, const double p[3], const double n[3], const float rgba[4],
                       const double *lm, const face_texture *tex)
{
    for (int k = 0; k < 3; k++) {
        v->pos[k] = (float) p[k];
        v->normal[k] = n ? (float) n[k] : 0.0f;
    }
    put_colour(v->colour, rgba);
    if (lm) {
        v->lightmap[0] = (float) (p[0] * lm[0] + p[1] * lm[1] + p[2] * lm[2] + lm[3]);
        v->lightmap[1] = (float) (p[0] * lm[4] + p[1] * lm[5] + p[2] * lm[6] + lm[7]);
    } else {
        v->lightmap[0] = v->lightmap[1] = AL_NO_LIGHTMAP;
    }
    v->material = tex ? tex->material : 0;
    for (int i = 0; i < 2; i++)
        v->texture[i] = tex ? (float) (p[0] * tex->axes[i][0] + p[1] * tex->axes[i][1] +
                                       p[2] * tex->axes[i][2] + tex->axes[i][3])
                            : 0.0f;
}

static void add_line(lbuf *b, const double a[3], const double c[3], const float rgba[4])
{
    al_line_vertex *v = lbuf_add(b, 2);
    if (!v) return;
    for (int k = 0; k < 3; k++) v[0].pos[k] = (float) a[k], v[1].pos[k] = (float) c[k];
    put_colour(v[0].colour, rgba);
    memcpy(v[1].colour, v[0].colour, sizeof v[1].colour);
}

/* A fan of triangles over the convex polygon PTS (N points), into B; LM (may be NULL)
 * places it in the lightmap atlas, TEX (may be NULL) gives it its texture. */
static void add_fan_mapped(vbuf *b, const double (*pts)[3], int n, const double normal[3],
                           const float rgba[4], const double *lm, const face_texture *tex)
{
    al_vertex *v = vbuf_add(b, 3 * (n - 2));
    if (!v) return;
    for (int i = 1; i + 1 < n; i++, v += 3) {
        put_mapped(&v[0], pts[0], normal, rgba, lm, tex);
        put_mapped(&v[1], pts[i], normal, rgba, lm, tex);
        put_mapped(&v[2], pts[i + 1], normal, rgba, lm, tex);
    }
}

static void add_fan(vbuf *b, const double (*pts)[3], int n, const double normal[3],
                    const float rgba[4])
{
    add_fan_mapped(b, pts, n, normal, rgba, NULL, NULL);
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; s && *s; s++) h = (h ^ (uint8_t) *s) * 16777619u;
    return h;
}

/* The colour of an entity class: fixed for the classes a designer meets most, a stable
 * hue from the name for the rest. */
static void class_colour(const char *classname, float rgb[3])
{
    static const struct {
        const char *prefix;
        float rgb[3];
    } known[] = {
        {"info_player", {0.25f, 0.95f, 0.35f}}, {"agent_start", {0.25f, 0.95f, 0.35f}},
        {"light", {1.0f, 0.9f, 0.35f}},         {"weapon_", {0.95f, 0.45f, 0.2f}},
        {"item_", {0.35f, 0.6f, 1.0f}},         {"monster_", {0.95f, 0.25f, 0.25f}},
        {"trigger_", {1.0f, 0.6f, 0.1f}},       {"func_door", {0.3f, 0.85f, 0.85f}},
        {"func_detail", {0.55f, 0.75f, 1.0f}},  {"waypoint", {0.8f, 0.5f, 1.0f}},
        {"path_corner", {0.8f, 0.5f, 1.0f}},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (classname && strncmp(classname, known[i].prefix, strlen(known[i].prefix)) == 0) {
            memcpy(rgb, known[i].rgb, sizeof known[i].rgb);
            return;
        }
    }
    double hue = (hash_name(classname) % 360) / 60.0;
    double x = 1 - fabs(fmod(hue, 2) - 1);
    double r = 0, g = 0, b = 0;
    switch ((int) hue) {
    case 0: r = 1, g = x; break;
    case 1: r = x, g = 1; break;
    case 2: g = 1, b = x; break;
    case 3: g = x, b = 1; break;
    case 4: r = x, b = 1; break;
    default: r = 1, b = x; break;
    }
    rgb[0] = (float) (0.35 + 0.6 * r);
    rgb[1] = (float) (0.35 + 0.6 * g);
    rgb[2] = (float) (0.35 + 0.6 * b);
}

static const char *property(const al_entity_desc *e, const char *key)
{
    for (int i = 0; i < e->property_count; i++)
        if (e->properties[i].key && strcmp(e->properties[i].key, key) == 0)
            return e->properties[i].value;
    return NULL;
}

/* Point entities' boxes by class (Quake's sizes where Quake has one). */
static void class_box(const char *classname, double mins[3], double maxs[3])
{
    double h = 8, lo = -8, hi = 8;
    if (classname && (strncmp(classname, "info_player", 11) == 0 ||
                      strcmp(classname, "agent_start") == 0 ||
                      strncmp(classname, "monster_", 8) == 0)) {
        h = 16, lo = -24, hi = 32;
    } else if (classname && (strncmp(classname, "weapon_", 7) == 0 ||
                             strncmp(classname, "item_", 5) == 0)) {
        h = 16, lo = 0, hi = 32;
    }
    mins[0] = mins[1] = -h, maxs[0] = maxs[1] = h;
    mins[2] = lo, maxs[2] = hi;
}

/* Tool faces: not part of what a player sees. Translucent colours by kind. */
static bool tool_colour(uint32_t flags, al_entity_role role, float rgba[4])
{
    static const float clip[4] = {0.85f, 0.35f, 0.85f, 0.3f};
    static const float trigger[4] = {1.0f, 0.6f, 0.1f, 0.3f};
    static const float hint[4] = {0.3f, 0.9f, 0.9f, 0.2f};
    static const float skip[4] = {0.4f, 0.4f, 0.45f, 0.3f};
    static const float origin[4] = {0.95f, 0.85f, 0.2f, 0.35f};
    const float *c = NULL;
    if (flags & AL_MATERIAL_CLIP) c = clip;
    else if (flags & AL_MATERIAL_ORIGIN)
        c = origin;
    else if (flags & AL_MATERIAL_HINT) c = hint;
    else if (role == AL_ROLE_NONSOLID || (flags & (AL_MATERIAL_NONSOLID | AL_MATERIAL_TRIGGER)))
        c = trigger;
    else if (flags & AL_MATERIAL_NODRAW) c = skip;
    if (!c) return false;
    memcpy(rgba, c, sizeof(float[4]));
    return true;
}

static void edge_colour(al_entity_role role, bool tool, const char *classname, float rgba[4])
{
    rgba[3] = 1.0f;
    if (tool) {
        rgba[0] = 0.85f, rgba[1] = 0.45f, rgba[2] = 0.85f;
    } else if (role == AL_ROLE_WORLD) {
        rgba[0] = rgba[1] = rgba[2] = 0.82f;
    } else {
        class_colour(classname, rgba);
    }
}

/* A box as 12 triangles and 12 edges. */
static void add_box(vbuf *tris, lbuf *lines, const double mn[3], const double mx[3],
                    const float fill[4], const float edge[4])
{
    double c[8][3];
    for (int i = 0; i < 8; i++) {
        c[i][0] = i & 1 ? mx[0] : mn[0];
        c[i][1] = i & 2 ? mx[1] : mn[1];
        c[i][2] = i & 4 ? mx[2] : mn[2];
    }
    /* Quads, counter-clockwise seen from outside, then flipped to clockwise. */
    static const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    static const double normals[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                         {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
    for (int q = 0; q < 6; q++) {
        double pts[4][3];
        for (int v = 0; v < 4; v++) memcpy(pts[v], c[quads[q][3 - v]], sizeof pts[v]);
        add_fan(tris, (const double (*)[3]) pts, 4, normals[q], fill);
    }
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            if (!(i & (1 << k))) add_line(lines, c[i], c[i | (1 << k)], edge);
}

/* Three great circles of radius R around C: a light's reach. */
static void add_sphere_lines(lbuf *lines, const double c[3], double r, const float rgba[4])
{
    enum { SEGMENTS = 48 };
    for (int axis = 0; axis < 3; axis++) {
        int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int i = 0; i < SEGMENTS; i++) {
            double t0 = 2 * M_PI * i / SEGMENTS, t1 = 2 * M_PI * (i + 1) / SEGMENTS;
            double p0[3], p1[3];
            memcpy(p0, c, sizeof p0);
            memcpy(p1, c, sizeof p1);
            p0[a] += r * cos(t0), p0[b] += r * sin(t0);
            p1[a] += r * cos(t1), p1[b] += r * sin(t1);
            add_line(lines, p0, p1, rgba);
        }
    }
}

static void bounds_add(double mins[3], double maxs[3], bool *has, const double lo[3],
                       const double hi[3])
{
    for (int k = 0; k < 3; k++) {
        if (!*has || lo[k] < mins[k]) mins[k] = lo[k];
        if (!*has || hi[k] > maxs[k]) maxs[k] = hi[k];
    }
    *has = true;
}

/* --- meshes -------------------------------------------------------------------------- */

static uint64_t next_serial(void)
{
    static uint64_t serial;
    return __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
}

al_mesh *al_mesh_ref(al_mesh *m)
{
    if (m) __atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
    return m;
}

void al_mesh_release(al_mesh *m)
{
    if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    free(m->tris), free(m->lines), free(m->radius), free(m->faces), free(m->face_local);
    free(m->points);
    free(m);
}

static al_mesh *mesh_new(int64_t id, uint64_t key)
{
    al_mesh *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->refs = 1;
    m->serial = next_serial();
    m->id = id;
    m->key = key;
    return m;
}

/* A face's lightmap place in texels, from the solver (false: it has none). */
static bool face_lightmap(const al_rad *rad, int brush, int face, double lm[8])
{
    al_rad_face_map fm;
    if (!rad || !al_rad_face(rad, brush, face, &fm)) return false;
    memcpy(lm, fm.s_texel_axis, 3 * sizeof(double));
    lm[3] = fm.s_texel_offset;
    memcpy(lm + 4, fm.t_texel_axis, 3 * sizeof(double));
    lm[7] = fm.t_texel_offset;
    return true;
}

/* Whether mesh M's faces have the places RAD gives brush B's faces. */
static bool same_lightmaps(const al_mesh *m, const al_rad *rad, int b)
{
    for (int i = 0; i < m->face_count; i++) {
        const al_mesh_face *f = &m->faces[i];
        if (f->flags & AL_FACE_TOOL) continue; /* never lit */
        double lm[8];
        bool lit = face_lightmap(rad, b, f->face, lm);
        if (lit != ((f->flags & AL_FACE_LIT) != 0)) return false;
        if (lit && memcmp(lm, f->lightmap, sizeof lm) != 0) return false;
    }
    return true;
}

/* The input's material colour of face material M. */
static void material_colour(const al_scene_desc *d, int m, float rgba[4])
{
    const al_input *in = d->input;
    if (m < 0 || m >= in->material_count) return;
    if (d->material_colours) memcpy(rgba, d->material_colours[m], sizeof(float[3]));
    else memcpy(rgba, in->materials[m].colour, sizeof(float[3]));
}

/* The mesh of brush B, its polygons built by FB into P. NULL when the brush has no faces
 * (*NOMEM says whether memory ran out). */
static al_mesh *build_brush(const al_scene_desc *d, al_face_builder *fb, al_face_polys *p, int b,
                            int64_t id, uint64_t key, bool *nomem)
{
    const al_input *in = d->input;
    const al_brush_desc *bd = &in->brushes[b];
    al_status st = al_face_builder_brush(fb, in, b, p);
    if (st != AL_OK) {
        *nomem = st == AL_ERR_NOMEM;
        return NULL;
    }
    if (p->face_count == 0) return NULL;
    al_mesh *m = mesh_new(id, key);
    int32_t points = p->point_count;
    if (m) {
        m->faces = calloc((size_t) p->face_count, sizeof *m->faces);
        m->points = malloc((size_t) points * sizeof *m->points);
        m->input_face_count = bd->face_count > 0 ? bd->face_count : 0;
        m->face_local = malloc(((size_t) m->input_face_count + 1) * sizeof *m->face_local);
    }
    if (!m || !m->faces || !m->points || !m->face_local) {
        al_mesh_release(m);
        *nomem = true;
        return NULL;
    }
    for (int i = 0; i < m->input_face_count; i++) m->face_local[i] = -1;
    memcpy(m->points, p->points, (size_t) points * sizeof *m->points);
    memcpy(m->mins, p->brush_mins[0], sizeof m->mins);
    memcpy(m->maxs, p->brush_maxs[0], sizeof m->maxs);
    m->has_bounds = true;
    const char *classname = bd->entity >= 0 && bd->entity < in->entity_count
                                ? in->entities[bd->entity].classname
                                : NULL;
    al_entity_role role = bd->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
    bool all_tool = true;
    vbuf tris = {0};
    lbuf edges = {0};
    for (int i = 0; i < p->face_count; i++) {
        const al_face_poly *fp = &p->faces[i];
        uint32_t mflags = fp->material >= 0 && fp->material < in->material_count
                              ? in->materials[fp->material].flags
                              : 0;
        float rgba[4] = {0.6f, 0.6f, 0.6f, 1.0f};
        bool tool = tool_colour(mflags, role, rgba);
        if (!tool) material_colour(d, fp->material, rgba);
        all_tool = all_tool && tool;
        al_mesh_face *f = &m->faces[m->face_count++];
        f->face = fp->face;
        f->flags = (tool ? AL_FACE_TOOL : 0) | (mflags & AL_MATERIAL_SKY ? AL_FACE_SKY : 0);
        memcpy(f->normal, fp->normal, sizeof f->normal);
        f->dist = fp->dist;
        if (fp->face >= 0 && fp->face < m->input_face_count)
            m->face_local[fp->face] = (int16_t) (m->face_count - 1);
        const double (*pts)[3] = p->points + fp->first_point;
        f->first_point = fp->first_point;
        f->point_count = fp->point_count;
        for (int k = 0; k < 3; k++) f->mins[k] = f->maxs[k] = (float) pts[0][k];
        for (int v = 1; v < fp->point_count; v++)
            for (int k = 0; k < 3; k++) {
                f->mins[k] = fminf(f->mins[k], (float) pts[v][k]);
                f->maxs[k] = fmaxf(f->maxs[k], (float) pts[v][k]);
            }
        /* Tool faces never have a lightmap; the solver says which others do. */
        bool mapped = !tool && face_lightmap(d->rad, b, fp->face, f->lightmap);
        if (mapped) {
            f->flags |= AL_FACE_LIT;
            m->lit_faces++;
        }
        /* Tool faces keep their translucent colour; the others show their material's
         * texture through the face's projection. */
        int32_t input_face = bd->first_face + fp->face;
        bool textured = !tool && fp->material >= 0 && fp->material < in->material_count &&
                        fp->face >= 0 && fp->face < bd->face_count && input_face < in->face_count;
        face_texture tex = {
            .material = textured ? fp->material + 1 : 0,
            .axes = textured ? (const double (*)[4]) in->faces[input_face].texture_axes : NULL,
        };
        f->first_tri = tris.count;
        add_fan_mapped(&tris, pts, fp->point_count, fp->normal, rgba, mapped ? f->lightmap : NULL,
                       textured ? &tex : NULL);
        f->tri_count = tris.count - f->first_tri;
        float ec[4];
        edge_colour(role, tool, classname, ec);
        if (role == AL_ROLE_DETAIL && !tool) ec[0] = 0.55f, ec[1] = 0.75f, ec[2] = 1.0f;
        f->first_edge = edges.count;
        for (int v = 0; v < fp->point_count; v++)
            add_line(&edges, pts[v], pts[(v + 1) % fp->point_count], ec);
        f->edge_count = edges.count - f->first_edge;
    }
    m->flags = all_tool ? AL_FACE_TOOL : 0;
    m->tris = tris.v, m->tri_count = tris.count;
    m->lines = edges.v, m->line_count = edges.count;
    if (tris.failed || edges.failed) {
        al_mesh_release(m);
        *nomem = true;
        return NULL;
    }
    return m;
}

/* Whether entity E is drawn as a box: a point entity (no brushes) with an origin; its
 * origin into O. */
static bool point_entity(const al_input *in, int e, const bool *has_brush, double o[3])
{
    if (e <= 0 || e >= in->entity_count || has_brush[e]) return false;
    const char *origin = property(&in->entities[e], "origin");
    return origin && sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3 &&
           isfinite(o[0] + o[1] + o[2]);
}

/* The box (and a light's reach) of point entity E at O. NULL if memory ran out. */
static al_mesh *build_entity(const al_input *in, int e, const double o[3], int64_t id, uint64_t key,
                             const al_entity_look *look)
{
    const al_entity_desc *ed = &in->entities[e];
    al_mesh *m = mesh_new(id, key);
    if (!m) return NULL;
    if (look && look->has_box && look->mins[0] < look->maxs[0] && look->mins[1] < look->maxs[1] &&
        look->mins[2] < look->maxs[2]) {
        memcpy(m->mins, look->mins, sizeof m->mins);
        memcpy(m->maxs, look->maxs, sizeof m->maxs);
    } else {
        class_box(ed->classname, m->mins, m->maxs);
    }
    for (int k = 0; k < 3; k++) m->mins[k] += o[k], m->maxs[k] += o[k];
    m->has_bounds = true;
    float rgb[3];
    if (look && look->has_colour)
        memcpy(rgb, look->colour, sizeof rgb);
    else
        class_colour(ed->classname, rgb);
    float fill[4] = {rgb[0], rgb[1], rgb[2], 0.45f}, edge[4] = {rgb[0], rgb[1], rgb[2], 1};
    vbuf tris = {0};
    lbuf lines = {0}, radius = {0};
    add_box(&tris, &lines, m->mins, m->maxs, fill, edge);
    if (ed->classname && strncmp(ed->classname, "light", 5) == 0) {
        const char *value = property(ed, "light");
        double r = value ? atof(value) : 300.0;
        if (!(r > 0) || r > 1e5) r = 300.0;
        float faint[4] = {rgb[0], rgb[1], rgb[2], 0.35f};
        add_sphere_lines(&radius, o, r, faint);
        for (int k = 0; k < 3; k++) m->reach_mins[k] = o[k] - r, m->reach_maxs[k] = o[k] + r;
    }
    m->tris = tris.v, m->tri_count = tris.count;
    m->lines = lines.v, m->line_count = lines.count;
    m->radius = radius.v, m->radius_count = radius.count;
    if (tris.failed || lines.failed || radius.failed) {
        al_mesh_release(m);
        return NULL;
    }
    return m;
}

/* --- the world's overlays ---------------------------------------------------------------- */

bool al_scene_portal_mesh(const al_world *w, al_vertex **tris, int32_t *tri_count,
                          al_line_vertex **lines, int32_t *line_count)
{
    static const float fill[4] = {0.25f, 0.65f, 1.0f, 0.22f};
    static const float edge[4] = {0.55f, 0.85f, 1.0f, 0.9f};
    vbuf t = {0};
    lbuf l = {0};
    int n = w ? al_world_portal_count(w) : 0;
    for (int i = 0; i < n; i++) {
        al_portal_info pi;
        if (!al_world_portal(w, i, &pi) || pi.point_count < 3 || pi.leaf[0] < 0 || pi.leaf[1] < 0)
            continue;
        add_fan(&t, pi.points, pi.point_count, pi.normal, fill);
        for (int v = 0; v < pi.point_count; v++)
            add_line(&l, pi.points[v], pi.points[(v + 1) % pi.point_count], edge);
    }
    *tris = t.v, *tri_count = t.count;
    *lines = l.v, *line_count = l.count;
    if (t.failed || l.failed) {
        free(t.v), free(l.v);
        *tris = NULL;
        *lines = NULL;
        *tri_count = *line_count = 0;
        return false;
    }
    return true;
}

static bool build_world_overlays(al_scene *s)
{
    const al_world *w = s->world;
    al_vis_stats vis;
    al_world_vis_stats(w, &vis);
    s->stats.portals = vis.portals; /* those between two vis leaves: the ones drawn */
    lbuf leak = {0};
    al_leak_info li;
    if (al_world_leak(w, &li)) {
        static const float red[4] = {1.0f, 0.15f, 0.1f, 1.0f};
        for (int i = 0; i + 1 < li.point_count; i++) add_line(&leak, li.points[i], li.points[i + 1], red);
        s->stats.leak_points = li.point_count;
    }
    s->leak_lines = leak.v, s->leak_line_count = leak.count;
    /* Which faces the vis leaves list: those are culled by the PVS. */
    int leaves = al_world_vis_leaf_count(w);
    if (leaves > 0) {
        s->in_leaves = calloc((size_t) s->face_count + 1, 1);
        if (!s->in_leaves) return false;
        for (int l = 0; l < leaves; l++) {
            int count;
            const al_leaf_face *lf = al_world_leaf_faces(w, l, &count);
            for (int i = 0; i < count; i++) {
                int f = al_scene_face_index(s, lf[i].brush, lf[i].face, NULL);
                if (f >= 0) s->in_leaves[f] = 1;
            }
        }
    }
    return !leak.failed;
}

/* --- the scene ------------------------------------------------------------------------- */

int al_scene_face_index(const al_scene *s, int brush, int face, const al_mesh_face **mesh_face)
{
    if (brush < 0 || brush >= s->brush_count || !s->brushes[brush]) return -1;
    const al_mesh *m = s->brushes[brush];
    if (face < 0 || face >= m->input_face_count || m->face_local[face] < 0) return -1;
    if (mesh_face) *mesh_face = &m->faces[m->face_local[face]];
    return s->brush_first_face[brush] + m->face_local[face];
}

/* PREVIOUS's brush meshes by id, for a scene whose brushes are not in the same places:
 * an open-addressing table (NULL when PREVIOUS has no ids, or memory ran out). */
typedef struct mesh_table {
    al_mesh **slots;
    size_t mask;
} mesh_table;

static size_t mesh_hash(int64_t id, size_t mask)
{
    uint64_t z = (uint64_t) id * 0x9E3779B97F4A7C15ull;
    return (size_t) (z ^ (z >> 31)) & mask;
}

static bool mesh_table_build(mesh_table *t, al_mesh *const *meshes, int32_t count)
{
    size_t cap = 64;
    while (cap < (size_t) count * 2) cap *= 2;
    t->slots = calloc(cap, sizeof *t->slots);
    t->mask = cap - 1;
    if (!t->slots) return false;
    for (int32_t i = 0; i < count; i++) {
        al_mesh *m = meshes[i];
        if (!m) continue;
        size_t j = mesh_hash(m->id, t->mask);
        while (t->slots[j]) j = (j + 1) & t->mask;
        t->slots[j] = m;
    }
    return true;
}

static al_mesh *mesh_table_find(const mesh_table *t, int64_t id)
{
    if (!t->slots) return NULL;
    for (size_t j = mesh_hash(id, t->mask); t->slots[j]; j = (j + 1) & t->mask)
        if (t->slots[j]->id == id) return t->slots[j];
    return NULL;
}

/* PREVIOUS's mesh for the thing of id ID at index I: the one at the same index if it has
 * that id (nothing was added or removed before it), else the table's. */
static al_mesh *previous_mesh(al_mesh *const *meshes, int32_t count, const mesh_table *t,
                              int32_t i, int64_t id)
{
    if (i < count && meshes[i] && meshes[i]->id == id) return meshes[i];
    return mesh_table_find(t, id);
}

/* The names and flags of IN's materials, for the renderer's textures. */
static bool copy_materials(al_scene *s, const al_input *in)
{
    int32_t n = in->material_count > 0 ? in->material_count : 0;
    s->material_names = calloc((size_t) n + 1, sizeof *s->material_names);
    s->material_flags = calloc((size_t) n + 1, sizeof *s->material_flags);
    if (!s->material_names || !s->material_flags) return false;
    s->material_count = n;
    for (int32_t m = 0; m < n; m++) {
        const char *name = in->materials[m].name ? in->materials[m].name : "";
        s->material_names[m] = strdup(name);
        if (!s->material_names[m]) return false;
        s->material_flags[m] = in->materials[m].flags;
    }
    return true;
}

/* The meshes build_brushes makes anew, on every core when there are many (opening a
 * large map); each worker has its own face builder and polygons. */
typedef struct brush_builds {
    al_scene *scene;
    const al_scene_desc *desc;
    const int32_t *to_build; /* brush indices */
    al_face_builder **builders;
    al_face_polys *polys;
    int failed;
} brush_builds;

static void build_brush_job(void *context, int index, int worker)
{
    brush_builds *j = context;
    if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return;
    const al_scene_desc *d = j->desc;
    int32_t b = j->to_build[index];
    if (!j->builders[worker] && !(j->builders[worker] = al_face_builder_create())) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    bool nomem = false;
    int64_t id = d->brush_ids ? d->brush_ids[b] : b;
    uint64_t key = d->brush_keys ? d->brush_keys[b] : 0;
    j->scene->brushes[b] =
        build_brush(d, j->builders[worker], &j->polys[worker], b, id, key, &nomem);
    if (nomem) __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
}

/* Fewer meshes than this to build are built on the calling thread (an edit's few). */
#define PARALLEL_BRUSHES 256

static bool build_brushes(al_scene *s, const al_scene_desc *d)
{
    const al_input *in = d->input;
    const al_scene *prev = d->previous;
    bool keyed = prev && d->brush_ids && d->brush_keys;
    mesh_table table = {0};
    bool same_order = keyed && prev->brush_ids && prev->brush_count == s->brush_count &&
                      memcmp(prev->brush_ids, d->brush_ids,
                             (size_t) s->brush_count * sizeof *d->brush_ids) == 0;
    if (keyed && !same_order && !mesh_table_build(&table, prev->brushes, prev->brush_count))
        return false;
    int32_t *to_build = malloc(((size_t) s->brush_count + 1) * sizeof *to_build);
    if (!to_build) {
        free(table.slots);
        return false;
    }
    int32_t builds = 0;
    for (int32_t b = 0; b < s->brush_count; b++) {
        int64_t id = d->brush_ids ? d->brush_ids[b] : b;
        uint64_t key = d->brush_keys ? d->brush_keys[b] : 0;
        s->brush_entity[b] = in->brushes[b].entity;
        al_mesh *old = keyed ? previous_mesh(prev->brushes, prev->brush_count, &table, b, id)
                             : NULL;
        /* Without a solver the previous meshes' lightmap places stand (the lightmap shown
         * is still their solver's); with one, they must be its. */
        if (old && old->key == key && (!d->rad || same_lightmaps(old, d->rad, b))) {
            s->brushes[b] = al_mesh_ref(old);
            s->stats.meshes_kept++;
        } else {
            to_build[builds++] = b;
        }
    }
    free(table.slots);
    int threads = builds >= PARALLEL_BRUSHES ? al_cpu_count() : 1;
    brush_builds job = {.scene = s,
                        .desc = d,
                        .to_build = to_build,
                        .builders = calloc((size_t) threads, sizeof *job.builders),
                        .polys = calloc((size_t) threads, sizeof *job.polys)};
    bool ok = job.builders && job.polys;
    if (ok && builds > 0) {
        al_parallel_for(builds, threads, build_brush_job, &job);
        ok = !job.failed;
    }
    for (int w = 0; w < threads && job.builders; w++) al_face_builder_destroy(job.builders[w]);
    for (int w = 0; w < threads && job.polys; w++) al_face_polys_free(&job.polys[w]);
    free(job.builders);
    free(job.polys);
    free(to_build);
    s->stats.meshes_built += builds;
    for (int32_t b = 0; b < s->brush_count; b++) {
        al_mesh *m = s->brushes[b];
        s->brush_first_face[b] = s->face_count;
        if (!m) continue;
        s->face_count += m->face_count;
        s->stats.triangles += m->tri_count / 3;
        s->stats.edges += m->line_count / 2;
        s->stats.lit_faces += m->lit_faces;
        bounds_add(s->mins, s->maxs, &s->has_bounds, m->mins, m->maxs);
    }
    s->brush_first_face[s->brush_count] = s->face_count;
    s->stats.faces = s->face_count;
    return ok;
}

static bool build_entities(al_scene *s, const al_scene_desc *d)
{
    const al_input *in = d->input;
    const al_scene *prev = d->previous;
    int32_t n = s->input_entity_count;
    bool *has_brush = calloc((size_t) n + 1, sizeof *has_brush);
    if (!has_brush) return false;
    for (int b = 0; b < in->brush_count; b++)
        if (in->brushes[b].entity >= 0 && in->brushes[b].entity < n)
            has_brush[in->brushes[b].entity] = true;
    bool keyed = prev && d->entity_ids && d->entity_keys;
    mesh_table table = {0};
    bool ok = !keyed || mesh_table_build(&table, prev->entities, prev->entity_count);
    for (int32_t e = 0; ok && e < n; e++) {
        s->mesh_of_entity[e] = -1;
        double o[3];
        if (!point_entity(in, e, has_brush, o)) continue;
        int64_t id = d->entity_ids ? d->entity_ids[e] : e;
        uint64_t key = d->entity_keys ? d->entity_keys[e] : 0;
        al_mesh *old = keyed ? mesh_table_find(&table, id) : NULL;
        al_mesh *m;
        if (old && old->key == key) {
            m = al_mesh_ref(old);
            s->stats.meshes_kept++;
        } else {
            m = build_entity(in, e, o, id, key, d->entity_looks ? &d->entity_looks[e] : NULL);
            s->stats.meshes_built++;
            ok = m != NULL;
            if (!m) break;
        }
        s->mesh_of_entity[e] = s->entity_count;
        s->entity_index[s->entity_count] = e;
        s->entities[s->entity_count++] = m;
        bounds_add(s->mins, s->maxs, &s->has_bounds, m->mins, m->maxs);
    }
    s->stats.entities = s->entity_count;
    free(table.slots);
    free(has_brush);
    return ok;
}

al_status al_scene_build(const al_scene_desc *desc, al_scene **out)
{
    *out = NULL;
    if (!desc || !desc->input) return AL_ERR_INVALID_ARGUMENT;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const al_input *in = desc->input;
    al_scene *s = calloc(1, sizeof *s);
    if (!s) return AL_ERR_NOMEM;
    s->world = desc->world;
    s->brush_count = in->brush_count > 0 ? in->brush_count : 0;
    s->input_entity_count = in->entity_count > 0 ? in->entity_count : 0;
    size_t nb = (size_t) s->brush_count + 1, ne = (size_t) s->input_entity_count + 1;
    s->brushes = calloc(nb, sizeof *s->brushes);
    s->brush_first_face = calloc(nb, sizeof *s->brush_first_face);
    s->brush_entity = calloc(nb, sizeof *s->brush_entity);
    s->entities = calloc(ne, sizeof *s->entities);
    s->entity_index = calloc(ne, sizeof *s->entity_index);
    s->mesh_of_entity = calloc(ne, sizeof *s->mesh_of_entity);
    if (desc->brush_ids) {
        s->brush_ids = malloc(nb * sizeof *s->brush_ids);
        if (s->brush_ids) memcpy(s->brush_ids, desc->brush_ids, (nb - 1) * sizeof *s->brush_ids);
    }
    if (!s->brushes || !s->brush_first_face || !s->brush_entity || !s->entities ||
        !s->entity_index || !s->mesh_of_entity || (desc->brush_ids && !s->brush_ids)) {
        al_scene_destroy(s);
        return AL_ERR_NOMEM;
    }
    if (desc->rad) al_rad_atlas_size(desc->rad, &s->lightmap_width, &s->lightmap_height);
    else if (desc->previous) {
        /* The faces kept keep their places in the previous scene's atlas. */
        s->lightmap_width = desc->previous->lightmap_width;
        s->lightmap_height = desc->previous->lightmap_height;
    }
    bool ok = copy_materials(s, desc->input) && build_brushes(s, desc) && build_entities(s, desc) &&
              (!s->world || build_world_overlays(s)) && al_scene_bvh_build(s, desc->previous);
    if (!ok) {
        al_scene_destroy(s);
        return AL_ERR_NOMEM;
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->stats.ms_build = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    *out = s;
    return AL_OK;
}

void al_scene_destroy(al_scene *s)
{
    if (!s) return;
    for (int32_t b = 0; s->brushes && b < s->brush_count; b++) al_mesh_release(s->brushes[b]);
    for (int32_t e = 0; s->entities && e < s->entity_count; e++) al_mesh_release(s->entities[e]);
    free(s->brushes), free(s->brush_ids), free(s->brush_first_face), free(s->brush_entity);
    free(s->entities), free(s->entity_index), free(s->mesh_of_entity), free(s->in_leaves);
    free(s->leak_lines);
    for (int32_t m = 0; s->material_names && m < s->material_count; m++) free(s->material_names[m]);
    free(s->material_names), free(s->material_flags);
    al_scene_bvh_release(s->bvh);
    free(s);
}

void al_scene_get_stats(const al_scene *s, al_scene_stats *out)
{
    *out = s->stats;
}

bool al_scene_bounds(const al_scene *s, double mins[3], double maxs[3])
{
    if (!s->has_bounds) return false;
    memcpy(mins, s->mins, sizeof s->mins);
    memcpy(maxs, s->maxs, sizeof s->maxs);
    return true;
}

bool al_scene_brush_bounds(const al_scene *s, int brush, double mins[3], double maxs[3])
{
    if (brush < 0 || brush >= s->brush_count || !s->brushes[brush]) return false;
    memcpy(mins, s->brushes[brush]->mins, sizeof(double[3]));
    memcpy(maxs, s->brushes[brush]->maxs, sizeof(double[3]));
    return true;
}

bool al_scene_entity_bounds(const al_scene *s, int entity, double mins[3], double maxs[3])
{
    if (entity >= 0 && entity < s->input_entity_count && s->mesh_of_entity[entity] >= 0) {
        const al_mesh *m = s->entities[s->mesh_of_entity[entity]];
        memcpy(mins, m->mins, sizeof(double[3]));
        memcpy(maxs, m->maxs, sizeof(double[3]));
        return true;
    }
    bool any = false;
    for (int b = 0; b < s->brush_count; b++) {
        double mn[3], mx[3];
        if (s->brush_entity[b] != entity || !al_scene_brush_bounds(s, b, mn, mx)) continue;
        bounds_add(mins, maxs, &any, mn, mx);
    }
    return any;
}

int al_scene_brush_face_count(const al_scene *s, int brush)
{
    if (brush < 0 || brush >= s->brush_count || !s->brushes[brush]) return 0;
    return s->brushes[brush]->face_count;
}

const double (*al_scene_brush_face(const al_scene *s, int brush, int i, int *count,
                                   int *face))[3]
{
    if (i < 0 || i >= al_scene_brush_face_count(s, brush)) return NULL;
    const al_mesh *m = s->brushes[brush];
    const al_mesh_face *f = &m->faces[i];
    *count = f->point_count;
    if (face) *face = f->face;
    return (const double (*)[3]) m->points[f->first_point];
}
