/* Portals, leaks and the PVS on small scenes written here, each checked against the sight
 * oracle (brute-force segments against the brushes) as well as by example. */
#include "check.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "realistic.h"
#include "scene.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool load(scene *s, mapgen *g, al_pvs_level level)
{
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene_options o = {.pvs = true, .pvs_level = level};
    bool ok = scene_load_text(s, text, len, &o);
    mapgen_destroy(g);
    return ok;
}

/* Walls, floor and ceiling around the box [x0,x1] x [y0,y1] x [0,z1], 16 thick; the wall
 * at y1 gets a doorway [dx0,dx1] x [0,dz] when dz > 0. */
static void room(mapgen *g, double x0, double y0, double x1, double y1, double z1, double dx0,
                 double dx1, double dz)
{
    mapgen_box(g, x0 - 16, y0 - 16, -16, x1 + 16, y1 + 16, 0, "floor");
    mapgen_box(g, x0 - 16, y0 - 16, z1, x1 + 16, y1 + 16, z1 + 16, "ceiling");
    mapgen_box(g, x0 - 16, y0 - 16, 0, x0, y1 + 16, z1, "wall");
    mapgen_box(g, x1, y0 - 16, 0, x1 + 16, y1 + 16, z1, "wall");
    mapgen_box(g, x0, y0 - 16, 0, x1, y0, z1, "wall");
    if (dz > 0) {
        mapgen_box(g, x0, y1, 0, dx0, y1 + 16, z1, "wall");
        mapgen_box(g, dx1, y1, 0, x1, y1 + 16, z1, "wall");
        mapgen_box(g, dx0, y1, dz, dx1, y1 + 16, z1, "wall");
    } else {
        mapgen_box(g, x0, y1, 0, x1, y1 + 16, z1, "wall");
    }
}

static int leaf(const scene *s, double x, double y, double z)
{
    return al_world_vis_leaf_at(s->world, (double[3]){x, y, z});
}

/* The PVS oracle on the scene, and symmetry of every pair. */
static void check_pvs(const scene *s, int64_t segments)
{
    al_oracle *sight = al_oracle_create_sight(s->world);
    REQUIRE(sight != NULL);
    al_verify_counts c;
    al_verify_pvs(s->world, sight, segments, 7, &c);
    CHECK_MSG(c.checked > segments / 2, "only %lld segments checked", (long long) c.checked);
    CHECK_MSG(c.mismatches == 0,
              "%lld of %lld lines of sight missing from the PVS, first (%g %g %g)-(%g %g %g)",
              (long long) c.mismatches, (long long) c.checked, c.example[0][0], c.example[0][1],
              c.example[0][2], c.example[1][0], c.example[1][1], c.example[1][2]);
    al_oracle_destroy(sight);
    int n = al_world_vis_leaf_count(s->world), asymmetric = 0;
    for (int a = 0; a < n; a++) {
        CHECK(al_world_leaf_sees(s->world, a, a));
        for (int b = 0; b < n; b++)
            asymmetric += al_world_leaf_sees(s->world, a, b) != al_world_leaf_sees(s->world, b, a);
    }
    CHECK(asymmetric == 0);
}

/* Every portal joins two different vis leaves and lies on its plane. */
static void check_portals(const scene *s)
{
    for (int i = 0; i < al_world_portal_count(s->world); i++) {
        al_portal_info p;
        REQUIRE(al_world_portal(s->world, i, &p));
        CHECK(p.point_count >= 3);
        CHECK(p.leaf[0] != p.leaf[1] || p.leaf[0] < 0);
        for (int k = 0; k < p.point_count; k++)
            CHECK(fabs(al_dot(p.normal, p.points[k]) - p.dist) < 1e-3);
    }
}

CHECK_TEST(sealed_room, "/vis/sealed-room-has-no-leak-and-drops-the-void")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room(g, 0, 0, 256, 256, 128, 0, 0, 0);
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 128, 32);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_leak_info leak;
    CHECK(!al_world_leak(s.world, &leak));
    CHECK(leaf(&s, 128, 128, 64) >= 0);
    CHECK(leaf(&s, 128, 128, 400) < 0); /* the void is dropped */
    CHECK(leaf(&s, -8, 128, 64) < 0);   /* inside a wall */
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK(vs.outside_leaves > 0);
    /* No portal leads out of the room. */
    for (int i = 0; i < al_world_portal_count(s.world); i++) {
        al_portal_info p;
        al_world_portal(s.world, i, &p);
        CHECK((p.leaf[0] < 0) == (p.leaf[1] < 0));
    }
    /* The whole room sees itself; its walls' faces are in its leaves. */
    int32_t seen[64];
    int n = al_world_leaves_visible_from(s.world, (double[3]){128, 128, 64}, seen, 64);
    CHECK(n == vs.vis_leaves);
    int faces = 0;
    for (int l = 0; l < vs.vis_leaves; l++) {
        int count;
        al_world_leaf_faces(s.world, l, &count);
        faces += count;
    }
    CHECK_MSG(faces >= 6, "%d faces in the room's leaves", faces);
    check_portals(&s);
    check_pvs(&s, 20000);
    scene_free(&s);
}

CHECK_TEST(leaking_room, "/vis/leaking-room-reports-the-entity-and-a-path-to-the-void")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    /* A 32-unit hole in the wall at x = 256. */
    mapgen_box(g, -16, -16, -16, 272, 272, 0, "floor");
    mapgen_box(g, -16, -16, 128, 272, 272, 144, "ceiling");
    mapgen_box(g, -16, -16, 0, 0, 272, 128, "wall");
    mapgen_box(g, 256, -16, 0, 272, 112, 128, "wall");
    mapgen_box(g, 256, 144, 0, 272, 272, 128, "wall");
    mapgen_box(g, 0, -16, 0, 256, 0, 128, "wall");
    mapgen_box(g, 0, 256, 0, 256, 272, 128, "wall");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "light", 64, 64, 64);
    mapgen_point_entity(g, "info_player_start", 128, 128, 32);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_leak_info leak;
    REQUIRE(al_world_leak(s.world, &leak));
    CHECK(leak.entity == 1);
    CHECK(strcmp(leak.classname, "light") == 0);
    REQUIRE(leak.point_count >= 3);
    CHECK(leak.points[0][0] == 64 && leak.points[0][1] == 64 && leak.points[0][2] == 64);
    /* The path ends outside the map and never passes through a brush. */
    const double *last = leak.points[leak.point_count - 1];
    CHECK_MSG(last[0] > 272 || last[0] < -16 || last[1] > 272 || last[1] < -16 || last[2] > 144 ||
                  last[2] < -16,
              "the path ends at (%g %g %g)", last[0], last[1], last[2]);
    al_oracle *sight = al_oracle_create_sight(s.world);
    const double zero[3] = {0, 0, 0};
    bool through_x256 = false;
    for (int i = 0; i + 1 < leak.point_count; i++) {
        al_oracle_hit hit;
        al_oracle_sweep(sight, zero, zero, leak.points[i], leak.points[i + 1], &hit);
        CHECK_MSG(!hit.hit || hit.fraction > 1 - 1e-6, "segment %d of the leak path hits a brush",
                  i);
        if ((leak.points[i][0] - 256) * (leak.points[i + 1][0] - 256) <= 0) through_x256 = true;
    }
    CHECK(through_x256); /* it leaves through the hole */
    al_oracle_destroy(sight);
    /* A diagnostic names the entity; the PVS falls back to the coarse pass. */
    bool named = false;
    const al_diag_list *d = al_world_diagnostics(s.world);
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].kind == AL_DIAG_LEAK && d->items[i].entity == 1) named = true;
    CHECK(named);
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK(vs.level == AL_PVS_COARSE);
    CHECK(vs.outside_leaves == 0);
    check_pvs(&s, 20000);
    scene_free(&s);
}

/* Floor, ceiling and walls 16 thick around [0, SIZE] x [0, SIZE] x [0, 128]; the wall at
 * y = SIZE only if FAR_WALL. */
static void shell(mapgen *g, double size, bool far_wall)
{
    mapgen_box(g, -16, -16, -16, size + 16, size + 16, 0, "floor");
    mapgen_box(g, -16, -16, 128, size + 16, size + 16, 144, "ceiling");
    mapgen_box(g, -16, -16, 0, 0, size + 16, 128, "wall");
    mapgen_box(g, size, -16, 0, size + 16, size + 16, 128, "wall");
    mapgen_box(g, 0, -16, 0, size, 0, 128, "wall");
    if (far_wall) mapgen_box(g, 0, size, 0, size, size + 16, 128, "wall");
}

/* A 256-unit room whose wall at y = 256 is two brushes meeting along the vertical edge at
 * x = 128: two slivers (7 degrees at the edge, the void in the wedge behind them) or two
 * boxes corner to corner (right angles). */
static void knife_edge_room(mapgen *g, bool slivers)
{
    mapgen_begin_entity(g, "worldspawn");
    shell(g, 256, false);
    if (slivers) {
        const double a[3][2] = {{0, 256}, {128, 256}, {0, 272}};
        const double b[3][2] = {{128, 256}, {256, 256}, {256, 272}};
        mapgen_prism(g, 3, a, 0, 128, "wall");
        mapgen_prism(g, 3, b, 0, 128, "wall");
    } else {
        mapgen_box(g, 0, 256, 0, 128, 272, 128, "wall");
        mapgen_box(g, 128, 240, 0, 256, 256, 128, "wall");
    }
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 64, 64, 32);
}

CHECK_TEST(knife_edge, "/vis/slivers-meeting-at-an-edge-leak-and-right-angled-corners-do-not")
{
    /* Slivers: the void reaches the start through the seam, and the path says where. */
    mapgen *g = mapgen_create(false);
    knife_edge_room(g, true);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK_MSG(vs.seams >= 1, "%d seams", vs.seams);
    al_leak_info leak;
    REQUIRE(al_world_leak(s.world, &leak));
    CHECK(strcmp(leak.classname, "info_player_start") == 0);
    bool at_seam = false;
    al_oracle *sight = al_oracle_create_sight(s.world);
    REQUIRE(sight);
    const double zero[3] = {0, 0, 0};
    for (int i = 0; i < leak.point_count; i++) {
        const double *p = leak.points[i];
        at_seam |= fabs(p[0] - 128) < 1e-6 && fabs(p[1] - 256) < 1e-6 && p[2] > 0 && p[2] < 128;
        if (i + 1 == leak.point_count) break;
        /* Every leg runs through empty space (its ends may touch brushes). */
        for (int k = 1; k < 8; k++) {
            double q[3];
            al_lerp(p, leak.points[i + 1], k / 8.0, q);
            CHECK_MSG(al_oracle_point_margin(sight, zero, zero, q) > -1e-6,
                      "leg %d of the leak path passes (%g %g %g), inside a brush", i, q[0], q[1],
                      q[2]);
        }
    }
    CHECK_MSG(at_seam, "the leak path does not pass the seam at (128 256 z)");
    bool named = false;
    const al_diag_list *d = al_world_diagnostics(s.world);
    for (size_t i = 0; i < d->count; i++)
        named |= d->items[i].kind == AL_DIAG_LEAK && strstr(d->items[i].message, "knife-edge");
    CHECK(named);
    al_oracle_destroy(sight);
    scene_free(&s);

    /* Boxes corner to corner: sealed, as Quake's compilers have it. */
    g = mapgen_create(false);
    knife_edge_room(g, false);
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_world_vis_stats(s.world, &vs);
    CHECK_MSG(vs.seams == 0, "%d seams", vs.seams);
    CHECK(!al_world_leak(s.world, &leak));
    CHECK(vs.outside_leaves > 0);
    check_pvs(&s, 5000);
    scene_free(&s);
}

/* A 256-unit room whose wall at y = 256 is made of two brushes meeting along the vertical
 * edge at x = 128, the void behind them: a 7-degree sliver whose thin end lies on the
 * right-angled edge of a box (SLIVER_ON_BOX), or two slivers of 26.6 degrees. */
static void sealed_edge_room(mapgen *g, bool sliver_on_box)
{
    mapgen_begin_entity(g, "worldspawn");
    shell(g, 256, false);
    if (sliver_on_box) {
        const double a[3][2] = {{0, 256}, {128, 256}, {0, 272}};
        mapgen_prism(g, 3, a, 0, 128, "wall");
        mapgen_box(g, 128, 256, 0, 256, 272, 128, "wall");
    } else {
        const double a[3][2] = {{0, 256}, {128, 256}, {0, 320}};
        const double b[3][2] = {{128, 256}, {256, 256}, {256, 320}};
        mapgen_prism(g, 3, a, 0, 128, "wall");
        mapgen_prism(g, 3, b, 0, 128, "wall");
    }
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 64, 64, 32);
}

CHECK_TEST(sealed_edges,
           "/vis/a-sliver-ending-on-a-box-edge-and-slivers-of-26-degrees-seal-as-in-id-maps")
{
    /* id's maps, which id's qbsp sealed, are full of both: ramps and beams whose thin end
     * lies on a box's edge (e1m2, e1m4, e2m3, e3m3: 7 to 30 degrees) and pairs of slivers
     * meeting back to back (e1m3, e1m5, e4m7: 26 to 34 degrees). No seam, no leak. */
    for (int variant = 0; variant < 2; variant++) {
        mapgen *g = mapgen_create(false);
        sealed_edge_room(g, variant == 0);
        scene s;
        REQUIRE(load(&s, g, AL_PVS_TIGHT));
        al_vis_stats vs;
        al_world_vis_stats(s.world, &vs);
        CHECK_MSG(vs.seams == 0, "variant %d: %d seams", variant, vs.seams);
        al_leak_info leak;
        CHECK_MSG(!al_world_leak(s.world, &leak), "variant %d leaks", variant);
        CHECK(vs.outside_leaves > 0);
        check_pvs(&s, 5000);
        scene_free(&s);
    }
}

/* The sealed room of sealed_room_has_no_leak with a light whose origin lies on one face
 * of its shell, on the outside. */
static void room_with_light_on(mapgen *g, double x, double y, double z)
{
    mapgen_begin_entity(g, "worldspawn");
    room(g, 0, 0, 256, 256, 128, 0, 0, 0);
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 128, 32);
    mapgen_point_entity(g, "light", x, y, z);
}

CHECK_TEST(origin_on_a_face, "/vis/an-origin-on-a-face-is-behind-the-plane-as-quake-faces-it")
{
    /* Quake's qbsp puts a point on a plane behind it, its planes facing up the axes: an
     * item on a roof or on the outer face of a wall at the high end of an axis is inside
     * that brush and no leak (id's e2m5 has health on a roof, e1m2 a light); one on the
     * underside of the floor or the outer face of the wall at x = -16 is in the void. */
    const double inside[3][3] = {{128, 128, 144}, {272, 128, 64}, {128, 272, 64}};
    for (int i = 0; i < 3; i++) {
        mapgen *g = mapgen_create(false);
        room_with_light_on(g, inside[i][0], inside[i][1], inside[i][2]);
        scene s;
        REQUIRE(load(&s, g, AL_PVS_COARSE));
        al_leak_info leak;
        CHECK_MSG(!al_world_leak(s.world, &leak), "a light at (%g %g %g) leaks", inside[i][0],
                  inside[i][1], inside[i][2]);
        scene_free(&s);
    }
    const double outside[2][3] = {{128, 128, -16}, {-16, 128, 64}};
    for (int i = 0; i < 2; i++) {
        mapgen *g = mapgen_create(false);
        room_with_light_on(g, outside[i][0], outside[i][1], outside[i][2]);
        scene s;
        REQUIRE(load(&s, g, AL_PVS_COARSE));
        al_leak_info leak;
        CHECK_MSG(al_world_leak(s.world, &leak) && strcmp(leak.classname, "light") == 0,
                  "a light at (%g %g %g) is not the leak", outside[i][0], outside[i][1],
                  outside[i][2]);
        scene_free(&s);
    }
}

CHECK_TEST(two_rooms, "/vis/two-rooms-whose-door-the-other-wall-closes-do-not-see-each-other")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room(g, 0, 0, 256, 256, 128, 96, 160, 96);   /* door in its wall at y = 256 */
    room(g, 0, 272, 256, 528, 128, 0, 0, 0);     /* second room, beyond that wall */
    /* The second room's wall at y = 272 - 16 overlaps the first's: cut the same door. */
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 128, 32);
    mapgen_point_entity(g, "light", 128, 400, 64);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_leak_info leak;
    CHECK(!al_world_leak(s.world, &leak));
    int a = leaf(&s, 128, 128, 64);
    REQUIRE(a >= 0);
    /* The second room is closed off (its own wall has no door): not even the leaf is a vis
     * leaf reachable... it is its own sealed region, still a vis leaf. */
    int b = leaf(&s, 128, 400, 64);
    REQUIRE(b >= 0);
    CHECK(!al_world_leaf_sees(s.world, a, b));
    int32_t ents[8];
    int n = al_world_entities_visible_from(s.world, (double[3]){128, 128, 64}, ents, 8);
    CHECK(n == 1 && ents[0] == 1);
    check_portals(&s);
    check_pvs(&s, 20000);
    scene_free(&s);
}

CHECK_TEST(door, "/vis/rooms-through-a-door-see-each-other-and-hidden-corners-do-not")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    /* One hall [0,512] x [0,512] split by a wall at y in [240,272] with a door at x in
     * [224,288]. */
    shell(g, 512, true);
    mapgen_box(g, 0, 240, 0, 224, 272, 128, "wall");
    mapgen_box(g, 288, 240, 0, 512, 272, 128, "wall");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 256, 100, 32);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    int front = leaf(&s, 256, 200, 64), back = leaf(&s, 256, 320, 64);
    REQUIRE(front >= 0 && back >= 0);
    CHECK(al_world_leaf_sees(s.world, front, back));
    check_portals(&s);
    check_pvs(&s, 30000);
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK(vs.avg_visible_tight <= vs.avg_visible_coarse);
    /* Built again with a progress counter: every portal flow counted, once. */
    int64_t progress[2] = {-1, -1};
    REQUIRE(al_world_build_vis_with(s.world, &s.input.input,
                                    &(al_vis_options){.level = AL_PVS_TIGHT, .threads = 2,
                                                      .progress = progress}) == AL_OK);
    CHECK_MSG(progress[0] > 0 && progress[1] == progress[0], "progress %lld of %lld",
              (long long) progress[1], (long long) progress[0]);
    scene_free(&s);
}

CHECK_TEST(l_corridor, "/vis/corridors-that-turn-keep-sight-along-each-leg")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    /* A U of corridors inside [0,1024]^2 x [0,128]: leg A along x at y in [0,64], leg B
     * along y at the east side, leg C back along x at y in [960,1024]. */
    mapgen_box(g, -16, -16, -16, 1040, 1040, 0, "floor");
    mapgen_box(g, -16, -16, 128, 1040, 1040, 144, "ceiling");
    mapgen_box(g, -16, -16, 0, 1040, 0, 128, "wall");
    mapgen_box(g, -16, 0, 0, 0, 1040, 128, "wall");
    mapgen_box(g, 0, 64, 0, 960, 512, 128, "wall"); /* leg B is wider in its upper half, */
    mapgen_box(g, 0, 512, 0, 896, 960, 128, "wall"); /* so legs A and C do not line up */
    mapgen_box(g, 1024, 0, 0, 1040, 1040, 128, "wall");
    mapgen_box(g, 0, 1024, 0, 1024, 1040, 128, "wall");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 32, 32, 32);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_leak_info leak;
    CHECK(!al_world_leak(s.world, &leak));
    /* Leaves are convex, so a leaf that holds a corner sees round it: what is checked here
     * is that sight along each leg is kept and that the tight pass is no looser than the
     * coarse one (the oracle below checks that nothing visible is missing). */
    int west = leaf(&s, 32, 32, 64);
    REQUIRE(west >= 0);
    CHECK(al_world_leaf_sees(s.world, west, leaf(&s, 700, 32, 64)));
    CHECK(al_world_leaf_sees(s.world, leaf(&s, 992, 300, 64), leaf(&s, 992, 900, 64)));
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK(vs.avg_visible_tight <= vs.avg_visible_coarse);
    check_portals(&s);
    check_pvs(&s, 30000);
    scene_free(&s);
}

CHECK_TEST(bad_input, "/vis/no-entities-a-single-brush-and-an-empty-map")
{
    /* No entity with an origin: no leak check, a warning, nothing dropped. */
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    room(g, 0, 0, 256, 256, 128, 0, 0, 0);
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    al_leak_info leak;
    CHECK(!al_world_leak(s.world, &leak));
    bool warned = false;
    const al_diag_list *d = al_world_diagnostics(s.world);
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, "no entity has an origin")) warned = true;
    CHECK(warned);
    CHECK(leaf(&s, 128, 128, 400) >= 0); /* the void is kept */
    check_pvs(&s, 5000);
    scene_free(&s);

    /* A single brush with the player beside it: the void reaches the player. */
    g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, 0, 0, 0, 64, 64, 64, "crate");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 0, 0);
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    REQUIRE(al_world_leak(s.world, &leak));
    CHECK(leak.entity == 1 && leak.point_count >= 2);
    check_portals(&s);
    check_pvs(&s, 5000);
    scene_free(&s);

    /* Nothing at all. */
    g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_end_entity(g);
    REQUIRE(load(&s, g, AL_PVS_TIGHT));
    CHECK(al_world_portal_count(s.world) == 0);
    CHECK(al_world_vis_leaf_count(s.world) >= 1);
    scene_free(&s);
}

CHECK_TEST(detail, "/vis/detail-brushes-do-not-split-leaves-and-sit-in-them")
{
    for (int detail = 0; detail < 2; detail++) {
        mapgen *g = mapgen_create(false);
        mapgen_begin_entity(g, "worldspawn");
        room(g, 0, 0, 256, 256, 128, 0, 0, 0);
        if (!detail) mapgen_box(g, 96, 96, 0, 160, 160, 64, "crate");
        mapgen_end_entity(g);
        if (detail) {
            mapgen_begin_entity(g, "func_detail");
            mapgen_box(g, 96, 96, 0, 160, 160, 64, "crate");
            mapgen_end_entity(g);
        }
        mapgen_point_entity(g, "info_player_start", 32, 32, 32);
        scene s;
        REQUIRE(load(&s, g, AL_PVS_TIGHT));
        al_vis_stats vs;
        al_world_vis_stats(s.world, &vs);
        if (detail) {
            CHECK_MSG(vs.vis_leaves == 1, "%d vis leaves with a detail crate", vs.vis_leaves);
            int count;
            const al_leaf_face *f = al_world_leaf_faces(s.world, 0, &count);
            bool crate = false;
            for (int i = 0; i < count; i++) crate |= f[i].brush == 6;
            CHECK(crate);
            /* The crate still collides. */
            CHECK(al_world_point_solid(s.world, 0, (double[3]){128, 128, 32}));
        } else {
            CHECK(vs.vis_leaves > 1);
        }
        check_pvs(&s, 5000);
        scene_free(&s);
    }
}

/* Whether some portal of W lies on the axial plane x[AXIS] = AT. */
static bool portal_on(const al_world *w, int axis, double at)
{
    for (int i = 0; i < al_world_portal_count(w); i++) {
        al_portal_info p;
        if (al_world_portal(w, i, &p) && p.leaf[0] >= 0 && p.leaf[1] >= 0 &&
            fabs(fabs(p.normal[axis]) - 1) < 1e-9 && fabs(fabs(p.dist) - at) < 1e-6)
            return true;
    }
    return false;
}

/* A long room, and across half of it a hint brush 4 units thick: its two hint faces (at x
 * 500 and 504) split the vis tree and make portals there; its skip face (at y 128) and
 * hintskip face do not, and it is no solid; the same in a func_group. Moving it by an
 * incremental compile gives the trees of a full compile, and the portals move along. */
CHECK_TEST(hint, "/vis/hint-faces-split-the-vis-tree-and-skip-faces-do-not")
{
    for (int hint = 0; hint < 3; hint++) {
        mapgen *g = mapgen_create(false);
        mapgen_begin_entity(g, "worldspawn");
        room(g, 0, 0, 1024, 256, 128, 0, 0, 0);
        if (hint == 2) {
            mapgen_end_entity(g);
            mapgen_begin_entity(g, "func_group");
        }
        if (hint)
            mapgen_box_faces(
                g, 500, 0, 0, 504, 128, 128,
                (const char *const[6]){"hintskip", "hint", "skip", "hint", "skip", "skip"});
        mapgen_end_entity(g);
        mapgen_point_entity(g, "info_player_start", 32, 32, 32);
        scene s;
        REQUIRE(load(&s, g, AL_PVS_TIGHT));
        al_vis_stats vs;
        al_world_vis_stats(s.world, &vs);
        if (!hint) {
            CHECK_MSG(vs.vis_leaves == 1, "%d vis leaves without the hint", vs.vis_leaves);
            CHECK(!portal_on(s.world, 0, 500) && !portal_on(s.world, 0, 504));
        } else {
            CHECK_MSG(vs.vis_leaves >= 3 && vs.portals >= 2, "%d vis leaves, %d portals",
                      vs.vis_leaves, vs.portals);
            CHECK(portal_on(s.world, 0, 500) && portal_on(s.world, 0, 504));
            CHECK(!portal_on(s.world, 1, 128));
            CHECK(!al_world_point_solid(s.world, 0, (double[3]){502, 64, 64}));
            CHECK(leaf(&s, 400, 64, 64) != leaf(&s, 600, 64, 64));
        }
        check_portals(&s);
        check_pvs(&s, 5000);
        if (hint == 1) {
            /* Moved by 64 units: an incremental compile against a full one. */
            al_edit_input e;
            REQUIRE(al_edit_input_init(&e, &s.input.input));
            int b = e.input.brush_count - 1;
            const al_brush_desc *d = &e.brushes[b];
            for (int f = 0; f < d->face_count; f++)
                for (int i = 0; i < 3; i++) e.faces[d->first_face + f].points[i][0] += 64;
            al_compile_options co = {.no_vis = true};
            al_world *next = NULL, *full = NULL;
            REQUIRE(al_world_update(s.world, &e.input, &co, &next, NULL) == AL_OK);
            REQUIRE(al_world_compile(&e.input, &co, &full, NULL) == AL_OK);
            REQUIRE(al_world_build_vis_trees(next, 0) == AL_OK);
            REQUIRE(al_world_build_vis_trees(full, 0) == AL_OK);
            al_world_stats st;
            al_world_get_stats(next, &st);
            CHECK_MSG(st.blocks_built >= 1, "%d blocks built", st.blocks_built);
            char why[300] = "";
            CHECK_MSG(al_world_tree_differences(next, full, why, sizeof why) == 0, "%s", why);
            REQUIRE(al_world_build_vis(next, &e.input, AL_PVS_TIGHT, 0) == AL_OK);
            CHECK(portal_on(next, 0, 564) && portal_on(next, 0, 568));
            CHECK(!portal_on(next, 0, 500) && !portal_on(next, 0, 504));
            al_world_destroy(next);
            al_world_destroy(full);
            al_edit_input_free(&e);
        }
        scene_free(&s);
    }
}

/* A cube room (the block [0, 1024]³, its walls outside it) with two crates along the floor
 * and one hanging from the ceiling, all from x 100 to 900, and across them a hint brush at x
 * 500-504 whose two hint faces fill the room's section. The crates' planes z 64, z 256, y
 * 400 and the like cut the block with 2 polygons split (the hint faces), the hint planes
 * with 9 (the crates' faces through them): by the fewest-splits rule alone the vis tree
 * would split on z 64 first and cut the hint faces; as Quake's compilers rule it, no plane
 * but a hint's may cut a hint face, so x 500 is the block's first split. HOLDER names the
 * entity of the hint brush: worldspawn, func_detail (a hint splits the world there too) or
 * func_wall (a brush entity's hint splits only its own model: not the world's vis tree). */
static bool load_hint_priority(scene *s, const char *holder)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, -16, -16, -16, 1040, 1040, 0, "floor");
    mapgen_box(g, -16, -16, 1024, 1040, 1040, 1040, "ceiling");
    mapgen_box(g, -16, -16, 0, 0, 1040, 1024, "wall");
    mapgen_box(g, 1024, -16, 0, 1040, 1040, 1024, "wall");
    mapgen_box(g, 0, -16, 0, 1024, 0, 1024, "wall");
    mapgen_box(g, 0, 1024, 0, 1024, 1040, 1024, "wall");
    mapgen_box(g, 100, 100, 0, 900, 200, 64, "crate");
    mapgen_box(g, 100, 800, 0, 900, 900, 64, "crate");
    mapgen_box(g, 100, 400, 256, 900, 600, 1024, "crate");
    if (holder) {
        if (strcmp(holder, "worldspawn") != 0) {
            mapgen_end_entity(g);
            mapgen_begin_entity(g, holder);
        }
        mapgen_box_faces(
            g, 500, 0, 0, 504, 1024, 1024,
            (const char *const[6]){"hintskip", "hint", "hintskip", "hint", "hintskip", "hintskip"});
    }
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 32, 32, 32);
    return load(s, g, AL_PVS_TIGHT);
}

/* Clips the convex polygon IN (N points) to the FRONT (or back) of the plane into OUT;
 * returns the new count. */
static int clip_polygon(const double (*in)[3], int n, const double normal[3], double dist,
                        bool front, double (*out)[3])
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *a = in[i], *b = in[(i + 1) % n];
        double da = (al_dot(normal, a) - dist) * (front ? 1 : -1);
        double db = (al_dot(normal, b) - dist) * (front ? 1 : -1);
        if (da >= 0) al_copy(a, out[m++]);
        if ((da > 0 && db < 0) || (da < 0 && db > 0)) al_lerp(a, b, da / (da - db), out[m++]);
    }
    return m;
}

/* Walks TREE down from NODE with the part P (N points) of a hint face on the plane x = AT:
 * counts the nodes whose plane cuts P although it is none of the hint planes x = HINTS[k]
 * (a split before the hint face's own). The walk ends where the face's own plane splits. */
static int hint_cuts(const al_tree *tree, int32_t node, const double (*p)[3], int n, double at,
                     const double *hints, int hint_count)
{
    if (n < 3 || al_tree_child_is_leaf(node)) return 0;
    const al_node *d = &tree->nodes[node];
    bool axial_x = fabs(fabs(d->normal[0]) - 1) < 1e-12;
    double x = axial_x ? d->dist * d->normal[0] : 0;
    if (axial_x && fabs(x - at) < 1e-6) return 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        double s = al_dot(d->normal, p[i]) - d->dist;
        lo = fmin(lo, s), hi = fmax(hi, s);
    }
    int cuts = 0;
    if (lo < -0.01 && hi > 0.01) {
        bool hint = false;
        for (int k = 0; k < hint_count; k++) hint |= axial_x && fabs(x - hints[k]) < 1e-6;
        cuts += !hint;
    }
    double part[64][3];
    if (hi > 0.01 || lo >= -0.01) {
        int m = clip_polygon(p, n, d->normal, d->dist, true, part);
        cuts += hint_cuts(tree, d->child[0], (const double (*)[3]) part, m, at, hints, hint_count);
    }
    if (lo < -0.01 || hi <= 0.01) {
        int m = clip_polygon(p, n, d->normal, d->dist, false, part);
        cuts += hint_cuts(tree, d->child[1], (const double (*)[3]) part, m, at, hints, hint_count);
    }
    return cuts;
}

/* The world's vis-tree splits that cut the hint faces x = HINTS[k] (y and z from 0 to 1024)
 * before their own plane does, over the blocks. */
static int hint_cuts_in_world(const al_world *w, const double *hints, int hint_count)
{
    const al_model *m = &w->models[0];
    int cuts = 0;
    for (int k = 0; k < hint_count; k++)
        for (int b = 0; b < m->block_count; b++) {
            const al_block *block = &m->blocks[b];
            if (hints[k] <= block->mins[0] || hints[k] >= block->maxs[0]) continue;
            double lo[2] = {fmax(0, block->mins[1]), fmax(0, block->mins[2])};
            double hi[2] = {fmin(1024, block->maxs[1]), fmin(1024, block->maxs[2])};
            if (lo[0] >= hi[0] || lo[1] >= hi[1]) continue;
            const double face[4][3] = {{hints[k], lo[0], lo[1]},
                                       {hints[k], hi[0], lo[1]},
                                       {hints[k], hi[0], hi[1]},
                                       {hints[k], lo[0], hi[1]}};
            cuts += hint_cuts(&block->vis, block->vis.root, face, 4, hints[k], hints, hint_count);
        }
    return cuts;
}

/* The portals on the planes x = HINTS[0] and x = HINTS[1]: how many (ON) and their area. */
static void hint_portals(const al_world *w, const double hints[2], int on[2], double area[2])
{
    on[0] = on[1] = 0;
    area[0] = area[1] = 0;
    for (int i = 0; i < al_world_portal_count(w); i++) {
        al_portal_info p;
        if (!al_world_portal(w, i, &p) || fabs(fabs(p.normal[0]) - 1) > 1e-9) continue;
        for (int k = 0; k < 2; k++) {
            if (fabs(fabs(p.dist) - hints[k]) > 1e-6) continue;
            on[k]++;
            for (int j = 1; j + 1 < p.point_count; j++) {
                double e1[3], e2[3], c[3];
                al_sub(p.points[j], p.points[0], e1);
                al_sub(p.points[j + 1], p.points[0], e2);
                al_cross(e1, e2, c);
                area[k] += 0.5 * al_length(c);
            }
        }
    }
}

/* The vis tree's first split in the block [0, 1024]³, as "x 500" or the like. */
static void first_split(const al_world *w, char *out, size_t size)
{
    const al_model *m = &w->models[0];
    snprintf(out, size, "none");
    for (int b = 0; b < m->block_count; b++) {
        const al_block *block = &m->blocks[b];
        if (block->mins[0] != 0 || block->mins[1] != 0 || block->mins[2] != 0) continue;
        if (al_tree_child_is_leaf(block->vis.root)) return;
        const al_node *d = &block->vis.nodes[block->vis.root];
        for (int a = 0; a < 3; a++)
            if (fabs(fabs(d->normal[a]) - 1) < 1e-12)
                snprintf(out, size, "%c %g", "xyz"[a], d->dist * d->normal[a]);
    }
}

CHECK_TEST(hint_priority, "/vis/hint-faces-are-split-on-before-any-plane-that-would-cut-them")
{
    const double hints[2] = {500, 504};
    char split[32];
    scene s;
    for (int v = 0; v < 2; v++) {
        REQUIRE(load_hint_priority(&s, v == 0 ? "worldspawn" : "func_detail"));
        first_split(s.world, split, sizeof split);
        CHECK_MSG(strcmp(split, "x 500") == 0 || strcmp(split, "x 504") == 0,
                  "%s: the block's first split is %s", v ? "func_detail" : "world", split);
        int cuts = hint_cuts_in_world(s.world, hints, 2);
        CHECK_MSG(cuts == 0, "%d splits cut the hint faces before their own", cuts);
        CHECK(portal_on(s.world, 0, 500) && portal_on(s.world, 0, 504));
        /* The portals on each hint plane fill the room's section but the crates':
         * 1024² - 2 x 100 x 64 - 200 x 768. For this scene the rule gives 21 vis leaves and
         * 46 portals, 6 of them on x 500 and 8 on x 504 (the fewest splits alone: 24 and
         * 45, 6 and 6, the hint faces cut 12 times). */
        int on[2];
        double area[2];
        hint_portals(s.world, hints, on, area);
        CHECK_MSG(fabs(area[0] - 882176) < 1e-6 && fabs(area[1] - 882176) < 1e-6,
                  "portal areas %g and %g", area[0], area[1]);
        al_vis_stats vs;
        al_world_vis_stats(s.world, &vs);
        CHECK_MSG(vs.vis_leaves == 21 && vs.portals == 46 && on[0] == 6 && on[1] == 8,
                  "%d vis leaves, %d portals, %d on x 500, %d on x 504", vs.vis_leaves, vs.portals,
                  on[0], on[1]);
        check_portals(&s);
        check_pvs(&s, 20000);
        scene_free(&s);
    }
    /* Without the hint, or with it in a func_wall, z 64 (fewest polygons split) comes first. */
    for (int v = 0; v < 2; v++) {
        REQUIRE(load_hint_priority(&s, v == 0 ? NULL : "func_wall"));
        first_split(s.world, split, sizeof split);
        CHECK_MSG(strcmp(split, "x 500") != 0 && strcmp(split, "x 504") != 0,
                  "the block's first split is %s", split);
        CHECK(!portal_on(s.world, 0, 500) && !portal_on(s.world, 0, 504));
        check_pvs(&s, 5000);
        scene_free(&s);
    }
}

/* A room split by a wall that stops 64 units above the floor, and a pool under it (water
 * from x 256 to 768, 128 deep): every line between the room's two halves above the water
 * goes through the water's surface. */
static bool load_pool(scene *s, bool opaque)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    if (opaque) mapgen_key(g, "_allium_opaque_liquids", "1");
    room(g, 0, 0, 1024, 256, 256, 0, 0, 0);
    mapgen_box(g, 496, 0, 64, 528, 256, 256, "wall");
    mapgen_box(g, 256, 0, 0, 768, 256, 128, "*water1");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 32, 32, 32);
    return load(s, g, AL_PVS_TIGHT);
}

/* Whether the segment A-B touches the box [LO, HI] (slabs). */
static bool segment_touches_box(const double a[3], const double b[3], const double lo[3],
                                const double hi[3])
{
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3; k++) {
        double d = b[k] - a[k];
        if (fabs(d) < 1e-12) {
            if (a[k] < lo[k] || a[k] > hi[k]) return false;
            continue;
        }
        double u = (lo[k] - a[k]) / d, v = (hi[k] - a[k]) / d;
        if (u > v) {
            double t = u;
            u = v;
            v = t;
        }
        if (u > t0) t0 = u;
        if (v < t1) t1 = v;
        if (t0 > t1) return false;
    }
    return true;
}

/* The worldspawn key "_allium_opaque_liquids" "1" makes liquid surfaces block sight: the
 * two halves above the pool see each other through the water by default and not with it;
 * under water both halves still see each other. With the key, every line of sight that
 * stays out of the water or in it is still in the PVS (sight oracle, sampled), and an
 * update that turns the key on, or moves the pool, gives a full compile's trees. */
CHECK_TEST(opaque_liquids, "/vis/opaque-liquids-block-sight-through-a-pool")
{
    const double a[3] = {128, 128, 200}, b[3] = {896, 128, 200};
    const double c[3] = {384, 128, 32}, d[3] = {640, 128, 32};
    /* Beside the pool at its depth: a level line through the water joins them. */
    const double e0[3] = {128, 128, 16}, e1[3] = {896, 128, 16};
    scene clear, opaque;
    REQUIRE(load_pool(&clear, false));
    REQUIRE(load_pool(&opaque, true));
    CHECK(al_world_leaf_sees(clear.world, leaf(&clear, a[0], a[1], a[2]),
                             leaf(&clear, b[0], b[1], b[2])));
    CHECK(al_world_leaf_sees(clear.world, leaf(&clear, a[0], a[1], a[2]),
                             leaf(&clear, c[0], c[1], c[2])));
    CHECK(al_world_leaf_sees(clear.world, leaf(&clear, e0[0], e0[1], e0[2]),
                             leaf(&clear, e1[0], e1[1], e1[2])));
    check_pvs(&clear, 5000);
    int la = leaf(&opaque, a[0], a[1], a[2]), lb = leaf(&opaque, b[0], b[1], b[2]);
    int lc = leaf(&opaque, c[0], c[1], c[2]), ld = leaf(&opaque, d[0], d[1], d[2]);
    CHECK(la >= 0 && lb >= 0 && lc >= 0 && ld >= 0);
    CHECK_MSG(!al_world_leaf_sees(opaque.world, la, lb), "the halves see each other");
    CHECK(!al_world_leaf_sees(opaque.world, la, lc));
    CHECK(!al_world_leaf_sees(opaque.world, leaf(&opaque, e0[0], e0[1], e0[2]),
                              leaf(&opaque, e1[0], e1[1], e1[2])));
    CHECK(al_world_leaf_sees(opaque.world, lc, ld));
    check_portals(&opaque);

    /* Lines of sight that do not cross the water's surface. */
    al_oracle *sight = al_oracle_create_sight(opaque.world);
    REQUIRE(sight);
    const double water_lo[3] = {256, 0, 0}, water_hi[3] = {768, 256, 128};
    al_rng rng = {5};
    int checked = 0, missing = 0;
    for (int i = 0; i < 20000; i++) {
        double p[2][3];
        bool wet[2];
        for (int e = 0; e < 2; e++) {
            p[e][0] = 1 + 1022 * al_rng_uniform(&rng);
            p[e][1] = 1 + 254 * al_rng_uniform(&rng);
            p[e][2] = 1 + 254 * al_rng_uniform(&rng);
            wet[e] = p[e][0] > 256 && p[e][0] < 768 && p[e][2] < 128;
        }
        if (wet[0] != wet[1]) continue;
        if (!wet[0] && segment_touches_box(p[0], p[1], water_lo, water_hi)) continue;
        const double zero[3] = {0, 0, 0};
        if (al_oracle_point_margin(sight, zero, zero, p[0]) < 1e-3 ||
            al_oracle_point_margin(sight, zero, zero, p[1]) < 1e-3)
            continue;
        al_oracle_hit hit;
        al_oracle_sweep(sight, zero, zero, p[0], p[1], &hit);
        if (hit.hit) continue;
        int l0 = al_world_vis_leaf_at(opaque.world, p[0]);
        int l1 = al_world_vis_leaf_at(opaque.world, p[1]);
        if (l0 < 0 || l1 < 0) continue;
        checked++;
        missing += !al_world_leaf_sees(opaque.world, l0, l1);
    }
    al_oracle_destroy(sight);
    CHECK_MSG(checked > 2000 && missing == 0, "%d of %d lines of sight missing", missing, checked);

    /* Incremental: the key turned on, then the pool moved, against full compiles. */
    al_compile_options co = {.no_vis = true};
    al_world *next = NULL, *full = NULL;
    REQUIRE(al_world_update(clear.world, &opaque.input.input, &co, &next, NULL) == AL_OK);
    REQUIRE(al_world_compile(&opaque.input.input, &co, &full, NULL) == AL_OK);
    REQUIRE(al_world_build_vis_trees(next, 0) == AL_OK);
    REQUIRE(al_world_build_vis_trees(full, 0) == AL_OK);
    char why[300] = "";
    CHECK_MSG(al_world_tree_differences(next, full, why, sizeof why) == 0, "key: %s", why);
    al_world_destroy(full);
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &opaque.input.input));
    const al_brush_desc *pool = &e.brushes[e.input.brush_count - 1];
    for (int f = 0; f < pool->face_count; f++)
        for (int i = 0; i < 3; i++) e.faces[pool->first_face + f].points[i][2] -= 32;
    al_world *moved = NULL;
    REQUIRE(al_world_update(next, &e.input, &co, &moved, NULL) == AL_OK);
    REQUIRE(al_world_compile(&e.input, &co, &full, NULL) == AL_OK);
    REQUIRE(al_world_build_vis_trees(moved, 0) == AL_OK);
    REQUIRE(al_world_build_vis_trees(full, 0) == AL_OK);
    CHECK_MSG(al_world_tree_differences(moved, full, why, sizeof why) == 0, "moved: %s", why);
    al_world_destroy(moved);
    al_world_destroy(full);
    al_world_destroy(next);
    al_edit_input_free(&e);
    scene_free(&clear);
    scene_free(&opaque);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}

/* A random point of portal I's polygon (area-weighted over its fan of triangles), moved
 * NUDGE units off its plane into LEAF. */
static void random_portal_point(const al_world *w, int i, int leaf, double nudge, al_rng *rng,
                                double out[3])
{
    al_portal_info p;
    al_world_portal(w, i, &p);
    double total = 0, area[64];
    int n = p.point_count < 65 ? p.point_count : 65;
    for (int k = 1; k + 1 < n; k++) {
        double u[3], v[3], c[3];
        al_sub(p.points[k], p.points[0], u);
        al_sub(p.points[k + 1], p.points[0], v);
        al_cross(u, v, c);
        total += area[k - 1] = al_length(c);
    }
    double pick = al_rng_uniform(rng) * total;
    int k = 1;
    while (k + 2 < n && pick > area[k - 1]) pick -= area[k - 1], k++;
    double x = al_rng_uniform(rng), y = al_rng_uniform(rng);
    if (x + y > 1) x = 1 - x, y = 1 - y;
    double side = p.leaf[0] == leaf ? nudge : -nudge;
    for (int c = 0; c < 3; c++)
        out[c] = p.points[0][c] + x * (p.points[k][c] - p.points[0][c]) +
                 y * (p.points[k + 1][c] - p.points[0][c]) + side * p.normal[c];
}

/* How many of SAMPLES segments between leaves A and B nothing blocks: each is a line of
 * sight between them. Each end is a point of one of its leaf's portals, moved a tenth of a
 * unit into the leaf (a segment between two portals on one plane would otherwise run
 * along the wall that plane holds). */
static int sight_between(const al_world *w, al_oracle *sight, int a, int b, int samples,
                         al_rng *rng)
{
    int n = al_world_portal_count(w), na = 0, nb = 0;
    int *pa = malloc(((size_t) n + 1) * sizeof *pa), *pb = malloc(((size_t) n + 1) * sizeof *pb);
    if (!pa || !pb) {
        free(pa), free(pb);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        al_portal_info p;
        al_world_portal(w, i, &p);
        if (p.leaf[0] < 0 || p.leaf[1] < 0) continue;
        if (p.leaf[0] == a || p.leaf[1] == a) pa[na++] = i;
        if (p.leaf[0] == b || p.leaf[1] == b) pb[nb++] = i;
    }
    const double zero[3] = {0, 0, 0};
    int seen = 0;
    for (int k = 0; k < samples && na && nb; k++) {
        double x[3], y[3];
        random_portal_point(w, pa[(int) (al_rng_uniform(rng) * na)], a, 0.1, rng, x);
        random_portal_point(w, pb[(int) (al_rng_uniform(rng) * nb)], b, 0.1, rng, y);
        if (al_world_vis_leaf_at(w, x) != a || al_world_vis_leaf_at(w, y) != b) continue;
        al_oracle_hit hit;
        al_oracle_sweep(sight, zero, zero, x, y, &hit);
        seen += !hit.hit && !hit.start_inside;
    }
    free(pa), free(pb);
    return seen;
}

/* The flow leaves out arrivals at a portal that earlier arrivals cover, and frames from
 * which no leaf still looked for can be reached (pvs.c). Neither may add a pair to a row;
 * a pair they take out must be one no line of sight joins (the flow without them lets
 * through lines that only its cutting slack leaves room for). On one thread, so that both
 * walks see finished portals in the same order. */
static void check_pruning_drops_only_the_unseen(const char *path)
{
    scene s;
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT, .threads = 1};
    REQUIRE(scene_load_file(&s, path, &o));
    al_vis *vis = s.world->vis;
    REQUIRE(vis && vis->pvs);
    size_t words = (size_t) vis->cluster_count * (size_t) vis->row_words;
    uint64_t *pruned = malloc((words + 1) * sizeof *pruned);
    REQUIRE(pruned);
    memcpy(pruned, vis->pvs, words * sizeof *pruned);
    double tight = vis->stats.avg_visible_tight;
    free(vis->pvs);
    vis->pvs = NULL;
    vis->flow_unpruned = true;
    REQUIRE(al_vis_pvs(vis, AL_PVS_TIGHT, 1) == 0);
    al_oracle *sight = al_oracle_create_sight(s.world);
    REQUIRE(sight);
    al_rng rng = {11};
    int added = 0, dropped = 0, wrongly = 0;
    for (int a = 0; a < vis->cluster_count; a++)
        for (int b = a + 1; b < vis->cluster_count; b++) {
            size_t w = (size_t) a * vis->row_words + (size_t) (b >> 6);
            uint64_t bit = (uint64_t) 1 << (b & 63);
            bool with = pruned[w] & bit, without = vis->pvs[w] & bit;
            added += with && !without;
            if (!with && without) {
                dropped++;
                int seen = sight_between(s.world, sight, a, b, 2000, &rng);
                CHECK_MSG(seen == 0, "leaves %d and %d: %d lines of sight, yet dropped", a, b, seen);
                wrongly += seen != 0;
            }
        }
    CHECK_MSG(added == 0, "%d pairs only with the pruning", added);
    check_note("%s: %d vis leaves, %.3f visible on average with the pruning, %.3f without; "
               "%d pairs dropped, each tried with 2000 segments between its leaves' portals "
               "(%d seen)",
               path, vis->cluster_count, tight, vis->stats.avg_visible_tight, dropped, wrongly);
    al_oracle_destroy(sight);
    free(pruned);
    scene_free(&s);
}

/* After an edit the PVS takes the sets of the portals the edit cannot have changed from
 * the previous world (al_vis_options.previous): the coarse rows must be a full build's,
 * bit for bit; the tight rows must hold every line of sight, and lie within the coarse. */
static void check_incremental_pvs(const char *path, int edits, uint64_t seed, bool tight)
{
    scene s;
    REQUIRE(scene_load_file(&s, path, NULL));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &s.input.input));
    al_world *cur = NULL;
    al_compile_options co = {.no_vis = true};
    REQUIRE(al_world_compile(&e.input, &co, &cur, NULL) == AL_OK);
    al_pvs_level level = tight ? AL_PVS_TIGHT : AL_PVS_COARSE;
    REQUIRE(al_world_build_vis_with(cur, &e.input, &(al_vis_options){.level = level}) == AL_OK);
    al_rng rng = {seed};
    int checked = 0, coarse_differ = 0, tight_wider = 0;
    int64_t misses = 0, segments = 0, reused[2] = {0, 0}, dportals = 0;
    for (int i = 0; i < edits; i++) {
        al_edit edit;
        REQUIRE(al_edit_random(&e, &rng, 8, &edit));
        al_world *next = NULL;
        REQUIRE(al_world_update(cur, &e.input, &co, &next, NULL) == AL_OK);
        /* The coarse rows built in full, then taking what CUR still gives. */
        REQUIRE(al_world_build_vis_with(next, &e.input,
                                        &(al_vis_options){.level = AL_PVS_COARSE}) == AL_OK);
        al_vis *vis = next->vis;
        size_t words = vis->pvs ? (size_t) vis->cluster_count * (size_t) vis->row_words : 0;
        uint64_t *full = malloc((words + 1) * sizeof *full);
        REQUIRE(full);
        if (words) memcpy(full, vis->pvs, words * sizeof *full);
        REQUIRE(al_world_build_vis_with(next, &e.input,
                                        &(al_vis_options){.level = AL_PVS_COARSE,
                                                          .previous = cur}) == AL_OK);
        vis = next->vis;
        if (words && (!vis->pvs || memcmp(full, vis->pvs, words * sizeof *full) != 0))
            coarse_differ++;
        al_vis_stats vs;
        al_world_vis_stats(next, &vs);
        reused[0] += vs.dportals_reused_coarse;
        /* The tight rows, taking what CUR's walks found. */
        if (tight) {
            REQUIRE(al_world_build_vis_with(next, &e.input,
                                            &(al_vis_options){.level = AL_PVS_TIGHT,
                                                              .previous = cur}) == AL_OK);
            vis = next->vis;
            al_world_vis_stats(next, &vs);
            reused[1] += vs.dportals_reused_tight;
        }
        dportals += vs.dportals;
        if (words && vis->pvs)
            for (size_t w = 0; w < words; w++) tight_wider += (vis->pvs[w] & ~full[w]) != 0;
        al_oracle *sight = al_oracle_create_sight(next);
        REQUIRE(sight);
        al_verify_counts c;
        al_verify_pvs(next, sight, 4000, seed + (uint64_t) i, &c);
        misses += c.mismatches;
        segments += c.checked;
        al_oracle_destroy(sight);
        free(full);
        checked++;
        al_world_destroy(cur);
        cur = next;
    }
    CHECK_MSG(coarse_differ == 0, "%s: %d of %d coarse PVSs differ from a full build", path,
              coarse_differ, checked);
    CHECK_MSG(tight_wider == 0, "%s: %d tight row words hold leaves the coarse rows do not",
              path, tight_wider);
    CHECK_MSG(misses == 0, "%s: %lld of %lld lines of sight missing from the PVS", path,
              (long long) misses, (long long) segments);
    /* A few edits of a small map may each touch every block; more must leave some alone. */
    CHECK_MSG(edits < 8 || (reused[0] > 0 && (reused[1] > 0 || !tight)),
              "%s: nothing taken (%lld, %lld)", path, (long long) reused[0],
              (long long) reused[1]);
    check_note("%s: %d edits; of %lld directed portals, %lld might-see and %lld visible sets "
               "taken from the previous world; %lld lines of sight checked", path, checked,
               (long long) dportals, (long long) reused[0], (long long) reused[1],
               (long long) segments);
    al_world_destroy(cur);
    al_edit_input_free(&e);
    scene_free(&s);
}

CHECK_TEST(incremental, "/vis/after-an-edit-the-pvs-takes-what-the-edit-did-not-change")
{
    const char *generated = getenv("ALLIUM_GENERATED_SMALL_MAP");
    if (!generated) {
        check_skip("ALLIUM_GENERATED_SMALL_MAP not set");
        return;
    }
    /* ALLIUM_TEST_PVS_EDITS="GENERATED REAL": edits of the generated map and of each real
     * map (the ThreadSanitizer run leaves the real maps out). */
    int edits = 8, real_edits = 2;
    const char *env = getenv("ALLIUM_TEST_PVS_EDITS");
    if (env && sscanf(env, "%d %d", &edits, &real_edits) != 2) edits = 8, real_edits = 2;
    check_incremental_pvs(generated, edits, 41, true);
    /* Real maps: the tight PVS on the one whose flow is quick, the coarse on others. */
    const char *names[] = {"lq-e3m4.map", "e1m1.map", "dm2.map"};
    for (int i = 0; i < 3 && real_edits > 0; i++) {
        const char *real = scene_shared_map(names[i]);
        if (real) check_incremental_pvs(real, i == 0 ? 1 : real_edits, 43 + (uint64_t) i, i == 0);
        else check_note("%s is not in the shared maps folder: not checked", names[i]);
    }
    if (real_edits == 0) check_note("real maps left out (ALLIUM_TEST_PVS_EDITS)");
}

CHECK_TEST(pruning, "/vis/pruning-the-flow-adds-no-pair-and-drops-only-pairs-nothing-joins")
{
    check_pruning_drops_only_the_unseen(getenv("ALLIUM_SAMPLE_MAP"));
    const char *generated = getenv("ALLIUM_GENERATED_SMALL_MAP");
    if (generated) check_pruning_drops_only_the_unseen(generated);
    const char *real = scene_shared_map("lq-e3m4.map");
    if (real) check_pruning_drops_only_the_unseen(real);
    else check_skip("lq-e3m4.map is not in the shared maps folder");
}

/* The generator's realistic style (tests/gen/realistic.c) at a small size: the same seed
 * writes the same text, the map reads without a bad brush, most of its brushes are detail,
 * it has doors, liquids and lights, it is sealed (no leak), and its PVS passes the sight
 * oracle. */
CHECK_TEST(realistic_style, "/vis/generated-realistic-map-is-sealed-and-mostly-detail")
{
    mapgen *g = mapgen_create(false), *again = mapgen_create(false);
    REQUIRE(g && again);
    REQUIRE(realistic_map(g, 1500, 4));
    REQUIRE(realistic_map(again, 1500, 4));
    size_t len, len_again;
    const char *text = mapgen_text(g, &len), *text_again = mapgen_text(again, &len_again);
    CHECK(len == len_again && memcmp(text, text_again, len) == 0);
    mapgen_destroy(again);
    int brushes = mapgen_brush_count(g);
    CHECK_MSG(brushes >= 1500 && brushes <= 1575, "%d brushes for 1500", brushes);

    scene s;
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    REQUIRE(scene_load_mapgen(&s, g, &o));
    const al_input *in = &s.input.input;
    CHECK(in->brush_count == brushes);
    int detail = 0, doors = 0, lights = 0, liquids = 0;
    for (int i = 0; i < in->entity_count; i++) {
        const char *c = in->entities[i].classname;
        doors += strcmp(c, "func_door") == 0;
        lights += strcmp(c, "light") == 0;
    }
    for (int b = 0; b < in->brush_count; b++) {
        const al_brush_desc *bd = &in->brushes[b];
        detail += al_entity_role_of(in->entities[bd->entity].classname) == AL_ROLE_DETAIL;
        const al_face_desc *f = &in->faces[bd->first_face];
        liquids += f->material >= 0 && in->materials[f->material].name &&
                   in->materials[f->material].name[0] == '*';
    }
    CHECK_MSG(detail > brushes * 7 / 10, "%d of %d brushes are detail", detail, brushes);
    CHECK(doors > 0 && lights > 12 && liquids > 0);
    al_world_stats cs;
    al_world_get_stats(s.world, &cs);
    CHECK_MSG(cs.invalid_brushes == 0, "%d invalid brushes", cs.invalid_brushes);
    al_leak_info leak;
    CHECK_MSG(!al_world_leak(s.world, &leak), "the void reaches %s (entity %d)", leak.classname,
              leak.entity);
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    CHECK(vs.vis_leaves > 12 && vs.outside_leaves > 0);
    check_portals(&s);
    check_pvs(&s, 20000);
    scene_free(&s);
}
