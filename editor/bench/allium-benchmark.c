/* The editor's benchmarks: what a designer sees, measured in the editor itself.
 *
 * Frames: allium --benchmark-frames N MAP. Opens MAP in a 1280x720 window showing only the
 * 3D view (the camera where a designer's would be: at the player start, or over the whole
 * map), waits for the compile, then turns the camera a full circle over N frames, one
 * frame per frame-clock tick. Each frame is timed in the view's render handler from the
 * start of drawing to the end of glFinish, so the GPU's (or llvmpipe's) work is in it.
 * Prints one JSON object:
 *
 *   {"open_ms": ..., "lit_ms": ..., "frame_ms": {"median": ..., "p95": ..., "max": ...},
 *    "frames": N, "faces_drawn_median": ..., "faces": ..., "collision_ms": ...,
 *    "from_cache": ..., "frame_interval_ms": {...}}
 *
 * open_ms runs from the process's start to the first frame drawn with the map (before its
 * first compile the map is drawn as it is); compiled_ms to the first frame with its
 * collision; lit_ms to the first frame drawn with a lightmap, or -1 if none came.
 *
 * Edits: allium --benchmark-edits N MAP. Opens MAP the same way, then moves a random brush
 * (a fixed sequence) one grid step (16 units) along a random axis through the document, as
 * the arrow keys do, and waits for the frame that shows the edit lit, N times; meanwhile
 * the camera turns half a degree every frame, and the solver runs to its target between
 * edits as it does while a designer works. Prints
 *
 *   {"edits": N, "collision_frame_ms": {"median", "p95"}, "lit_frame_ms": {...},
 *    "engine_collision_ms": {...}, "engine_wait_ms", "commit_ms", "handover_ms",
 *    "queued_ms", "draw_ms": {...}, "blocks_built": {"median"}, "blocks": ...,
 *    "frame_interval_ms": {"median", "p95", "max", "frames"}, "lit_missing": ...,
 *    "leaking": ..., "edits_taken_back_for_a_leak": ..., "settled_ms": ...,
 *    "started_settled": ...}
 *
 * collision_frame_ms runs from the edit's call (its commit included) to the end of the
 * first frame drawn with a snapshot that has the edit's collision; lit_frame_ms to the end
 * of the first frame drawn with a lightmap of the edit's solver (its direct light
 * corrected); engine_collision_ms is the engine's part of the first (from the hand-over to
 * the publication), to compare with allium-bench edit's bsp_ms, and engine_wait_ms the part
 * of it the edit waited for the engine to take it; commit_ms the edit's call (the
 * document's transaction and the hand-over). The rest of the first: handover_ms from the
 * publication to the main thread taking the snapshot, queued_ms from there to the start of
 * the frame that draws it, draw_ms that frame (to the end of glFinish). An edit whose light does
 * not come within 10 s counts in lit_missing. An edit after which the map leaks (a leaking
 * map has no PVS, and its light is slow to correct) is taken back once lit, its figures
 * dropped, and another made after the undo is lit, as allium-bench edit does
 * (edits_taken_back_for_a_leak; up to 20 per edit asked for); leaking counts the edits
 * kept whose collision showed a leak. The edits are undone at the end. Edits and drags
 * begin once the engine has settled (its light at the target residual, the tight PVS
 * done; at most two minutes), so that what the cache held the map in (its light
 * converged or not) does not change the figures: settled_ms is when (from the start),
 * started_settled false if the wait ran out.
 *
 * Drag: allium --benchmark-drag N MAP. Opens MAP the same way, selects a brush and drags
 * it, as the move tool does: every frame the preview moves 8 units on (back and forth
 * along x), for N frames, then Escape drops it. Prints
 *
 *   {"frames": N, "snapshot_lag_frames": {"median", "p95", "max"},
 *    "frame_interval_ms": {...}, "previews": ..., "collision_runs": ..., "open_ms": ...,
 *    "settled_ms": ..., "started_settled": ...}
 *
 * snapshot_lag_frames is, for each frame, how many frames before it the preview it shows
 * the collision of was made (0: this frame's own); a frame that shows no preview yet counts
 * the frames since the drag began. (A redraw held for a preview's collision can draw two
 * ticks' previews in one frame; the frames still to count after the last preview are
 * asked for, and count against it.)
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

#define BENCH_TIMEOUT_S 600
#define LIT_TIMEOUT_US (10 * G_USEC_PER_SEC)
/* How long edits and drags wait at most for the engine to settle before they begin. */
#define SETTLE_TIMEOUT_US (120 * G_USEC_PER_SEC)

typedef struct {
    AlliumApplication *app; /* owned */
    AlliumWindow *window;   /* borrowed: the window owns this struct */
    AlliumView *view;       /* borrowed: the window's 3D view */
    AlliumBenchmarkKind kind;
    int count;              /* frames, edits or drag frames */
    guint32 seed;
    /* edits */
    GArray *collision_ms, *lit_ms, *engine_ms, *blocks_built, *commit_ms, *wait_ms; /* per edit */
    GArray *handover_ms, *queued_ms, *draw_ms; /* per edit: the collision frame's parts */
    int blocks, lit_missing;
    int leaking; /* edits whose compiled map leaks (no PVS: its light is slow to correct) */
    gint64 edit_started_us;
    guint64 edit_generation; /* of the edit waited for; 0: none */
    gboolean collision_seen;
    int edits_made;
    int taken_back;            /* edits undone because the map leaked after them */
    guint64 settle_generation; /* an edit taken back: its undo's, waited for; 0: none */
    gint64 settle_started_us;
    gint64 ready_us;  /* when the map was first compiled and lit */
    gboolean settled; /* the engine was settled when the edits or the drag began */
    int edit_leaked; /* the edit waited for counted in LEAKING */
    /* drag */
    gint64 drag_row;
    int drag_frames;
    GArray *lag;             /* double per drag frame */
    GArray *preview_frame;   /* guint64 generation of each frame's preview, by frame */
    guint64 first_preview;
    int64_t collision_runs_before;
    /* frames */
    GArray *ms;             /* double per measured frame */
    GArray *faces;          /* int per measured frame */
    GArray *intervals;      /* ms between frames */
    gint64 last_frame_us;
    double open_ms, compiled_ms, lit_ms_open;
    double settled_ms; /* from the start to the engine settled (edits and drags) */
    gboolean started;
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

/* "NAME": {"median": ..., "p95": ...} of VALUES (sorted here). */
static void print_spread(GString *out, const char *name, GArray *values, gboolean max)
{
    g_array_sort(values, compare_double);
    g_string_append_printf(out, "\"%s\": {\"median\": %.1f, \"p95\": %.1f", name,
                           percentile(values, 0.5), percentile(values, 0.95));
    if (max) g_string_append_printf(out, ", \"max\": %.1f", percentile(values, 1.0));
    g_string_append(out, "}");
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

static double since_start_ms(Bench *b)
{
    return (double) (g_get_monotonic_time() - allium_application_get_started_us(b->app)) / 1000.0;
}

static void report_frames(Bench *b)
{
    g_array_sort(b->ms, compare_double);
    g_array_sort(b->faces, compare_int);
    g_array_sort(b->intervals, compare_double);
    int faces_median = b->faces->len ? g_array_index(b->faces, int, b->faces->len / 2) : 0;
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(b->window));
    al_scene_stats stats = {0};
    if (snap && snap->scene) al_scene_get_stats(snap->scene, &stats);
    g_print("{\"open_ms\": %.1f, \"compiled_ms\": %.1f, \"lit_ms\": %.1f, "
            "\"frame_ms\": {\"median\": %.3f, \"p95\": %.3f, \"max\": %.3f}, "
            "\"frames\": %u, \"faces_drawn_median\": %d, \"faces\": %d, \"collision_ms\": %.1f, "
            "\"from_cache\": %s, \"frame_interval_ms\": {\"median\": %.1f, \"p95\": %.1f}}\n",
            b->open_ms, b->compiled_ms, b->lit_ms_open, percentile(b->ms, 0.5),
            percentile(b->ms, 0.95), percentile(b->ms, 1.0), b->ms->len, faces_median,
            stats.faces, snap ? snap->collision_ms : 0.0,
            snap && snap->from_cache ? "true" : "false", percentile(b->intervals, 0.5),
            percentile(b->intervals, 0.95));
    fflush(stdout);
}

static void report_edits(Bench *b)
{
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, "{\"edits\": %u, ", b->collision_ms->len);
    print_spread(out, "collision_frame_ms", b->collision_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "lit_frame_ms", b->lit_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "engine_collision_ms", b->engine_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "engine_wait_ms", b->wait_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "commit_ms", b->commit_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "handover_ms", b->handover_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "queued_ms", b->queued_ms, FALSE);
    g_string_append(out, ", ");
    print_spread(out, "draw_ms", b->draw_ms, FALSE);
    g_array_sort(b->blocks_built, compare_double);
    g_string_append_printf(out,
                           ", \"blocks_built\": {\"median\": %.0f}, \"blocks\": %d, "
                           "\"lit_missing\": %d, \"leaking\": %d, "
                           "\"edits_taken_back_for_a_leak\": %d, \"open_ms\": %.1f, "
                           "\"settled_ms\": %.1f, \"started_settled\": %s, ",
                           percentile(b->blocks_built, 0.5), b->blocks, b->lit_missing, b->leaking,
                           b->taken_back, b->open_ms, b->settled_ms, b->settled ? "true" : "false");
    g_array_sort(b->intervals, compare_double);
    g_string_append_printf(out, "\"frame_interval_ms\": {\"median\": %.1f, \"p95\": %.1f, "
                                "\"max\": %.1f, \"frames\": %u}}",
                           percentile(b->intervals, 0.5), percentile(b->intervals, 0.95),
                           percentile(b->intervals, 1.0), b->intervals->len);
    g_print("%s\n", out->str);
    g_string_free(out, TRUE);
    fflush(stdout);
}

static void report_drag(Bench *b)
{
    AlliumDocument *doc = allium_window_get_document(b->window);
    al_stage_status st[AL_STAGE_COUNT];
    allium_document_get_stages(doc, st);
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, "{\"frames\": %u, ", b->lag->len);
    print_spread(out, "snapshot_lag_frames", b->lag, TRUE);
    g_string_append(out, ", ");
    print_spread(out, "frame_interval_ms", b->intervals, TRUE);
    g_string_append_printf(out,
                           ", \"previews\": %d, \"collision_runs\": %lld, \"open_ms\": %.1f, "
                           "\"settled_ms\": %.1f, \"started_settled\": %s}",
                           b->drag_frames,
                           (long long) (st[AL_STAGE_COLLISION].runs - b->collision_runs_before),
                           b->open_ms, b->settled_ms, b->settled ? "true" : "false");
    g_print("%s\n", out->str);
    g_string_free(out, TRUE);
    fflush(stdout);
}

static void bench_free(gpointer data)
{
    Bench *b = data;
    GArray *all[] = {b->collision_ms,  b->lit_ms,      b->engine_ms, b->blocks_built, b->commit_ms,
                     b->wait_ms,       b->handover_ms, b->queued_ms, b->draw_ms,      b->lag,
                     b->preview_frame, b->ms,          b->faces,     b->intervals};
    for (guint i = 0; i < G_N_ELEMENTS(all); i++) g_array_unref(all[i]);
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

static guint32 next_random(Bench *b)
{
    b->seed = b->seed * 1664525u + 1013904223u;
    return b->seed >> 8;
}

/* --- callbacks ----------------------------------------------------------------------- */

static gboolean turn_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) widget;
    (void) clock;
    Bench *b = data;
    al_camera *camera = allium_view_get_camera(b->view);
    /* Frames: a full turn over the frames measured; else half a degree a frame, so that
     * every frame is drawn while the edits compile and light. */
    camera->yaw += b->kind == ALLIUM_BENCHMARK_FRAMES ? 360.0 / b->count : 0.5;
    allium_view_queue_render(b->view);
    return G_SOURCE_CONTINUE;
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
    b->collision_seen = FALSE;
    GError *error = NULL;
    if (!allium_document_move(doc, &row, 1, NULL, 0, delta, &error)) {
        g_printerr("benchmark: %s\n", error->message);
        g_error_free(error);
        quit(b, 1);
        return G_SOURCE_REMOVE;
    }
    b->edits_made++;
    b->edit_generation = allium_document_get_generation(doc);
    double commit = (double) (g_get_monotonic_time() - b->edit_started_us) / 1000.0;
    g_array_append_val(b->commit_ms, commit);
    return G_SOURCE_REMOVE;
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

/* Whether the document's map leaks as compiled for GENERATION or later (its portals known). */
static gboolean leaks_now(AlliumDocument *doc, guint64 generation)
{
    AlliumSnapshot *now = allium_document_get_snapshot(doc);
    return now && now->world && now->generation >= generation && now->stage >= AL_STAGE_PORTALS &&
           al_world_leak(now->world, NULL);
}

/* Takes back the edit waited for, whose map leaks: its samples are dropped, and the next
 * edit waits for the undo's light. */
static void take_back(Bench *b, AlliumDocument *doc)
{
    GArray *per_edit[] = {b->collision_ms, b->engine_ms,   b->wait_ms,   b->blocks_built,
                          b->commit_ms,    b->handover_ms, b->queued_ms, b->draw_ms};
    /* (each holds one sample of this edit) */
    for (guint i = 0; i < G_N_ELEMENTS(per_edit); i++)
        if (per_edit[i]->len > 0) g_array_set_size(per_edit[i], per_edit[i]->len - 1);
    b->leaking -= b->edit_leaked;
    allium_document_undo(doc, NULL);
    b->edits_made--;
    b->taken_back++;
    b->edit_generation = 0;
    b->settle_generation = allium_document_get_generation(doc);
    b->settle_started_us = g_get_monotonic_time();
}

/* The edit's frames: the first with its collision, then the first with its light. */
static void edit_frame(Bench *b, double now_ms)
{
    if (b->settle_generation) {
        /* An edit taken back: the next one once the undo is lit, as every edit starts. */
        AlliumLightmap *lit = allium_view_get_drawn_lightmap(b->view);
        gboolean waited = g_get_monotonic_time() - b->settle_started_us > LIT_TIMEOUT_US;
        if ((!lit || lit->light_generation < b->settle_generation) && !waited) return;
        b->settle_generation = 0;
        g_idle_add_full(G_PRIORITY_DEFAULT, edit_cb, b, NULL);
        return;
    }
    if (!b->edit_generation) return;
    AlliumSnapshot *drawn = allium_view_get_drawn_snapshot(b->view);
    AlliumLightmap *lit = allium_view_get_drawn_lightmap(b->view);
    double since = now_ms - (double) b->edit_started_us / 1000.0;
    if (!b->collision_seen && drawn && drawn->world && drawn->generation >= b->edit_generation) {
        b->collision_seen = TRUE;
        g_array_append_val(b->collision_ms, since);
        double engine = drawn->collision_ms, built = drawn->blocks_built,
               wait = drawn->collision_wait_ms;
        g_array_append_val(b->engine_ms, engine);
        g_array_append_val(b->wait_ms, wait);
        g_array_append_val(b->blocks_built, built);
        /* The rest of the way: publication to the main thread, then to the frame. */
        gint64 started = allium_view_get_frame_started_us(b->view);
        double handover = (double) (drawn->delivered_us - drawn->published_us) / 1000.0;
        double queued = (double) (started - drawn->delivered_us) / 1000.0;
        double draw = now_ms - (double) started / 1000.0;
        g_array_append_val(b->handover_ms, handover);
        g_array_append_val(b->queued_ms, queued);
        g_array_append_val(b->draw_ms, draw);
        b->blocks = drawn->blocks;
        b->edit_leaked = al_world_leak(drawn->world, NULL);
        b->leaking += b->edit_leaked;
    }
    gboolean lit_now = b->collision_seen && lit && lit->light_generation >= b->edit_generation;
    gboolean given_up = b->collision_seen && since * 1000 > LIT_TIMEOUT_US;
    if (!lit_now && !given_up) return;
    /* A designer's map is sealed nearly all the time, and a leaking one has no PVS: an edit
     * that opens a leak is taken back and another made, as allium-bench edit does. */
    AlliumDocument *doc = allium_window_get_document(b->window);
    if (doc && leaks_now(doc, b->edit_generation) && b->taken_back < 20 * b->count) {
        take_back(b, doc);
        return;
    }
    if (lit_now) g_array_append_val(b->lit_ms, since);
    else b->lit_missing++;
    b->edit_generation = 0;
    if ((int) b->collision_ms->len >= b->count) {
        report_edits(b);
        g_idle_add_full(G_PRIORITY_DEFAULT, finish_edits_cb, b, NULL);
    } else {
        g_idle_add_full(G_PRIORITY_DEFAULT, edit_cb, b, NULL);
    }
}

/* Each frame of a drag: the preview moves on. */
static gboolean drag_tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) widget;
    (void) clock;
    Bench *b = data;
    if (b->done) return G_SOURCE_CONTINUE;
    if (b->drag_frames >= b->count) {
        /* A redraw held for a preview's collision may have drawn two previews' frames in
         * one (allium_view_queue_render), so the last frames counted may still be to come:
         * asked for until they are. */
        allium_view_queue_render(b->view);
        return G_SOURCE_CONTINUE;
    }
    AlliumDocument *doc = allium_window_get_document(b->window);
    /* Back and forth, 8 units a frame, 32 frames each way. */
    int step = b->drag_frames % 64;
    double x = 8.0 * (step < 32 ? step + 1 : 63 - step);
    const double m[3][4] = {{1, 0, 0, x}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    allium_document_preview_transform(doc, &b->drag_row, 1, NULL, 0, m);
    guint64 g = allium_document_get_generation(doc);
    if (!b->first_preview) b->first_preview = g;
    g_array_append_val(b->preview_frame, g);
    b->drag_frames++;
    allium_view_queue_render(b->view);
    return G_SOURCE_CONTINUE;
}

static gboolean finish_drag_cb(gpointer data)
{
    Bench *b = data;
    AlliumDocument *doc = allium_window_get_document(b->window);
    if (doc) allium_document_preview_end(doc);
    quit(b, 0);
    return G_SOURCE_REMOVE;
}

/* A drag frame: how old the preview it shows is. */
static void drag_frame(Bench *b)
{
    if (b->drag_frames == 0) return;
    AlliumSnapshot *drawn = allium_view_get_drawn_snapshot(b->view);
    guint frame = b->preview_frame->len - 1; /* this frame's own preview */
    double lag = (double) frame + 1; /* no preview shown yet: since the drag began */
    if (drawn && drawn->world && drawn->generation >= b->first_preview) {
        /* The frame whose preview made the generation shown (or a later one). */
        for (guint i = b->preview_frame->len; i-- > 0;)
            if (g_array_index(b->preview_frame, guint64, i) <= drawn->generation) {
                lag = (double) (frame - i);
                break;
            }
    }
    g_array_append_val(b->lag, lag);
    if ((int) b->lag->len >= b->count) {
        report_drag(b);
        g_idle_add_full(G_PRIORITY_DEFAULT, finish_drag_cb, b, NULL);
    }
}

/* Starts the drag: the brush nearest the middle of the map of a moderate size. */
static void start_drag(Bench *b)
{
    AlliumDocument *doc = allium_window_get_document(b->window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    double mn[3], mx[3], best = G_MAXDOUBLE;
    if (!snap || !snap->scene || !al_scene_bounds(snap->scene, mn, mx)) {
        g_printerr("benchmark: %s\n", _("the map has no compiled brushes to move"));
        quit(b, 1);
        return;
    }
    b->drag_row = -1;
    for (int i = 0; i < snap->input.input.brush_count; i++) {
        double lo[3], hi[3];
        if (!al_scene_brush_bounds(snap->scene, i, lo, hi)) continue;
        double d = 0, size = 0;
        for (int k = 0; k < 3; k++) {
            double c = 0.5 * (lo[k] + hi[k]) - 0.5 * (mn[k] + mx[k]);
            d += c * c;
            size = MAX(size, hi[k] - lo[k]);
        }
        if (size < 32 || size > 512 || d >= best) continue;
        best = d;
        b->drag_row = snap->input.brush_ids[i];
    }
    if (b->drag_row < 0) {
        g_printerr("benchmark: %s\n", _("the map has no brush to drag"));
        quit(b, 1);
        return;
    }
    allium_selection_select_brush(b->window->selection, b->drag_row,
                                  ALLIUM_SELECT_REPLACE);
    al_stage_status st[AL_STAGE_COUNT];
    allium_document_get_stages(doc, st);
    b->collision_runs_before = st[AL_STAGE_COLLISION].runs;
    b->tick = gtk_widget_add_tick_callback(GTK_WIDGET(b->view), drag_tick_cb, b, NULL);
}

static gboolean start_drag_cb(gpointer data)
{
    Bench *b = data;
    if (!b->done) start_drag(b);
    return G_SOURCE_REMOVE;
}

static void frame_cb(AlliumView *view, double ms, const al_draw_stats *stats, gpointer data)
{
    Bench *b = data;
    if (b->done) return;
    AlliumSnapshot *drawn = allium_view_get_drawn_snapshot(view);
    if (b->open_ms < 0 && drawn && drawn->scene) b->open_ms = since_start_ms(b);
    if (b->compiled_ms < 0 && drawn && drawn->world) b->compiled_ms = since_start_ms(b);
    if (b->lit_ms_open < 0 && allium_view_get_drawn_lightmap(view)) b->lit_ms_open = since_start_ms(b);
    gint64 now = g_get_monotonic_time();
    if (!b->started) {
        /* Measuring starts once the map is compiled (and, for edits, lit). */
        AlliumDocument *doc = allium_window_get_document(b->window);
        gboolean ready = drawn && drawn->world &&
                         (b->kind == ALLIUM_BENCHMARK_FRAMES || allium_document_get_lightmap(doc) ||
                          (drawn->lights == 0));
        /* Edits and drags start on a settled engine (its light at the target, the tight
         * PVS done), whatever state the cache held the map in, as a designer's edit of a
         * map open for a while does; at most SETTLE_TIMEOUT_US after the map is ready. */
        if (ready && b->kind != ALLIUM_BENCHMARK_FRAMES) {
            if (!b->ready_us) b->ready_us = now;
            gboolean busy = allium_document_get_compiling(doc) || allium_document_get_lighting(doc);
            /* Looked at again in a later frame (poll_cb asks for one every 100 ms: the
             * engine may settle without delivering anything to draw). */
            if (busy && now - b->ready_us < SETTLE_TIMEOUT_US) return;
            b->settled = !busy;
            b->settled_ms = since_start_ms(b);
        }
        if (!ready) return;
        b->started = TRUE;
        b->last_frame_us = now;
        if (b->kind == ALLIUM_BENCHMARK_DRAG) {
            /* Not inside the frame: selecting rebuilds the properties panel's widgets. */
            g_idle_add_full(G_PRIORITY_DEFAULT, start_drag_cb, b, NULL);
            return;
        }
        b->tick = gtk_widget_add_tick_callback(GTK_WIDGET(view), turn_cb, b, NULL);
        if (b->kind == ALLIUM_BENCHMARK_EDITS) g_idle_add_full(G_PRIORITY_DEFAULT, edit_cb, b, NULL);
        return;
    }
    double gap = (double) (now - b->last_frame_us) / 1000.0;
    g_array_append_val(b->intervals, gap);
    b->last_frame_us = now;
    switch (b->kind) {
    case ALLIUM_BENCHMARK_EDITS:
        edit_frame(b, (double) now / 1000.0);
        break;
    case ALLIUM_BENCHMARK_DRAG:
        drag_frame(b);
        break;
    case ALLIUM_BENCHMARK_FRAMES:
        g_array_append_val(b->ms, ms);
        g_array_append_val(b->faces, stats->faces_drawn);
        if ((int) b->ms->len >= b->count) {
            report_frames(b);
            quit(b, 0);
        }
        break;
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

/* Until the measuring starts: the open failed when the window has no map and says why;
 * while the benchmark waits for the engine to settle, a frame to look again. */
static gboolean poll_cb(gpointer data)
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
    if (b->started) {
        b->poll = 0;
        return G_SOURCE_REMOVE;
    }
    if (b->ready_us) allium_view_queue_render(b->view);
    return G_SOURCE_CONTINUE;
}

/* --- public API ---------------------------------------------------------------------- */

void allium_benchmark_start(AlliumApplication *app, AlliumBenchmarkKind kind, int count,
                            GFile *map)
{
    Bench *b = g_new0(Bench, 1);
    b->app = g_object_ref(app);
    b->kind = kind;
    b->count = count;
    b->seed = 12345;
    GArray **doubles[] = {&b->collision_ms, &b->lit_ms,  &b->engine_ms,   &b->blocks_built,
                          &b->commit_ms,    &b->wait_ms, &b->handover_ms, &b->queued_ms,
                          &b->draw_ms,      &b->lag,     &b->ms,          &b->intervals};
    for (guint i = 0; i < G_N_ELEMENTS(doubles); i++)
        *doubles[i] = g_array_new(FALSE, FALSE, sizeof(double));
    b->preview_frame = g_array_new(FALSE, FALSE, sizeof(guint64));
    b->faces = g_array_new(FALSE, FALSE, sizeof(int));
    b->open_ms = b->compiled_ms = b->lit_ms_open = -1;
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
    b->poll = g_timeout_add(100, poll_cb, b);
}
