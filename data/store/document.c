/* Opening, creating and closing map documents (see document.h).
 *
 * Workload: opened a few times per editing session; the checks here cost microseconds
 * except the structural check (PRAGMA quick_check): opening lq-e3m4 (2.7 MB) takes about
 * 21 ms in all (allium-bench document, README).
 */
#include "doc-internal.h"

#include "mapfile/texture.h"
#include "materials/material-defaults.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER_SIZE 100

double al_doc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void diag(al_diag_list *diags, const char *path, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void diag(al_diag_list *diags, const char *path, const char *format, ...)
{
    char message[160];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, al_diag_translate(format), args);
    va_end(args);
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, "%s: %s", path,
                message);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* The size of PATH's write-ahead log (PATH-wal), or -1 if there is none. */
static long long wal_size(const char *path)
{
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st;
    return stat(wal, &st) == 0 ? (long long) st.st_size : -1;
}

/* Reads and checks the file's header before SQLite sees the file. */
static al_status check_header(const char *path, al_diag_list *diags)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag(diags, path, "cannot open: %s", strerror(errno));
        return errno == ENOENT ? AL_ERR_NOT_FOUND : AL_ERR_IO;
    }
    struct stat st;
    unsigned char h[HEADER_SIZE];
    bool folder = false;
    ssize_t got = -1;
    if (fstat(fd, &st) == 0) {
        folder = S_ISDIR(st.st_mode);
        if (!folder) got = read(fd, h, sizeof h);
    }
    int read_errno = errno;
    close(fd);
    if (folder) {
        diag(diags, path, "is a folder, not a map");
        return AL_ERR_NOT_A_MAP;
    }
    if (got < 0) {
        diag(diags, path, "cannot read: %s", strerror(read_errno));
        return AL_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        diag(diags, path, "is not a regular file");
        return AL_ERR_NOT_A_MAP;
    }
    if (got == 0) {
        diag(diags, path, "is empty, not an Allium map");
        return AL_ERR_NOT_A_MAP;
    }
    if (got < 16 || memcmp(h, "SQLite format 3", 16) != 0) {
        diag(diags, path, "is not an Allium map (not an SQLite database)");
        return AL_ERR_NOT_A_MAP;
    }
    if (got < HEADER_SIZE) {
        diag(diags, path, "is truncated (%zd bytes, shorter than a database header)", got);
        return AL_ERR_CORRUPT;
    }
    uint32_t app = be32(h + 68);
    if (app != AL_DOC_APPLICATION_ID) {
        diag(diags, path, "is an SQLite database but not an Allium map (application id 0x%08x)",
             app);
        return AL_ERR_NOT_A_MAP;
    }
    uint32_t version = be32(h + 60);
    if (version > AL_DOC_SCHEMA_VERSION) {
        diag(diags, path,
             "was written by a newer Allium (map format %u; this version reads up to %d)",
             version, AL_DOC_SCHEMA_VERSION);
        return AL_ERR_VERSION;
    }
    uint32_t page = (uint32_t) h[16] << 8 | h[17];
    if (page == 1) page = 65536;
    uint32_t pages = be32(h + 28);
    bool pages_valid = be32(h + 24) == be32(h + 92); /* size field trusted only then */
    if (page < 512 || (page & (page - 1)) != 0) {
        diag(diags, path, "is damaged (page size %u in the header)", page);
        return AL_ERR_CORRUPT;
    }
    /* With a write-ahead log the file may be shorter than its header says: a checkpoint
     * writes page 1 first and was cut off before the pages after it; SQLite finishes it
     * from the log. */
    bool log_pending = wal_size(path) > 0;
    if ((uint64_t) st.st_size % page != 0 ||
        (pages_valid && !log_pending && (uint64_t) st.st_size < (uint64_t) pages * page)) {
        diag(diags, path, "is truncated (%lld bytes; the header says %llu)",
             (long long) st.st_size, (unsigned long long) pages * page);
        return AL_ERR_CORRUPT;
    }
    return AL_OK;
}

int al_doc_exec(al_doc *doc, const char *sql)
{
    return sqlite3_exec(doc->db, sql, NULL, NULL, NULL);
}

sqlite3_stmt *al_doc_prepare(al_doc *doc, const char *sql)
{
    /* Linear probing, never evicting: the SQL texts are the program's own constants, a few
     * dozen, so a statement being stepped is never finalized under its caller. */
    enum { SLOTS = sizeof doc->statements / sizeof doc->statements[0] };
    unsigned slot = (unsigned) ((uintptr_t) sql >> 3) % SLOTS;
    for (unsigned probe = 0; probe < SLOTS; probe++, slot = (slot + 1) % SLOTS) {
        if (doc->statements[slot].sql == sql) {
            sqlite3_stmt *st = doc->statements[slot].st;
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            return st;
        }
        if (!doc->statements[slot].sql) {
            sqlite3_stmt *st = NULL;
            if (sqlite3_prepare_v3(doc->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
                SQLITE_OK)
                return NULL;
            doc->statements[slot].sql = sql;
            doc->statements[slot].st = st;
            return st;
        }
    }
    return NULL; /* more distinct statements than slots: a programming error */
}

int64_t al_doc_query_id(al_doc *doc, const char *sql, int64_t id)
{
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, id);
    int64_t value = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    return value;
}

al_status al_doc_sqlite_status(al_doc *doc, int rc, const char *doing, al_diag_list *diags)
{
    int base = rc & 0xff;
    const char *why = doc && doc->db ? sqlite3_errmsg(doc->db) : sqlite3_errstr(rc);
    al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_BAD_VALUE, -1, -1, -1, -1, -1, "%s: %s", doing,
                why);
    switch (base) {
    case SQLITE_NOMEM: return AL_ERR_NOMEM;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return AL_ERR_CORRUPT;
    case SQLITE_READONLY: return AL_ERR_READ_ONLY;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return AL_ERR_LOCKED;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE: return AL_ERR_INVALID_ARGUMENT;
    default: return AL_ERR_IO;
    }
}

/* Settings applied to every connection. synchronous = FULL: a commit survives a crash of
 * the machine, not only of the program. Measured (allium-bench document, README): a
 * single-brush edit takes 0.7 ms at the median with FULL, 0.23 ms with NORMAL. */
static int configure(al_doc *doc)
{
    int rc = al_doc_exec(doc, "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 2000;");
    if (rc == SQLITE_OK && !doc->read_only)
        rc = al_doc_exec(doc, "PRAGMA synchronous = FULL;");
    return rc;
}

static al_doc *new_doc(const char *path)
{
    al_doc *doc = calloc(1, sizeof *doc);
    if (!doc) return NULL;
    doc->path = strdup(path);
    doc->lock_fd = -1;
    doc->history = 1000;
    if (!doc->path) {
        free(doc);
        return NULL;
    }
    return doc;
}

/* Takes the writer's lock: an flock on the file, independent of SQLite's own fcntl locks,
 * held while the document is open. */
static al_status take_writer_lock(al_doc *doc, al_diag_list *diags)
{
    doc->lock_fd = open(doc->path, O_RDONLY | O_CLOEXEC);
    if (doc->lock_fd < 0) {
        diag(diags, doc->path, "cannot open: %s", strerror(errno));
        return AL_ERR_IO;
    }
    if (flock(doc->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(doc->lock_fd);
        doc->lock_fd = -1;
        if (e == EWOULDBLOCK) {
            diag(diags, doc->path,
                 "is open for writing in another program; it can be opened read-only");
            return AL_ERR_LOCKED;
        }
        diag(diags, doc->path, "cannot be locked: %s", strerror(e));
        return AL_ERR_IO;
    }
    return AL_OK;
}

void al_doc_close(al_doc *doc)
{
    if (!doc) return;
    if (doc->in_group) al_doc_cancel_group(doc);
    if (doc->db) {
        /* Finalize the statements prepared for this document. */
        sqlite3_stmt *st;
        while ((st = sqlite3_next_stmt(doc->db, NULL)) != NULL) sqlite3_finalize(st);
        sqlite3_close(doc->db);
    }
    if (doc->lock_fd >= 0) close(doc->lock_fd);
    al_doc_change_clear(&doc->pending);
    al_brush_builder_destroy(doc->brushes);
    free(doc->path);
    free(doc);
}

/* The default contents of a new map: the hulls, settings and the world entity. */
static int create_contents(al_doc *doc)
{
    const al_hull_desc *hulls;
    int count = al_default_hulls(&hulls);
    int rc = al_doc_exec(doc,
                         "INSERT INTO settings(key, value) VALUES ('block_size', '1024'), "
                         "('luxel_size', '16');"
                         "INSERT INTO entities(id, position, classname, properties) "
                         "VALUES (0, 0, 'worldspawn', '{}');");
    for (int h = 0; h < count && rc == SQLITE_OK; h++) {
        sqlite3_stmt *st;
        rc = sqlite3_prepare_v2(doc->db,
                                "INSERT INTO hulls(position, name, minx, miny, minz, maxx, maxy, "
                                "maxz) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                -1, &st, NULL);
        if (rc != SQLITE_OK) break;
        sqlite3_bind_int(st, 1, h);
        sqlite3_bind_text(st, 2, hulls[h].name, -1, SQLITE_STATIC);
        for (int k = 0; k < 3; k++) {
            sqlite3_bind_double(st, 3 + k, hulls[h].mins[k]);
            sqlite3_bind_double(st, 6 + k, hulls[h].maxs[k]);
        }
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(doc->db);
        sqlite3_finalize(st);
    }
    return rc;
}

/* Creates the tables and the default contents, and sets the version: one transaction, so a
 * map is either empty of tables (version 0) or complete. */
static int initialize(al_doc *doc)
{
    int rc = al_doc_exec(doc, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK) rc = al_schema_create(doc->db);
    if (rc == SQLITE_OK) rc = create_contents(doc);
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d; COMMIT;", AL_DOC_SCHEMA_VERSION);
    if (rc == SQLITE_OK) rc = al_doc_exec(doc, pragma);
    if (rc != SQLITE_OK) al_doc_exec(doc, "ROLLBACK");
    return rc;
}

al_status al_doc_create(const char *path, al_doc **out, al_diag_list *diags)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) == 0) {
        diag(diags, path, "exists already; a new map is never written over a file");
        return AL_ERR_EXISTS;
    }
    al_doc *doc = new_doc(path);
    if (!doc) return AL_ERR_NOMEM;
    int rc = sqlite3_open_v2(path, &doc->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE,
                             NULL);
    al_status status = AL_OK;
    if (rc != SQLITE_OK) {
        status = al_doc_sqlite_status(doc, rc, "creating the map", diags);
        goto fail;
    }
    /* The lock as soon as the file exists: from then on the file is visibly in use (an
     * import's temporary file is taken for abandoned only when its lock is free). */
    if ((status = take_writer_lock(doc, diags)) != AL_OK) goto fail;
    char pragma[128];
    snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d; PRAGMA journal_mode = WAL;",
             AL_DOC_APPLICATION_ID);
    if ((rc = al_doc_exec(doc, pragma)) != SQLITE_OK || (rc = configure(doc)) != SQLITE_OK ||
        (rc = initialize(doc)) != SQLITE_OK) {
        status = al_doc_sqlite_status(doc, rc, "creating the map", diags);
        goto fail;
    }
    *out = doc;
    return AL_OK;

fail:
    al_doc_close(doc);
    unlink(path); /* ours: we created it */
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return status;
}

static int read_int(al_doc *doc, const char *sql, int *value)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(doc->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *value = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Opens PATH for reading. IMMUTABLE tells SQLite that nothing changes the file while it is
 * open, so that it creates no -wal or -shm file beside it (it then also ignores any -wal:
 * callers pass it only when there is none). */
static int open_reader(const char *path, bool immutable, sqlite3 **db)
{
    int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_EXRESCODE;
    if (!immutable) return sqlite3_open_v2(path, db, flags, NULL);
    /* A URI, with the characters URIs give a meaning escaped. */
    char uri[4200] = "file:";
    size_t n = strlen(uri);
    for (const char *c = path; *c && n + 32 < sizeof uri; c++) {
        if (*c == '%' || *c == '?' || *c == '#') n += (size_t) snprintf(uri + n, 4, "%%%02X", *c);
        else uri[n++] = *c;
    }
    snprintf(uri + n, sizeof uri - n, "?immutable=1");
    return sqlite3_open_v2(uri, db, flags | SQLITE_OPEN_URI, NULL);
}

static bool has_wal(const char *path)
{
    return wal_size(path) >= 0;
}

/* Checks DB's structure (PRAGMA quick_check) and reads its schema version. A damaged file
 * is reported by the first problem found, e.g. "page 2: btreeInitPage() returns error code
 * 11". */
static al_status check_database(sqlite3 *db, const char *path, int *version,
                                al_diag_list *diags)
{
    al_status status = AL_OK;
    sqlite3_stmt *st = NULL;
    /* The check reads every page, most of them the compile cache's blobs (200 MB for a map
     * of 20,000 brushes): through a memory map rather than a copy per page it takes about
     * half the time. (This connection only reads, and only for the check.) */
    sqlite3_exec(db, "PRAGMA mmap_size = 4294967296", NULL, NULL, NULL);
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        const char *text = rc == SQLITE_ROW ? (const char *) sqlite3_column_text(st, 0) : NULL;
        if (text && strcmp(text, "ok") != 0) {
            char line[120];
            size_t n = 0;
            if (strncmp(text, "*** in database main ***\n", 25) == 0) text += 25;
            for (; *text && *text != '\n' && n + 1 < sizeof line; text++) line[n++] = *text;
            line[n] = '\0';
            if (n > 0 && line[0] == 'P') line[0] = 'p';
            diag(diags, path, "is damaged (%s)", line);
            status = AL_ERR_CORRUPT;
        }
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (status == AL_OK && rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *version = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        }
        sqlite3_finalize(st);
    }
    if (status == AL_OK && rc != SQLITE_OK) {
        int base = rc & 0xff;
        bool damaged = base == SQLITE_CORRUPT || base == SQLITE_NOTADB;
        diag(diags, path, "%s: %s", damaged ? "is damaged" : "cannot be read",
             sqlite3_errmsg(db));
        status = damaged || base != SQLITE_CANTOPEN ? AL_ERR_CORRUPT : AL_ERR_IO;
    }
    /* Sound pages can still hold the wrong tables (one dropped by hand, a trigger of the
     * undo journal gone): every edit would then fail. Refused before anything is written. */
    char problem[160];
    if (status == AL_OK && *version == AL_DOC_SCHEMA_VERSION &&
        !al_schema_check(db, problem, sizeof problem)) {
        diag(diags, path, "is damaged: %s", problem);
        status = AL_ERR_CORRUPT;
    }
    /* Entity properties the CHECK constraint would refuse (a file changed by another
     * program): no compile and no edit of the entity could read them. */
    if (status == AL_OK && *version == AL_DOC_SCHEMA_VERSION &&
        al_doc_find_bad_properties(db, problem, sizeof problem) >= 0) {
        diag(diags, path, "is damaged: %s", problem);
        status = AL_ERR_CORRUPT;
    }
    return status;
}

int al_doc_find_bad_properties(sqlite3 *db, char *problem, size_t size)
{
    /* Entities in the map's order (the world first), each with its index in that order. */
    static const char *invalid =
        "SELECT (SELECT count(*) FROM entities o WHERE (o.id != 0, o.position, o.id) < "
        "(e.id != 0, e.position, e.id)), e.classname, substr(e.properties, 1, 40) FROM entities e "
        "WHERE NOT CASE WHEN json_valid(e.properties) THEN json_type(e.properties) = 'object' "
        "ELSE 0 END ORDER BY e.id != 0, e.position, e.id LIMIT 1";
    static const char *not_text =
        "SELECT (SELECT count(*) FROM entities o WHERE (o.id != 0, o.position, o.id) < "
        "(e.id != 0, e.position, e.id)), e.classname, j.key, j.type FROM entities e, "
        "json_each(e.properties) j WHERE j.type != 'text' ORDER BY e.id != 0, e.position, e.id "
        "LIMIT 1";
    int found = -1;
    for (int pass = 0; pass < 2 && found < 0; pass++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, pass == 0 ? invalid : not_text, -1, &st, NULL) != SQLITE_OK)
            return -1;
        if (sqlite3_step(st) == SQLITE_ROW) {
            found = sqlite3_column_int(st, 0);
            const char *classname = (const char *) sqlite3_column_text(st, 1);
            const char *text = (const char *) sqlite3_column_text(st, 2);
            if (pass == 0)
                snprintf(problem, size,
                         al_diag_translate(AL_N_("entity %d (%s): its properties are not a JSON "
                                                 "object: \"%s\"")),
                         found, classname ? classname : "", text ? text : "");
            else
                snprintf(problem, size,
                         al_diag_translate(AL_N_("entity %d (%s): its property \"%s\" is %s, not "
                                                 "text")),
                         found, classname ? classname : "", text ? text : "",
                         (const char *) sqlite3_column_text(st, 3));
        }
        sqlite3_finalize(st);
    }
    return found;
}

/* Whether the designer may write PATH; if not, says why. */
static bool writable(const char *path, al_diag_list *diags)
{
    /* A file without write permission is read-only even for root, who could write it: the
     * designer marked it so. SQLite also needs to write the folder (WAL files). */
    struct stat st;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *folder = slash ? (dir[0] ? dir : "/") : ".";
    bool file_ro = stat(path, &st) != 0 || (st.st_mode & 0222) == 0 || access(path, W_OK) != 0;
    if (file_ro || access(folder, W_OK) != 0) {
        if (diags)
            diag(diags, path, "is read-only (%s); it can be opened read-only",
                 file_ro ? "the file cannot be written" : "its folder cannot be written");
        return false;
    }
    return true;
}

al_status al_doc_open(const char *path, al_doc_mode mode, al_doc **out, al_diag_list *diags)
{
    *out = NULL;
    al_status status = check_header(path, diags);
    if (status != AL_OK) return status;
    bool read_only = mode == AL_DOC_READ_ONLY;
    if (!read_only && !writable(path, diags)) return AL_ERR_READ_ONLY;
    al_doc *doc = new_doc(path);
    if (!doc) return AL_ERR_NOMEM;
    doc->read_only = read_only;
    int version = 0, rc;
    /* A writer takes its lock first, so that no other writer changes the file between the
     * check and our use of it. The checks run on a reading connection closed before the
     * file is opened: a damaged file is never written to, not even by the checkpoint of a
     * closing connection. Without a -wal file (no unfinished commits) the reader is
     * immutable and leaves no files behind, so a refused file stays exactly as it was. */
    if (!read_only && (status = take_writer_lock(doc, diags)) != AL_OK) goto fail;
    sqlite3 *reader = NULL;
    rc = open_reader(path, !has_wal(path), &reader);
    status = rc == SQLITE_OK ? check_database(reader, path, &version, diags)
                             : al_doc_sqlite_status(NULL, rc, "opening the map", diags);
    sqlite3_close(reader);
    if (status != AL_OK) goto fail;
    if (!read_only)
        rc = sqlite3_open_v2(path, &doc->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_EXRESCODE, NULL);
    else
        /* A reader never writes the file. A file nobody may write, with no unfinished
         * commits, is opened immutable: no lock files appear beside it. */
        rc = open_reader(path, !has_wal(path) && !writable(path, NULL), &doc->db);
    if (rc != SQLITE_OK || (rc = configure(doc)) != SQLITE_OK) {
        status = al_doc_sqlite_status(doc, rc, "opening the map", diags);
        goto fail;
    }
    if (read_only && version < AL_DOC_SCHEMA_VERSION) {
        diag(diags, path,
             "uses an older map format (%d) that must be upgraded; open it "
             "for writing once",
             version);
        status = AL_ERR_VERSION;
        goto fail;
    }
    if (version == 0) {
        /* A new map whose creation was cut off (the program was killed, the disk filled)
         * before its tables were committed: it holds nothing, so it is finished now. */
        int tables = -1;
        read_int(doc, "SELECT count(*) FROM sqlite_schema", &tables);
        if (tables != 0) {
            diag(diags, path, "is damaged (schema version 0, but it has tables)");
            status = AL_ERR_CORRUPT;
            goto fail;
        }
        if ((rc = initialize(doc)) != SQLITE_OK) {
            status = al_doc_sqlite_status(doc, rc, "finishing the new map", diags);
            goto fail;
        }
    } else if (version < AL_DOC_SCHEMA_VERSION) {
        if ((rc = al_doc_exec(doc, "BEGIN IMMEDIATE")) != SQLITE_OK ||
            (rc = al_schema_migrate(doc->db, version)) != SQLITE_OK) {
            al_doc_exec(doc, "ROLLBACK");
            status = al_doc_sqlite_status(doc, rc, "upgrading the map format", diags);
            goto fail;
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d; COMMIT;",
                 AL_DOC_SCHEMA_VERSION);
        if ((rc = al_doc_exec(doc, pragma)) != SQLITE_OK) {
            al_doc_exec(doc, "ROLLBACK");
            status = al_doc_sqlite_status(doc, rc, "upgrading the map format", diags);
            goto fail;
        }
    }
    *out = doc;
    return AL_OK;

fail:
    al_doc_close(doc);
    return status;
}

al_status al_doc_set_durable(al_doc *doc, bool durable)
{
    if (doc->read_only) return AL_OK;
    return al_doc_exec(doc, durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL") ==
                   SQLITE_OK
               ? AL_OK
               : AL_ERR_IO;
}

bool al_doc_read_only(const al_doc *doc)
{
    return doc->read_only;
}

const char *al_doc_path(const al_doc *doc)
{
    return doc->path;
}

void al_doc_change_clear(al_doc_change *change)
{
    if (!change) return;
    free(change->entities);
    free(change->brushes);
    memset(change, 0, sizeof *change);
}

/* Steps ST (a query of one id column, bound) to its end, collecting the ids into *IDS
 * (malloc'd, *COUNT of them; NULL and 0 on failure), and resets it. */
static al_status read_ids(sqlite3_stmt *st, int64_t **ids, int *count)
{
    *ids = NULL;
    *count = 0;
    int capacity = 0, rc;
    al_status status = AL_OK;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!al_doc_grow((void **) ids, &capacity, *count, sizeof **ids)) {
            status = AL_ERR_NOMEM;
            break;
        }
        (*ids)[(*count)++] = sqlite3_column_int64(st, 0);
    }
    if (status == AL_OK && rc != SQLITE_DONE) status = AL_ERR_IO;
    sqlite3_reset(st);
    if (status != AL_OK) {
        free(*ids);
        *ids = NULL;
        *count = 0;
    }
    return status;
}

al_status al_doc_list_brushes(al_doc *doc, int64_t entity, int64_t **ids, int *count)
{
    static const char *one = "SELECT id FROM brushes WHERE entity = ? ORDER BY position, id";
    static const char *all = "SELECT id FROM brushes ORDER BY entity, position, id";
    *ids = NULL;
    *count = 0;
    sqlite3_stmt *st = al_doc_prepare(doc, entity >= 0 ? one : all);
    if (!st) return AL_ERR_IO;
    if (entity >= 0) sqlite3_bind_int64(st, 1, entity);
    return read_ids(st, ids, count);
}

/* The ids SQL (a query of one id column with one text parameter) finds for NAME. */
static al_status ids_by_name(al_doc *doc, const char *sql, const char *name, int64_t **ids,
                             int *count)
{
    *ids = NULL;
    *count = 0;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_text(st, 1, name ? name : "", -1, SQLITE_TRANSIENT);
    return read_ids(st, ids, count);
}

al_status al_doc_brushes_with_material(al_doc *doc, const char *material, int64_t **ids,
                                       int *count)
{
    static const char *sql =
        "SELECT b.id FROM brushes b WHERE EXISTS (SELECT 1 FROM faces f JOIN materials m "
        "ON m.id = f.material WHERE f.brush = b.id AND m.name = ?) "
        "ORDER BY b.entity, b.position, b.id";
    return ids_by_name(doc, sql, material, ids, count);
}

al_status al_doc_entities_with_class(al_doc *doc, const char *classname, int64_t **ids,
                                     int *count)
{
    /* The world first, then the map's order (al_doc_export_map). */
    static const char *sql =
        "SELECT id FROM entities WHERE classname = ? ORDER BY id != 0, position, id";
    return ids_by_name(doc, sql, classname, ids, count);
}

bool al_doc_brush_box(al_doc *doc, int64_t brush, double mins[3], double maxs[3])
{
    static const char *sql =
        "SELECT minx, miny, minz, maxx, maxy, maxz FROM brushes WHERE id = ? AND minx IS NOT NULL";
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, brush);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found)
        for (int k = 0; k < 3; k++) {
            mins[k] = sqlite3_column_double(st, k);
            maxs[k] = sqlite3_column_double(st, 3 + k);
        }
    sqlite3_reset(st);
    return found;
}

void al_doc_read_face_texture(sqlite3_stmt *st, int col, al_map_face *f)
{
    f->valve = sqlite3_column_int(st, col) != 0;
    for (int k = 0; k < 3; k++) {
        f->u_axis[k] = sqlite3_column_double(st, col + 1 + k);
        f->v_axis[k] = sqlite3_column_double(st, col + 5 + k);
    }
    f->u_offset = sqlite3_column_double(st, col + 4);
    f->v_offset = sqlite3_column_double(st, col + 8);
    f->offset[0] = sqlite3_column_double(st, col + 9);
    f->offset[1] = sqlite3_column_double(st, col + 10);
    f->rotation = sqlite3_column_double(st, col + 11);
    f->scale[0] = sqlite3_column_double(st, col + 12);
    f->scale[1] = sqlite3_column_double(st, col + 13);
}

void al_doc_face_axes(sqlite3_stmt *st, int col, const double points[3][3], double axes[2][4])
{
    al_map_face f = {0};
    memcpy(f.points, points, sizeof f.points);
    al_doc_read_face_texture(st, col, &f);
    al_texture_axes(&f, axes);
}

al_status al_doc_face_texture(al_doc *doc, int64_t brush, int index, al_doc_texture *out)
{
    static const char *sql = "SELECT m.name, " AL_DOC_TEXTURE_COLUMNS
                             " FROM faces f JOIN materials m ON m.id = f.material WHERE "
                             "f.brush = ? ORDER BY f.position LIMIT 1 OFFSET ?";
    memset(out, 0, sizeof *out);
    if (index < 0) return AL_ERR_NOT_FOUND;
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) return AL_ERR_IO;
    sqlite3_bind_int64(st, 1, brush);
    sqlite3_bind_int(st, 2, index);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *name = (const char *) sqlite3_column_text(st, 0);
        snprintf(out->material, sizeof out->material, "%s", name ? name : "");
        al_map_face f = {0};
        al_doc_read_face_texture(st, 1, &f);
        out->valve = f.valve;
        memcpy(out->u_axis, f.u_axis, sizeof out->u_axis);
        memcpy(out->v_axis, f.v_axis, sizeof out->v_axis);
        out->u_offset = f.u_offset;
        out->v_offset = f.v_offset;
        memcpy(out->offset, f.offset, sizeof out->offset);
        out->rotation = f.rotation;
        memcpy(out->scale, f.scale, sizeof out->scale);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? AL_OK : rc == SQLITE_DONE ? AL_ERR_NOT_FOUND : AL_ERR_IO;
}

/* The strings of one face read by al_doc_read_faces, kept after the faces in their block. */
typedef struct face_strings {
    char material[256], surface[64], points_text[256];
} face_strings;

al_status al_doc_read_faces(al_doc *doc, int64_t brush, al_doc_face **faces, int *count)
{
    static const char *sql =
        "SELECT f.x0, f.y0, f.z0, f.x1, f.y1, f.z1, f.x2, f.y2, f.z2, m.name, f.surface, "
        "f.points_text, " AL_DOC_TEXTURE_COLUMNS " FROM faces f JOIN materials m ON m.id = "
        "f.material WHERE f.brush = ? ORDER BY f.position";
    *faces = NULL;
    *count = 0;
    size_t per = sizeof(al_doc_face) + sizeof(face_strings);
    al_doc_face *out = malloc(AL_BRUSH_MAX_FACES * per);
    if (!out) return AL_ERR_NOMEM;
    face_strings *text = (face_strings *) (out + AL_BRUSH_MAX_FACES);
    sqlite3_stmt *st = al_doc_prepare(doc, sql);
    if (!st) {
        free(out);
        return AL_ERR_IO;
    }
    sqlite3_bind_int64(st, 1, brush);
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < AL_BRUSH_MAX_FACES) {
        al_doc_face *f = &out[n];
        memset(f, 0, sizeof *f);
        for (int i = 0; i < 9; i++) f->points[i / 3][i % 3] = sqlite3_column_double(st, i);
        const char *name = (const char *) sqlite3_column_text(st, 9);
        const char *surface = (const char *) sqlite3_column_text(st, 10);
        const char *points = (const char *) sqlite3_column_text(st, 11);
        snprintf(text[n].material, sizeof text[n].material, "%s", name ? name : "");
        f->material = text[n].material;
        if (surface) {
            snprintf(text[n].surface, sizeof text[n].surface, "%s", surface);
            f->surface = text[n].surface;
        }
        /* A points text too long for the block is left out: the points are the same. */
        if (points && strlen(points) < sizeof text[n].points_text) {
            memcpy(text[n].points_text, points, strlen(points) + 1);
            f->points_text = text[n].points_text;
        }
        al_map_face m = {0};
        al_doc_read_face_texture(st, 12, &m);
        f->valve = m.valve;
        memcpy(f->u_axis, m.u_axis, sizeof f->u_axis);
        memcpy(f->v_axis, m.v_axis, sizeof f->v_axis);
        f->u_offset = m.u_offset;
        f->v_offset = m.v_offset;
        memcpy(f->offset, m.offset, sizeof f->offset);
        f->rotation = m.rotation;
        memcpy(f->scale, m.scale, sizeof f->scale);
        n++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        free(out);
        return AL_ERR_IO;
    }
    if (n == 0) {
        free(out);
        return AL_ERR_NOT_FOUND;
    }
    *faces = out;
    *count = n;
    return AL_OK;
}

int al_doc_count(al_doc *doc, const char *table)
{
    if (al_doc_table_index(table) < 0) return -1;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    int n = -1;
    read_int(doc, sql, &n);
    return n;
}
