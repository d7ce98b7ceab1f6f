/* Self-test step: groups and layers. Two brushes become a group (Edit → Group); a click on
 * one member selects both, and a drag moves both by the same distance; the group goes to a
 * new layer (the Layers page), which is locked (a click there selects nothing) and then
 * hidden (both brushes leave every view); each is one undoable step, and undoing them all
 * gives the map back as it was. Screenshots: groups.png (the group selected), layers.png
 * (the Layers page with the locked, hidden layer).
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-view-private.h"
#include "layers/layer-edits.h"

#include <glib/gi18n.h>
#include <math.h>

gint64 other_brush(SelfTest *t, gint64 except, AlliumView *top)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->window));
    al_doc *doc = allium_document_get_doc(allium_window_get_document(t->window));
    double elo[3], ehi[3];
    if (!al_doc_brush_box(doc, except, elo, ehi)) return -1;
    for (int b = 0; b < snap->input.input.brush_count; b++) {
        gint64 row = snap->input.brush_ids[b];
        double lo[3], hi[3], p[3], x, y;
        if (row == except || al_doc_brush_owner(doc, row) != 0 ||
            !al_doc_brush_box(doc, row, lo, hi))
            continue;
        for (int k = 0; k < 3; k++) p[k] = 0.5 * (lo[k] + hi[k]);
        gboolean apart = hi[0] < elo[0] || lo[0] > ehi[0] || hi[1] < elo[1] || lo[1] > ehi[1];
        if (apart && hi[0] - lo[0] < 512 && hi[1] - lo[1] < 512 && to_widget(top, p, &x, &y))
            return row;
    }
    return -1;
}

/* The step's two brushes and where the first lay before the drag (kept between the calls
 * of the step: it waits for the compile of the grouping before it clicks). */
static gint64 pair[2];
static double alo[3], ahi[3], blo[3], bhi[3];

gboolean step_groups_layers(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    AlliumDocument *document = allium_window_get_document(t->window);
    al_doc *doc = allium_document_get_doc(document);
    AlliumSelection *sel = t->window->selection;
    double p[3], x, y;
    char label[64] = "";
    if (!t->step_begun) {
        gint64 a = t->box_row, b = top ? other_brush(t, a, top) : -1;
        gboolean ready = top && b >= 0 && al_doc_brush_box(doc, a, alo, ahi) &&
                         al_doc_brush_box(doc, b, blo, bhi);
        check(t, ready, "two brushes to group are in the top view");
        if (!ready) return TRUE;
        /* Group: both brushes in one new func_group entity of type _tb_group. */
        pair[0] = a;
        pair[1] = b;
        allium_selection_set_items(sel, pair, 2, NULL, 0);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.group", NULL);
        gint64 group = al_doc_brush_owner(doc, a);
        check(t, group > 0 && al_doc_brush_owner(doc, b) == group,
              "Edit → Group puts both brushes in one group (entity %" G_GINT64_FORMAT ")", group);
        check(t,
              al_doc_undo_label(doc, FALSE, label, sizeof label) && strcmp(label, _("Group")) == 0,
              "grouping is one undoable step (“%s”)", label);
        allium_selection_clear(sel);
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    gint64 a = pair[0], b = pair[1], group = al_doc_brush_owner(doc, a);
    for (int k = 0; k < 3; k++) p[k] = 0.5 * (alo[k] + ahi[k]) + 0.37;
    check(t, to_widget(top, p, &x, &y), "the first brush's middle is in the top view");
    int steps = 1;

    /* A click on one member selects the whole group; a drag moves both. The ceiling lies
     * above the member in the top view: clicks at one place walk down to it. */
    for (int i = 0; i < 8 && !allium_selection_has_brush(sel, a); i++)
        allium_view_simulate_click(top, x, y, 0);
    guint selected = 0;
    allium_selection_get_brushes(sel, &selected);
    check(t, allium_selection_has_brush(sel, a) && allium_selection_has_brush(sel, b),
          "a click on one member selects the whole group (%u brushes selected)", selected);
    g_autoptr(GdkTexture) grouped = screenshot(t, GTK_WIDGET(t->window), "groups.png");
    double q[3] = {p[0] + 64, p[1] + 32, p[2]}, qx, qy;
    to_widget(top, q, &qx, &qy);
    allium_view_simulate_drag(top, x, y, qx, qy, 8, 0);
    double alo2[3], ahi2[3], blo2[3], bhi2[3];
    al_doc_brush_box(doc, a, alo2, ahi2);
    al_doc_brush_box(doc, b, blo2, bhi2);
    double da[3], db[3];
    gboolean same = TRUE;
    for (int k = 0; k < 3; k++) {
        da[k] = alo2[k] - alo[k];
        db[k] = blo2[k] - blo[k];
        same = same && fabs(da[k] - db[k]) < 1e-6;
    }
    check(t, same && (fabs(da[0]) > 0 || fabs(da[1]) > 0),
          "dragging the member moves the group as one (%g %g %g and %g %g %g)", da[0], da[1], da[2],
          db[0], db[1], db[2]);
    steps++;

    /* A new layer on the Layers page; the group moves to it. */
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "layers");
    gint64 layer = 0;
    GError *error = NULL;
    check(t, allium_document_add_layer(document, "Self-test layer", &layer, &error) && layer > 0,
          "a new layer");
    g_clear_error(&error);
    steps++;
    check(t, allium_layers_panel_get_layer(t->window->layers_panel, 1) == layer,
          "the Layers page lists it after the default layer");
    check(t, allium_document_move_to_layer(document, pair, 2, NULL, 0, layer, &error),
          "the group moves to it");
    g_clear_error(&error);
    steps++;
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) == AL_OK) {
        int g = al_layers_find(&layers, group);
        check(t, g > 0 && layers.nodes[g].layer == al_layers_find(&layers, layer),
              "the group lies in the new layer");
        al_layers_free(&layers);
    }

    /* Locked: drawn, but a click there selects nothing. */
    check(t, allium_document_set_layer_flag(document, layer, AL_LAYER_LOCKED, TRUE, &error),
          "the layer is locked");
    g_clear_error(&error);
    steps++;
    allium_selection_clear(sel);
    for (int k = 0; k < 3; k++) p[k] = 0.5 * (alo2[k] + ahi2[k]) + 0.37;
    to_widget(top, p, &x, &y);
    allium_view_simulate_click(top, x, y, 0);
    check(t,
          !allium_selection_has_brush(sel, a) && !allium_selection_has_brush(sel, b) &&
              allium_selection_is_locked(sel, a) && !allium_selection_is_hidden(sel, a),
          "a click on a locked layer's brush does not select it");

    /* Hidden: neither brush is drawn or picked, yet both are compiled. */
    check(t, allium_document_set_layer_flag(document, layer, AL_LAYER_HIDDEN, TRUE, &error),
          "the layer is hidden");
    g_clear_error(&error);
    steps++;
    check(t, allium_selection_is_hidden(sel, a) && allium_selection_is_hidden(sel, b),
          "hiding the layer hides both brushes of its group");
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "layers.png");

    /* Each was one step: undoing them all gives the map back. */
    for (int i = 0; i < steps; i++)
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
    double alo3[3], ahi3[3];
    al_doc_brush_box(doc, a, alo3, ahi3);
    gboolean back = al_doc_brush_owner(doc, a) == 0 && al_doc_brush_owner(doc, b) == 0 &&
                    !al_doc_entity_exists(doc, layer) && !al_doc_entity_exists(doc, group);
    for (int k = 0; k < 3; k++) back = back && fabs(alo3[k] - alo[k]) < 1e-9;
    check(t, back && !allium_selection_is_hidden(sel, a) && !allium_selection_is_locked(sel, a),
          "undoing the %d steps gives the map back, ungrouped, shown and unlocked", steps);
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    allium_selection_clear(sel);
    return TRUE;
}
