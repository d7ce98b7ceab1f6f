/* Between .map files and map documents. */
#ifndef AL_MAP_DOC_H
#define AL_MAP_DOC_H

#include "document.h"
#include "mapfile/map.h"

/* Imports MAP into DOC, which must be new (the world entity and nothing else). One
 * transaction; not an undoable step (the history starts at the import). Every brush and
 * property is kept, also ones the compiler will refuse (a warning says so): nothing of the
 * designer's is dropped on the way in. The worldspawn keys "allium_hulls" and
 * "allium_block_size" become the document's hulls and settings, and its
 * "_allium_material_NAME" keys the light of its materials (mapfile/material-keys.h). */
al_status al_doc_import_map(al_doc *doc, const al_map *map, al_diag_list *diags);

/* Imports MAP into a new document at PATH, which must not exist (AL_ERR_EXISTS, with a
 * diagnostic). The document is made in a temporary file beside PATH (".NAME.importing-"
 * and six characters, hidden) and renamed to PATH only once complete and closed, without
 * ever replacing a file: a failed or killed import leaves no PATH, never a half-made one.
 * The temporary files of imports that were killed (none holds its lock any more) are
 * removed from PATH's folder first. The caller opens PATH afterwards. */
al_status al_doc_import_new(const char *path, const al_map *map, al_diag_list *diags);

/* DOC as a parsed .map (entities in order, the world first; hulls and settings that differ
 * from the defaults, and the light of materials that differs from a new material's, written
 * back as worldspawn keys). */
al_status al_doc_export_map(al_doc *doc, al_map **out, al_diag_list *diags);

/* The brushes BRUSHES and the entities ENTITIES (whole, with their brushes) of DOC as a
 * parsed map fragment, as editors copy a selection (al_map_write_fragment): world brushes
 * inside an entity of class worldspawn that carries nothing else (not the map's keys or
 * settings), the brushes of a brush entity inside a copy of that entity with its keys, and
 * each whole entity as it is. The document's order is kept. AL_ERR_NOT_FOUND, with a
 * diagnostic, for a brush that does not exist. */
al_status al_doc_export_selection(al_doc *doc, const int64_t *brushes, int brush_count,
                                  const int64_t *entities, int entity_count, al_map **out,
                                  al_diag_list *diags);

/* The same selection as .map fragment text (al_map_write_fragment), as Copy puts it on the
 * clipboard and Save Selection as Prefab writes it: in Valve 220 when any of its faces is
 * (a standard copy pastes into every editor, and a Valve face turned standard may lose
 * its exact axes), else standard. *TEXT is malloc'd, *LENGTH bytes; errors as
 * al_doc_export_selection, or AL_ERR_NOMEM. */
al_status al_doc_copy_text(al_doc *doc, const int64_t *brushes, int brush_count,
                           const int64_t *entities, int entity_count, char **text, size_t *length,
                           al_diag_list *diags);

/* Where a paste puts what it adds: the centre of its bounds (brush bounds and entity
 * origins) moved to POINT along the axes AXES (a 2D view's two; the third stays), by a
 * whole number of GRID steps (0: exactly), so that what sat on the grid stays on it. */
typedef struct al_doc_paste_place {
    double point[3];
    bool axes[3];
    double grid;
} al_doc_paste_place;

/* What a paste added: every new brush, and the new entities without brushes (point
 * entities; the brushes stand for the others), malloc'd; DELTA, how far it moved them. */
typedef struct al_doc_paste_result {
    int64_t *brushes;
    int brush_count;
    int64_t *entities;
    int entity_count;
    double delta[3];
} al_doc_paste_result;

/* Adds the fragment MAP (al_map_read_fragment) to DOC as one undoable step named "Paste":
 * the brushes of worldspawn entities to the world (the fragment's world keys are not
 * applied), each other entity as a new entity of its class with its keys and brushes.
 * PLACE NULL pastes in place; otherwise the paste moves as PLACE says, brushes with their
 * textures (texture lock) and origins with them. Any entity or brush the document refuses
 * (no class, an invalid brush) refuses the whole paste with diagnostics naming its line
 * in the text, and DOC is unchanged. Free *RESULT with al_doc_paste_result_free. */
al_status al_doc_paste_map(al_doc *doc, const al_map *map, const al_doc_paste_place *place,
                           al_doc_paste_result *result, al_doc_change *change, al_diag_list *diags);
void al_doc_paste_result_free(al_doc_paste_result *result); /* NULL is a no-op */

#endif
