/* Cameras: every view's matrices, rays, projections and motions against each other and
 * against closed forms. The matrices (cglm) and the projection (the camera's own basis
 * math) are two independent paths to the same screen position. */
#include "al-render.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const al_view_kind kinds[] = {AL_VIEW_3D, AL_VIEW_TOP, AL_VIEW_FRONT, AL_VIEW_SIDE};

static double frand(unsigned *seed, double lo, double hi)
{
    return lo + (hi - lo) * (rand_r(seed) / (double) RAND_MAX);
}

static void random_camera(al_camera *c, al_view_kind kind, unsigned *seed)
{
    al_camera_init(c, kind);
    c->width = 640 + rand_r(seed) % 640;
    c->height = 360 + rand_r(seed) % 360;
    for (int k = 0; k < 3; k++) c->position[k] = frand(seed, -2000, 2000);
    c->yaw = frand(seed, -180, 180);
    c->pitch = frand(seed, -80, 80);
    c->fov_y = frand(seed, 60, 100);
    c->zoom = frand(seed, 0.05, 4);
}

/* Screen position of P through the camera's GL matrices. */
static bool matrix_project(const al_camera *c, const double p[3], double *x, double *y)
{
    float v[16], pr[16];
    al_camera_matrices(c, v, pr);
    double e[4] = {0, 0, 0, 0}, clip[4] = {0, 0, 0, 0}, q[4] = {p[0], p[1], p[2], 1};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) e[i] += v[4 * k + i] * q[k];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) clip[i] += pr[4 * k + i] * e[k];
    if (clip[3] <= 0) return false;
    *x = (clip[0] / clip[3] + 1) * 0.5 * c->width;
    *y = (1 - clip[1] / clip[3]) * 0.5 * c->height;
    return true;
}

CHECK_TEST(matrices, "/camera/matrices-and-projection-agree-in-every-view")
{
    unsigned seed = 1;
    for (int t = 0; t < 400; t++) {
        al_camera c;
        random_camera(&c, kinds[t % 4], &seed);
        double p[3];
        al_camera_unproject(&c, frand(&seed, 0, c.width), frand(&seed, 0, c.height),
                            frand(&seed, 10, 3000), p);
        double x0, y0, x1, y1;
        REQUIRE(al_camera_project(&c, p, &x0, &y0));
        REQUIRE(matrix_project(&c, p, &x1, &y1));
        /* float matrices: a quarter of a pixel */
        CHECK_MSG(fabs(x0 - x1) < 0.25 && fabs(y0 - y1) < 0.25, "view %d: %g,%g vs %g,%g",
                  c.kind, x0, y0, x1, y1);
    }
}

CHECK_TEST(rays, "/camera/the-ray-through-a-pixel-projects-back-to-it")
{
    unsigned seed = 2;
    for (int t = 0; t < 400; t++) {
        al_camera c;
        random_camera(&c, kinds[t % 4], &seed);
        double px = frand(&seed, 0, c.width), py = frand(&seed, 0, c.height);
        double o[3], d[3], p[3], x, y;
        al_camera_ray(&c, px, py, o, d);
        CHECK_NEAR(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1.0, 1e-9);
        double depth = frand(&seed, 5, 5000);
        for (int k = 0; k < 3; k++) p[k] = o[k] + d[k] * depth;
        REQUIRE(al_camera_project(&c, p, &x, &y));
        CHECK_MSG(fabs(x - px) < 1e-6 && fabs(y - py) < 1e-6, "view %d: %g,%g vs %g,%g",
                  c.kind, x, y, px, py);
    }
}

CHECK_TEST(zoom, "/camera/2d-zoom-keeps-the-point-under-the-cursor")
{
    unsigned seed = 3;
    for (int t = 0; t < 200; t++) {
        al_camera c;
        random_camera(&c, kinds[1 + t % 3], &seed);
        double px = frand(&seed, 0, c.width), py = frand(&seed, 0, c.height), before[3], after[3];
        al_camera_unproject(&c, px, py, 0, before);
        al_camera_zoom_at(&c, frand(&seed, 0.5, 2), px, py);
        al_camera_unproject(&c, px, py, 0, after);
        for (int k = 0; k < 3; k++) CHECK_NEAR(after[k], before[k], 1e-6);
        /* Panning moves the map with the mouse. */
        double dx = frand(&seed, -50, 50), dy = frand(&seed, -50, 50), moved[3];
        al_camera_pan(&c, dx, dy);
        al_camera_unproject(&c, px + dx, py + dy, 0, moved);
        for (int k = 0; k < 3; k++) CHECK_NEAR(moved[k], before[k], 1e-6);
    }
}

CHECK_TEST(frame, "/camera/framing-a-box-shows-all-its-corners")
{
    unsigned seed = 4;
    for (int t = 0; t < 200; t++) {
        al_camera c;
        random_camera(&c, kinds[t % 4], &seed);
        double mn[3], mx[3];
        for (int k = 0; k < 3; k++) {
            mn[k] = frand(&seed, -3000, 3000);
            mx[k] = mn[k] + frand(&seed, 8, 4000);
        }
        al_camera_frame(&c, mn, mx);
        for (int i = 0; i < 8; i++) {
            double p[3] = {i & 1 ? mx[0] : mn[0], i & 2 ? mx[1] : mn[1], i & 4 ? mx[2] : mn[2]};
            double x, y;
            REQUIRE(al_camera_project(&c, p, &x, &y));
            CHECK_MSG(x >= -0.5 && x <= c.width + 0.5 && y >= -0.5 && y <= c.height + 0.5,
                      "view %d: corner %d at %g,%g of %dx%d (zoom %g)", c.kind, i, x, y,
                      c.width, c.height, c.zoom);
        }
    }
}

CHECK_TEST(orbit, "/camera/orbit-keeps-the-distance-and-looks-at-the-pivot")
{
    unsigned seed = 5;
    for (int t = 0; t < 200; t++) {
        al_camera c;
        random_camera(&c, AL_VIEW_3D, &seed);
        double pivot[3], d0 = 0, d1 = 0;
        for (int k = 0; k < 3; k++) {
            pivot[k] = c.position[k] + frand(&seed, -500, 500);
            d0 += (pivot[k] - c.position[k]) * (pivot[k] - c.position[k]);
        }
        al_camera_orbit(&c, pivot, frand(&seed, -90, 90), frand(&seed, -30, 30));
        for (int k = 0; k < 3; k++) d1 += (pivot[k] - c.position[k]) * (pivot[k] - c.position[k]);
        CHECK_NEAR(sqrt(d1), sqrt(d0), 1e-6 * sqrt(d0) + 1e-9);
        double x, y;
        if (c.pitch > -88.9 && c.pitch < 88.9) { /* at the clamp the pivot may leave the centre */
            REQUIRE(al_camera_project(&c, pivot, &x, &y));
            CHECK_NEAR(x, 0.5 * c.width, 1e-6);
            CHECK_NEAR(y, 0.5 * c.height, 1e-6);
        }
    }
}

CHECK_TEST(grid, "/camera/grid-step-doubles-until-lines-are-apart")
{
    al_camera c;
    al_camera_init(&c, AL_VIEW_TOP);
    c.zoom = 0.1; /* 16 units = 1.6 px */
    CHECK(al_camera_grid_step(&c, 16, 6) == 64);
    c.zoom = 1;
    CHECK(al_camera_grid_step(&c, 16, 6) == 16);
    CHECK(al_snap(23, 16) == 16 && al_snap(25, 16) == 32 && al_snap(-25, 16) == -32);
    CHECK(al_snap(3.3, 0) == 3.3);
    int r, u, d;
    al_view_axes(AL_VIEW_FRONT, &r, &u, &d);
    CHECK(r == 0 && u == 2 && d == 1);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
