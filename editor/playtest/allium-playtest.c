/* Run in Engine (see allium-playtest.h). */
#include "allium-config.h"

#include "allium-playtest.h"
#include "allium-map-files.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <string.h>

/* The lines of the engine's output kept for a report when it stops with an error. */
#define TAIL_LINES 3

void allium_playtest_free(AlliumPlaytest *plan)
{
    if (!plan) return;
    g_strfreev(plan->argv);
    g_free(plan->game);
    g_free(plan->bsp);
    g_free(plan->map_name);
    g_free(plan);
}

static gboolean fail(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);
static gboolean fail(GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *text = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, text);
    return FALSE;
}

/* The console's name of the map: the document's file name without its suffix, in lower
 * case, anything but letters, digits and '_' made '_'. */
static char *map_name_of(const char *document_path)
{
    g_autofree char *base = g_path_get_basename(document_path);
    char *dot = strrchr(base, '.');
    if (dot && dot != base) *dot = '\0';
    GString *name = g_string_new(NULL);
    for (const char *c = base; *c; c++)
        g_string_append_c(name, g_ascii_isalnum(*c) ? g_ascii_tolower(*c) : '_');
    if (name->len == 0) g_string_append(name, "map");
    return g_string_free(name, FALSE);
}

AlliumPlaytest *allium_playtest_plan(AlliumPreferences *prefs, const char *document_path,
                                     GError **error)
{
    g_autofree char *engine = NULL, *game = NULL, *mod = NULL, *arguments = NULL,
                    *export_folder = NULL;
    g_object_get(prefs, "engine", &engine, "game-folder", &game, "game-mod", &mod,
                 "engine-arguments", &arguments, "export-folder", &export_folder, NULL);
    g_strstrip(engine);
    g_strstrip(game);
    g_strstrip(mod);
    g_strstrip(export_folder);
    if (!*engine) {
        fail(error, _("Run in Engine needs an engine: name its program in Preferences, under "
                      "Run in Engine"));
        return NULL;
    }
    /* A bare name is looked for on the PATH, as a shell would. */
    g_autofree char *program =
        strchr(engine, G_DIR_SEPARATOR) ? g_strdup(engine) : g_find_program_in_path(engine);
    if (!program || !g_file_test(program, G_FILE_TEST_IS_EXECUTABLE) ||
        g_file_test(program, G_FILE_TEST_IS_DIR)) {
        fail(error,
             _("The engine “%s” is not a program that can be run (Preferences, Run in "
               "Engine)"),
             engine);
        return NULL;
    }
    if (!*game || !g_file_test(game, G_FILE_TEST_IS_DIR)) {
        fail(error,
             _("The game folder “%s” does not exist: name the folder that holds id1 in "
               "Preferences, under Run in Engine"),
             game);
        return NULL;
    }
    if (!*mod) g_free(mod), mod = g_strdup("id1");
    if (strchr(mod, '/') || strchr(mod, '\\') || strcmp(mod, "..") == 0 || strcmp(mod, ".") == 0) {
        fail(error, _("The mod folder “%s” must be a folder's name within the game folder"), mod);
        return NULL;
    }
    g_auto(GStrv) extra = NULL;
    GError *parse_error = NULL;
    g_strstrip(arguments);
    if (*arguments && !g_shell_parse_argv(arguments, NULL, &extra, &parse_error)) {
        fail(error, _("The engine arguments cannot be read: %s"), parse_error->message);
        g_error_free(parse_error);
        return NULL;
    }

    AlliumPlaytest *plan = g_new0(AlliumPlaytest, 1);
    plan->game = g_steal_pointer(&game);
    plan->map_name = map_name_of(document_path);
    g_autofree char *folder =
        *export_folder ? g_strdup(export_folder) : g_build_filename(plan->game, mod, "maps", NULL);
    g_autofree char *file = g_strconcat(plan->map_name, ".bsp", NULL);
    plan->bsp = g_build_filename(folder, file, NULL);
    GStrvBuilder *argv = g_strv_builder_new();
    g_strv_builder_add(argv, program);
    g_strv_builder_add(argv, "-basedir");
    g_strv_builder_add(argv, plan->game);
    if (g_ascii_strcasecmp(mod, "id1") != 0) {
        g_strv_builder_add(argv, "-game");
        g_strv_builder_add(argv, mod);
    }
    g_strv_builder_add(argv, "+map");
    g_strv_builder_add(argv, plan->map_name);
    if (extra) g_strv_builder_addv(argv, (const char **) extra);
    plan->argv = g_strv_builder_end(argv);
    g_strv_builder_unref(argv);
    return plan;
}

/* --- a run ---------------------------------------------------------------------------- */

typedef struct {
    AlliumDocument *document; /* owned */
    AlliumPlaytest *plan;     /* owned */
    AlliumPlaytestReport report;
    GObject *user; /* owned */
    al_bsp_format format;
} Run;

static void run_free(Run *run)
{
    g_clear_object(&run->document);
    allium_playtest_free(run->plan);
    g_clear_object(&run->user);
    g_free(run);
}

static void say(Run *run, GtkMessageType type, const char *text)
{
    run->report(run->user, type, text);
}

/* The last few non-empty lines of OUTPUT, joined by " · ". */
static char *tail_of(const char *output)
{
    g_auto(GStrv) lines = g_strsplit(output ? output : "", "\n", -1);
    GPtrArray *kept = g_ptr_array_new();
    for (int i = (int) g_strv_length(lines) - 1; i >= 0 && kept->len < TAIL_LINES; i--) {
        g_strstrip(lines[i]);
        if (*lines[i]) g_ptr_array_insert(kept, 0, lines[i]);
    }
    g_ptr_array_add(kept, NULL);
    char *text = g_strjoinv(" · ", (char **) kept->pdata);
    g_ptr_array_free(kept, TRUE);
    return text;
}

static void engine_done_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    Run *run = data;
    GSubprocess *process = G_SUBPROCESS(source);
    g_autofree char *output = NULL;
    GError *error = NULL;
    if (!g_subprocess_communicate_utf8_finish(process, result, &output, NULL, &error)) {
        /* Output that is not UTF-8 (an engine's console may print anything) is not
         * worth a report; the exit status still is. */
        g_clear_error(&error);
        g_subprocess_wait(process, NULL, NULL);
    }
    g_autofree char *engine = g_path_get_basename(run->plan->argv[0]);
    g_autofree char *tail = tail_of(output);
    if (g_subprocess_get_if_signaled(process)) {
        g_autofree char *text =
            g_strdup_printf(_("The engine %s was stopped by signal %d%s%s"), engine,
                            g_subprocess_get_term_sig(process), *tail ? ": " : "", tail);
        say(run, GTK_MESSAGE_ERROR, text);
    } else if (g_subprocess_get_exit_status(process) != 0) {
        g_autofree char *text =
            g_strdup_printf(_("The engine %s stopped with status %d%s%s"), engine,
                            g_subprocess_get_exit_status(process), *tail ? ": " : "", tail);
        say(run, GTK_MESSAGE_ERROR, text);
    } else {
        g_autofree char *text = g_strdup_printf(_("The engine %s has closed"), engine);
        say(run, GTK_MESSAGE_INFO, text);
    }
    run_free(run);
}

static void start_engine(Run *run, int warnings, const char *first_warning)
{
    g_autoptr(GSubprocessLauncher) launcher =
        g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                  G_SUBPROCESS_FLAGS_STDERR_MERGE);
    g_subprocess_launcher_set_cwd(launcher, run->plan->game);
    GError *error = NULL;
    GSubprocess *process =
        g_subprocess_launcher_spawnv(launcher, (const char *const *) run->plan->argv, &error);
    if (!process) {
        g_autofree char *text =
            g_strdup_printf(_("The engine could not be started: %s"), error->message);
        say(run, GTK_MESSAGE_ERROR, text);
        g_error_free(error);
        run_free(run);
        return;
    }
    g_autofree char *engine = g_path_get_basename(run->plan->argv[0]);
    g_autofree char *text = NULL;
    if (run->format == AL_BSP2)
        text = g_strdup_printf(_("Running %s in %s (as BSP2: the map is past BSP29's limits, and "
                                 "only engines that read BSP2 load it)"),
                               run->plan->map_name, engine);
    else if (warnings)
        text = g_strdup_printf(ngettext("Running %s in %s; the export gave %d warning: %s",
                                        "Running %s in %s; the export gave %d warnings, the "
                                        "first: %s",
                                        (unsigned long) warnings),
                               run->plan->map_name, engine, warnings, first_warning);
    else
        text = g_strdup_printf(_("Running %s in %s"), run->plan->map_name, engine);
    say(run, run->format == AL_BSP2 || warnings ? GTK_MESSAGE_WARNING : GTK_MESSAGE_INFO, text);
    /* Its console is read (and dropped but for the last lines) so that it never blocks on
     * a full pipe; its input is closed. */
    g_subprocess_communicate_utf8_async(process, NULL, NULL, engine_done_cb, run);
    g_object_unref(process);
}

static void export(Run *run);

static void exported_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    (void) source;
    Run *run = data;
    int warnings = 0;
    g_autofree char *first = NULL;
    GError *error = NULL;
    if (allium_export_bsp_finish(result, &warnings, &first, &error)) {
        start_engine(run, warnings, first);
        return;
    }
    if (run->format == AL_BSP29 &&
        g_error_matches(error, ALLIUM_DOCUMENT_ERROR, (int) AL_ERR_LIMIT)) {
        /* Past BSP29's limits: BSP2, which the engines of today read. */
        g_error_free(error);
        run->format = AL_BSP2;
        export(run);
        return;
    }
    say(run, GTK_MESSAGE_ERROR, error->message);
    g_error_free(error);
    run_free(run);
}

static void export(Run *run)
{
    g_autofree char *folder = g_path_get_dirname(run->plan->bsp);
    if (g_mkdir_with_parents(folder, 0755) != 0) {
        g_autofree char *name = g_filename_display_name(folder);
        g_autofree char *text =
            g_strdup_printf(_("The export folder %s cannot be made: %s"), name, g_strerror(errno));
        say(run, GTK_MESSAGE_ERROR, text);
        run_free(run);
        return;
    }
    allium_export_bsp_async(run->document, run->plan->bsp, run->format, NULL, exported_cb, run);
}

void allium_playtest_run(AlliumDocument *document, AlliumPlaytest *plan,
                         AlliumPlaytestReport report, GObject *user)
{
    Run *run = g_new0(Run, 1);
    run->document = g_object_ref(document);
    run->plan = plan;
    run->report = report;
    run->user = g_object_ref(user);
    run->format = AL_BSP29;
    g_autofree char *name = g_filename_display_name(plan->bsp);
    g_autofree char *text = g_strdup_printf(_("Compiling and lighting the map for the engine "
                                              "(%s)…"),
                                            name);
    say(run, GTK_MESSAGE_INFO, text);
    export(run);
}
