/* Default material properties derived from a material's name.
 *
 * Quake maps name textures, not materials; Allium gives every name a stable colour (so the
 * same name looks the same in every map and every session) and flags from Quake's naming
 * conventions:
 *   sky*                        sky (solid, lets sunlight in)
 *   *water*, *lava*, *slime*    liquid (not solid for agents). Quake's rule is the '*'
 *                               prefix, so every name starting with '*' is a liquid
 *                               ("*04mwat2", "*teleport"); a name that merely contains
 *                               "water" without it, like "+0water_f1" (a waterfall wall),
 *                               stays solid, as it is in Quake.
 *   trigger                     not solid, not drawn (trigger volumes)
 *   clip                        solid for agents, not drawn
 *   skip, nodraw, caulk         solid, face not drawn
 *   hint, hintskip              visibility hint: not solid, not drawn
 * Matching is case-insensitive.
 */
#ifndef AL_MATERIAL_DEFAULTS_H
#define AL_MATERIAL_DEFAULTS_H

#include <stdbool.h>
#include <stdint.h>

/* AL_MATERIAL_* flags for NAME. */
uint32_t al_material_default_flags(const char *name);

/* A stable, pleasant colour for NAME (sRGB, 0..1), the same on every machine. */
void al_material_default_colour(const char *name, float rgb[3]);

/* Whether RGB is NAME's default colour (within a millionth, as stored): nobody chose it. */
bool al_material_colour_is_default(const char *name, const float rgb[3]);

/* The colour material NAME reflects (its radiosity colour, al_material_desc.colour): the
 * COLOUR the designer chose, or when nobody chose one (it is the name's default) and its
 * texture is known, the TEXTURE_AVERAGE (NULL: no texture), as Quake's light tools take a
 * texture's average colour for the light its faces bounce. OUT may alias COLOUR. */
void al_material_reflected_colour(const char *name, const float colour[3],
                                  const float *texture_average, float out[3]);

#endif
