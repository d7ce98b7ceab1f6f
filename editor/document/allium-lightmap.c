/* AlliumLightmap (see allium-lightmap.h): a copy of a solver's lightmaps, converted for
 * upload.
 *
 * Workload: one copy with each light snapshot and then at most four a second while the
 * solver runs; lq-e3m4's atlas (about 1024 x 700) takes a few milliseconds to convert.
 */
#include "allium-config.h"

#include "allium-lightmap.h"

G_DEFINE_BOXED_TYPE(AlliumLightmap, allium_lightmap, allium_lightmap_ref, allium_lightmap_unref)

static void clear_lightmap(gpointer data)
{
    AlliumLightmap *lightmap = data;
    g_free(lightmap->rgba);
}

AlliumLightmap *allium_lightmap_new(const al_live_lightmap *copy)
{
    g_return_val_if_fail(copy != NULL, NULL);
    const al_rad_lightmap *map = al_live_lightmap_texels(copy);
    gsize bytes = (gsize) map->width * (gsize) map->height * 4;
    guint8 *rgba = bytes ? g_try_malloc(bytes) : NULL;
    if (!rgba) return NULL;
    al_lightmap_to_rgba8(map, rgba);
    AlliumLightmap *lightmap = g_atomic_rc_box_new0(AlliumLightmap);
    lightmap->light_generation = al_snapshot_generation(al_live_lightmap_snapshot(copy));
    lightmap->serial = al_live_lightmap_serial(copy);
    lightmap->width = map->width;
    lightmap->height = map->height;
    lightmap->rgba = rgba;
    lightmap->stats = *al_live_lightmap_stats(copy);
    /* The copy, not the solver a moment later, is what the texels show. */
    lightmap->stats.shots = map->shots;
    lightmap->stats.residual = map->residual;
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
