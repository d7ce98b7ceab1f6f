/* The live-compile engine (see al-live.h).
 *
 * One thread. It takes the newest submitted input (older ones it never started are
 * dropped), runs the stages in order and publishes a snapshot after each. The world of the
 * last collision stage is the base of the next update, so an edit costs the sub-cells it
 * touched. The portals and PVS stages work on their own copies of that world
 * (al_world_update with the same input: every brush copied, every block shared), because a
 * published world is never changed. The collision stage builds no vis trees (the portals
 * stage builds those of the blocks that lack them), so the portals world, once published,
 * becomes the base in its place. The light stage's snapshot shares the portals world (it
 * holds the portals snapshot) and adds the solver; the last one is what the next light
 * update starts from, and while its solver still corrects light it holds the snapshot
 * whose solver it reads (al_rad_base).
 */
#include "al-live.h"

#include "al-clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A submitted input, shared by the snapshots made from it. */
typedef struct live_input {
    int refs;
    uint64_t generation;
    uint64_t submitted_ns;
    al_input *input; /* al_input_clone */
} live_input;

struct al_snapshot {
    int refs;
    al_world *world;  /* owned, or the parent's */
    uint64_t generation;
    al_stage stage;
    live_input *input;
    al_snapshot *parent; /* a light snapshot: the portals snapshot whose world it lights */
    al_rad *rad;         /* owned by a light snapshot */
    al_snapshot *light;  /* a later stage's: the light snapshot of its generation, or NULL */
    al_snapshot *light_base; /* a light snapshot's, engine thread only: the snapshot whose
                                solver rad's corrections read, until they are made */
};

struct al_live {
    al_live_options options;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* the engine waits for work */
    pthread_cond_t published; /* al_live_wait waits for results */
    /* Under lock. */
    live_input *pending;      /* the newest input not yet taken */
    uint64_t generation;      /* of the newest submission */
    bool busy;                /* the engine is working on a generation */
    bool quit;
    al_snapshot *current;
    al_stage_status status[AL_STAGE_COUNT];
    al_status error;
    char error_message[256];
    /* Read by the portal flow without the lock: nonzero when a newer input waits. */
    int cancel;
    /* Written by the tight PVS pass without the lock: its portal flows, and those done. */
    int64_t pvs_progress[2];
    /* Written by the light stage: its corrections, and those made. */
    int64_t light_progress[2];
    /* The engine's own. */
    al_snapshot *base; /* the last collision snapshot: what the next update starts from */
    al_snapshot *lit;  /* the last light snapshot: what the next light starts from */
    al_snapshot *seen; /* the last snapshot with portals: the next copies its unchanged
                          blocks' portals and takes its unchanged portals' PVS sets */
    al_snapshot *seen_tight; /* the same with the tight PVS, for the next tight PVS */
};

static void input_release(live_input *in)
{
    if (in && __atomic_sub_fetch(&in->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(in->input);
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
    al_snapshot_release(s->light_base);
    al_snapshot_release(s->light);
    if (s->parent) al_snapshot_release(s->parent);
    else al_world_destroy(s->world);
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

uint64_t al_snapshot_generation(const al_snapshot *s)
{
    return s->generation;
}

al_stage al_snapshot_stage(const al_snapshot *s)
{
    return s->stage;
}

const al_input *al_snapshot_input(const al_snapshot *s)
{
    return s->input->input;
}

const char *al_stage_name(al_stage stage)
{
    static const char *names[] = {"collision", "portals", "light", "pvs"};
    return stage >= 0 && stage < AL_STAGE_COUNT ? names[stage] : "?";
}

/* Whether the options ask for STAGE. */
static bool stage_on(const al_live *live, al_stage stage)
{
    switch (stage) {
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

/* Makes a snapshot of WORLD (taking it; a light snapshot borrows its parent's) and
 * publishes it as the current one. A light snapshot's stage is not done with the
 * publication (light_done says when it is). */
static al_snapshot *publish(al_live *live, al_world *world, live_input *in, al_stage stage,
                            double work_ms, al_snapshot *parent, al_rad *rad)
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
    /* A later stage of the same edit carries its light on. */
    if (stage > AL_STAGE_LIGHT && live->lit && live->lit->generation == in->generation)
        s->light = al_snapshot_ref(live->lit);
    __atomic_add_fetch(&in->refs, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&live->lock);
    al_snapshot *old = live->current;
    live->current = al_snapshot_ref(s);
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
    } else {
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

static bool stale(al_live *live)
{
    return __atomic_load_n(&live->cancel, __ATOMIC_ACQUIRE) != 0;
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
    snprintf(live->error_message, sizeof live->error_message, "%s",
             diags && diags->count ? diags->items[diags->count - 1].message
                                   : al_status_message(status));
    pthread_mutex_unlock(&live->lock);
}

/* The visibility stages: a copy of the base world that shares its blocks, with visibility
 * up to LEVEL; the portals of blocks the last snapshot with portals shares come from it.
 * Returns the snapshot published (a reference for the caller), or NULL. */
static al_snapshot *run_vis(al_live *live, live_input *in, al_stage stage, al_pvs_level level)
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
    al_status st = al_world_update(live->base->world, in->input, &co, &w, &diags);
    if (st == AL_OK)
        st = al_world_build_vis_with(w, in->input,
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
        s = publish(live, w, in, stage, al_clock_ms_since(t0), NULL, NULL);
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

/* The light stage has finished with generation IN (its corrections made, and its shots to
 * the residual), or given up on it for a newer one (DONE false). */
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

static bool light_progress(void *context, const al_rad_stats *stats)
{
    (void) stats;
    return !stale(context);
}

/* The light stage: the last light carried to PORTALS's world and published, then its
 * bounced light corrected and shot on; a newer input stops it between steps (the next
 * light then starts from this one, or from the one it corrects). Returns false if it was
 * stopped or failed. */
static bool run_light(al_live *live, live_input *in, al_snapshot *portals)
{
    uint64_t t0 = al_clock_ns();
    al_rad *prev = live->lit ? live->lit->rad : NULL;
    al_rad *rad = NULL;
    al_diag_list diags = {0};
    al_status st = al_rad_update(prev, portals->world, in->input, &live->options.rad, &rad, &diags);
    if (st != AL_OK) {
        fail(live, st, &diags);
        al_diag_list_clear(&diags);
        return false;
    }
    al_diag_list_clear(&diags);
    /* The lights a new solver (or new lights) need first: the first corrected frame. */
    al_rad_stats rs;
    al_rad_get_stats(rad, &rs);
    if (!rs.direct_done) al_rad_step(rad, rs.lights - rs.lights_shot);
    al_rad_get_stats(rad, &rs);
    const al_rad *base = al_rad_base(rad);
    al_snapshot *keep = NULL;
    if (base && live->lit && base == live->lit->rad) keep = live->lit;
    else if (base && live->lit && live->lit->light_base && base == live->lit->light_base->rad)
        keep = live->lit->light_base;
    if (base && !keep) {
        /* Cannot happen: al_rad_update reads PREV or PREV's base only. */
        al_rad_destroy(rad);
        fail(live, AL_ERR_INVALID_ARGUMENT, NULL);
        return false;
    }
    __atomic_store_n(&live->light_progress[0], rs.corrections_left, __ATOMIC_RELEASE);
    __atomic_store_n(&live->light_progress[1], 0, __ATOMIC_RELEASE);
    al_snapshot *s = publish(live, portals->world, in, AL_STAGE_LIGHT, al_clock_ms_since(t0),
                             portals, rad);
    if (!s) {
        fail(live, AL_ERR_NOMEM, NULL);
        return false;
    }
    s->light_base = al_snapshot_ref(keep);
    pthread_mutex_lock(&live->lock);
    live->status[AL_STAGE_LIGHT].corrections = rs.corrections_left;
    pthread_mutex_unlock(&live->lock);
    al_snapshot_release(live->lit);
    live->lit = s;
    /* The bounced light: corrected first, then shot on. */
    while (rs.corrections_left > 0 && !stale(live)) {
        if (al_rad_step(rad, 1) == 0) break;
        al_rad_get_stats(rad, &rs);
        __atomic_store_n(&live->light_progress[1],
                         __atomic_load_n(&live->light_progress[0], __ATOMIC_RELAXED) -
                             rs.corrections_left,
                         __ATOMIC_RELEASE);
    }
    if (rs.corrections_left == 0) {
        al_snapshot_release(s->light_base);
        s->light_base = NULL;
        pthread_mutex_lock(&live->lock);
        live->status[AL_STAGE_LIGHT].last_corrected_ms = al_clock_ms_since(in->submitted_ns);
        pthread_mutex_unlock(&live->lock);
    }
    if (!stale(live) && live->options.light_residual > 0)
        al_rad_run(rad, live->options.light_residual, 0, light_progress, live);
    bool done = !stale(live) && rs.corrections_left == 0;
    light_done(live, in, done);
    return done;
}

static void run(al_live *live, live_input *in)
{
    uint64_t t0 = al_clock_ns();
    al_compile_options co = live->options.compile;
    co.no_vis = true;
    al_world *w = NULL;
    al_diag_list diags = {0};
    al_status st = live->base ? al_world_update(live->base->world, in->input, &co, &w, &diags)
                              : al_world_compile(in->input, &co, &w, &diags);
    if (st != AL_OK) {
        fail(live, st, &diags);
        al_diag_list_clear(&diags);
        return;
    }
    al_diag_list_clear(&diags);
    al_snapshot *s = publish(live, w, in, AL_STAGE_COLLISION, al_clock_ms_since(t0), NULL, NULL);
    if (!s) {
        fail(live, AL_ERR_NOMEM, NULL);
        return;
    }
    al_snapshot_release(live->base);
    live->base = s;
    if (!stage_on(live, AL_STAGE_PORTALS)) return;
    if (stale(live)) {
        note_cancelled(live, AL_STAGE_PORTALS);
        return;
    }
    /* The collision stage leaves the vis and light trees of the blocks it built to the
     * portals stage. Its world, which has them, becomes the base: the next edit and the
     * PVS stage share them rather than build them again. */
    al_snapshot *portals = run_vis(live, in, AL_STAGE_PORTALS, AL_PVS_COARSE);
    if (!portals) return;
    al_snapshot_release(live->base);
    live->base = portals;
    if (stage_on(live, AL_STAGE_LIGHT)) {
        if (stale(live)) {
            note_cancelled(live, AL_STAGE_LIGHT);
            return;
        }
        if (!run_light(live, in, portals)) return;
    }
    if (!stage_on(live, AL_STAGE_PVS)) return;
    if (stale(live)) {
        note_cancelled(live, AL_STAGE_PVS);
        return;
    }
    al_snapshot_release(run_vis(live, in, AL_STAGE_PVS, AL_PVS_TIGHT));
}

static void *engine_main(void *arg)
{
    al_live *live = arg;
    pthread_mutex_lock(&live->lock);
    for (;;) {
        while (!live->pending && !live->quit) pthread_cond_wait(&live->wake, &live->lock);
        if (live->quit) break;
        live_input *in = live->pending;
        live->pending = NULL;
        __atomic_store_n(&live->cancel, 0, __ATOMIC_RELEASE);
        live->busy = true;
        live->status[AL_STAGE_COLLISION].state = AL_STAGE_RUNNING;
        for (int s = AL_STAGE_PORTALS; s < AL_STAGE_COUNT; s++)
            if (stage_on(live, (al_stage) s)) live->status[s].state = AL_STAGE_PENDING;
        pthread_mutex_unlock(&live->lock);
        run(live, in);
        input_release(in);
        pthread_mutex_lock(&live->lock);
        live->busy = false;
        pthread_cond_broadcast(&live->published);
    }
    pthread_mutex_unlock(&live->lock);
    return NULL;
}

al_live *al_live_create(const al_live_options *options)
{
    al_live *live = calloc(1, sizeof *live);
    if (!live) return NULL;
    if (options) live->options = *options;
    pthread_mutex_init(&live->lock, NULL);
    pthread_cond_init(&live->wake, NULL);
    pthread_cond_init(&live->published, NULL);
    if (pthread_create(&live->thread, NULL, engine_main, live) != 0) {
        pthread_cond_destroy(&live->wake);
        pthread_cond_destroy(&live->published);
        pthread_mutex_destroy(&live->lock);
        free(live);
        return NULL;
    }
    return live;
}

void al_live_destroy(al_live *live)
{
    if (!live) return;
    pthread_mutex_lock(&live->lock);
    live->quit = true;
    __atomic_store_n(&live->cancel, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&live->wake);
    pthread_mutex_unlock(&live->lock);
    pthread_join(live->thread, NULL);
    input_release(live->pending);
    al_snapshot_release(live->current);
    al_snapshot_release(live->base);
    al_snapshot_release(live->lit);
    al_snapshot_release(live->seen);
    al_snapshot_release(live->seen_tight);
    pthread_cond_destroy(&live->wake);
    pthread_cond_destroy(&live->published);
    pthread_mutex_destroy(&live->lock);
    free(live);
}

uint64_t al_live_submit(al_live *live, const al_input *input)
{
    live_input *in = calloc(1, sizeof *in);
    if (!in) return 0;
    if (!(in->input = al_input_clone(input))) {
        free(in);
        return 0;
    }
    in->refs = 1;
    in->submitted_ns = al_clock_ns();
    pthread_mutex_lock(&live->lock);
    in->generation = ++live->generation;
    live_input *dropped = live->pending;
    live->pending = in;
    __atomic_store_n(&live->cancel, 1, __ATOMIC_RELEASE);
    for (int s = 0; s < AL_STAGE_COUNT; s++)
        if (stage_on(live, (al_stage) s) && live->status[s].state != AL_STAGE_RUNNING)
            live->status[s].state = AL_STAGE_PENDING;
    pthread_cond_signal(&live->wake);
    uint64_t generation = in->generation;
    pthread_mutex_unlock(&live->lock);
    input_release(dropped);
    return generation;
}

al_snapshot *al_live_current(al_live *live)
{
    pthread_mutex_lock(&live->lock);
    al_snapshot *s = al_snapshot_ref(live->current);
    pthread_mutex_unlock(&live->lock);
    return s;
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

bool al_live_wait(al_live *live, uint64_t generation, al_stage stage, double timeout_s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double whole = (double) until.tv_sec + until.tv_nsec * 1e-9 + timeout_s;
    until.tv_sec = (time_t) whole;
    until.tv_nsec = (long) ((whole - (double) until.tv_sec) * 1e9);
    pthread_mutex_lock(&live->lock);
    bool done;
    for (;;) {
        bool on = stage >= 0 && stage < AL_STAGE_COUNT && stage_on(live, stage);
        const al_stage_status *st = on ? &live->status[stage] : NULL;
        done = on && (stage == AL_STAGE_LIGHT ? st->done_generation : st->generation) >= generation;
        bool idle = !live->busy && !live->pending;
        if (done || !on || (idle && live->generation >= generation)) break;
        if (pthread_cond_timedwait(&live->published, &live->lock, &until) != 0) break;
    }
    pthread_mutex_unlock(&live->lock);
    return done;
}
