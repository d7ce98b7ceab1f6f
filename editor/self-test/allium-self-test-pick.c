/* GUI self-test steps for picking what lies behind and hiding: clicking again at one place
 * in the top view walks down through the brushes under the pointer (checked against the
 * brushes found by sampling points along the vertical line); Hide, Isolate and Show All
 * take brushes out of reach and back, keep them compiled, and keep the hidden rows in the
 * session file.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-session.h"

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
    const char *path = allium_document_get_path(allium_window_get_document(t->window));
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
    guint kept = 0;
    g_autofree gint64 *rows = allium_session_get_hidden(path, &kept);
    check(t, kept == 1 && rows && rows[0] == t->box_row,
          "the session file keeps the hidden brush (%u kept)", kept);
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
    g_free(rows);
    rows = allium_session_get_hidden(path, &kept);
    check(t, kept == 0 && rows == NULL, "and the session file forgets it");

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
    g_free(rows);
    return TRUE;
}
