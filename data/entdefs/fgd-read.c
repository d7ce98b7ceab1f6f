/* FGD files (Worldcraft, Hammer, TrenchBroom): the reader behind al_entdefs_read_buffer.
 *
 *   @include "other.fgd"
 *   @BaseClass base(A, B) size(-16 -16 -24, 16 16 32) color(0 255 0) = Name : "text" [ ... ]
 *   @PointClass ... model({ "path": ":progs/player.mdl" }) = info_player_start : "text" [ ... ]
 *   @SolidClass = worldspawn : "World entity" [ ... ]
 *
 * and properties inside the brackets:
 *
 *   key(type) [readonly] : "Display" : default : "Description" [= [ items ]]
 *
 * where a "choices" property's items are `value : "label"` and a "flags" property's are
 * `bit : "label" : 0|1 [: "description"]`. Strings may be joined with "+" and hold \n and
 * \" escapes; "//" starts a comment. Helpers other than base(), size() and color() keep
 * their text as written (model() holds TrenchBroom's expression language, which this
 * reader does not evaluate); size(x y z) is a box of that size centred on the origin; other "@"
 * statements (@mapsize, @MaterialExclusion, ...) and Source's input/output lines are read past.
 *
 * A definition with a syntax error is reported (file, line, column, what was expected) and
 * skipped: reading goes on at the next "@".
 */
#include "entdefs/entdefs-internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum token_kind { TOK_END, TOK_WORD, TOK_STRING, TOK_PUNCT } token_kind;

typedef struct token {
    token_kind kind;
    const char *start; /* a string's start is after its opening quote */
    size_t length;     /* a string's excludes the quotes */
    int line, column;
} token;

typedef struct lexer {
    entdefs_reader *r;
    const char *name;
    const char *p, *end;
    int line;
    const char *line_start;
    int file; /* the file's index in the set */
    token peeked;
    bool has_peeked;
} lexer;

static bool is_punct(char c)
{
    return c == '@' || c == '=' || c == ':' || c == '[' || c == ']' || c == '(' || c == ')' ||
           c == ',' || c == '"';
}

static int column_of(const lexer *lx, const char *at)
{
    return (int) (at - lx->line_start) + 1;
}

static void advance(lexer *lx)
{
    if (*lx->p == '\n') {
        lx->line++;
        lx->line_start = lx->p + 1;
    }
    lx->p++;
}

static void skip_space(lexer *lx)
{
    while (lx->p < lx->end) {
        if (isspace((unsigned char) *lx->p) || *lx->p == '\0') {
            advance(lx);
        } else if (*lx->p == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n') lx->p++;
        } else {
            break;
        }
    }
}

static token lex(lexer *lx)
{
    if (lx->has_peeked) {
        lx->has_peeked = false;
        return lx->peeked;
    }
    skip_space(lx);
    token t = {.kind = TOK_END, .start = lx->p, .line = lx->line, .column = column_of(lx, lx->p)};
    if (lx->p >= lx->end) return t;
    if (*lx->p == '"') {
        advance(lx);
        t.kind = TOK_STRING;
        t.start = lx->p;
        while (lx->p < lx->end && *lx->p != '"') {
            if (*lx->p == '\\' && lx->p + 1 < lx->end) advance(lx);
            advance(lx);
        }
        t.length = (size_t) (lx->p - t.start);
        if (lx->p < lx->end && *lx->p == '"')
            advance(lx);
        else
            t.kind = TOK_END; /* reported by the caller as an unclosed string */
        if (t.kind == TOK_END) t.length = (size_t) -1;
        return t;
    }
    if (is_punct(*lx->p)) {
        t.kind = TOK_PUNCT;
        t.length = 1;
        advance(lx);
        return t;
    }
    t.kind = TOK_WORD;
    while (lx->p < lx->end && !isspace((unsigned char) *lx->p) && *lx->p != '\0' &&
           !is_punct(*lx->p) && !(*lx->p == '/' && lx->p + 1 < lx->end && lx->p[1] == '/'))
        lx->p++;
    t.length = (size_t) (lx->p - t.start);
    return t;
}

static token peek(lexer *lx)
{
    if (!lx->has_peeked) {
        lx->peeked = lex(lx);
        lx->has_peeked = true;
    }
    return lx->peeked;
}

static bool is_punct_token(token t, char c)
{
    return t.kind == TOK_PUNCT && *t.start == c;
}

static bool word_is(token t, const char *word)
{
    return t.kind == TOK_WORD && strlen(word) == t.length &&
           strncasecmp(t.start, word, t.length) == 0;
}

/* Reports what T is where something else was EXPECTED. Always returns false. */
static bool expected(lexer *lx, token t, const char *what)
{
    char found[48];
    if (t.kind == TOK_END && t.length == (size_t) -1)
        snprintf(found, sizeof found, "%s", al_diag_translate(AL_N_("an unclosed string")));
    else if (t.kind == TOK_END)
        snprintf(found, sizeof found, "%s", al_diag_translate(AL_N_("the end of the file")));
    else if (t.kind == TOK_STRING)
        snprintf(found, sizeof found, "%s", al_diag_translate(AL_N_("a string")));
    else
        snprintf(found, sizeof found, "'%.*s'", (int) (t.length > 24 ? 24 : t.length), t.start);
    entdefs_report(lx->r, AL_SEVERITY_ERROR, lx->name, t.line, t.column,
                   AL_N_("expected %s, found %s"), al_diag_translate(what), found);
    return false;
}

/* The unescaped text of string token T appended to *OUT (NULL: a new string). */
static bool append_string(lexer *lx, token t, char **out)
{
    size_t have = *out ? strlen(*out) : 0;
    char *s = realloc(*out, have + t.length + 1);
    if (!s) {
        lx->r->nomem = true;
        return false;
    }
    *out = s;
    char *w = s + have;
    for (size_t i = 0; i < t.length; i++) {
        char c = t.start[i];
        if (c == '\r' && i + 1 < t.length && t.start[i + 1] == '\n') continue; /* CRLF files */
        if (c == '\\' && i + 1 < t.length) {
            c = t.start[++i];
            if (c == 'n')
                c = '\n';
            else if (c == 't')
                c = '\t';
            else if (c != '"' && c != '\\')
                *w++ = '\\';
        }
        *w++ = c;
    }
    *w = '\0';
    return true;
}

/* A string (several joined with "+"), or a word, into *OUT (replacing it). */
static bool read_text(lexer *lx, char **out, const char *what)
{
    token t = lex(lx);
    char *s = NULL;
    if (t.kind == TOK_WORD) {
        s = entdefs_strndup(lx->r, t.start, t.length);
    } else if (t.kind == TOK_STRING) {
        if (!append_string(lx, t, &s)) return false;
        while (word_is(peek(lx), "+")) {
            lex(lx);
            t = lex(lx);
            if (t.kind != TOK_STRING) {
                free(s);
                return expected(lx, t, AL_N_("a string after '+'"));
            }
            if (!append_string(lx, t, &s)) break;
        }
    } else {
        return expected(lx, t, what);
    }
    if (!s || lx->r->nomem) {
        free(s);
        return false;
    }
    free(*out);
    *out = s;
    return true;
}

/* Reads past the text of a helper's parentheses (the "(" already read) up to the
 * matching ")", strings and nested brackets included; the text between into *OUT if OUT. */
static bool read_raw_parens(lexer *lx, token open, char **out)
{
    const char *start = lx->p;
    int depth = 1;
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '"') {
            advance(lx);
            while (lx->p < lx->end && *lx->p != '"') {
                if (*lx->p == '\\' && lx->p + 1 < lx->end) advance(lx);
                advance(lx);
            }
        } else if (c == '(') {
            depth++;
        } else if (c == ')' && --depth == 0) {
            const char *stop = lx->p;
            advance(lx);
            if (!out) return true;
            while (start < stop && isspace((unsigned char) *start)) start++;
            while (stop > start && isspace((unsigned char) stop[-1])) stop--;
            free(*out);
            *out = entdefs_strndup(lx->r, start, (size_t) (stop - start));
            return *out != NULL;
        }
        if (lx->p < lx->end) advance(lx);
    }
    entdefs_report(lx->r, AL_SEVERITY_ERROR, lx->name, open.line, open.column,
                   AL_N_("'(' is not closed"));
    return false;
}

/* Reads N numbers, separated by spaces or commas, from TEXT into OUT. */
static bool parse_numbers(const char *text, double *out, int n)
{
    int got = 0;
    const char *p = text;
    for (;;) {
        while (*p == ',' || isspace((unsigned char) *p)) p++;
        if (!*p) break;
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || got == n) return false;
        out[got++] = v;
        p = end;
    }
    return got == n;
}

/* base(A, B, ...): the names into CLS->bases. */
static bool parse_bases(lexer *lx, al_entdef_class *cls, const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p == ',' || isspace((unsigned char) *p)) p++;
        const char *start = p;
        while (*p && *p != ',' && !isspace((unsigned char) *p)) p++;
        if (p == start) break;
        char **grown = realloc(cls->bases, ((size_t) cls->base_count + 1) * sizeof *grown);
        if (!grown) {
            lx->r->nomem = true;
            return false;
        }
        cls->bases = grown;
        cls->bases[cls->base_count] = entdefs_strndup(lx->r, start, (size_t) (p - start));
        if (!cls->bases[cls->base_count]) return false;
        cls->base_count++;
    }
    return true;
}

/* The helper NAME( ... ) of a class header (its "(" read). */
static bool read_helper(lexer *lx, al_entdef_class *cls, token name, token open)
{
    char *text = NULL;
    if (!read_raw_parens(lx, open, &text)) return false;
    bool ok = true;
    if (word_is(name, "base")) {
        ok = parse_bases(lx, cls, text);
    } else if (word_is(name, "size")) {
        double v[6];
        bool centred = parse_numbers(text, v, 3);
        if (centred) {
            /* One vector is the box's size, centred on the origin (as Hammer reads it). */
            for (int i = 0; i < 3; i++) {
                v[i + 3] = fabs(v[i]) / 2;
                v[i] = -v[i + 3];
            }
        }
        if (centred || parse_numbers(text, v, 6)) {
            cls->has_size = true;
            for (int i = 0; i < 3; i++) {
                cls->mins[i] = fmin(v[i], v[i + 3]);
                cls->maxs[i] = fmax(v[i], v[i + 3]);
            }
        } else {
            entdefs_report(lx->r, AL_SEVERITY_ERROR, lx->name, name.line, name.column,
                           AL_N_("size() needs six numbers (mins and maxs) or three (a size)"));
            ok = false;
        }
    } else if (word_is(name, "color")) {
        double v[3];
        if (parse_numbers(text, v, 3) && v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[0] <= 255 &&
            v[1] <= 255 && v[2] <= 255) {
            cls->has_color = true;
            for (int i = 0; i < 3; i++) cls->color[i] = v[i] / 255.0;
        } else {
            entdefs_report(lx->r, AL_SEVERITY_ERROR, lx->name, name.line, name.column,
                           AL_N_("color() needs three numbers from 0 to 255"));
            ok = false;
        }
    } else if (word_is(name, "model") || word_is(name, "studio")) {
        free(cls->model);
        cls->model = text;
        text = NULL;
    }
    free(text);
    return ok;
}

/* The items of a choices or flags property, after "= [". */
static bool read_items(lexer *lx, al_entdef_property *p)
{
    for (;;) {
        token t = lex(lx);
        if (is_punct_token(t, ']')) return true;
        if (t.kind != TOK_WORD && t.kind != TOK_STRING)
            return expected(lx, t,
                            p->type == AL_PROP_FLAGS ? "a flag's bit or ']'"
                                                     : "a choice's value or ']'");
        token colon = lex(lx);
        if (!is_punct_token(colon, ':')) return expected(lx, colon, AL_N_("':'"));
        if (p->type == AL_PROP_FLAGS) {
            char *end;
            long bit = t.kind == TOK_WORD ? strtol(t.start, &end, 10) : 0;
            if (t.kind != TOK_WORD || end != t.start + t.length || bit < 0 || bit > 0x7fffffffL)
                return expected(lx, t, AL_N_("a flag's bit (an integer from 0)"));
            if (bit & (bit - 1) || bit == 0)
                entdefs_report(lx->r, AL_SEVERITY_WARNING, lx->name, t.line, t.column,
                               AL_N_("flag value %ld is not a single bit"), bit);
            al_entdef_flag *f = entdefs_property_add_flag(lx->r, p);
            if (!f) return false;
            f->bit = (unsigned) bit;
            if (!read_text(lx, &f->label, AL_N_("a flag's label"))) return false;
            if (is_punct_token(peek(lx), ':')) {
                lex(lx);
                token on = lex(lx);
                if (word_is(on, "0") || word_is(on, "1"))
                    f->on = *on.start == '1';
                else
                    return expected(lx, on, AL_N_("0 or 1"));
                if (is_punct_token(peek(lx), ':')) {
                    lex(lx);
                    if (!read_text(lx, &f->description, AL_N_("a flag's description")))
                        return false;
                }
            }
        } else {
            al_entdef_choice *c = entdefs_property_add_choice(lx->r, p);
            if (!c) return false;
            free(c->value);
            c->value = NULL;
            if (t.kind == TOK_WORD)
                c->value = entdefs_strndup(lx->r, t.start, t.length);
            else
                append_string(lx, t, &c->value);
            if (!c->value) return false;
            if (!read_text(lx, &c->label, AL_N_("a choice's label"))) return false;
        }
    }
}

/* A Source input or output line ("input Name(type) : "text""), read past. */
static bool skip_io(lexer *lx)
{
    token name = lex(lx), open = lex(lx);
    if (name.kind != TOK_WORD) return expected(lx, name, AL_N_("an input or output name"));
    if (!is_punct_token(open, '(')) return expected(lx, open, AL_N_("'('"));
    if (!read_raw_parens(lx, open, NULL)) return false;
    if (is_punct_token(peek(lx), ':')) {
        lex(lx);
        char *text = NULL;
        bool ok = read_text(lx, &text, AL_N_("a description"));
        free(text);
        return ok;
    }
    return true;
}

/* One property, its key token K read. */
static bool read_property(lexer *lx, al_entdef_class *cls, token k)
{
    if ((word_is(k, "input") || word_is(k, "output")) && peek(lx).kind == TOK_WORD)
        return skip_io(lx);
    token open = lex(lx);
    if (!is_punct_token(open, '(')) return expected(lx, open, AL_N_("'(' and the key's type"));
    token type = lex(lx);
    if (type.kind != TOK_WORD) return expected(lx, type, AL_N_("a type"));
    token close = lex(lx);
    if (!is_punct_token(close, ')')) return expected(lx, close, AL_N_("')'"));
    al_entdef_property *p = entdefs_class_add_property(lx->r, cls);
    if (!p) return false;
    free(p->key);
    free(p->type_name);
    p->key = entdefs_strndup(lx->r, k.start, k.length);
    p->type_name = entdefs_strndup(lx->r, type.start, type.length);
    if (!p->key || !p->type_name) return false;
    for (char *c = p->type_name; *c; c++) *c = (char) tolower((unsigned char) *c);
    p->type = entdefs_type_of(p->type_name);
    if (word_is(peek(lx), "readonly")) {
        lex(lx);
        p->read_only = true;
    }
    if (word_is(peek(lx), "report")) lex(lx);
    /* : display : default : description, each of which may be left empty. */
    char **fields[3] = {&p->display, &p->default_value, &p->description};
    for (int i = 0; i < 3 && is_punct_token(peek(lx), ':'); i++) {
        lex(lx);
        token next = peek(lx);
        if (is_punct_token(next, ':') ||
            (i > 0 && (is_punct_token(next, '=') || is_punct_token(next, ']'))))
            continue;
        if (!read_text(lx, fields[i], i == 1 ? AL_N_("a default value") : AL_N_("a string")))
            return false;
        if (i == 1) p->has_default = true;
    }
    if (is_punct_token(peek(lx), '=')) {
        lex(lx);
        token bracket = lex(lx);
        if (!is_punct_token(bracket, '[')) return expected(lx, bracket, AL_N_("'['"));
        if (p->type != AL_PROP_FLAGS && p->type != AL_PROP_CHOICES) {
            entdefs_report(lx->r, AL_SEVERITY_ERROR, lx->name, bracket.line, bracket.column,
                           AL_N_("key '%s' of type %s cannot have a list of items"), p->key,
                           p->type_name);
            return false;
        }
        if (!read_items(lx, p)) return false;
    }
    if (p->type == AL_PROP_FLAGS && p->has_default) {
        /* A flags default is the sum of its bits; the items' on/off say the same. */
        char *end;
        long v = strtol(p->default_value, &end, 10);
        if (*end == '\0')
            for (int i = 0; i < p->flag_count; i++)
                if (v & (long) p->flags[i].bit) p->flags[i].on = true;
    }
    return true;
}

/* "@Kind helpers = name : "description" [ properties ]", its "@" and kind read. */
static bool read_class(lexer *lx, al_entdef_kind kind, token at)
{
    al_entdef_class cls = {.kind = kind, .line = at.line, .file = lx->file};
    bool ok = false;
    for (;;) {
        token t = lex(lx);
        if (is_punct_token(t, '=')) break;
        if (t.kind != TOK_WORD) {
            expected(lx, t, AL_N_("a helper such as base(...) or '='"));
            goto done;
        }
        if (is_punct_token(peek(lx), '(')) {
            token open = lex(lx);
            if (!read_helper(lx, &cls, t, open)) goto done;
        }
    }
    token name = lex(lx);
    if (name.kind != TOK_WORD) {
        expected(lx, name, AL_N_("the class name"));
        goto done;
    }
    cls.name = entdefs_strndup(lx->r, name.start, name.length);
    cls.description = entdefs_strndup(lx->r, "", 0);
    if (!cls.name || !cls.description) goto done;
    if (is_punct_token(peek(lx), ':')) {
        lex(lx);
        if (!read_text(lx, &cls.description, AL_N_("the class's description"))) goto done;
        /* TrenchBroom allows a second ": text" (a longer description). */
        if (is_punct_token(peek(lx), ':')) {
            lex(lx);
            char *more = NULL;
            if (!read_text(lx, &more, AL_N_("a description"))) goto done;
            free(more);
        }
    }
    if (is_punct_token(peek(lx), '[')) {
        lex(lx);
        for (;;) {
            token k = lex(lx);
            if (is_punct_token(k, ']')) break;
            if (k.kind != TOK_WORD) {
                expected(lx, k, AL_N_("a key or ']'"));
                goto done;
            }
            if (!read_property(lx, &cls, k)) goto done;
        }
    } else if (peek(lx).kind != TOK_END && !is_punct_token(peek(lx), '@')) {
        expected(lx, peek(lx), AL_N_("'[' or the next '@' definition"));
        goto done;
    }
    ok = true;
done:
    if (ok && !lx->r->nomem) {
        entdefs_add_class(lx->r, &cls, lx->name);
        return true;
    }
    entdefs_class_free(&cls);
    return false;
}

/* After an error: reads past tokens up to the next "@" (left to be read). */
static void skip_to_next_definition(lexer *lx)
{
    for (;;) {
        token t = peek(lx);
        if (t.kind == TOK_END && t.length != (size_t) -1) return;
        if (is_punct_token(t, '@')) return;
        lex(lx);
        if (t.kind == TOK_END) { /* an unclosed string: go on after its line */
            while (lx->p < lx->end && *lx->p != '\n') lx->p++;
        }
    }
}

/* "@name" statements that hold nothing for entities: "(...)" and "[...]" are read past. */
static bool skip_statement(lexer *lx)
{
    for (;;) {
        token t = peek(lx);
        if (t.kind == TOK_END || is_punct_token(t, '@')) return true;
        lex(lx);
        if (is_punct_token(t, '(') && !read_raw_parens(lx, t, NULL)) return false;
        if (is_punct_token(t, '[')) {
            int depth = 1;
            while (depth > 0) {
                token u = lex(lx);
                if (u.kind == TOK_END) return expected(lx, u, AL_N_("']'"));
                depth += is_punct_token(u, '[') - is_punct_token(u, ']');
            }
        }
    }
}

void entdefs_read_fgd(entdefs_reader *r, const char *data, size_t size, const char *name)
{
    lexer lx = {.r = r,
                .name = name,
                .p = data,
                .end = data + size,
                .line = 1,
                .line_start = data,
                .file = r->set->file_count - 1};
    while (!r->nomem) {
        token at = lex(&lx);
        if (at.kind == TOK_END && at.length != (size_t) -1) return;
        if (!is_punct_token(at, '@')) {
            expected(&lx, at, "'@' and a definition");
            skip_to_next_definition(&lx);
            continue;
        }
        token kind = lex(&lx);
        bool ok = true;
        if (word_is(kind, "BaseClass")) {
            ok = read_class(&lx, AL_ENTDEF_BASE, at);
        } else if (word_is(kind, "PointClass")) {
            ok = read_class(&lx, AL_ENTDEF_POINT, at);
        } else if (word_is(kind, "SolidClass")) {
            ok = read_class(&lx, AL_ENTDEF_SOLID, at);
        } else if (word_is(kind, "include")) {
            token path = lex(&lx);
            if (path.kind != TOK_STRING) {
                ok = expected(&lx, path, "the included file's name in quotes");
            } else {
                char *file = NULL;
                if (append_string(&lx, path, &file))
                    entdefs_include(r, file, name, path.line, path.column);
                free(file);
            }
        } else if (word_is(kind, "mapsize") || word_is(kind, "MaterialExclusion") ||
                   word_is(kind, "AutoVisGroup") || word_is(kind, "gridnav") ||
                   word_is(kind, "version")) {
            ok = skip_statement(&lx);
        } else if (kind.kind == TOK_WORD) {
            entdefs_report(r, AL_SEVERITY_ERROR, name, kind.line, kind.column,
                           AL_N_("unknown definition kind '@%.*s'"),
                           (int) (kind.length > 40 ? 40 : kind.length), kind.start);
            ok = false;
        } else {
            ok = expected(&lx, kind, "a definition kind such as PointClass");
        }
        if (!ok) skip_to_next_definition(&lx);
    }
}
