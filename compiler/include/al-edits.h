/* Random edits of a compiler input, and a structural comparison of two compiled worlds:
 * the tools for checking that an incremental compile equals a full one.
 *
 * An al_edit_input is an owned copy of an al_input's arrays (strings stay borrowed from
 * the source, which must outlive it) that random edits change in place, the way a
 * designer's edits change a map document: a brush moved, resized, deleted, or added (a
 * copy of another, moved). Edits keep the input valid as an input (counts and ranges);
 * whether the brushes stay valid solids is the compiler's business, as it is for a
 * designer's edits.
 *
 * Part of the verify library (compiler/verify, verify_dep), as the oracles are.
 */
#ifndef AL_EDITS_H
#define AL_EDITS_H

#include "al-input.h"
#include "al-oracle.h"

#include <stdbool.h>

typedef struct al_edit_input {
    al_input input; /* points into the arrays below */
    al_brush_desc *brushes;
    al_face_desc *faces;
    int brush_capacity, face_capacity;
} al_edit_input;

typedef enum al_edit_kind {
    AL_EDIT_MOVE,
    AL_EDIT_RESIZE,
    AL_EDIT_DELETE,
    AL_EDIT_ADD,
} al_edit_kind;

typedef struct al_edit {
    al_edit_kind kind;
    int brush; /* index in the input after the edit (before it, for a delete) */
} al_edit;

/* Copies SRC's brush and face arrays; false if memory runs out. */
bool al_edit_input_init(al_edit_input *e, const al_input *src);
void al_edit_input_free(al_edit_input *e);

/* One random edit of a brush of the world entity (entity 0) or of a func_detail-like
 * entity: moves of up to 64 units on the 8-unit grid, resizes by 1/2 to 2 along one axis
 * about the brush's centre, deletes, and copies of a brush moved by up to 128 units (put
 * after the last brush of its entity, where a .map file and the live engine have it). Keeps
 * at least MIN_BRUSHES brushes. False if there is nothing to edit or memory ran out. */
bool al_edit_random(al_edit_input *e, al_rng *rng, int min_brushes, al_edit *out);

const char *al_edit_kind_name(al_edit_kind kind);

/* A deep copy of IN (arrays and strings) in one allocation, freed with free(); NULL if
 * memory runs out. For tests that keep the versions of an edited input. */
al_input *al_input_clone(const al_input *in);

/* Structural differences between two compiled worlds (models, block grids, and every tree
 * node by node: planes within the plane table's merge tolerance, a plane flipped with its
 * children swapped counting as equal, and leaf bits), and the world blocks' open cells and
 * trace start nodes. Returns the number of trees (or blocks' open cells) that differ,
 * describing the first in WHY (may be NULL). */
typedef struct al_world al_world;
int al_world_tree_differences(const al_world *a, const al_world *b, char *why,
                              size_t why_size);

#endif
