/* Oracles for radiosity carried across edits (see rad-check.h). They read the solver's
 * own arrays (rad/rad-internal.h) and evaluate its kernel afresh, pair by pair. */
#include "rad-check.h"

#include "al-live.h"
#include "rad/rad-internal.h"
#include "al-edits.h"
#include "al-vec3.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double rad_check_bounce(al_rad *rad, int stride, int *checked, char *why, size_t size)
{
    const al_vis *vis = rad->world->vis;
    int words = vis && vis->pvs ? vis->row_words : 0;
    rad_shooter *shooters = malloc(((size_t) rad->panel_count + 1) * sizeof *shooters);
    uint64_t *masks = calloc((size_t) (rad->panel_count + 1) * (size_t) (words + 1), sizeof *masks);
    if (!shooters || !masks) {
        free(shooters), free(masks);
        return INFINITY;
    }
    int n = 0;
    for (int32_t p = 0; p < rad->panel_count; p++)
        if (al_rad_shooter_of(rad, p, (const float (*)[3]) rad->sent,
                              masks + (size_t) n * (size_t) (words + 1), &shooters[n]))
            n++;
    double mean = 0;
    for (int32_t j = 0; j < rad->luxel_count; j++)
        mean += (rad->incident[j][0] + rad->incident[j][1] + rad->incident[j][2]) / 3.0;
    mean /= rad->luxel_count > 0 ? rad->luxel_count : 1;
    double worst = 0;
    *checked = 0;
    float want[AL_RAD_GROUP * AL_RAD_GROUP][3];
    for (int32_t g = 0; g < rad->group_count; g += stride) {
        const rad_group *r = &rad->groups[g];
        memset(want, 0, sizeof want);
        rad_gain received = {0};
        for (int s = 0; s < n; s++) {
            float local[AL_RAD_GROUP * AL_RAD_GROUP][3];
            memset(local, 0, sizeof local);
            al_rad_panel_onto(rad, r, &shooters[s], local, &received);
            for (int k = 0; k < r->luxel_count; k++)
                for (int c = 0; c < 3; c++) want[k][c] += local[k][c];
        }
        for (int k = 0; k < r->luxel_count; k++) {
            int32_t j = rad->group_luxels[r->first_luxel + k];
            for (int c = 0; c < 3; c++) {
                double got = (double) rad->incident[j][c] - rad->direct[j][c];
                double d = fabs(got - want[k][c]) / (mean > 0 ? mean : 1);
                if (d > worst) {
                    worst = d;
                    snprintf(why, size, "luxel %d at (%.1f %.1f %.1f) channel %d: bounced %g, "
                             "gathered %g (mean incident %g)", j, rad->point[j][0],
                             rad->point[j][1], rad->point[j][2], c, got, want[k][c], mean);
                }
            }
            (*checked)++;
        }
    }
    free(shooters), free(masks);
    return worst;
}

/* FRESH's direct light on luxel J with no PVS pruning: only rays decide. */
static void direct_unpruned(const al_rad *fresh, int32_t j, double out[3])
{
    double extent = al_rad_sun_reach(fresh);
    out[0] = out[1] = out[2] = 0;
    for (int32_t m = 0; m < fresh->light_count; m++) {
        if (!fresh->light_shot[m]) continue;
        float add[3];
        al_rad_light_at(fresh, &fresh->lights[m], NULL, j, extent, false, add);
        for (int c = 0; c < 3; c++) out[c] += add[c];
    }
}

double rad_check_direct(const al_rad *rad, const al_rad *fresh, int *ties, char *why, size_t size)
{
    long long compared, exact;
    return rad_check_direct_where(rad, fresh, NULL, 0, ties, &compared, &exact, why, size);
}

double rad_check_direct_where(const al_rad *rad, const al_rad *fresh, const unsigned char *only,
                              int want, int *ties, long long *compared, long long *exact, char *why,
                              size_t size)
{
    *ties = 0;
    *compared = *exact = 0;
    if (rad->luxel_count != fresh->luxel_count) {
        snprintf(why, size, "%d luxels against %d", rad->luxel_count, fresh->luxel_count);
        return INFINITY;
    }
    double mean = 0, worst = 0;
    for (int32_t j = 0; j < fresh->luxel_count; j++)
        mean += (fresh->direct[j][0] + fresh->direct[j][1] + fresh->direct[j][2]) / 3.0;
    mean /= fresh->luxel_count > 0 ? fresh->luxel_count : 1;
    double scale = mean > 0 ? mean : 1;
    for (int32_t j = 0; j < fresh->luxel_count; j++) {
        if (only && only[j] != want) continue;
        (*compared)++;
        *exact += memcmp(rad->direct[j], fresh->direct[j], sizeof rad->direct[j]) == 0;
        double d = 0;
        int channel = 0;
        for (int c = 0; c < 3; c++) {
            double e = fabs((double) rad->direct[j][c] - fresh->direct[j][c]) / scale;
            if (e > d) d = e, channel = c;
        }
        if (d < 1e-4) continue;
        /* A ray that passes where the PVS says the leaves cannot see each other touches a
         * surface exactly (an edge two brushes share, say): the light trees let it through,
         * the portals have no opening there. Either answer is right for such a ray; the
         * carried light may hold the other one. */
        double unpruned[3];
        direct_unpruned(fresh, j, unpruned);
        bool tie = true;
        for (int c = 0; c < 3; c++)
            tie &= fabs((double) rad->direct[j][c] - unpruned[c]) / scale < 1e-4;
        if (tie) {
            (*ties)++;
            continue;
        }
        if (d > worst) {
            worst = d;
            snprintf(why, size, "luxel %d at (%.1f %.1f %.1f): direct %g, anew %g", j,
                     rad->point[j][0], rad->point[j][1], rad->point[j][2],
                     rad->direct[j][channel], fresh->direct[j][channel]);
        }
    }
    return worst;
}

double rad_check_books(al_rad *rad, char *why, size_t size)
{
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    double sum = st.absorbed + st.escaped + st.unshot;
    snprintf(why, size, "absorbed %g + escaped %g + unshot %g = %g, emitted %g", st.absorbed,
             st.escaped, st.unshot, sum, st.emitted);
    return st.emitted > 0 ? fabs(sum - st.emitted) / st.emitted : fabs(sum);
}

al_status rad_check_fresh(const al_rad *rad, al_rad **out)
{
    return al_rad_create(rad->world, rad->input, &rad->options, out, NULL);
}

int rad_check_stride(const al_rad *rad, int groups)
{
    return groups > 0 ? rad->group_count / groups + 1 : 1;
}

void rad_check_edits(const al_input *input, const al_world *world, const al_rad_options *o,
                     double residual, int edits, uint64_t seed, int groups, rad_edit_report *out)
{
    memset(out, 0, sizeof *out);
    al_rad *rad = NULL;
    al_edit_input e;
    if (al_rad_create(world, input, o, &rad, NULL) != AL_OK || !al_edit_input_init(&e, input)) {
        al_rad_destroy(rad);
        out->failed = 1;
        return;
    }
    al_rad_run(rad, residual, 0, NULL, NULL);
    al_rng rng = {seed};
    al_world **worlds = calloc((size_t) edits + 1, sizeof *worlds);
    al_input **inputs = calloc((size_t) edits + 1, sizeof *inputs);
    const al_world *prev = world;
    /* Every other edit comes before the last one's corrections were made, as a designer's
     * next edit often does: its update starts from that solver's base, and takes the
     * direct light, the layout and the dirt from that solver (rad/update.c). HELD is then
     * the base, kept until the chained update's corrections are made. */
    al_rad *held = NULL;
    for (int i = 0; worlds && inputs && i < edits; i++) {
        al_edit edit;
        al_compile_options co = {.pvs = AL_PVS_COARSE};
        al_rad *next = NULL, *fresh = NULL;
        if (!al_edit_random(&e, &rng, 8, &edit) || !(inputs[i] = al_input_clone(&e.input)) ||
            al_world_update(prev, inputs[i], &co, &worlds[i], NULL) != AL_OK ||
            al_rad_update(rad, worlds[i], inputs[i], o, &next, NULL) != AL_OK ||
            al_rad_create(worlds[i], inputs[i], o, &fresh, NULL) != AL_OK) {
            al_rad_destroy(next);
            out->failed++;
            break;
        }
        prev = worlds[i];
        out->edits++;
        al_rad_stats st;
        al_rad_get_stats(next, &st);
        out->corrections += st.corrections_left;
        al_rad_step(fresh, st.lights_shot);
        char why[256] = "";
        int ties = 0, checked = 0;
        /* The coarse luxels (lit at their sample point alone) and the others. */
        const int32_t *coarse = NULL;
        int32_t coarse_count = al_rad_coarse_luxels(next, &coarse);
        unsigned char *only = calloc((size_t) next->luxel_count + 1, 1);
        if (!only) {
            al_rad_destroy(fresh);
            al_rad_destroy(next);
            out->failed++;
            break;
        }
        for (int32_t k = 0; k < coarse_count; k++) only[coarse[k]] = 1;
        long long compared, exact;
        double d =
            rad_check_direct_where(next, fresh, only, 0, &ties, &compared, &exact, why, sizeof why);
        if (d > out->worst_direct) {
            out->worst_direct = d;
            snprintf(out->why, sizeof out->why, "edit %d (%s), direct: %s", i,
                     al_edit_kind_name(edit.kind), why);
        }
        out->ties += ties;
        if (coarse_count > 0) {
            al_rad_options once = *o;
            once.extra_samples = 1;
            al_rad *fresh1 = NULL;
            if (al_rad_create(worlds[i], inputs[i], &once, &fresh1, NULL) != AL_OK) {
                free(only);
                al_rad_destroy(fresh);
                al_rad_destroy(next);
                out->failed++;
                break;
            }
            al_rad_step(fresh1, st.lights_shot);
            double c = rad_check_direct_where(next, fresh1, only, 1, &ties, &compared, &exact, why,
                                              sizeof why);
            if (c > out->worst_coarse) {
                out->worst_coarse = c;
                snprintf(out->why, sizeof out->why, "edit %d (%s), coarse: %s", i,
                         al_edit_kind_name(edit.kind), why);
            }
            out->ties += ties;
            out->coarse_luxels += compared;
            out->coarse_exact += exact;
            out->edits_with_coarse++;
            al_rad_destroy(fresh1);
        }
        free(only);
        out->luxels += st.patches;
        /* Copied luxels take their vis leaf from a table of the blocks both worlds share:
         * the leaf a new solver finds by walking the trees. */
        if (next->luxel_count == fresh->luxel_count)
            for (int32_t j = 0; j < next->luxel_count; j++)
                out->clusters_off += next->luxel_cluster[j] != fresh->luxel_cluster[j];
        if (i % 2 == 0 && i + 1 < edits) {
            /* Left uncorrected for the next edit (its direct light, layout and leaves were
             * checked above; its reflected light is checked through the next one's). */
            al_rad_destroy(fresh);
            held = rad;
            rad = next;
            continue;
        }
        rad_check_finish_corrections(next);
        if (coarse_count > 0) {
            /* Refined: every luxel as a new solver gives it (which shoots any light the
             * steps shot meanwhile, in the same order). */
            al_rad_stats now;
            al_rad_get_stats(next, &now);
            if (now.lights_shot > st.lights_shot)
                al_rad_step(fresh, now.lights_shot - st.lights_shot);
            double r = rad_check_direct(next, fresh, &ties, why, sizeof why);
            if (r > out->worst_refined) {
                out->worst_refined = r;
                snprintf(out->why, sizeof out->why, "edit %d (%s), refined: %s", i,
                         al_edit_kind_name(edit.kind), why);
            }
            out->ties += ties;
        }
        double b = rad_check_bounce(next, rad_check_stride(next, groups), &checked, why, sizeof why);
        if (b > out->worst_bounce) {
            out->worst_bounce = b;
            if (b > out->worst_direct)
                snprintf(out->why, sizeof out->why, "edit %d (%s), bounced: %s", i,
                         al_edit_kind_name(edit.kind), why);
        }
        out->checked += checked;
        out->books_off += rad_check_books(next, why, sizeof why) > 1e-5;
        al_rad_destroy(fresh);
        al_rad_destroy(rad);
        al_rad_destroy(held); /* NEXT's corrections are made: its base is no longer read */
        held = NULL;
        rad = next;
        al_rad_step(rad, 16);
    }
    al_rad_destroy(rad);
    al_rad_destroy(held);
    for (int i = 0; worlds && inputs && i < edits; i++) {
        al_world_destroy(worlds[i]);
        free(inputs[i]);
    }
    free(worlds);
    free(inputs);
    al_edit_input_free(&e);
}

void rad_check_finish_corrections(al_rad *rad)
{
    al_rad_stats st;
    for (;;) {
        al_rad_get_stats(rad, &st);
        if (st.corrections_left == 0 || al_rad_step(rad, 1) == 0) break;
    }
}

int64_t rad_check_sky_gate(const al_rad *rad, int64_t *gated, int64_t *rays, char *why, size_t size)
{
    *gated = *rays = 0;
    int64_t wrong = 0;
    double extent = al_rad_sun_reach(rad);
    rad_point p[AL_RAD_MAX_SAMPLES];
    for (int32_t j = 0; j < rad->luxel_count; j++) {
        if (al_rad_may_see_sky(rad, rad->luxel_cluster[j])) continue;
        (*gated)++;
        int n = al_rad_luxel_samples(rad, j, p);
        for (int32_t m = 0; m < rad->light_count; m++) {
            const rad_light *l = &rad->lights[m];
            if (l->kind != RAD_SUN) continue;
            for (int k = 0; k < n; k++) {
                if (-al_dot(p[k].n, l->dir) <= 0) continue;
                double far[3];
                al_madd(p[k].from, l->dir, -extent, far);
                bool sky = false;
                (*rays)++;
                if (al_rad_ray(rad, p[k].from, far, &sky) && sky && wrong++ == 0)
                    snprintf(why, size,
                             "luxel %d (vis leaf %d) at (%.1f %.1f %.1f): sun %d reaches sky", j,
                             rad->luxel_cluster[j], p[k].from[0], p[k].from[1], p[k].from[2], m);
            }
        }
    }
    return wrong;
}
