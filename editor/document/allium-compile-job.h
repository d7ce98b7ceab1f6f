/* One compile of a map document, prepared on the main thread and run on a worker.
 *
 * The document (SQLite) belongs to the main thread, so everything the worker needs is
 * copied into the job first: the compiler input and, when the document's cache holds a
 * compile of this very input, its bytes, and a reference to the current snapshot. The
 * worker loads the cached world and rebuilds its visibility, or updates the current
 * snapshot's world (al_world_update: only the blocks the edit touched are built), or
 * compiles in full, makes the radiosity solver and shoots the direct light,
 * builds the brush polygons and the renderer's scene, and leaves a finished snapshot in
 * the job with its first lightmap; bytes to store in the cache come back too, since only
 * the main thread may write the document. The rest of the lighting is a light job's
 * (allium-light-job.h), once the snapshot is published.
 */
#pragma once

#include "allium-lightmap.h"

G_BEGIN_DECLS

/* The cache key's salt: the compile options that change the result. The same text as
 * the command-line tools use, so that a map compiled by allium-compile opens instantly. */
#define ALLIUM_COMPILE_SALT "split 0 0"

/* The salt of the radiosity state's key: the solver options the editor uses (the
 * defaults). The state also carries a fingerprint of its patches (al_rad_restore). */
#define ALLIUM_LIGHT_SALT "split 0 0 light luxel 0"

typedef struct _AlliumCompileJob {
    /* In, filled on the main thread. */
    guint64 generation;
    al_doc_input input;      /* owned until run moves it into the snapshot */
    al_diag_list input_diags;
    al_compile_options options;
    char key[33];            /* cache key of input; "" when the cache is not used */
    void *cached;            /* owned: world bytes from the cache, or NULL */
    size_t cached_size;
    char light_key[33];      /* cache key of the input's radiosity state */
    void *cached_light;      /* owned: the radiosity state from the cache, or NULL */
    size_t cached_light_size;
    gint64 requested_us;     /* g_get_monotonic_time() of the request */
    AlliumSnapshot *previous; /* owned reference: the current snapshot, whose world an
                               * incremental compile starts from and whose light the new
                               * solver carries on (al_rad_update); NULL: compile in full */
    AlliumSnapshot *previous_base; /* owned reference: previous's light_base, taken with it
                               * on the main thread (the solver may start from that one's
                               * light instead), or NULL */
    gboolean store_now;      /* serialize a fresh world for the cache at once (the first
                              * compile); else the document stores it once edits pause */
    gboolean light_later;    /* publish before shooting the light sources (the first compile
                              * of an opened map: the map shows at once, lit moments later
                              * by the light job); else the snapshot arrives lit */

    /* Out, filled on the worker. */
    AlliumSnapshot *snapshot; /* owned */
    AlliumLightmap *lightmap; /* owned: the direct light, or NULL when the map is not lit */
    void *store;              /* owned: world bytes to put into the cache, or NULL */
    size_t store_size;
    gboolean cache_damaged;   /* the cached bytes did not load: compiled anew */
} AlliumCompileJob;

AlliumCompileJob *allium_compile_job_new(guint64 generation);

/* Frees the job and whatever it still owns. NULL is a no-op. */
void allium_compile_job_free(AlliumCompileJob *job);

/* Runs the job: compile thread only (it never touches GTK or the document). Always
 * leaves a snapshot in JOB->snapshot; a failed compile leaves one without a world, whose
 * diagnostics say why. */
void allium_compile_job_run(AlliumCompileJob *job);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumCompileJob, allium_compile_job_free)

G_END_DECLS
