/* The editor's benchmarks.
 *
 * Frames: allium --benchmark-frames N MAP.
 *
 * Opens MAP in a 1280x720 window showing only the 3D view (the camera where a designer's
 * would be: at the player start, or over the whole map), waits for the compile, then
 * turns the camera a full circle over N frames, one frame per frame-clock tick. Each
 * frame is timed in the view's render handler from the start of drawing to the end of
 * glFinish, so the GPU's (or llvmpipe's) work is in it. Prints one JSON object:
 *
 *   {"open_ms": ..., "frame_ms": {"median": ..., "p95": ..., "max": ...}, "frames": N,
 *    "faces_drawn_median": ..., "faces": ...}
 *
 * open_ms runs from the process's start to the first frame drawn with the compiled map;
 * lit_ms to the first frame drawn with a lightmap (an opened map is published before its
 * light sources are shot, and the light job delivers them), or -1 if none came.
 * Edits: allium --benchmark-edits N MAP. Opens MAP the same way, then moves a random brush
 * (a fixed sequence) one grid step (16 units) along a random axis, waits for the frame that
 * shows the edit compiled, and goes on with the next, N times; the light job refines each
 * state meanwhile, as it would while a designer works. Prints
 *
 *   {"edits": N, "edit_to_frame_ms": {"median": ..., "p95": ...}, "world_ms": {...},
 *    "light_ms": {...}, "blocks_built": {"median": ...}, "blocks": ...,
 *    "frame_interval_ms": {...}}
 *
 * edit_to_frame_ms runs from the edit's call to the end of the first frame drawn with its
 * snapshot; world_ms is the world's update in it (onion trees, portals, coarse PVS),
 * light_ms the solver's patches and direct light. Meanwhile the camera turns half a degree
 * every frame, and frame_interval_ms ({"median", "p95", "max", "frames"}) is the time
 * between frames drawn: what a designer dragging or flying sees while everything
 * recompiles (a compile that held the main thread would show as a long interval). The
 * edits are undone at the end.
 *
 * A .map is imported into the user's cache folder once (again when the .map is newer),
 * so that later runs measure opening a document with a warm compile cache.
 */
#include "allium-config.h"

#include "allium-benchmark.h"

#include "allium-map-files.h"
#include "allium-window-private.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdlib.h>

#define BENCH_TIMEOUT_S 300

typedef struct {
    AlliumApplication *app; /* owned */
    AlliumWindow *window;   /* borrowed: the window owns this struct */
    AlliumView *view;       /* borrowed: the window's 3D view */
    int frames;             /* to measure */
    int edits;              /* to make (frames 0) */
    GArray *edit_ms, *world_ms, *light_ms, *blocks_built; /* double per edit */
    int blocks;
    guint32 seed;
    gint64 edit_started_us;
    guint64 edit_generation; /* of the edit waited for; 0: none */
    gboolean edit_compiled;  /* its snapshot is published: the next frame shows it */
    int edits_made;
    GArray *ms;             /* double per measured frame */
    GArray *intervals;      /* edits: ms between frames while the camera turns */
    gint64 last_frame_us;
    GArray *faces;          /* int per measured frame */
    double open_ms;         /* < 0 until the first frame with the map */
    double lit_ms;          /* < 0 until the first frame with a lightmap */
    guint tick;
    guint watchdog;
    guint poll;
    gboolean done;
} Bench;

/* --- static helpers ------------------------------------------------------------------ */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

static double percentile(GArray *sorted, double p)
{
    if (sorted->len == 0) return 0;
    guint i = (guint) (p * (sorted->len - 1) + 0.5);
    return g_array_index(sorted, double, MIN(i, sorted->len - 1));
}

static gboolean quit_cb(gpointer data)
{
    g_action_group_activate_action(G_ACTION_GROUP(data), "quit", NULL);
    return G_SOURCE_REMOVE;
}

/* Stops measuring and quits from an idle callback: this may run inside a render handler,
 * where destroying the window is not allowed. */
static void quit(Bench *b, int status)
{
    if (b->done) return;
    b->done = TRUE;
    allium_application_set_exit_status(b->app, status);
    allium_view_set_frame_func(b->view, NULL, NULL);
    if (b->tick) gtk_widget_remove_tick_callback(GTK_WIDGET(b->view), b->tick);
    b->tick = 0;
    g_clear_handle_id(&b->watchdog, g_source_remove);
    g_clear_handle_id(&b->poll, g_source_remove);
    g_idle_add_full(G_PRIORITY_DEFAULT, quit_cb, g_object_ref(b->app), g_object_unref);
}

static void report(Bench *b)
{
    g_array_sort(b->ms, compare_double);
    g_array_sort(b->faces, compare_int);
    g_array_sort(b->intervals, compare_double);
    int faces_median = b->faces->len ? g_array_index(b->faces, int, b->faces->len / 2) : 0;
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(b->window));
    al_scene_stats stats = {0};
    if (snap && snap->scene) al_scene_get_stats(snap->scene, &stats);
    g_print("{\"open_ms\": %.1f, \"lit_ms\": %.1f, \"frame_ms\": {\"median\": %.3f, \"p95\": %.3f, \"max\": %.3f}, "
            "\"frames\": %u, \"faces_drawn_median\": %d, \"faces\": %d, \"compile_ms\": %.1f, "
            "\"from_cache\": %s, \"frame_interval_ms\": {\"median\": %.1f, \"p95\": %.1f}}\n",
            b->open_ms, b->lit_ms, percentile(b->ms, 0.5), percentile(b->ms, 0.95),
            percentile(b->ms, 1.0), b->ms->len, faces_median, stats.faces,
            snap ? snap->ms_total : 0.0, snap && snap->from_cache ? "true" : "false",
            percentile(b->intervals, 0.5), percentile(b->intervals, 0.95));
    fflush(stdout);
}

static void report_edits(Bench *b)
{
    GArray *all[] = {b->edit_ms, b->world_ms, b->light_ms, b->blocks_built, b->intervals};
    for (guint i = 0; i < G_N_ELEMENTS(all); i++) g_array_sort(all[i], compare_double);
    g_print("{\"edits\": %u, \"edit_to_frame_ms\": {\"median\": %.1f, \"p95\": %.1f}, "
            "\"world_ms\": {\"median\": %.1f, \"p95\": %.1f}, "
            "\"light_ms\": {\"median\": %.1f, \"p95\": %.1f}, "
            "\"blocks_built\": {\"median\": %.0f}, \"blocks\": %d, \"open_ms\": %.1f, "
            "\"frame_interval_ms\": {\"median\": %.1f, \"p95\": %.1f, \"max\": %.1f, "
            "\"frames\": %u}}\n",
            b->edit_ms->len, percentile(b->edit_ms, 0.5), percentile(b->edit_ms, 0.95),
            percentile(b->world_ms, 0.5), percentile(b->world_ms, 0.95),
            percentile(b->light_ms, 0.5), percentile(b->light_ms, 0.95),
            percentile(b->blocks_built, 0.5), b->blocks, b->open_ms,
            percentile(b->intervals, 0.5), percentile(b->intervals, 0.95),
            b->intervals->len ? g_array_index(b->intervals, double, b->intervals->len - 1) : 0.0,
            b->intervals->len);
    fflush(stdout);
}

static void bench_free(gpointer data)
{
    Bench *b = data;
    g_array_unref(b->edit_ms);
    g_array_unref(b->world_ms);
    g_array_unref(b->light_ms);
    g_array_unref(b->blocks_built);
    g_array_unref(b->ms);
    g_array_unref(b->intervals);
    g_array_unref(b->faces);
    g_clear_handle_id(&b->watchdog, g_source_remove);
    g_clear_handle_id(&b->poll, g_source_remove);
    g_object_unref(b->app);
    g_free(b);
}

/* The document for MAP: a .allium as it is; a .map through a document in the cache
 * folder, imported when missing or older than the .map. NULL and ERROR on failure. */
static char *document_for(const char *path, GError **error)
{
    if (allium_path_is_document(path)) return g_strdup(path);
    g_autofree char *dir = g_build_filename(g_get_user_cache_dir(), "allium", "benchmark", NULL);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *name = g_strconcat(base, ".allium", NULL);
    char *target = g_build_filename(dir, name, NULL);
    GStatBuf map_stat, doc_stat;
    if (g_stat(target, &doc_stat) == 0 && g_stat(path, &map_stat) == 0 &&
        doc_stat.st_mtime >= map_stat.st_mtime)
        return target;
    g_mkdir_with_parents(dir, 0755);
    static const char *sides[] = {"", "-wal", "-shm"};
    for (guint i = 0; i < G_N_ELEMENTS(sides); i++) {
        g_autofree char *side = g_strconcat(target, sides[i], NULL);
        g_unlink(side);
    }
    if (!allium_import_map_to(path, target, error)) {
        g_free(target);
        return NULL;
    }
    return target;
}

/* --- callbacks ----------------------------------------------------------------------- */

static gboolean turn_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) widget;
    (void) clock;
    Bench *b = data;
    al_camera *camera = allium_view_get_camera(b->view);
    /* Frames: a full turn over the frames measured; edits: half a degree a frame, so that
     * every frame is drawn while the edits compile and light. */
    camera->yaw += b->frames > 0 ? 360.0 / b->frames : 0.5;
    allium_view_queue_render(b->view);
    return G_SOURCE_CONTINUE;
}

static guint32 next_random(Bench *b)
{
    b->seed = b->seed * 1664525u + 1013904223u;
    return b->seed >> 8;
}

/* Moves a random brush one grid step (from an idle callback: not inside a frame). */
static gboolean edit_cb(gpointer data)
{
    Bench *b = data;
    if (b->done) return G_SOURCE_REMOVE;
    AlliumDocument *doc = allium_window_get_document(b->window);
    AlliumSnapshot *snap = doc ? allium_document_get_snapshot(doc) : NULL;
    if (!snap || !snap->world || snap->input.input.brush_count == 0) {
        g_printerr("benchmark: %s\n", _("the map has no compiled brushes to move"));
        quit(b, 1);
        return G_SOURCE_REMOVE;
    }
    gint64 row = snap->input.brush_ids[next_random(b) % (guint32) snap->input.input.brush_count];
    double delta[3] = {0, 0, 0};
    guint32 r = next_random(b);
    delta[r % 3] = (r & 8) ? 16 : -16;
    b->edit_started_us = g_get_monotonic_time();
    b->edit_compiled = FALSE;
    GError *error = NULL;
    if (!allium_document_move(doc, &row, 1, NULL, 0, delta, &error)) {
        g_printerr("benchmark: %s\n", error->message);
        g_error_free(error);
        quit(b, 1);
        return G_SOURCE_REMOVE;
    }
    b->edits_made++;
    b->edit_generation = allium_document_get_generation(doc);
    return G_SOURCE_REMOVE;
}

static void compiled_cb(AlliumDocument *doc, Bench *b)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    if (!b->edit_generation || !snap || snap->generation != b->edit_generation) return;
    double world = snap->ms_work, light = 0, built = snap->blocks_built;
    g_array_append_val(b->world_ms, world);
    g_array_append_val(b->light_ms, light);
    g_array_append_val(b->blocks_built, built);
    b->blocks = snap->blocks;
    b->edit_compiled = TRUE;
    allium_view_queue_render(b->view);
}

/* Undoes the benchmark's edits, so that the imported document is as it was, and quits
 * (from an idle callback: not inside a frame). */
static gboolean finish_edits_cb(gpointer data)
{
    Bench *b = data;
    AlliumDocument *doc = allium_window_get_document(b->window);
    for (int i = 0; doc && i < b->edits_made; i++) allium_document_undo(doc, NULL);
    quit(b, 0);
    return G_SOURCE_REMOVE;
}

static void frame_cb(AlliumView *view, double ms, const al_draw_stats *stats, gpointer data)
{
    Bench *b = data;
    if (b->done) return;
    if (b->lit_ms < 0 && allium_document_get_lightmap(allium_window_get_document(b->window)))
        b->lit_ms = (double) (g_get_monotonic_time() - allium_application_get_started_us(b->app)) / 1000.0;
    if (b->open_ms < 0) {
        if (allium_view_get_frames_drawn(view) == 0) return; /* no map yet */
        b->open_ms = (double) (g_get_monotonic_time() - allium_application_get_started_us(b->app)) / 1000.0;
        if (b->edits > 0) {
            g_signal_connect(allium_window_get_document(b->window), "compiled",
                             G_CALLBACK(compiled_cb), b);
            g_idle_add_full(G_PRIORITY_DEFAULT, edit_cb, b, NULL);
            b->tick = gtk_widget_add_tick_callback(GTK_WIDGET(view), turn_cb, b, NULL);
            return;
        }
        /* That first frame also uploaded the scene: it is not one of the measured ones. */
        b->tick = gtk_widget_add_tick_callback(GTK_WIDGET(view), turn_cb, b, NULL);
        return;
    }
    gint64 now = g_get_monotonic_time();
    if (b->last_frame_us) {
        double gap = (double) (now - b->last_frame_us) / 1000.0;
        g_array_append_val(b->intervals, gap);
    }
    b->last_frame_us = now;
    if (b->edits > 0) {
        if (!b->edit_compiled) return;
        double edit = (double) (g_get_monotonic_time() - b->edit_started_us) / 1000.0;
        g_array_append_val(b->edit_ms, edit);
        b->edit_compiled = FALSE;
        b->edit_generation = 0;
        if ((int) b->edit_ms->len >= b->edits) {
            report_edits(b);
            g_idle_add_full(G_PRIORITY_DEFAULT, finish_edits_cb, b, NULL);
        } else {
            g_idle_add_full(G_PRIORITY_DEFAULT, edit_cb, b, NULL);
        }
        return;
    }
    g_array_append_val(b->ms, ms);
    g_array_append_val(b->faces, stats->faces_drawn);
    if ((int) b->ms->len >= b->frames) {
        report(b);
        quit(b, 0);
    }
}

static gboolean watchdog_cb(gpointer data)
{
    Bench *b = data;
    b->watchdog = 0;
    g_autofree char *text = g_strdup_printf(_("no result after %d s"), BENCH_TIMEOUT_S);
    g_printerr("benchmark: %s\n", text);
    quit(b, 1);
    return G_SOURCE_REMOVE;
}

/* The open failed when the window has no map and says why. */
static gboolean poll_failure_cb(gpointer data)
{
    Bench *b = data;
    GtkMessageType type;
    const char *text = NULL;
    if (!allium_window_get_document(b->window) && allium_window_get_banner(b->window, &type, &text) &&
        type == GTK_MESSAGE_ERROR) {
        g_printerr("benchmark: %s\n", text);
        b->poll = 0;
        quit(b, 1);
        return G_SOURCE_REMOVE;
    }
    const char *gl_error = allium_view_get_gl_error(b->view);
    if (gl_error) {
        g_printerr("benchmark: %s\n", gl_error);
        b->poll = 0;
        quit(b, 1);
        return G_SOURCE_REMOVE;
    }
    if (b->open_ms >= 0) {
        b->poll = 0;
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

/* --- public API ---------------------------------------------------------------------- */

void allium_benchmark_start(AlliumApplication *app, int frames, int edits, GFile *map)
{
    Bench *b = g_new0(Bench, 1);
    b->app = g_object_ref(app);
    b->frames = frames;
    b->edits = frames > 0 ? 0 : edits;
    b->seed = 12345;
    b->edit_ms = g_array_new(FALSE, FALSE, sizeof(double));
    b->world_ms = g_array_new(FALSE, FALSE, sizeof(double));
    b->light_ms = g_array_new(FALSE, FALSE, sizeof(double));
    b->blocks_built = g_array_new(FALSE, FALSE, sizeof(double));
    b->open_ms = -1;
    b->lit_ms = -1;
    b->ms = g_array_new(FALSE, FALSE, sizeof(double));
    b->faces = g_array_new(FALSE, FALSE, sizeof(int));
    b->intervals = g_array_new(FALSE, FALSE, sizeof(double));
    b->window = allium_window_new(GTK_APPLICATION(app));
    g_object_set_data_full(G_OBJECT(b->window), "allium-benchmark", b, bench_free);
    gtk_window_set_default_size(GTK_WINDOW(b->window), 1280, 720);
    gtk_widget_activate_action(GTK_WIDGET(b->window), "win.layout", "s", "single-3d");
    b->view = allium_window_get_active_view(b->window);
    allium_view_set_frame_func(b->view, frame_cb, b);
    gtk_window_present(GTK_WINDOW(b->window));

    g_autofree char *path = g_file_get_path(map);
    GError *error = NULL;
    g_autofree char *document = path ? document_for(path, &error) : NULL;
    if (!document) {
        g_printerr("benchmark: %s\n", error ? error->message : _("only local files can be opened"));
        g_clear_error(&error);
        quit(b, 1);
        return;
    }
    allium_application_open_document(app, document, b->window, NULL);
    b->watchdog = g_timeout_add_seconds(BENCH_TIMEOUT_S, watchdog_cb, b);
    b->poll = g_timeout_add(100, poll_failure_cb, b);
}
