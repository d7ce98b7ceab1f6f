/* AlliumTextureBrowser (see allium-texture-browser.h).
 *
 * The thumbnails are built again when the document's texture set changes; when only the
 * materials' uses change (a fingerprint tells) the items' captions are rewritten in place;
 * filtering only re-runs the flow boxes' filters.
 * Thumbnails are made by the loader's thread (AlliumTextureEntry.thumb), so a WAD of a few
 * hundred textures costs only the widgets here.
 */
#include "allium-config.h"

#include "allium-texture-browser.h"

#include "allium-missing-texture.h"
#include "allium-error-label.h"

#include "al-render.h"

#include <glib/gi18n.h>
#include <string.h>

typedef struct {
    char *name;
    const char *group; /* borrowed from the group's title */
    int uses;
    int width, height; /* 0: missing */
    GtkLabel *info;    /* size and uses */
    GtkWidget *child;  /* the GtkFlowBoxChild */
    GtkFlowBox *box;
} Item;

typedef struct {
    char *title;
    GtkWidget *header;
    GtkFlowBox *box;
} Group;

struct _AlliumTextureBrowser {
    GtkWidget parent_instance;

    /* child widgets */
    GtkWidget *box;
    GtkSearchEntry *search;
    GtkCheckButton *used_only;
    GtkWidget *groups_box;
    GtkLabel *message;

    /* owned references */
    AlliumDocument *document;
    AlliumSelection *selection;
    gulong changed_handler, textures_handler;
    GArray *items;         /* Item */
    GArray *groups;        /* Group */
    AlliumTextures *shown; /* owned: the set the thumbnails were made from */
    char *fingerprint;     /* of the uses shown */
    gboolean stale;        /* the document changed while the browser was hidden */
};

G_DEFINE_FINAL_TYPE(AlliumTextureBrowser, allium_texture_browser, GTK_TYPE_WIDGET)

/* --- static helpers ------------------------------------------------------------------ */

static void clear_item(gpointer data)
{
    g_free(((Item *) data)->name);
}

static void clear_group(gpointer data)
{
    g_free(((Group *) data)->title);
}

static void set_message(AlliumTextureBrowser *self, const char *text)
{
    allium_error_label_set(self->message, text);
}

static gboolean item_passes(AlliumTextureBrowser *self, const Item *item)
{
    if (gtk_check_button_get_active(self->used_only) && item->uses == 0) return FALSE;
    const char *search = gtk_editable_get_text(GTK_EDITABLE(self->search));
    if (!*search) return TRUE;
    g_autofree char *name = g_utf8_casefold(item->name, -1);
    g_autofree char *want = g_utf8_casefold(search, -1);
    return strstr(name, want) != NULL;
}

static gboolean filter_cb(GtkFlowBoxChild *child, gpointer data)
{
    AlliumTextureBrowser *self = data;
    guint i = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(child), "item"));
    return i < self->items->len && item_passes(self, &g_array_index(self->items, Item, i));
}

/* Runs the filters again and hides the groups left empty. */
static void refilter(AlliumTextureBrowser *self)
{
    for (guint g = 0; g < self->groups->len; g++) {
        Group *group = &g_array_index(self->groups, Group, g);
        gboolean any = FALSE;
        for (guint i = 0; i < self->items->len && !any; i++) {
            Item *item = &g_array_index(self->items, Item, i);
            any = item->box == group->box && item_passes(self, item);
        }
        gtk_flow_box_invalidate_filter(group->box);
        gtk_widget_set_visible(group->header, any);
        gtk_widget_set_visible(GTK_WIDGET(group->box), any);
    }
}

static GdkTexture *new_texture(int width, int height, const guint8 *rgba)
{
    g_autoptr(GBytes) bytes = g_bytes_new(rgba, (gsize) width * height * 4);
    return gdk_memory_texture_new(width, height, GDK_MEMORY_R8G8B8A8, bytes, (gsize) width * 4);
}

static void child_activated_cb(GtkFlowBox *box, GtkFlowBoxChild *child, gpointer data);

static AlliumMaterialName *material_name_copy(AlliumMaterialName *name)
{
    return g_strdup(name);
}

G_DEFINE_BOXED_TYPE(AlliumMaterialName, allium_material_name, material_name_copy, g_free)

/* A thumbnail's drag carries its texture's name to a view (allium_view_apply_material). */
static GdkContentProvider *drag_prepare_cb(GtkDragSource *source, double x, double y, gpointer data)
{
    (void) source, (void) x, (void) y;
    return gdk_content_provider_new_typed(ALLIUM_TYPE_MATERIAL_NAME, (const char *) data);
}

static void drag_begin_cb(GtkDragSource *source, GdkDrag *drag, GtkWidget *picture)
{
    (void) drag;
    GdkPaintable *thumb = gtk_picture_get_paintable(GTK_PICTURE(picture));
    if (thumb) gtk_drag_source_set_icon(source, thumb, 0, 0);
}

/* The group titled TITLE, made (after the others) if there is none. */
static Group *group_for(AlliumTextureBrowser *self, const char *title)
{
    for (guint g = 0; g < self->groups->len; g++) {
        Group *group = &g_array_index(self->groups, Group, g);
        if (g_str_equal(group->title, title)) return group;
    }
    Group group = {.title = g_strdup(title)};
    group.header = gtk_label_new(title);
    gtk_label_set_xalign(GTK_LABEL(group.header), 0);
    gtk_label_set_ellipsize(GTK_LABEL(group.header), PANGO_ELLIPSIZE_START);
    gtk_widget_add_css_class(group.header, "heading");
    group.box = GTK_FLOW_BOX(gtk_flow_box_new());
    gtk_flow_box_set_selection_mode(group.box, GTK_SELECTION_SINGLE);
    gtk_flow_box_set_activate_on_single_click(group.box, FALSE);
    gtk_flow_box_set_homogeneous(group.box, TRUE);
    gtk_flow_box_set_max_children_per_line(group.box, 12);
    gtk_flow_box_set_filter_func(group.box, filter_cb, self, NULL);
    g_signal_connect(group.box, "child-activated", G_CALLBACK(child_activated_cb), self);
    gtk_box_append(GTK_BOX(self->groups_box), group.header);
    gtk_box_append(GTK_BOX(self->groups_box), GTK_WIDGET(group.box));
    g_array_append_val(self->groups, group);
    return &g_array_index(self->groups, Group, self->groups->len - 1);
}

static void set_info(Item *item)
{
    g_autofree char *size = item->width > 0 ? g_strdup_printf("%d×%d", item->width, item->height)
                                            : g_strdup(_("missing"));
    g_autofree char *detail = item->uses
                                  ? g_strdup_printf(g_dngettext(GETTEXT_PACKAGE, "%s · %d face",
                                                                "%s · %d faces", item->uses),
                                                    size, item->uses)
                                  : g_strdup(size);
    gtk_label_set_text(item->info, detail);
}

/* A thumbnail with the texture's name, size and uses, added to GROUP. */
static void add_item(AlliumTextureBrowser *self, const char *group_title, const char *name,
                     int width, int height, GdkTexture *thumb, int uses)
{
    Group *group = group_for(self, group_title);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    GtkWidget *picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(thumb));
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_CONTAIN);
    gtk_widget_set_size_request(picture, ALLIUM_THUMBNAIL_EDGE, ALLIUM_THUMBNAIL_EDGE);
    gtk_box_append(GTK_BOX(box), picture);
    GtkWidget *label = gtk_label_new(name);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_label_set_max_width_chars(GTK_LABEL(label), 10);
    gtk_box_append(GTK_BOX(box), label);
    GtkWidget *info = gtk_label_new(NULL);
    gtk_widget_add_css_class(info, "dim-label");
    gtk_widget_add_css_class(info, "caption");
    gtk_box_append(GTK_BOX(box), info);
    gtk_widget_set_tooltip_text(box, name);
    /* Dragged onto a face in the 3D view or a brush in a 2D view, the texture goes to it. */
    GtkDragSource *drag = gtk_drag_source_new();
    gtk_drag_source_set_actions(drag, GDK_ACTION_COPY);
    char *dragged = g_strdup(name);
    g_signal_connect_data(drag, "prepare", G_CALLBACK(drag_prepare_cb), dragged,
                          (GClosureNotify) (void (*)(void)) g_free, 0);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(drag_begin_cb), picture);
    gtk_widget_add_controller(box, GTK_EVENT_CONTROLLER(drag));
    gtk_flow_box_insert(group->box, box, -1);
    GtkWidget *child = gtk_widget_get_parent(box);
    g_object_set_data(G_OBJECT(child), "item", GUINT_TO_POINTER(self->items->len));
    Item item = {.name = g_strdup(name),
                 .group = group->title,
                 .uses = uses,
                 .width = width,
                 .height = height,
                 .info = GTK_LABEL(info),
                 .child = child,
                 .box = group->box};
    set_info(&item);
    g_array_append_val(self->items, item);
}

/* For sorting an array of strings (g_ptr_array_sort passes the elements' addresses). */
static int compare_strings(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(char *const *) a, *(char *const *) b);
}

/* The materials' uses by folded name. */
static GHashTable *material_uses(AlliumTextureBrowser *self)
{
    GHashTable *uses = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int count = 0;
    al_doc_material *m = allium_document_list_materials(self->document, &count, NULL);
    for (int i = 0; m && i < count; i++)
        g_hash_table_insert(uses, g_ascii_strdown(m[i].name, -1), GINT_TO_POINTER(m[i].uses));
    al_doc_materials_free(m, count);
    return uses;
}

static int uses_of(GHashTable *uses, const char *name)
{
    g_autofree char *key = g_ascii_strdown(name, -1);
    return GPOINTER_TO_INT(g_hash_table_lookup(uses, key));
}

/* Makes the thumbnails again when the document's texture set changed; otherwise only the
 * uses (an edit that adds, removes or retextures faces) are written into the items. */
static void rebuild(AlliumTextureBrowser *self)
{
    self->stale = FALSE;
    AlliumTextures *t = self->document ? allium_document_get_textures(self->document) : NULL;
    g_autoptr(GHashTable) uses = self->document ? material_uses(self) : NULL;
    GString *print = g_string_new(NULL);
    if (uses) {
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, uses);
        GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
        while (g_hash_table_iter_next(&it, &key, &value))
            g_ptr_array_add(lines, g_strdup_printf("%s=%d", (char *) key, GPOINTER_TO_INT(value)));
        g_ptr_array_sort(lines, compare_strings);
        for (guint i = 0; i < lines->len; i++)
            g_string_append_printf(print, "\n%s", (char *) lines->pdata[i]);
        g_ptr_array_unref(lines);
    }
    gboolean same_uses = self->fingerprint && g_str_equal(self->fingerprint, print->str);
    g_free(self->fingerprint);
    self->fingerprint = g_string_free(print, FALSE);
    if (t == self->shown) {
        if (same_uses) return;
        for (guint i = 0; i < self->items->len; i++) {
            Item *item = &g_array_index(self->items, Item, i);
            item->uses = uses_of(uses, item->name);
            set_info(item);
        }
        refilter(self);
        return;
    }
    g_clear_pointer(&self->shown, allium_textures_unref);
    self->shown = t ? allium_textures_ref(t) : NULL;

    GtkWidget *w;
    while ((w = gtk_widget_get_first_child(self->groups_box)))
        gtk_box_remove(GTK_BOX(self->groups_box), w);
    g_array_set_size(self->items, 0);
    g_array_set_size(self->groups, 0);
    if (!t) return;
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (int i = 0; i < t->catalogue_count; i++) {
        const AlliumTextureEntry *e = &t->catalogue[i];
        g_autoptr(GdkTexture) thumb = new_texture(e->thumb_width, e->thumb_height, e->thumb);
        add_item(self, e->source, e->name, e->width, e->height, thumb, uses_of(uses, e->name));
        g_hash_table_add(seen, g_ascii_strdown(e->name, -1));
    }
    /* The map's materials no source holds, as the views draw them: the checker with the
     * name. */
    for (char **m = t->missing; m && *m; m++) {
        g_autofree char *key = g_ascii_strdown(*m, -1);
        if (g_hash_table_contains(seen, key)) continue;
        g_autofree guint8 *pixels = allium_missing_texture_draw(*m, ALLIUM_THUMBNAIL_EDGE);
        g_autoptr(GdkTexture) missing =
            new_texture(ALLIUM_THUMBNAIL_EDGE, ALLIUM_THUMBNAIL_EDGE, pixels);
        add_item(self, _("Missing"), *m, 0, 0, missing, uses_of(uses, *m));
    }
    g_hash_table_unref(seen);
    refilter(self);
}

/* Gives NAME to the selected faces (or brushes) and makes it the current texture. */
static gboolean apply(AlliumTextureBrowser *self, const char *name)
{
    if (!self->document) return FALSE;
    allium_document_set_current_material(self->document, name);
    guint nf = 0, nb = 0;
    const AlliumFaceRef *faces =
        self->selection ? allium_selection_get_faces(self->selection, &nf) : NULL;
    const gint64 *brushes =
        self->selection ? allium_selection_get_brushes(self->selection, &nb) : NULL;
    if (nf + nb == 0) {
        g_autofree char *text = g_strdup_printf(_("New brushes get %s"), name);
        set_message(self, text);
        return TRUE;
    }
    GError *error = NULL;
    gboolean ok =
        allium_document_apply_material(self->document, name, brushes, nb, faces, nf, &error);
    set_message(self, ok ? NULL : error->message);
    g_clear_error(&error);
    return ok;
}

/* --- signal callbacks ---------------------------------------------------------------- */

static void child_activated_cb(GtkFlowBox *box, GtkFlowBoxChild *child, gpointer data)
{
    (void) box;
    AlliumTextureBrowser *self = data;
    guint i = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(child), "item"));
    if (i < self->items->len) {
        g_autofree char *name = g_strdup(g_array_index(self->items, Item, i).name);
        apply(self, name); /* the edit may rebuild the items */
    }
}

static void search_changed_cb(GtkSearchEntry *entry, AlliumTextureBrowser *self)
{
    (void) entry;
    refilter(self);
}

static void used_toggled_cb(GtkCheckButton *button, AlliumTextureBrowser *self)
{
    (void) button;
    refilter(self);
}

static void document_changed_cb(AlliumDocument *document, AlliumTextureBrowser *self)
{
    (void) document;
    /* Counting each texture's uses is a query over every face (tens of milliseconds on a
     * map of 20,000 brushes, on the way of every edit's next frame): not while hidden. */
    if (!gtk_widget_get_mapped(GTK_WIDGET(self))) {
        self->stale = TRUE;
        return;
    }
    rebuild(self);
}

/* The items as the document has them now: made again if it changed while hidden. */
static void bring_up_to_date(AlliumTextureBrowser *self)
{
    if (self->stale) rebuild(self); /* (which clears it) */
}

static void mapped_cb(GtkWidget *widget, AlliumTextureBrowser *self)
{
    (void) widget;
    bring_up_to_date(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_texture_browser_dispose(GObject *object)
{
    AlliumTextureBrowser *self = ALLIUM_TEXTURE_BROWSER(object);
    allium_texture_browser_set_document(self, NULL);
    allium_texture_browser_set_selection(self, NULL);
    g_clear_pointer(&self->box, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_texture_browser_parent_class)->dispose(object);
}

static void allium_texture_browser_finalize(GObject *object)
{
    AlliumTextureBrowser *self = ALLIUM_TEXTURE_BROWSER(object);
    g_array_unref(self->items);
    g_array_unref(self->groups);
    g_free(self->fingerprint);
    allium_textures_unref(self->shown);
    G_OBJECT_CLASS(allium_texture_browser_parent_class)->finalize(object);
}

static void allium_texture_browser_class_init(AlliumTextureBrowserClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_texture_browser_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_texture_browser_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-texture-browser");
}

static void allium_texture_browser_init(AlliumTextureBrowser *self)
{
    self->items = g_array_new(FALSE, TRUE, sizeof(Item));
    g_array_set_clear_func(self->items, clear_item);
    self->groups = g_array_new(FALSE, TRUE, sizeof(Group));
    g_array_set_clear_func(self->groups, clear_group);

    g_signal_connect(self, "map", G_CALLBACK(mapped_cb), self);
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(self->box, 10);
    gtk_widget_set_margin_end(self->box, 10);
    gtk_widget_set_margin_top(self->box, 10);
    gtk_widget_set_margin_bottom(self->box, 10);
    gtk_widget_set_parent(self->box, GTK_WIDGET(self));

    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
    gtk_widget_set_hexpand(GTK_WIDGET(self->search), TRUE);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(search_changed_cb), self);
    gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->search));
    self->used_only = GTK_CHECK_BUTTON(gtk_check_button_new_with_label(_("Used in map")));
    g_signal_connect(self->used_only, "toggled", G_CALLBACK(used_toggled_cb), self);
    gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->used_only));
    gtk_box_append(GTK_BOX(self->box), bar);

    GtkWidget *hint = gtk_label_new(
        _("Double-click a texture to give it to the selected faces or brushes; new brushes "
          "get it too. Drag it onto a face in the 3D view, or onto a brush in a 2D view."));
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_box_append(GTK_BOX(self->box), hint);

    self->message = allium_error_label_new();
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->message));

    self->groups_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_box_append(GTK_BOX(self->box), self->groups_box);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_texture_browser_new(void)
{
    return g_object_new(ALLIUM_TYPE_TEXTURE_BROWSER, NULL);
}

void allium_texture_browser_set_document(AlliumTextureBrowser *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self));
    if (self->document == document) return;
    if (self->document) {
        g_clear_signal_handler(&self->changed_handler, self->document);
        g_clear_signal_handler(&self->textures_handler, self->document);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        self->changed_handler =
            g_signal_connect(document, "changed", G_CALLBACK(document_changed_cb), self);
        self->textures_handler =
            g_signal_connect(document, "textures", G_CALLBACK(document_changed_cb), self);
    }
    /* Counting each texture's uses is a query over every face (70 ms on a map of 20,000
     * brushes, on the way to its first frame): not while hidden. */
    self->stale = TRUE;
    if (!self->document || gtk_widget_get_mapped(GTK_WIDGET(self))) bring_up_to_date(self);
}

void allium_texture_browser_set_selection(AlliumTextureBrowser *self, AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self));
    g_set_object(&self->selection, selection);
}

void allium_texture_browser_set_search(AlliumTextureBrowser *self, const char *text)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self));
    bring_up_to_date(self);
    gtk_editable_set_text(GTK_EDITABLE(self->search), text ? text : "");
    refilter(self); /* now, not after the entry's delay */
}

void allium_texture_browser_set_used_only(AlliumTextureBrowser *self, gboolean used_only)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self));
    bring_up_to_date(self);
    gtk_check_button_set_active(self->used_only, used_only);
}

guint allium_texture_browser_get_shown(AlliumTextureBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self), 0);
    bring_up_to_date(self);
    guint n = 0;
    for (guint i = 0; i < self->items->len; i++)
        n += item_passes(self, &g_array_index(self->items, Item, i));
    return n;
}

static Item *find_item(AlliumTextureBrowser *self, const char *name)
{
    for (guint i = 0; name && i < self->items->len; i++) {
        Item *item = &g_array_index(self->items, Item, i);
        if (g_ascii_strcasecmp(item->name, name) == 0) return item;
    }
    return NULL;
}

const char *allium_texture_browser_get_group(AlliumTextureBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self), NULL);
    bring_up_to_date(self);
    Item *item = find_item(self, name);
    return item ? item->group : NULL;
}

gboolean allium_texture_browser_activate(AlliumTextureBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self), FALSE);
    bring_up_to_date(self);
    Item *item = find_item(self, name);
    if (!item || !item_passes(self, item)) return FALSE;
    g_signal_emit_by_name(item->box, "child-activated", item->child);
    return *gtk_label_get_text(self->message) == '\0' ||
           g_str_has_prefix(gtk_label_get_text(self->message), _("New brushes get"));
}

const char *allium_texture_browser_get_message(AlliumTextureBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_BROWSER(self), "");
    return gtk_label_get_text(self->message);
}
