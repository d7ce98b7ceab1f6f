/* The map document: one SQLite file (.allium) holding a map, its undo history and a cache
 * of compiled results.
 *
 * Every edit is one transaction: there is no "save", and a crash loses nothing that was
 * committed. Each edit records the rows it changed, before and after, in the undo journal
 * (by triggers, see schema.c), so undo and redo survive closing and reopening the file. A
 * new edit clears what could be redone.
 *
 * Opening is careful: the file's header is read and checked (SQLite magic, application
 * id, schema version, size) before SQLite is given the file, and a file that fails any
 * check is never written to. A second program opening the same map for writing gets
 * AL_ERR_LOCKED and may open it read-only instead.
 *
 * Threads: a document is used by one thread at a time.
 */
#ifndef AL_DOCUMENT_H
#define AL_DOCUMENT_H

#include "al-input.h"
#include "core/diag.h"
#include "core/status.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct al_doc al_doc;

typedef enum al_doc_mode {
    AL_DOC_READ_WRITE,
    AL_DOC_READ_ONLY,
} al_doc_mode;

/* Creates a new, empty map at PATH (with the default hulls and settings). Fails with
 * AL_ERR_EXISTS if the file exists. */
al_status al_doc_create(const char *path, al_doc **out, al_diag_list *diags);

/* Opens the map at PATH. Errors, each with a diagnostic saying what is wrong with the file:
 * AL_ERR_IO (cannot be read), AL_ERR_NOT_A_MAP (not SQLite, or not an Allium map),
 * AL_ERR_VERSION (a newer schema), AL_ERR_CORRUPT (truncated or damaged), AL_ERR_READ_ONLY
 * (the file or its folder is not writable: open read-only), AL_ERR_LOCKED (another program
 * has it open for writing: open read-only). The file is not modified by a failed open. */
al_status al_doc_open(const char *path, al_doc_mode mode, al_doc **out, al_diag_list *diags);

/* Closes DOC. NULL is a no-op. */
void al_doc_close(al_doc *doc);

bool al_doc_read_only(const al_doc *doc);
const char *al_doc_path(const al_doc *doc);

/* --- what an edit changed ------------------------------------------------------------ */

typedef struct al_doc_brush_change {
    int64_t brush;
    /* false: the brush did not exist before / does not after, or was not a valid solid (so
     * the compile had or will have nothing of it) */
    bool had_old, has_new;
    double old_mins[3], old_maxs[3];
    double new_mins[3], new_maxs[3];
} al_doc_brush_change;

/* Filled by every edit, undo and redo (pass NULL to ignore). Free with
 * al_doc_change_clear. */
typedef struct al_doc_change {
    int64_t *entities; /* entities added, changed or deleted */
    int entity_count;
    al_doc_brush_change *brushes; /* brushes added, changed or deleted, with bounds */
    int brush_count;
    bool settings; /* map settings or hulls changed */
    bool materials;
} al_doc_change;

void al_doc_change_clear(al_doc_change *change);

/* --- the map's contents -------------------------------------------------------------- */

/* A face as stored: the plane through three points exactly as given, its material by name,
 * and its texture parameters (Valve 220 axes, or standard offsets). */
typedef struct al_doc_face {
    double points[3][3];
    const char *points_text; /* as written in a .map, or NULL (see al_map_face) */
    const char *material;
    bool valve;
    double u_axis[3], u_offset, v_axis[3], v_offset;
    double offset[2];
    double rotation;
    double scale[2];
    const char *surface; /* Quake 2 style "contents flags value", or NULL */
} al_doc_face;

/* --- edits: each is one transaction and one undoable step ---------------------------- */

/* Adds a brush of COUNT faces to ENTITY (0: the world). */
al_status al_doc_add_brush(al_doc *doc, int64_t entity, const al_doc_face *faces, int count,
                           int64_t *id, al_doc_change *change, al_diag_list *diags);

al_status al_doc_delete_brushes(al_doc *doc, const int64_t *ids, int count,
                                al_doc_change *change);

/* Applies the affine map x' = M[0..2] x + M[3] ... (rows of a 3x4 matrix) to the brushes'
 * plane points. A map that mirrors (negative determinant) keeps the faces pointing out. */
al_status al_doc_transform_brushes(al_doc *doc, const int64_t *ids, int count,
                                   const double matrix[3][4], al_doc_change *change);

/* Copies the brushes IDS (into the same entity, with every face parameter) and moves the
 * copies by DELTA; the copies' ids go to NEW_IDS (room for COUNT) when not NULL. */
al_status al_doc_duplicate_brushes(al_doc *doc, const int64_t *ids, int count,
                                   const double delta[3], int64_t *new_ids,
                                   al_doc_change *change);

/* Hollows the brushes IDS: each is replaced, in its entity, by one wall per face, THICKNESS
 * units thick, that together enclose the room the brush was (walls meet with overlapping
 * corners, as editors make them). Each wall keeps the outer face's texture on both its
 * sides and the brush's other faces where it touches them. AL_ERR_INVALID_ARGUMENT with a
 * diagnostic when a brush is not thicker than two walls. The walls' ids go to NEW_IDS
 * (malloc'd, *NEW_COUNT of them) when not NULL. */
al_status al_doc_hollow_brushes(al_doc *doc, const int64_t *ids, int count, double thickness,
                                int64_t **new_ids, int *new_count, al_doc_change *change,
                                al_diag_list *diags);

/* Scales and moves BRUSH so that its bounds become [MINS, MAXS]. */
al_status al_doc_resize_brush(al_doc *doc, int64_t brush, const double mins[3],
                              const double maxs[3], al_doc_change *change, al_diag_list *diags);

/* Replaces BRUSH's faces. */
al_status al_doc_set_brush_faces(al_doc *doc, int64_t brush, const al_doc_face *faces, int count,
                                 al_doc_change *change, al_diag_list *diags);

/* Sets the material of faces (FACE_INDICES within BRUSH; NULL: all of them). */
al_status al_doc_set_face_material(al_doc *doc, int64_t brush, const int *face_indices,
                                   int count, const char *material, al_doc_change *change);

/* Adds an entity; PROPERTIES_JSON is a JSON object of string values (NULL: none). */
al_status al_doc_add_entity(al_doc *doc, const char *classname, const char *properties_json,
                            int64_t *id, al_doc_change *change, al_diag_list *diags);

/* Deletes entities with their brushes (the world, entity 0's row, cannot be deleted). */
al_status al_doc_delete_entities(al_doc *doc, const int64_t *ids, int count,
                                 al_doc_change *change);

/* Moves an entity: its "origin" and its brushes by DELTA. */
al_status al_doc_move_entity(al_doc *doc, int64_t entity, const double delta[3],
                             al_doc_change *change);

/* Sets (VALUE non-NULL) or removes (NULL) one property. "classname" sets the class. */
al_status al_doc_set_property(al_doc *doc, int64_t entity, const char *key, const char *value,
                              al_doc_change *change, al_diag_list *diags);

/* Replaces the hull list (hull 0 must be the point hull). */
al_status al_doc_set_hulls(al_doc *doc, const al_hull_desc *hulls, int count,
                           al_doc_change *change, al_diag_list *diags);

/* Sets a map setting: "block_size", "luxel_size" (numbers, range-checked). */
al_status al_doc_set_setting(al_doc *doc, const char *key, double value, al_doc_change *change,
                             al_diag_list *diags);

/* Groups the edits up to al_doc_end_group into one transaction and one undoable step named
 * LABEL. A failed edit inside the group rolls back only itself. Groups do not nest.
 * al_doc_cancel_group rolls the whole group back. */
al_status al_doc_begin_group(al_doc *doc, const char *label);
al_status al_doc_end_group(al_doc *doc);
void al_doc_cancel_group(al_doc *doc);

/* --- history -------------------------------------------------------------------------- */

al_status al_doc_undo(al_doc *doc, al_doc_change *change);
al_status al_doc_redo(al_doc *doc, al_doc_change *change);
bool al_doc_can_undo(const al_doc *doc);
bool al_doc_can_redo(const al_doc *doc);

/* Label of the step undo (or redo) would apply, in BUF; false if none. */
bool al_doc_undo_label(const al_doc *doc, bool redo, char *buf, size_t size);

/* Keeps at most STEPS undoable steps (default 1000); older ones are forgotten. */
void al_doc_set_history_length(al_doc *doc, int steps);

/* Whether a commit returns only once it is on the disk (true, the default: a committed edit
 * survives a power cut) or once the system has it (false: it survives a crash of the
 * program but maybe not of the machine). For measuring what durability costs. */
al_status al_doc_set_durable(al_doc *doc, bool durable);

/* --- reading -------------------------------------------------------------------------- */

/* The document as the compiler's input. Owns everything it points to. */
typedef struct al_doc_input {
    al_input input;
    /* Row ids of the input's brushes and entities (same indices), to turn what the editor
     * picks in the compiled map back into document rows. */
    const int64_t *brush_ids;
    const int64_t *entity_ids;
    const float (*material_colours)[3]; /* per input material: its colour, sRGB 0..1 */
    void *storage; /* owned; one allocation holding the arrays and strings */
} al_doc_input;

al_status al_doc_build_input(al_doc *doc, al_doc_input *out, al_diag_list *diags);
void al_doc_input_free(al_doc_input *in);

/* The ids of ENTITY's brushes (ENTITY < 0: every brush), in order, malloc'd into *IDS. */
al_status al_doc_list_brushes(al_doc *doc, int64_t entity, int64_t **ids, int *count);

/* Bounds of BRUSH as stored; false if there is no such brush or it has none (invalid). */
bool al_doc_brush_box(al_doc *doc, int64_t brush, double mins[3], double maxs[3]);

/* Counts, for reports. */
int al_doc_count(al_doc *doc, const char *table);

/* --- the compiled-results cache ------------------------------------------------------- */

/* The content key (al_input_key) of the document's compiler input, salted with SALT. */
al_status al_doc_content_key(al_doc *doc, const char *salt, char key[33]);

/* Stores DATA under KEY (replacing). Caching is best effort: read-only documents store
 * nothing and report AL_OK. */
al_status al_doc_cache_put(al_doc *doc, const char *key, const char *kind, const void *data,
                           size_t size);

/* Fetches KEY's data (malloc'd copy into *DATA); AL_ERR_NOT_FOUND if absent. */
al_status al_doc_cache_get(al_doc *doc, const char *key, void **data, size_t *size);

#endif
