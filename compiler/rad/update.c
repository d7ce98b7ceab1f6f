/* Carrying light across an edit: al_rad_update builds the solver of the edited map and
 * corrects the light of the solver before it, instead of lighting the map anew.
 *
 * Why it can. A solver's light is linear in what it has shot: the light a luxel has
 * received is its direct light plus, over every shooter group g, the kernel K(g, luxel)
 * times g's exitance sent so far (rad.sent, kept as the receivers got it). An edit
 * changes K only where a ray the kernel casts passes through what the edit changed, or
 * where the PVS gate in front of the rays differs between the worlds (plan_fix_gates), and
 * changes the direct light only where a ray to a light source or a light's gate does. So:
 *   - faces the edit left as they were keep their luxels' light (matched by geometry,
 *     material and which luxels lie in solid), and groups keep what they have sent;
 *   - direct light is recomputed only for luxel-light pairs whose ray crosses a changed
 *     brush or whose gate differs (old and new light alike: the difference is added), for
 *     luxels of new faces, and taken back for lights that are gone (all at once, in the
 *     update: the first corrected frame). With extra samples (rad.extra > 1) the update
 *     lights each luxel whose direct light changes anew at its sample point alone, from
 *     every light shot, which is cheaper than the difference with every sample; the first
 *     steps then light those luxels with every sample and change their incident and
 *     unshot light by the difference, as below;
 *   - the bounced light is corrected afterwards, in steps (al_rad_step does them before
 *     any more shooting): for every panel that has sent light, the receivers whose rays
 *     to it may cross a changed brush (a bounding-volume tree of the groups, tested
 *     against the convex hull of panel and node) or whose gate toward it differs get
 *     K_new - K_old times what it sent, which is negative where the edit now casts a
 *     shadow; new faces gather what every panel has sent; panels that are gone take back
 *     all they gave.
 * A luxel whose incident light changes by d keeps reflectance x d more (or less) to shoot,
 * so the light an edit adds or takes away goes on bouncing through the ordinary shots,
 * as negative light where it was taken away.
 *
 * The old kernel is evaluated in the old solver, on its world: it must stay alive until
 * the corrections are done (al_rad_base). An update of a solver that still has
 * corrections to do starts again from that solver's own base, so there is never more
 * than one old world to keep. Its direct light, though, needs no kernel: the solver
 * before has its world's direct light already (unless luxels of it wait to be lit with
 * every sample), so the update corrects that for what changed since it alone, while
 * incident and unshot light, what was sent and the corrections go on from the base. (The
 * editor's edits come faster than lq-e3m4's corrections, some 0.8 s: each update redid
 * the direct light of every edit since the base, 10 to 40 changed boxes in 20 edits.)
 *
 * What is assumed: a ray that crosses no changed brush is blocked the same in both worlds.
 * Trees rebuilt around an edit may classify a ray that grazes a surface within their
 * epsilon differently; the changed brushes' boxes are grown by a unit for that, and the
 * tests measure what is left (al-rad.h). Workload: the update itself costs the patch
 * layout of the new world (lq-e3m4: about 130 ms), the gates (a bit test per pair of
 * elements, about as many as vis leaves) and the direct light of the pairs near the edit;
 * the corrections cost rays in proportion to the receivers the edit shadows or uncovers
 * and to the pairs whose gate differs.
 */
#include "rad-internal.h"

#include "al-clock.h"
#include "core/hash.h"
#include "al-parallel.h"
#include "al-vec3.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BOX_GROWTH   1.0  /* units a changed brush's box grows by (tree epsilons) */
#define MAX_BOXES     64   /* more changed brushes than this: the nearest boxes joined */
#define MERGE_AT_MOST 1024 /* more than this: one box around them all */
#define BVH_LEAF     4    /* groups per leaf of the receivers' tree */
#define FIX_CHUNK    4    /* panels per parallel job of a correction step */
#define FIX_STEP_MS  10.0 /* a correction step commits after about this long */

typedef struct bvh_node {
    double lo[3], hi[3];
    int32_t first, count; /* a leaf when count > 0: order[first .. first+count); else the
                             children are nodes first and first + 1 */
} bvh_node;

typedef struct rad_fix {
    const al_rad *base;   /* borrowed: the solver whose light this one corrects */
    int32_t *group_base;  /* per group of ours: the base's, -1 for a new one */
    int32_t *base_group;  /* per base group: ours, -1 for one that is gone */
    int32_t *panel_base;  /* per panel of ours: the base's, -1 */
    float (*base_sent)[3]; /* the base's rad.sent when the update took its light */
    rad_box *boxes;       /* where the edit changed the brushes, grown */
    int box_count;
    int32_t *new_groups; /* our groups on new faces: they gather */
    int32_t new_group_count;
    /* The work: a panel of ours that has sent light (>= 0), or -1 - p for a base panel p
     * that is gone. */
    int32_t *items;
    int32_t item_count, done;
    /* The receivers' tree: our groups that the base has too. */
    bvh_node *nodes;
    int32_t node_count;
    int32_t *order;
    /* per-worker scratch: PVS masks for both worlds */
    uint64_t *masks;
    int words, base_words, threads;
    int64_t rays[AL_RAD_BATCH];
    /* Where the PVS gate differs (plan_fix_gates): the kept luxels' elements, each a pair
     * (the base's vis leaf, ours). */
    int32_t elem_count;
    int elem_words;            /* words of a row over the elements */
    int32_t *elem_leaf[2];     /* per element: the base's vis leaf and ours (-1: none) */
    int32_t *luxel_elem;       /* per luxel of ours: its element, -1 on a new face */
    int32_t *group_elem_first; /* group_count + 1: each group's distinct elements */
    int32_t *group_elems;
    int32_t *elem_group_first; /* elem_count + 1: the groups holding each element */
    int32_t *elem_groups;
    uint64_t **elem_rows; /* per element X: bit Y set where the gate from X's leaf to Y's
                             differs between the worlds; NULL where it differs nowhere */
    int32_t gated;        /* elements with a row */
    uint64_t *unions;     /* per-worker scratch: a row */
    /* Luxels the update lit at their sample point alone (rad.extra > 1: the first
     * corrected frame), in luxel order; the first steps light them with every sample of
     * the sub-grid (refine_step) before any panel is corrected. */
    int32_t *coarse;
    int32_t coarse_count, refined;
    float (*fine)[3]; /* per coarse luxel: its light from every sample, as a step finds it */
} rad_fix;

void al_rad_fix_free(rad_fix *fix)
{
    if (!fix) return;
    free(fix->group_base);
    free(fix->base_group);
    free(fix->panel_base);
    free(fix->base_sent);
    free(fix->boxes);
    free(fix->new_groups);
    free(fix->items);
    free(fix->nodes);
    free(fix->order);
    free(fix->masks);
    free(fix->elem_leaf[0]);
    free(fix->elem_leaf[1]);
    free(fix->luxel_elem);
    free(fix->group_elem_first);
    free(fix->group_elems);
    free(fix->elem_group_first);
    free(fix->elem_groups);
    for (int32_t x = 0; fix->elem_rows && x < fix->elem_count; x++) free(fix->elem_rows[x]);
    free(fix->elem_rows);
    free(fix->unions);
    free(fix->coarse);
    free(fix->fine);
    free(fix);
}

int64_t al_rad_fix_left(const al_rad *rad)
{
    const rad_fix *fix = rad->fix;
    return fix ? (fix->item_count - fix->done) + (fix->coarse_count - fix->refined) : 0;
}

int32_t al_rad_coarse_left(const al_rad *rad)
{
    return rad->fix ? rad->fix->coarse_count - rad->fix->refined : 0;
}

int32_t al_rad_coarse_luxels(const al_rad *rad, const int32_t **luxels)
{
    *luxels = rad->fix ? rad->fix->coarse + rad->fix->refined : NULL;
    return al_rad_coarse_left(rad);
}

const al_rad *al_rad_base(al_rad *rad)
{
    pthread_mutex_lock(&rad->lock);
    const al_rad *base = rad->fix ? rad->fix->base : NULL;
    pthread_mutex_unlock(&rad->lock);
    return base;
}

/* --- geometry of the candidates ---------------------------------------------------- */

/* Could a segment from a point of box A to a point of box B pass through box X? False
 * only when an axis separates the convex hull of A and B from X: the three coordinate
 * axes, and the three across the line between their centres. */
static bool hull_meets(const double alo[3], const double ahi[3], const double blo[3],
                       const double bhi[3], const rad_box *x)
{
    for (int k = 0; k < 3; k++)
        if (fmax(ahi[k], bhi[k]) < x->lo[k] || fmin(alo[k], blo[k]) > x->hi[k]) return false;
    double ca[3], cb[3], ha[3], hb[3], cx[3], hx[3], d[3];
    for (int k = 0; k < 3; k++) {
        ca[k] = 0.5 * (alo[k] + ahi[k]), ha[k] = 0.5 * (ahi[k] - alo[k]);
        cb[k] = 0.5 * (blo[k] + bhi[k]), hb[k] = 0.5 * (bhi[k] - blo[k]);
        cx[k] = 0.5 * (x->lo[k] + x->hi[k]), hx[k] = 0.5 * (x->hi[k] - x->lo[k]);
        d[k] = cb[k] - ca[k];
    }
    for (int k = 0; k < 3; k++) {
        double e[3] = {0, 0, 0}, v[3];
        e[k] = 1;
        al_cross(d, e, v);
        if (al_dot(v, v) < 1e-12) continue;
        double av = fabs(v[0]), bv = fabs(v[1]), cv = fabs(v[2]);
        double ra = av * ha[0] + bv * ha[1] + cv * ha[2];
        double rb = av * hb[0] + bv * hb[1] + cv * hb[2];
        double rx = av * hx[0] + bv * hx[1] + cv * hx[2];
        double pa = al_dot(ca, v), pb = al_dot(cb, v), px = al_dot(cx, v);
        if (fmax(pa + ra, pb + rb) < px - rx || fmin(pa - ra, pb - rb) > px + rx) return false;
    }
    return true;
}

static bool hull_meets_any(const rad_fix *fix, const double alo[3], const double ahi[3],
                           const double blo[3], const double bhi[3])
{
    for (int i = 0; i < fix->box_count; i++)
        if (hull_meets(alo, ahi, blo, bhi, &fix->boxes[i])) return true;
    return false;
}

bool al_rad_segment_meets(const double p[3], const double q[3], const rad_box *x)
{
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3; k++) {
        double d = q[k] - p[k];
        if (fabs(d) < 1e-12) {
            if (p[k] < x->lo[k] || p[k] > x->hi[k]) return false;
            continue;
        }
        double a = (x->lo[k] - p[k]) / d, b = (x->hi[k] - p[k]) / d;
        if (a > b) {
            double t = a;
            a = b, b = t;
        }
        t0 = fmax(t0, a), t1 = fmin(t1, b);
        if (t0 > t1) return false;
    }
    return true;
}

/* The box of a sphere grown by the sample offset and a unit: where the points a group's
 * (or panel's) rays start from lie. */
static void sphere_box(const double c[3], double r, double lo[3], double hi[3])
{
    r += AL_RAD_SAMPLE_OFFSET + 1.0;
    for (int k = 0; k < 3; k++) lo[k] = c[k] - r, hi[k] = c[k] + r;
}

/* --- matching the base's faces, groups, panels and lights -------------------------- */

/* A face's grid and polygon: what its slots are made from. */
static uint64_t face_key(const al_rad *rad, const rad_face *f)
{
    uint64_t h = AL_FNV1A_SEED;
    h = al_fnv1a(h, f->normal, sizeof f->normal);
    h = al_fnv1a(h, &f->dist, sizeof f->dist);
    h = al_fnv1a(h, &f->luxel, sizeof f->luxel);
    h = al_fnv1a(h, &f->u0, sizeof f->u0);
    h = al_fnv1a(h, &f->v0, sizeof f->v0);
    const al_face_polys *fp = &rad->polys;
    for (int k = fp->brush_first[f->brush]; k < fp->brush_first[f->brush + 1]; k++)
        if (fp->faces[k].face == f->face)
            h = al_fnv1a(h, fp->points + fp->faces[k].first_point,
                         (size_t) fp->faces[k].point_count * sizeof fp->points[0]);
    return h;
}

static const al_face_poly *poly_of(const al_rad *rad, const rad_face *f)
{
    const al_face_polys *fp = &rad->polys;
    for (int k = fp->brush_first[f->brush]; k < fp->brush_first[f->brush + 1]; k++)
        if (fp->faces[k].face == f->face) return &fp->faces[k];
    return NULL;
}

/* Whether faces A of RA and B of RB have the same grid and polygon, so the same slots. */
static bool same_grid(const al_rad *ra, const rad_face *a, const al_rad *rb, const rad_face *b)
{
    if (memcmp(a->normal, b->normal, sizeof a->normal) != 0 || a->dist != b->dist ||
        a->luxel != b->luxel || a->u0 != b->u0 || a->v0 != b->v0 || a->w != b->w || a->h != b->h)
        return false;
    const al_face_poly *pa = poly_of(ra, a), *pb = poly_of(rb, b);
    return pa && pb && pa->point_count == pb->point_count &&
           memcmp(ra->polys.points + pa->first_point, rb->polys.points + pb->first_point,
                  (size_t) pa->point_count * sizeof ra->polys.points[0]) == 0;
}

/* Whether face A of RA is face B of RB: the same grid, material light and luxels out of
 * solid (so their luxels, groups and panels come out the same). */
static bool same_face(const al_rad *ra, const rad_face *a, const al_rad *rb, const rad_face *b)
{
    if (!same_grid(ra, a, rb, b) || a->live != b->live ||
        memcmp(a->reflectance, b->reflectance, sizeof a->reflectance) != 0 ||
        memcmp(a->emission, b->emission, sizeof a->emission) != 0)
        return false;
    for (int32_t s = 0; s < a->w * a->h; s++)
        if ((ra->slots[a->first_slot + s] < 0) != (rb->slots[b->first_slot + s] < 0)) return false;
    return true;
}

/* The base's faces by key: open addressing, faces of equal keys chained through next. */
typedef struct face_table {
    uint64_t *keys;
    int32_t *slot, *next;
    uint8_t *taken;
    uint32_t mask;
} face_table;

static void face_table_free(face_table *t)
{
    free(t->keys), free(t->slot), free(t->next), free(t->taken);
}

static bool face_table_build(face_table *t, const al_rad *base)
{
    int32_t n = base->face_count, cap = 16;
    while (cap < 2 * n) cap *= 2;
    t->keys = malloc((size_t) cap * sizeof *t->keys);
    t->slot = malloc((size_t) cap * sizeof *t->slot);
    t->next = malloc(((size_t) n + 1) * sizeof *t->next);
    t->taken = calloc((size_t) n + 1, 1);
    t->mask = (uint32_t) cap - 1;
    if (!t->keys || !t->slot || !t->next || !t->taken) {
        face_table_free(t);
        return false;
    }
    for (int32_t i = 0; i < cap; i++) t->slot[i] = -1;
    for (int32_t f = 0; f < n; f++) {
        uint64_t k = face_key(base, &base->faces[f]);
        uint32_t i = (uint32_t) k & t->mask;
        while (t->slot[i] >= 0 && t->keys[i] != k) i = (i + 1) & t->mask;
        t->next[f] = t->slot[i];
        t->keys[i] = k;
        t->slot[i] = f;
    }
    return true;
}

/* The first base face of key K (then t->next), or -1. */
static int32_t face_table_find(const face_table *t, uint64_t k)
{
    uint32_t i = (uint32_t) k & t->mask;
    while (t->slot[i] >= 0 && t->keys[i] != k) i = (i + 1) & t->mask;
    return t->slot[i];
}

/* FACE_BASE[f] for each face of RAD: the base's face it is, or -1. */
static bool match_faces(const al_rad *rad, const al_rad *base, int32_t *face_base)
{
    face_table t;
    if (!face_table_build(&t, base)) return false;
    for (int32_t f = 0; f < rad->face_count; f++) {
        face_base[f] = -1;
        const rad_face *mine = &rad->faces[f];
        if (mine->live == 0) continue;
        for (int32_t b = face_table_find(&t, face_key(rad, mine)); b >= 0; b = t.next[b])
            if (!t.taken[b] && same_face(rad, mine, base, &base->faces[b])) {
                t.taken[b] = 1;
                face_base[f] = b;
                break;
            }
    }
    face_table_free(&t);
    return true;
}

/* The base's vis leaves that are the new world's too: a block whose vis tree both worlds
 * share (al_world_update shares unchanged blocks) has the same leaves, numbered from its
 * own leaf_base in each world. A copied luxel then takes its leaf from this table rather
 * than from a walk down the trees (a few hundred thousand walks on lq-e3m4). */
static bool map_clusters(rad_reuse *ru, const al_world *now)
{
    const al_world *was = ru->base->world;
    const al_vis *bv = was->vis, *nv = now->vis;
    ru->cluster = NULL;
    ru->cluster_count = 0;
    if (!bv || !nv || !bv->leaf_base || !nv->leaf_base) return true;
    const al_model *bm = &was->models[0], *nm = &now->models[0];
    if (bm->block_count != nm->block_count) return true;
    ru->cluster = malloc(((size_t) bv->cluster_count + 1) * sizeof *ru->cluster);
    if (!ru->cluster) return false;
    ru->cluster_count = bv->cluster_count;
    for (int32_t c = 0; c < bv->cluster_count; c++) ru->cluster[c] = -2;
    for (int b = 0; b < bm->block_count; b++) {
        const al_tree *bt = &bm->blocks[b].vis, *nt = &nm->blocks[b].vis;
        int32_t n = bv->leaf_base[b + 1] - bv->leaf_base[b];
        if (bt->nodes != nt->nodes || bt->root != nt->root || bt->leaf_count != nt->leaf_count ||
            n != nv->leaf_base[b + 1] - nv->leaf_base[b])
            continue;
        for (int32_t i = 0; i < n; i++) {
            int32_t c = bv->leaf_cluster[bv->leaf_base[b] + i];
            if (c >= 0 && c < ru->cluster_count)
                ru->cluster[c] = nv->leaf_cluster[nv->leaf_base[b] + i];
        }
    }
    return true;
}

bool al_rad_reuse_faces(al_rad *rad)
{
    rad_reuse *ru = rad->reuse;
    const al_rad *base = ru->base;
    face_table t;
    ru->face = malloc(((size_t) rad->face_count + 1) * sizeof *ru->face);
    ru->place = malloc(((size_t) rad->face_count + 1) * sizeof *ru->place);
    if (!ru->face || !ru->place || !map_clusters(ru, rad->world) || !face_table_build(&t, base))
        return false;
    /* Per base face: its place was taken by a face of ours. */
    uint8_t *placed = calloc((size_t) base->face_count + 1, 1);
    if (!placed) {
        face_table_free(&t);
        return false;
    }
    const al_face_polys *fp = &rad->polys;
    for (int32_t f = 0; f < rad->face_count; f++) {
        ru->face[f] = ru->place[f] = -1;
        const rad_face *mine = &rad->faces[f];
        /* The same grid keeps its place in the atlas, near the edit or not; of faces alike
         * (a brush and its copy in place), the one of the same brush and face number. */
        int32_t pick = -1;
        for (int32_t b = face_table_find(&t, face_key(rad, mine)); b >= 0; b = t.next[b]) {
            const rad_face *theirs = &base->faces[b];
            if (placed[b] || !same_grid(rad, mine, base, theirs)) continue;
            if (pick < 0 || (theirs->brush == mine->brush && theirs->face == mine->face)) pick = b;
            if (theirs->brush == mine->brush && theirs->face == mine->face) break;
        }
        if (pick >= 0) {
            placed[pick] = 1;
            ru->place[f] = pick;
        }
        const al_face_poly *p = poly_of(rad, mine);
        if (!p) continue;
        /* Its sample points lie within a unit and the offset of its polygon: no changed
         * brush may come that near, or a luxel may have gone into solid or out of it. */
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int q = 0; q < p->point_count; q++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fmin(lo[k], fp->points[p->first_point + q][k] - AL_RAD_SAMPLE_OFFSET - 1);
                hi[k] = fmax(hi[k], fp->points[p->first_point + q][k] + AL_RAD_SAMPLE_OFFSET + 1);
            }
        bool near = false;
        for (int b = 0; b < ru->box_count && !near; b++)
            for (int k = 0; k < 3; k++) {
                near = hi[k] >= ru->boxes[b].lo[k] && lo[k] <= ru->boxes[b].hi[k];
                if (!near) break;
            }
        if (near) continue;
        for (int32_t b = face_table_find(&t, face_key(rad, mine)); b >= 0; b = t.next[b])
            if (!t.taken[b] && same_grid(rad, mine, base, &base->faces[b])) {
                t.taken[b] = 1;
                ru->face[f] = b;
                break;
            }
    }
    free(placed);
    face_table_free(&t);
    return true;
}

/* FIRST[f] .. FIRST[f + 1]: the groups of each face (they are listed face by face), and
 * the same for the panels. */
static bool face_ranges(const al_rad *rad, int32_t **groups, int32_t **panels)
{
    *groups = calloc((size_t) rad->face_count + 2, sizeof **groups);
    *panels = calloc((size_t) rad->face_count + 2, sizeof **panels);
    if (!*groups || !*panels) return false;
    for (int32_t g = 0; g < rad->group_count; g++) (*groups)[rad->groups[g].face + 1]++;
    for (int32_t p = 0; p < rad->panel_count; p++) (*panels)[rad->panels[p].face + 1]++;
    for (int32_t f = 0; f < rad->face_count; f++) {
        (*groups)[f + 1] += (*groups)[f];
        (*panels)[f + 1] += (*panels)[f];
    }
    return true;
}

static bool same_light(const rad_light *a, const rad_light *b)
{
    return a->kind == b->kind && a->level == b->level && a->wait == b->wait &&
           a->delay == b->delay && a->falloff == b->falloff && a->anglescale == b->anglescale &&
           a->dirt == b->dirt && a->dirt_scale == b->dirt_scale && a->dirt_gain == b->dirt_gain &&
           a->dome == b->dome && a->range == b->range && a->cos_outer == b->cos_outer &&
           a->cos_inner == b->cos_inner && memcmp(a->origin, b->origin, sizeof a->origin) == 0 &&
           memcmp(a->dir, b->dir, sizeof a->dir) == 0 &&
           memcmp(a->colour, b->colour, sizeof a->colour) == 0;
}

/* LIGHT_OF[l] for each base light: ours that is the same, or -1. Lights are few (lq-e3m4
 * has 360), and mostly in the same order: each search starts after the last match. */
static bool match_lights(const al_rad *rad, const al_rad *base, int32_t *light_of)
{
    uint8_t *taken = calloc((size_t) rad->light_count + 1, 1);
    if (!taken) return false;
    int32_t from = 0;
    for (int32_t l = 0; l < base->light_count; l++) {
        light_of[l] = -1;
        for (int32_t i = 0; i < rad->light_count; i++) {
            int32_t m = (from + i) % rad->light_count;
            if (!taken[m] && same_light(&base->lights[l], &rad->lights[m])) {
                light_of[l] = m;
                taken[m] = 1;
                from = m + 1;
                break;
            }
        }
    }
    free(taken);
    return true;
}

/* --- where the edit changed the brushes ------------------------------------------- */

static uint64_t brush_key(const al_rad *rad, int32_t b)
{
    const al_face_polys *fp = &rad->polys;
    const al_input *in = rad->input;
    uint64_t h = AL_FNV1A_SEED;
    const al_brush_desc *bd = &in->brushes[b];
    const char *cls = bd->entity >= 0 && bd->entity < in->entity_count &&
                              in->entities[bd->entity].classname
                          ? in->entities[bd->entity].classname
                          : "";
    int role = (int) al_entity_role_of(cls);
    h = al_fnv1a(h, &role, sizeof role);
    for (int k = fp->brush_first[b]; k < fp->brush_first[b + 1]; k++) {
        const al_face_poly *p = &fp->faces[k];
        uint32_t flags = p->material >= 0 && p->material < in->material_count
                             ? in->materials[p->material].flags : 0;
        h = al_fnv1a(h, &flags, sizeof flags);
        h = al_fnv1a(h, fp->points + p->first_point, (size_t) p->point_count * sizeof fp->points[0]);
    }
    return h;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static bool add_box(rad_box **boxes, int *count, int *cap, const double lo[3], const double hi[3])
{
    if (*count == *cap) {
        int n = *cap ? *cap * 2 : 16;
        rad_box *p = realloc(*boxes, (size_t) n * sizeof *p);
        if (!p) return false;
        *boxes = p;
        *cap = n;
    }
    rad_box *b = &(*boxes)[(*count)++];
    for (int k = 0; k < 3; k++) b->lo[k] = lo[k] - BOX_GROWTH, b->hi[k] = hi[k] + BOX_GROWTH;
    return true;
}

/* RAD's brush keys (rad.brush_keys), made on first use (outside its lock, which the
 * lightmap copies of other threads take). NULL if memory runs out. */
static const uint64_t *brush_keys(const al_rad *rad_c)
{
    al_rad *rad = (al_rad *) rad_c; /* the list is a cache of what RAD is */
    pthread_mutex_lock(&rad->lock);
    const uint64_t *made = rad->brush_keys;
    pthread_mutex_unlock(&rad->lock);
    if (made) return made;
    int32_t count = rad->polys.brush_count;
    uint64_t *keys = malloc(((size_t) count + 1) * 2 * sizeof(uint64_t));
    if (!keys) return NULL;
    for (int32_t b = 0; b < count; b++) {
        keys[2 * b] = brush_key(rad, b);
        keys[2 * b + 1] = (uint64_t) b;
    }
    qsort(keys, (size_t) count, 2 * sizeof(uint64_t), compare_u64);
    pthread_mutex_lock(&rad->lock);
    if (!rad->brush_keys)
        rad->brush_keys = keys;
    else
        free(keys);
    made = rad->brush_keys;
    pthread_mutex_unlock(&rad->lock);
    return made;
}

/* The boxes of the brushes one input has and the other has not (by content: a brush that
 * only moved in the list is no change). */
static bool changed_boxes(const al_rad *rad, const al_rad *base, rad_fix *fix)
{
    const al_rad *side[2] = {base, rad};
    int32_t count[2] = {base->polys.brush_count, rad->polys.brush_count};
    const uint64_t *keys[2] = {brush_keys(base), brush_keys(rad)};
    bool ok = keys[0] && keys[1];
    int cap = 0;
    int32_t i = 0, j = 0;
    while (ok && (i < count[0] || j < count[1])) {
        uint64_t a = i < count[0] ? keys[0][2 * i] : UINT64_MAX;
        uint64_t b = j < count[1] ? keys[1][2 * j] : UINT64_MAX;
        if (i < count[0] && j < count[1] && a == b) {
            i++, j++;
            continue;
        }
        int s = (j >= count[1] || (i < count[0] && a < b)) ? 0 : 1;
        int32_t brush = (int32_t) keys[s][2 * (s == 0 ? i : j) + 1];
        const al_face_polys *fp = &side[s]->polys;
        if (fp->brush_first[brush] < fp->brush_first[brush + 1])
            ok = add_box(&fix->boxes, &fix->box_count, &cap, fp->brush_mins[brush],
                         fp->brush_maxs[brush]);
        if (s == 0) i++;
        else j++;
    }
    if (ok) fix->box_count = al_rad_merge_boxes(fix->boxes, fix->box_count, MAX_BOXES);
    return ok;
}

static double box_volume(const rad_box *b)
{
    return (b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]);
}

static void box_union(const rad_box *a, const rad_box *b, rad_box *out)
{
    for (int k = 0; k < 3; k++) {
        out->lo[k] = fmin(a->lo[k], b->lo[k]);
        out->hi[k] = fmax(a->hi[k], b->hi[k]);
    }
}

int al_rad_merge_boxes(rad_box *boxes, int count, int max)
{
    if (count <= max) return count;
    if (count > MERGE_AT_MOST || max < 1) {
        /* Too many to pair up: one box around them all. */
        for (int b = 1; b < count; b++) box_union(&boxes[0], &boxes[b], &boxes[0]);
        return 1;
    }
    /* The pair whose box grows the least over the two joins, until MAX are left: an
     * update after many edits since its base (the editor's, while the corrections of the
     * last are under way) keeps boxes around each place edited, not one around the map. */
    while (count > max) {
        int best_a = 0, best_b = 1;
        double best = INFINITY;
        for (int a = 0; a < count; a++)
            for (int b = a + 1; b < count; b++) {
                rad_box u;
                box_union(&boxes[a], &boxes[b], &u);
                double grow = box_volume(&u) - box_volume(&boxes[a]) - box_volume(&boxes[b]);
                if (grow < best) best = grow, best_a = a, best_b = b;
            }
        box_union(&boxes[best_a], &boxes[best_b], &boxes[best_a]);
        boxes[best_b] = boxes[--count];
    }
    return count;
}

/* --- where the PVS gate differs ----------------------------------------------------- */

/* Besides its rays the kernel has a gate: a shooter gives a receiver group nothing unless
 * a vis leaf of the group is in the PVS rows of the shooter's leaves (al_rad_group_sees),
 * and a light gives a luxel nothing unless the luxel's leaf is in the row of the light's.
 * The PVS is conservative, so a shut gate only repeats what the rays say, except for a
 * ray through an edge or a corner two brushes share: the light trees let it through, the
 * portals have no opening there. Such a pair's light depends on the gate; and the gate of
 * a pair far from any changed brush can differ between two worlds: when the map goes from
 * sealed to leaking (the void's leaves, in no vis leaf and so seen by every shooter,
 * become vis leaves; or the PVS is dropped), when one world has a PVS and the other none
 * or another level of it, or when an edit changes rows far from itself. (e3m3: deleting a
 * brush of its outer wall opened the map; a luxel outside, lit before through a ray that
 * grazes a corner, was in no vis leaf, and now its vis leaf is not in the shooter's PVS.)
 *
 * So a pair whose gate differs is corrected as a pair whose rays may differ. The gate of a
 * pair is an OR over the leaves of the shooter's luxels and the receiver's (of the light
 * and the luxel): it can differ only if it differs for some luxel of each. Each kept luxel
 * has an element, the pair (its vis leaf in the base's world, in ours); elements are
 * about as many as vis leaves, and for each element X the elements Y whose gate from X
 * differs make a bit row (elem_rows). A panel corrects the groups holding an element of
 * the union of its elements' rows whose gate does differ; a light, the luxels whose
 * element is in its own row. */

/* The elements whose gate from (FROM0 in the base's world, FROM in ours) differs, into
 * ROW (elem_words words, cleared first); whether there is any. The gate from leaf A to
 * leaf B, as the kernel and the direct light take it, is open without a PVS row for A,
 * or for a B in no vis leaf, and else where A's row has B. */
static bool gate_row(const al_rad *rad, const al_rad *base, const rad_fix *fix, int32_t from0,
                     int32_t from, uint64_t *row)
{
    memset(row, 0, (size_t) fix->elem_words * sizeof *row);
    const uint64_t *r0 = al_rad_pvs_row(base, from0), *r = al_rad_pvs_row(rad, from);
    if (!r0 && !r) return false; /* open in both, toward every leaf */
    bool any = false;
    const int32_t *to0 = fix->elem_leaf[0], *to = fix->elem_leaf[1];
    for (int32_t y = 0; y < fix->elem_count; y++) {
        bool open0 = !r0 || to0[y] < 0 || al_bit_test(r0, to0[y]);
        bool open = !r || to[y] < 0 || al_bit_test(r, to[y]);
        if (open0 != open) {
            al_bit_set(row, y);
            any = true;
        }
    }
    return any;
}

typedef struct gate_pass {
    const al_rad *rad, *base;
    rad_fix *fix;
    uint64_t *scratch; /* per worker: a row */
    bool failed;       /* out of memory */
} gate_pass;

#define GATE_CHUNK 64 /* elements per job */

static void gate_job(void *context, int index, int worker)
{
    gate_pass *gp = context;
    rad_fix *fix = gp->fix;
    uint64_t *row = gp->scratch + (size_t) worker * (size_t) fix->elem_words;
    int32_t a = index * GATE_CHUNK;
    int32_t b = a + GATE_CHUNK < fix->elem_count ? a + GATE_CHUNK : fix->elem_count;
    for (int32_t x = a; x < b; x++) {
        if (!gate_row(gp->rad, gp->base, fix, fix->elem_leaf[0][x], fix->elem_leaf[1][x], row))
            continue;
        uint64_t *keep = malloc((size_t) fix->elem_words * sizeof *keep);
        if (!keep) {
            gp->failed = true; /* only ever set: the race is benign */
            continue;
        }
        memcpy(keep, row, (size_t) fix->elem_words * sizeof *keep);
        fix->elem_rows[x] = keep;
    }
}

/* Elements by key (base leaf + 1, our leaf + 1): open addressing, kept at most half full. */
typedef struct elem_table {
    uint64_t *keys;
    int32_t *ids; /* -1: free */
    uint32_t cap; /* a power of two */
} elem_table;

static uint32_t elem_slot(const elem_table *t, uint64_t k)
{
    uint32_t i = (uint32_t) ((k * 0x9E3779B97F4A7C15ull) >> 32) & (t->cap - 1);
    while (t->ids[i] >= 0 && t->keys[i] != k) i = (i + 1) & (t->cap - 1);
    return i;
}

static bool elem_table_grow(elem_table *t, uint32_t cap)
{
    elem_table n = {malloc((size_t) cap * sizeof *n.keys), malloc((size_t) cap * sizeof *n.ids),
                    cap};
    if (!n.keys || !n.ids) {
        free(n.keys), free(n.ids);
        return false;
    }
    for (uint32_t i = 0; i < cap; i++) n.ids[i] = -1;
    for (uint32_t i = 0; i < t->cap; i++)
        if (t->ids[i] >= 0) {
            uint32_t at = elem_slot(&n, t->keys[i]);
            n.keys[at] = t->keys[i];
            n.ids[at] = t->ids[i];
        }
    free(t->keys), free(t->ids);
    *t = n;
    return true;
}

/* The element of each luxel of a face that stayed (FIX->luxel_elem, -1 for the others). */
static bool find_elements(const al_rad *rad, const al_rad *base, rad_fix *fix,
                          const int32_t *face_base)
{
    /* About one element per vis leaf: a leaf of a block both worlds share is the same
     * leaf in both. */
    elem_table t = {NULL, NULL, 0};
    uint32_t cap = 64;
    while (cap < 2 * ((int64_t) rad->cluster_count + base->cluster_count) && cap < (1u << 30))
        cap *= 2;
    int32_t room = 0;
    bool ok = elem_table_grow(&t, cap);
    for (int32_t j = 0; ok && j < rad->luxel_count; j++) fix->luxel_elem[j] = -1;
    for (int32_t f = 0; ok && f < rad->face_count; f++) {
        int32_t fb = face_base[f];
        if (fb < 0) continue;
        const rad_face *mine = &rad->faces[f], *theirs = &base->faces[fb];
        for (int32_t s = 0; ok && s < mine->w * mine->h; s++) {
            int32_t j = rad->slots[mine->first_slot + s];
            if (j < 0) continue;
            int32_t c0 = base->luxel_cluster[base->slots[theirs->first_slot + s]];
            int32_t c = rad->luxel_cluster[j];
            uint64_t k = ((uint64_t) (uint32_t) (c0 + 1) << 32) | (uint32_t) (c + 1);
            uint32_t i = elem_slot(&t, k);
            if (t.ids[i] < 0) {
                if (fix->elem_count == room) {
                    int32_t more = room ? 2 * room : 1024;
                    int32_t *a = realloc(fix->elem_leaf[0], (size_t) more * sizeof *a);
                    if (a) fix->elem_leaf[0] = a;
                    int32_t *b = a ? realloc(fix->elem_leaf[1], (size_t) more * sizeof *b) : NULL;
                    if (b) fix->elem_leaf[1] = b;
                    if (!(ok = a && b)) break;
                    room = more;
                }
                t.keys[i] = k;
                t.ids[i] = fix->elem_count;
                fix->elem_leaf[0][fix->elem_count] = c0;
                fix->elem_leaf[1][fix->elem_count] = c;
                fix->elem_count++;
                if (2 * (int64_t) fix->elem_count > t.cap) ok = elem_table_grow(&t, 2 * t.cap);
                i = elem_slot(&t, k);
            }
            fix->luxel_elem[j] = t.ids[i];
        }
    }
    free(t.keys), free(t.ids);
    return ok;
}

/* The elements of the luxels of faces that stayed (their groups' lists, and the groups of
 * each element), and the rows of those whose gates differ. */
static al_status plan_fix_gates(const al_rad *rad, const al_rad *base, rad_fix *fix,
                                const int32_t *face_base)
{
    fix->luxel_elem = malloc(((size_t) rad->luxel_count + 1) * sizeof *fix->luxel_elem);
    fix->group_elem_first = calloc((size_t) rad->group_count + 2, sizeof *fix->group_elem_first);
    if (!fix->luxel_elem || !fix->group_elem_first || !find_elements(rad, base, fix, face_base))
        return AL_ERR_NOMEM;
    /* Each group's distinct elements (a group has at most AL_RAD_GROUP^2 luxels). */
    fix->group_elems = malloc(((size_t) rad->luxel_count + 1) * sizeof *fix->group_elems);
    fix->elem_group_first = calloc((size_t) fix->elem_count + 2, sizeof *fix->elem_group_first);
    if (!fix->group_elems || !fix->elem_group_first) return AL_ERR_NOMEM;
    int32_t n = 0;
    for (int32_t g = 0; g < rad->group_count; g++) {
        const rad_group *gr = &rad->groups[g];
        fix->group_elem_first[g] = n;
        for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++) {
            int32_t e = fix->luxel_elem[rad->group_luxels[k]];
            bool seen = e < 0;
            for (int32_t q = fix->group_elem_first[g]; q < n && !seen; q++)
                seen = fix->group_elems[q] == e;
            if (seen) continue;
            fix->group_elems[n++] = e;
            fix->elem_group_first[e + 1]++;
        }
    }
    fix->group_elem_first[rad->group_count] = n;
    for (int32_t e = 0; e < fix->elem_count; e++)
        fix->elem_group_first[e + 1] += fix->elem_group_first[e];
    fix->elem_groups = malloc(((size_t) n + 1) * sizeof *fix->elem_groups);
    int32_t *at = malloc(((size_t) fix->elem_count + 1) * sizeof *at);
    if (!fix->elem_groups || !at) {
        free(at);
        return AL_ERR_NOMEM;
    }
    memcpy(at, fix->elem_group_first, (size_t) fix->elem_count * sizeof *at);
    for (int32_t g = 0; g < rad->group_count; g++)
        for (int32_t q = fix->group_elem_first[g]; q < fix->group_elem_first[g + 1]; q++)
            fix->elem_groups[at[fix->group_elems[q]]++] = g;
    free(at);
    /* The rows. */
    fix->elem_words = (fix->elem_count + 63) / 64;
    fix->threads = al_rad_threads(rad);
    if (fix->threads > AL_RAD_BATCH) fix->threads = AL_RAD_BATCH;
    fix->elem_rows = calloc((size_t) fix->elem_count + 1, sizeof *fix->elem_rows);
    fix->unions =
        malloc(((size_t) fix->threads * (size_t) fix->elem_words + 1) * sizeof *fix->unions);
    if (!fix->elem_rows || !fix->unions) return AL_ERR_NOMEM;
    gate_pass gp = {rad, base, fix, fix->unions, false};
    al_parallel_for((fix->elem_count + GATE_CHUNK - 1) / GATE_CHUNK, fix->threads, gate_job, &gp);
    if (gp.failed) return AL_ERR_NOMEM;
    for (int32_t x = 0; x < fix->elem_count; x++) fix->gated += fix->elem_rows[x] != NULL;
    return AL_OK;
}

/* --- the receivers' tree ----------------------------------------------------------- */

/* A group while the tree is built: its box and centre beside it, so that each level of
 * the build reads the groups it splits in order. Reading them through order[] from the
 * groups themselves, a cache miss each, took 40 ms and more on a 20,000-brush map: a step
 * that a new edit's cancel does not reach, on the core its collision wanted. */
typedef struct bvh_item {
    double lo[3], hi[3], centre[3];
    int32_t group;
} bvh_item;

static double min_d(double a, double b)
{
    return b < a ? b : a;
}

static double max_d(double a, double b)
{
    return b > a ? b : a;
}

/* Nodes of at least this many groups look for a cancel first. */
#define BVH_CANCEL_CHECK 64

/* What the tree's build works on: the groups it orders, and whether a cancel stopped it. */
typedef struct bvh_build {
    const al_rad *rad;
    rad_fix *fix;
    bvh_item *items;
    bool cancelled;
} bvh_build;

static void build_node(bvh_build *b, int32_t node, int32_t first, int32_t count)
{
    if (b->cancelled ||
        (count >= BVH_CANCEL_CHECK && (b->cancelled = atomic_load(&b->rad->cancel))))
        return;
    rad_fix *fix = b->fix;
    bvh_item *items = b->items;
    bvh_node *n = &fix->nodes[node];
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) n->lo[k] = INFINITY, n->hi[k] = -INFINITY;
    for (int32_t i = first; i < first + count; i++) {
        const bvh_item *it = &items[i];
        for (int k = 0; k < 3; k++) {
            n->lo[k] = min_d(n->lo[k], it->lo[k]), n->hi[k] = max_d(n->hi[k], it->hi[k]);
            clo[k] = min_d(clo[k], it->centre[k]), chi[k] = max_d(chi[k], it->centre[k]);
        }
    }
    if (count <= BVH_LEAF) {
        n->first = first;
        n->count = count;
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
    /* Split at the median centre along the axis (a partial selection). */
    int32_t lo = first, hi = first + count - 1, mid = first + count / 2;
    while (lo < hi) {
        double pivot = items[(lo + hi) / 2].centre[axis];
        int32_t i = lo, j = hi;
        while (i <= j) {
            while (items[i].centre[axis] < pivot) i++;
            while (items[j].centre[axis] > pivot) j--;
            if (i <= j) {
                bvh_item t = items[i];
                items[i] = items[j];
                items[j] = t;
                i++, j--;
            }
        }
        if (mid <= j) hi = j;
        else if (mid >= i) lo = i;
        else break;
    }
    int32_t left = fix->node_count;
    fix->node_count += 2;
    n->first = left;
    n->count = 0;
    build_node(b, left, first, mid - first);
    build_node(b, left + 1, mid, first + count - mid);
}

/* Builds the receivers' tree; a cancel (AL_ERR_CANCELLED) leaves none, for a later step
 * to build. */
static al_status build_bvh(const al_rad *rad, rad_fix *fix)
{
    int32_t n = 0;
    fix->order = malloc(((size_t) rad->group_count + 1) * sizeof *fix->order);
    fix->nodes = malloc(((size_t) 2 * rad->group_count + 2) * sizeof *fix->nodes);
    bvh_item *items = malloc(((size_t) rad->group_count + 1) * sizeof *items);
    if (!fix->order || !fix->nodes || !items) {
        free(items);
        return AL_ERR_NOMEM;
    }
    for (int32_t g = 0; g < rad->group_count; g++) {
        if (fix->group_base[g] < 0) continue;
        bvh_item *it = &items[n++];
        sphere_box(rad->groups[g].centre, rad->groups[g].radius, it->lo, it->hi);
        memcpy(it->centre, rad->groups[g].centre, sizeof it->centre);
        it->group = g;
    }
    fix->node_count = n > 0 ? 1 : 0;
    bvh_build b = {rad, fix, items, false};
    if (n > 0) build_node(&b, 0, 0, n);
    for (int32_t i = 0; i < n && !b.cancelled; i++) fix->order[i] = items[i].group;
    free(items);
    if (!b.cancelled) return AL_OK;
    free(fix->order);
    free(fix->nodes);
    fix->order = NULL;
    fix->nodes = NULL;
    fix->node_count = 0;
    return AL_ERR_CANCELLED;
}

/* --- the direct light, corrected in the update ------------------------------------ */

/* A relevant light's place in its list and its origin's x. */
typedef struct light_x {
    double x;
    int32_t i;
} light_x;

typedef struct light_pass {
    al_rad *rad;
    const al_rad *base;
    const int32_t *face_base;
    const int32_t *light_of;   /* per base light: ours, -1 */
    const int32_t *relevant;   /* base lights shot whose light the edit may change: gone,
                                  or reaching a changed brush */
    int32_t relevant_count;
    const uint64_t **rows, **base_rows; /* PVS rows of our lights and of the base's */
    uint64_t **gates; /* per base light: the elements its gate differs for (plan_fix_gates),
                         NULL for none */
    const rad_fix *fix;
    double extent, base_extent;
    const int *cancel; /* al_rad_options.cancel, or NULL */
    /* With rad.extra > 1: the luxels whose light changes are lit anew at their sample
     * point alone, and marked here (per luxel) for the steps to light with every sample;
     * NULL: the difference with every sample, at once. */
    uint8_t *coarse;
    /* The relevant lights by reach, so that a face tries only those that may reach it:
     * places in RELEVANT of the lights with a finite range in the order of their origins'
     * x (by_x, by_x_count; every range at most max_range), and of the others (suns, and
     * lights without a range), tried everywhere. */
    light_x *by_x;
    int32_t by_x_count, *unbounded, unbounded_count;
    double max_range;
    int64_t rays[64];
} light_pass;

/* Where a ray from a luxel at X toward light L ends. */
static void light_end(const rad_light *l, const double x[3], double extent, double end[3])
{
    if (l->kind == RAD_SUN)
        al_madd(x, l->dir, -extent, end);
    else
        al_copy(l->origin, end);
}

/* The box of a face's sample points (those of the direct light's sub-grid included). */
static void face_box(const al_rad *rad, const rad_face *f, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    int extra = rad->extra > 1 ? rad->extra : 0;
    for (int32_t s = f->first_slot; s < f->first_slot + f->w * f->h; s++) {
        int32_t l = rad->slots[s];
        if (l < 0) continue;
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], rad->point[l][k]), hi[k] = fmax(hi[k], rad->point[l][k]);
        /* Every centre of the sub-grid, in use here or in the base's luxel. */
        for (int q = 0; q < extra * extra; q++) {
            double x[3], from[3];
            al_rad_sub_point(f, extra, s - f->first_slot, q % extra, q / extra, x);
            al_madd(x, f->normal, AL_RAD_SAMPLE_OFFSET, from);
            for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], from[k]), hi[k] = fmax(hi[k], from[k]);
        }
    }
}

/* Whether a ray from a sample point of luxel J of RAD (or of the base's luxel of the same
 * cell) toward light L (reaching EXTENT) may cross a box of FIX: every centre of the
 * sub-grid is tried, so that a sample the edit put into solid or took out of it counts. */
static bool luxel_light_crosses(const al_rad *rad, int32_t j, const rad_light *l, double extent,
                                const rad_fix *fix)
{
    double end[3];
    light_end(l, rad->point[j], extent, end);
    for (int b = 0; b < fix->box_count; b++)
        if (al_rad_segment_meets(rad->point[j], end, &fix->boxes[b])) return true;
    if (rad->extra <= 1) return false;
    const rad_face *f = &rad->faces[rad->luxel_face[j]];
    for (int sb = 0; sb < rad->extra; sb++)
        for (int sa = 0; sa < rad->extra; sa++) {
            double x[3], from[3];
            al_rad_sub_point(f, rad->extra, rad->luxel_slot[j], sa, sb, x);
            al_madd(x, f->normal, AL_RAD_SAMPLE_OFFSET, from);
            light_end(l, from, extent, end);
            for (int b = 0; b < fix->box_count; b++)
                if (al_rad_segment_meets(from, end, &fix->boxes[b])) return true;
        }
    return false;
}

/* Whether the box [LO, HI] lies beyond L's reach: it lights nothing there. */
static bool out_of_reach(const rad_light *l, const double lo[3], const double hi[3])
{
    if (l->kind == RAD_SUN || !isfinite(l->range)) return false;
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double e = fmax(fmax(lo[k] - l->origin[k], l->origin[k] - hi[k]), 0);
        d2 += e * e;
    }
    return d2 >= l->range * l->range;
}

static int compare_by_x(const void *a, const void *b)
{
    const light_x *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
    return (x > y) - (x < y);
}

/* Sorts the relevant lights by reach (light_pass.by_x); false if memory ran out (then
 * every face tries every relevant light). Single-threaded, before the pass. */
static bool index_relevant(light_pass *lp)
{
    lp->by_x = malloc(((size_t) lp->relevant_count + 1) * sizeof *lp->by_x);
    lp->unbounded = malloc(((size_t) lp->relevant_count + 1) * sizeof *lp->unbounded);
    if (!lp->by_x || !lp->unbounded) {
        free(lp->by_x), free(lp->unbounded);
        lp->by_x = NULL;
        lp->unbounded = NULL;
        return false;
    }
    lp->by_x_count = lp->unbounded_count = 0;
    lp->max_range = 0;
    for (int32_t i = 0; i < lp->relevant_count; i++) {
        const rad_light *bl = &lp->base->lights[lp->relevant[i]];
        if (bl->kind == RAD_SUN || !isfinite(bl->range)) {
            lp->unbounded[lp->unbounded_count++] = i;
            continue;
        }
        lp->by_x[lp->by_x_count++] = (light_x){bl->origin[0], i};
        lp->max_range = fmax(lp->max_range, bl->range);
    }
    qsort(lp->by_x, (size_t) lp->by_x_count, sizeof *lp->by_x, compare_by_x);
    return true;
}

/* Places in RELEVANT of the lights that may reach the box LO..HI, in RELEVANT's order,
 * into OUT (room for every relevant light); how many. */
static int32_t relevant_near(const light_pass *lp, const double lo[3], const double hi[3],
                             int32_t *out)
{
    if (!lp->by_x) {
        for (int32_t i = 0; i < lp->relevant_count; i++) out[i] = i;
        return lp->relevant_count;
    }
    int32_t n = 0;
    for (int32_t k = 0; k < lp->unbounded_count; k++) out[n++] = lp->unbounded[k];
    /* The first light whose origin's x is at least lo[0] - max_range. */
    double from = lo[0] - lp->max_range, to = hi[0] + lp->max_range;
    int32_t a = 0, b = lp->by_x_count;
    while (a < b) {
        int32_t mid = a + (b - a) / 2;
        if (lp->by_x[mid].x < from)
            a = mid + 1;
        else
            b = mid;
    }
    for (int32_t k = a; k < lp->by_x_count && lp->by_x[k].x <= to; k++) {
        int32_t i = lp->by_x[k].i;
        if (!out_of_reach(&lp->base->lights[lp->relevant[i]], lo, hi)) out[n++] = i;
    }
    qsort(out, (size_t) n, sizeof *out, compare_i32);
    return n;
}

/* May a ray from some point of the box [LO, HI] toward L cross a changed brush? */
static bool face_light_crosses(const rad_fix *fix, const rad_light *l, const double lo[3],
                               const double hi[3], double extent)
{
    double blo[3], bhi[3];
    for (int k = 0; k < 3; k++) {
        if (l->kind == RAD_SUN) {
            blo[k] = lo[k] - l->dir[k] * extent;
            bhi[k] = hi[k] - l->dir[k] * extent;
        } else {
            blo[k] = bhi[k] = l->origin[k];
        }
    }
    return !out_of_reach(l, lo, hi) && hull_meets_any(fix, lo, hi, blo, bhi);
}

/* Whether luxel J of RAD has another occlusion than luxel J0 of BASE had. */
static bool occlusion_changed(const al_rad *rad, const al_rad *base, int32_t j, int32_t j0)
{
    float now = rad->occlusion ? rad->occlusion[j] : 0;
    float before = base->occlusion ? base->occlusion[j0] : 0;
    return now != before;
}

/* The lights shot that may reach some luxel of face F, into NEAR (room for every light),
 * in their order; how many. A point light whose range ends short of the box around the
 * face's sample points gives none of them anything (as the solver's light_job finds), so
 * a luxel's sum over these is its sum over every light shot, to the last bit. */
static int32_t lights_near_face(const al_rad *rad, const rad_face *f, int32_t *near)
{
    double lo[3], hi[3];
    al_bounds_clear(lo, hi);
    for (int32_t s = f->first_slot; s < f->first_slot + f->w * f->h; s++) {
        if (rad->slots[s] < 0) continue;
        rad_point p;
        al_rad_luxel_point(rad, rad->slots[s], &p);
        al_bounds_add(p.x, lo, hi);
    }
    int32_t n = 0;
    for (int32_t m = 0; m < rad->light_count; m++)
        if (rad->light_shot[m] && !out_of_reach(&rad->lights[m], lo, hi)) near[n++] = m;
    return n;
}

/* Luxel J's direct light anew (into OUT) from the lights NEAR[0, COUNT), or (NEAR NULL:
 * out of memory for the list) from every light shot of RAD, whose PVS rows are ROWS; with
 * ONCE at its sample point alone. The rays cast. */
static int64_t direct_of(const al_rad *rad, const uint64_t *const *rows, double extent, int32_t j,
                         const int32_t *near, int32_t count, bool once, float out[3])
{
    int64_t rays = 0;
    float add[3];
    out[0] = out[1] = out[2] = 0;
    int32_t tried = near ? count : rad->light_count;
    for (int32_t i = 0; i < tried; i++) {
        int32_t m = near ? near[i] : i;
        if (!rad->light_shot[m]) continue;
        rays += al_rad_light_at(rad, &rad->lights[m], rows[m], j, extent, once, add);
        for (int c = 0; c < 3; c++) out[c] += add[c];
    }
    return rays;
}

/* Luxel J's direct light anew, in the update: with every sample, or (the pass marks
 * coarse luxels) at its sample point alone, marking it. */
static int64_t relight(const light_pass *lp, int32_t j, const int32_t *near, int32_t count)
{
    if (lp->coarse) lp->coarse[j] = 1;
    return direct_of(lp->rad, lp->rows, lp->extent, j, near, count, lp->coarse != NULL,
                     lp->rad->direct[j]);
}

/* The lights a face's luxels are lit anew by, found when the first needs them: *NEAR (NULL
 * until then, or if out of memory, and then every light) and *COUNT (-1 until then). */
static void find_near(const al_rad *rad, const rad_face *f, int32_t **near, int32_t *count)
{
    if (*count >= 0) return;
    *near = malloc(((size_t) rad->light_count + 1) * sizeof **near);
    *count = *near ? lights_near_face(rad, f, *near) : 0;
}

/* A base light that may change the direct light of a kept face: LIGHT, and whether its
 * reach meets a changed brush near the face (CROSSES). */
typedef struct touch {
    int32_t light;
    bool crosses;
} touch;

/* Whether the edit may change what base light L gives the kept face in LO..HI: L is gone
 * (and reaches the face), or its reach meets a changed brush near it (*CROSSES), or its
 * PVS gate differs somewhere. */
static bool face_touched(const light_pass *lp, int32_t l, const double lo[3], const double hi[3],
                         double reach, bool *crosses)
{
    const rad_light *bl = &lp->base->lights[l];
    int32_t m = lp->light_of[l];
    *crosses = false;
    /* Out of reach first: on a big map most lights are, and the test is cheap. */
    if (out_of_reach(bl, lo, hi)) return false;
    *crosses = m >= 0 && face_light_crosses(lp->fix, bl, lo, hi, reach);
    return m < 0 || *crosses || lp->gates[l];
}

/* The I-th light of the face's list TOUCHING, or (NULL: out of memory for it) of the
 * relevant lights when it touches the face; false if it does not. */
static bool touch_at(const light_pass *lp, const touch *touching, int32_t i, const double lo[3],
                     const double hi[3], double reach, touch *out)
{
    if (touching) {
        *out = touching[i];
        return true;
    }
    out->light = lp->relevant[i];
    return face_touched(lp, out->light, lo, hi, reach, &out->crosses);
}

/* Whether the edit may change what base light L (touching the face: CROSSES as found)
 * gives luxel J of a kept face: L is gone, its gate to J's leaf differs, or a ray of it
 * to J crosses a changed brush. */
static bool luxel_changes(const light_pass *lp, int32_t l, bool crosses, int32_t j, double reach)
{
    if (lp->light_of[l] < 0) return true;
    const uint64_t *gate = lp->gates[l];
    if (gate && al_bit_test(gate, lp->fix->luxel_elem[j])) return true;
    return crosses && luxel_light_crosses(lp->rad, j, &lp->base->lights[l], reach, lp->fix);
}

static void direct_job(void *context, int index, int worker)
{
    light_pass *lp = context;
    al_rad *rad = lp->rad;
    const al_rad *base = lp->base;
    const rad_face *f = &rad->faces[index];
    if (f->live == 0 || (lp->cancel && __atomic_load_n(lp->cancel, __ATOMIC_ACQUIRE))) return;
    int32_t fb = lp->face_base[index];
    int64_t rays = 0;
    float add[3], old[3];
    /* Lights near the face, for luxels lit anew (found when the first needs them). */
    int32_t *near = NULL, near_count = -1;
    if (fb < 0) {
        /* A new face: the direct light of every light already shot (that reaches it). A
         * map that leaks keeps the faces toward the void: thousands at once. */
        find_near(rad, f, &near, &near_count);
        for (int32_t s = f->first_slot; s < f->first_slot + f->w * f->h; s++) {
            int32_t j = rad->slots[s];
            if (j < 0) continue;
            rays += relight(lp, j, near, near_count);
        }
        free(near);
        lp->rays[worker] += rays;
        return;
    }
    const rad_face *f0 = &base->faces[fb];
    /* A luxel whose occlusion the edit changed (dirt.c) is lit anew by every light shot:
     * the dirt on all its light changed, not only on light through the edit. */
    bool relit_any = false;
    for (int32_t s = 0; s < f->w * f->h; s++) {
        int32_t j = rad->slots[f->first_slot + s];
        if (j < 0 || !occlusion_changed(rad, base, j, base->slots[f0->first_slot + s])) continue;
        relit_any = true;
        find_near(rad, f, &near, &near_count);
        rays += relight(lp, j, near, near_count);
    }
    double lo[3], hi[3];
    face_box(rad, f, lo, hi);
    /* The base's lights whose light here the edit may change: a light that is gone takes
     * back all it gave; one that stayed, what it gave through a changed brush or where its
     * gate differs. (Out of memory for the list: each relevant light tried at each luxel.) */
    double reach = fmax(lp->extent, lp->base_extent);
    touch *touching = malloc(((size_t) lp->relevant_count + 1) * sizeof *touching);
    int32_t *places = malloc(((size_t) lp->relevant_count + 1) * sizeof *places);
    int32_t touching_count = 0;
    if (!places) {
        free(touching);
        touching = NULL;
    }
    int32_t place_count = touching ? relevant_near(lp, lo, hi, places) : 0;
    for (int32_t k = 0; k < place_count; k++) {
        int32_t l = lp->relevant[places[k]];
        if (face_touched(lp, l, lo, hi, reach, &touching[touching_count].crosses))
            touching[touching_count++].light = l;
    }
    free(places);
    int32_t light_count = touching ? touching_count : lp->relevant_count;
    if (lp->coarse) {
        /* Lit anew at the sample point: every luxel one of them reaches. */
        for (int32_t s = 0; s < f->w * f->h && light_count > 0; s++) {
            int32_t j = rad->slots[f->first_slot + s];
            if (j < 0 || lp->coarse[j]) continue;
            bool changed = false;
            for (int32_t i = 0; i < light_count && !changed; i++) {
                touch t;
                if (!touch_at(lp, touching, i, lo, hi, reach, &t)) continue;
                changed = luxel_changes(lp, t.light, t.crosses, j, reach);
            }
            if (!changed) continue;
            find_near(rad, f, &near, &near_count);
            rays += relight(lp, j, near, near_count);
        }
    } else {
        /* The difference of each such light, with every sample. */
        for (int32_t i = 0; i < light_count; i++) {
            touch t;
            if (!touch_at(lp, touching, i, lo, hi, reach, &t)) continue;
            int32_t l = t.light;
            int32_t m = lp->light_of[l];
            const rad_light *bl = &base->lights[l];
            for (int32_t s = 0; s < f->w * f->h; s++) {
                int32_t j = rad->slots[f->first_slot + s];
                if (j < 0) continue;
                int32_t j0 = base->slots[f0->first_slot + s];
                if (relit_any && occlusion_changed(rad, base, j, j0)) continue;
                if (!luxel_changes(lp, l, t.crosses, j, reach)) continue;
                if (m >= 0)
                    rays += al_rad_light_at(rad, &rad->lights[m], lp->rows[m], j, lp->extent, false,
                                            add);
                else
                    add[0] = add[1] = add[2] = 0;
                rays +=
                    al_rad_light_at(base, bl, lp->base_rows[l], j0, lp->base_extent, false, old);
                for (int c = 0; c < 3; c++) rad->direct[j][c] += add[c] - old[c];
            }
        }
    }
    free(touching);
    free(near);
    lp->rays[worker] += rays;
}

/* --- the refinement of coarse luxels, in steps -------------------------------------- */

typedef struct refine_pass {
    al_rad *rad;
    rad_fix *fix;
    const uint64_t **rows; /* per light: its PVS row */
    double extent;
    int32_t first, count; /* of fix.coarse */
    int64_t rays[AL_RAD_BATCH];
} refine_pass;

#define REFINE_CHUNK 32 /* coarse luxels per parallel job of a refinement */

static void refine_job(void *context, int index, int worker)
{
    refine_pass *rp = context;
    al_rad *rad = rp->rad;
    rad_fix *fix = rp->fix;
    if (atomic_load(&rad->cancel)) return; /* the step is dropped (refine_step) */
    int32_t a = rp->first + index * REFINE_CHUNK;
    int32_t b = a + REFINE_CHUNK < rp->first + rp->count ? a + REFINE_CHUNK : rp->first + rp->count;
    int32_t *near = NULL, near_count = -1, face = -1;
    int64_t rays = 0;
    for (int32_t i = a; i < b; i++) {
        int32_t j = fix->coarse[i];
        if (rad->luxel_face[j] != face) {
            face = rad->luxel_face[j];
            free(near);
            near = NULL;
            near_count = -1;
            find_near(rad, &rad->faces[face], &near, &near_count);
        }
        rays += direct_of(rad, rp->rows, rp->extent, j, near, near_count, false, fix->fine[i]);
    }
    free(near);
    rp->rays[worker] += rays;
}

/* Lights coarse luxels with every sample for about a step's time, then commits them at
 * once: each luxel's direct and incident light change by the difference D, its unshot
 * light by reflectance x D (which may be negative: the bounces go on from the light the
 * luxel has now), and the books by what it now emits and absorbs. Nothing was shot from
 * the coarse light yet (corrections come before any panel), but should it have been, the
 * difference shot later makes it up, as for any change of the direct light. Returns the
 * luxels refined; 0 when cancelled (the step's work is dropped) or out of memory. */
static int32_t refine_step(al_rad *rad, rad_fix *fix)
{
    uint64_t start = al_clock_ns();
    refine_pass *rp = calloc(1, sizeof *rp);
    const uint64_t **rows = malloc(((size_t) rad->light_count + 1) * sizeof *rows);
    if (!rp || !rows) {
        free(rp), free(rows);
        return 0;
    }
    for (int32_t m = 0; m < rad->light_count; m++)
        rows[m] =
            rad->lights[m].kind == RAD_SUN ? NULL : al_rad_pvs_row(rad, rad->lights[m].cluster);
    int threads = al_rad_threads(rad);
    int32_t made = 0;
    bool cancelled = false;
    while (fix->refined + made < fix->coarse_count) {
        int32_t left = fix->coarse_count - fix->refined - made;
        int32_t count = threads * REFINE_CHUNK * 4 < left ? threads * REFINE_CHUNK * 4 : left;
        *rp = (refine_pass){.rad = rad,
                            .fix = fix,
                            .rows = rows,
                            .extent = al_rad_sun_reach(rad),
                            .first = fix->refined + made,
                            .count = count};
        al_parallel_for((count + REFINE_CHUNK - 1) / REFINE_CHUNK, threads, refine_job, rp);
        if ((cancelled = atomic_load(&rad->cancel))) break;
        for (int w = 0; w < AL_RAD_BATCH; w++) fix->rays[w] += rp->rays[w];
        made += count;
        if (al_clock_ms_since(start) >= FIX_STEP_MS) break;
    }
    free(rp), free(rows);
    if (cancelled) return 0;
    pthread_mutex_lock(&rad->lock);
    for (int32_t i = fix->refined; i < fix->refined + made; i++) {
        int32_t j = fix->coarse[i];
        const rad_face *f = &rad->faces[rad->luxel_face[j]];
        double kept[3], emitted = 0, absorbed = 0;
        for (int c = 0; c < 3; c++) {
            float d = fix->fine[i][c] - rad->direct[j][c];
            rad->direct[j][c] = fix->fine[i][c];
            rad->incident[j][c] += d;
            rad->unshot[j][c] += f->reflectance[c] * d;
            kept[c] = (double) (f->reflectance[c] * d) * rad->area[j];
            emitted += d;
            absorbed += (1.0 - f->reflectance[c]) * d;
        }
        rad->emitted += emitted / 3.0 * rad->area[j];
        rad->absorbed += absorbed / 3.0 * rad->area[j];
        al_rad_add_unshot(rad, rad->luxel_group[j], kept);
    }
    fix->refined += made;
    for (int w = 0; w < AL_RAD_BATCH; w++) {
        rad->rays += fix->rays[w];
        fix->rays[w] = 0;
    }
    pthread_mutex_unlock(&rad->lock);
    return made;
}

/* --- the corrections, in steps ------------------------------------------------------ */

typedef struct fix_pass {
    al_rad *rad;
    rad_fix *fix;
    int32_t first, count; /* items */
} fix_pass;

/* Adds LOCAL (per luxel of group R) to worker W's row, marking the group. */
static void add_row(al_rad *rad, int32_t r, const float (*local)[3], int w)
{
    if (al_rad_add_local(rad, &rad->groups[r], local, rad->delta + (size_t) w * rad->luxel_count))
        __atomic_fetch_or(&rad->group_rows[r], (uint8_t) (1u << w), __ATOMIC_RELAXED);
}

/* Group R (kept) gets the kernel of shooter SH in our world minus OLD's in the base's. */
static int64_t fix_pair(al_rad *rad, const rad_fix *fix, int32_t r, const rad_shooter *sh,
                        const rad_shooter *old, int w)
{
    const rad_group *g = &rad->groups[r], *g0 = &fix->base->groups[fix->group_base[r]];
    float local[AL_RAD_GROUP * AL_RAD_GROUP][3], was[AL_RAD_GROUP * AL_RAD_GROUP][3];
    rad_gain received = {0};
    memset(local, 0, (size_t) g->luxel_count * sizeof local[0]);
    memset(was, 0, (size_t) g->luxel_count * sizeof was[0]);
    int64_t rays = al_rad_panel_onto(rad, g, sh, local, &received);
    rays += al_rad_panel_onto(fix->base, g0, old, was, &received);
    for (int32_t k = 0; k < g->luxel_count; k++)
        for (int c = 0; c < 3; c++) local[k][c] -= was[k][c];
    add_row(rad, r, (const float (*)[3]) local, w);
    return rays;
}

/* Whether the gate of shooter SH (OLD in the base's world) toward group R differs. */
static bool gate_differs(const al_rad *rad, const rad_fix *fix, int32_t r, const rad_shooter *sh,
                         const rad_shooter *old)
{
    return al_rad_group_sees(rad, &rad->groups[r], sh) !=
           al_rad_group_sees(fix->base, &fix->base->groups[fix->group_base[r]], old);
}

/* Panel P (shooter SH, OLD in the base's world) onto the groups whose gate toward it
 * differs (see plan_fix_gates): the union of its elements' rows, and in it each group
 * once, at the first of its elements there. */
static int64_t fix_gated_groups(al_rad *rad, rad_fix *fix, int32_t p, const rad_shooter *sh,
                                const rad_shooter *old, int w)
{
    if (fix->gated == 0) return 0;
    uint64_t *u = fix->unions + (size_t) w * (size_t) fix->elem_words;
    memset(u, 0, (size_t) fix->elem_words * sizeof *u);
    bool any = false;
    const rad_panel *pn = &rad->panels[p];
    for (int32_t q = pn->first_group; q < pn->first_group + pn->group_count; q++) {
        int32_t g = rad->panel_groups[q];
        for (int32_t k = fix->group_elem_first[g]; k < fix->group_elem_first[g + 1]; k++) {
            const uint64_t *row = fix->elem_rows[fix->group_elems[k]];
            if (!row) continue;
            for (int i = 0; i < fix->elem_words; i++) u[i] |= row[i];
            any = true;
        }
    }
    if (!any) return 0;
    int64_t rays = 0;
    for (int i = 0; i < fix->elem_words; i++)
        for (uint64_t bits = u[i]; bits; bits &= bits - 1) {
            int32_t y = i * 64 + __builtin_ctzll(bits);
            for (int32_t k = fix->elem_group_first[y]; k < fix->elem_group_first[y + 1]; k++) {
                int32_t r = fix->elem_groups[k];
                int32_t e = fix->group_elem_first[r];
                while (!al_bit_test(u, fix->group_elems[e])) e++;
                if (fix->group_elems[e] != y || !gate_differs(rad, fix, r, sh, old)) continue;
                rays += fix_pair(rad, fix, r, sh, old, w);
            }
        }
    return rays;
}

/* A panel that stayed: what it sent, onto the groups whose rays to it may cross a changed
 * brush or whose PVS gate toward it differs (the kernel in both worlds, the difference),
 * and onto the new groups (gathered). */
static int64_t fix_kept_panel(al_rad *rad, rad_fix *fix, int32_t p, int w)
{
    const al_rad *base = fix->base;
    uint64_t *mask = fix->masks + (size_t) w * (fix->words + fix->base_words);
    rad_shooter sh, old;
    if (!al_rad_shooter_of(rad, p, (const float (*)[3]) rad->sent, mask, &sh)) return 0;
    al_rad_shooter_of(base, fix->panel_base[p], (const float (*)[3]) fix->base_sent,
                      mask + fix->words, &old);
    int64_t rays = fix_gated_groups(rad, fix, p, &sh, &old, w);
    float local[AL_RAD_GROUP * AL_RAD_GROUP][3];
    rad_gain received = {0};
    for (int32_t i = 0; i < fix->new_group_count; i++) {
        int32_t r = fix->new_groups[i];
        memset(local, 0, (size_t) rad->groups[r].luxel_count * sizeof local[0]);
        rays += al_rad_panel_onto(rad, &rad->groups[r], &sh, local, &received);
        add_row(rad, r, (const float (*)[3]) local, w);
    }
    if (fix->node_count == 0) return rays;
    const rad_panel *pn = &rad->panels[p];
    double plo[3], phi[3];
    sphere_box(pn->centre, pn->radius, plo, phi);
    int32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *n = &fix->nodes[stack[--top]];
        if (!hull_meets_any(fix, plo, phi, n->lo, n->hi)) continue;
        if (n->count == 0) {
            /* Median splits keep the depth below 32, and the stack below that plus one. */
            stack[top++] = n->first;
            stack[top++] = n->first + 1;
            continue;
        }
        for (int32_t i = n->first; i < n->first + n->count; i++) {
            int32_t r = fix->order[i];
            const rad_group *g = &rad->groups[r];
            double glo[3], ghi[3];
            sphere_box(g->centre, g->radius, glo, ghi);
            if (!hull_meets_any(fix, plo, phi, glo, ghi)) continue;
            /* A group whose gate differs was corrected with those (fix_gated_groups). */
            if (fix->gated > 0 && gate_differs(rad, fix, r, &sh, &old)) continue;
            rays += fix_pair(rad, fix, r, &sh, &old, w);
        }
    }
    return rays;
}

/* A base panel that is gone: all it gave to groups that stayed is taken back. */
static int64_t fix_gone_panel(al_rad *rad, rad_fix *fix, int32_t p0, int w)
{
    const al_rad *base = fix->base;
    uint64_t *mask = fix->masks + (size_t) w * (fix->words + fix->base_words) + fix->words;
    rad_shooter old;
    if (!al_rad_shooter_of(base, p0, (const float (*)[3]) fix->base_sent, mask, &old)) return 0;
    int64_t rays = 0;
    float was[AL_RAD_GROUP * AL_RAD_GROUP][3];
    rad_gain received = {0};
    for (int32_t r0 = 0; r0 < base->group_count; r0++) {
        int32_t r = fix->base_group[r0];
        if (r < 0) continue;
        const rad_group *g0 = &base->groups[r0];
        memset(was, 0, (size_t) g0->luxel_count * sizeof was[0]);
        rays += al_rad_panel_onto(base, g0, &old, was, &received);
        for (int32_t k = 0; k < g0->luxel_count; k++)
            for (int c = 0; c < 3; c++) was[k][c] = -was[k][c];
        add_row(rad, r, (const float (*)[3]) was, w);
    }
    return rays;
}

static void fix_job(void *context, int index, int worker)
{
    fix_pass *fp = context;
    rad_fix *fix = fp->fix;
    int32_t a = fp->first + index * FIX_CHUNK;
    int32_t b = a + FIX_CHUNK < fp->first + fp->count ? a + FIX_CHUNK : fp->first + fp->count;
    for (int32_t i = a; i < b; i++) {
        /* A cancel drops the step (al_rad_fix_step): the items left are not worth doing. */
        if (atomic_load(&fp->rad->cancel)) return;
        int32_t item = fix->items[i];
        fix->rays[worker] += item >= 0 ? fix_kept_panel(fp->rad, fix, item, worker)
                                       : fix_gone_panel(fp->rad, fix, -1 - item, worker);
    }
}

bool al_rad_fix_has_tree(const al_rad *rad)
{
    return rad->fix && rad->fix->nodes;
}

int64_t al_rad_fix_step(al_rad *rad)
{
    rad_fix *fix = rad->fix;
    if (!fix) return 0;
    /* The coarse luxels first: the direct light is what shows most. */
    if (fix->refined < fix->coarse_count) {
        int32_t refined = refine_step(rad, fix);
        if (refined > 0 && fix->refined == fix->coarse_count && fix->done == fix->item_count) {
            pthread_mutex_lock(&rad->lock);
            al_rad_fix_free(fix);
            rad->fix = NULL;
            pthread_mutex_unlock(&rad->lock);
        }
        return refined;
    }
    uint64_t start = al_clock_ns();
    int threads = fix->threads;
    int32_t made = 0;
    /* The receivers' tree is built by the first step, not by the update: the first
     * corrected frame does not wait for it. A cancel stops its build as it stops a step
     * (a later step builds it); without memory for it the corrections are given up (the
     * light stays as the update left it). */
    al_status built = fix->nodes ? AL_OK : build_bvh(rad, fix);
    if (built == AL_ERR_CANCELLED) return 0;
    if (built != AL_OK) {
        pthread_mutex_lock(&rad->lock);
        al_rad_fix_free(fix);
        rad->fix = NULL;
        pthread_mutex_unlock(&rad->lock);
        return 0;
    }
    /* Rounds of a few panels per worker until the step's time is spent; then the rows
     * are committed at once, so a snapshot sees whole rounds. A cancel, which the workers
     * check before each panel, drops the whole step: its rows are cleared and its items
     * stay to do, so an edit waits for one panel, not for a step. */
    bool cancelled = false;
    while (fix->done + made < fix->item_count) {
        if ((cancelled = atomic_load(&rad->cancel))) break;
        int32_t left = fix->item_count - fix->done - made;
        int32_t count = threads * FIX_CHUNK * 4 < left ? threads * FIX_CHUNK * 4 : left;
        fix_pass fp = {rad, fix, fix->done + made, count};
        al_parallel_for((count + FIX_CHUNK - 1) / FIX_CHUNK, threads, fix_job, &fp);
        if ((cancelled = atomic_load(&rad->cancel))) break;
        made += count;
        if (al_clock_ms_since(start) >= FIX_STEP_MS) break;
    }
    int64_t rays = 0;
    for (int w = 0; w < AL_RAD_BATCH; w++) {
        rays += fix->rays[w];
        fix->rays[w] = 0;
    }
    if (cancelled) {
        pthread_mutex_lock(&rad->lock);
        al_rad_drop_rows(rad, threads);
        pthread_mutex_unlock(&rad->lock);
        return 0;
    }
    if (made == 0) return 0;
    pthread_mutex_lock(&rad->lock);
    double received = al_rad_commit_rows(rad, threads);
    /* Light moved between the receivers and what escaped. */
    rad->escaped -= received;
    rad->rays += rays;
    fix->done += made;
    if (fix->done == fix->item_count) {
        al_rad_fix_free(fix);
        rad->fix = NULL;
    }
    pthread_mutex_unlock(&rad->lock);
    return made;
}

/* --- the update ----------------------------------------------------------------------- */

/* The base of the direct light's correction, when it is not the base of the rest
 * (al_rad_update): the solver before, whose direct light is its world's already, so that
 * only the last edit's changes are lit anew rather than every edit since the base. */
typedef struct direct_base {
    const al_rad *rad;      /* the solver before */
    rad_fix *fix;           /* its changed boxes and its luxels' elements (find_elements) */
    const int32_t *face_of; /* per face of ours: the solver before's, -1 */
} direct_base;

/* Takes the base's light into RAD: luxels of faces that stayed keep theirs, groups keep
 * what they sent, lights stay shot; the direct light is then corrected (light_pass) and
 * the books summed anew. With DB, the direct light is DB's corrected (its lights shot are
 * shot here too), the rest the base's. The base's lock (and DB's) is held while its state
 * is read. */
static al_status carry_light(al_rad *rad, const al_rad *base_c, rad_fix *fix,
                             const int32_t *face_base, const direct_base *db, const int *cancel)
{
    al_rad *base = (al_rad *) base_c; /* only its lock is taken */
    al_rad *dbase = db ? (al_rad *) db->rad : base;
    const rad_fix *dfix = db ? db->fix : fix;
    const int32_t *face_dbase = db ? db->face_of : face_base;
    int32_t *light_of = malloc(((size_t) base->light_count + 1) * sizeof *light_of);
    int32_t *dlight_of =
        db ? malloc(((size_t) dbase->light_count + 1) * sizeof *dlight_of) : light_of;
    int32_t *relevant = malloc(((size_t) dbase->light_count + 1) * sizeof *relevant);
    uint8_t *base_shot = malloc((size_t) base->light_count + 1);
    uint8_t *dshot = db ? malloc((size_t) dbase->light_count + 1) : base_shot;
    float(*was_direct)[3] = calloc((size_t) rad->luxel_count + 1, sizeof *was_direct);
    const uint64_t **rows = malloc(((size_t) rad->light_count + 1) * sizeof *rows);
    const uint64_t **base_rows = malloc(((size_t) dbase->light_count + 1) * sizeof *base_rows);
    uint64_t **gates = calloc((size_t) dbase->light_count + 1, sizeof *gates);
    light_pass *lp = calloc(1, sizeof *lp);
    uint8_t *coarse = NULL; /* per luxel: lit at its sample point alone (rad.extra > 1) */
    al_status st = AL_ERR_NOMEM;
    fix->base_sent = malloc(((size_t) base->group_count + 1) * sizeof *fix->base_sent);
    if (!light_of || !dlight_of || !relevant || !base_shot || !dshot || !was_direct || !rows ||
        !base_rows || !gates || !lp || !fix->base_sent || !match_lights(rad, base, light_of) ||
        (db && !match_lights(rad, dbase, dlight_of)))
        goto done;
    pthread_mutex_lock(&base->lock);
    memcpy(base_shot, base->light_shot, (size_t) base->light_count);
    memcpy(fix->base_sent, base->sent, (size_t) base->group_count * sizeof *fix->base_sent);
    rad->shots = base->shots;
    rad->rays = base->rays;
    rad->ms = base->ms;
    for (int32_t f = 0; f < rad->face_count; f++) {
        int32_t fb = face_base[f];
        if (fb < 0) continue;
        const rad_face *mine = &rad->faces[f], *theirs = &base->faces[fb];
        for (int32_t s = 0; s < mine->w * mine->h; s++) {
            int32_t j = rad->slots[mine->first_slot + s];
            if (j < 0) continue;
            int32_t j0 = base->slots[theirs->first_slot + s];
            memcpy(rad->incident[j], base->incident[j0], sizeof rad->incident[j]);
            memcpy(rad->unshot[j], base->unshot[j0], sizeof rad->unshot[j]);
            memcpy(was_direct[j], base->direct[j0], sizeof was_direct[j]);
        }
    }
    pthread_mutex_unlock(&base->lock);
    /* The direct light to correct: the base's, or DB's. */
    if (db) pthread_mutex_lock(&dbase->lock);
    if (db) memcpy(dshot, dbase->light_shot, (size_t) dbase->light_count);
    for (int32_t f = 0; f < rad->face_count; f++) {
        int32_t fb = face_dbase[f];
        if (fb < 0) continue;
        const rad_face *mine = &rad->faces[f], *theirs = &dbase->faces[fb];
        for (int32_t s = 0; s < mine->w * mine->h; s++) {
            int32_t j = rad->slots[mine->first_slot + s];
            if (j < 0) continue;
            memcpy(rad->direct[j], dbase->direct[dbase->slots[theirs->first_slot + s]],
                   sizeof rad->direct[j]);
        }
    }
    if (db) pthread_mutex_unlock(&dbase->lock);
    for (int32_t g = 0; g < rad->group_count; g++) {
        int32_t g0 = fix->group_base[g];
        for (int c = 0; c < 3; c++) rad->sent[g][c] = g0 >= 0 ? fix->base_sent[g0][c] : 0;
    }
    /* Lights: the base's shot stay shot, and with DB those it shot since; new ones are left
     * to shoot. */
    rad->lights_shot = 0;
    for (int32_t l = 0; l < base->light_count; l++) {
        int32_t m = light_of[l];
        if (m >= 0 && base_shot[l] && !rad->light_shot[m]) {
            rad->light_shot[m] = 1;
            rad->lights_shot++;
        }
    }
    for (int32_t l = 0; db && l < dbase->light_count; l++) {
        int32_t m = dlight_of[l];
        if (m >= 0 && dshot[l] && !rad->light_shot[m]) {
            rad->light_shot[m] = 1;
            rad->lights_shot++;
        }
    }
    /* The lights whose direct light the edit may change (since the direct light's base):
     * those gone, those whose reach meets a changed brush (a ray through it ends within
     * the light's range of the luxel), and those whose PVS gate toward some luxel differs
     * (plan_fix_gates). */
    int32_t relevant_count = 0;
    for (int32_t l = 0; l < dbase->light_count; l++) {
        int32_t m = dlight_of[l];
        bool reaches = false;
        for (int b = 0; b < dfix->box_count && !reaches; b++)
            reaches = !out_of_reach(&dbase->lights[l], dfix->boxes[b].lo, dfix->boxes[b].hi);
        /* The luxels its gate differs for (a sun has none: no PVS row). */
        if (m >= 0 && dshot[l] && dbase->lights[l].kind != RAD_SUN) {
            gates[l] = malloc(((size_t) dfix->elem_words + 1) * sizeof *gates[l]);
            if (!gates[l]) goto done;
            if (!gate_row(rad, dbase, dfix, dbase->lights[l].cluster, rad->lights[m].cluster,
                          gates[l])) {
                free(gates[l]);
                gates[l] = NULL;
            }
        }
        if (dshot[l] && (m < 0 || reaches || gates[l])) relevant[relevant_count++] = l;
        base_rows[l] = dbase->lights[l].kind == RAD_SUN
                           ? NULL
                           : al_rad_pvs_row(dbase, dbase->lights[l].cluster);
    }
    for (int32_t m = 0; m < rad->light_count; m++)
        rows[m] = rad->lights[m].kind == RAD_SUN ? NULL : al_rad_pvs_row(rad, rad->lights[m].cluster);

    /* Sampling more than once, the luxels whose light changes are lit at their sample
     * point first (the first corrected frame sooner), and with every sample in steps. */
    if (rad->extra > 1 && !(coarse = calloc((size_t) rad->luxel_count + 1, 1))) goto done;
    *lp = (light_pass){.rad = rad,
                       .base = dbase,
                       .face_base = face_dbase,
                       .light_of = dlight_of,
                       .relevant = relevant,
                       .relevant_count = relevant_count,
                       .rows = rows,
                       .base_rows = base_rows,
                       .gates = gates,
                       .fix = dfix,
                       .extent = al_rad_sun_reach(rad),
                       .base_extent = al_rad_sun_reach(dbase),
                       .cancel = cancel,
                       .coarse = coarse};
    index_relevant(lp);
    al_parallel_for(rad->face_count, al_rad_threads(rad), direct_job, lp);
    free(lp->by_x), free(lp->unbounded);
    lp->by_x = NULL;
    lp->unbounded = NULL;
    for (int w = 0; w < 64; w++) rad->rays += lp->rays[w];
    if (cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE)) {
        st = AL_ERR_CANCELLED;
        goto done;
    }
    if (coarse) {
        for (int32_t j = 0; j < rad->luxel_count; j++) fix->coarse_count += coarse[j];
        fix->coarse = malloc(((size_t) fix->coarse_count + 1) * sizeof *fix->coarse);
        fix->fine = malloc(((size_t) fix->coarse_count + 1) * sizeof *fix->fine);
        if (!fix->coarse || !fix->fine) goto done;
        int32_t n = 0;
        for (int32_t j = 0; j < rad->luxel_count; j++)
            if (coarse[j]) fix->coarse[n++] = j;
    }

    /* Incident light follows the direct light's change; new luxels have only their direct
     * light until they gather (the corrections). Each keeps its reflectance of it. */
    double emitted = 0, absorbed = 0;
    for (int32_t j = 0; j < rad->luxel_count; j++) {
        const rad_face *f = &rad->faces[rad->luxel_face[j]];
        bool stayed = face_base[rad->luxel_face[j]] >= 0;
        double e = 0, a = 0;
        for (int c = 0; c < 3; c++) {
            float d = stayed ? rad->direct[j][c] - was_direct[j][c] : rad->direct[j][c];
            if (stayed) {
                rad->incident[j][c] += d;
                rad->unshot[j][c] += f->reflectance[c] * d;
            } else {
                rad->incident[j][c] = d;
                rad->unshot[j][c] = f->emission[c] + f->reflectance[c] * d;
            }
            e += rad->direct[j][c] + f->emission[c];
            a += (1.0 - f->reflectance[c]) * rad->incident[j][c];
        }
        emitted += e / 3.0 * rad->area[j];
        absorbed += a / 3.0 * rad->area[j];
    }
    al_rad_recompute_powers(rad);
    double balance = 0;
    for (int32_t g = 0; g < rad->group_count; g++)
        balance += (rad->group_unshot[g][0] + rad->group_unshot[g][1] + rad->group_unshot[g][2]) / 3.0;
    rad->emitted = emitted;
    rad->absorbed = absorbed;
    rad->escaped = emitted - absorbed - balance;
    st = AL_OK;
done:
    for (int32_t l = 0; gates && l < dbase->light_count; l++) free(gates[l]);
    free(gates);
    free(lp);
    free(coarse);
    if (db) free(dlight_of), free(dshot);
    free(light_of), free(relevant), free(base_shot), free(was_direct), free(rows), free(base_rows);
    return st;
}

/* The maps between our groups and panels and the base's, and the new groups. */
static al_status plan_fix_maps(al_rad *rad, const al_rad *base, rad_fix *fix,
                               const int32_t *face_base)
{
    int32_t *gfirst = NULL, *pfirst = NULL, *bgfirst = NULL, *bpfirst = NULL;
    fix->group_base = malloc(((size_t) rad->group_count + 1) * sizeof *fix->group_base);
    fix->base_group = malloc(((size_t) base->group_count + 1) * sizeof *fix->base_group);
    fix->panel_base = malloc(((size_t) rad->panel_count + 1) * sizeof *fix->panel_base);
    fix->new_groups = malloc(((size_t) rad->group_count + 1) * sizeof *fix->new_groups);
    if (!fix->group_base || !fix->base_group || !fix->panel_base || !fix->new_groups ||
        !face_ranges(rad, &gfirst, &pfirst) || !face_ranges(base, &bgfirst, &bpfirst)) {
        free(gfirst), free(pfirst), free(bgfirst), free(bpfirst);
        return AL_ERR_NOMEM;
    }
    for (int32_t g = 0; g < base->group_count; g++) fix->base_group[g] = -1;
    for (int32_t f = 0; f < rad->face_count; f++) {
        int32_t fb = face_base[f];
        for (int32_t g = gfirst[f]; g < gfirst[f + 1]; g++) {
            int32_t g0 = fb >= 0 ? bgfirst[fb] + (g - gfirst[f]) : -1;
            fix->group_base[g] = g0;
            if (g0 >= 0) fix->base_group[g0] = g;
            else fix->new_groups[fix->new_group_count++] = g;
        }
        for (int32_t p = pfirst[f]; p < pfirst[f + 1]; p++)
            fix->panel_base[p] = fb >= 0 ? bpfirst[fb] + (p - pfirst[f]) : -1;
    }
    free(gfirst), free(pfirst), free(bgfirst), free(bpfirst);
    return AL_OK;
}

/* The work: every panel that has sent light (ours, or the base's that is gone); scratch
 * and the receivers' tree. */
static al_status plan_fix_work(al_rad *rad, const al_rad *base, rad_fix *fix)
{
    uint8_t *base_panel_kept = calloc((size_t) base->panel_count + 1, 1);
    fix->items = malloc(((size_t) rad->panel_count + (size_t) base->panel_count + 1) *
                        sizeof *fix->items);
    if (!fix->items || !base_panel_kept) {
        free(base_panel_kept);
        return AL_ERR_NOMEM;
    }
    for (int32_t p = 0; p < rad->panel_count; p++)
        if (fix->panel_base[p] >= 0) base_panel_kept[fix->panel_base[p]] = 1;
    for (int32_t p0 = 0; p0 < base->panel_count; p0++) {
        if (base_panel_kept[p0]) continue;
        const rad_panel *pn = &base->panels[p0];
        bool sent = false;
        for (int32_t q = pn->first_group; q < pn->first_group + pn->group_count && !sent; q++) {
            const float *s = fix->base_sent[base->panel_groups[q]];
            sent = s[0] != 0 || s[1] != 0 || s[2] != 0;
        }
        if (sent) fix->items[fix->item_count++] = -1 - p0;
    }
    free(base_panel_kept);
    for (int32_t p = 0; p < rad->panel_count; p++) {
        if (fix->panel_base[p] < 0) continue;
        const rad_panel *pn = &rad->panels[p];
        bool sent = false;
        for (int32_t q = pn->first_group; q < pn->first_group + pn->group_count && !sent; q++) {
            const float *s = rad->sent[rad->panel_groups[q]];
            sent = s[0] != 0 || s[1] != 0 || s[2] != 0;
        }
        /* With no change near it, no gate that differs and nothing new to light, a panel
         * has nothing to do. */
        if (sent && (fix->box_count > 0 || fix->new_group_count > 0 || fix->gated > 0))
            fix->items[fix->item_count++] = p;
    }
    const al_vis *vis = rad->world->vis, *bvis = base->world->vis;
    fix->words = vis && vis->pvs ? vis->row_words : 0;
    fix->base_words = bvis && bvis->pvs ? bvis->row_words : 0;
    fix->threads = al_rad_threads(rad);
    if (fix->threads > AL_RAD_BATCH) fix->threads = AL_RAD_BATCH;
    fix->masks = calloc((size_t) fix->threads * (size_t) (fix->words + fix->base_words) + 1,
                        sizeof *fix->masks);
    return fix->masks ? AL_OK : AL_ERR_NOMEM;
}

al_status al_rad_update(al_rad *prev, const al_world *world, const al_input *input,
                        const al_rad_options *opts, al_rad **out, al_diag_list *diags)
{
    if (!prev) return al_rad_create(world, input, opts, out, diags);
    al_status st = al_rad_begin(world, input, opts, out, diags);
    if (st != AL_OK) return st;
    al_rad *rad = *out;
    /* The light to start from: PREV's, or if PREV is itself still correcting, the light
     * PREV started from (its corrections are then done again, with ours). */
    pthread_mutex_lock(&prev->lock);
    const al_rad *base = prev->fix ? prev->fix->base : prev;
    bool prev_direct_done = !prev->fix || prev->fix->refined == prev->fix->coarse_count;
    pthread_mutex_unlock(&prev->lock);
    /* Another sampling of the direct light (the map's "allium_extra_samples" changed)
     * changes every luxel's light: the map is lit anew. */
    if (rad->extra != base->extra) {
        al_rad_destroy(rad);
        return al_rad_create(world, input, opts, out, NULL);
    }
    rad_fix *fix = calloc(1, sizeof *fix);
    int32_t *face_base = NULL;
    st = fix ? AL_OK : AL_ERR_NOMEM;
    if (st == AL_OK) fix->base = base;
    /* What changed first: the patches away from it are the base's. */
    if (st == AL_OK && !changed_boxes(rad, base, fix)) st = AL_ERR_NOMEM;
    /* And what changed since PREV, when PREV is not the base: the layout and the dirt are
     * taken from PREV (they are its world's, whatever its light), so only what changed
     * since it is laid out and occluded again, not everything since the base. */
    rad_fix *pfix = NULL;
    if (st == AL_OK && base != prev) {
        pfix = calloc(1, sizeof *pfix);
        if (!pfix || !changed_boxes(rad, prev, pfix))
            st = AL_ERR_NOMEM;
        else
            pfix->base = prev;
    }
    if (st == AL_OK) {
        const rad_fix *near = pfix ? pfix : fix;
        rad_reuse reuse = {.base = near->base, .boxes = near->boxes, .box_count = near->box_count};
        rad->reuse = &reuse;
        st = al_rad_finish(rad, diags);
        rad->reuse = NULL;
        free(reuse.face);
        free(reuse.place);
        free(reuse.cluster);
    }
    if (st == AL_OK) {
        face_base = malloc(((size_t) rad->face_count + 1) * sizeof *face_base);
        if (!face_base) st = AL_ERR_NOMEM;
    }
    if (st == AL_OK && !match_faces(rad, base, face_base)) st = AL_ERR_NOMEM;
    /* The group maps come first: carrying the light needs them. */
    if (st == AL_OK) st = plan_fix_maps(rad, base, fix, face_base);
    if (st == AL_OK) st = plan_fix_gates(rad, base, fix, face_base);
    /* PREV still correcting its reflected light (the next edit came first): its direct
     * light is its world's all the same, unless luxels of it wait to be lit with every
     * sample; the direct light is then corrected from PREV's, for what changed since PREV
     * alone, rather than for every edit since the base. */
    direct_base db = {NULL, NULL, NULL};
    int32_t *face_prev = NULL;
    if (st == AL_OK && pfix && prev_direct_done && prev->extra == rad->extra) {
        db.rad = prev;
        db.fix = pfix;
        pfix = NULL;
        face_prev = malloc(((size_t) rad->face_count + 1) * sizeof *face_prev);
        db.face_of = face_prev;
        db.fix->luxel_elem = malloc(((size_t) rad->luxel_count + 1) * sizeof *db.fix->luxel_elem);
        if (!face_prev || !db.fix->luxel_elem || !match_faces(rad, prev, face_prev) ||
            !find_elements(rad, prev, db.fix, face_prev))
            st = AL_ERR_NOMEM;
        db.fix->elem_words = (db.fix->elem_count + 63) / 64;
    }
    al_rad_fix_free(pfix);
    if (st == AL_OK)
        st =
            carry_light(rad, base, fix, face_base, db.rad ? &db : NULL, opts ? opts->cancel : NULL);
    al_rad_fix_free(db.fix);
    free(face_prev);
    if (st == AL_OK) st = plan_fix_work(rad, base, fix);
    free(face_base);
    if (st != AL_OK) {
        al_rad_fix_free(fix);
        al_rad_destroy(rad);
        *out = NULL;
        return st;
    }
    if (fix->item_count == 0 && fix->coarse_count == 0)
        al_rad_fix_free(fix);
    else rad->fix = fix;
    return AL_OK;
}
