/* Entity definition sets (see entdefs.h): files layered in order, classes resolved against
 * their bases, lookups by name, and the check of a map's entities against a set.
 *
 * The readers (fgd-read.c, def-read.c) build one class at a time and hand it to
 * entdefs_add_class, which resolves it and puts it in the set; everything a set holds is
 * owned by it and freed by al_entdefs_clear.
 */
#include "entdefs/entdefs-internal.h"

#include "al-entity-keys.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Open addressing over class indices, hashed on the lower-cased name so that the exact and
 * the case-insensitive lookups probe the same slots. */
struct al_entdefs_index {
    int *slots; /* class index + 1; 0 is empty */
    size_t capacity;
};

static size_t hash_name(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char) tolower((unsigned char) *s)) * 16777619u;
    return h;
}

/* The class named NAME (exactly, or ignoring case), or -1. */
static int find_index(const al_entdefs *set, const char *name, bool ignore_case)
{
    if (!set || !set->index || !name) return -1;
    const al_entdefs_index *ix = set->index;
    for (size_t i = hash_name(name) & (ix->capacity - 1);; i = (i + 1) & (ix->capacity - 1)) {
        int k = ix->slots[i] - 1;
        if (k < 0) return -1;
        const char *n = set->classes[k].name;
        if (ignore_case ? strcasecmp(n, name) == 0 : strcmp(n, name) == 0) return k;
    }
}

static bool index_insert(al_entdefs *set, int k)
{
    al_entdefs_index *ix = set->index;
    if (!ix) {
        ix = calloc(1, sizeof *ix);
        if (!ix) return false;
        set->index = ix;
    }
    if ((size_t) set->class_count * 2 >= ix->capacity) {
        size_t capacity = ix->capacity ? ix->capacity * 2 : 64;
        int *slots = calloc(capacity, sizeof *slots);
        if (!slots) return false;
        free(ix->slots);
        ix->slots = slots;
        ix->capacity = capacity;
        for (int c = 0; c < set->class_count; c++) {
            if (c == k) continue;
            size_t i = hash_name(set->classes[c].name) & (capacity - 1);
            while (slots[i]) i = (i + 1) & (capacity - 1);
            slots[i] = c + 1;
        }
    }
    size_t i = hash_name(set->classes[k].name) & (ix->capacity - 1);
    while (ix->slots[i]) i = (i + 1) & (ix->capacity - 1);
    ix->slots[i] = k + 1;
    return true;
}

void entdefs_report(entdefs_reader *r, al_severity severity, const char *name, int line, int column,
                    const char *format, ...)
{
    char text[180];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, al_diag_translate(format), args);
    va_end(args);
    al_diag_add(r->diags, severity,
                severity == AL_SEVERITY_ERROR ? AL_DIAG_SYNTAX : AL_DIAG_BAD_VALUE, -1, -1, -1,
                line, column, "%s: %s", name ? name : "(buffer)", text);
}

char *entdefs_strndup(entdefs_reader *r, const char *s, size_t length)
{
    char *out = malloc(length + 1);
    if (!out) {
        r->nomem = true;
        return NULL;
    }
    memcpy(out, s, length);
    out[length] = '\0';
    return out;
}

static char *dup_string(entdefs_reader *r, const char *s)
{
    return entdefs_strndup(r, s, strlen(s));
}

/* Grows *ITEMS (of SIZE bytes each) to hold COUNT + 1; false if memory ran out. */
static bool grow(entdefs_reader *r, void **items, int count, size_t size)
{
    /* Capacities are 4, 8, 16, ...: an array is full when its count is one of them. */
    if (count != 0 && (count < 4 || (count & (count - 1)) != 0)) return true;
    if (count > INT_MAX / 2) {
        r->nomem = true;
        return false;
    }
    size_t capacity = count == 0 ? 4 : (size_t) count * 2;
    void *grown = realloc(*items, capacity * size);
    if (!grown) {
        r->nomem = true;
        return false;
    }
    *items = grown;
    return true;
}

al_entdef_property *entdefs_class_add_property(entdefs_reader *r, al_entdef_class *cls)
{
    if (!grow(r, (void **) &cls->properties, cls->property_count, sizeof *cls->properties))
        return NULL;
    al_entdef_property *p = &cls->properties[cls->property_count];
    memset(p, 0, sizeof *p);
    p->key = dup_string(r, "");
    p->type_name = dup_string(r, "string");
    p->display = dup_string(r, "");
    p->default_value = dup_string(r, "");
    p->description = dup_string(r, "");
    cls->property_count++; /* counted before the check, so that it is freed either way */
    if (!p->key || !p->type_name || !p->display || !p->default_value || !p->description)
        return NULL;
    return p;
}

al_entdef_flag *entdefs_property_add_flag(entdefs_reader *r, al_entdef_property *p)
{
    if (!grow(r, (void **) &p->flags, p->flag_count, sizeof *p->flags)) return NULL;
    al_entdef_flag *f = &p->flags[p->flag_count++];
    memset(f, 0, sizeof *f);
    f->label = dup_string(r, "");
    f->description = dup_string(r, "");
    return f->label && f->description ? f : NULL;
}

al_entdef_choice *entdefs_property_add_choice(entdefs_reader *r, al_entdef_property *p)
{
    if (!grow(r, (void **) &p->choices, p->choice_count, sizeof *p->choices)) return NULL;
    al_entdef_choice *c = &p->choices[p->choice_count++];
    c->value = dup_string(r, "");
    c->label = dup_string(r, "");
    return c->value && c->label ? c : NULL;
}

static const struct {
    const char *name;
    al_prop_type type;
} TYPE_NAMES[] = {
    {"string", AL_PROP_STRING},
    {"integer", AL_PROP_INTEGER},
    {"float", AL_PROP_FLOAT},
    {"choices", AL_PROP_CHOICES},
    {"flags", AL_PROP_FLAGS},
    {"color255", AL_PROP_COLOR255},
    {"color1", AL_PROP_COLOR1},
    {"target_source", AL_PROP_TARGET_SOURCE},
    {"target_destination", AL_PROP_TARGET_DESTINATION},
    {"studio", AL_PROP_STUDIO},
    {"sprite", AL_PROP_SPRITE},
    {"sound", AL_PROP_SOUND},
    {"decal", AL_PROP_DECAL},
    {"other", AL_PROP_OTHER},
};

al_prop_type entdefs_type_of(const char *name)
{
    for (size_t i = 0; i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]; i++)
        if (strcmp(TYPE_NAMES[i].name, name) == 0) return TYPE_NAMES[i].type;
    return AL_PROP_OTHER;
}

const char *al_prop_type_name(al_prop_type type)
{
    for (size_t i = 0; i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]; i++)
        if (TYPE_NAMES[i].type == type) return TYPE_NAMES[i].name;
    return "other";
}

static void property_free(al_entdef_property *p)
{
    free(p->key);
    free(p->type_name);
    free(p->display);
    free(p->default_value);
    free(p->description);
    for (int i = 0; i < p->choice_count; i++) {
        free(p->choices[i].value);
        free(p->choices[i].label);
    }
    free(p->choices);
    for (int i = 0; i < p->flag_count; i++) {
        free(p->flags[i].label);
        free(p->flags[i].description);
    }
    free(p->flags);
}

void entdefs_class_free(al_entdef_class *cls)
{
    free(cls->name);
    free(cls->description);
    free(cls->model);
    for (int i = 0; i < cls->base_count; i++) free(cls->bases[i]);
    free(cls->bases);
    for (int i = 0; i < cls->property_count; i++) property_free(&cls->properties[i]);
    free(cls->properties);
}

/* A deep copy of P into *OUT; false (with what was copied freed) if memory ran out. */
static bool property_copy(entdefs_reader *r, const al_entdef_property *p, al_entdef_property *out)
{
    *out = *p;
    out->key = dup_string(r, p->key);
    out->type_name = dup_string(r, p->type_name);
    out->display = dup_string(r, p->display);
    out->default_value = dup_string(r, p->default_value);
    out->description = dup_string(r, p->description);
    out->choices = NULL;
    out->choice_count = 0;
    out->flags = NULL;
    out->flag_count = 0;
    bool ok = out->key && out->type_name && out->display && out->default_value && out->description;
    for (int i = 0; ok && i < p->choice_count; i++) {
        al_entdef_choice *c = entdefs_property_add_choice(r, out);
        if (!c) break;
        free(c->value);
        free(c->label);
        c->value = dup_string(r, p->choices[i].value);
        c->label = dup_string(r, p->choices[i].label);
        ok = c->value && c->label;
    }
    for (int i = 0; ok && i < p->flag_count; i++) {
        al_entdef_flag *f = entdefs_property_add_flag(r, out);
        if (!f) break;
        free(f->label);
        free(f->description);
        *f = p->flags[i];
        f->label = dup_string(r, p->flags[i].label);
        f->description = dup_string(r, p->flags[i].description);
        ok = f->label && f->description;
    }
    if (ok && !r->nomem) return true;
    property_free(out);
    memset(out, 0, sizeof *out);
    return false;
}

static int compare_flags(const void *a, const void *b)
{
    unsigned x = ((const al_entdef_flag *) a)->bit, y = ((const al_entdef_flag *) b)->bit;
    return x < y ? -1 : x > y;
}

/* Puts P (moved: the list owns it afterwards, or frees it) into LIST: in place of a
 * property of the same key, merged bit by bit if both are flags, else appended. */
static void merge_property(entdefs_reader *r, al_entdef_class *list, al_entdef_property *p)
{
    for (int i = 0; i < list->property_count; i++) {
        al_entdef_property *old = &list->properties[i];
        if (strcmp(old->key, p->key) != 0) continue;
        if (old->type == AL_PROP_FLAGS && p->type == AL_PROP_FLAGS) {
            for (int f = 0; f < p->flag_count; f++) {
                al_entdef_flag *same = NULL;
                for (int g = 0; g < old->flag_count && !same; g++)
                    if (old->flags[g].bit == p->flags[f].bit) same = &old->flags[g];
                if (!same) same = entdefs_property_add_flag(r, old);
                if (!same) break;
                free(same->label);
                free(same->description);
                *same = p->flags[f];
                p->flags[f].label = p->flags[f].description = NULL;
            }
            if (old->flag_count > 1)
                qsort(old->flags, (size_t) old->flag_count, sizeof *old->flags, compare_flags);
            if (p->description[0]) {
                free(old->description);
                old->description = p->description;
                p->description = NULL;
            }
            property_free(p);
        } else {
            property_free(old);
            *old = *p;
        }
        return;
    }
    if (!grow(r, (void **) &list->properties, list->property_count, sizeof *list->properties)) {
        property_free(p);
        return;
    }
    list->properties[list->property_count++] = *p;
}

/* Replaces CLS's own properties by the resolved list: its bases' then its own. */
static void resolve_bases(entdefs_reader *r, al_entdef_class *cls, const char *name)
{
    al_entdef_class resolved = {0};
    for (int b = 0; b < cls->base_count && !r->nomem; b++) {
        int k = find_index(r->set, cls->bases[b], true);
        if (k < 0) {
            entdefs_report(r, AL_SEVERITY_WARNING, name, cls->line, -1,
                           AL_N_("class '%s': unknown base class '%s'"), cls->name, cls->bases[b]);
            continue;
        }
        const al_entdef_class *base = &r->set->classes[k];
        for (int i = 0; i < base->property_count && !r->nomem; i++) {
            al_entdef_property copy;
            if (property_copy(r, &base->properties[i], &copy)) merge_property(r, &resolved, &copy);
        }
        if (!cls->has_size && base->has_size) {
            cls->has_size = true;
            memcpy(cls->mins, base->mins, sizeof cls->mins);
            memcpy(cls->maxs, base->maxs, sizeof cls->maxs);
        }
        if (!cls->has_color && base->has_color) {
            cls->has_color = true;
            memcpy(cls->color, base->color, sizeof cls->color);
        }
        if (!cls->model && base->model) cls->model = dup_string(r, base->model);
    }
    for (int i = 0; i < cls->property_count; i++) {
        if (r->nomem)
            property_free(&cls->properties[i]);
        else
            merge_property(r, &resolved, &cls->properties[i]);
    }
    free(cls->properties);
    cls->properties = resolved.properties;
    cls->property_count = resolved.property_count;
}

void entdefs_add_class(entdefs_reader *r, al_entdef_class *cls, const char *name)
{
    resolve_bases(r, cls, name);
    if (r->nomem) {
        entdefs_class_free(cls);
        return;
    }
    al_entdefs *set = r->set;
    int k = find_index(set, cls->name, false);
    if (k >= 0) {
        entdefs_class_free(&set->classes[k]);
        set->classes[k] = *cls;
        return;
    }
    if (!grow(r, (void **) &set->classes, set->class_count, sizeof *set->classes)) {
        entdefs_class_free(cls);
        return;
    }
    set->classes[set->class_count++] = *cls;
    if (!index_insert(set, set->class_count - 1)) {
        r->nomem = true;
        entdefs_class_free(&set->classes[--set->class_count]);
    }
}

int entdefs_add_file(entdefs_reader *r, const char *name)
{
    al_entdefs *set = r->set;
    if (!grow(r, (void **) &set->files, set->file_count, sizeof *set->files)) return -1;
    set->files[set->file_count] = dup_string(r, name ? name : "(buffer)");
    if (!set->files[set->file_count]) return -1;
    return set->file_count++;
}

/* Whether the text is a DEF file: it holds a QUAKED comment and no FGD class. */
static bool looks_like_def(const char *data, size_t size)
{
    static const char quaked[] = "/*QUAKED";
    bool def = false;
    for (size_t i = 0; i < size; i++) {
        if (data[i] == '@') return false;
        if (!def && size - i >= sizeof quaked - 1 &&
            memcmp(data + i, quaked, sizeof quaked - 1) == 0)
            def = true;
    }
    return def;
}

static bool ends_with_ci(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcasecmp(s + n - t, tail) == 0;
}

/* Reads DATA into the set, with NAME (or NULL) pushed on the include chain as CANONICAL. */
static void read_text(entdefs_reader *r, const char *data, size_t size, const char *name,
                      const char *canonical, al_entdefs_format format)
{
    if (entdefs_add_file(r, name) < 0) return;
    if (format == AL_ENTDEFS_AUTO) {
        if (name && ends_with_ci(name, ".def"))
            format = AL_ENTDEFS_DEF;
        else if (name && ends_with_ci(name, ".fgd"))
            format = AL_ENTDEFS_FGD;
        else
            format = looks_like_def(data, size) ? AL_ENTDEFS_DEF : AL_ENTDEFS_FGD;
    }
    if (canonical) r->chain[r->depth++] = canonical;
    if (format == AL_ENTDEFS_DEF)
        entdefs_read_def(r, data, size, name);
    else
        entdefs_read_fgd(r, data, size, name);
    if (canonical) r->depth--;
}

/* The whole file PATH in *DATA (malloc'd) and *SIZE; false with errno set if it fails. */
static bool slurp(const char *path, char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *grown = cap < (SIZE_MAX >> 1) ? realloc(buf, cap *= 2) : NULL;
            if (!grown) {
                free(buf);
                errno = ENOMEM;
            }
            buf = grown;
        }
    }
    bool ok = buf && !ferror(f);
    int saved = errno;
    fclose(f);
    if (!ok) {
        free(buf);
        errno = saved ? saved : EIO;
        return false;
    }
    *data = buf;
    *size = n;
    return true;
}

/* Reads the file PATH; a failure is reported at WHERE's LINE and COLUMN (or PATH's). */
static al_status read_file(entdefs_reader *r, const char *path, const char *where, int line,
                           int column)
{
    char *canonical = realpath(path, NULL);
    char *data = NULL;
    size_t size = 0;
    if (!canonical || !slurp(path, &data, &size)) {
        if (errno == ENOMEM) r->nomem = true;
        if (where)
            entdefs_report(r, AL_SEVERITY_ERROR, where, line, column,
                           AL_N_("cannot read the included file %s: %s"), path, strerror(errno));
        else
            entdefs_report(r, AL_SEVERITY_ERROR, path, -1, -1, AL_N_("cannot read: %s"),
                           strerror(errno));
        free(canonical);
        return AL_ERR_IO;
    }
    for (int i = 0; i < r->depth; i++) {
        if (strcmp(r->chain[i], canonical) != 0) continue;
        entdefs_report(r, AL_SEVERITY_ERROR, where, line, column,
                       AL_N_("include cycle: %s is already being read"), path);
        free(canonical);
        free(data);
        return AL_OK;
    }
    if (r->depth >= ENTDEFS_MAX_DEPTH) {
        entdefs_report(r, AL_SEVERITY_ERROR, where, line, column,
                       AL_N_("includes nested more than %d deep"), ENTDEFS_MAX_DEPTH);
    } else {
        read_text(r, data, size, path, canonical, AL_ENTDEFS_AUTO);
    }
    free(canonical);
    free(data);
    return AL_OK;
}

void entdefs_include(entdefs_reader *r, const char *path, const char *includer, int line,
                     int column)
{
    if (!includer || r->no_includes) {
        entdefs_report(r, AL_SEVERITY_ERROR, includer, line, column,
                       AL_N_("@include %s: a text read from memory cannot include files"), path);
        return;
    }
    char *full = NULL;
    const char *slash = strrchr(includer, '/');
    if (path[0] == '/' || !slash) {
        full = dup_string(r, path);
    } else {
        size_t dir = (size_t) (slash - includer) + 1;
        full = malloc(dir + strlen(path) + 1);
        if (full) {
            memcpy(full, includer, dir);
            strcpy(full + dir, path);
        } else {
            r->nomem = true;
        }
    }
    if (!full) return;
    read_file(r, full, includer, line, column);
    free(full);
}

al_status al_entdefs_read_buffer(al_entdefs *set, const char *data, size_t size, const char *name,
                                 al_entdefs_format format, al_diag_list *diags)
{
    if (!set || (!data && size)) return AL_ERR_INVALID_ARGUMENT;
    entdefs_reader r = {.set = set, .diags = diags, .no_includes = name == NULL};
    char *canonical = name ? realpath(name, NULL) : NULL;
    read_text(&r, data ? data : "", size, name, canonical, format);
    free(canonical);
    return r.nomem ? AL_ERR_NOMEM : AL_OK;
}

al_status al_entdefs_load(al_entdefs *set, const char *path, al_diag_list *diags)
{
    if (!set || !path) return AL_ERR_INVALID_ARGUMENT;
    entdefs_reader r = {.set = set, .diags = diags};
    al_status st = read_file(&r, path, NULL, -1, -1);
    return r.nomem ? AL_ERR_NOMEM : st;
}

al_status al_entdefs_load_bundled(al_entdefs *set, al_diag_list *diags)
{
    if (!set) return AL_ERR_INVALID_ARGUMENT;
    size_t size;
    const char *text = al_entdefs_bundled_text(&size);
    entdefs_reader r = {.set = set, .diags = diags, .no_includes = true};
    read_text(&r, text, size, AL_ENTDEFS_BUNDLED_NAME, NULL, AL_ENTDEFS_FGD);
    return r.nomem ? AL_ERR_NOMEM : AL_OK;
}

/* quake.fgd, built into the library by embed-text (data/meson.build). */
extern const char al_entdefs_quake_fgd[];
extern const size_t al_entdefs_quake_fgd_size;

const char *al_entdefs_bundled_text(size_t *size)
{
    if (size) *size = al_entdefs_quake_fgd_size;
    return al_entdefs_quake_fgd;
}

void al_entdefs_clear(al_entdefs *set)
{
    if (!set) return;
    for (int i = 0; i < set->file_count; i++) free(set->files[i]);
    free(set->files);
    for (int i = 0; i < set->class_count; i++) entdefs_class_free(&set->classes[i]);
    free(set->classes);
    if (set->index) free(set->index->slots);
    free(set->index);
    memset(set, 0, sizeof *set);
}

const al_entdef_class *al_entdefs_find(const al_entdefs *set, const char *name)
{
    int k = find_index(set, name, false);
    return k >= 0 ? &set->classes[k] : NULL;
}

const al_entdef_property *al_entdef_find_property(const al_entdef_class *cls, const char *key)
{
    if (!cls || !key) return NULL;
    for (int i = 0; i < cls->property_count; i++)
        if (strcmp(cls->properties[i].key, key) == 0) return &cls->properties[i];
    return NULL;
}

bool al_entdefs_generic_key(const char *key)
{
    static const char *const GENERIC[] = {"classname",  "origin",     "angle",
                                          "angles",     "targetname", "target",
                                          "killtarget", "spawnflags", "mapversion"};
    for (size_t i = 0; i < sizeof GENERIC / sizeof GENERIC[0]; i++)
        if (strcmp(key, GENERIC[i]) == 0) return true;
    return strncmp(key, "_tb_", 4) == 0 || strncmp(key, "allium_", 7) == 0;
}

/* PATH as seen from FOLDER (unless absolute), malloc'd; NULL if memory ran out. */
static char *path_from(const char *folder, const char *path, size_t length)
{
    bool absolute = length > 0 && path[0] == '/';
    size_t prefix = absolute || !folder || !*folder ? 0 : strlen(folder) + 1;
    char *out = malloc(prefix + length + 1);
    if (!out) return NULL;
    if (prefix) {
        memcpy(out, folder, prefix - 1);
        out[prefix - 1] = '/';
    }
    memcpy(out + prefix, path, length);
    out[prefix + length] = '\0';
    return out;
}

int al_entdefs_map_files(const al_entity_desc *world, const char *map_folder, char **out, int max)
{
    int n = 0;
    const char *tb = world ? al_entity_value(world, "_tb_def") : NULL;
    if (tb && strncmp(tb, "external:", 9) == 0 && tb[9] && n < max) {
        if (!(out[n] = path_from(map_folder, tb + 9, strlen(tb + 9)))) return -1;
        n++;
    }
    const char *list = world ? al_entity_value(world, "allium_defs") : NULL;
    for (const char *p = list; p && *p && n < max;) {
        while (*p == ';' || *p == ' ') p++;
        const char *end = p;
        while (*end && *end != ';') end++;
        const char *stop = end;
        while (stop > p && stop[-1] == ' ') stop--;
        if (stop > p) {
            if (!(out[n] = path_from(map_folder, p, (size_t) (stop - p)))) {
                while (n > 0) free(out[--n]);
                return -1;
            }
            n++;
        }
        p = end;
    }
    return n;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *) a, *(const char *const *) b);
}

al_status al_entdefs_check_input(const al_entdefs *set, const al_input *input,
                                 al_entdefs_check *out, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    entdefs_reader r = {.diags = diags};
    const char **names = malloc(((size_t) input->entity_count + 1) * sizeof *names);
    if (!names) return AL_ERR_NOMEM;
    int name_count = 0;
    for (int e = 0; e < input->entity_count; e++) {
        const al_entity_desc *ent = &input->entities[e];
        const char *tn = al_entity_value(ent, "targetname");
        if (tn && tn[0]) names[name_count++] = tn;
        const char *cn = ent->classname ? ent->classname : "";
        const al_entdef_class *cls = al_entdefs_find(set, cn);
        if (!cls || cls->kind == AL_ENTDEF_BASE) {
            int k = 0;
            while (k < out->class_count && strcmp(out->classes[k].classname, cn) != 0) k++;
            if (k == out->class_count) {
                if (!grow(&r, (void **) &out->classes, out->class_count, sizeof *out->classes))
                    break;
                out->classes[out->class_count++] =
                    (al_entdefs_unknown_class){.classname = cn, .first_entity = e};
            }
            out->classes[k].count++;
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                        AL_N_("no entity definition names the class '%s'"), cn);
            continue;
        }
        for (int p = 0; p < ent->property_count; p++) {
            const char *key = ent->properties[p].key;
            if (!key || al_entdefs_generic_key(key) || al_entdef_find_property(cls, key)) continue;
            int k = 0;
            while (k < out->key_count &&
                   (strcmp(out->keys[k].classname, cn) != 0 || strcmp(out->keys[k].key, key) != 0))
                k++;
            if (k == out->key_count) {
                if (!grow(&r, (void **) &out->keys, out->key_count, sizeof *out->keys)) break;
                out->keys[out->key_count++] =
                    (al_entdefs_unknown_key){.classname = cn, .key = key, .first_entity = e};
            }
            out->keys[k].count++;
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                        AL_N_("the class '%s' defines no key '%s'"), cn, key);
        }
    }
    qsort(names, (size_t) name_count, sizeof *names, compare_strings);
    for (int e = 0; e < input->entity_count && !r.nomem; e++) {
        const al_entity_desc *ent = &input->entities[e];
        static const char *const POINTERS[] = {"target", "killtarget"};
        for (int i = 0; i < 2; i++) {
            const char *t = al_entity_value(ent, POINTERS[i]);
            if (!t || !t[0] ||
                bsearch(&t, names, (size_t) name_count, sizeof *names, compare_strings))
                continue;
            out->missing_targets++;
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, ent->line, -1,
                        AL_N_("%s '%s' is the targetname of no entity"), POINTERS[i], t);
        }
    }
    free(names);
    if (!r.nomem) return AL_OK;
    al_entdefs_check_clear(out);
    return AL_ERR_NOMEM;
}

void al_entdefs_check_clear(al_entdefs_check *check)
{
    if (!check) return;
    free(check->classes);
    free(check->keys);
    memset(check, 0, sizeof *check);
}
