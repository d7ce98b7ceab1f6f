/* AlliumSnapshot: one compiled state of a map document as the editor shows it, immutable
 * once published.
 *
 * A snapshot is what every view draws and picks from: a published snapshot of the live
 * engine (al-live.h: the map as compiler input with the document's row ids, the compiled
 * world, its radiosity solver) and the renderer's scene for it. Snapshots are made on the
 * engine's thread, one per stage the engine publishes, the scene of each built from the
 * one before (only the meshes of brushes that changed are built), and handed to the main
 * thread whole; after that nobody changes them, so any thread may read them. The solver
 * goes on shooting on the engine's thread and reaches the views only as AlliumLightmap
 * copies. Reference counted (atomically): a view keeps the snapshot it gave its renderer
 * alive until it gives it the next, so a newer snapshot never frees a scene that a
 * renderer still borrows.
 */
#pragma once

#include <glib-object.h>

#include "al-live.h"
#include "allium-definition-set.h"
#include "al-render.h"
#include "al-world.h"
#include "store/document.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_SNAPSHOT (allium_snapshot_get_type())

typedef struct _AlliumSnapshot {
    al_snapshot *engine;  /* owned reference; NULL when the document could not be read */
    guint64 generation;   /* the edit generation it shows */
    al_stage stage;       /* the engine's stage that made it */
    /* The compiler input with the document's row ids (borrowed from ENGINE: storage is
     * NULL; material_colours NULL, the materials' own colours are the document's). */
    al_doc_input input;
    const al_world *world; /* NULL before the first compile or when it failed (see diags) */
    al_rad *rad;          /* the solver, from the light stage on; NULL before, without light
                           * sources, or without a world. Only the engine steps it; take
                           * copies and stats */
    int lights;           /* light sources the solver found; -1: no solver */
    al_scene *scene;      /* owned, borrows world; NULL only when memory ran out */
    guint64 light_generation; /* the generation of the solver whose atlas the scene's
                               * lightmap places are (kept from the snapshot before for
                               * faces that did not change); 0: none */
    al_status status;     /* of the compile */
    al_diag_list diags;   /* owned: the document's and the compile's diagnostics */
    AlliumDefinitionSet *definitions; /* owned: the entity definitions it was checked
                                       * against and its entities drawn with (NULL: none) */
    gboolean from_cache;  /* the world came from the document's cache */
    gboolean light_from_cache; /* the solver went on from a state the cache held */
    double ms_total;      /* from the edit to the engine's publication */
    double collision_ms;  /* from the edit to its collision (every stage of it) */
    double collision_wait_ms; /* of that, waiting for the engine to take the edit */
    double ms_work;       /* the stage's own work */
    gint64 published_us;  /* monotonic: when the engine's thread left it for the main thread */
    gint64 delivered_us;  /* monotonic: when the main thread took it (0: not yet) */
    int blocks, blocks_built; /* of all models; the rest were shared with the previous
                               * world by the edit's collision (0, 0 without a world) */
} AlliumSnapshot;

GType allium_snapshot_get_type(void) G_GNUC_CONST;

/* A snapshot of ENGINE (a reference is taken; NULL: an empty one for a document that
 * could not be read) showing generation GENERATION, without a scene yet. DOC_DIAGS (may be
 * NULL) are the document's own problems, shown with the compile's. Any thread. */
AlliumSnapshot *allium_snapshot_new(al_snapshot *engine, const al_diag_list *doc_diags);

AlliumSnapshot *allium_snapshot_ref(AlliumSnapshot *snapshot);

/* Drops a reference; the last one frees the scene before the engine snapshot it points
 * into. Any thread. NULL is a no-op. */
void allium_snapshot_unref(AlliumSnapshot *snapshot);

/* Builds the snapshot's scene from PREVIOUS's (may be NULL: built whole): the meshes of
 * brushes and entities whose content did not change are taken over. False if memory ran
 * out (the snapshot then has no scene). Any thread; called once while making it. */
gboolean allium_snapshot_build_scene(AlliumSnapshot *snapshot, const AlliumSnapshot *previous);

/* Input index of the brush (or entity) with document row id ROW, or -1. */
int allium_snapshot_brush_index(const AlliumSnapshot *snapshot, gint64 row);
int allium_snapshot_entity_index(const AlliumSnapshot *snapshot, gint64 row);

/* Value of property KEY of input entity ENTITY, or NULL. */
const char *allium_snapshot_entity_value(const AlliumSnapshot *snapshot, int entity,
                                         const char *key);

/* The first entity of class CLASSNAME, or -1. */
int allium_snapshot_find_entity(const AlliumSnapshot *snapshot, const char *classname);

/* The map's player start (the first info_player_start, else info_player_deathmatch): its
 * origin and the way it faces, YAW and PITCH in degrees (Quake's "angle", where -1 and -2
 * look straight up and down). FALSE when there is none with a readable origin. */
gboolean allium_snapshot_player_start(const AlliumSnapshot *snapshot, double origin[3],
                                      double *yaw, double *pitch);

/* Counts of the snapshot's diagnostics: errors and warnings. */
void allium_snapshot_count_diags(const AlliumSnapshot *snapshot, int *errors, int *warnings);

/* A one-line summary for the status bar ("Compiled in 42 ms · 2 invalid brushes · leak
 * from info_player_start"), translated; free with g_free. */
char *allium_snapshot_describe(const AlliumSnapshot *snapshot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumSnapshot, allium_snapshot_unref)

G_END_DECLS
