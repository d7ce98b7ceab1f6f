/* AlliumLightJob: the radiosity solver of a published snapshot, run on a worker thread.
 *
 * The compile job shoots the direct light before its snapshot is published, so a map
 * shows lit at once; this job then keeps shooting (al_rad_run) until the residual is
 * ALLIUM_LIGHT_RESIDUAL, and hands a new AlliumLightmap to its owner on the main context
 * at most every ALLIUM_LIGHT_INTERVAL_MS, and once more when it is done. A newer compile
 * cancels it (from the main thread); it then returns after the shot it is in and
 * delivers nothing more.
 *
 * Ownership: the job holds a reference to its snapshot, so the solver, the world and the
 * input it points to outlive the run whoever else drops the snapshot; the owner (the
 * document) is held weakly and only touched on the main thread. Reference counted
 * (atomically): the worker and every delivery on its way hold one.
 */
#pragma once

#include "allium-lightmap.h"

G_BEGIN_DECLS

/* The solver stops when the unshot light is 1% of the emitted light. */
#define ALLIUM_LIGHT_RESIDUAL 0.01
/* At most four lightmaps a second reach the views while it runs. */
#define ALLIUM_LIGHT_INTERVAL_MS 250

typedef struct _AlliumLightJob AlliumLightJob;

/* Receives each lightmap, on the main context, while OWNER (the object given to
 * allium_light_job_new) is alive and the job is not cancelled. */
typedef void (*AlliumLightFunc)(GObject *owner, AlliumLightJob *job, AlliumLightmap *lightmap);

/* What a job does: RESET the solver first (back to before the first shot), then shoot
 * SHOTS times, or (SHOTS 0) until the residual is at most RESIDUAL (0: not at all). The
 * corrections of an edit (al_rad_update) come before any shot; CORRECTIONS_ONLY makes
 * them all it does (the solver is paused). */
typedef struct {
    gboolean reset;
    gint64 shots;
    double residual;
    gboolean corrections_only;
} AlliumLightPlan;

/* A job for SNAPSHOT (which must have a solver) delivering to FUNC with OWNER, following
 * PLAN (NULL: shoot until ALLIUM_LIGHT_RESIDUAL). Main thread. */
AlliumLightJob *allium_light_job_new(AlliumSnapshot *snapshot, GObject *owner,
                                     AlliumLightFunc func, const AlliumLightPlan *plan);

AlliumLightJob *allium_light_job_ref(AlliumLightJob *job);

/* NULL is a no-op. Any thread. */
void allium_light_job_unref(AlliumLightJob *job);

/* Shoots until the residual target is met or the job is cancelled. Worker thread only
 * (it never touches GTK or the owner). */
void allium_light_job_run(AlliumLightJob *job);

/* Stops the run after its current shot and drops every delivery not yet made. Any
 * thread; repeated calls are harmless. */
void allium_light_job_cancel(AlliumLightJob *job);

gboolean allium_light_job_is_cancelled(AlliumLightJob *job);
/* Stops the run after its current shot, like cancel, but the state it stopped in is still
 * delivered (a pause). Any thread. */
void allium_light_job_pause(AlliumLightJob *job);

/* The snapshot being lit (borrowed from the job). */
AlliumSnapshot *allium_light_job_get_snapshot(AlliumLightJob *job);

/* After a run that was not cancelled: the solver's state as it ended (al_rad_save),
 * handed over (free() it). FALSE when there is none. */
gboolean allium_light_job_take_state(AlliumLightJob *job, void **bytes, size_t *size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumLightJob, allium_light_job_unref)

G_END_DECLS
