/* The slide move and walking: closed forms, the stairs, tunnel and wall cases the issue
 * names, and the brute-force sweep oracle on generated and real maps. */
#include "al-move.h"
#include "check.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "scene.h"
#include "al-oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DT (1.0 / 60.0)

static bool load(scene *s, mapgen *g)
{
    return scene_load_mapgen(s, g, NULL);
}

/* A closed room 1024 wide (x, y in [-512, 512]) and 512 high on a floor at z = 0, with
 * whatever the caller adds inside. */
static mapgen *room(void)
{
    mapgen *g = mapgen_create(true);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_room(g, -512, -512, 0, 512, 512, 512, 16, "wall");
    return g;
}

static bool finish(scene *s, mapgen *g)
{
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 0, 0, 64);
    return load(s, g);
}

/* Standing on the floor: the stand box's bottom is 24 below the origin. */
static void standing_at(const scene *s, al_mover *m, double x, double y)
{
    double p[3] = {x, y, 24 + AL_TRACE_SKIN};
    al_mover_init(m, s->world, scene_hull(s, "stand"), scene_hull(s, "crouch"), p);
}

static void walk(const scene *s, const al_move_params *p, al_mover *m, double wx, double wy,
                 bool crouch, double seconds)
{
    (void) s;
    al_move_input in = {.wish = {wx, wy}, .crouch = crouch};
    for (int i = 0; i < (int) lround(seconds / DT); i++) al_move_step(s->world, p, &in, DT, m);
}

CHECK_TEST(slide_45, "/move/slide-along-a-45-degree-wall-keeps-the-tangential-speed")
{
    mapgen *g = room();
    /* A wall whose face runs at 45 degrees: the half-plane x + y >= 256, cut to a prism. */
    const double xy[3][2] = {{256, 0}, {256, 256}, {0, 256}};
    mapgen_prism(g, 3, xy, 0, 512, "wall");
    scene s;
    REQUIRE(finish(&s, g));
    int stand = scene_hull(&s, "stand");
    al_box_shape shape = {.hull = stand};
    /* Into the wall along +x at 300 units/s for a second, floating (no floor contact). */
    double start[3] = {40, 40, 100}, v[3] = {300, 0, 0};
    al_slide slide;
    al_slide_move(s.world, &shape, start, v, 1.0, &slide);
    REQUIRE(!slide.start_solid);
    REQUIRE(slide.contact_count >= 1);
    CHECK_NEAR(slide.contacts[0].normal[0], -sqrt(0.5), 1e-9);
    CHECK_NEAR(slide.contacts[0].normal[1], -sqrt(0.5), 1e-9);
    /* The velocity keeps its component along the wall: 300 cos 45 along (1, -1)/sqrt 2. */
    CHECK_NEAR(slide.velocity[0], 150, 1e-2);
    CHECK_NEAR(slide.velocity[1], -150, 1e-2);
    CHECK_NEAR(al_length(slide.velocity), 300 * sqrt(0.5), 1e-2);
    /* The box rests against the wall: its corner (x + 16, y + 16) on x + y = 256. */
    CHECK_NEAR(slide.end[0] + slide.end[1] + 32, 256 - AL_TRACE_SKIN * sqrt(2), 0.05);
    /* Before the contact it moved 300 t along x; the rest of the second along the wall at
     * 212 units/s: where it ends is closed form. */
    double t_hit = (256 - 32 - 80) / 300.0;
    double along = (1 - t_hit) * 300 * sqrt(0.5);
    CHECK_NEAR(slide.end[0], 40 + 300 * t_hit + along * sqrt(0.5), 0.1);
    CHECK_NEAR(slide.end[1], 40 - along * sqrt(0.5), 0.1);
    CHECK_NEAR(slide.end[2], 100, 1e-9);

    /* A walker with friction off and no push keeps the same tangential speed. */
    al_move_params p;
    al_move_default_params(&p);
    p.friction = 0;
    al_mover m;
    standing_at(&s, &m, 100, 80);
    al_set(300, 0, 0, m.velocity);
    al_move_input none = {0};
    for (int i = 0; i < 60; i++) al_move_step(s.world, &p, &none, DT, &m);
    CHECK(m.on_ground);
    CHECK_NEAR(hypot(m.velocity[0], m.velocity[1]), 300 * sqrt(0.5), 0.05);
    CHECK_NEAR(m.origin[0] + m.origin[1] + 32, 256, 0.1);
    scene_free(&s);
}

/* Walks along +x up a flight of steps of RISE; *GAINED is the height gained. */
static void climb(double rise, double *gained)
{
    *gained = NAN;
    mapgen *g = room();
    mapgen_stairs(g, 64, -128, 0, 0, 6, rise, 32, 256, "stairs");
    mapgen_box(g, 256, -128, 0, 512, 128, 6 * rise, "landing");
    scene s;
    REQUIRE(finish(&s, g));
    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    standing_at(&s, &m, -128, 0);
    walk(&s, &p, &m, 1, 0, false, 3.0);
    CHECK(m.on_ground);
    CHECK(!al_world_point_solid(s.world, al_mover_hull(&m), m.origin));
    *gained = m.origin[2] - (24 + AL_TRACE_SKIN);
    check_note("rise %g: ended at x %.2f, %.2f units up", rise, m.origin[0], *gained);
    scene_free(&s);
}

CHECK_TEST(stairs, "/move/step-up-climbs-16-unit-stairs-but-not-24")
{
    /* Six steps of 16: the top is 96 up. */
    double gained;
    climb(16, &gained);
    CHECK_NEAR(gained, 96, 0.1);
    /* A 24-unit riser is above the 18-unit step height: the walker stays on the floor. */
    climb(24, &gained);
    CHECK_NEAR(gained, 0, 1e-6);
}

CHECK_TEST(stairs_down, "/move/walking-down-stairs-follows-the-steps")
{
    mapgen *g = room();
    mapgen_stairs(g, 64, -128, 0, 0, 6, 16, 32, 256, "stairs");
    mapgen_box(g, 256, -128, 0, 400, 128, 96, "landing");
    scene s;
    REQUIRE(finish(&s, g));
    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    double top[3] = {380, 0, 96 + 24 + AL_TRACE_SKIN};
    al_mover_init(&m, s.world, scene_hull(&s, "stand"), scene_hull(&s, "crouch"), top);
    REQUIRE(m.on_ground);
    al_move_input in = {.wish = {-1, 0}};
    int airborne = 0;
    for (int i = 0; i < 180; i++) {
        al_move_step(s.world, &p, &in, DT, &m);
        if (!m.on_ground) airborne++;
    }
    /* Down at the floor, never in the air on the way: each step was followed down. */
    CHECK_NEAR(m.origin[2], 24 + AL_TRACE_SKIN, 0.01);
    CHECK_MSG(airborne == 0, "in the air for %d of 180 steps", airborne);
    scene_free(&s);
}

CHECK_TEST(tunnel, "/move/a-crouch-only-tunnel-is-passable-only-crouched")
{
    mapgen *g = room();
    /* A block from x = 0 to 256 with a tunnel 64 wide and 48 high through it along x. */
    mapgen_box(g, 0, -512, 0, 256, -32, 512, "block");
    mapgen_box(g, 0, 32, 0, 256, 512, 512, "block");
    mapgen_box(g, 0, -32, 48, 256, 32, 512, "block");
    scene s;
    REQUIRE(finish(&s, g));
    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    /* Standing (56 high) it stops at the mouth. */
    standing_at(&s, &m, -200, 0);
    walk(&s, &p, &m, 1, 0, false, 3.0);
    CHECK_MSG(m.origin[0] < 0 - 16 + 0.1, "standing walker got to x %.2f", m.origin[0]);
    /* Crouched (40 high) it gets through. */
    standing_at(&s, &m, -200, 0);
    walk(&s, &p, &m, 1, 0, true, 1.5);
    CHECK(m.crouched);
    double inside = m.origin[0];
    CHECK_MSG(inside > 16 && inside < 240, "crouched walker at x %.2f, not in the tunnel",
              inside);
    /* Letting go of crouch inside: it cannot stand up, and keeps going. */
    walk(&s, &p, &m, 1, 0, false, 0.1);
    CHECK(m.crouched);
    CHECK(!al_world_point_solid(s.world, al_mover_hull(&m), m.origin));
    walk(&s, &p, &m, 1, 0, false, 3.0);
    CHECK(m.origin[0] > 256 + 16);
    /* Out of the tunnel it stands up by itself. */
    CHECK(!m.crouched);
    scene_free(&s);
}

CHECK_TEST(closed_forms, "/move/friction-speed-cap-gravity-and-jump-match-closed-forms")
{
    scene s;
    REQUIRE(finish(&s, room()));
    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    standing_at(&s, &m, -400, 0);
    REQUIRE(m.on_ground);
    /* Accelerating: each step adds (accelerate - friction) dt until the cap. */
    al_move_input in = {.wish = {1, 0}};
    al_move_step(s.world, &p, &in, DT, &m);
    CHECK_NEAR(m.velocity[0], p.accelerate * DT, 1e-9);
    walk(&s, &p, &m, 1, 0, false, 1.0);
    CHECK_NEAR(m.velocity[0], p.max_speed, 1e-9);
    CHECK_NEAR(m.velocity[2], 0, 1e-9);
    /* Letting go: friction stops it in max_speed / friction seconds. */
    double x0 = m.origin[0];
    int steps = 0;
    al_move_input none = {0};
    while (m.velocity[0] > 0 && steps < 1000) al_move_step(s.world, &p, &none, DT, &m), steps++;
    CHECK_NEAR(steps * DT, p.max_speed / p.friction, DT + 1e-9);
    /* The distance is the sum of the speeds: v dt per step, v falling by friction dt. */
    double expect = 0;
    for (double v = p.max_speed - p.friction * DT; v > 0; v -= p.friction * DT) expect += v * DT;
    CHECK_NEAR(m.origin[0] - x0, expect, 1e-6);

    /* A fall from 200 up: Euler steps of gravity, landing on the floor. */
    double high[3] = {0, 0, 224};
    al_mover_init(&m, s.world, scene_hull(&s, "stand"), scene_hull(&s, "crouch"), high);
    CHECK(!m.on_ground);
    double z = 224, vz = 0;
    for (int i = 0; i < 10; i++) {
        al_move_step(s.world, &p, &none, DT, &m);
        vz -= p.gravity * DT;
        z += vz * DT;
    }
    CHECK_NEAR(m.origin[2], z, 1e-9);
    walk(&s, &p, &m, 0, 0, false, 2.0);
    CHECK(m.on_ground);
    CHECK_NEAR(m.origin[2], 24 + AL_TRACE_SKIN, 1e-6);

    /* A jump rises jump_speed^2 / 2 gravity (as Euler steps sum it) and lands again. */
    al_move_input jump = {.jump = true};
    al_move_step(s.world, &p, &jump, DT, &m);
    double top = m.origin[2], rise = 0;
    vz = p.jump_speed - p.gravity * DT;
    double expect_top = 24 + AL_TRACE_SKIN + p.jump_speed * DT;
    for (double v = vz; v > 0; v -= p.gravity * DT) expect_top += v * DT;
    for (int i = 0; i < 120; i++) {
        al_move_step(s.world, &p, &none, DT, &m);
        if (m.origin[2] > top) top = m.origin[2];
    }
    rise = top - (24 + AL_TRACE_SKIN);
    CHECK_NEAR(top, expect_top, 1e-6);
    CHECK_NEAR(rise, p.jump_speed * p.jump_speed / (2 * p.gravity), 3.0);
    CHECK(m.on_ground);
    scene_free(&s);
}

/* Liquids: a pool of water 256 deep (x < 0), a lava pool 16 deep (x > 256) in the room.
 * The point contents follow the liquid brushes, and agents swim as Quake's players do. */
CHECK_TEST(swimming, "/move/agents-swim-in-water-as-in-quake")
{
    mapgen *g = room();
    mapgen_box(g, -512, -512, 0, 0, 512, 256, "*water1");
    mapgen_box(g, 256, -512, 0, 512, 512, 16, "*lava1");
    scene s;
    REQUIRE(finish(&s, g));
    CHECK(al_world_liquid_count(s.world) == 2);
    /* Point contents: liquid inside the pools, solid in the floor, empty above. */
    CHECK(al_world_point_contents(s.world, 0, (double[3]){-100, 0, 100}) == AL_CONTENTS_WATER);
    CHECK(al_world_point_contents(s.world, 0, (double[3]){-100, 0, 300}) == AL_CONTENTS_EMPTY);
    CHECK(al_world_point_contents(s.world, 0, (double[3]){-100, 0, -8}) == AL_CONTENTS_SOLID);
    CHECK(al_world_point_contents(s.world, 0, (double[3]){300, 0, 8}) == AL_CONTENTS_LAVA);
    /* Liquids are solid to no hull. */
    int stand = scene_hull(&s, "stand");
    CHECK(!al_world_point_solid(s.world, stand, (double[3]){-100, 0, 100}));

    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    /* Deep in the water, wishing nothing: no gravity, a sink that settles at
     * swim_scale * sink_speed (friction in proportion to speed, the acceleration capped at
     * the difference). */
    al_mover_init(&m, s.world, stand, scene_hull(&s, "crouch"), (double[3]){-256, 0, 128});
    CHECK(m.water_level == 3 && m.water_type == AL_CONTENTS_WATER);
    al_move_input none = {0};
    al_move_step(s.world, &p, &none, DT, &m);
    /* The first step from rest: accelerate * (wished speed / max speed) * dt, downwards. */
    double wished = p.swim_scale * p.sink_speed;
    CHECK_NEAR(m.velocity[2], -fmin(p.accelerate / p.max_speed * wished * DT, wished), 1e-9);
    for (int i = 0; i < 120; i++) al_move_step(s.world, &p, &none, DT, &m);
    CHECK_NEAR(m.velocity[2], -wished, 1e-6);
    CHECK(m.origin[2] > 128 - 2 * wished - 1); /* far less than a fall's 1600 units */
    /* Swimming along: the speed settles at swim_scale * max_speed, where friction takes
     * what the stroke adds. */
    al_move_input along = {.wish = {1, 0}};
    for (int i = 0; i < 60; i++) al_move_step(s.world, &p, &along, DT, &m);
    CHECK_NEAR(al_length(m.velocity), p.swim_scale * p.max_speed, 1e-3);
    /* A jump is a stroke up at the water's swim_up_speed. */
    al_move_input up = {.jump = true};
    al_move_step(s.world, &p, &up, DT, &m);
    CHECK_NEAR(m.velocity[2], p.swim_up_speed[0], 1e-9);
    /* Crouch strokes down, at the same speed as any stroke, and does not crouch. */
    al_mover_init(&m, s.world, stand, scene_hull(&s, "crouch"), (double[3]){-256, 0, 200});
    al_move_input down = {.crouch = true};
    for (int i = 0; i < 20; i++) al_move_step(s.world, &p, &down, DT, &m);
    CHECK_NEAR(m.velocity[2], -p.swim_scale * p.max_speed, 1e-3);
    CHECK(m.origin[2] < 200 - 30 && !m.crouched);

    /* Standing in the lava, 16 deep: only the feet are in it; the agent walks (and falls)
     * as on land. */
    standing_at(&s, &m, 400, 0);
    CHECK(m.water_level == 1 && m.water_type == AL_CONTENTS_LAVA);
    walk(&s, &p, &m, 0, 1, false, 1.0);
    CHECK_NEAR(m.velocity[1], p.max_speed, 1e-9);
    /* On the dry floor between: dry. */
    standing_at(&s, &m, 128, 0);
    CHECK(m.water_level == 0 && m.water_type == AL_CONTENTS_EMPTY);
    scene_free(&s);
}

/* The liquids' point contents against the input itself: the planes through each liquid
 * face's three points, at random points around the pools. */
CHECK_TEST(liquid_oracle, "/move/oracle/point-contents-agree-with-the-liquid-brushes")
{
    mapgen *g = room();
    const double slope[6][3][3] = {
        {{-300, -300, 0}, {-100, -300, 0}, {-100, -100, 0}},
        {{-300, -300, 0}, {-300, -100, 0}, {-300, -100, 100}},
        {{-100, -300, 0}, {-100, -100, 0}, {-100, -100, 50}},
        {{-300, -300, 0}, {-100, -300, 0}, {-100, -300, 50}},
        {{-300, -100, 0}, {-100, -100, 0}, {-100, -100, 50}},
        {{-300, -100, 100}, {-100, -100, 50}, {-100, -300, 50}},
    };
    mapgen_brush(g, 6, slope, "*slime0");
    mapgen_box(g, 0, 0, 0, 200, 200, 120, "*water2");
    scene s;
    REQUIRE(finish(&s, g));
    const al_input *in = &s.input.input;
    unsigned seed = 99;
    int liquid = 0, checked = 0;
    for (int i = 0; i < 20000; i++) {
        double q[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            q[k] = (k < 2 ? -400 : -20) + ((seed >> 8) & 0xffff) / 65536.0 * (k < 2 ? 700 : 200);
        }
        al_contents want = AL_CONTENTS_EMPTY;
        bool near = false;
        for (int b = 0; b < in->brush_count && want == AL_CONTENTS_EMPTY; b++) {
            const al_brush_desc *bd = &in->brushes[b];
            const char *name = in->materials[in->faces[bd->first_face].material].name;
            if (name[0] != '*') continue;
            bool inside = true;
            for (int f = 0; f < bd->face_count; f++) {
                const double(*pt)[3] = in->faces[bd->first_face + f].points;
                double a[3], c[3], n[3];
                al_sub(pt[0], pt[1], a);
                al_sub(pt[2], pt[1], c);
                al_cross(a, c, n);
                al_normalize(n, n);
                double d = al_dot(n, q) - al_dot(n, pt[1]);
                if (fabs(d) < 1e-3) near = true;
                if (d > 0) inside = false;
            }
            if (inside) want = name[1] == 's' ? AL_CONTENTS_SLIME : AL_CONTENTS_WATER;
        }
        if (near || al_world_point_solid(s.world, 0, q)) continue;
        checked++;
        liquid += want != AL_CONTENTS_EMPTY;
        CHECK_MSG(al_world_point_liquid(s.world, q) == want, "at %g %g %g", q[0], q[1], q[2]);
    }
    CHECK_MSG(liquid > 1000 && checked > 10000, "%d of %d points in a liquid", liquid, checked);
    scene_free(&s);
}

CHECK_TEST(start_solid, "/move/a-box-inside-solid-stays-put-and-says-so")
{
    mapgen *g = room();
    mapgen_box(g, -64, -64, 0, 64, 64, 128, "pillar");
    scene s;
    REQUIRE(finish(&s, g));
    al_box_shape shape = {.hull = scene_hull(&s, "stand")};
    double inside[3] = {0, 0, 64}, v[3] = {10, 0, 0};
    al_slide slide;
    /* A move that stays inside does not happen. */
    al_slide_move(s.world, &shape, inside, v, 1, &slide);
    CHECK(slide.start_solid);
    CHECK(slide.end[0] == 0 && slide.end[1] == 0 && slide.end[2] == 64);
    /* One that leaves the pillar (expanded to x = 80) comes out and goes on. */
    al_set(100, 0, 0, v);
    al_slide_move(s.world, &shape, inside, v, 1, &slide);
    CHECK(slide.start_solid);
    CHECK_NEAR(slide.end[0], 100, 1e-9);
    CHECK(!al_world_point_solid(s.world, shape.hull, slide.end));
    al_set(100, 0, 0, v);
    al_move_params p;
    al_move_default_params(&p);
    al_mover m;
    al_mover_init(&m, s.world, shape.hull, shape.hull, inside);
    al_move_input in = {.wish = {1, 0}};
    al_move_step(s.world, &p, &in, DT, &m);
    CHECK(m.stuck);
    CHECK(m.origin[0] == 0 && m.velocity[0] == 0);
    /* Any box size goes through plane shifting, with the same answers. */
    al_box_shape any = {.hull = -1, .mins = {-10, -10, -10}, .maxs = {10, 10, 10}};
    double free_p[3] = {-200, 0, 64};
    al_slide_move(s.world, &any, free_p, v, 2, &slide);
    CHECK(!slide.start_solid && slide.contact_count >= 1);
    CHECK_NEAR(slide.end[0], -64 - 10 - AL_TRACE_SKIN, 1e-6);
    CHECK(slide.blocked);
    scene_free(&s);
}

/* Drags against the brute-force sweep: on the generated map (every hull) and on e1m1. */
static void drags_agree(const char *path, int count)
{
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_slides(s.world, o, h, count, 500 + h, &c);
        check_note("%s hull %d: %lld drags, %lld mismatches, %lld normal mismatches", path, h,
                   (long long) c.checked, (long long) c.mismatches,
                   (long long) c.normal_mismatches);
        CHECK(c.checked > count / 2);
        CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0,
                  "hull %d: %lld mismatches (first at %g %g %g -> %g %g %g)", h,
                  (long long) c.mismatches, c.example[0][0], c.example[0][1], c.example[0][2],
                  c.example[1][0], c.example[1][1], c.example[1][2]);
    }
    al_oracle_destroy(o);
    scene_free(&s);
}

CHECK_TEST(drags_generated, "/move/oracle/test-box-drags-agree-with-brute-force-generated")
{
    const char *file = getenv("ALLIUM_GENERATED_MAP");
    if (!file) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return;
    }
    drags_agree(file, 3000);
}

CHECK_TEST(drags_e1m1, "/move/oracle/test-box-drags-agree-with-brute-force-e1m1")
{
    const char *file = scene_shared_map("e1m1.map");
    if (!file) {
        check_skip("e1m1.map not in the shared maps folder");
        return;
    }
    drags_agree(file, 3000);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
