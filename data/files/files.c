/* Whole files in and out (files.h). */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool al_file_write_atomic(const char *path, const void *data, size_t size, al_diag_list *diags)
{
    size_t n = strlen(path) + 16;
    char *temp = malloc(n);
    if (!temp) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "%s: cannot be written: %s", path, strerror(ENOMEM));
        return false;
    }
    snprintf(temp, n, "%s.writing", path);
    errno = 0;
    FILE *f = fopen(temp, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    int error = errno;
    ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(temp, path) != 0) ok = false;
    if (!ok) {
        if (errno) error = errno;
        unlink(temp);
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "%s: cannot be written: %s", path, strerror(error ? error : EIO));
    }
    free(temp);
    return ok;
}

bool al_file_read_all(const char *path, size_t limit, char **data, size_t *size,
                      al_diag_list *diags)
{
    *data = NULL;
    *size = 0;
    errno = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                    "%s: cannot be read: %s", path, strerror(errno ? errno : EIO));
        return false;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    bool ok = buf != NULL, too_big = false;
    while (ok) {
        if (len == cap) {
            if (cap > limit) {
                too_big = true;
                ok = false;
                break;
            }
            size_t grown = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
            char *more = realloc(buf, grown + 1);
            if (!more) {
                ok = false;
                break;
            }
            buf = more;
            cap = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) ok = false;
            break;
        }
    }
    int error = errno;
    fclose(f);
    if (ok && len > limit) too_big = true, ok = false;
    if (!ok) {
        free(buf);
        if (too_big)
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_LIMIT, -1, -1, -1, -1, -1,
                        "%s: larger than %zu bytes", path, limit);
        else
            al_diag_add(diags, AL_SEVERITY_ERROR, AL_DIAG_SYNTAX, -1, -1, -1, -1, -1,
                        "%s: cannot be read: %s", path, strerror(error ? error : EIO));
        return false;
    }
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return true;
}
