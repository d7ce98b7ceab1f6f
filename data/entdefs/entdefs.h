/* Entity definitions: the classes a game's entities may have, their sizes, colours and
 * typed keys, read from the files level editors share.
 *
 * Two formats give one model:
 *   FGD (Worldcraft, Hammer, TrenchBroom): "@BaseClass", "@PointClass" and "@SolidClass"
 *       blocks with helpers (base(), size(), color(), model(), studio(), iconsprite(), ...),
 *       a name, a description and a list of typed properties, "@include" of other files.
 *   DEF (the Radiants): "/" "*QUAKED classname (r g b) (mins) (maxs) FLAG FLAG ...", or "?"
 *       instead of the sizes for a solid class, then a free description up to the comment's
 *       end; spawnflag words become the bits 1, 2, 4, ... in order; lines of the form
 *       "KEY" text become string properties described by the text.
 *
 * A set (al_entdefs) layers files as mods do: files are read in order and a class defined
 * again replaces the one of the same name. A class's properties are resolved when it is
 * read, in FGD order: each base's (already resolved) properties in the order the bases are
 * listed, then the class's own; a key given again replaces the earlier one in its place,
 * except that two "flags" properties of one key are merged bit by bit (a base's
 * Appearflags and a class's own spawnflags). Size, colour and model are the class's own or
 * else the first base's that has them. Bases are looked up case-insensitively, as
 * Worldcraft does; entity classes exactly, as Quake's engine does.
 *
 * Bad input never stops the reading: a definition that cannot be read is reported with its
 * file, line and column and skipped, and reading goes on at the next one. Diagnostics are
 * al_diag records whose message starts with the file's name (as for WAD files).
 *
 * Workload: a few files of a few hundred classes each, read when a map is opened or the
 * definitions change; lookups by class name are hashed.
 */
#ifndef AL_ENTDEFS_H
#define AL_ENTDEFS_H

#include "al-diag.h"
#include "al-input.h"
#include "al-status.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum al_entdef_kind {
    AL_ENTDEF_POINT,
    AL_ENTDEF_SOLID,
    AL_ENTDEF_BASE,
} al_entdef_kind;

/* A property's type as the editor presents it. Types that an FGD names but that are not
 * listed here are AL_PROP_OTHER, with their name kept in type_name. */
typedef enum al_prop_type {
    AL_PROP_STRING,
    AL_PROP_INTEGER,
    AL_PROP_FLOAT,
    AL_PROP_CHOICES,
    AL_PROP_FLAGS,
    AL_PROP_COLOR255,           /* "r g b" in 0..255 (optionally a fourth: brightness) */
    AL_PROP_COLOR1,             /* "r g b" in 0..1 */
    AL_PROP_TARGET_SOURCE,      /* a name others point at (targetname) */
    AL_PROP_TARGET_DESTINATION, /* points at a target_source (target, killtarget) */
    AL_PROP_STUDIO,             /* a model file */
    AL_PROP_SPRITE,
    AL_PROP_SOUND,
    AL_PROP_DECAL,
    AL_PROP_OTHER,
} al_prop_type;

typedef struct al_entdef_choice {
    char *value; /* as written: "0", "1.5", "name" */
    char *label;
} al_entdef_choice;

typedef struct al_entdef_flag {
    unsigned bit; /* the flag's value: 1, 2, 4, ... */
    char *label;
    bool on;           /* set by default */
    char *description; /* "" when none */
} al_entdef_flag;

/* One typed key of a class. Every string is owned by the set and never NULL ("" when the
 * file gave none); has_default tells "" written from none written. */
typedef struct al_entdef_property {
    char *key;
    al_prop_type type;
    char *type_name; /* as written, lower-case: "integer", "target_destination", ... */
    char *display;   /* the short name shown beside the value */
    char *default_value;
    bool has_default;
    bool read_only;
    char *description;
    al_entdef_choice *choices;
    int choice_count;
    al_entdef_flag *flags; /* in file order */
    int flag_count;
} al_entdef_property;

typedef struct al_entdef_class {
    char *name;
    al_entdef_kind kind;
    char *description; /* "" when none */
    bool has_size;
    double mins[3], maxs[3];
    bool has_color;
    double color[3]; /* 0..1 */
    char *model;     /* the model helper's text as written (FGD model()/studio(), DEF
                      * "{ model(...) }"), or NULL */
    char **bases;    /* the base names as written */
    int base_count;
    al_entdef_property *properties; /* resolved, inherited ones included */
    int property_count;
    int file; /* index into al_entdefs.files */
    int line; /* where the definition starts */
} al_entdef_class;

typedef struct al_entdefs_index al_entdefs_index;

/* A layered set of definitions. Zero-initialised means empty; free with al_entdefs_clear. */
typedef struct al_entdefs {
    char **files; /* every file read, includes too, in the order they were opened */
    int file_count;
    al_entdef_class *classes; /* base classes too; in the order first defined */
    int class_count;
    al_entdefs_index *index; /* private: name lookup */
} al_entdefs;

typedef enum al_entdefs_format {
    AL_ENTDEFS_AUTO, /* by the name's extension (.def, .fgd), else by the content */
    AL_ENTDEFS_FGD,
    AL_ENTDEFS_DEF,
} al_entdefs_format;

/* The name under which the bundled Quake definitions are read (al_entdefs_load_bundled). */
#define AL_ENTDEFS_BUNDLED_NAME "quake.fgd"

/* Reads SIZE bytes of DATA (need not be NUL-terminated) into SET, after what it holds.
 * NAME names the text in diagnostics and in SET->files; FGD @include paths are resolved
 * relative to its folder, and are refused (with an error) when NAME is NULL. Returns AL_OK
 * (also when definitions were skipped: see DIAGS) or AL_ERR_NOMEM. */
al_status al_entdefs_read_buffer(al_entdefs *set, const char *data, size_t size, const char *name,
                                 al_entdefs_format format, al_diag_list *diags);

/* Reads the file PATH into SET; AL_ERR_IO with a diagnostic if it cannot be read. */
al_status al_entdefs_load(al_entdefs *set, const char *path, al_diag_list *diags);

/* Reads the Quake definitions built into the program (data/entdefs/quake.fgd, also
 * installed to DATADIR/allium/entdefs/) under the name AL_ENTDEFS_BUNDLED_NAME. */
al_status al_entdefs_load_bundled(al_entdefs *set, al_diag_list *diags);

/* The bundled file's text and length. */
const char *al_entdefs_bundled_text(size_t *size);

/* Frees everything SET holds; it is empty and reusable afterwards. NULL is a no-op. */
void al_entdefs_clear(al_entdefs *set);

/* The class named exactly NAME (base classes included), or NULL. */
const al_entdef_class *al_entdefs_find(const al_entdefs *set, const char *name);

/* The property KEY of CLASS, or NULL. */
const al_entdef_property *al_entdef_find_property(const al_entdef_class *cls, const char *key);

/* The definition files the map's worldspawn WORLD names: TrenchBroom's "_tb_def"
 * "external:PATH" and Allium's "allium_defs" "PATH;PATH;..." (in that order), relative paths
 * taken from MAP_FOLDER. Writes at most MAX paths (malloc'd, the caller frees them) to OUT
 * and returns how many; -1 if memory ran out. A "_tb_def" "builtin:..." names a file
 * TrenchBroom carries and is not read. */
int al_entdefs_map_files(const al_entity_desc *world, const char *map_folder, char **out, int max);

/* Keys every entity may carry whatever its class says: classname, origin, angle(s),
 * targetname, target, killtarget, spawnflags, the map format's "mapversion", and
 * TrenchBroom's "_tb_" keys and Allium's "allium_" keys. */
bool al_entdefs_generic_key(const char *key);

/* What al_entdefs_check found in a map. Counts are per distinct name, in first-use order. */
typedef struct al_entdefs_unknown_class {
    const char *classname; /* borrowed from the input */
    int count;             /* entities of this class */
    int first_entity;
} al_entdefs_unknown_class;

typedef struct al_entdefs_unknown_key {
    const char *classname; /* borrowed from the input */
    const char *key;
    int count; /* entities of this class that carry it */
    int first_entity;
} al_entdefs_unknown_key;

typedef struct al_entdefs_check {
    al_entdefs_unknown_class *classes;
    int class_count;
    al_entdefs_unknown_key *keys;
    int key_count;
    int missing_targets; /* entities whose target/killtarget no entity's targetname names */
} al_entdefs_check;

/* Checks INPUT's entities against SET: classes no definition names (base classes do not
 * count), keys a defined class does not define (generic keys excepted), and targets that
 * no entity names. Adds one warning per finding to DIAGS (naming entity and line) and
 * fills OUT, which borrows strings from INPUT. Returns AL_OK or AL_ERR_NOMEM. */
al_status al_entdefs_check_input(const al_entdefs *set, const al_input *input,
                                 al_entdefs_check *out, al_diag_list *diags);

void al_entdefs_check_clear(al_entdefs_check *check);

const char *al_prop_type_name(al_prop_type type);

#endif
