/* The edit protocol and the undo journal (see document.h).
 *
 * An edit is a transaction that first creates a step and points journal_state at it, so the
 * triggers (schema.c) record every row it inserts, updates or deletes, with images before
 * and after. Undo applies a step's records backwards using the before-images, redo forwards
 * using the after-images; both run with the journal switched off and foreign keys deferred
 * to the commit. A new edit deletes the undone steps (redo is gone, as users expect), and
 * the oldest steps beyond the history length are forgotten.
 *
 * Workload: an edit touches a handful of rows; undo and redo of it are a few statements.
 */
#include "doc-internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool al_doc_grow(void **items, int *capacity, int count, size_t size)
{
    if (count < *capacity) return true;
    int c = *capacity ? *capacity * 2 : 8;
    void *p = realloc(*items, (size_t) c * size);
    if (!p) return false;
    *items = p;
    *capacity = c;
    return true;
}

/* Capacities of the pending change's arrays (kept beside it). */
static int entity_capacity(const al_doc_change *c)
{
    int cap = 8;
    while (cap < c->entity_count) cap *= 2;
    return c->entities ? cap : 0;
}

static int brush_capacity(const al_doc_change *c)
{
    int cap = 8;
    while (cap < c->brush_count) cap *= 2;
    return c->brushes ? cap : 0;
}

static al_doc_brush_change *find_brush(al_doc_change *c, int64_t brush)
{
    for (int i = 0; i < c->brush_count; i++)
        if (c->brushes[i].brush == brush) return &c->brushes[i];
    return NULL;
}

void al_doc_note_brush(al_doc *doc, int64_t brush)
{
    al_doc_change *c = &doc->pending;
    if (find_brush(c, brush)) return;
    int cap = brush_capacity(c);
    if (!al_doc_grow((void **) &c->brushes, &cap, c->brush_count, sizeof *c->brushes)) return;
    al_doc_brush_change *b = &c->brushes[c->brush_count++];
    memset(b, 0, sizeof *b);
    b->brush = brush;
}

void al_doc_note_entity(al_doc *doc, int64_t entity)
{
    al_doc_change *c = &doc->pending;
    for (int i = 0; i < c->entity_count; i++)
        if (c->entities[i] == entity) return;
    int cap = entity_capacity(c);
    if (!al_doc_grow((void **) &c->entities, &cap, c->entity_count, sizeof *c->entities)) return;
    c->entities[c->entity_count++] = entity;
}

static al_status begin_step(al_doc *doc, const char *label)
{
    static const char *clear_redo = "DELETE FROM steps WHERE done = 0";
    static const char *insert = "INSERT INTO steps(label, done, time) VALUES (?, 1, ?)";
    static const char *point = "UPDATE journal_state SET step = ? WHERE id = 1";
    sqlite3_stmt *st = al_doc_prepare(doc, clear_redo);
    if (!st || sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    st = al_doc_prepare(doc, insert);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 2, al_doc_now());
    if (sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    doc->step = sqlite3_last_insert_rowid(doc->db);
    st = al_doc_prepare(doc, point);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, doc->step);
    return sqlite3_step(st) == SQLITE_DONE ? AL_OK : AL_ERR_IO;
}

/* Ends recording: forgets a step that recorded nothing, trims the history. */
/* Whether journal step STEP changed what the marks and the layers are read from (see
 * al_doc_change.marks): notes it in the pending change. */
static al_status note_marks(al_doc *doc, int64_t step)
{
    static const char *sql =
        "SELECT EXISTS (SELECT 1 FROM journal j WHERE j.step = ?1 AND (j.tbl = ?2 OR "
        "(j.tbl = ?3 AND (j.op != 1 OR EXISTS (SELECT 1 FROM jimg_brushes a, jimg_brushes b "
        "WHERE a.jid = j.id AND a.which = 0 AND b.jid = j.id AND b.which = 1 AND "
        "(a.entity IS NOT b.entity OR a.state IS NOT b.state))))))";
    if (doc->pending.marks) return AL_OK;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, step);
    sqlite3_bind_int(st, 2, al_doc_table_index("entities"));
    sqlite3_bind_int(st, 3, al_doc_table_index("brushes"));
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) doc->pending.marks = sqlite3_column_int(st, 0) != 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? AL_OK : AL_ERR_IO;
}

static al_status end_step(al_doc *doc)
{
    static const char *stop = "UPDATE journal_state SET step = 0 WHERE id = 1";
    static const char *empty =
        "DELETE FROM steps WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM journal WHERE step = ?1)";
    static const char *trim = "DELETE FROM steps WHERE id <= (SELECT id FROM steps WHERE done = 1 "
                              "ORDER BY id DESC LIMIT 1 OFFSET ?)";
    if (note_marks(doc, doc->step) != AL_OK) return AL_ERR_IO;
    sqlite3_stmt *st = al_doc_prepare(doc, stop);
    if (!st || sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    st = al_doc_prepare(doc, empty);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, doc->step);
    if (sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    st = al_doc_prepare(doc, trim);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int(st, 1, doc->history);
    if (sqlite3_step(st) != SQLITE_DONE) return AL_ERR_IO;
    doc->step = 0;
    return AL_OK;
}

al_status al_doc_edit_begin(al_doc *doc, const char *label)
{
    if (doc->read_only) return AL_ERR_READ_ONLY;
    /* A group collects what all its edits change. */
    if (doc->in_group) return al_doc_exec(doc, "SAVEPOINT edit") == SQLITE_OK ? AL_OK : AL_ERR_IO;
    al_doc_change_clear(&doc->pending);
    if (al_doc_exec(doc, "BEGIN IMMEDIATE") != SQLITE_OK) return AL_ERR_LOCKED;
    al_status st = begin_step(doc, label);
    if (st != AL_OK) {
        al_doc_exec(doc, "ROLLBACK");
        doc->step = 0;
    }
    return st;
}

al_status al_doc_edit_end(al_doc *doc, al_status ok, al_doc_change *change)
{
    if (doc->in_group) {
        /* What a failed edit of the group noted stays noted: reading a row it left as it
         * was hands the engine the same content again, which changes nothing. */
        if (ok != AL_OK) al_doc_exec(doc, "ROLLBACK TO edit");
        al_doc_exec(doc, "RELEASE edit");
        if (change) al_doc_change_clear(change);
        return ok;
    }
    if (ok == AL_OK) {
        ok = end_step(doc);
        if (ok == AL_OK && al_doc_exec(doc, "COMMIT") != SQLITE_OK) ok = AL_ERR_IO;
        if (ok != AL_OK) al_doc_exec(doc, "ROLLBACK");
    } else {
        al_doc_exec(doc, "ROLLBACK");
        doc->step = 0;
    }
    if (change) {
        al_doc_change_clear(change);
        if (ok == AL_OK) {
            *change = doc->pending;
            memset(&doc->pending, 0, sizeof doc->pending);
        }
    }
    al_doc_change_clear(&doc->pending);
    return ok;
}

al_status al_doc_begin_group(al_doc *doc, const char *label)
{
    if (doc->in_group) return AL_ERR_INVALID_ARGUMENT;
    al_status st = al_doc_edit_begin(doc, label);
    if (st == AL_OK) doc->in_group = true;
    return st;
}

al_status al_doc_end_group(al_doc *doc, al_doc_change *change)
{
    if (!doc->in_group) return AL_ERR_INVALID_ARGUMENT;
    doc->in_group = false;
    return al_doc_edit_end(doc, AL_OK, change);
}

void al_doc_cancel_group(al_doc *doc)
{
    if (!doc->in_group) return;
    doc->in_group = false;
    al_doc_edit_end(doc, AL_ERR_CANCELLED, NULL);
}

void al_doc_set_history_length(al_doc *doc, int steps)
{
    doc->history = steps < 1 ? 1 : steps;
}

/* --- undo and redo ---------------------------------------------------------------------- */

/* Statements applying one journal record to table T, built from the descriptors. */
typedef struct applier {
    char *remove;  /* DELETE FROM t WHERE id = ?1 */
    char *insert;  /* INSERT INTO t(id, cols) SELECT id, cols FROM jimg_t WHERE jid=?1 AND which=?2 */
    char *restore; /* UPDATE t SET (cols) = (SELECT cols FROM jimg_t WHERE ...) WHERE id = ?3 */
} applier;

static applier appliers[16];
static pthread_once_t appliers_once = PTHREAD_ONCE_INIT;

static void build_appliers_once(void)
{
    for (int t = 0; t < al_doc_table_count; t++) {
        const al_table *tb = &al_doc_tables[t];
        char cols[1024] = "";
        size_t n = 0;
        for (int c = 0; tb->columns[c]; c++)
            n += (size_t) snprintf(cols + n, sizeof cols - n, "%s%s", c ? ", " : "",
                                   tb->columns[c]);
        char buf[4096];
        snprintf(buf, sizeof buf, "DELETE FROM %s WHERE id = ?1", tb->name);
        appliers[t].remove = strdup(buf);
        snprintf(buf, sizeof buf,
                 "INSERT INTO %s(id, %s) SELECT id, %s FROM jimg_%s WHERE jid = ?1 AND which = ?2",
                 tb->name, cols, cols, tb->name);
        appliers[t].insert = strdup(buf);
        snprintf(buf, sizeof buf,
                 "UPDATE %s SET (%s) = (SELECT %s FROM jimg_%s WHERE jid = ?1 AND which = ?2) "
                 "WHERE id = ?3",
                 tb->name, cols, cols, tb->name);
        appliers[t].restore = strdup(buf);
    }
}

static void build_appliers(void)
{
    pthread_once(&appliers_once, build_appliers_once);
}

/* The brush a face record belongs to (from either image). */
static int64_t face_brush(al_doc *doc, int64_t jid)
{
    static const char *sql = "SELECT brush FROM jimg_faces WHERE jid = ? LIMIT 1";
    return al_doc_query_id(doc, sql, jid);
}

typedef struct record {
    int64_t jid, rid;
    int tbl, op;
} record;

static al_status apply_step(al_doc *doc, int64_t step, bool undo)
{
    static const char *select_sql =
        "SELECT id, tbl, rid, op FROM journal WHERE step = ? ORDER BY id";
    sqlite3_stmt *st = al_doc_prepare(doc, select_sql);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, step);
    record *records = NULL;
    int count = 0, capacity = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) &records, &capacity, count, sizeof *records)) {
            free(records);
            return AL_ERR_NOMEM;
        }
        records[count++] = (record){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2),
                                    sqlite3_column_int(st, 1), sqlite3_column_int(st, 3)};
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        free(records);
        return AL_ERR_IO;
    }
    if (note_marks(doc, step) != AL_OK) {
        free(records);
        return AL_ERR_IO;
    }
    build_appliers();
    int brushes_table = al_doc_table_index("brushes"), faces_table = al_doc_table_index("faces");
    int entities_table = al_doc_table_index("entities");
    /* Note the brushes involved before changing anything (their bounds now). */
    for (int i = 0; i < count; i++) {
        if (records[i].tbl == brushes_table)
            al_doc_note_brush(doc, records[i].rid);
        else if (records[i].tbl == faces_table) {
            int64_t b = face_brush(doc, records[i].jid);
            if (b >= 0) al_doc_note_brush(doc, b);
        } else if (records[i].tbl == entities_table) {
            al_doc_note_entity(doc, records[i].rid);
        } else if (records[i].tbl == al_doc_table_index("materials")) {
            doc->pending.materials = true;
        } else {
            doc->pending.settings = true;
        }
    }
    al_status status = AL_OK;
    for (int k = 0; k < count && status == AL_OK; k++) {
        const record *r = &records[undo ? count - 1 - k : k];
        if (r->tbl < 0 || r->tbl >= al_doc_table_count) {
            status = AL_ERR_CORRUPT;
            break;
        }
        /* Undoing an insert deletes; undoing a delete inserts the before-image; undoing an
         * update restores it. Redo mirrors with the after-image. */
        int op = r->op;
        if (undo && op != 1) op = 2 - op;
        const applier *a = &appliers[r->tbl];
        const char *sql = op == 0 ? a->insert : op == 1 ? a->restore : a->remove;
        sqlite3_stmt *s = al_doc_prepare(doc, sql);
        if (!s) {
            status = AL_ERR_IO;
            break;
        }
        if (op == 2) {
            sqlite3_bind_int64(s, 1, r->rid);
        } else {
            sqlite3_bind_int64(s, 1, r->jid);
            sqlite3_bind_int(s, 2, undo ? 0 : 1);
            if (op == 1) sqlite3_bind_int64(s, 3, r->rid);
        }
        if (sqlite3_step(s) != SQLITE_DONE) status = AL_ERR_CORRUPT;
        sqlite3_reset(s);
    }
    free(records);
    return status;
}

static int64_t find_step(al_doc *doc, bool undo)
{
    static const char *last_done = "SELECT id FROM steps WHERE done = 1 ORDER BY id DESC LIMIT 1";
    static const char *first_undone = "SELECT id FROM steps WHERE done = 0 ORDER BY id LIMIT 1";
    sqlite3_stmt *st = al_doc_prepare(doc, undo ? last_done : first_undone);
    if (!st) return 0;
    int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return id;
}

static al_status undo_redo(al_doc *doc, bool undo, al_doc_change *change)
{
    if (change) al_doc_change_clear(change);
    if (doc->read_only) return AL_ERR_READ_ONLY;
    if (doc->in_group) return AL_ERR_INVALID_ARGUMENT;
    if (al_doc_exec(doc, "BEGIN IMMEDIATE") != SQLITE_OK) return AL_ERR_LOCKED;
    al_doc_change_clear(&doc->pending);
    int64_t step = find_step(doc, undo);
    if (step == 0) {
        al_doc_exec(doc, "ROLLBACK");
        return AL_ERR_NOTHING_TO_DO;
    }
    al_doc_exec(doc, "PRAGMA defer_foreign_keys = ON");
    al_status status = apply_step(doc, step, undo);
    if (status == AL_OK) {
        static const char *mark = "UPDATE steps SET done = ? WHERE id = ?";
        sqlite3_stmt *st = al_doc_prepare(doc, mark);
        if (!st) status = AL_ERR_IO;
        else {
            sqlite3_bind_int(st, 1, undo ? 0 : 1);
            sqlite3_bind_int64(st, 2, step);
            if (sqlite3_step(st) != SQLITE_DONE) status = AL_ERR_IO;
            sqlite3_reset(st);
        }
    }
    if (status == AL_OK && al_doc_exec(doc, "COMMIT") != SQLITE_OK) status = AL_ERR_IO;
    if (status != AL_OK) al_doc_exec(doc, "ROLLBACK");
    if (change && status == AL_OK) {
        *change = doc->pending;
        memset(&doc->pending, 0, sizeof doc->pending);
    }
    al_doc_change_clear(&doc->pending);
    return status;
}

al_status al_doc_undo(al_doc *doc, al_doc_change *change)
{
    return undo_redo(doc, true, change);
}

al_status al_doc_redo(al_doc *doc, al_doc_change *change)
{
    return undo_redo(doc, false, change);
}

bool al_doc_can_undo(const al_doc *doc)
{
    return find_step((al_doc *) doc, true) != 0;
}

bool al_doc_can_redo(const al_doc *doc)
{
    return find_step((al_doc *) doc, false) != 0;
}

bool al_doc_undo_label(const al_doc *doc, bool redo, char *buf, size_t size)
{
    int64_t step = find_step((al_doc *) doc, !redo);
    if (!step) return false;
    static const char *sql = "SELECT label FROM steps WHERE id = ?";
    sqlite3_stmt *st = al_doc_prepare((al_doc *) doc, sql);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, step);
    bool ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok) snprintf(buf, size, "%s", (const char *) sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    return ok;
}
