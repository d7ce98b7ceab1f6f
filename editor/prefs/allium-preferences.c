/* AlliumPreferences (see allium-preferences.h): settings as GObject properties, loaded
 * from and saved to a key file.
 *
 * Every property is saved, by its name, in the group [editor]: the key file follows the
 * property list without a table to keep in step. Values out of range in a hand-edited
 * file are clamped by the property specs, unknown keys ignored. */
#include "allium-config.h"

#include "allium-preferences.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>

#define DEFAULT_GRID_SIZES "1 2 4 8 16 32 64 128 256 512"
#define GROUP "editor"

struct _AlliumPreferences {
    GObject parent_instance;

    char *path; /* the key file */
    char *grid_sizes;
    double grid_size;
    double mouse_sensitivity;
    gboolean invert_y;
    char *background;
    double fly_speed;
    double rotation_snap;
    char *last_document;
    gboolean texture_lock;
    char *entity_definitions;
    char *texture_folders;
    char *engine, *game_folder, *game_mod, *engine_arguments, *export_folder;
    char *prefab_folder; /* "" : the user data folder's allium/prefabs */
    gboolean view_toggles[ALLIUM_VIEW_TOGGLE_COUNT]; /* by the order of view_toggles[] */

    gboolean loading; /* set while reading the file: no save for what was just read */
    guint save_source;
};

G_DEFINE_TYPE(AlliumPreferences, allium_preferences, G_TYPE_OBJECT)

enum {
    PROP_0,
    PROP_GRID_SIZES,
    PROP_GRID_SIZE,
    PROP_MOUSE_SENSITIVITY,
    PROP_INVERT_Y,
    PROP_BACKGROUND,
    PROP_FLY_SPEED,
    PROP_ROTATION_SNAP,
    PROP_LAST_DOCUMENT,
    PROP_TEXTURE_LOCK,
    PROP_ENTITY_DEFINITIONS,
    PROP_TEXTURE_FOLDERS,
    PROP_ENGINE,
    PROP_GAME_FOLDER,
    PROP_GAME_MOD,
    PROP_ENGINE_ARGUMENTS,
    PROP_EXPORT_FOLDER,
    PROP_PREFAB_FOLDER,
    PROP_FIRST_VIEW_TOGGLE,
    N_PROPS = PROP_FIRST_VIEW_TOGGLE + ALLIUM_VIEW_TOGGLE_COUNT
};

/* The View menu's toggles, remembered for the next window and the next start: their
 * names (those of the window's properties they follow) and defaults. The light radii are
 * two: every light's reach drawn in the 2D views veils the brushes of a lit map, so there
 * they start off; a 3D view shows the selected lights' reach whatever the toggle. */
static const struct {
    const char *name;
    gboolean on;
} view_toggles[ALLIUM_VIEW_TOGGLE_COUNT] = {
    {"show-portals", FALSE}, {"show-leak", TRUE},       {"show-pvs", FALSE},
    {"show-cluster", FALSE}, {"show-entities", TRUE},   {"show-tools", TRUE},
    {"show-splits", FALSE},  {"light-radii-2d", FALSE}, {"light-radii-3d", FALSE},
    {"wireframe", FALSE},    {"pvs-culling", TRUE},     {"lighting", TRUE},
    {"textures", TRUE},      {"textures-2d", FALSE},
};

static GParamSpec *properties[N_PROPS];

/* --- static helpers ------------------------------------------------------------------ */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int parse_grid_sizes(const char *text, double *out, int max)
{
    int n = 0;
    g_auto(GStrv) words = g_strsplit_set(text ? text : "", " ,;\t", -1);
    for (int i = 0; words[i] && n < max; i++) {
        if (!*words[i]) continue;
        char *end = NULL;
        double v = g_ascii_strtod(words[i], &end);
        if (end && *end == '\0' && v >= 0.125 && v <= 8192) out[n++] = v;
    }
    qsort(out, (size_t) n, sizeof *out, compare_doubles);
    int unique = 0;
    for (int i = 0; i < n; i++)
        if (unique == 0 || out[unique - 1] != out[i]) out[unique++] = out[i];
    return unique;
}

static void load_file(AlliumPreferences *self)
{
    g_autoptr(GKeyFile) file = g_key_file_new();
    if (!g_key_file_load_from_file(file, self->path, G_KEY_FILE_NONE, NULL)) return;

    self->loading = TRUE;
    for (int p = 1; p < N_PROPS; p++) {
        const char *key = g_param_spec_get_name(properties[p]);
        if (!g_key_file_has_key(file, GROUP, key, NULL)) continue;
        GType type = G_PARAM_SPEC_VALUE_TYPE(properties[p]);
        GError *error = NULL;
        if (type == G_TYPE_BOOLEAN) {
            gboolean v = g_key_file_get_boolean(file, GROUP, key, &error);
            if (!error) g_object_set(self, key, v, NULL);
        } else if (type == G_TYPE_DOUBLE) {
            double v = g_key_file_get_double(file, GROUP, key, &error);
            GParamSpecDouble *spec = G_PARAM_SPEC_DOUBLE(properties[p]);
            if (!error && isfinite(v))
                g_object_set(self, key, CLAMP(v, spec->minimum, spec->maximum), NULL);
        } else if (type == G_TYPE_STRING) {
            g_autofree char *v = g_key_file_get_string(file, GROUP, key, &error);
            if (!error) g_object_set(self, key, v, NULL);
        }
        g_clear_error(&error);
    }
    self->loading = FALSE;
}

static gboolean save_cb(gpointer data)
{
    AlliumPreferences *self = data;
    self->save_source = 0;
    GError *error = NULL;
    if (!allium_preferences_save(self, &error)) {
        /* Nowhere better to say it: the settings stay in effect for this session. */
        g_warning("%s", error->message);
        g_error_free(error);
    }
    return G_SOURCE_REMOVE;
}

static void schedule_save(AlliumPreferences *self)
{
    if (self->loading || self->save_source) return;
    self->save_source = g_timeout_add(300, save_cb, self);
}

static void set_string(char **field, const char *value)
{
    g_free(*field);
    *field = g_strdup(value);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_preferences_finalize(GObject *object)
{
    AlliumPreferences *self = ALLIUM_PREFERENCES(object);
    if (self->save_source) {
        g_source_remove(self->save_source);
        save_cb(self);
    }
    g_free(self->path);
    g_free(self->grid_sizes);
    g_free(self->background);
    g_free(self->last_document);
    g_free(self->entity_definitions);
    g_free(self->texture_folders);
    g_free(self->engine);
    g_free(self->game_folder);
    g_free(self->game_mod);
    g_free(self->engine_arguments);
    g_free(self->export_folder);
    g_free(self->prefab_folder);
    G_OBJECT_CLASS(allium_preferences_parent_class)->finalize(object);
}

static void allium_preferences_get_property(GObject *object, guint prop_id, GValue *value,
                                            GParamSpec *pspec)
{
    AlliumPreferences *self = ALLIUM_PREFERENCES(object);
    switch (prop_id) {
    case PROP_GRID_SIZES:
        g_value_set_string(value, self->grid_sizes);
        break;
    case PROP_GRID_SIZE:
        g_value_set_double(value, self->grid_size);
        break;
    case PROP_MOUSE_SENSITIVITY:
        g_value_set_double(value, self->mouse_sensitivity);
        break;
    case PROP_INVERT_Y:
        g_value_set_boolean(value, self->invert_y);
        break;
    case PROP_BACKGROUND:
        g_value_set_string(value, self->background);
        break;
    case PROP_FLY_SPEED:
        g_value_set_double(value, self->fly_speed);
        break;
    case PROP_ROTATION_SNAP:
        g_value_set_double(value, self->rotation_snap);
        break;
    case PROP_LAST_DOCUMENT:
        g_value_set_string(value, self->last_document);
        break;
    case PROP_TEXTURE_LOCK:
        g_value_set_boolean(value, self->texture_lock);
        break;
    case PROP_ENTITY_DEFINITIONS:
        /* Empty, not NULL, when none is set: an entry bound to it cannot show NULL. */
        g_value_set_string(value, self->entity_definitions ? self->entity_definitions : "");
        break;
    case PROP_TEXTURE_FOLDERS:
        g_value_set_string(value, self->texture_folders);
        break;
    case PROP_ENGINE:
        g_value_set_string(value, self->engine);
        break;
    case PROP_GAME_FOLDER:
        g_value_set_string(value, self->game_folder);
        break;
    case PROP_GAME_MOD:
        g_value_set_string(value, self->game_mod);
        break;
    case PROP_ENGINE_ARGUMENTS:
        g_value_set_string(value, self->engine_arguments);
        break;
    case PROP_EXPORT_FOLDER:
        g_value_set_string(value, self->export_folder);
        break;
    case PROP_PREFAB_FOLDER:
        g_value_set_string(value, self->prefab_folder);
        break;
    default:
        if (prop_id >= PROP_FIRST_VIEW_TOGGLE && prop_id < N_PROPS)
            g_value_set_boolean(value, self->view_toggles[prop_id - PROP_FIRST_VIEW_TOGGLE]);
        else
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void allium_preferences_set_property(GObject *object, guint prop_id, const GValue *value,
                                            GParamSpec *pspec)
{
    AlliumPreferences *self = ALLIUM_PREFERENCES(object);
    switch (prop_id) {
    case PROP_GRID_SIZES:
        set_string(&self->grid_sizes, g_value_get_string(value));
        break;
    case PROP_GRID_SIZE:
        self->grid_size = g_value_get_double(value);
        break;
    case PROP_MOUSE_SENSITIVITY:
        self->mouse_sensitivity = g_value_get_double(value);
        break;
    case PROP_INVERT_Y:
        self->invert_y = g_value_get_boolean(value);
        break;
    case PROP_TEXTURE_LOCK:
        self->texture_lock = g_value_get_boolean(value);
        break;
    case PROP_BACKGROUND: {
        GdkRGBA rgba;
        const char *text = g_value_get_string(value);
        /* A colour GDK cannot read keeps the previous one. */
        if (text && gdk_rgba_parse(&rgba, text)) set_string(&self->background, text);
        break;
    }
    case PROP_FLY_SPEED:
        self->fly_speed = g_value_get_double(value);
        break;
    case PROP_ROTATION_SNAP:
        self->rotation_snap = g_value_get_double(value);
        break;
    case PROP_LAST_DOCUMENT:
        set_string(&self->last_document, g_value_get_string(value));
        break;
    case PROP_ENTITY_DEFINITIONS:
        set_string(&self->entity_definitions, g_value_get_string(value));
        break;
    case PROP_TEXTURE_FOLDERS:
        set_string(&self->texture_folders, g_value_get_string(value));
        break;
    case PROP_ENGINE:
        set_string(&self->engine, g_value_get_string(value));
        break;
    case PROP_GAME_FOLDER:
        set_string(&self->game_folder, g_value_get_string(value));
        break;
    case PROP_GAME_MOD:
        set_string(&self->game_mod, g_value_get_string(value));
        break;
    case PROP_ENGINE_ARGUMENTS:
        set_string(&self->engine_arguments, g_value_get_string(value));
        break;
    case PROP_EXPORT_FOLDER:
        set_string(&self->export_folder, g_value_get_string(value));
        break;
    case PROP_PREFAB_FOLDER:
        set_string(&self->prefab_folder, g_value_get_string(value));
        break;
    default:
        if (prop_id >= PROP_FIRST_VIEW_TOGGLE && prop_id < N_PROPS) {
            self->view_toggles[prop_id - PROP_FIRST_VIEW_TOGGLE] = g_value_get_boolean(value);
            break;
        }
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        return;
    }
    schedule_save(self);
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_preferences_class_init(AlliumPreferencesClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->finalize = allium_preferences_finalize;
    object_class->get_property = allium_preferences_get_property;
    object_class->set_property = allium_preferences_set_property;

    const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    properties[PROP_GRID_SIZES] =
        g_param_spec_string("grid-sizes", NULL, NULL, DEFAULT_GRID_SIZES, flags);
    properties[PROP_GRID_SIZE] = g_param_spec_double("grid-size", NULL, NULL, 0.125, 8192, 16, flags);
    properties[PROP_MOUSE_SENSITIVITY] =
        g_param_spec_double("mouse-sensitivity", NULL, NULL, 0.05, 10, 1, flags);
    properties[PROP_INVERT_Y] = g_param_spec_boolean("invert-y", NULL, NULL, FALSE, flags);
    properties[PROP_BACKGROUND] = g_param_spec_string("background", NULL, NULL, "#1c1d21", flags);
    properties[PROP_FLY_SPEED] = g_param_spec_double("fly-speed", NULL, NULL, 16, 8192, 320, flags);
    properties[PROP_ROTATION_SNAP] =
        g_param_spec_double("rotation-snap", NULL, NULL, 0.5, 90, 15, flags);
    properties[PROP_LAST_DOCUMENT] = g_param_spec_string("last-document", NULL, NULL, NULL, flags);
    properties[PROP_TEXTURE_LOCK] = g_param_spec_boolean("texture-lock", NULL, NULL, TRUE, flags);
    /* Entity definition files (FGD or DEF) read after the bundled Quake file, separated by
     * ';', in the order a mod layers them. */
    properties[PROP_ENTITY_DEFINITIONS] =
        g_param_spec_string("entity-definitions", NULL, NULL, NULL, flags);
    properties[PROP_TEXTURE_FOLDERS] =
        g_param_spec_string("texture-folders", NULL, NULL, "", flags);
    /* Run in Engine: the engine's program, the game folder it runs in (its -basedir), the
     * mod folder under it, arguments added after the map's, and the folder the map is
     * exported to (empty: GAME/MOD/maps). */
    properties[PROP_ENGINE] = g_param_spec_string("engine", NULL, NULL, "", flags);
    properties[PROP_GAME_FOLDER] = g_param_spec_string("game-folder", NULL, NULL, "", flags);
    properties[PROP_GAME_MOD] = g_param_spec_string("game-mod", NULL, NULL, "id1", flags);
    properties[PROP_ENGINE_ARGUMENTS] =
        g_param_spec_string("engine-arguments", NULL, NULL, "", flags);
    properties[PROP_EXPORT_FOLDER] = g_param_spec_string("export-folder", NULL, NULL, "", flags);
    /* The folder Save Selection as Prefab writes to and the Prefabs page lists (empty: the
     * default, allium_preferences_dup_prefab_folder). */
    properties[PROP_PREFAB_FOLDER] = g_param_spec_string("prefab-folder", NULL, NULL, "", flags);
    for (int i = 0; i < ALLIUM_VIEW_TOGGLE_COUNT; i++)
        properties[PROP_FIRST_VIEW_TOGGLE + i] =
            g_param_spec_boolean(view_toggles[i].name, NULL, NULL, view_toggles[i].on, flags);
    g_object_class_install_properties(object_class, N_PROPS, properties);
}

static void allium_preferences_init(AlliumPreferences *self)
{
    self->grid_sizes = g_strdup(DEFAULT_GRID_SIZES);
    self->grid_size = 16;
    self->mouse_sensitivity = 1;
    self->background = g_strdup("#1c1d21");
    self->fly_speed = 320;
    self->texture_lock = TRUE;
    self->rotation_snap = 15;
    self->texture_folders = g_strdup("");
    self->engine = g_strdup("");
    self->game_folder = g_strdup("");
    self->game_mod = g_strdup("id1");
    self->engine_arguments = g_strdup("");
    self->export_folder = g_strdup("");
    self->prefab_folder = g_strdup("");
    for (int i = 0; i < ALLIUM_VIEW_TOGGLE_COUNT; i++) self->view_toggles[i] = view_toggles[i].on;
    self->path = g_build_filename(g_get_user_config_dir(), "allium", "settings.ini", NULL);
}

/* --- public API ---------------------------------------------------------------------- */

AlliumPreferences *allium_preferences_get_default(void)
{
    static AlliumPreferences *instance;
    if (!instance) {
        instance = g_object_new(ALLIUM_TYPE_PREFERENCES, NULL);
        load_file(instance);
    }
    return instance;
}

gboolean allium_preferences_save(AlliumPreferences *self, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), FALSE);
    g_autoptr(GKeyFile) file = g_key_file_new();
    /* Keep what other versions wrote that we do not know. */
    g_key_file_load_from_file(file, self->path, G_KEY_FILE_KEEP_COMMENTS, NULL);
    for (int p = 1; p < N_PROPS; p++) {
        const char *key = g_param_spec_get_name(properties[p]);
        GValue value = G_VALUE_INIT;
        g_value_init(&value, G_PARAM_SPEC_VALUE_TYPE(properties[p]));
        g_object_get_property(G_OBJECT(self), key, &value);
        if (G_VALUE_HOLDS_BOOLEAN(&value)) {
            g_key_file_set_boolean(file, GROUP, key, g_value_get_boolean(&value));
        } else if (G_VALUE_HOLDS_DOUBLE(&value)) {
            g_key_file_set_double(file, GROUP, key, g_value_get_double(&value));
        } else if (G_VALUE_HOLDS_STRING(&value)) {
            if (g_value_get_string(&value)) g_key_file_set_string(file, GROUP, key, g_value_get_string(&value));
            else g_key_file_remove_key(file, GROUP, key, NULL);
        }
        g_value_unset(&value);
    }
    g_autofree char *dir = g_path_get_dirname(self->path);
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
                    _("Cannot create the folder “%s”: %s"), dir, g_strerror(errno));
        return FALSE;
    }
    return g_key_file_save_to_file(file, self->path, error);
}

double allium_preferences_get_rotation_snap(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), 15);
    return self->rotation_snap;
}

double allium_preferences_get_grid_size(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), 16);
    return self->grid_size;
}

void allium_preferences_set_grid_size(AlliumPreferences *self, double size)
{
    g_return_if_fail(ALLIUM_IS_PREFERENCES(self));
    size = CLAMP(size, 0.125, 8192);
    if (size == self->grid_size) return;
    self->grid_size = size;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_GRID_SIZE]);
    schedule_save(self);
}

int allium_preferences_get_grid_sizes(AlliumPreferences *self, double *out, int max)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), 0);
    int n = parse_grid_sizes(self->grid_sizes, out, max);
    return n > 0 ? n : parse_grid_sizes(DEFAULT_GRID_SIZES, out, max);
}

void allium_preferences_step_grid(AlliumPreferences *self, int direction)
{
    g_return_if_fail(ALLIUM_IS_PREFERENCES(self));
    double sizes[64];
    int n = allium_preferences_get_grid_sizes(self, sizes, G_N_ELEMENTS(sizes));
    double next = self->grid_size;
    if (direction < 0) {
        /* The largest listed size below the current one; the smallest if none is. */
        next = sizes[0];
        for (int i = 0; i < n; i++)
            if (sizes[i] < self->grid_size) next = sizes[i];
    } else {
        next = sizes[n - 1];
        for (int i = n - 1; i >= 0; i--)
            if (sizes[i] > self->grid_size) next = sizes[i];
    }
    allium_preferences_set_grid_size(self, next);
}

double allium_preferences_get_mouse_sensitivity(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), 1);
    return self->mouse_sensitivity;
}

gboolean allium_preferences_get_texture_lock(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), TRUE);
    return self->texture_lock;
}

gboolean allium_preferences_get_invert_y(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), FALSE);
    return self->invert_y;
}

double allium_preferences_get_fly_speed(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), 320);
    return self->fly_speed;
}

void allium_preferences_set_fly_speed(AlliumPreferences *self, double speed)
{
    g_return_if_fail(ALLIUM_IS_PREFERENCES(self));
    GParamSpecDouble *spec = G_PARAM_SPEC_DOUBLE(properties[PROP_FLY_SPEED]);
    speed = CLAMP(speed, spec->minimum, spec->maximum);
    if (speed == self->fly_speed) return;
    self->fly_speed = speed;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_FLY_SPEED]);
    schedule_save(self);
}

void allium_preferences_get_background(AlliumPreferences *self, GdkRGBA *colour)
{
    g_return_if_fail(ALLIUM_IS_PREFERENCES(self));
    if (!gdk_rgba_parse(colour, self->background)) gdk_rgba_parse(colour, "#1c1d21");
}

const char *allium_preferences_get_entity_definitions(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), NULL);
    return self->entity_definitions;
}

const char *allium_preferences_get_last_document(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), NULL);
    return self->last_document;
}

void allium_preferences_set_last_document(AlliumPreferences *self, const char *path)
{
    g_return_if_fail(ALLIUM_IS_PREFERENCES(self));
    if (g_strcmp0(path, self->last_document) == 0) return;
    set_string(&self->last_document, path);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LAST_DOCUMENT]);
    schedule_save(self);
}

char **allium_preferences_dup_texture_folders(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), NULL);
    g_auto(GStrv) parts = g_strsplit(self->texture_folders ? self->texture_folders : "", ";", -1);
    GPtrArray *out = g_ptr_array_new();
    for (char **p = parts; *p; p++) {
        g_autofree char *folder = g_strstrip(g_strdup(*p));
        if (folder[0]) g_ptr_array_add(out, g_steal_pointer(&folder));
    }
    g_ptr_array_add(out, NULL);
    return (char **) g_ptr_array_free(out, FALSE);
}

char *allium_preferences_dup_prefab_folder(AlliumPreferences *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFERENCES(self), NULL);
    g_autofree char *chosen = g_strstrip(g_strdup(self->prefab_folder ? self->prefab_folder : ""));
    if (chosen[0]) return g_steal_pointer(&chosen);
    return g_build_filename(g_get_user_data_dir(), "allium", "prefabs", NULL);
}

const char *allium_preferences_view_toggle_name(int i)
{
    g_return_val_if_fail(i >= 0 && i < ALLIUM_VIEW_TOGGLE_COUNT, NULL);
    return view_toggles[i].name;
}
