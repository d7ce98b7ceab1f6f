/* Shapes (data/shapes) and free transforms of brushes (rotation and scale matrices applied by
 * al_doc_transform_brushes).
 *
 * Oracles: every generated brush is built by the compiler's own brush builder (valid,
 * convex, its volume and bounds measured), the shape's volume against the closed form of
 * the polygonal solid, its bounds against the parameters; random parameter sweeps either
 * give valid brushes of the right volume or a refusal with a message. Rotated boxes are
 * compared with the closed form of their corners, written to a .map and read back bit for
 * bit; the brushes of a real map turned by random angles keep each its volume.
 */
#include "check.h"
#include "doc-fixture.h"
#include "scene.h"

#include "mapfile/map-write.h"
#include "mapfile/map.h"
#include "shapes/shapes.h"
#include "store/document.h"
#include "store/map-doc.h"

#include "al-brush.h"
#include "al-plane.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* --- helpers --------------------------------------------------------------------------- */

/* What the compiler's brush builder makes of a shape's brushes. */
typedef struct measured {
    int invalid;             /* brushes the builder refuses */
    double volume;           /* of the valid ones, summed */
    double mins[3], maxs[3]; /* bounds of the valid ones */
    char why[200];           /* the first refusal */
} measured;

static void measure_faces(const double (*faces)[3][3], const int *first_face, int brush_count,
                          measured *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 3; k++) out->mins[k] = INFINITY, out->maxs[k] = -INFINITY;
    al_brush_builder *builder = al_brush_builder_create();
    if (!builder) {
        out->invalid = brush_count;
        return;
    }
    for (int b = 0; b < brush_count; b++) {
        int n = first_face[b + 1] - first_face[b];
        al_face_desc *fd = calloc((size_t) n, sizeof *fd);
        if (!fd) {
            out->invalid++;
            continue;
        }
        for (int f = 0; f < n; f++) {
            memcpy(fd[f].points, faces[first_face[b] + f], sizeof fd[f].points);
            fd[f].material = -1;
        }
        al_entity_desc world = {.classname = "worldspawn", .line = -1};
        al_brush_desc brush = {
            .entity = 0, .index = b, .first_face = 0, .face_count = n, .line = -1};
        al_input in = {.entities = &world,
                       .entity_count = 1,
                       .brushes = &brush,
                       .brush_count = 1,
                       .faces = fd,
                       .face_count = n};
        al_brush_measure m;
        al_diag_list d = {0};
        bool nomem = false;
        if (al_brush_builder_measure(builder, &in, 0, &m, &d, &nomem) &&
            al_diag_count(&d, AL_SEVERITY_WARNING) == 0) {
            out->volume += m.volume;
            for (int k = 0; k < 3; k++) {
                out->mins[k] = fmin(out->mins[k], m.mins[k]);
                out->maxs[k] = fmax(out->maxs[k], m.maxs[k]);
            }
        } else {
            /* A face the builder ignores (repeated, not touching) is a flaw of the
             * generator too. */
            if (!out->invalid)
                snprintf(out->why, sizeof out->why, "brush %d: %.150s", b,
                         d.count ? d.items[0].message : "out of memory");
            out->invalid++;
        }
        al_diag_list_clear(&d);
        free(fd);
    }
    al_brush_builder_destroy(builder);
}

static void measure_shape(const al_shape *s, measured *out)
{
    measure_faces((const double(*)[3][3]) s->faces, s->first_face, s->brush_count, out);
}

/* The area of a regular polygon of N sides and circumradius R. */
static double polygon_area(int n, double r)
{
    return 0.5 * n * r * r * sin(2 * M_PI / n);
}

/* The volume of the polygonal solid D describes, in closed form. */
static double closed_form_volume(const al_shape_desc *d)
{
    int n = d->segments;
    switch (d->kind) {
    case AL_SHAPE_CYLINDER:
        return polygon_area(n, d->radius) * d->height;
    case AL_SHAPE_CONE:
        return polygon_area(n, d->radius) * d->height / 3;
    case AL_SHAPE_SPHERE: {
        /* Each band is a frustum of a pyramid over similar polygons. */
        double v = 0;
        for (int j = 0; j < d->rings; j++) {
            double p0 = -M_PI / 2 + M_PI * j / d->rings, p1 = -M_PI / 2 + M_PI * (j + 1) / d->rings;
            double a0 = polygon_area(n, d->radius * cos(p0)),
                   a1 = polygon_area(n, d->radius * cos(p1));
            if (j == 0) a0 = 0;
            if (j + 1 == d->rings) a1 = 0;
            double h = d->radius * (sin(p1) - sin(p0));
            v += h / 3 * (a0 + a1 + sqrt(a0 * a1));
        }
        return v;
    }
    case AL_SHAPE_ARCH:
        return n * 0.5 * (d->radius * d->radius - d->inner_radius * d->inner_radius) *
               sin(d->angle * M_PI / 180 / n) * d->thickness;
    case AL_SHAPE_STAIRS:
        return d->width * d->length * d->height * (d->steps + 1) / (2.0 * d->steps);
    default:
        return 0;
    }
}

static bool near_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-9;
}

/* --- shapes ---------------------------------------------------------------------------- */

CHECK_TEST(cylinder_closed_form, "/shapes/cylinder-is-one-valid-prism-of-the-closed-form-volume")
{
    for (int axis = 0; axis < 3; axis++) {
        al_shape_desc d = {.kind = AL_SHAPE_CYLINDER,
                           .axis = axis,
                           .segments = 16,
                           .radius = 64,
                           .height = 128,
                           .centre = {32, -48, 100}};
        al_shape s;
        REQUIRE(al_shape_build(&d, &s, NULL) == AL_OK);
        CHECK(s.brush_count == 1 && s.face_count == 18);
        measured m;
        measure_shape(&s, &m);
        CHECK_MSG(m.invalid == 0, "%s", m.why);
        CHECK_MSG(near_rel(m.volume, 8 * 64 * 64 * sin(2 * M_PI / 16) * 128, 1e-9), "volume %.9g",
                  m.volume);
        for (int k = 0; k < 3; k++) {
            /* Along the axis: the height; across: the polygon's width, 2 r cos(pi/16) for
             * 16 sides set half a side off the axes. */
            double extent = k == axis ? 128 : 2 * 64 * cos(M_PI / 16);
            CHECK_NEAR(m.maxs[k] - m.mins[k], extent, 1e-9);
            CHECK_NEAR(0.5 * (m.maxs[k] + m.mins[k]), d.centre[k], 1e-9);
            CHECK_NEAR(s.maxs[k] - s.mins[k], extent, 1e-9);
        }
        al_shape_free(&s);
    }
}

CHECK_TEST(each_shape_closed_form, "/shapes/every-shape-is-valid-brushes-of-the-closed-form-volume")
{
    const al_shape_desc cases[] = {
        {.kind = AL_SHAPE_CONE, .axis = 2, .segments = 12, .radius = 48, .height = 96},
        {.kind = AL_SHAPE_SPHERE, .axis = 2, .segments = 16, .rings = 8, .radius = 128},
        {.kind = AL_SHAPE_SPHERE, .axis = 0, .segments = 5, .rings = 3, .radius = 40},
        {.kind = AL_SHAPE_ARCH,
         .axis = 1,
         .segments = 8,
         .radius = 128,
         .inner_radius = 96,
         .thickness = 32,
         .angle = 180},
        {.kind = AL_SHAPE_ARCH,
         .axis = 2,
         .segments = 12,
         .radius = 64,
         .inner_radius = 8,
         .thickness = 16,
         .angle = 360},
        {.kind = AL_SHAPE_STAIRS, .axis = 0, .steps = 8, .width = 64, .length = 128, .height = 128},
        {.kind = AL_SHAPE_STAIRS, .axis = 1, .steps = 3, .width = 48, .length = 50, .height = 7},
    };
    const int brushes[] = {1, 8, 3, 8, 12, 8, 3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        al_shape s;
        al_diag_list diags = {0};
        REQUIRE_MSG(al_shape_build(&cases[i], &s, &diags) == AL_OK, "case %zu: %s", i,
                    diags.count ? diags.items[0].message : "");
        CHECK_MSG(s.brush_count == brushes[i], "case %zu: %d brushes", i, s.brush_count);
        measured m;
        measure_shape(&s, &m);
        CHECK_MSG(m.invalid == 0, "case %zu: %s", i, m.why);
        double expected = closed_form_volume(&cases[i]);
        CHECK_MSG(near_rel(m.volume, expected, 1e-9), "case %zu: volume %.12g, closed form %.12g",
                  i, m.volume, expected);
        al_shape_free(&s);
    }
}

CHECK_TEST(exact_bounds, "/shapes/bounds-are-the-parameters")
{
    /* Stairs fill their box; a sphere reaches its poles; an arch of 180 degrees spans two
     * outer radii and rises one; each is centred where asked. */
    al_shape_desc stairs = {.kind = AL_SHAPE_STAIRS,
                            .axis = 1,
                            .steps = 6,
                            .width = 64,
                            .length = 96,
                            .height = 48,
                            .centre = {8, 16, 24}};
    al_shape_desc sphere = {
        .kind = AL_SHAPE_SPHERE, .axis = 2, .segments = 8, .rings = 6, .radius = 100};
    al_shape_desc arch = {.kind = AL_SHAPE_ARCH,
                          .axis = 0,
                          .segments = 6,
                          .radius = 96,
                          .inner_radius = 64,
                          .thickness = 16,
                          .angle = 180,
                          .centre = {0, 0, 48}};
    const al_shape_desc *d[3] = {&stairs, &sphere, &arch};
    const double size[3][3] = {
        {64, 96, 48}, {2 * 100 * cos(M_PI / 8), 2 * 100 * cos(M_PI / 8), 200}, {16, 192, 96}};
    for (int i = 0; i < 3; i++) {
        al_shape s;
        REQUIRE(al_shape_build(d[i], &s, NULL) == AL_OK);
        measured m;
        measure_shape(&s, &m);
        CHECK_MSG(m.invalid == 0, "shape %d: %s", i, m.why);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(m.maxs[k] - m.mins[k], size[i][k], 1e-9);
            CHECK_NEAR(0.5 * (m.maxs[k] + m.mins[k]), d[i]->centre[k], 1e-9);
        }
        al_shape_free(&s);
    }
    /* The stairs' steps: step k spans the k-th sixth of the run, k+1 sixths of the rise. */
    al_shape s;
    REQUIRE(al_shape_build(&stairs, &s, NULL) == AL_OK);
    for (int b = 0; b < s.brush_count; b++) {
        measured m;
        measure_faces((const double(*)[3][3]) s.faces, s.first_face + b, 1, &m);
        CHECK_NEAR(m.maxs[1] - m.mins[1], 16, 1e-9);
        CHECK_NEAR(m.mins[1], -32 + 16 * b, 1e-9);
        CHECK_NEAR(m.maxs[2] - m.mins[2], 8 * (b + 1), 1e-9);
        CHECK_NEAR(m.mins[2], 0, 1e-9);
    }
    al_shape_free(&s);
}

CHECK_TEST(refusals, "/shapes/values-that-make-no-solid-are-refused-with-the-reason")
{
    const struct {
        al_shape_desc d;
        const char *says;
    } bad[] = {
        {{.kind = AL_SHAPE_CYLINDER, .segments = 2, .radius = 8, .height = 8}, "3 to 120 sides"},
        {{.kind = AL_SHAPE_CONE, .segments = 8, .radius = 0, .height = 8}, "radius"},
        {{.kind = AL_SHAPE_CYLINDER, .segments = 8, .radius = 8, .height = -1}, "height"},
        {{.kind = AL_SHAPE_CYLINDER, .segments = 8, .radius = 8, .height = NAN}, "height"},
        {{.kind = AL_SHAPE_SPHERE, .segments = 8, .rings = 1, .radius = 8}, "rings"},
        {{.kind = AL_SHAPE_ARCH,
          .segments = 1,
          .radius = 8,
          .inner_radius = 4,
          .thickness = 4,
          .angle = 180},
         "less than 180"},
        {{.kind = AL_SHAPE_ARCH,
          .segments = 4,
          .radius = 8,
          .inner_radius = 8,
          .thickness = 4,
          .angle = 90},
         "outer radius"},
        {{.kind = AL_SHAPE_STAIRS, .axis = 2, .steps = 4, .width = 8, .length = 8, .height = 8},
         "climb along"},
        {{.kind = AL_SHAPE_STAIRS, .steps = 0, .width = 8, .length = 8, .height = 8}, "steps"},
        {{.kind = AL_SHAPE_SPHERE, .segments = 120, .rings = 64, .radius = 2}, "too fine"},
        {{.kind = AL_SHAPE_CYLINDER,
          .segments = 8,
          .radius = 8,
          .height = 8,
          .centre = {131070, 0, 0}},
         "beyond the map's limits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        al_shape s;
        al_diag_list diags = {0};
        CHECK_MSG(al_shape_build(&bad[i].d, &s, &diags) == AL_ERR_INVALID_ARGUMENT, "case %zu", i);
        CHECK_MSG(s.brush_count == 0 && s.faces == NULL, "case %zu", i);
        CHECK_MSG(diags.count == 1 && strstr(diags.items[0].message, bad[i].says), "case %zu: %s",
                  i, diags.count ? diags.items[0].message : "(none)");
        al_diag_list_clear(&diags);
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double) (rng_state >> 11) / 9007199254740992.0;
}

/* Sizes from 0.05 to about 20,000 units, spread evenly in their logarithm. */
static double random_size(void)
{
    return 0.05 * exp(uniform() * log(400000.0));
}

CHECK_TEST(random_sweep, "/shapes/random-parameters-give-valid-brushes-or-a-reason")
{
    int accepted = 0, refused = 0, failures = 0;
    for (int i = 0; i < 3000; i++) {
        al_shape_desc d = {0};
        d.kind = (al_shape_kind) (uniform() * AL_SHAPE_COUNT);
        d.axis = (int) (uniform() * 3);
        d.segments = (int) (uniform() * 130);
        d.rings = (int) (uniform() * 20);
        d.steps = (int) (uniform() * 40);
        d.radius = random_size();
        d.inner_radius = uniform() < 0.8 ? d.radius * uniform() : random_size();
        d.height = random_size();
        d.thickness = random_size();
        d.width = random_size();
        d.length = random_size();
        d.angle = uniform() * 420 - 20;
        for (int k = 0; k < 3; k++) d.centre[k] = (uniform() - 0.5) * 8192;
        al_shape s;
        al_diag_list diags = {0};
        al_status st = al_shape_build(&d, &s, &diags);
        if (st != AL_OK) {
            refused++;
            CHECK_MSG(st == AL_ERR_INVALID_ARGUMENT && diags.count == 1 &&
                          strlen(diags.items[0].message) > 10,
                      "case %d refused without a reason", i);
            al_diag_list_clear(&diags);
            continue;
        }
        accepted++;
        measured m;
        measure_shape(&s, &m);
        double expected = closed_form_volume(&d);
        if (m.invalid || !near_rel(m.volume, expected, 1e-6)) {
            if (failures++ < 5)
                check_fail(__FILE__, __LINE__,
                           "case %d (%s, axis %d, %d segments, %d rings, %d steps, r %g, inner "
                           "%g, h %g, t %g, w %g, l %g, angle %g): %d invalid (%s), volume "
                           "%.12g against %.12g",
                           i, al_shape_name(d.kind), d.axis, d.segments, d.rings, d.steps, d.radius,
                           d.inner_radius, d.height, d.thickness, d.width, d.length, d.angle,
                           m.invalid, m.why, m.volume, expected);
        }
        al_shape_free(&s);
    }
    check_note("%d shapes built and checked, %d refused", accepted, refused);
    /* The sweep is worth something only if it builds many shapes. */
    CHECK(accepted >= 500);
}

CHECK_TEST(shape_in_document, "/shapes/a-shape-is-one-undoable-step-of-stored-brushes")
{
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("shapes.allium"), &doc, NULL) == AL_OK);
    al_shape_desc d = {.kind = AL_SHAPE_SPHERE,
                       .axis = 2,
                       .segments = 12,
                       .rings = 6,
                       .radius = 64,
                       .centre = {0, 0, 64}};
    al_shape s;
    REQUIRE(al_shape_build(&d, &s, NULL) == AL_OK);
    al_doc_face *faces = calloc((size_t) s.face_count, sizeof *faces);
    REQUIRE(faces);
    for (int f = 0; f < s.face_count; f++) {
        memcpy(faces[f].points, s.faces[f], sizeof faces[f].points);
        faces[f].material = "rock";
        faces[f].scale[0] = faces[f].scale[1] = 1;
    }
    int64_t ids[6];
    al_doc_change change = {0};
    CHECK(al_doc_add_brushes(doc, 0, "Add sphere", faces, s.first_face, s.brush_count, ids, &change,
                             NULL) == AL_OK);
    CHECK(change.brush_count == 6);
    CHECK(al_doc_count(doc, "brushes") == 6);
    char label[64];
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Add sphere") == 0);
    al_doc_change_clear(&change);
    /* Undone in one step. */
    CHECK(al_doc_undo(doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 0);
    CHECK(al_doc_redo(doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 6);
    /* A refused brush refuses the step: nothing is added. */
    for (int i = 0; i < 3; i++) faces[s.first_face[3]].points[i][0] = 7 * i; /* collinear */
    faces[s.first_face[3]].points[0][1] = faces[s.first_face[3]].points[1][1] =
        faces[s.first_face[3]].points[2][1] = 0;
    faces[s.first_face[3]].points[0][2] = faces[s.first_face[3]].points[1][2] =
        faces[s.first_face[3]].points[2][2] = 0;
    al_diag_list diags = {0};
    CHECK(al_doc_add_brushes(doc, 0, "Add sphere", faces, s.first_face, s.brush_count, NULL, NULL,
                             &diags) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_count(doc, "brushes") == 6 && diags.count > 0);
    CHECK(al_doc_undo_label(doc, false, label, sizeof label) && strcmp(label, "Add sphere") == 0);
    al_diag_list_clear(&diags);
    free(faces);
    al_shape_free(&s);
    al_doc_close(doc);
}

/* --- rotation and scale ---------------------------------------------------------------- */

/* The corners of brush INDEX of IN: every corner of its face polygons, without repeats. */
static int brush_corners(const al_input *in, int index, double (*out)[3], int room)
{
    const al_brush_desc *b = &in->brushes[index];
    al_plane planes[AL_BRUSH_MAX_FACES];
    for (int f = 0; f < b->face_count; f++) {
        const al_face_desc *fd = &in->faces[b->first_face + f];
        if (!al_plane_from_points(fd->points[0], fd->points[1], fd->points[2], planes[f].normal,
                                  &planes[f].dist))
            return -1;
        planes[f].type = al_plane_type(planes[f].normal);
    }
    int count = 0;
    for (int f = 0; f < b->face_count; f++) {
        double poly[AL_BRUSH_POLYGON_MAX][3];
        int n = al_brush_face_points(planes, NULL, b->face_count, f, poly);
        for (int i = 0; i < n; i++) {
            bool seen = false;
            for (int j = 0; j < count && !seen; j++)
                seen = fabs(out[j][0] - poly[i][0]) + fabs(out[j][1] - poly[i][1]) +
                           fabs(out[j][2] - poly[i][2]) <
                       1e-6;
            if (!seen && count < room) memcpy(out[count++], poly[i], sizeof out[0]);
        }
    }
    return count;
}

CHECK_TEST(rotate_box_30, "/transform/a-box-turned-30-degrees-has-the-closed-form-corners")
{
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("rotate-30.allium"), &doc, NULL) == AL_OK);
    al_doc_face box[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "rock", box);
    int64_t id = 0;
    REQUIRE(al_doc_add_brush(doc, 0, box, 6, &id, NULL, NULL) == AL_OK);
    const double centre[3] = {32, 16, 8};
    for (int axis = 0; axis < 3; axis++) {
        double m[3][4];
        al_doc_rotation_matrix(axis, 30, centre, m);
        REQUIRE(al_doc_transform_brushes(doc, &id, 1, (const double(*)[4]) m, NULL) == AL_OK);
        al_doc_input in;
        REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
        double corners[16][3];
        int n = brush_corners(&in.input, 0, corners, 16);
        CHECK_MSG(n == 8, "axis %d: %d corners", axis, n);
        /* Each corner of the box turned by hand: about AXIS, counter-clockwise seen from
         * its positive side. */
        const double c = cos(M_PI / 6), s = sin(M_PI / 6);
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int i = 0; i < 8; i++) {
            double p[3] = {i & 1 ? 64 : 0, i & 2 ? 32 : 0, i & 4 ? 16 : 0}, q[3];
            for (int k = 0; k < 3; k++) p[k] -= centre[k];
            q[axis] = p[axis];
            q[u] = c * p[u] - s * p[v];
            q[v] = s * p[u] + c * p[v];
            double best = INFINITY;
            for (int j = 0; j < n; j++)
                best = fmin(best, fabs(corners[j][0] - q[0] - centre[0]) +
                                      fabs(corners[j][1] - q[1] - centre[1]) +
                                      fabs(corners[j][2] - q[2] - centre[2]));
            CHECK_MSG(best < 1e-9, "axis %d, corner %d off by %g", axis, i, best);
        }
        /* The compiler takes it, with the box's volume. */
        al_brush_builder *builder = al_brush_builder_create();
        al_brush_measure measure;
        bool nomem = false;
        CHECK(al_brush_builder_measure(builder, &in.input, 0, &measure, NULL, &nomem));
        CHECK_NEAR(measure.volume, 64 * 32 * 16, 1e-6);
        al_brush_builder_destroy(builder);
        al_doc_input_free(&in);
        /* And back, for the next axis. */
        al_doc_rotation_matrix(axis, -30, centre, m);
        REQUIRE(al_doc_transform_brushes(doc, &id, 1, (const double(*)[4]) m, NULL) == AL_OK);
    }

    /* The turned points are written to a .map and read back to the last bit. */
    double m[3][4];
    al_doc_rotation_matrix(2, 30, centre, m);
    REQUIRE(al_doc_transform_brushes(doc, &id, 1, (const double(*)[4]) m, NULL) == AL_OK);
    al_map *map = NULL;
    REQUIRE(al_doc_export_map(doc, &map, NULL) == AL_OK);
    char *text = NULL;
    size_t len = 0;
    REQUIRE(al_map_write(map, false, &text, &len));
    al_map_destroy(map);
    CHECK(strstr(text, ".") != NULL); /* not whole numbers any more */
    al_map *read = NULL;
    REQUIRE(al_map_read_buffer(text, len, &read, NULL) == AL_OK);
    free(text);
    al_doc *again = NULL;
    REQUIRE(al_doc_create(fixture_path("rotate-30-again.allium"), &again, NULL) == AL_OK);
    REQUIRE(al_doc_import_map(again, read, NULL) == AL_OK);
    al_map_destroy(read);
    al_doc_input a, b;
    REQUIRE(al_doc_build_input(doc, &a, NULL) == AL_OK);
    REQUIRE(al_doc_build_input(again, &b, NULL) == AL_OK);
    REQUIRE(a.input.face_count == 6 && b.input.face_count == 6);
    for (int f = 0; f < 6; f++)
        CHECK_MSG(memcmp(a.input.faces[f].points, b.input.faces[f].points,
                         sizeof a.input.faces[f].points) == 0,
                  "face %d read back differs", f);
    al_doc_input_free(&a);
    al_doc_input_free(&b);
    al_doc_close(again);
    al_doc_close(doc);
}

CHECK_TEST(quarter_turn_exact, "/transform/quarter-turns-and-scales-are-exact")
{
    /* A quarter turn keeps whole numbers whole: the matrix is exact. */
    const double centre[3] = {16, 8, 0};
    double m[3][4];
    al_doc_rotation_matrix(2, 90, centre, m);
    const double p[3] = {40, 8, 5};
    double q[3];
    for (int r = 0; r < 3; r++) q[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    CHECK(q[0] == 16 && q[1] == 32 && q[2] == 5);
    al_doc_rotation_matrix(0, -270, centre, m);
    for (int r = 0; r < 3; r++) q[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    CHECK(q[0] == 40 && q[1] == 3 && q[2] == 0);
    const double f[3] = {2, 0.5, -1};
    al_doc_scale_matrix(f, centre, m);
    for (int r = 0; r < 3; r++) q[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    CHECK(q[0] == 64 && q[1] == 8 && q[2] == -5);
}

CHECK_TEST(shear_box, "/transform/a-sheared-box-has-the-closed-form-corners-and-volume")
{
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("shear-box.allium"), &doc, NULL) == AL_OK);
    al_doc_face f[6];
    fixture_box_faces(0, 0, 0, 64, 32, 16, "stone", f);
    int64_t id;
    REQUIRE(al_doc_add_brush(doc, 0, f, 6, &id, NULL, NULL) == AL_OK);
    char *before = NULL;
    {
        al_map *m = NULL;
        REQUIRE(al_doc_export_map(doc, &m, NULL) == AL_OK);
        size_t len;
        REQUIRE(al_map_write(m, true, &before, &len));
        al_map_destroy(m);
    }
    /* The top side (z 16) dragged 32 units along +X, the bottom (z 0) kept: rate 2. */
    double m[3][4];
    al_doc_shear_matrix(0, 2, 32.0 / 16, 0, m);
    CHECK(al_doc_matrix_determinant(m) == 1);
    const double p[3] = {10, 20, 16};
    double q[3];
    for (int r = 0; r < 3; r++) q[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
    CHECK(q[0] == 42 && q[1] == 20 && q[2] == 16);
    REQUIRE(al_doc_transform_brushes(doc, &id, 1, (const double(*)[4]) m, NULL) == AL_OK);
    double lo[3], hi[3];
    REQUIRE(al_doc_brush_box(doc, id, lo, hi));
    /* The box's corners are where three planes meet, computed again: to 1e-9. */
    const double want_lo[3] = {0, 0, 0}, want_hi[3] = {96, 32, 16};
    bool near = true;
    for (int k = 0; k < 3; k++)
        near = near && fabs(lo[k] - want_lo[k]) < 1e-9 && fabs(hi[k] - want_hi[k]) < 1e-9;
    CHECK_MSG(near, "box %.17g %.17g %.17g .. %.17g %.17g %.17g, closed form 0 0 0 .. 96 32 16",
              lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    al_brush_builder *builder = al_brush_builder_create();
    al_brush_measure bm;
    bool nomem = false;
    CHECK(al_brush_builder_measure(builder, &in.input, 0, &bm, NULL, &nomem));
    CHECK_MSG(fabs(bm.volume - 64 * 32 * 16) < 1e-9, "volume %.17g, closed form 32768", bm.volume);
    al_brush_builder_destroy(builder);
    al_doc_input_free(&in);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    al_map *back = NULL;
    REQUIRE(al_doc_export_map(doc, &back, NULL) == AL_OK);
    char *undone = NULL;
    size_t len;
    REQUIRE(al_map_write(back, true, &undone, &len));
    al_map_destroy(back);
    CHECK_MSG(strcmp(before, undone) == 0, "undo gives the box back");
    free(before);
    free(undone);
    al_doc_close(doc);
}

/* Every brush of e1m1 sheared on its own (a random pair of axes, a rate up to 1 either way,
 * a random fixed plane) in one step: the validity oracle (the compiler's brush builder:
 * convex, closed, no face lost) takes every brush it took before, each keeps its volume,
 * and undo gives the map back byte for byte. */
CHECK_TEST(shear_real_map, "/transform/brushes-of-a-real-map-sheared-stay-valid-and-keep-volume")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    al_map *map = NULL;
    REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("shear-e1m1.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
    al_map_destroy(map);
    al_map *whole = NULL;
    REQUIRE(al_doc_export_map(doc, &whole, NULL) == AL_OK);
    char *first = NULL;
    size_t len;
    REQUIRE(al_map_write(whole, true, &first, &len));
    al_map_destroy(whole);
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    double *before = calloc((size_t) count, sizeof *before);
    REQUIRE(before);
    al_brush_builder *builder = al_brush_builder_create();
    int valid = 0;
    for (int b = 0; b < count; b++) {
        al_brush_measure bm;
        bool nomem = false;
        before[b] =
            al_brush_builder_measure(builder, &in.input, b, &bm, NULL, &nomem) ? bm.volume : -1;
        valid += before[b] >= 0;
    }
    al_doc_input_free(&in);
    REQUIRE(al_doc_begin_group(doc, "Shear") == AL_OK);
    for (int b = 0; b < count; b++) {
        if (before[b] < 0) continue;
        int along = (int) (uniform() * 3), across = (along + 1 + (int) (uniform() * 2)) % 3;
        double m[3][4];
        al_doc_shear_matrix(along, across, uniform() * 2 - 1, uniform() * 2048 - 1024, m);
        REQUIRE(al_doc_transform_brushes(doc, &ids[b], 1, (const double(*)[4]) m, NULL) == AL_OK);
    }
    REQUIRE(al_doc_end_group(doc, NULL) == AL_OK);
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    int lost = 0, changed = 0;
    double worst = 0;
    for (int b = 0; b < count; b++) {
        if (before[b] < 0) continue;
        al_brush_measure bm;
        bool nomem = false;
        if (!al_brush_builder_measure(builder, &in.input, b, &bm, NULL, &nomem)) {
            lost++;
            continue;
        }
        double rel = fabs(bm.volume - before[b]) / before[b];
        if (rel > worst) worst = rel;
        changed += rel > 1e-6;
    }
    al_doc_input_free(&in);
    check_note("e1m1: %d valid brushes sheared; worst relative volume change %.3g", valid, worst);
    CHECK_MSG(lost == 0, "%d sheared brushes are no longer valid", lost);
    CHECK_MSG(changed == 0, "%d sheared brushes changed volume by more than 1e-6", changed);
    REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
    REQUIRE(al_doc_export_map(doc, &whole, NULL) == AL_OK);
    char *undone = NULL;
    REQUIRE(al_map_write(whole, true, &undone, &len));
    al_map_destroy(whole);
    CHECK_MSG(strcmp(first, undone) == 0, "undo gives e1m1 back byte for byte");
    free(first);
    free(undone);
    free(before);
    free(ids);
    al_brush_builder_destroy(builder);
    al_doc_close(doc);
}

CHECK_TEST(rotate_real_map, "/transform/brushes-of-a-real-map-turned-at-random-keep-their-volume")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    al_map *map = NULL;
    REQUIRE(al_map_read_file(path, &map, NULL) == AL_OK);
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(fixture_path("rotate-e1m1.allium"), &doc, NULL) == AL_OK);
    al_doc_set_durable(doc, false);
    REQUIRE(al_doc_import_map(doc, map, NULL) == AL_OK);
    al_map_destroy(map);
    int64_t *ids = NULL;
    int count = 0;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK);
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    REQUIRE(in.input.brush_count == count);
    double *before = calloc((size_t) count, sizeof *before);
    REQUIRE(before);
    al_brush_builder *builder = al_brush_builder_create();
    int valid = 0;
    for (int b = 0; b < count; b++) {
        al_brush_measure m;
        bool nomem = false;
        before[b] =
            al_brush_builder_measure(builder, &in.input, b, &m, NULL, &nomem) ? m.volume : -1;
        valid += before[b] >= 0;
    }
    al_doc_input_free(&in);
    /* Three turns about random axes through random points near the map; each brush on its
     * own turn (a different angle and centre each) in one step. */
    int lost = 0, changed = 0, worst_brush = -1;
    double worst = 0;
    for (int round = 0; round < 3; round++) {
        REQUIRE(al_doc_begin_group(doc, "Turn") == AL_OK);
        for (int b = 0; b < count; b++) {
            if (before[b] < 0) continue;
            double m[3][4],
                c[3] = {uniform() * 2048 - 1024, uniform() * 2048 - 1024, uniform() * 1024 - 512};
            al_doc_rotation_matrix((int) (uniform() * 3), uniform() * 360, c, m);
            REQUIRE(al_doc_transform_brushes(doc, &ids[b], 1, (const double(*)[4]) m, NULL) ==
                    AL_OK);
        }
        REQUIRE(al_doc_end_group(doc, NULL) == AL_OK);
    }
    REQUIRE(al_doc_build_input(doc, &in, NULL) == AL_OK);
    for (int b = 0; b < count; b++) {
        if (before[b] < 0) continue;
        al_brush_measure m;
        bool nomem = false;
        if (!al_brush_builder_measure(builder, &in.input, b, &m, NULL, &nomem)) {
            lost++;
            continue;
        }
        double rel = fabs(m.volume - before[b]) / before[b];
        if (rel > worst) worst = rel, worst_brush = b;
        changed += rel > 1e-6;
    }
    al_doc_input_free(&in);
    check_note("e1m1: %d valid brushes turned three times; worst relative volume change %.3g "
               "(brush %d)",
               valid, worst, worst_brush);
    /* The turned map written as a .map, read back and compiled whole: the compile takes
     * every brush it took before. */
    al_map *out = NULL;
    REQUIRE(al_doc_export_map(doc, &out, NULL) == AL_OK);
    char *text = NULL;
    size_t len = 0;
    REQUIRE(al_map_write(out, false, &text, &len));
    al_map_destroy(out);
    scene sc;
    scene_options options = {.threads = 2};
    bool compiled = scene_load_text(&sc, text, len, &options);
    free(text);
    CHECK_MSG(compiled, "the turned e1m1 compiles");
    if (compiled) {
        al_world_stats stats;
        al_world_get_stats(sc.world, &stats);
        CHECK_MSG(stats.valid_brushes == valid, "the compile takes %d brushes of %d (%d before)",
                  stats.valid_brushes, stats.input_brushes, valid);
    }
    scene_free(&sc);
    CHECK_MSG(lost == 0, "%d brushes no longer valid", lost);
    CHECK_MSG(changed == 0, "%d brushes changed volume by more than 1e-6", changed);
    CHECK(valid > 1000);
    al_brush_builder_destroy(builder);
    free(before);
    free(ids);
    al_doc_close(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
