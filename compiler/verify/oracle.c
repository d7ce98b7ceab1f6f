/* Brute-force oracles and the verifiers (see al-oracle.h).
 *
 * Workload: a million points against e1m1 in about a second: the grid (128-unit cells)
 * leaves a handful of brushes per query.
 */
#include "al-oracle.h"

#include "al-move.h"

#include "core/cell-index.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL 128.0
#define TRACE_TOLERANCE 1e-3 /* units of travel */

typedef struct sat_brush {
    int axis_count;
    double (*axes)[3]; /* unit axes */
    double *lo, *hi;   /* the brush's projection on each axis */
    double mins[3], maxs[3];
    bool clip; /* not solid to a point (al_brush_in_hull) */
} sat_brush;

struct al_oracle {
    const al_world *world;
    sat_brush *brushes;
    int count;
    al_cell_index cells; /* brushes by 128-unit cell */
    uint32_t *stamp;
    uint32_t stamp_value;
    int *found; /* scratch for gather */
    double reach; /* largest hull extent, for cell ranges */
};

static bool add_axis(sat_brush *b, const double n[3], int cap)
{
    for (int i = 0; i < b->axis_count; i++)
        if (fabs(al_dot(b->axes[i], n)) > 1 - 1e-12) return true;
    if (b->axis_count == cap) return false;
    al_copy(n, b->axes[b->axis_count++]);
    return true;
}

static bool build_sat(const al_world *w, const al_brush *src, sat_brush *b)
{
    int verts = 0, edges = 0;
    for (int s = 0; s < src->side_count; s++) {
        verts += src->sides[s].winding->count;
        edges += src->sides[s].winding->count;
    }
    int cap = src->side_count + 3 + 3 * edges;
    b->axes = malloc((size_t) cap * sizeof *b->axes);
    b->lo = malloc((size_t) cap * sizeof *b->lo);
    b->hi = malloc((size_t) cap * sizeof *b->hi);
    if (!b->axes || !b->lo || !b->hi) return false;
    b->axis_count = 0;
    for (int s = 0; s < src->side_count; s++)
        add_axis(b, w->planes.planes[src->sides[s].plane].normal, cap);
    for (int k = 0; k < 3; k++) {
        double a[3] = {0, 0, 0};
        a[k] = 1;
        add_axis(b, a, cap);
    }
    for (int s = 0; s < src->side_count; s++) {
        const al_winding *wd = src->sides[s].winding;
        for (int i = 0; i < wd->count; i++) {
            double e[3];
            al_sub(wd->points[(i + 1) % wd->count], wd->points[i], e);
            if (al_normalize(e, e) < 1e-9) continue;
            for (int k = 0; k < 3; k++) {
                double a[3] = {0, 0, 0}, n[3];
                a[k] = 1;
                al_cross(e, a, n);
                if (al_normalize(n, n) < 1e-9) continue;
                add_axis(b, n, cap);
            }
        }
    }
    for (int i = 0; i < b->axis_count; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int s = 0; s < src->side_count; s++) {
            const al_winding *wd = src->sides[s].winding;
            for (int v = 0; v < wd->count; v++) {
                double d = al_dot(b->axes[i], wd->points[v]);
                if (d < lo) lo = d;
                if (d > hi) hi = d;
            }
        }
        b->lo[i] = lo;
        b->hi[i] = hi;
    }
    (void) verts;
    al_copy(src->mins, b->mins);
    al_copy(src->maxs, b->maxs);
    return true;
}

static bool brush_box(void *context, int i, double mins[3], double maxs[3])
{
    const al_oracle *o = context;
    al_copy(o->brushes[i].mins, mins);
    al_copy(o->brushes[i].maxs, maxs);
    return true;
}

typedef enum oracle_kind { ORACLE_COLLISION, ORACLE_WORLD, ORACLE_SIGHT, ORACLE_LIGHT } oracle_kind;

static bool takes(oracle_kind kind, const al_brush *b)
{
    switch (kind) {
    case ORACLE_SIGHT: return al_brush_blocks_sight(b);
    case ORACLE_LIGHT: return al_brush_blocks_light(b);
    case ORACLE_WORLD:
        return b->model == 0;
    default: return true;
    }
}

static al_oracle *create(const al_world *world, oracle_kind kind)
{
    al_oracle *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->world = world;
    o->brushes = calloc((size_t) world->collision_count + 1, sizeof *o->brushes);
    o->stamp = calloc((size_t) world->collision_count + 1, sizeof *o->stamp);
    o->found = malloc(((size_t) world->collision_count + 1) * sizeof *o->found);
    if (!o->brushes || !o->stamp || !o->found) goto fail;
    for (int i = 0; i < world->collision_count; i++) {
        if (!takes(kind, world->collision[i])) continue;
        if (!build_sat(world, world->collision[i], &o->brushes[o->count++])) goto fail;
        o->brushes[o->count - 1].clip =
            (world->collision[i]->material_flags & AL_MATERIAL_CLIP) != 0;
    }
    if (!al_cell_index_build(&o->cells, CELL, o->count, brush_box, o, 50000000)) goto fail;
    return o;
fail:
    al_oracle_destroy(o);
    return NULL;
}

al_oracle *al_oracle_create(const al_world *world)
{
    return create(world, ORACLE_COLLISION);
}

al_oracle *al_oracle_create_world(const al_world *world)
{
    return create(world, ORACLE_WORLD);
}

al_oracle *al_oracle_create_sight(const al_world *world)
{
    return create(world, ORACLE_SIGHT);
}

al_oracle *al_oracle_create_light(const al_world *world)
{
    return create(world, ORACLE_LIGHT);
}

void al_oracle_destroy(al_oracle *o)
{
    if (!o) return;
    if (o->brushes)
        for (int i = 0; i < o->world->collision_count; i++) {
            free(o->brushes[i].axes);
            free(o->brushes[i].lo);
            free(o->brushes[i].hi);
        }
    free(o->brushes);
    free(o->stamp);
    free(o->found);
    al_cell_index_free(&o->cells);
    free(o);
}

static void box_interval(const double axis[3], const double mins[3], const double maxs[3],
                         const double p[3], double *lo, double *hi)
{
    double c = al_dot(axis, p), a = 0, b = 0;
    for (int k = 0; k < 3; k++) {
        double x = axis[k] * mins[k], y = axis[k] * maxs[k];
        a += x < y ? x : y;
        b += x < y ? y : x;
    }
    *lo = c + a;
    *hi = c + b;
}

/* Whether the box [MINS, MAXS] is a point, to which clip brushes are not solid. */
static bool is_point(const double mins[3], const double maxs[3])
{
    bool point = true;
    for (int k = 0; k < 3; k++) point = point && mins[k] == 0 && maxs[k] == 0;
    return point;
}

/* The brushes whose bounds overlap [QMINS, QMAXS] into o->found: all of them, but the
 * clip brushes for a POINT. */
static int gather(al_oracle *o, const double qmins[3], const double qmaxs[3], bool point)
{
    if (++o->stamp_value == 0) {
        memset(o->stamp, 0, (size_t) o->count * sizeof *o->stamp);
        o->stamp_value = 1;
    }
    int lo[3], hi[3], n = 0;
    const al_cell_index *cx = &o->cells;
    al_cell_index_range(cx, qmins, qmaxs, lo, hi);
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int x = lo[0]; x <= hi[0]; x++) {
                int c = al_cell_index_cell(cx, x, y, z);
                for (int j = cx->start[c]; j < cx->start[c + 1]; j++) {
                    int bi = cx->items[j];
                    if (o->stamp[bi] == o->stamp_value) continue;
                    o->stamp[bi] = o->stamp_value;
                    const sat_brush *b = &o->brushes[bi];
                    if (!al_bounds_overlap(qmins, qmaxs, b->mins, b->maxs, 0)) continue;
                    if (point && b->clip) continue;
                    o->found[n++] = bi;
                }
            }
    return n;
}

/* al_oracle_point_margin for the brushes solid to a point (POINT) or to a box: the box
 * [MINS, MAXS] may be the region a point covers over an open cell. */
static double box_margin(al_oracle *o, const double mins[3], const double maxs[3],
                         const double p[3], bool point)
{
    double qmins[3], qmaxs[3];
    for (int k = 0; k < 3; k++) {
        qmins[k] = p[k] + mins[k] - 1.0;
        qmaxs[k] = p[k] + maxs[k] + 1.0;
    }
    double best = 2.0; /* beyond the query box: "far" */
    int found = gather(o, qmins, qmaxs, point);
    for (int f = 0; f < found; f++) {
        const sat_brush *b = &o->brushes[o->found[f]];
        double margin = -INFINITY;
        for (int i = 0; i < b->axis_count; i++) {
            double lo, hi;
            box_interval(b->axes[i], mins, maxs, p, &lo, &hi);
            double gap = lo - b->hi[i];
            double gap2 = b->lo[i] - hi;
            if (gap2 > gap) gap = gap2;
            if (gap > margin) margin = gap;
        }
        if (margin < best) best = margin;
    }
    return best;
}

double al_oracle_point_margin(al_oracle *o, const double mins[3], const double maxs[3],
                              const double p[3])
{
    return box_margin(o, mins, maxs, p, is_point(mins, maxs));
}

void al_oracle_sweep(al_oracle *o, const double mins[3], const double maxs[3],
                     const double start[3], const double end[3], al_oracle_hit *out)
{
    memset(out, 0, sizeof *out);
    out->fraction = 1.0;
    double delta[3], qmins[3], qmaxs[3];
    al_sub(end, start, delta);
    for (int k = 0; k < 3; k++) {
        qmins[k] = fmin(start[k], end[k]) + mins[k] - 1.0;
        qmaxs[k] = fmax(start[k], end[k]) + maxs[k] + 1.0;
    }
    int found = gather(o, qmins, qmaxs, is_point(mins, maxs));
    for (int f = 0; f < found; f++) {
        const sat_brush *b = &o->brushes[o->found[f]];
        double t_in = -INFINITY, t_out = INFINITY;
        bool never = false;
        for (int i = 0; i < b->axis_count && !never; i++) {
            double lo, hi;
            box_interval(b->axes[i], mins, maxs, start, &lo, &hi);
            double v = al_dot(b->axes[i], delta);
            double e, x;
            if (v == 0) {
                if (lo < b->hi[i] && hi > b->lo[i]) continue;
                never = true;
                break;
            }
            if (v > 0) {
                e = (b->lo[i] - hi) / v;
                x = (b->hi[i] - lo) / v;
            } else {
                e = (b->hi[i] - lo) / v;
                x = (b->lo[i] - hi) / v;
            }
            if (e > t_in) t_in = e;
            if (x < t_out) t_out = x;
            if (t_in >= t_out) never = true;
        }
        if (never || t_in > 1.0 || t_out <= 0.0) continue;
        if (t_in < 0) {
            out->start_inside = true;
            continue;
        }
        if (out->hit && t_in > out->fraction + 1e-12) continue;
        if (!out->hit || t_in < out->fraction - 1e-12) out->tie_count = 0;
        out->hit = true;
        if (t_in < out->fraction) out->fraction = t_in;
        /* Record every axis entering at this fraction (edges and corners have several). */
        for (int i = 0; i < b->axis_count; i++) {
            double lo, hi;
            box_interval(b->axes[i], mins, maxs, start, &lo, &hi);
            double v = al_dot(b->axes[i], delta);
            if (v == 0) continue;
            double e = v > 0 ? (b->lo[i] - hi) / v : (b->hi[i] - lo) / v;
            double tol = 1e-9 + 1e-4 / (fabs(v) + 1e-30);
            if (fabs(e - t_in) > tol || out->tie_count == AL_ORACLE_MAX_TIES) continue;
            al_scale(b->axes[i], v > 0 ? -1.0 : 1.0, out->normals[out->tie_count++]);
        }
    }
}

/* --- random sampling ------------------------------------------------------------------ */

static uint64_t next_u64(al_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double al_rng_uniform(al_rng *r)
{
    return (double) (next_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

void al_verify_random_point(const al_world *w, al_rng *rng, double p[3])
{
    const al_model *m = &w->models[0];
    if (w->collision_count > 0 && al_rng_uniform(rng) < 0.5) {
        const al_brush *b = w->collision[(int) (al_rng_uniform(rng) * w->collision_count)];
        for (int k = 0; k < 3; k++) {
            double lo = b->mins[k] - 72, hi = b->maxs[k] + 72;
            p[k] = lo + (hi - lo) * al_rng_uniform(rng);
        }
    } else {
        for (int k = 0; k < 3; k++)
            p[k] = m->mins[k] + (m->maxs[k] - m->mins[k]) * al_rng_uniform(rng);
    }
    /* A quarter of the points on lattices: maps are drawn on integer grids, so split and
     * bevel planes pass exactly through such points, where ties between sides are decided.
     * Uniform samples would almost never land there. */
    double r = al_rng_uniform(rng);
    double step = r < 0.125 ? 16 : r < 0.25 ? 1 : 0;
    if (step > 0)
        for (int k = 0; k < 3; k++) p[k] = step * floor(p[k] / step + 0.5);
}

static void random_direction(al_rng *rng, double d[3])
{
    for (;;) {
        for (int k = 0; k < 3; k++) d[k] = 2 * al_rng_uniform(rng) - 1;
        double l = al_length(d);
        if (l > 0.1 && l <= 1) {
            al_scale(d, 1 / l, d);
            return;
        }
    }
}

static void note_mismatch(al_verify_counts *c, const double a[3], const double b[3], double size)
{
    if (c->mismatches + c->normal_mismatches == 0) {
        al_copy(a, c->example[0]);
        al_copy(b ? b : a, c->example[1]);
    }
    if (size > c->worst) c->worst = size;
}

/* Samples COUNT points for HULL and compares the onion tree's answer with the brute force
 * (or, with MAP_TREE, with the hull's map trees). */
static void verify_points(const al_world *w, al_oracle *o, int hull, int64_t count,
                          uint64_t seed, bool map_tree, al_verify_counts *out)
{
    memset(out, 0, sizeof *out);
    al_rng rng = {seed};
    const al_hull_desc *h = &w->hulls[hull];
    for (int64_t i = 0; i < count; i++) {
        double p[3];
        al_verify_random_point(w, &rng, p);
        double margin = al_oracle_point_margin(o, h->mins, h->maxs, p);
        if (fabs(margin) <= AL_SURFACE_EPSILON) {
            out->skipped++;
            continue;
        }
        out->checked++;
        bool onion = al_world_point_solid(w, hull, p);
        bool other = map_tree ? al_world_point_solid_map_tree(w, hull, p) : margin < 0;
        if (onion != other) {
            note_mismatch(out, p, NULL, fabs(margin));
            out->mismatches++;
        }
    }
}

void al_verify_solidity(const al_world *w, al_oracle *o, int hull, int64_t count, uint64_t seed,
                        al_verify_counts *out)
{
    verify_points(w, o, hull, count, seed, false, out);
}

void al_verify_map_trees(const al_world *w, al_oracle *o, int hull, int64_t count, uint64_t seed,
                         al_verify_counts *out)
{
    verify_points(w, o, hull, count, seed, true, out);
}

/* A start point in empty space, farther than AL_SURFACE_EPSILON from every surface. */
static bool empty_start(const al_world *w, al_oracle *o, const al_hull_desc *h, al_rng *rng,
                        double p[3])
{
    for (int tries = 0; tries < 1000; tries++) {
        al_verify_random_point(w, rng, p);
        if (al_oracle_point_margin(o, h->mins, h->maxs, p) > AL_SURFACE_EPSILON) return true;
    }
    return false;
}

static bool normal_matches(const al_oracle_hit *hit, const double n[3])
{
    for (int i = 0; i < hit->tie_count; i++)
        if (al_dot(hit->normals[i], n) > 1 - 1e-6) return true;
    return false;
}

static void compare_hits(al_verify_counts *out, bool hit_a, double frac_a, const double *normal_a,
                         const al_oracle_hit *b, double length, const double start[3],
                         const double end[3])
{
    out->checked++;
    double fa = hit_a ? frac_a : 1.0;
    double fb = b->hit ? b->fraction : 1.0;
    double diff = fabs(fa - fb) * length;
    if (diff > TRACE_TOLERANCE) {
        note_mismatch(out, start, end, diff);
        out->mismatches++;
        return;
    }
    if (hit_a && b->hit && normal_a && !normal_matches(b, normal_a)) {
        note_mismatch(out, start, end, 0);
        out->normal_mismatches++;
    }
}

/* A random move for HULL: from an empty point clear of surfaces, in a random direction,
 * LENGTH units long (0: random up to 256). Returns its length, or 0 if no empty point was
 * found. */
static double random_move(const al_world *w, al_oracle *o, const al_hull_desc *h, al_rng *rng,
                          double length, double start[3], double end[3])
{
    double dir[3];
    if (!empty_start(w, o, h, rng, start)) return 0;
    random_direction(rng, dir);
    double len = length > 0 ? length : 1 + 255 * al_rng_uniform(rng);
    al_madd(start, dir, len, end);
    return len;
}

void al_verify_traces(const al_world *w, al_oracle *o, int hull, int64_t count, double length,
                      uint64_t seed, al_verify_counts *out)
{
    memset(out, 0, sizeof *out);
    al_rng rng = {seed};
    const al_hull_desc *h = &w->hulls[hull];
    for (int64_t i = 0; i < count; i++) {
        double start[3], end[3];
        double len = random_move(w, o, h, &rng, length, start, end);
        if (len == 0) break;
        al_trace t;
        al_world_trace(w, hull, start, end, &t);
        al_oracle_hit b;
        al_oracle_sweep(o, h->mins, h->maxs, start, end, &b);
        if (t.start_solid) {
            note_mismatch(out, start, end, len);
            out->checked++;
            out->mismatches++;
            continue;
        }
        compare_hits(out, t.hit, t.fraction, t.normal, &b, len, start, end);
    }
}

void al_verify_open_cells(const al_world *w, al_oracle *world_oracle, int hull, int64_t count,
                          uint64_t seed, al_verify_counts *out, int64_t *clear_but_closed)
{
    enum { CELLS = AL_OPEN_CELLS };
    memset(out, 0, sizeof *out);
    *clear_but_closed = 0;
    const al_model *m = &w->models[0];
    if (!m->open_rows) return;
    const al_hull_desc *h = &w->hulls[hull];
    double size = w->block_size / CELLS;
    al_rng rng = {seed};
    int64_t n = count > 0 ? count : (int64_t) m->block_count * CELLS * CELLS * CELLS, misses = 0;
    for (int64_t i = 0; i < n; i++) {
        int b, cell[3];
        if (count > 0) {
            /* The cell of a random point (half of them near a brush), in the grid. */
            double p[3];
            al_verify_random_point(w, &rng, p);
            int g[3];
            bool inside = true;
            for (int k = 0; k < 3; k++) {
                double u = (p[k] * m->inv_block_size - m->grid_origin[k]) * CELLS;
                inside &= u >= 0 && u < (double) m->grid_dims[k] * CELLS;
                g[k] = inside ? (int) u : 0;
            }
            if (!inside) {
                if (++misses < 100 * count) i--; /* draw again: every sample a cell */
                continue;
            }
            b = al_model_block_index(m, g[0] / CELLS, g[1] / CELLS, g[2] / CELLS);
            for (int k = 0; k < 3; k++) cell[k] = g[k] % CELLS;
        } else {
            /* Every cell of every block in turn. */
            b = (int) (i / (CELLS * CELLS * CELLS));
            int rest = (int) (i % (CELLS * CELLS * CELLS));
            cell[0] = rest % CELLS;
            cell[1] = rest / CELLS % CELLS;
            cell[2] = rest / (CELLS * CELLS);
        }
        const al_open_row *rows = m->open_rows[b];
        if (!rows) continue;
        size_t row = ((size_t) hull * CELLS + (size_t) cell[2]) * CELLS + (size_t) cell[1];
        bool open = rows[row] >> cell[0] & 1;
        /* The agent's box anywhere in the cell. */
        double lo[3], hi[3], at[3], origin[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            at[k] = m->blocks[b].cell_mins[k] + cell[k] * size;
            lo[k] = at[k] + h->mins[k];
            hi[k] = at[k] + size + h->maxs[k];
        }
        /* The box is where the hull's origin goes over the cell: a point's keeps its rule. */
        double margin = box_margin(world_oracle, lo, hi, origin, is_point(h->mins, h->maxs));
        out->checked++;
        if (open && margin < -AL_SURFACE_EPSILON) {
            note_mismatch(out, at, NULL, -margin);
            out->mismatches++;
        }
        if (!open && margin > 1.0) (*clear_but_closed)++;
    }
}

/* W as a trace sees it without open cells: a shallow copy whose world model has none. Only
 * its models array is its own (free it alone). */
static al_world *without_open_cells(const al_world *w, al_world *copy)
{
    *copy = *w;
    al_model *models = malloc((size_t) w->model_count * sizeof *models);
    if (!models) return NULL;
    memcpy(models, w->models, (size_t) w->model_count * sizeof *models);
    models[0].open_rows = NULL;
    models[0].open_starts = NULL;
    copy->models = models;
    return copy;
}

static bool same_trace(const al_trace *a, const al_trace *b)
{
    return a->hit == b->hit && a->start_solid == b->start_solid && a->all_solid == b->all_solid &&
           a->fraction == b->fraction && a->model == b->model && a->entity == b->entity &&
           memcmp(a->normal, b->normal, sizeof a->normal) == 0 &&
           memcmp(a->end, b->end, sizeof a->end) == 0 &&
           memcmp(a->contact, b->contact, sizeof a->contact) == 0;
}

void al_verify_open_traces(const al_world *w, al_oracle *o, int hull, int64_t count, double length,
                           uint64_t seed, al_verify_counts *out, int64_t *answered_open)
{
    memset(out, 0, sizeof *out);
    *answered_open = 0;
    al_world copy;
    if (!without_open_cells(w, &copy)) return;
    al_rng rng = {seed};
    const al_hull_desc *h = &w->hulls[hull];
    for (int64_t i = 0; i < count; i++) {
        double start[3], end[3];
        double len = random_move(w, o, h, &rng, length, start, end);
        if (len == 0) break;
        if (i % 4 == 3) {
            /* Along an axis, from the lattice point the sampler may have chosen: moves in a
             * block face, a cell face or a wall's plane. */
            int axis = (int) (al_rng_uniform(&rng) * 3);
            al_copy(start, end);
            end[axis] += al_rng_uniform(&rng) < 0.5 ? -len : len;
        }
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(start[k], end[k]) - 1e-6;
            hi[k] = fmax(start[k], end[k]) + 1e-6;
        }
        *answered_open += al_world_box_open(w, hull, lo, hi);
        al_trace fast, full;
        al_world_trace(w, hull, start, end, &fast);
        al_world_trace(&copy, hull, start, end, &full);
        out->checked++;
        /* The open cells may know an end is empty where the descent was unsure; then a
         * point query must agree. */
        bool ends_agree = fast.end_empty == full.end_empty ||
                          (fast.end_empty && !al_world_point_solid(w, hull, end));
        if (!same_trace(&fast, &full) || !ends_agree) {
            note_mismatch(out, start, end, fabs(fast.fraction - full.fraction) * len);
            out->mismatches++;
        }
    }
    free(copy.models);
}

void al_verify_plane_shift(const al_world *w, al_oracle *o, int hull, int64_t count,
                           double length, uint64_t seed, al_verify_counts *out)
{
    memset(out, 0, sizeof *out);
    al_rng rng = {seed};
    const al_hull_desc *h = &w->hulls[hull];
    for (int64_t i = 0; i < count; i++) {
        double start[3], end[3];
        double len = random_move(w, o, h, &rng, length, start, end);
        if (len == 0) break;
        al_trace shifted, onion;
        al_world_trace_box(w, h->mins, h->maxs, start, end, &shifted);
        al_world_trace(w, hull, start, end, &onion);
        al_oracle_hit b;
        al_oracle_sweep(o, h->mins, h->maxs, start, end, &b);
        out->checked++;
        double fs = shifted.hit ? shifted.fraction : 1.0;
        double fo = onion.hit ? onion.fraction : 1.0;
        double diff = fabs(fs - fo) * len;
        if (shifted.start_solid || diff > TRACE_TOLERANCE) {
            note_mismatch(out, start, end, diff);
            out->mismatches++;
            continue;
        }
        if (shifted.hit && onion.hit && b.hit && !normal_matches(&b, shifted.normal)) {
            note_mismatch(out, start, end, 0);
            out->normal_mismatches++;
        }
    }
}

void al_verify_slides(const al_world *w, al_oracle *o, int hull, int64_t count, uint64_t seed,
                      al_verify_counts *out)
{
    memset(out, 0, sizeof *out);
    al_rng rng = {seed};
    const al_hull_desc *h = &w->hulls[hull];
    const al_box_shape shape = {.hull = hull};
    for (int64_t i = 0; i < count; i++) {
        double start[3], end[3], delta[3];
        double len = random_move(w, o, h, &rng, 0, start, end);
        if (len == 0) break;
        al_sub(end, start, delta);
        al_slide s;
        al_slide_move(w, &shape, start, delta, 1, &s);
        al_oracle_hit b;
        al_oracle_sweep(o, h->mins, h->maxs, start, end, &b);
        if (s.start_solid) {
            note_mismatch(out, start, end, len);
            out->checked++;
            out->mismatches++;
            continue;
        }
        /* The first leg is a plain sweep: the oracle's first contact. */
        compare_hits(out, s.contact_count > 0, s.first_fraction,
                     s.contact_count > 0 ? s.contacts[0].normal : NULL, &b, len, start, end);
        /* Every leg of the slide runs through empty space only, and the box rests in it. */
        for (int k = 0; k + 1 < s.path_count; k++) {
            double d[3];
            al_sub(s.path[k + 1], s.path[k], d);
            double leg = al_length(d);
            if (leg < 1e-9) continue;
            al_oracle_sweep(o, h->mins, h->maxs, s.path[k], s.path[k + 1], &b);
            if (b.hit && (b.start_inside || b.fraction * leg < leg - TRACE_TOLERANCE)) {
                note_mismatch(out, s.path[k], s.path[k + 1], leg - b.fraction * leg);
                out->mismatches++;
                break;
            }
        }
        if (al_oracle_point_margin(o, h->mins, h->maxs, s.end) < -AL_SURFACE_EPSILON) {
            note_mismatch(out, s.end, s.end, 0);
            out->mismatches++;
        }
    }
}

void al_verify_pvs(const al_world *w, al_oracle *sight, int64_t count, uint64_t seed,
                   al_verify_counts *out)
{
    memset(out, 0, sizeof *out);
    al_rng rng = {seed};
    const double zero[3] = {0, 0, 0};
    int64_t attempts = 0;
    while (out->checked < count && attempts < 50 * count + 1000) {
        attempts++;
        double a[3], dir[3], b[3];
        al_verify_random_point(w, &rng, a);
        int la = al_world_vis_leaf_at(w, a);
        if (la < 0) continue;
        /* Only points clear of every surface: near one the tree may put the point on either
         * side (AL_SURFACE_EPSILON). */
        if (al_oracle_point_margin(sight, zero, zero, a) <= AL_SURFACE_EPSILON) continue;
        random_direction(&rng, dir);
        double length = 4096 * al_rng_uniform(&rng) + 1;
        double end[3];
        al_madd(a, dir, length, end);
        al_oracle_hit hit;
        al_oracle_sweep(sight, zero, zero, a, end, &hit);
        if (hit.start_inside) continue;
        double t = al_rng_uniform(&rng) * (hit.hit ? hit.fraction : 1.0);
        al_lerp(a, end, t, b);
        if (al_oracle_point_margin(sight, zero, zero, b) <= AL_SURFACE_EPSILON) continue;
        out->checked++;
        int lb = al_world_vis_leaf_at(w, b);
        bool ok = lb >= 0 && al_world_leaf_sees(w, la, lb) && al_world_leaf_sees(w, lb, la);
        if (!ok) {
            if (out->mismatches == 0) {
                al_copy(a, out->example[0]);
                al_copy(b, out->example[1]);
            }
            out->mismatches++;
        }
    }
    out->skipped = attempts - out->checked;
}

/* --- the light trees' own walk ---------------------------------------------------------
 *
 * Radiosity casts its rays through a flat copy of the light trees (trace/rays.c). This is
 * the walk of the trees themselves, block by block, that the copy replaced: the tests hold
 * the copy to its answers, to the bit. */

/* A piece of the segment still to test: the subtree CODE of TREE over [T0, T1]. */
typedef struct light_piece {
    const al_tree *tree;
    int32_t code;
    double t0, t1;
} light_piece;

#define LIGHT_STACK 64

static double light_first_solid(const al_model *m, const double a[3], const double d[3],
                                const al_tree *tree, int32_t code, double t0, double t1);

/* Where A + t D, t in [T0, T1], first enters a piece solid both below FRONT and below BACK
 * of TREE (the children of a node whose plane the piece lies in): its start, or INFINITY.
 * The piece only touches each side, so it is blocked only where both are solid, whichever
 * side the tree calls the front. Each walk moves T forward to the start of its next solid
 * piece; where neither moves it, both are solid. */
static double light_first_solid_both(const al_model *m, const double a[3], const double d[3],
                                     const al_tree *tree, int32_t front, int32_t back, double t0,
                                     double t1)
{
    double t = t0;
    for (;;) {
        double tf = light_first_solid(m, a, d, tree, front, t, t1);
        if (tf == INFINITY) return INFINITY;
        double tb = light_first_solid(m, a, d, tree, back, tf, t1);
        if (tb == tf || tb == INFINITY) return tb;
        t = tb;
    }
}

/* Where A + t D, t in [T0, T1], first touches a solid leaf of the light trees below CODE
 * of TREE: the start of the first solid piece, or INFINITY. Pieces are visited
 * near first, so the first solid one found is the first along the segment. */
static double light_first_solid(const al_model *m, const double a[3], const double d[3],
                                const al_tree *tree, int32_t code, double t0, double t1)
{
    light_piece stack[LIGHT_STACK];
    int top = 0;
    for (;;) {
        /* Descend the piece: down one child when it lies on one side, near child first
         * (the far one waits on the stack) when it crosses the plane. */
        for (;;) {
            if (code < 0) {
                if (tree == &m->top) {
                    tree = al_block_light(&m->blocks[-1 - code]);
                    code = tree->root;
                    continue;
                }
                if (tree->leaves[-1 - code] & 1u) return t0;
                break;
            }
            const al_node *n = &tree->nodes[code];
            /* (The top tree's masks come from the onion trees, clip included.) */
            if (tree != &m->top && ((n->empty_mask | n->solid_mask) & 1u)) {
                if (n->solid_mask & 1u) return t0;
                break;
            }
            double base = al_dot(n->normal, a) - n->dist, rate = al_dot(n->normal, d);
            double d0 = base + rate * t0, d1 = base + rate * t1;
            /* An end within AL_RAY_EPSILON of the plane is on it and goes with the other
             * end, whichever side is the front: the answer is the brushes', not the
             * tree's (trace/rays.c says why). */
            if (d0 > -AL_RAY_EPSILON && d1 > -AL_RAY_EPSILON) {
                if (d0 >= AL_RAY_EPSILON || d1 >= AL_RAY_EPSILON) {
                    code = n->child[0];
                    continue;
                }
                /* The piece lies in the plane: see light_first_solid_both. */
                double t = light_first_solid_both(m, a, d, tree, n->child[0], n->child[1], t0, t1);
                if (t < INFINITY) return t;
                break;
            }
            if (d0 < AL_RAY_EPSILON && d1 < AL_RAY_EPSILON) {
                code = n->child[1];
                continue;
            }
            double tm = -base / rate; /* rate is not 0: the ends have opposite signs */
            int near = d0 > 0 ? 0 : 1;
            /* A piece that would be a single point is left out: the segment only touches
             * the other side there, and touching is not blocking. */
            if (tm <= t0) {
                code = n->child[near ^ 1];
                continue;
            }
            if (tm >= t1) {
                code = n->child[near];
                continue;
            }
            if (top == LIGHT_STACK) {
                /* Deeper than the stack: finish the near part here, the far by a call. */
                double t = light_first_solid(m, a, d, tree, n->child[near], t0, tm);
                if (t < INFINITY) return t;
                code = n->child[near ^ 1];
                t0 = tm;
                continue;
            }
            stack[top++] = (light_piece){tree, n->child[near ^ 1], tm, t1};
            code = n->child[near];
            t1 = tm;
        }
        if (top == 0) return INFINITY;
        light_piece p = stack[--top];
        tree = p.tree;
        code = p.code;
        t0 = p.t0;
        t1 = p.t1;
    }
}

double al_verify_light_trees_hit(const al_world *world, const double a[3], const double b[3])
{
    const al_model *m = &world->models[0];
    if (m->brush_count == 0) return INFINITY;
    double d[3];
    al_sub(b, a, d);
    return light_first_solid(m, a, d, &m->top, m->top.root, 0.0, 1.0);
}
