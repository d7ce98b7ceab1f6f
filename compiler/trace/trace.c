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
 */
#include "geom/vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <string.h>

#define TRACE_EPSILON 1e-6
#define TRACE_BACKOFF 0.01

typedef enum ray_class { RAY_E, RAY_S, RAY_E2S, RAY_S2E } ray_class;

typedef struct transition {
    ray_class kind;
    double t;
    const al_node *node; /* the plane crossed */
    int near;            /* child index of the side the segment came from */
} transition;

typedef struct tracework {
    const al_model *model;
    uint32_t bit;
    double start[3];
    double delta[3];
} tracework;

static transition make(ray_class kind)
{
    transition t = {kind, 0, NULL, 0};
    return t;
}

static bool is_transition(ray_class k)
{
    return k == RAY_E2S || k == RAY_S2E;
}

static transition fft(const tracework *tw, const al_tree *tree, int32_t code, double t0,
                      double t1)
{
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
        if (n->empty_mask & tw->bit) return make(RAY_E);
        if (n->solid_mask & tw->bit) return make(RAY_S);
        double ds = al_dot(n->normal, tw->start) - n->dist;
        double dd = al_dot(n->normal, tw->delta);
        double d0 = ds + t0 * dd, d1 = ds + t1 * dd;
        int s0 = d0 > TRACE_EPSILON ? 1 : d0 < -TRACE_EPSILON ? -1 : 0;
        int s1 = d1 > TRACE_EPSILON ? 1 : d1 < -TRACE_EPSILON ? -1 : 0;
        if (s0 >= 0 && s1 >= 0 && (s0 | s1)) {
            code = n->child[0];
            continue;
        }
        if (s0 <= 0 && s1 <= 0 && (s0 | s1)) {
            code = n->child[1];
            continue;
        }
        if (s0 == 0 && s1 == 0) {
            /* In the plane: both sides, then combine (seed's CP_COPLANAR). */
            transition l = fft(tw, tree, n->child[0], t0, t1);
            transition r = fft(tw, tree, n->child[1], t0, t1);
            if (l.kind == r.kind) {
                if (!is_transition(l.kind)) return l;
                return l.t <= r.t ? l : r;
            }
            if (is_transition(l.kind)) return l;
            if (is_transition(r.kind)) return r;
            return make(RAY_E);
        }
        /* Straddle: near half first. */
        double tm = t0 + (t1 - t0) * (d0 / (d0 - d1));
        if (tm < t0) tm = t0;
        if (tm > t1) tm = t1;
        int near = s0 > 0 ? 0 : 1;
        transition tn = fft(tw, tree, n->child[near], t0, tm);
        if (is_transition(tn.kind)) return tn;
        transition tf = fft(tw, tree, n->child[near ^ 1], tm, t1);
        transition here = {RAY_E, tm, n, near};
        switch (tf.kind) {
        case RAY_E:
            if (tn.kind == RAY_E) return tf;
            here.kind = RAY_S2E;
            return here;
        case RAY_S:
            if (tn.kind == RAY_S) return tf;
            here.kind = RAY_E2S;
            return here;
        case RAY_E2S:
            if (tn.kind == RAY_E) return tf;
            here.kind = RAY_S2E;
            return here;
        case RAY_S2E:
            if (tn.kind == RAY_S) return tf;
            here.kind = RAY_E2S;
            return here;
        }
    }
}

static transition trace_model(const al_model *m, uint32_t bit, const double start[3],
                              const double end[3])
{
    tracework tw = {.model = m, .bit = bit};
    al_copy(start, tw.start);
    al_sub(end, start, tw.delta);
    return fft(&tw, &m->top, m->top.root, 0.0, 1.0);
}

/* Quick rejection: the segment's box misses the model's expanded bounds. */
static bool segment_misses(const al_model *m, const double a[3], const double b[3])
{
    for (int k = 0; k < 3; k++) {
        double lo = a[k] < b[k] ? a[k] : b[k], hi = a[k] < b[k] ? b[k] : a[k];
        if (hi < m->mins[k] - 1.0 || lo > m->maxs[k] + 1.0) return true;
    }
    return false;
}

typedef struct model_hit {
    bool hit, start_solid, all_solid;
    double fraction;
    double normal[3];
} model_hit;

static void set_normal(const transition *t, double out[3])
{
    /* The contact normal faces the side the mover came from. */
    al_scale(t->node->normal, t->near == 0 ? 1.0 : -1.0, out);
}

static model_hit trace_one(const al_model *m, uint32_t bit, const double start[3],
                           const double end[3])
{
    model_hit r = {.fraction = 1.0};
    if (segment_misses(m, start, end)) return r;
    transition t = trace_model(m, bit, start, end);
    if (t.kind == RAY_E) return r;
    if (t.kind == RAY_E2S) {
        r.hit = true;
        r.fraction = t.t;
        set_normal(&t, r.normal);
        return r;
    }
    /* Starts in solid: perhaps only by rounding on a boundary; back off and retry. */
    double delta[3];
    al_sub(end, start, delta);
    double length = al_length(delta);
    if (length > 0) {
        double back[3];
        al_madd(start, delta, -TRACE_BACKOFF / length, back);
        transition u = trace_model(m, bit, back, end);
        double total = length + TRACE_BACKOFF;
        if (u.kind == RAY_E) return r;
        if (u.kind == RAY_E2S) {
            double f = (u.t * total - TRACE_BACKOFF) / length;
            r.hit = true;
            r.fraction = f > 0 ? f : 0;
            set_normal(&u, r.normal);
            return r;
        }
        if (u.kind == RAY_S2E) {
            /* Really inside: let the box move out, and stop it at the next surface. */
            r.start_solid = true;
            double f_exit = (u.t * total - TRACE_BACKOFF) / length;
            if (f_exit < 0) f_exit = 0;
            double from[3];
            al_madd(start, delta, f_exit, from);
            al_madd(from, delta, TRACE_EPSILON * 10 / length, from);
            transition v = trace_model(m, bit, from, end);
            if (v.kind == RAY_E2S) {
                double f = f_exit + (1.0 - f_exit) * v.t;
                r.hit = true;
                r.fraction = f;
                set_normal(&v, r.normal);
            }
            return r;
        }
    }
    r.start_solid = true;
    r.all_solid = t.kind == RAY_S || length == 0;
    r.hit = true;
    r.fraction = 0;
    if (t.kind == RAY_S2E) r.all_solid = false;
    return r;
}

void al_trace_finish(const double start[3], const double end[3], al_trace *out)
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

void al_world_trace(const al_world *world, int hull, const double start[3], const double end[3],
                    al_trace *out)
{
    memset(out, 0, sizeof *out);
    out->fraction = 1.0;
    out->model = -1;
    out->entity = -1;
    if (hull < 0 || hull >= world->hull_count || !al_is_finite3(start) || !al_is_finite3(end)) {
        al_copy(start, out->end);
        al_copy(start, out->contact);
        return;
    }
    uint32_t bit = 1u << hull;
    for (int m = 0; m < world->model_count; m++) {
        const al_model *model = &world->models[m];
        if (model->brush_count == 0) continue;
        model_hit r = trace_one(model, bit, start, end);
        out->start_solid |= r.start_solid;
        out->all_solid |= r.all_solid;
        if (r.hit && (!out->hit || r.fraction < out->fraction)) {
            out->hit = true;
            out->fraction = r.fraction;
            al_copy(r.normal, out->normal);
            out->model = m;
            out->entity = model->entity;
        }
    }
    al_trace_finish(start, end, out);
}

/* The block of MODEL containing P. */
static const al_block *find_block(const al_model *m, const double p[3])
{
    int32_t code = m->top.root;
    while (code >= 0) {
        const al_node *n = &m->top.nodes[code];
        code = n->child[al_dot(n->normal, p) - n->dist >= 0 ? 0 : 1];
    }
    return &m->blocks[-1 - code];
}

static bool point_outside(const al_model *m, const double p[3])
{
    for (int k = 0; k < 3; k++)
        if (p[k] < m->mins[k] - 1.0 || p[k] > m->maxs[k] + 1.0) return true;
    return false;
}

bool al_world_point_solid(const al_world *world, int hull, const double p[3])
{
    if (hull < 0 || hull >= world->hull_count) return false;
    for (int m = 0; m < world->model_count; m++) {
        const al_model *model = &world->models[m];
        if (model->brush_count == 0 || point_outside(model, p)) continue;
        if (al_tree_point_bits(&find_block(model, p)->onion, p) & (1u << hull)) return true;
    }
    return false;
}

bool al_world_point_solid_map_tree(const al_world *world, int hull, const double p[3])
{
    if (hull < 0 || hull >= world->hull_count) return false;
    for (int m = 0; m < world->model_count; m++) {
        const al_model *model = &world->models[m];
        if (model->brush_count == 0 || point_outside(model, p)) continue;
        if (al_tree_point_bits(&find_block(model, p)->map[hull], p) & 1u) return true;
    }
    return false;
}
