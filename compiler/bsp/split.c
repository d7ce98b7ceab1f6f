/* Split plane choice: the thesis's CHOOSE-DIVIDING-POLYGON with axial preference, and hint
 * faces split on before any other plane crosses them.
 *
 * Workload: for a node of n polygons with k distinct candidate planes the cost is O(k * n)
 * box tests; polygons are tested point by point only when their box straddles a non-axial
 * plane. Candidates are planes (k <= n), not polygons, since every polygon on a plane
 * classifies the rest identically.
 */
#include "split.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>

/* The thesis starts at 0.8 and invites experiment. On the real maps 0.3 gives 28% fewer
 * onion nodes and 40% fewer polygon splits than 0.8, for a mean leaf depth 0.2 deeper (the
 * table is in README.md, developer section); fewer leaves means fewer portals later. */
#define MIN_RELATION       0.3
#define MIN_RELATION_SCALE 2.0

/* The cosine between a polygon's normal and a split plane's from which a polygon in the
 * plane's band is coplanar with it (cos 1 degree). Nearly coplanar faces (a face drawn
 * off the grid beside one on it) lean by thousandths of a degree. */
#define COPLANAR_COSINE 0.99985

/* Which way a polygon in a plane's band faces, from the cosine between its normal and the
 * plane's: 1 the plane's front, -1 its back, 0 neither (across). */
static int facing(double cosine)
{
    return cosine >= COPLANAR_COSINE ? 1 : cosine <= -COPLANAR_COSINE ? -1 : 0;
}

static int in_band(double cosine)
{
    int f = facing(cosine);
    return f > 0 ? AL_POLY_COPLANAR_FRONT : f < 0 ? AL_POLY_COPLANAR_BACK : AL_POLY_ACROSS;
}

int al_split_classify(const al_plane_table *planes, int plane_index, const al_bsp_poly *p)
{
    const al_plane *pl = &planes->planes[plane_index];
    if ((p->plane >> 1) == (plane_index >> 1))
        return p->plane == plane_index ? AL_POLY_COPLANAR_FRONT : AL_POLY_COPLANAR_BACK;
    if (pl->type < AL_PLANE_ANY) {
        int a = pl->type;
        double s = pl->normal[a];
        double lo = s > 0 ? p->mins[a] * s : p->maxs[a] * s;
        double hi = s > 0 ? p->maxs[a] * s : p->mins[a] * s;
        if (lo >= pl->dist - AL_ON_EPSILON && hi <= pl->dist + AL_ON_EPSILON)
            /* In the plane's band, though on a different table entry. */
            return in_band(planes->planes[p->plane].normal[a] * s);
        if (lo >= pl->dist - AL_ON_EPSILON) return AL_POLY_FRONT;
        if (hi <= pl->dist + AL_ON_EPSILON) return AL_POLY_BACK;
        return AL_POLY_SPANNING;
    }
    double c[3], h[3];
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (p->mins[k] + p->maxs[k]);
        h[k] = 0.5 * (p->maxs[k] - p->mins[k]);
    }
    double s = al_dot(pl->normal, c) - pl->dist;
    double r = fabs(pl->normal[0]) * h[0] + fabs(pl->normal[1]) * h[1] +
               fabs(pl->normal[2]) * h[2];
    if (s - r > AL_ON_EPSILON) return AL_POLY_FRONT;
    if (s + r < -AL_ON_EPSILON) return AL_POLY_BACK;
    int side = al_winding_classify(p->winding, pl->normal, pl->dist, AL_ON_EPSILON);
    switch (side) {
    case AL_SIDE_FRONT: return AL_POLY_FRONT;
    case AL_SIDE_BACK: return AL_POLY_BACK;
    case AL_SIDE_CROSS: return AL_POLY_SPANNING;
    default:
        return in_band(al_dot(planes->planes[p->plane].normal, pl->normal));
    }
}

static bool better(const al_split_eval *a, double rel_a, const al_split_eval *b, double rel_b)
{
    if (!b) return true;
    if (a->spanning != b->spanning) return a->spanning < b->spanning;
    if (a->axial != b->axial) return a->axial;
    return rel_a > rel_b;
}

static double relation(const al_split_eval *e)
{
    int lo = e->front < e->back ? e->front : e->back;
    int hi = e->front < e->back ? e->back : e->front;
    return hi ? (double) lo / hi : 0.0;
}

/* Sorts A[0..n) ascending: quicksort with median-of-three, insertion sort below 16. */
static void sort_doubles(double *a, int n)
{
    while (n > 16) {
        double x = a[0], y = a[n / 2], z = a[n - 1];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int i = 0, j = n - 1;
        for (;;) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            double t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        /* Recurse into the smaller part, loop on the larger. */
        if (j + 1 < n - j - 1) {
            sort_doubles(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            sort_doubles(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (int i = 1; i < n; i++) {
        double v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int compare_flat(const void *a, const void *b)
{
    double x = ((const al_split_flat *) a)->lo, y = ((const al_split_flat *) b)->lo;
    return x < y ? -1 : x > y;
}

/* First index with a[i] >= x (LOWER) or a[i] > x (!LOWER). */
static int search(const double *a, int n, double x, bool lower)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (lower ? a[mid] < x : a[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

typedef struct axis_counts {
    double *lo, *hi; /* sorted bounds */
    al_split_flat *flat;
    int flat_count;
} axis_counts;

/* Prepares sorted bounds per axis for counting axial candidates. Returns false if memory
 * runs out (the caller then counts directly). */
static bool prepare_sorted(al_build_scratch *s, const al_plane_table *planes,
                           const al_bsp_poly *polys, int count, axis_counts axes[3])
{
    if (s->sorted_capacity < count) {
        int capacity = count + count / 2;
        double *sorted = realloc(s->sorted, (size_t) capacity * 6 * sizeof *sorted);
        if (sorted) s->sorted = sorted;
        al_split_flat *flat = realloc(s->flat, (size_t) capacity * 3 * sizeof *flat);
        if (flat) s->flat = flat;
        if (!sorted || !flat) return false;
        s->sorted_capacity = capacity;
    }
    for (int a = 0; a < 3; a++) {
        axes[a].lo = s->sorted + (size_t) (2 * a) * s->sorted_capacity;
        axes[a].hi = s->sorted + (size_t) (2 * a + 1) * s->sorted_capacity;
        axes[a].flat = s->flat + (size_t) a * s->sorted_capacity;
        axes[a].flat_count = 0;
        for (int i = 0; i < count; i++) {
            axes[a].lo[i] = polys[i].mins[a];
            axes[a].hi[i] = polys[i].maxs[a];
            if (polys[i].maxs[a] - polys[i].mins[a] <= 2 * AL_ON_EPSILON)
                axes[a].flat[axes[a].flat_count++] =
                    (al_split_flat){polys[i].mins[a], polys[i].maxs[a],
                                    facing(planes->planes[polys[i].plane].normal[a])};
        }
        sort_doubles(axes[a].lo, count);
        sort_doubles(axes[a].hi, count);
        qsort(axes[a].flat, (size_t) axes[a].flat_count, sizeof *axes[a].flat, compare_flat);
    }
    return true;
}

/* Counts for the axial canonical plane x[axis] = dist from sorted bounds: the same answer as
 * classifying every polygon with al_split_classify, in O(log n). */
static void count_axial(const axis_counts *ax, int count, double dist, al_split_eval *e)
{
    int in_front = count - search(ax->lo, count, dist - AL_ON_EPSILON, true);
    int behind = search(ax->hi, count, dist + AL_ON_EPSILON, false);
    /* Polygons in the plane's band are counted in both: find them among the flat ones
     * (those across it stay in both, as a spanning polygon does). */
    int on_up = 0, on_down = 0, across = 0;
    int i = 0, n = ax->flat_count, hi = n;
    while (i < hi) {
        int mid = (i + hi) / 2;
        if (ax->flat[mid].lo < dist - AL_ON_EPSILON) i = mid + 1;
        else hi = mid;
    }
    for (; i < n && ax->flat[i].lo <= dist + AL_ON_EPSILON; i++)
        if (ax->flat[i].hi <= dist + AL_ON_EPSILON) {
            if (ax->flat[i].facing > 0)
                on_up++;
            else if (ax->flat[i].facing < 0)
                on_down++;
            else
                across++;
        }
    int on = on_up + on_down + across;
    e->front = in_front - on + on_up;
    e->back = behind - on + on_down;
    e->spanning = count - in_front - behind + on;
}

/* Counts for an axial canonical plane by looking at every polygon's bounds: for small nodes,
 * where sorting does not pay. Same answer as al_split_classify. */
static void count_axial_direct(const al_plane_table *planes, const al_bsp_poly *polys,
                               int count, int axis, double dist, al_split_eval *e)
{
    int front = 0, back = 0, spanning = 0;
    double below = dist - AL_ON_EPSILON, above = dist + AL_ON_EPSILON;
    for (int i = 0; i < count; i++) {
        double lo = polys[i].mins[axis], hi = polys[i].maxs[axis];
        if (lo >= below) {
            int f = hi > above ? 1 : facing(planes->planes[polys[i].plane].normal[axis]);
            if (f > 0)
                front++;
            else if (f < 0)
                back++;
            else
                spanning++;
        } else if (hi <= above) {
            back++;
        } else {
            spanning++;
        }
    }
    e->front = front;
    e->back = back;
    e->spanning = spanning;
}

static void count_direct(const al_plane_table *planes, const al_bsp_poly *polys, int count,
                         al_split_eval *e)
{
    e->front = e->back = e->spanning = 0;
    for (int i = 0; i < count; i++) {
        switch (al_split_classify(planes, e->plane, &polys[i])) {
        case AL_POLY_FRONT:
        case AL_POLY_COPLANAR_FRONT: e->front++; break;
        case AL_POLY_BACK:
        case AL_POLY_COPLANAR_BACK: e->back++; break;
        default: e->spanning++; break;
        }
    }
}

/* Whether the canonical plane PLANE is that of one of the hint faces HINTS[0..N). */
static bool is_hint_plane(const al_bsp_poly *polys, const int *hints, int n, int plane)
{
    for (int i = 0; i < n; i++)
        if ((polys[hints[i]].plane >> 1) == (plane >> 1)) return true;
    return false;
}

/* Marks E as cutting a hint face when its plane is no hint face's and would split one of
 * HINTS[0..N) (the candidate hint faces of the node). Quake's compilers never split a hint
 * face but with a hint (ericw-tools qbsp, both its Quake 1 and its Quake 2 split choice):
 * so a hint face is split on while it is whole, and its plane cuts the planes that cross
 * it, not the other way round; the designer's portal lies where the hint face does. */
static void mark_hint_cut(const al_plane_table *planes, const al_bsp_poly *polys, const int *hints,
                          int n, al_split_eval *e)
{
    e->cuts_hint = false;
    if (n == 0 || is_hint_plane(polys, hints, n, e->plane)) return;
    for (int i = 0; i < n && !e->cuts_hint; i++)
        e->cuts_hint = al_split_classify(planes, e->plane, &polys[hints[i]]) == AL_POLY_SPANNING;
}

int al_split_choose(al_build_scratch *scratch, const al_plane_table *planes,
                    const al_bsp_poly *polys, int count, al_build_stats *stats)
{
    /* Distinct candidate planes, by canonical index; axial ones first. The candidate hint
     * faces are listed in HINTS (a vis tree has some; a collision tree none). */
    if (++scratch->stamp_value == 0) {
        for (int i = 0; i < scratch->stamp_size; i++) scratch->stamp[i] = 0;
        scratch->stamp_value = 1;
    }
    int k = 0, hint_count = 0;
    int *hints = NULL;
    for (int i = 0; i < count; i++) {
        if (!polys[i].candidate) continue;
        if (polys[i].hint) {
            if (hint_count == scratch->hint_capacity) {
                int capacity = hint_count ? 2 * hint_count : 64;
                int *grown = realloc(scratch->hints, (size_t) capacity * sizeof *grown);
                if (grown) {
                    scratch->hints = grown;
                    scratch->hint_capacity = capacity;
                }
            }
            if (hint_count < scratch->hint_capacity) { /* else: memory ran out */
                scratch->hints[hint_count++] = i;
                hints = scratch->hints;
            }
        }
        int key = polys[i].plane >> 1;
        if (scratch->stamp[key] == scratch->stamp_value) continue;
        scratch->stamp[key] = scratch->stamp_value;
        if (k == scratch->candidate_capacity) {
            int capacity = k ? 2 * k : 256;
            int *c = realloc(scratch->candidates, (size_t) capacity * sizeof *c);
            al_split_eval *e = realloc(scratch->evals, (size_t) capacity * sizeof *e);
            if (c) scratch->candidates = c;
            if (e) scratch->evals = e;
            if (!c || !e) break; /* evaluate what we have */
            scratch->candidate_capacity = capacity;
        }
        scratch->candidates[k++] = key << 1;
    }
    if (k == 0) return -1;
    /* Axial candidates first, then the non-axial hint planes (always evaluated), then the
     * rest. */
    int axial = 0;
    for (int c = 0; c < k; c++)
        if (planes->planes[scratch->candidates[c]].type < AL_PLANE_ANY) {
            int t = scratch->candidates[axial];
            scratch->candidates[axial++] = scratch->candidates[c];
            scratch->candidates[c] = t;
        }
    int hinted = axial;
    for (int c = axial; c < k && hint_count > 0; c++)
        if (is_hint_plane(polys, hints, hint_count, scratch->candidates[c])) {
            int t = scratch->candidates[hinted];
            scratch->candidates[hinted++] = scratch->candidates[c];
            scratch->candidates[c] = t;
        }

    /* Axial candidates: every one, from sorted bounds when there are enough to pay for the
     * sort. */
    int m = 0;
    axis_counts axes[3];
    bool sorted = axial >= 16 && count >= 128 &&
                  prepare_sorted(scratch, planes, polys, count, axes);
    for (int c = 0; c < axial; c++) {
        al_split_eval *e = &scratch->evals[m++];
        e->plane = scratch->candidates[c];
        e->axial = true;
        const al_plane *pl = &planes->planes[e->plane];
        if (sorted) count_axial(&axes[pl->type], count, pl->dist, e);
        else count_axial_direct(planes, polys, count, pl->type, pl->dist, e);
    }
    /* Non-axial candidates: the hint planes, and an evenly spaced sample of the others. */
    for (int c = axial; c < hinted; c++) {
        al_split_eval *e = &scratch->evals[m++];
        e->plane = scratch->candidates[c];
        e->axial = false;
        count_direct(planes, polys, count, e);
    }
    int others = k - hinted;
    int cap = scratch->max_candidates > 0 ? scratch->max_candidates : AL_SPLIT_MAX_CANDIDATES;
    int step = others > cap ? (others + cap - 1) / cap : 1;
    for (int c = hinted; c < k; c += step) {
        al_split_eval *e = &scratch->evals[m++];
        e->plane = scratch->candidates[c];
        e->axial = false;
        count_direct(planes, polys, count, e);
    }
    stats->candidates_evaluated += m;
    /* A hint face's plane is always left (unless memory ran out while listing them). */
    int eligible = 0;
    for (int i = 0; i < m; i++) {
        mark_hint_cut(planes, polys, hints, hint_count, &scratch->evals[i]);
        eligible += !scratch->evals[i].cuts_hint;
    }
    if (eligible == 0)
        for (int i = 0; i < m; i++) scratch->evals[i].cuts_hint = false;

    /* Thesis loop: accept the fewest splits among planes whose balance beats min_relation;
     * relax min_relation until one does. When it falls below 1/count no balance can be
     * demanded any more, and any plane is accepted (also one with everything on one side). */
    double min_relation = scratch->min_relation > 0 ? scratch->min_relation : MIN_RELATION;
    for (;;) {
        bool last = min_relation * count < 0.5;
        const al_split_eval *best = NULL;
        double best_rel = 0;
        for (int i = 0; i < m; i++) {
            if (scratch->evals[i].cuts_hint) continue;
            double rel = relation(&scratch->evals[i]);
            if (!last && !(rel > min_relation)) continue;
            if (better(&scratch->evals[i], rel, best, best_rel)) {
                best = &scratch->evals[i];
                best_rel = rel;
            }
        }
        if (best) return best->plane;
        min_relation /= MIN_RELATION_SCALE;
    }
}
