/* A map's texture sources (see sources.h). */
#include "sources.h"

#include "materials/material-defaults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* PATH joined to FOLDER, malloc'd. */
static char *join(const char *folder, const char *path)
{
    size_t n = strlen(folder) + strlen(path) + 2;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s/%s", folder, path);
    return out;
}

/* Where ENTRY is found (malloc'd), or NULL; the places looked at go into TRIED. */
static char *locate(const char *entry, const char *map_folder, const char *const *search,
                    int search_count, char *tried, size_t tried_size)
{
    /* The file name alone: after the last '/' or '\'. */
    const char *base = entry;
    for (const char *c = entry; *c; c++)
        if (*c == '/' || *c == '\\') base = c + 1;
    const char *folders[66];
    int n = 0;
    if (map_folder) folders[n++] = map_folder;
    for (int i = 0; i < search_count && n < 64; i++) folders[n++] = search[i];
    size_t used = (size_t) snprintf(tried, tried_size, "%s", entry);
    if (entry[0] == '/' && is_file(entry)) return strdup(entry);
    for (int pass = 0; pass < 2; pass++)
        for (int f = 0; f < n; f++) {
            /* First the entry as written, relative to the map; then its name in each folder. */
            if (pass == 0 && (f > 0 || entry[0] == '/' || strchr(entry, '\\'))) continue;
            char *path = join(folders[f], pass == 0 ? entry : base);
            if (!path) return NULL;
            if (is_file(path)) return path;
            if (used < tried_size)
                used += (size_t) snprintf(tried + used, tried_size - used, ", %s", path);
            free(path);
        }
    return NULL;
}

al_status al_texture_sources_open(al_texture_sources *out, const char *wad_key,
                                  const char *map_folder, const char *const *search,
                                  int search_count, const uint8_t *palette, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    if (!wad_key || !wad_key[0]) return AL_OK;
    char *list = strdup(wad_key);
    size_t cap = strlen(wad_key) / 2 + 2;
    out->wads = calloc(cap, sizeof *out->wads);
    out->paths = calloc(cap, sizeof *out->paths);
    if (!list || !out->wads || !out->paths) {
        free(list);
        al_texture_sources_close(out);
        return AL_ERR_NOMEM;
    }
    for (char *entry = list, *next; entry; entry = next) {
        next = strchr(entry, ';');
        if (next) *next++ = '\0';
        while (*entry == ' ' || *entry == '\t') entry++;
        size_t len = strlen(entry);
        while (len > 0 && (entry[len - 1] == ' ' || entry[len - 1] == '\t')) entry[--len] = '\0';
        if (!entry[0] || (size_t) out->count >= cap) continue;
        char tried[600];
        char *path = locate(entry, map_folder, search, search_count, tried, sizeof tried);
        if (!path) {
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, -1, -1,
                        "the wad \"%s\" was not found (looked for: %s); its textures are "
                        "drawn as missing",
                        entry, tried);
            continue;
        }
        al_wad *wad = NULL;
        al_status st = al_wad_load(path, palette, &wad, diags);
        if (st == AL_ERR_NOMEM) {
            free(path);
            free(list);
            al_texture_sources_close(out);
            return st;
        }
        if (st != AL_OK) {
            free(path);
            continue;
        }
        out->wads[out->count] = wad;
        out->paths[out->count++] = path;
    }
    free(list);
    return AL_OK;
}

const al_texture *al_texture_sources_find(const al_texture_sources *sources, const char *name,
                                          int *source)
{
    for (int i = 0; i < sources->count; i++) {
        const al_texture *t = al_wad_find(sources->wads[i], name);
        if (t) {
            if (source) *source = i;
            return t;
        }
    }
    return NULL;
}

int al_texture_sources_colour_materials(const al_texture_sources *sources,
                                        al_material_desc *materials, int count)
{
    int coloured = 0;
    for (int m = 0; m < count; m++) {
        al_material_desc *md = &materials[m];
        if (!md->name || !al_material_colour_is_default(md->name, md->colour)) continue;
        const al_texture *t = al_texture_sources_find(sources, md->name, NULL);
        if (!t) continue;
        al_material_reflected_colour(md->name, md->colour, t->average, md->colour);
        coloured++;
    }
    return coloured;
}

void al_texture_sources_close(al_texture_sources *sources)
{
    for (int i = 0; i < sources->count; i++) {
        al_wad_free(sources->wads[i]);
        free(sources->paths[i]);
    }
    free(sources->wads);
    free(sources->paths);
    memset(sources, 0, sizeof *sources);
}
