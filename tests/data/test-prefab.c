/* Prefabs (data/prefabs): a selection saved as a prefab file and inserted into a map. The
 * oracles: every inserted brush's box is the saved brush's box moved by the offset that
 * the paste rule gives in closed form (the centre of the saved bounds moved to the point
 * by whole grid steps); inserting in place gives the same boxes; undo gives back the
 * document's own export byte for byte; a damaged file names its line and changes nothing;
 * a real map's pieces go through whole. */
#include "check.h"
#include "doc-fixture.h"
#include "mapfile/map-write.h"
#include "prefabs/prefab.h"
#include "scene.h"
#include "store/document.h"
#include "store/map-doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole document as Valve 220 .map text. */
static char *whole_text(al_doc *doc)
{
    al_map *m;
    if (al_doc_export_map(doc, &m, NULL) != AL_OK) return NULL;
    char *text = NULL;
    size_t len;
    if (!al_map_write(m, true, &text, &len)) text = NULL;
    al_map_destroy(m);
    return text;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* The path NAME in the tests' folder (no document files to remove). */
static const char *plain_path(const char *name)
{
    const char *path = fixture_path(name);
    unlink(path);
    return path;
}

/* Saves BRUSHES of FROM to a prefab, inserts it into INTO at PLACE and checks every box
 * against the closed form; returns how many brushes were inserted, -1 on a failure. */
static int save_and_insert(al_doc *from, const int64_t *brushes, int count, al_doc *into,
                           const al_doc_paste_place *place, const char *file)
{
    const char *path = plain_path(file);
    al_diag_list d = {0};
    al_status st = al_prefab_save(from, brushes, count, NULL, 0, path, &d);
    CHECK_MSG(st == AL_OK, "save: %s", d.count ? d.items[0].message : al_status_message(st));
    al_diag_list_clear(&d);
    if (st != AL_OK) return -1;
    double (*box)[2][3] = calloc((size_t) count, sizeof *box);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < count; i++) {
        if (!al_doc_brush_box(from, brushes[i], box[i][0], box[i][1])) {
            CHECK_MSG(false, "brush %lld has no box", (long long) brushes[i]);
            free(box);
            return -1;
        }
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], box[i][0][k]);
            hi[k] = fmax(hi[k], box[i][1][k]);
        }
    }
    double delta[3] = {0, 0, 0};
    for (int k = 0; place && k < 3; k++)
        if (place->axes[k]) {
            double want = place->point[k] - 0.5 * (lo[k] + hi[k]);
            delta[k] = place->grid > 0 ? place->grid * round(want / place->grid) : want;
        }
    al_doc_paste_result r;
    st = al_prefab_insert(into, path, place, &r, NULL, &d);
    CHECK_MSG(st == AL_OK, "insert: %s", d.count ? d.items[0].message : al_status_message(st));
    al_diag_list_clear(&d);
    int inserted = -1;
    if (st == AL_OK) {
        inserted = r.brush_count;
        CHECK_MSG(r.brush_count == count, "%d of %d brushes inserted", r.brush_count, count);
        for (int k = 0; k < 3; k++)
            CHECK_MSG(r.delta[k] == delta[k], "axis %d moved %g, not %g", k, r.delta[k], delta[k]);
        /* A fragment lists the world's brushes before each entity's: each saved box,
         * moved, must match one inserted box not matched before. The boxes are corners of
         * three planes each, computed again for the moved planes: equal to a micro-unit at
         * coordinates of thousands. */
        int n = r.brush_count < count ? r.brush_count : count, wrong = 0;
        double (*got)[2][3] = calloc((size_t) n + 1, sizeof *got);
        bool *used = calloc((size_t) n + 1, sizeof *used);
        for (int i = 0; i < n; i++)
            if (!al_doc_brush_box(into, r.brushes[i], got[i][0], got[i][1])) used[i] = true;
        for (int i = 0; i < n; i++) {
            int match = -1;
            for (int j = 0; j < n && match < 0; j++) {
                bool same = !used[j];
                for (int k = 0; k < 3 && same; k++)
                    same = fabs(got[j][0][k] - (box[i][0][k] + delta[k])) <= 1e-6 &&
                           fabs(got[j][1][k] - (box[i][1][k] + delta[k])) <= 1e-6;
                if (same) match = j;
            }
            if (match < 0)
                wrong++;
            else
                used[match] = true;
        }
        CHECK_MSG(wrong == 0, "%d saved boxes have no inserted box moved by the offset", wrong);
        free(used);
        free(got);
    }
    al_doc_paste_result_free(&r);
    free(box);
    return inserted;
}

static al_doc *fixture_doc(const char *name, int brushes)
{
    const char *path = fixture_path(name);
    if (!fixture_make_map(path, brushes)) return NULL;
    al_doc *doc = NULL;
    return al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK ? doc : NULL;
}

CHECK_TEST(round_trip, "/prefab/save-then-insert-gives-the-same-brushes-moved-by-the-offset")
{
    al_doc *doc = fixture_doc("prefab-round.allium", 12);
    REQUIRE(doc);
    int64_t *brushes = NULL;
    int nb = 0;
    REQUIRE(al_doc_list_brushes(doc, 0, &brushes, &nb) == AL_OK);
    REQUIRE(nb >= 5);
    /* A top view's pointer: x and y move by whole 16-unit steps, z stays. */
    al_doc_paste_place place = {
        .point = {1001, -517, 4000}, .axes = {true, true, false}, .grid = 16};
    CHECK(save_and_insert(doc, brushes, 5, doc, &place, "prefab-round.map") == 5);
    /* A front view, without a grid: the centre lands exactly on the point. */
    al_doc_paste_place exact = {.point = {-333.5, 0, 77.25}, .axes = {true, false, true}};
    CHECK(save_and_insert(doc, brushes + 1, 3, doc, &exact, "prefab-exact.map") == 3);
    /* In place: the same boxes. */
    CHECK(save_and_insert(doc, brushes, 2, doc, NULL, "prefab-in-place.map") == 2);
    /* The file is the fragment the clipboard copies, byte for byte. */
    char *copy = NULL;
    size_t length = 0;
    REQUIRE(al_doc_copy_text(doc, brushes, 5, NULL, 0, &copy, &length, NULL) == AL_OK);
    char saved[4200];
    snprintf(saved, sizeof saved, "%sprefab-round.map", fixture_path(""));
    FILE *f = fopen(saved, "rb");
    REQUIRE(f);
    char *file = calloc(length + 2, 1);
    size_t got = fread(file, 1, length + 1, f);
    fclose(f);
    CHECK(got == length && memcmp(file, copy, length) == 0);
    free(file);
    free(copy);
    free(brushes);
    al_doc_close(doc);
}

CHECK_TEST(entities, "/prefab/entities-keep-their-keys-and-move-with-their-brushes")
{
    al_doc *doc = fixture_doc("prefab-ents.allium", 4);
    REQUIRE(doc);
    /* A light and a door, written by hand. */
    const char *path = plain_path("prefab-ents.map");
    REQUIRE(write_text(
        path, "{\n\"classname\" \"func_door\"\n\"targetname\" \"d1\"\n"
              "{\n( 128 0 0 ) ( 128 1 0 ) ( 128 0 1 ) door 0 0 0 1 1\n"
              "( 144 0 0 ) ( 144 0 1 ) ( 144 1 0 ) door 0 0 0 1 1\n"
              "( 128 0 0 ) ( 128 0 1 ) ( 129 0 0 ) door 0 0 0 1 1\n"
              "( 128 64 0 ) ( 129 64 0 ) ( 128 64 1 ) door 0 0 0 1 1\n"
              "( 128 0 0 ) ( 129 0 0 ) ( 128 1 0 ) door 0 0 0 1 1\n"
              "( 128 0 96 ) ( 128 1 96 ) ( 129 0 96 ) door 0 0 0 1 1\n}\n}\n"
              "{\n\"classname\" \"light\"\n\"origin\" \"160 32 48\"\n\"light\" \"200\"\n}\n"));
    /* Bounds x 128..160, y 0..64, z 0..96: centre (144, 32, 48). */
    al_doc_paste_place place = {.point = {0, 0, 0}, .axes = {true, true, true}, .grid = 8};
    al_doc_paste_result r;
    al_diag_list d = {0};
    REQUIRE(al_prefab_insert(doc, path, &place, &r, NULL, &d) == AL_OK);
    CHECK(r.brush_count == 1 && r.entity_count == 1);
    CHECK(r.delta[0] == -144 && r.delta[1] == -32 && r.delta[2] == -48);
    /* Saved again with its entity and read back: the keys are there, moved. */
    const char *again = plain_path("prefab-ents-again.map");
    REQUIRE(al_prefab_save(doc, r.brushes, r.brush_count, r.entities, r.entity_count, again, &d) ==
            AL_OK);
    al_map *m = NULL;
    REQUIRE(al_prefab_read(again, &m, &d) == AL_OK);
    int doors = 0, lights = 0;
    for (int e = 0; e < m->entity_count; e++) {
        const char *cls = al_map_entity_value(&m->entities[e], "classname");
        if (cls && strcmp(cls, "func_door") == 0) {
            doors++;
            CHECK(strcmp(al_map_entity_value(&m->entities[e], "targetname"), "d1") == 0);
            CHECK(m->entities[e].brush_count == 1);
        }
        if (cls && strcmp(cls, "light") == 0) {
            lights++;
            CHECK(strcmp(al_map_entity_value(&m->entities[e], "origin"), "16 0 0") == 0);
        }
    }
    CHECK(doors == 1 && lights == 1);
    al_map_destroy(m);
    al_diag_list_clear(&d);
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(undo, "/prefab/an-insert-is-one-undoable-step")
{
    al_doc *doc = fixture_doc("prefab-undo.allium", 6);
    REQUIRE(doc);
    int64_t *brushes = NULL;
    int nb = 0;
    REQUIRE(al_doc_list_brushes(doc, 0, &brushes, &nb) == AL_OK);
    const char *path = plain_path("prefab-undo.map");
    REQUIRE(al_prefab_save(doc, brushes, 3, NULL, 0, path, NULL) == AL_OK);
    char *before = whole_text(doc);
    al_doc_paste_place place = {.point = {512, 0, 0}, .axes = {true, false, false}, .grid = 8};
    al_doc_paste_result r;
    REQUIRE(al_prefab_insert(doc, path, &place, &r, NULL, NULL) == AL_OK);
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Paste") == 0);
    char *after = whole_text(doc);
    CHECK(before && after && strcmp(before, after) != 0);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    char *undone = whole_text(doc);
    CHECK(undone && before && strcmp(before, undone) == 0);
    REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
    char *redone = whole_text(doc);
    CHECK(redone && after && strcmp(after, redone) == 0);
    free(before);
    free(after);
    free(undone);
    free(redone);
    free(brushes);
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(bad_file, "/prefab/a-damaged-file-names-its-line-and-changes-nothing")
{
    al_doc *doc = fixture_doc("prefab-bad.allium", 3);
    REQUIRE(doc);
    char *before = whole_text(doc);
    REQUIRE(before);
    const char *path = plain_path("prefab-bad.map");
    /* Line 3 holds a face with a word for a coordinate. */
    REQUIRE(write_text(path,
                       "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 zero ) ( 0 1 0 ) ( 0 0 1 ) a "
                       "0 0 0 1 1\n}\n}\n"));
    al_doc_paste_result r;
    al_diag_list d = {0};
    CHECK(al_prefab_insert(doc, path, NULL, &r, NULL, &d) != AL_OK);
    CHECK(r.brush_count == 0 && r.brushes == NULL);
    bool lined = false;
    for (size_t i = 0; i < d.count; i++) lined |= d.items[i].line == 4 && d.items[i].column > 0;
    CHECK_MSG(lined, "%s (line %d)", d.count ? d.items[0].message : "(none)",
              d.count ? d.items[0].line : -1);
    al_diag_list_clear(&d);
    /* A missing file is named. */
    const char *missing = plain_path("prefab-missing.map");
    CHECK(al_prefab_insert(doc, missing, NULL, &r, NULL, &d) == AL_ERR_IO);
    CHECK(d.count == 1 && strstr(d.items[0].message, missing));
    al_diag_list_clear(&d);
    char *after = whole_text(doc);
    CHECK(after && strcmp(before, after) == 0);
    free(before);
    free(after);
    al_doc_close(doc);
}

CHECK_TEST(write_whole, "/prefab/a-save-writes-the-whole-file-or-leaves-the-old-one")
{
    al_doc *doc = fixture_doc("prefab-write.allium", 4);
    REQUIRE(doc);
    int64_t *brushes = NULL;
    int nb = 0;
    REQUIRE(al_doc_list_brushes(doc, 0, &brushes, &nb) == AL_OK);
    /* Into a folder that does not exist: refused, naming the file. */
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/no-such-folder/x.map", fixture_path(""));
    al_diag_list d = {0};
    CHECK(al_prefab_save(doc, brushes, 1, NULL, 0, bad, &d) == AL_ERR_IO);
    CHECK(d.count == 1 && strstr(d.items[0].message, bad));
    al_diag_list_clear(&d);
    /* Over an older prefab: replaced, and no temporary file stays. */
    const char *path = plain_path("prefab-write.map");
    REQUIRE(write_text(path, "old"));
    REQUIRE(al_prefab_save(doc, brushes, 2, NULL, 0, path, &d) == AL_OK);
    al_map *m = NULL;
    REQUIRE(al_prefab_read(path, &m, &d) == AL_OK);
    CHECK(m->entity_count == 1 && m->entities[0].brush_count == 2);
    al_map_destroy(m);
    char temp[4200];
    snprintf(temp, sizeof temp, "%s.writing", path);
    CHECK(!fixture_exists(temp));
    /* Nothing selected that exists: refused, the old file kept. */
    uint64_t hash = fixture_file_hash(path);
    const int64_t none = 999999;
    CHECK(al_prefab_save(doc, &none, 1, NULL, 0, path, &d) == AL_ERR_NOT_FOUND);
    CHECK(fixture_file_hash(path) == hash);
    al_diag_list_clear(&d);
    free(brushes);
    al_doc_close(doc);
}

/* Pieces of real maps (every tenth brush, world and entities') saved and inserted into a new map.
 */
CHECK_TEST(real_maps, "/prefab/real-map-pieces-insert-whole")
{
    const char *names[] = {"e1m1.map", "q1_mountain.map"};
    bool any = false;
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        const char *path = scene_shared_map(names[n]);
        if (!path) continue;
        any = true;
        al_map *file = NULL;
        REQUIRE(al_map_read_file(path, &file, NULL) == AL_OK);
        al_doc *a = NULL, *b = NULL;
        REQUIRE(al_doc_create(fixture_path("prefab-real-a.allium"), &a, NULL) == AL_OK);
        REQUIRE(al_doc_create(fixture_path("prefab-real-b.allium"), &b, NULL) == AL_OK);
        REQUIRE(al_doc_import_map(a, file, NULL) == AL_OK);
        int64_t *brushes = NULL;
        int nb = 0;
        REQUIRE(al_doc_list_brushes(a, -1, &brushes, &nb) == AL_OK);
        int count = 0;
        for (int i = 0; i < nb; i += 10) brushes[count++] = brushes[i];
        al_doc_paste_place place = {
            .point = {-2048, 1024, 512}, .axes = {true, true, true}, .grid = 8};
        int inserted = save_and_insert(a, brushes, count, b, &place, "prefab-real.map");
        CHECK_MSG(inserted == count, "%s: %d of %d", names[n], inserted, count);
        check_note("%s: %d brushes saved as a prefab and inserted", names[n], count);
        free(brushes);
        al_doc_close(a);
        al_doc_close(b);
        al_map_destroy(file);
    }
    if (!any) check_skip("the real maps (meson option shared_maps) are absent");
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
