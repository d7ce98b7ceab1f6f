/* The plane table (planes themselves are in al-plane.h).
 *
 * Every plane the compiler uses lives in one table, deduplicated with AL_NORMAL_EPSILON and
 * AL_DIST_EPSILON (al-epsilon.h), so that "the same plane" is an integer comparison. Planes are
 * stored in pairs: index 2k is the canonical orientation (largest normal component
 * positive), 2k+1 its flip, so al_plane_flip(i) == i ^ 1 and i >> 1 names the geometric
 * plane whichever way it faces (Quake's convention).
 *
 * A table is filled on one thread and then only read (BSP builds on several threads read it
 * concurrently).
 */
#ifndef AL_PLANE_H
#define AL_PLANE_H

#include "al-plane.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_plane_table {
    al_plane *planes; /* owned; count entries, always an even number */
    int count;
    int capacity;
    int *next;    /* owned; hash chain per canonical plane (index >> 1) */
    int *buckets; /* owned; first canonical plane per bucket, -1 for none */
} al_plane_table;

static inline int al_plane_flip(int index)
{
    return index ^ 1;
}

/* Zero-initialised is not enough: call init. Returns false if memory runs out. */
bool al_plane_table_init(al_plane_table *table);

/* Empties the table, keeping its memory. */
void al_plane_table_reset(al_plane_table *table);

/* Frees the table's memory. NULL is a no-op. */
void al_plane_table_free(al_plane_table *table);

/* Initializes TABLE with COUNT planes (pairs, as a table stores them), indices unchanged. */
bool al_plane_table_load(al_plane_table *table, const al_plane *planes, int count);

/* Index of the plane {NORMAL, DIST} (NORMAL of unit length), adding it if no plane within
 * the epsilons exists. The normal is snapped first (al_plane_snap_normal). Returns -1 if
 * memory runs out. */
int al_plane_table_add(al_plane_table *table, const double normal[3], double dist);

/* Index of an existing plane matching {NORMAL, DIST}, or -1. */
int al_plane_table_find(const al_plane_table *table, const double normal[3], double dist);

#endif
