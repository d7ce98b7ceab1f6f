/* CSG union of expanded brushes (see csg.h).
 *
 * Workload: per block and hull, a few hundred brushes. Overlapping pairs come from a sweep
 * over the brushes sorted by their low x bound, so the cost is O(n log n + pairs * faces).
 */
#include "csg.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool al_poly_vec_push(al_poly_vec *v, const al_bsp_poly *p)
{
    if (v->count == v->capacity) {
        int capacity = v->capacity ? v->capacity * 2 : 256;
        al_bsp_poly *items = realloc(v->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        v->items = items;
        v->capacity = capacity;
    }
    v->items[v->count++] = *p;
    return true;
}

void al_poly_vec_free(al_poly_vec *v)
{
    if (!v) return;
    free(v->items);
    memset(v, 0, sizeof *v);
}

typedef struct sort_item {
    double key;
    int index;
} sort_item;

static int compare_items(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->key < y->key) return -1;
    if (x->key > y->key) return 1;
    return x->index - y->index;
}

/* A growable list of windings (malloc'd; the windings are in the arena). */
typedef struct piece_list {
    al_winding **items;
    int count, capacity;
} piece_list;

static bool push_piece(piece_list *l, al_winding *w)
{
    if (l->count == l->capacity) {
        int capacity = l->capacity ? l->capacity * 2 : 64;
        al_winding **items = realloc(l->items, (size_t) capacity * sizeof *items);
        if (!items) return false;
        l->items = items;
        l->capacity = capacity;
    }
    l->items[l->count++] = w;
    return true;
}

/* Removes the part of PIECE inside brush B, appending the outside parts to OUT. FACE_PLANE
 * is the plane PIECE lies on; B_LATER says whether B comes after the piece's brush, which
 * decides who keeps a shared face. Returns false if memory runs out. */
static bool carve(al_arena *arena, const al_plane_table *planes, al_winding *piece,
                  int face_plane, const al_brush *b, bool b_later, piece_list *out)
{
    al_winding *rem = piece;
    const double *fn = planes->planes[face_plane].normal;
    for (int s = 0; s < b->side_count; s++) {
        int sp = b->sides[s].plane;
        bool same = sp == face_plane, opposite = sp == al_plane_flip(face_plane);
        if (!same && !opposite) {
            const al_plane *p = &planes->planes[sp];
            al_winding *front, *back;
            int side = al_winding_split(arena, rem, p->normal, p->dist, AL_ON_EPSILON, &front,
                                        &back);
            if (side < 0) return false;
            if (side == AL_SIDE_ON) {
                /* In the band of a plane of B that is not its own. Facing the same way, it
                 * is kept whoever comes later: B's face is judged against this piece's
                 * plane on its own, and where it does not lie in that plane's band it is
                 * cut there exactly, so where it dips behind, dropping this piece would
                 * keep neither face (a hole). Keeping both at worst doubles a face within
                 * the band. */
                if (al_dot(p->normal, fn) > 0) return push_piece(out, rem);
                opposite = true;
            } else if (side == AL_SIDE_FRONT) {
                return push_piece(out, rem);
            } else if (side == AL_SIDE_BACK) {
                continue;
            } else {
                if (!push_piece(out, front)) return false;
                rem = back;
                continue;
            }
        }
        if (opposite) continue; /* touching back to back: inside */
        if (b_later) continue;  /* shared face: the later brush keeps it */
        return push_piece(out, rem); /* shared face kept by this brush */
    }
    return true; /* REM is inside B */
}

/* The box [MINS, MAXS] as six outward planes. */
static void box_planes(const double mins[3], const double maxs[3], double normals[6][3],
                       double dists[6])
{
    for (int axis = 0; axis < 3; axis++)
        for (int dir = 0; dir < 2; dir++) {
            int k = axis * 2 + dir;
            al_set(0, 0, 0, normals[k]);
            normals[k][axis] = dir ? -1.0 : 1.0;
            dists[k] = dir ? -mins[axis] : maxs[axis];
        }
}

/* The part of W inside the box of planes NORMALS, DISTS into *OUT (in ARENA), or NULL when
 * none is, or W lies on the box's surface (the block split above already separates the
 * regions there). The bounds decide the planes the face lies wholly on one side of, beyond
 * the on-plane epsilon (most, in a small box: most faces of a brush miss it altogether);
 * only the others split it. Returns 0, or -1 if memory runs out. */
static int clip_to_box(al_arena *arena, al_winding *w, const double normals[6][3],
                       const double dists[6], al_winding **out)
{
    *out = NULL;
    double fmins[3], fmaxs[3];
    al_winding_bounds(w, fmins, fmaxs);
    for (int k = 0; k < 6 && w; k++) {
        int axis = k / 2;
        double lo = k % 2 ? -fmaxs[axis] : fmins[axis]; /* along the box normal */
        double hi = k % 2 ? -fmins[axis] : fmaxs[axis];
        if (lo > dists[k] + AL_ON_EPSILON) return 0; /* wholly outside */
        if (hi < dists[k] - AL_ON_EPSILON) continue; /* wholly inside */
        al_winding *front, *back;
        int side = al_winding_split(arena, w, normals[k], dists[k], AL_ON_EPSILON, &front, &back);
        if (side < 0) return -1;
        if (side == AL_SIDE_ON) return 0;
        if (back && back != w) al_winding_bounds(back, fmins, fmaxs);
        w = back;
    }
    *out = w;
    return 0;
}

int al_csg_hint_faces(al_arena *arena, al_brush *const *hints, int count, const double mins[3],
                      const double maxs[3], al_poly_vec *out)
{
    double normals[6][3], dists[6];
    box_planes(mins, maxs, normals, dists);
    for (int i = 0; i < count; i++) {
        const al_brush *a = hints[i];
        if (!al_bounds_overlap(a->mins, a->maxs, mins, maxs, AL_ON_EPSILON)) continue;
        for (int s = 0; s < a->side_count; s++) {
            uint32_t flags = a->sides[s].material_flags;
            if (!(flags & AL_MATERIAL_HINT) || (flags & AL_MATERIAL_NODRAW) || !a->sides[s].winding)
                continue;
            al_winding *w;
            if (clip_to_box(arena, a->sides[s].winding, normals, dists, &w) < 0) return -1;
            if (!w) continue;
            al_bsp_poly poly = {
                .winding = w, .plane = a->sides[s].plane, .candidate = true, .hint = true};
            al_winding_bounds(w, poly.mins, poly.maxs);
            if (!al_poly_vec_push(out, &poly)) return -1;
        }
    }
    return 0;
}

int al_csg_boundary(al_arena *arena, const al_plane_table *planes, al_brush *const *brushes,
                    int count, const double mins[3], const double maxs[3], int hull,
                    al_poly_vec *out)
{
    if (count == 0) return 0;
    al_arena_mark mark = al_arena_get_mark(arena);

    /* Overlap lists by sweep and prune on x. */
    sort_item *order = al_arena_alloc(arena, (size_t) count * sizeof *order);
    int *degree = al_arena_calloc(arena, (size_t) count, sizeof *degree);
    if (!order || !degree) goto nomem;
    for (int i = 0; i < count; i++) order[i] = (sort_item){brushes[i]->mins[0], i};
    qsort(order, (size_t) count, sizeof *order, compare_items);
    int pair_capacity = 1024, pair_count = 0;
    int (*pairs)[2] = malloc((size_t) pair_capacity * sizeof *pairs);
    if (!pairs) goto nomem;
    for (int a = 0; a < count; a++) {
        const al_brush *ba = brushes[order[a].index];
        for (int b = a + 1; b < count; b++) {
            const al_brush *bb = brushes[order[b].index];
            if (bb->mins[0] >= ba->maxs[0] + AL_ON_EPSILON) break;
            if (!al_bounds_overlap(ba->mins, ba->maxs, bb->mins, bb->maxs, -AL_ON_EPSILON))
                continue;
            if (pair_count == pair_capacity) {
                pair_capacity *= 2;
                int (*grown)[2] = realloc(pairs, (size_t) pair_capacity * sizeof *pairs);
                if (!grown) {
                    free(pairs);
                    goto nomem;
                }
                pairs = grown;
            }
            pairs[pair_count][0] = order[a].index;
            pairs[pair_count][1] = order[b].index;
            pair_count++;
            degree[order[a].index]++;
            degree[order[b].index]++;
        }
    }
    int *start = al_arena_alloc(arena, (size_t) (count + 1) * sizeof *start);
    int *adjacent = al_arena_alloc(arena, (size_t) (2 * pair_count + 1) * sizeof *adjacent);
    if (!start || !adjacent) {
        free(pairs);
        goto nomem;
    }
    start[0] = 0;
    for (int i = 0; i < count; i++) start[i + 1] = start[i] + degree[i];
    for (int i = 0; i < count; i++) degree[i] = start[i];
    for (int p = 0; p < pair_count; p++) {
        adjacent[degree[pairs[p][0]]++] = pairs[p][1];
        adjacent[degree[pairs[p][1]]++] = pairs[p][0];
    }
    free(pairs);

    double box_normals[6][3];
    double box_dists[6];
    box_planes(mins, maxs, box_normals, box_dists);

    piece_list pieces = {0}, next = {0};
    for (int i = 0; i < count; i++) {
        const al_brush *a = brushes[i];
        if (!al_bounds_overlap(a->mins, a->maxs, mins, maxs, AL_ON_EPSILON)) continue;
        for (int s = 0; s < a->side_count; s++) {
            al_arena_mark face_mark = al_arena_get_mark(arena);
            int face_plane = a->sides[s].plane;
            al_winding *w;
            if (clip_to_box(arena, a->sides[s].winding, box_normals, box_dists, &w) < 0)
                goto nomem_pieces;
            if (!w) {
                al_arena_release(arena, face_mark);
                continue;
            }
            double wmins[3], wmaxs[3];
            al_winding_bounds(w, wmins, wmaxs);
            pieces.count = 0;
            if (!push_piece(&pieces, w)) goto nomem_pieces;
            for (int j = start[i]; j < start[i + 1] && pieces.count > 0; j++) {
                const al_brush *b = brushes[adjacent[j]];
                if (!al_bounds_overlap(wmins, wmaxs, b->mins, b->maxs, -AL_ON_EPSILON)) continue;
                next.count = 0;
                for (int p = 0; p < pieces.count; p++)
                    if (!carve(arena, planes, pieces.items[p], face_plane, b, adjacent[j] > i,
                               &next))
                        goto nomem_pieces;
                piece_list t = pieces;
                pieces = next;
                next = t;
            }
            for (int p = 0; p < pieces.count; p++) {
                al_bsp_poly poly = {.winding = pieces.items[p], .plane = face_plane,
                                    .hull = hull, .candidate = true};
                al_winding_bounds(pieces.items[p], poly.mins, poly.maxs);
                if (!al_poly_vec_push(out, &poly)) goto nomem_pieces;
            }
        }
    }
    free(pieces.items);
    free(next.items);
    /* The polygons' windings stay in the arena; only the scratch arrays above them could be
     * released, and they are interleaved with the windings, so they stay too. */
    return 0;

nomem_pieces:
    free(pieces.items);
    free(next.items);
nomem:
    al_arena_release(arena, mark);
    return -1;
}

al_csg_side al_csg_point_side(const al_plane_table *planes, al_brush *const *brushes, int count,
                              const double p[3])
{
    al_csg_side side = AL_CSG_OUTSIDE;
    for (int i = 0; i < count; i++) {
        const al_brush *b = brushes[i];
        if (!al_bounds_overlap(p, p, b->mins, b->maxs, -AL_ON_EPSILON)) continue;
        double most = -INFINITY; /* the largest signed distance: > 0 outside */
        for (int s = 0; s < b->side_count; s++) {
            double d = al_plane_distance(&planes->planes[b->sides[s].plane], p);
            if (d > most) most = d;
        }
        if (most <= -AL_ON_EPSILON) return AL_CSG_INSIDE;
        if (most <= AL_ON_EPSILON) side = AL_CSG_ON;
    }
    return side;
}

bool al_csg_point_in_closure(const al_plane_table *planes, al_brush *const *brushes, int count,
                             const double p[3])
{
    for (int i = 0; i < count; i++) {
        const al_brush *b = brushes[i];
        if (!al_bounds_overlap(p, p, b->mins, b->maxs, -AL_ON_EPSILON)) continue;
        bool in = true;
        for (int s = 0; s < b->side_count && in; s++)
            in = al_plane_distance(&planes->planes[b->sides[s].plane], p) <= 0;
        if (in) return true;
    }
    return false;
}
