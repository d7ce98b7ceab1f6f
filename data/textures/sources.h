/* A map's texture sources: the WADs its worldspawn "wad" key names, found as Quake mappers'
 * tools find them.
 *
 * The key is a list separated by ';'. Each entry is tried as written (absolute, or relative
 * to the map's folder), then by its file name alone (editors write "C:\quake\id1\gfx\
 * base.wad" or "/gfx/base.wad") in the map's folder and in each search folder in turn. The
 * first source that holds a name gives the texture (as in Quake's compilers, the WAD named
 * first wins). A WAD that cannot be found or read is a warning naming it and where it was
 * looked for; the others are still used.
 */
#ifndef AL_TEXTURE_SOURCES_H
#define AL_TEXTURE_SOURCES_H

#include "al-input.h"
#include "wad.h"

typedef struct al_texture_sources {
    al_wad **wads;
    char **paths; /* where each WAD was found */
    int count;
} al_texture_sources;

/* Opens the WADs of WAD_KEY (may be NULL or empty: no sources) for the map in MAP_FOLDER
 * (may be NULL), searching SEARCH (SEARCH_COUNT folders) too; PALETTE as al_wad_read takes
 * it. Warnings go to DIAGS. Returns AL_OK (sources may be empty) or AL_ERR_NOMEM. */
al_status al_texture_sources_open(al_texture_sources *out, const char *wad_key,
                                  const char *map_folder, const char *const *search,
                                  int search_count, const uint8_t *palette, al_diag_list *diags);

/* The texture NAME from the first source that has it (its index in *SOURCE if not NULL),
 * or NULL. */
const al_texture *al_texture_sources_find(const al_texture_sources *sources, const char *name,
                                          int *source);

/* Gives each of the COUNT MATERIALS whose colour is still its name's default (nobody chose
 * one: al_material_colour_is_default) its texture's average colour from SOURCES, as
 * Quake's light tools take a texture's average as the colour its faces reflect: the
 * radiosity then reflects that colour (al_material_desc.colour), so coloured walls tint
 * the light they bounce. Returns how many materials took one. */
int al_texture_sources_colour_materials(const al_texture_sources *sources,
                                        al_material_desc *materials, int count);

void al_texture_sources_close(al_texture_sources *sources);

#endif
