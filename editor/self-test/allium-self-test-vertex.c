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
