/* AlliumWindow's brush operations beyond moving and hollowing: CSG subtract and merge,
 * and turning brushes into a brush entity and back (Edit menu).
 *
 * Subtract: the selected brushes cut every other brush they overlap, and the pieces
 * become the selection. Merge: the selected brushes become one convex brush, when their
 * union is convex. Make Brush Entity (a class from the submenu): the selected brushes
 * become one new entity of that class. Move to World: the brushes of the selected brush
 * entities (or of the entities owning the selected brushes) go back to the world. Each is
 * one undoable step; a refusal says why in the window's banner.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include <glib/gi18n.h>

/* --- static helpers ------------------------------------------------------------------ */

static void done(AlliumWindow *self, GError *error)
{
    if (error) {
        allium_window_report_error(self, error);
        g_error_free(error);
    }
    allium_window_update_actions(self);
}

/* The brush entities of the selection: the selected entities that have brushes, and the
 * owners (other than the world) of the selected brushes. */
static GArray *selected_brush_entities(AlliumWindow *self, const AlliumSnapshot *snap)
{
    const al_input *in = &snap->input.input;
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(gint64));
    gboolean *take = g_new0(gboolean, (gsize) MAX(in->entity_count, 1));
    guint count;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(snap, brushes[i]);
        if (b >= 0 && in->brushes[b].entity > 0) take[in->brushes[b].entity] = TRUE;
    }
    const gint64 *entities = allium_selection_get_entities(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int e = allium_snapshot_entity_index(snap, entities[i]);
        for (int b = 0; e > 0 && b < in->brush_count && !take[e]; b++)
            take[e] = in->brushes[b].entity == e;
    }
    for (int e = 1; e < in->entity_count; e++)
        if (take[e]) g_array_append_val(rows, snap->input.entity_ids[e]);
    g_free(take);
    return rows;
}

/* --- the actions ------------------------------------------------------------------- */

static void subtract_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint nb;
    const gint64 *cutters = allium_selection_get_brushes(self->selection, &nb);
    if (!self->document || nb == 0) return;
    g_autofree gint64 *pieces = NULL;
    guint count = 0;
    GError *error = NULL;
    if (allium_document_subtract(self->document, cutters, nb, &pieces, &count, &error)) {
        allium_selection_select_brushes(self->selection, pieces, count, ALLIUM_SELECT_REPLACE);
        g_autofree char *text = g_strdup_printf(
            g_dngettext(GETTEXT_PACKAGE, "Subtracted: %u brush is left where the cutters were",
                        "Subtracted: %u brushes are left where the cutters were", count),
            count);
        gtk_label_set_text(self->pointer_label, text);
    }
    done(self, error);
}

static void merge_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    if (!self->document || nb < 2) return;
    gint64 merged = 0;
    GError *error = NULL;
    if (allium_document_merge(self->document, brushes, nb, &merged, &error))
        allium_selection_select_brush(self->selection, merged, ALLIUM_SELECT_REPLACE);
    done(self, error);
}

static void to_entity_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    if (!self->document || nb == 0) return;
    const char *classname = g_variant_get_string(parameter, NULL);
    /* The selection stays on the brushes: the inspector then shows the new entity. */
    g_autofree gint64 *rows = g_memdup2(brushes, nb * sizeof *rows);
    gint64 entity = 0;
    GError *error = NULL;
    if (allium_document_brushes_to_entity(self->document, rows, nb, classname, &entity, &error)) {
        g_autofree char *text = g_strdup_printf(
            g_dngettext(GETTEXT_PACKAGE, "%u brush is now a %s", "%u brushes are now a %s", nb),
            nb, classname);
        gtk_label_set_text(self->pointer_label, text);
    }
    done(self, error);
}

static void to_world_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    if (!snap || !snap->input.entity_ids) return;
    g_autoptr(GArray) entities = selected_brush_entities(self, snap);
    if (entities->len == 0) {
        gtk_label_set_text(self->pointer_label,
                           _("Move to World: select a brush entity or one of its brushes"));
        return;
    }
    GError *error = NULL;
    if (allium_document_entities_to_world(self->document,
                                          (const gint64 *) (gpointer) entities->data,
                                          entities->len, &error)) {
        g_autofree char *text = g_strdup_printf(
            g_dngettext(GETTEXT_PACKAGE, "%u entity's brushes are part of the world now",
                        "%u entities' brushes are part of the world now", entities->len),
            entities->len);
        gtk_label_set_text(self->pointer_label, text);
    }
    done(self, error);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_csg_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.subtract", NULL, subtract_action_cb);
    gtk_widget_class_install_action(widget_class, "win.merge", NULL, merge_action_cb);
    gtk_widget_class_install_action(widget_class, "win.to-entity", "s", to_entity_action_cb);
    gtk_widget_class_install_action(widget_class, "win.to-world", NULL, to_world_action_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.subtract", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_m, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.merge", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_t, GDK_CONTROL_MASK, "win.to-entity",
                                        "s", "func_detail");
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_t, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.to-world", NULL);
}

void allium_window_update_csg_actions(AlliumWindow *self, gboolean writable)
{
    guint nb = 0, ne = 0;
    allium_selection_get_brushes(self->selection, &nb);
    allium_selection_get_entities(self->selection, &ne);
    allium_window_enable_action(self, "win.subtract", writable && nb > 0);
    allium_window_enable_action(self, "win.merge", writable && nb > 1);
    allium_window_enable_action(self, "win.to-entity", writable && nb > 0);
    allium_window_enable_action(self, "win.to-world", writable && nb + ne > 0);
}
