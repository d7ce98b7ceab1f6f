/* Radiosity against closed forms (form factors, the furnace), bookkeeping invariants, and
 * light and shadow against independent traces through the brushes. */
#include "al-rad.h"
#include "check.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "rad-check.h"
#include "scene.h"
#include "al-oracle.h"

#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* --- form factors ------------------------------------------------------------------- */

/* The unit square at z = 0 facing +z, as the kernel's parallelogram (clockwise from the
 * front). */
static const double floor_square[4][3] = {{1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 1, 0}};

CHECK_TEST(ff_opposed_squares, "/rad/ff/opposed-unit-squares-one-apart-0.19982")
{
    const double top[4][3] = {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    double f = al_rad_polygon_polygon_ff(floor_square, top, 4, 64);
    CHECK_MSG(rel(f, 0.19982) < 0.01, "F = %.5f", f);
}

CHECK_TEST(ff_perpendicular_squares, "/rad/ff/perpendicular-unit-squares-sharing-an-edge-0.20004")
{
    const double wall[4][3] = {{0, 0, 0}, {0, 1, 0}, {0, 1, 1}, {0, 0, 1}};
    double f = al_rad_polygon_polygon_ff(floor_square, wall, 4, 64);
    CHECK_MSG(rel(f, 0.20004) < 0.01, "F = %.5f", f);
}

CHECK_TEST(ff_rectangles, "/rad/ff/opposed-1x1.5-rectangles-half-apart-0.4756")
{
    const double a[4][3] = {{1, 0, 0}, {0, 0, 0}, {0, 1.5, 0}, {1, 1.5, 0}};
    const double b[4][3] = {{0, 0, 0.5}, {1, 0, 0.5}, {1, 1.5, 0.5}, {0, 1.5, 0.5}};
    double f = al_rad_polygon_polygon_ff(a, b, 4, 64);
    CHECK_MSG(rel(f, 0.4756) < 0.01, "F = %.5f", f);
}

CHECK_TEST(ff_reciprocity, "/rad/ff/reciprocity-a-fab-equals-b-fba")
{
    /* A 2 x 1 floor patch and a tilted 1 x 3 patch above and beside it, facing each
     * other. */
    const double a[4][3] = {{2, 0, 0}, {0, 0, 0}, {0, 1, 0}, {2, 1, 0}};
    /* b: from (3, -1, 0.5) along y by 3 and up-and-back along (-0.6, 0, 0.8) by 1; its
     * front faces -x +z (toward a). */
    const double b[4][3] = {{3, -1, 0.5}, {3, 2, 0.5}, {2.4, 2, 1.3}, {2.4, -1, 1.3}};
    double fab = al_rad_polygon_polygon_ff(a, b, 4, 64);
    double fba = al_rad_polygon_polygon_ff(b, a, 4, 64);
    double area_a = 2, area_b = 3;
    CHECK_MSG(fab > 0.01 && fba > 0.01, "F_ab %.5f F_ba %.5f", fab, fba);
    CHECK_MSG(rel(area_a * fab, area_b * fba) < 0.01, "A F_ab %.5f, B F_ba %.5f", area_a * fab,
              area_b * fba);
}

CHECK_TEST(ff_closure, "/rad/ff/closure-inside-a-closed-box-sums-to-one")
{
    /* From the floor of the box [0,1] x [0,1] x [0,2] to its five other faces. */
    const double faces[5][4][3] = {
        {{0, 0, 2}, {1, 0, 2}, {1, 1, 2}, {0, 1, 2}},
        {{0, 0, 0}, {0, 1, 0}, {0, 1, 2}, {0, 0, 2}},
        {{1, 0, 0}, {1, 1, 0}, {1, 1, 2}, {1, 0, 2}},
        {{0, 0, 0}, {1, 0, 0}, {1, 0, 2}, {0, 0, 2}},
        {{0, 1, 0}, {1, 1, 0}, {1, 1, 2}, {0, 1, 2}},
    };
    double sum = 0;
    for (int i = 0; i < 5; i++) sum += al_rad_polygon_polygon_ff(floor_square, faces[i], 4, 48);
    CHECK_MSG(fabs(sum - 1) < 0.01, "sum %.5f", sum);
    /* The point form is exact but for the kernel's angles (within 2e-6 radians, see
     * ff.c): from any point of the floor the hemisphere is covered. */
    for (int k = 0; k < 10; k++) {
        double p[3] = {0.05 + 0.09 * k, 0.3 + 0.05 * k, 0}, n[3] = {0, 0, 1}, s = 0;
        for (int i = 0; i < 5; i++) s += al_rad_point_polygon_ff(p, n, faces[i], 4);
        CHECK_MSG(fabs(s - 1) < 1e-5, "point sum %.12f", s);
    }
}

CHECK_TEST(ff_behind, "/rad/ff/polygons-behind-the-receiver-get-nothing-and-are-cut")
{
    double p[3] = {0.5, 0.5, 0}, n[3] = {0, 0, 1};
    const double below[4][3] = {{0, 0, -1}, {1, 0, -1}, {1, 1, -1}, {0, 1, -1}};
    CHECK(al_rad_point_polygon_ff(p, n, below, 4) == 0);
    /* A wall through the point's plane: only its upper half counts, which is the closed
     * form of a rectangle from a point at its base. */
    const double wall[4][3] = {{-1, 1.5, -1}, {2, 1.5, -1}, {2, 1.5, 1}, {-1, 1.5, 1}};
    const double upper[4][3] = {{-1, 1.5, 0}, {2, 1.5, 0}, {2, 1.5, 1}, {-1, 1.5, 1}};
    double fw = al_rad_point_polygon_ff(p, n, wall, 4);
    double fu = al_rad_point_polygon_ff(p, n, upper, 4);
    CHECK_MSG(fw > 0 && fabs(fw - fu) < 1e-12, "%.9f vs %.9f", fw, fu);
}

/* --- scenes ------------------------------------------------------------------------- */

static bool load(scene *s, mapgen *g)
{
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    return scene_load_mapgen(s, g, &o);
}

/* A sealed room, inside [x0, x1] x [y0, y1] x [0, z1], walls 16 thick. */
static void sealed_room(mapgen *g, double x0, double y0, double x1, double y1, double z1,
                        const char *material)
{
    mapgen_box(g, x0 - 16, y0 - 16, -16, x1 + 16, y1 + 16, 0, material);
    mapgen_box(g, x0 - 16, y0 - 16, z1, x1 + 16, y1 + 16, z1 + 16, material);
    mapgen_box(g, x0 - 16, y0 - 16, 0, x0, y1 + 16, z1, material);
    mapgen_box(g, x1, y0 - 16, 0, x1 + 16, y1 + 16, z1, material);
    mapgen_box(g, x0, y0 - 16, 0, x1, y0, z1, material);
    mapgen_box(g, x0, y1, 0, x1, y1 + 16, z1, material);
}


/* Sets every material of S to a grey of reflectance RHO emitting E. */
static void set_materials(scene *s, float rho, float e)
{
    for (int m = 0; m < s->input.input.material_count; m++) {
        al_material_desc *md = &s->input.materials[m];
        md->colour[0] = md->colour[1] = md->colour[2] = 0.5f;
        md->reflectance = rho;
        md->emission[0] = md->emission[1] = md->emission[2] = e;
    }
}

/* Checks the bookkeeping of RAD: absorbed + escaped + unshot = emitted, and escaped is not
 * below zero by more than the kernel's error. */
static void check_books(al_rad *rad, const char *when)
{
    char why[200];
    CHECK_MSG(rad_check_books(rad, why, sizeof why) <= 1e-6, "%s: %s", when, why);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK_MSG(st.escaped >= -0.02 * st.emitted, "%s: escaped %g of %g", when, st.escaped,
              st.emitted);
}

CHECK_TEST(furnace, "/rad/furnace-closed-box-converges-to-e-over-one-minus-rho")
{
    const double e = 10, rho = 0.5;
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 256, 192, 160, "glow");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 96, 64);
    scene s;
    REQUIRE(load(&s, g));
    set_materials(&s, (float) rho, (float) e);
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK_MSG(st.patches == (256 / 16) * (192 / 16) * 2 + (256 / 16) * (160 / 16) * 2 +
                                (192 / 16) * (160 / 16) * 2,
              "%d patches", st.patches);
    double last = 2;
    for (int i = 0; i < 400 && !st.converged && st.residual > 1e-6; i++) {
        al_rad_step(rad, 8);
        al_rad_get_stats(rad, &st);
        CHECK_MSG(st.residual <= last + 1e-12, "residual rose from %g to %g", last, st.residual);
        last = st.residual;
    }
    CHECK_MSG(st.residual < 1e-4, "residual %g after %lld shots", st.residual, (long long) st.shots);
    check_books(rad, "furnace");
    CHECK_MSG(fabs(st.escaped) < 0.005 * st.emitted, "escaped %g of %g in a closed box", st.escaped,
              st.emitted);
    double want = e / (1 - rho), worst = 0;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        REQUIRE(al_rad_luxel_get(rad, i, &l));
        worst = fmax(worst, rel(l.exitance[1], want));
    }
    CHECK_MSG(worst < 0.005, "worst luxel off by %.3f%% from %g", worst * 100, want);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

CHECK_TEST(sealed_rooms, "/rad/a-light-in-a-sealed-room-lights-nothing-outside-it")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 256, 256, 128, "stone");
    sealed_room(g, 320, 0, 576, 256, 128, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 128, 128, 64, "300");
    mapgen_point_entity(g, "info_player_start", 448, 128, 64);
    scene s;
    REQUIRE(load(&s, g));
    set_materials(&s, 0.6f, 0);
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
    CHECK(al_rad_run(rad, 0.001, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    check_books(rad, "two rooms");
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    int lit_inside = 0, lit_outside = 0, inside = 0;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(rad, i, &l);
        bool in_first = l.point[0] < 288;
        bool lit = l.incident[0] > 0 || l.incident[1] > 0 || l.incident[2] > 0;
        inside += in_first;
        lit_inside += in_first && lit;
        lit_outside += !in_first && lit;
    }
    CHECK_MSG(lit_inside == inside, "%d of %d luxels lit in the light's room", lit_inside, inside);
    CHECK_MSG(lit_outside == 0, "%d luxels lit in the other room", lit_outside);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

CHECK_TEST(shadow, "/rad/a-blocker-casts-the-shadow-a-trace-through-the-brushes-predicts")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 512, 512, 256, "stone");
    mapgen_box(g, 96, 360, 0, 128, 392, 200, "crate"); /* a pillar */
    mapgen_end_entity(g);
    /* A floating slab under the light, as detail: it stays out of the vis tree, so the
     * light tree is a tree of its own. */
    mapgen_begin_entity(g, "func_detail");
    mapgen_box(g, 200, 200, 64, 312, 312, 96, "crate");
    mapgen_end_entity(g);
    mapgen_light(g, 256, 256, 200, "600");
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.no_ambient = true}, &rad,
                          &d) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    REQUIRE(st.lights == 1);
    al_rad_step(rad, 1); /* the direct light alone */
    al_oracle *oracle = al_oracle_create(s.world);
    REQUIRE(oracle != NULL);
    const double zero[3] = {0, 0, 0}, light_at[3] = {256, 256, 200};
    int checked = 0, mismatches = 0, shadowed = 0;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(rad, i, &l);
        double to[3];
        al_sub(light_at, l.point, to);
        if (al_dot(to, l.normal) <= 1e-6) continue; /* faces away: unlit by definition */
        al_oracle_hit hit;
        al_oracle_sweep(oracle, zero, zero, l.point, light_at, &hit);
        /* Grazing lines (an edge within a hair) may go either way. */
        const double hair[3] = {0.05, 0.05, 0.05}, nhair[3] = {-0.05, -0.05, -0.05};
        al_oracle_hit fat;
        al_oracle_sweep(oracle, nhair, hair, l.point, light_at, &fat);
        if (hit.hit != fat.hit) continue;
        bool lit = l.incident[1] > 0;
        checked++;
        shadowed += hit.hit;
        if (lit == hit.hit) {
            if (mismatches++ == 0)
                check_note("first mismatch at (%g %g %g): lit %d, blocked %d", l.point[0],
                           l.point[1], l.point[2], lit, hit.hit);
        }
    }
    CHECK_MSG(checked > 1000 && shadowed > 100, "%d checked, %d in shadow", checked, shadowed);
    CHECK_MSG(mismatches == 0, "%d of %d luxels disagree with the trace", mismatches, checked);
    al_oracle_destroy(oracle);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

CHECK_TEST(reflectance, "/rad/reflectance-is-the-colour-in-linear-light")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 128, 128, 128, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 64, 64, 64, "300");
    scene s;
    REQUIRE(load(&s, g));
    /* sRGB 0.5 is 0.21404 in linear light; 1.0 is capped at 0.95. */
    const float set[2] = {0, 0.3f};
    const double want[2][3] = {{0.214041, 0.95, 0}, {0.3 * 0.214041 / 0.404680, 0.3 / 0.404680, 0}};
    for (int v = 0; v < 2; v++) {
        for (int m = 0; m < s.input.input.material_count; m++) {
            al_material_desc *md = &s.input.materials[m];
            md->colour[0] = 0.5f, md->colour[1] = 1.0f, md->colour[2] = 0.0f;
            md->reflectance = set[v];
        }
        al_rad *rad;
        al_diag_list d = {0};
        REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
        al_rad_luxel l;
        REQUIRE(al_rad_luxel_get(rad, 0, &l));
        for (int k = 0; k < 3; k++)
            CHECK_MSG(fabs(l.reflectance[k] - want[v][k]) < 1e-4,
                      "reflectance %d channel %d: %g, want %g", v, k, l.reflectance[k],
                      want[v][k]);
        al_rad_destroy(rad);
        al_diag_list_clear(&d);
    }
    scene_free(&s);
}

CHECK_TEST(light_falloff, "/rad/direct-light-follows-quake-falloff")
{
    /* A big room, a light 100 units above the floor: the luxel right under it gets
     * (300 - 100) * (0.5 + 0.5 cos) with cos ~ 1 for delay 0, the falloff taken at the
     * floor under its sample point. */
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 512, 512, 512, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 264, 264, 100, "300"); /* 100 above the floor */
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
    al_rad_step(rad, 1);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    bool found = false;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(rad, i, &l);
        if (fabs(l.point[0] - 264) < 1 && fabs(l.point[1] - 264) < 1 && l.normal[2] > 0.5) {
            found = true;
            CHECK_MSG(fabs(l.incident[0] - 200) < 0.01, "incident %g", l.incident[0]);
        }
    }
    CHECK(found);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

static bool has_diag(const al_diag_list *d, int entity, const char *part)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].entity == entity && strstr(d->items[i].message, part) &&
            d->items[i].line > 0)
            return true;
    return false;
}

/* The incident light of the upward luxel nearest P (direct light only, white). */
static double floor_light(al_rad *rad, const double p[3])
{
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    double best = INFINITY, value = -1;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(rad, i, &l);
        if (l.normal[2] < 0.99) continue;
        double d[3];
        al_sub(l.point, p, d);
        if (al_dot(d, d) < best) best = al_dot(d, d), value = l.incident[1];
    }
    return value;
}

/* What an upward face under open sky gets of a dome of LEVEL: the share of each of its
 * suns (rings of 16 at 9, 27, 45 and 63 degrees above the horizon, and one overhead),
 * times Quake's angle scale. */
static double open_dome(double level)
{
    double sum = 1;
    for (int i = 0; i < 4; i++) sum += 16 * (0.5 + 0.5 * sin((9 + 18 * i) * M_PI / 180));
    return level * sum / 65;
}

/* Room A: walls and ceiling of sky over a stone floor; room B: the same with a stone
 * ceiling; a dome of _sunlight2 200 and a "_sun" light of 150 straight down. */
static mapgen *sky_rooms(void)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight2", "200");
    sealed_room(g, 0, 0, 512, 512, 512, "sky1");
    mapgen_box(g, 0, 0, 0, 512, 512, 16, "stone");
    sealed_room(g, 640, 0, 1152, 512, 256, "sky1");
    mapgen_box(g, 640, 0, 0, 1152, 512, 16, "stone");
    mapgen_box(g, 640, 0, 224, 1152, 512, 240, "stone");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "64 64 300");
    mapgen_key(g, "_sun", "1");
    mapgen_key(g, "light", "150");
    mapgen_key(g, "mangle", "0 -90 0");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 256, 256, 64);
    mapgen_point_entity(g, "info_player_start", 896, 256, 64);
    return g;
}

CHECK_TEST(sky_dome, "/rad/the-sky-dome-and-sun-lights-light-what-sees-the-sky")
{
    /* Room A: walls and ceiling of sky over a stone floor, so its floor sees sky in every
     * direction. Room B: the same with a stone ceiling, so its floor sees sky only
     * through the walls. The dome of _sunlight2 200 gives an open floor its suns' shares
     * times their angle scale (open_dome); a "_sun" light of 150 shining straight down
     * adds 150 there and nothing under a ceiling. */
    mapgen *g = sky_rooms();
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.no_ambient = true}, &rad,
                          &d) == AL_OK);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK_MSG(st.lights == 66 && st.dome_lights == 65,
              "%d lights, %d of the dome: want the dome's 65 suns and the sun", st.lights,
              st.dome_lights);
    /* The dome goes last: the sun alone first. */
    al_rad_step(rad, 1);
    double sun_only = floor_light(rad, (const double[3]){256, 256, 17});
    CHECK_MSG(fabs(sun_only - 150) < 0.5, "after one shot the open floor gets %g, want 150",
              sun_only);
    al_rad_step(rad, st.lights - 1); /* the rest of the direct light */
    const double open[3] = {256, 256, 17}, covered[3] = {896, 256, 17};
    double a = floor_light(rad, open), b = floor_light(rad, covered);
    CHECK_MSG(fabs(a - open_dome(200) - 150) < 0.5, "the open floor gets %g, want %g + 150", a,
              open_dome(200));
    CHECK_MSG(b > 5 && b < 150, "the covered floor gets %g: some sky, through the walls", b);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

typedef struct {
    al_rad *rad;
    int64_t lights;
} step_args;

static void *step_thread(void *data)
{
    step_args *a = data;
    al_rad_step(a->rad, a->lights);
    return NULL;
}

CHECK_TEST(cancel_direct, "/rad/a-cancel-during-the-direct-light-drops-the-pass-and-the-next-run-redoes-it")
{
    mapgen *g = sky_rooms();
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.no_ambient = true}, &rad,
                          NULL) == AL_OK);
    al_rad_step(rad, 1); /* the sun */
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    /* The dome's pass (65 suns over every luxel) is cancelled a few milliseconds in. */
    step_args args = {rad, st.lights - 1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, step_thread, &args) == 0);
    nanosleep(&(struct timespec){0, 3 * 1000 * 1000}, NULL);
    al_rad_cancel(rad);
    pthread_join(thread, NULL);
    al_rad_stats after;
    al_rad_get_stats(rad, &after);
    const double open[3] = {256, 256, 17};
    if (after.direct_done) {
        check_note("the pass ended before the cancel: nothing to drop");
    } else {
        check_note("the cancel came during the pass: it was dropped");
        CHECK_MSG(after.shots == 1, "%lld shots after the cancel, want the sun's 1",
                  (long long) after.shots);
        double partial = floor_light(rad, open);
        CHECK_MSG(fabs(partial - 150) < 0.5, "the open floor gets %g after the dropped pass, "
                  "want the sun's 150 and none of the dome", partial);
    }
    check_books(rad, "after the cancel");
    /* A run goes on from there and ends with the whole direct light. */
    al_rad_run(rad, 1.0, 0, NULL, NULL);
    al_rad_get_stats(rad, &after);
    CHECK(after.direct_done);
    double a = floor_light(rad, open);
    CHECK_MSG(fabs(a - open_dome(200) - 150) < 0.5,
              "after the run the open floor gets %g, want %g + 150", a, open_dome(200));
    al_rad_destroy(rad);
    scene_free(&s);
}


CHECK_TEST(bad_light_keys, "/rad/bad-light-keys-give-diagnostics-naming-entity-and-line")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight", "lots");
    sealed_room(g, 0, 0, 256, 256, 128, "stone");
    mapgen_end_entity(g);
    const char *keys[][2] = {{"light", "bright"}, {"wait", "-1"}, {"delay", "9"},
                             {"_color", "red"},   {"mangle", "up"}, {"target", "nowhere"},
                             {"light", "-50"}};
    for (int k = 0; k < 7; k++) {
        mapgen_begin_entity(g, "light");
        mapgen_keyf(g, "origin", "%d 128 64", 32 + 24 * k);
        mapgen_key(g, keys[k][0], keys[k][1]);
        mapgen_end_entity(g);
    }
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "light", "200");
    mapgen_end_entity(g); /* no origin */
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
    CHECK(has_diag(&d, 0, "_sunlight"));
    CHECK(has_diag(&d, 1, "not a number"));
    CHECK(has_diag(&d, 2, "\"wait\""));
    CHECK(has_diag(&d, 3, "\"delay\""));
    CHECK(has_diag(&d, 4, "\"_color\""));
    CHECK(has_diag(&d, 5, "\"mangle\""));
    CHECK(has_diag(&d, 6, "nowhere"));
    CHECK(has_diag(&d, 7, "negative"));
    CHECK(has_diag(&d, 8, "origin"));
    /* It still lights, with the defaults. */
    CHECK(al_rad_run(rad, 0.01, 60, NULL, NULL) == AL_RAD_STOP_RESIDUAL);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK_MSG(st.lights == 6, "%d lights", st.lights);
    CHECK(st.emitted > 0);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

CHECK_TEST(snapshot_and_reset, "/rad/snapshots-atlas-faces-and-reset")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 256, 256, 128, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 128, 128, 64, NULL);
    scene s;
    REQUIRE(load(&s, g));
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, &d) == AL_OK);
    al_rad_lightmap before, after;
    REQUIRE(al_rad_snapshot(rad, &before) == AL_OK);
    CHECK(before.shots == 0 && before.residual == 1);
    al_rad_run(rad, 0.01, 60, NULL, NULL);
    REQUIRE(al_rad_snapshot(rad, &after) == AL_OK);
    CHECK(after.width == before.width && after.height == before.height);
    CHECK(after.residual <= 0.01);
    /* Every lit face maps its luxels inside its rectangle, clear of the border. */
    int faces = 0;
    for (int b = 0; b < s.input.input.brush_count; b++)
        for (int f = 0; f < 6; f++) {
            al_rad_face_map m;
            if (!al_rad_face(rad, b, f, &m)) continue;
            faces++;
            CHECK(m.x >= 0 && m.y >= 0 && m.x + m.width <= after.width &&
                  m.y + m.height <= after.height);
        }
    CHECK_MSG(faces == 6, "%d faces lit", faces);
    double sum = 0;
    for (int t = 0; t < after.width * after.height; t++) sum += after.texels[t][0];
    CHECK(sum > 0);
    al_rad_reset(rad);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    CHECK(st.shots == 0 && st.residual == 1 && st.emitted == 0);
    al_rad_lightmap_free(&before);
    al_rad_lightmap_free(&after);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
    scene_free(&s);
}

/* Two rooms, a light in each, and a pillar: enough luxels and groups for the state to
 * matter. */
static bool load_lit_rooms(scene *s, double pillar_x)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    sealed_room(g, 0, 0, 256, 256, 128, "stone");
    sealed_room(g, 400, 0, 656, 256, 128, "stone");
    mapgen_box(g, pillar_x, 100, 0, pillar_x + 32, 132, 128, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 64, 128, 64, NULL);
    mapgen_light(g, 500, 64, 100, "200");
    return load(s, g);
}

static bool same_lightmaps(const al_rad_lightmap *a, const al_rad_lightmap *b)
{
    if (a->width != b->width || a->height != b->height || a->shots != b->shots ||
        a->residual != b->residual)
        return false;
    return memcmp(a->texels, b->texels, (size_t) a->width * (size_t) a->height *
                                            sizeof a->texels[0]) == 0;
}

/* A saved state put back into a new solver of the same map shows the same lightmaps and
 * books, and goes on to the same light as the solver it came from (one thread, so both
 * shoot alike). Bytes of another map, of another luxel size, damaged or cut short are
 * refused and change nothing. */
CHECK_TEST(save_restore, "/rad/a-saved-state-restores-the-same-light-and-bad-bytes-are-refused")
{
    scene s, other;
    REQUIRE(load_lit_rooms(&s, 150));
    REQUIRE(load_lit_rooms(&other, 120));
    al_rad_options one = {.threads = 1};
    al_rad *rad, *again, *moved, *coarse;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &one, &rad, &d) == AL_OK);
    al_rad_step(rad, 40);
    void *bytes;
    size_t size;
    REQUIRE(al_rad_save(rad, &bytes, &size) == AL_OK);
    REQUIRE(al_rad_create(s.world, &s.input.input, &one, &again, &d) == AL_OK);
    REQUIRE(al_rad_restore(again, bytes, size) == AL_OK);
    al_rad_stats sa, sb;
    al_rad_get_stats(rad, &sa);
    al_rad_get_stats(again, &sb);
    CHECK(sa.shots == 40 && sb.shots == 40 && sa.rays == sb.rays);
    CHECK(sa.residual == sb.residual && sa.emitted == sb.emitted && sa.absorbed == sb.absorbed &&
          sa.escaped == sb.escaped && sa.direct_done && sb.direct_done);
    al_rad_lightmap la, lb;
    REQUIRE(al_rad_snapshot(rad, &la) == AL_OK && al_rad_snapshot(again, &lb) == AL_OK);
    CHECK(same_lightmaps(&la, &lb));
    al_rad_lightmap_free(&la);
    al_rad_lightmap_free(&lb);
    /* Both go on alike. */
    al_rad_step(rad, 60);
    al_rad_step(again, 60);
    REQUIRE(al_rad_snapshot(rad, &la) == AL_OK && al_rad_snapshot(again, &lb) == AL_OK);
    CHECK_MSG(same_lightmaps(&la, &lb), "after 60 more shots: residual %g against %g",
              la.residual, lb.residual);
    al_rad_lightmap_free(&la);
    al_rad_lightmap_free(&lb);

    /* Refused: another map's patches, another luxel size, damage anywhere, short bytes. */
    REQUIRE(al_rad_create(other.world, &other.input.input, &one, &moved, &d) == AL_OK);
    al_rad_options big = {.threads = 1, .luxel_size = 32};
    REQUIRE(al_rad_create(s.world, &s.input.input, &big, &coarse, &d) == AL_OK);
    CHECK(al_rad_restore(moved, bytes, size) == AL_ERR_CORRUPT);
    CHECK(al_rad_restore(coarse, bytes, size) == AL_ERR_CORRUPT);
    al_rad *fresh;
    REQUIRE(al_rad_create(s.world, &s.input.input, &one, &fresh, &d) == AL_OK);
    unsigned char *damaged = malloc(size);
    REQUIRE(damaged);
    int refused = 0, tried = 0;
    for (size_t i = 0; i < size; i += 1 + size / 257) {
        memcpy(damaged, bytes, size);
        damaged[i] ^= 0x10;
        refused += al_rad_restore(fresh, damaged, size) == AL_ERR_CORRUPT;
        tried++;
    }
    CHECK_MSG(refused == tried, "%d of %d damaged copies refused", refused, tried);
    CHECK(al_rad_restore(fresh, bytes, size - 1) == AL_ERR_CORRUPT);
    CHECK(al_rad_restore(fresh, bytes, 0) == AL_ERR_CORRUPT);
    CHECK(al_rad_restore(fresh, NULL, size) == AL_ERR_CORRUPT);
    al_rad_stats sf;
    al_rad_get_stats(fresh, &sf);
    CHECK(sf.shots == 0 && sf.residual == 1);
    free(damaged);
    free(bytes);
    al_rad_destroy(rad);
    al_rad_destroy(again);
    al_rad_destroy(moved);
    al_rad_destroy(coarse);
    al_rad_destroy(fresh);
    al_diag_list_clear(&d);
    scene_free(&s);
    scene_free(&other);
}


/* Cancels RAD again and again while a thread runs it, a millisecond apart. */
typedef struct run_args {
    al_rad *rad;
    double residual;
    int stop;
} run_args;

static void *run_thread(void *arg)
{
    run_args *a = arg;
    while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE)) {
        al_rad_stats st;
        al_rad_get_stats(a->rad, &st);
        if (st.residual <= a->residual || st.converged) break;
        al_rad_resume(a->rad);
        al_rad_run(a->rad, a->residual, 0, NULL, NULL);
    }
    return NULL;
}

CHECK_TEST(cancel_panels, "/rad/a-cancel-during-a-pass-of-panels-drops-it-and-the-light-comes-out-the-same")
{
    scene s;
    REQUIRE(load_lit_rooms(&s, 200));
    al_rad *calm, *stirred;
    al_rad_options o = {.no_ambient = true, .threads = 2};
    REQUIRE(al_rad_create(s.world, &s.input.input, &o, &calm, NULL) == AL_OK);
    REQUIRE(al_rad_create(s.world, &s.input.input, &o, &stirred, NULL) == AL_OK);
    al_rad_run(calm, 0.02, 0, NULL, NULL);
    al_rad_stats a, b;
    al_rad_get_stats(calm, &a);
    /* The same, with a cancel every millisecond: passes are dropped and shot again. */
    run_args args = {stirred, 0.02, 0};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, run_thread, &args) == 0);
    int cancels = 0;
    for (;;) {
        al_rad_get_stats(stirred, &b);
        if (b.residual <= 0.02 || b.converged || cancels > 20000) break;
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        al_rad_cancel(stirred);
        cancels++;
    }
    __atomic_store_n(&args.stop, 1, __ATOMIC_RELEASE);
    al_rad_cancel(stirred);
    pthread_join(thread, NULL);
    al_rad_resume(stirred);
    al_rad_run(stirred, 0.02, 0, NULL, NULL);
    al_rad_get_stats(stirred, &b);
    check_note("%d cancels; %lld shots either way (%lld)", cancels, (long long) a.shots,
               (long long) b.shots);
    CHECK_MSG(a.shots == b.shots, "%lld shots calm, %lld stirred", (long long) a.shots,
              (long long) b.shots);
    double d = al_rad_light_difference(calm, stirred);
    CHECK_MSG(d >= 0 && d < 1e-6, "the light differs by %g", d);
    check_books(stirred, "after the cancels");
    al_rad_destroy(calm);
    al_rad_destroy(stirred);
    scene_free(&s);
}


int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
