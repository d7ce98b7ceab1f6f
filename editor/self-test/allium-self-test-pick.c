/* GUI self-test steps for picking what lies behind and hiding: clicking again at one place
 * in the top view walks down through the brushes under the pointer (checked against the
 * brushes found by sampling points along the vertical line); Hide, Isolate and Show All
 * take brushes out of reach and back, keep them compiled, and keep the hidden rows in the
 * session file; a press in the middle of a small selected brush, zoomed out, moves it
 * rather than pull the handles that cover it, which still pull from just outside it.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"
#include "store/document.h"

#include <glib/gi18n.h>
#include "allium-view-private.h"

#include "al-plane.h"

#include <math.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

static void activate(SelfTest *t, const char *action)
{
    gtk_widget_activate_action(GTK_WIDGET(t->window), action, NULL);
}

/* Whether input brush B holds point P (behind every face plane by more than EPS). */
static gboolean holds(const al_input *in, int b, const double p[3], double eps)
{
    for (int f = 0; f < in->brushes[b].face_count; f++) {
        const al_face_desc *face = &in->faces[in->brushes[b].first_face + f];
        double n[3], dist;
        if (!al_plane_from_points(face->points[0], face->points[1], face->points[2], n, &dist))
            continue;
        if (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - dist > -eps) return FALSE;
    }
    return TRUE;
}

/* The brushes the vertical line through (X, Y) passes through, highest first (by the
 * highest sample inside each), found by sampling the line every SPACING units from the
 * map's top to its bottom: the oracle for the top view's cycling. Document rows into OUT. */
static void brushes_on_line(SelfTest *t, double x, double y, GArray *out, gboolean skip_hidden)
{
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    double lo[3], hi[3];
    if (!al_scene_bounds(snap->scene, lo, hi)) return;
    const double spacing = 0.5;
    for (double z = hi[2] + 1; z >= lo[2] - 1; z -= spacing) {
        double p[3] = {x, y, z};
        for (int b = 0; b < in->brush_count; b++) {
            gint64 row = snap->input.brush_ids[b];
            if (skip_hidden && allium_selection_is_hidden(t->window->selection, row)) continue;
            double blo[3], bhi[3];
            if (!al_scene_brush_bounds(snap->scene, b, blo, bhi) || !holds(in, b, p, 1e-6))
                continue;
            gboolean seen = FALSE;
            for (guint i = 0; i < out->len && !seen; i++)
                seen = g_array_index(out, gint64, i) == row;
            if (!seen) g_array_append_val(out, row);
        }
    }
}

static gint64 selected_row(SelfTest *t)
{
    guint count;
    const gint64 *rows = allium_selection_get_brushes(t->window->selection, &count);
    return count == 1 ? rows[0] : -1;
}

/* Clicking again at the middle of the brush drawn in 3D, in the top view, selects the next
 * brush below each time and comes back to the first. */
gboolean step_cycle_pick(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double lo[3], hi[3], p[3], x, y;
    check(t, row_bounds(t, t->box_row, lo, hi), "the brush is there");
    for (int k = 0; k < 3; k++) p[k] = 0.5 * (lo[k] + hi[k]);
    /* A little off the middle: not on an edge of the grid-aligned brushes around. */
    p[0] += 0.37;
    p[1] += 0.29;
    gboolean ok = top && to_widget(top, p, &x, &y);
    check(t, ok, "the brush's middle is in the top view");
    if (!ok) return TRUE;
    g_autoptr(GArray) expected = g_array_new(FALSE, FALSE, sizeof(gint64));
    brushes_on_line(t, p[0], p[1], expected, TRUE);
    check(t, expected->len >= 2, "brushes lie under one another there (%u)", expected->len);
    allium_selection_clear(t->window->selection);
    /* A click elsewhere first, so that the first click here is not taken as a repeat. */
    allium_view_simulate_click(top, x + 40, y + 40, 0);
    allium_view_simulate_click(top, x, y, 0);
    gint64 first = selected_row(t);
    check(t, expected->len > 0 && first == g_array_index(expected, gint64, 0),
          "the first click picks the top one (row %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT
          ")",
          first, expected->len ? g_array_index(expected, gint64, 0) : -1);
    guint matched = 1;
    for (guint i = 1; i <= expected->len; i++) {
        allium_view_simulate_click(top, x + (i % 2), y, 0); /* the hand shakes a pixel */
        gint64 want = g_array_index(expected, gint64, i % expected->len);
        if (selected_row(t) == want)
            matched++;
        else
            check(t, FALSE, "click %u picks row %" G_GINT64_FORMAT " (got %" G_GINT64_FORMAT ")",
                  i + 1, want, selected_row(t));
    }
    check(t, matched == expected->len + 1,
          "clicking again walks down through the %u brushes under the pointer and back to the "
          "top",
          expected->len);
    /* Shift+click at the same place adds, as before; it does not walk. */
    allium_view_simulate_click(top, x, y, GDK_SHIFT_MASK);
    guint count;
    allium_selection_get_brushes(t->window->selection, &count);
    check(t, count != 1 || selected_row(t) != g_array_index(expected, gint64, 1),
          "Shift+click there toggles instead of walking");
    allium_selection_clear(t->window->selection);
    return TRUE;
}

/* Hide, Isolate and Show All. */
gboolean step_hide_isolate(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double lo[3], hi[3], p[3], x, y;
    check(t, row_bounds(t, t->box_row, lo, hi), "the brush is there");
    for (int k = 0; k < 3; k++) p[k] = 0.5 * (lo[k] + hi[k]);
    p[0] += 0.37;
    p[1] += 0.29;
    if (!top || !to_widget(top, p, &x, &y)) {
        check(t, FALSE, "the brush's middle is in the top view");
        return TRUE;
    }
    int brushes = current(t)->input.input.brush_count;

    allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
    activate(t, "win.hide");
    check(t,
          allium_selection_is_hidden(t->window->selection, t->box_row) &&
              allium_selection_get_hidden_count(t->window->selection) == 1 &&
              allium_selection_is_empty(t->window->selection),
          "View → Hide hides the selected brush and leaves nothing selected");
    int64_t *rows = NULL;
    unsigned *states = NULL;
    int kept = 0;
    al_doc *doc = allium_document_get_doc(allium_window_get_document(t->window));
    al_doc_brush_states(doc, &rows, &states, &kept);
    check(t, kept == 1 && rows && rows[0] == t->box_row && states[0] == AL_DOC_STATE_HIDDEN,
          "the document keeps the hidden brush (%d marked)", kept);
    free(rows);
    free(states);
    char label[64] = "";
    check(t, al_doc_undo_label(doc, FALSE, label, sizeof label) && strcmp(label, _("Hide")) == 0,
          "hiding is an undoable step (“%s”)", label);
    /* Out of reach: clicks there walk through the others only; Select All leaves it. */
    g_autoptr(GArray) under = g_array_new(FALSE, FALSE, sizeof(gint64));
    brushes_on_line(t, p[0], p[1], under, TRUE);
    gboolean reached = FALSE;
    allium_view_simulate_click(top, x + 40, y + 40, 0);
    for (guint i = 0; i <= under->len; i++) {
        allium_view_simulate_click(top, x, y, 0);
        reached = reached || allium_selection_has_brush(t->window->selection, t->box_row);
    }
    check(t, !reached, "clicks where it is never pick the hidden brush");
    activate(t, "win.select-all");
    check(t, !allium_selection_has_brush(t->window->selection, t->box_row),
          "Select All leaves it out");
    AlliumSnapshot *snap = current(t);
    check(t,
          snap->input.input.brush_count == brushes &&
              allium_snapshot_brush_index(snap, t->box_row) >= 0,
          "it is still in the compiled map (%d brushes)", snap->input.input.brush_count);
    activate(t, "win.show-all");
    check(t, allium_selection_get_hidden_count(t->window->selection) == 0,
          "View → Show All shows it again");
    al_doc_brush_states(doc, &rows, &states, &kept);
    check(t, kept == 0, "and the document has no mark left (%d)", kept);
    free(rows);
    free(states);

    /* Isolate: everything else hidden; a click elsewhere finds nothing but it. */
    allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
    activate(t, "win.isolate");
    check(t,
          (int) allium_selection_get_hidden_count(t->window->selection) == brushes - 1 &&
              allium_selection_has_brush(t->window->selection, t->box_row),
          "View → Isolate hides the %d other brushes and keeps the selection (%u hidden)",
          brushes - 1, allium_selection_get_hidden_count(t->window->selection));
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "isolated.png");
    double beside[3] = {hi[0] + 8.37, hi[1] + 8.29, p[2]}, bx, by;
    gboolean in_view = to_widget(top, beside, &bx, &by);
    allium_view_simulate_click(top, bx, by, 0);
    check(t, in_view && allium_selection_is_empty(t->window->selection),
          "a click beside it, on what is hidden, selects nothing");
    activate(t, "win.show-all");
    check(t, allium_selection_get_hidden_count(t->window->selection) == 0, "Show All again");
    t->edits += 4; /* hide, show all, isolate, show all: each an undoable step */
    return TRUE;
}

/* Whether the small brush of step_small_brush_moves lies from LO to HI. */
static gboolean small_box_at(SelfTest *t, const double lo[3], const double hi[3], const char *what)
{
    /* The bounds of the document's face points (a box's are its corners). */
    AlliumSnapshot *snap = current(t);
    int b = allium_snapshot_brush_index(snap, t->small_row);
    double mins[3] = {0, 0, 0}, maxs[3] = {0, 0, 0};
    if (b >= 0) {
        const al_input *in = &snap->input.input;
        for (int k = 0; k < 3; k++) mins[k] = INFINITY, maxs[k] = -INFINITY;
        for (int f = 0; f < in->brushes[b].face_count; f++)
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++) {
                    double v = in->faces[in->brushes[b].first_face + f].points[i][k];
                    mins[k] = MIN(mins[k], v);
                    maxs[k] = MAX(maxs[k], v);
                }
    }
    gboolean same = b >= 0;
    for (int k = 0; k < 3 && same; k++)
        same = fabs(mins[k] - lo[k]) < 1e-6 && fabs(maxs[k] - hi[k]) < 1e-6;
    check(t, same, "%s (%g %g %g to %g %g %g, expected %g %g %g to %g %g %g)", what, mins[0],
          mins[1], mins[2], maxs[0], maxs[1], maxs[2], lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    return same;
}

/* The oracle of allium_view_handles_cover_most: the fraction of a W by H rectangle's
 * pixels (sampled on a fine lattice) within HANDLE_REACH of one of its 8 handles on both
 * axes. */
static double sampled_cover(double w, double h)
{
    const int n = 200;
    long covered = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = (i + 0.5) * w / n, y = (j + 0.5) * h / n;
            gboolean reached = FALSE;
            for (int a = 0; a < 3 && !reached; a++)
                for (int b = 0; b < 3 && !reached; b++)
                    reached = (a != 1 || b != 1) && fabs(x - 0.5 * a * w) <= HANDLE_REACH &&
                              fabs(y - 0.5 * b * h) <= HANDLE_REACH;
            covered += reached;
        }
    return (double) covered / ((double) n * n);
}

/* An 8-unit cube at 40% zoom is about three pixels wide, inside the reach of all its
 * handles: a press in its middle drags it; a press on its side's handle from outside
 * resizes it. The box, the move and the resize are undone at the end. */
gboolean step_small_brush_moves(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    AlliumDocument *doc = allium_window_get_document(t->window);
    double g = allium_preferences_get_grid_size(allium_preferences_get_default());
    if (!top) {
        check(t, FALSE, "there is a top view");
        return TRUE;
    }
    al_camera *cam = allium_view_get_camera(top);
    if (!t->step_begun) {
        /* The rule against a brute-force count, on sizes around where it turns (a sampled
         * fraction within 1% of one half is not held against it). */
        int agree = 0, tried = 0;
        for (double w = 1; w < 90; w += 2.3)
            for (double h = 1; h < 90; h += 3.1) {
                double f = sampled_cover(w, h);
                if (fabs(f - 0.5) < 0.01) continue;
                tried++;
                if ((f > 0.5) == allium_view_handles_cover_most(w, h))
                    agree++;
                else if (tried - agree <= 3)
                    g_print("handles cover %.1f%% of %g x %g pixels\n", f * 100, w, h);
            }
        check(t, agree == tried,
              "whether the handles cover most of a selection agrees with counting pixels (%d of "
              "%d sizes)",
              agree, tried);
        t->phase = 0;
        t->saved_camera = *cam;
        t->brushes_mark = current(t)->input.input.brush_count;
        double lo[3], hi[3];
        check(t, al_scene_bounds(current(t)->scene, lo, hi), "the map has bounds");
        for (int k = 0; k < 3; k++) {
            t->mark_lo[k] = floor(0.5 * (lo[k] + hi[k]) / g) * g;
            t->mark_hi[k] = t->mark_lo[k] + 8;
        }
        GError *error = NULL;
        check(t,
              allium_document_add_box(doc, t->mark_lo, t->mark_hi, "wall", &t->small_row, &error),
              "an 8-unit box is added%s%s", error ? ": " : "", error ? error->message : "");
        g_clear_error(&error);
        allium_selection_select_brush(t->window->selection, t->small_row, ALLIUM_SELECT_REPLACE);
        cam->zoom = 0.4;
        cam->position[0] = t->mark_lo[0] + 4;
        cam->position[1] = t->mark_lo[1] + 4;
        allium_view_queue_render(top);
        return FALSE;
    }
    /* The view finds the selection's bounds, and so its handles, in the render scene of the
     * newest snapshot, built after it is published: wait until that has the box. */
    double scene_lo[3], scene_hi[3];
    if (!compiled_current(t->window) ||
        (t->phase < 3 && !row_bounds(t, t->small_row, scene_lo, scene_hi)))
        return FALSE;
    double x0, y0, x1, y1;
    if (t->phase == 0) {
        if (!small_box_at(t, t->mark_lo, t->mark_hi, "the small box is compiled")) return TRUE;
        double mid[3], to[3], corner[3];
        for (int k = 0; k < 3; k++) mid[k] = to[k] = 0.5 * (t->mark_lo[k] + t->mark_hi[k]);
        to[0] += 3.2 * g;
        memcpy(corner, t->mark_hi, sizeof corner);
        double cx, cy;
        gboolean ok = to_widget(top, mid, &x0, &y0) && to_widget(top, to, &x1, &y1) &&
                      to_widget(top, corner, &cx, &cy);
        check(t, ok, "the box is in the top view");
        if (!ok) return TRUE;
        check(t, fabs(cx - x0) < 2.5 && fabs(cy - y0) < 2.5,
              "it is a few pixels wide on the screen (%.1f from its middle to its corner)",
              fabs(cx - x0));
        allium_view_simulate_drag(top, x0, y0, x1, y1, 6, 0);
        t->mark_lo[0] += 3 * g;
        t->mark_hi[0] += 3 * g;
        t->phase = 1;
        return FALSE;
    }
    if (t->phase == 1) {
        small_box_at(t, t->mark_lo, t->mark_hi,
                     "a press in its middle dragged the whole box three grid steps");
        /* Its right side's handle, taken from 4 pixels right of the box. */
        double side[3], to[3];
        for (int k = 0; k < 3; k++) side[k] = 0.5 * (t->mark_lo[k] + t->mark_hi[k]);
        side[0] = t->mark_hi[0];
        memcpy(to, side, sizeof to);
        to[0] += 2.2 * g;
        gboolean ok = to_widget(top, side, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "its side is in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0 + 4, y0, x1 + 4, y1, 6, 0);
        t->phase = 2;
        return FALSE;
    }
    if (t->phase == 2) {
        double grown[3] = {t->mark_hi[0] + 2 * g, t->mark_hi[1], t->mark_hi[2]};
        small_box_at(t, t->mark_lo, grown,
                     "its right side's handle, pressed from just outside, still widens it two "
                     "grid steps");
        /* The box, the move and the resize go. */
        for (int i = 0; i < 3; i++) check(t, allium_document_undo(doc, NULL), "undo %d", i + 1);
        *cam = t->saved_camera;
        allium_view_queue_render(top);
        allium_selection_clear(t->window->selection);
        t->phase = 3;
        return FALSE;
    }
    check(t, current(t)->input.input.brush_count == t->brushes_mark,
          "undone, the map has its %d brushes again", t->brushes_mark);
    return TRUE;
}
