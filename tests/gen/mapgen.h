/* Writing .map text: entities and convex brushes, for the test scenes and allium-genmap.
 *
 * Brushes are given by their faces as points on the face (at least three, not collinear);
 * the writer orients each face so its normal points away from the brush's centre, as the
 * format requires, so callers never think about winding order. Coordinates are written
 * exactly (%.17g), so integer input stays integer.
 */
#ifndef ALLIUM_MAPGEN_H
#define ALLIUM_MAPGEN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mapgen mapgen;

/* A new writer; VALVE selects the Valve 220 dialect, else standard Quake. NULL on OOM. */
mapgen *mapgen_create(bool valve);
void mapgen_destroy(mapgen *g);

/* The text written so far (NUL-terminated) and its length. */
const char *mapgen_text(const mapgen *g, size_t *length);
int mapgen_brush_count(const mapgen *g);

/* Writes the text to PATH; false if it cannot. */
bool mapgen_save(const mapgen *g, const char *path);

void mapgen_begin_entity(mapgen *g, const char *classname);
void mapgen_key(mapgen *g, const char *key, const char *value);
void mapgen_keyf(mapgen *g, const char *key, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
void mapgen_end_entity(mapgen *g);

/* A point entity with an origin. */
void mapgen_point_entity(mapgen *g, const char *classname, double x, double y, double z);

/* A brush from FACES, each given by three points on it (orientation is fixed up). */
#define MAPGEN_MAX_FACES 256
void mapgen_brush(mapgen *g, int count, const double (*faces)[3][3], const char *material);

/* The same with a material per face, face F's MATERIALS[F]. */
void mapgen_brush_faces(mapgen *g, int count, const double (*faces)[3][3],
                        const char *const *materials);

/* The axis-aligned box [x0, x1] x [y0, y1] x [z0, z1]. */
void mapgen_box(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                const char *material);

/* The same box with a material per face, in the order: the sides at y0, x1, y1 and x0,
 * then the bottom and the top. */
void mapgen_box_faces(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                      const char *const materials[6]);

/* A closed room: the empty box [x0, x1] x [y0, y1] x [z0, z1] with a floor, a ceiling and
 * four walls THICK units thick around it. */
void mapgen_room(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                 double thick, const char *material);

/* A light entity at (X, Y, Z) with key "light" LEVEL (NULL: none, Quake's 300). */
void mapgen_light(mapgen *g, double x, double y, double z, const char *level);

/* A convex polygon (X, Y, counter-clockwise seen from above) extruded from Z0 to Z1. */
void mapgen_prism(mapgen *g, int count, const double (*xy)[2], double z0, double z1,
                  const char *material);

/* A wedge filling [x0, x1] x [y0, y1] under the slope rising from Z0 at one end to Z1 at the
 * other, along +x (AXIS 0) or +y (AXIS 1); DIR -1 makes it rise the other way. */
void mapgen_ramp(mapgen *g, double x0, double y0, double x1, double y1, double z0, double z1,
                 int axis, int dir, const char *material);

/* The wedge of mapgen_ramp with the three points written for each face moved by
 * NUDGE[face][point] (faces in the order bottom, high end, slope, side, other side; the
 * slope's points are its low edge's two corners, then the high edge's far corner):
 * TrenchBroom writes a vertex-edited brush's plane points a 1/512 or 1/1024 unit off the
 * grid, so the faces pass nearly, not exactly, through the brush's edges, and two such
 * wedges side by side have nearly coplanar slopes. A zero NUDGE writes exactly
 * mapgen_ramp's brush. */
void mapgen_ramp_nudged(mapgen *g, double x0, double y0, double x1, double y1, double z0, double z1,
                        int axis, int dir, const double nudge[5][3][3], const char *material);

/* Steps of RISE and RUN from (x0, y0, z0) climbing along +x (AXIS 0) or +y, WIDTH across; each
 * step is a box down to Z0. */
void mapgen_stairs(mapgen *g, double x0, double y0, double z0, int axis, int steps, double rise,
                   double run, double width, const char *material);

#endif
