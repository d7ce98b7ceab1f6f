/* AlliumLightmap (see allium-lightmap.h): a copy of a solver's lightmaps, converted for
 * upload.
 *
 * Workload: one copy after the direct light and then at most four a second while the
 * solver runs; lq-e3m4's atlas (1024 x 660) takes a few milliseconds to copy and convert.
 */
#include "allium-config.h"

#include "allium-lightmap.h"

G_DEFINE_BOXED_TYPE(AlliumLightmap, allium_lightmap, allium_lightmap_ref, allium_lightmap_unref)

static void clear_lightmap(gpointer data)
{
    AlliumLightmap *lightmap = data;
    g_free(lightmap->rgba);
    allium_snapshot_unref(lightmap->snapshot);
}

AlliumLightmap *allium_lightmap_new(AlliumSnapshot *snapshot)
{
    g_return_val_if_fail(snapshot != NULL, NULL);
    if (!snapshot->rad) return NULL;
    al_rad_lightmap map;
    if (al_rad_snapshot(snapshot->rad, &map) != AL_OK) return NULL;
    gsize bytes = (gsize) map.width * (gsize) map.height * 4;
    guint8 *rgba = bytes ? g_try_malloc(bytes) : NULL;
    if (!rgba) {
        al_rad_lightmap_free(&map);
        return NULL;
    }
    al_lightmap_to_rgba8(&map, rgba);

    AlliumLightmap *lightmap = g_atomic_rc_box_new0(AlliumLightmap);
    lightmap->snapshot = allium_snapshot_ref(snapshot);
    lightmap->width = map.width;
    lightmap->height = map.height;
    lightmap->rgba = rgba;
    al_rad_get_stats(snapshot->rad, &lightmap->stats);
    /* The copy, not the solver a moment later, is what the texels show. */
    lightmap->stats.shots = map.shots;
    lightmap->stats.residual = map.residual;
    al_rad_lightmap_free(&map);
    return lightmap;
}

AlliumLightmap *allium_lightmap_ref(AlliumLightmap *lightmap)
{
    return g_atomic_rc_box_acquire(lightmap);
}

void allium_lightmap_unref(AlliumLightmap *lightmap)
{
    if (lightmap) g_atomic_rc_box_release_full(lightmap, clear_lightmap);
}
