/* The live-compile engine (see al-live.h).
 *
 * One thread. Changes queue up under the lock (each a copy, live_change_copy); the thread
 * takes them all, applies them in order to its map (model.c), flattens the result into
 * the input of the newest generation, runs the stages in order and publishes a snapshot
 * after each. The world of the last collision stage is the base of the next update, so an
 * edit costs the sub-cells it touched. The portals and PVS stages work on their own copies
 * of that world (al_world_update with the same input: every brush copied, every block
 * shared), because a published world is never changed. The collision stage builds no vis
 * trees (the portals stage builds those of the blocks that lack them), so the portals
 * world, once published, becomes the base in its place. The light stage's snapshot shares
 * the portals world (it holds the portals snapshot) and adds the solver; the last one is
 * what the next light update starts from, and while its solver still corrects light it
 * holds the snapshot whose solver it reads (al_rad_base).
 *
 * Between changes the thread does what is left, in this order: the stages of the newest
 * generation, a world for the cache once changes have paused, then the light work the
 * controls ask for. Light work and the cache's store give way to a new change at the next
 * shot; the light controls interrupt the shot in progress (al_rad_cancel) and the thread
 * picks up the new order.
 *
 * All of that but an edit's collision runs on a second, background thread, one job at a
 * time. The engine's thread does not wait for the job in progress to see a new change's
 * cancel: it builds the change's collision from the base it holds while the job winds
 * down, and waits for the job only before it starts the stages after that collision. What
 * both threads touch is under the lock (the base, the loaded world, the cache's keys), and
 * a job of an older change never replaces the newer base or current snapshot.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "al-live.h"

#include "al-clock.h"
#include "live/model.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A generation's input, shared by the snapshots made from it. */
typedef struct live_input {
    int refs;
    uint64_t generation;
    uint64_t submitted_ns; /* when its last change was applied */
    bool preview;          /* its last change was a preview (al_live_change.preview) */
    live_map *map;
} live_input;

struct al_snapshot {
    int refs;
    al_world *world;  /* owned, or the parent's; NULL for an input snapshot */
    uint64_t generation;
    al_stage stage;
    live_input *input;
    al_snapshot *parent; /* a light snapshot: the portals snapshot whose world it lights */
    al_rad *rad;         /* owned by a light snapshot */
    al_snapshot *light;  /* a later stage's: the light snapshot of its generation, or NULL */
    al_snapshot *light_base; /* a light snapshot's, engine thread only: the snapshot whose
                                solver rad's corrections read, until they are made */
    al_rad_lightmap lightmap; /* a light snapshot's first copy (width 0: none) */
    al_status status;
    al_diag_list diags;
    bool from_cache;
    bool light_from_cache; /* a light snapshot: its solver's light began as a state the
                              cache held (restored, then carried across edits) */
};

struct al_live_lightmap {
    int refs;
    uint64_t serial;
    al_rad_lightmap map;           /* its own copy, or empty */
    const al_rad_lightmap *texels; /* MAP, or the snapshot's copy */
    al_rad_stats stats;
    al_snapshot *snapshot; /* the light snapshot whose solver it copies */
};

/* A change waiting for the engine. */
typedef struct queued_change {
    al_live_change *change; /* live_change_copy */
    uint64_t generation;
    uint64_t applied_ns;
} queued_change;

struct al_live {
    al_live_options options;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* the engine waits for work */
    pthread_cond_t published; /* al_live_wait waits for results */
    /* Under lock. */
    queued_change *queue;
    int queue_count, queue_cap;
    uint64_t generation;      /* of the newest change */
    uint64_t taken;           /* of the newest change the engine has taken */
    bool busy;                /* the engine's thread is working */
    bool bg_busy;             /* the background thread is working (start_background) */
    bool quit;
    al_snapshot *current;
    al_live_lightmap *lightmap; /* the newest copy */
    uint64_t lightmap_serial;
    al_stage_status status[AL_STAGE_COUNT];
    al_status error;
    char error_message[256];
    al_rad *shooting;          /* the solver the engine may be shooting, for a cancel */
    al_light_mode light_mode;
    double light_residual;     /* AL_LIGHT_RUN's target */
    int64_t light_steps;       /* shots asked for and not yet made */
    bool light_reset;          /* a reset asked for */
    bool light_dark;           /* since a reset and until a step or run: the light sources
                                  are not shot either */
    bool light_idle;           /* nothing left to do on the light as the controls say */
    /* Read by the portal flow and the light work without the lock: nonzero when a newer
     * change waits. */
    int cancel;
    /* Set by the light controls, read by the light work without the lock. */
    int light_interrupt;
    /* Written by the tight PVS pass without the lock: its portal flows, and those done. */
    int64_t pvs_progress[2];
    /* Written by the light stage: its corrections, and those made. */
    int64_t light_progress[2];
    /* The engine's own. */
    live_model *model;
    al_snapshot *base; /* the last collision snapshot: what the next update starts from
                          (under lock: the portals stage replaces it) */
    al_snapshot *lit;  /* the last light snapshot: what the next light starts from */
    al_snapshot *seen; /* the last snapshot with portals: the next copies its unchanged
                          blocks' portals and takes its unchanged portals' PVS sets */
    al_snapshot *seen_tight; /* the same with the tight PVS, for the next tight PVS */
    al_snapshot *loaded;     /* the last collision snapshot whose world came from the cache
                                (its stored PVS is for that input's tight pass), or NULL;
                                under lock */
    char stored_world[33];   /* under lock: the key of the world last stored in or loaded
                                from the cache */
    bool stored_tight;       /* and whether it held its tight PVS */
    bool store_whole;        /* the world due to be stored was compiled whole */
    uint64_t store_due_ns;   /* when the base's world is to be stored; 0: nothing to store */
    uint64_t last_copy_ns;   /* of the last lightmap copy */
    bool light_from_cache;    /* the light snapshot being published went on from the cache */
    const al_rad *stored_rad; /* the solver whose state the cache got last, and its shots */
    int64_t stored_shots;
    /* The background threads: run the long work for the engine's thread, one job at a
     * time; [0] an edit's first corrected light, which a designer waits for, [1] the rest. */
    pthread_t background[2];
    bool has_background;
    pthread_mutex_t job_lock;
    pthread_cond_t job_cond;
    void (*job)(al_live *live, void *arg); /* the job to run, NULL when there is none */
    void *job_arg;
    bool job_waited;                        /* whether background[0] runs it */
    void (*then)(al_live *live, void *arg); /* what the job hands on to another thread */
    void *then_arg;
    bool then_waited;
    bool job_quit;
};

static int lightmap_interval_ms(const al_live *live)
{
    return live->options.lightmap_interval_ms > 0 ? live->options.lightmap_interval_ms : 250;
}

static int preview_settle_ms(const al_live *live)
{
    return live->options.preview_settle_ms > 0 ? live->options.preview_settle_ms : 60;
}

static int store_delay_ms(const al_live *live)
{
    return live->options.cache.store_delay_ms > 0 ? live->options.cache.store_delay_ms : 2000;
}

static bool cache_on(const al_live *live)
{
    return live->options.cache.get != NULL;
}

/* --- snapshots and copies ---------------------------------------------------------------- */

static void input_release(live_input *in)
{
    if (in && __atomic_sub_fetch(&in->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        live_map_release(in->map);
        free(in);
    }
}

al_snapshot *al_snapshot_ref(al_snapshot *s)
{
    if (s) __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void al_snapshot_release(al_snapshot *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    /* The solver points into the world and input, and its corrections into its base's. */
    al_rad_destroy(s->rad);
    al_rad_lightmap_free(&s->lightmap);
    al_snapshot_release(s->light_base);
    al_snapshot_release(s->light);
    if (s->parent) al_snapshot_release(s->parent);
    else al_world_destroy(s->world);
    al_diag_list_clear(&s->diags);
    input_release(s->input);
    free(s);
}

const al_world *al_snapshot_world(const al_snapshot *s)
{
    return s->world;
}

al_rad *al_snapshot_rad(const al_snapshot *s)
{
    return s->rad ? s->rad : s->light ? s->light->rad : NULL;
}

const al_rad_lightmap *al_snapshot_lightmap(const al_snapshot *s)
{
    return s->lightmap.width > 0 ? &s->lightmap : NULL;
}

uint64_t al_snapshot_generation(const al_snapshot *s)
{
    return s->generation;
}

al_stage al_snapshot_stage(const al_snapshot *s)
{
    return s->stage;
}

bool al_snapshot_from_cache(const al_snapshot *s)
{
    return s->from_cache;
}

bool al_snapshot_light_from_cache(const al_snapshot *s)
{
    return s->rad ? s->light_from_cache : s->light ? s->light->light_from_cache : false;
}

al_status al_snapshot_status(const al_snapshot *s)
{
    return s->status;
}

const al_diag_list *al_snapshot_diagnostics(const al_snapshot *s)
{
    return &s->diags;
}

const al_input *al_snapshot_input(const al_snapshot *s)
{
    return &s->input->map->input;
}

static bool brush_in_range(const al_snapshot *s, int brush)
{
    return brush >= 0 && brush < s->input->map->input.brush_count;
}

static bool entity_in_range(const al_snapshot *s, int entity)
{
    return entity >= 0 && entity < s->input->map->input.entity_count;
}

int64_t al_snapshot_brush_id(const al_snapshot *s, int brush)
{
    return brush_in_range(s, brush) ? s->input->map->brush_ids[brush] : -1;
}

int64_t al_snapshot_entity_id(const al_snapshot *s, int entity)
{
    return entity_in_range(s, entity) ? s->input->map->entity_ids[entity] : -1;
}

uint64_t al_snapshot_brush_version(const al_snapshot *s, int brush)
{
    return brush_in_range(s, brush) ? s->input->map->brush_versions[brush] : 0;
}

uint64_t al_snapshot_entity_version(const al_snapshot *s, int entity)
{
    return entity_in_range(s, entity) ? s->input->map->entity_versions[entity] : 0;
}

uint64_t al_snapshot_materials_version(const al_snapshot *s)
{
    return s->input->map->materials_version;
}

const int64_t *al_snapshot_brush_ids(const al_snapshot *s)
{
    return s->input->map->brush_ids;
}

const int64_t *al_snapshot_entity_ids(const al_snapshot *s)
{
    return s->input->map->entity_ids;
}

int al_snapshot_find_brush(const al_snapshot *s, int64_t id)
{
    const live_map *m = s->input->map;
    return live_map_find(m->brush_index, m->input.brush_count, id);
}

int al_snapshot_find_entity(const al_snapshot *s, int64_t id)
{
    const live_map *m = s->input->map;
    return live_map_find(m->entity_index, m->input.entity_count, id);
}

const char *al_stage_name(al_stage stage)
{
    static const char *names[] = {"input", "collision", "portals", "light", "pvs"};
    return stage >= 0 && stage < AL_STAGE_COUNT ? names[stage] : "?";
}

al_live_lightmap *al_live_lightmap_ref(al_live_lightmap *l)
{
    if (l) __atomic_add_fetch(&l->refs, 1, __ATOMIC_RELAXED);
    return l;
}

void al_live_lightmap_release(al_live_lightmap *l)
{
    if (!l || __atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
    al_rad_lightmap_free(&l->map);
    al_snapshot_release(l->snapshot);
    free(l);
}

const al_rad_lightmap *al_live_lightmap_texels(const al_live_lightmap *l)
{
    return l->texels;
}

const al_rad_stats *al_live_lightmap_stats(const al_live_lightmap *l)
{
    return &l->stats;
}

const al_snapshot *al_live_lightmap_snapshot(const al_live_lightmap *l)
{
    return l->snapshot;
}

uint64_t al_live_lightmap_serial(const al_live_lightmap *l)
{
    return l->serial;
}

/* --- the background thread ----------------------------------------------------------------- */

/* The background threads run all of the engine's work but an edit's collision (portals,
 * the light's update, corrections and shots, the tight PVS, the cache's store), one job at
 * a time: the engine's thread stays free to take a new change at once, cancel that work and
 * build the change's collision while the job winds down. Two threads take the jobs, so
 * that what a designer waits for after an edit can keep a higher priority than the rest
 * (al_live_options.thread_started may give each thread its own; on Linux a thread's
 * priority can be lowered but never raised back): the first takes an edit's portals and
 * its first corrected light, the second everything else (the light's other corrections
 * and its shots, the tight PVS, the cache's store). The portals are on the way to the
 * edit's first lit frame: at the second thread's priority they took 30-110 ms on
 * lq-e3m4 while frames were drawn, for 20-50 ms of work. A job hands on to the other
 * thread what follows it. A
 * newer change stops the work as it stops any, at its next check; on a busy machine the
 * second thread, at its lower priority, may take a while to reach it, and the collision
 * does not wait for that. */
/* Names the calling thread, for debuggers and profilers. */
static void name_thread(const char *name)
{
#ifdef __linux__
    pthread_setname_np(pthread_self(), name);
#else
    (void) name;
#endif
}

/* Runs the jobs for background thread WAITED (the first, or the second), until the
 * engine stops with no job left. */
static void background_loop(al_live *live, bool waited)
{
    pthread_mutex_lock(&live->job_lock);
    for (;;) {
        bool mine = false;
        while (!(mine = live->job && live->job_waited == waited) && !(live->job_quit && !live->job))
            pthread_cond_wait(&live->job_cond, &live->job_lock);
        if (!mine) break;
        void (*job)(al_live *, void *) = live->job;
        void *job_arg = live->job_arg;
        pthread_mutex_unlock(&live->job_lock);
        job(live, job_arg);
        pthread_mutex_lock(&live->job_lock);
        if (live->then) {
            /* The job goes on in the thread it chose: the background stays busy. */
            live->job = live->then;
            live->job_arg = live->then_arg;
            live->job_waited = live->then_waited;
            live->then = NULL;
            pthread_cond_broadcast(&live->job_cond);
            continue;
        }
        live->job = NULL;
        pthread_cond_broadcast(&live->job_cond); /* the other thread may be stopping */
        pthread_mutex_unlock(&live->job_lock);
        /* The engine's thread waits for this (wait_background) or for work to hand out. */
        pthread_mutex_lock(&live->lock);
        live->bg_busy = false;
        pthread_cond_broadcast(&live->wake);
        pthread_cond_broadcast(&live->published);
        pthread_mutex_unlock(&live->lock);
        pthread_mutex_lock(&live->job_lock);
    }
    pthread_mutex_unlock(&live->job_lock);
}

static void *waited_main(void *arg)
{
    al_live *live = arg;
    name_thread("al-live-edit");
    if (live->options.thread_started) live->options.thread_started(live->options.user, false);
    background_loop(live, true);
    return NULL;
}

static void *background_main(void *arg)
{
    al_live *live = arg;
    name_thread("al-live-bg");
    if (live->options.thread_started) live->options.thread_started(live->options.user, true);
    background_loop(live, false);
    return NULL;
}

/* Starts JOB(LIVE, ARG) on a background thread (the first if WAITED), which must be free
 * (wait_background), and returns; runs it on this thread when there is none. Engine
 * thread. */
static void start_background(al_live *live, void (*job)(al_live *, void *), void *arg, bool waited)
{
    if (!live->has_background) {
        job(live, arg);
        return;
    }
    pthread_mutex_lock(&live->lock);
    live->bg_busy = true;
    pthread_mutex_unlock(&live->lock);
    pthread_mutex_lock(&live->job_lock);
    live->job = job;
    live->job_arg = arg;
    live->job_waited = waited;
    pthread_cond_broadcast(&live->job_cond);
    pthread_mutex_unlock(&live->job_lock);
}

/* Hands what is left of the running job, JOB(LIVE, ARG), to a background thread (the
 * first if WAITED), which runs it when the job returns; without background threads, runs it
 * now. Called by a job at its end. */
static void continue_in_background(al_live *live, void (*job)(al_live *, void *), void *arg,
                                   bool waited)
{
    if (!live->has_background) {
        job(live, arg);
        return;
    }
    pthread_mutex_lock(&live->job_lock);
    live->then = job;
    live->then_arg = arg;
    live->then_waited = waited;
    pthread_mutex_unlock(&live->job_lock);
}

/* Waits until the background thread has finished its job. Engine thread. */
static void wait_background(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    while (live->bg_busy) pthread_cond_wait(&live->wake, &live->lock);
    pthread_mutex_unlock(&live->lock);
}

/* A new reference to the base, or NULL. Either thread. */
static al_snapshot *base_ref(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    al_snapshot *base = al_snapshot_ref(live->base);
    pthread_mutex_unlock(&live->lock);
    return base;
}

/* --- stages ------------------------------------------------------------------------------- */

/* Whether the options ask for STAGE. */
static bool stage_on(const al_live *live, al_stage stage)
{
    switch (stage) {
    case AL_STAGE_INPUT: return true;
    case AL_STAGE_COLLISION: return true;
    case AL_STAGE_PORTALS: return live->options.pvs != AL_PVS_NONE;
    case AL_STAGE_LIGHT: return live->options.light && live->options.pvs != AL_PVS_NONE;
    case AL_STAGE_PVS: return live->options.pvs == AL_PVS_TIGHT;
    default: return false;
    }
}

/* The stage that runs after STAGE, or AL_STAGE_COUNT. */
static al_stage next_stage(const al_live *live, al_stage stage)
{
    int s = (int) stage + 1;
    while (s < AL_STAGE_COUNT && !stage_on(live, (al_stage) s)) s++;
    return (al_stage) s;
}

static bool stale(al_live *live)
{
    return __atomic_load_n(&live->cancel, __ATOMIC_ACQUIRE) != 0;
}

/* Copies the lightmaps of LIT's solver as the newest copy and tells the caller; with
 * FIRST, the copy LIT was published with stands for it. The engine's line of work (either
 * thread, the other waiting). */
static void copy_lightmap(al_live *live, al_snapshot *lit, bool first)
{
    al_live_lightmap *l = calloc(1, sizeof *l);
    if (!l) return;
    if (first && lit->lightmap.width > 0) {
        l->texels = &lit->lightmap;
    } else if (al_rad_snapshot(lit->rad, &l->map) == AL_OK) {
        l->texels = &l->map;
    } else {
        free(l);
        return;
    }
    al_rad_get_stats(lit->rad, &l->stats);
    if (first) {
        /* The stats of what the snapshot's copy shows. */
        l->stats.shots = lit->lightmap.shots;
        l->stats.residual = lit->lightmap.residual;
    }
    l->refs = 1;
    l->snapshot = al_snapshot_ref(lit);
    live->last_copy_ns = al_clock_ns();
    pthread_mutex_lock(&live->lock);
    l->serial = ++live->lightmap_serial;
    al_live_lightmap *old = live->lightmap;
    live->lightmap = l;
    pthread_mutex_unlock(&live->lock);
    al_live_lightmap_release(old);
    if (live->options.lightmap) live->options.lightmap(live->options.user, lit->generation);
}

/* Makes a snapshot of WORLD (taking it; a light snapshot borrows its parent's, an input
 * snapshot has none) and publishes it as the current one. DIAGS (may be NULL) are added to
 * the world's. A light snapshot's stage is not done with the publication (light_done says
 * when it is). */
static al_snapshot *publish(al_live *live, al_world *world, live_input *in, al_stage stage,
                            double work_ms, al_snapshot *parent, al_rad *rad,
                            const al_diag_list *diags, al_status status, bool from_cache)
{
    al_snapshot *s = calloc(1, sizeof *s);
    if (!s) {
        if (!parent) al_world_destroy(world);
        al_rad_destroy(rad);
        return NULL;
    }
    s->refs = 1;
    s->world = world;
    s->generation = in->generation;
    s->stage = stage;
    s->input = in;
    s->parent = al_snapshot_ref(parent);
    s->rad = rad;
    s->status = status;
    s->from_cache = from_cache;
    s->light_from_cache = rad && live->light_from_cache;
    if (world) al_diag_append(&s->diags, al_world_diagnostics(world));
    if (diags) al_diag_append(&s->diags, diags);
    if (in->map->dropped_brushes > 0)
        al_diag_add(&s->diags, AL_SEVERITY_WARNING, AL_DIAG_BRUSH_WARNING, -1, -1, -1, -1, -1,
                    "%d brushes belong to no entity of the map and were left out",
                    in->map->dropped_brushes);
    /* A light snapshot comes with its light, so that the two are shown together. */
    if (rad && al_rad_snapshot(rad, &s->lightmap) != AL_OK)
        memset(&s->lightmap, 0, sizeof s->lightmap);
    /* A later stage of the same edit carries its light on. */
    if (stage > AL_STAGE_LIGHT && live->lit && live->lit->generation == in->generation)
        s->light = al_snapshot_ref(live->lit);
    __atomic_add_fetch(&in->refs, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&live->lock);
    /* A job of an older change that ends after a newer collision does not take its place. */
    al_snapshot *old = NULL;
    if (!live->current || live->current->generation <= s->generation) {
        old = live->current;
        live->current = al_snapshot_ref(s);
    }
    al_stage_status *st = &live->status[stage];
    st->generation = in->generation;
    st->last_ms = al_clock_ms_since(in->submitted_ns);
    st->last_work_ms = work_ms;
    st->runs++;
    if (stage == AL_STAGE_COLLISION) {
        al_world_stats ws;
        al_world_get_stats(world, &ws);
        st->blocks_built = ws.blocks_built;
        st->subcells_built = ws.subcells_built;
    }
    if (stage == AL_STAGE_LIGHT) {
        st->state = AL_STAGE_RUNNING;
    } else if (stage != AL_STAGE_INPUT) {
        st->state = in->generation == live->generation ? AL_STAGE_CURRENT : AL_STAGE_PENDING;
        al_stage next = next_stage(live, stage);
        if (next < AL_STAGE_COUNT && in->generation == live->generation)
            live->status[next].state = AL_STAGE_RUNNING;
    }
    pthread_cond_broadcast(&live->published);
    pthread_mutex_unlock(&live->lock);
    al_snapshot_release(old);
    if (live->options.published) live->options.published(live->options.user, stage, in->generation);
    return s;
}

static void note_cancelled(al_live *live, al_stage stage)
{
    pthread_mutex_lock(&live->lock);
    live->status[stage].cancelled++;
    pthread_mutex_unlock(&live->lock);
}

static void fail(al_live *live, al_status status, const al_diag_list *diags)
{
    pthread_mutex_lock(&live->lock);
    live->error = status;
    const char *why = al_status_message(status);
    /* The last error says most; warnings come before it. */
    for (size_t i = 0; diags && i < diags->count; i++)
        if (diags->items[i].severity == AL_SEVERITY_ERROR) why = diags->items[i].message;
    snprintf(live->error_message, sizeof live->error_message, "%s", why);
    pthread_mutex_unlock(&live->lock);
}

/* The visibility stages: a copy of BASE's world (IN's collision or portals) that shares
 * its blocks, with visibility up to LEVEL; the portals of blocks the last snapshot with
 * portals shares come from it. Returns the snapshot published (a reference for the
 * caller), or NULL. Background thread. */
static al_snapshot *run_vis(al_live *live, live_input *in, const al_snapshot *base, al_stage stage,
                            al_pvs_level level)
{
    uint64_t t0 = al_clock_ns();
    if (stage == AL_STAGE_PVS) {
        /* No progress until the tight pass says how much there is. */
        __atomic_store_n(&live->pvs_progress[0], 0, __ATOMIC_RELEASE);
        __atomic_store_n(&live->pvs_progress[1], 0, __ATOMIC_RELAXED);
    }
    al_compile_options co = live->options.compile;
    co.no_vis = true;
    al_world *w = NULL;
    al_diag_list diags = {0};
    /* The tight pass takes the visible sets of the last tight PVS, the coarse the might-see
     * sets of the last snapshot with portals. */
    const al_snapshot *previous = stage == AL_STAGE_PVS && live->seen_tight ? live->seen_tight
                                                                            : live->seen;
    const al_input *input = &in->map->input;
    al_status st = al_world_update(base->world, input, &co, &w, &diags);
    /* The tight pass of a world from the cache, for the input it was stored for, takes the
     * PVS stored with it rather than compute one. (Not the portals stage: the light is
     * carried from world to world on the coarse PVS, and one carried from the tight rows to
     * the next edit's coarse ones would correct the direct light of every luxel whose
     * leaf's row differs: seconds on lq-e3m4.) */
    pthread_mutex_lock(&live->lock);
    al_snapshot *loaded = al_snapshot_ref(live->loaded);
    pthread_mutex_unlock(&live->lock);
    if (st == AL_OK && stage == AL_STAGE_PVS && loaded && loaded->input == in)
        st = al_world_share_stored_pvs(w, loaded->world);
    al_snapshot_release(loaded);
    if (st == AL_OK)
        st = al_world_build_vis_with(w, input,
                                     &(al_vis_options){.level = level,
                                                       .threads = co.threads,
                                                       .cancel = &live->cancel,
                                                       .progress = stage == AL_STAGE_PVS
                                                                       ? live->pvs_progress
                                                                       : NULL,
                                                       .no_pvs_if_leaking = true,
                                                       .previous = previous
                                                                       ? previous->world
                                                                       : NULL});
    al_snapshot *s = NULL;
    if (st == AL_OK) {
        s = publish(live, w, in, stage, al_clock_ms_since(t0), NULL, NULL, NULL, AL_OK,
                    base->from_cache);
        al_snapshot_release(live->seen);
        live->seen = al_snapshot_ref(s);
        if (stage == AL_STAGE_PVS) {
            al_snapshot_release(live->seen_tight);
            live->seen_tight = al_snapshot_ref(s);
        }
    } else {
        al_world_destroy(w);
        if (st == AL_ERR_CANCELLED) note_cancelled(live, stage);
        else fail(live, st, &diags);
    }
    al_diag_list_clear(&diags);
    return s;
}

/* The light stage has finished with generation IN (its corrections made, or the solver
 * paused), or given up on it for a newer one (DONE false). */
static void light_done(al_live *live, live_input *in, bool done)
{
    pthread_mutex_lock(&live->lock);
    al_stage_status *st = &live->status[AL_STAGE_LIGHT];
    if (done) {
        st->done_generation = in->generation;
        st->last_done_ms = al_clock_ms_since(in->submitted_ns);
        st->state = in->generation == live->generation ? AL_STAGE_CURRENT : AL_STAGE_PENDING;
        al_stage next = next_stage(live, AL_STAGE_LIGHT);
        if (next < AL_STAGE_COUNT && in->generation == live->generation)
            live->status[next].state = AL_STAGE_RUNNING;
    } else {
        st->cancelled++;
    }
    pthread_cond_broadcast(&live->published);
    pthread_mutex_unlock(&live->lock);
}

/* Makes RAD the solver a cancel reaches (NULL: none), clearing a cancel left on it. */
static void set_shooting(al_live *live, al_rad *rad)
{
    pthread_mutex_lock(&live->lock);
    live->shooting = rad;
    pthread_mutex_unlock(&live->lock);
    if (rad) al_rad_resume(rad);
}

/* The controls' mode; *DARK: whether a reset asks that not even the light sources be
 * shot. */
static al_light_mode light_mode(al_live *live, bool *dark)
{
    pthread_mutex_lock(&live->lock);
    al_light_mode mode = live->light_mode;
    if (dark) *dark = live->light_dark;
    pthread_mutex_unlock(&live->lock);
    return mode;
}

/* The solver state for IN from the cache, put into RAD; true if it was there and fitted. */
static bool restore_light(al_live *live, live_input *in, al_rad *rad)
{
    const al_live_cache *c = &live->options.cache;
    if (!cache_on(live) || !c->light_salt) return false;
    char key[33];
    al_input_key(&in->map->input, c->light_salt, key);
    void *bytes = NULL;
    size_t size = 0;
    if (!c->get(c->user, "light", key, &bytes, &size)) return false;
    bool ok = al_rad_restore(rad, bytes, size) == AL_OK;
    free(bytes);
    if (ok) {
        /* The cache holds this state already. */
        al_rad_stats st;
        al_rad_get_stats(rad, &st);
        live->stored_rad = rad;
        live->stored_shots = st.shots;
    }
    return ok;
}

/* The corrections of a light stage, on the background thread: luxels lit once first lit
 * with every sample (a new copy of the lightmaps shows them as soon as they are), then the
 * bounced light. */
typedef struct correction_job {
    al_snapshot *lit; /* the stage's snapshot, of RAD */
    live_input *in;
    al_rad *rad;
    al_rad_stats *stats;
    al_light_mode *mode;
} correction_job;

static void run_corrections(al_live *live, void *arg)
{
    correction_job *j = arg;
    while (j->stats->corrections_left > 0 && *j->mode != AL_LIGHT_PAUSED && !stale(live)) {
        int64_t coarse = j->stats->coarse_left;
        if (al_rad_step(j->rad, 1) == 0) break;
        al_rad_get_stats(j->rad, j->stats);
        if (coarse > 0 && j->stats->coarse_left == 0) {
            pthread_mutex_lock(&live->lock);
            live->status[AL_STAGE_LIGHT].last_refined_ms = al_clock_ms_since(j->in->submitted_ns);
            pthread_mutex_unlock(&live->lock);
            if (j->stats->corrections_left > 0) copy_lightmap(live, j->lit, false);
        }
        __atomic_store_n(&live->light_progress[1],
                         __atomic_load_n(&live->light_progress[0], __ATOMIC_RELAXED) -
                             j->stats->corrections_left,
                         __ATOMIC_RELEASE);
        *j->mode = light_mode(live, NULL);
    }
}

/* What is left of an edit's stages after its first corrected light (or after its portals
 * without the light stage): the light's other corrections, then the tight PVS. */
typedef struct stages_left {
    live_input *in;
    al_snapshot *portals;
    al_snapshot *lit; /* the light stage's snapshot, or NULL without the light stage */
    al_rad_stats rs;
    al_light_mode mode;
    int64_t corrections; /* left when it was published */
} stages_left;

/* The light stage: the last light carried to PORTALS's world, its new light sources shot
 * (not when paused) and published; what is left (finish_light) goes on in the second
 * background thread. A newer change stops it between shots (the next light then starts
 * from this one, or from the one it corrects). Returns false if it was stopped or failed;
 * else fills LEFT's light. */
static bool run_light(al_live *live, live_input *in, al_snapshot *portals, stages_left *left)
{
    uint64_t t0 = al_clock_ns();
    al_rad *prev = live->lit ? live->lit->rad : NULL;
    al_rad *rad = NULL;
    al_diag_list diags = {0};
    /* A newer change stops the direct light's correction (seconds under a large sky). */
    al_rad_options ro = live->options.rad;
    ro.cancel = &live->cancel;
    al_status st = al_rad_update(prev, portals->world, &in->map->input, &ro, &rad, &diags);
    if (st == AL_ERR_CANCELLED) {
        al_diag_list_clear(&diags);
        light_done(live, in, false);
        return false;
    }
    if (st != AL_OK) {
        fail(live, st, &diags);
        al_diag_list_clear(&diags);
        return false;
    }
    /* Carried on, a solver's light still began as the cache's. */
    live->light_from_cache = prev ? live->lit->light_from_cache : restore_light(live, in, rad);
    bool dark;
    al_light_mode mode = light_mode(live, &dark);
    /* The light sources a new solver (or new lights) need first: the first corrected
     * frame. */
    set_shooting(live, rad);
    al_rad_stats rs;
    al_rad_get_stats(rad, &rs);
    /* The sky dome's suns (64 rays a luxel: seconds on a large map) are left to the light
     * work that follows, unless they are all the light there is: a solver with some light
     * already (from the cache, or carried on) shows that first. */
    int lamps = (rs.lights - rs.dome_lights) - (rs.lights_shot - rs.dome_lights_shot);
    int unshot = rs.lights - rs.lights_shot;
    int first = lamps > 0 ? lamps : rs.lights_shot == 0 ? unshot : 0;
    if (first > 0 && mode != AL_LIGHT_PAUSED && !dark && !stale(live)) al_rad_step(rad, first);
    al_rad_get_stats(rad, &rs);
    const al_rad *base = al_rad_base(rad);
    al_snapshot *keep = NULL;
    if (base && live->lit && base == live->lit->rad) keep = live->lit;
    else if (base && live->lit && live->lit->light_base && base == live->lit->light_base->rad)
        keep = live->lit->light_base;
    if (base && !keep) {
        /* Cannot happen: al_rad_update reads PREV or PREV's base only. */
        set_shooting(live, NULL);
        al_rad_destroy(rad);
        al_diag_list_clear(&diags);
        fail(live, AL_ERR_INVALID_ARGUMENT, NULL);
        return false;
    }
    __atomic_store_n(&live->light_progress[0], rs.corrections_left, __ATOMIC_RELEASE);
    __atomic_store_n(&live->light_progress[1], 0, __ATOMIC_RELEASE);
    al_diag_list all = {0};
    al_diag_append(&all, al_snapshot_diagnostics(portals));
    al_diag_append(&all, &diags);
    al_diag_list_clear(&diags);
    /* The world's diagnostics are the portals snapshot's, already in ALL. */
    al_snapshot *s = publish(live, portals->world, in, AL_STAGE_LIGHT, al_clock_ms_since(t0),
                             portals, rad, NULL, AL_OK, portals->from_cache);
    if (s) {
        al_diag_list_clear(&s->diags);
        s->diags = all;
    } else {
        al_diag_list_clear(&all);
        set_shooting(live, NULL);
        fail(live, AL_ERR_NOMEM, NULL);
        return false;
    }
    s->light_base = al_snapshot_ref(keep);
    pthread_mutex_lock(&live->lock);
    live->status[AL_STAGE_LIGHT].corrections = rs.corrections_left;
    pthread_mutex_unlock(&live->lock);
    pthread_mutex_lock(&live->lock);
    al_snapshot *old = live->lit;
    live->lit = s;
    pthread_mutex_unlock(&live->lock);
    al_snapshot_release(old);
    /* The copy the snapshot came with is the newest copy too. */
    copy_lightmap(live, s, true);
    pthread_mutex_lock(&live->lock);
    live->status[AL_STAGE_LIGHT].last_refined_ms = 0;
    pthread_mutex_unlock(&live->lock);
    left->lit = al_snapshot_ref(s);
    left->rs = rs;
    left->mode = mode;
    left->corrections = rs.corrections_left;
    return true;
}

/* The rest of LEFT's light stage: its bounced light corrected (not when paused), before
 * anything else is shot. Returns false if it was stopped. */
static bool finish_light(al_live *live, stages_left *left)
{
    al_snapshot *s = left->lit;
    al_rad *rad = s->rad;
    live_input *in = left->in;
    al_rad_stats rs = left->rs;
    al_light_mode mode = left->mode;
    int64_t corrections = left->corrections;
    correction_job job = {s, in, rad, &rs, &mode};
    if (rs.corrections_left > 0 && mode != AL_LIGHT_PAUSED) run_corrections(live, &job);
    set_shooting(live, NULL);
    if (rs.corrections_left == 0) {
        al_snapshot_release(s->light_base);
        s->light_base = NULL;
        pthread_mutex_lock(&live->lock);
        live->status[AL_STAGE_LIGHT].last_corrected_ms = al_clock_ms_since(in->submitted_ns);
        pthread_mutex_unlock(&live->lock);
    }
    bool done = !stale(live) && (rs.corrections_left == 0 || mode == AL_LIGHT_PAUSED);
    if (done && corrections > rs.corrections_left) copy_lightmap(live, s, false);
    light_done(live, in, done);
    return done;
}

static void run_tight_pvs(al_live *live, live_input *in, const al_snapshot *portals)
{
    al_snapshot *s = run_vis(live, in, portals, AL_STAGE_PVS, AL_PVS_TIGHT);
    if (s) {
        /* Its stored PVS is used (or did not fit): the loaded world is needed no more,
         * unless a newer collision came from the cache meanwhile. */
        pthread_mutex_lock(&live->lock);
        al_snapshot *loaded = live->loaded;
        if (loaded && loaded->generation <= s->generation)
            live->loaded = NULL;
        else
            loaded = NULL;
        pthread_mutex_unlock(&live->lock);
        al_snapshot_release(loaded);
    }
    const al_live_cache *c = &live->options.cache;
    if (s && cache_on(live) && c->put && c->world_salt) {
        /* The world is whole now: a world compiled whole is stored at once, and one
         * stored before its PVS was done again with it (unless its rows came from the
         * cache). An edited one waits for changes to pause: a designer at work should not
         * wait for a store after every edit. */
        al_vis_stats vs;
        al_world_vis_stats(s->world, &vs);
        char key[33];
        al_input_key(al_snapshot_input(s), c->world_salt, key);
        pthread_mutex_lock(&live->lock);
        bool same = strcmp(key, live->stored_world) == 0;
        if (same && vs.pvs_stored)
            live->stored_tight = true;
        else if ((live->store_due_ns && live->store_whole) || (same && !live->stored_tight))
            live->store_due_ns = al_clock_ns();
        pthread_mutex_unlock(&live->lock);
    }
    al_snapshot_release(s);
}

/* Whether IN's hull list or block size differ from BASE's (or there is no base): the
 * world is then compiled whole, which takes a while on a large map. */
static bool needs_full_compile(const al_snapshot *base, const live_input *in)
{
    if (!base) return true;
    const al_input *a = al_snapshot_input(base), *b = &in->map->input;
    if (a->block_size != b->block_size || a->hull_count != b->hull_count) return true;
    for (int i = 0; i < a->hull_count; i++)
        if (memcmp(&a->hulls[i], &b->hulls[i], sizeof a->hulls[i]) != 0) return true;
    return false;
}

/* The world of IN from the cache, ready to be updated from; NULL if the cache has none
 * (or damaged bytes: the world is then compiled and stored anew). */
static al_world *load_cached_world(al_live *live, live_input *in)
{
    const al_live_cache *c = &live->options.cache;
    if (!cache_on(live) || !c->world_salt) return NULL;
    char key[33];
    al_input_key(&in->map->input, c->world_salt, key);
    void *bytes = NULL;
    size_t size = 0;
    if (!c->get(c->user, "world", key, &bytes, &size)) return NULL;
    al_world *w = NULL;
    al_diag_list why = {0};
    al_status st = al_world_load(bytes, size, &w, &why);
    al_diag_list_clear(&why);
    free(bytes);
    if (st == AL_OK && al_world_adopt_input(w, &in->map->input) != AL_OK) {
        al_world_destroy(w);
        return NULL;
    }
    if (st != AL_OK) return NULL;
    pthread_mutex_lock(&live->lock);
    memcpy(live->stored_world, key, sizeof key);
    live->stored_tight = false; /* known once its PVS is built (run_tight_pvs) */
    pthread_mutex_unlock(&live->lock);
    return w;
}

/* Waits up to MS for a change newer than the one at work; true if one came (or the
 * engine stops). A drag sends a preview every frame: the portals and light of one that a
 * newer preview replaces within a frame or two would only be cancelled, and the time
 * they took from the two cores would delay the next preview's collision. */
static bool newer_change_within(al_live *live, int ms)
{
    uint64_t until_ns = al_clock_ns() + (uint64_t) ms * 1000000u;
    struct timespec until = {(time_t) (until_ns / 1000000000u), (long) (until_ns % 1000000000u)};
    pthread_mutex_lock(&live->lock);
    while (!live->queue_count && !live->quit)
        if (pthread_cond_timedwait(&live->wake, &live->lock, &until) == ETIMEDOUT) break;
    bool newer = live->queue_count > 0 || live->quit;
    pthread_mutex_unlock(&live->lock);
    return newer;
}

static void after_collision_job(al_live *live, void *arg);

/* What the stages after a collision work from: its input and its snapshot. */
typedef struct after_collision {
    live_input *in;
    al_snapshot *collision;
} after_collision;

static void run(al_live *live, live_input *in)
{
    uint64_t t0 = al_clock_ns();

    const al_input *input = &in->map->input;
    al_snapshot *base = base_ref(live);
    /* A map compiled whole is shown before it is compiled. */
    bool needs_full = needs_full_compile(base, in);
    if (needs_full)
        al_snapshot_release(publish(live, NULL, in, AL_STAGE_INPUT, 0, NULL, NULL, NULL, AL_OK, false));
    al_compile_options co = live->options.compile;
    co.no_vis = true;
    al_world *w = base ? NULL : load_cached_world(live, in);
    bool from_cache = w != NULL;
    al_diag_list diags = {0};
    al_status st = AL_OK;
    if (!w)
        st = base ? al_world_update(base->world, input, &co, &w, &diags)
                  : al_world_compile(input, &co, &w, &diags);
    al_snapshot_release(base);
    if (st != AL_OK) {
        fail(live, st, &diags);
        /* The map as it is, with why it does not compile. */
        al_snapshot_release(publish(live, NULL, in, AL_STAGE_INPUT, 0, NULL, NULL, &diags, st, false));
        al_diag_list_clear(&diags);
        return;
    }
    al_diag_list_clear(&diags);
    al_snapshot *s = publish(live, w, in, AL_STAGE_COLLISION, al_clock_ms_since(t0), NULL, NULL,
                             NULL, AL_OK, from_cache);
    if (!s) {
        fail(live, AL_ERR_NOMEM, NULL);
        return;
    }
    /* A world from the cache keeps the PVS stored with it for this input's tight pass. */
    pthread_mutex_lock(&live->lock);
    al_snapshot *old_base = live->base, *old_loaded = live->loaded;
    live->base = s;
    live->loaded = from_cache ? al_snapshot_ref(s) : NULL;
    if (cache_on(live) && live->options.cache.put && !from_cache) {
        /* Kept once changes pause, or as soon as its tight PVS is done (run_tight_pvs), so
         * that the map opens from it whole next time. */
        live->store_due_ns = al_clock_ns() + (uint64_t) store_delay_ms(live) * 1000000u;
        live->store_whole = needs_full;
    }
    pthread_mutex_unlock(&live->lock);
    al_snapshot_release(old_base);
    al_snapshot_release(old_loaded);
    if (!stage_on(live, AL_STAGE_PORTALS)) return;
    /* The job of an older change may still be winding down: the stages after this
     * collision start when it has. Nothing is stale then unless a newer change waits. */
    wait_background(live);
    pthread_mutex_lock(&live->lock);
    if (!live->queue_count) __atomic_store_n(&live->cancel, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&live->lock);
    if (stale(live) || (in->preview && newer_change_within(live, preview_settle_ms(live)))) {
        note_cancelled(live, AL_STAGE_PORTALS);
        return;
    }
    after_collision *job = malloc(sizeof *job);
    if (!job) {
        fail(live, AL_ERR_NOMEM, NULL);
        return;
    }
    __atomic_add_fetch(&in->refs, 1, __ATOMIC_RELAXED);
    *job = (after_collision){in, al_snapshot_ref(s)};
    start_background(live, after_collision_job, job, true);
}

static void stages_left_free(stages_left *left)
{
    al_snapshot_release(left->lit);
    al_snapshot_release(left->portals);
    input_release(left->in);
    free(left);
}

/* The stages after an edit's first corrected light: the light's other corrections, then
 * the tight PVS. Second background thread. */
static void stages_left_job(al_live *live, void *arg)
{
    stages_left *left = arg;
    if ((!left->lit || finish_light(live, left)) && stage_on(live, AL_STAGE_PVS)) {
        if (stale(live))
            note_cancelled(live, AL_STAGE_PVS);
        else
            run_tight_pvs(live, left->in, left->portals);
    }
    stages_left_free(left);
}

/* An edit's light up to its first corrected frame; the rest goes on in the second
 * background thread. First background thread. */
static void first_light_job(al_live *live, void *arg)
{
    stages_left *left = arg;
    if (stale(live)) {
        note_cancelled(live, AL_STAGE_LIGHT);
        stages_left_free(left);
        return;
    }
    /* A new light snapshot: the controls' orders apply to it afresh. */
    pthread_mutex_lock(&live->lock);
    live->light_idle = false;
    pthread_mutex_unlock(&live->lock);
    if (!run_light(live, left->in, left->portals, left))
        stages_left_free(left);
    else
        continue_in_background(live, stages_left_job, left, false);
}

/* The stages after the portals of IN: the light (in the first background thread up to its
 * first corrected frame) and the tight PVS. First background thread. */
static void after_portals(al_live *live, live_input *in, al_snapshot *portals)
{
    bool light = stage_on(live, AL_STAGE_LIGHT);
    if (!light && !stage_on(live, AL_STAGE_PVS)) return;
    stages_left *left = calloc(1, sizeof *left);
    if (!left) {
        fail(live, AL_ERR_NOMEM, NULL);
        return;
    }
    __atomic_add_fetch(&in->refs, 1, __ATOMIC_RELAXED);
    left->in = in;
    left->portals = al_snapshot_ref(portals);
    continue_in_background(live, light ? first_light_job : stages_left_job, left, light);
}

/* The stages after an edit's collision: portals, light and the tight PVS. They run on the
 * background threads, so that an edit's collision (on the engine's thread) never waits
 * for them; the portals and the first corrected light on the first, the rest on the
 * second, which the caller may give a lower priority. First background thread. */
static void after_collision_job(al_live *live, void *arg)
{
    after_collision *job = arg;
    live_input *in = job->in;
    /* The collision stage leaves the vis and light trees of the blocks it built to the
     * portals stage. Its world, which has them, becomes the base (unless a newer collision
     * is the base already): the next edit and the PVS stage share them rather than build
     * them again. */
    al_snapshot *portals = run_vis(live, in, job->collision, AL_STAGE_PORTALS, AL_PVS_COARSE);
    if (portals) {
        pthread_mutex_lock(&live->lock);
        al_snapshot *old = NULL;
        if (live->base == job->collision) {
            old = live->base;
            live->base = al_snapshot_ref(portals);
        }
        pthread_mutex_unlock(&live->lock);
        al_snapshot_release(old);
        after_portals(live, in, portals);
        al_snapshot_release(portals);
    }
    al_snapshot_release(job->collision);
    input_release(in);
    free(job);
}

/* --- work between changes ------------------------------------------------------------------ */

/* Whether the light controls ask for work on the last light snapshot. Under lock. */
static bool light_work_wanted(const al_live *live)
{
    if (!live->lit || live->lit->generation != live->generation || live->queue_count) return false;
    /* The stages of the newest generation come first. */
    if (live->busy || live->bg_busy) return false;
    if (live->light_reset) return true;
    return !live->light_idle && live->light_mode != AL_LIGHT_PAUSED;
}

static bool store_due(const al_live *live)
{
    return live->store_due_ns && al_clock_ns() >= live->store_due_ns;
}

/* Stops light work: a newer change, a new order from the controls, or the cache's turn. */
static bool light_should_stop(al_live *live)
{
    return stale(live) || __atomic_load_n(&live->light_interrupt, __ATOMIC_ACQUIRE) ||
           store_due(live);
}

/* From al_rad_run, every few milliseconds. */
static bool light_progress(void *context, const al_rad_stats *stats)
{
    (void) stats;
    al_live *live = context;
    if (light_should_stop(live)) return false;
    if (al_clock_ms_since(live->last_copy_ns) >= lightmap_interval_ms(live))
        copy_lightmap(live, live->lit, false);
    return true;
}

/* Hands the solver's state to the cache, keyed by the input it lights. */
static void store_light(al_live *live, al_snapshot *lit)
{
    const al_live_cache *c = &live->options.cache;
    if (!c->put || !c->light_salt) return;
    void *bytes = NULL;
    size_t size = 0;
    if (al_rad_save(lit->rad, &bytes, &size) != AL_OK) return;
    char key[33];
    al_input_key(al_snapshot_input(lit), c->light_salt, key);
    c->put(c->user, "light", key, bytes, size);
}

/* The light work the controls ask for, on the last light snapshot's solver, until it is
 * done or something else comes first (light_should_stop). */
static void light_work(al_live *live)
{
    al_snapshot *lit = live->lit;
    al_rad *rad = lit->rad;
    pthread_mutex_lock(&live->lock);
    bool reset = live->light_reset;
    live->light_reset = false;
    al_light_mode mode = live->light_mode;
    double residual = live->light_residual;
    __atomic_store_n(&live->light_interrupt, 0, __ATOMIC_RELEASE);
    live->shooting = rad;
    pthread_mutex_unlock(&live->lock);
    al_rad_resume(rad);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    int64_t shots = st.shots;
    if (reset) {
        al_rad_reset(rad);
        copy_lightmap(live, lit, false);
    }
    if (mode == AL_LIGHT_RUN && residual > 0) {
        al_rad_run(rad, residual, 0, light_progress, live);
    } else if (mode != AL_LIGHT_PAUSED) {
        /* The light sources and an edit's corrections, then the shots asked for. */
        for (;;) {
            al_rad_get_stats(rad, &st);
            /* Light sources count as shots of a step, as al_rad_step counts them. */
            bool owed = st.corrections_left > 0;
            pthread_mutex_lock(&live->lock);
            int64_t want = owed ? 1 : live->light_steps < 4 ? live->light_steps : 4;
            pthread_mutex_unlock(&live->lock);
            if (want <= 0 || light_should_stop(live)) break;
            int64_t done = al_rad_step(rad, want);
            if (done == 0) break;
            if (!owed) {
                pthread_mutex_lock(&live->lock);
                live->light_steps -= done < live->light_steps ? done : live->light_steps;
                pthread_mutex_unlock(&live->lock);
            }
            if (al_clock_ms_since(live->last_copy_ns) >= lightmap_interval_ms(live))
                copy_lightmap(live, lit, false);
        }
    }
    /* The last copy goes out before the light says it is idle: whoever sees it idle sees
     * the light it ended with. */
    al_rad_get_stats(rad, &st);
    if (st.shots != shots || reset) copy_lightmap(live, lit, false);
    pthread_mutex_lock(&live->lock);
    live->shooting = NULL;
    /* Nothing left for these orders, unless they changed or a change came meanwhile. */
    bool finished = !stale(live) && !__atomic_load_n(&live->light_interrupt, __ATOMIC_ACQUIRE) &&
                    !store_due(live) && !live->light_reset;
    if (finished) {
        live->light_idle = true;
        live->status[AL_STAGE_LIGHT].last_settled_ms = al_clock_ms_since(lit->input->submitted_ns);
    }
    pthread_mutex_unlock(&live->lock);
    if (finished && live->options.light_settled) live->options.light_settled(live->options.user);
    if (finished && (lit->rad != live->stored_rad || st.shots != live->stored_shots)) {
        store_light(live, lit);
        live->stored_rad = lit->rad;
        live->stored_shots = st.shots;
    }
    if (st.corrections_left == 0 && lit->light_base) {
        al_snapshot_release(lit->light_base);
        lit->light_base = NULL;
    }
}

/* Hands the base's world to the cache, unless it holds it already. */
static void store_world(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    /* Not a store a newer collision made due meanwhile (the engine's thread goes on). */
    if (store_due(live)) live->store_due_ns = 0;
    al_snapshot *base = al_snapshot_ref(live->base);
    pthread_mutex_unlock(&live->lock);
    const al_live_cache *c = &live->options.cache;
    if (base && c->put && c->world_salt) {
        /* The base's world with its tight PVS when that is done (the PVS goes with it). */
        const al_snapshot *tight = live->seen_tight;
        bool with_pvs = tight && tight->generation == base->generation;
        const al_snapshot *from = with_pvs ? tight : base;
        char key[33];
        al_input_key(al_snapshot_input(from), c->world_salt, key);
        pthread_mutex_lock(&live->lock);
        bool stored = strcmp(key, live->stored_world) == 0 && (live->stored_tight || !with_pvs);
        pthread_mutex_unlock(&live->lock);
        void *bytes = NULL;
        size_t size = 0;
        if (!stored && al_world_save(from->world, &bytes, &size) == AL_OK) {
            c->put(c->user, "world", key, bytes, size);
            pthread_mutex_lock(&live->lock);
            memcpy(live->stored_world, key, sizeof key);
            live->stored_tight = with_pvs;
            pthread_mutex_unlock(&live->lock);
        }
    }
    al_snapshot_release(base);
}

static void store_world_job(al_live *live, void *arg)
{
    (void) arg;
    store_world(live);
}

static void light_work_job(al_live *live, void *arg)
{
    (void) arg;
    light_work(live);
}

/* Applies the queued changes to the map and returns its input, or NULL (memory). */
static live_input *take_changes(al_live *live, queued_change *changes, int count)
{
    bool ok = true, preview = changes[count - 1].change->preview;
    for (int i = 0; i < count; i++) {
        ok = ok && live_model_apply(live->model, changes[i].change, changes[i].generation);
        free(changes[i].change);
    }
    live_input *in = ok ? calloc(1, sizeof *in) : NULL;
    if (in) in->map = live_model_flatten(live->model);
    if (!in || !in->map) {
        free(in);
        /* The map may be half changed: start it again from the next full change. */
        live_model_destroy(live->model);
        live->model = live_model_create();
        fail(live, AL_ERR_NOMEM, NULL);
        return NULL;
    }
    in->refs = 1;
    in->preview = preview;
    in->generation = changes[count - 1].generation;
    in->submitted_ns = changes[count - 1].applied_ns;
    return in;
}

static void *engine_main(void *arg)
{
    al_live *live = arg;
    name_thread("al-live");
    if (live->options.thread_started) live->options.thread_started(live->options.user, false);
    pthread_mutex_lock(&live->lock);
    for (;;) {
        /* Light work and the store wait for the background thread to be free. */
        while (!live->quit && !live->queue_count &&
               (live->bg_busy || (!light_work_wanted(live) && !store_due(live)))) {
            if (!live->store_due_ns || live->bg_busy) {
                pthread_cond_wait(&live->wake, &live->lock);
                continue;
            }
            struct timespec until = {(time_t) (live->store_due_ns / 1000000000u),
                                     (long) (live->store_due_ns % 1000000000u)};
            pthread_cond_timedwait(&live->wake, &live->lock, &until);
        }
        if (live->quit) break;
        live->busy = true;
        if (live->queue_count) {
            int count = live->queue_count;
            queued_change *changes = live->queue;
            live->queue = NULL;
            live->queue_count = live->queue_cap = 0;
            live->taken = changes[count - 1].generation;
            live->status[AL_STAGE_COLLISION].last_wait_ms =
                al_clock_ms_since(changes[count - 1].applied_ns);
            /* A job still winding down keeps the cancel it saw until it has (run). */
            if (!live->bg_busy) __atomic_store_n(&live->cancel, 0, __ATOMIC_RELEASE);
            live->status[AL_STAGE_INPUT].state = AL_STAGE_CURRENT;
            live->status[AL_STAGE_COLLISION].state = AL_STAGE_RUNNING;
            for (int s = AL_STAGE_PORTALS; s < AL_STAGE_COUNT; s++)
                if (stage_on(live, (al_stage) s)) live->status[s].state = AL_STAGE_PENDING;
            pthread_mutex_unlock(&live->lock);
            live_input *in = take_changes(live, changes, count);
            free(changes);
            if (in) run(live, in);
            input_release(in);
        } else {
            /* Every change is taken and the background is free: nothing is stale. */
            __atomic_store_n(&live->cancel, 0, __ATOMIC_RELEASE);
            bool store = store_due(live);
            pthread_mutex_unlock(&live->lock);
            start_background(live, store ? store_world_job : light_work_job, NULL, false);
        }
        pthread_mutex_lock(&live->lock);
        live->busy = false;
        pthread_cond_broadcast(&live->published);
    }
    pthread_mutex_unlock(&live->lock);
    return NULL;
}

/* --- public API ----------------------------------------------------------------------------- */

static void stop_background(al_live *live)
{
    if (live->has_background) {
        pthread_mutex_lock(&live->job_lock);
        live->job_quit = true;
        pthread_cond_broadcast(&live->job_cond);
        pthread_mutex_unlock(&live->job_lock);
        pthread_join(live->background[0], NULL);
        pthread_join(live->background[1], NULL);
        live->has_background = false;
    }
    pthread_cond_destroy(&live->job_cond);
    pthread_mutex_destroy(&live->job_lock);
}

al_live *al_live_create(const al_live_options *options)
{
    al_live *live = calloc(1, sizeof *live);
    if (!live) return NULL;
    if (options) live->options = *options;
    live->model = live_model_create();
    live->light_mode = AL_LIGHT_RUN;
    live->light_residual = live->options.light_residual;
    pthread_mutex_init(&live->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* the store's deadline */
    pthread_cond_init(&live->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_cond_init(&live->published, NULL);
    pthread_mutex_init(&live->job_lock, NULL);
    pthread_cond_init(&live->job_cond, NULL);
    /* Without the background threads their work runs on the engine's (at its priority). */
    if (pthread_create(&live->background[0], NULL, waited_main, live) == 0) {
        live->has_background =
            pthread_create(&live->background[1], NULL, background_main, live) == 0;
        if (!live->has_background) {
            pthread_mutex_lock(&live->job_lock);
            live->job_quit = true;
            pthread_cond_broadcast(&live->job_cond);
            pthread_mutex_unlock(&live->job_lock);
            pthread_join(live->background[0], NULL);
            live->job_quit = false;
        }
    }
    if (!live->model || pthread_create(&live->thread, NULL, engine_main, live) != 0) {
        stop_background(live);
        live_model_destroy(live->model);
        pthread_cond_destroy(&live->wake);
        pthread_cond_destroy(&live->published);
        pthread_mutex_destroy(&live->lock);
        free(live);
        return NULL;
    }
    return live;
}

/* What the cache has not got yet, as the engine stops (its threads joined): a map opened
 * again starts where this one ended, not with its light shot over. Light whose edit is
 * not yet corrected is not kept: it would come back as if it were. */
static void keep_before_stopping(al_live *live)
{
    /* A world behind the newest change is of no use to the next opening. */
    if (live->store_due_ns && live->base && live->base->generation == live->generation)
        store_world(live);
    al_snapshot *lit = live->lit;
    if (!lit || !lit->rad || lit->generation != live->generation) return;
    al_rad_stats st;
    al_rad_get_stats(lit->rad, &st);
    if (st.corrections_left == 0 &&
        (lit->rad != live->stored_rad || st.shots != live->stored_shots))
        store_light(live, lit);
}

void al_live_destroy(al_live *live)
{
    if (!live) return;
    pthread_mutex_lock(&live->lock);
    live->quit = true;
    __atomic_store_n(&live->cancel, 1, __ATOMIC_RELEASE);
    if (live->shooting) al_rad_cancel(live->shooting);
    pthread_cond_broadcast(&live->wake);
    pthread_mutex_unlock(&live->lock);
    pthread_join(live->thread, NULL);
    stop_background(live);
    keep_before_stopping(live);
    for (int i = 0; i < live->queue_count; i++) free(live->queue[i].change);
    free(live->queue);
    al_live_lightmap_release(live->lightmap);
    al_snapshot_release(live->current);
    al_snapshot_release(live->base);
    al_snapshot_release(live->lit);
    al_snapshot_release(live->seen);
    al_snapshot_release(live->seen_tight);
    al_snapshot_release(live->loaded);
    live_model_destroy(live->model);
    pthread_cond_destroy(&live->wake);
    pthread_cond_destroy(&live->published);
    pthread_mutex_destroy(&live->lock);
    free(live);
}

/* Stops the shot in progress for an order of the controls or a change. Under lock. */
static void interrupt_light(al_live *live)
{
    __atomic_store_n(&live->light_interrupt, 1, __ATOMIC_RELEASE);
    if (live->shooting) al_rad_cancel(live->shooting);
}

uint64_t al_live_apply(al_live *live, const al_live_change *change)
{
    al_live_change *copy = live_change_copy(change);
    if (!copy) return 0;
    pthread_mutex_lock(&live->lock);
    if (live->queue_count == live->queue_cap) {
        int cap = live->queue_cap ? live->queue_cap * 2 : 8;
        queued_change *q = realloc(live->queue, (size_t) cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&live->lock);
            free(copy);
            return 0;
        }
        live->queue = q;
        live->queue_cap = cap;
    }
    uint64_t generation = ++live->generation;
    live->queue[live->queue_count++] = (queued_change){copy, generation, al_clock_ns()};
    __atomic_store_n(&live->cancel, 1, __ATOMIC_RELEASE);
    if (live->shooting) al_rad_cancel(live->shooting);
    for (int s = 0; s < AL_STAGE_COUNT; s++)
        if (stage_on(live, (al_stage) s) && live->status[s].state != AL_STAGE_RUNNING)
            live->status[s].state = AL_STAGE_PENDING;
    pthread_cond_signal(&live->wake);
    pthread_mutex_unlock(&live->lock);
    return generation;
}

uint64_t al_live_submit(al_live *live, const al_input *in)
{
    /* The input as a whole-map change whose ids are its indices. */
    int32_t n_ent = in->entity_count > 0 ? in->entity_count : 0;
    int32_t n_brush = in->brush_count > 0 ? in->brush_count : 0;
    int32_t n_face = in->face_count > 0 ? in->face_count : 0;
    int32_t n_mat = in->material_count > 0 ? in->material_count : 0;
    al_live_entity *ents = calloc((size_t) n_ent + 1, sizeof *ents);
    al_live_brush *brushes = calloc((size_t) n_brush + 1, sizeof *brushes);
    al_live_face *faces = calloc((size_t) n_face + 1, sizeof *faces);
    int64_t *mat_ids = calloc((size_t) n_mat + 1, sizeof *mat_ids);
    uint64_t generation = 0;
    if (ents && brushes && faces && mat_ids) {
        for (int32_t e = 0; e < n_ent; e++)
            ents[e] = (al_live_entity){.id = e, .order = e,
                                       .classname = in->entities[e].classname,
                                       .properties = in->entities[e].properties,
                                       .property_count = in->entities[e].property_count};
        for (int32_t f = 0; f < n_face; f++) {
            memcpy(faces[f].points, in->faces[f].points, sizeof faces[f].points);
            faces[f].material = in->faces[f].material;
            faces[f].luxel_size = in->faces[f].luxel_size;
            memcpy(faces[f].texture_axes, in->faces[f].texture_axes, sizeof faces[f].texture_axes);
        }
        for (int32_t b = 0; b < n_brush; b++)
            brushes[b] = (al_live_brush){.id = b, .entity = in->brushes[b].entity, .order = b,
                                         .faces = faces + in->brushes[b].first_face,
                                         .face_count = in->brushes[b].face_count};
        for (int32_t m = 0; m < n_mat; m++) mat_ids[m] = m;
        generation = al_live_apply(
            live, &(al_live_change){.replace = true, .entities = ents, .entity_count = n_ent,
                                    .brushes = brushes, .brush_count = n_brush,
                                    .set_materials = true, .materials = in->materials,
                                    .material_ids = mat_ids, .material_count = n_mat,
                                    .set_hulls = true, .hulls = in->hulls,
                                    .hull_count = in->hull_count, .set_block_size = true,
                                    .block_size = in->block_size});
    }
    free(ents);
    free(brushes);
    free(faces);
    free(mat_ids);
    return generation;
}

al_snapshot *al_live_current(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    al_snapshot *s = al_snapshot_ref(live->current);
    pthread_mutex_unlock(&live->lock);
    return s;
}

al_live_lightmap *al_live_current_lightmap(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    al_live_lightmap *l = al_live_lightmap_ref(live->lightmap);
    pthread_mutex_unlock(&live->lock);
    return l;
}

void al_live_status(al_live *live, al_stage_status out[AL_STAGE_COUNT])
{
    pthread_mutex_lock(&live->lock);
    memcpy(out, live->status, sizeof live->status);
    pthread_mutex_unlock(&live->lock);
    int64_t total = __atomic_load_n(&live->pvs_progress[0], __ATOMIC_ACQUIRE);
    int64_t done = __atomic_load_n(&live->pvs_progress[1], __ATOMIC_RELAXED);
    int64_t fixes = __atomic_load_n(&live->light_progress[0], __ATOMIC_ACQUIRE);
    int64_t fixed = __atomic_load_n(&live->light_progress[1], __ATOMIC_ACQUIRE);
    for (int s = 0; s < AL_STAGE_COUNT; s++) {
        out[s].progress = out[s].state == AL_STAGE_CURRENT ? 1.0 : 0.0;
        if (s == AL_STAGE_PVS && out[s].state == AL_STAGE_RUNNING && total > 0)
            out[s].progress = done < total ? (double) done / (double) total : 1.0;
        /* Published and correcting: the share of its corrections made. */
        if (s == AL_STAGE_LIGHT && out[s].state == AL_STAGE_RUNNING &&
            out[s].generation > out[s].done_generation && fixes > 0)
            out[s].progress = fixed < fixes ? (double) fixed / (double) fixes : 1.0;
    }
}

al_status al_live_last_error(al_live *live, char *message, size_t size)
{
    pthread_mutex_lock(&live->lock);
    al_status st = live->error;
    if (message && size) snprintf(message, size, "%s", live->error_message);
    pthread_mutex_unlock(&live->lock);
    return st;
}

/* TIMEOUT_S from now on the realtime clock, for the published condition. */
static struct timespec deadline(double timeout_s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double whole = (double) until.tv_sec + until.tv_nsec * 1e-9 + timeout_s;
    until.tv_sec = (time_t) whole;
    until.tv_nsec = (long) ((whole - (double) until.tv_sec) * 1e9);
    return until;
}

bool al_live_wait(al_live *live, uint64_t generation, al_stage stage, double timeout_s)
{
    struct timespec until = deadline(timeout_s);
    pthread_mutex_lock(&live->lock);
    bool done;
    for (;;) {
        bool on = stage >= 0 && stage < AL_STAGE_COUNT && stage_on(live, stage);
        const al_stage_status *st = on ? &live->status[stage] : NULL;
        uint64_t reached = !on                       ? 0
                           : stage == AL_STAGE_INPUT ? live->taken
                           : stage == AL_STAGE_LIGHT ? st->done_generation
                                                     : st->generation;
        done = on && reached >= generation;
        bool idle = !live->busy && !live->bg_busy && !live->queue_count;
        if (done || !on || (idle && live->taken >= generation)) break;
        if (pthread_cond_timedwait(&live->published, &live->lock, &until) != 0) break;
    }
    pthread_mutex_unlock(&live->lock);
    return done;
}

bool al_live_wait_idle(al_live *live, double timeout_s)
{
    struct timespec until = deadline(timeout_s);
    pthread_mutex_lock(&live->lock);
    bool idle;
    for (;;) {
        idle = !live->busy && !live->bg_busy && !live->queue_count && !light_work_wanted(live) &&
               !live->store_due_ns;
        if (idle) break;
        if (pthread_cond_timedwait(&live->published, &live->lock, &until) != 0) break;
    }
    pthread_mutex_unlock(&live->lock);
    return idle;
}

/* --- light controls ---------------------------------------------------------------------- */

static void set_light_orders(al_live *live, al_light_mode mode, double residual, int64_t steps,
                             bool reset)
{
    pthread_mutex_lock(&live->lock);
    live->light_mode = mode;
    if (residual > 0) live->light_residual = residual;
    if (mode != AL_LIGHT_MANUAL) live->light_steps = 0;
    live->light_steps += steps;
    live->light_reset = live->light_reset || reset;
    /* A reset leaves the map dark until the next step or run. */
    if (reset) live->light_dark = true;
    else if (mode != AL_LIGHT_PAUSED) live->light_dark = false;
    live->light_idle = false;
    interrupt_light(live);
    pthread_cond_signal(&live->wake);
    pthread_mutex_unlock(&live->lock);
}

void al_live_light_run(al_live *live, double residual)
{
    set_light_orders(live, AL_LIGHT_RUN, residual, 0, false);
}

void al_live_light_pause(al_live *live)
{
    set_light_orders(live, AL_LIGHT_PAUSED, 0, 0, false);
}

void al_live_light_step(al_live *live, int64_t shots)
{
    set_light_orders(live, AL_LIGHT_MANUAL, 0, shots > 0 ? shots : 0, false);
}

void al_live_light_reset(al_live *live)
{
    set_light_orders(live, AL_LIGHT_MANUAL, 0, 0, true);
}

bool al_live_light_busy(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    /* Light work waiting for its turn (behind the tight PVS, say) counts too. */
    bool waiting =
        live->lit && live->lit->generation == live->generation &&
        (live->light_reset || (!live->light_idle && live->light_mode != AL_LIGHT_PAUSED));
    bool busy = waiting || live->status[AL_STAGE_LIGHT].state == AL_STAGE_RUNNING ||
                ((live->busy || live->bg_busy) && live->shooting != NULL);
    pthread_mutex_unlock(&live->lock);
    return busy;
}

al_light_mode al_live_light_mode(al_live *live, double *residual)
{
    pthread_mutex_lock(&live->lock);
    al_light_mode mode = live->light_mode;
    if (residual) *residual = live->light_residual;
    pthread_mutex_unlock(&live->lock);
    return mode;
}
