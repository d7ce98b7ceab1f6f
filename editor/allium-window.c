/* AlliumWindow (see allium-window.h): the window, its four views and their layout, the
 * banner and the status bar. Actions and shortcuts are in allium-window-actions.c.
 *
 * The views sit in nested panes: a vertical pane of two horizontal ones. Maximizing a
 * view hides the other three and the row it is not in: a GtkPaned with one visible child
 * gives it all its room, so the panes keep their positions for the way back.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-application.h"
#include "allium-entity-definitions.h"
#include "allium-lightmap.h"
#include "allium-preferences.h"
#include "allium-session.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

G_DEFINE_TYPE(AlliumWindow, allium_window, GTK_TYPE_APPLICATION_WINDOW)

enum {
    PROP_0,
    PROP_SHOW_PORTALS,
    PROP_SHOW_LEAK,
    PROP_SHOW_PVS,
    PROP_SHOW_CLUSTER,
    PROP_SHOW_ENTITIES,
    PROP_SHOW_TOOLS,
    PROP_SHOW_SPLITS,
    PROP_LIGHT_RADII_2D,
    PROP_LIGHT_RADII_3D,
    PROP_WIREFRAME,
    PROP_PVS_CULLING,
    PROP_LIGHTING,
    PROP_TEXTURES,
    PROP_TEXTURES_2D,
    PROP_LAYOUT,
    PROP_TOOL,
    N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The kind each slot shows at first, and so the one "single-KIND" falls back to. */
static const al_view_kind default_kinds[ALLIUM_WINDOW_VIEW_COUNT] = {
    AL_VIEW_3D, AL_VIEW_TOP, AL_VIEW_FRONT, AL_VIEW_SIDE};

/* --- static helpers ------------------------------------------------------------------ */

static gboolean *flag_of(AlliumWindow *self, guint prop_id)
{
    switch (prop_id) {
    case PROP_SHOW_PORTALS:
        return &self->show_portals;
    case PROP_SHOW_LEAK:
        return &self->show_leak;
    case PROP_SHOW_PVS:
        return &self->show_pvs;
    case PROP_SHOW_CLUSTER:
        return &self->show_cluster;
    case PROP_SHOW_ENTITIES:
        return &self->show_entities;
    case PROP_SHOW_TOOLS:
        return &self->show_tools;
    case PROP_SHOW_SPLITS:
        return &self->show_splits;
    case PROP_LIGHT_RADII_2D:
        return &self->light_radii_2d;
    case PROP_LIGHT_RADII_3D:
        return &self->light_radii_3d;
    case PROP_WIREFRAME:
        return &self->wireframe;
    case PROP_PVS_CULLING:
        return &self->pvs_culling;
    case PROP_LIGHTING:
        return &self->lighting;
    case PROP_TEXTURES:
        return &self->textures;
    case PROP_TEXTURES_2D:
        return &self->textures_2d;
    default:
        return NULL;
    }
}

static void push_draw_settings(AlliumWindow *self)
{
    unsigned overlays = (self->show_portals ? AL_OVERLAY_PORTALS : 0) |
                        (self->show_leak ? AL_OVERLAY_LEAK : 0) |
                        (self->show_pvs ? AL_OVERLAY_PVS : 0) |
                        (self->show_cluster ? AL_OVERLAY_CLUSTER : 0) |
                        (self->show_entities ? AL_OVERLAY_ENTITIES : 0) |
                        (self->show_tools ? AL_OVERLAY_TOOLS : 0) |
                        (self->show_splits ? AL_OVERLAY_SPLITS : 0);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        gboolean three_d = allium_view_get_kind(self->views[i]) == AL_VIEW_3D;
        gboolean radii = three_d ? self->light_radii_3d : self->light_radii_2d;
        allium_view_set_draw_settings(
            self->views[i], overlays | (radii ? AL_OVERLAY_LIGHT_RADII : 0), self->wireframe,
            !self->pvs_culling, self->lighting, three_d ? self->textures : self->textures_2d);
    }
}

static int slot_of_view(AlliumWindow *self, AlliumView *view)
{
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (self->views[i] == view) return i;
    return -1;
}

static void set_layout_string(AlliumWindow *self, const char *layout)
{
    if (g_strcmp0(self->layout, layout) == 0) return;
    g_free(self->layout);
    self->layout = g_strdup(layout);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LAYOUT]);
}

/* "single-top" -> the slot to maximize: the first view showing that kind, else the slot
 * that shows it by default, switched to it. */
static int slot_for_layout(AlliumWindow *self, const char *layout)
{
    al_view_kind kind;
    if (!g_str_has_prefix(layout, "single-") ||
        !allium_view_kind_from_string(layout + strlen("single-"), &kind))
        return -1;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (allium_view_get_kind(self->views[i]) == kind) return i;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        if (default_kinds[i] == kind) {
            allium_view_set_kind(self->views[i], kind);
            return i;
        }
    }
    return -1;
}

static void update_title(AlliumWindow *self)
{
    g_autofree char *name = NULL, *folder = NULL;
    if (self->document) {
        name = allium_document_dup_display_name(self->document);
        folder = allium_document_dup_folder(self->document);
    }
    g_free(self->title_text);
    if (!name)
        self->title_text = g_strdup(_("Allium"));
    else if (allium_document_get_read_only(self->document))
        self->title_text = g_strdup_printf(_("%s (read-only)"), name);
    else
        self->title_text = g_strdup(name);
    gtk_label_set_text(self->title_label, self->title_text);
    gtk_label_set_text(self->subtitle_label, folder ? folder : _("No map open"));
    g_autofree char *window_title =
        name ? g_strdup_printf("%s — %s", self->title_text, _("Allium")) : g_strdup(_("Allium"));
    gtk_window_set_title(GTK_WINDOW(self), window_title);
}

static void update_compile_status(AlliumWindow *self)
{
    gboolean compiling = self->document && allium_document_get_compiling(self->document);
    /* A still icon, not a spinner: an animation redraws the window every frame, which
     * with software OpenGL takes a core from the compile it is waiting for. */
    /* Shown and hidden by its opacity: taken out of the layout, it changed the status
     * bar's height by a pixel, and every view was laid out and drawn again. */
    gtk_widget_set_opacity(GTK_WIDGET(self->compile_icon), compiling ? 1.0 : 0.0);
    gtk_widget_set_has_tooltip(GTK_WIDGET(self->compile_icon), compiling);

    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    g_autofree char *text = NULL;
    /* The last result stays while the next compile runs (the icon says so): edits
     * recompile in milliseconds, and a flashing status bar is no help. */
    if (snap) text = allium_snapshot_describe(snap);
    else if (compiling) text = g_strdup(_("Compiling…"));
    else text = g_strdup("");
    gtk_label_set_text(self->compile_label, text);
    /* A class taken off and put back restyles the label and measures the window again. */
    const char *mark = NULL;
    if (snap && !snap->world && snap->status != AL_OK) {
        mark = "error";
    } else if (snap) {
        int errors, warnings;
        allium_snapshot_count_diags(snap, &errors, &warnings);
        if (errors || warnings) mark = "warning";
    }
    GtkWidget *label = GTK_WIDGET(self->compile_label);
    static const char *const marks[] = {"error", "warning"};
    for (guint i = 0; i < G_N_ELEMENTS(marks); i++) {
        gboolean wanted = g_strcmp0(mark, marks[i]) == 0;
        if (wanted != gtk_widget_has_css_class(label, marks[i])) {
            if (wanted)
                gtk_widget_add_css_class(label, marks[i]);
            else
                gtk_widget_remove_css_class(label, marks[i]);
        }
    }
}

/* "Light 12% residual" while the solver refines the current snapshot, "Correcting light"
 * while it corrects the light an edit changed, "Lit" once it is done, "No lights" for a
 * map without light sources. */
static void update_light_status(AlliumWindow *self)
{
    AlliumDocument *doc = self->document;
    AlliumSnapshot *snap = doc ? allium_document_get_snapshot(doc) : NULL;
    AlliumLightmap *lightmap = doc ? allium_document_get_lightmap(doc) : NULL;
    g_autofree char *text = NULL, *tip = NULL;
    if (lightmap) {
        const al_rad_stats *st = &lightmap->stats;
        gboolean done = st->converged || (st->direct_done && st->corrections_left == 0 &&
                                          st->residual <= ALLIUM_LIGHT_RESIDUAL);
        /* Rounded up: "0%" while it still runs would say it is done. */
        if (done) text = g_strdup(_("Lit"));
        else if (st->corrections_left > 0) text = g_strdup(_("Correcting light"));
        else text = g_strdup_printf(_("Light %.0f%% residual"), ceil(st->residual * 100.0));
        /* TRANSLATORS: the number of shots is %lld (xgettext cannot read G_GINT64_FORMAT);
         * the last %s is empty or " (lighting is off: View › Lighting)" */
        tip = g_strdup_printf(_("Radiosity: %d light sources, %d patches, %lld shots, "
                                "residual %.4f%s"),
                              st->lights, st->patches, (long long) st->shots, st->residual,
                              self->lighting ? "" : _(" (lighting is off: View › Lighting)"));
    } else if (snap && snap->world && snap->lights == 0) {
        text = g_strdup(_("No lights"));
        tip = g_strdup(_("The map has no light sources: faces are shaded by orientation"));
    }
    gtk_label_set_text(self->light_label, text ? text : "");
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->light_label), tip);
    gtk_widget_set_visible(GTK_WIDGET(self->light_label), text != NULL);
}

static void update_selection_status(AlliumWindow *self)
{
    int agent = self->collision ? allium_collision_get_watched_agent(self->collision) : -1;
    if (agent >= 0) {
        /* A watched agent takes the place of the selection's count. */
        g_autofree char *text = allium_collision_describe_agent(self->collision, agent);
        if (g_strcmp0(gtk_label_get_text(self->selection_label), text) != 0)
            gtk_label_set_text(self->selection_label, text);
        return;
    }
    guint brushes = 0, entities = 0;
    allium_selection_get_brushes(self->selection, &brushes);
    allium_selection_get_entities(self->selection, &entities);
    guint faces = 0;
    allium_selection_get_faces(self->selection, &faces);
    g_autofree char *text = NULL;
    if (brushes && entities)
        text = g_strdup_printf(_("%u brushes and %u entities selected"), brushes, entities);
    else if (brushes)
        text = g_strdup_printf(g_dngettext(GETTEXT_PACKAGE, "%u brush selected",
                                           "%u brushes selected", brushes),
                               brushes);
    else if (entities)
        text = g_strdup_printf(g_dngettext(GETTEXT_PACKAGE, "%u entity selected",
                                           "%u entities selected", entities),
                               entities);
    else if (faces)
        text = g_strdup_printf(g_dngettext(GETTEXT_PACKAGE, "%u face selected",
                                           "%u faces selected", faces),
                               faces);
    gtk_label_set_text(self->selection_label, text ? text : "");
}

static void update_grid_status(AlliumWindow *self)
{
    g_autofree char *text = g_strdup_printf(
        _("Grid %g"), allium_preferences_get_grid_size(allium_preferences_get_default()));
    gtk_label_set_text(self->grid_label, text);
}

/* --- callbacks ----------------------------------------------------------------------- */

static void document_compiled_cb(AlliumDocument *document, AlliumWindow *self)
{
    update_compile_status(self);
    update_light_status(self);
    AlliumSnapshot *snap = allium_document_get_snapshot(document);
    /* The guides of an edit give way to its compiled result. */
    if (snap) allium_selection_snapshot_arrived(self->selection, snap->generation);
    /* Test boxes and agents go on in the newest world. */
    if (snap && snap->world) allium_collision_set_snapshot(self->collision, snap);
    /* A failed compile is worth more than a line in the status bar (a map shown before
     * its first compile is not one). */
    if (snap && !snap->world && snap->status != AL_OK) {
        g_autofree char *text = allium_snapshot_describe(snap);
        allium_window_show_banner(self, GTK_MESSAGE_ERROR, text);
    } else if (self->banner_type == GTK_MESSAGE_ERROR &&
               gtk_revealer_get_reveal_child(self->banner_revealer) &&
               g_str_has_prefix(gtk_label_get_text(self->banner_label), _("Compile failed"))) {
        allium_window_hide_banner(self);
    }
}

static void document_notify_cb(GObject *object, GParamSpec *pspec, AlliumWindow *self)
{
    (void) object;
    (void) pspec;
    update_compile_status(self);
    allium_window_update_actions(self);
}

/* The document's entity definitions: the entity browser's classes and the Place Entity
 * menu's. */
static void show_definitions(AlliumWindow *self)
{
    g_autoptr(AlliumDefinitionSet) set = allium_document_dup_definitions(self->document);
    allium_entity_browser_set_definitions(self->entity_browser, set);
    g_menu_remove_all(self->place_entity_menu);
    if (!set) return;
    GMenuModel *classes = allium_entity_definitions_place_menu(&set->defs);
    g_menu_append_section(self->place_entity_menu, NULL, classes);
    g_object_unref(classes);
}

static void document_definitions_cb(AlliumDocument *document, AlliumWindow *self)
{
    (void) document;
    show_definitions(self);
}

static void document_lit_cb(AlliumDocument *document, AlliumWindow *self)
{
    (void) document;
    update_light_status(self);
}

static void document_changed_cb(AlliumDocument *document, AlliumWindow *self)
{
    /* Reading every brush's marks and the layers takes milliseconds on a big map: not
     * for a move or a texture edit. */
    if (allium_document_change_touches_marks(document)) allium_window_refresh_marks(self);
    allium_window_update_actions(self);
    int approximate = allium_document_get_lock_approximate(document);
    if (approximate > 0) {
        g_autofree char *text = g_strdup_printf(
            g_dngettext(GETTEXT_PACKAGE,
                        "Texture lock: %d face's texture is only near where it was (the "
                        "standard format cannot turn it this way; Valve 220 can)",
                        "Texture lock: %d faces' textures are only near where they were (the "
                        "standard format cannot turn them this way; Valve 220 can)",
                        approximate),
            approximate);
        gtk_label_set_text(self->pointer_label, text);
    }
}

static void selection_changed_cb(AlliumSelection *selection, AlliumWindow *self)
{
    (void) selection;
    allium_collision_watch_agent(self->collision, -1); /* selecting ends watching an agent */
    allium_window_select_whole_groups(self);
    update_selection_status(self);
    allium_window_update_actions(self);
}

/* A problem in the compile panel names a brush: select it and show it. */
static void problem_select_cb(AlliumCompilePanel *panel, gint64 row, AlliumWindow *self)
{
    (void) panel;
    allium_selection_select_brush(self->selection, row, ALLIUM_SELECT_REPLACE);
    gtk_widget_activate_action(GTK_WIDGET(self), "win.frame", NULL);
}

/* A leak: every view frames its path (the leak overlay is turned on). */
static void problem_frame_cb(AlliumCompilePanel *panel, gpointer bounds, AlliumWindow *self)
{
    (void) panel;
    const double *b = bounds;
    g_object_set(self, "show-leak", TRUE, NULL);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        al_camera_frame(allium_view_get_camera(self->views[i]), b, b + 3);
        allium_view_queue_render(self->views[i]);
    }
}

static void grid_changed_cb(GObject *object, GParamSpec *pspec, AlliumWindow *self)
{
    (void) object;
    (void) pspec;
    update_grid_status(self);
}

static void view_pointer_info_cb(AlliumView *view, const char *text, AlliumWindow *self)
{
    (void) view;
    gtk_label_set_text(self->pointer_label, text);
}

/* The pointer's map point sets where every view's splits overlay looks. A 2D view does not
 * know its depth axis: that coordinate comes from a 3D view's camera. */
static void view_pointer_point_cb(AlliumView *view, gpointer data, int unknown_axis,
                                  AlliumWindow *self)
{
    (void) view;
    double p[3];
    memcpy(p, data, sizeof p);
    if (unknown_axis >= 0 && unknown_axis < 3)
        for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
            if (allium_view_get_kind(self->views[i]) == AL_VIEW_3D) {
                p[unknown_axis] = allium_view_get_camera(self->views[i])->position[unknown_axis];
                break;
            }
    allium_window_set_split_point(self, p);
}

/* A 3D view's camera moved: the 2D views mark it (the first 3D view's, if there are
 * several). */
static void view_camera_moved_cb(AlliumView *view, AlliumWindow *self)
{
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        if (allium_view_get_kind(self->views[i]) != AL_VIEW_3D) continue;
        if (self->views[i] != view) return;
        break;
    }
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (self->views[i] != view) allium_view_set_eye(self->views[i], allium_view_get_camera(view));
}

static void view_toggle_maximize_cb(AlliumView *view, AlliumWindow *self)
{
    int slot = slot_of_view(self, view);
    allium_window_maximize_slot(self, self->maximized_slot == slot ? -1 : slot);
}

static void view_activated_cb(AlliumView *view, AlliumWindow *self)
{
    self->active_view = view;
}

static void view_kind_changed_cb(GObject *object, GParamSpec *pspec, AlliumWindow *self)
{
    (void) pspec;
    int slot = slot_of_view(self, ALLIUM_VIEW(object));
    /* The layout names the maximized view's kind. */
    if (slot >= 0 && slot == self->maximized_slot) {
        g_autofree char *layout =
            g_strdup_printf("single-%s", allium_view_kind_to_string(allium_view_get_kind(self->views[slot])));
        set_layout_string(self, layout);
    }
    /* The light radii toggle of its new kind. */
    push_draw_settings(self);
    /* A view that became 2D marks the 3D camera at once. */
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (allium_view_get_kind(self->views[i]) == AL_VIEW_3D) {
            view_camera_moved_cb(self->views[i], self);
            break;
        }
}

/* "application" is set after construction (it is not a construct property): the
 * application's "Open Recent" menu is linked in then. */
static void application_set_cb(GObject *object, GParamSpec *pspec, AlliumWindow *self)
{
    (void) object;
    (void) pspec;
    GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
    if (!ALLIUM_IS_APPLICATION(app) || g_menu_model_get_n_items(G_MENU_MODEL(self->recent_menu)) > 0)
        return;
    g_menu_append_submenu(self->recent_menu, _("Open _Recent"),
                          allium_application_get_recent_menu(ALLIUM_APPLICATION(app)));
}

static void banner_close_cb(GtkButton *button, AlliumWindow *self)
{
    (void) button;
    allium_window_hide_banner(self);
}

static gboolean drop_cb(GtkDropTarget *target, const GValue *value, double x, double y,
                        AlliumWindow *self)
{
    (void) target;
    (void) x;
    (void) y;
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST)) return FALSE;
    GSList *files = gdk_file_list_get_files(g_value_get_boxed(value));
    GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
    gboolean any = files != NULL;
    for (GSList *l = files; l; l = l->next)
        allium_application_open_file(ALLIUM_APPLICATION(app), l->data, self);
    g_slist_free(files);
    return any;
}

/* Writes the test boxes to the session file if they changed since it was written, so that
 * they are there when the map is opened again (allium-session.h). */
static void keep_test_boxes(AlliumWindow *self)
{
    g_clear_handle_id(&self->session_source, g_source_remove);
    if (!self->document || !self->collision) return;
    g_autofree char *boxes = allium_collision_save_boxes(self->collision);
    if (g_strcmp0(boxes, self->kept_boxes ? self->kept_boxes : "") == 0) return;
    GError *error = NULL;
    if (!allium_session_set_test_boxes(allium_document_get_path(self->document), boxes, &error)) {
        /* Only this session's boxes are at stake: said once, on the console. */
        g_warning("the test boxes could not be kept: %s", error->message);
        g_error_free(error);
    }
    g_free(self->kept_boxes);
    self->kept_boxes = g_steal_pointer(&boxes);
}

static gboolean keep_test_boxes_cb(gpointer data)
{
    AlliumWindow *self = data;
    self->session_source = 0;
    keep_test_boxes(self);
    return G_SOURCE_REMOVE;
}

/* The collision preview changed (a box placed, dragged or cleared; the agents moved): the
 * boxes are kept half a second after the last change. */
static void collision_changed_cb(AlliumCollision *collision, AlliumWindow *self)
{
    (void) collision;
    update_selection_status(self);
    g_clear_handle_id(&self->session_source, g_source_remove);
    self->session_source = g_timeout_add(500, keep_test_boxes_cb, self);
}

/* Keys reach the widget with the focus first, so a view had to be clicked before it flew.
 * The window offers the views what that widget leaves alone: a walking view takes every
 * key (in the capture phase: before a 2D view clicked during the walk takes the arrows
 * for nudging), other views the flying keys while the pointer is over them. Text fields
 * keep their keys. */
static gboolean offer_key(AlliumWindow *self, guint keyval, GdkModifierType state, gboolean pressed,
                          gboolean walking_only)
{
    if (walking_only) {
        GtkWidget *focus = gtk_window_get_focus(GTK_WINDOW(self));
        if (focus && GTK_IS_EDITABLE(focus)) return FALSE;
    }
    gboolean taken = FALSE;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = self->views[i];
        if (walking_only && !allium_view_is_walking(view)) continue;
        /* A release goes to every view that may be holding the key. */
        taken = allium_view_offer_key(view, keyval, state, pressed) || taken;
        if (taken && pressed) break;
    }
    return taken;
}

/* Both key controllers' handlers: the capture phase's offers keys to a walking view only. */
static gboolean key_pressed_cb(GtkEventControllerKey *keys, guint keyval, guint keycode,
                               GdkModifierType state, AlliumWindow *self)
{
    (void) keycode;
    gboolean capture =
        gtk_event_controller_get_propagation_phase(GTK_EVENT_CONTROLLER(keys)) == GTK_PHASE_CAPTURE;
    return offer_key(self, keyval, state, TRUE, capture);
}

static void key_released_cb(GtkEventControllerKey *keys, guint keyval, guint keycode,
                            GdkModifierType state, AlliumWindow *self)
{
    (void) keycode;
    gboolean capture =
        gtk_event_controller_get_propagation_phase(GTK_EVENT_CONTROLLER(keys)) == GTK_PHASE_CAPTURE;
    offer_key(self, keyval, state, FALSE, capture);
}

/* The window lost the keyboard: the releases of held keys go elsewhere. */
static void active_changed_cb(GObject *object, GParamSpec *pspec, AlliumWindow *self)
{
    (void) object;
    (void) pspec;
    if (gtk_window_is_active(GTK_WINDOW(self))) return;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) allium_view_release_keys(self->views[i]);
}

static void view_edit_error_cb(AlliumView *view, const char *message, AlliumWindow *self)
{
    (void) view;
    allium_window_show_banner(self, GTK_MESSAGE_ERROR, message);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_window_dispose(GObject *object)
{
    AlliumWindow *self = ALLIUM_WINDOW(object);
    if (self->session_source) keep_test_boxes(self);
    if (self->document) {
        g_signal_handlers_disconnect_by_data(self->document, self);
        /* Release the map (and its lock) now, not whenever the last reference goes. */
        allium_document_close(self->document);
        g_clear_object(&self->document);
    }
    if (self->selection) g_signal_handlers_disconnect_by_data(self->selection, self);
    g_signal_handlers_disconnect_by_data(allium_preferences_get_default(), self);
    self->active_view = NULL;
    gtk_widget_dispose_template(GTK_WIDGET(self), ALLIUM_TYPE_WINDOW);
    g_clear_object(&self->selection);
    if (self->collision) {
        g_signal_handlers_disconnect_by_data(self->collision, self);
        allium_collision_stop_agents(self->collision);
    }
    g_clear_object(&self->collision);
    G_OBJECT_CLASS(allium_window_parent_class)->dispose(object);
}

static void allium_window_finalize(GObject *object)
{
    AlliumWindow *self = ALLIUM_WINDOW(object);
    g_free(self->layout);
    g_free(self->title_text);
    g_free(self->kept_boxes);
    g_free(self->history_labels);
    g_clear_pointer(&self->action_states, g_hash_table_unref);
    G_OBJECT_CLASS(allium_window_parent_class)->finalize(object);
}

static void allium_window_get_property(GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
    AlliumWindow *self = ALLIUM_WINDOW(object);
    gboolean *flag = flag_of(self, prop_id);
    if (flag) {
        g_value_set_boolean(value, *flag);
    } else if (prop_id == PROP_LAYOUT) {
        g_value_set_string(value, self->layout);
    } else if (prop_id == PROP_TOOL) {
        g_value_set_string(value, self->tool == ALLIUM_TOOL_BRUSH     ? "brush"
                                  : self->tool == ALLIUM_TOOL_ENTITY  ? "entity"
                                  : self->tool == ALLIUM_TOOL_TESTBOX ? "testbox"
                                  : self->tool == ALLIUM_TOOL_CLIP    ? "clip"
                                  : self->tool == ALLIUM_TOOL_VERTEX  ? "vertex"
                                                                      : "select");
    } else {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void allium_window_set_property(GObject *object, guint prop_id, const GValue *value,
                                       GParamSpec *pspec)
{
    AlliumWindow *self = ALLIUM_WINDOW(object);
    gboolean *flag = flag_of(self, prop_id);
    if (flag) {
        gboolean v = g_value_get_boolean(value);
        if (*flag == v) return;
        *flag = v;
        push_draw_settings(self);
        if (prop_id == PROP_LIGHTING) update_light_status(self);
        g_object_notify_by_pspec(object, pspec);
    } else if (prop_id == PROP_LAYOUT) {
        const char *layout = g_value_get_string(value);
        int slot = layout ? slot_for_layout(self, layout) : -1;
        if (g_strcmp0(layout, "grid") == 0) allium_window_maximize_slot(self, -1);
        else if (slot >= 0) allium_window_maximize_slot(self, slot);
    } else if (prop_id == PROP_TOOL) {
        const char *name = g_value_get_string(value);
        AlliumTool tool = g_strcmp0(name, "brush") == 0     ? ALLIUM_TOOL_BRUSH
                          : g_strcmp0(name, "entity") == 0  ? ALLIUM_TOOL_ENTITY
                          : g_strcmp0(name, "testbox") == 0 ? ALLIUM_TOOL_TESTBOX
                          : g_strcmp0(name, "clip") == 0    ? ALLIUM_TOOL_CLIP
                          : g_strcmp0(name, "vertex") == 0  ? ALLIUM_TOOL_VERTEX
                                                            : ALLIUM_TOOL_SELECT;
        if (tool == self->tool) return;
        self->tool = tool;
        for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
            allium_view_set_tool(self->views[i], tool);
        if (tool == ALLIUM_TOOL_TESTBOX) {
            g_autofree char *text = g_strdup_printf(
                _("Click to place a %s test box, drag it through the map; H: next hull"),
                allium_collision_get_hull(self->collision));
            gtk_label_set_text(self->pointer_label, text);
        } else if (tool == ALLIUM_TOOL_CLIP) {
            gtk_label_set_text(self->pointer_label,
                               _("Clip: click two points in a 2D view (three on surfaces in 3D); "
                                 "Tab: which side stays; Enter: clip the selected brushes"));
        } else if (tool == ALLIUM_TOOL_VERTEX) {
            gtk_label_set_text(self->pointer_label,
                               _("Vertices: drag a corner, an edge's middle or a face's centre of "
                                 "the selected brushes (Ctrl: split it; Shift+click: select "
                                 "several; Alt in 3D: along Z); Esc: back to Select"));
        }
        g_object_notify_by_pspec(object, pspec);
    } else {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_window_class_init(AlliumWindowClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = allium_window_dispose;
    object_class->finalize = allium_window_finalize;
    object_class->get_property = allium_window_get_property;
    object_class->set_property = allium_window_set_property;

    const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
    properties[PROP_SHOW_PORTALS] = g_param_spec_boolean("show-portals", NULL, NULL, FALSE, flags);
    properties[PROP_SHOW_LEAK] = g_param_spec_boolean("show-leak", NULL, NULL, TRUE, flags);
    properties[PROP_SHOW_PVS] = g_param_spec_boolean("show-pvs", NULL, NULL, FALSE, flags);
    properties[PROP_SHOW_CLUSTER] = g_param_spec_boolean("show-cluster", NULL, NULL, FALSE, flags);
    properties[PROP_SHOW_ENTITIES] = g_param_spec_boolean("show-entities", NULL, NULL, TRUE, flags);
    properties[PROP_SHOW_TOOLS] = g_param_spec_boolean("show-tools", NULL, NULL, TRUE, flags);
    properties[PROP_SHOW_SPLITS] = g_param_spec_boolean("show-splits", NULL, NULL, FALSE, flags);
    /* Every light's reach in the 2D views, and in the 3D view. */
    properties[PROP_LIGHT_RADII_2D] =
        g_param_spec_boolean("light-radii-2d", NULL, NULL, FALSE, flags);
    properties[PROP_LIGHT_RADII_3D] =
        g_param_spec_boolean("light-radii-3d", NULL, NULL, FALSE, flags);
    properties[PROP_WIREFRAME] = g_param_spec_boolean("wireframe", NULL, NULL, FALSE, flags);
    properties[PROP_PVS_CULLING] = g_param_spec_boolean("pvs-culling", NULL, NULL, TRUE, flags);
    properties[PROP_LIGHTING] = g_param_spec_boolean("lighting", NULL, NULL, TRUE, flags);
    properties[PROP_TEXTURES] = g_param_spec_boolean("textures", NULL, NULL, TRUE, flags);
    properties[PROP_TEXTURES_2D] = g_param_spec_boolean("textures-2d", NULL, NULL, FALSE, flags);
    properties[PROP_LAYOUT] = g_param_spec_string("layout", NULL, NULL, "grid", flags);
    /* "select", "brush" or "entity" (win.place-entity chooses the class): what a left
     * drag does in the views */
    properties[PROP_TOOL] = g_param_spec_string("tool", NULL, NULL, "select", flags);
    /* "testbox": the collision test boxes (AlliumCollision). */
    g_object_class_install_properties(object_class, N_PROPS, properties);

    g_type_ensure(ALLIUM_TYPE_VIEW);
    g_type_ensure(ALLIUM_TYPE_INSPECTOR);
    g_type_ensure(ALLIUM_TYPE_COMPILE_PANEL);
    g_type_ensure(ALLIUM_TYPE_LAYERS_PANEL);
    g_type_ensure(ALLIUM_TYPE_MATERIAL_BROWSER);
    g_type_ensure(ALLIUM_TYPE_ENTITY_BROWSER);
    g_type_ensure(ALLIUM_TYPE_TEXTURE_BROWSER);
    g_type_ensure(ALLIUM_TYPE_PREFAB_BROWSER);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/allium/Allium/ui/allium-window.ui");
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, title_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, subtitle_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, undo_button);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, redo_button);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, banner_revealer);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, banner);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, banner_icon);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, banner_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, side_paned);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, sidebar);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, sidebar_stack);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, inspector);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, compile_panel);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, layers_panel);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, sidebar_switcher);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, material_browser);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, entity_browser);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, texture_browser);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, prefab_browser);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, outer_paned);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, top_paned);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, bottom_paned);
    gtk_widget_class_bind_template_child_full(widget_class, "view_0", FALSE,
                                              G_STRUCT_OFFSET(AlliumWindow, views[0]));
    gtk_widget_class_bind_template_child_full(widget_class, "view_1", FALSE,
                                              G_STRUCT_OFFSET(AlliumWindow, views[1]));
    gtk_widget_class_bind_template_child_full(widget_class, "view_2", FALSE,
                                              G_STRUCT_OFFSET(AlliumWindow, views[2]));
    gtk_widget_class_bind_template_child_full(widget_class, "view_3", FALSE,
                                              G_STRUCT_OFFSET(AlliumWindow, views[3]));
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, compile_icon);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, compile_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, light_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, pointer_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, selection_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, grid_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, recent_menu);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, place_entity_menu);
    gtk_widget_class_bind_template_child(widget_class, AlliumWindow, undo_section);
    gtk_widget_class_bind_template_callback(widget_class, banner_close_cb);

    allium_window_class_add_actions(widget_class);
}

static void allium_window_init(AlliumWindow *self)
{
    self->show_leak = self->show_entities = self->show_tools = TRUE;
    self->pvs_culling = TRUE;
    self->lighting = TRUE;
    self->textures = TRUE;
    self->maximized_slot = -1;
    self->layout = g_strdup("grid");
    self->banner_type = GTK_MESSAGE_INFO;

    gtk_widget_init_template(GTK_WIDGET(self));
    /* The side panel's five page names each as wide as itself: at equal widths (the
     * switcher's own way) the panel took a third of the window from the views. */
    GtkLayoutManager *switcher_layout = gtk_widget_get_layout_manager(self->sidebar_switcher);
    if (GTK_IS_BOX_LAYOUT(switcher_layout))
        gtk_box_layout_set_homogeneous(GTK_BOX_LAYOUT(switcher_layout), FALSE);
    /* Settings the menus and the header bar toggle: "prefs.texture-lock". */
    GSimpleActionGroup *prefs = g_simple_action_group_new();
    g_autoptr(GPropertyAction) lock =
        g_property_action_new("texture-lock", allium_preferences_get_default(), "texture-lock");
    g_action_map_add_action(G_ACTION_MAP(prefs), G_ACTION(lock));
    gtk_widget_insert_action_group(GTK_WIDGET(self), "prefs", G_ACTION_GROUP(prefs));
    g_object_unref(prefs);

    self->selection = allium_selection_new();
    self->collision = allium_collision_new();
    g_signal_connect(self->selection, "changed", G_CALLBACK(selection_changed_cb), self);
    g_signal_connect(self->collision, "changed", G_CALLBACK(collision_changed_cb), self);
    allium_inspector_set_selection(self->inspector, self->selection);
    allium_material_browser_set_selection(self->material_browser, self->selection);
    allium_texture_browser_set_selection(self->texture_browser, self->selection);
    g_signal_connect(self->compile_panel, "select-brush", G_CALLBACK(problem_select_cb), self);
    g_signal_connect(self->compile_panel, "frame", G_CALLBACK(problem_frame_cb), self);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = self->views[i];
        allium_view_set_kind(view, default_kinds[i]);
        allium_view_set_selection(view, self->selection);
        allium_view_set_collision(view, self->collision);
        g_signal_connect(view, "pointer-info", G_CALLBACK(view_pointer_info_cb), self);
        g_signal_connect(view, "toggle-maximize", G_CALLBACK(view_toggle_maximize_cb), self);
        g_signal_connect(view, "pointer-point", G_CALLBACK(view_pointer_point_cb), self);
        g_signal_connect(view, "camera-moved", G_CALLBACK(view_camera_moved_cb), self);
        g_signal_connect(view, "activated", G_CALLBACK(view_activated_cb), self);
        g_signal_connect(view, "edit-error", G_CALLBACK(view_edit_error_cb), self);
        g_signal_connect(view, "notify::kind-name", G_CALLBACK(view_kind_changed_cb), self);
    }
    self->active_view = self->views[0];
    /* The View menu's toggles are the preferences' (a new window shows what the last one
     * showed, and they are saved for the next start). */
    for (int i = 0; i < ALLIUM_VIEW_TOGGLE_COUNT; i++) {
        const char *name = allium_preferences_view_toggle_name(i);
        g_object_bind_property(allium_preferences_get_default(), name, self, name,
                               G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
    }
    push_draw_settings(self);
    g_signal_connect(self, "notify::application", G_CALLBACK(application_set_cb), self);

    g_signal_connect(allium_preferences_get_default(), "notify::grid-size",
                     G_CALLBACK(grid_changed_cb), self);

    for (int i = 0; i < 2; i++) {
        GtkEventController *keys = gtk_event_controller_key_new();
        gtk_event_controller_set_propagation_phase(keys, i ? GTK_PHASE_BUBBLE : GTK_PHASE_CAPTURE);
        g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed_cb), self);
        g_signal_connect(keys, "key-released", G_CALLBACK(key_released_cb), self);
        gtk_widget_add_controller(GTK_WIDGET(self), keys);
    }
    g_signal_connect(self, "notify::is-active", G_CALLBACK(active_changed_cb), self);

    GtkDropTarget *drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(drop_cb), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));

    update_title(self);
    update_compile_status(self);
    update_light_status(self);
    update_selection_status(self);
    update_grid_status(self);
    allium_window_update_actions(self);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_maximize_slot(AlliumWindow *self, int slot)
{
    if (slot < -1 || slot >= ALLIUM_WINDOW_VIEW_COUNT) return;
    self->maximized_slot = slot;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        gtk_widget_set_visible(GTK_WIDGET(self->views[i]), slot < 0 || slot == i);
        allium_view_set_maximized(self->views[i], slot == i);
    }
    /* Slots 0 and 1 are the top row, 2 and 3 the bottom one. */
    gtk_widget_set_visible(GTK_WIDGET(self->top_paned), slot < 0 || slot < 2);
    gtk_widget_set_visible(GTK_WIDGET(self->bottom_paned), slot < 0 || slot >= 2);

    if (slot >= 0) {
        self->active_view = self->views[slot];
        gtk_widget_grab_focus(GTK_WIDGET(self->views[slot]));
        g_autofree char *layout =
            g_strdup_printf("single-%s", allium_view_kind_to_string(allium_view_get_kind(self->views[slot])));
        set_layout_string(self, layout);
    } else {
        set_layout_string(self, "grid");
    }
}

void allium_window_report_error(AlliumWindow *self, const GError *error)
{
    allium_window_show_banner(self, GTK_MESSAGE_ERROR, error->message);
}

/* --- public API ---------------------------------------------------------------------- */

AlliumWindow *allium_window_new(GtkApplication *application)
{
    return g_object_new(ALLIUM_TYPE_WINDOW, "application", application, NULL);
}

AlliumDocument *allium_window_get_document(AlliumWindow *self)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), NULL);
    return self->document;
}

void allium_window_set_document(AlliumWindow *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    g_return_if_fail(self->document == NULL);
    g_return_if_fail(ALLIUM_IS_DOCUMENT(document));

    self->document = g_object_ref(document);
    g_signal_connect(document, "compiled", G_CALLBACK(document_compiled_cb), self);
    g_signal_connect(document, "changed", G_CALLBACK(document_changed_cb), self);
    g_signal_connect(document, "notify::compiling", G_CALLBACK(document_notify_cb), self);
    g_signal_connect(document, "lit", G_CALLBACK(document_lit_cb), self);
    g_signal_connect(document, "definitions", G_CALLBACK(document_definitions_cb), self);
    show_definitions(self);
    allium_selection_clear(self->selection);
    AlliumSnapshot *snap = allium_document_get_snapshot(document);
    if (snap && snap->world) allium_collision_set_snapshot(self->collision, snap);
    /* The test boxes the map had when it was last closed. */
    self->kept_boxes = allium_session_get_test_boxes(allium_document_get_path(document));
    if (self->kept_boxes) allium_collision_restore_boxes(self->collision, self->kept_boxes);
    /* And what the map has hidden and locked. */
    allium_window_refresh_marks(self);
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        allium_view_set_document(self->views[i], document);
    allium_inspector_set_document(self->inspector, document);
    allium_material_browser_set_document(self->material_browser, document);
    allium_texture_browser_set_document(self->texture_browser, document);
    allium_compile_panel_set_document(self->compile_panel, document);
    allium_layers_panel_set_document(self->layers_panel, document, self->selection);
    update_title(self);
    update_compile_status(self);
    update_light_status(self);
    allium_window_update_actions(self);
}

void allium_window_show_banner(AlliumWindow *self, GtkMessageType type, const char *text)
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    static const char *classes[] = {"info", "warning", "error"};
    for (guint i = 0; i < G_N_ELEMENTS(classes); i++) gtk_widget_remove_css_class(self->banner, classes[i]);
    const char *css = "info", *icon = "dialog-information-symbolic";
    if (type == GTK_MESSAGE_WARNING) {
        css = "warning";
        icon = "dialog-warning-symbolic";
    } else if (type == GTK_MESSAGE_ERROR) {
        css = "error";
        icon = "dialog-error-symbolic";
    }
    gtk_widget_add_css_class(self->banner, css);
    gtk_image_set_from_icon_name(self->banner_icon, icon);
    gtk_label_set_text(self->banner_label, text);
    self->banner_type = type;
    gtk_revealer_set_reveal_child(self->banner_revealer, TRUE);
}

void allium_window_hide_banner(AlliumWindow *self)
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    gtk_revealer_set_reveal_child(self->banner_revealer, FALSE);
}

gboolean allium_window_get_banner(AlliumWindow *self, GtkMessageType *type, const char **text)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), FALSE);
    if (type) *type = self->banner_type;
    if (text) *text = gtk_label_get_text(self->banner_label);
    return gtk_revealer_get_reveal_child(self->banner_revealer);
}

AlliumView *allium_window_get_view(AlliumWindow *self, int slot)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), NULL);
    g_return_val_if_fail(slot >= 0 && slot < ALLIUM_WINDOW_VIEW_COUNT, NULL);
    return self->views[slot];
}

AlliumView *allium_window_get_active_view(AlliumWindow *self)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), NULL);
    if (self->maximized_slot >= 0) return self->views[self->maximized_slot];
    return self->active_view ? self->active_view : self->views[0];
}

const char *allium_window_get_title_text(AlliumWindow *self)
{
    g_return_val_if_fail(ALLIUM_IS_WINDOW(self), NULL);
    return self->title_text;
}

void allium_window_set_split_point(AlliumWindow *self, const double point[3])
{
    g_return_if_fail(ALLIUM_IS_WINDOW(self));
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        allium_view_set_split_point(self->views[i], point);
}
