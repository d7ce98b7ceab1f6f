/* The document schema (see schema.h). */
#include "schema.h"

#include "al-diag.h"
#include "materials/material-defaults.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column lists: the columns' declarations are in table_columns below, in the same order.
 * A table may declare columns after its list's that the journal does not record (see the
 * materials' texture colours). */
const al_table al_doc_tables[] = {
    {"settings", {"key", "value", NULL}},
    {"hulls", {"position", "name", "minx", "miny", "minz", "maxx", "maxy", "maxz", NULL}},
    {"materials",
     {"name", "red", "green", "blue", "reflectance", "emit_red", "emit_green", "emit_blue", "flags",
      NULL}},
    {"entities", {"position", "classname", "properties", "state", NULL}},
    {"brushes",
     {"entity", "position", "detail", "minx", "miny", "minz", "maxx", "maxy", "maxz", "state",
      NULL}},
    {"faces", {"brush",  "position", "x0",      "y0",          "z0",    "x1",   "y1",   "z1",
               "x2",     "y2",       "z2",      "material",    "valve", "ux",   "uy",   "uz",
               "uoff",   "vx",       "vy",      "vz",          "voff",  "offx", "offy", "rotation",
               "scalex", "scaley",   "surface", "points_text", NULL}},
};
const int al_doc_table_count = (int) (sizeof al_doc_tables / sizeof al_doc_tables[0]);

int al_doc_table_index(const char *name)
{
    for (int t = 0; t < al_doc_table_count; t++)
        if (strcmp(al_doc_tables[t].name, name) == 0) return t;
    return -1;
}

/* A material's texture colour channel C (the new schema and the migration declare it). */
#define TEXTURE_COLUMN(c)                                                                          \
    "texture_" c " REAL CHECK(texture_" c " IS NULL OR texture_" c " BETWEEN 0 AND 1)"
#define TEXTURE_COLUMNS                                                                            \
    TEXTURE_COLUMN("red") ", " TEXTURE_COLUMN("green") ", " TEXTURE_COLUMN("blue")
/* Whether the designer hid or locked a brush or an entity (a group): AL_DOC_STATE_* bits. */
#define STATE_COLUMN "state INTEGER NOT NULL DEFAULT 0"

/* Column declarations of each journaled table, without "id INTEGER PRIMARY KEY". The image
 * tables repeat them without constraints. */
static const char *const table_columns[] = {
    /* settings */
    "key TEXT NOT NULL UNIQUE, value TEXT NOT NULL",
    /* hulls */
    "position INTEGER NOT NULL, name TEXT NOT NULL UNIQUE CHECK(length(name) BETWEEN 1 AND 31), "
    "minx REAL NOT NULL, miny REAL NOT NULL, minz REAL NOT NULL, "
    "maxx REAL NOT NULL, maxy REAL NOT NULL, maxz REAL NOT NULL, "
    "CHECK(minx <= maxx AND miny <= maxy AND minz <= maxz)",
    /* materials */
    "name TEXT NOT NULL UNIQUE, "
    "red REAL NOT NULL CHECK(red BETWEEN 0 AND 1), green REAL NOT NULL CHECK(green BETWEEN 0 AND "
    "1), "
    "blue REAL NOT NULL CHECK(blue BETWEEN 0 AND 1), "
    "reflectance REAL CHECK(reflectance IS NULL OR reflectance BETWEEN 0 AND 1), "
    "emit_red REAL NOT NULL DEFAULT 0 CHECK(emit_red >= 0), "
    "emit_green REAL NOT NULL DEFAULT 0 CHECK(emit_green >= 0), "
    "emit_blue REAL NOT NULL DEFAULT 0 CHECK(emit_blue >= 0), "
    "flags INTEGER NOT NULL DEFAULT 0, "
    /* The mean colour of the material's texture as the editor last found it (NULL: none
     * found), so the first compile of an open already reflects it. A fact about the
     * texture files, not an edit: outside the journal, so undo never brings back a stale
     * one (a row undo re-inserts has none until the textures are read again). */
    TEXTURE_COLUMNS,
    /* entities */
    "position REAL NOT NULL, classname TEXT NOT NULL, "
    "properties TEXT NOT NULL CHECK(json_valid(properties) AND json_type(properties) = "
    "'object'), " STATE_COLUMN,
    /* brushes */
    "entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE DEFERRABLE INITIALLY "
    "DEFERRED, position REAL NOT NULL, detail INTEGER NOT NULL DEFAULT 0, "
    "minx REAL, miny REAL, minz REAL, maxx REAL, maxy REAL, maxz REAL, " STATE_COLUMN,
    /* faces */
    "brush INTEGER NOT NULL REFERENCES brushes(id) ON DELETE CASCADE DEFERRABLE INITIALLY "
    "DEFERRED, position INTEGER NOT NULL, "
    "x0 REAL NOT NULL, y0 REAL NOT NULL, z0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL, "
    "z1 REAL NOT NULL, x2 REAL NOT NULL, y2 REAL NOT NULL, z2 REAL NOT NULL, "
    "material INTEGER NOT NULL REFERENCES materials(id) DEFERRABLE INITIALLY DEFERRED, "
    "valve INTEGER NOT NULL DEFAULT 0, "
    "ux REAL NOT NULL DEFAULT 0, uy REAL NOT NULL DEFAULT 0, uz REAL NOT NULL DEFAULT 0, "
    "uoff REAL NOT NULL DEFAULT 0, vx REAL NOT NULL DEFAULT 0, vy REAL NOT NULL DEFAULT 0, "
    "vz REAL NOT NULL DEFAULT 0, voff REAL NOT NULL DEFAULT 0, offx REAL NOT NULL DEFAULT 0, "
    "offy REAL NOT NULL DEFAULT 0, rotation REAL NOT NULL DEFAULT 0, "
    "scalex REAL NOT NULL DEFAULT 1, scaley REAL NOT NULL DEFAULT 1, surface TEXT, "
    /* the points as the .map file wrote them, when not in shortest form (map.h) */
    "points_text TEXT",
};

static const char *const other_sql =
    "CREATE INDEX brushes_entity ON brushes(entity);"
    "CREATE INDEX faces_brush ON faces(brush, position);"
    /* Undo history: a step is one undoable edit; done = 0 means undone (redoable). */
    "CREATE TABLE steps(id INTEGER PRIMARY KEY, label TEXT NOT NULL, done INTEGER NOT NULL, "
    "  time REAL NOT NULL);"
    /* One row per changed row of a journaled table, in change order; the row's images are
     * in the table's image table (jimg_<table>): which = 0 before, 1 after. */
    "CREATE TABLE journal(id INTEGER PRIMARY KEY, step INTEGER NOT NULL REFERENCES steps(id) "
    "  ON DELETE CASCADE, tbl INTEGER NOT NULL, rid INTEGER NOT NULL, "
    "  op INTEGER NOT NULL /* 0 insert, 1 update, 2 delete */);"
    "CREATE INDEX journal_step ON journal(step, id);"
    /* The step being recorded; 0 when not recording. Read by the triggers. */
    "CREATE TABLE journal_state(id INTEGER PRIMARY KEY CHECK(id = 1), "
    "  step INTEGER NOT NULL DEFAULT 0);"
    "INSERT INTO journal_state(id, step) VALUES (1, 0);"
    /* Compiled results by content hash of their inputs. Not journaled. */
    "CREATE TABLE cache(key TEXT PRIMARY KEY, kind TEXT NOT NULL, data BLOB NOT NULL, "
    "  created REAL NOT NULL, used REAL NOT NULL);";

static int exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* Appends "prefix.c1, prefix.c2, ..." for table T's columns (prefix may be empty). */
static void append_columns(char **buf, size_t *len, size_t *cap, const al_table *t,
                           const char *prefix)
{
    for (int c = 0; t->columns[c]; c++) {
        size_t need = strlen(prefix) + strlen(t->columns[c]) + 8;
        if (*len + need >= *cap) {
            *cap = (*cap + need) * 2;
            *buf = realloc(*buf, *cap);
        }
        *len += (size_t) snprintf(*buf + *len, *cap - *len, "%s%s%s", c ? ", " : "", prefix,
                                  t->columns[c]);
    }
}

/* The journal of table T: its image table (when WITH_IMAGES) and its three triggers,
 * made from the table's column list. */
static int create_journal(sqlite3 *db, int t, bool with_images)
{
    int rc = SQLITE_OK;
    const al_table *tb = &al_doc_tables[t];
    size_t cap = 1024, len = 0;
    char *cols = malloc(cap), *olds = NULL, *news = NULL;
    cols[0] = '\0';
    append_columns(&cols, &len, &cap, tb, "");
    size_t ocap = 1024, olen = 0, ncap = 1024, nlen = 0;
    olds = malloc(ocap);
    news = malloc(ncap);
    olds[0] = news[0] = '\0';
    append_columns(&olds, &olen, &ocap, tb, "OLD.");
    append_columns(&news, &nlen, &ncap, tb, "NEW.");
    size_t big = 3 * (len + olen + nlen) + 2048;
    char *q = malloc(big);
    /* The image table: the journal row, which image, then the columns untyped. */
    snprintf(q, big,
             "CREATE TABLE jimg_%s(jid INTEGER NOT NULL REFERENCES journal(id) ON DELETE "
             "CASCADE, which INTEGER NOT NULL, id INTEGER, %s, PRIMARY KEY(jid, which));",
             tb->name, cols);
    if (with_images) rc = exec(db, q);
    const char *ops[3] = {"INSERT", "UPDATE", "DELETE"};
    for (int op = 0; op < 3 && rc == SQLITE_OK; op++) {
        size_t n = (size_t) snprintf(
            q, big,
            "CREATE TRIGGER journal_%s_%d AFTER %s ON %s "
            "WHEN (SELECT step FROM journal_state) > 0 BEGIN "
            "INSERT INTO journal(step, tbl, rid, op) VALUES ((SELECT step FROM journal_state), "
            "%d, %s.id, %d);",
            tb->name, op, ops[op], tb->name, t, op == 2 ? "OLD" : "NEW", op);
        if (op >= 1)
            n += (size_t) snprintf(q + n, big - n,
                                   "INSERT INTO jimg_%s(jid, which, id, %s) VALUES "
                                   "((SELECT max(id) FROM journal), 0, OLD.id, %s);",
                                   tb->name, cols, olds);
        if (op <= 1)
            n += (size_t) snprintf(q + n, big - n,
                                   "INSERT INTO jimg_%s(jid, which, id, %s) VALUES "
                                   "((SELECT max(id) FROM journal), 1, NEW.id, %s);",
                                   tb->name, cols, news);
        snprintf(q + n, big - n, "END;");
        rc = exec(db, q);
    }
    free(q);
    free(cols);
    free(olds);
    free(news);
    return rc;
}

int al_schema_create(sqlite3 *db)
{
    int rc = SQLITE_OK;
    char sql[8192];
    for (int t = 0; t < al_doc_table_count && rc == SQLITE_OK; t++) {
        const char *name = al_doc_tables[t].name;
        snprintf(sql, sizeof sql, "CREATE TABLE %s(id INTEGER PRIMARY KEY, %s);", name,
                 table_columns[t]);
        rc = exec(db, sql);
    }
    if (rc == SQLITE_OK) rc = exec(db, other_sql);
    for (int t = 0; t < al_doc_table_count && rc == SQLITE_OK; t++)
        rc = create_journal(db, t, true);
    return rc;
}

/* Version 2: every material's flags anew from its name (they are the defaults of
 * al_material_default_flags, and some changed). Outside the journal: no step records it. */
static int refresh_material_flags(sqlite3 *db)
{
    sqlite3_stmt *list, *set;
    int rc = sqlite3_prepare_v2(db, "SELECT id, name FROM materials", -1, &list, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(db, "UPDATE materials SET flags = ? WHERE id = ?", -1, &set, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(list);
        return rc;
    }
    while ((rc = sqlite3_step(list)) == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text(list, 1);
        sqlite3_bind_int64(set, 1, al_material_default_flags(name));
        sqlite3_bind_int64(set, 2, sqlite3_column_int64(list, 0));
        if ((rc = sqlite3_step(set)) != SQLITE_DONE) break;
        sqlite3_reset(set);
    }
    sqlite3_finalize(list);
    sqlite3_finalize(set);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Version 3: the materials' texture colours, unknown (NULL) until the editor reads the
 * textures. */
static int add_texture_colours(sqlite3 *db)
{
    static const char *const column[3] = {TEXTURE_COLUMN("red"), TEXTURE_COLUMN("green"),
                                          TEXTURE_COLUMN("blue")};
    int rc = SQLITE_OK;
    char sql[256];
    for (int k = 0; k < 3 && rc == SQLITE_OK; k++) {
        snprintf(sql, sizeof sql, "ALTER TABLE materials ADD COLUMN %s", column[k]);
        rc = exec(db, sql);
    }
    return rc;
}

/* Version 4: the state column (hidden, locked) of brushes and entities, in the tables, in
 * their image tables, and in the triggers that copy the rows into those. */
static int add_state_columns(sqlite3 *db)
{
    static const char *const tables[] = {"entities", "brushes"};
    int rc = SQLITE_OK;
    char sql[512];
    for (int i = 0; i < 2 && rc == SQLITE_OK; i++) {
        snprintf(sql, sizeof sql,
                 "ALTER TABLE %s ADD COLUMN " STATE_COLUMN ";"
                 "ALTER TABLE jimg_%s ADD COLUMN state;"
                 "DROP TRIGGER IF EXISTS journal_%s_0; DROP TRIGGER IF EXISTS journal_%s_1; "
                 "DROP TRIGGER IF EXISTS journal_%s_2;",
                 tables[i], tables[i], tables[i], tables[i], tables[i]);
        rc = exec(db, sql);
        if (rc == SQLITE_OK) rc = create_journal(db, al_doc_table_index(tables[i]), false);
    }
    return rc;
}

int al_schema_migrate(sqlite3 *db, int from)
{
    /* Each version adds a step here, run in order from the document's. */
    if (from < 1 || from > AL_DOC_SCHEMA_VERSION) return SQLITE_ERROR;
    int rc = SQLITE_OK;
    if (from < 2) rc = refresh_material_flags(db);
    if (from < 3 && rc == SQLITE_OK) rc = add_texture_colours(db);
    if (rc == SQLITE_OK && from < 4) rc = add_state_columns(db);
    return rc;
}

/* Whether SQL (a query with two text parameters, A and B) finds a row in DB; -1 if it
 * cannot be run. */
static int finds_row(sqlite3 *db, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Whether DB holds an object of TYPE named NAME; -1 if it cannot be read. */
static int has_object(sqlite3 *db, const char *type, const char *name)
{
    return finds_row(db, "SELECT 1 FROM sqlite_schema WHERE type = ? AND name = ?", type, name);
}

/* Whether TABLE of DB has a column COLUMN; -1 if it cannot be read. */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
    return finds_row(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column);
}

/* Compares DB with REFERENCE (a database holding the current schema), object by object and
 * column by column; false with PROBLEM at the first difference. */
static bool compare_schema(sqlite3 *db, sqlite3 *reference, char *problem, size_t size)
{
    sqlite3_stmt *objects;
    if (sqlite3_prepare_v2(reference,
                           "SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' "
                           "ORDER BY type = 'table' DESC, rowid",
                           -1, &objects, NULL) != SQLITE_OK) {
        snprintf(problem, size, "%s", sqlite3_errmsg(reference));
        return false;
    }
    bool ok = true;
    while (ok && sqlite3_step(objects) == SQLITE_ROW) {
        const char *type = (const char *) sqlite3_column_text(objects, 0);
        const char *name = (const char *) sqlite3_column_text(objects, 1);
        int found = has_object(db, type, name);
        if (found < 0) {
            snprintf(problem, size, "%s", sqlite3_errmsg(db));
            ok = false;
        } else if (!found) {
            const char *format = strcmp(type, "table") == 0 ? AL_N_("its table \"%s\" is missing")
                                 : strcmp(type, "index") == 0
                                     ? AL_N_("its index \"%s\" is missing")
                                     : AL_N_("its trigger \"%s\" is missing");
            snprintf(problem, size, al_diag_translate(format), name);
            ok = false;
        } else if (strcmp(type, "table") == 0) {
            sqlite3_stmt *columns;
            if (sqlite3_prepare_v2(reference, "SELECT name FROM pragma_table_info(?)", -1, &columns,
                                   NULL) != SQLITE_OK) {
                snprintf(problem, size, "%s", sqlite3_errmsg(reference));
                ok = false;
                break;
            }
            sqlite3_bind_text(columns, 1, name, -1, SQLITE_TRANSIENT);
            while (ok && sqlite3_step(columns) == SQLITE_ROW) {
                const char *column = (const char *) sqlite3_column_text(columns, 0);
                int has = has_column(db, name, column);
                if (has != 1) {
                    snprintf(problem, size,
                             al_diag_translate(AL_N_("its table \"%s\" has no column \"%s\"")),
                             name, column);
                    ok = false;
                }
            }
            sqlite3_finalize(columns);
        }
    }
    sqlite3_finalize(objects);
    return ok;
}

bool al_schema_check(sqlite3 *db, char *problem, size_t size)
{
    /* The reference is made by the very code that makes new maps, so the two cannot drift
     * apart; in memory it takes about a millisecond. */
    sqlite3 *reference = NULL;
    bool ok = sqlite3_open_v2(":memory:", &reference, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
              al_schema_create(reference) == SQLITE_OK;
    if (!ok)
        snprintf(problem, size, "%s", reference ? sqlite3_errmsg(reference) : "out of memory");
    else
        ok = compare_schema(db, reference, problem, size);
    sqlite3_close(reference);
    return ok;
}
