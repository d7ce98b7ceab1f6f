/* Whole files in and out, for the data layer's writers and readers: a file is written
 * through a temporary file beside it, synced and renamed over, so that a crash or a full
 * disk leaves the old file or the new one, never half of one; a file is read whole, with
 * a size limit so that a stray huge file is refused rather than swallowed.
 *
 * Entry points: al_file_write_atomic, al_file_read_all. Workload: files of a few bytes
 * (a prefab) to a few hundred megabytes (a BSP with its lighting). */
#ifndef AL_FILES_H
#define AL_FILES_H

#include "al-diag.h"

#include <stdbool.h>
#include <stddef.h>

/* Writes SIZE bytes of DATA to PATH through PATH.writing, fsync and rename. Returns false,
 * with an error in DIAGS naming PATH and the reason, when it cannot; PATH is then as it
 * was and the temporary file is removed. */
bool al_file_write_atomic(const char *path, const void *data, size_t size, al_diag_list *diags);

/* Reads the whole of PATH into a new malloc'd buffer *DATA (with a NUL after its *SIZE
 * bytes). Returns false, with an error in DIAGS naming PATH, when it cannot be opened or
 * read, or holds more than LIMIT bytes; *DATA is then NULL. */
bool al_file_read_all(const char *path, size_t limit, char **data, size_t *size,
                      al_diag_list *diags);

#endif
