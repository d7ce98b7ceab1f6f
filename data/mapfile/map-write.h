/* Writing .map files, standard Quake or Valve 220, as TrenchBroom reads them. */
#ifndef AL_MAP_WRITE_H
#define AL_MAP_WRITE_H

#include "map.h"

#include <stdbool.h>
#include <stddef.h>

/* MAP as .map text (malloc'd into *TEXT, NUL-terminated, length in *LENGTH). VALVE chooses
 * the dialect; faces stored in the other one are converted (standard to Valve exactly,
 * Valve to standard approximately: standard offsets cannot express every axis pair). */
bool al_map_write(const al_map *map, bool valve, char **text, size_t *length);

/* MAP as a fragment of .map text, as editors put a copy on the clipboard and read it back
 * (al_map_read_fragment): the same entities and brushes as al_map_write, without the file's
 * header; only a worldspawn entity carries "mapversion" in the Valve dialect. */
bool al_map_write_fragment(const al_map *map, bool valve, char **text, size_t *length);

/* The shortest decimal text that reads back as exactly V (into BUF, at least 32 bytes):
 * numbers read from a file print as they were written unless written with extra zeros. */
void al_format_number(double v, char *buf);

#endif
