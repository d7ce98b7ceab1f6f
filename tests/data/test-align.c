/* Texture alignment: the operations of data/textures/align.c checked in closed form on random
 * convex brushes (texture coordinates by al_texture_coords, the one projection rule, at the
 * polygon's corners and at random points inside it), the two formats against each other on
 * axial faces, and the document's edit (al_doc_align_faces): one step, undo and redo to the
 * exact values, and what it hands the live engine. */
#include "check.h"
#include "doc-fixture.h"
#include "mapfile/map-write.h"
#include "mapfile/texture.h"
#include "scene.h"
#include "store/map-doc.h"
#include "store/document.h"
#include "textures/align.h"
#include "al-brush.h"
#include "al-plane.h"
#include "al-vec3.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (double) (rng >> 11) / (double) (1ull << 53);
}

/* A face with its polygon. */
typedef struct face {
    al_map_face f;
    double polygon[AL_BRUSH_POLYGON_MAX][3];
    int count;
} face;

/* The faces of a random convex brush: a box cut by three random planes through points near
 * its middle; each face's three points are corners of its polygon, ordered so that the
 * .map rule gives its outward normal. Returns the count of faces with a polygon. */
static int random_brush(face *out)
{
    al_plane planes[9];
    int n = 0;
    for (int k = 0; k < 3; k++)
        for (int sign = -1; sign <= 1; sign += 2) {
            al_plane *p = &planes[n++];
            memset(p, 0, sizeof *p);
            p->normal[k] = sign;
            p->dist = uniform(32, 96);
        }
    for (int c = 0; c < 3; c++) {
        al_plane *p = &planes[n++];
        double v[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
        if (al_normalize(v, v) < 0.1) v[0] = 1, v[1] = v[2] = 0;
        al_copy(v, p->normal);
        p->dist = uniform(16, 40);
    }
    for (int i = 0; i < n; i++) planes[i].type = al_plane_type(planes[i].normal);
    int faces = 0;
    for (int i = 0; i < n; i++) {
        face *g = &out[faces];
        memset(g, 0, sizeof *g);
        g->count = al_brush_face_points(planes, NULL, n, i, g->polygon);
        if (g->count < 3) continue;
        /* Three corners far apart, in the order the rule wants. */
        const double *a = g->polygon[0], *b = g->polygon[g->count / 3],
                     *c = g->polygon[2 * g->count / 3];
        double e1[3], e2[3], nn[3];
        al_sub(a, b, e1);
        al_sub(c, b, e2);
        al_cross(e1, e2, nn);
        bool flip = al_dot(nn, planes[i].normal) < 0;
        al_copy(flip ? c : a, g->f.points[0]);
        al_copy(b, g->f.points[1]);
        al_copy(flip ? a : c, g->f.points[2]);
        faces++;
    }
    return faces;
}

/* Random texture parameters in the format VALVE (Valve axes: the standard ones turned a
 * little off the axial plane, so that some are not in the face's plane). */
static void random_texture(al_map_face *f, bool valve)
{
    f->valve = valve;
    f->offset[0] = round(uniform(-64, 64));
    f->offset[1] = round(uniform(-64, 64));
    f->rotation = uniform(0, 1) < 0.5 ? 90 * floor(uniform(0, 4)) : uniform(0, 360);
    f->scale[0] = uniform(0.25, 2) * (uniform(0, 1) < 0.2 ? -1 : 1);
    f->scale[1] = uniform(0.25, 2);
    if (!valve) return;
    al_texture_to_valve(f, f->u_axis, &f->u_offset, f->v_axis, &f->v_offset);
}

static void coords(const al_map_face *f, const double p[3], double uv[2])
{
    al_texture_coords(f, p, uv);
}

/* The range of the texture coordinates at the corners of G's polygon. */
static void range(const face *g, const al_map_face *f, double lo[2], double hi[2])
{
    lo[0] = lo[1] = INFINITY;
    hi[0] = hi[1] = -INFINITY;
    for (int i = 0; i < g->count; i++) {
        double uv[2];
        coords(f, g->polygon[i], uv);
        for (int k = 0; k < 2; k++) {
            lo[k] = fmin(lo[k], uv[k]);
            hi[k] = fmax(hi[k], uv[k]);
        }
    }
}

/* A random point of G's polygon (a random convex combination of its corners). */
static void inside(const face *g, double p[3])
{
    double w[AL_BRUSH_POLYGON_MAX], sum = 0;
    for (int i = 0; i < g->count; i++) sum += w[i] = uniform(0, 1);
    p[0] = p[1] = p[2] = 0;
    for (int i = 0; i < g->count; i++)
        for (int k = 0; k < 3; k++) p[k] += g->polygon[i][k] * w[i] / sum;
}

static bool align(face *g, const double size[2], al_align a)
{
    return al_texture_align(&g->f, (const double (*)[3]) g->polygon, g->count, size, &a);
}

CHECK_TEST(fit, "/align/fit-spans-the-texture-exactly-once-or-n-times-across-the-face")
{
    const double size[2] = {64, 128};
    double worst = 0;
    int faces_fitted = 0;
    for (int trial = 0; trial < 200; trial++) {
        face g[9];
        int n = random_brush(g);
        for (int i = 0; i < n; i++) {
            random_texture(&g[i].f, trial % 2);
            double reps[2] = {1, 1};
            if (trial % 3 == 1) reps[0] = floor(uniform(1, 5)), reps[1] = floor(uniform(1, 5));
            if (trial % 3 == 2) reps[0] = uniform(0.3, 3), reps[1] = uniform(0.3, 3);
            double sign = g[i].f.scale[0] < 0 ? -1 : 1;
            if (!align(&g[i], size, (al_align){.kind = AL_ALIGN_FIT, .value = {reps[0], reps[1]}}))
                continue; /* a Valve axis across this face: checked below */
            faces_fitted++;
            double lo[2], hi[2];
            range(&g[i], &g[i].f, lo, hi);
            for (int k = 0; k < 2; k++) {
                worst = fmax(worst, fabs(lo[k] / size[k]));
                worst = fmax(worst, fabs(hi[k] / size[k] - reps[k]));
            }
            CHECK(g[i].f.scale[0] * sign > 0); /* a mirrored texture stays mirrored */
            /* Brute force: no point of the face is outside the fitted range. */
            for (int s = 0; s < 20; s++) {
                double p[3], uv[2];
                inside(&g[i], p);
                coords(&g[i].f, p, uv);
                for (int k = 0; k < 2; k++)
                    CHECK_MSG(uv[k] > -1e-9 && uv[k] < size[k] * reps[k] + 1e-9,
                              "a point inside the face has %c = %g, outside [0, %g]", "uv"[k],
                              uv[k], size[k] * reps[k]);
            }
        }
    }
    CHECK_MSG(worst < 1e-9, "fit misses the edges by %g textures", worst);
    CHECK_MSG(faces_fitted > 1500, "only %d faces fitted", faces_fitted);
    check_note("%d faces fitted, worst edge %g textures", faces_fitted, worst);
}

CHECK_TEST(justify, "/align/justify-puts-the-textures-edge-on-the-faces-edge")
{
    const double size[2] = {32, 16};
    for (int trial = 0; trial < 200; trial++) {
        face g[9];
        int n = random_brush(g);
        for (int i = 0; i < n; i++) {
            random_texture(&g[i].f, trial % 2);
            if (trial % 2 && !align(&g[i], size, (al_align){.kind = AL_ALIGN_TO_FACE})) continue;
            for (int j = AL_JUSTIFY_LEFT; j <= AL_JUSTIFY_CENTRE; j++) {
                face h = g[i];
                double lo0[2], hi0[2], lo[2], hi[2];
                range(&h, &h.f, lo0, hi0);
                REQUIRE(align(&h, size, (al_align){.kind = AL_ALIGN_JUSTIFY, .justify = j}));
                range(&h, &h.f, lo, hi);
                switch (j) {
                case AL_JUSTIFY_LEFT:
                    CHECK_NEAR(lo[0], 0, 1e-9);
                    break;
                case AL_JUSTIFY_RIGHT:
                    CHECK_NEAR(hi[0], size[0], 1e-9);
                    break;
                case AL_JUSTIFY_TOP:
                    CHECK_NEAR(lo[1], 0, 1e-9);
                    break;
                case AL_JUSTIFY_BOTTOM:
                    CHECK_NEAR(hi[1], size[1], 1e-9);
                    break;
                case AL_JUSTIFY_CENTRE:
                    CHECK_NEAR((lo[0] + hi[0]) / 2, size[0] / 2, 1e-9);
                    CHECK_NEAR((lo[1] + hi[1]) / 2, size[1] / 2, 1e-9);
                    break;
                }
                /* Only offsets move: the ranges keep their lengths, and the other axis its
                 * place (but for the centre, which moves both). */
                for (int k = 0; k < 2; k++) {
                    CHECK_NEAR(hi[k] - lo[k], hi0[k] - lo0[k], 1e-9);
                    bool moved = j == AL_JUSTIFY_CENTRE || (k == 0) == (j <= AL_JUSTIFY_RIGHT);
                    if (!moved) CHECK_NEAR(lo[k], lo0[k], 1e-9);
                }
            }
        }
    }
}

CHECK_TEST(to_face, "/align/align-to-face-gives-axes-in-the-faces-plane")
{
    int refused = 0, sloped = 0;
    for (int trial = 0; trial < 200; trial++) {
        face g[9];
        int n = random_brush(g);
        for (int i = 0; i < n; i++) {
            double nn[3];
            al_texture_face_normal(&g[i].f, nn);
            bool axial = fabs(fabs(nn[0]) - 1) < 1e-12 || fabs(fabs(nn[1]) - 1) < 1e-12 ||
                         fabs(fabs(nn[2]) - 1) < 1e-12;
            random_texture(&g[i].f, true);
            face h = g[i];
            REQUIRE(align(&h, NULL, (al_align){.kind = AL_ALIGN_TO_FACE}));
            CHECK_MSG(fabs(al_dot(h.f.u_axis, nn)) < 1e-12 && fabs(al_dot(h.f.v_axis, nn)) < 1e-12,
                      "U.n %g, V.n %g", al_dot(h.f.u_axis, nn), al_dot(h.f.v_axis, nn));
            CHECK(fabs(al_dot(h.f.u_axis, h.f.v_axis)) < 1e-12);
            CHECK(fabs(al_length(h.f.u_axis) - 1) < 1e-12 &&
                  fabs(al_length(h.f.v_axis) - 1) < 1e-12);
            CHECK(h.f.scale[0] == g[i].f.scale[0] && h.f.u_offset == g[i].f.u_offset);
            /* Turned afterwards, the axes stay in the plane. */
            REQUIRE(
                align(&h, NULL, (al_align){.kind = AL_ALIGN_ROTATE, .value = {uniform(0, 360)}}));
            CHECK(fabs(al_dot(h.f.u_axis, nn)) < 1e-12 && fabs(al_dot(h.f.v_axis, nn)) < 1e-12);
            /* The standard format holds it only on an axial face. */
            random_texture(&g[i].f, false);
            h = g[i];
            bool done = align(&h, NULL, (al_align){.kind = AL_ALIGN_TO_FACE});
            CHECK(done == axial);
            if (!done) {
                refused++;
                CHECK(memcmp(&h.f, &g[i].f, sizeof h.f) == 0);
            } else {
                CHECK(h.f.rotation == 0);
            }
            sloped += !axial;
        }
    }
    CHECK(refused == sloped && sloped > 0);
}

CHECK_TEST(nudge, "/align/nudge-moves-every-texture-coordinate-by-the-step")
{
    for (int trial = 0; trial < 100; trial++) {
        face g[9];
        int n = random_brush(g);
        for (int i = 0; i < n; i++) {
            random_texture(&g[i].f, trial % 2);
            face h = g[i];
            double step[2] = {round(uniform(-16, 16)), uniform(-3, 3)};
            REQUIRE(
                align(&h, NULL, (al_align){.kind = AL_ALIGN_NUDGE, .value = {step[0], step[1]}}));
            for (int s = 0; s < 10; s++) {
                double p[3], a[2], b[2];
                inside(&g[i], p);
                coords(&g[i].f, p, a);
                coords(&h.f, p, b);
                CHECK_NEAR(b[0] - a[0], step[0], 1e-9);
                CHECK_NEAR(b[1] - a[1], step[1], 1e-9);
            }
        }
    }
}

CHECK_TEST(quarter_turns, "/align/four-quarter-turns-give-back-the-exact-axes")
{
    face g[9];
    int n = random_brush(g);
    for (int i = 0; i < n; i++) {
        random_texture(&g[i].f, true);
        REQUIRE(align(&g[i], NULL, (al_align){.kind = AL_ALIGN_RESET}));
        face h = g[i];
        for (int q = 0; q < 4; q++)
            REQUIRE(align(&h, NULL, (al_align){.kind = AL_ALIGN_ROTATE, .value = {90}}));
        CHECK(memcmp(h.f.u_axis, g[i].f.u_axis, sizeof h.f.u_axis) == 0);
        CHECK(memcmp(h.f.v_axis, g[i].f.v_axis, sizeof h.f.v_axis) == 0);
        CHECK(h.f.rotation == 0);
    }
}

/* The six faces of a box as .map faces with their polygons. */
static void box(face g[6])
{
    al_doc_face d[6];
    fixture_box_faces(-40, -24, -8, 88, 40, 56, "stone", d);
    for (int i = 0; i < 6; i++) {
        memset(&g[i], 0, sizeof g[i]);
        memcpy(g[i].f.points, d[i].points, sizeof d[i].points);
    }
    al_plane planes[6];
    for (int i = 0; i < 6; i++) {
        al_plane_from_points(d[i].points[0], d[i].points[1], d[i].points[2], planes[i].normal,
                             &planes[i].dist);
        planes[i].type = al_plane_type(planes[i].normal);
    }
    for (int i = 0; i < 6; i++) g[i].count = al_brush_face_points(planes, NULL, 6, i, g[i].polygon);
}

CHECK_TEST(formats_agree, "/align/standard-and-valve-220-give-the-same-texture-on-axial-faces")
{
    const double size[2] = {64, 32};
    const al_map_face source = {.offset = {7, -3}, .rotation = 30, .scale = {0.5, 2}};
    const al_align ops[] = {
        {.kind = AL_ALIGN_ROTATE, .value = {15}},
        {.kind = AL_ALIGN_ROTATE, .value = {90}},
        {.kind = AL_ALIGN_ROTATE, .value = {-90}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_ROTATION, .value = {37.5}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_U, .value = {0.75}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_V, .value = {-1.5}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_OFFSET_U, .value = {12}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_OFFSET_V, .value = {-5}},
        {.kind = AL_ALIGN_NUDGE, .value = {8, -8}},
        {.kind = AL_ALIGN_FIT, .value = {1, 1}},
        {.kind = AL_ALIGN_FIT, .value = {2, 3}},
        {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_LEFT},
        {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_RIGHT},
        {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_TOP},
        {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_BOTTOM},
        {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_CENTRE},
        {.kind = AL_ALIGN_TO_FACE},
        {.kind = AL_ALIGN_PASTE, .source = &source},
        {.kind = AL_ALIGN_RESET},
    };
    int compared = 0;
    for (int trial = 0; trial < 40; trial++) {
        face st[6], va[6];
        box(st);
        for (int i = 0; i < 6; i++) {
            random_texture(&st[i].f, false);
            va[i] = st[i];
            va[i].f.valve = true;
            al_texture_to_valve(&st[i].f, va[i].f.u_axis, &va[i].f.u_offset, va[i].f.v_axis,
                                &va[i].f.v_offset);
        }
        /* A random sequence of the operations, applied to both. */
        for (int step = 0; step < 12; step++) {
            const al_align *op = &ops[(int) floor(uniform(0, sizeof ops / sizeof ops[0]))];
            for (int i = 0; i < 6; i++) {
                REQUIRE(al_texture_align(&st[i].f, (const double (*)[3]) st[i].polygon, st[i].count,
                                         size, op));
                REQUIRE(al_texture_align(&va[i].f, (const double (*)[3]) va[i].polygon, va[i].count,
                                         size, op));
                for (int s = 0; s < 4; s++) {
                    double p[3], a[2], b[2];
                    inside(&st[i], p);
                    coords(&st[i].f, p, a);
                    coords(&va[i].f, p, b);
                    CHECK_MSG(fabs(a[0] - b[0]) < 1e-9 && fabs(a[1] - b[1]) < 1e-9,
                              "operation %d on face %d: standard (%g, %g), Valve (%g, %g)",
                              (int) op->kind, i, a[0], a[1], b[0], b[1]);
                    compared++;
                }
                CHECK(st[i].f.rotation == va[i].f.rotation);
            }
        }
    }
    check_note("%d points compared", compared);
}

CHECK_TEST(refusals, "/align/what-cannot-be-done-leaves-the-face-as-it-was")
{
    face g[6];
    box(g);
    random_texture(&g[0].f, false);
    const double size[2] = {64, 64}, none[2] = {0, 64};
    const al_align bad[] = {
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_U, .value = {0}},
        {.kind = AL_ALIGN_SET, .field = AL_FIELD_OFFSET_V, .value = {NAN}},
        {.kind = AL_ALIGN_ROTATE, .value = {INFINITY}},
        {.kind = AL_ALIGN_NUDGE, .value = {1, NAN}},
        {.kind = AL_ALIGN_FIT, .value = {0, 1}},
        {.kind = AL_ALIGN_FIT, .value = {-1, 1}},
        {.kind = AL_ALIGN_PASTE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        face h = g[0];
        CHECK_MSG(!align(&h, size, bad[i]), "operation %zu was done", i);
        CHECK(memcmp(&h.f, &g[0].f, sizeof h.f) == 0);
    }
    face h = g[0];
    CHECK(!align(&h, none, (al_align){.kind = AL_ALIGN_FIT, .value = {1, 1}}));
    CHECK(!align(&h, none, (al_align){.kind = AL_ALIGN_JUSTIFY}));
    CHECK(!al_texture_align(&h.f, (const double (*)[3]) h.polygon, 2, size,
                            &(al_align){.kind = AL_ALIGN_FIT, .value = {1, 1}}));
    CHECK(memcmp(&h.f, &g[0].f, sizeof h.f) == 0);
    /* A Valve axis along the normal gives no span to fit. */
    h.f.valve = true;
    double nn[3];
    al_texture_face_normal(&h.f, nn);
    al_copy(nn, h.f.u_axis);
    h.f.v_axis[0] = 1;
    CHECK(!align(&h, size, (al_align){.kind = AL_ALIGN_FIT, .value = {1, 1}}));
}

/* --- the document's edit ---------------------------------------------------------------- */

static al_doc *doc_with_box(const char *name, bool valve, int64_t *id)
{
    al_doc *doc = NULL;
    if (al_doc_create(fixture_path(name), &doc, NULL) != AL_OK) return NULL;
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 128, 64, 32, "stone", f);
    for (int i = 0; i < 6; i++) {
        f[i].offset[0] = i;
        f[i].rotation = 15 * i;
        if (!valve) continue;
        al_map_face st = {0};
        memcpy(st.points, f[i].points, sizeof st.points);
        st.offset[0] = f[i].offset[0];
        st.rotation = f[i].rotation;
        f[i].valve = true;
        al_texture_to_valve(&st, f[i].u_axis, &f[i].u_offset, f[i].v_axis, &f[i].v_offset);
    }
    if (al_doc_add_brush(doc, 0, f, 6, id, NULL, NULL) != AL_OK) {
        al_doc_close(doc);
        return NULL;
    }
    return doc;
}

static bool same(const al_doc_texture *a, const al_doc_texture *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

CHECK_TEST(doc_edit, "/align/an-edit-is-one-step-that-undo-and-redo-restore-exactly")
{
    for (int valve = 0; valve < 2; valve++) {
        int64_t id;
        al_doc *doc =
            doc_with_box(valve ? "align-valve.allium" : "align-standard.allium", valve, &id);
        REQUIRE(doc);
        al_doc_texture before[6], after[6], t;
        for (int i = 0; i < 6; i++) REQUIRE(al_doc_face_texture(doc, id, i, &before[i]) == AL_OK);
        const al_doc_face_ref refs[3] = {{id, 0}, {id, 2}, {id, 4}};
        al_doc_change ch = {0};
        int refused = -1;
        /* One field on three faces: only that field changes, on only those faces. */
        REQUIRE(al_doc_align_faces(
                    doc, refs, 3,
                    &(al_align){.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_U, .value = {0.25}},
                    NULL, NULL, &refused, &ch, NULL) == AL_OK);
        CHECK(refused == 0 && ch.brush_count == 1 && ch.brushes[0].brush == id);
        for (int i = 0; i < 6; i++) {
            REQUIRE(al_doc_face_texture(doc, id, i, &after[i]) == AL_OK);
            al_doc_texture expect = before[i];
            if (i % 2 == 0) expect.scale[0] = 0.25;
            CHECK_MSG(same(&after[i], &expect), "face %d", i);
        }
        /* The live engine gets the brush with the new projection. */
        al_doc_live live;
        REQUIRE(al_doc_live_read(doc, &ch, &live, NULL) == AL_OK);
        REQUIRE(live.change.brush_count == 1 && live.change.brushes[0].face_count == 6);
        for (int i = 0; i < 6; i++) {
            al_map_face f = {0};
            memcpy(f.points, live.change.brushes[0].faces[i].points, sizeof f.points);
            f.valve = after[i].valve;
            memcpy(f.u_axis, after[i].u_axis, sizeof f.u_axis);
            memcpy(f.v_axis, after[i].v_axis, sizeof f.v_axis);
            f.u_offset = after[i].u_offset, f.v_offset = after[i].v_offset;
            memcpy(f.offset, after[i].offset, sizeof f.offset);
            f.rotation = after[i].rotation;
            memcpy(f.scale, after[i].scale, sizeof f.scale);
            double axes[2][4];
            al_texture_axes(&f, axes);
            CHECK(memcmp(axes, live.change.brushes[0].faces[i].texture_axes, sizeof axes) == 0);
        }
        al_doc_live_free(&live);
        al_doc_change_clear(&ch);
        char label[64];
        CHECK(al_doc_undo_label(doc, false, label, sizeof label) &&
              strcmp(label, "Align texture") == 0);
        REQUIRE(al_doc_undo(doc, &ch) == AL_OK);
        CHECK(ch.brush_count == 1);
        al_doc_change_clear(&ch);
        for (int i = 0; i < 6; i++) {
            REQUIRE(al_doc_face_texture(doc, id, i, &t) == AL_OK);
            CHECK_MSG(same(&t, &before[i]), "undo, face %d", i);
        }
        REQUIRE(al_doc_redo(doc, &ch) == AL_OK);
        al_doc_change_clear(&ch);
        for (int i = 0; i < 6; i++) {
            REQUIRE(al_doc_face_texture(doc, id, i, &t) == AL_OK);
            CHECK_MSG(same(&t, &after[i]), "redo, face %d", i);
        }
        /* The same value again changes nothing and adds no step. */
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
        REQUIRE(al_doc_align_faces(
                    doc, refs, 3,
                    &(al_align){.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_U, .value = {0.25}},
                    NULL, NULL, NULL, &ch, NULL) == AL_OK);
        CHECK(ch.brush_count == 0);
        CHECK(!al_doc_can_redo(doc));
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        REQUIRE(al_doc_face_texture(doc, id, 0, &t) == AL_OK && same(&t, &before[0]));
        REQUIRE(al_doc_redo(doc, NULL) == AL_OK);
        /* Fit, with each face's size, then paste face 1's texture and material on face 3. */
        const double sizes[3][2] = {{64, 64}, {128, 32}, {16, 16}};
        REQUIRE(al_doc_align_faces(doc, refs, 3, &(al_align){.kind = AL_ALIGN_FIT, .value = {1, 1}},
                                   sizes, NULL, NULL, NULL, NULL) == AL_OK);
        al_map_face source = {0};
        REQUIRE(al_doc_face_texture(doc, id, 1, &t) == AL_OK);
        source.valve = t.valve;
        source.u_offset = t.u_offset, source.v_offset = t.v_offset;
        memcpy(source.offset, t.offset, sizeof t.offset);
        source.rotation = t.rotation;
        memcpy(source.scale, t.scale, sizeof t.scale);
        al_doc_texture target_before;
        REQUIRE(al_doc_face_texture(doc, id, 3, &target_before) == AL_OK);
        REQUIRE(al_doc_align_faces(doc, &(al_doc_face_ref){id, 3}, 1,
                                   &(al_align){.kind = AL_ALIGN_PASTE, .source = &source}, NULL,
                                   "metal", NULL, NULL, NULL) == AL_OK);
        REQUIRE(al_doc_face_texture(doc, id, 3, &after[3]) == AL_OK);
        CHECK(strcmp(after[3].material, "metal") == 0);
        CHECK(after[3].scale[0] == t.scale[0] && after[3].rotation == t.rotation);
        CHECK(valve ? after[3].u_offset == t.u_offset : after[3].offset[0] == t.offset[0]);
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        REQUIRE(al_doc_face_texture(doc, id, 3, &t) == AL_OK && same(&t, &target_before));
        /* Bad requests: a face that is not there, a format that cannot hold it. */
        al_diag_list d = {0};
        CHECK(al_doc_align_faces(doc, &(al_doc_face_ref){id, 6}, 1,
                                 &(al_align){.kind = AL_ALIGN_RESET}, NULL, NULL, NULL, NULL,
                                 &d) == AL_ERR_NOT_FOUND);
        CHECK(d.count == 1 && strstr(d.items[0].message, "has no face 6"));
        al_diag_list_clear(&d);
        CHECK(al_doc_align_faces(
                  doc, refs, 1,
                  &(al_align){.kind = AL_ALIGN_SET, .field = AL_FIELD_SCALE_V, .value = {0}}, NULL,
                  NULL, &refused, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
        CHECK(refused == 1 && d.count == 1);
        al_diag_list_clear(&d);
        REQUIRE(al_doc_face_texture(doc, id, 0, &t) == AL_OK);
        CHECK(t.scale[1] != 0);
        al_doc_close(doc);
    }
}

/* The document as .map text (what undo must give back). */
static char *map_text(al_doc *doc)
{
    al_map *m = NULL;
    if (al_doc_export_map(doc, &m, NULL) != AL_OK) return NULL;
    char *text = NULL;
    size_t len;
    if (!al_map_write(m, true, &text, &len)) text = NULL;
    al_map_destroy(m);
    return text;
}

/* Fits every face of a real map once across (one step), then reads the map back through
 * the export and checks each face's corners in closed form: e1m1 (standard) and
 * q1_mountain (Valve 220, sloped terrain). Undo gives back the map's text exactly. */
CHECK_TEST(real_maps, "/align/fitting-every-face-of-real-maps-spans-each-texture-once")
{
    const char *names[] = {"e1m1.map", "q1_mountain.map"};
    int maps = 0;
    for (int m = 0; m < 2; m++) {
        const char *path = scene_shared_map(names[m]);
        if (!path) continue;
        al_map *map = NULL;
        REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
        al_doc *doc = NULL;
        REQUIRE(al_doc_create(fixture_path("align-real.allium"), &doc, NULL) == AL_OK);
        al_doc_set_durable(doc, false);
        REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
        al_map_destroy(map);
        int64_t *ids = NULL;
        int count = 0;
        REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
        al_doc_face_ref *refs = NULL;
        int n = 0, room = 0;
        al_doc_texture t;
        for (int b = 0; b < count; b++)
            for (int f = 0; al_doc_face_texture(doc, ids[b], f, &t) == AL_OK; f++) {
                if (n == room) {
                    room = room ? 2 * room : 1024;
                    refs = realloc(refs, room * sizeof *refs);
                    REQUIRE(refs);
                }
                refs[n++] = (al_doc_face_ref){ids[b], f};
            }
        free(ids);
        double (*sizes)[2] = malloc(n * sizeof *sizes);
        REQUIRE(sizes);
        for (int i = 0; i < n; i++) sizes[i][0] = 64, sizes[i][1] = 32;
        char *before = map_text(doc);
        REQUIRE(before);
        int refused = -1;
        REQUIRE(al_doc_align_faces(doc, refs, n, &(al_align){.kind = AL_ALIGN_FIT, .value = {1, 1}},
                                   (const double (*)[2]) sizes, NULL, &refused, NULL,
                                   NULL) == AL_OK);
        /* Read back through the export: each face's polygon from its brush's planes. */
        al_map *out = NULL;
        REQUIRE(al_doc_export_map(doc, &out, NULL) == AL_OK);
        int checked = 0, off = 0;
        double worst = 0;
        for (int e = 0; e < out->entity_count; e++)
            for (int b = 0; b < out->entities[e].brush_count; b++) {
                const al_map_brush *br = &out->entities[e].brushes[b];
                al_plane planes[AL_BRUSH_MAX_FACES];
                int np = 0;
                for (int f = 0; f < br->face_count && np < AL_BRUSH_MAX_FACES; f++) {
                    const al_map_face *g = &br->faces[f];
                    if (al_plane_from_points(g->points[0], g->points[1], g->points[2],
                                             planes[np].normal, &planes[np].dist)) {
                        planes[np].type = al_plane_type(planes[np].normal);
                        np++;
                    }
                }
                for (int f = 0, p = 0; f < br->face_count; f++) {
                    const al_map_face *g = &br->faces[f];
                    double pts[AL_BRUSH_POLYGON_MAX][3];
                    if (!al_plane_from_points(g->points[0], g->points[1], g->points[2],
                                              (double[3]){0}, &(double){0}))
                        continue;
                    int k = al_brush_face_points(planes, NULL, np, p++, pts);
                    if (k < 3) continue;
                    face h = {.f = *g, .count = k};
                    memcpy(h.polygon, pts, sizeof pts);
                    double lo[2], hi[2];
                    range(&h, g, lo, hi);
                    double d = fmax(fmax(fabs(lo[0]), fabs(lo[1])),
                                    fmax(fabs(hi[0] - 64), fabs(hi[1] - 32)));
                    checked++;
                    if (d > 1e-6)
                        off++;
                    else
                        worst = fmax(worst, d);
                }
            }
        al_map_destroy(out);
        /* A face the fit refused (a Valve axis across it) keeps its texture. */
        CHECK_MSG(off <= refused, "%s: %d faces off the fit, %d refused", names[m], off, refused);
        CHECK_MSG(checked > 1000 && refused * 100 < n, "%s: %d faces checked, %d refused", names[m],
                  checked, refused);
        check_note("%s: %d faces fitted and checked, worst edge %g texels, %d refused", names[m],
                   checked - off, worst, refused);
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        char *after = map_text(doc);
        CHECK_MSG(after && strcmp(before, after) == 0, "%s: undo does not give the map back",
                  names[m]);
        free(before);
        free(after);
        free(sizes);
        free(refs);
        al_doc_close(doc);
        maps++;
    }
    if (!maps) check_skip("the real maps are not in the shared maps folder");
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
