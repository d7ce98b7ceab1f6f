/* AlliumSnapshot: one compiled state of a map document, immutable once published.
 *
 * A snapshot is what every view draws and picks from: the compiler input the document
 * produced, the polygons of every brush, the compiled world, its radiosity solver and the
 * renderer's scene (with the solver's lightmap coordinates). It is built on the compile
 * thread and handed to the main thread whole; after that nobody changes it, so any thread
 * may read it, with one exception: the solver goes on shooting on a light job's worker
 * (allium-light-job.h), and reaches the views only as AlliumLightmap copies. It is
 * reference counted (atomically): a view keeps the snapshot it gave its renderer alive
 * until it gives it the next one, so a new compile never frees a scene that a renderer
 * still borrows, and a light job keeps the one it lights, so a solver never outlives the
 * world and input it points to.
 */
#pragma once

#include <glib-object.h>

#include "al-faces.h"
#include "al-render.h"
#include "al-world.h"
#include "store/document.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_SNAPSHOT (allium_snapshot_get_type())

typedef struct _AlliumSnapshot {
    guint64 generation;   /* the document edit generation this was compiled for */
    al_doc_input input;   /* owned: the compiler input, with document row ids */
    al_face_polys polys;  /* owned: polygons of every brush, for drawing and picking */
    al_world *world;      /* owned; NULL when the compile failed (see diags) */
    al_rad *rad;          /* owned, points at world and input; direct light shot. NULL
                           * without a world, without light sources, or out of memory.
                           * Only a light job steps it; others may take copies and stats */
    int lights;           /* light sources the solver found; -1: no solver was made */
    struct _AlliumSnapshot *light_base; /* owned reference, main thread only: the snapshot
                           * whose solver rad's light was carried from, while rad still
                           * corrects it (al_rad_base); NULL once the corrections are done,
                           * or when rad was lit from nothing */
    al_scene *scene;      /* owned, borrows world, lightmap coordinates from rad; NULL
                           * only when memory ran out */
    al_status status;     /* of the compile */
    al_diag_list diags;   /* owned: input and compile diagnostics */
    gboolean from_cache;  /* the world came from the document's cache */
    double ms_compile;    /* compiling, or loading from the cache and building vis */
    double ms_light;      /* the solver's patches and the direct light */
    double ms_total;      /* from the request to the snapshot being ready */
    int blocks, blocks_built; /* of all models; the rest were shared with the previous
                               * snapshot's world (0, 0 without a world) */
    char cache_key[33];   /* the input's key in the document's cache; "" when not cached */
    char light_key[33];   /* its radiosity state's key; "" when not cached */
    gboolean light_from_cache; /* the solver went on from the state the cache held */
    /* Document row id -> input index + 1, keys point into input's id arrays. */
    GHashTable *brush_rows;
    GHashTable *entity_rows;
} AlliumSnapshot;

GType allium_snapshot_get_type(void) G_GNUC_CONST;

/* A new, empty snapshot owning INPUT (moved in: the caller's copy is zeroed). */
AlliumSnapshot *allium_snapshot_new(al_doc_input *input, guint64 generation);

AlliumSnapshot *allium_snapshot_ref(AlliumSnapshot *snapshot);

/* Drops a reference; the last one frees the scene and the solver before the world they
 * point to. Any thread. NULL is a no-op. */
void allium_snapshot_unref(AlliumSnapshot *snapshot);

/* Fills the row id tables. Any thread; called once while building. */
void allium_snapshot_index_rows(AlliumSnapshot *snapshot);

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
