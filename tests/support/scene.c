/* Test scenes (see scene.h). */
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool compile(scene *s, const scene_options *options)
{
    if (al_map_input_build(s->map, &s->input, &s->diags) != AL_OK) return false;
    if (options && options->hulls) {
        s->input.input.hulls = options->hulls;
        s->input.input.hull_count = options->hull_count;
    }
    if (options && options->block_size > 0) s->input.input.block_size = options->block_size;
    al_compile_options co = {.threads = options ? options->threads : 0,
                             .pvs = options && options->pvs ? options->pvs_level : AL_PVS_NONE};
    return al_world_compile(&s->input.input, &co, &s->world, &s->diags) == AL_OK;
}

bool scene_load_text(scene *s, const char *text, size_t length, const scene_options *options)
{
    memset(s, 0, sizeof *s);
    if (!text || al_map_read_buffer(text, length, &s->map, &s->diags) != AL_OK) return false;
    return compile(s, options);
}

bool scene_load_file(scene *s, const char *path, const scene_options *options)
{
    memset(s, 0, sizeof *s);
    if (al_map_read_file(path, &s->map, &s->diags) != AL_OK) return false;
    return compile(s, options);
}

void scene_free(scene *s)
{
    al_world_destroy(s->world);
    al_map_input_free(&s->input);
    al_map_destroy(s->map);
    al_diag_list_clear(&s->diags);
    memset(s, 0, sizeof *s);
}

int scene_hull(const scene *s, const char *name)
{
    int h = al_world_find_hull(s->world, name);
    if (h < 0) {
        fprintf(stderr, "test bug: no hull named %s\n", name);
        abort();
    }
    return h;
}

const char *scene_shared_maps(void)
{
    const char *dir = getenv("ALLIUM_SHARED_MAPS");
#ifdef ALLIUM_SHARED_MAPS
    if (!dir) dir = ALLIUM_SHARED_MAPS;
#endif
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return dir;
}

const char *scene_shared_map(const char *name)
{
    static char path[4096];
    const char *dir = scene_shared_maps();
    if (!dir) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 ? path : NULL;
}
