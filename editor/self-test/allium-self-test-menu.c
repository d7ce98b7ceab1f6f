/* Self-test steps: the views' context menu, a layer's colour, a prefab dragged into a view.
 *
 * The context menu is opened by a right click in the top view (the right button's drag
 * gesture emits "drag-begin" and "drag-end" without motion, as GTK does for a click; no
 * X test extension is at hand to press a real button under xvfb) and its items are
 * clicked as widgets (the menu's model buttons, "clicked"), so each runs the window's
 * action the menu names. Two brushes become a group (Group), the group is entered (Enter
 * Group), one member is dragged inside it while the other stays, and the group is left
 * (Leave Group); the group, then a light, is hidden and locked from the menu, each one
 * undoable step whose mark the document keeps on the group's or the light's entity.
 *
 * The layer step moves the group to a new layer (Move to Layer, from the submenu), gives
 * the layer magenta through its colour button on the Layers page, and counts magenta
 * pixels in the top view before, after and after undo. The prefab step saves two brushes
 * as a prefab, drags its row from the Prefabs page (the row's drag source "prepare" gives
 * the content, the top view's drop target takes it as "drop") and checks the brushes
 * arrived moved by whole grid steps to where they fell. Screenshots: context-menu.png,
 * layer-colours.png.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-prefab-browser.h"
#include "allium-preferences.h"
#include "allium-view-private.h"
#include "layers/layer-edits.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* What the steps keep between polls. */
static struct {
    gint64 a, b, group, layer, light;
    double alo[3], ahi[3], blo[3], bhi[3]; /* where the brushes lay before the steps */
    int undo;                              /* edits the steps made and undo at the end */
    int magenta_before;
    double expect_delta[3];
    char *prefab_path;
} m;

/* --- helpers ------------------------------------------------------------------------- */

static AlliumDocument *document_of(SelfTest *t)
{
    return allium_window_get_document(t->window);
}

static al_doc *doc_of(SelfTest *t)
{
    return allium_document_get_doc(document_of(t));
}

/* The widget point of the middle of brush ROW (nudged off the grid lines) in VIEW. */
static gboolean brush_middle(SelfTest *t, AlliumView *view, gint64 row, double *x, double *y)
{
    double lo[3], hi[3], p[3];
    if (!al_doc_brush_box(doc_of(t), row, lo, hi)) return FALSE;
    for (int k = 0; k < 3; k++) p[k] = 0.5 * (lo[k] + hi[k]) + 0.37;
    return to_widget(view, p, x, y);
}

/* Left clicks at (X, Y) until ROW is selected (brushes above it come first in the top
 * view: clicks at one place walk down to it). */
static gboolean click_until(SelfTest *t, AlliumView *view, double x, double y, gint64 row)
{
    for (int i = 0; i < 10 && !allium_selection_has_brush(t->window->selection, row); i++)
        allium_view_simulate_click(view, x, y, 0);
    return allium_selection_has_brush(t->window->selection, row);
}

/* The menu's item (a model button: it shows LABEL, as the menu model gives it; a context
 * menu shows no mnemonics) or NULL. The items do not tell their actions: clicking one runs
 * it. */
static GtkWidget *menu_item(GtkPopover *menu, const char *label)
{
    g_autoptr(GString) shown = g_string_new(NULL);
    for (const char *c = label; *c; c++)
        if (*c != '_') g_string_append_c(shown, *c);
    label = shown->str;
    g_autoptr(GPtrArray) items = g_ptr_array_new();
    collect_widgets(GTK_WIDGET(menu), GTK_TYPE_ACTIONABLE, items);
    for (guint i = 0; i < items->len; i++) {
        g_autofree char *text = NULL;
        if (g_object_class_find_property(G_OBJECT_GET_CLASS(items->pdata[i]), "text"))
            g_object_get(items->pdata[i], "text", &text, NULL);
        if (g_strcmp0(text, label) == 0) return items->pdata[i];
    }
    return NULL;
}

/* A right click at (X, Y) in VIEW, then a click on the menu's item LABEL. FALSE when no
 * menu opened or the item is missing or greyed out. */
static gboolean from_menu(SelfTest *t, AlliumView *view, double x, double y, const char *label)
{
    allium_view_simulate_right_click(view, x, y);
    GtkPopover *menu = allium_view_get_context_menu(view);
    if (!menu || !gtk_widget_get_visible(GTK_WIDGET(menu))) {
        check(t, FALSE, "a right click opens the context menu (for %s)", label);
        return FALSE;
    }
    GtkWidget *item = menu_item(menu, label);
    gboolean usable = item && gtk_widget_is_sensitive(item);
    check(t, usable, "the context menu has “%s”, usable", label);
    if (usable) g_signal_emit_by_name(item, "clicked");
    gtk_popover_popdown(menu);
    return usable;
}

static gboolean undo_label_is(SelfTest *t, const char *expected)
{
    char label[64] = "";
    return al_doc_undo_label(doc_of(t), FALSE, label, sizeof label) && strcmp(label, expected) == 0;
}

/* The state column of entity row ROW (0 when it is missing). */
static unsigned entity_state(SelfTest *t, gint64 row)
{
    al_doc_entity_row *rows = NULL;
    int count = 0;
    unsigned state = 0;
    if (al_doc_list_entities(doc_of(t), &rows, &count) == AL_OK)
        for (int i = 0; i < count; i++)
            if (rows[i].id == row) state = rows[i].state;
    al_doc_entity_rows_free(rows, count);
    return state;
}

static void undo(SelfTest *t)
{
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
}

/* The window's screenshot with the open popover MENU drawn where it is on screen (a
 * popover is a surface of its own, which the window's rendering leaves out). */
static void shoot_with_menu(SelfTest *t, GtkPopover *menu, const char *name)
{
    g_autoptr(GdkTexture) window = screenshot(t, GTK_WIDGET(t->window), "context-menu-window.png");
    g_autoptr(GdkTexture) popup = screenshot(t, GTK_WIDGET(menu), "context-menu-alone.png");
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(menu));
    if (!window || !popup || !surface || !GDK_IS_POPUP(surface)) return;
    double sx = 0, sy = 0, px = 0, py = 0;
    gtk_native_get_surface_transform(GTK_NATIVE(t->window), &sx, &sy);
    gtk_native_get_surface_transform(GTK_NATIVE(menu), &px, &py);
    float x = (float) (gdk_popup_get_position_x(GDK_POPUP(surface)) - sx + px);
    float y = (float) (gdk_popup_get_position_y(GDK_POPUP(surface)) - sy + py);
    int w = gdk_texture_get_width(window), h = gdk_texture_get_height(window);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gtk_snapshot_append_texture(snapshot, window, &GRAPHENE_RECT_INIT(0, 0, (float) w, (float) h));
    gtk_snapshot_append_texture(snapshot, popup,
                                &GRAPHENE_RECT_INIT(x, y, (float) gdk_texture_get_width(popup),
                                                    (float) gdk_texture_get_height(popup)));
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    GskRenderer *renderer = gtk_native_get_renderer(GTK_NATIVE(t->window));
    g_autoptr(GdkTexture) both = gsk_renderer_render_texture(
        renderer, node, &GRAPHENE_RECT_INIT(0, 0, (float) w, (float) h));
    gsk_render_node_unref(node);
    g_autofree char *path = dir_file(t, name);
    check(t, both && gdk_texture_save_to_png(both, path), "screenshot saved to %s", path);
}

/* --- the context menu ---------------------------------------------------------------- */

gboolean step_context_menu(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    AlliumSelection *sel = t->window->selection;
    al_doc *doc = doc_of(t);
    double x, y;
    if (!t->step_begun) {
        t->phase = 0;
        m.undo = 0;
        m.a = t->box_row;
        m.b = top ? other_brush(t, m.a, top) : -1;
        gboolean ready = m.b >= 0 && al_doc_brush_box(doc, m.a, m.alo, m.ahi) &&
                         al_doc_brush_box(doc, m.b, m.blo, m.bhi) &&
                         brush_middle(t, top, m.a, &x, &y);
        check(t, ready, "two loose brushes for the context menu are in the top view");
        if (!ready) return TRUE;
        /* Both selected, a right click on one: the menu, and Group from it. */
        gint64 pair[2] = {m.a, m.b};
        allium_selection_set_items(sel, pair, 2, NULL, 0);
        allium_view_simulate_right_click(top, x, y);
        GtkPopover *menu = allium_view_get_context_menu(top);
        check(t, menu && gtk_widget_get_visible(GTK_WIDGET(menu)),
              "a right click (no drag) in the top view opens the context menu");
        if (!menu) return TRUE;
        const char *const labels[] = {
            _("_Group"),      _("_Ungroup"),       _("_Enter Group"),     _("_Leave Group"),
            _("_Hide"),       _("_Isolate"),       _("Show _All"),        _("_Lock"),
            _("_Unlock All"), _("_Move to Layer"), _("Save as _Prefab…"), _("_Delete")};
        int listed = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(labels); i++)
            listed += menu_item(menu, labels[i]) != NULL;
        check(t, listed == (int) G_N_ELEMENTS(labels), "it lists the %d items (%d found)",
              (int) G_N_ELEMENTS(labels), listed);
        check(t, menu_item(menu, _("Default Layer")) != NULL,
              "and Move to Layer has the default layer");
        GtkWidget *leave = menu_item(menu, _("_Leave Group"));
        check(t, leave && !gtk_widget_is_sensitive(leave),
              "Leave Group is greyed out outside a group");
        shoot_with_menu(t, menu, "context-menu.png");
        gtk_popover_popdown(menu);
        from_menu(t, top, x, y, _("_Group"));
        m.group = al_doc_brush_owner(doc, m.a);
        check(t,
              m.group > 0 && al_doc_brush_owner(doc, m.b) == m.group &&
                  undo_label_is(t, _("Group")),
              "Group from the menu makes both one group, one undoable step");
        m.undo++;
        allium_selection_clear(sel);
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    switch (t->phase) {
    case 0: {
        /* Enter the group from the menu; inside, a click picks one member and a drag moves
         * it alone; Leave Group goes out again. */
        if (!brush_middle(t, top, m.a, &x, &y)) return TRUE;
        check(t, click_until(t, top, x, y, m.a) && allium_selection_has_brush(sel, m.b),
              "a click on a member selects the whole group");
        from_menu(t, top, x, y, _("_Enter Group"));
        check(t, t->window->entered_group == m.group && allium_selection_is_empty(sel),
              "Enter Group from the menu enters it");
        click_until(t, top, x, y, m.a);
        check(t, allium_selection_has_brush(sel, m.a) && !allium_selection_has_brush(sel, m.b),
              "inside the group a click selects one member");
        double p[3] = {0.5 * (m.alo[0] + m.ahi[0]) + 64.37, 0.5 * (m.alo[1] + m.ahi[1]) + 0.37,
                       0.5 * (m.alo[2] + m.ahi[2])},
               qx, qy;
        to_widget(top, p, &qx, &qy);
        allium_view_simulate_drag(top, x, y, qx, qy, 8, 0);
        double lo[3], hi[3], blo[3], bhi[3];
        al_doc_brush_box(doc, m.a, lo, hi);
        al_doc_brush_box(doc, m.b, blo, bhi);
        check(t,
              fabs(lo[0] - m.alo[0] - 64) < 1e-6 && fabs(lo[1] - m.alo[1]) < 1e-6 &&
                  fabs(blo[0] - m.blo[0]) < 1e-9 && al_doc_brush_owner(doc, m.a) == m.group,
              "the member moved 64 alone (%g %g), the other stayed, both still grouped",
              lo[0] - m.alo[0], lo[1] - m.alo[1]);
        m.undo++;
        from_menu(t, top, x, y, _("_Leave Group"));
        check(t, t->window->entered_group == 0, "Leave Group from the menu leaves it");
        allium_selection_clear(sel);
        t->phase = 1;
        return FALSE;
    }
    case 1: {
        /* Hide, then lock, the group from the menu: its entity's mark, one step each. */
        if (!brush_middle(t, top, m.a, &x, &y)) return TRUE;
        click_until(t, top, x, y, m.a);
        from_menu(t, top, x, y, _("_Hide"));
        check(t,
              entity_state(t, m.group) == AL_DOC_STATE_HIDDEN &&
                  allium_selection_is_hidden(sel, m.a) && allium_selection_is_hidden(sel, m.b) &&
                  undo_label_is(t, _("Hide")),
              "Hide from the menu marks the group hidden (both members hidden), one step");
        undo(t);
        check(t, entity_state(t, m.group) == 0 && !allium_selection_is_hidden(sel, m.a),
              "undo shows the group again");
        click_until(t, top, x, y, m.a);
        from_menu(t, top, x, y, _("_Lock"));
        check(t,
              entity_state(t, m.group) == AL_DOC_STATE_LOCKED &&
                  allium_selection_is_locked(sel, m.b) && undo_label_is(t, _("Lock")),
              "Lock from the menu marks the group locked, one step");
        allium_view_simulate_click(top, x, y, 0);
        check(t, !allium_selection_has_brush(sel, m.a) && !allium_selection_has_brush(sel, m.b),
              "a click on the locked group selects neither member");
        undo(t);
        check(t, entity_state(t, m.group) == 0 && allium_selection_is_pickable(sel, m.a),
              "undo unlocks it");

        /* A light: selected, then hidden and locked from the menu. */
        AlliumSnapshot *snap = allium_document_get_snapshot(document_of(t));
        al_layers layers;
        int light = -1;
        if (al_layers_read(doc, &layers, NULL) == AL_OK) {
            for (int e = 1; e < snap->input.input.entity_count && light < 0; e++) {
                const char *cls = snap->input.input.entities[e].classname;
                double lo[3], hi[3];
                int n = al_layers_find(&layers, snap->input.entity_ids[e]);
                if (cls && strcmp(cls, "light") == 0 && n > 0 && layers.nodes[n].parent < 0 &&
                    al_scene_entity_bounds(snap->scene, e, lo, hi))
                    light = e;
            }
            al_layers_free(&layers);
        }
        check(t, light > 0, "the map has a light outside groups");
        if (light <= 0) return TRUE;
        m.light = snap->input.entity_ids[light];
        allium_selection_set_items(sel, NULL, 0, &m.light, 1);
        from_menu(t, top, x, y, _("_Hide"));
        const al_pick_mask *mask = allium_view_pick_mask(top, snap);
        check(t,
              entity_state(t, m.light) == AL_DOC_STATE_HIDDEN &&
                  allium_selection_is_entity_hidden(sel, m.light) && mask->entities &&
                  light < mask->entity_count && mask->entities[light] &&
                  top->hidden_entities->len > (guint) light &&
                  g_array_index(top->hidden_entities, guint8, light) && undo_label_is(t, _("Hide")),
              "Hide from the menu hides the light: marked, neither drawn nor picked, one step");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.select-all", NULL);
        check(t, !allium_selection_has_entity(sel, m.light), "Select All leaves the hidden light");
        undo(t);
        check(t, entity_state(t, m.light) == 0 && !allium_selection_is_entity_hidden(sel, m.light),
              "undo shows the light again");
        allium_selection_set_items(sel, NULL, 0, &m.light, 1);
        from_menu(t, top, x, y, _("_Lock"));
        mask = allium_view_pick_mask(top, snap);
        check(t,
              entity_state(t, m.light) == AL_DOC_STATE_LOCKED &&
                  !allium_selection_is_entity_pickable(sel, m.light) &&
                  !allium_selection_is_entity_hidden(sel, m.light) && mask->entities &&
                  mask->entities[light] && undo_label_is(t, _("Lock")),
              "Lock from the menu locks the light: drawn, not picked, one step");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.select-all", NULL);
        check(t, !allium_selection_has_entity(sel, m.light), "Select All leaves the locked light");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.unlock-all", NULL);
        check(t, entity_state(t, m.light) == 0 && undo_label_is(t, _("Unlock all")),
              "Unlock All frees it, one step");
        undo(t);
        undo(t);
        check(t, entity_state(t, m.light) == 0, "undoing both leaves the light as it was");
        allium_selection_clear(sel);
        return TRUE;
    }
    default:
        return TRUE;
    }
}

/* --- a layer's colour ---------------------------------------------------------------- */

#define MAGENTA 0xff00ff

gboolean step_layer_colour(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    AlliumSelection *sel = t->window->selection;
    AlliumDocument *document = document_of(t);
    al_doc *doc = doc_of(t);
    double x, y;
    if (!t->step_begun) {
        t->phase = 0;
        GError *error = NULL;
        check(t, allium_document_add_layer(document, "Tinted", &m.layer, &error) && m.layer > 0,
              "a new layer");
        g_clear_error(&error);
        m.undo++;
        if (!brush_middle(t, top, m.a, &x, &y)) return TRUE;
        click_until(t, top, x, y, m.a);
        from_menu(t, top, x, y, "Tinted");
        al_layers layers;
        if (al_layers_read(doc, &layers, NULL) == AL_OK) {
            int g = al_layers_find(&layers, m.group);
            check(t, g > 0 && layers.nodes[g].layer == al_layers_find(&layers, m.layer),
                  "Move to Layer › Tinted from the menu moves the group there");
            al_layers_free(&layers);
        }
        m.undo++;
        allium_selection_clear(sel);
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "layers");
        return FALSE;
    }
    if (!compiled_current(t->window) || !settle(t)) return FALSE;
    switch (t->phase) {
    case 0: {
        g_autoptr(GdkTexture) before =
            screenshot(t, GTK_WIDGET(t->window), "layer-colours-before.png");
        m.magenta_before =
            before ? count_colour(before, GTK_WIDGET(top), GTK_WIDGET(t->window), MAGENTA, 40) : -1;
        /* The layer's swatch on the Layers page: the designer picks magenta. */
        GtkWidget *button = allium_layers_panel_get_color_button(t->window->layers_panel, 1);
        check(t, button && GTK_IS_COLOR_BUTTON(button), "the layer's row has a colour button");
        if (!button) return TRUE;
        GdkRGBA magenta = {1, 0, 1, 1};
        gtk_color_chooser_set_rgba(GTK_COLOR_CHOOSER(button), &magenta);
        g_signal_emit_by_name(button, "color-set");
        al_layers layers;
        const char *value = NULL;
        g_autofree char *kept = NULL;
        if (al_layers_read(doc, &layers, NULL) == AL_OK) {
            value = al_layers_value(&layers, al_layers_find(&layers, m.layer), "_tb_layer_color");
            kept = g_strdup(value);
            al_layers_free(&layers);
        }
        check(t, g_strcmp0(kept, "1 0 1 1") == 0 && undo_label_is(t, "Set property"),
              "the colour is the layer's \"_tb_layer_color\" \"%s\", one undoable step",
              kept ? kept : "");
        m.undo++;
        check(t,
              allium_selection_get_tint(sel, m.a) == 0xff00ffffu &&
                  allium_selection_get_tint(sel, m.b) == 0xff00ffffu,
              "both brushes of the group take the layer's colour");
        t->phase = 1;
        t->settled = FALSE;
        return FALSE;
    }
    case 1: {
        g_autoptr(GdkTexture) after = screenshot(t, GTK_WIDGET(t->window), "layer-colours.png");
        int magenta =
            after ? count_colour(after, GTK_WIDGET(top), GTK_WIDGET(t->window), MAGENTA, 40) : -1;
        check(t, magenta > 40 && magenta > 4 * (m.magenta_before + 1),
              "the top view draws the layer's brushes in magenta (%d pixels, %d before)", magenta,
              m.magenta_before);
        undo(t);
        m.undo--;
        t->phase = 2;
        t->settled = FALSE;
        return FALSE;
    }
    default: {
        g_autoptr(GdkTexture) undone =
            screenshot(t, GTK_WIDGET(t->window), "layer-colours-undone.png");
        int magenta =
            undone ? count_colour(undone, GTK_WIDGET(top), GTK_WIDGET(t->window), MAGENTA, 40) : -1;
        check(t, magenta <= m.magenta_before + 4, "undo takes the colour away (%d magenta pixels)",
              magenta);
        /* Everything the two steps did, undone: the map as it was. */
        for (int i = 0; i < m.undo; i++) undo(t);
        double lo[3], hi[3];
        gboolean back = al_doc_brush_box(doc, m.a, lo, hi) && al_doc_brush_owner(doc, m.a) == 0 &&
                        al_doc_brush_owner(doc, m.b) == 0 && !al_doc_entity_exists(doc, m.group) &&
                        !al_doc_entity_exists(doc, m.layer);
        for (int k = 0; k < 3; k++) back = back && fabs(lo[k] - m.alo[k]) < 1e-9;
        check(t, back, "undoing the %d steps gives the map back", m.undo);
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
        allium_selection_clear(sel);
        return TRUE;
    }
    }
}

/* --- a prefab dragged into a view ---------------------------------------------------- */

gboolean step_prefab_drag(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    AlliumPrefabBrowser *browser = t->window->prefab_browser;
    AlliumSelection *sel = t->window->selection;
    al_doc *doc = doc_of(t);
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    if (!t->step_begun) {
        t->phase = 0;
        m.a = t->box_row;
        m.b = top ? other_brush(t, m.a, top) : -1;
        gboolean ready = m.b >= 0 && al_doc_brush_box(doc, m.a, m.alo, m.ahi) &&
                         al_doc_brush_box(doc, m.b, m.blo, m.bhi);
        check(t, ready, "two brushes to save as a prefab");
        if (!ready) return TRUE;
        gint64 pair[2] = {m.a, m.b};
        allium_selection_set_items(sel, pair, 2, NULL, 0);
        GError *error = NULL;
        check(t, allium_window_save_prefab(t->window, "dragged pair", &error),
              "the pair is saved as the prefab \"dragged pair\" (%s)", error ? error->message : "");
        g_clear_error(&error);
        allium_selection_clear(sel);
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "prefabs");
        t->brushes_mark = allium_document_get_snapshot(document_of(t))->input.input.brush_count;
        return FALSE;
    }
    switch (t->phase) {
    case 0: {
        if (allium_prefab_browser_get_pending(browser) > 0) return FALSE;
        /* The drag: the row's source gives its content, the top view takes it where it
         * falls (a third of the way across, off the grid lines). */
        GtkDragSource *source = allium_prefab_browser_get_drag_source(browser, "dragged pair");
        check(t, source != NULL, "the Prefabs page's row can be dragged");
        if (!source) return TRUE;
        GdkContentProvider *content = NULL;
        g_signal_emit_by_name(source, "prepare", 4.0, 4.0, &content);
        GValue value = G_VALUE_INIT;
        g_value_init(&value, ALLIUM_TYPE_PREFAB_PATH);
        gboolean got = content && gdk_content_provider_get_value(content, &value, NULL);
        const char *path = got ? g_value_get_boxed(&value) : NULL;
        check(t, path && g_str_has_suffix(path, "dragged pair.map"),
              "the drag carries the prefab's file (%s)", path ? path : "nothing");
        g_free(m.prefab_path);
        m.prefab_path = g_strdup(path);
        int w = gtk_widget_get_width(GTK_WIDGET(top->gl_area)),
            h = gtk_widget_get_height(GTK_WIDGET(top->gl_area));
        double x = w / 3.0 + 0.4, y = h / 3.0 + 0.4;
        check(t, got && allium_view_simulate_drop(top, &value, x, y),
              "the top view takes the prefab dropped on it");
        g_value_unset(&value);
        g_clear_object(&content);
        double point[3], c[3];
        gboolean axes[3];
        check(t, allium_view_get_pointer_point(top, point, axes), "the drop point is in the map");
        for (int k = 0; k < 3; k++) {
            c[k] = 0.5 * (fmin(m.alo[k], m.blo[k]) + fmax(m.ahi[k], m.bhi[k]));
            m.expect_delta[k] = axes[k] ? round((point[k] - c[k]) / grid) * grid : 0;
        }
        t->phase = 1;
        return FALSE;
    }
    case 1: {
        AlliumSnapshot *snap = allium_document_get_snapshot(document_of(t));
        if (!compiled_current(t->window) || snap->input.input.brush_count != t->brushes_mark + 2)
            return FALSE;
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(sel, &nb);
        int moved = 0;
        for (guint i = 0; i < nb; i++) {
            double lo[3], hi[3];
            if (!al_doc_brush_box(doc, rows[i], lo, hi)) continue;
            for (int j = 0; j < 2; j++) {
                const double *slo = j ? m.blo : m.alo, *shi = j ? m.bhi : m.ahi;
                gboolean same = TRUE;
                for (int k = 0; k < 3; k++)
                    same = same && fabs(lo[k] - slo[k] - m.expect_delta[k]) < 1e-6 &&
                           fabs(hi[k] - shi[k] - m.expect_delta[k]) < 1e-6;
                if (same) {
                    moved++;
                    break;
                }
            }
        }
        check(t, nb == 2 && moved == 2,
              "the dropped brushes are the saved ones moved by (%g %g %g): whole grid steps "
              "to where they fell, height kept (%d of %u)",
              m.expect_delta[0], m.expect_delta[1], m.expect_delta[2], moved, nb);
        g_autofree char *label = allium_document_dup_undo_label(document_of(t), FALSE);
        check(t, g_strcmp0(label, "Paste") == 0, "the drop is one undoable step (\"%s\")", label);
        undo(t);
        t->phase = 2;
        return FALSE;
    }
    default: {
        AlliumSnapshot *snap = allium_document_get_snapshot(document_of(t));
        if (!compiled_current(t->window) || snap->input.input.brush_count != t->brushes_mark)
            return FALSE;
        check(t, TRUE, "undo takes the dropped brushes away");
        allium_view_simulate_pointer(top, FALSE, 0, 0);
        if (m.prefab_path) {
            g_autofree char *base = g_strndup(m.prefab_path, strlen(m.prefab_path) - 4);
            g_autofree char *png = g_strconcat(base, ".png", NULL);
            g_unlink(m.prefab_path);
            g_unlink(png);
        }
        g_clear_pointer(&m.prefab_path, g_free);
        allium_prefab_browser_reload(browser);
        allium_selection_clear(sel);
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
        return TRUE;
    }
    }
}
