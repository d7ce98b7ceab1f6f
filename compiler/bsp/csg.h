/* CSG union: the boundary faces of one hull's expanded world inside one block (or
 * sub-cell).
 *
 * Every face of every expanded brush is clipped to the block, and the parts that lie inside
 * another brush are removed. Where two brushes share a face plane facing the same way, the
 * later brush (in the list, which is in input order) keeps the shared part; where two faces
 * touch back to back, both are removed. Faces lying on the block's own surface are dropped:
 * the block split above already separates those regions.
 */
#ifndef AL_CSG_H
#define AL_CSG_H

#include "brush/brush.h"
#include "poly.h"

/* Appends the boundary polygons of the union of BRUSHES within [MINS, MAXS] to OUT, tagged
 * with HULL. BRUSHES are the expanded brushes overlapping the block, in input order (their
 * ids are not used: an expanded brush serves every world that has its brush, wherever the
 * brush now is in the input). Returns 0, or -1 if memory runs out. */
int al_csg_boundary(al_arena *arena, const al_plane_table *planes, al_brush *const *brushes,
                    int count, const double mins[3], const double maxs[3], int hull,
                    al_poly_vec *out);

/* True if P lies inside (not on the surface of) some brush of BRUSHES. */
bool al_csg_point_inside(const al_plane_table *planes, al_brush *const *brushes, int count,
                         const double p[3]);

#endif
