/* The designer's hidden and locked marks on brushes and entities (see document.h,
 * "hidden and locked").
 *
 * They live in the state column of both tables, so each change is a journaled edit like any
 * other (one undoable step) and the marks stay with the map when it is reopened. Layers keep
 * theirs as TrenchBroom's keys on the layer's entity (data/layers), not here.
 *
 * Workload: a selection's worth of rows per edit; reads scan the rows that carry a mark.
 */
#include "doc-internal.h"

#include <stdlib.h>
#include <string.h>

/* Sets BITS within MASK of the state of row ID of TABLE, and notes the row if it changed. */
static al_status set_row_state(al_doc *doc, bool brush, int64_t id, unsigned mask, unsigned bits)
{
    static const char *brush_sql = "UPDATE brushes SET state = (state & ~?2) | ?3 WHERE id = ?1 "
                                   "AND state != (state & ~?2) | ?3";
    static const char *entity_sql = "UPDATE entities SET state = (state & ~?2) | ?3 WHERE id = ?1 "
                                    "AND state != (state & ~?2) | ?3";
    static const char *brush_exists = "SELECT 1 FROM brushes WHERE id = ?";
    static const char *entity_exists = "SELECT 1 FROM entities WHERE id = ?";
    if (al_doc_query_id(doc, brush ? brush_exists : entity_exists, id) != 1)
        return AL_ERR_NOT_FOUND;
    sqlite3_stmt *s = al_doc_prepare(doc, brush ? brush_sql : entity_sql);
    if (!s) return AL_ERR_IO;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, mask);
    sqlite3_bind_int64(s, 3, bits & mask);
    if (sqlite3_step(s) != SQLITE_DONE) return AL_ERR_IO;
    if (sqlite3_changes(doc->db) > 0) {
        if (brush)
            al_doc_note_brush(doc, id);
        else
            al_doc_note_entity(doc, id);
    }
    return AL_OK;
}

al_status al_doc_set_state(al_doc *doc, const int64_t *brushes, int brush_count,
                           const int64_t *entities, int entity_count, unsigned mask, unsigned bits,
                           const char *label, al_doc_change *change, al_diag_list *diags)
{
    al_status st = al_doc_edit_begin(doc, label);
    if (st != AL_OK) return st;
    for (int i = 0; i < brush_count && st == AL_OK; i++) {
        st = set_row_state(doc, true, brushes[i], mask, bits);
        if (st == AL_ERR_NOT_FOUND)
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "brush %lld does not exist", (long long) brushes[i]);
    }
    for (int i = 0; i < entity_count && st == AL_OK; i++) {
        st = set_row_state(doc, false, entities[i], mask, bits);
        if (st == AL_ERR_NOT_FOUND)
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1,
                        "entity %lld does not exist", (long long) entities[i]);
    }
    return al_doc_edit_end(doc, st, change);
}

/* The rows of SQL (id, state) into *IDS and *STATES (malloc'd, *COUNT of them). */
static al_status read_states(al_doc *doc, const char *sql, int64_t **ids, unsigned **states,
                             int *count)
{
    *ids = NULL;
    *states = NULL;
    *count = 0;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return AL_ERR_IO;
    int cap_ids = 0, cap_states = 0, rc;
    al_status st = AL_OK;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) ids, &cap_ids, *count, sizeof **ids) ||
            !al_doc_grow((void **) states, &cap_states, *count, sizeof **states)) {
            st = AL_ERR_NOMEM;
            break;
        }
        (*ids)[*count] = sqlite3_column_int64(s, 0);
        (*states)[*count] = (unsigned) sqlite3_column_int64(s, 1);
        (*count)++;
    }
    if (st == AL_OK && rc != SQLITE_DONE) st = AL_ERR_IO;
    if (st != AL_OK) {
        free(*ids);
        free(*states);
        *ids = NULL;
        *states = NULL;
        *count = 0;
    }
    return st;
}

al_status al_doc_brush_states(al_doc *doc, int64_t **ids, unsigned **states, int *count)
{
    return read_states(doc, "SELECT id, state FROM brushes WHERE state != 0 ORDER BY id", ids,
                       states, count);
}

al_status al_doc_list_entities(al_doc *doc, al_doc_entity_row **out, int *count)
{
    static const char *sql = "SELECT id, classname, properties, state FROM entities "
                             "ORDER BY id != 0, position, id";
    *out = NULL;
    *count = 0;
    sqlite3_stmt *s = al_doc_prepare(doc, sql);
    if (!s) return AL_ERR_IO;
    int cap = 0, rc;
    al_status st = AL_OK;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) out, &cap, *count, sizeof **out)) {
            st = AL_ERR_NOMEM;
            break;
        }
        al_doc_entity_row *row = &(*out)[(*count)++];
        row->id = sqlite3_column_int64(s, 0);
        row->classname = strdup((const char *) sqlite3_column_text(s, 1));
        row->properties = strdup((const char *) sqlite3_column_text(s, 2));
        row->state = (unsigned) sqlite3_column_int64(s, 3);
        if (!row->classname || !row->properties) st = AL_ERR_NOMEM;
    }
    if (st == AL_OK && rc != SQLITE_DONE) st = AL_ERR_IO;
    if (st != AL_OK) {
        al_doc_entity_rows_free(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return st;
}

void al_doc_entity_rows_free(al_doc_entity_row *rows, int count)
{
    if (!rows) return;
    for (int i = 0; i < count; i++) {
        free(rows[i].classname);
        free(rows[i].properties);
    }
    free(rows);
}

int64_t al_doc_brush_owner(al_doc *doc, int64_t brush)
{
    return al_doc_brush_entity(doc, brush);
}

bool al_doc_entity_exists(al_doc *doc, int64_t entity)
{
    return al_doc_query_id(doc, "SELECT 1 FROM entities WHERE id = ?", entity) == 1;
}
