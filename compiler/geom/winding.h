/* Windings: convex polygons in 3D, the currency of brush faces, CSG fragments and BSP cells.
 *
 * A winding is a counted array of points in order (counter-clockwise seen from the front of
 * its plane). Windings are immutable once made and live in an arena (core/arena.h): split
 * and clip return new windings, or the input itself when nothing was cut off, and never
 * free anything.
 */
#ifndef AL_WINDING_H
#define AL_WINDING_H

#include "al-plane.h"
#include "core/arena.h"

#include <stdbool.h>

typedef struct al_winding {
    int count;
    double points[][3];
} al_winding;

enum {
    AL_SIDE_FRONT = 0,
    AL_SIDE_BACK = 1,
    AL_SIDE_ON = 2,
    AL_SIDE_CROSS = 3,
};

/* Uninitialised winding of COUNT points; NULL if memory runs out. */
al_winding *al_winding_alloc(al_arena *arena, int count);

al_winding *al_winding_copy(al_arena *arena, const al_winding *w);

/* Same points in reverse order (faces the other way). */
al_winding *al_winding_reverse(al_arena *arena, const al_winding *w);

/* A square of half size AL_WORLD_EXTENT on the plane, facing along NORMAL. */
al_winding *al_winding_base(al_arena *arena, const double normal[3], double dist);

/* Which side of {NORMAL, DIST} W is on, points within EPS counting as on the plane. */
int al_winding_classify(const al_winding *w, const double normal[3], double dist, double eps);

/* Splits W by the plane. Returns the side as al_winding_classify does and sets *FRONT and
 * *BACK: to W itself for the side it lies on, to new windings when it crosses, to NULL for
 * the empty side. When W lies on the plane both are NULL. Sets both NULL and returns -1 if
 * memory runs out. */
int al_winding_split(al_arena *arena, const al_winding *w, const double normal[3], double dist,
                     double eps, al_winding **front, al_winding **back);

/* The part of W in front of the plane (KEEP_FRONT) or behind it; W itself if nothing is cut
 * off, NULL if nothing remains. A winding on the plane is kept whole. On memory exhaustion
 * returns NULL and sets *FAILED (if FAILED is not NULL). */
al_winding *al_winding_clip(al_arena *arena, const al_winding *w, const double normal[3],
                            double dist, double eps, bool keep_front, bool *failed);

/* Clipping in caller-owned buffers, for building a polygon by many clips without
 * allocating each intermediate: the points of a convex polygon in IN (COUNT of them) are
 * clipped to the back (or front) of the plane into OUT, which has room for MAX points (a
 * clip adds at most one point). Returns the new count (0: nothing left), or -1 if MAX is
 * too small. A polygon on the plane is kept whole. */
int al_points_clip(const double (*in)[3], int count, const double normal[3], double dist,
                   double eps, bool keep_front, double (*out)[3], int max);

/* The 4 points of al_winding_base into OUT. */
void al_points_base(const double normal[3], double dist, double out[4][3]);

/* A winding holding copies of COUNT points. */
al_winding *al_winding_from_points(al_arena *arena, const double (*points)[3], int count);

/* Area of W (al_points_area in al-plane.h measures a polygon without a winding). */
double al_winding_area(const al_winding *w);

void al_winding_center(const al_winding *w, double center[3]);
void al_winding_bounds(const al_winding *w, double mins[3], double maxs[3]);

/* Largest distance of a point of W from the plane (absolute). */
double al_winding_max_plane_error(const al_winding *w, const double normal[3], double dist);

#endif
