/* Bad and busy files: each gives a clear error naming the problem, and the file is left
 * exactly as it was (its bytes are fingerprinted before and after). */
#include "check.h"
#include "doc-fixture.h"
#include "store/map-doc.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t) n + 1);
    if (data && fread(data, 1, (size_t) n, f) != (size_t) n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t) n;
    return data;
}

/* Whether any diagnostic contains WORDS. */
static bool said(const al_diag_list *d, const char *words)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, words)) return true;
    return false;
}

static bool side_files(const char *path)
{
    char side[600];
    snprintf(side, sizeof side, "%s-wal", path);
    bool any = fixture_exists(side);
    snprintf(side, sizeof side, "%s-shm", path);
    return any || fixture_exists(side);
}

/* Opens PATH in MODE, expecting EXPECT and a message containing WORDS; the file's bytes
 * must not change and no -wal or -shm file may appear beside it. */
static void expect_refused(const char *path, al_doc_mode mode, al_status expect,
                           const char *words)
{
    uint64_t before = fixture_file_hash(path);
    bool had_side_files = side_files(path);
    al_diag_list d = {0};
    al_doc *doc = NULL;
    al_status s = al_doc_open(path, mode, &doc, &d);
    CHECK_MSG(s == expect, "%s: got %s, expected %s", path, al_status_name(s),
              al_status_name(expect));
    CHECK(doc == NULL);
    CHECK_MSG(said(&d, words), "no message saying '%s' (first: %s)", words,
              d.count ? d.items[0].message : "none");
    if (d.count) check_note("%s", d.items[0].message);
    CHECK(fixture_file_hash(path) == before);
    CHECK(side_files(path) == had_side_files);
    al_doc_close(doc);
    al_diag_list_clear(&d);
}

/* A valid document, closed, as a byte image (files are rewritten from it per case). */
static char *valid_image(size_t *size)
{
    const char *path = fixture_path("valid.allium");
    if (!fixture_make_map(path, 400)) return NULL;
    return read_file(path, size);
}

CHECK_TEST(not_sqlite, "/doc-files/a-text-file-is-not-a-map")
{
    const char *path = fixture_path("text.allium");
    const char *text = "// Game: Quake\n{\n\"classname\" \"worldspawn\"\n}\n";
    REQUIRE(write_file(path, text, strlen(text)));
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_NOT_A_MAP, "not an SQLite database");
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_NOT_A_MAP, "not an SQLite database");
}

CHECK_TEST(empty, "/doc-files/an-empty-file-is-not-a-map")
{
    const char *path = fixture_path("empty.allium");
    REQUIRE(write_file(path, "", 0));
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_NOT_A_MAP, "empty");
}

CHECK_TEST(folder, "/doc-files/a-folder-is-named-a-folder")
{
    const char *path = fixture_path("folder.allium");
    rmdir(path);
    REQUIRE(mkdir(path, 0755) == 0);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_NOT_A_MAP, "folder.allium: is a folder");
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_NOT_A_MAP, "is a folder, not a map");
    rmdir(path);
}

CHECK_TEST(missing, "/doc-files/a-missing-file-is-named")
{
    const char *path = fixture_path("missing.allium");
    al_diag_list d = {0};
    al_doc *doc = NULL;
    CHECK(al_doc_open(path, AL_DOC_READ_WRITE, &doc, &d) == AL_ERR_NOT_FOUND);
    CHECK(said(&d, "missing.allium") && said(&d, "No such file"));
    CHECK(!fixture_exists(path)); /* opening does not create */
    al_diag_list_clear(&d);
}

CHECK_TEST(foreign_sqlite, "/doc-files/another-programs-database-is-not-a-map")
{
    const char *path = fixture_path("foreign.allium");
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');",
                         NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_NOT_A_MAP, "application id 0x00000000");
    /* Another application's id. */
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA application_id = 1196444237", NULL, NULL, NULL) ==
            SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_NOT_A_MAP, "not an Allium map");
}

CHECK_TEST(future, "/doc-files/a-map-from-a-newer-allium-is-refused-untouched")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    const char *path = fixture_path("future.allium");
    REQUIRE(write_file(path, image, size));
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_VERSION, "newer Allium");
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_VERSION, "map format 99");
    free(image);
}

/* Turns DB (of the current format) into one of format 3 as Allium wrote it: no state
 * column in brushes, entities and their image tables, and the journal triggers that copy
 * rows without it. Those triggers are dropped here (the upgrade makes them anew); the image
 * is otherwise format 3's. */
static bool downgrade_to_3(sqlite3 *db)
{
    static const char *sql =
        "DROP TRIGGER journal_entities_0; DROP TRIGGER journal_entities_1; "
        "DROP TRIGGER journal_entities_2; DROP TRIGGER journal_brushes_0; "
        "DROP TRIGGER journal_brushes_1; DROP TRIGGER journal_brushes_2; "
        "ALTER TABLE entities DROP COLUMN state; ALTER TABLE brushes DROP COLUMN state; "
        "ALTER TABLE jimg_entities DROP COLUMN state; ALTER TABLE jimg_brushes DROP COLUMN state; "
        "PRAGMA user_version = 3";
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* A map of format 1 (without the materials' texture colours of format 3 and the marks of
 * format 4), whose trigger material had the contents format 2 no longer gives it, opens
 * for writing in the current format with the material's flags from its name and no
 * texture colours yet. */
CHECK_TEST(upgrade_1, "/doc-files/a-map-of-format-1-is-upgraded-and-its-material-flags-renewed")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    const char *path = fixture_path("format1.allium");
    REQUIRE(write_file(path, image, size));
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(downgrade_to_3(db));
    REQUIRE(sqlite3_exec(db,
                         "INSERT INTO materials(name, red, green, blue, flags) VALUES "
                         "('trigger', 1, 0.5, 0, 20), ('*lava1', 1, 0, 0, 2);"
                         "ALTER TABLE materials DROP COLUMN texture_red;"
                         "ALTER TABLE materials DROP COLUMN texture_green;"
                         "ALTER TABLE materials DROP COLUMN texture_blue;"
                         "PRAGMA user_version = 1",
                         NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    /* A reader cannot upgrade it, and says so. */
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_VERSION, "open it for writing once");
    al_diag_list d = {0};
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, &d) == AL_OK);
    al_doc_material *m = NULL;
    int count = 0;
    REQUIRE(al_doc_list_materials(doc, &m, &count) == AL_OK);
    int seen = 0;
    for (int i = 0; i < count; i++) {
        if (strcmp(m[i].name, "trigger") == 0) {
            seen++;
            CHECK_MSG(m[i].flags == AL_MATERIAL_TRIGGER, "trigger's flags %u", m[i].flags);
        } else if (strcmp(m[i].name, "*lava1") == 0) {
            seen++;
            CHECK_MSG(m[i].flags == (AL_MATERIAL_LIQUID | AL_MATERIAL_LAVA), "lava's flags %u",
                      m[i].flags);
        }
    }
    CHECK(seen == 2);
    al_doc_materials_free(m, count);
    /* The texture colours are there, unknown until the editor reads the textures. */
    al_doc_input in;
    REQUIRE(al_doc_build_input(doc, &in, &d) == AL_OK);
    for (int i = 0; i < in.input.material_count; i++) {
        const float *own = in.material_colours[i];
        CHECK_MSG(memcmp(in.input.materials[i].colour, own, sizeof(float[3])) == 0,
                  "%s reflects another colour than its own", in.input.materials[i].name);
    }
    al_doc_input_free(&in);
    al_doc_texture_colour red = {"*lava1", true, {0.5f, 0.25f, 0.125f}};
    al_doc_change change = {0};
    CHECK(al_doc_set_texture_colours(doc, &red, 1, &change, &d) == AL_OK && change.materials);
    al_doc_change_clear(&change);
    al_doc_close(doc);
    al_diag_list_clear(&d);
    /* Upgraded once, it now opens for reading too. */
    REQUIRE(al_doc_open(path, AL_DOC_READ_ONLY, &doc, &d) == AL_OK);
    al_doc_close(doc);
    al_diag_list_clear(&d);
    free(image);
}

/* A map of format 3 opens for writing as format 4: its brushes and entities gain their
 * hidden and locked marks, unmarked, and marking one is an edit that undoes. */
CHECK_TEST(upgrade_3, "/doc-files/a-map-of-format-3-is-upgraded-with-hidden-and-locked-marks")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    const char *path = fixture_path("format3.allium");
    REQUIRE(write_file(path, image, size));
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(downgrade_to_3(db));
    sqlite3_close(db);
    expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_VERSION, "open it for writing once");
    al_diag_list d = {0};
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, &d) == AL_OK);
    int64_t *ids = NULL, *states_ids = NULL;
    unsigned *states = NULL;
    int count = 0, marked = -1;
    REQUIRE(al_doc_list_brushes(doc, -1, &ids, &count) == AL_OK && count > 0);
    CHECK(al_doc_brush_states(doc, &states_ids, &states, &marked) == AL_OK && marked == 0);
    free(states_ids);
    free(states);
    CHECK(al_doc_set_state(doc, ids, 1, NULL, 0, AL_DOC_STATE_HIDDEN, AL_DOC_STATE_HIDDEN, "Hide",
                           NULL, &d) == AL_OK);
    CHECK(al_doc_brush_states(doc, &states_ids, &states, &marked) == AL_OK && marked == 1 &&
          states_ids[0] == ids[0] && states[0] == AL_DOC_STATE_HIDDEN);
    free(states_ids);
    free(states);
    CHECK(al_doc_undo(doc, NULL) == AL_OK);
    CHECK(al_doc_brush_states(doc, &states_ids, &states, &marked) == AL_OK && marked == 0);
    free(states_ids);
    free(states);
    free(ids);
    al_doc_close(doc);
    /* Upgraded, it passes the schema check of a reader. */
    REQUIRE(al_doc_open(path, AL_DOC_READ_ONLY, &doc, &d) == AL_OK);
    al_doc_close(doc);
    al_diag_list_clear(&d);
    free(image);
}

/* Runs SQL (past the CHECK constraints, as another program could) on PATH; false with a
 * failed check if it could not. */
static bool tamper(const char *path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return false;
    bool ok =
        sqlite3_exec(db, "PRAGMA ignore_check_constraints = 1", NULL, NULL, NULL) == SQLITE_OK &&
        sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    CHECK_MSG(ok, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
    return ok;
}

/* For each of COUNT changes SQL[i] to a copy of the valid map IMAGE: both modes refuse it
 * as damaged with WORDS[i], and leave it untouched. */
static void expect_damage_refused(const char *image, size_t size, const char *const *sql,
                                  const char *const *words, int count)
{
    for (int i = 0; i < count; i++) {
        const char *path = fixture_path("damaged.allium");
        if (!write_file(path, image, size) || !tamper(path, sql[i])) continue;
        check_note("%s", sql[i]);
        expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_CORRUPT, words[i]);
        expect_refused(path, AL_DOC_READ_ONLY, AL_ERR_CORRUPT, words[i]);
    }
}

CHECK_TEST(damaged_schema,
           "/doc-files/a-map-with-a-table-trigger-or-column-gone-is-refused-untouched")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    const char *const damage[] = {
        "DROP TABLE journal",
        "DROP TRIGGER journal_faces_1",
        "DROP INDEX faces_brush",
        "ALTER TABLE steps DROP COLUMN time",
    };
    const char *const words[] = {
        "damaged.allium: is damaged: its table \"journal\" is missing",
        "its trigger \"journal_faces_1\" is missing",
        "its index \"faces_brush\" is missing",
        "its table \"steps\" has no column \"time\"",
    };
    expect_damage_refused(image, size, damage, words, 4);
    free(image);
}

CHECK_TEST(bad_properties, "/doc-files/entity-properties-that-are-not-json-are-named-untouched")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    /* What another program could write past the CHECK constraint; the fixture's entities
     * are the world, a player start and a light (entity 2). */
    const char *const tamper_sql[] = {
        "UPDATE entities SET properties = 'light 300' WHERE classname = 'light'",
        "UPDATE entities SET properties = '[\"light\", \"300\"]' WHERE classname = 'light'",
        "UPDATE entities SET properties = '{\"light\": 300}' WHERE classname = 'light'",
    };
    const char *const words[] = {
        "damaged.allium: is damaged: entity 2 (light): its properties are not a JSON object: "
        "\"light 300\"",
        "entity 2 (light): its properties are not a JSON object: \"[\"light\", \"300\"]\"",
        "entity 2 (light): its property \"light\" is integer, not text",
    };
    expect_damage_refused(image, size, tamper_sql, words, 3);

    /* Written by another program while the map is open: the compiler input names it. */
    const char *path = fixture_path("damaged.allium");
    REQUIRE(write_file(path, image, size));
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    REQUIRE(tamper(path, tamper_sql[0]));
    al_doc_input in;
    al_diag_list d = {0};
    CHECK(al_doc_build_input(doc, &in, &d) == AL_ERR_CORRUPT);
    CHECK_MSG(said(&d, "damaged.allium: entity 2 (light): its properties are not a JSON object"),
              "%s", d.count ? d.items[0].message : "no message");
    al_diag_list_clear(&d);
    al_doc_close(doc);
    free(image);
}

CHECK_TEST(truncated, "/doc-files/a-truncated-map-is-refused-untouched")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    REQUIRE(size > 8192);
    const char *path = fixture_path("truncated.allium");
    /* Within the header, at a page boundary, and in the middle of a page. */
    const size_t cuts[] = {50, size / 2 & ~(size_t) 4095, size / 2 + 100, size - 1};
    const char *words[] = {"truncated", "truncated", "truncated", "truncated"};
    for (int c = 0; c < 4; c++) {
        REQUIRE(write_file(path, image, cuts[c]));
        check_note("cut at %zu of %zu bytes", cuts[c], size);
        expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_CORRUPT, words[c]);
    }
    free(image);
}

CHECK_TEST(checkpoint_cut, "/doc-files/a-map-cut-off-while-writing-back-its-log-opens-again")
{
    /* A commit goes to the write-ahead log; a checkpoint copies it into the file, page 1
     * (whose header gives the new size) first. What a program killed in the middle of a
     * checkpoint leaves: the whole log, and a file shorter than its header says. */
    const char *path = fixture_path("checkpoint.allium");
    REQUIRE(fixture_make_map(path, 30));
    size_t before_size;
    char *before = read_file(path, &before_size);
    REQUIRE(before);
    free(before);
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db,
                         "PRAGMA wal_autocheckpoint = 0; INSERT INTO cache(key, kind, data, "
                         "created, used) VALUES ('k', 'world', zeroblob(200000), 0, 0);",
                         NULL, NULL, NULL) == SQLITE_OK);
    char wal_path[600];
    snprintf(wal_path, sizeof wal_path, "%s-wal", path);
    size_t wal_size;
    char *wal = read_file(wal_path, &wal_size);
    REQUIRE(wal && wal_size > 200000);
    sqlite3_close(db); /* the checkpoint: the file is complete now */
    size_t size;
    char *image = read_file(path, &size);
    REQUIRE(image && size > before_size + 8192);
    const char *cut = fixture_path("checkpoint-cut.allium");
    size_t length = (before_size + size) / 2 & ~(size_t) 4095;
    REQUIRE(write_file(cut, image, length));
    snprintf(wal_path, sizeof wal_path, "%s-wal", cut);
    REQUIRE(write_file(wal_path, wal, wal_size));
    check_note("the file cut at %zu of %zu bytes, with its %zu-byte log", length, size, wal_size);
    al_doc *doc = NULL;
    al_diag_list d = {0};
    al_status st = al_doc_open(cut, AL_DOC_READ_WRITE, &doc, &d);
    CHECK_MSG(st == AL_OK, "%s: %s", al_status_name(st), d.count ? d.items[0].message : "");
    if (doc) CHECK(al_doc_count(doc, "brushes") == 30);
    al_doc_close(doc);
    al_diag_list_clear(&d);
    /* Closed, it is whole again, with what the log held. */
    CHECK(!fixture_exists(wal_path));
    REQUIRE(sqlite3_open(cut, &db) == SQLITE_OK);
    sqlite3_stmt *q;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT length(data) FROM cache WHERE key = 'k'", -1, &q,
                               NULL) == SQLITE_OK);
    CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 200000);
    sqlite3_finalize(q);
    sqlite3_close(db);
    free(image);
    free(wal);
}

CHECK_TEST(corrupt_pages, "/doc-files/damaged-pages-are-found-before-anything-is-written")
{
    size_t size;
    char *image = valid_image(&size);
    REQUIRE(image);
    const size_t page = 4096;
    const char *path = fixture_path("damaged.allium");
    int pages = (int) (size / page);
    REQUIRE(pages > 8);
    /* Pages across the file, each filled with noise in a copy of the valid map: the first
     * page after its 100-byte header (it holds the schema), then pages of table rows and
     * indexes. */
    unsigned seed = 12345;
    int tried = 0;
    for (int p = 0; p < pages; p += pages / 7 + 1) {
        char *copy = malloc(size);
        REQUIRE(copy);
        memcpy(copy, image, size);
        for (size_t i = p == 0 ? 100 : 0; i < page; i++) {
            seed = seed * 1103515245u + 12345u;
            copy[(size_t) p * page + i] = (char) (seed >> 16);
        }
        REQUIRE(write_file(path, copy, size));
        free(copy);
        check_note("page %d of %d filled with noise", p + 1, pages);
        expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_CORRUPT, "damaged");
        tried++;
    }
    CHECK(tried >= 5);
    free(image);
}

CHECK_TEST(read_only_file, "/doc-files/a-read-only-file-opens-read-only-and-stays-unchanged")
{
    const char *path = fixture_path("readonly.allium");
    REQUIRE(fixture_make_map(path, 50));
    REQUIRE(chmod(path, 0444) == 0);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_READ_ONLY, "can be opened read-only");
    uint64_t before = fixture_file_hash(path);
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_ONLY, &doc, NULL) == AL_OK);
    CHECK(al_doc_read_only(doc));
    CHECK(al_doc_count(doc, "brushes") == 50);
    al_doc_face faces[6];
    fixture_box_faces(0, 0, 0, 8, 8, 8, "x", faces);
    CHECK(al_doc_add_brush(doc, 0, faces, 6, NULL, NULL, NULL) == AL_ERR_READ_ONLY);
    CHECK(al_doc_set_property(doc, 0, "message", "hi", NULL, NULL) == AL_ERR_READ_ONLY);
    al_doc_input in;
    CHECK(al_doc_build_input(doc, &in, NULL) == AL_OK);
    al_doc_input_free(&in);
    al_doc_close(doc);
    CHECK(fixture_file_hash(path) == before);
    chmod(path, 0644);
}

/* A second program: opens PATH for writing, says so on a pipe, and holds it until the
 * parent closes the other pipe. */
static pid_t hold_open(const char *path, int *release_fd)
{
    int ready[2], release[2];
    if (pipe(ready) != 0 || pipe(release) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(release[1]);
        al_doc *doc = NULL;
        char ok = al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK ? 'y' : 'n';
        if (write(ready[1], &ok, 1) != 1) _exit(2);
        char c;
        while (read(release[0], &c, 1) > 0) {}
        al_doc_close(doc);
        _exit(ok == 'y' ? 0 : 1);
    }
    close(ready[1]);
    close(release[0]);
    char ok = 'n';
    if (read(ready[0], &ok, 1) != 1 || ok != 'y') {
        close(release[1]);
        waitpid(pid, NULL, 0);
        pid = -1;
    }
    close(ready[0]);
    *release_fd = release[1];
    return pid;
}

CHECK_TEST(locked, "/doc-files/a-map-open-for-writing-elsewhere-offers-read-only")
{
    const char *path = fixture_path("locked.allium");
    REQUIRE(fixture_make_map(path, 20));
    int release;
    pid_t other = hold_open(path, &release);
    REQUIRE(other > 0);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_LOCKED, "open for writing in another program");
    al_doc *doc = NULL;
    CHECK(al_doc_open(path, AL_DOC_READ_ONLY, &doc, NULL) == AL_OK);
    if (doc) CHECK(al_doc_count(doc, "brushes") == 20);
    al_doc_close(doc);
    close(release);
    int status = 0;
    waitpid(other, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Once the other program is gone the map opens for writing again. */
    doc = NULL;
    CHECK(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    al_doc_close(doc);
}

CHECK_TEST(unfinished, "/doc-files/a-new-map-cut-off-before-its-tables-is-finished-on-open")
{
    /* What al_doc_create leaves if it is killed after naming the file an Allium map and
     * before the transaction with the tables commits. */
    const char *path = fixture_path("unfinished.allium");
    sqlite3 *db;
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA application_id = 1097624681; PRAGMA journal_mode = WAL;",
                         NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "entities") == 1 && al_doc_count(doc, "hulls") == 4);
    al_doc_close(doc);
    /* With a table of someone else's it is not ours to finish. */
    path = fixture_path("unfinished-other.allium");
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA application_id = 1097624681; CREATE TABLE x(y);", NULL, NULL,
                         NULL) == SQLITE_OK);
    sqlite3_close(db);
    expect_refused(path, AL_DOC_READ_WRITE, AL_ERR_CORRUPT, "version 0, but it has tables");
}

CHECK_TEST(create_over, "/doc-files/a-new-map-is-never-written-over-a-file")
{
    const char *path = fixture_path("precious.allium");
    REQUIRE(write_file(path, "precious", 8));
    uint64_t before = fixture_file_hash(path);
    al_doc *doc = NULL;
    al_diag_list d = {0};
    CHECK(al_doc_create(path, &doc, &d) == AL_ERR_EXISTS);
    CHECK(said(&d, "exists already"));
    CHECK(fixture_file_hash(path) == before);
    al_diag_list_clear(&d);
}

CHECK_TEST(import_new,
           "/doc-files/an-import-is-renamed-into-place-and-clears-what-killed-ones-left")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n{\n"
                       "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) x 0 0 0 1 1\n"
                       "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) x 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) x 0 0 0 1 1\n"
                       "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) x 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) x 0 0 0 1 1\n"
                       "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) x 0 0 0 1 1\n}\n}\n";
    al_map *map = NULL;
    REQUIRE(al_map_read_buffer(text, strlen(text), &map, NULL) == AL_OK);
    /* What two killed imports left: one abandoned (its lock is free), one whose lock is
     * still held (a running import: kept). */
    char abandoned[600], running[600], journal[620];
    snprintf(abandoned, sizeof abandoned, "%s", fixture_path(".imported.allium.importing-aaaaaa"));
    snprintf(journal, sizeof journal, "%s-journal", abandoned);
    snprintf(running, sizeof running, "%s", fixture_path(".imported.allium.importing-bbbbbb"));
    REQUIRE(write_file(abandoned, "half", 4) && write_file(journal, "j", 1));
    REQUIRE(write_file(running, "half", 4));
    int held = open(running, O_RDONLY);
    REQUIRE(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0);

    const char *path = fixture_path("imported.allium");
    al_diag_list d = {0};
    CHECK(al_doc_import_new(path, map, &d) == AL_OK);
    CHECK(!fixture_exists(abandoned) && !fixture_exists(journal));
    CHECK(fixture_exists(running));
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    CHECK(al_doc_count(doc, "brushes") == 1);
    al_doc_close(doc);
    close(held);
    unlink(running);
    /* Never over a file, and the file stays as it was. */
    uint64_t before = fixture_file_hash(path);
    CHECK(al_doc_import_new(path, map, &d) == AL_ERR_EXISTS);
    CHECK(said(&d, "imported.allium") && said(&d, "exists already"));
    CHECK(fixture_file_hash(path) == before);
    al_diag_list_clear(&d);
    al_map_destroy(map);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
