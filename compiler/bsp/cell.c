/* Convex cells split plane by plane (see cell.h). */
#include "cell.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <string.h>

#define CELL_POINTS 512 /* of a new face, at most */

static al_cell *cell_alloc(al_arena *arena, int count)
{
    al_cell *c = al_arena_alloc(arena, sizeof *c + (size_t) count * sizeof c->faces[0]);
    if (c) c->count = 0;
    return c;
}

al_cell *al_cell_box(al_arena *arena, const double mins[3], const double maxs[3])
{
    al_cell *c = cell_alloc(arena, 6);
    if (!c) return NULL;
    for (int axis = 0; axis < 3; axis++)
        for (int dir = 0; dir < 2; dir++) {
            al_cell_face *f = &c->faces[c->count++];
            al_set(0, 0, 0, f->normal);
            f->normal[axis] = dir ? -1.0 : 1.0;
            f->dist = dir ? -mins[axis] : maxs[axis];
            f->winding = NULL;
        }
    for (int i = 0; i < 6; i++) {
        al_winding *w = al_winding_base(arena, c->faces[i].normal, c->faces[i].dist);
        for (int j = 0; j < 6 && w; j++) {
            if (j == i) continue;
            w = al_winding_clip(arena, w, c->faces[j].normal, c->faces[j].dist, AL_ON_EPSILON,
                                false, NULL);
        }
        if (!w) return NULL;
        c->faces[i].winding = w;
    }
    return c;
}

/* Clips the polygon of the COUNT points in POINTS to the bounds of C's vertices grown by
 * AL_ON_EPSILON, when it reaches beyond them; returns its new count (the points in POINTS)
 * or -1. The faces of a cell can fail to close it by a sliver: a face that lies in a split's
 * on-plane band goes to one side only, though the other side may touch it within the band,
 * and a later split can leave that side no more than the band. Its windings still bound
 * it; without this clip, a new face through it would reach the end of the world. */
static int clip_to_bounds(const al_cell *c, double (*points)[3], int count, double (*scratch)[3])
{
    double mins[3], maxs[3];
    al_bounds_clear(mins, maxs);
    for (int i = 0; i < c->count; i++) {
        const al_winding *w = c->faces[i].winding;
        for (int j = 0; j < w->count; j++) al_bounds_add(w->points[j], mins, maxs);
    }
    bool beyond = false;
    for (int i = 0; i < count && !beyond; i++)
        for (int k = 0; k < 3; k++)
            if (points[i][k] < mins[k] - AL_ON_EPSILON || points[i][k] > maxs[k] + AL_ON_EPSILON)
                beyond = true;
    if (!beyond) return count;
    double (*cur)[3] = points, (*next)[3] = scratch;
    for (int k = 0; k < 6 && count > 0; k++) {
        double n[3] = {0, 0, 0};
        n[k / 2] = k % 2 ? -1.0 : 1.0;
        double d = k % 2 ? -(mins[k / 2] - AL_ON_EPSILON) : maxs[k / 2] + AL_ON_EPSILON;
        count = al_points_clip((const double (*)[3]) cur, count, n, d, AL_ON_EPSILON, false, next,
                               CELL_POINTS);
        if (count < 0) return -1;
        double (*t)[3] = cur;
        cur = next;
        next = t;
    }
    if (cur != points && count > 0) memcpy(points, cur, (size_t) count * sizeof *points);
    return count;
}

int al_cell_split(al_arena *arena, const al_cell *c, const double normal[3], double dist,
                  al_cell **front, al_cell **back)
{
    *front = *back = NULL;
    /* The new face: the plane's square clipped to the cell, in scratch buffers. */
    double buf[2][CELL_POINTS][3];
    double (*cur)[3] = buf[0], (*next)[3] = buf[1];
    al_points_base(normal, dist, (double (*)[3]) cur);
    int n = 4;
    for (int i = 0; i < c->count && n > 0; i++) {
        n = al_points_clip((const double (*)[3]) cur, n, c->faces[i].normal, c->faces[i].dist,
                           AL_ON_EPSILON, false, next, CELL_POINTS);
        if (n < 0) return -1;
        double (*t)[3] = cur;
        cur = next;
        next = t;
    }
    if (n >= 3) n = clip_to_bounds(c, cur, n, next);
    if (n < 0) return -1;
    al_winding *mid = NULL;
    if (n >= 3) {
        mid = al_winding_from_points(arena, (const double (*)[3]) cur, n);
        if (!mid) return -1;
    }
    if (!mid) {
        /* The plane misses the cell: it is wholly on one side. */
        double p[3];
        al_cell_point(c, p);
        if (al_dot(normal, p) - dist >= 0) *front = (al_cell *) c;
        else *back = (al_cell *) c;
        return 0;
    }
    al_cell *f = cell_alloc(arena, c->count + 1);
    al_cell *b = cell_alloc(arena, c->count + 1);
    if (!f || !b) return -1;
    for (int i = 0; i < c->count; i++) {
        al_winding *wf, *wb;
        int side = al_winding_split(arena, c->faces[i].winding, normal, dist, AL_ON_EPSILON, &wf,
                                    &wb);
        if (side < 0) return -1;
        if (side == AL_SIDE_ON) {
            /* A face lying in the plane bounds the side it faces away from. */
            if (al_dot(c->faces[i].normal, normal) > 0) wb = c->faces[i].winding;
            else wf = c->faces[i].winding;
        }
        if (wf) f->faces[f->count++] = (al_cell_face){{c->faces[i].normal[0],
                                                       c->faces[i].normal[1],
                                                       c->faces[i].normal[2]},
                                                      c->faces[i].dist, wf};
        if (wb) b->faces[b->count++] = (al_cell_face){{c->faces[i].normal[0],
                                                       c->faces[i].normal[1],
                                                       c->faces[i].normal[2]},
                                                      c->faces[i].dist, wb};
    }
    /* The back part is closed by the new face facing along NORMAL, the front part by its
     * reverse. A side left with fewer than 3 faces other than the new one has no volume. */
    al_winding *rev = al_winding_reverse(arena, mid);
    if (!rev) return -1;
    if (b->count >= 3) {
        al_cell_face *nf = &b->faces[b->count++];
        al_copy(normal, nf->normal);
        nf->dist = dist;
        nf->winding = mid;
        *back = b;
    }
    if (f->count >= 3) {
        al_cell_face *nf = &f->faces[f->count++];
        al_scale(normal, -1.0, nf->normal);
        nf->dist = -dist;
        nf->winding = rev;
        *front = f;
    }
    return 0;
}

void al_cell_point(const al_cell *c, double p[3])
{
    double sum[3] = {0, 0, 0};
    int n = 0;
    for (int i = 0; i < c->count; i++) {
        const al_winding *w = c->faces[i].winding;
        for (int j = 0; j < w->count; j++) al_add(sum, w->points[j], sum);
        n += w->count;
    }
    al_scale(sum, n ? 1.0 / n : 0.0, p);
}

int al_cell_faces(const al_cell *c, const al_winding **windings, double (*normals)[3], int max)
{
    int n = c->count < max ? c->count : max;
    for (int i = 0; i < n; i++) {
        windings[i] = c->faces[i].winding;
        al_copy(c->faces[i].normal, normals[i]);
    }
    return n;
}
