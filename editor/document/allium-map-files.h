/* Between Quake .map files and map documents, for the editor: importing a .map into a new
 * document next to it, preparing the bundled sample, exporting a document as a .map or as a
 * Quake BSP.
 *
 * Errors are GErrors in ALLIUM_DOCUMENT_ERROR carrying the reader's diagnostics (a syntax
 * error names its line and column).
 */
#pragma once

#include "allium-document.h"

#include "export/bsp.h"

G_BEGIN_DECLS

/* Whether PATH is to be opened as a map document: its content starts like SQLite, or its
 * name ends in ".allium" (so that a damaged document is reported as one, not read as a
 * .map). */
gboolean allium_path_is_document(const char *path);

/* Where documents go whose .map lies in a folder we may not write:
 * g_get_user_data_dir()/allium. Free with g_free. */
char *allium_default_document_dir(void);

/* Imports the .map at MAP_PATH into a new document "NAME.allium" in the same folder
 * ("NAME (2).allium", ... if that exists), or in FALLBACK_DIR (NULL: the default) when the
 * folder is not writable. Returns the new document's path, in *WARNINGS how many warnings
 * the reader and the import gave, and in *FIRST_WARNING (when not NULL; free with g_free)
 * the first of them, or NULL. Any thread: it opens its own document. */
char *allium_import_map(const char *map_path, const char *fallback_dir, int *warnings,
                        char **first_warning, GError **error);

/* Imports the .map at MAP_PATH into a new document at exactly TARGET, which must not
 * exist. Any thread. */
gboolean allium_import_map_to(const char *map_path, const char *target, GError **error);

/* allium_import_map on a worker thread. */
void allium_import_map_async(const char *map_path, const char *fallback_dir,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
char *allium_import_map_finish(GAsyncResult *result, int *warnings, char **first_warning,
                               GError **error);

/* Makes sure TARGET is a valid document of the bundled sample map: if it does not exist,
 * or does not open as a map document (it is then moved aside as TARGET.damaged), imports
 * ALLIUM_SAMPLE_MAP into it. */
gboolean allium_prepare_sample(const char *target, GError **error);

/* Writes DOCUMENT as a .map at PATH (Valve 220 if any face was written so, else standard
 * Quake), atomically: a failure leaves an older PATH untouched. Main thread. */
gboolean allium_export_map(AlliumDocument *document, const char *path, GError **error);

/* Writes DOCUMENT as a Quake BSP (export/bsp.h) at PATH in FORMAT, without blocking: the
 * document is read as a .map here (main thread), then compiled (tight PVS), lit (to a
 * residual of 1%) and written with its .lit on a worker thread, with the textures of the
 * worldspawn's WADs found beside the document. PATH is written through a temporary file and a
 * rename: a failure leaves an older PATH untouched. */
void allium_export_bsp_async(AlliumDocument *document, const char *path, al_bsp_format format,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);

/* The export's result: TRUE when written, with in *WARNINGS (may be NULL) how many
 * warnings it gave and in *FIRST_WARNING (may be NULL; free with g_free) the first. A map
 * past BSP29's limits fails with the limit named. */
gboolean allium_export_bsp_finish(GAsyncResult *result, int *warnings, char **first_warning,
                                  GError **error);

G_END_DECLS
