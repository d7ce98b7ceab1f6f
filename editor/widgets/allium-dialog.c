/* See allium-dialog.h. */
#include "allium-config.h"

#include "allium-dialog.h"

#include <glib/gi18n.h>

GtkWindow *allium_dialog_new(GtkWindow *parent, const char *title, const char *accept,
                             GtkWidget **cancel_button, GtkWidget **accept_button)
{
    GtkWindow *window = GTK_WINDOW(gtk_window_new());
    gtk_window_set_title(window, title);
    gtk_window_set_transient_for(window, parent);
    gtk_window_set_modal(window, TRUE);
    gtk_window_set_hide_on_close(window, FALSE);
    GtkWidget *header = gtk_header_bar_new();
    gtk_header_bar_set_show_title_buttons(GTK_HEADER_BAR(header), FALSE);
    GtkWidget *cancel = gtk_button_new_with_mnemonic(_("_Cancel"));
    GtkWidget *ok = gtk_button_new_with_mnemonic(accept);
    gtk_widget_add_css_class(ok, "suggested-action");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), cancel);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), ok);
    gtk_window_set_titlebar(window, header);
    *cancel_button = cancel;
    *accept_button = ok;
    return window;
}
