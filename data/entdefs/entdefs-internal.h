/* Shared by the entity definition readers (fgd-read.c, def-read.c) and the set
 * (entdefs.c): building classes, adding them to a set, reporting problems, includes. */
#ifndef AL_ENTDEFS_INTERNAL_H
#define AL_ENTDEFS_INTERNAL_H

#include "entdefs/entdefs.h"

/* Includes nested deeper than this are refused (a cycle is caught before that). */
#define ENTDEFS_MAX_DEPTH 16

/* One reading: the set being filled, where problems go, and the files being read (the
 * include chain, outermost first) to refuse an include cycle. */
typedef struct entdefs_reader {
    al_entdefs *set;
    al_diag_list *diags;
    const char *chain[ENTDEFS_MAX_DEPTH + 1]; /* borrowed canonical paths */
    int depth;
    bool no_includes; /* the text came from memory: @include is refused */
    bool nomem;       /* memory ran out: the read stops and returns AL_ERR_NOMEM */
} entdefs_reader;

/* Reports MESSAGE about NAME's LINE and COLUMN (-1: unknown). */
void entdefs_report(entdefs_reader *r, al_severity severity, const char *name, int line, int column,
                    const char *format, ...) __attribute__((format(printf, 6, 7)));

/* A copy of the LENGTH bytes at S, NUL-terminated; NULL (and r->nomem) if memory ran out. */
char *entdefs_strndup(entdefs_reader *r, const char *s, size_t length);

/* Appends a property to CLS (zeroed, strings ""); NULL if memory ran out. */
al_entdef_property *entdefs_class_add_property(entdefs_reader *r, al_entdef_class *cls);

/* Appends a flag or choice to P; NULL if memory ran out. */
al_entdef_flag *entdefs_property_add_flag(entdefs_reader *r, al_entdef_property *p);
al_entdef_choice *entdefs_property_add_choice(entdefs_reader *r, al_entdef_property *p);

/* The type of the FGD type word NAME (lower case). */
al_prop_type entdefs_type_of(const char *name);

/* Resolves CLS's bases against the set (an unknown base is a warning at LINE/COLUMN of
 * NAME) and adds it, replacing a class of the same name. CLS's memory passes to the set
 * (also on failure, when it is freed). */
void entdefs_add_class(entdefs_reader *r, al_entdef_class *cls, const char *name);

/* Frees what CLS owns (not CLS itself). */
void entdefs_class_free(al_entdef_class *cls);

/* Records NAME as a file of the set; returns its index, or -1 if memory ran out. */
int entdefs_add_file(entdefs_reader *r, const char *name);

/* Reads the file at PATH (an include of INCLUDER at LINE, COLUMN) into the set, refusing a
 * cycle or too deep a nesting with an error there. */
void entdefs_include(entdefs_reader *r, const char *path, const char *includer, int line,
                     int column);

/* The readers: the text DATA of SIZE bytes named NAME (NULL: a buffer, includes refused). */
void entdefs_read_fgd(entdefs_reader *r, const char *data, size_t size, const char *name);
void entdefs_read_def(entdefs_reader *r, const char *data, size_t size, const char *name);

#endif
