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
#include "al-diag.h"
#include "al-live.h"
#include "al-status.h"
#include "textures/align.h"

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
    int64_t brush; /* added, changed or deleted: the document's rows say which */
} al_doc_brush_change;

/* Filled by every edit, undo and redo (pass NULL to ignore): what the editor hands the
 * live engine (it reads just these rows back, al_doc_live_read). Free with
 * al_doc_change_clear. */
typedef struct al_doc_change {
    int64_t *entities; /* entities added, changed or deleted */
    int entity_count;
    al_doc_brush_change *brushes; /* brushes added, changed or deleted */
    int brush_count;
    bool settings; /* map settings or hulls changed */
    bool materials;
    /* Brushes added, deleted, moved to another entity or marked (hidden, locked), or
     * entities changed: what the marks and the layers are read from. A change without it
     * (a move, a resize, a texture edit) leaves them as they were. */
    bool marks;
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

/* Adds BRUSH_COUNT brushes to ENTITY (0: the world) as one step named LABEL: brush B has
 * the faces FACES[FIRST_FACE[B]] .. FACES[FIRST_FACE[B + 1] - 1] (as al_shape lays them out).
 * Their ids go to IDS (room for BRUSH_COUNT) when not NULL. Any brush that al_doc_add_brush
 * refuses refuses the whole step, with its diagnostic. */
al_status al_doc_add_brushes(al_doc *doc, int64_t entity, const char *label,
                             const al_doc_face *faces, const int *first_face, int brush_count,
                             int64_t *ids, al_doc_change *change, al_diag_list *diags);

al_status al_doc_delete_brushes(al_doc *doc, const int64_t *ids, int count,
                                al_doc_change *change);

/* Applies the affine map x' = M[0..2] x + M[3] ... (rows of a 3x4 matrix) to the brushes'
 * plane points. A map that mirrors (negative determinant) keeps the faces pointing out. */
al_status al_doc_transform_brushes(al_doc *doc, const int64_t *ids, int count,
                                   const double matrix[3][4], al_doc_change *change);

/* The same with texture lock: each face's texture moves with it, so that every point of
 * the face keeps its texture coordinate (al_texture_lock: exact in Valve 220; in the
 * standard format exact for moves, right-angle turns and mirrors, else the nearest it can
 * hold). *APPROXIMATE (may be NULL) counts the faces where it is the nearest. */
al_status al_doc_transform_brushes_locked(al_doc *doc, const int64_t *ids, int count,
                                          const double matrix[3][4], int *approximate,
                                          al_doc_change *change);

/* The points of a face under the affine map M, as al_doc_transform_brushes moves them (a
 * map that mirrors swaps two of them so that the face still points out). OUT may not
 * alias IN. */
void al_doc_transform_face(const double m[3][4], const double in[3][3], double out[3][3]);
double al_doc_matrix_determinant(const double m[3][4]);

/* The affine map (rows of a 3x4 matrix, as al_doc_transform_brushes takes) that turns by
 * DEGREES about the line through CENTRE along AXIS (0 X, 1 Y, 2 Z), counter-clockwise
 * when seen from the axis's positive side (the right-hand rule); multiples of 90 degrees
 * give an exact matrix. */
void al_doc_rotation_matrix(int axis, double degrees, const double centre[3], double m[3][4]);

/* The affine map that scales by FACTORS along the axes about CENTRE. */
void al_doc_scale_matrix(const double factors[3], const double centre[3], double m[3][4]);

/* The affine map that shears along axis ALONG by RATE units per unit along axis ACROSS
 * (another axis), measured from the plane ACROSS = FIXED, which stays where it is:
 * x'[ALONG] = x[ALONG] + RATE (x[ACROSS] - FIXED). Its determinant is 1: a shear keeps
 * every volume. A side of the selection dragged by D while the opposite side at FIXED stays
 * is RATE = D / (the selection's size along ACROSS). */
void al_doc_shear_matrix(int along, int across, double rate, double fixed, double m[3][4]);

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

/* Which part of a clipped brush stays (al_doc_clip_brushes). */
typedef enum al_doc_clip_keep {
    AL_DOC_CLIP_FRONT, /* the part in front of the plane: on its normal's side */
    AL_DOC_CLIP_BACK,  /* the part behind it */
    AL_DOC_CLIP_BOTH,  /* both parts, as two brushes */
} al_doc_clip_keep;

/* Clips the brushes IDS by the plane through POINTS (its normal by the faces' rule,
 * normalize((p0 - p1) x (p2 - p1))), keeping KEEP. A brush the plane crosses keeps its
 * row for the back part (the front part when KEEP is AL_DOC_CLIP_FRONT); with
 * AL_DOC_CLIP_BOTH the front part becomes a new brush after it in its entity. The new face
 * lies on the plane with the material of the brush's face nearest in orientation and
 * default texture parameters; faces that no longer touch a part are dropped. A brush
 * entirely on the kept side (or on either side, for AL_DOC_CLIP_BOTH) stays as it is; one
 * entirely on the other side is deleted. A part thinner than AL_ON_EPSILON or smaller
 * than the compiler's least volume counts as nothing: the plane does not split the brush.
 * The ids of the brushes that result go to NEW_IDS (malloc'd, *NEW_COUNT of them) when not
 * NULL. AL_ERR_INVALID_ARGUMENT with a diagnostic for points that are not finite or define
 * no plane, and for a brush that is not a valid solid; AL_ERR_NOT_FOUND with one for an
 * unknown brush. */
al_status al_doc_clip_brushes(al_doc *doc, const int64_t *ids, int count,
                              const double points[3][3], al_doc_clip_keep keep,
                              int64_t **new_ids, int *new_count, al_doc_change *change,
                              al_diag_list *diags);

/* Subtracts the brushes CUTTERS from the brushes TARGETS (CSG subtract). A target that
 * overlaps a cutter with some volume is replaced by the convex pieces of it outside the
 * cutter: for the cutter's faces f1..fn, piece i is the target in front of fi and behind
 * f1..f(i-1); pieces thinner than AL_ON_EPSILON are left out. Several cutters cut the
 * pieces in turn. The pieces keep the target's faces, entity and detail flag, the first
 * piece the target's row; a face made from a cutter's plane takes that cutter face's
 * material and texture. Cutters stay; a target left with nothing is deleted. The ids of
 * the brushes that stand for the targets afterwards (unchanged targets and pieces) go to
 * NEW_IDS (malloc'd, *NEW_COUNT of them) when not NULL. AL_ERR_INVALID_ARGUMENT with a
 * diagnostic for a brush that is not a valid solid or is both target and cutter;
 * AL_ERR_NOT_FOUND with one for an unknown brush. */
al_status al_doc_subtract_brushes(al_doc *doc, const int64_t *targets, int target_count,
                                  const int64_t *cutters, int cutter_count, int64_t **new_ids,
                                  int *new_count, al_doc_change *change, al_diag_list *diags);

/* Merges the brushes IDS (two or more, of one entity) into one convex brush, in the row of
 * the first, when their union is convex. The merged brush is bounded by those of the
 * brushes' face planes that have every corner of every brush behind them; it always holds
 * the union, and equals it exactly when their volumes agree (the union's measured by
 * cutting each brush by the ones before it, as al_doc_subtract_brushes does, within 1e-3
 * units times the surface). Each face keeps the material and texture of the first
 * brush's face on its plane. Otherwise AL_ERR_INVALID_ARGUMENT with the diagnostic "the
 * brushes' union is not convex", and nothing changes; likewise (with their reasons) for
 * fewer than two brushes, brushes of different entities and invalid solids. */
al_status al_doc_merge_brushes(al_doc *doc, const int64_t *ids, int count, int64_t *merged_id,
                               al_doc_change *change, al_diag_list *diags);

/* Scales and moves BRUSH so that its bounds become [MINS, MAXS]. */
al_status al_doc_resize_brush(al_doc *doc, int64_t brush, const double mins[3],
                              const double maxs[3], al_doc_change *change, al_diag_list *diags);

/* Replaces BRUSH's faces. */
al_status al_doc_set_brush_faces(al_doc *doc, int64_t brush, const al_doc_face *faces, int count,
                                 al_doc_change *change, al_diag_list *diags);

/* Sets the material of faces (FACE_INDICES: indices among BRUSH's faces in order, as the
 * compiler input has them; NULL: all of them). */
al_status al_doc_set_face_material(al_doc *doc, int64_t brush, const int *face_indices,
                                   int count, const char *material, al_doc_change *change);

/* A face of a brush: INDEX counts BRUSH's faces in order, as the compiler input does. */
typedef struct al_doc_face_ref {
    int64_t brush;
    int index;
} al_doc_face_ref;

/* Aligns the textures of COUNT faces by A (al_texture_align, on each face's polygon in its
 * brush), as one undoable step; with MATERIAL not NULL the faces take that material too
 * (pasting a face's texture). SIZES (may be NULL when A is neither fit nor justify) gives
 * each face's texture size in texels. A face the operation cannot change (al_texture_align
 * refuses it) stays as it is, with a warning in DIAGS naming it, and counts in *REFUSED
 * (may be NULL); if every face is refused the result is AL_ERR_INVALID_ARGUMENT and nothing
 * changes. AL_ERR_NOT_FOUND with a diagnostic for a face that does not exist. Faces whose
 * parameters come out as they were are not written, so an edit that changes nothing adds
 * no step. */
al_status al_doc_align_faces(al_doc *doc, const al_doc_face_ref *faces, int count,
                             const al_align *a, const double (*sizes)[2], const char *material,
                             int *refused, al_doc_change *change, al_diag_list *diags);

/* Adds an entity; PROPERTIES_JSON is a JSON object of string values (NULL: none). */
al_status al_doc_add_entity(al_doc *doc, const char *classname, const char *properties_json,
                            int64_t *id, al_doc_change *change, al_diag_list *diags);

/* Deletes entities with their brushes (the world, entity 0's row, cannot be deleted). */
al_status al_doc_delete_entities(al_doc *doc, const int64_t *ids, int count,
                                 al_doc_change *change);

/* Moves the brushes IDS into ENTITY (0: the world), after its brushes. An entity other
 * than the world that is left without brushes is deleted (it could not be picked any
 * more). AL_ERR_NOT_FOUND for an unknown brush or entity; AL_ERR_INVALID_ARGUMENT for a
 * point entity (one with an "origin" and no brushes). */
al_status al_doc_move_brushes_to_entity(al_doc *doc, const int64_t *ids, int count,
                                        int64_t entity, al_doc_change *change);

/* Makes a new entity of class CLASSNAME (a brush entity: func_door, func_detail, ...) and
 * moves the brushes IDS into it, as one step; its id in *ENTITY. AL_ERR_INVALID_ARGUMENT
 * with a diagnostic for no brushes or a class that is empty or worldspawn. */
al_status al_doc_brushes_to_entity(al_doc *doc, const int64_t *ids, int count,
                                   const char *classname, int64_t *entity,
                                   al_doc_change *change, al_diag_list *diags);

/* Moves every brush of ENTITY to the world and deletes ENTITY, as one step.
 * AL_ERR_INVALID_ARGUMENT for the world itself and for an entity without brushes;
 * AL_ERR_NOT_FOUND for an unknown entity. */
al_status al_doc_entity_to_world(al_doc *doc, int64_t entity, al_doc_change *change);

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

/* A material's light: what faces of its name reflect and give off. Zeroed, it is black
 * with the reflectance taken from the colour. */
typedef struct al_doc_material {
    const char *name;  /* 1 to 255 bytes; owned by the list from al_doc_list_materials */
    double colour[3];  /* sRGB, 0..1 */
    double reflectance; /* 0..1; negative: unset (the mean of the colour, al_material_desc) */
    double emission[3]; /* light level given off, >= 0 */
    /* Read by al_doc_list_materials, ignored by al_doc_set_material: */
    uint32_t flags; /* AL_MATERIAL_*, from the name (Quake's conventions) */
    int uses;       /* faces of that material */
} al_doc_material;

/* Sets the light of material M->name, adding the material if the map has none of that
 * name (its flags then come from the name). Reports change->materials. Refuses with
 * AL_ERR_INVALID_ARGUMENT and a diagnostic naming the field an empty or overlong name, a
 * colour outside 0..1, a reflectance above 1, an emission below 0, and anything NaN or
 * infinite. Setting what is already stored changes nothing and adds no step. */
al_status al_doc_set_material(al_doc *doc, const al_doc_material *m, al_doc_change *change,
                              al_diag_list *diags);

/* A material's texture colour as the editor found it: the mean colour of its texture
 * (sRGB 0..1), or none. */
typedef struct al_doc_texture_colour {
    const char *material;
    bool found;
    float average[3]; /* when FOUND */
} al_doc_texture_colour;

/* Stores the texture colours of COUNT materials named in COLOURS (names the map has no
 * material of are skipped), so that this and later compiles (after reopening too) reflect
 * them wherever the designer chose no colour (al_material_reflected_colour). A fact about
 * the texture files rather than an edit: one transaction, no undoable step; reports
 * change->materials when a stored colour changed (nothing stored changes otherwise).
 * Refuses a colour outside 0..1 or NaN with AL_ERR_INVALID_ARGUMENT naming the material,
 * storing none. */
al_status al_doc_set_texture_colours(al_doc *doc, const al_doc_texture_colour *colours, int count,
                                     al_doc_change *change, al_diag_list *diags);

/* Groups the edits up to al_doc_end_group into one transaction and one undoable step named
 * LABEL. A failed edit inside the group rolls back only itself. Groups do not nest. The
 * edits inside report nothing; al_doc_end_group reports what the whole group changed in
 * CHANGE (may be NULL). al_doc_cancel_group rolls the whole group back. */
al_status al_doc_begin_group(al_doc *doc, const char *label);
al_status al_doc_end_group(al_doc *doc, al_doc_change *change);
void al_doc_cancel_group(al_doc *doc);

/* --- hidden and locked ------------------------------------------------------------------ */

/* A brush's or an entity's marks (the state column). A hidden brush or entity is not drawn
 * nor picked but stays part of the map: compiled, exported. A locked one is drawn but cannot
 * be picked in the views. A group's marks (its func_group entity's) stand for its members. */
enum {
    AL_DOC_STATE_HIDDEN = 1u << 0,
    AL_DOC_STATE_LOCKED = 1u << 1,
};

/* Sets the bits MASK of the state of the brushes BRUSHES and entities ENTITIES to those of
 * BITS, as one undoable step named LABEL (a row that already has them is left alone).
 * AL_ERR_NOT_FOUND, with a diagnostic, for a row that does not exist (nothing changes). */
al_status al_doc_set_state(al_doc *doc, const int64_t *brushes, int brush_count,
                           const int64_t *entities, int entity_count, unsigned mask, unsigned bits,
                           const char *label, al_doc_change *change, al_diag_list *diags);

/* The brushes with a state other than 0, by id, into *IDS and *STATES (malloc'd). */
al_status al_doc_brush_states(al_doc *doc, int64_t **ids, unsigned **states, int *count);

/* An entity row as stored: the world first, then the others in the map's order (the order
 * al_doc_export_map writes them, so index E here is entity E of the exported map). */
typedef struct al_doc_entity_row {
    int64_t id;
    char *classname;  /* owned */
    char *properties; /* owned: a JSON object of string values */
    unsigned state;   /* AL_DOC_STATE_* */
} al_doc_entity_row;

/* Every entity of DOC into *OUT (malloc'd, *COUNT of them); free with
 * al_doc_entity_rows_free. */
al_status al_doc_list_entities(al_doc *doc, al_doc_entity_row **out, int *count);
void al_doc_entity_rows_free(al_doc_entity_row *rows, int count); /* NULL is a no-op */

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
    /* Where each brush and entity stands in the document's order (its position: brushes
     * of an entity, and entities but the world, are in the order of (position, id)), and
     * each material's row id (materials are in the order of their ids). */
    const double *brush_order, *entity_order;
    const int64_t *material_ids;
    void *storage; /* owned; one allocation holding the arrays and strings */
} al_doc_input;

al_status al_doc_build_input(al_doc *doc, al_doc_input *out, al_diag_list *diags);
void al_doc_input_free(al_doc_input *in);

/* --- handing the map to the live engine (al-live.h) ------------------------------------ */

/* A change for the live engine, owning what it points to. Ids are the document's rows. */
typedef struct al_doc_live {
    al_live_change change;
    void *storage; /* owned */
} al_doc_live;

/* What CHANGE (reported by an edit, undo or redo) names, as the document holds it now:
 * the brushes and entities with their content, those that are gone as removals, and the
 * materials, hull list and block size when it says they changed. With CHANGE NULL, the
 * whole map (a replace: what opening hands the engine). Problems with rows (properties
 * that are not JSON) become warnings in DIAGS (may be NULL). AL_ERR_NOMEM or AL_ERR_IO
 * (OUT then empty). Free with al_doc_live_free. */
al_status al_doc_live_read(al_doc *doc, const al_doc_change *change, al_doc_live *out,
                           al_diag_list *diags);
void al_doc_live_free(al_doc_live *live); /* NULL is a no-op */

/* What the document would hold after al_doc_transform_brushes of LIVE's brushes by M (with
 * TEXTURE_LOCK, al_doc_transform_brushes_locked: the faces' texture projections move along,
 * exactly as the Valve 220 format keeps them) and the move of its point entities' origins
 * to M applied to them (the editor's preview of a drag): LIVE's brushes and entities
 * changed in place. */
void al_doc_live_transform(al_doc_live *live, const double m[3][4], bool texture_lock);

/* Replaces the faces of LIVE's brush INDEX (among the change's brushes, read from a change
 * naming brushes) by COUNT FACES, their materials found by name among the document's (an
 * unknown name: no material): the preview of a brush rebuilt (vertex editing). */
al_status al_doc_live_set_faces(al_doc *doc, al_doc_live *live, int index, const al_doc_face *faces,
                                int count);

/* The ids of ENTITY's brushes (ENTITY < 0: every brush), in order, malloc'd into *IDS. */
al_status al_doc_list_brushes(al_doc *doc, int64_t entity, int64_t **ids, int *count);

/* The brushes with at least one face of MATERIAL, and the entities of class CLASSNAME, in
 * the order al_doc_list_brushes (and the map) keep them, malloc'd into *IDS; none for an
 * unknown name. */
al_status al_doc_brushes_with_material(al_doc *doc, const char *material, int64_t **ids,
                                       int *count);
al_status al_doc_entities_with_class(al_doc *doc, const char *classname, int64_t **ids,
                                     int *count);

/* Every material of the map, sorted by name (bytewise), with the faces using each, into
 * *OUT (malloc'd, *COUNT of them). Free with al_doc_materials_free. */
al_status al_doc_list_materials(al_doc *doc, al_doc_material **out, int *count);

/* Frees a list from al_doc_list_materials (COUNT materials). NULL is a no-op. */
void al_doc_materials_free(al_doc_material *materials, int count);

/* The entity BRUSH belongs to (0: the world), or -1 if there is no such brush. */
int64_t al_doc_brush_owner(al_doc *doc, int64_t brush);

/* Whether DOC has an entity row ENTITY (0: the world). */
bool al_doc_entity_exists(al_doc *doc, int64_t entity);

/* Bounds of BRUSH as stored; false if there is no such brush or it has none (invalid). */
bool al_doc_brush_box(al_doc *doc, int64_t brush, double mins[3], double maxs[3]);

/* A face's material and texture parameters, as stored. */
typedef struct al_doc_texture {
    char material[256];
    bool valve; /* Valve 220: the axes and their offsets; otherwise offset, rotation */
    double u_axis[3], u_offset, v_axis[3], v_offset;
    double offset[2], rotation, scale[2];
} al_doc_texture;

/* The texture of face INDEX of BRUSH (counting its faces in order, as the compiler input
 * does). AL_ERR_NOT_FOUND if there is no such face. */
al_status al_doc_face_texture(al_doc *doc, int64_t brush, int index, al_doc_texture *out);

/* Counts, for reports. */
/* BRUSH's faces as stored, in order (as the compiler input counts them), into *FACES: one
 * malloc'd block holding the faces and their strings, freed with free(); *COUNT of them.
 * AL_ERR_NOT_FOUND for a brush without faces, AL_ERR_NOMEM, AL_ERR_IO. */
al_status al_doc_read_faces(al_doc *doc, int64_t brush, al_doc_face **faces, int *count);

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

/* A connection of its own to the cache of the document at PATH, for threads other than
 * the document's (the live engine's): it reads while the document writes (SQLite's WAL),
 * and when WRITABLE stores as al_doc_cache_put does, waiting up to 2 s for the
 * document's own writes (which wait as long for it). Its calls are serialized. Open it
 * after the document, whose checks it relies on, and only WRITABLE if the document was
 * opened for writing. AL_ERR_IO if the file cannot be opened. */
typedef struct al_doc_cache_conn al_doc_cache_conn;
al_status al_doc_cache_conn_open(const char *path, bool writable, al_doc_cache_conn **out);
/* As al_doc_cache_get. */
al_status al_doc_cache_conn_get(al_doc_cache_conn *conn, const char *key, void **data,
                                size_t *size);
/* As al_doc_cache_put; AL_OK and nothing stored if the connection is read-only. */
al_status al_doc_cache_conn_put(al_doc_cache_conn *conn, const char *key, const char *kind,
                                const void *data, size_t size);
void al_doc_cache_conn_close(al_doc_cache_conn *conn); /* NULL is a no-op */

#endif
