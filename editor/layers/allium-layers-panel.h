/* AlliumLayersPanel: the side panel's Layers page. The map's layers (the default one first,
 * then TrenchBroom's sort order) with a colour swatch (a colour button: the 2D views draw
 * the layer's brushes in it), a Visible and a Locked toggle each; below the list,
 * New, Rename (the name in the entry), Delete (what the layer held goes to the default
 * layer), Omit from export (a toggle for the selected layer) and Move Selection Here.
 * Every change is one undoable step of the document (data/layers/layer-edits.h); the list
 * is read again whenever the document changes.
 */
#pragma once

#include "allium-document.h"
#include "allium-selection.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_LAYERS_PANEL (allium_layers_panel_get_type())
G_DECLARE_FINAL_TYPE(AlliumLayersPanel, allium_layers_panel, ALLIUM, LAYERS_PANEL, GtkBox)

/* The document (NULL: none) and the selection Move Selection Here moves. */
void allium_layers_panel_set_document(AlliumLayersPanel *self, AlliumDocument *document,
                                      AlliumSelection *selection);

/* The layer entity of row INDEX of the list (0: the default layer), or -1; for tests. */
gint64 allium_layers_panel_get_layer(AlliumLayersPanel *self, int index);
/* The colour button of row INDEX, or NULL; for tests. */
GtkWidget *allium_layers_panel_get_color_button(AlliumLayersPanel *self, int index);

G_END_DECLS
