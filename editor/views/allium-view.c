/* AlliumView (see allium-view.h): the widget, its GL area and renderer, its camera, and
 * the frame: which snapshot to draw, with which selection and settings.
 *
 * The renderer borrows the scene it was given until it is given another, so the view
 * keeps a reference to the snapshot it handed over ("drawn") and changes it only inside
 * the render handler, with the context current. The pointer and keyboard controllers are
 * in allium-view-input.c.
 *
 * Workload: a frame per change (camera moves, new snapshot, selection, settings), up to
 * the display's rate while flying.
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "allium-gl-area.h"

#include "allium-preferences.h"

#include <epoxy/gl.h>
#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_TYPE(AlliumView, allium_view, GTK_TYPE_WIDGET)

enum {
    PROP_0,
    PROP_KIND_NAME,
    PROP_WALKING,
    N_PROPS
};

enum {
    SIGNAL_POINTER_INFO,
    SIGNAL_POINTER_POINT,
    SIGNAL_CAMERA_MOVED,
    SIGNAL_TOGGLE_MAXIMIZE,
    SIGNAL_ACTIVATED,
    SIGNAL_EDIT_ERROR,
    N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* Eye height above a player start's origin (Quake's view offset). */
#define EYE_HEIGHT 22.0

/* How long a redraw waits at most for an edit's collision (allium_view_queue_render):
 * HOLD_FOR_COLLISION_MS, or twice as long as the engine's last collision took, up to
 * HOLD_AT_MOST_MS. */
#define HOLD_FOR_COLLISION_MS 30
#define HOLD_AT_MOST_MS       100
/* How long the start of a frame may wait for an edit's collision to come (frame_update_cb):
 * with software OpenGL a frame takes 10-20 ms, so a frame clock running at 60 Hz leaves
 * a few milliseconds at the start of each. */
#define AWAIT_COLLISION_MS 8
/* How far back from the origin an empty map's 3D camera stands, in units. */
#define EMPTY_MAP_STAND_BACK 256.0

/* --- static helpers ------------------------------------------------------------------ */

static void update_header(AlliumView *self)
{
    gtk_menu_button_set_label(self->kind_button, allium_view_kind_label(self->kind));
    gtk_button_set_icon_name(self->maximize_button, self->maximized ? "view-restore-symbolic"
                                                                    : "view-fullscreen-symbolic");
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->maximize_button),
                                self->maximized ? _("Restore the four views (Shift+Space)")
                                                : _("Maximize this view (Shift+Space)"));
}

/* How long after an edit a redraw may wait for its collision: on a big map the engine
 * takes longer, and a frame drawn meanwhile (30 ms there on llvmpipe) delays it more. */
static gint64 hold_us(AlliumView *self)
{
    al_stage_status st[AL_STAGE_COUNT];
    allium_document_get_stages(self->document, st);
    double ms = CLAMP(2 * st[AL_STAGE_COLLISION].last_ms, HOLD_FOR_COLLISION_MS, HOLD_AT_MOST_MS);
    return (gint64) (ms * 1000);
}

/* The centred message over the view: no map, compiling, or no OpenGL. */
static void update_message(AlliumView *self)
{
    const char *text = NULL;
    if (self->gl_error) text = self->gl_error;
    else if (!self->document) text = _("No map open");
    else if (!allium_document_get_snapshot(self->document)) text = _("Compiling…");
    gtk_label_set_text(self->message_label, text ? text : "");
    gtk_widget_set_visible(GTK_WIDGET(self->message_label), text != NULL);
}

/* Puts the camera where a designer expects it on opening a map: in 3D at the player
 * start looking the way the player would, in 2D over the whole map. */
static void place_camera(AlliumView *self, const AlliumSnapshot *snap)
{
    int width = self->camera.width, height = self->camera.height;
    al_camera_init(&self->camera, self->kind);
    self->camera.width = width;
    self->camera.height = height;

    double mins[3], maxs[3];
    gboolean has_bounds = snap->scene && al_scene_bounds(snap->scene, mins, maxs);
    if (self->kind == AL_VIEW_3D) {
        double origin[3];
        if (allium_snapshot_player_start(snap, origin, &self->camera.yaw, &self->camera.pitch)) {
            self->camera.position[0] = origin[0];
            self->camera.position[1] = origin[1];
            self->camera.position[2] = origin[2] + EYE_HEIGHT;
        } else if (has_bounds) {
            self->camera.yaw = 45;
            self->camera.pitch = -30;
            al_camera_frame(&self->camera, mins, maxs);
        } else {
            /* An empty map: at eye height over the ground (z 0), back from the origin and
             * looking at it, rather than at the origin in the ground's plane. The
             * first box drawn in a 2D view then lies on the ground, or under the camera
             * when drawn around it (allium-view-tools.c). */
            self->camera.position[0] = -EMPTY_MAP_STAND_BACK;
            self->camera.position[2] = EYE_HEIGHT;
            self->camera.pitch = -10;
        }
    } else if (has_bounds) {
        al_camera_frame(&self->camera, mins, maxs);
    }
    self->camera_placed = TRUE;
}

static int32_t *array_ints(GArray *array)
{
    return array->len ? (int32_t *) (gpointer) array->data : NULL;
}

/* The selection as the snapshot's input indices, remade when either changed. */
static void update_selected_indices(AlliumView *self, const AlliumSnapshot *snap)
{
    guint64 serial = self->selection ? allium_selection_get_serial(self->selection) : 0;
    if (snap == self->selection_snapshot && serial == self->selection_serial) return;
    self->selection_snapshot = snap;
    self->selection_serial = serial;
    g_array_set_size(self->selected_brushes, 0);
    g_array_set_size(self->selected_entities, 0);
    g_array_set_size(self->selected_faces, 0);
    g_array_set_size(self->hidden_brushes, 0);
    g_array_set_size(self->unpickable_brushes, 0);
    g_array_set_size(self->hidden_entities, 0);
    g_array_set_size(self->unpickable_entities, 0);
    if (!snap || !self->selection) return;

    const al_input *in = &snap->input.input;
    if (allium_selection_get_hidden_count(self->selection) > 0 && snap->input.brush_ids) {
        g_array_set_size(self->hidden_brushes, (guint) in->brush_count);
        for (int b = 0; b < in->brush_count; b++)
            g_array_index(self->hidden_brushes, guint8, b) =
                allium_selection_is_hidden(self->selection, snap->input.brush_ids[b]);
    }
    gboolean any = FALSE;
    for (int b = 0; snap->input.brush_ids && b < in->brush_count && !any; b++)
        any = !allium_selection_is_pickable(self->selection, snap->input.brush_ids[b]);
    if (any) {
        g_array_set_size(self->unpickable_brushes, (guint) in->brush_count);
        for (int b = 0; b < in->brush_count; b++)
            g_array_index(self->unpickable_brushes, guint8, b) =
                !allium_selection_is_pickable(self->selection, snap->input.brush_ids[b]);
    }

    /* The layers' colours, for the 2D outlines. */
    g_array_set_size(self->brush_tints, 0);
    if (allium_selection_get_tint_count(self->selection) > 0 && snap->input.brush_ids) {
        g_array_set_size(self->brush_tints, 4 * (guint) in->brush_count);
        for (int b = 0; b < in->brush_count; b++) {
            guint32 c = allium_selection_get_tint(self->selection, snap->input.brush_ids[b]);
            guint8 *rgba = &g_array_index(self->brush_tints, guint8, 4 * b);
            for (int k = 0; k < 4; k++) rgba[k] = (guint8) (c >> (24 - 8 * k));
        }
    }
    /* Point entities: hidden or locked by their own marks, groups or layers. */
    any = FALSE;
    for (int e = 0; snap->input.entity_ids && e < in->entity_count && !any; e++)
        any = !allium_selection_is_entity_pickable(self->selection, snap->input.entity_ids[e]);
    if (any) {
        g_array_set_size(self->hidden_entities, (guint) in->entity_count);
        g_array_set_size(self->unpickable_entities, (guint) in->entity_count);
        for (int e = 0; e < in->entity_count; e++) {
            gint64 row = snap->input.entity_ids[e];
            g_array_index(self->hidden_entities, guint8, e) =
                allium_selection_is_entity_hidden(self->selection, row);
            g_array_index(self->unpickable_entities, guint8, e) =
                !allium_selection_is_entity_pickable(self->selection, row);
        }
    }

    guint count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int32_t index = allium_snapshot_brush_index(snap, rows[i]);
        if (index >= 0) g_array_append_val(self->selected_brushes, index);
    }
    rows = allium_selection_get_entities(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int32_t index = allium_snapshot_entity_index(snap, rows[i]);
        if (index >= 0) g_array_append_val(self->selected_entities, index);
    }
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int32_t pair[2] = {allium_snapshot_brush_index(snap, faces[i].brush), faces[i].face};
        if (pair[0] >= 0) g_array_append_val(self->selected_faces, pair);
    }
}

/* Uploads the document's newest lightmap of SNAP when the renderer does not have it.
 * 2D views draw no faces, so they skip it (and upload when switched to 3D). Render
 * handler only: the GL context is current. */
static void update_lightmap(AlliumView *self, AlliumSnapshot *snap)
{
    if (self->kind != AL_VIEW_3D) return;
    (void) snap;
    /* The document's lightmap is the one whose atlas the current scene's places are in. */
    AlliumLightmap *lightmap = self->document ? allium_document_get_lightmap(self->document) : NULL;
    if (lightmap == self->uploaded) return;
    g_clear_pointer(&self->uploaded, allium_lightmap_unref);
    if (!lightmap) {
        al_renderer_set_lightmap_rgba8(self->renderer, 0, 0, NULL);
        return;
    }
    al_status st = al_renderer_set_lightmap_rgba8(self->renderer, lightmap->width,
                                                  lightmap->height, lightmap->rgba);
    if (st != AL_OK)
        g_warning("the %dx%d lightmap could not be uploaded: %s", lightmap->width,
                  lightmap->height, al_status_message(st));
    /* Kept even when it failed: the same copy is not tried again every frame. */
    self->uploaded = allium_lightmap_ref(lightmap);
}

/* Uploads the document's newest textures when the renderer does not have them (3D views,
 * and 2D views while they draw faint textures). Render handler only: the GL context is
 * current. */
static void update_textures(AlliumView *self)
{
    if (self->kind != AL_VIEW_3D && !self->textures) return;
    AlliumTextures *t = self->document ? allium_document_get_textures(self->document) : NULL;
    if (t == self->uploaded_textures) return;
    g_clear_pointer(&self->uploaded_textures, allium_textures_unref);
    al_status st = al_renderer_set_textures(self->renderer, t ? t->drawn : NULL,
                                            t ? t->drawn_count : 0, t ? t->serial : 0);
    if (st != AL_OK)
        g_warning("the map's %d textures could not be uploaded: %s", t ? t->count : 0,
                  al_status_message(st));
    /* Kept even when it failed: the same set is not tried again every frame. */
    self->uploaded_textures = t ? allium_textures_ref(t) : NULL;
}

static void update_info_label(AlliumView *self)
{
    char text[sizeof self->tool_info];
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (self->tool_info[0]) {
        g_strlcpy(text, self->tool_info, sizeof text);
    } else if (self->kind == AL_VIEW_3D && !(snap && snap->scene)) {
        text[0] = '\0';
    } else if (self->kind == AL_VIEW_3D) {
        const al_draw_stats *s = &self->last_stats;
        if (s->camera_leaf >= 0)
            /* TRANSLATORS: the 3D view's overlay: faces drawn, faces the potentially
             * visible set left out, and the BSP leaf the camera is in */
            g_snprintf(text, sizeof text,
                       g_dngettext(GETTEXT_PACKAGE, "%d face · %d culled by PVS · leaf %d",
                                   "%d faces · %d culled by PVS · leaf %d",
                                   (gulong) s->faces_drawn),
                       s->faces_drawn, s->faces_culled_pvs, s->camera_leaf);
        else
            g_snprintf(text, sizeof text,
                       g_dngettext(GETTEXT_PACKAGE, "%d face · outside the map",
                                   "%d faces · outside the map", (gulong) s->faces_drawn),
                       s->faces_drawn);
    } else {
        /* The grid that snaps (the status bar's); zoomed out, the lines drawn skip some of
         * its steps, and the header says how far apart they are. */
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double step = al_camera_grid_step(&self->camera, grid, 6.0);
        if (step != grid)
            g_snprintf(text, sizeof text, _("grid %g (lines every %g) · zoom %.0f%%"), grid, step,
                       self->camera.zoom * 100.0);
        else
            g_snprintf(text, sizeof text, _("grid %g · zoom %.0f%%"), grid,
                       self->camera.zoom * 100.0);
    }
    /* The test-box tool says which hull a click places, so that H shows at once. */
    if (self->tool == ALLIUM_TOOL_TESTBOX && self->collision) {
        char hull[sizeof text];
        g_snprintf(hull, sizeof hull, _("New test boxes: %s · H: next hull"),
                   allium_collision_get_hull(self->collision));
        size_t n = strlen(text);
        g_snprintf(text + n, sizeof text - n, "%s%s", n ? "\n" : "", hull);
    }
    if (g_strcmp0(gtk_label_get_text(self->info_label), text) != 0)
        gtk_label_set_text(self->info_label, text);
    gtk_widget_set_visible(GTK_WIDGET(self->info_label), text[0] != '\0');
}

static GdkTexture *read_framebuffer(int width, int height)
{
    gsize stride = (gsize) width * 4;
    guint8 *pixels = g_malloc((gsize) height * stride);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    /* GL's rows run bottom up. */
    guint8 *row = g_malloc(stride);
    for (int y = 0; y < height / 2; y++) {
        guint8 *a = pixels + (gsize) y * stride, *b = pixels + (gsize) (height - 1 - y) * stride;
        memcpy(row, a, stride);
        memcpy(a, b, stride);
        memcpy(b, row, stride);
    }
    g_free(row);
    for (gsize i = 3; i < (gsize) height * stride; i += 4) pixels[i] = 255;
    GBytes *bytes = g_bytes_new_take(pixels, (gsize) height * stride);
    GdkTexture *texture = gdk_memory_texture_new(width, height, GDK_MEMORY_R8G8B8A8, bytes, stride);
    g_bytes_unref(bytes);
    return texture;
}

/* --- callbacks ----------------------------------------------------------------------- */

/* How often the header's statistics follow the frames drawn. */
#define INFO_INTERVAL_MS 200

static gboolean info_idle_cb(gpointer data)
{
    AlliumView *self = data;
    self->info_source = 0;
    update_info_label(self);
    return G_SOURCE_REMOVE;
}

/* The start of a frame (the frame clock's update phase, before layout and paint) while an
 * edit's collision is due: the engine usually publishes it within a few milliseconds, so
 * waiting for it briefly here draws the edit in this frame rather than in the next, a
 * frame interval later (while frames follow each other: the camera moving, the light
 * coming in). What arrives becomes the document's snapshot at once, and the views whose
 * redraw was held for it are painted in this frame; the rest of the window hears of it
 * after the frame. Once a frame, whichever view's handler runs first. */
static void frame_update_cb(GdkFrameClock *clock, AlliumView *self)
{
    if (!self->document) return;
    gint64 due = allium_document_get_collision_due(self->document);
    if (due) {
        /* Only when the engine's last collision took no longer than the wait: else it would
         * be time lost (a drag on a big map, every frame). */
        al_stage_status st[AL_STAGE_COUNT];
        allium_document_get_stages(self->document, st);
        gint64 now = g_get_monotonic_time();
        gint64 expected = due + (gint64) (st[AL_STAGE_COLLISION].last_ms * 1000);
        gint64 left = due + hold_us(self) - now;
        if (expected - now <= AWAIT_COLLISION_MS * 1000)
            allium_document_await_collision(self->document, MIN(left, AWAIT_COLLISION_MS * 1000),
                                            gdk_frame_clock_get_frame_counter(clock));
    }
    /* A redraw held for the collision goes now if it came (to this view's wait or to
     * another's). */
    if (self->held_source && !allium_document_get_collision_due(self->document)) {
        g_clear_handle_id(&self->held_source, g_source_remove);
        self->render_asked_us = g_get_monotonic_time();
        allium_gl_area_queue_render(ALLIUM_GL_AREA(self->gl_area));
    }
}

/* The views whose renderer is up (realized, in any window). */
static GPtrArray *drawing_views;

/* A view whose renderer this one's can share meshes with: its GL context shares objects
 * with this one's (GTK's contexts of one display all do), or NULL. The views of a window
 * draw the same scene, and a 20,000-brush map's meshes take a few hundred megabytes in a
 * store. */
static AlliumView *sharing_view(AlliumView *self)
{
    if (!drawing_views) drawing_views = g_ptr_array_new();
    GdkGLContext *mine = gtk_gl_area_get_context(GTK_GL_AREA(self->gl_area));
    for (guint i = 0; mine && i < drawing_views->len; i++) {
        AlliumView *other = g_ptr_array_index(drawing_views, i);
        GdkGLContext *theirs = gtk_gl_area_get_context(GTK_GL_AREA(other->gl_area));
        if (other != self && other->renderer && theirs && gdk_gl_context_is_shared(mine, theirs))
            return other;
    }
    return NULL;
}

static void gl_realize_cb(GtkGLArea *area, AlliumView *self)
{
    self->frame_clock = gtk_widget_get_frame_clock(GTK_WIDGET(area));
    if (self->frame_clock)
        /* After the tick callbacks: a drag's tick makes this frame's preview first. */
        self->update_handler =
            g_signal_connect_after(self->frame_clock, "update", G_CALLBACK(frame_update_cb), self);
    gtk_gl_area_make_current(area);
    g_clear_pointer(&self->gl_error, g_free);
    if (gtk_gl_area_get_error(area)) {
        self->gl_error = g_strdup_printf(_("OpenGL 3.3 is not available: %s"),
                                         gtk_gl_area_get_error(area)->message);
    } else {
        char reason[256] = "";
        AlliumView *share = sharing_view(self);
        self->renderer =
            al_renderer_create_sharing(share ? share->renderer : NULL, reason, sizeof reason);
        if (!self->renderer)
            self->gl_error = g_strdup_printf(_("The renderer could not start: %s"), reason);
        else
            g_ptr_array_add(drawing_views, self);
    }
    update_message(self);
}

static void gl_unrealize_cb(GtkGLArea *area, AlliumView *self)
{
    if (self->frame_clock) g_clear_signal_handler(&self->update_handler, self->frame_clock);
    self->frame_clock = NULL;
    gtk_gl_area_make_current(area);
    if (drawing_views) g_ptr_array_remove(drawing_views, self);
    if (!gtk_gl_area_get_error(area)) g_clear_pointer(&self->renderer, al_renderer_destroy);
    self->renderer = NULL;
    /* The renderer that borrowed it is gone. */
    g_clear_pointer(&self->drawn, allium_snapshot_unref);
    g_clear_pointer(&self->uploaded, allium_lightmap_unref);
    g_clear_pointer(&self->uploaded_textures, allium_textures_unref);
    self->splits_snapshot = NULL; /* the next renderer has none */
    self->splits_block = -2;
}

/* The split polygons of the block under the split point (or the camera), uploaded when
 * the overlay is on and the block or the snapshot changed. */
static void update_splits(AlliumView *self, AlliumSnapshot *snap)
{
    if (!(self->overlays & AL_OVERLAY_SPLITS) || !snap || !snap->world) {
        /* Forget the snapshot: a later one may come at the same address. */
        self->splits_snapshot = NULL;
        return;
    }
    if (!self->splits_stale && self->splits_snapshot == snap) return;
    const double *p = self->has_split_point ? self->split_point : self->camera.position;
    al_block_splits sp;
    if (al_world_block_splits(snap->world, p, &sp) != AL_OK) return;
    if (sp.block != self->splits_block || self->splits_snapshot != snap) {
        al_renderer_set_splits(self->renderer, &sp);
        self->splits_block = sp.block;
        self->splits_snapshot = snap;
    }
    self->splits_stale = FALSE;
    al_block_splits_free(&sp);
}

/* Where this 2D view draws the 3D camera's mark (renderer's draw_eye), in pixels of the
 * view plane: MARK[0..1] the ring's centre, MARK[2..3] the arrow's tip when *ARROW. TRUE
 * if a camera is marked. */
static gboolean eye_mark(const AlliumView *self, double mark[4], gboolean *arrow)
{
    int ax_r, ax_u, ax_d;
    al_view_axes(self->camera.kind, &ax_r, &ax_u, &ax_d);
    double z = self->camera.zoom;
    double f[2] = {self->eye_forward[ax_r], self->eye_forward[ax_u]};
    double len = hypot(f[0], f[1]);
    mark[0] = self->eye[ax_r] * z;
    mark[1] = self->eye[ax_u] * z;
    *arrow = len > 0.1;
    mark[2] = mark[0] + (*arrow ? 24 * f[0] / len : 0);
    mark[3] = mark[1] + (*arrow ? 24 * f[1] / len : 0);
    return self->has_eye;
}

static gboolean gl_render_cb(GtkGLArea *area, GdkGLContext *context, AlliumView *self)
{
    (void) context;
    if (!self->renderer) {
        GdkRGBA bg;
        allium_preferences_get_background(allium_preferences_get_default(), &bg);
        glClearColor(bg.red, bg.green, bg.blue, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        return TRUE;
    }
    self->frame_started_us = g_get_monotonic_time();
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    /* When this frame was asked for here, or 0: GTK draws the area again on its own (its
     * size changed, the window was laid out again). */
    self->frame_asked_us = self->render_asked_us;
    self->render_asked_us = 0;
    if (snap != self->drawn) {
        al_renderer_set_scene(self->renderer, snap ? snap->scene : NULL);
        g_clear_pointer(&self->drawn, allium_snapshot_unref);
        self->drawn = snap ? allium_snapshot_ref(snap) : NULL;
        /* The lightmap uploaded stays: the new scene keeps the places of what it kept. */
    }
    update_lightmap(self, snap);
    update_textures(self);
    update_splits(self, snap);

    double scale = allium_view_scale(self);
    self->camera.width = MAX(1, (int) lround(gtk_widget_get_width(GTK_WIDGET(area)) * scale));
    self->camera.height = MAX(1, (int) lround(gtk_widget_get_height(GTK_WIDGET(area)) * scale));
    if (snap && !self->camera_placed) place_camera(self, snap);

    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = self->overlays;
    opt.wireframe = self->wireframe;
    opt.no_cull = self->no_cull;
    opt.no_lightmap = !self->lighting;
    opt.no_textures = !self->textures;
    opt.faint_textures = self->kind != AL_VIEW_3D && self->textures;
    opt.grid = self->kind == AL_VIEW_3D
                   ? 0
                   : allium_preferences_get_grid_size(allium_preferences_get_default());
    update_selected_indices(self, snap);
    opt.selected_brushes = array_ints(self->selected_brushes);
    opt.selected_brush_count = (int) self->selected_brushes->len;
    opt.selected_entities = array_ints(self->selected_entities);
    opt.selected_entity_count = (int) self->selected_entities->len;
    opt.selected_faces = self->selected_faces->len
                             ? (const int32_t(*)[2])(gpointer) self->selected_faces->data
                             : NULL;
    opt.selected_face_count = (int) self->selected_faces->len;
    opt.hidden_brushes =
        self->hidden_brushes->len ? (const uint8_t *) self->hidden_brushes->data : NULL;
    opt.hidden_brush_count = (int) self->hidden_brushes->len;
    opt.hidden_entities =
        self->hidden_entities->len ? (const uint8_t *) self->hidden_entities->data : NULL;
    opt.hidden_entity_count = (int) self->hidden_entities->len;
    if (self->kind != AL_VIEW_3D && self->brush_tints->len) {
        opt.brush_tints = (const uint8_t(*)[4])(gpointer) self->brush_tints->data;
        opt.brush_tint_count = (int) (self->brush_tints->len / 4);
    }
    if (self->kind == AL_VIEW_3D) {
        memcpy(opt.pvs_point, self->camera.position, sizeof opt.pvs_point);
        opt.has_pvs_point = true;
    } else if (self->has_eye) {
        opt.has_eye = true;
        memcpy(opt.eye, self->eye, sizeof opt.eye);
        memcpy(opt.eye_forward, self->eye_forward, sizeof opt.eye_forward);
        self->drawn_has_mark = eye_mark(self, self->drawn_mark, &self->drawn_mark_arrow);
    }
    /* The tool's guides, then the collision preview's lines in their own colours. */
    g_autoptr(GArray) guide_points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    g_autoptr(GArray) guide_colours = g_array_new(FALSE, FALSE, sizeof(guint8[4]));
    if (self->selection) {
        guint count;
        const double(*guides)[3] = allium_selection_get_guides(self->selection, &count);
        static const guint8 amber[4] = {255, 196, 40, 255};
        g_array_append_vals(guide_points, guides, count);
        for (guint i = 0; i < count; i++) g_array_append_vals(guide_colours, amber, 1);
    }
    allium_view_tool_append_handles(self, guide_points, guide_colours);
    if (self->collision) allium_collision_append_lines(self->collision, guide_points, guide_colours);
    opt.guides = (const double(*)[3]) (gpointer) guide_points->data;
    opt.guide_colours = (const uint8_t(*)[4]) (gpointer) guide_colours->data;
    opt.guide_count = (int) guide_points->len;
    GdkRGBA bg;
    allium_preferences_get_background(allium_preferences_get_default(), &bg);
    opt.background[0] = bg.red, opt.background[1] = bg.green, opt.background[2] = bg.blue;

    gint64 t0 = g_get_monotonic_time();
    al_draw_stats stats = {0};
    al_renderer_draw(self->renderer, &self->camera, &opt, &stats);
    if (self->frame_func) glFinish();
    double ms = (double) (g_get_monotonic_time() - t0) / 1000.0;

    self->last_stats = stats;
    if (self->kind == AL_VIEW_3D && snap &&
        (memcmp(self->camera.position, self->eye, sizeof self->eye) != 0 ||
         self->camera.yaw != self->eye_yaw || self->camera.pitch != self->eye_pitch)) {
        /* The other views mark where this camera is. */
        memcpy(self->eye, self->camera.position, sizeof self->eye);
        self->eye_yaw = self->camera.yaw;
        self->eye_pitch = self->camera.pitch;
        g_signal_emit(self, signals[SIGNAL_CAMERA_MOVED], 0);
    }
    if (snap && snap->scene) self->frames_drawn++;
    /* Not now: a label changed while the frame is being snapshotted would be left out of
     * it (it has lost its allocation). And not every frame: the readout wraps, and
     * measuring wrapped text again at every frame of a turning camera cost the window a
     * quarter of its frame rate; five times a second is as fast as one reads it. */
    if (!self->info_source)
        self->info_source =
            g_timeout_add_full(G_PRIORITY_DEFAULT, INFO_INTERVAL_MS, info_idle_cb, self, NULL);

    if (self->pixels_func) {
        AlliumViewPixelsFunc func = self->pixels_func;
        self->pixels_func = NULL;
        GdkTexture *pixels = read_framebuffer(self->camera.width, self->camera.height);
        func(self, pixels, self->pixels_data);
        g_object_unref(pixels);
    }
    if (self->frame_func) self->frame_func(self, ms, &stats, self->frame_data);
    return TRUE;
}

static void document_compiled_cb(AlliumDocument *document, AlliumView *self)
{
    (void) document;
    update_message(self);
    allium_view_queue_render(self);
}

static void document_lit_cb(AlliumDocument *document, AlliumView *self)
{
    (void) document;
    /* Only a 3D view draws lit faces. */
    if (self->kind == AL_VIEW_3D) allium_view_queue_render(self);
}

static void document_compiling_cb(GObject *object, GParamSpec *pspec, AlliumView *self)
{
    (void) object;
    (void) pspec;
    update_message(self);
}

static void selection_changed_cb(AlliumSelection *selection, AlliumView *self)
{
    (void) selection;
    allium_view_queue_render(self);
}

static void preferences_changed_cb(GObject *object, GParamSpec *pspec, AlliumView *self)
{
    (void) object;
    (void) pspec;
    allium_view_queue_render(self);
}

static void header_pressed_cb(GtkGestureClick *gesture, int n_press, double x, double y,
                              AlliumView *self)
{
    (void) gesture;
    (void) x;
    (void) y;
    if (n_press == 2) allium_view_emit_toggle_maximize(self);
}

static void maximize_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    allium_view_emit_toggle_maximize(ALLIUM_VIEW(widget));
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_view_dispose(GObject *object)
{
    AlliumView *self = ALLIUM_VIEW(object);
    allium_view_stop_walking(self);
    allium_view_stop_flying(self);
    g_clear_handle_id(&self->hover_source, g_source_remove);
    g_clear_handle_id(&self->info_source, g_source_remove);
    g_clear_handle_id(&self->held_source, g_source_remove);
    allium_view_set_document(self, NULL);
    allium_view_set_selection(self, NULL);
    allium_view_set_collision(self, NULL);
    g_clear_pointer(&self->entity_class, g_free);
    allium_view_dispose_context_menu(self);
    g_signal_handlers_disconnect_by_data(allium_preferences_get_default(), self);
    gtk_widget_dispose_template(GTK_WIDGET(self), ALLIUM_TYPE_VIEW);
    G_OBJECT_CLASS(allium_view_parent_class)->dispose(object);
}

static void allium_view_finalize(GObject *object)
{
    AlliumView *self = ALLIUM_VIEW(object);
    g_clear_pointer(&self->drawn, allium_snapshot_unref);
    g_clear_pointer(&self->drag_snapshot, allium_snapshot_unref);
    g_clear_pointer(&self->uploaded, allium_lightmap_unref);
    g_clear_pointer(&self->uploaded_textures, allium_textures_unref);
    g_array_unref(self->selected_brushes);
    g_array_unref(self->hidden_brushes);
    g_array_unref(self->hidden_entities);
    g_array_unref(self->unpickable_entities);
    g_array_unref(self->brush_tints);
    g_array_unref(self->unpickable_brushes);
    g_array_unref(self->selected_entities);
    g_array_unref(self->selected_faces);
    g_free(self->gl_error);
    allium_view_vertex_finalize(self);
    G_OBJECT_CLASS(allium_view_parent_class)->finalize(object);
}

static void allium_view_get_property(GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
    AlliumView *self = ALLIUM_VIEW(object);
    switch (prop_id) {
    case PROP_KIND_NAME:
        g_value_set_string(value, allium_view_kind_to_string(self->kind));
        break;
    case PROP_WALKING:
        g_value_set_boolean(value, self->walker != NULL);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void allium_view_set_property(GObject *object, guint prop_id, const GValue *value,
                                     GParamSpec *pspec)
{
    AlliumView *self = ALLIUM_VIEW(object);
    switch (prop_id) {
    case PROP_KIND_NAME: {
        al_view_kind kind;
        if (allium_view_kind_from_string(g_value_get_string(value), &kind))
            allium_view_set_kind(self, kind);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_view_class_init(AlliumViewClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->dispose = allium_view_dispose;
    object_class->finalize = allium_view_finalize;
    object_class->get_property = allium_view_get_property;
    object_class->set_property = allium_view_set_property;

    properties[PROP_KIND_NAME] =
        g_param_spec_string("kind-name", NULL, NULL, "3d",
                            G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    properties[PROP_WALKING] = g_param_spec_boolean("walking", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    signals[SIGNAL_POINTER_INFO] =
        g_signal_new("pointer-info", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
    /* The map point under the pointer (a const double[3]) and, in a 2D view, the axis it
     * does not know (-1 in the 3D view, where the point is on a surface). */
    signals[SIGNAL_POINTER_POINT] =
        g_signal_new("pointer-point", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_INT);
    /* A 3D view drew a frame from a camera it had not drawn from before. */
    signals[SIGNAL_CAMERA_MOVED] =
        g_signal_new("camera-moved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_TOGGLE_MAXIMIZE] =
        g_signal_new("toggle-maximize", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_ACTIVATED] = g_signal_new("activated", G_TYPE_FROM_CLASS(klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_EDIT_ERROR] =
        g_signal_new("edit-error", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

    g_type_ensure(ALLIUM_TYPE_GL_AREA);
    gtk_widget_class_set_template_from_resource(widget_class, "/org/allium/Allium/ui/allium-view.ui");
    gtk_widget_class_bind_template_child(widget_class, AlliumView, overlay);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, gl_area);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, header);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, kind_button);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, info_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, maximize_button);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, message_label);
    gtk_widget_class_bind_template_child(widget_class, AlliumView, walk_label);
    gtk_widget_class_bind_template_callback(widget_class, gl_realize_cb);
    gtk_widget_class_bind_template_callback(widget_class, gl_unrealize_cb);
    gtk_widget_class_bind_template_callback(widget_class, gl_render_cb);
    gtk_widget_class_bind_template_callback(widget_class, header_pressed_cb);

    gtk_widget_class_install_property_action(widget_class, "view.kind", "kind-name");
    gtk_widget_class_install_action(widget_class, "view.maximize", NULL, maximize_action_cb);

    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(widget_class, "allium-view");
}

static void allium_view_init(AlliumView *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    gtk_gl_area_set_required_version(self->gl_area, 3, 3);
    /* A frame is drawn when allium_view_queue_render asks for one (which may hold it for
     * an edit's collision), not whenever GTK redraws the area. */
    gtk_gl_area_set_auto_render(self->gl_area, FALSE);

    self->kind = AL_VIEW_3D;
    al_camera_init(&self->camera, self->kind);
    self->overlays = AL_OVERLAY_DEFAULT;
    self->lighting = TRUE;
    self->textures = TRUE;
    self->selected_brushes = g_array_new(FALSE, FALSE, sizeof(int32_t));
    self->hidden_brushes = g_array_new(FALSE, FALSE, sizeof(guint8));
    self->hidden_entities = g_array_new(FALSE, FALSE, sizeof(guint8));
    self->unpickable_entities = g_array_new(FALSE, FALSE, sizeof(guint8));
    self->brush_tints = g_array_new(FALSE, FALSE, sizeof(guint8));
    self->unpickable_brushes = g_array_new(FALSE, FALSE, sizeof(guint8));
    self->selected_faces = g_array_new(FALSE, FALSE, sizeof(int32_t[2]));
    self->selected_entities = g_array_new(FALSE, FALSE, sizeof(int32_t));

    AlliumPreferences *prefs = allium_preferences_get_default();
    g_signal_connect(prefs, "notify::grid-size", G_CALLBACK(preferences_changed_cb), self);
    g_signal_connect(prefs, "notify::background", G_CALLBACK(preferences_changed_cb), self);

    self->splits_block = -2;
    allium_view_add_controllers(self);
    update_header(self);
    update_message(self);
}

/* --- internal API (allium-view-private.h) ------------------------------------------- */

void allium_view_emit_pointer_info(AlliumView *self, const char *text)
{
    g_signal_emit(self, signals[SIGNAL_POINTER_INFO], 0, text ? text : "");
}

void allium_view_emit_pointer_point(AlliumView *self, const double point[3], int unknown_axis)
{
    g_signal_emit(self, signals[SIGNAL_POINTER_POINT], 0, point, unknown_axis);
}

void allium_view_emit_toggle_maximize(AlliumView *self)
{
    g_signal_emit(self, signals[SIGNAL_TOGGLE_MAXIMIZE], 0);
}

void allium_view_emit_activated(AlliumView *self)
{
    g_signal_emit(self, signals[SIGNAL_ACTIVATED], 0);
}

void allium_view_emit_edit_error(AlliumView *self, const char *message)
{
    g_signal_emit(self, signals[SIGNAL_EDIT_ERROR], 0, message);
}

void allium_view_show_info(AlliumView *self, const char *text)
{
    gtk_label_set_text(self->info_label, text);
}

AlliumSnapshot *allium_view_get_snapshot(AlliumView *self)
{
    return self->document ? allium_document_get_snapshot(self->document) : NULL;
}

double allium_view_scale(AlliumView *self)
{
    return (double) gtk_widget_get_scale_factor(GTK_WIDGET(self));
}

const al_pick_mask *allium_view_pick_mask(AlliumView *self, const AlliumSnapshot *snap)
{
    update_selected_indices(self, snap);
    GArray *b = self->unpickable_brushes, *e = self->unpickable_entities;
    self->pick_mask = (al_pick_mask){b->len ? (const uint8_t *) b->data : NULL, (int) b->len,
                                     e->len ? (const uint8_t *) e->data : NULL, (int) e->len};
    return &self->pick_mask;
}

gboolean allium_view_foreach_selected_bounds(AlliumView *self, AlliumBoundsFunc func,
                                             gpointer data)
{
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !snap->scene || !self->selection) return FALSE;
    /* Brushes, then point entities; rows the snapshot does not have are skipped. */
    for (int pass = 0; pass < 2; pass++) {
        guint count;
        const gint64 *rows = pass == 0 ? allium_selection_get_brushes(self->selection, &count)
                                       : allium_selection_get_entities(self->selection, &count);
        for (guint i = 0; i < count; i++) {
            double lo[3], hi[3];
            gboolean ok;
            if (pass == 0) {
                int b = allium_snapshot_brush_index(snap, rows[i]);
                ok = b >= 0 && al_scene_brush_bounds(snap->scene, b, lo, hi);
            } else {
                int e = allium_snapshot_entity_index(snap, rows[i]);
                ok = e >= 0 && al_scene_entity_bounds(snap->scene, e, lo, hi);
            }
            if (ok && func(lo, hi, data)) return TRUE;
        }
    }
    return FALSE;
}

typedef struct {
    double *mins, *maxs;
    gboolean any;
} BoundsUnion;

static gboolean add_to_union(const double lo[3], const double hi[3], gpointer data)
{
    BoundsUnion *u = data;
    for (int k = 0; k < 3; k++) {
        u->mins[k] = u->any ? MIN(u->mins[k], lo[k]) : lo[k];
        u->maxs[k] = u->any ? MAX(u->maxs[k], hi[k]) : hi[k];
    }
    u->any = TRUE;
    return FALSE;
}

gboolean allium_view_selection_bounds(AlliumView *self, gboolean whole_map_if_empty,
                                      double mins[3], double maxs[3])
{
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !snap->scene) return FALSE;
    BoundsUnion u = {mins, maxs, FALSE};
    allium_view_foreach_selected_bounds(self, add_to_union, &u);
    gboolean any = u.any;
    if (!any && whole_map_if_empty) any = al_scene_bounds(snap->scene, mins, maxs);
    return any;
}

/* --- public API ---------------------------------------------------------------------- */

const char *allium_view_kind_to_string(al_view_kind kind)
{
    switch (kind) {
    case AL_VIEW_TOP:
        return "top";
    case AL_VIEW_FRONT:
        return "front";
    case AL_VIEW_SIDE:
        return "side";
    case AL_VIEW_3D:
    default:
        return "3d";
    }
}

gboolean allium_view_kind_from_string(const char *name, al_view_kind *kind)
{
    static const al_view_kind kinds[] = {AL_VIEW_3D, AL_VIEW_TOP, AL_VIEW_FRONT, AL_VIEW_SIDE};
    for (guint i = 0; i < G_N_ELEMENTS(kinds); i++) {
        if (g_strcmp0(name, allium_view_kind_to_string(kinds[i])) == 0) {
            *kind = kinds[i];
            return TRUE;
        }
    }
    return FALSE;
}

const char *allium_view_kind_label(al_view_kind kind)
{
    switch (kind) {
    case AL_VIEW_TOP:
        return _("Top (X/Y)");
    case AL_VIEW_FRONT:
        return _("Front (X/Z)");
    case AL_VIEW_SIDE:
        return _("Side (Y/Z)");
    case AL_VIEW_3D:
    default:
        return _("3D");
    }
}

GtkWidget *allium_view_new(al_view_kind kind)
{
    AlliumView *self = g_object_new(ALLIUM_TYPE_VIEW, NULL);
    allium_view_set_kind(self, kind);
    return GTK_WIDGET(self);
}

void allium_view_set_document(AlliumView *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (self->document == document) return;
    allium_view_stop_walking(self);
    if (self->document) {
        g_clear_signal_handler(&self->compiled_handler, self->document);
        g_clear_signal_handler(&self->compiling_handler, self->document);
        g_clear_signal_handler(&self->lit_handler, self->document);
        g_clear_signal_handler(&self->textures_handler, self->document);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        self->compiled_handler =
            g_signal_connect(document, "compiled", G_CALLBACK(document_compiled_cb), self);
        self->compiling_handler = g_signal_connect(document, "notify::compiling",
                                                   G_CALLBACK(document_compiling_cb), self);
        self->lit_handler = g_signal_connect(document, "lit", G_CALLBACK(document_lit_cb), self);
        self->textures_handler =
            g_signal_connect(document, "textures", G_CALLBACK(document_lit_cb), self);
    }
    self->camera_placed = FALSE;
    update_message(self);
    allium_view_queue_render(self);
}

void allium_view_set_selection(AlliumView *self, AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (self->selection == selection) return;
    if (self->selection) {
        g_clear_signal_handler(&self->selection_handler, self->selection);
        g_clear_signal_handler(&self->guides_handler, self->selection);
        g_clear_object(&self->selection);
    }
    if (selection) {
        self->selection = g_object_ref(selection);
        self->selection_handler =
            g_signal_connect(selection, "changed", G_CALLBACK(selection_changed_cb), self);
        self->guides_handler =
            g_signal_connect(selection, "guides-changed", G_CALLBACK(selection_changed_cb), self);
    }
    self->selection_snapshot = NULL;
    allium_view_queue_render(self);
}

static void collision_changed_cb(AlliumCollision *collision, AlliumView *self)
{
    (void) collision;
    allium_view_tool_collision_changed(self);
    allium_view_queue_render(self);
}

void allium_view_set_collision(AlliumView *self, AlliumCollision *collision)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (self->collision == collision) return;
    if (self->collision) {
        g_clear_signal_handler(&self->collision_handler, self->collision);
        g_clear_object(&self->collision);
    }
    if (collision) {
        self->collision = g_object_ref(collision);
        self->collision_handler =
            g_signal_connect(collision, "changed", G_CALLBACK(collision_changed_cb), self);
    }
    allium_view_queue_render(self);
}

void allium_view_set_tool(AlliumView *self, AlliumTool tool)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    allium_view_tool_cancel(self);
    if (tool != ALLIUM_TOOL_CLIP) allium_view_clip_clear(self);
    /* A box's readout, or why a click placed none, belongs to the tool left. */
    if (tool != self->tool) self->tool_info[0] = '\0';
    self->showing_box = FALSE;
    self->tool = tool;
    allium_view_queue_render(self); /* the header names the new tool's state */
}

gboolean allium_view_get_selection_bounds(AlliumView *self, double mins[3], double maxs[3])
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    return allium_view_selection_bounds(self, FALSE, mins, maxs);
}

void allium_view_set_entity_class(AlliumView *self, const char *classname)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    g_free(self->entity_class);
    self->entity_class = g_strdup(classname);
}

void allium_view_simulate_drag(AlliumView *self, double x0, double y0, double x1, double y1,
                               int steps, GdkModifierType state)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (!allium_view_tool_begin(self, x0, y0, state)) return;
    for (int i = 1; i <= steps; i++) {
        double t = (double) i / (steps + 1);
        allium_view_tool_update(self, x0 + t * (x1 - x0), y0 + t * (y1 - y0));
    }
    allium_view_tool_end(self, x1, y1);
}

void allium_view_simulate_drag_holding(AlliumView *self, double x0, double y0, double x1, double y1,
                                       int steps, GdkModifierType state, GdkModifierType held)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (!allium_view_tool_begin(self, x0, y0, state)) return;
    /* What primary_update_cb reads from the event before each update: the keys went down
     * before the pointer moved on. */
    self->drag_state = state | held;
    allium_view_tool_update(self, x0, y0);
    for (int i = 1; i <= steps; i++) {
        double t = (double) i / (steps + 1);
        allium_view_tool_update(self, x0 + t * (x1 - x0), y0 + t * (y1 - y0));
    }
    allium_view_tool_end(self, x1, y1);
}

void allium_view_simulate_right_click(AlliumView *self, double x, double y)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    g_signal_emit_by_name(self->secondary_drag, "drag-begin", x, y);
    g_signal_emit_by_name(self->secondary_drag, "drag-end", 0.0, 0.0);
}

gboolean allium_view_simulate_drop(AlliumView *self, const GValue *value, double x, double y)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    gboolean taken = FALSE;
    g_signal_emit_by_name(self->prefab_drop, "drop", value, x, y, &taken);
    return taken;
}

void allium_view_simulate_click(AlliumView *self, double x, double y, GdkModifierType state)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    allium_view_click(self, x, y, state);
}

al_view_kind allium_view_get_kind(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), AL_VIEW_3D);
    return self->kind;
}

void allium_view_set_kind(AlliumView *self, al_view_kind kind)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (self->kind == kind) return;
    allium_view_stop_walking(self);
    self->kind = kind;
    allium_view_stop_flying(self);
    al_camera_init(&self->camera, kind);
    self->camera_placed = FALSE;
    update_header(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_KIND_NAME]);
    allium_view_queue_render(self);
}

void allium_view_set_maximized(AlliumView *self, gboolean maximized)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->maximized = maximized;
    update_header(self);
}

void allium_view_set_draw_settings(AlliumView *self, unsigned overlays, gboolean wireframe,
                                   gboolean no_cull, gboolean lighting, gboolean textures)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->overlays = overlays;
    self->wireframe = wireframe;
    self->no_cull = no_cull;
    self->lighting = lighting;
    self->textures = textures;
    allium_view_queue_render(self);
}

al_camera *allium_view_get_camera(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return &self->camera;
}

static gboolean held_render_cb(gpointer data)
{
    AlliumView *self = data;
    self->held_source = 0;
    self->render_asked_us = g_get_monotonic_time();
    allium_gl_area_queue_render(ALLIUM_GL_AREA(self->gl_area));
    return G_SOURCE_REMOVE;
}

/* A redraw asked for while an edit compiles waits for the edit's collision, at most
 * hold_us after the edit: a frame drawn meanwhile would show the map as it was, and with
 * software OpenGL it takes both cores from the collision it waits for, so that the frame
 * showing the edit came a frame later. The edit's snapshot, or the time running out,
 * draws. Not during a drag: every frame brings a new preview, and a frame held for each
 * one's collision held the pointer back (lq-e3m4: now and then 110-130 ms between two
 * frames); the frame shows the newest collision that came (frame_update_cb still waits a
 * little for one about to come), a frame or two behind the pointer. */
void allium_view_queue_render(AlliumView *self)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    gint64 due = self->document && !allium_document_get_previewing(self->document)
                     ? allium_document_get_collision_due(self->document)
                     : 0;
    gint64 wait_us = due ? due + hold_us(self) - g_get_monotonic_time() : 0;
    if (wait_us <= 0) {
        g_clear_handle_id(&self->held_source, g_source_remove);
        self->render_asked_us = g_get_monotonic_time();
        allium_gl_area_queue_render(ALLIUM_GL_AREA(self->gl_area));
        return;
    }
    if (!self->held_source)
        self->held_source = g_timeout_add_full(G_PRIORITY_DEFAULT, (guint) (wait_us / 1000) + 1,
                                               held_render_cb, self, NULL);
}

void allium_view_reset_camera(AlliumView *self)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->camera_placed = FALSE;
    allium_view_queue_render(self);
}

void allium_view_frame_selection(AlliumView *self)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    double mins[3], maxs[3];
    if (!allium_view_selection_bounds(self, TRUE, mins, maxs)) return;
    al_camera_frame(&self->camera, mins, maxs);
    allium_view_queue_render(self);
}

gint64 allium_view_get_frame_asked_us(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), 0);
    return self->frame_asked_us;
}

gint64 allium_view_get_frame_started_us(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), 0);
    return self->frame_started_us;
}

AlliumSnapshot *allium_view_get_drawn_snapshot(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return self->drawn;
}

AlliumLightmap *allium_view_get_drawn_lightmap(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return self->uploaded;
}

guint allium_view_get_frames_drawn(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), 0);
    return self->frames_drawn;
}

void allium_view_get_last_stats(AlliumView *self, al_draw_stats *stats)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    *stats = self->last_stats;
}

const char *allium_view_get_gl_error(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return self->gl_error;
}

void allium_view_set_frame_func(AlliumView *self, AlliumViewFrameFunc func, gpointer user_data)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->frame_func = func;
    self->frame_data = user_data;
}

void allium_view_read_pixels(AlliumView *self, AlliumViewPixelsFunc callback, gpointer user_data)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->pixels_func = callback;
    self->pixels_data = user_data;
    allium_view_queue_render(self);
}

void allium_view_set_split_point(AlliumView *self, const double point[3])
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    memcpy(self->split_point, point, sizeof self->split_point);
    self->has_split_point = TRUE;
    self->splits_stale = TRUE;
    if (self->overlays & AL_OVERLAY_SPLITS) allium_view_queue_render(self);
}

void allium_view_set_eye(AlliumView *self, const al_camera *eye)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (self->kind == AL_VIEW_3D) return;
    double up[3], right[3];
    memcpy(self->eye, eye->position, sizeof self->eye);
    al_camera_basis(eye, self->eye_forward, right, up);
    self->has_eye = TRUE;
    /* Flying turns and moves the 3D camera every frame; this view is drawn again only
     * when its mark moved by a pixel, so flying does not draw four views a frame. */
    double mark[4];
    gboolean arrow;
    eye_mark(self, mark, &arrow);
    gboolean moved = !self->drawn_has_mark || arrow != self->drawn_mark_arrow;
    for (int k = 0; k < (arrow ? 4 : 2) && !moved; k += 2)
        moved = hypot(mark[k] - self->drawn_mark[k], mark[k + 1] - self->drawn_mark[k + 1]) >= 1.0;
    if (moved) allium_view_queue_render(self);
}
