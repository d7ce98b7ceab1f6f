/* Brushes: convex solids made from the input's face planes, validated.
 *
 * al_brush_build turns one al_brush_desc into sides with windings, or rejects it with a
 * diagnostic naming entity, brush and line when it is not a finite convex solid (fewer than
 * four planes, a face that is not a plane, duplicate or opposite planes, NaN or huge
 * coordinates, unbounded, no volume). Faces whose plane does not touch the solid are
 * dropped with a warning, as other tools do.
 *
 * Bevels and Minkowski expansion by agent boxes are in expand.c. Other folders build and
 * measure brushes through al-brush.h.
 */
#ifndef AL_BRUSH_H
#define AL_BRUSH_H

#include "al-brush.h"
#include "al-input.h"
#include "core/arena.h"
#include "al-diag.h"
#include "geom/plane.h"
#include "geom/winding.h"

#include <stdbool.h>

typedef struct al_side {
    int plane;           /* index into the plane table; the normal points out of the brush */
    int material;        /* index into the input's materials, or -1 */
    int face;            /* index of the input face within its brush, -1 for bevels */
    al_winding *winding; /* the face polygon; NULL for a bevel that touches only an edge */
    uint32_t material_flags; /* its material's AL_MATERIAL_* flags (a hint brush's hint
                                faces split the vis tree, its skip faces do not); 0 for
                                bevels and faces without a material */
} al_side;

enum {
    AL_BRUSH_DETAIL = 1u << 0, /* from a detail entity: collides, does not split visibility */
    AL_BRUSH_WARNED = 1u << 1, /* its build gave warnings (al_world_update builds it again
                                  rather than copying it, so the warnings are repeated) */
};

typedef struct al_brush {
    int id;     /* index in al_input.brushes */
    int entity; /* index in al_input.entities */
    int index;  /* index within its entity */
    int line;   /* source line, -1 if unknown */
    int model;  /* 0: world, k > 0: the k-th brush model, -1: not solid for agents */
    uint32_t flags;          /* AL_BRUSH_* */
    uint32_t material_flags; /* its contents (al_brush_contents), for a brush entity's
                                brush without AL_MATERIAL_LIQUID */
    int side_count;
    al_side *sides;
    double mins[3], maxs[3];
} al_brush;

/* True if B takes part in visibility: structural world geometry that blocks sight (not
 * detail, not clip; liquids and other non-solid brushes are not collision brushes at all). */
static inline bool al_brush_blocks_sight(const al_brush *b)
{
    return b->model == 0 && !(b->flags & AL_BRUSH_DETAIL) &&
           !(b->material_flags & AL_MATERIAL_CLIP);
}

/* True if B is solid to the agent box HULL. A clip brush is solid to the agents' boxes and
 * not to a point (Quake's qbsp leaves clip brushes out of its drawn hull, hull 0). */
static inline bool al_brush_in_hull(const al_brush *b, const al_hull_desc *hull)
{
    if (!(b->material_flags & AL_MATERIAL_CLIP)) return true;
    for (int k = 0; k < 3; k++)
        if (hull->mins[k] != 0 || hull->maxs[k] != 0) return true;
    return false;
}

/* True if B blocks light: any world brush but clip (detail does; liquids and other
 * non-solid brushes are not collision brushes at all). */
static inline bool al_brush_blocks_light(const al_brush *b)
{
    return b->model == 0 && !(b->material_flags & AL_MATERIAL_CLIP);
}

/* Builds brush number INDEX of INPUT into ARENA, adding its planes to PLANES. Returns NULL
 * and appends an error diagnostic to DIAGS if the brush is invalid; *OUT_OF_MEMORY is set
 * when the reason was memory. */
al_brush *al_brush_build(al_arena *arena, al_plane_table *planes, const al_input *input,
                         int index, al_diag_list *diags, bool *out_of_memory);

/* A copy of B (its sides and windings) in ARENA; NULL if memory runs out. Plane indices are
 * kept, so the copy belongs with B's plane table or a copy of it. */
al_brush *al_brush_copy(al_arena *arena, const al_brush *b);

/* Windings of the convex solid bounded by PLANE_INDICES (outward), into WINDINGS (NULL for a
 * plane that does not touch the solid). Returns the number of non-NULL windings, or -1 if
 * memory ran out. */
int al_brush_windings(al_arena *arena, const al_plane_table *planes, const int *plane_indices,
                      int count, al_winding **windings);

/* Volume of a convex solid from its outward face windings and planes. */
double al_brush_volume(const al_plane_table *planes, const al_side *sides, int count);

#endif
