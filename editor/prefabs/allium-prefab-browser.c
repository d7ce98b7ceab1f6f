/* AlliumPrefabBrowser (see allium-prefab-browser.h).
 *
 * The folder is read again on reload (a save, the preference changing); each prefab is
 * read whole to leave out damaged files and to say what it holds. Thumbnails are drawn one
 * at a time on a worker thread (a queue), so that two cores are not both taken by Mesa;
 * a thumbnail that arrives after a reload goes to the row of its prefab, if still listed.
 * Workload: up to a few hundred small prefabs.
 */
#include "allium-config.h"

#include "allium-prefab-browser.h"
#include "allium-prefab-thumbnail.h"

#include "allium-document.h"
#include "allium-preferences.h"
#include "prefabs/prefab.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

struct _AlliumPrefabBrowser {
    GtkWidget parent_instance;

    GtkWidget *box;
    GtkSearchEntry *search;
    GtkLabel *message; /* the files left out, and thumbnails that failed */
    GtkListBox *list;
    char *needle;   /* owned: the search text, case-folded */
    char *chosen;   /* owned: the path of the prefab chosen last, or NULL */
    GQueue jobs;    /* owned ThumbnailJobs waiting for the worker */
    gboolean busy;  /* a thumbnail is being drawn */
    GString *notes; /* owned: the message's text */
};

typedef struct {
    char *map_path;
    char *png_path;
} ThumbnailJob;

G_DEFINE_FINAL_TYPE(AlliumPrefabBrowser, allium_prefab_browser, GTK_TYPE_WIDGET)

/* --- static helpers ------------------------------------------------------------------ */

static void thumbnail_job_free(gpointer data)
{
    ThumbnailJob *job = data;
    g_free(job->map_path);
    g_free(job->png_path);
    g_free(job);
}

static const char *path_of_row(GtkListBoxRow *row)
{
    return g_object_get_data(G_OBJECT(row), "allium-prefab-path");
}

static const char *name_of_row(GtkListBoxRow *row)
{
    return g_object_get_data(G_OBJECT(row), "allium-prefab-name");
}

static void add_note(AlliumPrefabBrowser *self, const char *text)
{
    if (self->notes->len) g_string_append_c(self->notes, '\n');
    g_string_append(self->notes, text);
    gtk_label_set_text(self->message, self->notes->str);
    gtk_widget_set_visible(GTK_WIDGET(self->message), TRUE);
}

/* Whether the thumbnail at PNG is there and no older than the prefab at MAP. */
static gboolean thumbnail_is_fresh(const char *map, const char *png)
{
    GStatBuf a, b;
    return g_stat(map, &a) == 0 && g_stat(png, &b) == 0 && b.st_mtime >= a.st_mtime;
}

static void thumbnail_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    (void) source;
    (void) cancel;
    ThumbnailJob *job = data;
    GError *error = NULL;
    if (allium_prefab_thumbnail_render(job->map_path, job->png_path, &error))
        g_task_return_boolean(task, TRUE);
    else
        g_task_return_error(task, error);
}

static void run_next_job(AlliumPrefabBrowser *self);

static void thumbnail_done_cb(GObject *source, GAsyncResult *result, gpointer data)
{
    (void) data;
    AlliumPrefabBrowser *self = ALLIUM_PREFAB_BROWSER(source);
    ThumbnailJob *job = g_task_get_task_data(G_TASK(result));
    GError *error = NULL;
    self->busy = FALSE;
    if (g_task_propagate_boolean(G_TASK(result), &error)) {
        for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
             child = gtk_widget_get_next_sibling(child))
            if (GTK_IS_LIST_BOX_ROW(child) &&
                g_strcmp0(path_of_row(GTK_LIST_BOX_ROW(child)), job->map_path) == 0) {
                GtkPicture *picture = g_object_get_data(G_OBJECT(child), "allium-picture");
                gtk_picture_set_filename(picture, job->png_path);
                g_object_set_data(G_OBJECT(child), "allium-has-thumbnail", GINT_TO_POINTER(1));
            }
    } else {
        add_note(self, error->message);
        g_error_free(error);
    }
    run_next_job(self);
}

static void run_next_job(AlliumPrefabBrowser *self)
{
    if (self->busy || g_queue_is_empty(&self->jobs)) return;
    ThumbnailJob *job = g_queue_pop_head(&self->jobs);
    self->busy = TRUE;
    GTask *task = g_task_new(self, NULL, thumbnail_done_cb, NULL);
    g_task_set_task_data(task, job, thumbnail_job_free);
    g_task_run_in_thread(task, thumbnail_thread);
    g_object_unref(task);
}

/* What MAP holds, as a row's second line: "3 brushes, 1 entity". */
static char *describe(const al_map *map)
{
    int brushes = 0, entities = 0;
    for (int e = 0; e < map->entity_count; e++) {
        brushes += map->entities[e].brush_count;
        const char *cls = al_map_entity_value(&map->entities[e], "classname");
        if (!cls || strcmp(cls, "worldspawn") != 0) entities++;
    }
    g_autofree char *b = g_strdup_printf(ngettext("%d brush", "%d brushes", brushes), brushes);
    g_autofree char *e = g_strdup_printf(ngettext("%d entity", "%d entities", entities), entities);
    /* TRANSLATORS: what a prefab holds, "3 brushes, 1 entity" */
    return g_strdup_printf(_("%s, %s"), b, e);
}

static AlliumPrefabPath *prefab_path_copy(AlliumPrefabPath *path)
{
    return g_strdup(path);
}

G_DEFINE_BOXED_TYPE(AlliumPrefabPath, allium_prefab_path, prefab_path_copy, g_free)

/* A row's drag carries its prefab's path to a view, which inserts it where it falls. */
static GdkContentProvider *drag_prepare_cb(GtkDragSource *source, double x, double y,
                                           GtkListBoxRow *row)
{
    (void) source, (void) x, (void) y;
    return gdk_content_provider_new_typed(ALLIUM_TYPE_PREFAB_PATH, path_of_row(row));
}

static void drag_begin_cb(GtkDragSource *source, GdkDrag *drag, GtkPicture *picture)
{
    (void) drag;
    GdkPaintable *thumb = gtk_picture_get_paintable(picture);
    if (thumb) gtk_drag_source_set_icon(source, thumb, 0, 0);
}

static GtkWidget *make_row(const char *path, const char *name, const char *detail,
                           GtkPicture **picture_out)
{
    GtkWidget *row = gtk_list_box_row_new();
    g_object_set_data_full(G_OBJECT(row), "allium-prefab-path", g_strdup(path), g_free);
    g_object_set_data_full(G_OBJECT(row), "allium-prefab-name", g_strdup(name), g_free);
    GtkWidget *line = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *frame = gtk_frame_new(NULL);
    GtkWidget *picture = gtk_picture_new();
    gtk_picture_set_can_shrink(GTK_PICTURE(picture), TRUE);
    gtk_widget_set_size_request(picture, ALLIUM_PREFAB_THUMBNAIL_WIDTH / 2,
                                ALLIUM_PREFAB_THUMBNAIL_HEIGHT / 2);
    gtk_frame_set_child(GTK_FRAME(frame), picture);
    gtk_widget_set_valign(frame, GTK_ALIGN_CENTER);
    gtk_box_append(GTK_BOX(line), frame);
    g_object_set_data(G_OBJECT(row), "allium-picture", picture);
    GtkWidget *text = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    gtk_widget_set_valign(text, GTK_ALIGN_CENTER);
    GtkWidget *title = gtk_label_new(name);
    gtk_label_set_xalign(GTK_LABEL(title), 0);
    gtk_label_set_ellipsize(GTK_LABEL(title), PANGO_ELLIPSIZE_END);
    gtk_widget_add_css_class(title, "heading");
    gtk_box_append(GTK_BOX(text), title);
    GtkWidget *about = gtk_label_new(detail);
    gtk_label_set_xalign(GTK_LABEL(about), 0);
    gtk_widget_add_css_class(about, "dim-label");
    gtk_box_append(GTK_BOX(text), about);
    gtk_box_append(GTK_BOX(line), text);
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), line);
    gtk_widget_set_tooltip_text(row, path);
    GtkDragSource *drag = gtk_drag_source_new();
    gtk_drag_source_set_actions(drag, GDK_ACTION_COPY);
    g_signal_connect(drag, "prepare", G_CALLBACK(drag_prepare_cb), row);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(drag_begin_cb), picture);
    gtk_widget_add_controller(row, GTK_EVENT_CONTROLLER(drag));
    *picture_out = GTK_PICTURE(picture);
    return row;
}

static int compare_names(const void *a, const void *b)
{
    return g_utf8_collate(*(const char *const *) a, *(const char *const *) b);
}

static void clear_list(AlliumPrefabBrowser *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
        gtk_list_box_remove(self->list, child);
}

static gboolean filter_cb(GtkListBoxRow *row, gpointer data)
{
    AlliumPrefabBrowser *self = data;
    if (!self->needle || !*self->needle) return TRUE;
    g_autofree char *name = g_utf8_casefold(name_of_row(row), -1);
    return strstr(name, self->needle) != NULL;
}

static gboolean activate_row(AlliumPrefabBrowser *self, GtkListBoxRow *row)
{
    gtk_list_box_select_row(self->list, row);
    g_free(self->chosen);
    self->chosen = g_strdup(path_of_row(row));
    return gtk_widget_activate_action(GTK_WIDGET(self), "win.insert-prefab", NULL);
}

static void row_activated_cb(GtkListBox *list, GtkListBoxRow *row, AlliumPrefabBrowser *self)
{
    (void) list;
    activate_row(self, row);
}

static void row_selected_cb(GtkListBox *list, GtkListBoxRow *row, AlliumPrefabBrowser *self)
{
    (void) list;
    if (!row) return;
    g_free(self->chosen);
    self->chosen = g_strdup(path_of_row(row));
}

static void search_changed_cb(GtkSearchEntry *entry, AlliumPrefabBrowser *self)
{
    g_free(self->needle);
    self->needle = g_utf8_casefold(gtk_editable_get_text(GTK_EDITABLE(entry)), -1);
    gtk_list_box_invalidate_filter(self->list);
}

static void folder_changed_cb(GObject *prefs, GParamSpec *pspec, AlliumPrefabBrowser *self)
{
    (void) prefs;
    (void) pspec;
    allium_prefab_browser_reload(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_prefab_browser_dispose(GObject *object)
{
    AlliumPrefabBrowser *self = ALLIUM_PREFAB_BROWSER(object);
    g_signal_handlers_disconnect_by_data(allium_preferences_get_default(), self);
    g_queue_clear_full(&self->jobs, thumbnail_job_free);
    g_clear_pointer(&self->box, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_prefab_browser_parent_class)->dispose(object);
}

static void allium_prefab_browser_finalize(GObject *object)
{
    AlliumPrefabBrowser *self = ALLIUM_PREFAB_BROWSER(object);
    g_free(self->needle);
    g_free(self->chosen);
    g_string_free(self->notes, TRUE);
    G_OBJECT_CLASS(allium_prefab_browser_parent_class)->finalize(object);
}

static void allium_prefab_browser_class_init(AlliumPrefabBrowserClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_prefab_browser_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_prefab_browser_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-prefab-browser");
}

static void allium_prefab_browser_init(AlliumPrefabBrowser *self)
{
    self->notes = g_string_new(NULL);
    g_queue_init(&self->jobs);
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(self->box, 6);
    gtk_widget_set_margin_end(self->box, 6);
    gtk_widget_set_margin_top(self->box, 6);
    self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
    g_object_set(self->search, "placeholder-text", _("Search prefabs"), NULL);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(search_changed_cb), self);
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->search));
    GtkWidget *hint = gtk_label_new(_("Double-click a prefab to insert it, or choose it and press "
                                      "Ctrl+Shift+P over a 2D view to insert it at the pointer. "
                                      "Edit › Save Selection as Prefab… adds one"));
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_box_append(GTK_BOX(self->box), hint);
    self->message = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_wrap(GTK_LABEL(self->message), TRUE);
    gtk_label_set_xalign(self->message, 0);
    gtk_label_set_selectable(self->message, TRUE);
    gtk_widget_add_css_class(GTK_WIDGET(self->message), "error");
    gtk_widget_set_visible(GTK_WIDGET(self->message), FALSE);
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->message));
    self->list = GTK_LIST_BOX(gtk_list_box_new());
    gtk_list_box_set_filter_func(self->list, filter_cb, self, NULL);
    g_signal_connect(self->list, "row-activated", G_CALLBACK(row_activated_cb), self);
    g_signal_connect(self->list, "row-selected", G_CALLBACK(row_selected_cb), self);
    GtkWidget *scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroller), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), GTK_WIDGET(self->list));
    gtk_widget_set_vexpand(scroller, TRUE);
    gtk_box_append(GTK_BOX(self->box), scroller);
    gtk_widget_set_parent(self->box, GTK_WIDGET(self));
    g_signal_connect(allium_preferences_get_default(), "notify::prefab-folder",
                     G_CALLBACK(folder_changed_cb), self);
    allium_prefab_browser_reload(self);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_prefab_browser_new(void)
{
    return g_object_new(ALLIUM_TYPE_PREFAB_BROWSER, NULL);
}

void allium_prefab_browser_reload(AlliumPrefabBrowser *self)
{
    g_return_if_fail(ALLIUM_IS_PREFAB_BROWSER(self));
    clear_list(self);
    g_queue_clear_full(&self->jobs, thumbnail_job_free);
    g_string_truncate(self->notes, 0);
    gtk_label_set_text(self->message, "");
    gtk_widget_set_visible(GTK_WIDGET(self->message), FALSE);
    g_autofree char *folder =
        allium_preferences_dup_prefab_folder(allium_preferences_get_default());
    GDir *dir = g_dir_open(folder, 0, NULL);
    if (!dir) return; /* no prefabs saved yet */
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *entry;
    while ((entry = g_dir_read_name(dir)))
        if (g_str_has_suffix(entry, ".map") && entry[0] != '.')
            g_ptr_array_add(names, g_strdup(entry));
    g_dir_close(dir);
    qsort(names->pdata, names->len, sizeof(gpointer), compare_names);
    for (guint i = 0; i < names->len; i++) {
        const char *file = names->pdata[i];
        g_autofree char *path = g_build_filename(folder, file, NULL);
        al_diag_list diags = {0};
        al_map *map = NULL;
        al_status st = al_prefab_read(path, &map, &diags);
        if (st != AL_OK) {
            GError *error = NULL;
            g_autofree char *display = g_filename_display_name(file);
            allium_set_status_error(&error, st, &diags, display);
            /* TRANSLATORS: a prefab file left out of the list, and why */
            g_autofree char *note = g_strdup_printf(_("Left out %s"), error->message);
            add_note(self, note);
            g_error_free(error);
            al_diag_list_clear(&diags);
            continue;
        }
        al_diag_list_clear(&diags);
        g_autofree char *detail = describe(map);
        al_map_destroy(map);
        g_autofree char *name = g_filename_display_name(file);
        name[strlen(name) - 4] = '\0'; /* without ".map" */
        GtkPicture *picture = NULL;
        gtk_list_box_append(self->list, make_row(path, name, detail, &picture));
        g_autofree char *png = allium_prefab_thumbnail_path(path);
        if (thumbnail_is_fresh(path, png)) {
            gtk_picture_set_filename(picture, png);
            g_object_set_data(
                G_OBJECT(gtk_widget_get_ancestor(GTK_WIDGET(picture), GTK_TYPE_LIST_BOX_ROW)),
                "allium-has-thumbnail", GINT_TO_POINTER(1));
        } else {
            ThumbnailJob *job = g_new0(ThumbnailJob, 1);
            job->map_path = g_strdup(path);
            job->png_path = g_steal_pointer(&png);
            g_queue_push_tail(&self->jobs, job);
        }
    }
    run_next_job(self);
}

const char *allium_prefab_browser_get_chosen(AlliumPrefabBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), NULL);
    return self->chosen;
}

void allium_prefab_browser_set_search(AlliumPrefabBrowser *self, const char *text)
{
    g_return_if_fail(ALLIUM_IS_PREFAB_BROWSER(self));
    gtk_editable_set_text(GTK_EDITABLE(self->search), text);
    search_changed_cb(self->search, self); /* at once, not after the entry's delay */
}

GPtrArray *allium_prefab_browser_dup_shown(AlliumPrefabBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), NULL);
    GPtrArray *shown = g_ptr_array_new();
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
         child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_LIST_BOX_ROW(child) && filter_cb(GTK_LIST_BOX_ROW(child), self))
            g_ptr_array_add(shown, (gpointer) name_of_row(GTK_LIST_BOX_ROW(child)));
    return shown;
}

gboolean allium_prefab_browser_activate(AlliumPrefabBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), FALSE);
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
         child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_LIST_BOX_ROW(child) && filter_cb(GTK_LIST_BOX_ROW(child), self) &&
            g_strcmp0(name_of_row(GTK_LIST_BOX_ROW(child)), name) == 0)
            return activate_row(self, GTK_LIST_BOX_ROW(child));
    return FALSE;
}

const char *allium_prefab_browser_get_message(AlliumPrefabBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), "");
    return self->notes->str;
}

guint allium_prefab_browser_get_pending(AlliumPrefabBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), 0);
    return g_queue_get_length(&self->jobs) + (self->busy ? 1 : 0);
}

guint allium_prefab_browser_count_thumbnails(AlliumPrefabBrowser *self)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), 0);
    guint count = 0;
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
         child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_LIST_BOX_ROW(child) && filter_cb(GTK_LIST_BOX_ROW(child), self) &&
            g_object_get_data(G_OBJECT(child), "allium-has-thumbnail"))
            count++;
    return count;
}

GtkDragSource *allium_prefab_browser_get_drag_source(AlliumPrefabBrowser *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_PREFAB_BROWSER(self), NULL);
    for (GtkWidget *child = gtk_widget_get_first_child(GTK_WIDGET(self->list)); child;
         child = gtk_widget_get_next_sibling(child)) {
        if (!GTK_IS_LIST_BOX_ROW(child) || g_strcmp0(name_of_row(GTK_LIST_BOX_ROW(child)), name))
            continue;
        g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(child);
        for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
            g_autoptr(GObject) c = g_list_model_get_item(controllers, i);
            if (GTK_IS_DRAG_SOURCE(c)) return GTK_DRAG_SOURCE(c);
        }
    }
    return NULL;
}
