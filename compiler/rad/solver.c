/* The progressive refinement solver (Cohen, Chen, Wallace and Greenberg 1988) with form
 * factors by ray casting (Wallace, Elmquist and Haines 1989): each pass shoots a batch of
 * sources to every luxel that may see them.
 *
 * A pass is parallel over receivers, so no two threads write one luxel: each receiver
 * gathers from every shooter of the batch (its PVS permitting), casting rays through the
 * world for visibility, into a private delta; the deltas are committed under the lock,
 * which is all a snapshot waits for. Light sources go first (the direct light: the "first
 * lit frame"), then panels by unshot power, AL_RAD_BATCH at a time.
 *
 * A panel (up to 4 x 4 groups of 4 x 4 luxels of one face) shoots the unshot light of all
 * its groups at once, which takes a third as many shots as shooting groups one by one.
 * A receiver group sees the panel as one disc behind one ray beyond two panel radii;
 * nearer, each of its four quads (2 x 2 groups) as a disc beyond three quad radii; nearer
 * still, each group of the quad. The form factor from a receiver point to a group is:
 *   - within 3 group radii: Lambert's exact formula per luxel, with visibility first
 *     tested between the groups (a ray between their centres and four crossing rays
 *     between points spread over each). All met or none decides for every luxel of the
 *     receiver; otherwise a shadow's edge crosses it and each luxel casts its own rays to
 *     the group's four points.
 *   - within 5: Lambert's formula per luxel, one ray between the groups' centres.
 *   - farther: the point-to-disc term A cos cos / (pi r^2 + A), one ray.
 * The thresholds are the loosest that keep the furnace test within its 0.5% (a quad as
 * a disc at 2.5 of its radii already misses it: 0.54%).
 */
#include "rad-internal.h"

#include "al-clock.h"
#include "al-entity-keys.h"
#include "core/hash.h"
#include "al-parallel.h"
#include "al-vec3.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK        256   /* receivers per parallel job */
#define GROUP_CHUNK  16    /* receiver groups per parallel job */
#define OVERSHOOT    1.02  /* most a shot's receivers may get, over what it shot */
#define NEAR_RADII   3.0   /* rays per luxel within 3 shooter radii, */
#define MID_RADII    5.0   /* Lambert per luxel within 5 */
#define PANEL_RADII  2.0   /* a panel is one disc beyond 2 of its radii, */
#define QUAD_RADII   3.0   /* a quad beyond 3 of its (about six of its groups') */

static double mean3(const float v[3])
{
    return ((double) v[0] + v[1] + v[2]) / 3.0;
}

static bool nonzero3(const float v[3])
{
    return v[0] != 0 || v[1] != 0 || v[2] != 0;
}

static const uint64_t *pvs_row(const al_rad *rad, int32_t cluster)
{
    const al_vis *vis = rad->world->vis;
    if (!vis || !vis->pvs || cluster < 0 || cluster >= vis->cluster_count) return NULL;
    return al_vis_row(vis, cluster);
}

const uint64_t *al_rad_pvs_row(const al_rad *rad, int32_t cluster)
{
    return pvs_row(rad, cluster);
}

int al_rad_threads(const al_rad *rad)
{
    return rad->options.threads > 0 ? rad->options.threads : al_cpu_count();
}

static int threads_of(const al_rad *rad)
{
    return al_rad_threads(rad);
}

/* --- state ------------------------------------------------------------------------ */

/* What picking and the residual go by: unshot light of either sign counts. */
static double power_of(const double unshot[3])
{
    return (fabs(unshot[0]) + fabs(unshot[1]) + fabs(unshot[2])) / 3.0;
}

static void recompute_group_power(al_rad *rad, int32_t g)
{
    const rad_group *gr = &rad->groups[g];
    double p[3] = {0, 0, 0};
    for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++) {
        int32_t l = rad->group_luxels[k];
        for (int c = 0; c < 3; c++) p[c] += rad->unshot[l][c] * (double) rad->area[l];
    }
    for (int c = 0; c < 3; c++) rad->group_unshot[g][c] = p[c];
    rad->group_power[g] = power_of(p);
}

void al_rad_add_unshot(al_rad *rad, int32_t g, const double add[3])
{
    for (int c = 0; c < 3; c++) rad->group_unshot[g][c] += add[c];
    double before = rad->group_power[g];
    rad->group_power[g] = power_of(rad->group_unshot[g]);
    rad->panel_power[rad->group_panel[g]] += rad->group_power[g] - before;
}

/* The group and panel powers from the luxels' unshot light. */
void al_rad_recompute_powers(al_rad *rad)
{
    for (int32_t p = 0; p < rad->panel_count; p++) rad->panel_power[p] = 0;
    for (int32_t g = 0; g < rad->group_count; g++) {
        recompute_group_power(rad, g);
        rad->panel_power[rad->group_panel[g]] += rad->group_power[g];
    }
}

static void reset_state(al_rad *rad)
{
    rad->emitted = rad->absorbed = rad->escaped = 0;
    rad->shots = rad->rays = 0;
    rad->ms = 0;
    rad->lights_shot = 0;
    for (int32_t i = 0; i < rad->light_count; i++) rad->light_shot[i] = 0;
    for (int32_t l = 0; l < rad->luxel_count; l++) {
        const rad_face *f = &rad->faces[rad->luxel_face[l]];
        for (int k = 0; k < 3; k++) {
            rad->incident[l][k] = 0;
            rad->direct[l][k] = 0;
            rad->unshot[l][k] = f->emission[k];
        }
        rad->emitted += mean3(f->emission) * rad->area[l];
    }
    for (int32_t g = 0; g < rad->group_count; g++)
        rad->sent[g][0] = rad->sent[g][1] = rad->sent[g][2] = 0;
    al_rad_recompute_powers(rad);
    al_rad_fix_free(rad->fix);
    rad->fix = NULL;
}

/* Unshot power: what is left to shoot (either sign), for the residual. */
static double unshot_power(const al_rad *rad)
{
    double u = 0;
    for (int32_t g = 0; g < rad->group_count; g++) u += rad->group_power[g];
    return u;
}

/* The same with its sign, for the books: light an edit took away counts against. */
static double unshot_balance(const al_rad *rad)
{
    double u = 0;
    for (int32_t g = 0; g < rad->group_count; g++)
        u += (rad->group_unshot[g][0] + rad->group_unshot[g][1] + rad->group_unshot[g][2]) / 3.0;
    return u;
}

static double residual_of(const al_rad *rad, double unshot)
{
    if (rad->emitted > 0) return unshot / rad->emitted;
    return rad->lights_shot < rad->light_count ? 1.0 : 0.0;
}

/* --- passes ------------------------------------------------------------------------ */

typedef struct pass {
    al_rad *rad;
    const int32_t *receivers; /* NULL: every luxel */
    int32_t count;
    /* lights */
    const int32_t *lights; /* the lights of the pass */
    int32_t light_count;
    const uint64_t **light_rows;
    double extent; /* the reach of sun rays */
    /* groups */
    rad_shooter shooters[AL_RAD_BATCH];
    int shooter_count;
    double received[64][AL_RAD_BATCH]; /* per worker */
    int64_t rays[64];
} pass;

static bool in_row(const uint64_t *row, int32_t cluster)
{
    return !row || cluster < 0 || al_bit_test(row, cluster);
}

double al_rad_sun_reach(const al_rad *rad)
{
    double lo[3], hi[3], extent = 0;
    al_world_bounds(rad->world, lo, hi);
    for (int k = 0; k < 3; k++) extent = fmax(extent, hi[k] - lo[k]);
    return extent * 2 + 1024;
}

int al_rad_light_add(const al_rad *rad, const rad_light *l, const uint64_t *row, const rad_point *p,
                     double extent, float sum[3])
{
    double v;
    if (l->kind == RAD_SUN) {
        double c = -al_dot(p->n, l->dir);
        if (c <= 0 || !al_rad_may_see_sky(rad, p->cluster)) return 0;
        double far_point[3];
        al_madd(p->from, l->dir, -extent, far_point);
        bool sky = false;
        if (!al_rad_ray(rad, p->from, far_point, &sky)) return 1;
        v = l->level * (1.0 - l->anglescale + l->anglescale * c);
    } else {
        if (!in_row(row, p->cluster)) return 0;
        double to[3];
        al_sub(l->origin, p->x, to);
        double d2 = al_dot(to, to);
        if (d2 >= l->range * l->range) return 0;
        double d = sqrt(d2);
        if (d < 1e-6) return 0;
        double c = al_dot(to, p->n) / d;
        if (c <= 0) return 0;
        double from_light[3];
        al_scale(to, -1.0 / d, from_light);
        v = al_rad_light_value(l, d, c, from_light);
        if (v <= 0) return 0;
        if (!al_rad_ray(rad, p->from, l->origin, NULL)) return 1;
    }
    if (l->dirt && p->occlusion > 0) v *= al_rad_dirt_factor(rad, l, p->occlusion);
    for (int k = 0; k < 3; k++) sum[k] += (float) (v * l->colour[k]);
    return 1;
}

/* The falloff and the angle are taken on the face under the sample point, as Quake's light
 * takes them at its samples on the face. */
void al_rad_luxel_point(const al_rad *rad, int32_t j, rad_point *out)
{
    for (int k = 0; k < 3; k++) out->n[k] = rad->normal[j][k];
    al_copy(rad->point[j], out->from);
    al_madd(rad->point[j], out->n, -AL_RAD_SAMPLE_OFFSET, out->x);
    out->cluster = rad->luxel_cluster[j];
    out->occlusion = rad->occlusion ? rad->occlusion[j] : 0;
}

void al_rad_sub_point(const rad_face *f, int extra, int32_t slot, int a, int b, double out[3])
{
    double u = f->u0 + ((slot % f->w) + (a + 0.5) / extra) * f->luxel;
    double v = f->v0 + ((slot / f->w) + (b + 0.5) / extra) * f->luxel;
    out[f->axis_u] = u;
    out[f->axis_v] = v;
    out[f->axis] =
        (f->dist - f->normal[f->axis_u] * u - f->normal[f->axis_v] * v) / f->normal[f->axis];
}

int al_rad_luxel_samples(const al_rad *rad, int32_t j, rad_point *out)
{
    al_rad_luxel_point(rad, j, &out[0]);
    unsigned mask = rad->sub_mask ? rad->sub_mask[j] : 0;
    if (rad->extra <= 1 || mask == 0) return 1;
    const rad_face *f = &rad->faces[rad->luxel_face[j]];
    int n = 0;
    for (int b = 0; b < rad->extra; b++)
        for (int a = 0; a < rad->extra; a++) {
            if (!(mask & (1u << (a + rad->extra * b)))) continue;
            rad_point *p = &out[n++];
            *p = out[0];
            al_rad_sub_point(f, rad->extra, rad->luxel_slot[j], a, b, p->x);
            al_madd(p->x, p->n, AL_RAD_SAMPLE_OFFSET, p->from);
        }
    return n;
}

int al_rad_light_at(const al_rad *rad, const rad_light *l, const uint64_t *row, int32_t j,
                    double extent, bool once, float out[3])
{
    out[0] = out[1] = out[2] = 0;
    rad_point p[AL_RAD_MAX_SAMPLES];
    int n = 1;
    if (once)
        al_rad_luxel_point(rad, j, &p[0]);
    else
        n = al_rad_luxel_samples(rad, j, p);
    int rays = 0;
    for (int s = 0; s < n; s++) rays += al_rad_light_add(rad, l, row, &p[s], extent, out);
    if (n > 1)
        for (int k = 0; k < 3; k++) out[k] /= (float) n;
    return rays;
}

static void light_job(void *context, int index, int worker)
{
    pass *ps = context;
    al_rad *rad = ps->rad;
    int32_t a = index * CHUNK, b = a + CHUNK < ps->count ? a + CHUNK : ps->count;
    /* A cancelled pass is dropped whole (shoot_lights), so the rest need not be done. */
    if (atomic_load(&rad->cancel)) return;
    /* The lights that may reach the chunk: a point light whose range ends short of the box
     * around the chunk's sample points reaches none of them (al_rad_light_add would turn
     * each away by its distance), so the chunk's luxels try only the others. Without this
     * every luxel tried every light, a cost of luxels times lights that grows with the
     * square of a map's size. The box's distance to the light is at most each point's, in
     * floating point too (subtraction, squares and sums round monotonically), and the kept
     * lights keep their order, so each luxel's sum is the same to the last bit. */
    double lo[3], hi[3];
    al_bounds_clear(lo, hi);
    rad_point p[AL_RAD_MAX_SAMPLES];
    for (int32_t r = a; r < b; r++) {
        int32_t j = ps->receivers ? ps->receivers[r] : r;
        int n = al_rad_luxel_samples(rad, j, p);
        for (int s = 0; s < n; s++) al_bounds_add(p[s].x, lo, hi);
    }
    int32_t stack[256];
    int32_t *near =
        ps->light_count <= 256 ? stack : malloc((size_t) ps->light_count * sizeof *near);
    int32_t near_count = 0;
    for (int32_t q = 0; q < ps->light_count; q++) {
        const rad_light *l = &rad->lights[ps->lights[q]];
        if (near && l->kind != RAD_SUN) {
            double d2 = 0;
            for (int k = 0; k < 3; k++) {
                double gap = l->origin[k] < lo[k]   ? lo[k] - l->origin[k]
                             : l->origin[k] > hi[k] ? l->origin[k] - hi[k]
                                                    : 0.0;
                d2 += gap * gap;
            }
            if (d2 >= l->range * l->range) continue;
        }
        if (near) near[near_count++] = q;
    }
    int64_t rays = 0;
    for (int32_t r = a; r < b; r++) {
        int32_t j = ps->receivers ? ps->receivers[r] : r;
        int n = al_rad_luxel_samples(rad, j, p);
        float sum[3] = {0, 0, 0};
        /* Out of memory for the list: every light, as without it. */
        int32_t tried = near ? near_count : ps->light_count;
        for (int32_t i = 0; i < tried; i++) {
            int32_t q = near ? near[i] : i;
            for (int s = 0; s < n; s++)
                rays += al_rad_light_add(rad, &rad->lights[ps->lights[q]], ps->light_rows[q], &p[s],
                                         ps->extent, sum);
        }
        for (int k = 0; k < 3; k++) rad->delta[j][k] = n > 1 ? sum[k] / (float) n : sum[k];
    }
    if (near != stack) free(near);
    ps->rays[worker] += rays;
}

/* Adds the light of shooter group G, of exitance POWER, to luxel J (the near field), with
 * visibility from rays to the shooter's aim points, or whole when SEES_ALL. Returns the
 * rays cast. */
static int near_luxel(const al_rad *rad, const rad_group *g, const float power[3], int32_t j,
                      bool sees_all, float sum[3], rad_gain *gain)
{
    const rad_face *gf = &rad->faces[g->face];
    const double *x = rad->point[j];
    double n[3] = {rad->normal[j][0], rad->normal[j][1], rad->normal[j][2]};
    if (al_dot(x, gf->normal) - gf->dist <= 1e-6) return 0;
    double ff = al_rad_point_polygon_ff(x, n, (const double (*)[3]) rad->group_points + g->first_point,
                                        g->point_count);
    if (!(ff > 0)) return 0;
    /* The polygon may hold luxels in solid, which give nothing off. */
    ff = fmin(ff, 1.0) * g->area / g->polygon_area;
    int seen = g->aim_count;
    if (!sees_all) {
        seen = 0;
        for (int q = 0; q < g->aim_count; q++)
            seen += al_rad_ray(rad, x, rad->point[g->aims[q]], NULL);
        if (seen == 0) return g->aim_count;
    }
    double f = ff * seen / g->aim_count;
    float add[3];
    for (int k = 0; k < 3; k++) {
        add[k] = (float) (power[k] * f);
        sum[k] += add[k];
    }
    gain->power += mean3(add) * rad->area[j];
    gain->wrote = true;
    return sees_all ? 0 : g->aim_count;
}

/* How much of shooter group G receiver group R sees, tested coarsely: a ray between the
 * centre luxels and four from R's aim points (one per quadrant) to G's, each to the
 * opposite quadrant, so that the lines cross between the groups. Returns 0 (none met),
 * 2 (all met) or 1 (some: a shadow's edge runs through, so each luxel must look for
 * itself), and adds the rays cast to *RAYS. */
static int group_sight(const al_rad *rad, const rad_group *r, const rad_group *g, int64_t *rays)
{
    int seen = al_rad_ray(rad, rad->point[r->target], rad->point[g->target], NULL), tried = 1;
    for (int q = 0; q < 4 && r->aim_count > 0 && g->aim_count > 0; q++, tried++)
        seen += al_rad_ray(rad, rad->point[r->aims[q % r->aim_count]],
                           rad->point[g->aims[(3 - q) % g->aim_count]], NULL);
    *rays += tried;
    return seen == 0 ? 0 : seen == tried ? 2 : 1;
}

bool al_rad_add_local(const al_rad *rad, const rad_group *r, const float (*local)[3],
                      float (*row)[3])
{
    bool any = false;
    for (int32_t k = 0; k < r->luxel_count; k++) {
        if (!nonzero3(local[k])) continue;
        float *to = row[rad->group_luxels[r->first_luxel + k]];
        for (int c = 0; c < 3; c++) to[c] += local[k][c];
        any = true;
    }
    return any;
}

/* True if any cluster of group R is in MASK (NULL: everything). */
static bool group_in(const al_rad *rad, const rad_group *r, const uint64_t *mask)
{
    if (!mask) return true;
    for (int32_t q = r->first_cluster; q < r->first_cluster + r->cluster_count; q++)
        if (in_row(mask, rad->group_clusters[q])) return true;
    return false;
}

/* The disc term: light from a far source of area AREA about CENTRE on the plane of face
 * SF, of exitance POWER, onto the luxels of receiver group R (LOCAL, in the order of its
 * list). */
static void far_disc(const al_rad *rad, const rad_group *r, const rad_face *sf,
                     const double centre[3], double area, const float power[3], float (*local)[3],
                     rad_gain *gain)
{
    for (int32_t k = 0; k < r->luxel_count; k++) {
        int32_t j = rad->group_luxels[r->first_luxel + k];
        const double *x = rad->point[j];
        double height = al_dot(x, sf->normal) - sf->dist;
        if (height <= 1e-6) continue;
        double e[3];
        al_sub(centre, x, e);
        double toward = e[0] * rad->normal[j][0] + e[1] * rad->normal[j][1] +
                        e[2] * rad->normal[j][2];
        if (toward <= 0) continue;
        double d2 = al_dot(e, e);
        /* The disc approximation (Wallace et al. 1989). */
        double ff = area * toward * height / (d2 * (M_PI * d2 + area));
        float add[3];
        for (int c = 0; c < 3; c++) {
            add[c] = (float) (power[c] * ff);
            local[k][c] += add[c];
        }
        gain->power += mean3(add) * rad->area[j];
    gain->wrote = true;
    }
}

/* Shooter group G (exitance POWER) onto receiver group R: near, Lambert per luxel with
 * the visibility group_sight finds; between, Lambert per luxel behind one ray; far, the
 * disc behind one ray. */
static int64_t group_onto(const al_rad *rad, const rad_group *r, const rad_group *g,
                          const float power[3], float (*local)[3], rad_gain *gain)
{
    const rad_face *gf = &rad->faces[g->face];
    const rad_face *rf = &rad->faces[r->face];
    /* Wholly behind the shooter's plane, or the shooter wholly behind ours. */
    if (al_dot(r->centre, gf->normal) - gf->dist < -r->radius) return 0;
    double d[3];
    al_sub(g->centre, r->centre, d);
    if (al_dot(d, rf->normal) < -g->radius) return 0;
    double near = g->radius * NEAR_RADII + r->radius, mid = g->radius * MID_RADII + r->radius;
    double d2 = al_dot(d, d);
    int64_t rays = 0;
    if (d2 >= near * near && d2 < mid * mid) {
        /* Between: one ray between the groups decides, Lambert per luxel. */
        if (!al_rad_ray(rad, rad->point[r->target], rad->point[g->target], NULL)) return 1;
        for (int32_t k = 0; k < r->luxel_count; k++)
            near_luxel(rad, g, power, rad->group_luxels[r->first_luxel + k], true, local[k],
                       gain);
        return 1;
    }
    if (d2 < near * near) {
        /* A few rays between the groups first; rays per luxel only where they disagree. */
        int sight = group_sight(rad, r, g, &rays);
        if (sight == 0) return rays;
        for (int32_t k = 0; k < r->luxel_count; k++) {
            int32_t j = rad->group_luxels[r->first_luxel + k];
            rays += near_luxel(rad, g, power, j, sight == 2, local[k], gain);
        }
        return rays;
    }
    /* Far: one ray between the groups decides, the disc term per luxel. */
    if (al_rad_ray(rad, rad->point[r->target], rad->point[g->target], NULL))
        far_disc(rad, r, gf, g->centre, g->area, power, local, gain);
    return 1;
}


/* Quad U of shooter SH onto receiver group R: one disc and one ray when far, else group
 * by group. */
static int64_t quad_onto(const al_rad *rad, const rad_group *r, const rad_shooter *sh, int u,
                         float (*local)[3], rad_gain *gain)
{
    const rad_panel *p = &rad->panels[sh->panel];
    const rad_panel *qu = &rad->quads[p->first_quad + u];
    int first = qu->first_group - p->first_group;
    double d[3];
    al_sub(qu->centre, r->centre, d);
    double reach = qu->radius * QUAD_RADII + r->radius;
    if (qu->group_count > 1 && al_dot(d, d) >= reach * reach) {
        const float *m = sh->quad_mean[u];
        if (nonzero3(m)) {
            if (al_rad_ray(rad, rad->point[r->target], rad->point[qu->target], NULL))
                far_disc(rad, r, &rad->faces[qu->face], qu->centre, qu->area, m, local, gain);
            return 1;
        }
        return 0;
    }
    int64_t rays = 0;
    for (int q = first; q < first + qu->group_count; q++)
        if (nonzero3(sh->power[q]))
            rays += group_onto(rad, r, &rad->groups[sh->groups[q]], sh->power[q], local, gain);
    return rays;
}

bool al_rad_group_sees(const al_rad *rad, const rad_group *r, const rad_shooter *sh)
{
    return group_in(rad, r, sh->mask);
}

int64_t al_rad_panel_onto(const al_rad *rad, const rad_group *r, const rad_shooter *sh,
                          float (*local)[3], rad_gain *gain)
{
    const rad_panel *p = &rad->panels[sh->panel];
    const rad_face *rf = &rad->faces[r->face];
    /* A face does not light itself. */
    if (p->face == r->face || !group_in(rad, r, sh->mask)) return 0;
    const rad_face *pf = &rad->faces[p->face];
    if (al_dot(r->centre, pf->normal) - pf->dist < -r->radius) return 0;
    double d[3];
    al_sub(p->centre, r->centre, d);
    if (al_dot(d, rf->normal) < -p->radius) return 0;
    double reach = p->radius * PANEL_RADII + r->radius;
    if (sh->group_count > 1 && al_dot(d, d) >= reach * reach) {
        /* Far from the whole panel: one ray, one disc. */
        if (al_rad_ray(rad, rad->point[r->target], rad->point[p->target], NULL))
            far_disc(rad, r, pf, p->centre, p->area, sh->mean, local, gain);
        return 1;
    }
    int64_t rays = 0;
    for (int u = 0; u < p->quad_count; u++) rays += quad_onto(rad, r, sh, u, local, gain);
    return rays;
}

static void group_job(void *context, int index, int worker)
{
    pass *ps = context;
    al_rad *rad = ps->rad;
    /* A cancel drops the pass (shoot_panels): the chunks left are not worth shooting. */
    if (atomic_load(&rad->cancel)) return;
    int32_t a = index * GROUP_CHUNK, b = a + GROUP_CHUNK < ps->count ? a + GROUP_CHUNK : ps->count;
    int64_t rays = 0;
    double received[AL_RAD_BATCH] = {0};
    /* Kept zero between receivers; written only where light arrives. */
    float local[AL_RAD_GROUP * AL_RAD_GROUP][3];
    memset(local, 0, sizeof local);
    for (int32_t i = a; i < b; i++) {
        int32_t ri = ps->receivers ? ps->receivers[i] : i;
        const rad_group *r = &rad->groups[ri];
        for (int s = 0; s < ps->shooter_count; s++) {
            rad_gain gain = {0};
            rays += al_rad_panel_onto(rad, r, &ps->shooters[s], local, &gain);
            if (!gain.wrote) continue;
            received[s] += gain.power;
            /* Light arrived: the row of this shooter holds something for the group. */
            if (al_rad_add_local(rad, r, local, rad->delta + (size_t) s * rad->luxel_count))
                rad->group_rows[ri] |= (uint8_t) (1u << s);
            memset(local, 0, (size_t) r->luxel_count * sizeof local[0]);
        }
    }
    for (int s = 0; s < ps->shooter_count; s++) ps->received[worker][s] += received[s];
    ps->rays[worker] += rays;
}

/* Receiver groups of a pass: those with a luxel in a cluster of MASK (NULL: every group,
 * returned as a NULL list), and those with a luxel in no cluster. */
static int32_t gather_groups(al_rad *rad, const uint64_t *mask, const int32_t **out)
{
    if (!mask || rad->cluster_count == 0 || !rad->receivers || !rad->group_stamp) {
        *out = NULL;
        return rad->group_count;
    }
    rad->stamp++;
    int32_t n = 0;
    for (int32_t c = 0; c <= rad->cluster_count; c++) {
        if (c < rad->cluster_count && !al_bit_test(mask, c)) continue;
        for (int32_t k = rad->cluster_first[c]; k < rad->cluster_first[c + 1]; k++) {
            int32_t g = rad->luxel_group[rad->cluster_luxels[k]];
            if (rad->group_stamp[g] == rad->stamp) continue;
            rad->group_stamp[g] = rad->stamp;
            rad->receivers[n++] = g;
        }
    }
    *out = rad->receivers;
    return n;
}

/* Adds the pass's deltas (ROWS rows, row s scaled by SCALE[s]; only the rows the group's
 * bits in group_rows name hold anything) to the luxels of group G: incident light (and
 * direct light with DIRECT) and unshot exitance; the rows and bits are cleared. Returns
 * the power received, and adds what is absorbed to *ABSORBED and what is kept to be shot
 * to KEPT, per channel. */
static double commit_group(al_rad *rad, int32_t g, const double *scale, int rows, bool direct,
                           double *absorbed, double kept_power[3])
{
    const rad_group *gr = &rad->groups[g];
    const rad_face *f = &rad->faces[gr->face];
    double received = 0;
    unsigned mask = rad->group_rows[g];
    if (mask == 0) return 0;
    rad->group_rows[g] = 0;
    for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++) {
        int32_t j = rad->group_luxels[k];
        float dl[3] = {0, 0, 0};
        bool any = false;
        for (int s = 0; s < rows; s++) {
            if (!(mask & (1u << s))) continue;
            float *row = rad->delta[(size_t) s * rad->luxel_count + j];
            if (row[0] == 0 && row[1] == 0 && row[2] == 0) continue;
            for (int c = 0; c < 3; c++) {
                dl[c] += (float) (row[c] * scale[s]);
                row[c] = 0;
            }
            any = true;
        }
        if (!any) continue;
        float kept[3], lost[3];
        for (int c = 0; c < 3; c++) {
            rad->incident[j][c] += dl[c];
            if (direct) rad->direct[j][c] += dl[c];
            kept[c] = f->reflectance[c] * dl[c];
            lost[c] = dl[c] - kept[c];
            rad->unshot[j][c] += kept[c];
            kept_power[c] += kept[c] * (double) rad->area[j];
        }
        received += mean3(dl) * rad->area[j];
        *absorbed += mean3(lost) * rad->area[j];
    }
    return received;
}

typedef struct commit_pass {
    al_rad *rad;
    const int32_t *list; /* receiver groups; NULL: every group */
    int32_t count;
    const double *scale;
    int rows;
    bool direct;
    double (*kept)[3]; /* per list entry */
    double received[64], absorbed[64]; /* per worker */
} commit_pass;

static void commit_job(void *context, int index, int worker)
{
    commit_pass *cp = context;
    int32_t a = index * GROUP_CHUNK, b = a + GROUP_CHUNK < cp->count ? a + GROUP_CHUNK : cp->count;
    for (int32_t i = a; i < b; i++) {
        cp->kept[i][0] = cp->kept[i][1] = cp->kept[i][2] = 0;
        cp->received[worker] +=
            commit_group(cp->rad, cp->list ? cp->list[i] : i, cp->scale, cp->rows, cp->direct,
                         &cp->absorbed[worker], cp->kept[i]);
    }
}

/* Commits a pass's deltas to the groups LIST (NULL: all COUNT groups), in parallel; the
 * caller holds the lock, so a snapshot sees all of it or none. Returns the power
 * received. */
static double commit_groups(al_rad *rad, const int32_t *list, int32_t count,
                            const double *scale, int rows, bool direct)
{
    commit_pass cp = {.rad = rad, .list = list, .count = count, .scale = scale, .rows = rows,
                      .direct = direct, .kept = rad->commit_kept};
    al_parallel_for((count + GROUP_CHUNK - 1) / GROUP_CHUNK, threads_of(rad), commit_job, &cp);
    double received = 0;
    for (int w = 0; w < 64; w++) {
        received += cp.received[w];
        rad->absorbed += cp.absorbed[w];
    }
    for (int32_t i = 0; i < count; i++) {
        int32_t g = list ? list[i] : i;
        double *k = cp.kept[i];
        if (k[0] == 0 && k[1] == 0 && k[2] == 0) continue;
        for (int c = 0; c < 3; c++) rad->group_unshot[g][c] += k[c];
        double before = rad->group_power[g];
        rad->group_power[g] = power_of(rad->group_unshot[g]);
        rad->panel_power[rad->group_panel[g]] += rad->group_power[g] - before;
    }
    return received;
}

double al_rad_commit_rows(al_rad *rad, int rows)
{
    const double ones[AL_RAD_BATCH] = {1, 1, 1, 1, 1, 1, 1, 1};
    return commit_groups(rad, NULL, rad->group_count, ones, rows, false);
}

/* Shoots the next COUNT light sources not yet shot, in order, in one pass over every
 * luxel. A cancel during the pass (the sky's suns take seconds on a large map) drops the
 * pass: nothing is committed and false is returned, so the solver stays as it was. */
static bool shoot_lights(al_rad *rad, int32_t count)
{
    pass *ps = calloc(1, sizeof *ps);
    const uint64_t **rows = malloc(((size_t) count + 1) * sizeof *rows);
    int32_t *list = malloc(((size_t) count + 1) * sizeof *list);
    if (!ps || !rows || !list) {
        free(ps);
        free(rows);
        free(list);
        return false;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < rad->light_count && n < count; i++)
        if (!rad->light_shot[i]) list[n++] = i;
    ps->rad = rad;
    ps->lights = list;
    ps->light_count = n;
    ps->light_rows = rows;
    ps->extent = al_rad_sun_reach(rad);
    for (int32_t q = 0; q < n; q++) {
        const rad_light *l = &rad->lights[list[q]];
        /* A light in no vis leaf (in solid, or no PVS) is not pruned. */
        rows[q] = l->kind == RAD_SUN ? NULL : pvs_row(rad, l->cluster);
    }
    ps->count = rad->luxel_count;
    int chunks = (ps->count + CHUNK - 1) / CHUNK;
    al_parallel_for(chunks, threads_of(rad), light_job, ps);
    if (atomic_load(&rad->cancel)) {
        free(rows);
        free(list);
        free(ps);
        return false;
    }
    int64_t rays = 0;
    for (int w = 0; w < 64; w++) rays += ps->rays[w];
    pthread_mutex_lock(&rad->lock);
    const double one = 1.0;
    memset(rad->group_rows, 1, (size_t) rad->group_count); /* row 0 of every group */
    double received = commit_groups(rad, NULL, rad->group_count, &one, 1, true);
    rad->emitted += received;
    for (int32_t q = 0; q < n; q++) rad->light_shot[list[q]] = 1;
    rad->lights_shot += n;
    rad->shots += n;
    rad->rays += rays;
    pthread_mutex_unlock(&rad->lock);
    free(rows);
    free(list);
    free(ps);
    return true;
}

/* Picks up to MAX panels with the most unshot power into OUT; returns how many. */
static int pick_panels(const al_rad *rad, int32_t *out, int max)
{
    int n = 0;
    for (int32_t g = 0; g < rad->panel_count; g++) {
        double p = rad->panel_power[g];
        if (!(p > 0)) continue;
        if (n == max && p <= rad->panel_power[out[n - 1]]) continue;
        int k = n < max ? n++ : n - 1;
        while (k > 0 && rad->panel_power[out[k - 1]] < p) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = g;
    }
    return n;
}

/* Adds the PVS rows of group G's clusters to SH's mask (of WORDS words); a cluster
 * without a row makes it see everything (mask NULL). */
static void mask_group(const al_rad *rad, rad_shooter *sh, int32_t g, int words)
{
    const rad_group *gr = &rad->groups[g];
    if (!sh->mask) return;
    for (int32_t k = gr->first_cluster; k < gr->first_cluster + gr->cluster_count; k++) {
        const uint64_t *row = pvs_row(rad, rad->group_clusters[k]);
        if (!row) {
            sh->mask = NULL;
            return;
        }
        for (int w = 0; w < words; w++) sh->mask[w] |= row[w];
    }
}

/* Takes the unshot light of group G into slot Q of SH (the lock is held), and adds its
 * clusters' PVS rows to the shooter's mask (of WORDS words). */
static void take_group(al_rad *rad, rad_shooter *sh, int q, int32_t g, int words, double sum[3])
{
    const rad_group *gr = &rad->groups[g];
    double mine[3] = {0, 0, 0};
    for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++) {
        int32_t l = rad->group_luxels[k];
        for (int c = 0; c < 3; c++) {
            mine[c] += rad->unshot[l][c] * rad->area[l];
            rad->unshot[l][c] = 0;
        }
    }
    sh->groups[q] = g;
    for (int c = 0; c < 3; c++) {
        sh->power[q][c] = (float) (mine[c] / gr->area);
        sum[c] += mine[c];
        rad->group_unshot[g][c] = 0;
    }
    rad->group_power[g] = 0;
    mask_group(rad, sh, g, words);
}

bool al_rad_shooter_of(const al_rad *rad, int32_t panel, const float (*exitance)[3],
                       uint64_t *mask, rad_shooter *sh)
{
    const rad_panel *p = &rad->panels[panel];
    const al_vis *vis = rad->world->vis;
    int words = vis && vis->pvs ? vis->row_words : 0;
    sh->panel = panel;
    sh->group_count = p->group_count;
    sh->mask = words && mask ? mask : NULL;
    if (sh->mask) memset(sh->mask, 0, (size_t) words * sizeof *sh->mask);
    bool any = false;
    double sum[3] = {0, 0, 0};
    for (int u = 0; u < p->quad_count; u++) {
        const rad_panel *qu = &rad->quads[p->first_quad + u];
        double quad_sum[3] = {0, 0, 0};
        for (int32_t q = qu->first_group; q < qu->first_group + qu->group_count; q++) {
            int32_t g = rad->panel_groups[q];
            int slot = q - p->first_group;
            sh->groups[slot] = g;
            for (int c = 0; c < 3; c++) {
                sh->power[slot][c] = exitance[g][c];
                quad_sum[c] += exitance[g][c] * rad->groups[g].area;
            }
            any |= nonzero3(exitance[g]);
            mask_group(rad, sh, g, words);
        }
        for (int c = 0; c < 3; c++) {
            sh->quad_mean[u][c] = (float) (quad_sum[c] / qu->area);
            sum[c] += quad_sum[c];
        }
    }
    for (int c = 0; c < 3; c++) sh->mean[c] = (float) (sum[c] / p->area);
    return any;
}

/* Shoots up to COUNT panels; returns how many were shot (0: nothing left). */
/* The unshot light a pass takes from its shooters' groups, kept so that a dropped pass can
 * give it back (a cancel in the middle of a pass: on a large map a pass takes tens of
 * milliseconds, and an edit waits for it). */
typedef struct taken_light {
    int32_t *groups, group_count;
    double (*group_unshot)[3], *group_power;
    int32_t *luxels, luxel_count;
    float (*unshot)[3];
    int32_t panels[AL_RAD_BATCH];
    double panel_power[AL_RAD_BATCH];
    int panel_count;
} taken_light;

static void taken_free(taken_light *t)
{
    free(t->groups), free(t->group_unshot), free(t->group_power), free(t->luxels), free(t->unshot);
    memset(t, 0, sizeof *t);
}

/* Keeps what the N PICKED panels' groups hold before a pass takes it; false if memory ran
 * out (the pass then cannot be dropped). Under the lock. */
static bool keep_taken(const al_rad *rad, const int32_t *picked, int n, taken_light *t)
{
    int32_t groups = 0, luxels = 0;
    for (int s = 0; s < n; s++) {
        const rad_panel *p = &rad->panels[picked[s]];
        groups += p->group_count;
        for (int32_t q = p->first_group; q < p->first_group + p->group_count; q++)
            luxels += rad->groups[rad->panel_groups[q]].luxel_count;
    }
    t->groups = malloc(((size_t) groups + 1) * sizeof *t->groups);
    t->group_unshot = malloc(((size_t) groups + 1) * sizeof *t->group_unshot);
    t->group_power = malloc(((size_t) groups + 1) * sizeof *t->group_power);
    t->luxels = malloc(((size_t) luxels + 1) * sizeof *t->luxels);
    t->unshot = malloc(((size_t) luxels + 1) * sizeof *t->unshot);
    if (!t->groups || !t->group_unshot || !t->group_power || !t->luxels || !t->unshot) {
        taken_free(t);
        return false;
    }
    for (int s = 0; s < n; s++) {
        const rad_panel *p = &rad->panels[picked[s]];
        t->panels[s] = picked[s];
        t->panel_power[s] = rad->panel_power[picked[s]];
        for (int32_t q = p->first_group; q < p->first_group + p->group_count; q++) {
            int32_t g = rad->panel_groups[q];
            t->groups[t->group_count] = g;
            memcpy(t->group_unshot[t->group_count], rad->group_unshot[g], sizeof(double[3]));
            t->group_power[t->group_count++] = rad->group_power[g];
            const rad_group *gr = &rad->groups[g];
            for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++) {
                int32_t l = rad->group_luxels[k];
                t->luxels[t->luxel_count] = l;
                memcpy(t->unshot[t->luxel_count++], rad->unshot[l], sizeof(float[3]));
            }
        }
    }
    t->panel_count = n;
    return true;
}

/* Puts back what keep_taken kept. Under the lock. */
static void give_back(al_rad *rad, const taken_light *t)
{
    for (int32_t i = 0; i < t->luxel_count; i++)
        memcpy(rad->unshot[t->luxels[i]], t->unshot[i], sizeof(float[3]));
    for (int32_t i = 0; i < t->group_count; i++) {
        memcpy(rad->group_unshot[t->groups[i]], t->group_unshot[i], sizeof(double[3]));
        rad->group_power[t->groups[i]] = t->group_power[i];
    }
    for (int s = 0; s < t->panel_count; s++) rad->panel_power[t->panels[s]] = t->panel_power[s];
}

/* Clears the deltas a dropped pass of ROWS shooters left for group G. */
static void clear_rows(al_rad *rad, int32_t g, int rows)
{
    unsigned mask = rad->group_rows[g];
    if (mask == 0) return;
    rad->group_rows[g] = 0;
    const rad_group *gr = &rad->groups[g];
    for (int s = 0; s < rows; s++) {
        if (!(mask & (1u << s))) continue;
        for (int32_t k = gr->first_luxel; k < gr->first_luxel + gr->luxel_count; k++)
            memset(rad->delta[(size_t) s * rad->luxel_count + rad->group_luxels[k]], 0,
                   sizeof(float[3]));
    }
}

void al_rad_drop_rows(al_rad *rad, int rows)
{
    for (int32_t g = 0; g < rad->group_count; g++) clear_rows(rad, g, rows);
}

static int shoot_panels(al_rad *rad, int count)
{
    int32_t picked[AL_RAD_BATCH];
    int n = pick_panels(rad, picked, count < AL_RAD_BATCH ? count : AL_RAD_BATCH);
    if (n == 0) return 0;
    pass *ps = calloc(1, sizeof *ps);
    const al_vis *vis = rad->world->vis;
    int words = vis && vis->pvs ? vis->row_words : 0;
    uint64_t *masks = words ? calloc((size_t) words * (n + 1), sizeof *masks) : NULL;
    if (!ps || (words && !masks)) {
        free(ps);
        free(masks);
        return 0;
    }
    ps->rad = rad;
    bool all = words == 0;
    uint64_t *unite = masks ? masks + (size_t) words * n : NULL;
    double shot_power[AL_RAD_BATCH], shot_balance[AL_RAD_BATCH];
    taken_light taken = {0};
    pthread_mutex_lock(&rad->lock);
    bool kept = keep_taken(rad, picked, n, &taken);
    for (int s = 0; s < n; s++) {
        rad_shooter *sh = &ps->shooters[s];
        const rad_panel *p = &rad->panels[picked[s]];
        sh->panel = picked[s];
        sh->group_count = p->group_count;
        sh->mask = words ? masks + (size_t) words * s : NULL;
        double sum[3] = {0, 0, 0};
        for (int u = 0; u < p->quad_count; u++) {
            const rad_panel *qu = &rad->quads[p->first_quad + u];
            double quad_sum[3] = {0, 0, 0};
            for (int32_t q = qu->first_group; q < qu->first_group + qu->group_count; q++)
                take_group(rad, sh, q - p->first_group, rad->panel_groups[q], words, quad_sum);
            for (int c = 0; c < 3; c++) {
                sh->quad_mean[u][c] = (float) (quad_sum[c] / qu->area);
                sum[c] += quad_sum[c];
            }
        }
        for (int c = 0; c < 3; c++) sh->mean[c] = (float) (sum[c] / p->area);
        shot_power[s] = rad->panel_power[picked[s]];
        shot_balance[s] = (sum[0] + sum[1] + sum[2]) / 3.0;
        rad->panel_power[picked[s]] = 0;
        if (!sh->mask) all = true;
        else
            for (int w = 0; w < words; w++) unite[w] |= sh->mask[w];
    }
    pthread_mutex_unlock(&rad->lock);
    ps->shooter_count = n;
    ps->count = gather_groups(rad, all ? NULL : unite, &ps->receivers);
    int chunks = (ps->count + GROUP_CHUNK - 1) / GROUP_CHUNK;
    al_parallel_for(chunks, threads_of(rad), group_job, ps);
    if (atomic_load(&rad->cancel) && kept) {
        /* Dropped: what the receivers got is cleared, and the shooters' light given back,
         * so that the solver is as it was before the pass. */
        pthread_mutex_lock(&rad->lock);
        for (int32_t i = 0; i < ps->count; i++) clear_rows(rad, ps->receivers ? ps->receivers[i] : i, n);
        give_back(rad, &taken);
        pthread_mutex_unlock(&rad->lock);
        taken_free(&taken);
        free(masks);
        free(ps);
        return 0;
    }
    taken_free(&taken);
    int64_t rays = 0;
    double received = 0, shot = 0;
    for (int w = 0; w < 64; w++) rays += ps->rays[w];
    /* Point sampling of the receivers errs both ways by a few percent; a shooter whose
     * receivers got more than 2% over what it shot is scaled down to that, so the residual
     * never grows (reflectance is at most 0.95). Clamping every overshoot would bias the
     * solution dark: the furnace test shows it. (Light an edit took away is shot as
     * negative light: the same by magnitude.) */
    double scale[AL_RAD_BATCH];
    received = 0;
    for (int s = 0; s < n; s++) {
        double got = 0;
        for (int w = 0; w < 64; w++) got += ps->received[w][s];
        scale[s] = fabs(got) > OVERSHOOT * shot_power[s] ? OVERSHOOT * shot_power[s] / fabs(got)
                                                          : 1.0;
        received += got * scale[s];
        shot += shot_balance[s];
    }
    pthread_mutex_lock(&rad->lock);
    commit_groups(rad, ps->receivers, ps->count, scale, n, false);
    /* What each group has given, as its receivers got it. */
    for (int s = 0; s < n; s++) {
        const rad_shooter *sh = &ps->shooters[s];
        for (int q = 0; q < sh->group_count; q++)
            for (int c = 0; c < 3; c++)
                rad->sent[sh->groups[q]][c] += (float) (sh->power[q][c] * scale[s]);
    }
    rad->escaped += shot - received;
    rad->shots += n;
    rad->rays += rays;
    pthread_mutex_unlock(&rad->lock);
    free(masks);
    free(ps);
    return n;
}

/* --- the API ------------------------------------------------------------------------ */

/* The worldspawn's "allium_extra_samples", 1 if absent or unusable (with a warning). */
static int map_extra(const al_input *in, al_diag_list *diags)
{
    if (in->entity_count < 1) return 1;
    const al_entity_desc *ent = &in->entities[0];
    const char *s = al_entity_value(ent, "allium_extra_samples");
    if (!s) return 1;
    char *end;
    long v = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (end == s || *end || v < 1 || v > AL_RAD_MAX_EXTRA) {
        if (diags)
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, 0, -1, -1, ent->line, -1,
                        "key \"allium_extra_samples\" is \"%s\", not a whole number from 1 to "
                        "%d; using 1",
                        s, AL_RAD_MAX_EXTRA);
        return 1;
    }
    return (int) v;
}

al_status al_rad_begin(const al_world *world, const al_input *input, const al_rad_options *opts,
                       al_rad **out, al_diag_list *diags)
{
    *out = NULL;
    al_rad_options o = opts ? *opts : (al_rad_options){0};
    if (o.luxel_size != 0 && !(o.luxel_size >= 1 && o.luxel_size <= 1024)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "luxel size %g is not between 1 and 1024 units", o.luxel_size);
        return AL_ERR_INVALID_ARGUMENT;
    }
    if (o.extra_samples < 0 || o.extra_samples > AL_RAD_MAX_EXTRA) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "%d extra samples is not between 1 and %d", o.extra_samples, AL_RAD_MAX_EXTRA);
        return AL_ERR_INVALID_ARGUMENT;
    }
    /* Its rays go through the world's light trees, which a compile with no_vis leaves to
     * al_world_build_vis. */
    for (int b = 0; b < world->models[0].block_count; b++)
        if (!al_block_has_vis(&world->models[0].blocks[b])) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "the world has no light trees yet: build its visibility first");
            return AL_ERR_INVALID_ARGUMENT;
        }
    al_rad *rad = calloc(1, sizeof *rad);
    if (!rad) return AL_ERR_NOMEM;
    rad->world = world;
    rad->input = input;
    rad->options = o;
    rad->extra = o.extra_samples > 0 ? o.extra_samples : map_extra(input, diags);
    pthread_mutex_init(&rad->lock, NULL);
    atomic_init(&rad->cancel, false);
    al_status st = al_ray_tree_build(world, &rad->ray_tree) ? AL_OK : AL_ERR_NOMEM;
    if (st == AL_OK) st = al_face_polys_build(input, &rad->polys);
    if (st != AL_OK) {
        al_rad_destroy(rad);
        return st;
    }
    *out = rad;
    return AL_OK;
}

al_status al_rad_finish(al_rad *rad, al_diag_list *diags)
{
    al_status st = al_rad_layout(rad, diags);
    if (st == AL_OK && (!al_rad_index_skies(rad) || !al_rad_find_sky_leaves(rad)))
        st = AL_ERR_NOMEM;
    if (st == AL_OK) {
        rad_lights lights;
        if (al_rad_parse_lights(rad->world, rad->input, &rad->polys, &lights, diags)) {
            rad->lights = lights.lights;
            rad->light_count = lights.count;
            rad->dome_count = lights.dome_count;
            rad->floor_lights = lights.floors;
            rad->floor_light_count = lights.floor_count;
            rad->entity_minlight = lights.minlight;
            rad->entity_no_dirt = lights.no_dirt;
            rad->dirt = lights.dirt;
        } else {
            st = AL_ERR_NOMEM;
        }
    }
    if (st == AL_OK) st = al_rad_compute_occlusion(rad);
    if (st == AL_OK) st = al_rad_compute_floors(rad);
    if (st != AL_OK) return st;
    double refl[3] = {0, 0, 0};
    for (int32_t l = 0; l < rad->luxel_count; l++) {
        rad->total_area += rad->area[l];
        for (int k = 0; k < 3; k++)
            refl[k] += rad->faces[rad->luxel_face[l]].reflectance[k] * rad->area[l];
    }
    for (int k = 0; k < 3; k++)
        rad->mean_reflectance[k] = rad->total_area > 0 ? refl[k] / rad->total_area : 0;
    rad->receivers = malloc(((size_t) rad->group_count + 1) * sizeof *rad->receivers);
    rad->group_stamp = calloc((size_t) rad->group_count + 1, sizeof *rad->group_stamp);
    rad->commit_kept = malloc(((size_t) rad->group_count + 1) * sizeof *rad->commit_kept);
    rad->group_rows = calloc((size_t) rad->group_count + 1, 1);
    rad->direct = calloc((size_t) rad->luxel_count + 1, sizeof *rad->direct);
    rad->sent = calloc((size_t) rad->group_count + 1, sizeof *rad->sent);
    rad->group_unshot = calloc((size_t) rad->group_count + 1, sizeof *rad->group_unshot);
    rad->light_shot = calloc((size_t) rad->light_count + 1, 1);
    if (!rad->receivers || !rad->group_stamp || !rad->commit_kept || !rad->group_rows ||
        !rad->direct || !rad->sent || !rad->group_unshot || !rad->light_shot)
        return AL_ERR_NOMEM;
    reset_state(rad);
    return AL_OK;
}

al_status al_rad_create(const al_world *world, const al_input *input, const al_rad_options *opts,
                        al_rad **out, al_diag_list *diags)
{
    al_status st = al_rad_begin(world, input, opts, out, diags);
    if (st != AL_OK) return st;
    st = al_rad_finish(*out, diags);
    if (st != AL_OK) {
        al_rad_destroy(*out);
        *out = NULL;
    }
    return st;
}

void al_rad_destroy(al_rad *rad)
{
    if (!rad) return;
    al_ray_tree_free(&rad->ray_tree);
    al_ray_log_free(rad->ray_log);
    al_face_polys_free(&rad->polys);
    free(rad->faces);
    free(rad->face_of_poly);
    free(rad->brush_keys);
    free(rad->slots);
    free(rad->point);
    free(rad->normal);
    free(rad->area);
    free(rad->luxel_face);
    free(rad->luxel_cluster);
    free(rad->luxel_group);
    free(rad->luxel_slot);
    free(rad->sub_mask);
    free(rad->incident);
    free(rad->unshot);
    free(rad->direct);
    free(rad->sent);
    free(rad->group_unshot);
    free(rad->light_shot);
    al_rad_fix_free(rad->fix);
    free(rad->cluster_first);
    free(rad->cluster_luxels);
    free(rad->groups);
    free(rad->group_luxels);
    free(rad->group_points);
    free(rad->group_clusters);
    free(rad->group_power);
    free(rad->panels);
    free(rad->quads);
    free(rad->panel_groups);
    free(rad->group_panel);
    free(rad->panel_power);
    free(rad->lights);
    free(rad->floor_lights);
    free(rad->entity_minlight);
    free(rad->entity_no_dirt);
    free(rad->occlusion);
    free(rad->floor);
    free(rad->skies);
    al_cell_index_free(&rad->sky_index);
    free(rad->sees_sky);
    free(rad->texel_luxel);
    free(rad->shelves);
    free(rad->delta);
    free(rad->mask);
    free(rad->receivers);
    free(rad->group_stamp);
    free(rad->commit_kept);
    free(rad->group_rows);
    pthread_mutex_destroy(&rad->lock);
    free(rad);
}

static void stats_locked(const al_rad *rad, al_rad_stats *out)
{
    memset(out, 0, sizeof *out);
    out->patches = rad->luxel_count;
    out->shooters = rad->panel_count;
    out->lights = rad->light_count;
    out->shots = rad->shots;
    out->rays = rad->rays;
    double left = unshot_power(rad);
    out->unshot = unshot_balance(rad);
    out->residual = residual_of(rad, left);
    out->emitted = rad->emitted;
    out->absorbed = rad->absorbed;
    out->escaped = rad->escaped;
    out->ms = rad->ms;
    out->lights_shot = rad->lights_shot;
    for (int32_t i = rad->light_count - rad->dome_count; i < rad->light_count; i++)
        out->dome_lights_shot += rad->light_shot[i];
    out->direct_done = rad->lights_shot == rad->light_count;
    out->dome_lights = rad->dome_count;
    out->corrections_left = al_rad_fix_left(rad);
    out->coarse_left = al_rad_coarse_left(rad);
    out->converged = out->direct_done && out->corrections_left == 0 && !(left > 0);
}

void al_rad_get_stats(al_rad *rad, al_rad_stats *out)
{
    pthread_mutex_lock(&rad->lock);
    stats_locked(rad, out);
    pthread_mutex_unlock(&rad->lock);
}

int64_t al_rad_step(al_rad *rad, int64_t shots)
{
    uint64_t start = al_clock_ns();
    int64_t done = 0;
    while (done < shots && !atomic_load(&rad->cancel)) {
        if (rad->lights_shot < rad->light_count) {
            int64_t k = rad->light_count - rad->lights_shot;
            if (k > shots - done) k = shots - done;
            if (!shoot_lights(rad, (int32_t) k)) break;
            done += k;
            continue;
        }
        if (rad->fix) {
            /* What an edit changed comes before more bounces. */
            if (al_rad_fix_step(rad) > 0) {
                done++;
                continue;
            }
            if (rad->fix) break; /* cancelled */
        }
        int64_t want = shots - done;
        int k = shoot_panels(rad, want < AL_RAD_BATCH ? (int) want : AL_RAD_BATCH);
        if (k == 0) break;
        done += k;
    }
    pthread_mutex_lock(&rad->lock);
    rad->ms += al_clock_ms_since(start);
    pthread_mutex_unlock(&rad->lock);
    return done;
}

al_rad_stop al_rad_run(al_rad *rad, double residual, double seconds, al_rad_progress_fn progress,
                       void *context)
{
    atomic_store(&rad->cancel, false);
    uint64_t start = al_clock_ns(), last = start;
    for (;;) {
        al_rad_stats st;
        al_rad_get_stats(rad, &st);
        if (st.direct_done && st.corrections_left == 0 &&
            (st.residual <= residual || st.converged)) {
            if (progress) progress(context, &st);
            return AL_RAD_STOP_RESIDUAL;
        }
        if (atomic_load(&rad->cancel)) return AL_RAD_STOP_CANCELLED;
        if (seconds > 0 && al_clock_ms_since(start) >= seconds * 1000.0) return AL_RAD_STOP_TIME;
        int64_t batch = !st.direct_done ? st.lights - st.lights_shot
                        : st.corrections_left > 0 ? 1
                                                  : AL_RAD_BATCH;
        if (al_rad_step(rad, batch) == 0 && !atomic_load(&rad->cancel)) {
            al_rad_get_stats(rad, &st);
            if (progress) progress(context, &st);
            return AL_RAD_STOP_RESIDUAL;
        }
        if (progress && al_clock_ms_since(last) >= 10.0) {
            last = al_clock_ns();
            al_rad_get_stats(rad, &st);
            if (!progress(context, &st)) return AL_RAD_STOP_CANCELLED;
        }
    }
}

void al_rad_cancel(al_rad *rad)
{
    atomic_store(&rad->cancel, true);
}

void al_rad_resume(al_rad *rad)
{
    atomic_store(&rad->cancel, false);
}

void al_rad_reset(al_rad *rad)
{
    pthread_mutex_lock(&rad->lock);
    reset_state(rad);
    pthread_mutex_unlock(&rad->lock);
    atomic_store(&rad->cancel, false);
}

/* --- saved state ------------------------------------------------------------------- */

/* Layout of al_rad_save's bytes (native byte order, as the cache is per machine): the
 * header, then per group its unshot power (3 doubles), per panel its unshot power (a
 * double, kept as the solver summed it, so that the restored solver picks the same
 * shooters), per luxel incident, unshot and direct light (3 floats each), per group the
 * exitance sent (3 floats), per light a byte saying it was shot, and last a 64-bit FNV-1a
 * checksum of everything before it. Bump RAD_STATE_VERSION when the solver's meaning of the state
 * changes. */
#define RAD_STATE_MAGIC "ALRADST"
#define RAD_STATE_VERSION 3u

/* Float rounding may leave light that an update took away a hair below zero. */
#define RAD_STATE_SLACK 1.0f

typedef struct rad_state_header {
    char magic[8]; /* the header is 88 bytes: what follows starts 8-aligned */
    uint32_t version;
    int32_t luxel_count, group_count, panel_count, light_count, lights_shot;
    uint64_t fingerprint;
    int64_t shots, rays;
    double emitted, absorbed, escaped, ms;
} rad_state_header;
_Static_assert(sizeof(rad_state_header) % 8 == 0, "the state's doubles follow the header");

/* What the state belongs to: the luxels' places, areas, faces and emission. */
static uint64_t patch_fingerprint(const al_rad *rad)
{
    uint64_t h = AL_FNV1A_SEED;
    size_t n = (size_t) rad->luxel_count;
    h = al_fnv1a(h, rad->point, n * sizeof *rad->point);
    h = al_fnv1a(h, rad->area, n * sizeof *rad->area);
    h = al_fnv1a(h, rad->luxel_face, n * sizeof *rad->luxel_face);
    h = al_fnv1a(h, &rad->extra, sizeof rad->extra);
    h = al_fnv1a(h, rad->sub_mask, n * sizeof *rad->sub_mask);
    for (int32_t f = 0; f < rad->face_count; f++)
        h = al_fnv1a(h, rad->faces[f].emission, sizeof rad->faces[f].emission);
    return h;
}

/* Where the parts of a saved state of RAD start, and its size. */
typedef struct state_parts {
    size_t incident, unshot, direct, sent, group_unshot, panel_power, light_shot, sum, total;
    size_t luxels, groups, group_powers, panel_powers, lights; /* sizes of the parts */
} state_parts;

static state_parts state_layout(const al_rad *rad)
{
    state_parts p;
    size_t luxels = (size_t) rad->luxel_count * 3 * sizeof(float);
    p.luxels = luxels;
    p.groups = (size_t) rad->group_count * 3 * sizeof(float);
    p.group_powers = (size_t) rad->group_count * 3 * sizeof(double);
    p.panel_powers = (size_t) rad->panel_count * sizeof(double);
    p.lights = (size_t) rad->light_count;
    /* Doubles first, right after the header (a multiple of 8 bytes), so that a copy in
     * malloc'd memory reads them aligned. */
    p.group_unshot = sizeof(rad_state_header);
    p.panel_power = p.group_unshot + (size_t) rad->group_count * 3 * sizeof(double);
    p.incident = p.panel_power + (size_t) rad->panel_count * sizeof(double);
    p.unshot = p.incident + luxels;
    p.direct = p.unshot + luxels;
    p.sent = p.direct + luxels;
    p.light_shot = p.sent + (size_t) rad->group_count * 3 * sizeof(float);
    p.sum = p.light_shot + (size_t) rad->light_count;
    p.total = p.sum + sizeof(uint64_t);
    return p;
}

al_status al_rad_save(al_rad *rad, void **bytes, size_t *size)
{
    state_parts p = state_layout(rad);
    *bytes = NULL;
    *size = 0;
    unsigned char *out = malloc(p.total);
    if (!out) return AL_ERR_NOMEM;
    rad_state_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, RAD_STATE_MAGIC, sizeof h.magic);
    h.version = RAD_STATE_VERSION;
    h.luxel_count = rad->luxel_count;
    h.group_count = rad->group_count;
    h.panel_count = rad->panel_count;
    h.light_count = rad->light_count;
    h.fingerprint = patch_fingerprint(rad);
    pthread_mutex_lock(&rad->lock);
    if (rad->fix) {
        /* Its light is not yet what its own world gives: nothing to keep. */
        pthread_mutex_unlock(&rad->lock);
        free(out);
        return AL_ERR_INVALID_ARGUMENT;
    }
    h.lights_shot = rad->lights_shot;
    h.shots = rad->shots;
    h.rays = rad->rays;
    h.emitted = rad->emitted;
    h.absorbed = rad->absorbed;
    h.escaped = rad->escaped;
    h.ms = rad->ms;
    memcpy(out + p.incident, rad->incident, p.luxels);
    memcpy(out + p.unshot, rad->unshot, p.luxels);
    memcpy(out + p.direct, rad->direct, p.luxels);
    memcpy(out + p.sent, rad->sent, p.groups);
    memcpy(out + p.group_unshot, rad->group_unshot, p.group_powers);
    memcpy(out + p.panel_power, rad->panel_power, p.panel_powers);
    memcpy(out + p.light_shot, rad->light_shot, p.lights);
    pthread_mutex_unlock(&rad->lock);
    memcpy(out, &h, sizeof h);
    uint64_t sum = al_fnv1a(AL_FNV1A_SEED, out, p.sum);
    memcpy(out + p.sum, &sum, sizeof sum);
    *bytes = out;
    *size = p.total;
    return AL_OK;
}

/* Light levels a solver can hold: finite, and not below LOW. */
static bool floats_within(const void *bytes, size_t n, float low)
{
    const float *v = bytes;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] >= low && v[i] < FLT_MAX)) return false;
    return true;
}

static bool doubles_within(const void *bytes, size_t n, double low)
{
    const double *v = bytes;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] >= low && v[i] < DBL_MAX)) return false;
    return true;
}

al_status al_rad_restore(al_rad *rad, const void *bytes, size_t size)
{
    state_parts p = state_layout(rad);
    const unsigned char *in = bytes;
    if (!bytes || size != p.total) return AL_ERR_CORRUPT;
    uint64_t sum;
    memcpy(&sum, in + p.sum, sizeof sum);
    if (sum != al_fnv1a(AL_FNV1A_SEED, in, p.sum)) return AL_ERR_CORRUPT;
    rad_state_header h;
    memcpy(&h, in, sizeof h);
    if (memcmp(h.magic, RAD_STATE_MAGIC, sizeof h.magic) != 0 ||
        h.version != RAD_STATE_VERSION || h.luxel_count != rad->luxel_count ||
        h.group_count != rad->group_count || h.panel_count != rad->panel_count ||
        h.light_count != rad->light_count ||
        h.lights_shot < 0 || h.lights_shot > rad->light_count || h.shots < 0 || h.rays < 0 ||
        !(h.emitted >= 0 && h.emitted < DBL_MAX) || !(h.absorbed >= 0 && h.absorbed < DBL_MAX) ||
        !isfinite(h.escaped) /* shot less received: may be below 0 by estimation */ ||
        !(h.ms >= 0 && h.ms < DBL_MAX) ||
        h.fingerprint != patch_fingerprint(rad))
        return AL_ERR_CORRUPT;
    /* Everything is checked before anything is taken. The bytes may be unaligned: the
     * checks read copies. */
    unsigned char *copy = malloc(p.total);
    if (!copy) return AL_ERR_NOMEM;
    memcpy(copy, in, p.total);
    size_t luxels = (size_t) rad->luxel_count * 3, groups = (size_t) rad->group_count * 3;
    int32_t shot = 0;
    bool flags_ok = true;
    for (int32_t i = 0; i < rad->light_count; i++) {
        flags_ok &= copy[p.light_shot + i] <= 1;
        shot += copy[p.light_shot + i] == 1;
    }
    bool ok = flags_ok && shot == h.lights_shot &&
              floats_within(copy + p.incident, luxels, -RAD_STATE_SLACK) &&
              floats_within(copy + p.unshot, luxels, -FLT_MAX) &&
              floats_within(copy + p.direct, luxels, -RAD_STATE_SLACK) &&
              floats_within(copy + p.sent, groups, -FLT_MAX) &&
              doubles_within(copy + p.group_unshot, groups, -DBL_MAX) &&
              doubles_within(copy + p.panel_power, (size_t) rad->panel_count, 0);
    if (!ok) {
        free(copy);
        return AL_ERR_CORRUPT;
    }
    pthread_mutex_lock(&rad->lock);
    memcpy(rad->incident, copy + p.incident, p.luxels);
    memcpy(rad->unshot, copy + p.unshot, p.luxels);
    memcpy(rad->direct, copy + p.direct, p.luxels);
    memcpy(rad->sent, copy + p.sent, p.groups);
    memcpy(rad->group_unshot, copy + p.group_unshot, p.group_powers);
    memcpy(rad->panel_power, copy + p.panel_power, p.panel_powers);
    memcpy(rad->light_shot, copy + p.light_shot, p.lights);
    for (int32_t g = 0; g < rad->group_count; g++)
        rad->group_power[g] = power_of(rad->group_unshot[g]);
    rad->lights_shot = h.lights_shot;
    rad->shots = h.shots;
    rad->rays = h.rays;
    rad->emitted = h.emitted;
    rad->absorbed = h.absorbed;
    rad->escaped = h.escaped;
    rad->ms = h.ms;
    al_rad_fix_free(rad->fix);
    rad->fix = NULL;
    pthread_mutex_unlock(&rad->lock);
    atomic_store(&rad->cancel, false);
    free(copy);
    return AL_OK;
}

al_status al_rad_snapshot(al_rad *rad, al_rad_lightmap *out)
{
    memset(out, 0, sizeof *out);
    size_t texels = (size_t) rad->atlas_w * (size_t) rad->atlas_h;
    float (*copy)[3] = malloc(((size_t) rad->luxel_count + 1) * sizeof *copy);
    out->texels = malloc(texels * sizeof *out->texels);
    if (!copy || !out->texels) {
        free(copy);
        free(out->texels);
        out->texels = NULL;
        return AL_ERR_NOMEM;
    }
    al_rad_stats st;
    double unshot[3] = {0, 0, 0};
    pthread_mutex_lock(&rad->lock);
    memcpy(copy, rad->incident, (size_t) rad->luxel_count * sizeof *copy);
    stats_locked(rad, &st);
    if (!rad->options.no_ambient && rad->total_area > 0)
        for (int32_t l = 0; l < rad->luxel_count; l++)
            for (int k = 0; k < 3; k++) unshot[k] += rad->unshot[l][k] * rad->area[l];
    pthread_mutex_unlock(&rad->lock);
    /* Light an edit took away (negative unshot) darkens nothing ahead of its shot. */
    for (int k = 0; k < 3; k++) {
        double r = 1.0 / (1.0 - rad->mean_reflectance[k]);
        out->ambient[k] = rad->total_area > 0 ? fmax(0.0, r * unshot[k] / rad->total_area) : 0;
    }
    for (size_t t = 0; t < texels; t++) {
        int32_t l = rad->texel_luxel[t];
        if (l < 0) {
            out->texels[t][0] = out->texels[t][1] = out->texels[t][2] = 0;
            continue;
        }
        const rad_face *f = &rad->faces[rad->luxel_face[l]];
        for (int k = 0; k < 3; k++) {
            double v = copy[l][k] + out->ambient[k];
            if (rad->floor && v < rad->floor[l][k]) v = rad->floor[l][k];
            v += f->emission[k];
            out->texels[t][k] = (float) (v > 0 ? v : 0);
        }
    }
    free(copy);
    out->width = rad->atlas_w;
    out->height = rad->atlas_h;
    out->shots = st.shots;
    out->residual = st.residual;
    return AL_OK;
}

void al_rad_lightmap_free(al_rad_lightmap *map)
{
    if (!map) return;
    free(map->texels);
    memset(map, 0, sizeof *map);
}

bool al_rad_face(const al_rad *rad, int brush, int face, al_rad_face_map *out)
{
    const al_face_polys *fp = &rad->polys;
    if (brush < 0 || brush >= fp->brush_count) return false;
    for (int k = fp->brush_first[brush]; k < fp->brush_first[brush + 1]; k++) {
        if (fp->faces[k].face != face) continue;
        int32_t fi = rad->face_of_poly[k];
        if (fi < 0 || rad->faces[fi].live == 0) return false;
        const rad_face *f = &rad->faces[fi];
        memset(out, 0, sizeof *out);
        double w = rad->atlas_w, h = rad->atlas_h;
        out->s_axis[f->axis_u] = 1.0 / (f->luxel * w);
        out->s_offset = (-f->u0 / f->luxel + 1 + f->atlas_x) / w;
        out->t_axis[f->axis_v] = 1.0 / (f->luxel * h);
        out->t_offset = (-f->v0 / f->luxel + 1 + f->atlas_y) / h;
        out->s_texel_axis[f->axis_u] = 1.0 / f->luxel;
        out->s_texel_offset = -f->u0 / f->luxel + 1 + f->atlas_x;
        out->t_texel_axis[f->axis_v] = 1.0 / f->luxel;
        out->t_texel_offset = -f->v0 / f->luxel + 1 + f->atlas_y;
        out->x = f->atlas_x;
        out->y = f->atlas_y;
        out->width = f->w + 2;
        out->height = f->h + 2;
        return true;
    }
    return false;
}

void al_rad_atlas_size(const al_rad *rad, int *width, int *height)
{
    *width = rad->atlas_w;
    *height = rad->atlas_h;
}

double al_rad_light_difference(al_rad *a, al_rad *b)
{
    if (a->luxel_count != b->luxel_count) return -1;
    size_t n = (size_t) a->luxel_count;
    float (*copy)[3] = malloc((n + 1) * sizeof *copy);
    if (!copy) return -1;
    pthread_mutex_lock(&a->lock);
    memcpy(copy, a->incident, n * sizeof *copy);
    pthread_mutex_unlock(&a->lock);
    double diff = 0, sum = 0;
    pthread_mutex_lock(&b->lock);
    for (size_t j = 0; j < n; j++)
        for (int c = 0; c < 3; c++) {
            diff += fabs((double) copy[j][c] - b->incident[j][c]) * a->area[j];
            sum += (double) b->incident[j][c] * b->area[j];
        }
    pthread_mutex_unlock(&b->lock);
    free(copy);
    return sum > 0 ? diff / sum : 0;
}

bool al_rad_luxel_get(al_rad *rad, int i, al_rad_luxel *out)
{
    if (i < 0 || i >= rad->luxel_count) return false;
    const rad_face *f = &rad->faces[rad->luxel_face[i]];
    pthread_mutex_lock(&rad->lock);
    for (int k = 0; k < 3; k++) {
        out->point[k] = rad->point[i][k];
        out->normal[k] = rad->normal[i][k];
        out->incident[k] = rad->incident[i][k];
        out->exitance[k] = f->emission[k] + f->reflectance[k] * rad->incident[i][k];
        out->reflectance[k] = f->reflectance[k];
        out->floor[k] = rad->floor ? rad->floor[i][k] : 0;
    }
    pthread_mutex_unlock(&rad->lock);
    out->area = rad->area[i];
    out->brush = f->brush;
    out->face = f->face;
    return true;
}

double al_rad_time_rays(al_rad *rad, int64_t count, uint64_t seed, int64_t *blocked)
{
    *blocked = 0;
    if (rad->luxel_count < 2 || count <= 0) return 0;
    int64_t (*pairs)[2] = malloc((size_t) count * sizeof *pairs);
    if (!pairs) return 0;
    uint64_t s = seed * 2862933555777941757ull + 3037000493ull;
    for (int64_t i = 0; i < count; i++) {
        int32_t a = 0, b = 0;
        for (int tries = 0; tries < 16; tries++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            a = (int32_t) ((s >> 33) % (uint64_t) rad->luxel_count);
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            b = (int32_t) ((s >> 33) % (uint64_t) rad->luxel_count);
            if (a != b && in_row(pvs_row(rad, rad->luxel_cluster[a]), rad->luxel_cluster[b]))
                break;
        }
        pairs[i][0] = a;
        pairs[i][1] = b;
    }
    uint64_t start = al_clock_ns();
    int64_t hits = 0;
    for (int64_t i = 0; i < count; i++)
        hits += !al_rad_ray(rad, rad->point[pairs[i][0]], rad->point[pairs[i][1]], NULL);
    double ns = (double) (al_clock_ns() - start) / (double) count;
    free(pairs);
    *blocked = hits;
    return ns;
}
