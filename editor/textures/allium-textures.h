/* AlliumTextures: the texture images of one map, found and decoded off the main thread.
 *
 * A map's textures come from the WADs its worldspawn "wad" key names (data/textures:
 * found beside the map, as written or by file name, then in the Preferences' texture
 * folders; Quake's WAD2 and Half-Life's WAD3) and, for a material no WAD holds, from an
 * image named after it (NAME.png, .tga, .jpg or .jpeg; a '*' in the name may be written
 * '#') in the map's folder or a texture folder, decoded with gdk-pixbuf. A material found
 * nowhere is drawn as a checker with its name (allium-missing-texture.h). A set is
 * immutable and reference counted: the document keeps the newest, the views upload it
 * (al_renderer_set_textures).
 *
 * Workload: one load when a map opens, and again when its materials, its "wad" key, the
 * texture folders or a file read change; a WAD of a few hundred textures decodes in tens
 * of milliseconds.
 */
#pragma once

#include <gio/gio.h>

#include "al-diag.h"
#include "al-render.h"

G_BEGIN_DECLS

/* What to load: the map's "wad" key (may be NULL), the map's folder (may be NULL), the
 * texture folders and the materials to find (NULL-terminated; names as the map has them). */
typedef struct {
    const char *wad_key;
    const char *map_folder;
    const char *const *folders;
    const char *const *materials;
} AlliumTextureRequest;

/* The longer edge of a catalogue thumbnail, in pixels. */
#define ALLIUM_THUMBNAIL_EDGE 64

/* A texture the designer can choose (the texture browser): every texture of the map's WADs,
 * and the images found for its materials. */
typedef struct {
    char *name;
    char *source;      /* the WAD's file name, or the image's folder */
    int width, height; /* the texture's, in texels */
    int thumb_width, thumb_height;
    guint8 *thumb; /* RGBA, rows from the top, the longer edge at most
                      ALLIUM_THUMBNAIL_EDGE (nearest texels) */
} AlliumTextureEntry;

typedef struct {
    guint64 serial;           /* unique in the process: the views' renderers share a set by it */
    al_texture_image *images; /* one per material found, names and texels owned */
    int count;
    /* What the views draw (al_renderer_set_textures): IMAGES (borrowed), then an image per
     * missing material, the checker with its name (allium_missing_texture_draw; owned),
     * ALLIUM_MISSING_TEXTURE_EDGE pixels a side */
    al_texture_image *drawn;
    int drawn_count;
    char **missing;     /* NULL-terminated: materials found nowhere */
    char **files;       /* NULL-terminated: the WADs and images read (to watch) */
    al_diag_list diags; /* WADs not found or damaged; one warning naming the missing */
    AlliumTextureEntry *catalogue; /* in the sources' order, each WAD's in its own */
    int catalogue_count;
} AlliumTextures;

#define ALLIUM_TYPE_TEXTURES (allium_textures_get_type())
GType allium_textures_get_type(void);

/* Loads REQUEST now, on the calling thread (any thread). Never NULL. */
AlliumTextures *allium_textures_load(const AlliumTextureRequest *request);

/* The same on a worker thread: CALLBACK runs on the calling thread's main context; REQUEST
 * is copied. */
void allium_textures_load_async(const AlliumTextureRequest *request, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
/* The set loaded, or NULL with ERROR when cancelled. */
AlliumTextures *allium_textures_load_finish(GAsyncResult *result, GError **error);

AlliumTextures *allium_textures_ref(AlliumTextures *textures);
void allium_textures_unref(AlliumTextures *textures); /* NULL is a no-op */

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AlliumTextures, allium_textures_unref)

G_END_DECLS
