/* AlliumDocument: an open map document (.allium) and its live compile.
 *
 * Owns the al_doc (SQLite, main thread only), the live engine that compiles it (al-live.h)
 * and the current AlliumSnapshot. Every edit, undo and redo is committed by the document
 * layer at once (there is no Save) and hands the engine what it changed: the rows it
 * touched, read back with their content (al_doc_live_read); opening hands it the whole
 * map. While a drag goes on, the engine compiles previews of where the selection would go
 * (allium_document_preview_transform) that are never written; the release commits one
 * undoable step, Escape (allium_document_preview_end) shows the map as it is again.
 *
 * The engine publishes a snapshot after each stage on its own thread; the document makes
 * an AlliumSnapshot of it there (its scene built from the one before: only what changed)
 * and hands it to the main thread, newest first: a snapshot that a newer one overtook on
 * the way is never shown. Lightmaps come the same way, as the engine copies them.
 *
 * Lighting: the engine carries the light across edits and corrects what an edit changed;
 * the controls (run to a target, step, pause, reset) are the engine's (al_live_light_*).
 *
 * Signals:
 *   "changed"   the document's contents or history changed (after an edit, undo, redo)
 *   "compiled"  a new snapshot is current (allium_document_get_snapshot)
 *   "lit"       a newer lightmap is current (allium_document_get_lightmap)
 *   "textures"  a newer set of texture images is current (allium_document_get_textures)
 *   "definitions" a new set of entity definitions is current
 *               (allium_document_dup_definitions); a snapshot made with it follows
 *
 * Entity definitions: the bundled Quake file, then the Preferences' files, then those the
 * map's worldspawn names ("_tb_def" "external:PATH", "allium_defs", relative to the
 * document's folder), as one AlliumDefinitionSet. A change of the preference or of those
 * keys (an edit, undo or redo) makes a new set before the engine compiles the change;
 * every snapshot carries the set it was made with.
 *
 * Textures: after each snapshot the document asks for the map's textures (AlliumTextures:
 * the worldspawn "wad" key beside the map, the Preferences' texture folders) on a worker
 * thread when the key, the folders or the drawn materials changed, and again when a file
 * it read changes on disk.
 *
 * Errors are GErrors in ALLIUM_DOCUMENT_ERROR whose code is the al_status and whose
 * message is translated and carries the diagnostics (file line and column, brush, ...).
 */
#pragma once

#include <gio/gio.h>

#include "allium-definition-set.h"
#include "allium-lightmap.h"
#include "allium-textures.h"
#include "allium-selection.h"
#include "shapes/shapes.h"
#include "store/document.h"
#include "store/map-doc.h"
#include "vertex/vertex.h"

G_BEGIN_DECLS

#define ALLIUM_DOCUMENT_ERROR (allium_document_error_quark())
GQuark allium_document_error_quark(void);

#define ALLIUM_TYPE_DOCUMENT (allium_document_get_type())
G_DECLARE_FINAL_TYPE(AlliumDocument, allium_document, ALLIUM, DOCUMENT, GObject)

/* A translated message for STATUS. */
const char *allium_status_message(al_status status);

/* Sets ERROR (if not NULL) to code STATUS with the message "PREFIX: status message" and
 * the first diagnostics of DIAGS (errors first), one per line. */
void allium_set_status_error(GError **error, al_status status, const al_diag_list *diags,
                             const char *prefix);

/* Opens the map document at PATH for writing or, when another program has it open for
 * writing or it is not writable, read-only (allium_document_get_read_only_reason then
 * says why). Starts its first compile. Main thread. */
AlliumDocument *allium_document_open(const char *path, GError **error);

/* Closes the document; pending compiles are dropped. Further edits fail. */
void allium_document_close(AlliumDocument *self);

const char *allium_document_get_path(AlliumDocument *self);
char *allium_document_dup_display_name(AlliumDocument *self);
char *allium_document_dup_folder(AlliumDocument *self);
gboolean allium_document_get_read_only(AlliumDocument *self);
/* Why the document is read-only, or NULL. */
const char *allium_document_get_read_only_reason(AlliumDocument *self);

/* The al_doc, for the document's own helpers (export). Main thread; NULL once closed. */
al_doc *allium_document_get_doc(AlliumDocument *self);

/* The current snapshot (borrowed; take a reference to keep it), NULL before the engine
 * published the first. */
AlliumSnapshot *allium_document_get_snapshot(AlliumDocument *self);
/* Whether the engine still works on the stages of the newest edit. */
gboolean allium_document_get_compiling(AlliumDocument *self);
/* The status of the engine's stages, into OUT[AL_STAGE_COUNT]. */
void allium_document_get_stages(AlliumDocument *self, al_stage_status out[AL_STAGE_COUNT]);
/* The newest lightmap that fits the current snapshot's scene (borrowed; take a reference
 * to keep it), or NULL when it is not lit (no world yet, no light sources). */
AlliumLightmap *allium_document_get_lightmap(AlliumDocument *self);
/* The newest texture images of the map (borrowed; take a reference to keep it), or NULL
 * before the first load finished. */
AlliumTextures *allium_document_get_textures(AlliumDocument *self);

/* A reference to the document's current entity definitions (unref it); never NULL while
 * the document is open. Any thread. */
AlliumDefinitionSet *allium_document_dup_definitions(AlliumDocument *self);
/* Whether the engine is still working on the light (correcting an edit, or shooting). */
gboolean allium_document_get_lighting(AlliumDocument *self);

/* The residual a run stops at by default: 1% of the emitted light left unshot. */
#define ALLIUM_LIGHT_RESIDUAL 0.01

/* Radiosity controls (al_live_light_*). By default the solver runs: after every edit it
 * corrects the light the edit changed, then shoots until the residual is the target.
 * Step shoots SHOTS more and then waits (edits are still corrected); reset goes back to
 * before the first shot (dark) and waits; pause stops all work on the light, corrections
 * included, until run or step; run goes on to the target. Every lightmap on the way
 * arrives through "lit". */
void allium_document_light_run(AlliumDocument *self);
void allium_document_light_pause(AlliumDocument *self);
void allium_document_light_step(AlliumDocument *self, int shots);
void allium_document_light_reset(AlliumDocument *self);
al_light_mode allium_document_get_light_mode(AlliumDocument *self);
gboolean allium_document_get_light_paused(AlliumDocument *self);
/* The residual runs stop at (unshot / emitted power; 0.01 unless set). */
void allium_document_set_light_target(AlliumDocument *self, double residual);
double allium_document_get_light_target(AlliumDocument *self);

/* The residual after each lightmap, oldest first (the compile panel's plot); a reset or a
 * new solver's first light starts it again. */
typedef struct {
    gint64 shots;
    double residual;
} AlliumResidualPoint;
const AlliumResidualPoint *allium_document_get_residuals(AlliumDocument *self, guint *count);
/* Bumped by every edit and preview: a snapshot of an older generation is out of date. */
guint64 allium_document_get_generation(AlliumDocument *self);
/* When the newest change went to the engine (g_get_monotonic_time) if its collision has
 * not been delivered yet, else 0. */
gint64 allium_document_get_collision_due(AlliumDocument *self);
/* While the newest change's collision is due, waits up to BUDGET_US for the engine to
 * publish it and, if it came, makes it the current snapshot at once; TRUE then. For the
 * start of FRAME (the frame clock's counter: once per frame, whichever view asks first),
 * which would otherwise show the map as it was and draw the edit a frame later. "compiled"
 * is emitted after the frame, by the delivery already queued. Main thread. */
gboolean allium_document_await_collision(AlliumDocument *self, gint64 budget_us, gint64 frame);

/* --- previews of a drag: compiled, never written ------------------------------------- */

/* Shows BRUSHES and the point ENTITIES as the transform MATRIX (rows of a 3x4 affine map,
 * as allium_document_transform) would leave them: the engine compiles it like an edit, the
 * document is not touched. A later preview replaces it. An edit, undo or redo ends it; so
 * does allium_document_preview_end, which shows the document's map again (Escape). */
void allium_document_preview_transform(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const gint64 *entities,
                                       guint entity_count, const double matrix[3][4]);
void allium_document_preview_end(AlliumDocument *self);
/* Shows BRUSHES with their corners at FROM moved by DELTA (al_doc_move_vertices), or with
 * SPLIT a new corner at FROM[0] + DELTA (al_doc_split_vertex), compiled like a preview of
 * a transform. FALSE when the edit would be refused (the reason, to g_free, in *WHY when
 * not NULL): the engine then keeps what it showed. */
gboolean allium_document_preview_vertices(AlliumDocument *self, const gint64 *brushes,
                                          guint brush_count, const double (*from)[3],
                                          guint from_count, const double delta[3], gboolean split,
                                          char **why);
gboolean allium_document_get_previewing(AlliumDocument *self);

gboolean allium_document_can_undo(AlliumDocument *self);
gboolean allium_document_can_redo(AlliumDocument *self);
/* Label of the step undo (REDO: redo) would apply, or NULL. Free with g_free. */
char *allium_document_dup_undo_label(AlliumDocument *self, gboolean redo);
gboolean allium_document_undo(AlliumDocument *self, GError **error);
gboolean allium_document_redo(AlliumDocument *self, GError **error);

/* Row id of the world entity (worldspawn), or -1 before the first compile. */
gint64 allium_document_get_world_entity(AlliumDocument *self);

/* Sets (VALUE non-NULL) or removes one property of ENTITY (a document row id): one
 * undoable step. */
gboolean allium_document_set_entity_property(AlliumDocument *self, gint64 entity,
                                             const char *key, const char *value,
                                             GError **error);

/* --- editing: each call is one undoable step, committed at once ----------------------- */

/* Sets the bits MASK of the hidden and locked marks (AL_DOC_STATE_*) of BRUSHES and
 * ENTITIES to those of BITS, as one step named LABEL (al_doc_set_state). */
gboolean allium_document_set_state(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                   const gint64 *entities, guint entity_count, unsigned mask,
                                   unsigned bits, const char *label, GError **error);

/* Layers and groups (data/layers/layer-edits.h), each one step. */
gboolean allium_document_group(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                               const gint64 *entities, guint entity_count, const char *name,
                               gint64 *group, GError **error);
gboolean allium_document_ungroup(AlliumDocument *self, gint64 group, GError **error);
gboolean allium_document_add_layer(AlliumDocument *self, const char *name, gint64 *layer,
                                   GError **error);
gboolean allium_document_rename_layer(AlliumDocument *self, gint64 layer, const char *name,
                                      GError **error);
gboolean allium_document_set_layer_flag(AlliumDocument *self, gint64 layer, int flag, gboolean on,
                                        GError **error);
/* Gives LAYER the colour RGB (0..1 each; NULL: none), as "_tb_layer_color". */
gboolean allium_document_set_layer_color(AlliumDocument *self, gint64 layer, const float rgb[3],
                                         GError **error);
gboolean allium_document_delete_layer(AlliumDocument *self, gint64 layer, GError **error);
gboolean allium_document_move_to_layer(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const gint64 *entities,
                                       guint entity_count, gint64 layer, GError **error);

/* Moves BRUSHES and the point ENTITIES by DELTA. */
gboolean allium_document_move(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                              const gint64 *entities, guint entity_count, const double delta[3],
                              GError **error);

/* Applies the affine map MATRIX (rows of a 3x4 matrix, as al_doc_transform_brushes) to
 * BRUSHES and to the origins of the point ENTITIES; LABEL names the undo step, in English
 * and marked with N_() (the history keeps it so; it is translated when shown). */
gboolean allium_document_transform(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const gint64 *entities,
                                   guint entity_count, const double matrix[3][4],
                                   const char *label, GError **error);

/* How many faces the last move or transform's texture lock (the "texture-lock"
 * preference) could only approximate: the standard format holds a texture's axes in the
 * face's axial plane, so a turn that takes them out of it drifts (Valve 220 is exact). */
int allium_document_get_lock_approximate(AlliumDocument *self);

/* Inside a "changed" handler: whether the edit may have changed what the hidden and locked
 * marks and the layers are read from (brushes added, deleted, moved between entities or
 * marked, or entities changed); FALSE for edits of brushes' shapes and textures only, so
 * that those need not read them again. TRUE outside a handler. */
gboolean allium_document_change_touches_marks(AlliumDocument *self);

/* Moves the corners at FROM of BRUSHES by DELTA, rebuilding each brush that has one there
 * (al_doc_move_vertices): one undoable step, refused as a whole (ERROR says why) when a
 * brush would not stay convex and solid. */
gboolean allium_document_move_vertices(AlliumDocument *self, const gint64 *brushes,
                                       guint brush_count, const double (*from)[3], guint from_count,
                                       const double delta[3], GError **error);
/* Adds a corner at AT + DELTA to those of BRUSHES that have AT on an edge or a face
 * (al_doc_split_vertex): one undoable step, refused as a whole (ERROR says why) as
 * allium_document_move_vertices is. */
gboolean allium_document_split_vertex(AlliumDocument *self, const gint64 *brushes,
                                      guint brush_count, const double at[3], const double delta[3],
                                      GError **error);
/* The corners, edges and faces of BRUSH as the document holds it; FALSE if it has none. */
gboolean allium_document_brush_geometry(AlliumDocument *self, gint64 brush,
                                        al_vertex_geometry *out);

/* Deletes BRUSHES and ENTITIES (with their brushes; the world is never deleted). */
gboolean allium_document_delete(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count, GError **error);

/* Copies BRUSHES moved by DELTA; the copies' rows go to COPIES (room for BRUSH_COUNT). */
gboolean allium_document_duplicate(AlliumDocument *self, const gint64 *brushes,
                                   guint brush_count, const double delta[3], gint64 *copies,
                                   GError **error);

/* The brushes BRUSHES and the entities ENTITIES as .map text for the clipboard
 * (al_doc_export_selection, al_map_write_fragment), in the Valve 220 dialect when any of
 * their faces is stored in it, else in the standard one; g_free it. NULL with ERROR when
 * the document cannot be read. */
char *allium_document_copy_text(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count, GError **error);

/* Pastes TEXT (.map text from the clipboard, al_map_read_fragment) as one undoable step
 * (al_doc_paste_map; PLACE NULL: in place); what it added in *RESULT (free with
 * al_doc_paste_result_free). FALSE with ERROR naming the line and column of bad text, or
 * what the document refused, and the map unchanged. */
gboolean allium_document_paste_text(AlliumDocument *self, const char *text,
                                    const al_doc_paste_place *place, al_doc_paste_result *result,
                                    GError **error);

/* Writes the brushes BRUSHES and the entities ENTITIES to PATH as a prefab (al_prefab_save:
 * the text Copy makes, through a temporary file and a rename). FALSE with ERROR naming the
 * file when it cannot be written; PATH is then as it was. */
gboolean allium_document_save_prefab(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                     const gint64 *entities, guint entity_count, const char *path,
                                     GError **error);

/* Inserts the prefab at PATH as a paste does (al_prefab_insert; PLACE NULL: where the file
 * puts it): one undoable step, what it added in *RESULT. FALSE with ERROR naming the file
 * and the line and column of bad text, or what the document refused; the map unchanged. */
gboolean allium_document_insert_prefab(AlliumDocument *self, const char *path,
                                       const al_doc_paste_place *place, al_doc_paste_result *result,
                                       GError **error);

/* Adds a box brush [MINS, MAXS] to the world, every face of MATERIAL; its row in *ID. */
gboolean allium_document_add_box(AlliumDocument *self, const double mins[3],
                                 const double maxs[3], const char *material, gint64 *id,
                                 GError **error);

/* Hollows BRUSHES into walls THICKNESS units thick (al_doc_hollow_brushes); the walls'
 * rows go to *WALLS (g_free), *WALL_COUNT of them. */
gboolean allium_document_hollow(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                                double thickness, gint64 **walls, guint *wall_count,
                                GError **error);

/* Cuts BRUSHES by the plane through POINTS (the .map rule for its normal), keeping KEEP
 * (al_doc_clip_brushes); the rows of the brushes that result go to *PIECES (g_free). */
gboolean allium_document_clip(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                              const double points[3][3], al_doc_clip_keep keep, gint64 **pieces,
                              guint *piece_count, GError **error);

/* CSG subtract: the selected CUTTERS cut every brush of the map they overlap (not
 * themselves); the pieces' rows go to *PIECES (g_free). */
gboolean allium_document_subtract(AlliumDocument *self, const gint64 *cutters,
                                  guint cutter_count, gint64 **pieces, guint *piece_count,
                                  GError **error);

/* Merges BRUSHES into one convex brush (refused when their union is not convex); its row
 * in *MERGED. */
gboolean allium_document_merge(AlliumDocument *self, const gint64 *brushes, guint brush_count,
                               gint64 *merged, GError **error);

/* Makes BRUSHES a new brush entity of CLASSNAME (its row in *ENTITY), or gives every brush
 * of the brush entities ENTITIES back to the world (the entities go). */
gboolean allium_document_brushes_to_entity(AlliumDocument *self, const gint64 *brushes,
                                           guint brush_count, const char *classname,
                                           gint64 *entity, GError **error);
gboolean allium_document_entities_to_world(AlliumDocument *self, const gint64 *entities,
                                           guint entity_count, GError **error);

/* The map's materials, sorted by name, with their use counts (al_doc_list_materials):
 * *COUNT of them; free with al_doc_materials_free. NULL on error. */
al_doc_material *allium_document_list_materials(AlliumDocument *self, int *count,
                                                GError **error);
/* Sets a material's colour, reflectance and emission (adding it if new). */
gboolean allium_document_set_material(AlliumDocument *self, const al_doc_material *material,
                                      GError **error);
/* Gives FACES (or, with none, every face of BRUSHES) the material NAME: one step. */
gboolean allium_document_apply_material(AlliumDocument *self, const char *name,
                                        const gint64 *brushes, guint brush_count,
                                        const AlliumFaceRef *faces, guint face_count,
                                        GError **error);

/* The material new brushes get (the texture browser's choice; NULL: none chosen). Not an
 * edit: it lasts while the document is open. */
void allium_document_set_current_material(AlliumDocument *self, const char *name);
const char *allium_document_get_current_material(AlliumDocument *self);
/* The size in texels of the texture of MATERIAL as the views draw it: its image's, or 64 x
 * 64 (the checker drawn for a material without one). */
void allium_document_texture_size(AlliumDocument *self, const char *material, double size[2]);
/* Aligns the textures of FACES by A (al_doc_align_faces, each face with its texture's
 * size), giving them MATERIAL too when not NULL: one undoable step. *REFUSED (may be NULL)
 * counts the faces the operation could not change; when all were, ERROR says why. */
gboolean allium_document_align_faces(AlliumDocument *self, const AlliumFaceRef *faces, guint count,
                                     const al_align *a, const char *material, int *refused,
                                     GError **error);

/* Replaces the map's list of agent boxes (hull 0, the point hull, first): one undoable
 * step. A list the compiler would refuse (a duplicate name, an empty box, more than it
 * holds) is refused with the compiler's reason. */
gboolean allium_document_set_hulls(AlliumDocument *self, const al_hull_desc *hulls,
                                   guint count, GError **error);

/* Adds a point entity of CLASSNAME at ORIGIN, with the class's usual properties (a light
 * gets "light" 300); its row in *ID. */
/* Adds the shape DESC describes (data/shapes) to the world, every face of MATERIAL, as one
 * undoable step; the new brushes' rows go to *IDS (g_free), *COUNT of them. A refused
 * description or brush is an error naming the reason. */
gboolean allium_document_add_shape(AlliumDocument *self, const al_shape_desc *desc,
                                   const char *material, gint64 **ids, guint *count,
                                   GError **error);
gboolean allium_document_add_point_entity(AlliumDocument *self, const char *classname,
                                          const double origin[3], gint64 *id, GError **error);

G_END_DECLS
