/* Agents: a crowd on e1m1 that must never end a step inside solid, agents spawned from a
 * map's agent_start and waypoint entities, contacts pushed apart, picking by ray. */
#include "al-agents.h"
#include "check.h"
#include "al-entity-keys.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "al-oracle.h"
#include "mapgen.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0 / 60.0)

/* ALLIUM_TEST_AGENTS="agents steps" shrinks the e1m1 run for slow sanitizer builds. */
static void crowd_size(int *agents, int *steps)
{
    *agents = 100;
    *steps = 10000;
    const char *e = getenv("ALLIUM_TEST_AGENTS");
    if (e) sscanf(e, "%d %d", agents, steps);
}

/* Counts the agents inside solid for their current hull. */
static int inside_solid(const al_agents *a, const al_world *w, int *first)
{
    int n = 0;
    for (int i = 0; i < al_agents_count(a); i++) {
        const al_agent *g = al_agents_get(a, i);
        if (al_world_point_solid(w, al_mover_hull(&g->mover), g->mover.origin)) {
            if (n == 0) *first = i;
            n++;
        }
    }
    return n;
}

/* Independently: the brute-force oracle's depth of each agent's box in the brushes (deeper
 * than the surface epsilon is inside). Returns the agents checked; adds to *BAD. */
static int oracle_inside(const al_agents *a, const al_world *w, al_oracle *o, int *bad)
{
    for (int i = 0; i < al_agents_count(a); i++) {
        const al_agent *g = al_agents_get(a, i);
        const al_hull_desc *h = al_world_hull(w, al_mover_hull(&g->mover));
        if (al_oracle_point_margin(o, h->mins, h->maxs, g->mover.origin) < -AL_SURFACE_EPSILON)
            (*bad)++;
    }
    return al_agents_count(a);
}

CHECK_TEST(e1m1_crowd, "/agents/e1m1-crowd-never-ends-a-step-inside-solid")
{
    const char *file = scene_shared_map("e1m1.map");
    if (!file) {
        check_skip("e1m1.map not in the shared maps folder");
        return;
    }
    int count, steps;
    crowd_size(&count, &steps);
    scene s;
    REQUIRE(scene_load_file(&s, file, NULL));
    const al_input *in = &s.input.input;
    al_agents *a = al_agents_create(42);
    REQUIRE(a);
    /* Waypoints at every point entity (the items and monsters a player walks between);
     * agents start at them in turn. */
    double (*points)[3] = calloc((size_t) in->entity_count, sizeof *points);
    int point_count = 0;
    for (int e = 1; e < in->entity_count; e++) {
        const char *o = al_entity_value(&in->entities[e], "origin");
        if (o && al_read_numbers(o, points[point_count], 3) == 3) {
            REQUIRE(al_agents_add_waypoint(a, points[point_count], -1) >= 0);
            point_count++;
        }
    }
    REQUIRE(point_count > 10);
    int stand = scene_hull(&s, "stand");
    for (int k = 0; al_agents_count(a) < count && k < 50 * count; k++) {
        double p[3];
        al_copy(points[k % point_count], p);
        p[0] += (k / point_count) * 40.0 * ((k & 1) ? 1 : -1);
        if (al_world_point_solid(s.world, stand, p)) continue;
        REQUIRE(al_agents_add(a, s.world, "stand", p, 200 + (k % 5) * 40) >= 0);
    }
    REQUIRE(al_agents_count(a) == count);
    al_move_params params;
    al_move_default_params(&params);
    int bad_steps = 0, first_agent = -1, first_step = -1, oracle_bad = 0, oracle_checked = 0;
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    long long contacts = 0, pairs = 0, stuck = 0;
    double travelled = 0;
    double *last = malloc(sizeof(double) * 3 * (size_t) count);
    for (int i = 0; i < count; i++) al_copy(al_agents_get(a, i)->mover.origin, &last[3 * i]);
    for (int step = 0; step < steps; step++) {
        al_agents_step_stats st;
        al_agents_step(a, s.world, &params, DT, &st);
        contacts += st.contacts;
        pairs += st.pairs;
        stuck += st.stuck;
        int first = -1;
        if (step % 10 == 0) oracle_checked += oracle_inside(a, s.world, o, &oracle_bad);
        if (inside_solid(a, s.world, &first) > 0) {
            if (bad_steps++ == 0) first_agent = first, first_step = step;
        }
        for (int i = 0; i < count; i++) {
            const double *at = al_agents_get(a, i)->mover.origin;
            double d[3];
            al_sub(at, &last[3 * i], d);
            travelled += al_length(d);
            al_copy(at, &last[3 * i]);
        }
    }
    check_note("%d agents, %d steps: %.0f units walked in all, %lld sphere pairs, %lld "
               "contacts pushed apart, %lld stuck agent-steps",
               count, steps, travelled, pairs, contacts, stuck);
    CHECK_MSG(bad_steps == 0, "%d steps ended with an agent inside solid (first: agent %d at "
              "step %d)", bad_steps, first_agent, first_step);
    CHECK(stuck == 0);
    CHECK_MSG(oracle_bad == 0, "the brute-force oracle finds %d of %d agent positions inside "
              "solid", oracle_bad, oracle_checked);
    al_oracle_destroy(o);
    /* They did walk, and met. */
    CHECK(travelled > count * steps * DT * 50);
    CHECK(steps < 1000 || contacts > 0);
    free(last);
    free(points);
    al_agents_destroy(a);
    scene_free(&s);
}

static bool load(scene *s, mapgen *g)
{
    return scene_load_mapgen(s, g, NULL);
}

static void room(mapgen *g)
{
    mapgen_begin_entity(g, "worldspawn");
    mapgen_room(g, -512, -512, 0, 512, 512, 512, 16, "wall");
    mapgen_box(g, -64, -64, 0, 64, 64, 256, "pillar");
    mapgen_end_entity(g);
}

static void waypoint(mapgen *g, const char *name, const char *target, double x, double y)
{
    mapgen_begin_entity(g, "waypoint");
    mapgen_keyf(g, "origin", "%g %g 24", x, y);
    mapgen_key(g, "targetname", name);
    if (target) mapgen_key(g, "target", target);
    mapgen_end_entity(g);
}

CHECK_TEST(spawn, "/agents/agent-start-spawns-its-count-and-walks-the-waypoint-loop")
{
    mapgen *g = mapgen_create(true);
    room(g);
    /* A loop of four waypoints around the pillar. */
    waypoint(g, "a", "b", -300, -300);
    waypoint(g, "b", "c", 300, -300);
    waypoint(g, "c", "d", 300, 300);
    waypoint(g, "d", "a", -300, 300);
    mapgen_begin_entity(g, "agent_start");
    mapgen_key(g, "origin", "-300 -200 40");
    mapgen_key(g, "count", "5");
    mapgen_key(g, "speed", "250");
    mapgen_key(g, "target", "b");
    mapgen_end_entity(g);
    /* Bad ones are reported, not fatal. */
    mapgen_begin_entity(g, "agent_start");
    mapgen_key(g, "origin", "0 0 40");
    mapgen_key(g, "hull", "giant");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "agent_start");
    mapgen_key(g, "origin", "100 100 40");
    mapgen_key(g, "count", "lots");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(load(&s, g));
    al_agents *a = al_agents_create(1);
    REQUIRE(a);
    al_diag_list diags = {0};
    REQUIRE(al_agents_spawn_map(a, &s.input.input, s.world, &diags) == AL_OK);
    CHECK(al_agents_count(a) == 5);
    CHECK(diags.count == 2);
    for (size_t i = 0; i < diags.count; i++) {
        char line[300];
        check_note("%s", al_diag_format(&diags.items[i], line, sizeof line));
        CHECK(diags.items[i].entity == 6 || diags.items[i].entity == 7);
    }
    CHECK(diags.count == 2 && strstr(diags.items[0].message, "giant") != NULL);
    CHECK(diags.count == 2 && strstr(diags.items[1].message, "lots") != NULL);
    al_diag_list_clear(&diags);
    /* Every agent stands on the floor, heads for b, and then goes round the loop: count
     * the waypoints each one reaches in 20 seconds. */
    for (int i = 0; i < 5; i++) {
        const al_agent *ag = al_agents_get(a, i);
        CHECK(ag->mover.on_ground);
        CHECK_NEAR(ag->mover.origin[2], 24 + AL_TRACE_SKIN, 1e-6);
        CHECK(ag->waypoint == 1);
        CHECK(ag->entity == 5);
    }
    al_move_params p;
    al_move_default_params(&p);
    int reached[5] = {0}, last[5];
    for (int i = 0; i < 5; i++) last[i] = al_agents_get(a, i)->waypoint;
    for (int step = 0; step < 20 * 60; step++) {
        al_agents_step(a, s.world, &p, DT, NULL);
        for (int i = 0; i < 5; i++) {
            const al_agent *ag = al_agents_get(a, i);
            if (ag->waypoint != last[i]) {
                CHECK(ag->waypoint == (last[i] + 1) % 4);
                last[i] = ag->waypoint;
                reached[i]++;
            }
            CHECK(hypot(ag->mover.velocity[0], ag->mover.velocity[1]) <= 250 + 1e-6);
        }
    }
    /* The loop is 2400 units; at 250 units/s in 20 s that is two rounds, 8 waypoints;
     * crowding at the corners costs some. */
    for (int i = 0; i < 5; i++) CHECK_MSG(reached[i] >= 5, "agent %d reached %d", i, reached[i]);
    /* Reset puts them back. */
    al_agents_reset(a, s.world);
    for (int i = 0; i < 5; i++) {
        const al_agent *ag = al_agents_get(a, i);
        CHECK(memcmp(ag->mover.origin, ag->start, sizeof ag->start) == 0);
        CHECK(ag->mover.velocity[0] == 0 && ag->mover.velocity[1] == 0);
    }
    al_agents_destroy(a);
    scene_free(&s);
}

CHECK_TEST(contacts, "/agents/two-agents-walking-into-each-other-are-pushed-apart")
{
    mapgen *g = mapgen_create(true);
    room(g);
    scene s;
    REQUIRE(load(&s, g));
    al_agents *a = al_agents_create(3);
    REQUIRE(a);
    /* Head on along the same line: each walks to where the other starts. */
    double p1[3] = {-300, -300, 24.5}, p2[3] = {300, -300, 24.5};
    int w2 = al_agents_add_waypoint(a, p2, -1), w1 = al_agents_add_waypoint(a, p1, -1);
    int x = al_agents_add(a, s.world, "stand", p1, 320);
    int y = al_agents_add(a, s.world, "stand", p2, 320);
    REQUIRE(x == 0 && y == 1);
    al_agents_set_waypoint(a, x, w2);
    al_agents_set_waypoint(a, y, w1);
    REQUIRE(al_agents_add(a, s.world, "no-such-hull", p1, 320) == -1);
    al_move_params p;
    al_move_default_params(&p);
    int contacts = 0;
    double closest = INFINITY;
    for (int step = 0; step < 180; step++) {
        al_agents_step_stats st;
        al_agents_step(a, s.world, &p, DT, &st);
        contacts += st.contacts;
        double mins[2][3], maxs[2][3];
        al_agents_box(a, s.world, 0, mins[0], maxs[0]);
        al_agents_box(a, s.world, 1, mins[1], maxs[1]);
        /* After the push their boxes do not overlap (they may touch). */
        bool overlap = true;
        for (int k = 0; k < 3; k++)
            if (mins[0][k] >= maxs[1][k] - 1e-9 || mins[1][k] >= maxs[0][k] - 1e-9)
                overlap = false;
        CHECK_MSG(!overlap, "boxes overlap after step %d", step);
        double gap = fabs(al_agents_get(a, 0)->mover.origin[0] -
                          al_agents_get(a, 1)->mover.origin[0]);
        if (gap < closest) closest = gap;
    }
    CHECK(contacts > 0);
    CHECK(closest >= 32 - 1e-6);
    /* Picking: a ray along x at their height hits the nearer one's box face. */
    const al_agent *g0 = al_agents_get(a, 0);
    double from[3] = {-500, g0->mover.origin[1], g0->mover.origin[2]}, dir[3] = {1, 0, 0};
    double t;
    int hit = al_agents_pick(a, s.world, from, dir, 2000, &t);
    int nearer = al_agents_get(a, 0)->mover.origin[0] < al_agents_get(a, 1)->mover.origin[0] ? 0 : 1;
    CHECK(hit == nearer);
    CHECK_NEAR(t, al_agents_get(a, nearer)->mover.origin[0] - 16 + 500, 1e-6);
    double up[3] = {0, 0, 1}, above[3] = {0, 0, 300};
    CHECK(al_agents_pick(a, s.world, above, up, 100, &t) == -1);
    al_agents_destroy(a);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
