/* AlliumWindow's prefabs (Edit menu and the Prefabs page of the side panel): Save
 * Selection as Prefab… asks for a name and writes the selected brushes and entities as a
 * small .map (the text Copy makes) into the prefab folder; Insert Prefab at Pointer
 * (Ctrl+Shift+P, or a double click on the Prefabs page) adds the prefab chosen there with
 * the centre of its bounds under the pointer in the 2D view it is over (a prefab dragged
 * from the page onto a 2D view: where it falls), else at the middle
 * of the focused view, moved by whole grid steps, as one undoable step that selects it.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-dialog.h"
#include "allium-error-label.h"
#include "allium-preferences.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

typedef struct {
    AlliumWindow *window; /* borrowed: the dialog is the window's transient */
    GtkWindow *dialog;
    GtkEntry *name;
    GtkLabel *error;
} SaveDialog;

/* --- static helpers ------------------------------------------------------------------ */

static void set_status(AlliumWindow *self, const char *text)
{
    gtk_label_set_text(self->pointer_label, text);
}

static void save_cb(GtkWidget *button, SaveDialog *d)
{
    (void) button;
    GError *error = NULL;
    const char *name = gtk_editable_get_text(GTK_EDITABLE(d->name));
    if (allium_window_save_prefab(d->window, name, &error)) {
        gtk_window_destroy(d->dialog);
        return;
    }
    allium_error_label_set(d->error, error->message);
    g_error_free(error);
}

static void cancel_cb(GtkWidget *button, SaveDialog *d)
{
    (void) button;
    gtk_window_destroy(d->dialog);
}

static void show_save_dialog(AlliumWindow *self)
{
    SaveDialog *d = g_new0(SaveDialog, 1);
    d->window = self;
    GtkWidget *cancel, *save;
    d->dialog = allium_dialog_new(GTK_WINDOW(self), _("Save Selection as Prefab"), _("_Save"),
                                  &cancel, &save);
    g_object_set_data_full(G_OBJECT(d->dialog), "allium-dialog", d, g_free);
    gtk_window_set_resizable(d->dialog, FALSE);
    g_signal_connect(cancel, "clicked", G_CALLBACK(cancel_cb), d);
    g_signal_connect(save, "clicked", G_CALLBACK(save_cb), d);
    gtk_window_set_default_widget(d->dialog, save);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(box, 18);
    gtk_widget_set_margin_end(box, 18);
    gtk_widget_set_margin_top(box, 18);
    gtk_widget_set_margin_bottom(box, 18);
    GtkWidget *label = gtk_label_new_with_mnemonic(_("_Name"));
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_box_append(GTK_BOX(box), label);
    d->name = GTK_ENTRY(gtk_entry_new());
    gtk_entry_set_activates_default(d->name, TRUE);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(d->name));
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->name));
    g_autofree char *folder =
        allium_preferences_dup_prefab_folder(allium_preferences_get_default());
    g_autofree char *where_text = g_strdup_printf(_("Saved as NAME.map in %s"), folder);
    GtkWidget *where = gtk_label_new(where_text);
    gtk_label_set_wrap(GTK_LABEL(where), TRUE);
    gtk_label_set_xalign(GTK_LABEL(where), 0);
    gtk_widget_add_css_class(where, "dim-label");
    gtk_box_append(GTK_BOX(box), where);
    d->error = allium_error_label_new();
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->error));
    gtk_window_set_child(d->dialog, box);
    gtk_window_present(d->dialog);
}

/* --- the actions ------------------------------------------------------------------- */

static void save_prefab_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    show_save_dialog(self);
}

static void insert_prefab_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    const char *path = allium_prefab_browser_get_chosen(self->prefab_browser);
    if (!path) {
        set_status(self, _("Choose a prefab on the Prefabs page first"));
        gtk_stack_set_visible_child_name(self->sidebar_stack, "prefabs");
        return;
    }
    allium_window_insert_prefab(self, path);
}

/* A prefab file dropped on a view (parameter: its path): inserted at the pointer. */
static void insert_prefab_file_action_cb(GtkWidget *widget, const char *action_name,
                                         GVariant *parameter)
{
    (void) action_name;
    allium_window_insert_prefab(ALLIUM_WINDOW(widget), g_variant_get_string(parameter, NULL));
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

gboolean allium_window_save_prefab(AlliumWindow *self, const char *name, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), FALSE);
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    if (!self->document || nb + ne == 0) {
        g_set_error_literal(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_INVALID_ARGUMENT,
                            _("Nothing is selected"));
        return FALSE;
    }
    g_autofree char *trimmed = g_strstrip(g_strdup(name ? name : ""));
    if (!trimmed[0] || trimmed[0] == '.' || strchr(trimmed, '/') || strchr(trimmed, '\\')) {
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_INVALID_ARGUMENT,
                    _("“%s” is no prefab name: give a name without “/” that does not start "
                      "with a dot"),
                    trimmed);
        return FALSE;
    }
    g_autofree char *folder =
        allium_preferences_dup_prefab_folder(allium_preferences_get_default());
    if (g_mkdir_with_parents(folder, 0755) != 0) {
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_IO, _("Cannot create the folder “%s”: %s"),
                    folder, g_strerror(errno));
        return FALSE;
    }
    g_autofree char *file = g_strdup_printf("%s.map", trimmed);
    g_autofree char *path = g_build_filename(folder, file, NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_EXISTS,
                    _("A prefab named “%s” exists already in %s"), trimmed, folder);
        return FALSE;
    }
    if (!allium_document_save_prefab(self->document, brushes, nb, entities, ne, path, error))
        return FALSE;
    allium_prefab_browser_reload(self->prefab_browser);
    /* TRANSLATORS: the status after a save, "Saved prefab “pillar” in /home/…/prefabs" */
    g_autofree char *status = g_strdup_printf(_("Saved prefab “%s” in %s"), trimmed, folder);
    set_status(self, status);
    return TRUE;
}

gboolean allium_window_insert_prefab(AlliumWindow *self, const char *path)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), FALSE);
    if (!self->document || allium_document_get_read_only(self->document)) return FALSE;
    al_doc_paste_place place;
    allium_window_pointer_place(self, &place);
    al_doc_paste_result result;
    GError *error = NULL;
    gboolean ok = allium_document_insert_prefab(self->document, path, &place, &result, &error);
    allium_window_finish_paste(self, ok, &result, error);
    g_clear_error(&error);
    return ok;
}

void allium_window_class_add_prefab_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.save-prefab", NULL, save_prefab_action_cb);
    gtk_widget_class_install_action(widget_class, "win.insert-prefab", NULL,
                                    insert_prefab_action_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_p, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.insert-prefab", NULL);
    gtk_widget_class_install_action(widget_class, "win.insert-prefab-file", "s",
                                    insert_prefab_file_action_cb);
}

void allium_window_update_prefab_actions(AlliumWindow *self, gboolean writable)
{
    guint faces = 0;
    allium_selection_get_faces(self->selection, &faces);
    gboolean items = !allium_selection_is_empty(self->selection) && faces == 0;
    allium_window_enable_action(self, "win.save-prefab", self->document && items);
    allium_window_enable_action(self, "win.insert-prefab", writable);
    allium_window_enable_action(self, "win.insert-prefab-file", writable);
}
