/* AlliumPrefabBrowser: the prefabs of the prefab folder, in the window's side panel.
 *
 * Every ".map" file of the folder (the "prefab-folder" preference) in name order, each with
 * its 3D thumbnail (the PNG beside it, drawn again on a worker thread when it is missing
 * or older than the prefab), its name and what it holds. A file that is no map is left out,
 * and the message under the search field names it with the line and column of the fault.
 * The search field keeps the prefabs whose name holds its text. Activating a prefab
 * (double click, Enter) inserts it (win.insert-prefab) where the pointer is over a 2D view,
 * else at the middle of the focused view; the prefab last chosen is what Insert Prefab at
 * Pointer inserts.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_PREFAB_BROWSER (allium_prefab_browser_get_type())
G_DECLARE_FINAL_TYPE(AlliumPrefabBrowser, allium_prefab_browser, ALLIUM, PREFAB_BROWSER, GtkWidget)

GtkWidget *allium_prefab_browser_new(void);

/* Lists the folder again (after a save, or when the preference changes). */
void allium_prefab_browser_reload(AlliumPrefabBrowser *self);

/* The path of the prefab chosen last (selected in the list), or NULL. */
const char *allium_prefab_browser_get_chosen(AlliumPrefabBrowser *self);

/* Test hooks: types TEXT into the search field; the names shown now, in order (a new
 * array of borrowed names); activates prefab NAME as its row does (FALSE: no such prefab
 * shown, or the action is disabled); the message about left-out files ("" if none); how
 * many thumbnails are still being drawn, and how many of the shown rows have one. */
void allium_prefab_browser_set_search(AlliumPrefabBrowser *self, const char *text);
GPtrArray *allium_prefab_browser_dup_shown(AlliumPrefabBrowser *self);
gboolean allium_prefab_browser_activate(AlliumPrefabBrowser *self, const char *name);
const char *allium_prefab_browser_get_message(AlliumPrefabBrowser *self);
guint allium_prefab_browser_get_pending(AlliumPrefabBrowser *self);
guint allium_prefab_browser_count_thumbnails(AlliumPrefabBrowser *self);

/* The drag source of prefab NAME's row (borrowed), or NULL; for tests. */
GtkDragSource *allium_prefab_browser_get_drag_source(AlliumPrefabBrowser *self, const char *name);

/* What a row dragged out of the browser carries: the prefab's path (a boxed string, so
 * that a view tells it from the other browsers' names). */
typedef char AlliumPrefabPath;
#define ALLIUM_TYPE_PREFAB_PATH (allium_prefab_path_get_type())
GType allium_prefab_path_get_type(void);

G_END_DECLS
