/* The GUI self-test: allium --self-test DIR.
 *
 * Meant for a virtual display (xvfb-run, Mesa's software GL). Works only in DIR: the sample
 * map is imported there, a second map and two bad files are written there, screenshots
 * (NN-name.png) land there. It drives the editor as a designer would, through its actions,
 * from the main loop: each step runs from a timeout and is polled until it is done or its
 * time is up, so the compile thread and the frame clock run between steps as they would
 * for a person. Every check that fails is printed; the exit status is 0 only if all passed.
 *
 * What it checks: the sample compiles and every view draws it (the 3D view's pixels are
 * not blank); the sample arrives lit by its direct light, the solver's newer lightmaps
 * reach the 3D view until the residual is 1% and the status bar says "Lit", and the
 * Lighting toggle changes the picture; the single-3D layout, the portal overlay, the BSP
 * splits overlay (and moving the point it looks at out of the map and back), wireframe
 * and a camera move each change the picture; undo with nothing to undo is harmless; an
 * edit through the document enables undo, and undoing it restores the map and the history
 * (and cancels the solver of the state it leaves); a second map opens in a
 * second window; a map whose "wad" key names a WAD beside it shows its texture in the 3D
 * view, lists the material no WAD holds as missing, and reads the WAD again when it is
 * written again; a map opened again (once its textures had arrived) arrives with the light
 * it had when it was closed; and a .map
 * dropped on the window in a third; a file that is not a map, and a damaged document, give an error
 * banner (and the window keeps its map); the preferences, shortcuts and about windows open; the
 * background colour preference clears the views.
 */
#include "allium-config.h"

#include "allium-self-test.h"
#include "allium-self-test-private.h"

#include "materials/material-defaults.h"

#include "allium-lightmap.h"
#include "allium-map-files.h"
#include "allium-preferences.h"
#include "allium-session.h"
#include "allium-gl-area.h"
#include "allium-view-private.h"
#include "allium-window-private.h"

#include "mapfile/map.h"
#include "textures/wad-write.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* --- static helpers ------------------------------------------------------------------ */


void check(SelfTest *t, gboolean ok, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = g_strdup_vprintf(format, args);
    va_end(args);
    t->checks++;
    g_print("%s - %s\n", ok ? "ok" : "FAILED", what);
    if (!ok) g_ptr_array_add(t->failures, what);
    else g_free(what);
}

char *dir_file(SelfTest *t, const char *name)
{
    return g_build_filename(t->dir, name, NULL);
}

void collect_widgets(GtkWidget *widget, GType type, GPtrArray *out)
{
    if (G_TYPE_CHECK_INSTANCE_TYPE(widget, type)) g_ptr_array_add(out, widget);
    for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
        collect_widgets(c, type, out);
}

AlliumView *view_of_kind(SelfTest *t, al_view_kind kind)
{
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = allium_window_get_view(t->window, i);
        if (allium_view_get_kind(view) == kind) return view;
    }
    return NULL;
}

gboolean to_widget(AlliumView *view, const double p[3], double *x, double *y)
{
    double px, py;
    if (!al_camera_project(allium_view_get_camera(view), p, &px, &py)) return FALSE;
    double scale = gtk_widget_get_scale_factor(GTK_WIDGET(view));
    *x = px / scale;
    *y = py / scale;
    return TRUE;
}

gboolean row_bounds(SelfTest *t, gint64 row, double mins[3], double maxs[3])
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->window));
    int b = snap ? allium_snapshot_brush_index(snap, row) : -1;
    return b >= 0 && snap->scene && al_scene_brush_bounds(snap->scene, b, mins, maxs);
}

AlliumView *view_3d(SelfTest *t)
{
    return allium_window_get_view(t->window, 0);
}

/* WINDOW (or any widget) rendered into a texture, as the compositor would show it. */
static GdkTexture *render_window(GtkWidget *window)
{
    int width = gtk_widget_get_width(window), height = gtk_widget_get_height(window);
    if (width <= 0 || height <= 0) return NULL;
    GdkPaintable *paintable = gtk_widget_paintable_new(window);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    g_object_unref(paintable);
    if (!node) return NULL;
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(window));
    graphene_rect_t viewport = GRAPHENE_RECT_INIT(0, 0, (float) width, (float) height);
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &viewport);
    gsk_render_node_unref(node);
    return texture;
}

/* Lets WINDOW's frame clock lay it out and draw it once: a widget changed by the step (a
 * label's text, a button shown) is allocated anew only in the next frame, and
 * snapshotting it before that makes GTK warn of a widget without an allocation. */
static void settle_frame(GtkWidget *window)
{
    /* A dialog just shown has no frame clock until it is mapped: wait for that too. */
    gint64 until = g_get_monotonic_time() + 1000 * 1000;
    GdkFrameClock *clock = NULL;
    gint64 frame = -1;
    gtk_widget_queue_draw(window);
    while (g_get_monotonic_time() < until) {
        GdkFrameClock *now =
            gtk_widget_get_mapped(window) ? gtk_widget_get_frame_clock(window) : NULL;
        if (now && now != clock) {
            clock = now;
            frame = gdk_frame_clock_get_frame_counter(clock);
            gtk_widget_queue_draw(window);
        } else if (clock && gdk_frame_clock_get_frame_counter(clock) > frame) {
            return;
        }
        if (!g_main_context_iteration(NULL, FALSE)) g_usleep(1000);
    }
}

typedef struct shot_wait {
    GtkWidget *window;
    GdkTexture *texture;
    gboolean taken;
} shot_wait;

static void shot_after_paint_cb(GdkFrameClock *clock, shot_wait *w)
{
    (void) clock;
    if (w->taken) return;
    w->taken = TRUE;
    w->texture = render_window(w->window);
}

/* WINDOW drawn into a texture at the end of one of its frames (its frame clock's
 * "after-paint"): every widget is allocated then. Snapshotting it between frames could
 * meet a widget that something asynchronous (a file chooser loading its folder, a label
 * set by a timeout) changed since the last layout, and GTK warns of a widget without an
 * allocation. NULL if no frame came within a second. */
static GdkTexture *render_after_frame(GtkWidget *window)
{
    GdkFrameClock *clock =
        gtk_widget_get_mapped(window) ? gtk_widget_get_frame_clock(window) : NULL;
    if (!clock) return NULL;
    shot_wait w = {window, NULL, FALSE};
    gulong handler = g_signal_connect(clock, "after-paint", G_CALLBACK(shot_after_paint_cb), &w);
    gtk_widget_queue_draw(window);
    gint64 until = g_get_monotonic_time() + 1000 * 1000;
    while (!w.taken && g_get_monotonic_time() < until)
        if (!g_main_context_iteration(NULL, FALSE)) g_usleep(1000);
    g_signal_handler_disconnect(clock, handler);
    return w.texture;
}

GdkTexture *screenshot(SelfTest *t, GtkWidget *window, const char *name)
{
    settle_frame(window);
    GdkTexture *texture = render_after_frame(window);
    if (!texture) texture = render_window(window);
    /* A window that was just shown or resized may not be laid out yet: let the frame
     * clock run (this is a test; re-entering the main loop here is harmless). */
    for (int tries = 0; !texture && tries < 50; tries++) {
        gint64 until = g_get_monotonic_time() + 20 * 1000;
        while (g_get_monotonic_time() < until) g_main_context_iteration(NULL, FALSE);
        texture = render_window(window);
    }
    check(t, texture != NULL, "screenshot %s rendered", name);
    if (!texture) return NULL;
    g_autofree char *path = dir_file(t, name);
    check(t, gdk_texture_save_to_png(texture, path), "screenshot saved to %s", path);
    return texture;
}

/* Pixels of TEXTURE as 32-bit words (GDK's download format), width and height. */
static guint32 *download(GdkTexture *texture, int *width, int *height)
{
    *width = gdk_texture_get_width(texture);
    *height = gdk_texture_get_height(texture);
    guint32 *pixels = g_new(guint32, (gsize) *width * (gsize) *height);
    gdk_texture_download(texture, (guchar *) pixels, (gsize) *width * 4);
    return pixels;
}

/* The bounds of WIDGET in WINDOW's coordinates, clipped to the texture. */
static void widget_rect(GtkWidget *widget, GtkWidget *window, int width, int height, int *x0,
                        int *y0, int *x1, int *y1)
{
    graphene_rect_t r;
    if (!gtk_widget_compute_bounds(widget, window, &r)) {
        *x0 = *y0 = 0;
        *x1 = width;
        *y1 = height;
        return;
    }
    *x0 = CLAMP((int) r.origin.x, 0, width);
    *y0 = CLAMP((int) r.origin.y, 0, height);
    *x1 = CLAMP((int) (r.origin.x + r.size.width), 0, width);
    *y1 = CLAMP((int) (r.origin.y + r.size.height), 0, height);
}

int count_colour(GdkTexture *texture, GtkWidget *widget, GtkWidget *window, guint32 rgb,
                 int tolerance)
{
    int width, height, x0, y0, x1, y1, n = 0;
    guint32 *pixels = download(texture, &width, &height);
    widget_rect(widget, window, width, height, &x0, &y0, &x1, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            guint32 p = pixels[(gsize) y * (gsize) width + (gsize) x];
            int top = 0;
            for (int shift = 0; shift <= 16; shift += 8) top = MAX(top, (int) ((p >> shift) & 255));
            /* Lines blend into the background at their edges: the hue counts, the pixel
             * brought to full brightness (dark pixels are background). */
            gboolean near = top >= 64;
            for (int shift = 0; shift <= 16 && near; shift += 8)
                near = abs((int) ((p >> shift) & 255) * 255 / top - (int) ((rgb >> shift) & 255)) <=
                       tolerance;
            n += near;
        }
    g_free(pixels);
    return n;
}

/* Distinct colours and the standard deviation of brightness inside WIDGET's part of
 * TEXTURE: a drawn map has many colours and shading, a blank view one or two. */
static void measure_region(GdkTexture *texture, GtkWidget *widget, GtkWidget *window,
                           int *colours, double *deviation)
{
    int width, height, x0, y0, x1, y1;
    guint32 *pixels = download(texture, &width, &height);
    widget_rect(widget, window, width, height, &x0, &y0, &x1, &y1);
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    double sum = 0, sum2 = 0;
    long n = 0;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) {
            guint32 p = pixels[(gsize) y * (gsize) width + (gsize) x] & 0xffffff;
            if (g_hash_table_size(seen) < 100000)
                g_hash_table_add(seen, GUINT_TO_POINTER(p + 1));
            double l = 0.3 * ((p >> 16) & 255) + 0.59 * ((p >> 8) & 255) + 0.11 * (p & 255);
            sum += l;
            sum2 += l * l;
            n++;
        }
    }
    *colours = (int) g_hash_table_size(seen);
    double mean = n ? sum / (double) n : 0;
    *deviation = n ? sqrt(MAX(0, sum2 / (double) n - mean * mean)) : 0;
    g_hash_table_unref(seen);
    g_free(pixels);
}

static void check_not_blank(SelfTest *t, GdkTexture *texture, GtkWidget *view, const char *what)
{
    if (!texture) return;
    int colours;
    double deviation;
    measure_region(texture, view, GTK_WIDGET(t->window), &colours, &deviation);
    check(t, colours > 40 && deviation > 6.0,
          "%s shows the map (%d colours, brightness deviation %.1f)", what, colours, deviation);
}

/* The fraction of WIDGET's pixels that differ between two screenshots. */
double changed_fraction(GdkTexture *a, GdkTexture *b, GtkWidget *widget, GtkWidget *window)
{
    if (!a || !b) return 0;
    int wa, ha, wb, hb, x0, y0, x1, y1;
    guint32 *pa = download(a, &wa, &ha), *pb = download(b, &wb, &hb);
    double fraction = 0;
    if (wa == wb && ha == hb) {
        widget_rect(widget, window, wa, ha, &x0, &y0, &x1, &y1);
        long differ = 0, n = 0;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++, n++)
                differ += pa[(gsize) y * (gsize) wa + (gsize) x] != pb[(gsize) y * (gsize) wa + (gsize) x];
        fraction = n ? (double) differ / (double) n : 0;
    }
    g_free(pa);
    g_free(pb);
    return fraction;
}

/* Takes screenshot NAME of the sample's window, checks the 3D view is drawn and, when
 * CHANGE names what was done, that it changed the picture. */
void shoot_and_compare(SelfTest *t, const char *name, const char *change)
{
    GdkTexture *shot = screenshot(t, GTK_WIDGET(t->window), name);
    check_not_blank(t, shot, GTK_WIDGET(view_3d(t)), name);
    if (change && t->previous) {
        double f = changed_fraction(t->previous, shot, GTK_WIDGET(view_3d(t)), GTK_WIDGET(t->window));
        check(t, f > 0.002, "%s changed the 3D view (%.1f%% of its pixels)", change, f * 100);
    }
    g_clear_object(&t->previous);
    t->previous = shot;
    AlliumDocument *doc = allium_window_get_document(t->window);
    t->previous_lit = doc && allium_document_get_lightmap(doc) && !allium_document_get_lighting(doc);
}

/* FALSE the first time in a step, and the next poll comes after a pause: a change
 * (banner, layout) is laid out and drawn before a screenshot is taken. */
gboolean settle(SelfTest *t)
{
    if (t->settled) return TRUE;
    t->settled = TRUE;
    t->resume_us = g_get_monotonic_time() + 300 * 1000;
    return FALSE;
}

/* Marks the 3D view's frame count, to wait for the frame showing an action's result. */
void mark_frames(SelfTest *t)
{
    t->frames_mark = allium_view_get_frames_drawn(view_3d(t));
    allium_view_queue_render(view_3d(t));
}

gboolean new_frames(SelfTest *t)
{
    return allium_view_get_frames_drawn(view_3d(t)) > t->frames_mark;
}

gboolean compiled_current(AlliumWindow *window)
{
    AlliumDocument *doc = window ? allium_window_get_document(window) : NULL;
    AlliumSnapshot *snap = doc ? allium_document_get_snapshot(doc) : NULL;
    return snap && !allium_document_get_compiling(doc) &&
           snap->generation == allium_document_get_generation(doc);
}

static const char *world_message(AlliumWindow *window)
{
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(window));
    return snap ? allium_snapshot_entity_value(snap, 0, "message") : NULL;
}

static gboolean write_file(SelfTest *t, const char *name, const char *text)
{
    g_autofree char *path = dir_file(t, name);
    GError *error = NULL;
    gboolean ok = g_file_set_contents(path, text, -1, &error);
    check(t, ok, "wrote %s%s%s", path, error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    return ok;
}

static AlliumWindow *window_with_banner_error(SelfTest *t, const char **text)
{
    GtkMessageType type;
    if (allium_window_get_banner(t->window, &type, text) && type == GTK_MESSAGE_ERROR)
        return t->window;
    return NULL;
}

static void lit_cb(AlliumDocument *document, SelfTest *t)
{
    (void) document;
    t->lightmaps++;
}

/* --- steps --------------------------------------------------------------------------- */

static const char second_map[] =
    "// A closed box with a player start: the self-test's second map\n"
    "{\n\"classname\" \"worldspawn\"\n"
    "{\n( -64 -64 -16 ) ( -64 -63 -16 ) ( -64 -64 -15 ) floor 0 0 0 1 1\n"
    "( 64 64 0 ) ( 64 64 1 ) ( 64 65 0 ) floor 0 0 0 1 1\n"
    "( -64 -64 -16 ) ( -64 -64 -15 ) ( -63 -64 -16 ) floor 0 0 0 1 1\n"
    "( 64 64 0 ) ( 65 64 0 ) ( 64 64 1 ) floor 0 0 0 1 1\n"
    "( -64 -64 -16 ) ( -63 -64 -16 ) ( -64 -63 -16 ) floor 0 0 0 1 1\n"
    "( 64 64 0 ) ( 64 65 0 ) ( 65 64 0 ) floor 0 0 0 1 1\n}\n"
    "{\n( -64 -64 128 ) ( -64 -63 128 ) ( -64 -64 129 ) ceiling 0 0 0 1 1\n"
    "( 64 64 144 ) ( 64 64 145 ) ( 64 65 144 ) ceiling 0 0 0 1 1\n"
    "( -64 -64 128 ) ( -64 -64 129 ) ( -63 -64 128 ) ceiling 0 0 0 1 1\n"
    "( 64 64 144 ) ( 65 64 144 ) ( 64 64 145 ) ceiling 0 0 0 1 1\n"
    "( -64 -64 128 ) ( -63 -64 128 ) ( -64 -63 128 ) ceiling 0 0 0 1 1\n"
    "( 64 64 144 ) ( 64 65 144 ) ( 65 64 144 ) ceiling 0 0 0 1 1\n}\n"
    "}\n"
    "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 24\"\n}\n";

static gboolean step_prepare(SelfTest *t)
{
    check(t, g_mkdir_with_parents(t->dir, 0755) == 0, "the test folder %s exists", t->dir);
    /* Leftovers of an earlier run would change the names imports get. */
    static const char *old[] = {"second.allium", "second.allium-wal", "second.allium-shm",
                                "sample.allium", "sample.allium-wal", "sample.allium-shm"};
    for (guint i = 0; i < G_N_ELEMENTS(old); i++) {
        g_autofree char *path = dir_file(t, old[i]);
        g_unlink(path);
    }
    write_file(t, "second.map", second_map);
    write_file(t, "not-a-map.txt", "This is a shopping list, not a map.\nEggs, flour.\n");
    write_file(t, "damaged.allium", "SQLite format 3\nthe rest of this file is gone\n");
    allium_application_set_import_dir(t->app, t->dir);

    GError *error = NULL;
    gboolean ok = allium_prepare_sample(t->sample_path, &error);
    check(t, ok, "the sample map was imported into %s%s%s", t->sample_path, error ? ": " : "",
          error ? error->message : "");
    g_clear_error(&error);
    if (!ok) return TRUE;
    allium_application_open_document(t->app, t->sample_path, NULL, NULL);
    AlliumWindow *window = allium_application_find_window(t->app, t->sample_path);
    check(t, window != NULL, "the sample map opened in a window");
    if (window) {
        t->window = g_object_ref(window);
        g_signal_connect(allium_window_get_document(window), "lit", G_CALLBACK(lit_cb), t);
    }
    return TRUE;
}

static gboolean step_wait_compile(SelfTest *t)
{
    if (!t->window || !compiled_current(t->window)) return FALSE;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        if (allium_view_get_frames_drawn(allium_window_get_view(t->window, i)) == 0) return FALSE;
    if (!settle(t)) return FALSE;
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->window));
    check(t, snap->world != NULL, "the sample map compiled");
    check(t, snap->scene != NULL, "the sample map has a scene");
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        const char *error = allium_view_get_gl_error(allium_window_get_view(t->window, i));
        check(t, error == NULL, "view %d has a renderer%s%s", i, error ? ": " : "", error ? error : "");
    }
    check(t, g_strcmp0(allium_window_get_title_text(t->window), "sample.allium") == 0,
          "the title is the file name (it is \"%s\")", allium_window_get_title_text(t->window));
    return TRUE;
}

static gboolean step_shot_open(SelfTest *t)
{
    shoot_and_compare(t, "01-open.png", NULL);
    for (int i = 1; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = allium_window_get_view(t->window, i);
        int colours;
        double deviation;
        if (!t->previous) break;
        measure_region(t->previous, GTK_WIDGET(view), GTK_WIDGET(t->window), &colours, &deviation);
        check(t, colours > 4, "the %s view draws something (%d colours)",
              allium_view_kind_to_string(allium_view_get_kind(view)), colours);
    }
    return TRUE;
}

static gboolean step_single_3d(SelfTest *t)
{
    if (!t->step_begun) {
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.layout", "s", "single-3d");
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    check(t, !gtk_widget_get_visible(GTK_WIDGET(allium_window_get_view(t->window, 1))),
          "the single-3D layout hides the top view");
    check(t, g_strcmp0(t->window->layout, "single-3d") == 0, "the layout action's state is single-3d");
    shoot_and_compare(t, "02-single-3d.png", NULL);
    return TRUE;
}

static gboolean step_lit(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    AlliumLightmap *lightmap = allium_document_get_lightmap(doc);
    if (!t->step_begun) {
        check(t, snap->rad != NULL && snap->lights > 0, "the sample has a solver (%d lights)",
              snap->lights);
        check(t, lightmap && lightmap->stats.direct_done,
              "the sample arrived with its direct light (%" G_GINT64_FORMAT " shots)",
              lightmap ? (gint64) lightmap->stats.shots : (gint64) -1);
        return FALSE;
    }
    /* The solver refines it on its worker until the residual is 1%. */
    if (!lightmap || allium_document_get_lighting(doc)) return FALSE;
    if (!t->marked) {
        /* The frame after the last lightmap is the one to look at. */
        mark_frames(t);
        t->marked = TRUE;
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    const al_rad_stats *st = &lightmap->stats;
    check(t, st->converged || st->residual <= ALLIUM_LIGHT_RESIDUAL,
          "the light converged (residual %.4f after %" G_GINT64_FORMAT " shots, %.0f ms)",
          st->residual, (gint64) st->shots, st->ms);
    check(t, t->lightmaps >= 1, "the solver's lightmaps reached the views (%u)", t->lightmaps);
    const char *status = gtk_label_get_text(t->window->light_label);
    check(t, g_strcmp0(status, "Lit") == 0 && gtk_widget_get_visible(GTK_WIDGET(t->window->light_label)),
          "the status bar says the map is lit (\"%s\")", status);
    al_draw_stats stats;
    allium_view_get_last_stats(view_3d(t), &stats);
    check(t, stats.lightmapped, "the 3D view draws with the lightmap");
    /* The reflected light must show, unless the solver was already done when the last
     * screenshot was taken (a fast machine or a small map): then it has shot it. */
    check(t, st->shots > st->lights, "the solver shot reflected light (%" G_GINT64_FORMAT
          " shots, %d lights)", (gint64) st->shots, st->lights);
    shoot_and_compare(t, "02b-lit.png", t->previous_lit ? NULL : "the converged light");
    return TRUE;
}

static void gl_pixels_cb(AlliumView *view, GdkTexture *pixels, gpointer data)
{
    SelfTest *t = data;
    g_set_object(&t->gl_pixels, pixels);
    t->gl_pixels_frame = allium_view_get_frames_drawn(view); /* this one counted */
}

/* The 3D view's GL area as GTK draws it against its frame as OpenGL drew it (read from the
 * framebuffer in the frame): pixel for pixel the same when AlliumGLArea hands GTK the
 * frame read back in cairo's format (its way while GTK draws in software, as under this
 * test's Xvfb). Once the light has converged, so that no lightmap draws another frame in
 * between. */
static gboolean step_frame_shown(SelfTest *t)
{
    AlliumView *view = view_3d(t);
    GtkWidget *area = GTK_WIDGET(view->gl_area);
    if (!t->step_begun) {
        g_clear_object(&t->gl_pixels);
        allium_view_read_pixels(view, gl_pixels_cb, t);
        return FALSE;
    }
    if (!t->gl_pixels) return FALSE;
    GdkTexture *shown = render_window(area);
    if (allium_view_get_frames_drawn(view) != t->gl_pixels_frame) {
        /* Another frame came in between: again. */
        g_clear_object(&shown);
        g_clear_object(&t->gl_pixels);
        allium_view_read_pixels(view, gl_pixels_cb, t);
        return FALSE;
    }
    gboolean read_back = allium_gl_area_reads_back(ALLIUM_GL_AREA(area));
    check(t,
          read_back || !GSK_IS_CAIRO_RENDERER(gtk_native_get_renderer(gtk_widget_get_native(area))),
          "the 3D view's frames are read back in cairo's format while GTK draws in software "
          "(%s)",
          read_back ? "they are" : "GTK draws with OpenGL");
    int sw = 0, sh = 0, gw, gh;
    guint32 *gl = download(t->gl_pixels, &gw, &gh), *win = shown ? download(shown, &sw, &sh) : NULL;
    long differ = 0;
    int worst = 0;
    for (gsize i = 0; win && sw == gw && sh == gh && i < (gsize) gw * (gsize) gh; i++)
        if ((win[i] ^ gl[i]) & 0xffffff) {
            differ++;
            for (int shift = 0; shift <= 16; shift += 8)
                worst = MAX(worst,
                            ABS((int) ((win[i] >> shift) & 255) - (int) ((gl[i] >> shift) & 255)));
        }
    if (read_back)
        check(t, win && sw == gw && sh == gh && differ == 0,
              "GTK draws the 3D view's frame as OpenGL drew it, pixel for pixel (%dx%d drawn, "
              "%dx%d read; %ld differ, by up to %d)",
              sw, sh, gw, gh, differ, worst);
    g_free(gl);
    g_free(win);
    g_clear_object(&shown);
    g_clear_object(&t->gl_pixels);
    return TRUE;
}

static gboolean step_lighting_off(SelfTest *t)
{
    if (!t->step_begun) {
        check(t, t->window->lighting, "lighting is on by default");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.lighting", NULL);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    al_draw_stats stats;
    allium_view_get_last_stats(view_3d(t), &stats);
    check(t, !t->window->lighting && !stats.lightmapped, "View › Lighting turns the lightmaps off");
    shoot_and_compare(t, "02c-unlit.png", "turning the lighting off");
    return TRUE;
}

static gboolean step_lighting_on(SelfTest *t)
{
    if (!t->step_begun) {
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.lighting", NULL);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    al_draw_stats stats;
    allium_view_get_last_stats(view_3d(t), &stats);
    check(t, t->window->lighting && stats.lightmapped, "and on again");
    shoot_and_compare(t, "02d-lit-again.png", "turning the lighting on");
    return TRUE;
}

static gboolean step_toggle(SelfTest *t, const char *action, const char *shot, const char *what)
{
    if (!t->step_begun) {
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), action, NULL), "%s activated",
              action);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    shoot_and_compare(t, shot, what);
    return TRUE;
}

static gboolean step_portals(SelfTest *t)
{
    return step_toggle(t, "win.show-portals", "03-portals.png", "showing portals");
}

static gboolean step_splits(SelfTest *t)
{
    return step_toggle(t, "win.show-splits", "03b-splits.png", "showing the BSP splits");
}

/* Moves the point the splits overlay looks at to POINT (as the pointer would). */
static gboolean step_split_point(SelfTest *t, const double point[3], const char *shot,
                                 const char *change)
{
    if (!t->step_begun) {
        allium_window_set_split_point(t->window, point);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    shoot_and_compare(t, shot, change);
    return TRUE;
}

/* The pointer over a point outside the map: no block, so the splits go. */
static gboolean step_splits_elsewhere(SelfTest *t)
{
    return step_split_point(t, (const double[3]){1e6, 1e6, 1e6}, "03c-splits-elsewhere.png",
                            "moving the splits' point out of the map");
}

static gboolean step_splits_off(SelfTest *t)
{
    if (!step_split_point(t, allium_view_get_camera(view_3d(t))->position,
                          "03d-splits-back.png", "moving the splits' point back"))
        return FALSE;
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.show-splits", NULL);
    return TRUE;
}

static gboolean step_wireframe(SelfTest *t)
{
    return step_toggle(t, "win.wireframe", "04-wireframe.png", "wireframe");
}

static gboolean step_move_camera(SelfTest *t)
{
    if (!t->step_begun) {
        al_camera *camera = allium_view_get_camera(view_3d(t));
        al_camera_fly(camera, 96, 32, 16);
        al_camera_look(camera, 35, -10);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    shoot_and_compare(t, "05-moved.png", "moving the camera");
    return TRUE;
}

static gboolean step_undo_nothing(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    check(t, !allium_document_can_undo(doc), "a freshly imported map has nothing to undo");
    check(t, !gtk_widget_get_sensitive(GTK_WIDGET(t->window->undo_button)),
          "the undo button is disabled");
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
    GError *error = NULL;
    gboolean undone = allium_document_undo(doc, &error);
    check(t, !undone && g_error_matches(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_NOTHING_TO_DO),
          "undo with nothing to undo says so and changes nothing");
    g_clear_error(&error);
    return TRUE;
}

static gboolean step_edit(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        t->original_message = g_strdup(world_message(t->window));
        gint64 world = allium_document_get_world_entity(doc);
        GError *error = NULL;
        gboolean ok = allium_document_set_entity_property(doc, world, "message",
                                                          "Edited by the self-test", &error);
        check(t, ok, "setting the worldspawn message%s%s", error ? ": " : "",
              error ? error->message : "");
        g_clear_error(&error);
        check(t, allium_document_can_undo(doc), "the edit can be undone");
        check(t, gtk_widget_get_sensitive(GTK_WIDGET(t->window->undo_button)),
              "the undo button is enabled");
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, label && *label, "the undo step has a label (\"%s\")", label ? label : "");
        const char *tip = gtk_widget_get_tooltip_text(GTK_WIDGET(t->window->undo_button));
        check(t, tip && label && strstr(tip, label), "the undo button's tooltip names it (\"%s\")",
              tip ? tip : "");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    check(t, g_strcmp0(world_message(t->window), "Edited by the self-test") == 0,
          "the recompiled map has the new message");
    return TRUE;
}

static gboolean step_undo_edit(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        /* An undo is an edit to the engine: its light is carried and corrected. */
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL),
              "win.undo activated");
        check(t, !allium_document_can_undo(doc), "after the undo there is nothing to undo");
        check(t, allium_document_can_redo(doc), "after the undo the edit can be redone");
        check(t, !gtk_widget_get_sensitive(GTK_WIDGET(t->window->undo_button)),
              "the undo button is disabled again");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    AlliumLightmap *lightmap = allium_document_get_lightmap(doc);
    check(t, lightmap != NULL, "the recompiled map is lit again");
    check(t, g_strcmp0(world_message(t->window), t->original_message) == 0,
          "undo restored the message (\"%s\")", world_message(t->window) ? world_message(t->window) : "");
    check(t, g_strcmp0(allium_window_get_title_text(t->window), "sample.allium") == 0,
          "the title is unchanged by editing (\"%s\")", allium_window_get_title_text(t->window));
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.redo", NULL) &&
                 allium_document_can_undo(doc) && !allium_document_can_redo(doc),
          "win.redo redoes the edit");
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL) &&
                 !allium_document_can_undo(doc),
          "and win.undo undoes it again");
    return TRUE;
}

static gboolean step_export(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    g_autofree char *path = dir_file(t, "exported.map");
    GError *error = NULL;
    gboolean ok = allium_export_map(doc, path, &error);
    check(t, ok, "exporting the sample as %s%s%s", path, error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    if (!ok) return TRUE;
    /* The export reads back as the same map. */
    al_map *map = NULL;
    al_diag_list diags = {0};
    al_status st = al_map_read_file(path, &map, &diags);
    int brushes = 0;
    for (int e = 0; st == AL_OK && e < map->entity_count; e++) brushes += map->entities[e].brush_count;
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    check(t, st == AL_OK && brushes == snap->input.input.brush_count &&
                 map->entity_count == snap->input.input.entity_count,
          "the exported .map reads back with the map's %d brushes (%d read)",
          snap->input.input.brush_count, brushes);
    al_map_destroy(map);
    al_diag_list_clear(&diags);
    return TRUE;
}

static void export_bsp_done_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    (void) source;
    SelfTest *t = data;
    GError *error = NULL;
    t->bsp_state = allium_export_bsp_finish(result, NULL, NULL, &error) ? 1 : -1;
    if (error) t->bsp_error = g_strdup(error->message);
    g_clear_error(&error);
}

/* Exporting the sample as a Quake BSP (what the File menu's action runs, without its file
 * chooser): the worker thread writes a BSP29 whose header and lumps a reader accepts. */
static gboolean step_export_bsp(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "exported.bsp");
    if (!t->step_begun) {
        g_unlink(path);
        t->bsp_state = 0;
        allium_export_bsp_async(allium_window_get_document(t->window), path, AL_BSP29, NULL,
                                export_bsp_done_cb, t);
        return FALSE;
    }
    if (t->bsp_state == 0) return FALSE;
    check(t, t->bsp_state == 1, "exporting the sample as %s%s%s", path, t->bsp_error ? ": " : "",
          t->bsp_error ? t->bsp_error : "");
    g_clear_pointer(&t->bsp_error, g_free);
    gchar *bytes = NULL;
    gsize size = 0;
    gboolean read = t->bsp_state == 1 && g_file_get_contents(path, &bytes, &size, NULL);
    /* Version 29, then 15 lumps whose offsets and lengths lie within the file. */
    gboolean sound =
        read && size >= 124 && bytes[0] == 29 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0;
    for (int l = 0; sound && l < 15; l++) {
        guint32 v[2];
        memcpy(v, bytes + 4 + 8 * l, sizeof v);
        sound =
            GUINT32_FROM_LE(v[0]) <= size && GUINT32_FROM_LE(v[1]) <= size - GUINT32_FROM_LE(v[0]);
    }
    check(t, sound, "the exported BSP is a BSP29 whose lumps lie within its %zu bytes",
          (size_t) size);
    g_free(bytes);
    return TRUE;
}

/* Run in Engine with an engine of the test's own (a script that notes what it was given
 * and what it found, says a last word and fails): first without an engine (the banner
 * says what to set), then with one: the map is exported to GAME/id1/maps/NAME.bsp, the
 * engine runs in GAME as "-basedir GAME +map NAME" and the extra arguments, and its
 * failure is told with its status and last words. */
static gboolean step_run_engine(SelfTest *t)
{
    AlliumPreferences *prefs = allium_preferences_get_default();
    g_autofree char *game = dir_file(t, "game");
    g_autofree char *engine = dir_file(t, "engine.sh");
    const char *banner = gtk_label_get_text(t->window->banner_label);
    if (!t->step_begun) {
        g_object_set(prefs, "engine", "", NULL);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.run-engine", NULL),
              "win.run-engine activated");
        banner = gtk_label_get_text(t->window->banner_label);
        check(t, strstr(banner, _("Run in Engine needs an engine")) != NULL,
              "without an engine the banner says what to set (\"%s\")", banner);
        g_mkdir_with_parents(game, 0755);
        static const char script[] = "#!/bin/sh\n"
                                     "printf '%s\\n' \"$@\" > args.txt\n"
                                     "pwd > cwd.txt\n"
                                     "ls id1/maps > maps.txt\n"
                                     "echo 'Host_Error: the test engine stops here'\n"
                                     "exit 3\n";
        gboolean written =
            g_file_set_contents(engine, script, -1, NULL) && g_chmod(engine, 0755) == 0;
        check(t, written, "wrote the test's engine %s", engine);
        g_object_set(prefs, "engine", engine, "game-folder", game, "game-mod", "id1",
                     "engine-arguments", "+skill 2 -window", "export-folder", "", NULL);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.run-engine", NULL),
              "win.run-engine activated with the test's engine");
        return FALSE;
    }
    if (!strstr(banner, "status 3")) return FALSE;
    check(t, strstr(banner, "Host_Error: the test engine stops here") != NULL,
          "the banner tells the engine's status and last words (\"%s\")", banner);
    g_autofree char *path =
        g_strdup(allium_document_get_path(allium_window_get_document(t->window)));
    g_autofree char *base = g_path_get_basename(path);
    char *dot = strrchr(base, '.');
    if (dot) *dot = '\0';
    g_autofree char *args_file = g_build_filename(game, "args.txt", NULL);
    g_autofree char *args = NULL;
    g_file_get_contents(args_file, &args, NULL, NULL);
    g_autofree char *want =
        g_strdup_printf("-basedir\n%s\n+map\n%s\n+skill\n2\n-window\n", game, base);
    check(t, g_strcmp0(args, want) == 0, "the engine was given \"%s\" (want \"%s\")",
          args ? args : "", want);
    g_autofree char *cwd_file = g_build_filename(game, "cwd.txt", NULL);
    g_autofree char *cwd = NULL;
    g_file_get_contents(cwd_file, &cwd, NULL, NULL);
    if (cwd) g_strstrip(cwd);
    check(t, g_strcmp0(cwd, game) == 0, "the engine ran in the game folder (%s)", cwd ? cwd : "");
    g_autofree char *bsp_name = g_strconcat(base, ".bsp", NULL);
    g_autofree char *bsp = g_build_filename(game, "id1", "maps", bsp_name, NULL);
    gchar *bytes = NULL;
    gsize size = 0;
    gboolean read = g_file_get_contents(bsp, &bytes, &size, NULL);
    check(t, read && size > 124 && bytes[0] == 29 && bytes[1] == 0,
          "the map was exported as a BSP29 to %s before the engine started", bsp);
    g_free(bytes);
    g_autofree char *maps_file = g_build_filename(game, "maps.txt", NULL);
    g_autofree char *maps = NULL;
    g_file_get_contents(maps_file, &maps, NULL, NULL);
    check(t, maps && strstr(maps, bsp_name), "the engine found the .bsp in id1/maps (%s)",
          maps ? maps : "");
    g_object_set(prefs, "engine", "", "game-folder", "", "engine-arguments", "", NULL);
    return TRUE;
}

static gboolean step_read_only(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "locked.allium");
    if (!t->step_begun) {
        GError *error = NULL;
        g_autofree char *map = dir_file(t, "second.map");
        gboolean ok = allium_import_map_to(map, path, &error);
        check(t, ok, "made %s%s%s", path, error ? ": " : "", error ? error->message : "");
        g_clear_error(&error);
        /* Another writer: this process's own open file, whose lock conflicts just the
         * same as another program's. */
        al_diag_list diags = {0};
        ok = ok && al_doc_open(path, AL_DOC_READ_WRITE, &t->writer, &diags) == AL_OK;
        al_diag_list_clear(&diags);
        check(t, ok, "another writer holds %s", path);
        if (!ok) return TRUE;
        allium_application_open_document(t->app, path, NULL, NULL);
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, path);
    if (!window || !compiled_current(window) || !settle(t)) return FALSE;
    AlliumDocument *doc = allium_window_get_document(window);
    check(t, allium_document_get_read_only(doc), "a map another program writes opens read-only");
    GtkMessageType type;
    const char *text = NULL;
    check(t, allium_window_get_banner(window, &type, &text) && type == GTK_MESSAGE_WARNING,
          "the window says so (\"%s\")", text ? text : "");
    check(t, g_str_has_suffix(allium_window_get_title_text(window), "(read-only)"),
          "and its title too (\"%s\")", allium_window_get_title_text(window));
    g_autoptr(GdkTexture) texture = screenshot(t, GTK_WIDGET(window), "09-read-only.png");
    gtk_window_destroy(GTK_WINDOW(window));
    g_clear_pointer(&t->writer, al_doc_close);
    return TRUE;
}

static gboolean step_second_map(SelfTest *t)
{
    g_autofree char *imported = dir_file(t, "second.allium");
    if (!t->step_begun) {
        g_autofree char *path = dir_file(t, "second.map");
        g_autoptr(GFile) file = g_file_new_for_path(path);
        allium_application_open_file(t->app, file, NULL);
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, imported);
    if (!window || !compiled_current(window) ||
        allium_view_get_frames_drawn(allium_window_get_view(window, 0)) < 1 || !settle(t))
        return FALSE;
    t->second = g_object_ref(window);
    check(t, t->second != t->window, "the second map opened in its own window");
    GtkMessageType type;
    const char *text = NULL;
    gboolean shown = allium_window_get_banner(t->second, &type, &text);
    check(t, shown && type == GTK_MESSAGE_INFO && text && strstr(text, "second.map"),
          "the second window says what was imported (\"%s\")", text ? text : "");
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(t->second));
    check(t, snap->world && snap->input.input.brush_count == 2, "the second map has its 2 brushes");
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->second), "06-second-map.png");

    /* A second import of the same .map does not touch the first document. */
    g_autofree char *map = dir_file(t, "second.map");
    GError *error = NULL;
    int warnings = 0;
    g_autofree char *again = allium_import_map(map, NULL, &warnings, NULL, &error);
    check(t, again && g_str_has_suffix(again, "/second (2).allium"),
          "importing second.map again makes \"second (2).allium\" (%s)",
          again ? again : error->message);
    g_clear_error(&error);
    if (again) {
        static const char *sides[] = {"", "-wal", "-shm"};
        for (guint i = 0; i < G_N_ELEMENTS(sides); i++) {
            g_autofree char *side = g_strconcat(again, sides[i], NULL);
            g_unlink(side);
        }
    }
    return TRUE;
}

/* Writes textured.wad (WAD3) into the test folder with a 16 x 16 checker texture for each of
 * NAMES (COUNT of them), through a temporary file renamed over it, as texture tools do. */
static gboolean write_test_wad(SelfTest *t, const char *const *names, int count)
{
    static guint8 indices[16 * 16], palette[768];
    for (int i = 0; i < 16 * 16; i++) indices[i] = ((i % 16) / 4 + (i / 16) / 4) % 2 ? 200 : 20;
    for (int c = 0; c < 256; c++)
        palette[3 * c] = (guint8) c, palette[3 * c + 2] = (guint8) (255 - c);
    al_wad_texture_desc desc[4];
    for (int i = 0; i < count && i < 4; i++)
        desc[i] = (al_wad_texture_desc){names[i], 16, 16, indices, palette};
    size_t size = 0;
    guint8 *bytes = al_wad_write(3, desc, count, NULL, &size);
    g_autofree char *path = dir_file(t, "textured.wad");
    GError *error = NULL;
    gboolean ok = bytes && g_file_set_contents(path, (const char *) bytes, (gssize) size, &error);
    check(t, ok, "textured.wad was written%s%s", error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    free(bytes);
    return ok;
}

/* A map whose "wad" key names a WAD beside it: the texture it holds is loaded (off the main
 * thread) and drawn by the 3D view, a material no WAD holds is drawn from the PNG named
 * after it beside the map, the material found nowhere is one problem naming it, and when
 * the WAD is written again with that texture too, the textures are read again and nothing
 * is missing. */
static gboolean step_textures(SelfTest *t)
{
    g_autofree char *imported = dir_file(t, "textured.allium");
    if (!t->step_begun) {
        static const char *sides[] = {"", "-wal", "-shm"};
        for (guint i = 0; i < G_N_ELEMENTS(sides); i++) {
            g_autofree char *side = g_strconcat(imported, sides[i], NULL);
            g_unlink(side);
        }
        static const char *first[] = {"redblue"};
        write_test_wad(t, first, 1);
        /* The second map with a wad key, its floor in a texture the WAD has, a face of its
         * ceiling in an image's and the others in one found nowhere. */
        g_autofree char *text = g_strdup(second_map);
        g_autofree char *keyed = NULL;
        {
            g_auto(GStrv) parts = g_strsplit(text, "\"worldspawn\"\n", 2);
            keyed =
                g_strconcat(parts[0], "\"worldspawn\"\n\"wad\" \"textured.wad\"\n", parts[1], NULL);
        }
        g_auto(GStrv) floors = g_strsplit(keyed, " floor ", -1);
        g_autofree char *a = g_strjoinv(" redblue ", floors);
        /* One face of the ceiling in "picture", which picture.png beside the map draws. */
        g_auto(GStrv) one = g_strsplit(a, " ceiling ", 2);
        g_autofree char *b = g_strjoinv(" picture ", one);
        g_auto(GStrv) ceilings = g_strsplit(b, " ceiling ", -1);
        g_autofree char *map = g_strjoinv(" nowhere ", ceilings);
        /* A light, so that the screenshot shows the textures lit. */
        g_autofree char *lit = g_strconcat(map,
                                           "{\n\"classname\" \"light\"\n\"origin\" \"0 0 96\"\n"
                                           "\"light\" \"300\"\n}\n",
                                           NULL);
        write_file(t, "textured.map", lit);
        g_autoptr(GdkPixbuf) picture = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 8, 4);
        gdk_pixbuf_fill(picture, 0x30c050ff);
        g_autofree char *png = dir_file(t, "picture.png");
        GError *error = NULL;
        check(t, gdk_pixbuf_save(picture, png, "png", &error, NULL), "picture.png was written%s%s",
              error ? ": " : "", error ? error->message : "");
        g_clear_error(&error);
        g_autofree char *path = dir_file(t, "textured.map");
        g_autoptr(GFile) file = g_file_new_for_path(path);
        allium_application_open_file(t->app, file, NULL);
        t->phase = 0;
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, imported);
    if (!window || !compiled_current(window)) return FALSE;
    AlliumDocument *document = allium_window_get_document(window);
    AlliumTextures *textures = allium_document_get_textures(document);
    AlliumView *view = NULL;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT && !view; i++)
        if (allium_view_get_kind(allium_window_get_view(window, i)) == AL_VIEW_3D)
            view = allium_window_get_view(window, i);
    if (!view || !textures) return FALSE;
    if (t->phase == 0) {
        if (allium_view_get_frames_drawn(view) < 1 || !settle(t)) return FALSE;
        check(t,
              textures->count == 2 && strcmp(textures->images[0].name, "redblue") == 0 &&
                  textures->images[0].width == 16,
              "the texture the WAD holds was loaded (%d textures)", textures->count);
        const al_texture_image *picture = textures->count == 2 ? &textures->images[1] : NULL;
        check(t,
              picture && strcmp(picture->name, "picture") == 0 && picture->width == 8 &&
                  picture->height == 4 && picture->rgba[0] == 0x30 && picture->rgba[1] == 0xc0 &&
                  picture->rgba[3] == 255,
              "the image named after a material was decoded (picture.png, 8 x 4, green)");
        check(t,
              textures->missing && textures->missing[0] &&
                  strcmp(textures->missing[0], "nowhere") == 0 && !textures->missing[1],
              "the material no WAD holds is missing");
        gboolean named = FALSE;
        for (size_t i = 0; i < textures->diags.count; i++)
            named |= strstr(textures->diags.items[i].message, "nowhere") != NULL;
        check(t, named, "a problem names the missing texture");
        t->frames_mark = allium_view_get_frames_drawn(view);
        allium_view_queue_render(view);
        t->phase = 1;
        return FALSE;
    }
    if (t->phase == 1) {
        if (allium_view_get_frames_drawn(view) <= t->frames_mark) return FALSE;
        al_draw_stats st;
        allium_view_get_last_stats(view, &st);
        check(t, st.textured, "the 3D view draws the textures");
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(window), "06b-textures.png");
        static const char *both[] = {"redblue", "nowhere"};
        write_test_wad(t, both, 2);
        t->phase = 2;
        return FALSE;
    }
    /* The WAD's monitor reads it again. */
    if (textures->missing && textures->missing[0]) return FALSE;
    check(t, textures->count == 3, "the WAD written again was read again (%d textures)",
          textures->count);
    gtk_window_destroy(GTK_WINDOW(window));
    return TRUE;
}

/* The share of WIDGET's pixels in TEXTURE that are the missing-texture checker's magenta
 * (red and blue alike, green well below both), lit or in shadow. */
static double magenta_fraction(GdkTexture *texture, GtkWidget *widget, GtkWidget *window)
{
    int width, height, x0, y0, x1, y1;
    guint32 *pixels = download(texture, &width, &height);
    widget_rect(widget, window, width, height, &x0, &y0, &x1, &y1);
    long magenta = 0, n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++, n++) {
            guint32 p = pixels[(gsize) y * (gsize) width + (gsize) x];
            int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            magenta += r > 2 * g + 16 && b > 2 * g + 16 && abs(r - b) < (r + b) / 4;
        }
    g_free(pixels);
    return n ? (double) magenta / (double) n : 0;
}

/* A face in a texture found nowhere, seen close up in the 3D view alone: the checker with
 * the material's name written across it (the README's picture, missing-texture.png). A slab
 * in "wall", which the sample's WAD lacks, is framed straight on and lit; then it goes. */
static gboolean step_missing_texture(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumView *view = view_3d(t);
    double *lo = t->mark_lo, *hi = t->mark_hi;
    if (!t->step_begun) {
        /* A slab in the hall, its min y face a light's length from one of its lights. */
        const double slab_lo[3] = {128, 224, 0}, slab_hi[3] = {256, 256, 128};
        memcpy(lo, slab_lo, sizeof slab_lo);
        memcpy(hi, slab_hi, sizeof slab_hi);
        g_object_set(t->window, "tool", "select", NULL);
        gint64 id = 0;
        gboolean added = allium_document_add_box(doc, lo, hi, "wall", &id, NULL);
        check(t, added, "a box in a texture the sample's WAD lacks");
        if (!added) return TRUE;
        allium_selection_clear(t->window->selection);
        /* Its min y face, straight on, filling the 3D view, maximized. */
        al_camera *camera = allium_view_get_camera(view);
        t->saved_camera = *camera;
        camera->yaw = 90;
        camera->pitch = 0;
        double face_lo[3] = {lo[0], lo[1], lo[2]}, face_hi[3] = {hi[0], lo[1], hi[2]};
        al_camera_frame(camera, face_lo, face_hi);
        g_signal_emit_by_name(view, "toggle-maximize");
        t->phase = 1;
        return FALSE;
    }
    gboolean settled_light = compiled_current(t->window) && !allium_document_get_lighting(doc) &&
                             allium_document_get_lightmap(doc) != NULL;
    AlliumTextures *textures = allium_document_get_textures(doc);
    if (t->phase == 1) {
        if (!settled_light || !textures || !settle(t)) return FALSE;
        gboolean listed = FALSE;
        for (int i = 0; textures->missing && textures->missing[i]; i++)
            listed |= strcmp(textures->missing[i], "wall") == 0;
        check(t, listed, "\"wall\" is listed as missing");
        mark_frames(t);
        t->phase = 2;
        return FALSE;
    }
    if (t->phase == 2) {
        if (!new_frames(t)) return FALSE;
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "missing-texture.png");
        double f = shot ? magenta_fraction(shot, GTK_WIDGET(view), GTK_WIDGET(t->window)) : 0;
        check(t, f > 0.05, "the named checker fills the 3D view (%.0f%% of it magenta)", f * 100);
        g_signal_emit_by_name(view, "toggle-maximize");
        *allium_view_get_camera(view) = t->saved_camera;
        allium_view_queue_render(view);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        return TRUE;
    }
    return TRUE;
}

/* The light a map had is kept in its file: a copy of the sample, opened and lit until the
 * solver stops, is closed and opened again, and arrives lit with that very light (the
 * same shots) in its first snapshot, with no solver run. */
static gboolean step_reopen_lit(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "relit.allium");
    if (!t->step_begun) {
        static const char *sides[] = {"", "-wal", "-shm"};
        for (guint i = 0; i < G_N_ELEMENTS(sides); i++) {
            g_autofree char *side = g_strconcat(path, sides[i], NULL);
            g_unlink(side);
        }
        GError *error = NULL;
        gboolean ok = allium_prepare_sample(path, &error);
        check(t, ok, "a copy of the sample in %s%s%s", path, error ? ": " : "",
              error ? error->message : "");
        g_clear_error(&error);
        if (!ok) return TRUE;
        allium_application_open_document(t->app, path, NULL, NULL);
        t->phase = 0;
        return FALSE;
    }
    if (t->phase == 1) {
        allium_application_open_document(t->app, path, NULL, NULL);
        t->phase = 2;
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, path);
    if (!window || !compiled_current(window)) return FALSE;
    AlliumDocument *doc = allium_window_get_document(window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    AlliumLightmap *lightmap = allium_document_get_lightmap(doc);
    /* The first opening waits for its textures too: their colours, stored in the map when
     * they arrive, are part of the light it keeps. */
    if (t->phase == 0 && !allium_document_get_textures(doc)) return FALSE;
    if (!lightmap || allium_document_get_lighting(doc)) return FALSE;
    const al_rad_stats *st = &lightmap->stats;
    if (t->phase == 0) {
        check(t, !snap->light_from_cache, "the copy's first opening lights it anew");
        check(t, st->converged || st->residual <= allium_document_get_light_target(doc),
              "and the solver stops at its target (residual %.4f, %" G_GINT64_FORMAT " shots)",
              st->residual, (gint64) st->shots);
        t->relit_shots = st->shots;
        /* A test box, to be there again when the map is opened again. */
        AlliumCollision *c = window->collision;
        double at[3] = {96, 96, 100};
        gboolean placed = allium_collision_add_box(c, at, TRUE) == 0 &&
                          allium_collision_get_box(c, 0, t->mark_lo, NULL);
        check(t, placed, "a test box is placed (at %.1f %.1f %.1f)", t->mark_lo[0], t->mark_lo[1],
              t->mark_lo[2]);
        gtk_window_destroy(GTK_WINDOW(window));
        g_autofree char *kept = allium_session_get_test_boxes(path);
        check(t, kept && strstr(kept, "stand 96 96 "), "closing the map kept it (\"%s\")",
              kept ? kept : "nothing");
        t->phase = 1;
        return FALSE;
    }
    if (!settle(t)) return FALSE;
    check(t, snap->light_from_cache && st->shots == t->relit_shots,
          "opened again, it arrives with the light it had (%" G_GINT64_FORMAT " shots, had %"
          G_GINT64_FORMAT ")", (gint64) st->shots, (gint64) t->relit_shots);
    al_draw_stats stats;
    allium_view_get_last_stats(allium_window_get_view(window, 0), &stats);
    check(t, stats.lightmapped, "and draws with it");
    /* The sample's materials have no colour of their own: they reflect their textures'. */
    const al_input *in = &snap->input.input;
    int reflecting = 0;
    for (int m = 0; m < in->material_count; m++) {
        const al_material_desc *md = &in->materials[m];
        reflecting += md->name && !al_material_colour_is_default(md->name, md->colour);
    }
    check(t, reflecting > 0,
          "its first compile reflects the texture colours kept in the map (%d of %d materials)",
          reflecting, in->material_count);
    double again[3] = {0};
    gboolean found = allium_collision_box_count(window->collision) == 1 &&
                     allium_collision_get_box(window->collision, 0, again, NULL);
    check(t,
          found && again[0] == t->mark_lo[0] && again[1] == t->mark_lo[1] &&
              again[2] == t->mark_lo[2],
          "and with its test box where it was (%.1f %.1f %.1f)", again[0], again[1], again[2]);
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(window), "06b-reopened-lit.png");
    allium_collision_clear_boxes(window->collision);
    gtk_window_destroy(GTK_WINDOW(window));
    return TRUE;
}

static gboolean step_error(SelfTest *t, const char *name, const char *expect, const char *shot)
{
    if (!t->step_begun) {
        allium_window_hide_banner(t->window);
        g_autofree char *path = dir_file(t, name);
        g_autoptr(GFile) file = g_file_new_for_path(path);
        allium_application_open_file(t->app, file, t->window);
        return FALSE;
    }
    const char *text = NULL;
    if (!window_with_banner_error(t, &text) || !settle(t)) return FALSE;
    check(t, text && strstr(text, expect), "opening %s shows an error naming \"%s\" (\"%s\")", name,
          expect, text ? text : "");
    check(t, allium_window_get_document(t->window) != NULL, "the window kept its map");
    g_autoptr(GdkTexture) texture = screenshot(t, GTK_WIDGET(t->window), shot);
    return TRUE;
}

/* Drops the exported .map on the sample's window, as a file manager would: the drop
 * target takes it and the map opens (imported) in a window of its own. */
static gboolean step_drop(SelfTest *t)
{
    g_autofree char *imported = dir_file(t, "exported.allium");
    if (!t->step_begun) {
        GtkDropTarget *drop = NULL;
        GListModel *controllers = gtk_widget_observe_controllers(GTK_WIDGET(t->window));
        for (guint i = 0; i < g_list_model_get_n_items(controllers) && !drop; i++) {
            GObject *c = g_list_model_get_item(controllers, i);
            if (GTK_IS_DROP_TARGET(c)) drop = GTK_DROP_TARGET(c);
            g_object_unref(c);
        }
        g_object_unref(controllers);
        check(t, drop != NULL, "the window has a drop target");
        if (!drop) return TRUE;
        g_autofree char *path = dir_file(t, "exported.map");
        GFile *file = g_file_new_for_path(path);
        GValue value = G_VALUE_INIT;
        g_value_init(&value, GDK_TYPE_FILE_LIST);
        g_value_take_boxed(&value, gdk_file_list_new_from_array(&file, 1));
        gboolean taken = FALSE;
        g_signal_emit_by_name(drop, "drop", &value, 20.0, 20.0, &taken);
        g_value_unset(&value);
        g_object_unref(file);
        check(t, taken, "dropping exported.map on the window is taken");
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, imported);
    if (!window || !compiled_current(window) || !settle(t)) return FALSE;
    check(t, window != t->window && window != t->second,
          "the dropped map opened in a window of its own");
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(window));
    AlliumSnapshot *sample = allium_document_get_snapshot(allium_window_get_document(t->window));
    check(t, snap->world && snap->input.input.brush_count == sample->input.input.brush_count,
          "the dropped map has the sample's %d brushes (%d)", sample->input.input.brush_count,
          snap->input.input.brush_count);
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(window), "06b-dropped.png");
    gtk_window_destroy(GTK_WINDOW(window));
    return TRUE;
}

/* A .map of zero bytes opens as the empty map it is, in a window of its own, whose banner
 * says that the file is empty; the file stays as it was. */
static gboolean step_empty_map(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "empty.map");
    g_autofree char *imported = dir_file(t, "empty.allium");
    if (!t->step_begun) {
        check(t, g_file_set_contents(path, "", 0, NULL), "an empty file empty.map was written");
        g_autoptr(GFile) file = g_file_new_for_path(path);
        allium_application_open_file(t->app, file, t->window);
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, imported);
    GtkMessageType type;
    const char *text = NULL;
    if (!window || !allium_window_get_banner(window, &type, &text) || !settle(t)) return FALSE;
    check(t,
          type == GTK_MESSAGE_INFO && text && strstr(text, "empty.map") &&
              strstr(text, "the file is empty (0 bytes)"),
          "the empty .map opens with a notice saying so (\"%s\")", text ? text : "");
    AlliumSnapshot *snap = allium_document_get_snapshot(allium_window_get_document(window));
    check(t, snap && snap->input.input.brush_count == 0, "the map it opens is empty");
    gchar *contents = NULL;
    gsize length = 1;
    check(t, g_file_get_contents(path, &contents, &length, NULL) && length == 0,
          "empty.map is still empty");
    g_free(contents);
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(window), "07b-empty-map.png");
    gtk_window_destroy(GTK_WINDOW(window));
    return TRUE;
}

static gboolean step_not_a_map(SelfTest *t)
{
    return step_error(t, "not-a-map.txt", "line 1", "07-error-not-a-map.png");
}

static gboolean step_damaged(SelfTest *t)
{
    return step_error(t, "damaged.allium", "damaged.allium", "08-error-damaged.png");
}

GtkWindow *take_new_dialog(GList *before)
{
    GtkWindow *dialog = NULL;
    GList *after = gtk_window_list_toplevels();
    for (GList *l = after; l && !dialog; l = l->next)
        if (!g_list_find(before, l->data) && !ALLIUM_IS_WINDOW(l->data))
            dialog = g_object_ref(l->data);
    g_list_free(before);
    g_list_free(after);
    return dialog;
}

static gboolean step_dialog(SelfTest *t, const char *action, const char *shot)
{
    if (!t->step_begun) {
        GList *before = gtk_window_list_toplevels();
        g_action_group_activate_action(G_ACTION_GROUP(t->app), action, NULL);
        t->dialog = take_new_dialog(before);
        check(t, t->dialog != NULL, "app.%s opened a window", action);
        return t->dialog == NULL;
    }
    if (!gtk_widget_get_mapped(GTK_WIDGET(t->dialog)) || !settle(t)) return FALSE;
    g_autoptr(GdkTexture) texture = screenshot(t, GTK_WIDGET(t->dialog), shot);
    gtk_window_destroy(t->dialog);
    g_clear_object(&t->dialog);
    return TRUE;
}

/* The preferences window, with each setting the README lists: the background colour's
 * button is there and shown (step_background sets the colour with it). */
static gboolean step_preferences(SelfTest *t)
{
    if (t->step_begun && t->dialog && gtk_widget_get_mapped(GTK_WIDGET(t->dialog)) && t->settled) {
        g_autoptr(GPtrArray) buttons = g_ptr_array_new();
        collect_widgets(GTK_WIDGET(t->dialog), GTK_TYPE_COLOR_BUTTON, buttons);
        check(t, buttons->len == 1 && gtk_widget_is_visible(buttons->pdata[0]),
              "the preferences show the background colour's button");
        /* The entity definition files are a setting there: an entry shows the preference. */
        AlliumPreferences *prefs = allium_preferences_get_default();
        g_autofree char *before = NULL;
        g_object_get(prefs, "entity-definitions", &before, NULL);
        static const char *const files = "/tmp/self-test-a.fgd;/tmp/self-test-b.def";
        g_object_set(prefs, "entity-definitions", files, NULL);
        g_autoptr(GPtrArray) entries = g_ptr_array_new();
        collect_widgets(GTK_WIDGET(t->dialog), GTK_TYPE_ENTRY, entries);
        gboolean shown = FALSE;
        for (guint i = 0; i < entries->len; i++)
            shown = shown || g_strcmp0(gtk_editable_get_text(entries->pdata[i]), files) == 0;
        check(t, shown, "the preferences show the entity definition files");
        g_object_set(prefs, "entity-definitions", before ? before : "", NULL);
    }
    return step_dialog(t, "preferences", "10-preferences.png");
}

static gboolean step_shortcuts(SelfTest *t)
{
    return step_dialog(t, "shortcuts", "11-shortcuts.png");
}

static gboolean step_about(SelfTest *t)
{
    return step_dialog(t, "about", "12-about.png");
}

/* The fraction of WIDGET's pixels in TEXTURE within 3 of the colour RGB (0xRRGGBB), or,
 * with ORANGE, of the 3D camera's orange mark (255 170 40) in any blend with a dark
 * background: GTK's cairo renderer (used on software GL) may place a view's picture a
 * fraction of a pixel off, which blends its one-pixel lines with their neighbours. */
static double colour_fraction(GdkTexture *texture, GtkWidget *widget, GtkWidget *window,
                              guint32 rgb, gboolean orange)
{
    int width, height, x0, y0, x1, y1;
    guint32 *pixels = download(texture, &width, &height);
    widget_rect(widget, window, width, height, &x0, &y0, &x1, &y1);
    long n = 0, same = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++, n++) {
            guint32 p = pixels[(gsize) y * (gsize) width + (gsize) x];
            gboolean near = TRUE;
            for (int shift = 0; shift < 24; shift += 8)
                near = near && ABS((int) ((p >> shift) & 255) - (int) ((rgb >> shift) & 255)) <= 3;
            int r = (int) ((p >> 16) & 255), g = (int) ((p >> 8) & 255), b = (int) (p & 255);
            if (orange) near = r > 120 && g > r * 45 / 100 && g < r * 80 / 100 && b < r * 35 / 100;
            same += near;
        }
    g_free(pixels);
    return n ? (double) same / (double) n : 0;
}

static gboolean step_grid_layout(SelfTest *t)
{
    if (!t->step_begun) {
        /* The designer closes the last error's banner before editing. */
        allium_window_hide_banner(t->window);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.layout", "s", "grid");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.show-portals", NULL);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.wireframe", NULL);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        check(t, gtk_widget_get_visible(GTK_WIDGET(allium_window_get_view(t->window, i))),
              "view %d is back in the four-view layout", i);
    g_autoptr(GdkTexture) texture = screenshot(t, GTK_WIDGET(t->window), "13-four-views.png");
    if (texture) {
        GtkWidget *top = GTK_WIDGET(allium_window_get_view(t->window, 1));
        double marker = colour_fraction(texture, top, GTK_WIDGET(t->window), 0xffaa28, TRUE);
        check(t, marker > 0.0001, "the top view marks the 3D camera (%.3f%% orange)",
              marker * 100);
    }
    return TRUE;
}

/* The preference's colour (as the dialog's colour button sets it) clears every view. */
static gboolean step_background(SelfTest *t)
{
    AlliumPreferences *prefs = allium_preferences_get_default();
    if (!t->step_begun) {
        /* Chosen in the preferences window, as a designer does. */
        GList *before = gtk_window_list_toplevels();
        g_action_group_activate_action(G_ACTION_GROUP(t->app), "preferences", NULL);
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        g_autoptr(GPtrArray) buttons = g_ptr_array_new();
        if (dialog) collect_widgets(GTK_WIDGET(dialog), GTK_TYPE_COLOR_BUTTON, buttons);
        check(t, buttons->len == 1, "the preferences have a colour button");
        if (buttons->len == 1)
            gtk_color_chooser_set_rgba(GTK_COLOR_CHOOSER(buttons->pdata[0]),
                                       &(GdkRGBA){0, 128 / 255.0, 128 / 255.0, 1});
        if (dialog) gtk_window_destroy(dialog);
        g_autofree char *chosen = NULL;
        g_object_get(prefs, "background", &chosen, NULL);
        check(t, g_strcmp0(chosen, "#008080") == 0, "its colour is the background preference (%s)",
              chosen);
        mark_frames(t);
        return FALSE;
    }
    if (!new_frames(t) || !settle(t)) return FALSE;
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "14-background.png");
    if (shot) {
        GtkWidget *top = GTK_WIDGET(allium_window_get_view(t->window, 1));
        double teal = colour_fraction(shot, top, GTK_WIDGET(t->window), 0x008080, FALSE);
        check(t, teal > 0.3, "the background preference clears the top view (%.0f%% of it teal)",
              teal * 100);
    }
    g_object_set(prefs, "background", "#1c1d21", NULL);
    return TRUE;
}

static const struct {
    const char *name;
    StepFunc run;
    int timeout_ms;
} steps[] = {
    {"prepare", step_prepare, 10000},
    {"wait for the compile", step_wait_compile, 60000},
    {"screenshot of the opened map", step_shot_open, 5000},
    {"the tools' icons", step_tool_icons, 5000},
    {"the grid in a 2D view's header", step_grid_header, 5000},
    {"single 3D view", step_single_3d, 10000},
    {"lit", step_lit, 120000},
    {"the window shows the frame OpenGL drew", step_frame_shown, 10000},
    {"lighting off", step_lighting_off, 10000},
    {"lighting on", step_lighting_on, 10000},
    {"portals", step_portals, 10000},
    {"BSP splits", step_splits, 10000},
    {"BSP splits elsewhere", step_splits_elsewhere, 10000},
    {"BSP splits back, then off", step_splits_off, 10000},
    {"wireframe", step_wireframe, 10000},
    {"camera move", step_move_camera, 10000},
    {"undo with nothing to undo", step_undo_nothing, 5000},
    {"edit", step_edit, 30000},
    {"undo the edit", step_undo_edit, 30000},
    {"export", step_export, 10000},
    {"export as a Quake BSP", step_export_bsp, 60000},
    {"run in engine", step_run_engine, 60000},
    {"second map", step_second_map, 60000},
    {"textures from the map's WAD", step_textures, 60000},
    {"a map opens with the light it had", step_reopen_lit, 60000},
    {"drop a map on the window", step_drop, 60000},
    {"file that is not a map", step_not_a_map, 20000},
    {"an empty .map", step_empty_map, 30000},
    {"damaged document", step_damaged, 20000},
    {"read-only fallback", step_read_only, 30000},
    {"preferences", step_preferences, 10000},
    {"shortcuts", step_shortcuts, 10000},
    {"about", step_about, 10000},
    {"open through the Open dialog", step_open_dialog, 30000},
    {"new map through the New dialog", step_new_dialog, 30000},
    {"four views again", step_grid_layout, 10000},
    {"view toggles remembered", step_view_toggles, 20000},
    {"faint textures in 2D views", step_faint_textures, 20000},
    {"brush tool", step_brush_tool, 30000},
    {"move by dragging", step_move_drag, 30000},
    {"the light is carried across edits", step_light_carried, 60000},
    {"nudge, duplicate, delete", step_nudge_duplicate_delete, 30000},
    {"select in a rectangle", step_band_select, 10000},
    {"select all, invert, same material and class", step_select_all_invert, 10000},
    {"resize with a handle", step_resize_handle, 30000},
    {"resize in 3D", step_resize_3d, 30000},
    {"resize with a 3D handle", step_resize_3d_handle, 30000},
    {"vertex tool", step_vertex_tool, 60000},
    {"split, several handles, vertical drags", step_vertex_more, 60000},
    {"a missing texture's checker and name", step_missing_texture, 60000},
    {"select a face", step_select_face, 10000},
    {"clip", step_clip, 30000},
    {"clip in 3D", step_clip_3d, 30000},
    {"subtract and merge", step_subtract_merge, 60000},
    {"brush entity, world, materials", step_entity_material, 60000},
    {"hollow", step_hollow, 30000},
    {"brush tool in 3D", step_brush_on_surface, 30000},
    {"rotate", step_rotate, 30000},
    {"texture lock", step_texture_lock, 30000},
    {"align a face's texture", step_align_texture, 30000},
    {"texture browser", step_texture_browser, 30000},
    {"drag a texture onto a face or a brush", step_texture_drop, 30000},
    {"rotate by a typed angle", step_rotate_dialog, 30000},
    {"scale by typed factors", step_scale_dialog, 30000},
    {"rotate by dragging", step_rotate_drag, 30000},
    {"rotate about a picked point", step_rotate_about_point, 30000},
    {"shear", step_shear, 30000},
    {"add shapes", step_add_shapes, 60000},
    {"pick what lies behind", step_cycle_pick, 20000},
    {"hide, isolate, show all", step_hide_isolate, 20000},
    {"groups and layers", step_groups_layers, 20000},
    {"the views' context menu: groups, hide and lock", step_context_menu, 60000},
    {"a layer's colour in the 2D views", step_layer_colour, 30000},
    {"a small brush moves rather than lose the press to its handles", step_small_brush_moves,
     30000},
    {"place a light", step_place_light, 30000},
    {"inspector", step_inspector, 30000},
    {"typed properties from the entity definitions", step_typed_properties, 30000},
    {"angle dial", step_angle_dial, 30000},
    {"entity browser", step_entity_browser, 30000},
    {"the definitions a map names, and the Preferences' at once", step_map_definitions, 60000},
    {"copy and paste", step_clipboard, 30000},
    {"prefabs", step_prefabs, 60000},
    {"a prefab dragged into a 2D view", step_prefab_drag, 60000},
    {"compile panel", step_compile_panel, 60000},
    {"an entity of an unknown class", step_unknown_class, 30000},
    {"the light controls in any order", step_light_orders, 90000},
    {"numbers as the designer reads them", step_numbers, 5000},
    {"collision test box", step_test_box, 10000},
    {"test box of any size", step_test_box_size, 10000},
    {"test box feedback", step_test_box_feedback, 10000},
    {"agents", step_agents, 30000},
    {"properties rebuilt while a row commits", step_inspector_rebuild, 30000},
    {"walk mode", step_walk, 20000},
    {"keys reach the view under the pointer", step_keys_under_pointer, 20000},
    {"agent hulls", step_hulls_dialog, 60000},
    {"undo the editing", step_undo_editing, 30000},
    {"the engine against a full compile", step_engine_oracle, 120000},
    {"an edit's next frame shows it", step_next_frame, 60000},
    {"a pool of water", step_liquid, 30000},
    {"build a sealed map from an empty file", step_build_from_empty, 120000},
    {"background colour", step_background, 10000},
};

static void finish(SelfTest *t)
{
    if (t->failures->len == 0) {
        g_print("self-test: all %d checks passed; screenshots in %s\n", t->checks, t->dir);
        allium_application_set_exit_status(t->app, 0);
    } else {
        g_print("self-test: %u of %d checks FAILED:\n", t->failures->len, t->checks);
        for (guint i = 0; i < t->failures->len; i++)
            g_print("  - %s\n", (const char *) g_ptr_array_index(t->failures, i));
        allium_application_set_exit_status(t->app, 1);
    }
    g_clear_object(&t->window);
    g_clear_object(&t->second);
    g_clear_object(&t->built);
    g_clear_object(&t->previous);
    g_clear_object(&t->radii_off);
    g_clear_object(&t->gl_pixels);
    g_clear_object(&t->held_editor);
    g_action_group_activate_action(G_ACTION_GROUP(t->app), "quit", NULL);
    g_object_unref(t->app);
    g_ptr_array_unref(t->failures);
    g_free(t->original_message);
    g_free(t->bsp_error);
    g_free(t->material);
    g_free(t->drag_detail);
    g_clear_object(&t->drag_row_editor);
    g_clear_pointer(&t->face_light_mark, g_hash_table_unref);
    al_doc_close(t->writer);
    g_free(t->sample_path);
    g_free(t->dir);
    g_free(t);
}

static gboolean tick_cb(gpointer data)
{
    SelfTest *t = data;
    gint64 now = g_get_monotonic_time();
    if (now < t->resume_us) return G_SOURCE_CONTINUE;

    if (t->step >= (int) G_N_ELEMENTS(steps)) {
        finish(t);
        return G_SOURCE_REMOVE;
    }
    if (!t->step_begun) {
        g_print("# %s\n", steps[t->step].name);
        /* On the error stream too, so that a warning GTK logs there shows its step. */
        g_printerr("self-test step: %s\n", steps[t->step].name);
        t->step_started_us = now;
    }
    gboolean done = steps[t->step].run(t);
    t->step_begun = TRUE;
    if (!done && now - t->step_started_us > steps[t->step].timeout_ms * (gint64) 1000) {
        check(t, FALSE, "step \"%s\" finished within %d s", steps[t->step].name,
              steps[t->step].timeout_ms / 1000);
        done = TRUE;
    }
    /* Without a window nothing after the first steps can run. */
    if (done && !t->window) t->step = (int) G_N_ELEMENTS(steps) - 1;
    if (done) {
        t->step++;
        t->step_begun = FALSE;
        t->settled = FALSE;
        t->marked = FALSE;
        t->resume_us = now + 200 * 1000;
    }
    return G_SOURCE_CONTINUE;
}

/* --- public API ---------------------------------------------------------------------- */

void allium_self_test_start(AlliumApplication *app, const char *dir)
{
    SelfTest *t = g_new0(SelfTest, 1);
    t->app = g_object_ref(app);
    t->dir = g_canonicalize_filename(dir, NULL);
    t->sample_path = g_build_filename(t->dir, "sample.allium", NULL);
    t->failures = g_ptr_array_new_with_free_func(g_free);
    /* Fail unless the test finishes and says otherwise. */
    allium_application_set_exit_status(app, 1);
    /* Keep running while no window is open (between steps). */
    g_application_hold(G_APPLICATION(app));
    g_timeout_add(50, tick_cb, t);
    g_print("self-test: working in %s\n", t->dir);
}
