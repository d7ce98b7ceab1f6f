/* AlliumWindow's hiding (View menu): Hide (Ctrl+H) hides the selected brushes, Isolate
 * (Ctrl+Alt+I) hides every brush but the selected ones, Show All (Ctrl+Alt+H) shows every
 * brush and group again. Hidden brushes are neither drawn nor picked nor taken by a
 * rectangle or Select All, but they are still part of the map and compiled (they collide,
 * block light and seal the map) and exported, as in TrenchBroom. Which brushes are hidden
 * is part of the document (al_doc_set_state: each change is one undoable step, kept with
 * the map), as are the hidden and locked layers (their TrenchBroom keys) and groups.
 *
 * allium_window_refresh_marks hands the selection what the document says after every
 * change: a brush is hidden when it is marked so, or its group (or one holding that) is,
 * or its layer is; locked likewise (drawn, but out of reach of every pick). Point entities
 * are not hidden.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "layers/layer-edits.h"

#include <glib/gi18n.h>

/* --- static helpers ------------------------------------------------------------------ */

/* Says how many brushes are hidden. */
static void hidden_changed(AlliumWindow *self)
{
    guint count = allium_selection_get_hidden_count(self->selection);
    g_autofree char *text =
        count ? g_strdup_printf(
                    g_dngettext(GETTEXT_PACKAGE, "%u brush hidden (View → Show All brings it back)",
                                "%u brushes hidden (View → Show All brings them back)", count),
                    count)
              : g_strdup(_("Every brush is shown"));
    gtk_label_set_text(self->pointer_label, text);
    allium_window_update_actions(self);
}

/* The brushes of the selection: the selected brushes and those of the selected faces. */
static GArray *selected_brush_rows(AlliumWindow *self)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(gint64));
    guint count;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &count);
    g_array_append_vals(rows, brushes, count);
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &count);
    for (guint i = 0; i < count; i++) g_array_append_val(rows, faces[i].brush);
    return rows;
}

/* Sets the hidden mark of ROWS to HIDE as one step named LABEL; says why not if it fails. */
static void mark_hidden(AlliumWindow *self, GArray *rows, const gint64 *entities,
                        guint entity_count, gboolean hide, const char *label)
{
    GError *error = NULL;
    if (!allium_document_set_state(self->document, (const gint64 *) (gpointer) rows->data,
                                   rows->len, entities, entity_count, AL_DOC_STATE_HIDDEN,
                                   hide ? AL_DOC_STATE_HIDDEN : 0, label, &error)) {
        allium_window_report_error(self, error);
        g_clear_error(&error);
        return;
    }
    hidden_changed(self);
}

static void hide_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    g_autoptr(GArray) rows = selected_brush_rows(self);
    if (rows->len == 0 || !self->document) return;
    mark_hidden(self, rows, NULL, 0, TRUE, _("Hide"));
}

static void isolate_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    g_autoptr(GArray) keep = selected_brush_rows(self);
    if (!snap || !snap->input.brush_ids || keep->len == 0) return;
    g_autoptr(GHashTable) kept = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < keep->len; i++) g_hash_table_add(kept, &g_array_index(keep, gint64, i));
    g_autoptr(GArray) others = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (int b = 0; b < snap->input.input.brush_count; b++)
        if (!g_hash_table_contains(kept, &snap->input.brush_ids[b]))
            g_array_append_val(others, snap->input.brush_ids[b]);
    mark_hidden(self, others, NULL, 0, TRUE, _("Isolate"));
}

static void show_all_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    al_doc *doc = allium_document_get_doc(self->document);
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int count = 0;
    al_doc_entity_row *rows = NULL;
    int row_count = 0;
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (al_doc_brush_states(doc, &ids, &states, &count) == AL_OK)
        for (int i = 0; i < count; i++)
            if (states[i] & AL_DOC_STATE_HIDDEN) g_array_append_val(brushes, ids[i]);
    if (al_doc_list_entities(doc, &rows, &row_count) == AL_OK)
        for (int i = 0; i < row_count; i++)
            if (rows[i].state & AL_DOC_STATE_HIDDEN) g_array_append_val(entities, rows[i].id);
    free(ids);
    free(states);
    al_doc_entity_rows_free(rows, row_count);
    if (brushes->len + entities->len == 0) return;
    mark_hidden(self, brushes, (const gint64 *) (gpointer) entities->data, entities->len, FALSE,
                _("Show all"));
}

/* Adds every brush of entity row ENTITY to ROWS. */
static void add_entity_brushes(al_doc *doc, int64_t entity, GArray *rows)
{
    int64_t *ids = NULL;
    int count = 0;
    if (al_doc_list_brushes(doc, entity, &ids, &count) == AL_OK)
        g_array_append_vals(rows, ids, (guint) count);
    free(ids);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_hide_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.hide", NULL, hide_action_cb);
    gtk_widget_class_install_action(widget_class, "win.isolate", NULL, isolate_action_cb);
    gtk_widget_class_install_action(widget_class, "win.show-all", NULL, show_all_action_cb);
    /* TrenchBroom's keys where they are free: Ctrl+I imports and Ctrl+Shift+H hollows
     * here, so Isolate and Show All take Ctrl+Alt. */
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, GDK_CONTROL_MASK, "win.hide",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_i, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                        "win.isolate", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                        "win.show-all", NULL);
}

void allium_window_update_hide_actions(AlliumWindow *self)
{
    guint brushes = 0, faces = 0;
    allium_selection_get_brushes(self->selection, &brushes);
    allium_selection_get_faces(self->selection, &faces);
    gboolean doc = self->document != NULL;
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.hide", doc && brushes + faces > 0);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.isolate", doc && brushes + faces > 0);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.show-all",
                                  doc && allium_selection_get_hidden_count(self->selection) > 0);
}

void allium_window_refresh_marks(AlliumWindow *self)
{
    if (!self->document) {
        allium_selection_set_marks(self->selection, NULL, 0, NULL, 0);
        return;
    }
    al_doc *doc = allium_document_get_doc(self->document);
    g_autoptr(GArray) hidden = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) locked = g_array_new(FALSE, FALSE, sizeof(gint64));
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int count = 0;
    if (al_doc_brush_states(doc, &ids, &states, &count) == AL_OK)
        for (int i = 0; i < count; i++) {
            if (states[i] & AL_DOC_STATE_HIDDEN) g_array_append_val(hidden, ids[i]);
            if (states[i] & AL_DOC_STATE_LOCKED) g_array_append_val(locked, ids[i]);
        }
    free(ids);
    free(states);
    /* Entities: by their layer, their own mark, or a group holding them. */
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) == AL_OK) {
        for (int e = 0; e < layers.count; e++) {
            gboolean hide = layers.nodes[e].hidden, lock = layers.nodes[e].locked;
            for (int at = e, steps = 0; at >= 0 && steps <= layers.count; steps++) {
                hide = hide || (layers.rows[at].state & AL_DOC_STATE_HIDDEN);
                lock = lock || (layers.rows[at].state & AL_DOC_STATE_LOCKED);
                at = layers.nodes[at].parent;
            }
            if (hide) add_entity_brushes(doc, layers.rows[e].id, hidden);
            if (lock) add_entity_brushes(doc, layers.rows[e].id, locked);
        }
        al_layers_free(&layers);
    }
    allium_selection_set_marks(self->selection, (const gint64 *) (gpointer) hidden->data,
                               hidden->len, (const gint64 *) (gpointer) locked->data, locked->len);
}
