/* The runtime's other queries: hulls and models, vis leaves and the PVS, the light at a
 * surface point, and the entities' key/value pairs.
 *
 * Entry points: the alrt_hull*, alrt_model*, alrt_leaf*, alrt_pvs_row, alrt_light_at and
 * alrt_entity* functions of allium-runtime.h. Workload: a few lookups per frame; the
 * light lookup looks through every lit face (tools and probes, not per pixel).
 */
#include "runtime-internal.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

int alrt_hull_count(const alrt_world *w)
{
    return w->hull_count;
}

const char *alrt_hull(const alrt_world *w, int hull, double mins[3], double maxs[3])
{
    if (hull < 0 || hull >= w->hull_count) return NULL;
    if (mins) memcpy(mins, w->hull_mins[hull], sizeof w->hull_mins[hull]);
    if (maxs) memcpy(maxs, w->hull_maxs[hull], sizeof w->hull_maxs[hull]);
    return w->hull_names[hull];
}

int alrt_find_hull(const alrt_world *w, const char *name)
{
    for (int h = 0; h < w->hull_count; h++)
        if (strcmp(w->hull_names[h], name) == 0) return h;
    return -1;
}

int alrt_model_count(const alrt_world *w)
{
    return (int) w->model_count;
}

int alrt_model_entity(const alrt_world *w, int model)
{
    return model >= 0 && (uint32_t) model < w->model_count ? w->models[model].entity : -1;
}

/* --- visibility ---------------------------------------------------------------------- */

int alrt_leaf_count(const alrt_world *w)
{
    return (int) w->vis_leaf_count;
}

int alrt_leaf_at(const alrt_world *w, const double p[3])
{
    if (w->vis_leaf_count == 0 || !isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) return -1;
    const rt_tree *t = &rt_find_block(&w->models[0], p)->vis;
    if (t->leaf_count == 0) return -1;
    return (int32_t) t->leaves[rt_find_leaf(t, p)];
}

const uint8_t *alrt_pvs_row(const alrt_world *w, int a)
{
    if (a < 0 || (uint32_t) a >= w->vis_leaf_count) return NULL;
    return w->pvs + (size_t) a * w->row_bytes;
}

int alrt_leaf_sees(const alrt_world *w, int a, int b)
{
    const uint8_t *row = alrt_pvs_row(w, a);
    if (!row || b < 0 || (uint32_t) b >= w->vis_leaf_count) return 0;
    return row[b >> 3] >> (b & 7) & 1;
}

/* --- light --------------------------------------------------------------------------- */

int alrt_has_light(const alrt_world *w)
{
    return w->face_count > 0;
}

/* How far P lies outside convex polygon POLY (N points, normal NORMAL), measured in its
 * plane; 0 inside. */
static double outside_by(const double (*poly)[3], uint32_t n, const double normal[3],
                         const double p[3])
{
    bool inside = true;
    double best = INFINITY, sign = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = poly[i], *b = poly[(i + 1) % n];
        double e[3], ap[3];
        for (int k = 0; k < 3; k++) e[k] = b[k] - a[k], ap[k] = p[k] - a[k];
        double x[3] = {e[1] * ap[2] - e[2] * ap[1], e[2] * ap[0] - e[0] * ap[2],
                       e[0] * ap[1] - e[1] * ap[0]};
        double side = x[0] * normal[0] + x[1] * normal[1] + x[2] * normal[2];
        if (sign == 0)
            sign = side;
        else if (side * sign < 0)
            inside = false;
        double len2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
        double t =
            len2 > 0 ? fmin(fmax((ap[0] * e[0] + ap[1] * e[1] + ap[2] * e[2]) / len2, 0), 1) : 0;
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = p[k] - (a[k] + e[k] * t);
        double dn = d[0] * normal[0] + d[1] * normal[1] + d[2] * normal[2];
        for (int k = 0; k < 3; k++) d[k] -= normal[k] * dn;
        best = fmin(best, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    return inside ? 0 : best;
}

int alrt_light_at(const alrt_world *w, const double p[3], const double n_in[3], float rgb[3])
{
    rgb[0] = rgb[1] = rgb[2] = 0;
    double len = sqrt(n_in[0] * n_in[0] + n_in[1] * n_in[1] + n_in[2] * n_in[2]);
    if (!(len > 0) || !isfinite(len) || w->face_count == 0) return 0;
    double n[3] = {n_in[0] / len, n_in[1] / len, n_in[2] / len};
    const rt_face *best = NULL;
    double best_d = ALRT_EDGE_TOLERANCE;
    for (uint32_t i = 0; i < w->face_count; i++) {
        const rt_face *f = &w->faces[i];
        if (f->normal[0] * n[0] + f->normal[1] * n[1] + f->normal[2] * n[2] < 0.99) continue;
        double off = f->normal[0] * p[0] + f->normal[1] * p[1] + f->normal[2] * p[2] - f->dist;
        if (!(fabs(off) <= ALRT_PLANE_TOLERANCE)) continue;
        double d = outside_by((const double(*)[3]) w->points[f->first_point], f->point_count,
                              f->normal, p);
        if (d <= best_d) best_d = d, best = f;
    }
    if (!best) return 0;
    double u = floor((p[best->axis_u] - best->u0) / best->luxel);
    double v = floor((p[best->axis_v] - best->v0) / best->luxel);
    uint32_t i = u < 0 ? 0 : u >= best->w ? best->w - 1 : (uint32_t) u;
    uint32_t j = v < 0 ? 0 : v >= best->h ? best->h - 1 : (uint32_t) v;
    size_t t = (size_t) (best->atlas_y + 1 + j) * w->light_width + (best->atlas_x + 1 + i);
    memcpy(rgb, w->texels[t], 3 * sizeof *rgb);
    return 1;
}

/* --- entities ------------------------------------------------------------------------ */

int alrt_entity_count(const alrt_world *w)
{
    return (int) w->entity_count;
}

int alrt_entity_pair_count(const alrt_world *w, int e)
{
    return e >= 0 && (uint32_t) e < w->entity_count ? (int) w->entities[e].pair_count : 0;
}

const char *alrt_entity_pair(const alrt_world *w, int e, int i, const char **value)
{
    if (e < 0 || (uint32_t) e >= w->entity_count || i < 0 ||
        (uint32_t) i >= w->entities[e].pair_count)
        return NULL;
    if (value) *value = w->entities[e].keys[2 * i + 1];
    return w->entities[e].keys[2 * i];
}

const char *alrt_entity_value(const alrt_world *w, int e, const char *key)
{
    int n = alrt_entity_pair_count(w, e);
    for (int i = 0; i < n; i++)
        if (strcmp(w->entities[e].keys[2 * i], key) == 0) return w->entities[e].keys[2 * i + 1];
    return NULL;
}
