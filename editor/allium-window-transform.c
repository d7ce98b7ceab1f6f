/* AlliumWindow's free transforms and shapes (Edit menu): Rotate… turns the selection by a
 * typed angle about an axis (the focused view's depth axis to begin with, Z in 3D) about the
 * middle of its bounds or a typed point (the rotation centre placed with Ctrl+Alt+drag in a
 * 2D view, to begin with), Scale… scales it by typed factors about the middle, Shear…
 * moves the far side of its bounds across one axis along another by a typed distance, the
 * near side kept; Add Shape… adds a
 * cylinder, cone, sphere, arch or stairs, previewed while its parameters are typed, in the
 * selection's bounds (or a box at the middle of the focused view) and selects it. Each is
 * one undoable step; a refusal keeps its dialog open with the reason.
 */
#include "allium-config.h"

#include "allium-window-private.h"

#include "allium-shape-dialog.h"
#include "allium-transform-dialog.h"

#include "al-epsilon.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* --- static helpers ------------------------------------------------------------------ */

/* The axis the focused view looks along (Z for the 3D view). */
static int view_depth_axis(AlliumWindow *self)
{
    int r, u, d;
    al_view_axes(allium_view_get_kind(allium_window_get_active_view(self)), &r, &u, &d);
    return d;
}

/* Whether the box [MINS, MAXS] under M stays within the map's coordinate limit. */
static gboolean box_stays_inside(const double mins[3], const double maxs[3], const double m[3][4])
{
    for (int c = 0; c < 8; c++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = (c >> k) & 1 ? maxs[k] : mins[k];
        for (int r = 0; r < 3; r++) {
            double q = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
            if (!(fabs(q) <= AL_COORD_MAX)) return FALSE;
        }
    }
    return TRUE;
}

/* The dialog's values as one edit of the current selection. */
static gboolean transform_chosen_cb(AlliumTransformKind kind, const double values[3], int axis,
                                    const double *about, char **message, gpointer data)
{
    AlliumWindow *self = data;
    double mins[3], maxs[3], centre[3], m[3][4];
    if (!self->document || allium_selection_is_empty(self->selection) ||
        !allium_view_get_selection_bounds(allium_window_get_active_view(self), mins, maxs)) {
        *message = g_strdup(_("Nothing is selected"));
        return FALSE;
    }
    for (int k = 0; k < 3; k++) centre[k] = about ? about[k] : 0.5 * (mins[k] + maxs[k]);
    const char *label;
    if (kind == ALLIUM_TRANSFORM_ROTATE) {
        al_doc_rotation_matrix(axis, values[0], centre, m);
        label = N_("Rotate selection");
    } else if (kind == ALLIUM_TRANSFORM_SHEAR) {
        int across = (int) values[1];
        double size = maxs[across] - mins[across];
        if (across == axis) {
            *message = g_strdup(_("A shear moves a side along another axis than its own"));
            return FALSE;
        }
        if (size <= 0) {
            *message = g_strdup_printf(_("The selection has no extent along %c to shear across"),
                                       'X' + across);
            return FALSE;
        }
        al_doc_shear_matrix(axis, across, values[0] / size, mins[across], m);
        label = N_("Shear selection");
    } else {
        for (int k = 0; k < 3; k++)
            if (values[k] == 0) {
                *message = g_strdup_printf(_("A factor of 0 along %c would flatten the selection"),
                                           'X' + k);
                return FALSE;
            }
        al_doc_scale_matrix(values, centre, m);
        label = N_("Scale selection");
    }
    if (!box_stays_inside(mins, maxs, (const double(*)[4]) m)) {
        *message = g_strdup_printf(
            _("The selection would reach beyond the map's limit of ±%g units"), AL_COORD_MAX);
        return FALSE;
    }
    const gint64 *brushes, *entities;
    guint nb, ne;
    brushes = allium_selection_get_brushes(self->selection, &nb);
    entities = allium_selection_get_entities(self->selection, &ne);
    GError *error = NULL;
    gboolean ok = allium_document_transform(self->document, brushes, nb, entities, ne,
                                            (const double(*)[4]) m, label, &error);
    if (!ok) *message = g_strdup(error->message);
    g_clear_error(&error);
    allium_window_update_actions(self);
    return ok;
}

static void rotate_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    /* The rotation centre placed in a 2D view, else the middle of the selection. */
    double point[3], mins[3], maxs[3];
    gboolean placed = allium_selection_get_pivot(self->selection, point);
    if (!placed &&
        allium_view_get_selection_bounds(allium_window_get_active_view(self), mins, maxs))
        for (int k = 0; k < 3; k++) point[k] = 0.5 * (mins[k] + maxs[k]);
    else if (!placed)
        memset(point, 0, sizeof point);
    allium_transform_dialog_show(GTK_WINDOW(self), ALLIUM_TRANSFORM_ROTATE, view_depth_axis(self),
                                 point, placed, transform_chosen_cb, self);
}

static void scale_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    allium_transform_dialog_show(GTK_WINDOW(self), ALLIUM_TRANSFORM_SCALE, view_depth_axis(self),
                                 NULL, FALSE, transform_chosen_cb, self);
}

/* A shape for the box [MINS, MAXS], centred in it, standing along AXIS: a cylinder as wide
 * as the box's narrower side across the axis and as high as the box along it (a sphere,
 * cone and arch of that radius, the arch as thick as the box), stairs filling the box and
 * climbing along its longer horizontal side. */
static void shape_for_box(const double mins[3], const double maxs[3], int axis, al_shape_desc *d)
{
    double s[3];
    for (int k = 0; k < 3; k++) {
        s[k] = maxs[k] - mins[k];
        d->centre[k] = 0.5 * (mins[k] + maxs[k]);
    }
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    d->kind = AL_SHAPE_CYLINDER;
    d->axis = axis;
    d->segments = 16;
    d->rings = 8;
    d->steps = 8;
    d->radius = 0.5 * MIN(s[u], s[v]);
    d->height = s[axis];
    d->thickness = s[axis];
    d->inner_radius = 0.75 * d->radius;
    d->angle = 180;
    int run = s[0] >= s[1] ? 0 : 1;
    d->length = s[run];
    d->width = s[1 - run];
}

static gboolean shape_chosen_cb(const al_shape_desc *desc, char **message, gpointer data)
{
    AlliumWindow *self = data;
    if (!self->document) {
        *message = g_strdup(_("No map is open"));
        return FALSE;
    }
    const char *material = allium_view_get_new_material(allium_window_get_active_view(self));
    g_autofree gint64 *ids = NULL;
    guint count = 0;
    GError *error = NULL;
    gboolean ok = allium_document_add_shape(self->document, desc, material, &ids, &count, &error);
    if (ok)
        allium_selection_select_brushes(self->selection, ids, count, ALLIUM_SELECT_REPLACE);
    else
        *message = g_strdup(error->message);
    g_clear_error(&error);
    allium_window_update_actions(self);
    return ok;
}

static void shear_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document || allium_selection_is_empty(self->selection)) return;
    /* Along the focused view's right axis to begin with (X in 3D). */
    int r, u, d;
    al_view_axes(allium_view_get_kind(allium_window_get_active_view(self)), &r, &u, &d);
    allium_transform_dialog_show(GTK_WINDOW(self), ALLIUM_TRANSFORM_SHEAR, r, NULL, FALSE,
                                 transform_chosen_cb, self);
}

static void add_shape_action_cb(GtkWidget *widget, const char *action_name, GVariant *parameter)
{
    (void) action_name;
    (void) parameter;
    AlliumWindow *self = ALLIUM_WINDOW(widget);
    if (!self->document) return;
    AlliumView *view = allium_window_get_active_view(self);
    double mins[3], maxs[3];
    if (allium_selection_is_empty(self->selection) ||
        !allium_view_get_selection_bounds(view, mins, maxs))
        allium_view_get_placement(view, mins, maxs);
    al_shape_desc desc = {0};
    shape_for_box(mins, maxs, view_depth_axis(self), &desc);
    allium_shape_dialog_show(GTK_WINDOW(self), &desc, self->selection, shape_chosen_cb, self);
}

/* --- internal API (allium-window-private.h) ----------------------------------------- */

void allium_window_class_add_transform_actions(GtkWidgetClass *widget_class)
{
    gtk_widget_class_install_action(widget_class, "win.rotate", NULL, rotate_action_cb);
    gtk_widget_class_install_action(widget_class, "win.scale", NULL, scale_action_cb);
    gtk_widget_class_install_action(widget_class, "win.shear", NULL, shear_action_cb);
    gtk_widget_class_install_action(widget_class, "win.add-shape", NULL, add_shape_action_cb);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.rotate",
                                        NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                        "win.scale", NULL);
    gtk_widget_class_add_binding_action(widget_class, GDK_KEY_b, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.add-shape", NULL);
}

void allium_window_update_transform_actions(AlliumWindow *self, gboolean writable)
{
    gboolean selected = !allium_selection_is_empty(self->selection);
    allium_window_enable_action(self, "win.rotate", writable && selected);
    allium_window_enable_action(self, "win.scale", writable && selected);
    allium_window_enable_action(self, "win.shear", writable && selected);
    allium_window_enable_action(self, "win.add-shape", writable);
}
