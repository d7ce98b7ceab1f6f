/* Swept-box traces: closed-form examples, edge cases, and the oracles. */
#include "check.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "scene.h"
#include "trace/rays.h"
#include "al-oracle.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool load(scene *s, mapgen *g)
{
    return scene_load_mapgen(s, g, NULL);
}

static void floor_and_room(mapgen *g)
{
    mapgen_box(g, -528, -528, -16, 528, 528, 0, "floor");
    mapgen_box(g, -528, -528, 512, 528, 528, 528, "ceiling");
    mapgen_box(g, -528, -528, 0, -512, 528, 512, "wall");
    mapgen_box(g, 512, -528, 0, 528, 528, 512, "wall");
    mapgen_box(g, -512, -528, 0, 512, -512, 512, "wall");
    mapgen_box(g, -512, 512, 0, 512, 528, 512, "wall");
}

/* A box dropped onto a 45-degree ramp rising along +x from x = 0 (z = 0) to x = 256. */
CHECK_TEST(ramp_45, "/trace/box-lands-on-45-degree-ramp-with-its-normal")
{
    mapgen *g = mapgen_create(true);
    mapgen_begin_entity(g, "worldspawn");
    floor_and_room(g);
    mapgen_ramp(g, 0, -128, 256, 128, 0, 256, 0, 1, "ramp");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g));
    int stand = scene_hull(&s, "stand");
    for (double x = 40; x <= 200; x += 40) {
        double a[3] = {x, 0, 400}, b[3] = {x, 0, 0};
        al_trace t;
        al_world_trace(s.world, stand, a, b, &t);
        REQUIRE(t.hit && !t.start_solid);
        /* The slope z = x is highest under the box at its uphill bottom edge (x + 16, at
         * z - 24): origin z = (x + 16) + 24. */
        CHECK_NEAR(t.contact[2], x + 16 + 24, 1e-6);
        CHECK_NEAR(t.normal[0], -sqrt(0.5), 1e-9);
        CHECK_NEAR(t.normal[2], sqrt(0.5), 1e-9);
        /* The end is AL_TRACE_SKIN in front of the slope, and empty. */
        CHECK_NEAR(al_dot(t.normal, t.contact) - al_dot(t.normal, t.end), -AL_TRACE_SKIN, 1e-9);
        CHECK(!al_world_point_solid(s.world, stand, t.end));
    }
    scene_free(&s);
}

CHECK_TEST(stairs, "/trace/box-lands-on-16-and-24-unit-steps")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    floor_and_room(g);
    mapgen_stairs(g, -400, -300, 0, 0, 6, 16, 64, 128, "stairs16");
    mapgen_stairs(g, -400, 100, 0, 0, 6, 24, 64, 128, "stairs24");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g));
    int stand = scene_hull(&s, "stand");
    double rises[2] = {16, 24}, ys[2] = {-236, 164};
    for (int k = 0; k < 2; k++)
        for (int step = 0; step < 6; step++) {
            double x = -400 + step * 64 + 32; /* the middle of the step, box fits on it */
            double a[3] = {x, ys[k], 400}, b[3] = {x, ys[k], 0};
            al_trace t;
            al_world_trace(s.world, stand, a, b, &t);
            REQUIRE(t.hit);
            CHECK_NEAR(t.contact[2], (step + 1) * rises[k] + 24, 1e-6);
            CHECK(t.normal[2] == 1);
            /* Walking into the next riser at foot level is blocked at its face. */
            if (step < 5) {
                double c[3] = {x, ys[k], (step + 1) * rises[k] + 24 + 1};
                double d[3] = {x + 64, ys[k], c[2]};
                al_world_trace(s.world, stand, c, d, &t);
                REQUIRE(t.hit);
                CHECK_NEAR(t.contact[0], -400 + (step + 1) * 64 - 16, 1e-6);
                CHECK(t.normal[0] == -1);
            }
        }
    scene_free(&s);
}

CHECK_TEST(start_on_boundary, "/trace/start-touching-a-surface-is-not-start-solid")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    floor_and_room(g);
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g));
    int stand = scene_hull(&s, "stand");
    /* Resting exactly on the floor (origin 24 above it), moving down and sideways. */
    double a[3] = {0, 0, 24}, down[3] = {10, 0, -10}, side[3] = {64, 0, 24};
    al_trace t;
    al_world_trace(s.world, stand, a, down, &t);
    CHECK(t.hit && !t.start_solid && !t.all_solid);
    CHECK(t.fraction < 1e-3);
    CHECK(t.normal[2] == 1);
    al_world_trace(s.world, stand, a, side, &t);
    CHECK(!t.hit && !t.start_solid); /* sliding along the floor is free */
    scene_free(&s);
}

CHECK_TEST(start_solid, "/trace/start-inside-solid-is-reported-and-may-move-out")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    floor_and_room(g);
    mapgen_box(g, -64, -64, 0, 64, 64, 64, "block");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g));
    al_trace t;
    double in[3] = {0, 0, 32}, in2[3] = {10, 0, 32}, out[3] = {600, 0, 32};
    al_world_trace(s.world, 0, in, in2, &t);
    CHECK(t.start_solid && t.all_solid && t.fraction == 0);
    al_world_trace(s.world, 0, in, out, &t);
    CHECK(t.start_solid && !t.all_solid);
    /* Moving out, then into the wall at x = 512. */
    REQUIRE(t.hit);
    CHECK_NEAR(t.contact[0], 512, 1e-6);
    al_world_trace(s.world, 0, in, in, &t);
    CHECK(t.start_solid && t.all_solid);
    double empty[3] = {200, 0, 32};
    al_world_trace(s.world, 0, empty, empty, &t);
    CHECK(!t.start_solid && !t.hit && t.fraction == 1);
    double bad[3] = {NAN, 0, 0};
    al_world_trace(s.world, 0, bad, empty, &t);
    CHECK(!t.hit && t.fraction == 1);
    al_world_trace(s.world, 99, empty, out, &t);
    CHECK(!t.hit);
    scene_free(&s);
}

/* The room with seven fins across it, 128 units apart. */
static void room_with_fins(mapgen *g)
{
    floor_and_room(g);
    for (int i = -3; i <= 3; i++) mapgen_box(g, i * 128 - 4, -300, 0, i * 128 + 4, 300, 200, "fin");
}

CHECK_TEST(crossing_blocks, "/trace/long-traces-cross-blocks-and-hit-the-same-walls")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room_with_fins(g);
    mapgen_end_entity(g);
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene a, b;
    scene_options small = {.block_size = 64}, large = {.block_size = 4096};
    REQUIRE(scene_load_text(&a, text, len, &small));
    REQUIRE(scene_load_text(&b, text, len, &large));
    mapgen_destroy(g);
    for (int i = 0; i < 200; i++) {
        double s0[3] = {-500 + i * 0.7, -250 + i * 2.3, 10 + i * 0.9};
        double e0[3] = {500 - i * 1.3, 250 - i * 1.1, 300 - i * 0.7};
        for (int h = 0; h < 4; h++) {
            al_trace ta, tb;
            al_world_trace(a.world, h, s0, e0, &ta);
            al_world_trace(b.world, h, s0, e0, &tb);
            CHECK(ta.hit == tb.hit && ta.start_solid == tb.start_solid);
            CHECK_NEAR(ta.fraction, tb.fraction, 1e-9);
        }
    }
    scene_free(&a);
    scene_free(&b);
}

/* The generated map (built by allium-genmap in the build tree, see tests/meson.build) into
 * S; false after a visible skip when the suite did not name it, or a failure when it does
 * not load. */
static bool load_generated(scene *s)
{
    const char *file = getenv("ALLIUM_GENERATED_MAP");
    if (!file) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return false;
    }
    if (!scene_load_file(s, file, NULL)) {
        check_fail(__FILE__, __LINE__, "%s did not load", file);
        return false;
    }
    return true;
}

/* The oracles on a generated map (rooms, stairs, tunnels, ramps, pillars, crates). */
CHECK_TEST(oracle_generated, "/trace/oracle/generated-map-agrees-with-brute-force")
{
    scene s;
    if (!load_generated(&s)) return;
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_traces(s.world, o, h, 20000, 0, 100 + h, &c);
        CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0,
                  "hull %d traces: %lld mismatches, %lld normal mismatches of %lld", h,
                  (long long) c.mismatches, (long long) c.normal_mismatches,
                  (long long) c.checked);
        al_verify_plane_shift(s.world, o, h, 10000, 0, 200 + h, &c);
        CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0,
                  "hull %d plane shifting: %lld mismatches, %lld normal mismatches", h,
                  (long long) c.mismatches, (long long) c.normal_mismatches);
        al_verify_solidity(s.world, o, h, 50000, 300 + h, &c);
        CHECK_MSG(c.mismatches == 0, "hull %d solidity: %lld mismatches", h,
                  (long long) c.mismatches);
    }
    al_oracle_destroy(o);
    scene_free(&s);
}

/* The oracles on a generated map whose rooms hold wedges drawn off the grid in pairs
 * (allium-genmap --off-grid): every hull's traces, plane shifting, solidity, map trees
 * and open cells. */
CHECK_TEST(oracle_offgrid, "/trace/oracle/generated-off-grid-wedges-agree-with-brute-force")
{
    const char *file = getenv("ALLIUM_GENERATED_OFFGRID_MAP");
    if (!file) {
        check_skip("ALLIUM_GENERATED_OFFGRID_MAP not set");
        return;
    }
    scene s;
    REQUIRE_MSG(scene_load_file(&s, file, NULL), "%s did not load", file);
    al_oracle *o = al_oracle_create(s.world);
    al_oracle *world = al_oracle_create_world(s.world);
    REQUIRE(o && world);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        int64_t extra;
        al_verify_traces(s.world, o, h, 10000, 0, 500 + h, &c);
        CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0,
                  "hull %d traces: %lld mismatches, %lld normal mismatches, worst %g", h,
                  (long long) c.mismatches, (long long) c.normal_mismatches, c.worst);
        al_verify_plane_shift(s.world, o, h, 10000, 0, 600 + h, &c);
        CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0,
                  "hull %d plane shifting: %lld mismatches, %lld normal mismatches, worst %g", h,
                  (long long) c.mismatches, (long long) c.normal_mismatches, c.worst);
        al_verify_solidity(s.world, o, h, 50000, 700 + h, &c);
        CHECK_MSG(c.mismatches == 0, "hull %d solidity: %lld mismatches", h,
                  (long long) c.mismatches);
        al_verify_map_trees(s.world, o, h, 50000, 800 + h, &c);
        CHECK_MSG(c.mismatches == 0, "hull %d map trees: %lld mismatches", h,
                  (long long) c.mismatches);
        al_verify_open_cells(s.world, world, h, 5000, 900 + h, &c, &extra);
        CHECK_MSG(c.mismatches == 0, "hull %d open cells: %lld mismatches", h,
                  (long long) c.mismatches);
    }
    al_oracle_destroy(world);
    al_oracle_destroy(o);
    scene_free(&s);
}

/* Plane shifting with a box that is not a compiled hull, against the brute-force sweep. */
CHECK_TEST(shift_any_size, "/trace/shift/any-box-size-agrees-with-brute-force")
{
    scene s;
    if (!load_generated(&s)) return;
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    const double boxes[3][2][3] = {{{-10, -10, -20}, {10, 10, 20}},
                                   {{-3, -40, 0}, {3, 40, 8}},
                                   {{-24, -24, -24}, {24, 24, 24}}};
    al_rng rng = {77};
    int mismatches = 0, checked = 0;
    for (int b = 0; b < 3; b++)
        for (int i = 0, done = 0; done < 4000 && i < 100000; i++) {
            double p[3];
            al_verify_random_point(s.world, &rng, p);
            if (al_oracle_point_margin(o, boxes[b][0], boxes[b][1], p) <= AL_SURFACE_EPSILON)
                continue;
            done++;
            double d[3] = {al_rng_uniform(&rng) - 0.5, al_rng_uniform(&rng) - 0.5,
                           al_rng_uniform(&rng) - 0.5};
            double e[3];
            al_madd(p, d, 300, e);
            al_trace t;
            al_world_trace_box(s.world, boxes[b][0], boxes[b][1], p, e, &t);
            al_oracle_hit h;
            al_oracle_sweep(o, boxes[b][0], boxes[b][1], p, e, &h);
            checked++;
            double len = al_length(d) * 300;
            double ft = t.hit ? t.fraction : 1, fh = h.hit ? h.fraction : 1;
            if (t.start_solid || fabs(ft - fh) * len > 1e-3) mismatches++;
        }
    CHECK_MSG(mismatches == 0, "%d of %d sweeps disagree", mismatches, checked);
    CHECK(checked == 12000);
    al_oracle_destroy(o);
    scene_free(&s);
}

/* Traces of every hull of WORLD that end where point queries are touchy: anywhere, on the
 * integer lattice (where the axial planes of whole-unit brushes and hull boxes lie), and
 * grazing one of those planes from up to a few epsilons off it. Whenever a trace vouches
 * for its end (al_trace.end_empty), the point query must find it empty. Adds to *VOUCHED
 * and *DOUBTED the free ends vouched for and not. */
static int vouched_ends_that_are_solid(const al_world *world, uint64_t seed, int count,
                                       int *vouched, int *doubted)
{
    static const double offsets[] = {0, 1e-7, -1e-7, 1e-6, -1e-6, 3e-6, -3e-6, 1.0 / 32};
    al_rng rng = {seed};
    int bad = 0;
    for (int h = 0; h < al_world_hull_count(world); h++)
        for (int i = 0; i < count; i++) {
            double p[3], e[3], d[3];
            al_verify_random_point(world, &rng, p);
            for (int k = 0; k < 3; k++) d[k] = (al_rng_uniform(&rng) - 0.5) * 64;
            al_add(p, d, e);
            int kind = i % 3;
            if (kind > 0)
                for (int k = 0; k < 3; k++) e[k] = floor(e[k] + 0.5);
            if (kind == 2) {
                /* Along the plane of one axis through E, from a little off it. */
                int axis = (int) (al_rng_uniform(&rng) * 3);
                double off = offsets[(int) (al_rng_uniform(&rng) * 8)];
                for (int k = 0; k < 3; k++) p[k] = e[k] - d[k];
                p[axis] = e[axis] + off;
            }
            al_trace t;
            al_world_trace(world, h, p, e, &t);
            if (t.hit || t.start_solid) CHECK(!t.end_empty);
            if (t.hit || t.start_solid) continue;
            if (!t.end_empty) {
                (*doubted)++;
                continue;
            }
            (*vouched)++;
            if (al_world_point_solid(world, h, t.end) && bad++ == 0)
                check_note("hull %d: %.17g %.17g %.17g -> %.17g %.17g %.17g vouched, but solid", h,
                           p[0], p[1], p[2], e[0], e[1], e[2]);
        }
    return bad;
}

CHECK_TEST(end_empty, "/trace/an-end-the-trace-vouches-for-is-not-solid")
{
    const char *files[2] = {getenv("ALLIUM_GENERATED_MAP"), scene_shared_map("e1m1.map")};
    int maps = 0;
    for (int f = 0; f < 2; f++) {
        if (!files[f]) continue;
        scene s;
        REQUIRE(scene_load_file(&s, files[f], NULL));
        int vouched = 0, doubted = 0;
        int bad = vouched_ends_that_are_solid(s.world, 500 + f, 30000, &vouched, &doubted);
        check_note("%s: %d free ends vouched for, %d left to the point query", files[f],
                   vouched, doubted);
        CHECK_MSG(bad == 0, "%d vouched ends are solid", bad);
        /* Most free ends are vouched for; ends on planes are not. */
        CHECK(vouched > 10 * doubted && doubted > 0);
        /* Plane shifting never vouches. */
        const double mins[3] = {-10, -12, -20}, maxs[3] = {10, 12, 30};
        double a[3] = {0, 0, 0}, b[3] = {1, 2, 3};
        al_trace t;
        al_verify_random_point(s.world, &(al_rng){9}, a);
        al_add(a, b, b);
        al_world_trace_box(s.world, mins, maxs, a, b, &t);
        CHECK(!t.end_empty);
        scene_free(&s);
        maps++;
    }
    if (maps == 0) check_skip("neither the generated map nor e1m1.map is at hand");
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}

/* Brush models are found by whichever lookup a trace takes: the models reaching into its
 * block, the cell of its start (a move spanning blocks), the cells its box covers (a long
 * move) or every model (a very long one). Small blocks make many moves span blocks, and
 * pillars as close as these put more than four models in a list. Every kind of move must
 * agree with the brute-force sweep, and must actually hit models. */
CHECK_TEST(models_by_every_lookup, "/trace/brush-models-are-found-by-every-lookup")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    floor_and_room(g);
    mapgen_end_entity(g);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            mapgen_begin_entity(g, "func_door");
            double x = -420 + i * 140 + (j % 2) * 30, y = -420 + j * 140;
            mapgen_box(g, x, y, 0, x + 24 + 8 * (i % 3), y + 16 + 8 * (j % 3), 96 + 16 * i,
                       "door");
            mapgen_end_entity(g);
        }
    scene_options small = {.block_size = 256};
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, &small));
    REQUIRE(al_world_model_count(s.world) == 50);
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    const double lengths[] = {8, 48, 100, 200, 700, 1500};
    for (int h = 0; h < al_world_hull_count(s.world); h++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            al_verify_counts c;
            al_verify_traces(s.world, o, h, 1500, lengths[l], 400 + 10 * h + (int) l, &c);
            CHECK_MSG(c.mismatches == 0 && c.normal_mismatches == 0 && c.checked > 1000,
                      "hull %d, %g-unit moves: %lld mismatches, %lld normal mismatches of %lld",
                      h, lengths[l], (long long) c.mismatches, (long long) c.normal_mismatches,
                      (long long) c.checked);
            /* The same moves hit doors (model > 0), so the lookups were put to work. */
            al_rng rng = {77 + (uint64_t) l};
            int model_hits = 0;
            for (int i = 0; i < 1500; i++) {
                double a[3], d[3], b[3];
                for (int k = 0; k < 3; k++) a[k] = (al_rng_uniform(&rng) - 0.5) * 1000;
                a[2] = 40 + 400 * al_rng_uniform(&rng);
                for (int k = 0; k < 3; k++) d[k] = al_rng_uniform(&rng) - 0.5;
                d[2] *= 0.2;
                al_scale(d, lengths[l] / al_length(d), d);
                al_add(a, d, b);
                al_trace t;
                al_world_trace(s.world, h, a, b, &t);
                model_hits += t.hit && !t.start_solid && t.model > 0;
            }
            CHECK_MSG(model_hits > (lengths[l] < 20 ? 2 : 10), "hull %d, %g-unit moves: only %d hit a door", h,
                      lengths[l], model_hits);
        }
    al_oracle_destroy(o);
    scene_free(&s);
}

/* --- occlusion rays (trace/rays.h) ---------------------------------------------------- */

/* COUNT segments of S's world: random ones across it, ones lying in an axial plane through
 * their start (which may be a brush plane: along a wall), and ones ending where they first
 * meet a surface. Through the flat ray tree and through the light trees they must give the
 * same answer, to the bit; those the brute-force sweep over the brushes that block light
 * can judge (not grazing, not starting in solid) must be blocked as it says. */
static void check_rays_against_light_trees(scene *s, uint64_t seed, int count)
{
    al_ray_tree tree;
    REQUIRE(al_ray_tree_build(s->world, &tree));
    al_oracle *light = al_oracle_create_light(s->world);
    REQUIRE(light != NULL);
    al_rng rng = {seed};
    const double zero[3] = {0, 0, 0}, hair[3] = {0.05, 0.05, 0.05},
                 nhair[3] = {-0.05, -0.05, -0.05};
    int differ = 0, wrong = 0, blocked = 0, open = 0, judged = 0;
    for (int i = 0; i < count; i++) {
        double a[3], b[3];
        al_verify_random_point(s->world, &rng, a);
        al_verify_random_point(s->world, &rng, b);
        if (i % 4 == 1) b[i / 4 % 3] = a[i / 4 % 3]; /* in an axial plane through A */
        if (i % 4 == 2) {
            /* Ending where a first ray stopped: on a surface. */
            double t = al_verify_light_trees_hit(s->world, a, b);
            if (t < 1) al_lerp(a, b, t, b);
        }
        double flat = al_ray_hit(&tree, a, b), trees = al_verify_light_trees_hit(s->world, a, b);
        if (!(flat == trees) && differ++ == 0)
            check_note("(%.17g %.17g %.17g) to (%.17g %.17g %.17g): flat %.17g, trees %.17g", a[0],
                       a[1], a[2], b[0], b[1], b[2], flat, trees);
        al_oracle_hit thin, fat;
        al_oracle_sweep(light, zero, zero, a, b, &thin);
        al_oracle_sweep(light, nhair, hair, a, b, &fat);
        double span[3];
        al_sub(b, a, span);
        double length = al_length(span);
        if (thin.start_inside || fat.start_inside || thin.hit != fat.hit || length < 0.1 ||
            (thin.hit && (thin.fraction * length < 0.05 || (1 - thin.fraction) * length < 0.05)))
            continue;
        judged++;
        bool hit = flat < 1.0;
        blocked += hit;
        open += !hit;
        if (hit != thin.hit && wrong++ == 0)
            check_note("(%.17g %.17g %.17g) to (%.17g %.17g %.17g): flat %d, sweep %d", a[0], a[1],
                       a[2], b[0], b[1], b[2], hit, thin.hit);
    }
    check_note("%d segments: %d judged by the sweep, %d blocked, %d open", count, judged, blocked,
               open);
    CHECK_MSG(differ == 0, "%d of %d segments differ from the light trees", differ, count);
    CHECK_MSG(wrong == 0, "%d of %d segments disagree with the sweep", wrong, judged);
    CHECK(judged > count / 2 && blocked > judged / 20 && open > judged / 20);
    al_oracle_destroy(light);
    al_ray_tree_free(&tree);
}

CHECK_TEST(rays_flat_tree, "/trace/rays/the-flat-tree-gives-the-light-trees-answers")
{
    /* Small blocks, so that rays cross many; a slanted detail slab, so that the light
     * trees differ from the vis trees and hold general planes. */
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room_with_fins(g);
    mapgen_ramp(g, -400, -400, -100, -100, 0, 150, 0, 1, "ramp");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_detail");
    const double slab[4][2] = {{0, 300}, {100, 340}, {60, 440}, {-40, 400}};
    mapgen_prism(g, 4, slab, 40, 72, "crate");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, &(scene_options){.block_size = 128}));
    check_rays_against_light_trees(&s, 11, 20000);
    scene_free(&s);
    if (!load_generated(&s)) return;
    check_rays_against_light_trees(&s, 12, 20000);
    scene_free(&s);
}

/* A tree made by hand whose one path holds more pieces than the walk's stack: planes
 * x = N, N - 1, ..., 1, each with the next node behind it and empty space in front, but
 * solid in front of the first. A segment along x crosses every plane, leaving a piece
 * waiting at each. */
CHECK_TEST(rays_deep_path, "/trace/rays/a-path-deeper-than-the-stack-is-walked-whole")
{
    enum { N = 300 };
    al_ray_node nodes[N];
    for (int i = 0; i < N; i++)
        nodes[i] = (al_ray_node){
            .dist = N - i,
            .axis = 0,
            .child = {i == 0 ? AL_RAY_SOLID : AL_RAY_EMPTY, i + 1 < N ? i + 1 : AL_RAY_EMPTY}};
    al_ray_tree tree = {.nodes = nodes, .node_count = N, .root = 0};
    const double a[3] = {0.5, 3, 4}, far[3] = {N + 0.5, 3, 4}, short_of[3] = {N - 0.25, 3, 4};
    CHECK_NEAR(al_ray_hit(&tree, a, far), (N - 0.5) / N, 1e-12);
    CHECK(al_ray_hit(&tree, a, short_of) == INFINITY);
    /* From the solid side back: blocked at once. */
    CHECK(al_ray_hit(&tree, far, a) == 0.0);
    /* Ending exactly on the solid's plane only touches it. */
    const double touch[3] = {N, 3, 4};
    CHECK(al_ray_hit(&tree, a, touch) == INFINITY);
}

/* --- rays lying in a plane ------------------------------------------------------------- */

/* An axial box, closed: lo <= x <= hi on each axis. */
typedef struct ray_box {
    double lo[3], hi[3];
} ray_box;

/* The brute-force answer for A -> B among the union of BOXES: the start of the first piece
 * of positive length inside the union's interior (touching a surface is not blocking), or
 * INFINITY. The segment is cut at every crossing of a box plane; between two cuts it keeps
 * its side of every plane, so its midpoint decides, and a point is inside the union's
 * interior when the eight corners of a tiny cube around it are each strictly inside a box
 * (near the point each box fills whole open octants of the cube, the boxes being axial). */
static double boxes_first_inside(const ray_box *boxes, int count, const double a[3],
                                 const double b[3])
{
    double cuts[2 + 6 * 16];
    int n = 0;
    cuts[n++] = 0;
    cuts[n++] = 1;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 3; k++)
            for (int side = 0; side < 2; side++) {
                double plane = side ? boxes[i].hi[k] : boxes[i].lo[k];
                if (a[k] == b[k]) continue;
                double t = (plane - a[k]) / (b[k] - a[k]);
                if (t > 0 && t < 1) cuts[n++] = t;
            }
    for (int i = 1; i < n; i++) /* insertion sort: a few dozen cuts */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            double swap = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = swap;
        }
    const double eps = 1e-3;
    for (int i = 0; i + 1 < n; i++) {
        if (!(cuts[i + 1] > cuts[i])) continue;
        double m[3];
        al_lerp(a, b, 0.5 * (cuts[i] + cuts[i + 1]), m);
        bool interior = true;
        for (int corner = 0; corner < 8 && interior; corner++) {
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = m[k] + (corner >> k & 1 ? eps : -eps);
            bool in = false;
            for (int j = 0; j < count && !in; j++)
                in = p[0] > boxes[j].lo[0] && p[0] < boxes[j].hi[0] && p[1] > boxes[j].lo[1] &&
                     p[1] < boxes[j].hi[1] && p[2] > boxes[j].lo[2] && p[2] < boxes[j].hi[2];
            interior = in;
        }
        if (interior) return cuts[i];
    }
    return INFINITY;
}

/* Appends to NODES (at *COUNT) a chain of nodes bounding BOX by its faces FACES[0..N) (a
 * face is 2 k + side: side 0 the plane x[k] = lo[k], 1 x[k] = hi[k]), solid inside them,
 * empty outside. Bit f of FLIP turns face f's node round: its normal then points into the
 * box. A +axis normal is an axial node as al_ray_tree_build makes it, a -axis one a
 * general node whose normal goes into NORMALS (at *NORMAL_COUNT). Returns the chain's
 * code. */
static int32_t add_box_chain(al_ray_node *nodes, int32_t *count, double (*normals)[3],
                             int32_t *normal_count, const ray_box *box, const int *faces, int n,
                             unsigned flip)
{
    if (n == 0) return AL_RAY_SOLID;
    int f = faces[0], k = f / 2;
    bool outward_positive = f % 2 == 1; /* the hi face's outward normal is +axis */
    bool positive = outward_positive != (bool) (flip >> f & 1u);
    double plane = f % 2 ? box->hi[k] : box->lo[k];
    int32_t i = (*count)++;
    if (positive)
        nodes[i] = (al_ray_node){.dist = plane, .axis = k};
    else {
        double *normal = normals[*normal_count];
        normal[0] = normal[1] = normal[2] = 0;
        normal[k] = -1;
        nodes[i] = (al_ray_node){.dist = -plane, .axis = 3 + (*normal_count)++};
    }
    int32_t inside =
        add_box_chain(nodes, count, normals, normal_count, box, faces + 1, n - 1, flip);
    /* The inside is in front of the node when its normal points into the box. */
    bool inside_front = positive != outward_positive;
    nodes[i].child[0] = inside_front ? inside : AL_RAY_EMPTY;
    nodes[i].child[1] = inside_front ? AL_RAY_EMPTY : inside;
    return i;
}

/* A random order of the six faces, leaving out SKIP (or -1). Returns how many. */
static int shuffled_faces(al_rng *rng, int skip, int faces[6])
{
    int n = 0;
    for (int f = 0; f < 6; f++)
        if (f != skip) faces[n++] = f;
    for (int i = n - 1; i > 0; i--) {
        int j = (int) (al_rng_uniform(rng) * (i + 1));
        int swap = faces[i];
        faces[i] = faces[j];
        faces[j] = swap;
    }
    return n;
}

/* A random segment lying in the plane x[K] = PLANE (and, when EDGE >= 0, in x[EDGE] =
 * EDGE_AT as well: along an edge), its ends on a half-unit lattice over LO..HI. */
static void random_segment_in_plane(al_rng *rng, int k, double plane, int edge, double edge_at,
                                    const double lo[3], const double hi[3], double a[3],
                                    double b[3])
{
    for (int j = 0; j < 3; j++) {
        a[j] = lo[j] + floor(al_rng_uniform(rng) * 2 * (hi[j] - lo[j])) / 2;
        b[j] = lo[j] + floor(al_rng_uniform(rng) * 2 * (hi[j] - lo[j])) / 2;
    }
    a[k] = b[k] = plane;
    if (edge >= 0) a[edge] = b[edge] = edge_at;
}

/* A box brush as a tree of its six face planes, in every order and with each plane's
 * normal either way (+x an axial node, -x a general one, as the ray tree holds them); and
 * two boxes sharing part of a face, split first on that face's plane either way. Segments
 * lying in the face planes (and along the edges) must be blocked exactly where they run
 * through the inside, as the brute-force answer says, whatever the tree: a segment on a
 * surface only touches the solid, and where two solids meet it runs inside both. */
CHECK_TEST(rays_in_plane, "/trace/rays/a-ray-in-a-face-plane-is-blocked-alike-in-every-tree")
{
    enum { NODES = 16 };
    al_ray_node nodes[NODES];
    double normals[NODES][3];
    al_rng rng = {2030};
    const ray_box box = {{0, 0, 0}, {64, 32, 48}};
    const double lo[3] = {-40, -40, -40}, hi[3] = {104, 72, 88};
    int wrong = 0, blocked = 0, open = 0, trees = 0;
    for (int order = 0; order < 720; order++)
        for (unsigned flip = 0; flip < 64; flip += 1 + order % 7) {
            int faces[6];
            shuffled_faces(&rng, -1, faces);
            int32_t count = 0, normal_count = 0;
            int32_t root =
                add_box_chain(nodes, &count, normals, &normal_count, &box, faces, 6, flip);
            al_ray_tree tree = {nodes, count, normals, normal_count, root};
            trees++;
            for (int r = 0; r < 12; r++) {
                int f = (int) (al_rng_uniform(&rng) * 6), k = f / 2;
                int e = r % 3 == 0 ? (k + 1 + r / 3 % 2) % 3 : -1;
                double a[3], b[3];
                random_segment_in_plane(&rng, k, f % 2 ? box.hi[k] : box.lo[k], e,
                                        e < 0 ? 0 : (r % 2 ? box.hi[e] : box.lo[e]), lo, hi, a, b);
                double want = boxes_first_inside(&box, 1, a, b), got = al_ray_hit(&tree, a, b);
                if (!(got == want) && wrong++ < 3)
                    check_note("faces %d%d%d%d%d%d flip %02x: (%g %g %g) to (%g %g %g): %g, "
                               "brute force %g",
                               faces[0], faces[1], faces[2], faces[3], faces[4], faces[5], flip,
                               a[0], a[1], a[2], b[0], b[1], b[2], got, want);
            }
            /* Through the box, not in a face plane: still blocked where it enters. */
            double a[3] = {-8, 16, 24}, b[3] = {72, 16, 24};
            if (!(al_ray_hit(&tree, a, b) == 0.1) && wrong++ < 3)
                check_note("flip %02x: a ray through the box is not blocked at 0.1", flip);
        }
    CHECK_MSG(wrong == 0,
              "%d segments in one box's face planes differ from the brute force in "
              "%d trees",
              wrong, trees);

    /* Two boxes meeting at x = 64, where y runs over 0..64 on one side and 32..96 on the
     * other: in that plane a segment is inside the solid only over 32..64. */
    const ray_box pair[2] = {{{0, 0, 0}, {64, 64, 32}}, {{64, 32, 0}, {128, 96, 32}}};
    const double pair_lo[3] = {-16, -16, -16}, pair_hi[3] = {144, 112, 48};
    int pair_wrong = 0;
    for (int i = 0; i < 4000; i++) {
        bool split_positive = i % 2; /* x = 64 as +x (front: the second box) or -x */
        int faces_a[6], faces_b[6];
        int na = shuffled_faces(&rng, 1, faces_a), nb = shuffled_faces(&rng, 0, faces_b);
        unsigned flip = (unsigned) (al_rng_uniform(&rng) * 64);
        int32_t count = 1, normal_count = 0;
        int32_t first =
            add_box_chain(nodes, &count, normals, &normal_count, &pair[0], faces_a, na, flip);
        int32_t second =
            add_box_chain(nodes, &count, normals, &normal_count, &pair[1], faces_b, nb, flip);
        if (split_positive)
            nodes[0] = (al_ray_node){.dist = 64, .axis = 0, .child = {second, first}};
        else {
            normals[normal_count][0] = -1;
            normals[normal_count][1] = normals[normal_count][2] = 0;
            nodes[0] =
                (al_ray_node){.dist = -64, .axis = 3 + normal_count++, .child = {first, second}};
        }
        al_ray_tree tree = {nodes, count, normals, normal_count, 0};
        /* Mostly in x = 64; else in another face plane of either box. */
        int which = i % 3 ? -1 : i / 3 % 2, f = which < 0 ? 1 : (int) (al_rng_uniform(&rng) * 6);
        const ray_box *owner = which < 0 ? &pair[0] : &pair[which];
        double a[3], b[3];
        random_segment_in_plane(&rng, f / 2, f % 2 ? owner->hi[f / 2] : owner->lo[f / 2], -1, 0,
                                pair_lo, pair_hi, a, b);
        double want = boxes_first_inside(pair, 2, a, b), got = al_ray_hit(&tree, a, b);
        blocked += want < INFINITY;
        open += want == INFINITY;
        if (!(got == want) && pair_wrong++ < 3)
            check_note("two boxes, x = 64 as %s: (%g %g %g) to (%g %g %g): %g, brute force %g",
                       split_positive ? "+x" : "-x", a[0], a[1], a[2], b[0], b[1], b[2], got, want);
    }
    CHECK_MSG(pair_wrong == 0, "%d of 4000 segments by two boxes differ from the brute force",
              pair_wrong);
    CHECK(blocked > 400 && open > 400);
}

/* The box [-64, 0] x [-64, 64] x [-64, 64] split first by a slanted plane through its edge
 * x = y = 0 (normal (2, -1, 0) / sqrt 5, either way round), then behind it by y = 0, where
 * the cell below y = 0 lies wholly in x < 0 and so has no node for the face x = 0, as in a
 * real tree (e2m2's wall along x = 544 at y = 1280). A segment running down the face x = 0
 * crosses both planes at the edge, at distances along it that round apart: the sliver
 * between falls into that solid cell. It only touches the box, so it must not be blocked;
 * and segments through the box are blocked where the brute force says. */
CHECK_TEST(rays_edge_sliver, "/trace/rays/a-ray-through-an-edge-leaves-no-solid-sliver")
{
    enum { NODES = 24 };
    al_ray_node nodes[NODES];
    double normals[NODES][3];
    const ray_box box = {{-64, -64, -64}, {0, 64, 64}};
    const double lo[3] = {-100, -100, -100}, hi[3] = {40, 100, 100};
    al_rng rng = {1280};
    int wrong = 0, slivers = 0, blocked = 0;
    for (int i = 0; i < 20000; i++) {
        unsigned flip = (unsigned) (al_rng_uniform(&rng) * 64);
        bool slant_turned = i % 2, y_turned = i / 2 % 2;
        int32_t count = 2, normal_count = 1;
        int faces[6], all_but_x[5] = {0, 2, 3, 4, 5};
        shuffled_faces(&rng, -1, faces);
        int32_t in_front =
            add_box_chain(nodes, &count, normals, &normal_count, &box, faces, 6, flip);
        shuffled_faces(&rng, -1, faces);
        int32_t above = add_box_chain(nodes, &count, normals, &normal_count, &box, faces, 6, flip);
        int32_t below =
            add_box_chain(nodes, &count, normals, &normal_count, &box, all_but_x, 5, flip);
        double s = slant_turned ? -1 : 1;
        normals[0][0] = s * 2 / sqrt(5.0);
        normals[0][1] = -s / sqrt(5.0);
        normals[0][2] = 0;
        /* The root: in front of the slanted plane (2x > y) the whole box, behind it y = 0. */
        nodes[0] =
            (al_ray_node){.dist = 0,
                          .axis = 3,
                          .child = {slant_turned ? 1 : in_front, slant_turned ? in_front : 1}};
        if (y_turned) {
            normals[normal_count][0] = normals[normal_count][2] = 0;
            normals[normal_count][1] = -1;
            nodes[1] =
                (al_ray_node){.dist = 0, .axis = 3 + normal_count++, .child = {below, above}};
        } else
            nodes[1] = (al_ray_node){.dist = 0, .axis = 1, .child = {above, below}};
        al_ray_tree tree = {nodes, count, normals, normal_count, 0};
        double a[3], b[3];
        random_segment_in_plane(&rng, 0, 0, -1, 0, lo, hi, a, b);
        if (i % 4 == 3) /* not in the face: through the box, or past it */
            a[0] = lo[0] + floor(al_rng_uniform(&rng) * 2 * (hi[0] - lo[0])) / 2;
        else if (a[1] * b[1] >= 0)
            b[1] = -a[1] - 1; /* across the edge */
        double want = boxes_first_inside(&box, 1, a, b), got = al_ray_hit(&tree, a, b);
        blocked += want < INFINITY;
        /* Did the sliver appear: do the planes' crossings round apart? */
        double d[3];
        al_sub(b, a, d);
        if (a[0] == 0 && b[0] == 0)
            slivers += -(al_dot(normals[0], a)) / al_dot(normals[0], d) != -a[1] / d[1];
        bool ok = want == INFINITY ? got == INFINITY : fabs(got - want) < 1e-12;
        if (!ok && wrong++ < 3)
            check_note("(%g %g %g) to (%g %g %g): %.17g, brute force %.17g", a[0], a[1], a[2], b[0],
                       b[1], b[2], got, want);
    }
    check_note("%d segments down the face cross the two planes at distances that round apart, "
               "%d blocked",
               slivers, blocked);
    CHECK_MSG(wrong == 0, "%d of 20000 segments differ from the brute force", wrong);
    CHECK(slivers > 1000 && blocked > 1000);
}

/* A box brush compiled into a world's light trees: alone, beside a neighbour, and in blocks
 * of other sizes, so that the trees split on its faces in other orders and orientations.
 * Segments lying in its face planes and along its edges get the brute-force answer from
 * the flat ray tree and from the light trees alike. */
CHECK_TEST(rays_in_plane_world,
           "/trace/rays/a-ray-in-a-face-plane-is-blocked-alike-in-every-compiled-world")
{
    const ray_box room[6] = {
        {{-528, -528, -16}, {528, 528, 0}},  {{-528, -528, 512}, {528, 528, 528}},
        {{-528, -528, 0}, {-512, 528, 512}}, {{512, -528, 0}, {528, 528, 512}},
        {{-512, -528, 0}, {512, -512, 512}}, {{-512, 512, 0}, {512, 528, 512}}};
    const ray_box box = {{-64, -32, 64}, {96, 48, 160}};
    const ray_box neighbours[3] = {{{160, -200, 64}, {224, 200, 300}},
                                   {{-300, 100, 0}, {-100, 140, 512}},
                                   {{-64, 48, 64}, {96, 128, 100}}};
    const double block_sizes[3] = {1024, 256, 96};
    const double lo[3] = {-500, -500, 8}, hi[3] = {500, 500, 500};
    for (int variant = 0; variant < 6; variant++) {
        ray_box all[10];
        int n = 0;
        for (int i = 0; i < 6; i++) all[n++] = room[i];
        all[n++] = box;
        int neighbour_count = variant / 2;     /* 0, 1 or 2 */
        if (variant == 5) neighbour_count = 3; /* the last shares part of the box's +y face */
        for (int i = 0; i < neighbour_count; i++) all[n++] = neighbours[i];
        mapgen *g = mapgen_create(false);
        mapgen_begin_entity(g, "worldspawn");
        for (int i = 0; i < n; i++)
            mapgen_box(g, all[i].lo[0], all[i].lo[1], all[i].lo[2], all[i].hi[0], all[i].hi[1],
                       all[i].hi[2], i < 6 ? "wall" : "crate");
        mapgen_end_entity(g);
        scene s;
        REQUIRE(scene_load_mapgen(&s, g, &(scene_options){.block_size = block_sizes[variant % 3]}));
        al_ray_tree tree;
        REQUIRE(al_ray_tree_build(s.world, &tree));
        al_rng rng = {700 + (uint64_t) variant};
        int wrong = 0, blocked = 0, open = 0;
        for (int i = 0; i < 3000; i++) {
            int f = i % 6, k = f / 2, e = i % 4 == 0 ? (k + 1 + i / 4 % 2) % 3 : -1;
            double a[3], b[3];
            random_segment_in_plane(&rng, k, f % 2 ? box.hi[k] : box.lo[k], e,
                                    e < 0 ? 0 : (i % 8 < 4 ? box.lo[e] : box.hi[e]), lo, hi, a, b);
            double want = boxes_first_inside(all, n, a, b), flat = al_ray_hit(&tree, a, b),
                   trees = al_verify_light_trees_hit(s.world, a, b);
            blocked += want < INFINITY;
            open += want == INFINITY;
            /* The brute force cuts at the same plane crossings, but computes them its own
             * way: equal to a few units in the last place. */
            bool flat_ok = want == INFINITY ? flat == INFINITY : fabs(flat - want) < 1e-12;
            if ((!flat_ok || !(flat == trees)) && wrong++ < 3)
                check_note("variant %d: (%g %g %g) to (%g %g %g): flat %.17g, light trees "
                           "%.17g, brute force %.17g",
                           variant, a[0], a[1], a[2], b[0], b[1], b[2], flat, trees, want);
        }
        CHECK_MSG(wrong == 0,
                  "variant %d: %d of 3000 segments in the box's face planes are "
                  "wrong",
                  variant, wrong);
        check_note("variant %d: %d blocked, %d open", variant, blocked, open);
        /* Alone in the room the box blocks none of them (they only touch it); a neighbour
         * that a face plane runs through blocks some. */
        CHECK(open > 300 && (neighbour_count == 0 ? blocked == 0 : blocked > 100));
        al_ray_tree_free(&tree);
        scene_free(&s);
    }
}

/* --- open cells (trace/open.c) ----------------------------------------------------------- */

/* The room with fins, a ramp and a slanted prism (general planes), in 1024-unit blocks: the
 * room spans eight, so moves cross blocks too; a door, which open cells leave out. */
static void load_open_room(scene *s)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room_with_fins(g);
    mapgen_ramp(g, -400, -400, -100, -100, 0, 150, 0, 1, "ramp");
    const double prism[4][2] = {{0, 300}, {100, 340}, {60, 440}, {-40, 400}};
    mapgen_prism(g, 4, prism, 40, 72, "crate");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, 200, -450, 0, 216, -350, 128, "door");
    mapgen_end_entity(g);
    REQUIRE(scene_load_mapgen(s, g, NULL));
}

/* Every cell of every block, for every hull: an open cell is one where the hull's box
 * overlaps no world brush. In a room of axial brushes the cells are exact: every cell whose
 * box stays a unit clear of the brushes is open. */
CHECK_TEST(open_cells, "/trace/open/cells-are-open-only-where-no-brush-reaches")
{
    scene s;
    load_open_room(&s);
    al_oracle *o = al_oracle_create_world(s.world);
    REQUIRE(o);
    int64_t open_total = 0;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        int64_t clear_but_closed;
        al_verify_open_cells(s.world, o, h, 0, 1, &c, &clear_but_closed);
        CHECK_MSG(c.mismatches == 0,
                  "hull %d: %lld of %lld cells open but not clear, first at "
                  "(%g %g %g)",
                  h, (long long) c.mismatches, (long long) c.checked, c.example[0][0],
                  c.example[0][1], c.example[0][2]);
        CHECK(c.checked == (int64_t) s.world->models[0].block_count * AL_OPEN_CELLS *
                               AL_OPEN_CELLS * AL_OPEN_CELLS);
        check_note("hull %d: %lld closed cells clear by more than a unit (near slanted planes)", h,
                   (long long) clear_but_closed);
        const al_model *m = &s.world->models[0];
        for (int b = 0; b < m->block_count; b++)
            for (int i = 0; i < AL_OPEN_CELLS * AL_OPEN_CELLS; i++)
                open_total += __builtin_popcountll(
                    (unsigned long long)
                        m->open_rows[b][(size_t) h * AL_OPEN_CELLS * AL_OPEN_CELLS + (size_t) i]);
    }
    CHECK(open_total > 0);
    al_oracle_destroy(o);
    scene_free(&s);

    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room_with_fins(g);
    mapgen_end_entity(g);
    REQUIRE(scene_load_mapgen(&s, g, NULL));
    o = al_oracle_create_world(s.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        int64_t clear_but_closed;
        al_verify_open_cells(s.world, o, h, 0, 2, &c, &clear_but_closed);
        CHECK(c.mismatches == 0);
        CHECK_MSG(clear_but_closed == 0, "hull %d: %lld clear cells closed among axial brushes", h,
                  (long long) clear_but_closed);
    }
    al_oracle_destroy(o);
    scene_free(&s);
}

/* Moves of every length through open cells, across blocks, along axes and block faces: the
 * trace gives what the full descent gives, to the bit. */
static void check_open_traces(scene *s, uint64_t seed, int count)
{
    al_oracle *o = al_oracle_create(s->world);
    REQUIRE(o);
    const double lengths[] = {4, 24, 64, 100, 0};
    for (int h = 0; h < al_world_hull_count(s->world); h++)
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            al_verify_counts c;
            int64_t answered;
            al_verify_open_traces(s->world, o, h, count, lengths[l], seed + 10 * (uint64_t) h + l,
                                  &c, &answered);
            CHECK_MSG(c.mismatches == 0,
                      "hull %d, %g-unit moves: %lld of %lld differ from the full descent, first "
                      "(%.17g %.17g %.17g) to (%.17g %.17g %.17g)",
                      h, lengths[l], (long long) c.mismatches, (long long) c.checked,
                      c.example[0][0], c.example[0][1], c.example[0][2], c.example[1][0],
                      c.example[1][1], c.example[1][2]);
            CHECK(c.checked == count);
            /* Short moves are mostly answered by the cells: the path is exercised. */
            if (lengths[l] > 0 && lengths[l] <= 64)
                CHECK_MSG(answered > count / 10, "hull %d, %g-unit moves: %lld of %d open", h,
                          lengths[l], (long long) answered, count);
        }
    al_oracle_destroy(o);
}

CHECK_TEST(open_traces, "/trace/open/traces-through-open-cells-equal-the-full-descent")
{
    scene s;
    load_open_room(&s);
    check_open_traces(&s, 20, 4000);
    scene_free(&s);
    if (!load_generated(&s)) return;
    check_open_traces(&s, 30, 4000);
    scene_free(&s);
}

/* The checks above can fail: a block whose cells all claim to be open is caught by both. */
CHECK_TEST(open_sabotage, "/trace/open/a-cell-wrongly-open-is-caught")
{
    scene s;
    load_open_room(&s);
    al_model *m = &s.world->models[0];
    /* The block holding the fins' middle. */
    int b = -1;
    for (int i = 0; i < m->block_count; i++)
        if (m->blocks[i].cell_mins[0] == 0 && m->blocks[i].cell_mins[1] == -1024 &&
            m->blocks[i].cell_mins[2] == 0)
            b = i;
    REQUIRE(b >= 0 && m->blocks[b].open);
    size_t rows = (size_t) al_world_hull_count(s.world) * AL_OPEN_CELLS * AL_OPEN_CELLS;
    al_open_row *saved = malloc(rows * sizeof *saved);
    REQUIRE(saved);
    memcpy(saved, m->blocks[b].open, rows * sizeof *saved);
    for (size_t i = 0; i < rows; i++) m->blocks[b].open[i] = AL_OPEN_ALL;
    al_oracle *world = al_oracle_create_world(s.world), *o = al_oracle_create(s.world);
    REQUIRE(world && o);
    int stand = scene_hull(&s, "stand");
    al_verify_counts c;
    int64_t extra;
    al_verify_open_cells(s.world, world, stand, 0, 3, &c, &extra);
    CHECK_MSG(c.mismatches > 1000, "%lld cells caught", (long long) c.mismatches);
    al_verify_open_traces(s.world, o, stand, 4000, 64, 4, &c, &extra);
    CHECK_MSG(c.mismatches > 50, "%lld traces caught", (long long) c.mismatches);
    memcpy(m->blocks[b].open, saved, rows * sizeof *saved);
    free(saved);
    al_verify_open_traces(s.world, o, stand, 4000, 64, 4, &c, &extra);
    CHECK(c.mismatches == 0);
    al_oracle_destroy(world);
    al_oracle_destroy(o);
    scene_free(&s);
}
