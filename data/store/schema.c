/* The document schema (see schema.h). */
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column lists: the columns' declarations are in TABLE_SQL below, in the same order. */
const al_table al_doc_tables[] = {
    {"settings", {"key", "value", NULL}},
    {"hulls", {"position", "name", "minx", "miny", "minz", "maxx", "maxy", "maxz", NULL}},
    {"materials",
     {"name", "red", "green", "blue", "reflectance", "emit_red", "emit_green", "emit_blue",
      "flags", NULL}},
    {"entities", {"position", "classname", "properties", NULL}},
    {"brushes", {"entity", "position", "detail", "minx", "miny", "minz", "maxx", "maxy", "maxz",
                 NULL}},
    {"faces",
     {"brush", "position", "x0", "y0", "z0", "x1", "y1", "z1", "x2", "y2", "z2", "material",
      "valve", "ux", "uy", "uz", "uoff", "vx", "vy", "vz", "voff", "offx", "offy", "rotation",
      "scalex", "scaley", "surface", "points_text", NULL}},
};
const int al_doc_table_count = (int) (sizeof al_doc_tables / sizeof al_doc_tables[0]);

int al_doc_table_index(const char *name)
{
    for (int t = 0; t < al_doc_table_count; t++)
        if (strcmp(al_doc_tables[t].name, name) == 0) return t;
    return -1;
}

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
    "red REAL NOT NULL CHECK(red BETWEEN 0 AND 1), green REAL NOT NULL CHECK(green BETWEEN 0 AND 1), "
    "blue REAL NOT NULL CHECK(blue BETWEEN 0 AND 1), "
    "reflectance REAL CHECK(reflectance IS NULL OR reflectance BETWEEN 0 AND 1), "
    "emit_red REAL NOT NULL DEFAULT 0 CHECK(emit_red >= 0), "
    "emit_green REAL NOT NULL DEFAULT 0 CHECK(emit_green >= 0), "
    "emit_blue REAL NOT NULL DEFAULT 0 CHECK(emit_blue >= 0), "
    "flags INTEGER NOT NULL DEFAULT 0",
    /* entities */
    "position REAL NOT NULL, classname TEXT NOT NULL, "
    "properties TEXT NOT NULL CHECK(json_valid(properties) AND json_type(properties) = 'object')",
    /* brushes */
    "entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE DEFERRABLE INITIALLY "
    "DEFERRED, position REAL NOT NULL, detail INTEGER NOT NULL DEFAULT 0, "
    "minx REAL, miny REAL, minz REAL, maxx REAL, maxy REAL, maxz REAL",
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
    for (int t = 0; t < al_doc_table_count && rc == SQLITE_OK; t++) {
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
        rc = exec(db, q);
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
    }
    return rc;
}

int al_schema_migrate(sqlite3 *db, int from)
{
    (void) db;
    /* Version 1 is the first; each later version adds a step here: "if (from < 2) ...". */
    return from == AL_DOC_SCHEMA_VERSION ? SQLITE_OK : SQLITE_ERROR;
}
