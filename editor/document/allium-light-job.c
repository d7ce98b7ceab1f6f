/* The worker's half of lighting a map (see allium-light-job.h).
 *
 * Workload: one run per compile, seconds on small maps and minutes on large ones
 * (e1m1 reaches a residual of 1% in about 100 s on two cores), always cancelled by the
 * next edit's compile. The solver calls back every few milliseconds; a lightmap is
 * copied and posted only when the interval has passed and the previous one has been
 * delivered, so a busy main thread never gets a queue of stale copies.
 */
#include "allium-config.h"

#include "allium-light-job.h"

struct _AlliumLightJob {
    /* owned references */
    AlliumSnapshot *snapshot; /* its rad is what runs */
    GMainContext *context;    /* where deliveries run: the main thread's */
    GWeakRef owner;           /* the document; only dereferenced on the main context */

    AlliumLightFunc func;
    AlliumLightPlan plan;
    gint cancelled;          /* atomic */
    gint paused;             /* atomic */
    gint in_flight;          /* atomic: a lightmap is on its way to the main context */
    gint64 last_post_us;     /* worker only */
    int64_t last_post_shots; /* worker only: the shots the last posted copy showed */
    void *state;             /* the solver's state after a run that was not cancelled
                                (al_rad_save), for the map's cache; NULL until then */
    size_t state_size;
};

typedef struct {
    AlliumLightJob *job;      /* owned reference */
    AlliumLightmap *lightmap; /* owned reference */
} Delivery;

/* --- static helpers ------------------------------------------------------------------ */

static void delivery_free(gpointer data)
{
    Delivery *d = data;
    allium_lightmap_unref(d->lightmap);
    allium_light_job_unref(d->job);
    g_free(d);
}

/* Main context. */
static gboolean deliver_cb(gpointer data)
{
    Delivery *d = data;
    g_atomic_int_set(&d->job->in_flight, 0);
    GObject *owner = g_weak_ref_get(&d->job->owner);
    if (owner && !allium_light_job_is_cancelled(d->job)) d->job->func(owner, d->job, d->lightmap);
    g_clear_object(&owner);
    return G_SOURCE_REMOVE;
}

/* Worker: copies the lightmaps and posts them to the main context. */
static void post_lightmap(AlliumLightJob *job)
{
    AlliumLightmap *lightmap = allium_lightmap_new(job->snapshot);
    if (!lightmap) return; /* out of memory: the next one may fit */
    job->last_post_us = g_get_monotonic_time();
    job->last_post_shots = lightmap->stats.shots;
    g_atomic_int_set(&job->in_flight, 1);
    Delivery *d = g_new(Delivery, 1);
    d->job = allium_light_job_ref(job);
    d->lightmap = lightmap;
    g_main_context_invoke_full(job->context, G_PRIORITY_DEFAULT, deliver_cb, d, delivery_free);
}

/* Worker, from al_rad_run every few milliseconds. */
static bool progress_cb(void *context, const al_rad_stats *stats)
{
    AlliumLightJob *job = context;
    (void) stats;
    if (allium_light_job_is_cancelled(job) || g_atomic_int_get(&job->paused)) return false;
    gint64 now = g_get_monotonic_time();
    if (!g_atomic_int_get(&job->in_flight) &&
        now - job->last_post_us >= ALLIUM_LIGHT_INTERVAL_MS * (gint64) 1000)
        post_lightmap(job);
    return true;
}

/* --- public API ---------------------------------------------------------------------- */

AlliumLightJob *allium_light_job_new(AlliumSnapshot *snapshot, GObject *owner, AlliumLightFunc func,
                                     const AlliumLightPlan *plan)
{
    g_return_val_if_fail(snapshot != NULL && snapshot->rad != NULL, NULL);
    g_return_val_if_fail(G_IS_OBJECT(owner) && func != NULL, NULL);
    AlliumLightJob *job = g_atomic_rc_box_new0(AlliumLightJob);
    job->snapshot = allium_snapshot_ref(snapshot);
    job->context = g_main_context_ref(g_main_context_default());
    g_weak_ref_init(&job->owner, owner);
    job->func = func;
    job->plan = plan ? *plan : (AlliumLightPlan){.residual = ALLIUM_LIGHT_RESIDUAL};
    /* The compile job delivered the direct light just now. */
    job->last_post_us = g_get_monotonic_time();
    job->last_post_shots = -1;
    return job;
}

AlliumLightJob *allium_light_job_ref(AlliumLightJob *job)
{
    return g_atomic_rc_box_acquire(job);
}

static void clear_job(gpointer data)
{
    AlliumLightJob *job = data;
    g_weak_ref_clear(&job->owner);
    g_main_context_unref(job->context);
    free(job->state);
    /* May be the last reference: the solver goes with it, after its run returned. */
    allium_snapshot_unref(job->snapshot);
}

void allium_light_job_unref(AlliumLightJob *job)
{
    if (job) g_atomic_rc_box_release_full(job, clear_job);
}

/* Shoots the plan's number of shots, a few at a time so that progress is posted as
 * al_rad_run does; stops early when paused or cancelled (al_rad_cancel makes a step
 * return). */
static void step_shots(AlliumLightJob *job, al_rad *rad)
{
    gint64 left = job->plan.shots;
    while (left > 0 && progress_cb(job, NULL)) {
        gint64 done = al_rad_step(rad, MIN(left, 4));
        if (done == 0) break; /* converged, or stopped by a pause or cancel */
        left -= done;
    }
}

/* The corrections an edit left (al_rad_update), and no shot. */
static void correct_only(AlliumLightJob *job, al_rad *rad)
{
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    while (st.corrections_left > 0 && progress_cb(job, NULL)) {
        if (al_rad_step(rad, 1) == 0) break; /* stopped by a pause or cancel */
        al_rad_get_stats(rad, &st);
    }
}

void allium_light_job_run(AlliumLightJob *job)
{
    g_return_if_fail(job != NULL);
    /* al_rad_run clears a cancel that came before it started: the flag covers that. */
    if (allium_light_job_is_cancelled(job)) return;
    al_rad *rad = job->snapshot->rad;
    gint64 t0 = g_get_monotonic_time();
    if (job->plan.reset) al_rad_reset(rad);
    al_rad_stats first;
    al_rad_get_stats(rad, &first);
    if (!job->plan.reset && job->plan.shots == 0 && first.shots == 0 &&
        first.lights > first.dome_lights &&
        !g_atomic_int_get(&job->paused)) {
        /* A snapshot published before its light (an opened map): the light sources but
         * the sky dome's suns first, shown at once, as a compile's own direct light is. */
        al_rad_step(rad, first.lights - first.dome_lights);
        if (!allium_light_job_is_cancelled(job)) post_lightmap(job);
    }
    if (job->plan.corrections_only) correct_only(job, rad);
    else if (job->plan.shots > 0) step_shots(job, rad);
    else if (job->plan.residual > 0 && !g_atomic_int_get(&job->paused))
        al_rad_run(rad, job->plan.residual, 0, progress_cb, job);
    al_rad_stats stats;
    al_rad_get_stats(rad, &stats);
    g_debug("light %" G_GUINT64_FORMAT ": %s after %.0f ms, %" G_GINT64_FORMAT
            " shots, residual %.4f",
            job->snapshot->generation, allium_light_job_is_cancelled(job) ? "cancelled" : "done",
            (double) (g_get_monotonic_time() - t0) / 1000.0, (gint64) stats.shots, stats.residual);
    /* The last copy goes out even if one is still on its way: it is the one that stays.
     * A pause delivers it too; only a cancel (an edit made it stale) drops it. */
    if (!allium_light_job_is_cancelled(job) && (stats.shots != job->last_post_shots || job->plan.reset))
        post_lightmap(job);
    /* What the map's cache keeps, so that the map opens lit as it is now: when the run
     * changed the light. A cancelled run's light is of a state already replaced. */
    if (!allium_light_job_is_cancelled(job) && (stats.shots != first.shots || job->plan.reset) &&
        al_rad_save(rad, &job->state, &job->state_size) != AL_OK) {
        job->state = NULL;
        job->state_size = 0;
    }
}

gboolean allium_light_job_take_state(AlliumLightJob *job, void **bytes, size_t *size)
{
    g_return_val_if_fail(job != NULL, FALSE);
    *bytes = g_steal_pointer(&job->state);
    *size = job->state_size;
    return *bytes != NULL;
}

void allium_light_job_cancel(AlliumLightJob *job)
{
    g_return_if_fail(job != NULL);
    g_atomic_int_set(&job->cancelled, 1);
    al_rad_cancel(job->snapshot->rad);
}

void allium_light_job_pause(AlliumLightJob *job)
{
    g_return_if_fail(job != NULL);
    g_atomic_int_set(&job->paused, 1);
    al_rad_cancel(job->snapshot->rad);
}

gboolean allium_light_job_is_cancelled(AlliumLightJob *job)
{
    return g_atomic_int_get(&job->cancelled) != 0;
}

AlliumSnapshot *allium_light_job_get_snapshot(AlliumLightJob *job)
{
    return job->snapshot;
}
