/* BSP cells: the convex region of a node, carried down the build.
 *
 * Both builds need an interior point of every leaf (the seed's "arbitrary leaf point"): the
 * onion build classifies it in each hull's map tree, a map tree's build against its
 * brushes. The seed rebuilds the leaf's polyhedron from its ancestor planes at each leaf;
 * we carry the polyhedron down instead and split it at every node, which gives the same
 * polyhedron for O(faces) work per node instead of O(depth^2) per leaf. The point is the
 * mean of the polyhedron's vertices, strictly inside a cell of positive volume.
 */
#ifndef AL_CELL_H
#define AL_CELL_H

#include "core/arena.h"
#include "geom/winding.h"

typedef struct al_cell_face {
    double normal[3]; /* outward */
    double dist;
    al_winding *winding;
} al_cell_face;

typedef struct al_cell {
    int count;
    al_cell_face faces[];
} al_cell;

/* The box [MINS, MAXS] as a cell; NULL if memory runs out. */
al_cell *al_cell_box(al_arena *arena, const double mins[3], const double maxs[3]);

/* Splits C by {NORMAL, DIST} into the part in front and the part behind. A side with no
 * volume (thinner than AL_ON_EPSILON) comes back NULL. Returns 0, or -1 if memory runs
 * out. */
int al_cell_split(al_arena *arena, const al_cell *c, const double normal[3], double dist,
                  al_cell **front, al_cell **back);

/* Mean of the cell's vertices: a point inside a cell with volume. */
void al_cell_point(const al_cell *c, double p[3]);

/* Windings and outward normals of the faces, for al_bevel_planes. Fills at most MAX entries
 * and returns the count. */
int al_cell_faces(const al_cell *c, const al_winding **windings, double (*normals)[3], int max);

#endif
