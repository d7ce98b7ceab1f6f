/* The test harness (see check.h). */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    const char *path;
    check_fn fn;
} entry;

static entry *entries;
static int entry_count, entry_capacity;
static bool current_failed, current_skipped;
static char skip_reason[256];
static const char *skip_all_reason;

void check_register(const char *path, check_fn fn)
{
    if (entry_count == entry_capacity) {
        entry_capacity = entry_capacity ? entry_capacity * 2 : 64;
        entries = realloc(entries, (size_t) entry_capacity * sizeof *entries);
        if (!entries) abort();
    }
    entries[entry_count++] = (entry){path, fn};
}

void check_fail(const char *file, int line, const char *format, ...)
{
    current_failed = true;
    va_list args;
    va_start(args, format);
    printf("# %s:%d: ", file, line);
    vprintf(format, args);
    printf("\n");
    va_end(args);
    fflush(stdout);
}

void check_note(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    printf("# ");
    vprintf(format, args);
    printf("\n");
    va_end(args);
    fflush(stdout);
}

void check_skip(const char *reason)
{
    current_skipped = true;
    snprintf(skip_reason, sizeof skip_reason, "%s", reason);
}

void check_skip_all(const char *reason)
{
    skip_all_reason = reason;
}

bool check_failed(void)
{
    return current_failed;
}

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const entry *) a)->path, ((const entry *) b)->path);
}

/* Whether PATH starts with one of the colon-separated prefixes in LIST. */
static bool listed(const char *list, const char *path)
{
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t n = end ? (size_t) (end - list) : strlen(list);
        if (n > 0 && strncmp(path, list, n) == 0) return true;
        list = end ? end + 1 : NULL;
    }
    return false;
}

int check_main(int argc, char **argv)
{
    /* -p PREFIX runs only the tests whose path starts with it; -x PREFIX (repeatable)
     * leaves out those whose path does. The environment's ALLIUM_TEST_SKIP (prefixes
     * separated by colons) skips tests, visibly: CI's ThreadSanitizer pass leaves the
     * real maps of some tests to the AddressSanitizer pass that runs them all. */
    const char *skipped = getenv("ALLIUM_TEST_SKIP");
    const char *prefix = NULL, *excluded[16];
    int excluded_count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) prefix = argv[++i];
        else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc && excluded_count < 16)
            excluded[excluded_count++] = argv[++i];
    }
    int kept = 0;
    for (int i = 0; i < entry_count; i++) {
        bool out = false;
        for (int k = 0; k < excluded_count; k++)
            out |= strncmp(entries[i].path, excluded[k], strlen(excluded[k])) == 0;
        if (!out) entries[kept++] = entries[i];
    }
    entry_count = kept;
    if (skip_all_reason) {
        printf("1..0 # SKIP %s\n", skip_all_reason);
        return 0;
    }
    qsort(entries, (size_t) entry_count, sizeof *entries, compare_entries);
    int selected = 0;
    for (int i = 0; i < entry_count; i++)
        if (!prefix || strncmp(entries[i].path, prefix, strlen(prefix)) == 0) selected++;
    printf("1..%d\n", selected);
    int failures = 0, n = 0;
    for (int i = 0; i < entry_count; i++) {
        if (prefix && strncmp(entries[i].path, prefix, strlen(prefix)) != 0) continue;
        current_failed = current_skipped = false;
        fflush(stdout);
        if (listed(skipped, entries[i].path))
            check_skip("left out by ALLIUM_TEST_SKIP");
        else
            entries[i].fn();
        n++;
        if (current_failed) {
            printf("not ok %d %s\n", n, entries[i].path);
            failures++;
        } else if (current_skipped) {
            printf("ok %d %s # SKIP %s\n", n, entries[i].path, skip_reason);
        } else {
            printf("ok %d %s\n", n, entries[i].path);
        }
        fflush(stdout);
    }
    free(entries);
    return failures ? 1 : 0;
}
