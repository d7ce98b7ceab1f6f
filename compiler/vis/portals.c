/* Portals between the empty leaves of the vis trees (see vis.h).
 *
 * Workload: e1m1 has about 40 blocks and a few thousand portals; blocks run in parallel,
 * each into its own list, merged in block order so the result does not depend on timing.
 * After an edit, a block whose vis tree and whose lower neighbours' are the previous
 * world's (shared, al_world_update) has the same portals: they are copied, their leaves
 * renumbered, and only the other blocks are built.
 */
#include "vis.h"

#include "al-parallel.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <stdlib.h>
#include <string.h>

/* Portals thinner than this (area in square units) carry no line of sight worth the
 * numerical trouble: slivers where two planes meet at a grazing angle. */
#define MIN_PORTAL_AREA 1e-6

bool al_vis_fragment_add(al_vis_fragments *v, int32_t leaf, al_winding *w)
{
    if (v->count == v->capacity) {
        int capacity = v->capacity ? v->capacity * 2 : 64;
        al_vis_fragment *items = realloc(v->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->count++] = (al_vis_fragment){leaf, w};
    return true;
}

bool al_vis_push(al_arena *arena, const al_tree *tree, int32_t code, al_winding *w,
                 const double toward[3], al_vis_fragments *out)
{
    while (code >= 0) {
        const al_node *n = &tree->nodes[code];
        al_winding *front, *back;
        int side = al_winding_split(arena, w, n->normal, n->dist, AL_ON_EPSILON, &front, &back);
        if (side < 0) return false;
        if (side == AL_SIDE_ON) {
            code = n->child[al_dot(n->normal, toward) > 0 ? 0 : 1];
            continue;
        }
        if (front && back) {
            if (!al_vis_push(arena, tree, n->child[1], back, toward, out)) return false;
            code = n->child[0];
            w = front;
            continue;
        }
        code = n->child[front ? 0 : 1];
    }
    int32_t leaf = -1 - code;
    if (tree->leaves[leaf] & 1u) return true;
    return al_vis_fragment_add(out, leaf, w);
}

typedef struct block_result {
    al_arena *arena; /* the block's portal windings */
    al_portal *portals;
    int portal_count, portal_capacity;
    al_vis_fragments border; /* leaf: global; winding: the piece of the outer box */
    bool copied;             /* from the previous world: its leaves' border marks too */
    bool failed;
} block_result;

typedef struct portal_job {
    const al_world *world;
    const al_model *model;
    const int32_t *leaf_base;
    block_result *results;
    al_arena **scratch; /* per worker */
    const al_vis *previous;   /* with its blocks' portal ranges, or NULL */
    const uint8_t *copy;      /* per block: copy its portals from PREVIOUS */
} portal_job;

static bool add_portal(block_result *r, int block, int32_t front_leaf, int32_t back_leaf,
                       const double normal[3], double dist, const al_winding *w)
{
    if (w->count < 3 || al_winding_area(w) < MIN_PORTAL_AREA) return true;
    if (r->portal_count == r->portal_capacity) {
        int capacity = r->portal_capacity ? r->portal_capacity * 2 : 64;
        al_portal *p = realloc(r->portals, (size_t) capacity * sizeof *p);
        if (!p) return false;
        r->portals = p;
        r->portal_capacity = capacity;
    }
    al_winding *copy = al_winding_copy(r->arena, w);
    if (!copy) return false;
    al_portal *p = &r->portals[r->portal_count++];
    p->leaf[0] = front_leaf;
    p->leaf[1] = back_leaf;
    p->block = block;
    al_copy(normal, p->normal);
    p->dist = dist;
    p->winding = copy;
    return true;
}

/* Ancestor half-spaces of the node being visited: the node's cell is the block's box cut
 * by these. */
typedef struct half_space {
    double normal[3];
    double dist;
} half_space;

#define MAX_CLIP_POINTS 256

/* The node's plane as a polygon clipped to its cell. */
static al_winding *node_polygon(al_arena *arena, const al_node *n, const al_block *b,
                                const half_space *cell, int depth)
{
    double buffer[2][MAX_CLIP_POINTS][3];
    al_points_base(n->normal, n->dist, (double (*)[3]) buffer[0]);
    int count = 4, cur = 0;
    for (int k = 0; k < 6 + depth && count > 0; k++) {
        double normal[3] = {0, 0, 0}, dist;
        if (k < 6) {
            /* Keep the inside of the block box: behind each outward face. */
            normal[k % 3] = k < 3 ? 1.0 : -1.0;
            dist = k < 3 ? b->maxs[k % 3] : -b->mins[k % 3];
        } else {
            al_copy(cell[k - 6].normal, normal);
            dist = cell[k - 6].dist;
            /* Cell constraints keep the front; flip them to keep-behind form. */
            al_scale(normal, -1.0, normal);
            dist = -dist;
        }
        count = al_points_clip((const double (*)[3]) buffer[cur], count, normal, dist,
                               AL_ON_EPSILON, false, buffer[1 - cur], MAX_CLIP_POINTS);
        if (count < 0) return NULL; /* cannot happen for a convex cell; treated as empty */
        cur = 1 - cur;
    }
    if (count < 3) return NULL;
    return al_winding_from_points(arena, (const double (*)[3]) buffer[cur], count);
}

/* Interior portals of the subtree at CODE. */
static bool tree_portals(al_arena *arena, const al_tree *tree, const al_block *b, int block,
                         int32_t base, int32_t code, half_space *cell, int depth,
                         block_result *r)
{
    if (code < 0) return true;
    const al_node *n = &tree->nodes[code];
    al_arena_mark mark = al_arena_get_mark(arena);
    bool ok = true;
    al_vis_fragments front = {0}, back = {0};
    al_winding *w = depth < 4000 ? node_polygon(arena, n, b, cell, depth) : NULL;
    if (w) {
        double into_front[3], into_back[3];
        al_copy(n->normal, into_front);
        al_scale(n->normal, -1.0, into_back);
        ok = al_vis_push(arena, tree, n->child[0], w, into_front, &front);
        for (int i = 0; ok && i < front.count; i++) {
            back.count = 0;
            ok = al_vis_push(arena, tree, n->child[1], front.items[i].winding, into_back, &back);
            for (int j = 0; ok && j < back.count; j++)
                ok = add_portal(r, block, base + front.items[i].leaf, base + back.items[j].leaf,
                                n->normal, n->dist, back.items[j].winding);
        }
    }
    free(front.items);
    free(back.items);
    al_arena_release(arena, mark);
    if (!ok) return false;
    for (int c = 0; c < 2; c++) {
        al_copy(n->normal, cell[depth].normal);
        cell[depth].dist = n->dist;
        if (c == 1) {
            al_scale(cell[depth].normal, -1.0, cell[depth].normal);
            cell[depth].dist = -n->dist;
        }
        if (depth + 1 < 4000 &&
            !tree_portals(arena, tree, b, block, base, n->child[c], cell, depth + 1, r))
            return false;
    }
    return true;
}

/* The face of block B's box on AXIS at its low (SIDE 0) or high (SIDE 1) end, as a
 * polygon facing along the axis. */
static al_winding *box_face(al_arena *arena, const al_block *b, int axis, int side)
{
    double normal[3] = {0, 0, 0};
    normal[axis] = 1.0;
    double dist = side ? b->maxs[axis] : b->mins[axis];
    double pts[4][3];
    al_points_base(normal, dist, pts);
    double buffer[2][16][3];
    memcpy(buffer[0], pts, sizeof pts);
    int count = 4, cur = 0;
    for (int k = 0; k < 3; k++) {
        if (k == axis) continue;
        for (int s = 0; s < 2; s++) {
            double n[3] = {0, 0, 0};
            n[k] = s ? 1.0 : -1.0;
            double d = s ? b->maxs[k] : -b->mins[k];
            count = al_points_clip((const double (*)[3]) buffer[cur], count, n, d, 0, false,
                                   buffer[1 - cur], 16);
            cur = 1 - cur;
        }
    }
    if (count < 3) return NULL;
    return al_winding_from_points(arena, (const double (*)[3]) buffer[cur], count);
}

bool al_vis_same_tree(const al_tree *a, const al_tree *b)
{
    return a->nodes == b->nodes && a->leaves == b->leaves && a->node_count == b->node_count &&
           a->leaf_count == b->leaf_count && a->root == b->root;
}

/* Block INDEX's portals copied from the previous world, leaves renumbered. */
static bool copy_block(portal_job *job, int index, block_result *r)
{
    const al_vis *prev = job->previous;
    for (int32_t i = prev->block_portal_first[index]; i < prev->block_portal_first[index + 1]; i++) {
        const al_portal *p = &prev->portals[i];
        int32_t leaf[2];
        for (int s = 0; s < 2; s++) {
            int blk = al_vis_block_of_leaf(prev, p->leaf[s]);
            leaf[s] = job->leaf_base[blk] + (p->leaf[s] - prev->leaf_base[blk]);
        }
        if (!add_portal(r, index, leaf[0], leaf[1], p->normal, p->dist, p->winding)) return false;
    }
    r->copied = true;
    return true;
}

static void run_block(void *context, int index, int worker)
{
    portal_job *job = context;
    const al_model *m = job->model;
    const al_block *b = &m->blocks[index];
    block_result *r = &job->results[index];
    if (job->copy && job->copy[index]) {
        r->arena = al_arena_create(64 * 1024);
        if (!r->arena || !copy_block(job, index, r)) r->failed = true;
        return;
    }
    al_arena *arena = job->scratch[worker];
    al_arena_mark mark = al_arena_get_mark(arena);
    r->arena = al_arena_create(64 * 1024);
    half_space *cell = malloc(4000 * sizeof *cell);
    al_vis_fragments mine = {0}, theirs = {0};
    bool ok = r->arena && cell;
    int32_t base = job->leaf_base[index];
    if (ok) ok = tree_portals(arena, &b->vis, b, index, base, b->vis.root, cell, 0, r);

    int grid[3];
    int rest = index;
    grid[0] = rest % m->grid_dims[0];
    rest /= m->grid_dims[0];
    grid[1] = rest % m->grid_dims[1];
    grid[2] = rest / m->grid_dims[1];
    for (int axis = 0; ok && axis < 3; axis++) {
        double inward[3] = {0, 0, 0}, outward[3] = {0, 0, 0};
        inward[axis] = 1.0;
        outward[axis] = -1.0;
        /* The lower face: a portal face to the block below, or the outer box. */
        al_winding *face = box_face(arena, b, axis, 0);
        mine.count = 0;
        if (face) ok = al_vis_push(arena, &b->vis, b->vis.root, face, inward, &mine);
        if (ok && grid[axis] > 0) {
            int lower[3] = {grid[0], grid[1], grid[2]};
            lower[axis]--;
            int nb = al_model_block_index(m, lower[0], lower[1], lower[2]);
            const al_block *below = &m->blocks[nb];
            for (int i = 0; ok && i < mine.count; i++) {
                theirs.count = 0;
                ok = al_vis_push(arena, &below->vis, below->vis.root, mine.items[i].winding,
                               outward, &theirs);
                for (int j = 0; ok && j < theirs.count; j++)
                    ok = add_portal(r, index, base + mine.items[i].leaf,
                                    job->leaf_base[nb] + theirs.items[j].leaf, inward,
                                    b->mins[axis], theirs.items[j].winding);
            }
        } else {
            for (int i = 0; ok && i < mine.count; i++)
                ok = al_vis_fragment_add(&r->border, base + mine.items[i].leaf,
                                   al_winding_copy(r->arena, mine.items[i].winding)) &&
                     r->border.items[r->border.count - 1].winding;
        }
        /* The upper face, where it is the outer box. */
        if (ok && grid[axis] == m->grid_dims[axis] - 1) {
            face = box_face(arena, b, axis, 1);
            mine.count = 0;
            if (face) ok = al_vis_push(arena, &b->vis, b->vis.root, face, outward, &mine);
            for (int i = 0; ok && i < mine.count; i++)
                ok = al_vis_fragment_add(&r->border, base + mine.items[i].leaf,
                                   al_winding_copy(r->arena, mine.items[i].winding)) &&
                     r->border.items[r->border.count - 1].winding;
        }
    }
    free(mine.items);
    free(theirs.items);
    free(cell);
    al_arena_release(arena, mark);
    if (!ok) r->failed = true;
}

/* Which blocks of W can take their portals from PREVIOUS (into COPY): those whose vis
 * tree and whose lower neighbours' are PREVIOUS's, in the same grid. Returns how many. */
static int plan_copies(const al_world *w, const al_world *previous, uint8_t *copy)
{
    const al_model *m = &w->models[0];
    memset(copy, 0, (size_t) m->block_count);
    if (!previous || !previous->vis || !previous->vis->block_portal_first) return 0;
    const al_model *pm = &previous->models[0];
    if (pm->block_count != m->block_count || previous->vis->block_count != m->block_count ||
        memcmp(pm->grid_dims, m->grid_dims, sizeof m->grid_dims) != 0 ||
        memcmp(pm->grid_origin, m->grid_origin, sizeof m->grid_origin) != 0)
        return 0;
    int n = 0;
    for (int b = 0; b < m->block_count; b++) {
        if (!al_vis_same_tree(&m->blocks[b].vis, &pm->blocks[b].vis)) continue;
        int grid[3], rest = b;
        grid[0] = rest % m->grid_dims[0];
        rest /= m->grid_dims[0];
        grid[1] = rest % m->grid_dims[1];
        grid[2] = rest / m->grid_dims[1];
        bool same = true;
        for (int axis = 0; axis < 3 && same; axis++) {
            if (grid[axis] == 0) continue;
            int lower[3] = {grid[0], grid[1], grid[2]};
            lower[axis]--;
            int nb = al_model_block_index(m, lower[0], lower[1], lower[2]);
            same = al_vis_same_tree(&m->blocks[nb].vis, &pm->blocks[nb].vis);
        }
        copy[b] = same;
        n += same;
    }
    return n;
}

int al_vis_portals(al_world *w, al_vis *vis, const al_world *previous)
{
    const al_model *m = &w->models[0];
    int blocks = m->block_count;
    int threads = vis->stats.threads > 0 ? vis->stats.threads : al_cpu_count();
    block_result *results = calloc((size_t) blocks, sizeof *results);
    al_arena **scratch = calloc((size_t) threads, sizeof *scratch);
    uint8_t *copy = malloc((size_t) blocks + 1);
    int status = -1;
    if (!results || !scratch || !copy) goto done;
    for (int t = 0; t < threads; t++)
        if (!(scratch[t] = al_arena_create(0))) goto done;

    vis->blocks_copied = plan_copies(w, previous, copy);
    vis->stats.portal_blocks_copied = vis->blocks_copied;
    vis->block_copied = copy;
    portal_job job = {.world = w, .model = m, .leaf_base = vis->leaf_base, .results = results,
                      .scratch = scratch, .previous = vis->blocks_copied ? previous->vis : NULL,
                      .copy = vis->blocks_copied ? copy : NULL};
    al_parallel_for(blocks, threads, run_block, &job);

    int64_t total = 0;
    for (int b = 0; b < blocks; b++) {
        if (results[b].failed) goto done;
        total += results[b].portal_count;
    }
    if (total > INT32_MAX / 2) goto done;
    vis->portals = malloc((size_t) (total + 1) * sizeof *vis->portals);
    vis->block_portal_first = malloc(((size_t) blocks + 1) * sizeof *vis->block_portal_first);
    if (!vis->portals || !vis->block_portal_first) goto done;
    for (int b = 0; b < blocks; b++) {
        vis->block_portal_first[b] = vis->portal_count;
        if (results[b].portal_count)
            memcpy(vis->portals + vis->portal_count, results[b].portals,
                   (size_t) results[b].portal_count * sizeof *vis->portals);
        vis->portal_count += results[b].portal_count;
        if (results[b].copied) {
            /* Its leaves touch the outer box where they did. */
            const al_vis *pv = previous->vis;
            for (int32_t l = 0; l < m->blocks[b].vis.leaf_count; l++) {
                int32_t pl = pv->leaf_base[b] + l, nl = vis->leaf_base[b] + l;
                if (!(pv->leaf_flags[pl] & AL_VLEAF_BORDER)) continue;
                vis->leaf_flags[nl] |= AL_VLEAF_BORDER;
                memcpy(vis->border_point[nl], pv->border_point[pl], sizeof vis->border_point[nl]);
            }
        }
        for (int i = 0; i < results[b].border.count; i++) {
            const al_vis_fragment *f = &results[b].border.items[i];
            if (!(vis->leaf_flags[f->leaf] & AL_VLEAF_BORDER))
                al_winding_center(f->winding, vis->border_point[f->leaf]);
            vis->leaf_flags[f->leaf] |= AL_VLEAF_BORDER;
        }
    }
    vis->block_portal_first[blocks] = vis->portal_count;
    /* Windings stay in the blocks' arenas, which the vis keeps. */
    vis->block_arenas = malloc((size_t) blocks * sizeof *vis->block_arenas);
    if (!vis->block_arenas) goto done;
    for (int b = 0; b < blocks; b++) {
        vis->block_arenas[b] = results[b].arena;
        results[b].arena = NULL;
    }

    /* Portals of each leaf. */
    vis->leaf_portal_first = calloc((size_t) vis->leaf_count + 1, sizeof(int32_t));
    vis->leaf_portals = malloc((size_t) (2 * vis->portal_count + 1) * sizeof(int32_t));
    if (!vis->leaf_portal_first || !vis->leaf_portals) goto done;
    for (int i = 0; i < vis->portal_count; i++)
        for (int s = 0; s < 2; s++) vis->leaf_portal_first[vis->portals[i].leaf[s] + 1]++;
    for (int l = 0; l < vis->leaf_count; l++)
        vis->leaf_portal_first[l + 1] += vis->leaf_portal_first[l];
    int32_t *fill = malloc((size_t) (vis->leaf_count + 1) * sizeof *fill);
    if (!fill) goto done;
    memcpy(fill, vis->leaf_portal_first, (size_t) vis->leaf_count * sizeof *fill);
    for (int i = 0; i < vis->portal_count; i++)
        for (int s = 0; s < 2; s++) vis->leaf_portals[fill[vis->portals[i].leaf[s]]++] = i;
    free(fill);
    status = 0;

done:
    if (results)
        for (int b = 0; b < blocks; b++) {
            al_arena_destroy(results[b].arena);
            free(results[b].portals);
            free(results[b].border.items);
        }
    free(results);
    if (scratch)
        for (int t = 0; t < threads; t++) al_arena_destroy(scratch[t]);
    free(scratch);
    if (!vis->block_copied) free(copy);
    return status;
}
