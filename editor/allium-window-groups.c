/* AlliumWindow's groups (Edit menu and the views' context menu): Group (Ctrl+G) makes the
 * selection a group, Ungroup (Ctrl+Shift+G) dissolves the selected groups, Move to Layer
 * moves the selection (groups whole) to a layer, each one undoable step
 * (data/layers/layer-edits.h: TrenchBroom's func_group keys, so groups round-trip).
 *
 * A group is selected and moved as one: whenever the selection changes, a selected member
 * brings its whole outermost group with it (every brush and point entity under it). A
 * double click in a view enters the clicked group, so that its members are picked one by
 * one (groups inside it still as one); Escape with nothing selected leaves it again, one
 * level at a time.
 *
 * Workload: reading the hierarchy parses every entity's keys once per selection change (a
 * few milliseconds on lq-e3m4's 1,200 entities).
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "layers/layer-edits.h"

#include <glib/gi18n.h>

/* --- static helpers ------------------------------------------------------------------ */

/* Whether entity E of LAYERS lies under entity index TOP (or is it). */
static gboolean lies_under(const al_layers *layers, int e, int top)
{
    for (int steps = 0; e >= 0 && steps <= layers->count; steps++) {
        if (e == top) return TRUE;
        e = layers->nodes[e].parent;
    }
    return FALSE;
}

/* Adds the brushes and point entities of group GROUP (a row) and of everything under it. */
static void add_members(al_doc *doc, const al_layers *layers, gint64 group, GArray *brushes,
                        GArray *entities, GHashTable *seen)
{
    int top = al_layers_find(layers, group);
    if (top < 0 || g_hash_table_contains(seen, &layers->rows[top].id)) return;
    g_hash_table_add(seen, &layers->rows[top].id);
    for (int e = 0; e < layers->count; e++) {
        if (!lies_under(layers, e, top)) continue;
        int64_t *ids = NULL;
        int count = 0;
        if (al_doc_list_brushes(doc, layers->rows[e].id, &ids, &count) == AL_OK)
            g_array_append_vals(brushes, ids, (guint) count);
        free(ids);
        if (count == 0 && layers->nodes[e].kind == AL_LAYER_NODE_PLAIN)
            g_array_append_val(entities, layers->rows[e].id);
    }
}

/* The outermost groups (below the entered one) of the selected brushes and entities. */
static GArray *selected_groups(AlliumWindow *self, al_doc *doc, const al_layers *layers)
{
    GArray *groups = g_array_new(FALSE, FALSE, sizeof(gint64));
    guint count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        gint64 g = al_layers_outer_group(layers, al_doc_brush_owner(doc, rows[i]), true,
                                         self->entered_group);
        if (g) g_array_append_val(groups, g);
    }
    rows = allium_selection_get_entities(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        gint64 g = al_layers_outer_group(layers, rows[i], false, self->entered_group);
        if (g) g_array_append_val(groups, g);
    }
    return groups;
}

static void group_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    g_autoptr(GArray) loose = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) members = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (!allium_window_selection_members(self, loose, members) || loose->len + members->len == 0)
        return;
    GError *error = NULL;
    gint64 group = 0;
    if (!allium_document_group(self->document, (const gint64 *) (gpointer) loose->data, loose->len,
                               (const gint64 *) (gpointer) members->data, members->len, _("Group"),
                               &group, &error)) {
        allium_window_report_error(self, error);
        g_clear_error(&error);
        return;
    }
    gtk_label_set_text(self->pointer_label, _("Grouped: a click on a member selects the group, "
                                              "a double click enters it"));
}

static void ungroup_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    al_doc *doc = allium_document_get_doc(self->document);
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) != AL_OK) return;
    g_autoptr(GArray) groups = selected_groups(self, doc, &layers);
    al_layers_free(&layers);
    g_autoptr(GHashTable) done = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < groups->len; i++) {
        gint64 *g = &g_array_index(groups, gint64, i);
        if (g_hash_table_contains(done, g)) continue;
        g_hash_table_add(done, g);
        GError *error = NULL;
        if (!allium_document_ungroup(self->document, *g, &error)) {
            allium_window_report_error(self, error);
            g_clear_error(&error);
            return;
        }
    }
}

static void enter_group_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    al_doc *doc = allium_document_get_doc(self->document);
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) != AL_OK) return;
    g_autoptr(GArray) groups = selected_groups(self, doc, &layers);
    al_layers_free(&layers);
    if (groups->len == 0) return;
    self->entered_group = g_array_index(groups, gint64, 0);
    allium_selection_clear(self->selection);
    gtk_label_set_text(self->pointer_label,
                       _("Inside the group: members are picked one by one (Escape leaves)"));
}

/* Move to Layer (parameter: the layer's entity row, 0 the default layer). */
static void move_to_layer_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (!allium_window_selection_members(self, brushes, entities) ||
        brushes->len + entities->len == 0)
        return;
    GError *error = NULL;
    if (!allium_document_move_to_layer(self->document, (const gint64 *) (gpointer) brushes->data,
                                       brushes->len, (const gint64 *) (gpointer) entities->data,
                                       entities->len, g_variant_get_int64(parameter), &error)) {
        allium_window_report_error(self, error);
        g_clear_error(&error);
    }
}

static void leave_group_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (allium_window_leave_group(self)) allium_selection_clear(self->selection);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

gboolean allium_window_selection_members(AlliumWindow *self, GArray *brushes, GArray *entities)
{
    if (!self->document) return FALSE;
    guint brush_count, entity_count, face_count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &brush_count);
    const gint64 *ents = allium_selection_get_entities(self->selection, &entity_count);
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &face_count);
    g_autoptr(GArray) selected = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_array_append_vals(selected, rows, brush_count);
    for (guint i = 0; i < face_count; i++) g_array_append_val(selected, faces[i].brush);
    al_doc *doc = allium_document_get_doc(self->document);
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) != AL_OK) return FALSE;
    /* A selected group stands for itself (its entity), not for its brushes. */
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < selected->len; i++) {
        gint64 b = g_array_index(selected, gint64, i);
        gint64 g =
            al_layers_outer_group(&layers, al_doc_brush_owner(doc, b), true, self->entered_group);
        gint64 key = g ? g : -b; /* brushes and entities apart in one set */
        if (g_hash_table_contains(seen, &key)) continue;
        g_hash_table_add(seen, g_memdup2(&key, sizeof key));
        if (g)
            g_array_append_val(entities, g);
        else
            g_array_append_val(brushes, b);
    }
    for (guint i = 0; i < entity_count; i++) {
        gint64 g = al_layers_outer_group(&layers, ents[i], false, self->entered_group);
        gint64 member = g ? g : ents[i];
        if (!g_hash_table_contains(seen, &member)) {
            g_hash_table_add(seen, g_memdup2(&member, sizeof member));
            g_array_append_val(entities, member);
        }
    }
    al_layers_free(&layers);
    return TRUE;
}

void allium_window_class_add_group_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.group", NULL, group_action_cb);
    gtk_widget_class_install_action(widget_class, "win.ungroup", NULL, ungroup_action_cb);
    gtk_widget_class_install_action(widget_class, "win.enter-group", NULL, enter_group_action_cb);
    gtk_widget_class_install_action(widget_class, "win.leave-group", NULL, leave_group_action_cb);
    gtk_widget_class_install_action(widget_class, "win.move-to-layer", "x",
                                    move_to_layer_action_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "win.group",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.ungroup", NULL);
}

void allium_window_update_group_actions(AlliumWindow *self, gboolean writable)
{
    guint brushes = 0, entities = 0;
    allium_selection_get_brushes(self->selection, &brushes);
    allium_selection_get_entities(self->selection, &entities);
    gboolean any = writable && brushes + entities > 0;
    allium_window_enable_action(self, "win.group", any);
    allium_window_enable_action(self, "win.ungroup", any);
    allium_window_enable_action(self, "win.enter-group", any);
    allium_window_enable_action(self, "win.move-to-layer", any);
    allium_window_enable_action(self, "win.leave-group", self->entered_group != 0);
}

void allium_window_select_whole_groups(AlliumWindow *self)
{
    if (!self->document) return;
    al_doc *doc = allium_document_get_doc(self->document);
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) != AL_OK) return;
    /* The entered group may be gone (undone, ungrouped): then the top again. */
    if (self->entered_group && al_layers_find(&layers, self->entered_group) < 0)
        self->entered_group = 0;
    g_autoptr(GArray) groups = selected_groups(self, doc, &layers);
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < groups->len; i++)
        add_members(doc, &layers, g_array_index(groups, gint64, i), brushes, entities, seen);
    al_layers_free(&layers);
    /* Only what is missing, so that the "changed" this causes adds nothing more. */
    guint count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
    g_autoptr(GHashTable) have = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < count; i++) g_hash_table_add(have, (gpointer) &rows[i]);
    gboolean missing = FALSE;
    for (guint i = 0; i < brushes->len && !missing; i++)
        missing = !g_hash_table_contains(have, &g_array_index(brushes, gint64, i)) &&
                  allium_selection_is_pickable(self->selection, g_array_index(brushes, gint64, i));
    for (guint i = 0; i < entities->len && !missing; i++)
        missing = !allium_selection_has_entity(self->selection, g_array_index(entities, gint64, i));
    if (!missing) return;
    g_autoptr(GArray) all_brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) all_entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_array_append_vals(all_brushes, rows, count);
    for (guint i = 0; i < brushes->len; i++) {
        gint64 b = g_array_index(brushes, gint64, i);
        if (!g_hash_table_contains(have, &b) && allium_selection_is_pickable(self->selection, b))
            g_array_append_val(all_brushes, b);
    }
    const gint64 *ents = allium_selection_get_entities(self->selection, &count);
    g_array_append_vals(all_entities, ents, count);
    for (guint i = 0; i < entities->len; i++) {
        gint64 e = g_array_index(entities, gint64, i);
        if (!allium_selection_has_entity(self->selection, e)) g_array_append_val(all_entities, e);
    }
    allium_selection_set_items(self->selection, (const gint64 *) (gpointer) all_brushes->data,
                               all_brushes->len, (const gint64 *) (gpointer) all_entities->data,
                               all_entities->len);
}

gboolean allium_window_leave_group(AlliumWindow *self)
{
    if (!self->entered_group || !self->document) return FALSE;
    al_layers layers;
    gint64 parent = 0;
    if (al_layers_read(allium_document_get_doc(self->document), &layers, NULL) == AL_OK) {
        int e = al_layers_find(&layers, self->entered_group);
        int p = e >= 0 ? layers.nodes[e].parent : -1;
        if (p > 0 && layers.nodes[p].kind == AL_LAYER_NODE_GROUP) parent = layers.rows[p].id;
        al_layers_free(&layers);
    }
    self->entered_group = parent;
    allium_window_update_actions(self);
    gtk_label_set_text(self->pointer_label, parent ? _("Inside the outer group (Escape leaves)")
                                                   : _("Out of the group"));
    return TRUE;
}
