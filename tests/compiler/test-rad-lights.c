/* Light keys against Quake's closed forms: one light over the floor of a big room, the
 * direct light at points of the floor (al_rad_direct_at) against the formula of each
 * falloff, wait, _falloff, _anglescale, spot cones, _color, _minlight and _mincolor, local
 * minlights, jittered copies, surface lights and sky domes; the solver's direct light
 * against the same rules at every luxel; and warnings for bad values. */
#include "al-rad.h"
#include "al-vec3.h"
#include "check.h"
#include "mapgen.h"
#include "rad/rad-internal.h"
#include "rad-check.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The room: [0, 2048] x [0, 2048] x [0, 1024], the light at (1024, 1024, H). */
#define H 128.0

typedef struct lit {
    scene s;
    al_rad *rad;
    al_diag_list d;
} lit;

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

static void keys(mapgen *g, const char *const *kv)
{
    for (; kv && kv[0]; kv += 2) mapgen_key(g, kv[0], kv[1]);
}

/* The room's worldspawn with keys WORLD and the boxes BOXES[0 .. COUNT) of stone in it
 * (light goes through brush entities), and a light with keys LIGHT (NULL: none). */
static mapgen *room_with(const char *const *world, const char *const *light,
                         const double (*boxes)[6], int count)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    keys(g, world);
    sealed_room(g, 0, 0, 2048, 2048, 1024, "stone");
    for (int i = 0; i < count; i++)
        mapgen_box(g, boxes[i][0], boxes[i][1], boxes[i][2], boxes[i][3], boxes[i][4], boxes[i][5],
                   "stone");
    mapgen_end_entity(g);
    if (light) {
        mapgen_begin_entity(g, "light");
        mapgen_keyf(g, "origin", "1024 1024 %g", H);
        keys(g, light);
        mapgen_end_entity(g);
    }
    mapgen_point_entity(g, "info_player_start", 256, 256, 64);
    return g;
}

static mapgen *room(const char *const *world, const char *const *light)
{
    return room_with(world, light, NULL, 0);
}

/* Compiles G and makes its solver (64-unit luxels: the points need no more). */
static bool light_up(lit *t, mapgen *g)
{
    memset(t, 0, sizeof *t);
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    if (!scene_load_mapgen(&t->s, g, &o)) return false;
    al_rad_options ro = {.luxel_size = 64, .no_ambient = true};
    return al_rad_create(t->s.world, &t->s.input.input, &ro, &t->rad, &t->d) == AL_OK;
}

static void lit_free(lit *t)
{
    al_rad_destroy(t->rad);
    al_diag_list_clear(&t->d);
    scene_free(&t->s);
}

/* The direct light at the floor point R units along x from under the light. */
static void floor_at(const lit *t, double r, float out[3])
{
    al_rad_direct_at(t->rad, (const double[3]){1024 + r, 1024, 0}, (const double[3]){0, 0, 1},
                     AL_RAD_ALL_STYLES, out);
}

/* Quake's falloff of LEVEL at distance D for DELAY and WAIT (ericw-tools' light.rst). */
static double falloff(int delay, double level, double wait, double d)
{
    switch (delay) {
    case 0:
        return fmax(level - wait * d, 0);
    case 1:
        return level * 128 / (wait * d);
    case 2:
        return level * (128 / (wait * d)) * (128 / (wait * d));
    case 5:
        return level / ((wait * d / 128 + 1) * (wait * d / 128 + 1));
    default:
        return level;
    }
}

static const double radii[] = {0, 40, 100, 200, 400, 900};
#define RADII ((int) (sizeof radii / sizeof radii[0]))

/* At each of RADII the floor gets falloff(...) x (1 - S + S cos) in every channel. */
static void check_floor(const lit *t, int delay, double level, double wait, double s,
                        const char *what)
{
    for (int i = 0; i < RADII; i++) {
        double r = radii[i], d = hypot(r, H), c = H / d;
        double want = falloff(delay, level, wait, d) * (1 - s + s * c);
        float got[3];
        floor_at(t, r, got);
        for (int k = 0; k < 3; k++)
            CHECK_MSG(fabs(got[k] - want) <= 1e-4 * want + 1e-3,
                      "%s: at %g units out (distance %.2f) channel %d gets %.4f, want %.4f", what,
                      r, d, k, got[k], want);
    }
}

static void check_delay(int delay, const char *wait)
{
    char value[8];
    snprintf(value, sizeof value, "%d", delay);
    const char *light[] = {"light", "300", "delay", value, "wait", wait, NULL};
    lit t;
    REQUIRE(light_up(&t, room(NULL, light)));
    char what[64];
    snprintf(what, sizeof what, "delay %d, wait %s", delay, wait);
    check_floor(&t, delay, 300, atof(wait), 0.5, what);
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    CHECK_MSG(st.lights == 1, "%d lights", st.lights);
    CHECK_MSG(t.d.count == 0, "%zu diagnostics: %s", t.d.count,
              t.d.count ? t.d.items[0].message : "");
    lit_free(&t);
}

CHECK_TEST(delay_0, "/rad/lights/delay-0-is-linear-light-minus-distance")
{
    check_delay(0, "1");
}

CHECK_TEST(delay_1, "/rad/lights/delay-1-is-inverse-light-128-over-distance")
{
    check_delay(1, "1");
}

CHECK_TEST(delay_2, "/rad/lights/delay-2-is-inverse-square-light-128-over-distance-squared")
{
    check_delay(2, "1");
}

CHECK_TEST(delay_3, "/rad/lights/delay-3-has-no-falloff")
{
    check_delay(3, "1");
}

CHECK_TEST(delay_5, "/rad/lights/delay-5-is-inverse-square-of-distance-over-128-plus-one")
{
    check_delay(5, "1");
}

CHECK_TEST(wait, "/rad/lights/wait-scales-the-distance-of-every-falloff")
{
    check_delay(0, "2.5");
    check_delay(1, "0.5");
    check_delay(2, "2");
    check_delay(5, "3");
}

CHECK_TEST(dist, "/rad/lights/worldspawn-dist-scales-every-light-like-wait-and-range-every-level")
{
    const char *world[] = {"_dist", "2", "_range", "1", NULL};
    const char *light[] = {"light", "300", "wait", "1.5", NULL};
    lit t;
    REQUIRE(light_up(&t, room(world, light)));
    /* _range 1 is twice Quake's 0.5: the level doubles. */
    check_floor(&t, 0, 600, 3, 0.5, "_dist 2 with wait 1.5, _range 1");
    lit_free(&t);
}

CHECK_TEST(falloff_key, "/rad/lights/falloff-ends-a-linear-light-at-that-distance")
{
    const char *light[] = {"light", "300", "wait", "4", "_falloff", "500", NULL};
    lit t;
    REQUIRE(light_up(&t, room(NULL, light)));
    for (int i = 0; i < RADII; i++) {
        double r = radii[i], d = hypot(r, H), c = H / d;
        double want = fmax(300 * (1 - d / 500), 0) * (0.5 + 0.5 * c);
        float got[3];
        floor_at(&t, r, got);
        CHECK_MSG(fabs(got[0] - want) <= 1e-4 * want + 1e-3, "at %g: %.4f, want %.4f", r, got[0],
                  want);
    }
    lit_free(&t);
}

CHECK_TEST(anglescale, "/rad/lights/anglescale-blends-the-cosine-of-incidence")
{
    const char *values[] = {"0", "1", "0.25"};
    for (int v = 0; v < 3; v++) {
        const char *light[] = {"light", "300", "delay", "3", "_anglescale", values[v], NULL};
        lit t;
        REQUIRE(light_up(&t, room(NULL, light)));
        check_floor(&t, 3, 300, 1, atof(values[v]), values[v]);
        lit_free(&t);
    }
    /* The worldspawn's is the default of every light; "_anglesense" is the same key. */
    const char *world[] = {"_anglesense", "0.8", NULL};
    const char *light[] = {"light", "300", "delay", "2", NULL};
    lit t;
    REQUIRE(light_up(&t, room(world, light)));
    check_floor(&t, 2, 300, 1, 0.8, "worldspawn _anglesense 0.8");
    lit_free(&t);
}

CHECK_TEST(colour, "/rad/lights/color-scales-each-channel-in-0-255-or-0-1")
{
    const char *values[] = {"255 128 0", "0.5 0.25 1"};
    const double want[2][3] = {{1, 128 / 255.0, 0}, {0.5, 0.25, 1}};
    for (int v = 0; v < 2; v++) {
        const char *light[] = {"light", "300", "_color", values[v], NULL};
        lit t;
        REQUIRE(light_up(&t, room(NULL, light)));
        float got[3];
        floor_at(&t, 100, got);
        double d = hypot(100, H), white = (300 - d) * (0.5 + 0.5 * H / d);
        for (int k = 0; k < 3; k++)
            CHECK_MSG(fabs(got[k] - white * want[v][k]) < 1e-3,
                      "_color %s channel %d: %.4f, "
                      "want %.4f",
                      values[v], k, got[k], white * want[v][k]);
        lit_free(&t);
    }
}

CHECK_TEST(spot, "/rad/lights/a-spot-has-quake's-hard-edge-and-softangle-fades-it")
{
    /* Straight down with a 60-degree cone: lit within 128 tan 30 = 73.9 units. */
    const char *hard[] = {"light", "300", "mangle", "0 -90 0", "angle", "60", NULL};
    lit t;
    REQUIRE(light_up(&t, room(NULL, hard)));
    float in[3], out[3];
    floor_at(&t, 70, in);
    floor_at(&t, 78, out);
    double d = hypot(70, H);
    CHECK_MSG(fabs(in[0] - (300 - d) * (0.5 + 0.5 * H / d)) < 1e-3, "inside the cone: %g", in[0]);
    CHECK_MSG(out[0] == 0, "outside the cone: %g", out[0]);
    lit_free(&t);

    /* A target below, and a 30-degree core: full light within 128 tan 15 = 34.3, fading
     * linearly in the cosine to nothing at the cone. */
    mapgen *g = room(NULL, (const char *[]){"light", "300", "target", "spot", "angle", "60",
                                            "_softangle", "30", NULL});
    mapgen_begin_entity(g, "info_null");
    mapgen_key(g, "origin", "1024 1024 0");
    mapgen_key(g, "targetname", "spot");
    mapgen_end_entity(g);
    REQUIRE(light_up(&t, g));
    const double co = cos(30 * M_PI / 180), ci = cos(15 * M_PI / 180);
    for (double r = 0; r < 80; r += 10) {
        double dr = hypot(r, H), c = H / dr;
        double scale = c >= ci ? 1 : c < co ? 0 : (c - co) / (ci - co);
        double want = (300 - dr) * (0.5 + 0.5 * c) * scale;
        floor_at(&t, r, in);
        CHECK_MSG(fabs(in[0] - want) < 1e-3, "at %g: %g, want %g", r, in[0], want);
    }
    lit_free(&t);

    /* "_cone" is half the cone (Quake II's, as ericw-tools reads it). */
    REQUIRE(light_up(
        &t, room(NULL, (const char *[]){"light", "300", "mangle", "0 -90", "_cone", "30", NULL})));
    floor_at(&t, 70, in);
    floor_at(&t, 78, out);
    CHECK(in[0] > 0 && out[0] == 0);
    lit_free(&t);
}

CHECK_TEST(minlight, "/rad/lights/minlight-and-mincolor-raise-each-channel-of-the-floor")
{
    mapgen *g = room((const char *[]){"_minlight", "40", "_mincolor", "255 128 0", NULL},
                     (const char *[]){"light", "300", NULL});
    /* A func_wall with its own minimum (the worldspawn's colour), and a func_detail with
     * its own colour too. */
    mapgen_begin_entity(g, "func_wall");
    mapgen_key(g, "_minlight", "80");
    mapgen_box(g, 1600, 1600, 0, 1664, 1664, 32, "stone");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_detail");
    mapgen_key(g, "_minlight", "60");
    mapgen_key(g, "_minlight_color", "0 0 1");
    mapgen_box(g, 400, 1600, 0, 464, 1664, 32, "stone");
    mapgen_end_entity(g);
    lit t;
    REQUIRE(light_up(&t, g));
    /* Far from the light the floor shows the minimum; near it, the larger of each channel. */
    float got[3];
    floor_at(&t, 900, got);
    CHECK_MSG(got[0] == 40 && fabs(got[1] - 40 * 128 / 255.0) < 1e-4 && got[2] == 0,
              "far: %g %g %g", got[0], got[1], got[2]);
    double d = hypot(220, H), light = (300 - d) * (0.5 + 0.5 * H / d); /* below 40 */
    floor_at(&t, 220, got);
    CHECK_MSG(fabs(got[0] - 40) < 1e-4 && fabs(got[1] - light) < 1e-3 &&
                  fabs(got[2] - light) < 1e-3,
              "near: %g %g %g, want 40 %g %g", got[0], got[1], got[2], light, light);
    const double up[3] = {0, 0, 1};
    al_rad_direct_at(t.rad, (const double[3]){1632, 1632, 32}, up, AL_RAD_ALL_STYLES, got);
    CHECK_MSG(got[0] == 80 && fabs(got[1] - 80 * 128 / 255.0) < 1e-4 && got[2] == 0,
              "the func_wall's top: %g %g %g", got[0], got[1], got[2]);
    al_rad_direct_at(t.rad, (const double[3]){432, 1632, 32}, up, AL_RAD_ALL_STYLES, got);
    CHECK_MSG(got[0] == 0 && got[1] == 0 && got[2] == 60, "the func_detail's top: %g %g %g", got[0],
              got[1], got[2]);
    /* The lightmaps show it too, and it is no light: nothing is shot from it. */
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    bool found = false;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(t.rad, i, &l);
        if (l.normal[2] > 0.5 && l.point[0] > 1600 && l.point[0] < 1664 && l.point[1] > 1600 &&
            l.point[1] < 1664 && l.point[2] > 32) {
            found = true;
            CHECK_MSG(l.floor[0] == 80, "the func_wall's luxel floor %g", l.floor[0]);
        }
    }
    CHECK(found);
    lit_free(&t);
    /* Without a light, nothing is emitted: the floor is not light. */
    REQUIRE(light_up(&t, room((const char *[]){"light", "25", NULL}, NULL)));
    al_rad_run(t.rad, 0.01, 10, NULL, NULL);
    al_rad_get_stats(t.rad, &st);
    CHECK_MSG(st.lights == 0 && st.emitted == 0, "%d lights, %g emitted", st.lights, st.emitted);
    floor_at(&t, 0, got);
    CHECK_MSG(got[0] == 25 && got[1] == 25 && got[2] == 25, "worldspawn \"light\" 25: %g", got[0]);
    al_rad_lightmap map;
    REQUIRE(al_rad_snapshot(t.rad, &map) == AL_OK);
    float shown[3];
    REQUIRE(al_rad_shown_at(t.rad, &map, (const double[3]){1000, 1000, 0}, up, shown));
    CHECK_MSG(shown[0] == 25, "the lightmap shows %g", shown[0]);
    al_rad_lightmap_free(&map);
    lit_free(&t);
}

CHECK_TEST(local_minlight,
           "/rad/lights/delay-4-raises-what-sees-it-to-its-level-and-shoots-nothing")
{
    /* A wall hides the floor beyond x 1416 from it. */
    const double wall[1][6] = {{1400, 0, 0, 1416, 2048, 512}};
    mapgen *g = room_with(
        NULL, (const char *[]){"light", "50", "delay", "4", "_color", "255 0 255", NULL}, wall, 1);
    mapgen_light(g, 1024, 1024, 100, "300");
    lit t;
    REQUIRE(light_up(&t, g));
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    CHECK_MSG(st.lights == 1, "%d lights shot: want the lamp only", st.lights);
    float got[3];
    floor_at(&t, 900, got); /* behind the wall */
    CHECK_MSG(got[0] == 0 && got[1] == 0 && got[2] == 0, "hidden: %g %g %g", got[0], got[1],
              got[2]);
    floor_at(&t, 150, got); /* the lamp gives it (300 - 180.3) x 0.85 = 101.9 */
    double d = hypot(150, 100), lamp = (300 - d) * (0.5 + 0.5 * 100 / d);
    CHECK_MSG(fabs(got[0] - lamp) < 1e-3 && fabs(got[2] - lamp) < 1e-3, "near: %g %g", got[0],
              got[2]);
    floor_at(&t, 250, got); /* the lamp gives less than 50 there, but it is seen */
    d = hypot(250, 100), lamp = (300 - d) * (0.5 + 0.5 * 100 / d);
    CHECK_MSG(got[0] == 50 && fabs(got[1] - lamp) < 1e-3 && got[2] == 50,
              "where the minlight wins: %g %g %g (lamp %g)", got[0], got[1], got[2], lamp);
    lit_free(&t);
}

/* The sum over RAD's lights of their direct light at floor point P (closed form, with
 * each light's own origin and level). */
static double sum_at(const al_rad *rad, const double p[3])
{
    double sum = 0;
    for (int32_t i = 0; i < rad->light_count; i++) {
        const rad_light *l = &rad->lights[i];
        double to[3];
        al_sub(l->origin, p, to);
        double d = al_length(to), c = to[2] / d;
        sum += falloff(l->delay, l->level, l->wait, d) * (0.5 + 0.5 * c);
    }
    return sum;
}

CHECK_TEST(deviance, "/rad/lights/deviance-splits-a-light-into-samples-copies-within-its-radius")
{
    const char *light[] = {"light", "300", "delay", "2", "_deviance", "24", "_samples", "8", NULL};
    lit t;
    REQUIRE(light_up(&t, room(NULL, light)));
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    REQUIRE_MSG(st.lights == 8, "%d lights", st.lights);
    const double origin[3] = {1024, 1024, H};
    CHECK(memcmp(t.rad->lights[0].origin, origin, sizeof origin) == 0);
    bool moved = false;
    for (int i = 0; i < 8; i++) {
        const rad_light *l = &t.rad->lights[i];
        double d[3];
        al_sub(l->origin, origin, d);
        CHECK_MSG(al_length(d) <= 24, "copy %d is %g from the light", i, al_length(d));
        moved |= i > 0 && al_length(d) > 0;
        CHECK_MSG(fabs(l->level - 300.0 / 8) < 1e-9, "copy %d: level %g, want 300 / 8", i,
                  l->level);
    }
    CHECK(moved);
    for (int i = 0; i < RADII; i++) {
        double p[3] = {1024 + radii[i], 1024, 0};
        float got[3];
        floor_at(&t, radii[i], got);
        double want = sum_at(t.rad, p);
        CHECK_MSG(fabs(got[0] - want) < 1e-4 * want, "at %g: %g, want %g", radii[i], got[0], want);
    }
    /* Far away the copies add up to the light. */
    float far[3];
    floor_at(&t, 900, far);
    double d = hypot(900, H), whole = falloff(2, 300, 1, d) * (0.5 + 0.5 * H / d);
    CHECK_MSG(fabs(far[0] - whole) < 0.06 * whole, "far: %g, the light alone %g", far[0], whole);
    /* The same copies every time the map is read. */
    lit again;
    REQUIRE(light_up(&again, room(NULL, light)));
    REQUIRE(again.rad->light_count == 8);
    for (int i = 0; i < 8; i++)
        CHECK(memcmp(again.rad->lights[i].origin, t.rad->lights[i].origin, sizeof origin) == 0);
    lit_free(&again);
    lit_free(&t);

    /* A linear light's copies each get the whole level (ericw-tools). */
    const char *linear[] = {"light", "300", "_deviance", "8", "_samples", "4", NULL};
    REQUIRE(light_up(&t, room(NULL, linear)));
    REQUIRE(t.rad->light_count == 4);
    CHECK(t.rad->lights[3].level == 300);
    float got[3];
    floor_at(&t, 0, got);
    double want = sum_at(t.rad, (const double[3]){1024, 1024, 0});
    CHECK_MSG(fabs(got[0] - want) < 1e-4 * want && want > 3 * 172, "under it: %g, want %g", got[0],
              want);
    lit_free(&t);
}

CHECK_TEST(penumbra, "/rad/lights/deviance-softens-a-shadow's-edge")
{
    /* A slab 64 under the light casts a shadow of radius 256 on the floor; at 240 units
     * out the floor is in the hard shadow, at 272 out of it. */
    for (int soft = 0; soft < 2; soft++) {
        const double slab[1][6] = {{1024 - 128, 1024 - 128, 56, 1024 + 128, 1024 + 128, 64}};
        mapgen *g = room_with(NULL,
                              (const char *[]){"light", "300", "delay", "5", "_deviance",
                                               soft ? "40" : "0", "_samples", "32", NULL},
                              slab, 1);
        lit t;
        REQUIRE(light_up(&t, g));
        float in[3], out[3];
        floor_at(&t, 240, in);
        floor_at(&t, 272, out);
        if (soft) {
            CHECK_MSG(in[0] > 0 && in[0] < out[0], "soft: %g in the shadow, %g out of it", in[0],
                      out[0]);
        } else {
            CHECK_MSG(in[0] == 0 && out[0] > 0, "hard: %g in the shadow, %g out of it", in[0],
                      out[0]);
        }
        lit_free(&t);
    }
}

CHECK_TEST(surface, "/rad/lights/surface-copies-the-light-over-each-128-unit-piece-of-a-face")
{
    /* A panel 256 x 256 whose underside is "lightpanel": four pieces, each with a light 2
     * under its centre; a box covers one piece, which gets none. */
    mapgen *g = room(NULL, NULL);
    mapgen_begin_entity(g, "func_detail");
    const char *panel[6] = {"stone", "stone", "stone", "stone", "lightpanel", "stone"};
    mapgen_box_faces(g, 896, 896, 600, 1152, 1152, 616, panel);
    mapgen_box(g, 1024, 1024, 500, 1152, 1152, 600, "stone");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "64 64 64");
    mapgen_key(g, "light", "200");
    mapgen_key(g, "delay", "2");
    mapgen_key(g, "_surface", "LightPanel"); /* names match whatever their case */
    mapgen_end_entity(g);
    lit t;
    REQUIRE(light_up(&t, g));
    REQUIRE_MSG(t.rad->light_count == 3, "%d lights, want 3", t.rad->light_count);
    const double want[3][3] = {{960, 960, 598}, {1088, 960, 598}, {960, 1088, 598}};
    for (int w = 0; w < 3; w++) {
        bool found = false;
        for (int i = 0; i < 3; i++) {
            double d[3];
            al_sub(t.rad->lights[i].origin, want[w], d);
            found |= al_length(d) < 1e-9;
        }
        CHECK_MSG(found, "no light at (%g %g %g)", want[w][0], want[w][1], want[w][2]);
    }
    /* The floor under the panel's middle gets the three, by the template's falloff. */
    float got[3];
    floor_at(&t, 0, got);
    double sum = 0;
    for (int w = 0; w < 3; w++) {
        double to[3];
        al_sub(want[w], (const double[3]){1024, 1024, 0}, to);
        double d = al_length(to);
        sum += falloff(2, 200, 1, d) * (0.5 + 0.5 * to[2] / d);
    }
    CHECK_MSG(fabs(got[0] - sum) < 1e-4 * sum, "under the panel: %g, want %g", got[0], sum);
    lit_free(&t);

    /* _surface_offset and _surface_spotlight. */
    g = room(NULL, NULL);
    mapgen_begin_entity(g, "func_detail");
    mapgen_box_faces(g, 896, 896, 600, 1024, 1024, 616, panel);
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "64 64 64");
    mapgen_key(g, "_surface", "lightpanel");
    mapgen_key(g, "_surface_offset", "10");
    mapgen_key(g, "_surface_spotlight", "1");
    mapgen_end_entity(g);
    REQUIRE(light_up(&t, g));
    REQUIRE(t.rad->light_count == 1);
    const rad_light *l = &t.rad->lights[0];
    CHECK_MSG(l->kind == RAD_SPOT && l->dir[2] == -1 && l->origin[2] == 590,
              "kind %d, dir z %g, at z %g", l->kind, l->dir[2], l->origin[2]);
    lit_free(&t);
}

/* What an upward face under open sky gets of a dome of LEVEL, with angle scale S. */
static double open_dome(double level, double s)
{
    double sum = 1;
    for (int i = 0; i < 4; i++) sum += 16 * (1 - s + s * sin((9 + 18 * i) * M_PI / 180));
    return level * sum / 65;
}

CHECK_TEST(domes, "/rad/lights/sunlight2-and-sunlight3-light-from-the-upper-and-lower-sky")
{
    /* A slab floating in a room of sky: its top sees the upper sky, its underside the
     * lower. */
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight2", "100");
    mapgen_key(g, "_sunlight3", "60");
    mapgen_key(g, "_sunlight_color3", "255 0 0");
    mapgen_key(g, "_anglescale", "0.3");
    sealed_room(g, 0, 0, 4096, 4096, 2048, "sky1");
    mapgen_box(g, 2048 - 32, 2048 - 32, 1024, 2048 + 32, 2048 + 32, 1040, "stone");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 256, 256, 64);
    lit t;
    REQUIRE(light_up(&t, g));
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    CHECK_MSG(st.lights == 130 && st.dome_lights == 130, "%d lights, %d of domes", st.lights,
              st.dome_lights);
    float top[3], bottom[3];
    al_rad_direct_at(t.rad, (const double[3]){2048, 2048, 1040}, (const double[3]){0, 0, 1},
                     AL_RAD_ALL_STYLES, top);
    al_rad_direct_at(t.rad, (const double[3]){2048, 2048, 1024}, (const double[3]){0, 0, -1},
                     AL_RAD_ALL_STYLES, bottom);
    double up = open_dome(100, 0.3), down = open_dome(60, 0.3);
    CHECK_MSG(fabs(top[0] - up) < 1e-3 && fabs(top[1] - up) < 1e-3, "top: %g %g, want %g", top[0],
              top[1], up);
    CHECK_MSG(fabs(bottom[0] - down) < 1e-3 && bottom[1] == 0, "underside: %g %g, want %g 0",
              bottom[0], bottom[1], down);
    lit_free(&t);
}

/* Ends the worldspawn G began (its keys set) with a room of sky 4096 wide and 2048 high
 * over a floor 16 thick, and puts a player start in it. */
static void open_floor_under_sky(mapgen *g)
{
    sealed_room(g, 0, 0, 4096, 4096, 2048, "sky1");
    mapgen_box(g, 0, 0, 0, 4096, 4096, 16, "stone");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 256, 256, 64);
}

CHECK_TEST(sun_anglescale, "/rad/lights/the-sun-takes-the-worldspawn-anglescale")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight", "200");
    mapgen_key(g, "_sunlight_mangle", "0 -60 0");
    mapgen_key(g, "_anglescale", "1");
    open_floor_under_sky(g);
    lit t;
    REQUIRE(light_up(&t, g));
    float got[3];
    al_rad_direct_at(t.rad, (const double[3]){2048, 2048, 16}, (const double[3]){0, 0, 1},
                     AL_RAD_ALL_STYLES, got);
    double want = 200 * sin(60 * M_PI / 180);
    CHECK_MSG(fabs(got[0] - want) < 1e-3, "%g, want %g", got[0], want);
    lit_free(&t);
}

/* A stone hut 1024 wide and 512 high on the open floor under the sky, from (1536, 1536):
 * its roof whole, or with a 256-unit hole in the middle. */
static mapgen *hut_under_sky(bool hole)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight", "200");
    mapgen_key(g, "_sunlight_mangle", "0 -90 0");
    mapgen_key(g, "_sunlight2", "50");
    const double x0 = 1536, x1 = 2560, top = 528;
    mapgen_box(g, x0, x0, 16, x0 + 16, x1, top, "stone");
    mapgen_box(g, x1 - 16, x0, 16, x1, x1, top, "stone");
    mapgen_box(g, x0 + 16, x0, 16, x1 - 16, x0 + 16, top, "stone");
    mapgen_box(g, x0 + 16, x1 - 16, 16, x1 - 16, x1, top, "stone");
    if (hole) {
        /* The roof around a hole over (1920..2176)². */
        mapgen_box(g, x0, x0, top, 1920, x1, top + 16, "stone");
        mapgen_box(g, 2176, x0, top, x1, x1, top + 16, "stone");
        mapgen_box(g, 1920, x0, top, 2176, 1920, top + 16, "stone");
        mapgen_box(g, 1920, 2176, top, 2176, x1, top + 16, "stone");
    } else {
        mapgen_box(g, x0, x0, top, x1, x1, top + 16, "stone");
    }
    open_floor_under_sky(g);
    return g;
}

CHECK_TEST(sky_gate,
           "/rad/lights/a-hut-shut-from-the-sky-casts-no-sun-rays-and-a-hole-lets-them-in")
{
    /* Inside the shut hut no vis leaf sees a leaf with a sky face: its luxels cast no sun
     * rays (rad/patches.c), and the sun rays left out, cast, reach no sky. Under the hole
     * the sun and the dome reach the floor, as they do outside. */
    const double inside[3] = {2048, 2048, 16}, outside[3] = {512, 512, 16}, up[3] = {0, 0, 1};
    for (int hole = 0; hole < 2; hole++) {
        lit t;
        REQUIRE(light_up(&t, hut_under_sky(hole)));
        float in[3], out[3];
        al_rad_direct_at(t.rad, inside, up, AL_RAD_ALL_STYLES, in);
        al_rad_direct_at(t.rad, outside, up, AL_RAD_ALL_STYLES, out);
        int64_t gated, rays;
        char why[300] = "";
        int64_t wrong = rad_check_sky_gate(t.rad, &gated, &rays, why, sizeof why);
        CHECK_MSG(wrong == 0, "roof %s: %lld rays left out reach the sky: %s",
                  hole ? "with a hole" : "whole", (long long) wrong, why);
        CHECK_MSG(out[0] > 200, "outside gets %g", out[0]);
        if (hole) {
            CHECK_MSG(gated == 0, "%lld luxels left without their sun rays", (long long) gated);
            /* The sun straight down through it, and the part of the dome it shows. */
            CHECK_MSG(in[0] > 200 - 1e-3 && in[0] < out[0], "under the hole %g, outside %g", in[0],
                      out[0]);
        } else {
            /* The hut's floor, walls and roof seen from inside: 16² + 4 x 16 x 8 + 16². */
            CHECK_MSG(gated >= 16 * 16, "%lld luxels left without their sun rays",
                      (long long) gated);
            CHECK_MSG(rays > 0 && in[0] == 0, "inside %g, %lld rays", in[0], (long long) rays);
        }
        lit_free(&t);
    }
}

CHECK_TEST(styles, "/rad/lights/each-lightmap-style-holds-its-own-lights-and-style-0-the-minimum")
{
    /* Three lamps of delay 3 (no falloff) over the middle: a steady one, one of style 10,
     * one a trigger switches (style 32, as Quake's light numbers the first targetname);
     * worldspawn minimum 5. */
    mapgen *g = room((const char *[]){"_minlight", "5", NULL},
                     (const char *[]){"light", "100", "delay", "3", NULL});
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "1000 1024 128");
    mapgen_key(g, "light", "40");
    mapgen_key(g, "delay", "3");
    mapgen_key(g, "style", "10");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light_fluoro");
    mapgen_key(g, "origin", "1048 1024 128");
    mapgen_key(g, "light", "60");
    mapgen_key(g, "delay", "3");
    mapgen_key(g, "targetname", "switch");
    mapgen_end_entity(g);
    lit t;
    REQUIRE(light_up(&t, g));
    const double p[3] = {1024, 1024, 0}, up[3] = {0, 0, 1};
    const int styles[] = {0, 10, 32, 33, AL_RAD_ALL_STYLES};
    double want[5] = {0, 0, 0, 5, 0};
    const double level[3] = {100, 40, 60}, x[3] = {1024, 1000, 1048};
    for (int i = 0; i < 3; i++) {
        double d = hypot(x[i] - 1024, 128), v = level[i] * (0.5 + 0.5 * 128 / d);
        want[i] = v;
        want[4] += v;
    }
    want[3] = 0; /* no light of style 33, and the minimum belongs to style 0 */
    for (int s = 0; s < 5; s++) {
        float got[3];
        al_rad_direct_at(t.rad, p, up, styles[s], got);
        CHECK_MSG(fabs(got[0] - want[s]) < 1e-3, "style %d: %g, want %g", styles[s], got[0],
                  want[s]);
    }
    lit_free(&t);
}

CHECK_TEST(penumbra_sun, "/rad/lights/sunlight-penumbra-spreads-the-sun-over-suns-within-its-angle")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_sunlight", "160");
    mapgen_key(g, "_sunlight_penumbra", "6");
    open_floor_under_sky(g);
    lit t;
    REQUIRE(light_up(&t, g));
    REQUIRE_MSG(t.rad->light_count == AL_RAD_PENUMBRA, "%d suns", t.rad->light_count);
    double want = 0;
    for (int i = 0; i < t.rad->light_count; i++) {
        const rad_light *l = &t.rad->lights[i];
        double angle = acos(fmin(-l->dir[2], 1)) * 180 / M_PI;
        CHECK_MSG(angle <= 6 * M_SQRT2 + 1e-9, "sun %d is %g degrees off straight down", i, angle);
        CHECK(l->level == 10);
        want += l->level * (0.5 + 0.5 * -l->dir[2]);
    }
    float got[3];
    al_rad_direct_at(t.rad, (const double[3]){2048, 2048, 16}, (const double[3]){0, 0, 1},
                     AL_RAD_ALL_STYLES, got);
    CHECK_MSG(fabs(got[0] - want) < 1e-3 && want > 0.99 * 160, "%g, want %g", got[0], want);
    lit_free(&t);
}

CHECK_TEST(solver_agrees, "/rad/lights/the-solver's-direct-light-is-the-probe's-at-every-luxel")
{
    const double pillar[1][6] = {{900, 900, 0, 1000, 1000, 300}}; /* it casts shadows */
    mapgen *g = room_with(
        (const char *[]){"_minlight", "12", "_dirt", "1", NULL},
        (const char *[]){"light", "400", "delay", "5", "_color", "255 200 100", NULL}, pillar, 1);
    mapgen_light(g, 300, 1700, 200, "250");
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "1700 400 300");
    mapgen_key(g, "light", "500");
    mapgen_key(g, "mangle", "30 -60 0");
    mapgen_key(g, "_softangle", "20");
    mapgen_key(g, "_anglescale", "0.9");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_wall"); /* its own minimum: the worldspawn's */
    mapgen_box(g, 1500, 1500, 0, 1600, 1600, 100, "stone");
    mapgen_end_entity(g);
    lit t;
    REQUIRE(light_up(&t, g));
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    al_rad_step(t.rad, st.lights); /* the light sources only */
    al_rad_get_stats(t.rad, &st);
    double worst = 0;
    int lit_luxels = 0;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(t.rad, i, &l);
        double x[3];
        al_madd(l.point, l.normal, -1, x);
        float want[3];
        al_rad_direct_at(t.rad, x, l.normal, AL_RAD_ALL_STYLES, want);
        for (int k = 0; k < 3; k++) {
            double got = fmax(l.incident[k], l.floor[k]);
            worst = fmax(worst, fabs(got - want[k]) / fmax(want[k], 1));
        }
        lit_luxels += l.incident[0] > l.floor[0];
    }
    CHECK_MSG(worst < 1e-5, "worst relative difference %g", worst);
    CHECK_MSG(lit_luxels > 100, "%d of %d luxels above the minimum", lit_luxels, st.patches);
    lit_free(&t);
}

/* What dirt leaves of a light at the floor point under a ceiling H above it, with the
 * worldspawn's dirt keys DEPTH, SCALE and GAIN: the 48 rays of ericw-tools' ordered dirt
 * (three angles from the normal in the 88-degree cone, 16 around each) start a unit off
 * the floor and meet the ceiling at (H - 1) / cos(angle), or look DEPTH far. */
static double dirt_under(double h, double depth, double scale, double gain)
{
    double free_sum = 0;
    for (int i = 0; i < 3; i++) {
        double e = (i + 0.5) * 88.0 / 3 * M_PI / 180;
        free_sum += fmin((h - 1) / cos(e), depth);
    }
    double occlusion = 1 - free_sum / 3 / depth;
    return 1 - fmin(fmin(pow(occlusion, gain), 1) * scale, 1);
}

CHECK_TEST(dirt, "/rad/lights/dirt-dims-a-light-by-how-near-the-geometry-over-a-point-is")
{
    /* A slab 48 over the middle of the floor, a lamp of no falloff 24 up under it: the floor
     * under it gets 100 x what dirt leaves; the open floor far out is not dimmed. */
    const double slab[1][6] = {{1024 - 256, 1024 - 256, 48, 1024 + 256, 1024 + 256, 64}};
    struct {
        const char *world[12], *light[10];
        double want; /* what the floor under the lamp gets */
    } cases[] = {
        {{"_dirt", "1", NULL},
         {"light", "100", "delay", "3", NULL},
         100 * dirt_under(48, 128, 1, 1)},
        {{"_dirt", "1", "_dirtdepth", "64", "_dirtscale", "1.5", "_dirtgain", "0.5", NULL},
         {"light", "100", "delay", "3", NULL},
         100 * dirt_under(48, 64, 1.5, 0.5)},
        {{"_dirt", "1", NULL}, {"light", "100", "delay", "3", "_dirt", "-1", NULL}, 100},
        {{NULL},
         {"light", "100", "delay", "3", "_dirt", "1", "_dirtscale", "2", NULL},
         100 * dirt_under(48, 128, 2, 1)},
        {{NULL}, {"light", "100", "delay", "3", NULL}, 100},
        /* The minimum light takes it with _minlight_dirt; the lamp gives nothing. */
        {{"_minlight", "60", "_minlight_dirt", "1", NULL},
         {"light", "0", NULL},
         60 * dirt_under(48, 128, 1, 1)},
    };
    for (int c = 0; c < (int) (sizeof cases / sizeof cases[0]); c++) {
        mapgen *g = room_with(cases[c].world, NULL, slab, 1);
        mapgen_begin_entity(g, "light");
        mapgen_key(g, "origin", "1024 1024 24");
        keys(g, cases[c].light);
        mapgen_end_entity(g);
        lit t;
        REQUIRE(light_up(&t, g));
        float got[3];
        al_rad_direct_at(t.rad, (const double[3]){1024, 1024, 0}, (const double[3]){0, 0, 1},
                         AL_RAD_ALL_STYLES, got);
        CHECK_MSG(fabs(got[0] - cases[c].want) < 1e-3, "case %d: %g, want %g", c, got[0],
                  cases[c].want);
        /* Far out on the open floor nothing is near: no dirt. */
        float open[3];
        al_rad_direct_at(t.rad, (const double[3]){1800, 1800, 0}, (const double[3]){0, 0, 1},
                         AL_RAD_ALL_STYLES, open);
        if (c == 5) CHECK_MSG(open[0] == 60, "case %d, the open floor: %g", c, open[0]);
        lit_free(&t);
    }
    /* _dirtmode 1: random rays, the same at the same point every time. */
    mapgen *g = room_with((const char *[]){"_dirt", "1", "_dirtmode", "1", NULL}, NULL, slab, 1);
    mapgen_light(g, 1024, 1024, 24, "100");
    lit t;
    REQUIRE(light_up(&t, g));
    float a[3], b[3];
    const double p[3] = {1024, 1024, 0}, up[3] = {0, 0, 1};
    al_rad_direct_at(t.rad, p, up, AL_RAD_ALL_STYLES, a);
    al_rad_direct_at(t.rad, p, up, AL_RAD_ALL_STYLES, b);
    CHECK_MSG(a[0] == b[0] && a[0] > 20 && a[0] < 90, "random dirt: %g then %g", a[0], b[0]);
    lit_free(&t);
}

static bool has_diag(const al_diag_list *d, int entity, const char *part)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].entity == entity && strstr(d->items[i].message, part) &&
            d->items[i].line > 0)
            return true;
    return false;
}

CHECK_TEST(bad_keys, "/rad/lights/bad-light-keys-give-warnings-naming-the-entity-and-line")
{
    mapgen *g = room((const char *[]){"_anglescale", "5", "_mincolor", "x", "_sunlight3", "-1",
                                      "_range", "0", "_dist", "-2", NULL},
                     NULL);
    const char *bad[][4] = {
        {"_anglescale", "2", NULL, NULL},          {"_falloff", "100", "delay", "2"},
        {"_samples", "0", "_deviance", "8"},       {"_deviance", "-1", NULL, NULL},
        {"_surface", "nosuchtexture", NULL, NULL}, {"_softangle", "-5", "mangle", "0 -90"},
        {"_cone", "120", "mangle", "0 -90"}};
    int n = (int) (sizeof bad / sizeof bad[0]);
    for (int i = 0; i < n; i++) {
        mapgen_begin_entity(g, "light");
        mapgen_keyf(g, "origin", "%d 512 64", 200 + 100 * i);
        mapgen_key(g, bad[i][0], bad[i][1]);
        if (bad[i][2]) mapgen_key(g, bad[i][2], bad[i][3]);
        mapgen_end_entity(g);
    }
    mapgen_begin_entity(g, "func_wall");
    mapgen_key(g, "_minlight", "dark");
    mapgen_box(g, 1600, 1600, 0, 1664, 1664, 32, "stone");
    mapgen_end_entity(g);
    lit t;
    REQUIRE(light_up(&t, g));
    /* Entity 1 is the player start. */
    const char *world_keys[] = {"\"_anglescale\"", "\"_mincolor\"", "\"_sunlight3\"", "\"_range\"",
                                "\"_dist\""};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(has_diag(&t.d, 0, world_keys[k]), "no warning on the worldspawn's %s",
                  world_keys[k]);
    for (int i = 0; i < n; i++) {
        const char *want =
            strcmp(bad[i][0], "_surface") == 0 ? "no face has that material" : bad[i][0];
        CHECK_MSG(has_diag(&t.d, 2 + i, want), "no warning on light %d's %s", 2 + i, bad[i][0]);
    }
    CHECK_MSG(has_diag(&t.d, 2 + n, "\"_minlight\""), "no warning on the func_wall's _minlight");
    /* The lights still light, with the defaults: one each, 16 copies for "_samples" 0, none
     * for the surface light without faces. */
    al_rad_stats st;
    al_rad_get_stats(t.rad, &st);
    CHECK_MSG(st.lights == 21, "%d lights, want 21", st.lights);
    CHECK(t.rad->lights[0].anglescale == 0.5);
    lit_free(&t);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
