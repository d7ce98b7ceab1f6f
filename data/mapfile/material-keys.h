/* A material's light as a worldspawn key of a .map, so that what a document sets on its
 * materials (colour, reflectance, emission) survives an export and a later import or
 * compile of the file.
 *
 *   "_allium_material_NAME" "colour R G B reflectance F emission R G B"
 *
 * NAME is the material's name as faces write it; each part is optional and in that order:
 * colour sRGB 0..1 (default: the name's, materials/material-defaults.h), reflectance 0..1
 * (default: from the colour), emission a light level per channel, >= 0 (default none).
 * Quake's engine drops keys that start with an underscore, and other tools ignore keys
 * they do not know, so the file stays a plain Quake map.
 */
#ifndef AL_MATERIAL_KEYS_H
#define AL_MATERIAL_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#define AL_MATERIAL_KEY_PREFIX "_allium_material_"

typedef struct al_material_light {
    bool has_colour;
    double colour[3];   /* sRGB 0..1 */
    double reflectance; /* 0..1; negative: unset */
    double emission[3]; /* >= 0 */
} al_material_light;

/* The material KEY names when it is a material key with a name, else NULL (a pointer
 * into KEY). */
const char *al_material_key_name(const char *key);

/* Reads VALUE into OUT. False, with what is wrong in WHY (SIZE bytes), when it is not
 * the format above or a number is out of its range. */
bool al_material_key_parse(const char *value, al_material_light *out, char *why, size_t size);

/* M as a key's value into BUF (SIZE bytes, 200 are enough): the colour always, the
 * reflectance when set, the emission when any channel is above 0; each number in the
 * fewest digits that read back as it. */
void al_material_key_format(const al_material_light *m, char *buf, size_t size);

#endif
