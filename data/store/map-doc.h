/* Between .map files and map documents. */
#ifndef AL_MAP_DOC_H
#define AL_MAP_DOC_H

#include "document.h"
#include "mapfile/map.h"

/* Imports MAP into DOC, which must be new (the world entity and nothing else). One
 * transaction; not an undoable step (the history starts at the import). Every brush and
 * property is kept, also ones the compiler will refuse (a warning says so): nothing of the
 * designer's is dropped on the way in. The worldspawn keys "allium_hulls" and
 * "allium_block_size" become the document's hulls and settings. */
al_status al_doc_import_map(al_doc *doc, const al_map *map, al_diag_list *diags);

/* DOC as a parsed .map (entities in order, the world first; hulls and settings that differ
 * from the defaults written back as worldspawn keys). */
al_status al_doc_export_map(al_doc *doc, al_map **out, al_diag_list *diags);

#endif
