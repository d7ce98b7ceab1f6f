/* The realistic style of allium-genmap: maps shaped like today's large community Quake maps.
 *
 * A structural shell of sealed rooms of many sizes and heights, joined by corridors (a
 * random spanning tree of the room grid plus loops), written as world brushes; most brushes
 * are func_detail (skirting and cornice trim, wall ribs, ceiling beams, pillars with bases
 * and capitals, stairs up to balconies with railings, tables, shelves, crates, barrels);
 * liquid pools, sky ceilings, doors (func_door) in some corridors, lights in every room and
 * corridor, monsters and items on the floors, a player start. The same seed gives the same
 * map on every machine.
 */
#ifndef ALLIUM_GEN_REALISTIC_H
#define ALLIUM_GEN_REALISTIC_H

#include <stdbool.h>
#include <stdint.h>

#include "mapgen.h"

/* The most brushes the style writes: its room grid stays inside Quake's ±131072 units. */
#define REALISTIC_MAX_BRUSHES 1000000

/* Writes a map of about BRUSHES brushes (within a few per cent) from SEED into G. False on
 * running out of memory. */
bool realistic_map(mapgen *g, long brushes, uint64_t seed);

#endif
