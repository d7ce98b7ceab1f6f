/* The GUI self-test's steps for selecting and resizing, and the map's hulls.
 *
 * What they check: Ctrl+A selects every brush and point entity of the map, Ctrl+Shift+I
 * inverts a selection, "Select Same Material" and "Select Same Class" pick what shares the
 * selection's material or class; Ctrl+click in the 3D view selects a face (and the
 * inspector describes it); the top view draws handles on the selection's bounds and a drag
 * of the right-hand handle makes the brush two grid steps wider, one undoable step; a
 * Shift+drag on the top face in 3D makes it taller, and undo puts it back; and the Agent
 * Hulls dialog refuses a duplicate name, then adds a hull that the next compile has.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-hulls-dialog.h"
#include "allium-material-browser.h"
#include "al-plane.h"
#include "allium-preferences.h"
#include "allium-view-private.h"

#include <math.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

static double grid(void)
{
    return allium_preferences_get_grid_size(allium_preferences_get_default());
}


static gboolean activate(SelfTest *t, const char *action)
{
    gboolean ok = gtk_widget_activate_action(GTK_WIDGET(t->window), action, NULL);
    check(t, ok, "%s activated", action);
    return ok;
}

/* Point entities of the snapshot (entities other than the world without brushes). */
static guint point_entity_count(const al_input *in)
{
    guint count = 0;
    for (int e = 1; e < in->entity_count; e++) {
        gboolean has = FALSE;
        for (int b = 0; b < in->brush_count && !has; b++) has = in->brushes[b].entity == e;
        count += !has;
    }
    return count;
}

/* Points the 3D view down at the box from above its side, so its top face is in sight;
 * the camera it had goes to *SAVED. */
static AlliumView *aim_at_box(SelfTest *t, al_camera *saved)
{
    AlliumView *view = view_3d(t);
    al_camera *camera = allium_view_get_camera(view);
    *saved = *camera;
    camera->pitch = -40;
    al_camera_frame(camera, t->box_mins, t->box_maxs);
    allium_view_queue_render(view);
    return view;
}

static void restore_camera(SelfTest *t, const al_camera *saved)
{
    AlliumView *view = view_3d(t);
    *allium_view_get_camera(view) = *saved;
    allium_view_queue_render(view);
}

/* Selects the box and drags up from the middle of its top in the 3D view (aimed at it) by
 * STEPS grid steps, with the modifiers STATE. FALSE if the top is not in sight. */
static gboolean drag_top_up(SelfTest *t, double steps, GdkModifierType state)
{
    allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
    al_camera saved;
    AlliumView *view = aim_at_box(t, &saved);
    double top[3] = {0.5 * (t->box_mins[0] + t->box_maxs[0]),
                     0.5 * (t->box_mins[1] + t->box_maxs[1]), t->box_maxs[2]};
    double higher[3] = {top[0], top[1], top[2] + steps * grid()};
    double x0, y0, x1, y1;
    gboolean ok = to_widget(view, top, &x0, &y0) && to_widget(view, higher, &x1, &y1);
    check(t, ok, "the box's top is in front of the 3D camera");
    if (ok) allium_view_simulate_drag(view, x0, y0, x1, y1, 4, state);
    restore_camera(t, &saved);
    return ok;
}

/* --- steps --------------------------------------------------------------------------- */

gboolean step_select_all_invert(SelfTest *t)
{
    AlliumSelection *sel = t->window->selection;
    const al_input *in = &current(t)->input.input;
    guint nb, ne, points = point_entity_count(in);
    activate(t, "win.select-all");
    allium_selection_get_brushes(sel, &nb);
    allium_selection_get_entities(sel, &ne);
    check(t, nb == (guint) in->brush_count && ne == points,
          "Ctrl+A selects every brush (%u of %d) and point entity (%u of %u)", nb,
          in->brush_count, ne, points);
    /* Invert the box alone: everything else. */
    allium_selection_select_brush(sel, t->box_row, ALLIUM_SELECT_REPLACE);
    activate(t, "win.select-invert");
    allium_selection_get_brushes(sel, &nb);
    allium_selection_get_entities(sel, &ne);
    check(t, nb == (guint) in->brush_count - 1 && ne == points &&
                 !allium_selection_has_brush(sel, t->box_row),
          "Ctrl+Shift+I turns the box alone into everything but the box (%u brushes)", nb);
    activate(t, "win.select-invert");
    const gint64 *rows = allium_selection_get_brushes(sel, &nb);
    allium_selection_get_entities(sel, &ne);
    check(t, nb == 1 && rows[0] == t->box_row && ne == 0, "and again into the box alone");

    /* The box's material: every brush with a face of it, and only those. */
    activate(t, "win.select-same-material");
    rows = allium_selection_get_brushes(sel, &nb);
    AlliumSnapshot *snap = current(t);
    int box = allium_snapshot_brush_index(snap, t->box_row);
    int material = box >= 0 ? in->faces[in->brushes[box].first_face].material : -1;
    guint expected = 0;
    for (int b = 0; b < in->brush_count; b++) {
        gboolean has = FALSE;
        for (int f = 0; f < in->brushes[b].face_count; f++)
            has = has || in->faces[in->brushes[b].first_face + f].material == material;
        expected += has;
    }
    gboolean all_have = TRUE;
    for (guint i = 0; i < nb; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        gboolean has = FALSE;
        for (int f = 0; b >= 0 && f < in->brushes[b].face_count; f++)
            has = has || in->faces[in->brushes[b].first_face + f].material == material;
        all_have = all_have && has;
    }
    check(t, nb == expected && all_have && allium_selection_has_brush(sel, t->box_row),
          "Select Same Material picks the %u brushes with a face of \"%s\" (%u)", expected,
          material >= 0 ? in->materials[material].name : "?", nb);

    /* The class of a light: every light. */
    int light = allium_snapshot_find_entity(snap, "light");
    check(t, light > 0, "the sample has a light");
    if (light <= 0) return TRUE;
    allium_selection_select_entity(sel, snap->input.entity_ids[light], ALLIUM_SELECT_REPLACE);
    activate(t, "win.select-same-class");
    guint lights = 0;
    for (int e = 1; e < in->entity_count; e++)
        lights += g_strcmp0(in->entities[e].classname, "light") == 0;
    rows = allium_selection_get_entities(sel, &ne);
    allium_selection_get_brushes(sel, &nb);
    gboolean all_lights = TRUE;
    for (guint i = 0; i < ne; i++) {
        int e = allium_snapshot_entity_index(snap, rows[i]);
        all_lights = all_lights && e > 0 && g_strcmp0(in->entities[e].classname, "light") == 0;
    }
    check(t, ne == lights && nb == 0 && all_lights,
          "Select Same Class picks the map's %u lights (%u)", lights, ne);
    allium_selection_select_brush(sel, t->box_row, ALLIUM_SELECT_REPLACE);
    return TRUE;
}

gboolean step_select_face(SelfTest *t)
{
    al_camera saved;
    AlliumView *view = aim_at_box(t, &saved);
    AlliumSelection *sel = t->window->selection;
    /* The box's top face, where the 3D view shows it. */
    double top[3] = {0.5 * (t->box_mins[0] + t->box_maxs[0]),
                     0.5 * (t->box_mins[1] + t->box_maxs[1]), t->box_maxs[2]};
    double x, y;
    gboolean ok = to_widget(view, top, &x, &y);
    check(t, ok, "the box's top is in front of the 3D camera");
    if (!ok) {
        restore_camera(t, &saved);
        return TRUE;
    }
    allium_view_simulate_click(view, x, y, GDK_CONTROL_MASK);
    guint count;
    const AlliumFaceRef *faces = allium_selection_get_faces(sel, &count);
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    int b = count == 1 ? allium_snapshot_brush_index(snap, faces[0].brush) : -1;
    double n[3] = {0, 0, 0};
    if (b >= 0 && faces[0].face < in->brushes[b].face_count) {
        const al_face_desc *f = &in->faces[in->brushes[b].first_face + faces[0].face];
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = f->points[1][k] - f->points[0][k];
            e2[k] = f->points[2][k] - f->points[0][k];
        }
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    }
    check(t, count == 1 && faces[0].brush == t->box_row && fabs(n[2]) > 0,
          "Ctrl+click on the box's top selects that face (%u faces)", count);
    check(t, g_str_equal(allium_inspector_get_subject(t->window->inspector), "faces"),
          "the inspector describes the face");
    shoot_and_compare(t, "face-selected.png", NULL);
    /* A plain click goes back to selecting brushes. */
    allium_view_simulate_click(view, x, y, 0);
    allium_selection_get_faces(sel, &count);
    check(t, count == 0 && allium_selection_has_brush(sel, t->box_row),
          "a plain click selects the brush again");
    restore_camera(t, &saved);
    return TRUE;
}

static void count_change(guint *changes)
{
    (*changes)++;
}

gboolean step_resize_handle(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double g = grid();
    if (!t->step_begun) {
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        /* The handle in the middle of the box's right side, dragged two steps right. */
        double from[3] = {t->box_maxs[0], 0.5 * (t->box_mins[1] + t->box_maxs[1]), 0};
        double to[3] = {from[0] + 2.2 * g, from[1], 0};
        double x0, y0, x1, y1;
        gboolean ok = to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the handle is in the top view");
        if (!ok) return TRUE;
        t->brushes_mark = current(t)->input.input.brush_count;
        /* First far beyond the map's coordinate limit: refused, with the limit. */
        double far[3] = {200000, from[1], 0}, xf, yf;
        AlliumDocument *doc = allium_window_get_document(t->window);
        /* A drag previews in the engine at every step; only an edit is a change. */
        guint changes = 0;
        gulong handler =
            g_signal_connect_swapped(doc, "changed", G_CALLBACK(count_change), &changes);
        if (to_widget(top, far, &xf, &yf)) {
            allium_window_hide_banner(t->window);
            allium_view_simulate_drag(top, x0, y0, xf, yf, 4, 0);
            GtkMessageType type;
            const char *text = NULL;
            gboolean shown = allium_window_get_banner(t->window, &type, &text);
            check(t,
                  shown && text && strstr(text, "beyond the map's limit of ±131072 units") &&
                      changes == 0,
                  "a resize past the coordinate limit is refused with the limit (\"%s\")",
                  text ? text : "");
            allium_window_hide_banner(t->window);
        } else {
            check(t, FALSE, "a point past the coordinate limit projects into the top view");
        }
        g_signal_handler_disconnect(doc, handler);
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        t->box_maxs[0] += 2 * g;
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    check(t, found && fabs(maxs[0] - t->box_maxs[0]) < 1e-6 && fabs(mins[0] - t->box_mins[0]) < 1e-6 &&
                 fabs(maxs[1] - t->box_maxs[1]) < 1e-6 && fabs(maxs[2] - t->box_maxs[2]) < 1e-6,
          "dragging the right-hand handle widened the box by two grid steps (x %g to %g)",
          mins[0], maxs[0]);
    check(t, current(t)->input.input.brush_count == t->brushes_mark, "and made no new brush");
    if (!t->marked) {
        t->marked = TRUE;
        shoot_and_compare(t, "resized.png", NULL);
    }
    return TRUE;
}

gboolean step_resize_3d(SelfTest *t)
{
    double g = grid();
    if (!t->step_begun) {
        /* Shift + drag up from the middle of the top face. */
        return !drag_top_up(t, 3, GDK_SHIFT_MASK);
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    if (!t->marked) {
        double raised = maxs[2] - t->box_maxs[2];
        check(t, found && raised >= g - 1e-6 && fabs(raised / g - round(raised / g)) < 1e-6 &&
                     fabs(mins[2] - t->box_mins[2]) < 1e-6 &&
                     fabs(maxs[0] - t->box_maxs[0]) < 1e-6,
              "Shift+drag on the top face in 3D raised only the top, by whole grid steps (%g)",
              raised);
        /* The later steps walk under the box: it goes back as it was. */
        activate(t, "win.undo");
        t->marked = TRUE;
        return FALSE;
    }
    check(t, found && fabs(maxs[2] - t->box_maxs[2]) < 1e-6,
          "undo puts the top back (at %g)", maxs[2]);
    return TRUE;
}

gboolean step_hulls_dialog(SelfTest *t)
{
    if (!t->step_begun) {
        t->hulls_before = current(t)->input.input.hull_count;
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.edit-hulls");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Collision → Agent Hulls… opens the dialog");
        if (!dialog) return TRUE;
        guint rows = allium_hulls_dialog_get_row_count(dialog);
        check(t, rows == (guint) t->hulls_before, "it lists the map's %d hulls (%u)",
              t->hulls_before, rows);
        allium_hulls_dialog_add_row(dialog);
        double mins[3] = {-8, -8, -12}, maxs[3] = {8, 8, 12};
        allium_hulls_dialog_set_row(dialog, rows, "stand", mins, maxs);
        gboolean applied = allium_hulls_dialog_apply(dialog);
        const char *message = allium_hulls_dialog_get_message(dialog);
        check(t, !applied && strlen(message) > 0,
              "a second hull named \"stand\" is refused: \"%s\"", message);
        allium_hulls_dialog_set_row(dialog, rows, "small", mins, maxs);
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(dialog), "hulls-dialog.png");
        check(t, allium_hulls_dialog_apply(dialog), "a hull named \"small\" is applied");
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    const al_input *in = &current(t)->input.input;
    int h = in->hull_count - 1;
    check(t, in->hull_count == t->hulls_before + 1 && h > 0 &&
                 g_str_equal(in->hulls[h].name, "small") && in->hulls[h].maxs[2] == 12,
          "the compiled map has the new hull (%d hulls)", in->hull_count);
    check(t, current(t)->world != NULL, "and a world compiled with it");
    return TRUE;
}

/* Whether input brush B of the current snapshot holds point P (inside every face plane by
 * more than EPS). */
static gboolean brush_holds(SelfTest *t, int b, const double p[3], double eps)
{
    const al_input *in = &current(t)->input.input;
    for (int f = 0; f < in->brushes[b].face_count; f++) {
        const al_face_desc *face = &in->faces[in->brushes[b].first_face + f];
        double n[3], d;
        if (!al_plane_from_points(face->points[0], face->points[1], face->points[2], n, &d))
            continue;
        if (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d > -eps) return FALSE;
    }
    return TRUE;
}

/* How many of the brushes ROWS hold P. */
static int rows_holding(SelfTest *t, const gint64 *rows, guint count, const double p[3])
{
    int holding = 0;
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(current(t), rows[i]);
        holding += b >= 0 && brush_holds(t, b, p, 0.01);
    }
    return holding;
}

gboolean step_clip(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double g = grid();
    double mid = al_snap(0.5 * (t->box_mins[0] + t->box_maxs[0]), g);
    if (!t->step_begun) {
        t->brushes_mark = current(t)->input.input.brush_count;
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        g_object_set(t->window, "tool", "clip", NULL);
        /* A line across the box at its middle, from below it to above it in the top view. */
        double a[3] = {mid, t->box_mins[1] - g, 0}, b[3] = {mid, t->box_maxs[1] + g, 0};
        double x0, y0, x1, y1;
        gboolean ok = to_widget(top, a, &x0, &y0) && to_widget(top, b, &x1, &y1);
        check(t, ok, "the clip line is in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_click(top, x0, y0, 0);
        allium_view_simulate_click(top, x1, y1, 0);
        check(t, allium_view_get_clip_point_count(top) == 2, "two clicks place two clip points");
        allium_view_set_clip_keep(top, AL_DOC_CLIP_BOTH);
        shoot_and_compare(t, "clip-points.png", NULL);
        GError *error = NULL;
        gboolean clipped = allium_view_clip_apply(top, &error);
        check(t, clipped, "Enter clips the box, keeping both halves%s%s", error ? ": " : "",
              error ? error->message : "");
        g_clear_error(&error);
        guint nb;
        allium_selection_get_brushes(t->window->selection, &nb);
        check(t, nb == 2, "both halves are selected (%u brushes)", nb);
        g_object_set(t->window, "tool", "select", NULL);
        return !clipped;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (!t->marked) {
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        double lo[2][3] = {{0}}, hi[2][3] = {{0}};
        gboolean halves = nb == 2 && row_bounds(t, rows[0], lo[0], hi[0]) &&
                          row_bounds(t, rows[1], lo[1], hi[1]);
        /* One half ends at the line, the other starts there; together they span the box. */
        int left = halves && hi[0][0] <= hi[1][0] ? 0 : 1;
        check(t, halves && fabs(hi[left][0] - mid) < 1e-6 && fabs(lo[1 - left][0] - mid) < 1e-6 &&
                     fabs(lo[left][0] - t->box_mins[0]) < 1e-6 &&
                     fabs(hi[1 - left][0] - t->box_maxs[0]) < 1e-6,
              "the halves meet at x = %g and span the box", mid);
        check(t, current(t)->input.input.brush_count == t->brushes_mark + 1,
              "the map has one brush more");
        /* Every point of the box (off the cut) is in exactly one half. */
        int wrong = 0;
        for (int i = 0; i < 200; i++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = t->box_mins[k] + (t->box_maxs[k] - t->box_mins[k]) * g_random_double();
            gboolean near_face = fabs(p[0] - mid) < 0.05;
            for (int k = 0; k < 3; k++)
                near_face = near_face || p[k] - t->box_mins[k] < 0.05 || t->box_maxs[k] - p[k] < 0.05;
            if (near_face) continue;
            wrong += rows_holding(t, rows, nb, p) != 1;
        }
        check(t, wrong == 0, "200 random points of the box lie in exactly one half (%d do not)",
              wrong);
        activate(t, "win.undo");
        t->marked = TRUE;
        return FALSE;
    }
    double lo[3] = {0}, hi[3] = {0};
    check(t, current(t)->input.input.brush_count == t->brushes_mark &&
                 row_bounds(t, t->box_row, lo, hi) && fabs(hi[0] - t->box_maxs[0]) < 1e-6,
          "undo gives the box back whole");
    return TRUE;
}

gboolean step_subtract_merge(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSelection *sel = t->window->selection;
    double g = grid();
    /* Phase 0: a cutter over the box's corner, taller than the box; subtract it. */
    if (!t->step_begun) {
        t->brushes_mark = current(t)->input.input.brush_count;
        double lo[3] = {t->box_maxs[0] - 2 * g, t->box_maxs[1] - 2 * g, t->box_mins[2]};
        double hi[3] = {t->box_maxs[0], t->box_maxs[1], t->box_maxs[2]};
        gint64 cutter = 0;
        GError *error = NULL;
        check(t, allium_document_add_box(doc, lo, hi, "wall", &cutter, &error),
              "a cutter is drawn in the box's corner");
        g_clear_error(&error);
        allium_selection_select_brush(sel, cutter, ALLIUM_SELECT_REPLACE);
        activate(t, "win.subtract");
        guint nb;
        allium_selection_get_brushes(sel, &nb);
        check(t, nb >= 2, "the pieces are selected (%u)", nb);
        t->phase = 0;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    guint nb;
    const gint64 *rows = allium_selection_get_brushes(sel, &nb);
    if (t->phase == 0) {
        double corner[3] = {t->box_maxs[0] - g, t->box_maxs[1] - g,
                            0.5 * (t->box_mins[2] + t->box_maxs[2])};
        double inside[3] = {t->box_mins[0] + g / 2, t->box_mins[1] + g / 2, corner[2]};
        check(t, rows_holding(t, rows, nb, corner) == 0 && rows_holding(t, rows, nb, inside) == 1,
              "the pieces leave out the corner and keep the rest of the box");
        /* The box is drawn into the sample's balcony: that is cut too. */
        check(t, current(t)->input.input.brush_count >= t->brushes_mark + 2 &&
                     allium_snapshot_brush_index(current(t), t->box_row) >= 0,
              "the cutter stays and what it overlapped is in pieces (%d brushes, %d before)",
              current(t)->input.input.brush_count, t->brushes_mark);
        shoot_and_compare(t, "subtracted.png", NULL);
        activate(t, "win.undo"); /* the subtraction */
        activate(t, "win.undo"); /* the cutter */
        t->phase = 1;
        return FALSE;
    }
    if (t->phase == 1) {
        check(t, current(t)->input.input.brush_count == t->brushes_mark,
              "undo gives the box back and takes the cutter away");
        /* Two halves of a box side by side merge into it; an L shape does not merge. */
        double a0[3] = {t->box_mins[0], t->box_mins[1], t->box_maxs[2]};
        double a1[3] = {t->box_mins[0] + 2 * g, t->box_mins[1] + 2 * g, t->box_maxs[2] + g};
        double b0[3] = {a1[0], a0[1], a0[2]}, b1[3] = {a1[0] + 2 * g, a1[1], a1[2]};
        double c0[3] = {a0[0], a1[1], a0[2]}, c1[3] = {a0[0] + g, a1[1] + g, a1[2]};
        gint64 rows3[3];
        GError *error = NULL;
        gboolean ok = allium_document_add_box(doc, a0, a1, "wall", &rows3[0], &error) &&
                      allium_document_add_box(doc, b0, b1, "wall", &rows3[1], &error) &&
                      allium_document_add_box(doc, c0, c1, "wall", &rows3[2], &error);
        check(t, ok, "three boxes are drawn for merging");
        g_clear_error(&error);
        gint64 l_shape[2] = {rows3[0], rows3[2]};
        allium_selection_set_items(sel, l_shape, 2, NULL, 0);
        activate(t, "win.merge");
        allium_selection_get_brushes(sel, &nb);
        GtkMessageType type;
        const char *text = NULL;
        check(t, nb == 2 && allium_window_get_banner(t->window, &type, &text) &&
                     type == GTK_MESSAGE_ERROR && strstr(text, "not convex"),
              "merging an L shape is refused, with the reason in the banner (\"%s\")",
              text ? text : "");
        allium_window_hide_banner(t->window);
        allium_selection_set_items(sel, rows3, 2, NULL, 0);
        activate(t, "win.merge");
        rows = allium_selection_get_brushes(sel, &nb);
        check(t, nb == 1, "two boxes side by side merge into one");
        memcpy(t->mark_lo, a0, sizeof t->mark_lo);
        memcpy(t->mark_hi, b1, sizeof t->mark_hi);
        t->phase = 2;
        return FALSE;
    }
    double lo[3] = {0}, hi[3] = {0};
    check(t, nb == 1 && row_bounds(t, rows[0], lo, hi) &&
                 fabs(lo[0] - t->mark_lo[0]) < 1e-6 && fabs(hi[0] - t->mark_hi[0]) < 1e-6 &&
                 fabs(hi[1] - t->mark_hi[1]) < 1e-6 && fabs(hi[2] - t->mark_hi[2]) < 1e-6,
          "the merged brush spans both boxes (x %g to %g)", lo[0], hi[0]);
    /* Back to the map as it was: the merge, and the three boxes. */
    for (int i = 0; i < 4; i++) activate(t, "win.undo");
    allium_selection_select_brush(sel, t->box_row, ALLIUM_SELECT_REPLACE);
    return TRUE;
}

/* The input index of the material of every face of the box, or -1 when they differ. */
static int box_material(SelfTest *t)
{
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    int b = allium_snapshot_brush_index(snap, t->box_row);
    int m = b >= 0 && in->brushes[b].face_count ? in->faces[in->brushes[b].first_face].material
                                                : -1;
    for (int f = 1; b >= 0 && f < in->brushes[b].face_count; f++)
        if (in->faces[in->brushes[b].first_face + f].material != m) return -1;
    return m;
}

gboolean step_entity_material(SelfTest *t)
{
    AlliumSelection *sel = t->window->selection;
    AlliumMaterialBrowser *browser = t->window->material_browser;
    if (!t->step_begun) {
        allium_selection_select_brush(sel, t->box_row, ALLIUM_SELECT_REPLACE);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.to-entity", "s",
                                            "func_detail"),
              "win.to-entity('func_detail') activated");
        t->edits++;
        t->phase = 0;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    int b = allium_snapshot_brush_index(snap, t->box_row);
    int e = b >= 0 ? in->brushes[b].entity : -1;
    if (t->phase == 0) {
        check(t, e > 0 && g_strcmp0(in->entities[e].classname, "func_detail") == 0,
              "the box belongs to a new func_detail");
        check(t, g_strcmp0(allium_inspector_get_value(t->window->inspector, "classname"),
                           "func_detail") == 0,
              "the properties panel shows it");
        /* A drag of it: the panel's description follows the preview, and its rows (the
         * entity's, unchanged) are not made again for every frame. */
        GtkWidget *editor = allium_inspector_get_editor(t->window->inspector, "classname");
        g_set_object(&t->drag_row_editor, editor);
        g_free(t->drag_detail);
        t->drag_detail = g_strdup(allium_inspector_get_detail(t->window->inspector));
        double m[3][4] = {{1, 0, 0, 2 * grid()}, {0, 1, 0, 0}, {0, 0, 1, 0}};
        allium_document_preview_transform(allium_window_get_document(t->window), &t->box_row, 1,
                                          NULL, 0, (const double(*)[4]) m);
        t->phase = 10;
        return FALSE;
    }
    if (t->phase == 10) {
        const char *detail = allium_inspector_get_detail(t->window->inspector);
        check(t,
              allium_document_get_previewing(allium_window_get_document(t->window)) &&
                  g_strcmp0(detail, t->drag_detail) != 0 && strstr(detail, "From "),
              "dragging it changes the panel's description (\"%s\")", detail);
        check(t,
              t->drag_row_editor && allium_inspector_get_editor(t->window->inspector,
                                                                "classname") == t->drag_row_editor,
              "and keeps its rows");
        allium_document_preview_end(allium_window_get_document(t->window));
        g_clear_object(&t->drag_row_editor);
        activate(t, "win.to-world");
        t->edits++;
        t->phase = 1;
        return FALSE;
    }
    if (t->phase == 1) {
        int details = 0;
        for (int i = 1; i < in->entity_count; i++)
            details += g_strcmp0(in->entities[i].classname, "func_detail") == 0;
        check(t, e == 0 && details == 0, "Move to World gives it back and the entity goes");
        /* A material the box does not have, from the browser. */
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "materials");
        int had = box_material(t);
        g_free(t->material);
        t->material = NULL;
        for (int m = 0; m < in->material_count && !t->material; m++)
            if (m != had && !(in->materials[m].flags & (AL_MATERIAL_SKY | AL_MATERIAL_NONSOLID |
                                                        AL_MATERIAL_CLIP | AL_MATERIAL_HINT |
                                                        AL_MATERIAL_LIQUID)))
                t->material = g_strdup(in->materials[m].name);
        check(t, t->material != NULL, "the map has another plain material");
        if (!t->material) return TRUE;
        allium_material_browser_set_search(browser, "zz-no-such-material");
        check(t, allium_material_browser_get_shown(browser) == 0, "a search for nothing shows none");
        allium_material_browser_set_search(browser, t->material);
        guint shown = allium_material_browser_get_shown(browser);
        check(t, shown >= 1 && shown < (guint) in->material_count,
              "a search for \"%s\" narrows the list to %u", t->material, shown);
        check(t, allium_material_browser_choose(browser, t->material), "it can be chosen");
        check(t, allium_material_browser_apply(browser), "Apply gives it to the selected box");
        t->edits++;
        t->phase = 2;
        return FALSE;
    }
    int m = box_material(t);
    if (t->phase == 2) {
        check(t, m >= 0 && g_str_equal(in->materials[m].name, t->material),
              "every face of the box is \"%s\"", t->material);
        double red[3] = {0.9, 0.1, 0.1}, light[3] = {0, 0, 0};
        check(t, allium_material_browser_edit(browser, red, 0.5, light),
              "its colour is set to red, reflectance 0.5");
        double bad[3] = {2, 0, 0};
        gboolean written = allium_material_browser_edit(browser, bad, 0.5, light);
        const char *message = allium_material_browser_get_message(browser);
        check(t, !written && strlen(message) > 0, "a colour component of 2 is refused: \"%s\"",
              message);
        t->edits++;
        t->phase = 3;
        return FALSE;
    }
    if (!settle(t)) return FALSE;
    check(t, m >= 0 && fabs(in->materials[m].colour[0] - 0.9) < 1e-3 &&
                 fabs(in->materials[m].colour[1] - 0.1) < 1e-3 &&
                 fabs(in->materials[m].reflectance - 0.5) < 1e-3,
          "the compiled map has the new colour and reflectance");
    shoot_and_compare(t, "materials.png", NULL);
    allium_material_browser_set_search(browser, "");
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    return TRUE;
}

gboolean step_clip_3d(SelfTest *t)
{
    double g = grid();
    if (!t->step_begun) {
        t->brushes_mark = current(t)->input.input.brush_count;
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        g_object_set(t->window, "tool", "clip", NULL);
        /* Looking along +Y from above: the box's top and its -Y side are in sight. Two
         * points across the top's middle and one half way down the near side: a slanted
         * plane through the box's top front edge. */
        al_camera saved;
        AlliumView *view = aim_at_box(t, &saved);
        al_camera *camera = allium_view_get_camera(view);
        camera->yaw = 90;
        camera->pitch = -35;
        al_camera_frame(camera, t->box_mins, t->box_maxs);
        double ymid = 0.5 * (t->box_mins[1] + t->box_maxs[1]);
        double xmid = 0.5 * (t->box_mins[0] + t->box_maxs[0]);
        double p[3][3] = {{xmid - g, ymid, t->box_maxs[2]},
                          {xmid + g, ymid, t->box_maxs[2]},
                          {xmid, t->box_mins[1], 0.5 * (t->box_mins[2] + t->box_maxs[2])}};
        gboolean ok = TRUE;
        for (int i = 0; i < 3; i++) {
            double x, y;
            ok = ok && to_widget(view, p[i], &x, &y);
            if (ok) allium_view_simulate_click(view, x, y, 0);
        }
        check(t, ok && allium_view_get_clip_point_count(view) == 3,
              "three clicks on the box's surfaces in 3D place three clip points");
        allium_view_set_clip_keep(view, AL_DOC_CLIP_BOTH);
        GError *error = NULL;
        gboolean clipped = ok && allium_view_clip_apply(view, &error);
        check(t, clipped, "Return clips the box by their plane%s%s", error ? ": " : "",
              error ? error->message : "");
        g_clear_error(&error);
        restore_camera(t, &saved);
        g_object_set(t->window, "tool", "select", NULL);
        return !clipped;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (!t->marked) {
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        /* The top front edge is in one piece, the bottom back corner in the other. */
        double edge[3] = {0.5 * (t->box_mins[0] + t->box_maxs[0]), t->box_mins[1] + 1,
                          t->box_maxs[2] - 1};
        double corner[3] = {edge[0], t->box_maxs[1] - 1, t->box_mins[2] + 1};
        gboolean apart = nb == 2 && rows_holding(t, rows, 1, edge) + rows_holding(t, rows, 1, corner) == 1 &&
                         rows_holding(t, rows + 1, 1, edge) + rows_holding(t, rows + 1, 1, corner) == 1 &&
                         rows_holding(t, rows, nb, edge) == 1 && rows_holding(t, rows, nb, corner) == 1;
        check(t, apart && current(t)->input.input.brush_count == t->brushes_mark + 1,
              "the box is in two pieces along the slanted plane, its top front edge in one and "
              "its bottom back corner in the other (%u selected)", nb);
        activate(t, "win.undo");
        t->marked = TRUE;
        return FALSE;
    }
    check(t, current(t)->input.input.brush_count == t->brushes_mark, "undo gives the box back");
    return TRUE;
}

gboolean step_resize_3d_handle(SelfTest *t)
{
    double g = grid();
    if (!t->step_begun) {
        /* The handle in the middle of the box's top, dragged up; no Shift: the handle, not
         * the face, does it. */
        return !drag_top_up(t, 3.3, 0);
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    if (!t->marked) {
        check(t, found && fabs(maxs[2] - t->box_maxs[2] - 3 * g) < 1e-6 &&
                     fabs(mins[2] - t->box_mins[2]) < 1e-6 && fabs(maxs[0] - t->box_maxs[0]) < 1e-6,
              "dragging the 3D view's top handle raised the top three grid steps (%g to %g)",
              t->box_maxs[2], maxs[2]);
        activate(t, "win.undo");
        t->marked = TRUE;
        return FALSE;
    }
    check(t, found && fabs(maxs[2] - t->box_maxs[2]) < 1e-6, "undo puts the top back");
    return TRUE;
}

/* The tools' buttons in the header bar show icons the icon theme has (a missing one is
 * drawn as a broken image), each its own: the select tool a pointer, the test-box tool a
 * box (they were a text-selection glyph and a check mark). */
gboolean step_tool_icons(SelfTest *t)
{
    GtkIconTheme *theme =
        gtk_icon_theme_get_for_display(gtk_widget_get_display(GTK_WIDGET(t->window)));
    g_autoptr(GPtrArray) buttons = g_ptr_array_new();
    collect_widgets(gtk_window_get_titlebar(GTK_WINDOW(t->window)), GTK_TYPE_BUTTON, buttons);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    int tools = 0;
    for (guint i = 0; i < buttons->len; i++) {
        GtkButton *button = buttons->pdata[i];
        const char *icon = gtk_button_get_icon_name(button);
        if (!icon) continue;
        check(t, gtk_icon_theme_has_icon(theme, icon), "the icon theme has %s", icon);
        if (g_strcmp0(gtk_actionable_get_action_name(GTK_ACTIONABLE(button)), "win.tool") != 0)
            continue;
        tools++;
        check(t, !g_hash_table_contains(seen, icon), "the tool's icon %s is its own", icon);
        g_hash_table_add(seen, (gpointer) icon);
    }
    check(t, tools == 5, "five tools in the header bar (%d)", tools);
    check(t,
          g_hash_table_contains(seen, "allium-select-symbolic") &&
              g_hash_table_contains(seen, "allium-test-box-symbolic"),
          "the select and test-box tools show Allium's pointer and box");
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "01b-tool-icons.png");
    return TRUE;
}

/* A 2D view's header gives the grid that snaps, the status bar's, also when it is zoomed
 * out so far that the lines drawn skip some of its steps. */
gboolean step_grid_header(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    al_camera *cam = allium_view_get_camera(top);
    if (!t->step_begun) {
        t->mark_lo[0] = cam->zoom;
        cam->zoom = 0.05; /* 16-unit steps 0.8 pixels apart */
        allium_view_queue_render(top);
        return FALSE;
    }
    if (!settle(t)) return FALSE;
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    g_autofree char *header = g_strdup_printf("grid %g (lines every ", grid);
    g_autofree char *status = g_strdup_printf("Grid %g", grid);
    const char *shown = gtk_label_get_text(top->info_label);
    check(t,
          g_str_has_prefix(shown, header) &&
              g_str_equal(gtk_label_get_text(t->window->grid_label), status),
          "zoomed out, the header gives the snapping grid as the status bar does (\"%s\", "
          "\"%s\")",
          shown, gtk_label_get_text(t->window->grid_label));
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "grid-header.png");
    cam->zoom = t->mark_lo[0];
    allium_view_queue_render(top);
    return TRUE;
}
