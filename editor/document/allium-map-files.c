/* Between .map files and map documents (see allium-map-files.h).
 *
 * Import reads the whole .map and imports it into a new document in one transaction
 * (lq-e3m4, 9,000 brushes: about 270 ms), so the editor runs it on a worker thread. The
 * document is made beside its name and renamed to it only when complete
 * (al_doc_import_new): a failed or interrupted import leaves nothing half-made behind.
 *
 * A BSP export compiles and lights the whole map and writes it (e1m1: a few seconds), also
 * on a worker thread; only reading the document as a .map happens on the main thread.
 */
#include "allium-config.h"

#include "allium-map-files.h"

#include "al-entity-keys.h"
#include "layers/layer-tree.h"
#include "mapfile/map-input.h"
#include "mapfile/map-write.h"
#include "store/map-doc.h"
#include "textures/sources.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char *map_path;
    char *fallback_dir;
    int warnings;
    char *first_warning;
} ImportData;

typedef struct {
    al_map *map;  /* the document as a .map, owned */
    char *path;   /* the .bsp to write */
    char *folder; /* the document's, where the WADs are looked for */
    al_bsp_format format;
    int warnings;
    char *first_warning;
} BspData;

/* --- static helpers ------------------------------------------------------------------ */

static void bsp_data_free(gpointer data)
{
    BspData *d = data;
    al_map_destroy(d->map);
    g_free(d->path);
    g_free(d->folder);
    g_free(d->first_warning);
    g_free(d);
}

static void import_data_free(gpointer data)
{
    ImportData *d = data;
    g_free(d->map_path);
    g_free(d->fallback_dir);
    g_free(d->first_warning);
    g_free(d);
}

/* Removes a document this module created, with SQLite's side files. */
static void remove_document(const char *path)
{
    g_autofree char *wal = g_strconcat(path, "-wal", NULL);
    g_autofree char *shm = g_strconcat(path, "-shm", NULL);
    g_unlink(path);
    g_unlink(wal);
    g_unlink(shm);
}

/* "castle" for "/maps/castle.map" (any case of ".map"). */
static char *map_stem(const char *map_path)
{
    char *base = g_path_get_basename(map_path);
    size_t n = strlen(base);
    if (n > 4 && g_ascii_strcasecmp(base + n - 4, ".map") == 0) base[n - 4] = '\0';
    return base;
}

static char *candidate_path(const char *dir, const char *stem, int n)
{
    g_autofree char *name = n == 1 ? g_strdup_printf("%s.allium", stem)
                                   : g_strdup_printf("%s (%d).allium", stem, n);
    return g_build_filename(dir, name, NULL);
}

/* Imports MAP into a new document under a free name in DIR (its path in *PATH). AL_ERR_IO
 * (or AL_ERR_READ_ONLY) when the folder does not take it. */
static al_status import_free_document(const al_map *map, const char *dir, const char *stem,
                                      char **path, al_diag_list *diags)
{
    al_status st = AL_ERR_EXISTS;
    for (int n = 1; n < 10000 && st == AL_ERR_EXISTS; n++) {
        g_free(*path);
        *path = candidate_path(dir, stem, n);
        /* Also skip names whose side files are left over from another program. */
        if (g_file_test(*path, G_FILE_TEST_EXISTS)) continue;
        al_diag_list_clear(diags);
        st = al_doc_import_new(*path, map, diags);
    }
    return st;
}

static void import_thread(GTask *task, gpointer source, gpointer task_data,
                          GCancellable *cancellable)
{
    (void) source;
    (void) cancellable;
    ImportData *d = task_data;
    GError *error = NULL;
    char *path =
        allium_import_map(d->map_path, d->fallback_dir, &d->warnings, &d->first_warning, &error);
    if (path) g_task_return_pointer(task, path, g_free);
    else g_task_return_error(task, error);
}

static gboolean map_uses_valve(const al_map *map)
{
    /* The dialect the map's faces were written in: Valve 220 if any face was. */
    for (int e = 0; e < map->entity_count; e++)
        for (int b = 0; b < map->entities[e].brush_count; b++)
            for (int f = 0; f < map->entities[e].brushes[b].face_count; f++)
                if (map->entities[e].brushes[b].faces[f].valve) return TRUE;
    return FALSE;
}

/* --- public API ---------------------------------------------------------------------- */

gboolean allium_path_is_document(const char *path)
{
    if (g_str_has_suffix(path, ".allium")) return TRUE;
    char head[16] = {0};
    FILE *f = g_fopen(path, "rb");
    if (!f) return FALSE;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

char *allium_default_document_dir(void)
{
    return g_build_filename(g_get_user_data_dir(), "allium", NULL);
}

/* The first warning of DIAGS as a line ("line 3: entity 1: ..."), or NULL. */
static char *first_warning_of(const al_diag_list *diags)
{
    for (size_t i = 0; i < diags->count; i++)
        if (diags->items[i].severity == AL_SEVERITY_WARNING) {
            char line[400];
            return g_strdup(al_diag_format(&diags->items[i], line, sizeof line));
        }
    return NULL;
}

char *allium_import_map(const char *map_path, const char *fallback_dir, int *warnings,
                        char **first_warning, GError **error)
{
    g_return_val_if_fail(map_path != NULL, NULL);
    g_autofree char *name = g_filename_display_basename(map_path);
    al_diag_list diags = {0};
    al_map *map = NULL;
    if (warnings) *warnings = 0;
    if (first_warning) *first_warning = NULL;

    al_status st = al_map_read_file(map_path, &map, &diags);
    if (st != AL_OK) {
        g_autofree char *prefix = g_strdup_printf(_("“%s” is not a readable .map file"), name);
        allium_set_status_error(error, st, &diags, prefix);
        al_diag_list_clear(&diags);
        return NULL;
    }
    int read_warnings = (int) al_diag_count(&diags, AL_SEVERITY_WARNING);
    g_autofree char *first = first_warning_of(&diags);
    al_diag_list_clear(&diags);

    g_autofree char *stem = map_stem(map_path);
    g_autofree char *map_dir = g_path_get_dirname(map_path);
    g_autofree char *fallback =
        fallback_dir ? g_strdup(fallback_dir) : allium_default_document_dir();
    char *target = NULL;

    st = AL_ERR_IO;
    if (g_access(map_dir, W_OK) == 0)
        st = import_free_document(map, map_dir, stem, &target, &diags);
    if (st == AL_ERR_IO || st == AL_ERR_READ_ONLY) {
        /* The map's folder is read-only (a game install, a mounted archive): use ours. */
        if (g_mkdir_with_parents(fallback, 0755) != 0) {
            g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_IO,
                        _("Cannot create the folder “%s”: %s"), fallback, g_strerror(errno));
            al_map_destroy(map);
            al_diag_list_clear(&diags);
            g_free(target);
            return NULL;
        }
        al_diag_list_clear(&diags);
        st = import_free_document(map, fallback, stem, &target, &diags);
    }
    al_map_destroy(map);
    if (st != AL_OK) {
        g_autofree char *prefix = g_strdup_printf(_("Importing “%s” failed"), name);
        allium_set_status_error(error, st, &diags, prefix);
        al_diag_list_clear(&diags);
        g_free(target);
        return NULL;
    }
    if (warnings) *warnings = read_warnings + (int) al_diag_count(&diags, AL_SEVERITY_WARNING);
    if (first_warning) *first_warning = first ? g_steal_pointer(&first) : first_warning_of(&diags);
    al_diag_list_clear(&diags);
    return target;
}

void allium_import_map_async(const char *map_path, const char *fallback_dir,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
    ImportData *d = g_new0(ImportData, 1);
    d->map_path = g_strdup(map_path);
    d->fallback_dir = g_strdup(fallback_dir);
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, allium_import_map_async);
    g_task_set_task_data(task, d, import_data_free);
    g_task_run_in_thread(task, import_thread);
    g_object_unref(task);
}

char *allium_import_map_finish(GAsyncResult *result, int *warnings, char **first_warning,
                               GError **error)
{
    g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
    ImportData *d = g_task_get_task_data(G_TASK(result));
    if (warnings) *warnings = d->warnings;
    if (first_warning) *first_warning = g_strdup(d->first_warning);
    return g_task_propagate_pointer(G_TASK(result), error);
}

gboolean allium_import_map_to(const char *map_path, const char *target, GError **error)
{
    g_autofree char *name = g_filename_display_basename(map_path);
    al_diag_list diags = {0};
    al_map *map = NULL;
    al_status st = al_map_read_file(map_path, &map, &diags);
    if (st == AL_OK) st = al_doc_import_new(target, map, &diags);
    al_map_destroy(map);
    if (st != AL_OK) {
        g_autofree char *prefix = g_strdup_printf(_("Importing “%s” failed"), name);
        allium_set_status_error(error, st, &diags, prefix);
    }
    al_diag_list_clear(&diags);
    return st == AL_OK;
}

gboolean allium_prepare_sample(const char *target, GError **error)
{
    al_diag_list diags = {0};
    if (g_file_test(target, G_FILE_TEST_EXISTS)) {
        al_doc *doc = NULL;
        al_status st = al_doc_open(target, AL_DOC_READ_ONLY, &doc, &diags);
        al_doc_close(doc);
        al_diag_list_clear(&diags);
        if (st == AL_OK) return TRUE;
        /* Kept for whoever wants to look at it, but out of the way. */
        g_autofree char *aside = g_strconcat(target, ".damaged", NULL);
        if (g_rename(target, aside) != 0) remove_document(target);
    }

    g_autofree char *dir = g_path_get_dirname(target);
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_IO, _("Cannot create the folder “%s”: %s"),
                    dir, g_strerror(errno));
        return FALSE;
    }
    return allium_import_map_to(ALLIUM_SAMPLE_MAP, target, error);
}

gboolean allium_export_map(AlliumDocument *document, const char *path, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_DOCUMENT(document), FALSE);
    al_doc *doc = allium_document_get_doc(document);
    if (!doc) {
        allium_set_status_error(error, AL_ERR_NOT_FOUND, NULL, NULL);
        return FALSE;
    }
    al_diag_list diags = {0};
    al_map *map = NULL;
    al_status st = al_doc_export_map(doc, &map, &diags);
    /* What the designer omitted from export is left out, as TrenchBroom's export does. */
    if (st == AL_OK) st = al_map_omit_layers(map, NULL, &diags);
    if (st != AL_OK) {
        al_map_destroy(map);
        allium_set_status_error(error, st, &diags, _("Export failed"));
        al_diag_list_clear(&diags);
        return FALSE;
    }
    al_diag_list_clear(&diags);

    char *text = NULL;
    size_t length = 0;
    gboolean ok = al_map_write(map, map_uses_valve(map), &text, &length);
    al_map_destroy(map);
    if (!ok) {
        allium_set_status_error(error, AL_ERR_NOMEM, NULL, _("Export failed"));
        return FALSE;
    }
    /* Written beside and renamed over, and synced: a crash leaves the old file or the new
     * one, never half of one. */
    ok = g_file_set_contents_full(path, text, (gssize) length,
                                  G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                  0644, error);
    free(text);
    return ok;
}

/* Compiles the exported map and writes the BSP (worker thread). */
static void export_bsp_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void) source;
    (void) cancel;
    BspData *d = data;
    al_diag_list diags = {0};
    al_map_input input = {0};
    al_world *world = NULL;
    al_texture_sources textures = {0};
    bool have_textures = false;
    al_rad *rad = NULL;
    al_rad_lightmap lightmap = {0};
    al_status st = al_map_input_build(d->map, &input, &diags);
    if (st == AL_OK) {
        al_compile_options options = {.pvs = AL_PVS_TIGHT};
        st = al_world_compile(&input.input, &options, &world, &diags);
    }
    if (st == AL_OK) {
        const char *wad =
            input.input.entity_count > 0 ? al_entity_value(&input.input.entities[0], "wad") : NULL;
        st = al_texture_sources_open(&textures, wad, d->folder, NULL, 0, NULL, &diags);
        have_textures = st == AL_OK;
    }
    if (st == AL_OK) {
        /* Lit as allium-compile lights: until the unshot light is 1% of the emitted. */
        st = al_rad_create(world, &input.input, NULL, &rad, &diags);
        if (st == AL_OK) al_rad_run(rad, 0.01, 0, NULL, NULL);
        if (st == AL_OK) st = al_rad_snapshot(rad, &lightmap);
    }
    if (st == AL_OK) {
        al_bsp_source src = {d->map, &input.input, world, &textures, rad, &lightmap};
        st = al_bsp_write(&src, d->format, d->path, NULL, &diags);
    }
    if (st == AL_OK) {
        d->warnings = (int) al_diag_count(&diags, AL_SEVERITY_WARNING);
        d->first_warning = first_warning_of(&diags);
        g_task_return_boolean(task, TRUE);
    } else {
        GError *error = NULL;
        allium_set_status_error(&error, st, &diags, _("Export failed"));
        g_task_return_error(task, error);
    }
    if (have_textures) al_texture_sources_close(&textures);
    al_rad_lightmap_free(&lightmap);
    al_rad_destroy(rad);
    al_world_destroy(world);
    al_map_input_free(&input);
    al_diag_list_clear(&diags);
}

void allium_export_bsp_async(AlliumDocument *document, const char *path, al_bsp_format format,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, allium_export_bsp_async);
    al_doc *doc = ALLIUM_IS_DOCUMENT(document) ? allium_document_get_doc(document) : NULL;
    al_diag_list diags = {0};
    al_map *map = NULL;
    al_status st = doc ? al_doc_export_map(doc, &map, &diags) : AL_ERR_NOT_FOUND;
    if (st == AL_OK) st = al_map_omit_layers(map, NULL, &diags);
    if (st != AL_OK) {
        al_map_destroy(map);
        GError *error = NULL;
        allium_set_status_error(&error, st, &diags, _("Export failed"));
        al_diag_list_clear(&diags);
        g_task_return_error(task, error);
        g_object_unref(task);
        return;
    }
    al_diag_list_clear(&diags);
    BspData *d = g_new0(BspData, 1);
    d->map = map;
    d->path = g_strdup(path);
    d->folder = g_path_get_dirname(allium_document_get_path(document));
    d->format = format;
    g_task_set_task_data(task, d, bsp_data_free);
    g_task_run_in_thread(task, export_bsp_thread);
    g_object_unref(task);
}

gboolean allium_export_bsp_finish(GAsyncResult *result, int *warnings, char **first_warning,
                                  GError **error)
{
    g_return_val_if_fail(g_task_is_valid(result, NULL), FALSE);
    BspData *d = g_task_get_task_data(G_TASK(result));
    if (warnings) *warnings = d ? d->warnings : 0;
    if (first_warning) *first_warning = d ? g_strdup(d->first_warning) : NULL;
    return g_task_propagate_boolean(G_TASK(result), error);
}
