/* Knife-edge seams (see vis.h).
 *
 * Two brushes that touch only along an edge, with empty space on the two other sides of
 * it, leave no portal between those spaces: portals are polygons, and the spaces meet in
 * a line. In exact arithmetic that is sealed. But where one of the brushes is a sliver at
 * the edge (its faces meet there at under SEAM_THIN_DEGREES), the edge is the meeting of
 * two nearly parallel planes: rounding a plane's distance by e moves the edge by about
 * e / sin(angle), so in any compiled form of the map (float planes in a .bsp, or another
 * compiler's arithmetic) the contact opens into a crack. Terrain built of flat
 * tetrahedra is made of such edges (q1_mountain.map: above the shared top edge of two of
 * them is the air, below it the wedge between their undersides, open to the void), and
 * Quake's compilers report a leak through it. Brushes that meet corner to corner at right
 * angles, which id's maps have, stay closed here as they do there.
 *
 * Candidates are the edges that two or more brushes which block sight have in common
 * (the same two end points, to a sixteenth of a unit), one of them a sliver there. Around
 * each, the vis trees are probed on a small circle about the edge's midpoint: if the
 * circle passes through empty space, then solid, then empty again, and a solid run
 * between two empty ones spans no more than SEAM_THIN_DEGREES, the empty leaves of those
 * runs are joined by a seam through the midpoint, which the outside flood crosses.
 * Brushes that meet face to face give one empty run, so they never make a seam. Edges
 * that overlap only in part are not looked at.
 */
#include "vis.h"

#include "brush/brush.h"
#include "geom/vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEAM_GRID 16.0     /* end points are matched on this many steps per unit */
#define SEAM_RADIUS 0.25   /* units from the edge at which it is probed */
#define SEAM_PROBES 96     /* points on the circle */
#define SEAM_MIN_LENGTH 1.0 /* shorter edges are left alone */
#define SEAM_THIN_DEGREES 30.0 /* a brush's angle at an edge that makes it a sliver */

typedef struct edge {
    int64_t key[6]; /* both end points on the grid, the smaller first */
    int32_t brush;
    bool thin; /* the brush's faces meet at it at a sharp angle (SEAM_THIN_DEGREES) */
    double a[3], b[3];
} edge;

static double al_sub_length(const double a[3], const double b[3])
{
    double d[3];
    al_sub(a, b, d);
    return al_length(d);
}

static int compare_edges(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    for (int k = 0; k < 6; k++)
        if (p->key[k] != q->key[k]) return p->key[k] < q->key[k] ? -1 : 1;
    return (p->brush > q->brush) - (p->brush < q->brush);
}

static bool point_less(const int64_t a[3], const int64_t b[3])
{
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return false;
}

/* The brushes' edges, each once per brush (it is on two sides, once each way round).
 * Returns the count, -1 if memory ran out; *OUT is malloc'ed. */
static int64_t collect_edges(const al_world *w, edge **out)
{
    int64_t count = 0, cap = 0;
    edge *edges = NULL;
    for (int i = 0; i < w->collision_count; i++) {
        const al_brush *br = w->collision[i];
        if (!al_brush_blocks_sight(br)) continue;
        for (int s = 0; s < br->side_count; s++) {
            const al_winding *wd = br->sides[s].winding;
            if (!wd) continue;
            for (int k = 0; k < wd->count; k++) {
                const double *a = wd->points[k], *b = wd->points[k + 1 == wd->count ? 0 : k + 1];
                int64_t ka[3], kb[3];
                for (int c = 0; c < 3; c++) {
                    ka[c] = llround(a[c] * SEAM_GRID);
                    kb[c] = llround(b[c] * SEAM_GRID);
                }
                /* Each edge is kept from the side that walks it from the smaller end. */
                if (!point_less(ka, kb)) continue;
                double ab[3];
                al_sub(b, a, ab);
                if (al_length(ab) < SEAM_MIN_LENGTH) continue;
                if (count == cap) {
                    int64_t c = cap ? 2 * cap : 4096;
                    edge *g = realloc(edges, (size_t) c * sizeof *g);
                    if (!g) {
                        free(edges);
                        return -1;
                    }
                    edges = g, cap = c;
                }
                edge *e = &edges[count++];
                memcpy(e->key, ka, sizeof ka);
                memcpy(e->key + 3, kb, sizeof kb);
                e->brush = i;
                e->thin = false;
                /* The other side along the edge: their outward normals turn by more than
                 * 180 degrees less the brush's angle at the edge. */
                const double *n = w->planes.planes[br->sides[s].plane].normal;
                for (int o = 0; o < br->side_count; o++) {
                    const al_winding *ow = br->sides[o].winding;
                    if (o == s || !ow) continue;
                    bool has = false;
                    for (int q = 0; q < ow->count && !has; q++) {
                        const double *c = ow->points[q];
                        const double *d = ow->points[q + 1 == ow->count ? 0 : q + 1];
                        has = al_sub_length(c, b) < 1e-3 && al_sub_length(d, a) < 1e-3;
                    }
                    if (!has) continue;
                    const double *m = w->planes.planes[br->sides[o].plane].normal;
                    e->thin = al_dot(n, m) < -cos(SEAM_THIN_DEGREES * 1.2 * M_PI / 180);
                    break;
                }
                al_copy(a, e->a);
                al_copy(b, e->b);
            }
        }
    }
    *out = edges;
    return count;
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
    /* Walk once round from a solid probe: the first empty leaf of each empty run, and the
     * length of the solid run before it. */
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
            solid_len[run_count] = solid + (run_count == 0); /* the first solid probe */
            runs[run_count++] = leaf[i];
            solid = 0;
        }
    }
    if (run_count >= 2) solid_len[0] += solid; /* the run before the first wraps round */
    int thin = (int) (SEAM_THIN_DEGREES / 360.0 * SEAM_PROBES + 0.5);
    for (int r = 0; run_count >= 2 && r < run_count; r++) {
        int32_t x = runs[r], y = runs[(r + 1) % run_count];
        if (run_count == 2 && r == 1) break; /* two runs: one seam */
        /* Only where a solid between them is a thin wedge. */
        bool sharp = solid_len[(r + 1) % run_count] <= thin || (run_count == 2 && solid_len[r] <= thin);
        if (!sharp) continue;
        if (x != y && !add_seam(vis, x, y, mid, cap)) return false;
    }
    return true;
}

int al_vis_seams(const al_world *w, al_vis *vis)
{
    free(vis->seams);
    vis->seams = NULL;
    vis->seam_count = 0;
    edge *edges = NULL;
    int64_t count = collect_edges(w, &edges);
    if (count < 0) return -1;
    if (count > 0) qsort(edges, (size_t) count, sizeof *edges, compare_edges);
    int32_t cap = 0;
    int status = 0;
    for (int64_t i = 0; i < count && status == 0;) {
        int64_t j = i + 1;
        while (j < count && memcmp(edges[j].key, edges[i].key, sizeof edges[i].key) == 0) j++;
        bool shared = false, thin = false;
        for (int64_t k = i; k < j; k++) {
            shared |= edges[k].brush != edges[i].brush;
            thin |= edges[k].thin;
        }
        if (shared && thin && !probe_edge(w, vis, edges[i].a, edges[i].b, &cap)) status = -1;
        i = j;
    }
    free(edges);
    vis->stats.seams = vis->seam_count;
    return status;
}
