/* Swept-box traces through the onion tree: the seed's "find first transition" (listing 5 of
 * onion-bsp-collision.txt), and point queries.
 *
 * The segment is parameterised by t in [0, 1] from start to end; nodes classify a piece
 * [t0, t1] by the signed distances of its ends, with a band of TRACE_EPSILON counting as on
 * the plane. Front and back pieces continue down one child (a loop, not a call); a
 * straddling piece is split at the plane, near half first; a piece lying in the plane goes
 * down both children and the results are combined as the seed does. Nodes uniform for the
 * hull (solid_mask / empty_mask) end the descent early, which makes one onion tree as fast
 * to trace as a tree of that hull alone.
 *
 * A start point on a boundary can classify as solid through rounding; as the seed says,
 * the trace is then repeated from a point moved back along the move by TRACE_BACKOFF.
 *
 * Before any of that, a move through the world model is placed on its grid of open cells
 * (open.c), at the cost of a few multiplies: a move whose box lies in open cells for its hull
 * meets only empty leaves, and needs no descent (most moves an agent makes in a room). One
 * that does descend starts at the node where its eighth, quarter or half of the block first
 * meets a plane, past the axial nodes that join the block's sub-cells.
 */
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <string.h>

#define TRACE_EPSILON 1e-6
#define TRACE_BACKOFF 0.01
#define TRACE_HAIR    1e-4 /* units; see entered_at */

typedef enum ray_class { RAY_E, RAY_S, RAY_E2S, RAY_S2E } ray_class;

/* A transition in 16 bytes, so that it comes back in registers: the crossing fraction, and
 * the node whose plane was crossed with the class in bits 0-1 and the near side in bit 2
 * (nodes are 8-byte aligned). */
typedef struct transition {
    double t;
    uintptr_t bits;
} transition;

static inline int kind_of(transition tr)
{
    return (int) (tr.bits & 3u);
}

static inline const al_node *node_of(transition tr)
{
    return (const al_node *) (tr.bits & ~(uintptr_t) 7u);
}

static inline int near_of(transition tr)
{
    return (int) ((tr.bits >> 2) & 1u);
}

static inline transition make(int kind)
{
    transition tr = {0.0, (uintptr_t) kind};
    return tr;
}

static inline transition crossing(int kind, double t, const al_node *n, int near)
{
    transition tr = {t, (uintptr_t) n | (uintptr_t) near << 2 | (uintptr_t) kind};
    return tr;
}

typedef struct tracework {
    const al_model *model;
    uint32_t bit;
    double start[3];
    double delta[3];
    /* The move's end point (the array every piece that ends there is given as P1), and a
     * flag set when a node finds that point within TRACE_EPSILON of its plane, where the
     * trace's band rule and a point query may classify it differently (see
     * al_trace.end_empty). Set only on the band paths, so the common descent never
     * writes it. */
    const double *end;
    bool *end_in_band;
} tracework;

static inline bool is_transition(int k)
{
    return k == RAY_E2S || k == RAY_S2E;
}

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}

static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static transition fft(const tracework *tw, const al_tree *tree, int32_t code, double t0,
                      double t1, const double p0[3], const double p1[3]);

/* A child's class when it is decided without descending: a leaf, or a node uniform for the
 * hull. -1 otherwise. Saves a call at most straddles, since one side of a wall's plane is
 * usually uniform. */
static inline int quick_class(const tracework *tw, const al_tree *tree, int32_t code)
{
    if (code < 0) {
        if (tree == &tw->model->top) return -1;
        return tree->leaves[-1 - code] & tw->bit ? RAY_S : RAY_E;
    }
    const al_node *n = &tree->nodes[code];
    if ((n->empty_mask | n->solid_mask) & tw->bit) return n->solid_mask & tw->bit ? RAY_S : RAY_E;
    return -1;
}

static inline transition descend(const tracework *tw, const al_tree *tree, int32_t code,
                                 double t0, double t1, const double p0[3], const double p1[3])
{
    int k = quick_class(tw, tree, code);
    return k >= 0 ? make(k) : fft(tw, tree, code, t0, t1, p0, p1);
}

/* The move enters solid where it crosses node N's plane at TM: empty before, solid after.
 * If the crossing point also lies on a real surface (a move through the corner where a
 * block boundary or another hull's plane meets a wall), N's plane may not be that surface,
 * and its normal would be wrong. So the far side is traced again from a hair before the
 * crossing: its cells extended back show the surface actually entered. The fraction stays
 * TM. When the far child is uniformly solid (the usual wall hit) this costs nothing. */
static transition entered_at(const tracework *tw, const al_tree *tree, const al_node *n,
                             int near, double t0, double tm, double t1, const double p1[3])
{
    double hair = TRACE_HAIR / al_length(tw->delta); /* delta is not zero: the move crossed */
    double ts = max2(t0, tm - hair);
    if (ts < tm) {
        double ps[3];
        al_madd(tw->start, tw->delta, ts, ps);
        transition x = descend(tw, tree, n->child[near ^ 1], ts, t1, ps, p1);
        if (kind_of(x) == RAY_E2S && x.t <= tm + hair)
            return crossing(RAY_E2S, tm, node_of(x), near_of(x));
    }
    return crossing(RAY_E2S, tm, n, near);
}

/* Find first transition on the piece [T0, T1] of the move, whose ends are P0 and P1. The
 * plane distances of both ends are computed from the points (as Quake's hull check does):
 * two independent dot products, a shorter dependency chain per node than a distance and a
 * rate. */
static transition fft(const tracework *tw, const al_tree *tree, int32_t code, double t0,
                      double t1, const double p0[3], const double p1[3])
{
    double mid[3];
    for (;;) {
        if (code < 0) {
            if (tree == &tw->model->top) {
                tree = &tw->model->blocks[-1 - code].onion;
                code = tree->root;
                continue;
            }
            return make(tree->leaves[-1 - code] & tw->bit ? RAY_S : RAY_E);
        }
        const al_node *n = &tree->nodes[code];
        if ((n->empty_mask | n->solid_mask) & tw->bit)
            return make(n->solid_mask & tw->bit ? RAY_S : RAY_E);
        double d0 = al_dot(n->normal, p0) - n->dist;
        double d1 = al_dot(n->normal, p1) - n->dist;
        /* Wholly on one side: the common case. Plain branches, measured faster than a
         * branch-free child select, since a predicted branch lets the CPU start loading the
         * next node before the plane test is done. */
        if (d0 > TRACE_EPSILON && d1 > TRACE_EPSILON) {
            code = n->child[0];
            continue;
        }
        if (d0 < -TRACE_EPSILON && d1 < -TRACE_EPSILON) {
            code = n->child[1];
            continue;
        }
        /* One end in the plane's band counts as on the other end's side (the seed's
         * classification); both ends in the band is the coplanar case. A straddle (below)
         * has both ends outside the band, so only these cases can leave the move's end on
         * this plane. */
        if (p1 == tw->end && d1 >= -TRACE_EPSILON && d1 <= TRACE_EPSILON) *tw->end_in_band = true;
        double lo = min2(d0, d1), hi = max2(d0, d1);
        if (lo >= -TRACE_EPSILON && hi > TRACE_EPSILON) {
            code = n->child[0];
            continue;
        }
        if (hi <= TRACE_EPSILON && lo < -TRACE_EPSILON) {
            code = n->child[1];
            continue;
        }
        if (lo >= -TRACE_EPSILON) {
            /* In the plane: both sides, then combine (seed's CP_COPLANAR). */
            transition l = descend(tw, tree, n->child[0], t0, t1, p0, p1);
            transition r = descend(tw, tree, n->child[1], t0, t1, p0, p1);
            int lk = kind_of(l), rk = kind_of(r);
            if (lk == rk) {
                if (!is_transition(lk)) return l;
                return l.t <= r.t ? l : r;
            }
            if (is_transition(lk)) return l;
            if (is_transition(rk)) return r;
            return make(RAY_E);
        }
        /* Straddle: near half first. */
        double f = max2(0.0, min2(d0 / (d0 - d1), 1.0));
        double tm = t0 + (t1 - t0) * f;
        for (int k = 0; k < 3; k++) mid[k] = p0[k] + (p1[k] - p0[k]) * f;
        int near = d0 > 0 ? 0 : 1;
        transition tn = descend(tw, tree, n->child[near], t0, tm, p0, mid);
        int nk = kind_of(tn);
        if (is_transition(nk)) return tn;
        transition tf = descend(tw, tree, n->child[near ^ 1], tm, t1, mid, p1);
        switch (kind_of(tf)) {
        case RAY_E: return nk == RAY_E ? tf : crossing(RAY_S2E, tm, n, near);
        case RAY_S: return nk == RAY_S ? tf : entered_at(tw, tree, n, near, t0, tm, t1, p1);
        case RAY_E2S: return nk == RAY_E ? tf : crossing(RAY_S2E, tm, n, near);
        default: return nk == RAY_S ? tf : crossing(RAY_E2S, tm, n, near);
        }
    }
}

/* The first transition along START + t DELTA, t in [0, 1], through model M: from BLOCK's
 * onion tree when the segment lies inside that block (most short moves), from its node FROM
 * unless that is AL_NO_START, else (BLOCK -1) from the model's top tree. */
static transition first_transition(const al_model *m, uint32_t bit, const double start[3],
                                   const double delta[3], int block, int32_t from,
                                   bool *end_in_band)
{
    double end[3];
    al_add(start, delta, end);
    tracework tw = {.model = m, .bit = bit, .end = end, .end_in_band = end_in_band};
    al_copy(start, tw.start);
    al_copy(delta, tw.delta);
    if (block >= 0)
        return fft(&tw, &m->blocks[block].onion,
                   from != AL_NO_START ? from : m->blocks[block].onion.root, 0, 1, start, end);
    return fft(&tw, &m->top, m->top.root, 0.0, 1.0, start, end);
}

typedef struct model_hit {
    bool hit, start_solid, all_solid;
    double fraction;
    transition at;
} model_hit;

/* The move starts in solid (class S or S2E). Perhaps only by rounding on a boundary: as the
 * seed says, retry from a point backed off along the move. If it really starts inside, the
 * box may move out, and is stopped at the next surface it enters. Rare, so kept out of the
 * common path. */
static __attribute__((noinline)) model_hit resolve_start_solid(const al_model *m, uint32_t bit,
                                                                const double start[3],
                                                                const double delta[3],
                                                                transition first)
{
    model_hit r = {.hit = true, .start_solid = true, .fraction = 0};
    /* These traces end near, not exactly at, the move's end: their band findings are not
     * kept (trace_into counts the end as unsure whenever it comes here). */
    bool ignored = false;
    double length = al_length(delta);
    if (length == 0) {
        r.all_solid = true;
        return r;
    }
    double back[3], longer[3];
    al_madd(start, delta, -TRACE_BACKOFF / length, back);
    al_scale(delta, (length + TRACE_BACKOFF) / length, longer);
    transition u = first_transition(m, bit, back, longer, -1, AL_NO_START, &ignored);
    double total = length + TRACE_BACKOFF;
    switch (kind_of(u)) {
    case RAY_E:
        r.hit = r.start_solid = false;
        r.fraction = 1;
        return r;
    case RAY_E2S: {
        double f = (u.t * total - TRACE_BACKOFF) / length;
        r.start_solid = false;
        r.fraction = f > 0 ? f : 0;
        r.at = u;
        return r;
    }
    case RAY_S2E: {
        double f_exit = (u.t * total - TRACE_BACKOFF) / length;
        if (f_exit < 0) f_exit = 0;
        /* Continue from just past the exit. */
        double f0 = f_exit + TRACE_EPSILON * 10 / length;
        if (f0 >= 1) return r.hit = false, r.fraction = 1, r;
        double from[3], rest[3];
        al_madd(start, delta, f0, from);
        al_scale(delta, 1.0 - f0, rest);
        transition v = first_transition(m, bit, from, rest, -1, AL_NO_START, &ignored);
        r.hit = kind_of(v) == RAY_E2S;
        r.fraction = r.hit ? f0 + (1.0 - f0) * v.t : 1.0;
        r.at = v;
        return r;
    }
    default:
        r.all_solid = kind_of(first) == RAY_S;
        return r;
    }
}

static void set_normal(transition t, double out[3])
{
    /* The contact normal faces the side the mover came from. */
    al_scale(node_of(t)->normal, near_of(t) == 0 ? 1.0 : -1.0, out);
}

/* al_trace_finish, inlined into al_world_trace: it runs once per trace. */
static inline void finish(const double start[3], const double end[3], al_trace *out)
{
    double delta[3];
    al_sub(end, start, delta);
    al_madd(start, delta, out->fraction, out->contact);
    if (!out->hit || out->all_solid || (out->start_solid && out->fraction == 0)) {
        al_copy(out->contact, out->end);
        return;
    }
    /* Back off along the move until the box is AL_TRACE_SKIN in front of the surface. */
    double approach = -al_dot(out->normal, delta);
    double f = out->fraction;
    if (approach > 1e-12) f -= AL_TRACE_SKIN / approach;
    if (f < 0) f = 0;
    al_madd(start, delta, f, out->end);
}

void al_trace_finish(const double start[3], const double end[3], al_trace *out)
{
    finish(start, end, out);
}

/* Keeps R if it is nearer than what OUT holds. */
static void record(al_trace *out, const model_hit *r, transition *best, int m, int entity)
{
    out->start_solid |= r->start_solid;
    out->all_solid |= r->all_solid;
    if (r->hit && (!out->hit || r->fraction < out->fraction)) {
        out->hit = true;
        out->fraction = r->fraction;
        *best = r->at;
        out->model = m;
        out->entity = entity;
    }
}

/* Traces MODEL; common case inline, start-in-solid out of line. *END_IN_BAND is set when
 * the move's end lies on one of the model's planes, or the model was not plain empty along
 * the whole move. */
static inline void trace_into(const al_model *model, int m, uint32_t bit, const double start[3],
                              const double delta[3], int block, int32_t from, al_trace *out,
                              transition *best, bool *end_in_band)
{
    transition t = first_transition(model, bit, start, delta, block, from, end_in_band);
    int kind = kind_of(t);
    if (kind == RAY_E) return;
    *end_in_band = true;
    model_hit r = {.hit = true, .fraction = t.t, .at = t};
    if (kind != RAY_E2S) r = resolve_start_solid(model, bit, start, delta, t);
    record(out, &r, best, m, model->entity);
}

/* Rows of a box's cells checked at most, across y and z: a move of up to three cells. */
#define OPEN_SPAN 3

/* Whether the cells [A, B] of the world model's grid of open cells (over all its blocks),
 * in blocks side by side (at most two on x), are open for HULL. Each block's open cells come
 * from its own tree, which the trace's pieces in that block descend: the top tree's planes
 * are block faces. Out of line: few moves span blocks. */
static __attribute__((noinline)) bool open_across(const al_model *m, int hull, const unsigned a[3],
                                                  const unsigned b[3])
{
    enum { SHIFT = AL_OPEN_SHIFT, LOW = AL_OPEN_CELLS - 1 };
    if (b[0] - a[0] >= AL_OPEN_CELLS || b[1] - a[1] > OPEN_SPAN || b[2] - a[2] > OPEN_SPAN)
        return false;
    size_t skip = (size_t) hull * AL_OPEN_CELLS * AL_OPEN_CELLS;
    for (unsigned z = a[2]; z <= b[2]; z++)
        for (unsigned y = a[1]; y <= b[1]; y++)
            for (unsigned x = a[0] >> SHIFT; x <= b[0] >> SHIFT; x++) {
                const al_open_row *rows = m->open_rows[al_model_block_index(
                    m, (int) x, (int) (y >> SHIFT), (int) (z >> SHIFT))];
                if (!rows) return false;
                unsigned x0 = x == a[0] >> SHIFT ? a[0] & LOW : 0;
                unsigned x1 = x == b[0] >> SHIFT ? b[0] & LOW : LOW;
                al_open_row mask = al_open_span(x0, x1);
                if ((rows[skip + (z & LOW) * AL_OPEN_CELLS + (y & LOW)] & mask) != mask)
                    return false;
            }
    return true;
}

/* Where a move lies in the world model: its block (-1: it spans several, or leaves the grid;
 * as al_model_box_block says), the node of that block's onion tree its descent starts from
 * (AL_NO_START: the root), and whether its box lies in open cells (open.c). */
typedef struct world_place {
    int block;
    int32_t start;
    bool open;
} world_place;

/* Fills *P with the place of the box [LO, HI] in the world model M for HULL. The grid coordinates
 * all three need are computed once: a coordinate in blocks scaled by AL_OPEN_CELLS gives the cell,
 * the cell shifted by AL_OPEN_SHIFT the block, and by less the eighth, quarter or half of the block
 * whose start node (AL_OPEN_STARTS) skips the nodes above it. */
static inline void place_in_world(const al_model *m, int hull, const double lo[3],
                                  const double hi[3], world_place *p)
{
    enum { SHIFT = AL_OPEN_SHIFT, LOW = AL_OPEN_CELLS - 1 };
    p->start = AL_NO_START;
    p->open = false;
    if (!m->open_rows) {
        p->block = al_model_box_block(m, lo, hi);
        return;
    }
    double u[3], v[3];
    bool inside = true;
    for (int k = 0; k < 3; k++) {
        u[k] = (lo[k] * m->inv_block_size - m->grid_origin[k]) * AL_OPEN_CELLS;
        v[k] = (hi[k] * m->inv_block_size - m->grid_origin[k]) * AL_OPEN_CELLS;
        inside &= (u[k] >= 0) & (v[k] < m->open_limit[k]);
    }
    if (!inside) { /* beyond the grid (or not finite): the outer blocks reach there */
        p->block = al_model_box_block(m, lo, hi);
        return;
    }
    unsigned a[3], b[3], diff = 0;
    for (int k = 0; k < 3; k++) {
        a[k] = (unsigned) u[k];
        b[k] = (unsigned) v[k];
        diff |= a[k] ^ b[k];
    }
    if (diff >= AL_OPEN_CELLS) {
        p->block = -1;
        p->open = open_across(m, hull, a, b);
        return;
    }
    p->block = al_model_block_index(m, (int) (a[0] >> SHIFT), (int) (a[1] >> SHIFT),
                                    (int) (a[2] >> SHIFT));
    const int32_t *starts = m->open_starts + (size_t) p->block * AL_OPEN_STARTS;
    for (unsigned level = 0; level < 3; level++) {
        unsigned shift = SHIFT - 3 + level, side = 8u >> level;
        if (diff >> shift) {
            starts += side * side * side;
            continue;
        }
        unsigned x = (a[0] & LOW) >> shift, y = (a[1] & LOW) >> shift, z = (a[2] & LOW) >> shift;
        p->start = starts[(z * side + y) * side + x];
        break;
    }
    const al_open_row *rows = m->open_rows[p->block];
    unsigned y0 = a[1] & LOW, y1 = b[1] & LOW, z0 = a[2] & LOW, z1 = b[2] & LOW;
    if (!rows || y1 - y0 > OPEN_SPAN || z1 - z0 > OPEN_SPAN) return;
    rows += (size_t) hull * AL_OPEN_CELLS * AL_OPEN_CELLS;
    al_open_row all = AL_OPEN_ALL;
    for (unsigned z = z0; z <= z1; z++)
        for (unsigned y = y0; y <= y1; y++) all &= rows[z * AL_OPEN_CELLS + y];
    al_open_row mask = al_open_span(a[0] & LOW, b[0] & LOW);
    p->open = (all & mask) == mask;
}

bool al_world_box_open(const al_world *w, int hull, const double lo[3], const double hi[3])
{
    world_place p;
    place_in_world(&w->models[0], hull, lo, hi, &p);
    return p.open;
}

/* Whether the box [LO, HI] meets model M's reach for HULL. */
static inline bool reaches(const al_world *world, int m, int hull, const double lo[3],
                           const double hi[3])
{
    const double(*r)[3] = al_model_reach(world, m, hull);
    return al_bounds_overlap(lo, hi, r[0], r[1], 0);
}

/* Whether any lane of a vector compare's result is set: one instruction where there is
 * SSE, else the plain reduction. */
static inline bool any_lane(al_int4 m)
{
#if defined(__SSE__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_ia32_movmskps((__attribute__((vector_size(16))) float) m) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

/* Traces for HULL the models of chunk CH whose lanes are set in MEETS and whose exact
 * reach the segment's box [LO, HI] meets, as trace_into. Out of line: few traces come
 * here, and the common path stays small. */
static __attribute__((noinline)) void trace_chunk(const al_world *world, int hull,
                                                  const al_reach_chunk *ch, al_int4 meets,
                                                  const double start[3], const double delta[3],
                                                  const double lo[3], const double hi[3],
                                                  al_trace *out, transition *best,
                                                  bool *end_in_band)
{
    for (int lane = 0; lane < 4; lane++) {
        int m = ch->model[lane];
        if (!meets[lane] || !reaches(world, m, hull, lo, hi)) continue;
        const al_model *model = &world->models[m];
        trace_into(model, m, 1u << hull, start, delta, al_model_box_block(model, lo, hi),
                   AL_NO_START, out, best, end_in_band);
    }
}

/* Traces for HULL those of the models listed in SPAN whose reach for the hull the
 * segment's box [LO, HI] meets, as trace_into: a chunk's four boxes are tested at once. */
static inline void trace_span(const al_world *world, int hull, al_chunk_span span,
                              const double start[3], const double delta[3], const double lo[3],
                              const double hi[3], al_trace *out, transition *best,
                              bool *end_in_band)
{
    if (span.count == 0) return;
    const al_reach_chunk *ch = &world->model_index.chunks[span.first];
    float x0 = (float) lo[0], y0 = (float) lo[1], z0 = (float) lo[2];
    float x1 = (float) hi[0], y1 = (float) hi[1], z1 = (float) hi[2];
    for (int left = span.count; left > 0; left--, ch++) {
        al_int4 meets = (x0 <= ch->hi[0]) & (ch->lo[0] <= x1) & (y0 <= ch->hi[1]) &
                        (ch->lo[1] <= y1) & (z0 <= ch->hi[2]) & (ch->lo[2] <= z1);
        if (any_lane(meets))
            trace_chunk(world, hull, ch, meets, start, delta, lo, hi, out, best, end_in_band);
    }
}

/* Traces for HULL the brush models near the segment START + t DELTA, whose box (grown by
 * the trace's epsilon) is [LO, HI] and spans several world blocks, if the box meets their
 * reach for the hull. A box of at most AL_MODEL_NEAR a side finds them all in the cell of
 * its start; a longer one collects those of every cell it covers (each tested once), or
 * tests every model. Results go to OUT, *BEST and *END_IN_BAND as trace_into's. */
static void trace_brush_models(const al_world *world, int hull, const double start[3],
                               const double delta[3], const double lo[3], const double hi[3],
                               al_trace *out, transition *best, bool *end_in_band)
{
    uint32_t bit = 1u << hull;
    const al_cell_index *cx = &world->model_index.near[hull];
    if (hi[0] - lo[0] <= AL_MODEL_NEAR && hi[1] - lo[1] <= AL_MODEL_NEAR &&
        hi[2] - lo[2] <= AL_MODEL_NEAR) {
        int c = al_cell_index_point_cell(cx, start);
        trace_span(world, hull, world->model_index.near_span[hull][c], start, delta, lo, hi, out,
                   best, end_in_band);
        return;
    }
    int a[3], b[3];
    al_cell_index_range(cx, lo, hi, a, b);
    int cells = (b[0] - a[0] + 1) * (b[1] - a[1] + 1) * (b[2] - a[2] + 1);
    enum { MAX_SEEN = 64 };
    int seen[MAX_SEEN], seen_count = 0;
    bool overflow = cells > 8;
    for (int z = a[2]; z <= b[2] && !overflow; z++)
        for (int y = a[1]; y <= b[1] && !overflow; y++)
            for (int x = a[0]; x <= b[0] && !overflow; x++) {
                int c = al_cell_index_cell(cx, x, y, z);
                for (int j = cx->start[c]; j < cx->start[c + 1]; j++) {
                    int m = cx->items[j];
                    if (!reaches(world, m, hull, lo, hi)) continue;
                    bool again = false;
                    for (int k = 0; k < seen_count; k++) again |= seen[k] == m;
                    if (again) continue;
                    if (seen_count == MAX_SEEN) {
                        overflow = true;
                        break;
                    }
                    seen[seen_count++] = m;
                }
            }
    if (overflow) {
        seen_count = 0;
        for (int m = 1; m < world->model_count; m++)
            if (reaches(world, m, hull, lo, hi)) {
                const al_model *model = &world->models[m];
                trace_into(model, m, bit, start, delta, al_model_box_block(model, lo, hi),
                           AL_NO_START, out, best, end_in_band);
            }
    }
    for (int k = 0; k < seen_count; k++) {
        const al_model *model = &world->models[seen[k]];
        trace_into(model, seen[k], bit, start, delta, al_model_box_block(model, lo, hi),
                   AL_NO_START, out, best, end_in_band);
    }
}

void al_world_trace(const al_world *world, int hull, const double start[3], const double end[3],
                    al_trace *out)
{
    out->fraction = 1.0;
    out->hit = out->start_solid = out->all_solid = false;
    out->model = out->entity = -1;
    out->end_empty = false;
    al_set(0, 0, 0, out->normal);
    if (hull < 0 || hull >= world->hull_count || !al_is_finite3(start) || !al_is_finite3(end)) {
        al_copy(start, out->end);
        al_copy(start, out->contact);
        return;
    }
    uint32_t bit = 1u << hull;
    double delta[3], lo[3], hi[3];
    al_sub(end, start, delta);
    for (int k = 0; k < 3; k++) {
        lo[k] = min2(start[k], end[k]) - TRACE_EPSILON;
        hi[k] = max2(start[k], end[k]) + TRACE_EPSILON;
    }
    transition best = {0, 0};
    bool end_in_band = false;
    /* The world, from the segment's block when it lies in one (from the node where its
     * part of the block starts), unless it lies in open cells (open.c): it then meets only
     * empty leaves of the world. */
    const al_model *world_model = &world->models[0];
    world_place place;
    place_in_world(world_model, hull, lo, hi, &place);
    int block = place.block;
    if (world_model->brush_count > 0 && !place.open)
        trace_into(world_model, 0, bit, start, delta, block, place.start, out, &best, &end_in_band);
    /* Brush models near the segment: those reaching into its block when it lies in one. */
    if (world->model_count > 1) {
        if (block >= 0 && world_model->block_count > 0)
            trace_span(world, hull,
                       world->model_index.block_span[block * world->hull_count + hull], start,
                       delta, lo, hi, out, &best, &end_in_band);
        else
            trace_brush_models(world, hull, start, delta, lo, hi, out, &best, &end_in_band);
    }
    if (out->hit && best.bits) set_normal(best, out->normal);
    finish(start, end, out);
    /* Every model the end point can lie in (point_solid tests a model only within its reach
     * for the hull, which the segment's box then overlaps) was traced plain empty to the
     * end, and no node's plane passed within TRACE_EPSILON of the end: the end's own
     * descent, in the block find_block picks, takes the same side at every node as the
     * trace's last piece, which ends in empty cells. (OUT->end is START + DELTA * 1, the
     * very point the trace was given as its end.) */
    out->end_empty = !out->hit && !out->start_solid && !out->all_solid && !end_in_band;
}

/* The block of MODEL containing P. */
static const al_block *find_block(const al_model *m, const double p[3])
{
    int x = al_model_grid_coord(m, 0, p[0]);
    int y = al_model_grid_coord(m, 1, p[1]);
    int z = al_model_grid_coord(m, 2, p[2]);
    return &m->blocks[al_model_block_index(m, x, y, z)];
}

static bool point_outside(const al_model *m, const double p[3])
{
    for (int k = 0; k < 3; k++)
        if (p[k] < m->reach_mins[k] || p[k] > m->reach_maxs[k]) return true;
    return false;
}

/* P's descent of an onion TREE for the hull of BIT: as al_tree_point_bits, but ending at
 * the first node uniform for the hull (the masks say every leaf below answers alike), as
 * the trace does. Agents ask this a few times per step each. */
static bool onion_point_solid(const al_tree *tree, uint32_t bit, const double p[3])
{
    int32_t i = tree->root;
    while (i >= 0) {
        const al_node *n = &tree->nodes[i];
        if ((n->empty_mask | n->solid_mask) & bit) return (n->solid_mask & bit) != 0;
        i = n->child[al_node_distance(n, p) >= 0 ? 0 : 1];
    }
    return (tree->leaves[-1 - i] & bit) != 0;
}

/* Whether P is solid in MODEL's trees for HULL (its onion tree, or the hull's map tree for
 * MAP_TREE); the caller has found P within the model's reach. */
static bool model_point_solid(const al_model *model, int hull, const double p[3],
                              bool map_tree)
{
    const al_block *b = find_block(model, p);
    return map_tree ? al_tree_point_bits(&b->map[hull], p) & 1u
                    : onion_point_solid(&b->onion, 1u << hull, p);
}

/* Whether P lies in an open cell of the world model M for HULL (open.c): its leaf is then
 * empty for the hull. */
static inline bool point_open(const al_model *m, int hull, const double p[3])
{
    enum { SHIFT = AL_OPEN_SHIFT, LOW = AL_OPEN_CELLS - 1 };
    if (!m->open_rows) return false;
    unsigned c[3];
    for (int k = 0; k < 3; k++) {
        double u = (p[k] * m->inv_block_size - m->grid_origin[k]) * AL_OPEN_CELLS;
        if (!(u >= 0 && u < m->open_limit[k])) return false;
        c[k] = (unsigned) u;
    }
    const al_open_row *rows = m->open_rows[al_model_block_index(
        m, (int) (c[0] >> SHIFT), (int) (c[1] >> SHIFT), (int) (c[2] >> SHIFT))];
    if (!rows) return false;
    size_t row = ((size_t) hull * AL_OPEN_CELLS + (c[2] & LOW)) * AL_OPEN_CELLS + (c[1] & LOW);
    return rows[row] >> (c[0] & LOW) & 1;
}

/* Point solidity in the onion trees, or in the hull's map trees (MAP_TREE): the world model
 * (for the onion trees, not where its open cells say it is empty), then the brush models
 * listed in P's cell of the model index whose reach for the hull holds P (the same models a
 * trace ending at P tests). */
static bool point_solid(const al_world *world, int hull, const double p[3], bool map_tree)
{
    if (hull < 0 || hull >= world->hull_count) return false;
    const al_model *world_model = &world->models[0];
    if (world_model->brush_count > 0 && !point_outside(world_model, p) &&
        (map_tree || !point_open(world_model, hull, p)) &&
        model_point_solid(world_model, hull, p, map_tree))
        return true;
    if (world->model_count <= 1) return false;
    const al_cell_index *cx = &world->model_index.near[hull];
    int c = al_cell_index_point_cell(cx, p);
    for (int j = cx->start[c]; j < cx->start[c + 1]; j++) {
        int m = cx->items[j];
        if (reaches(world, m, hull, p, p) && model_point_solid(&world->models[m], hull, p, map_tree))
            return true;
    }
    return false;
}

bool al_world_point_solid(const al_world *world, int hull, const double p[3])
{
    return point_solid(world, hull, p, false);
}

bool al_world_point_solid_map_tree(const al_world *world, int hull, const double p[3])
{
    return point_solid(world, hull, p, true);
}
