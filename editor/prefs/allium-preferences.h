/* AlliumPreferences: the editor's settings, one object for the whole application.
 *
 * Stored as a key file at g_get_user_config_dir()/allium/settings.ini, read once at
 * start and written shortly after every change. Everything that uses a setting listens
 * to its property's "notify", so changes apply at once ("live").
 *
 * Properties: "grid-sizes" (the sizes [ and ] step through, as text: "1 2 4 ... 512"),
 * "grid-size" (the current one), "mouse-sensitivity", "invert-y", "background" (a colour
 * as "#rrggbb"), "fly-speed" (3D, map units per second), "rotation-snap" (degrees a
 * rotate drag turns by, 15 by default), "last-document" (reopened when the editor starts
 * without a file), "texture-lock" (moves and turns carry the faces' textures along; on by
 * default), "texture-folders" (folders separated by ';' where a map's WADs and material
 * images are looked for after the map's own folder), and for Run in Engine "engine" (the
 * engine's program), "game-folder" (the folder it runs in, given as -basedir), "game-mod"
 * ("id1" by default), "engine-arguments" (added after +map NAME) and "export-folder"
 * (where the map's .bsp goes; empty: GAME-FOLDER/GAME-MOD/maps), and "prefab-folder"
 * (where prefabs are saved and listed; empty: g_get_user_data_dir()/allium/prefabs).
 *
 * The View menu's toggles, which every window follows both ways (so a new window and the
 * next start show what was shown last): "show-portals", "show-leak", "show-pvs",
 * "show-cluster", "show-entities", "show-tools", "show-splits", "light-radii-2d" (every
 * light's reach in the 2D views; off by default), "light-radii-3d" (the same in the 3D
 * view; off), "wireframe", "pvs-culling", "lighting", "textures" and "textures-2d" (the
 * 2D views' faint textures; off).
 */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_PREFERENCES (allium_preferences_get_type())
G_DECLARE_FINAL_TYPE(AlliumPreferences, allium_preferences, ALLIUM, PREFERENCES, GObject)

/* How many View menu toggles the preferences keep. */
#define ALLIUM_VIEW_TOGGLE_COUNT 14

/* The application's preferences, loaded on first use. Main thread. */
AlliumPreferences *allium_preferences_get_default(void);

/* Writes the file now (changes are otherwise written from an idle callback). */
gboolean allium_preferences_save(AlliumPreferences *self, GError **error);

double allium_preferences_get_grid_size(AlliumPreferences *self);
void allium_preferences_set_grid_size(AlliumPreferences *self, double size);

/* The valid sizes of "grid-sizes", ascending, into OUT (room for MAX); returns how many.
 * Never 0: a list without a valid size gives the default list. */
int allium_preferences_get_grid_sizes(AlliumPreferences *self, double *out, int max);

/* Moves the grid size to the next smaller (DIRECTION < 0) or larger size of the list. */
void allium_preferences_step_grid(AlliumPreferences *self, int direction);

double allium_preferences_get_mouse_sensitivity(AlliumPreferences *self);
gboolean allium_preferences_get_invert_y(AlliumPreferences *self);
gboolean allium_preferences_get_texture_lock(AlliumPreferences *self);
double allium_preferences_get_rotation_snap(AlliumPreferences *self);
double allium_preferences_get_fly_speed(AlliumPreferences *self);
void allium_preferences_set_fly_speed(AlliumPreferences *self, double speed);
void allium_preferences_get_background(AlliumPreferences *self, GdkRGBA *colour);
/* The entity definition files read after the bundled ones, separated by ';' (NULL: none). */
const char *allium_preferences_get_entity_definitions(AlliumPreferences *self);
const char *allium_preferences_get_last_document(AlliumPreferences *self);
void allium_preferences_set_last_document(AlliumPreferences *self, const char *path);
/* The "texture-folders" list split at ';', empty entries dropped (free with g_strfreev). */
char **allium_preferences_dup_texture_folders(AlliumPreferences *self);
/* The prefab folder in effect: "prefab-folder", or the default when it is empty. */
char *allium_preferences_dup_prefab_folder(AlliumPreferences *self);
/* The property name of view toggle I (0 <= I < ALLIUM_VIEW_TOGGLE_COUNT): the same name
 * as the window property it follows. */
const char *allium_preferences_view_toggle_name(int i);

G_END_DECLS
