/* The lighting of a .bsp (see bsp.h): each face's lightmap on Quake's 16-texel luxel grid,
 * read from the radiosity's lightmaps, a byte per luxel (the channels' mean) in the .bsp
 * and three in the .lit file beside it.
 *
 * An engine lays a face's lightmap over the texture coordinates of its vertexes: from
 * floor(min / 16) to ceil(max / 16) on each axis, a luxel every 16 texels, the rows along t.
 * The point of luxel (i, j) is where the face's plane has those texture coordinates; its
 * light is what the radiosity shows there (al_rad_shown_at), or, for a luxel whose point
 * lies off the face by more than the radiosity looks, half way to the face's centre, then
 * the centre. A light level becomes Quake's byte as its light writes it: half the level
 * (its "-range 0.5"), at most 255. Faces without lightmaps (TEX_SPECIAL: sky, liquids)
 * get none.
 *
 * Workload: one lookup per luxel; e1m1's 4,000 faces are a few tenths of a second.
 */
#include "bsp-internal.h"

#include "al-rad.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LUXEL 16.0

/* Quake's byte for light level V. */
static uint8_t level_byte(float v)
{
    double b = v * 0.5;
    return (uint8_t) (b <= 0 ? 0 : b >= 255 ? 255 : lround(b));
}

/* The point P on the plane N . p = D whose texture coordinates are (S, T) for TEX, by
 * Cramer's rule; false when the texture axes lie along the plane's normal. */
static bool texel_point(const q_texinfo *tex, const double n[3], double d, double s, double t,
                        double p[3])
{
    double m[3][3], r[3] = {s - tex->vecs[0][3], t - tex->vecs[1][3], d};
    for (int k = 0; k < 3; k++) {
        m[0][k] = tex->vecs[0][k];
        m[1][k] = tex->vecs[1][k];
        m[2][k] = n[k];
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (fabs(det) < 1e-12) return false;
    for (int c = 0; c < 3; c++) {
        double a[3][3];
        memcpy(a, m, sizeof a);
        for (int row = 0; row < 3; row++) a[row][c] = r[row];
        p[c] = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) /
               det;
    }
    return true;
}

al_status q_build_light(q_bsp *q)
{
    const al_rad *rad = q->src->rad;
    const al_rad_lightmap *map = q->src->lightmap;
    if (!rad || !map) return AL_OK;
    q_array gray = {NULL, 0, 0, 1}, rgb = {NULL, 0, 0, 3};
    int model = 0;
    for (int32_t i = 0; i < q->faces.count; i++) {
        q_face *f = Q_AT(q->faces, q_face, i);
        /* The faces are in model order; a model's are in its own coordinates, so its origin
         * takes a luxel's point back into the world's. */
        for (const q_model *qm = Q_AT(q->models, q_model, model);
             model + 1 < q->model_count &&
             (i < qm->first_face || i >= qm->first_face + qm->face_count);
             qm = Q_AT(q->models, q_model, ++model))
            ;
        const double *origin = q->model_origin[model];
        const q_texinfo *tex = Q_AT(q->texinfo, q_texinfo, f->texinfo);
        f->lightofs = -1;
        if (tex->flags & Q_TEX_SPECIAL) continue;
        const q_plane *pl = Q_AT(q->planes, q_plane, f->plane);
        double sign = f->side ? -1 : 1, n[3], d = sign * pl->dist;
        for (int k = 0; k < 3; k++) n[k] = sign * pl->normal[k];
        /* Extents as engines take them: doubles from the float vertexes and axes. */
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, centre[3] = {0, 0, 0};
        for (int e = 0; e < f->edge_count; e++) {
            int32_t se = *Q_AT(q->surfedges, int32_t, f->first_edge + e);
            const uint32_t *edge = *Q_AT(q->edges, q_edge, se >= 0 ? se : -se);
            const float *v = *Q_AT(q->vertexes, q_vertex, edge[se >= 0 ? 0 : 1]);
            for (int a = 0; a < 2; a++) {
                double x = (double) v[0] * tex->vecs[a][0] + (double) v[1] * tex->vecs[a][1] +
                           (double) v[2] * tex->vecs[a][2] + tex->vecs[a][3];
                lo[a] = fmin(lo[a], x);
                hi[a] = fmax(hi[a], x);
            }
            for (int k = 0; k < 3; k++) centre[k] += v[k] / (double) f->edge_count;
        }
        int first[2], size[2];
        for (int a = 0; a < 2; a++) {
            first[a] = (int) floor(lo[a] / LUXEL);
            size[a] = (int) ceil(hi[a] / LUXEL) - first[a] + 1;
        }
        for (int k = 0; k < 3; k++) centre[k] += origin[k];
        double probe[3];
        if (!texel_point(tex, n, d, first[0] * LUXEL, first[1] * LUXEL, probe)) continue;
        f->lightofs = gray.count;
        f->styles[0] = 0;
        for (int t = 0; t < size[1]; t++)
            for (int s = 0; s < size[0]; s++) {
                double p[3], half[3];
                texel_point(tex, n, d, (first[0] + s) * LUXEL, (first[1] + t) * LUXEL, p);
                for (int k = 0; k < 3; k++) p[k] += origin[k];
                for (int k = 0; k < 3; k++) half[k] = 0.5 * (p[k] + centre[k]);
                float level[3] = {0, 0, 0};
                if (!al_rad_shown_at(rad, map, p, n, level) &&
                    !al_rad_shown_at(rad, map, half, n, level) &&
                    !al_rad_shown_at(rad, map, centre, n, level))
                    memset(level, 0, sizeof level);
                uint8_t *g = q_push(&gray), *c = q_push(&rgb);
                if (!g || !c) {
                    q_array_free(&gray);
                    q_array_free(&rgb);
                    return AL_ERR_NOMEM;
                }
                for (int k = 0; k < 3; k++) c[k] = level_byte(level[k]);
                *g = (uint8_t) ((c[0] + c[1] + c[2] + 1) / 3);
            }
    }
    q->lighting = gray.items;
    q->lighting_bytes = (size_t) gray.count;
    q->lit = rgb.items;
    q->lit_bytes = 3 * (size_t) rgb.count;
    return AL_OK;
}
