/* What the editor keeps of a map between runs that is not part of the map: its collision
 * test boxes (allium_collision_save_boxes's text), by the map's path.
 *
 * One key file, g_get_user_data_dir()/allium/session.ini, beside the documents the editor
 * makes there; a group per map (its absolute path). Written whole to a temporary file
 * and renamed over the old one. Main thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The session file's path. Free with g_free. */
char *allium_session_path(void);

/* The test boxes kept for the map at DOCUMENT_PATH, or NULL. Free with g_free. */
char *allium_session_get_test_boxes(const char *document_path);

/* Keeps BOXES (NULL or "": none) for the map at DOCUMENT_PATH. FALSE with ERROR if the
 * file could not be written. */
gboolean allium_session_set_test_boxes(const char *document_path, const char *boxes,
                                       GError **error);

G_END_DECLS
