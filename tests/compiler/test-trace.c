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
