/* AlliumWindow's hiding (View menu): Hide (Ctrl+H) takes the selected brushes out of every
 * view of the window, Isolate (Ctrl+Alt+I) hides every brush but the selected ones, Show
 * All (Ctrl+Alt+H) brings them all back. Hidden brushes are neither drawn nor picked nor
 * taken by a rectangle or Select All, but they are still part of the map and compiled
 * (they collide, block light and seal the map). Which brushes are hidden is view state,
 * not an edit: it is kept in the session file by the map's path (allium-session.h), so it
 * is there again when the map is next opened, and it is not in the undo history. Point
 * entities are not hidden.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-session.h"

#include <glib/gi18n.h>

/* --- static helpers ------------------------------------------------------------------ */

/* Writes the hidden brushes to the session file and says how many there are. */
static void hidden_changed(AlliumWindow *self)
{
    guint count = 0;
    g_autofree gint64 *rows = allium_selection_dup_hidden(self->selection, &count);
    GError *error = NULL;
    if (self->document &&
        !allium_session_set_hidden(allium_document_get_path(self->document), rows, count, &error)) {
        /* Only the view state is at stake: said once, on the console. */
        g_warning("%s", error->message);
        g_clear_error(&error);
    }
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

static void hide_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    g_autoptr(GArray) rows = selected_brush_rows(self);
    if (rows->len == 0) return;
    allium_selection_hide_brushes(self->selection, (const gint64 *) (gpointer) rows->data,
                                  rows->len);
    hidden_changed(self);
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
    allium_selection_hide_brushes(self->selection, (const gint64 *) (gpointer) others->data,
                                  others->len);
    hidden_changed(self);
}

static void show_all_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (allium_selection_get_hidden_count(self->selection) == 0) return;
    allium_selection_show_all(self->selection);
    hidden_changed(self);
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

void allium_window_restore_hidden(AlliumWindow *self)
{
    guint count = 0;
    g_autofree gint64 *rows =
        allium_session_get_hidden(allium_document_get_path(self->document), &count);
    if (count) allium_selection_hide_brushes(self->selection, rows, count);
}
