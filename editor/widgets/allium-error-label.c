/* See allium-error-label.h. */
#include "allium-error-label.h"

GtkLabel *allium_error_label_new(void)
{
    GtkLabel *label = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_xalign(label, 0);
    gtk_label_set_wrap(label, TRUE);
    gtk_widget_add_css_class(GTK_WIDGET(label), "error");
    gtk_widget_set_visible(GTK_WIDGET(label), FALSE);
    return label;
}

void allium_error_label_set(GtkLabel *label, const char *text)
{
    g_return_if_fail(GTK_IS_LABEL(label));
    gtk_label_set_text(label, text ? text : "");
    gtk_widget_set_visible(GTK_WIDGET(label), text && *text);
}
