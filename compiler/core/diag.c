/* Diagnostics list (see al-diag.h). Small and append-only: a compile of a real map produces at
 * most a few hundred entries. */
#include "al-diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *(*translator)(const char *format);

void al_diag_set_translator(const char *(*translate)(const char *format))
{
    translator = translate;
}

const char *al_diag_translate(const char *format)
{
    return translator && format && format[0] ? translator(format) : format;
}

void al_diag_addv(al_diag_list *list, al_severity severity, al_diag_kind kind, int entity,
                  int brush, int face, int line, int column, const char *format, va_list args)
{
    if (!list) return;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        al_diag *items = realloc(list->items, capacity * sizeof *items);
        if (!items) {
            list->dropped++;
            return;
        }
        list->items = items;
        list->capacity = capacity;
    }
    al_diag *d = &list->items[list->count++];
    d->severity = severity;
    d->kind = kind;
    d->entity = entity;
    d->brush = brush;
    d->face = face;
    d->line = line;
    d->column = column;
    vsnprintf(d->message, sizeof d->message, al_diag_translate(format), args);
}

void al_diag_add(al_diag_list *list, al_severity severity, al_diag_kind kind, int entity,
                 int brush, int face, int line, int column, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    al_diag_addv(list, severity, kind, entity, brush, face, line, column, format, args);
    va_end(args);
}

void al_diag_append(al_diag_list *to, const al_diag_list *from)
{
    if (!to || !from) return;
    for (size_t i = 0; i < from->count; i++) {
        const al_diag *d = &from->items[i];
        al_diag_add(to, d->severity, d->kind, d->entity, d->brush, d->face, d->line, d->column,
                    "%s", d->message);
    }
    to->dropped += from->dropped;
}

size_t al_diag_count(const al_diag_list *list, al_severity severity)
{
    size_t n = 0;
    if (!list) return 0;
    for (size_t i = 0; i < list->count; i++)
        if (list->items[i].severity >= severity) n++;
    return n;
}

void al_diag_list_clear(al_diag_list *list)
{
    if (!list) return;
    free(list->items);
    memset(list, 0, sizeof *list);
}

char *al_diag_format(const al_diag *d, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
#define APPEND(...)                                                                        \
    do {                                                                                   \
        if (used < size) {                                                                 \
            int n_ = snprintf(out + used, size - used, __VA_ARGS__);                       \
            if (n_ > 0) used += (size_t) n_;                                               \
        }                                                                                  \
    } while (0)
    /* Translations keep the ", " at the end of the entity, brush and face parts: the
     * last one's becomes ": ". */
    if (d->line > 0 && d->column > 0)
        APPEND(al_diag_translate(AL_N_("line %d, column %d: ")), d->line, d->column);
    else if (d->line > 0)
        APPEND(al_diag_translate(AL_N_("line %d: ")), d->line);
    if (d->entity >= 0) APPEND(al_diag_translate(AL_N_("entity %d, ")), d->entity);
    if (d->brush >= 0) APPEND(al_diag_translate(AL_N_("brush %d, ")), d->brush);
    if (d->face >= 0) APPEND(al_diag_translate(AL_N_("face %d, ")), d->face);
    if (used >= 2 && out[used - 2] == ',') {
        out[used - 2] = ':';
        out[used - 1] = ' ';
    }
    APPEND("%s", d->message);
#undef APPEND
    return out;
}

const char *al_severity_name(al_severity severity)
{
    switch (severity) {
    case AL_SEVERITY_NOTE: return "note";
    case AL_SEVERITY_WARNING: return "warning";
    case AL_SEVERITY_ERROR: return "error";
    }
    return "unknown";
}

const char *al_diag_kind_name(al_diag_kind kind)
{
    switch (kind) {
    case AL_DIAG_SYNTAX: return "syntax";
    case AL_DIAG_BAD_VALUE: return "bad-value";
    case AL_DIAG_INVALID_BRUSH: return "invalid-brush";
    case AL_DIAG_BRUSH_WARNING: return "brush-warning";
    case AL_DIAG_ENTITY: return "entity";
    case AL_DIAG_LIMIT: return "limit";
    case AL_DIAG_LEAK: return "leak";
    }
    return "unknown";
}
