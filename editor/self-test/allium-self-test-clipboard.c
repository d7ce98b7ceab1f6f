/* The GUI self-test's clipboard step: copy, paste at the pointer, paste in place and bad
 * clipboard text, through the window's actions and the system clipboard.
 *
 * A world brush and the light the earlier steps placed are selected and copied (Ctrl+C);
 * the clipboard holds their .map text. With the pointer over the top view, Ctrl+V pastes a
 * copy centred under it on the grid (x and y by whole grid steps, z kept) as one step that
 * selects the copy; undo takes it away. Ctrl+Shift+V pastes the same text where it came
 * from. Text that is not a map changes nothing and names line 1, column 1 in the status
 * bar.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"

#include <math.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

/* The clipboard's text when this program owns it (what Copy put there), else NULL. */
static char *local_clipboard_text(SelfTest *t)
{
    GdkClipboard *clipboard = gtk_widget_get_clipboard(GTK_WIDGET(t->window));
    GdkContentProvider *content = gdk_clipboard_get_content(clipboard);
    if (!content) return NULL;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    char *text = NULL;
    if (gdk_content_provider_get_value(content, &value, NULL)) text = g_value_dup_string(&value);
    g_value_unset(&value);
    return text;
}

static gboolean counts_are(SelfTest *t, int brushes, int entities)
{
    const al_input *in = &current(t)->input.input;
    return in->brush_count == brushes && in->entity_count == entities;
}

/* The state the step keeps between polls. */
static struct {
    gint64 brush, light;    /* the rows copied */
    double lo[3], hi[3];    /* the brush's bounds */
    double light_origin[3]; /* the light's */
    double expect_delta[3]; /* where Paste at the Pointer should move them */
    char *copied;           /* the clipboard text */
} clip;

static gboolean read_origin(AlliumSnapshot *snap, gint64 row, double o[3])
{
    int e = allium_snapshot_entity_index(snap, row);
    const char *origin = e >= 0 ? allium_snapshot_entity_value(snap, e, "origin") : NULL;
    return origin && sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3;
}

/* The pasted brush and light: the selection's, other than the originals. */
static gboolean pasted_rows(SelfTest *t, gint64 *brush, gint64 *light)
{
    guint nb, ne;
    const gint64 *b = allium_selection_get_brushes(t->window->selection, &nb);
    const gint64 *e = allium_selection_get_entities(t->window->selection, &ne);
    if (nb != 1 || ne != 1 || b[0] == clip.brush || e[0] == clip.light) return FALSE;
    *brush = b[0], *light = e[0];
    return TRUE;
}

gboolean step_clipboard(SelfTest *t)
{
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        t->phase = 0;
        t->brushes_mark = in->brush_count;
        t->entities_before = in->entity_count;
        clip.brush = clip.light = -1;
        for (int b = 0; b < in->brush_count && clip.brush < 0; b++)
            if (in->brushes[b].entity == 0) clip.brush = snap->input.brush_ids[b];
        for (int e = in->entity_count - 1; e > 0 && clip.light < 0; e--)
            if (g_strcmp0(in->entities[e].classname, "light") == 0)
                clip.light = snap->input.entity_ids[e];
        check(t,
              clip.brush >= 0 && clip.light >= 0 && row_bounds(t, clip.brush, clip.lo, clip.hi) &&
                  read_origin(snap, clip.light, clip.light_origin),
              "the map has a world brush and a light to copy");
        if (clip.brush < 0 || clip.light < 0) return TRUE;
        allium_selection_set_items(t->window->selection, &clip.brush, 1, &clip.light, 1);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.copy", NULL),
              "win.copy activated");
        g_free(clip.copied);
        clip.copied = local_clipboard_text(t);
        check(t,
              clip.copied && strstr(clip.copied, "\"classname\" \"worldspawn\"") &&
                  strstr(clip.copied, "\"classname\" \"light\""),
              "the clipboard holds the brush in a worldspawn entity and the light as .map text");
        /* The pointer over the top view, away from the copy. */
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double centre[3], at[3], x, y;
        for (int k = 0; k < 3; k++) {
            double lo = fmin(clip.lo[k], clip.light_origin[k]);
            double hi = fmax(clip.hi[k], clip.light_origin[k]);
            centre[k] = 0.5 * (lo + hi);
            at[k] = centre[k] + (k < 2 ? 5.3 * grid : 0);
        }
        gboolean shown = to_widget(top, at, &x, &y);
        check(t, shown, "the paste's place is in the top view");
        if (!shown) return TRUE;
        allium_view_simulate_pointer(top, TRUE, x, y);
        double point[3];
        gboolean axes[3];
        check(t, allium_view_get_pointer_point(top, point, axes) && axes[0] && axes[1] && !axes[2],
              "the top view gives the pointer's x and y");
        for (int k = 0; k < 3; k++)
            clip.expect_delta[k] = k < 2 ? round((point[k] - centre[k]) / grid) * grid : 0;
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.paste", NULL),
              "win.paste activated");
        return FALSE;
    }
    gint64 brush, light;
    switch (t->phase) {
    case 0: { /* Paste at the Pointer */
        if (!compiled_current(t->window) ||
            !counts_are(t, t->brushes_mark + 1, t->entities_before + 1))
            return FALSE;
        check(t, pasted_rows(t, &brush, &light), "the paste selected the pasted brush and light");
        double lo[3], hi[3], o[3];
        gboolean moved = pasted_rows(t, &brush, &light) && row_bounds(t, brush, lo, hi) &&
                         read_origin(snap, light, o);
        for (int k = 0; k < 3 && moved; k++)
            moved = lo[k] == clip.lo[k] + clip.expect_delta[k] &&
                    hi[k] == clip.hi[k] + clip.expect_delta[k] &&
                    o[k] == clip.light_origin[k] + clip.expect_delta[k];
        check(t, moved,
              "Paste at the Pointer moved the copy by (%g %g %g), whole grid steps to the pointer, "
              "height kept",
              clip.expect_delta[0], clip.expect_delta[1], clip.expect_delta[2]);
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, g_strcmp0(label, "Paste") == 0, "the paste is one undoable step (\"%s\")", label);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 1;
        return FALSE;
    }
    case 1: /* undone */
        if (!compiled_current(t->window) || !counts_are(t, t->brushes_mark, t->entities_before))
            return FALSE;
        check(t, TRUE, "undo took the pasted brush and light away");
        gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(t->window)), "Hello, world");
        gtk_label_set_text(t->window->pointer_label, "");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.paste-in-place", NULL);
        t->phase = 2;
        return FALSE;
    case 2: { /* bad text */
        const char *status = gtk_label_get_text(t->window->pointer_label);
        if (!*status) return FALSE;
        check(t, strstr(status, "line 1, column 1") != NULL,
              "text that is not a map names where it goes wrong in the status bar (\"%s\")",
              status);
        check(t,
              counts_are(t, t->brushes_mark, t->entities_before) && allium_document_can_redo(doc),
              "and changes nothing (the undone paste can still be redone)");
        gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(t->window)), clip.copied);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.paste-in-place", NULL);
        t->phase = 3;
        return FALSE;
    }
    case 3: { /* Paste in Place */
        if (!compiled_current(t->window) ||
            !counts_are(t, t->brushes_mark + 1, t->entities_before + 1))
            return FALSE;
        double plo[3], phi[3], po[3];
        gboolean same = pasted_rows(t, &brush, &light) && row_bounds(t, brush, plo, phi) &&
                        read_origin(snap, light, po);
        for (int k = 0; k < 3 && same; k++)
            same = plo[k] == clip.lo[k] && phi[k] == clip.hi[k] && po[k] == clip.light_origin[k];
        check(t, same, "Paste in Place put the copy exactly where the original is");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->phase = 4;
        return FALSE;
    }
    default:
        if (!compiled_current(t->window) || !counts_are(t, t->brushes_mark, t->entities_before))
            return FALSE;
        check(t, TRUE, "and undo took it away again");
        g_clear_pointer(&clip.copied, g_free);
        allium_selection_clear(t->window->selection);
        return TRUE;
    }
}
