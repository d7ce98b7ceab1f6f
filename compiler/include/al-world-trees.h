/* Read-only views of a compiled world's trees, for code outside the compiler that walks
 * them itself: the trace benchmark's reference (Quake's hull check on one hull's map tree)
 * and the tests that compare the trees with other answers.
 *
 * The world model is a grid of blocks under a top tree of axial splits, whose leaf -1 - b
 * is block b. Each block has an onion tree (leaf bit h set: solid for hull h) and a map
 * tree per hull (bit 0). A tree is a flat array of nodes: child[i] >= 0 is a node index,
 * child[i] < 0 the leaf -1 - child[i]; child[0] is the front (dot(normal, x) - dist >= 0,
 * points on the plane included), child[1] the back. A view borrows the world's arrays: it
 * lasts as long as the world, and nothing may be written through it.
 */
#ifndef AL_WORLD_TREES_H
#define AL_WORLD_TREES_H

#include "al-world.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_node {
    double normal[3];
    double dist;
    int32_t child[2];
    uint32_t solid_mask; /* hulls for which every leaf under the node is solid */
    uint32_t empty_mask; /* hulls for which every leaf under the node is empty */
} al_node;

/* Signed distance of P from the node's plane. (A shortcut for axial planes was measured
 * slower: the type test mispredicts more than the two multiplies it saves.) */
static inline double al_node_distance(const al_node *n, const double p[3])
{
    return n->normal[0] * p[0] + n->normal[1] * p[1] + n->normal[2] * p[2] - n->dist;
}

typedef struct al_tree_view {
    const al_node *nodes;
    int32_t node_count;
    const uint32_t *leaves; /* solidity bits per leaf */
    int32_t leaf_count;
    int32_t root; /* a node index, or -1 - leaf */
} al_tree_view;

/* Blocks of the world model. */
int al_world_block_count(const al_world *world);

/* The world model's top tree into OUT: its leaves are blocks. */
void al_world_top_tree(const al_world *world, al_tree_view *out);

/* Block BLOCK's onion tree into OUT. */
void al_world_block_onion_tree(const al_world *world, int block, al_tree_view *out);

/* Block BLOCK's map tree of HULL into OUT. */
void al_world_block_map_tree(const al_world *world, int block, int hull, al_tree_view *out);

/* The same views of brush model MODEL's trees (model 0 is the world model; al-world.h
 * numbers the models): its block count (at least one), its top tree and a block's map tree
 * of HULL. A model's trees are in world coordinates, as the world model's are. A block tree
 * without leaves (a block no geometry reaches) is empty everywhere. */
int al_world_model_block_count(const al_world *world, int model);
void al_world_model_top_tree(const al_world *world, int model, al_tree_view *out);
void al_world_model_block_map_tree(const al_world *world, int model, int block, int hull,
                                   al_tree_view *out);

/* The block of the world model holding every point of the box [LO, HI], or -1 if it spans
 * several (a block's faces belong to both sides). */
int al_world_box_block(const al_world *world, const double lo[3], const double hi[3]);

/* Whether the box [LO, HI] lies in open cells of the world model's blocks for HULL, as the
 * trace finds them (in one block, or in blocks side by side, at most two on each axis):
 * every leaf of those blocks' onion trees within its reach is then empty for the hull. */
bool al_world_box_open(const al_world *world, int hull, const double lo[3], const double hi[3]);

#endif
