/* Hull lists written as text, for the command line and for map keys.
 *
 * One hull is "NAME=minx,miny,minz,maxx,maxy,maxz" (command line) or
 * "NAME minx miny minz maxx maxy maxz" (worldspawn key "allium_hulls"); a list separates
 * hulls with ';'. Commas and spaces are interchangeable.
 */
#ifndef AL_HULL_SPEC_H
#define AL_HULL_SPEC_H

#include "al-input.h"

#include <stdbool.h>
#include <stddef.h>

/* Parses one hull from TEXT into OUT. On failure returns false and writes a sentence saying
 * what is wrong to ERROR. */
bool al_hull_spec_parse(const char *text, al_hull_desc *out, char *error, size_t error_size);

/* Parses a ';'-separated list into HULLS (at most MAX). Returns the count, or -1 with ERROR
 * filled. */
int al_hull_spec_parse_list(const char *text, al_hull_desc *hulls, int max, char *error,
                            size_t error_size);

#endif
