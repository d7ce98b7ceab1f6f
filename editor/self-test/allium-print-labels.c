/* allium --print-labels (allium-print-labels.h).
 *
 * The translation test (tests/editor/gui-translation-test.sh) runs the editor with
 * LANGUAGE=de and looks for German texts in what this prints. It prints what the widgets
 * show, not what gettext returns: the menu bar's items, the side panel's page titles and
 * the views' projection names and messages, as GtkBuilder translated the .ui templates and
 * as the C code set them. So the test fails when the translations are not installed, not
 * found, or not loaded, and not only when a message lacks its translation.
 *
 * The window has no map (nothing to compile); the labels are read once it is mapped, so
 * that a label set when a widget is realized is read too. It takes well under a second.
 * The window's banner shows what the map reader says about a map with a broken brush and
 * a syntax error, as it would for a file the designer opened: the compiler's and the
 * document layer's messages are translated too (al_diag_set_translator in main.c).
 */
#include "allium-config.h"

#include "allium-print-labels.h"

#include "allium-document.h"
#include "allium-window.h"
#include "mapfile/map.h"

#define SHOW_TIMEOUT_S 20

typedef struct {
    AlliumApplication *app; /* owned */
    GtkWidget *window;      /* owned */
    gint64 started_us;
    gboolean was_mapped; /* at the previous poll: the frame after mapping has passed */
} PrintLabels;

/* --- static helpers ------------------------------------------------------------------ */

/* The text of every label under WIDGET (itself included), depth first, a line each; a
 * label of several lines is printed on one. */
static void print_labels_under(GtkWidget *widget)
{
    if (GTK_IS_LABEL(widget)) {
        const char *text = gtk_label_get_text(GTK_LABEL(widget));
        if (text && *text) {
            g_autofree char *line = g_strdup(text);
            g_print("%s\n", g_strdelimit(line, "\n", ' '));
        }
    }
    for (GtkWidget *child = gtk_widget_get_first_child(widget); child;
         child = gtk_widget_get_next_sibling(child))
        print_labels_under(child);
}

/* --- callbacks ----------------------------------------------------------------------- */

static gboolean poll_cb(gpointer data)
{
    PrintLabels *p = data;
    gboolean shown = gtk_widget_get_mapped(p->window) && p->was_mapped;
    p->was_mapped = gtk_widget_get_mapped(p->window);
    if (!shown && g_get_monotonic_time() - p->started_us < SHOW_TIMEOUT_S * G_USEC_PER_SEC)
        return G_SOURCE_CONTINUE;
    if (shown)
        print_labels_under(p->window);
    else
        g_printerr("print-labels: the window was not shown within %d s\n", SHOW_TIMEOUT_S);
    allium_application_set_exit_status(p->app, shown ? 0 : 1);
    g_action_group_activate_action(G_ACTION_GROUP(p->app), "quit", NULL);
    g_object_unref(p->window);
    g_object_unref(p->app);
    g_free(p);
    return G_SOURCE_REMOVE;
}

/* --- public API ---------------------------------------------------------------------- */

void allium_print_labels_start(AlliumApplication *app)
{
    g_return_if_fail(ALLIUM_IS_APPLICATION(app));
    PrintLabels *p = g_new0(PrintLabels, 1);
    p->app = g_object_ref(app);
    p->window = g_object_ref(GTK_WIDGET(allium_window_new(GTK_APPLICATION(app))));
    p->started_us = g_get_monotonic_time();
    static const char broken[] = "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) oops\n}\n}\n"
                                 "oops\n";
    al_map *map = NULL;
    al_diag_list diags = {0};
    al_status st = al_map_read_buffer(broken, sizeof broken - 1, &map, &diags);
    al_map_destroy(map);
    GError *error = NULL;
    allium_set_status_error(&error, st, &diags, "broken.map");
    allium_window_show_banner(ALLIUM_WINDOW(p->window), GTK_MESSAGE_ERROR, error->message);
    g_error_free(error);
    al_diag_list_clear(&diags);
    gtk_window_present(GTK_WINDOW(p->window));
    g_timeout_add(50, poll_cb, p);
}
