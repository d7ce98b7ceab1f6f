/* Split plane choice: the thesis's CHOOSE-DIVIDING-POLYGON with axial preference.
 *
 * Workload: for a node of n polygons with k distinct candidate planes the cost is O(k * n)
 * box tests; polygons are tested point by point only when their box straddles a non-axial
 * plane. Candidates are planes (k <= n), not polygons, since every polygon on a plane
 * classifies the rest identically.
 */
#include "split.h"

#include "geom/epsilon.h"
#include "geom/vec3.h"

#include <math.h>
#include <stdlib.h>

#define MIN_RELATION       0.8
#define MIN_RELATION_SCALE 2.0

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
            /* In the plane, though on a different table entry: the side it faces. */
            return planes->planes[p->plane].normal[a] * s > 0 ? AL_POLY_COPLANAR_FRONT
                                                              : AL_POLY_COPLANAR_BACK;
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
        return al_dot(planes->planes[p->plane].normal, pl->normal) > 0 ? AL_POLY_COPLANAR_FRONT
                                                                        : AL_POLY_COPLANAR_BACK;
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

int al_split_choose(al_build_scratch *scratch, const al_plane_table *planes,
                    const al_bsp_poly *polys, int count, al_build_stats *stats)
{
    /* Distinct candidate planes, by canonical index. */
    if (++scratch->stamp_value == 0) {
        for (int i = 0; i < scratch->stamp_size; i++) scratch->stamp[i] = 0;
        scratch->stamp_value = 1;
    }
    int k = 0;
    for (int i = 0; i < count; i++) {
        if (!polys[i].candidate) continue;
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

    int cap = scratch->max_candidates > 0 ? scratch->max_candidates : AL_SPLIT_MAX_CANDIDATES;
    int step = k > cap ? (k + cap - 1) / cap : 1;
    int m = 0;
    for (int c = 0; c < k; c += step) {
        al_split_eval *e = &scratch->evals[m++];
        e->plane = scratch->candidates[c];
        e->front = e->back = e->spanning = 0;
        e->axial = planes->planes[e->plane].type < AL_PLANE_ANY;
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
    stats->candidates_evaluated += m;

    /* Thesis loop: accept the fewest splits among planes whose balance beats min_relation;
     * relax min_relation until one does. When it falls below 1/count no balance can be
     * demanded any more, and any plane is accepted (also one with everything on one side). */
    double min_relation = MIN_RELATION;
    for (;;) {
        bool last = min_relation * count < 0.5;
        const al_split_eval *best = NULL;
        double best_rel = 0;
        for (int i = 0; i < m; i++) {
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
