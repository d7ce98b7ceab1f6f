/* Vertex editing of one brush: its corners, edges and face polygons, and the brush that a
 * move of some of its corners makes.
 *
 * A brush is stored as planes (al_doc_face); a designer drags its corners. The corners come
 * from the face polygons the compiler cuts (al_brush_face_points), merged where they meet;
 * after a move the brush is the convex hull of the new corner set, written back as one face
 * per hull plane. The move is refused (with a reason) when it would not leave a valid
 * convex brush with exactly the corners the designer sees: a corner that would fall inside
 * the hull, on one of its faces or on one of its edges (the brush would have to be
 * concave there), a hull without volume, or more faces than a brush may have. Corners
 * moved onto other corners merge.
 *
 * Faces keep what they had where they can: a hull plane on which an old face lay keeps
 * that face as it was (points, material, texture); a new plane takes the material and
 * texture parameters of the old face whose normal is nearest (as TrenchBroom does).
 *
 * Pure geometry over the caller's arrays, no document: the document's edit
 * (al_doc_move_vertices) and the editor's drag preview call the same functions.
 *
 * Workload: interactive, one brush per call for each step of a drag; a brush has at most
 * AL_VERTEX_MAX corners, and the hull is found by testing every plane through three
 * corners (n^3 candidates, each tested against the corners until one is outside), which
 * suits the 4 to 30 corners of real brushes.
 */
#ifndef AL_VERTEX_H
#define AL_VERTEX_H

#include "store/document.h"

#include "al-brush.h"

#include <stdbool.h>
#include <stddef.h>

/* Room for the corners, edges and polygon points of a brush of AL_BRUSH_MAX_FACES faces
 * (Euler: V <= 2F - 4, E <= 3F - 6, and each edge bounds two polygons). */
#define AL_VERTEX_MAX       (2 * AL_BRUSH_MAX_FACES)
#define AL_VERTEX_EDGE_MAX  (3 * AL_BRUSH_MAX_FACES)
#define AL_VERTEX_POINT_MAX (6 * AL_BRUSH_MAX_FACES)

/* Corners closer than this (units, on every axis) are one corner. */
#define AL_VERTEX_MERGE 1e-3

/* A brush's corners, edges and faces. Face F's polygon is corners
 * face_points[face_first[F]] .. face_points[face_first[F + 1] - 1], in order around the
 * face; face_source[F] is the index of the al_doc_face it comes from. */
typedef struct al_vertex_geometry {
    int vertex_count, edge_count, face_count;
    double vertices[AL_VERTEX_MAX][3];
    int edges[AL_VERTEX_EDGE_MAX][2]; /* corner indices, lower first */
    int face_first[AL_BRUSH_MAX_FACES + 1];
    int face_source[AL_BRUSH_MAX_FACES];
    int face_points[AL_VERTEX_POINT_MAX];
} al_vertex_geometry;

/* The corners, edges and face polygons of the brush of COUNT FACES into OUT. False (with a
 * reason in WHY, WHY_SIZE bytes; may be NULL) when the faces bound no solid with a face of
 * some area. */
bool al_vertex_geometry_build(const al_doc_face *faces, int count, al_vertex_geometry *out,
                              char *why, size_t why_size);

/* The brush of COUNT FACES with every corner within AL_VERTEX_MERGE of one of the FROM_COUNT
 * points FROM moved by DELTA: its faces into OUT (room for AL_BRUSH_MAX_FACES; strings
 * borrowed from FACES), their number in *OUT_COUNT. Returns AL_OK; AL_ERR_NOT_FOUND when no
 * corner is at FROM; AL_ERR_INVALID_ARGUMENT when the brush would be concave, flat or
 * have too many faces (the reason in WHY, naming the corner when one is to blame). */
al_status al_vertex_move(const al_doc_face *faces, int count, const double (*from)[3],
                         int from_count, const double delta[3], al_doc_face *out, int *out_count,
                         char *why, size_t why_size);

/* The brush of COUNT FACES with a new corner at AT + DELTA, AT being a point of one of its
 * edges or faces (the edge's middle or the face's centre in the editor): the brush becomes
 * the convex hull of its corners and the new one (TrenchBroom's split of an edge or a
 * face), its faces into OUT as al_vertex_move gives them. AL_ERR_NOT_FOUND when AT is not
 * on the brush's surface or is one of its corners; AL_ERR_INVALID_ARGUMENT, the reason in
 * WHY, when a corner (the new one or an old one) would not be a corner of the hull (a
 * split with no offset leaves the new corner on its edge or face) or the brush would have
 * too many faces. */
al_status al_vertex_split(const al_doc_face *faces, int count, const double at[3],
                          const double delta[3], al_doc_face *out, int *out_count, char *why,
                          size_t why_size);

/* The convex hull of COUNT POINTS as brush faces (each face's three points are corners,
 * ordered so that the normal points out; no material or texture): into OUT (room for
 * AL_BRUSH_MAX_FACES), their number returned. Returns -1 (reason in WHY) when the points
 * span no volume, when there are too many planes, or, with REQUIRE_ALL_CORNERS, when a
 * point is not a corner of the hull (it lies inside it, on a face or on an edge). */
int al_vertex_hull(const double (*points)[3], int count, bool require_all_corners, al_doc_face *out,
                   char *why, size_t why_size);

/* --- as document edits (vertex-edit.c) ---------------------------------------------- */

/* Moves the corners at FROM (FROM_COUNT points) of the COUNT brushes IDS by DELTA
 * (al_vertex_move on each brush that has a corner there; the others stay), as one undoable
 * step named "Move vertices". Refused as a whole, with the reason naming the brush in
 * DIAGS, when one brush would not stay a valid convex brush (AL_ERR_INVALID_ARGUMENT) or
 * when no brush has a corner at FROM (AL_ERR_NOT_FOUND); nothing changes then. */
al_status al_doc_move_vertices(al_doc *doc, const int64_t *ids, int count, const double (*from)[3],
                               int from_count, const double delta[3], al_doc_change *change,
                               al_diag_list *diags);

/* The preview of that edit: LIVE (read by al_doc_live_read for the brushes) with each
 * brush that has a corner at FROM rebuilt as al_doc_move_vertices would leave it. Returns
 * what al_doc_move_vertices would (the reason in WHY); LIVE is then unchanged. */
al_status al_doc_live_move_vertices(al_doc *doc, al_doc_live *live, const double (*from)[3],
                                    int from_count, const double delta[3], char *why,
                                    size_t why_size);

/* Adds a corner at AT + DELTA to each of the COUNT brushes IDS that has AT on an edge or a
 * face (al_vertex_split; the others stay), as one undoable step named "Add vertex".
 * Refused as a whole like al_doc_move_vertices (AL_ERR_INVALID_ARGUMENT with the reason
 * naming the brush in DIAGS; AL_ERR_NOT_FOUND when no brush has AT on its surface). */
al_status al_doc_split_vertex(al_doc *doc, const int64_t *ids, int count, const double at[3],
                              const double delta[3], al_doc_change *change, al_diag_list *diags);

/* The preview of that edit into LIVE, as al_doc_live_move_vertices. */
al_status al_doc_live_split_vertex(al_doc *doc, al_doc_live *live, const double at[3],
                                   const double delta[3], char *why, size_t why_size);

#endif
