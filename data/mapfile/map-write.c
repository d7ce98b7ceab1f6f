/* .map writer (see map-write.h). */
#include "map-write.h"

#include "geom/vec3.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    char *text;
    size_t length, capacity;
    bool failed;
} out;

static void put(out *o, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *format, ...)
{
    if (o->failed) return;
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(o->text + o->length, o->capacity - o->length, format, args);
        va_end(args);
        if (n < 0) {
            o->failed = true;
            return;
        }
        if ((size_t) n < o->capacity - o->length) {
            o->length += (size_t) n;
            return;
        }
        size_t capacity = o->capacity * 2 + (size_t) n + 1;
        char *t = realloc(o->text, capacity);
        if (!t) {
            o->failed = true;
            return;
        }
        o->text = t;
        o->capacity = capacity;
    }
}

void al_format_number(double v, char *buf)
{
    if (v == 0) {
        strcpy(buf, "0"); /* also for -0 */
        return;
    }
    /* Whole numbers (most coordinates) without an exponent: 1840, not 1.84e+03. */
    if (fabs(v) < 1e15 && v == (double) (long long) v) {
        snprintf(buf, 32, "%lld", (long long) v);
        return;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, 32, "%.*g", precision, v);
        if (strtod(buf, NULL) == v) return;
    }
}

/* Quake's texture projection: the world plane a face is projected on, by its normal. */
static void base_axes(const double normal[3], double s[3], double t[3])
{
    static const double table[6][3][3] = {
        {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  /* floor */
        {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}}, /* ceiling */
        {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},  /* west wall */
        {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, /* east wall */
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  /* south wall */
        {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}}, /* north wall */
    };
    int best = 0;
    double best_dot = -2;
    for (int i = 0; i < 6; i++) {
        double d = al_dot(normal, table[i][0]);
        if (d > best_dot + 1e-9) {
            best_dot = d;
            best = i;
        }
    }
    al_copy(table[best][1], s);
    al_copy(table[best][2], t);
}

static void face_normal(const al_map_face *f, double n[3])
{
    double a[3], b[3];
    al_sub(f->points[0], f->points[1], a);
    al_sub(f->points[2], f->points[1], b);
    al_cross(a, b, n);
    al_normalize(n, n);
}

void al_texture_to_valve(const al_map_face *f, double u[3], double *u_off, double v[3],
                         double *v_off)
{
    double n[3], s[3], t[3];
    face_normal(f, n);
    base_axes(n, s, t);
    /* Rotate the projected axes by the face's rotation, in the projection plane. */
    double a = f->rotation * M_PI / 180.0, c = cos(a), si = sin(a);
    double quarter = f->rotation / 90.0;
    if (quarter == floor(quarter)) {
        /* Quake special-cases right angles; so do we, to stay exact. */
        static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        int q = (int) fmod(fmod(quarter, 4) + 4, 4);
        c = cs[q][0];
        si = cs[q][1];
    }
    int sv = fabs(s[0]) > 0.5 ? 0 : fabs(s[1]) > 0.5 ? 1 : 2;
    int tv = fabs(t[0]) > 0.5 ? 0 : fabs(t[1]) > 0.5 ? 1 : 2;
    double rs[3], rt[3];
    al_copy(s, rs);
    al_copy(t, rt);
    rs[sv] = c * s[sv] - si * s[tv];
    rs[tv] = si * s[sv] + c * s[tv];
    rt[sv] = c * t[sv] - si * t[tv];
    rt[tv] = si * t[sv] + c * t[tv];
    double sx = f->scale[0] ? f->scale[0] : 1, sy = f->scale[1] ? f->scale[1] : 1;
    al_scale(rs, 1.0 / sx, u);
    al_scale(rt, 1.0 / sy, v);
    /* Valve stores unit axes and scales separately; keep TrenchBroom's convention of unit
     * axes: the writer prints the scale after the rotation. */
    double lu = al_length(u), lv = al_length(v);
    if (lu > 0) al_scale(u, 1.0 / lu, u);
    if (lv > 0) al_scale(v, 1.0 / lv, v);
    *u_off = f->offset[0];
    *v_off = f->offset[1];
}

void al_texture_to_standard(const al_map_face *f, double offset[2], double *rotation,
                            double scale[2])
{
    double n[3], s[3], t[3];
    face_normal(f, n);
    base_axes(n, s, t);
    int sv = fabs(s[0]) > 0.5 ? 0 : fabs(s[1]) > 0.5 ? 1 : 2;
    int tv = fabs(t[0]) > 0.5 ? 0 : fabs(t[1]) > 0.5 ? 1 : 2;
    /* The U axis's direction in the projection plane gives the rotation. */
    double us = f->u_axis[sv] * s[sv], ut = f->u_axis[tv] * t[tv];
    double angle = atan2(ut, us) * 180.0 / M_PI;
    *rotation = fabs(angle) < 1e-9 ? 0 : angle;
    scale[0] = f->scale[0];
    scale[1] = f->scale[1];
    offset[0] = f->u_offset;
    offset[1] = f->v_offset;
}

static void put_string(out *o, const char *s)
{
    put(o, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') put(o, "\\%c", *s);
        else put(o, "%c", *s);
    }
    put(o, "\"");
}

static void put_material(out *o, const char *name)
{
    if (name[0] && !strpbrk(name, " \t\r\n\"")) put(o, "%s", name);
    else put_string(o, name);
}

/* Whether the face's points as written (points_text) still read as its points: nine
 * numbers in parentheses, each equal to the stored one. Anything else is written anew. */
static bool points_text_holds(const al_map_face *f)
{
    if (!f->points_text) return false;
    const char *s = f->points_text;
    for (int i = 0; i < 3; i++) {
        while (*s == ' ') s++;
        if (*s++ != '(') return false;
        for (int k = 0; k < 3; k++) {
            char *end;
            double v = strtod(s, &end);
            if (end == s || v != f->points[i][k]) return false;
            s = end;
        }
        while (*s == ' ') s++;
        if (*s++ != ')') return false;
    }
    return *s == '\0';
}

bool al_map_write(const al_map *map, bool valve, char **text, size_t *length)
{
    out o = {.capacity = 1 << 16};
    o.text = malloc(o.capacity);
    if (!o.text) return false;
    o.text[0] = '\0';
    put(&o, "// Game: Quake\n// Format: %s\n", valve ? "Valve" : "Standard");
    char n[32];
    for (int e = 0; e < map->entity_count; e++) {
        const al_map_entity *ent = &map->entities[e];
        put(&o, "// entity %d\n{\n", e);
        bool wrote_version = false;
        for (int p = 0; p < ent->property_count; p++) {
            const al_map_property *pr = &ent->properties[p];
            if (strcmp(pr->key, "mapversion") == 0) {
                if (!valve || e != 0) continue; /* only Valve files carry it */
                wrote_version = true;
            }
            put_string(&o, pr->key);
            put(&o, " ");
            put_string(&o, pr->value);
            put(&o, "\n");
            if (e == 0 && valve && !wrote_version && strcmp(pr->key, "classname") == 0) {
                put(&o, "\"mapversion\" \"220\"\n");
                wrote_version = true;
            }
        }
        for (int b = 0; b < ent->brush_count; b++) {
            const al_map_brush *br = &ent->brushes[b];
            put(&o, "// brush %d\n{\n", b);
            for (int f = 0; f < br->face_count; f++) {
                const al_map_face *fa = &br->faces[f];
                if (points_text_holds(fa)) {
                    put(&o, "%s ", fa->points_text);
                } else {
                    for (int i = 0; i < 3; i++) {
                        put(&o, "( ");
                        for (int k = 0; k < 3; k++) {
                            al_format_number(fa->points[i][k], n);
                            put(&o, "%s ", n);
                        }
                        put(&o, ") ");
                    }
                }
                put_material(&o, fa->material);
                if (valve) {
                    double u[3], uo, v[3], vo;
                    if (fa->valve) {
                        al_copy(fa->u_axis, u), al_copy(fa->v_axis, v);
                        uo = fa->u_offset, vo = fa->v_offset;
                    } else {
                        al_texture_to_valve(fa, u, &uo, v, &vo);
                    }
                    put(&o, " [ ");
                    for (int k = 0; k < 3; k++) al_format_number(u[k], n), put(&o, "%s ", n);
                    al_format_number(uo, n);
                    put(&o, "%s ] [ ", n);
                    for (int k = 0; k < 3; k++) al_format_number(v[k], n), put(&o, "%s ", n);
                    al_format_number(vo, n);
                    put(&o, "%s ]", n);
                    al_format_number(fa->rotation, n);
                    put(&o, " %s", n);
                } else {
                    double off[2], rot, sc[2];
                    if (fa->valve) al_texture_to_standard(fa, off, &rot, sc);
                    else off[0] = fa->offset[0], off[1] = fa->offset[1], rot = fa->rotation;
                    for (int k = 0; k < 2; k++) al_format_number(off[k], n), put(&o, " %s", n);
                    al_format_number(rot, n);
                    put(&o, " %s", n);
                }
                for (int k = 0; k < 2; k++) al_format_number(fa->scale[k], n), put(&o, " %s", n);
                if (fa->has_flags) put(&o, " %d %d %d", fa->flags[0], fa->flags[1], fa->flags[2]);
                put(&o, "\n");
            }
            put(&o, "}\n");
        }
        put(&o, "}\n");
    }
    if (o.failed) {
        free(o.text);
        return false;
    }
    *text = o.text;
    *length = o.length;
    return true;
}
