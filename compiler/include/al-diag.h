/* Diagnostics: what went wrong with which brush, entity or line of the input.
 *
 * Readers and the compiler append to one al_diag_list; the command-line tools print it and
 * the editor turns it into its problems list. A diagnostic names as much of its origin as
 * is known; unknown fields are -1. Messages are plain English sentences without a trailing
 * period, short enough for one line of a problems list.
 *
 * Translation. The compiler itself only writes English, but a program may install a
 * translator (the editor installs gettext's): every message format then goes through it
 * before it is filled in, and so do the words of al_diag_format. The formats are found
 * for the catalogue by xgettext, whose keywords (po/meson.build) name al_diag_add and the
 * helpers that pass a format on to it; a format kept elsewhere is marked with AL_N_.
 */
#ifndef AL_DIAG_H
#define AL_DIAG_H

#include <stdarg.h>
#include <stddef.h>

typedef enum al_severity {
    AL_SEVERITY_NOTE,
    AL_SEVERITY_WARNING,
    AL_SEVERITY_ERROR,
} al_severity;

/* What a diagnostic is about; the editor uses it to select the culprit. */
typedef enum al_diag_kind {
    AL_DIAG_SYNTAX,        /* the file could not be read past this point */
    AL_DIAG_BAD_VALUE,     /* a value was read but is unusable (NaN, out of range, ...) */
    AL_DIAG_INVALID_BRUSH, /* the brush was dropped from the compile */
    AL_DIAG_BRUSH_WARNING, /* the brush was kept, something about it was ignored */
    AL_DIAG_ENTITY,        /* an entity-level problem */
    AL_DIAG_LIMIT,         /* a limit of the compiler was reached */
    AL_DIAG_LEAK,          /* the void outside the map reaches this entity */
} al_diag_kind;

typedef struct al_diag {
    al_severity severity;
    al_diag_kind kind;
    int entity; /* index of the entity in the map, or -1 */
    int brush;  /* index of the brush within its entity, or -1 */
    int face;   /* index of the face within its brush, or -1 */
    int line;   /* 1-based source line, or -1 */
    int column; /* 1-based source column, or -1 */
    char message[200];
} al_diag;

/* A growable list. Zero-initialised means empty; free with al_diag_list_clear. */
typedef struct al_diag_list {
    al_diag *items;
    size_t count;
    size_t capacity;
    size_t dropped; /* diagnostics not stored because memory ran out */
} al_diag_list;

/* Appends a diagnostic. Never fails visibly: if memory runs out the diagnostic is counted in
 * LIST->dropped instead. A NULL list is accepted and ignores the call. */
void al_diag_add(al_diag_list *list, al_severity severity, al_diag_kind kind, int entity,
                 int brush, int face, int line, int column, const char *format, ...)
    __attribute__((format(printf, 9, 10)));

void al_diag_addv(al_diag_list *list, al_severity severity, al_diag_kind kind, int entity,
                  int brush, int face, int line, int column, const char *format, va_list args);

/* Appends copies of every diagnostic of FROM to TO. */
void al_diag_append(al_diag_list *to, const al_diag_list *from);

/* Number of diagnostics of at least SEVERITY. */
size_t al_diag_count(const al_diag_list *list, al_severity severity);

/* Frees the items; the list is empty and reusable afterwards. NULL is a no-op. */
void al_diag_list_clear(al_diag_list *list);

/* Formats D as "line 12, column 4: entity 3, brush 7: message" into OUT (always
 * NUL-terminated) and returns OUT. */
char *al_diag_format(const al_diag *d, char *out, size_t size);

/* Marks a message format for the translation catalogue; it stays as written here. */
#define AL_N_(text) text

/* Installs TRANSLATE (NULL: none) for message formats: it returns the translation of a
 * format, or the format itself. Install it before any thread makes diagnostics; it is
 * called from every thread that does. */
void al_diag_set_translator(const char *(*translate)(const char *format));

/* FORMAT through the installed translator, or FORMAT. For helpers that fill in a format
 * themselves before passing the text to al_diag_add. */
const char *al_diag_translate(const char *format);

const char *al_severity_name(al_severity severity);
const char *al_diag_kind_name(al_diag_kind kind);

#endif
