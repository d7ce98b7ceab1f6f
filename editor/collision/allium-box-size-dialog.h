/* The "Test Box Size" dialog: three spin buttons for a test box of any size (width along
 * X, depth along Y, height), for the test boxes that are moved by dynamic plane shifting
 * rather than a compiled hull. Main thread. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Called with the size chosen (units). */
typedef void (*AlliumBoxSizeFunc)(const double size[3], gpointer user_data);

/* Shows the dialog over PARENT with INITIAL filled in; FUNC is called once if the designer
 * presses Use (or Enter), not at all on Cancel or Escape. Returns the dialog. */
GtkWindow *allium_box_size_dialog_show(GtkWindow *parent, const double initial[3],
                                       AlliumBoxSizeFunc func, gpointer user_data);

G_END_DECLS
