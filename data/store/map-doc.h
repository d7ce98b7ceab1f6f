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

#endif
