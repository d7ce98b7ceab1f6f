/* The split planes of one block's onion tree as polygons, for the editor's overlay
 * (al-world.h). */
#include "geom/winding.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_MAX_POINTS 64 /* a node's polygon: 4 base points plus one a clip */
#define SPLIT_EPS 1e-6

typedef struct half_space {
    double normal[3], dist; /* keep the side: normal . p - dist >= 0 */
} half_space;

typedef struct collector {
    al_block_splits *out;
    int cap_polys, cap_points;
    bool failed;
} collector;

static bool push_polygon(collector *c, const double (*points)[3], int count, int depth)
{
    al_block_splits *s = c->out;
    if (s->count + 1 >= c->cap_polys) {
        int cap = c->cap_polys ? c->cap_polys * 2 : 256;
        int *first = realloc(s->first, (size_t) (cap + 1) * sizeof *first);
        if (first) s->first = first;
        int *depths = realloc(s->depth, (size_t) cap * sizeof *depths);
        if (depths) s->depth = depths;
        if (!first || !depths) return false;
        c->cap_polys = cap;
    }
    int used = s->count ? s->first[s->count] : 0;
    if (used + count > c->cap_points) {
        int cap = c->cap_points ? c->cap_points * 2 : 1024;
        while (cap < used + count) cap *= 2;
        double (*points2)[3] = realloc(s->points, (size_t) cap * sizeof *points2);
        if (!points2) return false;
        s->points = points2;
        c->cap_points = cap;
    }
    if (s->count == 0) s->first[0] = 0;
    memcpy(s->points + used, points, (size_t) count * sizeof *points);
    s->depth[s->count] = depth;
    s->count++;
    s->first[s->count] = used + count;
    return true;
}

/* Node CODE of TREE at DEPTH below the half-spaces SIDES[0..N-1]. */
static void collect(collector *c, const al_tree *tree, int32_t code, half_space *sides, int n,
                    int depth)
{
    if (code < 0 || c->failed) return;
    const al_node *node = &tree->nodes[code];
    double a[SPLIT_MAX_POINTS][3], b[SPLIT_MAX_POINTS][3];
    al_points_base(node->normal, node->dist, a);
    int count = 4;
    for (int i = 0; i < n && count > 0; i++) {
        count = al_points_clip((const double (*)[3]) a, count, sides[i].normal, sides[i].dist,
                               SPLIT_EPS, true, b, SPLIT_MAX_POINTS);
        if (count > 0) memcpy(a, b, (size_t) count * sizeof *a);
    }
    if (count >= 3 && !push_polygon(c, (const double (*)[3]) a, count, depth)) {
        c->failed = true;
        return;
    }
    if (n + 1 >= 512) return; /* deeper than any real tree: its planes are not drawn */
    for (int side = 0; side < 2; side++) {
        double sign = side == 0 ? 1 : -1;
        for (int k = 0; k < 3; k++) sides[n].normal[k] = sign * node->normal[k];
        sides[n].dist = sign * node->dist;
        collect(c, tree, node->child[side], sides, n + 1, depth + 1);
    }
}

al_status al_world_block_splits(const al_world *world, const double p[3], al_block_splits *out)
{
    memset(out, 0, sizeof *out);
    out->block = -1;
    if (world->model_count == 0) return AL_OK;
    const al_model *m = &world->models[0];
    if (m->block_count == 0 || m->brush_count == 0) return AL_OK;
    for (int k = 0; k < 3; k++)
        if (!(p[k] >= m->reach_mins[k] && p[k] <= m->reach_maxs[k])) return AL_OK;
    int b = al_model_box_block(m, p, p);
    if (b < 0) {
        /* On a grid plane: the block on its lower side. */
        int c[3];
        for (int k = 0; k < 3; k++) c[k] = al_model_grid_coord(m, k, p[k]);
        b = al_model_block_index(m, c[0], c[1], c[2]);
    }
    const al_block *block = &m->blocks[b];
    out->block = b;
    /* The block's box, cut to the model's reach: outer blocks run to infinity. */
    half_space *sides = malloc(512 * sizeof *sides);
    if (!sides) return AL_ERR_NOMEM;
    for (int k = 0; k < 3; k++) {
        out->mins[k] = fmax(block->mins[k], m->reach_mins[k]);
        out->maxs[k] = fmin(block->maxs[k], m->reach_maxs[k]);
        half_space lo = {{0, 0, 0}, out->mins[k]}, hi = {{0, 0, 0}, -out->maxs[k]};
        lo.normal[k] = 1;
        hi.normal[k] = -1;
        sides[2 * k] = lo;
        sides[2 * k + 1] = hi;
    }
    collector c = {.out = out};
    collect(&c, &block->onion, block->onion.root, sides, 6, 0);
    free(sides);
    if (c.failed) {
        al_block_splits_free(out);
        return AL_ERR_NOMEM;
    }
    return AL_OK;
}

void al_block_splits_free(al_block_splits *s)
{
    if (!s) return;
    free(s->first);
    free(s->points);
    free(s->depth);
    memset(s, 0, sizeof *s);
    s->block = -1;
}
