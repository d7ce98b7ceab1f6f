/* Occlusion rays through the world's light trees (rays.c).
 *
 * Radiosity casts tens of millions of rays between sample points and asks of each only
 * whether something that blocks light lies between its ends (and, for a sun ray, where).
 * The world's own light trees could answer that (al_verify_light_trees_hit walks them for
 * the tests), but that walk pays for being general: it steps from the top tree of blocks
 * into each block's tree, checks each node for a subtree uniform for the point hull, and
 * reads 48-byte nodes with full plane equations although five planes in six are axial.
 *
 * An al_ray_tree is a flat copy of the world model's light trees made for that walk: one
 * array for the top tree and every block's tree, uniform subtrees turned into leaves, and
 * 24-byte nodes that name their axis when the plane is axial (a general plane's normal is
 * kept aside). A solver builds one when it starts (e1m1: 5,469 nodes in under a
 * millisecond). */
#ifndef AL_TRACE_RAYS_H
#define AL_TRACE_RAYS_H

#include "al-world.h"

#include <stdbool.h>
#include <stdint.h>

/* A node. Its plane is x[axis] = dist for an axis of 0, 1 or 2, else normals[axis - 3] .
 * x = dist. Children are node indices or AL_RAY_EMPTY / AL_RAY_SOLID. */
typedef struct al_ray_node {
    double dist;
    int32_t child[2]; /* 0: in front of the plane, 1: behind (on it: rays.c) */
    int32_t axis;
    int32_t unused; /* (keeps the size at 24 bytes on every target) */
} al_ray_node;

#define AL_RAY_EMPTY (-1)
#define AL_RAY_SOLID (-2)

typedef struct al_ray_tree {
    al_ray_node *nodes; /* owned; preorder, so child[0] of a node is the next one */
    int32_t node_count;
    double (*normals)[3]; /* owned; the general planes' normals */
    int32_t normal_count;
    int32_t root; /* a node index, or AL_RAY_EMPTY / AL_RAY_SOLID */
} al_ray_tree;

/* Copies the light trees of WORLD's world model (which must have them: see
 * al_world_build_vis) into OUT. Returns false if memory runs out (OUT is then empty). */
bool al_ray_tree_build(const al_world *world, al_ray_tree *out);

/* Frees what TREE owns and leaves it empty (NULL is fine). */
void al_ray_tree_free(al_ray_tree *tree);

/* Where the segment FROM -> TO (t from 0 to 1) first enters a solid leaf, or INFINITY if
 * it never does. A segment that only touches solid (an end, an edge or a face it runs
 * along) is not blocked there; the answer is the same in every tree of the same brushes,
 * and the same as al_verify_light_trees_hit gives. */
double al_ray_hit(const al_ray_tree *tree, const double from[3], const double to[3]);

#endif
