/* AlliumLightmap: one copy of a snapshot's lightmap atlas as the views upload it.
 *
 * The radiosity solver of a snapshot (AlliumSnapshot.rad) keeps refining after the
 * snapshot is published; each copy of its lightmaps it hands to the views is one of
 * these: the atlas already converted to the renderer's RGBA8 texels (on the worker, so
 * the main thread only uploads), the solver's statistics when it was taken, and a
 * reference to the snapshot whose scene it fits. Immutable once made, reference counted
 * (atomically): a view keeps the one it uploaded until it uploads the next.
 */
#pragma once

#include "allium-snapshot.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_LIGHTMAP (allium_lightmap_get_type())

typedef struct _AlliumLightmap {
    AlliumSnapshot *snapshot; /* owned reference: its scene has this atlas's coordinates */
    int width, height;        /* the atlas, in texels */
    guint8 *rgba;             /* owned: width * height * 4 bytes (al_lightmap_to_rgba8) */
    al_rad_stats stats;       /* the solver's, as the copy shows it */
} AlliumLightmap;

GType allium_lightmap_get_type(void) G_GNUC_CONST;

/* Copies the lightmaps of SNAPSHOT's solver as they are now (al_rad_snapshot: it does
 * not stop a running solver). Any thread. NULL without a solver or when memory ran out. */
AlliumLightmap *allium_lightmap_new(AlliumSnapshot *snapshot);

AlliumLightmap *allium_lightmap_ref(AlliumLightmap *lightmap);

/* NULL is a no-op. */
void allium_lightmap_unref(AlliumLightmap *lightmap);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumLightmap, allium_lightmap_unref)

G_END_DECLS
