/* Collision queries of the runtime: swept boxes of a compiled hull through the onion trees
 * (the seed's "find first transition", onion-bsp-collision.txt), swept boxes of any size by
 * dynamic plane shifting (Melax 2000) through the point hull's bevelled trees, and point
 * solidity. They answer as the compiler's own queries do (compiler/trace), which the
 * runtime's oracle test checks on real maps.
 *
 * Entry points: alrt_trace, alrt_trace_box, alrt_point_solid, alrt_point_contents.
 * Workload: a game's traces, thousands per frame; nothing is allocated.
 *
 * A move is START + t DELTA, t in [0, 1]. A node classifies a piece [t0, t1] by the signed
 * distances of its ends, a band of TRACE_EPSILON counting as on the plane: wholly on one
 * side goes down that child, a straddle is split at the plane (near half first), a piece
 * in the plane goes down both and the answers are combined. A start that is solid only by
 * rounding is retried from a point backed off along the move, as the seed says.
 */
#include "runtime-internal.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define TRACE_EPSILON 1e-6
#define TRACE_BACKOFF 0.01
#define TRACE_HAIR    1e-4 /* units; see entered_at */

enum { RAY_E, RAY_S, RAY_E2S, RAY_S2E };

typedef struct transition {
    int kind;
    double t;
    const rt_node *node; /* whose plane was crossed */
    int near;            /* the side the move came from */
} transition;

/* Nodes a trace may visit before entered_at stops looking again past its crossings: each
 * such look visits the far subtree a second time, which a hostile file could nest down a
 * deep tree into exponential work. Real traces visit a few hundred nodes at most. */
#define TRACE_NODE_BUDGET (1 << 20)

typedef struct tracework {
    const rt_model *model;
    uint32_t bit;
    double start[3], delta[3];
    int64_t budget; /* nodes left to visit (see TRACE_NODE_BUDGET) */
} tracework;

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static bool finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static transition plain(int kind)
{
    transition t = {kind, 0, NULL, 0};
    return t;
}

static bool is_transition(int k)
{
    return k == RAY_E2S || k == RAY_S2E;
}

/* Where the descent goes in TREE from CODE; TREE is NULL for the model's top tree, whose
 * leaves are blocks. */
static transition fft(tracework *tw, const rt_tree *tree, int32_t code, double t0, double t1,
                      const double p0[3], const double p1[3]);

/* The move enters solid where it crosses N's plane at TM. The crossing may also lie on a
 * real surface whose plane is not N's (a block face or another hull's plane meeting a wall
 * there): the far side is traced again from a hair before TM, and a surface entered there
 * gives the normal. The fraction stays TM. */
static transition entered_at(tracework *tw, const rt_tree *tree, const rt_node *n, int near,
                             double t0, double tm, double t1, const double p1[3])
{
    double hair = TRACE_HAIR / sqrt(dot(tw->delta, tw->delta));
    double ts = fmax(t0, tm - hair);
    transition hit = {RAY_E2S, tm, n, near};
    if (ts < tm && tw->budget > 0) {
        double ps[3];
        for (int k = 0; k < 3; k++) ps[k] = tw->start[k] + tw->delta[k] * ts;
        transition x = fft(tw, tree, n->child[near ^ 1], ts, t1, ps, p1);
        if (x.kind == RAY_E2S && x.t <= tm + hair) hit.node = x.node, hit.near = x.near;
    }
    return hit;
}

static transition fft(tracework *tw, const rt_tree *tree, int32_t code, double t0, double t1,
                      const double p0[3], const double p1[3])
{
    for (;;) {
        tw->budget--;
        if (code < 0) {
            if (!tree) { /* a block of the model: its onion tree */
                tree = &tw->model->blocks[tw->model->top.leaves[-1 - code]].onion;
                if (tree->leaf_count == 0) return plain(RAY_E);
                code = tree->root;
                continue;
            }
            return plain(tree->leaves[-1 - code] & tw->bit ? RAY_S : RAY_E);
        }
        const rt_node *n = tree ? &tree->nodes[code] : &tw->model->top.nodes[code];
        if ((n->empty_mask | n->solid_mask) & tw->bit)
            return plain(n->solid_mask & tw->bit ? RAY_S : RAY_E);
        double d0 = dot(n->normal, p0) - n->dist, d1 = dot(n->normal, p1) - n->dist;
        double lo = fmin(d0, d1), hi = fmax(d0, d1);
        if (lo >= -TRACE_EPSILON &&
            hi > TRACE_EPSILON) { /* in front (one end may be in the band) */
            code = n->child[0];
            continue;
        }
        if (hi <= TRACE_EPSILON && lo < -TRACE_EPSILON) {
            code = n->child[1];
            continue;
        }
        if (lo >= -TRACE_EPSILON) { /* in the plane: both sides, then combine */
            transition a = fft(tw, tree, n->child[0], t0, t1, p0, p1);
            transition b = fft(tw, tree, n->child[1], t0, t1, p0, p1);
            if (a.kind == b.kind) return !is_transition(a.kind) || a.t <= b.t ? a : b;
            if (is_transition(a.kind)) return a;
            if (is_transition(b.kind)) return b;
            return plain(RAY_E);
        }
        /* A straddle: the near half first. */
        double f = fmax(0.0, fmin(d0 / (d0 - d1), 1.0));
        double tm = t0 + (t1 - t0) * f, mid[3];
        for (int k = 0; k < 3; k++) mid[k] = p0[k] + (p1[k] - p0[k]) * f;
        int near = d0 > 0 ? 0 : 1;
        transition a = fft(tw, tree, n->child[near], t0, tm, p0, mid);
        if (is_transition(a.kind)) return a;
        transition b = fft(tw, tree, n->child[near ^ 1], tm, t1, mid, p1);
        transition cross = {RAY_S2E, tm, n, near};
        switch (b.kind) {
        case RAY_E:
            return a.kind == RAY_E ? b : cross;
        case RAY_S:
            return a.kind == RAY_S ? b : entered_at(tw, tree, n, near, t0, tm, t1, p1);
        case RAY_E2S:
            return a.kind == RAY_E ? b : cross;
        default:
            cross.kind = RAY_E2S;
            return a.kind == RAY_S ? b : cross;
        }
    }
}

static transition first_transition(const rt_model *m, uint32_t bit, const double start[3],
                                   const double delta[3])
{
    tracework tw = {.model = m, .bit = bit, .budget = TRACE_NODE_BUDGET};
    double end[3];
    for (int k = 0; k < 3; k++) {
        tw.start[k] = start[k];
        tw.delta[k] = delta[k];
        end[k] = start[k] + delta[k];
    }
    return fft(&tw, NULL, m->top.root, 0.0, 1.0, start, end);
}

typedef struct model_hit {
    bool hit, start_solid, all_solid;
    double fraction;
    transition at;
} model_hit;

/* The move starts in solid, perhaps only by rounding on a boundary: retried from a point
 * backed off along the move. Really inside, the box may move out, and stops at the next
 * surface it enters. */
static model_hit resolve_start_solid(const rt_model *m, uint32_t bit, const double start[3],
                                     const double delta[3], transition first)
{
    model_hit r = {.hit = true, .start_solid = true};
    double length = sqrt(dot(delta, delta));
    if (length == 0) {
        r.all_solid = true;
        return r;
    }
    double back[3], longer[3], total = length + TRACE_BACKOFF;
    for (int k = 0; k < 3; k++) {
        back[k] = start[k] - delta[k] * (TRACE_BACKOFF / length);
        longer[k] = delta[k] * (total / length);
    }
    transition u = first_transition(m, bit, back, longer);
    if (u.kind == RAY_E) {
        r.hit = r.start_solid = false;
        r.fraction = 1;
    } else if (u.kind == RAY_E2S) {
        double f = (u.t * total - TRACE_BACKOFF) / length;
        r.start_solid = false;
        r.fraction = f > 0 ? f : 0;
        r.at = u;
    } else if (u.kind == RAY_S2E) {
        double f_exit = fmax(0.0, (u.t * total - TRACE_BACKOFF) / length);
        double f0 = f_exit + TRACE_EPSILON * 10 / length;
        if (f0 >= 1) {
            r.hit = false;
            r.fraction = 1;
            return r;
        }
        double from[3], rest[3];
        for (int k = 0; k < 3; k++) {
            from[k] = start[k] + delta[k] * f0;
            rest[k] = delta[k] * (1.0 - f0);
        }
        transition v = first_transition(m, bit, from, rest);
        r.hit = v.kind == RAY_E2S;
        r.fraction = r.hit ? f0 + (1.0 - f0) * v.t : 1.0;
        r.at = v;
    } else {
        r.all_solid = first.kind == RAY_S;
    }
    return r;
}

/* Fills in CONTACT and END from the fraction: END backs off along the move until the box
 * is ALRT_TRACE_SKIN in front of the surface. */
static void finish(const double start[3], const double end[3], alrt_hit *out)
{
    double delta[3];
    for (int k = 0; k < 3; k++) {
        delta[k] = end[k] - start[k];
        out->contact[k] = start[k] + delta[k] * out->fraction;
    }
    if (!out->hit || out->all_solid || (out->start_solid && out->fraction == 0)) {
        memcpy(out->end, out->contact, sizeof out->end);
        return;
    }
    double approach = -dot(out->normal, delta), f = out->fraction;
    if (approach > 1e-12) f -= ALRT_TRACE_SKIN / approach;
    if (f < 0) f = 0;
    for (int k = 0; k < 3; k++) out->end[k] = start[k] + delta[k] * f;
}

static void clear(const double start[3], alrt_hit *out)
{
    memset(out, 0, sizeof *out);
    out->fraction = 1.0;
    out->model = out->entity = -1;
    memcpy(out->end, start, sizeof out->end);
    memcpy(out->contact, start, sizeof out->contact);
}

/* Whether the box [LO, HI] meets model M's reach for HULL (open boxes: touching is not
 * meeting). */
static bool reaches(const rt_model *m, int hull, const double lo[3], const double hi[3])
{
    for (int k = 0; k < 3; k++)
        if (lo[k] >= m->reach[hull][1][k] || m->reach[hull][0][k] >= hi[k]) return false;
    return true;
}

void alrt_trace(const alrt_world *w, int hull, const double start[3], const double end[3],
                alrt_hit *out)
{
    clear(start, out);
    if (hull < 0 || hull >= w->hull_count || !finite3(start) || !finite3(end)) return;
    uint32_t bit = 1u << hull;
    double delta[3], lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        delta[k] = end[k] - start[k];
        lo[k] = fmin(start[k], end[k]) - TRACE_EPSILON;
        hi[k] = fmax(start[k], end[k]) + TRACE_EPSILON;
    }
    transition best = plain(RAY_E);
    for (uint32_t m = 0; m < w->model_count; m++) {
        const rt_model *model = &w->models[m];
        /* The world is traced whenever it has brushes; brush models only near the move. */
        if (!model->has_brushes || (m > 0 && !reaches(model, hull, lo, hi))) continue;
        transition t = first_transition(model, bit, start, delta);
        if (t.kind == RAY_E) continue;
        model_hit r = {.hit = true, .fraction = t.t, .at = t};
        if (t.kind != RAY_E2S) r = resolve_start_solid(model, bit, start, delta, t);
        out->start_solid |= r.start_solid;
        out->all_solid |= r.all_solid;
        if (r.hit && (!out->hit || r.fraction < out->fraction)) {
            out->hit = 1;
            out->fraction = r.fraction;
            best = r.at;
            out->model = (int) m;
            out->entity = model->entity;
        }
    }
    if (out->hit && best.node) {
        double s = best.near == 0 ? 1.0 : -1.0;
        for (int k = 0; k < 3; k++) out->normal[k] = best.node->normal[k] * s;
    }
    finish(start, end, out);
}

/* --- boxes of any size: dynamic plane shifting --------------------------------------- */

typedef struct shiftwork {
    const rt_model *model;
    double start[3], delta[3], mins[3], maxs[3];
    double t; /* the best hit so far */
    const double *normal;
    double sign;
    bool hit, start_solid;
    bool point;         /* a point: clip brushes are not solid to it (the point tree) */
    uint32_t top_empty; /* top nodes empty for all these hulls hold nothing solid (0: none) */
} shiftwork;

/* How far a plane with normal N moves out when the box [MINS, MAXS] is swept over it. */
static double box_support(const double n[3], const double mins[3], const double maxs[3])
{
    double s = 0;
    for (int k = 0; k < 3; k++) s -= fmin(n[k] * mins[k], n[k] * maxs[k]);
    return s;
}

/* Searches the piece [T0, T1] in the subtree CODE of TREE (NULL: the top tree). T0 was set
 * by crossing the plane NORMAL * SIGN, or (NORMAL NULL) is the move's start. The back child
 * sees the part of the move where n.x <= d + support(n), the front child where
 * n.x >= d - support(-n); both are searched when they overlap, the nearer entry first. */
static void shift(shiftwork *sw, const rt_tree *tree, int32_t code, double t0, double t1,
                  const double *normal, double sign)
{
    for (;;) {
        if (t0 > t1 || (sw->hit && t0 >= sw->t)) return;
        if (code < 0) {
            if (!tree) {
                const rt_block *b = &sw->model->blocks[sw->model->top.leaves[-1 - code]];
                tree = sw->point ? &b->point : &b->shift;
                if (tree->leaf_count == 0) return;
                code = tree->root;
                continue;
            }
            uint32_t leaf = tree->leaves[-1 - code];
            if (!(leaf & 1u) || (leaf & ALRT_LEAF_BEVEL_FRONT)) return;
            sw->hit = true;
            sw->t = t0;
            sw->normal = normal;
            sw->sign = sign;
            if (!normal) sw->start_solid = true;
            return;
        }
        const rt_node *n = tree ? &tree->nodes[code] : &sw->model->top.nodes[code];
        if (tree ? (n->empty_mask & 1u) != 0
                 : sw->top_empty && (n->empty_mask & sw->top_empty) == sw->top_empty)
            return;
        double neg[3] = {-n->normal[0], -n->normal[1], -n->normal[2]};
        double grow_back = box_support(n->normal, sw->mins, sw->maxs);
        double grow_front = box_support(neg, sw->mins, sw->maxs);
        double ds = dot(n->normal, sw->start) - n->dist, dd = dot(n->normal, sw->delta);
        double b0 = t0, b1 = t1, f0 = t0, f1 = t1, bs = sign, fs = sign;
        const double *bn = normal, *fn = normal;
        if (dd == 0) {
            if (ds > grow_back) b0 = 2, b1 = 1;
            if (ds < -grow_front) f0 = 2, f1 = 1;
        } else {
            double tb = (grow_back - ds) / dd, tf = (-grow_front - ds) / dd;
            if (dd > 0) {
                if (tb < b1) b1 = tb;
                if (tf > f0) f0 = tf, fn = n->normal, fs = -1.0;
            } else {
                if (tb > b0) b0 = tb, bn = n->normal, bs = 1.0;
                if (tf < f1) f1 = tf;
            }
        }
        bool back_ok = b0 <= b1, front_ok = f0 <= f1;
        if (!back_ok && !front_ok) return;
        if (!back_ok) {
            code = n->child[0];
            t0 = f0, t1 = f1, normal = fn, sign = fs;
        } else if (!front_ok) {
            code = n->child[1];
            t0 = b0, t1 = b1, normal = bn, sign = bs;
        } else if (f0 <= b0) { /* both: the one entered first goes first, and prunes the other */
            shift(sw, tree, n->child[0], f0, f1, fn, fs);
            code = n->child[1];
            t0 = b0, t1 = b1, normal = bn, sign = bs;
        } else {
            shift(sw, tree, n->child[1], b0, b1, bn, bs);
            code = n->child[0];
            t0 = f0, t1 = f1, normal = fn, sign = fs;
        }
    }
}

void alrt_trace_box(const alrt_world *w, const double mins[3], const double maxs[3],
                    const double start[3], const double end[3], alrt_hit *out)
{
    clear(start, out);
    if (!finite3(start) || !finite3(end) || !finite3(mins) || !finite3(maxs)) return;
    bool point = true;
    for (int k = 0; k < 3; k++) point = point && mins[k] == 0 && maxs[k] == 0;
    uint32_t top_empty = 1u;
    if (!point)
        top_empty = w->hull_count < 2     ? 0u
                    : w->hull_count >= 32 ? 0xffffffffu
                                          : (1u << w->hull_count) - 1u;
    for (int pass = 0; pass < 2; pass++) {
        /* Pass 0 sweeps the move; pass 1, after a start in solid, asks whether the end is
         * inside too (the move then never leaves solid). */
        if (pass == 1 && !out->start_solid) break;
        for (uint32_t m = 0; m < w->model_count; m++) {
            const rt_model *model = &w->models[m];
            if (!model->has_brushes) continue;
            bool miss = false;
            for (int k = 0; k < 3 && !miss && pass == 0; k++) {
                double lo = fmin(start[k], end[k]) + mins[k], hi = fmax(start[k], end[k]) + maxs[k];
                miss = hi < model->mins[k] - 1.0 || lo > model->maxs[k] + 1.0;
            }
            if (miss) continue;
            shiftwork sw = {.model = model, .point = point, .top_empty = top_empty};
            for (int k = 0; k < 3; k++) {
                sw.start[k] = pass == 0 ? start[k] : end[k];
                sw.delta[k] = pass == 0 ? end[k] - start[k] : 0;
                sw.mins[k] = mins[k];
                sw.maxs[k] = maxs[k];
            }
            shift(&sw, NULL, model->top.root, 0.0, pass == 0 ? 1.0 : 0.0, NULL, 0.0);
            if (!sw.hit) continue;
            if (pass == 1) {
                if (sw.start_solid) out->all_solid = 1;
                continue;
            }
            if (sw.start_solid) {
                out->start_solid = 1;
                sw.t = 0;
            }
            if (!out->hit || sw.t < out->fraction) {
                out->hit = 1;
                out->fraction = sw.t;
                for (int k = 0; k < 3; k++) out->normal[k] = sw.normal ? sw.normal[k] * sw.sign : 0;
                out->model = (int) m;
                out->entity = model->entity;
            }
        }
    }
    if (out->start_solid) out->fraction = 0;
    finish(start, end, out);
}

/* --- points -------------------------------------------------------------------------- */

/* Whether P is solid for the hull of BIT in MODEL's onion trees, descending until a node
 * is uniform for the hull. */
static bool model_point_solid(const rt_model *m, uint32_t bit, const double p[3])
{
    const rt_tree *t = &rt_find_block(m, p)->onion;
    if (t->leaf_count == 0) return false;
    int32_t i = t->root;
    while (i >= 0) {
        const rt_node *n = &t->nodes[i];
        if ((n->empty_mask | n->solid_mask) & bit) return (n->solid_mask & bit) != 0;
        i = n->child[dot(n->normal, p) - n->dist >= 0 ? 0 : 1];
    }
    return (t->leaves[-1 - i] & bit) != 0;
}

int alrt_point_solid(const alrt_world *w, int hull, const double p[3])
{
    if (hull < 0 || hull >= w->hull_count || !finite3(p)) return 0;
    const rt_model *world = &w->models[0];
    bool outside = false;
    for (int k = 0; k < 3; k++)
        outside |= p[k] < world->reach_mins[k] || p[k] > world->reach_maxs[k];
    if (world->has_brushes && !outside && model_point_solid(world, 1u << hull, p)) return 1;
    for (uint32_t m = 1; m < w->model_count; m++) {
        const rt_model *model = &w->models[m];
        if (model->has_brushes && reaches(model, hull, p, p) &&
            model_point_solid(model, 1u << hull, p))
            return 1;
    }
    return 0;
}

alrt_contents alrt_point_contents(const alrt_world *w, int hull, const double p[3])
{
    if (alrt_point_solid(w, hull, p)) return ALRT_CONTENTS_SOLID;
    if (!finite3(p)) return ALRT_CONTENTS_EMPTY;
    for (uint32_t i = 0; i < w->liquid_count; i++) {
        const rt_liquid *l = &w->liquids[i];
        bool in = true;
        for (int k = 0; k < 3; k++) in = in && p[k] >= l->mins[k] && p[k] <= l->maxs[k];
        for (uint32_t j = 0; j < l->plane_count && in; j++)
            in = dot(l->planes[j], p) - l->planes[j][3] <= 0;
        if (in) return (alrt_contents) l->contents;
    }
    return ALRT_CONTENTS_EMPTY;
}
