/* Edit commands (see document.h). Each is one transaction through al_doc_edit_begin/end,
 * so it is journaled for undo and reports what it changed.
 *
 * Workload: interactive, one command per user action; a single-brush edit touches one
 * brush row and its faces (median 0.7 ms including the commit, README).
 */
#include "doc-internal.h"
#include "mapfile/texture.h"
#include "properties.h"

#include "al-world.h"
#include "al-epsilon.h"
#include "materials/material-defaults.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t al_doc_material_id(al_doc *doc, const char *name)
{
    static const char *find = "SELECT id FROM materials WHERE name = ?";
    static const char *insert = "INSERT INTO materials(name, red, green, blue, flags) "
                                "VALUES (?, ?, ?, ?, ?)";
    sqlite3_stmt *st = al_doc_prepare(doc, find);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    if (id >= 0) return id;
    st = al_doc_prepare(doc, insert);
    if (!st) return -1;
    float rgb[3];
    al_material_default_colour(name, rgb);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    for (int k = 0; k < 3; k++) sqlite3_bind_double(st, 2 + k, rgb[k]);
    sqlite3_bind_int64(st, 5, al_material_default_flags(name));
    if (sqlite3_step(st) != SQLITE_DONE) return -1;
    doc->pending.materials = true;
    return sqlite3_last_insert_rowid(doc->db);
}

bool al_doc_brush_bounds(al_doc *doc, int64_t brush, double mins[3], double maxs[3],
                         al_diag_list *diags)
{
    static const char *sql = "SELECT x0, y0, z0, x1, y1, z1, x2, y2, z2 FROM faces "
                             "WHERE brush = ? ORDER BY position";
    enum { MAX = AL_BRUSH_MAX_FACES + 1 };
    al_face_desc faces[MAX];
    int n = 0;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, brush);
    while (sqlite3_step(st) == SQLITE_ROW && n < MAX) {
        for (int i = 0; i < 9; i++) faces[n].points[i / 3][i % 3] = sqlite3_column_double(st, i);
        faces[n++].material = -1;
    }
    sqlite3_reset(st);
    if (!doc->brushes) doc->brushes = al_brush_builder_create();
    if (!doc->brushes) return false;
    al_entity_desc entity = {.classname = "worldspawn"};
    al_brush_desc desc = {.entity = 0, .index = -1, .first_face = 0, .face_count = n, .line = -1};
    al_input in = {.entities = &entity, .entity_count = 1, .brushes = &desc, .brush_count = 1,
                   .faces = faces, .face_count = n};
    bool nomem = false;
    al_diag_list local = {0};
    al_brush_measure measure;
    bool valid = al_brush_builder_measure(doc->brushes, &in, 0, &measure, &local, &nomem);
    if (valid) {
        memcpy(mins, measure.mins, sizeof measure.mins);
        memcpy(maxs, measure.maxs, sizeof measure.maxs);
    } else {
        for (size_t i = 0; i < local.count; i++)
            if (local.items[i].severity == AL_SEVERITY_ERROR) {
                const al_diag *d = &local.items[i];
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, d->face, -1,
                            -1, "the brush %.180s", d->message);
            }
    }
    al_diag_list_clear(&local);
    return valid;
}

bool al_doc_update_bounds(al_doc *doc, int64_t brush, al_diag_list *diags)
{
    static const char *sql = "UPDATE brushes SET minx = ?, miny = ?, minz = ?, maxx = ?, "
                             "maxy = ?, maxz = ? WHERE id = ?";
    double mins[3], maxs[3];
    if (!al_doc_brush_bounds(doc, brush, mins, maxs, diags)) return false;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return false;
    for (int k = 0; k < 3; k++) {
        sqlite3_bind_double(st, 1 + k, mins[k]);
        sqlite3_bind_double(st, 4 + k, maxs[k]);
    }
    sqlite3_bind_int64(st, 7, brush);
    return sqlite3_step(st) == SQLITE_DONE;
}

static bool face_ok(const al_doc_face *f, int index, al_diag_list *diags)
{
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(f->points[p][k]) || fabs(f->points[p][k]) > AL_COORD_MAX) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, index, -1, -1,
                            "face %d: point %d is not a finite number within +-%g", index, p + 1,
                            AL_COORD_MAX);
                return false;
            }
    if (!f->material || !f->material[0] || strlen(f->material) > 255) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, index, -1, -1,
                    "face %d: the material name is empty or longer than 255 bytes", index);
        return false;
    }
    double tex[] = {f->u_axis[0], f->u_axis[1], f->u_axis[2], f->u_offset, f->v_axis[0],
                    f->v_axis[1], f->v_axis[2], f->v_offset, f->offset[0], f->offset[1],
                    f->rotation,  f->scale[0],  f->scale[1]};
    for (size_t i = 0; i < sizeof tex / sizeof tex[0]; i++)
        if (!isfinite(tex[i])) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, index, -1, -1,
                        "face %d: a texture parameter is not a finite number", index);
            return false;
        }
    return true;
}

bool al_doc_insert_face(al_doc *doc, int64_t brush, int position, int64_t material,
                        const al_doc_face *f)
{
    static const char *sql =
        "INSERT INTO faces(brush, position, x0, y0, z0, x1, y1, z1, x2, y2, z2, material, valve, "
        "ux, uy, uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, scaley, surface, "
        "points_text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return false;
    int i = 1;
    sqlite3_bind_int64(st, i++, brush);
    sqlite3_bind_int(st, i++, position);
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 3; k++) sqlite3_bind_double(st, i++, f->points[p][k]);
    sqlite3_bind_int64(st, i++, material);
    sqlite3_bind_int(st, i++, f->valve);
    for (int k = 0; k < 3; k++) sqlite3_bind_double(st, i++, f->u_axis[k]);
    sqlite3_bind_double(st, i++, f->u_offset);
    for (int k = 0; k < 3; k++) sqlite3_bind_double(st, i++, f->v_axis[k]);
    sqlite3_bind_double(st, i++, f->v_offset);
    sqlite3_bind_double(st, i++, f->offset[0]);
    sqlite3_bind_double(st, i++, f->offset[1]);
    sqlite3_bind_double(st, i++, f->rotation);
    sqlite3_bind_double(st, i++, f->scale[0]);
    sqlite3_bind_double(st, i++, f->scale[1]);
    if (f->surface) sqlite3_bind_text(st, i++, f->surface, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i++);
    if (f->points_text) sqlite3_bind_text(st, i++, f->points_text, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i++);
    return sqlite3_step(st) == SQLITE_DONE;
}

/* Whether SQL (a query of "SELECT 1" with one id parameter) finds a row for ID. */
static bool row_exists(al_doc *doc, const char *sql, int64_t id)
{
    return al_doc_query_id(doc, sql, id) == 1;
}

static const char *const entity_row = "SELECT 1 FROM entities WHERE id = ?";
static const char *const brush_row = "SELECT 1 FROM brushes WHERE id = ?";

static bool entity_exists(al_doc *doc, int64_t entity)
{
    return row_exists(doc, entity_row, entity);
}

bool al_doc_brush_exists(al_doc *doc, int64_t brush)
{
    return row_exists(doc, brush_row, brush);
}

int64_t al_doc_brush_entity(al_doc *doc, int64_t brush)
{
    static const char *sql = "SELECT entity FROM brushes WHERE id = ?";
    return al_doc_query_id(doc, sql, brush);
}

/* Runs SQL (a statement without result rows and with one id parameter) for ID. */
static al_status run_with_id(al_doc *doc, const char *sql, int64_t id)
{
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, id);
    return sqlite3_step(s) == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

/* Inserts COUNT faces as BRUSH's, then checks the solid and stores its bounds. */
static al_status write_faces(al_doc *doc, int64_t brush, const al_doc_face *faces, int count,
                             al_diag_list *diags)
{
    if (count < 4 || count > AL_BRUSH_MAX_FACES) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                    "a brush needs 4 to %d faces, %d given", AL_BRUSH_MAX_FACES, count);
        return AL_ERR_INVALID_ARGUMENT;
    }
    for (int f = 0; f < count; f++)
        if (!face_ok(&faces[f], f, diags)) return AL_ERR_INVALID_ARGUMENT;
    for (int f = 0; f < count; f++) {
        int64_t material = al_doc_material_id(doc, faces[f].material);
        if (material < 0 || !al_doc_insert_face(doc, brush, f, material, &faces[f]))
            return al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "writing a face", diags);
    }
    if (!al_doc_update_bounds(doc, brush, diags)) return AL_ERR_INVALID_ARGUMENT;
    return AL_OK;
}

al_status al_doc_add_brush(al_doc *doc, int64_t entity, const al_doc_face *faces, int count,
                           int64_t *id, al_doc_change *change, al_diag_list *diags)
{
    static const char *sql =
        "INSERT INTO brushes(entity, position, detail) VALUES (?1, "
        "(SELECT coalesce(max(position), 0) + 1 FROM brushes WHERE entity = ?1), "
        "(SELECT classname LIKE 'func_detail%' FROM entities WHERE id = ?1))";
    al_status st = al_doc_edit_begin(doc, "Add brush");
    if (st != AL_OK) return st;
    if (!entity_exists(doc, entity)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_ENTITY, -1, -1, -1, -1, -1,
                    "entity %lld does not exist", (long long) entity);
        return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    }
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return al_doc_edit_end(doc, AL_ERR_IO, change);
    sqlite3_bind_int64(s, 1, entity);
    if (sqlite3_step(s) != SQLITE_DONE)
        return al_doc_edit_end(
            doc, al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "adding a brush", diags),
            change);
    int64_t brush = sqlite3_last_insert_rowid(doc->db);
    st = write_faces(doc, brush, faces, count, diags);
    if (st == AL_OK) {
        al_doc_note_brush(doc, brush);
        if (id) *id = brush;
    }
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_add_brushes(al_doc *doc, int64_t entity, const char *label,
                             const al_doc_face *faces, const int *first_face, int brush_count,
                             int64_t *ids, al_doc_change *change, al_diag_list *diags)
{
    al_status st = al_doc_begin_group(doc, label);
    for (int b = 0; st == AL_OK && b < brush_count; b++)
        st = al_doc_add_brush(doc, entity, faces + first_face[b], first_face[b + 1] - first_face[b],
                              ids ? &ids[b] : NULL, NULL, diags);
    if (st == AL_OK) return al_doc_end_group(doc, change);
    al_doc_cancel_group(doc);
    return st;
}

/* One edit named LABEL applying OP to each of the brushes IDS, with their bounds noted
 * before and after; a missing brush fails the whole edit. */
typedef al_status (*brush_op)(al_doc *doc, int64_t brush, const void *context);

static al_status edit_brushes(al_doc *doc, const char *label, const int64_t *ids, int count,
                              brush_op op, const void *context, al_doc_change *change)
{
    al_status st = al_doc_edit_begin(doc, label);
    if (st != AL_OK) return st;
    for (int i = 0; i < count && st == AL_OK; i++) {
        if (!al_doc_brush_exists(doc, ids[i])) {
            st = AL_ERR_NOT_FOUND;
            break;
        }
        al_doc_note_brush(doc, ids[i]);
        st = op(doc, ids[i], context);
    }
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_delete_brush_row(al_doc *doc, int64_t brush)
{
    static const char *sql = "DELETE FROM brushes WHERE id = ?";
    return run_with_id(doc, sql, brush);
}

static al_status delete_brush(al_doc *doc, int64_t brush, const void *context)
{
    (void) context;
    return al_doc_delete_brush_row(doc, brush);
}

al_status al_doc_delete_brushes(al_doc *doc, const int64_t *ids, int count,
                                al_doc_change *change)
{
    return edit_brushes(doc, count == 1 ? "Delete brush" : "Delete brushes", ids, count,
                        delete_brush, NULL, change);
}

double al_doc_matrix_determinant(const double m[3][4])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

void al_doc_transform_face(const double m[3][4], const double in[3][3], double out[3][3])
{
    double q[3][3];
    for (int p = 0; p < 3; p++)
        for (int r = 0; r < 3; r++)
            q[p][r] = m[r][0] * in[p][0] + m[r][1] * in[p][1] + m[r][2] * in[p][2] + m[r][3];
    /* A mirror turns the winding: two points swap so that the normal still points out. */
    bool mirror = al_doc_matrix_determinant(m) < 0;
    for (int r = 0; r < 3; r++) {
        out[0][r] = mirror ? q[2][r] : q[0][r];
        out[1][r] = q[1][r];
        out[2][r] = mirror ? q[0][r] : q[2][r];
    }
}

/* cos and sin of DEGREES, exact (0 and +-1) at multiples of 90 so that quarter turns keep
 * points on the grid. */
static void exact_cos_sin(double degrees, double *c, double *s)
{
    double turns = degrees / 90;
    if (turns == floor(turns) && fabs(turns) < 1e9) {
        static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        int q = (int) fmod(fmod(turns, 4) + 4, 4);
        *c = cs[q][0];
        *s = cs[q][1];
        return;
    }
    double r = degrees * (3.14159265358979323846 / 180);
    *c = cos(r);
    *s = sin(r);
}

void al_doc_rotation_matrix(int axis, double degrees, const double centre[3], double m[3][4])
{
    double c, s;
    exact_cos_sin(degrees, &c, &s);
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    double r[3][3] = {{0}};
    r[axis][axis] = 1;
    r[u][u] = c;
    r[u][v] = -s;
    r[v][u] = s;
    r[v][v] = c;
    for (int i = 0; i < 3; i++) {
        m[i][3] = centre[i];
        for (int k = 0; k < 3; k++) {
            m[i][k] = r[i][k];
            m[i][3] -= r[i][k] * centre[k];
        }
    }
}

void al_doc_scale_matrix(const double factors[3], const double centre[3], double m[3][4])
{
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) m[i][k] = i == k ? factors[i] : 0;
        m[i][3] = centre[i] - factors[i] * centre[i];
    }
}

void al_doc_shear_matrix(int along, int across, double rate, double fixed, double m[3][4])
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) m[i][k] = i == k ? 1 : 0;
    m[along][across] = rate;
    m[along][3] = -rate * fixed;
}

/* A transform's map, and the texture lock's (al_doc_transform_brushes_locked). */
typedef struct transform_job {
    const double (*m)[4];
    bool lock;
    int approximate; /* faces whose lock is the standard format's nearest, not exact */
} transform_job;

/* Applies M to every face point of BRUSH (al_doc_transform_face) and, with LOCK, moves the
 * faces' textures along (al_texture_lock); updates the bounds. */
static al_status transform_brush(al_doc *doc, int64_t brush, transform_job *job,
                                 al_diag_list *diags)
{
    static const char *select = "SELECT id, x0, y0, z0, x1, y1, z1, x2, y2, z2, valve, ux, uy, "
                                "uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, "
                                "scaley FROM faces WHERE brush = ?";
    static const char *update = "UPDATE faces SET x0 = ?, y0 = ?, z0 = ?, x1 = ?, y1 = ?, "
                                "z1 = ?, x2 = ?, y2 = ?, z2 = ?, points_text = NULL WHERE id = ?";
    static const char *update_texture =
        "UPDATE faces SET ux = ?, uy = ?, uz = ?, uoff = ?, vx = ?, vy = ?, vz = ?, voff = ?, "
        "offx = ?, offy = ?, rotation = ?, scalex = ?, scaley = ? WHERE id = ?";
    const double (*m)[4] = job->m;
    double det = al_doc_matrix_determinant(m);
    if (!(fabs(det) > 1e-12)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "the transform flattens the brush (its determinant is %g)", det);
        return AL_ERR_INVALID_ARGUMENT;
    }
    sqlite3_stmt *s = al_doc_prepare(doc, select);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, brush);
    /* Read all first: the update statement must not run while the select is open on the
     * same rows. */
    struct {
        int64_t id;
        al_map_face face; /* the points and the texture's parameters */
    } faces[AL_BRUSH_MAX_FACES + 1];
    int n = 0;
    while (sqlite3_step(s) == SQLITE_ROW && n <= AL_BRUSH_MAX_FACES) {
        al_map_face *f = &faces[n].face;
        memset(f, 0, sizeof *f);
        faces[n].id = sqlite3_column_int64(s, 0);
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(s, 1 + i);
        f->valve = sqlite3_column_int(s, 10) != 0;
        for (int k = 0; k < 3; k++) {
            f->u_axis[k] = sqlite3_column_double(s, 11 + k);
            f->v_axis[k] = sqlite3_column_double(s, 15 + k);
        }
        f->u_offset = sqlite3_column_double(s, 14);
        f->v_offset = sqlite3_column_double(s, 18);
        f->offset[0] = sqlite3_column_double(s, 19);
        f->offset[1] = sqlite3_column_double(s, 20);
        f->rotation = sqlite3_column_double(s, 21);
        f->scale[0] = sqlite3_column_double(s, 22);
        f->scale[1] = sqlite3_column_double(s, 23);
        n++;
    }
    sqlite3_reset(s);
    for (int f = 0; f < n; f++) {
        al_map_face *face = &faces[f].face;
        double q[3][3];
        al_doc_transform_face(m, (const double (*)[3]) face->points, q);
        /* A point no number holds (a scale of infinity times 0) would be stored as NULL. */
        for (int i = 0; i < 9; i++)
            if (!isfinite(q[i / 3][i % 3])) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, f, -1, -1,
                            "brush %lld: the transform takes face %d beyond any number",
                            (long long) brush, f);
                return AL_ERR_INVALID_ARGUMENT;
            }
        sqlite3_stmt *u = al_doc_prepare(doc, update);
        if (!u) return AL_ERR_IO;
        for (int i = 0; i < 9; i++) sqlite3_bind_double(u, 1 + i, q[i / 3][i % 3]);
        sqlite3_bind_int64(u, 10, faces[f].id);
        if (sqlite3_step(u) != SQLITE_DONE) return AL_ERR_IO;
        if (!job->lock) continue;
        job->approximate += !al_texture_lock(face, m, (const double (*)[3]) q);
        const double values[13] = {
            face->u_axis[0], face->u_axis[1], face->u_axis[2], face->u_offset,  face->v_axis[0],
            face->v_axis[1], face->v_axis[2], face->v_offset,  face->offset[0], face->offset[1],
            face->rotation,  face->scale[0],  face->scale[1]};
        bool finite = true;
        for (int i = 0; i < 13; i++) finite = finite && isfinite(values[i]);
        if (!finite) continue; /* the texture stays as it was rather than be lost */
        sqlite3_stmt *t = al_doc_prepare(doc, update_texture);
        if (!t) return AL_ERR_IO;
        for (int i = 0; i < 13; i++) sqlite3_bind_double(t, 1 + i, values[i]);
        sqlite3_bind_int64(t, 14, faces[f].id);
        if (sqlite3_step(t) != SQLITE_DONE) return AL_ERR_IO;
    }
    return al_doc_update_bounds(doc, brush, diags) ? AL_OK : AL_ERR_INVALID_ARGUMENT;
}

static al_status transform_op(al_doc *doc, int64_t brush, const void *context)
{
    return transform_brush(doc, brush, (transform_job *) context, NULL);
}

static al_status transform_brushes(al_doc *doc, const int64_t *ids, int count, transform_job *job,
                                   al_doc_change *change)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (!isfinite(job->m[r][c])) return AL_ERR_INVALID_ARGUMENT;
    return edit_brushes(doc, count == 1 ? "Transform brush" : "Transform brushes", ids, count,
                        transform_op, job, change);
}

al_status al_doc_transform_brushes(al_doc *doc, const int64_t *ids, int count,
                                   const double matrix[3][4], al_doc_change *change)
{
    transform_job job = {matrix, false, 0};
    return transform_brushes(doc, ids, count, &job, change);
}

al_status al_doc_transform_brushes_locked(al_doc *doc, const int64_t *ids, int count,
                                          const double matrix[3][4], int *approximate,
                                          al_doc_change *change)
{
    transform_job job = {matrix, true, 0};
    al_status st = transform_brushes(doc, ids, count, &job, change);
    if (approximate) *approximate = st == AL_OK ? job.approximate : 0;
    return st;
}

al_status al_doc_new_brush_like(al_doc *doc, int64_t brush, int64_t *copy)
{
    static const char *row =
        "INSERT INTO brushes(entity, position, detail) SELECT entity, "
        "(SELECT max(position) + 1 FROM brushes AS b WHERE b.entity = brushes.entity), detail "
        "FROM brushes WHERE id = ?";
    sqlite3_stmt *s = al_doc_prepare(doc, row);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, brush);
    if (sqlite3_step(s) != SQLITE_DONE) return AL_ERR_IO;
    *copy = sqlite3_last_insert_rowid(doc->db);
    return AL_OK;
}

bool al_doc_copy_face(al_doc *doc, int64_t source, int64_t brush, int position,
                      const double points[3][3], bool keep_text)
{
    static const char *sql =
        "INSERT INTO faces(brush, position, x0, y0, z0, x1, y1, z1, x2, y2, z2, material, "
        "valve, ux, uy, uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, scaley, "
        "surface, points_text) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, material, valve, ux, uy, "
        "uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, scaley, surface, "
        "CASE WHEN ? THEN points_text END FROM faces WHERE id = ?";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return false;
    sqlite3_bind_int64(s, 1, brush);
    sqlite3_bind_int(s, 2, position);
    for (int i = 0; i < 9; i++) sqlite3_bind_double(s, 3 + i, points[i / 3][i % 3]);
    sqlite3_bind_int(s, 12, keep_text);
    sqlite3_bind_int64(s, 13, source);
    return sqlite3_step(s) == SQLITE_DONE && sqlite3_changes(doc->db) == 1;
}

/* Copies BRUSH's row and faces into a new brush of the same entity; its id in *COPY. */
static al_status copy_brush(al_doc *doc, int64_t brush, int64_t *copy)
{
    static const char *faces =
        "INSERT INTO faces(brush, position, x0, y0, z0, x1, y1, z1, x2, y2, z2, material, valve, "
        "ux, uy, uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, scaley, surface, "
        "points_text) SELECT ?1, position, x0, y0, z0, x1, y1, z1, x2, y2, z2, material, "
        "valve, ux, uy, uz, uoff, vx, vy, vz, voff, offx, offy, rotation, scalex, scaley, "
        "surface, points_text FROM faces WHERE brush = ?2 ORDER BY position";
    al_status st = al_doc_new_brush_like(doc, brush, copy);
    if (st != AL_OK) return st;
    sqlite3_stmt *s = al_doc_prepare(doc, faces);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, *copy);
    sqlite3_bind_int64(s, 2, brush);
    return sqlite3_step(s) == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

al_status al_doc_duplicate_brushes(al_doc *doc, const int64_t *ids, int count,
                                   const double delta[3], int64_t *new_ids,
                                   al_doc_change *change)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(delta[k])) return AL_ERR_INVALID_ARGUMENT;
    const double move[3][4] = {{1, 0, 0, delta[0]}, {0, 1, 0, delta[1]}, {0, 0, 1, delta[2]}};
    al_status st = al_doc_edit_begin(doc, count == 1 ? "Duplicate brush" : "Duplicate brushes");
    if (st != AL_OK) return st;
    for (int i = 0; i < count && st == AL_OK; i++) {
        int64_t copy = 0;
        if (!al_doc_brush_exists(doc, ids[i])) st = AL_ERR_NOT_FOUND;
        if (st == AL_OK) st = copy_brush(doc, ids[i], &copy);
        transform_job job = {move, false, 0};
        if (st == AL_OK) st = transform_brush(doc, copy, &job, NULL);
        if (st == AL_OK) {
            al_doc_note_brush(doc, copy);
            if (new_ids) new_ids[i] = copy;
        }
    }
    return al_doc_edit_end(doc, st, change);
}

/* Whether face J of the brush (its polygon: the face's plane cut by all the others) keeps
 * some area behind the plane NORMAL, DIST. */
static bool face_reaches(const al_doc_brush_face *faces, int n, int j, const double normal[3],
                         double dist)
{
    al_plane planes[AL_BRUSH_MAX_FACES + 1];
    for (int k = 0; k < n; k++) planes[k] = faces[k].plane;
    planes[n] = (al_plane){{normal[0], normal[1], normal[2]}, dist, al_plane_type(normal)};
    return al_doc_face_touches(planes, n + 1, j);
}

/* Whether the brush reaches behind the plane NORMAL, DIST with some area of any face. */
static bool face_reaches_any(const al_doc_brush_face *faces, int n, const double normal[3],
                             double dist)
{
    for (int j = 0; j < n; j++)
        if (face_reaches(faces, n, j, normal, dist)) return true;
    return false;
}

/* Replaces BRUSH by its walls (al_doc_hollow_brushes); their ids are appended to WALLS. */
static al_status hollow_brush(al_doc *doc, int64_t brush, double t, int64_t **walls,
                              int *wall_count, al_diag_list *diags)
{
    static const char *drop = "DELETE FROM faces WHERE brush = ? AND position = ?";
    al_doc_brush_face faces[AL_BRUSH_MAX_FACES];
    int n = al_doc_read_brush_faces(doc, brush, faces);
    if (n < 0) return AL_ERR_IO;
    /* Every face's inner plane must leave the brush something: thicker than two walls. */
    for (int i = 0; i < n; i++) {
        /* Some of the brush lies deeper than two walls behind each face. */
        if (!face_reaches_any(faces, n, faces[i].plane.normal,
                              faces[i].plane.dist - 2 * t - 0.01)) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld is not thicker than two walls of %g units",
                        (long long) brush, t);
            return AL_ERR_INVALID_ARGUMENT;
        }
    }
    for (int i = 0; i < n; i++) {
        int64_t wall = 0;
        al_status st = copy_brush(doc, brush, &wall);
        if (st != AL_OK) return st;
        /* The wall: the brush behind the face's plane pushed in by T, turned around. */
        const double *normal = faces[i].plane.normal;
        double in_normal[3] = {-normal[0], -normal[1], -normal[2]};
        double in_dist = -(faces[i].plane.dist - t);
        int last = 0;
        for (int j = 0; j < n; j++) {
            last = faces[j].position > last ? faces[j].position : last;
            if (face_reaches(faces, n, j, in_normal, in_dist)) continue;
            sqlite3_stmt *s = al_doc_prepare(doc, drop);
            if (!s) return AL_ERR_IO;
            sqlite3_bind_int64(s, 1, wall);
            sqlite3_bind_int(s, 2, faces[j].position);
            if (sqlite3_step(s) != SQLITE_DONE) return AL_ERR_IO;
        }
        /* The face's points moved in by T, in the other order: the normal turns inward. */
        double inner[3][3];
        for (int q = 0; q < 3; q++)
            for (int k = 0; k < 3; k++) inner[q][k] = faces[i].points[2 - q][k] - t * normal[k];
        if (!al_doc_copy_face(doc, faces[i].id, wall, last + 1, (const double (*)[3]) inner,
                              false))
            return AL_ERR_IO;
        if (!al_doc_update_bounds(doc, wall, diags)) return AL_ERR_INVALID_ARGUMENT;
        al_doc_note_brush(doc, wall);
        int64_t *grown = realloc(*walls, (size_t) (*wall_count + 1) * sizeof *grown);
        if (!grown) return AL_ERR_NOMEM;
        *walls = grown;
        (*walls)[(*wall_count)++] = wall;
    }
    al_doc_note_brush(doc, brush);
    return delete_brush(doc, brush, NULL);
}

al_status al_doc_hollow_brushes(al_doc *doc, const int64_t *ids, int count, double thickness,
                                int64_t **new_ids, int *new_count, al_doc_change *change,
                                al_diag_list *diags)
{
    if (!(thickness > 0) || !(thickness < 1e5)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "a wall thickness of %g units", thickness);
        return AL_ERR_INVALID_ARGUMENT;
    }
    int64_t *walls = NULL;
    int wall_count = 0;
    al_status st = al_doc_edit_begin(doc, count == 1 ? "Hollow brush" : "Hollow brushes");
    if (st != AL_OK) return st;
    for (int i = 0; i < count && st == AL_OK; i++) {
        if (!al_doc_brush_exists(doc, ids[i])) st = AL_ERR_NOT_FOUND;
        else st = hollow_brush(doc, ids[i], thickness, &walls, &wall_count, diags);
    }
    st = al_doc_edit_end(doc, st, change);
    if (st == AL_OK && new_ids) {
        *new_ids = walls;
        *new_count = wall_count;
    } else {
        free(walls);
        if (new_ids) *new_ids = NULL;
        if (new_count) *new_count = 0;
    }
    return st;
}

al_status al_doc_resize_brush(al_doc *doc, int64_t brush, const double mins[3],
                              const double maxs[3], al_doc_change *change, al_diag_list *diags)
{
    double om[3], ox[3];
    for (int k = 0; k < 3; k++) {
        if (!(maxs[k] - mins[k] >= 1e-3) || !isfinite(mins[k]) || !isfinite(maxs[k])) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "the new bounds are empty or not finite on axis %c", "xyz"[k]);
            return AL_ERR_INVALID_ARGUMENT;
        }
        if (fabs(mins[k]) > AL_COORD_MAX || fabs(maxs[k]) > AL_COORD_MAX) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld: the new bounds (%c from %g to %g) reach beyond the map's "
                        "limit of +-%g units",
                        (long long) brush, "xyz"[k], mins[k], maxs[k], AL_COORD_MAX);
            return AL_ERR_INVALID_ARGUMENT;
        }
    }
    al_status st = al_doc_edit_begin(doc, "Resize brush");
    if (st != AL_OK) return st;
    if (!al_doc_brush_exists(doc, brush) || !al_doc_brush_bounds(doc, brush, om, ox, diags))
        return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    double m[3][4] = {{0}};
    for (int k = 0; k < 3; k++) {
        double scale = (maxs[k] - mins[k]) / (ox[k] - om[k]);
        m[k][k] = scale;
        m[k][3] = mins[k] - om[k] * scale;
    }
    al_doc_note_brush(doc, brush);
    /* A resize scales the brush; a texture stays on the world's grid (no lock: a lock
     * would stretch it). */
    transform_job job = {(const double (*)[4]) m, false, 0};
    st = transform_brush(doc, brush, &job, diags);
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_set_brush_faces(al_doc *doc, int64_t brush, const al_doc_face *faces, int count,
                                 al_doc_change *change, al_diag_list *diags)
{
    static const char *sql = "DELETE FROM faces WHERE brush = ?";
    al_status st = al_doc_edit_begin(doc, "Change brush planes");
    if (st != AL_OK) return st;
    if (!al_doc_brush_exists(doc, brush)) return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    al_doc_note_brush(doc, brush);
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return al_doc_edit_end(doc, AL_ERR_IO, change);
    sqlite3_bind_int64(s, 1, brush);
    if (sqlite3_step(s) != SQLITE_DONE) return al_doc_edit_end(doc, AL_ERR_IO, change);
    st = write_faces(doc, brush, faces, count, diags);
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_set_face_material(al_doc *doc, int64_t brush, const int *face_indices,
                                   int count, const char *material, al_doc_change *change)
{
    static const char *all = "UPDATE faces SET material = ? WHERE brush = ?";
    /* Positions may have gaps (hollowing drops faces): the index counts faces in order. */
    static const char *one = "UPDATE faces SET material = ? WHERE id = (SELECT id FROM faces "
                             "WHERE brush = ?2 ORDER BY position LIMIT 1 OFFSET ?3)";
    if (!material || !material[0] || strlen(material) > 255) return AL_ERR_INVALID_ARGUMENT;
    al_status st = al_doc_edit_begin(doc, "Set material");
    if (st != AL_OK) return st;
    if (!al_doc_brush_exists(doc, brush)) return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    int64_t id = al_doc_material_id(doc, material);
    if (id < 0) return al_doc_edit_end(doc, AL_ERR_IO, change);
    al_doc_note_brush(doc, brush);
    for (int i = 0; i < (face_indices ? count : 1) && st == AL_OK; i++) {
        sqlite3_stmt *s = al_doc_prepare(doc, face_indices ? one : all);
        if (!s) {
            st = AL_ERR_IO;
            break;
        }
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_int64(s, 2, brush);
        if (face_indices) sqlite3_bind_int(s, 3, face_indices[i]);
        if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
        else if (face_indices && sqlite3_changes(doc->db) == 0) st = AL_ERR_NOT_FOUND;
    }
    return al_doc_edit_end(doc, st, change);
}

/* Adds an entity row (after the others) with checked PROPS; its id in *ID if not NULL. */
static al_status insert_entity(al_doc *doc, const char *classname, const char *props,
                               int64_t *id)
{
    static const char *sql = "INSERT INTO entities(position, classname, properties) VALUES "
                             "((SELECT coalesce(max(position), 0) + 1 FROM entities), ?, ?)";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_text(s, 1, classname, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, props, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) != SQLITE_DONE) return AL_ERR_IO;
    int64_t e = sqlite3_last_insert_rowid(doc->db);
    if (id) *id = e;
    al_doc_note_entity(doc, e);
    return AL_OK;
}

/* Whether CLASSNAME may be a new entity's class: not empty, not the world's. */
static al_status check_new_class(const char *classname, al_diag_list *diags)
{
    if (!classname || !classname[0] || strcmp(classname, "worldspawn") == 0) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "classname: an entity needs a class other than worldspawn");
        return AL_ERR_INVALID_ARGUMENT;
    }
    return al_property_check("classname", classname, diags);
}

al_status al_doc_add_entity(al_doc *doc, const char *classname, const char *properties_json,
                            int64_t *id, al_doc_change *change, al_diag_list *diags)
{
    al_status st = check_new_class(classname, diags);
    if (st != AL_OK) return st;
    char *props = NULL;
    const char *json = properties_json ? properties_json : "{}";
    st = al_properties_check(json, strlen(json), &props, diags);
    if (st != AL_OK) {
        free(props);
        return st;
    }
    char *class_in_props = al_properties_get(props, "classname");
    if (class_in_props) {
        /* The class lives in its own column; drop a copy in the properties. */
        char *without = NULL;
        al_properties_set(props, "classname", NULL, &without, diags);
        free(props);
        props = without;
        free(class_in_props);
    }
    st = al_doc_edit_begin(doc, "Add entity");
    if (st != AL_OK) {
        free(props);
        return st;
    }
    st = insert_entity(doc, classname, props, id);
    free(props);
    return al_doc_edit_end(doc, st, change);
}

/* The brushes of ENTITY, into a malloc'd array. */
static int entity_brushes(al_doc *doc, int64_t entity, int64_t **out)
{
    static const char *sql = "SELECT id FROM brushes WHERE entity = ? ORDER BY position, id";
    *out = NULL;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return -1;
    sqlite3_bind_int64(s, 1, entity);
    int n = 0, cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int64_t *p = realloc(*out, (size_t) cap * sizeof *p);
            if (!p) {
                sqlite3_reset(s);
                return -1;
            }
            *out = p;
        }
        (*out)[n++] = sqlite3_column_int64(s, 0);
    }
    sqlite3_reset(s);
    return n;
}

al_status al_doc_delete_entities(al_doc *doc, const int64_t *ids, int count,
                                 al_doc_change *change)
{
    static const char *sql = "DELETE FROM entities WHERE id = ?";
    al_status st = al_doc_edit_begin(doc, count == 1 ? "Delete entity" : "Delete entities");
    if (st != AL_OK) return st;
    for (int i = 0; i < count && st == AL_OK; i++) {
        if (ids[i] == 0) {
            st = AL_ERR_INVALID_ARGUMENT; /* the world stays */
            break;
        }
        if (!entity_exists(doc, ids[i])) {
            st = AL_ERR_NOT_FOUND;
            break;
        }
        int64_t *brushes;
        int n = entity_brushes(doc, ids[i], &brushes);
        for (int b = 0; b < n; b++) al_doc_note_brush(doc, brushes[b]);
        al_doc_note_entity(doc, ids[i]);
        sqlite3_stmt *s = al_doc_prepare(doc, sql);
        if (!s) st = AL_ERR_IO;
        else {
            sqlite3_bind_int64(s, 1, ids[i]);
            if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
        }
        /* Cascades to the brushes and their faces. */
        free(brushes);
    }
    return al_doc_edit_end(doc, st, change);
}

static char *read_properties(al_doc *doc, int64_t entity)
{
    static const char *sql = "SELECT properties FROM entities WHERE id = ?";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return NULL;
    sqlite3_bind_int64(s, 1, entity);
    char *p = sqlite3_step(s) == SQLITE_ROW ? strdup((const char *) sqlite3_column_text(s, 0))
                                            : NULL;
    sqlite3_reset(s);
    return p;
}

static bool write_properties(al_doc *doc, int64_t entity, const char *json)
{
    static const char *sql = "UPDATE entities SET properties = ? WHERE id = ?";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return false;
    sqlite3_bind_text(s, 1, json, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, entity);
    return sqlite3_step(s) == SQLITE_DONE;
}

al_status al_doc_set_property(al_doc *doc, int64_t entity, const char *key, const char *value,
                              al_doc_change *change, al_diag_list *diags)
{
    static const char *set_class = "UPDATE entities SET classname = ? WHERE id = ?";
    al_status st = al_property_check(key, value, diags);
    if (st != AL_OK) return st;
    bool is_class = strcmp(key, "classname") == 0;
    if (is_class && (!value || !value[0] || (entity != 0) == (strcmp(value, "worldspawn") == 0))) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "property \"classname\": %s", entity == 0 ? "the world stays worldspawn"
                                                              : "an entity needs a class other than worldspawn");
        return AL_ERR_INVALID_ARGUMENT;
    }
    st = al_doc_edit_begin(doc, value ? "Set property" : "Remove property");
    if (st != AL_OK) return st;
    if (!entity_exists(doc, entity)) return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    al_doc_note_entity(doc, entity);
    if (is_class) {
        sqlite3_stmt *s = al_doc_prepare(doc, set_class);
        if (!s) return al_doc_edit_end(doc, AL_ERR_IO, change);
        sqlite3_bind_text(s, 1, value, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, entity);
        if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
        /* The class decides what the brushes are (world, detail, model, trigger). */
        int64_t *brushes;
        int n = entity_brushes(doc, entity, &brushes);
        for (int b = 0; b < n; b++) al_doc_note_brush(doc, brushes[b]);
        free(brushes);
        return al_doc_edit_end(doc, st, change);
    }
    char *old = read_properties(doc, entity), *updated = NULL;
    st = al_properties_set(old, key, value, &updated, diags);
    if (st == AL_OK && !write_properties(doc, entity, updated)) st = AL_ERR_IO;
    free(old);
    free(updated);
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_move_entity(al_doc *doc, int64_t entity, const double delta[3],
                             al_doc_change *change)
{
    if (!isfinite(delta[0]) || !isfinite(delta[1]) || !isfinite(delta[2]))
        return AL_ERR_INVALID_ARGUMENT;
    al_status st = al_doc_edit_begin(doc, "Move entity");
    if (st != AL_OK) return st;
    if (!entity_exists(doc, entity)) return al_doc_edit_end(doc, AL_ERR_NOT_FOUND, change);
    al_doc_note_entity(doc, entity);
    char *props = read_properties(doc, entity);
    char *origin = al_properties_get(props, "origin");
    if (origin) {
        double o[3];
        if (sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3) {
            char value[128];
            snprintf(value, sizeof value, "%.17g %.17g %.17g", o[0] + delta[0], o[1] + delta[1],
                     o[2] + delta[2]);
            char *updated = NULL;
            st = al_properties_set(props, "origin", value, &updated, NULL);
            if (st == AL_OK && !write_properties(doc, entity, updated)) st = AL_ERR_IO;
            free(updated);
        }
    }
    free(origin);
    free(props);
    double m[3][4] = {{1, 0, 0, delta[0]}, {0, 1, 0, delta[1]}, {0, 0, 1, delta[2]}};
    int64_t *brushes;
    int n = entity_brushes(doc, entity, &brushes);
    for (int b = 0; b < n && st == AL_OK; b++) {
        al_doc_note_brush(doc, brushes[b]);
        transform_job job = {(const double (*)[4]) m, false, 0};
        st = transform_brush(doc, brushes[b], &job, NULL);
    }
    free(brushes);
    return al_doc_edit_end(doc, st, change);
}

/* Whether ENTITY is a point entity: one with an origin and no brushes. */
static bool is_point_entity(al_doc *doc, int64_t entity)
{
    static const char *sql = "SELECT json_extract(properties, '$.origin') IS NOT NULL AND NOT "
                             "EXISTS (SELECT 1 FROM brushes WHERE entity = ?1) "
                             "FROM entities WHERE id = ?1";
    return al_doc_query_id(doc, sql, entity) == 1;
}

/* Moves the brushes IDS into ENTITY, after its brushes, with the detail flag its class
 * gives (as al_doc_add_brush does); deletes the entities other than the world that this
 * leaves without brushes. Inside an edit; an unknown brush fails it with a diagnostic. */
static al_status move_brushes(al_doc *doc, const int64_t *ids, int count, int64_t entity,
                              al_diag_list *diags)
{
    static const char *move =
        "UPDATE brushes SET entity = ?1, "
        "position = (SELECT coalesce(max(position), 0) + 1 FROM brushes WHERE entity = ?1), "
        "detail = (SELECT classname LIKE 'func_detail%' FROM entities WHERE id = ?1) "
        "WHERE id = ?2";
    /* A layer stays though empty, as does a group that other entities name as theirs
     * (data/layers). */
    static const char *empty =
        "DELETE FROM entities WHERE id = ?1 AND id != 0 AND NOT EXISTS "
        "(SELECT 1 FROM brushes WHERE entity = ?1) AND "
        "coalesce(json_extract(properties, '$._tb_type'), '') != '_tb_layer' AND NOT "
        "(json_extract(properties, '$._tb_type') = '_tb_group' AND EXISTS (SELECT 1 FROM "
        "entities m WHERE json_extract(m.properties, '$._tb_group') = "
        "json_extract(entities.properties, '$._tb_id')))";
    int64_t *left = malloc(((size_t) count + 1) * sizeof *left);
    int left_count = 0;
    al_status st = left ? AL_OK : AL_ERR_NOMEM;
    for (int i = 0; i < count && st == AL_OK; i++) {
        int64_t old = al_doc_brush_entity(doc, ids[i]);
        if (old < 0) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld does not exist", (long long) ids[i]);
            st = AL_ERR_NOT_FOUND;
        }
        if (st != AL_OK || old == entity) continue;
        al_doc_note_entity(doc, old);
        al_doc_note_entity(doc, entity);
        al_doc_note_brush(doc, ids[i]);
        sqlite3_stmt *s = al_doc_prepare(doc, move);
        if (!s) st = AL_ERR_IO;
        else {
            sqlite3_bind_int64(s, 1, entity);
            sqlite3_bind_int64(s, 2, ids[i]);
            if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
        }
        bool known = false;
        for (int k = 0; k < left_count; k++) known |= left[k] == old;
        if (!known) left[left_count++] = old;
    }
    for (int k = 0; k < left_count && st == AL_OK; k++) st = run_with_id(doc, empty, left[k]);
    free(left);
    return st;
}

al_status al_doc_move_brushes_to_entity(al_doc *doc, const int64_t *ids, int count,
                                        int64_t entity, al_doc_change *change)
{
    al_status st = al_doc_edit_begin(doc, entity == 0 ? "Move to world" : "Move to entity");
    if (st != AL_OK) return st;
    if (!entity_exists(doc, entity)) st = AL_ERR_NOT_FOUND;
    else if (is_point_entity(doc, entity)) st = AL_ERR_INVALID_ARGUMENT;
    else st = move_brushes(doc, ids, count, entity, NULL);
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_brushes_to_entity(al_doc *doc, const int64_t *ids, int count,
                                   const char *classname, int64_t *entity,
                                   al_doc_change *change, al_diag_list *diags)
{
    al_status st = check_new_class(classname, diags);
    if (st == AL_OK && count < 1) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "a new %s needs brushes; none are given", classname);
        st = AL_ERR_INVALID_ARGUMENT;
    }
    if (st != AL_OK) return st;
    st = al_doc_edit_begin(doc, "Brushes to entity");
    if (st != AL_OK) return st;
    int64_t made = 0;
    st = insert_entity(doc, classname, "{}", &made);
    if (st == AL_OK) st = move_brushes(doc, ids, count, made, diags);
    st = al_doc_edit_end(doc, st, change);
    if (st == AL_OK && entity) *entity = made;
    return st;
}

al_status al_doc_entity_to_world(al_doc *doc, int64_t entity, al_doc_change *change)
{
    if (entity == 0) return AL_ERR_INVALID_ARGUMENT; /* the world is the world */
    al_status st = al_doc_edit_begin(doc, "Move to world");
    if (st != AL_OK) return st;
    int64_t *brushes = NULL;
    int n = 0;
    if (!entity_exists(doc, entity)) st = AL_ERR_NOT_FOUND;
    else if ((n = entity_brushes(doc, entity, &brushes)) < 0) st = AL_ERR_IO;
    else if (n == 0) st = AL_ERR_INVALID_ARGUMENT; /* a point entity: nothing to move */
    else st = move_brushes(doc, brushes, n, 0, NULL);
    free(brushes);
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_set_hulls(al_doc *doc, const al_hull_desc *hulls, int count,
                           al_doc_change *change, al_diag_list *diags)
{
    static const char *clear = "DELETE FROM hulls";
    static const char *insert = "INSERT INTO hulls(position, name, minx, miny, minz, maxx, maxy, "
                                "maxz) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    /* The compiler's own check, so a list the compiler would refuse never gets in. */
    al_entity_desc world = {.classname = "worldspawn"};
    al_input probe = {.entities = &world, .entity_count = 1, .hulls = hulls, .hull_count = count};
    al_world *w = NULL;
    al_status st = count < 1 ? AL_ERR_INVALID_ARGUMENT : al_world_compile(&probe, NULL, &w, diags);
    al_world_destroy(w);
    if (st != AL_OK) return AL_ERR_INVALID_ARGUMENT;
    st = al_doc_edit_begin(doc, "Change hulls");
    if (st != AL_OK) return st;
    sqlite3_stmt *s = al_doc_prepare(doc, clear);
    if (!s || sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
    for (int h = 0; h < count && st == AL_OK; h++) {
        s = al_doc_prepare(doc, insert);
        if (!s) {
            st = AL_ERR_IO;
            break;
        }
        sqlite3_bind_int(s, 1, h);
        sqlite3_bind_text(s, 2, hulls[h].name, -1, SQLITE_TRANSIENT);
        for (int k = 0; k < 3; k++) {
            sqlite3_bind_double(s, 3 + k, hulls[h].mins[k]);
            sqlite3_bind_double(s, 6 + k, hulls[h].maxs[k]);
        }
        if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
    }
    doc->pending.settings = true;
    return al_doc_edit_end(doc, st, change);
}

al_status al_doc_set_setting(al_doc *doc, const char *key, double value, al_doc_change *change,
                             al_diag_list *diags)
{
    static const char *sql = "INSERT INTO settings(key, value) VALUES (?1, ?2) "
                             "ON CONFLICT(key) DO UPDATE SET value = ?2";
    double lo, hi;
    if (strcmp(key, "block_size") == 0) lo = 64, hi = 65536;
    else if (strcmp(key, "luxel_size") == 0) lo = 1, hi = 1024;
    else {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "setting \"%.40s\": no such setting", key);
        return AL_ERR_INVALID_ARGUMENT;
    }
    if (!(value >= lo && value <= hi)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "setting \"%s\": %g is outside %g..%g", key, value, lo, hi);
        return AL_ERR_INVALID_ARGUMENT;
    }
    al_status st = al_doc_edit_begin(doc, "Change setting");
    if (st != AL_OK) return st;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    if (!s) st = AL_ERR_IO;
    else {
        sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(s) != SQLITE_DONE) st = AL_ERR_IO;
    }
    doc->pending.settings = true;
    return al_doc_edit_end(doc, st, change);
}
