/* The "Test Box Size" dialog (allium-box-size-dialog.h). */
#include "allium-config.h"

#include "allium-box-size-dialog.h"
#include "allium-dialog.h"

#include "allium-collision.h"

#include <glib/gi18n.h>

typedef struct {
    GtkWindow *window;
    GtkSpinButton *spins[3];
    AlliumBoxSizeFunc func;
    gpointer user_data;
} Dialog;

static void use_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    double size[3];
    for (int k = 0; k < 3; k++) {
        gtk_spin_button_update(d->spins[k]); /* take what was typed but not yet confirmed */
        size[k] = gtk_spin_button_get_value(d->spins[k]);
    }
    d->func(size, d->user_data);
    gtk_window_destroy(d->window);
}

static void cancel_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    gtk_window_destroy(d->window);
}

static gboolean use_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    use_cb(NULL, data);
    return TRUE;
}

static gboolean cancel_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    cancel_cb(NULL, data);
    return TRUE;
}

GtkWindow *allium_box_size_dialog_show(GtkWindow *parent, const double initial[3],
                                       AlliumBoxSizeFunc func, gpointer user_data)
{
    Dialog *d = g_new0(Dialog, 1);
    d->func = func;
    d->user_data = user_data;
    GtkWidget *cancel, *use;
    d->window = allium_dialog_new(parent, _("Test Box Size"), _("_Use"), &cancel, &use);
    g_object_set_data_full(G_OBJECT(d->window), "allium-dialog", d, g_free);
    gtk_window_set_resizable(d->window, FALSE);
    g_signal_connect(cancel, "clicked", G_CALLBACK(cancel_cb), d);
    g_signal_connect(use, "clicked", G_CALLBACK(use_cb), d);
    gtk_window_set_default_widget(d->window, use);

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
    gtk_widget_set_margin_start(grid, 18);
    gtk_widget_set_margin_end(grid, 18);
    gtk_widget_set_margin_top(grid, 18);
    gtk_widget_set_margin_bottom(grid, 18);
    const char *labels[3] = {_("_Width (X)"), _("_Depth (Y)"), _("_Height (Z)")};
    for (int k = 0; k < 3; k++) {
        GtkWidget *label = gtk_label_new_with_mnemonic(labels[k]);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        GtkWidget *spin = gtk_spin_button_new_with_range(ALLIUM_COLLISION_MIN_SIZE,
                                                         ALLIUM_COLLISION_MAX_SIZE, 1);
        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), initial[k]);
        gtk_label_set_mnemonic_widget(GTK_LABEL(label), spin);
        d->spins[k] = GTK_SPIN_BUTTON(spin);
        gtk_grid_attach(GTK_GRID(grid), label, 0, k, 1, 1);
        gtk_grid_attach(GTK_GRID(grid), spin, 1, k, 1, 1);
        gtk_grid_attach(GTK_GRID(grid), gtk_label_new(_("units")), 2, k, 1, 1);
    }
    GtkWidget *note = gtk_label_new(_("Boxes of any size are moved by dynamic plane shifting;\n"
                                      "the map's own hulls (H) use its compiled collision tree."));
    gtk_widget_add_css_class(note, "dim-label");
    gtk_label_set_xalign(GTK_LABEL(note), 0);
    gtk_grid_attach(GTK_GRID(grid), note, 0, 3, 3, 1);
    gtk_window_set_child(d->window, grid);

    /* Enter uses the size (before the spin button's text takes the key), Escape cancels. */
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
    GtkShortcutController *sc = GTK_SHORTCUT_CONTROLLER(keys);
    gtk_shortcut_controller_add_shortcut(
        sc, gtk_shortcut_new(gtk_alternative_trigger_new(gtk_keyval_trigger_new(GDK_KEY_Return, 0),
                                                         gtk_keyval_trigger_new(GDK_KEY_KP_Enter, 0)),
                             gtk_callback_action_new(use_key_cb, d, NULL)));
    gtk_shortcut_controller_add_shortcut(
        sc, gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                             gtk_callback_action_new(cancel_key_cb, d, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(d->window), keys);
    gtk_window_present(d->window);
    return d->window;
}
