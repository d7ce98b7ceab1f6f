/* Layers and groups in a map document: reading the hierarchy and the edits that change it.
 *
 * A layer or a group is a func_group entity with TrenchBroom's keys (layer-tree.h), so the
 * document holds them as entities and properties and a .map import or export carries them
 * unchanged. Each edit here is one undoable step made of the document's own edits (adding an
 * entity, setting a property, moving brushes into an entity). Members are of two kinds:
 * loose brushes (of the world, a layer or a group: they move into the container's entity)
 * and entities (point entities, brush entities, groups: they carry the container's
 * "_tb_layer" or "_tb_group" key). Container 0 is the default layer (the world).
 */
#ifndef AL_LAYER_EDITS_H
#define AL_LAYER_EDITS_H

#include "layers/layer-tree.h"
#include "store/document.h"

/* The document's entities with their hierarchy: NODES[E] is ROWS[E]'s place. */
typedef struct al_layers {
    al_doc_entity_row *rows;
    al_layer_node *nodes;
    int count;
    void *storage; /* owned: the parsed properties */
} al_layers;

/* Reads DOC's entities and their hierarchy into OUT (free with al_layers_free); broken keys
 * are warnings in DIAGS (layer-tree.h). */
al_status al_layers_read(al_doc *doc, al_layers *out, al_diag_list *diags);
void al_layers_free(al_layers *layers); /* NULL is a no-op */

/* The index of entity row ENTITY in LAYERS, or -1. */
int al_layers_find(const al_layers *layers, int64_t entity);

/* The value of KEY of entity E of LAYERS, or NULL. */
const char *al_layers_value(const al_layers *layers, int e, const char *key);

/* The layers of the map, the default one (the world, index 0) first, then by sort index:
 * their indices into *OUT (malloc'd, *COUNT). */
al_status al_layers_list(const al_layers *layers, int **out, int *count);

/* Adds an empty layer named NAME after the others; its entity in *LAYER (may be NULL). */
al_status al_layers_add_layer(al_doc *doc, const char *name, int64_t *layer, al_doc_change *change,
                              al_diag_list *diags);

/* Renames the layer or group ENTITY. */
al_status al_layers_rename(al_doc *doc, int64_t entity, const char *name, al_doc_change *change,
                           al_diag_list *diags);

/* Which flag of a layer al_layers_set_flag sets. */
typedef enum al_layer_flag_kind {
    AL_LAYER_HIDDEN,
    AL_LAYER_LOCKED,
    AL_LAYER_OMIT, /* omitted from export; not for the default layer */
} al_layer_flag_kind;

/* Sets or clears FLAG of layer LAYER (0: the default layer, on the worldspawn). */
al_status al_layers_set_flag(al_doc *doc, int64_t layer, al_layer_flag_kind flag, bool on,
                             al_doc_change *change, al_diag_list *diags);

/* Gives layer LAYER (0: the default layer) the colour RGB (0..1 each; NULL: none), kept
 * as TrenchBroom keeps it ("_tb_layer_color" "R G B 1"). */
al_status al_layers_set_color(al_doc *doc, int64_t layer, const float rgb[3], al_doc_change *change,
                              al_diag_list *diags);

/* Deletes the layer LAYER; what it held moves to the default layer. */
al_status al_layers_delete_layer(al_doc *doc, int64_t layer, al_doc_change *change,
                                 al_diag_list *diags);

/* Moves the loose brushes BRUSHES and the entities ENTITIES (those of groups move with
 * their group) to the top of layer LAYER (0: the default layer). */
al_status al_layers_move_to_layer(al_doc *doc, const int64_t *brushes, int brush_count,
                                  const int64_t *entities, int entity_count, int64_t layer,
                                  al_doc_change *change, al_diag_list *diags);

/* Makes a new group named NAME of the loose brushes BRUSHES and the entities ENTITIES (at
 * least one of either), inside the layer or group that holds the first of them; its entity
 * in *GROUP (may be NULL). A brush of a brush entity stands for its entity. */
al_status al_layers_group(al_doc *doc, const int64_t *brushes, int brush_count,
                          const int64_t *entities, int entity_count, const char *name,
                          int64_t *group, al_doc_change *change, al_diag_list *diags);

/* Dissolves the group GROUP: what it held goes to the layer or group that held it. */
al_status al_layers_ungroup(al_doc *doc, int64_t group, al_doc_change *change, al_diag_list *diags);

/* What a click on a member selects: for a loose brush of entity OWNER (IS_BRUSH) or for the
 * entity OWNER itself, the outermost group holding it below the entered group ENTERED (0:
 * none entered, the top); 0 when no group below ENTERED holds it (it is picked itself). */
int64_t al_layers_outer_group(const al_layers *layers, int64_t owner, bool is_brush,
                              int64_t entered);

#endif
