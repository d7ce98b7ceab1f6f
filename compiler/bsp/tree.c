/* Queries and bookkeeping on compiled trees (see tree.h). */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

int32_t al_tree_find_leaf(const al_tree *tree, const double p[3])
{
    int32_t i = tree->root;
    while (i >= 0) {
        const al_node *n = &tree->nodes[i];
        i = n->child[al_node_distance(n, p) >= 0 ? 0 : 1];
    }
    return -1 - i;
}

uint32_t al_tree_point_bits(const al_tree *tree, const double p[3])
{
    return tree->leaves[al_tree_find_leaf(tree, p)];
}

/* Post-order over an explicit stack: trees can be thousands of levels deep on bad input. */
void al_tree_compute_masks(al_tree *tree, int hull_count)
{
    uint32_t all = hull_count >= 32 ? 0xffffffffu : (1u << hull_count) - 1u;
    if (tree->node_count == 0) return;
    int32_t *stack = malloc((size_t) tree->node_count * 2 * sizeof *stack);
    if (!stack) {
        /* Without masks every query walks to the leaves: slower, still correct. */
        for (int32_t i = 0; i < tree->node_count; i++)
            tree->nodes[i].solid_mask = tree->nodes[i].empty_mask = 0;
        return;
    }
    int top = 0;
    if (tree->root >= 0) stack[top++] = tree->root;
    /* Entries are node indices; a negated-minus-one entry means "children done". */
    while (top > 0) {
        int32_t e = stack[--top];
        if (e >= 0) {
            stack[top++] = -1 - e;
            for (int c = 0; c < 2; c++)
                if (tree->nodes[e].child[c] >= 0) stack[top++] = tree->nodes[e].child[c];
            continue;
        }
        al_node *n = &tree->nodes[-1 - e];
        uint32_t solid = all, empty = all;
        for (int c = 0; c < 2; c++) {
            int32_t ch = n->child[c];
            uint32_t s, m;
            if (ch < 0) {
                s = tree->leaves[-1 - ch] & all;
                m = ~tree->leaves[-1 - ch] & all;
            } else {
                s = tree->nodes[ch].solid_mask;
                m = tree->nodes[ch].empty_mask;
            }
            solid &= s;
            empty &= m;
        }
        n->solid_mask = solid;
        n->empty_mask = empty;
    }
    free(stack);
}

void al_tree_depth(const al_tree *tree, int *max_depth, double *mean_depth)
{
    *max_depth = 0;
    *mean_depth = 0;
    if (tree->root < 0) return;
    typedef struct {
        int32_t node;
        int depth;
    } item;
    item *stack = malloc((size_t) (tree->node_count + 1) * sizeof *stack);
    if (!stack) return;
    int top = 0;
    double sum = 0;
    long leaves = 0;
    stack[top++] = (item){tree->root, 0};
    while (top > 0) {
        item it = stack[--top];
        for (int c = 0; c < 2; c++) {
            int32_t ch = tree->nodes[it.node].child[c];
            if (ch >= 0) {
                stack[top++] = (item){ch, it.depth + 1};
            } else {
                sum += it.depth + 1;
                leaves++;
                if (it.depth + 1 > *max_depth) *max_depth = it.depth + 1;
            }
        }
    }
    free(stack);
    *mean_depth = leaves ? sum / (double) leaves : 0;
}

void al_tree_free(al_tree *tree)
{
    if (!tree) return;
    free(tree->nodes);
    free(tree->leaves);
    memset(tree, 0, sizeof *tree);
}
