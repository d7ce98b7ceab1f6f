/* AlliumPreferencesWindow (see allium-preferences-window.h).
 *
 * Controls are bound to the preferences with GBinding, both ways; the colour, kept as
 * text in the settings file, goes through transform functions. */
#include "allium-config.h"

#include "allium-preferences-window.h"

#include "allium-preferences.h"

#include <glib/gi18n.h>

struct _AlliumPreferencesWindow {
    GtkWindow parent_instance;

    /* template widgets */
    GtkEntry *grid_sizes_entry;
    GtkEntry *texture_folders_entry;
    GtkEntry *engine_entry, *game_folder_entry, *game_mod_entry, *engine_arguments_entry,
        *export_folder_entry, *prefab_folder_entry, *entity_definitions_entry;
    GtkAdjustment *sensitivity_adjustment;
    GtkSwitch *invert_y_switch;
    GtkAdjustment *fly_speed_adjustment;
    GtkAdjustment *rotation_snap_adjustment;
    GtkColorButton *background_button;
};

G_DEFINE_TYPE(AlliumPreferencesWindow, allium_preferences_window, GTK_TYPE_WINDOW)

/* --- static helpers ------------------------------------------------------------------ */

static gboolean text_to_rgba(GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
    (void) binding;
    (void) data;
    GdkRGBA rgba;
    if (!g_value_get_string(from) || !gdk_rgba_parse(&rgba, g_value_get_string(from)))
        return FALSE;
    g_value_set_boxed(to, &rgba);
    return TRUE;
}

static gboolean rgba_to_text(GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
    (void) binding;
    (void) data;
    const GdkRGBA *rgba = g_value_get_boxed(from);
    if (!rgba) return FALSE;
    g_value_take_string(to, g_strdup_printf("#%02x%02x%02x", (int) (rgba->red * 255 + 0.5),
                                            (int) (rgba->green * 255 + 0.5),
                                            (int) (rgba->blue * 255 + 0.5)));
    return TRUE;
}

/* --- callbacks ----------------------------------------------------------------------- */

static void grid_sizes_changed_cb(GtkEditable *editable, AlliumPreferencesWindow *self)
{
    (void) self;
    /* Marked when no size in it is usable (the default list is used then). */
    int n = 0;
    g_auto(GStrv) words = g_strsplit_set(gtk_editable_get_text(editable), " ,;\t", -1);
    for (int i = 0; words[i]; i++) {
        char *end = NULL;
        double v = g_ascii_strtod(words[i], &end);
        if (*words[i] && end && !*end && v >= 0.125 && v <= 8192) n++;
    }
    if (n == 0) gtk_widget_add_css_class(GTK_WIDGET(editable), "error");
    else gtk_widget_remove_css_class(GTK_WIDGET(editable), "error");
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_preferences_window_class_init(AlliumPreferencesWindowClass *klass)
{
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    gtk_widget_class_set_template_from_resource(widget_class,
                                                "/org/allium/Allium/ui/allium-preferences-window.ui");
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, grid_sizes_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         texture_folders_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, engine_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, game_folder_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, game_mod_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         engine_arguments_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         export_folder_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         prefab_folder_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         entity_definitions_entry);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         sensitivity_adjustment);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, invert_y_switch);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, fly_speed_adjustment);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow,
                                         rotation_snap_adjustment);
    gtk_widget_class_bind_template_child(widget_class, AlliumPreferencesWindow, background_button);
    gtk_widget_class_bind_template_callback(widget_class, grid_sizes_changed_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void allium_preferences_window_init(AlliumPreferencesWindow *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    AlliumPreferences *prefs = allium_preferences_get_default();
    const GBindingFlags both = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;
    g_object_bind_property(prefs, "grid-sizes", self->grid_sizes_entry, "text", both);
    g_object_bind_property(prefs, "texture-folders", self->texture_folders_entry, "text", both);
    g_object_bind_property(prefs, "engine", self->engine_entry, "text", both);
    g_object_bind_property(prefs, "game-folder", self->game_folder_entry, "text", both);
    g_object_bind_property(prefs, "game-mod", self->game_mod_entry, "text", both);
    g_object_bind_property(prefs, "engine-arguments", self->engine_arguments_entry, "text", both);
    g_object_bind_property(prefs, "export-folder", self->export_folder_entry, "text", both);
    g_object_bind_property(prefs, "prefab-folder", self->prefab_folder_entry, "text", both);
    g_object_bind_property(prefs, "entity-definitions", self->entity_definitions_entry, "text",
                           both);
    g_object_bind_property(prefs, "mouse-sensitivity", self->sensitivity_adjustment, "value", both);
    g_object_bind_property(prefs, "invert-y", self->invert_y_switch, "active", both);
    g_object_bind_property(prefs, "fly-speed", self->fly_speed_adjustment, "value", both);
    g_object_bind_property(prefs, "rotation-snap", self->rotation_snap_adjustment, "value", both);
    g_object_bind_property_full(prefs, "background", self->background_button, "rgba", both,
                                text_to_rgba, rgba_to_text, NULL, NULL);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_preferences_window_new(GtkWindow *parent)
{
    return g_object_new(ALLIUM_TYPE_PREFERENCES_WINDOW, "transient-for", parent, NULL);
}
