/* Inside AlliumWindow: the instance shared by allium-window.c (the window, layout,
 * banner and status bar) and allium-window-actions.c (its actions and shortcuts). The
 * self-test reads it too, to check what the window shows. */
#pragma once

#include "allium-window.h"

#include "allium-collision.h"
#include "allium-selection.h"

#include "allium-compile-panel.h"
#include "allium-layers-panel.h"
#include "allium-inspector.h"
#include "allium-entity-browser.h"
#include "allium-material-browser.h"
#include "allium-texture-browser.h"
#include "allium-prefab-browser.h"

G_BEGIN_DECLS

struct _AlliumWindow {
    GtkApplicationWindow parent_instance;

    /* template widgets */
    GtkLabel *title_label;
    GtkLabel *subtitle_label;
    GtkButton *undo_button;
    GtkButton *redo_button;
    GtkRevealer *banner_revealer;
    GtkWidget *banner;
    GtkImage *banner_icon;
    GtkLabel *banner_label;
    GtkPaned *side_paned;
    GtkWidget *sidebar;
    GtkStack *sidebar_stack;
    AlliumInspector *inspector;
    AlliumCompilePanel *compile_panel;
    AlliumLayersPanel *layers_panel;
    GtkWidget *sidebar_switcher;
    AlliumMaterialBrowser *material_browser;
    AlliumEntityBrowser *entity_browser;
    AlliumTextureBrowser *texture_browser;
    AlliumPrefabBrowser *prefab_browser;
    GtkPaned *outer_paned;
    GtkPaned *top_paned;
    GtkPaned *bottom_paned;
    AlliumView *views[ALLIUM_WINDOW_VIEW_COUNT];
    GtkImage *compile_icon;
    GtkLabel *compile_label;
    GtkLabel *light_label;
    GtkLabel *pointer_label;
    GtkLabel *selection_label;
    GtkLabel *grid_label;
    GMenu *recent_menu;  /* the section that gets the "Open Recent" submenu */
    GMenu *place_entity_menu; /* the section that gets the entity definitions' classes */
    GMenu *undo_section; /* Undo and Redo items, relabelled per step */

    /* owned references */
    AlliumDocument *document;
    AlliumSelection *selection;
    AlliumCollision *collision; /* test boxes and agents */
    char *layout;
    char *title_text;
    char *kept_boxes;     /* the test boxes as the session file has them */
    guint session_source; /* a pending write of the session file, or 0 */
    char *history_labels; /* the undo and redo labels the menu and tooltips show, or NULL */
    GHashTable *action_states; /* action name (static) -> what allium_window_enable_action
                                  last set: GINT_TO_POINTER(1 + enabled) */

    /* borrowed references */
    AlliumView *active_view;

    /* view settings (properties, so that they are stateful actions) */
    gboolean show_portals, show_leak, show_pvs, show_cluster, show_entities, show_tools,
        show_splits;
    gboolean light_radii_2d, light_radii_3d; /* every light's reach in the 2D views, the 3D */
    gboolean wireframe, pvs_culling, lighting, textures;
    gboolean textures_2d; /* the 2D views' faint textures */
    int maximized_slot; /* -1: the four views */
    AlliumTool tool;    /* the "tool" property */

    GtkMessageType banner_type;

    /* The group the designer entered (double click; allium-window-groups.c), or 0 */
    gint64 entered_group;

    /* Copy Texture's face texture (allium-window-textures.c) */
    al_doc_texture copied_texture;
    gboolean has_copied_texture;
};

/* allium-window-actions.c */
void allium_window_class_add_actions(GtkWidgetClass *widget_class);
/* allium-window-csg.c: subtract, merge, brush entity and back; enabled for the selection. */
void allium_window_class_add_csg_actions(GtkWidgetClass *widget_class);
void allium_window_update_csg_actions(AlliumWindow *self, gboolean writable);
/* allium-window-transform.c: Rotate…, Scale… and Add Shape…; enabled for the selection. */
void allium_window_class_add_transform_actions(GtkWidgetClass *widget_class);
void allium_window_update_transform_actions(AlliumWindow *self, gboolean writable);
/* allium-window-hide.c: Hide, Isolate and Show All; enabled for the selection. The
 * document's hidden and locked brushes, groups and layers handed to the selection (after
 * opening and after every change). */
void allium_window_class_add_hide_actions(GtkWidgetClass *widget_class);
void allium_window_update_hide_actions(AlliumWindow *self);
void allium_window_refresh_marks(AlliumWindow *self);
/* allium-window-groups.c: Group, Ungroup and entering a group; a selected member brings its
 * whole group into the selection; Escape with nothing selected leaves the entered group
 * (FALSE when none is entered). */
void allium_window_class_add_group_actions(GtkWidgetClass *widget_class);
void allium_window_update_group_actions(AlliumWindow *self, gboolean writable);
void allium_window_select_whole_groups(AlliumWindow *self);
gboolean allium_window_leave_group(AlliumWindow *self);
/* What the selection stands for as members of the hierarchy: the selected brushes (and
 * those of selected faces) no group holds below the entered one into BRUSHES, and the
 * outermost groups of the others and the selected entities into ENTITIES (rows, each
 * once). FALSE when there is no document or its hierarchy cannot be read. */
gboolean allium_window_selection_members(AlliumWindow *self, GArray *brushes, GArray *entities);
/* allium-window-textures.c: copy and paste a face's texture, nudge and turn the selected
 * faces' textures; enabled for the selection. */
void allium_window_class_add_texture_actions(GtkWidgetClass *widget_class);
void allium_window_update_texture_actions(AlliumWindow *self, gboolean writable);
/* allium-window-select.c: select all, invert, select by material or class. */
void allium_window_class_add_select_actions(GtkWidgetClass *widget_class);
/* allium-window-clipboard.c: copy, cut and paste as .map text; enabled for the selection. */
void allium_window_class_add_clipboard_actions(GtkWidgetClass *widget_class);
void allium_window_update_clipboard_actions(AlliumWindow *self, gboolean writable);
/* Pastes .map TEXT as the clipboard's text arriving does (PLACE NULL: in place): one
 * undoable step that selects what it added, or nothing changed and the reason in the banner
 * and the status bar. */
gboolean allium_window_paste_text(AlliumWindow *self, const char *text,
                                  const al_doc_paste_place *place);
/* What a paste (or a prefab's insert) did, told: with OK the added items selected and
 * counted in the status bar, RESULT freed; else ERROR in the banner and the status bar. */
void allium_window_finish_paste(AlliumWindow *self, gboolean ok, al_doc_paste_result *result,
                                const GError *error);
/* Where Paste at the Pointer (and a prefab's insert) puts the centre of what it adds: the
 * pointer's point in the 2D view it is over, else the middle of the active view's
 * placement box. */
void allium_window_pointer_place(AlliumWindow *self, al_doc_paste_place *place);
/* allium-window-prefabs.c: Save Selection as Prefab… and Insert Prefab at Pointer. */
void allium_window_class_add_prefab_actions(GtkWidgetClass *widget_class);
void allium_window_update_prefab_actions(AlliumWindow *self, gboolean writable);
/* Saves the selection as the prefab NAME (a file NAME.map in the prefab folder, which is
 * made when missing) and lists it on the Prefabs page; FALSE with ERROR when NAME is no
 * file name, is taken, or the file cannot be written. */
gboolean allium_window_save_prefab(AlliumWindow *self, const char *name, GError **error);
/* Inserts the prefab at PATH where allium_window_pointer_place says, as one undoable step
 * that selects what it added; FALSE with the reason (file, line) in the banner. */
gboolean allium_window_insert_prefab(AlliumWindow *self, const char *path);
/* Enables and relabels undo, redo and export for the document's state. */
void allium_window_update_actions(AlliumWindow *self);
/* gtk_widget_action_set_enabled for the window's action NAME (a string that lives as long
 * as the program), only when ENABLED is not what it set last: the actions are set again at
 * every snapshot the engine delivers (every frame of a drag), and GTK looks each one up and
 * tells its watchers even when nothing changes. */
void allium_window_enable_action(AlliumWindow *self, const char *name, gboolean enabled);

/* allium-window.c */
/* Maximizes the view in SLOT (-1: back to the four views). */
void allium_window_maximize_slot(AlliumWindow *self, int slot);
void allium_window_report_error(AlliumWindow *self, const GError *error);

G_END_DECLS
