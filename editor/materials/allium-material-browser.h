/* AlliumMaterialBrowser: the map's materials in the side panel, with their colours.
 *
 * A search entry filters the list by name. Each row shows the material's colour, its name
 * and how many faces use it (a sun mark when it gives off light). Activating a row (double
 * click, Enter, or Apply) gives the material to the selected faces, or to every face of
 * the selected brushes: one undoable step. Below the list the chosen material can be
 * edited: its colour, its reflectance (or "from the colour") and the light it gives off,
 * each change one undoable step, which the compiled world and the radiosity pick up.
 *
 * The list is read from the document when it changes (materials are few: a map has tens to
 * a few hundred).
 */
#pragma once

#include "allium-document.h"
#include "allium-selection.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_MATERIAL_BROWSER (allium_material_browser_get_type())
G_DECLARE_FINAL_TYPE(AlliumMaterialBrowser, allium_material_browser, ALLIUM, MATERIAL_BROWSER,
                     GtkWidget)

GtkWidget *allium_material_browser_new(void);

void allium_material_browser_set_document(AlliumMaterialBrowser *self, AlliumDocument *document);
void allium_material_browser_set_selection(AlliumMaterialBrowser *self,
                                           AlliumSelection *selection);

/* Test hooks, as a designer would do it: type SEARCH into the search entry; the number of
 * rows shown; choose the row of NAME (FALSE if it is not shown); Apply; set the chosen
 * material's colour, reflectance (negative: from the colour) and emission, as its editors
 * do; the message shown ("" when none). */
void allium_material_browser_set_search(AlliumMaterialBrowser *self, const char *search);
guint allium_material_browser_get_shown(AlliumMaterialBrowser *self);
gboolean allium_material_browser_choose(AlliumMaterialBrowser *self, const char *name);
gboolean allium_material_browser_apply(AlliumMaterialBrowser *self);
gboolean allium_material_browser_edit(AlliumMaterialBrowser *self, const double colour[3],
                                      double reflectance, const double emission[3]);
const char *allium_material_browser_get_message(AlliumMaterialBrowser *self);

G_END_DECLS
