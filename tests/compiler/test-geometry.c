/* Geometry kernel: planes, the plane table, windings. */
#include "check.h"
#include "core/arena.h"
#include "al-epsilon.h"
#include "geom/plane.h"
#include "al-vec3.h"
#include "geom/winding.h"

#include <math.h>
#include <stdint.h>

CHECK_TEST(plane_from_points_quake_convention, "/geom/plane/from-points-follows-quake-convention")
{
    /* First brush of e1m1 (SOURCES.md): the normal points out of a brush lying at x >= 448. */
    double p0[3] = {448, -320, 64}, p1[3] = {448, -384, 64}, p2[3] = {448, -384, 0};
    double n[3], d;
    REQUIRE(al_plane_from_points(p0, p1, p2, n, &d));
    CHECK_NEAR(n[0], -1, 0);
    CHECK_NEAR(n[1], 0, 0);
    CHECK_NEAR(n[2], 0, 0);
    CHECK_NEAR(d, -448, 0);
}

CHECK_TEST(plane_rejects_collinear, "/geom/plane/collinear-or-coincident-points-give-no-plane")
{
    double a[3] = {0, 0, 0}, b[3] = {1, 1, 1}, c[3] = {2, 2, 2}, n[3], d;
    CHECK(!al_plane_from_points(a, b, c, n, &d));
    CHECK(!al_plane_from_points(a, a, c, n, &d));
    double bad[3] = {NAN, 0, 0};
    CHECK(!al_plane_from_points(bad, b, c, n, &d));
}

CHECK_TEST(plane_snaps_near_axial, "/geom/plane/nearly-axial-normal-snaps-to-the-axis")
{
    double n[3] = {1e-12, -1, 3e-13};
    CHECK(al_plane_snap_normal(n) == AL_PLANE_Y);
    CHECK(n[0] == 0 && n[1] == -1 && n[2] == 0);
    double m[3] = {0.6, 0.8, 0};
    CHECK(al_plane_snap_normal(m) == AL_PLANE_ANY);
}

CHECK_TEST(plane_table_dedup, "/geom/plane-table/same-plane-same-index-flip-is-xor-1")
{
    al_plane_table t;
    REQUIRE(al_plane_table_init(&t));
    double n[3] = {0.6, 0.8, 0}, f[3] = {-0.6, -0.8, 0};
    int a = al_plane_table_add(&t, n, 10);
    int b = al_plane_table_add(&t, n, 10 + AL_DIST_EPSILON / 2);
    int c = al_plane_table_add(&t, f, -10);
    int d = al_plane_table_add(&t, n, 10.5);
    CHECK(a >= 0 && a == b);
    CHECK(c == al_plane_flip(a));
    CHECK(d != a && d != c);
    CHECK(al_plane_table_find(&t, f, -10) == c);
    CHECK(t.planes[a].dist == 10 && t.planes[c].dist == -10);
    /* Distances across a hash bucket edge still merge. */
    double z[3] = {0, 0, 1};
    int e = al_plane_table_add(&t, z, 64 - AL_DIST_EPSILON / 4);
    int g = al_plane_table_add(&t, z, 64 + AL_DIST_EPSILON / 4);
    CHECK(e == g);
    al_plane_table_free(&t);
}

CHECK_TEST(winding_split_square, "/geom/winding/split-keeps-area-and-shares-the-cut")
{
    al_arena *a = al_arena_create(0);
    double z[3] = {0, 0, 1};
    al_winding *w = al_winding_base(a, z, 5);
    double x[3] = {1, 0, 0};
    w = al_winding_clip(a, w, x, 10, AL_ON_EPSILON, false, NULL);
    w = al_winding_clip(a, w, (double[3]){-1, 0, 0}, 0, AL_ON_EPSILON, false, NULL);
    w = al_winding_clip(a, w, (double[3]){0, 1, 0}, 10, AL_ON_EPSILON, false, NULL);
    w = al_winding_clip(a, w, (double[3]){0, -1, 0}, 0, AL_ON_EPSILON, false, NULL);
    REQUIRE(w && w->count == 4);
    CHECK_NEAR(al_winding_area(w), 100, 1e-9);
    al_winding *f, *b;
    double cut[3] = {0.6, 0.8, 0};
    CHECK(al_winding_split(a, w, cut, 5, AL_ON_EPSILON, &f, &b) == AL_SIDE_CROSS);
    REQUIRE(f && b);
    CHECK_NEAR(al_winding_area(f) + al_winding_area(b), 100, 1e-9);
    CHECK(al_winding_max_plane_error(f, z, 5) < 1e-12);
    /* A winding touching the plane with an edge is not cut. */
    CHECK(al_winding_split(a, w, x, 10, AL_ON_EPSILON, &f, &b) == AL_SIDE_BACK);
    CHECK(b == w && f == NULL);
    CHECK(al_winding_classify(w, z, 5, AL_ON_EPSILON) == AL_SIDE_ON);
    al_arena_destroy(a);
}

/* Oracle: the in-place clip used for brush faces gives the same polygon as the allocating
 * split, on random polygons and planes. */
CHECK_TEST(points_clip_matches_split, "/geom/winding/in-place-clip-equals-split")
{
    al_arena *a = al_arena_create(0);
    uint64_t s = 12345;
    int mismatches = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double n[3];
        for (int k = 0; k < 3; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            n[k] = (double) (s >> 11) / 9007199254740992.0 - 0.5;
        }
        al_normalize(n, n);
        al_winding *w = al_winding_base(a, n, 3);
        double m[3] = {n[1], -n[0] + 0.3, n[2] * 0.5};
        al_normalize(m, m);
        al_winding *f, *b;
        if (al_winding_split(a, w, m, 1.5, AL_ON_EPSILON, &f, &b) < 0) continue;
        double out[64][3];
        int count = al_points_clip((const double (*)[3]) w->points, w->count, m, 1.5,
                                   AL_ON_EPSILON, false, out, 64);
        if (!b) {
            mismatches += count != 0 && f != NULL;
            continue;
        }
        if (count != b->count) {
            mismatches++;
            continue;
        }
        for (int i = 0; i < count; i++)
            for (int k = 0; k < 3; k++)
                if (fabs(out[i][k] - b->points[i][k]) > 1e-9) mismatches++;
    }
    CHECK_MSG(mismatches == 0, "%d mismatches", mismatches);
    al_arena_destroy(a);
}

CHECK_TEST(arena_marks, "/core/arena/release-returns-memory-to-the-mark")
{
    al_arena *a = al_arena_create(1024);
    REQUIRE(a);
    void *x = al_arena_alloc(a, 100);
    al_arena_mark m = al_arena_get_mark(a);
    size_t used = al_arena_used(a);
    for (int i = 0; i < 100; i++) CHECK(al_arena_alloc(a, 900) != NULL);
    CHECK(al_arena_used(a) > used);
    al_arena_release(a, m);
    CHECK(al_arena_used(a) == used);
    void *y = al_arena_alloc(a, 10000); /* bigger than a chunk */
    CHECK(y != NULL && x != NULL);
    CHECK(((uintptr_t) y & 15) == 0);
    al_arena_destroy(a);
    al_arena_destroy(NULL);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
