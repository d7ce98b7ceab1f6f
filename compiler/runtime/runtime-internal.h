/* The loaded runtime world: flat arrays read from the file's sections (load.c), which the
 * queries (trace.c, query.c) walk. Private to the runtime library. */
#ifndef ALRT_RUNTIME_INTERNAL_H
#define ALRT_RUNTIME_INTERNAL_H

#include "allium-runtime.h"
#include "format.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rt_node {
    double normal[3];
    double dist;
    int32_t child[2]; /* >= 0 a node of the same tree (always after this one), < 0 leaf -1 - c */
    uint32_t solid_mask, empty_mask; /* hulls for which every leaf below is solid / empty */
} rt_node;

/* A tree: views into the world's node and leaf arrays. No leaves: empty everywhere. */
typedef struct rt_tree {
    const rt_node *nodes;
    const uint32_t *leaves;
    int32_t root;
    uint32_t node_count, leaf_count;
} rt_tree;

typedef struct rt_block {
    rt_tree onion; /* leaf bit h: solid for hull h */
    rt_tree point; /* the point hull's tree with bevel chains (bit 0, ALRT_LEAF_BEVEL_FRONT) */
    rt_tree shift; /* the same with the clip brushes, for boxes of any size */
    rt_tree vis;   /* world model only: leaves hold vis leaf numbers (-1: none) */
} rt_block;

typedef struct rt_model {
    int32_t entity;
    uint32_t has_brushes;
    double mins[3], maxs[3];             /* of the expanded brushes, all hulls */
    double reach_mins[3], reach_maxs[3]; /* the bounds grown by a unit */
    double (*reach)[2][3];               /* per hull: queries outside cannot touch it */
    rt_tree top;                         /* leaves hold block numbers */
    rt_block *blocks;
    uint32_t block_count;
} rt_model;

typedef struct rt_liquid {
    uint32_t contents;
    double mins[3], maxs[3];
    uint32_t plane_count;
    const double (*planes)[4]; /* normal, dist: inside where every dot - dist <= 0 */
} rt_liquid;

typedef struct rt_face {
    double normal[3], dist;
    double luxel, u0, v0;
    uint32_t axis_u, axis_v, w, h, atlas_x, atlas_y, first_point, point_count;
} rt_face;

typedef struct rt_entity {
    uint32_t pair_count;
    const char **keys, **values; /* into the world's string storage */
} rt_entity;

struct alrt_world {
    int hull_count;
    char hull_names[ALRT_MAX_HULLS][ALRT_HULL_NAME_SIZE];
    double hull_mins[ALRT_MAX_HULLS][3], hull_maxs[ALRT_MAX_HULLS][3];
    rt_node *nodes;
    uint32_t node_count;
    uint32_t *leaves;
    uint32_t leaf_count;
    rt_model *models;
    uint32_t model_count;
    rt_liquid *liquids;
    uint32_t liquid_count;
    double (*liquid_planes)[4];
    uint32_t vis_leaf_count;
    uint32_t row_bytes;
    uint8_t *pvs; /* vis_leaf_count rows of row_bytes */
    uint32_t light_width, light_height;
    rt_face *faces;
    uint32_t face_count;
    double (*points)[3];
    float (*texels)[3];
    rt_entity *entities;
    uint32_t entity_count;
    const char **strings; /* all keys and values, 2 per pair */
    char *string_bytes;
};

/* The leaf code P reaches in TREE (points on a plane go to the front). */
static inline int32_t rt_find_leaf(const rt_tree *tree, const double p[3])
{
    int32_t i = tree->root;
    while (i >= 0) {
        const rt_node *n = &tree->nodes[i];
        double d = n->normal[0] * p[0] + n->normal[1] * p[1] + n->normal[2] * p[2] - n->dist;
        i = n->child[d >= 0 ? 0 : 1];
    }
    return -1 - i;
}

/* The block of MODEL holding P (its top tree's leaf). */
static inline const rt_block *rt_find_block(const rt_model *m, const double p[3])
{
    return &m->blocks[m->top.leaves[rt_find_leaf(&m->top, p)]];
}

#endif
