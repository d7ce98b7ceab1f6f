/* CSG union: the boundary faces of one hull's expanded world inside one block (or
 * sub-cell).
 *
 * Every face of every expanded brush is clipped to the block, and the parts that lie inside
 * another brush are removed. Where two brushes share a face plane facing the same way, the
 * later brush (in the list, which is in input order) keeps the shared part; on two nearly
 * coincident planes (a piece within AL_ON_EPSILON of the other's plane) both keep theirs,
 * since the other face need not be there. Where two faces touch back to back, both are
 * removed. Faces lying on the block's own surface are dropped: the block split above
 * already separates those regions.
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

/* Appends to OUT the hint faces (sides whose material is hint; a hint brush's skip and
 * hintskip faces are not) of the hint brushes HINTS within [MINS, MAXS], as whole faces clipped to
 * the box: they are not the boundary of anything, only planes for the vis tree to split on (tagged
 * hull 0). Returns 0, or -1 if memory runs out. */
int al_csg_hint_faces(al_arena *arena, al_brush *const *hints, int count, const double mins[3],
                      const double maxs[3], al_poly_vec *out);

/* Where a point lies against the union of some brushes (al_csg_point_side). */
typedef enum al_csg_side {
    AL_CSG_OUTSIDE = -1, /* outside every brush by more than AL_ON_EPSILON */
    AL_CSG_ON = 0,       /* inside none, within AL_ON_EPSILON of the surface of one */
    AL_CSG_INSIDE = 1,   /* inside some brush by more than AL_ON_EPSILON */
} al_csg_side;

/* Where P lies against the union of BRUSHES. A brush whose bounds P is farther than
 * AL_ON_EPSILON outside is not looked at (near a sharp edge the planes alone would call such
 * a point on the surface). */
al_csg_side al_csg_point_side(const al_plane_table *planes, al_brush *const *brushes, int count,
                              const double p[3]);

/* True if P lies in some brush of BRUSHES or on its surface, to the last bit (no epsilon). */
bool al_csg_point_in_closure(const al_plane_table *planes, al_brush *const *brushes, int count,
                             const double p[3]);

#endif
