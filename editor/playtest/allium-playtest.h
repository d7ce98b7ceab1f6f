/* Run in Engine: the open map exported as a .bsp where the engine of the preferences finds
 * it, and that engine started on it. Neither the export (a full compile, lit, on a worker
 * thread) nor the engine is waited for on the main thread; what happens is told through a
 * report function (a banner in the window).
 *
 * The engine is started as Quake engines are on the command line: ENGINE -basedir GAME
 * [-game MOD] +map NAME ARGUMENTS..., in GAME. NAME is the document's file name in lower
 * case with anything but letters, digits and '_' made '_' (the console's map names); the
 * .bsp is BSP29 when the map fits it, else BSP2 (and the report says so).
 */
#pragma once

#include <gtk/gtk.h>

#include "allium-document.h"
#include "allium-preferences.h"

G_BEGIN_DECLS

/* What a run does, from the preferences and the document's path. */
typedef struct {
    char **argv;    /* the engine's command line */
    char *game;     /* the folder it runs in */
    char *bsp;      /* where the map is exported */
    char *map_name; /* NAME of +map */
} AlliumPlaytest;

/* The run for the document at DOCUMENT_PATH under PREFS, or NULL with ERROR naming the
 * setting that is missing or wrong (no engine, an engine that is not a program, a game
 * folder that does not exist, a mod or arguments that cannot be used). */
AlliumPlaytest *allium_playtest_plan(AlliumPreferences *prefs, const char *document_path,
                                     GError **error);
void allium_playtest_free(AlliumPlaytest *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumPlaytest, allium_playtest_free)

/* Called with what a run is doing: INFO while exporting and once the engine runs, WARNING
 * when the map needed BSP2 or the export warned, ERROR when it failed or the engine
 * stopped with an error. */
typedef void (*AlliumPlaytestReport)(gpointer user, GtkMessageType type, const char *text);

/* Exports DOCUMENT to PLAN's .bsp and starts the engine (takes PLAN). REPORT gets
 * USER, which is kept referenced (a GObject) until the engine has stopped. */
void allium_playtest_run(AlliumDocument *document, AlliumPlaytest *plan,
                         AlliumPlaytestReport report, GObject *user);

G_END_DECLS
