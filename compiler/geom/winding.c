/* Convex polygon operations (see winding.h).
 *
 * Splitting follows the classic Sutherland-Hodgman pass with an on-plane band of EPS: points
 * inside the band belong to both halves, so a polygon touching a plane along an edge is not
 * cut into a zero-width sliver. A new point on an axial plane gets that coordinate exactly,
 * so repeated splits by axial planes do not drift.
 */
#include "winding.h"

#include "al-epsilon.h"
#include "plane.h"
#include "al-vec3.h"

#include <math.h>
#include <string.h>

#define STACK_POINTS 64

al_winding *al_winding_alloc(al_arena *arena, int count)
{
    al_winding *w = al_arena_alloc(arena, sizeof *w + (size_t) count * sizeof w->points[0]);
    if (w) w->count = count;
    return w;
}

al_winding *al_winding_copy(al_arena *arena, const al_winding *w)
{
    al_winding *c = al_winding_alloc(arena, w->count);
    if (c) memcpy(c->points, w->points, (size_t) w->count * sizeof w->points[0]);
    return c;
}

al_winding *al_winding_reverse(al_arena *arena, const al_winding *w)
{
    al_winding *c = al_winding_alloc(arena, w->count);
    if (!c) return NULL;
    for (int i = 0; i < w->count; i++) al_copy(w->points[w->count - 1 - i], c->points[i]);
    return c;
}

void al_points_base(const double normal[3], double dist, double out[4][3])
{
    /* Pick the world axis least aligned with the normal as "up" on the plane. */
    int major = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(normal[k]) > fabs(normal[major])) major = k;
    double up[3] = {0, 0, 0};
    up[major == 2 ? 0 : 2] = 1.0;
    double v = al_dot(up, normal);
    al_madd(up, normal, -v, up);
    al_normalize(up, up);
    double org[3], right[3];
    al_scale(normal, dist, org);
    al_cross(up, normal, right);
    al_scale(up, AL_WORLD_EXTENT, up);
    al_scale(right, AL_WORLD_EXTENT, right);
    for (int k = 0; k < 3; k++) {
        out[0][k] = org[k] - right[k] + up[k];
        out[1][k] = org[k] + right[k] + up[k];
        out[2][k] = org[k] + right[k] - up[k];
        out[3][k] = org[k] - right[k] - up[k];
    }
}

al_winding *al_winding_base(al_arena *arena, const double normal[3], double dist)
{
    al_winding *w = al_winding_alloc(arena, 4);
    if (w) al_points_base(normal, dist, w->points);
    return w;
}

al_winding *al_winding_from_points(al_arena *arena, const double (*points)[3], int count)
{
    al_winding *w = al_winding_alloc(arena, count);
    if (w) memcpy(w->points, points, (size_t) count * sizeof w->points[0]);
    return w;
}

int al_points_clip(const double (*in)[3], int count, const double normal[3], double dist,
                   double eps, bool keep_front, double (*out)[3], int max)
{
    double dists[STACK_POINTS * 8];
    int sides[STACK_POINTS * 8];
    if (count > STACK_POINTS * 8) return -1;
    int type = al_plane_type(normal);
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < count; i++) {
        double d = type < AL_PLANE_ANY ? normal[type] * in[i][type] - dist
                                       : al_dot(normal, in[i]) - dist;
        if (!keep_front) d = -d; /* keep the side where d >= 0 */
        dists[i] = d;
        sides[i] = d > eps ? AL_SIDE_FRONT : d < -eps ? AL_SIDE_BACK : AL_SIDE_ON;
        counts[sides[i]]++;
    }
    if (!counts[AL_SIDE_BACK]) {
        if (count > max) return -1;
        if (out != in) memcpy(out, in, (size_t) count * sizeof out[0]);
        return count;
    }
    if (!counts[AL_SIDE_FRONT]) return 0;
    int n = 0;
    for (int i = 0; i < count; i++) {
        const double *p1 = in[i];
        if (sides[i] != AL_SIDE_BACK) {
            if (n == max) return -1;
            al_copy(p1, out[n++]);
        }
        if (sides[i] == AL_SIDE_ON) continue;
        int j = (i + 1) % count;
        if (sides[j] == AL_SIDE_ON || sides[j] == sides[i]) continue;
        const double *p2 = in[j];
        double t = dists[i] / (dists[i] - dists[j]);
        if (n == max) return -1;
        for (int k = 0; k < 3; k++) {
            if (type == k) out[n][k] = dist * normal[k];
            else out[n][k] = p1[k] + t * (p2[k] - p1[k]);
        }
        n++;
    }
    return n;
}

static int classify_points(const al_winding *w, const double normal[3], double dist, double eps,
                           double *dists, int *sides, int counts[3])
{
    int type = normal[0] == 1.0 || normal[0] == -1.0   ? 0
               : normal[1] == 1.0 || normal[1] == -1.0 ? 1
               : normal[2] == 1.0 || normal[2] == -1.0 ? 2
                                                       : AL_PLANE_ANY;
    counts[0] = counts[1] = counts[2] = 0;
    for (int i = 0; i < w->count; i++) {
        double d = type < AL_PLANE_ANY ? normal[type] * w->points[i][type] - dist
                                       : al_dot(normal, w->points[i]) - dist;
        if (dists) dists[i] = d;
        int s = d > eps ? AL_SIDE_FRONT : d < -eps ? AL_SIDE_BACK : AL_SIDE_ON;
        if (sides) sides[i] = s;
        counts[s]++;
    }
    if (counts[AL_SIDE_FRONT] && counts[AL_SIDE_BACK]) return AL_SIDE_CROSS;
    if (counts[AL_SIDE_FRONT]) return AL_SIDE_FRONT;
    if (counts[AL_SIDE_BACK]) return AL_SIDE_BACK;
    return AL_SIDE_ON;
}

int al_winding_classify(const al_winding *w, const double normal[3], double dist, double eps)
{
    int counts[3];
    return classify_points(w, normal, dist, eps, NULL, NULL, counts);
}

int al_winding_split(al_arena *arena, const al_winding *w, const double normal[3], double dist,
                     double eps, al_winding **front, al_winding **back)
{
    double dists_stack[STACK_POINTS];
    int sides_stack[STACK_POINTS];
    double *dists = dists_stack;
    int *sides = sides_stack;
    *front = *back = NULL;
    if (w->count > STACK_POINTS) {
        dists = al_arena_alloc(arena, (size_t) w->count * sizeof *dists);
        sides = al_arena_alloc(arena, (size_t) w->count * sizeof *sides);
        if (!dists || !sides) return -1;
    }
    int counts[3];
    int side = classify_points(w, normal, dist, eps, dists, sides, counts);
    if (side == AL_SIDE_FRONT) {
        *front = (al_winding *) w;
        return side;
    }
    if (side == AL_SIDE_BACK) {
        *back = (al_winding *) w;
        return side;
    }
    if (side == AL_SIDE_ON) return side;

    int type = al_plane_type(normal);
    int max = w->count + 4;
    al_winding *f = al_winding_alloc(arena, max);
    al_winding *b = al_winding_alloc(arena, max);
    if (!f || !b) return -1;
    f->count = b->count = 0;
    for (int i = 0; i < w->count; i++) {
        const double *p1 = w->points[i];
        if (sides[i] == AL_SIDE_ON) {
            al_copy(p1, f->points[f->count++]);
            al_copy(p1, b->points[b->count++]);
            continue;
        }
        if (sides[i] == AL_SIDE_FRONT) al_copy(p1, f->points[f->count++]);
        else al_copy(p1, b->points[b->count++]);
        int j = (i + 1) % w->count;
        if (sides[j] == AL_SIDE_ON || sides[j] == sides[i]) continue;
        const double *p2 = w->points[j];
        double t = dists[i] / (dists[i] - dists[j]);
        double mid[3];
        for (int k = 0; k < 3; k++) {
            if (type == k) mid[k] = dist * normal[k];
            else mid[k] = p1[k] + t * (p2[k] - p1[k]);
        }
        al_copy(mid, f->points[f->count++]);
        al_copy(mid, b->points[b->count++]);
    }
    *front = f;
    *back = b;
    return AL_SIDE_CROSS;
}

al_winding *al_winding_clip(al_arena *arena, const al_winding *w, const double normal[3],
                            double dist, double eps, bool keep_front, bool *failed)
{
    al_winding *f, *b;
    int side = al_winding_split(arena, w, normal, dist, eps, &f, &b);
    if (side < 0) {
        if (failed) *failed = true;
        return NULL;
    }
    if (side == AL_SIDE_ON) return (al_winding *) w;
    return keep_front ? f : b;
}

double al_points_area(const double (*points)[3], int count)
{
    double total[3] = {0, 0, 0};
    for (int i = 2; i < count; i++) {
        double a[3], b[3], c[3];
        al_sub(points[i - 1], points[0], a);
        al_sub(points[i], points[0], b);
        al_cross(a, b, c);
        al_add(total, c, total);
    }
    return 0.5 * al_length(total);
}

double al_winding_area(const al_winding *w)
{
    return al_points_area((const double (*)[3]) w->points, w->count);
}

void al_winding_center(const al_winding *w, double center[3])
{
    double c[3] = {0, 0, 0};
    for (int i = 0; i < w->count; i++) al_add(c, w->points[i], c);
    al_scale(c, w->count ? 1.0 / w->count : 0.0, center);
}

void al_winding_bounds(const al_winding *w, double mins[3], double maxs[3])
{
    al_bounds_clear(mins, maxs);
    for (int i = 0; i < w->count; i++) al_bounds_add(w->points[i], mins, maxs);
}

double al_winding_max_plane_error(const al_winding *w, const double normal[3], double dist)
{
    double worst = 0;
    for (int i = 0; i < w->count; i++) {
        double d = fabs(al_dot(normal, w->points[i]) - dist);
        if (d > worst) worst = d;
    }
    return worst;
}
