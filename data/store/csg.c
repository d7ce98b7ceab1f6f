/* Cutting brushes: clip by a plane, subtract (CSG) and merge into one convex brush (see
 * document.h), and the face test that hollowing shares (doc-internal.h).
 *
 * Each edit reads the brushes' faces and cuts in memory "solids": the planes bounding a
 * convex solid, each with the face row whose material and texture it takes. Faces are cut
 * as the compiler builds brushes (al_brush_face_points), a face whose polygon keeps no
 * area is dropped, and a solid thinner than AL_ON_EPSILON counts as nothing. The results
 * are written back as brushes: a brush's first result into its own row (its id, entity and
 * place in the map stay), further ones into new rows after the entity's brushes. Every
 * brush written is checked by the compiler's brush builder (al_doc_update_bounds), so an
 * edit never stores a brush the compiler would refuse; if one fails the edit rolls back.
 *
 * Workload: interactive. A solid of n planes costs n^2 polygon clips to measure;
 * subtracting a cutter of m faces measures m + 1 solids per piece. Clipping all 1,257
 * brushes of e1m1 by one plane (61 of them split) takes about 50 ms in one edit
 * (tests/data/test-doc.c).
 */
#include "doc-internal.h"

#include "al-epsilon.h"
#include "al-vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_FACE_AREA 1e-3 /* square units; a face with less touches its solid at an edge */

/* A corner of a brush this far (units) outside a plane still counts as behind it when
 * merging: the merged brush may differ from the union by a layer this thin. */
#define MERGE_TOLERANCE 1e-3

/* One face of a solid. */
typedef struct cut_face {
    /* row.id: the face row whose material and texture the face takes, 0 for none (then
     * MATERIAL, with default texture parameters); row.points: the points to store. */
    al_doc_brush_face row;
    bool flipped;     /* faces the other way from row.id's face: its points reversed */
    int64_t material; /* materials.id, for a face without a row */
} cut_face;

typedef struct solid {
    int count;
    double volume, area; /* cubic and square units, measured by trim_solid */
    cut_face faces[AL_BRUSH_MAX_FACES];
} solid;

typedef struct solid_list {
    solid *items;
    int count, capacity;
} solid_list;

typedef struct id_list {
    int64_t *items;
    int count, capacity;
} id_list;

typedef struct point_list {
    double (*items)[3];
    int count, capacity;
} point_list;

bool al_doc_face_touches(const al_plane *planes, int count, int j)
{
    double points[AL_BRUSH_POLYGON_MAX][3];
    int n = al_brush_face_points(planes, NULL, count, j, points);
    return n >= 3 && al_points_area((const double(*)[3]) points, n) > MIN_FACE_AREA;
}

int al_doc_read_brush_faces(al_doc *doc, int64_t brush, al_doc_brush_face *faces)
{
    static const char *sql = "SELECT id, position, x0, y0, z0, x1, y1, z1, x2, y2, z2 "
                             "FROM faces WHERE brush = ? ORDER BY position";
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return -1;
    sqlite3_bind_int64(s, 1, brush);
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && n < AL_BRUSH_MAX_FACES) {
        al_doc_brush_face *f = &faces[n];
        f->id = sqlite3_column_int64(s, 0);
        f->position = sqlite3_column_int(s, 1);
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(s, 2 + i);
        if (al_plane_from_points(f->points[0], f->points[1], f->points[2], f->plane.normal,
                                 &f->plane.dist)) {
            f->plane.type = al_plane_type(f->plane.normal);
            n++;
        }
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

static bool add_id(id_list *l, int64_t id)
{
    if (!al_doc_grow((void **) &l->items, &l->capacity, l->count, sizeof *l->items)) return false;
    l->items[l->count++] = id;
    return true;
}

static bool add_solid(solid_list *l, const solid *s)
{
    if (!al_doc_grow((void **) &l->items, &l->capacity, l->count, sizeof *l->items)) return false;
    l->items[l->count++] = *s;
    return true;
}

static bool listed_before(const int64_t *ids, int i)
{
    for (int j = 0; j < i; j++)
        if (ids[j] == ids[i]) return true;
    return false;
}

/* Same plane and orientation, by the plane table's tolerances (geom/plane.c), so that two
 * faces kept apart here are not merged into one when the compiler builds the brush. */
static bool same_plane(const al_plane *a, const al_plane *b)
{
    return fabs(a->dist - b->dist) < AL_DIST_EPSILON &&
           fabs(a->normal[0] - b->normal[0]) < AL_NORMAL_EPSILON &&
           fabs(a->normal[1] - b->normal[1]) < AL_NORMAL_EPSILON &&
           fabs(a->normal[2] - b->normal[2]) < AL_NORMAL_EPSILON;
}

/* F turned around: its points in the other order, so its plane faces the other way. */
static cut_face flip_face(const cut_face *f)
{
    cut_face r = *f;
    for (int p = 0; p < 3; p++) al_copy(f->row.points[2 - p], r.row.points[p]);
    al_plane *plane = &r.row.plane;
    if (!al_plane_from_points(r.row.points[0], r.row.points[1], r.row.points[2], plane->normal,
                              &plane->dist)) {
        al_scale(f->row.plane.normal, -1.0, plane->normal);
        plane->dist = -f->row.plane.dist;
    }
    plane->type = al_plane_type(plane->normal);
    r.flipped = !f->flipped;
    return r;
}

static bool add_face(solid *s, const cut_face *f)
{
    if (s->count == AL_BRUSH_MAX_FACES) return false;
    s->faces[s->count++] = *f;
    return true;
}

/* Keeps the faces that bound S, dropping one on the same plane as an earlier face and
 * those that touch the solid at most along an edge, and measures what is left: its volume
 * and surface area (by the divergence theorem about one of its corners, so large
 * coordinates cancel). Appends its polygons' points to CORNERS when not NULL. Returns false
 * if memory runs out. */
static bool trim_solid(solid *s, point_list *corners)
{
    al_plane planes[AL_BRUSH_MAX_FACES];
    int n = 0;
    for (int i = 0; i < s->count; i++) {
        bool again = false;
        for (int j = 0; j < n && !again; j++)
            again = same_plane(&planes[j], &s->faces[i].row.plane);
        if (again) continue;
        s->faces[n] = s->faces[i];
        planes[n++] = s->faces[i].row.plane;
    }
    double points[AL_BRUSH_POLYGON_MAX][3], origin[3] = {0, 0, 0};
    int kept = 0;
    s->volume = s->area = 0;
    for (int j = 0; j < n; j++) {
        int count = al_brush_face_points(planes, NULL, n, j, points);
        double area = count >= 3 ? al_points_area((const double(*)[3]) points, count) : 0;
        if (!(area > MIN_FACE_AREA)) continue;
        if (kept == 0) al_copy(points[0], origin);
        s->area += area;
        s->volume += (planes[j].dist - al_dot(planes[j].normal, origin)) * area / 3.0;
        s->faces[kept++] = s->faces[j];
        if (!corners) continue;
        for (int i = 0; i < count; i++) {
            if (!al_doc_grow((void **) &corners->items, &corners->capacity, corners->count,
                             sizeof *corners->items))
                return false;
            al_copy(points[i], corners->items[corners->count++]);
        }
    }
    s->count = kept;
    return true;
}

/* Whether a trimmed solid is too thin to be a brush: less than the compiler's least volume,
 * or thinner than AL_ON_EPSILON (3 V / A is about the thickness of a slab; the compiler
 * would merge its two sides into one plane). */
static bool too_thin(const solid *s)
{
    return s->count < 4 || !(s->volume >= AL_BRUSH_MIN_VOLUME) ||
           !(3 * s->volume > AL_ON_EPSILON * s->area);
}

static al_status no_such_brush(int64_t brush, al_diag_list *diags)
{
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                "brush %lld does not exist", (long long) brush);
    return AL_ERR_NOT_FOUND;
}

static al_status too_many_faces(int64_t brush, al_diag_list *diags)
{
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                "brush %lld: a piece of it would have more than %d faces", (long long) brush,
                AL_BRUSH_MAX_FACES);
    return AL_ERR_INVALID_ARGUMENT;
}

/* BRUSH's faces as a trimmed solid, with its corners appended to CORNERS when not NULL.
 * Fails with a diagnostic for an unknown brush or one that is not a valid solid. */
static al_status read_solid(al_doc *doc, int64_t brush, solid *s, point_list *corners,
                            al_diag_list *diags)
{
    if (!al_doc_brush_exists(doc, brush)) return no_such_brush(brush, diags);
    al_doc_brush_face faces[AL_BRUSH_MAX_FACES];
    int n = al_doc_read_brush_faces(doc, brush, faces);
    if (n < 0) return AL_ERR_IO;
    s->count = 0;
    for (int i = 0; i < n; i++) s->faces[s->count++] = (cut_face){.row = faces[i]};
    double mins[3], maxs[3];
    bool valid = al_doc_brush_box(doc, brush, mins, maxs);
    if (valid && !trim_solid(s, corners)) return AL_ERR_NOMEM;
    if (!valid || too_thin(s)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                    "brush %lld is not a valid solid, so it cannot be cut", (long long) brush);
        return AL_ERR_INVALID_ARGUMENT;
    }
    return AL_OK;
}

/* Makes BRUSH's faces those of S, checks the result with the compiler, and notes it.
 * BRUSH's own faces that S keeps stay as they are, renumbered in order; the others are
 * deleted, and S's other faces follow (copied from their rows while those still exist).
 * NAMED is the brush the diagnostic names if the result is not a valid brush. */
static al_status write_solid(al_doc *doc, int64_t brush, const solid *s, int64_t named,
                             al_diag_list *diags)
{
    static const char *rows = "SELECT id, position FROM faces WHERE brush = ? ORDER BY position";
    static const char *drop = "DELETE FROM faces WHERE id = ?";
    static const char *renumber = "UPDATE faces SET position = ? WHERE id = ?";
    struct {
        int64_t id;
        int position;
        bool kept;
    } old[AL_BRUSH_MAX_FACES];
    int n = 0, rc;
    sqlite3_stmt *st = al_doc_prepare(doc, rows);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, brush);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < AL_BRUSH_MAX_FACES) {
        old[n].id = sqlite3_column_int64(st, 0);
        old[n].position = sqlite3_column_int(st, 1);
        old[n++].kept = false;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return AL_ERR_IO; /* a row past the limit: not a valid brush */
    bool placed[AL_BRUSH_MAX_FACES] = {false};
    int kept = 0;
    for (int r = 0; r < n; r++)
        for (int f = 0; f < s->count && !old[r].kept; f++)
            if (!placed[f] && !s->faces[f].flipped && s->faces[f].row.id == old[r].id) {
                placed[f] = old[r].kept = true;
                kept++;
            }
    int position = kept;
    for (int f = 0; f < s->count; f++) {
        const cut_face *c = &s->faces[f];
        if (placed[f]) continue;
        bool ok;
        if (c->row.id) {
            ok = al_doc_copy_face(doc, c->row.id, brush, position++,
                                  (const double(*)[3]) c->row.points, !c->flipped);
        } else {
            al_doc_face face = {.scale = {1, 1}};
            memcpy(face.points, c->row.points, sizeof face.points);
            ok = al_doc_insert_face(doc, brush, position++, c->material, &face);
        }
        if (!ok) return AL_ERR_IO;
    }
    position = 0;
    for (int r = 0; r < n; r++) {
        if (old[r].kept && old[r].position == position) {
            position++;
            continue;
        }
        st = al_doc_prepare(doc, old[r].kept ? renumber : drop);
        if (!st) return AL_ERR_IO;
        if (old[r].kept) sqlite3_bind_int(st, 1, position++);
        sqlite3_bind_int64(st, old[r].kept ? 2 : 1, old[r].id);
        if (sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    }
    if (!al_doc_update_bounds(doc, brush, diags)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_INVALID_BRUSH, -1, -1, -1, -1, -1,
                    "brush %lld: a piece cut from it is not a valid brush", (long long) named);
        return AL_ERR_INVALID_ARGUMENT;
    }
    al_doc_note_brush(doc, brush);
    return AL_OK;
}

/* Replaces BRUSH by the solids PIECES (none: deletes it): the first into BRUSH's row, the
 * others into new brushes after it. Their ids are appended to IDS. */
static al_status replace_brush(al_doc *doc, int64_t brush, const solid *pieces, int count,
                               id_list *ids, al_diag_list *diags)
{
    al_doc_note_brush(doc, brush);
    if (count == 0) return al_doc_delete_brush_row(doc, brush);
    if (!add_id(ids, brush)) return AL_ERR_NOMEM;
    /* The new brushes first: they copy faces of BRUSH that the first piece may drop. */
    for (int i = 1; i < count; i++) {
        int64_t piece = 0;
        al_status st = al_doc_new_brush_like(doc, brush, &piece);
        if (st == AL_OK) st = write_solid(doc, piece, &pieces[i], brush, diags);
        if (st == AL_OK && !add_id(ids, piece)) st = AL_ERR_NOMEM;
        if (st != AL_OK) return st;
    }
    return write_solid(doc, brush, &pieces[0], brush, diags);
}

/* Hands the ids of an edit's resulting brushes to the caller (when it succeeded). */
static al_status hand_out(al_status st, id_list *ids, int64_t **new_ids, int *new_count)
{
    if (new_count) *new_count = st == AL_OK ? ids->count : 0;
    if (new_ids) *new_ids = st == AL_OK ? ids->items : NULL;
    if (st != AL_OK || !new_ids) free(ids->items);
    return st;
}

/* --- clip ------------------------------------------------------------------------------ */

/* The face the clip plane through POINTS makes on the part behind it, or a diagnostic. */
static al_status clip_face(const double points[3][3], cut_face *cap, al_diag_list *diags)
{
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(points[p][k]) || fabs(points[p][k]) > AL_COORD_MAX) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                            "clip plane: point %d is not a finite number within +-%g", p + 1,
                            AL_COORD_MAX);
                return AL_ERR_INVALID_ARGUMENT;
            }
    memset(cap, 0, sizeof *cap);
    memcpy(cap->row.points, points, sizeof cap->row.points);
    al_plane *plane = &cap->row.plane;
    if (!al_plane_from_points(points[0], points[1], points[2], plane->normal, &plane->dist)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "clip plane: the three points are collinear or coincide, so they define "
                    "no plane");
        return AL_ERR_INVALID_ARGUMENT;
    }
    plane->type = al_plane_type(plane->normal);
    return AL_OK;
}

/* The material of the face of S whose normal is nearest NORMAL (S's first face on ties). */
static int64_t nearest_material(al_doc *doc, const solid *s, const double normal[3])
{
    static const char *sql = "SELECT material FROM faces WHERE id = ?";
    int best = 0;
    for (int f = 1; f < s->count; f++)
        if (al_dot(s->faces[f].row.plane.normal, normal) >
            al_dot(s->faces[best].row.plane.normal, normal))
            best = f;
    return al_doc_query_id(doc, sql, s->faces[best].row.id);
}

/* Clips BRUSH (the solid S) by the plane of CAP; PARTS is room for its two parts. */
static al_status clip_brush(al_doc *doc, int64_t brush, const solid *s, const cut_face *cap,
                            al_doc_clip_keep keep, solid parts[2], id_list *ids,
                            al_diag_list *diags)
{
    /* parts[0] lies behind the plane, parts[1] in front. */
    bool empty[2];
    for (int side = 0; side < 2; side++) {
        cut_face face = side ? flip_face(cap) : *cap;
        face.material = nearest_material(doc, s, face.row.plane.normal);
        if (face.material < 0) return AL_ERR_IO;
        parts[side] = *s;
        if (!add_face(&parts[side], &face)) return too_many_faces(brush, diags);
        if (!trim_solid(&parts[side], NULL)) return AL_ERR_NOMEM;
        empty[side] = too_thin(&parts[side]);
    }
    bool keep_back = keep != AL_DOC_CLIP_FRONT, keep_front = keep != AL_DOC_CLIP_BACK;
    if (empty[0] || empty[1]) {
        /* All on one side: kept whole or deleted. */
        bool kept = empty[0] && empty[1] ? true : empty[1] ? keep_back : keep_front;
        if (kept) return add_id(ids, brush) ? AL_OK : AL_ERR_NOMEM;
        return replace_brush(doc, brush, NULL, 0, ids, diags);
    }
    if (keep == AL_DOC_CLIP_BOTH) return replace_brush(doc, brush, parts, 2, ids, diags);
    return replace_brush(doc, brush, &parts[keep_back ? 0 : 1], 1, ids, diags);
}

al_status al_doc_clip_brushes(al_doc *doc, const int64_t *ids, int count, const double points[3][3],
                              al_doc_clip_keep keep, int64_t **new_ids, int *new_count,
                              al_doc_change *change, al_diag_list *diags)
{
    id_list out = {0};
    cut_face cap;
    al_status st = clip_face(points, &cap, diags);
    if (st == AL_OK && (keep < AL_DOC_CLIP_FRONT || keep > AL_DOC_CLIP_BOTH || count < 0)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "clip: %d brushes, keeping part %d", count, (int) keep);
        st = AL_ERR_INVALID_ARGUMENT;
    }
    if (st != AL_OK) return hand_out(st, &out, new_ids, new_count);
    st = al_doc_edit_begin(doc, count == 1 ? "Clip brush" : "Clip brushes");
    if (st != AL_OK) return hand_out(st, &out, new_ids, new_count);
    solid *work = malloc(3 * sizeof *work); /* the brush and its two parts */
    if (!work) st = AL_ERR_NOMEM;
    for (int i = 0; i < count && st == AL_OK; i++) {
        if (listed_before(ids, i)) continue;
        st = read_solid(doc, ids[i], &work[0], NULL, diags);
        if (st == AL_OK) st = clip_brush(doc, ids[i], &work[0], &cap, keep, &work[1], &out, diags);
    }
    free(work);
    return hand_out(al_doc_edit_end(doc, st, change), &out, new_ids, new_count);
}

/* --- subtract -------------------------------------------------------------------------- */

/* Appends to OUT the convex pieces of P outside the solid C: for C's faces f1..fn, P in
 * front of fi and behind f1..f(i-1); pieces too thin to be brushes are left out. When P and
 * C do not overlap with some volume, P itself is appended and *OVERLAP is false. BRUSH is
 * the brush P comes from, for diagnostics. */
static al_status subtract_solid(const solid *p, const solid *c, int64_t brush, solid_list *out,
                                bool *overlap, al_diag_list *diags)
{
    solid *q = malloc(sizeof *q);
    if (!q) return AL_ERR_NOMEM;
    al_status st = AL_OK;
    *q = *p;
    for (int f = 0; f < c->count && st == AL_OK; f++)
        if (!add_face(q, &c->faces[f])) st = too_many_faces(brush, diags);
    if (st == AL_OK && !trim_solid(q, NULL)) st = AL_ERR_NOMEM;
    *overlap = st == AL_OK && !too_thin(q);
    if (st == AL_OK && !*overlap && !add_solid(out, p)) st = AL_ERR_NOMEM;
    for (int i = 0; i < c->count && st == AL_OK && *overlap; i++) {
        *q = *p;
        cut_face outside = flip_face(&c->faces[i]);
        bool room = add_face(q, &outside);
        for (int j = 0; j < i && room; j++) room = add_face(q, &c->faces[j]);
        if (!room)
            st = too_many_faces(brush, diags);
        else if (!trim_solid(q, NULL))
            st = AL_ERR_NOMEM;
        else if (!too_thin(q) && !add_solid(out, q))
            st = AL_ERR_NOMEM;
    }
    free(q);
    return st;
}

/* Cuts the solid S (of BRUSH) by each of the solids CUTTERS in turn (those whose BOXES meet
 * BOX, when BOXES is not NULL) into *PIECES (emptied first); *CUT says whether any cutter
 * overlapped. */
static al_status subtract_all(const solid *s, const solid *cutters, const double (*boxes)[2][3],
                              int cutter_count, const double box[2][3], int64_t brush,
                              solid_list *pieces, bool *cut, al_diag_list *diags)
{
    solid_list next = {0};
    pieces->count = 0;
    *cut = false;
    al_status st = add_solid(pieces, s) ? AL_OK : AL_ERR_NOMEM;
    for (int c = 0; c < cutter_count && st == AL_OK; c++) {
        if (boxes && !al_bounds_overlap(box[0], box[1], boxes[c][0], boxes[c][1], -AL_ON_EPSILON))
            continue;
        next.count = 0;
        for (int p = 0; p < pieces->count && st == AL_OK; p++) {
            bool overlap = false;
            st = subtract_solid(&pieces->items[p], &cutters[c], brush, &next, &overlap, diags);
            *cut |= overlap;
        }
        solid_list t = *pieces;
        *pieces = next;
        next = t;
    }
    free(next.items);
    return st;
}

al_status al_doc_subtract_brushes(al_doc *doc, const int64_t *targets, int target_count,
                                  const int64_t *cutters, int cutter_count, int64_t **new_ids,
                                  int *new_count, al_doc_change *change, al_diag_list *diags)
{
    id_list out = {0};
    if (target_count < 0 || cutter_count < 0)
        return hand_out(AL_ERR_INVALID_ARGUMENT, &out, new_ids, new_count);
    al_status st = al_doc_edit_begin(doc, "Subtract brushes");
    if (st != AL_OK) return hand_out(st, &out, new_ids, new_count);
    solid *cut = malloc(((size_t) cutter_count + 1) * sizeof *cut);
    double(*boxes)[2][3] = malloc(((size_t) cutter_count + 1) * sizeof *boxes);
    solid *target = malloc(sizeof *target);
    solid_list pieces = {0};
    if (!cut || !boxes || !target) st = AL_ERR_NOMEM;
    for (int c = 0; c < cutter_count && st == AL_OK; c++) {
        st = read_solid(doc, cutters[c], &cut[c], NULL, diags);
        if (st == AL_OK) al_doc_brush_box(doc, cutters[c], boxes[c][0], boxes[c][1]);
    }
    for (int t = 0; t < target_count && st == AL_OK; t++)
        for (int c = 0; c < cutter_count && st == AL_OK; c++)
            if (targets[t] == cutters[c]) {
                al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                            "brush %lld is both a target and a cutter", (long long) targets[t]);
                st = AL_ERR_INVALID_ARGUMENT;
            }
    for (int t = 0; t < target_count && st == AL_OK; t++) {
        if (listed_before(targets, t)) continue;
        double box[2][3];
        bool cut_any = false;
        st = read_solid(doc, targets[t], target, NULL, diags);
        if (st == AL_OK) {
            al_doc_brush_box(doc, targets[t], box[0], box[1]);
            st = subtract_all(target, cut, (const double(*)[2][3]) boxes, cutter_count,
                              (const double(*)[3]) box, targets[t], &pieces, &cut_any, diags);
        }
        if (st == AL_OK && !cut_any)
            st = add_id(&out, targets[t]) ? AL_OK : AL_ERR_NOMEM;
        else if (st == AL_OK)
            st = replace_brush(doc, targets[t], pieces.items, pieces.count, &out, diags);
    }
    free(pieces.items);
    free(target);
    free(boxes);
    free(cut);
    return hand_out(al_doc_edit_end(doc, st, change), &out, new_ids, new_count);
}

/* --- merge ----------------------------------------------------------------------------- */

/* The volume of the union of the COUNT solids S: each one's part outside all before it. */
static al_status union_volume(const solid *s, int count, double *volume, al_diag_list *diags)
{
    solid_list pieces = {0};
    al_status st = AL_OK;
    *volume = 0;
    for (int i = 0; i < count && st == AL_OK; i++) {
        bool cut;
        st = subtract_all(&s[i], s, NULL, i, NULL, 0, &pieces, &cut, diags);
        for (int p = 0; p < pieces.count && st == AL_OK; p++) *volume += pieces.items[p].volume;
    }
    free(pieces.items);
    return st;
}

/* Into HULL, the solid bounded by those face planes of the COUNT solids S that have every
 * point of CORNERS behind them (within MERGE_TOLERANCE): it holds their union, and is
 * their union when that is convex (whose faces all lie on faces of the solids). */
static al_status hull_of(const solid *s, int count, const point_list *corners, solid *hull,
                         point_list *hull_corners)
{
    hull->count = 0;
    for (int b = 0; b < count; b++)
        for (int f = 0; f < s[b].count; f++) {
            const cut_face *face = &s[b].faces[f];
            bool bounds = true, again = false;
            for (int i = 0; i < corners->count && bounds; i++)
                bounds = al_dot(face->row.plane.normal, corners->items[i]) - face->row.plane.dist <=
                         MERGE_TOLERANCE;
            for (int h = 0; h < hull->count && !again; h++)
                again = same_plane(&hull->faces[h].row.plane, &face->row.plane);
            if (bounds && !again && !add_face(hull, face)) return AL_ERR_LIMIT;
        }
    return trim_solid(hull, hull_corners) ? AL_OK : AL_ERR_NOMEM;
}

/* Whether the solid HULL with corners CORNERS is bounded and its volume is UNION's. */
static bool hull_is_union(const solid *hull, const point_list *corners, double union_volume)
{
    for (int i = 0; i < corners->count; i++)
        for (int k = 0; k < 3; k++)
            if (fabs(corners->items[i][k]) > AL_COORD_MAX) return false;
    return !too_thin(hull) &&
           fabs(hull->volume - union_volume) <= MERGE_TOLERANCE * hull->area + AL_BRUSH_MIN_VOLUME;
}

/* Reads the brushes IDS (COUNT unique ids of one entity) into S, their corners into
 * CORNERS. */
static al_status read_for_merge(al_doc *doc, const int64_t *ids, int count, solid *s,
                                point_list *corners, al_diag_list *diags)
{
    for (int i = 0; i < count; i++) {
        al_status st = read_solid(doc, ids[i], &s[i], corners, diags);
        if (st != AL_OK) return st;
        if (listed_before(ids, i)) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld is listed twice", (long long) ids[i]);
            return AL_ERR_INVALID_ARGUMENT;
        }
        if (al_doc_brush_entity(doc, ids[i]) != al_doc_brush_entity(doc, ids[0])) {
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld belongs to another entity than brush %lld", (long long) ids[i],
                        (long long) ids[0]);
            return AL_ERR_INVALID_ARGUMENT;
        }
    }
    return AL_OK;
}

al_status al_doc_merge_brushes(al_doc *doc, const int64_t *ids, int count, int64_t *merged_id,
                               al_doc_change *change, al_diag_list *diags)
{
    if (count < 2) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "merging needs two brushes or more, %d given", count);
        return AL_ERR_INVALID_ARGUMENT;
    }
    al_status st = al_doc_edit_begin(doc, "Merge brushes");
    if (st != AL_OK) return st;
    solid *s = malloc(((size_t) count + 1) * sizeof *s); /* the brushes, then the hull */
    point_list corners = {0}, hull_corners = {0};
    double volume = 0;
    if (!s) st = AL_ERR_NOMEM;
    if (st == AL_OK) st = read_for_merge(doc, ids, count, s, &corners, diags);
    if (st == AL_OK) st = hull_of(s, count, &corners, &s[count], &hull_corners);
    if (st == AL_ERR_LIMIT) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                    "brush %lld and %d more: the merged brush would have more than %d faces",
                    (long long) ids[0], count - 1, AL_BRUSH_MAX_FACES);
        st = AL_ERR_INVALID_ARGUMENT;
    }
    if (st == AL_OK) st = union_volume(s, count, &volume, diags);
    if (st == AL_OK && !hull_is_union(&s[count], &hull_corners, volume)) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                    "brush %lld and %d more: the brushes' union is not convex", (long long) ids[0],
                    count - 1);
        st = AL_ERR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < count && st == AL_OK; i++) al_doc_note_brush(doc, ids[i]);
    if (st == AL_OK) st = write_solid(doc, ids[0], &s[count], ids[0], diags);
    for (int i = 1; i < count && st == AL_OK; i++) st = al_doc_delete_brush_row(doc, ids[i]);
    free(corners.items);
    free(hull_corners.items);
    free(s);
    st = al_doc_edit_end(doc, st, change);
    if (st == AL_OK && merged_id) *merged_id = ids[0];
    return st;
}
