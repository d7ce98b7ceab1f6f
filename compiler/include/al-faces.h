/* Face polygons of a map's brushes, for drawing and picking.
 *
 * The compiled world keeps only what collision and visibility need; the editor also draws
 * triggers, liquids, clip and hint brushes, so it asks for every brush's polygons here. The
 * brushes are built as al_world_compile builds them (the same checks), each on its own: its
 * planes snap and merge among its own only, where a compile merges them across the map, so
 * a brush's polygons depend on the brush alone and agree with the compile's within the
 * planes' merge tolerance. Invalid brushes get no faces (the compile reports
 * why); a brush that is valid has one polygon per face that touches its solid.
 *
 * Expected workload: the whole map once (lq-e3m4, 3,441 brushes: a few milliseconds), and
 * then the brushes an edit changed, one at a time (al_face_builder).
 */
#ifndef AL_FACES_H
#define AL_FACES_H

#include "al-input.h"
#include "al-status.h"

#include <stdint.h>

typedef struct al_face_poly {
    int32_t brush;       /* index into al_input.brushes */
    int32_t face;        /* index of the face within its brush (input order) */
    int32_t material;    /* index into al_input.materials, or -1 */
    int32_t first_point; /* into al_face_polys.points */
    int32_t point_count; /* >= 3; clockwise seen from the front (Quake's winding order) */
    double normal[3];    /* of the face's plane, pointing out of the brush */
    double dist;
} al_face_poly;

typedef struct al_face_polys {
    al_face_poly *faces; /* owned; grouped by brush, brushes in input order */
    int32_t face_count;
    double (*points)[3]; /* owned */
    int32_t point_count;
    /* Per input brush: its faces are faces[brush_first[b] .. brush_first[b+1]-1] (none for
     * an invalid brush); brush_first has brush_count + 1 entries. */
    int32_t *brush_first; /* owned */
    double (*brush_mins)[3], (*brush_maxs)[3]; /* owned; bounds of each valid brush */
    int32_t brush_count;
    int32_t invalid_brushes;
} al_face_polys;

/* Builds the polygons of every brush of INPUT into OUT (zeroed first). Returns AL_OK, or
 * AL_ERR_NOMEM with OUT empty. */
al_status al_face_polys_build(const al_input *input, al_face_polys *out);

/* Builds the polygons of brushes one at a time (the editor's scene builds those an edit
 * changed), as al_face_polys_build builds each. */
typedef struct al_face_builder al_face_builder;

al_face_builder *al_face_builder_create(void); /* NULL if memory runs out */
void al_face_builder_destroy(al_face_builder *fb); /* NULL is a no-op */

/* The polygons of brush BRUSH of INPUT into OUT (whatever OUT held is freed first): one
 * brush, OUT->brush_first[0..1], its bounds in brush_mins[0] / brush_maxs[0], and its faces'
 * brush field BRUSH. An invalid brush has no faces (OUT->invalid_brushes 1). AL_OK,
 * AL_ERR_INVALID_ARGUMENT (no such brush) or AL_ERR_NOMEM (OUT empty). OUT must start
 * zeroed or from an earlier call. */
al_status al_face_builder_brush(al_face_builder *fb, const al_input *input, int brush,
                                al_face_polys *out);

/* Frees what al_face_polys_build allocated; OUT is left empty. NULL is a no-op. */
void al_face_polys_free(al_face_polys *polys);

#endif
