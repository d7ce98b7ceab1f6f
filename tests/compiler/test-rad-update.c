/* Radiosity across edits (al_rad_update): the light carried over and corrected must be the
 * light a solver of the edited map holds for what was shot, checked against oracles that
 * recompute it from nothing:
 *   - direct light against a new solver of the edited map that shoots every light;
 *   - bounced light against a gather, through the kernel in the edited world, of what
 *     every panel has sent (the state's own definition, computed anew for every luxel);
 *   - run on to a small residual, against a new solver of the edited map run alike.
 */
#include <pthread.h>
#include <time.h>

#include "al-clock.h"
#include "al-live.h"
#include "al-rad.h"
#include "check.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "rad-check.h"
#include "rad/rad-internal.h"
#include "scene.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- scenes ------------------------------------------------------------------------- */

/* A long room with a pillar at PILLAR_X (none if below 0), a crate, and two lights; the
 * second light at LIGHT_X. Bright walls, so that bounces matter. */
static bool dirty_rooms; /* load_room: worldspawn "_dirt" "1" (dirt.c) */

static bool load_room(scene *s, double pillar_x, double light_x)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    if (dirty_rooms) mapgen_key(g, "_dirt", "1");
    mapgen_room(g, 0, 0, 0, 512, 256, 160, 16, "stone");
    if (pillar_x >= 0) mapgen_box(g, pillar_x, 96, 0, pillar_x + 32, 160, 160, "stone");
    mapgen_box(g, 400, 40, 0, 448, 88, 48, "crate");
    mapgen_end_entity(g);
    mapgen_light(g, 64, 128, 120, "300");
    mapgen_light(g, light_x, 200, 100, "250");
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    if (!scene_load_mapgen(s, g, &o)) return false;
    for (int m = 0; m < s->input.input.material_count; m++) {
        al_material_desc *md = &s->input.materials[m];
        md->colour[0] = md->colour[1] = md->colour[2] = 0.8f;
        md->reflectance = 0.6f;
    }
    return true;
}

static void check_books(al_rad *rad, const char *when)
{
    char why[200];
    CHECK_MSG(rad_check_books(rad, why, sizeof why) <= 1e-5, "%s: %s", when, why);
}

/* --- tests -------------------------------------------------------------------------- */

CHECK_TEST(sent_is_what_arrived, "/rad/update/a-solvers-bounced-light-is-the-kernel-times-what-was-sent")
{
    scene s;
    REQUIRE(load_room(&s, 200, 380));
    al_rad *rad;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 2 + 60);
    int checked;
    char why[256] = "";
    double worst = rad_check_bounce(rad, 1, &checked, why, sizeof why);
    CHECK_MSG(checked > 500 && worst < 1e-3, "%d luxels, worst %.2e: %s", checked, worst, why);
    check_note("%d luxels checked, worst difference %.2e of the mean", checked, worst);
    al_rad_destroy(rad);
    scene_free(&s);
}

CHECK_TEST(unchanged, "/rad/update/an-unchanged-map-keeps-its-light-and-needs-no-corrections")
{
    scene s, again;
    REQUIRE(load_room(&s, 200, 380));
    REQUIRE(load_room(&again, 200, 380));
    al_rad *rad, *next;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 2 + 40);
    REQUIRE(al_rad_update(rad, again.world, &again.input.input, NULL, &next, NULL) == AL_OK);
    al_rad_stats a, b;
    al_rad_get_stats(rad, &a);
    al_rad_get_stats(next, &b);
    CHECK(b.corrections_left == 0 && al_rad_base(next) == NULL);
    CHECK(a.shots == b.shots && b.direct_done);
    CHECK_MSG(fabs(a.residual - b.residual) < 1e-9 && fabs(a.emitted - b.emitted) < 1e-6 * a.emitted,
              "residual %g / %g, emitted %g / %g", a.residual, b.residual, a.emitted, b.emitted);
    CHECK(memcmp(rad->incident, next->incident, (size_t) rad->luxel_count * sizeof rad->incident[0]) == 0);
    CHECK(memcmp(rad->sent, next->sent, (size_t) rad->group_count * sizeof rad->sent[0]) == 0);
    check_books(next, "unchanged");
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&again);
}

/* The core oracle: after a pillar moves, the corrected solver's direct light is a new
 * solver's, and its bounced light is the kernel of the new world times what was sent. */
static void check_edit(double pillar_from, double pillar_to, double light_from, double light_to,
                       int panels_shot, const char *what)
{
    scene s, t;
    REQUIRE(load_room(&s, pillar_from, light_from));
    REQUIRE(load_room(&t, pillar_to, light_to));
    al_rad *rad, *next, *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 2 + panels_shot);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, NULL, &next, NULL) == AL_OK);
    REQUIRE(al_rad_create(t.world, &t.input.input, NULL, &fresh, NULL) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    /* Lights that stayed are in; a moved light is a new one, left to shoot. */
    al_rad_step(fresh, st.lights_shot);
    al_rad_stats fs;
    al_rad_get_stats(fresh, &fs);
    CHECK_MSG(fs.lights_shot == st.lights_shot, "%s: %d lights shot, %d anew", what,
              st.lights_shot, fs.lights_shot);
    char why[256] = "";
    int ties;
    double d = rad_check_direct(next, fresh, &ties, why, sizeof why);
    CHECK_MSG(d < 1e-4 && ties == 0, "%s: direct light off by %.2e (%d ties): %s", what, d, ties,
              why);
    CHECK_MSG(panels_shot == 0 || st.corrections_left > 0 || al_rad_base(next) == NULL,
              "%s: corrections", what);
    check_books(next, what);
    rad_check_finish_corrections(next);
    CHECK(al_rad_base(next) == NULL);
    int checked;
    double worst = rad_check_bounce(next, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < 1e-3, "%s: bounced light off by %.2e of the mean (%d luxels): %s", what,
              worst, checked, why);
    check_books(next, what);
    check_note("%s: %lld corrections, direct %.1e, bounced %.1e of the mean (%d luxels)", what,
               (long long) st.corrections_left, d, worst, checked);
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

CHECK_TEST(pillar_moved, "/rad/update/a-moved-pillar-gives-the-light-of-the-new-world-for-what-was-shot")
{
    check_edit(200, 232, 380, 380, 60, "pillar moved");
}

CHECK_TEST(pillar_moved_dirt,
           "/rad/update/with-dirt-luxels-whose-occlusion-an-edit-changed-are-lit-anew")
{
    /* The pillar's move changes the occlusion of the floor and walls near both places it
     * stood: their direct light must be a new solver's though no light's ray crosses it. */
    dirty_rooms = true;
    check_edit(200, 232, 380, 380, 60, "pillar moved, with dirt");
    dirty_rooms = false;
}

/* Whether every luxel's occlusion in NEXT (an update) is what FRESH (a new solver of the
 * same world) finds; WHAT names the case. */
static bool occlusion_as_new(const al_rad *next, const al_rad *fresh, const char *what)
{
    if (!next->occlusion || !fresh->occlusion || next->luxel_count != fresh->luxel_count) {
        CHECK_MSG(false, "%s: occlusion of %d luxels against %d", what,
                  next->occlusion ? next->luxel_count : 0,
                  fresh->occlusion ? fresh->luxel_count : 0);
        return false;
    }
    int differ = 0, occluded = 0, first = -1;
    for (int32_t j = 0; j < fresh->luxel_count; j++) {
        if (fabsf(next->occlusion[j] - fresh->occlusion[j]) > 1e-6f && differ++ == 0) first = j;
        occluded += fresh->occlusion[j] > 0;
    }
    CHECK_MSG(differ == 0, "%s: %d of %d luxels' occlusion differ, first %d: %g against %g", what,
              differ, fresh->luxel_count, first, first >= 0 ? next->occlusion[first] : 0,
              first >= 0 ? fresh->occlusion[first] : 0);
    CHECK_MSG(occluded > 0, "%s: no luxel is occluded at all", what);
    return differ == 0 && occluded > 0;
}

CHECK_TEST(dirt_occlusion,
           "/rad/update/with-dirt-the-occlusion-carried-across-an-edit-is-a-new-solvers")
{
    /* Luxels near the edit whose dirt rays all miss it keep the occlusion of the solver
     * before (dirt.c); every luxel's must be what a new solver of the edited map finds. */
    dirty_rooms = true;
    scene s, t;
    REQUIRE(load_room(&s, 200, 380));
    REQUIRE(load_room(&t, 232, 380));
    dirty_rooms = false;
    al_rad *rad, *next, *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, NULL, &next, NULL) == AL_OK);
    REQUIRE(al_rad_create(t.world, &t.input.input, NULL, &fresh, NULL) == AL_OK);
    occlusion_as_new(next, fresh, "one move");
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

CHECK_TEST(cancelled, "/rad/update/a-cancelled-update-makes-no-solver-and-leaves-the-last-alone")
{
    scene s, t;
    REQUIRE(load_room(&s, 200, 380));
    REQUIRE(load_room(&t, 232, 380));
    al_rad *rad, *next = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 10);
    al_rad_stats before, after;
    al_rad_get_stats(rad, &before);
    int cancel = 1;
    al_rad_options o = {.cancel = &cancel};
    CHECK(al_rad_update(rad, t.world, &t.input.input, &o, &next, NULL) == AL_ERR_CANCELLED);
    CHECK(next == NULL);
    al_rad_get_stats(rad, &after);
    CHECK(after.shots == before.shots && after.residual == before.residual);
    /* Not cancelled, the same call corrects as ever. */
    cancel = 0;
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, &o, &next, NULL) == AL_OK);
    CHECK(next != NULL);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

/* Cancels SOLVER after DELAY microseconds (a thread). */
typedef struct canceller {
    al_rad *rad;
    int delay_us;
    uint64_t at_ns; /* when it cancelled */
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    struct timespec t = {0, (long) c->delay_us * 1000};
    nanosleep(&t, NULL);
    __atomic_store_n(&c->at_ns, al_clock_ns(), __ATOMIC_RELEASE);
    al_rad_cancel(c->rad);
    return NULL;
}

/* The room's solver shot a little, then updated for its pillar moved (S, T: the two
 * worlds; RAD, NEXT: the solvers). */
static bool pillar_moved_update(const al_rad_options *o, scene *s, scene *t, al_rad **rad,
                                al_rad **next)
{
    if (!load_room(s, 200, 380) || !load_room(t, 264, 380)) return false;
    if (al_rad_create(s->world, &s->input.input, o, rad, NULL) != AL_OK) return false;
    al_rad_step(*rad, 2 + 80);
    return al_rad_update(*rad, t->world, &t->input.input, o, next, NULL) == AL_OK;
}

/* The engine cancels a correction step when an edit comes; the step's panels (or coarse
 * luxels, with extra samples O) are dropped and done again later. Cancelled at moments from
 * before the step to after it, the corrections must still end with the kernel's light, a new
 * solver's direct light and balanced books. */
static void cancel_corrections(const al_rad_options *o)
{
    scene s, t;
    al_rad *rad, *next;
    REQUIRE(pillar_moved_update(o, &s, &t, &rad, &next));
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    int64_t total = st.corrections_left, coarse = st.coarse_left;
    REQUIRE(total > 0);
    CHECK_MSG((coarse > 0) == (o && o->extra_samples > 1), "%lld luxels lit once first",
              (long long) coarse);
    int dropped = 0, steps = 0;
    double worst_wait_ms = 0;
    for (int delay = 0; st.corrections_left > 0 && steps < 10000; delay = (delay + 37) % 3000) {
        /* Every eighth step runs without a cancel, so that a slow build (ThreadSanitizer:
         * steps longer than the 3 ms the cancels come within) still gets done. */
        bool quiet = steps % 8 == 7;
        canceller c = {next, delay};
        pthread_t thread;
        if (!quiet) REQUIRE(pthread_create(&thread, NULL, cancel_later, &c) == 0);
        int64_t before = st.corrections_left;
        al_rad_step(next, 1);
        uint64_t returned = al_clock_ns(), at = __atomic_load_n(&c.at_ns, __ATOMIC_ACQUIRE);
        /* How long a cancel that came during the step waited for it to return. */
        if (at && returned > at)
            worst_wait_ms = fmax(worst_wait_ms, (double) (returned - at) / 1e6);
        if (!quiet) pthread_join(thread, NULL);
        al_rad_resume(next);
        al_rad_get_stats(next, &st);
        dropped += st.corrections_left == before;
        steps++;
        char why[256] = "";
        double off = rad_check_books(next, why, sizeof why);
        CHECK_MSG(off <= 1e-5, "books off by %.2e after step %d: %s", off, steps, why);
        if (off > 1e-5) break;
    }
    CHECK_MSG(st.corrections_left == 0, "%lld corrections left after %d steps",
              (long long) st.corrections_left, steps);
    CHECK_MSG(dropped > 0, "no step of %d was cancelled", steps);
    int checked, ties;
    char why[256] = "";
    double worst = rad_check_bounce(next, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < 1e-3, "bounced light off by %.2e of the mean: %s", worst, why);
    al_rad *fresh;
    REQUIRE(rad_check_fresh(next, &fresh) == AL_OK);
    al_rad_step(fresh, st.lights_shot);
    double direct = rad_check_direct(next, fresh, &ties, why, sizeof why);
    CHECK_MSG(direct < 1e-4 && ties == 0, "direct light off by %.2e (%d ties): %s", direct, ties,
              why);
    check_note("%lld corrections (%lld luxels lit once first) in %d steps, %d of them cancelled "
               "and dropped; bounced light off by %.1e of the mean, direct %.1e; a cancel "
               "waited at most %.2f ms",
               (long long) total, (long long) coarse, steps, dropped, worst, direct, worst_wait_ms);
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

CHECK_TEST(corrections_cancelled,
           "/rad/update/corrections-cancelled-at-any-moment-drop-their-step-and-end-exact")
{
    cancel_corrections(NULL);
}

CHECK_TEST(refinement_cancelled,
           "/rad/update/luxels-lit-once-first-are-refined-exactly-however-steps-are-cancelled")
{
    cancel_corrections(&(al_rad_options){.extra_samples = 2});
}

CHECK_TEST(tree_build_cancelled,
           "/rad/update/a-cancel-stops-the-receivers-tree-build-and-a-later-step-builds-it")
{
    /* The first correction step builds the receivers' tree, a step no panel check
     * interrupts: a cancel that is there when it starts leaves no tree (and no correction
     * made), and the steps after the resume build it and end with the kernel's light. */
    scene s, t;
    al_rad *rad, *next;
    REQUIRE(pillar_moved_update(NULL, &s, &t, &rad, &next));
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    int64_t total = st.corrections_left;
    REQUIRE(total > 0 && !al_rad_fix_has_tree(next));
    REQUIRE(next->group_count >= 64); /* the build looks for a cancel at its root */
    al_rad_cancel(next);
    CHECK(al_rad_fix_step(next) == 0);
    CHECK_MSG(!al_rad_fix_has_tree(next), "a tree was left after the cancel");
    al_rad_get_stats(next, &st);
    CHECK(st.corrections_left == total);
    al_rad_resume(next);
    for (int steps = 0; st.corrections_left > 0 && steps < 1000; steps++) {
        al_rad_step(next, 1);
        al_rad_get_stats(next, &st);
    }
    CHECK_MSG(st.corrections_left == 0, "%lld corrections left", (long long) st.corrections_left);
    char why[256] = "";
    int checked;
    double worst = rad_check_bounce(next, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < 1e-3, "bounced light off by %.2e of the mean: %s", worst, why);
    double off = rad_check_books(next, why, sizeof why);
    CHECK_MSG(off <= 1e-5, "books off by %.2e: %s", off, why);
    check_note("%lld corrections over %d groups; bounced light off by %.1e of the mean",
               (long long) total, (int) next->group_count, worst);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

CHECK_TEST(pillar_added, "/rad/update/an-added-and-a-removed-pillar-are-corrected-alike")
{
    check_edit(-1, 200, 380, 380, 60, "pillar added");
    check_edit(200, -1, 380, 380, 60, "pillar removed");
}

CHECK_TEST(light_moved, "/rad/update/a-moved-light-takes-its-light-back-and-is-shot-anew")
{
    check_edit(200, 200, 380, 300, 40, "light moved");
    check_edit(200, 232, 380, 300, 0, "direct light only");
}

/* A hall of two halves (floor, ceiling and side walls each cut at x = 512) with a pool of
 * water under a light in the near half; liquids block sight ("_allium_opaque_liquids"),
 * not light. OPEN leaves out the wall at the far end, which lets the void in. */
static bool load_hall(scene *s, bool open)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_allium_opaque_liquids", "1");
    for (int h = 0; h < 2; h++) {
        double x0 = h ? 512 : -16, x1 = h ? 1040 : 512;
        mapgen_box(g, x0, -16, -16, x1, 272, 0, "stone");
        mapgen_box(g, x0, -16, 192, x1, 272, 208, "stone");
        mapgen_box(g, x0, -16, 0, x1, 0, 192, "stone");
        mapgen_box(g, x0, 256, 0, x1, 272, 192, "stone");
    }
    mapgen_box(g, -16, 0, 0, 0, 256, 192, "stone");
    if (!open) mapgen_box(g, 1024, 0, 0, 1040, 256, 192, "stone");
    mapgen_box(g, 64, 32, 0, 320, 224, 64, "*water1");
    mapgen_end_entity(g);
    mapgen_light(g, 192, 128, 160, "300");
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_COARSE};
    if (!scene_load_mapgen(s, g, &o)) return false;
    for (int m = 0; m < s->input.input.material_count; m++) {
        al_material_desc *md = &s->input.materials[m];
        md->colour[0] = md->colour[1] = md->colour[2] = 0.8f;
        md->reflectance = 0.6f;
    }
    /* As the engine builds it: a leaking map gets no PVS. */
    al_vis_options vo = {.level = AL_PVS_COARSE, .no_pvs_if_leaking = true};
    return al_world_build_vis_with(s->world, &s->input.input, &vo) == AL_OK;
}

/* The light and the kernel have a gate besides their rays: the PVS. Where liquids block
 * sight, the pool's floor is out of the PVS of the air above it, though light reaches it
 * through the water. Opening the far end lets the void in, and the map, leaking, has no
 * PVS: the gate opens everywhere, the pool's floor included, 700 units from the wall that
 * went, whose box no ray to the pool crosses. The carried light must be the new world's
 * there too. */
static void check_gate_opened(const al_rad_options *opts)
{
    scene s, t;
    REQUIRE(load_hall(&s, false));
    REQUIRE(load_hall(&t, true));
    /* The class: sealed with a PVS, then leaking without one. */
    REQUIRE(s.world->vis && s.world->vis->leak_entity < 0 && s.world->vis->pvs);
    REQUIRE(t.world->vis && t.world->vis->leak_entity >= 0 && !t.world->vis->pvs);
    al_rad *rad, *next, *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, opts, &rad, NULL) == AL_OK);
    al_rad_step(rad, 1 + 60);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, opts, &next, NULL) == AL_OK);
    REQUIRE(al_rad_create(t.world, &t.input.input, opts, &fresh, NULL) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    al_rad_step(fresh, st.lights_shot);
    /* The pool's floor is dark before and lit after: what the test is about. */
    int dark_then_lit = 0;
    for (int32_t j = 0; j < fresh->luxel_count; j++) {
        const double *p = fresh->point[j];
        if (p[2] > 2 || p[0] < 64 || p[0] > 320 || p[1] < 32 || p[1] > 224) continue;
        for (int32_t i = 0; i < rad->luxel_count; i++)
            if (memcmp(rad->point[i], p, sizeof rad->point[i]) == 0 && rad->direct[i][0] == 0 &&
                fresh->direct[j][0] > 0)
                dark_then_lit++;
    }
    CHECK_MSG(dark_then_lit > 10, "%d luxels of the pool's floor lit only in the new world",
              dark_then_lit);
    char why[256] = "";
    int ties;
    /* With several samples the first frame lit the changed luxels at one point: their
     * direct light is the fresh one's once the first steps refined them. */
    bool refined_later = opts && opts->extra_samples > 1;
    if (refined_later) rad_check_finish_corrections(next);
    double d = rad_check_direct(next, fresh, &ties, why, sizeof why);
    CHECK_MSG(d < 1e-4 && ties == 0, "direct light off by %.2e (%d ties): %s", d, ties, why);
    if (!refined_later) rad_check_finish_corrections(next);
    int checked;
    double worst = rad_check_bounce(next, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < 1e-3, "bounced light off by %.2e of the mean (%d luxels): %s", worst, checked,
              why);
    check_books(next, "gate opened");
    check_note("%d luxels of the pool's floor lit only after; direct %.1e, bounced %.1e of "
               "the mean (%d luxels)",
               dark_then_lit, d, worst, checked);
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

CHECK_TEST(gate_opened,
           "/rad/update/light-a-pvs-change-lets-through-far-from-the-edit-is-corrected")
{
    check_gate_opened(NULL);
}

CHECK_TEST(gate_opened_extra,
           "/rad/update/light-a-pvs-change-lets-through-is-corrected-with-samples-lit-once-first")
{
    check_gate_opened(&(al_rad_options){.extra_samples = 2});
}

CHECK_TEST(chained, "/rad/update/an-update-before-the-last-was-corrected-starts-from-its-base")
{
    scene s, t, u;
    REQUIRE(load_room(&s, 200, 380));
    REQUIRE(load_room(&t, 232, 380));
    REQUIRE(load_room(&u, 264, 380));
    al_rad *rad, *mid, *last;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 2 + 60);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, NULL, &mid, NULL) == AL_OK);
    CHECK(al_rad_base(mid) == rad);
    /* Its light is not yet its world's: it cannot be stored. */
    void *bytes = NULL;
    size_t size = 0;
    CHECK(al_rad_save(mid, &bytes, &size) == AL_ERR_INVALID_ARGUMENT && bytes == NULL);
    REQUIRE(al_rad_update(mid, u.world, &u.input.input, NULL, &last, NULL) == AL_OK);
    CHECK(al_rad_base(last) == rad);
    al_rad_destroy(mid); /* not needed by LAST */
    rad_check_finish_corrections(last);
    CHECK(al_rad_base(last) == NULL);
    int checked;
    char why[256] = "";
    double worst = rad_check_bounce(last, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < 1e-3, "bounced light off by %.2e: %s", worst, why);
    CHECK(al_rad_save(last, &bytes, &size) == AL_OK);
    free(bytes);
    al_rad_destroy(last);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
    scene_free(&u);
}

/* NEXT, an update to world W of input IN (solver options O), against a new solver there:
 * its direct light within DIRECT of the mean, then, its corrections done, its reflected
 * light within BOUNCE of the kernel's, its books balanced throughout. */
static void check_against_new(al_rad *next, const al_world *w, const al_input *in,
                              const al_rad_options *o, double direct, double bounce,
                              const char *what)
{
    al_rad *fresh;
    REQUIRE(al_rad_create(w, in, o, &fresh, NULL) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    al_rad_step(fresh, st.lights_shot);
    char why[256] = "";
    int ties;
    double d = rad_check_direct(next, fresh, &ties, why, sizeof why);
    CHECK_MSG(d < direct && ties == 0, "%s: direct light off by %.2e (%d ties): %s", what, d, ties,
              why);
    check_books(next, what);
    rad_check_finish_corrections(next);
    int checked;
    double worst = rad_check_bounce(next, 1, &checked, why, sizeof why);
    CHECK_MSG(worst < bounce, "%s: bounced light off by %.2e of the mean (%d luxels): %s", what,
              worst, checked, why);
    check_books(next, what);
    check_note("%s: direct %.1e, bounced %.1e of the mean", what, d, worst);
    al_rad_destroy(fresh);
}

/* The pillar moves far (100 to 260), then a little (to 300), the second update before the
 * first was corrected; with DIRT in rooms with "_dirt". The second update takes from the
 * first its direct light (corrected for the second move alone: the first move's shadow is
 * already there), and its layout and occlusion (only what changed since it is laid out and
 * occluded again); the reflected light goes on from the base for both. Its occlusion and
 * direct light must be a new solver's, near the first move too, and its reflected light,
 * once corrected, the kernel's. */
static void check_chained(bool dirt, const char *what)
{
    dirty_rooms = dirt;
    scene s, t, u;
    bool loaded = load_room(&s, 100, 380) && load_room(&t, 260, 380) && load_room(&u, 300, 380);
    dirty_rooms = false;
    REQUIRE(loaded);
    al_rad *rad, *mid, *last, *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 2 + 60);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, NULL, &mid, NULL) == AL_OK);
    REQUIRE(al_rad_base(mid) == rad);
    REQUIRE(al_rad_update(mid, u.world, &u.input.input, NULL, &last, NULL) == AL_OK);
    CHECK(al_rad_base(last) == rad);
    al_rad_destroy(mid);
    if (dirt) {
        REQUIRE(al_rad_create(u.world, &u.input.input, NULL, &fresh, NULL) == AL_OK);
        occlusion_as_new(last, fresh, what);
        al_rad_destroy(fresh);
    }
    check_against_new(last, u.world, &u.input.input, NULL, 1e-4, 1e-3, what);
    al_rad_destroy(last);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
    scene_free(&u);
}

CHECK_TEST(chained_direct,
           "/rad/update/an-update-before-the-last-was-corrected-takes-the-lasts-direct-light")
{
    check_chained(false, "chained");
}

CHECK_TEST(
    chained_dirt,
    "/rad/update/an-update-before-the-last-was-corrected-lays-out-and-occludes-from-the-last")
{
    check_chained(true, "chained, with dirt");
}

CHECK_TEST(converges, "/rad/update/run-on-it-reaches-the-light-of-a-new-solve")
{
    scene s, t;
    REQUIRE(load_room(&s, 200, 380));
    REQUIRE(load_room(&t, 264, 380));
    al_rad *rad, *next, *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    REQUIRE(al_rad_run(rad, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    REQUIRE(al_rad_update(rad, t.world, &t.input.input, NULL, &next, NULL) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(next, &st);
    double at_update = st.residual;
    REQUIRE(al_rad_run(next, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    REQUIRE(al_rad_create(t.world, &t.input.input, NULL, &fresh, NULL) == AL_OK);
    REQUIRE(al_rad_run(fresh, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    al_rad_stats a, b;
    al_rad_get_stats(next, &a);
    al_rad_get_stats(fresh, &b);
    double d = al_rad_light_difference(next, fresh);
    /* Two runs to the same residual differ by about what is left unshot, spread unevenly. */
    CHECK_MSG(d < 0.01, "mean difference %.4f", d);
    check_books(next, "converged");
    check_note("residual %.4f after the update; %lld shots on to 0.2%% (a new solve: %lld); mean "
               "difference %.4f", at_update, (long long) (a.shots - st.shots),
               (long long) b.shots, d);
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    scene_free(&s);
    scene_free(&t);
}

/* Random edits of the generated map, as the editor makes them: each update from the last,
 * checked by both oracles on every edit. */
CHECK_TEST(random_edits, "/rad/update/random-edits-of-a-generated-map-stay-exact")
{
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    REQUIRE(path);
    scene s;
    REQUIRE(scene_load_file(&s, path, &(scene_options){.pvs = true, .pvs_level = AL_PVS_COARSE}));
    rad_edit_report r;
    rad_check_edits(&s.input.input, s.world, &(al_rad_options){.luxel_size = 32}, 0.05, 6, 11,
                    1000, &r);
    CHECK_MSG(r.failed == 0 && r.edits == 6, "%d edits, %d failed", r.edits, r.failed);
    CHECK_MSG(r.clusters_off == 0, "%lld luxels in another vis leaf", r.clusters_off);
    CHECK_MSG(r.worst_direct < 1e-3 && r.ties == 0 && r.worst_bounce < 2e-3 && r.books_off == 0,
              "direct %.2e (%d ties), bounced %.2e, %d unbalanced: %s", r.worst_direct, r.ties,
              r.worst_bounce, r.books_off, r.why);
    check_note("%d edits, %lld panels corrected: direct light off by at most %.1e, bounced "
               "%.1e of the mean (%d luxels)", r.edits, r.corrections, r.worst_direct,
               r.worst_bounce, r.checked);
    scene_free(&s);
}

/* Whether box A lies inside box B. */
static bool box_inside(const rad_box *a, const rad_box *b)
{
    for (int k = 0; k < 3; k++)
        if (a->lo[k] < b->lo[k] || a->hi[k] > b->hi[k]) return false;
    return true;
}

CHECK_TEST(merge_boxes, "/rad/update/many-changed-boxes-are-joined-near-each-other-not-into-one")
{
    /* Two places 10,000 units apart, 60 small boxes each (an update after many edits
     * since its base): joined to 64, every box is inside one of them, and none spans the
     * two places. */
    enum { PLACES = 2, EACH = 60, MAX = 64 };
    rad_box in[PLACES * EACH], out[PLACES * EACH];
    al_rng rng = {7};
    for (int i = 0; i < PLACES * EACH; i++) {
        double centre = (i / EACH) * 10000.0;
        for (int k = 0; k < 3; k++) {
            double c = (k == 0 ? centre : 0) + (al_rng_uniform(&rng) - 0.5) * 1024;
            double half = 4 + 28 * al_rng_uniform(&rng);
            in[i].lo[k] = c - half, in[i].hi[k] = c + half;
        }
    }
    memcpy(out, in, sizeof in);
    int n = al_rad_merge_boxes(out, PLACES * EACH, MAX);
    CHECK_MSG(n >= 1 && n <= MAX, "%d boxes left", n);
    int lost = 0, spanning = 0;
    for (int i = 0; i < PLACES * EACH; i++) {
        bool found = false;
        for (int b = 0; b < n && !found; b++) found = box_inside(&in[i], &out[b]);
        lost += !found;
    }
    for (int b = 0; b < n; b++) spanning += out[b].hi[0] - out[b].lo[0] > 5000;
    CHECK_MSG(lost == 0, "%d boxes lie in none of the joined ones", lost);
    CHECK_MSG(spanning == 0, "%d of %d joined boxes span both places", spanning, n);
    /* Few enough: left as they are. */
    memcpy(out, in, sizeof in);
    CHECK(al_rad_merge_boxes(out, MAX, MAX) == MAX && memcmp(out, in, MAX * sizeof *in) == 0);
}

/* Makes a random move or resize of E (the brushes keep their indices); EDIT says which.
 * False if memory ran out. */
static bool move_or_resize(al_edit_input *e, al_rng *rng, al_edit *edit)
{
    for (;;) {
        al_edit_input copy;
        if (!al_edit_input_init(&copy, &e->input)) return false;
        if (!al_edit_random(&copy, rng, 8, edit)) {
            al_edit_input_free(&copy);
            return false;
        }
        if (edit->kind == AL_EDIT_MOVE || edit->kind == AL_EDIT_RESIZE) {
            al_edit_input_free(e);
            *e = copy;
            return true;
        }
        al_edit_input_free(&copy);
    }
}

/* The generated small map (ALLIUM_GENERATED_SMALL_MAP) into S with its coarse PVS, an
 * editable copy of its input into E, and a solver of it with the options O into RAD.
 * False if any of them failed. */
static bool load_generated(scene *s, al_edit_input *e, const al_rad_options *o, al_rad **rad)
{
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    return path &&
           scene_load_file(s, path, &(scene_options){.pvs = true, .pvs_level = AL_PVS_COARSE}) &&
           al_edit_input_init(e, &s->input.input) &&
           al_rad_create(s->world, &e->input, o, rad, NULL) == AL_OK;
}

CHECK_TEST(many_edits,
           "/rad/update/after-many-edits-since-its-base-the-direct-light-is-a-new-solvers")
{
    /* The editor's case: edits faster than the corrections, so that each update starts from
     * the same base with every edit since (here 48 moves and resizes: more changed brushes
     * than the boxes an update keeps). */
    scene s;
    al_edit_input e;
    al_rad_options o = {.luxel_size = 32};
    al_rad *rad = NULL, *next = NULL;
    REQUIRE(load_generated(&s, &e, &o, &rad));
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    al_rad_step(rad, st.lights + 40);
    al_rng rng = {43};
    for (int i = 0; i < 48; i++) {
        al_edit edit;
        REQUIRE(move_or_resize(&e, &rng, &edit));
    }
    al_world *w = NULL;
    REQUIRE(al_world_compile(&e.input, &(al_compile_options){.pvs = AL_PVS_COARSE}, &w, NULL) ==
            AL_OK);
    REQUIRE(al_rad_update(rad, w, &e.input, &o, &next, NULL) == AL_OK);
    check_against_new(next, w, &e.input, &o, 1e-3, 2e-3, "48 edits at once");
    al_rad_destroy(next);
    al_rad_destroy(rad);
    al_world_destroy(w);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(snapshot_texels, "/rad/snapshot/every-texel-is-its-luxels-light")
{
    /* Each texel of a snapshot is its luxel's incident light plus the ambient term and its
     * face's emission (at least the floor, never below 0), or 0 where no luxel is: over an
     * atlas of a few hundred thousand texels, after some shots. */
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    REQUIRE_MSG(path, "ALLIUM_GENERATED_SMALL_MAP is not set");
    scene s;
    REQUIRE(scene_load_file(&s, path, &(scene_options){.pvs = true, .pvs_level = AL_PVS_COARSE}));
    al_rad *rad;
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 8}, &rad,
                          NULL) == AL_OK);
    al_rad_step(rad, 40);
    al_rad_lightmap map;
    REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    size_t texels = (size_t) map.width * map.height, wrong = 0, first = 0, lit = 0;
    for (size_t t = 0; t < texels; t++) {
        int32_t l = rad->texel_luxel[t];
        for (int k = 0; k < 3; k++) {
            double v = 0;
            if (l >= 0) {
                v = rad->incident[l][k] + map.ambient[k];
                if (rad->floor && v < rad->floor[l][k]) v = rad->floor[l][k];
                v += rad->faces[rad->luxel_face[l]].emission[k];
            }
            float want = (float) (v > 0 ? v : 0);
            if (map.texels[t][k] != want && wrong++ == 0) first = t;
            lit += k == 0 && want > 0;
        }
    }
    CHECK_MSG(wrong == 0, "%zu values wrong, the first at texel %zu of %zu", wrong, first, texels);
    CHECK_MSG(lit > texels / 100, "%zu of %zu texels lit", lit, texels);
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
}

CHECK_TEST(atlas_places, "/rad/update/faces-an-edit-left-keep-their-places-in-the-atlas")
{
    scene s;
    al_edit_input e;
    al_rad_options o = {.luxel_size = 32};
    al_rad *rad = NULL;
    REQUIRE(load_generated(&s, &e, &o, &rad));
    al_rng rng = {41};
    const al_world *prev = s.world;
    al_world *worlds[40] = {0};
    al_input *inputs[40] = {0};
    int moved_places = 0, kept = 0, edits = 40, repacks = 0;
    for (int i = 0; i < edits; i++) {
        /* Moves and resizes only: the brushes keep their indices, so faces compare by them. */
        al_edit edit;
        REQUIRE(move_or_resize(&e, &rng, &edit));
        REQUIRE((inputs[i] = al_input_clone(&e.input)));
        REQUIRE(al_world_update(prev, inputs[i], &(al_compile_options){.pvs = AL_PVS_COARSE},
                                &worlds[i], NULL) == AL_OK);
        al_rad *next = NULL;
        REQUIRE(al_rad_update(rad, worlds[i], inputs[i], &o, &next, NULL) == AL_OK);
        int w0, h0, w1, h1;
        al_rad_atlas_size(rad, &w0, &h0);
        al_rad_atlas_size(next, &w1, &h1);
        int changed = 0, same = 0;
        for (int b = 0; b < inputs[i]->brush_count; b++) {
            if (b == edit.brush) continue;
            for (int f = 0; f < inputs[i]->brushes[b].face_count; f++) {
                al_rad_face_map a, c;
                if (!al_rad_face(rad, b, f, &a) || !al_rad_face(next, b, f, &c)) continue;
                if (a.width != c.width || a.height != c.height) continue; /* another grid */
                if (a.x == c.x && a.y == c.y && a.s_texel_offset == c.s_texel_offset) same++;
                else {
                    changed++;
                    if (getenv("DEBUG_PLACES"))
                        check_note("edit %d (%s %d): brush %d face %d %d,%d %dx%d -> %d,%d %dx%d s %g %g", i,
                                   al_edit_kind_name(edit.kind), edit.brush, b, f, a.x, a.y,
                                   a.width, a.height, c.x, c.y, c.width, c.height,
                                   a.s_texel_offset, c.s_texel_offset);
                }
            }
        }
        /* A repack moves everything; that may happen, rarely, when the atlas is wasted. */
        if (changed > same) repacks++;
        else moved_places += changed, kept += same;
        /* The atlas stays no bigger than twice what its faces need. */
        al_rad_stats st;
        al_rad_get_stats(next, &st);
        CHECK_MSG((int64_t) w1 * h1 <= 4 * (int64_t) w0 * h0 + 65536,
                  "edit %d: the atlas grew from %dx%d to %dx%d", i, w0, h0, w1, h1);
        rad_check_finish_corrections(next);
        al_rad_destroy(rad);
        rad = next;
        prev = worlds[i];
    }
    CHECK_MSG(moved_places == 0, "%d unchanged faces moved in the atlas (%d kept), %d repacks",
              moved_places, kept, repacks);
    CHECK(repacks <= 2);
    check_note("%d edits: %d unchanged faces kept their places, %d repacks", edits, kept, repacks);
    al_rad_destroy(rad);
    for (int i = 0; i < edits; i++) {
        al_world_destroy(worlds[i]);
        free(inputs[i]);
    }
    al_edit_input_free(&e);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
