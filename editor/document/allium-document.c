/* AlliumDocument (see allium-document.h): an open map document, its history and its
 * compile on a worker thread.
 *
 * Threads: everything here runs on the main thread, which owns the al_doc. A compile
 * builds the compiler input and fetches the cached world on the main thread (a few
 * milliseconds), then hands an AlliumCompileJob to a GTask worker; the result comes back
 * to the main thread in the task's callback, where the cache is written and the snapshot
 * published if no newer request was made meanwhile. A published snapshot with a solver is
 * then lit further by a light job on another worker, whose lightmaps come back the same
 * way; the next compile request cancels it.
 */
#include "allium-config.h"

#include "allium-document.h"

#include "allium-compile-job.h"
#include "allium-light-job.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* The nice value of the threads that compile, light and store. */
#define BACKGROUND_NICE 10

struct _AlliumDocument {
    GObject parent_instance;

    /* owned references */
    al_doc *doc;               /* NULL once closed */
    char *path;
    char *read_only_reason;    /* NULL when writable */
    AlliumSnapshot *snapshot;  /* the published one, or NULL */
    AlliumLightmap *lightmap;  /* the newest of snapshot's, or NULL */
    AlliumLightJob *light_job; /* refining snapshot's light, or NULL; kept until its run
                                * returns (jobs on one solver must not overlap) */
    GArray *residuals;         /* AlliumResidualPoint of snapshot's lightmaps so far */

    /* radiosity controls */
    gboolean light_paused;     /* the designer steps the solver by hand */
    double light_target;       /* the residual a run stops at */
    gboolean plan_pending;     /* PLAN starts when the running job returns */
    AlliumLightPlan plan;

    /* compile state */
    guint64 generation;        /* bumped per edit; a job carries the one it started for */
    gboolean job_running;
    gboolean compile_pending;  /* a request came while a job ran */

    /* cache: a world is stored once edits pause, not after every edit */
    char stored_key[33];       /* the key of the world last stored or loaded */
    guint store_source;        /* the pause's timeout, or 0 */
    gboolean storing;          /* a world is being serialized on a worker */
};

/* How long edits must pause before the current world goes into the cache. */
#define STORE_DELAY_MS 2000

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

enum { SIGNAL_CHANGED, SIGNAL_COMPILED, SIGNAL_LIT, N_SIGNALS };

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* --- static helpers ------------------------------------------------------------------ */

static void schedule_store(AlliumDocument *self);

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

/* Cancels the light job: its snapshot is out of date, or the document closes. The job's
 * worker holds its own reference to the snapshot, so the solver is destroyed only after
 * its run has returned; that solver is no longer the current one, so a new job may start
 * at once. */
static void stop_lighting(AlliumDocument *self)
{
    self->plan_pending = FALSE;
    if (!self->light_job) return;
    allium_light_job_cancel(self->light_job);
    g_clear_pointer(&self->light_job, allium_light_job_unref);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

/* Background work gives way to the interface. On two cores a compile and the light job
 * (with the workers they start) fill both, and the main thread, drawing and taking input,
 * would get a third of a core: a drag runs at 13 frames a second instead of 60. Linux keeps
 * a nice value per thread, and the threads these start inherit it. GTask's pool threads
 * keep it for whatever they run next; that is only more background work. */
static void yield_to_interface(void)
{
#ifdef __linux__
    setpriority(PRIO_PROCESS, (id_t) syscall(SYS_gettid), BACKGROUND_NICE);
#endif
}

static void light_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void) source;
    (void) cancellable;
    yield_to_interface();
    allium_light_job_run(data);
    g_task_return_boolean(task, TRUE);
}

static void run_plan(AlliumDocument *self, const AlliumLightPlan *plan);

static void light_done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void) user_data;
    AlliumDocument *self = ALLIUM_DOCUMENT(source);
    AlliumLightJob *job = g_task_get_task_data(G_TASK(result));
    /* Keyed by content: right to store even if the map changed meanwhile. */
    const char *key = allium_light_job_get_snapshot(job)->light_key;
    void *state;
    size_t state_size;
    if (allium_light_job_take_state(job, &state, &state_size)) {
        if (self->doc && key[0]) al_doc_cache_put(self->doc, key, "light", state, state_size);
        free(state);
    }
    /* Once the light an edit changed is corrected, the solver it came from may go. */
    AlliumSnapshot *lit = allium_light_job_get_snapshot(job);
    if (lit->light_base && (!lit->rad || !al_rad_base(lit->rad)))
        g_clear_pointer(&lit->light_base, allium_snapshot_unref);
    if (self->light_job == job) {
        g_clear_pointer(&self->light_job, allium_light_job_unref);
        if (self->plan_pending) {
            /* The designer asked for something while the job ran: now it may start. */
            self->plan_pending = FALSE;
            AlliumLightPlan plan = self->plan;
            run_plan(self, &plan);
        }
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
    }
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

/* A newer lightmap from the light job (main thread). */
static void lightmap_delivered(GObject *owner, AlliumLightJob *job, AlliumLightmap *lightmap)
{
    (void) job;
    AlliumDocument *self = ALLIUM_DOCUMENT(owner);
    assert_main_thread();
    if (!self->doc || lightmap->snapshot != self->snapshot) return;
    g_clear_pointer(&self->lightmap, allium_lightmap_unref);
    self->lightmap = allium_lightmap_ref(lightmap);
    add_residual(self, lightmap);
    g_signal_emit(self, signals[SIGNAL_LIT], 0);
}

/* Starts PLAN on the current snapshot's solver on a worker; if a job still runs on it,
 * pauses that job and starts PLAN when it returns. */
static void run_plan(AlliumDocument *self, const AlliumLightPlan *plan)
{
    if (!self->doc || !self->snapshot || !self->snapshot->rad) return;
    if (self->light_job) {
        allium_light_job_pause(self->light_job);
        self->plan = *plan;
        self->plan_pending = TRUE;
        return;
    }
    self->light_job = allium_light_job_new(self->snapshot, G_OBJECT(self), lightmap_delivered, plan);
    /* The task keeps the document alive until it returns; closing it cancels the job. */
    GTask *task = g_task_new(self, NULL, light_done_cb, NULL);
    g_task_set_source_tag(task, run_plan);
    g_task_set_task_data(task, allium_light_job_ref(self->light_job),
                         (GDestroyNotify) allium_light_job_unref);
    g_task_run_in_thread(task, light_thread);
    g_object_unref(task);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

/* Refines a new snapshot's light on a worker, unless the designer paused the solver or the
 * first lightmap is already good enough. */
static void start_lighting(AlliumDocument *self)
{
    stop_lighting(self);
    if (!self->doc || !self->snapshot || !self->snapshot->rad) return;
    /* No lightmap yet: the snapshot was published before its light sources were shot. */
    const al_rad_stats *st = self->lightmap ? &self->lightmap->stats : NULL;
    gboolean corrections = st && st->corrections_left > 0;
    if ((self->light_paused && !corrections) ||
        (st && (st->converged ||
                (st->direct_done && !corrections && st->residual <= self->light_target))))
        return;
    /* Paused, an edit's corrections are still made: a shadow must not stay where a brush
     * was. They come before any shot in any case. */
    AlliumLightPlan plan = {.residual = self->light_target, .corrections_only = self->light_paused};
    run_plan(self, &plan);
}

/* --- the cache ----------------------------------------------------------------------- */

typedef struct {
    AlliumSnapshot *snapshot; /* owned reference */
    void *bytes;              /* out: the world serialized, or NULL */
    size_t size;
} StoreJob;

static void store_job_free(StoreJob *job)
{
    allium_snapshot_unref(job->snapshot);
    free(job->bytes);
    g_free(job);
}

static void store_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void) source;
    (void) cancellable;
    yield_to_interface();
    StoreJob *job = data;
    if (al_world_save(job->snapshot->world, &job->bytes, &job->size) != AL_OK) {
        job->bytes = NULL;
        job->size = 0;
    }
    g_task_return_boolean(task, TRUE);
}

static void store_done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void) user_data;
    AlliumDocument *self = ALLIUM_DOCUMENT(source);
    StoreJob *job = g_task_get_task_data(G_TASK(result));
    self->storing = FALSE;
    /* Keyed by content: right to store even if the map changed meanwhile. */
    if (self->doc && job->bytes &&
        al_doc_cache_put(self->doc, job->snapshot->cache_key, "world", job->bytes, job->size) ==
            AL_OK)
        g_strlcpy(self->stored_key, job->snapshot->cache_key, sizeof self->stored_key);
    /* Edits may have come while it ran. */
    schedule_store(self);
}

static gboolean store_timeout_cb(gpointer data)
{
    AlliumDocument *self = data;
    self->store_source = 0;
    AlliumSnapshot *snap = self->snapshot;
    if (!self->doc || !snap || !snap->world || !snap->cache_key[0] ||
        strcmp(snap->cache_key, self->stored_key) == 0)
        return G_SOURCE_REMOVE;
    if (self->job_running || self->storing) {
        schedule_store(self); /* still busy: wait for the next pause */
        return G_SOURCE_REMOVE;
    }
    StoreJob *job = g_new0(StoreJob, 1);
    job->snapshot = allium_snapshot_ref(snap);
    self->storing = TRUE;
    GTask *task = g_task_new(self, NULL, store_done_cb, NULL);
    g_task_set_source_tag(task, store_timeout_cb);
    g_task_set_task_data(task, job, (GDestroyNotify) store_job_free);
    g_task_run_in_thread(task, store_thread);
    g_object_unref(task);
    return G_SOURCE_REMOVE;
}

/* Stores the current world in the cache once edits have paused for STORE_DELAY_MS
 * (restarting the wait), unless it is there already. Serializing a large map's world takes
 * tens of milliseconds and writing it to the file more, so it is not done per edit. */
static void schedule_store(AlliumDocument *self)
{
    g_clear_handle_id(&self->store_source, g_source_remove);
    AlliumSnapshot *snap = self->snapshot;
    if (!self->doc || !snap || !snap->world || !snap->cache_key[0] ||
        strcmp(snap->cache_key, self->stored_key) == 0)
        return;
    self->store_source = g_timeout_add(STORE_DELAY_MS, store_timeout_cb, self);
}

/* SNAPSHOT (owned) and its first LIGHTMAP (owned, may be NULL) become current. */
static void publish_snapshot(AlliumDocument *self, AlliumSnapshot *snapshot,
                             AlliumLightmap *lightmap)
{
    stop_lighting(self);
    g_clear_pointer(&self->lightmap, allium_lightmap_unref);
    g_clear_pointer(&self->snapshot, allium_snapshot_unref);
    self->snapshot = snapshot;
    self->lightmap = lightmap;
    g_array_set_size(self->residuals, 0);
    if (lightmap) add_residual(self, lightmap);
    g_signal_emit(self, signals[SIGNAL_COMPILED], 0);
    start_lighting(self);
    schedule_store(self);
}

/* After an edit, undo or redo: history state and a compile of the new contents. */
static void contents_changed(AlliumDocument *self)
{
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CAN_UNDO]);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CAN_REDO]);
    g_signal_emit(self, signals[SIGNAL_CHANGED], 0);
    allium_document_request_compile(self);
}

static void compile_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void) source;
    (void) cancellable;
    yield_to_interface();
    allium_compile_job_run(data);
    g_task_return_boolean(task, TRUE);
}

static void compile_done_cb(GObject *source, GAsyncResult *result, gpointer user_data);

static void start_compile(AlliumDocument *self)
{
    assert_main_thread();
    AlliumCompileJob *job = allium_compile_job_new(self->generation);
    al_status st = al_doc_build_input(self->doc, &job->input, &job->input_diags);
    if (st != AL_OK) {
        /* Nothing to compile: publish a snapshot that says why. */
        AlliumSnapshot *failed = allium_snapshot_new(NULL, self->generation);
        failed->status = st;
        al_diag_append(&failed->diags, &job->input_diags);
        allium_compile_job_free(job);
        publish_snapshot(self, failed, NULL);
        return;
    }
    al_input_key(&job->input.input, ALLIUM_COMPILE_SALT, job->key);
    al_input_key(&job->input.input, ALLIUM_LIGHT_SALT, job->light_key);
    if (self->snapshot && self->snapshot->world) {
        /* Update the current world: only the blocks the edit touched are built; its light
         * is carried on. */
        job->previous = allium_snapshot_ref(self->snapshot);
        if (self->snapshot->light_base)
            job->previous_base = allium_snapshot_ref(self->snapshot->light_base);
    } else {
        if (al_doc_cache_get(self->doc, job->key, &job->cached, &job->cached_size) != AL_OK) {
            job->cached = NULL;
            job->cached_size = 0;
        }
        if (al_doc_cache_get(self->doc, job->light_key, &job->cached_light,
                             &job->cached_light_size) != AL_OK) {
            job->cached_light = NULL;
            job->cached_light_size = 0;
        }
        job->store_now = TRUE; /* a first compile: worth keeping at once */
        job->light_later = TRUE;
    }

    /* The light being refined is of a state about to be replaced, and its worker would
     * take the cores the compile needs (e1m1: 0.9 s instead of 0.25 s per edit). */
    stop_lighting(self);
    self->job_running = TRUE;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
    GTask *task = g_task_new(self, NULL, compile_done_cb, NULL);
    g_task_set_source_tag(task, start_compile);
    g_task_set_task_data(task, job, (GDestroyNotify) allium_compile_job_free);
    g_task_run_in_thread(task, compile_thread);
    g_object_unref(task);
}

/* --- callbacks ----------------------------------------------------------------------- */

static void compile_done_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
    (void) user_data;
    AlliumDocument *self = ALLIUM_DOCUMENT(source);
    AlliumCompileJob *job = g_task_get_task_data(G_TASK(result));
    self->job_running = FALSE;

    if (self->doc) {
        /* Keyed by content, so storing is right even if the map changed meanwhile. */
        if (job->store &&
            al_doc_cache_put(self->doc, job->key, "world", job->store, job->store_size) == AL_OK)
            g_strlcpy(self->stored_key, job->key, sizeof self->stored_key);
        if (job->snapshot && job->snapshot->from_cache)
            g_strlcpy(self->stored_key, job->key, sizeof self->stored_key);
        if (job->generation == self->generation) {
            AlliumLightmap *lightmap = g_steal_pointer(&job->lightmap);
            publish_snapshot(self, g_steal_pointer(&job->snapshot), lightmap);
        }
        if (self->compile_pending) {
            self->compile_pending = FALSE;
            start_compile(self);
        }
    }
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_COMPILING]);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_document_finalize(GObject *object)
{
    AlliumDocument *self = ALLIUM_DOCUMENT(object);
    /* A running light task holds a reference: there is none by now, but be safe. */
    if (self->light_job) allium_light_job_cancel(self->light_job);
    g_clear_pointer(&self->light_job, allium_light_job_unref);
    g_clear_handle_id(&self->store_source, g_source_remove);
    al_doc_close(self->doc);
    g_clear_pointer(&self->lightmap, allium_lightmap_unref);
    g_clear_pointer(&self->snapshot, allium_snapshot_unref);
    g_free(self->path);
    g_free(self->read_only_reason);
    g_array_unref(self->residuals);
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
        g_value_set_boolean(value, self->job_running);
        break;
    case PROP_LIGHTING:
        g_value_set_boolean(value, self->light_job != NULL);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_document_class_init(AlliumDocumentClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
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
}

static void allium_document_init(AlliumDocument *self)
{
    self->residuals = g_array_new(FALSE, FALSE, sizeof(AlliumResidualPoint));
    self->light_target = ALLIUM_LIGHT_RESIDUAL;
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
    allium_document_request_compile(self);
    return self;
}

void allium_document_close(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    g_clear_handle_id(&self->store_source, g_source_remove);
    g_clear_pointer(&self->doc, al_doc_close);
    self->compile_pending = FALSE;
    self->generation++; /* a running job's result is now stale */
    stop_lighting(self);
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

gboolean allium_document_get_compiling(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->job_running;
}

void allium_document_light_run(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_paused = FALSE;
    AlliumLightPlan plan = {.residual = self->light_target};
    run_plan(self, &plan);
}

void allium_document_light_pause(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_paused = TRUE;
    self->plan_pending = FALSE;
    if (self->light_job) allium_light_job_pause(self->light_job);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_LIGHTING]);
}

void allium_document_light_step(AlliumDocument *self, int shots)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_paused = TRUE;
    AlliumLightPlan plan = {.shots = MAX(shots, 1)};
    run_plan(self, &plan);
}

void allium_document_light_reset(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_paused = TRUE;
    AlliumLightPlan plan = {.reset = TRUE};
    run_plan(self, &plan);
}

gboolean allium_document_get_light_paused(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->light_paused;
}

void allium_document_set_light_target(AlliumDocument *self, double residual)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    self->light_target = CLAMP(residual, 1e-5, 1.0);
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

AlliumLightmap *allium_document_get_lightmap(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), NULL);
    if (!self->lightmap || self->lightmap->snapshot != self->snapshot) return NULL;
    return self->lightmap;
}

gboolean allium_document_get_lighting(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    return self->light_job != NULL;
}

guint64 allium_document_get_generation(AlliumDocument *self)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), 0);
    return self->generation;
}

void allium_document_request_compile(AlliumDocument *self)
{
    g_return_if_fail(ALLIUM_IS_DOCUMENT(self));
    if (!self->doc) return;
    self->generation++;
    /* The light being refined is for contents that are gone: the CPU is the compile's. */
    stop_lighting(self);
    if (self->job_running) {
        self->compile_pending = TRUE;
        return;
    }
    start_compile(self);
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
    N_("Change hulls"),      N_("Change setting"),
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
    al_status st = redo ? al_doc_redo(self->doc, &change) : al_doc_undo(self->doc, &change);
    al_doc_change_clear(&change);
    if (st != AL_OK) {
        allium_set_status_error(error, st, NULL, redo ? _("Redo") : _("Undo"));
        return FALSE;
    }
    contents_changed(self);
    return TRUE;
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
    if (!self->snapshot || !self->snapshot->input.entity_ids ||
        self->snapshot->input.input.entity_count < 1)
        return -1;
    return self->snapshot->input.entity_ids[0];
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
    al_doc_change_clear(&change);
    if (st != AL_OK) {
        allium_set_status_error(error, st, &diags, key);
        al_diag_list_clear(&diags);
        return FALSE;
    }
    al_diag_list_clear(&diags);
    contents_changed(self);
    return TRUE;
}

/* Finishes an edit: reports a failure in ERROR (with PREFIX), or announces the change. */
static gboolean finish_edit(AlliumDocument *self, al_status st, al_diag_list *diags,
                            const char *prefix, GError **error)
{
    if (st != AL_OK) allium_set_status_error(error, st, diags, prefix);
    al_diag_list_clear(diags);
    if (st != AL_OK) return FALSE;
    contents_changed(self);
    return TRUE;
}

static gboolean require_open(AlliumDocument *self, GError **error)
{
    if (self->doc) return TRUE;
    allium_set_status_error(error, AL_ERR_NOT_FOUND, NULL, NULL);
    return FALSE;
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
    if (st == AL_OK && brush_count)
        st = al_doc_transform_brushes(self->doc, brushes, (int) brush_count, m, NULL);
    for (guint i = 0; st == AL_OK && i < entity_count; i++)
        st = al_doc_move_entity(self->doc, entities[i], delta, NULL);
    if (st == AL_OK) st = al_doc_end_group(self->doc);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &diags, _("Move"), error);
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
    if (st == AL_OK) st = al_doc_end_group(self->doc);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &diags, _("Delete"), error);
}

gboolean allium_document_duplicate(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const double delta[3], gint64 *copies,
                                   GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count == 0) return TRUE;
    al_diag_list diags = {0};
    al_status st = al_doc_duplicate_brushes(self->doc, brushes, (int) brush_count, delta, copies,
                                            NULL);
    return finish_edit(self, st, &diags, _("Duplicate"), error);
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
    al_status st = al_doc_add_brush(self->doc, 0, faces, 6, &row, NULL, &diags);
    if (st == AL_OK && id) *id = row;
    return finish_edit(self, st, &diags, _("Add brush"), error);
}

gboolean allium_document_add_point_entity(AlliumDocument *self, const char *classname,
                                          const double origin[3], gint64 *id, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    g_return_val_if_fail(classname != NULL, FALSE);
    if (!require_open(self, error)) return FALSE;
    /* The values are numbers and fixed words: nothing in them needs escaping. */
    GString *json = g_string_new("{");
    g_string_append_printf(json, "\"origin\": \"%g %g %g\"", origin[0], origin[1], origin[2]);
    if (g_str_has_prefix(classname, "light")) g_string_append(json, ", \"light\": \"300\"");
    if (g_str_equal(classname, "agent_start"))
        g_string_append(json, ", \"hull\": \"stand\", \"count\": \"1\"");
    g_string_append_c(json, '}');
    al_diag_list diags = {0};
    int64_t row = 0;
    al_status st = al_doc_add_entity(self->doc, classname, json->str, &row, NULL, &diags);
    g_string_free(json, TRUE);
    if (st == AL_OK && id) *id = row;
    return finish_edit(self, st, &diags, classname, error);
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
    al_status st = al_doc_hollow_brushes(self->doc, brushes, (int) brush_count, thickness, &ids,
                                         &count, NULL, &diags);
    if (st == AL_OK) {
        *walls = g_memdup2(ids, (gsize) count * sizeof *ids);
        *wall_count = (guint) count;
    }
    free(ids);
    return finish_edit(self, st, &diags, _("Hollow"), error);
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
    al_status st = al_doc_clip_brushes(self->doc, brushes, (int) brush_count, points, keep, &ids,
                                       &count, NULL, &diags);
    if (st == AL_OK) take_ids(ids, count, pieces, piece_count);
    else free(ids);
    return finish_edit(self, st, &diags, _("Clip"), error);
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
    al_status st = al_doc_subtract_brushes(self->doc, (const int64_t *) (gpointer) targets->data,
                                           (int) targets->len, cutters, (int) cutter_count, &ids,
                                           &count, NULL, &diags);
    if (st == AL_OK) take_ids(ids, count, pieces, piece_count);
    else free(ids);
    return finish_edit(self, st, &diags, _("Subtract"), error);
}

gboolean allium_document_merge(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                               gint64 *merged, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    int64_t id = 0;
    al_status st = al_doc_merge_brushes(self->doc, brushes, (int) brush_count, &id, NULL, &diags);
    if (merged) *merged = id;
    return finish_edit(self, st, &diags, _("Merge"), error);
}

gboolean allium_document_brushes_to_entity(AlliumDocument *self, const gint64 *brushes,
                                           guint brush_count, const char *classname,
                                           gint64 *entity, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    int64_t id = 0;
    al_status st = al_doc_brushes_to_entity(self->doc, brushes, (int) brush_count, classname, &id,
                                            NULL, &diags);
    if (entity) *entity = id;
    return finish_edit(self, st, &diags, _("Make brush entity"), error);
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
    if (st == AL_OK) st = al_doc_end_group(self->doc);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &diags, _("Move to world"), error);
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
    al_status st = al_doc_set_material(self->doc, material, NULL, &diags);
    return finish_edit(self, st, &diags, material->name, error);
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
    if (st == AL_OK) st = al_doc_end_group(self->doc);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &diags, _("Apply material"), error);
}

gboolean allium_document_set_hulls(AlliumDocument *self, const al_hull_desc *hulls,
                                   guint count, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    al_diag_list diags = {0};
    al_status st = al_doc_set_hulls(self->doc, hulls, (int) count, NULL, &diags);
    return finish_edit(self, st, &diags, _("Hulls"), error);
}

gboolean allium_document_transform(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const gint64 *entities,
                                   guint entity_count, const double matrix[3][4],
                                   const char *label, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(self), FALSE);
    if (!require_open(self, error)) return FALSE;
    if (brush_count + entity_count == 0) return TRUE;
    AlliumSnapshot *snap = self->snapshot;
    al_diag_list diags = {0};
    al_status st = al_doc_begin_group(self->doc, label);
    if (st == AL_OK && brush_count)
        st = al_doc_transform_brushes(self->doc, brushes, (int) brush_count, matrix, NULL);
    /* A point entity moves where the map takes its origin. */
    for (guint i = 0; st == AL_OK && i < entity_count; i++) {
        int e = snap ? allium_snapshot_entity_index(snap, entities[i]) : -1;
        const char *origin = e >= 0 ? allium_snapshot_entity_value(snap, e, "origin") : NULL;
        double o[3];
        if (!origin || sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) != 3) continue;
        double delta[3];
        for (int r = 0; r < 3; r++)
            delta[r] = matrix[r][0] * o[0] + matrix[r][1] * o[1] + matrix[r][2] * o[2] +
                       matrix[r][3] - o[r];
        st = al_doc_move_entity(self->doc, entities[i], delta, NULL);
    }
    if (st == AL_OK) st = al_doc_end_group(self->doc);
    else al_doc_cancel_group(self->doc);
    return finish_edit(self, st, &diags, _(label), error);
}
