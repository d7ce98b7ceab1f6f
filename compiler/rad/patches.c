/* Patches: the luxel grid of every lit face, shooter groups, the atlas, and the brushes
 * rays must recognise (al-rad.h describes the layout). */
#define _GNU_SOURCE
#include "rad-internal.h"

#include "al-vis.h"
#include "al-world.h"
#include "al-brush.h"
#include "al-clock.h"
#include "al-entity-keys.h"
#include "al-parallel.h"
#include "al-vec3.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    UNLIT_FLAGS = AL_MATERIAL_SKY | AL_MATERIAL_LIQUID | AL_MATERIAL_NONSOLID | AL_MATERIAL_CLIP |
                  AL_MATERIAL_NODRAW | AL_MATERIAL_HINT | AL_MATERIAL_TRIGGER | AL_MATERIAL_ORIGIN,
};

/* The entity key "allium_luxel_size", else ericw-tools' "_lightmap_scale" (its qbsp's
 * luxel size in texels, which for a texture at scale 1 is units), or 0 if absent or
 * unusable (with a warning). */
static double entity_luxel(const al_input *in, int e, al_diag_list *diags)
{
    if (e < 0 || e >= in->entity_count) return 0;
    const al_entity_desc *ent = &in->entities[e];
    const char *key = "allium_luxel_size";
    const char *s = al_entity_value(ent, key);
    if (!s) s = al_entity_value(ent, key = "_lightmap_scale");
    if (!s) return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 1 || v > 1024) {
        if (diags)
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, e, -1, -1, ent->line, -1,
                        "key \"%s\" is \"%s\", not a size from 1 to 1024; using the default", key,
                        s);
        return 0;
    }
    return v;
}

/* 2D polygon clip against u >= LO (SIGN 1) or u <= LO (SIGN -1) on coordinate C. */
static int clip_axis(const double (*in)[2], int n, int c, double lo, double sign,
                     double (*out)[2])
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *a = in[k], *b = in[(k + 1) % n];
        double da = (a[c] - lo) * sign, db = (b[c] - lo) * sign;
        if (da >= 0) {
            out[m][0] = a[0], out[m][1] = a[1], m++;
        }
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
            double t = da / (da - db);
            out[m][0] = a[0] + (b[0] - a[0]) * t;
            out[m][1] = a[1] + (b[1] - a[1]) * t;
            m++;
        }
    }
    return m;
}

/* POLY (N points, 2D) cut to the rectangle [U0, U1] x [V0, V1] into OUT; returns the
 * count. OUT and the scratch need room for N + 4 points. */
static int clip_rect(const double (*poly)[2], int n, double u0, double u1, double v0, double v1,
                     double (*out)[2], double (*tmp)[2])
{
    n = clip_axis(poly, n, 0, u0, 1, tmp);
    n = clip_axis((const double (*)[2]) tmp, n, 0, u1, -1, out);
    n = clip_axis((const double (*)[2]) out, n, 1, v0, 1, tmp);
    return clip_axis((const double (*)[2]) tmp, n, 1, v1, -1, out);
}

/* Signed area and centroid of a 2D polygon. */
static double area_centroid(const double (*p)[2], int n, double c[2])
{
    double a = 0, cx = 0, cy = 0;
    for (int k = 0; k < n; k++) {
        const double *s = p[k], *t = p[(k + 1) % n];
        double cr = s[0] * t[1] - t[0] * s[1];
        a += cr;
        cx += (s[0] + t[0]) * cr;
        cy += (s[1] + t[1]) * cr;
    }
    a *= 0.5;
    if (fabs(a) > 1e-12) {
        c[0] = cx / (6 * a);
        c[1] = cy / (6 * a);
    } else if (n > 0) {
        c[0] = p[0][0], c[1] = p[0][1];
    }
    return a;
}

/* The point of FACE's plane above (U, V). */
static void lift(const rad_face *f, double u, double v, double out[3])
{
    out[f->axis_u] = u;
    out[f->axis_v] = v;
    out[f->axis] = (f->dist - f->normal[f->axis_u] * u - f->normal[f->axis_v] * v) /
                   f->normal[f->axis];
}

/* What the parallel pass finds per slot. */
typedef struct slot_info {
    double point[3];
    float area;
    int32_t cluster;
    uint16_t sub_mask; /* rad.sub_mask */
    bool live;
} slot_info;

typedef struct layout_job {
    al_rad *rad;
    slot_info *info;
    bool has_vis;
} layout_job;

/* A face an edit left as it was, away from what it changed: its slots are the base's,
 * only their vis leaves are looked up anew (the leaves are numbered per world). */
static void copy_face(layout_job *job, const rad_face *f, int32_t from)
{
    al_rad *rad = job->rad;
    const al_rad *base = rad->reuse->base;
    const rad_face *b = &base->faces[from];
    for (int32_t s = 0; s < f->w * f->h; s++) {
        slot_info *si = &job->info[f->first_slot + s];
        int32_t l = base->slots[b->first_slot + s];
        si->live = l >= 0;
        si->cluster = -1;
        if (!si->live) continue;
        al_copy(base->point[l], si->point);
        si->area = base->area[l];
        si->sub_mask = base->sub_mask[l]; /* the same EXTRA (al_rad_update) */
        if (!job->has_vis) continue;
        const rad_reuse *ru = rad->reuse;
        int32_t c = base->luxel_cluster[l];
        si->cluster = ru->cluster && c >= 0 && c < ru->cluster_count ? ru->cluster[c] : -2;
        if (si->cluster == -2) si->cluster = al_world_vis_leaf_at(rad->world, si->point);
    }
}

/* Whether 2D point P lies in the convex polygon POLY (N points, either winding). */
static bool in_convex(const double (*poly)[2], int n, const double p[2])
{
    int sign = 0;
    for (int k = 0; k < n; k++) {
        const double *a = poly[k], *b = poly[(k + 1) % n];
        double cr = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
        int s = cr > 0 ? 1 : cr < 0 ? -1 : 0;
        if (s == 0) continue;
        if (sign == 0)
            sign = s;
        else if (s != sign)
            return false;
    }
    return true;
}

/* rad.sub_mask of slot SLOT of face F, whose cell's part on the face is CELL (M points):
 * the sub-cell centres on that part whose point a unit in front of the face is not in
 * solid. */
static uint16_t sub_mask(const al_rad *rad, const rad_face *f, int32_t slot,
                         const double (*cell)[2], int m)
{
    if (rad->extra <= 1) return 0;
    uint16_t mask = 0;
    for (int b = 0; b < rad->extra; b++)
        for (int a = 0; a < rad->extra; a++) {
            double x[3], from[3];
            al_rad_sub_point(f, rad->extra, slot, a, b, x);
            double uv[2] = {x[f->axis_u], x[f->axis_v]};
            if (!in_convex(cell, m, uv)) continue;
            al_madd(x, f->normal, AL_RAD_SAMPLE_OFFSET, from);
            if (al_world_point_solid(rad->world, 0, from)) continue;
            mask |= (uint16_t) (1u << (a + rad->extra * b));
        }
    return mask;
}

static void layout_face(void *context, int index, int worker)
{
    (void) worker;
    layout_job *job = context;
    al_rad *rad = job->rad;
    rad_face *f = &rad->faces[index];
    if (rad->reuse && rad->reuse->face[index] >= 0) {
        copy_face(job, f, rad->reuse->face[index]);
        return;
    }
    const al_face_poly *fp = NULL;
    int first = rad->polys.brush_first[f->brush], last = rad->polys.brush_first[f->brush + 1];
    for (int k = first; k < last; k++)
        if (rad->polys.faces[k].face == f->face) fp = &rad->polys.faces[k];
    int n = fp->point_count < AL_RAD_MAX_POLY ? fp->point_count : AL_RAD_MAX_POLY;
    double poly[AL_RAD_MAX_POLY][2], out[AL_RAD_MAX_POLY + 8][2], tmp[AL_RAD_MAX_POLY + 8][2];
    for (int k = 0; k < n; k++) {
        poly[k][0] = rad->polys.points[fp->first_point + k][f->axis_u];
        poly[k][1] = rad->polys.points[fp->first_point + k][f->axis_v];
    }
    double scale = 1.0 / fabs(f->normal[f->axis]); /* projected area -> area on the plane */
    for (int j = 0; j < f->h; j++)
        for (int i = 0; i < f->w; i++) {
            slot_info *s = &job->info[f->first_slot + j * f->w + i];
            s->live = false;
            s->cluster = -1;
            double u0 = f->u0 + i * f->luxel, v0 = f->v0 + j * f->luxel;
            int m = clip_rect((const double (*)[2]) poly, n, u0, u0 + f->luxel, v0,
                              v0 + f->luxel, out, tmp);
            if (m < 3) continue;
            double c[2];
            double a = fabs(area_centroid((const double (*)[2]) out, m, c)) * scale;
            if (a < 1e-3 * f->luxel * f->luxel) continue;
            double p[3];
            lift(f, c[0], c[1], p);
            al_madd(p, f->normal, AL_RAD_SAMPLE_OFFSET, s->point);
            if (al_world_point_solid(rad->world, 0, s->point)) continue;
            s->area = (float) a;
            s->live = true;
            s->sub_mask = sub_mask(rad, f, j * f->w + i, (const double (*)[2]) out, m);
            if (job->has_vis) s->cluster = al_world_vis_leaf_at(rad->world, s->point);
        }
}

/* Faces the vis leaves list, as a flag per al_face_polys face. */
static void mark_listed(al_rad *rad, uint8_t *listed)
{
    const al_face_polys *fp = &rad->polys;
    int leaves = al_world_vis_leaf_count(rad->world);
    for (int l = 0; l < leaves; l++) {
        int count;
        const al_leaf_face *lf = al_world_leaf_faces(rad->world, l, &count);
        for (int i = 0; i < count; i++) {
            int b = lf[i].brush;
            if (b < 0 || b >= fp->brush_count) continue;
            for (int k = fp->brush_first[b]; k < fp->brush_first[b + 1]; k++)
                if (fp->faces[k].face == lf[i].face) listed[k] = 1;
        }
    }
}

/* The linear value of an sRGB colour channel. */
static double linear_of(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* Reflectance is the material's colour in linear light (a mid-grey 0.5 in sRGB reflects
 * 21%), scaled to al_material_desc.reflectance as its mean when that is set. */
static void set_reflectance(const al_input *in, int material, float refl[3], float emit[3])
{
    float colour[3] = {0.5f, 0.5f, 0.5f};
    float r = 0;
    emit[0] = emit[1] = emit[2] = 0;
    if (material >= 0 && material < in->material_count) {
        const al_material_desc *m = &in->materials[material];
        memcpy(colour, m->colour, sizeof colour);
        r = m->reflectance;
        for (int k = 0; k < 3; k++) emit[k] = isfinite(m->emission[k]) && m->emission[k] > 0
                                                  ? m->emission[k] : 0;
    }
    double lin[3];
    for (int k = 0; k < 3; k++) lin[k] = isfinite(colour[k]) ? linear_of(fmax(colour[k], 0)) : 0;
    double mean = (lin[0] + lin[1] + lin[2]) / 3.0;
    double scale = r > 0 && mean > 0 ? r / mean : 1.0;
    for (int k = 0; k < 3; k++) refl[k] = (float) fmin(fmax(lin[k] * scale, 0.0), 0.95);
}

/* Picks the faces to light and lays out their grids. */
static al_status choose_faces(al_rad *rad, al_diag_list *diags)
{
    const al_input *in = rad->input;
    const al_face_polys *fp = &rad->polys;
    bool has_vis = al_world_vis_leaf_count(rad->world) > 0;
    uint8_t *listed = calloc((size_t) fp->face_count + 1, 1);
    double *entity_size = calloc((size_t) in->entity_count + 1, sizeof *entity_size);
    rad->face_of_poly = malloc(((size_t) fp->face_count + 1) * sizeof *rad->face_of_poly);
    rad->faces = malloc(((size_t) fp->face_count + 1) * sizeof *rad->faces);
    if (!listed || !entity_size || !rad->face_of_poly || !rad->faces) {
        free(listed);
        free(entity_size);
        return AL_ERR_NOMEM;
    }
    if (has_vis) mark_listed(rad, listed);
    double map_luxel = rad->options.luxel_size > 0 ? rad->options.luxel_size : 0;
    if (map_luxel == 0) map_luxel = entity_luxel(in, 0, diags);
    if (map_luxel == 0) map_luxel = AL_RAD_DEFAULT_LUXEL;
    for (int e = 1; e < in->entity_count; e++) entity_size[e] = entity_luxel(in, e, diags);

    int32_t slots = 0;
    rad->face_count = 0;
    for (int k = 0; k < fp->face_count; k++) {
        rad->face_of_poly[k] = -1;
        const al_face_poly *p = &fp->faces[k];
        const al_brush_desc *bd = &in->brushes[p->brush];
        al_entity_role role = al_entity_role_of(
            bd->entity >= 0 && bd->entity < in->entity_count ? in->entities[bd->entity].classname
                                                              : "");
        uint32_t flags = p->material >= 0 && p->material < in->material_count
                             ? in->materials[p->material].flags : 0;
        if (flags & UNLIT_FLAGS || role == AL_ROLE_NONSOLID) continue;
        if (role != AL_ROLE_MODEL && has_vis && !listed[k]) continue;
        rad_face *f = &rad->faces[rad->face_count];
        memset(f, 0, sizeof *f);
        f->brush = p->brush;
        f->face = p->face;
        f->material = p->material;
        al_copy(p->normal, f->normal);
        f->dist = p->dist;
        int ax = 0;
        for (int c = 1; c < 3; c++)
            if (fabs(p->normal[c]) > fabs(p->normal[ax])) ax = c;
        f->axis = ax;
        f->axis_u = ax == 0 ? 1 : 0;
        f->axis_v = ax == 2 ? 1 : 2;
        double luxel = map_luxel;
        if (bd->entity > 0 && bd->entity < in->entity_count && entity_size[bd->entity] > 0)
            luxel = entity_size[bd->entity];
        if (bd->first_face + p->face < in->face_count) {
            float own = in->faces[bd->first_face + p->face].luxel_size;
            if (isfinite(own) && own >= 1 && own <= 1024) luxel = own;
        }
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int q = 0; q < p->point_count; q++) {
            const double *pt = fp->points[p->first_point + q];
            lo[0] = fmin(lo[0], pt[f->axis_u]), hi[0] = fmax(hi[0], pt[f->axis_u]);
            lo[1] = fmin(lo[1], pt[f->axis_v]), hi[1] = fmax(hi[1], pt[f->axis_v]);
        }
        double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
        if (span / luxel > AL_RAD_MAX_LUXELS - 2) luxel = span / (AL_RAD_MAX_LUXELS - 2);
        f->luxel = luxel;
        f->u0 = floor(lo[0] / luxel) * luxel;
        f->v0 = floor(lo[1] / luxel) * luxel;
        f->w = (int) ceil((hi[0] - f->u0) / luxel - 1e-9);
        f->h = (int) ceil((hi[1] - f->v0) / luxel - 1e-9);
        if (f->w < 1) f->w = 1;
        if (f->h < 1) f->h = 1;
        f->first_slot = slots;
        slots += f->w * f->h;
        set_reflectance(in, p->material, f->reflectance, f->emission);
        rad->face_of_poly[k] = rad->face_count++;
    }
    free(listed);
    free(entity_size);

    /* Faces whose slots an edit cannot have changed are taken from the solver before it. */
    if (rad->reuse && !al_rad_reuse_faces(rad)) return AL_ERR_NOMEM;
    /* Sample every slot (both cores), then number the live luxels. */
    slot_info *info = malloc(((size_t) slots + 1) * sizeof *info);
    rad->slots = malloc(((size_t) slots + 1) * sizeof *rad->slots);
    if (!info || !rad->slots) {
        free(info);
        return AL_ERR_NOMEM;
    }
    layout_job job = {rad, info, has_vis};
    al_parallel_for(rad->face_count, rad->options.threads, layout_face, &job);
    int32_t n = 0;
    for (int32_t s = 0; s < slots; s++) n += info[s].live;
    rad->luxel_count = n;
    size_t cap = (size_t) n + 1;
    rad->point = malloc(cap * sizeof *rad->point);
    rad->normal = malloc(cap * sizeof *rad->normal);
    rad->area = malloc(cap * sizeof *rad->area);
    rad->luxel_face = malloc(cap * sizeof *rad->luxel_face);
    rad->luxel_cluster = malloc(cap * sizeof *rad->luxel_cluster);
    rad->luxel_group = malloc(cap * sizeof *rad->luxel_group);
    rad->luxel_slot = malloc(cap * sizeof *rad->luxel_slot);
    rad->sub_mask = malloc(cap * sizeof *rad->sub_mask);
    rad->incident = calloc(cap, sizeof *rad->incident);
    rad->unshot = calloc(cap, sizeof *rad->unshot);
    rad->delta = calloc(cap * AL_RAD_BATCH, sizeof *rad->delta);
    if (!rad->point || !rad->normal || !rad->area || !rad->luxel_face || !rad->luxel_cluster ||
        !rad->luxel_group || !rad->luxel_slot || !rad->sub_mask || !rad->incident || !rad->unshot ||
        !rad->delta) {
        free(info);
        return AL_ERR_NOMEM;
    }
    n = 0;
    for (int32_t fi = 0; fi < rad->face_count; fi++) {
        rad_face *f = &rad->faces[fi];
        for (int32_t s = f->first_slot; s < f->first_slot + f->w * f->h; s++) {
            if (!info[s].live) {
                rad->slots[s] = -1;
                continue;
            }
            rad->slots[s] = n;
            al_copy(info[s].point, rad->point[n]);
            for (int k = 0; k < 3; k++) rad->normal[n][k] = (float) f->normal[k];
            rad->area[n] = info[s].area;
            rad->luxel_face[n] = fi;
            rad->luxel_cluster[n] = info[s].cluster;
            rad->luxel_slot[n] = s - f->first_slot;
            rad->sub_mask[n] = info[s].sub_mask;
            f->live++;
            n++;
        }
    }
    free(info);
    return AL_OK;
}

/* Receivers by cluster (CSR), the last list for luxels in no cluster. */
static al_status index_clusters(al_rad *rad)
{
    int32_t c = al_world_vis_leaf_count(rad->world);
    rad->cluster_count = c;
    rad->cluster_first = calloc((size_t) c + 2, sizeof *rad->cluster_first);
    rad->cluster_luxels = malloc(((size_t) rad->luxel_count + 1) * sizeof *rad->cluster_luxels);
    rad->mask = calloc((size_t) c / 64 + 2, sizeof *rad->mask);
    if (!rad->cluster_first || !rad->cluster_luxels || !rad->mask) return AL_ERR_NOMEM;
    for (int32_t i = 0; i < rad->luxel_count; i++) {
        int32_t k = rad->luxel_cluster[i];
        rad->cluster_first[(k >= 0 && k < c ? k : c) + 1]++;
    }
    for (int32_t k = 0; k <= c; k++) rad->cluster_first[k + 1] += rad->cluster_first[k];
    int32_t *fill = malloc(((size_t) c + 1) * sizeof *fill);
    if (!fill) return AL_ERR_NOMEM;
    memcpy(fill, rad->cluster_first, ((size_t) c + 1) * sizeof *fill);
    for (int32_t i = 0; i < rad->luxel_count; i++) {
        int32_t k = rad->luxel_cluster[i];
        rad->cluster_luxels[fill[k >= 0 && k < c ? k : c]++] = i;
    }
    free(fill);
    return AL_OK;
}

static bool grow(void **array, int32_t *cap, int32_t need, size_t elem)
{
    if (need <= *cap) return true;
    int32_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *p = realloc(*array, (size_t) n * elem);
    if (!p) return false;
    *array = p;
    *cap = n;
    return true;
}

/* Centre, area, radius and target of P from its groups (panel_groups from
 * P->first_group). */
static void finish_unit(al_rad *rad, rad_panel *p)
{
    p->area = 0;
    for (int k = 0; k < 3; k++) p->centre[k] = 0;
    for (int32_t q = p->first_group; q < p->first_group + p->group_count; q++) {
        const rad_group *gr = &rad->groups[rad->panel_groups[q]];
        p->area += gr->area;
        al_madd(p->centre, gr->centre, gr->area, p->centre);
    }
    al_scale(p->centre, 1.0 / p->area, p->centre);
    double best = INFINITY;
    p->radius = 0;
    for (int32_t q = p->first_group; q < p->first_group + p->group_count; q++) {
        const rad_group *gr = &rad->groups[rad->panel_groups[q]];
        double d[3];
        al_sub(gr->centre, p->centre, d);
        double len = al_length(d);
        p->radius = fmax(p->radius, len + gr->radius);
        if (len < best) best = len, p->target = gr->target;
    }
}

/* Panels and their quads from the groups: KEY is each group's panel cell within its face
 * times four plus its quadrant of the panel (the groups of a face are consecutive). A
 * panel's groups are listed quad by quad. */
static al_status make_panels(al_rad *rad, int32_t *key)
{
    int32_t n = rad->group_count;
    rad->panels = malloc(((size_t) n + 1) * sizeof *rad->panels);
    rad->quads = malloc(((size_t) n + 1) * sizeof *rad->quads);
    rad->panel_groups = malloc(((size_t) n + 1) * sizeof *rad->panel_groups);
    rad->group_panel = malloc(((size_t) n + 1) * sizeof *rad->group_panel);
    rad->panel_power = calloc((size_t) n + 1, sizeof *rad->panel_power);
    if (!rad->panels || !rad->quads || !rad->panel_groups || !rad->group_panel ||
        !rad->panel_power)
        return AL_ERR_NOMEM;
    int32_t listed = 0;
    for (int32_t g0 = 0; g0 < n;) {
        int32_t g1 = g0;
        while (g1 < n && rad->groups[g1].face == rad->groups[g0].face) g1++;
        /* The face's panels in order of key: each pass takes the smallest key left. */
        for (int32_t done = g0; done < g1;) {
            int32_t k = INT32_MAX;
            for (int32_t g = g0; g < g1; g++)
                if (key[g] >= 0 && key[g] >> 2 < k) k = key[g] >> 2;
            rad_panel *p = &rad->panels[rad->panel_count];
            memset(p, 0, sizeof *p);
            p->face = rad->groups[g0].face;
            p->first_group = listed;
            p->first_quad = rad->quad_count;
            for (int qk = 0; qk < 4; qk++) {
                rad_panel *qu = &rad->quads[rad->quad_count];
                memset(qu, 0, sizeof *qu);
                qu->face = p->face;
                qu->first_group = listed;
                for (int32_t g = g0; g < g1; g++) {
                    if (key[g] < 0 || key[g] >> 2 != k || (key[g] & 3) != qk) continue;
                    rad->panel_groups[listed++] = g;
                    rad->group_panel[g] = rad->panel_count;
                    done++;
                }
                qu->group_count = listed - qu->first_group;
                if (qu->group_count == 0) continue;
                finish_unit(rad, qu);
                rad->quad_count++;
            }
            p->group_count = listed - p->first_group;
            p->quad_count = rad->quad_count - p->first_quad;
            finish_unit(rad, p);
            rad->panel_count++;
            for (int32_t g = g0; g < g1; g++)
                if (key[g] >= 0 && key[g] >> 2 == k) key[g] = -1;
        }
        g0 = g1;
    }
    return AL_OK;
}

/* Shooter groups: blocks of AL_RAD_GROUP x AL_RAD_GROUP luxels of a face. */
static al_status make_groups(al_rad *rad)
{
    int32_t gcap = 0, pcap = 0, ccap = 0;
    int32_t points = 0, clusters = 0;
    rad->group_luxels = malloc(((size_t) rad->luxel_count + 1) * sizeof *rad->group_luxels);
    if (!rad->group_luxels) return AL_ERR_NOMEM;
    int32_t used = 0, kcap = 0;
    int32_t *key = NULL;
    for (int32_t fi = 0; fi < rad->face_count; fi++) {
        rad_face *f = &rad->faces[fi];
        const al_face_poly *fp = NULL;
        const al_face_polys *fps = &rad->polys;
        for (int k = fps->brush_first[f->brush]; k < fps->brush_first[f->brush + 1]; k++)
            if (fps->faces[k].face == f->face) fp = &fps->faces[k];
        int n = fp->point_count < AL_RAD_MAX_POLY ? fp->point_count : AL_RAD_MAX_POLY;
        double poly[AL_RAD_MAX_POLY][2], out[AL_RAD_MAX_POLY + 8][2], tmp[AL_RAD_MAX_POLY + 8][2];
        for (int k = 0; k < n; k++) {
            poly[k][0] = fps->points[fp->first_point + k][f->axis_u];
            poly[k][1] = fps->points[fp->first_point + k][f->axis_v];
        }
        const int gs = AL_RAD_GROUP, ps = AL_RAD_GROUP * AL_RAD_PANEL, qs = ps / 2;
        int panels_across = (f->w + ps - 1) / ps;
        for (int gj = 0; gj < f->h; gj += gs)
            for (int gi = 0; gi < f->w; gi += gs) {
                int first = used;
                int i1 = gi + gs < f->w ? gi + gs : f->w;
                int j1 = gj + gs < f->h ? gj + gs : f->h;
                double area = 0;
                int li0 = i1, li1 = gi, lj0 = j1, lj1 = gj; /* cells of live luxels */
                for (int j = gj; j < j1; j++)
                    for (int i = gi; i < i1; i++) {
                        int32_t l = rad->slots[f->first_slot + j * f->w + i];
                        if (l < 0) continue;
                        rad->group_luxels[used++] = l;
                        area += rad->area[l];
                        li0 = i < li0 ? i : li0, li1 = i + 1 > li1 ? i + 1 : li1;
                        lj0 = j < lj0 ? j : lj0, lj1 = j + 1 > lj1 ? j + 1 : lj1;
                    }
                if (used == first) continue;
                if (!grow((void **) &rad->groups, &gcap, rad->group_count + 1,
                          sizeof *rad->groups) ||
                    !grow((void **) &key, &kcap, rad->group_count + 1, sizeof *key)) {
                    free(key);
                    return AL_ERR_NOMEM;
                }
                key[rad->group_count] =
                    ((gj / ps) * panels_across + gi / ps) * 4 + (gj / qs % 2) * 2 + gi / qs % 2;
                int32_t g = rad->group_count++;
                rad_group *gr = &rad->groups[g];
                memset(gr, 0, sizeof *gr);
                gr->face = fi;
                gr->first_luxel = first;
                gr->luxel_count = used - first;
                gr->area = area;
                /* Its polygon: the rectangle of its live luxels' cells cut by the face (cells
                 * in solid along the block's sides, where walls cover the face, left out). */
                double u0 = f->u0 + li0 * f->luxel, v0 = f->v0 + lj0 * f->luxel;
                int m = clip_rect((const double (*)[2]) poly, n, u0, f->u0 + li1 * f->luxel, v0,
                                  f->v0 + lj1 * f->luxel, out, tmp);
                if (!grow((void **) &rad->group_points, &pcap, points + m + 1,
                          sizeof *rad->group_points)) {
                    free(key);
                    return AL_ERR_NOMEM;
                }
                gr->first_point = points;
                gr->point_count = m;
                double c2[2] = {u0, v0};
                gr->polygon_area = fabs(area_centroid((const double (*)[2]) out, m, c2)) /
                                   fabs(f->normal[f->axis]);
                if (gr->polygon_area < gr->area) gr->polygon_area = gr->area;
                lift(f, c2[0], c2[1], gr->centre);
                for (int k = 0; k < m; k++) {
                    double *p = rad->group_points[points + k];
                    lift(f, out[k][0], out[k][1], p);
                    double d[3];
                    al_sub(p, gr->centre, d);
                    gr->radius = fmax(gr->radius, al_length(d));
                }
                /* Clockwise from the front, as the face is: the 2D order keeps or flips
                 * it with the sign of the normal's dominant component; Lambert's formula
                 * takes the absolute value, so only convexity matters. */
                points += m;
                /* Aim points: the luxel nearest the centre, and one per quadrant. */
                double best = INFINITY;
                double qbest[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
                int32_t qpick[4] = {-1, -1, -1, -1};
                double um = u0 + (li1 - li0) * f->luxel * 0.5, vm = v0 + (lj1 - lj0) * f->luxel * 0.5;
                for (int k = first; k < used; k++) {
                    int32_t l = rad->group_luxels[k];
                    rad->luxel_group[l] = g;
                    double d[3];
                    al_sub(rad->point[l], gr->centre, d);
                    double dd = al_dot(d, d);
                    if (dd < best) best = dd, gr->target = l;
                    double pu = rad->point[l][f->axis_u], pv = rad->point[l][f->axis_v];
                    int q = (pu >= um) + 2 * (pv >= vm);
                    double qu = (pu >= um ? 1.5 : 0.5) * (li1 - li0) * f->luxel * 0.5 + u0;
                    double qv = (pv >= vm ? 1.5 : 0.5) * (lj1 - lj0) * f->luxel * 0.5 + v0;
                    double qd = (pu - qu) * (pu - qu) + (pv - qv) * (pv - qv);
                    if (qd < qbest[q]) qbest[q] = qd, qpick[q] = l;
                }
                for (int q = 0; q < 4; q++)
                    if (qpick[q] >= 0) gr->aims[gr->aim_count++] = qpick[q];
                /* Its distinct clusters. */
                gr->first_cluster = clusters;
                for (int k = first; k < used; k++) {
                    int32_t c = rad->luxel_cluster[rad->group_luxels[k]];
                    bool seen = false;
                    for (int q = gr->first_cluster; q < clusters && !seen; q++)
                        seen = rad->group_clusters[q] == c;
                    if (seen) continue;
                    if (!grow((void **) &rad->group_clusters, &ccap, clusters + 1,
                              sizeof *rad->group_clusters)) {
                        free(key);
                        return AL_ERR_NOMEM;
                    }
                    rad->group_clusters[clusters++] = c;
                }
                gr->cluster_count = clusters - gr->first_cluster;
            }
    }
    rad->group_power = calloc((size_t) rad->group_count + 1, sizeof *rad->group_power);
    al_status st = rad->group_power ? make_panels(rad, key) : AL_ERR_NOMEM;
    free(key);
    return st;
}

/* Shelf packing of the faces' rectangles (tallest first), and the texel -> luxel map with
 * every texel outside a face's live luxels taking its nearest live luxel. */
static int by_height(const void *a, const void *b, void *ctx)
{
    const rad_face *faces = ctx;
    const rad_face *fa = &faces[*(const int32_t *) a], *fb = &faces[*(const int32_t *) b];
    if (fa->h != fb->h) return fb->h - fa->h;
    return *(const int32_t *) a - *(const int32_t *) b;
}

/* Puts face F (its rectangle W x H with the border) on the first shelf that has room and
 * is not much higher than it, or on a new shelf below the others (the atlas grows
 * downwards). False if memory ran out. */
static bool place_on_shelf(al_rad *rad, rad_face *f, int *cap)
{
    int w = f->w + 2, h = f->h + 2;
    for (int32_t i = 0; i < rad->shelf_count; i++) {
        rad_shelf *sh = &rad->shelves[i];
        if (sh->height < h || sh->height > 2 * h + 2 || sh->x_end + w > rad->atlas_w) continue;
        f->atlas_x = sh->x_end;
        f->atlas_y = sh->y;
        sh->x_end += w;
        return true;
    }
    if (rad->shelf_count == *cap) {
        int n = *cap ? *cap * 2 : 64;
        rad_shelf *grown = realloc(rad->shelves, (size_t) n * sizeof *grown);
        if (!grown) return false;
        rad->shelves = grown;
        *cap = n;
    }
    int y = 0;
    for (int32_t i = 0; i < rad->shelf_count; i++)
        if (rad->shelves[i].y + rad->shelves[i].height > y) y = rad->shelves[i].y + rad->shelves[i].height;
    rad->shelves[rad->shelf_count++] = (rad_shelf){y, h, w};
    f->atlas_x = 0;
    f->atlas_y = y;
    return true;
}

/* Packs the faces of RAD whose place is not set (atlas_x < 0), tallest first, onto its
 * shelves. False if memory ran out. */
static bool pack_new_faces(al_rad *rad, int *cap)
{
    int32_t *order = malloc(((size_t) rad->face_count + 1) * sizeof *order);
    if (!order) return false;
    int32_t n = 0;
    for (int32_t i = 0; i < rad->face_count; i++)
        if (rad->faces[i].live > 0 && rad->faces[i].atlas_x < 0) order[n++] = i;
    qsort_r(order, (size_t) n, sizeof *order, by_height, rad->faces);
    bool ok = true;
    for (int32_t k = 0; ok && k < n; k++) ok = place_on_shelf(rad, &rad->faces[order[k]], cap);
    free(order);
    return ok;
}

/* The atlas's height: down to the lowest shelf's bottom, a multiple of 4. */
static void fit_atlas_height(al_rad *rad)
{
    int height = 0;
    for (int32_t i = 0; i < rad->shelf_count; i++)
        if (rad->shelves[i].y + rad->shelves[i].height > height)
            height = rad->shelves[i].y + rad->shelves[i].height;
    rad->atlas_h = (height + 3) & ~3;
    if (rad->atlas_h < 4) rad->atlas_h = 4;
}

/* After an update: the faces with the grid of a face of the base keep its place, so that
 * what is drawn of them stays as it was (the editor's scene keeps their meshes); the new
 * ones go where there is room. False when that would waste too much of the atlas (more
 * than half of it empty, or the atlas twice as high as wide): the caller packs anew. */
static bool keep_places(al_rad *rad, int64_t texels, int *cap)
{
    const rad_reuse *ru = rad->reuse;
    const al_rad *base = ru ? ru->base : NULL;
    if (!base || !base->shelves || !ru->place) return false;
    rad->atlas_w = base->atlas_w;
    rad->shelves = malloc(((size_t) base->shelf_count + 1) * sizeof *rad->shelves);
    if (!rad->shelves) return false;
    memcpy(rad->shelves, base->shelves, (size_t) base->shelf_count * sizeof *rad->shelves);
    rad->shelf_count = base->shelf_count;
    *cap = base->shelf_count + 1;
    for (int32_t i = 0; i < rad->face_count; i++) {
        rad_face *f = &rad->faces[i];
        if (f->live == 0 || ru->place[i] < 0) continue;
        const rad_face *b = &base->faces[ru->place[i]];
        if (b->atlas_x < 0) continue; /* it had no luxels then */
        f->atlas_x = b->atlas_x;
        f->atlas_y = b->atlas_y;
    }
    if (!pack_new_faces(rad, cap)) return false;
    fit_atlas_height(rad);
    int64_t area = (int64_t) rad->atlas_w * rad->atlas_h;
    return area <= 2 * texels + 65536 && rad->atlas_h <= 2 * rad->atlas_w;
}

static al_status pack_atlas(al_rad *rad)
{
    int64_t texels = 0;
    int max_w = 1;
    for (int32_t i = 0; i < rad->face_count; i++) {
        rad_face *f = &rad->faces[i];
        f->atlas_x = f->atlas_y = -1;
        if (f->live == 0) continue;
        texels += (int64_t) (f->w + 2) * (f->h + 2);
        if (f->w + 2 > max_w) max_w = f->w + 2;
    }
    int shelf_cap = 0;
    if (!keep_places(rad, texels, &shelf_cap)) {
        /* Anew: every face on shelves from the top, in an atlas sized to hold them. */
        free(rad->shelves);
        rad->shelves = NULL;
        rad->shelf_count = 0;
        shelf_cap = 0;
        for (int32_t i = 0; i < rad->face_count; i++) rad->faces[i].atlas_x = rad->faces[i].atlas_y = -1;
        int width = 256;
        while ((int64_t) width * width < texels * 5 / 4 || width < max_w) width *= 2;
        rad->atlas_w = width;
        if (!pack_new_faces(rad, &shelf_cap)) return AL_ERR_NOMEM;
        fit_atlas_height(rad);
    }
    size_t count = (size_t) rad->atlas_w * (size_t) rad->atlas_h;
    rad->texel_luxel = malloc(count * sizeof *rad->texel_luxel);
    if (!rad->texel_luxel) return AL_ERR_NOMEM;
    for (size_t t = 0; t < count; t++) rad->texel_luxel[t] = -1;

    /* Nearest live luxel per slot: a breadth-first fill from the live slots. */
    int32_t *near = NULL, *queue = NULL;
    int32_t cap = 0;
    for (int32_t fi = 0; fi < rad->face_count; fi++) {
        rad_face *f = &rad->faces[fi];
        if (f->live == 0) continue;
        int32_t n = f->w * f->h;
        if (n > cap) {
            free(near);
            free(queue);
            near = malloc((size_t) n * sizeof *near);
            queue = malloc((size_t) n * sizeof *queue);
            cap = n;
            if (!near || !queue) {
                free(near);
                free(queue);
                return AL_ERR_NOMEM;
            }
        }
        int32_t head = 0, tail = 0;
        for (int32_t s = 0; s < n; s++) {
            near[s] = rad->slots[f->first_slot + s];
            if (near[s] >= 0) queue[tail++] = s;
        }
        while (head < tail) {
            int32_t s = queue[head++];
            int i = s % f->w, j = s / f->w;
            const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
            for (int d = 0; d < 4; d++) {
                int a = i + di[d], b = j + dj[d];
                if (a < 0 || b < 0 || a >= f->w || b >= f->h) continue;
                int32_t t = b * f->w + a;
                if (near[t] < 0) {
                    near[t] = near[s];
                    queue[tail++] = t;
                }
            }
        }
        for (int y2 = 0; y2 < f->h + 2; y2++)
            for (int x2 = 0; x2 < f->w + 2; x2++) {
                int i = x2 - 1 < 0 ? 0 : x2 - 1 >= f->w ? f->w - 1 : x2 - 1;
                int j = y2 - 1 < 0 ? 0 : y2 - 1 >= f->h ? f->h - 1 : y2 - 1;
                rad->texel_luxel[(size_t) (f->atlas_y + y2) * rad->atlas_w + f->atlas_x + x2] =
                    near[j * f->w + i];
            }
    }
    free(near);
    free(queue);
    return AL_OK;
}

al_status al_rad_layout(al_rad *rad, al_diag_list *diags)
{
    al_status st = choose_faces(rad, diags);
    if (st == AL_OK) st = index_clusters(rad);
    if (st == AL_OK) st = make_groups(rad);
    if (st == AL_OK) st = pack_atlas(rad);
    return st;
}

/* --- rays --------------------------------------------------------------------------- */

static bool sky_box(void *context, int i, double mins[3], double maxs[3])
{
    const al_rad *rad = context;
    int32_t b = rad->skies[i].brush;
    al_copy(rad->polys.brush_mins[b], mins);
    al_copy(rad->polys.brush_maxs[b], maxs);
    return true;
}

bool al_rad_index_skies(al_rad *rad)
{
    const al_input *in = rad->input;
    const al_face_polys *fp = &rad->polys;
    int32_t cap = 0;
    for (int32_t b = 0; b < fp->brush_count; b++) {
        if (fp->brush_first[b] == fp->brush_first[b + 1]) continue;
        const al_brush_desc *bd = &in->brushes[b];
        al_entity_role role = al_entity_role_of(
            bd->entity >= 0 && bd->entity < in->entity_count ? in->entities[bd->entity].classname
                                                              : "");
        if (role != AL_ROLE_WORLD && role != AL_ROLE_DETAIL) continue;
        /* A solid brush with a sky face: light reaches the sky through it (as Quake's light
         * tools read sky per face). A brush without contents of its own does not block. */
        if (al_brush_contents(in, b, NULL) & (AL_MATERIAL_CONTENTS & ~AL_MATERIAL_SKY)) continue;
        uint32_t flags = 0;
        for (int k = fp->brush_first[b]; k < fp->brush_first[b + 1]; k++) {
            int m = fp->faces[k].material;
            if (m >= 0 && m < in->material_count) flags |= in->materials[m].flags;
        }
        if (!(flags & AL_MATERIAL_SKY)) continue;
        if (!grow((void **) &rad->skies, &cap, rad->sky_count + 1, sizeof *rad->skies))
            return false;
        rad->skies[rad->sky_count++] = (rad_sky){b};
    }
    return al_cell_index_build(&rad->sky_index, 256.0, rad->sky_count, sky_box, rad,
                               1 << 22);
}

/* A sun ray that ends on sky leaves its start through empty space up to a face of a sky
 * brush: the vis leaf it starts in sees (PVS, conservative) the one that face lies in,
 * where the face's piece landed (leaf-faces.c). So a vis leaf whose PVS row holds no vis
 * leaf with a face of a sky brush gets no sunlight, and its luxels' sun rays need not be
 * cast: indoors, most of a map. The rows are symmetric (pvs.c), so the leaves that may see
 * sky are the union of the rows of the leaves with sky faces. A luxel takes the vis leaf
 * of its sample point for all its samples, as the PVS gate of point lights does. The
 * oracle test casts the rays the gate saves on the real maps: none ends on sky. */
bool al_rad_find_sky_leaves(al_rad *rad)
{
    free(rad->sees_sky);
    rad->sees_sky = NULL;
    const al_vis *vis = rad->world->vis;
    if (!vis || !vis->pvs || vis->cluster_count <= 0) return true;
    const al_input *in = rad->input;
    uint8_t *sky_brush = calloc((size_t) in->brush_count + 1, 1);
    uint64_t *seen = calloc((size_t) vis->row_words + 1, sizeof *seen);
    if (!sky_brush || !seen) {
        free(sky_brush);
        free(seen);
        return false;
    }
    for (int32_t i = 0; i < rad->sky_count; i++) sky_brush[rad->skies[i].brush] = 1;
    for (int32_t c = 0; c < vis->cluster_count && rad->sky_count > 0; c++) {
        int count;
        const al_leaf_face *f = al_world_leaf_faces(rad->world, c, &count);
        bool sky = false;
        for (int k = 0; k < count && !sky; k++)
            sky = f[k].brush >= 0 && f[k].brush < in->brush_count && sky_brush[f[k].brush];
        if (!sky) continue;
        const uint64_t *row = al_vis_row(vis, c);
        for (int32_t w = 0; w < vis->row_words; w++) seen[w] |= row[w];
    }
    free(sky_brush);
    rad->sees_sky = seen;
    return true;
}

/* The sky brush containing P, or -1. */
static int sky_at(const al_rad *rad, const double p[3])
{
    const al_cell_index *ix = &rad->sky_index;
    if (rad->sky_count == 0) return -1;
    int lo[3], hi[3];
    al_cell_index_range(ix, p, p, lo, hi);
    int c = al_cell_index_cell(ix, lo[0], lo[1], lo[2]);
    for (int j = ix->start[c]; j < ix->start[c + 1]; j++) {
        int s = ix->items[j];
        int32_t b = rad->skies[s].brush;
        const al_face_polys *fp = &rad->polys;
        bool inside = true;
        for (int k = fp->brush_first[b]; k < fp->brush_first[b + 1] && inside; k++)
            inside = al_dot(fp->faces[k].normal, p) - fp->faces[k].dist < 0.01;
        if (inside) return s;
    }
    return -1;
}

/* --- the ray log -------------------------------------------------------------------- */

/* Rays are logged in runs of this many in a row from one thread, so that the log keeps
 * each worker's rays in the order it cast them. */
#define RAY_LOG_RUN 1024

struct al_ray_log {
    double (*from)[3], (*to)[3];
    uint8_t *used; /* per slot: a ray is in it (a worker may leave the end of a run empty) */
    int64_t capacity;
    int64_t every;     /* one run in this many is kept */
    atomic_llong runs; /* runs handed out */
    uint64_t id;       /* unique per log made: a thread's cursor names the log it is in */
};

static atomic_ullong ray_log_ids = 1;

/* The run this thread is in, of which log (by id: a new log may reuse a freed one's
 * address); SLOT is where its next ray goes, or -1 when the run is not kept. */
static _Thread_local struct {
    uint64_t log;
    int64_t slot, left;
} ray_log_cursor;

static void log_ray(al_ray_log *log, const double a[3], const double b[3])
{
    if (ray_log_cursor.log != log->id || ray_log_cursor.left == 0) {
        int64_t run = atomic_fetch_add_explicit(&log->runs, 1, memory_order_relaxed);
        int64_t first = run / log->every * RAY_LOG_RUN;
        ray_log_cursor.log = log->id;
        ray_log_cursor.left = RAY_LOG_RUN;
        ray_log_cursor.slot = run % log->every == 0 && first < log->capacity ? first : -1;
    }
    ray_log_cursor.left--;
    int64_t i = ray_log_cursor.slot;
    if (i < 0 || i >= log->capacity) return;
    ray_log_cursor.slot++;
    memcpy(log->from[i], a, sizeof log->from[i]);
    memcpy(log->to[i], b, sizeof log->to[i]);
    log->used[i] = 1;
}

bool al_rad_log_rays(al_rad *rad, int64_t capacity, int64_t expected)
{
    al_ray_log *log = calloc(1, sizeof *log);
    if (!log || capacity < 1) {
        free(log);
        return false;
    }
    log->every = expected > capacity ? (expected + capacity - 1) / capacity : 1;
    atomic_init(&log->runs, 0);
    log->id = atomic_fetch_add(&ray_log_ids, 1);
    log->from = malloc((size_t) capacity * sizeof *log->from);
    log->to = malloc((size_t) capacity * sizeof *log->to);
    log->used = calloc((size_t) capacity, 1);
    log->capacity = capacity;
    if (!log->from || !log->to || !log->used) {
        free(log->from), free(log->to), free(log->used), free(log);
        return false;
    }
    al_ray_log_free(rad->ray_log);
    rad->ray_log = log;
    return true;
}

void al_ray_log_free(al_ray_log *log)
{
    if (!log) return;
    free(log->from), free(log->to), free(log->used), free(log);
}

double al_rad_time_logged_rays(al_rad *rad, int64_t *count, int64_t *blocked)
{
    *count = *blocked = 0;
    al_ray_log *log = rad->ray_log;
    if (!log) return 0;
    rad->ray_log = NULL; /* the replay is not logged */
    int64_t n = 0, hits = 0;
    uint64_t start = al_clock_ns();
    for (int64_t i = 0; i < log->capacity; i++)
        if (log->used[i]) {
            hits += !al_rad_ray(rad, log->from[i], log->to[i], NULL);
            n++;
        }
    double ns = n > 0 ? (double) (al_clock_ns() - start) / (double) n : 0;
    rad->ray_log = log;
    *count = n;
    *blocked = hits;
    return ns;
}

/* --- rays -------------------------------------------------------------------------- */

bool al_rad_ends_on_sky(const al_rad *rad, const double a[3], const double b[3], double t)
{
    double hit[3], dir[3], probe[3];
    al_sub(b, a, dir);
    al_madd(a, dir, t, hit);
    if (al_normalize(dir, dir) == 0) return false;
    al_madd(hit, dir, 0.05, probe);
    return sky_at(rad, probe) >= 0;
}

bool al_rad_ray(const al_rad *rad, const double a[3], const double b[3], bool *sky_hit)
{
    if (rad->ray_log && !sky_hit) log_ray(rad->ray_log, a, b);
    double t = al_ray_hit(&rad->ray_tree, a, b);
    if (t >= 1.0) return sky_hit == NULL;
    if (!sky_hit) return false;
    /* A sun ray: did it end on sky? */
    *sky_hit = al_rad_ends_on_sky(rad, a, b, t);
    return *sky_hit;
}
