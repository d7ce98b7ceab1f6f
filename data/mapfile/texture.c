/* Texture projection (see texture.h). */
#include "texture.h"

#include "al-vec3.h"

#include <math.h>

/* Quake's base axes: the axial plane a face is projected on, by its normal (floor,
 * ceiling, then the walls; the first of equally near ones wins, as in qbsp). */
static void base_axes(const double normal[3], double s[3], double t[3])
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

static void face_normal(const al_map_face *f, double n[3])
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

/* Cosine and sine of ROTATION degrees; right angles exact, as Quake special-cases them. */
static void cos_sin(double rotation, double *c, double *s)
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
    face_normal(f, n);
    base_axes(n, s, t);
    cos_sin(f->rotation, &c, &si);
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
    face_normal(f, n);
    base_axes(n, s, t);
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
    cos_sin(angle, &c, &si);
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
