/* Vertex editing (data/vertex): moving corners, edges and faces of brushes, and splitting
 * an edge or a face by a new corner.
 *
 * Oracles, none of which uses the code under test:
 *  - a brute-force solid check: every corner found as the meeting point of three face
 *    planes that lies behind every plane; the brush is valid when each corner lies on at
 *    least 3 planes, each plane holds a face of at least 3 corners spanning an area,
 *    Euler's V - E + F = 2 holds (closed), the volume (fan triangles from the centroid)
 *    is above the minimum, and the compiler's own brush builder accepts it;
 *  - the corners of a moved brush are exactly the old corners with the dragged ones moved
 *    (coincident ones merged);
 *  - a refusal is right: some corner cannot be proven a corner of the hull by sampling
 *    directions (a direction in which it is strictly the farthest), or the move flattens;
 *  - closed-form volumes of a box with a face, an edge or a corner moved, and with a
 *    corner added beyond the middle of an edge or the centre of a face;
 *  - a split's brush has exactly the old corners and the new one; a refused split has a
 *    point (old or new) that sampling cannot prove a corner of their hull.
 * Random moves of random boxes and of the brushes of id's e1m1 (skipped without the
 * shared maps), and the document edit: one undoable step, undo restores the faces.
 */
#include "check.h"
#include "doc-fixture.h"
#include "scene.h"

#include "mapfile/map.h"
#include "store/document.h"
#include "store/map-doc.h"
#include "vertex/vertex.h"

#include "al-brush.h"
#include "al-plane.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-3

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double) (rng_state >> 11) / 9007199254740992.0;
}

static int pick(int n)
{
    int k = (int) (uniform() * n);
    return k < n ? k : n - 1;
}

/* --- the brute-force solid check ------------------------------------------------------- */

typedef struct solid_check {
    int vertex_count, edge_count, face_count;
    double v[600][3];
    double volume;
    char why[200];
} solid_check;

static bool solve3(const al_plane *a, const al_plane *b, const al_plane *c, double out[3])
{
    const double *n0 = a->normal, *n1 = b->normal, *n2 = c->normal;
    double det = n0[0] * (n1[1] * n2[2] - n1[2] * n2[1]) - n0[1] * (n1[0] * n2[2] - n1[2] * n2[0]) +
                 n0[2] * (n1[0] * n2[1] - n1[1] * n2[0]);
    if (fabs(det) < 1e-9) return false;
    double d0 = a->dist, d1 = b->dist, d2 = c->dist;
    out[0] = (d0 * (n1[1] * n2[2] - n1[2] * n2[1]) - n0[1] * (d1 * n2[2] - n1[2] * d2) +
              n0[2] * (d1 * n2[1] - n1[1] * d2)) /
             det;
    out[1] = (n0[0] * (d1 * n2[2] - n1[2] * d2) - d0 * (n1[0] * n2[2] - n1[2] * n2[0]) +
              n0[2] * (n1[0] * d2 - d1 * n2[0])) /
             det;
    out[2] = (n0[0] * (n1[1] * d2 - d1 * n2[1]) - n0[1] * (n1[0] * d2 - d1 * n2[0]) +
              d0 * (n1[0] * n2[1] - n1[1] * n2[0])) /
             det;
    return true;
}

static double dist(const al_plane *p, const double x[3])
{
    return p->normal[0] * x[0] + p->normal[1] * x[1] + p->normal[2] * x[2] - p->dist;
}

static int find_point(double (*v)[3], int n, const double p[3])
{
    for (int i = 0; i < n; i++)
        if (fabs(v[i][0] - p[0]) <= EPS && fabs(v[i][1] - p[1]) <= EPS &&
            fabs(v[i][2] - p[2]) <= EPS)
            return i;
    return -1;
}

/* Whether FACES bound a valid brush (see the file comment), its corners into OUT. */
static bool oracle(const al_doc_face *faces, int n, solid_check *out)
{
    memset(out, 0, sizeof *out);
    al_plane pl[AL_BRUSH_MAX_FACES];
    for (int f = 0; f < n; f++)
        if (!al_plane_from_points(faces[f].points[0], faces[f].points[1], faces[f].points[2],
                                  pl[f].normal, &pl[f].dist)) {
            snprintf(out->why, sizeof out->why, "face %d has no plane", f);
            return false;
        }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                double p[3];
                if (!solve3(&pl[i], &pl[j], &pl[k], p)) continue;
                bool inside = true;
                for (int q = 0; q < n && inside; q++) inside = dist(&pl[q], p) <= EPS;
                if (inside && find_point(out->v, out->vertex_count, p) < 0 &&
                    out->vertex_count < 600)
                    memcpy(out->v[out->vertex_count++], p, sizeof p);
            }
    double c[3] = {0, 0, 0};
    for (int i = 0; i < out->vertex_count; i++)
        for (int k = 0; k < 3; k++) c[k] += out->v[i][k] / out->vertex_count;
    for (int i = 0; i < out->vertex_count; i++) {
        int on = 0;
        for (int q = 0; q < n; q++) on += fabs(dist(&pl[q], out->v[i])) <= EPS;
        if (on < 3) {
            snprintf(out->why, sizeof out->why, "corner %d on %d planes", i, on);
            return false;
        }
        for (int j = i + 1; j < out->vertex_count; j++) {
            int shared = 0;
            for (int q = 0; q < n; q++)
                shared +=
                    fabs(dist(&pl[q], out->v[i])) <= EPS && fabs(dist(&pl[q], out->v[j])) <= EPS;
            out->edge_count += shared >= 2;
        }
    }
    for (int q = 0; q < n; q++) {
        /* The face's corners, ordered by angle about their centre, fanned from it. */
        int idx[600], m = 0;
        double fc[3] = {0, 0, 0};
        for (int i = 0; i < out->vertex_count; i++)
            if (fabs(dist(&pl[q], out->v[i])) <= EPS) idx[m++] = i;
        if (m < 3) {
            snprintf(out->why, sizeof out->why, "face %d has %d corners", q, m);
            return false;
        }
        for (int i = 0; i < m; i++)
            for (int k = 0; k < 3; k++) fc[k] += out->v[idx[i]][k] / m;
        double u[3], w[3], *nn = pl[q].normal;
        for (int k = 0; k < 3; k++) u[k] = out->v[idx[0]][k] - fc[k];
        w[0] = nn[1] * u[2] - nn[2] * u[1], w[1] = nn[2] * u[0] - nn[0] * u[2],
        w[2] = nn[0] * u[1] - nn[1] * u[0];
        double ang[600];
        for (int i = 0; i < m; i++) {
            double d[3];
            for (int k = 0; k < 3; k++) d[k] = out->v[idx[i]][k] - fc[k];
            ang[i] = atan2(d[0] * w[0] + d[1] * w[1] + d[2] * w[2],
                           d[0] * u[0] + d[1] * u[1] + d[2] * u[2]);
        }
        for (int i = 1; i < m; i++)
            for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
                double t = ang[j];
                ang[j] = ang[j - 1], ang[j - 1] = t;
                int s = idx[j];
                idx[j] = idx[j - 1], idx[j - 1] = s;
            }
        double area = 0, h = -dist(&pl[q], c);
        for (int i = 0; i < m; i++) {
            const double *a = out->v[idx[i]], *b = out->v[idx[(i + 1) % m]];
            double e1[3], e2[3], x[3];
            for (int k = 0; k < 3; k++) e1[k] = a[k] - fc[k], e2[k] = b[k] - fc[k];
            x[0] = e1[1] * e2[2] - e1[2] * e2[1], x[1] = e1[2] * e2[0] - e1[0] * e2[2],
            x[2] = e1[0] * e2[1] - e1[1] * e2[0];
            area += 0.5 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        }
        if (area <= 1e-3) {
            snprintf(out->why, sizeof out->why, "face %d has no area", q);
            return false;
        }
        out->volume += area * h / 3;
        out->face_count++;
    }
    if (out->vertex_count - out->edge_count + out->face_count != 2) {
        snprintf(out->why, sizeof out->why, "not closed: V %d - E %d + F %d != 2",
                 out->vertex_count, out->edge_count, out->face_count);
        return false;
    }
    if (!(out->volume > AL_BRUSH_MIN_VOLUME)) {
        snprintf(out->why, sizeof out->why, "no volume (%g)", out->volume);
        return false;
    }
    /* The compiler's brush builder takes it too. */
    al_face_desc fd[AL_BRUSH_MAX_FACES];
    memset(fd, 0, sizeof fd);
    for (int f = 0; f < n; f++) memcpy(fd[f].points, faces[f].points, sizeof fd[f].points);
    al_brush_desc bd = {.entity = 0, .first_face = 0, .face_count = n};
    al_entity_desc ed = {.classname = "worldspawn"};
    al_input in = {.entities = &ed,
                   .entity_count = 1,
                   .brushes = &bd,
                   .brush_count = 1,
                   .faces = fd,
                   .face_count = n};
    al_brush_builder *b = al_brush_builder_create();
    al_brush_measure m;
    bool nomem = false, built = b && al_brush_builder_measure(b, &in, 0, &m, NULL, &nomem);
    al_brush_builder_destroy(b);
    if (!built) {
        snprintf(out->why, sizeof out->why, "the compiler's brush builder refuses it");
        return false;
    }
    if (fabs(m.volume - out->volume) > 1e-6 * fmax(1, m.volume)) {
        snprintf(out->why, sizeof out->why, "volume %g, the builder measures %g", out->volume,
                 m.volume);
        return false;
    }
    return true;
}

/* Whether P[I] is proven a corner of the hull of the COUNT points P: some sampled direction
 * in which it is farther than every other point by more than EPS. */
static bool proven_corner(const double (*p)[3], int count, int i)
{
    for (int s = 0; s < 20000; s++) {
        double d[3] = {uniform() * 2 - 1, uniform() * 2 - 1, uniform() * 2 - 1};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len < 1e-3 || len > 1) continue;
        double best = d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2];
        bool farthest = true;
        for (int q = 0; q < count && farthest; q++)
            if (q != i)
                farthest = d[0] * p[q][0] + d[1] * p[q][1] + d[2] * p[q][2] < best - EPS * len;
        if (farthest) return true;
    }
    return false;
}

/* The expected corners after moving those at FROM by DELTA, merged, into OUT. */
static int expected_corners(const solid_check *before, const double (*from)[3], int from_count,
                            const double delta[3], double (*out)[3])
{
    int n = 0;
    for (int i = 0; i < before->vertex_count; i++) {
        double p[3];
        memcpy(p, before->v[i], sizeof p);
        for (int k = 0; k < from_count; k++)
            if (find_point((double(*)[3]) from[k], 1, p) == 0) {
                for (int a = 0; a < 3; a++) p[a] += delta[a];
                break;
            }
        if (find_point(out, n, p) < 0) memcpy(out[n++], p, sizeof p);
    }
    return n;
}

typedef struct tally {
    int moved, refused_concave, refused_flat, wrong;
} tally;

/* Moves a random handle (corner, edge or face) of FACES by DELTA and checks the result
 * against the oracles; counts into T. */
static void check_random_move(const al_doc_face *faces, int count, const double delta[3], tally *t,
                              const char *what)
{
    solid_check before;
    if (!oracle(faces, count, &before)) return; /* not a brush this test can judge */
    al_vertex_geometry *g = malloc(sizeof *g);
    REQUIRE(g);
    char why[256];
    REQUIRE_MSG(al_vertex_geometry_build(faces, count, g, why, sizeof why), "%s: %s", what, why);
    CHECK_MSG(g->vertex_count == before.vertex_count, "%s: %d corners, the oracle finds %d", what,
              g->vertex_count, before.vertex_count);
    CHECK_MSG(g->edge_count == before.edge_count, "%s: %d edges, the oracle finds %d", what,
              g->edge_count, before.edge_count);
    double from[AL_VERTEX_MAX][3];
    int from_count = 0, kind = pick(3);
    if (kind == 0) {
        memcpy(from[from_count++], g->vertices[pick(g->vertex_count)], sizeof from[0]);
    } else if (kind == 1) {
        int e = pick(g->edge_count);
        memcpy(from[from_count++], g->vertices[g->edges[e][0]], sizeof from[0]);
        memcpy(from[from_count++], g->vertices[g->edges[e][1]], sizeof from[0]);
    } else {
        int f = pick(g->face_count);
        for (int k = g->face_first[f]; k < g->face_first[f + 1]; k++)
            memcpy(from[from_count++], g->vertices[g->face_points[k]], sizeof from[0]);
    }
    al_doc_face out[AL_BRUSH_MAX_FACES];
    int n = 0;
    al_status st = al_vertex_move(faces, count, (const double(*)[3]) from, from_count, delta, out,
                                  &n, why, sizeof why);
    static double expect[AL_VERTEX_MAX][3];
    int m = expected_corners(&before, (const double(*)[3]) from, from_count, delta, expect);
    if (st == AL_OK) {
        solid_check after;
        bool valid = oracle(out, n, &after);
        CHECK_MSG(valid, "%s: the moved brush is not valid: %s", what, after.why);
        bool same = valid && after.vertex_count == m;
        for (int i = 0; same && i < m; i++)
            same = find_point(after.v, after.vertex_count, expect[i]) >= 0;
        CHECK_MSG(same, "%s: the moved brush has %d corners, %d expected", what, after.vertex_count,
                  m);
        /* A face whose plane stays keeps its texture; every face has a material of the old. */
        for (int f = 0; f < n; f++) {
            bool known = false;
            for (int k = 0; k < count && !known; k++) known = out[f].material == faces[k].material;
            CHECK_MSG(known, "%s: face %d has a material the brush did not have", what, f);
        }
        if (!valid || !same) t->wrong++;
        t->moved++;
    } else {
        CHECK_MSG(st == AL_ERR_INVALID_ARGUMENT, "%s: status %d (%s)", what, st, why);
        bool all_corners = m >= 4;
        for (int i = 0; all_corners && i < m; i++)
            all_corners = proven_corner((const double(*)[3]) expect, m, i);
        bool flat = strstr(why, "flat") || strstr(why, "volume");
        CHECK_MSG(!all_corners || flat,
                  "%s: refused (%s) though every corner is a corner of the hull", what, why);
        if (all_corners && !flat) t->wrong++;
        if (flat)
            t->refused_flat++;
        else
            t->refused_concave++;
    }
    free(g);
}

/* --- tests ------------------------------------------------------------------------------ */

/* The brush from moving the corners FROM of the box [0,a]x[0,b]x[0,c] by DELTA. */
static al_status move_box(double a, double b, double c, const double (*from)[3], int from_count,
                          const double delta[3], solid_check *after, char *why, size_t why_size)
{
    al_doc_face box[6], out[AL_BRUSH_MAX_FACES];
    fixture_box_faces(0, 0, 0, a, b, c, "wall", box);
    int n = 0;
    al_status st = al_vertex_move(box, 6, from, from_count, delta, out, &n, why, why_size);
    if (st == AL_OK && !oracle(out, n, after)) {
        snprintf(why, why_size, "invalid: %s", after->why);
        return AL_ERR_INVALID_ARGUMENT;
    }
    return st;
}

CHECK_TEST(box_closed_forms, "/vertex/box-face-edge-and-corner-moves-have-closed-form-volumes")
{
    const double a = 64, b = 32, c = 16, d = 8;
    solid_check s;
    char why[256];
    /* The +X face moved out by D: a longer box. */
    const double face[4][3] = {{a, 0, 0}, {a, b, 0}, {a, 0, c}, {a, b, c}};
    REQUIRE_MSG(move_box(a, b, c, face, 4, (double[3]){d, 0, 0}, &s, why, sizeof why) == AL_OK,
                "%s", why);
    CHECK_NEAR(s.volume, (a + d) * b * c, 1e-6);
    CHECK(s.vertex_count == 8 && s.face_count == 6);
    /* The top edge at y = b raised by D: a prism of trapezoid section. */
    const double edge[2][3] = {{0, b, c}, {a, b, c}};
    REQUIRE_MSG(move_box(a, b, c, edge, 2, (double[3]){0, 0, d}, &s, why, sizeof why) == AL_OK,
                "%s", why);
    CHECK_NEAR(s.volume, a * (b * c + b * d / 2), 1e-6);
    CHECK(s.vertex_count == 8 && s.face_count == 6);
    /* One top corner raised by D: the top folds along the diagonal through it (the higher
     * one), so the box gains two tetrahedra of base ab/2 and height D. */
    const double corner[1][3] = {{a, b, c}};
    REQUIRE_MSG(move_box(a, b, c, corner, 1, (double[3]){0, 0, d}, &s, why, sizeof why) == AL_OK,
                "%s", why);
    CHECK_NEAR(s.volume, a * b * c + a * b * d / 3, 1e-6);
    CHECK(s.vertex_count == 8 && s.face_count == 7);
    /* A top corner onto the bottom one below it: they merge, the corner is cut off. */
    REQUIRE_MSG(move_box(a, b, c, corner, 1, (double[3]){0, 0, -c}, &s, why, sizeof why) == AL_OK,
                "%s", why);
    CHECK_NEAR(s.volume, 5 * a * b * c / 6, 1e-6);
    CHECK(s.vertex_count == 7 && s.face_count == 7);
    /* The top edge at y = b onto the bottom edge: a wedge (a triangular prism). */
    REQUIRE_MSG(move_box(a, b, c, edge, 2, (double[3]){0, 0, -c}, &s, why, sizeof why) == AL_OK,
                "%s", why);
    CHECK_NEAR(s.volume, a * b * c / 2, 1e-6);
    CHECK(s.vertex_count == 6 && s.face_count == 5);
}

CHECK_TEST(box_refusals, "/vertex/concave-and-flat-moves-are-refused-with-a-reason")
{
    const double a = 64, b = 32, c = 16;
    solid_check s;
    char why[256];
    const double corner[1][3] = {{a, b, c}};
    /* Into the middle of the top face (a top-view drag to the centre): concave. */
    CHECK(move_box(a, b, c, corner, 1, (double[3]){-a / 2, -b / 2, 0}, &s, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "(32 16 16)") && strstr(why, "not be convex"), "%s", why);
    /* Inside the box. */
    CHECK(move_box(a, b, c, corner, 1, (double[3]){-a / 2, -b / 2, -c / 2}, &s, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "inside"), "%s", why);
    /* The whole top face onto the bottom: flat. */
    const double top[4][3] = {{0, 0, c}, {a, 0, c}, {0, b, c}, {a, b, c}};
    CHECK(move_box(a, b, c, top, 4, (double[3]){0, 0, -c}, &s, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "flat"), "%s", why);
    /* Nothing there. */
    const double none[1][3] = {{1, 2, 3}};
    CHECK(move_box(a, b, c, none, 1, (double[3]){8, 0, 0}, &s, why, sizeof why) ==
          AL_ERR_NOT_FOUND);
    /* A move that is not a number. */
    CHECK(move_box(a, b, c, corner, 1, (double[3]){NAN, 0, 0}, &s, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
}

CHECK_TEST(box_texture_kept, "/vertex/faces-on-their-old-planes-keep-their-textures")
{
    al_doc_face box[6], out[AL_BRUSH_MAX_FACES];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "wall", box);
    const char *names[6] = {"w0", "w1", "w2", "w3", "floor", "ceiling"};
    for (int f = 0; f < 6; f++)
        box[f].material = names[f], box[f].offset[0] = f * 3, box[f].rotation = f * 15;
    const double corner[1][3] = {{64, 64, 64}};
    int n = 0;
    char why[256];
    REQUIRE(al_vertex_move(box, 6, corner, 1, (double[3]){0, 0, 16}, out, &n, why, sizeof why) ==
            AL_OK);
    REQUIRE(n == 7);
    /* Five planes stay, in their old order, untouched; the top folds along the diagonal
     * through the raised corner into two new planes. */
    int kept = 0;
    for (int f = 0; f < n; f++)
        for (int k = 0; k < 6; k++)
            if (memcmp(&out[f], &box[k], sizeof out[f]) == 0) kept++;
    CHECK_MSG(kept == 5, "%d faces kept as they were", kept);
    /* Both new planes are nearest the old top: its texture. */
    for (int f = 5; f < 7; f++) {
        CHECK_MSG(strcmp(out[f].material, "ceiling") == 0, "face %d takes %s", f, out[f].material);
        CHECK(out[f].rotation == 75 && out[f].offset[0] == 15);
    }
}

CHECK_TEST(random_boxes, "/vertex/random-moves-of-random-boxes-give-valid-brushes-or-refusals")
{
    tally t = {0};
    for (int i = 0; i < 3000; i++) {
        double lo[3], hi[3], delta[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = 8 * (pick(17) - 8);
            hi[k] = lo[k] + 8 * (1 + pick(8));
            delta[k] = 8 * (pick(9) - 4) * (pick(3) == 0 ? 0 : 1);
        }
        if (delta[0] == 0 && delta[1] == 0 && delta[2] == 0) delta[pick(3)] = 8;
        al_doc_face box[6];
        fixture_box_faces(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], "wall", box);
        /* Half of them moved twice: corners of slanted brushes. */
        al_doc_face once[AL_BRUSH_MAX_FACES];
        int n = 6;
        memcpy(once, box, sizeof box);
        if (i % 2) {
            double from[1][3] = {{hi[0], hi[1], hi[2]}}, d1[3] = {8, 8, 8};
            char why[256];
            REQUIRE(al_vertex_move(box, 6, from, 1, d1, once, &n, why, sizeof why) == AL_OK);
        }
        char what[64];
        snprintf(what, sizeof what, "box %d", i);
        check_random_move(once, n, delta, &t, what);
        if (check_failed()) break;
    }
    check_note("%d moves, %d refused as concave, %d as flat", t.moved, t.refused_concave,
               t.refused_flat);
    CHECK(t.wrong == 0);
    CHECK(t.moved > 1000 && t.refused_concave > 100);
}

CHECK_TEST(real_brushes, "/vertex/random-moves-of-e1m1-brushes-give-valid-brushes-or-refusals")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    al_map *map = NULL;
    REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("vertex-e1m1.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
    al_map_destroy(map);
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
    tally t = {0};
    int judged = 0;
    for (int b = 0; b < count; b++) {
        al_doc_face *faces = NULL;
        int n = 0;
        REQUIRE(al_doc_read_faces(doc, ids[b], &faces, &n) == AL_OK);
        double delta[3] = {0, 0, 0};
        delta[pick(3)] = 8.0 * (pick(2) ? 1 : -1) * (1 + pick(4));
        char what[64];
        snprintf(what, sizeof what, "e1m1 brush %lld", (long long) ids[b]);
        int before = t.moved + t.refused_concave + t.refused_flat;
        check_random_move(faces, n, delta, &t, what);
        judged += t.moved + t.refused_concave + t.refused_flat > before;
        free(faces);
        if (check_failed()) break;
    }
    check_note("e1m1: %d brushes of %d judged; %d moved, %d refused as concave, %d as flat", judged,
               count, t.moved, t.refused_concave, t.refused_flat);
    CHECK(t.wrong == 0);
    CHECK(judged > 1000 && t.moved > 500);
    free(ids);
    al_doc_close(doc);
}

CHECK_TEST(doc_step, "/vertex/a-vertex-move-is-one-undoable-step")
{
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("vertex-step.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    al_doc_face box[6];
    int64_t ids[2];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "wall", box);
    REQUIRE(al_doc_add_brush(doc, 0, box, 6, &ids[0], NULL, NULL) == AL_OK);
    fixture_box_faces(64, 0, 0, 128, 64, 64, "floor", box);
    REQUIRE(al_doc_add_brush(doc, 0, box, 6, &ids[1], NULL, NULL) == AL_OK);
    al_doc_face *before = NULL;
    int nb = 0;
    REQUIRE(al_doc_read_faces(doc, ids[0], &before, &nb) == AL_OK);
    /* The corner both boxes share, raised: both change, in one step. */
    const double corner[1][3] = {{64, 64, 64}};
    al_doc_change change = {0};
    al_diag_list diags = {0};
    REQUIRE(al_doc_move_vertices(doc, ids, 2, corner, 1, (double[3]){0, 0, 16}, &change, &diags) ==
            AL_OK);
    CHECK(change.brush_count == 2);
    al_doc_change_clear(&change);
    for (int i = 0; i < 2; i++) {
        al_doc_face *f = NULL;
        int n = 0;
        REQUIRE(al_doc_read_faces(doc, ids[i], &f, &n) == AL_OK);
        solid_check s;
        CHECK_MSG(oracle(f, n, &s), "brush %d: %s", i, s.why);
        CHECK_NEAR(s.volume, 64.0 * 64 * 64 + 64.0 * 64 * 16 / 3, 1e-6);
        free(f);
    }
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) &&
          strcmp(label, "Move vertices") == 0);
    /* A concave move changes nothing and says why, naming the brush. */
    REQUIRE(al_doc_move_vertices(doc, ids, 1, (const double[1][3]){{0, 0, 0}}, 1,
                                 (double[3]){32, 32, 32}, NULL, &diags) == AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(diags.count == 1 && strstr(diags.items[0].message, "inside"), "%s",
              diags.count ? diags.items[0].message : "(none)");
    al_diag_list_clear(&diags);
    REQUIRE(al_doc_move_vertices(doc, ids, 2, (const double[1][3]){{5, 5, 5}}, 1,
                                 (double[3]){8, 0, 0}, NULL, &diags) == AL_ERR_NOT_FOUND);
    al_diag_list_clear(&diags);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    al_doc_face *after = NULL;
    int na = 0;
    REQUIRE(al_doc_read_faces(doc, ids[0], &after, &na) == AL_OK);
    bool same = na == nb;
    for (int f = 0; same && f < nb; f++)
        same = memcmp(after[f].points, before[f].points, sizeof after[f].points) == 0 &&
               strcmp(after[f].material, before[f].material) == 0;
    CHECK_MSG(same, "undo restores the faces");
    free(before), free(after);
    al_doc_close(doc);
}

/* Splits a random edge (at its middle) or face (at its centre) of FACES with the new
 * corner DELTA beyond it and checks the result against the oracles; counts into T. */
static void check_random_split(const al_doc_face *faces, int count, const double delta[3], tally *t,
                               const char *what)
{
    solid_check before;
    if (!oracle(faces, count, &before)) return;
    al_vertex_geometry *g = malloc(sizeof *g);
    REQUIRE(g);
    char why[256];
    REQUIRE_MSG(al_vertex_geometry_build(faces, count, g, why, sizeof why), "%s: %s", what, why);
    double at[3] = {0, 0, 0};
    if (pick(2) == 0) {
        int e = pick(g->edge_count);
        for (int k = 0; k < 3; k++)
            at[k] = 0.5 * (g->vertices[g->edges[e][0]][k] + g->vertices[g->edges[e][1]][k]);
    } else {
        int f = pick(g->face_count), n = g->face_first[f + 1] - g->face_first[f];
        for (int i = g->face_first[f]; i < g->face_first[f + 1]; i++)
            for (int k = 0; k < 3; k++) at[k] += g->vertices[g->face_points[i]][k] / n;
    }
    al_doc_face out[AL_BRUSH_MAX_FACES];
    int n = 0;
    al_status st = al_vertex_split(faces, count, at, delta, out, &n, why, sizeof why);
    /* The expected corners: the old ones and the new one. */
    static double expect[AL_VERTEX_MAX + 1][3];
    int m = before.vertex_count;
    memcpy(expect, before.v, (size_t) m * sizeof expect[0]);
    double p[3] = {at[0] + delta[0], at[1] + delta[1], at[2] + delta[2]};
    bool fresh = find_point(expect, m, p) < 0;
    if (fresh) memcpy(expect[m++], p, sizeof p);
    if (st == AL_OK) {
        solid_check after;
        bool valid = oracle(out, n, &after);
        CHECK_MSG(valid, "%s: the split brush is not valid: %s", what, after.why);
        bool same = valid && fresh && after.vertex_count == m;
        for (int i = 0; same && i < m; i++)
            same = find_point(after.v, after.vertex_count, expect[i]) >= 0;
        CHECK_MSG(same, "%s: the split brush has %d corners, %d expected", what,
                  valid ? after.vertex_count : -1, m);
        /* The hull holds the old brush: it cannot lose volume. */
        CHECK_MSG(!valid || after.volume >= before.volume - 1e-6 * before.volume,
                  "%s: the volume fell from %g to %g", what, before.volume, after.volume);
        if (!valid || !same) t->wrong++;
        t->moved++;
    } else {
        CHECK_MSG(st == AL_ERR_INVALID_ARGUMENT, "%s: status %d (%s)", what, st, why);
        bool all_corners = fresh;
        for (int i = 0; all_corners && i < m; i++)
            all_corners = proven_corner((const double(*)[3]) expect, m, i);
        bool too_many = strstr(why, "more than") != NULL;
        CHECK_MSG(!all_corners || too_many,
                  "%s: split refused (%s) though every point is a corner of the hull", what, why);
        if (all_corners && !too_many) t->wrong++;
        t->refused_concave++;
    }
    free(g);
}

CHECK_TEST(split_closed_forms, "/vertex/splitting-an-edge-or-a-face-of-a-box-has-closed-forms")
{
    const double a = 64, b = 32, c = 16, d = 8;
    al_doc_face box[6], out[AL_BRUSH_MAX_FACES];
    fixture_box_faces(0, 0, 0, a, b, c, "wall", box);
    int n = 0;
    char why[256];
    solid_check s;
    /* The top edge at y = b, its middle pulled out along +y in the top plane: a pyramid of
     * base a c (the +y side) and height d, whose top triangle joins the top face. */
    const double edge_mid[3] = {a / 2, b, c};
    REQUIRE_MSG(al_vertex_split(box, 6, edge_mid, (double[3]){0, d, 0}, out, &n, why, sizeof why) ==
                    AL_OK,
                "%s", why);
    REQUIRE_MSG(oracle(out, n, &s), "%s", s.why);
    CHECK_NEAR(s.volume, a * b * c + a * c * d / 3, 1e-6);
    CHECK_MSG(s.vertex_count == 9 && n == 8, "%d corners, %d faces", s.vertex_count, n);
    /* The centre of the top face raised: a pyramid on the top. */
    const double face_mid[3] = {a / 2, b / 2, c};
    REQUIRE_MSG(al_vertex_split(box, 6, face_mid, (double[3]){0, 0, d}, out, &n, why, sizeof why) ==
                    AL_OK,
                "%s", why);
    REQUIRE_MSG(oracle(out, n, &s), "%s", s.why);
    CHECK_NEAR(s.volume, a * b * c + a * b * d / 3, 1e-6);
    CHECK_MSG(s.vertex_count == 9 && n == 9, "%d corners, %d faces", s.vertex_count, n);
    /* The new faces take the texture of the face they rise from (the nearest normal). */
    for (int f = 5; f < n; f++) CHECK(out[f].material == box[5].material);
    /* No offset: the new corner would lie on the edge; pushed in: inside the brush. */
    CHECK(al_vertex_split(box, 6, edge_mid, (double[3]){0, 0, 0}, out, &n, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "on one of its edges"), "%s", why);
    CHECK(al_vertex_split(box, 6, face_mid, (double[3]){0, 0, -d}, out, &n, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "inside"), "%s", why);
    /* Pulled along the face's plane beyond its corner at (a, b): that corner would lie
     * inside the new top face, no longer a corner. */
    CHECK(al_vertex_split(box, 6, face_mid, (double[3]){a, b, 0}, out, &n, why, sizeof why) ==
          AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(why, "not be convex"), "%s", why);
    /* Not on the surface: inside, outside, or a corner. */
    const double inside[3] = {a / 2, b / 2, c / 2}, outside[3] = {a / 2, b / 2, c + 1},
                 corner[3] = {a, b, c};
    CHECK(al_vertex_split(box, 6, inside, (double[3]){0, 0, d}, out, &n, why, sizeof why) ==
          AL_ERR_NOT_FOUND);
    CHECK(al_vertex_split(box, 6, outside, (double[3]){0, 0, d}, out, &n, why, sizeof why) ==
          AL_ERR_NOT_FOUND);
    CHECK(al_vertex_split(box, 6, corner, (double[3]){0, 0, d}, out, &n, why, sizeof why) ==
          AL_ERR_NOT_FOUND);
    CHECK(al_vertex_split(box, 6, face_mid, (double[3]){INFINITY, 0, 0}, out, &n, why,
                          sizeof why) == AL_ERR_INVALID_ARGUMENT);
}

CHECK_TEST(random_splits, "/vertex/random-splits-of-boxes-and-e1m1-brushes-give-valid-brushes")
{
    tally t = {0};
    for (int i = 0; i < 3000; i++) {
        double lo[3], hi[3], delta[3];
        for (int k = 0; k < 3; k++) {
            lo[k] = 8 * (pick(17) - 8);
            hi[k] = lo[k] + 8 * (1 + pick(8));
            delta[k] = 4 * (pick(9) - 4) * (pick(3) == 0 ? 0 : 1);
        }
        al_doc_face box[6], once[AL_BRUSH_MAX_FACES];
        fixture_box_faces(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], "wall", box);
        int n = 6;
        memcpy(once, box, sizeof box);
        if (i % 2) {
            double from[1][3] = {{hi[0], hi[1], hi[2]}}, d1[3] = {8, 8, 8};
            char why[256];
            REQUIRE(al_vertex_move(box, 6, from, 1, d1, once, &n, why, sizeof why) == AL_OK);
        }
        char what[64];
        snprintf(what, sizeof what, "box %d", i);
        check_random_split(once, n, delta, &t, what);
        if (check_failed()) break;
    }
    check_note("boxes: %d splits, %d refused", t.moved, t.refused_concave);
    CHECK(t.wrong == 0);
    CHECK(t.moved > 500 && t.refused_concave > 100);
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    al_map *map = NULL;
    REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("vertex-split-e1m1.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
    al_map_destroy(map);
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
    tally r = {0};
    for (int b = 0; b < count; b++) {
        al_doc_face *faces = NULL;
        int n = 0;
        REQUIRE(al_doc_read_faces(doc, ids[b], &faces, &n) == AL_OK);
        double delta[3] = {0, 0, 0};
        delta[pick(3)] = 4.0 * (pick(2) ? 1 : -1) * (1 + pick(4));
        char what[64];
        snprintf(what, sizeof what, "e1m1 brush %lld", (long long) ids[b]);
        check_random_split(faces, n, delta, &r, what);
        free(faces);
        if (check_failed()) break;
    }
    check_note("e1m1: %d brushes; %d split, %d refused", count, r.moved, r.refused_concave);
    CHECK(r.wrong == 0);
    CHECK(r.moved > 300);
    free(ids);
    al_doc_close(doc);
}

/* Whether the brush at INDEX of two readings has the same faces (points and material). */
static bool same_live_brush(const al_doc_live *a, const al_doc_live *b, int index)
{
    const al_live_brush *x = &a->change.brushes[index], *y = &b->change.brushes[index];
    if (x->face_count != y->face_count) return false;
    for (int f = 0; f < x->face_count; f++)
        if (memcmp(x->faces[f].points, y->faces[f].points, sizeof x->faces[f].points) != 0 ||
            x->faces[f].material != y->faces[f].material)
            return false;
    return true;
}

CHECK_TEST(split_step, "/vertex/a-split-is-one-undoable-step-and-its-preview-is-what-it-writes")
{
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("vertex-split.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    al_doc_face box[6];
    int64_t ids[2];
    fixture_box_faces(0, 0, 0, 64, 64, 64, "wall", box);
    REQUIRE(al_doc_add_brush(doc, 0, box, 6, &ids[0], NULL, NULL) == AL_OK);
    fixture_box_faces(128, 0, 0, 192, 64, 64, "floor", box);
    REQUIRE(al_doc_add_brush(doc, 0, box, 6, &ids[1], NULL, NULL) == AL_OK);
    al_doc_face *before = NULL;
    int nb = 0;
    REQUIRE(al_doc_read_faces(doc, ids[0], &before, &nb) == AL_OK);
    /* The middle of the first box's +x top edge pulled out: only that brush has it. */
    const double at[3] = {64, 32, 64}, delta[3] = {16, 0, 16};
    al_doc_brush_change rows_b[2] = {{.brush = ids[0]}, {.brush = ids[1]}};
    al_doc_change rows = {.brushes = rows_b, .brush_count = 2};
    al_doc_live preview, committed;
    char why[256] = "";
    REQUIRE(al_doc_live_read(doc, &rows, &preview, NULL) == AL_OK);
    REQUIRE_MSG(al_doc_live_split_vertex(doc, &preview, at, delta, why, sizeof why) == AL_OK, "%s",
                why);
    al_doc_change change = {0};
    al_diag_list diags = {0};
    REQUIRE(al_doc_split_vertex(doc, ids, 2, at, delta, &change, &diags) == AL_OK);
    CHECK(change.brush_count == 1);
    al_doc_change_clear(&change);
    REQUIRE(al_doc_live_read(doc, &rows, &committed, NULL) == AL_OK);
    CHECK_MSG(same_live_brush(&preview, &committed, 0) && same_live_brush(&preview, &committed, 1),
              "the preview is what the edit writes");
    al_doc_live_free(&preview);
    al_doc_live_free(&committed);
    al_doc_face *f = NULL;
    int n = 0;
    REQUIRE(al_doc_read_faces(doc, ids[0], &f, &n) == AL_OK);
    solid_check s;
    CHECK_MSG(oracle(f, n, &s), "%s", s.why);
    CHECK(s.vertex_count == 9);
    free(f);
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Add vertex") == 0);
    /* Refused as a whole: a point on neither brush; a split into the brush. */
    CHECK(al_doc_split_vertex(doc, ids, 2, (double[3]){96, 32, 32}, delta, NULL, &diags) ==
          AL_ERR_NOT_FOUND);
    al_diag_list_clear(&diags);
    CHECK(al_doc_split_vertex(doc, ids, 2, (double[3]){160, 32, 64}, (double[3]){0, 0, -8}, NULL,
                              &diags) == AL_ERR_INVALID_ARGUMENT);
    CHECK_MSG(diags.count == 1 && strstr(diags.items[0].message, "inside"), "%s",
              diags.count ? diags.items[0].message : "(none)");
    al_diag_list_clear(&diags);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    al_doc_face *after = NULL;
    int na = 0;
    REQUIRE(al_doc_read_faces(doc, ids[0], &after, &na) == AL_OK);
    bool same = na == nb;
    for (int i = 0; same && i < nb; i++)
        same = memcmp(after[i].points, before[i].points, sizeof after[i].points) == 0;
    CHECK_MSG(same, "undo restores the faces");
    free(before), free(after);
    al_doc_close(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
