/* Brushes: validation with diagnostics, bevels and Minkowski expansion. */
#include "brush/brush.h"
#include "brush/expand.h"
#include "check.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "mapgen.h"
#include "scene.h"
#include "al-oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One-brush input built from faces given as point triples. */
typedef struct one_brush {
    al_face_desc faces[16];
    al_brush_desc brush;
    al_entity_desc entity;
    al_material_desc material;
    al_input input;
} one_brush;

static void one_brush_init(one_brush *o, int count, const double (*pts)[3][3])
{
    memset(o, 0, sizeof *o);
    for (int f = 0; f < count; f++) {
        memcpy(o->faces[f].points, pts[f], sizeof o->faces[f].points);
        o->faces[f].material = 0;
    }
    o->brush = (al_brush_desc){.entity = 0, .index = 7, .first_face = 0, .face_count = count,
                               .line = 42};
    o->entity.classname = "worldspawn";
    o->material.name = "stone";
    o->input = (al_input){.materials = &o->material, .material_count = 1,
                          .entities = &o->entity, .entity_count = 1, .brushes = &o->brush,
                          .brush_count = 1, .faces = o->faces, .face_count = count};
}

/* Builds the brush; returns it or NULL with the diagnostic in DIAGS. */
static al_brush *build(one_brush *o, al_arena *arena, al_plane_table *planes, al_diag_list *diags)
{
    bool nomem;
    return al_brush_build(arena, planes, &o->input, 0, diags, &nomem);
}

/* The six faces of a box, as point triples (outward by construction). */
static void box_faces(double x0, double y0, double z0, double x1, double y1, double z1,
                      double f[6][3][3])
{
    const double t[6][3][3] = {
        {{x0, y0, z0}, {x0, y0, z1}, {x0, y1, z1}}, /* -x */
        {{x1, y1, z0}, {x1, y1, z1}, {x1, y0, z1}}, /* +x */
        {{x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1}}, /* -y */
        {{x0, y1, z0}, {x0, y1, z1}, {x1, y1, z1}}, /* +y */
        {{x0, y1, z0}, {x1, y1, z0}, {x1, y0, z0}}, /* -z */
        {{x0, y0, z1}, {x1, y0, z1}, {x1, y1, z1}}, /* +z */
    };
    /* Written as (p0, p1, p2) counter-clockwise seen from outside; the format wants the
     * other order (normal = (p0 - p1) x (p2 - p1) pointing out), so swap p0 and p2. */
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 3; k++) {
            f[i][0][k] = t[i][2][k];
            f[i][1][k] = t[i][1][k];
            f[i][2][k] = t[i][0][k];
        }
}

typedef struct fixture {
    al_arena *arena;
    al_plane_table planes;
    al_diag_list diags;
} fixture;

static void fixture_init(fixture *f)
{
    f->arena = al_arena_create(0);
    al_plane_table_init(&f->planes);
    memset(&f->diags, 0, sizeof f->diags);
}

static void fixture_free(fixture *f)
{
    al_arena_destroy(f->arena);
    al_plane_table_free(&f->planes);
    al_diag_list_clear(&f->diags);
}

static bool last_message_has(const fixture *f, const char *text)
{
    if (f->diags.count == 0) return false;
    const al_diag *d = &f->diags.items[f->diags.count - 1];
    return strstr(d->message, text) != NULL && d->entity == 0 && d->brush == 7 && d->line == 42;
}

CHECK_TEST(box_brush, "/brush/box-has-six-faces-its-bounds-and-volume")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 64, 32, 16, f);
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    al_brush *b = build(&o, fx.arena, &fx.planes, &fx.diags);
    REQUIRE(b);
    CHECK(b->side_count == 6);
    CHECK(fx.diags.count == 0);
    CHECK_NEAR(al_brush_volume(&fx.planes, b->sides, b->side_count), 64 * 32 * 16, 1e-6);
    CHECK(b->mins[0] == 0 && b->maxs[0] == 64 && b->maxs[2] == 16);
    for (int s = 0; s < 6; s++) {
        const al_plane *p = &fx.planes.planes[b->sides[s].plane];
        CHECK(p->type < AL_PLANE_ANY);
        CHECK(al_winding_max_plane_error(b->sides[s].winding, p->normal, p->dist) < 1e-9);
    }
    fixture_free(&fx);
}

CHECK_TEST(reject_few_faces, "/brush/invalid/fewer-than-four-faces")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    one_brush o;
    one_brush_init(&o, 3, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "at least 4"));
    fixture_free(&fx);
}

CHECK_TEST(reject_unbounded, "/brush/invalid/unbounded")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    one_brush o;
    one_brush_init(&o, 5, (const double (*)[3][3]) f); /* no top face */
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "unbounded"));
    fixture_free(&fx);
}

CHECK_TEST(duplicate_plane, "/brush/duplicate-plane-face-is-ignored-with-a-warning")
{
    fixture fx;
    fixture_init(&fx);
    double f[7][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    /* The same plane again, as in dm2.map's brush 500. */
    memcpy(f[6], f[2], sizeof f[2]);
    one_brush o;
    one_brush_init(&o, 7, (const double (*)[3][3]) f);
    al_brush *b = build(&o, fx.arena, &fx.planes, &fx.diags);
    REQUIRE(b);
    CHECK(b->side_count == 6);
    CHECK(last_message_has(&fx, "duplicate plane"));
    CHECK(fx.diags.items[fx.diags.count - 1].face == 6);
    CHECK(fx.diags.items[fx.diags.count - 1].severity == AL_SEVERITY_WARNING);
    fixture_free(&fx);
}

CHECK_TEST(reject_opposite, "/brush/invalid/opposite-planes-zero-thickness")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3], flat[6][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    box_faces(0, 0, 0, 8, 8, 0, flat);
    memcpy(f[5], flat[5], sizeof f[5]); /* the top face brought down onto z = 0 */
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "zero thickness"));
    fixture_free(&fx);
}

CHECK_TEST(reject_no_volume, "/brush/invalid/no-volume")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 8, 8, 1e-7, f); /* thinner than the on-plane tolerance */
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(fx.diags.count == 1);
    fixture_free(&fx);
}

CHECK_TEST(reject_collinear, "/brush/invalid/face-points-collinear")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    double bad[3][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}};
    memcpy(f[3], bad, sizeof bad);
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "collinear"));
    CHECK(fx.diags.items[fx.diags.count - 1].face == 3);
    fixture_free(&fx);
}

CHECK_TEST(reject_nan_and_huge, "/brush/invalid/nan-and-huge-coordinates")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    f[1][2][0] = NAN;
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "not a finite number"));
    box_faces(0, 0, 0, 8, 8, 1e9, f);
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    CHECK(last_message_has(&fx, "beyond the limit"));
    box_faces(0, 0, 0, 8, 8, INFINITY, f);
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    CHECK(build(&o, fx.arena, &fx.planes, &fx.diags) == NULL);
    fixture_free(&fx);
}

CHECK_TEST(redundant_face_warns, "/brush/face-not-touching-is-ignored-with-a-warning")
{
    fixture fx;
    fixture_init(&fx);
    double f[7][3][3];
    box_faces(0, 0, 0, 8, 8, 8, f);
    double g[6][3][3];
    box_faces(0, 0, 0, 8, 8, 100, g);
    memcpy(f[6], g[5], sizeof g[5]); /* a second top face far above */
    one_brush o;
    one_brush_init(&o, 7, (const double (*)[3][3]) f);
    al_brush *b = build(&o, fx.arena, &fx.planes, &fx.diags);
    REQUIRE(b);
    CHECK(b->side_count == 6);
    REQUIRE(fx.diags.count == 1);
    CHECK(fx.diags.items[0].severity == AL_SEVERITY_WARNING && fx.diags.items[0].face == 6);
    fixture_free(&fx);
}

CHECK_TEST(compile_goes_on, "/brush/invalid-brushes-are-left-out-and-the-compile-goes-on")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, 0, 0, 0, 64, 64, 64, "stone");
    mapgen_box(g, 100, 0, 0, 164, 64, 0, "broken"); /* zero thickness */
    mapgen_box(g, 200, 0, 0, 264, 64, 64, "stone");
    mapgen_end_entity(g);
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene s;
    REQUIRE(scene_load_text(&s, text, len, NULL));
    al_world_stats st;
    al_world_get_stats(s.world, &st);
    CHECK(st.valid_brushes == 2 && st.invalid_brushes == 1);
    const al_diag_list *d = al_world_diagnostics(s.world);
    REQUIRE(d->count >= 1);
    CHECK(d->items[0].entity == 0 && d->items[0].brush == 1);
    CHECK(d->items[0].line > 0); /* the brush's line in the text */
    CHECK(al_world_point_solid(s.world, 0, (double[3]){32, 32, 32}));
    CHECK(al_world_point_solid(s.world, 0, (double[3]){232, 32, 32}));
    scene_free(&s);
    mapgen_destroy(g);
}

CHECK_TEST(expand_box, "/expand/box-grows-by-the-mirrored-hull-box")
{
    fixture fx;
    fixture_init(&fx);
    double f[6][3][3];
    box_faces(0, 0, 0, 64, 64, 64, f);
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    al_brush *b = build(&o, fx.arena, &fx.planes, &fx.diags);
    REQUIRE(b);
    double mins[3] = {-16, -16, -24}, maxs[3] = {16, 16, 32};
    al_brush *e = al_brush_expand(fx.arena, &fx.planes, b, mins, maxs);
    REQUIRE(e);
    CHECK(e->side_count == 6); /* a box needs no bevels */
    /* The origin collides when origin + [mins, maxs] meets the box. */
    CHECK(e->mins[0] == -16 && e->maxs[0] == 80);
    CHECK(e->mins[2] == -32 && e->maxs[2] == 88);
    CHECK(al_brush_expand(fx.arena, &fx.planes, b, (double[3]){0, 0, 0}, (double[3]){0, 0, 0}) == b);
    fixture_free(&fx);
}

/* A sharp wedge, as in q1_hull_expansion.map: without edge bevels the expanded tip reaches
 * far beyond the true Minkowski sum. */
CHECK_TEST(expand_sharp_wedge, "/expand/sharp-wedge-gets-bevels-and-an-exact-tip")
{
    fixture fx;
    fixture_init(&fx);
    /* Footprint: a thin triangle pointing along +x, 10 degrees wide, extruded in z. */
    double tip = 512, half = 512 * tan(5 * M_PI / 180);
    double face[5][3][3] = {
        {{0, -half, 0}, {tip, 0, 0}, {tip, 0, 64}},
        {{tip, 0, 0}, {0, half, 0}, {0, half, 64}},
        {{0, half, 0}, {0, -half, 0}, {0, -half, 64}},
        {{0, -half, 0}, {0, half, 0}, {tip, 0, 0}},
        {{0, -half, 64}, {tip, 0, 64}, {0, half, 64}},
    };
    /* Orientation fix-up as the generator does: flip faces whose normal points inwards. */
    for (int i = 0; i < 5; i++) {
        double a[3], b[3], n[3], c[3] = {tip / 3, 0, 32}, out[3];
        al_sub(face[i][0], face[i][1], a);
        al_sub(face[i][2], face[i][1], b);
        al_cross(a, b, n);
        al_sub(face[i][1], c, out);
        if (al_dot(n, out) < 0) {
            double t[3];
            al_copy(face[i][0], t);
            al_copy(face[i][2], face[i][0]);
            al_copy(t, face[i][2]);
        }
    }
    one_brush o;
    one_brush_init(&o, 5, (const double (*)[3][3]) face);
    al_brush *b = build(&o, fx.arena, &fx.planes, &fx.diags);
    REQUIRE(b);
    double mins[3] = {-16, -16, -24}, maxs[3] = {16, 16, 32};
    al_brush *e = al_brush_expand(fx.arena, &fx.planes, b, mins, maxs);
    REQUIRE(e);
    CHECK(e->side_count > 5 + 2); /* axial and edge bevels at the tip */
    /* The true sum reaches tip + 16 along x (the box's half width); pushing the two side
     * planes out without bevels would meet at tip + 16 / sin(5 deg) ~ tip + 183. */
    CHECK_NEAR(e->maxs[0], tip + 16, 1e-6);
    fixture_free(&fx);
}

/* Oracle: for random convex brushes and hull boxes, "inside every expanded plane" agrees with
 * the separating-axis test against the original brush at random points. */
CHECK_TEST(expand_oracle, "/expand/agrees-with-separating-axis-oracle")
{
    mapgen *g = mapgen_create(true);
    mapgen_begin_entity(g, "worldspawn");
    uint64_t s = 99;
    for (int i = 0; i < 60; i++) {
        double xy[8][2];
        int n = 3 + i % 6;
        for (int v = 0; v < n; v++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double r = 16 + (double) (s >> 58);
            double a = 2 * M_PI * v / n + 0.3 * (double) ((s >> 40) & 0xff) / 255;
            xy[v][0] = (i % 10) * 256 + round(r * cos(a));
            xy[v][1] = (i / 10) * 256 + round(r * sin(a));
        }
        mapgen_prism(g, n, (const double (*)[2]) xy, (i % 3) * 8, 40 + (i % 5) * 16, "stone");
        mapgen_ramp(g, (i % 10) * 256 + 64, (i / 10) * 256 + 64, (i % 10) * 256 + 128,
                    (i / 10) * 256 + 96, 0, 16 + i, i % 2, i % 4 < 2 ? 1 : -1, "ramp");
    }
    mapgen_end_entity(g);
    size_t len;
    const char *text = mapgen_text(g, &len);
    scene sc;
    REQUIRE(scene_load_text(&sc, text, len, NULL));
    al_oracle *o = al_oracle_create(sc.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(sc.world); h++) {
        al_verify_counts c;
        al_verify_solidity(sc.world, o, h, 40000, 5 + h, &c);
        CHECK_MSG(c.mismatches == 0, "hull %d: %lld of %lld points disagree", h,
                  (long long) c.mismatches, (long long) c.checked);
        CHECK(c.checked > 30000);
    }
    al_oracle_destroy(o);
    scene_free(&sc);
    mapgen_destroy(g);
}

CHECK_TEST(face_polys_box, "/brush/faces/box-has-six-quads-that-close")
{
    double f[6][3][3];
    box_faces(0, 0, 0, 64, 32, 16, f);
    one_brush o;
    one_brush_init(&o, 6, (const double (*)[3][3]) f);
    al_face_polys p;
    REQUIRE(al_face_polys_build(&o.input, &p) == AL_OK);
    CHECK(p.face_count == 6);
    CHECK(p.point_count == 24);
    CHECK(p.brush_first[0] == 0 && p.brush_first[1] == 6);
    CHECK_NEAR(p.brush_maxs[0][0], 64, 1e-9);
    CHECK_NEAR(p.brush_maxs[0][2], 16, 1e-9);
    double area = 0;
    for (int i = 0; i < p.face_count; i++) {
        const double (*pt)[3] = p.points + p.faces[i].first_point;
        double c[3] = {0, 0, 0};
        for (int v = 1; v + 1 < p.faces[i].point_count; v++) {
            double a[3], b[3], x[3];
            al_sub(pt[v], pt[0], a);
            al_sub(pt[v + 1], pt[0], b);
            al_cross(a, b, x);
            for (int k = 0; k < 3; k++) c[k] += 0.5 * x[k];
        }
        area += al_length(c);
    }
    CHECK_NEAR(area, 2 * (64 * 32 + 64 * 16 + 32 * 16), 1e-6); /* closed form */
    char why[200];
    CHECK_MSG(scene_face_polys_errors(&o.input, &p, why, sizeof why) == 0, "%s", why);
    al_face_polys_free(&p);
}

CHECK_TEST(face_polys_invalid, "/brush/faces/an-invalid-brush-has-no-faces")
{
    double f[6][3][3];
    box_faces(0, 0, 0, 64, 32, 16, f);
    one_brush o;
    one_brush_init(&o, 4, (const double (*)[3][3]) f); /* unbounded: 4 of the 6 faces */
    al_face_polys p;
    REQUIRE(al_face_polys_build(&o.input, &p) == AL_OK);
    CHECK(p.face_count == 0);
    CHECK(p.invalid_brushes == 1);
    CHECK(p.brush_first[0] == 0 && p.brush_first[1] == 0);
    al_face_polys_free(&p);
    al_face_polys_free(NULL);
}

CHECK_TEST(face_polys_generated, "/brush/faces/generated-map-polygons-match-their-brushes")
{
    const char *path = getenv("ALLIUM_GENERATED_MAP");
    if (!path) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return;
    }
    scene sc;
    REQUIRE(scene_load_file(&sc, path, NULL));
    al_face_polys p;
    REQUIRE(al_face_polys_build(&sc.input.input, &p) == AL_OK);
    CHECK(p.face_count > 6 * 1000);
    char why[200];
    CHECK_MSG(scene_face_polys_errors(&sc.input.input, &p, why, sizeof why) == 0, "%s", why);
    al_face_polys_free(&p);
    scene_free(&sc);
}

/* A box at X sweeps along x from -100 to 100 past brushes at x in [0, 64]: the fraction of
 * the move at which it stops (1 if it passes). */
static double sweep_x(const al_world *w, double half, double y)
{
    al_trace t;
    const double mins[3] = {-half, -half, -half}, maxs[3] = {half, half, half};
    al_world_trace_box(w, mins, maxs, (double[3]){-100, y, 32}, (double[3]){100, y, 32}, &t);
    return t.hit ? t.fraction : 1.0;
}

/* Quake's qbsp leaves clip brushes out of hull 0: a clip brush stops every agent's box and
 * a box of any size, but not a point, nor light. The plane-shifting trace reads a tree of
 * the point hull with the clip brushes (the block's shift tree), every other point-hull
 * query the tree without them; the oracles read the same rule, and a saved world keeps
 * both trees. A clip brush in a door stops boxes as in the world. */
CHECK_TEST(clip_rule, "/brush/contents/clip-stops-every-box-but-a-point-and-lets-light-through")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, -512, -512, -16, 512, 512, 0, "floor");
    mapgen_box(g, 0, 0, 0, 64, 64, 64, "clip");
    mapgen_box(g, 0, 200, 0, 64, 264, 64, "metal1");
    /* A clip brush meeting a solid one: the point hull keeps only the solid part. */
    mapgen_box(g, 0, 400, 0, 64, 464, 64, "clip");
    mapgen_box(g, 32, 400, 0, 64, 464, 64, "metal1");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, 0, -300, 0, 64, -236, 64, "clip");
    mapgen_box(g, 300, -300, 0, 364, -236, 64, "door");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, NULL));
    int stand = scene_hull(&s, "stand");
    const double inside[3] = {32, 32, 32}, part[3] = {16, 432, 32}, solid[3] = {48, 432, 32};
    CHECK(!al_world_point_solid(s.world, 0, inside));
    CHECK(al_world_point_solid(s.world, stand, inside));
    CHECK(!al_world_point_solid(s.world, 0, part));
    CHECK(al_world_point_solid(s.world, 0, solid));

    /* Sweeps: a point passes the clip brush and stops at the solid one; boxes of a hull's
     * size and of no hull's stop at both, their face on the brush's. */
    for (int pass = 0; pass < 2; pass++) {
        al_world *w = s.world;
        void *bytes = NULL;
        size_t size = 0;
        if (pass == 1) {
            REQUIRE(al_world_save(s.world, &bytes, &size) == AL_OK);
            REQUIRE(al_world_load(bytes, size, &w, NULL) == AL_OK);
        }
        CHECK_MSG(sweep_x(w, 0, 32) == 1.0, "pass %d: a point stops at %g", pass,
                  sweep_x(w, 0, 32));
        CHECK(fabs(sweep_x(w, 0, 232) - 0.5) < 1e-3);
        for (int k = 0; k < 3; k++) {
            double half = (double[3]){16, 8, 3.5}[k], want = (100 - half) / 200;
            CHECK_MSG(fabs(sweep_x(w, half, 32) - want) < 1e-3, "pass %d: box %g stops at %g", pass,
                      half, sweep_x(w, half, 32));
            CHECK(fabs(sweep_x(w, half, 232) - want) < 1e-3);
            CHECK(fabs(sweep_x(w, half, -268) - want) < 1e-3); /* the door's clip brush */
        }
        CHECK(sweep_x(w, 0, -268) == 1.0);
        CHECK(fabs(sweep_x(w, 0, 432) - 132.0 / 200) < 1e-3);
        CHECK(fabs(sweep_x(w, 8, 432) - 92.0 / 200) < 1e-3);
        /* The onion traces agree: the point hull passes, the standing box stops. */
        al_trace t;
        al_world_trace(w, 0, (double[3]){-100, 32, 32}, (double[3]){100, 32, 32}, &t);
        CHECK(!t.hit);
        al_world_trace(w, stand, (double[3]){-100, 32, 32}, (double[3]){100, 32, 32}, &t);
        CHECK(t.hit && t.fraction < 0.5);
        if (pass == 1) al_world_destroy(w);
        free(bytes);
    }

    /* Light: the light trees let a ray through the clip brush, not through the solid one. */
    CHECK(isinf(
        al_verify_light_trees_hit(s.world, (double[3]){-100, 32, 32}, (double[3]){100, 32, 32})));
    CHECK(fabs(al_verify_light_trees_hit(s.world, (double[3]){-100, 232, 32},
                                         (double[3]){100, 232, 32}) -
               0.5) < 1e-3);

    /* Every hull's trees, traces and plane shifting against the brute-force oracle. */
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c[4];
        al_verify_solidity(s.world, o, h, 20000, 3, &c[0]);
        al_verify_map_trees(s.world, o, h, 20000, 3, &c[1]);
        al_verify_traces(s.world, o, h, 2000, 0, 3, &c[2]);
        al_verify_plane_shift(s.world, o, h, 2000, 0, 3, &c[3]);
        for (int k = 0; k < 4; k++)
            CHECK_MSG(c[k].mismatches == 0 && c[k].checked > 0,
                      "hull %d, check %d: %lld of %lld disagree", h, k, (long long) c[k].mismatches,
                      (long long) c[k].checked);
    }
    al_oracle_destroy(o);
    scene_free(&s);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}

/* Quake's compilers take a brush's contents from its first face (ericw-tools' qbsp and the
 * tools it came from): a face of another kind neither adds its contents nor takes them
 * away, and a brush entity has no liquids. Each case is one brush in its own place. */
CHECK_TEST(contents_first_face, "/brush/contents/the-first-face-decides-as-in-quake")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    /* 0: sky with one trigger face (e3m3): solid sky, without a warning. */
    mapgen_box_faces(g, 0, 0, 0, 64, 64, 64,
                     (const char *const[6]){"sky4", "sky4", "trigger", "sky4", "sky4", "sky4"});
    /* 1: a wall texture first, then *teleport (e3m2): solid, with a warning. */
    mapgen_box_faces(
        g, 100, 0, 0, 164, 64, 64,
        (const char *const[6]){"metal1", "*teleport", "metal1", "metal1", "metal1", "metal1"});
    /* 2: water first, then a wall texture: water, with a warning. */
    mapgen_box_faces(
        g, 200, 0, 0, 264, 64, 64,
        (const char *const[6]){"*water1", "metal1", "*water1", "*water1", "*water1", "*water1"});
    /* 3: all trigger, in the world: solid (only a trigger entity makes it non-solid). */
    mapgen_box(g, 300, 0, 0, 364, 64, 64, "trigger");
    /* 4: water with skip faces: water, without a warning. */
    mapgen_box_faces(g, 400, 0, 0, 464, 64, 64,
                     (const char *const[6]){"*water1", "skip", "skip", "skip", "skip", "*water1"});
    /* 7 (placed last in the row): clip, solid to the agents and not to a point. */
    mapgen_box(g, 700, 0, 0, 764, 64, 64, "clip");
    mapgen_end_entity(g);
    /* 5: water in a func_wall (e1m3): solid. */
    mapgen_begin_entity(g, "func_wall");
    mapgen_box(g, 500, 0, 0, 564, 64, 64, "*water1");
    mapgen_end_entity(g);
    /* 6: water in a func_detail, which is the world's: water. */
    mapgen_begin_entity(g, "func_detail");
    mapgen_box(g, 600, 0, 0, 664, 64, 64, "*water1");
    mapgen_end_entity(g);
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, NULL));
    const bool solid[8] = {true, true, false, true, false, true, false, true};
    int stand = scene_hull(&s, "stand");
    for (int i = 0; i < 8; i++) {
        double centre[3] = {100.0 * i + 32, 32, 32};
        CHECK_MSG(al_world_point_solid(s.world, 0, centre) == (solid[i] && i != 7),
                  "brush %d in the point hull", i);
        CHECK_MSG(al_world_point_solid(s.world, stand, centre) == solid[i], "brush %d standing", i);
    }
    /* The brute-force oracle reads the same rules: every hull agrees with it. */
    al_oracle *o = al_oracle_create(s.world);
    REQUIRE(o);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts points, traces;
        al_verify_solidity(s.world, o, h, 20000, 7, &points);
        al_verify_traces(s.world, o, h, 2000, 256, 7, &traces);
        CHECK_MSG(points.mismatches == 0 && traces.mismatches == 0,
                  "hull %d: %lld of %lld points and %lld of %lld traces disagree", h,
                  (long long) points.mismatches, (long long) points.checked,
                  (long long) traces.mismatches, (long long) traces.checked);
    }
    al_oracle_destroy(o);
    /* The warnings name the two mixed brushes' differing faces, and no other brush. */
    const al_diag_list *d = al_world_diagnostics(s.world);
    int mixed = 0;
    for (size_t k = 0; k < d->count; k++) {
        if (!strstr(d->items[k].message, "first face decides")) continue;
        mixed++;
        CHECK_MSG(d->items[k].entity == 0 &&
                      ((d->items[k].brush == 1 && strstr(d->items[k].message, "is water") &&
                        strstr(d->items[k].message, "brush is solid")) ||
                       (d->items[k].brush == 2 && strstr(d->items[k].message, "brush is water"))) &&
                      d->items[k].face == 1,
                  "warning: %s (brush %d, face %d)", d->items[k].message, d->items[k].brush,
                  d->items[k].face);
    }
    CHECK_MSG(mixed == 2, "%d mixed-contents warnings", mixed);
    scene_free(&s);
}

/* Origin brushes: no geometry; the centre of a brush entity's first one is its origin. */
CHECK_TEST(origin_brushes, "/brush/contents/an-origin-brush-sets-its-entitys-origin")
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, -512, -512, -16, 512, 512, 0, "floor");
    mapgen_box(g, 300, 300, 0, 316, 316, 16, "origin"); /* in the world: left out, warned */
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_rotate_door");
    mapgen_box(g, 32, 0, 0, 160, 16, 128, "door");
    mapgen_box(g, -8, -8, 56, 8, 8, 72, "ORIGIN");
    mapgen_box(g, 64, 64, 0, 80, 80, 16, "origin"); /* a second one: warned */
    mapgen_end_entity(g);
    scene s;
    REQUIRE(scene_load_mapgen(&s, g, NULL));
    double o[3];
    REQUIRE(al_world_entity_origin(s.world, 1, o));
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 64);
    CHECK(!al_world_entity_origin(s.world, 0, o));
    int stand = scene_hull(&s, "stand");
    for (int h = 0; h < 2; h++) {
        int hull = h ? stand : 0;
        CHECK(!al_world_point_solid(s.world, hull, (double[3]){0, 0, 64}));
        CHECK(!al_world_point_solid(s.world, hull, (double[3]){308, 308, 8 + 24 * h}));
        CHECK(al_world_point_solid(s.world, hull, (double[3]){96, 8, 64}));
    }
    const al_diag_list *d = al_world_diagnostics(s.world);
    int outside = 0, second = 0;
    for (size_t k = 0; k < d->count; k++) {
        outside += strstr(d->items[k].message, "outside a brush entity") && d->items[k].entity == 0;
        second += strstr(d->items[k].message, "second origin brush") && d->items[k].entity == 1;
    }
    CHECK(outside == 1 && second == 1);
    scene_free(&s);
}
