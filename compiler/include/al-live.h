/* Live compilation: a background thread that keeps the compiled world current while the
 * map is edited.
 *
 * The editor (or a test, or allium-bench edit) submits each new version of the map as an
 * al_input. The engine's thread compiles it in stages, in priority order, and publishes an
 * immutable, reference-counted snapshot after each:
 *
 *   collision  al_world_update from the previous world: only the blocks the edit touched
 *              are built again, the rest are shared (al-world.h). Published without
 *              visibility.
 *   portals    portals, leak and the coarse PVS (the flood pass, conservative), on a copy
 *              of that world that shares all its blocks. A leaking map gets no PVS (every
 *              leaf sees every other) until the leak is fixed.
 *   light      (with options.light) radiosity on the portals world: the last light
 *              snapshot's solver carried over to the edited map (al_rad_update), published
 *              as soon as its direct light is corrected (the first corrected frame); then
 *              its bounced light is corrected and, with light_residual, shot on until the
 *              residual is that small. Before the tight PVS, which takes seconds on a large
 *              map: the light needs only the coarse one.
 *   pvs        the tight PVS (portal flow), again on a sharing copy.
 *
 * Every submission gets the next edit generation. A newer submission cancels stale work at
 * the next check (between stages, and at every step of the portal flow), and the engine
 * goes on with the newest input, skipping the ones in between. Readers take the current
 * snapshot at any time without waiting for the compiler (a mutex guards only a pointer
 * swap), and a snapshot stays valid until its last reader releases it.
 *
 * Portals and PVS sets the edit cannot have changed are taken from the last snapshot with
 * portals (the tight pass: from the last tight one); see al_vis_options.previous.
 */
#ifndef AL_LIVE_H
#define AL_LIVE_H

#include "al-rad.h"
#include "al-world.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_live al_live;
typedef struct al_snapshot al_snapshot;

typedef enum al_stage {
    AL_STAGE_COLLISION,
    AL_STAGE_PORTALS,
    AL_STAGE_LIGHT,
    AL_STAGE_PVS,
    AL_STAGE_COUNT
} al_stage;

typedef enum al_stage_state {
    AL_STAGE_IDLE,    /* nothing submitted yet */
    AL_STAGE_CURRENT, /* its result for the newest generation is published */
    AL_STAGE_PENDING, /* waiting for an earlier stage */
    AL_STAGE_RUNNING,
} al_stage_state;

typedef struct al_stage_status {
    al_stage_state state;
    uint64_t generation;  /* of its last published result, 0 if none */
    double last_ms;       /* from the submission to the publication of that result */
    double last_work_ms;  /* the stage's own work for it */
    int64_t runs;         /* results published */
    int64_t cancelled;    /* runs given up for a newer generation */
    int blocks_built;     /* collision: blocks built for its last result (the rest shared) */
    int subcells_built;   /* collision: their sub-cells built (the rest copied) */
    double progress;      /* of the newest generation: 1 once its result is published (the
                             light: once its work is done); while the tight PVS runs, the
                             share of its portal flows done; while the light is corrected,
                             the share of the corrections made; 0 for the other stages until
                             they publish */
    /* The light stage goes on after it publishes: */
    uint64_t done_generation; /* of its last result whose corrections (and shots to
                                 light_residual) were all made */
    double last_corrected_ms; /* from the submission until its corrections were made */
    double last_done_ms;  /* from the submission until then */
    int64_t corrections;  /* panels its last result had to correct */
} al_stage_status;

typedef struct al_live_options {
    al_compile_options compile; /* threads, split options; no_vis and pvs are the engine's */
    al_pvs_level pvs;           /* the last PVS stage to run: AL_PVS_TIGHT (0) runs the
                                   tight PVS stage, AL_PVS_COARSE stops after portals (and
                                   the light), AL_PVS_NONE after collision */
    bool light;                 /* run the light stage (not with AL_PVS_NONE) */
    al_rad_options rad;         /* the light's solver */
    double light_residual;      /* after its corrections, shoot until the residual is this
                                   small; 0: no further shot (the light sources are shot
                                   in any case) */
    /* Called on the engine's thread after each publication (may be NULL). It must not call
     * back into the engine except al_live_current and al_snapshot_*. */
    void (*published)(void *user, al_stage stage, uint64_t generation);
    void *user;
} al_live_options;

/* Starts an engine and its thread; NULL if memory or the thread could not be had. OPTIONS
 * may be NULL. */
al_live *al_live_create(const al_live_options *options);

/* Cancels the work under way, waits for the thread, and releases the engine's snapshots
 * (readers keep theirs). NULL is a no-op. */
void al_live_destroy(al_live *live);

/* Submits a new version of the map and returns its generation (1, 2, ...), or 0 if memory
 * ran out. INPUT is copied; the caller may change or free it at once. */
uint64_t al_live_submit(al_live *live, const al_input *input);

/* The newest published snapshot, with a reference the caller must release; NULL before
 * the first one. Never waits for the compiler. */
al_snapshot *al_live_current(al_live *live);

/* Status of every stage, into OUT[AL_STAGE_COUNT]. */
void al_live_status(al_live *live, al_stage_status out[AL_STAGE_COUNT]);

/* Waits until STAGE has published a result for GENERATION or a later one (the light:
 * and made its corrections and shots), or until the engine has nothing left to do for
 * STAGE (a stage the options leave out, or a failed compile), or TIMEOUT_S seconds pass.
 * True if the result is there. */
bool al_live_wait(al_live *live, uint64_t generation, al_stage stage, double timeout_s);

/* Diagnostics of the last failed compile (a compile that failed publishes nothing). */
al_status al_live_last_error(al_live *live, char *message, size_t size);

al_snapshot *al_snapshot_ref(al_snapshot *s);
void al_snapshot_release(al_snapshot *s); /* NULL is a no-op */

/* The compiled world (immutable: any number of threads may query it). */
const al_world *al_snapshot_world(const al_snapshot *s);

uint64_t al_snapshot_generation(const al_snapshot *s);

/* The stage that made it: AL_STAGE_COLLISION (no visibility: every vis query answers "no
 * leaves"), AL_STAGE_PORTALS (portals, leak and the coarse PVS), AL_STAGE_LIGHT (the
 * portals world with its light) or AL_STAGE_PVS (tight). */
al_stage al_snapshot_stage(const al_snapshot *s);

/* The radiosity solver of a light snapshot, and of the PVS snapshot after it; NULL for the
 * others. Its world is the light snapshot's (the portals world), not the PVS one. The
 * engine steps it until the light stage has finished with its generation (al_live_wait);
 * until then take only copies and stats (al_rad_snapshot, al_rad_get_stats). After that
 * one thread at a time may step it, and the engine carries its light to the next edit. */
al_rad *al_snapshot_rad(const al_snapshot *s);

/* The input it was compiled from (owned by the snapshot). */
const al_input *al_snapshot_input(const al_snapshot *s);

const char *al_stage_name(al_stage stage);

/* A deep copy of IN (arrays and strings) in one allocation, freed with free(); NULL if
 * memory runs out. */
al_input *al_input_clone(const al_input *in);

#endif
