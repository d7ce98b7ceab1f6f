/* Knife-edge seams (see vis.h).
 *
 * Two brushes that touch only along an edge, with empty space on the two other sides of
 * it, leave no portal between those spaces: portals are polygons, and the spaces meet in
 * a line. In exact arithmetic that is sealed. But where the brushes are slivers at the
 * edge (each one's faces meet there at under SEAM_THIN_DEGREES), the edge is the meeting
 * of nearly parallel planes: rounding a plane's distance by e moves the edge by about
 * e / sin(angle), so a compiled form of the map (float planes in a .bsp, or another
 * compiler's arithmetic) may open the contact into a crack. Terrain built of flat
 * tetrahedra is made of such edges (q1_mountain.map: slivers of 7 degrees; above the
 * shared top edge of two of them is the air, below it the wedge between their undersides,
 * open to the void), and Quake's compilers report a leak through it.
 *
 * The rule is narrow because id's maps, which id's qbsp sealed, are full of edge contacts
 * that must stay closed: boxes corner to corner at right angles; ramps, beams and arches
 * whose thin end (7 to 30 degrees) lies on the right-angled edge of a box (e1m2, e1m4,
 * e2m3, e3m3), where the thick brush holds the edge; and pairs of slivers of 26 to 34
 * degrees meeting back to back (e1m3, e1m5, e4m7). So a seam needs every brush round the
 * edge to be a sliver, of under 15 degrees.
 *
 * Candidates are the edges that two or more brushes which block sight have in common
 * (the same two end points, to a sixteenth of a unit), one of them a sliver there. Around
 * each, the vis trees are probed on a small circle about the edge's midpoint: if the
 * circle passes through empty space, then solid, then empty again, and no solid run spans
 * more than SEAM_THIN_DEGREES, the empty leaves of neighbouring runs are joined by a seam
 * through the midpoint, which the outside flood crosses. Brushes that meet face to face
 * give one empty run, so they never make a seam. Edges that overlap only in part are not
 * looked at.
 */
#include "vis.h"

#include "brush/brush.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEAM_GRID         16.0 /* end points are matched on this many steps per unit */
#define SEAM_RADIUS       0.25 /* units from the edge at which it is probed */
#define SEAM_PROBES       96   /* points on the circle */
#define SEAM_MIN_LENGTH   1.0  /* shorter edges are left alone */
#define SEAM_THIN_DEGREES 15.0 /* a brush's angle at an edge that makes it a sliver */

typedef struct edge {
    int64_t key[6]; /* both end points on the grid, the smaller first */
    int32_t brush;
    bool shared; /* another brush has this edge too */
    double a[3], b[3];
} edge;

static double distance(const double a[3], const double b[3])
{
    double d[3];
    al_sub(a, b, d);
    return al_length(d);
}

static int compare_keys(const int64_t p[6], const int64_t q[6])
{
    for (int k = 0; k < 6; k++)
        if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
    return 0;
}

static int compare_edges(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    int c = compare_keys(p->key, q->key);
    return c ? c : (p->brush > q->brush) - (p->brush < q->brush);
}

static bool point_less(const int64_t a[3], const int64_t b[3])
{
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return false;
}

/* Calls VISIT for each edge of each brush that blocks sight, once per brush (an edge is
 * on two sides, once each way round: it is taken from the side that walks it from the
 * smaller end), skipping edges shorter than SEAM_MIN_LENGTH. Stops when VISIT returns
 * false, and returns false then. */
typedef bool (*edge_visit)(void *context, const al_world *w, int brush, int side, const double a[3],
                           const double b[3], const int64_t key[6]);

static bool each_edge(const al_world *w, edge_visit visit, void *context)
{
    for (int brush = 0; brush < w->collision_count; brush++) {
        const al_brush *br = w->collision[brush];
        if (!al_brush_blocks_sight(br)) continue;
        for (int side = 0; side < br->side_count; side++) {
            const al_winding *wd = br->sides[side].winding;
            if (!wd) continue;
            for (int k = 0; k < wd->count; k++) {
                const double *a = wd->points[k], *b = wd->points[k + 1 == wd->count ? 0 : k + 1];
                int64_t key[6];
                for (int c = 0; c < 3; c++) {
                    key[c] = llround(a[c] * SEAM_GRID);
                    key[3 + c] = llround(b[c] * SEAM_GRID);
                }
                if (!point_less(key, key + 3)) continue;
                double ab[3];
                al_sub(b, a, ab);
                if (al_length(ab) < SEAM_MIN_LENGTH) continue;
                if (!visit(context, w, brush, side, a, b, key)) return false;
            }
        }
    }
    return true;
}

/* Whether the brush's other side along edge A-B (walked B to A there) turns from SIDE's
 * normal by so much that the brush is a sliver at the edge. */
static bool sliver_at(const al_world *w, const al_brush *br, int side, const double a[3],
                      const double b[3])
{
    const double *n = w->planes.planes[br->sides[side].plane].normal;
    for (int o = 0; o < br->side_count; o++) {
        const al_winding *ow = br->sides[o].winding;
        if (o == side || !ow) continue;
        const double *m = w->planes.planes[br->sides[o].plane].normal;
        /* Outward normals turn by 180 degrees less the brush's angle at the edge. */
        if (al_dot(n, m) >= -cos(SEAM_THIN_DEGREES * 1.2 * M_PI / 180)) continue;
        for (int q = 0; q < ow->count; q++) {
            const double *c = ow->points[q], *d = ow->points[q + 1 == ow->count ? 0 : q + 1];
            if (distance(c, b) < 1e-3 && distance(d, a) < 1e-3) return true;
        }
    }
    return false;
}

typedef struct edge_list {
    edge *edges;
    int64_t count, cap;
} edge_list;

static bool keep_sliver(void *context, const al_world *w, int brush, int side, const double a[3],
                        const double b[3], const int64_t key[6])
{
    edge_list *l = context;
    if (!sliver_at(w, w->collision[brush], side, a, b)) return true;
    if (l->count == l->cap) {
        int64_t c = l->cap ? 2 * l->cap : 256;
        edge *g = realloc(l->edges, (size_t) c * sizeof *g);
        if (!g) return false;
        l->edges = g, l->cap = c;
    }
    edge *e = &l->edges[l->count++];
    memcpy(e->key, key, sizeof e->key);
    e->brush = brush;
    e->shared = false;
    al_copy(a, e->a);
    al_copy(b, e->b);
    return true;
}

/* The first sliver edge with KEY, or -1. */
static int64_t find_key(const edge *edges, int64_t count, const int64_t key[6])
{
    int64_t lo = 0, hi = count;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (compare_keys(edges[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && compare_keys(edges[lo].key, key) == 0 ? lo : -1;
}

static bool add_seam(al_vis *vis, int32_t a, int32_t b, const double p[3], int32_t *cap)
{
    if (vis->seam_count == *cap) {
        int32_t c = *cap ? 2 * *cap : 64;
        al_vis_seam *g = realloc(vis->seams, (size_t) c * sizeof *g);
        if (!g) return false;
        vis->seams = g, *cap = c;
    }
    al_vis_seam *s = &vis->seams[vis->seam_count++];
    s->leaf[0] = a, s->leaf[1] = b;
    al_copy(p, s->point);
    return true;
}

/* Probes around the edge A-B; adds a seam between the empty leaves of each two
 * neighbouring empty runs. */
static bool probe_edge(const al_world *w, al_vis *vis, const double a[3], const double b[3],
                       int32_t *cap)
{
    double t[3], u[3], v[3], mid[3];
    al_sub(b, a, t);
    al_normalize(t, t);
    al_lerp(a, b, 0.5, mid);
    /* U and V span the plane across the edge. */
    double helper[3] = {0, 0, 0};
    helper[fabs(t[0]) < 0.6 ? 0 : fabs(t[1]) < 0.6 ? 1 : 2] = 1;
    al_cross(t, helper, u);
    al_normalize(u, u);
    al_cross(t, u, v);
    int32_t leaf[SEAM_PROBES];
    int solid_at = -1;
    for (int i = 0; i < SEAM_PROBES; i++) {
        double angle = 2 * M_PI * i / SEAM_PROBES, p[3];
        for (int k = 0; k < 3; k++)
            p[k] = mid[k] + SEAM_RADIUS * (cos(angle) * u[k] + sin(angle) * v[k]);
        int32_t l = al_vis_find_leaf(w, p);
        leaf[i] = (vis->leaf_flags[l] & AL_VLEAF_SOLID) ? -1 : l;
        if (leaf[i] < 0 && solid_at < 0) solid_at = i;
    }
    if (solid_at < 0) return true; /* no solid around it at all */
    /* Walk once round from a solid probe, ending on it: the first empty leaf of each empty
     * run, and the length of the solid run before it (the first run's wraps round). */
    int32_t runs[SEAM_PROBES];
    int solid_len[SEAM_PROBES];
    int run_count = 0, solid = 0;
    for (int j = 1; j <= SEAM_PROBES; j++) {
        int i = (solid_at + j) % SEAM_PROBES;
        if (leaf[i] < 0) {
            solid++;
            continue;
        }
        int before = (solid_at + j - 1) % SEAM_PROBES;
        if (leaf[before] < 0) {
            solid_len[run_count] = solid;
            runs[run_count++] = leaf[i];
            solid = 0;
        }
    }
    if (run_count < 2) return true;
    solid_len[0] += solid; /* the run before the first wraps round */
    /* Only where every brush round the edge is a sliver there: a thick one pins it. */
    int thin = (int) (SEAM_THIN_DEGREES / 360.0 * SEAM_PROBES + 0.5);
    for (int r = 0; r < run_count; r++)
        if (solid_len[r] > thin) return true;
    for (int r = 0; r < run_count; r++) {
        if (run_count == 2 && r == 1) break; /* two runs: one seam */
        int32_t x = runs[r], y = runs[(r + 1) % run_count];
        if (x != y && !add_seam(vis, x, y, mid, cap)) return false;
    }
    return true;
}

/* Marks the sliver edges that another brush has too. */
static bool mark_shared(void *context, const al_world *w, int brush, int side, const double a[3],
                        const double b[3], const int64_t key[6])
{
    (void) w, (void) side, (void) a, (void) b;
    edge_list *l = context;
    for (int64_t f = find_key(l->edges, l->count, key);
         f >= 0 && f < l->count && compare_keys(l->edges[f].key, key) == 0; f++)
        if (l->edges[f].brush != brush) l->edges[f].shared = true;
    return true;
}

int al_vis_seams(const al_world *w, al_vis *vis)
{
    free(vis->seams);
    vis->seams = NULL;
    vis->seam_count = 0;
    vis->stats.seams = 0;
    edge_list l = {0};
    if (!each_edge(w, keep_sliver, &l)) {
        free(l.edges);
        return -1;
    }
    if (l.count > 0) {
        qsort(l.edges, (size_t) l.count, sizeof *l.edges, compare_edges);
        each_edge(w, mark_shared, &l);
    }
    int32_t cap = 0;
    int status = 0;
    for (int64_t i = 0; i < l.count && status == 0;) {
        int64_t j = i + 1;
        bool shared = l.edges[i].shared;
        for (; j < l.count && compare_keys(l.edges[j].key, l.edges[i].key) == 0; j++)
            shared |= l.edges[j].shared;
        if (shared && !probe_edge(w, vis, l.edges[i].a, l.edges[i].b, &cap)) status = -1;
        i = j;
    }
    free(l.edges);
    vis->stats.seams = vis->seam_count;
    return status;
}
