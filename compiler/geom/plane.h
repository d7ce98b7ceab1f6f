/* Planes and the plane table.
 *
 * A plane is {normal, dist}: the points x with dot(normal, x) == dist; the front is where
 * dot(normal, x) > dist. Brush planes point out of the brush.
 *
 * Every plane the compiler uses lives in one table, deduplicated with AL_NORMAL_EPSILON and
 * AL_DIST_EPSILON (epsilon.h), so that "the same plane" is an integer comparison. Planes are
 * stored in pairs: index 2k is the canonical orientation (largest normal component
 * positive), 2k+1 its flip, so al_plane_flip(i) == i ^ 1 and i >> 1 names the geometric
 * plane whichever way it faces (Quake's convention).
 *
 * A table is filled on one thread and then only read (BSP builds on several threads read it
 * concurrently).
 */
#ifndef AL_PLANE_H
#define AL_PLANE_H

#include <stdbool.h>
#include <stdint.h>

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

typedef struct al_plane_table {
    al_plane *planes; /* owned; count entries, always an even number */
    int count;
    int capacity;
    int *next;    /* owned; hash chain per canonical plane (index >> 1) */
    int *buckets; /* owned; first canonical plane per bucket, -1 for none */
} al_plane_table;

static inline int al_plane_flip(int index)
{
    return index ^ 1;
}

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

/* Zero-initialised is not enough: call init. Returns false if memory runs out. */
bool al_plane_table_init(al_plane_table *table);

/* Empties the table, keeping its memory. */
void al_plane_table_reset(al_plane_table *table);

/* Frees the table's memory. NULL is a no-op. */
void al_plane_table_free(al_plane_table *table);

/* Initializes TABLE with COUNT planes (pairs, as a table stores them), indices unchanged. */
bool al_plane_table_load(al_plane_table *table, const al_plane *planes, int count);

/* Index of the plane {NORMAL, DIST} (NORMAL of unit length), adding it if no plane within
 * the epsilons exists. The normal is snapped first (al_plane_snap_normal). Returns -1 if
 * memory runs out. */
int al_plane_table_add(al_plane_table *table, const double normal[3], double dist);

/* Index of an existing plane matching {NORMAL, DIST}, or -1. */
int al_plane_table_find(const al_plane_table *table, const double normal[3], double dist);

#endif
