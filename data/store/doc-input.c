/* The document as the compiler's input, its content key, and the compiled-results cache
 * (see document.h). The rows' readers here (materials, properties, hulls) serve the live
 * engine's reads of single rows too (doc-live.c).
 *
 * Workload: lq-e3m4 (1,301 entities, 3,441 brushes, 22,180 faces) reads in about 60 ms.
 * Everything the input points to lives in one allocation, sized by a first pass of counts.
 */
#include "doc-internal.h"

#include "al-world.h"
#include "materials/material-defaults.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct store {
    char *base;
    size_t used, size;
} store;

static void *take(store *s, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t) 15;
    if (s->used + bytes > s->size) return NULL;
    void *p = s->base + s->used;
    s->used += bytes;
    return p;
}

static char *take_string(store *s, const char *text)
{
    size_t n = strlen(text) + 1;
    char *p = take(s, n);
    if (p) memcpy(p, text, n);
    return p;
}

static int count_rows(al_doc *doc, const char *sql, int64_t *bytes)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(doc->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int n = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int(st, 0);
        if (bytes) *bytes = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return n;
}

const char *const al_doc_material_select =
    "SELECT id, name, flags, red, green, blue, reflectance, emit_red, emit_green, emit_blue, "
    "texture_red, texture_green, texture_blue FROM materials ORDER BY id";

void al_doc_material_row(sqlite3_stmt *st, al_material_desc *m, float colour[3])
{
    m->flags = (uint32_t) sqlite3_column_int64(st, 2);
    float texture[3];
    bool textured = true;
    for (int k = 0; k < 3; k++) {
        colour[k] = (float) sqlite3_column_double(st, 3 + k);
        m->emission[k] = (float) sqlite3_column_double(st, 7 + k); /* NULL reads 0 */
        textured = textured && sqlite3_column_type(st, 10 + k) != SQLITE_NULL;
        texture[k] = (float) sqlite3_column_double(st, 10 + k);
    }
    /* The radiosity reflects the texture's colour unless the designer chose one. */
    al_material_reflected_colour((const char *) sqlite3_column_text(st, 1), colour,
                                 textured ? texture : NULL, m->colour);
    m->reflectance = (float) sqlite3_column_double(st, 6); /* NULL: 0, from colour */
}

const char *const al_doc_hull_select =
    "SELECT name, minx, miny, minz, maxx, maxy, maxz FROM hulls ORDER BY position";

void al_doc_hull_row(sqlite3_stmt *st, al_hull_desc *h)
{
    snprintf(h->name, sizeof h->name, "%s", (const char *) sqlite3_column_text(st, 0));
    for (int k = 0; k < 3; k++) {
        h->mins[k] = sqlite3_column_double(st, 1 + k);
        h->maxs[k] = sqlite3_column_double(st, 4 + k);
    }
}

double al_doc_block_size(al_doc *doc)
{
    sqlite3_stmt *st;
    double block_size = 0;
    if (sqlite3_prepare_v2(doc->db, "SELECT value FROM settings WHERE key = 'block_size'", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW) block_size = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return block_size;
}

int al_doc_parse_properties(const char *json, void (*each)(void *user, const char *key, const char *value),
                            void *user)
{
    cJSON *root = cJSON_Parse(json ? json : "");
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return -1;
    }
    int n = 0;
    for (cJSON *item = root->child; item; item = item->next) {
        if (!cJSON_IsString(item)) continue;
        each(user, item->string, item->valuestring);
        n++;
    }
    cJSON_Delete(root);
    return n;
}

/* Where al_doc_build_input's property parse puts an entity's properties. */
typedef struct property_sink {
    store *s;
    al_property *props;
    int *next, cap;
    al_entity_desc *entity;
} property_sink;

static void add_property(void *user, const char *key, const char *value)
{
    property_sink *k = user;
    if (*k->next >= k->cap) return;
    k->props[*k->next].key = take_string(k->s, key);
    k->props[*k->next].value = take_string(k->s, value);
    (*k->next)++;
    k->entity->property_count++;
}

void al_doc_input_free(al_doc_input *in)
{
    if (!in) return;
    free(in->storage);
    memset(in, 0, sizeof *in);
}

/* --- brushes and faces ---------------------------------------------------------------- */

/* What read_geometry reads into (arrays sized by the counts) and finds. */
typedef struct geometry {
    const int64_t *entity_ids; /* in the entities' order */
    int entities;
    const int64_t *material_ids; /* ascending */
    int materials;
    al_brush_desc *brs;
    int64_t *brush_rows;
    double *brush_order;
    int brushes;
    al_face_desc *fcs;
    int faces;
    int brush_count, face_count; /* found */
} geometry;

typedef struct id_index {
    int64_t id;
    int32_t index;
} id_index;

typedef struct brush_row {
    int64_t id;
    double position;
    int32_t entity; /* index in the entities' order */
    int32_t first, count, filled;
} brush_row;

static int compare_id_index(const void *a, const void *b)
{
    int64_t x = ((const id_index *) a)->id, y = ((const id_index *) b)->id;
    return (x > y) - (x < y);
}

/* The entities' order, then position, then id: the order of the map's text. */
static int compare_brush_rows(const void *a, const void *b)
{
    const brush_row *x = a, *y = b;
    if (x->entity != y->entity) return x->entity < y->entity ? -1 : 1;
    if (x->position != y->position) return x->position < y->position ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The index that ID maps to in T (N rows, ascending ids), or -1. */
static int32_t find_index(const id_index *t, int n, int64_t id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (t[mid].id == id) return t[mid].index;
        if (t[mid].id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Reads every brush with faces and its faces into G, grouped by entity in the entities'
 * order, each entity's brushes by position and each brush's faces by position; brushes of
 * an entity that does not exist are left out. The rows are read as stored and ordered
 * here: SQLite's sort of every face row (a join ordered by entity, brush and face) took
 * most of the read of a large map. False when memory runs out. */
static bool read_geometry(al_doc *doc, geometry *g)
{
    g->brush_count = g->face_count = 0;
    id_index *ents = malloc(((size_t) g->entities + 1) * sizeof *ents);
    id_index *by_id = malloc(((size_t) g->brushes + 1) * sizeof *by_id);
    brush_row *rows = malloc(((size_t) g->brushes + 1) * sizeof *rows);
    int64_t *face_position = malloc(((size_t) g->faces + 1) * sizeof *face_position);
    bool ok = ents && by_id && rows && face_position;
    if (!ok) goto done;
    for (int e = 0; e < g->entities; e++) ents[e] = (id_index){g->entity_ids[e], e};
    qsort(ents, (size_t) g->entities, sizeof *ents, compare_id_index);

    sqlite3_stmt *st;
    sqlite3_prepare_v2(doc->db, "SELECT id, entity, position FROM brushes", -1, &st, NULL);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < g->brushes) {
        int32_t entity = find_index(ents, g->entities, sqlite3_column_int64(st, 1));
        if (entity < 0) continue;
        rows[n++] = (brush_row){.id = sqlite3_column_int64(st, 0),
                                .position = sqlite3_column_double(st, 2),
                                .entity = entity};
    }
    sqlite3_finalize(st);
    qsort(rows, (size_t) n, sizeof *rows, compare_brush_rows);
    for (int i = 0; i < n; i++) by_id[i] = (id_index){rows[i].id, i};
    qsort(by_id, (size_t) n, sizeof *by_id, compare_id_index);

    /* Each brush's faces: their count first, so that each face goes to its place. */
    sqlite3_prepare_v2(doc->db, "SELECT brush, count(*) FROM faces GROUP BY brush", -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int32_t i = find_index(by_id, n, sqlite3_column_int64(st, 0));
        if (i >= 0) rows[i].count = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    int32_t total = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].count > g->faces - total) rows[i].count = g->faces - total;
        rows[i].first = total;
        total += rows[i].count;
    }
    sqlite3_prepare_v2(
        doc->db,
        "SELECT f.brush, f.position, f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, f.x2, f.y2, "
        "f.z2, f.material, " AL_DOC_TEXTURE_COLUMNS " FROM faces f",
        -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int32_t i = find_index(by_id, n, sqlite3_column_int64(st, 0));
        if (i < 0 || rows[i].filled >= rows[i].count) continue;
        int32_t at = rows[i].first + rows[i].filled++;
        al_face_desc *fc = &g->fcs[at];
        face_position[at] = sqlite3_column_int64(st, 1);
        for (int k = 0; k < 9; k++) fc->points[k / 3][k % 3] = sqlite3_column_double(st, 2 + k);
        al_doc_face_axes(st, 12, (const double (*)[3]) fc->points, fc->texture_axes);
        int64_t mid = sqlite3_column_int64(st, 11);
        int lo = 0, hi = g->materials - 1;
        fc->material = -1;
        while (lo <= hi) {
            int mid_i = (lo + hi) / 2;
            if (g->material_ids[mid_i] == mid) {
                fc->material = mid_i;
                break;
            }
            if (g->material_ids[mid_i] < mid)
                lo = mid_i + 1;
            else
                hi = mid_i - 1;
        }
    }
    sqlite3_finalize(st);

    /* Each brush's faces by position (a brush has a handful: insertion), then the brushes
     * that have faces, numbered within their entity. */
    int32_t entity = -1, index_in_entity = 0;
    for (int i = 0; i < n; i++) {
        brush_row *r = &rows[i];
        al_face_desc *fc = g->fcs + r->first;
        int64_t *pos = face_position + r->first;
        for (int a = 1; a < r->filled; a++)
            for (int c = a; c > 0 && pos[c - 1] > pos[c]; c--) {
                al_face_desc t = fc[c];
                fc[c] = fc[c - 1];
                fc[c - 1] = t;
                int64_t tp = pos[c];
                pos[c] = pos[c - 1];
                pos[c - 1] = tp;
            }
        if (r->filled == 0) continue;
        if (r->entity != entity) {
            entity = r->entity;
            index_in_entity = 0;
        }
        /* Faces stay where they were placed; a brush that got fewer than counted (the rows
         * changed meanwhile, which the read transaction rules out) keeps only those. */
        int b = g->brush_count++;
        g->brs[b] = (al_brush_desc){.entity = entity,
                                    .index = index_in_entity++,
                                    .first_face = r->first,
                                    .face_count = r->filled,
                                    .line = -1};
        g->brush_rows[b] = r->id;
        g->brush_order[b] = r->position;
    }
    g->face_count = total;
done:
    free(ents);
    free(by_id);
    free(rows);
    free(face_position);
    return ok;
}

al_status al_doc_build_input(al_doc *doc, al_doc_input *out, al_diag_list *diags)
{
    memset(out, 0, sizeof *out);
    /* One read transaction, so the counts and the rows agree. */
    if (al_doc_exec(doc, "BEGIN") != SQLITE_OK) return AL_ERR_LOCKED;
    int64_t material_bytes = 0, entity_bytes = 0;
    int materials = count_rows(doc, "SELECT count(*), coalesce(sum(length(name) + 1), 0) FROM materials",
                               &material_bytes);
    int entities = count_rows(doc,
                              "SELECT count(*), coalesce(sum(length(classname) + length(properties) + 1), 0) "
                              "FROM entities",
                              &entity_bytes);
    int properties = count_rows(doc, "SELECT count(*), 0 FROM entities, json_each(entities.properties)",
                                NULL);
    int brushes = count_rows(doc, "SELECT count(*), 0 FROM brushes", NULL);
    int faces = count_rows(doc, "SELECT count(*), 0 FROM faces", NULL);
    int hulls = count_rows(doc, "SELECT count(*), 0 FROM hulls", NULL);
    if (properties < 0) {
        /* Malformed JSON stops the count: name the entity (opening checks this too, but
         * another program may have written the file since). */
        char problem[200];
        if (al_doc_find_bad_properties(doc->db, problem, sizeof problem) >= 0) {
            al_doc_exec(doc, "ROLLBACK");
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, "%s: %s",
                        doc->path, problem);
            return AL_ERR_CORRUPT;
        }
    }
    if (materials < 0 || entities < 1 || properties < 0 || brushes < 0 || faces < 0 ||
        hulls < 0) {
        al_doc_exec(doc, "ROLLBACK");
        return al_doc_sqlite_status(doc, sqlite3_errcode(doc->db), "reading the map", diags);
    }
    store s = {0};
    s.size = 16 * 8 + (size_t) materials * (sizeof(al_material_desc) + 16) + (size_t) material_bytes +
             (size_t) entities * (sizeof(al_entity_desc) + 32) + (size_t) entity_bytes * 2 +
             (size_t) properties * (sizeof(al_property) + 32) +
             (size_t) brushes * sizeof(al_brush_desc) + (size_t) faces * sizeof(al_face_desc) +
             (size_t) hulls * sizeof(al_hull_desc) + (size_t) brushes * sizeof(int64_t) +
             (size_t) entities * sizeof(int64_t) + (size_t) materials * sizeof(float[3]) +
             (size_t) (brushes + entities) * sizeof(double) + (size_t) materials * sizeof(int64_t) +
             4096;
    s.base = calloc(1, s.size);
    al_material_desc *mats = take(&s, (size_t) materials * sizeof *mats + 1);
    al_entity_desc *ents = take(&s, (size_t) entities * sizeof *ents);
    al_property *props = take(&s, (size_t) properties * sizeof *props + 1);
    al_brush_desc *brs = take(&s, (size_t) brushes * sizeof *brs + 1);
    al_face_desc *fcs = take(&s, (size_t) faces * sizeof *fcs + 1);
    al_hull_desc *hls = take(&s, (size_t) hulls * sizeof *hls + 1);
    int64_t *brush_rows = take(&s, (size_t) brushes * sizeof *brush_rows + 1);
    int64_t *entity_rows = take(&s, (size_t) entities * sizeof *entity_rows + 1);
    float (*colours)[3] = take(&s, (size_t) materials * sizeof *colours + 1);
    double *brush_order = take(&s, (size_t) brushes * sizeof *brush_order + 1);
    double *entity_order = take(&s, (size_t) entities * sizeof *entity_order + 1);
    int64_t *material_rows = take(&s, (size_t) materials * sizeof *material_rows + 1);
    int64_t *material_ids = malloc(((size_t) materials + 1) * sizeof *material_ids);
    int64_t *entity_ids = malloc(((size_t) entities + 1) * sizeof *entity_ids);
    al_status status = AL_OK;
    if (!s.base || !material_ids || !entity_ids) {
        status = AL_ERR_NOMEM;
        goto done;
    }

    sqlite3_stmt *st;
    /* Materials, by id (ids map to indices with a binary search below). */
    sqlite3_prepare_v2(doc->db, al_doc_material_select, -1, &st, NULL);
    int m = 0;
    while (sqlite3_step(st) == SQLITE_ROW && m < materials) {
        material_ids[m] = material_rows[m] = sqlite3_column_int64(st, 0);
        mats[m].name = take_string(&s, (const char *) sqlite3_column_text(st, 1));
        al_doc_material_row(st, &mats[m], colours[m]);
        m++;
    }
    sqlite3_finalize(st);

    /* Entities in file order; the world first. */
    sqlite3_prepare_v2(doc->db,
                       "SELECT id, classname, properties, position FROM entities "
                       "ORDER BY id != 0, position, id",
                       -1, &st, NULL);
    int e = 0, p = 0;
    while (sqlite3_step(st) == SQLITE_ROW && e < entities) {
        entity_ids[e] = sqlite3_column_int64(st, 0);
        entity_rows[e] = entity_ids[e];
        entity_order[e] = sqlite3_column_double(st, 3);
        ents[e].property_count = 0;
        ents[e].classname = take_string(&s, (const char *) sqlite3_column_text(st, 1));
        ents[e].line = -1;
        ents[e].properties = props + p;
        property_sink sink = {&s, props, &p, properties, &ents[e]};
        if (al_doc_parse_properties((const char *) sqlite3_column_text(st, 2), add_property,
                                    &sink) < 0)
            al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, e, -1, -1, -1, -1,
                        "entity %lld (%s): its properties are not a JSON object and were left out",
                        (long long) entity_ids[e], ents[e].classname);
        e++;
    }
    sqlite3_finalize(st);

    /* Brushes and faces, grouped by entity in the entities' order. */
    int b = -1, f = 0;
    geometry g = {.entity_ids = entity_ids,
                  .entities = e,
                  .material_ids = material_ids,
                  .materials = m,
                  .brs = brs,
                  .brush_rows = brush_rows,
                  .brush_order = brush_order,
                  .brushes = brushes,
                  .fcs = fcs,
                  .faces = faces};
    if (!read_geometry(doc, &g)) {
        status = AL_ERR_NOMEM;
        goto done;
    }
    b = g.brush_count - 1;
    f = g.face_count;

    sqlite3_prepare_v2(doc->db, al_doc_hull_select, -1, &st, NULL);
    int h = 0;
    while (sqlite3_step(st) == SQLITE_ROW && h < hulls) al_doc_hull_row(st, &hls[h++]);
    sqlite3_finalize(st);
    double block_size = al_doc_block_size(doc);

    out->storage = s.base;
    s.base = NULL;
    out->input = (al_input){.materials = mats, .material_count = m, .entities = ents,
                            .entity_count = e, .brushes = brs, .brush_count = b + 1,
                            .faces = fcs, .face_count = f, .hulls = hls, .hull_count = h,
                            .block_size = block_size};
    out->brush_ids = brush_rows;
    out->entity_ids = entity_rows;
    out->material_colours = (const float (*)[3]) colours;
    out->brush_order = brush_order;
    out->entity_order = entity_order;
    out->material_ids = material_rows;
done:
    al_doc_exec(doc, "COMMIT");
    free(s.base);
    free(material_ids);
    free(entity_ids);
    return status;
}

/* --- content key and cache ------------------------------------------------------------ */

al_status al_doc_content_key(al_doc *doc, const char *salt, char key[33])
{
    al_doc_input in;
    al_status st = al_doc_build_input(doc, &in, NULL);
    if (st != AL_OK) return st;
    al_input_key(&in.input, salt, key);
    al_doc_input_free(&in);
    return AL_OK;
}

/* Stores DATA under KEY and KIND on DB in a transaction of its own, dropping the kind's
 * other entries: older compiled results of this map are of no further use. */
static al_status cache_store(sqlite3 *db, const char *key, const char *kind, const void *data,
                             size_t size)
{
    static const char *sql = "INSERT OR REPLACE INTO cache(key, kind, data, created, used) "
                             "VALUES (?, ?, ?, ?, ?)";
    static const char *trim = "DELETE FROM cache WHERE kind = ? AND key != ?";
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return AL_ERR_LOCKED;
    sqlite3_stmt *st = NULL;
    bool ok = sqlite3_prepare_v2(db, trim, -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    sqlite3_finalize(st);
    st = NULL;
    ok = ok && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    if (ok) {
        double now = al_doc_now();
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob64(st, 3, data, size, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, now);
        sqlite3_bind_double(st, 5, now);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    sqlite3_finalize(st);
    if (ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) return AL_OK;
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return AL_ERR_IO;
}

al_status al_doc_cache_put(al_doc *doc, const char *key, const char *kind, const void *data,
                           size_t size)
{
    if (doc->read_only) return AL_OK;
    return cache_store(doc->db, key, kind, data, size);
}

static const char *const cache_select = "SELECT data FROM cache WHERE key = ?";

/* KEY's data by ST (the cache's select, prepared), which is reset after. */
static al_status cache_fetch(sqlite3_stmt *st, const char *key, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    al_status status = AL_ERR_NOT_FOUND;
    if (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = (size_t) sqlite3_column_bytes(st, 0);
        const void *blob = sqlite3_column_blob(st, 0);
        *data = malloc(n ? n : 1);
        if (!*data) status = AL_ERR_NOMEM;
        else {
            if (n) memcpy(*data, blob, n);
            *size = n;
            status = AL_OK;
        }
    }
    sqlite3_reset(st);
    return status;
}

al_status al_doc_cache_get(al_doc *doc, const char *key, void **data, size_t *size)
{
    sqlite3_stmt *st = al_doc_prepare(doc, cache_select);
    if (!st) {
        *data = NULL;
        *size = 0;
        return AL_ERR_IO;
    }
    return cache_fetch(st, key, data, size);
}

struct al_doc_cache_conn {
    sqlite3 *db;
    sqlite3_stmt *select;
    bool writable;
};

al_status al_doc_cache_conn_open(const char *path, bool writable, al_doc_cache_conn **out)
{
    *out = NULL;
    al_doc_cache_conn *c = calloc(1, sizeof *c);
    if (!c) return AL_ERR_NOMEM;
    c->writable = writable;
    /* Serialized: the engine's two threads take turns with it. */
    int flags = (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path, &c->db, flags, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(c->db, cache_select, -1, SQLITE_PREPARE_PERSISTENT, &c->select, NULL) !=
            SQLITE_OK) {
        al_doc_cache_conn_close(c);
        return AL_ERR_IO;
    }
    /* The document's writer holds its lock a moment at a time. A cache entry lost to a
     * power cut is only compiled again: no sync at every commit. */
    sqlite3_busy_timeout(c->db, 2000);
    if (writable) sqlite3_exec(c->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    *out = c;
    return AL_OK;
}

al_status al_doc_cache_conn_get(al_doc_cache_conn *c, const char *key, void **data, size_t *size)
{
    return cache_fetch(c->select, key, data, size);
}

al_status al_doc_cache_conn_put(al_doc_cache_conn *c, const char *key, const char *kind,
                                const void *data, size_t size)
{
    if (!c->writable) return AL_OK;
    return cache_store(c->db, key, kind, data, size);
}

void al_doc_cache_conn_close(al_doc_cache_conn *c)
{
    if (!c) return;
    sqlite3_finalize(c->select);
    sqlite3_close(c->db);
    free(c);
}
