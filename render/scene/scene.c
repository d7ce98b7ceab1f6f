/* Scene meshes (al-render.h): everything the renderer draws for one map, built on the CPU.
 *
 * From the brush polygons: one fan of triangles per face, coloured by its material (tool
 * faces such as clip and trigger translucent in a colour of their kind), with the face's
 * place in the lightmap atlas when a radiosity solution lights it, and the face's
 * outline, coloured by what the brush is (world, detail, an entity's model, a tool). From
 * the entities: a box per point entity in its class's colour, with the radius of lights.
 * From the compiled world, when there is one: the portals and the leak path, and which
 * faces the vis leaves list (those are culled by the PVS, the others only by the frustum).
 *
 * Expected workload: once per compile; lq-e3m4 (9,000 brushes, 60,000 faces) in tens of
 * milliseconds on the worker thread. */
#include "scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Growable vertex array. */
typedef struct vbuf {
    al_vertex *v;
    int32_t count, cap;
    bool failed;
} vbuf;

static al_vertex *vbuf_add(vbuf *b, int32_t n)
{
    if (b->failed) return NULL;
    if (b->count + n > b->cap) {
        int32_t cap = b->cap ? b->cap : 1024;
        while (cap < b->count + n) cap *= 2;
        al_vertex *v = realloc(b->v, (size_t) cap * sizeof *v);
        if (!v) {
            b->failed = true;
            return NULL;
        }
        b->v = v;
        b->cap = cap;
    }
    al_vertex *out = b->v + b->count;
    b->count += n;
    return out;
}

/* A vertex at P; with FM (a face's lightmap) its atlas coordinates, else the marker. */
static void put_mapped(al_vertex *v, const double p[3], const double n[3], const float rgba[4],
                       const al_rad_face_map *fm)
{
    for (int k = 0; k < 3; k++) {
        v->pos[k] = (float) p[k];
        v->normal[k] = n ? (float) n[k] : 0.0f;
    }
    for (int k = 0; k < 4; k++) {
        float c = rgba[k] < 0 ? 0 : rgba[k] > 1 ? 1 : rgba[k];
        v->colour[k] = (uint8_t) lrintf(c * 255.0f);
    }
    if (fm) {
        v->lightmap[0] = (float) (p[0] * fm->s_axis[0] + p[1] * fm->s_axis[1] +
                                  p[2] * fm->s_axis[2] + fm->s_offset);
        v->lightmap[1] = (float) (p[0] * fm->t_axis[0] + p[1] * fm->t_axis[1] +
                                  p[2] * fm->t_axis[2] + fm->t_offset);
    } else {
        v->lightmap[0] = v->lightmap[1] = AL_NO_LIGHTMAP;
    }
}

static void put(al_vertex *v, const double p[3], const double n[3], const float rgba[4])
{
    put_mapped(v, p, n, rgba, NULL);
}

static void add_line(vbuf *b, const double a[3], const double c[3], const float rgba[4])
{
    al_vertex *v = vbuf_add(b, 2);
    if (!v) return;
    put(&v[0], a, NULL, rgba);
    put(&v[1], c, NULL, rgba);
}

/* A fan of triangles over the convex polygon PTS (N points), into B; FM (may be NULL)
 * places it in the lightmap atlas. */
static void add_fan_mapped(vbuf *b, const double (*pts)[3], int n, const double normal[3],
                           const float rgba[4], const al_rad_face_map *fm)
{
    al_vertex *v = vbuf_add(b, 3 * (n - 2));
    if (!v) return;
    for (int i = 1; i + 1 < n; i++, v += 3) {
        put_mapped(&v[0], pts[0], normal, rgba, fm);
        put_mapped(&v[1], pts[i], normal, rgba, fm);
        put_mapped(&v[2], pts[i + 1], normal, rgba, fm);
    }
}

static void add_fan(vbuf *b, const double (*pts)[3], int n, const double normal[3],
                    const float rgba[4])
{
    add_fan_mapped(b, pts, n, normal, rgba, NULL);
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
    const float *c = NULL;
    if (flags & AL_MATERIAL_CLIP) c = clip;
    else if (flags & AL_MATERIAL_HINT) c = hint;
    else if (role == AL_ROLE_NONSOLID || (flags & AL_MATERIAL_NONSOLID)) c = trigger;
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

static void bounds_add(al_scene *s, const double mins[3], const double maxs[3])
{
    for (int k = 0; k < 3; k++) {
        if (!s->has_bounds || mins[k] < s->mins[k]) s->mins[k] = mins[k];
        if (!s->has_bounds || maxs[k] > s->maxs[k]) s->maxs[k] = maxs[k];
    }
    s->has_bounds = true;
}

static void build_faces(al_scene *s, const al_scene_desc *d, vbuf *tris, vbuf *edges)
{
    const al_input *in = d->input;
    const al_face_polys *p = d->polys;
    for (int32_t b = 0; b < s->brush_count; b++) {
        const al_brush_desc *bd = &in->brushes[b];
        s->brush_first_face[b] = s->face_count;
        s->brush_entity[b] = bd->entity;
        s->brush_first_input_face[b] = bd->first_face;
        const char *classname =
            bd->entity >= 0 && bd->entity < in->entity_count ? in->entities[bd->entity].classname
                                                              : NULL;
        al_entity_role role = bd->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
        int first = b < p->brush_count ? p->brush_first[b] : 0;
        int end = b < p->brush_count ? p->brush_first[b + 1] : 0;
        bool all_tool = first < end;
        memcpy(s->brush_mins[b], p->brush_mins[b], sizeof s->brush_mins[b]);
        memcpy(s->brush_maxs[b], p->brush_maxs[b], sizeof s->brush_maxs[b]);
        if (first < end) bounds_add(s, p->brush_mins[b], p->brush_maxs[b]);
        for (int i = first; i < end; i++) {
            const al_face_poly *fp = &p->faces[i];
            uint32_t mflags = fp->material >= 0 && fp->material < in->material_count
                                  ? in->materials[fp->material].flags
                                  : 0;
            float rgba[4] = {0.6f, 0.6f, 0.6f, 1.0f};
            bool tool = tool_colour(mflags, role, rgba);
            if (!tool && d->material_colours && fp->material >= 0 &&
                fp->material < in->material_count)
                memcpy(rgba, d->material_colours[fp->material], sizeof(float[3]));
            all_tool = all_tool && tool;
            al_scene_face *f = &s->faces[s->face_count++];
            f->brush = b;
            f->face = fp->face;
            f->flags = (tool ? AL_FACE_TOOL : 0) | (mflags & AL_MATERIAL_SKY ? AL_FACE_SKY : 0);
            memcpy(f->normal, fp->normal, sizeof f->normal);
            f->dist = fp->dist;
            int input_face = bd->first_face + fp->face;
            if (input_face >= 0 && input_face < s->input_face_count)
                s->face_of_input[input_face] = s->face_count - 1;
            const double (*pts)[3] = p->points + fp->first_point;
            for (int k = 0; k < 3; k++) f->mins[k] = f->maxs[k] = (float) pts[0][k];
            for (int v = 1; v < fp->point_count; v++)
                for (int k = 0; k < 3; k++) {
                    f->mins[k] = fminf(f->mins[k], (float) pts[v][k]);
                    f->maxs[k] = fmaxf(f->maxs[k], (float) pts[v][k]);
                }
            /* Tool faces never have a lightmap; the solver says which others do. */
            al_rad_face_map fm;
            bool mapped = !tool && d->rad && al_rad_face(d->rad, b, fp->face, &fm);
            s->stats.lit_faces += mapped;
            f->first_tri = tris->count;
            add_fan_mapped(tris, pts, fp->point_count, fp->normal, rgba, mapped ? &fm : NULL);
            f->tri_count = tris->count - f->first_tri;
            float ec[4];
            edge_colour(role, tool, classname, ec);
            if (role == AL_ROLE_DETAIL && !tool) ec[0] = 0.55f, ec[1] = 0.75f, ec[2] = 1.0f;
            f->first_edge = edges->count;
            for (int v = 0; v < fp->point_count; v++)
                add_line(edges, pts[v], pts[(v + 1) % fp->point_count], ec);
            f->edge_count = edges->count - f->first_edge;
        }
        s->brush_flags[b] = all_tool ? AL_FACE_TOOL : 0;
    }
    s->brush_first_face[s->brush_count] = s->face_count;
}

/* A box as 12 triangles and 12 edges. */
static void add_box(vbuf *tris, vbuf *lines, const double mn[3], const double mx[3],
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
static void add_sphere_lines(vbuf *lines, const double c[3], double r, const float rgba[4])
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

static void build_entities(al_scene *s, const al_input *in, vbuf *tris, vbuf *lines,
                           vbuf *radius_lines)
{
    bool *has_brush = calloc((size_t) in->entity_count + 1, sizeof *has_brush);
    s->entities = calloc((size_t) in->entity_count + 1, sizeof *s->entities);
    if (!has_brush || !s->entities) {
        tris->failed = true;
        free(has_brush);
        return;
    }
    for (int b = 0; b < in->brush_count; b++)
        if (in->brushes[b].entity >= 0 && in->brushes[b].entity < in->entity_count)
            has_brush[in->brushes[b].entity] = true;
    for (int e = 1; e < in->entity_count; e++) {
        const al_entity_desc *ed = &in->entities[e];
        const char *origin = property(ed, "origin");
        double o[3];
        if (has_brush[e] || !origin || sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) != 3 ||
            !isfinite(o[0] + o[1] + o[2]))
            continue;
        al_scene_entity *se = &s->entities[s->entity_count++];
        se->entity = e;
        class_box(ed->classname, se->mins, se->maxs);
        for (int k = 0; k < 3; k++) se->mins[k] += o[k], se->maxs[k] += o[k];
        float rgb[3];
        class_colour(ed->classname, rgb);
        float fill[4] = {rgb[0], rgb[1], rgb[2], 0.45f}, edge[4] = {rgb[0], rgb[1], rgb[2], 1};
        se->first_tri = tris->count;
        se->first_line = lines->count;
        add_box(tris, lines, se->mins, se->maxs, fill, edge);
        if (ed->classname && strncmp(ed->classname, "light", 5) == 0) {
            const char *value = property(ed, "light");
            double radius = value ? atof(value) : 300.0;
            if (!(radius > 0) || radius > 1e5) radius = 300.0;
            float faint[4] = {rgb[0], rgb[1], rgb[2], 0.35f};
            se->first_radius = radius_lines->count;
            add_sphere_lines(radius_lines, o, radius, faint);
            se->radius_count = radius_lines->count - se->first_radius;
        }
        se->tri_count = tris->count - se->first_tri;
        se->line_count = lines->count - se->first_line;
        bounds_add(s, se->mins, se->maxs);
    }
    free(has_brush);
}

static void build_world_overlays(al_scene *s, vbuf *ptris, vbuf *plines, vbuf *leak)
{
    const al_world *w = s->world;
    static const float fill[4] = {0.25f, 0.65f, 1.0f, 0.22f};
    static const float edge[4] = {0.55f, 0.85f, 1.0f, 0.9f};
    int n = al_world_portal_count(w);
    for (int i = 0; i < n; i++) {
        al_portal_info pi;
        if (!al_world_portal(w, i, &pi) || pi.point_count < 3 || pi.leaf[0] < 0 || pi.leaf[1] < 0)
            continue;
        add_fan(ptris, pi.points, pi.point_count, pi.normal, fill);
        for (int v = 0; v < pi.point_count; v++)
            add_line(plines, pi.points[v], pi.points[(v + 1) % pi.point_count], edge);
        s->stats.portals++;
    }
    al_leak_info li;
    if (al_world_leak(w, &li)) {
        static const float red[4] = {1.0f, 0.15f, 0.1f, 1.0f};
        for (int i = 0; i + 1 < li.point_count; i++) add_line(leak, li.points[i], li.points[i + 1], red);
        s->stats.leak_points = li.point_count;
    }
    /* Which faces the vis leaves list: those are culled by the PVS. */
    int leaves = al_world_vis_leaf_count(w);
    for (int l = 0; l < leaves; l++) {
        int count;
        const al_leaf_face *lf = al_world_leaf_faces(w, l, &count);
        for (int i = 0; i < count; i++) {
            int f = al_scene_face_index(s, lf[i].brush, lf[i].face);
            if (f >= 0) s->faces[f].flags |= AL_FACE_IN_LEAVES;
        }
    }
}

int al_scene_face_index(const al_scene *s, int brush, int face)
{
    if (brush < 0 || brush >= s->brush_count || face < 0) return -1;
    int input_face = s->brush_first_input_face[brush] + face;
    if (input_face < 0 || input_face >= s->input_face_count) return -1;
    return s->face_of_input[input_face];
}

al_status al_scene_build(const al_scene_desc *desc, al_scene **out)
{
    *out = NULL;
    if (!desc || !desc->input || !desc->polys) return AL_ERR_INVALID_ARGUMENT;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const al_input *in = desc->input;
    al_scene *s = calloc(1, sizeof *s);
    if (!s) return AL_ERR_NOMEM;
    s->world = desc->world;
    s->brush_count = in->brush_count > 0 ? in->brush_count : 0;
    s->input_face_count = in->face_count > 0 ? in->face_count : 0;
    size_t nb = (size_t) s->brush_count + 1;
    s->faces = calloc((size_t) desc->polys->face_count + 1, sizeof *s->faces);
    s->brush_first_face = calloc(nb, sizeof *s->brush_first_face);
    s->brush_entity = calloc(nb, sizeof *s->brush_entity);
    s->brush_flags = calloc(nb, sizeof *s->brush_flags);
    s->brush_mins = calloc(nb, sizeof *s->brush_mins);
    s->brush_maxs = calloc(nb, sizeof *s->brush_maxs);
    s->brush_first_input_face = calloc(nb, sizeof *s->brush_first_input_face);
    s->face_of_input = malloc(((size_t) s->input_face_count + 1) * sizeof *s->face_of_input);
    vbuf tris = {0}, edges = {0}, etris = {0}, elines = {0}, ptris = {0}, plines = {0},
         leak = {0}, radius = {0};
    al_status status = AL_ERR_NOMEM;
    if (!s->faces || !s->brush_first_face || !s->brush_entity || !s->brush_flags ||
        !s->brush_mins || !s->brush_maxs || !s->brush_first_input_face || !s->face_of_input)
        goto fail;
    for (int32_t i = 0; i < s->input_face_count; i++) s->face_of_input[i] = -1;
    if (desc->polys->brush_count != s->brush_count) {
        status = AL_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    if (desc->rad) al_rad_atlas_size(desc->rad, &s->lightmap_width, &s->lightmap_height);
    build_faces(s, desc, &tris, &edges);
    build_entities(s, in, &etris, &elines, &radius);
    if (s->world) build_world_overlays(s, &ptris, &plines, &leak);
    if (tris.failed || edges.failed || etris.failed || elines.failed || ptris.failed ||
        plines.failed || leak.failed || radius.failed || !al_scene_bvh_build(s))
        goto fail;
    s->tris = tris.v, s->tri_count = tris.count;
    s->edges = edges.v, s->edge_count = edges.count;
    s->entity_tris = etris.v, s->entity_tri_count = etris.count;
    s->entity_lines = elines.v, s->entity_line_count = elines.count;
    s->portal_tris = ptris.v, s->portal_tri_count = ptris.count;
    s->portal_lines = plines.v, s->portal_line_count = plines.count;
    s->leak_lines = leak.v, s->leak_line_count = leak.count;
    s->radius_lines = radius.v, s->radius_line_count = radius.count;
    s->stats.faces = s->face_count;
    s->stats.triangles = s->tri_count / 3;
    s->stats.edges = s->edge_count / 2;
    s->stats.entities = s->entity_count;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->stats.ms_build = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    *out = s;
    return AL_OK;
fail:
    free(tris.v), free(edges.v), free(etris.v), free(elines.v), free(ptris.v), free(plines.v);
    free(leak.v), free(radius.v);
    al_scene_destroy(s);
    return status;
}

void al_scene_destroy(al_scene *s)
{
    if (!s) return;
    free(s->tris), free(s->edges), free(s->faces);
    free(s->brush_first_face), free(s->brush_entity), free(s->brush_flags);
    free(s->brush_mins), free(s->brush_maxs), free(s->brush_first_input_face);
    free(s->face_of_input), free(s->entities), free(s->bvh), free(s->bvh_items);
    free(s->entity_tris), free(s->entity_lines);
    free(s->portal_tris), free(s->portal_lines), free(s->leak_lines), free(s->radius_lines);
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
    if (brush < 0 || brush >= s->brush_count ||
        s->brush_first_face[brush] == s->brush_first_face[brush + 1])
        return false;
    memcpy(mins, s->brush_mins[brush], sizeof(double[3]));
    memcpy(maxs, s->brush_maxs[brush], sizeof(double[3]));
    return true;
}

bool al_scene_entity_bounds(const al_scene *s, int entity, double mins[3], double maxs[3])
{
    for (int i = 0; i < s->entity_count; i++) {
        if (s->entities[i].entity != entity) continue;
        memcpy(mins, s->entities[i].mins, sizeof(double[3]));
        memcpy(maxs, s->entities[i].maxs, sizeof(double[3]));
        return true;
    }
    bool any = false;
    for (int b = 0; b < s->brush_count; b++) {
        double mn[3], mx[3];
        if (s->brush_entity[b] != entity || !al_scene_brush_bounds(s, b, mn, mx)) continue;
        for (int k = 0; k < 3; k++) {
            if (!any || mn[k] < mins[k]) mins[k] = mn[k];
            if (!any || mx[k] > maxs[k]) maxs[k] = mx[k];
        }
        any = true;
    }
    return any;
}
