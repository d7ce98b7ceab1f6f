/* Texture alignment of one face (see align.h).
 *
 * Every operation works on the face's unscaled axes (Valve's as stored; the standard
 * format's rotated base axes, which al_texture_to_valve writes out) and its offsets and
 * scales, so that one rule serves both formats: a coordinate is dot(p, axis) / scale +
 * offset. Only rotation and "align to face" differ, since the standard format keeps no
 * axes. Called once per selected face for each edit: nothing here is hot.
 */
#include "align.h"

#include "mapfile/texture.h"

#include "al-vec3.h"

#include <math.h>
#include <string.h>

/* X rounded to a whole number (and -0 to 0) when within rounding of one: editors write
 * those, and right-angle turns should leave exact axes. */
static double tidy(double x)
{
    double r = round(x);
    return fabs(x - r) < 1e-12 ? (r == 0 ? 0 : r) : x;
}

static double offset_of(const al_map_face *f, int k)
{
    return f->valve ? (k ? f->v_offset : f->u_offset) : f->offset[k];
}

static void set_offset(al_map_face *f, int k, double value)
{
    if (f->valve)
        *(k ? &f->v_offset : &f->u_offset) = value;
    else
        f->offset[k] = value;
}

/* F's axes before scaling, in either format. */
static void plain_axes(const al_map_face *f, double axes[2][3])
{
    if (f->valve) {
        al_copy(f->u_axis, axes[0]);
        al_copy(f->v_axis, axes[1]);
    } else {
        double uo, vo;
        al_texture_to_valve(f, axes[0], &uo, axes[1], &vo);
    }
}

static double scale_of(const al_map_face *f, int k)
{
    return f->scale[k] ? f->scale[k] : 1;
}

/* The least and greatest of dot(p, AXIS) over the polygon. */
static void axis_range(const double (*polygon)[3], int count, const double axis[3], double *lo,
                       double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < count; i++) {
        double d = al_dot(polygon[i], axis);
        *lo = fmin(*lo, d);
        *hi = fmax(*hi, d);
    }
}

/* The range of texture coordinate K over the polygon, with F's parameters. */
static void coord_range(const al_map_face *f, const double (*polygon)[3], int count, int k,
                        double *lo, double *hi)
{
    double axes[2][3];
    plain_axes(f, axes);
    double a, b, s = scale_of(f, k);
    axis_range(polygon, count, axes[k], &a, &b);
    a = a / s + offset_of(f, k);
    b = b / s + offset_of(f, k);
    *lo = fmin(a, b);
    *hi = fmax(a, b);
}

/* The axis the standard format's rotation turns about on F's axial plane: base S x base T
 * with their signs dropped (+z for floors and ceilings, +x and -y for the walls). */
static void rotation_axis(const double n[3], double w[3])
{
    double s[3], t[3];
    al_texture_base_axes(n, s, t);
    for (int k = 0; k < 3; k++) {
        s[k] = fabs(s[k]);
        t[k] = fabs(t[k]);
    }
    al_cross(s, t, w);
}

/* V turned by DEGREES about the unit axis W (Rodrigues; right angles exact on axes). */
static void turn(double v[3], const double w[3], double degrees)
{
    double c, s, x[3];
    al_texture_cos_sin(degrees, &c, &s);
    al_cross(w, v, x);
    double along = al_dot(w, v) * (1 - c);
    for (int k = 0; k < 3; k++) v[k] = tidy(v[k] * c + x[k] * s + w[k] * along);
}

/* Degrees in [0, 360). */
static double wrap(double degrees)
{
    double r = fmod(degrees, 360);
    if (r < 0) r += 360;
    return tidy(r) == 360 ? 0 : tidy(r);
}

static bool rotate(al_map_face *f, double degrees)
{
    if (!isfinite(degrees)) return false;
    if (f->valve) {
        /* About the normal, in the sense of the standard format's turn on its plane: for an
         * axial face the very same turn. */
        double n[3], w[3];
        al_texture_face_normal(f, n);
        rotation_axis(n, w);
        double sign = al_dot(n, w) < 0 ? -1 : 1;
        for (int k = 0; k < 3; k++) w[k] = n[k] * sign;
        turn(f->u_axis, w, degrees);
        turn(f->v_axis, w, degrees);
    }
    f->rotation = wrap(f->rotation + degrees);
    return true;
}

static bool set_field(al_map_face *f, al_texture_field field, double value)
{
    if (!isfinite(value)) return false;
    switch (field) {
    case AL_FIELD_OFFSET_U:
    case AL_FIELD_OFFSET_V:
        set_offset(f, field == AL_FIELD_OFFSET_V, value);
        return true;
    case AL_FIELD_SCALE_U:
    case AL_FIELD_SCALE_V:
        if (value == 0) return false;
        f->scale[field == AL_FIELD_SCALE_V] = value;
        return true;
    case AL_FIELD_ROTATION:
        return rotate(f, value - f->rotation);
    }
    return false;
}

static void reset(al_map_face *f)
{
    if (f->valve) {
        double n[3];
        al_texture_face_normal(f, n);
        al_texture_base_axes(n, f->u_axis, f->v_axis);
        f->u_offset = f->v_offset = 0;
    }
    f->offset[0] = f->offset[1] = 0;
    f->rotation = 0;
    f->scale[0] = f->scale[1] = 1;
}

/* The base axes made to lie in the face's plane (Gram-Schmidt: S's part along the plane,
 * then T's part across the normal and the new S), keeping their directions on the wall. */
static bool to_face(al_map_face *f)
{
    double n[3], s[3], t[3];
    al_texture_face_normal(f, n);
    al_texture_base_axes(n, s, t);
    if (!f->valve) {
        /* The standard format projects along the nearest axis: only an axial face holds
         * axes in its plane, and they are the base axes. */
        int axial = 0;
        for (int k = 0; k < 3; k++) axial += fabs(fabs(n[k]) - 1) < 1e-12;
        if (!axial) return false;
        f->rotation = 0;
        return true;
    }
    double u[3], v[3];
    double sn = al_dot(s, n);
    for (int k = 0; k < 3; k++) u[k] = s[k] - sn * n[k];
    if (!(al_length(u) > 1e-9)) return false;
    al_normalize(u, u);
    double tn = al_dot(t, n), tu = al_dot(t, u);
    for (int k = 0; k < 3; k++) v[k] = t[k] - tn * n[k] - tu * u[k];
    if (!(al_length(v) > 1e-9)) return false;
    al_normalize(v, v);
    for (int k = 0; k < 3; k++) {
        f->u_axis[k] = tidy(u[k]);
        f->v_axis[k] = tidy(v[k]);
    }
    f->rotation = 0;
    return true;
}

/* Scale and offset of axis K so that the polygon spans REPEATS textures SIZE texels long,
 * from 0; the scale keeps its sign (a mirrored texture stays mirrored). */
static bool fit(al_map_face *f, const double (*polygon)[3], int count, int k, double size,
                double repeats)
{
    double axes[2][3], lo, hi;
    plain_axes(f, axes);
    axis_range(polygon, count, axes[k], &lo, &hi);
    if (!(hi - lo > 1e-9) || !(size > 0) || !(repeats > 0) || !isfinite(repeats)) return false;
    double scale = (hi - lo) / (size * repeats);
    if (f->scale[k] < 0) scale = -scale;
    f->scale[k] = scale;
    set_offset(f, k, -fmin(lo / scale, hi / scale));
    return true;
}

static bool justify(al_map_face *f, const double (*polygon)[3], int count, const double size[2],
                    al_justify where)
{
    double lo[2], hi[2];
    for (int k = 0; k < 2; k++) {
        if (!(size[k] > 0)) return false;
        coord_range(f, polygon, count, k, &lo[k], &hi[k]);
        if (!(hi[k] - lo[k] > 1e-9)) return false;
    }
    switch (where) {
    case AL_JUSTIFY_LEFT:
        set_offset(f, 0, offset_of(f, 0) - lo[0]);
        return true;
    case AL_JUSTIFY_RIGHT:
        set_offset(f, 0, offset_of(f, 0) + size[0] - hi[0]);
        return true;
    case AL_JUSTIFY_TOP:
        set_offset(f, 1, offset_of(f, 1) - lo[1]);
        return true;
    case AL_JUSTIFY_BOTTOM:
        set_offset(f, 1, offset_of(f, 1) + size[1] - hi[1]);
        return true;
    case AL_JUSTIFY_CENTRE:
        for (int k = 0; k < 2; k++)
            set_offset(f, k, offset_of(f, k) + size[k] / 2 - (lo[k] + hi[k]) / 2);
        return true;
    }
    return false;
}

static bool apply(al_map_face *f, const double (*polygon)[3], int count, const double size[2],
                  const al_align *a)
{
    switch (a->kind) {
    case AL_ALIGN_SET:
        return set_field(f, a->field, a->value[0]);
    case AL_ALIGN_NUDGE:
        if (!isfinite(a->value[0]) || !isfinite(a->value[1])) return false;
        for (int k = 0; k < 2; k++) set_offset(f, k, offset_of(f, k) + a->value[k]);
        return true;
    case AL_ALIGN_ROTATE:
        return rotate(f, a->value[0]);
    case AL_ALIGN_RESET:
        reset(f);
        return true;
    case AL_ALIGN_TO_FACE:
        return to_face(f);
    case AL_ALIGN_FIT:
        if (count < 3 || !size) return false;
        return fit(f, polygon, count, 0, size[0], a->value[0]) &&
               fit(f, polygon, count, 1, size[1], a->value[1]);
    case AL_ALIGN_JUSTIFY:
        if (count < 3 || !size) return false;
        return justify(f, polygon, count, size, a->justify);
    case AL_ALIGN_PASTE:
        if (!a->source) return false;
        for (int field = AL_FIELD_OFFSET_U; field <= AL_FIELD_ROTATION; field++)
            if (!set_field(f, (al_texture_field) field,
                           al_texture_field_value(a->source, (al_texture_field) field)))
                return false;
        return true;
    }
    return false;
}

bool al_texture_align(al_map_face *f, const double (*polygon)[3], int count, const double size[2],
                      const al_align *a)
{
    /* Work on a copy: a refused operation leaves the face as it was. */
    al_map_face g = *f;
    if (!apply(&g, polygon, count, size, a)) return false;
    g.u_offset = tidy(g.u_offset);
    g.v_offset = tidy(g.v_offset);
    g.offset[0] = tidy(g.offset[0]);
    g.offset[1] = tidy(g.offset[1]);
    *f = g;
    return true;
}

double al_texture_field_value(const al_map_face *f, al_texture_field field)
{
    switch (field) {
    case AL_FIELD_OFFSET_U:
        return offset_of(f, 0);
    case AL_FIELD_OFFSET_V:
        return offset_of(f, 1);
    case AL_FIELD_SCALE_U:
        return scale_of(f, 0);
    case AL_FIELD_SCALE_V:
        return scale_of(f, 1);
    case AL_FIELD_ROTATION:
        return f->rotation;
    }
    return 0;
}
