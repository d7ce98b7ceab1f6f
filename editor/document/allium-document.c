/* AlliumDocument (see allium-document.h): an open map document, its history, and its
 * live engine.
 *
 * Threads. Everything but the engine's callbacks runs on the main thread, which owns the
 * al_doc. An edit commits on the main thread and hands the engine the rows it changed
 * (hand_over): reading them back costs a few indexed queries. The engine calls back on its
 * own thread when it publishes a snapshot or copies the lightmaps; there the document makes
 * the AlliumSnapshot (its scene from the one before) or the AlliumLightmap (converted for
 * upload), leaves it in a one-place mailbox, and asks the main thread to take it
 * (deliver_cb). A newer one replaces one not yet taken, so the main thread only ever sees
 * the newest, and a light snapshot is handed over together with its first lightmap so
 * that no frame shows the new scene with the old light.
 *
 * Cache. The engine reads and writes the document's cache of compiled results through a
 * connection of its own (al_doc_cache_conn), so that storing a world of many megabytes
 * never holds up the interface.
 */
#include "allium-config.h"

#include "allium-document.h"

#include "layers/layer-edits.h"

#include "allium-entity-definitions.h"
#include "allium-preferences.h"
#include "mapfile/map-write.h"
#include "textures/wad.h"
#include "vertex/vertex.h"
#include "prefabs/prefab.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* The compile options in the cache keys: the same text as the command-line tools use, so
 * that a map compiled by allium-compile opens instantly. */
#define COMPILE_SALT "split 0 0"
#define LIGHT_SALT "split 0 0 light luxel 0"

/* The nice value of the engine's background thread (and the workers it starts); the
 * engine's other two threads keep the interface's. */
#define BACKGROUND_NICE 10

struct _AlliumDocument {
    GObject parent_instance;

    /* owned references */
    al_doc *doc;               /* NULL once closed */
    char *path;
    char *current_material;    /* chosen in the texture browser for new brushes, or NULL */
    char *read_only_reason;    /* NULL when writable */
    al_live *live;             /* NULL once closed */
    al_doc_cache_conn *cache;  /* the engine threads', NULL without */
    al_diag_list doc_diags;    /* problems reading the document, shown with every snapshot */
    AlliumSnapshot *snapshot;  /* the current one, or NULL */
    AlliumLightmap *lightmap;  /* the newest, or NULL */
    GArray *residuals;         /* AlliumResidualPoint of the lightmaps so far */

    /* textures: the newest set, the load under way, what it was asked for (to load again
     * only when that changes) and the files it read, watched */
    AlliumTextures *textures;
    GCancellable *texture_load;
    char *texture_request;
    GPtrArray *texture_monitors; /* GFileMonitor */
    guint texture_reload_source;
    gulong folders_handler;
    double light_target;

    /* entity definitions: the current set (read by the engine's threads too), the files
     * the worldspawn names (absolute), the handler of the preference */
    AlliumDefinitionSlot definitions;
    char **map_definition_files;
    gulong definitions_handler;

    /* edits and previews */
    guint64 generation;        /* of the newest change handed to the engine */
    gint64 handed_us;          /* when it was handed over (monotonic) */
    gint64 awaited_frame;      /* the frame that last waited for its collision */
    gboolean compiled_pending; /* a snapshot taken by that wait, "compiled" not yet told */
    GArray *preview_brushes, *preview_entities; /* gint64 rows the preview shows moved */
    int lock_approximate; /* faces the last move or transform's texture lock approximated */
    gboolean change_marks; /* FALSE while "changed" tells of an edit that left the marks */

    /* the mailbox from the engine's thread, under LOCK */
    GMutex lock;
    GCond incoming_cond; /* INCOMING was set */
    AlliumSnapshot *incoming;
    AlliumLightmap *incoming_lightmap;
    guint64 awaiting_light; /* a light snapshot waits in INCOMING for its first lightmap */
    gboolean delivery_queued;

    /* the engine's threads only, under BUILD_LOCK (both may publish at once) */
    GMutex build_lock;
    AlliumSnapshot *built;  /* the last snapshot made: the next scene is built from its */
};

G_DEFINE_TYPE(AlliumDocument, allium_document, G_TYPE_OBJECT)

G_DEFINE_QUARK(allium-document-error-quark, allium_document_error)

enum {
    PROP_0,
    PROP_PATH,
    PROP_READ_ONLY,
    PROP_CAN_UNDO,
    PROP_CAN_REDO,
    PROP_COMPILING,
    PROP_LIGHTING,
    N_PROPS
};

enum {
    SIGNAL_CHANGED,
    SIGNAL_COMPILED,
    SIGNAL_LIT,
    SIGNAL_TEXTURES,
    SIGNAL_DEFINITIONS,
    N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* --- static helpers ------------------------------------------------------------------ */

static void assert_main_thread(void)
{
    /* g_application_run holds the default context for the main thread. */
    g_assert(g_main_context_is_owner(g_main_context_default()));
}

static void append_diags(GString *text, const al_diag_list *diags, al_severity severity,
                         int *shown, int limit)
{
    char line[400];
    for (size_t i = 0; diags && i < diags->count && *shown < limit; i++) {
        const al_diag *d = &diags->items[i];
        if (d->severity != severity) continue;
        g_string_append_c(text, '\n');
        g_string_append(text, al_diag_format(d, line, sizeof line));
        (*shown)++;
    }
}

/* Background work gives way to the interface. On two cores the light's shots and the
 * exact PVS with the workers they start fill both, and the main thread, drawing and taking
 * input, would get a third of a core. Linux keeps a nice value per thread, and the threads
 * a thread starts inherit it. The engine's own thread keeps the interface's priority: an
 * edit's collision is waited for. */
static void yield_to_interface(void)
{
#ifdef __linux__
    setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), BACKGROUND_NICE);
#endif
}

static void add_residual(AlliumDocument *self, const AlliumLightmap *lightmap)
{
    AlliumResidualPoint p = {lightmap->stats.shots, lightmap->stats.residual};
    if (self->residuals->len > 0) {
        AlliumResidualPoint *last =
            &g_array_index(self->residuals, AlliumResidualPoint, self->residuals->len - 1);
        if (p.shots < last->shots) g_array_set_size(self->residuals, 0); /* a reset */
        else if (p.shots == last->shots) {
            last->residual = p.residual;
            return;
        }
    }
    g_array_append_val(self->residuals, p);
}

/* --- from the engine's thread ----------------------------------------------------------- */

static gboolean deliver_cb(gpointer data);

/* Asks the main thread to take what the mailbox holds. Under LOCK. */
static void queue_delivery(AlliumDocument *self)
{
    if (self->delivery_queued) return;
    self->delivery_queued = TRUE;
    /* Before the next frame is drawn (GTK draws at a lower priority). Always a source, never
     * a call: on the main thread (the definitions changed) g_main_context_invoke would run
     * deliver_cb at once, under LOCK, which it takes. */
    GSource *source = g_idle_source_new();
    g_source_set_priority(source, G_PRIORITY_DEFAULT);
    g_source_set_callback(source, deliver_cb, g_object_ref(self), g_object_unref);
    g_source_attach(source, g_main_context_default());
    g_source_unref(source);
}

/* The engine's background thread (the light's corrections and shots, the tight PVS, and
 * the workers it starts) gives way to the interface: on two cores, llvmpipe and GTK
 * drawing at full priority against it gave a quarter fewer frames while editing. The
 * engine's own thread, which only builds an edit's collision, and the one that makes an
 * edit's portals and corrects its light up to its first frame keep the interface's
 * priority: at nice 10 they waited behind every frame drawn meanwhile. */
static void thread_started_cb(void *user, bool background)
{
    (void) user;
    if (background) yield_to_interface();
}

/* Makes an AlliumSnapshot of the engine's current snapshot and leaves it in the mailbox:
 * the engine's threads after each stage, and the main thread with AGAIN when the entity
 * definitions changed (the same engine snapshot, made again with the new set). */
static void make_snapshot(AlliumDocument *self, gboolean again)
{
    g_mutex_lock(&self->build_lock);
    al_snapshot *engine = al_live_current(self->live);
    /* The engine's other thread made this one already (a job of an older change published
     * after it, and the engine kept the newer one current). */
    if (!engine || (!again && self->built && self->built->engine == engine)) {
        al_snapshot_release(engine);
        g_mutex_unlock(&self->build_lock);
        return;
    }
    AlliumSnapshot *snap = allium_snapshot_new(engine, &self->doc_diags);
    al_snapshot_release(engine);
    /* The entities against the entity definitions: warnings for the problems list. */
    snap->definitions = allium_definition_slot_dup(&self->definitions);
    allium_entity_definitions_check(snap->definitions, &snap->input.input, &snap->diags);
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(self->live, st);
    snap->ms_total = st[snap->stage].last_ms;
    snap->ms_work = st[snap->stage].last_work_ms;
    /* What the status bar tells of every stage of an edit is its collision's. */
    const al_stage_status *c = &st[AL_STAGE_COLLISION];
    if (snap->world && c->generation == snap->generation) {
        snap->collision_ms = c->last_ms;
        snap->collision_wait_ms = c->last_wait_ms;
        snap->blocks_built = c->blocks_built;
    }
    gint64 t0 = g_get_monotonic_time();
    allium_snapshot_build_scene(snap, self->built);
    g_debug("engine: %s of generation %" G_GUINT64_FORMAT " published %.1f ms after the change "
            "(its own work %.1f ms); scene %.2f ms",
            al_stage_name(snap->stage), snap->generation, snap->ms_total, snap->ms_work,
            (double) (g_get_monotonic_time() - t0) / 1000.0);
    g_clear_pointer(&self->built, allium_snapshot_unref);
    self->built = allium_snapshot_ref(snap);
    g_mutex_lock(&self->lock);
    g_mutex_unlock(&self->build_lock);
    g_clear_pointer(&self->incoming, allium_snapshot_unref);
    snap->published_us = g_get_monotonic_time();
    self->incoming = snap;
    g_cond_broadcast(&self->incoming_cond);
    /* A light snapshot goes with its light: the engine's copy comes next. */
    if (snap->stage == AL_STAGE_LIGHT && snap->rad)
        self->awaiting_light = snap->generation;
    else {
        self->awaiting_light = 0;
        queue_delivery(self);
    }
    g_mutex_unlock(&self->lock);
}

/* The engine published STAGE of GENERATION (engine thread). */
static void published_cb(void *user, al_stage stage, uint64_t generation)
{
    (void) stage; /* the current snapshot's (snap->stage) is what counts */
    (void) generation;
    make_snapshot(user, FALSE);
}

/* The engine's light work stopped (engine thread): "lighting" is told on the main thread,
 * with a delivery. */
static void light_settled_cb(void *user)
{
    AlliumDocument *self = user;
    g_mutex_lock(&self->lock);
    queue_delivery(self);
    g_mutex_unlock(&self->lock);
}

/* The engine copied the lightmaps (engine thread). */
static void lightmap_cb(void *user, uint64_t generation)
{
    (void) generation;
    AlliumDocument *self = user;
    al_live_lightmap *copy = al_live_current_lightmap(self->live);
    if (!copy) return;
    AlliumLightmap *lightmap = allium_lightmap_new(copy);
    al_live_lightmap_release(copy);
    if (!lightmap) return;
    g_mutex_lock(&self->lock);
    g_clear_pointer(&self->incoming_lightmap, allium_lightmap_unref);
    self->incoming_lightmap = lightmap;
    if (self->awaiting_light && lightmap->light_generation >= self->awaiting_light)
        self->awaiting_light = 0;
    if (!self->awaiting_light) queue_delivery(self);
    g_mutex_unlock(&self->lock);
}

static bool cache_get_cb(void *user, const char *kind, const char *key, void **bytes,
                         size_t *size)
{
    (void) kind;
    AlliumDocument *self = user;
    return self->cache && al_doc_cache_conn_get(self->cache, key, bytes, size) == AL_OK;
}

/* The engine hands over a world or solver state to keep (engine thread): written through
 * the engine's own connection, so that the interface never waits for it. */
static void cache_put_cb(void *user, const char *kind, const char *key, void *bytes, size_t size)
{
    AlliumDocument *self = user;
    gint64 t0 = g_get_monotonic_time();
    al_status st =
        self->cache ? al_doc_cache_conn_put(self->cache, key, kind, bytes, size) : AL_ERR_IO;
    g_debug("engine: the %s (%zu bytes, key %.8s) %s the cache in %.1f ms", kind, size, key,
            st == AL_OK ? "went into" : "could not go into",
            (double) (g_get_monotonic_time() - t0) / 1000.0);
    free(bytes);
}

/* --- on the main thread --------------------------------------------------------------- */

/* --- textures ------------------------------------------------------------------------ */

static void request_textures(AlliumDocument *self, gboolean again);
static void hand_over(AlliumDocument *self, const al_doc_change *change);
static void update_definitions(AlliumDocument *self, gboolean again);

static void texture_file_changed_cb(GFileMonitor *monitor, GFile *file, GFile *other,
                                    GFileMonitorEvent event, AlliumDocument *self);

/* Stores the texture colours T found for its materials in the document, and hands the
 * engine the materials if one changed: coloured walls tint the light they bounce, and the
 * next open's first compile already has the colours (its light cache matches). Main
 * thread. */
static void store_texture_colours(AlliumDocument *self, const AlliumTextures *t)
{
    int missing = t->missing ? (int) g_strv_length(t->missing) : 0;
    al_doc_texture_colour *colours = g_new0(al_doc_texture_colour, t->count + missing + 1);
    int n = 0;
    for (int i = 0; i < t->count; i++) {
        const al_texture_image *image = &t->images[i];
        colours[n].material = image->name;
        colours[n].found = TRUE;
        al_texture_average(image->rgba, image->width, image->height, colours[n].average);
        n++;
    }
    for (int i = 0; i < missing; i++) colours[n++].material = t->missing[i];
    al_doc_change change = {0};
    al_diag_list diags = {0};
    al_status st = al_doc_set_texture_colours(self->doc, colours, n, &change, &diags);
    if (st != AL_OK)
        g_debug("texture colours not stored: %s", al_status_message(st));
    else if (change.materials) {
        hand_over(self, &change);
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
    }
    al_doc_change_clear(&change);
    al_diag_list_clear(&diags);
    g_free(colours);
}

static void textures_loaded_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    (void) source;
    AlliumDocument *self = data;
    g_autoptr(GError) error = NULL;
    AlliumTextures *t = allium_textures_load_finish(result, &error);
    if (!t) {
        /* Cancelled: a newer request or the document's end took over. */
        g_object_unref(self);
        return;
    }
    g_clear_object(&self->texture_load);
    g_clear_pointer(&self->textures, allium_textures_unref);
    self->textures = t;
    /* Watch what was read: a WAD saved again by a texture tool is read again. */
    g_ptr_array_set_size(self->texture_monitors, 0);
    for (char **f = t->files; f && *f; f++) {
        g_autoptr(GFile) file = g_file_new_for_path(*f);
        GFileMonitor *monitor = g_file_monitor_file(file, G_FILE_MONITOR_NONE, NULL, NULL);
        if (!monitor) continue;
        g_signal_connect(monitor, "changed", G_CALLBACK(texture_file_changed_cb), self);
        g_ptr_array_add(self->texture_monitors, monitor);
    }
    g_debug("textures: %d found, %d missing, %u files watched", t->count,
            t->missing ? (int) g_strv_length(t->missing) : 0, self->texture_monitors->len);
    if (self->doc && !al_doc_read_only(self->doc)) store_texture_colours(self, t);
    g_signal_emit(self, signals[SIGNAL_TEXTURES], 0);
    g_object_unref(self);
}

static gboolean texture_reload_cb(gpointer data)
{
    AlliumDocument *self = data;
    self->texture_reload_source = 0;
    request_textures(self, TRUE);
    return G_SOURCE_REMOVE;
}

static void texture_file_changed_cb(GFileMonitor *monitor, GFile *file, GFile *other,
                                    GFileMonitorEvent event, AlliumDocument *self)
{
    (void) monitor, (void) file, (void) other;
    if (event != G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT && event != G_FILE_MONITOR_EVENT_CREATED &&
        event != G_FILE_MONITOR_EVENT_DELETED && event != G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED)
        return;
    /* A tool writes a file in several steps: read it once they are over. */
    if (self->texture_reload_source) g_source_remove(self->texture_reload_source);
    self->texture_reload_source = g_timeout_add(250, texture_reload_cb, self);
}

static void texture_folders_changed_cb(GObject *prefs, GParamSpec *pspec, AlliumDocument *self)
{
    (void) prefs, (void) pspec;
    request_textures(self, FALSE);
}

/* Loads the current snapshot's textures off the main thread when what they depend on (the
 * "wad" key, the map's folder, the texture folders, the drawn materials) changed since the
 * last request, or when AGAIN (a file read changed). Main thread. */
static void request_textures(AlliumDocument *self, gboolean again)
{
    assert_main_thread();
    AlliumSnapshot *snap = self->snapshot;
    if (!snap || !snap->engine || !self->doc) return;
    const al_input *in = &snap->input.input;
    g_autofree char *folder = g_path_get_dirname(self->path);
    g_auto(GStrv) chosen = allium_preferences_dup_texture_folders(allium_preferences_get_default());
    /* The bundled textures last: the sample map finds them wherever it was imported to. */
    g_auto(GStrv) bundled = g_strsplit(ALLIUM_SAMPLE_WAD_DIRS, ";", -1);
    g_autoptr(GStrvBuilder) all = g_strv_builder_new();
    g_strv_builder_addv(all, (const char **) chosen);
    g_strv_builder_addv(all, (const char **) bundled);
    g_auto(GStrv) folders = g_strv_builder_end(all);
    const char *wad = allium_snapshot_entity_value(snap, 0, "wad");
    /* Tool materials (clip, skip, hint, trigger, origin) are never drawn textured. */
    const uint32_t untextured = AL_MATERIAL_CLIP | AL_MATERIAL_NODRAW | AL_MATERIAL_HINT |
                                AL_MATERIAL_TRIGGER | AL_MATERIAL_ORIGIN;
    GPtrArray *names = g_ptr_array_new();
    for (int m = 0; m < in->material_count; m++)
        if (in->materials[m].name && !(in->materials[m].flags & untextured))
            g_ptr_array_add(names, (gpointer) in->materials[m].name);
    g_ptr_array_add(names, NULL);
    GString *key = g_string_new(wad ? wad : "");
    g_string_append_printf(key, "\n%s\n", folder);
    for (char **f = folders; *f; f++) g_string_append_printf(key, "%s;", *f);
    g_string_append_c(key, '\n');
    for (guint i = 0; i + 1 < names->len; i++)
        g_string_append_printf(key, "%s;", (char *) names->pdata[i]);
    if (!again && g_strcmp0(key->str, self->texture_request) == 0) {
        g_string_free(key, TRUE);
        g_ptr_array_unref(names);
        return;
    }
    g_free(self->texture_request);
    self->texture_request = g_string_free(key, FALSE);
    if (self->texture_load) g_cancellable_cancel(self->texture_load);
    g_clear_object(&self->texture_load);
    self->texture_load = g_cancellable_new();
    AlliumTextureRequest request = {
        .wad_key = wad,
        .map_folder = folder,
        .folders = (const char *const *) folders,
        .materials = (const char *const *) names->pdata,
    };
    allium_textures_load_async(&request, self->texture_load, textures_loaded_cb,
                               g_object_ref(self));
    g_ptr_array_unref(names);
}

/* Takes what the engine's thread left in the mailbox. */
static gboolean deliver_cb(gpointer data)
{
    AlliumDocument *self = data;
    g_mutex_lock(&self->lock);
    AlliumSnapshot *snap = g_steal_pointer(&self->incoming);
    AlliumLightmap *lightmap = g_steal_pointer(&self->incoming_lightmap);
    /* A light snapshot still waiting for its light stays until it comes. */
    if (snap && self->awaiting_light) {
        self->incoming = snap;
        snap = NULL;
    }
    self->delivery_queued = FALSE;
    g_mutex_unlock(&self->lock);
    if (!self->doc) {
        allium_snapshot_unref(snap);
        allium_lightmap_unref(lightmap);
        return G_SOURCE_REMOVE;
    }
    if (snap) {
        g_clear_pointer(&self->snapshot, allium_snapshot_unref);
        snap->delivered_us = g_get_monotonic_time();
        self->snapshot = snap;
    }
    if (lightmap) {
        g_clear_pointer(&self->lightmap, allium_lightmap_unref);
        self->lightmap = lightmap;
        add_residual(self, lightmap);
    }
    gboolean compiled = snap || self->compiled_pending;
    self->compiled_pending = FALSE;
    if (compiled) g_signal_emit(self, signals[SIGNAL_COMPILED], 0);
    if (compiled) request_textures(self, FALSE);
    if (lightmap) g_signal_emit(self, signals[SIGNAL_LIT], 0);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
    return G_SOURCE_REMOVE;
}

/* Makes a new set of entity definitions when the files it would read (the Preferences',
 * then the worldspawn's) differ from the current set's, and tells "definitions". With
 * AGAIN, the current snapshot is made again with it (nothing else would bring one). Main
 * thread. */
static void update_definitions(AlliumDocument *self, gboolean again)
{
    assert_main_thread();
    const char *preference =
        allium_preferences_get_entity_definitions(allium_preferences_get_default());
    g_auto(GStrv) files = allium_definition_set_list_files(preference, NULL, NULL);
    g_autoptr(GStrvBuilder) all = g_strv_builder_new();
    g_strv_builder_addv(all, (const char **) files);
    if (self->map_definition_files)
        g_strv_builder_addv(all, (const char **) self->map_definition_files);
    g_auto(GStrv) wanted = g_strv_builder_end(all);
    g_autoptr(AlliumDefinitionSet) current = allium_definition_slot_dup(&self->definitions);
    if (current && allium_definition_set_has_files(current, (const char *const *) wanted)) return;
    g_autoptr(AlliumDefinitionSet) set = allium_definition_set_new((const char *const *) wanted);
    allium_definition_slot_set(&self->definitions, set);
    if (again && self->live) make_snapshot(self, TRUE);
    g_signal_emit(self, signals[SIGNAL_DEFINITIONS], 0);
}

static void definitions_preference_cb(GObject *prefs, GParamSpec *pspec, AlliumDocument *self)
{
    (void) prefs, (void) pspec;
    update_definitions(self, TRUE);
}

/* Hands the engine CHANGE's rows as the document holds them now (NULL: the whole map). */
static void hand_over(AlliumDocument *self, const al_doc_change *change)
{
    if (!self->doc || !self->live) return;
    al_doc_live live;
    al_diag_list diags = {0};
    al_status st = al_doc_live_read(self->doc, change, &live, &diags);
    if (!change) {
        /* The document's own problems go with every snapshot. */
        g_mutex_lock(&self->lock);
        al_diag_list_clear(&self->doc_diags);
        al_diag_append(&self->doc_diags, &diags);
        g_mutex_unlock(&self->lock);
    }
    al_diag_list_clear(&diags);
    if (st != AL_OK) {
        g_warning("the map could not be read for its compile: %s", allium_status_message(st));
        return;
    }
    /* Before the engine sees the change: its snapshots are made with the new set. */
    for (int e = 0; e < live.change.entity_count; e++) {
        const al_live_entity *world = &live.change.entities[e];
        if (world->id != allium_document_get_world_entity(self) || world->removed) continue;
        al_entity_desc desc = {world->classname, -1, world->properties, world->property_count};
        g_autofree char *folder = g_path_get_dirname(self->path);
        g_strfreev(self->map_definition_files);
        self->map_definition_files = allium_definition_set_list_files(NULL, &desc, folder);
        update_definitions(self, FALSE);
    }
    guint64 g = al_live_apply(self->live, &live.change);
    if (g) {
        self->generation = g;
        self->handed_us = g_get_monotonic_time();
    }
    al_doc_live_free(&live);
}

/* The rows a preview moved, added to CHANGE (so that what the document holds replaces
 * the preview); the preview is over. */
static void end_preview_into(AlliumDocument *self, al_doc_change *change)
{
    if (self->preview_brushes->len + self->preview_entities->len == 0) return;
    GArray *b = self->preview_brushes, *e = self->preview_entities;
    for (guint i = 0; i < b->len; i++) {
        gint64 id = g_array_index(b, gint64, i);
        gboolean listed = FALSE;
        for (int k = 0; k < change->brush_count && !listed; k++) listed = change->brushes[k].brush == id;
        if (listed) continue;
        al_doc_brush_change *grown =
            realloc(change->brushes, (size_t) (change->brush_count + 1) * sizeof *grown);
        if (!grown) continue;
        change->brushes = grown;
        change->brushes[change->brush_count++] = (al_doc_brush_change){.brush = id};
    }
    for (guint i = 0; i < e->len; i++) {
        gint64 id = g_array_index(e, gint64, i);
        gboolean listed = FALSE;
        for (int k = 0; k < change->entity_count && !listed; k++) listed = change->entities[k] == id;
        if (listed) continue;
        int64_t *grown = realloc(change->entities, (size_t) (change->entity_count + 1) * sizeof *grown);
        if (!grown) continue;
        change->entities = grown;
        change->entities[change->entity_count++] = id;
    }
    g_array_set_size(b, 0);
    g_array_set_size(e, 0);
}

/* After an edit, undo or redo: history state, and the engine gets what CHANGE names (and
 * what a preview showed otherwise). */
static void contents_changed(AlliumDocument *self, al_doc_change *change)
{
    end_preview_into(self, change);
    hand_over(self, change);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CAN_UNDO]);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CAN_REDO]);
    self->change_marks = change->marks;
    g_signal_emit(self, signals[SIGNAL_CHANGED], 0);
    self->change_marks = TRUE;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
}

/* Finishes an edit: reports a failure in ERROR (with PREFIX), or hands CHANGE over. */
static gboolean finish_edit(AlliumDocument *self, al_status st, al_doc_change *change,
                            al_diag_list *diags, const char *prefix, GError **error)
{
    if (st != AL_OK) allium_set_status_error(error, st, diags, prefix);
    al_diag_list_clear(diags);
    if (st == AL_OK) contents_changed(self, change);
    self->lock_approximate = 0; /* told with the edit's "changed" only */
    al_doc_change_clear(change);
    return st == AL_OK;
}

static gboolean require_open(AlliumDocument *self, GError **error)
{
    if (self->doc) return TRUE;
    allium_set_status_error(error, AL_ERR_NOT_FOUND, NULL, NULL);
    return FALSE;
}

/* Stops the engine and empties the mailbox; the snapshot shown stays. */
static void stop_engine(AlliumDocument *self)
{
    /* The engine's callbacks read self->live until its threads are joined. */
    al_live_destroy(self->live);
    self->live = NULL;
    g_clear_pointer(&self->cache, al_doc_cache_conn_close);
    g_mutex_lock(&self->lock);
    g_clear_pointer(&self->incoming, allium_snapshot_unref);
    g_clear_pointer(&self->incoming_lightmap, allium_lightmap_unref);
    self->awaiting_light = 0;
    g_mutex_unlock(&self->lock);
    g_clear_pointer(&self->built, allium_snapshot_unref);
}

static gboolean start_engine(AlliumDocument *self)
{
    if (al_doc_cache_conn_open(self->path, !al_doc_read_only(self->doc), &self->cache) != AL_OK)
        self->cache = NULL;
    al_live_options options = {
        .pvs = AL_PVS_TIGHT,
        .light = TRUE,
        .light_residual = self->light_target,
        .cache = {.get = cache_get_cb,
                  .put = cache_put_cb,
                  .user = self,
                  .world_salt = COMPILE_SALT,
                  .light_salt = LIGHT_SALT},
        .published = published_cb,
        .lightmap = lightmap_cb,
        .light_settled = light_settled_cb,
        .thread_started = thread_started_cb,
        .user = self,
    };
    /* A read-only document keeps nothing. */
    if (al_doc_read_only(self->doc)) options.cache.put = NULL;
    self->live = al_live_create(&options);
    return self->live != NULL;
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_document_dispose(GObject *object)
{
    AlliumDocument *self = ALLIUM_DOCUMENT(object);
    /* The engine calls back with the document: it stops before the document goes. */
    stop_engine(self);
    if (self->texture_load) g_cancellable_cancel(self->texture_load);
    g_clear_object(&self->texture_load);
    if (self->texture_reload_source) g_source_remove(self->texture_reload_source);
    self->texture_reload_source = 0;
    if (self->texture_monitors) g_ptr_array_set_size(self->texture_monitors, 0);
    /* Asked first: at the application's end (1 of 16 self-test runs under a debugger) the
     * handler had already gone with the preferences' handlers. */
    AlliumPreferences *prefs = allium_preferences_get_default();
    if (self->folders_handler && g_signal_handler_is_connected(prefs, self->folders_handler))
        g_signal_handler_disconnect(prefs, self->folders_handler);
    self->folders_handler = 0;
    if (self->definitions_handler &&
        g_signal_handler_is_connected(prefs, self->definitions_handler))
        g_signal_handler_disconnect(prefs, self->definitions_handler);
    self->definitions_handler = 0;
    G_OBJECT_CLASS(allium_document_parent_class)->dispose(object);
}

static void allium_document_finalize(GObject *object)
{
    AlliumDocument *self = ALLIUM_DOCUMENT(object);
    al_doc_close(self->doc);
    g_clear_pointer(&self->lightmap, allium_lightmap_unref);
    g_clear_pointer(&self->snapshot, allium_snapshot_unref);
    g_clear_pointer(&self->textures, allium_textures_unref);
    g_clear_pointer(&self->texture_monitors, g_ptr_array_unref);
    g_free(self->texture_request);
    allium_definition_slot_clear(&self->definitions);
    g_strfreev(self->map_definition_files);
    al_diag_list_clear(&self->doc_diags);
    g_free(self->path);
    g_free(self->current_material);
    g_free(self->read_only_reason);
    g_array_unref(self->residuals);
    g_array_unref(self->preview_brushes);
    g_array_unref(self->preview_entities);
    g_mutex_clear(&self->lock);
    g_cond_clear(&self->incoming_cond);
    g_mutex_clear(&self->build_lock);
    G_OBJECT_CLASS(allium_document_parent_class)->finalize(object);
}

static void allium_document_get_property(GObject *object, guint prop_id, GValue *value,
                                         GParamSpec *pspec)
{
    AlliumDocument *self = ALLIUM_DOCUMENT(object);
    switch (prop_id) {
    case PROP_PATH:
        g_value_set_string(value, self->path);
        break;
    case PROP_READ_ONLY:
        g_value_set_boolean(value, allium_document_get_read_only(self));
        break;
    case PROP_CAN_UNDO:
        g_value_set_boolean(value, allium_document_can_undo(self));
        break;
    case PROP_CAN_REDO:
        g_value_set_boolean(value, allium_document_can_redo(self));
        break;
    case PROP_COMPILING:
        g_value_set_boolean(value, allium_document_get_compiling(self));
        break;
    case PROP_LIGHTING:
        g_value_set_boolean(value, allium_document_get_lighting(self));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_document_class_init(AlliumDocumentClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = allium_document_dispose;
    object_class->finalize = allium_document_finalize;
    object_class->get_property = allium_document_get_property;

    properties[PROP_PATH] = g_param_spec_string("path", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_READ_ONLY] = g_param_spec_boolean("read-only", NULL, NULL, FALSE,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_CAN_UNDO] = g_param_spec_boolean("can-undo", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_CAN_REDO] = g_param_spec_boolean("can-redo", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_COMPILING] = g_param_spec_boolean("compiling", NULL, NULL, FALSE,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    properties[PROP_LIGHTING] = g_param_spec_boolean("lighting", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_COMPILED] = g_signal_new("compiled", G_TYPE_FROM_CLASS(klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            0);
    signals[SIGNAL_LIT] = g_signal_new("lit", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                       NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_TEXTURES] = g_signal_new("textures", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                            0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_DEFINITIONS] =
        g_signal_new("definitions", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                     NULL, G_TYPE_NONE, 0);
}

static void allium_document_init(AlliumDocument *self)
{
    self->change_marks = TRUE;
    self->residuals = g_array_new(FALSE, FALSE, sizeof(AlliumResidualPoint));
    self->preview_brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    self->preview_entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    self->light_target = ALLIUM_LIGHT_RESIDUAL;
    self->texture_monitors = g_ptr_array_new_with_free_func(g_object_unref);
    g_mutex_init(&self->lock);
    g_cond_init(&self->incoming_cond);
    g_mutex_init(&self->build_lock);
    allium_definition_slot_init(&self->definitions);
}

/* --- public API ---------------------------------------------------------------------- */

const char *allium_status_message(al_status status)
{
    switch (status) {
    case AL_OK:
        return _("No error");
    case AL_ERR_NOMEM:
        return _("Out of memory");
    case AL_ERR_IO:
        return _("The file could not be read or written");
    case AL_ERR_SYNTAX:
        return _("Syntax error");
    case AL_ERR_NOT_A_MAP:
        return _("The file is not an Allium map");
    case AL_ERR_VERSION:
        return _("The map was written by a newer version of Allium");
    case AL_ERR_CORRUPT:
        return _("The file is damaged");
    case AL_ERR_LOCKED:
        return _("The map is open for writing in another program");
    case AL_ERR_READ_ONLY:
        return _("The map is read-only");
    case AL_ERR_EXISTS:
        return _("The file already exists");
    case AL_ERR_NOTHING_TO_DO:
        return _("Nothing to undo or redo");
    case AL_ERR_INVALID_ARGUMENT:
        return _("Invalid value");
    case AL_ERR_LIMIT:
        return _("A limit was exceeded");
    case AL_ERR_CANCELLED:
        return _("Cancelled");
    case AL_ERR_NOT_FOUND:
        return _("No such object");
    default:
        return al_status_message(status);
    }
}

void allium_set_status_error(GError **error, al_status status, const al_diag_list *diags,
                             const char *prefix)
{
    if (!error) return;
    enum { LIMIT = 6 };
    GString *text = g_string_new(NULL);
    if (prefix) g_string_append_printf(text, "%s: ", prefix);
    g_string_append(text, allium_status_message(status));
    int shown = 0;
    append_diags(text, diags, AL_SEVERITY_ERROR, &shown, LIMIT);
    append_diags(text, diags, AL_SEVERITY_WARNING, &shown, LIMIT);
    size_t total = diags ? al_diag_count(diags, AL_SEVERITY_WARNING) : 0;
    if (total > (size_t) shown)
        g_string_append_printf(text, _("\n… and %zu more"), total - (size_t) shown);
    g_set_error_literal(error, ALLIUM_DOCUMENT_ERROR, (int) status, text->str);
    g_string_free(text, TRUE);
}


AlliumDocument *allium_document_open(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    assert_main_thread();

    al_diag_list diags = {0};
    al_doc *doc = NULL;
    char *reason = NULL;
    al_status st = al_doc_open(path, AL_DOC_READ_WRITE, &doc, &diags);
    if (st == AL_ERR_LOCKED || st == AL_ERR_READ_ONLY) {
        /* Someone else is writing it, or we may not: reading is still useful. */
        reason = g_strdup(allium_status_message(st));
        al_diag_list_clear(&diags);
        st = al_doc_open(path, AL_DOC_READ_ONLY, &doc, &diags);
    }
    if (st != AL_OK) {
        g_autofree char *name = g_filename_display_basename(path);
        allium_set_status_error(error, st, &diags, name);
        al_diag_list_clear(&diags);
        g_free(reason);
        return NULL;
    }
    al_diag_list_clear(&diags);

    AlliumDocument *self = g_object_new(ALLIUM_TYPE_DOCUMENT, NULL);
    self->doc = doc;
    self->path = g_strdup(path);
    self->read_only_reason = reason;
    if (!self->read_only_reason && al_doc_read_only(doc))
        self->read_only_reason = g_strdup(allium_status_message(AL_ERR_READ_ONLY));
    /* The Preferences' definitions until the map's worldspawn is read (hand_over). */
    update_definitions(self, FALSE);
    if (!start_engine(self)) {
        allium_set_status_error(error, AL_ERR_NOMEM, NULL, NULL);
        g_object_unref(self);
        return NULL;
    }
    /* The whole map: the engine shows it at once and compiles it (or loads it from the
     * cache). */
    hand_over(self, NULL);
    self->folders_handler =
        g_signal_connect(allium_preferences_get_default(), "notify::texture-folders",
                         G_CALLBACK(texture_folders_changed_cb), self);
    self->definitions_handler =
        g_signal_connect(allium_preferences_get_default(), "notify::entity-definitions",
                         G_CALLBACK(definitions_preference_cb), self);
    return self;
}

void allium_document_close(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    stop_engine(self);
    g_clear_pointer(&self->doc, al_doc_close);
}

const char *allium_document_get_path(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->path;
}

char *allium_document_dup_display_name(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return g_filename_display_basename(self->path);
}

char *allium_document_dup_folder(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    g_autofree char *dir = g_path_get_dirname(self->path);
    const char *home = g_get_home_dir();
    g_autofree char *shown = NULL;
    /* "~/maps" reads better than "/home/someone/maps", as the file chooser shows it. */
    if (home && g_str_has_prefix(dir, home) &&
        (dir[strlen(home)] == '/' || dir[strlen(home)] == '\0'))
        shown = g_strconcat("~", dir + strlen(home), NULL);
    else
        shown = g_strdup(dir);
    return g_filename_display_name(shown);
}

gboolean allium_document_get_read_only(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), TRUE);
    return self->read_only_reason != NULL || !self->doc || al_doc_read_only(self->doc);
}

const char *allium_document_get_read_only_reason(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->read_only_reason;
}

al_doc *allium_document_get_doc(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->doc;
}

AlliumSnapshot *allium_document_get_snapshot(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->snapshot;
}

void allium_document_get_stages(AlliumDocument *self, al_stage_status out[AL_STAGE_COUNT])
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (self->live) al_live_status(self->live, out);
    else memset(out, 0, AL_STAGE_COUNT * sizeof *out);
}

gboolean allium_document_get_compiling(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!self->live) return FALSE;
    al_stage_status st[AL_STAGE_COUNT];
    al_live_status(self->live, st);
    for (int s = AL_STAGE_COLLISION; s < AL_STAGE_COUNT; s++)
        if (st[s].state == AL_STAGE_PENDING || st[s].state == AL_STAGE_RUNNING) return TRUE;
    /* Published by the engine but not yet taken here (the engine may have finished every
     * stage while this thread was busy). */
    if (!self->snapshot || self->snapshot->generation < self->generation) return TRUE;
    al_snapshot *published = al_live_current(self->live);
    gboolean behind = published && published != self->snapshot->engine;
    al_snapshot_release(published);
    return behind;
}

AlliumDefinitionSet *allium_document_dup_definitions(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return allium_definition_slot_dup(&self->definitions);
}

AlliumTextures *allium_document_get_textures(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->textures;
}

AlliumLightmap *allium_document_get_lightmap(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    AlliumSnapshot *snap = self->snapshot;
    if (!self->lightmap || !snap || !snap->light_generation ||
        self->lightmap->light_generation != snap->light_generation)
        return NULL;
    return self->lightmap;
}

gboolean allium_document_get_lighting(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!self->live) return FALSE;
    /* What the engine left for this thread (its last lightmaps, or word that the light
     * settled) is not yet taken: until it is, the interface still shows light at work. */
    g_mutex_lock(&self->lock);
    gboolean incoming = self->incoming_lightmap != NULL || self->delivery_queued;
    g_mutex_unlock(&self->lock);
    return incoming || al_live_light_busy(self->live);
}

void allium_document_light_run(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (self->live) al_live_light_run(self->live, self->light_target);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

void allium_document_light_pause(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (self->live) al_live_light_pause(self->live);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

void allium_document_light_step(AlliumDocument *self, int shots)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (self->live) al_live_light_step(self->live, MAX(shots, 1));
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

void allium_document_light_reset(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (self->live) al_live_light_reset(self->live);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

al_light_mode allium_document_get_light_mode(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), AL_LIGHT_RUN);
    return self->live ? al_live_light_mode(self->live, NULL) : AL_LIGHT_PAUSED;
}

gboolean allium_document_get_light_paused(AlliumDocument *self)
{
    return allium_document_get_light_mode(self) != AL_LIGHT_RUN;
}

void allium_document_set_light_target(AlliumDocument *self, double residual)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_target = CLAMP(residual, 1e-5, 1.0);
    /* A run in progress heads for the new target. */
    if (self->live && al_live_light_mode(self->live, NULL) == AL_LIGHT_RUN)
        al_live_light_run(self->live, self->light_target);
}

double allium_document_get_light_target(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), ALLIUM_LIGHT_RESIDUAL);
    return self->light_target;
}

const AlliumResidualPoint *allium_document_get_residuals(AlliumDocument *self, guint *count)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    *count = self->residuals->len;
    return (const AlliumResidualPoint *) (void *) self->residuals->data;
}

guint64 allium_document_get_generation(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), 0);
    return self->generation;
}

gint64 allium_document_get_collision_due(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), 0);
    /* Every snapshot of a change, its collision's first (or why it did not compile),
     * carries the change's generation. */
    if (!self->live || (self->snapshot && self->snapshot->generation >= self->generation)) return 0;
    return self->handed_us;
}

/* The snapshot in the mailbox is the newest change's (its collision, or why it has none)
 * and may be taken now. Under LOCK. */
static gboolean newest_arrived(AlliumDocument *self)
{
    return self->incoming && !self->awaiting_light &&
           self->incoming->generation >= self->generation;
}

gboolean allium_document_await_collision(AlliumDocument *self, gint64 budget_us, gint64 frame)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    assert_main_thread();
    /* Once a frame: every view of the window starts the same frame. */
    if (budget_us <= 0 || frame == self->awaited_frame || !allium_document_get_collision_due(self))
        return FALSE;
    self->awaited_frame = frame;
    gint64 deadline = g_get_monotonic_time() + budget_us;
    g_mutex_lock(&self->lock);
    gboolean arrived = newest_arrived(self);
    while (!arrived && g_cond_wait_until(&self->incoming_cond, &self->lock, deadline))
        arrived = newest_arrived(self);
    arrived = arrived || newest_arrived(self);
    AlliumSnapshot *snap = arrived ? g_steal_pointer(&self->incoming) : NULL;
    g_mutex_unlock(&self->lock);
    if (!snap) return FALSE;
    /* The views draw it in this frame; the rest of the interface hears of it ("compiled")
     * from the delivery already queued, after the frame, as of any snapshot: widgets are
     * not changed in the middle of a frame. */
    g_clear_pointer(&self->snapshot, allium_snapshot_unref);
    snap->delivered_us = g_get_monotonic_time();
    self->snapshot = snap;
    self->compiled_pending = TRUE;
    return TRUE;
}

/* --- previews -------------------------------------------------------------------------- */

static void remember_rows(GArray *rows, const gint64 *ids, guint count)
{
    for (guint i = 0; i < count; i++) {
        gboolean known = FALSE;
        for (guint k = 0; k < rows->len && !known; k++) known = g_array_index(rows, gint64, k) == ids[i];
        if (!known) g_array_append_val(rows, ids[i]);
    }
}

void allium_document_preview_transform(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const gint64 *entities,
                                       guint entity_count, const double matrix[3][4])
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (!self->doc || !self->live || brush_count + entity_count == 0) return;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (!isfinite(matrix[r][c])) return;
    if (fabs(al_doc_matrix_determinant(matrix)) <= 1e-12) return; /* the commit refuses it */
    /* What the document holds, moved: the rows read as an edit would leave them. */
    g_autofree al_doc_brush_change *b = g_new0(al_doc_brush_change, brush_count + 1);
    for (guint i = 0; i < brush_count; i++) b[i].brush = brushes[i];
    al_doc_change rows = {.brushes = b, .brush_count = (int) brush_count,
                          .entities = (int64_t *) entities, .entity_count = (int) entity_count};
    al_doc_live live;
    if (al_doc_live_read(self->doc, &rows, &live, NULL) != AL_OK) return;
    al_doc_live_transform(&live, matrix,
                          allium_preferences_get_texture_lock(allium_preferences_get_default()));
    live.change.preview = true; /* the next step of the drag comes within a frame or two */
    guint64 g = al_live_apply(self->live, &live.change);
    al_doc_live_free(&live);
    if (!g) return;
    self->generation = g;
    self->handed_us = g_get_monotonic_time();
    remember_rows(self->preview_brushes, brushes, brush_count);
    remember_rows(self->preview_entities, entities, entity_count);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
}

void allium_document_preview_end(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (!allium_document_get_previewing(self)) return;
    al_doc_change change = {0};
    end_preview_into(self, &change);
    hand_over(self, &change);
    al_doc_change_clear(&change);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
}

gboolean allium_document_preview_vertices(AlliumDocument *self, const gint64 *brushes,
                                          guint brush_count, const double (*from)[3],
                                          guint from_count, const double delta[3], gboolean split,
                                          char **why)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!self->doc || !self->live || brush_count == 0) return FALSE;
    g_autofree al_doc_brush_change *b = g_new0(al_doc_brush_change, brush_count + 1);
    for (guint i = 0; i < brush_count; i++) b[i].brush = brushes[i];
    al_doc_change rows = {.brushes = b, .brush_count = (int) brush_count};
    al_doc_live live;
    if (al_doc_live_read(self->doc, &rows, &live, NULL) != AL_OK) return FALSE;
    char reason[512] = "";
    al_status st =
        split && from_count > 0
            ? al_doc_live_split_vertex(self->doc, &live, from[0], delta, reason, sizeof reason)
            : al_doc_live_move_vertices(self->doc, &live, from, (int) from_count, delta, reason,
                                        sizeof reason);
    if (st != AL_OK) {
        al_doc_live_free(&live);
        if (why) *why = g_strdup(reason);
        return FALSE;
    }
    live.change.preview = true; /* the next step of the drag comes within a frame or two */
    guint64 g = al_live_apply(self->live, &live.change);
    al_doc_live_free(&live);
    if (g) {
        self->generation = g;
        self->handed_us = g_get_monotonic_time();
        remember_rows(self->preview_brushes, brushes, brush_count);
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
    }
    return TRUE;
}

gboolean allium_document_get_previewing(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->preview_brushes->len + self->preview_entities->len > 0;
}

gboolean allium_document_can_undo(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->doc && !al_doc_read_only(self->doc) && al_doc_can_undo(self->doc);
}

gboolean allium_document_can_redo(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->doc && !al_doc_read_only(self->doc) && al_doc_can_redo(self->doc);
}

/* The names of the undoable steps the data layer makes (data/store/edits.c), which knows
 * no gettext: listed here so that they are translated. A map's history keeps its labels
 * in English, so that it reads the same whoever opens it; they are translated when
 * shown, and a label not listed is shown as it is. */
static const char *const data_step_labels[] G_GNUC_UNUSED = {
    N_("Add brush"),         N_("Delete brush"),        N_("Delete brushes"),
    N_("Transform brush"),   N_("Transform brushes"),   N_("Duplicate brush"),
    N_("Duplicate brushes"), N_("Hollow brush"),        N_("Hollow brushes"),
    N_("Resize brush"),      N_("Change brush planes"), N_("Set material"),
    N_("Add entity"),        N_("Delete entity"),       N_("Delete entities"),
    N_("Set property"),      N_("Remove property"),     N_("Move entity"),
    N_("Change hulls"),      N_("Change setting"),      N_("Move vertices"),
    N_("Add vertex"),
};

char *allium_document_dup_undo_label(AlliumDocument *self, gboolean redo)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    char label[256];
    if (!self->doc || !al_doc_undo_label(self->doc, redo, label, sizeof label)) return NULL;
    return g_strdup(_(label));
}

static gboolean step_history(AlliumDocument *self, gboolean redo, GError **error)
{
    if (!self->doc) {
        allium_set_status_error(error, AL_ERR_NOT_FOUND, NULL, NULL);
        return FALSE;
    }
    al_doc_change change = {0};
    al_diag_list diags = {0};
    al_status st = redo ? al_doc_redo(self->doc, &change) : al_doc_undo(self->doc, &change);
    return finish_edit(self, st, &change, &diags, redo ? _("Redo") : _("Undo"), error);
}

gboolean allium_document_undo(AlliumDocument *self, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return step_history(self, FALSE, error);
}

gboolean allium_document_redo(AlliumDocument *self, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return step_history(self, TRUE, error);
}

gint64 allium_document_get_world_entity(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), -1);
    /* The world is the document's row 0 (al_doc_create, the .map import). */
    return self->doc ? 0 : -1;
}

gboolean allium_document_set_entity_property(AlliumDocument *self, gint64 entity,
                                             const char *key, const char *value,
                                             GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(key != NULL, FALSE);
    if (!self->doc) {
        allium_set_status_error(error, AL_ERR_NOT_FOUND, NULL, NULL);
        return FALSE;
    }
    al_doc_change change = {0};
    al_diag_list diags = {0};
    al_status st = al_doc_set_property(self->doc, entity, key, value, &change, &diags);
    return finish_edit(self, st, &change, &diags, key, error);
}

/* Applies M to BRUSHES within the open group, with the texture lock if the preferences
 * ask for it (the faces it could only approximate are counted for the window). */
static al_status transform_brushes(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                   const double m[3][4])
{
    self->lock_approximate = 0;
    if (!allium_preferences_get_texture_lock(allium_preferences_get_default()))
        return al_doc_transform_brushes(self->doc, brushes, (int) brush_count, m, NULL);
    return al_doc_transform_brushes_locked(self->doc, brushes, (int) brush_count, m,
                                           &self->lock_approximate, NULL);
}

int allium_document_get_lock_approximate(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), 0);
    return self->lock_approximate;
}

gboolean allium_document_change_touches_marks(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), TRUE);
    return self->change_marks;
}

gboolean allium_document_move(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                              const gint64 *entities, guint entity_count, const double delta[3],
                              GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count + entity_count == 0) return TRUE;
    al_diag_list diags = {0};
    const double m[3][4] = {{1, 0, 0, delta[0]}, {0, 1, 0, delta[1]}, {0, 0, 1, delta[2]}};
    al_status st =
        al_doc_begin_group(self->doc, brush_count + entity_count == 1
                                          ? (brush_count ? N_("Move brush") : N_("Move entity"))
                                          : N_("Move selection"));
    if (st == AL_OK && brush_count) st = transform_brushes(self, brushes, brush_count, m);
    for (guint i = 0; st == AL_OK && i < entity_count; i++)
        st = al_doc_move_entity(self->doc, entities[i], delta, NULL);
    al_doc_change change = {0};
    if (st == AL_OK) st = al_doc_end_group(self->doc, &change);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &change, &diags, _("Move"), error);
}

gboolean allium_document_move_vertices(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const double (*from)[3], guint from_count,
                                       const double delta[3], GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_move_vertices(self->doc, brushes, (int) brush_count, from,
                                        (int) from_count, delta, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Move vertices"), error);
}

gboolean allium_document_split_vertex(AlliumDocument *self, const gint64 *brushes,
                                      guint brush_count, const double at[3], const double delta[3],
                                      GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st =
        al_doc_split_vertex(self->doc, brushes, (int) brush_count, at, delta, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Add vertex"), error);
}

gboolean allium_document_brush_geometry(AlliumDocument *self, gint64 brush, al_vertex_geometry *out)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!self->doc) return FALSE;
    al_doc_face *faces = NULL;
    int count = 0;
    if (al_doc_read_faces(self->doc, brush, &faces, &count) != AL_OK) return FALSE;
    gboolean ok = al_vertex_geometry_build(faces, count, out, NULL, 0);
    free(faces);
    return ok;
}

gboolean allium_document_delete(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count + entity_count == 0) return TRUE;
    al_diag_list diags = {0};
    /* The world is not deleted, nor are brushes twice (those of a deleted entity). */
    gint64 world = allium_document_get_world_entity(self);
    g_autoptr(GArray) doomed = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (guint i = 0; i < entity_count; i++)
        if (entities[i] != world) g_array_append_val(doomed, entities[i]);
    al_status st = al_doc_begin_group(self->doc, N_("Delete selection"));
    if (st == AL_OK && doomed->len)
        st = al_doc_delete_entities(self->doc, (const int64_t *) (gpointer) doomed->data,
                                    (int) doomed->len, NULL);
    if (st == AL_OK && brush_count) {
        /* A brush of a deleted entity went with it. */
        int64_t *ids = NULL;
        int count = 0;
        st = al_doc_list_brushes(self->doc, -1, &ids, &count);
        g_autoptr(GHashTable) existing = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (int k = 0; st == AL_OK && k < count; k++) g_hash_table_add(existing, &ids[k]);
        g_autoptr(GArray) left = g_array_new(FALSE, FALSE, sizeof(gint64));
        for (guint i = 0; st == AL_OK && i < brush_count; i++)
            if (g_hash_table_contains(existing, &brushes[i])) g_array_append_val(left, brushes[i]);
        if (st == AL_OK && left->len)
            st = al_doc_delete_brushes(self->doc, (const int64_t *) (gpointer) left->data,
                                       (int) left->len, NULL);
        free(ids);
    }
    al_doc_change change = {0};
    if (st == AL_OK) st = al_doc_end_group(self->doc, &change);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &change, &diags, _("Delete"), error);
}

gboolean allium_document_duplicate(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const double delta[3], gint64 *copies,
                                   GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count == 0) return TRUE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_duplicate_brushes(self->doc, brushes, (int) brush_count, delta, copies,
                                            &change);
    return finish_edit(self, st, &change, &diags, _("Duplicate"), error);
}

char *allium_document_copy_text(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    if (!require_open(self, error)) return NULL;
    al_diag_list diags = {0};
    char *text = NULL;
    size_t length = 0;
    al_status st = al_doc_copy_text(self->doc, brushes, (int) brush_count, entities,
                                    (int) entity_count, &text, &length, &diags);
    if (st != AL_OK) {
        allium_set_status_error(error, st, &diags, _("Copy"));
        al_diag_list_clear(&diags);
        return NULL;
    }
    al_diag_list_clear(&diags);
    char *copy = g_strndup(text, length);
    free(text);
    return copy;
}

gboolean allium_document_paste_text(AlliumDocument *self, const char *text,
                                    const al_doc_paste_place *place, al_doc_paste_result *result,
                                    GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(text != NULL, FALSE);
    memset(result, 0, sizeof *result);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_map *map = NULL;
    al_status st = al_map_read_fragment(text, strlen(text), &map, &diags);
    if (st != AL_OK) {
        allium_set_status_error(error, st, &diags, _("The clipboard holds no map text"));
        al_diag_list_clear(&diags);
        return FALSE;
    }
    al_doc_change change = {0};
    st = al_doc_paste_map(self->doc, map, place, result, &change, &diags);
    al_map_destroy(map);
    return finish_edit(self, st, &change, &diags, _("Paste"), error);
}

gboolean allium_document_save_prefab(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                     const gint64 *entities, guint entity_count, const char *path,
                                     GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(path != NULL, FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_status st = al_prefab_save(self->doc, brushes, (int) brush_count, entities,
                                  (int) entity_count, path, &diags);
    if (st != AL_OK) {
        g_autofree char *name = g_filename_display_basename(path);
        allium_set_status_error(error, st, &diags, name);
    }
    al_diag_list_clear(&diags);
    return st == AL_OK;
}

gboolean allium_document_insert_prefab(AlliumDocument *self, const char *path,
                                       const al_doc_paste_place *place, al_doc_paste_result *result,
                                       GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(path != NULL, FALSE);
    memset(result, 0, sizeof *result);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_prefab_insert(self->doc, path, place, result, &change, &diags);
    g_autofree char *name = g_filename_display_basename(path);
    return finish_edit(self, st, &change, &diags, name, error);
}

gboolean allium_document_add_box(AlliumDocument *self, const double mins[3],
                                 const double maxs[3], const char *material, gint64 *id,
                                 GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    /* Six axial planes through three corners each, ordered so that (p0 - p1) x (p2 - p1)
     * points out of the box (the .map rule), with standard texture parameters. */
    double x0 = mins[0], y0 = mins[1], z0 = mins[2], x1 = maxs[0], y1 = maxs[1], z1 = maxs[2];
    const double p[6][3][3] = {
        {{x0, y1, z1}, {x0, y0, z1}, {x0, y0, z0}}, {{x1, y0, z1}, {x1, y1, z1}, {x1, y1, z0}},
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y0, z0}}, {{x1, y1, z1}, {x0, y1, z1}, {x0, y1, z0}},
        {{x1, y0, z0}, {x1, y1, z0}, {x0, y1, z0}}, {{x1, y1, z1}, {x1, y0, z1}, {x0, y0, z1}},
    };
    al_doc_face faces[6];
    memset(faces, 0, sizeof faces);
    for (int f = 0; f < 6; f++) {
        memcpy(faces[f].points, p[f], sizeof p[f]);
        faces[f].material = material;
        faces[f].scale[0] = faces[f].scale[1] = 1;
    }
    al_diag_list diags = {0};
    int64_t row = 0;
    al_doc_change change = {0};
    al_status st = al_doc_add_brush(self->doc, 0, faces, 6, &row, &change, &diags);
    if (st == AL_OK && id) *id = row;
    return finish_edit(self, st, &change, &diags, _("Add brush"), error);
}

gboolean allium_document_add_shape(AlliumDocument *self, const al_shape_desc *desc,
                                   const char *material, gint64 **ids, guint *count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    *ids = NULL;
    *count = 0;
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_shape shape;
    al_status st = al_shape_build(desc, &shape, &diags);
    if (st != AL_OK) return finish_edit(self, st, &change, &diags, _("Add shape"), error);
    al_doc_face *faces = g_new0(al_doc_face, (gsize) shape.face_count);
    for (int f = 0; f < shape.face_count; f++) {
        memcpy(faces[f].points, shape.faces[f], sizeof faces[f].points);
        faces[f].material = material;
        faces[f].scale[0] = faces[f].scale[1] = 1;
    }
    gint64 *rows = g_new0(gint64, (gsize) shape.brush_count);
    g_autofree char *name = g_ascii_strdown(al_shape_name(desc->kind), -1);
    g_autofree char *label = g_strdup_printf("Add %s", name);
    st = al_doc_add_brushes(self->doc, 0, label, faces, shape.first_face, shape.brush_count,
                            (int64_t *) rows, &change, &diags);
    g_free(faces);
    if (st == AL_OK) {
        *ids = rows;
        *count = (guint) shape.brush_count;
    } else {
        g_free(rows);
    }
    al_shape_free(&shape);
    return finish_edit(self, st, &change, &diags, _("Add shape"), error);
}

gboolean allium_document_add_point_entity(AlliumDocument *self, const char *classname,
                                          const double origin[3], gint64 *id, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(classname != NULL, FALSE);
    if (!require_open(self, error)) return FALSE;
    /* The origin and the default keys of the class's definition. */
    g_autoptr(AlliumDefinitionSet) set = allium_document_dup_definitions(self);
    g_autofree char *json =
        allium_entity_definitions_new_entity_json(&set->defs, classname, origin);
    al_diag_list diags = {0};
    int64_t row = 0;
    al_doc_change change = {0};
    al_status st = al_doc_add_entity(self->doc, classname, json, &row, &change, &diags);
    if (st == AL_OK && id) *id = row;
    return finish_edit(self, st, &change, &diags, classname, error);
}

gboolean allium_document_hollow(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                double thickness, gint64 **walls, guint *wall_count,
                                GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    *walls = NULL;
    *wall_count = 0;
    if (!require_open(self, error)) return FALSE;
    if (brush_count == 0) return TRUE;
    al_diag_list diags = {0};
    int64_t *ids = NULL;
    int count = 0;
    al_doc_change change = {0};
    al_status st = al_doc_hollow_brushes(self->doc, brushes, (int) brush_count, thickness, &ids,
                                         &count, &change, &diags);
    if (st == AL_OK) {
        *walls = g_memdup2(ids, (gsize) count * sizeof *ids);
        *wall_count = (guint) count;
    }
    free(ids);
    return finish_edit(self, st, &change, &diags, _("Hollow"), error);
}

/* Hands the malloc'd IDS (COUNT) over as a g_malloc'd array. */
static void take_ids(int64_t *ids, int count, gint64 **out, guint *out_count)
{
    if (out) *out = g_memdup2(ids, (gsize) count * sizeof *ids);
    if (out_count) *out_count = (guint) count;
    free(ids);
}

gboolean allium_document_clip(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                              const double points[3][3], al_doc_clip_keep keep, gint64 **pieces,
                              guint *piece_count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    *pieces = NULL;
    *piece_count = 0;
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    int64_t *ids = NULL;
    int count = 0;
    al_doc_change change = {0};
    al_status st = al_doc_clip_brushes(self->doc, brushes, (int) brush_count, points, keep, &ids,
                                       &count, &change, &diags);
    if (st == AL_OK) take_ids(ids, count, pieces, piece_count);
    else free(ids);
    return finish_edit(self, st, &change, &diags, _("Clip"), error);
}

gboolean allium_document_subtract(AlliumDocument *self, const gint64 *cutters,
                                  guint cutter_count, gint64 **pieces, guint *piece_count,
                                  GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    *pieces = NULL;
    *piece_count = 0;
    if (!require_open(self, error)) return FALSE;
    /* The targets: every other brush whose stored bounds overlap a cutter's (the document
     * decides which really overlap). From the document, not the snapshot: a cutter just
     * drawn may not be compiled yet. */
    g_autoptr(GArray) targets = g_array_new(FALSE, FALSE, sizeof(gint64));
    typedef struct {
        double lo[3], hi[3];
    } Box;
    g_autofree Box *boxes = g_new0(Box, MAX(cutter_count, 1));
    for (guint c = 0; c < cutter_count; c++)
        if (!al_doc_brush_box(self->doc, cutters[c], boxes[c].lo, boxes[c].hi))
            boxes[c].lo[0] = G_MAXDOUBLE; /* no bounds: overlaps nothing */
    int64_t *all = NULL;
    int all_count = 0;
    if (al_doc_list_brushes(self->doc, -1, &all, &all_count) != AL_OK) all_count = 0;
    for (int i = 0; i < all_count; i++) {
        double lo[3], hi[3];
        gboolean cutter = FALSE, near = FALSE;
        for (guint c = 0; c < cutter_count && !cutter; c++) cutter = cutters[c] == all[i];
        if (cutter || !al_doc_brush_box(self->doc, all[i], lo, hi)) continue;
        for (guint c = 0; c < cutter_count && !near; c++) {
            gboolean apart = FALSE;
            for (int k = 0; k < 3; k++)
                apart = apart || lo[k] >= boxes[c].hi[k] || boxes[c].lo[k] >= hi[k];
            near = !apart;
        }
        if (near) g_array_append_val(targets, all[i]);
    }
    free(all);
    if (targets->len == 0) {
        g_set_error_literal(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_INVALID_ARGUMENT,
                            _("Subtract: the selected brushes overlap no other brush"));
        return FALSE;
    }
    al_diag_list diags = {0};
    int64_t *ids = NULL;
    int count = 0;
    al_doc_change change = {0};
    al_status st = al_doc_subtract_brushes(self->doc, (const int64_t *) (gpointer) targets->data,
                                           (int) targets->len, cutters, (int) cutter_count, &ids,
                                           &count, &change, &diags);
    if (st == AL_OK) take_ids(ids, count, pieces, piece_count);
    else free(ids);
    return finish_edit(self, st, &change, &diags, _("Subtract"), error);
}

gboolean allium_document_merge(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                               gint64 *merged, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    int64_t id = 0;
    al_doc_change change = {0};
    al_status st = al_doc_merge_brushes(self->doc, brushes, (int) brush_count, &id, &change, &diags);
    if (merged) *merged = id;
    return finish_edit(self, st, &change, &diags, _("Merge"), error);
}

gboolean allium_document_brushes_to_entity(AlliumDocument *self, const gint64 *brushes,
                                           guint brush_count, const char *classname,
                                           gint64 *entity, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    int64_t id = 0;
    al_doc_change change = {0};
    al_status st = al_doc_brushes_to_entity(self->doc, brushes, (int) brush_count, classname, &id,
                                            &change, &diags);
    if (entity) *entity = id;
    return finish_edit(self, st, &change, &diags, _("Make brush entity"), error);
}

gboolean allium_document_entities_to_world(AlliumDocument *self, const gint64 *entities,
                                           guint entity_count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_status st = al_doc_begin_group(self->doc, "Move to world");
    for (guint i = 0; st == AL_OK && i < entity_count; i++)
        st = al_doc_entity_to_world(self->doc, entities[i], NULL);
    al_doc_change change = {0};
    if (st == AL_OK) st = al_doc_end_group(self->doc, &change);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &change, &diags, _("Move to world"), error);
}

al_doc_material *allium_document_list_materials(AlliumDocument *self, int *count,
                                                GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    *count = 0;
    if (!require_open(self, error)) return NULL;
    al_doc_material *list = NULL;
    al_status st = al_doc_list_materials(self->doc, &list, count);
    if (st != AL_OK) {
        allium_set_status_error(error, st, NULL, _("Materials"));
        return NULL;
    }
    return list;
}

gboolean allium_document_set_material(AlliumDocument *self, const al_doc_material *material,
                                      GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_set_material(self->doc, material, &change, &diags);
    return finish_edit(self, st, &change, &diags, material->name, error);
}

gboolean allium_document_apply_material(AlliumDocument *self, const char *name,
                                        const gint64 *brushes, guint brush_count,
                                        const AlliumFaceRef *faces, guint face_count,
                                        GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_status st = al_doc_begin_group(self->doc, "Apply material");
    for (guint i = 0; st == AL_OK && i < face_count; i++)
        st = al_doc_set_face_material(self->doc, faces[i].brush, &faces[i].face, 1, name, NULL);
    for (guint i = 0; st == AL_OK && face_count == 0 && i < brush_count; i++)
        st = al_doc_set_face_material(self->doc, brushes[i], NULL, 0, name, NULL);
    al_doc_change change = {0};
    if (st == AL_OK) st = al_doc_end_group(self->doc, &change);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &change, &diags, _("Apply material"), error);
}

void allium_document_set_current_material(AlliumDocument *self, const char *name)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    g_free(self->current_material);
    self->current_material = name && *name ? g_strdup(name) : NULL;
}

const char *allium_document_get_current_material(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    return self->current_material;
}

void allium_document_texture_size(AlliumDocument *self, const char *material, double size[2])
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    size[0] = size[1] = 64;
    const AlliumTextures *t = self->textures;
    for (int i = 0; t && material && i < t->count; i++)
        if (g_ascii_strcasecmp(t->images[i].name, material) == 0) {
            size[0] = t->images[i].width;
            size[1] = t->images[i].height;
            return;
        }
}

gboolean allium_document_align_faces(AlliumDocument *self, const AlliumFaceRef *faces, guint count,
                                     const al_align *a, const char *material, int *refused,
                                     GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (count == 0) return TRUE;
    g_autofree al_doc_face_ref *refs = g_new(al_doc_face_ref, count);
    g_autofree double (*sizes)[2] = g_malloc_n(count, sizeof *sizes);
    for (guint i = 0; i < count; i++) {
        refs[i] = (al_doc_face_ref){faces[i].brush, faces[i].face};
        al_doc_texture t;
        const char *name = material;
        if (!name && al_doc_face_texture(self->doc, faces[i].brush, faces[i].face, &t) == AL_OK)
            name = t.material;
        allium_document_texture_size(self, name, sizes[i]);
    }
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_align_faces(self->doc, refs, (int) count, a, (const double (*)[2]) sizes,
                                      material, refused, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Align texture"), error);
}

gboolean allium_document_set_hulls(AlliumDocument *self, const al_hull_desc *hulls,
                                   guint count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_set_hulls(self->doc, hulls, (int) count, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Hulls"), error);
}

gboolean allium_document_transform(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const gint64 *entities,
                                   guint entity_count, const double matrix[3][4],
                                   const char *label, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count + entity_count == 0) return TRUE;
    al_diag_list diags = {0};
    /* The entities' origins as the document holds them (the snapshot may show a preview). */
    al_doc_live now = {0};
    al_doc_change rows = {.entities = (int64_t *) entities, .entity_count = (int) entity_count};
    al_status st = al_doc_live_read(self->doc, &rows, &now, NULL);
    if (st == AL_OK) st = al_doc_begin_group(self->doc, label);
    if (st == AL_OK && brush_count) st = transform_brushes(self, brushes, brush_count, matrix);
    /* A point entity moves where the map takes its origin. */
    for (int i = 0; st == AL_OK && i < now.change.entity_count; i++) {
        const al_live_entity *e = &now.change.entities[i];
        const char *origin = NULL;
        for (int p = 0; !e->removed && p < e->property_count; p++)
            if (strcmp(e->properties[p].key, "origin") == 0) origin = e->properties[p].value;
        double o[3];
        if (!origin || sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) != 3) continue;
        double delta[3];
        for (int r = 0; r < 3; r++)
            delta[r] = matrix[r][0] * o[0] + matrix[r][1] * o[1] + matrix[r][2] * o[2] +
                       matrix[r][3] - o[r];
        st = al_doc_move_entity(self->doc, e->id, delta, NULL);
    }
    al_doc_live_free(&now);
    al_doc_change change = {0};
    if (st == AL_OK) st = al_doc_end_group(self->doc, &change);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &change, &diags, _(label), error);
}

/* --- hidden, locked, layers and groups --------------------------------------------- */

gboolean allium_document_set_state(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                   const gint64 *entities, guint entity_count, unsigned mask,
                                   unsigned bits, const char *label, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_doc_set_state(self->doc, brushes, (int) brush_count, entities,
                                    (int) entity_count, mask, bits, label, &change, &diags);
    return finish_edit(self, st, &change, &diags, label, error);
}

gboolean allium_document_group(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                               const gint64 *entities, guint entity_count, const char *name,
                               gint64 *group, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    int64_t id = 0;
    al_status st = al_layers_group(self->doc, brushes, (int) brush_count, entities,
                                   (int) entity_count, name, &id, &change, &diags);
    if (group) *group = id;
    return finish_edit(self, st, &change, &diags, _("Group"), error);
}

gboolean allium_document_ungroup(AlliumDocument *self, gint64 group, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_layers_ungroup(self->doc, group, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Ungroup"), error);
}

gboolean allium_document_add_layer(AlliumDocument *self, const char *name, gint64 *layer,
                                   GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    int64_t id = 0;
    al_status st = al_layers_add_layer(self->doc, name, &id, &change, &diags);
    if (layer) *layer = id;
    return finish_edit(self, st, &change, &diags, _("New layer"), error);
}

gboolean allium_document_rename_layer(AlliumDocument *self, gint64 layer, const char *name,
                                      GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_layers_rename(self->doc, layer, name, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Rename"), error);
}

gboolean allium_document_set_layer_flag(AlliumDocument *self, gint64 layer, int flag, gboolean on,
                                        GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st =
        al_layers_set_flag(self->doc, layer, (al_layer_flag_kind) flag, on, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Layer"), error);
}

gboolean allium_document_set_layer_color(AlliumDocument *self, gint64 layer, const float rgb[3],
                                         GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_layers_set_color(self->doc, layer, rgb, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Layer"), error);
}

gboolean allium_document_delete_layer(AlliumDocument *self, gint64 layer, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_layers_delete_layer(self->doc, layer, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Delete layer"), error);
}

gboolean allium_document_move_to_layer(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const gint64 *entities,
                                       guint entity_count, gint64 layer, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_doc_change change = {0};
    al_status st = al_layers_move_to_layer(self->doc, brushes, (int) brush_count, entities,
                                           (int) entity_count, layer, &change, &diags);
    return finish_edit(self, st, &change, &diags, _("Move to layer"), error);
}
