/* Layers and groups as TrenchBroom keeps them in a .map, read as a hierarchy.
 *
 * TrenchBroom stores both as func_group entities: a layer carries "_tb_type" "_tb_layer",
 * "_tb_name", "_tb_id" and optionally "_tb_layer_sort_index", "_tb_layer_color",
 * "_tb_layer_locked" "1", "_tb_layer_hidden" "1" and "_tb_layer_omit_from_export" "1"; a
 * group carries "_tb_type" "_tb_group", "_tb_name", "_tb_id". The brushes of a layer or a
 * group are that entity's brushes; any other entity (a point entity, a brush entity, a
 * group) that belongs to a layer or a group carries "_tb_layer" "ID" or "_tb_group" "ID".
 * Everything else lies in the default layer: the worldspawn, which may carry the same
 * "_tb_layer_*" keys. The keys stay the entities' properties, in the document as in the
 * file, so they round-trip unchanged; this module is the one reader of what they mean, used
 * by the import (to warn), the exports (to omit) and the editor (its Layers page, group
 * selection, hidden and locked layers).
 *
 * Workload: one pass over a map's entities per call (lq-e3m4's 1,200 entities: well under a
 * millisecond).
 */
#ifndef AL_LAYER_TREE_H
#define AL_LAYER_TREE_H

#include "al-diag.h"
#include "al-status.h"
#include "mapfile/map.h"

#include <stdbool.h>

typedef enum al_layer_kind {
    AL_LAYER_NODE_PLAIN = 0, /* an ordinary entity (the worldspawn too) */
    AL_LAYER_NODE_LAYER,     /* a func_group with "_tb_type" "_tb_layer" */
    AL_LAYER_NODE_GROUP,     /* a func_group with "_tb_type" "_tb_group" */
} al_layer_kind;

/* One entity of the map as the hierarchy sees it. Indices are entity indices. */
typedef struct al_layer_node {
    al_layer_kind kind;
    long id;     /* "_tb_id" of a layer or group (0 when missing or not one) */
    int parent;  /* the layer or group it belongs to; -1: the default layer */
    int layer;   /* the layer it lies in through its groups (a layer: itself); -1: default */
    int depth;   /* how many groups and layers hold it */
    int sort;    /* a layer's "_tb_layer_sort_index" (its entity index when missing) */
    bool hidden; /* its layer is hidden ("_tb_layer_hidden" "1"; the default layer's too) */
    bool locked; /* its layer is locked ("_tb_layer_locked" "1") */
    bool omit;   /* its layer is omitted from export ("_tb_layer_omit_from_export" "1") */
    bool has_color; /* its layer has a colour ("_tb_layer_color"; the default layer's too) */
    float color[3]; /* that colour: red, green, blue from 0 to 1 */
} al_layer_node;

/* How the tree reads an entity's keys: VALUE(CONTEXT, ENTITY, KEY) returns the value of
 * KEY ("classname" included) of entity ENTITY, or NULL; LINE(CONTEXT, ENTITY) the line the
 * diagnostics name (-1: none). Entity 0 is the worldspawn. */
typedef struct al_layer_source {
    int entity_count;
    const char *(*value)(void *context, int entity, const char *key);
    int (*line)(void *context, int entity);
    void *context;
} al_layer_source;

/* The hierarchy of SOURCE's entities into *OUT (malloc'd, one node per entity). Broken
 * input is a warning in DIAGS (may be NULL) naming the entity and its line, and the entity
 * then lies in the default layer: a "_tb_group" or "_tb_layer" naming an id no group or
 * layer has, an id that is not a whole number, a second layer or group with an id already
 * taken (it counts as a plain func_group), a group that holds itself through its parents
 * (the cycle is cut where it was found), a "_tb_layer_color" that is not three or four
 * numbers from 0 to 1 (the layer then has no colour). AL_ERR_NOMEM, or AL_OK. */
al_status al_layer_tree_build(const al_layer_source *source, al_layer_node **out,
                              al_diag_list *diags);

/* Whether VALUE is a true flag as TrenchBroom writes one ("1"). */
bool al_layer_flag(const char *value);

/* Reads a "_tb_layer_color" value as TrenchBroom writes it: three or four numbers from 0 to
 * 1 (red, green, blue, then an alpha it writes as 1 and that is ignored) into RGB; false
 * (RGB untouched) for anything else. */
bool al_layer_color_parse(const char *value, float rgb[3]);

/* Writes RGB (each clamped to 0..1) as a "_tb_layer_color" value, "R G B 1" as TrenchBroom
 * writes it, into OUT (at least AL_LAYER_COLOR_SIZE bytes). */
#define AL_LAYER_COLOR_SIZE 64
void al_layer_color_format(const float rgb[3], char *out);

/* The entities of MAP as a source (MAP must outlive it). */
al_layer_source al_layer_source_of_map(const al_map *map);

/* Takes out of MAP what an export leaves out: every layer with "_tb_layer_omit_from_export"
 * "1" with all it holds (its brushes, its groups and their members, its entities), as
 * TrenchBroom's export does; *OMITTED (may be NULL) counts the entities taken out. The
 * worldspawn always stays. Warnings about broken keys go to DIAGS. AL_ERR_NOMEM (MAP
 * unchanged) or AL_OK. */
al_status al_map_omit_layers(al_map *map, int *omitted, al_diag_list *diags);

#endif
