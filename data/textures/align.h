/* Texture alignment of one face: the operations of an editor's face inspector (set a
 * field, nudge, rotate, reset, align to the face, fit, justify, paste) as changes of the
 * face's texture parameters, in Quake's standard format and in Valve 220.
 *
 * Texture coordinates are those of al_texture_coords (texels); a face's polygon is given
 * by the caller (al_brush_face_points of its brush). The texture's size in texels is
 * needed by fit and justify only. "Left" and "top" are the texture's own: u = 0 is its
 * left column and v = 0 its top row, as Quake draws it.
 *
 * Rotation in Valve 220 turns the axes about the face's normal, in the sense Quake's
 * standard rotation turns them on the face's axial plane, so that both formats give the
 * same texture where both can hold it (an axial face).
 */
#ifndef AL_ALIGN_H
#define AL_ALIGN_H

#include "mapfile/map.h"

#include <stdbool.h>

typedef enum al_align_kind {
    AL_ALIGN_SET,     /* FIELD becomes VALUE[0] */
    AL_ALIGN_NUDGE,   /* the offsets grow by VALUE (texels along u and v) */
    AL_ALIGN_ROTATE,  /* the rotation grows by VALUE[0] degrees */
    AL_ALIGN_RESET,   /* Quake's default: base axes, no offset or rotation, scale 1 */
    AL_ALIGN_TO_FACE, /* axes in the face's plane, unrotated (scales and offsets kept) */
    AL_ALIGN_FIT,     /* the texture VALUE[0] times across u, VALUE[1] times along v */
    AL_ALIGN_JUSTIFY, /* the texture's edge (JUSTIFY) on the face's */
    AL_ALIGN_PASTE,   /* SOURCE's offsets, scales and rotation (the material: the caller) */
} al_align_kind;

typedef enum al_justify {
    AL_JUSTIFY_LEFT,   /* the least u on the face is 0 */
    AL_JUSTIFY_RIGHT,  /* the greatest u is the texture's width */
    AL_JUSTIFY_TOP,    /* the least v is 0 */
    AL_JUSTIFY_BOTTOM, /* the greatest v is the texture's height */
    AL_JUSTIFY_CENTRE, /* the face's middle (of its u and v ranges) is the texture's */
} al_justify;

typedef enum al_texture_field {
    AL_FIELD_OFFSET_U,
    AL_FIELD_OFFSET_V,
    AL_FIELD_SCALE_U,
    AL_FIELD_SCALE_V,
    AL_FIELD_ROTATION,
} al_texture_field;

typedef struct al_align {
    al_align_kind kind;
    al_justify justify;        /* AL_ALIGN_JUSTIFY */
    al_texture_field field;    /* AL_ALIGN_SET */
    double value[2];           /* SET, NUDGE, ROTATE, FIT, as their comments say */
    const al_map_face *source; /* AL_ALIGN_PASTE: the face copied (borrowed) */
} al_align;

/* Applies A to face F (its points give the plane), whose polygon is the COUNT points
 * POLYGON, with a texture SIZE texels wide and high (fit and justify; else ignored).
 * Returns true when done; false, with F unchanged, when F's format cannot hold the result
 * (align to a face that is not axial in the standard format), the operation has nothing to
 * work with (a scale of 0, repeats or a size that are not positive, a polygon of fewer than
 * 3 points, an axis across the face, a value that is not finite). */
bool al_texture_align(al_map_face *f, const double (*polygon)[3], int count, const double size[2],
                      const al_align *a);

/* FIELD's value on face F (Valve offsets for a Valve face, else the standard ones). */
double al_texture_field_value(const al_map_face *f, al_texture_field field);

#endif
