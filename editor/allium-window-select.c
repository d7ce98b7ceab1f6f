/* AlliumWindow's selection actions: select all (Ctrl+A), invert (Ctrl+Shift+I), and select what
 * shares a material or a class with the selection (Edit → Select).
 *
 * They read the newest snapshot: its input lists every brush and entity with its document
 * row, its faces' materials and its entities' classes. Selecting by material keeps to the
 * kind of selection there is: faces select faces, brushes select brushes.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include <glib/gi18n.h>
#include <string.h>

/* --- static helpers ------------------------------------------------------------------ */

/* Whether input entity E is a point entity (has no brushes); entity 0, the world, is not. */
static gboolean *point_entities(const al_input *in)
{
    gboolean *point = g_new(gboolean, (gsize) MAX(in->entity_count, 1));
    for (int e = 0; e < in->entity_count; e++) point[e] = e > 0;
    for (int b = 0; b < in->brush_count; b++)
        if (in->brushes[b].entity >= 0 && in->brushes[b].entity < in->entity_count)
            point[in->brushes[b].entity] = FALSE;
    return point;
}

/* Selects the brushes and point entities for which KEEP_BRUSH / KEEP_ENTITY say so (NULL
 * functions keep none); a status line says how many. */
typedef gboolean (*KeepFunc)(const AlliumSnapshot *snap, int index, gpointer data);

static void select_where(AlliumWindow *self, const AlliumSnapshot *snap, KeepFunc keep_brush,
                         KeepFunc keep_entity, gpointer data)
{
    const al_input *in = &snap->input.input;
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    /* Hidden and locked brushes are out of reach of every selection. */
    for (int b = 0; keep_brush && b < in->brush_count; b++)
        if (allium_selection_is_pickable(self->selection, snap->input.brush_ids[b]) &&
            keep_brush(snap, b, data))
            g_array_append_val(brushes, snap->input.brush_ids[b]);
    g_autofree gboolean *point = point_entities(in);
    for (int e = 1; keep_entity && e < in->entity_count; e++)
        if (point[e] &&
            allium_selection_is_entity_pickable(self->selection, snap->input.entity_ids[e]) &&
            keep_entity(snap, e, data))
            g_array_append_val(entities, snap->input.entity_ids[e]);
    allium_selection_set_items(self->selection, (const gint64 *) (gpointer) brushes->data,
                               brushes->len, (const gint64 *) (gpointer) entities->data,
                               entities->len);
    g_autofree char *text =
        g_strdup_printf(_("Selected %u brushes and %u entities"), brushes->len, entities->len);
    gtk_label_set_text(self->pointer_label, text);
}

static AlliumSnapshot *usable_snapshot(AlliumWindow *self)
{
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    return snap && snap->input.brush_ids && snap->input.entity_ids ? snap : NULL;
}

static gboolean keep_all(const AlliumSnapshot *snap, int index, gpointer data)
{
    (void) snap;
    (void) index;
    (void) data;
    return TRUE;
}

static gboolean keep_unselected_brush(const AlliumSnapshot *snap, int b, gpointer data)
{
    return !allium_selection_has_brush(data, snap->input.brush_ids[b]);
}

static gboolean keep_unselected_entity(const AlliumSnapshot *snap, int e, gpointer data)
{
    return !allium_selection_has_entity(data, snap->input.entity_ids[e]);
}

/* The materials (input indices) of the selected faces, or of every face of the selected
 * brushes; TRUE in *MATERIALS[m] for each. */
static gboolean *selected_materials(AlliumWindow *self, const AlliumSnapshot *snap, guint *found)
{
    const al_input *in = &snap->input.input;
    gboolean *used = g_new0(gboolean, (gsize) MAX(in->material_count, 1));
    *found = 0;
    guint count;
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(snap, faces[i].brush);
        if (b < 0 || faces[i].face >= in->brushes[b].face_count) continue;
        int m = in->faces[in->brushes[b].first_face + faces[i].face].material;
        if (m >= 0 && m < in->material_count && !used[m]) used[m] = TRUE, (*found)++;
    }
    const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        for (int f = 0; b >= 0 && f < in->brushes[b].face_count; f++) {
            int m = in->faces[in->brushes[b].first_face + f].material;
            if (m >= 0 && m < in->material_count && !used[m]) used[m] = TRUE, (*found)++;
        }
    }
    return used;
}

static gboolean keep_brush_with_material(const AlliumSnapshot *snap, int b, gpointer data)
{
    const gboolean *used = data;
    const al_input *in = &snap->input.input;
    for (int f = 0; f < in->brushes[b].face_count; f++) {
        int m = in->faces[in->brushes[b].first_face + f].material;
        if (m >= 0 && used[m]) return TRUE;
    }
    return FALSE;
}

/* The classes of the selected entities and of the entities owning the selected brushes. */
static GHashTable *selected_classes(AlliumWindow *self, const AlliumSnapshot *snap)
{
    const al_input *in = &snap->input.input;
    GHashTable *classes = g_hash_table_new(g_str_hash, g_str_equal);
    guint count;
    const gint64 *rows = allium_selection_get_entities(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int e = allium_snapshot_entity_index(snap, rows[i]);
        if (e >= 0 && in->entities[e].classname)
            g_hash_table_add(classes, (gpointer) in->entities[e].classname);
    }
    rows = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        int e = b >= 0 ? in->brushes[b].entity : -1;
        if (e >= 0 && e < in->entity_count && in->entities[e].classname)
            g_hash_table_add(classes, (gpointer) in->entities[e].classname);
    }
    return classes;
}

static gboolean keep_entity_of_class(const AlliumSnapshot *snap, int e, gpointer data)
{
    const char *name = snap->input.input.entities[e].classname;
    return g_hash_table_contains(data, name ? name : "");
}

static gboolean keep_brush_of_class(const AlliumSnapshot *snap, int b, gpointer data)
{
    int e = snap->input.input.brushes[b].entity;
    return e >= 0 && e < snap->input.input.entity_count && keep_entity_of_class(snap, e, data);
}

/* --- the actions ------------------------------------------------------------------- */

static void select_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumSnapshot *snap = usable_snapshot(self);
    if (!snap) return;
    if (g_str_equal(action_name, "win.select-all")) {
        select_where(self, snap, keep_all, keep_all, NULL);
    } else if (g_str_equal(action_name, "win.select-invert")) {
        select_where(self, snap, keep_unselected_brush, keep_unselected_entity, self->selection);
    } else if (g_str_equal(action_name, "win.select-same-class")) {
        g_autoptr(GHashTable) classes = selected_classes(self, snap);
        if (g_hash_table_size(classes) == 0) {
            gtk_label_set_text(self->pointer_label,
                               _("Select an entity or a brush first: its class is matched"));
            return;
        }
        select_where(self, snap, keep_brush_of_class, keep_entity_of_class, classes);
    }
}

static void select_material_action_cb(GtkWidget *widget, const char *action_name,
                                      GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumSnapshot *snap = usable_snapshot(self);
    if (!snap) return;
    guint found = 0;
    g_autofree gboolean *used = selected_materials(self, snap, &found);
    if (found == 0) {
        gtk_label_set_text(self->pointer_label,
                           _("Select a face or a brush first: its material is matched"));
        return;
    }
    guint face_count;
    allium_selection_get_faces(self->selection, &face_count);
    if (face_count == 0) {
        select_where(self, snap, keep_brush_with_material, NULL, used);
        return;
    }
    /* Faces select faces. */
    const al_input *in = &snap->input.input;
    g_autoptr(GArray) faces = g_array_new(FALSE, FALSE, sizeof(AlliumFaceRef));
    for (int b = 0; b < in->brush_count; b++)
        for (int f = 0; f < in->brushes[b].face_count &&
                        allium_selection_is_pickable(self->selection, snap->input.brush_ids[b]);
             f++) {
            int m = in->faces[in->brushes[b].first_face + f].material;
            if (m < 0 || !used[m]) continue;
            AlliumFaceRef ref = {snap->input.brush_ids[b], f};
            g_array_append_val(faces, ref);
        }
    allium_selection_set_faces(self->selection, (const AlliumFaceRef *) (gpointer) faces->data,
                               faces->len);
    g_autofree char *text = g_strdup_printf(
        g_dngettext(GETTEXT_PACKAGE, "Selected %u face", "Selected %u faces", faces->len),
        faces->len);
    gtk_label_set_text(self->pointer_label, text);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_select_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.select-all", NULL, select_action_cb);
    gtk_widget_class_install_action(widget_class, "win.select-invert", NULL, select_action_cb);
    gtk_widget_class_install_action(widget_class, "win.select-same-class", NULL,
                                    select_action_cb);
    gtk_widget_class_install_action(widget_class, "win.select-same-material", NULL,
                                    select_material_action_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_a, GDK_CONTROL_MASK,
                                        "win.select-all", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_i, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.select-invert", NULL);
}
