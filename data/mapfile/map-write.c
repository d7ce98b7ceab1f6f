/* .map writer (see map-write.h). */
#include "map-write.h"
#include "texture.h"

#include "al-vec3.h"

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

/* A quoted string the reader gives back as S. Quake's own parser knows no escapes: a
 * backslash is written as it is ("\n" in id's messages stays two characters), escaped only
 * where the reader would take it for one (before a backslash or a quote, or last); a quote
 * is escaped. */
static void put_string(out *o, const char *s)
{
    put(o, "\"");
    for (; *s; s++) {
        if (*s == '"')
            put(o, "\\\"");
        else if (*s == '\\' && (s[1] == '\\' || s[1] == '"' || s[1] == '\0'))
            put(o, "\\\\");
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

/* The writer of files and of fragments (FRAGMENT: no header; the version key only in a
 * worldspawn entity, which a fragment need not begin with). */
static bool write_text(const al_map *map, bool valve, bool fragment, char **text, size_t *length)
{
    out o = {.capacity = 1 << 16};
    o.text = malloc(o.capacity);
    if (!o.text) return false;
    o.text[0] = '\0';
    if (!fragment) put(&o, "// Game: Quake\n// Format: %s\n", valve ? "Valve" : "Standard");
    char n[32];
    for (int e = 0; e < map->entity_count; e++) {
        const al_map_entity *ent = &map->entities[e];
        put(&o, "// entity %d\n{\n", e);
        const char *classname = al_map_entity_value(ent, "classname");
        bool versioned = fragment ? classname && strcmp(classname, "worldspawn") == 0 : e == 0;
        bool wrote_version = false;
        for (int p = 0; p < ent->property_count; p++) {
            const al_map_property *pr = &ent->properties[p];
            if (strcmp(pr->key, "mapversion") == 0) {
                /* Only Valve files carry it, once. */
                if (!valve || !versioned || wrote_version) continue;
                wrote_version = true;
            }
            put_string(&o, pr->key);
            put(&o, " ");
            put_string(&o, pr->value);
            put(&o, "\n");
            if (versioned && valve && !wrote_version && strcmp(pr->key, "classname") == 0) {
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
                double sc[2] = {fa->scale[0], fa->scale[1]};
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
                    double off[2], rot;
                    if (fa->valve) {
                        al_texture_to_standard(fa, off, &rot, sc);
                    } else {
                        off[0] = fa->offset[0], off[1] = fa->offset[1], rot = fa->rotation;
                        sc[0] = fa->scale[0], sc[1] = fa->scale[1];
                    }
                    for (int k = 0; k < 2; k++) al_format_number(off[k], n), put(&o, " %s", n);
                    al_format_number(rot, n);
                    put(&o, " %s", n);
                }
                for (int k = 0; k < 2; k++) al_format_number(sc[k], n), put(&o, " %s", n);
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

bool al_map_write(const al_map *map, bool valve, char **text, size_t *length)
{
    return write_text(map, valve, false, text, length);
}

bool al_map_write_fragment(const al_map *map, bool valve, char **text, size_t *length)
{
    return write_text(map, valve, true, text, length);
}
