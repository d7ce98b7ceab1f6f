/* The "Agent Hulls" dialog: the map's list of agent boxes, each a name and a box around the
 * agent's origin, edited as a table and applied as one undoable step. The point hull comes
 * first and cannot be changed (the compiler's visibility and radiosity use it). A list the
 * compiler refuses keeps the dialog open with the reason. Main thread. */
#pragma once

#include "allium-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Shows the dialog over PARENT for DOCUMENT, filled with the hulls of its newest snapshot.
 * Returns the dialog (it destroys itself when closed). */
GtkWindow *allium_hulls_dialog_show(GtkWindow *parent, AlliumDocument *document);

/* For tests, as a designer would do it: add a row (NULL SIZE: the default new row), remove
 * row ROW, set a row's name and box, press Apply (TRUE when the list was applied and the
 * dialog closed), read the refusal shown ("" when none) and the number of rows. */
void allium_hulls_dialog_add_row(GtkWindow *dialog);
void allium_hulls_dialog_remove_row(GtkWindow *dialog, guint row);
void allium_hulls_dialog_set_row(GtkWindow *dialog, guint row, const char *name,
                                 const double mins[3], const double maxs[3]);
gboolean allium_hulls_dialog_apply(GtkWindow *dialog);
const char *allium_hulls_dialog_get_message(GtkWindow *dialog);
guint allium_hulls_dialog_get_row_count(GtkWindow *dialog);

G_END_DECLS
