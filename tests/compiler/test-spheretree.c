/* The sphere tree (al-spheretree.h): melds and swept-sphere impacts in closed form, and
 * the tree against brute force over thousands of random inserts, moves and removals.
 *
 * ALLIUM_TEST_SPHERES=N runs N random steps per oracle instead of 10,000 (for slow
 * sanitizer builds).
 */
#include "al-spheretree.h"
#include "check.h"
#include "al-vec3.h"
#include "al-oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double uniform(al_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * al_rng_uniform(rng);
}

static al_sphere sphere(double x, double y, double z, double r)
{
    return (al_sphere){{x, y, z}, r};
}

/* True if OUTER contains INNER up to TOL units. */
static bool contains(const al_sphere *outer, const al_sphere *inner, double tol)
{
    double d[3];
    al_sub(outer->center, inner->center, d);
    return al_length(d) + inner->radius <= outer->radius + tol;
}

/* --- meld ------------------------------------------------------------------------------- */

CHECK_TEST(meld_disjoint, "/spheretree/meld/disjoint-spheres-give-the-sphere-over-both-far-sides")
{
    al_sphere a = sphere(0, 0, 0, 1), b = sphere(10, 0, 0, 3), m;
    al_sphere_meld(&a, &b, &m);
    /* From x = -1 to x = 13: centre 6, radius 7. */
    CHECK_NEAR(m.radius, 7, 1e-12);
    CHECK_NEAR(m.center[0], 6, 1e-12);
    CHECK_NEAR(m.center[1], 0, 1e-12);
    CHECK_NEAR(m.center[2], 0, 1e-12);
    al_sphere_meld(&b, &a, &m); /* either order */
    CHECK_NEAR(m.radius, 7, 1e-12);
    CHECK_NEAR(m.center[0], 6, 1e-12);
    /* Overlapping, neither inside: (d + r1 + r2) / 2 along the diagonal. */
    a = sphere(1, 1, 1, 2);
    b = sphere(3, 3, 2, 2.5); /* d = 3 */
    al_sphere_meld(&a, &b, &m);
    CHECK_NEAR(m.radius, 3.75, 1e-12);
    /* centre = a + (b - a) / d * (r - ra) = a + (2, 2, 1) / 3 * 1.75 */
    CHECK_NEAR(m.center[0], 1 + 3.5 / 3, 1e-12);
    CHECK_NEAR(m.center[2], 1 + 1.75 / 3, 1e-12);
}

CHECK_TEST(meld_inside, "/spheretree/meld/a-sphere-inside-another-gives-the-outer-one")
{
    al_sphere big = sphere(5, 5, 5, 10), small = sphere(7, 3, 5, 2), m;
    al_sphere_meld(&big, &small, &m);
    CHECK(memcmp(&m, &big, sizeof m) == 0);
    al_sphere_meld(&small, &big, &m);
    CHECK(memcmp(&m, &big, sizeof m) == 0);
    /* Inside and touching the outer sphere from within. */
    small = sphere(13, 5, 5, 2);
    al_sphere_meld(&small, &big, &m);
    CHECK(memcmp(&m, &big, sizeof m) == 0);
    /* Same centre: the larger. */
    small = sphere(5, 5, 5, 0);
    al_sphere_meld(&small, &big, &m);
    CHECK(memcmp(&m, &big, sizeof m) == 0);
}

CHECK_TEST(meld_equal, "/spheretree/meld/equal-spheres-give-the-same-sphere")
{
    al_sphere a = sphere(-3, 2, 1e4, 7), m;
    al_sphere_meld(&a, &a, &m);
    CHECK(memcmp(&m, &a, sizeof m) == 0);
    /* Output aliasing an input. */
    al_sphere b = sphere(10, 2, 1e4, 7);
    al_sphere_meld(&a, &b, &a);
    CHECK_NEAR(a.radius, 13.5, 1e-9);
    CHECK_NEAR(a.center[0], 3.5, 1e-9);
    al_sphere c = sphere(0, 0, 0, 1);
    b = sphere(4, 0, 0, 1);
    al_sphere_meld(&c, &b, &b);
    CHECK_NEAR(b.radius, 3, 1e-12);
    CHECK_NEAR(b.center[0], 2, 1e-12);
}

CHECK_TEST(meld_touching, "/spheretree/meld/touching-spheres-give-their-combined-diameter")
{
    al_sphere a = sphere(0, 0, 0, 2), b = sphere(0, 5, 0, 3), m;
    al_sphere_meld(&a, &b, &m);
    CHECK_NEAR(m.radius, 5, 1e-12);
    CHECK_NEAR(m.center[1], 3, 1e-12);
    CHECK(!al_spheres_overlap(&a, &b)); /* touching is not overlapping */
    /* Points: the segment's midpoint. */
    a = sphere(0, 0, 0, 0);
    b = sphere(0, 0, 8, 0);
    al_sphere_meld(&a, &b, &m);
    CHECK_NEAR(m.radius, 4, 1e-12);
    CHECK_NEAR(m.center[2], 4, 1e-12);
}

CHECK_TEST(meld_random, "/spheretree/meld/random-melds-enclose-both-and-are-minimal")
{
    al_rng rng = {11};
    for (int i = 0; i < 100000; i++) {
        double scale = i % 2 ? 10 : 5000;
        al_sphere a = sphere(uniform(&rng, -scale, scale), uniform(&rng, -scale, scale),
                             uniform(&rng, -scale, scale), uniform(&rng, 0, scale));
        al_sphere b = sphere(a.center[0] + uniform(&rng, -scale, scale), a.center[1],
                             a.center[2] + uniform(&rng, -scale, scale), uniform(&rng, 0, scale));
        al_sphere m;
        al_sphere_meld(&a, &b, &m);
        double tol = 1e-12 * 4 * scale;
        REQUIRE_MSG(contains(&m, &a, tol) && contains(&m, &b, tol), "meld %d does not enclose", i);
        double d[3];
        al_sub(a.center, b.center, d);
        double dist = al_length(d);
        /* Minimal: the diameter along the centres' line, or the outer sphere. */
        double expect = fmax(0.5 * (dist + a.radius + b.radius), fmax(a.radius, b.radius));
        REQUIRE_MSG(fabs(m.radius - expect) <= tol, "meld %d radius %.17g, expected %.17g", i,
                    m.radius, expect);
    }
}

/* --- the tree against brute force ------------------------------------------------------- */

typedef struct pair_list {
    int (*pairs)[2];
    int count, capacity;
} pair_list;

static void add_pair(void *ctx, int a, int b)
{
    pair_list *l = ctx;
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 256;
        l->pairs = realloc(l->pairs, (size_t) l->capacity * sizeof *l->pairs);
        if (!l->pairs) abort();
    }
    l->pairs[l->count][0] = a < b ? a : b;
    l->pairs[l->count][1] = a < b ? b : a;
    l->count++;
}

static int compare_pairs(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* The objects a test keeps beside the tree: object I has user value I. */
typedef struct population {
    al_sphere *spheres;
    int *handles; /* -1: not in the tree */
    int capacity;
} population;

static void population_init(population *p, int capacity)
{
    p->spheres = calloc((size_t) capacity, sizeof *p->spheres);
    p->handles = malloc((size_t) capacity * sizeof *p->handles);
    if (!p->spheres || !p->handles) abort();
    for (int i = 0; i < capacity; i++) p->handles[i] = -1;
    p->capacity = capacity;
}

static void population_free(population *p)
{
    free(p->spheres);
    free(p->handles);
}

/* True if the tree's pairs are exactly the brute-force pairs of P; notes the first
 * difference. */
static bool pairs_match(const al_sphere_tree *tree, const population *p, int *pair_count)
{
    pair_list got = {0}, want = {0};
    bool ok = al_sphere_tree_pairs(tree, add_pair, &got) == AL_OK;
    for (int i = 0; i < p->capacity; i++) {
        if (p->handles[i] < 0) continue;
        for (int j = i + 1; j < p->capacity; j++)
            if (p->handles[j] >= 0 && al_spheres_overlap(&p->spheres[i], &p->spheres[j]))
                add_pair(&want, i, j);
    }
    if (got.count) qsort(got.pairs, (size_t) got.count, sizeof *got.pairs, compare_pairs);
    ok = ok && got.count == want.count;
    for (int i = 0; ok && i < got.count; i++) ok = !compare_pairs(got.pairs[i], want.pairs[i]);
    if (!ok) {
        check_note("tree gives %d pairs, brute force %d", got.count, want.count);
        for (int i = 0; i < got.count || i < want.count; i++) {
            bool same =
                i < got.count && i < want.count && !compare_pairs(got.pairs[i], want.pairs[i]);
            if (same) continue;
            check_note("first difference at %d: tree (%d,%d), brute force (%d,%d)", i,
                       i < got.count ? got.pairs[i][0] : -1, i < got.count ? got.pairs[i][1] : -1,
                       i < want.count ? want.pairs[i][0] : -1,
                       i < want.count ? want.pairs[i][1] : -1);
            break;
        }
    }
    *pair_count = want.count;
    free(got.pairs);
    free(want.pairs);
    return ok;
}

#define WORLD_SIZE 3000.0

static al_sphere random_sphere(al_rng *rng)
{
    /* Mostly agent-sized, some tiny and some large, in a box where a few hundred objects
     * make a few hundred pairs. */
    double u = al_rng_uniform(rng);
    double r = u < 0.05   ? uniform(rng, 0, 1)
               : u < 0.95 ? uniform(rng, 10, 60)
                          : uniform(rng, 100, 400);
    return sphere(uniform(rng, 0, WORLD_SIZE), uniform(rng, 0, WORLD_SIZE), uniform(rng, 0, 600),
                  r);
}

static int test_steps(void)
{
    const char *env = getenv("ALLIUM_TEST_SPHERES");
    int steps = env ? atoi(env) : 0;
    return steps > 0 ? steps : 10000;
}

/* Random steps over a population of 200 to 1000 objects: each step inserts one, removes
 * one, or moves up to eight (small steps, jumps of a few radii, teleports, new radii). The
 * structure is checked after every step, the pairs against brute force every 50 steps and
 * at the end. */
static void run_oracle(double margin, uint64_t seed)
{
    enum { MAX_OBJECTS = 1000 };
    al_sphere_tree *tree = al_sphere_tree_create(margin);
    REQUIRE(tree);
    al_rng rng = {seed};
    population p;
    population_init(&p, MAX_OBJECTS);
    int live = 0, reinserts = 0, moves = 0, pair_checks = 0, pairs_seen = 0;
    for (int i = 0; i < 600; i++) {
        p.spheres[i] = random_sphere(&rng);
        p.handles[i] = al_sphere_tree_insert(tree, &p.spheres[i], i);
        REQUIRE(p.handles[i] >= 0);
        live++;
    }
    int steps = test_steps();
    char why[200];
    bool ok = true;
    for (int step = 0; step < steps && ok; step++) {
        double u = al_rng_uniform(&rng);
        int pick = (int) (al_rng_uniform(&rng) * MAX_OBJECTS);
        if (u < 0.1 && live < MAX_OBJECTS) {
            while (p.handles[pick] >= 0) pick = (pick + 1) % MAX_OBJECTS;
            p.spheres[pick] = random_sphere(&rng);
            p.handles[pick] = al_sphere_tree_insert(tree, &p.spheres[pick], pick);
            REQUIRE(p.handles[pick] >= 0);
            live++;
        } else if (u < 0.2 && live > 200) {
            while (p.handles[pick] < 0) pick = (pick + 1) % MAX_OBJECTS;
            REQUIRE(al_sphere_tree_remove(tree, p.handles[pick]));
            REQUIRE(!al_sphere_tree_remove(tree, p.handles[pick])); /* no longer there */
            p.handles[pick] = -1;
            live--;
        } else {
            for (int k = 0; k < 8; k++) {
                while (p.handles[pick] < 0) pick = (pick + 1) % MAX_OBJECTS;
                al_sphere *s = &p.spheres[pick];
                double kind = al_rng_uniform(&rng), reach = kind < 0.7 ? 3 : 4 * s->radius + 20;
                if (kind < 0.97) {
                    for (int a = 0; a < 3; a++) s->center[a] += uniform(&rng, -reach, reach);
                } else {
                    *s = random_sphere(&rng);
                }
                if (kind > 0.9) s->radius *= uniform(&rng, 0.5, 1.5);
                reinserts += al_sphere_tree_move(tree, p.handles[pick], s);
                moves++;
                pick = (int) (al_rng_uniform(&rng) * MAX_OBJECTS);
            }
        }
        ok = al_sphere_tree_check(tree, why, sizeof why);
        CHECK_MSG(ok, "step %d: %s", step, why);
        ok = ok && al_sphere_tree_count(tree) == live;
        if (ok && (step % 50 == 49 || step == steps - 1)) {
            int pair_count;
            ok = pairs_match(tree, &p, &pair_count);
            CHECK_MSG(ok, "step %d: the pairs differ from brute force", step);
            pair_checks++;
            pairs_seen += pair_count;
        }
    }
    /* Every object is where the tree says. */
    for (int i = 0; i < MAX_OBJECTS && ok; i++) {
        if (p.handles[i] < 0) continue;
        al_sphere s;
        int user;
        CHECK(al_sphere_tree_get(tree, p.handles[i], &s, &user) && user == i &&
              memcmp(&s, &p.spheres[i], sizeof s) == 0);
    }
    check_note("margin %g: %d steps, %d moves (%d re-inserted), %d pair checks, %.0f pairs on "
               "average",
               margin, steps, moves, reinserts, pair_checks,
               pair_checks ? (double) pairs_seen / pair_checks : 0.0);
    CHECK(pair_checks > 0 && pairs_seen > pair_checks); /* the scene has pairs to find */
    population_free(&p);
    al_sphere_tree_destroy(tree);
}

CHECK_TEST(oracle_exact, "/spheretree/oracle/random-edits-with-exact-leaves-match-brute-force")
{
    run_oracle(0, 1);
}

CHECK_TEST(oracle_fat, "/spheretree/oracle/random-edits-with-fat-leaves-match-brute-force")
{
    run_oracle(16, 2);
}

/* A tree of COUNT random spheres (user = index) and the population beside it. */
static al_sphere_tree *random_tree(int count, double margin, al_rng *rng, population *p)
{
    population_init(p, count);
    al_sphere_tree *tree = al_sphere_tree_create(margin);
    if (!tree) return NULL;
    for (int i = 0; i < count; i++) {
        p->spheres[i] = random_sphere(rng);
        p->handles[i] = al_sphere_tree_insert(tree, &p->spheres[i], i);
        if (p->handles[i] < 0) return tree;
    }
    return tree;
}

typedef struct user_list {
    int users[2000];
    int count;
} user_list;

static void add_user(void *ctx, int user)
{
    user_list *l = ctx;
    if (l->count < 2000) l->users[l->count++] = user;
}

static int compare_ints(const void *x, const void *y)
{
    int a = *(const int *) x, b = *(const int *) y;
    return (a > b) - (a < b);
}

CHECK_TEST(query_oracle, "/spheretree/query/objects-overlapping-a-sphere-match-brute-force")
{
    al_rng rng = {5};
    population p;
    al_sphere_tree *tree = random_tree(800, 8, &rng, &p);
    REQUIRE(tree && al_sphere_tree_count(tree) == 800);
    int found = 0;
    for (int q = 0; q < 500; q++) {
        al_sphere s = random_sphere(&rng);
        if (q % 5 == 0) s.radius *= 4;
        if (q % 7 == 0) s = p.spheres[q]; /* an object's own sphere finds it */
        user_list got = {.count = 0}, want = {.count = 0};
        al_sphere_tree_query(tree, &s, add_user, &got);
        for (int i = 0; i < p.capacity; i++)
            if (al_spheres_overlap(&p.spheres[i], &s)) add_user(&want, i);
        qsort(got.users, (size_t) got.count, sizeof(int), compare_ints);
        REQUIRE_MSG(got.count == want.count &&
                        !memcmp(got.users, want.users, sizeof(int) * (size_t) got.count),
                    "query %d: %d objects, brute force %d", q, got.count, want.count);
        found += got.count;
    }
    CHECK(found > 500);
    al_sphere_tree_destroy(tree);
    population_free(&p);
}

/* The entry of the ray O + t * D into S for t in [0, MAX_T] (0 inside), or -1. */
static double brute_ray_sphere(const double o[3], const double d[3], double max_t,
                               const al_sphere *s)
{
    double m[3];
    al_sub(o, s->center, m);
    double a = al_dot(d, d), b = al_dot(m, d), c = al_dot(m, m) - s->radius * s->radius;
    if (c <= 0) return 0;
    if (a == 0 || b * b - a * c < 0) return -1;
    double t = (-b - sqrt(b * b - a * c)) / a;
    return t >= 0 && t <= max_t ? t : -1;
}

/* A narrow phase: the cube inscribed in the object's sphere (slabs). */
typedef struct box_ctx {
    const population *p;
    const double *origin, *dir;
    int calls;
} box_ctx;

static bool hit_inscribed_box(void *ctx, int user, double *t)
{
    box_ctx *c = ctx;
    c->calls++;
    const al_sphere *s = &c->p->spheres[user];
    double h = s->radius / sqrt(3.0), enter = 0, leave = INFINITY;
    for (int k = 0; k < 3; k++) {
        double lo = s->center[k] - h - c->origin[k], hi = s->center[k] + h - c->origin[k];
        if (c->dir[k] == 0) {
            if (lo > 0 || hi < 0) return false;
            continue;
        }
        double t0 = lo / c->dir[k], t1 = hi / c->dir[k];
        if (t0 > t1) {
            double x = t0;
            t0 = t1;
            t1 = x;
        }
        enter = fmax(enter, t0);
        leave = fmin(leave, t1);
    }
    if (enter > leave) return false;
    *t = enter;
    return true;
}

CHECK_TEST(ray_oracle,
           "/spheretree/ray/nearest-hit-matches-brute-force-with-and-without-narrow-phase")
{
    al_rng rng = {9};
    population p;
    al_sphere_tree *tree = random_tree(800, 4, &rng, &p);
    REQUIRE(tree && al_sphere_tree_count(tree) == 800);
    int hits = 0, narrow_calls = 0;
    for (int q = 0; q < 2000; q++) {
        double o[3] = {uniform(&rng, -200, WORLD_SIZE + 200), uniform(&rng, -200, WORLD_SIZE + 200),
                       uniform(&rng, -100, 700)};
        double d[3] = {uniform(&rng, -1, 1), uniform(&rng, -1, 1), uniform(&rng, -0.3, 0.3)};
        if (q % 50 == 0) al_set(0, 0, 0, d);
        if (q % 13 == 0) al_copy(p.spheres[q % 800].center, o); /* starts inside */
        double max_t = q % 3 ? 4000 : uniform(&rng, 0, 800);
        bool narrow = q % 2;
        box_ctx c = {&p, o, d, 0};
        al_sphere_hit hit;
        REQUIRE(al_sphere_tree_ray(tree, o, d, max_t, narrow ? hit_inscribed_box : NULL, &c,
                                   &hit) == AL_OK);
        narrow_calls += c.calls;
        double best = INFINITY;
        int best_user = -1;
        for (int i = 0; i < p.capacity; i++) {
            double t = brute_ray_sphere(o, d, max_t, &p.spheres[i]);
            if (t >= 0 && narrow && !(hit_inscribed_box(&c, i, &t) && t <= max_t)) t = -1;
            if (t >= 0 && t < best) best = t, best_user = i;
        }
        REQUIRE_MSG(hit.hit == (best_user >= 0), "ray %d: tree %s, brute force %s", q,
                    hit.hit ? "hits" : "misses", best_user >= 0 ? "hits" : "misses");
        if (!hit.hit) continue;
        hits++;
        CHECK_MSG(fabs(hit.t - best) <= 1e-9 * (1 + best), "ray %d: t %.17g, brute force %.17g", q,
                  hit.t, best);
        CHECK_MSG(hit.user == best_user || fabs(hit.t - best) <= 1e-9 * (1 + best),
                  "ray %d hits %d, brute force %d", q, hit.user, best_user);
        CHECK(hit.handle == p.handles[hit.user]);
    }
    check_note("%d of 2000 rays hit; %d narrow-phase calls for 1000 rays", hits, narrow_calls);
    CHECK(hits > 500);
    /* Nearest first: far fewer box tests than objects in reach. */
    CHECK(narrow_calls < 1000 * 20);
    al_sphere_tree_destroy(tree);
    population_free(&p);
}

/* --- small cases ------------------------------------------------------------------------ */

CHECK_TEST(move_fat, "/spheretree/move/moves-inside-the-fat-sphere-keep-the-tree")
{
    al_sphere_tree *tree = al_sphere_tree_create(8);
    REQUIRE(tree);
    al_sphere a = sphere(0, 0, 0, 16), b = sphere(100, 0, 0, 16), c = sphere(0, 300, 0, 16);
    int ha = al_sphere_tree_insert(tree, &a, 1), hb = al_sphere_tree_insert(tree, &b, 2);
    int hc = al_sphere_tree_insert(tree, &c, 3);
    REQUIRE(ha >= 0 && hb >= 0 && hc >= 0 && ha != hb && hb != hc);
    /* 1 unit a step: seven steps stay within the 8-unit margin. */
    for (int i = 1; i <= 7; i++) {
        a.center[0] = -i;
        CHECK(!al_sphere_tree_move(tree, ha, &a));
    }
    /* Far away: out of the fat sphere and the parent's. */
    a.center[0] = -5000;
    CHECK(al_sphere_tree_move(tree, ha, &a));
    CHECK(al_sphere_tree_check(tree, NULL, 0));
    al_sphere got;
    int user;
    CHECK(al_sphere_tree_get(tree, ha, &got, &user) && user == 1 && got.center[0] == -5000);
    /* Exact leaves re-insert as soon as an object leaves its tangent parent sphere. */
    al_sphere_tree *exact = al_sphere_tree_create(0);
    REQUIRE(exact);
    a = sphere(0, 0, 0, 16);
    ha = al_sphere_tree_insert(exact, &a, 1);
    al_sphere_tree_insert(exact, &b, 2);
    al_sphere_tree_insert(exact, &c, 3);
    CHECK(!al_sphere_tree_move(exact, ha, &a)); /* not moving at all */
    a.center[0] = -1;
    CHECK(al_sphere_tree_move(exact, ha, &a));
    CHECK(al_sphere_tree_check(exact, NULL, 0));
    al_sphere_tree_destroy(exact);
    al_sphere_tree_destroy(tree);
}

CHECK_TEST(remove_all, "/spheretree/remove/removing-every-object-in-any-order-empties-the-tree")
{
    al_rng rng = {3};
    al_sphere_tree *tree = al_sphere_tree_create(2);
    REQUIRE(tree);
    int handles[300];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 300; i++) {
            al_sphere s = random_sphere(&rng);
            handles[i] = al_sphere_tree_insert(tree, &s, i);
            REQUIRE(handles[i] >= 0);
        }
        for (int i = 299; i > 0; i--) { /* shuffle */
            int j = (int) (al_rng_uniform(&rng) * (i + 1)), x = handles[i];
            handles[i] = handles[j];
            handles[j] = x;
        }
        char why[200];
        for (int i = 0; i < 300; i++) {
            REQUIRE(al_sphere_tree_remove(tree, handles[i]));
            REQUIRE_MSG(al_sphere_tree_check(tree, why, sizeof why), "after %d removals: %s", i + 1,
                        why);
        }
        CHECK(al_sphere_tree_count(tree) == 0);
        pair_list pairs = {0};
        CHECK(al_sphere_tree_pairs(tree, add_pair, &pairs) == AL_OK && pairs.count == 0);
    }
    al_sphere_tree_destroy(tree);
}

CHECK_TEST(bad_input, "/spheretree/bad-input-is-refused-and-changes-nothing")
{
    CHECK(!al_sphere_tree_create(-1));
    CHECK(!al_sphere_tree_create(NAN));
    CHECK(!al_sphere_tree_create(INFINITY));
    al_sphere_tree_destroy(NULL);
    al_sphere_tree *tree = al_sphere_tree_create(0);
    REQUIRE(tree);
    al_sphere good = sphere(1, 2, 3, 4), nan_center = sphere(NAN, 0, 0, 1);
    al_sphere negative = sphere(0, 0, 0, -1), infinite = sphere(0, 0, 0, INFINITY);
    CHECK(al_sphere_tree_insert(tree, &nan_center, 0) == -1);
    CHECK(al_sphere_tree_insert(tree, &negative, 0) == -1);
    CHECK(al_sphere_tree_insert(tree, &infinite, 0) == -1);
    al_sphere huge = sphere(0, 2e30, 0, 1); /* beyond what the tree's floats hold */
    CHECK(al_sphere_tree_insert(tree, &huge, 0) == -1);
    CHECK(al_sphere_tree_insert(tree, NULL, 0) == -1);
    CHECK(al_sphere_tree_count(tree) == 0);
    int h = al_sphere_tree_insert(tree, &good, 7);
    REQUIRE(h >= 0);
    CHECK(!al_sphere_tree_move(tree, h, &nan_center));
    CHECK(!al_sphere_tree_move(tree, h + 1, &good));
    CHECK(!al_sphere_tree_move(tree, -5, &good));
    CHECK(!al_sphere_tree_remove(tree, 12345));
    al_sphere s;
    CHECK(al_sphere_tree_get(tree, h, &s, NULL) && memcmp(&s, &good, sizeof s) == 0);
    CHECK(al_sphere_tree_check(tree, NULL, 0) && al_sphere_tree_count(tree) == 1);
    /* A lone object: no pairs; the query and ray find it. */
    pair_list pairs = {0};
    CHECK(al_sphere_tree_pairs(tree, add_pair, &pairs) == AL_OK && pairs.count == 0);
    user_list users = {.count = 0};
    al_sphere_tree_query(tree, &good, add_user, &users);
    CHECK(users.count == 1 && users.users[0] == 7);
    double o[3] = {1, 2, -10}, d[3] = {0, 0, 1};
    al_sphere_hit hit;
    CHECK(al_sphere_tree_ray(tree, o, d, 100, NULL, NULL, &hit) == AL_OK && hit.hit &&
          hit.user == 7 && hit.handle == h);
    CHECK_NEAR(hit.t, 9, 1e-12);
    CHECK(al_sphere_tree_ray(tree, o, d, 8.5, NULL, NULL, &hit) == AL_OK && !hit.hit);
    CHECK(al_sphere_tree_ray(tree, o, d, NAN, NULL, NULL, &hit) == AL_OK && !hit.hit);
    /* NULL trees answer nothing. */
    CHECK(al_sphere_tree_count(NULL) == 0);
    CHECK(al_sphere_tree_insert(NULL, &good, 0) == -1);
    CHECK(!al_sphere_tree_remove(NULL, 0));
    CHECK(!al_sphere_tree_check(NULL, NULL, 0));
    al_sphere_tree_destroy(tree);
}

/* A narrow phase that hits only object 777, 10 units into the spheres of the test below. */
static bool hit_only_777(void *ctx, int user, double *t)
{
    (void) ctx;
    *t = 530;
    return user == 777;
}

static bool hit_nothing(void *ctx, int user, double *t)
{
    (void) ctx, (void) user, (void) t;
    return false;
}

/* A thousand spheres at one point: insertion makes a chain a thousand deep, every pair
 * overlaps, and a ray's heap holds half the tree. */
CHECK_TEST(coincident, "/spheretree/degenerate/a-thousand-coincident-spheres-make-every-pair")
{
    al_sphere_tree *tree = al_sphere_tree_create(1);
    REQUIRE(tree);
    al_sphere s = sphere(100, -200, 50, 30);
    for (int i = 0; i < 1000; i++) REQUIRE(al_sphere_tree_insert(tree, &s, i) >= 0);
    char why[200];
    for (int round = 0; round < 2; round++) {
        CHECK_MSG(al_sphere_tree_check(tree, why, sizeof why), "%s", why);
        pair_list pairs = {0};
        CHECK(al_sphere_tree_pairs(tree, add_pair, &pairs) == AL_OK);
        CHECK(pairs.count == 1000 * 999 / 2);
        if (pairs.count)
            qsort(pairs.pairs, (size_t) pairs.count, sizeof *pairs.pairs, compare_pairs);
        bool distinct = true;
        for (int i = 1; i < pairs.count; i++)
            distinct = distinct && compare_pairs(pairs.pairs[i - 1], pairs.pairs[i]) < 0;
        CHECK(distinct);
        free(pairs.pairs);
        user_list users = {.count = 0};
        al_sphere_tree_query(tree, &s, add_user, &users);
        CHECK(users.count == 1000);
        double o[3] = {100, -200, -500}, d[3] = {0, 0, 1};
        al_sphere_hit hit;
        CHECK(al_sphere_tree_ray(tree, o, d, 1000, hit_only_777, NULL, &hit) == AL_OK && hit.hit &&
              hit.user == 777 && hit.t == 530);
        CHECK(al_sphere_tree_ray(tree, o, d, 1000, hit_nothing, NULL, &hit) == AL_OK && !hit.hit);
        CHECK(al_sphere_tree_ray(tree, o, d, 1000, NULL, NULL, &hit) == AL_OK && hit.hit);
        CHECK_NEAR(hit.t, 520, 1e-9);
        REQUIRE(al_sphere_tree_rebuild(tree) == AL_OK); /* and again, balanced */
    }
    al_sphere_tree_destroy(tree);
}

CHECK_TEST(rebuild_keeps_handles, "/spheretree/rebuild/keeps-handles-and-answers")
{
    al_rng rng = {17};
    population p;
    al_sphere_tree *tree = random_tree(700, 8, &rng, &p);
    REQUIRE(tree && al_sphere_tree_count(tree) == 700);
    int before;
    CHECK(pairs_match(tree, &p, &before));
    REQUIRE(al_sphere_tree_rebuild(tree) == AL_OK);
    char why[200];
    CHECK_MSG(al_sphere_tree_check(tree, why, sizeof why), "%s", why);
    int after;
    CHECK(pairs_match(tree, &p, &after) && after == before);
    /* Handles still name their objects, and moving and removing them still works. */
    for (int i = 0; i < 700; i += 7) {
        al_sphere s;
        int user;
        CHECK(al_sphere_tree_get(tree, p.handles[i], &s, &user) && user == i);
        p.spheres[i].center[0] += 40;
        al_sphere_tree_move(tree, p.handles[i], &p.spheres[i]);
        if (i % 2) {
            CHECK(al_sphere_tree_remove(tree, p.handles[i]));
            p.handles[i] = -1;
        }
    }
    CHECK_MSG(al_sphere_tree_check(tree, why, sizeof why), "%s", why);
    CHECK(pairs_match(tree, &p, &after));
    al_sphere_tree_destroy(tree);
    population_free(&p);
}

/* --- swept sphere against a plane ------------------------------------------------------- */

static const double up[3] = {0, 0, 1};

CHECK_TEST(toi_closed_form, "/spheretree/toi/falling-sphere-touches-at-one-radius-above-the-plane")
{
    double p0[3] = {0, 0, 5}, p1[3] = {0, 0, -5}, at[3], u;
    CHECK(al_sphere_plane_toi(p0, p1, 1, up, 0, &u, at));
    CHECK_NEAR(u, 0.4, 1e-15); /* (5 - 1) / (5 - -5) */
    CHECK_NEAR(at[2], 1, 1e-15);
    /* A raised plane z = 2 and a slanted path. */
    double q0[3] = {-3, 1, 10}, q1[3] = {5, 1, 0};
    CHECK(al_sphere_plane_toi(q0, q1, 2, up, 2, &u, at));
    CHECK_NEAR(u, 0.6, 1e-15); /* D0 = 8, D1 = -2: (8 - 2) / 10 */
    CHECK_NEAR(at[0], -3 + 0.6 * 8, 1e-12);
    CHECK_NEAR(at[2], 4, 1e-12);
    /* A tilted plane: x + y = 0 through the origin, the sphere coming along -x. */
    double n[3] = {sqrt(0.5), sqrt(0.5), 0}, r0[3] = {10, 0, 0}, r1[3] = {-10, 0, 0};
    CHECK(al_sphere_plane_toi(r0, r1, 1, n, 0, &u, at));
    /* D = x / sqrt(2): touches at x = sqrt(2). */
    CHECK_NEAR(at[0], sqrt(2.0), 1e-12);
    CHECK_NEAR(u, (10 - sqrt(2.0)) / 20, 1e-15);
    /* Reaching the plane exactly at the end counts (U = 1). */
    double s0[3] = {0, 0, 5}, s1[3] = {0, 0, 1};
    CHECK(al_sphere_plane_toi(s0, s1, 1, up, 0, &u, at));
    CHECK(u == 1 && at[2] == 1);
}

CHECK_TEST(toi_back, "/spheretree/toi/from-behind-the-plane-the-radius-counts-on-the-back")
{
    double p0[3] = {0, 0, -5}, p1[3] = {0, 0, 5}, at[3], u;
    CHECK(al_sphere_plane_toi(p0, p1, 1, up, 0, &u, at));
    CHECK_NEAR(u, 0.4, 1e-15); /* (-5 - -1) / (-5 - 5) */
    CHECK_NEAR(at[2], -1, 1e-15);
    /* Behind and moving further back: nothing. */
    double q1[3] = {0, 0, -9};
    CHECK(!al_sphere_plane_toi(p0, q1, 1, up, 0, &u, at));
    CHECK(u == 1 && at[2] == -9);
}

CHECK_TEST(toi_singular, "/spheretree/toi/no-motion-start-contact-moving-away-and-too-short-moves")
{
    double at[3], u;
    /* No relative motion: moving parallel to the plane (D0 == D1), no division by zero. */
    double a0[3] = {0, 0, 5}, a1[3] = {30, -4, 5};
    CHECK(!al_sphere_plane_toi(a0, a1, 1, up, 0, &u, at));
    CHECK(u == 1 && at[0] == 30 && at[2] == 5);
    CHECK(!al_sphere_plane_toi(a0, a0, 1, up, 0, &u, at)); /* not moving at all */
    /* Touching at the start: U = 0 even when moving parallel or away. */
    double b0[3] = {1, 2, 1}, b1[3] = {1, 2, 7}, b2[3] = {9, 2, 1};
    CHECK(al_sphere_plane_toi(b0, b1, 1, up, 0, &u, at));
    CHECK(u == 0 && at[0] == 1 && at[2] == 1);
    CHECK(al_sphere_plane_toi(b0, b2, 1, up, 0, &u, at) && u == 0);
    /* Overlapping at the start, from either side. */
    double c0[3] = {0, 0, 0.5}, c1[3] = {0, 0, -0.25};
    CHECK(al_sphere_plane_toi(c0, b1, 1, up, 0, &u, at) && u == 0 && at[2] == 0.5);
    CHECK(al_sphere_plane_toi(c1, b1, 1, up, 0, &u, at) && u == 0 && at[2] == -0.25);
    /* Moving away from the front. */
    double d0[3] = {0, 0, 3}, d1[3] = {0, 0, 9};
    CHECK(!al_sphere_plane_toi(d0, d1, 1, up, 0, &u, at));
    /* Approaching but stopping short (U would be past 1). */
    double e1[3] = {0, 0, 1.5};
    CHECK(!al_sphere_plane_toi(d0, e1, 1, up, 0, &u, at));
    CHECK(u == 1 && at[2] == 1.5);
    /* Zero radius: a point crossing. */
    double f1[3] = {0, 0, -1};
    CHECK(al_sphere_plane_toi(d0, f1, 0, up, 0, &u, at));
    CHECK_NEAR(u, 0.75, 1e-15);
    /* Not finite or a negative radius: nothing. */
    double g0[3] = {NAN, 0, 0};
    CHECK(!al_sphere_plane_toi(g0, f1, 1, up, 0, &u, at));
    CHECK(!al_sphere_plane_toi(d0, f1, -1, up, 0, &u, at));
    CHECK(!al_sphere_plane_toi(d0, f1, INFINITY, up, 0, &u, at));
    /* AT aliasing P0. */
    double h0[3] = {0, 0, 5}, h1[3] = {0, 0, -5};
    CHECK(al_sphere_plane_toi(h0, h1, 1, up, 0, &u, h0));
    CHECK_NEAR(h0[2], 1, 1e-15);
}

CHECK_TEST(toi_random, "/spheretree/toi/random-sweeps-touch-first-at-u-and-never-before")
{
    al_rng rng = {21};
    int hits = 0;
    for (int i = 0; i < 20000; i++) {
        double n[3] = {uniform(&rng, -1, 1), uniform(&rng, -1, 1), uniform(&rng, -1, 1)};
        if (al_normalize(n, n) < 1e-3) continue;
        double p0[3], p1[3], r = uniform(&rng, 0, 30), dist = uniform(&rng, -50, 50);
        for (int k = 0; k < 3; k++)
            p0[k] = uniform(&rng, -100, 100), p1[k] = uniform(&rng, -100, 100);
        double at[3], u;
        bool hit = al_sphere_plane_toi(p0, p1, r, n, dist, &u, at);
        double d0 = al_dot(n, p0) - dist;
        REQUIRE(u >= 0 && u <= 1);
        if (hit) {
            hits++;
            double at_d = al_dot(n, at) - dist;
            /* Touching at U (or already at the start), clear before. */
            REQUIRE_MSG(u == 0 ? fabs(d0) <= r : fabs(fabs(at_d) - r) < 1e-9,
                        "sweep %d: U %.17g, distance at impact %.17g, radius %g", i, u, at_d, r);
        }
        for (int s = 0; s < 16; s++) {
            double v = (hit ? u : 1) * s / 16.0, p[3];
            al_lerp(p0, p1, v, p);
            REQUIRE_MSG(fabs(al_dot(n, p) - dist) > r - 1e-9 || (hit && u == 0),
                        "sweep %d touches at %g before U %g", i, v, hit ? u : 1.0);
        }
    }
    CHECK(hits > 1000 && hits < 19000);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
