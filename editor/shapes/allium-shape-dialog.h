/* The "Add Shape" dialog: a cylinder, cone, sphere, arch or stairs (data/shapes) with its
 * parameters, previewed as outlines in every view (the selection's guides) while they are
 * typed, and added by Apply as one undoable step. Values the generator refuses are named
 * under the fields and nothing is previewed. Main thread. */
#pragma once

#include "allium-selection.h"
#include "shapes/shapes.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Adds the shape; returns FALSE with a message (g_free'd by the dialog) to refuse. */
typedef gboolean (*AlliumShapeFunc)(const al_shape_desc *desc, char **message, gpointer user_data);

/* Shows the dialog over PARENT filled with INITIAL (its centre is where the shape goes),
 * previewing through SELECTION's guides; it destroys itself when closed and takes its
 * preview away then. */
GtkWindow *allium_shape_dialog_show(GtkWindow *parent, const al_shape_desc *initial,
                                    AlliumSelection *selection, AlliumShapeFunc func,
                                    gpointer user_data);

/* For tests, as a designer would do it: set every field from DESC (its centre stays),
 * press Apply (TRUE when the shape was added and the dialog closed), read the refusal
 * shown ("" when none). */
void allium_shape_dialog_set(GtkWindow *dialog, const al_shape_desc *desc);
gboolean allium_shape_dialog_apply(GtkWindow *dialog);
const char *allium_shape_dialog_get_message(GtkWindow *dialog);

G_END_DECLS
