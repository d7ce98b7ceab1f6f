/* AlliumLightmap: one copy of a solver's lightmap atlas as the views upload it.
 *
 * The live engine's solver keeps refining the light after its snapshot is published, and
 * copies its lightmaps at a steady rate (al_live_current_lightmap); each copy the views
 * get is one of these: the atlas already converted to the renderer's RGBA8 texels (on the
 * engine's thread, so the main thread only uploads), the solver's statistics when it was
 * taken, and the generation of the solver's snapshot. A scene whose lightmap places are
 * that solver's (AlliumSnapshot.light_generation) draws it. Immutable once made, reference
 * counted (atomically): a view keeps the one it uploaded until it uploads the next.
 */
#pragma once

#include "allium-snapshot.h"

G_BEGIN_DECLS

#define ALLIUM_TYPE_LIGHTMAP (allium_lightmap_get_type())

typedef struct _AlliumLightmap {
    guint64 light_generation; /* of the light snapshot whose solver it copies */
    guint64 serial;           /* the engine's copy number: later copies have larger ones */
    int width, height;        /* the atlas, in texels */
    guint8 *rgba;             /* owned: width * height * 4 bytes (al_lightmap_to_rgba8) */
    al_rad_stats stats;       /* the solver's, as the copy shows it */
} AlliumLightmap;

GType allium_lightmap_get_type(void) G_GNUC_CONST;

/* The engine's copy COPY, converted. Any thread. NULL when memory ran out. */
AlliumLightmap *allium_lightmap_new(const al_live_lightmap *copy);

AlliumLightmap *allium_lightmap_ref(AlliumLightmap *lightmap);

/* NULL is a no-op. */
void allium_lightmap_unref(AlliumLightmap *lightmap);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumLightmap, allium_lightmap_unref)

G_END_DECLS
