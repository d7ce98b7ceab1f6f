/* The editor's small modal dialogs (agent hulls, test box size): a window over PARENT
 * titled TITLE, with Cancel at the start of its header bar and the suggested ACCEPT
 * button (a mnemonic label) at the end, and no title buttons. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A new, not yet shown dialog window; *CANCEL and *ACCEPT are its two buttons. */
GtkWindow *allium_dialog_new(GtkWindow *parent, const char *title, const char *accept,
                             GtkWidget **cancel_button, GtkWidget **accept_button);

G_END_DECLS
