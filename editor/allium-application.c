/* AlliumApplication (see allium-application.h): windows, opening and importing files,
 * the recent files menu, the application's actions and dialogs, and the command line.
 *
 * Opening is asynchronous where it can take long: a .map import runs on a worker thread
 * (a large map takes a few hundred milliseconds); opening a document reads and checks its
 * header and runs SQLite's quick check on the main thread (tens of milliseconds), and its
 * compile runs on the document's worker.
 */
#include "allium-config.h"

#include "allium-application.h"

#include "allium-benchmark.h"
#include "allium-map-files.h"
#include "allium-preferences-window.h"
#include "allium-preferences.h"
#include "allium-print-labels.h"
#include "allium-self-test.h"
#include "allium-window-private.h"

#include <epoxy/gl.h>
#include <glib/gi18n.h>
#include <string.h>

#define RECENT_LIMIT 8

struct _AlliumApplication {
    GtkApplication parent_instance;

    /* owned references */
    GMenu *recent_menu;   /* the "Open Recent" items, shared by every window */
    char *self_test_dir;  /* --self-test DIR */
    char *import_dir;     /* where .map files from read-only folders go; NULL: default */
    int benchmark_count;  /* --benchmark-frames, -edits or -drag N; 0: not benchmarking */
    AlliumBenchmarkKind benchmark_kind;
    gboolean print_labels; /* --print-labels (the translation test) */

    /* borrowed references */
    GtkRecentManager *recent;
    GtkWindow *preferences; /* weak */

    gint64 started_us;
    int exit_status;
};

G_DEFINE_TYPE(AlliumApplication, allium_application, GTK_TYPE_APPLICATION)

typedef struct {
    AlliumApplication *app; /* owned */
    AlliumWindow *origin;   /* owned, may be NULL */
    char *map_path;
} ImportRequest;

/* --- static helpers ------------------------------------------------------------------ */

static GtkWindow *active_window(AlliumApplication *self)
{
    return gtk_application_get_active_window(GTK_APPLICATION(self));
}

static AlliumWindow *active_allium_window(AlliumApplication *self)
{
    GtkWindow *window = active_window(self);
    return ALLIUM_IS_WINDOW(window) ? ALLIUM_WINDOW(window) : NULL;
}

/* The window to show an error in: ORIGIN, else a new, empty one. */
static AlliumWindow *window_for_error(AlliumApplication *self, AlliumWindow *origin)
{
    AlliumWindow *window = origin ? origin : allium_window_new(GTK_APPLICATION(self));
    gtk_window_present(GTK_WINDOW(window));
    return window;
}

static void show_error(AlliumApplication *self, AlliumWindow *origin, const char *message)
{
    allium_window_show_banner(window_for_error(self, origin), GTK_MESSAGE_ERROR, message);
}

static void import_request_free(ImportRequest *request)
{
    g_application_release(G_APPLICATION(request->app));
    g_object_unref(request->app);
    g_clear_object(&request->origin);
    g_free(request->map_path);
    g_free(request);
}

static gint compare_recent(gconstpointer a, gconstpointer b)
{
    GtkRecentInfo *x = *(GtkRecentInfo **) a, *y = *(GtkRecentInfo **) b;
    /* Newest first. */
    return g_date_time_compare(gtk_recent_info_get_modified(y), gtk_recent_info_get_modified(x));
}

static void rebuild_recent_menu(AlliumApplication *self)
{
    g_menu_remove_all(self->recent_menu);
    GList *items = gtk_recent_manager_get_items(self->recent);
    GPtrArray *maps = g_ptr_array_new();
    for (GList *l = items; l; l = l->next) {
        GtkRecentInfo *info = l->data;
        const char *uri = gtk_recent_info_get_uri(info);
        if (g_str_has_suffix(uri, ".allium") && gtk_recent_info_is_local(info) &&
            gtk_recent_info_exists(info))
            g_ptr_array_add(maps, info);
    }
    g_ptr_array_sort(maps, compare_recent);
    for (guint i = 0; i < maps->len && i < RECENT_LIMIT; i++) {
        GtkRecentInfo *info = g_ptr_array_index(maps, i);
        g_autofree char *path = g_filename_from_uri(gtk_recent_info_get_uri(info), NULL, NULL);
        if (!path) continue;
        g_autofree char *name = g_filename_display_basename(path);
        /* Menus take '_' as a mnemonic mark. */
        g_auto(GStrv) parts = g_strsplit(name, "_", -1);
        g_autofree char *label = g_strjoinv("__", parts);
        GMenuItem *item = g_menu_item_new(label, NULL);
        g_menu_item_set_action_and_target_value(item, "app.open-recent",
                                                g_variant_new_string(path));
        g_menu_append_item(self->recent_menu, item);
        g_object_unref(item);
    }
    if (g_menu_model_get_n_items(G_MENU_MODEL(self->recent_menu)) == 0)
        g_menu_append(self->recent_menu, _("No Recent Maps"), "app.no-recent");
    g_ptr_array_unref(maps);
    g_list_free_full(items, (GDestroyNotify) gtk_recent_info_unref);
}

static void remember_document(AlliumApplication *self, const char *path)
{
    g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
    if (uri) gtk_recent_manager_add_item(self->recent, uri);
    allium_preferences_set_last_document(allium_preferences_get_default(), path);
}

static GtkFileFilter *new_filter(const char *name, const char *const *suffixes)
{
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, name);
    for (int i = 0; suffixes[i]; i++) gtk_file_filter_add_suffix(filter, suffixes[i]);
    return filter;
}

static void add_filter(GtkFileChooser *chooser, GtkFileFilter *filter)
{
    gtk_file_chooser_add_filter(chooser, filter);
    g_object_unref(filter);
}

/* The folder of the active window's map, where a designer most likely looks next. */
static void set_chooser_folder(AlliumApplication *self, GtkFileChooser *chooser)
{
    AlliumWindow *window = active_allium_window(self);
    AlliumDocument *doc = window ? allium_window_get_document(window) : NULL;
    if (!doc) return;
    g_autofree char *dir = g_path_get_dirname(allium_document_get_path(doc));
    g_autoptr(GFile) folder = g_file_new_for_path(dir);
    gtk_file_chooser_set_current_folder(chooser, folder, NULL);
}

/* Opens the map given no file: the last one, else the bundled sample. */
static void open_default(AlliumApplication *self)
{
    const char *last = allium_preferences_get_last_document(allium_preferences_get_default());
    if (last && g_file_test(last, G_FILE_TEST_IS_REGULAR)) {
        allium_application_open_document(self, last, NULL, NULL);
        return;
    }
    g_autofree char *dir = allium_default_document_dir();
    g_autofree char *sample = g_build_filename(dir, "sample.allium", NULL);
    GError *error = NULL;
    if (!allium_prepare_sample(sample, &error)) {
        show_error(self, NULL, error->message);
        g_error_free(error);
        return;
    }
    allium_application_open_document(self, sample, NULL, NULL);
}

/* --- callbacks ----------------------------------------------------------------------- */

static void import_done_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    (void) source;
    ImportRequest *request = data;
    int warnings = 0;
    GError *error = NULL;
    g_autofree char *first_warning = NULL;
    g_autofree char *path = allium_import_map_finish(result, &warnings, &first_warning, &error);
    /* The window may have closed meanwhile. */
    GList *windows = gtk_application_get_windows(GTK_APPLICATION(request->app));
    AlliumWindow *origin = request->origin && g_list_find(windows, request->origin)
                               ? request->origin
                               : NULL;
    if (!path) {
        show_error(request->app, origin, error->message);
        g_error_free(error);
    } else {
        g_autofree char *from = g_filename_display_basename(request->map_path);
        g_autofree char *to = g_filename_display_name(path);
        /* The first warning is named: an empty file, a brush the compiler will refuse. */
        g_autofree char *note =
            warnings && first_warning
                ? g_strdup_printf(g_dngettext(GETTEXT_PACKAGE,
                                              "Imported %s into %s (%d warning: %s)",
                                              "Imported %s into %s (%d warnings; the first: %s)",
                                              (gulong) warnings),
                                  from, to, warnings, first_warning)
                : g_strdup_printf(_("Imported %s into %s"), from, to);
        allium_application_open_document(request->app, path, origin, note);
    }
    import_request_free(request);
}

static void recent_changed_cb(GtkRecentManager *manager, AlliumApplication *self)
{
    (void) manager;
    rebuild_recent_menu(self);
}

static void open_response_cb(GtkNativeDialog *dialog, int response, AlliumApplication *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        GListModel *files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
        AlliumWindow *origin = active_allium_window(self);
        for (guint i = 0; i < g_list_model_get_n_items(files); i++) {
            GFile *file = g_list_model_get_item(files, i);
            allium_application_open_file(self, file, origin);
            g_object_unref(file);
        }
        g_object_unref(files);
    }
    g_object_unref(dialog);
}

gboolean allium_application_new_map(AlliumApplication *self, const char *path)
{
    AlliumWindow *origin = active_allium_window(self);
    al_doc *doc = NULL;
    al_diag_list diags = {0};
    al_status st = path ? al_doc_create(path, &doc, &diags) : AL_ERR_IO;
    al_doc_close(doc);
    if (st == AL_OK) {
        allium_application_open_document(self, path, origin, NULL);
    } else {
        /* Never replace an existing map, even when the chooser asked: it has history. */
        GError *error = NULL;
        g_autofree char *name = path ? g_filename_display_basename(path) : g_strdup("?");
        allium_set_status_error(&error, st, &diags, name);
        show_error(self, origin, error->message);
        g_error_free(error);
    }
    al_diag_list_clear(&diags);
    return st == AL_OK;
}

static void new_response_cb(GtkNativeDialog *dialog, int response, AlliumApplication *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        if (path && !g_str_has_suffix(path, ".allium")) {
            char *with_suffix = g_strconcat(path, ".allium", NULL);
            g_free(path);
            path = with_suffix;
        }
        allium_application_new_map(self, path);
    }
    g_object_unref(dialog);
}

static void show_chooser(AlliumApplication *self, const char *title, GtkFileChooserAction action,
                         const char *accept, gboolean maps_only, GCallback response)
{
    GtkFileChooserNative *native =
        gtk_file_chooser_native_new(title, active_window(self), action, accept, _("_Cancel"));
    GtkFileChooser *chooser = GTK_FILE_CHOOSER(native);
    if (action == GTK_FILE_CHOOSER_ACTION_OPEN) {
        gtk_file_chooser_set_select_multiple(chooser, TRUE);
        if (!maps_only)
            add_filter(chooser, new_filter(_("Maps (*.allium, *.map)"),
                                           (const char *const[]){"allium", "map", NULL}));
        add_filter(chooser, new_filter(_("Quake maps (*.map)"), (const char *const[]){"map", NULL}));
        if (!maps_only)
            add_filter(chooser, new_filter(_("Allium maps (*.allium)"),
                                           (const char *const[]){"allium", NULL}));
    } else {
        add_filter(chooser, new_filter(_("Allium maps (*.allium)"),
                                       (const char *const[]){"allium", NULL}));
        gtk_file_chooser_set_current_name(chooser, _("untitled.allium"));
    }
    set_chooser_folder(self, chooser);
    g_signal_connect(native, "response", response, self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(native));
}

static void new_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    show_chooser(data, _("New Map"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Create"), FALSE,
                 G_CALLBACK(new_response_cb));
}

static void open_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    show_chooser(data, _("Open Map"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), FALSE,
                 G_CALLBACK(open_response_cb));
}

static void import_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    show_chooser(data, _("Import Quake Map"), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), TRUE,
                 G_CALLBACK(open_response_cb));
}

static void open_recent_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    AlliumApplication *self = data;
    allium_application_open_document(self, g_variant_get_string(parameter, NULL),
                                     active_allium_window(self), NULL);
}

static void preferences_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    AlliumApplication *self = data;
    if (!self->preferences) {
        self->preferences = GTK_WINDOW(allium_preferences_window_new(active_window(self)));
        g_object_add_weak_pointer(G_OBJECT(self->preferences), (gpointer *) &self->preferences);
    }
    gtk_window_present(self->preferences);
}

static void shortcuts_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    AlliumApplication *self = data;
    GtkBuilder *builder = gtk_builder_new_from_resource("/org/allium/Allium/ui/allium-shortcuts.ui");
    GtkWindow *window = GTK_WINDOW(gtk_builder_get_object(builder, "shortcuts_window"));
    /* GtkBuilder cannot name an icon for the mouse controls (a GIcon): set it here. */
    GIcon *mouse = g_themed_icon_new("input-mouse-symbolic");
    GSList *objects = gtk_builder_get_objects(builder);
    for (GSList *l = objects; l; l = l->next) {
        if (!GTK_IS_SHORTCUTS_SHORTCUT(l->data)) continue;
        GtkShortcutType type;
        g_object_get(l->data, "shortcut-type", &type, NULL);
        if (type == GTK_SHORTCUT_GESTURE) g_object_set(l->data, "icon", mouse, NULL);
    }
    g_slist_free(objects);
    g_object_unref(mouse);
    gtk_window_set_transient_for(window, active_window(self));
    gtk_window_present(window);
    g_object_unref(builder);
}

static void about_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    AlliumApplication *self = data;
    const char *authors[] = {_("The Allium developers"), NULL};
    gtk_show_about_dialog(active_window(self), "program-name", _("Allium"), "version",
                          ALLIUM_VERSION, "logo-icon-name", ALLIUM_APP_ID, "comments",
                          _("A level editor for Quake-style brush maps in which the map is "
                            "always compiled: collision, visibility and light follow every "
                            "edit."),
                          "authors", authors, "translator-credits", _("translator-credits"),
                          NULL);
}

static void quit_action_cb(GSimpleAction *action, GVariant *parameter, gpointer data)
{
    (void) action;
    (void) parameter;
    AlliumApplication *self = data;
    /* Closing the windows closes their maps (and their locks) properly. */
    GList *windows = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(self)));
    for (GList *l = windows; l; l = l->next) gtk_window_destroy(l->data);
    g_list_free(windows);
    g_application_quit(G_APPLICATION(self));
}

/* --- overrides ----------------------------------------------------------------------- */

static const GActionEntry app_actions[] = {
    {"new", new_action_cb, NULL, NULL, NULL, {0}},
    {"open", open_action_cb, NULL, NULL, NULL, {0}},
    {"import", import_action_cb, NULL, NULL, NULL, {0}},
    {"open-recent", open_recent_action_cb, "s", NULL, NULL, {0}},
    {"no-recent", NULL, NULL, NULL, NULL, {0}},
    {"preferences", preferences_action_cb, NULL, NULL, NULL, {0}},
    {"shortcuts", shortcuts_action_cb, NULL, NULL, NULL, {0}},
    {"about", about_action_cb, NULL, NULL, NULL, {0}},
    {"quit", quit_action_cb, NULL, NULL, NULL, {0}},
};

/* On software OpenGL (Mesa's llvmpipe: machines without a GPU, Xvfb) the views draw
 * quickly, but GTK's OpenGL renderer then spends most of each frame composing the whole
 * window: the 209-face sample map is shown every 39 ms although its view draws in 6 ms,
 * against every 17.5 ms with GTK's cairo renderer; e1m1 while edits recompile, every 54
 * against 27 ms (allium --benchmark-frames / --benchmark-edits, frame_interval_ms). So
 * there the window is composed with cairo (the views still draw with OpenGL), unless
 * GSK_RENDERER chooses. GTK reads GSK_RENDERER when it makes the first window's renderer,
 * which is after this (no window exists yet). */
static void prefer_cairo_on_software_gl(void)
{
    GdkDisplay *display = gdk_display_get_default();
    if (g_getenv("GSK_RENDERER") || !display) return;
    GError *error = NULL;
    GdkGLContext *context = gdk_display_create_gl_context(display, &error);
    gboolean software = FALSE;
    if (context && gdk_gl_context_realize(context, &error)) {
        gdk_gl_context_make_current(context);
        const char *renderer = (const char *) glGetString(GL_RENDERER);
        software = renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") ||
                                strstr(renderer, "Software Rasterizer"));
        gdk_gl_context_clear_current();
    }
    g_clear_error(&error);
    g_clear_object(&context);
    if (software) g_setenv("GSK_RENDERER", "cairo", FALSE);
}

static void allium_application_startup(GApplication *application)
{
    AlliumApplication *self = ALLIUM_APPLICATION(application);
    G_APPLICATION_CLASS(allium_application_parent_class)->startup(application);
    prefer_cairo_on_software_gl();

    /* Level editors are used for hours next to dark 3D views. */
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", TRUE, NULL);
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_resource(css, "/org/allium/Allium/ui/style.css");
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(css);
    gtk_window_set_default_icon_name(ALLIUM_APP_ID);

    g_action_map_add_action_entries(G_ACTION_MAP(self), app_actions, G_N_ELEMENTS(app_actions), self);
    GAction *no_recent = g_action_map_lookup_action(G_ACTION_MAP(self), "no-recent");
    g_simple_action_set_enabled(G_SIMPLE_ACTION(no_recent), FALSE);

    static const struct {
        const char *action;
        const char *accels[3];
    } accels[] = {
        {"app.new", {"<Control>n", NULL}},
        {"app.open", {"<Control>o", NULL}},
        {"app.import", {"<Control>i", NULL}},
        {"app.quit", {"<Control>q", NULL}},
        {"app.preferences", {"<Control>comma", NULL}},
        {"app.shortcuts", {"<Control>question", "<Control>F1", NULL}},
    };
    for (guint i = 0; i < G_N_ELEMENTS(accels); i++)
        gtk_application_set_accels_for_action(GTK_APPLICATION(self), accels[i].action,
                                              accels[i].accels);

    self->recent = gtk_recent_manager_get_default();
    g_signal_connect(self->recent, "changed", G_CALLBACK(recent_changed_cb), self);
    rebuild_recent_menu(self);
}

static void allium_application_shutdown(GApplication *application)
{
    AlliumApplication *self = ALLIUM_APPLICATION(application);
    if (self->recent) g_signal_handlers_disconnect_by_data(self->recent, self);
    GError *error = NULL;
    if (!allium_preferences_save(allium_preferences_get_default(), &error)) {
        g_warning("%s", error->message);
        g_error_free(error);
    }
    G_APPLICATION_CLASS(allium_application_parent_class)->shutdown(application);
}

static gint allium_application_handle_local_options(GApplication *application,
                                                    GVariantDict *options)
{
    AlliumApplication *self = ALLIUM_APPLICATION(application);
    const char *dir = NULL;
    if (g_variant_dict_lookup(options, "self-test", "^&ay", &dir))
        self->self_test_dir = g_canonicalize_filename(dir, NULL);
    static const struct {
        const char *option;
        AlliumBenchmarkKind kind;
    } benchmarks[] = {{"benchmark-frames", ALLIUM_BENCHMARK_FRAMES},
                      {"benchmark-edits", ALLIUM_BENCHMARK_EDITS},
                      {"benchmark-drag", ALLIUM_BENCHMARK_DRAG}};
    for (guint i = 0; i < G_N_ELEMENTS(benchmarks); i++) {
        int count = 0;
        if (!g_variant_dict_lookup(options, benchmarks[i].option, "i", &count)) continue;
        if (count < 1) {
            g_printerr(_("--%s needs a positive number\n"), benchmarks[i].option);
            return 2;
        }
        self->benchmark_kind = benchmarks[i].kind;
        self->benchmark_count = count;
    }
    self->print_labels = g_variant_dict_contains(options, "print-labels");
    if (g_variant_dict_contains(options, "version")) {
        g_print("allium %s\n", ALLIUM_VERSION);
        return 0;
    }
    return -1;
}

static void allium_application_activate(GApplication *application)
{
    AlliumApplication *self = ALLIUM_APPLICATION(application);
    if (self->self_test_dir) {
        allium_self_test_start(self, self->self_test_dir);
    } else if (self->print_labels) {
        allium_print_labels_start(self);
    } else if (self->benchmark_count > 0) {
        g_printerr("%s\n", _("usage: allium --benchmark-frames N MAP, allium --benchmark-edits N "
                             "MAP, allium --benchmark-drag N MAP"));
        self->exit_status = 2;
    } else {
        open_default(self);
    }
}

static void allium_application_open(GApplication *application, GFile **files, gint n_files,
                                    const gchar *hint)
{
    (void) hint;
    AlliumApplication *self = ALLIUM_APPLICATION(application);
    if (self->benchmark_count > 0) {
        allium_benchmark_start(self, self->benchmark_kind, self->benchmark_count, files[0]);
        return;
    }
    if (self->self_test_dir) {
        allium_self_test_start(self, self->self_test_dir);
        return;
    }
    for (int i = 0; i < n_files; i++) allium_application_open_file(self, files[i], NULL);
}

static void allium_application_finalize(GObject *object)
{
    AlliumApplication *self = ALLIUM_APPLICATION(object);
    g_clear_object(&self->recent_menu);
    g_free(self->self_test_dir);
    g_free(self->import_dir);
    G_OBJECT_CLASS(allium_application_parent_class)->finalize(object);
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_application_class_init(AlliumApplicationClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GApplicationClass *app_class = G_APPLICATION_CLASS(klass);
    object_class->finalize = allium_application_finalize;
    app_class->startup = allium_application_startup;
    app_class->shutdown = allium_application_shutdown;
    app_class->activate = allium_application_activate;
    app_class->open = allium_application_open;
    app_class->handle_local_options = allium_application_handle_local_options;
}

static void allium_application_init(AlliumApplication *self)
{
    self->recent_menu = g_menu_new();
    static const GOptionEntry options[] = {
        {"self-test", 0, 0, G_OPTION_ARG_FILENAME, NULL,
         N_("Run the GUI self-test, writing screenshots into DIR"), N_("DIR")},
        {"benchmark-frames", 0, 0, G_OPTION_ARG_INT, NULL,
         N_("Open MAP, draw N frames in the 3D view and print the timings as JSON"), N_("N")},
        {"benchmark-edits", 0, 0, G_OPTION_ARG_INT, NULL,
         N_("Open MAP, move N brushes one at a time and print the time from each edit to the "
            "frames showing its collision and its light, as JSON"),
         N_("N")},
        {"benchmark-drag", 0, 0, G_OPTION_ARG_INT, NULL,
         N_("Open MAP, drag a brush for N frames and print how far the collision shown lags "
            "behind the pointer, as JSON"),
         N_("N")},
        {"version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL},
        /* For the translation test; not for users, so neither in --help nor translated. */
        {"print-labels", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, NULL,
         "Open an empty window, print the text of its labels and quit", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    g_application_add_main_option_entries(G_APPLICATION(self), options);
    g_application_set_option_context_parameter_string(G_APPLICATION(self), _("[FILE…]"));
}

/* --- public API ---------------------------------------------------------------------- */

AlliumApplication *allium_application_new(gint64 started_us)
{
    AlliumApplication *self =
        g_object_new(ALLIUM_TYPE_APPLICATION, "application-id", ALLIUM_APP_ID, "flags",
                     G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
    self->started_us = started_us;
    return self;
}

gint64 allium_application_get_started_us(AlliumApplication *self)
{
    g_return_val_if_fail(ALLIUM_IS_APPLICATION(self), 0);
    return self->started_us;
}

void allium_application_open_file(AlliumApplication *self, GFile *file, AlliumWindow *origin)
{
    g_return_if_fail(ALLIUM_IS_APPLICATION(self));
    g_return_if_fail(G_IS_FILE(file));
    g_autofree char *path = g_file_get_path(file);
    if (!path) {
        g_autofree char *uri = g_file_get_uri(file);
        g_autofree char *text = g_strdup_printf(_("Cannot open %s: only local files can be opened"), uri);
        show_error(self, origin, text);
        return;
    }
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
        g_autofree char *name = g_filename_display_name(path);
        g_autofree char *text = g_strdup_printf(_("Cannot open %s: there is no such file"), name);
        show_error(self, origin, text);
        return;
    }
    if (allium_path_is_document(path)) {
        allium_application_open_document(self, path, origin, NULL);
        return;
    }
    /* Nothing else may keep the application running until the import is done (the
     * command line's files come before any window). */
    g_application_hold(G_APPLICATION(self));
    ImportRequest *request = g_new0(ImportRequest, 1);
    request->app = g_object_ref(self);
    request->origin = origin ? g_object_ref(origin) : NULL;
    request->map_path = g_strdup(path);
    allium_import_map_async(path, self->import_dir, NULL, import_done_cb, request);
}

void allium_application_open_document(AlliumApplication *self, const char *path,
                                      AlliumWindow *origin, const char *note)
{
    g_return_if_fail(ALLIUM_IS_APPLICATION(self));
    g_autofree char *canonical = g_canonicalize_filename(path, NULL);

    AlliumWindow *window = allium_application_find_window(self, canonical);
    if (window) {
        if (note) allium_window_show_banner(window, GTK_MESSAGE_INFO, note);
        gtk_window_present(GTK_WINDOW(window));
        return;
    }

    GError *error = NULL;
    g_autoptr(AlliumDocument) document = allium_document_open(canonical, &error);
    if (!document) {
        show_error(self, origin, error->message);
        g_error_free(error);
        return;
    }

    window = origin && !allium_window_get_document(origin) ? origin
                                                           : allium_window_new(GTK_APPLICATION(self));
    allium_window_set_document(window, document);
    gtk_window_present(GTK_WINDOW(window));

    const char *reason = allium_document_get_read_only_reason(document);
    if (reason) {
        g_autofree char *text = note ? g_strdup_printf(_("%s. Opened read-only: %s"), note, reason)
                                     : g_strdup_printf(_("Opened read-only: %s"), reason);
        allium_window_show_banner(window, GTK_MESSAGE_WARNING, text);
    } else if (note) {
        allium_window_show_banner(window, GTK_MESSAGE_INFO, note);
    } else {
        allium_window_hide_banner(window);
    }
    remember_document(self, canonical);
}

AlliumWindow *allium_application_find_window(AlliumApplication *self, const char *path)
{
    g_return_val_if_fail(ALLIUM_IS_APPLICATION(self), NULL);
    g_autofree char *canonical = g_canonicalize_filename(path, NULL);
    for (GList *l = gtk_application_get_windows(GTK_APPLICATION(self)); l; l = l->next) {
        if (!ALLIUM_IS_WINDOW(l->data)) continue;
        AlliumDocument *doc = allium_window_get_document(l->data);
        if (doc && g_strcmp0(allium_document_get_path(doc), canonical) == 0) return l->data;
    }
    return NULL;
}

void allium_application_set_import_dir(AlliumApplication *self, const char *dir)
{
    g_return_if_fail(ALLIUM_IS_APPLICATION(self));
    g_free(self->import_dir);
    self->import_dir = g_strdup(dir);
}

GMenuModel *allium_application_get_recent_menu(AlliumApplication *self)
{
    g_return_val_if_fail(ALLIUM_IS_APPLICATION(self), NULL);
    return G_MENU_MODEL(self->recent_menu);
}

void allium_application_set_exit_status(AlliumApplication *self, int status)
{
    g_return_if_fail(ALLIUM_IS_APPLICATION(self));
    self->exit_status = status;
}

int allium_application_get_exit_status(AlliumApplication *self)
{
    g_return_val_if_fail(ALLIUM_IS_APPLICATION(self), 1);
    return self->exit_status;
}
