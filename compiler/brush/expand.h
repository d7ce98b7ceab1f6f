/* Bevel planes and the Minkowski expansion of brushes by agent boxes.
 *
 * An agent box B = [mins, maxs] around the agent's origin collides with a brush P exactly
 * when the origin lies in P (+) (-B), the Minkowski sum of the brush and the mirrored box.
 * Its faces have normals among: P's face normals, the three axes, and the cross products of
 * P's edges with the axes ("bevels"). So we add the axial bevels and then the edge bevels
 * that touch P along an edge, and push every plane out by the box's support distance,
 *     dist' = dist - min over corners c of B of dot(normal, c).
 * The result is the exact sum, not the over-expanded solid Quake 1 builds without bevels
 * (q1_hull_expansion*.map are the sharp cases where the difference shows).
 */
#ifndef AL_EXPAND_H
#define AL_EXPAND_H

#include "brush.h"

/* Support planes of the convex solid bounded by WINDINGS (with outward unit NORMALS) that
 * are not already among NORMALS: first the axial planes, then edge bevels. Writes at most
 * MAX planes to OUT_NORMALS / OUT_DISTS (distance = the solid's support in that direction)
 * and returns how many. */
int al_bevel_planes(const al_winding *const *windings, const double (*normals)[3], int count,
                    double (*out_normals)[3], double *out_dists, int max);

/* Distance by which a plane with NORMAL moves out when brushes are expanded by the box
 * [MINS, MAXS] (the support of the mirrored box). */
double al_box_support(const double normal[3], const double mins[3], const double maxs[3]);

/* B expanded by the box [MINS, MAXS], with bevels, into ARENA; B itself for a zero box.
 * Sides whose plane only touches an edge or corner of the sum are dropped. NULL if memory
 * runs out. */
al_brush *al_brush_expand(al_arena *arena, al_plane_table *planes, const al_brush *b,
                          const double mins[3], const double maxs[3]);

#endif
