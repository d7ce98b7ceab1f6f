/* Crashes lose nothing committed and show nothing half-done.
 *
 * A child process works through a fixed list of events: "add i" (one grouped step: a
 * func_wall entity tagged i with three brushes, and the world's tag set to i) and, after
 * every fifth add, "undo i". It writes an acknowledgement after each commit. The parent
 * kills it with SIGKILL at a random moment (in half of the rounds counted from the start,
 * so that some kills land while the map is being opened; in the others from the first
 * acknowledgement, so that work gets done however slow the machine), reopens the map and
 * checks: the database is
 * intact (PRAGMA integrity_check), and its contents equal the state after the last
 * acknowledged event or after the one following it (committed, not yet acknowledged),
 * never anything between. The next child resumes where the file says the work stopped,
 * so later rounds also undo steps recorded before a crash. At the end, every step is
 * undone and each undo must leave a consistent map.
 */
#include "check.h"
#include "doc-fixture.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 40
#define MAX_EVENTS 100000
#define BRUSHES_PER_STEP 3

/* Event E: the add of tag E - E / 6 ... events come in runs of five adds and one undo. */
static bool event_is_undo(int e)
{
    return e % 6 == 5;
}

static int event_tag(int e)
{
    int run = e / 6, within = e % 6;
    return run * 5 + (within == 5 ? 4 : within);
}

/* The map after events [0, N): which tags exist, and the world's tag (-1: none). */
typedef struct state {
    int tags[MAX_EVENTS / 2];
    int count;
    int world;
} state;

static void simulate(int events, state *s)
{
    static int before[MAX_EVENTS];
    s->count = 0;
    s->world = -1;
    for (int e = 0; e < events; e++) {
        int tag = event_tag(e);
        if (event_is_undo(e)) {
            s->count--; /* the undone add is always the last one */
            s->world = before[tag];
        } else {
            before[tag] = s->world;
            s->tags[s->count++] = tag;
            s->world = tag;
        }
    }
}

static void acknowledge(int fd, int event)
{
    char line[32];
    int n = snprintf(line, sizeof line, "%d\n", event);
    if (write(fd, line, (size_t) n) != n) _exit(4);
}

static al_status add_step(al_doc *doc, int tag)
{
    char label[32], json[64], value[16];
    snprintf(label, sizeof label, "step %d", tag);
    snprintf(json, sizeof json, "{\"allium_tag\": \"%d\"}", tag);
    snprintf(value, sizeof value, "%d", tag);
    al_status s = al_doc_begin_group(doc, label);
    int64_t entity = 0;
    if (s == AL_OK) s = al_doc_add_entity(doc, "func_wall", json, &entity, NULL, NULL);
    for (int b = 0; b < BRUSHES_PER_STEP && s == AL_OK; b++) {
        al_doc_face faces[6];
        double x = (tag % 40) * 64.0, y = b * 64.0, z = (tag / 40) * 64.0;
        fixture_box_faces(x, y, z, x + 48, y + 48, z + 48, "crate", faces);
        s = al_doc_add_brush(doc, entity, faces, 6, NULL, NULL, NULL);
    }
    if (s == AL_OK) s = al_doc_set_property(doc, 0, "allium_tag", value, NULL, NULL);
    if (s == AL_OK) return al_doc_end_group(doc, NULL);
    al_doc_cancel_group(doc);
    return s;
}

/* The child: events from FIRST on, acknowledging each on FD, until killed. */
static void child(const char *path, int first, int fd)
{
    al_doc *doc = NULL;
    if (al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) != AL_OK) _exit(2);
    for (int e = first; e < MAX_EVENTS; e++) {
        int tag = event_tag(e);
        if (event_is_undo(e)) {
            char label[32], expect[32];
            snprintf(expect, sizeof expect, "step %d", tag);
            if (!al_doc_undo_label(doc, false, label, sizeof label) || strcmp(label, expect) != 0)
                _exit(3);
            if (al_doc_undo(doc, NULL) != AL_OK) _exit(3);
        } else if (add_step(doc, tag) != AL_OK) {
            _exit(3);
        }
        acknowledge(fd, e);
    }
    al_doc_close(doc);
    _exit(0);
}

static int compare_int(const void *a, const void *b)
{
    return *(const int *) a - *(const int *) b;
}

/* Reads the map's state with plain SQL, checking that every tagged entity is whole (its
 * brushes, each with six faces). False, with a note, if the file is not intact. */
static bool read_state(const char *path, state *s)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return false;
    bool ok = true;
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *line = (const char *) sqlite3_column_text(st, 0);
        if (strcmp(line, "ok") != 0) {
            check_note("integrity_check: %s", line);
            ok = false;
        }
    }
    sqlite3_finalize(st);
    s->count = 0;
    s->world = -1;
    sqlite3_prepare_v2(db,
                       "SELECT CAST(json_extract(e.properties, '$.allium_tag') AS INTEGER), "
                       "(SELECT count(*) FROM brushes b WHERE b.entity = e.id), "
                       "(SELECT count(*) FROM faces f JOIN brushes b ON f.brush = b.id "
                       " WHERE b.entity = e.id) "
                       "FROM entities e WHERE e.classname = 'func_wall'",
                       -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int tag = sqlite3_column_int(st, 0), brushes = sqlite3_column_int(st, 1),
            faces = sqlite3_column_int(st, 2);
        if (brushes != BRUSHES_PER_STEP || faces != 6 * BRUSHES_PER_STEP) {
            check_note("tag %d has %d brushes and %d faces: half applied", tag, brushes, faces);
            ok = false;
        }
        if (s->count < MAX_EVENTS / 2) s->tags[s->count++] = tag;
    }
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db,
                       "SELECT CAST(json_extract(properties, '$.allium_tag') AS INTEGER) FROM "
                       "entities WHERE id = 0 AND json_extract(properties, '$.allium_tag') "
                       "IS NOT NULL",
                       -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW) s->world = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    qsort(s->tags, (size_t) s->count, sizeof s->tags[0], compare_int);
    return ok;
}

static bool same_state(const state *a, const state *b)
{
    return a->count == b->count && a->world == b->world &&
           memcmp(a->tags, b->tags, (size_t) a->count * sizeof a->tags[0]) == 0;
}

/* Reads one acknowledgement line; returns its event number, or -1 at end of file. */
static int first_acknowledged(int fd)
{
    char line[32];
    int n = 0;
    char c;
    while (read(fd, &c, 1) == 1) {
        if (c == '\n') {
            line[n] = '\0';
            return atoi(line);
        }
        if (n < 31) line[n++] = c;
    }
    return -1;
}

/* Reads acknowledgements (event numbers, one per line) until end of file; returns the last
 * one, or LAST if there are none. */
static int last_acknowledged(int fd, int last)
{
    char buf[4096], line[32];
    int n = 0;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] == '\n') {
                line[n] = '\0';
                last = atoi(line);
                n = 0;
            } else if (n < 31) {
                line[n++] = buf[i];
            }
        }
    return last;
}

static state now, expect_a, expect_b;

CHECK_TEST(killed_at_random, "/doc-crash/sigkill-at-random-moments-loses-no-acknowledged-edit")
{
    const char *path = fixture_path("crash.allium");
    REQUIRE(fixture_make_map(path, 10));
    srand((unsigned) time(NULL));
    int done = 0; /* events in the file */
    int kills_mid_way = 0;
    for (int round = 0; round < ROUNDS; round++) {
        int pipe_fd[2];
        REQUIRE(pipe(pipe_fd) == 0);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(pipe_fd[0]);
            child(path, done, pipe_fd[1]);
        }
        close(pipe_fd[1]);
        int first = round % 2 ? first_acknowledged(pipe_fd[0]) : -1;
        /* 2 to 60 ms. */
        struct timespec delay = {0, (2 + rand() % 59) * 1000000L};
        nanosleep(&delay, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        int acked = last_acknowledged(pipe_fd[0], first);
        close(pipe_fd[0]);
        REQUIRE_MSG(WIFSIGNALED(status), "the child stopped by itself (status %d)", status);
        int known = acked >= 0 ? acked + 1 : done; /* events certainly in the file */
        REQUIRE(known >= done);

        /* Reopening through the document runs SQLite's recovery of the -wal file. */
        al_doc *doc = NULL;
        al_diag_list d = {0};
        al_status s = al_doc_open(path, AL_DOC_READ_WRITE, &doc, &d);
        CHECK_MSG(s == AL_OK, "reopening after the kill: %s (%s)", al_status_name(s),
                  d.count ? d.items[0].message : "");
        al_diag_list_clear(&d);
        al_doc_close(doc);
        REQUIRE(read_state(path, &now));
        simulate(known, &expect_a);
        simulate(known + 1, &expect_b);
        bool is_a = same_state(&now, &expect_a), is_b = same_state(&now, &expect_b);
        CHECK_MSG(is_a || is_b,
                  "round %d: %d events acknowledged; the file holds %d tagged entities "
                  "(world tag %d), expected %d or %d",
                  round, known, now.count, now.world, expect_a.count, expect_b.count);
        if (!is_a && !is_b) return;
        kills_mid_way += is_b;
        done = is_a ? known : known + 1;
    }
    check_note("%d rounds, %d events committed, %d kills between a commit and its "
               "acknowledgement",
               ROUNDS, done, kills_mid_way);
    CHECK(done >= ROUNDS / 2); /* the children got real work done */

    /* Every step recorded across the crashes undoes to a consistent map. */
    al_doc *doc = NULL;
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    int undone = 0;
    bool consistent = true;
    while (al_doc_can_undo(doc) && consistent) {
        REQUIRE(al_doc_undo(doc, NULL) == AL_OK);
        undone++;
        al_doc_close(doc);
        consistent = read_state(path, &now);
        /* Undo removes the newest tag and gives the world the previous one. */
        consistent = consistent &&
                     (now.count == 0 ? now.world == -1 : now.world == now.tags[now.count - 1]);
        REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, NULL) == AL_OK);
    }
    CHECK(consistent);
    CHECK(now.count == 0 && now.world == -1);
    check_note("%d steps undone, the map checked after each", undone);
    al_doc_close(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
