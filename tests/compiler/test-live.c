/* The live-compile engine (al-live.h): stages and snapshots, edits that settle into what a
 * full compile gives, a storm of edits faster than compiles finish, and snapshots that
 * outlive the engine. The ThreadSanitizer run of the suite covers its threads. */
#include "al-live.h"
#include "check.h"
#include "al-clock.h"
#include "rad-check.h"
#include "scene.h"
#include "al-edits.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *generated(void)
{
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    if (!path) check_skip("ALLIUM_GENERATED_SMALL_MAP not set");
    return path;
}

/* Tree differences between S's world and a full compile of IN, and whether their
 * visibility agrees (portal and vis leaf counts, leak) when S has it. */
static int full_differences(const al_snapshot *s, const al_input *in)
{
    al_world *full = NULL;
    al_compile_options co = {.pvs = AL_PVS_COARSE};
    if (al_world_compile(in, &co, &full, NULL) != AL_OK) return -1;
    char why[400];
    int d = al_world_tree_differences(al_snapshot_world(s), full, why, sizeof why);
    if (d) check_note("%s", why);
    if (al_snapshot_stage(s) >= AL_STAGE_PORTALS) {
        const al_world *w = al_snapshot_world(s);
        al_leak_info a, b;
        bool la = al_world_leak(w, &a), lb = al_world_leak(full, &b);
        if (al_world_portal_count(w) != al_world_portal_count(full) ||
            al_world_vis_leaf_count(w) != al_world_vis_leaf_count(full) || la != lb) {
            check_note("visibility: %d portals, %d leaves, leak %d against %d, %d, %d",
                       al_world_portal_count(w), al_world_vis_leaf_count(w), la,
                       al_world_portal_count(full), al_world_vis_leaf_count(full), lb);
            d++;
        }
    }
    al_world_destroy(full);
    return d;
}

/* The generated map loaded into S and an editable copy of its input in E; false (the test
 * skipped or failed) without them. */
static bool open_generated(scene *s, al_edit_input *e)
{
    const char *path = generated();
    if (!path || !scene_load_file(s, path, NULL)) return false;
    if (al_edit_input_init(e, &s->input.input)) return true;
    scene_free(s);
    return false;
}

/* RAD's light against the oracles: its direct light a new solver's of the same world, its
 * bounced light the kernel times what was sent (rad-check.h). */
static void check_light(al_rad *rad, const al_input *input, const char *when)
{
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK_MSG(st.direct_done && st.corrections_left == 0, "%s: direct %d, %lld corrections left",
              when, st.direct_done, (long long) st.corrections_left);
    (void) input;
    al_rad *fresh = NULL;
    REQUIRE(rad_check_fresh(rad, &fresh) == AL_OK);
    al_rad_step(fresh, st.lights);
    char why[256] = "";
    int ties = 0, checked = 0;
    double d = rad_check_direct(rad, fresh, &ties, why, sizeof why);
    CHECK_MSG(d < 1e-3 && ties == 0, "%s: direct light off by %.2e (%d ties): %s", when, d, ties, why);
    double b = rad_check_bounce(rad, rad_check_stride(rad, 200), &checked, why, sizeof why);
    CHECK_MSG(b < 2e-3, "%s: bounced light off by %.2e: %s", when, b, why);
    check_note("%s: %lld shots, direct light off by %.1e, bounced %.1e (%d luxels)", when,
               (long long) st.shots, d, b, checked);
    al_rad_destroy(fresh);
}

CHECK_TEST(stages, "/live/a-submitted-map-is-published-stage-by-stage")
{
    const char *path = generated();
    if (!path) return;
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_TIGHT, .light = true,
                                                      .rad = {.luxel_size = 64}});
    REQUIRE(live);
    CHECK(al_live_current(live) == NULL);
    uint64_t g = al_live_submit(live, &s.input.input);
    CHECK(g == 1);
    REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
    al_snapshot *first = al_live_current(live);
    REQUIRE(first);
    CHECK(al_snapshot_generation(first) == g);
    /* The tight PVS's progress, watched while it runs: from 0 up to 1, never back. */
    al_stage_status st[AL_STAGE_COUNT];
    double seen = 0;
    bool monotone = true;
    int running = 0, between = 0;
    uint64_t waited = al_clock_ns();
    while (!al_live_wait(live, g, AL_STAGE_PVS, 0.002)) {
        al_live_status(live, st);
        double p = st[AL_STAGE_PVS].progress;
        monotone &= p >= seen && p <= 1;
        seen = p;
        running += st[AL_STAGE_PVS].state == AL_STAGE_RUNNING;
        between += p > 0 && p < 1;
        REQUIRE(al_clock_ms_since(waited) < 300000);
    }
    CHECK_MSG(monotone, "the PVS progress went back or past 1");
    check_note("PVS progress: %d samples while running, %d strictly between 0 and 1", running,
               between);
    al_snapshot *last = al_live_current(live);
    REQUIRE(last);
    CHECK(al_snapshot_stage(last) == AL_STAGE_PVS);
    CHECK(al_world_vis_leaf_count(al_snapshot_world(last)) > 0);
    CHECK(al_snapshot_rad(last) != NULL && al_snapshot_rad(first) == NULL);
    al_live_status(live, st);
    for (int i = 0; i < AL_STAGE_COUNT; i++) {
        CHECK_MSG(st[i].state == AL_STAGE_CURRENT && st[i].generation == g && st[i].runs == 1 &&
                      st[i].progress == 1,
                  "%s: state %d generation %llu runs %lld", al_stage_name((al_stage) i),
                  st[i].state, (unsigned long long) st[i].generation, (long long) st[i].runs);
        check_note("%s: %.1f ms after the submission", al_stage_name((al_stage) i), st[i].last_ms);
    }
    /* The first snapshot is still valid and unchanged (no visibility). */
    CHECK(al_snapshot_stage(first) == AL_STAGE_COLLISION);
    CHECK(al_world_vis_leaf_count(al_snapshot_world(first)) == 0);
    CHECK(full_differences(last, &s.input.input) == 0);
    al_snapshot_release(first);
    /* A snapshot outlives its engine. */
    al_live_destroy(live);
    double p[3] = {0, 0, 0};
    (void) al_world_point_solid(al_snapshot_world(last), 0, p);
    al_snapshot_release(last);
    scene_free(&s);
}

CHECK_TEST(light_settles, "/live/the-light-carried-across-edits-is-the-new-worlds")
{
    scene s;
    al_edit_input e;
    if (!open_generated(&s, &e)) return;
    al_live *live = al_live_create(&(al_live_options){
        .pvs = AL_PVS_COARSE, .light = true, .rad = {.luxel_size = 64}, .light_residual = 0.05});
    REQUIRE(live);
    uint64_t g = al_live_submit(live, &e.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_rng rng = {17};
    for (int batch = 0; batch < 4; batch++) {
        /* Edits in quick succession: each light update may start from one that had not
         * made its corrections yet. */
        for (int i = 0; i < 1 + batch; i++) {
            al_edit edit;
            REQUIRE(al_edit_random(&e, &rng, 8, &edit));
            g = al_live_submit(live, &e.input);
        }
        REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
        al_snapshot *snap = al_live_current(live);
        REQUIRE(snap && al_snapshot_generation(snap) == g && al_snapshot_rad(snap));
        char when[32];
        snprintf(when, sizeof when, "batch %d", batch);
        check_light(al_snapshot_rad(snap), al_snapshot_input(snap), when);
        al_rad_stats rs;
        al_rad_get_stats(al_snapshot_rad(snap), &rs);
        CHECK_MSG(rs.residual <= 0.05 || rs.converged, "%s: residual %g", when, rs.residual);
        al_snapshot_release(snap);
    }
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    CHECK(st[AL_STAGE_LIGHT].state == AL_STAGE_CURRENT && st[AL_STAGE_LIGHT].done_generation == g &&
          st[AL_STAGE_LIGHT].progress == 1);
    check_note("last edit: light published %.1f ms after it (corrections: %lld panels), done at "
               "%.1f ms; %lld light runs, %lld given up", st[AL_STAGE_LIGHT].last_ms,
               (long long) st[AL_STAGE_LIGHT].corrections, st[AL_STAGE_LIGHT].last_done_ms,
               (long long) st[AL_STAGE_LIGHT].runs, (long long) st[AL_STAGE_LIGHT].cancelled);
    al_live_destroy(live);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(edits_settle, "/live/edits-settle-into-what-a-full-compile-gives")
{
    scene s;
    al_edit_input e;
    if (!open_generated(&s, &e)) return;
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_COARSE});
    REQUIRE(live);
    REQUIRE(al_live_wait(live, al_live_submit(live, &e.input), AL_STAGE_PORTALS, 120));
    al_rng rng = {7};
    int checked = 0, differ = 0;
    for (int batch = 0; batch < 6; batch++) {
        uint64_t g = 0;
        for (int i = 0; i < 4; i++) {
            al_edit edit;
            REQUIRE(al_edit_random(&e, &rng, 8, &edit));
            g = al_live_submit(live, &e.input);
        }
        REQUIRE(al_live_wait(live, g, AL_STAGE_PORTALS, 120));
        al_snapshot *snap = al_live_current(live);
        REQUIRE(snap);
        CHECK(al_snapshot_generation(snap) == g);
        differ += full_differences(snap, &e.input) != 0;
        checked++;
        al_snapshot_release(snap);
    }
    CHECK_MSG(differ == 0, "%d of %d settled states differ from a full compile", differ, checked);
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    check_note("collision %.1f ms, portals %.1f ms after the last edit; %d blocks built",
               st[AL_STAGE_COLLISION].last_ms, st[AL_STAGE_PORTALS].last_ms,
               st[AL_STAGE_COLLISION].blocks_built);
    al_live_destroy(live);
    al_edit_input_free(&e);
    scene_free(&s);
}

/* A reader thread: takes the current snapshot again and again and queries it, as the
 * renderer and the agents do. */
typedef struct reader {
    al_live *live;
    int stop;
    long long reads, solid, lit;
} reader;

static void *read_loop(void *arg)
{
    reader *r = arg;
    while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
        al_snapshot *s = al_live_current(r->live);
        if (!s) continue;
        double mins[3], maxs[3];
        al_world_bounds(al_snapshot_world(s), mins, maxs);
        for (int i = 0; i < 64; i++) {
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = mins[k] + (maxs[k] - mins[k]) * ((i * 37 + k * 11) % 64) / 64.0;
            r->solid += al_world_point_solid(al_snapshot_world(s), 1, p);
        }
        int32_t leaves[8];
        (void) al_world_leaves_visible_from(al_snapshot_world(s), mins, leaves, 8);
        /* The light as the renderer takes it, while the engine may still correct it. */
        al_rad *rad = al_snapshot_rad(s);
        al_rad_lightmap map;
        if (rad && al_rad_snapshot(rad, &map) == AL_OK) {
            r->lit++;
            al_rad_lightmap_free(&map);
        }
        r->reads++;
        al_snapshot_release(s);
    }
    return NULL;
}

CHECK_TEST(storm, "/live/a-storm-of-edits-ends-in-the-state-of-the-last-edit")
{
    const char *path = generated();
    if (!path) return;
    /* ALLIUM_TEST_STORM="SECONDS RATE": ten seconds at a thousand edits a second is the
     * full storm; the suite runs two at that rate. */
    double seconds = 2, rate = 1000;
    const char *env = getenv("ALLIUM_TEST_STORM");
    if (env && sscanf(env, "%lf %lf", &seconds, &rate) != 2) seconds = 2, rate = 1000;
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_TIGHT, .light = true,
                                                      .rad = {.luxel_size = 64}});
    REQUIRE(live);
    reader r = {.live = live};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, read_loop, &r) == 0);
    al_rng rng = {99};
    uint64_t start = al_clock_ns(), g = 0;
    long long edits = 0;
    while (al_clock_ms_since(start) < seconds * 1000) {
        /* Catch up to RATE edits per second (as far as this thread can). */
        double now;
        while ((now = al_clock_ms_since(start)) < seconds * 1000 &&
               edits < (long long) (now * rate / 1000)) {
            al_edit edit;
            REQUIRE(al_edit_random(&e, &rng, 8, &edit));
            g = al_live_submit(live, &e.input);
            REQUIRE(g);
            edits++;
        }
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    REQUIRE(al_live_wait(live, g, AL_STAGE_PVS, 600));
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    pthread_join(thread, NULL);
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    al_snapshot *last = al_live_current(live);
    REQUIRE(last);
    CHECK(al_snapshot_generation(last) == g);
    CHECK(al_snapshot_stage(last) == AL_STAGE_PVS);
    CHECK(full_differences(last, &e.input) == 0);
    CHECK(st[AL_STAGE_COLLISION].runs < edits); /* most edits were overtaken */
    CHECK(r.reads > 0);
    check_note("%lld edits in %.0f s; compiled %lld (collision), %lld (portals), %lld (light), "
               "%lld (pvs); cancelled %lld portals, %lld light and %lld pvs runs; %lld reads",
               edits, seconds, (long long) st[AL_STAGE_COLLISION].runs,
               (long long) st[AL_STAGE_PORTALS].runs, (long long) st[AL_STAGE_LIGHT].runs,
               (long long) st[AL_STAGE_PVS].runs, (long long) st[AL_STAGE_PORTALS].cancelled,
               (long long) st[AL_STAGE_LIGHT].cancelled, (long long) st[AL_STAGE_PVS].cancelled,
               r.reads);
    /* The light of the last edit: carried through the storm, it is the new world's. */
    al_rad *rad = al_snapshot_rad(last);
    CHECK(rad != NULL);
    if (rad) check_light(rad, al_snapshot_input(last), "after the storm");
    al_snapshot_release(last);
    al_live_destroy(live);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(bad_input, "/live/a-map-that-does-not-compile-reports-why-and-keeps-the-last-world")
{
    const char *path = generated();
    if (!path) return;
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_NONE});
    REQUIRE(live);
    uint64_t g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
    al_input bad = s.input.input;
    bad.block_size = 1; /* refused */
    uint64_t g2 = al_live_submit(live, &bad);
    CHECK(!al_live_wait(live, g2, AL_STAGE_COLLISION, 120));
    char why[256];
    CHECK(al_live_last_error(live, why, sizeof why) == AL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(why, "block size") != NULL);
    al_snapshot *snap = al_live_current(live);
    REQUIRE(snap);
    CHECK(al_snapshot_generation(snap) == g);
    al_snapshot_release(snap);
    /* Stages beyond the options' last are not waited for. */
    CHECK(!al_live_wait(live, g, AL_STAGE_PVS, 1));
    al_live_destroy(live);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
