/* Accessors of a compiled world (see al-world.h and al-world-trees.h). */
#include "al-vec3.h"
#include "world-internal.h"

#include <string.h>

const al_diag_list *al_world_diagnostics(const al_world *world)
{
    return &world->diags;
}

int al_world_hull_count(const al_world *world)
{
    return world->hull_count;
}

const al_hull_desc *al_world_hull(const al_world *world, int hull)
{
    if (hull < 0 || hull >= world->hull_count) return NULL;
    return &world->hulls[hull];
}

int al_world_find_hull(const al_world *world, const char *name)
{
    for (int h = 0; h < world->hull_count; h++)
        if (strcmp(world->hulls[h].name, name) == 0) return h;
    return -1;
}

void al_world_get_stats(const al_world *world, al_world_stats *stats)
{
    *stats = world->stats;
}

int al_world_model_count(const al_world *world)
{
    return world->model_count;
}

int al_world_model_entity(const al_world *world, int model)
{
    if (model < 0 || model >= world->model_count) return -1;
    return world->models[model].entity;
}

int al_world_model_brushes(const al_world *world, int model, int hull, int *out)
{
    if (model < 0 || model >= world->model_count || hull < 0 || hull >= world->hull_count) return 0;
    const al_model *m = &world->models[model];
    int n = 0;
    for (int i = m->first_brush; i < m->first_brush + m->brush_count; i++)
        if (al_brush_in_hull(world->collision[i], &world->hulls[hull]))
            out[n++] = world->collision[i]->id;
    return n;
}

void al_world_bounds(const al_world *world, double mins[3], double maxs[3])
{
    al_copy(world->models[0].mins, mins);
    al_copy(world->models[0].maxs, maxs);
}

/* Read-only views of the world model's trees (see al-world-trees.h). */

static void view_tree(const al_tree *tree, al_tree_view *out)
{
    *out =
        (al_tree_view){tree->nodes, tree->node_count, tree->leaves, tree->leaf_count, tree->root};
}

int al_world_block_count(const al_world *world)
{
    return world->models[0].block_count;
}

void al_world_top_tree(const al_world *world, al_tree_view *out)
{
    view_tree(&world->models[0].top, out);
}

void al_world_block_onion_tree(const al_world *world, int block, al_tree_view *out)
{
    view_tree(&world->models[0].blocks[block].onion, out);
}

void al_world_block_map_tree(const al_world *world, int block, int hull, al_tree_view *out)
{
    view_tree(&world->models[0].blocks[block].map[hull], out);
}

int al_world_model_block_count(const al_world *world, int model)
{
    return world->models[model].block_count;
}

void al_world_model_top_tree(const al_world *world, int model, al_tree_view *out)
{
    view_tree(&world->models[model].top, out);
}

void al_world_model_block_map_tree(const al_world *world, int model, int block, int hull,
                                   al_tree_view *out)
{
    view_tree(&world->models[model].blocks[block].map[hull], out);
}

int al_world_box_block(const al_world *world, const double lo[3], const double hi[3])
{
    return al_model_box_block(&world->models[0], lo, hi);
}
