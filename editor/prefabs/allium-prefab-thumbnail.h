/* A prefab's 3D thumbnail: the prefab's brushes and entities drawn by the editor's renderer
 * (render/) into an offscreen EGL context, seen from above at an angle and framed whole,
 * and saved as a PNG. Pure data and render code, no GTK: it runs on a worker thread, which
 * makes its own GL context current and leaves the windows' contexts alone. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The thumbnail's size in pixels. */
#define ALLIUM_PREFAB_THUMBNAIL_WIDTH  160
#define ALLIUM_PREFAB_THUMBNAIL_HEIGHT 120

/* The cached thumbnail's path for the prefab at MAP_PATH: beside it, ".map" replaced by
 * ".png". g_free it. */
char *allium_prefab_thumbnail_path(const char *map_path);

/* Draws the prefab at MAP_PATH and writes the picture to PNG_PATH through a temporary file
 * and a rename. FALSE with ERROR (the file and line of bad text, or why no GL context or
 * PNG could be made) when it cannot; PNG_PATH is then as it was. Any thread but the main
 * one while a window draws (it makes its own context current). */
gboolean allium_prefab_thumbnail_render(const char *map_path, const char *png_path, GError **error);

G_END_DECLS
