/* GUI self-test steps for free transforms and shapes: the Rotate… and Scale… dialogs, the
 * rotate drag in a 2D view (snapped, and free with Shift), Add Shape… for every shape. Each step
 * undoes its own edits, so the steps after it find the map as they expect.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"
#include "allium-shape-dialog.h"
#include "allium-transform-dialog.h"

#include "al-brush.h"

#include <math.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

static void activate(SelfTest *t, const char *action)
{
    gtk_widget_activate_action(GTK_WIDGET(t->window), action, NULL);
}

/* The bounds of the box [LO, HI] turned by DEGREES about Z through its middle. */
static void turned_box(const double lo[3], const double hi[3], double degrees, double out_lo[3],
                       double out_hi[3])
{
    double r = degrees * G_PI / 180, c = fabs(cos(r)), s = fabs(sin(r));
    double w = hi[0] - lo[0], d = hi[1] - lo[1];
    double half[3] = {0.5 * (w * c + d * s), 0.5 * (w * s + d * c), 0.5 * (hi[2] - lo[2])};
    for (int k = 0; k < 3; k++) {
        double m = 0.5 * (lo[k] + hi[k]);
        out_lo[k] = m - half[k];
        out_hi[k] = m + half[k];
    }
}

static gboolean near_box(const double a0[3], const double a1[3], const double b0[3],
                         const double b1[3], double eps)
{
    for (int k = 0; k < 3; k++)
        if (fabs(a0[k] - b0[k]) > eps || fabs(a1[k] - b1[k]) > eps) return FALSE;
    return TRUE;
}

/* Whether every brush of ROWS is in the current snapshot and the compiler's brush builder
 * takes it. */
static gboolean rows_valid(SelfTest *t, const gint64 *rows, guint count, guint *valid)
{
    AlliumSnapshot *snap = current(t);
    al_brush_builder *builder = al_brush_builder_create();
    *valid = 0;
    for (guint i = 0; builder && i < count; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        al_brush_measure m;
        bool out_of_memory = false;
        if (b >= 0 &&
            al_brush_builder_measure(builder, &snap->input.input, b, &m, NULL, &out_of_memory))
            (*valid)++;
    }
    al_brush_builder_destroy(builder);
    return *valid == count;
}

/* --- steps --------------------------------------------------------------------------- */

/* Rotate… with 30 degrees about Z turns the brush drawn in 3D; undo puts it back. */
gboolean step_rotate_dialog(SelfTest *t)
{
    if (!t->step_begun) {
        t->phase = 0;
        check(t, row_bounds(t, t->box_row, t->box_mins, t->box_maxs), "the brush is there");
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.rotate");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Edit → Rotate… opens the dialog");
        if (!dialog) return TRUE;
        const double values[3] = {30, 0, 0};
        allium_transform_dialog_set(dialog, values, 2);
        check(t, allium_transform_dialog_apply(dialog), "30° about Z is applied");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double lo[3], hi[3], want_lo[3], want_hi[3];
    if (t->phase == 0) {
        turned_box(t->box_mins, t->box_maxs, 30, want_lo, want_hi);
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, want_lo, want_hi, 1e-6),
              "the brush turned 30° about its middle: bounds %g %g .. %g %g, closed form %g %g "
              ".. %g %g",
              lo[0], lo[1], hi[0], hi[1], want_lo[0], want_lo[1], want_hi[0], want_hi[1]);
        guint valid;
        gboolean all_valid = rows_valid(t, &t->box_row, 1, &valid);
        check(t, all_valid, "the compiler takes the turned brush");
        g_autofree char *undo =
            allium_document_dup_undo_label(allium_window_get_document(t->window), FALSE);
        check(t, undo && strstr(undo, "Rotate") != NULL, "one undoable step named \"%s\"",
              undo ? undo : "");
        activate(t, "win.undo");
        t->phase = 1;
        return FALSE;
    }
    gboolean found = row_bounds(t, t->box_row, lo, hi);
    check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
          "undo puts the brush back as it was");
    return TRUE;
}

/* Scale… by 2 along X and 0.5 along Z about the middle scales the brush so; a factor of 0
 * is refused in the dialog; undo puts the brush back. */
gboolean step_scale_dialog(SelfTest *t)
{
    double lo[3], hi[3], want_lo[3], want_hi[3];
    const double factors[3] = {2, 1, 0.5};
    if (!t->step_begun) {
        t->phase = 0;
        check(t, row_bounds(t, t->box_row, t->box_mins, t->box_maxs), "the brush is there");
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.scale");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Edit → Scale… opens the dialog");
        if (!dialog) return TRUE;
        const double flat[3] = {1, 0, 1};
        allium_transform_dialog_set(dialog, flat, 0);
        gboolean applied = allium_transform_dialog_apply(dialog);
        const char *message = allium_transform_dialog_get_message(dialog);
        check(t, !applied && strstr(message, "factor of 0") != NULL,
              "a factor of 0 is refused: \"%s\"", message);
        allium_transform_dialog_set(dialog, factors, 0);
        check(t, allium_transform_dialog_apply(dialog), "2 × 1 × 0.5 is applied");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (t->phase == 0) {
        for (int k = 0; k < 3; k++) {
            double m = 0.5 * (t->box_mins[k] + t->box_maxs[k]);
            want_lo[k] = m + factors[k] * (t->box_mins[k] - m);
            want_hi[k] = m + factors[k] * (t->box_maxs[k] - m);
        }
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, want_lo, want_hi, 1e-9),
              "the brush was scaled about its middle: %g × %g × %g", hi[0] - lo[0], hi[1] - lo[1],
              hi[2] - lo[2]);
        activate(t, "win.undo");
        t->phase = 1;
        return FALSE;
    }
    gboolean found = row_bounds(t, t->box_row, lo, hi);
    check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
          "undo puts the brush back as it was");
    return TRUE;
}

/* Ctrl + drag on the selection in the top view turns it about its middle by whole steps of
 * the rotation snap (15°: a 40° drag turns 45°); with Shift too, by the angle dragged. */
gboolean step_rotate_drag(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double lo[3], hi[3], want_lo[3], want_hi[3];
    const double angles[2] = {45, 40};
    if (!t->step_begun) t->phase = 0;
    if (t->phase == 0 || t->phase == 2) {
        int which = t->phase / 2;
        check(t, row_bounds(t, t->box_row, t->box_mins, t->box_maxs), "the brush is there");
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        double c[3], from[3], to[3], x0, y0, x1, y1;
        for (int k = 0; k < 3; k++) c[k] = 0.5 * (t->box_mins[k] + t->box_maxs[k]);
        double r = 0.4 * MIN(t->box_maxs[0] - t->box_mins[0], t->box_maxs[1] - t->box_mins[1]);
        memcpy(from, c, sizeof from);
        memcpy(to, c, sizeof to);
        from[0] += r;
        to[0] += r * cos(40 * G_PI / 180);
        to[1] += r * sin(40 * G_PI / 180);
        gboolean ok = top && to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the drag's ends are in the top view");
        if (!ok) return TRUE;
        GdkModifierType state = GDK_CONTROL_MASK | (which ? GDK_SHIFT_MASK : 0);
        allium_view_simulate_drag(top, x0, y0, x1, y1, 8, state);
        t->phase++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    int which = t->phase / 2;
    if (t->phase == 1 || t->phase == 3) {
        turned_box(t->box_mins, t->box_maxs, angles[which], want_lo, want_hi);
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, want_lo, want_hi, which ? 1e-3 : 1e-6),
              "a %s 40° drag turned the brush %g°: bounds %g %g .. %g %g, closed form %g %g .. "
              "%g %g",
              which ? "Ctrl+Shift" : "Ctrl", angles[which], lo[0], lo[1], hi[0], hi[1], want_lo[0],
              want_lo[1], want_hi[0], want_hi[1]);
        guint valid;
        gboolean all_valid = rows_valid(t, &t->box_row, 1, &valid);
        check(t, all_valid, "the compiler takes it");
        activate(t, "win.undo");
        t->phase = which ? 5 : 4;
        return FALSE;
    }
    gboolean found = row_bounds(t, t->box_row, lo, hi);
    check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9), "undo puts the brush back");
    if (t->phase == 4) {
        t->phase = 2;
        return FALSE;
    }
    return TRUE;
}

/* The bounds of the box [LO, HI] turned a quarter counter-clockwise about Z through
 * (PX, PY): (x, y) goes to (PX - (y - PY), PY + (x - PX)). */
static void quarter_about(const double lo[3], const double hi[3], double px, double py,
                          double out_lo[3], double out_hi[3])
{
    out_lo[0] = px - (hi[1] - py), out_hi[0] = px - (lo[1] - py);
    out_lo[1] = py + (lo[0] - px), out_hi[1] = py + (hi[0] - px);
    out_lo[2] = lo[2], out_hi[2] = hi[2];
}

/* Places the rotation centre at map point AT with Ctrl+Alt+drag in the top view, from the
 * middle of the selection; TRUE when the selection then has it there (depth: the middle's). */
static gboolean place_pivot(SelfTest *t, const double at[3])
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double c[3], x0, y0, x1, y1, pivot[3];
    for (int k = 0; k < 3; k++) c[k] = 0.5 * (t->box_mins[k] + t->box_maxs[k]);
    if (!top || !to_widget(top, c, &x0, &y0) || !to_widget(top, at, &x1, &y1)) return FALSE;
    allium_view_simulate_drag(top, x0, y0, x1, y1, 4, GDK_CONTROL_MASK | GDK_ALT_MASK);
    return allium_selection_get_pivot(t->window->selection, pivot) && pivot[0] == at[0] &&
           pivot[1] == at[1] && pivot[2] == c[2];
}

/* The rotation centre placed with Ctrl+Alt+drag: Rotate… offers it (90° about Z turns the
 * box about that corner, the closed form), and a Ctrl+drag sweeping 90° about it turns the
 * box about it too. Each is one step that undo takes back; the box is left as it was. */
gboolean step_rotate_about_point(SelfTest *t)
{
    double lo[3], hi[3], want_lo[3], want_hi[3];
    if (!t->step_begun) {
        t->phase = 0;
        check(t, row_bounds(t, t->box_row, t->box_mins, t->box_maxs), "the brush is there");
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        double corner[3] = {t->box_maxs[0], t->box_mins[1], 0};
        corner[2] = 0.5 * (t->box_mins[2] + t->box_maxs[2]);
        g_autoptr(GdkTexture) plain = screenshot(t, GTK_WIDGET(t->window), "33a-no-centre.png");
        check(t, place_pivot(t, corner),
              "Ctrl+Alt+drag in the top view placed the rotation centre on the corner %g %g",
              corner[0], corner[1]);
        g_autoptr(GdkTexture) marked =
            screenshot(t, GTK_WIDGET(t->window), "33-rotation-centre.png");
        GtkWidget *top = GTK_WIDGET(view_of_kind(t, AL_VIEW_TOP));
        double changed =
            plain && marked ? changed_fraction(plain, marked, top, GTK_WIDGET(t->window)) : 0;
        check(t, changed > 0 && changed < 0.01,
              "the top view marks the rotation centre (%.3f%% of its pixels changed)",
              100 * changed);
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.rotate");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Edit → Rotate… opens the dialog");
        if (!dialog) return TRUE;
        const double values[3] = {90, 0, 0};
        allium_transform_dialog_set(dialog, values, 2);
        check(t, allium_transform_dialog_apply(dialog),
              "90° about Z is applied about the rotation centre it offers");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    switch (t->phase) {
    case 0:
    case 2: {
        double px = t->phase == 0 ? t->box_maxs[0] : t->box_mins[0];
        double py = t->phase == 0 ? t->box_mins[1] : t->box_maxs[1];
        quarter_about(t->box_mins, t->box_maxs, px, py, want_lo, want_hi);
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, want_lo, want_hi, 1e-6),
              "%s turned the brush a quarter about the corner %g %g: bounds %g %g .. %g %g, "
              "closed form %g %g .. %g %g",
              t->phase == 0 ? "Rotate…" : "a Ctrl+drag", px, py, lo[0], lo[1], hi[0], hi[1],
              want_lo[0], want_lo[1], want_hi[0], want_hi[1]);
        guint valid;
        check(t, rows_valid(t, &t->box_row, 1, &valid), "the compiler takes it");
        g_autofree char *undo =
            allium_document_dup_undo_label(allium_window_get_document(t->window), FALSE);
        check(t, undo && strstr(undo, "Rotate") != NULL, "one undoable step named \"%s\"",
              undo ? undo : "");
        activate(t, "win.undo");
        t->phase++;
        return FALSE;
    }
    case 1: {
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
              "undo puts the brush back");
        /* The other corner, then a Ctrl+drag from inside the box sweeping 90° about it. */
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        double corner[3] = {t->box_mins[0], t->box_maxs[1],
                            0.5 * (t->box_mins[2] + t->box_maxs[2])};
        check(t, place_pivot(t, corner), "the rotation centre moved to the corner %g %g", corner[0],
              corner[1]);
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double from[3], to[3], x0, y0, x1, y1;
        for (int k = 0; k < 3; k++) from[k] = to[k] = corner[k];
        from[0] += 0.5 * (t->box_maxs[0] - t->box_mins[0]);
        from[1] -= 0.25 * (t->box_maxs[1] - t->box_mins[1]);
        to[0] = corner[0] - (from[1] - corner[1]);
        to[1] = corner[1] + (from[0] - corner[0]);
        gboolean ok = top && to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the drag's ends are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 8, GDK_CONTROL_MASK);
        t->phase = 2;
        return FALSE;
    }
    default: {
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
              "undo puts the brush back again");
        allium_selection_set_pivot(t->window->selection, NULL);
        return TRUE;
    }
    }
}

/* The volume of brush ROW in the current snapshot by the compiler's brush builder (the
 * validity oracle: convex, closed, no face lost); -1 when it is not a valid brush. */
static double row_volume(SelfTest *t, gint64 row)
{
    AlliumSnapshot *snap = current(t);
    al_brush_builder *builder = al_brush_builder_create();
    int b = allium_snapshot_brush_index(snap, row);
    al_brush_measure m;
    bool out_of_memory = false;
    double volume =
        builder && b >= 0 &&
                al_brush_builder_measure(builder, &snap->input.input, b, &m, NULL, &out_of_memory)
            ? m.volume
            : -1;
    al_brush_builder_destroy(builder);
    return volume;
}

/* Shear… moving the box's top 32 units along X (its bottom kept), then an Alt+drag of the
 * top view's right side handle three grid steps along Y: each gives the closed-form
 * bounds, a valid brush of the same volume, one undoable step; undo puts the box back.
 * A shear along the axis of its own side is refused in the dialog. */
gboolean step_shear(SelfTest *t)
{
    double lo[3], hi[3], want_lo[3], want_hi[3];
    static double volume;
    if (!t->step_begun) {
        t->phase = 0;
        check(t, row_bounds(t, t->box_row, t->box_mins, t->box_maxs), "the brush is there");
        volume = row_volume(t, t->box_row);
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.shear");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Edit → Shear… opens the dialog");
        if (!dialog) return TRUE;
        const double same[3] = {32, 0, 0};
        allium_transform_dialog_set(dialog, same, 0);
        gboolean applied = allium_transform_dialog_apply(dialog);
        const char *message = allium_transform_dialog_get_message(dialog);
        check(t, !applied && strstr(message, "another axis") != NULL,
              "a shear along the axis of its own side is refused: \"%s\"", message);
        const double values[3] = {32, 2, 0};
        allium_transform_dialog_set(dialog, values, 0);
        check(t, allium_transform_dialog_apply(dialog), "32 units along X, the top side, applied");
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    switch (t->phase) {
    case 0:
    case 2: {
        memcpy(want_lo, t->box_mins, sizeof want_lo);
        memcpy(want_hi, t->box_maxs, sizeof want_hi);
        if (t->phase == 0)
            want_hi[0] += 32;
        else
            want_hi[1] += 48;
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, want_lo, want_hi, 1e-6),
              "%s sheared the brush: bounds %g %g %g .. %g %g %g, closed form %g %g %g .. %g %g "
              "%g",
              t->phase == 0 ? "Shear…" : "an Alt+drag of the right side handle", lo[0], lo[1],
              lo[2], hi[0], hi[1], hi[2], want_lo[0], want_lo[1], want_lo[2], want_hi[0],
              want_hi[1], want_hi[2]);
        double after = row_volume(t, t->box_row);
        check(t, after > 0 && fabs(after - volume) <= 1e-9 * volume,
              "the sheared brush is valid and keeps its volume (%.10g, before %.10g)", after,
              volume);
        g_autofree char *undo =
            allium_document_dup_undo_label(allium_window_get_document(t->window), FALSE);
        check(t, g_strcmp0(undo, "Shear selection") == 0, "one undoable step named \"%s\"",
              undo ? undo : "");
        activate(t, "win.undo");
        t->phase++;
        return FALSE;
    }
    case 1: {
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
              "undo puts the brush back");
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double from[3], to[3], x0, y0, x1, y1;
        for (int k = 0; k < 3; k++) from[k] = 0.5 * (t->box_mins[k] + t->box_maxs[k]);
        from[0] = t->box_maxs[0];
        memcpy(to, from, sizeof to);
        to[1] += 3 * grid;
        gboolean ok = top && to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the right side handle and the drag's end are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 6, GDK_ALT_MASK);
        t->phase = 2;
        return FALSE;
    }
    default: {
        gboolean found = row_bounds(t, t->box_row, lo, hi);
        check(t, found && near_box(lo, hi, t->box_mins, t->box_maxs, 1e-9),
              "undo puts the brush back again");
        return TRUE;
    }
    }
}

/* Add Shape… adds each shape in the selection's bounds as one step of valid brushes, and
 * selects it; a refused value is named; undo takes them away again. */
gboolean step_add_shapes(SelfTest *t)
{
    static const al_shape_desc shapes[AL_SHAPE_COUNT] = {
        {.kind = AL_SHAPE_CYLINDER, .axis = 2, .segments = 12, .radius = 32, .height = 64},
        {.kind = AL_SHAPE_CONE, .axis = 2, .segments = 8, .radius = 32, .height = 64},
        {.kind = AL_SHAPE_SPHERE, .axis = 2, .segments = 12, .rings = 6, .radius = 48},
        {.kind = AL_SHAPE_ARCH,
         .axis = 1,
         .segments = 6,
         .radius = 64,
         .inner_radius = 48,
         .thickness = 16,
         .angle = 180},
        {.kind = AL_SHAPE_STAIRS, .axis = 0, .steps = 4, .width = 64, .length = 64, .height = 32},
    };
    static const int expected[AL_SHAPE_COUNT] = {1, 1, 6, 6, 4};
    if (!t->step_begun) {
        t->phase = 0;
        t->brushes_mark = current(t)->input.input.brush_count;
    }
    int k = t->phase / 2;
    if (k < AL_SHAPE_COUNT && t->phase % 2 == 0) {
        t->shape_brushes = current(t)->input.input.brush_count;
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        GList *before = gtk_window_list_toplevels();
        activate(t, "win.add-shape");
        g_autoptr(GtkWindow) dialog = take_new_dialog(before);
        check(t, dialog != NULL, "Edit → Add Shape… opens the dialog");
        if (!dialog) return TRUE;
        guint guides = 0;
        allium_selection_get_guides(t->window->selection, &guides);
        check(t, guides > 0, "the dialog previews its shape in the views (%u guide points)",
              guides);
        if (k == 0) {
            al_shape_desc bad = shapes[0];
            bad.segments = 2;
            allium_shape_dialog_set(dialog, &bad);
            const char *message = allium_shape_dialog_get_message(dialog);
            check(t, strstr(message, "sides") != NULL, "2 sides are refused: \"%s\"", message);
            allium_selection_get_guides(t->window->selection, &guides);
            check(t, guides == 0, "and nothing is previewed");
            check(t, !allium_shape_dialog_apply(dialog), "nor added");
        }
        allium_shape_dialog_set(dialog, &shapes[k]);
        if (k == 2) {
            g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "shape-preview.png");
            g_autoptr(GdkTexture) shot2 = screenshot(t, GTK_WIDGET(dialog), "shape-dialog.png");
        }
        check(t, allium_shape_dialog_apply(dialog), "a %s is added", al_shape_name(shapes[k].kind));
        guint selected = 0;
        allium_selection_get_brushes(t->window->selection, &selected);
        check(t, selected == (guint) expected[k], "its %d brushes are selected (%u)", expected[k],
              selected);
        allium_selection_get_guides(t->window->selection, &guides);
        check(t, guides == 0, "the preview goes with the dialog");
        t->phase++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (k < AL_SHAPE_COUNT) {
        int now = current(t)->input.input.brush_count;
        guint count = 0, valid = 0;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &count);
        gboolean all_valid = rows_valid(t, rows, count, &valid);
        check(t, now == t->shape_brushes + expected[k],
              "the compiled map has the %s's %d brushes (%d more)", al_shape_name(shapes[k].kind),
              expected[k], now - t->shape_brushes);
        check(t, all_valid, "the compiler takes every one (%u of %u)", valid, count);
        t->phase++;
        if (t->phase / 2 < AL_SHAPE_COUNT) return FALSE;
        /* Each shape was one step. */
        for (int i = 0; i < AL_SHAPE_COUNT; i++) activate(t, "win.undo");
        t->phase = 2 * AL_SHAPE_COUNT + 1;
        return FALSE;
    }
    check(t, current(t)->input.input.brush_count == t->brushes_mark,
          "five undos take the five shapes away (%d brushes, %d before)",
          current(t)->input.input.brush_count, t->brushes_mark);
    return TRUE;
}
