/* Status codes shared by every Allium library.
 *
 * Library code never exits or aborts on bad input: it returns one of these codes and, where
 * a brush, entity or file line is to blame, records a diagnostic (see al-diag.h). The list is
 * one X-macro so that the code, its name and its message cannot drift apart (sokol style).
 */
#ifndef AL_STATUS_H
#define AL_STATUS_H

#define AL_STATUS_LIST(X)                                                                  \
    X(AL_OK, "ok")                                                                         \
    X(AL_ERR_NOMEM, "out of memory")                                                       \
    X(AL_ERR_INVALID_ARGUMENT, "invalid argument")                                        \
    X(AL_ERR_IO, "file could not be read or written")                                     \
    X(AL_ERR_SYNTAX, "syntax error")                                                       \
    X(AL_ERR_LIMIT, "a limit was exceeded")                                                \
    X(AL_ERR_CANCELLED, "cancelled")                                                       \
    X(AL_ERR_NOT_A_MAP, "the file is not an Allium map")                                   \
    X(AL_ERR_VERSION, "the map was written by a newer version of Allium")                 \
    X(AL_ERR_CORRUPT, "the file is damaged")                                               \
    X(AL_ERR_LOCKED, "the map is open for writing in another program")                    \
    X(AL_ERR_READ_ONLY, "the map is open read-only")                                       \
    X(AL_ERR_NOT_FOUND, "no such object")                                                  \
    X(AL_ERR_EXISTS, "the file already exists")                                            \
    X(AL_ERR_NOTHING_TO_DO, "nothing to undo or redo")

typedef enum al_status {
#define AL_STATUS_ENUM(code, message) code,
    AL_STATUS_LIST(AL_STATUS_ENUM)
#undef AL_STATUS_ENUM
} al_status;

/* A short English message for STATUS; never NULL. */
const char *al_status_message(al_status status);

/* The code's identifier, e.g. "AL_ERR_SYNTAX"; never NULL. */
const char *al_status_name(al_status status);

#endif
