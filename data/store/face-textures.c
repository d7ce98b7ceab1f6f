/* Texture alignment as document edits (al_doc_align_faces in document.h).
 *
 * Each face named is read with its brush's other faces (its polygon is cut from its plane by
 * theirs), changed by al_texture_align and written back if it changed; the whole list is one
 * transaction and one undoable step, and the brushes are noted for the live engine, whose
 * input carries each face's projection. The editor calls this once per inspector field
 * edit, key press or button: a handful of faces, rarely thousands.
 */
#include "doc-internal.h"

#include "mapfile/texture.h"

#include "al-brush.h"
#include "al-plane.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One brush's faces, read for aligning one of them. */
typedef struct brush_faces {
    int64_t brush;
    int count;
    int64_t ids[AL_BRUSH_MAX_FACES];
    al_map_face faces[AL_BRUSH_MAX_FACES]; /* points and texture; material not read */
} brush_faces;

/* Reads BRUSH's faces in order (as the compiler input counts them). Returns AL_OK,
 * AL_ERR_NOT_FOUND for a brush without faces, or AL_ERR_IO. */
static al_status read_faces(al_doc *doc, int64_t brush, brush_faces *out)
{
    static const char *sql =
        "SELECT f.id, f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, f.x2, f.y2, f.z2, " AL_DOC_TEXTURE_COLUMNS
        " FROM faces f WHERE f.brush = ? ORDER BY "
        "f.position";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, brush);
    out->brush = brush;
    out->count = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && out->count < AL_BRUSH_MAX_FACES) {
        al_map_face *f = &out->faces[out->count];
        memset(f, 0, sizeof *f);
        out->ids[out->count] = sqlite3_column_int64(s, 0);
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(s, 1 + i);
        al_doc_read_face_texture(s, 10, f);
        out->count++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return AL_ERR_IO;
    return out->count ? AL_OK : AL_ERR_NOT_FOUND;
}

/* The polygon of face INDEX of B, into OUT (room for AL_BRUSH_POLYGON_MAX): its count, or
 * fewer than 3 when the face has no plane or does not touch the brush's solid. */
static int face_polygon(const brush_faces *b, int index, double (*out)[3])
{
    al_plane planes[AL_BRUSH_MAX_FACES];
    int n = 0, at = -1;
    for (int i = 0; i < b->count; i++) {
        const al_map_face *f = &b->faces[i];
        if (!al_plane_from_points(f->points[0], f->points[1], f->points[2], planes[n].normal,
                                  &planes[n].dist))
            continue;
        planes[n].type = al_plane_type(planes[n].normal);
        if (i == index) at = n;
        n++;
    }
    return at < 0 ? 0 : al_brush_face_points(planes, NULL, n, at, out);
}

/* Writes F's texture parameters (and MATERIAL, an id, when not negative) into face row ID. */
static al_status write_face(al_doc *doc, int64_t id, const al_map_face *f, int64_t material)
{
    static const char *update =
        "UPDATE faces SET ux = ?, uy = ?, uz = ?, uoff = ?, vx = ?, vy = ?, vz = ?, voff = ?, "
        "offx = ?, offy = ?, rotation = ?, scalex = ?, scaley = ?, "
        "material = coalesce(?, material) WHERE id = ?";
    const double values[13] = {f->u_axis[0], f->u_axis[1], f->u_axis[2], f->u_offset,  f->v_axis[0],
                               f->v_axis[1], f->v_axis[2], f->v_offset,  f->offset[0], f->offset[1],
                               f->rotation,  f->scale[0],  f->scale[1]};
    sqlite3_stmt *t = al_doc_prepare(doc, update);
    if (!t) return AL_ERR_IO;
    for (int i = 0; i < 13; i++) sqlite3_bind_double(t, 1 + i, values[i]);
    if (material >= 0)
        sqlite3_bind_int64(t, 14, material);
    else
        sqlite3_bind_null(t, 14);
    sqlite3_bind_int64(t, 15, id);
    return sqlite3_step(t) == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

/* Whether face row ID has the material MATERIAL (an id). */
static bool has_material(al_doc *doc, int64_t id, int64_t material)
{
    static const char *sql = "SELECT material FROM faces WHERE id = ?";
    return al_doc_query_id(doc, sql, id) == material;
}

static bool same_texture(const al_map_face *a, const al_map_face *b)
{
    return memcmp(a->u_axis, b->u_axis, sizeof a->u_axis) == 0 &&
           memcmp(a->v_axis, b->v_axis, sizeof a->v_axis) == 0 && a->u_offset == b->u_offset &&
           a->v_offset == b->v_offset && a->offset[0] == b->offset[0] &&
           a->offset[1] == b->offset[1] && a->rotation == b->rotation &&
           a->scale[0] == b->scale[0] && a->scale[1] == b->scale[1];
}

al_status al_doc_align_faces(al_doc *doc, const al_doc_face_ref *faces, int count,
                             const al_align *a, const double (*sizes)[2], const char *material,
                             int *refused, al_doc_change *change, al_diag_list *diags)
{
    if (refused) *refused = 0;
    if (count <= 0 || !faces || !a) return AL_ERR_INVALID_ARGUMENT;
    if (material && (!material[0] || strlen(material) > 255)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "a material name has 1 to 255 bytes");
        return AL_ERR_INVALID_ARGUMENT;
    }
    al_status st = al_doc_edit_begin(doc, "Align texture");
    if (st != AL_OK) return st;
    int64_t material_id = material ? al_doc_material_id(doc, material) : -1;
    if (material && material_id < 0) return al_doc_edit_end(doc, AL_ERR_IO, change);
    brush_faces *b = malloc(sizeof *b);
    if (!b) return al_doc_edit_end(doc, AL_ERR_NOMEM, change);
    b->brush = -1;
    int refusals = 0;
    for (int i = 0; i < count && st == AL_OK; i++) {
        /* A brush's rows are read again after each write: a face may be named twice. */
        st = read_faces(doc, faces[i].brush, b);
        if (st == AL_OK && (faces[i].index < 0 || faces[i].index >= b->count))
            st = AL_ERR_NOT_FOUND;
        if (st == AL_ERR_NOT_FOUND) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, faces[i].index, -1, -1,
                        "brush %lld has no face %d", (long long) faces[i].brush, faces[i].index);
            break;
        }
        if (st != AL_OK) break;
        double polygon[AL_BRUSH_POLYGON_MAX][3];
        int n = face_polygon(b, faces[i].index, polygon);
        al_map_face *f = &b->faces[faces[i].index];
        al_map_face before = *f;
        if (!al_texture_align(f, (const double (*)[3]) polygon, n < 0 ? 0 : n,
                              sizes ? sizes[i] : NULL, a)) {
            refusals++;
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_BAD_VALUE, -1, -1, faces[i].index, -1,
                        -1, "brush %lld, face %d: %s", (long long) faces[i].brush, faces[i].index,
                        a->kind == AL_ALIGN_TO_FACE && !f->valve
                            ? "the standard format projects on the nearest axial plane: "
                              "only Valve 220 aligns a sloped face's texture to it"
                            : "the texture cannot be aligned so (a scale of 0, or an axis "
                              "across the face)");
            continue;
        }
        bool new_material = material && !has_material(doc, b->ids[faces[i].index], material_id);
        if (same_texture(&before, f) && !new_material) continue;
        st = write_face(doc, b->ids[faces[i].index], f, new_material ? material_id : -1);
        if (st == AL_OK) al_doc_note_brush(doc, faces[i].brush);
    }
    free(b);
    if (st == AL_OK && refusals == count) st = AL_ERR_INVALID_ARGUMENT;
    if (refused) *refused = refusals;
    return al_doc_edit_end(doc, st, change);
}
