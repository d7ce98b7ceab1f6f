/* Internals shared by the document's files: the handle, statement helpers, and the
 * edit transaction protocol used by edits.c and journal.c. */
#ifndef AL_DOC_INTERNAL_H
#define AL_DOC_INTERNAL_H

#include "document.h"
#include "schema.h"

#include "al-brush.h"
#include "mapfile/map.h"

#include <sqlite3.h>

struct al_doc {
    sqlite3 *db;
    char *path;
    int lock_fd; /* holds the flock that marks us as the writer; -1 when read-only */
    bool read_only;
    int history; /* most undoable steps kept */
    bool in_group;
    int64_t step; /* step being recorded (in a group, or by the current edit), 0 if none */
    /* What the current edit or group changed, collected for al_doc_change. */
    al_doc_change pending;
    /* Prepared statements by the address of their (static) SQL text: about 90 in all (the
     * edits' and the undo journal's), so the table is never more than half full. */
    struct {
        const char *sql;
        sqlite3_stmt *st;
    } statements[256];
    /* Owned; the compiler's brush builder, for brush bounds (made on first use). */
    al_brush_builder *brushes;
};

/* The index (in the map's order, the world 0) of the first entity whose stored properties
 * are not a JSON object of text values, with PROBLEM (SIZE bytes, translated) naming it
 * and what is wrong: "entity 2 (light): its properties are not a JSON object: ...". -1
 * if there is none, or the entities cannot be read. */
int al_doc_find_bad_properties(sqlite3 *db, char *problem, size_t size);

/* A face's texture parameters as columns of "faces f", in the order al_doc_face_axes reads
 * them. */
#define AL_DOC_TEXTURE_COLUMNS                                                                     \
    "f.valve, f.ux, f.uy, f.uz, f.uoff, f.vx, f.vy, f.vz, f.voff, f.offx, f.offy, f.rotation, "    \
    "f.scalex, f.scaley"

/* The texture parameters of the face in ST's row whose AL_DOC_TEXTURE_COLUMNS start at
 * column COL, into F's texture fields (its points and material untouched). */
void al_doc_read_face_texture(sqlite3_stmt *st, int col, al_map_face *f);

/* The projection (al_face_desc.texture_axes) of the face with plane POINTS in ST's row. */
void al_doc_face_axes(sqlite3_stmt *st, int col, const double points[3][3], double axes[2][4]);

/* Runs SQL with no result rows. */
int al_doc_exec(al_doc *doc, const char *sql);

/* Prepares SQL (cached per document) or returns NULL and records the error. */
sqlite3_stmt *al_doc_prepare(al_doc *doc, const char *sql);

/* Runs SQL (a query with one id parameter) for ID: the first column of its first row, or
 * -1 when it finds no row. */
int64_t al_doc_query_id(al_doc *doc, const char *sql, int64_t id);

/* Maps an SQLite result code to a status with a diagnostic naming what was being done. */
al_status al_doc_sqlite_status(al_doc *doc, int rc, const char *doing, al_diag_list *diags);

/* Starts an edit named LABEL: a transaction (or a savepoint inside a group) and a journal
 * step. Returns AL_OK, AL_ERR_READ_ONLY, or an error status. */
al_status al_doc_edit_begin(al_doc *doc, const char *label);

/* Ends the edit: commits (or releases the savepoint) if OK is AL_OK, rolls back otherwise.
 * Hands the collected changes to CHANGE (when the edit committed; left empty otherwise) and
 * returns OK, or the commit's failure. */
al_status al_doc_edit_end(al_doc *doc, al_status ok, al_doc_change *change);

/* Records that a brush is added, changed or deleted by the edit under way. */
void al_doc_note_brush(al_doc *doc, int64_t brush);

void al_doc_note_entity(al_doc *doc, int64_t entity);

/* Recomputes and stores a brush's bounds from its faces; false if the faces do not enclose
 * a valid solid (a diagnostic then says why). */
bool al_doc_update_bounds(al_doc *doc, int64_t brush, al_diag_list *diags);

/* Material id for NAME, creating the row with defaults (colour from the name, flags from
 * Quake's conventions) if it does not exist. Returns -1 on failure. */
int64_t al_doc_material_id(al_doc *doc, const char *name);

/* Inserts face F as the POSITION-th of BRUSH, with MATERIAL (an id). */
bool al_doc_insert_face(al_doc *doc, int64_t brush, int position, int64_t material,
                        const al_doc_face *f);

/* Bounds of the brush from its faces, through the compiler's brush builder. */
bool al_doc_brush_bounds(al_doc *doc, int64_t brush, double mins[3], double maxs[3],
                         al_diag_list *diags);

double al_doc_now(void);

/* Row readers shared by the whole-map read (doc-input.c) and the live engine's reads of
 * single rows (doc-live.c). */

/* SELECT of every material (id, name, then the columns al_doc_material_row reads), by id. */
extern const char *const al_doc_material_select;
/* Flags, reflectance, emission and the colour reflected (al_material_reflected_colour:
 * the texture's colour when nobody chose one) of a row of that SELECT; the colour as
 * stored into COLOUR. */
void al_doc_material_row(sqlite3_stmt *st, al_material_desc *m, float colour[3]);

/* SELECT of the hulls in order, and one row of it. */
extern const char *const al_doc_hull_select;
void al_doc_hull_row(sqlite3_stmt *st, al_hull_desc *h);

/* The block_size setting (0: none, the default). */
double al_doc_block_size(al_doc *doc);

/* Calls EACH for every string member of the JSON object JSON, in order; returns how many,
 * or -1 if JSON is not a JSON object (a damaged document). */
int al_doc_parse_properties(const char *json,
                            void (*each)(void *user, const char *key, const char *value),
                            void *user);

/* Makes room for one more item in *ITEMS (COUNT of SIZE bytes, room for *CAPACITY),
 * doubling it; false if memory runs out (the items are then untouched). */
bool al_doc_grow(void **items, int *capacity, int count, size_t size);

/* --- brushes, for the edits that rebuild them (edits.c) ------------------------------- */

bool al_doc_brush_exists(al_doc *doc, int64_t brush);

/* The entity BRUSH belongs to, or -1 if there is no such brush. */
int64_t al_doc_brush_entity(al_doc *doc, int64_t brush);

/* A new brush row in BRUSH's entity, after its last brush, with BRUSH's detail flag and no
 * faces yet; its id in *COPY. */
al_status al_doc_new_brush_like(al_doc *doc, int64_t brush, int64_t *copy);

/* Deletes BRUSH's row (its faces go with it). The caller notes the brush before and after. */
al_status al_doc_delete_brush_row(al_doc *doc, int64_t brush);

/* Inserts a copy of face row SOURCE (material, texture parameters, surface) as the
 * POSITION-th face of BRUSH, through POINTS. The points as the .map wrote them
 * (points_text) are kept only when KEEP_TEXT: POINTS must then be SOURCE's own. */
bool al_doc_copy_face(al_doc *doc, int64_t source, int64_t brush, int position,
                      const double points[3][3], bool keep_text);

/* --- brush geometry for the edits that cut brushes (csg.c) ---------------------------- */

/* A face row of a brush with its plane. */
typedef struct al_doc_brush_face {
    int64_t id; /* faces.id; 0 for a face that is not stored */
    int position;
    double points[3][3];
    al_plane plane; /* through the points (al_plane_from_points): the normal points out */
} al_doc_brush_face;

/* Reads BRUSH's faces in order into FACES (room for AL_BRUSH_MAX_FACES), leaving out faces
 * whose points define no plane. Returns the count, or -1 if the faces cannot be read. */
int al_doc_read_brush_faces(al_doc *doc, int64_t brush, al_doc_brush_face *faces);

/* Whether plane J bounds the convex solid behind all COUNT PLANES (normals pointing out)
 * with some area: its polygon (al_brush_face_points) has more than 1e-3 square units. A
 * face that does not touches the solid at most along an edge, and the edits that cut
 * brushes drop it. */
bool al_doc_face_touches(const al_plane *planes, int count, int j);

#endif
