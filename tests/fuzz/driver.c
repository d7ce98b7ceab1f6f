/* Runs saved fuzzer inputs through a libFuzzer target without libFuzzer: every file named
 * on the command line, and every file in every folder named. A crash, a sanitizer report
 * or an abort in the target fails the run; it prints what it ran. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *d = realloc(data, cap *= 2);
            if (!d) free(data);
            data = d;
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    /* An exact-size copy, so that reads past the end are caught by the sanitizers. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) memcpy(exact, data, n);
    free(data);
    if (!exact) return 1;
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

int main(int argc, char **argv)
{
    int inputs = 0, failures = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += run_file(argv[i]);
            inputs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            return 1;
        }
        /* In name order, so that a failure is reproducible by its position. */
        char **names = NULL;
        size_t count = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            if (count == cap) {
                cap = cap ? cap * 2 : 256;
                char **grown = realloc(names, cap * sizeof *names);
                if (!grown) return 1;
                names = grown;
            }
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[count] = malloc(len);
            if (!names[count]) return 1;
            snprintf(names[count++], len, "%s/%s", argv[i], e->d_name);
        }
        closedir(d);
        qsort(names, count, sizeof *names, compare);
        for (size_t k = 0; k < count; k++) {
            failures += run_file(names[k]);
            inputs++;
            free(names[k]);
        }
        free(names);
    }
    printf("%d saved inputs run, %d unreadable\n", inputs, failures);
    return failures ? 1 : inputs == 0 ? 77 : 0; /* 77: nothing to run is a skip */
}
