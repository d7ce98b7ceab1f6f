/* Oracles on one real map (argv[1], a file name in the shared maps folder).
 *
 * The suite samples fewer points than allium-bench verify (its defaults are a million points
 * and 100,000 traces per hull); the counts below keep the whole suite within its time
 * budget on two cores: 250,000 points per hull (a million per map), 20,000 traces per hull.
 */
#include "brush/expand.h"
#include "check.h"
#include "geom/epsilon.h"
#include "geom/vec3.h"
#include "scene.h"
#include "verify/oracle.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *map_name;
static scene s;
static bool loaded;
static al_oracle *oracle;

static bool ready(void)
{
    if (!loaded) {
        check_fail(__FILE__, __LINE__, "%s did not compile", map_name);
        return false;
    }
    return true;
}

CHECK_TEST(compiles, "/realmaps/compiles-with-no-invalid-brush")
{
    if (!ready()) return;
    al_world_stats st;
    al_world_get_stats(s.world, &st);
    check_note("%s: %d brushes, %d solid for agents, %lld onion nodes, %d blocks, %.0f ms",
               map_name, st.input_brushes, st.collision_brushes, (long long) st.onion_nodes,
               st.blocks, st.ms_total);
    CHECK(st.invalid_brushes == 0);
    CHECK(st.collision_brushes > 0);
    CHECK(st.onion_nodes > 0);
}

static void report(const char *what, int hull, const al_verify_counts *c)
{
    check_note("%s, hull %s: %lld checked, %lld near a surface skipped, %lld mismatches%s", what,
               al_world_hull(s.world, hull)->name, (long long) c->checked,
               (long long) c->skipped, (long long) c->mismatches,
               c->normal_mismatches ? " (and normal mismatches)" : "");
    if (c->mismatches || c->normal_mismatches)
        check_note("  first: (%g %g %g) -> (%g %g %g), worst %g", c->example[0][0],
                   c->example[0][1], c->example[0][2], c->example[1][0], c->example[1][1],
                   c->example[1][2], c->worst);
}

CHECK_TEST(solidity, "/realmaps/onion-solidity-matches-brute-force")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_solidity(s.world, oracle, h, 250000, 1000 + h, &c);
        report("solidity", h, &c);
        CHECK(c.mismatches == 0);
        CHECK(c.checked > 200000);
    }
}

CHECK_TEST(map_trees, "/realmaps/map-trees-match-the-onion-tree")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_map_trees(s.world, oracle, h, 100000, 2000 + h, &c);
        report("map tree", h, &c);
        CHECK(c.mismatches == 0);
    }
}

CHECK_TEST(traces, "/realmaps/traces-match-brute-force-sweeps")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_traces(s.world, oracle, h, 20000, 0, 3000 + h, &c);
        report("traces", h, &c);
        CHECK(c.mismatches == 0 && c.normal_mismatches == 0);
        CHECK(c.checked == 20000);
    }
}

CHECK_TEST(plane_shift, "/realmaps/plane-shifting-matches-onion-traces")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_plane_shift(s.world, oracle, h, 10000, 0, 4000 + h, &c);
        report("plane shifting", h, &c);
        CHECK(c.mismatches == 0 && c.normal_mismatches == 0);
    }
}

/* Expanding without bevels (Quake 1's way) pushes each face out along its own normal, so at
 * a sharp edge the faces meet far beyond the true Minkowski sum. Find points inside such a
 * bevel-less expansion that the separating-axis oracle says are clear of the brush, and
 * check the compiled world agrees they are empty. */
CHECK_TEST(sharp, "/realmaps/sharp-prisms-are-not-over-expanded")
{
    if (!ready()) return;
    if (!strstr(map_name, "hull_expansion")) {
        check_skip("only for the q1_hull_expansion maps");
        return;
    }
    const al_world *w = s.world;
    al_rng rng = {5};
    long over = 0, wrong = 0;
    for (int h = 1; h < w->hull_count; h++) {
        const al_hull_desc *hd = &w->hulls[h];
        for (int i = 0; i < w->collision_count; i++) {
            const al_brush *b = w->collision[i];
            for (int n = 0; n < 30000; n++) {
                /* Within the bevel-less expansion's reach of the brush. */
                double p[3];
                for (int k = 0; k < 3; k++)
                    p[k] = b->mins[k] - 120 + (b->maxs[k] - b->mins[k] + 240) * al_rng_uniform(&rng);
                bool naive = true;
                for (int f = 0; f < b->side_count && naive; f++) {
                    const al_plane *pl = &w->planes.planes[b->sides[f].plane];
                    double d = pl->dist + al_box_support(pl->normal, hd->mins, hd->maxs);
                    if (al_dot(pl->normal, p) - d > -AL_SURFACE_EPSILON) naive = false;
                }
                if (!naive) continue;
                if (al_oracle_point_margin(oracle, hd->mins, hd->maxs, p) <= AL_SURFACE_EPSILON)
                    continue;
                over++;
                if (al_world_point_solid(w, h, p)) wrong++;
            }
        }
    }
    check_note("%ld sample points lie in a bevel-less expansion but are empty; %ld of them "
               "are solid in the compiled world",
               over, wrong);
    CHECK(over > 100); /* the map really is sharp */
    CHECK(wrong == 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test-realmaps MAP-NAME\n");
        return 2;
    }
    map_name = argv[1];
    const char *path = scene_shared_map(map_name);
    if (!path) {
        static char reason[512];
        snprintf(reason, sizeof reason, "real map %s not found (meson option shared_maps: %s)",
                 map_name, scene_shared_maps() ? scene_shared_maps() : "folder absent");
        check_skip_all(reason);
        return check_main(argc - 1, argv + 1);
    }
    loaded = scene_load_file(&s, path, NULL);
    if (loaded) oracle = al_oracle_create(s.world);
    int status = check_main(argc - 1, argv + 1);
    al_oracle_destroy(oracle);
    scene_free(&s);
    return status;
}
