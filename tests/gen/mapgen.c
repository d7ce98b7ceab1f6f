/* .map text writer (see mapgen.h). */
#include "mapgen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mapgen {
    char *text;
    size_t length, capacity;
    bool valve;
    bool failed;
    int brushes;
    int entity_brushes;
};

static void append(mapgen *g, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void append(mapgen *g, const char *format, ...)
{
    if (g->failed) return;
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(g->text + g->length, g->capacity - g->length, format, args);
        va_end(args);
        if (n < 0) {
            g->failed = true;
            return;
        }
        if ((size_t) n < g->capacity - g->length) {
            g->length += (size_t) n;
            return;
        }
        size_t capacity = g->capacity * 2 + (size_t) n;
        char *text = realloc(g->text, capacity);
        if (!text) {
            g->failed = true;
            return;
        }
        g->text = text;
        g->capacity = capacity;
    }
}

mapgen *mapgen_create(bool valve)
{
    mapgen *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->capacity = 1 << 16;
    g->text = malloc(g->capacity);
    if (!g->text) {
        free(g);
        return NULL;
    }
    g->text[0] = '\0';
    g->valve = valve;
    append(g, "// Written by Allium's map generator (tests/gen)\n");
    if (valve) append(g, "// Format: Valve\n");
    return g;
}

void mapgen_destroy(mapgen *g)
{
    if (!g) return;
    free(g->text);
    free(g);
}

const char *mapgen_text(const mapgen *g, size_t *length)
{
    if (length) *length = g->failed ? 0 : g->length;
    return g->failed ? NULL : g->text;
}

int mapgen_brush_count(const mapgen *g)
{
    return g->brushes;
}

bool mapgen_save(const mapgen *g, const char *path)
{
    if (g->failed) return false;
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(g->text, 1, g->length, f) == g->length;
    return fclose(f) == 0 && ok;
}

void mapgen_begin_entity(mapgen *g, const char *classname)
{
    append(g, "{\n\"classname\" \"%s\"\n", classname);
    if (g->valve && strcmp(classname, "worldspawn") == 0) append(g, "\"mapversion\" \"220\"\n");
    g->entity_brushes = 0;
}

void mapgen_key(mapgen *g, const char *key, const char *value)
{
    append(g, "\"%s\" \"%s\"\n", key, value);
}

void mapgen_keyf(mapgen *g, const char *key, const char *format, ...)
{
    char value[256];
    va_list args;
    va_start(args, format);
    vsnprintf(value, sizeof value, format, args);
    va_end(args);
    mapgen_key(g, key, value);
}

void mapgen_end_entity(mapgen *g)
{
    append(g, "}\n");
}

void mapgen_point_entity(mapgen *g, const char *classname, double x, double y, double z)
{
    mapgen_begin_entity(g, classname);
    mapgen_keyf(g, "origin", "%.17g %.17g %.17g", x, y, z);
    mapgen_end_entity(g);
}

static void sub3(const double a[3], const double b[3], double out[3])
{
    for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void mapgen_brush(mapgen *g, int count, const double (*faces)[3][3], const char *material)
{
    const char *materials[MAPGEN_MAX_FACES];
    for (int f = 0; f < count && f < MAPGEN_MAX_FACES; f++) materials[f] = material;
    mapgen_brush_faces(g, count < MAPGEN_MAX_FACES ? count : MAPGEN_MAX_FACES, faces, materials);
}

void mapgen_brush_faces(mapgen *g, int count, const double (*faces)[3][3],
                        const char *const *materials)
{
    double centre[3] = {0, 0, 0};
    for (int f = 0; f < count; f++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) centre[k] += faces[f][i][k] / (3.0 * count);
    append(g, "// brush %d\n{\n", g->entity_brushes++);
    for (int f = 0; f < count; f++) {
        const double *p[3] = {faces[f][0], faces[f][1], faces[f][2]};
        double a[3], b[3], n[3], out[3];
        sub3(p[0], p[1], a);
        sub3(p[2], p[1], b);
        cross3(a, b, n);
        sub3(p[1], centre, out);
        if (n[0] * out[0] + n[1] * out[1] + n[2] * out[2] < 0) {
            const double *t = p[0];
            p[0] = p[2];
            p[2] = t;
        }
        for (int i = 0; i < 3; i++) append(g, "( %.17g %.17g %.17g ) ", p[i][0], p[i][1], p[i][2]);
        /* Texture axes: the world axes most parallel to the face, as editors do. */
        if (g->valve) {
            int major = fabs(n[0]) > fabs(n[1]) ? (fabs(n[0]) > fabs(n[2]) ? 0 : 2)
                                                : (fabs(n[1]) > fabs(n[2]) ? 1 : 2);
            const char *axes[3] = {"[ 0 1 0 0 ] [ 0 0 -1 0 ]", "[ 1 0 0 0 ] [ 0 0 -1 0 ]",
                                   "[ 1 0 0 0 ] [ 0 -1 0 0 ]"};
            append(g, "%s %s 0 1 1\n", materials[f], axes[major]);
        } else {
            append(g, "%s 0 0 0 1 1\n", materials[f]);
        }
    }
    append(g, "}\n");
    g->brushes++;
}

/* The faces of mapgen_prism's prism, in its order. */
static void prism_faces(int count, const double (*xy)[2], double z0, double z1,
                        double (*faces)[3][3])
{
    for (int i = 0; i < count; i++) {
        const double *a = xy[i], *b = xy[(i + 1) % count];
        double f[3][3] = {{a[0], a[1], z0}, {b[0], b[1], z0}, {b[0], b[1], z1}};
        memcpy(faces[i], f, sizeof f);
    }
    for (int end = 0; end < 2; end++) {
        double z = end ? z1 : z0;
        double f[3][3] = {{xy[0][0], xy[0][1], z}, {xy[1][0], xy[1][1], z},
                          {xy[2][0], xy[2][1], z}};
        memcpy(faces[count + end], f, sizeof f);
    }
}

void mapgen_prism(mapgen *g, int count, const double (*xy)[2], double z0, double z1,
                  const char *material)
{
    double(*faces)[3][3] = malloc((size_t) (count + 2) * sizeof *faces);
    if (!faces) {
        g->failed = true;
        return;
    }
    prism_faces(count, xy, z0, z1, faces);
    mapgen_brush(g, count + 2, (const double (*)[3][3]) faces, material);
    free(faces);
}

void mapgen_box_faces(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                      const char *const materials[6])
{
    const double xy[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    double faces[6][3][3];
    prism_faces(4, xy, z0, z1, faces);
    mapgen_brush_faces(g, 6, (const double(*)[3][3]) faces, materials);
}

void mapgen_box(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                const char *material)
{
    const double xy[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    mapgen_prism(g, 4, xy, z0, z1, material);
}

void mapgen_ramp(mapgen *g, double x0, double y0, double x1, double y1, double z0, double z1,
                 int axis, int dir, const char *material)
{
    static const double none[5][3][3] = {{{0}}};
    mapgen_ramp_nudged(g, x0, y0, x1, y1, z0, z1, axis, dir, none, material);
}

void mapgen_ramp_nudged(mapgen *g, double x0, double y0, double x1, double y1, double z0, double z1,
                        int axis, int dir, const double nudge[5][3][3], const char *material)
{
    /* Corners of the base and the high edge; the slope plane goes through the low base
     * edge and the high edge. */
    double lo_a = axis == 0 ? x0 : y0, hi_a = axis == 0 ? x1 : y1;
    if (dir < 0) {
        double t = lo_a;
        lo_a = hi_a;
        hi_a = t;
    }
    double c0 = axis == 0 ? y0 : x0, c1 = axis == 0 ? y1 : x1;
#define P(a, c, z) {axis == 0 ? (a) : (c), axis == 0 ? (c) : (a), (z)}
    double faces[5][3][3] = {
        {P(lo_a, c0, z0), P(hi_a, c0, z0), P(hi_a, c1, z0)}, /* bottom */
        {P(hi_a, c0, z0), P(hi_a, c1, z0), P(hi_a, c1, z1)}, /* high end */
        {P(lo_a, c0, z0), P(lo_a, c1, z0), P(hi_a, c1, z1)}, /* slope */
        {P(lo_a, c0, z0), P(hi_a, c0, z0), P(hi_a, c0, z1)}, /* side */
        {P(lo_a, c1, z0), P(hi_a, c1, z0), P(hi_a, c1, z1)}, /* other side */
    };
#undef P
    for (int f = 0; f < 5; f++)
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) faces[f][i][k] += nudge[f][i][k];
    mapgen_brush(g, 5, (const double (*)[3][3]) faces, material);
}

void mapgen_stairs(mapgen *g, double x0, double y0, double z0, int axis, int steps, double rise,
                   double run, double width, const char *material)
{
    for (int i = 0; i < steps; i++) {
        double a0 = (axis == 0 ? x0 : y0) + i * run, a1 = a0 + run;
        double c0 = axis == 0 ? y0 : x0, c1 = c0 + width;
        double top = z0 + (i + 1) * rise;
        if (axis == 0) mapgen_box(g, a0, c0, z0, a1, c1, top, material);
        else mapgen_box(g, c0, a0, z0, c1, a1, top, material);
    }
}

void mapgen_light(mapgen *g, double x, double y, double z, const char *level)
{
    mapgen_begin_entity(g, "light");
    mapgen_keyf(g, "origin", "%g %g %g", x, y, z);
    if (level) mapgen_key(g, "light", level);
    mapgen_end_entity(g);
}

void mapgen_room(mapgen *g, double x0, double y0, double z0, double x1, double y1, double z1,
                 double thick, const char *material)
{
    double t = thick;
    mapgen_box(g, x0 - t, y0 - t, z0 - t, x1 + t, y1 + t, z0, material);
    mapgen_box(g, x0 - t, y0 - t, z1, x1 + t, y1 + t, z1 + t, material);
    mapgen_box(g, x0 - t, y0 - t, z0, x0, y1 + t, z1, material);
    mapgen_box(g, x1, y0 - t, z0, x1 + t, y1 + t, z1, material);
    mapgen_box(g, x0, y0 - t, z0, x1, y0, z1, material);
    mapgen_box(g, x0, y1, z0, x1, y1 + t, z1, material);
}
