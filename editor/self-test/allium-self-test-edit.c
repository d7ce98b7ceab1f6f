/* The GUI self-test's editing steps, on the sample map in its four views.
 *
 * They drag in the top view through the same code the pointer gestures run
 * (allium_view_simulate_drag), and use the window's actions as the keys do. Each edit is
 * checked in the snapshot the live compile publishes for it: the brush is where the grid
 * says, and only some of the world's blocks were built again. What they check: the brush
 * tool draws a box on the grid and selects it; a drag within the selection moves it by
 * whole grid steps, and the moved outline stays drawn until the compile arrives; the arrow
 * keys nudge it a grid step; Ctrl+D copies it beside itself and selects the copy; Delete
 * removes the copy; a rectangle selects what lies inside it; Ctrl+Shift+H hollows the box
 * into walls a grid step thick; in the 3D view the brush tool
 * stands a box on the floor under the pointer, and R in the front view turns it on its
 * side; a click with the entity tool places a light
 * that the solver then uses; and undoing every step gives
 * back the map as it was.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"
#include "allium-lightmap.h"

#include "allium-preferences.h"
#include "mapfile/texture.h"
#include "store/map-doc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The top view: the second slot of the four. */
static AlliumView *top_view(SelfTest *t)
{
    return view_of_kind(t, AL_VIEW_TOP);
}

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}


static gboolean same_box(const double a0[3], const double a1[3], const double b0[3],
                         const double b1[3])
{
    for (int k = 0; k < 3; k++)
        if (fabs(a0[k] - b0[k]) > 1e-6 || fabs(a1[k] - b1[k]) > 1e-6) return FALSE;
    return TRUE;
}

/* Checks that the current snapshot is an update (not a full compile) and says how long it
 * took, for WHAT. */
static void check_incremental(SelfTest *t, const char *what)
{
    AlliumSnapshot *snap = current(t);
    check(t, snap->world && snap->blocks_built < snap->blocks,
          "%s was compiled by updating the world: %d of %d blocks built, %.0f ms from the edit "
          "to the lit snapshot",
          what, snap->blocks_built, snap->blocks, snap->ms_total);
}

static guint guide_count(SelfTest *t)
{
    guint count = 0;
    allium_selection_get_guides(t->window->selection, &count);
    return count;
}

static int brush_count(SelfTest *t)
{
    return current(t)->input.input.brush_count;
}

/* --- steps --------------------------------------------------------------------------- */

gboolean step_brush_tool(SelfTest *t)
{
    AlliumView *top = top_view(t);
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        check(t, top != NULL, "there is a top view");
        if (!top) return TRUE;
        t->brushes_before = brush_count(t);
        allium_selection_clear(t->window->selection);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "brush"),
              "win.tool('brush') activated");
        /* A box around the middle of the map, corners off the grid. */
        double lo[3], hi[3];
        al_scene_bounds(current(t)->scene, lo, hi);
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double a[3], b[3], x0, y0, x1, y1;
        for (int k = 0; k < 3; k++) {
            double mid = 0.5 * (lo[k] + hi[k]);
            a[k] = mid - 2.3 * grid;
            b[k] = mid + 1.8 * grid;
        }
        gboolean ok = to_widget(top, a, &x0, &y0) && to_widget(top, b, &x1, &y1);
        check(t, ok, "the box's corners are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 4, 0);
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        check(t, nb == 1, "the new brush is selected (%u brushes are)", nb);
        t->box_row = nb == 1 ? rows[0] : -1;
        for (int k = 0; k < 2; k++) {
            t->box_mins[k] = al_snap(MIN(a[k], b[k]), grid);
            t->box_maxs[k] = al_snap(MAX(a[k], b[k]), grid);
        }
        check(t, guide_count(t) == 24, "its outline is drawn while it compiles (%u points)",
              guide_count(t));
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, g_strcmp0(label, "Add brush") == 0, "the undo step is \"Add brush\" (\"%s\")",
              label ? label : "");
        t->edits = 1;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (!settle(t)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    check(t, found, "the compiled map has the new brush");
    if (!found) return TRUE;
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    check(t, mins[0] == t->box_mins[0] && mins[1] == t->box_mins[1] &&
                 maxs[0] == t->box_maxs[0] && maxs[1] == t->box_maxs[1],
          "the box lies on the grid where it was drawn (%g %g to %g %g, expected %g %g to %g %g)",
          mins[0], mins[1], maxs[0], maxs[1], t->box_mins[0], t->box_mins[1], t->box_maxs[0],
          t->box_maxs[1]);
    check(t, maxs[2] - mins[2] == 8 * grid, "it is eight grid steps deep (%g)", maxs[2] - mins[2]);
    t->box_mins[2] = mins[2];
    t->box_maxs[2] = maxs[2];
    check(t, brush_count(t) == t->brushes_before + 1, "the map has one brush more");
    check(t, guide_count(t) == 0, "the outline gave way to the compiled brush");
    check_incremental(t, "the new brush");
    shoot_and_compare(t, "30-brush-tool.png", "drawing a brush");
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    return TRUE;
}

gboolean step_move_drag(SelfTest *t)
{
    AlliumView *top = top_view(t);
    if (!t->step_begun) {
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double from[3], to[3], x0, y0, x1, y1;
        for (int k = 0; k < 3; k++) from[k] = 0.5 * (t->box_mins[k] + t->box_maxs[k]);
        memcpy(to, from, sizeof to);
        to[0] += 3.2 * grid; /* 3 steps */
        to[1] -= 1.3 * grid; /* -1 step */
        gboolean ok = to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the drag's ends are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 6, 0);
        check(t, guide_count(t) > 0, "the moved outline stays drawn while it compiles");
        t->box_mins[0] += 3 * grid, t->box_maxs[0] += 3 * grid;
        t->box_mins[1] -= grid, t->box_maxs[1] -= grid;
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    check(t, row_bounds(t, t->box_row, mins, maxs) &&
                 same_box(mins, maxs, t->box_mins, t->box_maxs),
          "dragging the selected brush moved it by whole grid steps (to %g %g %g)", mins[0],
          mins[1], mins[2]);
    check(t, allium_selection_has_brush(t->window->selection, t->box_row),
          "it is still selected");
    check_incremental(t, "the move");
    return TRUE;
}

/* Mean difference of two lightmaps' texels, relative to A's mean; -1 if their atlases
 * differ. */
/* The mean texel of every lit face of SNAP in LIGHTMAP, keyed by the face's brush row and
 * number: light that can be compared across atlases whose faces sit in other places. */
static GHashTable *face_light(const AlliumSnapshot *snap, const AlliumLightmap *lightmap)
{
    GHashTable *table = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    const al_input *in = &snap->input.input;
    for (int b = 0; snap->rad && b < in->brush_count; b++)
        for (int f = 0; f < in->brushes[b].face_count; f++) {
            al_rad_face_map fm;
            if (!al_rad_face(snap->rad, b, f, &fm)) continue;
            double sum[3] = {0, 0, 0};
            int n = 0;
            for (int y = fm.y; y < fm.y + fm.height && y < lightmap->height; y++)
                for (int x = fm.x; x < fm.x + fm.width && x < lightmap->width; x++, n++)
                    for (int k = 0; k < 3; k++)
                        sum[k] += lightmap->rgba[4 * ((size_t) y * lightmap->width + x) + k];
            if (n == 0) continue;
            gint64 *key = g_new(gint64, 1);
            *key = snap->input.brush_ids[b] * 64 + f;
            double *mean = g_new(double, 3);
            for (int k = 0; k < 3; k++) mean[k] = sum[k] / n;
            g_hash_table_insert(table, key, mean);
        }
    return table;
}

/* How far the light of faces in both tables is apart: the sum of the differences of their
 * means over the sum of A's; -1 if they have no face in common. */
static double face_light_difference(GHashTable *a, GHashTable *b)
{
    GHashTableIter it;
    gpointer key, value;
    double diff = 0, sum = 0;
    int common = 0;
    g_hash_table_iter_init(&it, a);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        const double *other = g_hash_table_lookup(b, key), *mine = value;
        if (!other) continue;
        common++;
        for (int k = 0; k < 3; k++) {
            diff += fabs(mine[k] - other[k]);
            sum += mine[k];
        }
    }
    return common == 0 ? -1 : sum > 0 ? diff / sum : 0;
}

/* The converged light goes on across edits: the box is nudged up, and the snapshot
 * arrives with the light shot so far (carried, not lit anew) and corrections to make;
 * once they are made and the light has converged again, the box goes back down, and the
 * light ends as it was. */
gboolean step_light_carried(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        t->phase = 0;
        g_clear_pointer(&t->face_light_mark, g_hash_table_unref);
        return FALSE;
    }
    AlliumLightmap *lightmap = allium_document_get_lightmap(doc);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    /* The current snapshot's light is done (or not being refined). */
    gboolean settled_light = compiled_current(t->window) && !allium_document_get_lighting(doc) &&
                             lightmap != NULL;
    switch (t->phase) {
    case 0:
        if (!settled_light) return FALSE;
        g_clear_pointer(&t->face_light_mark, g_hash_table_unref);
        t->face_light_mark = face_light(snap, lightmap);
        t->shots_mark = lightmap->stats.shots;
        g_signal_emit_by_name(top_view(t), "activated");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.nudge", "s", "up"),
              "win.nudge('up') activated");
        t->edits++;
        t->phase = 1;
        return FALSE;
    case 1: {
        if (!compiled_current(t->window) || !snap->rad) return FALSE;
        al_rad_stats st;
        al_rad_get_stats(snap->rad, &st);
        check(t, st.shots >= t->shots_mark && t->shots_mark > st.lights,
              "the edited map's solver goes on from the light shot so far (%" G_GINT64_FORMAT
              " shots, %" G_GINT64_FORMAT " before the edit, %d lights)",
              (gint64) st.shots, (gint64) t->shots_mark, st.lights);
        check(t, st.corrections_left >= 0,
              "it arrives with the bounced light to correct (%" G_GINT64_FORMAT " panels)",
              (gint64) st.corrections_left);
        t->phase = 2;
        return FALSE;
    }
    case 2:
        if (!settled_light) return FALSE;
        check(t, lightmap->stats.corrections_left == 0,
              "its corrections are made (%" G_GINT64_FORMAT " left)",
              (gint64) lightmap->stats.corrections_left);
        check(t, lightmap->stats.converged || lightmap->stats.residual <= ALLIUM_LIGHT_RESIDUAL,
              "its light converged again (residual %.4f)", lightmap->stats.residual);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.nudge", "s", "down"),
              "win.nudge('down') activated");
        t->edits++;
        t->phase = 3;
        return FALSE;
    default: {
        if (!settled_light || !settle(t)) return FALSE;
        g_autoptr(GHashTable) now = face_light(snap, lightmap);
        double d = face_light_difference(t->face_light_mark, now);
        check(t, d >= 0 && d < 0.02,
              "back where it was, the box has the light it had (faces' light differs by %.2f%%)",
              d * 100);
        g_clear_pointer(&t->face_light_mark, g_hash_table_unref);
        shoot_and_compare(t, "31b-light-carried.png", NULL);
        return TRUE;
    }
    }
}

gboolean step_nudge_duplicate_delete(SelfTest *t)
{
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    if (!t->step_begun) {
        /* The top view is the active one: the pointer was last there. */
        AlliumView *top = top_view(t);
        g_signal_emit_by_name(top, "activated");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.nudge", "s", "right"),
              "win.nudge('right') activated");
        t->box_mins[0] += grid, t->box_maxs[0] += grid;
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.duplicate", NULL),
              "win.duplicate activated");
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        check(t, nb == 1 && rows[0] != t->box_row, "the copy is selected, not the original");
        t->edits += 2;
        return FALSE;
    }
    if (!t->marked) {
        if (!compiled_current(t->window)) return FALSE;
        double mins[3] = {0}, maxs[3] = {0};
        check(t, row_bounds(t, t->box_row, mins, maxs) &&
                     same_box(mins, maxs, t->box_mins, t->box_maxs),
              "the arrow key moved the brush one grid step right");
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        double cmins[3], cmaxs[3], emins[3], emaxs[3];
        for (int k = 0; k < 3; k++) emins[k] = t->box_mins[k], emaxs[k] = t->box_maxs[k];
        emins[0] += grid, emaxs[0] += grid, emins[1] -= grid, emaxs[1] -= grid;
        check(t, nb == 1 && row_bounds(t, rows[0], cmins, cmaxs) &&
                     same_box(cmins, cmaxs, emins, emaxs),
              "the copy lies a grid step right and down of the original");
        check(t, brush_count(t) == t->brushes_before + 2, "the map has the copy");
        check_incremental(t, "the copy");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.delete", NULL),
              "win.delete activated");
        check(t, allium_selection_is_empty(t->window->selection),
              "the deleted brush is no longer selected");
        t->edits++;
        t->marked = TRUE; /* the deletion is under way */
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    check(t, brush_count(t) == t->brushes_before + 1, "Delete removed the copy");
    double mins[3] = {0}, maxs[3] = {0};
    check(t, row_bounds(t, t->box_row, mins, maxs), "and left the original");
    check_incremental(t, "the deletion");
    return TRUE;
}

gboolean step_band_select(SelfTest *t)
{
    AlliumView *top = top_view(t);
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    double a[3], b[3], x0, y0, x1, y1;
    for (int k = 0; k < 3; k++) {
        a[k] = t->box_mins[k] - 0.5 * grid;
        b[k] = t->box_maxs[k] + 0.5 * grid;
    }
    gboolean ok = to_widget(top, a, &x0, &y0) && to_widget(top, b, &x1, &y1);
    check(t, ok, "the rectangle is in the top view");
    if (!ok) return TRUE;
    allium_selection_clear(t->window->selection);
    allium_view_simulate_drag(top, x0, y0, x1, y1, 3, 0);
    check(t, allium_selection_has_brush(t->window->selection, t->box_row),
          "a rectangle around the brush selects it");
    /* Whatever else it selected lies inside it too. */
    guint nb;
    const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
    gboolean inside = TRUE;
    for (guint i = 0; i < nb; i++) {
        double mins[3] = {0}, maxs[3] = {0};
        if (!row_bounds(t, rows[i], mins, maxs)) continue;
        inside = inside && mins[0] >= a[0] && maxs[0] <= b[0] && mins[1] >= a[1] && maxs[1] <= b[1];
    }
    check(t, inside, "every brush it selected (%u) lies inside it", nb);
    check(t, guide_count(t) == 0, "the rectangle is gone once released");
    return TRUE;
}

gboolean step_hollow(SelfTest *t)
{
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    if (!t->step_begun) {
        t->brushes_mark = brush_count(t);
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.hollow", NULL),
              "win.hollow activated");
        guint nb;
        allium_selection_get_brushes(t->window->selection, &nb);
        check(t, nb == 6, "the box's six walls are selected (%u brushes)", nb);
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    check(t, brush_count(t) == t->brushes_mark + 5, "hollowing made six walls of one box");
    /* Each wall is a grid step thick along one axis and spans the box along the others
     * (corners overlap); together they cover the box's outline. */
    guint nb;
    const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
    int thin_axes[3] = {0, 0, 0};
    gboolean inside = nb == 6;
    for (guint i = 0; i < nb; i++) {
        double mins[3] = {0}, maxs[3] = {0};
        if (!row_bounds(t, rows[i], mins, maxs)) {
            inside = FALSE;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            inside = inside && mins[k] >= t->box_mins[k] && maxs[k] <= t->box_maxs[k];
            if (fabs(maxs[k] - mins[k] - grid) < 1e-6) thin_axes[k]++;
        }
    }
    check(t, inside && thin_axes[0] == 2 && thin_axes[1] == 2 && thin_axes[2] == 2,
          "the walls lie within the box, two a grid step thick along each axis (%d %d %d)",
          thin_axes[0], thin_axes[1], thin_axes[2]);
    check_incremental(t, "the hollowed box");
    return TRUE;
}

gboolean step_brush_on_surface(SelfTest *t)
{
    AlliumView *view = view_3d(t);
    if (!t->step_begun) {
        /* Below the middle of the 3D view: the floor in front of the camera; the drag ends
         * where the floor is three grid steps further along x and y. */
        double w = gtk_widget_get_width(GTK_WIDGET(view)), h = gtk_widget_get_height(GTK_WIDGET(view));
        double x0 = w * 0.5, y0 = h * 0.8, x1, y1;
        AlliumSnapshot *snap = current(t);
        double scale = gtk_widget_get_scale_factor(GTK_WIDGET(view)), origin[3], dir[3];
        al_camera_ray(allium_view_get_camera(view), x0 * scale, y0 * scale, origin, dir);
        al_pick pick;
        gboolean hit = al_scene_pick(snap->scene, origin, dir, AL_PICK_SKIP_ENTITIES, &pick);
        check(t, hit && pick.normal[2] > 0.9, "the 3D view looks at a floor below its middle");
        if (!hit || pick.normal[2] <= 0.9) return TRUE;
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        t->box_mins[2] = al_snap(pick.point[2], grid);
        double end[3] = {pick.point[0] + 3 * grid, pick.point[1] + 3 * grid, pick.point[2]};
        gboolean seen = to_widget(view, end, &x1, &y1);
        check(t, seen, "the drag's end is in the 3D view");
        if (!seen) return TRUE;
        allium_selection_clear(t->window->selection);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "brush");
        allium_view_simulate_drag(view, x0, y0, x1, y1, 4, 0);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
        guint nb;
        const gint64 *rows = allium_selection_get_brushes(t->window->selection, &nb);
        check(t, nb == 1, "a drag on the floor with the brush tool drew a brush");
        if (nb != 1) return TRUE;
        t->box_row = rows[0];
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    check(t, found && mins[2] == t->box_mins[2] && maxs[2] - mins[2] == 8 * grid,
          "it stands on the floor (z %g to %g, the floor's grid line is %g) eight grid steps "
          "high",
          mins[2], maxs[2], t->box_mins[2]);
    check(t, found && fmod(mins[0], grid) == 0 && fmod(maxs[1], grid) == 0 && maxs[0] > mins[0] &&
                 maxs[1] > mins[1],
          "its base lies on the grid (%g %g to %g %g)", mins[0], mins[1], maxs[0], maxs[1]);
    check_incremental(t, "the brush drawn in 3D");
    shoot_and_compare(t, "31-brush-on-floor.png", "drawing a brush on the floor");
    return TRUE;
}

gboolean step_rotate(SelfTest *t)
{
    if (!t->step_begun) {
        double mins[3] = {0}, maxs[3] = {0};
        check(t, row_bounds(t, t->box_row, mins, maxs), "the brush drawn in 3D is there");
        memcpy(t->box_mins, mins, sizeof mins);
        memcpy(t->box_maxs, maxs, sizeof maxs);
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        /* In the front view (x right, z up), a quarter turn swaps its width and height. */
        for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
            AlliumView *view = allium_window_get_view(t->window, i);
            if (allium_view_get_kind(view) == AL_VIEW_FRONT) g_signal_emit_by_name(view, "activated");
        }
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.transform", "s", "cw"),
              "win.transform('cw') activated");
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    gboolean found = row_bounds(t, t->box_row, mins, maxs);
    double w0 = t->box_maxs[0] - t->box_mins[0], h0 = t->box_maxs[2] - t->box_mins[2];
    check(t, found && maxs[0] - mins[0] == h0 && maxs[2] - mins[2] == w0 &&
                 maxs[1] - mins[1] == t->box_maxs[1] - t->box_mins[1],
          "R in the front view turned the brush on its side (%g x %g, was %g x %g)",
          maxs[0] - mins[0], maxs[2] - mins[2], w0, h0);
    return TRUE;
}

/* The faces of brush ROW as the document holds them (exported), into OUT; their count. */
static int brush_faces(SelfTest *t, gint64 row, al_map_face out[32])
{
    al_doc *doc = allium_document_get_doc(allium_window_get_document(t->window));
    al_map *map = NULL;
    if (!doc || al_doc_export_map(doc, &map, NULL) != AL_OK) return 0;
    /* The export writes the brushes in the document's order; find ROW's by its bounds. */
    double mins[3], maxs[3];
    int n = 0;
    if (al_doc_brush_box(doc, row, mins, maxs))
        for (int e = 0; e < map->entity_count && !n; e++)
            for (int b = 0; b < map->entities[e].brush_count && !n; b++) {
                const al_map_brush *br = &map->entities[e].brushes[b];
                double lo[3] = {INFINITY, INFINITY, INFINITY},
                       hi[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (int f = 0; f < br->face_count; f++)
                    for (int k = 0; k < 3; k++)
                        for (int q = 0; q < 3; q++) {
                            lo[q] = fmin(lo[q], br->faces[f].points[k][q]);
                            hi[q] = fmax(hi[q], br->faces[f].points[k][q]);
                        }
                /* A box's face points are its corners: the same bounds. */
                gboolean same = TRUE;
                for (int q = 0; q < 3; q++)
                    same = same && fabs(lo[q] - mins[q]) < 1e-6 && fabs(hi[q] - maxs[q]) < 1e-6;
                if (!same || br->face_count > 32) continue;
                for (int f = 0; f < br->face_count; f++) {
                    out[f] = br->faces[f];
                    out[f].points_text = out[f].material = NULL;
                }
                n = br->face_count;
            }
    al_map_destroy(map);
    return n;
}

/* Texture lock, as a designer uses it: Shift+L toggles it (the header bar's button shows
 * it), a nudge with it on carries the box's textures along, with it off leaves them on
 * the world's grid. */
gboolean step_texture_lock(SelfTest *t)
{
    AlliumPreferences *prefs = allium_preferences_get_default();
    if (!t->step_begun) {
        allium_selection_select_brush(t->window->selection, t->box_row, ALLIUM_SELECT_REPLACE);
        gboolean was = allium_preferences_get_texture_lock(prefs);
        check(t, was, "texture lock is on by default");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "prefs.texture-lock", NULL),
              "prefs.texture-lock activated");
        check(t, !allium_preferences_get_texture_lock(prefs), "the action turned the lock off");
        check(t,
              gtk_widget_activate_action(GTK_WIDGET(t->window), "prefs.texture-lock", NULL) &&
                  allium_preferences_get_texture_lock(prefs),
              "and on again");
        t->lock_faces = brush_faces(t, t->box_row, t->lock_before);
        check(t, t->lock_faces >= 6, "the box's %d faces read from the document", t->lock_faces);
        GError *error = NULL;
        const double delta[3] = {16, 0, 0};
        gboolean moved = allium_document_move(allium_window_get_document(t->window), &t->box_row, 1,
                                              NULL, 0, delta, &error);
        check(t, moved, "moved with the lock on: %s", error ? error->message : "ok");
        g_clear_error(&error);
        t->edits++;
        al_map_face after[32];
        int n = brush_faces(t, t->box_row, after);
        double worst = 0;
        for (int f = 0; f < n && f < t->lock_faces; f++)
            for (int k = 0; k < 3; k++) {
                double x[3], y[3], a[2], b[2];
                memcpy(x, t->lock_before[f].points[k], sizeof x);
                for (int q = 0; q < 3; q++) y[q] = x[q] + delta[q];
                al_texture_coords(&t->lock_before[f], x, a);
                al_texture_coords(&after[f], y, b);
                worst = fmax(worst, fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1])));
            }
        check(t, n == t->lock_faces && worst < 1e-9,
              "with the lock every corner kept its texel (worst shift %g)", worst);
        /* Off: the texture stays where the world's grid has it (the offsets as they are). */
        gtk_widget_activate_action(GTK_WIDGET(t->window), "prefs.texture-lock", NULL);
        moved = allium_document_move(allium_window_get_document(t->window), &t->box_row, 1, NULL, 0,
                                     (double[3]){-16, 0, 0}, &error);
        g_clear_error(&error);
        t->edits++;
        al_map_face back[32];
        int m = brush_faces(t, t->box_row, back), kept = 0;
        for (int f = 0; f < m && f < n; f++)
            kept +=
                back[f].offset[0] == after[f].offset[0] && back[f].offset[1] == after[f].offset[1];
        check(t, moved && m == n && kept == n,
              "without the lock the box moved back and its faces kept their offsets (%d of %d)",
              kept, n);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "prefs.texture-lock", NULL);
        check(t, allium_preferences_get_texture_lock(prefs), "the lock is on again");
        return FALSE;
    }
    return compiled_current(t->window);
}

gboolean step_place_light(SelfTest *t)
{
    AlliumView *top = top_view(t);
    if (!t->step_begun) {
        t->lights_before = current(t)->lights;
        t->entities_before = current(t)->input.input.entity_count;
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.place-entity", "s",
                                            "light"),
              "win.place-entity('light') activated");
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        double at[3], x, y;
        for (int k = 0; k < 3; k++) at[k] = 0.5 * (t->box_mins[k] + t->box_maxs[k]) + 0.3 * grid;
        allium_selection_clear(t->window->selection);
        gboolean ok = to_widget(top, at, &x, &y);
        check(t, ok, "the light's place is in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x, y, x, y, 0, 0); /* a click */
        t->light_at[0] = al_snap(at[0], grid);
        t->light_at[1] = al_snap(at[1], grid);
        guint ne;
        allium_selection_get_entities(t->window->selection, &ne);
        check(t, ne == 1, "a click with the entity tool placed an entity and selected it");
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    AlliumSnapshot *snap = current(t);
    int e = snap->input.input.entity_count - 1;
    const char *origin = e >= 0 ? allium_snapshot_entity_value(snap, e, "origin") : NULL;
    double o[3] = {0, 0, 0};
    gboolean parsed = origin && sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3;
    check(t, snap->input.input.entity_count == t->entities_before + 1 &&
                 g_strcmp0(snap->input.input.entities[e].classname, "light") == 0,
          "the compiled map has the new light");
    check(t, parsed && o[0] == t->light_at[0] && o[1] == t->light_at[1],
          "it stands on the grid where it was clicked (origin \"%s\", expected x %g y %g)",
          origin ? origin : "", t->light_at[0], t->light_at[1]);
    check(t, snap->lights == t->lights_before + 1, "the solver lights the map with it (%d lights, "
          "%d before)", snap->lights, t->lights_before);
    return TRUE;
}

/* The light placed by the last step is still selected: the inspector edits it. */
gboolean step_inspector(SelfTest *t)
{
    AlliumInspector *inspector = t->window->inspector;
    AlliumSnapshot *snap = current(t);
    int light = snap->input.input.entity_count - 1;
    if (!t->step_begun) {
        check(t, g_str_equal(allium_inspector_get_subject(inspector), "entity") &&
                     g_strcmp0(allium_inspector_get_value(inspector, "light"), "300") == 0,
              "the inspector shows the selected light (light \"%s\")",
              allium_inspector_get_value(inspector, "light"));
        /* Each refusal leaves its message under the list. */
        gboolean written = allium_inspector_edit(inspector, "light", "bright");
        const char *message = allium_inspector_get_message(inspector);
        check(t, !written && strstr(message, "not a number"), "\"bright\" is refused for light: "
              "\"%s\"", message);
        written = allium_inspector_edit(inspector, "origin", NULL);
        message = allium_inspector_get_message(inspector);
        check(t, !written && strstr(message, "cannot be removed"),
              "a point entity's origin cannot be removed: \"%s\"", message);
        written = allium_inspector_edit(inspector, "_color", "1 0.5");
        message = allium_inspector_get_message(inspector);
        check(t, !written && strstr(message, "not a colour"), "a colour of two numbers is "
              "refused: \"%s\"", message);
        check(t, allium_inspector_edit(inspector, "light", "450"), "light 450 is written");
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (g_strcmp0(allium_snapshot_entity_value(snap, light, "light"), "450") == 0 &&
        !allium_snapshot_entity_value(snap, light, "_color")) {
        check(t, g_strcmp0(allium_inspector_get_value(inspector, "light"), "450") == 0,
              "the compiled map and the inspector have light 450");
        check(t, allium_inspector_edit(inspector, "_color", "1 0.5 0.25"),
              "a new property _color 1 0.5 0.25 is added");
        t->edits++;
        return FALSE;
    }
    static const char *edited = "Edited from the panel";
    if (!allium_snapshot_entity_value(snap, light, "_color") || !compiled_current(t->window))
        return FALSE;
    if (g_strcmp0(allium_snapshot_entity_value(snap, 0, "message"), edited) == 0) {
        /* The world's edit below has compiled: the next step starts from a quiet map. */
        check(t, TRUE, "the world's edit compiled");
        return TRUE;
    }
    if (!settle(t)) return FALSE;
    check(t, g_strcmp0(allium_inspector_get_value(inspector, "_color"), "1 0.5 0.25") == 0,
          "the inspector shows the new _color row");
    shoot_and_compare(t, "inspector.png", NULL);
    /* Nothing selected: the map's own properties. */
    allium_selection_clear(t->window->selection);
    check(t, g_str_equal(allium_inspector_get_subject(inspector), "world") &&
                 g_strcmp0(allium_inspector_get_value(inspector, "classname"), "worldspawn") == 0,
          "with nothing selected it shows worldspawn");
    /* A key the entity definitions type as a number ("sounds", the world's CD track, in no
     * list of the panel's own) is checked as one. */
    gboolean refused = !allium_inspector_edit(inspector, "sounds", "loud");
    check(t, refused && strstr(allium_inspector_get_message(inspector), "not a number"),
          "the world's sounds, an integer in its definition, refuses a word (\"%s\")",
          allium_inspector_get_message(inspector));
    /* The world's own properties are edited there too (its row id is 0). */
    gboolean written = allium_inspector_edit(inspector, "message", edited);
    check(t, written && !*allium_inspector_get_message(inspector),
          "the world's message is written from the panel (\"%s\")",
          allium_inspector_get_message(inspector));
    if (!written) return TRUE;
    t->edits++;
    return FALSE;
}

/* An entity of a class no entity definition names: a warning among the compile panel's
 * problems, naming the class. The addition is undone (and compiled) before the next step. */
gboolean step_unknown_class(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumCompilePanel *panel = t->window->compile_panel;
    if (!t->step_begun) {
        GError *error = NULL;
        const double at[3] = {0, 0, 64};
        gboolean added =
            allium_document_add_point_entity(doc, "monster_nonesuch", at, NULL, &error);
        check(t, added, "an entity of an unknown class was added (%s)",
              error ? error->message : "");
        g_clear_error(&error);
        t->walk_phase = 0;
        return !added;
    }
    if (!compiled_current(t->window)) return FALSE;
    AlliumSnapshot *snap = current(t);
    int warned = 0;
    for (size_t i = 0; i < snap->diags.count; i++)
        warned += snap->diags.items[i].severity == AL_SEVERITY_WARNING &&
                  strstr(snap->diags.items[i].message, "'monster_nonesuch'") != NULL;
    int errors, warnings;
    allium_snapshot_count_diags(snap, &errors, &warnings);
    if (t->walk_phase == 0) {
        check(t, warned == 1 && allium_compile_panel_problem_count(panel) == errors + warnings,
              "the problems list warns of the class no definition names (%d warnings of it, "
              "%d problems listed)",
              warned, allium_compile_panel_problem_count(panel));
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        t->walk_phase = 1;
        return FALSE;
    }
    if (warned) return FALSE; /* the undo has not compiled yet */
    check(t, TRUE, "undone, the warning is gone");
    return TRUE;
}

/* The compile panel: its problems, and radiosity reset, stepped and run by its buttons. */
gboolean step_compile_panel(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumCompilePanel *panel = t->window->compile_panel;
    AlliumLightmap *lm = allium_document_get_lightmap(doc);
    if (!t->step_begun) {
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "compile");
        int errors, warnings;
        allium_snapshot_count_diags(current(t), &errors, &warnings);
        check(t, allium_compile_panel_problem_count(panel) == errors + warnings,
              "the panel lists the %d problems of the compile",
              allium_compile_panel_problem_count(panel));
        allium_document_light_reset(doc);
        t->walk_phase = 0;
        return FALSE;
    }
    if (allium_document_get_lighting(doc) || !lm) return FALSE;
    if (t->walk_phase == 0) {
        check(t, lm->stats.shots == 0 && lm->stats.residual == 1.0,
              "Reset: no shot, residual 100%% (%" G_GINT64_FORMAT " shots, %.3f)",
              (gint64) lm->stats.shots, lm->stats.residual);
        allium_document_light_step(doc, 10);
        t->walk_phase = 1;
        return FALSE;
    }
    if (t->walk_phase == 1) {
        if (lm->stats.shots == 0) return FALSE;
        check(t, lm->stats.shots == 10 && allium_document_get_light_paused(doc),
              "Step 10: ten shots, then paused (%" G_GINT64_FORMAT ", \"%s\")",
              (gint64) lm->stats.shots, allium_compile_panel_get_light_text(panel));
        guint n;
        allium_document_get_residuals(doc, &n);
        check(t, n >= 2, "the plot has the reset and the step (%u points)", n);
        allium_document_light_run(doc);
        t->walk_phase = 2;
        return FALSE;
    }
    if (lm->stats.residual > allium_document_get_light_target(doc) && !lm->stats.converged)
        return FALSE;
    if (!settle(t)) return FALSE;
    check(t, g_str_has_prefix(allium_compile_panel_get_light_text(panel), "done"),
          "Run went on to the target: \"%s\"", allium_compile_panel_get_light_text(panel));
    shoot_and_compare(t, "compile-panel.png", NULL);
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    return TRUE;
}

gboolean step_undo_editing(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        for (int i = 0; i < t->edits; i++)
            gtk_widget_activate_action(GTK_WIDGET(t->window), "win.undo", NULL);
        check(t, !allium_document_can_undo(doc), "undoing the %d editing steps leaves no history",
              t->edits);
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    double mins[3] = {0}, maxs[3] = {0};
    check(t, brush_count(t) == t->brushes_before && !row_bounds(t, t->box_row, mins, maxs),
          "the map is back to its %d brushes", t->brushes_before);
    return TRUE;
}
