/* No seam where two faces meet: a floor made of two brushes side by side, lit by one lamp of
 * linear falloff without angle scale, its lightmap sampled on both faces at points of their
 * shared edge as the renderer samples it (each face's texel axes from al_rad_face, bilinear
 * between texel centres, clamped at the atlas's edge, from a snapshot of the atlas). The
 * light itself is continuous there; what the two faces may show apart is what the closed
 * form of the lamp's light changes by between the sample points of the luxels filtering
 * draws from at the edge (the centroids of their cells' parts on each face; the texels sit
 * at the cells' centres), and each must show a value between those. Any more is a seam:
 * without
 * the border of a texel around each face's luxels in the atlas, bilinear filtering at a
 * face's edge reaches into a texel of another face or of none. Checked with the edge on the
 * luxel grid and off it, and the light at the edge against the closed form too. */
#include "al-rad.h"
#include "check.h"
#include "mapgen.h"
#include "rad/rad-internal.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W     1024.0
#define D     512.0
#define H     192.0
#define LEVEL 300.0
#define LUXEL 16.0

/* The lamp: 40 units past the edge at X0, 128 above the floor, over the room's middle. */
static void lamp_at(double x0, double out[3])
{
    out[0] = x0 + 40, out[1] = D / 2, out[2] = 128;
}

/* The closed form: Quake's linear falloff ("delay" 0, "wait" 1) at point (X, Y) of the
 * floor, angle scale 0. */
static double light_at(double x0, double x, double y)
{
    double l[3];
    lamp_at(x0, l);
    double d = sqrt((x - l[0]) * (x - l[0]) + (y - l[1]) * (y - l[1]) + l[2] * l[2]);
    return fmax(LEVEL - d, 0);
}

/* The sample points (x) of the two luxel columns of a face spanning [FA, FB] in x that
 * bilinear filtering takes at X: those whose cells' centres bracket X, a column past the
 * face's last being its last (the atlas's border repeats it). A luxel's sample point is the
 * centroid of its cell's part on the face. */
static void columns_at(double x, double fa, double fb, double out[2])
{
    int first = (int) floor(fa / LUXEL), last = (int) ceil(fb / LUXEL) - 1;
    int k0 = (int) floor((x - LUXEL / 2) / LUXEL);
    for (int d = 0; d < 2; d++) {
        int k = k0 + d < first ? first : k0 + d > last ? last : k0 + d;
        out[d] = (fmax(k * LUXEL, fa) + fmin((k + 1) * LUXEL, fb)) / 2;
    }
}

/* A sealed room whose floor is two brushes meeting at x = X0. */
static mapgen *two_floors(double x0)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, -16, -16, -16, x0, D + 16, 0, "stone");
    mapgen_box(g, x0, -16, -16, W + 16, D + 16, 0, "stone");
    mapgen_box(g, -16, -16, H, W + 16, D + 16, H + 16, "stone");
    mapgen_box(g, -16, -16, 0, 0, D + 16, H, "stone");
    mapgen_box(g, W, -16, 0, W + 16, D + 16, H, "stone");
    mapgen_box(g, 0, -16, 0, W, 0, H, "stone");
    mapgen_box(g, 0, D, 0, W, D + 16, H, "stone");
    mapgen_end_entity(g);
    double l[3];
    lamp_at(x0, l);
    mapgen_begin_entity(g, "light");
    mapgen_keyf(g, "origin", "%g %g %g", l[0], l[1], l[2]);
    mapgen_keyf(g, "light", "%g", LEVEL);
    mapgen_key(g, "delay", "0");
    mapgen_key(g, "_anglescale", "0");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", W / 2, D / 2, 32);
    return g;
}

/* The map of the top face (normal +z, at z = 0) of input brush BRUSH. */
static bool floor_map(const al_rad *rad, int brush, al_rad_face_map *out)
{
    for (int32_t i = 0; i < rad->face_count; i++) {
        const rad_face *f = &rad->faces[i];
        if (f->brush == brush && f->normal[2] > 0.99 && fabs(f->dist) < 1e-9)
            return al_rad_face(rad, brush, f->face, out);
    }
    return false;
}

/* What the renderer shows at point P of a face of map FM: its texel coordinates, then
 * GL_LINEAR filtering (texel centres at i + 0.5, clamped to the edge) of MAP's texels;
 * channel 0 (the lamp is white). */
static double sample(const al_rad_lightmap *map, const al_rad_face_map *fm, const double p[3])
{
    double s = p[0] * fm->s_texel_axis[0] + p[1] * fm->s_texel_axis[1] +
               p[2] * fm->s_texel_axis[2] + fm->s_texel_offset;
    double t = p[0] * fm->t_texel_axis[0] + p[1] * fm->t_texel_axis[1] +
               p[2] * fm->t_texel_axis[2] + fm->t_texel_offset;
    double u = s - 0.5, v = t - 0.5;
    int i = (int) floor(u), j = (int) floor(v);
    double fu = u - i, fv = v - j, sum = 0;
    for (int dj = 0; dj < 2; dj++)
        for (int di = 0; di < 2; di++) {
            int x = i + di < 0 ? 0 : i + di >= map->width ? map->width - 1 : i + di;
            int y = j + dj < 0 ? 0 : j + dj >= map->height ? map->height - 1 : j + dj;
            double w = (di ? fu : 1 - fu) * (dj ? fv : 1 - fv);
            sum += w * map->texels[(size_t) y * map->width + x][0];
        }
    return sum;
}

typedef struct seam {
    double worst_step;  /* |left - right| at the edge, the most found */
    double allowed;     /* the closed form's change between the sample points, the most */
    double excess;      /* the most a step exceeds its point's allowance by (0: none) */
    double worst_level; /* the most either side lies outside the closed form's range there */
    int points;
} seam;

static void measure(double x0, seam *out)
{
    memset(out, 0, sizeof *out);
    scene s;
    REQUIRE(scene_load_mapgen(&s, two_floors(x0),
                              &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
    al_rad *rad = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input,
                          &(al_rad_options){.luxel_size = LUXEL, .no_ambient = true}, &rad,
                          NULL) == AL_OK);
    REQUIRE(al_rad_step(rad, 1) == 1); /* the lamp: direct light only, no bounce */
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    al_rad_face_map left, right;
    REQUIRE(floor_map(rad, 0, &left) && floor_map(rad, 1, &right));
    CHECK_MSG(left.x != right.x || left.y != right.y, "the two floors share a place");
    /* The sample points of the luxel columns bilinear filtering draws from at the edge,
     * on each side. */
    double xs[4];
    columns_at(x0, 0, x0, xs);
    columns_at(x0, x0, W, xs + 2);
    /* Along the edge where both sides are well lit, off the rows nearest the walls. */
    for (double y = D / 2 - 160; y <= D / 2 + 160; y += 1.0) {
        double p[3] = {x0, y, 0};
        double a = sample(&map, &left, p), b = sample(&map, &right, p);
        /* Bilinear between the luxel rows above and below Y: the change between the sample
         * points on either row bounds the step, the closed form at the edge the level. */
        double row0 = floor(y / LUXEL - 0.5) * LUXEL + LUXEL / 2, rows[2] = {row0, row0 + LUXEL};
        /* Both sides weigh the two rows alike: on each row each side shows a value between
         * the closed form's at its sample points there. */
        double edge_lo = INFINITY, edge_hi = -INFINITY, allowed = 0;
        for (int r = 0; r < 2; r++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int k = 0; k < 4; k++) {
                double l = light_at(x0, xs[k], rows[r]);
                lo = fmin(lo, l);
                hi = fmax(hi, l);
            }
            allowed = fmax(allowed, hi - lo);
            edge_lo = fmin(edge_lo, lo);
            edge_hi = fmax(edge_hi, hi);
        }
        allowed += 1e-4 * LEVEL; /* float texels */
        out->allowed = fmax(out->allowed, allowed);
        out->worst_step = fmax(out->worst_step, fabs(a - b));
        out->excess = fmax(out->excess, fabs(a - b) - allowed);
        /* Each side shows a value between the closed form's at the sample points nearby. */
        double off = fmax(fmax(edge_lo - 1e-4 * LEVEL - fmin(a, b), 0),
                          fmax(fmax(a, b) - edge_hi - 1e-4 * LEVEL, 0));
        out->worst_level = fmax(out->worst_level, off);
        out->points++;
    }
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
}

static void check_seam(double x0, const char *what)
{
    seam m;
    measure(x0, &m);
    CHECK_MSG(m.points > 300 && m.excess <= 0 && m.worst_level == 0,
              "%s (x = %g): a step across the edge %.3f more than the light changes by there "
              "(steps up to %.3f, changes up to %.3f); the shown light is off the closed form's "
              "by %.3f",
              what, x0, m.excess, m.worst_step, m.allowed, m.worst_level);
    check_note("%s (x = %g): %d points along the edge, steps up to %.3f where the light "
               "changes by up to %.3f between the sample points either side",
               what, x0, m.points, m.worst_step, m.allowed);
}

CHECK_TEST(on_grid, "/rad/seam/two-floors-meeting-on-the-luxel-grid-show-no-step")
{
    check_seam(512, "the edge on the grid");
}

CHECK_TEST(off_grid, "/rad/seam/two-floors-meeting-inside-a-luxel-show-no-step")
{
    check_seam(500, "the edge inside a luxel");
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
