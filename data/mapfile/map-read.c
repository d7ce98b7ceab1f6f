/* The .map reader (see map.h).
 *
 * A hand-written tokenizer over an explicit length, tracking line and column. Token kinds
 * are decided by context, because Quake's texture names may begin with '{', '*' or '+' and
 * must be read as raw words. Recovery: an error inside a brush skips to that brush's closing
 * brace and drops the brush; any other error ends the read.
 *
 * Workload: lq-e3m4.map (3.1 MB, 22k faces) in about 40 ms.
 */
#include "map.h"
#include "map-write.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_STRING  65536 /* longest key or value */
#define MAX_WORD    1024  /* longest material name or number */
#define MAX_FACES   1024  /* per brush, before the compiler's own limit */

typedef struct reader {
    const char *data;
    size_t size;
    size_t pos;
    int line, column;
    al_diag_list *diags;
    int entity, brush; /* current indices for diagnostics, -1 outside */
    bool failed_nomem;
    char word[MAX_WORD + 1];
} reader;

typedef struct token_pos {
    int line, column;
} token_pos;

static int peek_char(const reader *r)
{
    return r->pos < r->size ? (unsigned char) r->data[r->pos] : -1;
}

static void advance(reader *r)
{
    if (r->pos >= r->size) return;
    if (r->data[r->pos] == '\n') {
        r->line++;
        r->column = 1;
    } else {
        r->column++;
    }
    r->pos++;
}

static bool is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Skips white space and // comments. */
static void skip_space(reader *r)
{
    for (;;) {
        int c = peek_char(r);
        if (is_space(c)) {
            advance(r);
        } else if (c == '/' && r->pos + 1 < r->size && r->data[r->pos + 1] == '/') {
            while (peek_char(r) != -1 && peek_char(r) != '\n') advance(r);
        } else {
            return;
        }
    }
}

static token_pos here(const reader *r)
{
    token_pos p = {r->line, r->column};
    return p;
}

static void error_at(reader *r, token_pos at, al_diag_kind kind, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void error_at(reader *r, token_pos at, al_diag_kind kind, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    al_diag_addv(r->diags, AL_SEVERITY_ERROR, kind, r->entity, r->brush, -1, at.line, at.column,
                 format, args);
    va_end(args);
}

/* A printable description of the token at the current position, for "found ..." */
static const char *describe_next(reader *r, char *buf, size_t size)
{
    int c = peek_char(r);
    if (c == -1) return "the end of the file";
    size_t n = 0;
    size_t i = r->pos;
    while (i < r->size && n + 1 < size && n < 24 && !is_space((unsigned char) r->data[i])) {
        unsigned char ch = (unsigned char) r->data[i];
        buf[n++] = ch >= 32 && ch < 127 ? (char) ch : '?';
        i++;
    }
    buf[n] = '\0';
    if (n == 0) snprintf(buf, size, "character %d", c);
    return buf;
}

static bool expect_char(reader *r, char want, const char *what)
{
    skip_space(r);
    if (peek_char(r) == want) {
        advance(r);
        return true;
    }
    char buf[64];
    error_at(r, here(r), AL_DIAG_SYNTAX, "expected %s, found '%s'", al_diag_translate(what),
             describe_next(r, buf, sizeof buf));
    return false;
}

/* Reads a raw word (up to white space) into r->word. Returns false at the end of input or
 * if the word is too long. */
static bool read_word(reader *r, bool stop_at_brackets)
{
    skip_space(r);
    size_t n = 0;
    for (;;) {
        int c = peek_char(r);
        if (c == -1 || is_space(c)) break;
        if (stop_at_brackets && n > 0 && (c == '(' || c == ')' || c == '[' || c == ']')) break;
        if (n == MAX_WORD) return false;
        r->word[n++] = (char) c;
        advance(r);
    }
    r->word[n] = '\0';
    return n > 0;
}

static bool read_number(reader *r, double *out, const char *what)
{
    what = al_diag_translate(what);
    skip_space(r);
    token_pos at = here(r);
    if (!read_word(r, true)) {
        char buf[64];
        error_at(r, at, AL_DIAG_SYNTAX, "expected %s (a number), found '%s'", what,
                 describe_next(r, buf, sizeof buf));
        return false;
    }
    char *end;
    errno = 0;
    double v = strtod(r->word, &end);
    if (end == r->word || *end != '\0') {
        error_at(r, at, AL_DIAG_SYNTAX, "expected %s (a number), found '%s'", what, r->word);
        return false;
    }
    if (!isfinite(v)) {
        error_at(r, at, AL_DIAG_BAD_VALUE, "%s '%s' is not a finite number", what, r->word);
        return false;
    }
    *out = v;
    return true;
}

static bool read_int(reader *r, int *out, const char *what)
{
    double v;
    if (!read_number(r, &v, what)) return false;
    if (v < INT32_MIN || v > INT32_MAX) v = 0;
    *out = (int) v;
    return true;
}

/* Reads a quoted string; the opening quote is the next character. Supports \" and \\. */
static char *read_string(reader *r, const char *what)
{
    what = al_diag_translate(what);
    skip_space(r);
    token_pos at = here(r);
    if (peek_char(r) != '"') {
        char buf[64];
        error_at(r, at, AL_DIAG_SYNTAX, "expected %s (a quoted string), found '%s'", what,
                 describe_next(r, buf, sizeof buf));
        return NULL;
    }
    advance(r);
    size_t cap = 64, n = 0;
    char *s = malloc(cap);
    if (!s) {
        r->failed_nomem = true;
        return NULL;
    }
    for (;;) {
        int c = peek_char(r);
        if (c == -1) {
            error_at(r, at, AL_DIAG_SYNTAX, "the string that starts here is never closed");
            free(s);
            return NULL;
        }
        if (c == '\n') {
            error_at(r, at, AL_DIAG_SYNTAX,
                     "the string that starts here is not closed before the end of the line");
            free(s);
            return NULL;
        }
        advance(r);
        if (c == '"') break;
        if (c == '\\' && (peek_char(r) == '"' || peek_char(r) == '\\')) {
            c = peek_char(r);
            advance(r);
        }
        if (c == '\0') c = ' ';
        if (n + 2 > cap) {
            if (cap >= MAX_STRING) {
                error_at(r, at, AL_DIAG_SYNTAX, "string longer than %d characters", MAX_STRING);
                free(s);
                return NULL;
            }
            cap *= 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                r->failed_nomem = true;
                return NULL;
            }
            s = t;
        }
        s[n++] = (char) c;
    }
    s[n] = '\0';
    return s;
}

/* Reads a plane point, appending its numbers as written to TEXT (at least 3 * MAX_WORD +
 * 8 bytes free) and clearing *SHORTEST if one was not in its shortest form. */
static bool read_point(reader *r, double p[3], char *text, bool *shortest)
{
    if (!expect_char(r, '(', "'(' to start a plane point")) return false;
    static const char *names[3] = {AL_N_("x coordinate"), AL_N_("y coordinate"),
                                   AL_N_("z coordinate")};
    strcat(text, "( ");
    for (int k = 0; k < 3; k++) {
        if (!read_number(r, &p[k], names[k])) return false;
        char canonical[32];
        al_format_number(p[k], canonical);
        if (strcmp(canonical, r->word) != 0) *shortest = false;
        strcat(strcat(text, r->word), " ");
    }
    strcat(text, ")");
    return expect_char(r, ')', "')' to end a plane point");
}

static bool read_axis(reader *r, double axis[3], double *offset, const char *what)
{
    char open[64], close[64];
    snprintf(open, sizeof open, al_diag_translate(AL_N_("'[' to start the %s texture axis")), what);
    snprintf(close, sizeof close, al_diag_translate(AL_N_("']' to end the %s texture axis")), what);
    if (!expect_char(r, '[', open)) return false;
    for (int k = 0; k < 3; k++)
        if (!read_number(r, &axis[k], "texture axis component")) return false;
    if (!read_number(r, offset, "texture offset")) return false;
    return expect_char(r, ']', close);
}

/* Reads one face; the next token is its first '('. */
static bool read_face(reader *r, al_map_face *f)
{
    memset(f, 0, sizeof *f);
    skip_space(r);
    f->line = r->line;
    f->column = r->column;
    char text[9 * MAX_WORD + 32] = "";
    bool shortest = true;
    for (int i = 0; i < 3; i++) {
        if (i > 0) strcat(text, " ");
        if (!read_point(r, f->points[i], text, &shortest)) return false;
    }
    if (!shortest && !(f->points_text = strdup(text))) {
        r->failed_nomem = true;
        return false;
    }
    skip_space(r);
    token_pos at = here(r);
    int c = peek_char(r);
    if (c == '"') {
        f->material = read_string(r, "a material name");
        if (!f->material) return false;
    } else {
        if (c == -1 || c == '(' || c == '}' || !read_word(r, false)) {
            char buf[64];
            error_at(r, at, AL_DIAG_SYNTAX, "expected a material name, found '%s'",
                     describe_next(r, buf, sizeof buf));
            return false;
        }
        f->material = strdup(r->word);
        if (!f->material) {
            r->failed_nomem = true;
            return false;
        }
    }
    skip_space(r);
    if (peek_char(r) == '[') {
        f->valve = true;
        if (!read_axis(r, f->u_axis, &f->u_offset, "U")) return false;
        if (!read_axis(r, f->v_axis, &f->v_offset, "V")) return false;
    } else {
        if (!read_number(r, &f->offset[0], "texture x offset")) return false;
        if (!read_number(r, &f->offset[1], "texture y offset")) return false;
    }
    if (!read_number(r, &f->rotation, "texture rotation")) return false;
    if (!read_number(r, &f->scale[0], "texture x scale")) return false;
    if (!read_number(r, &f->scale[1], "texture y scale")) return false;
    /* Optional Quake 2 flags: numbers before the next face or the end of the brush. */
    skip_space(r);
    c = peek_char(r);
    if (c != -1 && c != '(' && c != '}') {
        f->has_flags = true;
        for (int i = 0; i < 3; i++)
            if (!read_int(r, &f->flags[i], "surface flag")) return false;
    }
    return true;
}

/* Skips to the '}' that closes the current brush, counting nested braces (a Quake 3
 * patchDef2 holds its own). Braces count only as words of their own, so a material named
 * "{grate" is not one. Returns false at the end of input. */
static bool skip_brush(reader *r)
{
    int depth = 0;
    for (;;) {
        skip_space(r);
        int c = peek_char(r);
        if (c == -1) return false;
        if (c == '"') {
            /* A quoted material name may contain braces. */
            advance(r);
            while (peek_char(r) != -1 && peek_char(r) != '"' && peek_char(r) != '\n') advance(r);
            if (peek_char(r) == '"') advance(r);
            continue;
        }
        size_t start = r->pos;
        while (peek_char(r) != -1 && !is_space(peek_char(r))) advance(r);
        if (r->pos - start == 1 && r->data[start] == '{') depth++;
        if (r->pos - start == 1 && r->data[start] == '}') {
            if (depth == 0) return true;
            depth--;
        }
    }
}

static void free_brush(al_map_brush *b)
{
    for (int i = 0; i < b->face_count; i++) {
        free(b->faces[i].material);
        free(b->faces[i].points_text);
    }
    free(b->faces);
}

/* Reads a brush after its '{'. Returns 1 for a brush, 0 for a bad brush that was skipped,
 * -1 for an error that ends the read. */
static int read_brush(reader *r, al_map_brush *b, token_pos open)
{
    memset(b, 0, sizeof *b);
    b->line = open.line;
    int cap = 0;
    for (;;) {
        skip_space(r);
        int c = peek_char(r);
        if (c == '}') {
            advance(r);
            if (b->face_count == 0) {
                error_at(r, open, AL_DIAG_INVALID_BRUSH, "the brush has no faces; skipped");
                free_brush(b);
                return 0;
            }
            return 1;
        }
        if (c == -1) {
            error_at(r, open, AL_DIAG_SYNTAX,
                     "the brush that starts here is not closed with '}' before the end of the "
                     "file");
            free_brush(b);
            return -1;
        }
        if (c != '(') {
            token_pos at = here(r);
            char buf[64];
            const char *found = describe_next(r, buf, sizeof buf);
            if (strncmp(found, "patchDef", 8) == 0 || strncmp(found, "brushDef", 8) == 0)
                error_at(r, at, AL_DIAG_INVALID_BRUSH,
                         "'%s' (Quake 3 patches and brush primitives) is not supported; "
                         "brush skipped",
                         found);
            else
                error_at(r, at, AL_DIAG_INVALID_BRUSH,
                         "expected '(' to start a face or '}' to end the brush, found '%s'; "
                         "brush skipped",
                         found);
            free_brush(b);
            return skip_brush(r) ? 0 : -1;
        }
        if (b->face_count == MAX_FACES) {
            error_at(r, here(r), AL_DIAG_INVALID_BRUSH,
                     "the brush has more than %d faces; brush skipped", MAX_FACES);
            free_brush(b);
            return skip_brush(r) ? 0 : -1;
        }
        if (b->face_count == cap) {
            cap = cap ? cap * 2 : 8;
            al_map_face *faces = realloc(b->faces, (size_t) cap * sizeof *faces);
            if (!faces) {
                r->failed_nomem = true;
                free_brush(b);
                return -1;
            }
            b->faces = faces;
        }
        al_map_face *f = &b->faces[b->face_count];
        if (!read_face(r, f)) {
            free(f->material);
            free(f->points_text);
            free_brush(b);
            if (r->failed_nomem) return -1;
            /* The error was reported at its token. Skip to the brush's end; if there is one,
             * the brush is dropped and reading goes on, else the file ends inside it. */
            bool recovered = peek_char(r) == '}' ? (advance(r), true) : skip_brush(r);
            al_diag *last = r->diags && r->diags->count ? &r->diags->items[r->diags->count - 1]
                                                        : NULL;
            if (recovered && last) {
                if (last->kind == AL_DIAG_SYNTAX) last->kind = AL_DIAG_INVALID_BRUSH;
                size_t len = strlen(last->message);
                snprintf(last->message + len, sizeof last->message - len, "%s",
                         al_diag_translate(AL_N_("; brush skipped")));
            }
            return recovered ? 0 : -1;
        }
        b->face_count++;
    }
}

static void free_entity(al_map_entity *e)
{
    for (int i = 0; i < e->property_count; i++) {
        free(e->properties[i].key);
        free(e->properties[i].value);
    }
    free(e->properties);
    for (int i = 0; i < e->brush_count; i++) free_brush(&e->brushes[i]);
    free(e->brushes);
}

void al_map_destroy(al_map *map)
{
    if (!map) return;
    for (int i = 0; i < map->entity_count; i++) free_entity(&map->entities[i]);
    free(map->entities);
    free(map);
}

void al_map_keep_entities(al_map *map, const bool *keep)
{
    int kept = 0;
    for (int i = 0; i < map->entity_count; i++) {
        if (keep[i])
            map->entities[kept++] = map->entities[i];
        else
            free_entity(&map->entities[i]);
    }
    map->entity_count = kept;
}

const char *al_map_entity_value(const al_map_entity *e, const char *key)
{
    for (int i = e->property_count - 1; i >= 0; i--)
        if (strcmp(e->properties[i].key, key) == 0) return e->properties[i].value;
    return NULL;
}

/* Reads an entity after its '{'. Returns false if the read must end. */
static bool read_entity(reader *r, al_map *map, al_map_entity *e, token_pos open)
{
    memset(e, 0, sizeof *e);
    e->line = open.line;
    int prop_cap = 0, brush_cap = 0, file_index = 0;
    for (;;) {
        skip_space(r);
        int c = peek_char(r);
        token_pos at = here(r);
        if (c == '}') {
            advance(r);
            return true;
        }
        if (c == -1) {
            error_at(r, open, AL_DIAG_SYNTAX,
                     "the entity that starts here is not closed with '}' before the end of "
                     "the file");
            return false;
        }
        if (c == '"') {
            char *key = read_string(r, "a property key");
            if (!key) return false;
            char *value = read_string(r, "the property's value");
            if (!value) {
                free(key);
                return false;
            }
            if (e->property_count == prop_cap) {
                prop_cap = prop_cap ? prop_cap * 2 : 8;
                al_map_property *p = realloc(e->properties, (size_t) prop_cap * sizeof *p);
                if (!p) {
                    free(key);
                    free(value);
                    r->failed_nomem = true;
                    return false;
                }
                e->properties = p;
            }
            e->properties[e->property_count].key = key;
            e->properties[e->property_count].value = value;
            e->property_count++;
            continue;
        }
        if (c == '{') {
            advance(r);
            if (e->brush_count == brush_cap) {
                brush_cap = brush_cap ? brush_cap * 2 : 8;
                al_map_brush *b = realloc(e->brushes, (size_t) brush_cap * sizeof *b);
                if (!b) {
                    r->failed_nomem = true;
                    return false;
                }
                e->brushes = b;
            }
            /* Brushes are numbered in file order, skipped ones included, so that numbers in
             * later diagnostics match what the designer's editor shows. */
            r->brush = file_index;
            int got = read_brush(r, &e->brushes[e->brush_count], at);
            r->brush = -1;
            if (got < 0) return false;
            if (got == 0) map->brushes_skipped++;
            if (got == 1) e->brushes[e->brush_count++].index = file_index;
            file_index++;
            continue;
        }
        char buf[64];
        error_at(r, at, AL_DIAG_SYNTAX,
                 "expected a quoted property key, '{' to start a brush or '}' to end the "
                 "entity, found '%s'",
                 describe_next(r, buf, sizeof buf));
        return false;
    }
}

/* Appends a new entity to MAP (its fields zeroed); NULL when memory runs out. */
static al_map_entity *append_entity(al_map *map, int *capacity)
{
    if (map->entity_count == *capacity) {
        int cap = *capacity ? *capacity * 2 : 64;
        al_map_entity *e = realloc(map->entities, (size_t) cap * sizeof *e);
        if (!e) return NULL;
        map->entities = e;
        *capacity = cap;
    }
    al_map_entity *e = &map->entities[map->entity_count];
    memset(e, 0, sizeof *e);
    return e;
}

/* Reads a brush written outside any entity (a fragment's bare "{ ( ... ) ... }", as editors
 * copy world brushes) after its '{', into the fragment's world entity at index *WORLD (made
 * the first time, with the class worldspawn). Returns false if the read must end. */
static bool read_bare_brush(reader *r, al_map *map, int *capacity, int *world, token_pos open)
{
    if (*world < 0) {
        al_map_entity *e = append_entity(map, capacity);
        if (!e) {
            r->failed_nomem = true;
            return false;
        }
        e->line = open.line;
        e->properties = malloc(sizeof *e->properties);
        char *key = strdup("classname"), *value = strdup("worldspawn");
        *world = map->entity_count++;
        if (!e->properties || !key || !value) {
            free(key);
            free(value);
            r->failed_nomem = true;
            return false;
        }
        e->properties[0] = (al_map_property){key, value};
        e->property_count = 1;
    }
    al_map_entity *e = &map->entities[*world];
    al_map_brush *b = realloc(e->brushes, (size_t) (e->brush_count + 1) * sizeof *b);
    if (!b) {
        r->failed_nomem = true;
        return false;
    }
    e->brushes = b;
    r->entity = *world;
    r->brush = e->brush_count;
    int got = read_brush(r, &e->brushes[e->brush_count], open);
    r->brush = -1;
    r->entity = -1;
    if (got < 0) return false;
    if (got == 0) {
        map->brushes_skipped++;
        return true;
    }
    e->brushes[e->brush_count].index = e->brush_count;
    e->brush_count++;
    return true;
}

/* The reader of whole files and of fragments (FRAGMENT: bare brushes allowed at the top,
 * nothing skipped, and no entity at all is an error). */
static al_status read_text(const char *data, size_t size, bool fragment, al_map **out,
                           al_diag_list *diags)
{
    *out = NULL;
    al_map *map = calloc(1, sizeof *map);
    if (!map) return AL_ERR_NOMEM;
    reader r = {.data = data, .size = size, .line = 1, .column = 1, .diags = diags,
                .entity = -1, .brush = -1};
    /* A UTF-8 byte order mark is harmless. */
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) r.pos = 3;
    int cap = 0, world = -1;
    for (;;) {
        skip_space(&r);
        int c = peek_char(&r);
        if (c == -1) break;
        token_pos at = here(&r);
        if (c != '{') {
            char buf[64];
            /* Two calls, not one with a choice of formats: the catalogue's extraction
             * takes a call's format only when it is one literal. */
            if (fragment)
                error_at(&r, at, AL_DIAG_SYNTAX,
                         "expected '{' to start an entity or a brush, found '%s'",
                         describe_next(&r, buf, sizeof buf));
            else
                error_at(&r, at, AL_DIAG_SYNTAX, "expected '{' to start an entity, found '%s'",
                         describe_next(&r, buf, sizeof buf));
            al_map_destroy(map);
            return AL_ERR_SYNTAX;
        }
        advance(&r);
        bool ok;
        skip_space(&r);
        if (fragment && peek_char(&r) == '(') {
            ok = read_bare_brush(&r, map, &cap, &world, at);
        } else {
            al_map_entity *e = append_entity(map, &cap);
            if (!e) {
                al_map_destroy(map);
                return AL_ERR_NOMEM;
            }
            r.entity = map->entity_count;
            ok = read_entity(&r, map, e, at);
            map->entity_count++; /* so that destroy frees what was read */
        }
        if (ok && fragment && map->brushes_skipped > 0) {
            /* The bad brush's diagnostic ends "; (brush) skipped", the last ';' of its
             * message in every case above; a fragment skips nothing, it fails whole. */
            al_diag *last = diags && diags->count ? &diags->items[diags->count - 1] : NULL;
            char *tail = last ? strrchr(last->message, ';') : NULL;
            if (tail) *tail = '\0';
            ok = false;
        }
        if (!ok) {
            al_map_destroy(map);
            if (r.failed_nomem) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, r.entity, -1, -1, r.line,
                            r.column, "out of memory while reading the map");
                return AL_ERR_NOMEM;
            }
            return AL_ERR_SYNTAX;
        }
        r.entity = -1;
    }
    if (fragment && map->entity_count == 0) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "the text holds no entity and no brush");
        al_map_destroy(map);
        return AL_ERR_SYNTAX;
    }
    /* Nothing to read is not an error (the map opens empty), but it is worth a word: the
     * file may not be the one meant. */
    if (map->entity_count == 0) {
        if (size == 0)
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                        "the file is empty (0 bytes): the map has no entities");
        else
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                        "the file holds no entity (%zu bytes of spaces and comments): the map "
                        "is empty",
                        size);
    }
    *out = map;
    return AL_OK;
}

al_status al_map_read_buffer(const char *data, size_t size, al_map **out, al_diag_list *diags)
{
    return read_text(data, size, false, out, diags);
}

al_status al_map_read_fragment(const char *data, size_t size, al_map **out, al_diag_list *diags)
{
    return read_text(data, size, true, out, diags);
}

al_status al_map_read_file(const char *path, al_map **out, al_diag_list *diags)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "cannot open %s: %s", path, strerror(errno));
        return AL_ERR_IO;
    }
    struct stat info;
    if (fstat(fileno(f), &info) == 0 && S_ISDIR(info.st_mode)) {
        fclose(f);
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "cannot read %s: it is a folder, not a map file", path);
        return AL_ERR_IO;
    }
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    while (data) {
        if (n == cap) {
            char *t = realloc(data, cap * 2);
            if (!t) {
                free(data);
                data = NULL;
                break;
            }
            data = t;
            cap *= 2;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int read_errno = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (!data) return AL_ERR_NOMEM;
    if (read_errno) {
        free(data);
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "error while reading %s: %s", path, strerror(read_errno));
        return AL_ERR_IO;
    }
    al_status st = al_map_read_buffer(data, n, out, diags);
    free(data);
    return st;
}
