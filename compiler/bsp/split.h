/* Split plane choice (see build.h for the heuristic and its source). */
#ifndef AL_SPLIT_H
#define AL_SPLIT_H

#include "build.h"

typedef struct al_split_eval {
    int plane; /* canonical plane index */
    int front, back, spanning;
    bool axial;
    bool cuts_hint; /* not a hint face's plane, and it would cut a hint face */
} al_split_eval;

/* How a polygon lies against a canonical split plane. A polygon in the plane's on-plane
 * band (within AL_ON_EPSILON) is coplanar, facing one side, when its normal is within a
 * degree of the plane's; leaning further, it lies across the plane (ACROSS): it is a sliver
 * of a surface that crosses the band, and goes to both sides whole, since its plane may be
 * what divides a thin cell on either. */
enum {
    AL_POLY_FRONT,
    AL_POLY_BACK,
    AL_POLY_SPANNING,
    AL_POLY_COPLANAR_FRONT,
    AL_POLY_COPLANAR_BACK,
    AL_POLY_ACROSS,
};

/* Classifies P against the plane PLANE_INDEX with the bounding box first, then the points. */
int al_split_classify(const al_plane_table *planes, int plane_index, const al_bsp_poly *p);

/* The canonical plane to split POLYS on, or -1 when no polygon is a candidate. A plane that
 * would cut a candidate hint face is not chosen unless it is itself a hint face's plane
 * (Quake's compilers' rule: a hint face is split on before any other plane crosses it). */
int al_split_choose(al_build_scratch *scratch, const al_plane_table *planes,
                    const al_bsp_poly *polys, int count, al_build_stats *stats);

/* A flat polygon's position along an axis, for counting coplanar polygons (split.c). */
typedef struct al_split_flat {
    double lo, hi;
    int facing; /* 1: coplanar facing +axis, -1: facing -axis, 0: across (AL_POLY_ACROSS) */
} al_split_flat;

/* Axial candidate planes are all evaluated (from sorted bounds, cheaply); of the non-axial
 * ones at most this many per node, an evenly spaced sample beyond it. Measured on the real
 * maps, see README (developer section). */
#define AL_SPLIT_MAX_CANDIDATES 16

#endif
