/* A parsed .map as the compiler's input.
 *
 * Materials are collected by name with default flags (materials/material-defaults.h).
 * Worldspawn keys set map settings:
 *   "allium_hulls"      hull list, e.g. "point 0 0 0 0 0 0; stand -16 -16 -24 16 16 32"
 *                       (hull 0 must be the point hull)
 *   "allium_block_size" block size of the compiled grid in units (default 1024)
 *   "_allium_material_NAME"  the light of material NAME: colour, reflectance and emission
 *                       (material-keys.h)
 * A bad setting is reported and the default used.
 *
 * The input borrows strings from the al_map: keep the map alive while the input is used.
 */
#ifndef AL_MAP_INPUT_H
#define AL_MAP_INPUT_H

#include "al-input.h"
#include "map.h"

typedef struct al_map_input {
    al_input input; /* points into the arrays below */
    al_material_desc *materials;
    al_entity_desc *entities;
    al_property *properties;
    al_brush_desc *brushes;
    al_face_desc *faces;
    al_hull_desc hulls[AL_MAX_HULLS];
} al_map_input;

/* Fills OUT from MAP. Returns AL_OK or AL_ERR_NOMEM. Setting problems go to DIAGS. */
al_status al_map_input_build(const al_map *map, al_map_input *out, al_diag_list *diags);

/* Frees OUT's arrays. NULL is a no-op. */
void al_map_input_free(al_map_input *in);

#endif
