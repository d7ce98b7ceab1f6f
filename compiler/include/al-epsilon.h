/* The compiler's tolerances, in one place (world units: Quake units, about an inch).
 *
 * All geometry is double precision. Input coordinates are bounded by AL_COORD_MAX, so the
 * rounding error of a plane distance is about 1e-11 units; the tolerances below are orders
 * of magnitude above that and orders below anything a designer can draw (the editor's
 * finest grid is 1/8 unit).
 *
 *   AL_COORD_MAX       largest |coordinate| accepted in a brush; larger is "huge"
 *   AL_WORLD_EXTENT    half size of the initial polygon on a plane; beyond any valid point,
 *                      so a face that still reaches it after clipping is unbounded
 *   AL_ON_EPSILON      a point within this distance of a plane lies on it, for splitting
 *                      and classifying polygons and BSP cells. A brush face thinner than
 *                      this is a sliver and collapses onto its plane.
 *   AL_NORMAL_EPSILON  two unit normals are the same if every component differs by less
 *   AL_DIST_EPSILON    two planes with the same normal are the same if their distances
 *                      differ by less. Merging moves a plane by at most
 *                      AL_NORMAL_EPSILON * AL_COORD_MAX + AL_DIST_EPSILON ~ 1.4e-4 units.
 *   AL_AXIAL_EPSILON   a normal whose two minor components are both smaller is snapped to
 *                      the axis (the tilt this removes moves a point at AL_COORD_MAX by less
 *                      than 1.4e-4 units)
 *   AL_SURFACE_EPSILON the documented accuracy of the compiled world: solidity queries and
 *                      traces agree with the brute-force oracles for every point farther
 *                      than this from a surface
 *   AL_RAY_EPSILON     an end of a piece of a light ray within this distance of a tree
 *                      node's plane lies on it (trace/rays.c). Far above the rounding of a
 *                      distance along a ray (a piece's ends come from other planes' crossings),
 *                      so two trees of the same brushes, which split a ray at other planes in
 *                      another order, class its pieces alike; far below AL_ON_EPSILON, so no
 *                      piece a cell really holds is taken for a point.
 */
#ifndef AL_EPSILON_H
#define AL_EPSILON_H

#define AL_COORD_MAX       131072.0
#define AL_WORLD_EXTENT    1048576.0
#define AL_ON_EPSILON      1e-4
#define AL_NORMAL_EPSILON  1e-9
#define AL_DIST_EPSILON    1e-5
#define AL_AXIAL_EPSILON   1e-9
#define AL_SURFACE_EPSILON 1e-2
#define AL_RAY_EPSILON     1e-9

#endif
