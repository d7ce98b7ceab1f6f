/* The compile pipeline: input -> brushes -> expanded brushes per hull -> blocks -> trees.
 *
 * Workload: e1m1 (1,250 brushes, 4 hulls) about 40 blocks of 1024 units; lq-e3m4 (2,920
 * brushes) about 120. Brush building and expansion run on the calling thread (they fill
 * the shared plane table); block builds, which only read it, run on every core.
 */
#include "brush/expand.h"
#include "core/key-pool.h"
#include "al-clock.h"
#include "al-entity-keys.h"
#include "al-parallel.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "vis/vis.h"
#include "world-internal.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BLOCK_SIZE 64.0
#define MAX_BLOCK_SIZE 65536.0
#define MAX_HULL_EXTENT 4096.0
#define MAX_BLOCKS 1000000

static al_status check_hulls(const al_input *input, al_diag_list *diags,
                             const al_hull_desc **hulls_out, int *count_out)
{
    const al_hull_desc *hulls = input->hulls;
    int count = input->hull_count;
    if (count == 0) count = al_default_hulls(&hulls);
#define BAD(...)                                                                           \
    do {                                                                                   \
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,       \
                    __VA_ARGS__);                                                          \
        return AL_ERR_INVALID_ARGUMENT;                                                    \
    } while (0)
    if (count < 0 || count > AL_MAX_HULLS || !hulls)
        BAD("%d hulls given; between 1 and %d are supported", count, AL_MAX_HULLS);
    for (int h = 0; h < count; h++) {
        const al_hull_desc *d = &hulls[h];
        if (memchr(d->name, '\0', sizeof d->name) == NULL || d->name[0] == '\0')
            BAD("hull %d has no name (or one longer than %d characters)", h,
                AL_HULL_NAME_MAX - 1);
        for (int g = 0; g < h; g++)
            if (strcmp(hulls[g].name, d->name) == 0)
                BAD("hull name \"%s\" is used twice (hulls %d and %d)", d->name, g, h);
        for (int k = 0; k < 3; k++) {
            if (!isfinite(d->mins[k]) || !isfinite(d->maxs[k]))
                BAD("hull \"%s\" has a coordinate that is not a finite number", d->name);
            if (d->mins[k] > d->maxs[k])
                BAD("hull \"%s\": mins %g is greater than maxs %g on axis %c", d->name,
                    d->mins[k], d->maxs[k], "xyz"[k]);
            if (fabs(d->mins[k]) > MAX_HULL_EXTENT || fabs(d->maxs[k]) > MAX_HULL_EXTENT)
                BAD("hull \"%s\" reaches beyond %g units from its origin", d->name,
                    MAX_HULL_EXTENT);
        }
        if (h == 0)
            for (int k = 0; k < 3; k++)
                if (d->mins[k] != 0 || d->maxs[k] != 0)
                    BAD("hull 0 (\"%s\") must be the point hull (0 0 0, 0 0 0): it is the one "
                        "used for rendering and visibility",
                        d->name);
    }
#undef BAD
    *hulls_out = hulls;
    *count_out = count;
    return AL_OK;
}

/* Recursively splits the grid range into a balanced tree of axial planes on block
 * boundaries. Returns the child code. */
static int32_t build_top(al_model *m, double block_size, int lo[3], int hi[3], int32_t *nodes_used)
{
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    if (hi[axis] - lo[axis] <= 1) return -1 - al_model_block_index(m, lo[0], lo[1], lo[2]);
    int mid = (lo[axis] + hi[axis]) / 2;
    int32_t index = (*nodes_used)++;
    al_node *n = &m->top.nodes[index];
    memset(n, 0, sizeof *n);
    n->normal[axis] = 1.0;
    n->dist = (m->grid_origin[axis] + mid) * block_size;
    int front_lo[3] = {lo[0], lo[1], lo[2]}, back_hi[3] = {hi[0], hi[1], hi[2]};
    front_lo[axis] = mid;
    back_hi[axis] = mid;
    int32_t front = build_top(m, block_size, front_lo, hi, nodes_used);
    int32_t back = build_top(m, block_size, lo, back_hi, nodes_used);
    m->top.nodes[index].child[0] = front;
    m->top.nodes[index].child[1] = back;
    return index;
}

static void block_masks(const al_block *b, uint32_t all, uint32_t *solid, uint32_t *empty)
{
    if (b->onion.root >= 0) {
        *solid = b->onion.nodes[b->onion.root].solid_mask;
        *empty = b->onion.nodes[b->onion.root].empty_mask;
    } else {
        uint32_t bits = b->onion.leaves[-1 - b->onion.root];
        *solid = bits & all;
        *empty = ~bits & all;
    }
}

static void top_masks(al_model *m, int32_t code, uint32_t all, uint32_t *solid, uint32_t *empty)
{
    if (code < 0) {
        block_masks(&m->blocks[-1 - code], all, solid, empty);
        return;
    }
    uint32_t s0, e0, s1, e1;
    top_masks(m, m->top.nodes[code].child[0], all, &s0, &e0);
    top_masks(m, m->top.nodes[code].child[1], all, &s1, &e1);
    *solid = s0 & s1;
    *empty = e0 & e1;
    m->top.nodes[code].solid_mask = *solid;
    m->top.nodes[code].empty_mask = *empty;
}

typedef struct block_job {
    al_model *model;
    int block;
    al_block_input input;
    const al_block *prev; /* the block it replaces, lending its clean sub-cells; or NULL */
    al_subcell_set dirty; /* the sub-cells to build (all without PREV) */
    int first_tree;       /* its sub-cells' trees: first_tree + rank among the dirty ones */
    int left;             /* sub-cells not built yet: the worker that builds the last one
                             joins the block's trees (so few sub-cells' trees are kept) */
    bool assembled;
} block_job;

/* A unit of parallel work: one sub-cell of a block job (its trees go to trees[tree]), or
 * (sub -1) the job's vis trees. */
typedef struct work_item {
    int job, sub, tree;
} work_item;

typedef struct compile_context {
    block_job *jobs;
    work_item *work;
    al_subcell_trees *trees; /* per work item */
    double subcell_size;
    int hull_count;
    al_arena **arenas;
    al_build_scratch *scratch;
    int failed;
} compile_context;

/* List KIND of a block's input: 0 the vis brushes, 1 the light brushes, else hull H's. */
static void block_list(al_block_input *in, int kind, int h, al_brush ****list, int **count)
{
    if (kind == 0) {
        *list = &in->vis;
        *count = &in->vis_count;
    } else if (kind == 1) {
        *list = &in->light;
        *count = &in->light_count;
    } else {
        *list = &in->expanded[h];
        *count = &in->expanded_count[h];
    }
}

/* Joins JOB's block from its sub-cells, then frees their trees. */
static void assemble(compile_context *c, block_job *job)
{
    al_block *block = &job->model->blocks[job->block];
    int count = block->subcells * block->subcells * block->subcells;
    al_subcell_trees *fresh[AL_MAX_SUBCELLS];
    for (int s = 0, rank = 0; s < count; s++)
        fresh[s] = al_subcell_set_has(&job->dirty, s) ? &c->trees[job->first_tree + rank++] : NULL;
    job->assembled = true;
    if (__atomic_load_n(&c->failed, __ATOMIC_ACQUIRE) ||
        al_block_assemble(block, c->hull_count, c->subcell_size, fresh, job->prev) < 0 ||
        (job->model == job->input.world->models &&
         al_block_open_cells(block, c->hull_count, block->cell_mins,
                             c->subcell_size * block->subcells, job->prev, &job->dirty) < 0) ||
        !al_block_own_collision(block))
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    for (int s = 0; s < count; s++) al_subcell_trees_free(fresh[s]);
}

static void run_work_item(void *context, int index, int worker)
{
    compile_context *c = context;
    const work_item *item = &c->work[index];
    block_job *job = &c->jobs[item->job];
    al_block *block = &job->model->blocks[job->block];
    int status;
    if (item->sub < 0) {
        status = al_block_build_vis(&job->input, block, c->arenas[worker], &c->scratch[worker]);
        if (status == 0 && !al_block_own_vis(block)) status = -1;
    } else {
        double mins[3], maxs[3];
        al_block_subcell_box(block, c->subcell_size, item->sub, mins, maxs);
        status = al_subcell_build(&job->input, mins, maxs, &c->trees[item->tree],
                                  c->arenas[worker], &c->scratch[worker]);
    }
    if (status < 0) __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
    if (item->sub >= 0 && __atomic_sub_fetch(&job->left, 1, __ATOMIC_ACQ_REL) == 0)
        assemble(c, job);
}

/* Marks in SUB_DIRTY (per block of the world model) the sub-cells that brush B grown by
 * [LO_GROW, HI_GROW] overlaps, with the on-plane epsilon, as brush_block_range does for
 * blocks. */
static void mark_subcells(const al_model *model, double block_size, const al_brush *b,
                          const double lo_grow[3], const double hi_grow[3],
                          al_subcell_set *sub_dirty)
{
    int n = AL_SUBCELLS;
    double size = block_size / n;
    int lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        int cells = model->grid_dims[k] * n;
        lo[k] = (int) floor((b->mins[k] + lo_grow[k] - AL_ON_EPSILON) / size) -
                model->grid_origin[k] * n;
        hi[k] = (int) floor((b->maxs[k] + hi_grow[k] + AL_ON_EPSILON) / size) -
                model->grid_origin[k] * n;
        if (lo[k] < 0) lo[k] = 0;
        if (hi[k] > cells - 1) hi[k] = cells - 1;
    }
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int x = lo[0]; x <= hi[0]; x++) {
                int block = al_model_block_index(model, x / n, y / n, z / n);
                int s = (z % n * n + y % n) * n + x % n;
                al_subcell_set_add(&sub_dirty[block], s);
            }
}

void al_expanded_store_release(al_expanded_store *store)
{
    if (!store || __atomic_sub_fetch(&store->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    al_arena_destroy(store->arena);
    free(store);
}

/* Gives W the stores of PREV, when it may share them (see al_expanded_store), then STORE
 * for its own; takes STORE in any case. Returns whether PREV's were shared; sets *OK false
 * if memory ran out. */
static bool share_stores(al_world *w, const al_world *prev, al_expanded_store *store, bool *ok)
{
    bool shared = prev && prev->expanded && prev->store_count < AL_MAX_EXPANDED_STORES;
    int count = shared ? prev->store_count + 1 : 1;
    w->stores = malloc((size_t) count * sizeof *w->stores);
    *ok = w->stores != NULL;
    if (!*ok) {
        al_expanded_store_release(store);
        return false;
    }
    if (shared)
        for (int i = 0; i < prev->store_count; i++) {
            __atomic_add_fetch(&prev->stores[i]->refs, 1, __ATOMIC_RELAXED);
            w->stores[w->store_count++] = prev->stores[i];
        }
    w->stores[w->store_count++] = store;
    return shared;
}

/* Gives W the expanded brushes of PREV for the brushes it copied (FROM_OF: per input
 * brush, its index among PREV's collision brushes, or -1): by pointer if W SHARED PREV's
 * stores, else copied into W's own. False if memory runs out. */
static bool take_expanded(al_world *w, const al_world *prev, const int *from_of, bool shared)
{
    if (!prev || !prev->expanded) return true;
    al_arena *own = w->stores[w->store_count - 1]->arena;
    int n = w->collision_count, pn = prev->collision_count;
    for (int i = 0; i < n; i++) {
        int from = from_of[w->collision[i]->id];
        if (from < 0) continue;
        for (int h = 0; h < w->hull_count; h++) {
            al_brush *e = prev->expanded[(size_t) h * pn + from];
            /* A hull without extent (the point hull) expands a brush to itself. */
            if (e == prev->collision[from]) e = w->collision[i];
            else if (e && !shared && !(e = al_brush_copy(own, e))) return false;
            w->expanded[(size_t) h * n + i] = e;
        }
    }
    return true;
}

void al_world_destroy(al_world *world)
{
    if (!world) return;
    for (int i = 0; i < world->store_count; i++) al_expanded_store_release(world->stores[i]);
    free(world->stores);
    free(world->expanded);
    for (int m = 0; m < world->model_count; m++) {
        al_model *model = &world->models[m];
        for (int b = 0; b < model->block_count; b++) al_block_free(&model->blocks[b]);
        free(model->blocks);
        free(model->open_rows);
        free(model->open_starts);
        al_tree_free(&model->top);

    }
    free(world->models);
    al_vis_destroy(world->vis);
    if (world->stored_pvs) {
        al_stored_pvs_free(world->stored_pvs);
        free(world->stored_pvs);
    }
    al_model_index_free(&world->model_index);
    free(world->collision);
    free(world->collision_hash);
    free(world->liquids);
    free(world->origins);
    free(world->hints);
    al_cell_index_free(&world->liquid_index);
    al_plane_table_free(&world->planes);
    al_arena_destroy(world->arena);
    al_diag_list_clear(&world->diags);
    free(world);
}

/* Entities for visibility: origins from the input, boxes from the collision brushes (the
 * brushes a loaded world still has, so a world from the cache gets the same lists). */
static al_vis_entity *vis_entities(const al_world *w, const al_input *input)
{
    al_vis_entity *entities = calloc((size_t) input->entity_count + 1, sizeof *entities);
    if (!entities) return NULL;
    for (int e = 0; e < input->entity_count; e++) {
        const al_entity_desc *d = &input->entities[e];
        entities[e].classname = d->classname ? d->classname : "";
        entities[e].line = d->line;
        al_bounds_clear(entities[e].mins, entities[e].maxs);
        for (int i = 0; i < d->property_count; i++) {
            const al_property *p = &d->properties[i];
            double o[3];
            if (p->key && p->value && strcmp(p->key, "origin") == 0 &&
                sscanf(p->value, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3 && al_is_finite3(o) &&
                fabs(o[0]) <= AL_COORD_MAX && fabs(o[1]) <= AL_COORD_MAX &&
                fabs(o[2]) <= AL_COORD_MAX) {
                entities[e].has_origin = true;
                al_copy(o, entities[e].origin);
            }
        }
    }
    for (int i = 0; i < w->collision_count; i++) {
        const al_brush *b = w->collision[i];
        if (b->entity < 0 || b->entity >= input->entity_count) continue;
        al_vis_entity *e = &entities[b->entity];
        e->has_brushes = true;
        al_bounds_add(b->mins, e->mins, e->maxs);
        al_bounds_add(b->maxs, e->mins, e->maxs);
    }
    return entities;
}

al_status al_world_adopt_input(al_world *w, const al_input *input)
{
    if (!input || input->brush_count < 0 || (input->brush_count && !input->brushes))
        return AL_ERR_INVALID_ARGUMENT;
    uint64_t *keys = malloc(((size_t) w->collision_count + 1) * sizeof *keys);
    if (!keys) return AL_ERR_NOMEM;
    for (int i = 0; i < w->collision_count; i++) {
        const al_brush *b = w->collision[i];
        /* The brush must be the one it was built from: same index and entity, and faces
         * the input brush has. */
        bool fits = b->id >= 0 && b->id < input->brush_count &&
                    input->brushes[b->id].entity == b->entity;
        for (int k = 0; fits && k < b->side_count; k++)
            fits = b->sides[k].face < input->brushes[b->id].face_count;
        if (!fits) {
            free(keys);
            return AL_ERR_INVALID_ARGUMENT;
        }
        keys[i] = input->brush_keys ? input->brush_keys[b->id] : al_brush_desc_key(input, b->id);
    }
    free(w->collision_hash);
    w->collision_hash = keys;
    return AL_OK;
}

al_status al_world_build_vis(al_world *w, const al_input *input, al_pvs_level level, int threads)
{
    al_vis_options o = {.level = level, .threads = threads};
    return al_world_build_vis_with(w, input, &o);
}

static void brush_block_range(const al_model *model, double block_size, const al_brush *b,
                              const double lo_grow[3], const double hi_grow[3], int lo[3],
                              int hi[3]);

/* Per worker thread of a build: an arena and the builder's scratch. */
typedef struct build_workers {
    al_arena **arenas;
    al_build_scratch *scratch;
    int threads;
} build_workers;

/* Creates THREADS workers' arenas and scratch (with OPTIONS' split settings, or the
 * defaults). False if memory runs out (free them all the same). */
static bool workers_init(build_workers *wk, int threads, const al_compile_options *options)
{
    wk->threads = threads;
    wk->arenas = calloc((size_t) threads, sizeof *wk->arenas);
    wk->scratch = calloc((size_t) threads, sizeof *wk->scratch);
    if (!wk->arenas || !wk->scratch) return false;
    for (int t = 0; t < threads; t++) {
        if (!(wk->arenas[t] = al_arena_create(0))) return false;
        wk->scratch[t].max_candidates = options ? options->split_candidates : 0;
        wk->scratch[t].min_relation = options ? options->split_balance : 0;
    }
    return true;
}

static void workers_free(build_workers *wk)
{
    if (wk->arenas)
        for (int t = 0; t < wk->threads; t++) al_arena_destroy(wk->arenas[t]);
    free(wk->arenas);
    if (wk->scratch)
        for (int t = 0; t < wk->threads; t++) al_build_scratch_free(&wk->scratch[t]);
    free(wk->scratch);
}

typedef struct vis_tree_context {
    al_world *world;
    al_block_input *inputs; /* per block of the world model; world NULL where it has trees */
    al_arena **arenas;
    al_build_scratch *scratch;
    int failed;
} vis_tree_context;

static void run_vis_tree_job(void *context, int index, int worker)
{
    vis_tree_context *c = context;
    al_block *block = &c->world->models[0].blocks[index];
    if (!c->inputs[index].world) return;
    if (al_block_build_vis(&c->inputs[index], block, c->arenas[worker], &c->scratch[worker]) < 0 ||
        !al_block_own_vis(block))
        __atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
}

/* Builds the vis and light trees of the world blocks that have none (a compile with no_vis
 * leaves them to this). Returns AL_OK or AL_ERR_NOMEM. */
static al_status build_missing_vis_trees(al_world *w, int threads)
{
    al_model *m0 = &w->models[0];
    int missing = 0;
    for (int b = 0; b < m0->block_count; b++) missing += !al_block_has_vis(&m0->blocks[b]);
    if (missing == 0) return AL_OK;
    al_status st = AL_ERR_NOMEM;
    al_block_input *inputs = calloc((size_t) m0->block_count, sizeof *inputs);
    build_workers wk;
    if (!workers_init(&wk, threads, &w->split) || !inputs) goto done;
    /* The brush lists: count, allocate, fill (the point hull's brushes are the collision
     * brushes themselves). */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = m0->first_brush; i < m0->first_brush + m0->brush_count; i++) {
            al_brush *brush = w->collision[i];
            bool sight = al_brush_blocks_sight(brush), light = al_brush_blocks_light(brush);
            if (!sight && !light) continue;
            const double zero[3] = {0, 0, 0};
            int lo[3], hi[3];
            brush_block_range(m0, w->block_size, brush, zero, zero, lo, hi);
            for (int z = lo[2]; z <= hi[2]; z++)
                for (int y = lo[1]; y <= hi[1]; y++)
                    for (int x = lo[0]; x <= hi[0]; x++) {
                        int b = al_model_block_index(m0, x, y, z);
                        if (al_block_has_vis(&m0->blocks[b])) continue;
                        al_block_input *in = &inputs[b];
                        if (sight) {
                            if (pass == 1) in->vis[in->vis_count] = brush;
                            in->vis_count++;
                        }
                        if (light) {
                            if (pass == 1) in->light[in->light_count] = brush;
                            in->light_count++;
                        }
                    }
        }
        if (pass == 1) break;
        for (int b = 0; b < m0->block_count; b++) {
            if (al_block_has_vis(&m0->blocks[b])) continue;
            al_block_input *in = &inputs[b];
            in->world = w;
            in->build_vis = true;
            in->vis = malloc(((size_t) in->vis_count + 1) * sizeof *in->vis);
            in->light = malloc(((size_t) in->light_count + 1) * sizeof *in->light);
            if (!in->vis || !in->light) goto done;
            in->vis_count = in->light_count = 0;
        }
    }
    vis_tree_context c = {.world = w, .inputs = inputs, .arenas = wk.arenas,
                          .scratch = wk.scratch};
    al_parallel_for(m0->block_count, threads, run_vis_tree_job, &c);
    if (!c.failed) st = AL_OK;

done:
    if (inputs)
        for (int b = 0; b < m0->block_count; b++) {
            free(inputs[b].vis);
            free(inputs[b].light);
        }
    free(inputs);
    workers_free(&wk);
    return st;
}

al_status al_world_build_vis_trees(al_world *w, int threads)
{
    return build_missing_vis_trees(w, threads > 0 ? threads : al_cpu_count());
}

al_status al_world_build_vis_with(al_world *w, const al_input *input, const al_vis_options *o)
{
    int threads = o->threads;
    al_vis_destroy(w->vis);
    w->vis = NULL;
    if (threads <= 0) threads = al_cpu_count();
    if (build_missing_vis_trees(w, threads) != AL_OK) return AL_ERR_NOMEM;
    if (input->entity_count < 0 || (input->entity_count && !input->entities))
        return AL_ERR_INVALID_ARGUMENT;
    al_vis_entity *entities = vis_entities(w, input);
    if (!entities) return AL_ERR_NOMEM;
    /* A world from the cache already holds its compile's diagnostics: keep one copy. */
    size_t before = w->diags.count;
    int r = al_vis_build(w, entities, input->entity_count, o->level, threads, o->cancel,
                         o->progress, o->no_pvs_if_leaking, o->previous);
    free(entities);
    size_t kept = before;
    for (size_t i = before; i < w->diags.count; i++) {
        bool repeated = false;
        for (size_t j = 0; j < before && !repeated; j++)
            repeated = strcmp(w->diags.items[j].message, w->diags.items[i].message) == 0;
        if (!repeated) w->diags.items[kept++] = w->diags.items[i];
    }
    w->diags.count = kept;
    if (r < 0) {
        al_vis_destroy(w->vis);
        w->vis = NULL;
        return r == -2 ? AL_ERR_CANCELLED : AL_ERR_NOMEM;
    }
    return AL_OK;
}

/* Whether PREV was compiled with the same hulls and block size, so its brushes and blocks
 * can serve a compile of the new input. */
static bool prev_fits(const al_world *prev, const al_hull_desc *hulls, int hull_count,
                      double block_size)
{
    if (!prev || !prev->collision_hash || prev->hull_count != hull_count ||
        prev->block_size != block_size)
        return false;
    for (int h = 0; h < hull_count; h++)
        if (strcmp(prev->hulls[h].name, hulls[h].name) != 0 ||
            memcmp(prev->hulls[h].mins, hulls[h].mins, sizeof hulls[h].mins) != 0 ||
            memcmp(prev->hulls[h].maxs, hulls[h].maxs, sizeof hulls[h].maxs) != 0)
            return false;
    return true;
}

/* Grid cells (of MODEL) that brush B grown by the box [LO, HI] overlaps, with the on-plane
 * epsilon: a brush touching a grid plane goes to both sides. */
static void brush_block_range(const al_model *model, double block_size, const al_brush *b,
                              const double lo_grow[3], const double hi_grow[3], int lo[3],
                              int hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = (int) floor((b->mins[k] + lo_grow[k] - AL_ON_EPSILON) / block_size) -
                model->grid_origin[k];
        hi[k] = (int) floor((b->maxs[k] + hi_grow[k] + AL_ON_EPSILON) / block_size) -
                model->grid_origin[k];
        if (lo[k] < 0) lo[k] = 0;
        if (hi[k] > model->grid_dims[k] - 1) hi[k] = model->grid_dims[k] - 1;
    }
}

static void mark_range(const al_model *model, const int lo[3], const int hi[3], bool *dirty)
{
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int x = lo[0]; x <= hi[0]; x++) dirty[al_model_block_index(model, x, y, z)] = true;
}

/* Shares SRC's trees with DST (both blocks then own them, by reference count). False if SRC
 * cannot be shared (a block that never finished building). */
static bool block_share(al_block *dst, const al_block *src)
{
    if (!src->refs) return false;
    __atomic_add_fetch(src->refs, 1, __ATOMIC_RELAXED);
    if (src->vis_refs) __atomic_add_fetch(src->vis_refs, 1, __ATOMIC_RELAXED);
    *dst = *src;
    return true;
}

/* A previous model whose brushes (by key, in order) are those of model M of W, not yet
 * taken: its blocks serve unchanged. -1 if none. */
static int matching_prev_model(const al_world *w, int m, const al_world *prev, bool *taken)
{
    const al_model *model = &w->models[m];
    for (int p = 1; p < prev->model_count; p++) {
        const al_model *pm = &prev->models[p];
        if (taken[p] || pm->brush_count != model->brush_count) continue;
        bool same = memcmp(pm->grid_origin, model->grid_origin, sizeof pm->grid_origin) == 0 &&
                    memcmp(pm->grid_dims, model->grid_dims, sizeof pm->grid_dims) == 0;
        for (int i = 0; same && i < model->brush_count; i++)
            same = prev->collision_hash[pm->first_brush + i] ==
                   w->collision_hash[model->first_brush + i];
        if (same) {
            taken[p] = true;
            return p;
        }
    }
    return -1;
}

static void sum_stats(al_world *w)
{
    for (int m = 0; m < w->model_count; m++) {
        al_model *model = &w->models[m];
        double depth_sum = 0;
        int64_t leaf_sum = 0;
        for (int b = 0; b < model->block_count; b++) {
            al_block *blk = &model->blocks[b];
            w->stats.onion_nodes += blk->onion.node_count;
            w->stats.onion_leaves += blk->onion.leaf_count;
            w->stats.onion_polys += blk->stats.onion.polys_in;
            w->stats.onion_splits += blk->stats.onion.splits;
            w->stats.onion_degenerate += blk->stats.onion.degenerate;
            w->stats.bevel_nodes += blk->stats.map.bevel_nodes;
            for (int h = 0; h < w->hull_count; h++) {
                w->stats.map_nodes[h] += blk->map[h].node_count;
                w->stats.map_leaves[h] += blk->map[h].leaf_count;
                w->stats.boundary_polys[h] += blk->stats.boundary_polys[h];
            }
            if (m == 0) {
                int max_depth = blk->onion_max_depth;
                double mean_depth = blk->onion_mean_depth;
                /* Depth counted from the model's root: add the top tree's levels. */
                int top_depth = 0;
                for (int k = 0; k < 3; k++) {
                    int d = model->grid_dims[k];
                    while (d > 1) {
                        d = (d + 1) / 2;
                        top_depth++;
                    }
                }
                if (max_depth + top_depth > w->stats.onion_max_depth)
                    w->stats.onion_max_depth = max_depth + top_depth;
                depth_sum += (mean_depth + top_depth) * blk->onion.leaf_count;
                leaf_sum += blk->onion.leaf_count;
            }
        }
        if (m == 0 && leaf_sum) w->stats.onion_mean_depth = depth_sum / (double) leaf_sum;
    }
}

/* What the stages of one compile share. The pipeline (compile_world) zeroes it, runs the
 * stages in order and frees what they made; each stage says which fields it reads and
 * which it writes. */
typedef struct compile_state {
    /* The call. */
    const al_input *input;
    const al_compile_options *options; /* may be NULL */
    const al_world *prev; /* the world updated from; NULL for a full compile, or when its
                             hulls or block size differ (check_input) */
    uint64_t t_start;     /* al_clock_ns when the compile started */

    /* Settings (check_input). */
    const al_hull_desc *hulls; /* the input's, or the defaults */
    int hull_count;
    double block_size;
    int subcells;        /* per axis of a world block: AL_SUBCELLS, or 1 for small blocks */
    double subcell_size; /* units */
    bool want_vis;       /* build the vis and light trees with the blocks, then visibility */
    int threads;

    /* The world and its memory (start_world). */
    al_world *world;          /* the result; destroyed by the pipeline on failure */
    al_expanded_store *store; /* the world's own store until the world takes it */
    bool shared;              /* the world shares PREV's stores (al_expanded_store) */
    al_arena *own;            /* the arena of the world's own store */
    build_workers workers;
    al_key_pool reuse; /* PREV's brushes by content key */

    /* Brushes, per input brush (build_brushes). */
    uint64_t *keys;   /* al_brush_desc_key */
    int *from_of;     /* index among PREV's collision brushes of the brush copied, or -1 */
    bool *fresh;      /* built, not copied */
    al_brush **valid; /* the valid brushes, in input order */
    int valid_count;
    int *model_of_entity; /* per entity: its model, or -1 */
    int model_count;

    /* Grids (lay_out_grids). */
    double grow_lo[3], grow_hi[3]; /* how far the hulls grow a brush (al_world_hull_growth) */
    int total_blocks;              /* all models' blocks, numbered model after model */

    /* Blocks to build (choose_blocks). */
    bool *dirty;               /* per block: to build */
    al_subcell_set *sub_dirty; /* per world block: the sub-cells to build */
    int *prev_of_model;        /* per model: PREV's model whose blocks serve it, or -1 */
    bool *prev_model_taken;    /* per model of PREV */

    /* Jobs (share_clean_blocks, plan_jobs). */
    int *job_of_block; /* per block: its job, or -1 for a block shared with PREV */
    int job_total;
    block_job *jobs;
    work_item *work; /* the vis trees' items first, then the sub-cells' */
    int work_total, sub_work;
    al_subcell_trees *sub_trees; /* per sub-cell work item */

    /* The jobs' brush lists (fill_block_lists). */
    al_brush ***block_lists; /* per job, hull_count + 2 lists (see block_list) */
    int list_count;
    int (*build_box)[2][3]; /* per model: grid box around its blocks to build */
    int *near_brushes;      /* scratch: a model's brushes that may meet its build box */
} compile_state;

/* Stage: are the hulls, the block size and the input's arrays usable? Reads the input and
 * the options; writes the settings, and drops PREV if it was compiled with other hulls or
 * another block size. AL_ERR_INVALID_ARGUMENT, described in DIAGS, if they are not usable. */
static al_status check_input(compile_state *c, al_diag_list *diags)
{
    const al_input *input = c->input;
    al_status st = check_hulls(input, diags, &c->hulls, &c->hull_count);
    if (st != AL_OK) return st;
    double block_size = input->block_size == 0 ? AL_DEFAULT_BLOCK_SIZE : input->block_size;
    if (!(block_size >= MIN_BLOCK_SIZE && block_size <= MAX_BLOCK_SIZE)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "block size %g is outside %g..%g units", block_size, MIN_BLOCK_SIZE,
                    MAX_BLOCK_SIZE);
        return AL_ERR_INVALID_ARGUMENT;
    }
    if (input->brush_count < 0 || input->face_count < 0 || input->entity_count < 0 ||
        input->material_count < 0 || (input->brush_count && !input->brushes) ||
        (input->face_count && !input->faces) || (input->entity_count && !input->entities) ||
        (input->material_count && !input->materials)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "the compiler input's counts and arrays do not match");
        return AL_ERR_INVALID_ARGUMENT;
    }
    if (!prev_fits(c->prev, c->hulls, c->hull_count, block_size)) c->prev = NULL;
    c->block_size = block_size;
    /* Without visibility the vis and light trees wait for al_world_build_vis too. */
    c->want_vis = !(c->options && c->options->no_vis);
    c->subcells = block_size / AL_SUBCELLS >= AL_MIN_SUBCELL_SIZE ? AL_SUBCELLS : 1;
    c->subcell_size = block_size / c->subcells;
    c->threads = c->options && c->options->threads > 0 ? c->options->threads : al_cpu_count();
    return AL_OK;
}

/* Stage: an empty world and the memory of the build. Reads the settings and PREV; writes
 * the world (hulls, block size, split settings, arena, stores, and its plane table, a copy
 * of PREV's so that the brushes copied from PREV keep their plane indices), the store
 * fields, the workers and the index of PREV's brushes. */
static al_status start_world(compile_state *c)
{
    al_world *w = c->world = calloc(1, sizeof *w);
    if (!w) return AL_ERR_NOMEM;
    w->hull_count = c->hull_count;
    memcpy(w->hulls, c->hulls, (size_t) c->hull_count * sizeof *c->hulls);
    w->block_size = c->block_size;
    if (c->options) {
        w->split.split_candidates = c->options->split_candidates;
        w->split.split_balance = c->options->split_balance;
    }
    w->entity_count = c->input->entity_count;
    w->arena = al_arena_create(0);
    al_expanded_store *store = c->store = calloc(1, sizeof *store);
    if (store && (store->arena = al_arena_create(0))) store->refs = 1;
    bool workers_ready = workers_init(&c->workers, c->threads, c->options);
    bool reuse_ready = al_key_pool_init(&c->reuse, c->prev ? c->prev->collision_hash : NULL,
                                        c->prev ? c->prev->collision_count : 0);
    if (!w->arena || !store || !store->arena || !workers_ready || !reuse_ready) return AL_ERR_NOMEM;
    /* Brushes (their sides and windings) and expanded brushes live in stores: those of
     * PREV when they may be shared, then this world's own. */
    bool stores_ok;
    c->shared = share_stores(w, c->prev, store, &stores_ok);
    c->store = NULL; /* the world's now */
    if (!stores_ok) return AL_ERR_NOMEM;
    c->own = w->stores[w->store_count - 1]->arena;
    if (c->prev ? !al_plane_table_load(&w->planes, c->prev->planes.planes, c->prev->planes.count)
                : !al_plane_table_init(&w->planes))
        return AL_ERR_NOMEM;
    return AL_OK;
}

/* Input brush I, valid, into *OUT (NULL if invalid: counted and diagnosed): copied from
 * PREV when its key matches one of PREV's brushes, else built; given its model, numbering
 * the brush entities' models as they come. False if memory runs out. */
static bool take_brush(compile_state *c, int i, al_brush **out)
{
    const al_input *input = c->input;
    const al_world *prev = c->prev;
    al_world *w = c->world;
    const al_brush_desc *d = &input->brushes[i];
    *out = NULL;
    if (d->entity < 0 || d->entity >= input->entity_count) {
        al_diag_add(&w->diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, d->entity, d->index, -1,
                    d->line, -1, "belongs to entity %d, which does not exist", d->entity);
        w->stats.invalid_brushes++;
        return true;
    }
    c->keys[i] = input->brush_keys ? input->brush_keys[i] : al_brush_desc_key(input, i);
    bool nomem = false;
    al_brush *b = NULL;
    int from = al_key_pool_take(&c->reuse, c->keys[i]);
    c->from_of[i] = from;
    if (from >= 0) {
        /* Sharing PREV's stores, the brush's sides are shared too: a copy of the record is
         * enough. */
        if (c->shared) {
            b = al_arena_alloc(w->arena, sizeof *b);
            if (b) *b = *prev->collision[from];
        } else {
            b = al_brush_copy(c->own, prev->collision[from]);
        }
        if (!b)
            nomem = true;
        else {
            /* A copied brush's warnings are PREV's, moved to where the brush is now (a
             * warned brush rebuilt anew would rebuild its blocks after every edit). */
            const al_brush *was = prev->collision[from];
            for (size_t k = 0; (was->flags & AL_BRUSH_WARNED) && k < prev->diags.count; k++) {
                const al_diag *g = &prev->diags.items[k];
                if (g->kind != AL_DIAG_BRUSH_WARNING || g->entity != was->entity ||
                    g->brush != was->index)
                    continue;
                al_diag_add(&w->diags, g->severity, g->kind, d->entity, d->index, g->face, d->line,
                            g->column, "%s", g->message);
            }
            b->id = i;
            b->entity = d->entity;
            b->index = d->index;
            b->line = d->line;
            w->stats.brushes_copied++;
        }
    } else {
        size_t before = w->diags.count;
        b = al_brush_build(c->own, &w->planes, input, i, &w->diags, &nomem);
        if (b && w->diags.count != before) b->flags |= AL_BRUSH_WARNED;
        c->fresh[i] = true;
    }
    if (nomem) return false;
    if (!b) {
        w->stats.invalid_brushes++;
        return true;
    }
    const char *classname = input->entities[d->entity].classname;
    al_entity_role role = d->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
    if (role == AL_ROLE_DETAIL) b->flags |= AL_BRUSH_DETAIL;
    /* Quake's entities have no liquids: their liquid brushes are solid. */
    if (role == AL_ROLE_MODEL) b->material_flags &= ~AL_MATERIAL_LIQUID;
    bool solid = role != AL_ROLE_NONSOLID &&
                 !(b->material_flags & (AL_MATERIAL_LIQUID | AL_MATERIAL_NONSOLID |
                                        AL_MATERIAL_HINT | AL_MATERIAL_ORIGIN));
    b->model = -1;
    if (solid) {
        if (role == AL_ROLE_MODEL) {
            if (c->model_of_entity[d->entity] < 0) c->model_of_entity[d->entity] = c->model_count++;
            b->model = c->model_of_entity[d->entity];
        } else {
            b->model = 0;
        }
    }
    *out = b;
    return true;
}

/* Stage: the brushes, and the collision brushes grouped by model (stably, so input order
 * is kept within a model). Reads the input, PREV and its index; writes the brush fields,
 * the world's collision brushes, their keys, its models' brush ranges and entities, its
 * plane table (the planes of the brushes built), its diagnostics and brush counts. */
static al_status build_brushes(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    const al_input *input = c->input;
    al_world *w = c->world;
    c->model_of_entity = malloc((size_t) (input->entity_count + 1) * sizeof *c->model_of_entity);
    c->keys = malloc((size_t) (input->brush_count + 1) * sizeof *c->keys);
    c->from_of = malloc((size_t) (input->brush_count + 1) * sizeof *c->from_of);
    c->valid = malloc((size_t) (input->brush_count + 1) * sizeof *c->valid);
    c->fresh = calloc((size_t) input->brush_count + 1, sizeof *c->fresh);
    if (!c->model_of_entity || !c->valid || !c->keys || !c->fresh || !c->from_of)
        return AL_ERR_NOMEM;
    for (int e = 0; e < input->entity_count; e++) c->model_of_entity[e] = -1;
    c->model_count = 1;
    for (int i = 0; i < input->brush_count; i++) {
        al_brush *b;
        if (!take_brush(c, i, &b)) return AL_ERR_NOMEM;
        if (b) c->valid[c->valid_count++] = b;
    }
    w->stats.input_brushes = input->brush_count;
    w->stats.valid_brushes = c->valid_count;

    int model_count = c->model_count;
    w->collision = malloc((size_t) (c->valid_count + 1) * sizeof *w->collision);
    w->collision_hash = malloc((size_t) (c->valid_count + 1) * sizeof *w->collision_hash);
    w->models = calloc((size_t) model_count, sizeof *w->models);
    if (!w->collision || !w->collision_hash || !w->models) return AL_ERR_NOMEM;
    w->model_count = model_count;
    for (int m = 0; m < model_count; m++) {
        w->models[m].first_brush = w->collision_count;
        for (int i = 0; i < c->valid_count; i++)
            if (c->valid[i]->model == m) {
                w->collision_hash[w->collision_count] = c->keys[c->valid[i]->id];
                w->collision[w->collision_count++] = c->valid[i];
            }
        w->models[m].brush_count = w->collision_count - w->models[m].first_brush;
    }
    for (int e = 0; e < input->entity_count; e++)
        if (c->model_of_entity[e] > 0) w->models[c->model_of_entity[e]].entity = e;
    /* The liquids: the world's and its detail's (a brush entity's are solid). */
    w->liquids = malloc((size_t) (c->valid_count + 1) * sizeof *w->liquids);
    if (!w->liquids) return AL_ERR_NOMEM;
    for (int i = 0; i < c->valid_count; i++) {
        const al_brush *b = c->valid[i];
        const char *classname = input->entities[b->entity].classname;
        al_entity_role role = b->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
        if (b->model < 0 && (b->material_flags & AL_MATERIAL_LIQUID) && role != AL_ROLE_NONSOLID)
            w->liquids[w->liquid_count++] = c->valid[i];
    }
    if (!al_world_index_liquids(w)) return AL_ERR_NOMEM;
    /* The origin brushes: a brush entity's first (a warning for any other, and for one in
     * the world, which has no origin to set). */
    w->origins = malloc((size_t) (c->valid_count + 1) * sizeof *w->origins);
    if (!w->origins) return AL_ERR_NOMEM;
    for (int i = 0; i < c->valid_count; i++) {
        al_brush *b = c->valid[i];
        if (!(b->material_flags & AL_MATERIAL_ORIGIN)) continue;
        const char *classname = input->entities[b->entity].classname;
        al_entity_role role = b->entity == 0 ? AL_ROLE_WORLD : al_entity_role_of(classname);
        bool taken = false;
        for (int k = 0; k < w->origin_count; k++) taken |= w->origins[k]->entity == b->entity;
        if (role == AL_ROLE_MODEL && !taken) {
            w->origins[w->origin_count++] = b;
        } else if (taken) {
            al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, b->entity, b->index,
                        -1, b->line, -1,
                        "is a second origin brush of its entity; the first one sets the origin");
        } else {
            al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, b->entity, b->index,
                        -1, b->line, -1,
                        "is an origin brush outside a brush entity, which has no origin to set; "
                        "it is left out");
        }
    }
    /* Opaque liquids, a worldspawn setting (absent or 0: transparent, ericw-tools' default). */
    const char *opaque = input->entity_count > 0
                             ? al_entity_value(&input->entities[0], "_allium_opaque_liquids")
                             : NULL;
    w->opaque_liquids = opaque && strcmp(opaque, "1") == 0;
    if (opaque && strcmp(opaque, "1") != 0 && strcmp(opaque, "0") != 0)
        al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, 0, -1, -1,
                    input->entities[0].line, -1,
                    "worldspawn key \"_allium_opaque_liquids\" is \"%s\", not 0 or 1; liquids "
                    "stay transparent",
                    opaque);
    /* The hint brushes that split the world's vis tree: those of the world and of the
     * entities whose brushes Quake's compilers merge into it (func_group, and func_detail of
     * every kind: qbsp gives a hint brush empty, structural contents before it looks at
     * detail, so a hint in a func_detail splits like one in the world). A hint brush of
     * any other brush entity splits only that entity's own model, which has no portals: it
     * does nothing here. */
    w->hints = malloc((size_t) (c->valid_count + 1) * sizeof *w->hints);
    if (!w->hints) return AL_ERR_NOMEM;
    for (int i = 0; i < c->valid_count; i++) {
        al_brush *b = c->valid[i];
        const char *classname = input->entities[b->entity].classname;
        if ((b->material_flags & AL_MATERIAL_HINT) &&
            (b->entity == 0 || al_entity_in_world(classname)))
            w->hints[w->hint_count++] = b;
    }
    w->stats.collision_brushes = w->collision_count;
    w->stats.ms_brushes = al_clock_ms_since(t0);
    return AL_OK;
}

/* Collision brush I expanded by hull H: the world's copy, made now if it has none yet.
 * NULL if memory runs out. */
static al_brush *expanded_brush(compile_state *c, int h, int i)
{
    al_world *w = c->world;
    al_brush **e = &w->expanded[(size_t) h * (size_t) w->collision_count + (size_t) i];
    if (!*e) {
        *e = al_brush_expand(c->own, &w->planes, w->collision[i], w->hulls[h].mins,
                             w->hulls[h].maxs);
        if (*e) w->stats.expanded_planes += (*e)->side_count;
    }
    return *e;
}

/* Stage: one expanded copy per hull of each collision brush: all of them for a full
 * compile; for an update, those PREV has for the brushes it copied (see
 * al_expanded_store), the others when a block to build needs them (fill_block_lists).
 * Reads the collision brushes, PREV and from_of; writes the world's expanded brushes and
 * planes. */
static al_status expand_brushes(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    int n = w->collision_count;
    w->expanded = calloc((size_t) (n * c->hull_count + 1), sizeof *w->expanded);
    if (!w->expanded || !take_expanded(w, c->prev, c->from_of, c->shared)) return AL_ERR_NOMEM;
    if (!c->prev)
        for (int h = 0; h < c->hull_count; h++)
            for (int i = 0; i < n; i++)
                if (!expanded_brush(c, h, i)) return AL_ERR_NOMEM;
    w->stats.ms_expand = al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: each model's bounds and grid of blocks. A model's bounds are its brushes' grown
 * by the hull boxes (brush minus box): exactly the bounds of the expanded brushes, without
 * expanding them. Reads the collision brushes and the settings; writes grow_lo, grow_hi,
 * total_blocks and the models' bounds, reach, grids and (empty) blocks. AL_ERR_LIMIT, with
 * a diagnostic in the world's, for a model of more than MAX_BLOCKS blocks. */
static al_status lay_out_grids(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    double block_size = c->block_size;
    al_world_hull_growth(w, c->grow_lo, c->grow_hi);
    for (int m = 0; m < w->model_count; m++) {
        al_model *model = &w->models[m];
        al_bounds_clear(model->mins, model->maxs);
        for (int i = model->first_brush; i < model->first_brush + model->brush_count; i++) {
            const al_brush *b = w->collision[i];
            for (int k = 0; k < 3; k++) {
                if (b->mins[k] + c->grow_lo[k] < model->mins[k])
                    model->mins[k] = b->mins[k] + c->grow_lo[k];
                if (b->maxs[k] + c->grow_hi[k] > model->maxs[k])
                    model->maxs[k] = b->maxs[k] + c->grow_hi[k];
            }
        }
        if (model->brush_count == 0) al_set(0, 0, 0, model->mins), al_set(0, 0, 0, model->maxs);
        for (int k = 0; k < 3; k++) {
            model->reach_mins[k] = model->mins[k] - 1.0;
            model->reach_maxs[k] = model->maxs[k] + 1.0;
        }
        long long cells = 1;
        for (int k = 0; k < 3; k++) {
            int lo = (int) floor(model->mins[k] / block_size);
            int hi = (int) ceil(model->maxs[k] / block_size);
            if (hi <= lo) hi = lo + 1;
            model->grid_origin[k] = lo;
            model->grid_dims[k] = hi - lo;
            cells *= hi - lo;
        }
        if (cells > MAX_BLOCKS) {
            al_diag_add(&w->diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, model->entity, -1, -1, -1, -1,
                        "the model needs %lld blocks of %g units; at most %d are supported", cells,
                        block_size, MAX_BLOCKS);
            return AL_ERR_LIMIT;
        }
        model->block_count = (int) cells;
        model->inv_block_size = 1.0 / block_size;
        model->blocks = calloc((size_t) cells, sizeof *model->blocks);
        if (!model->blocks) return AL_ERR_NOMEM;
        for (int z = 0; z < model->grid_dims[2]; z++)
            for (int y = 0; y < model->grid_dims[1]; y++)
                for (int x = 0; x < model->grid_dims[0]; x++) {
                    al_block *b = &model->blocks[al_model_block_index(model, x, y, z)];
                    int g[3] = {x, y, z};
                    b->subcells = m == 0 ? c->subcells : 1;
                    for (int k = 0; k < 3; k++) {
                        b->mins[k] = (model->grid_origin[k] + g[k]) * block_size;
                        b->cell_mins[k] = b->mins[k];
                        b->maxs[k] = b->mins[k] + block_size;
                        if (g[k] == 0) b->mins[k] = -AL_MODEL_OUTER;
                        if (g[k] == model->grid_dims[k] - 1) b->maxs[k] = AL_MODEL_OUTER;
                    }
                }
        c->total_blocks += (int) cells;
    }
    w->stats.blocks = c->total_blocks;
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Marks as dirty the world blocks, and their sub-cells, that brush B of the world model
 * (this compile's or PREV's) overlaps grown by every hull. */
static void mark_brush_dirty(compile_state *c, const al_brush *b)
{
    const al_model *m0 = &c->world->models[0];
    int lo[3], hi[3];
    brush_block_range(m0, c->block_size, b, c->grow_lo, c->grow_hi, lo, hi);
    mark_range(m0, lo, hi, c->dirty);
    if (c->subcells > 1) mark_subcells(m0, c->block_size, b, c->grow_lo, c->grow_hi, c->sub_dirty);
}

/* Whether the brushes A and B (hint or liquid) are the same: the same planes (a world's
 * plane table extends its predecessor's, so a brush built again gets its planes' indices)
 * with the same materials' flags, in order. */
static bool same_vis_brush(const al_brush *a, const al_brush *b)
{
    if (a->side_count != b->side_count) return false;
    for (int s = 0; s < a->side_count; s++)
        if (a->sides[s].plane != b->sides[s].plane ||
            a->sides[s].material_flags != b->sides[s].material_flags)
            return false;
    return true;
}

/* Marks dirty the world blocks (not their sub-cells: these are not collision geometry)
 * that a brush of PREV_LIST and not of LIST, or the other way, overlaps: their vis trees
 * are built again, their collision trees copied. Hint and liquid brushes are few (tens in
 * a map), so they are matched pairwise. False if memory runs out. */
static bool mark_vis_brushes_dirty(compile_state *c, al_brush *const *list, int count,
                                   al_brush *const *prev_list, int prev_count)
{
    const al_model *m0 = &c->world->models[0];
    bool *taken = calloc((size_t) prev_count + 1, sizeof *taken);
    if (!taken) return false;
    const double zero[3] = {0, 0, 0};
    int lo[3], hi[3];
    for (int i = 0; i < count; i++) {
        int j = 0;
        while (j < prev_count && (taken[j] || !same_vis_brush(list[i], prev_list[j]))) j++;
        if (j < prev_count) {
            taken[j] = true;
            continue;
        }
        brush_block_range(m0, c->block_size, list[i], zero, zero, lo, hi);
        mark_range(m0, lo, hi, c->dirty);
    }
    for (int j = 0; j < prev_count; j++) {
        if (taken[j]) continue;
        brush_block_range(m0, c->block_size, prev_list[j], zero, zero, lo, hi);
        mark_range(m0, lo, hi, c->dirty);
    }
    free(taken);
    return true;
}

/* Marks dirty the world blocks whose vis trees the hint brushes' changes, and with opaque
 * liquids the liquids', change; every block when the liquids' opacity changed. False if
 * memory runs out. */
static bool mark_vis_dirty(compile_state *c)
{
    const al_world *w = c->world, *prev = c->prev;
    if (w->opaque_liquids != prev->opaque_liquids) {
        for (int b = 0; b < w->models[0].block_count; b++) c->dirty[b] = true;
        return true;
    }
    return mark_vis_brushes_dirty(c, w->hints, w->hint_count, prev->hints, prev->hint_count) &&
           (!w->opaque_liquids || mark_vis_brushes_dirty(c, w->liquids, w->liquid_count,
                                                         prev->liquids, prev->liquid_count));
}

/* Stage: which blocks to build. Without PREV, all. With it: a brush model whose brushes
 * are unchanged keeps all its blocks; the world model, if its grid is unchanged, rebuilds
 * only the blocks that a removed or a new brush (grown by every hull) overlaps, since only
 * their brush lists changed, and of those only the sub-cells such a brush overlaps. Reads
 * the grids, the brushes, PREV and which of its brushes were taken; writes dirty,
 * sub_dirty, prev_of_model and prev_model_taken. */
static al_status choose_blocks(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    const al_world *prev = c->prev;
    c->dirty = malloc((size_t) (c->total_blocks + 1) * sizeof *c->dirty);
    c->prev_of_model = malloc((size_t) w->model_count * sizeof *c->prev_of_model);
    c->sub_dirty = calloc((size_t) w->models[0].block_count + 1, sizeof *c->sub_dirty);
    if (!c->dirty || !c->prev_of_model || !c->sub_dirty) return AL_ERR_NOMEM;
    for (int b = 0; b < c->total_blocks; b++) c->dirty[b] = true;
    for (int m = 0; m < w->model_count; m++) c->prev_of_model[m] = -1;
    if (prev) {
        c->prev_model_taken = calloc((size_t) prev->model_count, sizeof *c->prev_model_taken);
        if (!c->prev_model_taken) return AL_ERR_NOMEM;
        const al_model *m0 = &w->models[0], *p0 = &prev->models[0];
        if (memcmp(m0->grid_origin, p0->grid_origin, sizeof m0->grid_origin) == 0 &&
            memcmp(m0->grid_dims, p0->grid_dims, sizeof m0->grid_dims) == 0) {
            c->prev_of_model[0] = 0;
            for (int b = 0; b < m0->block_count; b++) c->dirty[b] = false;
            for (int i = 0; i < prev->models[0].brush_count; i++)
                if (!al_key_pool_taken(&c->reuse, i)) mark_brush_dirty(c, prev->collision[i]);
            for (int i = 0; i < m0->brush_count; i++)
                if (c->fresh[w->collision[i]->id]) mark_brush_dirty(c, w->collision[i]);
            if (!mark_vis_dirty(c)) return AL_ERR_NOMEM;
        }
        int base = w->models[0].block_count;
        for (int m = 1; m < w->model_count; m++) {
            c->prev_of_model[m] = matching_prev_model(w, m, prev, c->prev_model_taken);
            if (c->prev_of_model[m] >= 0)
                for (int b = 0; b < w->models[m].block_count; b++) c->dirty[base + b] = false;
            base += w->models[m].block_count;
        }
    }
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: the blocks that stay are shared with PREV, the others numbered as jobs. Reads
 * dirty and prev_of_model; writes the shared blocks, job_of_block, job_total and the
 * count of blocks built (a block PREV cannot share is built after all). */
static al_status share_clean_blocks(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    c->job_of_block = malloc((size_t) (c->total_blocks + 1) * sizeof *c->job_of_block);
    if (!c->job_of_block) return AL_ERR_NOMEM;
    for (int m = 0, base = 0; m < w->model_count; base += w->models[m].block_count, m++) {
        al_model *model = &w->models[m];
        for (int b = 0; b < model->block_count; b++) {
            if (!c->dirty[base + b] &&
                !block_share(&model->blocks[b], &c->prev->models[c->prev_of_model[m]].blocks[b]))
                c->dirty[base + b] = true;
            c->job_of_block[base + b] = c->dirty[base + b] ? c->job_total++ : -1;
        }
    }
    w->stats.blocks_built = c->job_total;
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: the jobs and their work items. A world block whose predecessor has sub-cells
 * builds only its dirty ones and takes the others from it. Work items: the vis trees of
 * world blocks first (each takes as long as many sub-cells: started last, one would finish
 * alone), then the sub-cells. Reads job_of_block, sub_dirty and PREV; writes jobs (without
 * their brush lists), work, work_total, sub_work, sub_trees and the count of sub-cells
 * built. */
static al_status plan_jobs(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    const al_world *prev = c->prev;
    c->jobs = calloc((size_t) c->job_total + 1, sizeof *c->jobs);
    if (!c->jobs) return AL_ERR_NOMEM;
    for (int m = 0, base = 0; m < w->model_count; base += w->models[m].block_count, m++) {
        al_model *model = &w->models[m];
        for (int b = 0; b < model->block_count; b++) {
            int j = c->job_of_block[base + b];
            if (j < 0) continue;
            block_job *job = &c->jobs[j];
            job->model = model;
            job->block = b;
            job->input.world = w;
            job->input.build_vis = m == 0 && c->want_vis;
            /* A world block whose predecessor has sub-cells lends the clean ones. */
            const al_block *pb =
                m == 0 && c->prev_of_model[0] == 0 ? &prev->models[0].blocks[b] : NULL;
            int count =
                model->blocks[b].subcells * model->blocks[b].subcells * model->blocks[b].subcells;
            if (pb && pb->sub && pb->refs && pb->subcells == model->blocks[b].subcells) {
                job->prev = pb;
                job->dirty = c->sub_dirty[b];
            } else {
                for (int s = 0; s < count; s++) al_subcell_set_add(&job->dirty, s);
            }
            job->first_tree = c->work_total;
            job->left = al_subcell_set_count(&job->dirty);
            c->work_total += job->left;
        }
    }
    int vis_work = 0;
    c->sub_work = c->work_total;
    w->stats.subcells_built = c->sub_work;
    for (int j = 0; j < c->job_total; j++) vis_work += c->jobs[j].input.build_vis;
    c->work_total += vis_work;
    c->work = calloc((size_t) c->work_total + 1, sizeof *c->work);
    c->sub_trees = calloc((size_t) c->sub_work + 1, sizeof *c->sub_trees);
    if (!c->work || !c->sub_trees) return AL_ERR_NOMEM;
    for (int j = 0, v = 0; j < c->job_total; j++) {
        for (int s = 0, rank = 0; s < AL_MAX_SUBCELLS; s++)
            if (al_subcell_set_has(&c->jobs[j].dirty, s)) {
                int tree = c->jobs[j].first_tree + rank++;
                c->work[vis_work + tree] = (work_item){j, s, tree};
            }
        if (c->jobs[j].input.build_vis) c->work[v++] = (work_item){j, -1, -1};
    }
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Per model, the grid box around its blocks to build into c->build_box: brushes outside it
 * are passed over at once (an update builds a few blocks of thousands). An empty box has
 * [1][0] < 0. */
static bool find_build_boxes(compile_state *c)
{
    const al_world *w = c->world;
    c->build_box = malloc(((size_t) w->model_count + 1) * sizeof *c->build_box);
    if (!c->build_box) return false;
    for (int m = 0, base = 0; m < w->model_count; base += w->models[m].block_count, m++) {
        const al_model *model = &w->models[m];
        int(*box)[3] = c->build_box[m];
        for (int k = 0; k < 3; k++) box[0][k] = INT32_MAX, box[1][k] = -1;
        for (int z = 0; z < model->grid_dims[2]; z++)
            for (int y = 0; y < model->grid_dims[1]; y++)
                for (int x = 0; x < model->grid_dims[0]; x++) {
                    if (c->job_of_block[base + al_model_block_index(model, x, y, z)] < 0) continue;
                    int g[3] = {x, y, z};
                    for (int k = 0; k < 3; k++) {
                        if (g[k] < box[0][k]) box[0][k] = g[k];
                        if (g[k] > box[1][k]) box[1][k] = g[k];
                    }
                }
    }
    return true;
}

/* Stage: per job, one brush list per hull, and for the world model's point-hull trees one
 * of the brushes that block sight and one of those that block light: the expanded brushes
 * that overlap the job's block, expanded now where the world has no copy yet. Counted in
 * a first pass, filled in a second. Reads the grids, job_of_block and the collision
 * brushes; writes build_box, block_lists, list_count, the jobs' lists and the world's
 * expanded brushes and planes. */
static al_status fill_block_lists(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    int hull_count = c->hull_count;
    int lists = hull_count + 2;
    c->block_lists = calloc((size_t) c->job_total * lists + 1, sizeof *c->block_lists);
    if (!c->block_lists) return AL_ERR_NOMEM;
    c->list_count = c->job_total * lists;
    if (!find_build_boxes(c)) return AL_ERR_NOMEM;
    /* A brush whose range grown by the widest hull (c->grow_lo, c->grow_hi) misses a
     * model's build box is in none of its lists: an update on a big map builds a few
     * blocks, and most brushes are passed over by this one test instead of one per list. */
    int most = 0;
    for (int m = 0; m < w->model_count; m++)
        if (w->models[m].brush_count > most) most = w->models[m].brush_count;
    int *near = c->near_brushes = malloc(((size_t) most + 1) * sizeof *near);
    if (!near) return AL_ERR_NOMEM;
    for (int pass = 0; pass < 2; pass++) {
        int block_base = 0;
        for (int m = 0; m < w->model_count; m++) {
            al_model *model = &w->models[m];
            const int(*box)[3] = (const int(*)[3]) c->build_box[m];
            if (box[1][0] < 0) {
                block_base += model->block_count;
                continue;
            }
            int near_count = 0;
            for (int i = model->first_brush; i < model->first_brush + model->brush_count; i++) {
                int lo[3], hi[3];
                brush_block_range(model, c->block_size, w->collision[i], c->grow_lo, c->grow_hi, lo,
                                  hi);
                bool meets = true;
                for (int k = 0; k < 3 && meets; k++)
                    meets = lo[k] <= box[1][k] && hi[k] >= box[0][k];
                if (meets) near[near_count++] = i;
            }
            for (int h = 0; h < lists; h++)
                for (int n = 0; (h < hull_count || c->want_vis) && n < near_count; n++) {
                    int i = near[n];
                    int kind = h - hull_count; /* 0: vis list, 1: light list, < 0: a hull */
                    if (kind == 0 && (m != 0 || !al_brush_blocks_sight(w->collision[i]))) continue;
                    if (kind == 1 && (m != 0 || !al_brush_blocks_light(w->collision[i]))) continue;
                    int eh = kind >= 0 ? 0 : h;
                    int lo[3], hi[3];
                    double lo_grow[3], hi_grow[3];
                    for (int k = 0; k < 3; k++) {
                        lo_grow[k] = -w->hulls[eh].maxs[k];
                        hi_grow[k] = -w->hulls[eh].mins[k];
                    }
                    brush_block_range(model, c->block_size, w->collision[i], lo_grow, hi_grow, lo,
                                      hi);
                    for (int k = 0; k < 3; k++) {
                        if (lo[k] < box[0][k]) lo[k] = box[0][k];
                        if (hi[k] > box[1][k]) hi[k] = box[1][k];
                    }
                    for (int z = lo[2]; z <= hi[2]; z++)
                        for (int y = lo[1]; y <= hi[1]; y++)
                            for (int x = lo[0]; x <= hi[0]; x++) {
                                int j = c->job_of_block[block_base +
                                                        al_model_block_index(model, x, y, z)];
                                if (j < 0) continue;
                                al_brush *e = expanded_brush(c, eh, i);
                                if (!e) return AL_ERR_NOMEM;
                                al_brush ***list;
                                int *count;
                                block_list(&c->jobs[j].input, kind, h, &list, &count);
                                if (pass == 1) (*list)[*count] = e;
                                (*count)++;
                            }
                }
            block_base += model->block_count;
        }
        if (pass == 0) {
            for (int j = 0; j < c->job_total; j++)
                for (int h = 0; h < lists; h++) {
                    al_brush ***list;
                    int *count;
                    block_list(&c->jobs[j].input, h - hull_count, h, &list, &count);
                    al_brush **items = malloc((size_t) (*count + 1) * sizeof(al_brush *));
                    if (!items) return AL_ERR_NOMEM;
                    c->block_lists[j * lists + h] = items;
                    *list = items;
                    *count = 0;
                }
        }
    }
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: the work items on every worker, each job's block joined from its sub-cells by the
 * worker that built the last of them (or here, for a job with none to build). Reads the
 * jobs, work and the workers' scratch; writes the blocks' trees and open cells, and the
 * world's summed CPU times. */
static al_status build_blocks(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    compile_context context = {.jobs = c->jobs,
                               .work = c->work,
                               .trees = c->sub_trees,
                               .subcell_size = c->subcell_size,
                               .hull_count = c->hull_count,
                               .arenas = c->workers.arenas,
                               .scratch = c->workers.scratch};
    al_parallel_for(c->work_total, c->threads, run_work_item, &context);
    for (int j = 0; j < c->job_total; j++) /* those with no sub-cell to build */
        if (!c->jobs[j].assembled) assemble(&context, &c->jobs[j]);
    for (int i = 0; i < c->sub_work; i++) al_subcell_trees_free(&c->sub_trees[i]);
    if (context.failed) return AL_ERR_NOMEM;
    for (int j = 0; j < c->job_total; j++) {
        const al_block *blk = &c->jobs[j].model->blocks[c->jobs[j].block];
        w->stats.ms_csg_cpu += blk->stats.ms_csg;
        w->stats.ms_map_trees_cpu += blk->stats.ms_map_trees;
        w->stats.ms_onion_cpu += blk->stats.ms_onion;
    }
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: each model's top tree over its blocks with every node's masks, and the index of
 * brush models for traces; the world's own store is dropped if this compile put nothing
 * into it (a chain of updates that only copy brushes then does not grow its list of
 * stores). Reads the blocks; writes the models' top trees, the world's stores and its
 * model index. */
static al_status join_models(compile_state *c)
{
    uint64_t t0 = al_clock_ns();
    al_world *w = c->world;
    uint32_t all = c->hull_count >= 32 ? 0xffffffffu : (1u << c->hull_count) - 1u;
    for (int m = 0; m < w->model_count; m++) {
        al_model *model = &w->models[m];
        model->top.nodes = calloc((size_t) model->block_count, sizeof *model->top.nodes);
        if (!model->top.nodes) return AL_ERR_NOMEM;
        int32_t used = 0;
        int lo[3] = {0, 0, 0};
        model->top.root = build_top(model, c->block_size, lo, model->grid_dims, &used);
        model->top.node_count = used;
        uint32_t s, e;
        top_masks(model, model->top.root, all, &s, &e);
    }
    if (al_arena_used(c->own) == 0 && w->store_count > 1) {
        al_expanded_store_release(w->stores[w->store_count - 1]);
        w->store_count--;
    }
    if (!al_world_index_models(w)) return AL_ERR_NOMEM;
    w->stats.ms_blocks += al_clock_ms_since(t0);
    return AL_OK;
}

/* Stage: the world model's portals, leak and PVS, unless the options ask for none. Reads
 * the input and the world; writes the world's visibility. */
static al_status build_visibility(compile_state *c)
{
    if (!c->want_vis) return AL_OK;
    al_pvs_level level = c->options ? c->options->pvs : AL_PVS_TIGHT;
    return al_world_build_vis(c->world, c->input, level, c->threads) == AL_OK ? AL_OK
                                                                              : AL_ERR_NOMEM;
}

/* Stage: the world's remaining statistics (sums over its trees, the total time). */
static al_status finish_stats(compile_state *c)
{
    al_world *w = c->world;
    w->stats.entities = c->input->entity_count;
    w->stats.models = w->model_count;
    w->stats.planes = w->planes.count;
    sum_stats(w);
    w->stats.ms_total = al_clock_ms_since(c->t_start);
    return AL_OK;
}

/* Frees what the stages made for the build (not the world). */
static void free_compile_state(compile_state *c)
{
    if (c->block_lists) {
        for (int i = 0; i < c->list_count; i++) free(c->block_lists[i]);
        free(c->block_lists);
    }
    free(c->jobs);
    free(c->from_of);
    free(c->model_of_entity);
    free(c->keys);
    free(c->valid);
    free(c->fresh);
    free(c->job_of_block);
    free(c->dirty);
    free(c->sub_dirty);
    free(c->work);
    free(c->sub_trees);
    free(c->prev_model_taken);
    free(c->prev_of_model);
    free(c->build_box);
    free(c->near_brushes);
    al_key_pool_free(&c->reuse);
    workers_free(&c->workers);
    al_expanded_store_release(c->store);
}

/* The pipeline of al_world_compile and al_world_update: with PREV, brushes whose content
 * key matches one of PREV's are copied instead of built, and blocks none of whose brush
 * lists changed are shared with PREV instead of built. It runs the stages in order, stops
 * at the first that fails, and frees what they made; a failed compile's world is
 * destroyed. */
static al_status compile_world(const al_world *prev, const al_input *input,
                               const al_compile_options *options, al_world **out,
                               al_diag_list *diags)
{
    compile_state c = {.input = input, .options = options, .prev = prev, .t_start = al_clock_ns()};
    *out = NULL;
    al_status st = check_input(&c, diags);
    if (st != AL_OK) return st;
    st = start_world(&c);
    if (st == AL_OK) st = build_brushes(&c);
    if (st == AL_OK) st = expand_brushes(&c);
    if (st == AL_OK) st = lay_out_grids(&c);
    if (st == AL_OK) st = choose_blocks(&c);
    if (st == AL_OK) st = share_clean_blocks(&c);
    if (st == AL_OK) st = plan_jobs(&c);
    if (st == AL_OK) st = fill_block_lists(&c);
    if (st == AL_OK) st = build_blocks(&c);
    if (st == AL_OK) st = join_models(&c);
    if (st == AL_OK) st = build_visibility(&c);
    if (st == AL_OK) st = finish_stats(&c);
    if (st != AL_OK) {
        /* Running out of memory is a diagnostic too, once there is a world. */
        if (st == AL_ERR_NOMEM && c.world)
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                        "out of memory while compiling");
        al_world_destroy(c.world);
        c.world = NULL;
    }
    free_compile_state(&c);
    *out = c.world;
    return st;
}

al_status al_world_compile(const al_input *input, const al_compile_options *options, al_world **out,
                           al_diag_list *diags)
{
    return compile_world(NULL, input, options, out, diags);
}

al_status al_world_update(const al_world *prev, const al_input *input,
                          const al_compile_options *options, al_world **out,
                          al_diag_list *diags)
{
    return compile_world(prev, input, options, out, diags);
}
