/* Dirtmapping: ericw-tools' ambient occlusion on the direct light (from q3map2). Rays from
 * a point off a face look _dirtdepth units into the cone of _dirtangle around its normal;
 * the nearer what they meet, the more occluded the point: occlusion = 1 - (mean of the
 * rays' free length, each at most the depth) / depth. A light that takes dirt gives the
 * point 1 - min(occlusion ^ gain x scale, 1) of its light. A radiosity solver has no need
 * of it for the light it reflects, whose occlusion it computes; the direct light of
 * Quake's lights is where ericw-tools applies it, and so is it here.
 *
 * The rays: 48 in fixed directions (16 around the normal at each of 3 angles from it
 * spread over the cone), or with _dirtmode 1 as many at random in the cone, the same for
 * the same point every time. Sky stops none of them (ericw-tools counts only solid hits),
 * nor do brush entities, which cast no shadows either.
 *
 * Entry points: al_rad_compute_occlusion (once per solver: a solver made after an edit
 * takes the occlusion of the luxels the edit is too far to change from the one before),
 * al_rad_occlusion_at (any point), al_rad_dirt_factor. Workload: 48 short rays per luxel,
 * only for maps that use dirt (lq-e3m4 does); after an edit, only for the luxels some of
 * whose rays pass through what it changed.
 */
#include "rad-internal.h"

#include "al-parallel.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AROUND 16 /* directions around the normal */
#define ACROSS 3  /* angles from the normal */
#define CHUNK  16 /* faces per parallel job */

static double next_unit(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double) (z >> 11) / 9007199254740992.0;
}

uint64_t al_rad_point_seed(const double p[3])
{
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < 3; k++) {
        int64_t q = (int64_t) llround(p[k] * 64.0);
        h = (h ^ (uint64_t) q) * 1099511628211ull;
    }
    return h;
}

bool al_rad_face_no_dirt(const al_rad *rad, int32_t face)
{
    int32_t e = rad->input->brushes[rad->faces[face].brush].entity;
    return rad->entity_no_dirt && e >= 0 && e < rad->input->entity_count && rad->entity_no_dirt[e];
}

#define RAYS (AROUND * ACROSS)

/* The directions of the dirt rays from a point off a face of unit normal N (SEED picks
 * them with "_dirtmode" 1), into DIRS. */
static void dirt_directions(const rad_dirt *d, const double n[3], uint64_t seed,
                            double dirs[RAYS][3])
{
    /* A frame about the normal: T1 across the axis the normal is least along. */
    int least = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(n[k]) < fabs(n[least])) least = k;
    double axis[3] = {0, 0, 0}, t1[3], t2[3];
    axis[least] = 1;
    al_cross(n, axis, t1);
    al_normalize(t1, t1);
    al_cross(n, t1, t2);
    double cone = d->angle * M_PI / 180.0;
    /* The fixed directions take 16 angles around and 3 across: their sines and cosines
     * once, not once a ray. */
    double around_cos[AROUND], around_sin[AROUND], across_cos[ACROSS], across_sin[ACROSS];
    if (!d->random) {
        for (int a = 0; a < AROUND; a++) {
            double around = a * 2 * M_PI / AROUND;
            around_cos[a] = cos(around), around_sin[a] = sin(around);
        }
        for (int c = 0; c < ACROSS; c++) {
            double across = (c + 0.5) * cone / ACROSS;
            across_cos[c] = cos(across), across_sin[c] = sin(across);
        }
    }
    uint64_t state = seed;
    for (int i = 0; i < RAYS; i++) {
        double ca, sa, cx, sx;
        if (d->random) {
            double around = next_unit(&state) * 2 * M_PI;
            double across = next_unit(&state) * cone;
            ca = cos(around), sa = sin(around), cx = cos(across), sx = sin(across);
        } else {
            ca = around_cos[i / ACROSS], sa = around_sin[i / ACROSS];
            cx = across_cos[i % ACROSS], sx = across_sin[i % ACROSS];
        }
        for (int k = 0; k < 3; k++) dirs[i][k] = sx * (ca * t1[k] + sa * t2[k]) + cx * n[k];
    }
}

/* The occlusion of the dirt rays from FROM along DIRS (al_rad_occlusion_at). */
static float occlusion_along(const al_rad *rad, const double from[3], const double dirs[RAYS][3])
{
    const rad_dirt *d = &rad->dirt;
    double free_sum = 0;
    for (int i = 0; i < RAYS; i++) {
        double end[3];
        al_madd(from, dirs[i], d->depth, end);
        double t = al_ray_hit(&rad->ray_tree, from, end);
        /* What it met first may be sky, which is no occluder. */
        if (t < 1 && rad->sky_count > 0 && al_rad_ends_on_sky(rad, from, end, t)) t = 1;
        free_sum += fmin(t, 1.0) * d->depth;
    }
    return (float) (1.0 - free_sum / RAYS / d->depth);
}

float al_rad_occlusion_at(const al_rad *rad, const double from[3], const double n[3], uint64_t seed)
{
    double dirs[RAYS][3];
    dirt_directions(&rad->dirt, n, seed, dirs);
    return occlusion_along(rad, from, dirs);
}

double al_rad_dirt_factor(const al_rad *rad, const rad_light *l, double occlusion)
{
    if (occlusion <= 0) return 1;
    double gain = l && l->dirt_gain > 0 ? l->dirt_gain : rad->dirt.gain;
    double scale = l && l->dirt_scale > 0 ? l->dirt_scale : rad->dirt.scale;
    double dirt = fmin(pow(occlusion, gain), 1.0) * scale;
    return 1.0 - fmin(dirt, 1.0);
}

/* Whether the box [LO, HI], grown by DEPTH, meets a box an edit changed. */
static bool near_change(const rad_reuse *reuse, const double lo_in[3], const double hi_in[3],
                        double depth)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = lo_in[k] - depth, hi[k] = hi_in[k] + depth;
    for (int b = 0; b < reuse->box_count; b++)
        if (al_bounds_overlap(lo, hi, reuse->boxes[b].lo, reuse->boxes[b].hi, 0)) return true;
    return false;
}

/* Whether the box of face F's sample points is near a change (near_change). */
static bool face_near_change(const al_rad *rad, const rad_face *f, const rad_reuse *reuse,
                             double depth)
{
    double lo[3], hi[3];
    al_bounds_clear(lo, hi);
    for (int32_t s = f->first_slot; s < f->first_slot + f->w * f->h; s++)
        if (rad->slots[s] >= 0) al_bounds_add(rad->point[rad->slots[s]], lo, hi);
    return near_change(reuse, lo, hi, depth);
}

/* Whether a dirt ray from FROM along DIRS, DEPTH long, touches a box the edit changed. */
static bool rays_meet_change(const rad_reuse *reuse, const double from[3],
                             const double dirs[RAYS][3], double depth)
{
    for (int i = 0; i < RAYS; i++) {
        double end[3];
        al_madd(from, dirs[i], depth, end);
        for (int b = 0; b < reuse->box_count; b++)
            if (al_rad_segment_meets(from, end, &reuse->boxes[b])) return true;
    }
    return false;
}

static void occlusion_job(void *context, int index, int worker)
{
    (void) worker;
    al_rad *rad = context;
    const rad_reuse *reuse = rad->reuse;
    const al_rad *base = reuse ? reuse->base : NULL;
    bool same = base && base->occlusion && base->dirt.random == rad->dirt.random &&
                base->dirt.depth == rad->dirt.depth && base->dirt.angle == rad->dirt.angle;
    int32_t a = index * CHUNK, b = a + CHUNK < rad->face_count ? a + CHUNK : rad->face_count;
    for (int32_t fi = a; fi < b; fi++) {
        const rad_face *f = &rad->faces[fi];
        int32_t fb = same && reuse->face ? reuse->face[fi] : -1;
        /* A face the edit left takes its luxels' occlusion unless the edit is near them. */
        bool copy_all = fb >= 0 && !face_near_change(rad, f, reuse, rad->dirt.depth);
        bool none = al_rad_face_no_dirt(rad, fi);
        for (int32_t s = 0; s < f->w * f->h; s++) {
            int32_t j = rad->slots[f->first_slot + s];
            if (j < 0) continue;
            bool copy = copy_all || (fb >= 0 && !near_change(reuse, rad->point[j], rad->point[j],
                                                             rad->dirt.depth));
            if (none) {
                rad->occlusion[j] = 0;
            } else if (copy) {
                rad->occlusion[j] = base->occlusion[base->slots[base->faces[fb].first_slot + s]];
            } else {
                double n[3] = {rad->normal[j][0], rad->normal[j][1], rad->normal[j][2]};
                double dirs[RAYS][3];
                dirt_directions(&rad->dirt, n, al_rad_point_seed(rad->point[j]), dirs);
                /* Near the edit, but none of its rays passes through it: their hits are
                 * the base's (update.c says why), and so is the occlusion. */
                if (fb >= 0 && !rays_meet_change(reuse, rad->point[j], dirs, rad->dirt.depth))
                    rad->occlusion[j] =
                        base->occlusion[base->slots[base->faces[fb].first_slot + s]];
                else
                    rad->occlusion[j] = occlusion_along(rad, rad->point[j], dirs);
            }
        }
    }
}

al_status al_rad_compute_occlusion(al_rad *rad)
{
    free(rad->occlusion);
    rad->occlusion = NULL;
    if (!rad->dirt.used || rad->luxel_count == 0) return AL_OK;
    rad->occlusion = malloc((size_t) rad->luxel_count * sizeof *rad->occlusion);
    if (!rad->occlusion) return AL_ERR_NOMEM;
    /* By faces, so that a face the edit left takes its luxels' from the one before. */
    al_parallel_for((rad->face_count + CHUNK - 1) / CHUNK, al_rad_threads(rad), occlusion_job, rad);
    return AL_OK;
}
