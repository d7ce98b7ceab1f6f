/* Copy and paste as .map text: the fragment reader and writer (mapfile) and copying a
 * selection out of a document and pasting it back (store/map-doc). The oracles: what is
 * copied, pasted and copied again is the same text; texture coordinates of every plane
 * point agree across the two dialects and across a paste that moves (texture lock); undo
 * gives back the document's own export byte for byte; real maps copy whole. */
#include "check.h"
#include "doc-fixture.h"
#include "mapfile/map-write.h"
#include "mapfile/texture.h"
#include "scene.h"
#include "store/document.h"
#include "store/map-doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fragment as editors copy it: world brushes in a worldspawn entity, a door with its
 * brush, a light, and a Valve 220 face among standard ones. */
static const char *const sample_fragment =
    "// entity 0\n{\n\"classname\" \"worldspawn\"\n\"wad\" \"gfx/base.wad\"\n"
    "\"allium_block_size\" \"512\"\n"
    "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n"
    "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) stone 4 8 90 0.5 2\n"
    "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) stone 0 0 0 1 1\n"
    "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) stone 0 0 0 1 1\n"
    "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) floor [ 1 0 0 8 ] [ 0 -1 0 16 ] 0 1 1\n"
    "( 0 0 32 ) ( 0 1 32 ) ( 1 0 32 ) floor 0 0 0 1 1\n}\n}\n"
    "{\n\"classname\" \"func_door\"\n\"angle\" \"90\"\n\"targetname\" \"d1\"\n"
    "{\n( 128 0 0 ) ( 128 1 0 ) ( 128 0 1 ) door 0 0 0 1 1\n"
    "( 144 0 0 ) ( 144 0 1 ) ( 144 1 0 ) door 0 0 0 1 1\n"
    "( 128 0 0 ) ( 128 0 1 ) ( 129 0 0 ) door 0 0 0 1 1\n"
    "( 128 64 0 ) ( 129 64 0 ) ( 128 64 1 ) door 0 0 0 1 1\n"
    "( 128 0 0 ) ( 129 0 0 ) ( 128 1 0 ) door 0 0 0 1 1\n"
    "( 128 0 96 ) ( 128 1 96 ) ( 129 0 96 ) door 0 0 0 1 1\n}\n}\n"
    "{\n\"classname\" \"light\"\n\"origin\" \"32 32 64\"\n\"light\" \"300\"\n}\n";

static al_doc *new_doc(const char *name)
{
    al_doc *doc = NULL;
    if (al_doc_create(fixture_path(name), &doc, NULL) != AL_OK) doc = NULL;
    return doc;
}

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

/* The copy of the brushes and entities as fragment text in the dialect VALVE. */
static char *copy_text(al_doc *doc, const int64_t *brushes, int nb, const int64_t *entities, int ne,
                       bool valve)
{
    al_map *m = NULL;
    if (al_doc_export_selection(doc, brushes, nb, entities, ne, &m, NULL) != AL_OK) return NULL;
    char *text = NULL;
    size_t len;
    if (!al_map_write_fragment(m, valve, &text, &len)) text = NULL;
    al_map_destroy(m);
    return text;
}

static al_map *read_fragment(const char *text, al_diag_list *d)
{
    al_map *m = NULL;
    return al_map_read_fragment(text, strlen(text), &m, d) == AL_OK ? m : NULL;
}

/* Pastes TEXT into DOC (PLACE NULL: in place); false when it is refused. */
static bool paste_text(al_doc *doc, const char *text, const al_doc_paste_place *place,
                       al_doc_paste_result *r, al_diag_list *d)
{
    al_map *m = read_fragment(text, d);
    if (!m) return false;
    bool ok = al_doc_paste_map(doc, m, place, r, NULL, d) == AL_OK;
    al_map_destroy(m);
    return ok;
}

/* Whether every plane point of A's faces has the texture coordinate (to 1e-6 texels) that
 * the same point moved by DELTA has on B's faces, and the points moved by exactly DELTA. */
static bool same_geometry(const al_map *a, const al_map *b, const double delta[3])
{
    if (a->entity_count != b->entity_count) return false;
    for (int e = 0; e < a->entity_count; e++) {
        const al_map_entity *ea = &a->entities[e], *eb = &b->entities[e];
        if (ea->brush_count != eb->brush_count) return false;
        for (int i = 0; i < ea->brush_count; i++) {
            const al_map_brush *ba = &ea->brushes[i], *bb = &eb->brushes[i];
            if (ba->face_count != bb->face_count) return false;
            for (int f = 0; f < ba->face_count; f++) {
                const al_map_face *fa = &ba->faces[f], *fb = &bb->faces[f];
                if (strcmp(fa->material, fb->material) != 0) return false;
                for (int p = 0; p < 3; p++) {
                    double moved[3], uva[2], uvb[2];
                    for (int k = 0; k < 3; k++) {
                        moved[k] = fa->points[p][k] + delta[k];
                        if (fb->points[p][k] != moved[k]) return false;
                    }
                    al_texture_coords(fa, fa->points[p], uva);
                    al_texture_coords(fb, moved, uvb);
                    if (fabs(uva[0] - uvb[0]) > 1e-6 || fabs(uva[1] - uvb[1]) > 1e-6) return false;
                }
            }
        }
    }
    return true;
}

CHECK_TEST(bare_brushes, "/clipboard/fragment-reads-bare-brushes-and-entities")
{
    /* A Radiant-style copy: bare brushes, an entity between them. */
    const char *text = "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n"
                       "( 8 0 0 ) ( 8 0 1 ) ( 8 1 0 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) a 0 0 0 1 1\n"
                       "( 0 8 0 ) ( 1 8 0 ) ( 0 8 1 ) a 0 0 0 1 1\n}\n"
                       "{ \"classname\" \"info_null\" \"origin\" \"1 2 3\" }\n"
                       "{ ( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) b [ 0 1 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
                       "( 8 0 0 ) ( 8 0 1 ) ( 8 1 0 ) b [ 0 1 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) b [ 1 0 0 0 ] [ 0 0 -1 0 ] 0 1 1\n"
                       "( 0 8 0 ) ( 1 8 0 ) ( 0 8 1 ) b [ 1 0 0 0 ] [ 0 0 -1 0 ] 0 1 1 }\n";
    al_diag_list d = {0};
    al_map *m = read_fragment(text, &d);
    REQUIRE(m);
    CHECK(d.count == 0);
    REQUIRE(m->entity_count == 2);
    CHECK(strcmp(al_map_entity_value(&m->entities[0], "classname"), "worldspawn") == 0);
    CHECK(m->entities[0].brush_count == 2 && m->entities[0].line == 1);
    CHECK(!m->entities[0].brushes[0].faces[0].valve && m->entities[0].brushes[1].faces[0].valve);
    CHECK(strcmp(al_map_entity_value(&m->entities[1], "origin"), "1 2 3") == 0);
    al_map_destroy(m);
    /* The whole-file reader still wants entities. */
    al_map *file = NULL;
    CHECK(al_map_read_buffer(text, strlen(text), &file, &d) == AL_ERR_SYNTAX && !file);
    al_diag_list_clear(&d);
}

CHECK_TEST(fragment_errors, "/clipboard/bad-text-names-line-and-column")
{
    static const struct {
        const char *text;
        int line, column;
        const char *says;
    } cases[] = {
        {"Hello, world", 1, 1, "expected '{' to start an entity or a brush"},
        {"", -1, -1, "no entity and no brush"},
        {"  // only a comment\n", -1, -1, "no entity and no brush"},
        {"{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n( 8 0 0 ) ( 8 0 x ) ( 8 1 0 ) a 0 0 0 1 "
         "1\n}\n",
         3, 17, "z coordinate"},
        {"{ \"classname\" \"light\"\n\"origin\" \"1 2 3\n}", 2, 10, "not closed"},
        {"{ \"classname\" \"light\" }\n{ \"classname\" ", 2, 15, "expected the property's value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        al_diag_list d = {0};
        al_map *m = NULL;
        al_status st = al_map_read_fragment(cases[i].text, strlen(cases[i].text), &m, &d);
        CHECK_MSG(st == AL_ERR_SYNTAX && !m, "case %zu: status %d", i, st);
        const al_diag *first = d.count ? &d.items[0] : NULL;
        CHECK_MSG(first && first->severity == AL_SEVERITY_ERROR &&
                      strstr(first->message, cases[i].says) && first->line == cases[i].line &&
                      first->column == cases[i].column,
                  "case %zu: %s at %d:%d", i, first ? first->message : "(none)",
                  first ? first->line : 0, first ? first->column : 0);
        al_map_destroy(m);
        al_diag_list_clear(&d);
    }
}

CHECK_TEST(write_read, "/clipboard/fragment-text-reads-back-in-both-dialects")
{
    al_map *m = read_fragment(sample_fragment, NULL);
    REQUIRE(m);
    const double none[3] = {0, 0, 0};
    for (int valve = 0; valve < 2; valve++) {
        char *text = NULL;
        size_t len;
        REQUIRE(al_map_write_fragment(m, valve, &text, &len));
        CHECK(strstr(text, "// Game") == NULL);
        CHECK((strstr(text, "\"mapversion\" \"220\"") != NULL) == (valve == 1));
        al_map *back = read_fragment(text, NULL);
        REQUIRE(back);
        CHECK_MSG(same_geometry(m, back, none), "dialect %d", valve);
        for (int e = 0; e < m->entity_count; e++)
            for (int p = 0; p < m->entities[e].property_count; p++) {
                const char *v =
                    al_map_entity_value(&back->entities[e], m->entities[e].properties[p].key);
                CHECK(v && strcmp(v, m->entities[e].properties[p].value) == 0);
            }
        /* Written again, the same bytes. */
        char *again = NULL;
        REQUIRE(al_map_write_fragment(back, valve, &again, &len));
        CHECK_MSG(strcmp(text, again) == 0, "first:\n%s\nagain:\n%s", text, again);
        free(again);
        al_map_destroy(back);
        free(text);
    }
    al_map_destroy(m);
}

/* A document holding the sample fragment pasted in place; the ids in R. */
static al_doc *sample_doc(const char *name, al_doc_paste_result *r)
{
    al_doc *doc = new_doc(name);
    if (!doc) return NULL;
    al_diag_list d = {0};
    if (!paste_text(doc, sample_fragment, NULL, r, &d)) {
        for (size_t i = 0; i < d.count; i++) check_note("%s", d.items[i].message);
        al_doc_close(doc);
        doc = NULL;
    }
    al_diag_list_clear(&d);
    return doc;
}

CHECK_TEST(copy_paste_in_place, "/clipboard/copy-then-paste-in-place-equals-the-original")
{
    al_doc_paste_result r;
    al_doc *doc = sample_doc("clip-in-place.allium", &r);
    REQUIRE(doc);
    REQUIRE(r.brush_count == 2 && r.entity_count == 1);
    /* World keys of the text are not applied. */
    al_map *whole = NULL;
    REQUIRE(al_doc_export_map(doc, &whole, NULL) == AL_OK);
    CHECK(!al_map_entity_value(&whole->entities[0], "wad"));
    CHECK(!al_map_entity_value(&whole->entities[0], "allium_block_size"));
    al_map_destroy(whole);
    for (int valve = 0; valve < 2; valve++) {
        char *first = copy_text(doc, r.brushes, r.brush_count, r.entities, r.entity_count, valve);
        REQUIRE(first);
        al_doc_paste_result again;
        al_diag_list d = {0};
        REQUIRE(paste_text(doc, first, NULL, &again, &d));
        CHECK(again.brush_count == 2 && again.entity_count == 1);
        char *second = copy_text(doc, again.brushes, again.brush_count, again.entities,
                                 again.entity_count, valve);
        REQUIRE(second);
        CHECK_MSG(strcmp(first, second) == 0, "copied:\n%s\npasted and copied:\n%s", first, second);
        /* Against the text the sample came from: planes, textures and keys. */
        al_map *orig = read_fragment(sample_fragment, NULL), *back = read_fragment(second, NULL);
        REQUIRE(orig && back);
        const double none[3] = {0, 0, 0};
        CHECK(same_geometry(orig, back, none));
        const char *target = al_map_entity_value(&back->entities[1], "targetname");
        CHECK(target && strcmp(target, "d1") == 0);
        CHECK(!al_map_entity_value(&back->entities[0], "wad"));
        al_map_destroy(orig);
        al_map_destroy(back);
        free(first);
        free(second);
        al_doc_paste_result_free(&again);
        al_diag_list_clear(&d);
    }
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(copy_part, "/clipboard/copy-takes-only-the-selected-brushes-and-entities")
{
    al_doc_paste_result r;
    al_doc *doc = sample_doc("clip-part.allium", &r);
    REQUIRE(doc);
    /* The door's brush alone: its entity comes along with its keys. */
    al_map *m = NULL;
    REQUIRE(al_doc_export_selection(doc, &r.brushes[1], 1, NULL, 0, &m, NULL) == AL_OK);
    REQUIRE(m->entity_count == 1 && m->entities[0].brush_count == 1);
    CHECK(strcmp(al_map_entity_value(&m->entities[0], "classname"), "func_door") == 0);
    al_map_destroy(m);
    /* The light alone. */
    REQUIRE(al_doc_export_selection(doc, NULL, 0, r.entities, 1, &m, NULL) == AL_OK);
    REQUIRE(m->entity_count == 1 && m->entities[0].brush_count == 0);
    CHECK(strcmp(al_map_entity_value(&m->entities[0], "light"), "300") == 0);
    al_map_destroy(m);
    /* The world brush: a worldspawn entity with its class alone. */
    REQUIRE(al_doc_export_selection(doc, &r.brushes[0], 1, NULL, 0, &m, NULL) == AL_OK);
    REQUIRE(m->entity_count == 1 && m->entities[0].brush_count == 1);
    CHECK(m->entities[0].property_count == 1);
    al_map_destroy(m);
    int64_t missing = 9999;
    al_diag_list d = {0};
    CHECK(al_doc_export_selection(doc, &missing, 1, NULL, 0, &m, &d) == AL_ERR_NOT_FOUND);
    CHECK(d.count == 1 && strstr(d.items[0].message, "9999"));
    al_diag_list_clear(&d);
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(paste_at_point, "/clipboard/paste-at-a-point-centres-on-the-grid-and-locks-textures")
{
    al_doc_paste_result r;
    al_doc *doc = sample_doc("clip-at.allium", &r);
    REQUIRE(doc);
    for (int valve = 0; valve < 2; valve++) {
        char *text = copy_text(doc, r.brushes, r.brush_count, r.entities, r.entity_count, valve);
        REQUIRE(text);
        /* The copy's bounds are x 0..144, y 0..64, z 0..96 (centre 72 32 48). A top view's
         * pointer at (301, -99) moves x and y by whole 16-unit steps, z not at all. */
        al_doc_paste_place place = {
            .point = {301, -99, 1000}, .axes = {true, true, false}, .grid = 16};
        al_doc_paste_result moved;
        al_diag_list d = {0};
        REQUIRE(paste_text(doc, text, &place, &moved, &d));
        CHECK(moved.delta[0] == 224 && moved.delta[1] == -128 && moved.delta[2] == 0);
        double lo[3], hi[3];
        REQUIRE(al_doc_brush_box(doc, moved.brushes[0], lo, hi));
        CHECK(lo[0] == 224 && lo[1] == -128 && lo[2] == 0 && hi[0] == 288);
        char *back = copy_text(doc, moved.brushes, moved.brush_count, moved.entities,
                               moved.entity_count, valve);
        REQUIRE(back);
        al_map *a = read_fragment(text, NULL), *b = read_fragment(back, NULL);
        REQUIRE(a && b);
        CHECK_MSG(same_geometry(a, b, moved.delta), "dialect %d:\n%s", valve, back);
        CHECK(strcmp(al_map_entity_value(&b->entities[2], "origin"), "256 -96 64") == 0);
        al_map_destroy(a);
        al_map_destroy(b);
        free(back);
        free(text);
        al_doc_paste_result_free(&moved);
        al_diag_list_clear(&d);
    }
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(paste_undo, "/clipboard/a-paste-is-one-undoable-step")
{
    al_doc_paste_result r;
    al_doc *doc = sample_doc("clip-undo.allium", &r);
    REQUIRE(doc);
    char *before = whole_text(doc);
    REQUIRE(before);
    al_doc_paste_result again;
    al_doc_paste_place place = {.point = {500, 0, 0}, .axes = {true, false, false}, .grid = 8};
    REQUIRE(paste_text(doc, sample_fragment, &place, &again, NULL));
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Paste") == 0);
    char *after = whole_text(doc);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    char *undone = whole_text(doc);
    CHECK(undone && strcmp(before, undone) == 0);
    REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
    char *redone = whole_text(doc);
    CHECK(redone && after && strcmp(after, redone) == 0);
    free(before);
    free(after);
    free(undone);
    free(redone);
    al_doc_paste_result_free(&again);
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

CHECK_TEST(paste_refused, "/clipboard/a-refused-paste-changes-nothing")
{
    al_doc_paste_result r;
    al_doc *doc = sample_doc("clip-refused.allium", &r);
    REQUIRE(doc);
    char *before = whole_text(doc);
    REQUIRE(before);
    static const struct {
        const char *text;
        const char *says;
        int line;
    } cases[] = {
        /* A good brush, then four planes that enclose nothing. */
        {"{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n( 8 0 0 ) ( 8 0 1 ) ( 8 1 0 ) a 0 0 0 1 1\n"
         "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) a 0 0 0 1 1\n( 0 8 0 ) ( 1 8 0 ) ( 0 8 1 ) a 0 0 0 1 1\n"
         "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) a 0 0 0 1 1\n( 0 0 8 ) ( 0 1 8 ) ( 1 0 8 ) a 0 0 0 1 1\n}\n"
         "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n"
         "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 "
         "1\n}\n",
         "cannot be added", 9},
        {"{ \"origin\" \"0 0 0\" }\n", "no \"classname\"", 1},
        {"{ \"classname\" \"light\" }\n{ \"classname\" \"\" }\n", "no \"classname\"", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        al_doc_paste_result p;
        al_diag_list d = {0};
        CHECK_MSG(!paste_text(doc, cases[i].text, NULL, &p, &d), "case %zu pasted", i);
        CHECK(p.brushes == NULL && p.brush_count == 0);
        bool named = false;
        for (size_t k = 0; k < d.count; k++)
            named |= strstr(d.items[k].message, cases[i].says) && d.items[k].line == cases[i].line;
        CHECK_MSG(named, "case %zu: %s", i, d.count ? d.items[d.count - 1].message : "(none)");
        char *after = whole_text(doc);
        CHECK_MSG(after && strcmp(before, after) == 0, "case %zu changed the map", i);
        free(after);
        char label[64];
        CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Paste") == 0);
        al_diag_list_clear(&d);
    }
    free(before);
    al_doc_paste_result_free(&r);
    al_doc_close(doc);
}

/* Every brush and entity of a real map copied, pasted into an empty map and copied again:
 * the same text, and the same planes and textures as the file. */
CHECK_TEST(real_map, "/clipboard/real-maps-copy-and-paste-whole")
{
    const char *names[] = {"e1m1.map", "q1_mountain.map"};
    bool any = false;
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        const char *path = scene_shared_map(names[n]);
        if (!path) continue;
        any = true;
        al_map *file = NULL;
        REQUIRE(al_map_read_file(path, &file, NULL) == AL_OK);
        al_doc *a = new_doc("clip-real-a.allium"), *b = new_doc("clip-real-b.allium");
        REQUIRE(a && b);
        REQUIRE(al_doc_import_map(a, file, NULL) == AL_OK);
        int64_t *brushes = NULL, *entities = NULL;
        int nb = 0, ne = al_doc_count(a, "entities") - 1;
        REQUIRE(al_doc_list_brushes(a, -1, &brushes, &nb) == AL_OK);
        entities = malloc((size_t) (ne + 1) * sizeof *entities);
        for (int i = 0; i < ne; i++) entities[i] = i + 1; /* rows 1.. after the world */
        char *first =
            copy_text(a, brushes, nb, entities, ne, file->entities[0].brushes[0].faces[0].valve);
        REQUIRE(first);
        al_doc_paste_result r;
        al_diag_list d = {0};
        CHECK_MSG(paste_text(b, first, NULL, &r, &d), "%s: %s", names[n],
                  d.count ? d.items[0].message : "");
        CHECK(r.brush_count == nb);
        int64_t *all_b = NULL;
        int all_nb = 0;
        REQUIRE(al_doc_list_brushes(b, -1, &all_b, &all_nb) == AL_OK);
        int64_t *all_e = malloc((size_t) (ne + 1) * sizeof *all_e);
        for (int i = 0; i < ne; i++) all_e[i] = i + 1;
        char *second =
            copy_text(b, all_b, all_nb, all_e, ne, file->entities[0].brushes[0].faces[0].valve);
        CHECK_MSG(second && strcmp(first, second) == 0, "%s: a second copy differs", names[n]);
        al_map *back = read_fragment(first, NULL);
        REQUIRE(back);
        /* Entity by entity against the file (the file's world keys are not in a copy). */
        CHECK(back->entity_count == file->entity_count);
        const double none[3] = {0, 0, 0};
        CHECK_MSG(same_geometry(file, back, none), "%s: planes or textures differ", names[n]);
        check_note("%s: %d brushes, %d entities copied and pasted", names[n], nb, ne + 1);
        al_map_destroy(back);
        free(first);
        free(second);
        free(brushes);
        free(entities);
        free(all_b);
        free(all_e);
        al_doc_paste_result_free(&r);
        al_diag_list_clear(&d);
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
