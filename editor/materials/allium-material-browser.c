/* AlliumMaterialBrowser (see allium-material-browser.h). */
#include "allium-config.h"

#include "allium-material-browser.h"
#include "allium-error-label.h"

#include <glib/gi18n.h>
#include <string.h>

/* The light a material gives off is edited as a colour and a strength: emission = colour *
 * strength, the strength being the largest component. */
#define EMISSION_MAX 1000.0

struct _AlliumMaterialBrowser {
    GtkWidget parent_instance;

    GtkWidget *box;
    GtkSearchEntry *search;
    GtkListBox *list;
    GtkLabel *message;
    GtkWidget *editor; /* the chosen material's editors */
    GtkLabel *chosen_label;
    GtkColorButton *colour;
    GtkCheckButton *auto_reflectance;
    GtkSpinButton *reflectance;
    GtkColorButton *emission_colour;
    GtkSpinButton *emission_strength;
    GtkWidget *apply;

    /* owned */
    AlliumDocument *document;
    AlliumSelection *selection;
    al_doc_material *materials;
    int count;
    char *chosen;      /* name of the chosen material, or NULL */
    char *fingerprint; /* of the list shown */
    gulong changed_handler, selection_handler;
    gboolean updating; /* the editors are being filled in: their signals are not edits */
    gboolean stale;    /* the document changed while the browser was not shown */
};

G_DEFINE_TYPE(AlliumMaterialBrowser, allium_material_browser, GTK_TYPE_WIDGET)

/* --- static helpers ------------------------------------------------------------------ */

static void set_message(AlliumMaterialBrowser *self, const char *text)
{
    allium_error_label_set(self->message, text);
}

static const al_doc_material *find(AlliumMaterialBrowser *self, const char *name)
{
    for (int i = 0; name && i < self->count; i++)
        if (g_str_equal(self->materials[i].name, name)) return &self->materials[i];
    return NULL;
}

static void draw_swatch(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void) area;
    const double *c = data;
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    cairo_rectangle(cr, 0, 0, width, height);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.5);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

static GtkWidget *make_row(const al_doc_material *m)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_set_margin_top(box, 2);
    gtk_widget_set_margin_bottom(box, 2);
    GtkWidget *swatch = gtk_drawing_area_new();
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(swatch), 22);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(swatch), 22);
    double *colour = g_memdup2(m->colour, sizeof m->colour);
    g_object_set_data_full(G_OBJECT(swatch), "allium-colour", colour, g_free);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(swatch), draw_swatch, colour, NULL);
    gtk_box_append(GTK_BOX(box), swatch);
    GtkWidget *name = gtk_label_new(m->name);
    gtk_label_set_xalign(GTK_LABEL(name), 0);
    gtk_label_set_ellipsize(GTK_LABEL(name), PANGO_ELLIPSIZE_END);
    gtk_widget_set_hexpand(name, TRUE);
    gtk_box_append(GTK_BOX(box), name);
    gboolean emits = m->emission[0] > 0 || m->emission[1] > 0 || m->emission[2] > 0;
    g_autofree char *uses = g_strdup_printf("%s%d", emits ? "☀ " : "", m->uses);
    GtkWidget *count = gtk_label_new(uses);
    gtk_widget_add_css_class(count, "dim-label");
    gtk_widget_set_tooltip_text(count, emits ? _("Faces using it; it gives off light")
                                             : _("Faces using it"));
    gtk_box_append(GTK_BOX(box), count);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
    g_object_set_data_full(G_OBJECT(row), "allium-material", g_strdup(m->name), g_free);
    return row;
}

static gboolean filter_cb(GtkListBoxRow *row, gpointer data)
{
    AlliumMaterialBrowser *self = data;
    const char *search = gtk_editable_get_text(GTK_EDITABLE(self->search));
    if (!search[0]) return TRUE;
    const char *name = g_object_get_data(G_OBJECT(row), "allium-material");
    g_autofree char *a = g_utf8_casefold(name, -1), *b = g_utf8_casefold(search, -1);
    return strstr(a, b) != NULL;
}

/* Fills the editors with the chosen material. */
static void show_chosen(AlliumMaterialBrowser *self)
{
    const al_doc_material *m = find(self, self->chosen);
    gtk_widget_set_sensitive(self->editor, m != NULL && self->document &&
                                               !allium_document_get_read_only(self->document));
    gtk_widget_set_sensitive(self->apply, m != NULL);
    if (!m) {
        gtk_label_set_text(self->chosen_label, _("Choose a material to edit it"));
        return;
    }
    self->updating = TRUE;
    gtk_label_set_text(self->chosen_label, m->name);
    GdkRGBA rgba = {(float) m->colour[0], (float) m->colour[1], (float) m->colour[2], 1};
    gtk_color_chooser_set_rgba(GTK_COLOR_CHOOSER(self->colour), &rgba);
    gtk_check_button_set_active(self->auto_reflectance, m->reflectance < 0);
    gtk_spin_button_set_value(self->reflectance, m->reflectance < 0 ? 0.5 : m->reflectance);
    gtk_widget_set_sensitive(GTK_WIDGET(self->reflectance), m->reflectance >= 0);
    double strength = MAX(m->emission[0], MAX(m->emission[1], m->emission[2]));
    GdkRGBA light = {1, 1, 1, 1};
    if (strength > 0)
        light = (GdkRGBA){(float) (m->emission[0] / strength), (float) (m->emission[1] / strength),
                          (float) (m->emission[2] / strength), 1};
    gtk_color_chooser_set_rgba(GTK_COLOR_CHOOSER(self->emission_colour), &light);
    gtk_spin_button_set_value(self->emission_strength, strength);
    self->updating = FALSE;
}

/* Reads the materials again; rebuilds the rows only when they changed. */
static void reload(AlliumMaterialBrowser *self)
{
    al_doc_materials_free(self->materials, self->count);
    self->materials = NULL;
    self->count = 0;
    if (self->document) {
        GError *error = NULL;
        self->materials = allium_document_list_materials(self->document, &self->count, &error);
        if (error) {
            set_message(self, error->message);
            g_error_free(error);
        }
    }
    g_autoptr(GString) print = g_string_new(NULL);
    for (int i = 0; i < self->count; i++) {
        const al_doc_material *m = &self->materials[i];
        g_string_append_printf(print, "%s %g %g %g %g %g %g %g %d\n", m->name, m->colour[0],
                               m->colour[1], m->colour[2], m->reflectance, m->emission[0],
                               m->emission[1], m->emission[2], m->uses);
    }
    if (self->fingerprint && g_str_equal(self->fingerprint, print->str)) return;
    g_free(self->fingerprint);
    self->fingerprint = g_strdup(print->str);
    self->updating = TRUE;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
        gtk_list_box_remove(self->list, child);
    for (int i = 0; i < self->count; i++) {
        GtkWidget *row = make_row(&self->materials[i]);
        gtk_list_box_append(self->list, row);
        if (self->chosen && g_str_equal(self->chosen, self->materials[i].name))
            gtk_list_box_select_row(self->list, GTK_LIST_BOX_ROW(row));
    }
    self->updating = FALSE;
    show_chosen(self);
}

static void row_selected_cb(GtkListBox *list, GtkListBoxRow *row, AlliumMaterialBrowser *self)
{
    (void) list;
    if (self->updating) return;
    g_free(self->chosen);
    self->chosen = row ? g_strdup(g_object_get_data(G_OBJECT(row), "allium-material")) : NULL;
    set_message(self, NULL);
    show_chosen(self);
}

static void row_activated_cb(GtkListBox *list, GtkListBoxRow *row, AlliumMaterialBrowser *self)
{
    (void) list;
    (void) row;
    allium_material_browser_apply(self);
}

static void apply_clicked_cb(GtkButton *button, AlliumMaterialBrowser *self)
{
    (void) button;
    allium_material_browser_apply(self);
}

static void search_changed_cb(GtkSearchEntry *entry, AlliumMaterialBrowser *self)
{
    (void) entry;
    gtk_list_box_invalidate_filter(self->list);
}

/* Writes what the editors show into the chosen material. */
static void commit_editors(AlliumMaterialBrowser *self)
{
    if (self->updating || !find(self, self->chosen)) return;
    GdkRGBA c, e;
    gtk_color_chooser_get_rgba(GTK_COLOR_CHOOSER(self->colour), &c);
    gtk_color_chooser_get_rgba(GTK_COLOR_CHOOSER(self->emission_colour), &e);
    double colour[3] = {c.red, c.green, c.blue};
    double strength = gtk_spin_button_get_value(self->emission_strength);
    double emission[3] = {e.red * strength, e.green * strength, e.blue * strength};
    double reflectance = gtk_check_button_get_active(self->auto_reflectance)
                             ? -1
                             : gtk_spin_button_get_value(self->reflectance);
    gtk_widget_set_sensitive(GTK_WIDGET(self->reflectance), reflectance >= 0);
    allium_material_browser_edit(self, colour, reflectance, emission);
}

static void colour_set_cb(GtkColorButton *button, AlliumMaterialBrowser *self)
{
    (void) button;
    commit_editors(self);
}

static void value_changed_cb(GtkSpinButton *spin, AlliumMaterialBrowser *self)
{
    (void) spin;
    commit_editors(self);
}

static void toggled_cb(GtkCheckButton *check, AlliumMaterialBrowser *self)
{
    (void) check;
    commit_editors(self);
}

static void document_changed_cb(AlliumDocument *document, AlliumMaterialBrowser *self)
{
    (void) document;
    /* Counting the faces of each material is a query over every face: not for every edit
     * while the browser is hidden. */
    if (!gtk_widget_get_mapped(GTK_WIDGET(self))) {
        self->stale = TRUE;
        return;
    }
    reload(self);
}

/* The list as the document has it now: read again if it changed while hidden. */
static void bring_up_to_date(AlliumMaterialBrowser *self)
{
    if (!self->stale) return;
    self->stale = FALSE;
    reload(self);
}

static void mapped_cb(GtkWidget *widget, AlliumMaterialBrowser *self)
{
    (void) widget;
    bring_up_to_date(self);
}

static void selection_changed_cb(AlliumSelection *selection, AlliumMaterialBrowser *self)
{
    (void) selection;
    set_message(self, NULL);
}

static GtkWidget *labelled(GtkWidget *grid, int row, const char *text, GtkWidget *widget)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), widget);
    gtk_grid_attach(GTK_GRID(grid), label, 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), widget, 1, row, 1, 1);
    return widget;
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_material_browser_dispose(GObject *object)
{
    AlliumMaterialBrowser *self = ALLIUM_MATERIAL_BROWSER(object);
    allium_material_browser_set_document(self, NULL);
    allium_material_browser_set_selection(self, NULL);
    g_clear_pointer(&self->box, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_material_browser_parent_class)->dispose(object);
}

static void allium_material_browser_finalize(GObject *object)
{
    AlliumMaterialBrowser *self = ALLIUM_MATERIAL_BROWSER(object);
    al_doc_materials_free(self->materials, self->count);
    g_free(self->chosen);
    g_free(self->fingerprint);
    G_OBJECT_CLASS(allium_material_browser_parent_class)->finalize(object);
}

static void allium_material_browser_class_init(AlliumMaterialBrowserClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_material_browser_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_material_browser_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-material-browser");
}

static void allium_material_browser_init(AlliumMaterialBrowser *self)
{
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_widget_set_margin_start(self->box, 10);
    gtk_widget_set_margin_end(self->box, 10);
    gtk_widget_set_margin_top(self->box, 10);
    gtk_widget_set_margin_bottom(self->box, 10);
    gtk_widget_set_parent(self->box, GTK_WIDGET(self));
    g_signal_connect(self, "map", G_CALLBACK(mapped_cb), self);

    self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
    gtk_search_entry_set_key_capture_widget(self->search, NULL);
    g_object_set(self->search, "placeholder-text", _("Search materials"), NULL);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(search_changed_cb), self);
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->search));

    self->list = GTK_LIST_BOX(gtk_list_box_new());
    gtk_list_box_set_selection_mode(self->list, GTK_SELECTION_SINGLE);
    gtk_list_box_set_activate_on_single_click(self->list, FALSE);
    gtk_list_box_set_filter_func(self->list, filter_cb, self, NULL);
    g_signal_connect(self->list, "row-selected", G_CALLBACK(row_selected_cb), self);
    g_signal_connect(self->list, "row-activated", G_CALLBACK(row_activated_cb), self);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), GTK_WIDGET(self->list));
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_box_append(GTK_BOX(self->box), scroller);

    self->apply = gtk_button_new_with_mnemonic(_("_Apply to Selection"));
    gtk_widget_set_tooltip_text(self->apply, _("Give the selected faces, or every face of the "
                                               "selected brushes, this material (or double "
                                               "click it)"));
    g_signal_connect(self->apply, "clicked", G_CALLBACK(apply_clicked_cb), self);
    gtk_box_append(GTK_BOX(self->box), self->apply);

    self->message = allium_error_label_new();
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->message));

    self->chosen_label = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_xalign(self->chosen_label, 0);
    gtk_widget_add_css_class(GTK_WIDGET(self->chosen_label), "heading");
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->chosen_label));
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    self->editor = grid;
    self->colour = GTK_COLOR_BUTTON(
        labelled(grid, 0, _("_Colour"), gtk_color_button_new()));
    gtk_color_chooser_set_use_alpha(GTK_COLOR_CHOOSER(self->colour), FALSE);
    g_signal_connect(self->colour, "color-set", G_CALLBACK(colour_set_cb), self);
    self->auto_reflectance =
        GTK_CHECK_BUTTON(gtk_check_button_new_with_mnemonic(_("Reflectance _from the colour")));
    g_signal_connect(self->auto_reflectance, "toggled", G_CALLBACK(toggled_cb), self);
    gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(self->auto_reflectance), 0, 1, 2, 1);
    self->reflectance = GTK_SPIN_BUTTON(
        labelled(grid, 2, _("_Reflectance"), gtk_spin_button_new_with_range(0, 1, 0.05)));
    gtk_spin_button_set_digits(self->reflectance, 2);
    gtk_editable_set_width_chars(GTK_EDITABLE(self->reflectance), 4);
    g_signal_connect(self->reflectance, "value-changed", G_CALLBACK(value_changed_cb), self);
    self->emission_colour = GTK_COLOR_BUTTON(
        labelled(grid, 3, _("_Light colour"), gtk_color_button_new()));
    gtk_color_chooser_set_use_alpha(GTK_COLOR_CHOOSER(self->emission_colour), FALSE);
    g_signal_connect(self->emission_colour, "color-set", G_CALLBACK(colour_set_cb), self);
    self->emission_strength = GTK_SPIN_BUTTON(labelled(
        grid, 4, _("Light _given off"), gtk_spin_button_new_with_range(0, EMISSION_MAX, 1)));
    gtk_spin_button_set_digits(self->emission_strength, 1);
    gtk_editable_set_width_chars(GTK_EDITABLE(self->emission_strength), 4);
    g_signal_connect(self->emission_strength, "value-changed", G_CALLBACK(value_changed_cb),
                     self);
    gtk_box_append(GTK_BOX(self->box), grid);
    show_chosen(self);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_material_browser_new(void)
{
    return g_object_new(ALLIUM_TYPE_MATERIAL_BROWSER, NULL);
}

void allium_material_browser_set_document(AlliumMaterialBrowser *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self));
    if (self->document == document) return;
    if (self->document) {
        g_clear_signal_handler(&self->changed_handler, self->document);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        self->changed_handler =
            g_signal_connect(document, "changed", G_CALLBACK(document_changed_cb), self);
    }
    g_clear_pointer(&self->fingerprint, g_free);
    /* Counting each material's faces is a query over every face (70 ms on a map of
     * 20,000 brushes, on the way to its first frame): not while hidden. */
    self->stale = TRUE;
    if (!self->document || gtk_widget_get_mapped(GTK_WIDGET(self))) bring_up_to_date(self);
}

void allium_material_browser_set_selection(AlliumMaterialBrowser *self,
                                           AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self));
    if (self->selection == selection) return;
    if (self->selection) {
        g_clear_signal_handler(&self->selection_handler, self->selection);
        g_clear_object(&self->selection);
    }
    if (selection) {
        self->selection = g_object_ref(selection);
        self->selection_handler =
            g_signal_connect(selection, "changed", G_CALLBACK(selection_changed_cb), self);
    }
}

void allium_material_browser_set_search(AlliumMaterialBrowser *self, const char *search)
{
    g_return_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self));
    bring_up_to_date(self);
    gtk_editable_set_text(GTK_EDITABLE(self->search), search);
    gtk_list_box_invalidate_filter(self->list); /* at once, not after the entry's delay */
}

guint allium_material_browser_get_shown(AlliumMaterialBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self), 0);
    bring_up_to_date(self);
    guint shown = 0;
    for (GtkWidget *row = gtk_widget_get_first_child(GTK_WIDGET(self->list)); row;
         row = gtk_widget_get_next_sibling(row))
        shown += GTK_IS_LIST_BOX_ROW(row) && filter_cb(GTK_LIST_BOX_ROW(row), self);
    return shown;
}

gboolean allium_material_browser_choose(AlliumMaterialBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self), FALSE);
    bring_up_to_date(self);
    for (GtkWidget *row = gtk_widget_get_first_child(GTK_WIDGET(self->list)); row;
         row = gtk_widget_get_next_sibling(row)) {
        if (!GTK_IS_LIST_BOX_ROW(row) || !filter_cb(GTK_LIST_BOX_ROW(row), self)) continue;
        if (g_strcmp0(g_object_get_data(G_OBJECT(row), "allium-material"), name) != 0) continue;
        gtk_list_box_select_row(self->list, GTK_LIST_BOX_ROW(row));
        return TRUE;
    }
    return FALSE;
}

gboolean allium_material_browser_apply(AlliumMaterialBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self), FALSE);
    bring_up_to_date(self);
    if (!self->document || !self->selection || !find(self, self->chosen)) return FALSE;
    guint nb = 0, nf = 0;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &nf);
    if (nb + nf == 0) {
        set_message(self, _("Select faces (Ctrl+click in 3D) or brushes to apply it to."));
        return FALSE;
    }
    GError *error = NULL;
    /* The name is copied: applying reloads the list it lives in. */
    g_autofree char *name = g_strdup(self->chosen);
    if (!allium_document_apply_material(self->document, name, brushes, nb, faces, nf, &error)) {
        set_message(self, error->message);
        g_error_free(error);
        return FALSE;
    }
    set_message(self, NULL);
    return TRUE;
}

gboolean allium_material_browser_edit(AlliumMaterialBrowser *self, const double colour[3],
                                      double reflectance, const double emission[3])
{
    g_return_val_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self), FALSE);
    bring_up_to_date(self);
    const al_doc_material *m = find(self, self->chosen);
    if (!m || !self->document) return FALSE;
    g_autofree char *name = g_strdup(m->name);
    al_doc_material edit = {.name = name, .reflectance = reflectance};
    memcpy(edit.colour, colour, sizeof edit.colour);
    memcpy(edit.emission, emission, sizeof edit.emission);
    GError *error = NULL;
    if (!allium_document_set_material(self->document, &edit, &error)) {
        set_message(self, error->message);
        g_error_free(error);
        show_chosen(self); /* back to what is stored */
        return FALSE;
    }
    set_message(self, NULL);
    return TRUE;
}

const char *allium_material_browser_get_message(AlliumMaterialBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_MATERIAL_BROWSER(self), "");
    return gtk_widget_get_visible(GTK_WIDGET(self->message)) ? gtk_label_get_text(self->message)
                                                             : "";
}
