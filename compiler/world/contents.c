/* The brushes whose contents are not solid but still mean something: the world's liquid
 * volumes (water, slime, lava) with the point contents query (al_world_point_contents),
 * and the brush entities' origin brushes (al_world_entity_origin).
 *
 * Liquids are solid to no hull, so they take no part in the onion tree: a point's liquid is
 * answered from the liquid brushes themselves, found through a grid of 256-unit cells. A map
 * has tens to a few hundred of them, against thousands of solid brushes; putting their faces
 * into the tree as well would split every hull's leaves for what only the point asks. */
#include "world/world-internal.h"

#include "al-vec3.h"
#include "brush/brush.h"

#include <stdlib.h>

enum { LIQUID_CELL = 256, LIQUID_MAX_CELLS = 1 << 22 };

static bool liquid_box(void *context, int i, double mins[3], double maxs[3])
{
    const al_world *w = context;
    al_copy(w->liquids[i]->mins, mins);
    al_copy(w->liquids[i]->maxs, maxs);
    return true;
}

bool al_world_index_liquids(al_world *w)
{
    al_cell_index_free(&w->liquid_index);
    return al_cell_index_build(&w->liquid_index, LIQUID_CELL, w->liquid_count, liquid_box, w,
                               LIQUID_MAX_CELLS);
}

al_contents al_liquid_contents(uint32_t material_flags)
{
    if (material_flags & AL_MATERIAL_LAVA) return AL_CONTENTS_LAVA;
    if (material_flags & AL_MATERIAL_SLIME) return AL_CONTENTS_SLIME;
    return AL_CONTENTS_WATER;
}

static bool inside(const al_world *w, const al_brush *b, const double p[3])
{
    for (int s = 0; s < b->side_count; s++) {
        const al_plane *pl = &w->planes.planes[b->sides[s].plane];
        if (al_dot(pl->normal, p) - pl->dist > 0) return false;
    }
    return true;
}

al_contents al_world_point_contents(const al_world *w, int hull, const double p[3])
{
    if (al_world_point_solid(w, hull, p)) return AL_CONTENTS_SOLID;
    return al_world_point_liquid(w, p);
}

al_contents al_world_point_liquid(const al_world *w, const double p[3])
{
    if (w->liquid_count == 0 || !w->liquid_index.start) return AL_CONTENTS_EMPTY;
    int c = al_cell_index_point_cell(&w->liquid_index, p);
    for (int j = w->liquid_index.start[c]; j < w->liquid_index.start[c + 1]; j++) {
        const al_brush *b = w->liquids[w->liquid_index.items[j]];
        if (p[0] >= b->mins[0] && p[0] <= b->maxs[0] && p[1] >= b->mins[1] && p[1] <= b->maxs[1] &&
            p[2] >= b->mins[2] && p[2] <= b->maxs[2] && inside(w, b, p))
            return al_liquid_contents(b->material_flags);
    }
    return AL_CONTENTS_EMPTY;
}

bool al_world_entity_origin(const al_world *w, int entity, double origin[3])
{
    for (int i = 0; i < w->origin_count; i++)
        if (w->origins[i]->entity == entity) {
            for (int k = 0; k < 3; k++)
                origin[k] = 0.5 * (w->origins[i]->mins[k] + w->origins[i]->maxs[k]);
            return true;
        }
    return false;
}

int al_world_liquid_count(const al_world *w)
{
    return w->liquid_count;
}
