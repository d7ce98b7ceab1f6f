/* DEF files (the Radiants' entity comments): the reader behind al_entdefs_read_buffer.
 *
 *   /" "*QUAKED light (0 1 0) (-8 -8 -8) (8 8 8) START_OFF
 *   { model(":progs/flame.mdl"); }          (optional, TrenchBroom's model expression)
 *   Non-displayed light.
 *   "light" brightness, default 300
 *   *" "/
 *
 * The first line names the class, its editor colour (0..1) and either its box (a point
 * class) or "?" (a solid class), then its spawnflags: the n-th word is the bit 1 << n, "-"
 * and "x" leave a bit unnamed. The rest of the comment is the description; its lines that
 * start with a quoted word become string properties of that key, described by the line.
 * Everything outside the QUAKED comments is ignored. A comment whose first line cannot be
 * read is reported (file, line, column) and skipped.
 */
#include "entdefs/entdefs-internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEF_MAX_FLAGS 24 /* Quake keeps spawnflags in a float: 24 bits are exact */

typedef struct header {
    entdefs_reader *r;
    const char *name;
    const char *p, *end; /* the first line */
    int line;
    const char *line_start;
} header;

static void skip_blanks(header *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\r')) h->p++;
}

static bool bad(header *h, const char *what)
{
    entdefs_report(h->r, AL_SEVERITY_ERROR, h->name, h->line, (int) (h->p - h->line_start) + 1,
                   AL_N_("QUAKED comment: expected %s"), al_diag_translate(what));
    return false;
}

/* "( a b c )" into OUT. */
static bool read_triple(header *h, double out[3], const char *what)
{
    skip_blanks(h);
    if (h->p >= h->end || *h->p != '(') return bad(h, what);
    const char *open = h->p++;
    for (int i = 0; i < 3; i++) {
        skip_blanks(h);
        char buf[64];
        size_t n = 0;
        while (h->p < h->end && n + 1 < sizeof buf && !isspace((unsigned char) *h->p) &&
               *h->p != ')')
            buf[n++] = *h->p++;
        buf[n] = '\0';
        char *end;
        double v = strtod(buf, &end);
        if (n == 0 || *end || !isfinite(v)) {
            h->p = open;
            return bad(h, what);
        }
        out[i] = v;
    }
    skip_blanks(h);
    if (h->p >= h->end || *h->p != ')') {
        h->p = open;
        return bad(h, what);
    }
    h->p++;
    return true;
}

static bool add_string(entdefs_reader *r, char **field, const char *s, size_t n)
{
    char *copy = entdefs_strndup(r, s, n);
    if (!copy) return false;
    free(*field);
    *field = copy;
    return true;
}

/* The first line: name, colour, box or "?", flags. */
static bool read_header(header *h, al_entdef_class *cls)
{
    skip_blanks(h);
    const char *start = h->p;
    while (h->p < h->end && !isspace((unsigned char) *h->p) && *h->p != '(') h->p++;
    if (h->p == start) return bad(h, AL_N_("a class name"));
    cls->name = entdefs_strndup(h->r, start, (size_t) (h->p - start));
    if (!cls->name) return false;
    skip_blanks(h);
    if (h->p < h->end && *h->p == '(') {
        const char *open = h->p;
        if (!read_triple(h, cls->color, AL_N_("a colour (r g b)"))) return false;
        for (int i = 0; i < 3; i++) {
            if (cls->color[i] >= 0 && cls->color[i] <= 1) continue;
            h->p = open;
            return bad(h, AL_N_("colour values from 0 to 1"));
        }
        cls->has_color = true;
    }
    skip_blanks(h);
    if (h->p < h->end && *h->p == '?') {
        cls->kind = AL_ENTDEF_SOLID;
        h->p++;
    } else if (h->p < h->end && *h->p == '(') {
        double mins[3], maxs[3];
        if (!read_triple(h, mins, AL_N_("the box's mins (x y z)"))) return false;
        if (!read_triple(h, maxs, AL_N_("the box's maxs (x y z)"))) return false;
        cls->has_size = true;
        for (int i = 0; i < 3; i++) {
            cls->mins[i] = fmin(mins[i], maxs[i]);
            cls->maxs[i] = fmax(mins[i], maxs[i]);
        }
    }
    al_entdef_property *flags = NULL;
    for (int n = 0;; n++) {
        skip_blanks(h);
        if (h->p >= h->end) break;
        const char *word = h->p;
        while (h->p < h->end && !isspace((unsigned char) *h->p)) h->p++;
        size_t len = (size_t) (h->p - word);
        if (n >= DEF_MAX_FLAGS) {
            h->p = word;
            return bad(h, AL_N_("at most 24 spawnflags"));
        }
        if ((len == 1 && (*word == '-' || *word == 'x')) || word[0] == '(') {
            if (word[0] == '(') {
                h->p = word;
                return bad(h, AL_N_("a spawnflag's name"));
            }
            continue;
        }
        if (!flags) {
            flags = entdefs_class_add_property(h->r, cls);
            if (!flags || !add_string(h->r, &flags->key, "spawnflags", 10) ||
                !add_string(h->r, &flags->type_name, "flags", 5))
                return false;
            flags->type = AL_PROP_FLAGS;
        }
        al_entdef_flag *f = entdefs_property_add_flag(h->r, flags);
        if (!f || !add_string(h->r, &f->label, word, len)) return false;
        f->bit = 1u << n;
    }
    return true;
}

/* The body: an optional "{ ... }" model expression, the description, "key" lines. */
static bool read_body(entdefs_reader *r, al_entdef_class *cls, const char *p, const char *end)
{
    while (p < end && isspace((unsigned char) *p)) p++;
    if (p < end && *p == '{') {
        const char *open = ++p;
        int depth = 1;
        bool in_string = false;
        for (; p < end && depth > 0; p++) {
            if (*p == '"') in_string = !in_string;
            if (!in_string) depth += (*p == '{') - (*p == '}');
        }
        if (depth == 0) {
            const char *close = p - 1;
            while (open < close && isspace((unsigned char) *open)) open++;
            while (close > open && isspace((unsigned char) close[-1])) close--;
            if (!add_string(r, &cls->model, open, (size_t) (close - open))) return false;
        } else {
            p = open - 1; /* not a model expression: part of the description */
        }
    }
    while (p < end && isspace((unsigned char) *p)) p++;
    while (end > p && isspace((unsigned char) end[-1])) end--;
    if (!add_string(r, &cls->description, p, (size_t) (end - p))) return false;
    char *w = cls->description; /* CRLF files: the description's lines end in "\n" */
    for (const char *c = cls->description; *c; c++)
        if (!(c[0] == '\r' && c[1] == '\n')) *w++ = *c;
    *w = '\0';
    for (const char *line = p; line < end;) {
        const char *eol = memchr(line, '\n', (size_t) (end - line));
        if (!eol) eol = end;
        const char *q = line;
        while (q < eol && (*q == ' ' || *q == '\t')) q++;
        const char *close =
            q < eol && *q == '"' ? memchr(q + 1, '"', (size_t) (eol - q - 1)) : NULL;
        bool word = close && close > q + 1;
        for (const char *c = q + 1; word && c < close; c++) word = !isspace((unsigned char) *c);
        if (word) {
            char *key = entdefs_strndup(r, q + 1, (size_t) (close - q - 1));
            if (!key) return false;
            bool known = al_entdef_find_property(cls, key) != NULL;
            free(key);
            if (!known) {
                al_entdef_property *prop = entdefs_class_add_property(r, cls);
                if (!prop || !add_string(r, &prop->key, q + 1, (size_t) (close - q - 1)))
                    return false;
                const char *text = close + 1;
                const char *stop = eol;
                while (text < stop && isspace((unsigned char) *text)) text++;
                while (stop > text && isspace((unsigned char) stop[-1])) stop--;
                if (!add_string(r, &prop->description, text, (size_t) (stop - text))) return false;
            }
        }
        line = eol + 1;
    }
    return true;
}

void entdefs_read_def(entdefs_reader *r, const char *data, size_t size, const char *name)
{
    static const char open[] = "/*QUAKED";
    const char *p = data, *end = data + size;
    const char *line_start = data;
    int line = 1;
    int file = r->set->file_count - 1;
    while (p < end && !r->nomem) {
        /* The next comment opening, counting lines on the way. */
        const char *at = NULL;
        for (const char *q = p; q + sizeof open - 1 <= end; q++) {
            if (*q == '\n') {
                line++;
                line_start = q + 1;
            }
            if (*q == '/' && memcmp(q, open, sizeof open - 1) == 0) {
                at = q;
                break;
            }
        }
        if (!at) return;
        const char *close = NULL;
        for (const char *q = at + 2; q + 1 < end && !close; q++)
            if (q[0] == '*' && q[1] == '/') close = q;
        if (!close) {
            entdefs_report(r, AL_SEVERITY_ERROR, name, line, (int) (at - line_start) + 1,
                           AL_N_("QUAKED comment is not closed with */"));
            return;
        }
        const char *first = at + sizeof open - 1;
        const char *eol = memchr(first, '\n', (size_t) (close - first));
        if (!eol) eol = close;
        header h = {
            .r = r, .name = name, .p = first, .end = eol, .line = line, .line_start = line_start};
        al_entdef_class cls = {.kind = AL_ENTDEF_POINT, .file = file, .line = line};
        if (read_header(&h, &cls) && read_body(r, &cls, eol, close) && !r->nomem) {
            if (!cls.description && !add_string(r, &cls.description, "", 0))
                entdefs_class_free(&cls);
            else
                entdefs_add_class(r, &cls, name);
        } else {
            entdefs_class_free(&cls);
        }
        /* Count the comment's lines and go on after it. */
        for (const char *q = at; q < close; q++)
            if (*q == '\n') {
                line++;
                line_start = q + 1;
            }
        p = close + 2;
    }
}
