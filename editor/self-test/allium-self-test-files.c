/* The GUI self-test's file-chooser steps: File › Open and File › New, through the dialogs
 * the menu items show. Where no desktop portal is used (as under Xvfb),
 * GtkFileChooserNative shows a GtkFileChooserDialog; the test finds it among the
 * toplevels, picks the file in it and accepts it, as a designer would, and then looks at
 * what the application made of the answer. */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

/* Shows the chooser of app.ACTION (titled TITLE) and keeps it in t->dialog; FALSE if none
 * came. */
static gboolean show_chooser(SelfTest *t, const char *action, const char *title,
                             GtkFileChooserAction kind)
{
    GList *before = gtk_window_list_toplevels();
    g_action_group_activate_action(G_ACTION_GROUP(t->app), action, NULL);
    t->dialog = take_new_dialog(before);
    gboolean chooser = t->dialog && GTK_IS_FILE_CHOOSER(t->dialog);
    check(t, chooser, "app.%s shows a file chooser", action);
    if (!chooser) return FALSE;
    check(t, g_strcmp0(gtk_window_get_title(t->dialog), title) == 0, "titled \"%s\" (\"%s\")",
          title, gtk_window_get_title(t->dialog));
    check(t, gtk_file_chooser_get_action(GTK_FILE_CHOOSER(t->dialog)) == kind,
          "for %s a file", kind == GTK_FILE_CHOOSER_ACTION_OPEN ? "opening" : "saving");
    return TRUE;
}

static GtkWidget *find_chooser_widget(GtkWidget *widget)
{
    if (GTK_IS_FILE_CHOOSER_WIDGET(widget)) return widget;
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c)) {
        GtkWidget *found = find_chooser_widget(c);
        if (found) return found;
    }
    return NULL;
}

/* Types PATH into the chooser's location entry, as Ctrl+L and typing would. */
static gboolean type_location(SelfTest *t, const char *path)
{
    GtkWidget *widget = find_chooser_widget(GTK_WIDGET(t->dialog));
    check(t, widget != NULL, "the chooser has its file chooser widget");
    if (!widget) return FALSE;
    g_signal_emit_by_name(widget, "location-popup", path);
    return TRUE;
}

/* Once the chooser in t->dialog is shown and has PATH chosen (it loads the folder before
 * it selects a file in it), accepts. TRUE when it has. No screenshot is taken of GTK's
 * own chooser, which fills its path bar asynchronously: in a few runs on loaded machines
 * GTK warned in this step of buttons snapshotted without an allocation. */
static gboolean accept_when_chosen(SelfTest *t, const char *path)
{
    if (!gtk_widget_get_mapped(GTK_WIDGET(t->dialog))) return FALSE;
    g_autoptr(GFile) chosen = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(t->dialog));
    g_autofree char *chosen_path = chosen ? g_file_get_path(chosen) : NULL;
    if (g_strcmp0(chosen_path, path) != 0 || !settle(t)) return FALSE;
    gtk_dialog_response(GTK_DIALOG(t->dialog), GTK_RESPONSE_ACCEPT);
    g_clear_object(&t->dialog);
    return TRUE;
}

static int brushes_of(AlliumWindow *window)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(window));
    return snap ? snap->input.input.brush_count : -1;
}

static void remove_document(const char *path)
{
    static const char *sides[] = {"", "-wal", "-shm"};
    for (guint i = 0; i < G_N_ELEMENTS(sides); i++) {
        g_autofree char *side = g_strconcat(path, sides[i], NULL);
        g_unlink(side);
    }
}

/* File › Open: the map the drop step imported (its window is closed by now) opens again
 * in a window of its own. */
gboolean step_open_dialog(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "exported.allium");
    if (!t->step_begun) {
        check(t, allium_application_find_window(t->app, path) == NULL, "%s is not open", path);
        if (!show_chooser(t, "open", _("Open Map"), GTK_FILE_CHOOSER_ACTION_OPEN)) return TRUE;
        return !type_location(t, path);
    }
    if (t->dialog) {
        accept_when_chosen(t, path);
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, path);
    if (!window || !compiled_current(window)) return FALSE;
    check(t, window != t->window && window != t->second, "exported.allium opened in a window of its own");
    check(t, brushes_of(window) == brushes_of(t->window), "with the sample's %d brushes (%d)",
          brushes_of(t->window), brushes_of(window));
    gtk_window_destroy(GTK_WINDOW(window));
    return TRUE;
}

/* File › New: a name typed without the suffix makes "NAME.allium", empty, in a window of
 * its own; an existing map is never replaced. */
gboolean step_new_dialog(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "drawn-anew.allium");
    g_autofree char *typed = dir_file(t, "drawn-anew");
    if (!t->step_begun) {
        remove_document(path);
        if (!show_chooser(t, "new", _("New Map"), GTK_FILE_CHOOSER_ACTION_SAVE)) return TRUE;
        return !type_location(t, typed);
    }
    if (t->dialog) {
        accept_when_chosen(t, typed);
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, path);
    if (!window || !compiled_current(window)) return FALSE;
    check(t, g_file_test(path, G_FILE_TEST_IS_REGULAR), "the chooser made %s", path);
    check(t, brushes_of(window) == 0, "it opened empty in a window of its own (%d brushes)",
          brushes_of(window));
    gtk_window_destroy(GTK_WINDOW(window));

    /* Asked to make a map where one is, it says so and leaves that map alone. */
    int brushes = brushes_of(t->window);
    GList *before = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(t->app)));
    check(t, !allium_application_new_map(t->app, t->sample_path),
          "New on the sample's own file is refused");
    const char *text = NULL;
    gboolean said = FALSE;
    for (GList *l = gtk_application_get_windows(GTK_APPLICATION(t->app)); l; l = l->next) {
        if (!ALLIUM_IS_WINDOW(l->data)) continue;
        GtkMessageType type;
        AlliumWindow *w = l->data;
        if (allium_window_get_banner(w, &type, &text) && type == GTK_MESSAGE_ERROR &&
            strstr(text, "sample.allium")) {
            said = TRUE;
            break;
        }
    }
    check(t, said, "an error names the file (\"%s\")", text ? text : "");
    /* A window made only to show the error is closed again; the others lose the banner. */
    GList *now = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(t->app)));
    for (GList *l = now; l; l = l->next) {
        if (!ALLIUM_IS_WINDOW(l->data)) continue;
        if (!g_list_find(before, l->data)) gtk_window_destroy(GTK_WINDOW(l->data));
        else allium_window_hide_banner(ALLIUM_WINDOW(l->data));
    }
    g_list_free(before);
    g_list_free(now);
    check(t, brushes_of(t->window) == brushes && allium_application_find_window(t->app, t->sample_path) == t->window,
          "the sample is still open with its %d brushes", brushes);
    return TRUE;
}
