/* Double-precision 3-vectors for the compiler's geometry.
 *
 * cglm (used by render/) is single precision, which is not enough for a BSP of a 16k-unit
 * map; these few inline helpers follow cglm's conventions instead: arrays, output last, and
 * the output may alias an input.
 */
#ifndef AL_VEC3_H
#define AL_VEC3_H

#include <math.h>

typedef double al_vec3[3];

static inline double al_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void al_copy(const double a[3], double dest[3])
{
    dest[0] = a[0];
    dest[1] = a[1];
    dest[2] = a[2];
}

static inline void al_set(double x, double y, double z, double dest[3])
{
    dest[0] = x;
    dest[1] = y;
    dest[2] = z;
}

static inline void al_add(const double a[3], const double b[3], double dest[3])
{
    dest[0] = a[0] + b[0];
    dest[1] = a[1] + b[1];
    dest[2] = a[2] + b[2];
}

static inline void al_sub(const double a[3], const double b[3], double dest[3])
{
    dest[0] = a[0] - b[0];
    dest[1] = a[1] - b[1];
    dest[2] = a[2] - b[2];
}

static inline void al_scale(const double a[3], double s, double dest[3])
{
    dest[0] = a[0] * s;
    dest[1] = a[1] * s;
    dest[2] = a[2] * s;
}

/* dest = a + b * s */
static inline void al_madd(const double a[3], const double b[3], double s, double dest[3])
{
    dest[0] = a[0] + b[0] * s;
    dest[1] = a[1] + b[1] * s;
    dest[2] = a[2] + b[2] * s;
}

/* dest = a + (b - a) * t */
static inline void al_lerp(const double a[3], const double b[3], double t, double dest[3])
{
    dest[0] = a[0] + (b[0] - a[0]) * t;
    dest[1] = a[1] + (b[1] - a[1]) * t;
    dest[2] = a[2] + (b[2] - a[2]) * t;
}

static inline void al_cross(const double a[3], const double b[3], double dest[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    dest[0] = x;
    dest[1] = y;
    dest[2] = z;
}

static inline double al_length(const double a[3])
{
    return sqrt(al_dot(a, a));
}

/* Normalizes A into DEST and returns the old length; a zero vector stays zero. */
static inline double al_normalize(const double a[3], double dest[3])
{
    double len = al_length(a);
    if (len > 0) al_scale(a, 1.0 / len, dest);
    else al_set(0, 0, 0, dest);
    return len;
}

static inline int al_is_finite3(const double a[3])
{
    return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

static inline void al_bounds_clear(double mins[3], double maxs[3])
{
    mins[0] = mins[1] = mins[2] = INFINITY;
    maxs[0] = maxs[1] = maxs[2] = -INFINITY;
}

static inline void al_bounds_add(const double p[3], double mins[3], double maxs[3])
{
    for (int k = 0; k < 3; k++) {
        if (p[k] < mins[k]) mins[k] = p[k];
        if (p[k] > maxs[k]) maxs[k] = p[k];
    }
}

/* True if the boxes overlap by more than EPS on every axis. */
static inline int al_bounds_overlap(const double amin[3], const double amax[3],
                                    const double bmin[3], const double bmax[3], double eps)
{
    for (int k = 0; k < 3; k++)
        if (amin[k] >= bmax[k] - eps || bmin[k] >= amax[k] - eps) return 0;
    return 1;
}

#endif
