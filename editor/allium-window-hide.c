/* AlliumWindow's hiding and locking (View menu and the views' context menu): Hide (Ctrl+H)
 * hides what is selected, Isolate (Ctrl+Alt+I) hides every brush and point entity but the
 * selected ones, Show All (Ctrl+Alt+H) shows everything again; Lock keeps what is selected
 * drawn but out of reach of every pick, Unlock All frees everything locked so. A selected
 * group is hidden or locked as itself (its entity's mark, which holds its members), a
 * brush or a point entity outside groups as itself. Hidden brushes and entities are
 * neither drawn nor picked nor taken by a rectangle or Select All, but they are still part
 * of the map and compiled (they collide, block light and seal the map) and exported, as in
 * TrenchBroom. The marks are part of the document (al_doc_set_state: each change is one
 * undoable step, kept with the map), as are the hidden and locked layers (their
 * TrenchBroom keys). Show All and Unlock All clear marks; a layer's own flags stay with
 * the Layers page.
 *
 * allium_window_refresh_marks hands the selection what the document says after every
 * change: a brush or entity is hidden when it is marked so, or its group (or one holding
 * that) is, or its layer is; locked likewise; and each brush's layer colour.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "layers/layer-edits.h"

#include <glib/gi18n.h>
#include <math.h>

/* --- static helpers ------------------------------------------------------------------ */

/* Says how many brushes are hidden. */
static void hidden_changed(AlliumWindow *self)
{
    guint count = allium_selection_get_hidden_count(self->selection);
    g_autofree char *text =
        count ? g_strdup_printf(
                    g_dngettext(GETTEXT_PACKAGE, "%u brush hidden (View → Show All brings it back)",
                                "%u brushes hidden (View → Show All brings them back)", count),
                    count)
              : g_strdup(_("Every brush is shown"));
    gtk_label_set_text(self->pointer_label, text);
    allium_window_update_actions(self);
}

/* Sets mark STATE of BRUSHES and ENTITIES (rows) to ON as one step named LABEL; says why
 * not if it fails. */
static void set_marks(AlliumWindow *self, GArray *brushes, GArray *entities, unsigned state,
                      gboolean on, const char *label)
{
    GError *error = NULL;
    if (!allium_document_set_state(self->document, (const gint64 *) (gpointer) brushes->data,
                                   brushes->len, (const gint64 *) (gpointer) entities->data,
                                   entities->len, state, on ? state : 0, label, &error)) {
        allium_window_report_error(self, error);
        g_clear_error(&error);
        return;
    }
    if (state == AL_DOC_STATE_HIDDEN)
        hidden_changed(self);
    else
        allium_window_update_actions(self);
}

/* Hide and Lock: what is selected, as members (a group as itself). */
static void mark_selection_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (!allium_window_selection_members(self, brushes, entities) ||
        brushes->len + entities->len == 0)
        return;
    gboolean lock = g_str_equal(action_name, "win.lock");
    set_marks(self, brushes, entities, lock ? AL_DOC_STATE_LOCKED : AL_DOC_STATE_HIDDEN, TRUE,
              lock ? _("Lock") : _("Hide"));
}

static void isolate_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    if (!snap || !snap->input.brush_ids || !snap->input.entity_ids || !snap->scene) return;
    guint brush_count, entity_count, face_count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &brush_count);
    const gint64 *ents = allium_selection_get_entities(self->selection, &entity_count);
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &face_count);
    if (brush_count + entity_count + face_count == 0) return;
    g_autoptr(GHashTable) kept = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < brush_count; i++) g_hash_table_add(kept, (gpointer) &rows[i]);
    for (guint i = 0; i < face_count; i++) g_hash_table_add(kept, (gpointer) &faces[i].brush);
    g_autoptr(GHashTable) kept_entities = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < entity_count; i++) g_hash_table_add(kept_entities, (gpointer) &ents[i]);
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (int b = 0; b < snap->input.input.brush_count; b++)
        if (!g_hash_table_contains(kept, &snap->input.brush_ids[b]))
            g_array_append_val(brushes, snap->input.brush_ids[b]);
    /* Point entities: those drawn as boxes. */
    for (int e = 1; e < snap->input.input.entity_count; e++) {
        double lo[3], hi[3];
        if (al_scene_entity_bounds(snap->scene, e, lo, hi) &&
            !g_hash_table_contains(kept_entities, &snap->input.entity_ids[e]))
            g_array_append_val(entities, snap->input.entity_ids[e]);
    }
    set_marks(self, brushes, entities, AL_DOC_STATE_HIDDEN, TRUE, _("Isolate"));
}

/* Show All and Unlock All: every brush and entity marks STATE no more. */
static void clear_marks_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    gboolean unlock = g_str_equal(action_name, "win.unlock-all");
    unsigned state = unlock ? AL_DOC_STATE_LOCKED : AL_DOC_STATE_HIDDEN;
    al_doc *doc = allium_document_get_doc(self->document);
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int count = 0;
    al_doc_entity_row *rows = NULL;
    int row_count = 0;
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    if (al_doc_brush_states(doc, &ids, &states, &count) == AL_OK)
        for (int i = 0; i < count; i++)
            if (states[i] & state) g_array_append_val(brushes, ids[i]);
    if (al_doc_list_entities(doc, &rows, &row_count) == AL_OK)
        for (int i = 0; i < row_count; i++)
            if (rows[i].state & state) g_array_append_val(entities, rows[i].id);
    free(ids);
    free(states);
    al_doc_entity_rows_free(rows, row_count);
    if (brushes->len + entities->len == 0) return;
    set_marks(self, brushes, entities, state, FALSE, unlock ? _("Unlock all") : _("Show all"));
}

/* Adds every brush of entity row ENTITY to ROWS. */
static void add_entity_brushes(al_doc *doc, int64_t entity, GArray *rows)
{
    int64_t *ids = NULL;
    int count = 0;
    if (al_doc_list_brushes(doc, entity, &ids, &count) == AL_OK)
        g_array_append_vals(rows, ids, (guint) count);
    free(ids);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_hide_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.hide", NULL, mark_selection_cb);
    gtk_widget_class_install_action(widget_class, "win.lock", NULL, mark_selection_cb);
    gtk_widget_class_install_action(widget_class, "win.isolate", NULL, isolate_action_cb);
    gtk_widget_class_install_action(widget_class, "win.show-all", NULL, clear_marks_cb);
    gtk_widget_class_install_action(widget_class, "win.unlock-all", NULL, clear_marks_cb);
    /* TrenchBroom's keys where they are free: Ctrl+I imports and Ctrl+Shift+H hollows
     * here, so Isolate and Show All take Ctrl+Alt. */
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, GDK_CONTROL_MASK, "win.hide",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_i, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                        "win.isolate", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_h, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                        "win.show-all", NULL);
}

void allium_window_update_hide_actions(AlliumWindow *self)
{
    guint brushes = 0, entities = 0, faces = 0;
    allium_selection_get_brushes(self->selection, &brushes);
    allium_selection_get_entities(self->selection, &entities);
    allium_selection_get_faces(self->selection, &faces);
    gboolean doc = self->document != NULL;
    gboolean any = doc && brushes + entities + faces > 0;
    allium_window_enable_action(self, "win.hide", any);
    allium_window_enable_action(self, "win.lock", any);
    allium_window_enable_action(self, "win.isolate", any);
    allium_window_enable_action(
        self, "win.show-all",
        doc && allium_selection_get_hidden_count(self->selection) +
                       allium_selection_get_hidden_entity_count(self->selection) >
                   0);
    allium_window_enable_action(self, "win.unlock-all",
                                doc && allium_selection_get_locked_count(self->selection) > 0);
}

/* A layer colour RGB (0..1) as 0xRRGGBBFF. */
static guint32 pack_color(const float rgb[3])
{
    guint32 c = 0xff;
    for (int k = 0; k < 3; k++)
        c |= (guint32) lroundf(CLAMP(rgb[k], 0.0f, 1.0f) * 255.0f) << (24 - 8 * k);
    return c;
}

void allium_window_refresh_marks(AlliumWindow *self)
{
    if (!self->document) {
        allium_selection_set_marks(self->selection, NULL);
        return;
    }
    al_doc *doc = allium_document_get_doc(self->document);
    g_autoptr(GArray) hidden = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) locked = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) hidden_entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) locked_entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) tinted = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autoptr(GArray) tints = g_array_new(FALSE, FALSE, sizeof(guint32));
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int count = 0;
    if (al_doc_brush_states(doc, &ids, &states, &count) == AL_OK)
        for (int i = 0; i < count; i++) {
            if (states[i] & AL_DOC_STATE_HIDDEN) g_array_append_val(hidden, ids[i]);
            if (states[i] & AL_DOC_STATE_LOCKED) g_array_append_val(locked, ids[i]);
        }
    free(ids);
    free(states);
    /* Entities: by their layer, their own mark, or a group holding them. */
    al_layers layers;
    if (al_layers_read(doc, &layers, NULL) == AL_OK) {
        for (int e = 0; e < layers.count; e++) {
            gboolean hide = layers.nodes[e].hidden, lock = layers.nodes[e].locked;
            for (int at = e, steps = 0; at >= 0 && steps <= layers.count; steps++) {
                hide = hide || (layers.rows[at].state & AL_DOC_STATE_HIDDEN);
                lock = lock || (layers.rows[at].state & AL_DOC_STATE_LOCKED);
                at = layers.nodes[at].parent;
            }
            gint64 row = layers.rows[e].id;
            if (hide) g_array_append_val(hidden_entities, row);
            if (lock) g_array_append_val(locked_entities, row);
            if (!hide && !lock && !layers.nodes[e].has_color) continue;
            g_autoptr(GArray) own = g_array_new(FALSE, FALSE, sizeof(gint64));
            add_entity_brushes(doc, row, own);
            if (hide) g_array_append_vals(hidden, own->data, own->len);
            if (lock) g_array_append_vals(locked, own->data, own->len);
            if (layers.nodes[e].has_color) {
                guint32 c = pack_color(layers.nodes[e].color);
                g_array_append_vals(tinted, own->data, own->len);
                for (guint i = 0; i < own->len; i++) g_array_append_val(tints, c);
            }
        }
        al_layers_free(&layers);
    }
    AlliumMarks marks = {
        .hidden = (const gint64 *) (gpointer) hidden->data,
        .hidden_count = hidden->len,
        .locked = (const gint64 *) (gpointer) locked->data,
        .locked_count = locked->len,
        .hidden_entities = (const gint64 *) (gpointer) hidden_entities->data,
        .hidden_entity_count = hidden_entities->len,
        .locked_entities = (const gint64 *) (gpointer) locked_entities->data,
        .locked_entity_count = locked_entities->len,
        .tinted = (const gint64 *) (gpointer) tinted->data,
        .tints = (const guint32 *) (gpointer) tints->data,
        .tinted_count = tinted->len,
    };
    allium_selection_set_marks(self->selection, &marks);
}
