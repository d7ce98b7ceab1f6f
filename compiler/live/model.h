/* The map as the live engine keeps it (al-live.h): entities, brushes and materials by
 * their ids, changed by al_live_change, and turned into a compiler input per generation.
 *
 * Ownership and threads: a change is copied whole on the caller's thread (live_change_copy,
 * one allocation); the model belongs to the engine's thread, which applies the copies in
 * order and flattens the result into a live_map that snapshots share.
 *
 * Workload: an edit changes a few brushes (a copy of their faces), a map opens with
 * thousands; flattening is linear in the map (lq-e3m4, 3,441 brushes and 22,180 faces:
 * about a millisecond), with a sort of the brushes only when the order may have changed.
 */
#ifndef AL_LIVE_MODEL_H
#define AL_LIVE_MODEL_H

#include "al-live.h"

typedef struct live_model live_model;

/* A flattened map: the input of one generation, its ids and versions, and the look-ups
 * from ids to indices. One allocation; immutable once made. */
typedef struct live_map {
    int refs;
    al_input input;
    const int64_t *brush_ids, *entity_ids;
    const uint64_t *brush_versions, *entity_versions;
    uint64_t materials_version;
    /* (id, index) pairs sorted by id, for al_snapshot_find_* */
    const int64_t (*brush_index)[2];
    const int64_t (*entity_index)[2];
    int dropped_brushes; /* brushes left out: their entity is not in the map */
} live_map;

/* A deep copy of CHANGE in one malloc'd block (free() it); NULL if memory runs out. */
al_live_change *live_change_copy(const al_live_change *change);

live_model *live_model_create(void);
void live_model_destroy(live_model *m); /* NULL is a no-op */

/* Applies CHANGE, stamping what it changes with GENERATION. False if memory ran out (the
 * model may then be partly changed: the caller replaces it). */
bool live_model_apply(live_model *m, const al_live_change *change, uint64_t generation);

/* The model as an input; NULL if memory runs out. */
live_map *live_model_flatten(live_model *m);

live_map *live_map_ref(live_map *map);
void live_map_release(live_map *map); /* NULL is a no-op */

/* Index of ID in one of the map's (id, index) tables, or -1. */
int live_map_find(const int64_t (*table)[2], int count, int64_t id);

#endif
