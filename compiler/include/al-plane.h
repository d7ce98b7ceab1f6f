/* Planes as the compiler makes them, and the area of a polygon in one.
 *
 * A plane is {normal, dist}: the points x with dot(normal, x) == dist; the front is where
 * dot(normal, x) > dist. Brush planes point out of the brush.
 *
 * Other folders take a face's plane from here so that they agree with the compiler to the
 * last bit: the map document cuts brushes by these planes, the editor's clip tool and
 * inspector show them. The compiler's deduplicating plane table is its own (geom/plane.h).
 */
#ifndef AL_PLANE_PUBLIC_H
#define AL_PLANE_PUBLIC_H

#include <stdbool.h>

enum {
    AL_PLANE_X = 0, /* normal is +-X */
    AL_PLANE_Y = 1,
    AL_PLANE_Z = 2,
    AL_PLANE_ANY = 3, /* not axial */
};

typedef struct al_plane {
    double normal[3];
    double dist;
    int type; /* AL_PLANE_X/Y/Z or AL_PLANE_ANY */
} al_plane;

/* Plane through three points, oriented as the .map format does: the normal is
 * normalize((p0 - p1) x (p2 - p1)). Snaps a nearly axial normal to its axis. Returns false if
 * the points are (nearly) collinear or not finite; NORMAL and DIST are then untouched. */
bool al_plane_from_points(const double p0[3], const double p1[3], const double p2[3],
                          double normal[3], double *dist);

/* Zeroes normal components below AL_AXIAL_EPSILON when the other two are both below it, and
 * renormalizes. Returns the plane type. */
int al_plane_snap_normal(double normal[3]);

/* Type of a unit normal: AL_PLANE_X/Y/Z if exactly axial, else AL_PLANE_ANY. */
int al_plane_type(const double normal[3]);

/* Signed distance of P from PLANE (positive in front). */
static inline double al_plane_distance(const al_plane *plane, const double p[3])
{
    if (plane->type < AL_PLANE_ANY)
        return plane->normal[plane->type] * p[plane->type] - plane->dist;
    return plane->normal[0] * p[0] + plane->normal[1] * p[1] + plane->normal[2] * p[2] -
           plane->dist;
}

/* Area of the convex polygon of COUNT POINTS, in order (a face polygon from
 * al_brush_face_points, say). */
double al_points_area(const double (*points)[3], int count);

#endif
