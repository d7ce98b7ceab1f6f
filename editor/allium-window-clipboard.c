/* AlliumWindow's clipboard (Edit menu): Copy, Cut, Paste at the Pointer and Paste in
 * Place, with .map text on the system clipboard (text/plain) in the form TrenchBroom and
 * the Radiants copy and paste: world brushes in a worldspawn entity, a brush entity's
 * selected brushes in a copy of that entity, whole entities as they are; on paste, bare
 * brush blocks too (al_map_read_fragment).
 *
 * Ctrl+C copies the selection; Ctrl+X copies it and deletes it (the deletion is the undoable
 * step). Ctrl+V pastes with the centre of the pasted bounds under the pointer in the 2D view
 * it is over (the view's depth kept), moved by whole grid steps; with the pointer over no 2D
 * view, at the middle of the active view. Ctrl+Shift+V pastes where the text puts it. A
 * paste is one undoable step and selects what it added; text that is not map text changes
 * nothing and says why (line and column) in the banner and the status bar.
 *
 * The clipboard is read asynchronously (another program may own it); where the paste goes
 * is taken when the key is pressed, not when the text arrives.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-preferences.h"

#include <glib/gi18n.h>
#include <string.h>

typedef struct {
    AlliumWindow *window; /* owned reference */
    gboolean in_place;
    al_doc_paste_place place;
} PasteRequest;

/* --- static helpers ------------------------------------------------------------------ */

static void set_status(AlliumWindow *self, const char *text)
{
    gtk_label_set_text(self->pointer_label, text);
}

/* Puts the selection on the clipboard; TRUE when it did. */
static gboolean copy_selection(AlliumWindow *self)
{
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    if (!self->document || nb + ne == 0) return FALSE;
    GError *error = NULL;
    g_autofree char *text =
        allium_document_copy_text(self->document, brushes, nb, entities, ne, &error);
    if (!text) {
        allium_window_report_error(self, error);
        g_error_free(error);
        return FALSE;
    }
    gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(self)), text);
    g_autofree char *b = g_strdup_printf(ngettext("%u brush", "%u brushes", nb), nb);
    g_autofree char *e = g_strdup_printf(ngettext("%u entity", "%u entities", ne), ne);
    /* TRANSLATORS: "Copied 2 brushes and 1 entity as .map text" */
    g_autofree char *status = g_strdup_printf(_("Copied %s and %s as .map text"), b, e);
    set_status(self, status);
    return TRUE;
}

static void paste_read_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    PasteRequest *request = data;
    AlliumWindow *self = request->window;
    GError *error = NULL;
    g_autofree char *text = gdk_clipboard_read_text_finish(GDK_CLIPBOARD(source), result, &error);
    if (!text) {
        g_autofree char *message =
            g_strdup_printf(_("Nothing pasted: the clipboard holds no text (%s)"),
                            error ? error->message : _("empty"));
        allium_window_show_banner(self, GTK_MESSAGE_WARNING, message);
        set_status(self, message);
        g_clear_error(&error);
    } else if (self->document) {
        allium_window_paste_text(self, text, request->in_place ? NULL : &request->place);
    }
    g_object_unref(request->window);
    g_free(request);
}

static void paste(AlliumWindow *self, gboolean in_place)
{
    if (!self->document || allium_document_get_read_only(self->document)) return;
    PasteRequest *request = g_new0(PasteRequest, 1);
    request->window = g_object_ref(self);
    request->in_place = in_place;
    if (!in_place) allium_window_pointer_place(self, &request->place);
    gdk_clipboard_read_text_async(gtk_widget_get_clipboard(GTK_WIDGET(self)), NULL, paste_read_cb,
                                  request);
}

/* --- the actions ------------------------------------------------------------------- */

/* With faces selected, copy and paste are the faces' textures' (TrenchBroom's way): a face
 * is no piece of a map to paste elsewhere. */
static gboolean faces_selected(AlliumWindow *self)
{
    guint faces = 0;
    allium_selection_get_faces(self->selection, &faces);
    return faces > 0;
}

static void copy_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (faces_selected(self))
        gtk_widget_activate_action(widget, "win.copy-texture", NULL);
    else
        copy_selection(self);
}

static void cut_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!copy_selection(self)) return;
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    GError *error = NULL;
    if (allium_document_delete(self->document, brushes, nb, entities, ne, &error))
        allium_selection_clear(self->selection);
    if (error) {
        allium_window_report_error(self, error);
        g_error_free(error);
    }
    allium_window_update_actions(self);
}

static void paste_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (faces_selected(self))
        gtk_widget_activate_action(widget, "win.paste-texture", NULL);
    else
        paste(self, g_str_equal(action_name, "win.paste-in-place"));
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_pointer_place(AlliumWindow *self, al_doc_paste_place *place)
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    memset(place, 0, sizeof *place);
    place->grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    gboolean axes[3];
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = self->views[i];
        if (!view || !gtk_widget_get_mapped(GTK_WIDGET(view)) ||
            !allium_view_get_pointer_point(view, place->point, axes))
            continue;
        for (int k = 0; k < 3; k++) place->axes[k] = axes[k];
        return;
    }
    double mins[3], maxs[3];
    allium_view_get_placement(allium_window_get_active_view(self), mins, maxs);
    for (int k = 0; k < 3; k++) {
        place->point[k] = 0.5 * (mins[k] + maxs[k]);
        place->axes[k] = TRUE;
    }
}

gboolean allium_window_paste_text(AlliumWindow *self, const char *text,
                                  const al_doc_paste_place *place)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), FALSE);
    if (!self->document) return FALSE;
    al_doc_paste_result result;
    GError *error = NULL;
    gboolean ok = allium_document_paste_text(self->document, text, place, &result, &error);
    allium_window_finish_paste(self, ok, &result, error);
    g_clear_error(&error);
    return ok;
}

void allium_window_finish_paste(AlliumWindow *self, gboolean ok, al_doc_paste_result *result,
                                const GError *error)
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    if (ok) {
        allium_selection_set_items(self->selection, result->brushes, (guint) result->brush_count,
                                   result->entities, (guint) result->entity_count);
        g_autofree char *b = g_strdup_printf(
            ngettext("%d brush", "%d brushes", result->brush_count), result->brush_count);
        g_autofree char *e = g_strdup_printf(
            ngettext("%d entity", "%d entities", result->entity_count), result->entity_count);
        /* TRANSLATORS: "Pasted 2 brushes and 1 entity" */
        g_autofree char *status = g_strdup_printf(_("Pasted %s and %s"), b, e);
        set_status(self, status);
        al_doc_paste_result_free(result);
    } else if (error) {
        allium_window_report_error(self, error);
        /* The status bar keeps the first line: what and where. */
        const char *newline = strchr(error->message, '\n');
        g_autofree char *first = newline
                                     ? g_strndup(error->message, (gsize) (newline - error->message))
                                     : g_strdup(error->message);
        g_autofree char *detail = newline ? g_strdup(newline + 1) : NULL;
        if (detail && strchr(detail, '\n')) *strchr(detail, '\n') = '\0';
        g_autofree char *status =
            detail ? g_strdup_printf("%s: %s", first, detail) : g_strdup(first);
        set_status(self, status);
    }
    allium_window_update_actions(self);
}

void allium_window_class_add_clipboard_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.copy", NULL, copy_action_cb);
    gtk_widget_class_install_action(widget_class, "win.cut", NULL, cut_action_cb);
    gtk_widget_class_install_action(widget_class, "win.paste", NULL, paste_action_cb);
    gtk_widget_class_install_action(widget_class, "win.paste-in-place", NULL, paste_action_cb);
    /* Bubble-phase bindings: a text field with the focus copies and pastes its own text. */
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "win.copy",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_x, GDK_CONTROL_MASK, "win.cut", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_v, GDK_CONTROL_MASK, "win.paste",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_v, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.paste-in-place", NULL);
}

void allium_window_update_clipboard_actions(AlliumWindow *self, gboolean writable)
{
    gboolean selected = !allium_selection_is_empty(self->selection);
    guint faces = 0;
    allium_selection_get_faces(self->selection, &faces);
    gboolean items = selected && faces == 0;
    allium_window_enable_action(self, "win.copy", self->document && selected);
    allium_window_enable_action(self, "win.cut", writable && items);
    allium_window_enable_action(self, "win.paste", writable);
    allium_window_enable_action(self, "win.paste-in-place", writable);
}
