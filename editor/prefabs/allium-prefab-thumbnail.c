/* A prefab's 3D thumbnail (allium-prefab-thumbnail.h). Workload: a few dozen brushes, one
 * 160x120 frame; the context is made and destroyed per thumbnail, which costs a few
 * milliseconds next to Mesa's shader compile. */
#include "allium-config.h"

#include "allium-prefab-thumbnail.h"

#include "allium-document.h"
#include "al-offscreen.h"
#include "al-render.h"
#include "mapfile/map-input.h"
#include "prefabs/prefab.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

char *allium_prefab_thumbnail_path(const char *map_path)
{
    g_return_val_if_fail(map_path != NULL, NULL);
    if (g_str_has_suffix(map_path, ".map"))
        return g_strdup_printf("%.*s.png", (int) (strlen(map_path) - 4), map_path);
    return g_strdup_printf("%s.png", map_path);
}

gboolean allium_prefab_thumbnail_render(const char *map_path, const char *png_path, GError **error)
{
    g_autofree char *name = g_filename_display_basename(map_path);
    al_diag_list diags = {0};
    al_map *map = NULL;
    al_map_input input = {0};
    al_scene *scene = NULL;
    al_offscreen *off = NULL;
    al_renderer *renderer = NULL;
    char *temp = NULL;
    gboolean ok = FALSE;
    al_status st = al_prefab_read(map_path, &map, &diags);
    if (st == AL_OK) st = al_map_input_build(map, &input, &diags);
    if (st != AL_OK) {
        allium_set_status_error(error, st, &diags, name);
        goto done;
    }
    al_scene_desc desc = {.input = &input.input};
    if (al_scene_build(&desc, &scene) != AL_OK) {
        allium_set_status_error(error, AL_ERR_NOMEM, NULL, name);
        goto done;
    }
    char reason[256] = "";
    off = al_offscreen_create(ALLIUM_PREFAB_THUMBNAIL_WIDTH, ALLIUM_PREFAB_THUMBNAIL_HEIGHT, reason,
                              sizeof reason);
    if (off) renderer = al_renderer_create(reason, sizeof reason);
    if (!renderer) {
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_IO,
                    _("%s: no thumbnail, the offscreen drawing failed: %s"), name, reason);
        goto done;
    }
    al_renderer_set_scene(renderer, scene);
    al_camera cam;
    al_camera_init(&cam, AL_VIEW_3D);
    cam.width = ALLIUM_PREFAB_THUMBNAIL_WIDTH;
    cam.height = ALLIUM_PREFAB_THUMBNAIL_HEIGHT;
    cam.yaw = 45;
    cam.pitch = -30;
    double mins[3], maxs[3];
    if (al_scene_bounds(scene, mins, maxs)) al_camera_frame(&cam, mins, maxs);
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = AL_OVERLAY_ENTITIES;
    al_draw_stats stats;
    al_renderer_draw(renderer, &cam, &opt, &stats);
    temp = g_strdup_printf("%s.writing", png_path);
    if (!al_offscreen_save_png(off, temp) || g_rename(temp, png_path) != 0) {
        g_unlink(temp);
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_IO, _("%s: cannot be written"), png_path);
        goto done;
    }
    ok = TRUE;
done:
    g_free(temp);
    al_renderer_destroy(renderer);
    al_offscreen_destroy(off);
    al_scene_destroy(scene);
    al_map_input_free(&input);
    al_map_destroy(map);
    al_diag_list_clear(&diags);
    return ok;
}
