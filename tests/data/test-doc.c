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
#include "mapfile/texture.h"
#include "al-oracle.h"
#include "al-brush.h"
#include "al-clock.h"

#include <math.h>
#include <sqlite3.h>
#include <pthread.h>
#include <time.h>
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
    CHECK(ch.brushes[0].brush == id);
    double lo[3], hi[3];
    CHECK(al_doc_brush_box(doc, id, lo, hi) && hi[0] == 64 && hi[2] == 16);
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

/* A new map NAME holding the box brush [0, 64] x [0, 32] x [0, 16] (its id in *ID). */
static al_doc *new_doc_with_box(const char *name, int64_t *id)
{
    al_doc *doc = new_doc(name);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
    if (doc && al_doc_add_brush(doc, 0, f, 6, id, NULL, NULL) != AL_OK) {
        al_doc_close(doc);
        doc = NULL;
    }
    return doc;
}

CHECK_TEST(transform_resize, "/doc/transform-mirror-and-resize-keep-valid-brushes")
{
    int64_t id;
    al_doc *doc = new_doc_with_box("transform.allium", &id);
    REQUIRE(doc);
    al_doc_change ch = {0};
    const double mirror[3][4] = {{-1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    REQUIRE(al_doc_transform_brushes(doc, &id, 1, mirror, &ch) == AL_OK);
    double lo[3], hi[3];
    CHECK(ch.brush_count == 1 && ch.brushes[0].brush == id);
    CHECK(al_doc_brush_box(doc, id, lo, hi) && lo[0] == -64 && hi[0] == 0);
    REQUIRE(al_doc_resize_brush(doc, id, (double[3]){10, 20, 30}, (double[3]){20, 40, 90}, &ch,
                                NULL) == AL_OK);
    CHECK(ch.brush_count == 1 && ch.brushes[0].brush == id);
    CHECK(al_doc_brush_box(doc, id, lo, hi) && lo[1] == 20 && hi[2] == 90);
    const double flat[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}};
    CHECK(al_doc_transform_brushes(doc, &id, 1, flat, NULL) == AL_ERR_INVALID_ARGUMENT);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* The faces of the document's only brush, as the map export writes them. */
static int export_faces(al_doc *doc, al_map_face out[6])
{
    al_map *m = NULL;
    if (al_doc_export_map(doc, &m, NULL) != AL_OK) return 0;
    int n = 0;
    for (int e = 0; e < m->entity_count; e++)
        for (int b = 0; b < m->entities[e].brush_count; b++)
            for (int f = 0; f < m->entities[e].brushes[b].face_count && n < 6; f++) {
                out[n] = m->entities[e].brushes[b].faces[f];
                out[n].points_text = out[n].material = NULL;
                n++;
            }
    al_map_destroy(m);
    return n;
}

/* The worst texel shift of the corners of FACES moved by M to AFTER. */
static double lock_shift(const al_map_face before[6], const al_map_face after[6],
                         const double m[3][4])
{
    double worst = 0;
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 3; k++) {
            const double *x = before[f].points[k];
            double y[3], a[2], b[2];
            for (int r = 0; r < 3; r++)
                y[r] = m[r][0] * x[0] + m[r][1] * x[1] + m[r][2] * x[2] + m[r][3];
            al_texture_coords(&before[f], x, a);
            al_texture_coords(&after[f], y, b);
            worst = fmax(worst, fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1])));
        }
    return worst;
}

CHECK_TEST(texture_lock, "/doc/texture-lock-moves-textures-with-the-brush-and-undo-restores-them")
{
    for (int valve = 0; valve < 2; valve++) {
        al_doc *doc = new_doc(valve ? "lock-valve.allium" : "lock-standard.allium");
        REQUIRE(doc);
        al_doc_face f[6];
        fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
        for (int i = 0; i < 6; i++) {
            f[i].offset[0] = 5 + i, f[i].offset[1] = -3, f[i].scale[0] = 0.5;
            if (!valve) continue;
            /* Valve axes: the standard ones, written out. */
            al_map_face st = {0};
            memcpy(st.points, f[i].points, sizeof st.points);
            st.offset[0] = f[i].offset[0], st.offset[1] = f[i].offset[1];
            st.scale[0] = f[i].scale[0], st.scale[1] = f[i].scale[1];
            f[i].valve = true;
            al_texture_to_valve(&st, f[i].u_axis, &f[i].u_offset, f[i].v_axis, &f[i].v_offset);
        }
        int64_t id;
        REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, NULL, NULL) == AL_OK);
        al_map_face before[6], after[6], undone[6];
        REQUIRE(export_faces(doc, before) == 6);
        double c = cos(30 * M_PI / 180), sn = sin(30 * M_PI / 180);
        const double turn[3][4] = {{c, -sn, 0, 40}, {sn, c, 0, -8}, {0, 0, 1, 16}};
        const double quarter[3][4] = {{0, -1, 0, 40}, {1, 0, 0, -8}, {0, 0, 1, 16}};
        int approximate = -1;
        al_doc_change ch = {0};
        /* A quarter turn and a move: exact in both formats. */
        REQUIRE(al_doc_transform_brushes_locked(doc, &id, 1, quarter, &approximate, &ch) == AL_OK);
        REQUIRE(export_faces(doc, after) == 6);
        double d = lock_shift(before, after, quarter);
        CHECK_MSG(approximate == 0 && d < 1e-9, "%s, quarter turn: %d approximate, shift %g",
                  valve ? "Valve" : "standard", approximate, d);
        al_doc_change_clear(&ch);
        REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        REQUIRE(export_faces(doc, undone) == 6);
        for (int i = 0; i < 6; i++)
            CHECK(undone[i].offset[0] == before[i].offset[0] &&
                  undone[i].rotation == before[i].rotation &&
                  undone[i].u_offset == before[i].u_offset);
        /* Thirty degrees: exact in Valve 220; in the standard format the floor and ceiling
         * are, the walls the nearest it holds. */
        REQUIRE(al_doc_transform_brushes_locked(doc, &id, 1, turn, &approximate, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        REQUIRE(export_faces(doc, after) == 6);
        d = lock_shift(before, after, turn);
        if (valve)
            CHECK_MSG(approximate == 0 && d < 1e-9, "Valve, 30 degrees: %d approximate, shift %g",
                      approximate, d);
        else
            CHECK_MSG(approximate == 4, "standard, 30 degrees: %d approximate faces", approximate);
        /* Without the lock the texture stays on the world's grid, as before. */
        REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        REQUIRE(al_doc_transform_brushes(doc, &id, 1, quarter, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        REQUIRE(export_faces(doc, after) == 6);
        CHECK(lock_shift(before, after, quarter) > 1);
        al_doc_close(doc);
    }
}

/* A quarter turn about a picked point (a corner of the box, as the rotation centre placed
 * in a 2D view): the box lands where the closed form puts it, the textures stay locked
 * exactly in both formats, and undo gives the faces back unchanged. */
CHECK_TEST(turn_about_corner, "/doc/quarter-turn-about-a-corner-is-closed-form-and-undoes")
{
    for (int valve = 0; valve < 2; valve++) {
        al_doc *doc = new_doc(valve ? "corner-valve.allium" : "corner-standard.allium");
        REQUIRE(doc);
        al_doc_face f[6];
        fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
        for (int i = 0; i < 6; i++) {
            f[i].offset[0] = 3 + i, f[i].offset[1] = 7, f[i].scale[1] = 2;
            if (!valve) continue;
            al_map_face st = {0};
            memcpy(st.points, f[i].points, sizeof st.points);
            st.offset[0] = f[i].offset[0], st.offset[1] = f[i].offset[1];
            st.scale[0] = f[i].scale[0], st.scale[1] = f[i].scale[1];
            f[i].valve = true;
            al_texture_to_valve(&st, f[i].u_axis, &f[i].u_offset, f[i].v_axis, &f[i].v_offset);
        }
        int64_t id;
        REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, NULL, NULL) == AL_OK);
        al_map_face before[6], after[6], undone[6];
        REQUIRE(export_faces(doc, before) == 6);
        /* About the corner (64, 32) counter-clockwise: (x, y) -> (96 - y, x - 32). */
        const double corner[3] = {64, 32, 0};
        double m[3][4];
        al_doc_rotation_matrix(2, 90, corner, m);
        const double want[3][4] = {{0, -1, 0, 96}, {1, 0, 0, -32}, {0, 0, 1, 0}};
        bool exact = true;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) exact = exact && m[r][c] == want[r][c];
        CHECK_MSG(exact, "the matrix about the corner is the closed form");
        int approximate = -1;
        al_doc_change ch = {0};
        REQUIRE(al_doc_transform_brushes_locked(doc, &id, 1, (const double (*)[4]) m, &approximate,
                                                &ch) == AL_OK);
        al_doc_change_clear(&ch);
        double lo[3], hi[3];
        REQUIRE(al_doc_brush_box(doc, id, lo, hi));
        CHECK_MSG(lo[0] == 64 && hi[0] == 96 && lo[1] == -32 && hi[1] == 32 && lo[2] == 0 &&
                      hi[2] == 16,
                  "%s: box %g %g %g .. %g %g %g, closed form 64 -32 0 .. 96 32 16",
                  valve ? "Valve" : "standard", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        REQUIRE(export_faces(doc, after) == 6);
        double d = lock_shift(before, after, (const double (*)[4]) m);
        CHECK_MSG(approximate == 0 && d < 1e-9, "%s: %d approximate, texture shift %g",
                  valve ? "Valve" : "standard", approximate, d);
        REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        REQUIRE(export_faces(doc, undone) == 6);
        bool same = true;
        for (int i = 0; i < 6; i++)
            same = same &&
                   memcmp(undone[i].points, before[i].points, sizeof before[i].points) == 0 &&
                   undone[i].offset[0] == before[i].offset[0] &&
                   undone[i].offset[1] == before[i].offset[1] &&
                   undone[i].rotation == before[i].rotation &&
                   undone[i].u_offset == before[i].u_offset &&
                   undone[i].v_offset == before[i].v_offset;
        CHECK_MSG(same, "%s: undo gives the faces back", valve ? "Valve" : "standard");
        REQUIRE(al_doc_brush_box(doc, id, lo, hi));
        CHECK(lo[0] == 0 && hi[0] == 64 && lo[1] == 0 && hi[1] == 32);
        al_doc_close(doc);
    }
}

/* The worst difference between the texture projections of two readings of one brush. */
static double axes_difference(const al_doc_live *a, const al_doc_live *b)
{
    if (a->change.brush_count != 1 || b->change.brush_count != 1) return INFINITY;
    const al_live_brush *x = &a->change.brushes[0], *y = &b->change.brushes[0];
    if (x->face_count != y->face_count) return INFINITY;
    double worst = 0;
    for (int f = 0; f < x->face_count; f++)
        for (int r = 0; r < 2; r++)
            for (int q = 0; q < 4; q++)
                worst = fmax(worst,
                             fabs(x->faces[f].texture_axes[r][q] - y->faces[f].texture_axes[r][q]));
    return worst;
}

CHECK_TEST(preview_lock, "/doc/a-drags-preview-with-texture-lock-is-what-the-release-writes")
{
    /* Oracle: the preview the engine is shown while dragging (al_doc_live_transform) has
     * the texture projection the document holds once the same map is committed. */
    for (int valve = 0; valve < 2; valve++) {
        al_doc *doc = new_doc(valve ? "preview-valve.allium" : "preview-standard.allium");
        REQUIRE(doc);
        al_doc_face f[6];
        fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
        for (int i = 0; i < 6; i++) {
            f[i].offset[0] = 3 * i, f[i].scale[1] = 2;
            if (!valve) continue;
            al_map_face st = {0};
            memcpy(st.points, f[i].points, sizeof st.points);
            st.offset[0] = f[i].offset[0], st.scale[0] = 1, st.scale[1] = 2;
            f[i].valve = true;
            al_texture_to_valve(&st, f[i].u_axis, &f[i].u_offset, f[i].v_axis, &f[i].v_offset);
        }
        int64_t id;
        REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, NULL, NULL) == AL_OK);
        double c = cos(25 * M_PI / 180), sn = sin(25 * M_PI / 180);
        const double turn[3][4] = {{c, 0, -sn, 12}, {0, 1, 0, 40}, {sn, 0, c, -7}};
        const double quarter[3][4] = {{0, -1, 0, 40}, {1, 0, 0, -8}, {0, 0, 1, 16}};
        const double (*m)[4] = valve ? turn : quarter;
        al_doc_brush_change row = {.brush = id};
        al_doc_change rows = {.brushes = &row, .brush_count = 1};
        al_doc_live preview, committed;
        REQUIRE(al_doc_live_read(doc, &rows, &preview, NULL) == AL_OK);
        al_doc_live_transform(&preview, m, true);
        REQUIRE(al_doc_transform_brushes_locked(doc, &id, 1, m, NULL, NULL) == AL_OK);
        REQUIRE(al_doc_live_read(doc, &rows, &committed, NULL) == AL_OK);
        double d = axes_difference(&preview, &committed);
        CHECK_MSG(d < 1e-9, "%s: the preview's texture projection is off by %g",
                  valve ? "Valve, 25 degrees about Y" : "standard, a quarter turn", d);
        al_doc_live_free(&preview);
        al_doc_live_free(&committed);
        al_doc_close(doc);
    }
}

CHECK_TEST(resize_limit, "/doc/resizing-beyond-the-coordinate-limit-is-refused-with-the-limit")
{
    int64_t id;
    al_doc *doc = new_doc_with_box("resize-limit.allium", &id);
    REQUIRE(doc);
    char path[600];
    snprintf(path, sizeof path, "%s", al_doc_path(doc));
    al_doc_close(doc);
    uint64_t before = fixture_file_hash(path);
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    /* Just past the limit; and far past it, where the scale times the brush's corner at 0
     * is infinity times zero (this used to reach the file as NULL: an I/O error). */
    const double lo[2][3] = {{0, 0, 0}, {-1e308, 0, 0}};
    const double hi[2][3] = {{140000, 32, 16}, {1e308, 32, 16}};
    for (int i = 0; i < 2; i++) {
        al_diag_list d = {0};
        al_doc_change ch = {0};
        CHECK(al_doc_resize_brush(doc, id, lo[i], hi[i], &ch, &d) == AL_ERR_INVALID_ARGUMENT);
        CHECK_MSG(d.count == 1 && strstr(d.items[0].message, "beyond the map's limit of +-131072"),
                  "%s", d.count ? d.items[0].message : "no message");
        if (d.count) check_note("%s", d.items[0].message);
        CHECK(ch.brush_count == 0);
        al_diag_list_clear(&d);
    }
    /* A transform that makes a point no number holds is refused by name as well. */
    const double huge[3][4] = {{1e308, 0, 0, -1e308}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    CHECK(al_doc_transform_brushes(doc, &id, 1, huge, NULL) == AL_ERR_INVALID_ARGUMENT);
    double mins[3], maxs[3];
    char label[64] = "";
    CHECK(al_doc_brush_box(doc, id, mins, maxs) && maxs[0] == 64);
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Add brush") == 0);
    al_doc_close(doc);
    CHECK(fixture_file_hash(path) == before);
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
    CHECK(ch.brushes[0].brush == copy);
    double lo[3], hi[3];
    CHECK(al_doc_brush_box(doc, copy, lo, hi) && lo[1] == 48 && hi[1] == 80);
    CHECK(lo[2] == -8 && hi[2] == 8);
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
    CHECK(ch.brush_count == 1 && ch.brushes[0].brush == copy &&
          !al_doc_brush_box(doc, copy, lo, hi));
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* A triangular prism along x: floor, a back wall and a slope, and its two ends, each
 * given by its outward normal and a point on it. */
static const double wedge_planes[5][2][3] = {
    {{0, 0, -1}, {300, 0, 0}}, {{0, 1, 0}, {300, 200, 0}}, {{0, -1, 2}, {300, 0, 0}},
    {{-1, 0, 0}, {300, 0, 0}}, {{1, 0, 0}, {400, 0, 0}},
};

/* Three points of the plane with normal N (any length) through P, in the faces' order:
 * p1 = P, p0 = p1 + a and p2 = p1 + n x a with a across N, so (p0 - p1) x (p2 - p1) is
 * N |a|^2. */
static void plane_points(const double n[3], const double p[3], double out[3][3])
{
    double e[3] = {fabs(n[0]) < 0.5 * fabs(n[1]) + 0.5 * fabs(n[2]) ? 1 : 0,
                   fabs(n[0]) < 0.5 * fabs(n[1]) + 0.5 * fabs(n[2]) ? 0 : 1, 0};
    double a[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2], n[0] * e[1] - n[1] * e[0]};
    double b[3] = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0]};
    for (int k = 0; k < 3; k++) {
        out[1][k] = p[k];
        out[0][k] = p[k] + 64 * a[k];
        out[2][k] = p[k] + 64 * b[k];
    }
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
    al_doc_face prism[5];
    memcpy(prism, f, sizeof prism);
    for (int i = 0; i < 5; i++)
        plane_points(wedge_planes[i][0], wedge_planes[i][1], prism[i].points);
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

/* Hollowing drops faces of each wall, leaving gaps in their positions: a face index still
 * counts the brush's faces in order, as the compiler input lists them. */
CHECK_TEST(face_index_gaps, "/doc/face-indices-count-faces-in-order-after-hollowing")
{
    al_doc *doc = new_doc("face-gaps.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 128, 160, 96, "stone", f);
    int64_t box = 0, *walls = NULL;
    int count = 0;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &box, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_hollow_brushes(doc, &box, 1, 16, &walls, &count, NULL, NULL) == AL_OK);
    REQUIRE(count == 6);
    al_doc_input in = {0};
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    int b = -1;
    for (int i = 0; i < in.input.brush_count; i++)
        if (in.brush_ids[i] == walls[0]) b = i;
    REQUIRE(b >= 0);
    int last = in.input.brushes[b].face_count - 1;
    al_doc_input_free(&in);
    REQUIRE(al_doc_set_face_material(doc, walls[0], &last, 1, "lava1", NULL) == AL_OK);
    CHECK(al_doc_set_face_material(doc, walls[0], (int[]){last + 1}, 1, "lava1", NULL) ==
          AL_ERR_NOT_FOUND);
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    int lava = 0;
    for (int i = 0; i < in.input.brush_count; i++) {
        if (in.brush_ids[i] != walls[0]) continue;
        const al_brush_desc *bd = &in.input.brushes[i];
        for (int k = 0; k < bd->face_count; k++) {
            int m = in.input.faces[bd->first_face + k].material;
            int is_lava = m >= 0 && strcmp(in.input.materials[m].name, "lava1") == 0;
            CHECK_MSG(is_lava == (k == last), "face %d of %d is%s lava", k, bd->face_count,
                      is_lava ? "" : " not");
            lava += is_lava;
        }
    }
    CHECK(lava == 1);
    al_doc_input_free(&in);
    /* The same face read back with its texture; one past the last is not there. */
    al_doc_texture tex;
    CHECK(al_doc_face_texture(doc, walls[0], last, &tex) == AL_OK &&
          strcmp(tex.material, "lava1") == 0 && tex.scale[0] == 1 && tex.scale[1] == 1);
    CHECK(al_doc_face_texture(doc, walls[0], last + 1, &tex) == AL_ERR_NOT_FOUND);
    CHECK(al_doc_face_texture(doc, walls[0], 0, &tex) == AL_OK && strcmp(tex.material, "stone") == 0);
    free(walls);
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
    double lo[3], hi[3];
    CHECK(ch.brush_count == 1 && ch.brushes[0].brush == brush &&
          al_doc_brush_box(doc, brush, lo, hi) && lo[2] == 64);
    CHECK(al_doc_delete_entities(doc, (int64_t[]){0}, 1, NULL) == AL_ERR_INVALID_ARGUMENT);
    REQUIRE(al_doc_delete_entities(doc, &door, 1, &ch) == AL_OK);
    CHECK(ch.brush_count == 1 && ch.brushes[0].brush == brush &&
          !al_doc_brush_box(doc, brush, lo, hi));
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
            CHECK(in.input.materials[m].flags == (AL_MATERIAL_LIQUID | AL_MATERIAL_LAVA));
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
    REQUIRE(al_doc_end_group(doc, NULL) == AL_OK);
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

/* The report of an edit must name every brush whose existence or bounds differ between
 * the tables before and after (it may name more: a material change, say). */
static bool report_matches(const brush_box *a, int na, const brush_box *b, int nb,
                           const al_doc_change *c, int step)
{
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

/* What the marks and the layers are read from (al_doc_change.marks): every entity row
 * with its brushes, and every brush's state, as text. */
static char *marks_of(al_doc *doc)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    al_doc_entity_row *rows = NULL;
    int count = 0;
    if (!f || al_doc_list_entities(doc, &rows, &count) != AL_OK) {
        if (f) fclose(f);
        free(text);
        return NULL;
    }
    for (int e = 0; e < count; e++) {
        fprintf(f, "%lld %s %s %u:", (long long) rows[e].id, rows[e].classname, rows[e].properties,
                rows[e].state);
        int64_t *ids = NULL;
        int n = 0;
        if (al_doc_list_brushes(doc, rows[e].id, &ids, &n) == AL_OK)
            for (int b = 0; b < n; b++) fprintf(f, " %lld", (long long) ids[b]);
        free(ids);
        fputc('\n', f);
    }
    al_doc_entity_rows_free(rows, count);
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int n = 0;
    if (al_doc_brush_states(doc, &ids, &states, &n) == AL_OK)
        for (int b = 0; b < n; b++) fprintf(f, "%lld=%u ", (long long) ids[b], states[b]);
    free(ids);
    free(states);
    fclose(f);
    return text;
}

CHECK_TEST(change_oracle, "/doc/every-edit-undo-and-redo-reports-exactly-the-brushes-it-changed")
{
    al_doc *doc = new_doc("change-oracle.allium");
    REQUIRE(doc);
    int64_t door = 0;
    REQUIRE(al_doc_add_entity(doc, "func_door", "{\"targetname\": \"d\"}", &door, NULL, NULL) ==
            AL_OK);
    uint64_t s = 11;
    int checked = 0, marks_told = 0, shapes_only = 0;
    for (int i = 0; i < 150; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int kind = (int) (s >> 59) % 15;
        if (i % 10 == 9) kind = 15; /* a mark now and then */
        char *marks_before = marks_of(doc);
        REQUIRE(marks_before != NULL);
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
        } else if (kind == 11) {
            const double plane[3][3] = {{x + 12, 0, 0}, {x + 12, 0, 8}, {x + 4, 40, 8}};
            st = al_doc_clip_brushes(doc, ids, count, plane, AL_DOC_CLIP_BOTH, NULL, NULL, &change,
                                     NULL);
        } else if (kind == 12) {
            int64_t other = ids[(s >> 30) % (uint64_t) count];
            st = al_doc_subtract_brushes(doc, &pick, 1, &other, other != pick, NULL, NULL, &change,
                                         NULL);
        } else if (kind == 13) {
            st = al_doc_move_brushes_to_entity(doc, &pick, 1, (s >> 30) % 2 ? door : 0, &change);
        } else if (kind == 14) {
            int64_t pair[2] = {pick, ids[(s >> 30) % (uint64_t) count]};
            st = al_doc_merge_brushes(doc, pair, 2, NULL, &change, NULL);
        } else if (kind == 15) {
            unsigned bits = (s >> 30) % 2 ? AL_DOC_STATE_HIDDEN : AL_DOC_STATE_LOCKED;
            st = (s >> 31) % 2
                     ? al_doc_set_state(doc, &pick, 1, NULL, 0, bits, bits, "Mark", &change, NULL)
                     : al_doc_set_state(doc, NULL, 0, &door, 1, bits, (s >> 32) % 2 ? bits : 0,
                                        "Mark", &change, NULL);
        } else {
            /* A group: move the door and add a brush to the world, one step. */
            REQUIRE(al_doc_begin_group(doc, "move and add") == AL_OK);
            al_doc_face f[6];
            fixture_box_faces(x, 100, 0, x + 8, 108, 8, "g", f);
            st = al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL);
            if (st == AL_OK) st = al_doc_move_entity(doc, door, (double[3]){16, 0, 0}, NULL);
            /* The group reports what all its edits changed. */
            if (st == AL_OK) st = al_doc_end_group(doc, &change);
            else al_doc_cancel_group(doc);
        }
        free(ids);
        if (st == AL_OK) {
            int nafter = boxes_of(doc, &after);
            CHECK(report_matches(before, nbefore, after, nafter, &change, i));
            checked++;
            free(after);
            /* A change of what the marks are read from is told; a move or a resize (of
             * brushes that exist) tells none. */
            char *marks_after = marks_of(doc);
            REQUIRE(marks_after != NULL);
            bool differ = strcmp(marks_before, marks_after) != 0;
            CHECK_MSG(!differ || change.marks,
                      "step %d (kind %d): the marks' sources changed "
                      "untold",
                      i, kind);
            if ((kind == 3 || kind == 4) && count >= 3) {
                CHECK_MSG(!change.marks, "step %d: a move or resize told of marks", i);
                shapes_only++;
            }
            marks_told += change.marks;
            free(marks_after);
        }
        free(marks_before);
        free(before);
        al_doc_change_clear(&change);
    }
    check_note("%d edits, undos and redos checked against the brush table; %d told of marks, "
               "%d moves and resizes did not",
               checked, marks_told, shapes_only);
    CHECK(checked > 100 && marks_told > 10 && shapes_only > 5);
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

typedef struct {
    al_doc_cache_conn *conn;
    const char *key;
    al_status status;
    uint64_t done_ns;
} cache_store_job;

static void *store_in_thread(void *arg)
{
    cache_store_job *job = arg;
    job->status = al_doc_cache_conn_put(job->conn, job->key, "world", "fifth", 5);
    job->done_ns = al_clock_ns();
    return NULL;
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

    /* A connection of its own (the engine's) reads what the document stored and stores
     * what the document then reads, in the same one entry per kind; a read-only one
     * stores nothing. */
    const char *path = al_doc_path(doc);
    al_doc_cache_conn *conn = NULL, *reader = NULL;
    REQUIRE(al_doc_cache_conn_open(path, true, &conn) == AL_OK);
    REQUIRE(al_doc_cache_conn_open(path, false, &reader) == AL_OK);
    REQUIRE(al_doc_cache_conn_get(conn, k1, &data, &size) == AL_OK);
    CHECK(size == 6 && memcmp(data, "second", 6) == 0);
    free(data);
    REQUIRE(al_doc_cache_conn_put(conn, salted, "world", "third!!", 7) == AL_OK);
    REQUIRE(al_doc_cache_conn_put(conn, k0, "light", "lit", 3) == AL_OK);
    CHECK(al_doc_cache_get(doc, k1, &data, &size) == AL_ERR_NOT_FOUND);
    REQUIRE(al_doc_cache_get(doc, salted, &data, &size) == AL_OK);
    CHECK(size == 7 && memcmp(data, "third!!", 7) == 0);
    free(data);
    REQUIRE(al_doc_cache_conn_get(reader, k0, &data, &size) == AL_OK);
    CHECK(size == 3 && memcmp(data, "lit", 3) == 0);
    free(data);
    CHECK(al_doc_cache_conn_put(reader, k1, "world", "fourth", 6) == AL_OK);
    CHECK(al_doc_cache_get(doc, k1, &data, &size) == AL_ERR_NOT_FOUND);
    /* While the document writes, a store on another thread waits for it rather than
     * failing. */
    REQUIRE(al_doc_begin_group(doc, "held") == AL_OK);
    REQUIRE(al_doc_set_property(doc, 0, "message", "held", NULL, NULL) == AL_OK);
    cache_store_job job = {conn, k1, AL_ERR_IO, 0};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, store_in_thread, &job) == 0);
    uint64_t t0 = al_clock_ns();
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    REQUIRE(al_doc_end_group(doc, NULL) == AL_OK);
    pthread_join(thread, NULL);
    CHECK_MSG(job.status == AL_OK && job.done_ns - t0 >= 150 * 1000 * 1000,
              "the store returned %d after %.0f ms, while the document wrote for 200 ms",
              (int) job.status, (double) (job.done_ns - t0) / 1e6);
    CHECK(al_doc_cache_get(doc, k1, &data, &size) == AL_OK && size == 5);
    free(data);
    CHECK(al_doc_can_undo(doc));
    al_doc_cache_conn_close(reader);
    al_doc_cache_conn_close(conn);
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

/* --- cutting brushes: clip, subtract, merge ------------------------------------------- */

/* The snapshot with the brushes' ids after it: undo must give back the rows themselves. */
static char *state(al_doc *doc)
{
    char *text = snapshot(doc);
    int64_t *ids = NULL;
    int count = 0;
    if (!text || al_doc_list_brushes(doc, -1, &ids, &count) != AL_OK) {
        free(text);
        return NULL;
    }
    size_t len = strlen(text), size = len + 24 * (size_t) count + 16;
    char *out = realloc(text, size);
    if (out)
        for (int i = 0; i < count; i++)
            len += (size_t) snprintf(out + len, size - len, " %lld", (long long) ids[i]);
    free(ids);
    return out;
}

/* Checks that undo gives back BEFORE exactly and redo gives back the state now, then undoes
 * again (the edit is gone afterwards). An edit that changed nothing left no step. */
static void check_undo_redo(al_doc *doc, const char *before, const char *what)
{
    char *after = state(doc);
    if (after && before && strcmp(after, before) == 0) {
        free(after);
        return;
    }
    CHECK_MSG(al_doc_undo(doc, NULL) == AL_OK, "%s: undo", what);
    char *undone = state(doc);
    CHECK_MSG(undone && before && strcmp(undone, before) == 0, "%s: undo restores the brushes",
              what);
    CHECK_MSG(al_doc_redo(doc, NULL) == AL_OK, "%s: redo", what);
    char *redone = state(doc);
    CHECK_MSG(redone && after && strcmp(redone, after) == 0, "%s: redo applies it again", what);
    CHECK_MSG(al_doc_undo(doc, NULL) == AL_OK, "%s: undo again", what);
    free(after);
    free(undone);
    free(redone);
}

/* Whether the last diagnostic of D says SAYS (what it says instead is noted). */
static bool last_says(const al_diag_list *d, const char *says)
{
    const char *said = d->count ? d->items[d->count - 1].message : "(no diagnostic)";
    if (d->count && strstr(said, says)) return true;
    check_note("expected a diagnostic saying \"%s\", got: %s", says, said);
    return false;
}

/* Adds the box [X0, X1] x [Y0, Y1] x [Z0, Z1] of MATERIAL to ENTITY; its id, 0 if refused. */
static int64_t add_box(al_doc *doc, int64_t entity, double x0, double y0, double z0, double x1,
                       double y1, double z1, const char *material)
{
    al_doc_face f[6];
    int64_t id = 0;
    fixture_box_faces(x0, y0, z0, x1, y1, z1, material, f);
    return al_doc_add_brush(doc, entity, f, 6, &id, NULL, NULL) == AL_OK ? id : 0;
}

/* The faces of MATERIAL in BRUSH (in every brush when BRUSH < 0), as the compiler input
 * has them. */
static int faces_of(al_doc *doc, int64_t brush, const char *material)
{
    al_doc_input in;
    if (al_doc_build_input(doc, &in, NULL) != AL_OK) return -1;
    int n = 0;
    for (int b = 0; b < in.input.brush_count; b++) {
        const al_brush_desc *d = &in.input.brushes[b];
        if (brush >= 0 && in.brush_ids[b] != brush) continue;
        for (int f = d->first_face; f < d->first_face + d->face_count; f++)
            n += strcmp(in.input.materials[in.input.faces[f].material].name, material) == 0;
    }
    al_doc_input_free(&in);
    return n;
}

/* A brush as the compiler input has it: the planes of its faces. */
typedef struct plane_brush {
    int count;
    al_plane planes[AL_BRUSH_MAX_FACES];
} plane_brush;

/* The brushes IDS of DOC as plane sets into OUT; false if one is missing. */
static bool read_planes(al_doc *doc, const int64_t *ids, int count, plane_brush *out)
{
    al_doc_input in;
    if (al_doc_build_input(doc, &in, NULL) != AL_OK) return false;
    bool found = true;
    for (int i = 0; i < count; i++) {
        int b = 0;
        while (b < in.input.brush_count && in.brush_ids[b] != ids[i]) b++;
        out[i].count = 0;
        if (b == in.input.brush_count) {
            found = false;
            continue;
        }
        const al_brush_desc *d = &in.input.brushes[b];
        for (int f = 0; f < d->face_count && out[i].count < AL_BRUSH_MAX_FACES; f++) {
            const al_face_desc *face = &in.input.faces[d->first_face + f];
            al_plane *p = &out[i].planes[out[i].count];
            if (al_plane_from_points(face->points[0], face->points[1], face->points[2], p->normal,
                                     &p->dist))
                out[i].count++;
        }
    }
    al_doc_input_free(&in);
    return found;
}

/* Whether P lies in B (behind every plane): 1 inside, 0 outside, -1 within EPS of its
 * surface (the oracles skip such points). */
static int point_in(const plane_brush *b, const double p[3], double eps)
{
    bool near = false;
    for (int k = 0; k < b->count; k++) {
        const al_plane *q = &b->planes[k];
        double d = q->normal[0] * p[0] + q->normal[1] * p[1] + q->normal[2] * p[2] - q->dist;
        if (d > eps) return 0;
        if (d > -eps) near = true;
    }
    return near ? -1 : 1;
}

/* How many of the COUNT brushes B hold P, or -1 if P is near the surface of one. */
static int holders(const plane_brush *b, int count, const double p[3])
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        int w = point_in(&b[i], p, 0.01);
        if (w < 0) return -1;
        n += w;
    }
    return n;
}

static double unit_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double) (*s >> 11) / 9007199254740992.0;
}

/* A random point of the box [MINS - PAD, MAXS + PAD]. */
static void random_point(uint64_t *s, const double mins[3], const double maxs[3], double pad,
                         double p[3])
{
    for (int k = 0; k < 3; k++)
        p[k] = mins[k] - pad + (maxs[k] - mins[k] + 2 * pad) * unit_random(s);
}

/* A random unit normal. */
static void random_normal(uint64_t *s, double n[3])
{
    double len = 0;
    while (len < 0.1) {
        for (int k = 0; k < 3; k++) n[k] = 2 * unit_random(s) - 1;
        len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    for (int k = 0; k < 3; k++) n[k] /= len;
}

/* A box with a slanted face through its centre (normal N), as a brush of ENTITY. */
static int64_t add_chamfered_box(al_doc *doc, int64_t entity, const double mins[3],
                                 const double maxs[3], const double n[3], const char *material)
{
    al_doc_face f[7];
    fixture_box_faces(mins[0], mins[1], mins[2], maxs[0], maxs[1], maxs[2], material, f);
    f[6] = f[0];
    double centre[3];
    for (int k = 0; k < 3; k++) centre[k] = (mins[k] + maxs[k]) / 2;
    plane_points(n, centre, f[6].points);
    int64_t id = 0;
    return al_doc_add_brush(doc, entity, f, 7, &id, NULL, NULL) == AL_OK ? id : 0;
}

/* A new document NAME (not durable: the oracles make hundreds of edits) holding the test
 * brushes IDS: a box, a wedge and a chamfered box. NULL if one was refused. */
static al_doc *new_cut_doc(const char *name, int64_t ids[3])
{
    al_doc *doc = new_doc(name);
    if (!doc) return NULL;
    al_doc_set_durable(doc, false);
    al_doc_face f[6];
    ids[0] = add_box(doc, 0, 0, 0, 0, 128, 96, 64, "stone");
    fixture_box_faces(0, 0, 0, 1, 1, 1, "stone", f);
    for (int i = 0; i < 5; i++) plane_points(wedge_planes[i][0], wedge_planes[i][1], f[i].points);
    ids[1] = 0;
    al_doc_add_brush(doc, 0, f, 5, &ids[1], NULL, NULL);
    ids[2] = add_chamfered_box(doc, 0, (double[3]){-200, -40, 8}, (double[3]){-72, 88, 100},
                               (double[3]){0.6, 0.48, 0.64}, "trim");
    if (ids[0] && ids[1] && ids[2]) return doc;
    al_doc_close(doc);
    return NULL;
}

/* Oracle: for random planes, a clipped brush's parts are the brush's points on the kept
 * side (both parts: all its points, each in one part), tested at thousands of points; two
 * parts merge back into the brush. */
CHECK_TEST(clip_oracle, "/doc/clip-keeps-exactly-the-brush-on-the-kept-side-of-the-plane")
{
    int64_t ids[3];
    al_doc *doc = new_cut_doc("clip-oracle.allium", ids);
    REQUIRE(doc);
    uint64_t seed = 21, merge_seed = 5;
    int points = 0, splits = 0, deleted = 0, merges = 0;
    for (int trial = 0; trial < 24; trial++) {
        int64_t brush = ids[trial % 3];
        al_doc_clip_keep keep = (al_doc_clip_keep) (trial / 3 % 3);
        plane_brush orig, parts[2];
        double mins[3], maxs[3], n[3], at[3], pts[3][3], normal[3], dist;
        REQUIRE(read_planes(doc, &brush, 1, &orig) && al_doc_brush_box(doc, brush, mins, maxs));
        random_normal(&seed, n);
        random_point(&seed, mins, maxs, 0, at);
        plane_points(n, at, pts);
        REQUIRE(al_plane_from_points(pts[0], pts[1], pts[2], normal, &dist));
        char *before = state(doc);
        int64_t *result = NULL;
        int count = -1;
        al_doc_change ch = {0};
        REQUIRE(al_doc_clip_brushes(doc, &brush, 1, (const double (*)[3]) pts, keep, &result, &count,
                                    &ch, NULL) == AL_OK);
        REQUIRE(count >= 0 && count <= 2 && (count == 0 || result[0] == brush));
        REQUIRE(read_planes(doc, result, count, parts));
        splits += count >= 1 && ch.brush_count > 0;
        deleted += count == 0;
        int wrong = 0, overlap = 0, misplaced = 0;
        for (int i = 0; i < 4000; i++) {
            double p[3];
            random_point(&seed, mins, maxs, 8, p);
            double side = normal[0] * p[0] + normal[1] * p[1] + normal[2] * p[2] - dist;
            int in = point_in(&orig, p, 0.01), held = holders(parts, count, p);
            if (fabs(side) < 0.01 || in < 0 || held < 0) continue;
            bool want =
                in == 1 && (keep == AL_DOC_CLIP_BOTH || (keep == AL_DOC_CLIP_FRONT) == (side > 0));
            wrong += (held > 0) != want;
            overlap += held > 1;
            /* With both parts, the brush's own row keeps the back part. */
            if (count == 2) misplaced += point_in(&parts[0], p, 0.01) == 1 && side > 0;
            points++;
        }
        CHECK_MSG(wrong == 0 && overlap == 0 && misplaced == 0,
                  "trial %d (keep %d): %d points misjudged, %d in both parts, %d in the wrong "
                  "part",
                  trial, (int) keep, wrong, overlap, misplaced);
        if (count == 2) {
            /* The two parts merge back into the brush. */
            int64_t merged = 0;
            plane_brush whole;
            REQUIRE(al_doc_merge_brushes(doc, result, 2, &merged, NULL, NULL) == AL_OK);
            REQUIRE(merged == brush && read_planes(doc, &merged, 1, &whole));
            for (int i = 0; i < 2000; i++) {
                double p[3];
                random_point(&merge_seed, mins, maxs, 8, p);
                int in = point_in(&orig, p, 0.01), now = point_in(&whole, p, 0.01);
                wrong += in >= 0 && now >= 0 && in != now;
            }
            CHECK_MSG(wrong == 0, "trial %d: the merged parts differ from the brush", trial);
            REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
            merges++;
        }
        check_undo_redo(doc, before, "clip");
        free(result);
        free(before);
        al_doc_change_clear(&ch);
    }
    check_note("%d points checked; %d clips split a brush, %d deleted one; %d merged back", points,
               splits, deleted, merges);
    CHECK(points > 40000 && splits > 6 && deleted > 0 && merges > 2);
    al_doc_close(doc);
}

CHECK_TEST(clip_examples, "/doc/clip-splits-a-box-caps-it-and-refuses-bad-planes")
{
    al_doc *doc = new_doc("clip.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 128, 64, 32, "stone", f);
    f[1].material = "side"; /* the +x face */
    int64_t box = 0, other = 0;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &box, NULL, NULL) == AL_OK);
    REQUIRE((other = add_box(doc, 0, 500, 0, 0, 564, 64, 32, "stone")));
    /* x = 48, normal +x: the box splits at 48, the other box lies wholly in front. */
    const double plane[3][3] = {{48, 0, 0}, {48, 0, 32}, {48, 64, 32}};
    double n[3], dist;
    REQUIRE(al_plane_from_points(plane[0], plane[1], plane[2], n, &dist) && n[0] == 1 &&
            dist == 48);
    char *before = state(doc);
    al_doc_change ch = {0};
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_clip_brushes(doc, (int64_t[]){box, other}, 2, plane, AL_DOC_CLIP_BOTH, &ids,
                                &count, &ch, NULL) == AL_OK);
    REQUIRE(count == 3);
    CHECK(ids[0] == box && ids[2] == other);
    double mins[3], maxs[3];
    CHECK(al_doc_brush_box(doc, box, mins, maxs) && mins[0] == 0 && maxs[0] == 48);
    CHECK(al_doc_brush_box(doc, ids[1], mins, maxs) && mins[0] == 48 && maxs[0] == 128);
    CHECK(ch.brush_count == 2); /* the other box did not change */
    /* Each part has six faces; the back part's new face takes the material of the face
     * nearest its direction (+x: "side"), the front part's too (-x: "stone"). */
    CHECK(al_doc_count(doc, "faces") == 3 * 6);
    CHECK(faces_of(doc, box, "side") == 1 && faces_of(doc, ids[1], "side") == 1);
    CHECK(faces_of(doc, box, "stone") == 5 && faces_of(doc, ids[1], "stone") == 5);
    check_undo_redo(doc, before, "clip both");
    free(ids);
    /* Keeping the front deletes what lies behind and keeps the row for the front part. */
    REQUIRE(al_doc_clip_brushes(doc, (int64_t[]){box}, 1, plane, AL_DOC_CLIP_FRONT, &ids, &count,
                                NULL, NULL) == AL_OK);
    CHECK(count == 1 && ids[0] == box);
    CHECK(al_doc_brush_box(doc, box, mins, maxs) && mins[0] == 48 && maxs[0] == 128);
    free(ids);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    const double behind_all[3][3] = {{600, 0, 0}, {600, 0, 32}, {600, 64, 32}};
    REQUIRE(al_doc_clip_brushes(doc, (int64_t[]){box, other}, 2, behind_all, AL_DOC_CLIP_FRONT,
                                &ids, &count, NULL, NULL) == AL_OK);
    CHECK(count == 0 && al_doc_count(doc, "brushes") == 0);
    free(ids);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    /* A plane along a face does not split: no sliver, nothing changes. */
    const double on_face[3][3] = {{128, 0, 0}, {128, 0, 32}, {128, 64, 32}};
    REQUIRE(al_doc_clip_brushes(doc, &box, 1, on_face, AL_DOC_CLIP_BOTH, &ids, &count, &ch, NULL) ==
            AL_OK);
    CHECK(count == 1 && ch.brush_count == 0);
    free(ids);

    /* Bad input: refused with the reason, and the document stays as it was. */
    char *now = state(doc);
    CHECK(now && strcmp(now, before) == 0);
    struct {
        double points[3][3];
        int64_t brush;
        al_status status;
        const char *says;
    } bad[] = {
        {{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}, box, AL_ERR_INVALID_ARGUMENT, "collinear"},
        {{{0, 0, 0}, {0, NAN, 1}, {2, 0, 2}}, box, AL_ERR_INVALID_ARGUMENT, "finite"},
        {{{0, 0, 0}, {0, 1e9, 1}, {2, 0, 2}}, box, AL_ERR_INVALID_ARGUMENT, "finite"},
        {{{48, 0, 0}, {48, 0, 32}, {48, 64, 32}}, 9999, AL_ERR_NOT_FOUND, "brush 9999"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        al_diag_list d = {0};
        ids = (int64_t *) &count; /* must come back NULL */
        CHECK_MSG(al_doc_clip_brushes(doc, (int64_t[]){other, bad[i].brush}, 2,
                                      (const double (*)[3]) bad[i].points, AL_DOC_CLIP_BOTH, &ids,
                                      &count, NULL, &d) == bad[i].status,
                  "case %zu", i);
        CHECK_MSG(last_says(&d, bad[i].says), "case %zu", i);
        CHECK(ids == NULL && count == 0);
        al_diag_list_clear(&d);
    }
    CHECK(al_doc_clip_brushes(doc, &box, 1, plane, (al_doc_clip_keep) 7, NULL, NULL, NULL, NULL) ==
          AL_ERR_INVALID_ARGUMENT);
    char *after = state(doc);
    CHECK(after && strcmp(after, before) == 0);
    free(after);
    free(now);
    free(before);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* Oracle: a point is in the pieces of a subtraction exactly when it is in the target and
 * not in the cutter, and in one piece at most. */
CHECK_TEST(subtract_oracle, "/doc/subtract-leaves-the-target-outside-the-cutter-in-disjoint-pieces")
{
    int64_t ids[3];
    al_doc *doc = new_cut_doc("subtract-oracle.allium", ids);
    REQUIRE(doc);
    uint64_t seed = 77;
    int points = 0, cuts = 0, pieces = 0;
    for (int trial = 0; trial < 18; trial++) {
        int64_t target = ids[trial % 3];
        double mins[3], maxs[3];
        REQUIRE(al_doc_brush_box(doc, target, mins, maxs));
        /* One or two cutters: chamfered boxes about random points of the target's box. */
        int ncut = trial % 4 == 3 ? 2 : 1;
        int64_t cutters[2];
        for (int c = 0; c < ncut; c++) {
            double centre[3], half[3], n[3], lo[3], hi[3];
            random_point(&seed, mins, maxs, 0, centre);
            random_normal(&seed, n);
            for (int k = 0; k < 3; k++) {
                half[k] = 8 + 40 * unit_random(&seed);
                lo[k] = centre[k] - half[k];
                hi[k] = centre[k] + half[k];
            }
            cutters[c] = add_chamfered_box(doc, 0, lo, hi, n, "cutter");
            REQUIRE(cutters[c]);
        }
        plane_brush t, c[2], *parts = calloc(64, sizeof *parts);
        REQUIRE(parts && read_planes(doc, &target, 1, &t) && read_planes(doc, cutters, ncut, c));
        char *before = state(doc);
        int64_t *result = NULL;
        int count = 0;
        REQUIRE(al_doc_subtract_brushes(doc, &target, 1, cutters, ncut, &result, &count, NULL,
                                        NULL) == AL_OK);
        REQUIRE(count <= 64 && read_planes(doc, result, count, parts));
        cuts += count != 1 || parts[0].count != t.count;
        pieces += count;
        int wrong = 0, overlap = 0;
        for (int i = 0; i < 4000; i++) {
            double p[3];
            random_point(&seed, mins, maxs, 8, p);
            int in = point_in(&t, p, 0.01), inside_cutter = holders(c, ncut, p);
            int held = holders(parts, count, p);
            if (in < 0 || inside_cutter < 0 || held < 0) continue;
            wrong += (held > 0) != (in == 1 && inside_cutter == 0);
            overlap += held > 1;
            points++;
        }
        CHECK_MSG(wrong == 0 && overlap == 0, "trial %d: %d points misjudged, %d in two pieces",
                  trial, wrong, overlap);
        /* The cutters stay as they were. */
        plane_brush again[2];
        CHECK(read_planes(doc, cutters, ncut, again) && again[0].count == c[0].count);
        check_undo_redo(doc, before, "subtract");
        REQUIRE(al_doc_delete_brushes(doc, cutters, ncut, NULL) == AL_OK);
        free(result);
        free(before);
        free(parts);
    }
    check_note("%d points checked; %d subtractions cut, into %d pieces", points, cuts, pieces);
    CHECK(points > 30000 && cuts > 8);
    al_doc_close(doc);
}

CHECK_TEST(subtract_examples, "/doc/subtract-carves-a-doorway-into-three-pieces-and-checks-input")
{
    al_doc *doc = new_doc("subtract.allium");
    REQUIRE(doc);
    int64_t wall = 0, door = 0, far = 0;
    REQUIRE((wall = add_box(doc, 0, 0, 0, 0, 256, 16, 128, "brick")));
    REQUIRE((door = add_box(doc, 0, 96, -8, -8, 160, 24, 96, "frame")));
    REQUIRE((far = add_box(doc, 0, 1000, 0, 0, 1064, 64, 64, "brick")));
    char *before = state(doc);
    al_doc_change ch = {0};
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_subtract_brushes(doc, (int64_t[]){wall, far}, 2, &door, 1, &ids, &count, &ch,
                                    NULL) == AL_OK);
    /* Left of the doorway, right of it and the lintel above; the far brush is untouched. */
    CHECK_MSG(count == 4, "%d brushes", count);
    CHECK(ids[0] == wall && ids[count - 1] == far);
    CHECK(ch.brush_count == 3);
    CHECK(al_doc_count(doc, "brushes") == 5);
    double volume = 0;
    for (int i = 0; i < count - 1; i++) {
        double mins[3], maxs[3];
        REQUIRE(al_doc_brush_box(doc, ids[i], mins, maxs));
        volume += (maxs[0] - mins[0]) * (maxs[1] - mins[1]) * (maxs[2] - mins[2]);
    }
    CHECK_NEAR(volume, 256.0 * 16 * 128 - 64.0 * 16 * 96, 1e-6);
    /* Faces on the cutter's planes take its material: the cutter's own six, the side
     * pieces' inner faces, and the lintel's underside and two ends (between it and the side
     * pieces). */
    int frames = faces_of(doc, -1, "frame");
    CHECK_MSG(frames == 6 + 2 + 3, "%d faces of frame", frames);
    check_undo_redo(doc, before, "subtract");
    free(ids);
    /* A cutter swallowing the target deletes it. */
    REQUIRE(al_doc_subtract_brushes(doc, &door, 1, &wall, 1, &ids, &count, NULL, NULL) == AL_OK);
    CHECK(count == 3); /* the doorway cut the door's box into three pieces too */
    free(ids);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    int64_t inner = add_box(doc, 0, 100, 0, 0, 120, 16, 20, "brick");
    REQUIRE(inner);
    REQUIRE(al_doc_subtract_brushes(doc, &inner, 1, &door, 1, &ids, &count, NULL, NULL) == AL_OK);
    CHECK(count == 0 && !al_doc_brush_box(doc, inner, (double[3]){0}, (double[3]){0}));
    free(ids);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK); /* the inner brush */
    /* Bad input changes nothing. */
    al_diag_list d = {0};
    CHECK(al_doc_subtract_brushes(doc, &wall, 1, (int64_t[]){door, wall}, 2, NULL, NULL, NULL,
                                  &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(last_says(&d, "both a target and a cutter"));
    al_diag_list_clear(&d);
    CHECK(al_doc_subtract_brushes(doc, &wall, 1, (int64_t[]){4242}, 1, NULL, NULL, NULL, &d) ==
          AL_ERR_NOT_FOUND);
    CHECK(last_says(&d, "brush 4242"));
    al_diag_list_clear(&d);
    char *after = state(doc);
    CHECK(after && strcmp(after, before) == 0);
    free(after);
    free(before);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

CHECK_TEST(merge, "/doc/merge-joins-a-convex-union-and-refuses-an-l-shape")
{
    al_doc *doc = new_doc("merge.allium");
    REQUIRE(doc);
    al_doc_face f[7];
    int64_t base = 0, roof = 0, l_part = 0;
    REQUIRE((base = add_box(doc, 0, 0, 0, 0, 64, 64, 32, "stone")));
    /* On top: 64 x 64 x 32, its +x top edge bevelled by the plane x + z = 96. */
    fixture_box_faces(0, 0, 32, 64, 64, 64, "stone", f);
    f[6] = f[0];
    f[6].material = "roof";
    plane_points((double[3]){1, 0, 1}, (double[3]){64, 0, 32}, f[6].points);
    REQUIRE(al_doc_add_brush(doc, 0, f, 7, &roof, NULL, NULL) == AL_OK);
    REQUIRE((l_part = add_box(doc, 0, 64, 0, 0, 128, 32, 32, "stone")));
    plane_brush orig[2];
    REQUIRE(read_planes(doc, (int64_t[]){base, roof}, 2, orig));

    /* The L-shape is refused and nothing changes (not even the history). */
    char *before = state(doc), label[64] = "", label_after[64] = "";
    al_doc_undo_label(doc, false, label, sizeof label);
    al_diag_list d = {0};
    int64_t merged = -1;
    CHECK(al_doc_merge_brushes(doc, (int64_t[]){base, l_part}, 2, &merged, NULL, &d) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(last_says(&d, "the brushes' union is not convex"));
    CHECK(merged == -1);
    al_doc_undo_label(doc, false, label_after, sizeof label_after);
    char *now = state(doc);
    CHECK(now && strcmp(now, before) == 0 && strcmp(label, label_after) == 0);
    free(now);
    al_diag_list_clear(&d);

    /* The base and the bevelled top make one brush of seven faces. */
    al_doc_change ch = {0};
    REQUIRE(al_doc_merge_brushes(doc, (int64_t[]){base, roof}, 2, &merged, &ch, &d) == AL_OK);
    CHECK(merged == base && al_doc_count(doc, "brushes") == 2);
    CHECK(ch.brush_count == 2);
    plane_brush joined;
    REQUIRE(read_planes(doc, &merged, 1, &joined));
    CHECK_MSG(joined.count == 7, "%d faces", joined.count);
    uint64_t seed = 3;
    int wrong = 0, points = 0;
    for (int i = 0; i < 5000; i++) {
        double p[3];
        random_point(&seed, (double[3]){0, 0, 0}, (double[3]){64, 64, 64}, 8, p);
        int in = holders(orig, 2, p), now_in = point_in(&joined, p, 0.01);
        if (in < 0 || now_in < 0) continue;
        wrong += (in > 0) != (now_in == 1);
        points++;
    }
    CHECK_MSG(wrong == 0 && points > 4000, "%d of %d points misjudged", wrong, points);
    CHECK(faces_of(doc, merged, "roof") == 1 && faces_of(doc, merged, "stone") == 6);
    check_undo_redo(doc, before, "merge");

    /* Three slabs make a box; other bad input is refused with its reason. */
    int64_t slabs[3];
    for (int i = 0; i < 3; i++) {
        REQUIRE((slabs[i] = add_box(doc, 0, 300, 0, 16 * i, 364, 64, 16 * i + 16,
                                    i == 1 ? "middle" : "slab")));
    }
    REQUIRE(al_doc_merge_brushes(doc, slabs, 3, &merged, NULL, NULL) == AL_OK);
    double mins[3], maxs[3];
    CHECK(merged == slabs[0] && al_doc_brush_box(doc, merged, mins, maxs) && maxs[2] == 48);
    int64_t door = 0, in_door = 0;
    REQUIRE(al_doc_add_entity(doc, "func_door", NULL, &door, NULL, NULL) == AL_OK);
    REQUIRE((in_door = add_box(doc, door, 0, 0, 64, 64, 64, 80, "stone")));
    free(before);
    before = state(doc);
    struct {
        int64_t ids[2];
        int count;
        al_status status;
        const char *says;
    } bad[] = {
        {{base, 0}, 1, AL_ERR_INVALID_ARGUMENT, "two brushes"},
        {{base, base}, 2, AL_ERR_INVALID_ARGUMENT, "listed twice"},
        {{base, in_door}, 2, AL_ERR_INVALID_ARGUMENT, "another entity"},
        {{base, 31337}, 2, AL_ERR_NOT_FOUND, "brush 31337"},
        {{base, slabs[0]}, 2, AL_ERR_INVALID_ARGUMENT, "not convex"}, /* apart */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        al_diag_list_clear(&d);
        CHECK_MSG(al_doc_merge_brushes(doc, bad[i].ids, bad[i].count, NULL, NULL, &d) ==
                      bad[i].status,
                  "case %zu", i);
        CHECK_MSG(last_says(&d, bad[i].says), "case %zu", i);
    }
    now = state(doc);
    CHECK(now && strcmp(now, before) == 0);
    free(now);
    free(before);
    al_diag_list_clear(&d);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* The total volume of the valid brushes of DOC, by the compiler's brush builder; their
 * count in *VALID. */
static double total_volume(al_doc *doc, int *valid)
{
    al_doc_input in;
    *valid = 0;
    if (al_doc_build_input(doc, &in, NULL) != AL_OK) return -1;
    al_brush_builder *builder = al_brush_builder_create();
    double volume = 0;
    for (int b = 0; builder && b < in.input.brush_count; b++) {
        bool nomem = false;
        al_brush_measure measure;
        if (!al_brush_builder_measure(builder, &in.input, b, &measure, NULL, &nomem)) continue;
        volume += measure.volume;
        (*valid)++;
    }
    al_brush_builder_destroy(builder);
    al_doc_input_free(&in);
    return volume;
}

CHECK_TEST(clip_real_map, "/doc/clipping-every-brush-of-e1m1-keeps-the-total-volume")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    al_map *map = NULL;
    REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
    al_doc *doc = new_doc("clip-e1m1.allium");
    REQUIRE(doc);
    al_doc_set_durable(doc, false);
    REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
    al_map_destroy(map);
    int64_t *ids = NULL, *valid_ids;
    int count = 0, valid = 0, valid_after = 0;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
    valid_ids = malloc((size_t) count * sizeof *valid_ids);
    REQUIRE(valid_ids);
    for (int i = 0; i < count; i++)
        if (al_doc_brush_box(doc, ids[i], (double[3]){0}, (double[3]){0}))
            valid_ids[valid++] = ids[i];
    int counted = 0;
    double volume = total_volume(doc, &counted);
    CHECK(counted == valid);
    char *before = state(doc);
    /* A slanted plane through the middle of the map. */
    double pts[3][3];
    plane_points((double[3]){0.3, -0.5, 0.81}, (double[3]){600, 400, 40}, pts);
    int64_t *result = NULL;
    int result_count = 0;
    uint64_t t0 = al_clock_ns();
    REQUIRE(al_doc_clip_brushes(doc, valid_ids, valid, (const double (*)[3]) pts, AL_DOC_CLIP_BOTH,
                                &result, &result_count, NULL, NULL) == AL_OK);
    double ms = al_clock_ms_since(t0);
    double after = total_volume(doc, &valid_after);
    check_note("%d brushes (%d valid) became %d in %.0f ms; volume %.6g -> %.6g", count, valid,
               result_count, ms, volume, after);
    CHECK(result_count > valid + 50);
    CHECK(valid_after == valid + (result_count - valid));
    CHECK_NEAR(after, volume, 1e-9 * volume);
    check_undo_redo(doc, before, "clip e1m1");
    free(before);
    free(result);
    free(valid_ids);
    free(ids);
    al_doc_close(doc);
}

/* A document with e1m1 imported (not durable), its brushes with a box in IDS (*COUNT);
 * NULL when the map is not in the shared maps folder (the caller skips). */
static al_doc *e1m1_doc(const char *name, int64_t **ids, int *count)
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) return NULL;
    al_map *map = NULL;
    if (al_map_read_file(path, &map, NULL) != AL_OK) return NULL;
    al_doc *doc = new_doc(name);
    if (doc) {
        al_doc_set_durable(doc, false);
        if (al_doc_import_map(doc, map, NULL) != AL_OK) {
            al_doc_close(doc);
            doc = NULL;
        }
    }
    al_map_destroy(map);
    int64_t *all = NULL;
    int n = 0;
    if (!doc || al_doc_list_brushes(doc, -1, &all, &n) != AL_OK) {
        al_doc_close(doc);
        return NULL;
    }
    *count = 0;
    for (int i = 0; i < n; i++)
        if (al_doc_brush_box(doc, all[i], (double[3]){0}, (double[3]){0})) all[(*count)++] = all[i];
    *ids = all;
    return doc;
}

/* The compiler's input read from a document against an independent reading: one SQL join
 * ordered by entity, brush and face position (the reader orders the rows itself). The map
 * is e1m1 with its entities' brushes and every brush's faces stored out of their rows'
 * order, some brushes without an entity and one without faces. */
CHECK_TEST(input_order_oracle, "/doc/the-input-read-in-rows-order-equals-an-ordered-join")
{
    int64_t *ids = NULL;
    int count = 0;
    al_doc *doc = e1m1_doc("input-order.allium", &ids, &count);
    if (!doc) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    free(ids);
    char *path = strdup(al_doc_path(doc));
    al_doc_close(doc);
    sqlite3 *db = NULL;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    /* Positions against the rows' order: reversed, and shuffled by a multiplier. */
    REQUIRE(sqlite3_exec(
                db,
                "UPDATE brushes SET position = (id * 7919) % 1009;"
                "UPDATE faces SET position = -position * ((id % 3) + 1) + id % 5;"
                "UPDATE entities SET position = -position WHERE id != 0;"
                "PRAGMA foreign_keys = OFF;"
                "UPDATE brushes SET entity = 999999 WHERE id % 97 = 0;"
                "DELETE FROM faces WHERE brush = (SELECT min(id) FROM brushes WHERE id % 97 = 1);",
                NULL, NULL, NULL) == SQLITE_OK);
    al_diag_list d = {0};
    REQUIRE(al_doc_open(path, AL_DOC_READ_ONLY, &doc, &d) == AL_OK);
    al_diag_list_clear(&d);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    sqlite3_stmt *st = NULL;
    REQUIRE(sqlite3_prepare_v2(db,
                               "SELECT b.id, f.x0, f.y1, f.z2, f.material, e.id FROM brushes b "
                               "JOIN entities e ON e.id = b.entity JOIN faces f ON f.brush = b.id "
                               "ORDER BY e.id != 0, e.position, e.id, b.position, b.id, f.position",
                               -1, &st, NULL) == SQLITE_OK);
    int b = -1, f = 0, mismatches = 0;
    int64_t last = -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t brush = sqlite3_column_int64(st, 0);
        if (brush != last) {
            b++;
            last = brush;
            if (b >= in.input.brush_count || in.brush_ids[b] != brush ||
                in.input.brushes[b].first_face != f ||
                in.entity_ids[in.input.brushes[b].entity] != sqlite3_column_int64(st, 5))
                mismatches++;
        }
        if (f >= in.input.face_count) {
            mismatches++;
            break;
        }
        const al_face_desc *fc = &in.input.faces[f++];
        int m = fc->material;
        if (fc->points[0][0] != sqlite3_column_double(st, 1) ||
            fc->points[1][1] != sqlite3_column_double(st, 2) ||
            fc->points[2][2] != sqlite3_column_double(st, 3) || m < 0 ||
            in.material_ids[m] != sqlite3_column_int64(st, 4))
            mismatches++;
    }
    sqlite3_finalize(st);
    CHECK(mismatches == 0);
    CHECK(b + 1 == in.input.brush_count && f == in.input.face_count);
    /* The brushes of the missing entity and the brush without faces are not there. */
    CHECK(in.input.brush_count < count);
    CHECK(in.input.brush_count > count / 2);
    al_doc_input_free(&in);
    al_doc_close(doc);
    sqlite3_close(db);
    free(path);
}

/* The subtract oracle above, with e1m1's own brushes (slanted, many-sided, as designers
 * made them) as the targets. Each trial is undone, so the map stays as it was. */
CHECK_TEST(subtract_real_map, "/doc/subtracting-from-e1m1-brushes-leaves-them-outside-the-cutter")
{
    int64_t *ids = NULL;
    int count = 0;
    al_doc *doc = e1m1_doc("subtract-e1m1.allium", &ids, &count);
    if (!doc) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    uint64_t seed = 1234;
    int points = 0, cut = 0, pieces = 0, slanted = 0;
    for (int trial = 0; trial < 24; trial++) {
        int64_t target = ids[(int) (unit_random(&seed) * count) % count];
        double mins[3], maxs[3];
        REQUIRE(al_doc_brush_box(doc, target, mins, maxs));
        double centre[3], half[3], n[3], lo[3], hi[3];
        random_point(&seed, mins, maxs, 0, centre);
        random_normal(&seed, n);
        for (int k = 0; k < 3; k++) {
            half[k] = 4 + 0.4 * (maxs[k] - mins[k]) * unit_random(&seed);
            lo[k] = centre[k] - half[k];
            hi[k] = centre[k] + half[k];
        }
        int64_t cutter = add_chamfered_box(doc, 0, lo, hi, n, "cutter");
        REQUIRE(cutter);
        plane_brush t, c, *parts = calloc(64, sizeof *parts);
        REQUIRE(parts && read_planes(doc, &target, 1, &t) && read_planes(doc, &cutter, 1, &c));
        slanted += t.count != 6;
        int64_t *result = NULL;
        int n_result = 0;
        REQUIRE(al_doc_subtract_brushes(doc, &target, 1, &cutter, 1, &result, &n_result, NULL,
                                        NULL) == AL_OK);
        REQUIRE(n_result <= 64 && read_planes(doc, result, n_result, parts));
        cut += n_result != 1 || parts[0].count != t.count;
        pieces += n_result;
        int wrong = 0, overlap = 0;
        for (int i = 0; i < 3000; i++) {
            double p[3];
            random_point(&seed, mins, maxs, 4, p);
            int in = point_in(&t, p, 0.01), in_cutter = point_in(&c, p, 0.01);
            int held = holders(parts, n_result, p);
            if (in < 0 || in_cutter < 0 || held < 0) continue;
            wrong += (held > 0) != (in == 1 && in_cutter == 0);
            overlap += held > 1;
            points++;
        }
        CHECK_MSG(wrong == 0 && overlap == 0, "trial %d (brush %lld): %d points misjudged, %d in two pieces",
                  trial, (long long) target, wrong, overlap);
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK); /* the subtraction */
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK); /* the cutter */
        plane_brush again;
        CHECK(read_planes(doc, &target, 1, &again) && again.count == t.count);
        free(result);
        free(parts);
    }
    check_note("%d points checked; %d of 24 e1m1 brushes cut (%d not boxes), into %d pieces",
               points, cut, slanted, pieces);
    CHECK(points > 20000 && cut > 12);
    free(ids);
    al_doc_close(doc);
}

/* A random point of B (within its box, EPS inside its planes), by rejection; false if
 * none was found. */
static bool point_of(uint64_t *seed, al_doc *doc, int64_t id, const plane_brush *b, double p[3])
{
    double mins[3], maxs[3];
    if (!al_doc_brush_box(doc, id, mins, maxs)) return false;
    for (int tries = 0; tries < 200; tries++) {
        random_point(seed, mins, maxs, 0, p);
        if (point_in(b, p, 0.01) == 1) return true;
    }
    return false;
}

/* Merging pairs of touching e1m1 brushes: a merged brush holds exactly the points of the
 * two; a refused pair is shown not convex by a witness, a point between a point of each
 * brush that neither holds. Each merge is undone. */
CHECK_TEST(merge_real_map, "/doc/merging-touching-e1m1-brushes-keeps-their-union-or-shows-a-notch")
{
    int64_t *ids = NULL;
    int count = 0;
    al_doc *doc = e1m1_doc("merge-e1m1.allium", &ids, &count);
    if (!doc) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    double (*lo)[3] = malloc((size_t) count * sizeof *lo), (*hi)[3] = malloc((size_t) count * sizeof *hi);
    REQUIRE(lo && hi);
    for (int i = 0; i < count; i++) REQUIRE(al_doc_brush_box(doc, ids[i], lo[i], hi[i]));
    uint64_t seed = 4321;
    int merged = 0, refused = 0, witnessed = 0, points = 0, pairs = 0;
    for (int i = 0; i < count && pairs < 60; i += 7) {
        /* The first brush after i whose box touches or overlaps i's. */
        int j = -1;
        for (int c = i + 1; c < count && j < 0; c++) {
            bool touch = true;
            for (int k = 0; k < 3; k++) touch = touch && lo[c][k] <= hi[i][k] + 0.01 && hi[c][k] >= lo[i][k] - 0.01;
            if (touch) j = c;
        }
        if (j < 0) continue;
        pairs++;
        plane_brush ab[2], m;
        int64_t pair[2] = {ids[i], ids[j]};
        REQUIRE(read_planes(doc, pair, 2, ab));
        int64_t into = -1;
        al_diag_list d = {0};
        al_status st = al_doc_merge_brushes(doc, pair, 2, &into, NULL, &d);
        if (st == AL_OK) {
            merged++;
            REQUIRE(read_planes(doc, &into, 1, &m));
            double mins[3], maxs[3];
            for (int k = 0; k < 3; k++) mins[k] = fmin(lo[i][k], lo[j][k]), maxs[k] = fmax(hi[i][k], hi[j][k]);
            int wrong = 0;
            for (int n = 0; n < 2000; n++) {
                double p[3];
                random_point(&seed, mins, maxs, 4, p);
                int in = point_in(&m, p, 0.01), held = holders(ab, 2, p);
                if (in < 0 || held < 0) continue;
                wrong += (in == 1) != (held > 0);
                points++;
            }
            CHECK_MSG(wrong == 0, "brushes %lld and %lld: %d points misjudged", (long long) pair[0],
                      (long long) pair[1], wrong);
            REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        } else {
            CHECK_MSG(st == AL_ERR_INVALID_ARGUMENT && last_says(&d, "not convex"),
                      "brushes %lld and %lld: refused for another reason", (long long) pair[0],
                      (long long) pair[1]);
            refused++;
            bool found = false;
            for (int n = 0; n < 4000 && !found; n++) {
                double a[3], b[3], p[3];
                if (!point_of(&seed, doc, pair[0], &ab[0], a) || !point_of(&seed, doc, pair[1], &ab[1], b))
                    break;
                double t = unit_random(&seed);
                for (int k = 0; k < 3; k++) p[k] = a[k] + t * (b[k] - a[k]);
                found = point_in(&ab[0], p, 0.01) == 0 && point_in(&ab[1], p, 0.01) == 0;
            }
            witnessed += found;
        }
        al_diag_list_clear(&d);
    }
    check_note("%d touching pairs: %d merged (%d points checked), %d refused, %d of them with a "
               "witness of their notch", pairs, merged, points, refused, witnessed);
    CHECK(pairs >= 40 && merged > 0 && refused > 0);
    CHECK_MSG(witnessed == refused, "%d of %d refused pairs without a witness", refused - witnessed,
              refused);
    free(lo);
    free(hi);
    free(ids);
    al_doc_close(doc);
}

/* --- entities, materials and selections --------------------------------------------- */

CHECK_TEST(brush_entities, "/doc/brushes-move-between-entities-in-one-step")
{
    al_doc *doc = new_doc("brush-entities.allium");
    REQUIRE(doc);
    int64_t b[3], light = 0;
    for (int i = 0; i < 3; i++)
        REQUIRE((b[i] = add_box(doc, 0, 100 * i, 0, 0, 100 * i + 64, 64, 64, "stone")));
    REQUIRE(al_doc_add_entity(doc, "light", "{\"origin\": \"0 0 100\"}", &light, NULL, NULL) ==
            AL_OK);
    char *before = state(doc);
    al_doc_change ch = {0};
    al_diag_list d = {0};
    int64_t door = 0, *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_brushes_to_entity(doc, b, 2, "func_door", &door, &ch, &d) == AL_OK);
    CHECK(door > 0 && ch.brush_count == 2 && ch.entity_count == 2); /* the door and the world */
    REQUIRE(al_doc_list_brushes(doc, door, &ids, &count) == AL_OK);
    CHECK(count == 2 && ids[0] == b[0] && ids[1] == b[1]);
    free(ids);
    /* The compiled map has the door as a model. */
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    int in_door = 0;
    for (int i = 0; i < in.input.brush_count; i++)
        in_door +=
            strcmp(in.input.entities[in.input.brushes[i].entity].classname, "func_door") == 0;
    CHECK(in_door == 2);
    al_doc_input_free(&in);
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) &&
          strcmp(label, "Brushes to entity") == 0);
    check_undo_redo(doc, before, "brushes to entity");
    REQUIRE(al_doc_redo(doc, NULL) == AL_OK);

    /* One brush back to the world; the door keeps the other. Then the last: the empty
     * door goes. */
    REQUIRE(al_doc_move_brushes_to_entity(doc, &b[0], 1, 0, &ch) == AL_OK);
    CHECK(ch.brush_count == 1 && al_doc_count(doc, "entities") == 3);
    REQUIRE(al_doc_move_brushes_to_entity(doc, &b[1], 1, 0, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "entities") == 2);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "entities") == 3);
    /* The world's brush into the door, then the whole door to the world in one step. */
    REQUIRE(al_doc_move_brushes_to_entity(doc, &b[2], 1, door, NULL) == AL_OK);
    free(before);
    before = state(doc);
    REQUIRE(al_doc_entity_to_world(doc, door, &ch) == AL_OK);
    CHECK(ch.brush_count == 2 && al_doc_count(doc, "entities") == 2);
    REQUIRE(al_doc_list_brushes(doc, 0, &ids, &count) == AL_OK);
    CHECK(count == 3);
    free(ids);
    check_undo_redo(doc, before, "entity to world");

    /* The world, point entities, classes and unknown rows are refused. */
    CHECK(al_doc_entity_to_world(doc, 0, NULL) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_entity_to_world(doc, light, NULL) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_entity_to_world(doc, 777, NULL) == AL_ERR_NOT_FOUND);
    CHECK(al_doc_move_brushes_to_entity(doc, &b[0], 1, light, NULL) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_move_brushes_to_entity(doc, &b[0], 1, 777, NULL) == AL_ERR_NOT_FOUND);
    CHECK(al_doc_move_brushes_to_entity(doc, (int64_t[]){b[0], 555}, 2, 0, NULL) ==
          AL_ERR_NOT_FOUND);
    CHECK(al_doc_brushes_to_entity(doc, b, 1, "worldspawn", NULL, NULL, &d) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(last_says(&d, "classname"));
    CHECK(al_doc_brushes_to_entity(doc, b, 0, "func_wall", NULL, NULL, &d) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_brushes_to_entity(doc, (int64_t[]){555}, 1, "func_wall", NULL, NULL, &d) ==
          AL_ERR_NOT_FOUND);
    CHECK(last_says(&d, "brush 555"));
    char *after = state(doc);
    CHECK(after && strcmp(after, before) == 0);
    free(after);
    free(before);
    al_diag_list_clear(&d);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

CHECK_TEST(material_edits, "/doc/materials-are-listed-with-their-use-and-set-with-checks")
{
    al_doc *doc = new_doc("material-edits.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "stone", f);
    f[4].material = "*lava1";
    int64_t b1 = 0, b2 = 0, door = 0;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &b1, NULL, NULL) == AL_OK);
    REQUIRE(al_doc_add_entity(doc, "func_door", NULL, &door, NULL, NULL) == AL_OK);
    REQUIRE((b2 = add_box(doc, door, 100, 0, 0, 164, 64, 64, "stone")));
    al_doc_material *list = NULL;
    int count = 0;
    REQUIRE(al_doc_list_materials(doc, &list, &count) == AL_OK);
    REQUIRE(count == 2);
    CHECK(strcmp(list[0].name, "*lava1") == 0 && list[0].uses == 1);
    CHECK(list[0].flags == (AL_MATERIAL_LIQUID | AL_MATERIAL_LAVA) && list[0].reflectance < 0);
    CHECK(strcmp(list[1].name, "stone") == 0 && list[1].uses == 11);
    float rgb[3];
    al_material_default_colour("stone", rgb);
    CHECK_NEAR(list[1].colour[0], rgb[0], 1e-6);
    al_doc_materials_free(list, count);

    /* A new glowing material, then a change to stone; each reports materials. */
    al_doc_change ch = {0};
    al_diag_list d = {0};
    al_doc_material glow = {
        .name = "glow", .colour = {1, 0.5, 0.25}, .reflectance = -1, .emission = {4, 3, 0}};
    REQUIRE(al_doc_set_material(doc, &glow, &ch, &d) == AL_OK);
    CHECK(ch.materials && ch.brush_count == 0);
    al_doc_material stone = {.name = "stone", .colour = {0.25, 0.5, 0.75}, .reflectance = 0.5};
    REQUIRE(al_doc_set_material(doc, &stone, &ch, &d) == AL_OK);
    CHECK(ch.materials);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    for (int m = 0; m < in.input.material_count; m++) {
        const al_material_desc *md = &in.input.materials[m];
        if (strcmp(md->name, "glow") == 0)
            CHECK(md->emission[0] == 4 && md->emission[1] == 3 && md->reflectance == 0);
        if (strcmp(md->name, "stone") == 0)
            CHECK(md->colour[2] == 0.75f && md->reflectance == 0.5f &&
                  in.material_colours[m][1] == 0.5f);
    }
    al_doc_input_free(&in);
    REQUIRE(al_doc_list_materials(doc, &list, &count) == AL_OK);
    CHECK(count == 3 && strcmp(list[1].name, "glow") == 0 && list[1].uses == 0);
    CHECK(list[1].flags == 0 && list[2].reflectance == 0.5);
    al_doc_materials_free(list, count);
    /* Setting it again changes nothing: one undo takes stone back to its first colour. */
    REQUIRE(al_doc_set_material(doc, &stone, &ch, &d) == AL_OK);
    CHECK(!ch.materials);
    REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
    CHECK(ch.materials);
    REQUIRE(al_doc_list_materials(doc, &list, &count) == AL_OK);
    CHECK(count == 3 && list[2].colour[0] == (double) rgb[0] && list[2].reflectance < 0);
    al_doc_materials_free(list, count);

    /* Bad values name their field and change nothing. */
    char *before = state(doc);
    struct {
        al_doc_material m;
        const char *says;
    } bad[] = {
        {{.name = "stone", .colour = {1.5, 0, 0}}, "colour red"},
        {{.name = "stone", .colour = {0, NAN, 0}}, "colour green"},
        {{.name = "stone", .reflectance = NAN}, "reflectance"},
        {{.name = "stone", .reflectance = 2}, "reflectance"},
        {{.name = "stone", .emission = {0, 0, -1}}, "emission blue"},
        {{.name = "stone", .emission = {INFINITY, 0, 0}}, "emission red"},
        {{.name = ""}, "name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        al_diag_list_clear(&d);
        CHECK_MSG(al_doc_set_material(doc, &bad[i].m, NULL, &d) == AL_ERR_INVALID_ARGUMENT,
                  "case %zu", i);
        CHECK_MSG(d.count == 1 && last_says(&d, bad[i].says), "case %zu", i);
    }
    char *after = state(doc);
    CHECK(after && strcmp(after, before) == 0);
    free(after);
    free(before);

    /* Selections by material and by class. */
    int64_t *ids = NULL;
    REQUIRE(al_doc_brushes_with_material(doc, "stone", &ids, &count) == AL_OK);
    CHECK(count == 2 && ids[0] == b1 && ids[1] == b2);
    free(ids);
    REQUIRE(al_doc_brushes_with_material(doc, "*lava1", &ids, &count) == AL_OK);
    CHECK(count == 1 && ids[0] == b1);
    free(ids);
    REQUIRE(al_doc_brushes_with_material(doc, "nothing", &ids, &count) == AL_OK);
    CHECK(count == 0 && ids == NULL);
    REQUIRE(al_doc_entities_with_class(doc, "func_door", &ids, &count) == AL_OK);
    CHECK(count == 1 && ids[0] == door);
    free(ids);
    REQUIRE(al_doc_entities_with_class(doc, "worldspawn", &ids, &count) == AL_OK);
    CHECK(count == 1 && ids[0] == 0);
    free(ids);
    al_diag_list_clear(&d);
    al_doc_change_clear(&ch);
    al_doc_close(doc);
}

/* The number of properties KEY of entity E. */
static int key_count(const al_map_entity *e, const char *key)
{
    int n = 0;
    for (int p = 0; p < e->property_count; p++) n += strcmp(e->properties[p].key, key) == 0;
    return n;
}

CHECK_TEST(material_export, "/doc/material-light-survives-export-to-a-map-and-import")
{
    al_doc *doc = new_doc("material-export.allium");
    REQUIRE(doc);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "stone", f);
    f[4].material = "*lava1";
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, NULL, NULL, NULL) == AL_OK);
    const al_doc_material set[] = {
        {.name = "*lava1",
         .colour = {0.9, 0.3, 0.1},
         .reflectance = -1,
         .emission = {300, 120, 40}},
        {.name = "stone", .colour = {0.25, 0.5, 0.75}, .reflectance = 0.35},
        {.name = "glow", .colour = {1, 1, 1}, .reflectance = 0, .emission = {0.5, 0, 2}},
    };
    for (int i = 0; i < 3; i++) REQUIRE(al_doc_set_material(doc, &set[i], NULL, NULL) == AL_OK);

    /* Export: one world key per material, which other tools ignore. */
    al_map *m;
    REQUIRE(al_doc_export_map(doc, &m, NULL) == AL_OK);
    const al_map_entity *world = &m->entities[0];
    const char *lava = al_map_entity_value(world, "_allium_material_*lava1");
    CHECK_MSG(lava && strcmp(lava, "colour 0.9 0.3 0.1 emission 300 120 40") == 0, "%s",
              lava ? lava : "(none)");
    const char *stone = al_map_entity_value(world, "_allium_material_stone");
    CHECK_MSG(stone && strcmp(stone, "colour 0.25 0.5 0.75 reflectance 0.35") == 0, "%s",
              stone ? stone : "(none)");
    CHECK(al_map_entity_value(world, "_allium_material_glow"));
    char *text;
    size_t len;
    REQUIRE(al_map_write(m, false, &text, &len));
    al_map_destroy(m);

    /* Import into a new document: the materials come back exactly, and the keys are not
     * left among the world's properties (a second export writes each once). */
    al_map *read = NULL;
    al_diag_list d = {0};
    REQUIRE(al_map_read_buffer(text, len, &read, &d) == AL_OK);
    free(text);
    al_doc *again = new_doc("material-export-again.allium");
    REQUIRE(again);
    REQUIRE(al_doc_import_map(again, read, &d) == AL_OK);
    CHECK(d.count == 0);
    al_map_destroy(read);
    al_doc_material *a = NULL, *b = NULL;
    int na = 0, nb = 0;
    REQUIRE(al_doc_list_materials(doc, &a, &na) == AL_OK);
    REQUIRE(al_doc_list_materials(again, &b, &nb) == AL_OK);
    CHECK_MSG(na == 3 && nb == 3, "%d and %d materials", na, nb);
    for (int i = 0; i < na && i < nb; i++) {
        CHECK(strcmp(a[i].name, b[i].name) == 0 && a[i].reflectance == b[i].reflectance &&
              a[i].flags == b[i].flags);
        for (int k = 0; k < 3; k++)
            CHECK_MSG(a[i].colour[k] == b[i].colour[k] && a[i].emission[k] == b[i].emission[k],
                      "%s channel %d", a[i].name, k);
    }
    al_doc_materials_free(a, na);
    al_doc_materials_free(b, nb);
    REQUIRE(al_doc_export_map(again, &m, NULL) == AL_OK);
    CHECK(key_count(&m->entities[0], "_allium_material_*lava1") == 1);
    CHECK(key_count(&m->entities[0], "_allium_material_glow") == 1);
    al_map_destroy(m);
    /* The compiler gets them. */
    al_doc_input in;
    REQUIRE(al_doc_build_input(again, &in, NULL) == AL_OK);
    bool found = false;
    for (int i = 0; i < in.input.material_count; i++)
        if (strcmp(in.input.materials[i].name, "*lava1") == 0)
            found =
                in.input.materials[i].emission[0] == 300 && in.input.materials[i].emission[2] == 40;
    CHECK(found);
    al_doc_input_free(&in);
    al_doc_close(again);

    /* A bad key is reported, kept as a key, and leaves its material as it was. */
    const char *bad = "{\n\"classname\" \"worldspawn\"\n\"_allium_material_stone\" \"shine\"\n}\n";
    REQUIRE(al_map_read_buffer(bad, strlen(bad), &read, &d) == AL_OK);
    again = new_doc("material-export-bad.allium");
    REQUIRE(again);
    al_diag_list_clear(&d);
    REQUIRE(al_doc_import_map(again, read, &d) == AL_OK);
    CHECK(d.count == 1 && strstr(d.items[0].message, "_allium_material_stone"));
    al_map_destroy(read);
    REQUIRE(al_doc_export_map(again, &m, NULL) == AL_OK);
    const char *kept = al_map_entity_value(&m->entities[0], "_allium_material_stone");
    CHECK(kept && strcmp(kept, "shine") == 0);
    al_map_destroy(m);
    al_doc_close(again);
    al_diag_list_clear(&d);
    al_doc_close(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
