/* AlliumWindow: one map in a window.
 *
 * Four views of the map (3D, top, front, side) in resizable panes, any of which can be
 * maximized; a banner for what went right or wrong with files; a status bar with the
 * compile's result, what is under the pointer, the selection and the grid size. A window
 * without a document (the editor was asked to open a file that failed) shows why in its
 * banner and takes the next map opened from it.
 *
 * Actions (win.*, see allium-window-actions.c): export, undo, redo, close, select-none,
 * frame, maximize-view, grid-smaller, grid-larger, layout ("grid", "single-3d",
 * "single-top", "single-front", "single-side") and the view toggles show-portals,
 * show-leak, show-pvs, show-cluster, show-entities, show-tools, wireframe, pvs-culling.
 */
#pragma once

#include <gtk/gtk.h>

#include "allium-document.h"
#include "allium-view.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_WINDOW (allium_window_get_type())
G_DECLARE_FINAL_TYPE(AlliumWindow, allium_window, ALLIUM, WINDOW, GtkApplicationWindow)

#define ALLIUM_WINDOW_VIEW_COUNT 4

AlliumWindow *allium_window_new(GtkApplication *application);

/* The window's document, or NULL. */
AlliumDocument *allium_window_get_document(AlliumWindow *self);

/* Shows DOCUMENT in the window (once: a window keeps its map until it closes). */
void allium_window_set_document(AlliumWindow *self, AlliumDocument *document);

/* Shows TEXT in the banner above the views: GTK_MESSAGE_INFO, _WARNING or _ERROR. */
void allium_window_show_banner(AlliumWindow *self, GtkMessageType type, const char *text);
void allium_window_hide_banner(AlliumWindow *self);
/* Whether the banner is shown, with its kind and text (borrowed). */
gboolean allium_window_get_banner(AlliumWindow *self, GtkMessageType *type, const char **text);

AlliumView *allium_window_get_view(AlliumWindow *self, int slot);

/* Where the views' BSP-splits overlay looks: the block holding POINT. */
void allium_window_set_split_point(AlliumWindow *self, const double point[3]);
/* The view the pointer was last in (keyboard commands act on it). */
AlliumView *allium_window_get_active_view(AlliumWindow *self);

/* The window's title as shown ("sample.allium", "sample.allium (read-only)"). */
const char *allium_window_get_title_text(AlliumWindow *self);

G_END_DECLS
