/* One block's trees: CSG per hull, a map tree per hull, then the onion tree.
 *
 * This is the unit of work of a compile (blocks build in parallel) and, later, of an
 * incremental rebuild. Its only inputs are the expanded brushes overlapping the block, so
 * rebuilding a block after an edit gives the same trees as a full compile.
 */
#include "bsp/csg.h"
#include "core/clock.h"
#include "world/world-internal.h"

#include <stdlib.h>
#include <string.h>

bool al_block_own(al_block *block)
{
    block->refs = malloc(sizeof *block->refs);
    if (!block->refs) return false;
    *block->refs = 1;
    return true;
}

void al_block_free(al_block *block)
{
    if (!block) return;
    if (block->refs) {
        if (__atomic_sub_fetch(block->refs, 1, __ATOMIC_ACQ_REL) > 0) {
            memset(block, 0, sizeof *block);
            return;
        }
        free(block->refs);
        block->refs = NULL;
    }
    al_tree_free(&block->onion);
    for (int h = 0; h < AL_MAX_HULLS; h++) al_tree_free(&block->map[h]);
    al_tree_free(&block->vis);
    al_tree_free(&block->light);
    block->light_is_vis = false;
}

/* A map tree of the block from POLYS, the boundary of BRUSHES (whose inside decides the
 * root when there are no polygons at all). */
static int build_map_tree(const al_world *w, al_block *block, al_brush *const *brushes,
                          int count, al_poly_vec *polys, bool bevel_chains, al_arena *arena,
                          al_build_scratch *scratch, al_tree *out, al_build_stats *stats)
{
    double center[3];
    for (int k = 0; k < 3; k++) center[k] = 0.5 * (block->mins[k] + block->maxs[k]);
    al_build_params params = {
        .mode = AL_BUILD_MAP_TREE,
        .planes = &w->planes,
        .mins = block->mins,
        .maxs = block->maxs,
        .root_solid = polys->count == 0 && al_csg_point_inside(&w->planes, brushes, count, center),
        .bevel_chains = bevel_chains,
    };
    if (al_build_tree(arena, scratch, &params, polys->items, polys->count, out, stats) < 0)
        return -1;
    al_tree_compute_masks(out, 1);
    return 0;
}

/* A map tree of the point hull from some of the brushes. The vis tree is made of the
 * brushes that block sight: detail and clip brushes are left out, so they do not split the
 * leaves that portals and the PVS are made of (their faces are pushed into those leaves
 * afterwards, vis/leaf-faces.c). */
static int build_point_tree(const al_block_input *in, al_block *block, al_brush *const *brushes,
                            int count, al_tree *out, al_arena *arena, al_build_scratch *scratch)
{
    const al_world *w = in->world;
    al_poly_vec polys = {0};
    al_build_stats stats = {0};
    int status = -1;
    if (al_csg_boundary(arena, &w->planes, brushes, count, block->mins, block->maxs, 0,
                        &polys) == 0)
        status = build_map_tree(w, block, brushes, count, &polys, false, arena, scratch, out,
                                &stats);
    al_poly_vec_free(&polys);
    return status;
}

/* The light tree: the same from the brushes that block light. Those that block sight are
 * among them, so when the counts agree (no detail in the block) the vis tree serves. */
static int build_light_tree(const al_block_input *in, al_block *block, al_arena *arena,
                            al_build_scratch *scratch)
{
    block->light_is_vis = in->light_count == in->vis_count;
    if (block->light_is_vis) return 0;
    return build_point_tree(in, block, in->light, in->light_count, &block->light, arena,
                            scratch);
}

int al_block_build(const al_block_input *in, al_block *block, al_arena *arena,
                   al_build_scratch *scratch)
{
    const al_world *w = in->world;
    int hulls = w->hull_count;
    al_arena_mark mark = al_arena_get_mark(arena);
    al_poly_vec polys[AL_MAX_HULLS];
    memset(polys, 0, sizeof polys);
    al_poly_vec all = {0};
    int status = -1;

    uint64_t t0 = al_clock_ns();
    for (int h = 0; h < hulls; h++) {
        if (al_csg_boundary(arena, &w->planes, in->expanded[h], in->expanded_count[h],
                            block->mins, block->maxs, h, &polys[h]) < 0)
            goto done;
        block->stats.boundary_polys[h] = polys[h].count;
    }
    uint64_t t1 = al_clock_ns();

    for (int h = 0; h < hulls; h++)
        if (build_map_tree(w, block, in->expanded[h], in->expanded_count[h], &polys[h], h == 0,
                           arena, scratch, &block->map[h], &block->stats.map) < 0)
            goto done;
    uint64_t t2 = al_clock_ns();

    for (int h = 0; h < hulls; h++)
        for (int i = 0; i < polys[h].count; i++) {
            polys[h].items[i].candidate = true;
            if (!al_poly_vec_push(&all, &polys[h].items[i])) goto done;
        }
    al_build_params onion = {
        .mode = AL_BUILD_ONION,
        .planes = &w->planes,
        .mins = block->mins,
        .maxs = block->maxs,
        .map_trees = block->map,
        .hull_count = hulls,
    };
    if (al_build_tree(arena, scratch, &onion, all.items, all.count, &block->onion,
                      &block->stats.onion) < 0)
        goto done;
    al_tree_compute_masks(&block->onion, hulls);
    uint64_t t3 = al_clock_ns();
    if (in->build_vis &&
        build_point_tree(in, block, in->vis, in->vis_count, &block->vis, arena, scratch) < 0)
        goto done;
    block->stats.ms_vis_tree = al_clock_ms_since(t3);
    uint64_t t4 = al_clock_ns();
    if (in->build_vis && build_light_tree(in, block, arena, scratch) < 0) goto done;
    block->stats.ms_light_tree = al_clock_ms_since(t4);
    block->stats.ms_csg = (double) (t1 - t0) / 1e6;
    block->stats.ms_map_trees = (double) (t2 - t1) / 1e6;
    block->stats.ms_onion = (double) (t3 - t2) / 1e6;
    if (al_block_own(block)) status = 0;

done:
    for (int h = 0; h < hulls; h++) al_poly_vec_free(&polys[h]);
    al_poly_vec_free(&all);
    al_arena_release(arena, mark);
    if (status < 0) al_block_free(block);
    return status;
}
