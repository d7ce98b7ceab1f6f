/* Texture projection of .map faces: Quake's standard parameters (offsets, rotation,
 * scales on the axial plane nearest the face) and Valve 220's explicit axes.
 *
 * A face's texture coordinate of a point p (in texels) is
 *   standard:  u = dot(p, S) / scale_x + offset_x,  v = dot(p, T) / scale_y + offset_y
 *              where S, T are the base axes of the face's axial plane rotated by the
 *              rotation (Quake's qbsp, right angles exact);
 *   Valve 220: u = dot(p, U) / scale_x + u_offset,   v = dot(p, V) / scale_y + v_offset.
 */
#ifndef AL_TEXTURE_H
#define AL_TEXTURE_H

#include "map.h"

#include <stdbool.h>

/* The projection of face F as two axes in texels: u = dot(p, AXES[0]) + AXES[0][3] and
 * v = dot(p, AXES[1]) + AXES[1][3] (the scales folded into the axes). The one place the
 * rule above is written; the compiler's input carries it (al_face_desc.texture_axes). */
void al_texture_axes(const al_map_face *f, double axes[2][4]);

/* Quake's base axes S and T for a face with unit NORMAL: those of the axial plane it is
 * projected on (floor, ceiling, then the walls; the first of equally near ones wins, as in
 * qbsp). */
void al_texture_base_axes(const double normal[3], double s[3], double t[3]);

/* Cosine and sine of ROTATION degrees; right angles exact, as Quake special-cases them. */
void al_texture_cos_sin(double rotation, double *c, double *s);

/* The unit normal of F's plane, by the faces' rule normalize((p0 - p1) x (p2 - p1)). */
void al_texture_face_normal(const al_map_face *f, double n[3]);

/* The texture coordinates of P on face F, in either dialect. */
void al_texture_coords(const al_map_face *f, const double p[3], double uv[2]);

/* Valve 220 axes and offsets for a standard face: exact (the scales stay as they are). */
void al_texture_to_valve(const al_map_face *f, double u[3], double *u_off, double v[3],
                         double *v_off);

/* Standard parameters for a Valve face. Exact when the face's axes lie in its axial
 * projection plane and are perpendicular there (TrenchBroom's axes for unsheared
 * textures); otherwise the nearest rotation and scales, and the result is false. */
bool al_texture_to_standard(const al_map_face *f, double offset[2], double *rotation,
                            double scale[2]);

/* Texture lock: F's texture parameters after the affine map M (rows of a 3x4 matrix, the
 * last column the translation) moved the face to the points MOVED, so that every point of
 * the face keeps the texture coordinate it had. Exact in Valve 220, for any map M with an
 * inverse (F->points are replaced by MOVED). In the standard format the axes come from the
 * face's axial plane: exact for moves, right-angle turns and mirrors, and for any turn
 * that leaves the texture axes in that plane; otherwise the nearest rotation and scales,
 * and the result is false. */
bool al_texture_lock(al_map_face *f, const double m[3][4], const double moved[3][3]);

#endif
