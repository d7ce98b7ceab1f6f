/* The document as the compiler's input, its content key, and the compiled-results cache
 * (see document.h).
 *
 * Workload: lq-e3m4 (1,301 entities, 3,441 brushes, 22,180 faces) reads in about 60 ms.
 * Everything the input points to lives in one allocation, sized by a first pass of counts.
 */
#include "doc-internal.h"

#include "al-world.h"

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

void al_doc_input_free(al_doc_input *in)
{
    if (!in) return;
    free(in->storage);
    memset(in, 0, sizeof *in);
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
    int64_t *material_ids = malloc(((size_t) materials + 1) * sizeof *material_ids);
    int64_t *entity_ids = malloc(((size_t) entities + 1) * sizeof *entity_ids);
    al_status status = AL_OK;
    if (!s.base || !material_ids || !entity_ids) {
        status = AL_ERR_NOMEM;
        goto done;
    }

    sqlite3_stmt *st;
    /* Materials, by id (ids map to indices with a binary search below). */
    sqlite3_prepare_v2(doc->db, "SELECT id, name, flags, red, green, blue, reflectance, emit_red, emit_green, emit_blue "
                       "FROM materials ORDER BY id", -1, &st, NULL);
    int m = 0;
    while (sqlite3_step(st) == SQLITE_ROW && m < materials) {
        material_ids[m] = sqlite3_column_int64(st, 0);
        mats[m].name = take_string(&s, (const char *) sqlite3_column_text(st, 1));
        mats[m].flags = (uint32_t) sqlite3_column_int64(st, 2);
        for (int k = 0; k < 3; k++) {
            colours[m][k] = (float) sqlite3_column_double(st, 3 + k);
            mats[m].colour[k] = colours[m][k];
            mats[m].emission[k] = (float) sqlite3_column_double(st, 7 + k); /* NULL reads 0 */
        }
        mats[m].reflectance = (float) sqlite3_column_double(st, 6); /* NULL: 0, from colour */
        m++;
    }
    sqlite3_finalize(st);

    /* Entities in file order; the world first. */
    sqlite3_prepare_v2(doc->db,
                       "SELECT id, classname, properties FROM entities ORDER BY id != 0, position, id",
                       -1, &st, NULL);
    int e = 0, p = 0;
    while (sqlite3_step(st) == SQLITE_ROW && e < entities) {
        entity_ids[e] = sqlite3_column_int64(st, 0);
        entity_rows[e] = entity_ids[e];
        ents[e].property_count = 0;
        ents[e].classname = take_string(&s, (const char *) sqlite3_column_text(st, 1));
        ents[e].line = -1;
        ents[e].properties = props + p;
        cJSON *root = cJSON_Parse((const char *) sqlite3_column_text(st, 2));
        for (cJSON *item = root ? root->child : NULL; item && p < properties; item = item->next) {
            if (!cJSON_IsString(item)) continue;
            props[p].key = take_string(&s, item->string);
            props[p].value = take_string(&s, item->valuestring);
            p++;
            ents[e].property_count++;
        }
        cJSON_Delete(root);
        e++;
    }
    sqlite3_finalize(st);

    /* Brushes and faces, grouped by entity in the entities' order. */
    sqlite3_prepare_v2(doc->db,
                       "SELECT b.id, b.entity, f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, f.x2, f.y2, f.z2, "
                       "f.material FROM brushes b JOIN entities e ON e.id = b.entity "
                       "JOIN faces f ON f.brush = b.id "
                       "ORDER BY e.id != 0, e.position, e.id, b.position, b.id, f.position",
                       -1, &st, NULL);
    int b = -1, f = 0, entity_index = -1;
    int64_t last_brush = -1, last_entity = -1;
    int index_in_entity = 0;
    while (sqlite3_step(st) == SQLITE_ROW && f < faces) {
        int64_t brush = sqlite3_column_int64(st, 0), entity = sqlite3_column_int64(st, 1);
        if (entity != last_entity) {
            /* Entities come in the same order as above: advance to it. */
            while (entity_index + 1 < entities && entity_ids[entity_index + 1] != entity)
                entity_index++;
            entity_index++;
            last_entity = entity;
            index_in_entity = 0;
        }
        if (brush != last_brush) {
            if (b + 1 >= brushes) break;
            b++;
            brs[b] = (al_brush_desc){.entity = entity_index, .index = index_in_entity++,
                                     .first_face = f, .face_count = 0, .line = -1};
            brush_rows[b] = brush;
            last_brush = brush;
        }
        for (int i = 0; i < 9; i++)
            fcs[f].points[i / 3][i % 3] = sqlite3_column_double(st, 2 + i);
        int64_t mid = sqlite3_column_int64(st, 11);
        int lo = 0, hi = materials - 1, found = -1;
        while (lo <= hi) {
            int mid_i = (lo + hi) / 2;
            if (material_ids[mid_i] == mid) {
                found = mid_i;
                break;
            }
            if (material_ids[mid_i] < mid) lo = mid_i + 1;
            else hi = mid_i - 1;
        }
        fcs[f].material = found;
        brs[b].face_count++;
        f++;
    }
    sqlite3_finalize(st);

    sqlite3_prepare_v2(doc->db,
                       "SELECT name, minx, miny, minz, maxx, maxy, maxz FROM hulls ORDER BY position",
                       -1, &st, NULL);
    int h = 0;
    while (sqlite3_step(st) == SQLITE_ROW && h < hulls) {
        snprintf(hls[h].name, sizeof hls[h].name, "%s", (const char *) sqlite3_column_text(st, 0));
        for (int k = 0; k < 3; k++) {
            hls[h].mins[k] = sqlite3_column_double(st, 1 + k);
            hls[h].maxs[k] = sqlite3_column_double(st, 4 + k);
        }
        h++;
    }
    sqlite3_finalize(st);

    double block_size = 0;
    sqlite3_prepare_v2(doc->db, "SELECT value FROM settings WHERE key = 'block_size'", -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW) block_size = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);

    out->storage = s.base;
    s.base = NULL;
    out->input = (al_input){.materials = mats, .material_count = m, .entities = ents,
                            .entity_count = e, .brushes = brs, .brush_count = b + 1,
                            .faces = fcs, .face_count = f, .hulls = hls, .hull_count = h,
                            .block_size = block_size};
    out->brush_ids = brush_rows;
    out->entity_ids = entity_rows;
    out->material_colours = (const float (*)[3]) colours;
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

al_status al_doc_cache_put(al_doc *doc, const char *key, const char *kind, const void *data,
                           size_t size)
{
    static const char *sql = "INSERT OR REPLACE INTO cache(key, kind, data, created, used) "
                             "VALUES (?, ?, ?, ?, ?)";
    static const char *trim = "DELETE FROM cache WHERE kind = ? AND key != ?";
    if (doc->read_only) return AL_OK;
    if (al_doc_exec(doc, "BEGIN IMMEDIATE") != SQLITE_OK) return AL_ERR_LOCKED;
    /* One entry per kind: older compiled results of this map are of no further use. */
    sqlite3_stmt *st = al_doc_prepare(doc, trim);
    bool ok = st != NULL;
    if (ok) {
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    st = ok ? al_doc_prepare(doc, sql) : NULL;
    if (st) {
        double now = al_doc_now();
        sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_TRANSIENT);
        sqlite3_bind_blob64(st, 3, data, size, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, now);
        sqlite3_bind_double(st, 5, now);
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_clear_bindings(st);
    } else {
        ok = false;
    }
    if (ok && al_doc_exec(doc, "COMMIT") == SQLITE_OK) return AL_OK;
    al_doc_exec(doc, "ROLLBACK");
    return AL_ERR_IO;
}

al_status al_doc_cache_get(al_doc *doc, const char *key, void **data, size_t *size)
{
    static const char *sql = "SELECT data FROM cache WHERE key = ?";
    *data = NULL;
    *size = 0;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
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
