/* Light at any point of a map's faces, for tools that set it beside another light
 * compiler's (allium-bench light): the direct light computed at the point by the rules the
 * solver shoots its light sources with, or what a lightmap shows there.
 *
 * Entry points: al_rad_direct_at, al_rad_shown_at (al-rad.h). Workload: a few thousand
 * points per call of a tool; each looks through the lit faces for the one it lies on.
 */
#include "rad-internal.h"

#include "al-vis.h"
#include "al-vec3.h"

#include <math.h>
#include <string.h>

#define PLANE_TOLERANCE 1.0 /* units off a face's plane a point may be and still lie on it */
#define EDGE_TOLERANCE                                                                             \
    16.0 /* units outside a face's polygon likewise (Quake's samples reach                         \
            past a face's edges) */

/* How far P lies outside convex polygon POLY (N points) with normal NORMAL, measured in
 * its plane; 0 inside. */
static double outside_by(const double (*poly)[3], int n, const double normal[3], const double p[3])
{
    bool inside = true;
    double best = INFINITY;
    double sign = 0;
    for (int i = 0; i < n; i++) {
        const double *a = poly[i], *b = poly[(i + 1) % n];
        double e[3], ap[3], x[3];
        al_sub(b, a, e);
        al_sub(p, a, ap);
        al_cross(e, ap, x);
        double side = al_dot(x, normal);
        if (sign == 0)
            sign = side;
        else if (side * sign < 0)
            inside = false;
        double len2 = al_dot(e, e);
        double t = len2 > 0 ? fmin(fmax(al_dot(ap, e) / len2, 0), 1) : 0;
        double q[3], d[3];
        al_madd(a, e, t, q);
        al_sub(p, q, d);
        al_madd(d, normal, -al_dot(d, normal), d); /* in the plane */
        best = fmin(best, al_length(d));
    }
    return inside ? 0 : best;
}

/* The lit face (index into rad.faces) P lies on, facing along N: the one whose polygon
 * is nearest among those whose plane holds P; -1 if none is within the tolerances. */
static int32_t face_at(const al_rad *rad, const double p[3], const double n[3])
{
    const al_face_polys *fp = &rad->polys;
    int32_t best = -1;
    double best_d = EDGE_TOLERANCE;
    for (int k = 0; k < fp->face_count; k++) {
        int32_t fi = rad->face_of_poly[k];
        if (fi < 0 || rad->faces[fi].live == 0) continue;
        const rad_face *f = &rad->faces[fi];
        if (al_dot(f->normal, n) < 0.99) continue;
        if (fabs(al_dot(f->normal, p) - f->dist) > PLANE_TOLERANCE) continue;
        const al_face_poly *poly = &fp->faces[k];
        double d = outside_by((const double(*)[3]) fp->points[poly->first_point], poly->point_count,
                              f->normal, p);
        if (d <= best_d) best_d = d, best = fi;
    }
    return best;
}

void al_rad_direct_at(const al_rad *rad, const double p[3], const double n_in[3], int style,
                      float out[3])
{
    out[0] = out[1] = out[2] = 0;
    double n[3];
    if (!(al_normalize(n_in, n) > 0)) return;
    rad_point pt;
    al_copy(p, pt.x);
    al_copy(n, pt.n);
    al_madd(p, n, AL_RAD_SAMPLE_OFFSET, pt.from);
    pt.cluster =
        al_world_vis_leaf_count(rad->world) > 0 ? al_world_vis_leaf_at(rad->world, pt.from) : -1;
    int32_t face = face_at(rad, p, n);
    pt.occlusion = 0;
    if (rad->dirt.used && (face < 0 || !al_rad_face_no_dirt(rad, face)))
        pt.occlusion = al_rad_occlusion_at(rad, pt.from, n, al_rad_point_seed(pt.from));
    double extent = al_rad_sun_reach(rad);
    for (int32_t i = 0; i < rad->light_count; i++) {
        const rad_light *l = &rad->lights[i];
        if (style >= 0 && l->style != style) continue;
        const uint64_t *row = l->kind == RAD_SUN ? NULL : al_rad_pvs_row(rad, l->cluster);
        al_rad_light_add(rad, l, row, &pt, extent, out);
    }
    float floor[3];
    al_rad_floor_at(rad, face, &pt, style, floor);
    for (int k = 0; k < 3; k++) out[k] = fmaxf(out[k], floor[k]);
}

bool al_rad_shown_at(const al_rad *rad, const al_rad_lightmap *map, const double p[3],
                     const double n_in[3], float out[3])
{
    out[0] = out[1] = out[2] = 0;
    double n[3];
    if (!(al_normalize(n_in, n) > 0) || !map->texels || map->width != rad->atlas_w ||
        map->height != rad->atlas_h)
        return false;
    int32_t fi = face_at(rad, p, n);
    if (fi < 0) return false;
    const rad_face *f = &rad->faces[fi];
    int i = (int) floor((p[f->axis_u] - f->u0) / f->luxel);
    int j = (int) floor((p[f->axis_v] - f->v0) / f->luxel);
    i = i < 0 ? 0 : i >= f->w ? f->w - 1 : i;
    j = j < 0 ? 0 : j >= f->h ? f->h - 1 : j;
    size_t t = (size_t) (f->atlas_y + 1 + j) * (size_t) map->width + (size_t) (f->atlas_x + 1 + i);
    memcpy(out, map->texels[t], 3 * sizeof *out);
    return true;
}
