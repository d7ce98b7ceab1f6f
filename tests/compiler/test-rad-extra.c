/* Antialiased direct light ("allium_extra_samples", al_rad_options.extra_samples) against
 * closed forms: a lamp without falloff or angle scale over a floor, a plate with a slanted
 * straight edge between them casting a half-plane shadow. Each floor luxel must show the
 * lamp's level times the part of its cell the lamp lights, computed exactly by clipping the
 * cell with the shadow's edge: within the bound of an N x N sub-grid, and the error along
 * the edge (the stair-steps) must drop as N grows. Every sample point of every luxel of the
 * map is checked by brute force to lie on its face and out of solid. Light carried across
 * random edits with 2 x 2 samples must match a new solver's (al_rad_update). */
#include "al-edits.h"
#include "al-rad.h"
#include "al-vec3.h"
#include "al-world.h"
#include "check.h"
#include "mapgen.h"
#include "rad-check.h"
#include "rad/rad-internal.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOM   2048.0
#define LEVEL  200.0
#define LAMP_X 1024.0
#define LAMP_Y 1500.0
#define LAMP_Z 512.0
#define PLATE0 256.0 /* the plate's bottom and top */
#define PLATE1 264.0

/* The plate covers the room's plan below the line from (0, EDGE0) to (ROOM, EDGE1). */
#define EDGE0 600.0
#define EDGE1 1400.0

/* The room, its worldspawn's "allium_extra_samples" EXTRA (NULL: none). */
static mapgen *shadow_room(const char *extra)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    if (extra) mapgen_key(g, "allium_extra_samples", extra);
    mapgen_box(g, -16, -16, -16, ROOM + 16, ROOM + 16, 0, "stone");
    mapgen_box(g, -16, -16, 1024, ROOM + 16, ROOM + 16, 1040, "stone");
    mapgen_box(g, -16, -16, 0, 0, ROOM + 16, 1024, "stone");
    mapgen_box(g, ROOM, -16, 0, ROOM + 16, ROOM + 16, 1024, "stone");
    mapgen_box(g, 0, -16, 0, ROOM, 0, 1024, "stone");
    mapgen_box(g, 0, ROOM, 0, ROOM, ROOM + 16, 1024, "stone");
    const double plate[4][2] = {{0, 0}, {ROOM, 0}, {ROOM, EDGE1}, {0, EDGE0}};
    mapgen_prism(g, 4, plate, PLATE0, PLATE1, "stone");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_keyf(g, "origin", "%g %g %g", LAMP_X, LAMP_Y, LAMP_Z);
    mapgen_keyf(g, "light", "%g", LEVEL);
    mapgen_key(g, "delay", "3");
    mapgen_key(g, "_anglescale", "0");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 1024, 1800, 64);
    return g;
}

/* The shadow's edge on the plane z = 1 where the luxels' rays start: lit where
 * dot(N, q) >= C. The plate's edge line is dot(N, q) = c0 with N its unit normal toward
 * the lamp; a ray from height 1 to the lamp passes the plate's bottom, where it would
 * first enter it, at the fraction T of its rise, so it is blocked exactly when
 * dot(N, q) (1 - T) + dot(N, lamp) T < c0. */
static void shadow_edge(double n[2], double *c)
{
    double dx = ROOM, dy = EDGE1 - EDGE0, len = hypot(dx, dy);
    n[0] = -dy / len, n[1] = dx / len;
    double c0 = n[1] * EDGE0; /* the line passes (0, EDGE0) */
    double lamp = n[0] * LAMP_X + n[1] * LAMP_Y;
    double t = (PLATE0 - 1) / (LAMP_Z - 1);
    *c = (c0 - lamp * t) / (1 - t);
}

/* The part of the square [x0, x0 + s] x [y0, y0 + s] where dot(N, q) >= C: the square
 * clipped by the line, its area over s^2. */
static double lit_fraction(double x0, double y0, double s, const double n[2], double c)
{
    double sq[4][2] = {{x0, y0}, {x0 + s, y0}, {x0 + s, y0 + s}, {x0, y0 + s}};
    double out[8][2];
    int m = 0;
    for (int k = 0; k < 4; k++) {
        const double *a = sq[k], *b = sq[(k + 1) % 4];
        double da = n[0] * a[0] + n[1] * a[1] - c, db = n[0] * b[0] + n[1] * b[1] - c;
        if (da >= 0) out[m][0] = a[0], out[m][1] = a[1], m++;
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) {
            double t = da / (da - db);
            out[m][0] = a[0] + (b[0] - a[0]) * t, out[m][1] = a[1] + (b[1] - a[1]) * t;
            m++;
        }
    }
    double area = 0;
    for (int k = 0; k < m; k++)
        area += out[k][0] * out[(k + 1) % m][1] - out[(k + 1) % m][0] * out[k][1];
    return fabs(area) / 2 / (s * s);
}

typedef struct edge_errors {
    int edge_luxels;   /* floor luxels the shadow's edge crosses */
    int plain_luxels;  /* wholly lit or wholly shadowed */
    double rms, worst; /* of (value / LEVEL - exact fraction) over the edge luxels */
    double plain_worst;
    double bound_excess; /* the most an edge luxel's error exceeds (2N - 1) / N^2 by */
} edge_errors;

/* Lights the room with N x N samples set by OPTION (0: the map key MAP_EXTRA, NULL: none)
 * and measures every floor luxel away from the walls against the exact lit fraction of its
 * cell. */
static void measure(int option, const char *map_extra, int n, edge_errors *e)
{
    memset(e, 0, sizeof *e);
    scene s;
    REQUIRE(scene_load_mapgen(&s, shadow_room(map_extra),
                              &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
    al_rad *rad = NULL;
    al_rad_options o = {.luxel_size = 16, .no_ambient = true, .extra_samples = option};
    REQUIRE(al_rad_create(s.world, &s.input.input, &o, &rad, NULL) == AL_OK);
    CHECK_MSG(rad->extra == n, "the solver samples %d x %d, want %d", rad->extra, rad->extra, n);
    REQUIRE(al_rad_step(rad, 1) == 1); /* the lamp: direct light only */
    double en[2], ec;
    shadow_edge(en, &ec);
    double bound = (2.0 * n - 1) / ((double) n * n), sum2 = 0;
    for (int32_t j = 0; j < rad->luxel_count; j++) {
        const rad_face *f = &rad->faces[rad->luxel_face[j]];
        if (f->normal[2] < 0.99 || rad->point[j][2] > 2) continue; /* the floor only */
        double x0 = f->u0 + (rad->luxel_slot[j] % f->w) * f->luxel;
        double y0 = f->v0 + (rad->luxel_slot[j] / f->w) * f->luxel;
        if (x0 < 64 || y0 < 64 || x0 > ROOM - 80 || y0 > ROOM - 80) continue;
        double want = lit_fraction(x0, y0, f->luxel, en, ec);
        double got = rad->direct[j][0] / LEVEL;
        double err = got - want;
        if (want > 0 && want < 1) {
            e->edge_luxels++;
            sum2 += err * err;
            e->worst = fmax(e->worst, fabs(err));
            e->bound_excess = fmax(e->bound_excess, fabs(err) - bound - 1e-5);
        } else {
            e->plain_luxels++;
            e->plain_worst = fmax(e->plain_worst, fabs(err));
        }
    }
    e->rms = e->edge_luxels ? sqrt(sum2 / e->edge_luxels) : 0;
    al_rad_destroy(rad);
    scene_free(&s);
}

CHECK_TEST(half_plane, "/rad/extra/half-plane-shadow-approaches-the-lit-area-fraction")
{
    edge_errors e[3];
    const int ns[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        measure(ns[i], NULL, ns[i], &e[i]);
        CHECK_MSG(e[i].edge_luxels > 100 && e[i].plain_luxels > 10000,
                  "%d x %d: %d edge luxels, %d others", ns[i], ns[i], e[i].edge_luxels,
                  e[i].plain_luxels);
        CHECK_MSG(e[i].plain_worst < 1e-5,
                  "%d x %d: a luxel wholly lit or shadowed is off by %.2e of the level", ns[i],
                  ns[i], e[i].plain_worst);
        CHECK_MSG(e[i].bound_excess <= 0,
                  "%d x %d: an edge luxel is off by %.3f, beyond the bound (2N - 1) / N^2 by "
                  "%.3f",
                  ns[i], ns[i], e[i].worst, e[i].bound_excess);
        check_note("%d x %d samples: %d edge luxels, error along the edge rms %.4f, worst "
                   "%.4f of the level",
                   ns[i], ns[i], e[i].edge_luxels, e[i].rms, e[i].worst);
    }
    CHECK_MSG(e[1].rms < 0.6 * e[0].rms && e[2].rms < 0.6 * e[1].rms,
              "the stair-steps do not shrink: rms %.4f, %.4f, %.4f", e[0].rms, e[1].rms, e[2].rms);
}

CHECK_TEST(map_key, "/rad/extra/the-worldspawn-key-sets-the-samples-and-the-option-wins")
{
    edge_errors by_key, by_option, plain;
    measure(0, "4", 4, &by_key);
    measure(2, "4", 2, &by_option);
    measure(0, NULL, 1, &plain);
    CHECK_MSG(by_key.rms < by_option.rms && by_option.rms < plain.rms, "rms %.4f, %.4f, %.4f",
              by_key.rms, by_option.rms, plain.rms);

    /* A bad value warns, naming the key and the worldspawn's line, and samples once. */
    const char *bad[] = {"0", "5", "2.5", "x", "-1"};
    for (int i = 0; i < 5; i++) {
        scene s;
        REQUIRE(scene_load_mapgen(&s, shadow_room(bad[i]),
                                  &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
        al_rad *rad = NULL;
        al_diag_list d = {0};
        REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 64}, &rad,
                              &d) == AL_OK);
        bool warned = false;
        for (size_t k = 0; k < d.count; k++)
            warned |= d.items[k].entity == 0 && d.items[k].line > 0 &&
                      d.items[k].severity == AL_SEVERITY_WARNING &&
                      strstr(d.items[k].message, "allium_extra_samples") != NULL;
        CHECK_MSG(warned && rad->extra == 1, "\"%s\": warned %d, %d samples a side", bad[i], warned,
                  rad->extra);
        al_rad_destroy(rad);
        al_diag_list_clear(&d);
        scene_free(&s);
    }
    /* An option out of range is refused. */
    scene s;
    REQUIRE(scene_load_mapgen(&s, shadow_room(NULL),
                              &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
    al_rad *rad = NULL;
    al_diag_list d = {0};
    CHECK(al_rad_create(s.world, &s.input.input, &(al_rad_options){.extra_samples = 5}, &rad, &d) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK(al_rad_create(s.world, &s.input.input, &(al_rad_options){.extra_samples = -1}, &rad,
                        &d) == AL_ERR_INVALID_ARGUMENT);
    al_diag_list_clear(&d);
    scene_free(&s);
}

/* Every sample point of every luxel of the map lies on its face's polygon and a unit in
 * front of it, and that point is not in solid (the plate touches the walls, which covers
 * parts of their faces). */
CHECK_TEST(samples_on_faces, "/rad/extra/every-sample-lies-on-its-face-out-of-solid")
{
    scene s;
    REQUIRE(scene_load_mapgen(&s, shadow_room("4"),
                              &(scene_options){.pvs = true, .pvs_level = AL_PVS_TIGHT}));
    al_rad *rad = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 16}, &rad,
                          NULL) == AL_OK);
    int64_t samples = 0, off_face = 0, in_solid = 0, partial = 0;
    rad_point p[AL_RAD_MAX_SAMPLES];
    for (int32_t j = 0; j < rad->luxel_count; j++) {
        const rad_face *f = &rad->faces[rad->luxel_face[j]];
        const al_face_poly *fp = NULL;
        for (int k = rad->polys.brush_first[f->brush]; k < rad->polys.brush_first[f->brush + 1];
             k++)
            if (rad->polys.faces[k].face == f->face) fp = &rad->polys.faces[k];
        REQUIRE(fp);
        int n = al_rad_luxel_samples(rad, j, p);
        if (n > 1 && n < 16) partial++;
        for (int q = 0; q < n; q++) {
            samples++;
            /* On the plane, and on the inner side of every edge of the polygon (the side
             * its centre is on), brute force in 3D. */
            bool on = fabs(al_dot(p[q].x, fp->normal) - fp->dist) < 1e-6;
            double centre[3] = {0, 0, 0};
            for (int k = 0; k < fp->point_count; k++)
                al_madd(centre, rad->polys.points[fp->first_point + k], 1.0 / fp->point_count,
                        centre);
            for (int k = 0; k < fp->point_count && on; k++) {
                const double *a = rad->polys.points[fp->first_point + k];
                const double *b = rad->polys.points[fp->first_point + (k + 1) % fp->point_count];
                double edge[3], side[3], to[3], in[3];
                al_sub(b, a, edge);
                al_cross(fp->normal, edge, side);
                double len = sqrt(al_dot(side, side));
                if (len == 0) continue;
                al_sub(centre, a, in);
                if (al_dot(in, side) < 0) al_scale(side, -1, side);
                al_sub(p[q].x, a, to);
                if (al_dot(to, side) / len < -1e-6) on = false;
            }
            double want_from[3];
            al_madd(p[q].x, fp->normal, AL_RAD_SAMPLE_OFFSET, want_from);
            double gap[3];
            al_sub(want_from, p[q].from, gap);
            on = on && al_dot(gap, gap) < 1e-12; /* the luxel's normal is a float */
            off_face += !on;
            in_solid += al_world_point_solid(s.world, 0, p[q].from);
        }
    }
    CHECK_MSG(off_face == 0 && in_solid == 0,
              "of %lld samples %lld are off their face, %lld in "
              "solid",
              (long long) samples, (long long) off_face, (long long) in_solid);
    CHECK_MSG(partial > 0, "no luxel lost a sample to solid or to its face's edge");
    check_note("%lld samples of %d luxels checked, %lld luxels with some samples left out",
               (long long) samples, rad->luxel_count, (long long) partial);
    al_rad_destroy(rad);
    scene_free(&s);
}

/* Light carried across random edits with 2 x 2 samples: right after each update the luxels
 * it lit anew show a new solver's light sampling once, every other luxel a new solver's
 * sampling 2 x 2; once the steps have refined them, every luxel shows the latter, and the
 * bounced light matches a gather. */
CHECK_TEST(random_edits, "/rad/extra/edits-carry-antialiased-light-exactly")
{
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    REQUIRE(path);
    scene s;
    REQUIRE(scene_load_file(&s, path, &(scene_options){.pvs = true, .pvs_level = AL_PVS_COARSE}));
    rad_edit_report r;
    rad_check_edits(&s.input.input, s.world,
                    &(al_rad_options){.luxel_size = 32, .extra_samples = 2}, 0.05, 4, 13, 1000, &r);
    CHECK_MSG(r.failed == 0 && r.edits == 4, "%d edits, %d failed", r.edits, r.failed);
    CHECK_MSG(r.worst_direct < 1e-3 && r.worst_coarse < 1e-4 && r.worst_refined < 1e-3 &&
                  r.ties == 0 && r.worst_bounce < 2e-3 && r.books_off == 0,
              "direct %.2e, coarse %.2e, refined %.2e (%d ties), bounced %.2e, %d unbalanced: %s",
              r.worst_direct, r.worst_coarse, r.worst_refined, r.ties, r.worst_bounce, r.books_off,
              r.why);
    CHECK_MSG(r.edits_with_coarse == r.edits && r.coarse_luxels > 0,
              "%d of %d edits lit luxels at their sample point first (%lld luxels)",
              r.edits_with_coarse, r.edits, r.coarse_luxels);
    check_note("%d edits with 2 x 2 samples: %lld luxels lit once first (%lld equal to a new "
               "solver's to the last bit, the worst off by %.1e), then direct light off by at "
               "most %.1e, bounced %.1e of the mean",
               r.edits, r.coarse_luxels, r.coarse_exact, r.worst_coarse, r.worst_refined,
               r.worst_bounce);
    scene_free(&s);
}

/* Run on after an edit whose luxels were lit once first, the light reaches a new solve's
 * with 2 x 2 samples run alike: the refined direct light's difference went on bouncing. */
CHECK_TEST(converges, "/rad/extra/an-edit-lit-once-first-runs-on-to-a-new-solve")
{
    const char *path = getenv("ALLIUM_GENERATED_SMALL_MAP");
    REQUIRE(path);
    scene s;
    REQUIRE(scene_load_file(&s, path, &(scene_options){.pvs = true, .pvs_level = AL_PVS_COARSE}));
    al_rad_options o = {.luxel_size = 32, .extra_samples = 2};
    al_rad *rad = NULL, *next = NULL, *fresh = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input, &o, &rad, NULL) == AL_OK);
    REQUIRE(al_rad_run(rad, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    al_rng rng = {5};
    al_edit edit;
    al_world *world = NULL;
    al_input *input = NULL;
    al_rad_stats st = {0};
    /* The first edit that lights luxels anew. */
    for (int tries = 0; tries < 20 && st.coarse_left == 0; tries++) {
        al_rad_destroy(next);
        al_world_destroy(world);
        free(input);
        next = NULL, world = NULL;
        al_compile_options co = {.pvs = AL_PVS_COARSE};
        REQUIRE(al_edit_random(&e, &rng, 8, &edit) && (input = al_input_clone(&e.input)));
        REQUIRE(al_world_update(s.world, input, &co, &world, NULL) == AL_OK);
        REQUIRE(al_rad_update(rad, world, input, &o, &next, NULL) == AL_OK);
        al_rad_get_stats(next, &st);
    }
    REQUIRE(st.coarse_left > 0);
    REQUIRE(al_rad_run(next, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    REQUIRE(al_rad_create(world, input, &o, &fresh, NULL) == AL_OK);
    REQUIRE(al_rad_run(fresh, 0.002, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    double d = al_rad_light_difference(next, fresh);
    char why[200];
    double books = rad_check_books(next, why, sizeof why);
    /* Two runs to the same residual differ by about what is left unshot (as the update's own
     * test allows). */
    CHECK_MSG(d < 0.01, "mean difference %.4f", d);
    CHECK_MSG(books <= 1e-5, "books: %s", why);
    check_note("%lld luxels lit once first; run on to 0.2%%: mean difference from a new solve "
               "%.4f",
               (long long) st.coarse_left, d);
    al_rad_destroy(fresh);
    al_rad_destroy(next);
    al_rad_destroy(rad);
    al_world_destroy(world);
    free(input);
    al_edit_input_free(&e);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
