/* AlliumTextureBrowser: the textures a map can use, as thumbnails in the side panel.
 *
 * Every texture of the map's WADs and every image found for its materials
 * (AlliumTextures' catalogue) is shown with its name, its size and how many faces use it,
 * grouped by where it comes from (the WAD's file name, the image's folder); the map's
 * materials that no source holds follow under "Missing", drawn as the checker the views
 * draw. A search entry filters by name, "Used in map" keeps the textures the map uses.
 * A double click (or Enter) on a texture gives it to the selected faces, or to every face
 * of the selected brushes, as one undoable step, and makes it the current texture, which
 * new brushes get.
 */
#pragma once

#include "allium-document.h"
#include "allium-selection.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_TEXTURE_BROWSER (allium_texture_browser_get_type())
G_DECLARE_FINAL_TYPE(AlliumTextureBrowser, allium_texture_browser, ALLIUM, TEXTURE_BROWSER,
                     GtkWidget)

GtkWidget *allium_texture_browser_new(void);

void allium_texture_browser_set_document(AlliumTextureBrowser *self, AlliumDocument *document);
void allium_texture_browser_set_selection(AlliumTextureBrowser *self, AlliumSelection *selection);

/* The search entry's text (filters the textures by name, case-insensitively). */
void allium_texture_browser_set_search(AlliumTextureBrowser *self, const char *text);
/* The "Used in map" filter. */
void allium_texture_browser_set_used_only(AlliumTextureBrowser *self, gboolean used_only);

/* How many textures the filters let through. */
guint allium_texture_browser_get_shown(AlliumTextureBrowser *self);

/* The group (source) texture NAME is listed under, or NULL if it is not listed. */
const char *allium_texture_browser_get_group(AlliumTextureBrowser *self, const char *name);

/* Activates texture NAME's thumbnail as a double click does; FALSE if it is not shown or
 * the edit failed (the message then says why). */
gboolean allium_texture_browser_activate(AlliumTextureBrowser *self, const char *name);

/* The message under the thumbnails ("" if none). */
const char *allium_texture_browser_get_message(AlliumTextureBrowser *self);

/* What a thumbnail dragged out of the browser carries: the texture's name (a boxed string,
 * so that a view tells it from the entity browser's class names). */
typedef char AlliumMaterialName;
#define ALLIUM_TYPE_MATERIAL_NAME (allium_material_name_get_type())
GType allium_material_name_get_type(void);

G_END_DECLS
