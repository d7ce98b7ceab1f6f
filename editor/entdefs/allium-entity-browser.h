/* AlliumEntityBrowser: the classes of a set of entity definitions (the window's
 * document's), in the window's side panel.
 *
 * Point and brush classes in name order, under a heading per prefix ("monster_",
 * "item_", ...; classes without one under "other"), each with a swatch of its colour, its
 * size and its description. The search field keeps the classes whose name or description
 * holds its text. A point class is dragged into a view to place it there (the view's drop
 * target, allium_view_place_entity), or activated (double click, Enter) to start placing
 * it with clicks (win.place-entity); activating a brush class makes the selected brushes an
 * entity of it (win.to-entity).
 */
#pragma once

#include "allium-definition-set.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_ENTITY_BROWSER (allium_entity_browser_get_type())
G_DECLARE_FINAL_TYPE(AlliumEntityBrowser, allium_entity_browser, ALLIUM, ENTITY_BROWSER, GtkWidget)

GtkWidget *allium_entity_browser_new(void);

/* Shows the classes of SET (a reference is taken; NULL: none) instead of those shown. */
void allium_entity_browser_set_definitions(AlliumEntityBrowser *self, AlliumDefinitionSet *set);

/* Test hooks: types TEXT into the search field; the classes shown now, in order (a new
 * array of borrowed names); activates the class NAME as its row does (FALSE: no such
 * class, or its action is disabled). */
void allium_entity_browser_set_search(AlliumEntityBrowser *self, const char *text);
GPtrArray *allium_entity_browser_dup_shown(AlliumEntityBrowser *self);
gboolean allium_entity_browser_activate(AlliumEntityBrowser *self, const char *name);

G_END_DECLS
