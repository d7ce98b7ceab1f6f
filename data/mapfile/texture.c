/* Texture projection (see texture.h). */
#include "texture.h"

#include "al-vec3.h"

#include <math.h>
#include <string.h>

void al_texture_base_axes(const double normal[3], double s[3], double t[3])
{
    static const double table[6][3][3] = {
        {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  /* floor */
        {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}}, /* ceiling */
        {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},  /* west wall */
        {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, /* east wall */
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  /* south wall */
        {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}}, /* north wall */
    };
    int best = 0;
    double best_dot = -2;
    for (int i = 0; i < 6; i++) {
        double d = al_dot(normal, table[i][0]);
        if (d > best_dot + 1e-9) {
            best_dot = d;
            best = i;
        }
    }
    al_copy(table[best][1], s);
    al_copy(table[best][2], t);
}

void al_texture_face_normal(const al_map_face *f, double n[3])
{
    double a[3], b[3];
    al_sub(f->points[0], f->points[1], a);
    al_sub(f->points[2], f->points[1], b);
    al_cross(a, b, n);
    al_normalize(n, n);
}

/* The index of the non-zero component of an axial unit vector. */
static int axis_of(const double a[3])
{
    return fabs(a[0]) > 0.5 ? 0 : fabs(a[1]) > 0.5 ? 1 : 2;
}

void al_texture_cos_sin(double rotation, double *c, double *s)
{
    double quarter = rotation / 90.0;
    if (quarter == floor(quarter) && fabs(quarter) < 1e9) {
        static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        int q = (int) fmod(fmod(quarter, 4) + 4, 4);
        *c = cs[q][0];
        *s = cs[q][1];
    } else {
        double a = rotation * M_PI / 180.0;
        *c = cos(a);
        *s = sin(a);
    }
}

/* The rotated base axes of a standard face (unit vectors, before scaling). */
static void standard_axes(const al_map_face *f, double rs[3], double rt[3])
{
    double n[3], s[3], t[3], c, si;
    al_texture_face_normal(f, n);
    al_texture_base_axes(n, s, t);
    al_texture_cos_sin(f->rotation, &c, &si);
    int sv = axis_of(s), tv = axis_of(t);
    al_copy(s, rs);
    al_copy(t, rt);
    rs[sv] = c * s[sv] - si * s[tv];
    rs[tv] = si * s[sv] + c * s[tv];
    rt[sv] = c * t[sv] - si * t[tv];
    rt[tv] = si * t[sv] + c * t[tv];
}

void al_texture_axes(const al_map_face *f, double axes[2][4])
{
    double sx = f->scale[0] ? f->scale[0] : 1, sy = f->scale[1] ? f->scale[1] : 1;
    double u[3], v[3];
    if (f->valve) {
        al_copy(f->u_axis, u);
        al_copy(f->v_axis, v);
        axes[0][3] = f->u_offset;
        axes[1][3] = f->v_offset;
    } else {
        standard_axes(f, u, v);
        axes[0][3] = f->offset[0];
        axes[1][3] = f->offset[1];
    }
    for (int k = 0; k < 3; k++) {
        axes[0][k] = u[k] / sx;
        axes[1][k] = v[k] / sy;
    }
}

void al_texture_coords(const al_map_face *f, const double p[3], double uv[2])
{
    double axes[2][4];
    al_texture_axes(f, axes);
    for (int i = 0; i < 2; i++) uv[i] = al_dot(p, axes[i]) + axes[i][3];
}

void al_texture_to_valve(const al_map_face *f, double u[3], double *u_off, double v[3],
                         double *v_off)
{
    /* The same formula with the axes written out: the scales and offsets carry over. */
    standard_axes(f, u, v);
    *u_off = f->offset[0];
    *v_off = f->offset[1];
}

bool al_texture_to_standard(const al_map_face *f, double offset[2], double *rotation,
                            double scale[2])
{
    double n[3], s[3], t[3];
    al_texture_face_normal(f, n);
    al_texture_base_axes(n, s, t);
    int sv = axis_of(s), tv = axis_of(t), drop = 3 - sv - tv;
    double su = f->scale[0] ? f->scale[0] : 1, sw = f->scale[1] ? f->scale[1] : 1;
    offset[0] = f->u_offset;
    offset[1] = f->v_offset;
    /* U in the projection plane, in the base axes' frame: (cos, sin) of the rotation times
     * the ratio of the scales. */
    double ux = f->u_axis[sv] * s[sv], uy = f->u_axis[tv] * s[sv];
    double lu = hypot(ux, uy);
    if (!(lu > 1e-12)) {
        *rotation = 0;
        scale[0] = su;
        scale[1] = sw;
        return false;
    }
    double angle = atan2(uy, ux) * 180.0 / M_PI;
    /* Whole degrees when within rounding: editors write those. */
    if (fabs(angle - round(angle)) < 1e-9) angle = round(angle);
    *rotation = angle == 0 ? 0 : angle; /* no -0 */
    double c, si;
    al_texture_cos_sin(angle, &c, &si);
    /* T rotated: (-sin, cos) times t's sign on the plane's axes; V's part along it. */
    double tx = -si * t[tv], ty = c * t[tv];
    double pv = f->v_axis[sv] * tx + f->v_axis[tv] * ty;
    scale[0] = su / lu;
    scale[1] = fabs(pv) > 1e-12 ? sw / pv : sw;
    /* Exact only if nothing was lost: no part of U or V off the plane or across. */
    double cross = f->u_axis[sv] * tx + f->u_axis[tv] * ty;
    double vx = f->v_axis[sv] - pv * tx, vy = f->v_axis[tv] - pv * ty;
    return fabs(f->u_axis[drop]) < 1e-9 && fabs(f->v_axis[drop]) < 1e-9 && fabs(cross) < 1e-9 &&
           hypot(vx, vy) < 1e-9 && fabs(pv) > 1e-12;
}

/* X rounded to a whole number when within rounding of one: editors write those. */
static double tidy(double x)
{
    double r = round(x);
    return fabs(x - r) < 1e-9 ? (r == 0 ? 0 : r) : x;
}

/* The axis a texture axis A (one texel per SCALE units, offset OFF) must become under the
 * linear part L and translation T for every point to keep its coordinate: dot(L p + T, A')
 * / scale' + off' = dot(p, A) / scale + off, so A' (unnormalised) = L^-T A. INV is L^-1. */
static void lock_axis(const double inv[3][3], const double t[3], double a[3], double *scale,
                      double *off)
{
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = inv[0][k] * a[0] + inv[1][k] * a[1] + inv[2][k] * a[2];
    double len = al_length(x);
    *off = tidy(*off - al_dot(t, x) / *scale);
    for (int k = 0; k < 3; k++) {
        a[k] = x[k] / len;
        if (fabs(a[k]) < 1e-12)
            a[k] = 0;
        else if (fabs(fabs(a[k]) - 1) < 1e-12)
            a[k] = a[k] > 0 ? 1 : -1;
    }
    *scale /= len;
}

bool al_texture_lock(al_map_face *f, const double m[3][4], const double moved[3][3])
{
    /* The inverse of the linear part, by cofactors. */
    double a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][0], e = m[1][1], g = m[1][2],
           h = m[2][0], i = m[2][1], k = m[2][2];
    double det = a * (e * k - g * i) - b * (d * k - g * h) + c * (d * i - e * h);
    if (!(fabs(det) > 1e-12) || !isfinite(det)) return false;
    const double inv[3][3] = {
        {(e * k - g * i) / det, (c * i - b * k) / det, (b * g - c * e) / det},
        {(g * h - d * k) / det, (a * k - c * h) / det, (c * d - a * g) / det},
        {(d * i - e * h) / det, (b * h - a * i) / det, (a * e - b * d) / det}};
    const double t[3] = {m[0][3], m[1][3], m[2][3]};
    al_map_face v = *f;
    if (!f->valve) {
        al_texture_to_valve(f, v.u_axis, &v.u_offset, v.v_axis, &v.v_offset);
        v.valve = true;
    }
    if (v.scale[0] == 0) v.scale[0] = 1;
    if (v.scale[1] == 0) v.scale[1] = 1;
    lock_axis(inv, t, v.u_axis, &v.scale[0], &v.u_offset);
    lock_axis(inv, t, v.v_axis, &v.scale[1], &v.v_offset);
    memcpy(v.points, moved, sizeof v.points);
    memcpy(f->points, moved, sizeof f->points);
    if (f->valve) {
        memcpy(f->u_axis, v.u_axis, sizeof f->u_axis);
        memcpy(f->v_axis, v.v_axis, sizeof f->v_axis);
        f->u_offset = v.u_offset;
        f->v_offset = v.v_offset;
        f->scale[0] = tidy(v.scale[0]);
        f->scale[1] = tidy(v.scale[1]);
        return true;
    }
    double before[2];
    al_texture_coords(&v, moved[1], before); /* the coordinate the face's corner keeps */
    bool exact = al_texture_to_standard(&v, f->offset, &f->rotation, f->scale);
    if (!exact) {
        /* The nearest rotation and scales, with the offsets that keep that corner on its
         * texel: the texture drifts only away from it. */
        double after[2];
        al_texture_coords(f, moved[1], after);
        f->offset[0] += before[0] - after[0];
        f->offset[1] += before[1] - after[1];
    }
    f->offset[0] = tidy(f->offset[0]);
    f->offset[1] = tidy(f->offset[1]);
    f->scale[0] = tidy(f->scale[0]);
    f->scale[1] = tidy(f->scale[1]);
    return exact;
}
