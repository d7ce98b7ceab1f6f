/* The map document: edits, what they report, undo and redo (also across reopening),
 * groups, history, validation, and the document as compiler input. */
#include "check.h"
#include "materials/material-defaults.h"
#include "doc-fixture.h"
#include "mapgen.h"
#include "scene.h"
#include "store/document.h"
#include "store/map-doc.h"
#include "mapfile/map-write.h"
#include "verify/oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole document as .map text: the snapshot compared by the undo oracle. */
static char *snapshot(al_doc *doc)
{
    al_map *m;
    if (al_doc_export_map(doc, &m, NULL) != AL_OK) return NULL;
    char *text = NULL;
    size_t len;
    if (!al_map_write(m, true, &text, &len)) text = NULL;
    al_map_destroy(m);
    return text;
}

static al_doc *new_doc(const char *name)
{
    al_doc *doc = NULL;
    al_diag_list d = {0};
    if (al_doc_create(fixture_path(name), &doc, &d) != AL_OK) doc = NULL;
    al_diag_list_clear(&d);
    return doc;
}

CHECK_TEST(create_defaults, "/doc/new-map-has-the-world-default-hulls-and-settings")
{
    al_doc *doc = new_doc("create.allium");
    REQUIRE(doc);
    CHECK(al_doc_count(doc, "entities") == 1);
    CHECK(al_doc_count(doc, "hulls") == 4);
    CHECK(al_doc_count(doc, "brushes") == 0);
    CHECK(!al_doc_can_undo(doc) && !al_doc_can_redo(doc));
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    CHECK(in.input.entity_count == 1 && strcmp(in.input.entities[0].classname, "worldspawn") == 0);
    CHECK(in.input.hull_count == 4 && strcmp(in.input.hulls[1].name, "stand") == 0);
    CHECK(in.input.block_size == 1024);
    al_doc_input_free(&in);
    al_doc *again = NULL;
    al_diag_list d = {0};
    CHECK(al_doc_create(al_doc_path(doc), &again, &d) == AL_ERR_EXISTS);
    al_diag_list_clear(&d);
    al_doc_close(doc);
}

CHECK_TEST(add_brush_reports, "/doc/add-brush-reports-the-brush-and-its-bounds")
{
    al_doc *doc = new_doc("add.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
    int64_t id = 0;
    al_doc_change ch = {0};
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, &ch, NULL) == AL_OK);
    REQUIRE(ch.brush_count == 1);
    CHECK(ch.brushes[0].brush == id && !ch.brushes[0].had_old && ch.brushes[0].has_new);
    CHECK(ch.brushes[0].new_maxs[0] == 64 && ch.brushes[0].new_maxs[2] == 16);
    CHECK(ch.materials); /* "stone" was created */
    /* An invalid brush is refused with the compiler's reason, and nothing is kept. */
    al_doc_face bad[6];
    fixture_box_faces(0, 0, 0, 64, 32, 0, "stone", bad);
    al_diag_list d = {0};
    CHECK(al_doc_add_brush(doc, 0, bad, 6, NULL, &ch, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(d.count >= 1 && strstr(d.items[d.count - 1].message, "the brush"));
    CHECK(ch.brush_count == 0);
    CHECK(al_doc_count(doc, "brushes") == 1);
    al_diag_list_clear(&d);
    CHECK(al_doc_add_brush(doc, 12345, f, 6, NULL, NULL, NULL) == AL_ERR_NOT_FOUND);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

CHECK_TEST(transform_resize, "/doc/transform-mirror-and-resize-keep-valid-brushes")
{
    al_doc *doc = new_doc("transform.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
    int64_t id;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, NULL, NULL) == AL_OK);
    al_doc_change ch = {0};
    const double mirror[3][4] = {{-1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    REQUIRE(al_doc_transform_brushes(doc, &id, 1, mirror, &ch) == AL_OK);
    CHECK(ch.brushes[0].old_mins[0] == 0 && ch.brushes[0].new_mins[0] == -64);
    CHECK(ch.brushes[0].new_maxs[0] == 0);
    REQUIRE(al_doc_resize_brush(doc, id, (double[3]){10, 20, 30}, (double[3]){20, 40, 90}, &ch,
                                NULL) == AL_OK);
    CHECK(ch.brushes[0].new_mins[1] == 20 && ch.brushes[0].new_maxs[2] == 90);
    const double flat[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}};
    CHECK(al_doc_transform_brushes(doc, &id, 1, flat, NULL) == AL_ERR_INVALID_ARGUMENT);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

CHECK_TEST(duplicate, "/doc/duplicate-copies-every-face-parameter-and-moves-the-copy")
{
    al_doc *doc = new_doc("duplicate.allium");
    REQUIRE(doc);
    int64_t door = 0;
    REQUIRE(al_doc_add_entity(doc, "func_door", NULL, &door, NULL, NULL) == AL_OK);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
    f[2].valve = true;
    f[2].u_axis[0] = 1, f[2].v_axis[2] = -1, f[2].u_offset = 5, f[2].scale[0] = 0.5;
    int64_t id = 0, copy = 0;
    REQUIRE(al_doc_add_brush(doc, door, f, 6, &id, NULL, NULL) == AL_OK);
    al_doc_change ch = {0};
    REQUIRE(al_doc_duplicate_brushes(doc, &id, 1, (double[3]){0, 48, -8}, &copy, &ch) == AL_OK);
    CHECK(copy != id && copy > 0);
    REQUIRE(ch.brush_count == 1);
    CHECK(ch.brushes[0].brush == copy && !ch.brushes[0].had_old && ch.brushes[0].has_new);
    CHECK(ch.brushes[0].new_mins[1] == 48 && ch.brushes[0].new_maxs[1] == 80);
    CHECK(ch.brushes[0].new_mins[2] == -8 && ch.brushes[0].new_maxs[2] == 8);
    /* The copy belongs to the door and keeps its texture parameters: the exported map has
     * the face twice, moved. */
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_list_brushes(doc, door, &ids, &count) == AL_OK);
    CHECK(count == 2);
    free(ids);
    char *text = snapshot(doc);
    REQUIRE(text);
    const char *first = strstr(text, "[ 1 0 0 5 ]");
    CHECK(first && strstr(first + 1, "[ 1 0 0 5 ]"));
    free(text);
    CHECK(al_doc_duplicate_brushes(doc, (int64_t[]){999}, 1, (double[3]){0, 0, 0}, NULL,
                                   NULL) == AL_ERR_NOT_FOUND);
    CHECK(al_doc_count(doc, "brushes") == 2);
    REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 1);
    CHECK(ch.brush_count == 1 && ch.brushes[0].had_old && !ch.brushes[0].has_new);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* The world compiled from the document, and the count of its warnings. */
static al_world *compile_doc(al_doc *doc, size_t *warnings)
{
    al_doc_input in;
    if (al_doc_build_input(doc, &in, NULL) != AL_OK) return NULL;
    al_world *w = NULL;
    al_compile_options co = {.no_vis = true};
    if (al_world_compile(&in.input, &co, &w, NULL) != AL_OK) w = NULL;
    if (w) *warnings = al_diag_count(al_world_diagnostics(w), AL_SEVERITY_WARNING);
    al_doc_input_free(&in);
    return w;
}

CHECK_TEST(hollow, "/doc/hollow-makes-walls-that-enclose-the-room-the-brush-was")
{
    al_doc *doc = new_doc("hollow.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 128, 160, 96, "stone", f);
    int64_t box = 0;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &box, NULL, NULL) == AL_OK);
    /* A triangular prism along x: floor, a back wall and a slope, and its two ends, each
     * given by its outward normal and a point on it. */
    al_doc_face prism[5];
    memcpy(prism, f, sizeof prism);
    const double planes[5][2][3] = {
        {{0, 0, -1}, {300, 0, 0}}, {{0, 1, 0}, {300, 200, 0}}, {{0, -1, 2}, {300, 0, 0}},
        {{-1, 0, 0}, {300, 0, 0}}, {{1, 0, 0}, {400, 0, 0}},
    };
    for (int i = 0; i < 5; i++) {
        /* p1 on the plane, p0 = p1 + a and p2 = p1 + n x a: (p0 - p1) x (p2 - p1) = n |a|^2. */
        const double *n = planes[i][0], *p = planes[i][1];
        double e[3] = {fabs(n[0]) < 0.5 ? 1 : 0, fabs(n[0]) < 0.5 ? 0 : 1, 0};
        double a[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2],
                       n[0] * e[1] - n[1] * e[0]};
        double b[3] = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2],
                       n[0] * a[1] - n[1] * a[0]};
        for (int k = 0; k < 3; k++) {
            prism[i].points[1][k] = p[k];
            prism[i].points[0][k] = p[k] + 64 * a[k];
            prism[i].points[2][k] = p[k] + 64 * b[k];
        }
    }
    int64_t wedge = 0;
    al_diag_list d = {0};
    REQUIRE(al_doc_add_brush(doc, 0, prism, 5, &wedge, NULL, &d) == AL_OK);
    al_diag_list_clear(&d);

    al_doc_change ch = {0};
    int64_t *walls = NULL;
    int count = 0;
    REQUIRE(al_doc_hollow_brushes(doc, (int64_t[]){box, wedge}, 2, 16, &walls, &count, &ch,
                                  &d) == AL_OK);
    CHECK_MSG(count == 11, "%d walls, want 6 + 5", count);
    CHECK(al_doc_count(doc, "brushes") == 11);
    CHECK(ch.brush_count == 13); /* two gone, eleven new */
    free(walls);
    size_t warnings = 99;
    al_world *w = compile_doc(doc, &warnings);
    REQUIRE(w);
    CHECK_MSG(warnings == 0, "%zu warnings: every wall is a clean brush", warnings);
    /* The room inside is empty; a point in each wall is solid. */
    CHECK(!al_world_point_solid(w, 0, (double[3]){64, 80, 48}));
    const double solid[6][3] = {{8, 80, 48}, {120, 80, 48}, {64, 8, 48},
                                {64, 152, 48}, {64, 80, 8}, {64, 80, 88}};
    for (int i = 0; i < 6; i++) CHECK(al_world_point_solid(w, 0, solid[i]));
    CHECK(!al_world_point_solid(w, 0, (double[3]){350, 150, 40}));  /* inside the wedge */
    CHECK(al_world_point_solid(w, 0, (double[3]){350, 150, 4}));    /* its floor */
    CHECK(al_world_point_solid(w, 0, (double[3]){350, 196, 50}));   /* its back */
    al_world_destroy(w);
    /* One undo brings both brushes back. */
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 2);
    /* Too thin for two walls: refused, with the reason, and nothing changes. */
    fixture_box_faces(0, 300, 0, 128, 420, 24, "stone", f);
    int64_t slab = 0;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &slab, NULL, NULL) == AL_OK);
    CHECK(al_doc_hollow_brushes(doc, &slab, 1, 16, NULL, NULL, NULL, &d) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(d.count >= 1 && strstr(d.items[d.count - 1].message, "thicker than two walls"));
    CHECK(al_doc_count(doc, "brushes") == 3);
    al_diag_list_clear(&d);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

CHECK_TEST(entities, "/doc/entities-properties-are-checked-and-name-the-field")
{
    al_doc *doc = new_doc("entities.allium");
    REQUIRE(doc);
    al_diag_list d = {0};
    int64_t e;
    REQUIRE(al_doc_add_entity(doc, "light", "{\"origin\": \"1 2 3\", \"light\": \"300\"}", &e,
                              NULL, &d) == AL_OK);
    struct {
        const char *json, *field;
    } bad[] = {
        {"{\"origin\": \"1 2\"}", "origin"},
        {"{\"origin\": \"1 2 1e9\"}", "origin"},
        {"{\"light\": \"bright\"}", "light"},
        {"{\"_color\": \"300 0 0\"}", "_color"},
        {"{\"spawnflags\": \"-1\"}", "spawnflags"},
        {"{\"angle\": 90}", "angle"},
        {"[1, 2]", "properties"},
        {"{\"a\": \"x\"", "properties"},
        {"{\"\": \"x\"}", "property \"\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        al_diag_list_clear(&d);
        CHECK_MSG(al_doc_add_entity(doc, "info_null", bad[i].json, NULL, NULL, &d) ==
                      AL_ERR_INVALID_ARGUMENT,
                  "case %zu accepted", i);
        CHECK_MSG(d.count == 1 && strstr(d.items[0].message, bad[i].field), "case %zu: %s", i,
                  d.count ? d.items[0].message : "(no diagnostic)");
    }
    al_diag_list_clear(&d);
    CHECK(al_doc_set_property(doc, e, "light", "-5x", NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_set_property(doc, e, "_color", "255 128 0", NULL, NULL) == AL_OK);
    CHECK(al_doc_set_property(doc, e, "classname", "light_fluoro", NULL, NULL) == AL_OK);
    CHECK(al_doc_set_property(doc, 0, "classname", "light", NULL, NULL) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_set_property(doc, e, "light", NULL, NULL, NULL) == AL_OK);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    REQUIRE(in.input.entity_count == 2);
    CHECK(strcmp(in.input.entities[1].classname, "light_fluoro") == 0);
    CHECK_MSG(in.input.entities[1].property_count == 2, "%d properties",
              in.input.entities[1].property_count); /* origin, _color */
    for (int p = 0; p < in.input.entities[1].property_count; p++)
        check_note("%s = %s", in.input.entities[1].properties[p].key,
                   in.input.entities[1].properties[p].value);
    al_doc_input_free(&in);
    /* Moving moves the origin and the brushes. */
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 8, 8, 8, "door", f);
    int64_t door, brush;
    REQUIRE(al_doc_add_entity(doc, "func_door", NULL, &door, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_add_brush(doc, door, f, 6, &brush, NULL, NULL) == AL_OK);
    al_doc_change ch = {0};
    REQUIRE(al_doc_move_entity(doc, e, (double[3]){10, 0, 0}, &ch) == AL_OK);
    REQUIRE(al_doc_move_entity(doc, door, (double[3]){0, 0, 64}, &ch) == AL_OK);
    CHECK(ch.brush_count == 1 && ch.brushes[0].new_mins[2] == 64);
    CHECK(al_doc_delete_entities(doc, (int64_t[]){0}, 1, NULL) == AL_ERR_INVALID_ARGUMENT);
    REQUIRE(al_doc_delete_entities(doc, &door, 1, &ch) == AL_OK);
    CHECK(ch.brush_count == 1 && ch.brushes[0].had_old && !ch.brushes[0].has_new);
    CHECK(al_doc_count(doc, "brushes") == 0 && al_doc_count(doc, "faces") == 0);
    al_doc_change_clear(&ch);
    al_diag_list_clear(&d);
    al_doc_close(doc);
}

CHECK_TEST(materials, "/doc/new-materials-get-quake-defaults-and-stable-colours")
{
    al_doc *doc = new_doc("materials.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 8, 8, 8, "*lava1", f);
    int64_t b;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &b, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_set_face_material(doc, b, (int[]){2}, 1, "sky4", NULL) == AL_OK);
    CHECK(al_doc_set_face_material(doc, b, (int[]){9}, 1, "sky4", NULL) == AL_ERR_NOT_FOUND);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    CHECK(in.input.material_count == 2);
    for (int m = 0; m < in.input.material_count; m++) {
        if (strcmp(in.input.materials[m].name, "*lava1") == 0)
            CHECK(in.input.materials[m].flags == AL_MATERIAL_LIQUID);
        else CHECK(in.input.materials[m].flags == AL_MATERIAL_SKY);
    }
    CHECK(in.input.materials[in.input.faces[2].material].flags == AL_MATERIAL_SKY);
    /* Each material carries its stored colour: the default for its name. */
    for (int m = 0; m < in.input.material_count; m++) {
        float rgb[3];
        al_material_default_colour(in.input.materials[m].name, rgb);
        for (int k = 0; k < 3; k++) CHECK_NEAR(in.material_colours[m][k], rgb[k], 1e-6);
    }
    CHECK(in.input.brush_count == 1 && in.brush_ids[0] == b);
    CHECK(in.input.entity_count == 1 && in.entity_ids[0] == 0);
    al_doc_input_free(&in);
    al_doc_close(doc);
}

CHECK_TEST(hulls_settings, "/doc/hulls-and-settings-are-checked")
{
    al_doc *doc = new_doc("hulls.allium");
    REQUIRE(doc);
    al_hull_desc good[2] = {{"point", {0, 0, 0}, {0, 0, 0}}, {"rat", {-4, -4, 0}, {4, 4, 8}}};
    al_hull_desc bad[1] = {{"rat", {-4, -4, 0}, {4, 4, 8}}};
    al_diag_list d = {0};
    CHECK(al_doc_set_hulls(doc, bad, 1, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(d.count >= 1 && strstr(d.items[0].message, "point hull"));
    al_doc_change ch = {0};
    REQUIRE(al_doc_set_hulls(doc, good, 2, &ch, &d) == AL_OK);
    CHECK(ch.settings);
    CHECK(al_doc_set_setting(doc, "block_size", 32, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_set_setting(doc, "frobnicate", 1, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    REQUIRE(al_doc_set_setting(doc, "block_size", 512, NULL, &d) == AL_OK);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    CHECK(in.input.hull_count == 2 && in.input.block_size == 512);
    al_doc_input_free(&in);
    al_doc_change_clear(&ch);
    al_diag_list_clear(&d);
    al_doc_close(doc);
}

CHECK_TEST(groups, "/doc/a-group-is-one-undo-step-and-a-failed-edit-in-it-rolls-back-alone")
{
    al_doc *doc = new_doc("groups.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 8, 8, 8, "a", f);
    REQUIRE(al_doc_begin_group(doc, "Build a room") == AL_OK);
    CHECK(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_OK);
    CHECK(al_doc_add_entity(doc, "light", "{\"light\": \"nope\"}", NULL, NULL, NULL) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_add_entity(doc, "light", NULL, NULL, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_end_group(doc) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 1 && al_doc_count(doc, "entities") == 2);
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Build a room") == 0);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 0 && al_doc_count(doc, "entities") == 1);
    CHECK(al_doc_undo(doc, NULL) == AL_ERR_NOTHING_TO_DO);
    REQUIRE(al_doc_begin_group(doc, "Cancelled") == AL_OK);
    CHECK(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_OK);
    al_doc_cancel_group(doc);
    CHECK(al_doc_count(doc, "brushes") == 0);
    CHECK(al_doc_can_redo(doc)); /* the cancelled group did not clear redo */
    al_doc_close(doc);
}

CHECK_TEST(history, "/doc/redo-is-cleared-by-a-new-edit-and-history-is-bounded")
{
    al_doc *doc = new_doc("history.allium");
    REQUIRE(doc);
    al_doc_set_history_length(doc, 3);
    al_doc_face f[6];
    for (int i = 0; i < 5; i++) {
        fixture_box_faces(i * 10, 0, 0, i * 10 + 8, 8, 8, "a", f);
        REQUIRE(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_OK);
    }
    int undone = 0;
    while (al_doc_undo(doc, NULL) == AL_OK) undone++;
    CHECK(undone == 3);
    CHECK(al_doc_count(doc, "brushes") == 2);
    REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
    CHECK(al_doc_can_redo(doc));
    fixture_box_faces(100, 0, 0, 108, 8, 8, "a", f);
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_OK);
    CHECK(!al_doc_can_redo(doc));
    CHECK(al_doc_redo(doc, NULL) == AL_ERR_NOTHING_TO_DO);
    al_doc_close(doc);
}

/* Oracle: random edits, a snapshot after each; undoing one step at a time must give back
 * every earlier snapshot exactly, and redoing every later one, also after reopening. */
CHECK_TEST(undo_oracle, "/doc/undo-and-redo-restore-every-state-exactly")
{
    const char *path = fixture_path("undo-oracle.allium");
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(path, &doc, NULL) == AL_OK);
    enum { EDITS = 60 };
    char *states[EDITS + 1];
    states[0] = snapshot(doc);
    uint64_t s = 7;
    int64_t brushes[EDITS], entities[EDITS];
    int nb = 0, ne = 0, made = 0;
    for (int i = 0; i < EDITS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int kind = (int) (s >> 60) % 9;
        al_status st = AL_ERR_INVALID_ARGUMENT;
        double x = (double) ((s >> 20) % 64) * 16;
        if (kind <= 1 || nb == 0) {
            al_doc_face f[6];
            char material[16];
            snprintf(material, sizeof material, "m%d", i % 5);
            fixture_box_faces(x, x / 2, 0, x + 32, x / 2 + 48, 24 + i, material, f);
            f[3].valve = true;
            f[3].u_axis[0] = 0.5, f[3].v_axis[2] = -0.25, f[3].u_offset = 3.125;
            st = al_doc_add_brush(doc, ne && kind == 1 ? entities[ne - 1] : 0, f, 6,
                                  &brushes[nb], NULL, NULL);
            if (st == AL_OK) nb++;
        } else if (kind == 2) {
            const double m[3][4] = {{0, -1, 0, x}, {1, 0, 0, 1.5}, {0, 0, 1, -8}};
            st = al_doc_transform_brushes(doc, &brushes[(s >> 8) % nb], 1, m, NULL);
        } else if (kind == 3) {
            st = al_doc_resize_brush(doc, brushes[(s >> 8) % nb], (double[3]){x, 0, 0},
                                     (double[3]){x + 7.25, 9, 11}, NULL, NULL);
        } else if (kind == 4) {
            int victim = (int) ((s >> 8) % (uint64_t) nb);
            st = al_doc_delete_brushes(doc, &brushes[victim], 1, NULL);
            if (st == AL_OK) {
                nb--;
                brushes[victim] = brushes[nb];
            }
        } else if (kind == 5) {
            char json[96];
            snprintf(json, sizeof json, "{\"origin\": \"%g 0 8\", \"targetname\": \"t%d\"}", x, i);
            st = al_doc_add_entity(doc, i % 2 ? "func_door" : "info_null", json, &entities[ne],
                                   NULL, NULL);
            if (st == AL_OK) ne++;
        } else if (kind == 6 && ne > 0) {
            st = al_doc_set_property(doc, entities[(s >> 8) % ne], "angle", "270", NULL, NULL);
        } else if (kind == 8) {
            st = al_doc_duplicate_brushes(doc, &brushes[(s >> 8) % nb], 1,
                                          (double[3]){16, 0, 8}, &brushes[nb], NULL);
            if (st == AL_OK) nb++;
        } else {
            st = al_doc_set_face_material(doc, brushes[(s >> 8) % nb], NULL, 0, "swapped", NULL);
        }
        if (st != AL_OK) continue;
        states[++made] = snapshot(doc);
    }
    CHECK(made > 40);
    /* Undo half, reopen, undo the rest. */
    for (int k = made; k > 0; k--) {
        if (k == made / 2) {
            al_doc_close(doc);
            REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
        }
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        char *now = snapshot(doc);
        CHECK_MSG(now && strcmp(now, states[k - 1]) == 0, "after undoing to state %d", k - 1);
        free(now);
    }
    CHECK(al_doc_undo(doc, NULL) == AL_ERR_NOTHING_TO_DO);
    for (int k = 1; k <= made; k++) {
        REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
        char *now = snapshot(doc);
        CHECK_MSG(now && strcmp(now, states[k]) == 0, "after redoing to state %d", k);
        free(now);
    }
    for (int k = 0; k <= made; k++) free(states[k]);
    al_doc_close(doc);
}

/* Every brush id with its stored bounds (NaN bounds for a brush that is not a valid solid). */
typedef struct brush_box {
    int64_t id;
    double mins[3], maxs[3];
    bool valid;
} brush_box;

static int boxes_of(al_doc *doc, brush_box **out)
{
    int64_t *ids;
    int count;
    if (al_doc_list_brushes(doc, -1, &ids, &count) != AL_OK) return -1;
    *out = calloc((size_t) count + 1, sizeof **out);
    for (int i = 0; i < count; i++) {
        (*out)[i].id = ids[i];
        (*out)[i].valid = al_doc_brush_box(doc, ids[i], (*out)[i].mins, (*out)[i].maxs);
    }
    free(ids);
    return count;
}

static const brush_box *find_box(const brush_box *b, int n, int64_t id)
{
    for (int i = 0; i < n; i++)
        if (b[i].id == id) return &b[i];
    return NULL;
}

/* The report of an edit must name exactly the brushes whose existence or bounds differ
 * between the tables before and after, with those bounds (it may name more brushes, whose
 * bounds then must be unchanged: a material change, say). */
static bool report_matches(const brush_box *a, int na, const brush_box *b, int nb,
                           const al_doc_change *c, int step)
{
    for (int i = 0; i < c->brush_count; i++) {
        const al_doc_brush_change *r = &c->brushes[i];
        const brush_box *was = find_box(a, na, r->brush), *is = find_box(b, nb, r->brush);
        bool had = was && was->valid, has = is && is->valid;
        if (r->had_old != had || r->has_new != has) {
            check_note("step %d: brush %lld reported %d/%d, tables say %d/%d", step,
                       (long long) r->brush, r->had_old, r->has_new, had, has);
            return false;
        }
        if ((had && (memcmp(r->old_mins, was->mins, 24) || memcmp(r->old_maxs, was->maxs, 24))) ||
            (has && (memcmp(r->new_mins, is->mins, 24) || memcmp(r->new_maxs, is->maxs, 24)))) {
            check_note("step %d: brush %lld reported with other bounds", step, (long long) r->brush);
            return false;
        }
    }
    /* Everything that changed is reported. */
    for (int pass = 0; pass < 2; pass++) {
        const brush_box *x = pass ? b : a, *y = pass ? a : b;
        int nx = pass ? nb : na, ny = pass ? na : nb;
        for (int i = 0; i < nx; i++) {
            const brush_box *other = find_box(y, ny, x[i].id);
            bool same = other && other->valid == x[i].valid &&
                        (!x[i].valid || (memcmp(other->mins, x[i].mins, 24) == 0 &&
                                         memcmp(other->maxs, x[i].maxs, 24) == 0));
            bool reported = false;
            for (int k = 0; k < c->brush_count; k++) reported |= c->brushes[k].brush == x[i].id;
            if (!same && !reported) {
                check_note("step %d: brush %lld changed but was not reported", step,
                           (long long) x[i].id);
                return false;
            }
        }
    }
    return true;
}

CHECK_TEST(change_oracle, "/doc/every-edit-undo-and-redo-reports-exactly-the-brushes-it-changed")
{
    al_doc *doc = new_doc("change-oracle.allium");
    REQUIRE(doc);
    int64_t door = 0;
    REQUIRE(al_doc_add_entity(doc, "func_door", "{\"targetname\": \"d\"}", &door, NULL, NULL) ==
            AL_OK);
    uint64_t s = 11;
    int checked = 0;
    for (int i = 0; i < 150; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int kind = (int) (s >> 59) % 11;
        brush_box *before, *after;
        int nbefore = boxes_of(doc, &before);
        REQUIRE(nbefore >= 0);
        int64_t *ids = NULL;
        int count = 0;
        al_doc_list_brushes(doc, -1, &ids, &count);
        int64_t pick = count ? ids[(s >> 8) % (uint64_t) count] : 0;
        double x = (double) ((s >> 20) % 32) * 32;
        al_doc_change change = {0};
        al_status st;
        if (kind <= 2 || count < 3) {
            al_doc_face f[6];
            fixture_box_faces(x, 0, 0, x + 24, 40, 16 + i % 9, "w", f);
            st = al_doc_add_brush(doc, kind == 1 ? door : 0, f, 6, NULL, &change, NULL);
        } else if (kind == 3) {
            const double m[3][4] = {{1, 0, 0, 8}, {0, 1, 0, 0}, {0, 0, 1, 4}};
            st = al_doc_transform_brushes(doc, ids, count < 3 ? count : 3, m, &change);
        } else if (kind == 4) {
            st = al_doc_resize_brush(doc, pick, (double[3]){x, 8, 0}, (double[3]){x + 9, 30, 5},
                                     &change, NULL);
        } else if (kind == 5) {
            st = al_doc_delete_brushes(doc, &pick, 1, &change);
        } else if (kind == 6) {
            st = al_doc_undo(doc, &change);
        } else if (kind == 7) {
            st = al_doc_redo(doc, &change);
        } else if (kind == 9) {
            st = al_doc_duplicate_brushes(doc, ids, count < 2 ? count : 2,
                                          (double[3]){0, 64, 0}, NULL, &change);
        } else if (kind == 10) {
            st = al_doc_hollow_brushes(doc, &pick, 1, 4, NULL, NULL, &change, NULL);
        } else {
            /* A group: move the door and add a brush to the world, one step. */
            REQUIRE(al_doc_begin_group(doc, "move and add") == AL_OK);
            al_doc_face f[6];
            fixture_box_faces(x, 100, 0, x + 8, 108, 8, "g", f);
            st = al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL);
            if (st == AL_OK) st = al_doc_move_entity(doc, door, (double[3]){16, 0, 0}, NULL);
            if (st == AL_OK) st = al_doc_end_group(doc);
            else al_doc_cancel_group(doc);
            /* The group's report comes with undoing and redoing it. */
            if (st == AL_OK) {
                nbefore = boxes_of(doc, &after);
                free(before);
                before = after;
                st = al_doc_undo(doc, &change);
            }
        }
        free(ids);
        if (st == AL_OK) {
            int nafter = boxes_of(doc, &after);
            CHECK(report_matches(before, nbefore, after, nafter, &change, i));
            checked++;
            free(after);
        }
        free(before);
        al_doc_change_clear(&change);
    }
    check_note("%d edits, undos and redos checked against the brush table", checked);
    CHECK(checked > 100);
    al_doc_close(doc);
}

CHECK_TEST(read_only, "/doc/a-read-only-document-refuses-edits")
{
    const char *path = fixture_path("ro.allium");
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(path, &doc, NULL) == AL_OK);
    al_doc_close(doc);
    REQUIRE(al_doc_open(path, AL_DOC_READ_ONLY, &doc, NULL) == AL_OK);
    CHECK(al_doc_read_only(doc));
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 8, 8, 8, "a", f);
    CHECK(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_ERR_READ_ONLY);
    CHECK(al_doc_undo(doc, NULL) == AL_ERR_READ_ONLY);
    al_doc_input in;
    CHECK(al_doc_build_input(doc, &in, NULL) == AL_OK);
    al_doc_input_free(&in);
    al_doc_close(doc);
}

/* Oracle: a map compiled from its document equals the map compiled from the .map file. */
CHECK_TEST(cache, "/doc/the-content-key-follows-edits-and-the-cache-keeps-one-result")
{
    al_doc *doc = new_doc("cache.allium");
    REQUIRE(doc);
    char k0[33], k1[33], k2[33], salted[33];
    REQUIRE(al_doc_content_key(doc, "", k0) == AL_OK);
    CHECK(al_doc_content_key(doc, "other options", salted) == AL_OK && strcmp(k0, salted) != 0);
    al_doc_face faces[6];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "wall", faces);
    REQUIRE(al_doc_add_brush(doc, 0, faces, 6, NULL, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_content_key(doc, "", k1) == AL_OK);
    CHECK(strcmp(k0, k1) != 0);
    REQUIRE(al_doc_set_property(doc, 0, "message", "hello", NULL, NULL) == AL_OK);
    REQUIRE(al_doc_content_key(doc, "", k2) == AL_OK);
    CHECK(strcmp(k1, k2) != 0); /* properties are read (entity keys drive the compile) */
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    REQUIRE(al_doc_content_key(doc, "", k2) == AL_OK);
    CHECK(strcmp(k1, k2) == 0);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    REQUIRE(al_doc_content_key(doc, "", k2) == AL_OK);
    CHECK(strcmp(k0, k2) == 0);

    /* One stored result per kind: a new key replaces the old entry. */
    void *data;
    size_t size;
    CHECK(al_doc_cache_get(doc, k0, &data, &size) == AL_ERR_NOT_FOUND);
    REQUIRE(al_doc_cache_put(doc, k0, "world", "first", 5) == AL_OK);
    REQUIRE(al_doc_cache_get(doc, k0, &data, &size) == AL_OK);
    CHECK(size == 5 && memcmp(data, "first", 5) == 0);
    free(data);
    REQUIRE(al_doc_cache_put(doc, k1, "world", "second", 6) == AL_OK);
    CHECK(al_doc_cache_get(doc, k0, &data, &size) == AL_ERR_NOT_FOUND);
    REQUIRE(al_doc_cache_get(doc, k1, &data, &size) == AL_OK);
    CHECK(size == 6);
    free(data);
    /* Storing is not an edit: it neither adds a step nor clears what can be redone. */
    CHECK(!al_doc_can_undo(doc) && al_doc_can_redo(doc));
    al_doc_close(doc);
}

CHECK_TEST(input_equivalence, "/doc/document-input-compiles-like-the-map-file")
{
    mapgen *g = mapgen_create(true);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, 0, 0, -16, 512, 512, 0, "floor");
    mapgen_stairs(g, 32, 32, 0, 0, 5, 16, 32, 96, "stairs");
    mapgen_ramp(g, 200, 200, 300, 300, 0, 100, 1, 1, "ramp");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, 400, 0, 0, 408, 64, 96, "door");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 256, 256, 25);
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene from_map;
    REQUIRE(scene_load_text(&from_map, text, len, NULL));
    const char *path = fixture_path("equiv.allium");
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(path, &doc, NULL) == AL_OK);
    REQUIRE(al_doc_import_map(doc, from_map.map, NULL) == AL_OK);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    al_world *w = NULL;
    REQUIRE(al_world_compile(&in.input, NULL, &w, NULL) == AL_OK);
    al_world_stats a, b;
    al_world_get_stats(w, &a);
    al_world_get_stats(from_map.world, &b);
    CHECK(a.valid_brushes == b.valid_brushes && a.onion_nodes == b.onion_nodes &&
          a.onion_leaves == b.onion_leaves && a.models == b.models);
    al_rng rng = {9};
    int differ = 0;
    for (int i = 0; i < 20000; i++) {
        double p[3];
        al_verify_random_point(w, &rng, p);
        for (int h = 0; h < 4; h++)
            differ += al_world_point_solid(w, h, p) != al_world_point_solid(from_map.world, h, p);
    }
    CHECK(differ == 0);
    al_world_destroy(w);
    al_doc_input_free(&in);
    al_doc_close(doc);
    scene_free(&from_map);
    mapgen_destroy(g);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
