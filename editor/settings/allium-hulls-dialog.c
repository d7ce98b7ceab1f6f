/* The "Agent Hulls" dialog (allium-hulls-dialog.h).
 *
 * The table is rebuilt from a plain list of al_hull_desc whenever a row comes or goes; the
 * widgets' values are read back into the list first, so what was typed is kept. */
#include "allium-config.h"

#include "allium-hulls-dialog.h"
#include "allium-dialog.h"
#include "allium-error-label.h"

#include <glib/gi18n.h>
#include <string.h>

/* Coordinates a hull box may use, in units (as the test boxes of any size). */
#define COORD_LIMIT 4096.0

typedef struct {
    GtkEntry *name;
    GtkSpinButton *spins[6]; /* min x y z, max x y z */
    GtkWidget *remove;
} Row;

typedef struct {
    GtkWindow *window;
    AlliumDocument *document; /* owned reference */
    GtkGrid *grid;
    GtkLabel *message;
    GArray *hulls; /* al_hull_desc */
    GArray *rows;  /* Row, one per hull */
} Dialog;

static void rebuild(Dialog *d);

static Dialog *dialog_of(GtkWindow *window)
{
    return g_object_get_data(G_OBJECT(window), "allium-hulls-dialog");
}

static void dialog_free(gpointer data)
{
    Dialog *d = data;
    g_clear_object(&d->document);
    g_array_unref(d->hulls);
    g_array_unref(d->rows);
    g_free(d);
}

/* Reads the widgets back into the list. */
static void read_rows(Dialog *d)
{
    for (guint i = 0; i < d->rows->len; i++) {
        Row *r = &g_array_index(d->rows, Row, i);
        al_hull_desc *h = &g_array_index(d->hulls, al_hull_desc, i);
        g_strlcpy(h->name, gtk_editable_get_text(GTK_EDITABLE(r->name)), sizeof h->name);
        for (int k = 0; k < 6; k++) {
            gtk_spin_button_update(r->spins[k]); /* what was typed but not yet confirmed */
            double v = gtk_spin_button_get_value(r->spins[k]);
            if (k < 3) h->mins[k] = v;
            else h->maxs[k - 3] = v;
        }
    }
}

static void set_message(Dialog *d, const char *text)
{
    allium_error_label_set(d->message, text);
}

static void remove_cb(GtkButton *button, Dialog *d)
{
    guint row = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "allium-row"));
    allium_hulls_dialog_remove_row(d->window, row);
}

static GtkWidget *header_label(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_widget_add_css_class(label, "dim-label");
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    return label;
}

static void rebuild(Dialog *d)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(d->grid))))
        gtk_grid_remove(d->grid, child);
    g_array_set_size(d->rows, 0);
    gtk_grid_attach(d->grid, header_label(_("Name")), 0, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Min X")), 1, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Min Y")), 2, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Min Z")), 3, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Max X")), 4, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Max Y")), 5, 0, 1, 1);
    gtk_grid_attach(d->grid, header_label(_("Max Z")), 6, 0, 1, 1);
    for (guint i = 0; i < d->hulls->len; i++) {
        const al_hull_desc *h = &g_array_index(d->hulls, al_hull_desc, i);
        Row r = {0};
        /* The point hull is the compiler's: shown, not edited. */
        gboolean fixed = i == 0;
        r.name = GTK_ENTRY(gtk_entry_new());
        gtk_entry_set_max_length(r.name, AL_HULL_NAME_MAX - 1);
        gtk_editable_set_width_chars(GTK_EDITABLE(r.name), 10);
        gtk_editable_set_text(GTK_EDITABLE(r.name), h->name);
        gtk_widget_set_sensitive(GTK_WIDGET(r.name), !fixed);
        gtk_grid_attach(d->grid, GTK_WIDGET(r.name), 0, (int) i + 1, 1, 1);
        for (int k = 0; k < 6; k++) {
            GtkWidget *spin = gtk_spin_button_new_with_range(-COORD_LIMIT, COORD_LIMIT, 1);
            gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), 1);
            gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), k < 3 ? h->mins[k] : h->maxs[k - 3]);
            gtk_widget_set_sensitive(spin, !fixed);
            r.spins[k] = GTK_SPIN_BUTTON(spin);
            gtk_grid_attach(d->grid, spin, 1 + k, (int) i + 1, 1, 1);
        }
        r.remove = gtk_button_new_from_icon_name("list-remove-symbolic");
        gtk_widget_set_tooltip_text(r.remove, _("Remove this hull"));
        gtk_widget_set_sensitive(r.remove, !fixed);
        g_object_set_data(G_OBJECT(r.remove), "allium-row", GUINT_TO_POINTER(i));
        g_signal_connect(r.remove, "clicked", G_CALLBACK(remove_cb), d);
        gtk_grid_attach(d->grid, r.remove, 7, (int) i + 1, 1, 1);
        g_array_append_val(d->rows, r);
    }
}

static void add_cb(GtkButton *button, Dialog *d)
{
    (void) button;
    allium_hulls_dialog_add_row(d->window);
}

static void apply_cb(GtkButton *button, Dialog *d)
{
    (void) button;
    allium_hulls_dialog_apply(d->window);
}

static void cancel_cb(GtkButton *button, Dialog *d)
{
    (void) button;
    gtk_window_destroy(d->window);
}

static gboolean cancel_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    cancel_cb(NULL, data);
    return TRUE;
}

GtkWindow *allium_hulls_dialog_show(GtkWindow *parent, AlliumDocument *document)
{
    Dialog *d = g_new0(Dialog, 1);
    d->document = g_object_ref(document);
    d->hulls = g_array_new(FALSE, TRUE, sizeof(al_hull_desc));
    d->rows = g_array_new(FALSE, TRUE, sizeof(Row));
    AlliumSnapshot *snap = allium_document_get_snapshot(document);
    const al_hull_desc *hulls = snap ? snap->input.input.hulls : NULL;
    int count = snap ? snap->input.input.hull_count : 0;
    if (count == 0) count = al_default_hulls(&hulls);
    g_array_append_vals(d->hulls, hulls, (guint) count);

    GtkWidget *cancel, *apply;
    d->window = allium_dialog_new(parent, _("Agent Hulls"), _("_Apply"), &cancel, &apply);
    g_object_set_data_full(G_OBJECT(d->window), "allium-hulls-dialog", d, dialog_free);
    g_signal_connect(cancel, "clicked", G_CALLBACK(cancel_cb), d);
    g_signal_connect(apply, "clicked", G_CALLBACK(apply_cb), d);
    gtk_widget_set_sensitive(apply, !allium_document_get_read_only(document));

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_margin_start(box, 18);
    gtk_widget_set_margin_end(box, 18);
    gtk_widget_set_margin_top(box, 18);
    gtk_widget_set_margin_bottom(box, 18);
    GtkWidget *intro = gtk_label_new(
        _("Each hull is an agent's box around its origin, in units. The compiler builds\n"
          "one collision tree with a solidity bit per hull; walk mode, agents and test\n"
          "boxes use them by name (\"stand\", \"crouch\")."));
    gtk_label_set_xalign(GTK_LABEL(intro), 0);
    gtk_box_append(GTK_BOX(box), intro);
    d->grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(d->grid, 6);
    gtk_grid_set_column_spacing(d->grid, 6);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->grid));
    GtkWidget *add = gtk_button_new_with_mnemonic(_("A_dd Hull"));
    gtk_widget_set_halign(add, GTK_ALIGN_START);
    g_signal_connect(add, "clicked", G_CALLBACK(add_cb), d);
    gtk_box_append(GTK_BOX(box), add);
    d->message = allium_error_label_new();
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(d->message));
    gtk_window_set_child(d->window, box);
    rebuild(d);

    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_shortcut_controller_add_shortcut(
        GTK_SHORTCUT_CONTROLLER(keys),
        gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                         gtk_callback_action_new(cancel_key_cb, d, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(d->window), keys);
    gtk_window_present(d->window);
    return d->window;
}

void allium_hulls_dialog_add_row(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL);
    read_rows(d);
    if (d->hulls->len >= AL_MAX_HULLS) {
        g_autofree char *text = g_strdup_printf(_("A map holds at most %d hulls."), AL_MAX_HULLS);
        set_message(d, text);
        return;
    }
    /* A new hull: Quake's player box, under a name not yet taken. */
    al_hull_desc h = {.mins = {-16, -16, -24}, .maxs = {16, 16, 32}};
    for (guint n = d->hulls->len;; n++) {
        snprintf(h.name, sizeof h.name, "hull%u", n);
        gboolean taken = FALSE;
        for (guint i = 0; i < d->hulls->len; i++)
            taken |= g_str_equal(g_array_index(d->hulls, al_hull_desc, i).name, h.name);
        if (!taken) break;
    }
    g_array_append_val(d->hulls, h);
    set_message(d, "");
    rebuild(d);
}

void allium_hulls_dialog_remove_row(GtkWindow *dialog, guint row)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL);
    if (row == 0 || row >= d->hulls->len) return;
    read_rows(d);
    g_array_remove_index(d->hulls, row);
    set_message(d, "");
    rebuild(d);
}

void allium_hulls_dialog_set_row(GtkWindow *dialog, guint row, const char *name,
                                 const double mins[3], const double maxs[3])
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL && row < d->rows->len);
    Row *r = &g_array_index(d->rows, Row, row);
    gtk_editable_set_text(GTK_EDITABLE(r->name), name);
    for (int k = 0; k < 3; k++) {
        gtk_spin_button_set_value(r->spins[k], mins[k]);
        gtk_spin_button_set_value(r->spins[k + 3], maxs[k]);
    }
}

gboolean allium_hulls_dialog_apply(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, FALSE);
    read_rows(d);
    for (guint i = 1; i < d->hulls->len; i++) {
        const al_hull_desc *h = &g_array_index(d->hulls, al_hull_desc, i);
        if (!g_utf8_validate(h->name, -1, NULL) || h->name[0] == '\0') {
            g_autofree char *text = g_strdup_printf(_("Hull %u has no name."), i + 1);
            set_message(d, text);
            return FALSE;
        }
    }
    GError *error = NULL;
    if (!allium_document_set_hulls(d->document, (const al_hull_desc *) (gpointer) d->hulls->data,
                                   d->hulls->len, &error)) {
        set_message(d, error->message);
        g_error_free(error);
        return FALSE;
    }
    gtk_window_destroy(d->window);
    return TRUE;
}

const char *allium_hulls_dialog_get_message(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, "");
    return gtk_widget_get_visible(GTK_WIDGET(d->message)) ? gtk_label_get_text(d->message) : "";
}

guint allium_hulls_dialog_get_row_count(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, 0);
    return d->hulls->len;
}
