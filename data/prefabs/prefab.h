/* Prefabs: pieces of a map kept in a folder as small .map files and added to any map.
 *
 * A prefab file is exactly what Copy puts on the clipboard (al_doc_copy_text, read back by
 * al_map_read_fragment): world brushes in a worldspawn entity, brush entities with their
 * brushes, point entities. Saving writes it through a temporary file and a rename;
 * inserting reads it and pastes it (al_doc_paste_map) where the caller says, as one
 * undoable step named "Paste". A damaged file is refused with diagnostics naming its
 * line and column, and the document is unchanged.
 *
 * Entry points: al_prefab_save, al_prefab_read, al_prefab_insert. Workload: a few dozen
 * brushes per prefab, a few hundred prefabs per folder. */
#ifndef AL_PREFAB_H
#define AL_PREFAB_H

#include "mapfile/map.h"
#include "store/document.h"
#include "store/map-doc.h"

/* The largest prefab file read, in bytes: more is no piece of a map but a whole one. */
#define AL_PREFAB_MAX_BYTES (64u << 20)

/* Writes the brushes BRUSHES and the entities ENTITIES of DOC to PATH as a prefab. Errors:
 * those of al_doc_copy_text; AL_ERR_IO with a diagnostic naming PATH when it cannot be
 * written (PATH is then as it was). */
al_status al_prefab_save(al_doc *doc, const int64_t *brushes, int brush_count,
                         const int64_t *entities, int entity_count, const char *path,
                         al_diag_list *diags);

/* Reads the prefab at PATH into a new map *OUT (al_map_destroy). AL_ERR_IO when it cannot
 * be read or is larger than AL_PREFAB_MAX_BYTES (a diagnostic names PATH); the fragment
 * reader's status and diagnostics (line, column) when its text is no map. */
al_status al_prefab_read(const char *path, al_map **out, al_diag_list *diags);

/* Reads the prefab at PATH and adds it to DOC as al_doc_paste_map does with PLACE (NULL:
 * where the file puts it). On any error DOC is unchanged. */
al_status al_prefab_insert(al_doc *doc, const char *path, const al_doc_paste_place *place,
                           al_doc_paste_result *result, al_doc_change *change, al_diag_list *diags);

#endif
