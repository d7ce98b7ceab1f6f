/* Compiled BSP trees: flat arrays with integer indices (Quake III's cm_* layout).
 *
 * A node (al_node, in al-world-trees.h, where code outside the compiler reads it too) holds
 * its plane inline (one 48-byte record, so a trace touches one cache line per node).
 * child[i] >= 0 is a node index, child[i] < 0 is the leaf -1 - child[i]; child[0] is the
 * front (dot(normal, x) > dist), child[1] the back. A leaf is one uint32_t of solidity bits,
 * bit h set when the leaf is solid for hull h. Map trees use bit 0 only.
 *
 * solid_mask / empty_mask say for which hulls every leaf under the node is solid / empty,
 * so a query for one hull stops at the first node that is uniform for it: the onion tree
 * behaves like a separate, smaller tree per hull without storing one.
 */
#ifndef AL_TREE_H
#define AL_TREE_H

#include "al-world-trees.h" /* al_node */

#include <stdbool.h>
#include <stdint.h>

/* Leaf flag of the leaves in front of bevel planes (bsp/build.c). Such a leaf holds no
 * volume: the points that reach it lie on the bevel plane, on the closure of the solid cell
 * behind. So it is solid (bit 0) for point queries, and empty for plane shifting, where the
 * front of a bevel is outside the expanded cell (trace/shift.c tests this flag). */
#define AL_LEAF_BEVEL_FRONT 0x80000000u

typedef struct al_tree {
    al_node *nodes; /* owned */
    int32_t node_count;
    uint32_t *leaves; /* owned; solidity bits per leaf */
    int32_t leaf_count;
    int32_t root; /* a node index, or -1 - leaf */
} al_tree;

static inline bool al_tree_child_is_leaf(int32_t child)
{
    return child < 0;
}

static inline int32_t al_tree_leaf_index(int32_t child)
{
    return -1 - child;
}

/* The leaf containing P (points on a plane go to the front). */
int32_t al_tree_find_leaf(const al_tree *tree, const double p[3]);

/* Solidity bits at P. */
uint32_t al_tree_point_bits(const al_tree *tree, const double p[3]);

/* Fills solid_mask / empty_mask of every node from the leaves (hull bits 0..hull_count-1). */
void al_tree_compute_masks(al_tree *tree, int hull_count);

/* Depth statistics: deepest leaf and mean leaf depth (root at depth 0). */
void al_tree_depth(const al_tree *tree, int *max_depth, double *mean_depth);

/* Frees the arrays; the tree is empty afterwards. NULL is a no-op. */
void al_tree_free(al_tree *tree);

#endif
