/* Incremental compiles (al_world_update): what an update shares and rebuilds, and that it
 * equals a full compile of the same input, tree by tree. */
#include "check.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "scene.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Three rooms in a row along x, 1024 apart, so that an edit in one touches one block. */
static bool load_rooms(scene *s, const char *door_class)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    for (int r = 0; r < 3; r++) {
        double x = r * 1024.0 + 128;
        mapgen_box(g, x - 16, 112, -16, x + 784, 656, 0, "floor");
        mapgen_box(g, x - 16, 112, 256, x + 784, 656, 272, "ceiling");
        mapgen_box(g, x - 16, 112, 0, x, 656, 256, "wall");
        mapgen_box(g, x + 768, 112, 0, x + 784, 656, 256, "wall");
        mapgen_box(g, x, 112, 0, x + 768, 128, 256, "wall");
        mapgen_box(g, x, 640, 0, x + 768, 656, 256, "wall");
        mapgen_box(g, x + 300, 300, 0, x + 364, 364, 96, "crate");
    }
    mapgen_end_entity(g);
    if (door_class) {
        mapgen_begin_entity(g, door_class);
        mapgen_box(g, 1400, 400, 0, 1416, 464, 128, "door");
        mapgen_end_entity(g);
    }
    size_t len;
    const char *text = mapgen_text(g, &len);
    bool ok = scene_load_text(s, text, len, NULL);
    mapgen_destroy(g);
    return ok;
}

/* Updates without visibility, then builds the vis trees the update left (as the live
 * engine's portals stage does), so that they are compared too. */
static al_world *update(const al_world *prev, const al_input *in)
{
    al_compile_options co = {.no_vis = true};
    al_world *w = NULL;
    if (al_world_update(prev, in, &co, &w, NULL) != AL_OK) return NULL;
    if (al_world_build_vis_trees(w, 0) != AL_OK) {
        al_world_destroy(w);
        return NULL;
    }
    return w;
}

static int differences(const al_world *a, const al_input *in)
{
    al_compile_options co = {.no_vis = true};
    al_world *full = NULL;
    if (al_world_compile(in, &co, &full, NULL) != AL_OK) return -1;
    if (al_world_build_vis_trees(full, 0) != AL_OK) {
        al_world_destroy(full);
        return -1;
    }
    char why[300];
    int d = al_world_tree_differences(a, full, why, sizeof why);
    if (d) check_note("%s", why);
    al_world_destroy(full);
    return d;
}

static void move_brush(al_edit_input *e, int b, const double by[3])
{
    const al_brush_desc *d = &e->brushes[b];
    for (int f = 0; f < d->face_count; f++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) e->faces[d->first_face + f].points[i][k] += by[k];
}

CHECK_TEST(unchanged, "/update/unchanged-input-shares-every-block-and-copies-every-brush")
{
    scene s;
    REQUIRE(load_rooms(&s, "func_door"));
    al_world *w = update(s.world, &s.input.input);
    REQUIRE(w);
    al_world_stats st;
    al_world_get_stats(w, &st);
    CHECK(st.blocks_built == 0);
    CHECK(st.brushes_copied == st.valid_brushes);
    CHECK(differences(w, &s.input.input) == 0);
    /* The shared trees outlive the world they came from. */
    scene_free(&s);
    CHECK(al_world_point_solid(w, 0, (double[3]){120, 300, 50}));
    CHECK(!al_world_point_solid(w, 0, (double[3]){200, 200, 50}));
    al_world_destroy(w);
}

CHECK_TEST(loaded, "/update/a-world-from-the-cache-given-its-input-updates-like-a-compiled-one")
{
    scene s;
    REQUIRE(load_rooms(&s, "func_door"));
    void *bytes = NULL;
    size_t size = 0;
    REQUIRE(al_world_save(s.world, &bytes, &size) == AL_OK);
    al_world *loaded = NULL;
    REQUIRE(al_world_load(bytes, size, &loaded, NULL) == AL_OK);
    free(bytes);
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    move_brush(&e, 6, (double[3]){0, 64, 0});
    /* Without its input the loaded world cannot be matched: everything is built. */
    al_world *w = update(loaded, &e.input);
    REQUIRE(w);
    al_world_stats st;
    al_world_get_stats(w, &st);
    CHECK_MSG(st.blocks_built == st.blocks, "%d of %d blocks built", st.blocks_built, st.blocks);
    al_world_destroy(w);
    /* Given it, the update shares what the edit did not touch, and equals a full compile. */
    REQUIRE(al_world_adopt_input(loaded, &s.input.input) == AL_OK);
    w = update(loaded, &e.input);
    REQUIRE(w);
    al_world_get_stats(w, &st);
    CHECK_MSG(st.blocks_built == 2, "%d of %d blocks built", st.blocks_built, st.blocks);
    CHECK(st.brushes_copied == st.valid_brushes - 1);
    CHECK(differences(w, &e.input) == 0);
    al_world_destroy(w);
    /* An input the world was not compiled from is refused. */
    al_edit_input fewer;
    REQUIRE(al_edit_input_init(&fewer, &s.input.input));
    fewer.input.brush_count = 3;
    CHECK(al_world_adopt_input(loaded, &fewer.input) == AL_ERR_INVALID_ARGUMENT);
    al_edit_input_free(&fewer);
    al_world_destroy(loaded);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(one_block, "/update/a-moved-crate-rebuilds-only-the-blocks-it-touches")
{
    scene s;
    REQUIRE(load_rooms(&s, "func_door"));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    /* The crate of the first room (brush 6) moves 64 units along y: the two blocks it
     * touches (z < 0 and z > 0: grown by the hulls it reaches below the floor). */
    move_brush(&e, 6, (double[3]){0, 64, 0});
    al_world *w = update(s.world, &e.input);
    REQUIRE(w);
    al_world_stats st;
    al_world_get_stats(w, &st);
    CHECK_MSG(st.blocks_built == 2, "%d of %d blocks built", st.blocks_built, st.blocks);
    /* In them, the 128-unit sub-cells the crate's old and new boxes grown by the hulls
     * (x 396..524, y 268..460, z -64..120) overlap: two along x, two along y, and one on
     * each side of z = 0. The other sub-cells of both blocks are copied. */
    CHECK_MSG(st.subcells_built == 8, "%d sub-cells built", st.subcells_built);
    CHECK(st.brushes_copied == st.valid_brushes - 1);
    CHECK(differences(w, &e.input) == 0);
    CHECK(al_world_point_solid(w, 0, (double[3]){460, 400, 50}));
    CHECK(!al_world_point_solid(w, 0, (double[3]){460, 320, 50}));
    al_world_destroy(w);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(grown_grid, "/update/a-brush-beyond-the-grid-rebuilds-the-world-model-correctly")
{
    scene s;
    REQUIRE(load_rooms(&s, NULL));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    move_brush(&e, 6, (double[3]){0, 0, 3000});
    al_world *w = update(s.world, &e.input);
    REQUIRE(w);
    al_world_stats before, after;
    al_world_get_stats(s.world, &before);
    al_world_get_stats(w, &after);
    CHECK(after.blocks > before.blocks);
    CHECK(after.blocks_built == after.blocks);
    CHECK(differences(w, &e.input) == 0);
    CHECK(al_world_point_solid(w, 0, (double[3]){460, 330, 3050}));
    al_world_destroy(w);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(brush_model, "/update/a-changed-door-rebuilds-its-model-and-nothing-else")
{
    scene s;
    REQUIRE(load_rooms(&s, "func_door"));
    REQUIRE(al_world_model_count(s.world) == 2);
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    int door = e.input.brush_count - 1;
    move_brush(&e, door, (double[3]){0, 0, 64});
    al_world *w = update(s.world, &e.input);
    REQUIRE(w);
    al_world_stats st;
    al_world_get_stats(w, &st);
    CHECK_MSG(st.blocks_built == w->models[1].block_count, "%d blocks built", st.blocks_built);
    CHECK(differences(w, &e.input) == 0);
    al_trace t;
    al_world_trace(w, 0, (double[3]){1300, 432, 100}, (double[3]){1500, 432, 100}, &t);
    CHECK(t.hit && t.model == 1);
    al_world_destroy(w);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(class_change, "/update/a-brush-turned-detail-leaves-the-vis-tree")
{
    scene s;
    REQUIRE(load_rooms(&s, "func_detail"));
    REQUIRE(al_world_model_count(s.world) == 1);
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    /* The detail entity's brush goes to the world: the vis tree of its block changes. */
    int door = e.input.brush_count - 1;
    e.brushes[door].entity = 0;
    al_world *w = update(s.world, &e.input);
    REQUIRE(w);
    al_world_stats st;
    al_world_get_stats(w, &st);
    CHECK(st.blocks_built >= 1 && st.blocks_built < st.blocks);
    CHECK(differences(w, &e.input) == 0);
    al_world_destroy(w);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(diagnostics, "/update/diagnostics-of-unchanged-bad-brushes-are-repeated")
{
    scene s;
    REQUIRE(load_rooms(&s, NULL));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    /* Brush 6 gets a duplicate plane (a warning, the brush stays), brush 13 a face whose
     * points coincide (an error, the brush is left out). */
    const al_brush_desc *b6 = &e.brushes[6], *b13 = &e.brushes[13];
    memcpy(e.faces[b6->first_face + 1].points, e.faces[b6->first_face].points,
           sizeof e.faces[0].points);
    memcpy(e.faces[b13->first_face].points[1], e.faces[b13->first_face].points[0],
           sizeof e.faces[0].points[0]);
    al_compile_options co = {.no_vis = true};
    al_world *first = NULL;
    REQUIRE(al_world_compile(&e.input, &co, &first, NULL) == AL_OK);
    const al_diag_list *d = al_world_diagnostics(first);
    REQUIRE_MSG(d->count >= 2, "%zu diagnostics", d->count);
    al_world *again = update(first, &e.input);
    REQUIRE(again);
    const al_diag_list *d2 = al_world_diagnostics(again);
    REQUIRE(d2->count == d->count);
    for (size_t i = 0; i < d->count; i++)
        CHECK(strcmp(d->items[i].message, d2->items[i].message) == 0 &&
              d->items[i].entity == d2->items[i].entity && d->items[i].brush == d2->items[i].brush &&
              d->items[i].face == d2->items[i].face && d->items[i].line == d2->items[i].line);
    /* The warned brush is copied with its warning, not built anew: moving the crate of
     * another room rebuilds the crate's two blocks and no more (a map with one warned
     * brush rebuilt that brush's blocks after every edit), and the warning stays. */
    move_brush(&e, 20, (double[3]){8, 0, 0});
    al_world *moved = update(again, &e.input);
    REQUIRE(moved);
    al_world_stats st;
    al_world_get_stats(moved, &st);
    CHECK_MSG(st.blocks_built == 2, "%d of %d blocks built", st.blocks_built, st.blocks);
    CHECK(al_world_diagnostics(moved)->count == d->count);
    CHECK(differences(moved, &e.input) == 0);
    al_world_destroy(moved);
    al_world_destroy(again);
    al_world_destroy(first);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(random_edits, "/update/random-edits-of-a-generated-map-equal-full-compiles")
{
    const char *path = getenv("ALLIUM_GENERATED_MAP");
    if (!path) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return;
    }
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    /* ALLIUM_TEST_EDITS="EDITS BATCH" (the ThreadSanitizer run asks for fewer). */
    int edits = 60, batch = 3;
    const char *env = getenv("ALLIUM_TEST_EDITS");
    if (env && sscanf(env, "%d %d", &edits, &batch) != 2) edits = 60, batch = 3;
    scene_edit_report r;
    scene_edit_check(&s.input.input, edits, batch, 2000, 0, 11, &r);
    CHECK_MSG(r.failed_updates == 0 && r.tree_differences == 0, "%d failed, %d trees differ: %s",
              r.failed_updates, r.tree_differences, r.why);
    CHECK(r.solidity_mismatches == 0);
    CHECK(r.blocks_built_mean < 0.5 * r.blocks_mean);
    CHECK_MSG(r.portal_differences == 0 && r.portal_blocks_copied_mean >= 1,
              "%d batches' portals differ, %.1f blocks' copied: %s", r.portal_differences,
              r.portal_blocks_copied_mean, r.why);
    /* A batch of many edits (ALLIUM_TEST_EDITS "10 10": a quarter of the blocks built)
     * pushes the faces of half the brushes again; the others' places are still taken. */
    CHECK_MSG(r.leaf_face_differences == 0 &&
                  r.face_brushes_placed_mean < 0.9 * r.face_brushes_mean,
              "%d batches' faces in vis leaves differ, %.1f of %.0f brushes placed anew: %s",
              r.leaf_face_differences, r.face_brushes_placed_mean, r.face_brushes_mean, r.why);
    check_note("%d edits in %d batches: %.1f of %.0f blocks built, %.0f brushes copied per "
               "update, portals of %.1f blocks copied, faces of %.1f of %.0f brushes placed "
               "anew; %lld points checked",
               r.edits, r.batches, r.blocks_built_mean, r.blocks_mean, r.brushes_copied_mean,
               r.portal_blocks_copied_mean, r.face_brushes_placed_mean, r.face_brushes_mean,
               (long long) r.solidity_checked);
    scene_free(&s);
}

/* Clip brushes make a block's shift tree (the point hull's map tree with them), hint
 * brushes split its vis tree (hint faces first): random edits of rooms with both, moving,
 * resizing, deleting and copying them among the rest, give the trees (shift and vis trees
 * included) and answers of a full compile. The third room's hint brushes are a func_detail's
 * (they split the world's vis tree as the world's do). */
CHECK_TEST(clip_edits, "/update/random-edits-among-clip-and-hint-brushes-equal-full-compiles")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    for (int r = 0; r < 3; r++) {
        double x = r * 1024.0 + 128;
        mapgen_room(g, x - 16, 112, -16, x + 784, 656, 272, 16, "wall");
        for (int i = 0; i < 6; i++)
            mapgen_box(g, x + 64 + i * 112, 200 + (i % 3) * 128, 0, x + 128 + i * 112,
                       264 + (i % 3) * 128, 96 + (i % 2) * 96, i % 2 ? "crate" : "clip");
        if (r == 2) {
            mapgen_end_entity(g);
            mapgen_begin_entity(g, "func_detail");
        }
        for (int i = 0; i < 2; i++)
            mapgen_box_faces(
                g, x + 250 + i * 256, 112, 0, x + 254 + i * 256, 400, 256,
                (const char *const[6]){"hint", "hint", "skip", "hint", "skip", "skip"});
    }
    mapgen_end_entity(g);
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene s;
    bool ok = scene_load_text(&s, text, len, NULL);
    mapgen_destroy(g);
    REQUIRE(ok);
    scene_edit_report r;
    scene_edit_check(&s.input.input, 30, 2, 2000, 0, 5, &r);
    CHECK_MSG(r.failed_updates == 0 && r.tree_differences == 0, "%d failed, %d trees differ: %s",
              r.failed_updates, r.tree_differences, r.why);
    CHECK(r.solidity_mismatches == 0 && r.solidity_checked > 0);
    check_note("%d edits in %d batches: %.1f of %.0f blocks built", r.edits, r.batches,
               r.blocks_built_mean, r.blocks_mean);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
