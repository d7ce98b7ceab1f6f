/* The "Add Shape" dialog (allium-shape-dialog.h).
 *
 * Every field change builds the shape again (al_shape_build) and publishes the edges of its
 * faces as the selection's guides; the faces' polygons are cut from their planes as the
 * compiler cuts them (al_brush_face_points), so the preview is the solid that will be
 * added. */
#include "allium-config.h"

#include "allium-shape-dialog.h"
#include "allium-dialog.h"
#include "allium-error-label.h"

#include "al-brush.h"
#include "al-plane.h"

#include <glib/gi18n.h>

/* The fields, in the order of the grid's rows. */
enum {
    FIELD_SEGMENTS,
    FIELD_RINGS,
    FIELD_STEPS,
    FIELD_RADIUS,
    FIELD_INNER,
    FIELD_HEIGHT,
    FIELD_THICKNESS,
    FIELD_ANGLE,
    FIELD_WIDTH,
    FIELD_LENGTH,
    FIELD_COUNT,
};

typedef struct {
    GtkWindow *window;
    AlliumSelection *selection; /* owned reference */
    GtkDropDown *kind, *axis;
    GtkSpinButton *spins[FIELD_COUNT];
    GtkWidget *labels[FIELD_COUNT];
    GtkLabel *message;
    al_shape_desc desc; /* its centre is where the shape goes */
    AlliumShapeFunc func;
    gpointer user_data;
} Dialog;

/* Which fields each shape uses. */
static const gboolean uses[AL_SHAPE_COUNT][FIELD_COUNT] = {
    [AL_SHAPE_CYLINDER] = {[FIELD_SEGMENTS] = TRUE, [FIELD_RADIUS] = TRUE, [FIELD_HEIGHT] = TRUE},
    [AL_SHAPE_CONE] = {[FIELD_SEGMENTS] = TRUE, [FIELD_RADIUS] = TRUE, [FIELD_HEIGHT] = TRUE},
    [AL_SHAPE_SPHERE] = {[FIELD_SEGMENTS] = TRUE, [FIELD_RINGS] = TRUE, [FIELD_RADIUS] = TRUE},
    [AL_SHAPE_ARCH] = {[FIELD_SEGMENTS] = TRUE,
                       [FIELD_RADIUS] = TRUE,
                       [FIELD_INNER] = TRUE,
                       [FIELD_THICKNESS] = TRUE,
                       [FIELD_ANGLE] = TRUE},
    [AL_SHAPE_STAIRS] =
        {[FIELD_STEPS] = TRUE, [FIELD_WIDTH] = TRUE, [FIELD_LENGTH] = TRUE, [FIELD_HEIGHT] = TRUE},
};

static Dialog *dialog_of(GtkWindow *window)
{
    return g_object_get_data(G_OBJECT(window), "allium-shape-dialog");
}

static void dialog_free(gpointer data)
{
    Dialog *d = data;
    g_clear_object(&d->selection);
    g_free(d);
}

/* Closes the dialog, taking its preview away (a reference someone holds on the window
 * would keep it, and the guides, past gtk_window_destroy). */
static void close_dialog(Dialog *d)
{
    allium_selection_set_guides(d->selection, NULL, 0, 0);
    gtk_window_destroy(d->window);
}

static gboolean close_request_cb(GtkWindow *window, Dialog *d)
{
    (void) window;
    allium_selection_set_guides(d->selection, NULL, 0, 0);
    return FALSE;
}

/* The description as the fields give it. */
static void read_fields(Dialog *d, al_shape_desc *out)
{
    *out = d->desc;
    out->kind = (al_shape_kind) gtk_drop_down_get_selected(d->kind);
    out->axis = (int) gtk_drop_down_get_selected(d->axis);
    /* Stairs climb along X or Y: with Z chosen (for the other shapes) they climb along X. */
    if (out->kind == AL_SHAPE_STAIRS && out->axis > 1) out->axis = 0;
    double v[FIELD_COUNT];
    for (int f = 0; f < FIELD_COUNT; f++) v[f] = gtk_spin_button_get_value(d->spins[f]);
    out->segments = (int) v[FIELD_SEGMENTS];
    out->rings = (int) v[FIELD_RINGS];
    out->steps = (int) v[FIELD_STEPS];
    out->radius = v[FIELD_RADIUS];
    out->inner_radius = v[FIELD_INNER];
    out->height = v[FIELD_HEIGHT];
    out->thickness = v[FIELD_THICKNESS];
    out->angle = v[FIELD_ANGLE];
    out->width = v[FIELD_WIDTH];
    out->length = v[FIELD_LENGTH];
}

/* The edges of every face polygon of SHAPE, as guide segments. */
static GArray *shape_edges(const al_shape *shape)
{
    GArray *points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    for (int b = 0; b < shape->brush_count; b++) {
        int first = shape->first_face[b], n = shape->first_face[b + 1] - first;
        al_plane planes[AL_BRUSH_MAX_FACES];
        gboolean ok = n <= AL_BRUSH_MAX_FACES;
        for (int f = 0; ok && f < n; f++) {
            const double(*p)[3] = (const double(*)[3]) shape->faces[first + f];
            ok = al_plane_from_points(p[0], p[1], p[2], planes[f].normal, &planes[f].dist);
            if (ok) planes[f].type = al_plane_type(planes[f].normal);
        }
        for (int f = 0; ok && f < n; f++) {
            double poly[AL_BRUSH_POLYGON_MAX][3];
            int count = al_brush_face_points(planes, NULL, n, f, poly);
            for (int k = 0; k < count; k++) {
                g_array_append_vals(points, poly[k], 1);
                g_array_append_vals(points, poly[(k + 1) % count], 1);
            }
        }
    }
    return points;
}

/* Shows only the fields of the chosen shape, and previews it (or says why not). */
static void refresh(Dialog *d)
{
    al_shape_desc desc;
    read_fields(d, &desc);
    for (int f = 0; f < FIELD_COUNT; f++) {
        gboolean used = desc.kind < AL_SHAPE_COUNT && uses[desc.kind][f];
        gtk_widget_set_visible(GTK_WIDGET(d->spins[f]), used);
        gtk_widget_set_visible(d->labels[f], used);
    }
    al_shape shape;
    al_diag_list diags = {0};
    if (al_shape_build(&desc, &shape, &diags) != AL_OK) {
        allium_selection_set_guides(d->selection, NULL, 0, 0);
        allium_error_label_set(d->message, diags.count ? diags.items[0].message
                                                       : _("The shape cannot be built"));
        al_diag_list_clear(&diags);
        return;
    }
    allium_error_label_set(d->message, NULL);
    g_autoptr(GArray) points = shape_edges(&shape);
    allium_selection_set_guides(d->selection, (const double(*)[3])(gpointer) points->data,
                                points->len, 0);
    al_shape_free(&shape);
}

static void changed_cb(GObject *object, GParamSpec *pspec, Dialog *d)
{
    (void) object;
    (void) pspec;
    refresh(d);
}

static void apply_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    allium_shape_dialog_apply(d->window);
}

static void cancel_cb(GtkWidget *button, Dialog *d)
{
    (void) button;
    close_dialog(d);
}

static gboolean apply_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    apply_cb(NULL, data);
    return TRUE;
}

static gboolean cancel_key_cb(GtkWidget *widget, GVariant *args, gpointer data)
{
    (void) widget;
    (void) args;
    cancel_cb(NULL, data);
    return TRUE;
}

static GtkWidget *row_label(GtkGrid *grid, int row, const char *text, GtkWidget *field)
{
    GtkWidget *label = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(label), field);
    gtk_grid_attach(grid, label, 0, row, 1, 1);
    gtk_grid_attach(grid, field, 1, row, 1, 1);
    return label;
}

/* Puts DESC's values in the fields (without a preview per field: the caller refreshes). */
static void write_fields(Dialog *d, const al_shape_desc *desc)
{
    const double v[FIELD_COUNT] = {
        [FIELD_SEGMENTS] = desc->segments,   [FIELD_RINGS] = desc->rings,
        [FIELD_STEPS] = desc->steps,         [FIELD_RADIUS] = desc->radius,
        [FIELD_INNER] = desc->inner_radius,  [FIELD_HEIGHT] = desc->height,
        [FIELD_THICKNESS] = desc->thickness, [FIELD_ANGLE] = desc->angle,
        [FIELD_WIDTH] = desc->width,         [FIELD_LENGTH] = desc->length,
    };
    for (int f = 0; f < FIELD_COUNT; f++) {
        g_signal_handlers_block_by_func(d->spins[f], changed_cb, d);
        gtk_spin_button_set_value(d->spins[f], v[f]);
        g_signal_handlers_unblock_by_func(d->spins[f], changed_cb, d);
    }
    g_signal_handlers_block_by_func(d->kind, changed_cb, d);
    g_signal_handlers_block_by_func(d->axis, changed_cb, d);
    gtk_drop_down_set_selected(d->kind, (guint) CLAMP((int) desc->kind, 0, AL_SHAPE_COUNT - 1));
    gtk_drop_down_set_selected(d->axis, (guint) CLAMP(desc->axis, 0, 2));
    g_signal_handlers_unblock_by_func(d->kind, changed_cb, d);
    g_signal_handlers_unblock_by_func(d->axis, changed_cb, d);
}

GtkWindow *allium_shape_dialog_show(GtkWindow *parent, const al_shape_desc *initial,
                                    AlliumSelection *selection, AlliumShapeFunc func,
                                    gpointer user_data)
{
    Dialog *d = g_new0(Dialog, 1);
    d->selection = g_object_ref(selection);
    d->desc = *initial;
    d->func = func;
    d->user_data = user_data;
    GtkWidget *cancel, *apply;
    d->window = allium_dialog_new(parent, _("Add Shape"), _("_Add"), &cancel, &apply);
    g_object_set_data_full(G_OBJECT(d->window), "allium-shape-dialog", d, dialog_free);
    gtk_window_set_resizable(d->window, FALSE);
    g_signal_connect(cancel, "clicked", G_CALLBACK(cancel_cb), d);
    g_signal_connect(d->window, "close-request", G_CALLBACK(close_request_cb), d);
    g_signal_connect(apply, "clicked", G_CALLBACK(apply_cb), d);
    gtk_window_set_default_widget(d->window, apply);

    GtkGrid *grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(grid, 6);
    gtk_grid_set_column_spacing(grid, 12);
    gtk_widget_set_margin_start(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_end(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_top(GTK_WIDGET(grid), 18);
    gtk_widget_set_margin_bottom(GTK_WIDGET(grid), 18);
    const char *kinds[AL_SHAPE_COUNT + 1];
    for (int k = 0; k < AL_SHAPE_COUNT; k++) kinds[k] = _(al_shape_name((al_shape_kind) k));
    kinds[AL_SHAPE_COUNT] = NULL;
    d->kind = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(kinds));
    row_label(grid, 0, _("_Shape"), GTK_WIDGET(d->kind));
    const char *axes[] = {_("X"), _("Y"), _("Z"), NULL};
    d->axis = GTK_DROP_DOWN(gtk_drop_down_new_from_strings(axes));
    GtkWidget *axis_label = row_label(grid, 1, _("A_xis"), GTK_WIDGET(d->axis));
    gtk_widget_set_tooltip_text(axis_label,
                                _("Cylinders, cones and spheres stand along it; an arch is as "
                                  "thick along it; stairs climb along it (X or Y)"));
    static const struct {
        const char *label;
        double lo, hi, step;
        int digits;
    } fields[FIELD_COUNT] = {
        [FIELD_SEGMENTS] = {N_("S_egments"), 1, AL_SHAPE_MAX_PIECES, 1, 0},
        [FIELD_RINGS] = {N_("_Rings"), 2, AL_SHAPE_MAX_RINGS, 1, 0},
        [FIELD_STEPS] = {N_("S_teps"), 1, AL_SHAPE_MAX_PIECES, 1, 0},
        [FIELD_RADIUS] = {N_("Ra_dius"), 0, 65536, 8, 2},
        [FIELD_INNER] = {N_("_Inner radius"), 0, 65536, 8, 2},
        [FIELD_HEIGHT] = {N_("_Height"), 0, 131072, 8, 2},
        [FIELD_THICKNESS] = {N_("_Thickness"), 0, 131072, 8, 2},
        [FIELD_ANGLE] = {N_("_Angle (degrees)"), 0, 360, 15, 2},
        [FIELD_WIDTH] = {N_("_Width"), 0, 131072, 8, 2},
        [FIELD_LENGTH] = {N_("_Length"), 0, 131072, 8, 2},
    };
    for (int f = 0; f < FIELD_COUNT; f++) {
        GtkWidget *spin =
            gtk_spin_button_new_with_range(fields[f].lo, fields[f].hi, fields[f].step);
        gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), (guint) fields[f].digits);
        d->spins[f] = GTK_SPIN_BUTTON(spin);
        d->labels[f] = row_label(grid, 2 + f, _(fields[f].label), spin);
        g_signal_connect(spin, "notify::value", G_CALLBACK(changed_cb), d);
    }
    g_signal_connect(d->kind, "notify::selected", G_CALLBACK(changed_cb), d);
    g_signal_connect(d->axis, "notify::selected", G_CALLBACK(changed_cb), d);
    d->message = allium_error_label_new();
    gtk_grid_attach(grid, GTK_WIDGET(d->message), 0, 2 + FIELD_COUNT, 2, 1);
    gtk_window_set_child(d->window, GTK_WIDGET(grid));
    write_fields(d, initial);
    refresh(d);

    /* Enter adds (before the spin button's text takes the key), Escape cancels. */
    GtkEventController *keys = gtk_shortcut_controller_new();
    gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
    GtkShortcutController *sc = GTK_SHORTCUT_CONTROLLER(keys);
    gtk_shortcut_controller_add_shortcut(
        sc,
        gtk_shortcut_new(gtk_alternative_trigger_new(gtk_keyval_trigger_new(GDK_KEY_Return, 0),
                                                     gtk_keyval_trigger_new(GDK_KEY_KP_Enter, 0)),
                         gtk_callback_action_new(apply_key_cb, d, NULL)));
    gtk_shortcut_controller_add_shortcut(
        sc, gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_Escape, 0),
                             gtk_callback_action_new(cancel_key_cb, d, NULL)));
    gtk_widget_add_controller(GTK_WIDGET(d->window), keys);
    gtk_window_present(d->window);
    return d->window;
}

void allium_shape_dialog_set(GtkWindow *dialog, const al_shape_desc *desc)
{
    Dialog *d = dialog_of(dialog);
    g_return_if_fail(d != NULL);
    write_fields(d, desc);
    refresh(d);
}

gboolean allium_shape_dialog_apply(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, FALSE);
    for (int f = 0; f < FIELD_COUNT; f++) gtk_spin_button_update(d->spins[f]);
    al_shape_desc desc;
    read_fields(d, &desc);
    char *message = NULL;
    if (!d->func(&desc, &message, d->user_data)) {
        allium_error_label_set(d->message, message ? message : _("The shape was refused"));
        g_free(message);
        return FALSE;
    }
    g_free(message);
    close_dialog(d);
    return TRUE;
}

const char *allium_shape_dialog_get_message(GtkWindow *dialog)
{
    Dialog *d = dialog_of(dialog);
    g_return_val_if_fail(d != NULL, "");
    return gtk_widget_get_visible(GTK_WIDGET(d->message)) ? gtk_label_get_text(d->message) : "";
}
