/* AlliumWindow's texture keys: Copy Texture (Ctrl+C with faces selected, through
 * allium-window-clipboard.c) takes the first selected face's material, offsets, scales and
 * rotation; Paste Texture (Ctrl+V or Ctrl+Shift+V with faces selected) gives them to the
 * selected faces, or to every face of the selected brushes, as one undoable step. With
 * faces selected, Alt+arrow keys in a view shift their textures by a texel (Alt+Shift+arrow
 * by eight) and Alt+Page Up / Page Down turn them by 15 degrees (win.nudge-texture; the
 * plain arrows move brushes, Ctrl and Shift with them are taken by the views). The texture
 * copied is the window's own, not the desktop clipboard's: it is no text a designer pastes
 * elsewhere.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include <glib/gi18n.h>
#include <string.h>

/* --- static helpers ------------------------------------------------------------------ */

static void report(AlliumWindow *self, GError *error)
{
    if (error) allium_window_report_error(self, error);
    g_clear_error(&error);
    allium_window_update_actions(self);
}

/* The faces the texture keys work on: the selected faces, or every face of the selected
 * brushes (their counts from the current snapshot). g_free the result. */
static AlliumFaceRef *target_faces(AlliumWindow *self, guint *count)
{
    *count = 0;
    guint nf, nb;
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &nf);
    if (nf) {
        *count = nf;
        return g_memdup2(faces, nf * sizeof *faces);
    }
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    if (!nb || !snap) return NULL;
    const al_input *in = &snap->input.input;
    GArray *out = g_array_new(FALSE, FALSE, sizeof(AlliumFaceRef));
    for (guint i = 0; i < nb; i++) {
        int b = allium_snapshot_brush_index(snap, brushes[i]);
        for (int f = 0; b >= 0 && f < in->brushes[b].face_count; f++)
            g_array_append_val(out, ((AlliumFaceRef){brushes[i], f}));
    }
    *count = out->len;
    return (AlliumFaceRef *) g_array_free(out, out->len == 0);
}

/* --- signal callbacks ---------------------------------------------------------------- */

static void copy_texture_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint n;
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &n);
    al_doc_texture t;
    if (!self->document || !n ||
        al_doc_face_texture(allium_document_get_doc(self->document), faces[0].brush, faces[0].face,
                            &t) != AL_OK)
        return;
    self->copied_texture = t;
    self->has_copied_texture = TRUE;
    g_autofree char *text = g_strdup_printf(_("Texture copied: %s"), t.material);
    gtk_label_set_text(self->pointer_label, text);
    allium_window_update_actions(self);
}

static void paste_texture_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || !self->has_copied_texture) return;
    guint n;
    g_autofree AlliumFaceRef *faces = target_faces(self, &n);
    if (!n) return;
    const al_doc_texture *t = &self->copied_texture;
    al_map_face source = {.valve = t->valve,
                          .u_offset = t->u_offset,
                          .v_offset = t->v_offset,
                          .offset = {t->offset[0], t->offset[1]},
                          .rotation = t->rotation,
                          .scale = {t->scale[0], t->scale[1]}};
    al_align a = {.kind = AL_ALIGN_PASTE, .source = &source};
    GError *error = NULL;
    allium_document_align_faces(self->document, faces, n, &a, t->material, NULL, &error);
    report(self, error);
}

/* PARAMETER: "left", "right", "up" or "down", with ":STEP" texels (default 1), or "ccw" /
 * "cw" for a 15-degree turn. The texture moves the arrow's way on a wall seen from the
 * front (U to the right, V down). */
static void nudge_texture_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    guint n;
    const AlliumFaceRef *faces = allium_selection_get_faces(self->selection, &n);
    if (!self->document || !n) return;
    const char *p = g_variant_get_string(parameter, NULL);
    const char *colon = strchr(p, ':');
    double step = colon ? g_ascii_strtod(colon + 1, NULL) : 1;
    g_autofree char *dir = colon ? g_strndup(p, colon - p) : g_strdup(p);
    al_align a = {.kind = AL_ALIGN_NUDGE};
    if (g_str_equal(dir, "left"))
        a.value[0] = step;
    else if (g_str_equal(dir, "right"))
        a.value[0] = -step;
    else if (g_str_equal(dir, "up"))
        a.value[1] = step;
    else if (g_str_equal(dir, "down"))
        a.value[1] = -step;
    else if (g_str_equal(dir, "ccw") || g_str_equal(dir, "cw"))
        a = (al_align){.kind = AL_ALIGN_ROTATE, .value = {g_str_equal(dir, "cw") ? 15 : -15}};
    else
        return;
    GError *error = NULL;
    allium_document_align_faces(self->document, faces, n, &a, NULL, NULL, &error);
    report(self, error);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_texture_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.copy-texture", NULL, copy_texture_action_cb);
    gtk_widget_class_install_action(widget_class, "win.paste-texture", NULL,
                                    paste_texture_action_cb);
    gtk_widget_class_install_action(widget_class, "win.nudge-texture", "s",
                                    nudge_texture_action_cb);
}

void allium_window_update_texture_actions(AlliumWindow *self, gboolean writable)
{
    guint faces = 0, brushes = 0;
    allium_selection_get_faces(self->selection, &faces);
    allium_selection_get_brushes(self->selection, &brushes);
    allium_window_enable_action(self, "win.copy-texture", faces > 0);
    allium_window_enable_action(self, "win.paste-texture",
                                writable && self->has_copied_texture && faces + brushes > 0);
    allium_window_enable_action(self, "win.nudge-texture", writable && faces > 0);
}
