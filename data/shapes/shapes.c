/* Shape generators (shapes.h): each brush is written as its corners and its faces as three
 * of those corners; every face is then turned to point away from the brush's centroid, so
 * the generators need not track windings through the axis permutations.
 */
#include "shapes.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The shape being built, with its growing arrays, and the brush under way: its corners
 * (for the centroid) and its faces. */
typedef struct builder {
    al_shape *shape;
    int face_capacity, brush_capacity;
    int axis; /* local w runs along it; u and v along the next two */
    double corners[2 * AL_SHAPE_MAX_SIDES + 2][3];
    int corner_count;
    double brush_faces[AL_SHAPE_MAX_SIDES + 2][3][3];
    int brush_face_count;
    bool failed;
} builder;

/* --- static helpers ------------------------------------------------------------------ */

static al_status refuse(al_diag_list *diags, const char *format, double value)
{
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, format, value);
    return AL_ERR_INVALID_ARGUMENT;
}

/* Local (u, v, w) to world coordinates: w along the axis, u and v along the next two in
 * turn. */
static void to_world(const builder *b, double u, double v, double w, double out[3])
{
    out[b->axis] = w;
    out[(b->axis + 1) % 3] = u;
    out[(b->axis + 2) % 3] = v;
}

static void begin_brush(builder *b)
{
    b->corner_count = 0;
    b->brush_face_count = 0;
}

static void add_corner(builder *b, const double p[3])
{
    al_copy(p, b->corners[b->corner_count++]);
}

static void add_face(builder *b, const double p0[3], const double p1[3], const double p2[3])
{
    double(*f)[3] = b->brush_faces[b->brush_face_count++];
    al_copy(p0, f[0]);
    al_copy(p1, f[1]);
    al_copy(p2, f[2]);
}

/* Ends the brush under way: each face turned to point away from the corners' centroid
 * (a convex solid's centroid is behind every face), appended to the shape. */
static void end_brush(builder *b)
{
    al_shape *s = b->shape;
    if (b->failed) return;
    if (s->brush_count + 2 > b->brush_capacity) {
        int capacity = b->brush_capacity ? 2 * b->brush_capacity : 16;
        int *first = realloc(s->first_face, (size_t) capacity * sizeof *first);
        if (!first) {
            b->failed = true;
            return;
        }
        s->first_face = first;
        b->brush_capacity = capacity;
    }
    if (s->face_count + b->brush_face_count > b->face_capacity) {
        int capacity = b->face_capacity ? 2 * b->face_capacity : 64;
        while (capacity < s->face_count + b->brush_face_count) capacity *= 2;
        double(*faces)[3][3] = realloc(s->faces, (size_t) capacity * sizeof *faces);
        if (!faces) {
            b->failed = true;
            return;
        }
        s->faces = faces;
        b->face_capacity = capacity;
    }
    double centroid[3] = {0, 0, 0};
    for (int i = 0; i < b->corner_count; i++) al_add(centroid, b->corners[i], centroid);
    al_scale(centroid, 1.0 / b->corner_count, centroid);
    s->first_face[s->brush_count] = s->face_count;
    for (int f = 0; f < b->brush_face_count; f++) {
        double(*p)[3] = b->brush_faces[f];
        double a[3], c[3], n[3], to[3];
        al_sub(p[0], p[1], a);
        al_sub(p[2], p[1], c);
        al_cross(a, c, n);
        al_sub(centroid, p[1], to);
        double(*out)[3] = s->faces[s->face_count++];
        bool flip = al_dot(n, to) > 0;
        al_copy(flip ? p[2] : p[0], out[0]);
        al_copy(p[1], out[1]);
        al_copy(flip ? p[0] : p[2], out[2]);
    }
    s->brush_count++;
    s->first_face[s->brush_count] = s->face_count;
}

/* The corner of a regular polygon of N sides and circumradius R at index I, in the local
 * (u, v) plane at height W. Corners sit half a side off the u axis, so that four sides
 * make a square along the axes. */
static void polygon_corner(const builder *b, int n, double r, int i, double w, double out[3])
{
    double t = M_PI / n + 2 * M_PI * (i % n) / n;
    to_world(b, r * cos(t), r * sin(t), w, out);
}

/* A prism (APEX false) or pyramid over the regular polygon of the description, from
 * w = -h/2 to +h/2. */
static void build_prism(builder *b, const al_shape_desc *d, bool apex)
{
    int n = d->segments;
    double h = d->height, lo[AL_SHAPE_MAX_SIDES][3], hi[AL_SHAPE_MAX_SIDES][3], top[3];
    begin_brush(b);
    to_world(b, 0, 0, h / 2, top);
    for (int i = 0; i < n; i++) {
        polygon_corner(b, n, d->radius, i, -h / 2, lo[i]);
        polygon_corner(b, n, d->radius, i, h / 2, hi[i]);
        add_corner(b, lo[i]);
        if (!apex) add_corner(b, hi[i]);
    }
    if (apex) add_corner(b, top);
    add_face(b, lo[0], lo[1], lo[2]);
    if (!apex) add_face(b, hi[0], hi[1], hi[2]);
    for (int i = 0; i < n; i++) add_face(b, lo[i], lo[(i + 1) % n], apex ? top : hi[i]);
    end_brush(b);
}

/* One brush per band between two latitudes of the polyhedron whose corners are RINGS + 1
 * latitudes (the poles single points) by SEGMENTS longitudes on the sphere. A face of the
 * whole polyhedron is the trapezoid (a triangle at a pole) between two neighbouring
 * latitudes and longitudes: its four corners lie in one plane, the two parallel chords
 * being mirror images in the plane of the middle longitude. Each band is the polyhedron
 * cut by the two planes of its latitudes, so it is convex. */
static void build_sphere(builder *b, const al_shape_desc *d)
{
    int n = d->segments, rings = d->rings;
    for (int j = 0; j < rings; j++) {
        double phi0 = -M_PI / 2 + M_PI * j / rings, phi1 = -M_PI / 2 + M_PI * (j + 1) / rings;
        double rho0 = j == 0 ? 0 : d->radius * cos(phi0);
        double rho1 = j + 1 == rings ? 0 : d->radius * cos(phi1);
        double w0 = j == 0 ? -d->radius : d->radius * sin(phi0);
        double w1 = j + 1 == rings ? d->radius : d->radius * sin(phi1);
        double lo[AL_SHAPE_MAX_SIDES][3], hi[AL_SHAPE_MAX_SIDES][3], pole0[3], pole1[3];
        to_world(b, 0, 0, w0, pole0);
        to_world(b, 0, 0, w1, pole1);
        begin_brush(b);
        for (int i = 0; i < n; i++) {
            polygon_corner(b, n, rho0, i, w0, lo[i]);
            polygon_corner(b, n, rho1, i, w1, hi[i]);
            if (rho0 > 0) add_corner(b, lo[i]);
            if (rho1 > 0) add_corner(b, hi[i]);
        }
        if (rho0 == 0) add_corner(b, pole0);
        if (rho1 == 0) add_corner(b, pole1);
        if (rho0 > 0) add_face(b, lo[0], lo[1], lo[2]);
        if (rho1 > 0) add_face(b, hi[0], hi[1], hi[2]);
        for (int i = 0; i < n; i++) {
            int k = (i + 1) % n;
            if (rho0 == 0)
                add_face(b, pole0, hi[i], hi[k]);
            else if (rho1 == 0)
                add_face(b, lo[i], lo[k], pole1);
            else
                add_face(b, lo[i], lo[k], hi[i]);
        }
        end_brush(b);
    }
}

/* One brush per segment of the arc: the quadrilateral between the inner and outer circle
 * and two radii (convex while the segment spans less than 180 degrees), THICKNESS deep. */
static void build_arch(builder *b, const al_shape_desc *d)
{
    int n = d->segments;
    /* The middle of the arc points up: along Z, which is local v for an arch about X and
     * local u for one about Y; about Z it points along Y (local v). */
    double middle = b->axis == 1 ? 0 : M_PI / 2;
    double span = d->angle * M_PI / 180, t = d->thickness / 2;
    for (int k = 0; k < n; k++) {
        double a[2] = {middle - span / 2 + span * k / n, middle - span / 2 + span * (k + 1) / n};
        double p[8][3]; /* inner a0, inner a1, outer a0, outer a1; then the same at -t */
        for (int side = 0; side < 2; side++)
            for (int c = 0; c < 4; c++) {
                double r = c < 2 ? d->inner_radius : d->radius, angle = a[c % 2];
                to_world(b, r * cos(angle), r * sin(angle), side ? -t : t, p[side * 4 + c]);
            }
        begin_brush(b);
        for (int c = 0; c < 8; c++) add_corner(b, p[c]);
        add_face(b, p[0], p[1], p[2]); /* front */
        add_face(b, p[4], p[5], p[6]); /* back */
        add_face(b, p[0], p[1], p[4]); /* inner */
        add_face(b, p[2], p[3], p[6]); /* outer */
        add_face(b, p[0], p[2], p[4]); /* the end at a0 */
        add_face(b, p[1], p[3], p[5]); /* the end at a1 */
        end_brush(b);
    }
}

/* Step K is the box over the K-th part of the run, (K + 1) parts of the rise high. */
static void build_stairs(builder *b, const al_shape_desc *d)
{
    int run = d->axis, across = 1 - d->axis;
    for (int k = 0; k < d->steps; k++) {
        double lo[3], hi[3];
        lo[run] = d->length * k / d->steps;
        hi[run] = d->length * (k + 1) / d->steps;
        lo[across] = 0;
        hi[across] = d->width;
        lo[2] = 0;
        hi[2] = d->height * (k + 1) / d->steps;
        double c[8][3];
        for (int i = 0; i < 8; i++)
            for (int a = 0; a < 3; a++) c[i][a] = (i >> a) & 1 ? hi[a] : lo[a];
        begin_brush(b);
        for (int i = 0; i < 8; i++) add_corner(b, c[i]);
        for (int a = 0; a < 3; a++) {
            /* The corners with bit A clear, then set: two faces across axis A. */
            int bit = 1 << a, o1 = a == 0 ? 2 : 1, o2 = a == 2 ? 2 : 4;
            add_face(b, c[0], c[o1], c[o2]);
            add_face(b, c[bit], c[bit | o1], c[bit | o2]);
        }
        end_brush(b);
    }
}

static bool positive_size(double v)
{
    return isfinite(v) && v >= AL_SHAPE_MIN_EDGE && v <= 2 * AL_COORD_MAX;
}

/* Refuses, with a diagnostic naming the parameter, what would make no solid. */
static al_status check_desc(const al_shape_desc *d, al_diag_list *diags)
{
    if ((int) d->kind < 0 || d->kind >= AL_SHAPE_COUNT)
        return refuse(diags, "unknown shape %g", (double) d->kind);
    if (d->axis < 0 || d->axis > 2 || (d->kind == AL_SHAPE_STAIRS && d->axis > 1))
        return refuse(diags,
                      d->kind == AL_SHAPE_STAIRS ? "stairs climb along X (0) or Y (1), not axis %g"
                                                 : "the axis must be X (0), Y (1) or Z (2), not %g",
                      (double) d->axis);
    for (int k = 0; k < 3; k++)
        if (!isfinite(d->centre[k]) || fabs(d->centre[k]) > AL_COORD_MAX)
            return refuse(diags, "the shape's centre (%g) is beyond the map's limits",
                          d->centre[k]);
    switch (d->kind) {
    case AL_SHAPE_SPHERE:
        if (d->rings < 2 || d->rings > AL_SHAPE_MAX_RINGS)
            return refuse(diags, "a sphere needs 2 to 64 rings, not %g", (double) d->rings);
        /* fall through */
    case AL_SHAPE_CYLINDER:
    case AL_SHAPE_CONE:
        if (d->segments < 3 || d->segments > AL_SHAPE_MAX_SIDES)
            return refuse(diags, "the shape needs 3 to 120 sides, not %g", (double) d->segments);
        if (!positive_size(d->radius))
            return refuse(diags, "the radius (%g) must be at least 0.25 units", d->radius);
        if (d->kind != AL_SHAPE_SPHERE && !positive_size(d->height))
            return refuse(diags, "the height (%g) must be at least 0.25 units", d->height);
        break;
    case AL_SHAPE_ARCH:
        if (d->segments < 1 || d->segments > AL_SHAPE_MAX_PIECES)
            return refuse(diags, "an arch needs 1 to 256 segments, not %g", (double) d->segments);
        if (!(d->angle > 0 && d->angle <= 360))
            return refuse(diags, "the arch's angle (%g degrees) must be above 0 and at most 360",
                          d->angle);
        if (!(d->angle / d->segments < 180))
            return refuse(diags,
                          "each segment of the arch must span less than 180 degrees (%g): "
                          "add segments",
                          d->angle / d->segments);
        if (!positive_size(d->inner_radius))
            return refuse(diags, "the inner radius (%g) must be at least 0.25 units",
                          d->inner_radius);
        if (!positive_size(d->radius) || !(d->radius - d->inner_radius >= AL_SHAPE_MIN_EDGE))
            return refuse(diags,
                          "the outer radius (%g) must be at least 0.25 units more than the "
                          "inner one",
                          d->radius);
        if (!positive_size(d->thickness))
            return refuse(diags, "the thickness (%g) must be at least 0.25 units", d->thickness);
        break;
    case AL_SHAPE_STAIRS:
        if (d->steps < 1 || d->steps > AL_SHAPE_MAX_PIECES)
            return refuse(diags, "stairs need 1 to 256 steps, not %g", (double) d->steps);
        if (!positive_size(d->width))
            return refuse(diags, "the width (%g) must be at least 0.25 units", d->width);
        if (!positive_size(d->length))
            return refuse(diags, "the length (%g) must be at least 0.25 units", d->length);
        if (!positive_size(d->height))
            return refuse(diags, "the height (%g) must be at least 0.25 units", d->height);
        break;
    default:
        break;
    }
    return AL_OK;
}

/* The shortest edge between the three points of any face, which the compiler needs long
 * enough to take the face's plane surely. */
static double shortest_edge(const al_shape *s)
{
    double least = INFINITY;
    for (int f = 0; f < s->face_count; f++)
        for (int i = 0; i < 3; i++) {
            double e[3];
            al_sub(s->faces[f][i], s->faces[f][(i + 1) % 3], e);
            least = fmin(least, al_length(e));
        }
    return least;
}

/* --- public API ---------------------------------------------------------------------- */

const char *al_shape_name(al_shape_kind kind)
{
    static const char *names[AL_SHAPE_COUNT] = {AL_N_("Cylinder"), AL_N_("Cone"), AL_N_("Sphere"),
                                                AL_N_("Arch"), AL_N_("Stairs")};
    return (int) kind >= 0 && kind < AL_SHAPE_COUNT ? names[kind] : "";
}

al_status al_shape_build(const al_shape_desc *desc, al_shape *out, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    al_status st = check_desc(desc, diags);
    if (st != AL_OK) return st;
    builder *b = calloc(1, sizeof *b);
    if (!b) return AL_ERR_NOMEM;
    b->shape = out;
    b->axis = desc->axis;
    switch (desc->kind) {
    case AL_SHAPE_CYLINDER:
        build_prism(b, desc, false);
        break;
    case AL_SHAPE_CONE:
        build_prism(b, desc, true);
        break;
    case AL_SHAPE_SPHERE:
        build_sphere(b, desc);
        break;
    case AL_SHAPE_ARCH:
        build_arch(b, desc);
        break;
    default:
        build_stairs(b, desc);
        break;
    }
    bool failed = b->failed;
    free(b);
    if (failed) {
        al_shape_free(out);
        return AL_ERR_NOMEM;
    }
    /* Moved so that the middle of its bounds is the centre asked for. */
    double mins[3], maxs[3], shift[3];
    al_bounds_clear(mins, maxs);
    for (int f = 0; f < out->face_count; f++)
        for (int i = 0; i < 3; i++) al_bounds_add(out->faces[f][i], mins, maxs);
    for (int k = 0; k < 3; k++) shift[k] = desc->centre[k] - 0.5 * (mins[k] + maxs[k]);
    al_bounds_clear(out->mins, out->maxs);
    for (int f = 0; f < out->face_count; f++)
        for (int i = 0; i < 3; i++) {
            al_add(out->faces[f][i], shift, out->faces[f][i]);
            al_bounds_add(out->faces[f][i], out->mins, out->maxs);
        }
    for (int k = 0; k < 3; k++)
        if (fabs(out->mins[k]) > AL_COORD_MAX || fabs(out->maxs[k]) > AL_COORD_MAX) {
            al_shape_free(out);
            return refuse(diags, "the shape reaches %g, beyond the map's limits",
                          fmax(fabs(mins[k] + shift[k]), fabs(maxs[k] + shift[k])));
        }
    double edge = shortest_edge(out);
    if (!(edge >= AL_SHAPE_MIN_EDGE)) {
        al_shape_free(out);
        return refuse(diags,
                      "the shape is too fine for its size: an edge would be %.3g units "
                      "long (at least 0.25 is needed); use fewer sides or rings, or make "
                      "it larger",
                      edge);
    }
    return AL_OK;
}

void al_shape_free(al_shape *shape)
{
    if (!shape) return;
    free(shape->first_face);
    free(shape->faces);
    memset(shape, 0, sizeof *shape);
}
