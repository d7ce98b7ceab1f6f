/* Cameras of the editor's views (al-render.h): the 3D perspective eye and the three 2D
 * orthographic views, their matrices, rays through pixels and the motions of the views.
 *
 * Conventions: Quake's Z-up world. A 3D camera looks along
 * (cos pitch cos yaw, cos pitch sin yaw, sin pitch); "right" is that direction crossed with
 * +Z. Each 2D view has a fixed basis (al_view_axes) with right x up = -forward, as in eye
 * space, so one lookat builds every view matrix. All math is double; only the matrices
 * handed to GL are float. */
#include "al-render.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

#define DEG (M_PI / 180.0)
#define NEAR_3D 1.0      /* map units: a wall the eye almost touches still draws */
#define FAR_3D 32768.0   /* twice the diagonal of the largest Quake map */
#define DEPTH_2D 131072.0 /* half the depth range of a 2D view */
#define MIN_ZOOM (1.0 / 64.0)
#define MAX_ZOOM 64.0

void al_camera_init(al_camera *cam, al_view_kind kind)
{
    memset(cam, 0, sizeof *cam);
    cam->kind = kind;
    cam->fov_y = 90.0;
    cam->zoom = 0.5;
    cam->width = cam->height = 1;
}

void al_view_axes(al_view_kind kind, int *right, int *up, int *depth)
{
    static const int axes[4][3] = {{0, 1, 2}, {0, 1, 2}, {0, 2, 1}, {1, 2, 0}};
    int k = kind >= AL_VIEW_3D && kind <= AL_VIEW_SIDE ? (int) kind : 0;
    *right = axes[k][0];
    *up = axes[k][1];
    *depth = axes[k][2];
}

void al_camera_basis(const al_camera *cam, double forward[3], double right[3], double up[3])
{
    switch (cam->kind) {
    case AL_VIEW_TOP:
        memcpy(forward, (double[3]){0, 0, -1}, sizeof(double[3]));
        memcpy(right, (double[3]){1, 0, 0}, sizeof(double[3]));
        memcpy(up, (double[3]){0, 1, 0}, sizeof(double[3]));
        return;
    case AL_VIEW_FRONT:
        memcpy(forward, (double[3]){0, 1, 0}, sizeof(double[3]));
        memcpy(right, (double[3]){1, 0, 0}, sizeof(double[3]));
        memcpy(up, (double[3]){0, 0, 1}, sizeof(double[3]));
        return;
    case AL_VIEW_SIDE:
        memcpy(forward, (double[3]){-1, 0, 0}, sizeof(double[3]));
        memcpy(right, (double[3]){0, 1, 0}, sizeof(double[3]));
        memcpy(up, (double[3]){0, 0, 1}, sizeof(double[3]));
        return;
    case AL_VIEW_3D:
        break;
    }
    double cy = cos(cam->yaw * DEG), sy = sin(cam->yaw * DEG);
    double cp = cos(cam->pitch * DEG), sp = sin(cam->pitch * DEG);
    forward[0] = cp * cy;
    forward[1] = cp * sy;
    forward[2] = sp;
    right[0] = sy;
    right[1] = -cy;
    right[2] = 0;
    /* up = right x forward */
    up[0] = right[1] * forward[2] - right[2] * forward[1];
    up[1] = right[2] * forward[0] - right[0] * forward[2];
    up[2] = right[0] * forward[1] - right[1] * forward[0];
}

static double aspect_of(const al_camera *cam)
{
    return cam->height > 0 ? (double) cam->width / cam->height : 1.0;
}

static double tan_half_fov(const al_camera *cam)
{
    double fov = cam->fov_y > 1 && cam->fov_y < 179 ? cam->fov_y : 90.0;
    return tan(0.5 * fov * DEG);
}

void al_camera_matrices(const al_camera *cam, float view[16], float proj[16])
{
    double f[3], r[3], u[3];
    al_camera_basis(cam, f, r, u);
    vec3 eye = {(float) cam->position[0], (float) cam->position[1], (float) cam->position[2]};
    vec3 dir = {(float) f[0], (float) f[1], (float) f[2]};
    vec3 upv = {(float) u[0], (float) u[1], (float) u[2]};
    mat4 v, p;
    glm_look(eye, dir, upv, v);
    if (cam->kind == AL_VIEW_3D) {
        glm_perspective((float) (2.0 * atan(tan_half_fov(cam))), (float) aspect_of(cam),
                        (float) NEAR_3D, (float) FAR_3D, p);
    } else {
        double hw = 0.5 * cam->width / cam->zoom, hh = 0.5 * cam->height / cam->zoom;
        glm_ortho((float) -hw, (float) hw, (float) -hh, (float) hh, (float) -DEPTH_2D,
                  (float) DEPTH_2D, p);
    }
    memcpy(view, v, sizeof(float[16]));
    memcpy(proj, p, sizeof(float[16]));
}

/* Normalized device coordinates of pixel (X, Y): -1..1, Y up. */
static void pixel_ndc(const al_camera *cam, double x, double y, double *nx, double *ny)
{
    *nx = cam->width > 0 ? 2.0 * x / cam->width - 1.0 : 0;
    *ny = cam->height > 0 ? 1.0 - 2.0 * y / cam->height : 0;
}

void al_camera_ray(const al_camera *cam, double x, double y, double origin[3], double dir[3])
{
    double f[3], r[3], u[3], nx, ny;
    al_camera_basis(cam, f, r, u);
    pixel_ndc(cam, x, y, &nx, &ny);
    if (cam->kind == AL_VIEW_3D) {
        double t = tan_half_fov(cam), a = aspect_of(cam), len = 0;
        for (int k = 0; k < 3; k++) {
            dir[k] = f[k] + r[k] * nx * t * a + u[k] * ny * t;
            len += dir[k] * dir[k];
        }
        len = sqrt(len);
        for (int k = 0; k < 3; k++) {
            dir[k] /= len;
            origin[k] = cam->position[k];
        }
        return;
    }
    double p[3];
    al_camera_unproject(cam, x, y, 0, p);
    for (int k = 0; k < 3; k++) {
        dir[k] = f[k];
        origin[k] = p[k] - f[k] * DEPTH_2D;
    }
}

void al_camera_unproject(const al_camera *cam, double x, double y, double depth, double out[3])
{
    if (cam->kind == AL_VIEW_3D) {
        double o[3], d[3];
        al_camera_ray(cam, x, y, o, d);
        for (int k = 0; k < 3; k++) out[k] = o[k] + d[k] * depth;
        return;
    }
    double f[3], r[3], u[3], nx, ny;
    al_camera_basis(cam, f, r, u);
    pixel_ndc(cam, x, y, &nx, &ny);
    double hw = 0.5 * cam->width / cam->zoom, hh = 0.5 * cam->height / cam->zoom;
    for (int k = 0; k < 3; k++) out[k] = cam->position[k] + r[k] * nx * hw + u[k] * ny * hh;
}

bool al_camera_project(const al_camera *cam, const double p[3], double *x, double *y)
{
    double f[3], r[3], u[3], v[3];
    al_camera_basis(cam, f, r, u);
    for (int k = 0; k < 3; k++) v[k] = p[k] - cam->position[k];
    double sx = v[0] * r[0] + v[1] * r[1] + v[2] * r[2];
    double sy = v[0] * u[0] + v[1] * u[1] + v[2] * u[2];
    double nx, ny;
    if (cam->kind == AL_VIEW_3D) {
        double z = v[0] * f[0] + v[1] * f[1] + v[2] * f[2];
        if (z <= 1e-9) return false;
        double t = tan_half_fov(cam);
        nx = sx / (z * t * aspect_of(cam));
        ny = sy / (z * t);
    } else {
        nx = sx / (0.5 * cam->width / cam->zoom);
        ny = sy / (0.5 * cam->height / cam->zoom);
    }
    *x = (nx + 1.0) * 0.5 * cam->width;
    *y = (1.0 - ny) * 0.5 * cam->height;
    return true;
}

void al_camera_fly(al_camera *cam, double forward, double right, double up)
{
    double f[3], r[3], u[3];
    al_camera_basis(cam, f, r, u);
    for (int k = 0; k < 3; k++) cam->position[k] += f[k] * forward + r[k] * right;
    cam->position[2] += up;
}

static double clamp_pitch(double pitch)
{
    return pitch > 89 ? 89 : pitch < -89 ? -89 : pitch;
}

void al_camera_look(al_camera *cam, double dyaw, double dpitch)
{
    cam->yaw = fmod(cam->yaw + dyaw, 360.0);
    cam->pitch = clamp_pitch(cam->pitch + dpitch);
}

void al_camera_orbit(al_camera *cam, const double pivot[3], double dyaw, double dpitch)
{
    double dist = 0;
    for (int k = 0; k < 3; k++) {
        double d = cam->position[k] - pivot[k];
        dist += d * d;
    }
    dist = sqrt(dist);
    /* Look at the pivot first, so orbiting starts from where the eye is. */
    if (dist > 1e-9) {
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = (pivot[k] - cam->position[k]) / dist;
        cam->yaw = atan2(d[1], d[0]) / DEG;
        cam->pitch = clamp_pitch(asin(d[2] > 1 ? 1 : d[2] < -1 ? -1 : d[2]) / DEG);
    }
    al_camera_look(cam, dyaw, dpitch);
    double f[3], r[3], u[3];
    al_camera_basis(cam, f, r, u);
    for (int k = 0; k < 3; k++) cam->position[k] = pivot[k] - f[k] * dist;
}

void al_camera_pan(al_camera *cam, double dx, double dy)
{
    double f[3], r[3], u[3];
    al_camera_basis(cam, f, r, u);
    for (int k = 0; k < 3; k++) cam->position[k] += (-r[k] * dx + u[k] * dy) / cam->zoom;
}

void al_camera_zoom_at(al_camera *cam, double factor, double x, double y)
{
    double before[3], after[3];
    al_camera_unproject(cam, x, y, 0, before);
    double z = cam->zoom * factor;
    cam->zoom = z < MIN_ZOOM ? MIN_ZOOM : z > MAX_ZOOM ? MAX_ZOOM : z;
    al_camera_unproject(cam, x, y, 0, after);
    for (int k = 0; k < 3; k++) cam->position[k] += before[k] - after[k];
}

void al_camera_frame(al_camera *cam, const double mins[3], const double maxs[3])
{
    double c[3], radius = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (mins[k] + maxs[k]);
        double h = 0.5 * (maxs[k] - mins[k]);
        radius += h * h;
    }
    radius = sqrt(radius);
    if (radius < 8) radius = 8;
    if (cam->kind == AL_VIEW_3D) {
        double t = tan_half_fov(cam), a = aspect_of(cam);
        double half = atan(a < 1 ? t * a : t); /* the narrower half angle */
        double dist = radius / sin(half);
        double f[3], r[3], u[3];
        al_camera_basis(cam, f, r, u);
        for (int k = 0; k < 3; k++) cam->position[k] = c[k] - f[k] * dist;
        return;
    }
    int ax_r, ax_u, ax_d;
    al_view_axes(cam->kind, &ax_r, &ax_u, &ax_d);
    double w = (maxs[ax_r] - mins[ax_r]) * 1.1 + 16, h = (maxs[ax_u] - mins[ax_u]) * 1.1 + 16;
    double z = fmin(cam->width / w, cam->height / h);
    cam->zoom = z < MIN_ZOOM ? MIN_ZOOM : z > MAX_ZOOM ? MAX_ZOOM : z;
    memcpy(cam->position, c, sizeof c);
}

double al_camera_grid_step(const al_camera *cam, double grid, double min_pixels)
{
    if (grid <= 0) return 0;
    if (cam->kind == AL_VIEW_3D) return grid;
    double step = grid;
    while (step * cam->zoom < min_pixels && step < 1e6) step *= 2;
    return step;
}

double al_snap(double v, double grid)
{
    return grid > 0 ? round(v / grid) * grid : v;
}

void al_box_edge_points(const double lo[3], const double hi[3], double out[24][3])
{
    int n = 0;
    for (int axis = 0; axis < 3; axis++) {
        int b = (axis + 1) % 3, c = (axis + 2) % 3;
        for (int corner = 0; corner < 4; corner++, n += 2) {
            double *p = out[n], *q = out[n + 1];
            p[b] = q[b] = (corner & 1) ? hi[b] : lo[b];
            p[c] = q[c] = (corner & 2) ? hi[c] : lo[c];
            p[axis] = lo[axis];
            q[axis] = hi[axis];
        }
    }
}
