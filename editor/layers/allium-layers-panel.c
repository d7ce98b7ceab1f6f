/* The Layers page (see allium-layers-panel.h).
 *
 * Workload: the list is rebuilt from the document after each change (a map has a handful
 * of layers; reading them parses every entity's keys once).
 */
#include "allium-config.h"

#include "allium-layers-panel.h"

#include "layers/layer-edits.h"

#include <glib/gi18n.h>

struct _AlliumLayersPanel {
    GtkBox parent_instance;

    /* owned widgets (children) */
    GtkListBox *list;
    GtkEntry *name_entry;
    GtkCheckButton *omit_check;
    GtkLabel *problem;

    /* owned references */
    AlliumDocument *document;
    AlliumSelection *selection;
    GArray *layers; /* gint64 layer entity per list row */

    gboolean updating; /* filling the widgets: their signals are not the designer's */
};

G_DEFINE_FINAL_TYPE(AlliumLayersPanel, allium_layers_panel, GTK_TYPE_BOX)

/* --- static helpers ------------------------------------------------------------------ */

/* Says why an edit was refused, under the buttons; the designer's next change clears it. */
static void report(AlliumLayersPanel *self, GError *error)
{
    gtk_label_set_text(self->problem, error ? error->message : "");
    gtk_widget_set_visible(GTK_WIDGET(self->problem), error != NULL);
    g_clear_error(&error);
}

/* The layer entity of the selected row, or -1. */
static gint64 selected_layer(AlliumLayersPanel *self)
{
    GtkListBoxRow *row = gtk_list_box_get_selected_row(self->list);
    int i = row ? gtk_list_box_row_get_index(row) : -1;
    return i >= 0 && (guint) i < self->layers->len ? g_array_index(self->layers, gint64, i) : -1;
}

static void flag_toggled_cb(GtkCheckButton *check, AlliumLayersPanel *self)
{
    if (self->updating || !self->document) return;
    gint64 layer = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(check), "layer")) - 1;
    int flag = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(check), "flag"));
    gboolean on = gtk_check_button_get_active(check);
    /* Visible is the opposite of hidden. */
    if (flag == AL_LAYER_HIDDEN) on = !on;
    GError *error = NULL;
    if (!allium_document_set_layer_flag(self->document, layer, flag, on, &error))
        report(self, error);
}

static void color_set_cb(GtkColorButton *button, AlliumLayersPanel *self)
{
    if (self->updating || !self->document) return;
    gint64 layer = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(button), "layer")) - 1;
    GdkRGBA rgba;
    gtk_color_chooser_get_rgba(GTK_COLOR_CHOOSER(button), &rgba);
    const float rgb[3] = {rgba.red, rgba.green, rgba.blue};
    GError *error = NULL;
    if (!allium_document_set_layer_color(self->document, layer, rgb, &error)) report(self, error);
}

/* The layer's colour swatch; a click opens a chooser, and the choice is one undoable step.
 * A layer without a colour shows the views' usual outline grey. */
static GtkWidget *color_button(AlliumLayersPanel *self, gint64 layer, const al_layer_node *node)
{
    GdkRGBA rgba = {0.75, 0.75, 0.75, 1};
    if (node->has_color) rgba = (GdkRGBA){node->color[0], node->color[1], node->color[2], 1};
    GtkWidget *button = gtk_color_button_new_with_rgba(&rgba);
    gtk_color_chooser_set_use_alpha(GTK_COLOR_CHOOSER(button), FALSE);
    gtk_color_button_set_title(GTK_COLOR_BUTTON(button), _("Layer Colour"));
    gtk_widget_set_tooltip_text(button, node->has_color ? _("The layer's colour in the 2D views")
                                                        : _("No colour yet: click to give one"));
    g_object_set_data(G_OBJECT(button), "layer", GSIZE_TO_POINTER((gsize) (layer + 1)));
    g_signal_connect(button, "color-set", G_CALLBACK(color_set_cb), self);
    return button;
}

static GtkWidget *flag_check(AlliumLayersPanel *self, const char *label, gint64 layer, int flag,
                             gboolean active)
{
    GtkWidget *check = gtk_check_button_new_with_label(label);
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), active);
    g_object_set_data(G_OBJECT(check), "layer", GSIZE_TO_POINTER((gsize) (layer + 1)));
    g_object_set_data(G_OBJECT(check), "flag", GINT_TO_POINTER(flag));
    g_signal_connect(check, "toggled", G_CALLBACK(flag_toggled_cb), self);
    return check;
}

/* Rebuilds the list from the document, keeping the selected layer selected. */
static void refill(AlliumLayersPanel *self)
{
    gint64 keep = selected_layer(self);
    self->updating = TRUE;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
        gtk_list_box_remove(self->list, child);
    g_array_set_size(self->layers, 0);
    al_layers layers;
    al_doc *doc = self->document ? allium_document_get_doc(self->document) : NULL;
    if (doc && al_layers_read(doc, &layers, NULL) == AL_OK) {
        int *order = NULL, count = 0;
        if (al_layers_list(&layers, &order, &count) == AL_OK) {
            for (int i = 0; i < count; i++) {
                int e = order[i];
                gint64 id = e == 0 ? 0 : layers.rows[e].id;
                const char *name =
                    e == 0 ? _("Default Layer") : al_layers_value(&layers, e, "_tb_name");
                GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
                gtk_box_append(GTK_BOX(box), color_button(self, id, &layers.nodes[e]));
                GtkWidget *label = gtk_label_new(name ? name : "");
                gtk_widget_set_hexpand(label, TRUE);
                gtk_label_set_xalign(GTK_LABEL(label), 0);
                gtk_box_append(GTK_BOX(box), label);
                if (layers.nodes[e].omit)
                    gtk_box_append(GTK_BOX(box), gtk_label_new(_("(omitted)")));
                gtk_box_append(GTK_BOX(box), flag_check(self, _("Visible"), id, AL_LAYER_HIDDEN,
                                                        !layers.nodes[e].hidden));
                gtk_box_append(GTK_BOX(box), flag_check(self, _("Locked"), id, AL_LAYER_LOCKED,
                                                        layers.nodes[e].locked));
                gtk_list_box_append(self->list, box);
                g_array_append_val(self->layers, id);
                if (id == keep)
                    gtk_list_box_select_row(self->list,
                                            gtk_list_box_get_row_at_index(self->list, i));
            }
            free(order);
        }
        al_layers_free(&layers);
    }
    self->updating = FALSE;
}

/* --- signal callbacks ---------------------------------------------------------------- */

static void document_changed_cb(AlliumDocument *document, AlliumLayersPanel *self)
{
    report(self, NULL);
    /* The layers and their counts change only with what the marks are read from. */
    if (allium_document_change_touches_marks(document)) refill(self);
}

static void row_selected_cb(GtkListBox *list, GtkListBoxRow *row, AlliumLayersPanel *self)
{
    (void) list;
    (void) row;
    gint64 layer = selected_layer(self);
    self->updating = TRUE;
    gboolean omit = FALSE;
    al_layers layers;
    if (layer > 0 && self->document &&
        al_layers_read(allium_document_get_doc(self->document), &layers, NULL) == AL_OK) {
        int e = al_layers_find(&layers, layer);
        omit = e > 0 && layers.nodes[e].omit;
        const char *name = e > 0 ? al_layers_value(&layers, e, "_tb_name") : NULL;
        gtk_editable_set_text(GTK_EDITABLE(self->name_entry), name ? name : "");
        al_layers_free(&layers);
    }
    gtk_check_button_set_active(self->omit_check, omit);
    gtk_widget_set_sensitive(GTK_WIDGET(self->omit_check), layer > 0);
    self->updating = FALSE;
}

static void new_clicked_cb(GtkButton *button, AlliumLayersPanel *self)
{
    (void) button;
    if (!self->document) return;
    const char *name = gtk_editable_get_text(GTK_EDITABLE(self->name_entry));
    GError *error = NULL;
    if (!allium_document_add_layer(self->document, name && name[0] ? name : _("New Layer"), NULL,
                                   &error))
        report(self, error);
}

static void rename_clicked_cb(GtkButton *button, AlliumLayersPanel *self)
{
    (void) button;
    gint64 layer = selected_layer(self);
    if (!self->document || layer <= 0) return;
    GError *error = NULL;
    if (!allium_document_rename_layer(
            self->document, layer, gtk_editable_get_text(GTK_EDITABLE(self->name_entry)), &error))
        report(self, error);
}

static void delete_clicked_cb(GtkButton *button, AlliumLayersPanel *self)
{
    (void) button;
    gint64 layer = selected_layer(self);
    if (!self->document || layer <= 0) return;
    GError *error = NULL;
    if (!allium_document_delete_layer(self->document, layer, &error)) report(self, error);
}

static void omit_toggled_cb(GtkCheckButton *check, AlliumLayersPanel *self)
{
    gint64 layer = selected_layer(self);
    if (self->updating || !self->document || layer <= 0) return;
    GError *error = NULL;
    if (!allium_document_set_layer_flag(self->document, layer, AL_LAYER_OMIT,
                                        gtk_check_button_get_active(check), &error))
        report(self, error);
}

static void move_clicked_cb(GtkButton *button, AlliumLayersPanel *self)
{
    (void) button;
    gint64 layer = selected_layer(self);
    if (!self->document || !self->selection || layer < 0) return;
    /* The window's action, as the views' context menu runs it. */
    gtk_widget_activate_action(GTK_WIDGET(self), "win.move-to-layer", "x", layer);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_layers_panel_dispose(GObject *object)
{
    AlliumLayersPanel *self = ALLIUM_LAYERS_PANEL(object);
    if (self->document) g_signal_handlers_disconnect_by_data(self->document, self);
    g_clear_object(&self->document);
    g_clear_object(&self->selection);
    G_OBJECT_CLASS(allium_layers_panel_parent_class)->dispose(object);
}

static void allium_layers_panel_finalize(GObject *object)
{
    AlliumLayersPanel *self = ALLIUM_LAYERS_PANEL(object);
    g_array_unref(self->layers);
    G_OBJECT_CLASS(allium_layers_panel_parent_class)->finalize(object);
}

static void allium_layers_panel_class_init(AlliumLayersPanelClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = allium_layers_panel_dispose;
    object_class->finalize = allium_layers_panel_finalize;
}

static GtkWidget *button(AlliumLayersPanel *self, const char *label, GCallback cb)
{
    GtkWidget *b = gtk_button_new_with_mnemonic(label);
    g_signal_connect(b, "clicked", cb, self);
    return b;
}

static void allium_layers_panel_init(AlliumLayersPanel *self)
{
    self->layers = g_array_new(FALSE, FALSE, sizeof(gint64));
    gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(self), 6);
    gtk_widget_set_margin_start(GTK_WIDGET(self), 6);
    gtk_widget_set_margin_end(GTK_WIDGET(self), 6);
    gtk_widget_set_margin_top(GTK_WIDGET(self), 6);
    gtk_widget_set_margin_bottom(GTK_WIDGET(self), 6);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_widget_set_vexpand(scroller, TRUE);
    self->list = GTK_LIST_BOX(gtk_list_box_new());
    g_signal_connect(self->list, "row-selected", G_CALLBACK(row_selected_cb), self);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), GTK_WIDGET(self->list));
    gtk_box_append(GTK_BOX(self), scroller);
    self->name_entry = GTK_ENTRY(gtk_entry_new());
    gtk_entry_set_placeholder_text(self->name_entry, _("Layer name"));
    gtk_box_append(GTK_BOX(self), GTK_WIDGET(self->name_entry));
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(row), button(self, _("_New"), G_CALLBACK(new_clicked_cb)));
    gtk_box_append(GTK_BOX(row), button(self, _("_Rename"), G_CALLBACK(rename_clicked_cb)));
    gtk_box_append(GTK_BOX(row), button(self, _("_Delete"), G_CALLBACK(delete_clicked_cb)));
    gtk_box_append(GTK_BOX(self), row);
    self->omit_check = GTK_CHECK_BUTTON(gtk_check_button_new_with_label(_("Omit from export")));
    gtk_widget_set_sensitive(GTK_WIDGET(self->omit_check), FALSE);
    g_signal_connect(self->omit_check, "toggled", G_CALLBACK(omit_toggled_cb), self);
    gtk_box_append(GTK_BOX(self), GTK_WIDGET(self->omit_check));
    gtk_box_append(GTK_BOX(self),
                   button(self, _("_Move Selection Here"), G_CALLBACK(move_clicked_cb)));
    self->problem = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_wrap(self->problem, TRUE);
    gtk_widget_add_css_class(GTK_WIDGET(self->problem), "error");
    gtk_widget_set_visible(GTK_WIDGET(self->problem), FALSE);
    gtk_box_append(GTK_BOX(self), GTK_WIDGET(self->problem));
}

/* --- public API ---------------------------------------------------------------------- */

void allium_layers_panel_set_document(AlliumLayersPanel *self, AlliumDocument *document,
                                      AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_LAYERS_PANEL(self));
    if (self->document) g_signal_handlers_disconnect_by_data(self->document, self);
    g_set_object(&self->document, document);
    g_set_object(&self->selection, selection);
    if (document) g_signal_connect(document, "changed", G_CALLBACK(document_changed_cb), self);
    refill(self);
}

gint64 allium_layers_panel_get_layer(AlliumLayersPanel *self, int index)
{
    g_return_val_if_fail(ALLIUM_IS_LAYERS_PANEL(self), -1);
    return index >= 0 && (guint) index < self->layers->len
               ? g_array_index(self->layers, gint64, index)
               : -1;
}

GtkWidget *allium_layers_panel_get_color_button(AlliumLayersPanel *self, int index)
{
    g_return_val_if_fail(ALLIUM_IS_LAYERS_PANEL(self), NULL);
    GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->list, index);
    GtkWidget *box = row ? gtk_list_box_row_get_child(row) : NULL;
    return box ? gtk_widget_get_first_child(box) : NULL;
}
