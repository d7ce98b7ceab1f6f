/* AlliumEntityBrowser (see allium-entity-browser.h).
 *
 * The list is built from the set it is given (the window's document's) and built again
 * when another set is given; the search only filters it. Rows borrow their classes from
 * the set, which the browser holds. Workload: a few hundred classes.
 */
#include "allium-config.h"

#include "allium-entity-browser.h"
#include "allium-entity-definitions.h"

#include <glib/gi18n.h>
#include <string.h>

struct _AlliumEntityBrowser {
    GtkWidget parent_instance;

    GtkWidget *box;
    GtkSearchEntry *search;
    GtkListBox *list;
    char *needle; /* owned: the search text, case-folded */
    AlliumDefinitionSet *set;      /* owned: the classes to show; NULL: none */
    AlliumDefinitionSet *rows_set; /* owned: the set the rows were made from (and borrow) */
    gboolean stale;                /* the rows are not yet SET's (set while hidden) */
};

G_DEFINE_FINAL_TYPE(AlliumEntityBrowser, allium_entity_browser, GTK_TYPE_WIDGET)

/* --- static helpers ------------------------------------------------------------------ */

static const al_entdef_class *class_of_row(GtkListBoxRow *row)
{
    return g_object_get_data(G_OBJECT(row), "allium-class");
}

/* The group heading of NAME: its prefix through the first '_' ("monster_"), or "other". */
static char *group_of(const char *name)
{
    const char *cut = strchr(name, '_');
    return cut && cut > name ? g_strndup(name, (gsize) (cut - name + 1)) : g_strdup(_("other"));
}

static void swatch_draw(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void) area;
    const al_entdef_class *cls = data;
    double r = 0.6, g = 0.6, b = 0.6;
    if (cls->has_color) r = cls->color[0], g = cls->color[1], b = cls->color[2];
    cairo_set_source_rgb(cr, r, g, b);
    cairo_rectangle(cr, 1, 1, width - 2, height - 2);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.5);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
}

static GdkContentProvider *drag_prepare_cb(GtkDragSource *source, double x, double y, gpointer data)
{
    (void) source;
    (void) x;
    (void) y;
    const al_entdef_class *cls = data;
    return gdk_content_provider_new_typed(G_TYPE_STRING, cls->name);
}

static GtkWidget *make_row(const al_entdef_class *cls)
{
    GtkWidget *row = gtk_list_box_row_new();
    g_object_set_data(G_OBJECT(row), "allium-class", (gpointer) cls);
    GtkWidget *line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *swatch = gtk_drawing_area_new();
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(swatch), 14);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(swatch), 14);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(swatch), swatch_draw, (gpointer) cls, NULL);
    gtk_widget_set_valign(swatch, GTK_ALIGN_START);
    gtk_widget_set_margin_top(swatch, 2);
    gtk_box_append(GTK_BOX(line), swatch);
    GtkWidget *text = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *name = gtk_label_new(cls->name);
    gtk_label_set_xalign(GTK_LABEL(name), 0);
    gtk_widget_add_css_class(name, "heading");
    gtk_box_append(GTK_BOX(text), name);
    g_autoptr(GString) detail = g_string_new(NULL);
    if (cls->kind == AL_ENTDEF_SOLID)
        g_string_append(detail, _("brush entity"));
    else if (cls->has_size)
        g_string_append_printf(detail, "%g × %g × %g", cls->maxs[0] - cls->mins[0],
                               cls->maxs[1] - cls->mins[1], cls->maxs[2] - cls->mins[2]);
    else
        g_string_append(detail, _("point entity"));
    if (*cls->description) g_string_append_printf(detail, " · %s", cls->description);
    GtkWidget *about = gtk_label_new(detail->str);
    gtk_label_set_xalign(GTK_LABEL(about), 0);
    gtk_label_set_wrap(GTK_LABEL(about), TRUE);
    gtk_label_set_lines(GTK_LABEL(about), 2);
    gtk_label_set_ellipsize(GTK_LABEL(about), PANGO_ELLIPSIZE_END);
    gtk_widget_add_css_class(about, "dim-label");
    gtk_box_append(GTK_BOX(text), about);
    gtk_box_append(GTK_BOX(line), text);
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), line);
    gtk_widget_set_tooltip_text(row, *cls->description ? cls->description : cls->name);
    if (cls->kind == AL_ENTDEF_POINT) {
        GtkDragSource *drag = gtk_drag_source_new();
        gtk_drag_source_set_actions(drag, GDK_ACTION_COPY);
        g_signal_connect(drag, "prepare", G_CALLBACK(drag_prepare_cb), (gpointer) cls);
        gtk_widget_add_controller(row, GTK_EVENT_CONTROLLER(drag));
    }
    return row;
}

static int compare_classes(const void *a, const void *b)
{
    const al_entdef_class *x = *(const al_entdef_class *const *) a;
    const al_entdef_class *y = *(const al_entdef_class *const *) b;
    return strcmp(x->name, y->name);
}

/* Lists the classes of the browser's set, instead of those listed. */
static void fill(AlliumEntityBrowser *self)
{
    GtkWidget *child;
    self->stale = FALSE;
    /* The old rows go before the set they borrow from. */
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
        gtk_list_box_remove(self->list, child);
    allium_definition_set_unref(self->rows_set);
    self->rows_set = self->set ? allium_definition_set_ref(self->set) : NULL;
    if (!self->set) return;
    const al_entdefs *defs = &self->set->defs;
    g_autoptr(GPtrArray) classes = g_ptr_array_new();
    for (int i = 0; i < defs->class_count; i++)
        if (defs->classes[i].kind != AL_ENTDEF_BASE &&
            strcmp(defs->classes[i].name, "worldspawn") != 0)
            g_ptr_array_add(classes, &defs->classes[i]);
    /* A class defined again by a later file is listed once, as the set finds it. */
    qsort(classes->pdata, classes->len, sizeof(gpointer), compare_classes);
    const char *last = NULL;
    for (guint i = 0; i < classes->len; i++) {
        const al_entdef_class *cls = classes->pdata[i];
        if (last && strcmp(last, cls->name) == 0) continue;
        last = cls->name;
        gtk_list_box_append(self->list, make_row(al_entdefs_find(defs, cls->name)));
    }
}

static gboolean filter_cb(GtkListBoxRow *row, gpointer data)
{
    AlliumEntityBrowser *self = data;
    if (!self->needle || !*self->needle) return TRUE;
    const al_entdef_class *cls = class_of_row(row);
    g_autofree char *name = g_utf8_casefold(cls->name, -1);
    g_autofree char *about = g_utf8_casefold(cls->description, -1);
    return strstr(name, self->needle) || strstr(about, self->needle);
}

static void header_cb(GtkListBoxRow *row, GtkListBoxRow *before, gpointer data)
{
    (void) data;
    g_autofree char *group = group_of(class_of_row(row)->name);
    g_autofree char *previous = before ? group_of(class_of_row(before)->name) : NULL;
    if (previous && strcmp(group, previous) == 0) {
        gtk_list_box_row_set_header(row, NULL);
        return;
    }
    GtkWidget *heading = gtk_label_new(group);
    gtk_label_set_xalign(GTK_LABEL(heading), 0);
    gtk_widget_add_css_class(heading, "caption-heading");
    gtk_widget_set_margin_top(heading, 8);
    gtk_widget_set_margin_start(heading, 4);
    gtk_list_box_row_set_header(row, heading);
}

static gboolean activate_class(AlliumEntityBrowser *self, const al_entdef_class *cls)
{
    if (cls->kind == AL_ENTDEF_POINT)
        return gtk_widget_activate_action(GTK_WIDGET(self), "win.place-entity", "s", cls->name);
    return gtk_widget_activate_action(GTK_WIDGET(self), "win.to-entity", "s", cls->name);
}

static void row_activated_cb(GtkListBox *list, GtkListBoxRow *row, AlliumEntityBrowser *self)
{
    (void) list;
    activate_class(self, class_of_row(row));
}

static void search_changed_cb(GtkSearchEntry *entry, AlliumEntityBrowser *self)
{
    g_free(self->needle);
    self->needle = g_utf8_casefold(gtk_editable_get_text(GTK_EDITABLE(entry)), -1);
    gtk_list_box_invalidate_filter(self->list);
    gtk_list_box_invalidate_headers(self->list);
}

/* The rows as the set is now: made again if it changed while hidden (a set of a few
 * hundred classes costs some 50 ms of rows, on the way to a map's first frame). */
static void bring_up_to_date(AlliumEntityBrowser *self)
{
    if (self->stale) fill(self);
}

static void mapped_cb(GtkWidget *widget, AlliumEntityBrowser *self)
{
    (void) widget;
    bring_up_to_date(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_entity_browser_dispose(GObject *object)
{
    AlliumEntityBrowser *self = ALLIUM_ENTITY_BROWSER(object);
    g_clear_pointer(&self->box, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_entity_browser_parent_class)->dispose(object);
}

static void allium_entity_browser_finalize(GObject *object)
{
    g_free(ALLIUM_ENTITY_BROWSER(object)->needle);
    allium_definition_set_unref(ALLIUM_ENTITY_BROWSER(object)->set);
    allium_definition_set_unref(ALLIUM_ENTITY_BROWSER(object)->rows_set);
    G_OBJECT_CLASS(allium_entity_browser_parent_class)->finalize(object);
}

static void allium_entity_browser_class_init(AlliumEntityBrowserClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_entity_browser_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_entity_browser_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-entity-browser");
}

static void allium_entity_browser_init(AlliumEntityBrowser *self)
{
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(self->box, 6);
    gtk_widget_set_margin_end(self->box, 6);
    gtk_widget_set_margin_top(self->box, 6);
    self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
    g_object_set(self->search, "placeholder-text", _("Search classes"), NULL);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(search_changed_cb), self);
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->search));
    GtkWidget *hint = gtk_label_new(_("Drag a class into a view to place it, or double-click "
                                      "it and click in a view"));
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_box_append(GTK_BOX(self->box), hint);
    self->list = GTK_LIST_BOX(gtk_list_box_new());
    gtk_list_box_set_filter_func(self->list, filter_cb, self, NULL);
    gtk_list_box_set_header_func(self->list, header_cb, NULL, NULL);
    g_signal_connect(self->list, "row-activated", G_CALLBACK(row_activated_cb), self);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), GTK_WIDGET(self->list));
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_box_append(GTK_BOX(self->box), scroller);
    gtk_widget_set_parent(self->box, GTK_WIDGET(self));
    g_signal_connect(self, "map", G_CALLBACK(mapped_cb), self);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_entity_browser_new(void)
{
    return g_object_new(ALLIUM_TYPE_ENTITY_BROWSER, NULL);
}

void allium_entity_browser_set_definitions(AlliumEntityBrowser *self, AlliumDefinitionSet *set)
{
    g_return_if_fail(ALLIUM_IS_ENTITY_BROWSER(self));
    if (set == self->set) return;
    allium_definition_set_unref(self->set);
    self->set = set ? allium_definition_set_ref(set) : NULL;
    self->stale = TRUE;
    if (gtk_widget_get_mapped(GTK_WIDGET(self))) bring_up_to_date(self);
}

void allium_entity_browser_set_search(AlliumEntityBrowser *self, const char *text)
{
    g_return_if_fail(ALLIUM_IS_ENTITY_BROWSER(self));
    bring_up_to_date(self);
    gtk_editable_set_text(GTK_EDITABLE(self->search), text);
    search_changed_cb(self->search, self); /* at once, not after the entry's delay */
}

GPtrArray *allium_entity_browser_dup_shown(AlliumEntityBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_ENTITY_BROWSER(self), NULL);
    bring_up_to_date(self);
    GPtrArray *shown = g_ptr_array_new();
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
         child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_LIST_BOX_ROW(child) && filter_cb(GTK_LIST_BOX_ROW(child), self))
            g_ptr_array_add(shown, (gpointer) class_of_row(GTK_LIST_BOX_ROW(child))->name);
    return shown;
}

gboolean allium_entity_browser_activate(AlliumEntityBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_ENTITY_BROWSER(self), FALSE);
    bring_up_to_date(self);
    const al_entdef_class *cls = self->set ? al_entdefs_find(&self->set->defs, name) : NULL;
    return cls && cls->kind != AL_ENTDEF_BASE && activate_class(self, cls);
}
