/* Live compilation: a background thread that keeps the compiled world current while the
 * map is edited.
 *
 * The engine keeps the map itself, by the ids its caller gives brushes, entities and
 * materials (the editor's are the document's rows). An edit hands it only what changed
 * (al_live_apply: brushes and entities with their new content, or their removal); opening
 * a map hands it the whole map once. Every change gets the next edit generation. The
 * engine's thread turns the newest map into an al_input and compiles it in stages, in
 * priority order, publishing an immutable, reference-counted snapshot after each:
 *
 *   input      the map as it stands, not compiled (no world): published only when there
 *              is no world to update from (the first compile, a new hull list or block
 *              size) or when the compile failed, so that the map can be drawn at once.
 *   collision  al_world_update from the previous world: only the blocks the edit touched
 *              are built again, the rest are shared (al-world.h). Published without
 *              visibility. The first compile may instead load the world from the cache.
 *   portals    portals, leak and the coarse PVS (the flood pass, conservative), on a copy
 *              of that world that shares all its blocks. A leaking map gets no PVS (every
 *              leaf sees every other) until the leak is fixed.
 *   light      (with options.light) radiosity on the portals world: the last light
 *              snapshot's solver carried over to the edited map (al_rad_update), its light
 *              sources' direct light corrected, published with a copy of its lightmaps
 *              (the first corrected frame). Then, unless the solver is paused, its bounced
 *              light is corrected (al_rad_update's corrections).
 *   pvs        the tight PVS (portal flow), again on a sharing copy.
 *
 * Then, while no newer change waits, the engine goes on with the light as the light
 * controls say (al_live_light_*): by default it shoots until the residual is
 * options.light_residual. While it shoots it makes a copy of the lightmaps every
 * options.lightmap_interval_ms (al_live_current_lightmap), and one when it stops.
 *
 * A newer change cancels stale work at the next check (between stages, at every step of
 * the portal flow and between shots), and the engine goes on with the newest map, skipping
 * the generations in between. Readers take the current snapshot at any time without
 * waiting for the compiler (a mutex guards only a pointer swap), and a snapshot stays
 * valid until its last reader releases it.
 *
 * Portals and PVS sets the edit cannot have changed are taken from the last snapshot with
 * portals (the tight pass: from the last tight one); see al_vis_options.previous.
 *
 * Cache. With options.cache, the first compile asks it for a world compiled from the very
 * same input (al_input_key with cache.world_salt) and a solver state for it (light_salt).
 * The engine hands it a world compiled whole as soon as its stages are done, an edited one
 * once changes have paused for cache.store_delay_ms, and the solver's state whenever the
 * light work stops. The cache is the caller's: the engine knows nothing of where the bytes
 * are kept.
 */
#ifndef AL_LIVE_H
#define AL_LIVE_H

#include "al-rad.h"
#include "al-world.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct al_live al_live;
typedef struct al_snapshot al_snapshot;
typedef struct al_live_lightmap al_live_lightmap;

typedef enum al_stage {
    AL_STAGE_INPUT,
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
    double last_wait_ms;  /* collision: how long its last change waited for the engine to
                             take it (the work in progress finishing or giving way) */
    int blocks_built;     /* collision: blocks built for its last result (the rest shared) */
    int subcells_built;   /* collision: their sub-cells built (the rest copied) */
    double progress;      /* of the newest generation: 1 once its result is published (the
                             light: once its corrections are made); while the tight PVS
                             runs, the share of its portal flows done; while the light is
                             corrected, the share of the corrections made; 0 for the other
                             stages until they publish */
    /* The light stage goes on after it publishes: */
    uint64_t done_generation; /* of its last result whose corrections were all made */
    double last_corrected_ms; /* from the submission until its corrections were made */
    double last_refined_ms;   /* with extra samples: from the submission until the luxels it
                                 first lit once were lit with every sample (a new copy of the
                                 lightmaps shows them); 0 when it lit none so */
    double last_done_ms;  /* from the submission until then */
    double last_settled_ms; /* from the submission until the light work the controls ask
                               for was finished (a run: the residual reached) */
    int64_t corrections;  /* panels its last result had to correct */
} al_stage_status;

/* --- the cache of compiled results ----------------------------------------------------- */

typedef struct al_live_cache {
    /* The engine's threads (one at a time). The bytes kept under KIND ("world" or "light") and KEY
     * (32 hex digits), malloc'd into *BYTES (the engine frees them); false if there are none. */
    bool (*get)(void *user, const char *kind, const char *key, void **bytes, size_t *size);
    /* The engine's threads (one at a time). Keep BYTES (malloc'd: the callee owns them from now on,
     * and frees them) under KIND and KEY. */
    void (*put)(void *user, const char *kind, const char *key, void *bytes, size_t size);
    void *user;
    const char *world_salt; /* al_input_key's salt for worlds (the compile options) */
    const char *light_salt; /* and for solver states (the solver options) */
    int store_delay_ms;     /* a world is stored once changes pause this long; 0: 2000 */
} al_live_cache;

/* --- light controls -------------------------------------------------------------------- */

typedef enum al_light_mode {
    AL_LIGHT_RUN,    /* after each edit: correct its light, then shoot to the target */
    AL_LIGHT_MANUAL, /* after each edit: correct its light; shots only when stepped */
    AL_LIGHT_PAUSED, /* no work on the light at all (the direct light of lights an edit
                        moved is still corrected as the solver is carried over) */
} al_light_mode;

typedef struct al_live_options {
    al_compile_options compile; /* threads, split options; no_vis and pvs are the engine's */
    al_pvs_level pvs;           /* the last PVS stage to run: AL_PVS_TIGHT (0) runs the
                                   tight PVS stage, AL_PVS_COARSE stops after portals (and
                                   the light), AL_PVS_NONE after collision */
    bool light;                 /* run the light stage (not with AL_PVS_NONE) */
    al_rad_options rad;         /* the light's solver */
    double light_residual;      /* AL_LIGHT_RUN shoots until the residual is this small;
                                   0: only the light sources */
    int lightmap_interval_ms;   /* copies of the lightmaps while shooting: at most one in
                                   this long; 0: 250 */
    int preview_settle_ms;      /* how long the stages after a preview's collision wait for
                                   a newer change (al_live_change.preview); 0: 60 */
    al_live_cache cache;        /* no get: no cache */
    /* Called after each publication (may be NULL), on the engine's thread or one of its
     * background threads (never on two background threads at once). It must not call
     * back into the engine except al_live_current, al_live_current_lightmap,
     * al_live_status and al_snapshot_* / al_live_lightmap_*. */
    void (*published)(void *user, al_stage stage, uint64_t generation);
    /* Called on each of the engine's three threads as it starts (may be NULL). The first
     * builds only changes' collision, the second an edit's light up to its first corrected
     * frame (BACKGROUND false for both: a designer waits for them); BACKGROUND is the one
     * that runs everything else (portals, the light's other corrections and its shots, the
     * tight PVS, the cache's store), one job at a time with the second. The caller may
     * lower the background thread's priority (the editor does, so that drawing and input
     * keep their share of a machine with few cores, while what an edit is waited for keeps
     * theirs; on Linux a thread's priority can be lowered but never raised back). */
    void (*thread_started)(void *user, bool background);
    /* Called after each new lightmap copy (may be NULL); the same threads and rules. */
    void (*lightmap)(void *user, uint64_t generation);
    /* Called when the light work has done what the controls asked (the target reached,
     * the steps shot, or nothing to do while paused), whether or not it made a new copy
     * (may be NULL): al_live_light_busy has turned false. The same threads and rules. */
    void (*light_settled)(void *user);
    void *user;
} al_live_options;

/* Starts an engine and its thread; NULL if memory or the thread could not be had. OPTIONS
 * may be NULL. */
al_live *al_live_create(const al_live_options *options);

/* Cancels the work under way, waits for the threads, hands the cache what it has not got
 * yet (the world of edits made within store_delay_ms, the light shot since it was last
 * kept unless an edit's correction of it is pending; on the calling thread), and releases
 * the engine's snapshots (readers keep theirs). NULL is a no-op. */
void al_live_destroy(al_live *live);

/* --- the map by ids: what an edit changed --------------------------------------------- */

typedef struct al_live_face {
    double points[3][3]; /* the plane, as al_face_desc.points */
    int64_t material;    /* the id of one of the map's materials, or -1 */
    float luxel_size;    /* as al_face_desc.luxel_size */
    double texture_axes[2][4]; /* as al_face_desc.texture_axes */
} al_live_face;

typedef struct al_live_brush {
    int64_t id;
    bool removed;      /* the brush is gone: the fields below are not read */
    int64_t entity;    /* the id of its entity */
    double order;      /* an entity's brushes are in the order of (order, id) */
    const al_live_face *faces;
    int32_t face_count;
} al_live_brush;

typedef struct al_live_entity {
    int64_t id;
    bool removed;      /* the entity is gone, and so are its brushes */
    double order;      /* entities are in the order of (order, id): the world first */
    const char *classname;
    const al_property *properties;
    int32_t property_count;
} al_live_entity;

typedef struct al_live_change {
    bool replace; /* the whole map: everything the change does not list is removed, and
                     what it lists is as if added (an unchanged brush keeps its version) */
    const al_live_entity *entities;
    int32_t entity_count;
    const al_live_brush *brushes;
    int32_t brush_count;
    /* The map's materials, all of them, when SET_MATERIALS (faces name them by id). */
    bool set_materials;
    const al_material_desc *materials;
    const int64_t *material_ids;
    int32_t material_count;
    bool set_hulls; /* the hull list (hull 0 the point hull; 0 hulls: the defaults) */
    const al_hull_desc *hulls;
    int32_t hull_count;
    bool set_block_size;
    double block_size; /* 0: the default */
    /* A drag's preview: a newer change is expected within a frame or two, so after the
     * collision the later stages wait al_live_options.preview_settle_ms for one and are
     * skipped if it comes (they follow once the drag rests). */
    bool preview;
} al_live_change;

/* Applies CHANGE to the engine's map and returns the generation whose snapshots include it
 * (1, 2, ...), or 0 if memory ran out (the change is then not applied). CHANGE is copied;
 * the caller may change or free it at once. Any thread; calls are applied in order. A
 * brush naming an entity the map does not have is left out of the compile. */
uint64_t al_live_apply(al_live *live, const al_live_change *change);

/* Replaces the whole map with INPUT (ids: its indices) and returns the generation, or 0 if
 * memory ran out. INPUT is copied. For tools and tests that hold whole inputs. */
uint64_t al_live_submit(al_live *live, const al_input *input);

/* --- results ---------------------------------------------------------------------------- */

/* The newest published snapshot, with a reference the caller must release; NULL before
 * the first one. Never waits for the compiler. */
al_snapshot *al_live_current(al_live *live);

/* Status of every stage, into OUT[AL_STAGE_COUNT]. */
void al_live_status(al_live *live, al_stage_status out[AL_STAGE_COUNT]);

/* Waits until STAGE has published a result for GENERATION or a later one (the light:
 * and made its corrections, unless paused), or until the engine has nothing left to do
 * for STAGE (a stage the options leave out, or a failed compile), or TIMEOUT_S seconds
 * pass. True if the result is there. AL_STAGE_INPUT: until the engine has taken the
 * generation (its map is in the next snapshot published). */
bool al_live_wait(al_live *live, uint64_t generation, al_stage stage, double timeout_s);

/* Waits until the engine has nothing to do (no change waiting, the stages done and the
 * light work as the controls ask it finished) or TIMEOUT_S seconds pass; true if idle. */
bool al_live_wait_idle(al_live *live, double timeout_s);

/* Diagnostics of the last failed compile (a compile that failed publishes an input
 * snapshot that says why, and keeps the last world). */
al_status al_live_last_error(al_live *live, char *message, size_t size);

al_snapshot *al_snapshot_ref(al_snapshot *s);
void al_snapshot_release(al_snapshot *s); /* NULL is a no-op */

/* The compiled world (immutable: any number of threads may query it); NULL for an input
 * snapshot. */
const al_world *al_snapshot_world(const al_snapshot *s);

uint64_t al_snapshot_generation(const al_snapshot *s);

/* The stage that made it: AL_STAGE_INPUT (no world), AL_STAGE_COLLISION (no visibility:
 * every vis query answers "no leaves"), AL_STAGE_PORTALS (portals, leak and the coarse
 * PVS), AL_STAGE_LIGHT (the portals world with its light) or AL_STAGE_PVS (tight). */
al_stage al_snapshot_stage(const al_snapshot *s);

/* Whether its world came from the cache rather than a compile, and (from the light stage
 * on) whether its solver's light began as a state the cache held (restored when the map
 * opened, and carried across the edits since). */
bool al_snapshot_from_cache(const al_snapshot *s);
bool al_snapshot_light_from_cache(const al_snapshot *s);

/* The status of its compile (AL_OK but for an input snapshot of a failed compile) and its
 * diagnostics: the world's, the light sources' (from the light stage on) and, for a failed
 * compile, why it failed. */
al_status al_snapshot_status(const al_snapshot *s);
const al_diag_list *al_snapshot_diagnostics(const al_snapshot *s);

/* The radiosity solver of a light snapshot, and of the PVS snapshot after it; NULL for the
 * others. Its world is the light snapshot's (the portals world), not the PVS one. Only the
 * engine steps it; take copies (al_rad_snapshot, or the engine's: al_live_current_lightmap)
 * and stats (al_rad_get_stats). */
al_rad *al_snapshot_rad(const al_snapshot *s);

/* The copy of the lightmaps a light snapshot was published with (its direct light
 * corrected); NULL for the others. Owned by the snapshot. */
const al_rad_lightmap *al_snapshot_lightmap(const al_snapshot *s);

/* The input it was compiled from (owned by the snapshot), and what the engine knows of
 * each of its brushes and entities: its id, and the generation in which its content (its
 * faces and entity, or its class and properties) last changed. A brush changes in no other
 * way, so its drawing, say, may be kept while its version stays. */
const al_input *al_snapshot_input(const al_snapshot *s);
int64_t al_snapshot_brush_id(const al_snapshot *s, int brush);
int64_t al_snapshot_entity_id(const al_snapshot *s, int entity);
uint64_t al_snapshot_brush_version(const al_snapshot *s, int brush);
uint64_t al_snapshot_entity_version(const al_snapshot *s, int entity);
/* The generation in which the materials (their flags, colours or light) last changed. */
uint64_t al_snapshot_materials_version(const al_snapshot *s);
/* Whole arrays, input order (borrowed from the snapshot). */
const int64_t *al_snapshot_brush_ids(const al_snapshot *s);
const int64_t *al_snapshot_entity_ids(const al_snapshot *s);

/* The input index of the brush (or entity) with id ID, or -1. O(log n). */
int al_snapshot_find_brush(const al_snapshot *s, int64_t id);
int al_snapshot_find_entity(const al_snapshot *s, int64_t id);

const char *al_stage_name(al_stage stage);

/* --- light controls -------------------------------------------------------------------- */

/* Shoots until the residual is RESIDUAL (> 0), and after every later edit too. */
void al_live_light_run(al_live *live, double residual);
/* No work on the light until run or stepped: not even an edit's corrections. */
void al_live_light_pause(al_live *live);
/* Shoots SHOTS more (corrections first), then waits; later edits are corrected. */
void al_live_light_step(al_live *live, int64_t shots);
/* Back to before the first shot (dark), then waits as after a step. */
void al_live_light_reset(al_live *live);
al_light_mode al_live_light_mode(al_live *live, double *residual);
/* Whether the engine is still working on the light: correcting an edit, or shooting as the
 * controls ask. */
bool al_live_light_busy(al_live *live);

/* The newest copy of the lightmaps, with a reference the caller must release; NULL before
 * the first light snapshot. Its snapshot (the light snapshot whose solver it is of, so
 * its atlas is that solver's) stays alive with it. */
al_live_lightmap *al_live_current_lightmap(al_live *live);
al_live_lightmap *al_live_lightmap_ref(al_live_lightmap *l);
void al_live_lightmap_release(al_live_lightmap *l); /* NULL is a no-op */
const al_rad_lightmap *al_live_lightmap_texels(const al_live_lightmap *l);
const al_rad_stats *al_live_lightmap_stats(const al_live_lightmap *l);
const al_snapshot *al_live_lightmap_snapshot(const al_live_lightmap *l);
/* Copies are numbered from 1 in the order made. */
uint64_t al_live_lightmap_serial(const al_live_lightmap *l);

#endif
