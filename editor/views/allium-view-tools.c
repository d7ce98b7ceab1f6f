/* The editing tools of a view: what a left drag does when it is not an orbit.
 *
 * Select tool: a drag that starts on something selected (in a 2D view: within a selected
 * item's outline) moves the selection (2D views in their plane, the 3D view horizontally,
 * at the height where the drag began), by whole
 * grid steps; a drag that starts anywhere else in a 2D view draws a rectangle and selects
 * the brushes and entities inside it (Shift: adds them). A drag that starts on a resize
 * handle (2D: the corners and side middles of the selection's bounds; 3D: the middles of
 * its faces, or Shift on any face of it) pulls those sides by whole grid steps, scaling
 * the selection as one; in a 2D view a press inside a selection so small on the screen that
 * the handles' reach covers most of it moves it instead (its handles are taken from just
 * outside it, or on its edge). Ctrl + drag that starts within the selection in a 2D view turns
 * it about the middle of its bounds, in the view's plane, by whole steps of the rotation
 * snap (Shift held: any angle). Brush tool: a drag in a 2D view draws a box on the grid,
 * as deep as the selected brush (the one drawn last) or eight grid steps; in the 3D view
 * it draws the box on the surface where the drag began and raises it by that depth.
 * Entity tool: a click (or a drag, to aim) places a point entity of the chosen class on
 * the grid, off the surface under the pointer in 3D, standing on the first surface below
 * the pointer's column in 2D (a box sweep through the compiled world, so never inside a
 * brush). Releasing commits one undoable edit;
 * until the compile of it arrives, the guides keep showing where things went.
 *
 * While dragging, every view of the window shows the tool's guides (AlliumSelection), and
 * this view's header shows the move, the angle or the box's size.
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "allium-entity-definitions.h"
#include "allium-format.h"
#include "allium-preferences.h"

#include "al-epsilon.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Guides beyond this many points are replaced by the selection's box. */
#define MAX_GUIDE_POINTS 200000
/* A new box's depth when nothing is selected, in grid steps. */
#define DEFAULT_DEPTH_STEPS 8

/* --- static helpers ------------------------------------------------------------------ */

static double grid_size(void)
{
    return allium_preferences_get_grid_size(allium_preferences_get_default());
}

/* Where the ray through widget point (X, Y) meets the plane of AXIS at coordinate AT. */
static gboolean point_on_plane(AlliumView *self, double x, double y, int axis, double at,
                               double out[3])
{
    double scale = allium_view_scale(self), origin[3], dir[3];
    al_camera_ray(&self->camera, x * scale, y * scale, origin, dir);
    if (fabs(dir[axis]) < 1e-9) return FALSE;
    double t = (at - origin[axis]) / dir[axis];
    if (!(t >= 0) || !isfinite(t)) return FALSE;
    for (int k = 0; k < 3; k++) out[k] = origin[k] + t * dir[k];
    out[axis] = at;
    return TRUE;
}

/* The axis a 2D view looks along; in the 3D view, the drag plane's. */
static int depth_axis(AlliumView *self)
{
    if (self->kind == AL_VIEW_3D) return self->edit_axis;
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    return d;
}

/* What the header shows while dragging ("" when done). */
static void set_tool_info(AlliumView *self, const char *text)
{
    g_strlcpy(self->tool_info, text, sizeof self->tool_info);
    const char *end; /* a text cut in the middle of a character ends before it */
    if (!g_utf8_validate(self->tool_info, -1, &end)) self->tool_info[end - self->tool_info] = '\0';
    allium_view_queue_render(self);
}

static void add_segment(GArray *points, const double a[3], const double b[3])
{
    g_array_append_vals(points, a, 1);
    g_array_append_vals(points, b, 1);
}

static void add_box_edges(GArray *points, const double lo[3], const double hi[3],
                          const double offset[3])
{
    double edges[24][3];
    al_box_edge_points(lo, hi, edges);
    for (int i = 0; i < 24; i++) {
        for (int k = 0; k < 3; k++) edges[i][k] += offset[k];
        g_array_append_vals(points, edges[i], 1);
    }
}

/* The axis along which N points most. */
static int dominant_axis(const double n[3])
{
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(n[k]) > fabs(n[a])) a = k;
    return a;
}

/* P under the affine map M (rows of a 3x4 matrix). */
static void apply_matrix(const double m[3][4], const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];
}

static void add_mapped_box_edges(GArray *points, const double lo[3], const double hi[3],
                                 const double m[3][4])
{
    double edges[24][3], q[3];
    al_box_edge_points(lo, hi, edges);
    for (int i = 0; i < 24; i++) {
        apply_matrix(m, edges[i], q);
        g_array_append_vals(points, q, 1);
    }
}

/* The outlines of the selection under the affine map M (a move, a turn): every polygon
 * edge of the selected brushes, and the boxes of the selected entities (the selection's
 * box when that is too much to draw each frame). */
static void selection_guides(AlliumView *self, const double m[3][4], GArray *points)
{
    /* While a drag previews, the current snapshot shows the selection moved already: the
     * guides are made from the snapshot the drag started on. */
    AlliumSnapshot *snap = self->drag_snapshot ? self->drag_snapshot : allium_view_get_snapshot(self);
    if (!snap || !snap->scene || !self->selection) return;
    guint count;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
    for (guint i = 0; i < count && points->len < MAX_GUIDE_POINTS; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        for (int f = 0; f < al_scene_brush_face_count(snap->scene, b); f++) {
            int n;
            const double (*poly)[3] = al_scene_brush_face(snap->scene, b, f, &n, NULL);
            for (int k = 0; k < n; k++) {
                double a[3], z[3];
                apply_matrix(m, poly[k], a);
                apply_matrix(m, poly[(k + 1) % n], z);
                add_segment(points, a, z);
            }
        }
    }
    rows = allium_selection_get_entities(self->selection, &count);
    for (guint i = 0; i < count; i++) {
        double lo[3], hi[3];
        int e = allium_snapshot_entity_index(snap, rows[i]);
        if (e >= 0 && al_scene_entity_bounds(snap->scene, e, lo, hi))
            add_mapped_box_edges(points, lo, hi, m);
    }
    if (points->len >= MAX_GUIDE_POINTS) {
        double lo[3], hi[3];
        g_array_set_size(points, 0);
        if (allium_view_selection_bounds(self, FALSE, lo, hi))
            add_mapped_box_edges(points, lo, hi, m);
    }
}

static void publish_guides(AlliumView *self, GArray *points, guint64 until)
{
    if (self->selection)
        allium_selection_set_guides(self->selection, (const double(*)[3]) (gpointer) points->data,
                                    points->len, until);
}

static void clear_guides(AlliumView *self)
{
    if (self->selection) allium_selection_set_guides(self->selection, NULL, 0, 0);
}

/* Whether the pick is something selected. */
static gboolean pick_is_selected(AlliumView *self, const AlliumSnapshot *snap, const al_pick *pick)
{
    if (!self->selection) return FALSE;
    if (pick->kind == AL_PICK_FACE && snap->input.brush_ids)
        return allium_selection_has_brush(self->selection, snap->input.brush_ids[pick->brush]);
    if (pick->kind == AL_PICK_ENTITY && snap->input.entity_ids)
        return allium_selection_has_entity(self->selection, snap->input.entity_ids[pick->entity]);
    return FALSE;
}

/* Whether POINT lies, on a 2D view's two axes, within the bounds of a selected brush or
 * entity: there a drag moves the selection (whatever covers it seen from above). */
typedef struct {
    int r, u;
    const double *point;
} PointOnAxes;

static gboolean covers_point(const double lo[3], const double hi[3], gpointer data)
{
    const PointOnAxes *p = data;
    return p->point[p->r] >= lo[p->r] && p->point[p->r] <= hi[p->r] &&
           p->point[p->u] >= lo[p->u] && p->point[p->u] <= hi[p->u];
}

static gboolean in_selection_2d(AlliumView *self, const double point[3])
{
    int d;
    PointOnAxes p = {.point = point};
    al_view_axes(self->kind, &p.r, &p.u, &d);
    return allium_view_foreach_selected_bounds(self, covers_point, &p);
}

/* The depth range of a new box along AXIS: the selected brush's, or DEFAULT_DEPTH_STEPS
 * grid steps up from FLOOR. In a 2D view a box that would hold the 3D camera (its other
 * axes already in edit_mins and edit_maxs) goes under it instead, its top at FLOOR: the
 * camera stands over a floor drawn under it rather than inside it. */
static void box_depth(AlliumView *self, int axis, double floor_at, double sign, double *lo,
                      double *hi)
{
    double mins[3], maxs[3];
    double depth = DEFAULT_DEPTH_STEPS * grid_size();
    gboolean selected = self->selection && allium_view_selection_bounds(self, FALSE, mins, maxs);
    if (self->kind != AL_VIEW_3D) {
        if (selected) {
            *lo = mins[axis];
            *hi = maxs[axis];
            return;
        }
        *lo = floor_at;
        *hi = floor_at + depth;
        gboolean holds_eye = self->has_eye && self->eye[axis] >= *lo && self->eye[axis] <= *hi;
        for (int k = 0; k < 3 && holds_eye; k++)
            if (k != axis)
                holds_eye =
                    self->eye[k] >= self->edit_mins[k] && self->eye[k] <= self->edit_maxs[k];
        if (holds_eye) {
            *lo = floor_at - depth;
            *hi = floor_at;
        }
        return;
    }
    if (selected && maxs[axis] > mins[axis]) depth = maxs[axis] - mins[axis];
    *lo = sign > 0 ? floor_at : floor_at - depth;
    *hi = sign > 0 ? floor_at + depth : floor_at;
}

/* The material of a new brush: the texture browser's current one, else the selected
 * brush's first face's, or the map's first. */
static const char *new_brush_material(AlliumView *self)
{
    return allium_view_get_new_material(self);
}

const char *allium_view_get_new_material(AlliumView *self)
{
    const char *current =
        self->document ? allium_document_get_current_material(self->document) : NULL;
    if (current) return current;
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap) return "wall";
    const al_input *in = &snap->input.input;
    if (self->selection) {
        guint count;
        const gint64 *rows = allium_selection_get_brushes(self->selection, &count);
        for (guint i = count; i-- > 0;) {
            int b = allium_snapshot_brush_index(snap, rows[i]);
            if (b >= 0 && in->brushes[b].face_count > 0) {
                int m = in->faces[in->brushes[b].first_face].material;
                if (m >= 0 && m < in->material_count) return in->materials[m].name;
            }
        }
    }
    return in->material_count > 0 ? in->materials[0].name : "wall";
}

static void report_error(AlliumView *self, GError *error)
{
    allium_view_emit_edit_error(self, error->message);
    g_error_free(error);
}

/* The box of the entity tool's class about its origin: its definition's size, else 16
 * units on a side. */
static void entity_box(AlliumView *self, double mins[3], double maxs[3])
{
    al_entity_look look;
    g_autoptr(AlliumDefinitionSet) set =
        self->document ? allium_document_dup_definitions(self->document) : NULL;
    const al_entdefs none = {0};
    allium_entity_definitions_look(set ? &set->defs : &none, self->entity_class, &look);
    for (int k = 0; k < 3; k++) {
        mins[k] = look.has_box ? look.mins[k] : -8;
        maxs[k] = look.has_box ? look.maxs[k] : 8;
    }
}

/* Stands the entity tool's box at OUT (x and y as given) on the first surface below it in
 * the compiled world, never inside a brush: swept down from OUT's height, or from above
 * the world when that height is inside a brush. FALSE, OUT unchanged, when there is no
 * world or nothing below. */
static gboolean entity_on_surface(AlliumView *self, double out[3])
{
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !snap->world) return FALSE;
    double mins[3], maxs[3], lo[3], hi[3];
    entity_box(self, mins, maxs);
    al_world_bounds(snap->world, lo, hi);
    double above = hi[2] - mins[2] + 1, below = lo[2] - maxs[2] - 1;
    al_trace t;
    for (int pass = 0; pass < 2; pass++) {
        double start[3] = {out[0], out[1], pass == 0 ? out[2] : above};
        double end[3] = {out[0], out[1], below};
        if (start[2] <= end[2]) continue;
        al_world_trace_box(snap->world, mins, maxs, start, end, &t);
        if (t.start_solid || t.all_solid) continue;
        if (!t.hit) return FALSE;
        /* On the surface: the contact height, whole when the skin is all that differs. */
        double z = round(t.contact[2]);
        out[2] = fabs(z - t.contact[2]) <= AL_TRACE_SKIN ? z : t.end[2];
        return TRUE;
    }
    return FALSE;
}

/* Where the entity tool would place an entity for widget point (X, Y): in the 3D view
 * off the surface under the pointer (ENTITY_LIFT units, on the grid across it); in a 2D
 * view on the grid, standing on the first surface below the pointer's column, looked for
 * from the pointer's height in a front or side view and, in a top view, from the
 * selection's depth or the 3D camera's (entity_on_surface); with nothing below, at that
 * height. */
#define ENTITY_LIFT 24.0
static gboolean entity_point(AlliumView *self, double x, double y, double out[3])
{
    double grid = grid_size();
    if (self->kind == AL_VIEW_3D) {
        al_pick pick;
        if (!allium_view_pick_at(self, x, y, &pick)) return FALSE;
        int a = dominant_axis(pick.normal);
        for (int k = 0; k < 3; k++) out[k] = al_snap(pick.point[k], grid);
        out[a] = al_snap(pick.point[a], grid) + (pick.normal[a] >= 0 ? ENTITY_LIFT : -ENTITY_LIFT);
        return TRUE;
    }
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    if (!point_on_plane(self, x, y, d, self->camera.position[d], out)) return FALSE;
    out[r] = al_snap(out[r], grid);
    out[u] = al_snap(out[u], grid);
    double mins[3], maxs[3];
    if (allium_view_selection_bounds(self, FALSE, mins, maxs))
        out[d] = al_snap(0.5 * (mins[d] + maxs[d]), grid);
    else
        out[d] = self->has_eye ? al_snap(self->eye[d], grid) : 0;
    if (self->entity_class) entity_on_surface(self, out);
    return TRUE;
}

static void update_entity(AlliumView *self, double x, double y)
{
    if (!entity_point(self, x, y, self->edit_from)) return;
    double lo[3], hi[3];
    entity_box(self, lo, hi);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    add_box_edges(points, lo, hi, self->edit_from);
    publish_guides(self, points, 0);
    g_autofree char *text = g_strdup_printf("%s %g %g %g", self->entity_class,
                                            self->edit_from[0], self->edit_from[1],
                                            self->edit_from[2]);
    set_tool_info(self, text);
}

static gboolean commit_entity(AlliumView *self)
{
    GError *error = NULL;
    gint64 row = 0;
    if (!allium_document_add_point_entity(self->document, self->entity_class, self->edit_from,
                                          &row, &error)) {
        clear_guides(self);
        report_error(self, error);
        return FALSE;
    }
    allium_selection_select_entity(self->selection, row, ALLIUM_SELECT_REPLACE);
    guint count;
    const double(*guides)[3] = allium_selection_get_guides(self->selection, &count);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    g_array_append_vals(points, guides, count);
    publish_guides(self, points, allium_document_get_generation(self->document));
    return TRUE;
}

gboolean allium_view_place_entity(AlliumView *self, const char *classname, double x, double y)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    if (!self->document || !self->selection || !classname || !*classname) return FALSE;
    g_free(self->entity_class);
    self->entity_class = g_strdup(classname);
    if (!entity_point(self, x, y, self->edit_from)) return FALSE;
    return commit_entity(self);
}

gboolean allium_view_apply_material(AlliumView *self, const char *material, double x, double y)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    al_pick pick;
    if (!self->document || !material || !*material || !snap ||
        !allium_view_pick_at(self, x, y, &pick) || pick.kind != AL_PICK_FACE || pick.brush < 0)
        return FALSE;
    gint64 brush = snap->input.brush_ids[pick.brush];
    AlliumFaceRef face = {brush, pick.face};
    gboolean whole = self->kind != AL_VIEW_3D;
    GError *error = NULL;
    gboolean ok =
        allium_document_apply_material(self->document, material, whole ? &brush : NULL,
                                       whole ? 1 : 0, whole ? NULL : &face, whole ? 0 : 1, &error);
    if (ok) {
        allium_document_set_current_material(self->document, material);
    } else {
        g_signal_emit_by_name(self, "edit-error", error->message);
        g_clear_error(&error);
    }
    return ok;
}

/* --- the drags ------------------------------------------------------------------------ */

/* The guides of the box or bounds being drawn or resized (edit_mins, edit_maxs), kept
 * until generation UNTIL (publish_guides). */
static void publish_edit_box(AlliumView *self, guint64 until)
{
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    static const double none[3] = {0, 0, 0};
    add_box_edges(points, self->edit_mins, self->edit_maxs, none);
    publish_guides(self, points, until);
}

/* While dragging: the box's guides, and its size in the header ("Box" for a new brush,
 * "Resize to" for the selection's new bounds). */
static void show_edit_box(AlliumView *self, gboolean resizing)
{
    publish_edit_box(self, 0);
    double w = self->edit_maxs[0] - self->edit_mins[0], d = self->edit_maxs[1] - self->edit_mins[1],
           h = self->edit_maxs[2] - self->edit_mins[2];
    g_autofree char *text = resizing ? g_strdup_printf(_("Resize to %g × %g × %g"), w, d, h)
                                     : g_strdup_printf(_("Box %g × %g × %g"), w, d, h);
    set_tool_info(self, text);
}

/* Shows the selection under the affine map M in the compiled map while the drag goes on
 * (the engine compiles the preview; nothing is written), unless that is what it shows. */
static void preview(AlliumView *self, const double m[3][4])
{
    if (self->previewing && memcmp(self->preview_matrix, m, sizeof self->preview_matrix) == 0)
        return;
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    allium_document_preview_transform(self->document, brushes, nb, entities, ne, m);
    memcpy(self->preview_matrix, m, sizeof self->preview_matrix);
    self->previewing = TRUE;
}

/* The drag is over without an edit: the compiled map shows the document again. */
static void end_preview(AlliumView *self)
{
    if (!self->previewing) return;
    self->previewing = FALSE;
    if (self->document) allium_document_preview_end(self->document);
}

static void update_move(AlliumView *self, const double point[3])
{
    double grid = grid_size();
    int axis = depth_axis(self);
    for (int k = 0; k < 3; k++)
        self->edit_delta[k] =
            al_snap(k == axis ? self->edit_rise : point[k] - self->edit_from[k], grid);
    const double *d = self->edit_delta;
    const double m[3][4] = {{1, 0, 0, d[0]}, {0, 1, 0, d[1]}, {0, 0, 1, d[2]}};
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    selection_guides(self, m, points);
    publish_guides(self, points, 0);
    char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
    g_autofree char *text =
        g_strdup_printf(_("Move %s %s %s"), allium_format_short(x, self->edit_delta[0], 2),
                        allium_format_short(y, self->edit_delta[1], 2),
                        allium_format_short(z, self->edit_delta[2], 2));
    set_tool_info(self, text);
    preview(self, m);
}

static void update_box(AlliumView *self, const double point[3])
{
    double grid = grid_size();
    int axis = depth_axis(self);
    for (int k = 0; k < 3; k++) {
        if (k == axis) continue;
        double a = al_snap(self->edit_from[k], grid), b = al_snap(point[k], grid);
        self->edit_mins[k] = MIN(a, b);
        self->edit_maxs[k] = MAX(a, b);
    }
    box_depth(self, axis, self->edit_plane, self->edit_sign, &self->edit_mins[axis],
              &self->edit_maxs[axis]);
    show_edit_box(self, FALSE);
}

static void update_band(AlliumView *self, const double point[3])
{
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    for (int k = 0; k < 3; k++) {
        self->edit_mins[k] = MIN(self->edit_from[k], point[k]);
        self->edit_maxs[k] = MAX(self->edit_from[k], point[k]);
    }
    double corners[4][3];
    for (int c = 0; c < 4; c++) {
        corners[c][r] = (c == 1 || c == 2) ? self->edit_maxs[r] : self->edit_mins[r];
        corners[c][u] = c >= 2 ? self->edit_maxs[u] : self->edit_mins[u];
        corners[c][d] = self->camera.position[d];
    }
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    for (int c = 0; c < 4; c++) add_segment(points, corners[c], corners[(c + 1) % 4]);
    publish_guides(self, points, 0);
}

static void commit_move(AlliumView *self)
{
    if (self->edit_delta[0] == 0 && self->edit_delta[1] == 0 && self->edit_delta[2] == 0) {
        clear_guides(self);
        end_preview(self);
        return;
    }
    /* The edit replaces the preview (the document hands the engine both at once). */
    self->previewing = FALSE;
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    GError *error = NULL;
    if (!allium_document_move(self->document, brushes, nb, entities, ne, self->edit_delta,
                              &error)) {
        clear_guides(self);
        allium_document_preview_end(self->document);
        report_error(self, error);
        return;
    }
    /* The guides stay where the selection went until its compile arrives. */
    guint count;
    const double(*guides)[3] = allium_selection_get_guides(self->selection, &count);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    g_array_append_vals(points, guides, count);
    publish_guides(self, points, allium_document_get_generation(self->document));
}

static void commit_box(AlliumView *self)
{

    for (int k = 0; k < 3; k++) {
        if (!(self->edit_maxs[k] > self->edit_mins[k])) {
            clear_guides(self); /* flat: a click, not a box */
            return;
        }
    }
    GError *error = NULL;
    gint64 row = 0;
    if (!allium_document_add_box(self->document, self->edit_mins, self->edit_maxs,
                                 new_brush_material(self), &row, &error)) {
        clear_guides(self);
        report_error(self, error);
        return;
    }
    allium_selection_select_brush(self->selection, row, ALLIUM_SELECT_REPLACE);
    publish_edit_box(self, allium_document_get_generation(self->document));
}

static void commit_band(AlliumView *self)
{
    clear_guides(self);
    if (self->tool == ALLIUM_TOOL_VERTEX) {
        allium_view_vertex_select_box(self, self->edit_mins, self->edit_maxs, self->edit_add);
        return;
    }
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !snap->scene) return;
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    /* Inside: the bounds lie within the rectangle on the view's two axes. */
#define INSIDE(lo, hi)                                                                          \
    ((lo)[r] >= self->edit_mins[r] && (hi)[r] <= self->edit_maxs[r] &&                         \
     (lo)[u] >= self->edit_mins[u] && (hi)[u] <= self->edit_maxs[u])
    g_autoptr(GArray) brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    for (int b = 0; b < snap->input.input.brush_count && snap->input.brush_ids; b++) {
        double lo[3], hi[3];
        if (al_scene_brush_bounds(snap->scene, b, lo, hi) && INSIDE(lo, hi) &&
            allium_selection_is_pickable(self->selection, snap->input.brush_ids[b]))
            g_array_append_val(brushes, snap->input.brush_ids[b]);
    }
    AlliumSelectMode mode = self->edit_add ? ALLIUM_SELECT_TOGGLE : ALLIUM_SELECT_REPLACE;
    allium_selection_select_brushes(self->selection, (const gint64 *) (gpointer) brushes->data,
                                    brushes->len, mode);
    for (int e = 1; e < snap->input.input.entity_count && snap->input.entity_ids; e++) {
        double lo[3], hi[3];
        gint64 row = snap->input.entity_ids[e];
        if (al_scene_entity_bounds(snap->scene, e, lo, hi) && INSIDE(lo, hi) &&
            !allium_selection_has_entity(self->selection, row) &&
            allium_selection_is_entity_pickable(self->selection, row))
            allium_selection_select_entity(self->selection, row, ALLIUM_SELECT_TOGGLE);
    }
#undef INSIDE
}

/* --- resizing ------------------------------------------------------------------------ */

/* The bounds the resize handles sit on: the selection's, with the Select tool, when
 * brushes are selected in a document that may be edited. */
static gboolean handle_bounds(AlliumView *self, double lo[3], double hi[3])
{
    if (self->tool != ALLIUM_TOOL_SELECT || !self->selection ||
        !self->document || allium_document_get_read_only(self->document) || self->walker)
        return FALSE;
    guint brushes;
    allium_selection_get_brushes(self->selection, &brushes);
    return brushes > 0 && allium_view_selection_bounds(self, FALSE, lo, hi);
}

/* Handles of a 2D view: the corners and the middles of the sides of the bounds on its two
 * axes; of the 3D view: the middle of each face of the bounds. */
static int handle_count(AlliumView *self)
{
    return self->kind == AL_VIEW_3D ? 6 : 8;
}

/* Handle H: its point in P and the sides of the bounds it pulls in SIDE. */
static void handle_point(AlliumView *self, const double lo[3], const double hi[3], int h,
                         double p[3], int side[3])
{
    static const int sides[8][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0},
                                    {1, 0},   {-1, 1}, {0, 1},  {1, 1}};
    if (self->kind == AL_VIEW_3D) {
        for (int k = 0; k < 3; k++) {
            side[k] = k == h / 2 ? (h % 2 ? 1 : -1) : 0;
            p[k] = side[k] < 0 ? lo[k] : side[k] > 0 ? hi[k] : 0.5 * (lo[k] + hi[k]);
        }
        return;
    }
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    side[r] = sides[h][0];
    side[u] = sides[h][1];
    side[d] = 0;
    for (int k = 0; k < 3; k++)
        p[k] = side[k] < 0 ? lo[k] : side[k] > 0 ? hi[k] : 0.5 * (lo[k] + hi[k]);
    p[d] = self->camera.position[d];
}

/* The handle under widget point (X, Y), with the sides it pulls; -1 none. Of handles
 * within reach (on a small selection, several are) the nearest. */
static int handle_at(AlliumView *self, double x, double y, int side[3])
{
    double lo[3], hi[3], p[3], scale = allium_view_scale(self);
    if (!handle_bounds(self, lo, hi)) return -1;
    int best = -1;
    double best_d2 = INFINITY;
    for (int h = 0; h < handle_count(self); h++) {
        double px, py;
        handle_point(self, lo, hi, h, p, side);
        if (!al_camera_project(&self->camera, p, &px, &py)) continue;
        double dx = px / scale - x, dy = py / scale - y;
        if (fabs(dx) <= HANDLE_REACH && fabs(dy) <= HANDLE_REACH && dx * dx + dy * dy < best_d2) {
            best = h;
            best_d2 = dx * dx + dy * dy;
        }
    }
    if (best >= 0) handle_point(self, lo, hi, best, p, side);
    return best;
}

/* The part of a side L pixels long, in pixels, within HANDLE_REACH of its ends and middle
 * (ALONG), and the part only the middle reaches (MIDDLE_ONLY). */
static void handle_cover(double length, double *along, double *middle_only)
{
    const double reach = HANDLE_REACH;
    double a1 = MIN(reach, length); /* [0, a1] */
    double b0 = MAX(0, 0.5 * length - reach), b1 = MIN(length, 0.5 * length + reach);
    double c0 = MAX(0, length - reach); /* [c0, L] */
    /* The three intervals start in order: their union is a sweep. */
    double covered = a1, end = a1;
    if (b1 > end) covered += b1 - MAX(b0, end), end = b1;
    if (length > end) covered += length - MAX(c0, end);
    *along = covered;
    *middle_only = MAX(0, MIN(b1, c0) - MAX(b0, a1));
}

/* 2D: whether widget point (X, Y) lies inside the selection's bounds (by more than half a
 * pixel, so a press on the very edge still takes its handle) while the handles' reach
 * covers most of that rectangle on the screen: then a press there means to move the brush,
 * and the handles are still within reach from outside it. */
static gboolean inside_small_selection(AlliumView *self, double x, double y)
{
    double lo[3], hi[3], scale = allium_view_scale(self);
    if (self->kind == AL_VIEW_3D || !handle_bounds(self, lo, hi)) return FALSE;
    double x0, y0, x1, y1;
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    lo[d] = hi[d] = self->camera.position[d];
    if (!al_camera_project(&self->camera, lo, &x0, &y0) ||
        !al_camera_project(&self->camera, hi, &x1, &y1))
        return FALSE;
    double left = MIN(x0, x1) / scale, right = MAX(x0, x1) / scale;
    double top = MIN(y0, y1) / scale, bottom = MAX(y0, y1) / scale;
    if (x <= left + 0.5 || x >= right - 0.5 || y <= top + 0.5 || y >= bottom - 0.5) return FALSE;
    return allium_view_handles_cover_most(right - left, bottom - top);
}

/* 3D: the axis the plane of a drag along axis A is perpendicular to: of the two others, the
 * one the camera looks along most, so that the plane faces the camera. */
static int drag_plane_axis(AlliumView *self, int a)
{
    double f[3], r[3], u[3];
    al_camera_basis(&self->camera, f, r, u);
    int b = (a + 1) % 3, c = (a + 2) % 3;
    return fabs(f[b]) >= fabs(f[c]) ? b : c;
}

/* Starts pulling SIDE of the selection's bounds; the drag plane is already set up. */
static gboolean begin_resize(AlliumView *self, const int side[3])
{
    if (!allium_view_selection_bounds(self, FALSE, self->resize_mins, self->resize_maxs))
        return FALSE;
    memcpy(self->resize_side, side, sizeof self->resize_side);
    memcpy(self->edit_mins, self->resize_mins, sizeof self->edit_mins);
    memcpy(self->edit_maxs, self->resize_maxs, sizeof self->edit_maxs);
    self->edit = EDIT_RESIZE;
    return TRUE;
}

/* The affine map that takes the selection's bounds to the resized ones (edit_mins,
 * edit_maxs): one map for all of it, so brushes keep their places within the whole. False
 * when the bounds are as they were. */
static gboolean resize_matrix(AlliumView *self, double m[3][4])
{
    memset(m, 0, 12 * sizeof(double));
    gboolean same = TRUE;
    for (int k = 0; k < 3; k++) {
        double lo = self->resize_mins[k], size = self->resize_maxs[k] - lo;
        double s = size > 0 ? (self->edit_maxs[k] - self->edit_mins[k]) / size : 1;
        m[k][k] = s;
        m[k][3] = self->edit_mins[k] - lo * s;
        same = same && self->edit_mins[k] == lo && self->edit_maxs[k] == self->resize_maxs[k];
    }
    return !same;
}

static void update_resize(AlliumView *self, const double point[3])
{
    double grid = grid_size();
    for (int k = 0; k < 3; k++) {
        double lo = self->resize_mins[k], hi = self->resize_maxs[k];
        double step = al_snap(point[k] - self->edit_from[k], grid);
        /* A side stops a grid step short of the other (or at the size it had, if less). */
        double least = MIN(grid, hi - lo);
        if (self->resize_side[k] < 0) lo = MIN(lo + step, hi - least);
        else if (self->resize_side[k] > 0) hi = MAX(hi + step, lo + least);
        self->edit_mins[k] = lo;
        self->edit_maxs[k] = hi;
    }
    show_edit_box(self, TRUE);
    double m[3][4];
    if (resize_matrix(self, m)) preview(self, (const double(*)[4]) m);
    else end_preview(self);
}

/* Scales and moves the selection so that its bounds become the new ones: one affine map
 * for all of it, so brushes keep their places within the whole. */
static void commit_resize(AlliumView *self)
{
    double m[3][4];
    if (!resize_matrix(self, m)) {
        clear_guides(self);
        end_preview(self);
        return;
    }
    /* Refused here with the limit, as the document would refuse it without saying which. */
    for (int k = 0; k < 3; k++)
        if (fabs(self->edit_mins[k]) > AL_COORD_MAX || fabs(self->edit_maxs[k]) > AL_COORD_MAX) {
            clear_guides(self);
            end_preview(self);
            g_autofree char *text = g_strdup_printf(
                _("Resize: the selection would reach %s = %g, beyond the map's limit of ±%g "
                  "units"),
                k == 0   ? "x"
                : k == 1 ? "y"
                         : "z",
                fabs(self->edit_mins[k]) > AL_COORD_MAX ? self->edit_mins[k] : self->edit_maxs[k],
                AL_COORD_MAX);
            allium_view_emit_edit_error(self, text);
            return;
        }
    self->previewing = FALSE;
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    GError *error = NULL;
    if (!allium_document_transform(self->document, brushes, nb, entities, ne,
                                   (const double(*)[4]) m, "Resize", &error)) {
        clear_guides(self);
        allium_document_preview_end(self->document);
        report_error(self, error);
        return;
    }
    publish_edit_box(self, allium_document_get_generation(self->document));
}

/* --- the rotate drag --------------------------------------------------------------------- */

/* The pointer's angle about the rotation centre in the plane of the view's depth axis D,
 * measured from axis D + 1 towards D + 2 (as al_doc_rotation_matrix turns about D). */
static double rotate_angle_of(AlliumView *self, const double point[3])
{
    int d = self->edit_axis, u = (d + 1) % 3, v = (d + 2) % 3;
    return atan2(point[v] - self->rotate_centre[v], point[u] - self->rotate_centre[u]);
}

/* The rotation centre under the pointer at POINT: the view's two axes on the grid, the
 * depth of the centre placed before, else of the selection's middle. */
static void update_pivot(AlliumView *self, const double point[3])
{
    double mins[3], maxs[3], pivot[3];
    if (!allium_selection_get_pivot(self->selection, pivot)) {
        if (!allium_view_selection_bounds(self, FALSE, mins, maxs)) return;
        for (int k = 0; k < 3; k++) pivot[k] = 0.5 * (mins[k] + maxs[k]);
    }
    int d = self->edit_axis;
    for (int k = 0; k < 3; k++)
        if (k != d) pivot[k] = al_snap(point[k], grid_size());
    allium_selection_set_pivot(self->selection, pivot);
    char a[ALLIUM_NUMBER_SIZE], b[ALLIUM_NUMBER_SIZE], c[ALLIUM_NUMBER_SIZE];
    g_autofree char *text =
        g_strdup_printf(_("Rotation centre %s %s %s"), allium_format_short(a, pivot[0], 2),
                        allium_format_short(b, pivot[1], 2), allium_format_short(c, pivot[2], 2));
    set_tool_info(self, text);
}

static gboolean begin_rotate(AlliumView *self)
{
    double mins[3], maxs[3];
    if (!allium_view_selection_bounds(self, FALSE, mins, maxs)) return FALSE;
    if (!allium_selection_get_pivot(self->selection, self->rotate_centre))
        for (int k = 0; k < 3; k++) self->rotate_centre[k] = 0.5 * (mins[k] + maxs[k]);
    self->rotate_start = rotate_angle_of(self, self->edit_from);
    self->rotate_degrees = 0;
    self->edit = EDIT_ROTATE;
    return TRUE;
}

/* The turn for the pointer at POINT: the angle it swept about the centre, in whole steps
 * of the preferences' rotation snap unless Shift is held. The pointer on the centre keeps
 * the last turn (no angle is defined there). */
static void update_rotate(AlliumView *self, const double point[3])
{
    int d = self->edit_axis, u = (d + 1) % 3, v = (d + 2) % 3;
    double du = point[u] - self->rotate_centre[u], dv = point[v] - self->rotate_centre[v];
    if (hypot(du, dv) > 1e-6) {
        double degrees = (rotate_angle_of(self, point) - self->rotate_start) * (180 / G_PI);
        degrees = fmod(degrees + 540, 360) - 180; /* (-180, 180] */
        if (!(self->drag_state & GDK_SHIFT_MASK)) {
            double snap = allium_preferences_get_rotation_snap(allium_preferences_get_default());
            degrees = snap * round(degrees / snap);
        }
        if (degrees <= -180) degrees += 360;
        self->rotate_degrees = degrees == 0 ? 0 : degrees; /* not -0 */
    }
    double m[3][4];
    al_doc_rotation_matrix(d, self->rotate_degrees, self->rotate_centre, m);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    selection_guides(self, (const double(*)[4]) m, points);
    publish_guides(self, points, 0);
    char text_angle[ALLIUM_NUMBER_SIZE];
    g_autofree char *text =
        g_strdup_printf(_("Rotate %s°"), allium_format_short(text_angle, self->rotate_degrees, 2));
    set_tool_info(self, text);
    if (self->rotate_degrees == 0)
        end_preview(self);
    else
        preview(self, (const double(*)[4]) m);
}

/* Applies M to the selection as one undoable step named LABEL (untranslated), in place
 * of the drag's preview. */
static void commit_matrix(AlliumView *self, const double m[3][4], const char *label)
{
    self->previewing = FALSE; /* the edit replaces the preview */
    guint nb, ne;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    const gint64 *entities = allium_selection_get_entities(self->selection, &ne);
    GError *error = NULL;
    if (!allium_document_transform(self->document, brushes, nb, entities, ne, m, label, &error)) {
        clear_guides(self);
        allium_document_preview_end(self->document);
        report_error(self, error);
        return;
    }
    guint count;
    const double (*guides)[3] = allium_selection_get_guides(self->selection, &count);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    g_array_append_vals(points, guides, count);
    publish_guides(self, points, allium_document_get_generation(self->document));
}

/* Turns the selection by the drag's angle: one undoable step. */
static void commit_rotate(AlliumView *self)
{
    if (self->rotate_degrees == 0) {
        clear_guides(self);
        end_preview(self);
        return;
    }
    double m[3][4];
    al_doc_rotation_matrix(self->edit_axis, self->rotate_degrees, self->rotate_centre, m);
    commit_matrix(self, m, N_("Rotate selection"));
}

/* --- the shear drag ----------------------------------------------------------------- */

/* Whether SIDE names one side of a 2D view's bounds (a middle handle), not a corner. */
static gboolean is_side_handle(const int side[3])
{
    return abs(side[0]) + abs(side[1]) + abs(side[2]) == 1;
}

/* Starts an Alt + drag of the side handle SIDE: that side moves along the view's other
 * axis, the opposite side stays (TrenchBroom's shear). */
static gboolean begin_shear(AlliumView *self, const int side[3])
{
    double lo[3], hi[3];
    if (!is_side_handle(side) || !allium_view_selection_bounds(self, FALSE, lo, hi)) return FALSE;
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    int across = side[r] ? r : u;
    double moved = side[across] > 0 ? hi[across] : lo[across];
    self->shear_across = across;
    self->shear_along = across == r ? u : r;
    self->shear_fixed = side[across] > 0 ? lo[across] : hi[across];
    self->shear_size = moved - self->shear_fixed;
    self->shear_delta = 0;
    if (self->shear_size == 0) return FALSE;
    self->edit = EDIT_SHEAR;
    return TRUE;
}

static void shear_matrix(AlliumView *self, double m[3][4])
{
    al_doc_shear_matrix(self->shear_along, self->shear_across, self->shear_delta / self->shear_size,
                        self->shear_fixed, m);
}

/* The dragged side follows the pointer along its own line by whole grid steps. */
static void update_shear(AlliumView *self, const double point[3])
{
    int a = self->shear_along;
    double delta = al_snap(point[a] - self->edit_from[a], grid_size());
    self->shear_delta = delta == 0 ? 0 : delta; /* not -0 */
    double m[3][4];
    shear_matrix(self, m);
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    selection_guides(self, (const double(*)[4]) m, points);
    publish_guides(self, points, 0);
    char text_delta[ALLIUM_NUMBER_SIZE];
    /* TRANSLATORS: "Shear 32 along Y" */
    g_autofree char *text = g_strdup_printf(
        _("Shear %s along %c"), allium_format_short(text_delta, self->shear_delta, 2), 'X' + a);
    set_tool_info(self, text);
    if (self->shear_delta == 0)
        end_preview(self);
    else
        preview(self, (const double(*)[4]) m);
}

/* Shears the selection by the drag: one undoable step. */
static void commit_shear(AlliumView *self)
{
    if (self->shear_delta == 0) {
        clear_guides(self);
        end_preview(self);
        return;
    }
    double m[3][4];
    shear_matrix(self, m);
    commit_matrix(self, m, N_("Shear selection"));
}

/* --- the test-box tool ----------------------------------------------------------------- */

/* The test box under widget point (X, Y): in 3D the nearest one the pointer's ray enters, in
 * 2D one whose outline holds the point; -1 none. */
static int find_test_box(AlliumView *self, double x, double y)
{
    double scale = allium_view_scale(self), origin[3], dir[3];
    al_camera_ray(&self->camera, x * scale, y * scale, origin, dir);
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    int best = -1;
    double best_t = INFINITY;
    for (int i = 0; i < allium_collision_box_count(self->collision); i++) {
        double lo[3], hi[3];
        if (!allium_collision_get_box_bounds(self->collision, i, lo, hi)) continue;
        if (self->kind != AL_VIEW_3D) {
            double p[3];
            if (point_on_plane(self, x, y, d, self->camera.position[d], p) && p[r] >= lo[r] &&
                p[r] <= hi[r] && p[u] >= lo[u] && p[u] <= hi[u])
                return i;
            continue;
        }
        double t0 = 0, t1 = INFINITY;
        for (int k = 0; k < 3 && t0 <= t1; k++) {
            if (fabs(dir[k]) < 1e-12) {
                if (origin[k] < lo[k] || origin[k] > hi[k]) t0 = INFINITY;
                continue;
            }
            double a = (lo[k] - origin[k]) / dir[k], b = (hi[k] - origin[k]) / dir[k];
            t0 = fmax(t0, fmin(a, b));
            t1 = fmin(t1, fmax(a, b));
        }
        if (t0 <= t1 && t0 < best_t) best_t = t0, best = i;
    }
    return best;
}

static void show_test_box(AlliumView *self)
{
    g_autofree char *text = allium_collision_describe_box(self->collision, self->test_box);
    set_tool_info(self, text);
}

/* Starts a test-box drag: on the box under the pointer, or on a new one placed there (as
 * the entity tool places an entity, then stood on the floor). */
static gboolean begin_test_box(AlliumView *self, double x, double y)
{
    if (!self->collision) return FALSE;
    int box = find_test_box(self, x, y);
    if (box < 0) {
        double at[3], mins[3], maxs[3];
        /* A click that places nothing says why, in the header, until the next one. */
        if (!allium_collision_get_hull_box(self->collision, mins, maxs)) {
            g_autofree char *text =
                g_strdup_printf(_("No test box: the map has no compiled hull “%s” yet"),
                                allium_collision_get_hull(self->collision));
            set_tool_info(self, text);
            return FALSE;
        }
        if (self->kind == AL_VIEW_3D) {
            /* Against the surface under the pointer: off it by the box's own extent. */
            al_pick pick;
            if (!allium_view_pick_at(self, x, y, &pick)) {
                set_tool_info(self, _("No test box: nothing under the pointer to place it "
                                      "against (in a 2D view a click places one anywhere)"));
                return FALSE;
            }
            int a = dominant_axis(pick.normal);
            memcpy(at, pick.point, sizeof at);
            at[a] += pick.normal[a] >= 0 ? -mins[a] + AL_TRACE_SKIN : -maxs[a] - AL_TRACE_SKIN;
        } else {
            /* At the pointer, as deep as the 3D camera; from above it falls to the floor. */
            int r, u, d;
            al_view_axes(self->kind, &r, &u, &d);
            if (!point_on_plane(self, x, y, d, self->camera.position[d], at)) return FALSE;
            at[d] = self->has_eye ? self->eye[d] : 0;
        }
        box = allium_collision_add_box(self->collision, at, self->kind == AL_VIEW_TOP);
        if (box < 0) return FALSE;
    }
    double o[3];
    allium_collision_get_box(self->collision, box, o, NULL);
    self->test_box = box;
    /* The drag plane: horizontal through the box in 3D, the view's plane in 2D. */
    self->edit_axis = self->kind == AL_VIEW_3D ? 2 : depth_axis(self);
    self->edit_plane = o[2];
    self->edit = EDIT_TESTBOX;
    show_test_box(self);
    return TRUE;
}

static void update_test_box(AlliumView *self, double point[3])
{
    double o[3];
    if (!allium_collision_get_box(self->collision, self->test_box, o, NULL)) return;
    /* The pointer's point at the box's depth: each motion is one swept move there. */
    point[self->edit_axis] = o[self->edit_axis];
    allium_collision_drag_box(self->collision, self->test_box, point);
    show_test_box(self);
}

/* --- internal API (allium-view-private.h) ------------------------------------------ */

/* The handles reach the points within HANDLE_REACH of a corner or a side's middle on both
 * axes: the covered area is the product of the covered parts of the two sides less what
 * only the middles reach (the centre has no handle). */
gboolean allium_view_handles_cover_most(double width, double height)
{
    double cover_w, mid_w, cover_h, mid_h;
    handle_cover(width, &cover_w, &mid_w);
    handle_cover(height, &cover_h, &mid_h);
    return cover_w * cover_h - mid_w * mid_h > 0.5 * width * height;
}

gboolean allium_view_tool_begin(AlliumView *self, double x, double y, GdkModifierType state)
{
    self->edit = EDIT_NONE;
    self->drag_state = state;
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !self->document || !self->selection) return FALSE;
    /* The clip tool places points by clicks; its drags do nothing. */
    if (self->tool == ALLIUM_TOOL_CLIP) return FALSE;
    self->edit_vertical = FALSE;
    self->edit_rise = 0;
    if (self->tool == ALLIUM_TOOL_VERTEX) {
        if (allium_document_get_read_only(self->document)) return FALSE;
        if (!allium_view_vertex_begin(self, x, y, state)) {
            /* Off the handles, in a 2D view: a rectangle that selects handles. */
            int r, u, d;
            if (self->kind == AL_VIEW_3D) return FALSE;
            al_view_axes(self->kind, &r, &u, &d);
            self->edit_axis = d;
            if (!point_on_plane(self, x, y, d, self->camera.position[d], self->edit_from))
                return FALSE;
            self->edit_add = (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != 0;
            self->edit = EDIT_BAND;
            allium_view_tool_update(self, x, y);
            return TRUE;
        }
        /* The drag's start on its plane (the handle's height in 3D, the view's in 2D). */
        double at =
            self->kind == AL_VIEW_3D ? self->edit_plane : self->camera.position[self->edit_axis];
        if (!point_on_plane(self, x, y, self->edit_axis, at, self->edit_from)) {
            self->edit = EDIT_NONE;
            return FALSE;
        }
        g_clear_pointer(&self->drag_snapshot, allium_snapshot_unref);
        self->drag_snapshot = allium_snapshot_ref(snap);
        allium_view_tool_update(self, x, y);
        return TRUE;
    }
    /* Test boxes are not edits of the map: read-only documents have them too. */
    if (self->tool == ALLIUM_TOOL_TESTBOX) return begin_test_box(self, x, y);
    if (allium_document_get_read_only(self->document) && self->tool != ALLIUM_TOOL_SELECT)
        return FALSE;
    if (self->tool == ALLIUM_TOOL_ENTITY) {
        if (!self->entity_class) return FALSE;
        self->edit = EDIT_ENTITY;
        update_entity(self, x, y);
        return TRUE;
    }
    al_pick pick;
    gboolean picked = snap->scene && allium_view_pick_at(self, x, y, &pick);
    self->edit_add = (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != 0;

    if (self->kind == AL_VIEW_3D) {
        int side[3] = {0, 0, 0}, h = self->tool == ALLIUM_TOOL_SELECT ? handle_at(self, x, y, side) : -1;
        if (h >= 0) {
            /* A handle pulls its side of the selection along its axis, on a plane that
             * holds the axis and faces the camera. */
            double lo[3], hi[3], p[3];
            handle_bounds(self, lo, hi);
            handle_point(self, lo, hi, h, p, side);
            self->edit_axis = drag_plane_axis(self, h / 2);
            self->edit_plane = p[self->edit_axis];
            if (!begin_resize(self, side)) return FALSE;
        } else if (!picked) {
            return FALSE;
        } else if (self->tool == ALLIUM_TOOL_BRUSH) {
            /* On the surface: its dominant axis, at the grid line nearest the point. */
            int a = dominant_axis(pick.normal);
            self->edit_axis = a;
            self->edit_sign = pick.normal[a] >= 0 ? 1 : -1;
            self->edit_plane = al_snap(pick.point[a], grid_size());
            self->edit = EDIT_BOX;
        } else if (pick_is_selected(self, snap, &pick) && (state & GDK_SHIFT_MASK) &&
                   pick.kind == AL_PICK_FACE) {
            /* Shift + drag on a face pulls that side of the selection along its axis, as its
             * handle does. */
            int a = dominant_axis(pick.normal);
            memset(side, 0, sizeof side);
            side[a] = pick.normal[a] >= 0 ? 1 : -1;
            self->edit_axis = drag_plane_axis(self, a);
            self->edit_plane = pick.point[self->edit_axis];
            if (!begin_resize(self, side)) return FALSE;
        } else if (pick_is_selected(self, snap, &pick)) {
            self->edit_axis = 2;
            self->edit_plane = pick.point[2];
            self->edit = EDIT_MOVE;
        } else {
            return FALSE;
        }
        if (!point_on_plane(self, x, y, self->edit_axis, self->edit_plane, self->edit_from)) {
            self->edit = EDIT_NONE;
            return FALSE;
        }
    } else {
        int r, u, d;
        al_view_axes(self->kind, &r, &u, &d);
        self->edit_axis = d;
        self->edit_sign = 1;
        if (!point_on_plane(self, x, y, d, self->camera.position[d], self->edit_from))
            return FALSE;
        int side[3];
        if (self->tool == ALLIUM_TOOL_BRUSH) self->edit = EDIT_BOX;
        else if ((state & GDK_CONTROL_MASK) && (state & GDK_ALT_MASK) &&
                 !allium_selection_is_empty(self->selection))
            self->edit = EDIT_PIVOT; /* Ctrl + Alt + drag places the rotation centre */
        else if ((state & GDK_ALT_MASK) && !(state & GDK_CONTROL_MASK) &&
                 handle_at(self, x, y, side) >= 0 && begin_shear(self, side)) {
            /* Alt + drag of a side handle shears */
        } else if ((state & GDK_CONTROL_MASK) && in_selection_2d(self, self->edit_from) &&
                   begin_rotate(self)) {
            /* Ctrl + drag on the selection turns it about its centre */
        } else if (!(inside_small_selection(self, x, y) &&
                     in_selection_2d(self, self->edit_from)) &&
                   handle_at(self, x, y, side) >= 0 && begin_resize(self, side)) {
            /* the handle pulls its sides (a small brush under the pointer moves instead) */
        } else if (in_selection_2d(self, self->edit_from))
            self->edit = EDIT_MOVE;
        else self->edit = EDIT_BAND;
        /* The floor of a box drawn with nothing selected: a grid step under the 3D
         * camera, when this view marks it (so the box is near what the designer looks
         * at). */
        self->edit_plane = self->has_eye ? al_snap(self->eye[d], grid_size()) - grid_size() : 0;
    }
    if ((self->edit == EDIT_MOVE || self->edit == EDIT_RESIZE || self->edit == EDIT_ROTATE ||
         self->edit == EDIT_SHEAR) &&
        allium_document_get_read_only(self->document)) {
        self->edit = EDIT_NONE;
        return FALSE;
    }
    memset(self->edit_delta, 0, sizeof self->edit_delta);
    g_clear_pointer(&self->drag_snapshot, allium_snapshot_unref);
    self->drag_snapshot = allium_snapshot_ref(snap);
    allium_view_tool_update(self, x, y);
    return TRUE;
}

/* Alt held during a 3D move of the selection or of vertex handles: the pointer moves
 * along Z (TrenchBroom's vertical drag) on a vertical plane that faces the camera through
 * where the drag was when Alt went down, and POINT (on the horizontal drag plane; ON_PLANE
 * says whether the pointer's ray met it) stays where it was then: the pointer may rise
 * above the horizon. Releasing Alt goes back to the horizontal plane, keeping the rise.
 * FALSE when the step is to be skipped (a ray that misses the plane it moves on). */
static gboolean track_rise(AlliumView *self, double x, double y, gboolean on_plane, double point[3])
{
    gboolean alt = self->kind == AL_VIEW_3D && (self->drag_state & GDK_ALT_MASK) &&
                   (self->edit == EDIT_MOVE || self->edit == EDIT_VERTEX);
    if (!alt) {
        self->edit_vertical = FALSE;
        return on_plane;
    }
    double hit[3];
    if (!self->edit_vertical) {
        if (!on_plane) return FALSE;
        double f[3], r[3], u[3];
        al_camera_basis(&self->camera, f, r, u);
        self->vertical_axis = fabs(f[0]) >= fabs(f[1]) ? 0 : 1;
        self->vertical_at = point[self->vertical_axis];
        memcpy(self->vertical_hold, point, sizeof self->vertical_hold);
        if (!point_on_plane(self, x, y, self->vertical_axis, self->vertical_at, hit)) return FALSE;
        self->vertical_anchor = hit[2] - self->edit_rise;
        self->edit_vertical = TRUE;
    }
    if (!point_on_plane(self, x, y, self->vertical_axis, self->vertical_at, hit)) return FALSE;
    self->edit_rise = hit[2] - self->vertical_anchor;
    memcpy(point, self->vertical_hold, sizeof self->vertical_hold);
    return TRUE;
}

void allium_view_tool_update(AlliumView *self, double x, double y)
{
    if (self->edit == EDIT_NONE) return;
    if (self->edit == EDIT_ENTITY) {
        update_entity(self, x, y);
        return;
    }
    int axis = depth_axis(self);
    double at = self->kind == AL_VIEW_3D ? self->edit_plane : self->camera.position[axis];
    double point[3];
    gboolean on_plane = point_on_plane(self, x, y, axis, at, point);
    if (!track_rise(self, x, y, on_plane, point)) return;
    switch (self->edit) {
    case EDIT_MOVE:
        update_move(self, point);
        break;
    case EDIT_BOX:
        update_box(self, point);
        break;
    case EDIT_BAND:
        update_band(self, point);
        break;
    case EDIT_TESTBOX:
        update_test_box(self, point);
        break;
    case EDIT_RESIZE:
        update_resize(self, point);
        break;
    case EDIT_ROTATE:
        update_rotate(self, point);
        break;
    case EDIT_VERTEX:
        allium_view_vertex_update(self, point);
        break;
    case EDIT_PIVOT:
        update_pivot(self, point);
        break;
    case EDIT_SHEAR:
        update_shear(self, point);
        break;
    default:
        break;
    }
}

void allium_view_tool_end(AlliumView *self, double x, double y)
{
    if (self->edit == EDIT_NONE) return;
    allium_view_tool_update(self, x, y);
    int edit = self->edit;
    self->edit = EDIT_NONE;
    set_tool_info(self, "");
    g_clear_pointer(&self->drag_snapshot, allium_snapshot_unref);
    switch (edit) {
    case EDIT_MOVE:
        commit_move(self);
        break;
    case EDIT_BOX:
        commit_box(self);
        break;
    case EDIT_BAND:
        commit_band(self);
        break;
    case EDIT_ENTITY:
        commit_entity(self);
        break;
    case EDIT_RESIZE:
        commit_resize(self);
        break;
    case EDIT_ROTATE:
        commit_rotate(self);
        break;
    case EDIT_VERTEX:
        allium_view_vertex_commit(self);
        break;
    case EDIT_SHEAR:
        commit_shear(self);
        break;
    case EDIT_TESTBOX: /* the readout stays, kept current, until the box goes */
        show_test_box(self);
        self->showing_box = TRUE;
        break;
    default:
        break;
    }
}

void allium_view_tool_collision_changed(AlliumView *self)
{
    if (!self->showing_box || self->edit != EDIT_NONE) return;
    if (self->test_box < allium_collision_box_count(self->collision)) {
        show_test_box(self); /* an edit or a new snapshot may have changed its readout */
    } else {
        self->showing_box = FALSE;
        set_tool_info(self, "");
    }
}

gboolean allium_view_tool_places_on_click(AlliumView *self)
{
    return self->edit == EDIT_ENTITY || self->edit == EDIT_TESTBOX;
}

void allium_view_tool_cancel(AlliumView *self)
{
    if (self->edit == EDIT_NONE) return;
    self->edit = EDIT_NONE;
    set_tool_info(self, "");
    clear_guides(self);
    end_preview(self); /* Escape: the map as it is, in the engine too */
    g_clear_pointer(&self->drag_snapshot, allium_snapshot_unref);
}

gboolean allium_view_tool_active(AlliumView *self)
{
    return self->edit != EDIT_NONE;
}

/* --- public API (allium-view.h) ----------------------------------------------------- */

gboolean allium_view_nudge_vector(AlliumView *self, const char *direction, double out[3])
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    memset(out, 0, 3 * sizeof out[0]);
    int right, up, depth;
    double right_sign = 1, up_sign = 1;
    if (self->kind == AL_VIEW_3D) {
        /* The horizontal axes nearest the camera's right and forward. */
        double f[3], r[3], u[3];
        al_camera_basis(&self->camera, f, r, u);
        right = fabs(r[0]) >= fabs(r[1]) ? 0 : 1;
        right_sign = r[right] >= 0 ? 1 : -1;
        up = 1 - right;
        up_sign = f[up] >= 0 ? 1 : -1;
        depth = 2;
    } else {
        al_view_axes(self->kind, &right, &up, &depth);
    }
    double step = grid_size();
    if (g_str_equal(direction, "right")) out[right] = right_sign * step;
    else if (g_str_equal(direction, "left")) out[right] = -right_sign * step;
    else if (g_str_equal(direction, "up")) out[up] = up_sign * step;
    else if (g_str_equal(direction, "down")) out[up] = -up_sign * step;
    else if (g_str_equal(direction, "raise")) out[depth] = step;
    else if (g_str_equal(direction, "lower")) out[depth] = -step;
    else return FALSE;
    return TRUE;
}

void allium_view_get_placement(AlliumView *self, double mins[3], double maxs[3])
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    double grid = grid_size(), centre[3];
    if (self->kind == AL_VIEW_3D) {
        /* Ahead of the camera, as far as a new box is deep, times four. */
        double f[3], r[3], u[3];
        al_camera_basis(&self->camera, f, r, u);
        for (int k = 0; k < 3; k++)
            centre[k] = self->camera.position[k] + 4 * DEFAULT_DEPTH_STEPS * grid * f[k];
    } else {
        /* The middle of the view, at the marked 3D camera's depth (else 0). */
        int r, u, d;
        al_view_axes(self->kind, &r, &u, &d);
        memcpy(centre, self->camera.position, sizeof centre);
        centre[d] = self->has_eye ? self->eye[d] : 0;
    }
    double half = 0.5 * DEFAULT_DEPTH_STEPS * grid;
    for (int k = 0; k < 3; k++) {
        double c = al_snap(centre[k], grid);
        mins[k] = c - half;
        maxs[k] = c + half;
    }
}

void allium_view_append_handle_square(AlliumView *self, const double p[3], double radius,
                                      const guint8 colour[4], GArray *points, GArray *colours)
{
    /* A square of RADIUS pixels around the point, facing the camera. */
    double f[3], right[3], up[3], c[4][3], half;
    al_camera_basis(&self->camera, f, right, up);
    double scale = allium_view_scale(self);
    if (self->kind == AL_VIEW_3D) {
        /* Map units per pixel at the handle's distance. */
        double px, py, a[3], b[3], depth = 0;
        for (int k = 0; k < 3; k++) depth += (p[k] - self->camera.position[k]) * f[k];
        if (depth <= 1 || !al_camera_project(&self->camera, p, &px, &py)) return;
        al_camera_unproject(&self->camera, px, py, depth, a);
        al_camera_unproject(&self->camera, px + 1, py, depth, b);
        half = radius * scale *
               sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                    (b[2] - a[2]) * (b[2] - a[2]));
    } else {
        half = radius * scale / MAX(self->camera.zoom, 1e-9);
    }
    for (int i = 0; i < 4; i++) {
        double sr = (i == 1 || i == 2) ? half : -half, su = i >= 2 ? half : -half;
        for (int k = 0; k < 3; k++) c[i][k] = p[k] + sr * right[k] + su * up[k];
    }
    for (int i = 0; i < 4; i++) {
        g_array_append_vals(points, c[i], 1);
        g_array_append_vals(points, c[(i + 1) % 4], 1);
        g_array_append_vals(colours, colour, 1);
        g_array_append_vals(colours, colour, 1);
    }
}

/* The rotation centre placed, in a 2D view: a cross in a square, cyan. */
static void append_pivot(AlliumView *self, GArray *points, GArray *colours)
{
    double pivot[3];
    if (self->kind == AL_VIEW_3D || !self->selection ||
        !allium_selection_get_pivot(self->selection, pivot))
        return;
    static const guint8 cyan[4] = {80, 220, 255, 255};
    double f[3], right[3], up[3];
    al_camera_basis(&self->camera, f, right, up);
    double half = 2 * HANDLE_RADIUS * allium_view_scale(self) / MAX(self->camera.zoom, 1e-9);
    double c[8][3];
    for (int k = 0; k < 3; k++) {
        c[0][k] = pivot[k] - half * right[k], c[1][k] = pivot[k] + half * right[k];
        c[2][k] = pivot[k] - half * up[k], c[3][k] = pivot[k] + half * up[k];
        for (int i = 0; i < 4; i++) {
            double sr = (i == 1 || i == 2) ? 0.5 : -0.5, su = i >= 2 ? 0.5 : -0.5;
            c[4 + i][k] = pivot[k] + half * (sr * right[k] + su * up[k]);
        }
    }
    const int segments[6][2] = {{0, 1}, {2, 3}, {4, 5}, {5, 6}, {6, 7}, {7, 4}};
    for (int i = 0; i < 6; i++) {
        g_array_append_vals(points, c[segments[i][0]], 1);
        g_array_append_vals(points, c[segments[i][1]], 1);
        g_array_append_vals(colours, cyan, 1);
        g_array_append_vals(colours, cyan, 1);
    }
}

void allium_view_tool_append_handles(AlliumView *self, GArray *points, GArray *colours)
{
    if (self->tool == ALLIUM_TOOL_VERTEX) {
        allium_view_vertex_append_handles(self, points, colours);
        return;
    }
    double lo[3], hi[3];
    append_pivot(self, points, colours);
    if (self->edit == EDIT_RESIZE || self->edit == EDIT_MOVE || self->edit == EDIT_ROTATE ||
        self->edit == EDIT_SHEAR || !handle_bounds(self, lo, hi))
        return;
    static const guint8 white[4] = {235, 235, 235, 255};
    for (int h = 0; h < handle_count(self); h++) {
        double p[3];
        int side[3];
        handle_point(self, lo, hi, h, p, side);
        allium_view_append_handle_square(self, p, HANDLE_RADIUS, white, points, colours);
    }
}

gboolean allium_view_side_handle_at(AlliumView *self, double x, double y)
{
    int side[3];
    return self->kind != AL_VIEW_3D && handle_at(self, x, y, side) >= 0 && is_side_handle(side);
}
