/* The index of brush models near a trace (al_model_index, world-internal.h).
 *
 * Entry points: al_world_index_models, which a compile and a load call once the models'
 * blocks are built, and al_model_index_free. Per hull: each model's reach for that hull; a
 * grid of AL_MODEL_CELL-unit cells listing the models whose reach, grown by AL_MODEL_NEAR,
 * overlaps each cell; and for every world block the models whose reach overlaps it. The
 * lists are packed as chunks of four models with float boxes for the trace's loop.
 *
 * Workload: built once per compile or load, over the map's brush models (doors, platforms);
 * read by every trace.
 */
#include "al-vec3.h"
#include "world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct model_box_context {
    const al_world *world;
    int hull;
} model_box_context;

/* Model M's reach for the context's hull, grown by AL_MODEL_NEAR. */
static bool model_box(void *context, int m, double mins[3], double maxs[3])
{
    const model_box_context *c = context;
    if (m == 0 || c->world->models[m].brush_count == 0) return false;
    const double(*r)[3] = al_model_reach(c->world, m, c->hull);
    for (int k = 0; k < 3; k++) {
        mins[k] = r[0][k] - AL_MODEL_NEAR;
        maxs[k] = r[1][k] + AL_MODEL_NEAR;
    }
    return true;
}

/* X rounded to a float at or below it by at least one float step (ABOVE: at or above),
 * so that a query's box rounded to nearest still overlaps the float box wherever its exact
 * box overlaps the exact one. Infinite reach stays infinite. */
static float float_outward(double x, bool above)
{
    float f = (float) x;
    float to = above ? INFINITY : -INFINITY;
    if (above ? (double) f < x : (double) f > x) f = nextafterf(f, to);
    return nextafterf(nextafterf(f, to), to);
}

/* Appends the COUNT models of LIST, with their reach for HULL, to the index's chunks;
 * returns their span, or sets *FAILED if memory ran out. */
static al_chunk_span pack_models(al_world *w, int hull, const int *list, int count, bool *failed)
{
    al_model_index *ix = &w->model_index;
    al_chunk_span span = {0, 0};
    if (count == 0) return span;
    int need = (count + 3) / 4;
    if (ix->chunk_count + need > ix->chunk_capacity) {
        int capacity = 2 * (ix->chunk_count + need);
        al_reach_chunk *grown = realloc(ix->chunks, (size_t) capacity * sizeof *grown);
        if (!grown) {
            *failed = true;
            return span;
        }
        ix->chunks = grown;
        ix->chunk_capacity = capacity;
    }
    span = (al_chunk_span){ix->chunk_count, need};
    for (int i = 0; i < need; i++)
        for (int lane = 0; lane < 4; lane++) {
            al_reach_chunk *ch = &ix->chunks[span.first + i];
            int j = 4 * i + lane;
            int m = j < count ? list[j] : 0;
            ch->model[lane] = m;
            const double(*r)[3] = al_model_reach(w, m, hull);
            for (int k = 0; k < 3; k++) {
                ch->lo[k][lane] = j < count ? float_outward(r[0][k], false) : INFINITY;
                ch->hi[k][lane] = j < count ? float_outward(r[1][k], true) : -INFINITY;
            }
        }
    ix->chunk_count += need;
    return span;
}

/* The chunk lists of the model index: per hull, of each cell and of each world block. */
static bool pack_model_lists(al_world *w)
{
    al_model_index *ix = &w->model_index;
    ix->chunk_count = 0;
    int *list = malloc(((size_t) w->model_count + 1) * sizeof *list);
    if (!list) return false;
    bool failed = false;
    const al_model *world = &w->models[0];
    ix->block_span = malloc(((size_t) world->block_count * (size_t) w->hull_count + 1) *
                            sizeof *ix->block_span);
    failed = ix->block_span == NULL;
    for (int h = 0; !failed && h < w->hull_count; h++) {
        const al_cell_index *cx = &ix->near[h];
        int cells = cx->dims[0] * cx->dims[1] * cx->dims[2];
        ix->near_span[h] = malloc((size_t) cells * sizeof *ix->near_span[h]);
        if (!ix->near_span[h]) failed = true;
        for (int c = 0; !failed && c < cells; c++)
            ix->near_span[h][c] = pack_models(w, h, cx->items + cx->start[c],
                                              cx->start[c + 1] - cx->start[c], &failed);
        for (int b = 0; !failed && b < world->block_count; b++) {
            const al_block *blk = &world->blocks[b];
            int count = 0;
            for (int m = 1; m < w->model_count; m++) {
                if (w->models[m].brush_count == 0) continue;
                const double(*r)[3] = al_model_reach(w, m, h);
                if (al_bounds_overlap(r[0], r[1], blk->mins, blk->maxs, -1.0)) list[count++] = m;
            }
            ix->block_span[(size_t) b * (size_t) w->hull_count + (size_t) h] =
                pack_models(w, h, list, count, &failed);
        }
    }
    free(list);
    return !failed;
}

void al_model_index_free(al_model_index *ix)
{
    for (int h = 0; h < AL_MAX_HULLS; h++) {
        al_cell_index_free(&ix->near[h]);
        free(ix->near_span[h]);
    }
    free(ix->block_span);
    free(ix->chunks);
    free(ix->reach);
    memset(ix, 0, sizeof *ix);
}

bool al_world_index_models(al_world *w)
{
    if (w->model_count > 0 && !al_model_index_open(&w->models[0])) return false;
    al_model_index *ix = &w->model_index;
    size_t entries = (size_t) w->model_count * (size_t) w->hull_count;
    ix->reach = malloc((entries ? entries : 1) * sizeof *ix->reach);
    if (!ix->reach) return false;
    /* A model's bounds are its brushes' grown by GROW_LO / GROW_HI, the most any hull grows
     * them (al_world_hull_growth, as the compile finds them); taking that back off and
     * growing by one hull's box gives that hull's bounds. Rounding moves them by far less
     * than the unit of reach. */
    double grow_lo[3], grow_hi[3];
    al_world_hull_growth(w, grow_lo, grow_hi);
    for (int m = 0; m < w->model_count; m++) {
        const al_model *model = &w->models[m];
        for (int h = 0; h < w->hull_count; h++) {
            double(*r)[3] = ix->reach[(size_t) m * (size_t) w->hull_count + (size_t) h];
            al_copy(model->reach_mins, r[0]);
            al_copy(model->reach_maxs, r[1]);
            if (model->brush_count == 0) continue;
            for (int k = 0; k < 3; k++) {
                r[0][k] = fmax(r[0][k], model->mins[k] - grow_lo[k] - w->hulls[h].maxs[k] - 1.0);
                r[1][k] = fmin(r[1][k], model->maxs[k] - grow_hi[k] - w->hulls[h].mins[k] + 1.0);
            }
        }
    }
    for (int h = 0; h < w->hull_count; h++) {
        model_box_context c = {w, h};
        if (!al_cell_index_build(&ix->near[h], AL_MODEL_CELL, w->model_count, model_box, &c,
                                 16ll * 1024 * 1024))
            return false;
    }
    return pack_model_lists(w);
}
