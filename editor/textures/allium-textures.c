/* AlliumTextures (see allium-textures.h): finds and decodes a map's textures. */
#include "allium-config.h"

#include "allium-textures.h"

#include "allium-missing-texture.h"
#include "textures/sources.h"

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gi18n.h>
#include <string.h>

G_DEFINE_BOXED_TYPE(AlliumTextures, allium_textures, allium_textures_ref, allium_textures_unref)

/* How many missing materials the problem names before "and N more". */
#define MISSING_NAMED 24

static void clear_textures(gpointer data)
{
    AlliumTextures *t = data;
    for (int i = 0; i < t->count; i++) {
        g_free((char *) t->images[i].name);
        g_free((guint8 *) t->images[i].rgba);
    }
    g_free(t->images);
    for (int i = t->count; i < t->drawn_count; i++) {
        g_free((char *) t->drawn[i].name);
        g_free((guint8 *) t->drawn[i].rgba);
    }
    g_free(t->drawn);
    for (int i = 0; i < t->catalogue_count; i++) {
        g_free(t->catalogue[i].name);
        g_free(t->catalogue[i].source);
        g_free(t->catalogue[i].thumb);
    }
    g_free(t->catalogue);
    g_strfreev(t->missing);
    g_strfreev(t->files);
    al_diag_list_clear(&t->diags);
}

/* An image for material NAME in FOLDER (as written, then with '*' written '#'), as RGBA
 * texels; its path into *PATH. NULL if there is none or it cannot be decoded (the reason
 * then in DIAGS). */
static guint8 *find_image(const char *folder, const char *name, int *width, int *height,
                          char **path, al_diag_list *diags)
{
    static const char *extensions[] = {"png", "tga", "jpg", "jpeg"};
    g_autofree char *hashed = g_strdup(name);
    g_strdelimit(hashed, "*", '#');
    for (int spelling = 0; spelling < 2; spelling++) {
        const char *base = spelling ? hashed : name;
        if (spelling && strcmp(hashed, name) == 0) break;
        for (guint e = 0; e < G_N_ELEMENTS(extensions); e++) {
            g_autofree char *file = g_strdup_printf("%s.%s", base, extensions[e]);
            g_autofree char *candidate = g_build_filename(folder, file, NULL);
            if (!g_file_test(candidate, G_FILE_TEST_IS_REGULAR)) continue;
            GError *error = NULL;
            g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new_from_file(candidate, &error);
            if (!pixbuf) {
                al_diag_add(diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, -1, -1,
                            _("the image “%s” could not be read: %s"), candidate, error->message);
                g_error_free(error);
                continue;
            }
            g_autoptr(GdkPixbuf) rgba = gdk_pixbuf_add_alpha(pixbuf, FALSE, 0, 0, 0);
            if (!rgba || gdk_pixbuf_get_bits_per_sample(rgba) != 8) continue;
            int w = gdk_pixbuf_get_width(rgba), h = gdk_pixbuf_get_height(rgba);
            int stride = gdk_pixbuf_get_rowstride(rgba);
            const guint8 *pixels = gdk_pixbuf_read_pixels(rgba);
            guint8 *out = g_malloc((gsize) w * h * 4);
            for (int y = 0; y < h; y++)
                memcpy(out + (gsize) y * w * 4, pixels + (gsize) y * stride, (gsize) w * 4);
            *width = w;
            *height = h;
            *path = g_steal_pointer(&candidate);
            return out;
        }
    }
    return NULL;
}

/* A catalogue entry for the WIDTH x HEIGHT RGBA texels of NAME from SOURCE, with a thumbnail
 * of nearest texels. */
static void add_entry(GArray *catalogue, const char *name, const char *source, int width,
                      int height, const guint8 *rgba)
{
    AlliumTextureEntry e = {
        .name = g_strdup(name), .source = g_strdup(source), .width = width, .height = height};
    double k = MAX(width, height) > ALLIUM_THUMBNAIL_EDGE
                   ? (double) ALLIUM_THUMBNAIL_EDGE / MAX(width, height)
                   : 1;
    e.thumb_width = MAX(1, (int) (width * k));
    e.thumb_height = MAX(1, (int) (height * k));
    e.thumb = g_malloc((gsize) e.thumb_width * e.thumb_height * 4);
    for (int y = 0; y < e.thumb_height; y++)
        for (int x = 0; x < e.thumb_width; x++) {
            int sx = MIN(width - 1, (int) (x / k)), sy = MIN(height - 1, (int) (y / k));
            memcpy(e.thumb + ((gsize) y * e.thumb_width + x) * 4,
                   rgba + ((gsize) sy * width + sx) * 4, 4);
        }
    g_array_append_val(catalogue, e);
}

AlliumTextures *allium_textures_load(const AlliumTextureRequest *request)
{
    static guint64 made; /* (any thread) */
    AlliumTextures *t = g_atomic_rc_box_new0(AlliumTextures);
    t->serial = __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED);
    const char *const *folders = request->folders;
    int folder_count = folders ? (int) g_strv_length((char **) folders) : 0;
    al_texture_sources sources;
    if (al_texture_sources_open(&sources, request->wad_key, request->map_folder, folders,
                                folder_count, NULL, &t->diags) != AL_OK)
        memset(&sources, 0, sizeof sources);
    GArray *images = g_array_new(FALSE, FALSE, sizeof(al_texture_image));
    GPtrArray *missing = g_ptr_array_new();
    GPtrArray *files = g_ptr_array_new();
    GArray *catalogue = g_array_new(FALSE, FALSE, sizeof(AlliumTextureEntry));
    for (int i = 0; i < sources.count; i++) {
        g_ptr_array_add(files, g_strdup(sources.paths[i]));
        g_autofree char *base = g_path_get_basename(sources.paths[i]);
        const al_wad *wad = sources.wads[i];
        for (int k = 0; k < wad->count; k++)
            add_entry(catalogue, wad->textures[k].name, base, wad->textures[k].width,
                      wad->textures[k].height, wad->textures[k].rgba);
    }
    for (const char *const *m = request->materials; m && *m; m++) {
        const al_texture *found = al_texture_sources_find(&sources, *m, NULL);
        al_texture_image image = {.name = g_strdup(*m)};
        if (found) {
            image.width = found->width;
            image.height = found->height;
            image.rgba = g_memdup2(found->rgba, (gsize) found->width * found->height * 4);
        } else {
            /* The map's own folder first, then the texture folders. */
            char *path = NULL;
            guint8 *rgba = NULL;
            if (request->map_folder)
                rgba = find_image(request->map_folder, *m, &image.width, &image.height, &path,
                                  &t->diags);
            for (int f = 0; !rgba && f < folder_count; f++)
                rgba = find_image(folders[f], *m, &image.width, &image.height, &path, &t->diags);
            image.rgba = rgba;
            if (path) {
                g_autofree char *folder = g_path_get_dirname(path);
                add_entry(catalogue, *m, folder, image.width, image.height, rgba);
                g_ptr_array_add(files, path);
            }
        }
        if (image.rgba) {
            g_array_append_val(images, image);
        } else {
            g_ptr_array_add(missing, (char *) image.name);
        }
    }
    al_texture_sources_close(&sources);
    if (missing->len > 0) {
        GString *names = g_string_new(NULL);
        for (guint i = 0; i < missing->len && i < MISSING_NAMED; i++)
            g_string_append_printf(names, "%s%s", i ? ", " : "", (char *) missing->pdata[i]);
        if (missing->len > MISSING_NAMED)
            g_string_append_printf(names, _(" and %u more"), missing->len - MISSING_NAMED);
        al_diag_add(
            &t->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, 0, -1, -1, -1, -1,
            g_dngettext(GETTEXT_PACKAGE, "%u texture was not found (drawn as a checker): %s",
                        "%u textures were not found (drawn as a checker): %s", missing->len),
            missing->len, names->str);
        g_string_free(names, TRUE);
    }
    g_ptr_array_add(missing, NULL);
    g_ptr_array_add(files, NULL);
    t->missing = (char **) g_ptr_array_free(missing, FALSE);
    t->files = (char **) g_ptr_array_free(files, FALSE);
    t->catalogue_count = (int) catalogue->len;
    t->catalogue = (AlliumTextureEntry *) (gpointer) g_array_free(catalogue, FALSE);
    t->count = (int) images->len;
    t->images = (al_texture_image *) (gpointer) g_array_free(images, FALSE);
    int missing_count = (int) g_strv_length(t->missing);
    t->drawn = g_new0(al_texture_image, t->count + missing_count + 1);
    if (t->count > 0) memcpy(t->drawn, t->images, sizeof *t->images * (gsize) t->count);
    for (int i = 0; i < missing_count; i++)
        t->drawn[t->count + i] = (al_texture_image){
            .name = g_strdup(t->missing[i]),
            .width = ALLIUM_MISSING_TEXTURE_EDGE,
            .height = ALLIUM_MISSING_TEXTURE_EDGE,
            .rgba = allium_missing_texture_draw(t->missing[i], ALLIUM_MISSING_TEXTURE_EDGE),
        };
    t->drawn_count = t->count + missing_count;
    return t;
}

/* A request's copy for the worker. */
typedef struct {
    char *wad_key, *map_folder;
    char **folders, **materials;
} request_copy;

static void request_copy_free(gpointer data)
{
    request_copy *c = data;
    g_free(c->wad_key);
    g_free(c->map_folder);
    g_strfreev(c->folders);
    g_strfreev(c->materials);
    g_free(c);
}

static void load_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    (void) source;
    request_copy *c = data;
    AlliumTextureRequest request = {
        .wad_key = c->wad_key,
        .map_folder = c->map_folder,
        .folders = (const char *const *) c->folders,
        .materials = (const char *const *) c->materials,
    };
    AlliumTextures *t = allium_textures_load(&request);
    if (g_cancellable_is_cancelled(cancellable)) {
        allium_textures_unref(t);
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", _("Cancelled"));
        return;
    }
    g_task_return_pointer(task, t, (GDestroyNotify) allium_textures_unref);
}

void allium_textures_load_async(const AlliumTextureRequest *request, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
    request_copy *c = g_new0(request_copy, 1);
    c->wad_key = g_strdup(request->wad_key);
    c->map_folder = g_strdup(request->map_folder);
    c->folders = g_strdupv((char **) request->folders);
    c->materials = g_strdupv((char **) request->materials);
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_task_data(task, c, request_copy_free);
    g_task_run_in_thread(task, load_thread);
    g_object_unref(task);
}

AlliumTextures *allium_textures_load_finish(GAsyncResult *result, GError **error)
{
    return g_task_propagate_pointer(G_TASK(result), error);
}

AlliumTextures *allium_textures_ref(AlliumTextures *textures)
{
    return g_atomic_rc_box_acquire(textures);
}

void allium_textures_unref(AlliumTextures *textures)
{
    if (textures) g_atomic_rc_box_release_full(textures, clear_textures);
}
