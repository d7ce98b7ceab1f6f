/* Reading entity keys: the values level designers type into a map's entities.
 *
 * Shared by the passes that read entities (lights, luxel sizes, agents and waypoints).
 */
#ifndef AL_ENTITY_KEYS_H
#define AL_ENTITY_KEYS_H

#include "al-input.h"

/* The value of KEY in E ("" for a key without a value), or NULL if E has no such key. */
const char *al_entity_value(const al_entity_desc *e, const char *key);

/* Reads up to MAX whitespace-separated numbers from S into OUT; returns how many, or -1 if
 * S holds anything else, more than MAX numbers, or a number that is not finite. */
int al_read_numbers(const char *s, double *out, int max);

#endif
