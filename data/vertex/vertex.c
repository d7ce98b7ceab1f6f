/* Vertex editing of one brush (see vertex.h): corners from the compiler's face polygons,
 * the convex hull of a moved corner set, and the faces that keep their textures.
 */
#include "vertex.h"

#include "al-epsilon.h"
#include "al-plane.h"
#include "al-vec3.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A corner this near a plane (units) lies on it. */
#define ON_PLANE 1e-3
/* Faces with less area than this (square units) only touch the solid along an edge. */
#define MIN_FACE_AREA 1e-3
/* Three corners spanning less than this (twice the triangle's area, square units) are on a
 * line as far as a plane through them can tell. */
#define MIN_SPAN 1e-6

static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t size, const char *fmt, ...)
{
    if (!why || size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
}

static bool near_point(const double a[3], const double b[3])
{
    return fabs(a[0] - b[0]) <= AL_VERTEX_MERGE && fabs(a[1] - b[1]) <= AL_VERTEX_MERGE &&
           fabs(a[2] - b[2]) <= AL_VERTEX_MERGE;
}

/* (A - B) x (C - B): the .map rule's normal of the face through A, B, C (not unit). */
static void face_cross(const double a[3], const double b[3], const double c[3], double out[3])
{
    double u[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    double v[3] = {c[0] - b[0], c[1] - b[1], c[2] - b[2]};
    al_cross(u, v, out);
}

/* Index of the corner at P in the COUNT corners of V, added when new; -1 when full. */
static int corner_index(double (*v)[3], int *count, int max, const double p[3])
{
    for (int i = 0; i < *count; i++)
        if (near_point(v[i], p)) return i;
    if (*count >= max) return -1;
    memcpy(v[*count], p, sizeof v[0]);
    return (*count)++;
}

/* The planes of FACES (those with one) into PLANES, the face of each into SOURCE. */
static int face_planes(const al_doc_face *faces, int count, al_plane *planes, int *source)
{
    int n = 0;
    for (int f = 0; f < count && n < AL_BRUSH_MAX_FACES; f++) {
        if (!al_plane_from_points(faces[f].points[0], faces[f].points[1], faces[f].points[2],
                                  planes[n].normal, &planes[n].dist))
            continue;
        planes[n].type = al_plane_type(planes[n].normal);
        source[n++] = f;
    }
    return n;
}

bool al_vertex_geometry_build(const al_doc_face *faces, int count, al_vertex_geometry *out,
                              char *why, size_t why_size)
{
    memset(out, 0, offsetof(al_vertex_geometry, vertices));
    out->face_first[0] = 0;
    if (count < 4 || count > AL_BRUSH_MAX_FACES) {
        say(why, why_size, "a brush needs 4 to %d faces, it has %d", AL_BRUSH_MAX_FACES, count);
        return false;
    }
    al_plane planes[AL_BRUSH_MAX_FACES];
    int source[AL_BRUSH_MAX_FACES];
    int np = face_planes(faces, count, planes, source);
    double poly[AL_BRUSH_POLYGON_MAX][3];
    for (int i = 0; i < np; i++) {
        int n = al_brush_face_points(planes, NULL, np, i, poly);
        if (n < 3 || al_points_area((const double(*)[3]) poly, n) < MIN_FACE_AREA) continue;
        int first = out->face_first[out->face_count], at = first;
        for (int k = 0; k < n; k++) {
            if (at >= AL_VERTEX_POINT_MAX) goto full;
            int c = corner_index(out->vertices, &out->vertex_count, AL_VERTEX_MAX, poly[k]);
            if (c < 0) goto full;
            if (at > first && out->face_points[at - 1] == c) continue;
            out->face_points[at++] = c;
        }
        while (at - first > 1 && out->face_points[at - 1] == out->face_points[first]) at--;
        if (at - first < 3) continue; /* a sliver: it touches the solid along an edge */
        for (int k = first; k < at; k++) {
            int a = out->face_points[k], b = out->face_points[k + 1 < at ? k + 1 : first];
            int lo = a < b ? a : b, hi = a < b ? b : a, e = 0;
            while (e < out->edge_count && (out->edges[e][0] != lo || out->edges[e][1] != hi)) e++;
            if (e == out->edge_count) {
                if (e >= AL_VERTEX_EDGE_MAX) goto full;
                out->edges[out->edge_count][0] = lo;
                out->edges[out->edge_count++][1] = hi;
            }
        }
        out->face_source[out->face_count++] = source[i];
        out->face_first[out->face_count] = at;
    }
    if (out->face_count < 4) {
        say(why, why_size, "the faces bound no solid (%d of them have an area)", out->face_count);
        return false;
    }
    return true;
full:
    say(why, why_size, "the brush has more corners than vertex editing takes (%d)", AL_VERTEX_MAX);
    return false;
}

/* The three of the COUNT points ON (indices into P) that span most: the first, the one
 * farthest from it, and the one farthest from the line through those two. False when
 * they span no triangle. */
static bool spread_triple(const double (*p)[3], const int *on, int count, int t[3])
{
    t[0] = on[0];
    double best = -1;
    for (int k = 1; k < count; k++) {
        double d[3];
        al_sub(p[on[k]], p[t[0]], d);
        double len = al_dot(d, d);
        if (len > best) best = len, t[1] = on[k];
    }
    best = -1;
    for (int k = 1; k < count; k++) {
        double c[3];
        face_cross(p[t[0]], p[t[1]], p[on[k]], c);
        double span = al_dot(c, c);
        if (span > best) best = span, t[2] = on[k];
    }
    return count >= 3 && best > MIN_SPAN * MIN_SPAN;
}

int al_vertex_hull(const double (*points)[3], int count, bool require_all_corners, al_doc_face *out,
                   char *why, size_t why_size)
{
    if (count < 4) {
        say(why, why_size, "%d corners span no volume", count);
        return -1;
    }
    if (count > AL_VERTEX_MAX) {
        say(why, why_size, "more than %d corners", AL_VERTEX_MAX);
        return -1;
    }
    const double(*p)[3] = points;
    al_plane planes[AL_BRUSH_MAX_FACES];
    int np = 0, on[AL_VERTEX_MAX];
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            for (int k = j + 1; k < count; k++) {
                double n[3];
                face_cross(p[i], p[j], p[k], n);
                double len = sqrt(al_dot(n, n));
                if (!(len > MIN_SPAN)) continue;
                al_scale(n, 1.0 / len, n);
                double d = al_dot(n, p[j]), lo = 0, hi = 0;
                for (int q = 0; q < count && (lo >= -ON_PLANE || hi <= ON_PLANE); q++) {
                    double s = al_dot(n, p[q]) - d;
                    if (s < lo) lo = s;
                    if (s > hi) hi = s;
                }
                if (lo < -ON_PLANE && hi > ON_PLANE) continue; /* corners on both sides */
                if (lo >= -ON_PLANE && hi <= ON_PLANE) {
                    say(why, why_size, "the corners lie in one plane: the brush would be flat");
                    return -1;
                }
                double sign = hi <= ON_PLANE ? 1 : -1; /* the corners are behind: n points out */
                /* The plane again through the three corners on it that span most, so that
                 * every triple on one face finds the same plane. */
                int m = 0;
                for (int q = 0; q < count; q++)
                    if (fabs(al_dot(n, p[q]) - d) <= ON_PLANE) on[m++] = q;
                int t[3];
                if (!spread_triple(p, on, m, t)) continue;
                double c[3];
                face_cross(p[t[0]], p[t[1]], p[t[2]], c);
                if (al_dot(c, n) * sign < 0) {
                    int swap = t[0];
                    t[0] = t[2], t[2] = swap;
                }
                al_plane pl;
                if (!al_plane_from_points(p[t[0]], p[t[1]], p[t[2]], pl.normal, &pl.dist)) continue;
                pl.type = al_plane_type(pl.normal);
                bool known = false;
                for (int e = 0; e < np && !known; e++)
                    known = al_dot(planes[e].normal, pl.normal) > 1 - 1e-9 &&
                            fabs(planes[e].dist - pl.dist) <= ON_PLANE;
                if (known) continue;
                if (np >= AL_BRUSH_MAX_FACES) {
                    say(why, why_size, "the brush would have more than %d faces",
                        AL_BRUSH_MAX_FACES);
                    return -1;
                }
                planes[np] = pl;
                al_doc_face *f = &out[np++];
                memset(f, 0, sizeof *f);
                for (int r = 0; r < 3; r++) memcpy(f->points[r], p[t[r]], sizeof f->points[r]);
            }
    if (np < 4) {
        say(why, why_size, "the corners span no volume");
        return -1;
    }
    if (require_all_corners)
        for (int q = 0; q < count; q++) {
            int touching = 0;
            for (int e = 0; e < np; e++)
                touching += fabs(al_plane_distance(&planes[e], p[q])) <= ON_PLANE;
            if (touching < 3) {
                say(why, why_size,
                    "the corner at (%g %g %g) would lie %s: the brush would not be convex", p[q][0],
                    p[q][1], p[q][2],
                    touching == 0   ? "inside the brush"
                    : touching == 1 ? "on one of its faces"
                                    : "on one of its edges");
                return -1;
            }
        }
    /* Volume from the faces' polygons, as cones from the corners' centroid. */
    double centre[3] = {0, 0, 0}, volume = 0, poly[AL_BRUSH_POLYGON_MAX][3];
    for (int q = 0; q < count; q++) al_add(centre, p[q], centre);
    al_scale(centre, 1.0 / count, centre);
    for (int e = 0; e < np; e++) {
        int n = al_brush_face_points(planes, NULL, np, e, poly);
        if (n >= 3)
            volume += al_points_area((const double(*)[3]) poly, n) *
                      -al_plane_distance(&planes[e], centre) / 3.0;
    }
    if (!(volume >= AL_BRUSH_MIN_VOLUME)) {
        say(why, why_size, "the brush would have no volume (%g cubic units)", volume);
        return -1;
    }
    return np;
}

/* Whether plane A and the plane of face F are one plane. */
static bool same_plane(const al_plane *a, const al_doc_face *f)
{
    double n[3], d;
    if (!al_plane_from_points(f->points[0], f->points[1], f->points[2], n, &d)) return false;
    return al_dot(a->normal, n) > 1 - 1e-9 && fabs(a->dist - d) <= ON_PLANE;
}

/* The brush whose corners are the N points CORNERS, its faces into OUT (*OUT_COUNT of them):
 * a hull plane on which a face of FACES (COUNT) lay keeps that face, a new plane takes the
 * texture of the old face whose normal is nearest. AL_ERR_INVALID_ARGUMENT (reason in WHY)
 * when a point would not be a corner of the hull or the hull is not a brush. */
static al_status faces_of_corners(const al_doc_face *faces, int count, const double (*corners)[3],
                                  int n, al_doc_face *out, int *out_count, char *why,
                                  size_t why_size)
{
    al_doc_face *hull = malloc(AL_BRUSH_MAX_FACES * sizeof *hull);
    if (!hull) return AL_ERR_NOMEM;
    al_status st = AL_ERR_INVALID_ARGUMENT;
    int hn = al_vertex_hull(corners, n, true, hull, why, why_size);
    if (hn < 0) goto done;
    /* Faces of old planes first, in their old order, then the new ones. */
    bool used[AL_BRUSH_MAX_FACES] = {false};
    int m = 0;
    al_plane hp[AL_BRUSH_MAX_FACES];
    for (int h = 0; h < hn; h++) {
        al_plane_from_points(hull[h].points[0], hull[h].points[1], hull[h].points[2], hp[h].normal,
                             &hp[h].dist);
        hp[h].type = al_plane_type(hp[h].normal);
    }
    for (int f = 0; f < count; f++)
        for (int h = 0; h < hn; h++)
            if (!used[h] && same_plane(&hp[h], &faces[f])) {
                used[h] = true;
                out[m] = faces[f];
                /* Its own points, unless they lie beyond the map's limits (the plane is
                 * the same through the hull's corners on it). */
                bool inside = true;
                for (int i = 0; i < 9 && inside; i++)
                    inside = fabs(faces[f].points[i / 3][i % 3]) <= AL_COORD_MAX;
                if (!inside) {
                    memcpy(out[m].points, hull[h].points, sizeof out[m].points);
                    out[m].points_text = NULL;
                }
                m++;
                break;
            }
    for (int h = 0; h < hn; h++) {
        if (used[h]) continue;
        int best = 0;
        double best_dot = -2;
        for (int f = 0; f < count; f++) {
            double nf[3], d;
            if (!al_plane_from_points(faces[f].points[0], faces[f].points[1], faces[f].points[2],
                                      nf, &d))
                continue;
            double c = al_dot(nf, hp[h].normal);
            if (c > best_dot) best_dot = c, best = f;
        }
        out[m] = faces[best];
        memcpy(out[m].points, hull[h].points, sizeof out[m].points);
        out[m++].points_text = NULL;
    }
    *out_count = m;
    st = AL_OK;
done:
    free(hull);
    return st;
}

al_status al_vertex_move(const al_doc_face *faces, int count, const double (*from)[3],
                         int from_count, const double delta[3], al_doc_face *out, int *out_count,
                         char *why, size_t why_size)
{
    *out_count = 0;
    for (int k = 0; k < 3; k++)
        if (!isfinite(delta[k])) {
            say(why, why_size, "the move is not a finite offset");
            return AL_ERR_INVALID_ARGUMENT;
        }
    al_vertex_geometry *g = malloc(sizeof *g);
    double(*moved)[3] = malloc(AL_VERTEX_MAX * sizeof *moved);
    al_status st = AL_ERR_NOMEM;
    if (!g || !moved) goto done;
    st = AL_ERR_INVALID_ARGUMENT;
    if (!al_vertex_geometry_build(faces, count, g, why, why_size)) goto done;
    int n = 0, hits = 0;
    for (int v = 0; v < g->vertex_count; v++) {
        double p[3];
        memcpy(p, g->vertices[v], sizeof p);
        bool hit = false;
        for (int k = 0; k < from_count && !hit; k++) hit = near_point(p, from[k]);
        if (hit) al_add(p, delta, p), hits++;
        if (!(fabs(p[0]) <= AL_COORD_MAX && fabs(p[1]) <= AL_COORD_MAX &&
              fabs(p[2]) <= AL_COORD_MAX)) {
            say(why, why_size, "a corner would go beyond the map's limits of ±%g units",
                AL_COORD_MAX);
            goto done;
        }
        corner_index(moved, &n, AL_VERTEX_MAX, p); /* coincident corners merge */
    }
    if (hits == 0) {
        if (from_count > 0)
            say(why, why_size, "the brush has no corner at (%g %g %g)", from[0][0], from[0][1],
                from[0][2]);
        else
            say(why, why_size, "no corner to move");
        st = AL_ERR_NOT_FOUND;
        goto done;
    }
    st = faces_of_corners(faces, count, (const double(*)[3]) moved, n, out, out_count, why,
                          why_size);
done:
    free(g), free(moved);
    return st;
}

al_status al_vertex_split(const al_doc_face *faces, int count, const double at[3],
                          const double delta[3], al_doc_face *out, int *out_count, char *why,
                          size_t why_size)
{
    *out_count = 0;
    double p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = at[k] + delta[k];
        if (!isfinite(p[k])) {
            say(why, why_size, "the new corner is not a finite point");
            return AL_ERR_INVALID_ARGUMENT;
        }
        if (!(fabs(p[k]) <= AL_COORD_MAX)) {
            say(why, why_size, "the new corner would go beyond the map's limits of ±%g units",
                AL_COORD_MAX);
            return AL_ERR_INVALID_ARGUMENT;
        }
    }
    al_vertex_geometry *g = malloc(sizeof *g);
    double(*corners)[3] = malloc((AL_VERTEX_MAX + 1) * sizeof *corners);
    al_status st = AL_ERR_NOMEM;
    if (!g || !corners) goto done;
    st = AL_ERR_INVALID_ARGUMENT;
    if (!al_vertex_geometry_build(faces, count, g, why, why_size)) goto done;
    /* AT must lie on the surface (on a face's plane, behind every other) and not at a
     * corner: the middle of an edge or a face, or any point of one. */
    al_plane planes[AL_BRUSH_MAX_FACES];
    int source[AL_BRUSH_MAX_FACES];
    int np = face_planes(faces, count, planes, source), touching = 0;
    bool outside = false;
    for (int i = 0; i < np && !outside; i++) {
        double d = al_plane_distance(&planes[i], at);
        outside = d > ON_PLANE;
        touching += fabs(d) <= ON_PLANE;
    }
    bool corner = false;
    for (int v = 0; v < g->vertex_count && !corner; v++) corner = near_point(g->vertices[v], at);
    if (outside || touching == 0 || corner) {
        say(why, why_size, "(%g %g %g) is not on an edge or a face of the brush", at[0], at[1],
            at[2]);
        st = AL_ERR_NOT_FOUND;
        goto done;
    }
    for (int v = 0; v < g->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            if (!(fabs(g->vertices[v][k]) <= AL_COORD_MAX)) {
                say(why, why_size, "a corner lies beyond the map's limits of ±%g units",
                    AL_COORD_MAX);
                goto done;
            }
    memcpy(corners, g->vertices, (size_t) g->vertex_count * sizeof *corners);
    int n = g->vertex_count;
    if (corner_index(corners, &n, AL_VERTEX_MAX + 1, p) < g->vertex_count) {
        say(why, why_size, "the new corner at (%g %g %g) is one the brush has", p[0], p[1], p[2]);
        goto done;
    }
    st = faces_of_corners(faces, count, (const double(*)[3]) corners, n, out, out_count, why,
                          why_size);
done:
    free(g), free(corners);
    return st;
}
