/* The GUI self-test's prefab step: Save Selection as Prefab… and the Prefabs page.
 *
 * Three world brushes are selected and saved through the dialog as "three brushes"; a
 * name with a slash and a name taken are refused. A damaged prefab written beside it is
 * left out of the page, whose message names the file and line. The page lists the saved
 * prefab, its search keeps and hides it, and its thumbnail is drawn (a PNG beside the
 * prefab, more than one colour). With the pointer over the top view, activating the
 * prefab inserts its brushes with the centre of their bounds moved by whole grid steps to
 * the pointer (x and y; z kept), as one undoable step "Paste" that selects them; undo takes
 * them away. The screenshot 32b-prefabs-page.png shows the page.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-prefab-thumbnail.h"
#include "allium-preferences.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* The state the step keeps between polls. */
static struct {
    gint64 brushes[3];
    double lo[3][3], hi[3][3]; /* their bounds */
    double expect_delta[3];    /* where the insert should move them */
    char *folder;
} pre;

static int brush_count(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window))
        ->input.input.brush_count;
}

/* Whether the PNG at PATH is a thumbnail-sized picture of more than one colour. */
static gboolean thumbnail_drawn(const char *path)
{
    g_autoptr(GdkTexture) texture = gdk_texture_new_from_filename(path, NULL);
    if (!texture || gdk_texture_get_width(texture) != ALLIUM_PREFAB_THUMBNAIL_WIDTH ||
        gdk_texture_get_height(texture) != ALLIUM_PREFAB_THUMBNAIL_HEIGHT)
        return FALSE;
    int w = gdk_texture_get_width(texture), h = gdk_texture_get_height(texture);
    g_autofree guint32 *pixels = g_new(guint32, (gsize) w * (gsize) h);
    gdk_texture_download(texture, (guchar *) pixels, (gsize) w * 4);
    GHashTable *colours = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (int i = 0; i < w * h; i++) g_hash_table_add(colours, GUINT_TO_POINTER(pixels[i]));
    guint n = g_hash_table_size(colours);
    g_hash_table_unref(colours);
    return n > 8;
}

static gboolean shows(AlliumPrefabBrowser *browser, const char *name, guint count)
{
    g_autoptr(GPtrArray) shown = allium_prefab_browser_dup_shown(browser);
    if (shown->len != count) return FALSE;
    for (guint i = 0; i < shown->len && name; i++)
        if (g_strcmp0(shown->pdata[i], name) == 0) return TRUE;
    return name == NULL;
}

/* Saves the selection through the dialog under NAME; TRUE when the dialog closed. */
static gboolean save_through_dialog(SelfTest *t, const char *name, char **refusal)
{
    GList *before = gtk_window_list_toplevels();
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.save-prefab", NULL);
    g_autoptr(GtkWindow) dialog = take_new_dialog(before);
    if (!dialog) return FALSE;
    g_autoptr(GPtrArray) entries = g_ptr_array_new();
    collect_widgets(GTK_WIDGET(dialog), GTK_TYPE_ENTRY, entries);
    if (entries->len != 1) return FALSE;
    gtk_editable_set_text(GTK_EDITABLE(entries->pdata[0]), name);
    /* "clicked" at once: a button's "activate" clicks it only after a short animation. */
    g_signal_emit_by_name(gtk_window_get_default_widget(dialog), "clicked");
    GList *now = gtk_window_list_toplevels();
    gboolean closed = !g_list_find(now, dialog);
    g_list_free(now);
    if (!closed) {
        g_autoptr(GPtrArray) labels = g_ptr_array_new();
        collect_widgets(GTK_WIDGET(dialog), GTK_TYPE_LABEL, labels);
        for (guint i = 0; i < labels->len; i++)
            if (gtk_widget_has_css_class(labels->pdata[i], "error") &&
                gtk_widget_get_visible(labels->pdata[i]))
                *refusal = g_strdup(gtk_label_get_text(labels->pdata[i]));
        gtk_window_destroy(dialog);
    }
    return closed;
}

gboolean step_prefabs(SelfTest *t)
{
    AlliumPrefabBrowser *browser = t->window->prefab_browser;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        t->phase = 0;
        AlliumSnapshot *snap = allium_document_get_snapshot(doc);
        const al_input *in = &snap->input.input;
        t->brushes_mark = in->brush_count;
        int found = 0;
        for (int b = 0; b < in->brush_count && found < 3; b++)
            if (in->brushes[b].entity == 0 &&
                row_bounds(t, snap->input.brush_ids[b], pre.lo[found], pre.hi[found]))
                pre.brushes[found++] = snap->input.brush_ids[b];
        check(t, found == 3, "the map has three world brushes to save as a prefab");
        if (found < 3) return TRUE;
        allium_selection_set_items(t->window->selection, pre.brushes, 3, NULL, 0);
        allium_window_hide_banner(t->window); /* the last step's, over the screenshot */
        g_free(pre.folder);
        pre.folder = allium_preferences_dup_prefab_folder(allium_preferences_get_default());
        g_autofree char *expected =
            g_build_filename(g_get_user_data_dir(), "allium", "prefabs", NULL);
        check(t, g_strcmp0(pre.folder, expected) == 0,
              "the prefab folder is the user data folder's allium/prefabs by default (%s)",
              pre.folder);
        g_autofree char *refusal = NULL;
        check(t, save_through_dialog(t, "three brushes", &refusal),
              "Save Selection as Prefab… saved \"three brushes\" and closed (%s)",
              refusal ? refusal : "no refusal");
        g_autofree char *path = g_build_filename(pre.folder, "three brushes.map", NULL);
        g_autofree char *text = NULL;
        check(t, g_file_get_contents(path, &text, NULL, NULL) && strstr(text, "worldspawn"),
              "three brushes.map is written, the world's brushes in a worldspawn entity");
        g_autofree char *copied = allium_document_copy_text(doc, pre.brushes, 3, NULL, 0, NULL);
        check(t, text && copied && strcmp(text, copied) == 0,
              "and it is the text Copy puts on the clipboard");
        g_clear_pointer(&refusal, g_free);
        check(t, !save_through_dialog(t, "a/b", &refusal) && refusal && strstr(refusal, "“a/b”"),
              "a name with a slash is refused in the dialog (\"%s\")", refusal ? refusal : "");
        GError *error = NULL;
        check(t,
              !allium_window_save_prefab(t->window, "three brushes", &error) && error &&
                  strstr(error->message, "exists"),
              "a name taken is refused (\"%s\")", error ? error->message : "");
        g_clear_error(&error);
        /* A damaged prefab beside it: line 4 has a word for a coordinate. */
        g_autofree char *bad = g_build_filename(pre.folder, "broken.map", NULL);
        check(t,
              g_file_set_contents(bad,
                                  "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 zero ) ( 0 1 0 ) "
                                  "( 0 0 1 ) a 0 0 0 1 1\n}\n}\n",
                                  -1, NULL),
              "a damaged prefab broken.map was written");
        allium_prefab_browser_reload(browser);
        const char *message = allium_prefab_browser_get_message(browser);
        check(t, strstr(message, "broken.map") && strstr(message, "line 4"),
              "the Prefabs page leaves broken.map out and names its file and line (\"%s\")",
              message);
        check(t, shows(browser, "three brushes", 1), "the Prefabs page lists \"three brushes\"");
        allium_prefab_browser_set_search(browser, "THREE");
        check(t, shows(browser, "three brushes", 1), "the search \"THREE\" keeps it");
        allium_prefab_browser_set_search(browser, "pillar");
        check(t, shows(browser, NULL, 0), "the search \"pillar\" hides it");
        allium_prefab_browser_set_search(browser, "");
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "prefabs");
        return FALSE;
    }
    switch (t->phase) {
    case 0: { /* the thumbnail */
        if (allium_prefab_browser_get_pending(browser) > 0) return FALSE;
        g_autofree char *png = g_build_filename(pre.folder, "three brushes.png", NULL);
        check(t, allium_prefab_browser_count_thumbnails(browser) == 1,
              "the prefab's row shows its thumbnail (\"%s\")",
              allium_prefab_browser_get_message(browser));
        check(t, thumbnail_drawn(png), "three brushes.png is a %dx%d picture of the prefab",
              ALLIUM_PREFAB_THUMBNAIL_WIDTH, ALLIUM_PREFAB_THUMBNAIL_HEIGHT);
        /* The pointer over the top view, away from the brushes. */
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double lo[3], hi[3], centre[3], at[3], x, y;
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(fmin(pre.lo[0][k], pre.lo[1][k]), pre.lo[2][k]);
            hi[k] = fmax(fmax(pre.hi[0][k], pre.hi[1][k]), pre.hi[2][k]);
            centre[k] = 0.5 * (lo[k] + hi[k]);
            at[k] = centre[k] + (k < 2 ? 7.4 * grid : 0);
        }
        gboolean shown = to_widget(top, at, &x, &y);
        check(t, shown, "the insert's place is in the top view");
        if (!shown) return TRUE;
        allium_view_simulate_pointer(top, TRUE, x, y);
        double point[3];
        gboolean axes[3];
        check(t, allium_view_get_pointer_point(top, point, axes) && axes[0] && axes[1] && !axes[2],
              "the top view gives the pointer's x and y");
        for (int k = 0; k < 3; k++)
            pre.expect_delta[k] = k < 2 ? round((point[k] - centre[k]) / grid) * grid : 0;
        check(t, allium_prefab_browser_activate(browser, "three brushes"),
              "activating \"three brushes\" on the Prefabs page inserts it");
        t->phase = 1;
        return FALSE;
    }
    case 1: { /* inserted at the pointer */
        if (!compiled_current(t->window) || brush_count(t) != t->brushes_mark + 3) return FALSE;
        guint nb, ne;
        const gint64 *b = allium_selection_get_brushes(t->window->selection, &nb);
        allium_selection_get_entities(t->window->selection, &ne);
        check(t, nb == 3 && ne == 0, "the insert selected its 3 brushes");
        int moved = 0;
        for (guint i = 0; i < nb && nb == 3; i++) {
            double lo[3], hi[3];
            if (!row_bounds(t, b[i], lo, hi)) continue;
            for (int j = 0; j < 3; j++) {
                gboolean same = TRUE;
                for (int k = 0; k < 3; k++)
                    same = same && lo[k] == pre.lo[j][k] + pre.expect_delta[k] &&
                           hi[k] == pre.hi[j][k] + pre.expect_delta[k];
                if (same) {
                    moved++;
                    break;
                }
            }
        }
        check(t, moved == 3,
              "each inserted brush is a saved one moved by (%g %g %g): whole grid steps to "
              "the pointer, height kept (%d of 3)",
              pre.expect_delta[0], pre.expect_delta[1], pre.expect_delta[2], moved);
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, g_strcmp0(label, "Paste") == 0, "the insert is one undoable step (\"%s\")", label);
        allium_view_simulate_pointer(view_of_kind(t, AL_VIEW_TOP), FALSE, 0, 0);
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "32b-prefabs-page.png");
        check(t, shot != NULL, "a screenshot of the window with the Prefabs page");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 2;
        return FALSE;
    }
    default:
        if (!compiled_current(t->window) || brush_count(t) != t->brushes_mark) return FALSE;
        check(t, TRUE, "undo took the inserted brushes away");
        g_autofree char *bad = g_build_filename(pre.folder, "broken.map", NULL);
        g_unlink(bad);
        allium_prefab_browser_reload(browser);
        g_clear_pointer(&pre.folder, g_free);
        allium_selection_clear(t->window->selection);
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
        return TRUE;
    }
}
