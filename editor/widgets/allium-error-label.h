/* A wrapped, left-aligned label in the theme's error colour under a panel's fields, hidden
 * while it has nothing to say: how the inspector and the material browser refuse a value. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A new, hidden error label. */
GtkLabel *allium_error_label_new(void);

/* Shows TEXT in LABEL, or hides it when TEXT is NULL or empty. */
void allium_error_label_set(GtkLabel *label, const char *text);

G_END_DECLS
