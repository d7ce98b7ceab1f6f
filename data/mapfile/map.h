/* Quake .map files: the parsed form.
 *
 * Both dialects are read: standard Quake ("( p0 ) ( p1 ) ( p2 ) NAME xoff yoff rot xscale
 * yscale") and Valve 220 ("... NAME [ ux uy uz uoff ] [ vx vy vz voff ] rot xscale yscale"),
 * as TrenchBroom writes them; the dialect is recorded per face so that a mixed file reads
 * too. Quake 2 style surface flags after the scale (three integers) are kept.
 *
 * Everything in an al_map is owned by it and freed by al_map_destroy.
 */
#ifndef AL_MAP_H
#define AL_MAP_H

#include "al-diag.h"
#include "al-status.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct al_map_face {
    double points[3][3];
    /* The three points as written, "( x y z ) ( x y z ) ( x y z )", when some number was not
     * written in its shortest form ("64.000000"); NULL otherwise. The writer uses it while it
     * still reads as POINTS, so an unedited brush is written back with the same bytes. */
    char *points_text;
    char *material;
    bool valve; /* Valve 220 texture axes, else standard offsets */
    double u_axis[3], v_axis[3];
    double u_offset, v_offset; /* Valve 220 */
    double offset[2];          /* standard: x and y offset */
    double rotation;
    double scale[2];
    bool has_flags;
    int flags[3]; /* Quake 2 style contents, surface flags, value */
    int line, column;
} al_map_face;

typedef struct al_map_brush {
    al_map_face *faces;
    int face_count;
    int line;
    int index; /* within its entity, in file order (brushes the reader skipped count) */
} al_map_brush;

typedef struct al_map_property {
    char *key;
    char *value;
} al_map_property;

typedef struct al_map_entity {
    al_map_property *properties;
    int property_count;
    al_map_brush *brushes;
    int brush_count;
    int line;
} al_map_entity;

typedef struct al_map {
    al_map_entity *entities;
    int entity_count;
    int brushes_skipped; /* bad brushes reported and left out */
} al_map;

/* Parses SIZE bytes of DATA (need not be NUL-terminated). On success returns AL_OK and a map
 * in *OUT; bad brushes are reported to DIAGS and left out. A syntax error outside a brush
 * stops the read: returns AL_ERR_SYNTAX with a diagnostic naming line, column and what was
 * expected, and *OUT is NULL. Never crashes on any input. */
al_status al_map_read_buffer(const char *data, size_t size, al_map **out, al_diag_list *diags);

/* Parses SIZE bytes of DATA as a fragment of a map, as editors put it on the clipboard:
 * entities ("{ "classname" ... }", brush entities with their brushes, the world's brushes in
 * a worldspawn entity) and brushes with no entity around them ("{ ( ... ) ... }" at the
 * top), in either dialect or both. Bare brushes are gathered into one entity of class
 * worldspawn, placed where the first of them stands. Strict, since a paste must change
 * nothing unless all of it reads: any error, a bad brush included, returns AL_ERR_SYNTAX
 * with a diagnostic naming line, column and what was expected, and *OUT is NULL; so does
 * text with no entity and no brush. AL_OK and *OUT otherwise. Never crashes on any input. */
al_status al_map_read_fragment(const char *data, size_t size, al_map **out, al_diag_list *diags);

/* Reads the file at PATH (AL_ERR_IO with a diagnostic if it cannot be read). */
al_status al_map_read_file(const char *path, al_map **out, al_diag_list *diags);

void al_map_destroy(al_map *map);

/* Keeps the entities E of MAP with KEEP[E] (one flag per entity), in order, and frees the
 * others. */
void al_map_keep_entities(al_map *map, const bool *keep);

/* Value of KEY in E (the last one if repeated), or NULL. */
const char *al_map_entity_value(const al_map_entity *e, const char *key);

#endif
