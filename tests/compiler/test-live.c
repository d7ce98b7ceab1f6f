/* The live-compile engine (al-live.h): stages and snapshots, edits by id that settle into
 * what a full compile gives, a storm of edits faster than compiles finish, previews of a
 * drag and their cancel, the light controls (no order leaves the light of an edit
 * uncorrected unless the solver is paused), the cache, and snapshots that outlive the
 * engine. The ThreadSanitizer run of the suite covers its threads. */
#include "al-live.h"
#include "check.h"
#include "al-clock.h"
#include "rad-check.h"
#include "scene.h"
#include "al-edits.h"
#include "world/world-internal.h"

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

/* The generated map compiled into S; false (the test skipped, or failed) without it. */
static bool load_generated(scene *s)
{
    const char *path = generated();
    if (!path) return false;
    bool ok = scene_load_file(s, path, NULL);
    CHECK_MSG(ok, "%s loads", path);
    return ok;
}

/* Tree differences between S's world and a full compile of IN, and whether their
 * visibility agrees (portal and vis leaf counts, leak) when S has it. */
static int full_differences(const al_snapshot *s, const al_input *in)
{
    al_world *full = NULL;
    /* The collision stage builds no visibility, vis trees included. */
    al_compile_options co = {.pvs = AL_PVS_COARSE,
                             .no_vis = al_snapshot_stage(s) < AL_STAGE_PORTALS};
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
    if (!load_generated(s)) return false;
    if (al_edit_input_init(e, &s->input.input)) return true;
    CHECK_MSG(false, "an editable copy of the generated map's input");
    scene_free(s);
    return false;
}

/* The generated map loaded into S, an engine with options O, the map submitted as
 * generation *G and compiled to its collision; NULL (the test skipped or failed) without. */
static al_live *start_generated(scene *s, const al_live_options *o, uint64_t *g)
{
    if (!load_generated(s)) return NULL;
    al_live *live = al_live_create(o);
    *g = live ? al_live_submit(live, &s->input.input) : 0;
    if (live && al_live_wait(live, *g, AL_STAGE_COLLISION, 120)) return live;
    CHECK_MSG(false, "the generated map compiles in the engine");
    al_live_destroy(live);
    scene_free(s);
    return NULL;
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

/* A map kept by ids, as the editor keeps the document's rows: an editable input and the id
 * of each of its brushes (entities and materials are named by their indices). */
typedef struct id_map {
    al_edit_input e;
    int64_t *ids;
    int64_t next_id;
    int cap;
} id_map;

static bool id_map_init(id_map *m, const al_input *in)
{
    memset(m, 0, sizeof *m);
    if (!al_edit_input_init(&m->e, in)) return false;
    m->cap = in->brush_count + 64;
    m->ids = malloc((size_t) m->cap * sizeof *m->ids);
    if (!m->ids) return false;
    for (int b = 0; b < in->brush_count; b++) m->ids[b] = 1000 + b;
    m->next_id = 1000 + in->brush_count;
    return true;
}

static void id_map_free(id_map *m)
{
    al_edit_input_free(&m->e);
    free(m->ids);
}

/* Brush B of M as a change (faces into FACES, room for its faces). */
static al_live_brush live_brush(const id_map *m, int b, al_live_face *faces)
{
    const al_brush_desc *d = &m->e.input.brushes[b];
    for (int f = 0; f < d->face_count; f++) {
        const al_face_desc *fd = &m->e.input.faces[d->first_face + f];
        memcpy(faces[f].points, fd->points, sizeof faces[f].points);
        faces[f].material = fd->material;
        faces[f].luxel_size = fd->luxel_size;
        memcpy(faces[f].texture_axes, fd->texture_axes, sizeof faces[f].texture_axes);
    }
    return (al_live_brush){.id = m->ids[b], .entity = d->entity, .order = (double) m->ids[b],
                           .faces = faces, .face_count = d->face_count};
}

/* The whole map of M as a change. */
static uint64_t apply_whole(al_live *live, const id_map *m)
{
    const al_input *in = &m->e.input;
    al_live_entity *ents = calloc((size_t) in->entity_count + 1, sizeof *ents);
    al_live_brush *brushes = calloc((size_t) in->brush_count + 1, sizeof *brushes);
    al_live_face *faces = calloc((size_t) in->face_count + 1, sizeof *faces);
    int64_t *mat_ids = calloc((size_t) in->material_count + 1, sizeof *mat_ids);
    uint64_t g = 0;
    if (ents && brushes && faces && mat_ids) {
        for (int e = 0; e < in->entity_count; e++)
            ents[e] = (al_live_entity){.id = e, .order = e,
                                       .classname = in->entities[e].classname,
                                       .properties = in->entities[e].properties,
                                       .property_count = in->entities[e].property_count};
        int f = 0;
        for (int b = 0; b < in->brush_count; b++) {
            brushes[b] = live_brush(m, b, faces + f);
            f += brushes[b].face_count;
        }
        for (int i = 0; i < in->material_count; i++) mat_ids[i] = i;
        g = al_live_apply(live, &(al_live_change){
                                    .replace = true, .entities = ents,
                                    .entity_count = in->entity_count, .brushes = brushes,
                                    .brush_count = in->brush_count, .set_materials = true,
                                    .materials = in->materials, .material_ids = mat_ids,
                                    .material_count = in->material_count, .set_hulls = true,
                                    .hulls = in->hulls, .hull_count = in->hull_count});
    }
    free(ents), free(brushes), free(faces), free(mat_ids);
    return g;
}

/* One random edit of M, handed to LIVE as what it changed; its brush's id in *ID. */
static uint64_t apply_random_edit(al_live *live, id_map *m, al_rng *rng, int64_t *id)
{
    al_edit edit;
    int before = m->e.input.brush_count;
    int64_t doomed = -1;
    /* A delete names the brush before it goes. */
    al_edit_input *e = &m->e;
    if (!al_edit_random(e, rng, 8, &edit)) return 0;
    if (edit.kind == AL_EDIT_DELETE) {
        doomed = m->ids[edit.brush];
        memmove(&m->ids[edit.brush], &m->ids[edit.brush + 1],
                (size_t) (before - edit.brush - 1) * sizeof *m->ids);
        *id = doomed;
        return al_live_apply(live, &(al_live_change){
                                       .brushes = &(al_live_brush){.id = doomed, .removed = true},
                                       .brush_count = 1});
    }
    if (edit.kind == AL_EDIT_ADD) {
        if (m->e.input.brush_count > m->cap) {
            m->cap *= 2;
            m->ids = realloc(m->ids, (size_t) m->cap * sizeof *m->ids);
            if (!m->ids) return 0;
        }
        m->ids[edit.brush] = m->next_id++;
    }
    al_live_face faces[AL_MAX_HULLS * 8];
    if (m->e.input.brushes[edit.brush].face_count > (int) (sizeof faces / sizeof faces[0]))
        return 0;
    al_live_brush b = live_brush(m, edit.brush, faces);
    *id = b.id;
    return al_live_apply(live, &(al_live_change){.brushes = &b, .brush_count = 1});
}

/* Brushes of S's input that differ from M's brush of the same id (or that M lacks, or the
 * other way round); describes the first in WHY. */
static int input_differences(const al_snapshot *s, const id_map *m, char *why, size_t size)
{
    const al_input *a = al_snapshot_input(s), *b = &m->e.input;
    int d = 0;
    if (a->brush_count != b->brush_count) {
        snprintf(why, size, "%d brushes, the map has %d", a->brush_count, b->brush_count);
        d++;
    }
    for (int i = 0; i < b->brush_count; i++) {
        int j = al_snapshot_find_brush(s, m->ids[i]);
        const al_brush_desc *bb = &b->brushes[i];
        bool same = j >= 0 && a->brushes[j].face_count == bb->face_count &&
                    a->brushes[j].entity == bb->entity;
        for (int f = 0; same && f < bb->face_count; f++) {
            const al_face_desc *fa = &a->faces[a->brushes[j].first_face + f];
            const al_face_desc *fb = &b->faces[bb->first_face + f];
            same = memcmp(fa->points, fb->points, sizeof fa->points) == 0 &&
                   fa->material == fb->material;
        }
        if (!same && d++ == 0)
            snprintf(why, size, "brush %lld (index %d) is not the map's",
                     (long long) m->ids[i], j);
    }
    return d;
}

CHECK_TEST(stages, "/live/a-submitted-map-is-published-stage-by-stage")
{
    scene s;
    if (!load_generated(&s)) return;
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
        /* The input stage publishes a first compile's map before it is compiled. */
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
    /* Its ids are the input's indices. */
    CHECK(al_snapshot_find_brush(last, 3) == 3 && al_snapshot_brush_id(last, 3) == 3);
    /* An edit that leaves the hulls as they were publishes no input snapshot. */
    al_input moved = s.input.input;
    uint64_t g2 = al_live_submit(live, &moved);
    REQUIRE(al_live_wait(live, g2, AL_STAGE_COLLISION, 120));
    al_live_status(live, st);
    CHECK(st[AL_STAGE_INPUT].runs == 1);
    al_snapshot_release(first);
    /* A snapshot outlives its engine. */
    al_live_destroy(live);
    double p[3] = {0, 0, 0};
    (void) al_world_point_solid(al_snapshot_world(last), 0, p);
    al_snapshot_release(last);
    scene_free(&s);
}

CHECK_TEST(input_first, "/live/a-first-compile-publishes-the-map-before-compiling-it")
{
    scene s;
    uint64_t g;
    al_live *live = start_generated(&s, &(al_live_options){.pvs = AL_PVS_NONE}, &g);
    if (!live) return;
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    CHECK(st[AL_STAGE_INPUT].runs == 1 && st[AL_STAGE_INPUT].generation == g);
    CHECK(st[AL_STAGE_INPUT].last_ms <= st[AL_STAGE_COLLISION].last_ms);
    check_note("map shown %.2f ms, compiled %.1f ms after the submission",
               st[AL_STAGE_INPUT].last_ms, st[AL_STAGE_COLLISION].last_ms);
    al_live_destroy(live);
    scene_free(&s);
}

/* Edits in batches, their light settled and checked against the oracles; with EXTRA
 * samples a side (above 1, the luxels an edit changes are lit once first) the last edit's
 * luxels must have been refined after its first lit frame and before its corrections were
 * done. */
static void light_settles_with(int extra)
{
    scene s;
    al_edit_input e;
    if (!open_generated(&s, &e)) return;
    al_live *live =
        al_live_create(&(al_live_options){.pvs = AL_PVS_COARSE,
                                          .light = true,
                                          .rad = {.luxel_size = 64, .extra_samples = extra},
                                          .light_residual = 0.05});
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
        REQUIRE(al_live_wait_idle(live, 300));
        al_snapshot *snap = al_live_current(live);
        REQUIRE(snap && al_snapshot_generation(snap) == g && al_snapshot_rad(snap));
        char when[32];
        snprintf(when, sizeof when, "batch %d", batch);
        check_light(al_snapshot_rad(snap), al_snapshot_input(snap), when);
        al_rad_stats rs;
        al_rad_get_stats(al_snapshot_rad(snap), &rs);
        CHECK_MSG(rs.residual <= 0.05 || rs.converged, "%s: residual %g", when, rs.residual);
        /* The newest copy of the lightmaps shows where the solver stopped. */
        al_live_lightmap *l = al_live_current_lightmap(live);
        REQUIRE(l);
        CHECK(al_live_lightmap_snapshot(l) == snap || al_snapshot_rad(al_live_lightmap_snapshot(l)) ==
                                                          al_snapshot_rad(snap));
        CHECK_MSG(al_live_lightmap_stats(l)->shots == rs.shots, "%s: copy of shot %lld, solver at %lld",
                  when, (long long) al_live_lightmap_stats(l)->shots, (long long) rs.shots);
        al_live_lightmap_release(l);
        al_snapshot_release(snap);
    }
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    CHECK(st[AL_STAGE_LIGHT].state == AL_STAGE_CURRENT && st[AL_STAGE_LIGHT].done_generation == g &&
          st[AL_STAGE_LIGHT].progress == 1);
    const al_stage_status *l = &st[AL_STAGE_LIGHT];
    if (extra > 1)
        CHECK_MSG(l->last_refined_ms >= l->last_ms && l->last_refined_ms <= l->last_corrected_ms,
                  "the last edit's luxels lit once were refined at %.1f ms, its first lit frame "
                  "at %.1f ms, its corrections done at %.1f ms",
                  l->last_refined_ms, l->last_ms, l->last_corrected_ms);
    else
        CHECK_MSG(l->last_refined_ms == 0, "sampling once, refined at %.1f ms", l->last_refined_ms);
    check_note("%d x %d samples, last edit: light published %.1f ms after it (corrections: %lld), "
               "refined at %.1f ms, done at %.1f ms; %lld light runs, %lld given up",
               extra, extra, l->last_ms, (long long) l->corrections, l->last_refined_ms,
               l->last_done_ms, (long long) l->runs, (long long) l->cancelled);
    al_live_destroy(live);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(light_settles, "/live/the-light-carried-across-edits-is-the-new-worlds")
{
    light_settles_with(1);
}

CHECK_TEST(light_refined, "/live/luxels-an-edit-lit-once-are-refined-before-its-corrections-end")
{
    light_settles_with(2);
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

/* Brushes of S's input whose content key, as the engine kept it, is not the one computed
 * from the input anew (al_brush_desc_key). */
static int stale_keys(const al_snapshot *s)
{
    const al_input *in = al_snapshot_input(s);
    if (!in->brush_keys) return in->brush_count;
    int stale = 0;
    for (int b = 0; b < in->brush_count; b++)
        stale += in->brush_keys[b] != al_brush_desc_key(in, b);
    return stale;
}

CHECK_TEST(changes_by_id, "/live/changes-by-id-keep-the-map-and-settle-into-a-full-compile")
{
    scene s;
    if (!load_generated(&s)) return;
    id_map m;
    REQUIRE(id_map_init(&m, &s.input.input));
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_COARSE});
    REQUIRE(live);
    uint64_t g = apply_whole(live, &m);
    REQUIRE(al_live_wait(live, g, AL_STAGE_PORTALS, 120));
    al_snapshot *before = al_live_current(live);
    REQUIRE(before);
    al_rng rng = {31};
    int differ = 0, checked = 0, versions_off = 0, stale = stale_keys(before);
    char why[200] = "";
    for (int batch = 0; batch < 8; batch++) {
        int64_t changed[4];
        for (int i = 0; i < 4; i++) REQUIRE((g = apply_random_edit(live, &m, &rng, &changed[i])));
        REQUIRE(al_live_wait(live, g, AL_STAGE_PORTALS, 120));
        al_snapshot *snap = al_live_current(live);
        REQUIRE(snap && al_snapshot_generation(snap) == g);
        int d = input_differences(snap, &m, why, sizeof why);
        CHECK_MSG(d == 0, "batch %d: %d brushes differ from the map: %s", batch, d, why);
        differ += full_differences(snap, al_snapshot_input(snap)) != 0;
        stale += stale_keys(snap);
        checked++;
        /* Only the brushes the batch changed have a newer version. */
        for (int b = 0; b < al_snapshot_input(snap)->brush_count; b++) {
            int64_t id = al_snapshot_brush_id(snap, b);
            bool edited = false;
            for (int i = 0; i < 4; i++) edited |= changed[i] == id;
            int old = al_snapshot_find_brush(before, id);
            uint64_t v = al_snapshot_brush_version(snap, b);
            bool newer = old < 0 || v != al_snapshot_brush_version(before, old);
            versions_off += newer != edited;
        }
        al_snapshot_release(before);
        before = snap;
    }
    CHECK_MSG(differ == 0, "%d of %d states differ from a full compile of their input", differ,
              checked);
    CHECK_MSG(versions_off == 0, "%d brushes with a version that does not tell their change",
              versions_off);
    /* The whole map again, unchanged: nothing gets a new version. */
    g = apply_whole(live, &m);
    REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
    al_snapshot *again = al_live_current(live);
    REQUIRE(again);
    int renewed = 0;
    for (int b = 0; b < al_snapshot_input(again)->brush_count; b++)
        renewed += al_snapshot_brush_version(again, b) == g;
    CHECK_MSG(renewed == 0, "%d unchanged brushes got a new version", renewed);
    /* An entity that goes takes its brushes with it. */
    int entity = -1;
    for (int b = 0; b < al_snapshot_input(again)->brush_count && entity < 0; b++)
        if (al_snapshot_input(again)->brushes[b].entity > 0)
            entity = al_snapshot_input(again)->brushes[b].entity;
    if (entity > 0) {
        int64_t id = al_snapshot_entity_id(again, entity);
        g = al_live_apply(live, &(al_live_change){
                                    .entities = &(al_live_entity){.id = id, .removed = true},
                                    .entity_count = 1});
        REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
        al_snapshot *gone = al_live_current(live);
        REQUIRE(gone);
        CHECK(al_snapshot_find_entity(gone, id) < 0);
        int left = 0;
        for (int b = 0; b < al_snapshot_input(gone)->brush_count; b++)
            left += al_snapshot_input(gone)->brushes[b].entity >= al_snapshot_input(gone)->entity_count;
        CHECK(left == 0);
        CHECK(al_snapshot_input(gone)->entity_count == al_snapshot_input(again)->entity_count - 1);
        CHECK(full_differences(gone, al_snapshot_input(gone)) == 0);
        stale += stale_keys(gone);
        al_snapshot_release(gone);
    }
    /* What the keys are made of besides the brush: its entity's class (a detail brush
     * turned into a door's) and the materials' flags. */
    al_live_face faces[AL_MAX_HULLS * 8];
    REQUIRE(m.e.input.brush_count > 0 &&
            m.e.input.brushes[0].face_count <= (int) (sizeof faces / sizeof faces[0]));
    al_live_brush moved = live_brush(&m, 0, faces);
    moved.entity = 9000;
    const char *classes[] = {"func_detail", "func_door"};
    uint64_t keys[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        g = al_live_apply(
            live,
            &(al_live_change){
                .entities = &(al_live_entity){.id = 9000, .order = 9000, .classname = classes[i]},
                .entity_count = 1,
                .brushes = &moved,
                .brush_count = i == 0});
        REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
        al_snapshot *recast = al_live_current(live);
        REQUIRE(recast);
        int j = al_snapshot_find_brush(recast, moved.id);
        REQUIRE(j >= 0 && al_snapshot_input(recast)->brush_keys);
        keys[i] = al_snapshot_input(recast)->brush_keys[j];
        stale += stale_keys(recast);
        al_snapshot_release(recast);
    }
    CHECK_MSG(keys[0] != keys[1], "a brush entity's new class left its brush's key as it was");
    al_snapshot *last = al_live_current(live);
    REQUIRE(last);
    const al_input *in = al_snapshot_input(last);
    if (in->material_count > 0) {
        al_material_desc *mats = calloc((size_t) in->material_count, sizeof *mats);
        int64_t *mat_ids = calloc((size_t) in->material_count, sizeof *mat_ids);
        REQUIRE(mats && mat_ids);
        for (int i = 0; i < in->material_count; i++) mats[i] = in->materials[i], mat_ids[i] = i;
        mats[0].flags ^= AL_MATERIAL_SKY;
        g = al_live_apply(live, &(al_live_change){.set_materials = true,
                                                  .materials = mats,
                                                  .material_ids = mat_ids,
                                                  .material_count = in->material_count});
        free(mats), free(mat_ids);
        REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
        al_snapshot *flagged = al_live_current(live);
        REQUIRE(flagged);
        stale += stale_keys(flagged);
        al_snapshot_release(flagged);
    }
    al_snapshot_release(last);
    CHECK_MSG(stale == 0, "%d brush keys the engine kept differ from the input's", stale);
    al_snapshot_release(again);
    al_snapshot_release(before);
    al_live_destroy(live);
    id_map_free(&m);
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
        const al_world *w = al_snapshot_world(s);
        if (!w) { /* the map before its first compile */
            al_snapshot_release(s);
            continue;
        }
        double mins[3], maxs[3];
        al_world_bounds(w, mins, maxs);
        for (int i = 0; i < 64; i++) {
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = mins[k] + (maxs[k] - mins[k]) * ((i * 37 + k * 11) % 64) / 64.0;
            r->solid += al_world_point_solid(w, 1, p);
        }
        int32_t leaves[8];
        (void) al_world_leaves_visible_from(w, mins, leaves, 8);
        /* The light as the renderer takes it, while the engine may still correct it. */
        al_live_lightmap *l = al_live_current_lightmap(r->live);
        if (l) {
            r->lit += al_live_lightmap_texels(l)->width > 0;
            al_live_lightmap_release(l);
        }
        r->reads++;
        al_snapshot_release(s);
    }
    return NULL;
}

CHECK_TEST(storm, "/live/a-storm-of-edits-ends-in-the-state-of-the-last-edit")
{
    /* ALLIUM_TEST_STORM="SECONDS RATE": ten seconds at a thousand edits a second is the
     * full storm; the suite runs two at that rate. */
    double seconds = 2, rate = 1000;
    const char *env = getenv("ALLIUM_TEST_STORM");
    if (env && sscanf(env, "%lf %lf", &seconds, &rate) != 2) seconds = 2, rate = 1000;
    scene s;
    al_edit_input e;
    if (!open_generated(&s, &e)) return;
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

CHECK_TEST(drag, "/live/a-drag-previews-every-step-and-escape-restores-the-map")
{
    scene s;
    if (!load_generated(&s)) return;
    id_map m;
    REQUIRE(id_map_init(&m, &s.input.input));
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_COARSE, .light = true,
                                                      .rad = {.luxel_size = 64}});
    REQUIRE(live);
    reader r = {.live = live};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, read_loop, &r) == 0);
    uint64_t g = apply_whole(live, &m);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_snapshot *committed = al_live_current(live);
    REQUIRE(committed);
    /* A brush dragged 200 steps of 4 units, one preview per step, as fast as they come. */
    int b = m.e.input.brush_count / 2;
    al_live_face faces[64];
    REQUIRE(m.e.input.brushes[b].face_count <= 64);
    al_live_brush dragged = live_brush(&m, b, faces);
    al_live_face original[64];
    memcpy(original, faces, sizeof original);
    int caught_up = 0;
    for (int step = 1; step <= 200; step++) {
        for (int f = 0; f < dragged.face_count; f++)
            for (int i = 0; i < 3; i++) faces[f].points[i][0] = original[f].points[i][0] + 4.0 * step;
        g = al_live_apply(live, &(al_live_change){.brushes = &dragged, .brush_count = 1});
        REQUIRE(g);
        if (step % 50 == 0) {
            /* The collision of the newest preview comes within a few frames' time. */
            caught_up += al_live_wait(live, g, AL_STAGE_COLLISION, 10);
            al_snapshot *p = al_live_current(live);
            REQUIRE(p);
            int i = al_snapshot_find_brush(p, dragged.id);
            const al_input *in = al_snapshot_input(p);
            CHECK(i >= 0 && in->faces[in->brushes[i].first_face].points[0][0] ==
                                faces[0].points[0][0]);
            al_snapshot_release(p);
        }
    }
    CHECK(caught_up == 4);
    /* Escape: the brush as it was. */
    memcpy(faces, original, sizeof original);
    g = al_live_apply(live, &(al_live_change){.brushes = &dragged, .brush_count = 1});
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_snapshot *back = al_live_current(live);
    REQUIRE(back);
    CHECK(full_differences(back, &m.e.input) == 0);
    char why[200] = "";
    CHECK_MSG(input_differences(back, &m, why, sizeof why) == 0, "%s", why);
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    pthread_join(thread, NULL);
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    check_note("200 previews: %lld collision runs, %lld portals runs (%lld cancelled), %lld light "
               "(%lld cancelled); %lld reads",
               (long long) st[AL_STAGE_COLLISION].runs, (long long) st[AL_STAGE_PORTALS].runs,
               (long long) st[AL_STAGE_PORTALS].cancelled, (long long) st[AL_STAGE_LIGHT].runs,
               (long long) st[AL_STAGE_LIGHT].cancelled, r.reads);
    al_snapshot_release(back);
    al_snapshot_release(committed);
    al_live_destroy(live);
    id_map_free(&m);
    scene_free(&s);
}

CHECK_TEST(preview_settles, "/live/a-drags-previews-skip-portals-and-light-until-the-drag-rests")
{
    scene s;
    if (!load_generated(&s)) return;
    id_map m;
    REQUIRE(id_map_init(&m, &s.input.input));
    al_live *live = al_live_create(&(al_live_options){
        .pvs = AL_PVS_COARSE, .light = true, .rad = {.luxel_size = 64}, .preview_settle_ms = 80});
    REQUIRE(live);
    uint64_t g = apply_whole(live, &m);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    int b = m.e.input.brush_count / 2;
    al_live_face faces[64];
    REQUIRE(m.e.input.brushes[b].face_count <= 64);
    al_live_brush dragged = live_brush(&m, b, faces);
    al_live_face original[64];
    memcpy(original, faces, sizeof original);
    al_stage_status before[AL_STAGE_COUNT], after[AL_STAGE_COUNT];
    al_live_status(live, before);
    /* Sixty previews a frame apart (16 ms: well within the settle time of 80 ms). */
    for (int step = 1; step <= 60; step++) {
        for (int f = 0; f < dragged.face_count; f++)
            for (int i = 0; i < 3; i++)
                faces[f].points[i][0] = original[f].points[i][0] + 4.0 * step;
        g = al_live_apply(
            live, &(al_live_change){.brushes = &dragged, .brush_count = 1, .preview = true});
        REQUIRE(g);
        struct timespec ts = {0, 16000000};
        nanosleep(&ts, NULL);
    }
    al_live_status(live, after);
    long long collisions = after[AL_STAGE_COLLISION].runs - before[AL_STAGE_COLLISION].runs;
    long long portals = after[AL_STAGE_PORTALS].runs - before[AL_STAGE_PORTALS].runs;
    long long lights = after[AL_STAGE_LIGHT].runs - before[AL_STAGE_LIGHT].runs;
    /* The previews had their collisions (several are taken together when a collision
     * takes longer than a frame, as under ThreadSanitizer); a portals or light stage ran
     * only where the test's thread was late by the settle time. */
    CHECK_MSG(collisions >= 1, "%lld collision runs for 60 previews", collisions);
    CHECK_MSG(portals <= 3 && lights <= 3, "%lld portals and %lld light runs during the drag",
              portals, lights);
    /* The drag rests: the resting preview gets its portals and its light. */
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_snapshot *rest = al_live_current(live);
    REQUIRE(rest);
    CHECK(al_snapshot_generation(rest) == g && al_snapshot_stage(rest) >= AL_STAGE_LIGHT);
    al_snapshot_release(rest);
    /* Escape (not a preview): the brush as it was, and every stage runs at once. */
    memcpy(faces, original, sizeof original);
    g = al_live_apply(live, &(al_live_change){.brushes = &dragged, .brush_count = 1});
    uint64_t t0 = al_clock_ns();
    REQUIRE(al_live_wait(live, g, AL_STAGE_PORTALS, 120));
    double portals_ms = al_clock_ms_since(t0);
    al_snapshot *done = al_live_current(live);
    REQUIRE(done);
    CHECK(full_differences(done, &m.e.input) == 0);
    al_snapshot_release(done);
    check_note("60 previews 16 ms apart: %lld collision runs, %lld portals and %lld light runs; "
               "Escape's portals %.1f ms",
               collisions, portals, lights, portals_ms);
    al_live_destroy(live);
    id_map_free(&m);
    scene_free(&s);
}

/* The light stats of the newest light snapshot, once the engine is idle. */
static al_rad_stats idle_light(al_live *live)
{
    al_rad_stats rs = {0};
    CHECK(al_live_wait_idle(live, 300));
    al_snapshot *snap = al_live_current(live);
    if (snap && al_snapshot_rad(snap)) al_rad_get_stats(al_snapshot_rad(snap), &rs);
    al_snapshot_release(snap);
    return rs;
}

/* Moves brush B of M by 32 units along X and hands the engine the change. */
static uint64_t nudge(al_live *live, id_map *m, int b)
{
    const al_brush_desc *d = &m->e.input.brushes[b];
    for (int f = 0; f < d->face_count; f++)
        for (int i = 0; i < 3; i++) m->e.faces[d->first_face + f].points[i][0] += 32;
    al_live_face faces[64];
    al_live_brush lb = live_brush(m, b, faces);
    return al_live_apply(live, &(al_live_change){.brushes = &lb, .brush_count = 1});
}

static void count_settled(void *user)
{
    __atomic_add_fetch((int *) user, 1, __ATOMIC_RELEASE);
}

/* Whether the settled count passes BEFORE within 10 s. */
static bool settled_after(const int *settled, int before)
{
    for (int i = 0; i < 1000 && __atomic_load_n(settled, __ATOMIC_ACQUIRE) <= before; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    return __atomic_load_n(settled, __ATOMIC_ACQUIRE) > before;
}

CHECK_TEST(light_orders, "/live/no-light-order-leaves-an-edit-uncorrected-but-a-pause")
{
    scene s;
    if (!load_generated(&s)) return;
    id_map m;
    REQUIRE(id_map_init(&m, &s.input.input));
    int settled = 0;
    al_live *live = al_live_create(&(al_live_options){.pvs = AL_PVS_COARSE,
                                                      .light = true,
                                                      .rad = {.luxel_size = 64},
                                                      .light_residual = 0.2,
                                                      .light_settled = count_settled,
                                                      .user = &settled});
    REQUIRE(live);
    uint64_t g = apply_whole(live, &m);
    al_rad_stats rs = idle_light(live);
    CHECK_MSG(rs.residual <= 0.2 || rs.converged, "run: residual %g", rs.residual);
    int b = m.e.input.brush_count / 3;
    /* Reset: dark, and waiting. */
    al_live_light_reset(live);
    rs = idle_light(live);
    CHECK(rs.shots == 0 && rs.residual == 1);
    CHECK(al_live_light_mode(live, NULL) == AL_LIGHT_MANUAL);
    /* Step: ten shots, the light sources first (as al_rad_step counts them); then
     * nothing more. */
    al_live_light_step(live, 10);
    rs = idle_light(live);
    CHECK_MSG(rs.shots == 10 && rs.direct_done == (rs.lights <= 10),
              "step: %lld shots for %d lights", (long long) rs.shots, rs.lights);
    double stepped = rs.residual;
    int before = __atomic_load_n(&settled, __ATOMIC_ACQUIRE);
    al_live_light_step(live, 5);
    rs = idle_light(live);
    /* The caller hears that the steps are done, and the light is no longer busy. */
    CHECK_MSG(settled_after(&settled, before), "no light_settled call after a step");
    CHECK(!al_live_light_busy(live));
    CHECK_MSG(rs.residual <= stepped, "the residual rose after a step: %g to %g", stepped,
              rs.residual);
    /* After the steps an edit is corrected, and nothing further is shot. */
    int64_t shots = rs.shots;
    g = nudge(live, &m, b);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    rs = idle_light(live);
    CHECK_MSG(rs.corrections_left == 0, "after steps: %lld corrections left",
              (long long) rs.corrections_left);
    CHECK(rs.shots >= shots);

    /* A pause: the next edit is not corrected, and the status says the light is done. */
    al_live_light_pause(live);
    g = nudge(live, &m, b);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    rs = idle_light(live);
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(live, st);
    CHECK(st[AL_STAGE_LIGHT].done_generation == g);
    CHECK_MSG(rs.corrections_left > 0, "paused, yet the edit was corrected");
    /* Run: the corrections, then on to the target. */
    al_live_light_run(live, 0.2);
    rs = idle_light(live);
    CHECK(rs.corrections_left == 0 && (rs.residual <= 0.2 || rs.converged));
    /* The orders of the field report: reset, step, run, then an edit: corrected, and run
     * on to the target (not left at "correcting"). */
    al_live_light_reset(live);
    al_live_light_step(live, 3);
    al_live_light_run(live, 0.2);
    g = nudge(live, &m, b);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    rs = idle_light(live);
    CHECK(rs.corrections_left == 0 && (rs.residual <= 0.2 || rs.converged));
    al_snapshot *snap = al_live_current(live);
    REQUIRE(snap && al_snapshot_rad(snap));
    check_light(al_snapshot_rad(snap), al_snapshot_input(snap), "after reset, step, run, edit");
    al_snapshot_release(snap);
    al_live_destroy(live);
    id_map_free(&m);
    scene_free(&s);
}

/* A cache in memory: one entry per kind, as the document keeps it. */
typedef struct memory_cache {
    pthread_mutex_t lock;
    char key[2][33];
    void *bytes[2];
    size_t size[2];
    int gets, hits, puts;
} memory_cache;

static int kind_slot(const char *kind)
{
    return strcmp(kind, "world") == 0 ? 0 : 1;
}

static bool cache_get(void *user, const char *kind, const char *key, void **bytes, size_t *size)
{
    memory_cache *c = user;
    pthread_mutex_lock(&c->lock);
    int k = kind_slot(kind);
    bool hit = c->bytes[k] && strcmp(c->key[k], key) == 0;
    c->gets++;
    if (hit) {
        *bytes = malloc(c->size[k]);
        memcpy(*bytes, c->bytes[k], c->size[k]);
        *size = c->size[k];
        c->hits++;
    }
    pthread_mutex_unlock(&c->lock);
    return hit;
}

static void cache_put(void *user, const char *kind, const char *key, void *bytes, size_t size)
{
    memory_cache *c = user;
    pthread_mutex_lock(&c->lock);
    int k = kind_slot(kind);
    free(c->bytes[k]);
    c->bytes[k] = bytes;
    c->size[k] = size;
    snprintf(c->key[k], sizeof c->key[k], "%s", key);
    c->puts++;
    pthread_mutex_unlock(&c->lock);
}

CHECK_TEST(cache, "/live/a-map-opened-again-comes-from-the-cache-with-its-light")
{
    scene s;
    if (!load_generated(&s)) return;
    memory_cache mc = {.lock = PTHREAD_MUTEX_INITIALIZER};
    al_live_options o = {.pvs = AL_PVS_COARSE, .light = true, .rad = {.luxel_size = 64},
                         .light_residual = 0.2,
                         .cache = {.get = cache_get, .put = cache_put, .user = &mc,
                                   .world_salt = "test", .light_salt = "test light",
                                   .store_delay_ms = 20}};
    al_live *live = al_live_create(&o);
    REQUIRE(live);
    uint64_t g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_rad_stats lit = idle_light(live);
    al_snapshot *first = al_live_current(live);
    REQUIRE(first);
    CHECK(!al_snapshot_from_cache(first));
    al_live_destroy(live);
    CHECK_MSG(mc.puts == 2 && mc.bytes[0] && mc.bytes[1], "%d puts", mc.puts);
    /* Opened again: the world and the light come from the cache. */
    live = al_live_create(&o);
    REQUIRE(live);
    g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_snapshot *again = al_live_current(live);
    REQUIRE(again);
    CHECK(al_snapshot_from_cache(again));
    CHECK(full_differences(again, &s.input.input) == 0);
    const al_rad_lightmap *map = al_snapshot_lightmap(again);
    CHECK_MSG(map && map->shots == lit.shots, "the light was not restored: %lld shots, %lld before",
              map ? (long long) map->shots : -1LL, (long long) lit.shots);
    check_note("cache: %d gets, %d hits, %d puts", mc.gets, mc.hits, mc.puts);
    /* Stopped while it shoots on (to a residual it will not reach in time): the light shot
     * so far is kept as the engine stops, and the next opening goes on from it. */
    int puts = mc.puts;
    al_live_light_run(live, 1e-6);
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    al_live_destroy(live);
    CHECK_MSG(mc.puts == puts + 1, "%d puts as the engine stopped", mc.puts - puts);
    live = al_live_create(&o);
    REQUIRE(live);
    g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_LIGHT, 120));
    al_snapshot *later = al_live_current(live);
    REQUIRE(later);
    map = al_snapshot_lightmap(later);
    CHECK_MSG(al_snapshot_light_from_cache(later) && map && map->shots > lit.shots,
              "the light shot before stopping was not kept: %lld shots, %lld at the target",
              map ? (long long) map->shots : -1LL, (long long) lit.shots);
    al_snapshot_release(later);
    /* Damaged bytes: compiled anew, never a failure. */
    al_live_destroy(live);
    memset(mc.bytes[0], 0x5a, mc.size[0] / 2);
    live = al_live_create(&o);
    REQUIRE(live);
    g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_COLLISION, 120));
    al_snapshot *anew = al_live_current(live);
    REQUIRE(anew && al_snapshot_world(anew));
    CHECK(!al_snapshot_from_cache(anew));
    al_snapshot_release(anew);
    al_live_destroy(live);
    al_snapshot_release(first);
    al_snapshot_release(again);
    free(mc.bytes[0]);
    free(mc.bytes[1]);
    scene_free(&s);
}

CHECK_TEST(cache_pvs, "/live/the-world-is-kept-with-its-tight-pvs-once-that-is-done")
{
    scene s;
    if (!load_generated(&s)) return;
    memory_cache mc = {.lock = PTHREAD_MUTEX_INITIALIZER};
    /* Changes "pause" only after a minute: the store comes from the finished PVS. */
    al_live_options o = {.pvs = AL_PVS_TIGHT,
                         .light = true,
                         .rad = {.luxel_size = 64},
                         .light_residual = 0.2,
                         .cache = {.get = cache_get,
                                   .put = cache_put,
                                   .user = &mc,
                                   .world_salt = "test",
                                   .light_salt = "test light",
                                   .store_delay_ms = 60000}};
    al_live *live = al_live_create(&o);
    REQUIRE(live);
    uint64_t g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_PVS, 300));
    CHECK(al_live_wait_idle(live, 300));
    /* The world once its PVS was done, the light once it reached its target. */
    CHECK_MSG(mc.puts == 2 && mc.bytes[0] && mc.bytes[1], "%d puts once the PVS was done", mc.puts);
    al_rad_stats lit = idle_light(live);
    al_live_destroy(live);
    CHECK_MSG(mc.puts == 2, "%d puts as the engine stopped", mc.puts);
    /* Opened again: its PVS comes with it, nothing is computed or stored again. */
    live = al_live_create(&o);
    REQUIRE(live);
    g = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g, AL_STAGE_PVS, 300));
    al_snapshot *again = al_live_current(live);
    REQUIRE(again);
    al_vis_stats vs;
    al_world_vis_stats(al_snapshot_world(again), &vs);
    CHECK(al_snapshot_from_cache(again));
    CHECK_MSG(vs.pvs_stored && vs.level == AL_PVS_TIGHT, "the PVS was %s, level %d",
              vs.pvs_stored ? "stored" : "computed", (int) vs.level);
    /* And the light the world had, with it. */
    al_live_lightmap *map = al_live_current_lightmap(live);
    CHECK_MSG(al_snapshot_light_from_cache(again) && map &&
                  al_live_lightmap_stats(map)->shots == lit.shots,
              "the light came %s with %lld shots, %lld before",
              al_snapshot_light_from_cache(again) ? "from the cache" : "anew",
              map ? (long long) al_live_lightmap_stats(map)->shots : -1LL, (long long) lit.shots);
    al_live_lightmap_release(map);
    al_snapshot_release(again);
    CHECK(al_live_wait_idle(live, 300));
    al_live_destroy(live);
    CHECK_MSG(mc.puts == 2, "%d puts after opening it again", mc.puts);
    free(mc.bytes[0]);
    free(mc.bytes[1]);
    scene_free(&s);
}

CHECK_TEST(bad_input, "/live/a-map-that-does-not-compile-reports-why-and-keeps-the-last-world")
{
    scene s;
    uint64_t g;
    al_live *live = start_generated(&s, &(al_live_options){.pvs = AL_PVS_NONE}, &g);
    if (!live) return;
    al_input bad = s.input.input;
    bad.block_size = 1; /* refused */
    uint64_t g2 = al_live_submit(live, &bad);
    CHECK(!al_live_wait(live, g2, AL_STAGE_COLLISION, 120));
    char why[256];
    CHECK(al_live_last_error(live, why, sizeof why) == AL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(why, "block size") != NULL);
    /* The map is shown as it is, with why it does not compile. */
    al_snapshot *snap = al_live_current(live);
    REQUIRE(snap);
    CHECK(al_snapshot_generation(snap) == g2 && al_snapshot_stage(snap) == AL_STAGE_INPUT);
    CHECK(al_snapshot_world(snap) == NULL);
    CHECK(al_snapshot_status(snap) == AL_ERR_INVALID_ARGUMENT);
    const al_diag_list *d = al_snapshot_diagnostics(snap);
    CHECK(d->count > 0 && strstr(d->items[d->count - 1].message, "block size") != NULL);
    al_snapshot_release(snap);
    /* Stages beyond the options' last are not waited for. */
    CHECK(!al_live_wait(live, g, AL_STAGE_PVS, 1));
    /* Fixed: compiled from the world kept. */
    uint64_t g3 = al_live_submit(live, &s.input.input);
    REQUIRE(al_live_wait(live, g3, AL_STAGE_COLLISION, 120));
    snap = al_live_current(live);
    REQUIRE(snap && al_snapshot_world(snap));
    CHECK(full_differences(snap, &s.input.input) == 0);
    al_snapshot_release(snap);
    al_live_destroy(live);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
