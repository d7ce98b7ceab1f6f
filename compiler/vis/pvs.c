/* Potentially visible sets from portals (see vis.h).
 *
 * Every portal between two vis leaves is used in both directions. A directed portal leads
 * from its source leaf into its destination leaf, and its plane faces the destination.
 *
 * Coarse pass (a flood, the thesis's and Quake's "base vis"). A line of sight that enters
 * the destination through portal D and later crosses portal E crosses E in front of D's
 * plane, having crossed D behind E's plane. So a flood from D's destination that only
 * goes through portals E with some point in front of D (and D some point behind E) finds
 * every leaf a line through D can reach: D's "might see" set. A leaf's coarse PVS is
 * itself and the might-see sets of its portals.
 *
 * Tight pass (portal flow with separating planes, as Quake's vis does it). From each
 * directed portal D, walk the leaves beyond it, carrying the part of D (the source) and of
 * the last portal passed (the pass) that lines of sight can still use. Entering a next
 * portal E (the target), cut E to the front of D's plane and of the pass's plane, cut the
 * source to the back of E's plane, then cut the target by the separating planes: planes
 * through an edge of the source and a corner of the pass that have the source wholly
 * behind and the pass wholly in front; lines from the source through the pass stay in
 * front of them. The same with the roles of source and pass swapped, and then the source
 * by planes from the target and the pass. If anything remains, E's destination is
 * visible through D, and the walk goes on from there. A walk stops where the leaves still
 * reachable (the might-see set narrowed by finished portals' results) hold nothing new.
 *
 * Pruning dominated arrivals. Many chains of portals reach the same portal E (open areas
 * cut into many leaves give many orders to cross them in), and what the walk finds
 * beyond E depends only on E, the source, the target on E and the might-see set: every
 * later cut is monotone in them, since a smaller source and target have fewer separating
 * planes' worth of lines. So an arrival whose source, target and might-see set lie inside
 * those of an earlier arrival at E (in the same walk) can find nothing the earlier one did
 * not, and is skipped. Up to MEMO_KEEP arrivals per portal are kept to compare with. On
 * e1m1 this halves the chains walked and leaves every row the same (the test of the pruning
 * compares the rows with and without it and the next pruning below).
 *
 * Stopping where nothing still looked for is in reach. A walk goes on from a leaf as long
 * as its might-see set holds a leaf not yet seen, wherever that leaf lies. But every line
 * through the source and the pass stays, beyond the pass, in front of the pass's plane and
 * of each separating plane, and it enters any leaf through one of the portals into that
 * leaf. So once a frame's separating planes are known, the walk checks the box of the
 * portals into each unseen leaf of its might-see set against those planes (with a slack of
 * REACH_SLACK); if every box lies behind one of them, the frame is left. Leaves out of
 * reach are also struck from the frame's might-see set, and so from every frame beyond
 * it (their lines are among this one's). The previous frame's planes are tried first, at
 * no cost: every true line through this frame passed that one's source and pass too. On
 * e1m1 the walks take 1.8 M chains instead of 5.8 M, about 4 times faster. They drop a
 * few pairs (82 of 229,000 on e1m1) that the flow without this keeps only through its
 * cutting slack: a test compares the two on real maps and looks for lines of sight
 * between every dropped pair.
 *
 * Conservative by construction: every cut keeps a slack of VIS_SLACK behind its plane,
 * separating planes are only used when the pass is wholly in front up to rounding, and a
 * polygon too long for the fixed buffers is left uncut. Both passes run on every thread;
 * the flow starts with the portals that might see least, whose finished results then
 * bound the walks of the others. Rows are made symmetric by keeping a pair only when both
 * leaves' rows hold it: each row is a superset of what its leaf really sees, and seeing is
 * symmetric, so the intersection is one too.
 *
 * After an edit (al_vis_options.previous). A directed portal's might-see set depends only
 * on the portals leaving the leaves it reaches; its visible set only on the geometry of
 * those leaves (every line through the portal stays in them). So where a portal was copied
 * from the previous world (portals.c) and its previous might-see set reaches no leaf that
 * a changed portal touches (nor a leaf of a rebuilt block), both its sets are the previous
 * ones, renumbered, and only the other portals are flooded and walked. If any unchanged
 * leaf went into or out of the void (a leak opened or closed), everything is built anew.
 * The coarse rows then equal a full build's exactly; the tight sets taken are what the
 * previous walk found, conservative as ever (a walk's narrowing by other portals' finished
 * sets depends on their order, so a full build may cut a few more leaves).
 *
 * Workload: e1m1 about 1,300 vis leaves and 7,000 directed portals.
 */
#include "vis.h"

#include "al-clock.h"
#include "al-parallel.h"
#include "al-vec3.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIS_SLACK 0.01     /* units kept behind every cutting plane */
#define SIDE_EPSILON 1e-7  /* rounding allowance when testing which side a point is on */
#define FRONT_EPSILON 1e-3 /* a portal must reach this far in front to be "in front" */
#define MAX_POINTS 64      /* points of a polygon during the flow */
#define MAX_SEPARATORS 96  /* separating planes kept per step; more are left out */
#define REACH_SLACK 0.1    /* units a leaf's box may lie behind a plane and still count */

typedef struct dportal {
    int32_t src, dst; /* clusters */
    double normal[3], dist;
    double center[3], radius;
    int count;
    double (*points)[3];
    uint64_t *might; /* row_words */
    uint64_t *vis;
    int might_count;
    atomic_int done;
} dportal;

typedef struct pvs_state {
    al_vis *vis;
    const int32_t *flooded; /* the directed portals the coarse pass floods (the others'
                               sets were taken from the previous world); NULL: all */
    int32_t flood_count;
    int32_t clusters;
    int32_t words;
    dportal *portals;
    int32_t count;
    int32_t *out_first, *out; /* directed portals leaving each cluster */
    int32_t *order;           /* flow order: fewest might-see leaves first */
    double (*box)[2][3];      /* per cluster: centre and half size of the box of the portals
                                 into it */
    /* per worker */
    int threads;
    int32_t **stack;
    struct frame **frames;
    int *frame_capacity;
    int64_t *chains;
    struct memo *memos;
    int64_t *dominated;
} pvs_state;

static double plane_dist(const dportal *p, const double x[3])
{
    return al_dot(p->normal, x) - p->dist;
}

/* True if a line of sight through D can cross E afterwards (see the coarse pass). */
static bool might_follow(const dportal *d, const dportal *e)
{
    double c = plane_dist(d, e->center);
    if (c + e->radius <= FRONT_EPSILON) return false;
    if (c - e->radius <= FRONT_EPSILON) {
        bool front = false;
        for (int i = 0; i < e->count && !front; i++) front = plane_dist(d, e->points[i]) > FRONT_EPSILON;
        if (!front) return false;
    }
    c = plane_dist(e, d->center);
    if (c - d->radius >= -FRONT_EPSILON) return false;
    if (c + d->radius >= -FRONT_EPSILON) {
        bool behind = false;
        for (int i = 0; i < d->count && !behind; i++) behind = plane_dist(e, d->points[i]) < -FRONT_EPSILON;
        if (!behind) return false;
    }
    return true;
}

static bool cancelled(const pvs_state *s)
{
    return s->vis->cancel && __atomic_load_n(s->vis->cancel, __ATOMIC_RELAXED);
}

static void coarse_job(void *context, int index, int worker)
{
    pvs_state *s = context;
    /* A newer edit stops the pass (al_vis_pvs reports it). */
    if (cancelled(s)) return;
    dportal *d = &s->portals[s->flooded ? s->flooded[index] : index];
    int32_t *stack = s->stack[worker];
    int top = 0;
    al_bit_set(d->might, d->dst);
    stack[top++] = d->dst;
    while (top > 0) {
        int32_t c = stack[--top];
        for (int32_t i = s->out_first[c]; i < s->out_first[c + 1]; i++) {
            const dportal *e = &s->portals[s->out[i]];
            if (al_bit_test(d->might, e->dst)) continue;
            if (!might_follow(d, e)) continue;
            al_bit_set(d->might, e->dst);
            stack[top++] = e->dst;
        }
    }
    int n = 0;
    for (int w = 0; w < s->words; w++) n += __builtin_popcountll(d->might[w]);
    d->might_count = n;
}

/* --- the flow ------------------------------------------------------------------------- */

typedef struct frame {
    double source[MAX_POINTS][3];
    double pass[MAX_POINTS][3];
    int source_count, pass_count; /* pass_count 0: the first leaf beyond the base portal */
    const dportal *portal;       /* the portal passed to get here */
    uint64_t *might;
    /* Separating planes of this frame's source and pass, found when first needed and
     * shared by every portal leaving the leaf (-1: not yet). */
    int sep_count;
    double sep[MAX_SEPARATORS][4];
} frame;

/* Arrivals at portals during one base's walk (see dominated). */
typedef struct arrival {
    int32_t next;          /* the portal's previous arrival, or -1 */
    int32_t ns, nt;        /* source and target points */
    int64_t points, might; /* offsets into the pools */
} arrival;

typedef struct memo {
    uint32_t stamp;        /* the walk the heads belong to */
    uint32_t *head_stamp;  /* per directed portal */
    int32_t *head;
    arrival *arr;
    int32_t arr_count, arr_cap;
    double (*pts)[3];
    int64_t pts_count, pts_cap;
    uint64_t *bits;
    int64_t bits_count, bits_cap;
} memo;

typedef struct flow {
    memo *m;
    pvs_state *s;
    int worker;
    const dportal *base;
    uint64_t *seen; /* the base's visible set being built */
} flow;

/* Walks deeper than this take the rest of their might-see set as seen (conservative). */
#define MAX_DEPTH 8192

/* Keeps the part of the polygon P (COUNT points, room for MAX_POINTS) in front of
 * {N, D} with slack, in place. Returns the new count, 0 if nothing is left; a polygon that
 * would not fit is kept whole. */
static int cut(double (*p)[3], int count, const double n[3], double d)
{
    double dist[MAX_POINTS];
    int behind = 0;
    d -= VIS_SLACK;
    for (int i = 0; i < count; i++) {
        dist[i] = n[0] * p[i][0] + n[1] * p[i][1] + n[2] * p[i][2] - d;
        behind += dist[i] < 0;
    }
    if (behind == 0) return count;
    if (behind == count) return 0;
    double out[MAX_POINTS][3];
    int m = 0;
    for (int i = 0; i < count; i++) {
        int j = i + 1 == count ? 0 : i + 1;
        if (dist[i] >= 0) {
            if (m == MAX_POINTS) return count;
            memcpy(out[m++], p[i], sizeof out[0]);
        }
        if ((dist[i] < 0) != (dist[j] < 0) && dist[i] != 0 && dist[j] != 0) {
            if (m == MAX_POINTS) return count;
            double t = dist[i] / (dist[i] - dist[j]);
            for (int k = 0; k < 3; k++) out[m][k] = p[i][k] + t * (p[j][k] - p[i][k]);
            m++;
        }
    }
    memcpy(p, out, (size_t) m * sizeof out[0]);
    return m;
}

/* Appends to PLANES (room for MAX, COUNT used) the separating planes of A and B (see the
 * top of the file): planes through an edge of A and a corner of B with A behind and B in
 * front, each as {normal, dist}; FLIP turns them to keep the back instead. Returns the new
 * count.
 *
 * Seen along an edge of A, the planes through the edge turn about it, and B's corners lie
 * at angles around it. Only the two outermost corners can give a plane with all of B on
 * one side, so one pass over B finds them (the sign of det(edge, b_c - a, b_k - a) says
 * whether b_k lies further round than b_c); each is then checked whole, which also
 * rejects the case where B wraps more than half way round the edge. Planes through inner
 * corners cut B and are never separating, so nothing is lost against trying every pair. */
static int find_separators(const double (*a)[3], int na, const double (*b)[3], int nb,
                           bool flip, double (*planes)[4], int count, int max)
{
    double centre[3] = {0, 0, 0};
    for (int k = 0; k < na; k++) al_add(centre, a[k], centre);
    al_scale(centre, 1.0 / na, centre);
    double sign = flip ? -1.0 : 1.0;
    for (int i = 0; i < na && count < max; i++) {
        int l = i + 1 == na ? 0 : i + 1;
        double edge[3];
        al_sub(a[l], a[i], edge);
        int corner[2] = {-1, -1}; /* the corners furthest round one way and the other */
        double n[2][3];
        for (int j = 0; j < nb; j++) {
            double v[3], c[3];
            al_sub(b[j], a[i], v);
            al_cross(edge, v, c);
            if (al_dot(c, c) < 1e-12) continue; /* on the edge's line */
            if (corner[0] < 0) {
                corner[0] = corner[1] = j;
                al_copy(c, n[0]);
                al_copy(c, n[1]);
                continue;
            }
            if (al_dot(n[0], v) > 0) {
                corner[0] = j;
                al_copy(c, n[0]);
            } else if (al_dot(n[1], v) < 0) {
                corner[1] = j;
                al_copy(c, n[1]);
            }
        }
        if (corner[0] < 0) continue;
        for (int e = 0; e < 2 && count < max; e++) {
            if (e == 1 && corner[1] == corner[0]) break;
            /* B lies behind n[0] and in front of n[1]: turn both to have B in front. The
             * tests run on the plane before it is made unit length (d < -eps |p| as
             * d < 0 and d^2 > eps^2 |p|^2), so a rejected plane costs no root. */
            double p[3];
            al_scale(n[e], e == 0 ? -1.0 : 1.0, p);
            double len2 = al_dot(p, p), eps2 = SIDE_EPSILON * SIDE_EPSILON * len2;
            double dist = al_dot(b[corner[e]], p);
            double dc = al_dot(centre, p) - dist;
            if (dc >= 0 || dc * dc <= eps2) continue; /* A must be behind */
            bool separating = true, front = false;
            for (int k = 0; k < nb; k++) {
                double d = al_dot(b[k], p) - dist;
                if (d * d <= eps2) continue;
                if (d < 0) {
                    separating = false;
                    break;
                }
                front = true;
            }
            if (!separating || !front) continue;
            double unit = 1.0 / sqrt(len2);
            al_scale(p, unit, p);
            dist *= unit;
            planes[count][0] = sign * p[0];
            planes[count][1] = sign * p[1];
            planes[count][2] = sign * p[2];
            planes[count][3] = sign * dist;
            count++;
        }
    }
    return count;
}

static frame *get_frame(flow *f, int depth)
{
    pvs_state *s = f->s;
    frame **frames = &s->frames[f->worker];
    int *capacity = &s->frame_capacity[f->worker];
    if (depth >= *capacity) {
        int c = *capacity ? *capacity * 2 : 64;
        while (c <= depth) c *= 2;
        frame *grown = realloc(*frames, (size_t) c * sizeof *grown);
        if (!grown) return NULL;
        for (int i = *capacity; i < c; i++) grown[i].might = NULL;
        *frames = grown;
        *capacity = c;
    }
    frame *fr = &(*frames)[depth];
    if (!fr->might) fr->might = malloc((size_t) s->words * sizeof(uint64_t));
    return fr->might ? fr : NULL;
}

/* Walks the leaves beyond the portal of frame DEPTH, which has been entered. Returns false
 * if memory ran out. Frames live in a per-worker array that may move when it grows, so
 * they are re-fetched by depth after every call that can grow it. */

/* Whether every point of A lies inside convex polygon B (same plane, normal N). */
static bool inside_polygon(const double (*a)[3], int na, const double (*b)[3], int nb,
                           const double n[3])
{
    double c[3] = {0, 0, 0};
    for (int k = 0; k < nb; k++) al_add(c, b[k], c);
    al_scale(c, 1.0 / nb, c);
    for (int k = 0; k < nb; k++) {
        int l = k + 1 == nb ? 0 : k + 1;
        double e[3], en[3], v[3];
        al_sub(b[l], b[k], e);
        al_cross(n, e, en);
        al_sub(c, b[k], v);
        double sign = al_dot(en, v) < 0 ? -1.0 : 1.0;
        for (int i = 0; i < na; i++) {
            al_sub(a[i], b[k], v);
            if (sign * al_dot(en, v) < -1e-6 * al_length(en)) return false;
        }
    }
    return true;
}

#define MEMO_KEEP 16

/* True if the walk has already gone on from portal E with a source, target and might-see
 * set that hold these: going on again could find nothing new. Otherwise keeps this
 * arrival (up to MEMO_KEEP per portal). */
static bool dominated(flow *f, int32_t e, const double (*src)[3], int ns,
                      const double (*tgt)[3], int nt, const uint64_t *might)
{
    memo *m = f->m;
    pvs_state *s = f->s;
    const dportal *pe = &s->portals[e], *base = f->base;
    int kept = 0;
    if (m->head_stamp[e] == m->stamp) {
        for (int32_t a = m->head[e]; a >= 0; a = m->arr[a].next, kept++) {
            const arrival *r = &m->arr[a];
            const uint64_t *rm = m->bits + r->might;
            bool sub = true;
            for (int w = 0; w < s->words && sub; w++) sub = (might[w] & ~rm[w]) == 0;
            if (!sub) continue;
            const double (*rp)[3] = (const double (*)[3]) (m->pts + r->points);
            if (inside_polygon(tgt, nt, rp + r->ns, r->nt, pe->normal) &&
                inside_polygon(src, ns, rp, r->ns, base->normal))
                return true;
        }
    } else {
        m->head_stamp[e] = m->stamp;
        m->head[e] = -1;
    }
    if (kept >= MEMO_KEEP) return false;
    if (m->arr_count == m->arr_cap) {
        int32_t c = m->arr_cap ? 2 * m->arr_cap : 1024;
        arrival *g = realloc(m->arr, (size_t) c * sizeof *g);
        if (!g) return false;
        m->arr = g, m->arr_cap = c;
    }
    if (m->pts_count + ns + nt > m->pts_cap) {
        int64_t c = m->pts_cap ? 2 * m->pts_cap : 8192;
        while (c < m->pts_count + ns + nt) c *= 2;
        double (*g)[3] = realloc(m->pts, (size_t) c * sizeof *g);
        if (!g) return false;
        m->pts = g, m->pts_cap = c;
    }
    if (m->bits_count + s->words > m->bits_cap) {
        int64_t c = m->bits_cap ? 2 * m->bits_cap : 8192;
        while (c < m->bits_count + s->words) c *= 2;
        uint64_t *g = realloc(m->bits, (size_t) c * sizeof *g);
        if (!g) return false;
        m->bits = g, m->bits_cap = c;
    }
    arrival *r = &m->arr[m->arr_count];
    r->ns = ns, r->nt = nt;
    r->points = m->pts_count;
    memcpy(m->pts + m->pts_count, src, (size_t) ns * sizeof src[0]);
    memcpy(m->pts + m->pts_count + ns, tgt, (size_t) nt * sizeof tgt[0]);
    m->pts_count += ns + nt;
    r->might = m->bits_count;
    memcpy(m->bits + m->bits_count, might, (size_t) s->words * sizeof *might);
    m->bits_count += s->words;
    r->next = m->head[e];
    m->head[e] = m->arr_count++;
    return false;
}

/* Whether lines through the frame's source and pass can reach some leaf of its might-see
 * set not yet seen (PLANES: this frame's separating planes, or an earlier frame's); the
 * unseen leaves they cannot reach are struck from that set. Such a line enters the leaf
 * through one of the portals into it, in front of the pass's plane and of every
 * separating plane; a leaf whose portals' box lies wholly behind one of them cannot be
 * reached. */
static bool reaches_any(const flow *f, frame *fr, const frame *planes)
{
    const pvs_state *s = f->s;
    const dportal *pass = fr->portal;
    bool any = false;
    for (int w = 0; w < s->words; w++) {
        uint64_t out = 0;
        for (uint64_t bits = fr->might[w] & ~f->seen[w]; bits; bits &= bits - 1) {
            const double (*b)[3] = s->box[w * 64 + __builtin_ctzll(bits)];
            bool in = true;
            for (int k = -1; k < planes->sep_count && in; k++) {
                const double *n = k < 0 ? pass->normal : planes->sep[k];
                double d = k < 0 ? pass->dist : planes->sep[k][3];
                double r = fabs(n[0]) * b[1][0] + fabs(n[1]) * b[1][1] + fabs(n[2]) * b[1][2];
                in = al_dot(n, b[0]) + r - d > -REACH_SLACK;
            }
            if (in) any = true;
            else out |= bits & -bits;
        }
        fr->might[w] &= ~out;
    }
    return any;
}

static bool walk(flow *f, int32_t leaf, int depth)
{
    pvs_state *s = f->s;
    if (cancelled(s)) return false; /* the portal keeps its coarse row */
    s->chains[f->worker]++;
    al_bit_set(f->seen, leaf);
    for (int32_t i = s->out_first[leaf]; i < s->out_first[leaf + 1]; i++) {
        const dportal *e = &s->portals[s->out[i]];
        frame *prev = &s->frames[f->worker][depth];
        if (!al_bit_test(prev->might, e->dst)) continue;
        frame *next = get_frame(f, depth + 1);
        if (!next) return false;
        prev = &s->frames[f->worker][depth];
        const uint64_t *test =
            atomic_load_explicit(&((dportal *) e)->done, memory_order_acquire) ? e->vis : e->might;
        uint64_t more = 0;
        for (int w = 0; w < s->words; w++) {
            next->might[w] = prev->might[w] & test[w];
            more |= next->might[w] & ~f->seen[w];
        }
        if (!more && al_bit_test(f->seen, e->dst)) continue;
        /* Back out through a portal on the plane just crossed: only lines in the plane. */
        if (prev->portal && prev->portal->src == e->dst &&
            al_dot(prev->portal->normal, e->normal) < -1 + 1e-9 &&
            e->dist + prev->portal->dist < 1e-6 && e->dist + prev->portal->dist > -1e-6)
            continue;
        if (depth + 1 >= MAX_DEPTH || e->count > MAX_POINTS) {
            for (int w = 0; w < s->words; w++) f->seen[w] |= next->might[w];
            al_bit_set(f->seen, e->dst);
            continue;
        }
        const dportal *base = f->base;
        double (*target)[3] = next->pass;
        memcpy(target, e->points, (size_t) e->count * sizeof target[0]);
        int nt = cut(target, e->count, base->normal, base->dist);
        if (nt == 0) continue;
        next->portal = e;
        if (prev->pass_count == 0) {
            /* The first portal beyond the base: only the base's own plane can cut it. */
            memcpy(next->source, prev->source, (size_t) prev->source_count * sizeof next->source[0]);
            next->source_count = prev->source_count;
            next->pass_count = nt;
            next->sep_count = -1;
            if (!walk(f, e->dst, depth + 1)) return false;
            continue;
        }
        nt = cut(target, nt, prev->portal->normal, prev->portal->dist);
        if (nt == 0) continue;
        double back[3];
        al_scale(e->normal, -1.0, back);
        memcpy(next->source, prev->source, (size_t) prev->source_count * sizeof next->source[0]);
        int ns = cut(next->source, prev->source_count, back, -e->dist);
        if (ns == 0) continue;
        if (prev->sep_count < 0) {
            /* Lines through this frame also pass the frame before: its planes are free. */
            if (depth > 1 && !s->vis->flow_unpruned) {
                const frame *before = &s->frames[f->worker][depth - 1];
                if (before->sep_count > 0 && !reaches_any(f, prev, before)) return true;
            }
            const double (*src)[3] = (const double (*)[3]) prev->source;
            const double (*pass)[3] = (const double (*)[3]) prev->pass;
            int c = find_separators(src, prev->source_count, pass, prev->pass_count, false,
                                    prev->sep, 0, MAX_SEPARATORS);
            prev->sep_count = find_separators(pass, prev->pass_count, src, prev->source_count,
                                              true, prev->sep, c, MAX_SEPARATORS);
            if (!s->vis->flow_unpruned && !reaches_any(f, prev, prev)) return true;
        }
        for (int k = 0; k < prev->sep_count && nt > 0; k++) {
            const double *sep = prev->sep[k];
            /* The whole portal in front: nothing to cut. */
            if (al_dot(sep, e->center) - sep[3] - e->radius >= -VIS_SLACK) continue;
            nt = cut(target, nt, sep, sep[3]);
        }
        if (nt == 0) continue;
        if (f->m && dominated(f, (int32_t) (e - s->portals), (const double (*)[3]) next->source, ns,
                              (const double (*)[3]) target, nt, next->might)) {
            s->dominated[f->worker]++;
            continue;
        }
        next->source_count = ns;
        next->pass_count = nt;
        next->sep_count = -1;
        if (!walk(f, e->dst, depth + 1)) return false;
    }
    return true;
}

static void flow_job(void *context, int index, int worker)
{
    pvs_state *s = context;
    dportal *d = &s->portals[s->order[index]];
    flow f = {.s = s, .worker = worker, .base = d, .seen = d->vis};
    memo *m = s->memos ? &s->memos[worker] : NULL;
    if (m && !m->head) m->head = malloc(((size_t) s->count + 1) * sizeof *m->head);
    if (m && !m->head_stamp) m->head_stamp = calloc((size_t) s->count + 1, sizeof *m->head_stamp);
    if (m && m->head && m->head_stamp) { /* else the walk goes without (slower, same result) */
        f.m = m;
        m->stamp++;
        m->arr_count = 0, m->pts_count = 0, m->bits_count = 0;
    }
    frame *head = get_frame(&f, 0);
    bool ok = head != NULL && d->count <= MAX_POINTS;
    if (ok) {
        memcpy(head->source, d->points, (size_t) d->count * sizeof head->source[0]);
        head->source_count = d->count;
        head->pass_count = 0;
        head->sep_count = 0; /* no pass, no separating planes */
        head->portal = d;
        memcpy(head->might, d->might, (size_t) s->words * sizeof(uint64_t));
        ok = walk(&f, d->dst, 0);
    }
    if (!ok) /* out of memory or a huge polygon: the coarse answer, still conservative */
        memcpy(d->vis, d->might, (size_t) s->words * sizeof(uint64_t));
    atomic_store_explicit(&d->done, 1, memory_order_release);
    if (s->vis->progress) __atomic_add_fetch(&s->vis->progress[1], 1, __ATOMIC_RELAXED);
}

typedef struct order_key {
    int32_t count, index;
} order_key;

static int compare_keys(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* --- sets taken from the previous world ------------------------------------------- */

/* For each of our N directed portals, the previous world's whose sets hold for it
 * (FROM[d], -1 if none), and the map from the previous world's clusters to ours (MAP, -1
 * for a cluster a changed portal touches). False if nothing can be taken. */
static bool plan_reuse(const pvs_state *s, int32_t *from, int32_t *map)
{
    const al_vis *vis = s->vis, *prev = vis->previous;
    if (!prev || !prev->dportal_might || !prev->portal_dportal || !vis->block_copied ||
        !vis->blocks_copied || prev->block_count != vis->block_count)
        return false;
    uint8_t *dirty = calloc((size_t) prev->leaf_count + 1, 1);
    uint64_t *mask = calloc((size_t) prev->row_words + 1, sizeof *mask);
    bool ok = dirty && mask;
    /* Leaves of rebuilt blocks, and leaves a portal of theirs touches (which the previous
     * world's rebuilt blocks owned). */
    for (int b = 0; ok && b < prev->block_count; b++) {
        if (vis->block_copied[b]) continue;
        for (int32_t l = prev->leaf_base[b]; l < prev->leaf_base[b + 1]; l++) dirty[l] = 1;
        for (int32_t i = prev->block_portal_first[b]; i < prev->block_portal_first[b + 1]; i++)
            dirty[prev->portals[i].leaf[0]] = dirty[prev->portals[i].leaf[1]] = 1;
    }
    for (int32_t c = 0; ok && c < prev->cluster_count; c++) {
        int32_t l = prev->cluster_leaf[c];
        map[c] = -1;
        if (dirty[l]) {
            al_bit_set(mask, c);
            continue;
        }
        int b = al_vis_block_of_leaf(prev, l);
        map[c] = vis->leaf_cluster[vis->leaf_base[b] + (l - prev->leaf_base[b])];
    }
    /* An unchanged leaf that went into or out of the void changes which portals are vis
     * portals: then nothing is taken. */
    for (int32_t l = 0; ok && l < prev->leaf_count; l++) {
        if (dirty[l]) continue;
        int b = al_vis_block_of_leaf(prev, l);
        int32_t nl = vis->leaf_base[b] + (l - prev->leaf_base[b]);
        ok = (prev->leaf_cluster[l] >= 0) == (vis->leaf_cluster[nl] >= 0);
    }
    int32_t taken = 0;
    for (int32_t d = 0; d < s->count; d++) from[d] = -1;
    for (int b = 0; ok && b < vis->block_count; b++) {
        if (!vis->block_copied[b]) continue;
        for (int32_t i = vis->block_portal_first[b]; i < vis->block_portal_first[b + 1]; i++) {
            int32_t j = prev->block_portal_first[b] + (i - vis->block_portal_first[b]);
            int32_t nd = vis->portal_dportal[i], od = prev->portal_dportal[j];
            if (nd < 0 || od < 0) continue;
            for (int dir = 0; dir < 2; dir++) {
                const uint64_t *might = prev->dportal_might + (size_t) (od + dir) * prev->row_words;
                bool clean = true;
                for (int w = 0; w < prev->row_words && clean; w++) clean = !(might[w] & mask[w]);
                /* Its ends are the same leaves (clean, so mapped). */
                const dportal *d = &s->portals[nd + dir];
                const al_portal *op = &prev->portals[j];
                int32_t osrc = prev->leaf_cluster[op->leaf[dir == 0 ? 1 : 0]];
                int32_t odst = prev->leaf_cluster[op->leaf[dir == 0 ? 0 : 1]];
                if (!clean || osrc < 0 || odst < 0 || map[osrc] != d->src || map[odst] != d->dst)
                    continue;
                from[nd + dir] = od + dir;
                taken++;
            }
        }
    }
    free(dirty);
    free(mask);
    return ok && taken > 0;
}

/* Puts the previous world's set OLD (its clusters) into ours as SET, through MAP. */
static int remap_set(const uint64_t *old, int old_words, const int32_t *map, uint64_t *set,
                     int words)
{
    memset(set, 0, (size_t) words * sizeof *set);
    int n = 0;
    for (int w = 0; w < old_words; w++)
        for (uint64_t bits = old[w]; bits; bits &= bits - 1) {
            int32_t c = map[w * 64 + __builtin_ctzll(bits)];
            if (c >= 0) al_bit_set(set, c), n++;
        }
    return n;
}

/* Rows from the per-portal sets SET (might or vis), made symmetric; returns the mean
 * number of leaves per row. */
static double make_rows(pvs_state *s, bool tight)
{
    al_vis *vis = s->vis;
    for (int32_t c = 0; c < s->clusters; c++) {
        uint64_t *row = vis->pvs + (size_t) c * s->words;
        memset(row, 0, (size_t) s->words * sizeof *row);
        al_bit_set(row, c);
        for (int32_t i = s->out_first[c]; i < s->out_first[c + 1]; i++) {
            const dportal *d = &s->portals[s->out[i]];
            const uint64_t *set = tight ? d->vis : d->might;
            for (int w = 0; w < s->words; w++) row[w] |= set[w];
        }
    }
    int64_t total = 0;
    for (int32_t a = 0; a < s->clusters; a++) {
        uint64_t *row = vis->pvs + (size_t) a * s->words;
        for (int32_t b = 0; b < s->clusters; b++)
            if (al_bit_test(row, b) && !al_bit_test(al_vis_row(vis, b), a))
                row[b >> 6] &= ~((uint64_t) 1 << (b & 63));
    }
    /* The pass above only clears bits whose mirror is clear, so clearing is symmetric. */
    for (int32_t a = 0; a < s->clusters; a++) {
        const uint64_t *row = al_vis_row(vis, a);
        for (int w = 0; w < s->words; w++) total += __builtin_popcountll(row[w]);
    }
    return s->clusters ? (double) total / s->clusters : 0;
}

int al_vis_pvs(al_vis *vis, al_pvs_level level, int threads)
{
    if (threads <= 0) threads = al_cpu_count();
    vis->stats.level = level;
    vis->row_words = (vis->cluster_count + 63) / 64;
    /* A PVS built again drops what the last build kept. */
    free(vis->dportal_might), free(vis->dportal_vis), free(vis->portal_dportal);
    vis->dportal_might = vis->dportal_vis = NULL;
    vis->portal_dportal = NULL;
    vis->dportal_count = 0;
    vis->dportals_reused[0] = vis->dportals_reused[1] = 0;
    if (level == AL_PVS_NONE) return 0;
    pvs_state s = {.vis = vis, .clusters = vis->cluster_count, .words = vis->row_words,
                   .threads = threads};
    int status = -1;
    s.portals = calloc((size_t) vis->vis_portal_count * 2 + 1, sizeof *s.portals);
    s.out_first = calloc((size_t) s.clusters + 2, sizeof *s.out_first);
    s.out = malloc(((size_t) vis->vis_portal_count * 2 + 1) * sizeof *s.out);
    s.order = malloc(((size_t) vis->vis_portal_count * 2 + 1) * sizeof *s.order);
    size_t words = (size_t) vis->vis_portal_count * 2 * (size_t) s.words;
    uint64_t *might_bits = calloc(words + 1, sizeof *might_bits);
    uint64_t *vis_bits = calloc(words + 1, sizeof *vis_bits);
    int32_t *portal_dportal = malloc(((size_t) vis->portal_count + 1) * sizeof *portal_dportal);
    int32_t *from = NULL, *map = NULL, *flooded = NULL;
    vis->pvs = calloc((size_t) s.clusters * (size_t) s.words + 1, sizeof *vis->pvs);
    double (*points)[3] = NULL;
    s.stack = calloc((size_t) threads, sizeof *s.stack);
    s.frames = calloc((size_t) threads, sizeof *s.frames);
    s.frame_capacity = calloc((size_t) threads, sizeof *s.frame_capacity);
    s.chains = calloc((size_t) threads, sizeof *s.chains);
    s.dominated = calloc((size_t) threads, sizeof *s.dominated);
    if (!vis->flow_unpruned) s.memos = calloc((size_t) threads, sizeof *s.memos);
    if (!s.portals || !s.out_first || !s.out || !s.order || !might_bits || !vis_bits ||
        !portal_dportal || !vis->pvs || !s.stack ||
        !s.frames || !s.frame_capacity || !s.chains || !s.dominated ||
        (!s.memos && !vis->flow_unpruned))
        goto done;
    for (int t = 0; t < threads; t++)
        if (!(s.stack[t] = malloc(((size_t) s.clusters + 1) * sizeof(int32_t)))) goto done;

    int64_t total_points = 0;
    for (int32_t i = 0; i < vis->portal_count; i++) {
        const al_portal *p = &vis->portals[i];
        if (al_vis_portal_sees(vis, i)) total_points += 2 * p->winding->count;
    }
    points = malloc(((size_t) total_points + 1) * sizeof *points);
    if (!points) goto done;
    int32_t n = 0;
    int64_t used = 0;
    for (int32_t i = 0; i < vis->portal_count; i++) {
        const al_portal *p = &vis->portals[i];
        int32_t front = vis->leaf_cluster[p->leaf[0]], back = vis->leaf_cluster[p->leaf[1]];
        portal_dportal[i] = -1;
        if (!al_vis_portal_sees(vis, i)) continue;
        portal_dportal[i] = n;
        for (int dir = 0; dir < 2; dir++) {
            dportal *d = &s.portals[n];
            d->src = dir == 0 ? back : front;
            d->dst = dir == 0 ? front : back;
            double sign = dir == 0 ? 1.0 : -1.0;
            al_scale(p->normal, sign, d->normal);
            d->dist = sign * p->dist;
            d->count = p->winding->count;
            d->points = points + used;
            for (int k = 0; k < d->count; k++)
                al_copy(p->winding->points[dir == 0 ? k : d->count - 1 - k], d->points[k]);
            used += d->count;
            al_winding_center(p->winding, d->center);
            d->radius = 0;
            for (int k = 0; k < d->count; k++) {
                double v[3];
                al_sub(d->points[k], d->center, v);
                double r = al_length(v);
                if (r > d->radius) d->radius = r;
            }
            d->might = might_bits + (size_t) n * s.words;
            d->vis = vis_bits + (size_t) n * s.words;
            atomic_init(&d->done, 0);
            s.out_first[d->src + 1]++;
            n++;
        }
    }
    s.count = n;
    for (int32_t c = 0; c < s.clusters; c++) s.out_first[c + 1] += s.out_first[c];
    s.box = malloc(((size_t) s.clusters + 1) * sizeof *s.box);
    if (!s.box) goto done;
    for (int32_t c = 0; c < s.clusters; c++)
        for (int k = 0; k < 3; k++) s.box[c][0][k] = 1e30, s.box[c][1][k] = -1e30;
    for (int32_t i = 0; i < n; i++) { /* low and high corners first */
        const dportal *d = &s.portals[i];
        for (int j = 0; j < d->count; j++)
            for (int k = 0; k < 3; k++) {
                if (d->points[j][k] < s.box[d->dst][0][k]) s.box[d->dst][0][k] = d->points[j][k];
                if (d->points[j][k] > s.box[d->dst][1][k]) s.box[d->dst][1][k] = d->points[j][k];
            }
    }
    for (int32_t c = 0; c < s.clusters; c++)
        for (int k = 0; k < 3; k++) {
            double lo = s.box[c][0][k], hi = s.box[c][1][k];
            if (lo > hi) lo = hi = 0; /* no portal into it: never reached */
            s.box[c][0][k] = 0.5 * (lo + hi);
            s.box[c][1][k] = 0.5 * (hi - lo);
        }
    {
        int32_t *fill = malloc(((size_t) s.clusters + 1) * sizeof *fill);
        if (!fill) goto done;
        memcpy(fill, s.out_first, (size_t) s.clusters * sizeof *fill);
        for (int32_t i = 0; i < n; i++) s.out[fill[s.portals[i].src]++] = i;
        free(fill);
    }

    uint64_t t0 = al_clock_ns();
    /* The sets the previous world's portals still give (see the top of the file). */
    vis->portal_dportal = portal_dportal;
    portal_dportal = NULL;
    from = malloc(((size_t) n + 1) * sizeof *from);
    flooded = malloc(((size_t) n + 1) * sizeof *flooded);
    const al_vis *prev = vis->previous;
    map = prev ? malloc(((size_t) prev->cluster_count + 1) * sizeof *map) : NULL;
    if (!from || !flooded || (prev && !map)) goto done;
    bool reuse = prev && plan_reuse(&s, from, map);
    int32_t flood_count = 0;
    for (int32_t i = 0; i < n; i++) {
        if (reuse && from[i] >= 0) {
            dportal *d = &s.portals[i];
            d->might_count = remap_set(prev->dportal_might + (size_t) from[i] * prev->row_words,
                                       prev->row_words, map, d->might, s.words);
            vis->dportals_reused[0]++;
        } else {
            flooded[flood_count++] = i;
        }
    }
    s.flooded = flooded;
    s.flood_count = flood_count;
    al_parallel_for(flood_count, threads, coarse_job, &s);
    if (cancelled(&s)) {
        status = -2;
        goto done;
    }
    vis->stats.avg_visible_coarse = make_rows(&s, false);
    vis->stats.ms_coarse = al_clock_ms_since(t0);
    if (level == AL_PVS_TIGHT) {
        uint64_t t1 = al_clock_ns();
        /* Visible sets the previous walks found, where they still hold: finished before
         * the flow starts (the others' walks may narrow by them). */
        bool reuse_vis = reuse && prev->dportal_vis;
        int32_t flows = 0;
        order_key *keys = malloc(((size_t) n + 1) * sizeof *keys);
        if (!keys) goto done;
        for (int32_t i = 0; i < n; i++) {
            dportal *d = &s.portals[i];
            if (reuse_vis && from[i] >= 0) {
                remap_set(prev->dportal_vis + (size_t) from[i] * prev->row_words, prev->row_words,
                          map, d->vis, s.words);
                atomic_store_explicit(&d->done, 1, memory_order_relaxed);
                vis->dportals_reused[1]++;
                continue;
            }
            keys[flows++] = (order_key){d->might_count, i};
        }
        qsort(keys, (size_t) flows, sizeof *keys, compare_keys);
        for (int32_t i = 0; i < flows; i++) s.order[i] = keys[i].index;
        free(keys);
        if (vis->progress) {
            __atomic_store_n(&vis->progress[1], 0, __ATOMIC_RELAXED);
            __atomic_store_n(&vis->progress[0], (int64_t) flows, __ATOMIC_RELEASE);
        }
        al_parallel_for(flows, threads, flow_job, &s);
        if (cancelled(&s)) {
            status = -2;
            goto done;
        }
        vis->stats.avg_visible_tight = make_rows(&s, true);
        if (getenv("AL_VIS_DEBUG")) {
            int64_t chains = 0, pts = 0;
            for (int t = 0; t < threads; t++) chains += s.chains[t];
            for (int32_t i = 0; i < n; i++) pts += s.portals[i].count;
            int64_t dom = 0;
            for (int t = 0; t < threads; t++) dom += s.dominated[t];
            fprintf(stderr, "flow: %d directed portals, %.2f points each, %lld chains, %lld dominated\n", n,
                    (double) pts / n, (long long) chains, (long long) dom);
        }
        vis->stats.ms_tight = al_clock_ms_since(t1);
    }
    /* Kept for the next world's PVS. */
    vis->dportal_count = n;
    vis->dportal_might = might_bits;
    might_bits = NULL;
    if (level == AL_PVS_TIGHT) {
        vis->dportal_vis = vis_bits;
        vis_bits = NULL;
    }
    vis->stats.dportals = n;
    vis->stats.dportals_reused_coarse = vis->dportals_reused[0];
    vis->stats.dportals_reused_tight = vis->dportals_reused[1];
    status = 0;

done:
    free(s.portals);
    free(s.out_first);
    free(s.out);
    free(s.order);
    free(s.box);
    free(might_bits);
    free(vis_bits);
    free(portal_dportal);
    free(from);
    free(map);
    free(flooded);
    free(points);
    for (int t = 0; t < threads; t++) {
        if (s.stack) free(s.stack[t]);
        if (s.frames && s.frames[t])
            for (int i = 0; i < s.frame_capacity[t]; i++) free(s.frames[t][i].might);
        if (s.frames) free(s.frames[t]);
    }
    free(s.stack);
    free(s.frames);
    free(s.frame_capacity);
    free(s.chains);
    free(s.dominated);
    for (int t = 0; s.memos && t < threads; t++) {
        memo *mt = &s.memos[t];
        free(mt->head), free(mt->head_stamp), free(mt->arr), free(mt->pts), free(mt->bits);
    }
    free(s.memos);
    if (status == -1) {
        free(vis->pvs);
        vis->pvs = NULL;
    }
    return status;
}
