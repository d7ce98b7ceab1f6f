/* Bevels and Minkowski expansion (see expand.h).
 *
 * Cost per brush: O(edges * 3) candidate bevels, each checked against every vertex, then
 * O(planes^2) clips to make the expanded faces. A 6-sided box gets no bevels at all; a
 * wedge gets a few; q1_hull_expansion.map's sharp prisms get the most.
 */
#include "expand.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <string.h>

#define MAX_BRUSH_PLANES 256
#define BEVEL_EPSILON    1e-6 /* an edge lies on a candidate plane if within this */

/* Normals closer than TOLERANCE on every axis count as one. */
static bool has_normal(const double (*normals)[3], int count, const double n[3],
                       double tolerance)
{
    for (int i = 0; i < count; i++)
        if (fabs(normals[i][0] - n[0]) < tolerance && fabs(normals[i][1] - n[1]) < tolerance &&
            fabs(normals[i][2] - n[2]) < tolerance)
            return true;
    return false;
}

/* An edge bevel's normal closer than this to an axis is that axis, and closer than this to
 * a face or another bevel is that plane. The cross product of an edge that should be
 * parallel to a plane picks up rounding noise (normals of 1e-9 to 1e-8 off an axis come out
 * of thin cells clipped by planes a rounding apart). With a tolerance inside that band, the
 * same cell would get a bevel or not depending on the noise, and two compiles of one map
 * that only numbered their planes differently would build different trees. Genuine slopes
 * are far above it: an edge between integer points within the world's coordinate range
 * leans at least 1 / 262144 (about 4e-6) off an axis. */
#define BEVEL_SAME_NORMAL 1e-6

static void snap_bevel_normal(double n[3])
{
    for (int k = 0; k < 3; k++) {
        int a = (k + 1) % 3, b = (k + 2) % 3;
        if (fabs(n[a]) < BEVEL_SAME_NORMAL && fabs(n[b]) < BEVEL_SAME_NORMAL) {
            n[a] = n[b] = 0.0;
            n[k] = n[k] > 0 ? 1.0 : -1.0;
            return;
        }
    }
    al_plane_snap_normal(n);
}

int al_bevel_planes(const al_winding *const *windings, const double (*normals)[3], int count,
                    double (*out_normals)[3], double *out_dists, int max)
{
    int made = 0;
    /* Axial bevels: the bounding box planes. */
    double mins[3], maxs[3];
    al_bounds_clear(mins, maxs);
    for (int i = 0; i < count; i++)
        if (windings[i])
            for (int j = 0; j < windings[i]->count; j++)
                al_bounds_add(windings[i]->points[j], mins, maxs);
    for (int axis = 0; axis < 3; axis++)
        for (int dir = 0; dir < 2; dir++) {
            double n[3] = {0, 0, 0};
            n[axis] = dir ? -1.0 : 1.0;
            if (has_normal(normals, count, n, 1e-9) || made >= max) continue;
            al_copy(n, out_normals[made]);
            out_dists[made++] = dir ? -mins[axis] : maxs[axis];
        }

    /* Edge bevels: for every edge and axis, the plane containing the edge and parallel to
     * the axis, if the whole solid lies behind it (one of its two orientations). */
    for (int i = 0; i < count; i++) {
        const al_winding *w = windings[i];
        if (!w) continue;
        for (int e = 0; e < w->count; e++) {
            const double *p = w->points[e];
            const double *q = w->points[(e + 1) % w->count];
            double u[3];
            al_sub(q, p, u);
            if (al_normalize(u, u) < AL_ON_EPSILON) continue;
            for (int axis = 0; axis < 3; axis++) {
                double a[3] = {0, 0, 0}, n[3];
                a[axis] = 1.0;
                al_cross(u, a, n);
                if (al_normalize(n, n) < 1e-6) continue; /* edge parallel to the axis */
                snap_bevel_normal(n);
                /* A plane already there in both orientations is skipped whichever one the
                 * solid would pick: most candidates of boxes and of the cells of
                 * axis-aligned brushes are their own faces, so this spares the pass over
                 * every vertex for them. */
                double m[3];
                al_scale(n, -1.0, m);
                if ((has_normal(normals, count, n, BEVEL_SAME_NORMAL) ||
                     has_normal(out_normals, made, n, BEVEL_SAME_NORMAL)) &&
                    (has_normal(normals, count, m, BEVEL_SAME_NORMAL) ||
                     has_normal(out_normals, made, m, BEVEL_SAME_NORMAL)))
                    continue;
                double e0 = al_dot(n, p), lo = e0, hi = e0;
                for (int f = 0; f < count; f++) {
                    if (!windings[f]) continue;
                    for (int v = 0; v < windings[f]->count; v++) {
                        double s = al_dot(n, windings[f]->points[v]);
                        if (s < lo) lo = s;
                        if (s > hi) hi = s;
                    }
                }
                double dist;
                if (hi - e0 <= BEVEL_EPSILON) {
                    dist = hi;
                } else if (e0 - lo <= BEVEL_EPSILON) {
                    al_scale(n, -1.0, n);
                    dist = -lo;
                } else {
                    continue; /* the edge is not on the hull in this direction */
                }
                if (has_normal(normals, count, n, BEVEL_SAME_NORMAL) ||
                    has_normal(out_normals, made, n, BEVEL_SAME_NORMAL))
                    continue;
                if (made >= max) return made;
                al_copy(n, out_normals[made]);
                out_dists[made++] = dist;
            }
        }
    }
    return made;
}

double al_box_support(const double normal[3], const double mins[3], const double maxs[3])
{
    double s = 0;
    for (int k = 0; k < 3; k++) {
        double a = normal[k] * mins[k], b = normal[k] * maxs[k];
        s -= a < b ? a : b;
    }
    return s;
}

al_brush *al_brush_expand(al_arena *arena, al_plane_table *planes, const al_brush *b,
                          const double mins[3], const double maxs[3])
{
    if (mins[0] == 0 && mins[1] == 0 && mins[2] == 0 && maxs[0] == 0 && maxs[1] == 0 &&
        maxs[2] == 0)
        return (al_brush *) b;

    int n = b->side_count;
    if (n > MAX_BRUSH_PLANES) n = MAX_BRUSH_PLANES;
    const al_winding *windings[MAX_BRUSH_PLANES];
    double normals[MAX_BRUSH_PLANES][3];
    double dists[MAX_BRUSH_PLANES];
    int materials[MAX_BRUSH_PLANES], faces[MAX_BRUSH_PLANES];
    for (int i = 0; i < n; i++) {
        const al_plane *p = &planes->planes[b->sides[i].plane];
        windings[i] = b->sides[i].winding;
        al_copy(p->normal, normals[i]);
        dists[i] = p->dist;
        materials[i] = b->sides[i].material;
        faces[i] = b->sides[i].face;
    }
    int bevels = al_bevel_planes(windings, (const double (*)[3]) normals, n, normals + n,
                                 dists + n, MAX_BRUSH_PLANES - n);
    int total = n + bevels;
    for (int i = n; i < total; i++) {
        materials[i] = -1;
        faces[i] = -1;
    }

    int plane_index[MAX_BRUSH_PLANES];
    for (int i = 0; i < total; i++) {
        double d = dists[i] + al_box_support(normals[i], mins, maxs);
        plane_index[i] = al_plane_table_add(planes, normals[i], d);
        if (plane_index[i] < 0) return NULL;
    }
    al_winding *out_windings[MAX_BRUSH_PLANES];
    if (al_brush_windings(arena, planes, plane_index, total, out_windings) < 0) return NULL;

    al_brush *e = al_arena_alloc(arena, sizeof *e);
    al_side *sides = al_arena_alloc(arena, (size_t) total * sizeof *sides);
    if (!e || !sides) return NULL;
    *e = *b;
    int kept = 0;
    al_bounds_clear(e->mins, e->maxs);
    for (int i = 0; i < total; i++) {
        if (!out_windings[i]) continue;
        sides[kept++] = (al_side){plane_index[i], materials[i], faces[i], out_windings[i]};
        for (int v = 0; v < out_windings[i]->count; v++)
            al_bounds_add(out_windings[i]->points[v], e->mins, e->maxs);
    }
    e->sides = sides;
    e->side_count = kept;
    return e;
}
