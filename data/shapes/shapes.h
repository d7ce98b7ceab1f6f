/* Shapes: cylinders, cones, spheres, arches and stairs as sets of convex brushes.
 *
 * A generator is pure geometry: from a zeroed-then-filled al_shape_desc it writes the
 * faces of each brush as three points (the .map rule: (p0 - p1) x (p2 - p1) points out
 * of the brush), which the map document stores with a material (al_doc_add_brushes) and
 * the editor previews before that. Every brush is convex by construction: a prism or
 * pyramid over a regular polygon, a band of a polyhedron inscribed in a sphere, a wedge
 * of an annulus, a box. Parameters that would make no solid (fewer than 3 sides, a zero
 * or negative size, an arch segment of 180 degrees or more, a face edge too short for
 * the compiler to take its plane) are refused with a diagnostic naming the parameter.
 *
 * Workload: interactive; a shape has at most a few thousand faces.
 */
#ifndef AL_SHAPES_H
#define AL_SHAPES_H

#include "al-diag.h"
#include "al-status.h"

typedef enum al_shape_kind {
    AL_SHAPE_CYLINDER, /* a prism over a regular polygon: one brush */
    AL_SHAPE_CONE,     /* a pyramid over a regular polygon: one brush */
    AL_SHAPE_SPHERE,   /* a polyhedron inscribed in a sphere: one brush per ring */
    AL_SHAPE_ARCH,     /* wedges of an annulus, extruded: one brush per segment */
    AL_SHAPE_STAIRS,   /* boxes standing on the floor, each a step higher: one per step */
    AL_SHAPE_COUNT,
} al_shape_kind;

/* Largest values a generator takes. */
#define AL_SHAPE_MAX_SIDES  120 /* cylinder, cone and sphere segments (faces per brush) */
#define AL_SHAPE_MAX_RINGS  64  /* sphere bands */
#define AL_SHAPE_MAX_PIECES 256 /* arch segments, steps */
/* A face edge shorter than this (units) is refused: the plane through it is not sure. */
#define AL_SHAPE_MIN_EDGE 0.25

typedef struct al_shape_desc {
    al_shape_kind kind;
    /* The axis (0 X, 1 Y, 2 Z) of a cylinder, cone or sphere (from the base to the apex
     * or pole); of an arch, the axis its thickness runs along (the arch stands in the
     * plane of the other two, rising along Z, or along Y for an arch about Z); of stairs,
     * the horizontal axis they climb along (0 or 1; they rise along Z). */
    int axis;
    int segments;        /* cylinder, cone, sphere: sides around the axis; arch: pieces */
    int rings;           /* sphere: bands from pole to pole (2 or more) */
    int steps;           /* stairs */
    double radius;       /* cylinder, cone, sphere: of the polygon's corners; arch: outer */
    double inner_radius; /* arch: of the opening, less than RADIUS */
    double height;       /* cylinder, cone: along the axis; stairs: the whole rise */
    double thickness;    /* arch: along its axis */
    double angle;        /* arch: degrees of arc, centred on its top, (0, 360] */
    double width;        /* stairs: across */
    double length;       /* stairs: the whole run, along their axis */
    double centre[3];    /* where the middle of the shape's bounds goes */
} al_shape_desc;

/* A generated shape: brush B's faces are faces[first_face[B]] .. faces[first_face[B+1] - 1]. */
typedef struct al_shape {
    int brush_count;
    int face_count;
    int *first_face;         /* brush_count + 1 entries */
    double (*faces)[3][3];   /* three points per face */
    double mins[3], maxs[3]; /* bounds of the corners */
} al_shape;

/* Builds the shape DESC describes into OUT (free with al_shape_free). AL_ERR_INVALID_ARGUMENT
 * with a diagnostic naming the parameter for values out of range; AL_ERR_NOMEM. OUT is
 * empty on failure. */
al_status al_shape_build(const al_shape_desc *desc, al_shape *out, al_diag_list *diags);

/* Frees OUT's arrays; NULL is a no-op. */
void al_shape_free(al_shape *shape);

/* The shape's name in the user interface (untranslated: "Cylinder", ...). */
const char *al_shape_name(al_shape_kind kind);

#endif
