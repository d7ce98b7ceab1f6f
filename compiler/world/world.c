/* Accessors of a compiled world (see al-world.h). */
#include "geom/vec3.h"
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

void al_world_bounds(const al_world *world, double mins[3], double maxs[3])
{
    al_copy(world->models[0].mins, mins);
    al_copy(world->models[0].maxs, maxs);
}
