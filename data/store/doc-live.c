/* The document as the live engine's changes (see document.h): after an edit, the rows it
 * changed, read back with their content; on open, the whole map.
 *
 * Workload: an edit names a few brushes and entities, each read with two indexed queries
 * (its row, its faces); the whole map comes from al_doc_build_input (doc-input.c), the one
 * reader of a whole document, turned into a change.
 */
#include "doc-internal.h"

#include "mapfile/texture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Growable arrays of the change being read, and its strings. */
typedef struct reader {
    al_live_entity *entities;
    int entity_count, entity_cap;
    al_live_brush *brushes;
    int brush_count, brush_cap;
    al_live_face *faces;
    int face_count, face_cap;
    al_property *props;
    int prop_count, prop_cap;
    char **texts; /* each malloc'd */
    int text_count, text_cap;
    al_material_desc *materials;
    int64_t *material_ids;
    int material_count;
    al_hull_desc *hulls;
    int hull_count;
    bool failed;
} reader;

/* What al_doc_live.storage owns. */
typedef struct storage {
    reader r;
    al_doc_input whole; /* for a whole-map read: its strings are the change's */
} storage;

static const char *keep_text(reader *r, const char *text)
{
    if (!text) text = "";
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (!copy || !al_doc_grow((void **) &r->texts, &r->text_cap, r->text_count, sizeof *r->texts)) {
        free(copy);
        r->failed = true;
        return "";
    }
    memcpy(copy, text, n);
    r->texts[r->text_count++] = copy;
    return copy;
}

static void free_reader(reader *r)
{
    for (int i = 0; i < r->text_count; i++) free(r->texts[i]);
    free(r->texts), free(r->entities), free(r->brushes), free(r->faces), free(r->props);
    free(r->materials), free(r->material_ids), free(r->hulls);
    memset(r, 0, sizeof *r);
}

void al_doc_live_free(al_doc_live *live)
{
    if (!live) return;
    storage *s = live->storage;
    if (s) {
        free_reader(&s->r);
        al_doc_input_free(&s->whole);
        free(s);
    }
    memset(live, 0, sizeof *live);
}

/* The world comes first, whatever its position. */
static double entity_order(int64_t id, double position)
{
    return id == 0 ? -HUGE_VAL : position;
}

static void add_property(void *user, const char *key, const char *value)
{
    reader *r = user;
    if (!al_doc_grow((void **) &r->props, &r->prop_cap, r->prop_count, sizeof *r->props)) {
        r->failed = true;
        return;
    }
    r->props[r->prop_count++] = (al_property){keep_text(r, key), keep_text(r, value)};
}

/* Entity ID as it is now: added, or removed when the row is gone. Its properties' index
 * into r->props is kept in property_count's place until the arrays stop moving (fix). */
static al_status read_entity(al_doc *doc, reader *r, int64_t id, al_diag_list *diags)
{
    static const char *sql = "SELECT position, classname, properties FROM entities WHERE id = ?";
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    if (!al_doc_grow((void **) &r->entities, &r->entity_cap, r->entity_count, sizeof *r->entities))
        return AL_ERR_NOMEM;
    al_live_entity *e = &r->entities[r->entity_count++];
    *e = (al_live_entity){.id = id, .removed = true};
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        e->removed = false;
        e->order = entity_order(id, sqlite3_column_double(st, 0));
        e->classname = keep_text(r, (const char *) sqlite3_column_text(st, 1));
        int first = r->prop_count;
        if (al_doc_parse_properties((const char *) sqlite3_column_text(st, 2), add_property, r) < 0)
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, -1, -1, -1, -1, -1,
                        "entity %lld (%s): its properties are not a JSON object and were left out",
                        (long long) id, e->classname);
        /* Pointers once every row is in: the array may still move. */
        e->properties = (const al_property *) (intptr_t) first;
        e->property_count = r->prop_count - first;
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

/* Brush ID as it is now, with its faces (their index into r->faces kept in the faces
 * pointer's place until the arrays stop moving), or its removal. */
static al_status read_brush(al_doc *doc, reader *r, int64_t id)
{
    static const char *brush_sql = "SELECT entity, position FROM brushes WHERE id = ?";
    static const char *faces_sql =
        "SELECT f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, f.x2, f.y2, f.z2, "
        "f.material, " AL_DOC_TEXTURE_COLUMNS " FROM faces f WHERE f.brush = ? ORDER BY f.position";
    sqlite3_stmt *st = al_doc_prepare(doc, brush_sql);
    if (!st) return AL_ERR_IO;
    if (!al_doc_grow((void **) &r->brushes, &r->brush_cap, r->brush_count, sizeof *r->brushes))
        return AL_ERR_NOMEM;
    al_live_brush *b = &r->brushes[r->brush_count++];
    *b = (al_live_brush){.id = id, .removed = true};
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        b->removed = false;
        b->entity = sqlite3_column_int64(st, 0);
        b->order = sqlite3_column_double(st, 1);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? AL_OK : AL_ERR_IO;
    st = al_doc_prepare(doc, faces_sql);
    if (!st) return AL_ERR_IO;
    int first = r->face_count;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) &r->faces, &r->face_cap, r->face_count, sizeof *r->faces)) {
            sqlite3_reset(st);
            return AL_ERR_NOMEM;
        }
        al_live_face *f = &r->faces[r->face_count++];
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(st, i);
        f->material = sqlite3_column_int64(st, 9);
        f->luxel_size = 0;
        al_doc_face_axes(st, 10, (const double (*)[3]) f->points, f->texture_axes);
    }
    sqlite3_reset(st);
    b->faces = (const al_live_face *) (intptr_t) first;
    b->face_count = r->face_count - first;
    return rc == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

static al_status read_materials(al_doc *doc, reader *r)
{
    sqlite3_stmt *st = al_doc_prepare(doc, al_doc_material_select);
    if (!st) return AL_ERR_IO;
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int cap_ids = cap;
        if (!al_doc_grow((void **) &r->materials, &cap, r->material_count, sizeof *r->materials) ||
            !al_doc_grow((void **) &r->material_ids, &cap_ids, r->material_count,
                         sizeof *r->material_ids)) {
            sqlite3_reset(st);
            return AL_ERR_NOMEM;
        }
        al_material_desc *m = &r->materials[r->material_count];
        memset(m, 0, sizeof *m);
        float colour[3];
        r->material_ids[r->material_count] = sqlite3_column_int64(st, 0);
        m->name = keep_text(r, (const char *) sqlite3_column_text(st, 1));
        al_doc_material_row(st, m, colour);
        r->material_count++;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

static al_status read_hulls(al_doc *doc, reader *r)
{
    sqlite3_stmt *st = al_doc_prepare(doc, al_doc_hull_select);
    if (!st) return AL_ERR_IO;
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) &r->hulls, &cap, r->hull_count, sizeof *r->hulls)) {
            sqlite3_reset(st);
            return AL_ERR_NOMEM;
        }
        al_doc_hull_row(st, &r->hulls[r->hull_count++]);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

/* The change of what CHANGE names, into R. */
static al_status read_rows(al_doc *doc, const al_doc_change *c, reader *r, al_live_change *out,
                           al_diag_list *diags)
{
    al_status st = AL_OK;
    for (int i = 0; st == AL_OK && i < c->entity_count; i++)
        st = read_entity(doc, r, c->entities[i], diags);
    for (int i = 0; st == AL_OK && i < c->brush_count; i++) st = read_brush(doc, r, c->brushes[i].brush);
    if (st == AL_OK && c->materials) st = read_materials(doc, r);
    if (st == AL_OK && c->settings) st = read_hulls(doc, r);
    if (st != AL_OK) return st;
    if (r->failed) return AL_ERR_NOMEM;
    /* The arrays stopped moving: the indices kept become pointers. */
    for (int i = 0; i < r->entity_count; i++)
        if (!r->entities[i].removed)
            r->entities[i].properties = r->props + (intptr_t) r->entities[i].properties;
    for (int i = 0; i < r->brush_count; i++)
        if (!r->brushes[i].removed) r->brushes[i].faces = r->faces + (intptr_t) r->brushes[i].faces;
    *out = (al_live_change){.entities = r->entities, .entity_count = r->entity_count,
                            .brushes = r->brushes, .brush_count = r->brush_count,
                            .set_materials = c->materials, .materials = r->materials,
                            .material_ids = r->material_ids, .material_count = r->material_count,
                            .set_hulls = c->settings, .hulls = r->hulls,
                            .hull_count = r->hull_count, .set_block_size = c->settings,
                            .block_size = c->settings ? al_doc_block_size(doc) : 0};
    return AL_OK;
}

/* The whole map, from the one whole-document reader. */
static al_status read_whole(al_doc *doc, storage *s, al_live_change *out, al_diag_list *diags)
{
    al_status st = al_doc_build_input(doc, &s->whole, diags);
    if (st != AL_OK) return st;
    const al_doc_input *w = &s->whole;
    const al_input *in = &w->input;
    reader *r = &s->r;
    r->entities = calloc((size_t) in->entity_count + 1, sizeof *r->entities);
    r->brushes = calloc((size_t) in->brush_count + 1, sizeof *r->brushes);
    r->faces = calloc((size_t) in->face_count + 1, sizeof *r->faces);
    if (!r->entities || !r->brushes || !r->faces) return AL_ERR_NOMEM;
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *d = &in->entities[e];
        r->entities[e] = (al_live_entity){.id = w->entity_ids[e],
                                          .order = entity_order(w->entity_ids[e], w->entity_order[e]),
                                          .classname = d->classname, .properties = d->properties,
                                          .property_count = d->property_count};
    }
    for (int f = 0; f < in->face_count; f++) {
        memcpy(r->faces[f].points, in->faces[f].points, sizeof r->faces[f].points);
        int m = in->faces[f].material;
        r->faces[f].material = m >= 0 && m < in->material_count ? w->material_ids[m] : -1;
        r->faces[f].luxel_size = in->faces[f].luxel_size;
        memcpy(r->faces[f].texture_axes, in->faces[f].texture_axes,
               sizeof r->faces[f].texture_axes);
    }
    for (int b = 0; b < in->brush_count; b++) {
        const al_brush_desc *d = &in->brushes[b];
        r->brushes[b] = (al_live_brush){.id = w->brush_ids[b],
                                        .entity = w->entity_ids[d->entity],
                                        .order = w->brush_order[b],
                                        .faces = r->faces + d->first_face,
                                        .face_count = d->face_count};
    }
    *out = (al_live_change){.replace = true, .entities = r->entities,
                            .entity_count = in->entity_count, .brushes = r->brushes,
                            .brush_count = in->brush_count, .set_materials = true,
                            .materials = in->materials, .material_ids = w->material_ids,
                            .material_count = in->material_count, .set_hulls = true,
                            .hulls = in->hulls, .hull_count = in->hull_count,
                            .set_block_size = true, .block_size = in->block_size};
    return AL_OK;
}

al_status al_doc_live_read(al_doc *doc, const al_doc_change *change, al_doc_live *out,
                           al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    storage *s = calloc(1, sizeof *s);
    if (!s) return AL_ERR_NOMEM;
    out->storage = s;
    al_status st = change ? read_rows(doc, change, &s->r, &out->change, diags)
                          : read_whole(doc, s, &out->change, diags);
    if (st != AL_OK) al_doc_live_free(out);
    return st;
}

/* The texture projection AXES (texels: s = dot(p, axes[0]) + axes[0][3], t likewise) of a
 * face that M moves, kept on the face (the texture lock): each axis becomes L^-T a and its
 * offset loses dot(T, L^-T a), L the linear part of M and T its translation. A map
 * without an inverse leaves them. */
static void lock_axes(const double m[3][4], double axes[2][4])
{
    double a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][0], e = m[1][1], g = m[1][2],
           h = m[2][0], i = m[2][1], k = m[2][2];
    double det = a * (e * k - g * i) - b * (d * k - g * h) + c * (d * i - e * h);
    if (!(fabs(det) > 1e-12) || !isfinite(det)) return;
    /* Rows of L^-T: the cofactors over the determinant. */
    const double it[3][3] = {{(e * k - g * i) / det, (g * h - d * k) / det, (d * i - e * h) / det},
                             {(c * i - b * k) / det, (a * k - c * h) / det, (b * h - a * i) / det},
                             {(b * g - c * e) / det, (c * d - a * g) / det, (a * e - b * d) / det}};
    for (int r = 0; r < 2; r++) {
        double x[3];
        for (int q = 0; q < 3; q++)
            x[q] = it[q][0] * axes[r][0] + it[q][1] * axes[r][1] + it[q][2] * axes[r][2];
        axes[r][3] -= x[0] * m[0][3] + x[1] * m[1][3] + x[2] * m[2][3];
        for (int q = 0; q < 3; q++) axes[r][q] = x[q];
    }
}

void al_doc_live_transform(al_doc_live *live, const double m[3][4], bool texture_lock)
{
    storage *s = live->storage;
    if (!s) return;
    reader *r = &s->r;
    for (int i = 0; i < live->change.brush_count; i++) {
        al_live_brush *b = &r->brushes[i];
        if (b->removed) continue;
        for (int f = 0; f < b->face_count; f++) {
            al_live_face *face = (al_live_face *) &b->faces[f];
            double in[3][3];
            memcpy(in, face->points, sizeof in);
            al_doc_transform_face(m, (const double (*)[3]) in, face->points);
            if (texture_lock) lock_axes(m, face->texture_axes);
        }
    }
    /* A point entity moves where the map takes its origin (al_doc_move_entity). */
    for (int i = 0; i < live->change.entity_count; i++) {
        al_live_entity *e = &r->entities[i];
        for (int p = 0; !e->removed && p < e->property_count; p++) {
            al_property *prop = (al_property *) &e->properties[p];
            double o[3];
            if (strcmp(prop->key, "origin") != 0 ||
                sscanf(prop->value, "%lf %lf %lf", &o[0], &o[1], &o[2]) != 3)
                continue;
            char text[96];
            snprintf(text, sizeof text, "%.17g %.17g %.17g",
                     m[0][0] * o[0] + m[0][1] * o[1] + m[0][2] * o[2] + m[0][3],
                     m[1][0] * o[0] + m[1][1] * o[1] + m[1][2] * o[2] + m[1][3],
                     m[2][0] * o[0] + m[2][1] * o[1] + m[2][2] * o[2] + m[2][3]);
            prop->value = keep_text(r, text);
        }
    }
}

al_status al_doc_live_set_faces(al_doc *doc, al_doc_live *live, int index, const al_doc_face *faces,
                                int count)
{
    static const char *sql = "SELECT id FROM materials WHERE name = ?";
    storage *s = live->storage;
    if (!s || index < 0 || index >= live->change.brush_count || s->r.brushes[index].removed ||
        count < 1)
        return AL_ERR_INVALID_ARGUMENT;
    reader *r = &s->r;
    /* The faces' block is owned like the change's strings (texts are freed one by one). */
    al_live_face *out = calloc((size_t) count, sizeof *out);
    if (!out || !al_doc_grow((void **) &r->texts, &r->text_cap, r->text_count, sizeof *r->texts)) {
        free(out);
        return AL_ERR_NOMEM;
    }
    r->texts[r->text_count++] = (char *) out;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    for (int f = 0; f < count; f++) {
        memcpy(out[f].points, faces[f].points, sizeof out[f].points);
        sqlite3_bind_text(st, 1, faces[f].material ? faces[f].material : "", -1, SQLITE_STATIC);
        out[f].material = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        sqlite3_reset(st);
        al_map_face m = {.valve = faces[f].valve,
                         .u_offset = faces[f].u_offset,
                         .v_offset = faces[f].v_offset,
                         .rotation = faces[f].rotation};
        memcpy(m.points, faces[f].points, sizeof m.points);
        memcpy(m.u_axis, faces[f].u_axis, sizeof m.u_axis);
        memcpy(m.v_axis, faces[f].v_axis, sizeof m.v_axis);
        memcpy(m.offset, faces[f].offset, sizeof m.offset);
        memcpy(m.scale, faces[f].scale, sizeof m.scale);
        al_texture_axes(&m, out[f].texture_axes);
    }
    sqlite3_clear_bindings(st);
    r->brushes[index].faces = out;
    r->brushes[index].face_count = count;
    return AL_OK;
}
