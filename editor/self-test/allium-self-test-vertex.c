/* The GUI self-test's step for the vertex tool: V enters it on a new box, Escape in the
 * middle of a corner drag restores, a corner dragged in the top view through the pointer
 * code rebuilds the box (checked against its closed-form volume, the engine against a
 * full compile), undo restores it, a drag that would make it concave is refused with the
 * reason in the banner, and Escape goes back to the select tool. */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"
#include "allium-view-private.h"

#include "al-brush.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

static double grid(void)
{
    return allium_preferences_get_grid_size(allium_preferences_get_default());
}

static void count_change(guint *changes)
{
    (*changes)++;
}

/* The volume of brush ROW in the current snapshot, measured by the compiler's builder;
 * -1 if it is not there. */
static double row_volume(SelfTest *t, gint64 row)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->window));
    if (!snap) return -1;
    const al_input *in = &snap->input.input;
    double volume = -1;
    al_brush_builder *b = al_brush_builder_create();
    for (int i = 0; b && i < in->brush_count; i++) {
        if (snap->input.brush_ids[i] != row) continue;
        al_brush_measure m;
        bool nomem = false;
        if (al_brush_builder_measure(b, in, i, &m, NULL, &nomem)) volume = m.volume;
    }
    al_brush_builder_destroy(b);
    return volume;
}

/* Whether the document's brush ROW has a corner at P. */
static gboolean has_corner(const al_vertex_geometry *g, const double p[3])
{
    for (int v = 0; v < g->vertex_count; v++)
        if (fabs(g->vertices[v][0] - p[0]) < 1e-6 && fabs(g->vertices[v][1] - p[1]) < 1e-6 &&
            fabs(g->vertices[v][2] - p[2]) < 1e-6)
            return TRUE;
    return FALSE;
}

gboolean step_vertex_tool(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double g = grid();
    al_vertex_geometry *geom = g_newa(al_vertex_geometry, 1);
    if (!t->step_begun) {
        /* A box in the middle of the top view, selected; V enters the vertex tool. */
        allium_view_get_placement(top, t->mark_lo, t->mark_hi);
        gint64 id = 0;
        gboolean added = allium_document_add_box(doc, t->mark_lo, t->mark_hi, "wall", &id, NULL);
        check(t, added, "a box for the vertex tool");
        if (!added) return TRUE;
        t->vertex_row = id;
        allium_selection_select_brush(t->window->selection, id, ALLIUM_SELECT_REPLACE);
        g_object_set(t->window, "tool", "brush", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.vertex-mode", NULL);
        g_autofree char *first = NULL;
        g_object_get(t->window, "tool", &first, NULL);
        check(t, g_strcmp0(first, "select") == 0, "V in the brush tool gives the select tool");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.vertex-mode", NULL);
        g_autofree char *tool = NULL;
        g_object_get(t->window, "tool", &tool, NULL);
        check(t, g_strcmp0(tool, "vertex") == 0, "V again enters the vertex tool (tool %s)", tool);
        t->phase = 1;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    const double *lo = t->mark_lo, *hi = t->mark_hi;
    double a = hi[0] - lo[0], b = hi[1] - lo[1], c = hi[2] - lo[2];
    /* The top view's corner at (max x, max y): the top one (nearest the camera) is dragged. */
    double corner[3] = {hi[0], hi[1], hi[2]}, x0, y0, x1, y1;
    if (!to_widget(top, corner, &x0, &y0)) {
        check(t, FALSE, "the box's corner is in the top view");
        return TRUE;
    }
    if (t->phase == 1) {
        check(t,
              allium_document_brush_geometry(doc, t->vertex_row, geom) && geom->vertex_count == 8 &&
                  geom->edge_count == 12 && geom->face_count == 6,
              "the box has 8 corners, 12 edges and 6 faces to drag");
        guint handles = top->vertex_handles ? top->vertex_handles->len : 0;
        /* Escape in the middle of a drag: the map as it was, in the engine too. */
        double out[3] = {hi[0] + 2 * g, hi[1], hi[2]};
        to_widget(top, out, &x1, &y1);
        gboolean began = allium_view_tool_begin(top, x0, y0, 0);
        if (began) allium_view_tool_update(top, x1, y1);
        gboolean previewed = allium_document_get_previewing(doc);
        allium_view_simulate_key(top, GDK_KEY_Escape, TRUE);
        allium_view_simulate_key(top, GDK_KEY_Escape, FALSE);
        check(t,
              began && previewed && !allium_document_get_previewing(doc) &&
                  !allium_view_tool_active(top),
              "a corner drag previews in the engine and Escape ends it (%u handles drawn)",
              handles);
        /* The real drag: two grid steps along +x. */
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        t->phase = 2;
        return FALSE;
    }
    if (t->phase == 2) {
        double moved[3] = {hi[0] + 2 * g, hi[1], hi[2]}, mins[3], maxs[3];
        gboolean ok = allium_document_brush_geometry(doc, t->vertex_row, geom);
        check(t,
              ok && geom->vertex_count == 8 && geom->face_count == 7 && has_corner(geom, moved) &&
                  !has_corner(geom, corner),
              "the dragged corner moved two grid steps along x; the box has 7 faces (%d corners, "
              "%d faces)",
              ok ? geom->vertex_count : -1, ok ? geom->face_count : -1);
        /* The +x face folds along its diagonal through the corner: two pyramids of base
         * b c / 2 and height 2g are added. */
        double v = row_volume(t, t->vertex_row), expect = a * b * c + b * c * 2 * g / 3;
        check(t, fabs(v - expect) < 1e-6 * expect, "its volume is the closed form's (%g, %g)", v,
              expect);
        gboolean bounded = row_bounds(t, t->vertex_row, mins, maxs);
        check(t, bounded && fabs(maxs[0] - moved[0]) < 1e-6,
              "the compiled brush reaches the moved corner (max x %g)", bounded ? maxs[0] : NAN);
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, g_strcmp0(label, _("Move vertices")) == 0, "one undoable step, \"%s\"", label);
        compare_with_full(t, doc, FALSE);
        t->phase = 3;
        return FALSE;
    }
    if (t->phase == 3) {
        if (!settle(t)) return FALSE;
        shoot_and_compare(t, "vertex-mode.png", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 4;
        return FALSE;
    }
    if (t->phase == 4) {
        gboolean ok = allium_document_brush_geometry(doc, t->vertex_row, geom);
        check(t, ok && geom->vertex_count == 8 && geom->face_count == 6 && has_corner(geom, corner),
              "undo restores the box");
        check(t, fabs(row_volume(t, t->vertex_row) - a * b * c) < 1e-6 * a * b * c,
              "and its volume");
        /* The corner dragged to the middle of the top: it would lie in the top face. */
        double middle[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), hi[2]};
        to_widget(top, middle, &x1, &y1);
        guint changes = 0;
        gulong handler =
            g_signal_connect_swapped(doc, "changed", G_CALLBACK(count_change), &changes);
        allium_window_hide_banner(t->window);
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        g_signal_handler_disconnect(doc, handler);
        GtkMessageType type;
        const char *text = NULL;
        gboolean shown = allium_window_get_banner(t->window, &type, &text);
        check(t, shown && text && strstr(text, "convex") && changes == 0,
              "a concave move is refused, with why (\"%s\")", text ? text : "");
        const char *status = gtk_label_get_text(t->window->pointer_label);
        check(t, strstr(status, "convex") != NULL, "the status bar says why too (\"%s\")", status);
        allium_window_hide_banner(t->window);
        ok = allium_document_brush_geometry(doc, t->vertex_row, geom);
        check(t,
              ok && geom->face_count == 6 && has_corner(geom, corner) &&
                  !allium_document_get_previewing(doc),
              "and the corner snaps back");
        /* Escape leaves the vertex tool, keeping the selection. */
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.select-none", NULL);
        g_autofree char *tool = NULL;
        g_object_get(t->window, "tool", &tool, NULL);
        guint nb = 0;
        allium_selection_get_brushes(t->window->selection, &nb);
        check(t, g_strcmp0(tool, "select") == 0 && nb == 1,
              "Escape goes back to the select tool (tool %s, %u selected)", tool, nb);
        /* The box goes, as the map was. */
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 5;
        return FALSE;
    }
    double mins[3], maxs[3];
    check(t, !row_bounds(t, t->vertex_row, mins, maxs), "undoing the box removes it");
    t->vertex_row = 0;
    return TRUE;
}

/* Whether the tool's selected handles hold one of KIND at P. */
static gboolean handle_selected(AlliumView *view, int kind, const double p[3])
{
    for (guint i = 0; view->vertex_selected && i < view->vertex_selected->len; i++) {
        const AlliumVertexHandle *h = &g_array_index(view->vertex_selected, AlliumVertexHandle, i);
        if (h->kind == kind && fabs(h->point[0] - p[0]) < 1e-6 && fabs(h->point[1] - p[1]) < 1e-6 &&
            fabs(h->point[2] - p[2]) < 1e-6)
            return TRUE;
    }
    return FALSE;
}

static guint selected_handles(AlliumView *view)
{
    return view->vertex_selected ? view->vertex_selected->len : 0;
}

/* Checks that the box's geometry has CORNERS corners, FACES faces and VOLUME (closed
 * form), the last step being LABEL, and that the engine equals a full compile. */
static void check_box_edit(SelfTest *t, int corners, int faces, double volume, const char *label,
                           const char *what)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    al_vertex_geometry *geom = g_newa(al_vertex_geometry, 1);
    gboolean ok = allium_document_brush_geometry(doc, t->vertex_row, geom);
    check(t, ok && geom->vertex_count == corners && geom->face_count == faces,
          "%s: %d corners and %d faces (%d, %d)", what, corners, faces,
          ok ? geom->vertex_count : -1, ok ? geom->face_count : -1);
    double v = row_volume(t, t->vertex_row);
    check(t, fabs(v - volume) < 1e-6 * volume, "%s: the volume is the closed form's (%g, %g)", what,
          v, volume);
    g_autofree char *step = allium_document_dup_undo_label(doc, FALSE);
    check(t, g_strcmp0(step, label) == 0, "%s: one undoable step, \"%s\"", what, step);
    compare_with_full(t, doc, FALSE);
}

gboolean step_vertex_more(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP), *view = view_3d(t);
    double g = grid();
    al_vertex_geometry *geom = g_newa(al_vertex_geometry, 1);
    if (!t->step_begun) {
        allium_view_get_placement(top, t->mark_lo, t->mark_hi);
        gint64 id = 0;
        gboolean added = allium_document_add_box(doc, t->mark_lo, t->mark_hi, "wall", &id, NULL);
        check(t, added, "a box for splits, several handles and vertical drags");
        if (!added) return TRUE;
        t->vertex_row = id;
        allium_selection_select_brush(t->window->selection, id, ALLIUM_SELECT_REPLACE);
        g_object_set(t->window, "tool", "vertex", NULL);
        t->phase = 1;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    const double *lo = t->mark_lo, *hi = t->mark_hi;
    double a = hi[0] - lo[0], b = hi[1] - lo[1], c = hi[2] - lo[2], mid_x = 0.5 * (lo[0] + hi[0]);
    double x0, y0, x1, y1;
    if (t->phase == 1) {
        /* Ctrl + drag of the middle of the top edge at max y, out by two grid steps. */
        double edge[3] = {mid_x, hi[1], hi[2]}, out[3] = {mid_x, hi[1] + 2 * g, hi[2]};
        gboolean seen = to_widget(top, edge, &x0, &y0) && to_widget(top, out, &x1, &y1);
        check(t, seen, "the box's edge is in the top view");
        if (!seen) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, GDK_CONTROL_MASK);
        t->phase = 2;
        return FALSE;
    }
    if (t->phase == 2) {
        /* A pyramid of base a c (the max y side) and height 2g; its top joins the top. */
        check_box_edit(t, 9, 8, a * b * c + a * c * 2 * g / 3, _("Add vertex"),
                       "Ctrl + drag of an edge's middle splits it");
        double corner[3] = {al_snap(mid_x, g), hi[1] + 2 * g, hi[2]};
        gboolean ok = allium_document_brush_geometry(doc, t->vertex_row, geom);
        check(t,
              ok && has_corner(geom, corner) && handle_selected(top, 0, corner) &&
                  selected_handles(top) == 1,
              "the new corner is on the grid where the pointer took it, and selected");
        t->phase = 3;
        return FALSE;
    }
    if (t->phase == 3) {
        if (!settle(t)) return FALSE;
        shoot_and_compare(t, "vertex-split.png", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 4;
        return FALSE;
    }
    double corner_a[3] = {hi[0], hi[1], hi[2]}, corner_b[3] = {hi[0], lo[1], hi[2]};
    if (t->phase == 4) {
        check_box_edit(t, 8, 6, a * b * c, _("Add brush"), "undo takes the split back");
        /* Click a corner, Shift + click another: two selected. */
        to_widget(top, corner_a, &x0, &y0);
        allium_view_simulate_click(top, x0, y0, 0);
        to_widget(top, corner_b, &x1, &y1);
        allium_view_simulate_click(top, x1, y1, GDK_SHIFT_MASK);
        check(t,
              selected_handles(top) == 2 && handle_selected(top, 0, corner_a) &&
                  handle_selected(top, 0, corner_b),
              "a click and a Shift + click select two corners (%u)", selected_handles(top));
        allium_view_simulate_click(top, x1, y1, GDK_SHIFT_MASK);
        check(t, selected_handles(top) == 1, "Shift + click again takes one away (%u)",
              selected_handles(top));
        /* A rectangle off the handles over the max x side: its 4 corners, 4 edges and the
         * face's centre (20 pixels beyond the box, in map units). */
        double along[3] = {hi[0] + g, hi[1], hi[2]}, xs, ys;
        to_widget(top, along, &xs, &ys);
        double m = 20 * g / fmax(fabs(xs - x0), 1e-6);
        double from[3] = {hi[0] + m, hi[1] + m, hi[2]}, to[3] = {hi[0] - a / 4, lo[1] - m, hi[2]};
        to_widget(top, from, &x0, &y0);
        to_widget(top, to, &x1, &y1);
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        check(t, selected_handles(top) == 9 && !allium_document_get_previewing(doc),
              "a rectangle selects the 9 handles of the max x side (%u)", selected_handles(top));
        /* Dragging one of them moves them all: the side goes out two grid steps. */
        double out[3] = {hi[0] + 2 * g, hi[1], hi[2]};
        to_widget(top, corner_a, &x0, &y0);
        to_widget(top, out, &x1, &y1);
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        t->phase = 5;
        return FALSE;
    }
    if (t->phase == 5) {
        check_box_edit(t, 8, 6, (a + 2 * g) * b * c, _("Move vertices"),
                       "dragging one of the selected handles moves them all");
        double moved[3] = {hi[0] + 2 * g, hi[1], hi[2]};
        check(t, selected_handles(top) == 9 && handle_selected(top, 0, moved),
              "they stay selected where they went");
        t->phase = 6;
        return FALSE;
    }
    if (t->phase == 6) {
        if (!settle(t)) return FALSE;
        shoot_and_compare(t, "vertex-several.png", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        /* The 3D view aimed at the box from above its side. */
        al_camera *camera = allium_view_get_camera(view);
        t->saved_camera = *camera;
        camera->pitch = -30;
        al_camera_frame(camera, lo, hi);
        allium_view_queue_render(view);
        t->phase = 7;
        return FALSE;
    }
    double top_centre[3] = {mid_x, 0.5 * (lo[1] + hi[1]), hi[2]},
           raised[3] = {top_centre[0], top_centre[1], hi[2] + 2 * g};
    if (t->phase == 7) {
        check_box_edit(t, 8, 6, a * b * c, _("Add brush"), "undo takes the side back");
        /* Alt held while dragging the top face's handle in 3D: it rises along Z. */
        gboolean seen = to_widget(view, top_centre, &x0, &y0) && to_widget(view, raised, &x1, &y1);
        check(t, seen, "the box's top is in front of the 3D camera");
        if (!seen) return TRUE;
        allium_view_simulate_drag_holding(view, x0, y0, x1, y1, 4, 0, GDK_ALT_MASK);
        t->phase = 8;
        return FALSE;
    }
    if (t->phase == 8) {
        check_box_edit(t, 8, 6, a * b * (c + 2 * g), _("Move vertices"),
                       "Alt + drag of the top face's handle in 3D raises it along Z");
        double mins[3], maxs[3];
        gboolean bounded = row_bounds(t, t->vertex_row, mins, maxs);
        check(t, bounded && fabs(maxs[2] - hi[2] - 2 * g) < 1e-6 && fabs(maxs[0] - hi[0]) < 1e-6,
              "only the top rose (max z %g)", bounded ? maxs[2] : NAN);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 9;
        return FALSE;
    }
    if (t->phase == 9) {
        /* The select tool: Alt held while moving the box in 3D lifts it (grabbed off the
         * top's centre, where its resize handle is). */
        g_object_set(t->window, "tool", "select", NULL);
        allium_selection_select_brush(t->window->selection, t->vertex_row, ALLIUM_SELECT_REPLACE);
        double grab[3] = {lo[0] + 0.3 * a, lo[1] + 0.3 * b, hi[2]},
               lifted[3] = {grab[0], grab[1], hi[2] + 2 * g};
        to_widget(view, grab, &x0, &y0);
        to_widget(view, lifted, &x1, &y1);
        allium_view_simulate_drag_holding(view, x0, y0, x1, y1, 4, 0, GDK_ALT_MASK);
        t->phase = 10;
        return FALSE;
    }
    if (t->phase == 10) {
        double mins[3], maxs[3];
        gboolean bounded = row_bounds(t, t->vertex_row, mins, maxs);
        check(t,
              bounded && fabs(mins[2] - lo[2] - 2 * g) < 1e-6 && fabs(mins[0] - lo[0]) < 1e-6 &&
                  fabs(mins[1] - lo[1]) < 1e-6,
              "Alt + drag of the box in 3D lifts it two grid steps, nothing else (min %g %g %g)",
              bounded ? mins[0] - lo[0] : NAN, bounded ? mins[1] - lo[1] : NAN,
              bounded ? mins[2] - lo[2] : NAN);
        compare_with_full(t, doc, FALSE);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        *allium_view_get_camera(view) = t->saved_camera;
        allium_view_queue_render(view);
        t->phase = 11;
        return FALSE;
    }
    double mins[3], maxs[3];
    check(t, !row_bounds(t, t->vertex_row, mins, maxs), "undoing the box removes it");
    t->vertex_row = 0;
    return TRUE;
}
