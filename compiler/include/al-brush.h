/* Brushes as the compiler builds them, for code outside it that stores or cuts brushes.
 *
 * The map document (data/store) checks every brush it stores with the compiler's own
 * builder, so that it never keeps a brush a compile would drop, and it cuts brushes (clip,
 * subtract, merge) into the face polygons the compiler would make of them. Both go through
 * this header: limits, face polygons, and a builder that measures one brush of an input.
 *
 * A brush is valid when its faces bound a finite convex solid: 4 to AL_BRUSH_MAX_FACES faces,
 * each the plane through three points that are finite, within AL_COORD_MAX (al-epsilon.h)
 * and not collinear; no two faces on one plane facing opposite ways; at least
 * AL_BRUSH_MIN_VOLUME inside. A face whose plane repeats another's or does not touch the
 * solid is ignored with a warning.
 */
#ifndef AL_BRUSH_PUBLIC_H
#define AL_BRUSH_PUBLIC_H

#include "al-diag.h"
#include "al-input.h"
#include "al-plane.h"

#include <stdbool.h>

/* More faces than this in one brush is rejected (real brushes have 4 to 30). */
#define AL_BRUSH_MAX_FACES 128

/* Less volume than this (cubic units) is "no volume": such a brush is rejected. */
#define AL_BRUSH_MIN_VOLUME 1e-3

/* Room for the points of one face polygon of a brush (a clip adds at most one point). */
#define AL_BRUSH_POLYGON_MAX (AL_BRUSH_MAX_FACES + 8)

/* The polygon of face I of the convex solid behind COUNT planes (normals pointing out):
 * PLANES[INDICES[k]], or PLANES[k] when INDICES is NULL. Its plane is cut by every other
 * one (al_points_clip with AL_ON_EPSILON) into OUT (room for AL_BRUSH_POLYGON_MAX points).
 * Returns the point count, fewer than 3 when the plane does not touch the solid, or -1 if
 * the polygon would not fit. */
int al_brush_face_points(const al_plane *planes, const int *indices, int count, int i,
                         double (*out)[3]);

/* The contents of brush INDEX of INPUT (AL_MATERIAL_CONTENTS bits; 0: solid), decided as
 * Quake's compilers decide them (ericw-tools' qbsp and those it came from): by its first
 * face's material alone. A sky brush with one face of another texture is still sky, a brush
 * mixing a liquid with a wall texture is what its first face says. The rule is for the
 * world's brushes; a brush entity's liquid is solid (Quake's entities have no liquids).
 * *OTHER (may be NULL) is set to the first face, after the first, whose contents differ
 * (faces without contents that are not drawn, such as skip, do not count), or -1. */
uint32_t al_brush_contents(const al_input *input, int index, int *other);

/* What al_brush_builder_measure finds of a valid brush. */
typedef struct al_brush_measure {
    double mins[3], maxs[3]; /* bounds of the solid */
    double volume;           /* cubic units */
} al_brush_measure;

/* Scratch memory for building brushes one at a time, kept between calls so that checking
 * a brush per edit does not allocate. Used by one thread at a time. */
typedef struct al_brush_builder al_brush_builder;

/* A new builder; NULL if memory runs out. */
al_brush_builder *al_brush_builder_create(void);

/* Frees the builder. NULL is a no-op. */
void al_brush_builder_destroy(al_brush_builder *builder);

/* Builds brush INDEX of INPUT with the compile's own builder and measures it into OUT
 * (alone: a compile's plane table may merge its planes with other brushes'). Returns
 * false if the brush is invalid (with an error diagnostic naming its entity, brush, face
 * and line in DIAGS, which may be NULL) or if memory runs out (*OUT_OF_MEMORY is then set);
 * faces ignored in a valid brush are warnings in DIAGS. Nothing of the brush is kept after
 * the call. */
bool al_brush_builder_measure(al_brush_builder *builder, const al_input *input, int index,
                              al_brush_measure *out, al_diag_list *diags, bool *out_of_memory);

#endif
