/* AlliumWindow's actions and their shortcuts (see allium-window.h for the list).
 *
 * Installed on the class with gtk_widget_class_install_action and
 * gtk_widget_class_install_property_action, shortcuts added in class_init, so menus,
 * buttons and keys all go through one action. The view toggles and the layout are
 * properties of the window (allium-window.c), which makes them stateful actions that menus
 * show as check and radio items.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-box-size-dialog.h"
#include "allium-hulls-dialog.h"

#include "allium-map-files.h"
#include "allium-playtest.h"
#include "allium-preferences.h"

#include <glib/gi18n.h>
#include <string.h>

/* --- static helpers ------------------------------------------------------------------ */

static void set_history_item(AlliumWindow *self, gboolean redo, const char *label)
{
    g_autofree char *text = NULL;
    if (label) text = g_strdup_printf(redo ? _("_Redo %s") : _("_Undo %s"), label);
    GMenuItem *item = g_menu_item_new(text ? text : (redo ? _("_Redo") : _("_Undo")),
                                      redo ? "win.redo" : "win.undo");
    g_menu_item_set_attribute(item, "accel", "s", redo ? "<Control><Shift>z" : "<Control>z");
    g_menu_append_item(self->undo_section, item);
    g_object_unref(item);

    g_autofree char *tip = NULL;
    if (label)
        tip = g_strdup_printf(redo ? _("Redo “%s” (Ctrl+Shift+Z)") : _("Undo “%s” (Ctrl+Z)"), label);
    else
        tip = g_strdup(redo ? _("Nothing to redo") : _("Nothing to undo"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(redo ? self->redo_button : self->undo_button), tip);
}

static void export_response_cb(GtkNativeDialog *dialog, int response, AlliumWindow *self)
{
    if (response == GTK_RESPONSE_ACCEPT && self->document) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path && !g_str_has_suffix(path, ".map")) {
            char *with_suffix = g_strconcat(path, ".map", NULL);
            g_free(path);
            path = with_suffix;
        }
        GError *error = NULL;
        if (!path) {
            allium_window_show_banner(self, GTK_MESSAGE_ERROR,
                                      _("Maps can only be exported to local files"));
        } else if (allium_export_map(self->document, path, &error)) {
            g_autofree char *name = g_filename_display_name(path);
            g_autofree char *text = g_strdup_printf(_("Exported the map to %s"), name);
            allium_window_show_banner(self, GTK_MESSAGE_INFO, text);
        } else {
            allium_window_report_error(self, error);
            g_error_free(error);
        }
    }
    g_object_unref(dialog);
    g_object_unref(self);
}

/* A BSP export under way: the window to tell and the file it writes. */
typedef struct {
    AlliumWindow *window; /* owned reference */
    char *path;
} BspExport;

static void export_bsp_done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void) source;
    BspExport *e = user_data;
    AlliumWindow *self = e->window;
    GError *error = NULL;
    int warnings = 0;
    g_autofree char *first = NULL;
    if (allium_export_bsp_finish(result, &warnings, &first, &error)) {
        g_autofree char *name = g_filename_display_name(e->path);
        g_autofree char *text =
            warnings ? g_strdup_printf(ngettext("Exported the map to %s, with %d warning: %s",
                                                "Exported the map to %s, with %d warnings; the "
                                                "first: %s",
                                                (unsigned long) warnings),
                                       name, warnings, first ? first : "")
                     : g_strdup_printf(_("Exported the map to %s"), name);
        allium_window_show_banner(self, warnings ? GTK_MESSAGE_WARNING : GTK_MESSAGE_INFO, text);
    } else {
        allium_window_report_error(self, error);
        g_error_free(error);
    }
    g_free(e->path);
    g_object_unref(e->window);
    g_free(e);
}

static void export_bsp_response_cb(GtkNativeDialog *dialog, int response, AlliumWindow *self)
{
    if (response == GTK_RESPONSE_ACCEPT && self->document) {
        GtkFileChooser *chooser = GTK_FILE_CHOOSER(dialog);
        g_autoptr(GFile) file = gtk_file_chooser_get_file(chooser);
        char *path = file ? g_file_get_path(file) : NULL;
        if (path && !g_str_has_suffix(path, ".bsp")) {
            char *with_suffix = g_strconcat(path, ".bsp", NULL);
            g_free(path);
            path = with_suffix;
        }
        const char *choice = gtk_file_chooser_get_choice(chooser, "format");
        al_bsp_format format = AL_BSP29;
        if (choice) al_bsp_format_parse(choice, &format);
        if (!path) {
            allium_window_show_banner(self, GTK_MESSAGE_ERROR,
                                      _("Maps can only be exported to local files"));
        } else {
            g_autofree char *name = g_filename_display_name(path);
            g_autofree char *text = g_strdup_printf(_("Exporting the map to %s…"), name);
            allium_window_show_banner(self, GTK_MESSAGE_INFO, text);
            BspExport *e = g_new0(BspExport, 1);
            e->window = g_object_ref(self);
            e->path = g_strdup(path);
            allium_export_bsp_async(self->document, path, format, NULL, export_bsp_done_cb, e);
        }
        g_free(path);
    }
    g_object_unref(dialog);
    g_object_unref(self);
}

/* --- action callbacks ---------------------------------------------------------------- */

static void playtest_report(gpointer user, GtkMessageType type, const char *text)
{
    allium_window_show_banner(ALLIUM_WINDOW(user), type, text);
}

/* Run in Engine (F5): exported and started as the preferences say. */
static void run_engine_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    GError *error = NULL;
    AlliumPlaytest *plan = allium_playtest_plan(allium_preferences_get_default(),
                                                allium_document_get_path(self->document), &error);
    if (!plan) {
        allium_window_show_banner(self, GTK_MESSAGE_ERROR, error->message);
        g_error_free(error);
        return;
    }
    allium_playtest_run(self->document, plan, playtest_report, G_OBJECT(self));
}

static void export_bsp_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;

    GtkFileChooserNative *native =
        gtk_file_chooser_native_new(_("Export as a Quake BSP"), GTK_WINDOW(self),
                                    GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
    GtkFileChooser *chooser = GTK_FILE_CHOOSER(native);
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, _("Quake BSP files (*.bsp)"));
    gtk_file_filter_add_suffix(filter, "bsp");
    gtk_file_chooser_add_filter(chooser, filter);
    g_object_unref(filter);
    static const char *const ids[] = {"bsp29", "bsp2", NULL};
    const char *labels[] = {_("BSP29 (Quake)"), _("BSP2 (larger maps)"), NULL};
    gtk_file_chooser_add_choice(chooser, "format", _("Format"), (const char **) ids, labels);
    gtk_file_chooser_set_choice(chooser, "format", "bsp29");

    const char *doc_path = allium_document_get_path(self->document);
    g_autofree char *base = g_path_get_basename(doc_path);
    if (g_str_has_suffix(base, ".allium")) base[strlen(base) - strlen(".allium")] = '\0';
    g_autofree char *name = g_strconcat(base, ".bsp", NULL);
    g_autofree char *dir = g_path_get_dirname(doc_path);
    g_autoptr(GFile) folder = g_file_new_for_path(dir);
    gtk_file_chooser_set_current_folder(chooser, folder, NULL);
    gtk_file_chooser_set_current_name(chooser, name);

    g_signal_connect(native, "response", G_CALLBACK(export_bsp_response_cb), g_object_ref(self));
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
}

static void export_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;

    GtkFileChooserNative *native = gtk_file_chooser_native_new(
        _("Export as a Quake Map"), GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
        _("_Cancel"));
    GtkFileChooser *chooser = GTK_FILE_CHOOSER(native);
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, _("Quake maps (*.map)"));
    gtk_file_filter_add_suffix(filter, "map");
    gtk_file_chooser_add_filter(chooser, filter);
    g_object_unref(filter);

    const char *doc_path = allium_document_get_path(self->document);
    g_autofree char *base = g_path_get_basename(doc_path);
    if (g_str_has_suffix(base, ".allium")) base[strlen(base) - strlen(".allium")] = '\0';
    g_autofree char *name = g_strconcat(base, ".map", NULL);
    g_autofree char *dir = g_path_get_dirname(doc_path);
    g_autoptr(GFile) folder = g_file_new_for_path(dir);
    gtk_file_chooser_set_current_folder(chooser, folder, NULL);
    gtk_file_chooser_set_current_name(chooser, name);

    g_signal_connect(native, "response", G_CALLBACK(export_response_cb), g_object_ref(self));
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
}

static void history_action(AlliumWindow *self, gboolean redo)
{
    if (!self->document) return;
    GError *error = NULL;
    gboolean ok = redo ? allium_document_redo(self->document, &error)
                       : allium_document_undo(self->document, &error);
    if (!ok) {
        /* Nothing to undo is not worth a banner: the action is disabled then anyway. */
        if (!g_error_matches(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_NOTHING_TO_DO))
            allium_window_report_error(self, error);
        g_error_free(error);
    }
    allium_window_update_actions(self);
}

static void undo_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    history_action(ALLIUM_WINDOW(widget), FALSE);
}

static void redo_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    history_action(ALLIUM_WINDOW(widget), TRUE);
}

static void close_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    gtk_window_close(GTK_WINDOW(widget));
}

/* Escape: leaves the vertex tool for the select tool (the selection stays, as in
 * TrenchBroom); with any other tool, selects nothing, or with nothing selected leaves the
 * group entered. */
static void select_none_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (self->tool == ALLIUM_TOOL_VERTEX) {
        g_object_set(self, "tool", "select", NULL);
        return;
    }
    /* With nothing selected inside an entered group, Escape leaves the group. */
    if (allium_selection_is_empty(self->selection) && allium_window_leave_group(self)) return;
    allium_selection_clear(self->selection);
}

/* V: the select tool from any other tool but the vertex tool; from the select tool, the
 * vertex tool (so V, V enters it from anywhere, and V leaves it as TrenchBroom's V does). */
static void vertex_mode_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    g_object_set(self, "tool", self->tool == ALLIUM_TOOL_SELECT ? "vertex" : "select", NULL);
}

static void frame_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    allium_view_frame_selection(allium_window_get_active_view(ALLIUM_WINDOW(widget)));
}

static void maximize_view_action_cb(GtkWidget *widget, const char *action_name,
                                    GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (self->maximized_slot >= 0) {
        allium_window_maximize_slot(self, -1);
        return;
    }
    AlliumView *view = allium_window_get_active_view(self);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (self->views[i] == view) allium_window_maximize_slot(self, i);
}

static void grid_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) widget;
    (void) parameter;
    allium_preferences_step_grid(allium_preferences_get_default(),
                                 g_str_equal(action_name, "win.grid-smaller") ? -1 : 1);
}

/* The selection's rows, for an edit. */
static void selection_rows(AlliumWindow *self, const gint64 **brushes, guint *nb,
                           const gint64 **entities, guint *ne)
{
    *brushes = allium_selection_get_brushes(self->selection, nb);
    *entities = allium_selection_get_entities(self->selection, ne);
}

/* After an edit action: ERROR (taken, may be NULL) in the banner, and the actions'
 * state for the new selection and history. */
static void edit_action_done(AlliumWindow *self, GError *error)
{
    if (error) allium_window_report_error(self, error);
    g_clear_error(&error);
    allium_window_update_actions(self);
}

static void delete_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    const gint64 *brushes, *entities;
    guint nb, ne;
    selection_rows(self, &brushes, &nb, &entities, &ne);
    GError *error = NULL;
    if (allium_document_delete(self->document, brushes, nb, entities, ne, &error))
        allium_selection_clear(self->selection);
    edit_action_done(self, error);
}

static void duplicate_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    if (!self->document || nb == 0) return;
    /* One grid step right and down in the active view, so the copy shows beside the
     * original. */
    double right[3], down[3], delta[3];
    AlliumView *view = allium_window_get_active_view(self);
    allium_view_nudge_vector(view, "right", right);
    allium_view_nudge_vector(view, "down", down);
    for (int k = 0; k < 3; k++) delta[k] = right[k] + down[k];
    g_autofree gint64 *copies = g_new0(gint64, nb);
    GError *error = NULL;
    if (allium_document_duplicate(self->document, brushes, nb, delta, copies, &error))
        allium_selection_select_brushes(self->selection, copies, nb, ALLIUM_SELECT_REPLACE);
    edit_action_done(self, error);
}

static void hollow_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    if (!self->document || nb == 0) return;
    /* Walls one grid step thick. */
    double thickness = allium_preferences_get_grid_size(allium_preferences_get_default());
    g_autofree gint64 *walls = NULL;
    guint count = 0;
    GError *error = NULL;
    if (allium_document_hollow(self->document, brushes, nb, thickness, &walls, &count, &error))
        allium_selection_select_brushes(self->selection, walls, count, ALLIUM_SELECT_REPLACE);
    edit_action_done(self, error);
}

/* Rotates the selection a quarter turn (PARAMETER "cw" or "ccw", as seen in the focused
 * view) about the view's depth axis (Z in 3D), or mirrors it ("flip-x", "flip-y",
 * "flip-z"), around the centre of its bounds on the grid. */
static void transform_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    const char *how = g_variant_get_string(parameter, NULL);
    AlliumView *view = allium_window_get_active_view(self);
    double mins[3], maxs[3], c[3];
    if (!allium_view_get_selection_bounds(view, mins, maxs)) return;
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    for (int k = 0; k < 3; k++) c[k] = al_snap(0.5 * (mins[k] + maxs[k]), grid);
    double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const char *label;
    if (g_str_has_prefix(how, "flip-") && how[5] >= 'x' && how[5] <= 'z' && !how[6]) {
        m[how[5] - 'x'][how[5] - 'x'] = -1;
        label = N_("Flip selection");
    } else if (g_str_equal(how, "cw") || g_str_equal(how, "ccw")) {
        /* The view's right and up axes: clockwise takes up to right. */
        int r, u, d;
        al_view_axes(allium_view_get_kind(view), &r, &u, &d);
        double s = g_str_equal(how, "cw") ? -1 : 1;
        m[r][r] = m[u][u] = 0;
        m[r][u] = -s;
        m[u][r] = s;
        label = N_("Rotate selection");
    } else {
        return;
    }
    double matrix[3][4];
    for (int r = 0; r < 3; r++) {
        matrix[r][3] = c[r];
        for (int k = 0; k < 3; k++) {
            matrix[r][k] = m[r][k];
            matrix[r][3] -= m[r][k] * c[k];
        }
    }
    const gint64 *brushes, *entities;
    guint nb, ne;
    selection_rows(self, &brushes, &nb, &entities, &ne);
    GError *error = NULL;
    allium_document_transform(self->document, brushes, nb, entities, ne, matrix, label, &error);
    edit_action_done(self, error);
}

static void nudge_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    double delta[3];
    if (!allium_view_nudge_vector(allium_window_get_active_view(self),
                                  g_variant_get_string(parameter, NULL), delta))
        return;
    const gint64 *brushes, *entities;
    guint nb, ne;
    selection_rows(self, &brushes, &nb, &entities, &ne);
    GError *error = NULL;
    allium_document_move(self->document, brushes, nb, entities, ne, delta, &error);
    edit_action_done(self, error);
}

/* The entity tool with class PARAMETER. */
static void place_entity_action_cb(GtkWidget *widget, const char *action_name,
                                   GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    const char *classname = g_variant_get_string(parameter, NULL);
    if (!*classname) return;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        allium_view_set_entity_class(self->views[i], classname);
    g_object_set(self, "tool", "entity", NULL);
    g_autofree char *text =
        g_strdup_printf(_("Click in a view to place a %s; V returns to selecting"), classname);
    gtk_label_set_text(self->pointer_label, text);
}

/* Agents: start, stop, reset (PARAMETER). */
static void agents_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    GError *error = NULL;
    if (g_str_equal(action_name, "win.agents-start")) {
        if (!allium_collision_start_agents(self->collision, &error)) {
            allium_window_show_banner(self, GTK_MESSAGE_WARNING, error->message);
            g_error_free(error);
            return;
        }
        g_autofree char *text = g_strdup_printf(
            ngettext("%d agent walking", "%d agents walking",
                     allium_collision_agent_count(self->collision)),
            allium_collision_agent_count(self->collision));
        gtk_label_set_text(self->pointer_label, text);
    } else if (g_str_equal(action_name, "win.agents-stop")) {
        allium_collision_stop_agents(self->collision);
    } else {
        allium_collision_reset_agents(self->collision);
    }
}

static void box_size_chosen_cb(const double size[3], gpointer data)
{
    AlliumWindow *self = ALLIUM_WINDOW(data);
    if (!allium_collision_set_box_size(self->collision, size)) return;
    g_object_set(self, "tool", "testbox", NULL);
    g_autofree char *text = g_strdup_printf(_("New test boxes: %s, moved by plane shifting "
                                              "(H for the map's hulls)"),
                                            allium_collision_get_hull(self->collision));
    gtk_label_set_text(self->pointer_label, text);
}

/* Test Box Size…: new test boxes of any size, starting from the current hull's. */
static void test_box_size_action_cb(GtkWidget *widget, const char *action_name,
                                    GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    double mins[3], maxs[3], size[3] = {32, 32, 56};
    if (allium_collision_get_hull_box(self->collision, mins, maxs))
        for (int k = 0; k < 3; k++) size[k] = MAX(maxs[k] - mins[k], ALLIUM_COLLISION_MIN_SIZE);
    allium_box_size_dialog_show(GTK_WINDOW(self), size, box_size_chosen_cb, self);
}

/* Agent Hulls…: the map's list of agent boxes. */
static void edit_hulls_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (self->document) allium_hulls_dialog_show(GTK_WINDOW(self), self->document);
}

/* F9: shows or hides the side panel (properties). */
static void toggle_sidebar_action_cb(GtkWidget *widget, const char *action_name,
                                     GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    gtk_widget_set_visible(self->sidebar, !gtk_widget_get_visible(self->sidebar));
}

/* Walk mode in the focused view when it is a 3D view, else in the first 3D view: from the
 * player start (win.walk) or from the camera (win.walk-here). */
static void walk_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumView *view = allium_window_get_active_view(self);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT && allium_view_get_kind(view) != AL_VIEW_3D; i++)
        view = self->views[i];
    GError *error = NULL;
    if (allium_view_get_kind(view) != AL_VIEW_3D) {
        allium_window_show_banner(self, GTK_MESSAGE_WARNING,
                                  _("Walk mode needs a 3D view: switch a view to 3D first"));
        return;
    }
    if (!allium_view_start_walking(view, g_str_equal(action_name, "win.walk-here"), &error)) {
        allium_window_show_banner(self, GTK_MESSAGE_WARNING, error->message);
        g_error_free(error);
        return;
    }
    gtk_label_set_text(self->pointer_label,
                       _("Walking: W A S D, Space jumps, Ctrl crouches, Esc returns to editing"));
}

/* The test boxes: the next hull for new ones (H), or clear them all. */
static void test_box_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (g_str_equal(action_name, "win.clear-test-boxes")) {
        allium_collision_clear_boxes(self->collision);
        return;
    }
    allium_collision_next_hull(self->collision);
    g_object_set(self, "tool", "testbox", NULL);
    g_autofree char *text = g_strdup_printf(_("New test boxes: %s (H for the next hull)"),
                                            allium_collision_get_hull(self->collision));
    gtk_label_set_text(self->pointer_label, text);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_actions(GtkWidgetClass *widget_class)
{
    allium_window_class_add_select_actions(widget_class);
    allium_window_class_add_csg_actions(widget_class);
    allium_window_class_add_transform_actions(widget_class);
    allium_window_class_add_hide_actions(widget_class);
    allium_window_class_add_group_actions(widget_class);
    allium_window_class_add_clipboard_actions(widget_class);
    allium_window_class_add_prefab_actions(widget_class);
    allium_window_class_add_texture_actions(widget_class);
    gtk_widget_class_install_action(widget_class, "win.export", NULL, export_action_cb);
    gtk_widget_class_install_action(widget_class, "win.export-bsp", NULL, export_bsp_action_cb);
    gtk_widget_class_install_action(widget_class, "win.run-engine", NULL, run_engine_action_cb);
    gtk_widget_class_install_action(widget_class, "win.undo", NULL, undo_action_cb);
    gtk_widget_class_install_action(widget_class, "win.redo", NULL, redo_action_cb);
    gtk_widget_class_install_action(widget_class, "win.close", NULL, close_action_cb);
    gtk_widget_class_install_action(widget_class, "win.select-none", NULL, select_none_action_cb);
    gtk_widget_class_install_action(widget_class, "win.vertex-mode", NULL, vertex_mode_action_cb);
    gtk_widget_class_install_action(widget_class, "win.frame", NULL, frame_action_cb);
    gtk_widget_class_install_action(widget_class, "win.maximize-view", NULL, maximize_view_action_cb);
    gtk_widget_class_install_action(widget_class, "win.grid-smaller", NULL, grid_action_cb);
    gtk_widget_class_install_action(widget_class, "win.grid-larger", NULL, grid_action_cb);
    gtk_widget_class_install_action(widget_class, "win.delete", NULL, delete_action_cb);
    gtk_widget_class_install_action(widget_class, "win.duplicate", NULL, duplicate_action_cb);
    gtk_widget_class_install_action(widget_class, "win.hollow", NULL, hollow_action_cb);
    gtk_widget_class_install_action(widget_class, "win.transform", "s", transform_action_cb);
    gtk_widget_class_install_action(widget_class, "win.nudge", "s", nudge_action_cb);
    gtk_widget_class_install_action(widget_class, "win.place-entity", "s", place_entity_action_cb);
    gtk_widget_class_install_action(widget_class, "win.agents-start", NULL, agents_action_cb);
    gtk_widget_class_install_action(widget_class, "win.agents-stop", NULL, agents_action_cb);
    gtk_widget_class_install_action(widget_class, "win.agents-reset", NULL, agents_action_cb);
    gtk_widget_class_install_action(widget_class, "win.test-hull", NULL, test_box_action_cb);
    gtk_widget_class_install_action(widget_class, "win.walk", NULL, walk_action_cb);
    gtk_widget_class_install_action(widget_class, "win.toggle-sidebar", NULL,
                                    toggle_sidebar_action_cb);
    gtk_widget_class_install_action(widget_class, "win.test-box-size", NULL,
                                    test_box_size_action_cb);
    gtk_widget_class_install_action(widget_class, "win.walk-here", NULL, walk_action_cb);
    gtk_widget_class_install_action(widget_class, "win.edit-hulls", NULL, edit_hulls_action_cb);
    gtk_widget_class_install_action(widget_class, "win.clear-test-boxes", NULL,
                                    test_box_action_cb);

    static const char *toggles[] = {
        "show-portals",   "show-leak",   "show-pvs",    "show-cluster",
        "show-entities",  "show-tools",  "show-splits", "light-radii-2d",
        "light-radii-3d", "wireframe",   "pvs-culling", "lighting",
        "textures",       "textures-2d", "layout",      "tool"};
    for (guint i = 0; i < G_N_ELEMENTS(toggles); i++) {
        g_autofree char *action = g_strconcat("win.", toggles[i], NULL);
        gtk_widget_class_install_property_action(widget_class, action, toggles[i]);
    }

    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_e, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.export", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.undo", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_z, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.redo", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_y, GDK_CONTROL_MASK, "win.redo", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.select-none", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_f, 0, "win.frame", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_space, GDK_SHIFT_MASK,
                                        "win.maximize-view", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_bracketleft, 0, "win.grid-smaller",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_bracketright, 0, "win.grid-larger",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Delete, 0, "win.delete", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_BackSpace, 0, "win.delete", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_d, GDK_CONTROL_MASK, "win.duplicate",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.hollow", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_r, 0, "win.transform", "s", "cw");
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_r, GDK_SHIFT_MASK, "win.transform",
                                        "s", "ccw");
    static const char *flips[] = {"flip-x", "flip-y", "flip-z"};
    for (int k = 0; k < 3; k++)
        gtk_widget_class_add_binding_action(widget_class, GDK_KEY_x + k,
                                            GDK_CONTROL_MASK | GDK_ALT_MASK, "win.transform", "s",
                                            flips[k]);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_b, 0, "win.tool", "s", "brush");
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_c, 0, "win.tool", "s", "clip");
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_v, 0, "win.vertex-mode", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_t, 0, "win.tool", "s", "testbox");
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, 0, "win.test-hull", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_g, 0, "win.walk", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_F9, 0, "win.toggle-sidebar", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_F5, 0, "win.run-engine", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_g, GDK_SHIFT_MASK, "win.walk-here",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_l, GDK_SHIFT_MASK,
                                        "prefs.texture-lock", NULL);
    /* The arrow and page keys nudge (win.nudge) from the views' own key handlers, which
     * know their axes; elsewhere in the window they move the focus as usual. */
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_p, GDK_ALT_MASK, "win.show-portals",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_w, GDK_ALT_MASK, "win.wireframe",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_l, GDK_ALT_MASK, "win.lighting",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_t, GDK_ALT_MASK, "win.textures",
                                        NULL);
}

void allium_window_enable_action(AlliumWindow *self, const char *name, gboolean enabled)
{
    gpointer state = GINT_TO_POINTER(1 + !!enabled);
    if (!self->action_states) self->action_states = g_hash_table_new(g_str_hash, g_str_equal);
    if (g_hash_table_lookup(self->action_states, name) == state) return;
    g_hash_table_insert(self->action_states, (gpointer) name, state);
    gtk_widget_action_set_enabled(GTK_WIDGET(self), name, enabled);
}

void allium_window_update_actions(AlliumWindow *self)
{
    AlliumDocument *doc = self->document;
    gboolean can_undo = doc && allium_document_can_undo(doc);
    gboolean can_redo = doc && allium_document_can_redo(doc);
    allium_window_enable_action(self, "win.undo", can_undo);
    allium_window_enable_action(self, "win.redo", can_redo);
    allium_window_enable_action(self, "win.export", doc != NULL);
    allium_window_enable_action(self, "win.export-bsp", doc != NULL);
    allium_window_enable_action(self, "win.run-engine", doc != NULL);
    gboolean writable = doc && !allium_document_get_read_only(doc);
    gboolean selected = !allium_selection_is_empty(self->selection);
    guint brushes = 0;
    allium_selection_get_brushes(self->selection, &brushes);
    allium_window_enable_action(self, "win.delete", writable && selected);
    allium_window_enable_action(self, "win.nudge", writable && selected);
    allium_window_enable_action(self, "win.transform", writable && selected);
    allium_window_enable_action(self, "win.duplicate", writable && brushes > 0);
    allium_window_enable_action(self, "win.hollow", writable && brushes > 0);
    allium_window_enable_action(self, "win.place-entity", writable);
    allium_window_enable_action(self, "win.edit-hulls", doc != NULL);
    allium_window_update_csg_actions(self, writable);
    allium_window_update_transform_actions(self, writable);
    allium_window_update_hide_actions(self);
    allium_window_update_group_actions(self, writable);
    allium_window_update_clipboard_actions(self, writable);
    allium_window_update_prefab_actions(self, writable);
    allium_window_update_texture_actions(self, writable);
    allium_window_enable_action(self, "win.select-same-material", selected);
    allium_window_enable_action(self, "win.select-same-class", selected);

    g_autofree char *undo = can_undo ? allium_document_dup_undo_label(doc, FALSE) : NULL;
    g_autofree char *redo = can_redo ? allium_document_dup_undo_label(doc, TRUE) : NULL;
    /* The menu and the tooltips only when their words change: this runs with every
     * snapshot the engine delivers, and a menu rebuilt makes its widgets anew. */
    g_autofree char *labels = g_strdup_printf("%d%s\n%d%s", undo != NULL, undo ? undo : "",
                                              redo != NULL, redo ? redo : "");
    if (g_strcmp0(labels, self->history_labels) == 0) return;
    g_free(self->history_labels);
    self->history_labels = g_steal_pointer(&labels);
    g_menu_remove_all(self->undo_section);
    set_history_item(self, FALSE, undo);
    set_history_item(self, TRUE, redo);
}
