/* The "Rotate" and "Scale" dialogs (allium-transform-dialog.h). */
#include "allium-config.h"

#include "allium-transform-dialog.h"
#include "allium-dialog.h"
#include "allium-error-label.h"

#include "al-epsilon.h"

#include <glib/gi18n.h>

typedef struct {
    GtkWindow *window;
    AlliumTransformKind kind;
    GtkSpinButton *spins[3]; /* rotate: the angle only */
    GtkDropDown *axis;       /* rotate: the axis; shear: the axis moved along */
    GtkDropDown *across;     /* shear only: the axis whose far side moves */
    GtkCheckButton *about_point; /* rotate only: about CENTRE rather than the middle */
    GtkSpinButton *centre[3];
    GtkLabel *message;
    AlliumTransformFunc func;
    gpointer user_data;
} Dialog;

static Dialog *dialog_of(GtkWindow *window)
{
    return g_object_get_data(G_OBJECT(window), "allium-transform-dialog");
}

static void apply_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    allium_transform_dialog_apply(d->window);
}

static void cancel_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    gtk_window_destroy(d->window);
}

static gboolean apply_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    apply_cb(NULL, data);
    return TRUE;
}

static gboolean cancel_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    cancel_cb(NULL, data);
    return TRUE;
}

static GtkWidget *add_row(GtkGrid *grid, int row, const char *text, GtkWidget *field,
                          const char *unit)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), field);
    gtk_grid_attach(grid, label, 0, row, 1, 1);
    gtk_grid_attach(grid, field, 1, row, 1, 1);
    if (unit) gtk_grid_attach(grid, gtk_label_new(unit), 2, row, 1, 1);
    return label;
}

static void about_point_toggled_cb(GtkCheckButton *button, Dialog *d)
{
    gboolean on = gtk_check_button_get_active(button);
    for (int k = 0; k < 3; k++) gtk_widget_set_sensitive(GTK_WIDGET(d->centre[k]), on);
}

GtkWindow *allium_transform_dialog_show(GtkWindow *parent, AlliumTransformKind kind, int axis,
                                        const double point[3], gboolean use_point,
                                        AlliumTransformFunc func, gpointer user_data)
{
    Dialog *d = g_new0(Dialog, 1);
    d->kind = kind;
    d->func = func;
    d->user_data = user_data;
    GtkWidget *cancel, *apply;
    d->window = allium_dialog_new(parent,
                                  kind == ALLIUM_TRANSFORM_ROTATE  ? _("Rotate Selection")
                                  : kind == ALLIUM_TRANSFORM_SCALE ? _("Scale Selection")
                                                                   : _("Shear Selection"),
                                  _("_Apply"), &cancel, &apply);
    g_object_set_data_full(G_OBJECT(d->window), "allium-transform-dialog", d, g_free);
    gtk_window_set_resizable(d->window, FALSE);
    g_signal_connect(cancel, "clicked", G_CALLBACK(cancel_cb), d);
    g_signal_connect(apply, "clicked", G_CALLBACK(apply_cb), d);
    gtk_window_set_default_widget(d->window, apply);

    GtkGrid *grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(grid, 6);
    gtk_grid_set_column_spacing(grid, 12);
    gtk_widget_set_margin_start(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_end(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_top(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_bottom(GTK_WIDGET(grid), 18);
    int row = 0;
    if (kind == ALLIUM_TRANSFORM_ROTATE) {
        GtkWidget *spin = gtk_spin_button_new_with_range(-360, 360, 1);
        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), 3);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), 15);
        d->spins[0] = GTK_SPIN_BUTTON(spin);
        add_row(grid, row++, _("_Angle"), spin, _("degrees"));
        const char *axes[] = {_("X"), _("Y"), _("Z"), NULL};
        GtkWidget *drop = gtk_drop_down_new_from_strings(axes);
        gtk_drop_down_set_selected(GTK_DROP_DOWN(drop), (guint) CLAMP(axis, 0, 2));
        d->axis = GTK_DROP_DOWN(drop);
        add_row(grid, row++, _("A_xis"), drop, NULL);
        GtkWidget *check = gtk_check_button_new_with_mnemonic(_("About a _point"));
        d->about_point = GTK_CHECK_BUTTON(check);
        gtk_grid_attach(grid, check, 0, row++, 3, 1);
        const char *centre_labels[3] = {_("Centre _X"), _("Centre _Y"), _("Centre _Z")};
        for (int k = 0; k < 3; k++) {
            GtkWidget *field = gtk_spin_button_new_with_range(-AL_COORD_MAX, AL_COORD_MAX, 1);
            gtk_spin_button_set_digits(GTK_SPIN_BUTTON(field), 3);
            gtk_spin_button_set_value(GTK_SPIN_BUTTON(field), point ? point[k] : 0);
            d->centre[k] = GTK_SPIN_BUTTON(field);
            add_row(grid, row++, centre_labels[k], field, NULL);
        }
        g_signal_connect(check, "toggled", G_CALLBACK(about_point_toggled_cb), d);
        gtk_check_button_set_active(d->about_point, use_point);
        about_point_toggled_cb(d->about_point, d);
        GtkWidget *note = gtk_label_new(_("Counter-clockwise seen from the axis's positive\n"
                                          "side, about the middle of the selection or the\n"
                                          "point (Ctrl+Alt+drag in a 2D view places it)."));
        gtk_widget_add_css_class(note, "dim-label");
        gtk_label_set_xalign(GTK_LABEL(note), 0);
        gtk_grid_attach(grid, note, 0, row++, 3, 1);
    } else if (kind == ALLIUM_TRANSFORM_SHEAR) {
        GtkWidget *spin = gtk_spin_button_new_with_range(-AL_COORD_MAX, AL_COORD_MAX, 1);
        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), 3);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), 16);
        d->spins[0] = GTK_SPIN_BUTTON(spin);
        add_row(grid, row++, _("_Distance"), spin, _("units"));
        const char *axes[] = {_("X"), _("Y"), _("Z"), NULL};
        GtkWidget *drop = gtk_drop_down_new_from_strings(axes);
        gtk_drop_down_set_selected(GTK_DROP_DOWN(drop), (guint) CLAMP(axis, 0, 2));
        d->axis = GTK_DROP_DOWN(drop);
        add_row(grid, row++, _("_Along"), drop, NULL);
        GtkWidget *side = gtk_drop_down_new_from_strings(axes);
        gtk_drop_down_set_selected(GTK_DROP_DOWN(side), (guint) (CLAMP(axis, 0, 2) + 2) % 3);
        d->across = GTK_DROP_DOWN(side);
        add_row(grid, row++, _("_Side across"), side, NULL);
        GtkWidget *note = gtk_label_new(_("The far side of the selection across the chosen\n"
                                          "axis moves by the distance, the near side stays;\n"
                                          "volumes are kept."));
        gtk_widget_add_css_class(note, "dim-label");
        gtk_label_set_xalign(GTK_LABEL(note), 0);
        gtk_grid_attach(grid, note, 0, row++, 3, 1);
    } else {
        const char *labels[3] = {_("Along _X"), _("Along _Y"), _("Along _Z")};
        for (int k = 0; k < 3; k++) {
            GtkWidget *spin = gtk_spin_button_new_with_range(-1000, 1000, 0.25);
            gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), 4);
            gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), 1);
            d->spins[k] = GTK_SPIN_BUTTON(spin);
            add_row(grid, row++, labels[k], spin, "×");
        }
        GtkWidget *note = gtk_label_new(_("About the middle of the selection; a negative\n"
                                          "factor mirrors it."));
        gtk_widget_add_css_class(note, "dim-label");
        gtk_label_set_xalign(GTK_LABEL(note), 0);
        gtk_grid_attach(grid, note, 0, row++, 3, 1);
    }
    d->message = allium_error_label_new();
    gtk_grid_attach(grid, GTK_WIDGET(d->message), 0, row++, 3, 1);
    gtk_window_set_child(d->window, GTK_WIDGET(grid));

    /* Enter applies (before the spin button's text takes the key), Escape cancels. */
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
    GtkShortcutController *sc = GTK_SHORTCUT_CONTROLLER(keys);
    gtk_shortcut_controller_add_shortcut(
        sc,
        gtk_shortcut_new(gtk_alternative_trigger_new(gtk_keyval_trigger_new(GDK_KEY_Return, 0),
                                                     gtk_keyval_trigger_new(GDK_KEY_KP_Enter, 0)),
                         gtk_callback_action_new(apply_key_cb, d, NULL)));
    gtk_shortcut_controller_add_shortcut(
        sc, gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                             gtk_callback_action_new(cancel_key_cb, d, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(d->window), keys);
    gtk_window_present(d->window);
    return d->window;
}

void allium_transform_dialog_set(GtkWindow *dialog, const double values[3], int axis)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL);
    for (int k = 0; k < 3; k++)
        if (d->spins[k]) gtk_spin_button_set_value(d->spins[k], values[k]);
    if (d->across) gtk_drop_down_set_selected(d->across, (guint) CLAMP((int) values[1], 0, 2));
    if (d->axis) gtk_drop_down_set_selected(d->axis, (guint) CLAMP(axis, 0, 2));
}

gboolean allium_transform_dialog_apply(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, FALSE);
    double values[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        if (d->spins[k]) {
            gtk_spin_button_update(d->spins[k]); /* take what was typed but not yet confirmed */
            values[k] = gtk_spin_button_get_value(d->spins[k]);
        }
    if (d->across) values[1] = (double) gtk_drop_down_get_selected(d->across);
    double centre[3];
    gboolean about_point = d->about_point && gtk_check_button_get_active(d->about_point);
    for (int k = 0; k < 3 && about_point; k++) {
        gtk_spin_button_update(d->centre[k]);
        centre[k] = gtk_spin_button_get_value(d->centre[k]);
    }
    char *message = NULL;
    if (!d->func(d->kind, values, allium_transform_dialog_get_axis(dialog),
                 about_point ? centre : NULL, &message, d->user_data)) {
        allium_error_label_set(d->message, message ? message : _("The values were refused"));
        g_free(message);
        return FALSE;
    }
    g_free(message);
    gtk_window_destroy(d->window);
    return TRUE;
}

const char *allium_transform_dialog_get_message(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, "");
    return gtk_widget_get_visible(GTK_WIDGET(d->message)) ? gtk_label_get_text(d->message) : "";
}

int allium_transform_dialog_get_axis(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, 2);
    return d->axis ? (int) gtk_drop_down_get_selected(d->axis) : -1;
}

void allium_transform_dialog_set_centre(GtkWindow *dialog, const double *point)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL && d->about_point != NULL);
    for (int k = 0; k < 3 && point; k++) gtk_spin_button_set_value(d->centre[k], point[k]);
    gtk_check_button_set_active(d->about_point, point != NULL);
}

void allium_transform_dialog_set_across(GtkWindow *dialog, int axis)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL && d->across != NULL);
    gtk_drop_down_set_selected(d->across, (guint) CLAMP(axis, 0, 2));
}
