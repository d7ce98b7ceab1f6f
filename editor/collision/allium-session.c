/* What the editor keeps of a map between runs (see allium-session.h).
 *
 * Workload: read when a map opens in a window, written a moment after its test boxes
 * change; a few lines per map.
 */
#include "allium-session.h"

#include <errno.h>
#include <glib/gstdio.h>

#define KEY_TEST_BOXES "test-boxes"

/* --- static helpers ------------------------------------------------------------------ */

/* The group of the map at PATH: its absolute path, as written. */
static char *group_of(const char *document_path)
{
    return g_canonicalize_filename(document_path, NULL);
}

static GKeyFile *load(void)
{
    GKeyFile *file = g_key_file_new();
    g_autofree char *path = allium_session_path();
    g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, NULL); /* none yet: empty */
    return file;
}

/* --- public API ---------------------------------------------------------------------- */

char *allium_session_path(void)
{
    return g_build_filename(g_get_user_data_dir(), "allium", "session.ini", NULL);
}

/* The value of KEY in the map's group, or NULL. */
static char *get_value(const char *document_path, const char *key)
{
    g_autoptr(GKeyFile) file = load();
    g_autofree char *group = group_of(document_path);
    return g_key_file_get_string(file, group, key, NULL);
}

/* Sets KEY of the map's group to VALUE (NULL or "": removes it, and the group once it is
 * empty) and writes the file. */
static gboolean set_value(const char *document_path, const char *key, const char *value,
                          GError **error)
{
    g_autoptr(GKeyFile) file = load();
    g_autofree char *group = group_of(document_path);
    if (value && *value) {
        g_key_file_set_string(file, group, key, value);
    } else {
        g_key_file_remove_key(file, group, key, NULL);
        g_auto(GStrv) keys = g_key_file_get_keys(file, group, NULL, NULL);
        if (keys && !keys[0]) g_key_file_remove_group(file, group, NULL);
    }
    g_autofree char *path = allium_session_path();
    g_autofree char *dir = g_path_get_dirname(path);
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", dir,
                    g_strerror(errno));
        return FALSE;
    }
    /* g_key_file_save_to_file writes beside the file and renames it over. */
    return g_key_file_save_to_file(file, path, error);
}

char *allium_session_get_test_boxes(const char *document_path)
{
    g_return_val_if_fail(document_path != NULL, NULL);
    return get_value(document_path, KEY_TEST_BOXES);
}

gboolean allium_session_set_test_boxes(const char *document_path, const char *boxes, GError **error)
{
    g_return_val_if_fail(document_path != NULL, FALSE);
    return set_value(document_path, KEY_TEST_BOXES, boxes, error);
}
