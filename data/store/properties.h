/* Entity properties: a JSON object of string values, as Quake's key/value pairs.
 *
 * Keys Allium and Quake give a meaning to are checked for their type and range, and a bad
 * value is refused with a message naming the key: origin, angles, mangle (three numbers
 * within the map's coordinate limits), angle, light, wait, delay, _cone, speed, lip, health,
 * dmg, count, and the light keys _falloff, _anglescale, _deviance, _samples, _softangle,
 * _minlight, _sunlight, _sunlight2, _sunlight3, _surface_offset (a number), spawnflags (a
 * non-negative integer), _color (three numbers from 0 to 255). Keys must be non-empty and at most
 * 255 bytes; no key or value may hold a line break or a NUL (the .map format cannot carry them).
 */
#ifndef AL_PROPERTIES_H
#define AL_PROPERTIES_H

#include "al-diag.h"
#include "al-status.h"

#include <stddef.h>

/* Checks one property. Returns AL_OK, or AL_ERR_INVALID_ARGUMENT with a diagnostic. */
al_status al_property_check(const char *key, const char *value, al_diag_list *diags);

/* Checks a whole properties object (SIZE bytes of JSON). On success *NORMALIZED (if not
 * NULL) receives the object printed compactly (malloc'd). */
al_status al_properties_check(const char *json, size_t size, char **normalized,
                              al_diag_list *diags);

/* Sets (VALUE non-NULL) or removes KEY in the JSON object JSON, checking the value; the new
 * object is malloc'd into *OUT. */
al_status al_properties_set(const char *json, const char *key, const char *value, char **out,
                            al_diag_list *diags);

/* The value of KEY in JSON (malloc'd), or NULL. */
char *al_properties_get(const char *json, const char *key);

#endif
