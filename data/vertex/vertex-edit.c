/* Vertex moves and splits as document edits and as previews of a drag (see vertex.h).
 *
 * Both read each brush's faces (al_doc_read_faces) and rebuild it with al_vertex_move or
 * al_vertex_split, the one rule; the edit writes the results with al_doc_set_brush_faces
 * inside one group (one undoable step, checked by the compiler's brush builder), the
 * preview hands them to the live engine in place of the stored faces.
 *
 * Workload: a drag previews the selected brushes (a handful) once per pointer step.
 */
#include "vertex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an edit does to each brush: its corners at FROM moved by DELTA, or (SPLIT) a new
 * corner at FROM[0] + DELTA. */
typedef struct vertex_op {
    const double (*from)[3];
    int from_count;
    const double *delta;
    bool split;
    const char *label; /* the undoable step's name */
} vertex_op;

/* BRUSH rebuilt by OP: the faces into OUT (room for AL_BRUSH_MAX_FACES) borrow their
 * strings from *READ, which the caller frees. */
static al_status edit_brush(al_doc *doc, int64_t brush, const vertex_op *op, al_doc_face **read,
                            al_doc_face *out, int *out_count, char *why, size_t why_size)
{
    int count = 0;
    al_status st = al_doc_read_faces(doc, brush, read, &count);
    if (st != AL_OK) {
        snprintf(why, why_size, "its faces could not be read");
        return st == AL_ERR_NOT_FOUND ? AL_ERR_INVALID_ARGUMENT : st;
    }
    if (op->split)
        return al_vertex_split(*read, count, op->from[0], op->delta, out, out_count, why, why_size);
    return al_vertex_move(*read, count, op->from, op->from_count, op->delta, out, out_count, why,
                          why_size);
}

static al_status edit_vertices(al_doc *doc, const int64_t *ids, int count, const vertex_op *op,
                               al_doc_change *change, al_diag_list *diags)
{
    al_doc_face *out = malloc(AL_BRUSH_MAX_FACES * sizeof *out);
    if (!out) return AL_ERR_NOMEM;
    al_status st = al_doc_begin_group(doc, op->label);
    int moved = 0;
    char why[256] = "";
    for (int b = 0; st == AL_OK && b < count; b++) {
        al_doc_face *read = NULL;
        int n = 0;
        al_status m = edit_brush(doc, ids[b], op, &read, out, &n, why, sizeof why);
        if (m == AL_OK) {
            st = al_doc_set_brush_faces(doc, ids[b], out, n, NULL, diags);
            moved++;
        } else if (m != AL_ERR_NOT_FOUND) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                        "brush %lld: %s", (long long) ids[b], why);
            st = m;
        }
        free(read);
    }
    free(out);
    if (st == AL_OK && moved == 0) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                    op->split ? "no selected brush has an edge or a face there"
                              : "no selected brush has a corner there");
        st = AL_ERR_NOT_FOUND;
    }
    if (st == AL_OK) return al_doc_end_group(doc, change);
    al_doc_cancel_group(doc);
    return st;
}

static al_status live_edit_vertices(al_doc *doc, al_doc_live *live, const vertex_op *op, char *why,
                                    size_t why_size)
{
    int count = live->change.brush_count;
    al_doc_face *out = malloc((size_t) (count > 0 ? count : 1) * AL_BRUSH_MAX_FACES * sizeof *out);
    al_doc_face **read = calloc((size_t) count + 1, sizeof *read);
    int *counts = calloc((size_t) count + 1, sizeof *counts);
    al_status st = out && read && counts ? AL_OK : AL_ERR_NOMEM;
    int moved = 0;
    /* Every brush first, so that a refusal leaves LIVE as it was. */
    for (int b = 0; st == AL_OK && b < count; b++) {
        if (live->change.brushes[b].removed) continue;
        al_status m = edit_brush(doc, live->change.brushes[b].id, op, &read[b],
                                 out + (size_t) b * AL_BRUSH_MAX_FACES, &counts[b], why, why_size);
        if (m == AL_OK)
            moved++;
        else if (m != AL_ERR_NOT_FOUND)
            st = m;
        else
            counts[b] = 0;
    }
    if (st == AL_OK && moved == 0) {
        snprintf(why, why_size, "%s",
                 op->split ? "no selected brush has an edge or a face there"
                           : "no selected brush has a corner there");
        st = AL_ERR_NOT_FOUND;
    }
    for (int b = 0; st == AL_OK && b < count; b++)
        if (counts[b] > 0)
            st = al_doc_live_set_faces(doc, live, b, out + (size_t) b * AL_BRUSH_MAX_FACES,
                                       counts[b]);
    for (int b = 0; read && b < count; b++) free(read[b]);
    free(out), free(read), free(counts);
    return st;
}

al_status al_doc_move_vertices(al_doc *doc, const int64_t *ids, int count, const double (*from)[3],
                               int from_count, const double delta[3], al_doc_change *change,
                               al_diag_list *diags)
{
    vertex_op op = {from, from_count, delta, false, "Move vertices"};
    return edit_vertices(doc, ids, count, &op, change, diags);
}

al_status al_doc_live_move_vertices(al_doc *doc, al_doc_live *live, const double (*from)[3],
                                    int from_count, const double delta[3], char *why,
                                    size_t why_size)
{
    vertex_op op = {from, from_count, delta, false, "Move vertices"};
    return live_edit_vertices(doc, live, &op, why, why_size);
}

al_status al_doc_split_vertex(al_doc *doc, const int64_t *ids, int count, const double at[3],
                              const double delta[3], al_doc_change *change, al_diag_list *diags)
{
    const double(*from)[3] = (const double(*)[3]) at;
    vertex_op op = {from, 1, delta, true, "Add vertex"};
    return edit_vertices(doc, ids, count, &op, change, diags);
}

al_status al_doc_live_split_vertex(al_doc *doc, al_doc_live *live, const double at[3],
                                   const double delta[3], char *why, size_t why_size)
{
    const double(*from)[3] = (const double(*)[3]) at;
    vertex_op op = {from, 1, delta, true, "Add vertex"};
    return live_edit_vertices(doc, live, &op, why, why_size);
}
