/* AlliumApplication: the editor's GtkApplication ("org.allium.Allium").
 *
 * One window per map. Opening a .map imports it into a new document next to it (or in the
 * user's data folder when that folder is not writable) and opens that; opening a .allium
 * opens it, read-only when another program is writing it. Whatever fails is shown in a
 * window's banner.
 *
 * App actions: new, open, import, open-recent (a path), preferences, shortcuts, about,
 * quit. Command line: allium [--self-test DIR] [--benchmark-frames N] [FILE...]; without
 * a file the last map is reopened, on the first run the bundled sample.
 */
#pragma once

#include <gtk/gtk.h>

#include "allium-window.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_APPLICATION (allium_application_get_type())
G_DECLARE_FINAL_TYPE(AlliumApplication, allium_application, ALLIUM, APPLICATION, GtkApplication)

/* STARTED_US: g_get_monotonic_time() when the process started (for the benchmark). */
AlliumApplication *allium_application_new(gint64 started_us);

gint64 allium_application_get_started_us(AlliumApplication *self);

/* Opens FILE (.allium or .map). ORIGIN, the window the request came from, shows errors
 * and takes the map if it has none; NULL: a new window. */
void allium_application_open_file(AlliumApplication *self, GFile *file, AlliumWindow *origin);

/* Opens the map document at PATH as allium_application_open_file does; NOTE (or NULL) is
 * shown in the window's banner as information. */
void allium_application_open_document(AlliumApplication *self, const char *path,
                                      AlliumWindow *origin, const char *note);

/* The window showing the document at PATH, or NULL. */
AlliumWindow *allium_application_find_window(AlliumApplication *self, const char *path);

/* Creates a new, empty map at PATH (never over an existing file) and opens it in a new
 * window; a failure is shown in the active window. */
gboolean allium_application_new_map(AlliumApplication *self, const char *path);

/* Where .map files from read-only folders are imported (NULL: the user's data folder). */
void allium_application_set_import_dir(AlliumApplication *self, const char *dir);

/* The "Open Recent" menu, shared by all windows. */
GMenuModel *allium_application_get_recent_menu(AlliumApplication *self);

/* The process's exit status (the self-test's verdict); 0 unless set. */
void allium_application_set_exit_status(AlliumApplication *self, int status);
int allium_application_get_exit_status(AlliumApplication *self);

G_END_DECLS
